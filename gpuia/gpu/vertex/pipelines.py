"""Shader modules, bind group layouts and render pipelines, cached under hashable keys.

WebGPU bakes ``array_stride`` into the pipeline while D3D12 gives strides at bind time, so native
pipelines are keyed on the strides bound when the draw is resolved (DXVK's "static stride"
mode); a rebinding with the same strides finds the pipeline in the cache and creates nothing.
Pulling pipelines read strides, offsets and sizes from the per-draw uniform block, so their key
has none of them. The shader module of a program is shared by every pipeline built from it.
:attr:`PipelineCache.stats` counts what was created, so tests can assert that nothing was.

Pipelines are device objects, as D3D12's pipeline state objects are: every
:class:`~gpuia.gpu.Context` of a gpuia Device shares the device's cache
(:meth:`PipelineCache.of`), so a second context, or the next case of a ``gpuia check`` run,
draws a known layout without compiling anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...d3d.layout import InputLayout
from ...d3d.signature import ShaderSignature
from ...d3d.textures import binding_kind, slot_binding, texture_layout
from ...errors import InvalidDescError, UnsupportedError
from ...wgsl import ProgramSpec, vertex_program
from ...wgsl.diagnostics import UserText, shader_diagnostic
from ...wgsl.fetch import ATTRIBUTE_FORMATS, attribute_locations
from ...wgsl.pixel import null_pixel_program, pixel_program
from ...wgsl.program import DRAW_HEADER_WORDS, SLOT_WORDS
from ...wgsl.so_pass import SO_BLOCK_WORDS, SO_STATE_WORDS
from ..cache import build_once
from ..lifetime import device_error
from ..targets import INTERNAL_OUTPUT, OutputState

# The layout entry of each kind of @group(3) binding but textures (gpuia.d3d.textures.binding_kind;
# a texture's entry is its slot's sample type and view: texture_layout). Every sampler filtering
# (which takes a point sampler too; docs/resources.md).
_GROUP3_ENTRY = {
    "uniform": {"buffer": {"type": "uniform"}},
    "storage": {"buffer": {"type": "read-only-storage"}},
    "rw_storage": {"buffer": {"type": "storage"}},  # UAVs: vertex-writable-storage
    "sampler": {"sampler": {"type": "filtering"}},
}


def _group3_entry(slot: int) -> dict:
    texture = texture_layout(slot)
    if texture is None:
        return _GROUP3_ENTRY[binding_kind(slot)]
    return {"texture": {"sample_type": texture[0], "view_dimension": texture[1]}}


__all__ = ["PipelineCache", "NativeKey", "PullingKey", "TARGET_FORMAT", "CBV_GROUP",
           "compile_module", "vertex_text", "checked_create", "pulled_bindings",
           "SHADER_STAGE_VERTEX", "draw_block_bytes", "draw_group_entries",
           "pulled_group_entries", "vertex_buffer_layouts", "attribute_buffer_layouts",
           "OWN_UNIFORM_BUFFERS",
           "check_constant_buffers"]

TARGET_FORMAT = "rgba8unorm"  # the context's own target (INTERNAL_OUTPUT)
CBV_GROUP = 3  # user constant buffers: @group(3) in every stage (0-2 are gpuia's own)
OWN_UNIFORM_BUFFERS = {"draw": 1, "Stream Output": 3}
"""Uniform buffers gpuia's own programs bind in the one shader stage where they bind the most,
beside the root constant buffers: a draw's vertex program, its per-draw block (@group(0)
@binding(0)); the Stream Output pass, its pulling block, its SO block and, in its main pass,
the prepare step's state (@group(0) bindings 0, 1 and 5). A pixel shader's stage binds none of
gpuia's."""
SHADER_STAGE_VERTEX = 1
"""``GPUShaderStage.VERTEX``: the value WebGPU's specification gives the flag (wgpu-py's
``wgpu.ShaderStage.VERTEX``), so that bind group layout entries are data without wgpu."""


@dataclass(frozen=True)
class NativeKey:
    layout: InputLayout
    signature: ShaderSignature
    capture: bool
    constants: bool  # the program reads the per-draw block (SV values or capture)
    buffers: tuple  # per used slot: (array_stride, step_mode)
    topology: str
    strip_index_format: str | None
    output: OutputState = INTERNAL_OUTPUT
    capture_group: int = -1
    capture_targets: int = 0
    cbvs: tuple[int, ...] = ()  # the root constant buffers the shaders read (@group(3))


@dataclass(frozen=True)
class PullingKey:
    layout: InputLayout
    signature: ShaderSignature
    capture: bool
    slots: tuple[int, ...]
    topology: str
    strip_index_format: str | None
    output: OutputState = INTERNAL_OUTPUT
    capture_group: int = -1
    capture_targets: int = 0
    cbvs: tuple[int, ...] = ()
    aligned: frozenset = frozenset()
    aligned16: frozenset = frozenset()
    arena: bool = False  # every slot pulled from one arena buffer (binding 0)
    # (slot, stride) of the slots whose raw words are vertex attributes (the attribute form):
    # WebGPU bakes their strides into the pipeline, as the native path's
    attributes: tuple = ()


def pulled_bindings(slots: tuple[int, ...], arena: bool) -> tuple[tuple[int, int], ...]:
    """(slot, storage binding) of pulled slots: one binding each, or all binding 0 (arena)."""
    return tuple((s, 0 if arena else j) for j, s in enumerate(slots))


def draw_block_bytes(n_slots: int) -> int:
    """The size in bytes of the per-draw uniform block with ``n_slots`` pulled slots
    (:mod:`gpuia.wgsl.draw_block`: at least one slot entry, WGSL has no empty array).

    Arguments:
        n_slots (int): the pulled slots the block describes.

    Returns:
        ``4 * (DRAW_HEADER_WORDS + SLOT_WORDS * max(1, n_slots))``.
    """
    return 4 * (DRAW_HEADER_WORDS + SLOT_WORDS * max(1, n_slots))


def draw_group_entries(capture, n_slots: int, visibility: int = SHADER_STAGE_VERTEX) -> list:
    """The entries of bind group 0 of a vertex program (wgpu-py's spelling, as
    ``create_bind_group_layout(entries=...)`` takes them): binding 0 the per-draw uniform
    block, bound with a dynamic offset, and the capture's buffers.

    Arguments:
        capture: False (no capture), True (the storage route: bindings 1-3) or ``"targets"``
            (the render-target route: binding 2).
        n_slots (int): the pulled slots the per-draw block describes (its minimum size).
        visibility (int): the shader stage flags of every entry (default the vertex stage).

    Returns:
        A new list of entry dicts.
    """
    entries = [{"binding": 0, "visibility": visibility,
                "buffer": {"type": "uniform", "has_dynamic_offset": True,
                           "min_binding_size": draw_block_bytes(n_slots)}}]
    if capture == "targets":
        entries.append({"binding": 2, "visibility": visibility,
                        "buffer": {"type": "read-only-storage"}})
    elif capture:
        entries += [
            {"binding": 1, "visibility": visibility, "buffer": {"type": "storage"}},
            {"binding": 2, "visibility": visibility, "buffer": {"type": "read-only-storage"}},
            {"binding": 3, "visibility": visibility, "buffer": {"type": "storage"}},
        ]
    return entries


def pulled_group_entries(n_bindings: int, visibility: int = SHADER_STAGE_VERTEX) -> list:
    """The entries of bind group 1 of a pulling program (wgpu-py's spelling): the pulled
    vertex buffers as read-only storage, bindings ``0 .. max(1, n_bindings) - 1``.

    Arguments:
        n_bindings (int): the storage bindings the program declares (one per pulled slot, or
            1 for an arena).
        visibility (int): the shader stage flags of every entry (default the vertex stage).

    Returns:
        A new list of entry dicts.
    """
    return [{"binding": j, "visibility": visibility, "buffer": {"type": "read-only-storage"}}
            for j in range(max(1, n_bindings))]


def vertex_buffer_layouts(layout: InputLayout, slots: tuple[int, ...], strides) -> list:
    """The ``vertex.buffers`` of a native pipeline (wgpu-py's spelling of
    ``GPUVertexBufferLayout``): WebGPU vertex buffer ``i`` is D3D slot ``slots[i]``, with
    ``array_stride`` ``strides[i]``, ``step_mode`` ``instance`` for a per-instance slot (the
    native path takes per-instance data at step rate 1 only) and one attribute per element of
    the slot: its WebGPU vertex format, its resolved offset, and ``shader_location`` the
    element's index in the layout.

    Arguments:
        layout (InputLayout): the resolved layout.
        slots (tuple of int): the D3D slots, in WebGPU buffer order.
        strides: the stride bound to each of ``slots``, in the same order.

    Returns:
        A new list of dicts, one per slot.
    """
    buffers = []
    for s, stride in zip(slots, strides, strict=True):
        info = layout.slots[s]
        attrs = [{"format": e.format.webgpu, "offset": e.offset, "shader_location": e.index}
                 for e in info.elements]
        buffers.append({"array_stride": stride,
                        "step_mode": "instance" if info.per_instance else "vertex",
                        "attributes": attrs})
    return buffers


def attribute_buffer_layouts(layout: InputLayout, attributes: tuple) -> list:
    """The ``vertex.buffers`` of a pulling pipeline's attribute form (wgpu-py's spelling):
    WebGPU vertex buffer ``i`` is the D3D slot of ``attributes[i]`` (``(slot, stride)``,
    ascending slots), with that ``array_stride``, the slot's step mode, and per element an
    attribute of its words' ``uint32`` format (:data:`gpuia.wgsl.fetch.ATTRIBUTE_FORMATS`, no
    conversion) at its resolved offset, at the location
    :func:`gpuia.wgsl.fetch.attribute_locations` gives it.

    Arguments:
        layout (InputLayout): the resolved layout.
        attributes (tuple): ``(slot, stride)`` per slot of the attribute form.

    Returns:
        A new list of dicts, one per slot.
    """
    locations = attribute_locations(layout, frozenset(s for s, _ in attributes))
    return [{"array_stride": stride,
             "step_mode": "instance" if layout.slots[s].per_instance else "vertex",
             "attributes": [{"format": ATTRIBUTE_FORMATS[e.format.words][0], "offset": e.offset,
                             "shader_location": locations[e.index]}
                            for e in layout.slots[s].elements]}
            for s, stride in attributes]


def check_constant_buffers(slots: tuple[int, ...], caps, adapter: str,
                           stream_output: bool) -> None:
    """Refuse root constant buffers that the adapter cannot bind beside gpuia's own uniform
    blocks, before any layout reaches wgpu (which aborts the process on some validation
    errors). Every root constant buffer the shaders read is a uniform binding of @group(3),
    its binding number its register, visible to every stage.

    Arguments:
        slots (tuple of int): the root constant buffers the shaders read.
        caps: the device's :class:`~gpuia.gpu.caps.Caps`.
        adapter (str): the adapter's summary, for the message.
        stream_output (bool): whether the vertex shader also runs in the Stream Output pass.

    Raises:
        UnsupportedError: the buffers and :data:`OWN_UNIFORM_BUFFERS` of the busiest pass
            exceed ``max-uniform-buffers-per-shader-stage``, or the device has fewer than
            ``CBV_GROUP + 1`` bind groups (a register's binding, 13 at most, is always within
            ``max-bindings-per-bind-group``: WebGPU guarantees 1000); the message names the
            registers, the limit and its value on the adapter.
    """
    if not slots:
        return
    regs = _registers(slots)
    if caps.max_bind_groups <= CBV_GROUP:
        raise UnsupportedError(f"SetPipelineState: root constant buffers ({regs}) are bound at "
                               f"@group({CBV_GROUP}); {adapter} has max-bind-groups "
                               f"{caps.max_bind_groups}")
    pass_name = "Stream Output" if stream_output else "draw"
    own = OWN_UNIFORM_BUFFERS[pass_name]
    limit = caps.max_uniform_buffers_per_shader_stage
    if len(slots) + own > limit:
        raise UnsupportedError(
            f"SetPipelineState: the shaders read {len(slots)} root constant buffers ({regs}) "
            f"and gpuia's {pass_name} pass binds {own} uniform block{'s' if own > 1 else ''} of "
            f"its own in the same shader stage: {len(slots) + own} uniform buffers, more than "
            f"{adapter} takes "
            f"(max-uniform-buffers-per-shader-stage {limit}: at most {limit - own} root "
            f"constant buffers read at once{' with Stream Output' if stream_output else ''})")


def _registers(slots: tuple[int, ...]) -> str:
    """``b0..b3, b8``: registers, runs of three or more as ranges."""
    runs: list[list[int]] = []
    for s in slots:
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return ", ".join(f"b{r[0]}..b{r[-1]}" if len(r) > 2 else ", ".join(f"b{x}" for x in r)
                     for r in runs)


def checked_create(create, what: str, code: str | None = None, sources=()):
    """Run a wgpu create call; a wgpu error (the vertex shader does not compile, or its
    interface does not fit the pipeline) becomes an InvalidDescError, as
    CreateGraphicsPipelineState fails with E_INVALIDARG. With the program's ``code`` and the
    user texts it embeds (``sources``: :class:`gpuia.wgsl.diagnostics.UserText`), a shader
    module's error is a :class:`~gpuia.wgsl.diagnostics.ShaderCompileError` that names the
    user's lines and keeps naga's multi-line rendering."""
    import wgpu

    try:
        return create()
    except wgpu.GPUError as e:
        lost = device_error(e, "building a shader module or pipeline")
        if lost is not None:
            raise lost from None
        if code is not None:
            where = sources[0].name if sources else "vertex shader"
            raise shader_diagnostic(str(e), code, sources, where, what) from None
        message = " ".join(str(e).split())
        raise InvalidDescError("vertex shader", "wgsl", "...",
                               f"{what}: {message[:600]}") from None


def compile_module(device, code: str, label: str, what: str, sources=()):
    """``device.create_shader_module`` for a generated program: its errors become gpuia
    errors in the user's lines (see :func:`checked_create`)."""
    return checked_create(lambda: device.create_shader_module(code=code, label=label), what,
                    code, tuple(sources))


def vertex_text(signature: ShaderSignature) -> UserText:
    """How diagnostics name a vertex shader's text (an HLSL shader's is Slang's WGSL)."""
    hlsl = signature.source.startswith("// gpuia: HLSL")
    return UserText("vertex shader's WGSL (from HLSL)" if hlsl else "vertex shader",
                    signature.source)


def _group_size(key) -> int:
    """Color targets of a render-target capture pipeline: the group's share of the record's
    vec4s (header + one per element)."""
    total = 1 + len(key.layout.elements)
    return min(key.capture_targets, total - key.capture_group * key.capture_targets)


@dataclass
class CacheStats:
    shader_modules: int = 0
    pipelines: int = 0
    hits: int = 0


class PipelineCache:
    """Builds and remembers everything a draw's pipeline needs on one device.

    Safe to share across threads: modules and pipelines are built through
    :func:`~gpuia.gpu.cache.build_once`, so two threads missing the same key at once build it
    once (the second waits for the first's); bind group layouts may be made twice (equivalent
    objects, one kept)."""

    @classmethod
    def of(cls, device) -> PipelineCache:
        """The cache every context of the gpuia ``device`` shares (made on first use; it goes
        with the device: :meth:`~gpuia.gpu.Device.held`)."""
        cache: PipelineCache = device.held(cls, lambda: cls(device))
        return cache

    def __init__(self, device):
        self.device = device  # gpuia Device
        self._modules: dict = {}
        self._pipelines: dict = {}
        self._bgls: dict = {}
        self.stats = CacheStats()

    # -- bind group layouts ------------------------------------------------------------------
    def draw_block_size(self, n_slots: int) -> int:
        return draw_block_bytes(n_slots)

    def group0_layout(self, capture, n_slots: int):
        """``capture``: False, True (storage route) or ``"targets"`` (render-target route)."""
        key = ("g0", capture, n_slots)
        if key not in self._bgls:
            import wgpu

            entries = draw_group_entries(capture, n_slots, wgpu.ShaderStage.VERTEX)
            self._bgls[key] = self.device.device.create_bind_group_layout(entries=entries)
        return self._bgls[key]

    def group1_layout(self, n_slots: int, compute: bool = False):
        """The pulled vertex buffers, read-only storage (vertex stage, or compute for SO)."""
        key = ("g1", n_slots, compute)
        if key not in self._bgls:
            import wgpu

            stage = wgpu.ShaderStage.COMPUTE if compute else wgpu.ShaderStage.VERTEX
            entries = pulled_group_entries(n_slots, stage)
            self._bgls[key] = self.device.device.create_bind_group_layout(entries=entries)
        return self._bgls[key]

    def so_group0_layout(self, n_slots: int, main: bool = False):
        """Stream Output compute: the pulling block, the SO block (both dynamic), the auxiliary
        input (index buffer or vertex list), and the SO state: writable with the statistics for
        the prepare pass, read-only for the main pass."""
        key = ("so0", n_slots, main)
        if key not in self._bgls:
            import wgpu

            cs = wgpu.ShaderStage.COMPUTE
            entries = [
                {"binding": 0, "visibility": cs, "buffer": {
                    "type": "uniform", "has_dynamic_offset": True,
                    "min_binding_size": self.draw_block_size(n_slots)}},
                {"binding": 1, "visibility": cs, "buffer": {
                    "type": "uniform", "has_dynamic_offset": True,
                    "min_binding_size": 4 * SO_BLOCK_WORDS}},
                {"binding": 4, "visibility": cs, "buffer": {"type": "read-only-storage"}},
            ]
            if main:
                entries.append({"binding": 5, "visibility": cs,
                                "buffer": {"type": "uniform",
                                           "min_binding_size": 4 * SO_STATE_WORDS}})
            else:
                entries += [{"binding": 2, "visibility": cs, "buffer": {"type": "storage"}},
                            {"binding": 3, "visibility": cs, "buffer": {"type": "storage"}}]
            self._bgls[key] = self.device.device.create_bind_group_layout(entries=entries)
        return self._bgls[key]

    def cbv_layout(self, slots: tuple[int, ...]):
        """The root constant buffer views ``slots`` (binding = register), visible to every stage
        (the vertex shader also runs in Stream Output's compute pass). Only the views the
        shaders read are bindings: each counts against the adapter's
        ``max-uniform-buffers-per-shader-stage`` (checked by :func:`check_constant_buffers`
        when the pipeline state is set, before any layout is made)."""
        key = ("cbv", slots)
        if key not in self._bgls:
            import wgpu

            vis = wgpu.ShaderStage.VERTEX | wgpu.ShaderStage.FRAGMENT | wgpu.ShaderStage.COMPUTE
            # from SRV_BINDING_BASE on: the vertex shader's SRVs (gpuia.hlsl.srv), then its
            # textures and samplers (gpuia.hlsl.textures): each kind's entry from _group3_entry
            # (a Texture3D's or an integer texture's slot is past the bindings:
            # gpuia.d3d.textures.texture_slot)
            self._bgls[key] = self.device.device.create_bind_group_layout(entries=[
                {"binding": slot_binding(k), "visibility": vis, **_group3_entry(k)}
                for k in slots])
        return self._bgls[key]

    def with_cbvs(self, groups: list, slots: tuple[int, ...]) -> list:
        """``groups`` padded with empty layouts up to :data:`CBV_GROUP`, then the layout of the
        root constant buffers ``slots`` (unchanged when there are none)."""
        if not slots:
            return groups
        return (groups + [self.cbv_layout(())] * (CBV_GROUP - len(groups))
                + [self.cbv_layout(slots)])

    def so_group2_layout(self, n_buffers: int):
        key = ("so2", n_buffers)
        if key not in self._bgls:
            import wgpu

            entries = [{"binding": k, "visibility": wgpu.ShaderStage.COMPUTE,
                        "buffer": {"type": "storage"}} for k in range(max(1, n_buffers))]
            self._bgls[key] = self.device.device.create_bind_group_layout(entries=entries)
        return self._bgls[key]

    # -- modules and pipelines ---------------------------------------------------------------
    def module(self, spec: ProgramSpec):
        mod = self._modules.get(spec)
        if mod is not None:
            return mod

        def build():
            made = compile_module(self.device.device, vertex_program(spec),
                                  "gpuia vertex program", "does not compile",
                                  [vertex_text(spec.signature)])
            self.stats.shader_modules += 1
            return made
        return build_once(self._modules, spec, build)

    def native(self, key: NativeKey, slots: tuple[int, ...]):
        pipe = self._pipelines.get(key)
        if pipe is not None:
            self.stats.hits += 1
            return pipe

        def build():
            spec = ProgramSpec(key.layout, key.signature, True, (), key.capture, key.constants,
                               key.capture_group, key.capture_targets,
                               varyings=key.output.varyings)
            # The key's step modes are the layout's (per-instance slots), as
            # vertex_buffer_layouts derives them; the strides are the ones bound when the draw
            # was resolved.
            buffers = vertex_buffer_layouts(key.layout, slots,
                                            [stride for stride, _ in key.buffers])
            return self._build(spec, buffers, key, n_slots=0)
        return build_once(self._pipelines, key, build)

    def pulling(self, key: PullingKey):
        pipe = self._pipelines.get(key)
        if pipe is not None:
            self.stats.hits += 1
            return pipe

        def build():
            spec = ProgramSpec(key.layout, key.signature, False,
                               pulled_bindings(key.slots, key.arena), key.capture, True,
                               key.capture_group, key.capture_targets, key.aligned,
                               key.aligned16, key.output.varyings,
                               frozenset(s for s, _ in key.attributes))
            buffers = attribute_buffer_layouts(key.layout, key.attributes)
            return self._build(spec, buffers, key, n_slots=len(key.slots),
                               n_bindings=1 if key.arena else len(key.slots))
        return build_once(self._pipelines, key, build)

    def pixel_module(self, output: OutputState):
        """The fragment module of an output state (its pixel shader, or one writing nothing)."""
        key = ("ps", output)
        mod = self._modules.get(key)
        if mod is not None:
            return mod

        def build():
            code = (pixel_program(output.pixel_shader, output.varyings,
                                  tuple(f.shader_type for f in output.rtv_formats))
                    if output.pixel_shader is not None else null_pixel_program())
            sources = ([UserText("pixel shader", output.pixel_shader.source)]
                       if output.pixel_shader is not None else [])
            made = compile_module(self.device.device, code, "gpuia pixel program",
                                  "does not compile", sources)
            self.stats.shader_modules += 1
            return made
        return build_once(self._modules, key, build)

    def _fragment(self, mod, key) -> dict | None:
        out = key.output
        if key.capture_group >= 0:  # render-target capture route
            return {"module": mod, "entry_point": "gpuia_fs",
                    "targets": [{"format": "rgba32uint"}] * _group_size(key)}
        if out.internal:
            return {"module": mod, "entry_point": "gpuia_fs",
                    "targets": [{"format": TARGET_FORMAT}]}
        if not out.rtv_formats and out.pixel_shader is None:
            return None  # depth only
        written = {m.index for m in out.pixel_shader.outputs} if out.pixel_shader else set()
        # A target the pixel shader does not write keeps its contents (write mask 0), as in D3D.
        targets = [{"format": f.webgpu, **({} if i in written else {"write_mask": 0})}
                   for i, f in enumerate(out.rtv_formats)]
        return {"module": self.pixel_module(out), "entry_point": "gpuia_ps", "targets": targets}

    def _build(self, spec: ProgramSpec, buffers, key, n_slots: int, n_bindings: int = 0):
        mod = self.module(spec)
        mode = "targets" if key.capture and key.capture_group >= 0 else key.capture
        groups = [self.group0_layout(mode, max(1, n_slots))] if spec.constants else []
        if n_slots:  # pulling programs always read the per-draw block: group 0 is there
            groups.append(self.group1_layout(n_bindings or n_slots))
        layout = self.device.device.create_pipeline_layout(
            bind_group_layouts=self.with_cbvs(groups, key.cbvs))
        output = key.output
        primitive = {"topology": key.topology, **output.primitive()}
        if key.strip_index_format:
            primitive["strip_index_format"] = key.strip_index_format
        args = {"layout": layout, "primitive": primitive,
                "vertex": {"module": mod, "entry_point": "gpuia_vs", "buffers": buffers}}
        fragment = self._fragment(mod, key)
        if fragment is not None:
            args["fragment"] = fragment
        depth = output.depth_stencil()
        if depth is not None:
            args["depth_stencil"] = depth
        pipe = checked_create(lambda: self.device.device.create_render_pipeline(**args),
                        "cannot be linked into a render pipeline")
        self.stats.pipelines += 1
        return pipe
