"""Descriptor values mirroring the D3D12 structures gpuia speaks.

All are frozen, hashable values. Each type has an ``of()`` constructor that also accepts what a
user naturally writes: a dict with the D3D field names (``"SemanticName"``) or the snake_case ones
(``"semantic_name"``), a tuple in the C struct's field order, or an instance. Enumerations accept
their D3D names as strings, with or without the C prefix and in any case
(``"D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA"``, ``"per_instance_data"``, ``"PER_INSTANCE"``).

Construction only normalizes types and ranges of single fields (a negative slot number is not a
slot), and a view checks that it lies inside its buffer. Rules that involve several fields or the
whole layout are checked where D3D checks them: ``gpuia.d3d.layout.InputLayout``
(CreateInputLayout), the draw, or the Stream Output validation
(``gpuia.d3d.so_declaration.resolve_stream_output``). Every refusal is an
:class:`~gpuia.errors.InvalidDescError` naming the D3D field, except that an enumeration's
``of()`` raises ``ValueError`` (:class:`InputElementDesc` and the case reader turn it into an
InvalidDescError naming the field) and a buffer that is not bytes-like raises ``TypeError``.
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
"""D3D12_APPEND_ALIGNED_ELEMENT: place the element right after the previous one of its slot,
aligned to its own alignment (rules 3.4)."""

SO_NO_RASTERIZED_STREAM = 0xFFFFFFFF
"""D3D12_SO_NO_RASTERIZED_STREAM: the RasterizedStream of a Stream Output declaration that
rasterizes no stream (rules 8.10)."""

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
    raise ValueError(
        f"{value!r} is not a {what}; expected one of {', '.join(enum_cls.__members__)}")


class InputClassification(IntEnum):
    """D3D12_INPUT_CLASSIFICATION: whether an element is fetched per vertex or per instance
    (rules 4.1-4.3)."""

    PER_VERTEX_DATA = 0
    PER_INSTANCE_DATA = 1

    @classmethod
    def of(cls, value: InputClassification | str | int) -> InputClassification:
        """The classification ``value`` names.

        Accepts a member, its integer value (0 or 1), or a name in any case, with or without
        the ``D3D12_INPUT_CLASSIFICATION_``, ``D3D11_INPUT_`` or ``D3D10_INPUT_`` prefix;
        ``PER_VERTEX``, ``PER_INSTANCE``, ``VERTEX`` and ``INSTANCE`` are short forms.

        Arguments:
            value: the classification, in one of the forms above.

        Returns:
            The :class:`InputClassification` member.

        Raises:
            ValueError: ``value`` names no classification (a bool included); the message
                lists the names.
        """
        return _enum_lookup(
            cls,
            value,
            ("D3D12_INPUT_CLASSIFICATION_", "D3D11_INPUT_", "D3D10_INPUT_"),
            {"PER_VERTEX": "PER_VERTEX_DATA", "PER_INSTANCE": "PER_INSTANCE_DATA",
             "VERTEX": "PER_VERTEX_DATA", "INSTANCE": "PER_INSTANCE_DATA"},
            "D3D12_INPUT_CLASSIFICATION",
        )


class PrimitiveTopology(IntEnum):
    """D3D_PRIMITIVE_TOPOLOGY: the values gpuia knows, with D3D's numbers. Patch lists are not
    members (they need tessellation); UNDEFINED is, but a draw refuses it
    (:func:`gpuia.d3d.topology.topology_info`)."""

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
    def of(cls, value: PrimitiveTopology | str | int) -> PrimitiveTopology:
        """The topology ``value`` names.

        Accepts a member, its D3D integer value (0-5, 10-13), or a name in any case, with or
        without the ``D3D_PRIMITIVE_TOPOLOGY_``, ``D3D11_PRIMITIVE_TOPOLOGY_`` or
        ``D3D10_PRIMITIVE_TOPOLOGY_`` prefix (``"TRIANGLESTRIP"``,
        ``"D3D_PRIMITIVE_TOPOLOGY_LINELIST_ADJ"``).

        Arguments:
            value: the topology, in one of the forms above.

        Returns:
            The :class:`PrimitiveTopology` member (UNDEFINED included).

        Raises:
            ValueError: ``value`` is no member's value or name (patch lists included); the
                message lists the names.
        """
        return _enum_lookup(
            cls, value, ("D3D_PRIMITIVE_TOPOLOGY_", "D3D11_PRIMITIVE_TOPOLOGY_",
                         "D3D10_PRIMITIVE_TOPOLOGY_"), {}, "D3D_PRIMITIVE_TOPOLOGY")


class StripCutValue(IntEnum):
    """D3D12_INDEX_BUFFER_STRIP_CUT_VALUE: pipeline state naming the index value that ends a
    strip. Only strip topologies cut (rules 5.2), and an index cuts when it equals the literal
    value, whatever the index format (rules 5.3). ``str()`` gives ``DISABLED``, ``0xFFFF`` or
    ``0xFFFFFFFF``."""

    DISABLED = 0
    CUT_0xFFFF = 1
    CUT_0xFFFFFFFF = 2

    @property
    def index(self) -> int | None:
        """The index value that cuts (0xFFFF or 0xFFFFFFFF), or None for DISABLED."""
        return (None, 0xFFFF, 0xFFFFFFFF)[self]

    @classmethod
    def of(cls, value: StripCutValue | str | int | None) -> StripCutValue:
        """The cut value ``value`` names.

        Accepts a member; None (DISABLED); the strings ``"DISABLED"``, ``"0xFFFF"`` and
        ``"0xFFFFFFFF"`` in any case, with or without the
        ``D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_`` prefix; the cut indices 0xFFFF and 0xFFFFFFFF
        themselves; and the enumeration's values 0, 1 and 2.

        Arguments:
            value: the cut value, in one of the forms above.

        Returns:
            The :class:`StripCutValue` member.

        Raises:
            ValueError: any other value (member names such as ``"CUT_0xFFFF"`` and bools
                included).
        """
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
        return dict(zip(names, obj, strict=False))
    raise InvalidDescError(where, None, obj,
                           f"cannot make a {cls.__name__} from {type(obj).__name__}")


@dataclass(frozen=True)
class InputElementDesc:
    """D3D12_INPUT_ELEMENT_DESC: one element of an input layout, a frozen, hashable value.

    Construction checks each field on its own and normalizes it: ``format`` is kept as the
    canonical DXGI name (no prefix), ``input_slot_class`` as an :class:`InputClassification`,
    ``aligned_byte_offset`` as an integer (:data:`APPEND_ALIGNED_ELEMENT` for an appended
    element), numpy integers as ints. Whether ``format`` is a vertex format, and every rule
    between fields or elements, is CreateInputLayout's check
    (:class:`~gpuia.d3d.layout.InputLayout`, rules section 3), which can name the element index.

    Arguments:
        semantic_name (str): SemanticName, a non-empty string, kept as given; it is matched
            ignoring case (rules 3.7).
        semantic_index (int): SemanticIndex, a UINT. Default 0.
        format: Format: any DXGI format as
            :func:`~gpuia.d3d.formats.canonical_format_name` takes it (a name with or without
            ``DXGI_FORMAT_``, the enum's integer, a :class:`~gpuia.d3d.formats.FormatInfo`).
            Default ``"UNKNOWN"``, which the layout refuses.
        input_slot (int): InputSlot, a UINT; the profile's slot count is the layout's check.
            Default 0.
        aligned_byte_offset: AlignedByteOffset, a UINT, or :data:`APPEND_ALIGNED_ELEMENT`
            (also the string ``"APPEND_ALIGNED_ELEMENT"`` or ``"APPEND_ALIGNED"``, with or
            without ``D3D12_``/``D3D11_``), the default (rules 3.4).
        input_slot_class: InputSlotClass, anything :meth:`InputClassification.of` takes.
            Default PER_VERTEX_DATA.
        instance_data_step_rate (int): InstanceDataStepRate, a UINT (0 for per-vertex data is
            the layout's check, rules 3.6). Default 0.

    Raises:
        InvalidDescError: naming the D3D field: a SemanticName that is empty or no string, a
            Format that is no DXGI format, an integer field that is not an integer (bools are
            not) or lies outside 0..2**32 - 1, another string as AlignedByteOffset, an unknown
            InputSlotClass.
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
    def of(cls, obj: Any) -> InputElementDesc:
        """An element from what a user writes: an instance (returned as it is), a dict with the
        D3D field names (``"SemanticName"``) or the snake_case ones, or a tuple or list in the
        C struct's field order (missing trailing fields take their defaults).

        Arguments:
            obj: the element, in one of the forms above.

        Returns:
            The :class:`InputElementDesc`.

        Raises:
            InvalidDescError: an unknown dict key, more values than the struct has fields, no
                SemanticName, another type of ``obj``, or a field the constructor refuses.
        """
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
        """Whether AlignedByteOffset is :data:`APPEND_ALIGNED_ELEMENT` (rules 3.4)."""
        return self.aligned_byte_offset == APPEND_ALIGNED_ELEMENT

    def to_dict(self) -> dict:
        """The case-file form (``docs/case-format.md``): every field under its D3D name,
        AlignedByteOffset as ``"APPEND_ALIGNED_ELEMENT"`` when appended and InputSlotClass by
        its name. :meth:`of` reads it back to an equal element."""
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

    buffer: Any  # each view's own field (the views are dataclasses; this base is not)

    def _key(self) -> tuple:
        key = self.__dict__.get("_key_cache")
        if key is None:
            view: Any = self  # a dataclass: every class using this base is one
            key = (id(self.buffer),) + tuple(
                getattr(self, f.name) for f in dataclasses.fields(view) if f.name != "buffer")
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
"""The largest vertex buffer stride (D3D11.3 8.19.4, rules 3.3; D3D12's IASetVertexBuffers
does not validate it, its behaviour past it is undefined)."""
CONSTANT_BUFFER_SLOTS = 14
"""The root constant buffers gpuia binds, registers b0..b13 of space 0: the 14 constant buffer
slots a D3D10 or D3D11 shader stage has (D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT;
D3D10's is 14 too). A D3D12 root signature may name any register; gpuia refuses b14 and above
when the shader is compiled, naming the register and this limit."""


@dataclass(frozen=True, eq=False)
class VertexBufferView(_IdentityBufferMixin):
    """D3D12_VERTEX_BUFFER_VIEW, with BufferLocation spelled as (buffer, offset).

    A frozen value that compares and hashes by the identity of its buffer object (two equal
    byte strings are still two buffers) and its other fields. The view is checked against its
    buffer at construction: ``size_in_bytes`` is resolved and the range must lie inside the
    buffer. Fetches are bounds-checked against SizeInBytes per element (rules 6.3); the
    stride is not checked against the layout (rules 3.3) and may be 0.

    Arguments:
        buffer: the data: any bytes-like object (bytes, numpy array, memoryview) or a gpuia
            GPU buffer (its ``size``). None is the zeroed view, an unbound slot (rules 6.2).
        stride_in_bytes (int): StrideInBytes, 0..2048 (rules 3.3). Default 0.
        offset (int): the byte offset of BufferLocation within ``buffer`` (a UINT64, at most
            the buffer's size). Default 0.
        size_in_bytes (int): SizeInBytes, a UINT; None (the default) means the rest of the
            buffer after ``offset`` (0 for a None buffer).

    Raises:
        InvalidDescError: a stride above 2048 or a field that is no unsigned integer of its
            width, naming the field; an ``offset`` past the end of the buffer, or a range
            ``[offset, offset + size_in_bytes)`` past it.
        TypeError: ``buffer`` is neither bytes-like nor has an ``nbytes`` or ``size``.
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
                                   f"(rules 3.3)")
        object.__setattr__(self, "size_in_bytes",
                           _check_view_range(where, self.buffer, self.offset, self.size_in_bytes))

    @classmethod
    def of(cls, obj: Any) -> VertexBufferView | None:
        """A view from what a user writes: None (returned as it is: an unbound slot), an
        instance (returned as it is), a dict whose keys are the D3D or snake_case field names
        or the short forms (``BufferLocation``/``data``/``buffer``, ``StrideInBytes``/
        ``stride``, ``SizeInBytes``/``size``, ``offset``), or a tuple or list in the order
        (buffer, stride_in_bytes, offset, size_in_bytes).

        Arguments:
            obj: the view, in one of the forms above.

        Returns:
            The :class:`VertexBufferView`, or None.

        Raises:
            InvalidDescError: an unknown dict key, too many values, no buffer, another type of
                ``obj``, or a field the constructor refuses.
            TypeError: as the constructor raises it.
        """
        if obj is None or isinstance(obj, cls):
            return obj
        return _construct(cls, _fields_from(cls, obj, "VertexBufferView", {
            "BufferLocation": "buffer", "data": "buffer", "StrideInBytes": "stride_in_bytes",
            "stride": "stride_in_bytes", "SizeInBytes": "size_in_bytes", "size": "size_in_bytes",
            "offset": "offset"}), "VertexBufferView")

    @property
    def is_null(self) -> bool:
        """Whether this is the zeroed view (no buffer): an unbound slot (rules 6.2)."""
        return self.buffer is None


@dataclass(frozen=True, eq=False)
class IndexBufferView(_IdentityBufferMixin):
    """D3D12_INDEX_BUFFER_VIEW, with BufferLocation spelled as (buffer, offset).

    A frozen value that compares and hashes by the identity of its buffer object and its other
    fields; ``format`` is kept as the canonical name. Index reads past SizeInBytes read 0
    (rules 5.6).

    Arguments:
        buffer: the indices: any bytes-like object or a gpuia GPU buffer, as for
            :class:`VertexBufferView`. None is the NULL view: every index reads 0 (rules 5.5).
        format: Format, ``R16_UINT`` (the default) or ``R32_UINT``, in any form
            :func:`~gpuia.d3d.formats.canonical_format_name` takes (rules 1.2).
        offset (int): the byte offset of BufferLocation within ``buffer``, a multiple of the
            index size (rules 7.4). Default 0.
        size_in_bytes (int): SizeInBytes; None (the default) means the rest of the buffer.

    Raises:
        InvalidDescError: a Format that is no DXGI format or not an index format (UNKNOWN
            included, rules 1.3); an offset that is not a multiple of the index size; a range
            outside the buffer or a field that is no unsigned integer, as for
            :class:`VertexBufferView`.
        TypeError: ``buffer`` is neither bytes-like nor has an ``nbytes`` or ``size``.
    """

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
                                   f"({INDEX_FORMATS[name]} bytes for {name}; rules 7.4)")

    @property
    def index_size(self) -> int:
        """Bytes per index: 2 for R16_UINT, 4 for R32_UINT."""
        from .formats import INDEX_FORMATS

        return INDEX_FORMATS[self.format]

    @classmethod
    def of(cls, obj: Any) -> IndexBufferView | None:
        """A view from what a user writes: None (returned as it is), an instance (returned as
        it is), a dict whose keys are the D3D or snake_case field names or the short forms
        (``BufferLocation``/``data``/``buffer``, ``Format``/``format``, ``SizeInBytes``/
        ``size``, ``offset``), or a tuple or list in the order (buffer, format, offset,
        size_in_bytes).

        Arguments:
            obj: the view, in one of the forms above.

        Returns:
            The :class:`IndexBufferView`, or None.

        Raises:
            InvalidDescError: an unknown dict key, too many values, no buffer, another type of
                ``obj``, or a field the constructor refuses.
            TypeError: as the constructor raises it.
        """
        if obj is None or isinstance(obj, cls):
            return obj
        return _construct(cls, _fields_from(cls, obj, "IndexBufferView", {
            "BufferLocation": "buffer", "data": "buffer", "Format": "format",
            "format": "format", "SizeInBytes": "size_in_bytes", "size": "size_in_bytes",
            "offset": "offset"}), "IndexBufferView")


@dataclass(frozen=True)
class DrawInstanced:
    """The arguments of a DrawInstanced call, in D3D12's order: a frozen, hashable value.

    Instance ``k`` delivers vertices ``i = 0 .. VertexCountPerInstance - 1``, fetching
    per-vertex data at ``StartVertexLocation + i`` and per-instance data by
    ``StartInstanceLocation`` (rules 4.1, 4.3); SV_VertexID is ``i`` and SV_InstanceID ``k``
    (rules 4.5, 4.6). All four are UINTs.

    Arguments:
        vertex_count_per_instance (int): VertexCountPerInstance.
        instance_count (int): InstanceCount. Default 1.
        start_vertex_location (int): StartVertexLocation. Default 0.
        start_instance_location (int): StartInstanceLocation. Default 0.

    Raises:
        InvalidDescError: an argument that is no integer (bools are not) or lies outside
            0..2**32 - 1, naming its D3D name.
    """

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
        """False: a DrawInstanced reads no index buffer."""
        return False

    @property
    def count(self) -> int:
        """VertexCountPerInstance: the positions one instance walks."""
        return self.vertex_count_per_instance

    def to_dict(self) -> dict:
        """The case-file form, ``{"DrawInstanced": {D3D argument name: value}}``, which
        :func:`draw_of` reads back."""
        return {"DrawInstanced": {d3d: getattr(self, py) for d3d, py in self._ALIASES.items()}}


@dataclass(frozen=True)
class DrawIndexedInstanced:
    """The arguments of a DrawIndexedInstanced call, in D3D12's order: a frozen, hashable
    value.

    Instance ``k`` reads indices ``StartIndexLocation + j`` for ``j = 0 ..
    IndexCountPerInstance - 1`` and fetches per-vertex data at ``BaseVertexLocation + index``
    in wrapping 32-bit arithmetic (rules 4.2, 4.8); SV_VertexID is the index value (rules 4.5).
    BaseVertexLocation is a signed INT, the others are UINTs.

    Arguments:
        index_count_per_instance (int): IndexCountPerInstance.
        instance_count (int): InstanceCount. Default 1.
        start_index_location (int): StartIndexLocation. Default 0.
        base_vertex_location (int): BaseVertexLocation, -2**31..2**31 - 1. Default 0.
        start_instance_location (int): StartInstanceLocation. Default 0.

    Raises:
        InvalidDescError: an argument that is no integer (bools are not) or lies outside its
            range, naming its D3D name.
    """

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
        """True: a DrawIndexedInstanced reads the bound index buffer."""
        return True

    @property
    def count(self) -> int:
        """IndexCountPerInstance: the index positions one instance walks."""
        return self.index_count_per_instance

    def to_dict(self) -> dict:
        """The case-file form, ``{"DrawIndexedInstanced": {D3D argument name: value}}``, which
        :func:`draw_of` reads back."""
        return {"DrawIndexedInstanced": {d3d: getattr(self, py)
                                         for d3d, py in self._ALIASES.items()}}


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
    (rules 4.1, 4.6) is then an empty set, and the other count plays no part. Work sized by
    that other count (up to 2^32 - 1) would be index lists or captures of gigabytes for no
    vertex.

    Arguments:
        draw: a :class:`DrawInstanced` or :class:`DrawIndexedInstanced`.

    Returns:
        True when its vertex or index count or its InstanceCount is 0.
    """
    return not (draw.count and draw.instance_count)


def delivering(draw: Draw) -> Draw:
    """``draw``, or its empty form when it :func:`delivers_nothing`, so that nothing downstream
    sizes work by the count that plays no part.

    Arguments:
        draw: a :class:`DrawInstanced` or :class:`DrawIndexedInstanced`.

    Returns:
        ``draw`` itself when it delivers vertices; else a draw of the same type with both
        counts 0 and the start locations (and BaseVertexLocation) kept.
    """
    if not delivers_nothing(draw):
        return draw
    if isinstance(draw, DrawIndexedInstanced):
        return dataclasses.replace(draw, instance_count=0, index_count_per_instance=0)
    return dataclasses.replace(draw, instance_count=0, vertex_count_per_instance=0)


def draw_of(obj: Any) -> Draw:
    """A draw from an instance (returned as it is) or from the case-file form
    ``{"DrawInstanced": {...}}`` / ``{"DrawIndexedInstanced": {...}}``, whose inner dict uses
    the D3D argument names or the snake_case ones.

    Arguments:
        obj: the draw, in one of the forms above.

    Returns:
        The :class:`DrawInstanced` or :class:`DrawIndexedInstanced`.

    Raises:
        InvalidDescError: ``obj`` has neither form (a one-key dict whose value is a dict), an
            argument name is unknown or a required one is missing, or the constructor refuses
            a value.
    """
    if isinstance(obj, (DrawInstanced, DrawIndexedInstanced)):
        return obj
    if isinstance(obj, dict) and len(obj) == 1:
        ((kind, args),) = obj.items()
        cls: type[DrawInstanced] | type[DrawIndexedInstanced] | None = {
            "DrawInstanced": DrawInstanced, "DrawIndexedInstanced": DrawIndexedInstanced}.get(kind)
        if cls is not None and isinstance(args, dict):
            return _construct(cls, _fields_from(cls, args, kind, cls._ALIASES), kind)
    raise InvalidDescError("draw", None, obj, "expected {\"DrawInstanced\": {...}} or "
                                              "{\"DrawIndexedInstanced\": {...}}")


@dataclass(frozen=True)
class SODeclarationEntry:
    """D3D12_SO_DECLARATION_ENTRY: one entry of a Stream Output declaration, a frozen, hashable
    value.

    Construction checks only each field's type and width; the D3D ranges (Stream,
    StartComponent and OutputSlot 0-3, ComponentCount 1-4 except for gaps) and every rule
    between fields, entries and the shader are checked by
    :func:`gpuia.d3d.so_declaration.resolve_stream_output` (rules section 8).

    Arguments:
        stream (int): Stream, a UINT. Default 0.
        semantic_name (str): SemanticName, a non-empty string, or None (the default) for a gap,
            which skips ComponentCount components and writes nothing (rules 8.4).
        semantic_index (int): SemanticIndex, a UINT. Default 0.
        start_component (int): StartComponent, a BYTE (0..255). Default 0.
        component_count (int): ComponentCount, a BYTE (0..255). Default 4.
        output_slot (int): OutputSlot, a UINT. Default 0.

    Raises:
        InvalidDescError: an empty or non-string SemanticName, or an integer field that is no
            integer or does not fit its width, naming the D3D field.
    """

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
    def of(cls, obj: Any) -> SODeclarationEntry:
        """An entry from an instance (returned as it is), a dict with the D3D or snake_case
        field names, or a tuple or list in the C struct's field order.

        Arguments:
            obj: the entry, in one of the forms above.

        Returns:
            The :class:`SODeclarationEntry`.

        Raises:
            InvalidDescError: an unknown dict key, too many values, another type of ``obj``,
                or a field the constructor refuses.
        """
        if isinstance(obj, cls):
            return obj
        return _construct(cls, _fields_from(cls, obj, "SODeclarationEntry", cls._ALIASES),
                          "SODeclarationEntry")

    @property
    def is_gap(self) -> bool:
        """Whether the entry is a gap (no SemanticName, rules 8.4)."""
        return self.semantic_name is None


@dataclass(frozen=True)
class StreamOutputDesc:
    """D3D12_STREAM_OUTPUT_DESC: the declaration, the per-slot strides and the rasterized
    stream, a frozen, hashable value.

    Construction converts each entry and checks field types; the declaration's rules (ranges,
    strides against the declared sizes, the shader's outputs) are checked by
    :func:`gpuia.d3d.so_declaration.resolve_stream_output`.

    Arguments:
        so_declaration: pSODeclaration: an iterable of entries, each anything
            :meth:`SODeclarationEntry.of` takes; kept as a tuple. Default empty.
        buffer_strides: pBufferStrides: an iterable of UINT strides, one per output slot from
            slot 0; kept as a tuple. Empty (the default) is NULL (rules 8.8).
        rasterized_stream: RasterizedStream: a UINT, or :data:`SO_NO_RASTERIZED_STREAM` (also
            the string ``"SO_NO_RASTERIZED_STREAM"`` or ``"NO_RASTERIZED_STREAM"``, with or
            without ``D3D12_``/``D3D11_``). Default 0.

    Raises:
        InvalidDescError: an entry or stride the conversion refuses, or another string as
            RasterizedStream, naming the field.
        TypeError: ``so_declaration`` or ``buffer_strides`` is not iterable.
    """

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
    same buffer, rules 9.6).

    A frozen value that compares and hashes by the identity of its buffer object and its other
    fields. Construction checks the range against ``buffer`` as :class:`VertexBufferView` does;
    that the buffers are GPU buffers of the right device, that ``offset`` is a multiple of 4
    and that the counter lies inside ``filled_size_buffer`` are checked when the view is bound
    (``Context.so_set_targets``).

    Arguments:
        buffer: the gpuia GPU buffer written (binding refuses anything else; the range check
            here takes any object with a size, as :class:`VertexBufferView` does).
        size_in_bytes (int): SizeInBytes; None (the default) means the rest of the buffer.
        offset (int): the byte offset of BufferLocation within ``buffer``. Default 0.
        filled_size_buffer: the buffer holding the counter; None (the default) keeps gpuia's
            hidden per-buffer counter, D3D11's model (rules 9.5).
        filled_size_offset (int): the counter's byte offset in ``filled_size_buffer``, a
            UINT64. Default 0.

    Raises:
        InvalidDescError: a range outside ``buffer`` or a field that is no unsigned integer of
            its width, naming the field.
        TypeError: ``buffer`` is neither bytes-like nor has an ``nbytes`` or ``size``.
    """

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
                           _check_uint(where, "BufferFilledSizeLocation",
                                       self.filled_size_offset, 64))
