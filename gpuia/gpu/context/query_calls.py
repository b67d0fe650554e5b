"""The query and predication calls of :class:`gpuia.gpu.Context` (a base class of it):
``create_query_heap``, ``begin_query``, ``end_query``, ``resolve_query_data`` and
``set_predication``, and what each draw asks of them (:class:`QueryState`). What the queries
count and what is refused: :mod:`gpuia.gpu.context.queries`.

Ordering, as gpuia implements it: a query's range is the draws the context issues between
``begin_query`` and ``end_query`` (the Stream Output queries read the statistics at both ends,
submitting the pending draws and waiting for the GPU each time; the pipeline statistics are
counted on the host as each draw is issued). ``set_predication`` reads its 64-bit value once,
when it is called, after submitting this context's pending draws (D3D12's SetPredication
likewise captures the value when it executes: a later write to the buffer changes nothing
until the next ``set_predication``); what another context has not submitted yet is not in it.
While the predicate says so, ``draw``, ``draw_instanced``, ``draw_indexed_instanced`` and
``draw_auto`` are still validated and planned (their refusals are raised, ``draw_count``
counts them, the Plan is returned) but issue nothing: no vertex shader runs, nothing streams
out, nothing renders, no query counts them; ``clear_render_target_view`` and
``clear_depth_stencil_view`` are checked and clear nothing (D3D12 predicates its clears too).
Query calls, state calls, ``flush`` and the reads are not predicated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...d3d.draws import DrawInstanced
from ...errors import InvalidDescError
from ..buffers import checked_buffer
from ..ia.plan import host_index_values
from .gpu_counts import NO_FEATURE, NOTE, PassCounts
from .guard import exclusive, guarded
from .queries import (
    QUERY_TYPES,
    PipelineCounts,
    PredicationOp,
    QueryHeap,
    QueryHeapType,
    QueryType,
    draw_counts,
    pack_query_data,
)

if TYPE_CHECKING:
    from ..buffers import Buffer
    from ..device import Device
    from ..vertex.plan import Plan
    from .recorder import Recorder

__all__ = ["QueryCalls", "QueryState"]

_U64 = 1 << 64
_IA_COUNTERS = ("IAVertices", "IAPrimitives", "VSInvocations", "GSInvocations")


class QueryState:
    """A context's open queries and predicate. ``watching``: whether a draw must ask
    (:meth:`skips`, :meth:`count`): a predicate that skips, or a PIPELINE_STATISTICS query
    open."""

    def __init__(self):
        self.pipeline: dict[int, PipelineCounts] = {}  # id(slot) -> counts of an open query
        self.skipping = False
        self.watching = False

    def update(self) -> None:
        self.watching = self.skipping or bool(self.pipeline)

    def count(self, draw, state, ib) -> None:
        """Add one issued draw to every open PIPELINE_STATISTICS query."""
        topo, inst = state.topology, draw.instance_count
        gs = state.pso.geometry_shader
        values, lost = None, None
        cut = state.pso.strip_cut_value.index if topo.strip else None
        if draw.indexed:
            n = draw.index_count_per_instance
            if cut is not None:
                buf = None if ib is None else ib.buffer
                host = getattr(buf, "host", None) if hasattr(buf, "wgpu") else buf
                if buf is not None and host is None:
                    lost = ("an indexed strip draw whose index buffer only the GPU holds: its "
                            "cuts are not known on the host")
                else:
                    values = host_index_values(draw, host, ib)
        else:
            n = draw.vertex_count_per_instance
        vertices, prims = draw_counts(topo, n, values, cut)
        for counts in self.pipeline.values():
            if lost is not None:
                counts.lose(_IA_COUNTERS, lost)
            counts.add({"IAVertices": vertices * inst, "IAPrimitives": prims * inst,
                        # one invocation per vertex the IA delivers (rules 13.8)
                        "VSInvocations": vertices * inst,
                        "GSInvocations": (prims * inst * gs.declaration.instance_count
                                          if gs is not None else 0)})
            if gs is not None:
                counts.lose(("GSPrimitives",), "the primitives a geometry shader outputs are "
                            "counted on the GPU (Context.begin_gs_capture reads them)")

    def count_unknown(self, reason: str) -> None:
        """A draw whose vertex count only the GPU knows (DrawAuto) was issued."""
        for counts in self.pipeline.values():
            counts.lose((*_IA_COUNTERS, "GSPrimitives"), reason)


class QueryCalls:
    """The query and predication methods of :class:`gpuia.gpu.Context` (module docstring).
    The context holds a :class:`QueryState` in ``_queries``."""

    _queries: QueryState
    if TYPE_CHECKING:  # what the Context provides
        device: Device
        _rec: Recorder

        def draw(self, draw) -> Plan: ...

        def flush(self) -> None: ...

        def so_statistics(self, stream: int = 0) -> dict[str, int]: ...

    def _route_draws(self) -> None:
        # While a draw must be looked at, draw_instanced takes the general path (its inline
        # fast path asks nothing): an instance attribute shadows the method, so the fast path
        # costs nothing more when no query or predicate is set.
        if self._queries.watching:
            self.draw_instanced = self._watched_draw_instanced
        else:
            self.__dict__.pop("draw_instanced", None)

    def _watched_draw_instanced(self, vertex_count_per_instance, instance_count=1,
                                start_vertex_location=0, start_instance_location=0):
        draw = DrawInstanced(vertex_count_per_instance, instance_count, start_vertex_location,
                             start_instance_location)
        return self.draw(draw)

    @exclusive
    def create_query_heap(self, heap_type: QueryHeapType | str | int, count: int) -> QueryHeap:
        """CreateQueryHeap: a heap of ``count`` queries of ``heap_type``.

        Arguments:
            heap_type: ``PIPELINE_STATISTICS`` or ``SO_STATISTICS`` (a
                :class:`~gpuia.gpu.context.queries.QueryHeapType`, its name with or without
                ``D3D12_QUERY_HEAP_TYPE_``, or D3D12's value).
            count (int): the queries, 1 to 2**20.

        Returns:
            The :class:`~gpuia.gpu.context.queries.QueryHeap`.

        Raises:
            InvalidDescError: another heap type (occlusion, timestamp: gpuia has none), or a
                count out of range.
        """
        return QueryHeap(self, heap_type, count)

    @guarded
    def begin_query(self, heap: QueryHeap, query_type: QueryType | str | int,
                    index: int) -> None:
        """BeginQuery: start query ``index`` of ``heap`` as ``query_type`` (a
        :class:`~gpuia.gpu.context.queries.QueryType`, its name or value). An SO query reads
        the statistics now (pending draws are submitted and waited for).

        Arguments:
            heap (QueryHeap): a heap of this context.
            query_type: the query type, one the heap's type holds.
            index (int): the query, 0 to ``heap.count - 1``.

        Raises:
            InvalidDescError: the heap is no QueryHeap of this context, the type is none the
                heap holds, the index is past the heap, or the query is begun already.
            UnsupportedError: wgpu refused the submit or the read.
        """
        qt, slot = self._slot(heap, query_type, index, "BeginQuery")
        if slot.open is not None:
            raise InvalidDescError("BeginQuery", "Index", index,
                                   f"query {index} was begun as {slot.open.name} and not "
                                   f"ended: a query is ended before it is begun again")
        stream = QUERY_TYPES[qt].stream
        if stream is None:
            slot.begin = PipelineCounts(adapter_begin=self._adapter_totals())
            self._queries.pipeline[id(slot)] = slot.begin
            self._queries.update()
            self._route_draws()
        else:
            slot.begin = self._so_counts(stream)
        slot.open, slot.data = qt, None

    @guarded
    def end_query(self, heap: QueryHeap, query_type: QueryType | str | int,
                  index: int) -> None:
        """EndQuery: end query ``index`` of ``heap``, begun as ``query_type``; its data is
        then what :meth:`resolve_query_data` returns. An SO query reads the statistics now.

        Arguments:
            heap (QueryHeap): the heap of the query.
            query_type: the type it was begun as.
            index (int): the query.

        Raises:
            InvalidDescError: as :meth:`begin_query` does, and when the query was not begun,
                or was begun as another type.
            UnsupportedError: wgpu refused the submit or the read.
        """
        qt, slot = self._slot(heap, query_type, index, "EndQuery")
        if slot.open is not qt:
            raise InvalidDescError("EndQuery", "Index", index,
                                   f"query {index} was not begun as {qt.name} (BeginQuery "
                                   f"and EndQuery pair on one index and type)")
        stream = QUERY_TYPES[qt].stream
        if stream is None:
            counts = self._queries.pipeline.pop(id(slot))
            self._queries.update()
            self._route_draws()
            data = counts.result()
            data.update(self._adapter_counts(counts.adapter_begin))
        else:
            (w0, n0), (w1, n1) = slot.begin, self._so_counts(stream)
            written, needed = (w1 - w0) % _U64, (n1 - n0) % _U64
            data = ({"NumPrimitivesWritten": written, "PrimitivesStorageNeeded": needed}
                    if qt.value >= 0 else {"Overflow": int(needed != written)})
        slot.open, slot.begin, slot.data = None, None, (qt, data)

    def _slot(self, heap: QueryHeap, query_type, index: int, call: str) -> tuple:
        """``heap.slot`` of a call (its type and query), after checking ``heap`` is a heap."""
        if not isinstance(heap, QueryHeap):
            raise InvalidDescError(call, "pQueryHeap", heap, "expected a QueryHeap "
                                   "(Context.create_query_heap)")
        return heap.slot(self, query_type, index, call)

    def _adapter_totals(self) -> list[int] | None:
        """The GPU's running pipeline statistics totals at a PIPELINE_STATISTICS query's
        begin or end (gpu_counts): the open pass ends there, pending draws are submitted and
        waited for; None without the feature."""
        if not self.device.caps.pipeline_statistics_query:
            return None
        rec = self._rec
        rec.end_pass()  # passes end at a query's bounds: each pass is wholly in or out
        if rec.gpu_counts is None:
            rec.gpu_counts = PassCounts(self.device)
        self.flush()
        return rec.gpu_counts.read()

    def _adapter_counts(self, begin: list[int] | None) -> dict:
        """``adapter_counts`` and ``adapter_note`` of a PIPELINE_STATISTICS query ending now,
        begun at the totals ``begin``; the pass counting stops when no such query is open."""
        if begin is None:
            return {"adapter_counts": None, "adapter_note": NO_FEATURE}
        end = self._adapter_totals()
        assert end is not None
        if not self._queries.pipeline:
            self._rec.gpu_counts = None
        vs, clipper = ((b - a) % _U64 for a, b in zip(begin, end, strict=True))
        return {"adapter_counts": {"VSInvocations": vs, "CInvocations": clipper},
                "adapter_note": NOTE}

    def _so_counts(self, stream: int) -> tuple[int, int]:
        s = self.so_statistics(stream)
        return s["NumPrimitivesWritten"], s["PrimitivesStorageNeeded"]

    @guarded
    def resolve_query_data(self, heap: QueryHeap, query_type: QueryType | str | int,
                           start_index: int, num_queries: int, destination: Buffer | None = None,
                           aligned_destination_offset: int = 0) -> list[dict]:
        """ResolveQueryData: the data of queries ``start_index .. start_index + num_queries -
        1``, each ended as ``query_type``; written into ``destination`` (a gpuia Buffer of
        this device) at ``aligned_destination_offset`` in D3D's layout
        (:func:`~gpuia.gpu.context.queries.pack_query_data`: per query its UINT64 fields),
        when one is given.

        Arguments:
            heap (QueryHeap): the heap of the queries.
            query_type: the type they were ended as.
            start_index (int): the first query.
            num_queries (int): how many, at least 1, inside the heap.
            destination: a gpuia Buffer of this device, or None (the default: only returned).
            aligned_destination_offset (int): where in ``destination``, a multiple of 8.

        Returns:
            One dict per query: ``NumPrimitivesWritten`` and ``PrimitivesStorageNeeded``
            (SO_STATISTICS_STREAMn); ``Overflow``, 0 or 1 (SO_OVERFLOW_PREDICATE_STREAMn);
            the eleven counters of D3D12_QUERY_DATA_PIPELINE_STATISTICS, None where gpuia
            cannot know it, and ``not_available``: counter -> why (PIPELINE_STATISTICS); with
            them the adapter's own counts, ``adapter_counts`` (``VSInvocations`` and
            ``CInvocations`` as the GPU counted them, where the device has wgpu's
            pipeline-statistics-query feature; else None) and ``adapter_note`` (what they
            count and how they relate to D3D's, or why there are none): never compared or
            written into ``destination``.

        Raises:
            InvalidDescError: as :meth:`begin_query`, and a range past the heap, a query in it
                still begun, never ended or ended as another type, a destination that is no
                live Buffer of this device, an offset that is no multiple of 8, or data running
                past the destination's size.
            UnsupportedError: wgpu refused the write.
        """
        where = "ResolveQueryData"
        qt, _ = self._slot(heap, query_type, start_index, where)
        if type(num_queries) is not int or not 1 <= num_queries <= heap.count - start_index:
            raise InvalidDescError(where, "NumQueries", num_queries,
                                   f"queries {start_index} to {start_index} + NumQueries - 1 "
                                   f"must lie in the heap's {heap.count}")
        out = []
        for i in range(start_index, start_index + num_queries):
            slot = heap.slots[i]
            if slot.open is not None or slot.data is None or slot.data[0] is not qt:
                why = ("is begun and not ended" if slot.open is not None else
                       "was never ended" if slot.data is None else
                       f"was ended as {slot.data[0].name}")
                raise InvalidDescError(where, "StartIndex", i, f"query {i} {why}: it has no "
                                       f"{qt.name} data (D3D12 leaves it undefined)")
            d = dict(slot.data[1])
            for k in ("not_available", "adapter_counts"):
                if d.get(k) is not None:
                    d[k] = dict(d[k])
            out.append(d)
        if destination is not None:
            self._write_resolved(destination, aligned_destination_offset,
                                 pack_query_data(qt, out))
        return out

    def _write_resolved(self, dest, offset, data: bytes) -> None:
        where = "ResolveQueryData"
        checked_buffer(dest, self.device, where, "pDestinationBuffer")
        dest.check_live(where)
        if type(offset) is not int or offset < 0 or offset % 8:
            raise InvalidDescError(where, "AlignedDestinationBufferOffset", offset,
                                   "a non-negative multiple of 8")
        if offset + len(data) > dest.size:
            raise InvalidDescError(where, "AlignedDestinationBufferOffset", offset,
                                   f"{len(data)} bytes there run past the buffer's {dest.size}")
        self.flush()  # after the draws encoded before
        dest.write(data, offset)

    @guarded
    def set_predication(self, buffer: Buffer | None = None, aligned_offset: int = 0,
                        operation: PredicationOp | str | int = PredicationOp.EQUAL_ZERO
                        ) -> None:
        """SetPredication: skip the following draws while the UINT64 at ``aligned_offset`` of
        ``buffer`` is 0 (``EQUAL_ZERO``) or is not (``NOT_EQUAL_ZERO``); ``buffer`` None ends
        predication. The value is read now, after this context's pending draws are submitted
        (module docstring: what this ordering means and its limits).

        Arguments:
            buffer: a gpuia Buffer of this device, or None.
            aligned_offset (int): the value's byte offset, a multiple of 8.
            operation: a :class:`~gpuia.gpu.context.queries.PredicationOp`, its name (prefix
                ``D3D12_PREDICATION_OP_`` optional) or D3D12's value.

        Raises:
            InvalidDescError: the buffer is no live Buffer of this device, the offset is no
                multiple of 8 or the value runs past the buffer, or the operation is neither;
                the predicate set stays.
            UnsupportedError: wgpu refused the submit or the read.
        """
        where = "SetPredication"
        op = PredicationOp.of(operation)
        if buffer is None:
            skipping = False
        else:
            checked_buffer(buffer, self.device, where, "pBuffer")
            buffer.check_live(where)
            if (type(aligned_offset) is not int or aligned_offset < 0 or aligned_offset % 8
                    or aligned_offset + 8 > buffer.size):
                raise InvalidDescError(where, "AlignedBufferOffset", aligned_offset,
                                       f"a multiple of 8 with 8 bytes inside the buffer's "
                                       f"{buffer.size}")
            self.flush()
            value = int.from_bytes(buffer.read()[aligned_offset:aligned_offset + 8], "little")
            skipping = (value == 0) if op is PredicationOp.EQUAL_ZERO else (value != 0)
        self._queries.skipping = skipping
        self._queries.update()
        self._route_draws()

