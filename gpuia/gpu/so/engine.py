"""Stream Output on the GPU: the engine a :class:`~gpuia.gpu.context.Context` calls.

:class:`SOEngine` belongs to a context and is its one door to Stream Output: SOSetTargets, the
filled sizes and statistics read back, each draw's compute work and DrawAuto's. It holds the
bound targets (D3D12_STREAM_OUTPUT_BUFFER_VIEWs: a data buffer, BufferLocation, SizeInBytes and
the buffer and offset of the 32-bit BufferFilledSize counter) and hands the jobs to its parts:

* :mod:`gpuia.gpu.so.targets`: the views checked and bound, gpuia's own counters (D3D11 style,
  for targets given without a counter buffer) and each buffer's last view;
* :mod:`gpuia.gpu.so.statistics`: the overflow flag and the 64-bit statistics, and the host's
  copy of what the prepare step reads;
* :mod:`gpuia.gpu.so.plan`, :mod:`gpuia.gpu.so.passes`, :mod:`gpuia.gpu.so.chunked`: each
  draw's plan and its prepare, main, fused or chunked dispatches (after the GPU index pass,
  :mod:`gpuia.gpu.ia.index_pass`, for an indexed strip whose values may cut), encoded into the
  context's command encoder in submission order, so consecutive draws append and later draws
  (DrawAuto included) see the counters on the GPU;
* :mod:`gpuia.gpu.so.draw_auto`: DrawAuto's vertex count, on the GPU.

A call that raises changes nothing: SOSetTargets checks every view before it binds any, and a
draw is planned (and refused) before anything is recorded.
"""

from __future__ import annotations

import numpy as np

from ...d3d.so_declaration import ResolvedStreamOutput
from ...errors import InvalidDescError
from ...wgsl.so_pass import SO_STATE_WORDS
from ..device import Buffer
from .draw_auto import DrawAutoPass
from .passes import SOPasses
from .statistics import HostState, stats_value
from .targets import SOCounters, SOTargetBinding, checked_views

__all__ = ["SOEngine", "SOTargetBinding"]


class SOEngine:
    """Stream Output of one context (see the module docstring), through a narrow interface:

    Arguments:
        device: the gpuia Device; ``pipelines``: the context's PipelineCache.
        recorder: the context's Recorder: ``compute_encoder()``, ``keep(obj)``,
            ``next_block(...)`` and ``ring`` (per-draw uniform blocks), ``pulled_group(state,
            compute=True)``, ``fill_arena(state)``.
        ia: the context's IAState (its ``index`` view).
        cbv_group: returns the bind group of the bound root constant buffers.
        flush: submits the context's pending work.
    """

    def __init__(self, device, pipelines, recorder, ia, cbv_group, flush):
        self.device = device
        self.pipelines = pipelines
        self.recorder = recorder
        self.ia = ia
        self.cbv_group = cbv_group
        self.flush = flush
        self.targets: dict[int, SOTargetBinding] = {}
        self.counters = SOCounters(device.device)
        self.host = HostState()
        self.passes = SOPasses(device, pipelines, recorder, ia, cbv_group, flush, self.host,
                               self.counters.is_own)
        self.state = self.passes.state
        self.stats = self.passes.stats
        self.draws = self.passes.draws  # how each draw's prepare step ran
        self.draw_auto = DrawAutoPass(device, recorder)

    # -- targets -----------------------------------------------------------------------------
    def set_targets(self, views, offsets=None) -> None:
        """Bind SO targets to output slots 0..len(views)-1; the rest are unbound. Every view is
        checked first (:func:`~gpuia.gpu.so.targets.checked_views`): a refused call changes
        nothing. Pending work is submitted before the counters are written, so the new filled
        sizes apply only to later draws; the overflow flag is cleared."""
        checked = checked_views(self.device, list(views or []), offsets)
        # Every view is valid: only now change state.
        bound = self.counters.bind(checked)
        self.flush()  # counter writes must land after every draw already encoded
        q = self.device.device.queue
        for counter, offset, value in bound.writes:
            q.write_buffer(counter, offset, np.array([value], np.uint32))
        q.write_buffer(self.state, 0, np.zeros(SO_STATE_WORDS, np.uint32))  # clears overflow
        for counter, value in bound.known:
            self.host.set_counter(counter, value)
        self.host.overflowed = False
        self.targets = bound.targets
        self.passes.targets_changed()

    def counter_count(self) -> int:
        """BufferFilledSize counters gpuia made for targets given without one."""
        return self.counters.count()

    def counter_of(self, buf: Buffer):
        """(counter wgpu buffer, counter byte offset, BufferLocation) of the last SO target view
        over ``buf``, bound now or not, or None if it never was a target."""
        return self.counters.last_view(buf)

    # -- statistics --------------------------------------------------------------------------
    def statistics(self) -> dict[str, int]:
        """D3D12_QUERY_DATA_SO_STATISTICS of stream 0 since the context was created."""
        self.flush()
        stats = stats_value(np.frombuffer(self.device.device.queue.read_buffer(self.stats),
                                          np.uint32))
        self.host.stats = stats  # read back: known again
        return {"NumPrimitivesWritten": stats[0], "PrimitivesStorageNeeded": stats[1]}

    def filled_size(self, slot: int) -> int:
        """The BufferFilledSize of the target bound at ``slot`` (reads it back)."""
        t = self.targets.get(slot)
        if t is None:
            raise InvalidDescError("filled_size", "slot", slot, "no SO target bound there")
        self.flush()
        data = self.device.device.queue.read_buffer(t.counter, t.counter_offset, 4)
        value = int(np.frombuffer(data, np.uint32)[0])
        if self.counters.is_own(t.counter):
            self.host.set_counter(t.counter, value)
        return value

    # -- per draw ----------------------------------------------------------------------------
    def encode(self, state, so: ResolvedStreamOutput, draw, cut) -> None:
        """Encode the Stream Output of one draw: one fused dispatch where the host knows what
        the prepare step reads (:mod:`gpuia.gpu.so.statistics`), else a prepare and a main
        dispatch (after the GPU index pass, in the list order), or, for targets larger than a
        storage binding, a host prepare step and one main dispatch per chunk.

        Refused with :class:`UnsupportedError` before anything is recorded: more storage
        buffers than one compute stage has; 2**32 primitives or more (a draw's primitives are
        counted in 32 bits on the GPU; in the list order, the most the draw has without cuts);
        more output vertices than one dispatch holds."""
        self.passes.encode(state, so, draw, cut, self.targets)

    def encode_draw_auto_args(self, counter, counter_offset: int, location: int, ia_offset: int,
                              stride: int):
        """Encode the compute step of DrawAuto; returns the indirect-args buffer it fills."""
        return self.draw_auto.encode(counter, counter_offset, location, ia_offset, stride)
