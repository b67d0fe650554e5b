"""The pipeline state gpuia draws with: D3D12's graphics pipeline state, reduced to what the
Input Assembler, Stream Output and the output merger need, validated when it is made (like
CreateGraphicsPipelineState). Parsed shader signatures, Stream Output declarations and output
states are cached per value, shared by every context on any thread."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, cast

from ...d3d.desc import CONSTANT_BUFFER_SLOTS, StripCutValue
from ...d3d.feature_level import FeatureLevel, feature_level
from ...d3d.geometry import GeometryDeclaration, check_feature_level, check_linkage
from ...d3d.layout import InputLayout
from ...d3d.pipeline_desc import check_draw_topology, check_gs_topology_type, topology_type
from ...d3d.signature import ShaderSignature
from ...d3d.so_declaration import ResolvedStreamOutput, resolve_stream_output
from ...d3d.so_desc import StreamOutputDesc
from ...d3d.srv_bindings import VIEWS_BINDING
from ...d3d.textures import SAMPLER_STATE_BINDING
from ...d3d.topology import TopologyInfo
from ...errors import InvalidDescError, UnsupportedError
from ...wgsl.pixel import link_stages, pixel_program
from ...wgsl.signature import (
    parse_pixel_shader,
    parse_vertex_shader,
    pass_through_signature,
    uniform_slots,
)
from ...wgsl.uniforms import uniform_sizes
from ..cache import remember
from ..targets import (
    INTERNAL_OUTPUT,
    OutputState,
    TargetFormat,
    comparison_func,
    cull_mode,
    target_format,
)
from ..vertex.pipelines import CBV_GROUP

__all__ = ["PipelineState", "MAX_CBVS", "shared_cache_sizes"]

MAX_CBVS = CONSTANT_BUFFER_SLOTS  # root constant buffer views: @group(3) bindings 0..13
_SHARED_LOCK = threading.Lock()


@dataclass(frozen=True)
class PipelineState:
    """The parts of a D3D12 graphics pipeline state gpuia draws with.

    ``vertex_shader`` is WGSL source with D3D semantics (see ``gpuia.wgsl.signature``), or None
    for the pass-through shader of the layout. ``pixel_shader`` is WGSL with one ``@fragment``
    function (``gpuia.wgsl.pixel``), or None (nothing is written to the render targets).
    ``rtv_formats`` / ``dsv_format`` (D3D12's RTVFormats / DSVFormat, DXGI names from
    ``gpuia.gpu.targets.TARGET_FORMATS``) must match the targets bound with
    :meth:`Context.om_set_render_targets` at each draw; without any, draws go to the context's
    own target and the raster and depth fields do not apply. Raster and depth fields take D3D12's
    names and defaults (CD3DX12_RASTERIZER_DESC / CD3DX12_DEPTH_STENCIL_DESC(D3D12_DEFAULT)):
    back faces culled, clockwise front faces, depth test LESS with writes. ``constant_buffers``
    root constant buffer views are bound with
    :meth:`Context.set_graphics_root_constant_buffer_view`; the shaders declare them as
    ``@group(3) @binding(i) var<uniform>`` (an HLSL shader: ``cbuffer ... : register(bi)``).
    Left 0, it is what the shaders declare; a draw needs only the views they read bound, each
    holding at least the bytes the shader's uniform type has (:attr:`constant_buffer_reads`;
    refused at the draw otherwise, naming the view and both sizes).

    Either shader may also be a compiled HLSL shader (:func:`gpuia.hlsl.compile_shader`); its
    gpuia-convention WGSL is then what the fields hold and what every path draws with.

    A frozen, hashable value: construction checks each field and stores it normalized (the
    layout as an :class:`~gpuia.d3d.layout.InputLayout`, the strip cut value as a member, the
    cull mode, depth write mask and depth function by their names without prefixes, formats as
    :class:`~gpuia.gpu.targets.TargetFormat` rows). What involves the
    shaders' text (the vertex shader against the layout, rules 3.8; the Stream Output
    declaration against the shader, rules section 8; the pixel shader against the vertex
    shader and the targets) is checked by :meth:`Context.set_pipeline_state`, through
    :attr:`signature`, :attr:`so` and :meth:`output_state`.

    Arguments:
        input_layout (InputLayout): the input layout, or the elements ``InputLayout`` takes.
        vertex_shader (str | None): WGSL source, a compiled HLSL vertex shader, or None.
        entry_point (str | None): the ``@vertex`` function (None: the only one).
        strip_cut_value (StripCutValue): IBStripCutValue, a member or anything
            :meth:`~gpuia.d3d.desc.StripCutValue.of` takes (default DISABLED).
        stream_output (StreamOutputDesc | None): the Stream Output declaration.
        pixel_shader (str | None): WGSL source, a compiled HLSL pixel shader, or None.
        ps_entry_point (str | None): the ``@fragment`` function (None: the only one).
        rtv_formats (sequence): RTVFormats, at most 8 color formats of ``TARGET_FORMATS``.
        dsv_format: DSVFormat, a depth format of ``TARGET_FORMATS``, or None.
        cull_mode (str): ``NONE``, ``FRONT`` or ``BACK`` (prefix optional).
        front_counter_clockwise (bool): FrontCounterClockwise.
        depth_enable (bool): DepthEnable.
        depth_write_mask (str): ``ZERO`` or ``ALL`` (``D3D12_DEPTH_WRITE_MASK_`` optional).
        depth_func (str): a D3D12_COMPARISON_FUNC name (prefix optional).
        constant_buffers (int): root constant buffer views, 0..14 (0: as many as the shaders
            read). The shaders' pipelines bind only the views they read: how many an adapter
            takes at once is checked by :meth:`Context.set_pipeline_state` against its
            ``max-uniform-buffers-per-shader-stage``.
        geometry_shader: a compiled HLSL geometry shader
            (:func:`gpuia.hlsl.compile_geometry_shader`), or None (the default). With one,
            ``stream_output`` names the geometry shader's stream outputs (rules 13.7) and
            its inputs must be vertex shader outputs (rules 13.9, checked by
            :meth:`Context.set_pipeline_state`); its constant buffers are root constant
            buffer views as the other shaders' are. Draws emulate it for Stream Output only
            (docs/geometry.md): a state that rasterizes its output is refused at the draw.
        feature_level: the feature level the layout and the Stream Output declaration are
            validated at (rules 11.1; anything :func:`gpuia.d3d.feature_level.feature_level`
            takes). None (the default): the input layout's own (an
            :class:`~gpuia.d3d.layout.InputLayout` carries one; elements are checked at
            D3D12's). Stored as the :class:`~gpuia.d3d.feature_level.FeatureLevel` row.
        primitive_topology_type: PrimitiveTopologyType, ``POINT``, ``LINE``, ``TRIANGLE``,
            ``UNDEFINED`` or ``PATCH`` (``D3D12_PRIMITIVE_TOPOLOGY_TYPE_`` optional) or 0-4,
            stored as the name; None (the default): not checked. A draw's topology must be of
            it (rules 15.1, refused when the draw is resolved) and so must a geometry
            shader's input primitive (rules 15.2, :meth:`check_geometry`).
        root_signature: pRootSignature: None (the default: gpuia binds through the implied
            root signature, docs/resources.md), or a root signature as an HLSL string, a JSON
            object (docs/case-format.md), serialized bytes or a
            :class:`gpuia.d3d.root_signature.RootSignature`; stored as the latter, validated
            (rules 16.1-16.8), and the HLSL vertex and geometry shaders' registers checked
            against it (rules 16.9). Registers land where the implied one puts them. A
            static sampler holding a sampler register of the vertex shader is that register's
            sampler (``static_samplers``, bound by the draw: :meth:`Context.set_sampler` is
            refused there, as D3D12 has no way to override one).
        shader_resources: the buffer SRVs the vertex shader reads
            (:class:`gpuia.hlsl.srv.ShaderResource`), bound at the draw from
            :meth:`Context.set_graphics_root_shader_resource_view` (docs/resources.md). Set
            from an HLSL vertex shader (what is given is replaced); with gpuia's WGSL of one
            (a state copied with ``dataclasses.replace``), the ones that WGSL reads.
        textures, samplers: the ``Texture2D``/``Texture2DArray`` SRVs and ``SamplerState``s
            the vertex shader reads (:class:`gpuia.hlsl.textures.ShaderTexture`,
            :class:`~gpuia.hlsl.textures.ShaderSampler`), set from an HLSL vertex shader the
            same way, bound at the draw from :meth:`Context.set_texture_shader_resource_view`
            and :meth:`Context.set_sampler`.

    Raises:
        InvalidDescError: the layout does not validate, a field has a value outside those
            above (naming its D3D field: IBStripCutValue, StreamOutput, RTVFormats,
            NumRenderTargets, DSVFormat, CullMode, DepthWriteMask, DepthFunc, ...), an HLSL
            shader is of the other stage, or the shaders read a root constant buffer past 13
            (register b13: D3D11's 14 slots per stage) or past a nonzero
            ``constant_buffers``, or ``feature_level`` names no level or differs from the
            level an :class:`~gpuia.d3d.layout.InputLayout` given was made at (naming both), or
            ``root_signature`` breaks rules section 16.
        UnsupportedError: a register of the root signature gpuia cannot bind (a cbuffer
            larger than the root constants holding it), a static sampler holding the vertex
            shader's sampler with a field gpuia does not sample (a minimum, maximum or
            anisotropic filter, a BORDER mode with a _UINT border colour).
    """

    input_layout: InputLayout
    vertex_shader: str | None = None
    entry_point: str | None = None
    strip_cut_value: StripCutValue = StripCutValue.DISABLED
    stream_output: StreamOutputDesc | None = None
    pixel_shader: str | None = None
    ps_entry_point: str | None = None
    rtv_formats: tuple = ()
    dsv_format: TargetFormat | str | None = None
    cull_mode: str = "BACK"
    front_counter_clockwise: bool = False
    depth_enable: bool = True
    depth_write_mask: str = "ALL"
    depth_func: str = "LESS"
    constant_buffers: int = 0
    feature_level: FeatureLevel | str | None = None
    geometry_shader: Any = None  # an HlslGeometryShader (gpuia.hlsl) or None
    primitive_topology_type: str | int | None = None
    # The buffer SRVs the vertex shader reads (gpuia.hlsl.srv.ShaderResource, by register): set
    # from an HLSL vertex shader; kept when the state is copied with its WGSL (dataclasses.replace)
    shader_resources: tuple = ()
    # pRootSignature: None (the implied one) or a RootSignature, stored validated
    root_signature: Any = None
    # The Texture2D SRVs and samplers it reads (gpuia.hlsl.textures), kept the same way
    textures: tuple = ()
    samplers: tuple = ()
    # (register, SamplerDesc) of each sampler register a static sampler of the root signature
    # holds, set by __post_init__: the draw binds it (gpuia.gpu.context.texture_state)
    static_samplers: tuple = field(default=(), init=False, repr=False, compare=False)
    # (root constant buffer, bytes a binding needs), set by __post_init__
    _cbv_reads: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        self._normalize_layout()
        if self.stream_output is not None and not isinstance(self.stream_output, StreamOutputDesc):
            raise InvalidDescError("PipelineState", "StreamOutput", self.stream_output,
                                   "expected a StreamOutputDesc")
        vs = self.vertex_shader  # a compiled HLSL shader until _shader_reads stores its WGSL
        reads = self._shader_reads()
        gs = self.geometry_shader
        if gs is not None:
            if not isinstance(getattr(gs, "declaration", None), GeometryDeclaration):
                raise InvalidDescError("PipelineState", "GS", gs,
                                       "expected a compiled HLSL geometry shader "
                                       "(gpuia.hlsl.compile_geometry_shader) or None")
            for cb in gs.constant_buffers:
                reads[cb.slot] = max(reads.get(cb.slot, 0), cb.binding_size)
        self._normalize_targets()
        self._check_constant_buffers(reads)
        if self.root_signature is not None:
            self._check_root_signature(vs, gs)

    def _check_root_signature(self, vs, gs) -> None:
        """The root signature validated (rules 16.1-16.8) and stored as a RootSignature; the
        HLSL vertex and geometry shaders' registers checked against it (rules 16.9)."""
        from ...d3d.root_signature.pipeline import (
            check_shaders,
            root_signature_of,
            static_samplers,
        )

        rs = root_signature_of(self.root_signature, "PipelineState.root_signature")
        hlsl_vs = vs if hasattr(vs, "wgsl_entry_point") else None
        check_shaders(rs, [("vertex", hlsl_vs), ("geometry", gs)])
        object.__setattr__(self, "root_signature", rs)
        # from the samplers kept, so that a copy with its WGSL (dataclasses.replace) has them
        held = static_samplers(rs, [s.register for s in self.samplers])
        gs_registers = [s.register for s in gs.samplers] if gs is not None else []
        gs_held = static_samplers(rs, gs_registers, "geometry")
        both = {s.register for s in self.samplers} & set(gs_registers)
        for register in sorted(set(gs_held) | both):
            if register in both and held.get(register) != gs_held.get(register):
                raise UnsupportedError(
                    f"PipelineState.root_signature: s{register}: the vertex and geometry "
                    f"shaders read it through different static samplers; gpuia binds one "
                    f"sampler per register for both")
            if register in gs_held:
                held[register] = gs_held[register]
        object.__setattr__(self, "static_samplers", tuple(sorted(held.items())))

    def _normalize_layout(self) -> None:
        """The input layout (made at ``feature_level``), the level and the strip cut value."""
        try:
            level = None if self.feature_level is None else feature_level(self.feature_level)
        except InvalidDescError as e:
            raise InvalidDescError("PipelineState", "feature_level", self.feature_level,
                                   e.rule) from None
        if not isinstance(self.input_layout, InputLayout):
            object.__setattr__(self, "input_layout",
                               InputLayout(self.input_layout, feature_level=level))
        elif level is not None and level != self.input_layout.feature_level:
            raise InvalidDescError("PipelineState", "feature_level", level.name,
                                   f"the input layout was made at "
                                   f"{self.input_layout.feature_level.label}; make it at "
                                   f"{level.label} or leave feature_level None")
        object.__setattr__(self, "feature_level", self.input_layout.feature_level)
        if self.primitive_topology_type is not None:
            object.__setattr__(self, "primitive_topology_type", topology_type(
                self.primitive_topology_type, "PipelineState"))
        try:
            object.__setattr__(self, "strip_cut_value", StripCutValue.of(self.strip_cut_value))
        except ValueError as e:
            raise InvalidDescError("PipelineState", "IBStripCutValue", self.strip_cut_value,
                                   str(e)) from None

    def _shader_reads(self) -> dict[int, int]:
        """Each shader checked (an HLSL one's WGSL stored in its place); returns root constant
        buffer -> bytes a binding needs (0: any) over both."""
        reads: dict[int, int] = {}  # root constant buffer -> bytes a binding needs (0: any)
        for name, entry, stage in (("vertex_shader", "entry_point", "vertex"),
                                   ("pixel_shader", "ps_entry_point", "pixel")):
            shader = getattr(self, name)
            hlsl = shader is not None and hasattr(shader, "wgsl_entry_point")
            if hlsl:
                # A compiled HLSL shader (gpuia.hlsl): its gpuia-convention WGSL is what draws.
                if shader.stage != stage:
                    raise InvalidDescError("PipelineState", name, shader.entry_point,
                                           f"is a {shader.stage} shader")
                for cb in shader.constant_buffers:
                    reads[cb.slot] = max(reads.get(cb.slot, 0), cb.binding_size)
                if stage == "vertex":
                    object.__setattr__(self, "shader_resources",
                                       tuple(shader.shader_resources))
                    object.__setattr__(self, "textures", tuple(shader.textures))
                    object.__setattr__(self, "samplers", tuple(shader.samplers))
                object.__setattr__(self, name, shader.wgsl)
                object.__setattr__(self, entry, shader.wgsl_entry_point)
            text = getattr(self, name)
            if text is not None and not (isinstance(text, str) and text.strip()):
                raise InvalidDescError("PipelineState", name, text,
                                       "expected WGSL source text, a compiled HLSL shader "
                                       "(gpuia.hlsl.compile_shader), or None")
            # gpuia's views uniform of the SRVs (docs/resources.md) is no root CBV
            own = ((VIEWS_BINDING,) if self.shader_resources and stage == "vertex" else ()) + (
                (SAMPLER_STATE_BINDING,) if self.samplers and stage == "vertex" else ())
            for slot in uniform_slots(text or "", CBV_GROUP):
                if slot not in own:
                    reads.setdefault(slot, 0)
            if text and not hlsl:  # an HLSL shader's sizes come from its reflection (above)
                for slot, size in uniform_sizes(text, CBV_GROUP).items():
                    if slot not in own:
                        reads[slot] = max(reads.get(slot, 0), size)
        return reads

    def _normalize_targets(self) -> None:
        """RTVFormats, DSVFormat and the raster and depth fields, checked and normalized."""
        rtvs = self.rtv_formats
        if isinstance(rtvs, str) or not isinstance(rtvs, (list, tuple)):
            raise InvalidDescError("PipelineState", "RTVFormats", rtvs,
                                   "expected a sequence of DXGI formats")
        if len(rtvs) > 8:
            raise InvalidDescError("PipelineState", "NumRenderTargets", len(rtvs),
                                   "at most 8 render targets "
                                   "(D3D12_SIMULTANEOUS_RENDER_TARGET_COUNT)")
        object.__setattr__(self, "rtv_formats", tuple(
            target_format(f, f"RTVFormats[{i}]", depth=False) for i, f in enumerate(rtvs)))
        if self.dsv_format is not None:
            object.__setattr__(self, "dsv_format",
                               target_format(self.dsv_format, "DSVFormat", depth=True))
        object.__setattr__(self, "cull_mode", cull_mode(self.cull_mode))
        object.__setattr__(self, "depth_func", comparison_func(self.depth_func))
        mask = self.depth_write_mask.upper().removeprefix("D3D12_DEPTH_WRITE_MASK_") \
            if isinstance(self.depth_write_mask, str) else None
        if mask not in ("ZERO", "ALL"):
            raise InvalidDescError("PipelineState", "DepthWriteMask", self.depth_write_mask,
                                   "expected ZERO or ALL")
        object.__setattr__(self, "depth_write_mask", mask)
        for name in ("front_counter_clockwise", "depth_enable"):
            if type(getattr(self, name)) is not bool:
                raise InvalidDescError("PipelineState", name, getattr(self, name),
                                       "expected True or False")

    def _check_constant_buffers(self, reads: dict[int, int]) -> None:
        """``constant_buffers`` against what the shaders read (0: set to that)."""
        if type(self.constant_buffers) is not int or not 0 <= self.constant_buffers <= MAX_CBVS:
            raise InvalidDescError("PipelineState", "constant_buffers", self.constant_buffers,
                                   f"expected 0..{MAX_CBVS} root constant buffer views (the "
                                   f"{MAX_CBVS} constant buffer slots of a D3D11 shader stage, "
                                   f"D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT)")
        needed = max(reads) + 1 if reads else 0
        if needed > MAX_CBVS:
            raise InvalidDescError("PipelineState", "constant_buffers", needed,
                                   f"the shaders read root constant buffer {needed - 1} "
                                   f"(register b{needed - 1}); gpuia binds 0..{MAX_CBVS - 1}, "
                                   f"the {MAX_CBVS} constant buffer slots of a D3D11 shader "
                                   f"stage (D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT)")
        if needed > self.constant_buffers:
            if self.constant_buffers:
                raise InvalidDescError("PipelineState", "constant_buffers",
                                       self.constant_buffers,
                                       f"the shaders read root constant buffer {needed - 1} "
                                       f"(register b{needed - 1})")
            object.__setattr__(self, "constant_buffers", needed)
        object.__setattr__(self, "_cbv_reads", tuple(sorted(reads.items())))

    @property
    def constant_buffer_reads(self) -> tuple[tuple[int, int], ...]:
        """(root constant buffer, bytes its binding must hold; 0: not known) for every view the
        shaders read: what a draw needs bound. The bytes are an HLSL cbuffer's binding size
        (its reflection), or a WGSL ``var<uniform>``'s type size (WGSL's SizeOf: what WebGPU
        checks the binding against); 0 for a type gpuia cannot size (an override-sized
        array), whose binding is then not checked."""
        return self._cbv_reads

    @property
    def group_bindings(self) -> tuple[int, ...]:
        """The bindings of the pipelines' @group(3): the root constant buffers the shaders
        read, then, when the vertex shader reads SRVs, gpuia's views uniform and the SRVs
        (``gpuia.d3d.srv_bindings``), then its textures and samplers and gpuia's sampler state
        uniform (``gpuia.d3d.textures``)."""
        return self.constant_buffer_slots + (
            (VIEWS_BINDING, *(r.binding for r in self.shader_resources))
            if self.shader_resources else ()) + tuple(t.slot for t in self.textures) + tuple(
            s.binding for s in self.samplers if not s.comparison) + (
            (SAMPLER_STATE_BINDING,) if self.samplers else ())

    @property
    def constant_buffer_slots(self) -> tuple[int, ...]:
        """The root constant buffers the shaders read, ascending: the bindings of the
        pipelines' @group(3) layout (views the shaders do not read are not bound there, so an
        adapter's uniform buffer limit counts only these)."""
        return tuple(slot for slot, _ in self._cbv_reads)

    def output_state(self, max_varyings: int) -> OutputState:
        """The pipeline's :class:`~gpuia.gpu.targets.OutputState` (pixel shader linked to the
        vertex shader; refused with the member named when they do not fit). Cached per
        (pipeline state, ``max_varyings``), shared by every context.

        Arguments:
            max_varyings (int): the adapter's ``max-inter-stage-shader-variables``.

        Returns:
            The output state; without render target or depth formats, the context's own
            target's (:data:`~gpuia.gpu.targets.INTERNAL_OUTPUT`).

        Raises:
            InvalidDescError: a pixel shader without target formats, a pixel shader that does
                not parse, reads an input the vertex shader does not write (or of another
                type), needs more varyings than ``max_varyings``, or writes targets that do
                not match RTVFormats; or the vertex shader does not validate (:attr:`signature`).
        """
        key = (self, max_varyings)
        out = _OUTPUTS.get(key)
        if out is None:
            if not self.rtv_formats and self.dsv_format is None:
                if self.pixel_shader is not None:
                    raise InvalidDescError("PipelineState", "RTVFormats", (),
                                           "a pixel shader needs render target formats")
                out = INTERNAL_OUTPUT
            else:
                ps = varyings = None
                if self.pixel_shader is not None:
                    ps = parse_pixel_shader(self.pixel_shader, self.ps_entry_point)
                    varyings = link_stages(self.signature, ps, max_varyings)
                    # Generated now only for its checks (SV_Target vs RTVFormats), so they fail
                    # at set_pipeline_state; the module itself is built at the first draw.
                    pixel_program(ps, varyings, tuple(f.shader_type for f in self.rtv_formats))
                dsv = cast("TargetFormat | None", self.dsv_format)  # resolved at construction
                out = OutputState(self.rtv_formats, dsv, ps, varyings or (),
                                  self.cull_mode, self.front_counter_clockwise,
                                  self.depth_enable, self.depth_enable
                                  and self.depth_write_mask == "ALL", self.depth_func)
            with _SHARED_LOCK:
                remember(_OUTPUTS, key, out)
        return out

    @property
    def signature(self) -> ShaderSignature:
        """The vertex shader's :class:`~gpuia.d3d.signature.ShaderSignature`, checked against
        the input layout: every input other than a system value needs an element of its
        semantic (rules 3.8). Without a vertex shader, the pass-through shader's signature of
        the layout. Parsed once per (layout, shader, entry point), shared by every context.

        Raises:
            InvalidDescError: the shader does not parse as a gpuia vertex shader, or reads an
                input the layout does not provide (naming it).
        """
        key = (self.input_layout, self.vertex_shader, self.entry_point)
        sig = _SIGNATURES.get(key)
        if sig is None:
            sig = (parse_vertex_shader(self.vertex_shader, self.entry_point)
                   if self.vertex_shader else pass_through_signature(self.input_layout))
            sig.check_layout(self.input_layout)
            with _SHARED_LOCK:
                remember(_SIGNATURES, key, sig)
        return sig

    def check_geometry(self) -> None:
        """With a geometry shader, its streams against the feature level (rules 13.7, 11.1),
        its input primitive against ``primitive_topology_type`` (rules 15.2) and its inputs
        against the vertex shader's outputs (rules 13.9): InvalidDescError naming the streams,
        the type or the input. Nothing without one."""
        gs = self.geometry_shader
        if gs is not None:
            check_feature_level(gs.declaration, cast(FeatureLevel, self.feature_level))
            if self.primitive_topology_type is not None:
                check_gs_topology_type(cast(str, self.primitive_topology_type), gs.declaration,
                                       "PipelineState")
            check_linkage(gs.input_members, self.signature.outputs, "PipelineState GS")

    def check_topology(self, topology: TopologyInfo) -> None:
        """A draw's topology against ``primitive_topology_type`` (rules 15.1). Nothing when the
        type is None.

        Arguments:
            topology (TopologyInfo): the draw's :class:`~gpuia.d3d.topology.TopologyInfo`.

        Raises:
            InvalidDescError: the topology is not of the type, naming both.
        """
        if self.primitive_topology_type is not None:
            check_draw_topology(cast(str, self.primitive_topology_type), topology, "draw")

    @property
    def so(self) -> ResolvedStreamOutput | None:
        """The validated Stream Output declaration (None without one; empty declarations mean
        no Stream Output, rules 10.3): a
        :class:`~gpuia.d3d.so_declaration.ResolvedStreamOutput`, resolved once per (shader
        signature, declaration, feature level) and shared by every context.

        Raises:
            InvalidDescError: the declaration breaks a rule of rules section 8, at the
                pipeline state's feature level, against the vertex shader's outputs
                (:func:`~gpuia.d3d.so_declaration.resolve_stream_output` names the entry,
                field and rule), or the vertex shader does not validate.
        """
        if self.stream_output is None:
            return None
        gs = self.geometry_shader
        key = (self.signature, self.stream_output, self.feature_level, gs)
        so = _SO.get(key)
        if so is None:
            so = resolve_stream_output(
                self.stream_output, self.signature, self.feature_level,
                streams=None if gs is None else gs.stream_members)
            with _SHARED_LOCK:
                remember(_SO, key, so)
        return None if so.empty else so


_SIGNATURES: dict = {}
_SO: dict = {}
_OUTPUTS: dict = {}
# Those three are shared by every context, on any thread: an eviction (remember) racing another
# thread's would raise KeyError or "dictionary changed size".


def shared_cache_sizes() -> dict:
    """Entries of the caches every context shares (each bounded by gpuia.gpu.cache.remember):
    parsed ``signatures``, resolved ``stream_outputs`` and ``output_states``."""
    return {"signatures": len(_SIGNATURES), "stream_outputs": len(_SO),
            "output_states": len(_OUTPUTS)}
