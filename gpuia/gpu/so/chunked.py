"""Stream Output to targets larger than one storage binding, in chunks.

A binding of a target can hold at most ``max-storage-buffer-binding-size`` bytes, so each chunk
of output vertices binds a window of every target that holds the chunk's records, aligned to
``min-storage-buffer-offset-alignment``, and its SO block says where the target starts relative
to the window. The chunks are sized on the host, so the prepare step runs on the host too:
the counters, the overflow flag and the statistics are read back (the draw waits for earlier
GPU work), the prepare step's rules applied (:func:`~gpuia.gpu.so.statistics.prepare_step`) and
the results written back before the chunks run; afterwards the host knows gpuia's own counters,
the flag and the statistics.

Refused with :class:`~gpuia.errors.UnsupportedError`: two declared slots on views of one buffer
(their windows would be one binding), a record larger than a storage binding, more chunks than
the ring of uniform blocks holds.
"""

from __future__ import annotations

import numpy as np

from ...d3d.so_declaration import ResolvedStreamOutput
from ...errors import UnsupportedError
from ..vertex.plan import DrawPath
from .block import SO_T_BASE, SO_T_END, slot_word
from .programs import SOPrograms, dispatch_size
from .statistics import (
    STATE_BASE,
    STATE_OVERFLOWED,
    STATE_WRITTEN,
    HostState,
    prepare_step,
    stats_value,
    stats_words,
)

__all__ = ["ChunkedPass"]

_U32 = 0xFFFFFFFF


class _NoDraw:
    """Draw arguments for an extra uniform block (a Stream Output chunk): nothing to fill."""

    indexed = False
    start_vertex_location = 0
    start_instance_location = 0


_NO_DRAW = _NoDraw()


def _strides(so: ResolvedStreamOutput) -> dict[int, int]:
    """Bytes of one record of each declared slot."""
    return {s.slot: s.stride for s in so.slots}


class ChunkedPass:
    """The chunked main pass of one context (module docstring).

    Arguments:
        device: the gpuia Device; ``recorder``: the context's Recorder; ``programs``: its
            :class:`~gpuia.gpu.so.programs.SOPrograms`.
        buffers: the (SO state, statistics) wgpu buffers; ``host``: the host's
            :class:`~gpuia.gpu.so.statistics.HostState`.
        is_own: whether a counter wgpu buffer is one of gpuia's own.
    """

    def __init__(self, device, recorder, programs: SOPrograms, buffers: tuple,
                 host: HostState, is_own):
        self.device = device
        self.recorder = recorder
        self.programs = programs
        self.state, self.stats = buffers
        self.host = host
        self.is_own = is_own

    def prepare(self, so: ResolvedStreamOutput, targets: dict, vertices: int,
                needed: int) -> tuple[int, dict[int, int]]:
        """The prepare step of a draw needing ``needed`` primitives, on the host from what it
        reads back, its results written back: (primitives written, {slot: BufferFilledSize
        before})."""
        q = self.device.device.queue
        st = np.frombuffer(q.read_buffer(self.state), np.uint32).copy()
        stats = np.frombuffer(q.read_buffer(self.stats), np.uint32)

        def read_counter(t) -> int:
            return int(np.frombuffer(q.read_buffer(t.counter, t.counter_offset // 16 * 16, 16),
                                     np.uint32)[(t.counter_offset % 16) // 4])

        step = prepare_step(so, targets, vertices, needed, bool(st[STATE_OVERFLOWED]),
                            stats_value(stats), read_counter)
        assert step is not None  # every counter was read back
        written, overflowed, bases, total64 = step
        st[STATE_WRITTEN], st[STATE_OVERFLOWED] = written, int(overflowed)
        strides = _strides(so)
        for slot, filled in bases.items():
            st[STATE_BASE + slot] = filled
            t = targets[slot]
            value = filled + written * vertices * strides[slot]
            q.write_buffer(t.counter, t.counter_offset, np.array([value], np.uint32))
            # read back and written here: exact (the application's own counters stay unknown)
            self.host.set_counter(t.counter, value if self.is_own(t.counter) else None)
        q.write_buffer(self.state, 0, st)
        self.host.overflowed, self.host.stats = overflowed, total64
        q.write_buffer(self.stats, 0, np.array(stats_words(total64), np.uint32))
        return written, bases

    def _chunk(self, so: ResolvedStreamOutput, targets: dict, bases: dict[int, int],
               total: int) -> int:
        """Output vertices per chunk: each bound slot's records of a chunk fit one binding
        past the alignment slack."""
        caps = self.device.caps
        datas = [targets[s.slot].buffer.wgpu for s in so.slots if s.slot in bases]
        if len({id(b) for b in datas}) < len(datas):
            raise UnsupportedError("Stream Output to two views of one buffer larger than a "
                                   "storage binding")
        align = caps.min_storage_buffer_offset_alignment
        span = caps.max_storage_buffer_binding_size // 16 * 16 - align - 16
        strides = _strides(so)
        chunk = min(span // strides[slot] for slot in bases)
        if chunk < 1:
            raise UnsupportedError("an SO record is larger than a storage binding")
        ring = self.recorder.ring
        if (total + chunk - 1) // chunk > ring.room():
            raise UnsupportedError(f"{total} SO vertices need more than "
                                   f"{ring.capacity} chunks of {chunk}")
        return chunk

    def _group2(self, so: ResolvedStreamOutput, targets: dict, bases: dict[int, int],
                unique, span: tuple[int, int], block):
        """The group-2 bind group of output vertices ``span`` (first, past the last): a window
        of each target holding their records, the rest whole up to one binding; each slot's
        BufferLocation in ``block`` made relative to its window."""
        caps = self.device.caps
        align = caps.min_storage_buffer_offset_alignment
        windows = {}
        strides = _strides(so)
        for slot, filled in bases.items():
            t = targets[slot]
            first = t.view.offset + filled + span[0] * strides[slot]
            last = t.view.offset + filled + span[1] * strides[slot]
            woff = first // align * align
            wsize = min((last - woff + 15) // 16 * 16, t.buffer.wgpu.size - woff)
            windows[id(t.buffer.wgpu)] = (woff, wsize)
            block[slot_word(slot, "location")] = (t.view.offset - woff) & _U32
        entries = []
        whole = caps.max_storage_buffer_binding_size // 16 * 16
        for k, b in enumerate(unique):
            woff, wsize = windows.get(id(b), (0, min(b.size, whole)))
            entries.append({"binding": k, "resource": {"buffer": b, "offset": woff,
                                                        "size": wsize}})
        return self.device.device.create_bind_group(
            layout=self.programs.cache.so_group2_layout(max(1, len(unique))), entries=entries)

    def encode(self, state, so: ResolvedStreamOutput, targets: dict, needed: int, main: tuple,
               unique, offsets: tuple[int, int]) -> None:
        """Prepare a draw needing ``needed`` primitives on the host, then encode its main pass
        in chunks: ``main`` is (the main pipeline, its group 0, group 1), ``unique`` the
        group-2 buffers, ``offsets`` the byte offsets of the draw's vertex-pulling block and
        SO block in the ring (each chunk's block is a copy of the SO block)."""
        rec = self.recorder
        vpp = state.topology.vertices
        written, bases = self.prepare(so, targets, vpp, needed)
        total = written * vpp
        if not total:
            return
        chunk = self._chunk(so, targets, bases, total)
        draw_offset, so_offset = offsets
        base_block = rec.ring.block(so_offset).copy()
        pipeline, g0_main, g1 = main
        for t0 in range(0, total, chunk):
            t1 = min(total, t0 + chunk)
            block_offset = rec.next_block(state, DrawPath.PULLING, _NO_DRAW, None)
            block = rec.ring.block(block_offset)
            block[:] = base_block
            block[SO_T_BASE], block[SO_T_END] = t0, t1
            g2 = self._group2(so, targets, bases, unique, (t0, t1), block)
            rec.keep(g2)
            cp = rec.compute_encoder().begin_compute_pass()
            self.programs.bind(cp, pipeline, (g0_main, g1, g2), [draw_offset, block_offset],
                               state.cbvs)
            cp.dispatch_workgroups(*dispatch_size(self.device.caps, t1 - t0))
            cp.end()
