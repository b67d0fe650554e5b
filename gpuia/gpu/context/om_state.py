"""The output merger's bindings of a context and its root constant buffers: render targets and
the depth-stencil target (OMSetRenderTargets), the context's own target for draws without any,
and the constant buffer views bound with SetGraphicsRootConstantBufferView. Bindings are
validated when made; that they match the pipeline state is checked at the draw
(:meth:`OMState.check_outputs`), because WebGPU rejects a mismatch only at submit, which would
abort the process."""

from __future__ import annotations

from ...d3d.srv_bindings import VIEWS_BINDING
from ...d3d.textures import SAMPLER_STATE_BINDING
from ...errors import InvalidDescError
from ..buffers import Buffer, checked_buffer
from ..cache import remember
from ..lifetime import released_error
from ..targets import INTERNAL_OUTPUT, OutputState, Texture
from ..vertex.pipelines import TARGET_FORMAT
from .ia_state import as_list
from .pso import MAX_CBVS
from .srv_state import SrvState
from .texture_state import TextureState

__all__ = ["OMState", "context_target"]


def context_target(device, target):
    """The gpuia Texture of a context's ``target`` argument (None: the internal target):
    a Texture of ``device``, or a wgpu texture (view) on it wrapped; refused otherwise (see
    :class:`gpuia.gpu.Context`), naming what is wrong."""
    if target is None:
        return None
    import wgpu

    if isinstance(target, Texture):
        tex = target
        if tex.device is not device:
            raise InvalidDescError("Context", "target", target,
                                   "expected a Texture of this context's device")
        tex.check_live("Context", "target")
    elif isinstance(target, (wgpu.GPUTexture, wgpu.GPUTextureView)):
        texture = target.texture if isinstance(target, wgpu.GPUTextureView) else target
        try:
            tex = Texture.from_wgpu(device, texture)
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


class OMState:
    """Render targets, depth-stencil target and root constant buffers of one context.

    Attributes:
        rtvs (tuple): bound color targets (Texture), in attachment order.
        dsv (Texture | None): bound depth-stencil target.
        cbvs (dict): root parameter index -> (Buffer, byte offset).
        output (OutputState): what follows the vertex shader in the current pipeline state.
        target_texture (Texture | None): the context's own target as given (None: internal).
    """

    def __init__(self, device, pipelines, target_texture):
        self.device = device
        self.pipelines = pipelines
        self.target_texture = target_texture
        self.rtvs: tuple = ()
        self.dsv: Texture | None = None
        self.cbvs: dict[int, tuple] = {}
        self.output: OutputState = INTERNAL_OUTPUT
        self._target_view = None if target_texture is None else target_texture.view
        self._cbv_groups: dict = {}  # ((buffer, offset) per root CBV) -> bind group
        self._unread = None
        self._empty_group = None
        self.srv = SrvState(device)  # root shader resource views
        self.resources: tuple = ()  # the SRVs the pipeline state's vertex shader reads
        self.tex = TextureState(device)  # Texture2D SRVs and samplers
        self.textures: tuple = ((), ())  # the (textures, samplers) the vertex shader reads

    def set_render_targets(self, rtvs=(), dsv: Texture | None = None) -> None:
        """Validate and store OMSetRenderTargets' targets (see
        :meth:`gpuia.gpu.Context.om_set_render_targets`)."""
        if rtvs is None:
            rtvs = ()
        if isinstance(rtvs, Texture):
            rtvs = (rtvs,)
        rtvs = tuple(as_list(rtvs, "ppRenderTargetDescriptors", "OMSetRenderTargets"))
        if len(rtvs) > 8:
            raise InvalidDescError("OMSetRenderTargets", "NumRenderTargetDescriptors", len(rtvs),
                                   "at most 8 render targets")
        if len({id(t) for t in rtvs}) < len(rtvs):
            raise InvalidDescError("OMSetRenderTargets", "ppRenderTargetDescriptors", rtvs,
                                   "a texture is bound twice (WebGPU attaches it once per pass)")
        sizes = set()
        for i, t in enumerate(rtvs + ((dsv,) if dsv is not None else ())):
            depth = i >= len(rtvs)
            field_name = "pDepthStencilDescriptor" if depth else f"ppRenderTargetDescriptors[{i}]"
            if not isinstance(t, Texture) or t.device is not self.device:
                raise InvalidDescError("OMSetRenderTargets", field_name, t,
                                       "expected a gpuia Texture created on this context's device")
            t.check_live("OMSetRenderTargets", field_name)
            if t.format.depth != depth:
                raise InvalidDescError("OMSetRenderTargets", field_name, t.format.name,
                                       "expected a depth format" if depth else
                                       "a depth format cannot be a render target")
            sizes.add((t.width, t.height))
        if len(sizes) > 1:
            raise InvalidDescError("OMSetRenderTargets", "size", sorted(sizes),
                                   "every bound target must have the same width and height "
                                   "(WebGPU render pass rule)")
        self.rtvs, self.dsv = rtvs, dsv

    def clear_color(self, rtv: Texture, color) -> dict:
        """The color attachment of ClearRenderTargetView (validated)."""
        if not isinstance(rtv, Texture) or rtv.device is not self.device or rtv.format.depth:
            raise InvalidDescError("ClearRenderTargetView", "RenderTargetView", rtv,
                                   "expected a color Texture of this context's device")
        rtv.check_live("ClearRenderTargetView", "RenderTargetView")
        try:
            r, g, b, a = (float(c) for c in color)
        except (TypeError, ValueError):
            raise InvalidDescError("ClearRenderTargetView", "ColorRGBA", color,
                                   "expected four numbers") from None
        return {"view": rtv.view, "load_op": "clear", "store_op": "store",
                "clear_value": (r, g, b, a)}

    def clear_depth(self, dsv: Texture, depth: float, stencil: int) -> dict:
        """The depth-stencil attachment of ClearDepthStencilView (validated)."""
        if not isinstance(dsv, Texture) or dsv.device is not self.device or not dsv.format.depth:
            raise InvalidDescError("ClearDepthStencilView", "DepthStencilView", dsv,
                                   "expected a depth Texture of this context's device")
        dsv.check_live("ClearDepthStencilView", "DepthStencilView")
        if not isinstance(depth, (int, float)) or not 0.0 <= depth <= 1.0:
            raise InvalidDescError("ClearDepthStencilView", "Depth", depth,
                                   "expected a number in [0, 1]")
        if type(stencil) is not int or not 0 <= stencil <= 255:
            raise InvalidDescError("ClearDepthStencilView", "Stencil", stencil,
                                   "expected an integer in 0..255")
        att = {"view": dsv.view, "depth_load_op": "clear", "depth_store_op": "store",
               "depth_clear_value": float(depth)}
        if dsv.format.stencil:
            att.update(stencil_load_op="clear", stencil_store_op="store",
                       stencil_clear_value=stencil)
        return att

    def set_root_constant_buffer_view(self, root_parameter_index: int, buffer: Buffer | None,
                                      offset: int = 0) -> None:
        """Validate and store one root constant buffer view (see
        :meth:`gpuia.gpu.Context.set_graphics_root_constant_buffer_view`)."""
        where = "SetGraphicsRootConstantBufferView"
        if type(root_parameter_index) is not int or not 0 <= root_parameter_index < MAX_CBVS:
            raise InvalidDescError(where, "RootParameterIndex", root_parameter_index,
                                   f"expected 0..{MAX_CBVS - 1}")
        if buffer is None:
            self.cbvs.pop(root_parameter_index, None)
            return
        checked_buffer(buffer, self.device, where, "BufferLocation")
        if "constant_buffer" not in buffer.bind:
            raise InvalidDescError(where, "BufferLocation", buffer,
                                   "was not created with the constant_buffer bind flag "
                                   "(D3D12_RESOURCE_STATE / CBV usage)")
        buffer.check_live(where)
        align = max(256, self.device.caps.min_uniform_buffer_offset_alignment)
        if type(offset) is not int or offset < 0 or offset % align or offset >= buffer.size:
            raise InvalidDescError(where, "offset", offset,
                                   f"must be a multiple of {align} inside the buffer's "
                                   f"{buffer.size} bytes")
        self.cbvs[root_parameter_index] = (buffer, offset)

    def cbv_group(self, slots: tuple[int, ...], resources: tuple | None = None,
                  textures: tuple | None = None):
        """The bind group of the bound constant buffers ``slots`` (@group(3), binding = root
        parameter): the ones the pipeline state's shaders read; bindings from
        ``VIEWS_BINDING`` on are the SRVs ``resources`` (the vertex shader's when None; the
        geometry shader's program passes its own: ``gpuia.gpu.context.srv_state``), and so are
        ``textures`` (its (textures, samplers))."""
        resources = self.resources if resources is None else resources
        textures = self.textures if textures is None else textures
        # check_outputs has made sure each is set; a view unset anyway still needs a buffer.
        bound = tuple((i, *(self.cbvs.get(i) or (self._unread_buffer(), 0))) for i in slots
                      if i < MAX_CBVS)
        srv_key, srv_entries = (self.srv.entries(resources)
                                if VIEWS_BINDING in slots else ((), []))
        textures = tuple(t for t in textures[0] if t.slot in slots), \
            tuple(t for t in textures[1] if t.binding in slots or  # a comparison
                  (t.comparison and SAMPLER_STATE_BINDING in slots))  # sampler: its state only
        tex_key, tex_entries = self.tex.entries(*textures)
        # Keyed by the slots, the buffers themselves (compared by identity) and their offsets,
        # the SRVs' buffers and views, the textures and samplers.
        key = (slots, bound, srv_key, tex_key)
        group = self._cbv_groups.get(key)
        if group is None:
            limit = self.device.caps.max_uniform_buffer_binding_size
            entries = [{"binding": i, "resource": {"buffer": b.wgpu, "offset": off,
                                                   "size": min(b.wgpu.size - off, limit)}}
                       for i, b, off in bound]
            if srv_key:
                entries += [self.srv.views_entry(srv_key[1]), *srv_entries]
            entries += tex_entries
            group = remember(self._cbv_groups, key, self.device.device.create_bind_group(
                layout=self.pipelines.cbv_layout(slots), entries=entries), 64)
        return group

    def empty_group(self):
        """An empty bind group, for the groups below 3 a path's pipeline layout leaves empty."""
        if self._empty_group is None:
            self._empty_group = self.device.device.create_bind_group(
                layout=self.pipelines.cbv_layout(()), entries=[])
        return self._empty_group

    def _unread_buffer(self) -> Buffer:
        if self._unread is None:
            self._unread = self.device.create_buffer(size=256, bind=("constant_buffer",),
                                                     label="unread root CBV")
        return self._unread

    def check_outputs(self, pso, capture: bool) -> None:
        """The bound targets, constant buffers and shader resource views must be what ``pso``
        says (WebGPU rejects a mismatch at submit, which would abort the process)."""
        self.resources = pso.shader_resources
        for r in self.resources:
            self.srv.window(r)
        gs = pso.geometry_shader
        for r in gs.shader_resources if gs is not None else ():
            self.srv.window(r, "geometry shader")
        self.textures = (pso.textures, pso.samplers)
        self.tex.static = dict(pso.static_samplers)
        self.tex.entries(*self.textures)
        if gs is not None and (gs.textures or gs.samplers):
            self.tex.entries(gs.textures, gs.samplers, "geometry shader")
        for i, size in pso.constant_buffer_reads:
            if i not in self.cbvs:
                raise InvalidDescError("draw", f"root constant buffer view {i}", None,
                                       f"the pipeline state's shaders read constant buffer {i}; "
                                       f"set_graphics_root_constant_buffer_view({i}, ...) was "
                                       f"not called")
            buffer, offset = self.cbvs[i]
            if buffer.size - offset < size:
                raise InvalidDescError("draw", f"root constant buffer view {i}",
                                       buffer.size - offset,
                                       f"the shaders read {size} bytes of constant buffer {i}; "
                                       f"the view holds {buffer.size - offset} from offset "
                                       f"{offset}")
        if capture:
            return
        bound = (tuple(t.format.name for t in self.rtvs),
                 self.dsv.format.name if self.dsv is not None else None)
        want = ((), None) if self.output.internal else self.output.signature()
        if bound != want:
            raise InvalidDescError(
                "draw", "render targets", bound,
                f"the pipeline state's RTVFormats/DSVFormat are {want}; bind matching targets "
                f"with om_set_render_targets (formats must match, as in D3D12)")

    def check_live(self, pso, capture: bool) -> None:
        """No bound target or read constant buffer was released (a destroyed one in a submit
        aborts the process)."""
        for i, (b, _) in self.cbvs.items():
            if b.released and i in pso.constant_buffer_slots:  # the views the group binds
                raise released_error("draw", f"root constant buffer view {i}", b)
        if capture or self.output.internal:
            if self.target_texture is not None and self.target_texture.released:
                raise released_error("draw", "Context target", self.target_texture)
            return
        for i, t in enumerate(self.rtvs):
            if t.released:
                raise released_error("draw", f"render target {i}", t)
        if self.dsv is not None and self.dsv.released:
            raise released_error("draw", "depth-stencil target", self.dsv)

    def attachments(self, internal: bool) -> tuple[list, dict | None]:
        """(color views, depth-stencil attachment or None) of a render pass: the bound targets,
        or the context's own target when ``internal`` or none is bound."""
        if internal or not (self.rtvs or self.dsv is not None):
            return [self._own_target()], None
        views = [t.view for t in self.rtvs]
        depth = None
        if self.dsv is not None:
            depth = {"view": self.dsv.view, "depth_load_op": "load", "depth_store_op": "store"}
            if self.dsv.format.stencil:
                depth.update(stencil_load_op="load", stencil_store_op="store")
        return views, depth

    def _own_target(self):
        if self._target_view is None:  # the internal 1x1 target (a given one is set at init)
            import wgpu

            tex = self.device.device.create_texture(size=(1, 1, 1), format=TARGET_FORMAT,
                                                    usage=wgpu.TextureUsage.RENDER_ATTACHMENT)
            self._target_view = tex.create_view()
        return self._target_view
