"""The work behind a context's draw calls: its parts (the IA and output-merger state, the draw
state cache, the recorder, the capture session, the Stream Output engine once a call needs it)
and what each draw does with them: resolve the state, plan the draw
(:func:`gpuia.gpu.vertex.plan.plan_resolved_draw`), then record it for a running capture, stream
it out, or encode it into the open render pass. :class:`gpuia.gpu.Context` is the D3D-shaped
facade over this: it takes the thread guard, keeps ``last_plan`` and ``draw_count``, and encodes
the fast draw itself (the hottest path of the package)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...d3d.draws import DrawIndexedInstanced, DrawInstanced, delivering, draw_of
from ...errors import InvalidDescError, UnsupportedError
from ...wgsl.uniforms import two_row_matrix_uniforms
from ..device import Buffer
from ..gs.capture import GSCapture, GSCaptured
from ..gs.program import GS_STORAGE_BUFFERS
from ..ia.plan import IndexMode, non_indexed_plan
from ..lifetime import ContextWork, device_error, is_released, released_error, wgpu_call
from ..quirks import UNIFORM_TWO_ROW_MATRICES, has_effect
from ..so.engine import SOEngine
from ..vertex.pipelines import OWN_UNIFORM_BUFFERS, check_constant_buffers
from ..vertex.plan import DrawPath, Plan, plan_resolved_draw
from .capture import Capture, CaptureRecord, CaptureSession, sorted_unique
from .capture_spans import position_bounds, splittable, window_pieces
from .geometry import GeometryStage
from .gs_raster import output_state
from .om_state import OMState
from .pso import PipelineState
from .recorder import Recorder
from .resolve import DrawState, StateCache
from .srv_state import check_resource_limits, check_uav_support

__all__ = ["Drawing"]


class Drawing:
    """A context's parts and the work of its draws, for one :class:`gpuia.gpu.Context`.

    Arguments:
        device (Device): the context's device.
        cache (PipelineCache): the pipelines it draws with.
        om (OMState): the context's output-merger state.
        flush: the context's ``flush`` (a full uniform ring, a capture and Stream Output
            submit through it).
        holds_work: () -> bool, whether the context may hold unsubmitted work (for the
            device's :class:`~gpuia.gpu.lifetime.ContextWork`).

    Attributes (the facade and the fast draw read them): ``states`` (:class:`StateCache`),
    ``ia`` (its :class:`~gpuia.gpu.context.ia_state.IAState`), ``om``, ``rec``
    (:class:`Recorder`), ``capture`` (:class:`CaptureSession`), ``so_engine`` (None until a
    Stream Output call) and ``work``.
    """

    def __init__(self, device, cache, om: OMState, flush, holds_work):
        self.device = device
        self.cache = cache
        self.om = om
        self.flush = flush
        self.so_engine: SOEngine | None = None
        self.geometry_stage: GeometryStage | None = None
        self.states = StateCache(
            device, om, lambda: {} if self.so_engine is None else self.so_engine.targets)
        self.ia = self.states.ia
        self.rec = wgpu_call(lambda: Recorder(device, cache, om, flush),
                             "Context")  # a lost device fails here
        self.capture = CaptureSession(device, self.rec, self._encode_record, flush)
        self.work = ContextWork(holds_work)

    def holds_work(self) -> bool:
        """Whether encoded or recorded draws wait for a submit, or a capture is running."""
        return (self.rec.encoder is not None or bool(self.capture.records)
                or self.capture.running)

    def retire(self) -> None:
        """After a submit: destroy the released resources that waited only for this context.
        Not while a capture's recorded draws are still to be encoded."""
        if not self.capture.records and not self.capture.running:
            self.work.retire()

    def stats(self, draws: int, path) -> dict:
        """What :meth:`gpuia.gpu.Context.stats` returns, ``draws`` and ``path`` the context's."""
        ia, om, so, rec = self.ia, self.om, self.so_engine, self.rec
        out = {"draws": draws, "submits": self.states.flushes,
               "pending_blocks": rec.ring.used, "ring_capacity": rec.ring.capacity,
               "capture_bind_groups": rec.capture_group_count(),
               "pipelines": self.cache.stats.pipelines,
               "so_counters": 0 if so is None else so.counter_count(),
               "so_draws": {"fused": 0, "prepared": 0} if so is None else dict(so.draws)}
        out.update(self.states.counts())
        out["bound"] = {
            "vertex_buffers": sorted(s for s, v in ia.views.items() if v is not None),
            "index_buffer": ia.index is not None,
            "topology": None if ia.topology is None else ia.topology.name,
            "constant_buffers": sorted(om.cbvs),
            "render_targets": len(om.rtvs), "depth_stencil": om.dsv is not None,
            "so_targets": [] if so is None else sorted(so.targets),
            "path": path, "capturing": self.capture.active}
        return out

    # -- state --------------------------------------------------------------------------------
    def set_pipeline_state(self, pso: PipelineState) -> None:
        """SetPipelineState's checks (the shader against the layout, the declaration against the
        shader, what the adapter binds and reads as D3D does), then the state set."""
        if not isinstance(pso, PipelineState):
            raise InvalidDescError("SetPipelineState", "pso", pso, "expected a PipelineState")
        _ = pso.signature  # parse and check the shader against the layout now
        pso.check_geometry()  # a geometry shader's inputs against the vertex shader's outputs
        _ = pso.so  # and the Stream Output declaration against the last shader
        caps, summary = self.device.caps, self.device.info["summary"]
        check_constant_buffers(pso.constant_buffer_slots, caps, summary, pso.so is not None)
        check_uav_support(pso.shader_resources, caps, summary)
        check_resource_limits(pso.shader_resources, len(pso.constant_buffer_slots) +
                              OWN_UNIFORM_BUFFERS["Stream Output" if pso.so else "draw"],
                              caps, summary)
        gs = pso.geometry_shader
        if gs is not None:  # its program: a compute pass (gpuia.gpu.gs.program)
            check_resource_limits(gs.shader_resources, len(gs.constant_buffer_slots) + 1, caps,
                                  summary, "geometry shader", GS_STORAGE_BUFFERS)
        if has_effect(caps.quirks, UNIFORM_TWO_ROW_MATRICES):
            for field_name in ("vertex_shader", "pixel_shader"):
                found = two_row_matrix_uniforms(getattr(pso, field_name) or "")
                if found:
                    raise UnsupportedError(
                        f"SetPipelineState: {field_name} declares {found[0]}, which holds a "
                        f"2-row matrix: {summary} reads such uniforms with "
                        f"GLSL's 16-byte column stride, not WGSL's 8 "
                        f"(docs/known-adapter-issues.md)")
        self.om.output = output_state(pso, caps.max_inter_stage_shader_variables)
        self.ia.slot_count = pso.input_layout.profile.slot_count
        self.states.set_pso(pso)

    # -- draws --------------------------------------------------------------------------------
    def plan(self, draw, path) -> tuple:
        """(the draw delivering, its state, the index buffer view, its Plan): the checks and
        the planning of :meth:`gpuia.gpu.Context.draw`."""
        if not isinstance(draw, (DrawInstanced, DrawIndexedInstanced)):
            draw = draw_of(draw)
        draw = delivering(draw)
        state = self.states.current()
        ib = self.ia.index
        if draw.indexed and ib is not None and ib.buffer is not None and ib.buffer.released:
            raise released_error("draw", "index buffer", ib.buffer)
        if state.capture:
            limit = self.capture.limit(len(state.pso.input_layout.elements))
            if draw.count > limit:
                raise UnsupportedError(
                    f"a capture draw of {draw.count} vertices per instance exceeds what one "
                    f"capture can hold ({limit} on this adapter)")
        plan = plan_resolved_draw(state.static, draw, state.topology, self.device.caps, ib,
                                  state.pso.strip_cut_value, path, state.capture,
                                  state.assembly)
        return draw, state, ib, plan

    def issue(self, draw, state: DrawState, ib, plan: Plan) -> None:
        """Record a planned draw for the running capture, stream it out, and encode it."""
        index = plan.index
        if state.capture:
            if index.fetch is None:
                raise UnsupportedError("capture needs the draw's fetch indices on the host")
            if self.rec.capture_route != "targets":  # that route's pipelines are built per group
                self.rec.pipeline(state, plan.path, attributes=plan.attributes)
            self.capture.record(CaptureRecord(
                state, draw, plan, sorted_unique(index.fetch), index_view=ib,
                cbv_group=self.om.cbv_group(state.cbvs) if state.cbvs else None))
            return
        if state.pso.geometry_shader is not None:
            if draw.instance_count and draw.count:  # an empty draw runs no shader
                self.geometry().encode(state, draw)
            else:
                self._empty_gs_draw()
            return  # its output streams out only (GeometryStage refuses rasterizing it)
        if state.so is not None and draw.instance_count:  # an empty draw streams out nothing
            if state.static.storage_obstacles():
                raise UnsupportedError("Stream Output pulls the draw's vertices: "
                                       + "; ".join(state.static.storage_obstacles()))
            so = state.so
            self.so().encode(state, so, draw, state.pso.strip_cut_value)
            if not so.rasterizes:
                return  # NO_RASTERIZED_STREAM: the draw rasterizes nothing
        if index.mode is IndexMode.HOST:
            assert index.values is not None  # a host stream holds its values
            count = index.values.shape[0]
        else:
            count = draw.count
        if count == 0 or draw.instance_count == 0:
            return
        self.rec.encode(state, plan.path, draw, index,
                        self.rec.next_block(state, plan.path, draw, None, index.vertex_shift),
                        ib, attributes=plan.attributes)

    def plan_auto(self) -> tuple:
        """(state, draw, Plan, counter arguments) of a DrawAuto: the checks and the plan of
        :meth:`gpuia.gpu.Context.draw_auto`. With a geometry shader, or a flat pixel input on
        an adapter whose provoking vertex is the last (the list is rotated on the host), (state,
        the draw with its vertex count read back, its Plan, None)."""
        state = self.states.current()
        if state.so is not None and state.pso.geometry_shader is None:
            raise UnsupportedError("Stream Output of a DrawAuto draw: its vertex count is known "
                                   "only on the GPU")
        view0 = self.ia.views.get(0)
        if view0 is None or view0.buffer is None:
            raise InvalidDescError("DrawAuto", "IA slot 0", None,
                                   "DrawAuto draws from the buffer bound at IA slot 0; none is")
        known = self.so().counter_of(view0.buffer)
        if known is None:
            raise InvalidDescError("DrawAuto", "IA slot 0", view0.buffer,
                                   "that buffer was never a Stream Output target, so it has no "
                                   "BufferFilledSize")
        counter, counter_offset, location = known
        if is_released(counter):
            raise InvalidDescError("DrawAuto", "IA slot 0", view0.buffer,
                                   "the BufferFilledSizeLocation buffer of its last Stream Output "
                                   "view was released")
        if state.pso.geometry_shader is not None and not state.capture:
            # The geometry stage sizes its work on the host: the count is read back.
            count = self._auto_count(known, view0)
            plan = Plan(DrawPath.PULLING, ["DrawAuto through a geometry shader: the vertex "
                                           "count read back"],
                        non_indexed_plan(0, count), state.static.slots)
            return state, DrawInstanced(count, 1, 0, 0), plan, None
        if state.assembly.rotate and state.topology.kind != "point" and not state.capture:
            # A flat input on an adapter whose provoking vertex is the last: the primitives are
            # drawn from a host list that puts D3D's first vertex last, so the count is read.
            draw = DrawInstanced(self._auto_count(known, view0), 1, 0, 0)
            plan = plan_resolved_draw(state.static, draw, state.topology, self.device.caps,
                                      None, state.pso.strip_cut_value, DrawPath.PULLING, False,
                                      state.assembly)
            return state, draw, plan, None
        if state.static.storage_obstacles():  # through storage loads, every slot
            raise UnsupportedError("DrawAuto pulls its vertices: "
                                   + "; ".join(state.static.storage_obstacles()))
        assert view0.size_in_bytes is not None  # resolved: the view has a buffer
        max_vertices = (view0.size_in_bytes // view0.stride_in_bytes + 1
                        if view0.stride_in_bytes else 1)
        elements = len(state.pso.input_layout.elements)
        plan = Plan(DrawPath.PULLING, ["DrawAuto: the vertex count is on the GPU"],
                    non_indexed_plan(0, min(max_vertices, self.capture.limit(elements)),
                                     with_fetch=state.capture), state.static.slots)
        args = (counter, counter_offset, location, view0.offset, view0.stride_in_bytes)
        return state, DrawInstanced(0, 1, 0, 0), plan, args

    def _auto_count(self, known, view0) -> int:
        """DrawAuto's vertex count on the host (rules 10.5): ``(BufferLocation +
        BufferFilledSize - IA offset) // stride``, 0 when negative or the stride is 0; the
        counter read back after the pending work."""
        counter, counter_offset, location = known
        self.flush()
        data = self.device.device.queue.read_buffer(counter, counter_offset, 4)
        end = location + int(np.frombuffer(data, np.uint32)[0])
        stride = view0.stride_in_bytes
        return (end - view0.offset) // stride if stride and end > view0.offset else 0

    def issue_auto(self, state: DrawState, draw, plan: Plan, args) -> None:
        """Record a planned DrawAuto for the running capture, or encode it."""
        if args is None:  # a draw of the count read back
            if state.pso.geometry_shader is not None:
                if draw.count:
                    self.geometry().encode(state, draw)
                else:
                    self._empty_gs_draw()
            else:
                self.issue(draw, state, None, plan)
            return
        if state.capture:
            if self.rec.capture_route != "targets":
                self.rec.pipeline(state, DrawPath.PULLING)
            assert plan.index.fetch is not None  # planned with_fetch for a capture
            self.capture.record(CaptureRecord(
                state, draw, plan, plan.index.fetch.astype(np.uint32), auto=args,
                cbv_group=self.om.cbv_group(state.cbvs) if state.cbvs else None))
            return
        self._encode_auto(state, draw, args,
                          self.rec.next_block(state, DrawPath.PULLING, draw, None))

    def _encode_auto(self, state, draw, args, block_offset, capture_bufs=None,
                     cbv_group=None) -> None:
        indirect = self.so().encode_draw_auto_args(*args)
        self.rec.encode(state, DrawPath.PULLING, draw, non_indexed_plan(0, 0), block_offset,
                        self.ia.index, capture_bufs, indirect=indirect, cbv_group=cbv_group)

    def _encode_record(self, r: CaptureRecord, bufs, window: tuple[int, int] | None = None
                       ) -> None:
        """Encode one recorded capture draw (the capture session's callback): whole, or with
        ``window`` (first record, count) only the sub-draws that write those records
        (:mod:`gpuia.gpu.context.capture_spans`; a draw that cannot be split is whole)."""
        d = r.draw
        if window is not None and splittable(r):
            self._encode_pieces(r, bufs, window)
            return
        if r.auto is not None:
            self._encode_auto(r.state, d, r.auto,
                              self.rec.next_block(r.state, DrawPath.PULLING, d, r), bufs,
                              r.cbv_group)
            return
        values = r.plan.index.values
        if r.plan.index.mode is IndexMode.HOST:
            assert values is not None  # a host stream holds its values
            count = values.shape[0]
        else:
            count = d.count
        if count == 0 or d.instance_count == 0:
            return
        offset = self.rec.next_block(r.state, r.plan.path, d, r, r.plan.index.vertex_shift)
        self.rec.encode(r.state, r.plan.path, d, r.plan.index, offset, r.index_view, bufs,
                        cbv_group=r.cbv_group, attributes=r.plan.attributes)

    def _encode_pieces(self, r: CaptureRecord, bufs, window: tuple[int, int]) -> None:
        """The sub-draws of ``r`` that write records ``window``: the per-draw block is the
        whole draw's (its StartVertexLocation, BaseVertexLocation, StartInstanceLocation), so
        every invocation is the one the whole draw makes at that position and instance."""
        if r.bounds is None:
            r.bounds = position_bounds(r)
        pieces = window_pieces(r, r.bounds, *window)
        if not pieces:
            return
        d, index = r.draw, r.plan.index
        offset = self.rec.next_block(r.state, r.plan.path, d, r, index.vertex_shift)
        for p in pieces:
            n, si = p.end - p.first, d.start_instance_location + p.instance
            sub: DrawInstanced | DrawIndexedInstanced
            part = index
            if isinstance(d, DrawInstanced):
                sub = replace(d, vertex_count_per_instance=n, instance_count=p.instances,
                              start_vertex_location=d.start_vertex_location + p.first,
                              start_instance_location=si)
            elif index.mode is IndexMode.DIRECT:
                sub = replace(d, index_count_per_instance=n, instance_count=p.instances,
                              start_index_location=d.start_index_location + p.first,
                              start_instance_location=si)
            else:  # host values: the part's values uploaded
                assert index.values is not None  # a host stream holds its values
                sub = replace(d, index_count_per_instance=n, instance_count=p.instances,
                              start_instance_location=si)
                part = replace(index, values=index.values[p.first:p.end])
            self.rec.encode(r.state, r.plan.path, sub, part, offset, r.index_view, bufs,
                            cbv_group=r.cbv_group, attributes=r.plan.attributes)

    # -- Stream Output ------------------------------------------------------------------------
    def _set_pso(self) -> PipelineState:
        """The pipeline state set (the Stream Output engine asks only while it encodes a draw,
        which has one)."""
        pso = self.states.pso
        assert pso is not None
        return pso

    def so(self) -> SOEngine:
        """The context's Stream Output engine, made at its first use."""
        if self.so_engine is None:
            self.so_engine = SOEngine(
                self.device, self.cache, self.rec, self.ia,
                lambda: self.om.cbv_group(self._set_pso().group_bindings), self.flush)
        return self.so_engine

    def geometry(self) -> GeometryStage:
        """The context's geometry shader stage, made at its first draw."""
        if self.geometry_stage is None:
            self.geometry_stage = GeometryStage(self.device, self.cache, self.rec, self.ia,
                                                self.om, self.flush, self.so, self._gs_raster)
        return self.geometry_stage

    def _gs_raster(self, state, args) -> None:
        """The geometry stage's draw of its rasterized stream: a DrawAuto of ``state``."""
        draw = DrawInstanced(0, 1, 0, 0)
        self._encode_auto(state, draw, args,
                          self.rec.next_block(state, DrawPath.PULLING, draw, None))

    def so_statistics(self, stream: int) -> dict[str, int]:
        """D3D12_QUERY_DATA_SO_STATISTICS of ``stream`` (0-3) over every draw: stream 0 counts
        the vertex shader draws' and the geometry shader draws' primitives (rules 10.1,
        13.8)."""
        if type(stream) is not int or not 0 <= stream <= 3:
            raise InvalidDescError("so_statistics", "stream", stream,
                                   "a Stream Output stream is 0 to 3 (rules 8.9)")
        total = {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 0}
        if stream == 0:
            total = self.so().statistics()
        if self.geometry_stage is not None:
            gs = self.geometry_stage.statistics()[stream]
            total = {k: (v + gs[k]) % (1 << 64) for k, v in total.items()}
        return total

    def so_set_targets(self, views, offsets) -> None:
        """SOSetTargets: released buffers refused, then the targets set and unbound in the IA."""
        try:
            views = list(views or [])
        except TypeError:
            raise InvalidDescError("SOSetTargets", "ppSOTargets", views, "expected a sequence "
                                   "of StreamOutputBufferView (or None)") from None
        for slot, v in enumerate(views):
            for field_name, b in (("buffer", getattr(v, "buffer", None)),
                                  ("BufferFilledSizeLocation",
                                   getattr(v, "filled_size_buffer", None))):
                if isinstance(b, Buffer) and b.released:
                    raise released_error(f"SOSetTargets slot {slot}", field_name, b)
        so = self.so()
        so.set_targets(views, offsets)
        if self.geometry_stage is not None:
            self.geometry_stage.clear_overflow()  # one overflow flag per stream (rules 9.7)
        self.ia.set_so_targets({id(t.buffer) for t in so.targets.values()})

    def so_filled_size(self, slot) -> int:
        """The filled size at ``slot``, refused when its counter's buffer was released."""
        t = self.so().targets.get(slot) if type(slot) is int else None
        counter = None if t is None else t.view.filled_size_buffer
        if isinstance(counter, Buffer) and counter.released:
            raise released_error("so_filled_size", f"SO target {slot} BufferFilledSizeLocation",
                                 counter)
        return self.so().filled_size(slot)

    # -- submission and capture ---------------------------------------------------------------
    def submit(self) -> None:
        """What :meth:`gpuia.gpu.Context.flush` does."""
        try:
            submitted = self.rec.submit()
        except Exception as e:  # noqa: BLE001 - wgpu validation at finish(): none submitted
            self.retire()  # nor will it be
            raise device_error(e, "flush") or UnsupportedError(
                f"wgpu refused the encoded draws: {e}") from None
        self.retire()
        if submitted:
            self.states.flushed()

    def begin_capture(self, route: str) -> None:
        """What :meth:`gpuia.gpu.Context.begin_capture` does."""
        route = self.capture.resolve_route(route)  # refused before anything is submitted
        self.flush()
        self.capture.begin(route)
        self.states.capturing = True
        self.states.invalidate()

    def end_capture(self, windows: bool = False) -> Capture:
        """What :meth:`gpuia.gpu.Context.end_capture` does."""
        if not self.capture.active:
            raise InvalidDescError("end_capture", None, None, "begin_capture was not called")
        self.states.capturing = False
        self.states.invalidate()
        try:
            return self.capture.end(windows)
        finally:
            self.retire()

    def _empty_gs_draw(self) -> None:
        """A geometry shader draw of no vertex or instance: a running GS capture still numbers
        it (its draws are numbered as the case's are)."""
        stage = self.geometry_stage
        if stage is not None and stage.capture is not None:
            stage.capture.skip()

    def begin_gs_capture(self) -> None:
        """What :meth:`gpuia.gpu.Context.begin_gs_capture` does."""
        self.flush()
        self.geometry().capture = GSCapture(self.device)

    def end_gs_capture(self) -> GSCaptured:
        """What :meth:`gpuia.gpu.Context.end_gs_capture` does."""
        stage = self.geometry_stage
        if stage is None or stage.capture is None:
            raise InvalidDescError("end_gs_capture", None, None,
                                   "begin_gs_capture was not called")
        capture, stage.capture = stage.capture, None
        self.flush()
        return capture.result()
