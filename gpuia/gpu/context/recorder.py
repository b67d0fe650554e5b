"""Recording a context's GPU work: the command encoder and the open render pass, the ring of
per-draw uniform blocks, the bind groups of the vertex-pulling path, the arena copies, and the
draw calls themselves. Submitting is :meth:`Recorder.submit`; what waits for a submit (released
resources, cache sweeps) is the context's business.

Per-draw uniform block (its table is ``gpuia.wgsl.blocks.DRAW_BLOCK``: ``DRAW_HEADER_WORDS``
words of header, then ``SLOT_WORDS`` per pulled slot): the words written are the module-level
constants below, read from the table by name. One block per draw that reads it; the ring is
uploaded once per submit."""

from __future__ import annotations

import weakref

import numpy as np

from ...wgsl.blocks import DRAW_BLOCK
from ...wgsl.program import DRAW_HEADER_WORDS, SLOT_WORDS
from .. import _ffi
from ..ia.plan import IndexMode
from ..raster.drawcall import encode_gpu_indices, issue_draw, strip_index_format, webgpu_topology
from ..vertex.pipelines import NativeKey, PullingKey
from ..vertex.plan import DrawPath
from .capture import keys_contiguous
from .gpu_counts import READ_AT

__all__ = ["Recorder", "UniformRing", "RING_DRAWS", "MAX_PULLED"]

_U32 = 0xFFFFFFFF
# Words of the per-draw block, as plain ints: next_block indexes with them on every draw.
(_VERTEX_BASE, _FIRST_INSTANCE, _CAPTURE_BASE, _KEY_OFFSET, _KEY_COUNT, _KEY_CONTIGUOUS,
 _KEY_FIRST, _CAPTURE_ROWS, _VERTEX_SHIFT) = (DRAW_BLOCK.word(name) for name in (
    "vertex_base", "first_instance", "capture_base", "key_offset", "key_count",
    "key_contiguous", "key_first", "pad0", "vertex_shift"))
RING_DRAWS = 4096  # per-draw uniform blocks before an automatic flush
MAX_PULLED = 32  # pulled slots one block describes


class UniformRing:
    """Per-draw uniform blocks in one host array and one UNIFORM buffer, each block aligned to
    the adapter's uniform offset alignment (dynamic offsets). The buffer holds ``draws``
    blocks; the host array starts at :data:`_FIRST_ROWS` and doubles as blocks are taken (a
    context that draws a few times, as each run of a small case does, never pays for
    megabytes of host rows)."""

    def __init__(self, device, draws: int = RING_DRAWS):
        words = DRAW_HEADER_WORDS + SLOT_WORDS * MAX_PULLED
        align = device.caps.min_uniform_buffer_offset_alignment // 4
        self.block_words = (words + align - 1) // align * align
        self._capacity = draws
        self.rows = np.zeros((min(draws, _FIRST_ROWS), self.block_words), dtype=np.uint32)
        self.used = 0
        self.buffer = device.device.create_buffer(size=draws * self.block_words * 4,
                                                  usage="UNIFORM|COPY_DST")

    @property
    def capacity(self) -> int:
        return self._capacity

    def room(self) -> int:
        """Blocks left before the ring must be submitted."""
        return self._capacity - self.used

    def take(self) -> tuple[int, np.ndarray]:
        """(byte offset, the block's words) of the next free block (the caller checks room)."""
        i = self.used
        if i == self.rows.shape[0]:
            grown = np.zeros((min(self._capacity, 2 * i), self.block_words), dtype=np.uint32)
            grown[:i] = self.rows
            self.rows = grown
        self.used += 1
        return i * self.block_words * 4, self.rows[i]

    def block(self, offset: int) -> np.ndarray:
        """The words of the block at byte ``offset``."""
        return self.rows[offset // 4 // self.block_words]

    def upload(self, queue) -> None:
        if self.used:
            queue.write_buffer(self.buffer, 0, self.rows[:self.used])


_FIRST_ROWS = 16  # host rows a new ring starts with


class PulledBindings:
    """What the recorder made for one draw state's pulled vertex buffers: the bind group of
    each stage (``groups``: compute -> group) and the arena buffer the views are copied into
    (``arena``: None until a state with ``static.arena`` draws)."""

    def __init__(self) -> None:
        self.groups: dict = {}
        self.arena = None


class Recorder:
    """The encoder, the open pass and everything bound in it, for one context.

    ``om`` gives the render pass attachments and the constant buffer groups; ``flush()`` is the
    context's (a full uniform ring submits). Attributes the fast draw reads and writes directly:
    ``render_pass``, ``pass_handle``, ``bound_pipeline``, ``bound_vb``, ``encoded_state``,
    ``pass_states``. The capture session sets ``capture_*`` while it encodes its draws."""

    def __init__(self, device, pipelines, om, flush):
        self.device = device
        self.pipelines = pipelines
        self.om = om
        self.flush = flush
        self.ring = UniformRing(device)
        self.encoder = None
        self.render_pass = None
        self.pass_handle = None
        self.bound_pipeline = None
        self.bound_vb: list = [None] * 32
        self.bound_g1 = None
        self.keepalive: list = []
        self.pass_states: dict = {}  # states encoded by raw calls since the last submit
        self.encoded_state: object = None  # the DrawState the last raw calls encoded
        # The capture being encoded: its route and, for the render-target route, the group of
        # record columns this pass renders and the pass's color views.
        self.capture_route = "storage"
        self.capture_group = -1
        self.capture_targets = 0
        self.capture_views = None
        self.capture_rows = 0
        self.capture_window = 0  # first record of the storage route's window being encoded
        self.capture_encoding = False
        self._group0_cache: dict = {}
        # Per DrawState, while it lives: its pulled bind groups and arena buffer.
        self._pulled: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._dummy = None
        # While a PIPELINE_STATISTICS query is open on a device with the feature: the GPU's
        # own counts of each render pass (gpu_counts.PassCounts); else None.
        self.gpu_counts = None

    # -- encoder and pass ---------------------------------------------------------------------
    def keep(self, obj) -> None:
        """Keep ``obj`` alive until the next submit (wgpu objects a recorded command uses)."""
        self.keepalive.append(obj)

    def command_encoder(self):
        if self.encoder is None:
            self.encoder = self.device.device.create_command_encoder()
        return self.encoder

    def compute_encoder(self):
        """The command encoder with no render pass open (for compute work between draws)."""
        self.end_pass()
        return self.command_encoder()

    def clear_pass(self, **attachments) -> None:
        """A render pass that only clears (ClearRenderTargetView / ClearDepthStencilView), in
        order with the draws around it."""
        self.compute_encoder().begin_render_pass(**attachments).end()

    def end_pass(self) -> None:
        if self.render_pass is not None:
            self._end(self.render_pass, self.encoder)
            self.render_pass = None

    def _end(self, rp, encoder) -> None:
        if self.gpu_counts is None:
            rp.end()
        else:
            self.gpu_counts.end_pass(rp, encoder)

    def open_pass(self):
        if self.render_pass is None:
            if self.capture_encoding:
                views, depth = self.capture_views or self.om.attachments(True)[0], None
            else:
                views, depth = self.om.attachments(False)
            self.render_pass = self.command_encoder().begin_render_pass(color_attachments=[
                {"view": v, "load_op": "load", "store_op": "store"} for v in views],
                depth_stencil_attachment=depth)
            self.pass_handle = _ffi.handle(self.render_pass)
            if self.gpu_counts is not None:
                self.gpu_counts.begin(self.render_pass)
            self.bound_pipeline = None
            self.bound_vb = [None] * 32
            self.bound_g1 = None
        return self.render_pass

    def submit(self) -> bool:
        """Finish and submit what was recorded; False when nothing was. A refusal at finish()
        raises wgpu's exception, nothing submitted (the caller translates it)."""
        if self.encoder is None:
            self.ring.used = 0  # blocks of draws that encoded nothing
            return False
        rp, enc = self.render_pass, self.encoder
        self.render_pass = self.encoder = None
        try:
            if rp is not None:
                self._end(rp, enc)
            self.ring.upload(self.device.device.queue)
            commands = enc.finish()
        finally:
            self.ring.used = 0
            self.encoded_state = None
        self.device.device.queue.submit([commands])
        self.keepalive.clear()
        self.pass_states.clear()
        if self.gpu_counts is not None and self.gpu_counts.used >= READ_AT:
            self.gpu_counts.read()  # a long range: its query sets read and reused
        return True

    # -- per-draw blocks ----------------------------------------------------------------------
    def next_block(self, state, path: DrawPath | str, draw, record, shift: int = 0) -> int | None:
        """Fill the next per-draw uniform block; returns its byte offset (None if unused)."""
        if path == DrawPath.NATIVE and not state.constants:
            return None
        if not self.ring.room():
            self.flush()
        offset, block = self.ring.take()
        block[_VERTEX_BASE] = (draw.base_vertex_location & _U32 if draw.indexed
                               else draw.start_vertex_location)
        block[_FIRST_INSTANCE] = draw.start_instance_location
        block[_VERTEX_SHIFT] = shift  # see gpuia.gpu.ia.plan.shift_first_vertex
        if record is not None:
            keys = record.keys
            block[_CAPTURE_BASE] = (record.capture_base - self.capture_window) & _U32
            block[_KEY_OFFSET] = record.key_offset
            block[_KEY_COUNT] = keys.shape[0]
            # the same test as the capture's layout, which uploads only searched keys
            block[_KEY_CONTIGUOUS] = 1 if keys_contiguous(keys) else 0
            block[_KEY_FIRST] = int(keys[0]) if keys.shape[0] else 0
            block[_CAPTURE_ROWS] = self.capture_rows
        if path == DrawPath.PULLING:
            w = state.pulled_slot_words
            block[DRAW_HEADER_WORDS:DRAW_HEADER_WORDS + w.shape[0]] = w
        return offset

    # -- pipelines and bind groups -------------------------------------------------------------
    def pipeline(self, state, path: DrawPath | str, strip_fmt: str | None = None,
                 listed: bool = False, attributes: frozenset = frozenset()):
        """The render pipeline of ``state`` on ``path``; ``listed``: drawing a strip's
        primitives from a list stream (:func:`gpuia.gpu.ia.host_lists.list_stream`);
        ``attributes``: the pulled slots read through vertex attributes (the plan's)."""
        group, per_group = (self.capture_group, self.capture_targets) if state.capture else (-1, 0)
        pipe = state.pipelines.get((path, strip_fmt, group, listed, attributes))
        if pipe is not None:
            return pipe
        topo = webgpu_topology(state.topology, listed, state.capture)
        if path == DrawPath.NATIVE:
            layout = state.layout
            buffers = tuple((state.views[s].stride_in_bytes,
                             "instance" if layout.slots[s].per_instance else "vertex")
                            for s in state.static.slots)
            native = NativeKey(layout, state.signature, state.capture, state.constants, buffers,
                               topo, strip_fmt, state.output, capture_group=group,
                               capture_targets=per_group, cbvs=state.cbvs)
            pipe = self.pipelines.native(native, state.static.slots)
        else:
            pulling = PullingKey(state.layout, state.signature, state.capture, state.static.slots,
                                 topo, strip_fmt, state.output, capture_group=group,
                                 capture_targets=per_group, cbvs=state.cbvs,
                                 aligned=state.aligned, aligned16=state.aligned16,
                                 arena=state.static.arena,
                                 attributes=tuple((s, state.views[s].stride_in_bytes)
                                                  for s in sorted(attributes)))
            pipe = self.pipelines.pulling(pulling)
        state.pipelines[(path, strip_fmt, group, listed, attributes)] = pipe
        return pipe

    def group0(self, capture: bool, n: int, capture_bufs=None):
        """Bind group 0: the per-draw block (dynamic offset) and a capture's buffers."""
        mode = "targets" if capture and self.capture_route == "targets" else capture
        # Keyed by the capture buffer itself, not its id(): a freed buffer's id can come back
        # for the next capture's, and its group would bind the old buffer.
        key = (mode, n, capture_bufs[0] if capture_bufs else None)
        g = self._group0_cache.get(key)
        if g is None:
            entries = [{"binding": 0, "resource": {"buffer": self.ring.buffer, "offset": 0,
                                                   "size": self.pipelines.draw_block_size(n)}}]
            bindings = (2,) if mode == "targets" else (1, 2, 3)
            if capture:
                entries += [{"binding": k, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                            for k, b in zip(bindings, capture_bufs, strict=False)]
            g = self.device.device.create_bind_group(layout=self.pipelines.group0_layout(mode, n),
                                                     entries=entries)
            if capture:
                self.forget_capture_groups()
            self._group0_cache[key] = g
        return g

    def forget_capture_groups(self) -> None:
        """Capture bind groups name a capture's buffers: dropped when it ends, so its buffers
        are freed and no later capture can bind them."""
        self._group0_cache = {k: v for k, v in self._group0_cache.items() if not k[0]}

    def capture_group_count(self) -> int:
        """Bind groups held for a capture's buffers (0 between captures)."""
        return sum(1 for k in self._group0_cache if k[0])

    def pulled_group(self, state, compute: bool = False):
        """The bind group of the pulled vertex buffers (vertex stage, or compute for SO)."""
        pulled = self._pulled.get(state)
        if pulled is None:
            pulled = self._pulled[state] = PulledBindings()
        group = pulled.groups.get(compute)
        if group is not None:
            return group
        if state.static.arena:
            if pulled.arena is None:
                pulled.arena = self.device.device.create_buffer(size=state.arena_size,
                                                                usage="STORAGE|COPY_DST")
            entries = [{"binding": 0, "resource": {"buffer": pulled.arena, "offset": 0,
                                                   "size": state.arena_size}}]
        else:
            entries = []
            for j, s in enumerate(state.static.slots):
                v = state.views[s]
                wb = v.buffer.wgpu if v is not None and v.buffer is not None else self.dummy()
                offset, size = state.static.windows.get(s, (0, wb.size))
                entries.append({"binding": j, "resource": {"buffer": wb, "offset": offset,
                                                            "size": size}})
            if not entries:
                entries = [{"binding": 0, "resource": {"buffer": self.dummy(), "offset": 0,
                                                        "size": 16}}]
        group = pulled.groups[compute] = self.device.device.create_bind_group(
            layout=self.pipelines.group1_layout(len(entries), compute=compute), entries=entries)
        return group

    def fill_arena(self, state) -> None:
        """Copy every pulled view into the state's arena buffer, right before the draw that
        reads it (a render pass cannot hold copies, so the open one is ended)."""
        self.pulled_group(state)  # creates the arena buffer
        arena = self._pulled[state].arena
        enc = self.compute_encoder()
        for v, start, length, pos in state.arena_layout:
            enc.copy_buffer_to_buffer(v.buffer.wgpu, start, arena, pos, length)
        self.keep(state)

    def dummy(self):
        """A 16-byte storage buffer standing in for an unbound pulled slot."""
        if self._dummy is None:
            self._dummy = self.device.device.create_buffer(size=16, usage="STORAGE")
        return self._dummy

    def upload_indices(self, data: np.ndarray):
        buf = self.device.device.create_buffer_with_data(data=data, usage="INDEX")
        self.keep(buf)
        return buf

    # -- draws --------------------------------------------------------------------------------
    def encode(self, state, path: DrawPath | str, draw, index, block_offset, index_view,
               capture_bufs=None, indirect=None, cbv_group=None,
               attributes: frozenset = frozenset()) -> None:
        """Encode one planned draw into the open pass (opened if needed). ``index_view``: the
        index buffer view it draws with; ``indirect``: a DrawAuto args buffer; ``attributes``:
        the pulled slots whose words are vertex attributes (the plan's), bound as vertex
        buffers in ascending slot order. A draw whose
        indices the GPU index pass lists (mode ``gpu``) first ends the open pass and records
        the index pass, which the reopened pass then draws from."""
        if path == DrawPath.PULLING and state.static.arena:
            self.fill_arena(state)
        gpu_indices = None
        if index.mode is IndexMode.GPU and indirect is None:
            gpu_indices = encode_gpu_indices(self.device, self.compute_encoder(), draw,
                                             state.topology, index, index_view)
            self.keep(gpu_indices.keepalive)
        rp = self.open_pass()
        # WebGPU strips take the index format for restart; adjacency strips are drawn as lists.
        strip_fmt = strip_index_format(state.topology, index, draw, state.capture)
        pipeline = self.pipeline(state, path, strip_fmt, index.listed, attributes)
        if pipeline is not self.bound_pipeline:
            rp.set_pipeline(pipeline)
            self.bound_pipeline = pipeline
            self.bound_g1 = None
        if block_offset is not None:
            n = len(state.static.slots) if path == DrawPath.PULLING else 1
            rp.set_bind_group(0, self.group0(state.capture, max(1, n), capture_bufs),
                              [block_offset])
        if path == DrawPath.PULLING:
            g1 = self.pulled_group(state)
            if g1 is not self.bound_g1:
                rp.set_bind_group(1, g1)
                self.bound_g1 = g1
        if state.cbvs:
            # Groups below 3 that this path's layout leaves empty still need a (empty) group.
            used = 2 if path == DrawPath.PULLING else (1 if block_offset is not None else 0)
            for g in range(used, 3):
                rp.set_bind_group(g, self.om.empty_group())
            if used <= 1:
                self.bound_g1 = None
            rp.set_bind_group(3, cbv_group or self.om.cbv_group(state.cbvs))
        buffers = (state.native_buffers if path != DrawPath.PULLING else
                   [state.attribute_buffers[s] for s in sorted(attributes)])
        bound = self.bound_vb
        for j, b in enumerate(buffers):
            if bound[j] is not b:
                rp.set_vertex_buffer(j, b[0], b[1], b[2])
                bound[j] = b
        if indirect is not None:
            rp.draw_indirect(indirect, 0)
            return
        issue_draw(rp, draw, index, index_view, self.upload_indices, gpu_indices)
