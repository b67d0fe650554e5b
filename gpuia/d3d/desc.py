"""Descriptor values mirroring the D3D12 structures gpuia speaks.

All are frozen, hashable values. Each type has an ``of()`` constructor that also accepts what a
user naturally writes: a dict with the D3D field names (``"SemanticName"``) or the snake_case ones
(``"semantic_name"``), a tuple in the C struct's field order, or an instance. Enumerations accept
their D3D names as strings, with or without the C prefix and in any case
(``"D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA"``, ``"per_instance_data"``, ``"PER_INSTANCE"``).

Construction only normalizes types and ranges of single fields (a negative slot number is not a
slot). Rules that involve several fields or the whole layout are checked where D3D checks them:
``gpuia.d3d.layout.InputLayout`` (CreateInputLayout), the draw, or the Stream Output validation.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from ..errors import InvalidDescError
from .formats import UnknownFormatError, canonical_format_name

__all__ = [
    "APPEND_ALIGNED_ELEMENT",
    "SO_NO_RASTERIZED_STREAM",
    "InputClassification",
    "PrimitiveTopology",
    "StripCutValue",
    "InputElementDesc",
    "VertexBufferView",
    "IndexBufferView",
    "DrawInstanced",
    "DrawIndexedInstanced",
    "SODeclarationEntry",
    "StreamOutputDesc",
    "StreamOutputBufferView",
    "delivering",
    "delivers_nothing",
    "draw_of",
]

APPEND_ALIGNED_ELEMENT = 0xFFFFFFFF
"""D3D12_APPEND_ALIGNED_ELEMENT: place the element right after the previous one of its slot."""

SO_NO_RASTERIZED_STREAM = 0xFFFFFFFF
"""D3D12_SO_NO_RASTERIZED_STREAM."""

U32_MAX = 0xFFFFFFFF


def d3d_key(text: str, prefixes: tuple[str, ...]) -> str:
    """A D3D constant's name as gpuia's tables key it: trimmed, upper-case, and without the
    first of ``prefixes`` it starts with (``D3D12_CULL_MODE_BACK`` -> ``BACK``)."""
    key = text.strip().upper()
    for p in prefixes:
        if key.startswith(p):
            return key[len(p):]
    return key


def _enum_lookup(enum_cls, value, prefixes: tuple[str, ...], aliases: dict[str, str], what: str):
    if isinstance(value, enum_cls):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return enum_cls(value)
        except ValueError:
            raise ValueError(f"{value} is not a {what} value") from None
    if isinstance(value, str):
        key = d3d_key(value, prefixes)
        key = aliases.get(key, key)
        if key in enum_cls.__members__:
            return enum_cls[key]
    raise ValueError(f"{value!r} is not a {what}; expected one of {', '.join(enum_cls.__members__)}")


class InputClassification(IntEnum):
    """D3D12_INPUT_CLASSIFICATION."""

    PER_VERTEX_DATA = 0
    PER_INSTANCE_DATA = 1

    @classmethod
    def of(cls, value) -> "InputClassification":
        return _enum_lookup(
            cls,
            value,
            ("D3D12_INPUT_CLASSIFICATION_", "D3D11_INPUT_", "D3D10_INPUT_"),
            {"PER_VERTEX": "PER_VERTEX_DATA", "PER_INSTANCE": "PER_INSTANCE_DATA",
             "VERTEX": "PER_VERTEX_DATA", "INSTANCE": "PER_INSTANCE_DATA"},
            "D3D12_INPUT_CLASSIFICATION",
        )


class PrimitiveTopology(IntEnum):
    """D3D_PRIMITIVE_TOPOLOGY (the values gpuia can draw; patch lists need tessellation)."""

    UNDEFINED = 0
    POINTLIST = 1
    LINELIST = 2
    LINESTRIP = 3
    TRIANGLELIST = 4
    TRIANGLESTRIP = 5
    LINELIST_ADJ = 10
    LINESTRIP_ADJ = 11
    TRIANGLELIST_ADJ = 12
    TRIANGLESTRIP_ADJ = 13

    @classmethod
    def of(cls, value) -> "PrimitiveTopology":
        return _enum_lookup(
            cls, value, ("D3D_PRIMITIVE_TOPOLOGY_", "D3D11_PRIMITIVE_TOPOLOGY_",
                         "D3D10_PRIMITIVE_TOPOLOGY_"), {}, "D3D_PRIMITIVE_TOPOLOGY")


class StripCutValue(IntEnum):
    """D3D12_INDEX_BUFFER_STRIP_CUT_VALUE (pipeline state; only strip topologies cut)."""

    DISABLED = 0
    CUT_0xFFFF = 1
    CUT_0xFFFFFFFF = 2

    @property
    def index(self) -> int | None:
        """The index value that cuts, or None."""
        return (None, 0xFFFF, 0xFFFFFFFF)[self]

    @classmethod
    def of(cls, value) -> "StripCutValue":
        if isinstance(value, str):
            key = value.strip().upper()
            key = key.removeprefix("D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_")
            value = {"0XFFFF": cls.CUT_0xFFFF, "0XFFFFFFFF": cls.CUT_0xFFFFFFFF,
                     "DISABLED": cls.DISABLED}.get(key, value)
        elif isinstance(value, int) and not isinstance(value, cls) and value in (0xFFFF, U32_MAX):
            value = cls.CUT_0xFFFF if value == 0xFFFF else cls.CUT_0xFFFFFFFF
        if value is None:
            return cls.DISABLED
        return _enum_lookup(cls, value, (), {}, "D3D12_INDEX_BUFFER_STRIP_CUT_VALUE")

    def __str__(self) -> str:
        return ("DISABLED", "0xFFFF", "0xFFFFFFFF")[self]


def _check_uint(where: str, name: str, value, bits: int = 32, signed: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        # numpy integers are fine; anything else is not.
        try:
            import numpy as np

            if isinstance(value, np.integer):
                value = int(value)
            else:
                raise TypeError
        except TypeError:
            raise InvalidDescError(where, name, value, "must be an integer") from None
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not lo <= value <= hi:
        kind = f"INT{bits}" if signed else f"UINT{bits}"
        raise InvalidDescError(where, name, value, f"out of range for {kind} ({lo}..{hi})")
    return value


def _construct(cls, kwargs: dict, where: str):
    """``cls(**kwargs)``, turning a missing required field into an InvalidDescError."""
    required = [f.name for f in dataclasses.fields(cls)
                if f.init and f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]
    missing = [n for n in required if n not in kwargs]
    if missing:
        aliases = {py: d3d for d3d, py in getattr(cls, "_ALIASES", {}).items()}
        names = ", ".join(aliases.get(n, n) for n in missing)
        raise InvalidDescError(where, names, None, f"missing required field of {cls.__name__}")
    return cls(**kwargs)


def _fields_from(cls, obj: Any, where: str, aliases: dict[str, str]) -> dict:
    """Map a dict (D3D or snake_case keys) or a tuple in struct order to constructor kwargs."""
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            k = aliases.get(key, key)
            if k not in names:
                raise InvalidDescError(where, key, value, f"unknown field of {cls.__name__}; "
                                       f"expected {', '.join(aliases) or ', '.join(names)}")
            out[k] = value
        return out
    if isinstance(obj, (tuple, list)):
        if len(obj) > len(names):
            raise InvalidDescError(where, None, obj, f"{cls.__name__} has {len(names)} fields")
        return dict(zip(names, obj))
    raise InvalidDescError(where, None, obj, f"cannot make a {cls.__name__} from {type(obj).__name__}")


@dataclass(frozen=True)
class InputElementDesc:
    """D3D12_INPUT_ELEMENT_DESC.

    ``format`` is kept as the canonical DXGI name (no prefix); whether it is a vertex format is
    CreateInputLayout's check (``gpuia.d3d.layout``), which can name the element index.
    ``aligned_byte_offset`` is an integer or :data:`APPEND_ALIGNED_ELEMENT`.
    """

    semantic_name: str
    semantic_index: int = 0
    format: str = "UNKNOWN"
    input_slot: int = 0
    aligned_byte_offset: int = APPEND_ALIGNED_ELEMENT
    input_slot_class: InputClassification = InputClassification.PER_VERTEX_DATA
    instance_data_step_rate: int = 0

    _ALIASES = {
        "SemanticName": "semantic_name", "SemanticIndex": "semantic_index", "Format": "format",
        "InputSlot": "input_slot", "AlignedByteOffset": "aligned_byte_offset",
        "InputSlotClass": "input_slot_class", "InstanceDataStepRate": "instance_data_step_rate",
    }

    def __post_init__(self):
        where = "InputElementDesc"
        if not isinstance(self.semantic_name, str) or not self.semantic_name:
            raise InvalidDescError(where, "SemanticName", self.semantic_name,
                                   "must be a non-empty string")
        _set = object.__setattr__
        try:
            _set(self, "format", canonical_format_name(self.format))
        except UnknownFormatError as e:
            raise InvalidDescError(where, "Format", self.format, str(e)) from None
        offset = self.aligned_byte_offset
        if isinstance(offset, str):
            if offset.strip().upper().removeprefix("D3D12_").removeprefix("D3D11_") not in (
                    "APPEND_ALIGNED_ELEMENT", "APPEND_ALIGNED"):
                raise InvalidDescError(where, "AlignedByteOffset", offset,
                                       "must be an integer or APPEND_ALIGNED_ELEMENT")
            offset = APPEND_ALIGNED_ELEMENT
        _set(self, "aligned_byte_offset", _check_uint(where, "AlignedByteOffset", offset))
        _set(self, "semantic_index", _check_uint(where, "SemanticIndex", self.semantic_index))
        _set(self, "input_slot", _check_uint(where, "InputSlot", self.input_slot))
        _set(self, "instance_data_step_rate",
             _check_uint(where, "InstanceDataStepRate", self.instance_data_step_rate))
        try:
            _set(self, "input_slot_class", InputClassification.of(self.input_slot_class))
        except ValueError as e:
            raise InvalidDescError(where, "InputSlotClass", self.input_slot_class, str(e)) from None

    @classmethod
    def of(cls, obj: Any) -> "InputElementDesc":
        """From an instance, a dict (D3D or snake_case keys) or a tuple in struct order."""
        if isinstance(obj, cls):
            return obj
        return _construct(cls, _fields_from(cls, obj, "InputElementDesc", cls._ALIASES),
                          "InputElementDesc")

    @property
    def key(self) -> str:
        """The semantic as gpuia names it in results: upper-case name + decimal index."""
        return f"{self.semantic_name.upper()}{self.semantic_index}"

    @property
    def is_append_aligned(self) -> bool:
        return self.aligned_byte_offset == APPEND_ALIGNED_ELEMENT

    def to_dict(self) -> dict:
        """The case-file (D3D field name) form."""
        return {
            "SemanticName": self.semantic_name, "SemanticIndex": self.semantic_index,
            "Format": self.format, "InputSlot": self.input_slot,
            "AlignedByteOffset": "APPEND_ALIGNED_ELEMENT" if self.is_append_aligned
            else self.aligned_byte_offset,
            "InputSlotClass": self.input_slot_class.name,
            "InstanceDataStepRate": self.instance_data_step_rate,
        }



class _IdentityBufferMixin:
    """Views compare and hash by the identity of their buffer object (numpy arrays are not
    hashable and two equal byte strings are still two buffers)."""

    def _key(self):
        key = self.__dict__.get("_key_cache")
        if key is None:
            key = (id(self.buffer),) + tuple(
                getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "buffer")
            object.__setattr__(self, "_key_cache", key)
        return key

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


def _buffer_len(buffer) -> int:
    if hasattr(buffer, "nbytes"):
        return int(buffer.nbytes)
    if hasattr(buffer, "size") and not callable(buffer.size):
        return int(buffer.size)
    return len(memoryview(buffer).cast("B"))


def _check_view_range(where: str, buffer, offset: int, size: int | None) -> int:
    offset = _check_uint(where, "offset", offset, 64)
    if buffer is None:
        return 0 if size is None else _check_uint(where, "SizeInBytes", size)
    total = _buffer_len(buffer)
    if offset > total:
        raise InvalidDescError(where, "offset", offset,
                               f"the view starts past the end of its {total}-byte buffer")
    if size is None:
        size = total - offset
        return _check_uint(where, "SizeInBytes", size)
    size = _check_uint(where, "SizeInBytes", size)
    if offset + size > total:
        raise InvalidDescError(where, "SizeInBytes", size,
                               f"view [{offset}, {offset + size}) extends past the end of its "
                               f"{total}-byte buffer")
    return size


MAX_VERTEX_STRIDE = 2048
"""The largest vertex buffer stride (D3D11.3 8.19.3, rulebook 3.3; D3D12's IASetVertexBuffers
does not validate it, its behaviour past it is undefined)."""
INPUT_SLOTS = 32
"""D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT (rulebook 3.1)."""


@dataclass(frozen=True, eq=False)
class VertexBufferView(_IdentityBufferMixin):
    """D3D12_VERTEX_BUFFER_VIEW, with BufferLocation spelled as (buffer, offset).

    ``buffer`` is any bytes-like object (bytes, numpy array, memoryview) or a gpuia GPU buffer;
    None is the zeroed view, i.e. an unbound slot (rulebook 6.2). ``size_in_bytes`` None means the
    rest of the buffer after ``offset``; it is resolved at construction and must lie inside the
    buffer. Fetches are bounds-checked against it per element (rulebook 6.3).
    """

    buffer: Any
    stride_in_bytes: int = 0
    offset: int = 0
    size_in_bytes: int | None = None

    def __post_init__(self):
        where = "VertexBufferView"
        object.__setattr__(self, "stride_in_bytes",
                           _check_uint(where, "StrideInBytes", self.stride_in_bytes))
        if self.stride_in_bytes > MAX_VERTEX_STRIDE:
            raise InvalidDescError(where, "StrideInBytes", self.stride_in_bytes,
                                   f"vertex buffer strides are 0..{MAX_VERTEX_STRIDE} bytes "
                                   f"(rulebook 3.3)")
        object.__setattr__(self, "size_in_bytes",
                           _check_view_range(where, self.buffer, self.offset, self.size_in_bytes))

    @classmethod
    def of(cls, obj: Any) -> "VertexBufferView | None":
        if obj is None or isinstance(obj, cls):
            return obj
        return _construct(cls, _fields_from(cls, obj, "VertexBufferView", {
            "BufferLocation": "buffer", "data": "buffer", "StrideInBytes": "stride_in_bytes",
            "stride": "stride_in_bytes", "SizeInBytes": "size_in_bytes", "size": "size_in_bytes",
            "offset": "offset"}), "VertexBufferView")

    @property
    def is_null(self) -> bool:
        return self.buffer is None


@dataclass(frozen=True, eq=False)
class IndexBufferView(_IdentityBufferMixin):
    """D3D12_INDEX_BUFFER_VIEW: ``format`` is R16_UINT or R32_UINT (UNKNOWN is refused,
    rulebook 1.3). A None buffer is the NULL view: every index reads as 0 (rulebook 5.5)."""

    buffer: Any
    format: str = "R16_UINT"
    offset: int = 0
    size_in_bytes: int | None = None

    def __post_init__(self):
        from .formats import INDEX_FORMATS

        where = "IndexBufferView"
        try:
            name = canonical_format_name(self.format)
        except UnknownFormatError as e:
            raise InvalidDescError(where, "Format", self.format, str(e)) from None
        if name not in INDEX_FORMATS:
            raise InvalidDescError(where, "Format", self.format,
                                   "index buffers take only R16_UINT or R32_UINT (D3D11.3 5.3.4.2)")
        object.__setattr__(self, "format", name)
        object.__setattr__(self, "size_in_bytes",
                           _check_view_range(where, self.buffer, self.offset, self.size_in_bytes))
        if self.offset % INDEX_FORMATS[name]:
            raise InvalidDescError(where, "offset", self.offset,
                                   f"an index buffer view starts at a multiple of its index size "
                                   f"({INDEX_FORMATS[name]} bytes for {name}; rulebook 7.4)")

    @property
    def index_size(self) -> int:
        from .formats import INDEX_FORMATS

        return INDEX_FORMATS[self.format]

    @classmethod
    def of(cls, obj: Any) -> "IndexBufferView | None":
        if obj is None or isinstance(obj, cls):
            return obj
        return _construct(cls, _fields_from(cls, obj, "IndexBufferView", {
            "BufferLocation": "buffer", "data": "buffer", "Format": "format",
            "format": "format", "SizeInBytes": "size_in_bytes", "size": "size_in_bytes",
            "offset": "offset"}), "IndexBufferView")


@dataclass(frozen=True)
class DrawInstanced:
    """DrawInstanced arguments (D3D12 order)."""

    vertex_count_per_instance: int
    instance_count: int = 1
    start_vertex_location: int = 0
    start_instance_location: int = 0

    _ALIASES = {"VertexCountPerInstance": "vertex_count_per_instance",
                "InstanceCount": "instance_count", "StartVertexLocation": "start_vertex_location",
                "StartInstanceLocation": "start_instance_location"}

    def __post_init__(self):
        for name in _DRAW_FIELDS:
            v = getattr(self, name)
            if type(v) is not int or not 0 <= v <= U32_MAX:  # fast path for plain ints
                object.__setattr__(self, name, _check_uint("DrawInstanced",
                                                           _d3d_name(self, name), v))

    @property
    def indexed(self) -> bool:
        return False

    @property
    def count(self) -> int:
        return self.vertex_count_per_instance

    def to_dict(self) -> dict:
        return {"DrawInstanced": {d3d: getattr(self, py) for d3d, py in self._ALIASES.items()}}


@dataclass(frozen=True)
class DrawIndexedInstanced:
    """DrawIndexedInstanced arguments (D3D12 order); BaseVertexLocation is a signed INT."""

    index_count_per_instance: int
    instance_count: int = 1
    start_index_location: int = 0
    base_vertex_location: int = 0
    start_instance_location: int = 0

    _ALIASES = {"IndexCountPerInstance": "index_count_per_instance",
                "InstanceCount": "instance_count", "StartIndexLocation": "start_index_location",
                "BaseVertexLocation": "base_vertex_location",
                "StartInstanceLocation": "start_instance_location"}

    def __post_init__(self):
        for name in _INDEXED_FIELDS:
            v = getattr(self, name)
            signed = name == "base_vertex_location"
            lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, U32_MAX)
            if type(v) is not int or not lo <= v <= hi:
                object.__setattr__(self, name, _check_uint(
                    "DrawIndexedInstanced", _d3d_name(self, name), v, signed=signed))

    @property
    def indexed(self) -> bool:
        return True

    @property
    def count(self) -> int:
        return self.index_count_per_instance

    def to_dict(self) -> dict:
        return {"DrawIndexedInstanced": {d3d: getattr(self, py) for d3d, py in self._ALIASES.items()}}


_DRAW_FIELDS = ("vertex_count_per_instance", "instance_count", "start_vertex_location",
                "start_instance_location")
_INDEXED_FIELDS = ("index_count_per_instance", "instance_count", "start_index_location",
                   "base_vertex_location", "start_instance_location")


def _d3d_name(obj, py_name: str) -> str:
    for d3d, py in type(obj)._ALIASES.items():
        if py == py_name:
            return d3d
    return py_name


Draw = DrawInstanced | DrawIndexedInstanced


def delivers_nothing(draw: Draw) -> bool:
    """Whether a count of ``draw`` is 0: vertices 0..count-1 of instances 0..InstanceCount-1
    (rulebook 4.1, 4.6) is then an empty set, and the other count plays no part. Work sized by
    that other count (up to 2^32 - 1) would be index lists or captures of gigabytes for no
    vertex."""
    return not (draw.count and draw.instance_count)


def delivering(draw: Draw) -> Draw:
    """``draw``, or its empty form (both counts 0, the start locations kept) when it
    :func:`delivers_nothing`."""
    if not delivers_nothing(draw):
        return draw
    count = "index_count_per_instance" if draw.indexed else "vertex_count_per_instance"
    return dataclasses.replace(draw, instance_count=0, **{count: 0})


def draw_of(obj: Any) -> Draw:
    """A draw from an instance or from ``{"DrawInstanced": {...}}`` /
    ``{"DrawIndexedInstanced": {...}}`` (the case-file form)."""
    if isinstance(obj, (DrawInstanced, DrawIndexedInstanced)):
        return obj
    if isinstance(obj, dict) and len(obj) == 1:
        ((kind, args),) = obj.items()
        cls = {"DrawInstanced": DrawInstanced, "DrawIndexedInstanced": DrawIndexedInstanced}.get(kind)
        if cls is not None and isinstance(args, dict):
            return _construct(cls, _fields_from(cls, args, kind, cls._ALIASES), kind)
    raise InvalidDescError("draw", None, obj,
                           "expected {\"DrawInstanced\": {...}} or {\"DrawIndexedInstanced\": {...}}")


@dataclass(frozen=True)
class SODeclarationEntry:
    """D3D12_SO_DECLARATION_ENTRY. ``semantic_name`` None is a gap (skips ComponentCount
    components). Cross-field rules are checked by the Stream Output validation."""

    stream: int = 0
    semantic_name: str | None = None
    semantic_index: int = 0
    start_component: int = 0
    component_count: int = 4
    output_slot: int = 0

    _ALIASES = {"Stream": "stream", "SemanticName": "semantic_name",
                "SemanticIndex": "semantic_index", "StartComponent": "start_component",
                "ComponentCount": "component_count", "OutputSlot": "output_slot"}

    def __post_init__(self):
        where = "SODeclarationEntry"
        if self.semantic_name is not None and (not isinstance(self.semantic_name, str)
                                               or not self.semantic_name):
            raise InvalidDescError(where, "SemanticName", self.semantic_name,
                                   "must be a non-empty string or None (a gap)")
        for name in ("stream", "semantic_index", "output_slot"):
            object.__setattr__(self, name, _check_uint(where, _d3d_name(self, name),
                                                       getattr(self, name)))
        for name in ("start_component", "component_count"):
            object.__setattr__(self, name, _check_uint(where, _d3d_name(self, name),
                                                       getattr(self, name), 8))

    @classmethod
    def of(cls, obj: Any) -> "SODeclarationEntry":
        if isinstance(obj, cls):
            return obj
        return _construct(cls, _fields_from(cls, obj, "SODeclarationEntry", cls._ALIASES),
                          "SODeclarationEntry")

    @property
    def is_gap(self) -> bool:
        return self.semantic_name is None


@dataclass(frozen=True)
class StreamOutputDesc:
    """D3D12_STREAM_OUTPUT_DESC: the declaration, per-slot strides and the rasterized stream
    (an integer or :data:`SO_NO_RASTERIZED_STREAM`)."""

    so_declaration: tuple[SODeclarationEntry, ...] = ()
    buffer_strides: tuple[int, ...] = ()
    rasterized_stream: int = 0

    def __post_init__(self):
        object.__setattr__(self, "so_declaration",
                           tuple(SODeclarationEntry.of(e) for e in self.so_declaration))
        object.__setattr__(self, "buffer_strides", tuple(
            _check_uint("StreamOutputDesc", "pBufferStrides", s) for s in self.buffer_strides))
        rs = self.rasterized_stream
        if isinstance(rs, str):
            key = rs.strip().upper().removeprefix("D3D12_").removeprefix("D3D11_")
            if key != "SO_NO_RASTERIZED_STREAM" and key != "NO_RASTERIZED_STREAM":
                raise InvalidDescError("StreamOutputDesc", "RasterizedStream", rs,
                                       "must be 0-3 or NO_RASTERIZED_STREAM")
            rs = SO_NO_RASTERIZED_STREAM
        object.__setattr__(self, "rasterized_stream",
                           _check_uint("StreamOutputDesc", "RasterizedStream", rs))


@dataclass(frozen=True, eq=False)
class StreamOutputBufferView(_IdentityBufferMixin):
    """D3D12_STREAM_OUTPUT_BUFFER_VIEW: writes go to ``buffer`` starting at ``offset``
    (BufferLocation) within ``size_in_bytes``; the 32-bit BufferFilledSize counter lives in
    ``filled_size_buffer`` at ``filled_size_offset`` (BufferFilledSizeLocation; it may be the
    same buffer)."""

    buffer: Any
    size_in_bytes: int | None = None
    offset: int = 0
    filled_size_buffer: Any = None
    filled_size_offset: int = 0

    def __post_init__(self):
        where = "StreamOutputBufferView"
        object.__setattr__(self, "size_in_bytes",
                           _check_view_range(where, self.buffer, self.offset, self.size_in_bytes))
        object.__setattr__(self, "filled_size_offset",
                           _check_uint(where, "BufferFilledSizeLocation", self.filled_size_offset, 64))
