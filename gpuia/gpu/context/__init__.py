"""A Direct3D-style device context that draws through wgpu: :class:`Context`, a D3D-shaped
facade over the parts that do the work.

State calls only store state, as D3D's do (the IA's bindings: :mod:`~gpuia.gpu.context.ia_state`,
with the two binding forms of ``ia_set_vertex_buffers``; the output merger's:
:mod:`~gpuia.gpu.context.om_state`). Each ``draw_*`` call validates the state against what WebGPU
will accept, plans the draw (native vertex fetch or vertex pulling, :mod:`gpuia.gpu.vertex.plan`)
and encodes it into the open render pass (:mod:`~gpuia.gpu.context.drawing`; what depends only
on the pipeline state and the bound views is resolved once and cached,
:mod:`~gpuia.gpu.context.resolve`); :meth:`Context.flush` submits. Between
:meth:`Context.begin_capture` and :meth:`Context.end_capture` draws are recorded, then run
writing what their vertex shader received, read back for comparison with the CPU reference
(:mod:`~gpuia.gpu.context.capture`). Queries and predication (``begin_query``,
``resolve_query_data``, ``set_predication``) come from
:class:`~gpuia.gpu.context.query_calls.QueryCalls`.

A context is not thread-safe: a call made while another thread is inside a call of the same
context raises :class:`UnsupportedError` and changes nothing (use one context per thread; the
device and its buffers may be shared). A released buffer or texture
(:meth:`gpuia.gpu.Buffer.release`) is refused where it is bound and at the next draw that would
use it, before anything reaches wgpu.
"""

# size: ~730 lines, all of it the facade: the D3D methods' signatures and docstrings (~370
# lines) and the two hottest calls, ia_set_vertex_buffers and draw_instanced, inline (~120
# lines: a call out of either costs ~110 ns, 3-5% of a rebind and draw). Every other method's
# work is its part's (drawing, resolve, capture, ia_state, om_state, guard, query_calls).
from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...d3d.desc import PrimitiveTopology
from ...d3d.draws import DrawIndexedInstanced, DrawInstanced
from ...d3d.formats import FormatInfo
from ...d3d.ia_desc import IndexBufferView, VertexBufferView
from ...d3d.so_desc import StreamOutputBufferView
from ...errors import InvalidDescError
from .. import _ffi
from ..device import Buffer, Device
from ..gs.capture import GSCaptured
from ..lifetime import RELEASES
from ..targets import Texture
from ..textures import Texture2D
from ..vertex.pipelines import PipelineCache
from ..vertex.plan import DrawPath, Plan
from .capture import Capture
from .drawing import Drawing
from .guard import concurrent_error, exclusive, guarded, weak_call
from .om_state import OMState, context_target
from .pso import PipelineState
from .queries import PredicationOp, QueryHeap, QueryHeapType, QueryType
from .query_calls import QueryCalls, QueryState

if TYPE_CHECKING:  # imported where a texture is wrapped: the cpu backend never loads wgpu
    import wgpu

__all__ = ["PipelineState", "Context", "Capture", "QueryHeap", "QueryHeapType", "QueryType",
           "PredicationOp"]

_U32 = 0xFFFFFFFF
_get_ident = threading.get_ident


class Context(QueryCalls):
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
    :meth:`so_statistics`, :meth:`so_filled_size`, :meth:`flush`, :meth:`begin_capture`,
    :meth:`end_capture`, :meth:`begin_gs_capture`, :meth:`end_gs_capture`,
    :meth:`begin_query`, :meth:`end_query`, :meth:`resolve_query_data` and
    :meth:`set_predication`.
    """

    def __init__(self, device: Device, *,
                 target: Texture | wgpu.GPUTexture | wgpu.GPUTextureView | None = None):
        if not isinstance(device, Device):
            raise InvalidDescError("Context", "device", device, "expected a gpuia Device")
        self._lock = threading.Lock()  # held during every public call (see guard.exclusive)
        self._owner: int | None = None  # the thread inside a public call
        self.device = device
        self.cache = PipelineCache.of(device)
        self.path = DrawPath.AUTO
        self.last_plan: Plan | None = None
        self.draw_count = 0
        self._om = OMState(device, self.cache, context_target(device, target))
        self._queries = QueryState()  # open queries and the predicate (query_calls)
        # What the device knows of this context: released resources wait for its submits. A
        # context dropped with work pending never submits it: what waited for it can go.
        self._drawing = Drawing(device, self.cache, self._om, self.flush,
                                weak_call(self._may_hold_work))
        self._states, self._ia, self._rec = (self._drawing.states, self._drawing.ia,
                                             self._drawing.rec)
        weakref.finalize(self, self._drawing.work.retire).atexit = False
        device.register_context(self._drawing.work)

    @property
    def timings(self) -> dict | None:
        """None (the default), or a dict that each :meth:`end_capture` with recorded draws
        updates with ``encode_and_gpu`` and ``readback`` (seconds; on the ``storage`` route
        only). Settable."""
        return self._drawing.capture.timings

    @timings.setter
    def timings(self, value: dict | None) -> None:
        self._drawing.capture.timings = value

    def _may_hold_work(self) -> bool:
        """Whether this context may hold encoded or recorded draws not yet submitted, or is
        inside a call (on any thread): a resource released now must outlive its next submit."""
        return self._drawing.holds_work() or self._lock.locked()

    @exclusive
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
        return self._drawing.stats(self.draw_count, self.path)

    # -- state -------------------------------------------------------------------------------
    @exclusive
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
        self._drawing.set_pipeline_state(pso)

    @exclusive
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
            buffers: a sequence of :class:`~gpuia.d3d.ia_desc.VertexBufferView` or None (D3D12
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
        # One thread at a time (guard.exclusive), inlined: a hot call. The cached rebind calls
        # nothing of the context, so the owner is set only for the general path.
        lock: threading.Lock | None
        lock = self._lock
        if not lock.acquire(False):
            if self._owner != _get_ident():
                raise concurrent_error("ia_set_vertex_buffers")
            lock = None  # a call from inside this context (same thread)
        try:
            ia, states = self._ia, self._states
            # The common rebind, inlined (a call into IAState costs as much): D3D11 form, plain
            # ints, (buffer, stride, offset) validated before, so in the IA's view cache; views
            # applied once all are found (a failing call changes nothing). Else IAState's.
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

    @exclusive
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
    @exclusive
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

    @guarded
    def clear_render_target_view(self, rtv: Texture, color: Sequence[float]) -> None:
        """ClearRenderTargetView: fill a color target with ``color`` (4 numbers), in order with
        the draws around it (submitted with them, at the next :meth:`flush`); checked only while
        :meth:`set_predication` skips.

        Arguments:
            rtv (Texture): a color target of this device (bound or not).
            color: red, green, blue and alpha, four numbers.

        Raises:
            InvalidDescError: ``rtv`` is no color Texture of this device or was released, or
                ``color`` is not four numbers.
            UnsupportedError: wgpu refused the clear.
        """
        attachment = self._om.clear_color(rtv, color)  # checked even when predicated
        if not self._queries.skipping:  # set_predication skips it (query_calls)
            self._rec.clear_pass(color_attachments=[attachment])

    @guarded
    def clear_depth_stencil_view(self, dsv: Texture, depth: float = 1.0, stencil: int = 0) -> None:
        """ClearDepthStencilView: fill a depth(-stencil) target, in order with the draws around
        it (submitted with them, at the next :meth:`flush`); checked only while
        :meth:`set_predication` skips.

        Arguments:
            dsv (Texture): a depth target of this device (bound or not).
            depth (float): the depth, in [0, 1].
            stencil (int): the stencil value, 0..255 (cleared only in a format with stencil).

        Raises:
            InvalidDescError: ``dsv`` is no depth Texture of this device or was released,
                ``depth`` is no number in [0, 1], or ``stencil`` no integer in 0..255.
            UnsupportedError: wgpu refused the clear.
        """
        attachment = self._om.clear_depth(dsv, depth, stencil)  # checked even when predicated
        if not self._queries.skipping:  # set_predication skips it (query_calls)
            self._rec.clear_pass(color_attachments=[], depth_stencil_attachment=attachment)

    @exclusive
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

    @exclusive
    def set_graphics_root_shader_resource_view(self, shader_register: int,
                                               buffer: Buffer | None, offset: int = 0,
                                               num_elements: int | None = None,
                                               structure_byte_stride: int | None = None,
                                               register_space: int = 0,
                                               format: str | int | FormatInfo | None = None
                                               ) -> None:
        """SetGraphicsRootShaderResourceView: bind ``buffer`` from byte ``offset`` as the vertex
        shader's ``register(t<shader_register>, space<register_space>)`` (gpuia's implied root
        signature: a root SRV per register and space), a ``StructuredBuffer<T>``,
        ``ByteAddressBuffer`` or, with ``format``, a typed ``Buffer<T>`` (docs/resources.md). The
        view holds ``num_elements`` elements (D3D12_BUFFER_SRV's NumElements: of the shader's
        structure stride, 4-byte words for a raw buffer, the format's elements for a typed one;
        None: as many whole ones as the buffer holds after ``offset``); a read past it returns 0,
        as D3D12 defines. ``structure_byte_stride``, when given, must be the shader's.
        What the shader needs of the view is checked at the draw. The buffer needs the
        ``shader_resource`` bind flag.

        Arguments:
            shader_register (int): N of the vertex shader's ``register(tN)``, 0..127.
            buffer (Buffer | None): the buffer; None unbinds the register.
            offset (int): the view's first byte in ``buffer`` (FirstElement times the stride).
            num_elements (int | None): the view's NumElements; None: to the buffer's end.
            structure_byte_stride (int | None): the view's StructureByteStride, checked
                against the shader's at the draw; None: the shader's.
            register_space (int): S of the shader's ``spaceS``, 0..6 (default 0).
            format: the DXGI format of a typed ``Buffer<T>``'s view (``"R8G8B8A8_UNORM"``,
                a FormatInfo or the enum value; None for the other kinds). D3D12 binds a typed
                view only through a descriptor table (a root SRV is raw or structured):
                gpuia's implied root signature takes it as a table of this one descriptor, its
                FirstElement ``offset`` / the format's size and NumElements in elements of the
                format; the format must be one D3D12 takes for a buffer SRV whose values are
                the shader's kind (float, uint or int), checked at the draw.

        Raises:
            InvalidDescError: ``shader_register`` is not 0..127, ``register_space`` not
                0..6, ``buffer`` is no gpuia Buffer of this device, lacks the
                shader_resource bind flag or was released,
                ``offset`` is not a multiple of 4 (of the format's size, with ``format``)
                inside the buffer, a count is negative, or ``format`` is one D3D12 refuses for
                a buffer view (typeless, sRGB, depth, block-compressed, ...).
        """
        self._om.srv.set(shader_register, buffer, offset, num_elements, structure_byte_stride,
                         register_space, format)
        self._states.invalidate()

    @exclusive
    def set_graphics_root_unordered_access_view(self, shader_register: int,
                                                buffer: Buffer | None, offset: int = 0,
                                                num_elements: int | None = None,
                                                structure_byte_stride: int | None = None,
                                                register_space: int = 0,
                                                format: str | int | FormatInfo | None = None,
                                                ) -> None:
        """SetGraphicsRootUnorderedAccessView: bind ``buffer`` from byte ``offset`` as the vertex
        shader's ``register(u<shader_register>, space<register_space>)``, a
        ``RWStructuredBuffer<T>`` or ``RWByteAddressBuffer`` (docs/resources.md, "Unordered
        access views"), or with ``format`` a typed ``RWBuffer<T>`` (D3D12 binds one through a
        descriptor table; the implied root signature takes it as a table of this one
        descriptor). The view is given as an SRV's is (``num_elements`` of the shader's
        stride, 4-byte words for a raw buffer; None: to the buffer's end); the shader's writes
        land in ``buffer`` (read it after the draws with ``buffer.read()``), a write past the
        view is dropped and a read past it returns 0, as D3D12 defines. Each draw runs the
        vertex shader on the GPU as many times per vertex as its path needs, so only writes
        that do not depend on that count have a defined result (rules 18). The buffer needs
        the ``unordered_access`` bind flag; the adapter, wgpu's ``vertex-writable-storage``
        feature (else the pipeline state is refused when set).

        Arguments:
            shader_register (int): N of the vertex shader's ``register(uN)``, 0..63.
            buffer (Buffer | None): the buffer; None unbinds the register.
            offset (int): the view's first byte in ``buffer`` (FirstElement times the stride).
            num_elements (int | None): the view's NumElements; None: to the buffer's end.
            structure_byte_stride (int | None): the view's StructureByteStride, checked
                against the shader's at the draw; None: the shader's.
            register_space (int): S of the shader's ``spaceS``, 0..6 (default 0).
            format: a typed view's DXGI format (name, ``FormatInfo`` or value), T's
                components in 32-bit channels of T's kind (``R32G32B32A32_FLOAT`` for a
                ``RWBuffer<float4>``, ``R32_UINT`` for a ``RWBuffer<uint>``); None (the
                default) for a structured or raw view.

        Raises:
            InvalidDescError: ``shader_register`` is not 0..63, ``register_space`` not 0..6,
                ``buffer`` is no gpuia Buffer of this device, lacks the unordered_access bind
                flag or was released, ``offset`` is not a multiple of 4 (of the format's size)
                inside the buffer, a count is negative, a format D3D12 refuses for a buffer
                view; at the draw, a format whose values are not T's kind.
            UnsupportedError: at the draw, a typed UAV's format of other channels than T's
                32-bit ones (its writes would convert: docs/rules.md 18.5).
        """
        self._om.srv.set(shader_register, buffer, offset, num_elements, structure_byte_stride,
                         register_space, format, writable=True)
        self._states.invalidate()

    @exclusive
    def set_texture_shader_resource_view(self, shader_register: int,
                                         texture: Texture2D | None,
                                         register_space: int = 0) -> None:
        """Bind ``texture`` (:func:`gpuia.gpu.textures.create_texture`; None unbinds) as the
        vertex and geometry shaders' ``Texture1D``, ``Texture2D`` (or array) or ``Texture3D`` at
        ``register(t<shader_register>, space<register_space>)``: what CreateShaderResourceView
        of the whole texture (D3D12_TEX1D_SRV, TEX2D_SRV, TEX2D_ARRAY_SRV or TEX3D_SRV:
        MostDetailedMip 0, every level) in a descriptor table at that register gives
        (docs/resources.md). A t register holds a texture or a buffer SRV, never both (the
        shader's compile refuses it). Raises InvalidDescError for a register past t127 or
        space6, or no texture of this device; a draw refuses a released texture, one of
        another dimension than the shader's (an SRV's dimension is its resource's) and one
        whose format's return type (float, uint, int) is not the shader's (rules 17.12).

        Arguments:
            shader_register (int): N of ``register(tN)``, 0..127.
            texture: a texture of this Context's device, or None to unbind.
            register_space (int): S of ``spaceS``, 0..6.
        """
        self._om.tex.set_texture(shader_register, texture, register_space)
        self._states.invalidate()

    @exclusive
    def set_sampler(self, shader_register: int, desc: dict | None) -> None:
        """Bind a sampler (D3D12_SAMPLER_DESC, or a root signature's static sampler: a dict of
        its snake_case fields, ``gpuia.d3d.textures.sampler_desc``; None unbinds) at the vertex
        and geometry shaders' ``register(s<shader_register>)``, 0..15 (docs/resources.md). Raises
        InvalidDescError for a bad field, UnsupportedError for a filter or address mode gpuia
        does not sample. A register the pipeline state's root signature holds in a static
        sampler needs no call (the draw binds the static sampler); a sampler set there is
        refused by the draw, naming the register, as D3D12 gives no way to override a static
        sampler.

        Arguments:
            shader_register (int): N of ``register(sN)``, 0..15.
            desc (dict): the sampler's D3D12_SAMPLER_DESC fields in snake_case, or None.
        """
        self._om.tex.set_sampler(shader_register, desc)
        self._states.invalidate()

    @exclusive
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
        :class:`~gpuia.d3d.draws.DrawInstanced` of these arguments. A draw whose state is native
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
        # One thread at a time (guard.exclusive), inlined: a hot call. The fast path calls
        # nothing of the context, so the owner is set only before the general path (draw).
        lock: threading.Lock | None
        lock = self._lock
        if not lock.acquire(False):
            if self._owner != _get_ident():
                raise concurrent_error("draw_instanced")
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
                    if state is not rec.encoded_state:  # raw calls keep no references:
                        rec.pass_states[id(state)] = state  # the pass holds each state
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

    @exclusive
    def draw_indexed_instanced(self, index_count_per_instance: int, instance_count: int = 1,
                               start_index_location: int = 0, base_vertex_location: int = 0,
                               start_instance_location: int = 0) -> Plan:
        """DrawIndexedInstanced: what :meth:`draw` does with a
        :class:`~gpuia.d3d.draws.DrawIndexedInstanced` of these arguments.

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

    @guarded
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
        While :meth:`set_predication` skips draws, the draw is checked and planned only.

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
        draw, state, ib, plan = self._drawing.plan(draw, self.path)
        self.last_plan = plan
        self.draw_count += 1
        if self._queries.watching:  # predication, pipeline statistics (query_calls)
            if self._queries.skipping:
                return plan
            self._queries.count(draw, state, ib)
        self._drawing.issue(draw, state, ib, plan)
        return plan

    # -- Stream Output -----------------------------------------------------------------------
    @guarded
    def so_set_targets(self, views: Sequence[StreamOutputBufferView | None] | None,
                       offsets: Sequence[int] | None = None) -> None:
        """SOSetTargets: bind :class:`~gpuia.d3d.so_desc.StreamOutputBufferView`s to output slots
        0..n-1 (None: unbound; fewer than four: the rest unbound). ``offsets`` (D3D11 style)
        sets each target's BufferFilledSize, -1 appending where it stands; views with their own
        counter buffer (D3D12) keep it; a buffer first bound without one gets a gpuia counter
        starting at 0 (rules 9.5). A target buffer bound in the IA is unbound there, with a
        warning, as the D3D runtime does (rules 7.3); the buffer's host copy is dropped (the
        GPU writes it). Views over released buffers are refused. Pending draws are submitted
        first, so that the new filled sizes apply only to later draws. A call that fails
        changes nothing.

        Arguments:
            views: a sequence of up to 4 :class:`~gpuia.d3d.so_desc.StreamOutputBufferView` or
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
        self._drawing.so_set_targets(views, offsets)

    @guarded
    def so_statistics(self, stream: int = 0) -> dict[str, int]:
        """SO statistics of ``stream`` over every draw of this context (waits for the GPU):
        D3D12_QUERY_DATA_SO_STATISTICS, the query SO_STATISTICS_STREAM0 to 3 (rules 10.1,
        10.2, 13.8). Stream 0 counts vertex shader draws and geometry shader draws together;
        streams 1-3 only a geometry shader writes. Pending draws are submitted first.

        Arguments:
            stream (int): the stream, 0 to 3. Default 0.

        Returns:
            ``{"NumPrimitivesWritten": n, "PrimitivesStorageNeeded": m}`` (64-bit counts).

        Raises:
            InvalidDescError: ``stream`` is not 0 to 3.
            UnsupportedError: wgpu refused the submit or the read.
        """
        return self._drawing.so_statistics(stream)

    @guarded
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
        return self._drawing.so_filled_size(slot)

    @guarded
    def draw_auto(self) -> Plan:
        """DrawAuto: draw the vertices the Stream Output wrote into the buffer bound at IA slot 0,
        ``(BufferLocation + BufferFilledSize - IA offset) // stride`` of them, counted on the GPU
        (an indirect draw; no readback). Always pulled: the count is unknown on the host, and the
        fetch still follows D3D's bounds for every slot (rules 10.5, 6.5). The count is that
        of the last Stream Output view bound over the buffer, whether it is bound now or not.
        With a geometry shader in the pipeline state, the count is read back (the geometry
        stage sizes its work on the host) and the draw streams out as :meth:`draw` does; so it
        is where the pixel shader reads a flat input on an adapter whose provoking vertex is
        the last (drawn from a host list that puts D3D's first vertex last,
        docs/known-adapter-issues.md).

        Returns:
            A :class:`Plan` of path ``pulling`` (its vertex count is not known on the host).

        Raises:
            InvalidDescError: no buffer is bound at IA slot 0, that buffer was never a Stream
                Output target, its counter's buffer was released, or the state is not valid
                for a draw (as :meth:`draw`).
            UnsupportedError: the pipeline state has Stream Output without a geometry shader,
                or the draw cannot be pulled on this adapter.
        """
        state, draw, plan, args = self._drawing.plan_auto()
        self.last_plan = plan
        self.draw_count += 1
        if self._queries.watching:  # predication, pipeline statistics (query_calls)
            if self._queries.skipping:
                return plan
            if args is None:
                self._queries.count(draw, state, None)
            else:
                self._queries.count_unknown("a DrawAuto draw's vertex count is known only on "
                                            "the GPU")
        self._drawing.issue_auto(state, draw, plan, args)
        return plan

    # -- submission --------------------------------------------------------------------------
    @guarded
    def flush(self) -> None:
        """Submit every draw encoded since the last flush; then destroy what was released while
        they were pending (:meth:`gpuia.gpu.Buffer.release`). Does not wait for the GPU. With
        nothing encoded it submits nothing.

        Raises:
            UnsupportedError: wgpu refused the encoded draws (nothing was submitted, and they
                are dropped).
        """
        self._drawing.submit()

    # -- capture -----------------------------------------------------------------------------
    @guarded
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
        self._drawing.begin_capture(route)

    @guarded
    def begin_gs_capture(self) -> None:
        """Start reading back what the geometry shader stage does (pending draws are submitted
        first): until :meth:`end_gs_capture`, each draw through a geometry shader runs its
        program even where nothing streams out or is drawn, and keeps its invocations'
        inputs and regions for the read (:mod:`gpuia.gpu.gs.capture`). Draws are numbered
        from 0 at this call. A capture already running is discarded."""
        self._drawing.begin_gs_capture()

    @guarded
    def end_gs_capture(self) -> GSCaptured:
        """Submit the pending draws and read the geometry shader capture back.

        Returns:
            The :class:`~gpuia.gpu.gs.capture.GSCaptured`: per invocation in D3D's order its
            draw, instance, SV_PrimitiveID, SV_GSInstanceID, inputs and region, and the
            ``GSInvocations`` and ``GSPrimitives`` statistics (rules 13.8).

        Raises:
            InvalidDescError: :meth:`begin_gs_capture` was not called.
            UnsupportedError: wgpu refused the submit or the reads.
        """
        return self._drawing.end_gs_capture()

    @guarded
    def end_capture(self, windows: bool = False) -> Capture:
        """Encode and run the captured draws and read back what they received.

        Arguments:
            windows (bool): on the storage route, run nothing yet: the capture's ``windows``
                (:class:`~gpuia.gpu.context.capture.CaptureWindows`) reads any range of its
                records when asked, each read running the draws once more, so that a large
                capture is never whole in host memory. The context must draw nothing else
                until those reads are done. Ignored on the targets route. Default False.

        Returns:
            The :class:`Capture`: per recorded draw its records, and the invocations D3D would
            not have made (``unexpected``). Empty (no ``words``) when no draw was recorded.

        Raises:
            InvalidDescError: :meth:`begin_capture` was not called.
            UnsupportedError: the recorded draws have different input layouts, or need more
                than one storage binding (``storage``) or texture (``targets``) holds, or wgpu
                refused them. The capture is over either way.
        """
        return self._drawing.end_capture(windows)
