"""The CPU reference Input Assembler: what D3D12's IA delivers to the vertex shader, exactly.

:func:`run_ia` executes ``DrawInstanced`` / ``DrawIndexedInstanced`` calls over a resolved
:class:`~gpuia.d3d.layout.InputLayout` and bound views, following the rules of ``docs/rules.md``
(the numbers below are its rules):

* vertex order: draw by draw, instance-major, then vertex (or index position) order;
* non-indexed per-vertex fetch index ``StartVertexLocation + i``; indexed
  ``BaseVertexLocation + index`` (4.1, 4.2); per-instance
  ``StartInstanceLocation + InstanceID // StepRate``, or ``StartInstanceLocation`` for step rate 0
  (4.3); all 32-bit wrapping (4.8);
* byte address within the view ``Stride * fetch_index + AlignedByteOffset`` in 32-bit wrapping
  arithmetic (4.2); a fetch is in bounds only if the whole element lies inside the view's
  SizeInBytes (6.3): out of bounds gives 0 for the format's components plus the (0, 0, 0, 1)
  default fill (6.1); an unbound slot gives 0 in all four components (6.2);
* index reads outside the index view read 0 (5.6); a NULL index view reads 0 everywhere (5.5);
  strip-cut indices (D3D12 pipeline state, strip topologies only, literal compare, 5.2/5.3) deliver
  no vertex and restart the strip;
* SV_VertexID is the vertex's position ``i`` in a non-indexed draw and the raw index value in an
  indexed one; SV_InstanceID counts from 0. Neither includes a start location (4.5, 4.6).

Cost is proportional to the draw (vertex data is decoded once per distinct position and once per
instance, then broadcast), never to the size of the bound buffers, which are only viewed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..d3d.desc import (
    DrawIndexedInstanced,
    DrawInstanced,
    IndexBufferView,
    PrimitiveTopology,
    StripCutValue,
    VertexBufferView,
    delivers_nothing,
    draw_of,
)
from ..d3d.layout import InputLayout, ResolvedElement
from ..d3d.topology import TopologyInfo, topology_info
from ..errors import InvalidDescError
from .assembly import assemble
from .decode import bits_to_values, decode_words, gather_words

__all__ = ["IAResult", "ElementData", "run_ia", "as_bytes"]

U32 = np.uint32
_WRAP = np.int64(0xFFFFFFFF)


def as_bytes(buffer: bytes | bytearray | memoryview | np.ndarray) -> np.ndarray:
    """A flat uint8 view of a bytes-like object, without a copy (writable only when the
    object is).

    Arguments:
        buffer: bytes, bytearray, memoryview, a C-contiguous numpy array of any dtype, or
            another object with the buffer protocol.

    Returns:
        A one-dimensional ``uint8`` array over the same memory.

    Raises:
        ValueError: ``buffer`` is a numpy array that is not C-contiguous.
        TypeError: ``buffer`` has no buffer protocol (a gpuia GPU buffer included).
    """
    if isinstance(buffer, np.ndarray):
        if not buffer.flags.c_contiguous:
            raise ValueError("vertex data must be a C-contiguous array")
        return buffer.reshape(-1).view(np.uint8)
    return np.frombuffer(memoryview(buffer).cast("B"), dtype=np.uint8)


@dataclass
class ElementData:
    """What one input element delivered, per invocation.

    Arguments:
        type (str): the element's shader type, ``"float"``, ``"uint"`` or ``"sint"`` (its
            format's, rules 2.12).
        bits (numpy.ndarray): the four components' 32-bit patterns per invocation, shape
            ``(n, 4)``, uint32, default fill included (rules 2.11, 6.1, 6.2).
    """

    type: str
    bits: np.ndarray

    @property
    def values(self) -> np.ndarray:
        """The same data viewed as float32, uint32 or int32 by ``type`` (no copy)."""
        return bits_to_values(self.bits, self.type)


@dataclass
class IAResult:
    """Everything the Input Assembler delivered for a sequence of draws.

    One row per invocation (vertex shader input), in IA order: draw by draw, instance by
    instance, then vertex or index position; a strip-cut index delivers no row (rules 5.4).
    Then one row per complete primitive, in D3D's order (rules 4.9, 9.3, 9.4). ``len()`` is the
    number of invocations. :func:`run_ia` makes it; the GPU harness fills the same fields from
    a capture (:class:`gpuia.harness.run_gpu.GPUResult`).

    Arguments:
        topology (TopologyInfo): the topology the draws ran with.
        draw (numpy.ndarray): uint32 per invocation: the draw's position in the list of draws.
        instance (numpy.ndarray): uint32 per invocation: SV_InstanceID (rules 4.6).
        vertex (numpy.ndarray): uint32 per invocation: position ``i`` of a non-indexed draw,
            index position ``j`` of an indexed one (counted from StartIndexLocation, cut
            positions included in the count).
        vertex_id (numpy.ndarray): uint32 per invocation: SV_VertexID (rules 4.5).
        fetch_index (numpy.ndarray): uint32 per invocation: the per-vertex element index
            fetched, ``StartVertexLocation + i`` or ``BaseVertexLocation + index``, wrapped to
            32 bits (rules 4.1, 4.2, 4.8).
        inputs (dict): element key (``POSITION0``) -> :class:`ElementData`, one per layout
            element, in layout order.
        primitives (numpy.ndarray): int64 ``(primitives, vertices per primitive)``: each
            complete primitive's invocations (row numbers), in D3D's vertex order, adjacency
            vertices excluded.
        adjacency (numpy.ndarray): for adjacency topologies, int64 ``(primitives, 2 or 3)``:
            each primitive's adjacency invocations, one per edge in the geometry shader's input
            order; None for the others.
        primitive_draw (numpy.ndarray): uint32 per primitive: the draw of its first vertex.
        statistics (dict): ``IAVertices`` (the invocations) and ``IAPrimitives`` (the complete
            primitives), rules 4.10.
    """

    topology: TopologyInfo
    draw: np.ndarray
    instance: np.ndarray
    vertex: np.ndarray
    vertex_id: np.ndarray
    fetch_index: np.ndarray
    inputs: dict[str, ElementData]
    primitives: np.ndarray
    adjacency: np.ndarray | None
    primitive_draw: np.ndarray
    statistics: dict[str, int] = field(default_factory=dict)

    @property
    def instance_id(self) -> np.ndarray:
        """SV_InstanceID per invocation: the same array as ``instance``."""
        return self.instance

    def __len__(self) -> int:
        return int(self.draw.shape[0])


@dataclass
class _Sequence:
    """One draw's delivered vertices within a single instance (identical for every instance)."""

    positions: np.ndarray  # i or j per delivered vertex
    vertex_id: np.ndarray  # SV_VertexID
    fetch_index: np.ndarray  # per-vertex fetch index (uint32 semantics, stored as int64)
    segment_starts: np.ndarray  # starts of cut-free runs within the instance's sequence
    segment_lengths: np.ndarray


def _index_values(draw: DrawIndexedInstanced, ib: IndexBufferView | None) -> np.ndarray:
    """The index values of one instance (int64), 0 for reads outside the view (5.5, 5.6)."""
    count = draw.index_count_per_instance
    if ib is None or ib.buffer is None:
        return np.zeros(count, dtype=np.int64)
    size = ib.index_size
    assert ib.size_in_bytes is not None  # resolved: the view has a buffer
    pos = draw.start_index_location + np.arange(count, dtype=np.int64)
    rel = pos * size
    inside = rel + size <= ib.size_in_bytes
    data = as_bytes(ib.buffer)[ib.offset : ib.offset + ib.size_in_bytes]
    # Alignment of the view is not required here: gather by bytes when needed.
    words = gather_words(data, np.where(inside, rel, 0), 1)[:, 0]
    values = words & U32(0xFFFF) if size == 2 else words
    return np.where(inside, values.astype(np.int64), 0)


def _sequence(draw, topo: TopologyInfo, ib: IndexBufferView | None,
              cut: StripCutValue) -> _Sequence:
    if not draw.indexed:
        n = draw.vertex_count_per_instance
        positions = np.arange(n, dtype=np.int64)
        fetch = (draw.start_vertex_location + positions) & _WRAP
        return _Sequence(positions, positions, fetch, np.array([0]), np.array([n]))
    values = _index_values(draw, ib)
    cut_index = cut.index if topo.strip else None
    if cut_index is None:
        is_cut = np.zeros(values.shape, dtype=bool)
    else:
        is_cut = values == cut_index
    positions = np.flatnonzero(~is_cut).astype(np.int64)
    vid = values[positions]
    fetch = (np.int64(draw.base_vertex_location) + vid) & _WRAP
    # Segments between cuts, in the numbering of delivered vertices.
    cuts_before = np.cumsum(is_cut)[positions] if positions.size else positions
    if positions.size:
        new = np.ones(positions.shape[0], dtype=bool)
        new[1:] = cuts_before[1:] != cuts_before[:-1]
        starts = np.flatnonzero(new)
        lengths = np.diff(np.append(starts, positions.shape[0]))
    else:
        starts = lengths = np.zeros(0, dtype=np.int64)
    return _Sequence(positions, vid, fetch, starts, lengths)


def _fetch(e: ResolvedElement, view: VertexBufferView | None, indices: np.ndarray) -> np.ndarray:
    """Decode element ``e`` at the given fetch indices (int64 holding uint32 values)."""
    n = indices.shape[0]
    if view is None or view.buffer is None:
        return np.zeros((n, 4), dtype=U32)  # unbound slot: all zeros, no default fill (6.2)
    fmt = e.format
    assert view.size_in_bytes is not None  # resolved: the view has a buffer
    rel = (np.int64(view.stride_in_bytes) * indices + e.offset) & _WRAP
    inside = rel + fmt.size <= view.size_in_bytes
    data = as_bytes(view.buffer)[view.offset : view.offset + view.size_in_bytes]
    words = gather_words(data, np.where(inside, rel, 0), fmt.words)
    if not inside.all():
        words[~inside] = 0  # out of bounds: the format's components read 0, then default fill
    return decode_words(fmt, words)


def run_ia(layout: InputLayout, vertex_buffers: Mapping[int, VertexBufferView | None] | Sequence,
           draws: DrawInstanced | DrawIndexedInstanced | dict
           | Sequence[DrawInstanced | DrawIndexedInstanced | dict], *,
           topology: PrimitiveTopology | str | int = "TRIANGLELIST",
           index_buffer: IndexBufferView | None = None,
           strip_cut_value: StripCutValue | str | int | None = StripCutValue.DISABLED,
           ) -> IAResult:
    """Run draws through the reference Input Assembler: exactly what D3D12 delivers (see the
    module docstring for the rules it follows).

    Host data only: a buffer that is read must be bytes-like (a GPU buffer is refused).
    Nothing is limited here: the cost is proportional to the vertices the draws deliver (a draw
    with a count of 0 costs nothing, whatever its other count), so callers that take counts
    from users bound them first (:func:`gpuia.harness.reference_run.check_size`). Strides and
    bind offsets are not checked against the layout (rules 3.2, 3.3); views of slots the
    layout does not use are validated but never read.

    Arguments:
        layout (InputLayout): the resolved input layout, or anything :class:`InputLayout`
            takes as its elements.
        vertex_buffers: slot -> view (or None: unbound), or a sequence indexed by slot; each
            view is anything :meth:`VertexBufferView.of` takes. Slots the layout uses but that
            are missing are unbound (rules 6.2).
        draws: one draw or a list of draws (:class:`DrawInstanced`,
            :class:`DrawIndexedInstanced` or their case-file dicts), run in order.
        topology: a D3D_PRIMITIVE_TOPOLOGY, in any form :meth:`PrimitiveTopology.of` takes.
            Default TRIANGLELIST.
        index_buffer: for indexed draws, anything :meth:`IndexBufferView.of` takes; None (the
            default) and a view without a buffer are the NULL view, every index reads 0
            (rules 5.5).
        strip_cut_value: the pipeline's D3D12_INDEX_BUFFER_STRIP_CUT_VALUE, in any form
            :meth:`StripCutValue.of` takes. Default DISABLED.

    Returns:
        The :class:`IAResult` of all draws.

    Raises:
        InvalidDescError: the layout, a view or a draw is invalid (as their constructors say),
            or the topology is UNDEFINED or unknown (naming IASetPrimitiveTopology).
        ValueError: an unknown strip cut value, or vertex or index data that is read from a
            numpy array that is not C-contiguous.
        TypeError: a buffer that is read and is not bytes-like.
    """
    if not isinstance(layout, InputLayout):
        layout = InputLayout(layout)
    if isinstance(vertex_buffers, Mapping):
        views = {int(s): VertexBufferView.of(v) for s, v in vertex_buffers.items()}
    else:
        views = {s: VertexBufferView.of(v) for s, v in enumerate(vertex_buffers)}
    try:
        topo = topology_info(topology)
    except ValueError as e:
        raise InvalidDescError("IASetPrimitiveTopology", "PrimitiveTopology", topology,
                               str(e)) from None
    cut = StripCutValue.of(strip_cut_value)
    index_buffer = IndexBufferView.of(index_buffer)
    if isinstance(draws, (dict, DrawInstanced, DrawIndexedInstanced)):
        draws = [draws]
    draw_list = [draw_of(d) for d in draws]

    parts: dict[str, list[np.ndarray]] = {
        name: [] for name in ("draw", "instance", "vertex", "vertex_id", "fetch")}
    element_parts: dict[str, list[np.ndarray]] = {el.key: [] for el in layout.elements}
    seg_starts, seg_lengths, seg_draw = [], [], []
    base = 0
    for d_index, draw in enumerate(draw_list):
        if delivers_nothing(draw):
            continue  # the other count may be 2^32 - 1: not materialized
        seq = _sequence(draw, topo, index_buffer, cut)
        n_inst = draw.instance_count
        n_pos = seq.positions.shape[0]
        instances = np.arange(n_inst, dtype=np.int64)
        parts["draw"].append(np.full(n_inst * n_pos, d_index, dtype=U32))
        parts["instance"].append(np.repeat(instances, n_pos).astype(U32))
        parts["vertex"].append(np.tile(seq.positions, n_inst).astype(U32))
        parts["vertex_id"].append(np.tile(seq.vertex_id, n_inst).astype(U32))
        parts["fetch"].append(np.tile(seq.fetch_index, n_inst).astype(U32))
        for el in layout.elements:
            view = views.get(el.slot)
            if el.per_instance:
                rate = el.step_rate
                step = instances // rate if rate else np.zeros_like(instances)
                idx = (draw.start_instance_location + step) & _WRAP
                bits = np.repeat(_fetch(el, view, idx), n_pos, axis=0)
            else:
                bits = np.tile(_fetch(el, view, seq.fetch_index), (n_inst, 1))
            element_parts[el.key].append(bits)
        # Every instance restarts the topology (4.9): one set of segments per instance.
        offs = base + instances * n_pos
        seg_starts.append((offs[:, None] + seq.segment_starts[None, :]).reshape(-1))
        seg_lengths.append(np.tile(seq.segment_lengths, n_inst))
        seg_draw.append(np.full(n_inst * seq.segment_starts.shape[0], d_index, dtype=U32))
        base += n_inst * n_pos

    def cat(chunks, dtype, shape=(0,)):
        return np.concatenate(chunks) if chunks else np.zeros(shape, dtype=dtype)

    starts = cat(seg_starts, np.int64)
    lengths = cat(seg_lengths, np.int64)
    prims, adj = assemble(topo, starts, lengths)
    # The draw of each primitive: the draw of its first vertex.
    draw_arr = cat(parts["draw"], U32)
    prim_draw = draw_arr[prims[:, 0]] if prims.shape[0] else np.zeros(0, dtype=U32)
    inputs = {e.key: ElementData(e.format.shader_type, cat(element_parts[e.key], U32, (0, 4)))
              for e in layout.elements}
    return IAResult(
        topology=topo,
        draw=draw_arr,
        instance=cat(parts["instance"], U32),
        vertex=cat(parts["vertex"], U32),
        vertex_id=cat(parts["vertex_id"], U32),
        fetch_index=cat(parts["fetch"], U32),
        inputs=inputs,
        primitives=prims,
        adjacency=adj,
        primitive_draw=prim_draw,
        statistics={"IAVertices": int(draw_arr.shape[0]), "IAPrimitives": int(prims.shape[0])},
    )
