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
from typing import NamedTuple

import numpy as np

from ..d3d.desc import PrimitiveTopology, StripCutValue
from ..d3d.draws import Draw, DrawIndexedInstanced, DrawInstanced, delivers_nothing, draw_of
from ..d3d.ia_desc import IndexBufferView, VertexBufferView
from ..d3d.layout import InputLayout, ResolvedElement
from ..d3d.topology import TopologyInfo, topology_info
from ..errors import InvalidDescError
from ..util.parallel import row_chunks, run_tasks
from .assembly import assemble
from .decode import bits_to_values, decode_elements, decode_words, gather_words

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
    a capture (:class:`gpuia.harness.run_gpu.GPUResult`). Per-invocation arrays that hold the
    same numbers may be one read-only array (``vertex``, ``vertex_id`` and ``fetch_index`` of
    one draw from vertex 0); copy one before changing it.

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

    @property
    def draw_count(self) -> int:
        """The draws up to the last one that delivered a vertex (0 when none did): how many
        per-draw entries Stream Output's results have."""
        return int(self.draw.max()) + 1 if len(self) else 0


@dataclass
class DrawSequence:
    """One draw's delivered vertices within a single instance (identical for every instance)."""

    positions: np.ndarray  # uint32: i or j per delivered vertex
    vertex_id: np.ndarray  # uint32: SV_VertexID
    fetch_index: np.ndarray  # uint32: the per-vertex fetch index, wrapped (4.8)
    segment_starts: np.ndarray  # int64: starts of cut-free runs within the instance's sequence
    segment_lengths: np.ndarray  # int64
    first_fetch: int | None  # fetch_index[k] == first_fetch + k for every k (no wrap), or None


def _shared(values: np.ndarray) -> np.ndarray:
    """``values`` made read-only: one array held as several of a result's fields (positions,
    SV_VertexID and fetch indices are often the same numbers), so none can change another."""
    values.flags.writeable = False
    return values


def _index_values(draw: DrawIndexedInstanced, ib: IndexBufferView | None) -> np.ndarray:
    """The index values of one instance (uint32), 0 for reads outside the view (5.5, 5.6)."""
    count = draw.index_count_per_instance
    if ib is None or ib.buffer is None:
        return np.zeros(count, dtype=U32)
    size = ib.index_size
    assert ib.size_in_bytes is not None  # resolved: the view has a buffer
    # Index position p is read whole inside the view exactly when p < SizeInBytes // size, so
    # the positions read are a prefix of the draw's; alignment of the view is not required.
    inside = max(0, min(count, ib.size_in_bytes // size - draw.start_index_location))
    data = as_bytes(ib.buffer)[ib.offset : ib.offset + ib.size_in_bytes]
    read = np.ndarray((inside,), dtype=f"<u{size}", buffer=data,
                      offset=draw.start_index_location * size if inside else 0)
    if inside == count:
        return read.astype(U32)
    values = np.zeros(count, dtype=U32)
    values[:inside] = read
    return values


def _sequence(draw, topo: TopologyInfo, ib: IndexBufferView | None,
              cut: StripCutValue) -> DrawSequence:
    if not draw.indexed:
        n = draw.vertex_count_per_instance
        positions = _shared(np.arange(n, dtype=U32))
        start = draw.start_vertex_location
        # uint32 arithmetic wraps (4.8); from 0 the fetch indices are the positions themselves.
        fetch = positions + U32(start) if start else positions
        regular = start if start + n - 1 <= 0xFFFFFFFF else None
        return DrawSequence(positions, positions, fetch, np.array([0], dtype=np.int64),
                         np.array([n], dtype=np.int64), regular)
    values = _index_values(draw, ib)
    count = values.shape[0]
    cut_index = cut.index if topo.strip else None
    cuts = (np.flatnonzero(values == U32(cut_index)) if cut_index is not None
            else np.zeros(0, dtype=np.int64))
    if cuts.size:
        keep = np.ones(count, dtype=bool)
        keep[cuts] = False
        positions = np.flatnonzero(keep).astype(U32)
        vid = values[keep]
        # The k-th cut ends a segment after cuts[k] - k delivered vertices; empty segments
        # (consecutive cuts, a cut first or last) are dropped.
        bounds = cuts - np.arange(cuts.shape[0])
        starts = np.concatenate(([0], bounds)).astype(np.int64)
        lengths = np.concatenate((bounds, [count - cuts.shape[0]])) - starts
        starts, lengths = starts[lengths > 0], lengths[lengths > 0]
    else:
        positions = np.arange(count, dtype=U32)
        vid = values
        starts = np.array([0] if count else [], dtype=np.int64)
        lengths = np.array([count] if count else [], dtype=np.int64)
    base = draw.base_vertex_location & 0xFFFFFFFF
    fetch = vid + U32(base) if base else _shared(vid)  # wraps (4.2, 4.8)
    return DrawSequence(positions, vid, fetch, starts, lengths, None)


def _fetch(e: ResolvedElement, view: VertexBufferView | None, indices: np.ndarray) -> np.ndarray:
    """Decode element ``e`` at the given fetch indices (any integers holding uint32 values),
    address by address: every bounds rule applies to every row (4.2, 6.1-6.3)."""
    n = indices.shape[0]
    if view is None or view.buffer is None:
        return np.zeros((n, 4), dtype=U32)  # unbound slot: all zeros, no default fill (6.2)
    fmt = e.format
    assert view.size_in_bytes is not None  # resolved: the view has a buffer
    rel = (np.int64(view.stride_in_bytes) * indices.astype(np.int64) + e.offset) & _WRAP
    inside = rel + fmt.size <= view.size_in_bytes
    data = as_bytes(view.buffer)[view.offset : view.offset + view.size_in_bytes]
    words = gather_words(data, np.where(inside, rel, 0), fmt.words)
    if not inside.all():
        words[~inside] = 0  # out of bounds: the format's components read 0, then default fill
    return decode_words(fmt, words)


def _out_of_bounds_row(e: ResolvedElement) -> np.ndarray:
    """What an out-of-bounds fetch of ``e`` delivers: its components decoded from zero bytes,
    which read 0, and the default fill (6.1)."""
    return decode_elements(e.format, np.zeros((1, e.format.size), dtype=np.uint8),
                           np.empty((1, 4), dtype=U32))[0]


def _regular_tasks(e: ResolvedElement, view: VertexBufferView, first: int, n: int,
                   out: np.ndarray) -> list | None:
    """Tasks decoding ``e`` for fetch indices ``first .. first + n - 1`` into ``out`` straight
    from a strided view of the buffer, or None when an address wraps (then the rows take the
    address-by-address path). Addresses grow with the index, so the rows in bounds are a
    prefix; the rows after it get the out-of-bounds value (6.1, 6.3)."""
    stride, size = view.stride_in_bytes, e.format.size
    assert view.size_in_bytes is not None  # resolved: the view has a buffer
    first_address = stride * first + e.offset
    if stride * (first + n - 1) + e.offset > 0xFFFFFFFF:
        return None  # 32-bit wrapping (4.2): an address may come back into the view
    room = view.size_in_bytes - size - first_address  # how far the last row may start
    if room < 0:
        inside = 0
    else:
        inside = n if stride == 0 else min(n, room // stride + 1)
    if inside < n:
        out[inside:] = _out_of_bounds_row(e)
    if not inside:
        return []
    data = as_bytes(view.buffer)[view.offset : view.offset + view.size_in_bytes]
    rows = np.ndarray((inside, size), dtype=np.uint8, buffer=data, offset=first_address,
                      strides=(stride, 1))
    return [lambda a=a, b=b: decode_elements(e.format, rows[a:b], out[a:b])
            for a, b in row_chunks(inside)]


def _gather_tasks(elements: list[ResolvedElement], view: VertexBufferView, fetch: np.ndarray,
                  outs: list[np.ndarray]) -> list | None:
    """Tasks decoding the per-vertex elements of one slot at arbitrary fetch indices: each
    chunk gathers whole ``stride``-byte vertex rows with one ``np.take`` and decodes every
    element from the gathered rows. None unless every fetch of every element lies inside the
    view without wrapping, and the elements fit in one stride (then each element takes the
    address-by-address path)."""
    stride = view.stride_in_bytes
    assert view.size_in_bytes is not None  # resolved: the view has a buffer
    lo = min(e.offset for e in elements)
    hi = max(e.offset + e.format.size for e in elements)
    if stride == 0 or hi - lo > stride or not fetch.shape[0]:
        return None
    last = int(fetch.max())
    if stride * last + hi > view.size_in_bytes:
        return None  # some fetch is out of bounds (6.3) or wraps (4.2)
    data = as_bytes(view.buffer)[view.offset : view.offset + view.size_in_bytes]
    # The row of fetch index f is the ``stride`` bytes from stride * f + origin: it holds every
    # element's bytes. Rows past ``whole`` would run past the view's end, where the elements
    # still lie inside: those few indices are copied byte by byte into zero-padded rows.
    origin = max(0, hi - stride)
    whole = min(last + 1, (view.size_in_bytes - origin) // stride)
    if not whole:
        return None  # a view shorter than one stride: nothing to gather whole rows from
    table = np.ndarray((whole, stride), dtype=np.uint8, buffer=data, offset=origin)
    tail = {}
    for f in range(whole, last + 1):
        row = np.zeros(stride, dtype=np.uint8)
        part = data[stride * f + origin : stride * f + origin + stride]
        row[: part.shape[0]] = part
        tail[f] = row

    def task(a: int, b: int) -> None:
        idx = fetch[a:b].astype(np.intp)
        rows = np.take(table, np.minimum(idx, whole - 1) if tail else idx, axis=0)
        for f, row in tail.items():
            rows[idx == f] = row
        for e, out in zip(elements, outs, strict=True):
            k = e.offset - origin
            decode_elements(e.format, rows[:, k : k + e.format.size], out[a:b])

    return [lambda a=a, b=b: task(a, b) for a, b in row_chunks(fetch.shape[0])]


class PlannedDraw(NamedTuple):
    """A draw that delivers vertices: its place in the list of draws and in the result."""

    position: int  # the draw's position in the list of draws
    draw: Draw
    seq: DrawSequence
    first_row: int  # its first invocation's row in the result


def resolve_views(vertex_buffers: Mapping[int, VertexBufferView | None] | Sequence,
           ) -> dict[int, VertexBufferView | None]:
    """Slot -> view, from a mapping of slots or a sequence indexed by slot."""
    if isinstance(vertex_buffers, Mapping):
        return {int(s): VertexBufferView.of(v) for s, v in vertex_buffers.items()}
    return {s: VertexBufferView.of(v) for s, v in enumerate(vertex_buffers)}


def resolve_topology(topology: PrimitiveTopology | str | int) -> TopologyInfo:
    """The topology's row, refused as IASetPrimitiveTopology would refuse it."""
    try:
        return topology_info(topology)
    except ValueError as e:
        raise InvalidDescError("IASetPrimitiveTopology", "PrimitiveTopology", topology,
                               str(e)) from None


def _plan(draws: list[Draw], topo: TopologyInfo, index_buffer: IndexBufferView | None,
          cut: StripCutValue) -> tuple[list[PlannedDraw], int]:
    """The draws that deliver vertices, each with its sequence and first row, and the rows
    of all of them."""
    plan = []
    total = 0
    for position, draw in enumerate(draws):
        if delivers_nothing(draw):
            continue  # the other count may be 2^32 - 1: not materialized
        seq = _sequence(draw, topo, index_buffer, cut)
        plan.append(PlannedDraw(position, draw, seq, total))
        total += draw.instance_count * seq.positions.shape[0]
    return plan, total


def _id_arrays(plan: list[PlannedDraw], total: int) -> dict[str, np.ndarray]:
    """The per-invocation ``draw``, ``instance``, ``vertex``, ``vertex_id`` and ``fetch``
    arrays. One draw of one instance (the common case) hands its sequence's arrays over as they
    are; otherwise each draw's rows are written into arrays of all rows."""
    if len(plan) == 1 and plan[0].draw.instance_count == 1:
        position, _, seq, _ = plan[0]
        return {"draw": np.full(total, position, dtype=U32) if position
                else np.zeros(total, U32),
                "instance": np.zeros(total, dtype=U32), "vertex": seq.positions,
                "vertex_id": seq.vertex_id, "fetch": seq.fetch_index}
    ids = {name: np.empty(total, dtype=U32)
           for name in ("draw", "instance", "vertex", "vertex_id", "fetch")}
    for position, draw, seq, base in plan:
        n_inst = draw.instance_count
        n_pos = seq.positions.shape[0]
        block = slice(base, base + n_inst * n_pos)
        ids["draw"][block] = position
        ids["instance"][block].reshape(n_inst, n_pos)[:] = np.arange(n_inst, dtype=U32)[:, None]
        for name, per_vertex in (("vertex", seq.positions), ("vertex_id", seq.vertex_id),
                                 ("fetch", seq.fetch_index)):
            ids[name][block].reshape(n_inst, n_pos)[:] = per_vertex
    return ids


def fetch_tasks(layout: InputLayout, views: Mapping[int, VertexBufferView | None],
                planned: PlannedDraw, bits: dict[str, np.ndarray], after: list,
                first_instance: int = 0, instance_count: int | None = None) -> list:
    """Fill ``bits`` with one draw's elements: per-instance elements now, per-vertex ones as
    the returned tasks. Per-vertex data is decoded for instance 0 only; the copies to the other
    instances are appended to ``after``, to run once the tasks are done. ``first_instance``
    and ``instance_count`` (default: the draw's) select the instances whose rows ``bits``
    holds from ``planned.first_row`` (a window of the draw, :mod:`gpuia.reference.ia_window`)."""
    _, draw, seq, base = planned
    n_inst = draw.instance_count if instance_count is None else instance_count
    n_pos = seq.positions.shape[0]
    block = slice(base, base + n_inst * n_pos)
    tasks: list = []
    per_slot: dict[int, list[ResolvedElement]] = {}
    for el in layout.elements:
        view = views.get(el.slot)
        out = bits[el.key][block].reshape(n_inst, n_pos, 4)
        if el.per_instance:
            instances = first_instance + np.arange(n_inst, dtype=np.int64)
            rate = el.step_rate
            step = instances // rate if rate else np.zeros_like(instances)
            idx = (draw.start_instance_location + step) & _WRAP
            out[:] = _fetch(el, view, idx)[:, None, :]
            continue
        if n_inst > 1:
            after.append(lambda out=out: out.__setitem__(slice(1, None), out[0]))
        if view is None or view.buffer is None:
            out[0] = 0  # unbound slot: all zeros, no default fill (6.2)
        elif seq.first_fetch is not None and (
                regular := _regular_tasks(el, view, seq.first_fetch, n_pos, out[0])) is not None:
            tasks += regular
        else:
            per_slot.setdefault(el.slot, []).append(el)
    for slot, elements in per_slot.items():
        slot_view = views[slot]
        assert slot_view is not None
        outs = [bits[el.key][block][:n_pos] for el in elements]
        gathered = _gather_tasks(elements, slot_view, seq.fetch_index, outs)
        if gathered is not None:
            tasks += gathered
            continue
        for el, out in zip(elements, outs, strict=True):
            tasks.append(lambda el=el, view=slot_view, out=out, fetch=seq.fetch_index:
                         out.__setitem__(slice(None), _fetch(el, view, fetch)))
    return tasks


def _segments(plan: list[PlannedDraw]) -> tuple[np.ndarray, np.ndarray]:
    """The starts (rows) and lengths of every cut-free run of every draw, in order. Every
    instance restarts the topology (4.9): one set of segments per instance."""
    starts, lengths = [], []
    for _, draw, seq, base in plan:
        n_inst = draw.instance_count
        offs = base + np.arange(n_inst, dtype=np.int64) * seq.positions.shape[0]
        starts.append((offs[:, None] + seq.segment_starts[None, :]).reshape(-1))
        lengths.append(np.tile(seq.segment_lengths, n_inst))

    def cat(chunks):
        if len(chunks) == 1:
            return chunks[0]
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64)

    return cat(starts), cat(lengths)


def _primitive_draws(plan: list[PlannedDraw], draw: np.ndarray, prims: np.ndarray) -> np.ndarray:
    """The draw of each primitive: the draw of its first vertex."""
    if len(plan) == 1:
        return np.full(prims.shape[0], plan[0].position, dtype=U32)
    return draw[prims[:, 0]] if prims.shape[0] else np.zeros(0, dtype=U32)


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
    views = resolve_views(vertex_buffers)
    topo = resolve_topology(topology)
    cut = StripCutValue.of(strip_cut_value)
    index_buffer = IndexBufferView.of(index_buffer)
    if isinstance(draws, (dict, DrawInstanced, DrawIndexedInstanced)):
        draws = [draws]
    plan, total = _plan([draw_of(d) for d in draws], topo, index_buffer, cut)
    ids = _id_arrays(plan, total)
    bits = {el.key: np.empty((total, 4), dtype=U32) for el in layout.elements}
    tasks: list = []
    after: list = []  # run once the tasks are done: copies of instance 0 to the others
    for planned in plan:
        tasks += fetch_tasks(layout, views, planned, bits, after)
    run_tasks(tasks, total)
    for copy in after:
        copy()
    prims, adj = assemble(topo, *_segments(plan))
    draw_arr = ids["draw"]
    inputs = {e.key: ElementData(e.format.shader_type, bits[e.key]) for e in layout.elements}
    return IAResult(
        topology=topo,
        draw=draw_arr,
        instance=ids["instance"],
        vertex=ids["vertex"],
        vertex_id=ids["vertex_id"],
        fetch_index=ids["fetch"],
        inputs=inputs,
        primitives=prims,
        adjacency=adj,
        primitive_draw=_primitive_draws(plan, draw_arr, prims),
        statistics={"IAVertices": int(draw_arr.shape[0]), "IAPrimitives": int(prims.shape[0])},
    )
