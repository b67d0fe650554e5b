"""A Direct3D-style device context that draws through wgpu.

State calls only store state, as D3D's do (``ia_set_vertex_buffers`` copies views into slots,
``ia_set_index_buffer`` the index view, ...). Each ``draw_*`` call validates the state against
what WebGPU will accept, plans the draw (native vertex fetch or vertex pulling, see
``gpuia.gpu.vertex.plan``) and encodes it into the open render pass; :meth:`Context.flush` submits.
What depends only on the pipeline state and the bound views (the static plan, the pipeline, the
bind groups) is resolved once and cached, so a draw after a rebind to known views costs a few
dictionary look-ups and the wgpu calls themselves. Redundant ``set_pipeline`` and
``set_vertex_buffer`` calls are skipped.

Between :meth:`Context.begin_capture` and :meth:`end_capture`, draws also write what their vertex
shader received into a storage buffer (sized once all draws are known, so capture draws are
recorded and encoded at :meth:`end_capture`), read back for comparison with the CPU reference.

Two binding forms are accepted, as in the seeds of the API:

.. code-block:: py

    ctx.ia_set_vertex_buffers(0, [vb0, vb1], [12, 4], [0, 0])           # D3D10/11
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(vb0, 12), None])     # D3D12 views; None unbinds

A buffer must carry the ``vertex_buffer`` bind flag to be bound as a vertex buffer (the
``index_buffer`` flag for an index buffer); a buffer currently bound as a Stream Output target is
bound as NULL in the IA, with a warning (IASetVertexBuffers remark).

A context is not thread-safe: a call made while another thread is inside a call of the same
context raises :class:`UnsupportedError` and changes nothing (use one context per thread; the
device and its buffers may be shared). A released buffer or texture
(:meth:`gpuia.gpu.Buffer.release`) is refused where it is bound and at the next draw that would
use it, before anything reaches wgpu.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...d3d.desc import PrimitiveTopology
from ...d3d.draws import DrawIndexedInstanced, DrawInstanced, delivering, draw_of
from ...d3d.ia_desc import IndexBufferView, VertexBufferView
from ...d3d.so_desc import StreamOutputBufferView
from ...errors import InvalidDescError, UnsupportedError
from ...wgsl.uniforms import two_row_matrix_uniforms
from .. import _ffi
from ..buffers import Buffer
from ..device import Device
from ..ia.plan import IndexMode, non_indexed_plan
from ..lifetime import (
    RELEASES,
    ContextWork,
    device_error,
    is_released,
    released_error,
    wgpu_call,
)
from ..quirks import UNIFORM_TWO_ROW_MATRICES, has_effect
from ..so.engine import SOEngine
from ..targets import Texture
from ..vertex.pipelines import TARGET_FORMAT, PipelineCache, check_constant_buffers
from ..vertex.plan import DrawPath, Plan, plan_resolved_draw
from .capture import Capture, CaptureRecord, CaptureSession, sorted_unique
from .om_state import OMState
from .pso import PipelineState
from .recorder import Recorder
from .resolve import StateCache

if TYPE_CHECKING:  # imported where a texture is wrapped: the cpu backend never loads wgpu
    import wgpu

__all__ = ["PipelineState", "Context", "Capture"]

_U32 = 0xFFFFFFFF
_get_ident = threading.get_ident


def _concurrent(what: str) -> UnsupportedError:
    return UnsupportedError(
        f"Context.{what}: another thread is inside a call of this Context; a Context is not "
        f"thread-safe (concurrent calls would corrupt its encoder): use one Context per thread "
        f"(the Device and its buffers may be shared). Nothing was changed or recorded")


def _exclusive(method):
    """Public calls run one thread at a time: a call from another thread while one is inside
    is refused (a non-blocking lock: no waiting, no deadlock); calls a method makes into the
    context's own public methods (same thread) go through. The two hottest calls
    (``draw_instanced``, ``ia_set_vertex_buffers``) take the lock inline instead."""
    what = method.__name__

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        lock = self._lock
        if not lock.acquire(False):
            if self._owner == _get_ident():
                return method(self, *args, **kwargs)
            raise _concurrent(what)
        self._owner = _get_ident()
        try:
            return method(self, *args, **kwargs)
        finally:
            self._owner = None
            lock.release()

    return run


def _guarded(method):
    """Public calls that reach wgpu raise gpuia exceptions for what the device does (lost,
    out of memory) instead of wgpu's, one thread at a time (:func:`_exclusive`)."""
    what = method.__name__

    def translated(self, *args, **kwargs):
        return wgpu_call(lambda: method(self, *args, **kwargs), what)

    translated.__name__ = what
    return functools.wraps(method)(_exclusive(translated))


def _weak_call(method):
    """A callable calling bound ``method`` while its object lives (False after): what the
    device holds of a context must not keep it alive."""
    ref = weakref.WeakMethod(method)

    def call():
        m = ref()
        return m() if m is not None else False

    return call


class Context:
    """A D3D-style context on a :class:`Device`. See the module docstring.

    Arguments:
        device (Device): the device to draw on.
        target: where draws without render targets (pipeline states with no RTVFormats or
            DSVFormat) render: a :class:`~gpuia.gpu.targets.Texture` of format
            R8G8B8A8_UNORM on ``device`` (``Device.create_render_target``), or a
            ``wgpu.GPUTexture`` / ``GPUTextureView`` of format ``rgba8unorm`` on it with
            RENDER_ATTACHMENT usage, one sample, one mip level and one layer (gpuia draws into
            a default view of the texture: a view's own format cannot be read back from
            wgpu-py). By default a 1x1 internal target (the draws still run every vertex
            shader). Anything else is refused here, naming what is wrong.

    Attributes:
        device (Device): the device.
        path (DrawPath): ``auto``, ``native`` or ``pulling`` (:meth:`set_path`); a str enum,
            equal to its string.
        last_plan (Plan | None): the plan of the last draw.
        draw_count (int): draws planned by this context.
        timings (dict | None): set a dict to have :meth:`end_capture` fill in where its time
            went (encode_and_gpu, readback).
        cache (PipelineCache): the pipelines it draws with: the device's, shared by every
            context of the device (:meth:`PipelineCache.of`).

    Raises:
        InvalidDescError: ``device`` is no gpuia Device, or ``target`` is none of the forms
            above (or a released Texture, or of another device; the message names what).
        UnsupportedError: wgpu refused the context's own resources.
        DeviceLostError: the device was lost.
        GpuOutOfMemoryError: the adapter is out of memory.

    Not thread-safe: one thread at a time (see the module docstring). Each method's ``Raises:``
    names what is its own; besides that:

    Every method raises:
        UnsupportedError: another thread is inside a call of this context; the call changes
            nothing.

    A method that reaches wgpu raises:
        DeviceLostError: the device was lost.
        GpuOutOfMemoryError: the adapter is out of memory.

    The methods that reach wgpu: :meth:`clear_render_target_view`,
    :meth:`clear_depth_stencil_view`, :meth:`draw`, :meth:`draw_instanced`,
    :meth:`draw_indexed_instanced`, :meth:`draw_auto`, :meth:`so_set_targets`,
    :meth:`so_statistics`, :meth:`so_filled_size`, :meth:`flush`, :meth:`begin_capture` and
    :meth:`end_capture`.
    """

    def __init__(self, device: Device, *,
                 target: Texture | wgpu.GPUTexture | wgpu.GPUTextureView | None = None):
        if not isinstance(device, Device):
            raise InvalidDescError("Context", "device", device, "expected a gpuia Device")
        self._lock = threading.Lock()  # held during every public call (see _exclusive)
        self._owner: int | None = None  # the thread inside a public call
        self.device = device
        self.cache = PipelineCache.of(device)
        self.path = DrawPath.AUTO
        self.last_plan: Plan | None = None
        self.draw_count = 0
        self._om = OMState(device, self.cache, self._context_target(target))
        self._so_engine: SOEngine | None = None
        self._states = StateCache(
            device, self._om, lambda: {} if self._so_engine is None else self._so_engine.targets)
        self._ia = self._states.ia
        self._rec = wgpu_call(lambda: Recorder(device, self.cache, self._om, self.flush),
                              "Context")  # a lost device fails here
        self._capture = CaptureSession(device, self._rec, self._encode_record, self.flush)
        # What the device knows of this context: released resources wait for its submits. A
        # context dropped with work pending never submits it: what waited for it can go.
        self._work = ContextWork(_weak_call(self._may_hold_work))
        weakref.finalize(self, self._work.retire).atexit = False
        device.register_context(self._work)

    @property
    def timings(self) -> dict | None:
        """None (the default), or a dict that each :meth:`end_capture` with recorded draws
        updates with ``encode_and_gpu`` and ``readback`` (seconds; on the ``storage`` route
        only). Settable."""
        return self._capture.timings

    @timings.setter
    def timings(self, value: dict | None) -> None:
        self._capture.timings = value

    def _context_target(self, target):
        """The gpuia Texture of the ``target`` argument (None: the internal target)."""
        if target is None:
            return None
        import wgpu

        if isinstance(target, Texture):
            tex = target
            if tex.device is not self.device:
                raise InvalidDescError("Context", "target", target,
                                       "expected a Texture of this context's device")
            tex.check_live("Context", "target")
        elif isinstance(target, (wgpu.GPUTexture, wgpu.GPUTextureView)):
            texture = target.texture if isinstance(target, wgpu.GPUTextureView) else target
            try:
                tex = Texture.from_wgpu(self.device, texture)
            except InvalidDescError as e:
                raise InvalidDescError("Context", f"target {e.field}", e.value, e.rule) from None
        else:
            raise InvalidDescError(
                "Context", "target", target,
                "expected a gpuia Texture of format R8G8B8A8_UNORM "
                "(Device.create_render_target), a wgpu GPUTexture or GPUTextureView of format "
                "rgba8unorm with RENDER_ATTACHMENT usage, or None")
        if tex.format.webgpu != TARGET_FORMAT:
            raise InvalidDescError("Context", "target format", tex.format.name,
                                   "the context's own target must be R8G8B8A8_UNORM "
                                   "(rgba8unorm), the format its internal pipelines write")
        return tex

    def _may_hold_work(self) -> bool:
        """Whether this context may hold encoded or recorded draws not yet submitted, or is
        inside a call (on any thread): a resource released now must outlive its next submit."""
        return (self._rec.encoder is not None or bool(self._capture.records)
                or self._capture.running or self._lock.locked())

    def _retire(self) -> None:
        """After a submit: destroy the released resources that waited only for this context.
        Not while a capture's recorded draws are still to be encoded."""
        if not self._capture.records and not self._capture.running:
            self._work.retire()

    @_exclusive
    def stats(self) -> dict:
        """What this context holds and has done, for tests and tuning (a snapshot; the keys are
        stable, the values change with every call):

        ``draws`` planned and ``submits``; ``draw_states``, ``state_epochs`` and ``views``
        cached; ``pending_blocks`` (per-draw uniform blocks not yet submitted) of
        ``ring_capacity``; ``capture_bind_groups`` held for a running capture; ``pipelines``
        built by its cache; ``so_counters`` (BufferFilledSize counters gpuia made);
        ``so_draws``: Stream Output draws encoded as one fused dispatch (``fused``: the host
        knew the counters) and with a prepare step of their own (``prepared``: on the GPU, or
        on the host after a readback for targets larger than a storage binding); and
        ``bound``: the vertex buffer slots, index buffer, root constant buffers, render targets,
        depth-stencil target and Stream Output targets bound now, the topology and the path,
        and whether a capture is running.

        Returns:
            A new dict (``bound`` a new dict in it).
        """
        ia, om, so = self._ia, self._om, self._so_engine
        out = {"draws": self.draw_count, "submits": self._states.flushes,
               "pending_blocks": self._rec.ring.used, "ring_capacity": self._rec.ring.capacity,
               "capture_bind_groups": self._rec.capture_group_count(),
               "pipelines": self.cache.stats.pipelines,
               "so_counters": 0 if so is None else so.counter_count(),
               "so_draws": {"fused": 0, "prepared": 0} if so is None else dict(so.draws)}
        out.update(self._states.counts())
        out["bound"] = {
            "vertex_buffers": sorted(s for s, v in ia.views.items() if v is not None),
            "index_buffer": ia.index is not None,
            "topology": None if ia.topology is None else ia.topology.name,
            "constant_buffers": sorted(om.cbvs),
            "render_targets": len(om.rtvs), "depth_stencil": om.dsv is not None,
            "so_targets": [] if so is None else sorted(so.targets),
            "path": self.path, "capturing": self._capture.active}
        return out

    # -- state -------------------------------------------------------------------------------
    @_exclusive
    def set_pipeline_state(self, pso: PipelineState) -> None:
        """SetPipelineState: the input layout, shaders, strip cut value, Stream Output
        declaration and output state of the following draws, validated now as
        CreateGraphicsPipelineState would (the shader against the layout, the declaration
        against the shader, the pixel shader against the targets).

        Arguments:
            pso (PipelineState): the pipeline state.

        Raises:
            InvalidDescError: ``pso`` is no PipelineState, or does not validate
                (:attr:`PipelineState.signature`, :attr:`PipelineState.so`,
                :meth:`PipelineState.output_state`); the pipeline state in use stays.
            UnsupportedError: the adapter cannot draw it as D3D would (a quirk, named), its
                shaders read more root constant buffers than the adapter binds beside gpuia's
                own uniform blocks (naming ``max-uniform-buffers-per-shader-stage``:
                :func:`~gpuia.gpu.vertex.pipelines.check_constant_buffers`)."""
        if not isinstance(pso, PipelineState):
            raise InvalidDescError("SetPipelineState", "pso", pso, "expected a PipelineState")
        _ = pso.signature  # parse and check the shader against the layout now
        _ = pso.so  # and the Stream Output declaration against the shader
        check_constant_buffers(pso.constant_buffer_slots, self.device.caps,
                               self.device.info["summary"], pso.so is not None)
        if has_effect(self.device.caps.quirks, UNIFORM_TWO_ROW_MATRICES):
            for field_name in ("vertex_shader", "pixel_shader"):
                found = two_row_matrix_uniforms(getattr(pso, field_name) or "")
                if found:
                    raise UnsupportedError(
                        f"SetPipelineState: {field_name} declares {found[0]}, which holds a "
                        f"2-row matrix: {self.device.info['summary']} reads such uniforms with "
                        f"GLSL's 16-byte column stride, not WGSL's 8 "
                        f"(docs/known-adapter-issues.md)")
        self._om.output = pso.output_state(self.device.caps.max_inter_stage_shader_variables)
        self._ia.slot_count = pso.input_layout.profile.slot_count
        self._states.set_pso(pso)

    @_exclusive
    def ia_set_primitive_topology(self, topology: PrimitiveTopology | str | int) -> None:
        """IASetPrimitiveTopology: the topology of the following draws.

        Arguments:
            topology: a :class:`~gpuia.d3d.desc.PrimitiveTopology`, its name (prefix
                optional) or its D3D value.

        Raises:
            InvalidDescError: ``topology`` names no topology gpuia draws (UNDEFINED and patch
                lists included), naming PrimitiveTopology; the topology set stays.
        """
        self._ia.set_primitive_topology(topology)

    def ia_set_vertex_buffers(self, start_slot: int,
                              buffers: Sequence[VertexBufferView | Buffer | None] | None,
                              strides: Sequence[int] | None = None,
                              offsets: Sequence[int] | None = None) -> None:
        """IASetVertexBuffers: bind slots ``start_slot .. start_slot + len(buffers) - 1``; other
        slots keep their bindings. ``buffers`` holds :class:`VertexBufferView` values (D3D12
        form, strides and offsets then not allowed) or :class:`Buffer` objects with parallel
        ``strides`` and ``offsets`` lists (D3D10/11 form; offsets default to 0). None unbinds a
        slot. ``buffers`` None is ignored (D3D12, rules 6.4). A call that fails changes
        nothing; a buffer bound as a Stream Output target is bound as NULL, with a warning
        (a ``UserWarning``; rules 7.3). Bindings are checked against the layout only at the
        draw (rules 6.2: a slot the layout reads that is unbound reads zeros).

        Arguments:
            start_slot (int): the first slot bound (D3D's StartSlot).
            buffers: a sequence of :class:`~gpuia.d3d.desc.VertexBufferView` or None (D3D12
                form), or of :class:`~gpuia.gpu.Buffer` or None (D3D10/11 form); None as a
                whole binds nothing.
            strides: the D3D10/11 form's strides in bytes, one per buffer (None: D3D12 form).
            offsets: the D3D10/11 form's byte offsets, one per buffer (None: all 0).

        Raises:
            InvalidDescError: a slot past the pipeline state's input slots, a buffer of another
                device or without the vertex_buffer bind flag, a released buffer, a stride or
                offset that is no valid view, views mixed with strides, buffers without
                strides, or fewer strides or offsets than buffers (naming the slot and field).
        """
        # One thread at a time (see _exclusive), inlined: this is a hot call. The cached
        # rebind calls nothing of the context, so the owner is set only for the general path.
        lock: threading.Lock | None
        lock = self._lock
        if not lock.acquire(False):
            if self._owner != _get_ident():
                raise _concurrent("ia_set_vertex_buffers")
            lock = None  # a call from inside this context (same thread)
        try:
            ia = self._ia
            states = self._states
            # The common rebind, inlined here (the hottest call with draw_instanced: a call into
            # IAState costs as much as the rest): D3D11 form, plain ints, every (buffer, stride,
            # offset) validated before, so found in the IA's view cache. Views are applied only
            # once all are found (a failing call changes nothing); anything else is IAState's.
            if (strides is not None and type(start_slot) is int
                    and (type(buffers) is list or type(buffers) is tuple)
                    and (type(strides) is list or type(strides) is tuple)):
                n = len(buffers)
                if (0 <= start_slot and start_slot + n <= ia.slot_count and len(strides) >= n
                        and (offsets is None
                             or ((type(offsets) is list or type(offsets) is tuple)
                                 and len(offsets) >= n))):
                    cache = ia.view_cache
                    found = []
                    for i in range(n):
                        st = strides[i]
                        off = 0 if offsets is None else offsets[i]
                        if type(st) is not int or type(off) is not int:
                            break
                        b = buffers[i]
                        v = cache.get((id(b), st, off))
                        if v is None or v.buffer is not b or b.released:
                            break
                        found.append(v)
                    else:
                        if not ia.so_bound or not any(id(v.buffer) in ia.so_bound for v in found):
                            views, ids, pos = ia.views, states.bound_ids, states.slot_pos
                            slot = start_slot
                            for v in found:
                                if views.get(slot) is not v:
                                    views[slot] = v
                                    j = pos.get(slot)
                                    if j is not None:
                                        ids[j] = id(v)  # the state key, updated in place
                                    states.dirty = True
                                slot += 1
                            return
            if lock is not None:
                self._owner = _get_ident()
            ia.set_vertex_buffers(start_slot, buffers, strides, offsets)
        finally:
            if lock is not None:
                self._owner = None
                lock.release()

    @_exclusive
    def ia_set_index_buffer(self, view: IndexBufferView | None) -> None:
        """IASetIndexBuffer: the index buffer view of following indexed draws (None: a NULL
        view, every index reads 0, rules 5.5).

        Arguments:
            view (IndexBufferView | None): the view; one without a buffer is a NULL view too.

        Raises:
            InvalidDescError: ``view`` is no IndexBufferView, or its buffer is no gpuia Buffer
                of this device, lacks the index_buffer bind flag or was released; the view
                bound stays.
        """
        self._ia.set_index_buffer(view)

    # -- output merger and root constants ----------------------------------------------------
    @_exclusive
    def om_set_render_targets(self, rtvs: Texture | Sequence[Texture] | None = (),
                              dsv: Texture | None = None) -> None:
        """OMSetRenderTargets: the color targets (up to 8 :class:`~gpuia.gpu.targets.Texture`s)
        and the depth-stencil target following draws render into. Every target must be of this
        device and of one size; a draw's pipeline state must name the same formats (RTVFormats,
        DSVFormat), checked at the draw. With none bound, draws go to the context's own target.
        Ends the open render pass: later draws render into the new targets.

        Arguments:
            rtvs: a :class:`~gpuia.gpu.targets.Texture` or a sequence of up to 8 color ones
                (empty or None: no color target).
            dsv (Texture | None): the depth-stencil target.

        Raises:
            InvalidDescError: more than 8 color targets, one texture bound twice, a target
                that is no Texture of this device, released, or of the wrong kind (a depth
                format as a color target or the reverse), or targets of different sizes; the
                targets bound stay.
        """
        self._om.set_render_targets(rtvs, dsv)
        self._rec.end_pass()
        self._states.invalidate()

    @_guarded
    def clear_render_target_view(self, rtv: Texture, color: Sequence[float]) -> None:
        """ClearRenderTargetView: fill a color target with ``color`` (4 numbers), in order with
        the draws around it (submitted with them, at the next :meth:`flush`).

        Arguments:
            rtv (Texture): a color target of this device (bound or not).
            color: red, green, blue and alpha, four numbers.

        Raises:
            InvalidDescError: ``rtv`` is no color Texture of this device or was released, or
                ``color`` is not four numbers.
            UnsupportedError: wgpu refused the clear.
        """
        self._rec.clear_pass(color_attachments=[self._om.clear_color(rtv, color)])

    @_guarded
    def clear_depth_stencil_view(self, dsv: Texture, depth: float = 1.0, stencil: int = 0) -> None:
        """ClearDepthStencilView: fill a depth(-stencil) target, in order with the draws around
        it (submitted with them, at the next :meth:`flush`).

        Arguments:
            dsv (Texture): a depth target of this device (bound or not).
            depth (float): the depth, in [0, 1].
            stencil (int): the stencil value, 0..255 (cleared only in a format with stencil).

        Raises:
            InvalidDescError: ``dsv`` is no depth Texture of this device or was released,
                ``depth`` is no number in [0, 1], or ``stencil`` no integer in 0..255.
            UnsupportedError: wgpu refused the clear.
        """
        self._rec.clear_pass(color_attachments=[],
                             depth_stencil_attachment=self._om.clear_depth(dsv, depth, stencil))

    @_exclusive
    def set_graphics_root_constant_buffer_view(self, root_parameter_index: int,
                                               buffer: Buffer | None, offset: int = 0) -> None:
        """SetGraphicsRootConstantBufferView: bind ``buffer`` from byte ``offset`` (D3D12's GPU
        virtual address is buffer + offset: a multiple of 256,
        D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT, and of the adapter's uniform offset
        alignment) as ``@group(3) @binding(root_parameter_index)``. The buffer needs the
        ``constant_buffer`` bind flag. Per-draw constants go in slices of one buffer bound at
        different offsets, as with D3D12 constant rings: ``Buffer.write`` is queued, so
        writing one slice between draws of one flush changes what earlier draws read too.
        That a bound view holds what the shaders read is checked at the draw.

        Arguments:
            root_parameter_index (int): the root parameter, 0..13 (the shaders' ``@binding``).
            buffer (Buffer | None): the constant buffer; None unbinds the parameter.
            offset (int): the byte offset in ``buffer``.

        Raises:
            InvalidDescError: ``root_parameter_index`` is not 0..13, ``buffer`` is no gpuia
                Buffer of this device, lacks the constant_buffer bind flag or was released,
                or ``offset`` is no multiple of the alignment inside the buffer.
        """
        self._om.set_root_constant_buffer_view(root_parameter_index, buffer, offset)
        self._states.invalidate()

    @_exclusive
    def set_path(self, path: DrawPath | str) -> None:
        """The :class:`~gpuia.gpu.vertex.plan.DrawPath` of the following draws, a member or its
        string: ``auto`` (default), ``native`` or ``pulling``. Anything else raises
        :class:`InvalidDescError` and changes nothing. A forced path a draw cannot take is
        refused at that draw.

        Arguments:
            path (DrawPath | str): the path.

        Raises:
            InvalidDescError: ``path`` is no DrawPath value.
        """
        self.path = DrawPath.of(path, "set_path", "path")
        self._states.invalidate()

    # -- draws -------------------------------------------------------------------------------
    def draw_instanced(self, vertex_count_per_instance: int, instance_count: int = 1,
                       start_vertex_location: int = 0, start_instance_location: int = 0) -> Plan:
        """DrawInstanced: what :meth:`draw` does with a
        :class:`~gpuia.d3d.desc.DrawInstanced` of these arguments. A draw whose state is native
        everywhere with nothing per draw, and whose every fetch is inside the views, is
        encoded without building the draw value (the same result, a few calls cheaper).

        Arguments:
            vertex_count_per_instance (int): VertexCountPerInstance.
            instance_count (int): InstanceCount.
            start_vertex_location (int): StartVertexLocation.
            start_instance_location (int): StartInstanceLocation.

        Returns:
            The draw's :class:`Plan`.

        Raises:
            InvalidDescError: an argument is no 32-bit unsigned integer, or what
                :meth:`draw` raises it for.
            UnsupportedError: what :meth:`draw` raises it for.
        """
        # One thread at a time (see _exclusive), inlined: this is a hot call.
        # The fast path calls nothing of the context, so the owner is set only before the
        # general path (draw, a public call that checks it).
        lock: threading.Lock | None
        lock = self._lock
        if not lock.acquire(False):
            if self._owner != _get_ident():
                raise _concurrent("draw_instanced")
            lock = None  # a call from inside this context (same thread)
        try:
            vc, ic, sv, si = (vertex_count_per_instance, instance_count, start_vertex_location,
                              start_instance_location)
            states = self._states
            state = (states.state if not states.dirty and states.releases_seen == RELEASES[0]
                     else states.resolve())
            assert state is not None  # resolved since the last change
            # Fast path: a state whose every slot is native with nothing per draw (see
            # DrawState.fast), plain ints, every fetch in bounds. Anything else: the general path.
            if (state.fast and self.path != "pulling"
                    and type(vc) is int and type(ic) is int and type(sv) is int and type(si) is int
                    and 0 < vc <= _U32 and 0 < ic <= _U32 and 0 <= sv <= _U32 - vc + 1
                    and 0 <= si <= _U32 - ic + 1):
                if sv + vc - 1 > state.fast_last_vertex:
                    return self._general_draw(lock, DrawInstanced(vc, ic, sv, si))
                for rate, last in state.fast_instances:
                    if si + ((ic - 1) // rate if rate else 0) > last:
                        break
                else:
                    # Encode inline (the hottest path of the package; see _ffi).
                    rec = self._rec
                    if rec.render_pass is None:
                        rec.open_pass()
                    rp = rec.pass_handle
                    if state is not rec.encoded_state:
                        # Raw calls keep no references: the pass holds each state it
                        # encoded (once).
                        rec.pass_states[id(state)] = state
                        rec.encoded_state = state
                    pipeline = state.pipelines.fast
                    if pipeline is None:
                        pipeline = state.pipelines.fast = rec.pipeline(state, DrawPath.NATIVE)
                    if pipeline is not rec.bound_pipeline:
                        _ffi.set_pipeline(rec.render_pass, pipeline)
                        rec.bound_pipeline = pipeline
                    bound = rec.bound_vb
                    j = 0
                    for b in state.native_handles:
                        if bound[j] is not b:
                            _ffi.raw_set_vertex_buffer(rp, j, b[0], b[1], b[2])
                            bound[j] = b
                        j += 1
                    _ffi.raw_draw(rp, vc, ic, sv, si)
                    plan = state.native_plan
                    self.last_plan = plan
                    self.draw_count += 1
                    return plan
            return self._general_draw(lock, DrawInstanced(vc, ic, sv, si))
        finally:
            if lock is not None:
                self._owner = None
                lock.release()

    def _general_draw(self, lock, draw) -> Plan:
        """draw_instanced's general path: :meth:`draw`, as the lock's owner (``lock`` None:
        the thread owned it already)."""
        if lock is not None:
            self._owner = _get_ident()
        return self.draw(draw)

    @_exclusive
    def draw_indexed_instanced(self, index_count_per_instance: int, instance_count: int = 1,
                               start_index_location: int = 0, base_vertex_location: int = 0,
                               start_instance_location: int = 0) -> Plan:
        """DrawIndexedInstanced: what :meth:`draw` does with a
        :class:`~gpuia.d3d.desc.DrawIndexedInstanced` of these arguments.

        Arguments:
            index_count_per_instance (int): IndexCountPerInstance.
            instance_count (int): InstanceCount.
            start_index_location (int): StartIndexLocation.
            base_vertex_location (int): BaseVertexLocation (signed 32-bit).
            start_instance_location (int): StartInstanceLocation.

        Returns:
            The draw's :class:`Plan`.

        Raises:
            InvalidDescError: an argument is out of its range, or what :meth:`draw` raises
                it for.
            UnsupportedError: what :meth:`draw` raises it for.
        """
        return self.draw(DrawIndexedInstanced(index_count_per_instance, instance_count,
                                              start_index_location, base_vertex_location,
                                              start_instance_location))

    @_guarded
    def draw(self, draw: DrawInstanced | DrawIndexedInstanced | dict) -> Plan:
        """Plan and encode one draw: a :class:`DrawInstanced`, a :class:`DrawIndexedInstanced`
        or their case-file dict form.

        The draw is checked against the state first: a pipeline state and a topology must be
        set, the render targets must match its RTVFormats/DSVFormat, every root constant
        buffer its shaders read must be bound and hold what they read, and nothing bound may
        have been released. A draw that delivers nothing (a count of 0) encodes nothing. A
        draw of a pipeline state with Stream Output also streams out (rules section 9);
        with NO_RASTERIZED_STREAM it renders nothing. During a capture the draw is recorded
        and encoded at :meth:`end_capture`. Encoded draws are submitted by :meth:`flush`.

        Arguments:
            draw: the draw, in one of the forms above.

        Returns:
            The :class:`Plan` (:func:`gpuia.gpu.vertex.plan.plan_resolved_draw`): the path, why, and
            how the indices reach the GPU.

        Raises:
            InvalidDescError: the state or the draw is not valid D3D (naming the field).
            UnsupportedError: gpuia cannot draw it exactly on this adapter (with the reason);
                nothing is encoded then.
        """
        if not isinstance(draw, (DrawInstanced, DrawIndexedInstanced)):
            draw = draw_of(draw)
        draw = delivering(draw)
        states = self._states
        state = states.current()
        ib = self._ia.index
        if draw.indexed and ib is not None and ib.buffer is not None and ib.buffer.released:
            raise released_error("draw", "index buffer", ib.buffer)
        capture = state.capture
        pso = state.pso
        if capture:
            limit = self._capture.limit(len(pso.input_layout.elements))
            if draw.count > limit:
                raise UnsupportedError(
                    f"a capture draw of {draw.count} vertices per instance exceeds what one "
                    f"capture can hold ({limit} on this adapter)")
        plan = plan_resolved_draw(state.static, draw, state.topology, self.device.caps, ib,
                                  pso.strip_cut_value, self.path, capture, state.assembly)
        index = plan.index
        self.last_plan = plan
        self.draw_count += 1
        if capture:
            if index.fetch is None:
                raise UnsupportedError("capture needs the draw's fetch indices on the host")
            if self._rec.capture_route != "targets":  # that route's pipelines are built per group
                self._rec.pipeline(state, plan.path)
            self._capture.record(CaptureRecord(
                state, draw, plan, sorted_unique(index.fetch), index_view=ib,
                cbv_group=self._om.cbv_group(state.cbvs) if state.cbvs else None))
            return plan
        if state.so is not None and draw.instance_count:  # an empty draw streams out nothing
            if state.static.pulling_obstacles:
                raise UnsupportedError("Stream Output pulls the draw's vertices: "
                                       + "; ".join(state.static.pulling_obstacles))
            so = state.so
            self._so().encode(state, so, draw, pso.strip_cut_value)
            if not so.rasterizes:
                return plan  # NO_RASTERIZED_STREAM: the draw rasterizes nothing
        if index.mode is IndexMode.HOST:
            assert index.values is not None  # a host stream holds its values
            count = index.values.shape[0]
        else:
            count = draw.count
        if count == 0 or draw.instance_count == 0:
            return plan
        self._rec.encode(state, plan.path, draw, index,
                         self._rec.next_block(state, plan.path, draw, None, index.vertex_shift),
                         ib)
        return plan

    # -- Stream Output -----------------------------------------------------------------------
    def _set_pso(self) -> PipelineState:
        """The pipeline state set (the Stream Output engine asks only while it encodes a draw,
        which has one)."""
        pso = self._states.pso
        assert pso is not None
        return pso

    def _so(self) -> SOEngine:
        if self._so_engine is None:
            self._so_engine = SOEngine(
                self.device, self.cache, self._rec, self._ia,
                lambda: self._om.cbv_group(self._set_pso().constant_buffer_slots), self.flush)
        return self._so_engine

    @_guarded
    def so_set_targets(self, views: Sequence[StreamOutputBufferView | None] | None,
                       offsets: Sequence[int] | None = None) -> None:
        """SOSetTargets: bind :class:`~gpuia.d3d.desc.StreamOutputBufferView`s to output slots
        0..n-1 (None: unbound; fewer than four: the rest unbound). ``offsets`` (D3D11 style)
        sets each target's BufferFilledSize, -1 appending where it stands; views with their own
        counter buffer (D3D12) keep it; a buffer first bound without one gets a gpuia counter
        starting at 0 (rules 9.5). A target buffer bound in the IA is unbound there, with a
        warning, as the D3D runtime does (rules 7.3); the buffer's host copy is dropped (the
        GPU writes it). Views over released buffers are refused. Pending draws are submitted
        first, so that the new filled sizes apply only to later draws. A call that fails
        changes nothing.

        Arguments:
            views: a sequence of up to 4 :class:`~gpuia.d3d.desc.StreamOutputBufferView` or
                None, for slots 0 up; None as a whole unbinds every slot.
            offsets: one BufferFilledSize per view (bytes, a multiple of 4; -1 or 0xFFFFFFFF:
                append), or None to keep the counters as they are.

        Raises:
            InvalidDescError: ``views`` is no sequence or holds more than 4, fewer offsets
                than views, a view that is no StreamOutputBufferView, a buffer that is no
                gpuia Buffer of this device, lacks the stream_output bind flag or was
                released, a BufferLocation offset or counter location that is no multiple of
                4 inside its buffer, or an offset that is none of the values above.
            UnsupportedError: wgpu refused the submit.
        """
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
        so = self._so()
        so.set_targets(views, offsets)
        self._ia.set_so_targets({id(t.buffer) for t in so.targets.values()})

    @_guarded
    def so_statistics(self) -> dict[str, int]:
        """SO statistics of stream 0 over every draw of this context (waits for the GPU):
        D3D12_QUERY_DATA_SO_STATISTICS (rules 10.1, 10.2). Pending draws are submitted first.

        Returns:
            ``{"NumPrimitivesWritten": n, "PrimitivesStorageNeeded": m}`` (64-bit counts).

        Raises:
            UnsupportedError: wgpu refused the submit or the read.
        """
        return self._so().statistics()

    @_guarded
    def so_filled_size(self, slot: int) -> int:
        """The BufferFilledSize of the SO target at ``slot`` (waits for the GPU). Refused when
        its counter is in a released buffer (reading it back would submit a destroyed one).
        Pending draws are submitted first.

        Arguments:
            slot (int): the Stream Output slot, 0..3.

        Returns:
            The filled size in bytes (rules 9.5, 9.6).

        Raises:
            InvalidDescError: no target is bound at ``slot``, or its counter's buffer was
                released.
            UnsupportedError: wgpu refused the read.
        """
        t = self._so().targets.get(slot) if type(slot) is int else None
        counter = None if t is None else t.view.filled_size_buffer
        if isinstance(counter, Buffer) and counter.released:
            raise released_error("so_filled_size", f"SO target {slot} BufferFilledSizeLocation",
                                 counter)
        return self._so().filled_size(slot)

    @_guarded
    def draw_auto(self) -> Plan:
        """DrawAuto: draw the vertices the Stream Output wrote into the buffer bound at IA slot 0,
        ``(BufferLocation + BufferFilledSize - IA offset) // stride`` of them, counted on the GPU
        (an indirect draw; no readback). Always pulled: the count is unknown on the host, and the
        fetch still follows D3D's bounds for every slot (rules 10.5, 6.5). The count is that
        of the last Stream Output view bound over the buffer, whether it is bound now or not.

        Returns:
            A :class:`Plan` of path ``pulling`` (its vertex count is not known on the host).

        Raises:
            InvalidDescError: no buffer is bound at IA slot 0, that buffer was never a Stream
                Output target, its counter's buffer was released, or the state is not valid
                for a draw (as :meth:`draw`).
            UnsupportedError: the pipeline state has Stream Output, or the draw cannot be
                pulled on this adapter.
        """
        state = self._states.current()
        if state.so is not None:
            raise UnsupportedError("Stream Output of a DrawAuto draw: its vertex count is known "
                                   "only on the GPU")
        view0 = self._ia.views.get(0)
        if view0 is None or view0.buffer is None:
            raise InvalidDescError("DrawAuto", "IA slot 0", None,
                                   "DrawAuto draws from the buffer bound at IA slot 0; none is")
        known = self._so().counter_of(view0.buffer)
        if known is None:
            raise InvalidDescError("DrawAuto", "IA slot 0", view0.buffer,
                                   "that buffer was never a Stream Output target, so it has no "
                                   "BufferFilledSize")
        counter, counter_offset, location = known
        if is_released(counter):
            raise InvalidDescError("DrawAuto", "IA slot 0", view0.buffer,
                                   "the BufferFilledSizeLocation buffer of its last Stream Output "
                                   "view was released")
        if state.static.pulling_obstacles:
            raise UnsupportedError("DrawAuto pulls its vertices: "
                                   + "; ".join(state.static.pulling_obstacles))
        assert view0.size_in_bytes is not None  # resolved: the view has a buffer
        max_vertices = (view0.size_in_bytes // view0.stride_in_bytes + 1
                        if view0.stride_in_bytes else 1)
        elements = len(state.pso.input_layout.elements)
        draw = DrawInstanced(0, 1, 0, 0)
        plan = Plan(DrawPath.PULLING, ["DrawAuto: the vertex count is on the GPU"],
                    non_indexed_plan(0, min(max_vertices, self._capture.limit(elements)),
                                     with_fetch=state.capture), state.static.slots)
        self.last_plan = plan
        self.draw_count += 1
        args = (counter, counter_offset, location, view0.offset, view0.stride_in_bytes)
        if state.capture:
            if self._rec.capture_route != "targets":
                self._rec.pipeline(state, DrawPath.PULLING)
            assert plan.index.fetch is not None  # planned with_fetch for a capture
            self._capture.record(CaptureRecord(
                state, draw, plan, plan.index.fetch.astype(np.uint32), auto=args,
                cbv_group=self._om.cbv_group(state.cbvs) if state.cbvs else None))
            return plan
        self._encode_auto(state, draw, args,
                          self._rec.next_block(state, DrawPath.PULLING, draw, None))
        return plan

    def _encode_auto(self, state, draw, args, block_offset, capture_bufs=None,
                     cbv_group=None) -> None:
        indirect = self._so().encode_draw_auto_args(*args)
        self._rec.encode(state, DrawPath.PULLING, draw, non_indexed_plan(0, 0), block_offset,
                         self._ia.index, capture_bufs, indirect=indirect, cbv_group=cbv_group)

    def _encode_record(self, r: CaptureRecord, bufs) -> None:
        """Encode one recorded capture draw (the capture session's callback)."""
        d = r.draw
        if r.auto is not None:
            self._encode_auto(r.state, d, r.auto,
                              self._rec.next_block(r.state, DrawPath.PULLING, d, r), bufs,
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
        offset = self._rec.next_block(r.state, r.plan.path, d, r, r.plan.index.vertex_shift)
        self._rec.encode(r.state, r.plan.path, d, r.plan.index, offset, r.index_view, bufs,
                         cbv_group=r.cbv_group)

    # -- submission --------------------------------------------------------------------------
    @_guarded
    def flush(self) -> None:
        """Submit every draw encoded since the last flush; then destroy what was released while
        they were pending (:meth:`gpuia.gpu.Buffer.release`). Does not wait for the GPU. With
        nothing encoded it submits nothing.

        Raises:
            UnsupportedError: wgpu refused the encoded draws (nothing was submitted, and they
                are dropped).
        """
        try:
            submitted = self._rec.submit()
        except Exception as e:  # noqa: BLE001 - wgpu validation at finish(): none submitted
            self._retire()  # nor will it be
            raise device_error(e, "flush") or UnsupportedError(
                f"wgpu refused the encoded draws: {e}") from None
        self._retire()
        if submitted:
            self._states.flushed()

    # -- capture -----------------------------------------------------------------------------
    @_guarded
    def begin_capture(self, route: str = "auto") -> None:
        """Start recording what vertex shaders receive. Pending draws are submitted first.

        Until :meth:`end_capture`, draws are recorded instead of encoded (each as a point list
        over the vertices D3D delivers, cuts applied), so the record buffer can be sized once
        every draw is known; the draws of one capture must share one input layout. A capture
        already running is discarded with its recorded draws: so a context whose capture was
        cut short by an exception (a refused draw) starts the next one cleanly.

        Arguments:
            route (str): ``storage`` (vertex shaders write records to a storage buffer; needs
                the adapter feature vertex-writable-storage), ``targets`` (one point per
                record rendered into rgba32uint color targets; works on any adapter), or
                ``auto`` (storage when available).

        Raises:
            InvalidDescError: ``route`` is none of the three.
            UnsupportedError: ``storage`` on an adapter without vertex-writable-storage, or
                wgpu refused the submit.
        """
        route = self._capture.resolve_route(route)  # refused before anything is submitted
        self.flush()
        self._capture.begin(route)
        self._states.capturing = True
        self._states.invalidate()

    @_guarded
    def end_capture(self) -> Capture:
        """Encode and run the captured draws and read back what they received.

        Returns:
            The :class:`Capture`: per recorded draw its records, and the invocations D3D would
            not have made (``unexpected``). Empty (no ``words``) when no draw was recorded.

        Raises:
            InvalidDescError: :meth:`begin_capture` was not called.
            UnsupportedError: the recorded draws have different input layouts, or need more
                than one storage binding (``storage``) or texture (``targets``) holds, or wgpu
                refused them. The capture is over either way.
        """
        if not self._capture.active:
            raise InvalidDescError("end_capture", None, None, "begin_capture was not called")
        self._states.capturing = False
        self._states.invalidate()
        try:
            return self._capture.end()
        finally:
            self._retire()
