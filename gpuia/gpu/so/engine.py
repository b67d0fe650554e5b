"""Stream Output on the GPU: targets, counters, statistics and the per-draw compute work.

:class:`SOEngine` belongs to a :class:`~gpuia.gpu.context.Context`. It holds the bound targets
(D3D12_STREAM_OUTPUT_BUFFER_VIEWs: a data buffer, BufferLocation, SizeInBytes and the buffer and
offset of the 32-bit BufferFilledSize counter), the overflow state, the 64-bit statistics, and
the compute pipelines of ``gpuia.wgsl.so_pass``. For each draw the context hands it, it encodes
a prepare dispatch and a main dispatch into the context's command encoder, in submission order,
so consecutive draws append and later draws (DrawAuto included) see the counters on the GPU.

The output vertices of a draw come in closed form from the topology table (non-indexed draws,
and indexed draws none of whose values can cut: a list topology, no cut value, 16-bit indices
under 0xFFFFFFFF, a NULL view) or, for an indexed strip whose values may cut, from the GPU
index pass (:mod:`gpuia.gpu.ia.index_pass`) over the index buffer where it lives: its list stream
gives one instance's SV_VertexIDs, and its args the primitive counts and the main dispatch's
size, so nothing is read back (except for targets larger than a storage binding, whose chunks
are sized on the host).

Targets given without a counter buffer get one of gpuia's own (D3D11 style), initialized to the
offset passed to :meth:`set_targets` (-1: keep appending where the buffer's counter stands).

The host keeps a copy of what the prepare step reads where it knows it: the value of each of
gpuia's own counters, the overflow flag and the statistics (:class:`_HostState`). Set by
:meth:`set_targets`, advanced by each draw in the closed-form order, learnt again from a
readback; a draw in the list order (its primitives are counted on the GPU) or a target with the
application's own counter buffer (which anything may write) makes them unknown. While every
value a draw reads is known, the host computes the prepare step itself (the same rules) and the
draw is one dispatch (``gpuia_so_fused``), not two.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...d3d.so_declaration import ResolvedStreamOutput
from ...d3d.so_desc import StreamOutputBufferView
from ...errors import InvalidDescError, UnsupportedError
from ...wgsl.blocks import DRAW_AUTO, SO_BLOCK, SO_SLOT, SO_STATE
from ...wgsl.so_pass import (
    SO_BLOCK_WORDS,
    SO_HEADER_WORDS,
    SO_SLOT_WORDS,
    SO_STATE_WORDS,
    VERTICES_PER_THREAD,
    WORKGROUP,
    SOProgramSpec,
    SOVertexOrder,
    draw_auto_program,
    so_program,
)
from ..buffers import Buffer
from ..cache import remember
from ..ia.index_pass import (
    ARGS_DISPATCH,
    ARGS_NEEDED,
    ARGS_PRIMITIVES,
    IndexStreams,
    encode_index_pass,
    index_pass_spec,
)
from ..vertex.pipelines import checked_create, compile_module, pulled_bindings, vertex_text
from ..vertex.plan import DrawPath

__all__ = ["SOEngine", "SOTargetBinding"]

_U32 = 0xFFFFFFFF
# Words of the SO block, its slot entries, the SO state and DrawAuto's block, from their tables.
(_SO_INSTANCES, _SO_PRIMITIVES_WORD, _SO_NEEDED_WORD, _SO_START_INDEX, _SO_IB_BASE, _SO_IB_SIZE,
 _SO_T_BASE, _SO_T_END, _SO_FUSED, _SO_STATS) = (SO_BLOCK.word(name) for name in (
    "instance_count", "prims_per_instance", "needed", "start_index", "ib_base", "ib_size",
    "t_base", "t_end", "fused", "stats"))
_SLOT_LOCATION, _SLOT_SIZE, _SLOT_COUNTER, _SLOT_FILLED = (SO_SLOT.word(name) for name in (
    "location", "size", "counter", "filled"))
_STATE_WRITTEN, _STATE_OVERFLOWED, _STATE_BASE = (SO_STATE.word(name) for name in (
    "written", "overflowed", "base"))
_STATE_BYTES = 4 * SO_STATE_WORDS
_AUTO_WORDS = DRAW_AUTO.words()
_AUTO_COUNTER, _AUTO_LOCATION, _AUTO_IA_OFFSET, _AUTO_STRIDE = (DRAW_AUTO.word(name) for name in (
    "counter_word", "location", "ia_offset", "stride"))


class _NoDraw:
    """Draw arguments for an extra uniform block (a Stream Output chunk): nothing to fill."""

    indexed = False
    start_vertex_location = 0
    start_instance_location = 0


_NO_DRAW = _NoDraw()


@dataclass(eq=False)
class SOTargetBinding:
    """One bound SO target, resolved to what the shaders address."""

    view: StreamOutputBufferView
    buffer: Buffer
    counter: object  # wgpu buffer holding the counter
    counter_offset: int


def _prepare_step(so: ResolvedStreamOutput, targets: dict, vertices: int, needed: int,
                  overflowed: bool, stats: tuple[int, int], filled_of):
    """The prepare step of a draw needing ``needed`` primitives, on the host, from the overflow
    flag, the statistics and ``filled_of(binding)`` (each bound slot's BufferFilledSize, or
    None when it is not known): ``(written, overflowed after, {slot: BufferFilledSize before},
    statistics after)``, or None when a BufferFilledSize is not known. The rules of
    ``gpuia_so_prepare`` (9.7, 9.8, 10.1, 10.2)."""
    written = 0 if overflowed else needed
    filled: dict[int, int] = {}
    for s in so.slots:
        t = targets.get(s.slot)
        if t is None:
            written = 0  # no target: full (9.8)
            continue
        f = filled_of(t)
        if f is None:
            return None
        size = t.view.size_in_bytes
        room = size - f if f <= size else 0
        written = min(written, room // (vertices * s.stride))
        filled[s.slot] = f
    after = ((stats[0] + written) % (1 << 64), (stats[1] + needed) % (1 << 64))
    return written, overflowed or written < needed, filled, after


class _HostState:
    """What the host knows of the prepare step's inputs (module docstring): ``counters``,
    id(counter wgpu buffer) -> (that buffer, its value), for gpuia's own counters only;
    ``overflowed`` and ``stats`` (NumPrimitivesWritten, PrimitivesStorageNeeded), None where
    only the GPU knows them."""

    def __init__(self):
        self.counters: dict[int, tuple] = {}
        self.overflowed: bool | None = False
        self.stats: tuple[int, int] | None = (0, 0)

    def counter(self, t: SOTargetBinding) -> int | None:
        known = self.counters.get(id(t.counter))
        return known[1] if known is not None and known[0] is t.counter else None

    def set_counter(self, counter, value: int | None) -> None:
        """What the host knows of the counter wgpu buffer ``counter``: ``value``, or nothing."""
        if value is None:
            self.counters.pop(id(counter), None)
        else:
            remember(self.counters, id(counter), (counter, value))

    def prepare(self, so: ResolvedStreamOutput, targets: dict, vertices: int, needed: int):
        """:func:`_prepare_step` from what the host knows, or None where it does not."""
        if self.overflowed is None or self.stats is None:
            return None
        return _prepare_step(so, targets, vertices, needed, self.overflowed, self.stats,
                             self.counter)

    def advance(self, so: ResolvedStreamOutput, targets: dict, vertices: int, result) -> None:
        """After a draw whose prepare step :meth:`prepare` computed (``result``)."""
        written, overflowed, filled, stats = result
        for s in so.slots:
            t = targets.get(s.slot)
            if t is not None:
                self.set_counter(t.counter, filled[s.slot] + written * vertices * s.stride)
        self.overflowed, self.stats = overflowed, stats

    def forget(self, so: ResolvedStreamOutput, targets: dict) -> None:
        """After a draw the GPU counted: its targets' counters, the flag and the statistics
        are the GPU's alone."""
        for s in so.slots:
            t = targets.get(s.slot)
            if t is not None:
                self.set_counter(t.counter, None)
        self.overflowed = self.stats = None


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
        dev = device.device
        self.targets: dict[int, SOTargetBinding] = {}
        self.state = dev.create_buffer(size=_STATE_BYTES,
                                       usage="STORAGE|UNIFORM|COPY_DST|COPY_SRC")
        self.stats = dev.create_buffer(size=16, usage="STORAGE|COPY_DST|COPY_SRC")
        self._counters: dict[int, tuple] = {}  # id(Buffer) -> (Buffer, counter buffer, offset)
        self._pipelines: dict = {}
        # Bind groups reused while the buffers they bind stay the same: (key, group). The key
        # holds the buffers themselves (wgpu buffers compare by identity), so a freed buffer's
        # id cannot be mistaken for a new one's.
        self._group2 = None
        self._group0 = None
        # Two stand-ins: one read-only (no index buffer / vertex list), one read-write (no
        # target); one buffer in both roles in a dispatch is a usage conflict wgpu refuses.
        self._dummy = dev.create_buffer(size=16, usage="STORAGE")
        self._dummy_target = dev.create_buffer(size=16, usage="STORAGE")
        self._auto_pipeline = None
        self._last_view: dict[int, tuple] = {}  # id(Buffer) -> (Buffer, counter, offset, location)
        self._modules: dict = {}
        self.host = _HostState()
        self.draws = {"fused": 0, "prepared": 0}  # how each draw's prepare step ran

    # -- targets -----------------------------------------------------------------------------
    def set_targets(self, views, offsets=None) -> None:
        """Bind SO targets to output slots 0..len(views)-1; the rest are unbound."""
        views = list(views or [])
        if len(views) > 4:
            raise InvalidDescError("SOSetTargets", "NumViews", len(views), "at most 4 targets")
        if offsets is not None and len(offsets) < len(views):
            raise InvalidDescError("SOSetTargets", "pOffsets", offsets,
                                   f"needs one offset per view ({len(views)})")
        dev = self.device
        new: dict[int, SOTargetBinding] = {}
        writes = []
        checked = []
        for slot, v in enumerate(views):
            if v is None:
                continue
            where = f"SOSetTargets slot {slot}"
            if not isinstance(v, StreamOutputBufferView):
                raise InvalidDescError(where, "view", v, "expected a StreamOutputBufferView")
            buf = v.buffer
            if not isinstance(buf, Buffer) or buf.device is not dev:
                raise InvalidDescError(where, "buffer", buf,
                                       "expected a gpuia Buffer created on this device")
            if "stream_output" not in buf.bind:
                raise InvalidDescError(where, "buffer", buf, "was not created with the "
                                       "stream_output bind flag (D3D10_BIND_STREAM_OUTPUT)")
            if v.offset % 4:
                raise InvalidDescError(where, "BufferLocation", v.offset,
                                       "must be a multiple of 4 (SO writes 32-bit words)")
            if v.filled_size_buffer is not None:
                cbuf = v.filled_size_buffer
                if not isinstance(cbuf, Buffer) or cbuf.device is not dev:
                    raise InvalidDescError(where, "BufferFilledSizeLocation", cbuf,
                                           "expected a gpuia Buffer created on this device")
                if v.filled_size_offset % 4 or v.filled_size_offset + 4 > cbuf.size:
                    raise InvalidDescError(where, "BufferFilledSizeLocation", v.filled_size_offset,
                                           f"must be a multiple of 4 inside the "
                                           f"{cbuf.size}-byte buffer")
                counter, coff = cbuf.wgpu, v.filled_size_offset
            else:
                counter = None  # gpuia's own counter for this buffer, made below
                coff = 0
            off = None if offsets is None else offsets[slot]
            if off is not None and off != -1 and off != _U32:
                if type(off) is not int or off < 0 or off % 4 or off > _U32:
                    raise InvalidDescError(where, "pOffsets", off,
                                           "a byte offset (multiple of 4, a 32-bit counter: "
                                           "rules 9.6) or -1 to append")
            checked.append((slot, v, buf, counter, coff, off))
        # Every view is valid: only now change state.
        # (counter, gpuia's own, its value now where the host sets it: None keeps what the
        # host knew of it; the application's counter buffer may be written by anything)
        host = []
        for slot, v, buf, counter, coff, off in checked:
            own = counter is None
            given = off if off is not None and off != -1 and off != _U32 else None  # not append
            value = given
            if own:
                known = self._counters.get(id(buf))
                if known is None or known[0] is not buf:
                    c = dev.device.create_buffer(size=16, usage="STORAGE|COPY_DST|COPY_SRC")
                    known = (buf, c, 0)
                    remember(self._counters, id(buf), known)
                    writes.append((c, 0, 0))  # new buffers start at 0 (rules 9.5)
                    value = 0 if given is None else given
                counter, coff = known[1], known[2]
            if given is not None:
                writes.append((counter, coff, given))
            # A buffer the GPU writes has no valid host copy any more (index planning, DrawAuto
            # and the reference must not read stale bytes).
            buf.host = None
            new[slot] = SOTargetBinding(v, buf, counter, coff)
            host.append((counter, own, value))
            # DrawAuto reads the filled size of the buffer's last SO view, after unbinding too.
            remember(self._last_view, id(buf), (buf, counter, coff, v.offset))
        self.flush()  # counter writes must land after every draw already encoded
        q = dev.device.queue
        for counter, offset, value in writes:
            q.write_buffer(counter, offset, np.array([value], np.uint32))
        q.write_buffer(self.state, 0, np.zeros(SO_STATE_WORDS, np.uint32))  # clears overflow
        for counter, own, value in host:
            if not own or value is not None:
                self.host.set_counter(counter, value if own else None)
        self.host.overflowed = False
        self.targets = new
        self._group2 = None

    def counter_count(self) -> int:
        """BufferFilledSize counters gpuia made for targets given without one."""
        return len(self._counters)

    def counter_of(self, buf: Buffer):
        """(counter wgpu buffer, counter byte offset, BufferLocation) of the last SO target view
        over ``buf``, bound now or not, or None if it never was a target."""
        known = self._last_view.get(id(buf))
        if known is None or known[0] is not buf:
            return None
        return known[1], known[2], known[3]

    # -- statistics --------------------------------------------------------------------------
    def statistics(self) -> dict[str, int]:
        """D3D12_QUERY_DATA_SO_STATISTICS of stream 0 since the context was created."""
        self.flush()
        w = np.frombuffer(self.device.device.queue.read_buffer(self.stats), np.uint32)
        stats = (int(w[0]) | int(w[1]) << 32, int(w[2]) | int(w[3]) << 32)
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
        if self._own(t.counter):
            self.host.set_counter(t.counter, value)
        return value

    def _own(self, counter) -> bool:
        """Whether the counter wgpu buffer is one gpuia made (never the application's)."""
        return any(k[1] is counter for k in self._counters.values())

    # -- per draw ----------------------------------------------------------------------------
    def _bindings(self, so: ResolvedStreamOutput):
        """Group-2 buffers (unique, data and counters) and per declared slot their bindings."""
        unique: list = []

        def index_of(b):
            for k, u in enumerate(unique):
                if u is b:
                    return k
            unique.append(b)
            return len(unique) - 1

        slots = []
        for s in so.slots:
            t = self.targets.get(s.slot)
            slots.append(None if t is None else (index_of(t.buffer.wgpu), index_of(t.counter)))
        return unique, tuple(slots)

    def _order(self, topo, draw, cut) -> SOVertexOrder:
        """Where the main pass finds each output vertex: in closed form, unless the draw's
        index values can cut (the index pass's own rule: an indexed strip, a cut value, indices
        wide enough to hold it, a bound view); cut runs are irregular, so the pass lists them."""
        if not draw.indexed:
            return SOVertexOrder.DIRECT
        spec = index_pass_spec(draw, topo, index_buffer=self.ia.index, strip_cut_value=cut,
                               streams=IndexStreams.LIST)
        return SOVertexOrder.LIST if spec.cuts else SOVertexOrder.DIRECT

    def encode(self, state, so: ResolvedStreamOutput, draw, cut) -> None:
        """Encode the Stream Output of one draw: one fused dispatch where the host knows what
        the prepare step reads (module docstring), else a prepare and a main dispatch (after
        the GPU index pass, in the list order), or, for targets larger than a storage binding,
        a host prepare step and one main dispatch per chunk.

        Refused with :class:`UnsupportedError` before anything is recorded: more storage
        buffers than one compute stage has; 2**32 primitives or more (a draw's primitives are
        counted in 32 bits on the GPU; in the list order, the most the draw has without cuts);
        more output vertices than one dispatch holds."""
        rec = self.recorder
        ring = rec.ring
        dev = self.device
        topo = state.topology
        vpp = topo.vertices
        mode = self._order(topo, draw, cut)
        ib = self.ia.index
        # Primitives per instance: exact in the direct order; in the list order the cut-free
        # count, the most there can be (the index pass counts the real ones on the GPU).
        ppi = topo.primitive_count(draw.count)
        most = ppi * draw.instance_count
        if most > _U32:
            raise UnsupportedError(
                f"Stream Output of {draw.instance_count} instances of {ppi} primitives "
                f"({most}{' at most' if mode is SOVertexOrder.LIST else ''}): the pass counts a "
                f"draw's primitives in 32 bits (at most {_U32})")
        unique, slot_bindings = self._bindings(so)
        vertex_bindings = 1 if state.static.arena else len(state.static.slots)
        storage = vertex_bindings + len(unique) + 3  # + state, statistics, aux
        if storage > dev.caps.max_storage_buffers_per_shader_stage:
            raise UnsupportedError(
                f"Stream Output needs {storage} storage buffers in one compute stage ("
                f"{vertex_bindings} vertex buffer bindings, {len(unique)} target and counter "
                f"buffers, 3 of gpuia's), the adapter has "
                f"{dev.caps.max_storage_buffers_per_shader_stage}")
        pulled = pulled_bindings(state.static.slots, state.static.arena)
        index_size = 0
        if draw.indexed and mode is SOVertexOrder.DIRECT:
            # A NULL view reads 0 everywhere (rules 5.5): the closed form with a view of 0 bytes
            # reads nothing, whatever the index size.
            index_size = 2 if ib is None else ib.index_size
        spec = SOProgramSpec(state.layout, state.signature, so, topo, pulled, slot_bindings,
                             max(1, len(unique)), mode, index_size, state.aligned,
                             state.aligned16)
        chunked = any(b.size > dev.caps.max_storage_buffer_binding_size for b in unique)
        # The host's prepare step, where it knows every value it reads (the closed-form order
        # needs exactly `most` primitives): one fused dispatch sized by what is written.
        host = (self.host.prepare(so, self.targets, vpp, most)
                if mode is SOVertexOrder.DIRECT and not chunked else None)
        if host is not None:
            fused = self._pipeline(spec, len(pulled), state.cbvs, "gpuia_so_fused")
            written = host[0]
            if written == 0 and most == 0:  # nothing written, nothing counted: nothing changes
                self.host.advance(so, self.targets, vpp, host)
                self.draws["fused"] += 1
                return
            groups: tuple[int, int] | None = self._dispatch_size(max(1, written * vpp))
        else:
            main = self._pipeline(spec, len(pulled), state.cbvs, "gpuia_so_main")
            prepare = self._pipeline(spec, len(pulled), state.cbvs, "gpuia_so_prepare")
            groups = self._dispatch_size(most * vpp) if most and not chunked else None
        # Uniform blocks: the vertex-pulling block, then the SO block (then one per chunk).
        # A chunked draw first submits what is pending: its prepare step reads counters back.
        if chunked or ring.room() < 2:
            self.flush()
        ip = None
        if mode is SOVertexOrder.LIST:
            # The args' first instance is not read here (the per-draw block has it), so any
            # adapter can run it.
            ip = encode_index_pass(dev, rec.compute_encoder(),
                                   replace(draw, start_instance_location=0), topo,
                                   index_buffer=ib, strip_cut_value=cut,
                                   streams=IndexStreams.LIST,
                                   items_per_group=WORKGROUP * VERTICES_PER_THREAD)
            rec.keep(ip.keepalive)
            if chunked:  # the chunks are sized on the host: the pass's counts are read back
                self.flush()
                words = np.frombuffer(dev.device.queue.read_buffer(ip.args), np.uint32)
                ppi = int(words[ARGS_PRIMITIVES])
        needed = ppi * draw.instance_count
        draw_offset = rec.next_block(state, DrawPath.PULLING, draw, None)
        so_offset = rec.next_block(state, DrawPath.PULLING, draw, None)
        block = ring.block(so_offset)
        block[:] = 0
        gpu_counts = ip is not None and not chunked  # filled from the pass's args on the GPU
        block[_SO_INSTANCES] = draw.instance_count
        block[_SO_PRIMITIVES_WORD] = 0 if gpu_counts else ppi
        block[_SO_NEEDED_WORD] = 0 if gpu_counts else needed
        block[_SO_START_INDEX] = draw.start_index_location if draw.indexed else 0
        if index_size and ib is not None and ib.buffer is not None:
            block[_SO_IB_BASE] = ib.offset
            block[_SO_IB_SIZE] = ib.size_in_bytes
        for s in so.slots:
            t = self.targets.get(s.slot)
            if t is not None:
                entry = block[SO_HEADER_WORDS + SO_SLOT_WORDS * s.slot:][:SO_SLOT_WORDS]
                entry[_SLOT_LOCATION] = t.view.offset
                entry[_SLOT_SIZE] = t.view.size_in_bytes
                entry[_SLOT_COUNTER] = t.counter_offset
                if host is not None:
                    entry[_SLOT_FILLED] = host[2][s.slot]
        if host is not None:
            (n_written, n_needed) = host[3]
            block[_SO_FUSED:_SO_FUSED + 2] = (host[0], int(host[1]))
            block[_SO_STATS:_SO_STATS + 4] = (n_written & _U32, n_written >> 32,
                                              n_needed & _U32, n_needed >> 32)
        if ip is not None:
            aux = ip.list  # asked for: the pass made its list stream
            assert aux is not None
        elif index_size and ib is not None and ib.buffer is not None:
            aux = ib.buffer.wgpu
        else:
            aux = self._dummy
        n_pulled = max(1, len(pulled))
        key0 = (aux, ring.buffer, n_pulled)
        if ip is not None or self._group0 is None or self._group0[0] != key0:
            common = [
                {"binding": 0, "resource": {"buffer": ring.buffer, "offset": 0,
                                            "size": self.pipelines.draw_block_size(n_pulled)}},
                {"binding": 1, "resource": {"buffer": ring.buffer, "offset": 0,
                                            "size": 4 * SO_BLOCK_WORDS}},
                {"binding": 4, "resource": {"buffer": aux, "offset": 0, "size": aux.size}},
            ]
            g0 = dev.device.create_bind_group(
                layout=self.pipelines.so_group0_layout(n_pulled), entries=[
                    *common,
                    {"binding": 2, "resource": {"buffer": self.state, "offset": 0,
                                                "size": _STATE_BYTES}},
                    {"binding": 3, "resource": {"buffer": self.stats, "offset": 0, "size": 16}}])
            g0_main = dev.device.create_bind_group(
                layout=self.pipelines.so_group0_layout(n_pulled, main=True), entries=[
                    *common, {"binding": 5, "resource": {"buffer": self.state, "offset": 0,
                                                         "size": _STATE_BYTES}}])
            # A list stream is this draw's own: its groups are not worth keeping.
            self._group0 = None if ip is not None else (key0, (g0, g0_main))
        else:
            g0, g0_main = self._group0[1]
        if state.static.arena:
            rec.fill_arena(state)
        g1 = rec.pulled_group(state, compute=True)
        rec.keep((g0, g0_main, g1, unique, aux))
        if chunked:  # binds windows of the targets, never a whole one (over the binding limit)
            self._encode_chunked(state, so, needed, main, g0_main, g1, unique, slot_bindings,
                                 draw_offset, so_offset)
            self.draws["prepared"] += 1
            return
        if host is not None:
            self.host.advance(so, self.targets, vpp, host)
            self.draws["fused"] += 1
        else:
            self.host.forget(so, self.targets)
            self.draws["prepared"] += 1
        key = tuple(unique)
        if self._group2 is None or self._group2[0] != key:
            entries = [{"binding": k, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                       for k, b in enumerate(unique or [self._dummy_target])]
            self._group2 = (key, dev.device.create_bind_group(
                layout=self.pipelines.so_group2_layout(max(1, len(unique))), entries=entries))
        g2 = self._group2[1]
        rec.keep(g2)
        enc = rec.compute_encoder()
        if gpu_counts:
            # Primitives per instance and needed exist only in the pass's args. The ring is
            # uploaded at submit, before these commands run, so the copies win over the zeros.
            assert ip is not None  # gpu_counts: the index pass ran
            for word, to in ((ARGS_PRIMITIVES, _SO_PRIMITIVES_WORD),
                             (ARGS_NEEDED, _SO_NEEDED_WORD)):
                enc.copy_buffer_to_buffer(ip.args, 4 * word, ring.buffer, so_offset + 4 * to, 4)
        cp = enc.begin_compute_pass()
        offsets = [draw_offset, so_offset]
        if host is not None:
            assert groups is not None  # sized by what the host prepare step writes
            self._bind(cp, fused, (g0, g1, g2), offsets, state.cbvs)
            cp.dispatch_workgroups(*groups)
            cp.end()
            return
        self._bind(cp, prepare, (g0, g1, g2), offsets, state.cbvs)
        cp.dispatch_workgroups(1)
        if groups is not None:
            self._bind(cp, main, (g0_main, g1, g2), offsets, state.cbvs)
            if gpu_counts:
                # Sized by the pass for every vertex of its primitives; the host bound above
                # (the cut-free count) keeps it within one dispatch.
                assert ip is not None
                cp.dispatch_workgroups_indirect(ip.args, ARGS_DISPATCH)
            else:
                cp.dispatch_workgroups(*groups)
        cp.end()

    def _bind(self, cp, pipeline, groups, offsets, cbvs: tuple[int, ...]) -> None:
        """Set ``pipeline`` and its groups 0-2 (group 0 with the two uniform blocks' dynamic
        ``offsets``), and group 3 when the shaders read root constant buffers."""
        cp.set_pipeline(pipeline)
        cp.set_bind_group(0, groups[0], offsets)
        cp.set_bind_group(1, groups[1])
        cp.set_bind_group(2, groups[2])
        if cbvs:
            cp.set_bind_group(3, self.cbv_group())

    def encode_draw_auto_args(self, counter, counter_offset: int, location: int, ia_offset: int,
                              stride: int):
        """Encode the compute step of DrawAuto; returns the indirect-args buffer it fills."""
        dev = self.device.device
        if self._auto_pipeline is None:
            mod = dev.create_shader_module(code=draw_auto_program())
            self._auto_pipeline = dev.create_compute_pipeline(
                layout="auto", compute={"module": mod, "entry_point": "main"})
        args = dev.create_buffer(size=16, usage="STORAGE|INDIRECT")
        words = np.zeros(_AUTO_WORDS, np.uint32)
        words[_AUTO_COUNTER] = counter_offset // 4
        words[_AUTO_LOCATION] = location
        words[_AUTO_IA_OFFSET] = ia_offset
        words[_AUTO_STRIDE] = stride
        params = dev.create_buffer_with_data(data=words, usage="UNIFORM")
        group = dev.create_bind_group(layout=self._auto_pipeline.get_bind_group_layout(0), entries=[
            {"binding": 0, "resource": {"buffer": counter, "offset": 0, "size": counter.size}},
            {"binding": 1, "resource": {"buffer": args, "offset": 0, "size": 16}},
            {"binding": 2, "resource": {"buffer": params, "offset": 0, "size": 4 * _AUTO_WORDS}}])
        self.recorder.keep((args, params, group))
        cp = self.recorder.compute_encoder().begin_compute_pass()
        cp.set_pipeline(self._auto_pipeline)
        cp.set_bind_group(0, group)
        cp.dispatch_workgroups(1)
        cp.end()
        return args

    def _dispatch_size(self, total: int) -> tuple[int, int]:
        caps = self.device.caps
        threads = (total + VERTICES_PER_THREAD - 1) // VERTICES_PER_THREAD
        groups = (threads + WORKGROUP - 1) // WORKGROUP
        limit = caps.max_compute_workgroups_per_dimension
        x = min(groups, limit)
        y = (groups + x - 1) // x
        if y > limit:
            raise UnsupportedError(f"{total} SO vertices exceed one dispatch's {limit}x{limit} "
                                   f"workgroups of {WORKGROUP}")
        return x, y

    def _encode_chunked(self, state, so, needed, main, g0_main, g1, unique, slot_bindings,
                        draw_offset, so_offset) -> None:
        """Stream Output to targets larger than one storage binding: the prepare step runs on
        the host (counters and state read back, so this draw waits for earlier GPU work), then
        the vertices go out in chunks, each binding a window of every target that holds the
        chunk's records."""
        rec = self.recorder
        ring = rec.ring
        dev = self.device
        caps = dev.caps
        vpp = state.topology.vertices
        q = dev.device.queue
        st = np.frombuffer(q.read_buffer(self.state), np.uint32).copy()
        stats = np.frombuffer(q.read_buffer(self.stats), np.uint32)

        def read_counter(t) -> int:
            return int(np.frombuffer(q.read_buffer(t.counter, t.counter_offset // 16 * 16, 16),
                                     np.uint32)[(t.counter_offset % 16) // 4])

        step = _prepare_step(so, self.targets, vpp, needed, bool(st[_STATE_OVERFLOWED]),
                             (int(stats[0]) | int(stats[1]) << 32,
                              int(stats[2]) | int(stats[3]) << 32), read_counter)
        assert step is not None  # every counter was read back
        written, overflowed, bases, total64 = step
        st[_STATE_WRITTEN], st[_STATE_OVERFLOWED] = written, int(overflowed)
        for slot, filled in bases.items():
            st[_STATE_BASE + slot] = filled
            t = self.targets[slot]
            value = filled + written * vpp * so.slot(slot).stride
            q.write_buffer(t.counter, t.counter_offset, np.array([value], np.uint32))
            # read back and written here: exact (the application's own counters stay unknown)
            self.host.set_counter(t.counter, value if self._own(t.counter) else None)
        q.write_buffer(self.state, 0, st)
        self.host.overflowed, self.host.stats = overflowed, total64
        q.write_buffer(self.stats, 0, np.array([total64[0] & 0xFFFFFFFF, total64[0] >> 32,
                                                total64[1] & 0xFFFFFFFF, total64[1] >> 32],
                                               np.uint32))
        total = written * vpp
        if not total:
            return
        datas = [self.targets[s.slot].buffer.wgpu for s in so.slots if s.slot in bases]
        if len({id(b) for b in datas}) < len(datas):
            raise UnsupportedError("Stream Output to two views of one buffer larger than a "
                                   "storage binding")
        align = caps.min_storage_buffer_offset_alignment
        span = caps.max_storage_buffer_binding_size // 16 * 16 - align - 16
        chunk = min(span // so.slot(slot).stride for slot in bases)
        if chunk < 1:
            raise UnsupportedError("an SO record is larger than a storage binding")
        base_block = ring.block(so_offset).copy()
        if (total + chunk - 1) // chunk > ring.room():
            raise UnsupportedError(f"{total} SO vertices need more than "
                                   f"{ring.capacity} chunks of {chunk}")
        for t0 in range(0, total, chunk):
            t1 = min(total, t0 + chunk)
            windows = {}
            block_offset = rec.next_block(state, DrawPath.PULLING, _NO_DRAW, None)
            block = ring.block(block_offset)
            block[:] = base_block
            block[_SO_T_BASE], block[_SO_T_END] = t0, t1
            for slot, filled in bases.items():
                t = self.targets[slot]
                first = t.view.offset + filled + t0 * so.slot(slot).stride
                last = t.view.offset + filled + t1 * so.slot(slot).stride
                woff = first // align * align
                wsize = min((last - woff + 15) // 16 * 16, t.buffer.wgpu.size - woff)
                windows[id(t.buffer.wgpu)] = (woff, wsize)
                block[SO_HEADER_WORDS + SO_SLOT_WORDS * slot + _SLOT_LOCATION] = \
                    (t.view.offset - woff) & _U32
            entries = []
            whole = caps.max_storage_buffer_binding_size // 16 * 16
            for k, b in enumerate(unique):
                woff, wsize = windows.get(id(b), (0, min(b.size, whole)))
                entries.append({"binding": k, "resource": {"buffer": b, "offset": woff,
                                                            "size": wsize}})
            g2 = dev.device.create_bind_group(
                layout=self.pipelines.so_group2_layout(max(1, len(unique))), entries=entries)
            rec.keep(g2)
            cp = rec.compute_encoder().begin_compute_pass()
            self._bind(cp, main, (g0_main, g1, g2), [draw_offset, block_offset], state.cbvs)
            cp.dispatch_workgroups(*self._dispatch_size(t1 - t0))
            cp.end()

    def _pipeline(self, spec: SOProgramSpec, n_pulled: int, cbvs: tuple[int, ...],
                  entry: str):
        """The compute pipeline of ``entry`` (``gpuia_so_prepare``, ``gpuia_so_main`` or
        ``gpuia_so_fused``) for ``spec``, built on first use: a context that only ever draws
        with known counters never builds the other two."""
        pipe = self._pipelines.get((spec, cbvs, entry))
        if pipe is None:
            cache = self.pipelines
            dev = self.device.device
            mod = self._modules.get(spec)
            if mod is None:
                mod = compile_module(dev, so_program(spec), "gpuia SO",
                                     "does not compile for Stream Output",
                                     [vertex_text(spec.signature)])
                remember(self._modules, spec, mod)
                cache.stats.shader_modules += 1
            n_bindings = len({b for _, b in spec.pulled_slots}) or 1
            # The main pass reads the prepare step's state as a uniform; the prepare step and
            # the fused pass write it (and the statistics) as storage.
            layout = dev.create_pipeline_layout(bind_group_layouts=cache.with_cbvs([
                cache.so_group0_layout(max(1, n_pulled), entry == "gpuia_so_main"),
                cache.group1_layout(n_bindings, compute=True),
                cache.so_group2_layout(spec.buffers)], cbvs))
            pipe = checked_create(lambda: dev.create_compute_pipeline(
                layout=layout, compute={"module": mod, "entry_point": entry}),
                "cannot be linked into a Stream Output pipeline")
            cache.stats.pipelines += 1
            remember(self._pipelines, (spec, cbvs, entry), pipe)
        return pipe
