"""The Stream Output descriptors: D3D12_SO_DECLARATION_ENTRY, D3D12_STREAM_OUTPUT_DESC and
D3D12_STREAM_OUTPUT_BUFFER_VIEW, values as :mod:`gpuia.d3d.desc` describes them. Construction
checks each field's type and width; the declaration's rules are
:func:`gpuia.d3d.so_declaration.resolve_stream_output`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InvalidDescError
from .desc import (
    IdentityBufferMixin,
    check_uint,
    check_view_range,
    construct,
    d3d_name,
    fields_from,
)

__all__ = [
    "SO_NO_RASTERIZED_STREAM",
    "SODeclarationEntry",
    "StreamOutputDesc",
    "StreamOutputBufferView",
]

SO_NO_RASTERIZED_STREAM = 0xFFFFFFFF
"""D3D12_SO_NO_RASTERIZED_STREAM: the RasterizedStream of a Stream Output declaration that
rasterizes no stream (rules 8.10)."""


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
            object.__setattr__(self, name, check_uint(where, d3d_name(self._ALIASES, name),
                                                      getattr(self, name)))
        for name in ("start_component", "component_count"):
            object.__setattr__(self, name, check_uint(where, d3d_name(self._ALIASES, name),
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
        return construct(cls, fields_from(cls, obj, "SODeclarationEntry", cls._ALIASES),
                         "SODeclarationEntry", cls._ALIASES)

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
            check_uint("StreamOutputDesc", "pBufferStrides", s) for s in self.buffer_strides))
        rs = self.rasterized_stream
        if isinstance(rs, str):
            key = rs.strip().upper().removeprefix("D3D12_").removeprefix("D3D11_")
            if key != "SO_NO_RASTERIZED_STREAM" and key != "NO_RASTERIZED_STREAM":
                raise InvalidDescError("StreamOutputDesc", "RasterizedStream", rs,
                                       "must be 0-3 or NO_RASTERIZED_STREAM")
            rs = SO_NO_RASTERIZED_STREAM
        object.__setattr__(self, "rasterized_stream",
                           check_uint("StreamOutputDesc", "RasterizedStream", rs))


@dataclass(frozen=True, eq=False)
class StreamOutputBufferView(IdentityBufferMixin):
    """D3D12_STREAM_OUTPUT_BUFFER_VIEW: writes go to ``buffer`` starting at ``offset``
    (BufferLocation) within ``size_in_bytes``; the 32-bit BufferFilledSize counter lives in
    ``filled_size_buffer`` at ``filled_size_offset`` (BufferFilledSizeLocation; it may be the
    same buffer, rules 9.6).

    A frozen value that compares and hashes by the identity of its buffer object and its other
    fields. Construction checks the range against ``buffer`` as
    :class:`~gpuia.d3d.ia_desc.VertexBufferView` does; that the buffers are GPU buffers of the
    right device, that ``offset`` is a multiple of 4 and that the counter lies inside
    ``filled_size_buffer`` are checked when the view is bound (``Context.so_set_targets``).

    Arguments:
        buffer: the gpuia GPU buffer written (binding refuses anything else; the range check
            here takes any object with a size, as
            :class:`~gpuia.d3d.ia_desc.VertexBufferView` does).
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
                           check_view_range(where, self.buffer, self.offset, self.size_in_bytes))
        object.__setattr__(self, "filled_size_offset",
                           check_uint(where, "BufferFilledSizeLocation",
                                      self.filled_size_offset, 64))
