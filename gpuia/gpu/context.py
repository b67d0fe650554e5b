"""A Direct3D-style device context that draws through wgpu.

State calls only store state, as D3D's do (``ia_set_vertex_buffers`` copies views into slots,
``ia_set_index_buffer`` the index view, ...). Each ``draw_*`` call validates the state against
what WebGPU will accept, plans the draw (native vertex fetch or vertex pulling, see
``gpuia.gpu.plan``) and records it; :meth:`Context.flush` encodes every recorded draw into one
render pass and submits it. Between a :meth:`Context.begin_capture` and :meth:`end_capture`, draws
also write what their vertex shader received into a storage buffer, read back as an
:class:`~gpuia.reference.IAResult` comparable with the CPU reference.

Two binding forms are accepted, as in the seeds of the API:

.. code-block:: py

    ctx.ia_set_vertex_buffers(0, [vb0, vb1], [12, 4], [0, 0])           # D3D10/11
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(vb0, 12), None])     # D3D12 views; None unbinds

A buffer must carry the ``vertex_buffer`` bind flag to be bound as a vertex buffer (the
``index_buffer`` flag for an index buffer); a buffer currently bound as a Stream Output target is
bound as NULL in the IA, with a warning (IASetVertexBuffers remark).
"""

from __future__ import annotations

import struct
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..desc import (DrawIndexedInstanced, DrawInstanced, IndexBufferView, PrimitiveTopology,
                    StripCutValue, VertexBufferView)
from ..errors import InvalidDescError, UnsupportedError
from ..layout import InputLayout
from ..reference.ia import IAResult, ElementData, run_ia
from ..topology import TopologyInfo, topology_info
from ..wgsl.program import CAPTURE_HEADER_WORDS, DRAW_HEADER_WORDS, SLOT_WORDS, record_words
from ..wgsl.signature import ShaderSignature, parse_vertex_shader, pass_through_shader
from .device import Buffer, Device
from .pipelines import TARGET_FORMAT, NativeKey, PipelineCache, PullingKey
from .plan import Plan, plan_draw

__all__ = ["PipelineState", "Context", "Capture"]

_U32 = 0xFFFFFFFF


@dataclass(frozen=True)
class PipelineState:
    """The parts of a D3D12 graphics pipeline state the Input Assembler depends on.

    ``vertex_shader`` is WGSL source with D3D semantics (see ``gpuia.wgsl.signature``), or None
    for the pass-through shader of the layout.
    """

    input_layout: InputLayout
    vertex_shader: str | None = None
    entry_point: str | None = None
    strip_cut_value: StripCutValue = StripCutValue.DISABLED

    def __post_init__(self):
        if not isinstance(self.input_layout, InputLayout):
            object.__setattr__(self, "input_layout", InputLayout(self.input_layout))
        object.__setattr__(self, "strip_cut_value", StripCutValue.of(self.strip_cut_value))

    @property
    def signature(self) -> ShaderSignature:
        sig = _SIGNATURES.get((self.input_layout, self.vertex_shader, self.entry_point))
        if sig is None:
            src = self.vertex_shader or pass_through_shader(self.input_layout)
            sig = parse_vertex_shader(src, self.entry_point)
            sig.check_layout(self.input_layout)
            _SIGNATURES[(self.input_layout, self.vertex_shader, self.entry_point)] = sig
        return sig


_SIGNATURES: dict = {}


@dataclass
class _Record:
    """One planned draw, ready to encode."""

    number: int
    draw: DrawInstanced | DrawIndexedInstanced
    plan: Plan
    pipeline: object
    views: dict
    pulled: tuple[int, ...]
    index_view: IndexBufferView | None
    capture: bool
    keys: np.ndarray | None = None
    capture_base: int = 0
    key_offset: int = 0
    host_index: object = None


@dataclass
class Capture:
    """What the GPU's vertex shaders received during a capture, per recorded draw."""

    records: list = field(default_factory=list)
    words: np.ndarray | None = None
    unexpected: int = 0
    unexpected_max_vertex_index: int = 0
    element_count: int = 0


class Context:
    """A D3D-style context on a :class:`Device`. See the module docstring."""

    def __init__(self, device: Device, *, target=None):
        self.device = device
        self.cache = PipelineCache(device)
        self._pso: PipelineState | None = None
        self._views: dict[int, VertexBufferView | None] = {}
        self._index: IndexBufferView | None = None
        self._topology: TopologyInfo | None = None
        self._so_targets: set[int] = set()
        self._records: list[_Record] = []
        self._capture: Capture | None = None
        self._target = target
        self.path = "auto"
        self.last_plan: Plan | None = None
        self.draw_count = 0

    # -- state -------------------------------------------------------------------------------
    def set_pipeline_state(self, pso: PipelineState) -> None:
        """Set the input layout, vertex shader and strip cut value (validated now, like
        CreateGraphicsPipelineState)."""
        if not isinstance(pso, PipelineState):
            raise InvalidDescError("SetPipelineState", "pso", pso, "expected a PipelineState")
        pso.signature  # parse and check the shader against the layout now
        self._pso = pso

    def ia_set_primitive_topology(self, topology) -> None:
        try:
            self._topology = topology_info(topology)
        except ValueError as e:
            raise InvalidDescError("IASetPrimitiveTopology", "PrimitiveTopology", topology,
                                   str(e)) from None

    def ia_set_vertex_buffers(self, start_slot: int, buffers, strides=None, offsets=None) -> None:
        """Bind slots ``start_slot .. start_slot + len(buffers) - 1``; other slots keep their
        bindings. ``buffers`` holds :class:`VertexBufferView` values (D3D12 form, strides and
        offsets then not allowed) or :class:`Buffer` objects with parallel ``strides`` and
        ``offsets`` lists (D3D10/11 form). None unbinds a slot. ``buffers`` None is ignored
        (D3D12, rulebook 6.4)."""
        if buffers is None:
            return
        buffers = list(buffers)
        limit = self._slot_limit()
        if not isinstance(start_slot, int) or start_slot < 0 or start_slot + len(buffers) > limit:
            raise InvalidDescError("IASetVertexBuffers", "StartSlot", start_slot,
                                   f"slots {start_slot}..{start_slot + len(buffers) - 1} exceed "
                                   f"the {limit} input slots")
        d3d12 = all(b is None or isinstance(b, VertexBufferView) for b in buffers)
        if not d3d12:
            if strides is None or len(strides) < len(buffers):
                raise InvalidDescError("IASetVertexBuffers", "pStrides", strides,
                                       f"needs one stride per buffer ({len(buffers)})")
            if offsets is None:
                offsets = [0] * len(buffers)
            if len(offsets) < len(buffers):
                raise InvalidDescError("IASetVertexBuffers", "pOffsets", offsets,
                                       f"needs one offset per buffer ({len(buffers)})")
        elif strides is not None or offsets is not None:
            raise InvalidDescError("IASetVertexBuffers", "pStrides", strides,
                                   "vertex buffer views carry their own stride and offset")
        new = {}
        for i, b in enumerate(buffers):
            slot = start_slot + i
            if b is None:
                new[slot] = None
                continue
            if not d3d12:
                if isinstance(b, VertexBufferView):
                    raise InvalidDescError("IASetVertexBuffers", f"ppVertexBuffers[{i}]", b,
                                           "mix of views and buffers")
                try:
                    b = VertexBufferView(b, strides[i], offsets[i])
                except InvalidDescError as e:
                    raise InvalidDescError(f"IASetVertexBuffers slot {slot}", e.field, e.value,
                                           e.rule) from None
            buf = b.buffer
            if buf is None:
                new[slot] = None
                continue
            if not isinstance(buf, Buffer) or buf.device is not self.device:
                raise InvalidDescError(f"IASetVertexBuffers slot {slot}", "buffer", buf,
                                       "expected a gpuia Buffer created on this context's device")
            if "vertex_buffer" not in buf.bind and "stream_output" not in buf.bind:
                raise InvalidDescError(f"IASetVertexBuffers slot {slot}", "buffer", buf,
                                       "was not created with the vertex_buffer bind flag "
                                       "(D3D10_BIND_VERTEX_BUFFER)")
            if id(buf) in self._so_targets:
                warnings.warn(f"IASetVertexBuffers: slot {slot}'s buffer is bound as a Stream "
                              f"Output target; the IA binds NULL instead", stacklevel=2)
                new[slot] = None
                continue
            new[slot] = b
        self._views.update(new)

    def ia_set_index_buffer(self, view: IndexBufferView | None) -> None:
        if view is not None:
            if not isinstance(view, IndexBufferView):
                raise InvalidDescError("IASetIndexBuffer", "pView", view,
                                       "expected an IndexBufferView")
            buf = view.buffer
            if buf is not None:
                if not isinstance(buf, Buffer) or buf.device is not self.device:
                    raise InvalidDescError("IASetIndexBuffer", "buffer", buf,
                                           "expected a gpuia Buffer created on this device")
                if "index_buffer" not in buf.bind:
                    raise InvalidDescError("IASetIndexBuffer", "buffer", buf,
                                           "was not created with the index_buffer bind flag")
        self._index = view

    def set_path(self, path: str) -> None:
        """``auto`` (default), ``native`` or ``pulling`` for the following draws."""
        if path not in ("auto", "native", "pulling"):
            raise InvalidDescError("set_path", "path", path, "must be auto, native or pulling")
        self.path = path

    def _slot_limit(self) -> int:
        return self._pso.input_layout.profile.slot_count if self._pso else 32

    # -- draws -------------------------------------------------------------------------------
    def draw_instanced(self, vertex_count_per_instance: int, instance_count: int = 1,
                       start_vertex_location: int = 0, start_instance_location: int = 0) -> Plan:
        return self.draw(DrawInstanced(vertex_count_per_instance, instance_count,
                                       start_vertex_location, start_instance_location))

    def draw_indexed_instanced(self, index_count_per_instance: int, instance_count: int = 1,
                               start_index_location: int = 0, base_vertex_location: int = 0,
                               start_instance_location: int = 0) -> Plan:
        return self.draw(DrawIndexedInstanced(index_count_per_instance, instance_count,
                                              start_index_location, base_vertex_location,
                                              start_instance_location))

    def draw(self, draw) -> Plan:
        """Record one draw (a :class:`DrawInstanced` or :class:`DrawIndexedInstanced`)."""
        if self._pso is None:
            raise InvalidDescError("draw", "pipeline state", None, "no pipeline state is set")
        if self._topology is None:
            raise InvalidDescError("draw", "PrimitiveTopology", None,
                                   "IASetPrimitiveTopology was not called")
        layout, sig = self._pso.input_layout, self._pso.signature
        capture = self._capture is not None
        plan = plan_draw(layout, self._views, draw, self._topology, self.device.caps,
                         index_buffer=self._index, strip_cut_value=self._pso.strip_cut_value,
                         path=self.path, capture=capture)
        self.last_plan = plan
        views = {s: self._views.get(s) for s in plan.slots}
        topo = "point-list" if capture else self._topology.webgpu
        strip_fmt = None
        if not capture and self._topology.strip and draw.indexed and not self._topology.adjacency:
            strip_fmt = plan.index.index_format
        if plan.path == "native":
            buffers = tuple((views[s].stride_in_bytes,
                             "instance" if layout.slots[s].per_instance else "vertex")
                            for s in plan.slots)
            key = NativeKey(layout, sig, capture, buffers, topo, strip_fmt)
            pipeline = self.cache.native(key, plan.slots)
            pulled = ()
        else:
            key = PullingKey(layout, sig, capture, plan.slots, topo, strip_fmt)
            pipeline = self.cache.pulling(key)
            pulled = plan.slots
        if self._topology.adjacency and not capture:
            raise UnsupportedError(f"{self._topology.name}: WebGPU draws no adjacency topology; "
                                   f"capture draws and Stream Output handle it")
        rec = _Record(self.draw_count, draw, plan, pipeline, views, pulled, self._index, capture)
        if capture:
            fetch = plan.index.fetch
            if fetch is None:
                raise UnsupportedError("capture needs the draw's fetch indices on the host")
            rec.keys = np.unique(fetch.astype(np.uint32))
        self._records.append(rec)
        self.draw_count += 1
        return plan

    # -- capture -----------------------------------------------------------------------------
    def begin_capture(self) -> None:
        """Start recording what vertex shaders receive. Pending draws are flushed first."""
        if self._records:
            self.flush()
        self._capture = Capture()

    def end_capture(self) -> Capture:
        """Encode and run the captured draws and read back what they received."""
        if self._capture is None:
            raise InvalidDescError("end_capture", None, None, "begin_capture was not called")
        cap = self._capture
        self.flush()
        self._capture = None
        return cap

    # -- encoding ----------------------------------------------------------------------------
    def _target_view(self):
        if self._target is None:
            tex = self.device.device.create_texture(
                size=(1, 1, 1), format=TARGET_FORMAT,
                usage=__import__("wgpu").TextureUsage.RENDER_ATTACHMENT)
            self._target = tex.create_view()
        return self._target

    def flush(self) -> None:
        """Encode all recorded draws in one render pass and submit them."""
        records, self._records = self._records, []
        if not records:
            return
        wgpu_dev = self.device.device
        cap = self._capture
        # Per-draw uniform blocks (dynamic offsets).
        n_slots = max([len(r.pulled) for r in records] + [1])
        stride = max(self.cache.uniform_stride(len(r.pulled)) for r in records)
        block = np.zeros((len(records), stride // 4), dtype=np.uint32)
        capture_bufs = None
        if cap is not None:
            capture_bufs = self._prepare_capture(records, cap)
        for i, r in enumerate(records):
            self._fill_block(block[i], r)
        ubuf = wgpu_dev.create_buffer_with_data(data=block, usage="UNIFORM|COPY_DST")
        group0 = {}
        group1 = {}
        enc = wgpu_dev.create_command_encoder()
        rp = enc.begin_render_pass(color_attachments=[{
            "view": self._target_view(), "load_op": "clear", "store_op": "store",
            "clear_value": (0, 0, 0, 0)}])
        current = None
        for i, r in enumerate(records):
            d = r.draw
            count = d.count if r.plan.index.mode != "host" else r.plan.index.values.shape[0]
            if count == 0 or d.instance_count == 0:
                continue
            if r.pipeline is not current:
                rp.set_pipeline(r.pipeline)
                current = r.pipeline
            n = max(1, len(r.pulled))
            g0 = group0.get((r.capture, n))
            if g0 is None:
                entries = [{"binding": 0, "resource": {"buffer": ubuf, "offset": 0,
                                                       "size": self.cache.draw_block_size(n)}}]
                if r.capture:
                    entries += [{"binding": k, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                                for k, b in zip((1, 2, 3), capture_bufs)]
                g0 = wgpu_dev.create_bind_group(layout=self.cache.group0_layout(r.capture, n),
                                                entries=entries)
                group0[(r.capture, n)] = g0
            rp.set_bind_group(0, g0, [i * stride])
            if r.pulled:
                bufs = tuple(r.views[s].buffer if r.views[s] is not None else None for s in r.pulled)
                key = tuple(id(b) for b in bufs)
                g1 = group1.get(key)
                if g1 is None:
                    entries = []
                    for j, b in enumerate(bufs):
                        wb = b.wgpu if b is not None else self._dummy()
                        entries.append({"binding": j, "resource": {"buffer": wb, "offset": 0,
                                                                    "size": wb.size}})
                    g1 = wgpu_dev.create_bind_group(layout=self.cache.group1_layout(len(bufs)),
                                                    entries=entries)
                    group1[key] = g1
                rp.set_bind_group(1, g1)
            else:
                for j, s in enumerate(r.plan.slots):
                    v = r.views[s]
                    rp.set_vertex_buffer(j, v.buffer.wgpu, v.offset, v.size_in_bytes)
            self._encode_draw(rp, r)
        rp.end()
        wgpu_dev.queue.submit([enc.finish()])
        if cap is not None:
            self._read_capture(cap, records, capture_bufs)

    def _dummy(self):
        if not hasattr(self, "_dummy_buf"):
            self._dummy_buf = self.device.device.create_buffer(size=4, usage="STORAGE")
        return self._dummy_buf

    def _encode_draw(self, rp, r: _Record) -> None:
        d = r.draw
        ip = r.plan.index
        if not d.indexed:
            rp.draw(d.vertex_count_per_instance, d.instance_count, d.start_vertex_location,
                    d.start_instance_location)
            return
        if ip.mode == "direct":
            v = r.index_view
            rp.set_index_buffer(v.buffer.wgpu, ip.index_format, v.offset, v.size_in_bytes)
            rp.draw_indexed(d.index_count_per_instance, d.instance_count, d.start_index_location,
                            d.base_vertex_location, d.start_instance_location)
        else:
            values = ip.values
            if r.host_index is None:
                data = np.zeros(max(1, values.shape[0]), dtype=np.uint32)
                data[: values.shape[0]] = values
                r.host_index = self.device.device.create_buffer_with_data(data=data, usage="INDEX")
            rp.set_index_buffer(r.host_index, "uint32", 0, r.host_index.size)
            rp.draw_indexed(values.shape[0], d.instance_count, 0, d.base_vertex_location,
                            d.start_instance_location)

    def _fill_block(self, block: np.ndarray, r: _Record) -> None:
        d = r.draw
        base = d.base_vertex_location & _U32 if d.indexed else d.start_vertex_location
        block[0] = base
        block[1] = d.start_instance_location
        if r.capture:
            keys = r.keys
            block[2] = r.capture_base
            block[3] = r.key_offset
            block[4] = keys.shape[0]
            contiguous = keys.shape[0] == 0 or int(keys[-1]) - int(keys[0]) + 1 == keys.shape[0]
            block[5] = 1 if contiguous else 0
            block[6] = int(keys[0]) if keys.shape[0] else 0
        for j, s in enumerate(r.pulled):
            v = r.views[s]
            off = DRAW_HEADER_WORDS + SLOT_WORDS * j
            if v is None or v.buffer is None:
                continue
            block[off:off + 4] = (v.offset, v.stride_in_bytes, v.size_in_bytes, 1)

    def _prepare_capture(self, records, cap: Capture):
        wgpu_dev = self.device.device
        layout = self._pso.input_layout
        words = record_words(len(layout.elements))
        cap.element_count = len(layout.elements)
        total, key_total = 0, 0
        for r in records:
            r.capture_base = total
            r.key_offset = key_total
            total += r.keys.shape[0] * r.draw.instance_count
            key_total += r.keys.shape[0]
        size = max(4, total * words * 4)
        if size > self.device.caps.max_storage_buffer_binding_size:
            raise UnsupportedError(
                f"the capture needs {size} bytes, more than max-storage-buffer-binding-size "
                f"{self.device.caps.max_storage_buffer_binding_size}; capture fewer vertices per call")
        keys = np.concatenate([r.keys for r in records] + [np.zeros(1, np.uint32)])
        cap_buf = wgpu_dev.create_buffer(size=size, usage="STORAGE|COPY_SRC")
        key_buf = wgpu_dev.create_buffer_with_data(data=keys, usage="STORAGE")
        err_buf = wgpu_dev.create_buffer(size=16, usage="STORAGE|COPY_SRC")
        cap.records = records
        return cap_buf, key_buf, err_buf

    def _read_capture(self, cap: Capture, records, bufs) -> None:
        cap_buf, _, err_buf = bufs
        q = self.device.device.queue
        cap.words = np.frombuffer(q.read_buffer(cap_buf), dtype=np.uint32).copy()
        errs = np.frombuffer(q.read_buffer(err_buf), dtype=np.uint32)
        cap.unexpected = int(errs[0])
        cap.unexpected_max_vertex_index = int(errs[1])
