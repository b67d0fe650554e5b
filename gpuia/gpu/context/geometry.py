"""A context's geometry shader stage: each draw's vertex shader outputs, input primitives,
geometry shader program and Stream Output per stream, recorded in the context's submission order.

:class:`GeometryStage` is made at a context's first draw with a geometry shader. Per draw, after
every refusal was made (nothing recorded before):

1. the vertex shader runs once per index (or vertex) of each instance, its outputs that the
   geometry shader reads stored as the shader's input records, one after the other: Stream
   Output's own compute pass (:class:`~gpuia.gpu.so.engine.SOEngine`, a second one of the
   context's) with a declaration of those outputs, drawn as a point list (every index an
   ordinary one there, rules 5.2) into a buffer of the stage's own;
2. the input primitives (:func:`gpuia.gpu.gs.assembly.gs_primitives`, from the draw's index
   values where a strip may cut) are uploaded, each chunk's with places relative to its window
   of the vertex records;
3. per chunk of invocations, the shader's program (:class:`gpuia.gpu.gs.program.GSProgram`)
   fills their regions and the expansion (:class:`gpuia.gpu.gs.expansion.GSStreamOutput`)
   writes each stream into the bound Stream Output targets;
4. with render targets, the rasterized stream is expanded into a buffer of its own and drawn
   after each chunk (:class:`gpuia.gpu.context.gs_raster.GSRaster`).

Stream 0's overflow flag is the one the context's vertex shader draws keep (rules 9.7: one
flag per stream whatever stage wrote it): it is copied into the expansion's state before the
draw and back after it, on the GPU; the host's knowledge of the targets' counters and of that
flag is dropped (:meth:`~gpuia.gpu.so.statistics.HostState.forget`).

Refused: a topology of another class than the shader's input primitive (rules 13.2,
InvalidDescError), and everything the vertex pass, the program, the expansion and the raster
draw refuse. Without render targets a draw goes to the context's own target, which nothing
reads, so the rasterized stream is not drawn there and nothing differs.
"""

from __future__ import annotations

from dataclasses import replace
from math import lcm

import numpy as np

from ...d3d.desc import StripCutValue
from ...d3d.geometry import check_topology
from ...d3d.so_desc import SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from ...d3d.topology import topology_info
from ...errors import UnsupportedError
from ...wgsl.blocks import GS_PARAMS, GS_SO_STATE
from ..cache import remember
from ..gs.assembly import GSPrimitives
from ..gs.capture import GSCapture
from ..gs.expansion import GSStreamOutput
from ..gs.plan import GSStreamPlan, GSTarget, storage_binding_limit
from ..gs.program import GSProgram, GSWindow
from ..ia.plan import host_index_values
from ..lifetime import wgpu_call
from ..so.engine import SOEngine
from ..so.statistics import STATE_OVERFLOWED
from ..targets import INTERNAL_OUTPUT
from .gs_raster import GSRaster
from .resolve import new_state

__all__ = ["GeometryStage", "CHUNK"]

CHUNK = 1 << 18
"""Invocations per chunk by default (regions, primitives and their windows are per chunk)."""
_POINTS = topology_info("POINTLIST")
_GS_OVERFLOWED = GS_SO_STATE.word("overflowed")  # stream 0's flag; streams 1-3 follow


class GeometryStage:
    """The geometry shader stage of one context (module docstring).

    Arguments:
        device, cache: the context's device and PipelineCache.
        rec: the context's Recorder; ``ia``: its IAState; ``om``: its OMState.
        flush: submits the context's pending work.
        so: returns the context's SOEngine (its targets, state and host knowledge).
        draw_auto: ``(draw state, DrawAuto arguments)`` -> encodes that DrawAuto (the
            rasterized stream's draw, :class:`~gpuia.gpu.context.gs_raster.GSRaster`).
        chunk (int): invocations per chunk (None: :data:`CHUNK`).
    """

    def __init__(self, device, cache, rec, ia, om, flush, so, draw_auto,
                 chunk: int | None = None):
        self.device = device
        self.cache = cache
        self.rec = rec
        self.ia = ia
        self.om = om
        self.flush = flush
        self.so = so
        self.chunk = chunk or CHUNK  # read when made, so a test can make chunks small
        self._vs_slots: tuple[int, ...] = ()
        self.vertex_pass = SOEngine(device, cache, rec, ia,
                                    lambda: om.cbv_group(self._vs_slots), flush)
        self.program = GSProgram(device, cache)
        self.expansion = GSStreamOutput(device, cache)
        self.raster = GSRaster(device, cache, rec, draw_auto)
        self._states: dict = {}  # id(draw state) -> (draw state, its vertex pass state)
        self._plans: dict = {}  # shader -> GSStreamPlan
        self._records: tuple | None = None  # (gpuia Buffer, bytes) of the vertex records
        self.capture: GSCapture | None = None  # set while the context captures (GSCapture)

    # -- what the context asks ----------------------------------------------------------------
    def statistics(self) -> list[dict[str, int]]:
        """Per stream 0-3, the geometry shader draws' SO statistics (after a submit)."""
        self.flush()
        return self.expansion.statistics()

    def clear_overflow(self) -> None:
        """SOSetTargets cleared the flags (the context submitted what came before)."""
        self.expansion.clear_overflow()

    # -- a draw -------------------------------------------------------------------------------
    def encode(self, state, draw) -> None:
        """Record the geometry stage of ``draw`` under the resolved ``state`` (module
        docstring); refusals are raised before anything is recorded."""
        gs = state.pso.geometry_shader
        so = state.so
        check_topology(gs.declaration, state.topology)
        plan = self._plan(gs)
        rd = self.raster.prepare(state, plan)
        if so is None and rd is None and self.capture is None:
            return  # nothing streams out, nothing drawn can be seen, nothing is captured
        if state.static.pulling_obstacles:
            raise UnsupportedError("the geometry shader's vertex shader pass pulls the draw's "
                                   "vertices: " + "; ".join(state.static.pulling_obstacles))
        prims = self._primitives(state, draw)
        capture = None if self.capture is None else self.capture.draw(
            draw.count, draw.instance_count, gs.declaration.instance_count,
            (plan.vertices, plan.max_vertex_count, gs.record_words, gs.vertex_words,
             prims.width - 1))
        if not prims.total:
            return  # no complete primitive: no invocation (rules 13.1)
        vs_state = self._vertex_state(state, gs)
        targets = self._targets(so) if so is not None else {}
        bound = self._window_bound(so, plan, targets) if so is not None else 0
        if rd is not None:
            bound = min(bound, rd.chunk_bound()) if bound else rd.chunk_bound()
        chunks = self._chunks(gs, prims, bound)
        if capture is not None:
            self._records = None  # records of the draw's own, which the capture reads later
        records = self._vertex_records(vs_state, draw, gs)
        if capture is not None and self.capture is not None:
            self.capture.records(capture, records,
                                 4 * gs.vertex_words * draw.count * draw.instance_count)
        self._record(gs, plan, so, targets, prims, chunks, records, rd, capture)

    def _primitives(self, state, draw) -> GSPrimitives:
        """The draw's input primitives (its index values read where a strip may cut)."""
        topo, cut = state.topology, state.pso.strip_cut_value
        cuts = None
        if draw.indexed and topo.strip and cut is not StripCutValue.DISABLED:
            ib = self.ia.index
            host = None
            if ib is not None and ib.buffer is not None:
                host = getattr(ib.buffer, "host", None)
                if host is None:  # only the GPU has them (a buffer the GPU wrote)
                    self.flush()
                    host = bytes(self.device.device.queue.read_buffer(ib.buffer.wgpu))
            cuts = host_index_values(draw, host, ib) == cut.index
        return GSPrimitives.of(topo, draw.count, draw.instance_count, cuts)

    def _plan(self, gs) -> GSStreamPlan:
        plan = self._plans.get(gs)
        if plan is None:
            plan = remember(self._plans, gs, GSStreamPlan.of(gs.declaration, gs.stream_members))
        return plan

    def _targets(self, so) -> dict[int, GSTarget | None]:
        """Each declared slot's bound target as the expansion addresses it, None where none
        is bound (the slot is then full, rules 9.8)."""
        bound = self.so().targets
        out: dict[int, GSTarget | None] = {}
        for s in so.slots:
            t = bound.get(s.slot)
            out[s.slot] = None if t is None else GSTarget(
                t.buffer.wgpu, t.view.offset, t.view.size_in_bytes, t.counter,
                t.counter_offset)
        return out

    # -- the vertex shader's outputs ------------------------------------------------------------
    def _vertex_state(self, state, gs):
        """The draw state of the vertex pass: the pipeline state with a Stream Output
        declaration of the outputs the geometry shader reads, and a point list."""
        kept = self._states.get(id(state))
        if kept is not None and kept[0] is state:
            return kept[1]
        desc = StreamOutputDesc(
            tuple(SODeclarationEntry(0, m.semantic, m.index, 0, m.components, 0)
                  for m in gs.input_members), (4 * gs.vertex_words,), 0)
        pso = replace(state.pso, stream_output=desc, geometry_shader=None, pixel_shader=None,
                      ps_entry_point=None, rtv_formats=(), dsv_format=None, constant_buffers=0)
        vs_state = new_state(self.device.caps, pso, _POINTS, False,
                             tuple(pso.input_layout.slots), state.bound, INTERNAL_OUTPUT,
                             self.om.srv.typed_formats(pso.shader_resources))
        remember(self._states, id(state), (state, vs_state), 16)
        return vs_state

    def _vertex_records(self, vs_state, draw, gs):
        """Encode the vertex pass; returns the wgpu buffer of the records."""
        nbytes = max(16, 4 * gs.vertex_words * draw.count * draw.instance_count)
        if self._records is None or self._records[1] < nbytes:
            buf = self.device.create_buffer(size=nbytes, bind=("stream_output",),
                                            label="gpuia GS input records")
            self._records = (buf, nbytes)
        buf = self._records[0]
        self._vs_slots = vs_state.pso.group_bindings
        engine = self.vertex_pass
        engine.set_targets([StreamOutputBufferView(buf, nbytes, 0)], [0])
        engine.encode(vs_state, vs_state.so, draw, StripCutValue.DISABLED)
        return buf.wgpu

    # -- chunks -------------------------------------------------------------------------------
    def _limit(self) -> int:
        return storage_binding_limit(self.device.caps)

    def _window_bound(self, so, plan, targets) -> int:
        """Invocations one chunk may hold so that what they can write into each target
        buffer larger than a storage binding fits one (0: no such buffer, no bound)."""
        limit = self._limit() - self.device.caps.min_storage_buffer_offset_alignment
        most = 0
        for s in so.slots:
            t = targets.get(s.slot)
            if t is not None and t.buffer.size > self._limit():
                per = plan.max_vertex_count * plan.vertices[s.stream] * s.stride
                most = max(most, per)
        return max(1, limit // most) if most else 0

    def _chunks(self, gs, prims: GSPrimitives, bound: int) -> list[tuple]:
        """(primitives, first vertex record of the window, records, the buffer of the chunk's
        rows, those rows) per chunk: whole primitives, every instance of each, regions and
        windows within one storage binding (halved until they fit), at most ``bound``
        invocations (0: none). Each chunk's rows are made once, made relative to its window
        and uploaded at once (a buffer of its own), so host memory holds one chunk's; the rows
        are kept only for a capture (else None)."""
        caps = self.device.caps
        limit = self._limit()
        instances = gs.declaration.instance_count
        most = min(self.chunk, limit // (4 * gs.region_words),
                   caps.max_compute_workgroups_per_dimension * gs.workgroup)
        if bound:
            most = min(most, bound)
        per = max(1, most // instances)
        record = 4 * gs.vertex_words
        step = lcm(caps.min_storage_buffer_offset_alignment, record) // record
        k = prims.width - 1
        dev = self.device.device
        out, first, total = [], 0, prims.total
        while first < total:
            n = min(per, total - first)
            while True:
                rows = prims.rows(first, n)
                places = rows[:, :k]
                lo = int(places.min()) // step * step
                count = int(places.max()) + 1 - lo
                if count * record <= limit or n == 1:
                    break
                n = (n + 1) // 2
            self.program.check_binding("vertex window", count * record)
            places -= np.uint32(lo)
            buf = wgpu_call(lambda rows=rows: dev.create_buffer_with_data(data=rows,
                                                                          usage="STORAGE"),
                            "allocating the geometry stage")
            out.append((n, lo, count, buf, rows if self.capture is not None else None))
            first += n
        return out

    def _filled(self, targets) -> dict[int, int]:
        """Each bound slot's BufferFilledSize, read back (the work before was submitted)."""
        queue = self.device.device.queue
        return {slot: int(np.frombuffer(queue.read_buffer(t.counter, t.counter_offset, 4),
                                        np.uint32)[0])
                for slot, t in targets.items() if t is not None}

    def _record(self, gs, plan, so, targets, prims, chunks, records, rd,  # size: one
                capture) -> None:
        # draw's uploads, chunk loop and overflow hand-over read best as one sequence
        """Upload the chunks' parameters, then encode every chunk: the program, the Stream
        Output (``so``; None: none) and the rasterized stream (``rd``; None: none); with a
        ``capture`` draw, each chunk's regions in a buffer the capture keeps."""
        dev = self.device.device
        caps = self.device.caps
        instances = gs.declaration.instance_count
        k1 = prims.width
        ualign = max(256, caps.min_uniform_buffer_offset_alignment)
        params = np.zeros(len(chunks) * ualign // 4, np.uint32)
        for j, (n, *_) in enumerate(chunks):
            block = params[j * ualign // 4:]
            for name, value in (("first", 0), ("count", n * instances),
                                ("instances", instances), ("vertex_words", gs.vertex_words),
                                ("region_words", gs.region_words)):
                block[GS_PARAMS.word(name)] = value
        largest = max(n for n, *_ in chunks) * instances
        regions_bytes = 4 * largest * gs.region_words
        self.program.check_binding("regions", regions_bytes)

        def made():  # a capture gives each chunk regions of its own
            return (dev.create_buffer_with_data(data=params, usage="UNIFORM"),
                    dev.create_buffer(size=regions_bytes if capture is None else 16,
                                      usage="STORAGE"))

        param_buf, regions = wgpu_call(made, "allocating the geometry stage")
        cbv = (self.om.cbv_group(gs.group_bindings, gs.shader_resources,
                                 (gs.textures, gs.samplers)) if gs.group_bindings else None)
        typed = self.om.srv.typed_formats(gs.shader_resources)  # its program's formats
        so_state = self.so().state
        windowed = any(t is not None and t.buffer.size > self._limit()
                       for t in targets.values())
        enc = self.rec.compute_encoder()
        if so is not None:
            enc.copy_buffer_to_buffer(so_state, 4 * STATE_OVERFLOWED, self.expansion.state,
                                      4 * _GS_OVERFLOWED, 4)
        keep: list = [param_buf, regions, cbv]
        record = 4 * gs.vertex_words
        for j, (n, lo, count, prim_buf, rows) in enumerate(chunks):
            enc = self.rec.compute_encoder()  # a draw of the stream before ended it
            here = regions
            if capture is not None and self.capture is not None:  # regions of the chunk's
                # own, read back later; the rows' places again (uploaded already)
                rows[:, :k1 - 1] += np.uint32(lo)
                here = self.capture.regions(capture, rows, 4 * n * instances * gs.region_words)
            windows = {"vertices": GSWindow(records, lo * record, count * record),
                       "prims": GSWindow(prim_buf, 0, 4 * n * k1),
                       "regions": GSWindow(here, 0, here.size if capture else regions_bytes)}
            keep += self.program.encode(enc, gs, GSWindow(param_buf, j * ualign,
                                                          4 * GS_PARAMS.words()),
                                        windows, n * instances, cbv, typed)
            keep.append(prim_buf)
            filled = None
            if windowed:  # the targets' windows start at their filled sizes: read them
                self.rec.keep(tuple(keep))
                keep = []
                self.flush()
                filled = self._filled(targets)
                enc = self.rec.compute_encoder()
            if so is not None:
                keep += self.expansion.encode(enc, here, n * instances, plan, so, targets,
                                              filled)
            if rd is not None:
                keep += self.raster.encode(rd, here, n * instances, plan)
        self.rec.keep(tuple(keep))
        if so is not None:
            enc = self.rec.compute_encoder()
            enc.copy_buffer_to_buffer(self.expansion.state, 4 * _GS_OVERFLOWED, so_state,
                                      4 * STATE_OVERFLOWED, 4)
            self.so().host.forget(so, self.so().targets)
