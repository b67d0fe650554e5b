"""The Input Assembler's descriptors: D3D12_INPUT_ELEMENT_DESC and the vertex and index buffer
views, values as :mod:`gpuia.d3d.desc` describes them (frozen, hashable, an ``of()`` that takes
what a user writes, each field checked on its own). The rules between elements are
CreateInputLayout's (:class:`~gpuia.d3d.layout.InputLayout`); a view checks that it lies inside
its buffer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InvalidDescError
from .desc import (
    IdentityBufferMixin,
    InputClassification,
    check_uint,
    check_view_range,
    construct,
    fields_from,
)
from .formats import UnknownFormatError, canonical_format_name

__all__ = [
    "APPEND_ALIGNED_ELEMENT",
    "InputElementDesc",
    "VertexBufferView",
    "IndexBufferView",
]

APPEND_ALIGNED_ELEMENT = 0xFFFFFFFF
"""D3D12_APPEND_ALIGNED_ELEMENT: place the element right after the previous one of its slot,
aligned to its own alignment (rules 3.4)."""

MAX_VERTEX_STRIDE = 2048
"""The largest vertex buffer stride (D3D11.3 8.19.4, rules 3.3; D3D12's IASetVertexBuffers
does not validate it, its behaviour past it is undefined)."""


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
        _set(self, "aligned_byte_offset", check_uint(where, "AlignedByteOffset", offset))
        _set(self, "semantic_index", check_uint(where, "SemanticIndex", self.semantic_index))
        _set(self, "input_slot", check_uint(where, "InputSlot", self.input_slot))
        _set(self, "instance_data_step_rate",
             check_uint(where, "InstanceDataStepRate", self.instance_data_step_rate))
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
        return construct(cls, fields_from(cls, obj, "InputElementDesc", cls._ALIASES),
                         "InputElementDesc", cls._ALIASES)

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


@dataclass(frozen=True, eq=False)
class VertexBufferView(IdentityBufferMixin):
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
                           check_uint(where, "StrideInBytes", self.stride_in_bytes))
        if self.stride_in_bytes > MAX_VERTEX_STRIDE:
            raise InvalidDescError(where, "StrideInBytes", self.stride_in_bytes,
                                   f"vertex buffer strides are 0..{MAX_VERTEX_STRIDE} bytes "
                                   f"(rules 3.3)")
        object.__setattr__(self, "size_in_bytes",
                           check_view_range(where, self.buffer, self.offset, self.size_in_bytes))

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
        return construct(cls, fields_from(cls, obj, "VertexBufferView", {
            "BufferLocation": "buffer", "data": "buffer", "StrideInBytes": "stride_in_bytes",
            "stride": "stride_in_bytes", "SizeInBytes": "size_in_bytes", "size": "size_in_bytes",
            "offset": "offset"}), "VertexBufferView")

    @property
    def is_null(self) -> bool:
        """Whether this is the zeroed view (no buffer): an unbound slot (rules 6.2)."""
        return self.buffer is None


@dataclass(frozen=True, eq=False)
class IndexBufferView(IdentityBufferMixin):
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
                           check_view_range(where, self.buffer, self.offset, self.size_in_bytes))
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
        return construct(cls, fields_from(cls, obj, "IndexBufferView", {
            "BufferLocation": "buffer", "data": "buffer", "Format": "format",
            "format": "format", "SizeInBytes": "size_in_bytes", "size": "size_in_bytes",
            "offset": "offset"}), "IndexBufferView")
