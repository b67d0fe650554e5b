"""The compute work of one draw's Stream Output, encoded into the context's command encoder.

For each draw, after :func:`~gpuia.gpu.so.plan.plan_draw` has refused what it refuses (so a
refused draw records nothing), :class:`SOPasses` encodes, in submission order (consecutive
draws append, later draws and DrawAuto see the counters on the GPU):

* in the list order, the GPU index pass over the index buffer where it lives: its list stream
  gives one instance's SV_VertexIDs, its args the primitive counts (copied into the draw's SO
  block on the GPU) and the main dispatch's size (an indirect dispatch), nothing read back;
* where the host prepares the draw, one ``gpuia_so_fused`` dispatch over the written
  primitives; else a ``gpuia_so_prepare`` dispatch of one invocation and a ``gpuia_so_main``
  dispatch over every vertex the draw may write;
* for targets larger than a storage binding, a host prepare step and one main dispatch per
  chunk (:mod:`gpuia.gpu.so.chunked`; the index pass's counts are then read back).

The host's copy of the prepare step's inputs is advanced after a draw it prepared and forgotten
after one the GPU counted. Bind groups are reused while the buffers they bind stay the same.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...d3d.so_declaration import ResolvedStreamOutput
from ...wgsl.so_pass import SO_BLOCK_WORDS, VERTICES_PER_THREAD, WORKGROUP, SOVertexOrder
from ..ia.index_pass import (
    ARGS_DISPATCH,
    ARGS_NEEDED,
    ARGS_PRIMITIVES,
    IndexStreams,
    encode_index_pass,
)
from ..vertex.plan import DrawPath
from .block import SO_NEEDED, SO_PRIMITIVES, fill_so_block
from .chunked import ChunkedPass
from .plan import SODrawPlan, plan_draw
from .programs import SOPrograms
from .statistics import STATE_BYTES, STATS_BYTES, HostState

__all__ = ["SOPasses"]


class SOPasses:
    """The per-draw compute work of one context's Stream Output (module docstring).

    Arguments:
        device: the gpuia Device; ``pipelines``: the context's PipelineCache.
        recorder: the context's Recorder; ``ia``: its IAState (its ``index`` view).
        cbv_group: returns the bind group of the bound root constant buffers.
        flush: submits the context's pending work.
        host: the host's :class:`~gpuia.gpu.so.statistics.HostState`; ``is_own``: whether a
            counter wgpu buffer is one of gpuia's own.
    """

    def __init__(self, device, pipelines, recorder, ia, cbv_group, flush, host: HostState,
                 is_own):
        self.device = device
        self.pipelines = pipelines
        self.recorder = recorder
        self.ia = ia
        self.flush = flush
        self.host = host
        dev = device.device
        self.state = dev.create_buffer(size=STATE_BYTES,
                                       usage="STORAGE|UNIFORM|COPY_DST|COPY_SRC")
        self.stats = dev.create_buffer(size=STATS_BYTES, usage="STORAGE|COPY_DST|COPY_SRC")
        self.programs = SOPrograms(device, pipelines, cbv_group)
        self.chunked = ChunkedPass(device, recorder, self.programs, (self.state, self.stats),
                                   host, is_own)
        self.draws = {"fused": 0, "prepared": 0}  # how each draw's prepare step ran
        # Bind groups reused while the buffers they bind stay the same: (key, group). The key
        # holds the buffers themselves (wgpu buffers compare by identity), so a freed buffer's
        # id cannot be mistaken for a new one's.
        self._kept2: tuple | None = None
        self._kept0: tuple | None = None
        # Two stand-ins: one read-only (no index buffer / vertex list), one read-write (no
        # target); one buffer in both roles in a dispatch is a usage conflict wgpu refuses.
        self._dummy = dev.create_buffer(size=16, usage="STORAGE")
        self._dummy_target = dev.create_buffer(size=16, usage="STORAGE")

    def targets_changed(self) -> None:
        """The bound targets changed: the targets' bind group is made again."""
        self._kept2 = None

    def encode(self, state, so: ResolvedStreamOutput, draw, cut, targets: dict) -> None:
        """Encode the Stream Output of ``draw`` (module docstring) under the resolved draw
        state ``state``, the strip cut value ``cut`` and the bound ``targets``; refusals are
        :func:`~gpuia.gpu.so.plan.plan_draw`'s, raised before anything is recorded."""
        plan = plan_draw(self.device, self.programs, self.host, self.ia.index, targets, state,
                         so, draw, cut)
        vpp = state.topology.vertices
        if not plan.pipelines:  # fused, nothing written nor counted: nothing to record
            assert plan.host is not None
            self.host.advance(so, targets, vpp, plan.host)
            self.draws["fused"] += 1
            return
        rec = self.recorder
        ring = rec.ring
        # Uniform blocks: the vertex-pulling block, then the SO block (then one per chunk).
        # A chunked draw first submits what is pending: its prepare step reads counters back.
        if plan.chunked or ring.room() < 2:
            self.flush()
        ip, ppi = self._index_pass(state, draw, cut, plan)
        draw_offset = rec.next_block(state, DrawPath.PULLING, draw, None)
        so_offset = rec.next_block(state, DrawPath.PULLING, draw, None)
        gpu_counts = ip is not None and not plan.chunked  # filled from the args on the GPU
        fill_so_block(ring.block(so_offset), so, targets, draw, plan, ppi, gpu_counts,
                      self.ia.index)
        g0, g0_main, aux = self._group0(plan, ip)
        if state.static.arena:
            rec.fill_arena(state)
        g1 = rec.pulled_group(state, compute=True)
        rec.keep((g0, g0_main, g1, plan.unique, aux))
        if plan.chunked:  # binds windows of the targets, never a whole one (over the limit)
            self.chunked.encode(state, so, targets, ppi * draw.instance_count,
                                (plan.pipelines[1], g0_main, g1), plan.unique,
                                (draw_offset, so_offset))
            self.draws["prepared"] += 1
            return
        if plan.host is not None:
            self.host.advance(so, targets, vpp, plan.host)
            self.draws["fused"] += 1
        else:
            self.host.forget(so, targets)
            self.draws["prepared"] += 1
        g2 = self._group2_of(plan.unique)
        rec.keep(g2)
        self._dispatch(state, plan, ip if gpu_counts else None, (g0, g0_main, g1, g2),
                       (draw_offset, so_offset))

    def _index_pass(self, state, draw, cut, plan: SODrawPlan):
        """In the list order, encode the GPU index pass: (its IndexPass, primitives per
        instance: the cut-free bound, or for a chunked draw the pass's count read back);
        else (None, the plan's primitives per instance)."""
        if plan.mode is not SOVertexOrder.LIST:
            return None, plan.primitives
        rec = self.recorder
        dev = self.device
        # The args' first instance is not read here (the per-draw block has it), so any
        # adapter can run it.
        ip = encode_index_pass(dev, rec.compute_encoder(),
                               replace(draw, start_instance_location=0), state.topology,
                               index_buffer=self.ia.index, strip_cut_value=cut,
                               streams=IndexStreams.LIST,
                               items_per_group=WORKGROUP * VERTICES_PER_THREAD)
        rec.keep(ip.keepalive)
        if not plan.chunked:
            return ip, plan.primitives
        # the chunks are sized on the host: the pass's counts are read back
        self.flush()
        words = np.frombuffer(dev.device.queue.read_buffer(ip.args), np.uint32)
        return ip, int(words[ARGS_PRIMITIVES])

    def _group0(self, plan: SODrawPlan, ip):
        """(group 0 of the prepare and fused passes, group 0 of the main pass, the aux buffer
        they bind: the index pass's list, the index buffer or a stand-in)."""
        ib = self.ia.index
        if ip is not None:
            aux = ip.list  # asked for: the pass made its list stream
            assert aux is not None
        elif plan.index_size and ib is not None and ib.buffer is not None:
            aux = ib.buffer.wgpu
        else:
            aux = self._dummy
        ring = self.recorder.ring
        n_pulled = max(1, plan.n_pulled)
        key0 = (aux, ring.buffer, n_pulled)
        if ip is None and self._kept0 is not None and self._kept0[0] == key0:
            g0, g0_main = self._kept0[1]
            return g0, g0_main, aux
        dev = self.device.device
        layout = self.pipelines.so_group0_layout
        common = [
            {"binding": 0, "resource": {"buffer": ring.buffer, "offset": 0,
                                        "size": self.pipelines.draw_block_size(n_pulled)}},
            {"binding": 1, "resource": {"buffer": ring.buffer, "offset": 0,
                                        "size": 4 * SO_BLOCK_WORDS}},
            {"binding": 4, "resource": {"buffer": aux, "offset": 0, "size": aux.size}},
        ]
        g0 = dev.create_bind_group(layout=layout(n_pulled), entries=[
            *common,
            {"binding": 2, "resource": {"buffer": self.state, "offset": 0,
                                        "size": STATE_BYTES}},
            {"binding": 3, "resource": {"buffer": self.stats, "offset": 0,
                                        "size": STATS_BYTES}}])
        g0_main = dev.create_bind_group(layout=layout(n_pulled, main=True), entries=[
            *common, {"binding": 5, "resource": {"buffer": self.state, "offset": 0,
                                                 "size": STATE_BYTES}}])
        # A list stream is this draw's own: its groups are not worth keeping.
        self._kept0 = None if ip is not None else (key0, (g0, g0_main))
        return g0, g0_main, aux

    def _group2_of(self, unique: tuple):
        """The group-2 bind group of the targets' buffers ``unique`` (a stand-in for none)."""
        if self._kept2 is None or self._kept2[0] != unique:
            entries = [{"binding": k, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                       for k, b in enumerate(unique or [self._dummy_target])]
            self._kept2 = (unique, self.device.device.create_bind_group(
                layout=self.pipelines.so_group2_layout(max(1, len(unique))), entries=entries))
        return self._kept2[1]

    def _dispatch(self, state, plan: SODrawPlan, counted, groups: tuple,
                  offsets: tuple[int, int]) -> None:
        """Encode the fused dispatch, or the prepare and main dispatches, with ``groups`` (group
        0, main group 0, 1, 2); ``counted``: the index pass whose args hold the primitive counts
        and the main dispatch's size, or None."""
        rec = self.recorder
        g0, g0_main, g1, g2 = groups
        enc = rec.compute_encoder()
        if counted is not None:
            # Primitives per instance and needed exist only in the pass's args. The ring is
            # uploaded at submit, before these commands run, so the copies win over the zeros.
            for word, to in ((ARGS_PRIMITIVES, SO_PRIMITIVES), (ARGS_NEEDED, SO_NEEDED)):
                enc.copy_buffer_to_buffer(counted.args, 4 * word, rec.ring.buffer,
                                          offsets[1] + 4 * to, 4)
        cp = enc.begin_compute_pass()
        bind = self.programs.bind
        dynamic = list(offsets)
        if plan.host is not None:
            assert plan.groups is not None  # sized by what the host prepare step writes
            bind(cp, plan.pipelines[0], (g0, g1, g2), dynamic, state.cbvs)
            cp.dispatch_workgroups(*plan.groups)
            cp.end()
            return
        prepare, main = plan.pipelines
        bind(cp, prepare, (g0, g1, g2), dynamic, state.cbvs)
        cp.dispatch_workgroups(1)
        if plan.groups is not None:
            bind(cp, main, (g0_main, g1, g2), dynamic, state.cbvs)
            if counted is not None:
                # Sized by the pass for every vertex of its primitives; the host bound (the
                # cut-free count) keeps it within one dispatch.
                cp.dispatch_workgroups_indirect(counted.args, ARGS_DISPATCH)
            else:
                cp.dispatch_workgroups(*plan.groups)
        cp.end()
