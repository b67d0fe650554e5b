"""A Direct3D-style device context that draws through wgpu.

State calls only store state, as D3D's do (``ia_set_vertex_buffers`` copies views into slots,
``ia_set_index_buffer`` the index view, ...). Each ``draw_*`` call validates the state against
what WebGPU will accept, plans the draw (native vertex fetch or vertex pulling, see
``gpuia.gpu.plan``) and encodes it into the open render pass; :meth:`Context.flush` submits.
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
import warnings
import weakref
from dataclasses import dataclass, field

import numpy as np

from ..d3d.desc import (DrawIndexedInstanced, DrawInstanced, IndexBufferView, StreamOutputDesc,
                    StripCutValue, VertexBufferView, delivering, draw_of)
from ..errors import InvalidDescError, UnsupportedError
from ..d3d.layout import InputLayout
from ..d3d.so_declaration import resolve_stream_output
from ..d3d.topology import TopologyInfo, topology_info
from ..wgsl.program import CAPTURE_TARGET_WIDTH, DRAW_HEADER_WORDS, SLOT_WORDS, record_words
from ..wgsl.pixel import link_stages, pixel_program
from ..wgsl.signature import (ShaderSignature, parse_pixel_shader, parse_vertex_shader,
                              pass_through_signature, uniform_slots)
from ..wgsl.uniforms import two_row_matrix_uniforms, uniform_sizes
from . import _ffi
from .cache import remember
from .drawcall import issue_draw, shift_first_vertex, strip_index_format, webgpu_topology
from .device import RELEASES, Buffer, Device, device_error, released_error, wgpu_call
from .pipelines import CBV_GROUP, TARGET_FORMAT, NativeKey, PipelineCache, PullingKey
from .targets import (INTERNAL_OUTPUT, OutputState, Texture, comparison_func, cull_mode,
                      target_format)
from .quirks import SIGNED_FIRST_VERTEX, UNIFORM_TWO_ROW_MATRICES, has_effect
from .plan import (EXACT_ASSEMBLY, Assembly, Plan, StaticPlan, arena_extent, bounds_obstacles,
                   choose_path, non_indexed_plan, plan_indices, static_plan)

__all__ = ["PipelineState", "Context", "Capture"]

_U32 = 0xFFFFFFFF
_RING_DRAWS = 4096  # per-draw uniform blocks before an automatic flush
_MAX_PULLED = 32
_MAX_CBVS = 8
_VIEW_CACHE_SIZE = 4096  # views remembered per context (each holds its buffer alive)
_SWEEP_EVERY = 8  # flushes: states and views unused for that long are forgotten (see _sweep)


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct uint32 values (radix sort; numpy's hash-based unique is far slower on
    the millions of fetch indices a capture can have)."""
    s = np.sort(values.astype(np.uint32), kind="stable")
    if s.shape[0] < 2:
        return s
    keep = np.empty(s.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


_get_ident = threading.get_ident


def _concurrent(ctx, what: str) -> UnsupportedError:
    return UnsupportedError(
        f"Context.{what}: another thread is inside a call of this Context; a Context is not "
        f"thread-safe (concurrent calls would corrupt its encoder): use one Context per thread "
        f"(the Device and its buffers may be shared). Nothing was changed or recorded")


def _exclusive(method):
    """Public calls run one thread at a time: a call from another thread while one is inside
    is refused (a non-blocking lock: no waiting, no deadlock); calls a method makes into the
    context's own public methods (same thread) go through."""
    what = method.__name__

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        lock = self._lock
        if not lock.acquire(False):
            if self._owner == _get_ident():
                return method(self, *args, **kwargs)
            raise _concurrent(self, what)
        self._owner = _get_ident()
        try:
            return method(self, *args, **kwargs)
        finally:
            self._owner = None
            lock.release()

    return run


def _guarded(method):
    """Public calls that reach wgpu raise gpuia exceptions for what the device does (lost,
    out of memory) instead of wgpu's, one thread at a time (:func:`_exclusive`). The two
    hottest calls (the fast draw and the cached rebind) inline the lock instead; their slow
    paths go through wrapped ones."""
    what = method.__name__

    def translated(self, *args, **kwargs):
        return wgpu_call(lambda: method(self, *args, **kwargs), what)

    translated.__name__ = what
    return functools.wraps(method)(_exclusive(translated))


def _retire_all(entries: list, ctx_id: int) -> None:
    """Tell every released resource waiting in ``entries`` that context ``ctx_id`` is done
    (in place: pop is atomic, so an entry another thread appends meanwhile is not lost)."""
    while entries:
        entries.pop().done(ctx_id)


def _as_list(value, field: str) -> list:
    try:
        return list(value)
    except TypeError:
        raise InvalidDescError("IASetVertexBuffers", field, value,
                               "expected a sequence") from None


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
    """

    input_layout: InputLayout
    vertex_shader: str | None = None
    entry_point: str | None = None
    strip_cut_value: StripCutValue = StripCutValue.DISABLED
    stream_output: StreamOutputDesc | None = None
    pixel_shader: str | None = None
    ps_entry_point: str | None = None
    rtv_formats: tuple = ()
    dsv_format: object = None
    cull_mode: str = "BACK"
    front_counter_clockwise: bool = False
    depth_enable: bool = True
    depth_write_mask: str = "ALL"
    depth_func: str = "LESS"
    constant_buffers: int = 0

    def __post_init__(self):
        if not isinstance(self.input_layout, InputLayout):
            object.__setattr__(self, "input_layout", InputLayout(self.input_layout))
        try:
            object.__setattr__(self, "strip_cut_value", StripCutValue.of(self.strip_cut_value))
        except ValueError as e:
            raise InvalidDescError("PipelineState", "IBStripCutValue", self.strip_cut_value,
                                   str(e)) from None
        if self.stream_output is not None and not isinstance(self.stream_output, StreamOutputDesc):
            raise InvalidDescError("PipelineState", "StreamOutput", self.stream_output,
                                   "expected a StreamOutputDesc")
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
                object.__setattr__(self, name, shader.wgsl)
                object.__setattr__(self, entry, shader.wgsl_entry_point)
            text = getattr(self, name)
            if text is not None and not (isinstance(text, str) and text.strip()):
                raise InvalidDescError("PipelineState", name, text,
                                       "expected WGSL source text, a compiled HLSL shader "
                                       "(gpuia.hlsl.compile_shader), or None")
            for slot in uniform_slots(text or "", CBV_GROUP):
                reads.setdefault(slot, 0)
            if text and not hlsl:  # an HLSL shader's sizes come from its reflection (above)
                for slot, size in uniform_sizes(text, CBV_GROUP).items():
                    reads[slot] = max(reads.get(slot, 0), size)
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
        if type(self.constant_buffers) is not int or not 0 <= self.constant_buffers <= _MAX_CBVS:
            raise InvalidDescError("PipelineState", "constant_buffers", self.constant_buffers,
                                   f"expected 0..{_MAX_CBVS} root constant buffer views (gpuia's "
                                   f"own uniform blocks take the rest of WebGPU's 12 per stage)")
        needed = max(reads) + 1 if reads else 0
        if needed > _MAX_CBVS:
            raise InvalidDescError("PipelineState", "constant_buffers", needed,
                                   f"the shaders read root constant buffer {needed - 1} "
                                   f"(register b{needed - 1}); gpuia binds 0..{_MAX_CBVS - 1}")
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

    def output_state(self, max_varyings: int) -> OutputState:
        """The pipeline's :class:`~gpuia.gpu.targets.OutputState` (pixel shader linked to the
        vertex shader; refused with the member named when they do not fit)."""
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
                out = OutputState(self.rtv_formats, self.dsv_format, ps, varyings or (),
                                  self.cull_mode, self.front_counter_clockwise,
                                  self.depth_enable, self.depth_enable
                                  and self.depth_write_mask == "ALL", self.depth_func)
            with _SHARED_LOCK:
                remember(_OUTPUTS, key, out)
        return out

    @property
    def signature(self) -> ShaderSignature:
        key = (self.input_layout, self.vertex_shader, self.entry_point)
        sig = _SIGNATURES.get(key)
        if sig is None:
            sig = (parse_vertex_shader(self.vertex_shader, self.entry_point)
                   if self.vertex_shader else pass_through_signature(self.input_layout))
            sig.check_layout(self.input_layout)
            with _SHARED_LOCK:
                remember(_SIGNATURES, key, sig)
        return sig

    @property
    def so(self):
        """The validated Stream Output declaration (None without one; empty declarations mean
        no Stream Output, rulebook 10.3)."""
        if self.stream_output is None:
            return None
        key = (self.signature, self.stream_output)
        so = _SO.get(key)
        if so is None:
            so = resolve_stream_output(self.stream_output, self.signature)
            with _SHARED_LOCK:
                remember(_SO, key, so)
        return None if so.empty else so


_SIGNATURES: dict = {}
_SO: dict = {}
_OUTPUTS: dict = {}
# Those three are shared by every context, on any thread: an eviction (remember) racing another
# thread's would raise KeyError or "dictionary changed size".
_SHARED_LOCK = threading.Lock()


@dataclass(eq=False)
class _State:
    """Everything a draw needs that depends only on (pipeline state, bound views, topology,
    path, capture): resolved once per combination and cached by the context."""

    static: StaticPlan
    pso: object
    views: dict
    layout: InputLayout
    signature: ShaderSignature
    topology: TopologyInfo
    capture: bool
    constants: bool  # the program reads the per-draw uniform block
    pipelines: dict = field(default_factory=dict)  # (path, strip format, capture group) -> pipeline
    native_buffers: tuple = ()  # per compact slot: (wgpu buffer, offset, size)
    pulled_group: object = None
    pulled_slot_words: np.ndarray | None = None
    native_plan: Plan | None = None  # shared Plan of fast-path native draws
    fast_pipeline: object = None  # its pipeline
    fast: bool = False  # native everywhere, no capture, no SO, no per-draw block, no adjacency
    native_handles: tuple = ()  # native_buffers as raw wgpu-native handles (see _ffi)
    fast_last_vertex: int = -1  # the highest vertex index every per-vertex slot holds whole
    fast_instances: tuple = ()  # (step rate, highest instance index held) of per-instance slots
    arena_layout: tuple = ()  # (view, first byte, length, arena position) per bound pulled slot
    arena_buffer: object = None
    arena_size: int = 0
    so: object = None  # ResolvedStreamOutput of the pipeline state, or None
    aligned: frozenset = frozenset()  # bound slots whose every fetch is word-aligned
    aligned16: frozenset = frozenset()  # bound slots with 16-byte view offset and stride
    bound: tuple = ()  # the views in slot order (the cache key holds their ids)
    output: OutputState = INTERNAL_OUTPUT  # what follows the vertex shader (capture: internal)
    assembly: Assembly = EXACT_ASSEMBLY  # what this adapter's primitive assembly needs
    cbvs: int = 0  # root constant buffer views the shaders read (@group(3))
    used: int = 0  # the context's flush count when a draw last resolved to this state


@dataclass(eq=False)
class _Record:
    """A capture draw waiting for the capture buffer to be sized."""

    state: _State
    draw: object
    plan: Plan
    keys: np.ndarray
    capture_base: int = 0
    key_offset: int = 0
    auto: tuple | None = None  # DrawAuto: (counter, counter offset, location, IA offset, stride)
    index_view: object = None  # the index buffer bound when the draw was recorded
    cbv_group: object = None  # the constant buffers bound when the draw was recorded


@dataclass
class Capture:
    """What the GPU's vertex shaders received during a capture, per recorded draw."""

    records: list = field(default_factory=list)
    words: np.ndarray | None = None
    unexpected: int = 0
    unexpected_max_vertex_index: int = 0
    element_count: int = 0


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

    Not thread-safe: one thread at a time (see the module docstring).
    """

    def __init__(self, device: Device, *, target=None):
        if not isinstance(device, Device):
            raise InvalidDescError("Context", "device", device, "expected a gpuia Device")
        self._lock = threading.Lock()  # held during every public call (see _exclusive)
        self._owner = None  # the thread inside a public call
        self.device = device
        self._target_texture = self._context_target(target)  # gpuia Texture or None
        self.cache = PipelineCache(device)
        self._pso: PipelineState | None = None
        self._slot_count = 32  # input slots of the pipeline state's profile
        self._views: dict[int, VertexBufferView | None] = {}
        self._view_cache: dict = {}
        self._index: IndexBufferView | None = None
        self._topology: TopologyInfo | None = None
        self._so_bound_buffers: set[int] = set()
        self._so_engine = None
        self._capture: Capture | None = None
        self._records: list[_Record] = []
        self._target = None if self._target_texture is None else self._target_texture.view
        self._states: dict = {}  # (pipeline state id, topology, capture) -> {bound view ids: state}
        self._epoch_states: dict = {}
        self._state: _State | None = None
        self._dirty = True  # re-resolve the state at the next draw
        self._epoch_dirty = True  # ... and more than cached vertex buffer bindings changed
        self._bound_ids: list = []  # id() of the view bound at each slot of the pipeline state
        self._slot_pos: dict = {}  # input slot -> position in the pipeline state's slots
        self._flushes = 0
        self.path = "auto"
        self.timings: dict | None = None  # filled by end_capture when a dict is set
        self.last_plan: Plan | None = None
        self.draw_count = 0
        # Open render pass and what it has bound.
        self._encoder = None
        self._pass = None
        self._bound_pipeline = None
        self._bound_vb: list = [None] * 32
        self._bound_g1 = None
        self._keepalive: list = []
        self._pass_states: dict = {}  # states encoded by raw calls since the last submit
        self._encoded_state = None
        self._capture_route = "storage"
        self._capture_group = -1
        self._capture_targets = 0
        self._capture_views = None  # color attachments of a render-target capture pass
        self._capture_rows = 0
        block_words = DRAW_HEADER_WORDS + SLOT_WORDS * _MAX_PULLED
        align = device.caps.min_uniform_buffer_offset_alignment // 4
        self._block_words = (block_words + align - 1) // align * align
        self._ring = np.zeros((_RING_DRAWS, self._block_words), dtype=np.uint32)
        self._ring_used = 0
        self._ring_buffer = wgpu_call(lambda: device.device.create_buffer(
            size=self._ring.nbytes, usage="UNIFORM|COPY_DST"), "Context")  # a lost device fails here
        self._group0_cache: dict = {}
        self._output: OutputState = INTERNAL_OUTPUT
        self._rtvs: tuple = ()  # bound render targets (Texture), OMSetRenderTargets
        self._dsv: Texture | None = None
        self._cbvs: dict[int, tuple] = {}  # root parameter index -> (Buffer, offset)
        self._cbv_groups: dict = {}  # ((buffer, offset) per root CBV) -> bind group
        self._capture_encoding = False  # end_capture is encoding capture draws
        self._capture_running = False  # end_capture is running the recorded draws
        self._retiring: list = []  # released resources waiting for this context's submit
        self._releases_seen = -1  # RELEASES when the bound resources were last checked
        # A context dropped with work pending never submits it: what waited for it can go.
        weakref.finalize(self, _retire_all, self._retiring, id(self)).atexit = False
        device._register(self)

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
            tex._live("Context", "target")
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
        return (self._encoder is not None or bool(self._records) or self._capture_running
                or self._lock.locked())

    def _retire(self) -> None:
        """After a submit: destroy the released resources that waited only for this context.
        Not while a capture's recorded draws are still to be encoded."""
        if self._retiring and not self._records and not self._capture_running:
            _retire_all(self._retiring, id(self))

    # -- state -------------------------------------------------------------------------------
    @_exclusive
    def set_pipeline_state(self, pso: PipelineState) -> None:
        """Set the input layout, vertex shader and strip cut value (validated now, like
        CreateGraphicsPipelineState)."""
        if not isinstance(pso, PipelineState):
            raise InvalidDescError("SetPipelineState", "pso", pso, "expected a PipelineState")
        pso.signature  # parse and check the shader against the layout now
        pso.so  # and the Stream Output declaration against the shader
        if has_effect(self.device.caps.quirks, UNIFORM_TWO_ROW_MATRICES):
            for field_name in ("vertex_shader", "pixel_shader"):
                found = two_row_matrix_uniforms(getattr(pso, field_name) or "")
                if found:
                    raise UnsupportedError(
                        f"SetPipelineState: {field_name} declares {found[0]}, which holds a "
                        f"2-row matrix: {self.device.info['summary']} reads such uniforms with "
                        f"GLSL's 16-byte column stride, not WGSL's 8 (docs/known-adapter-issues.md)")
        self._output = pso.output_state(self.device.caps.max_inter_stage_shader_variables)
        self._pso = pso
        self._pso_slots = tuple(pso.input_layout.slots)
        self._slot_count = pso.input_layout.profile.slot_count
        self._dirty = self._epoch_dirty = True

    @_exclusive
    def ia_set_primitive_topology(self, topology) -> None:
        try:
            self._topology = topology_info(topology)
        except ValueError as e:
            raise InvalidDescError("IASetPrimitiveTopology", "PrimitiveTopology", topology,
                                   str(e)) from None
        self._dirty = self._epoch_dirty = True

    def ia_set_vertex_buffers(self, start_slot: int, buffers, strides=None, offsets=None) -> None:
        """Bind slots ``start_slot .. start_slot + len(buffers) - 1``; other slots keep their
        bindings. ``buffers`` holds :class:`VertexBufferView` values (D3D12 form, strides and
        offsets then not allowed) or :class:`Buffer` objects with parallel ``strides`` and
        ``offsets`` lists (D3D10/11 form; offsets default to 0). None unbinds a slot.
        ``buffers`` None is ignored (D3D12, rulebook 6.4)."""
        # One thread at a time (see _exclusive), inlined: this is a hot call.
        lock = self._lock
        if not lock.acquire(False):
            if self._owner != _get_ident():
                raise _concurrent(self, "ia_set_vertex_buffers")
            lock = None  # a call from inside this context (same thread)
        else:
            self._owner = _get_ident()
        try:
            if buffers is None:
                return
            # The common rebind, inlined (the hottest call with draw_instanced): D3D11 form, plain
            # ints, every (buffer, stride, offset) validated before, so found in the view cache.
            # Views are applied only once all are found (a failing call changes nothing).
            if (strides is not None and type(start_slot) is int
                    and (type(buffers) is list or type(buffers) is tuple)
                    and (type(strides) is list or type(strides) is tuple)):
                n = len(buffers)
                if (0 <= start_slot and start_slot + n <= self._slot_count and len(strides) >= n
                        and (offsets is None
                             or ((type(offsets) is list or type(offsets) is tuple)
                                 and len(offsets) >= n))):
                    cache = self._view_cache
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
                        if not self._so_bound_buffers or not any(
                                id(v.buffer) in self._so_bound_buffers for v in found):
                            views, ids, pos = self._views, self._bound_ids, self._slot_pos
                            slot = start_slot
                            for v in found:
                                if views.get(slot) is not v:
                                    views[slot] = v
                                    j = pos.get(slot)
                                    if j is not None:
                                        ids[j] = id(v)
                                    self._dirty = True
                                slot += 1
                            return
            if type(buffers) is not list and type(buffers) is not tuple:
                buffers = _as_list(buffers, "ppVertexBuffers")
            if strides is not None and type(strides) is not list and type(strides) is not tuple:
                strides = _as_list(strides, "pStrides")
            if offsets is not None and type(offsets) is not list and type(offsets) is not tuple:
                offsets = _as_list(offsets, "pOffsets")
            n = len(buffers)
            limit = self._slot_limit()
            if type(start_slot) is not int:
                raise InvalidDescError("IASetVertexBuffers", "StartSlot", start_slot,
                                       "must be an integer")
            if start_slot < 0 or start_slot + n > limit:
                raise InvalidDescError("IASetVertexBuffers", "StartSlot", start_slot,
                                       f"slots {start_slot}..{start_slot + n - 1} exceed the "
                                       f"{limit} input slots")
            if strides is not None or offsets is not None:
                if strides is None or len(strides) < n:
                    raise InvalidDescError("IASetVertexBuffers", "pStrides", strides,
                                           f"needs one stride per buffer ({n})")
                if offsets is not None and len(offsets) < n:
                    raise InvalidDescError("IASetVertexBuffers", "pOffsets", offsets,
                                           f"needs one offset per buffer ({n})")
            new = {}
            cache = self._view_cache
            for i in range(n):
                b = buffers[i]
                slot = start_slot + i
                if b is None:
                    new[slot] = None
                    continue
                if strides is not None:
                    off = 0 if offsets is None else offsets[i]
                    # Keyed by the buffer's id; a hit must hold that very buffer. Only plain ints
                    # take the cache (8.0 == 8 must not slip past validation).
                    key = (id(b), strides[i], off)
                    hit = (cache.get(key) if type(key[1]) is int and type(off) is int
                           else None)
                    if hit is not None and hit.buffer is b and not b.released:
                        view = hit
                    else:
                        if isinstance(b, VertexBufferView):
                            raise InvalidDescError("IASetVertexBuffers", f"ppVertexBuffers[{i}]", b,
                                                   "views carry their own stride and offset; pass "
                                                   "buffers with pStrides/pOffsets, or views alone")
                        self._check_vertex_buffer(slot, b)
                        try:
                            view = VertexBufferView(b, strides[i], off)
                        except InvalidDescError as e:
                            raise InvalidDescError(f"IASetVertexBuffers slot {slot}", e.field,
                                                   e.value, e.rule) from None
                        remember(cache, key, view, _VIEW_CACHE_SIZE)
                else:
                    view = b
                    if not isinstance(view, VertexBufferView):
                        raise InvalidDescError("IASetVertexBuffers", f"pViews[{i}]", view,
                                               "expected a VertexBufferView (or give pStrides to "
                                               "bind buffers)")
                    if view.buffer is None:
                        new[slot] = None
                        continue
                    self._check_vertex_buffer(slot, view.buffer)
                if id(view.buffer) in self._so_bound_buffers:
                    warnings.warn(f"IASetVertexBuffers: slot {slot}'s buffer is bound as a Stream "
                                  f"Output target; the IA binds NULL instead", stacklevel=2)
                    view = None
                new[slot] = view
            views = self._views
            for slot, view in new.items():
                if views.get(slot) is not view:
                    views[slot] = view
                    self._dirty = self._epoch_dirty = True
        finally:
            if lock is not None:
                self._owner = None
                lock.release()

    def _check_vertex_buffer(self, slot: int, buf) -> None:
        if not isinstance(buf, Buffer) or buf.device is not self.device:
            raise InvalidDescError(f"IASetVertexBuffers slot {slot}", "buffer", buf,
                                   "expected a gpuia Buffer created on this context's device")
        buf._live(f"IASetVertexBuffers slot {slot}")
        if "vertex_buffer" not in buf.bind and "stream_output" not in buf.bind:
            raise InvalidDescError(f"IASetVertexBuffers slot {slot}", "buffer", buf,
                                   "was not created with the vertex_buffer bind flag "
                                   "(D3D10_BIND_VERTEX_BUFFER)")

    @_exclusive
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
                buf._live("IASetIndexBuffer")
        self._index = view

    # -- output merger and root constants ----------------------------------------------------
    @_exclusive
    def om_set_render_targets(self, rtvs=(), dsv: Texture | None = None) -> None:
        """OMSetRenderTargets: the color targets (up to 8 :class:`~gpuia.gpu.targets.Texture`s)
        and the depth-stencil target following draws render into. Every target must be of this
        device and of one size; a draw's pipeline state must name the same formats (RTVFormats,
        DSVFormat). With none bound, draws go to the context's own target."""
        if rtvs is None:
            rtvs = ()
        if isinstance(rtvs, Texture):
            rtvs = (rtvs,)
        rtvs = tuple(_as_list(rtvs, "ppRenderTargetDescriptors"))
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
            t._live("OMSetRenderTargets", field_name)
            if t.format.depth != depth:
                raise InvalidDescError("OMSetRenderTargets", field_name, t.format.name,
                                       "expected a depth format" if depth else
                                       "a depth format cannot be a render target")
            sizes.add((t.width, t.height))
        if len(sizes) > 1:
            raise InvalidDescError("OMSetRenderTargets", "size", sorted(sizes),
                                   "every bound target must have the same width and height "
                                   "(WebGPU render pass rule)")
        self._end_pass()
        self._rtvs, self._dsv = rtvs, dsv
        self._dirty = self._epoch_dirty = True

    @_guarded
    def clear_render_target_view(self, rtv: Texture, color) -> None:
        """ClearRenderTargetView: fill a color target with ``color`` (4 numbers), in order with
        the draws around it."""
        if not isinstance(rtv, Texture) or rtv.device is not self.device or rtv.format.depth:
            raise InvalidDescError("ClearRenderTargetView", "RenderTargetView", rtv,
                                   "expected a color Texture of this context's device")
        rtv._live("ClearRenderTargetView", "RenderTargetView")
        try:
            r, g, b, a = (float(c) for c in color)
        except (TypeError, ValueError):
            raise InvalidDescError("ClearRenderTargetView", "ColorRGBA", color,
                                   "expected four numbers") from None
        self._clear_pass(color_attachments=[{"view": rtv.view, "load_op": "clear",
                                             "store_op": "store", "clear_value": (r, g, b, a)}])

    @_guarded
    def clear_depth_stencil_view(self, dsv: Texture, depth: float = 1.0, stencil: int = 0) -> None:
        """ClearDepthStencilView: fill a depth(-stencil) target (depth in [0, 1])."""
        if not isinstance(dsv, Texture) or dsv.device is not self.device or not dsv.format.depth:
            raise InvalidDescError("ClearDepthStencilView", "DepthStencilView", dsv,
                                   "expected a depth Texture of this context's device")
        dsv._live("ClearDepthStencilView", "DepthStencilView")
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
        self._clear_pass(color_attachments=[], depth_stencil_attachment=att)

    def _clear_pass(self, **attachments) -> None:
        self._end_pass()
        if self._encoder is None:
            self._encoder = self.device.device.create_command_encoder()
        self._encoder.begin_render_pass(**attachments).end()

    @_exclusive
    def set_graphics_root_constant_buffer_view(self, root_parameter_index: int,
                                               buffer: Buffer | None, offset: int = 0) -> None:
        """SetGraphicsRootConstantBufferView: bind ``buffer`` from byte ``offset`` (D3D12's GPU
        virtual address is buffer + offset: a multiple of 256,
        D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT, and of the adapter's uniform offset
        alignment) as ``@group(3) @binding(root_parameter_index)``. The buffer needs the
        ``constant_buffer`` bind flag. Per-draw constants go in slices of one buffer bound at
        different offsets, as with D3D12 constant rings: ``Buffer.write`` is queued, so
        writing one slice between draws of one flush changes what earlier draws read too."""
        where = "SetGraphicsRootConstantBufferView"
        if type(root_parameter_index) is not int or not 0 <= root_parameter_index < _MAX_CBVS:
            raise InvalidDescError(where, "RootParameterIndex", root_parameter_index,
                                   f"expected 0..{_MAX_CBVS - 1}")
        if buffer is None:
            self._cbvs.pop(root_parameter_index, None)
        else:
            if not isinstance(buffer, Buffer) or buffer.device is not self.device:
                raise InvalidDescError(where, "BufferLocation", buffer,
                                       "expected a gpuia Buffer of this device")
            if "constant_buffer" not in buffer.bind:
                raise InvalidDescError(where, "BufferLocation", buffer,
                                       "was not created with the constant_buffer bind flag "
                                       "(D3D12_RESOURCE_STATE / CBV usage)")
            buffer._live(where)
            align = max(256, self.device.caps.min_uniform_buffer_offset_alignment)
            if type(offset) is not int or offset < 0 or offset % align or offset >= buffer.size:
                raise InvalidDescError(where, "offset", offset,
                                       f"must be a multiple of {align} inside the buffer's "
                                       f"{buffer.size} bytes")
            self._cbvs[root_parameter_index] = (buffer, offset)
        self._dirty = self._epoch_dirty = True

    def _cbv_group(self):
        """The bind group of the bound constant buffers, for the current pipeline state."""
        n = self._pso.constant_buffers
        # Views the shaders do not read may be unset (as in D3D12); WebGPU still wants a buffer.
        bound = tuple(self._cbvs.get(i) or (self._unread_cbv(), 0) for i in range(n))
        # Keyed by the buffers themselves (compared by identity) and their offsets.
        group = self._cbv_groups.get(bound)
        if group is None:
            limit = self.device.caps.max_uniform_buffer_binding_size
            group = remember(self._cbv_groups, bound, self.device.device.create_bind_group(
                layout=self.cache.cbv_layout(n), entries=[
                    {"binding": i, "resource": {"buffer": b.wgpu, "offset": off,
                                                "size": min(b.wgpu.size - off, limit)}}
                    for i, (b, off) in enumerate(bound)]), 64)
        return group

    def _unread_cbv(self) -> Buffer:
        if getattr(self, "_unread_buffer", None) is None:
            self._unread_buffer = self.device.create_buffer(size=256, bind=("constant_buffer",),
                                                            label="unread root CBV")
        return self._unread_buffer

    def _empty_group(self):
        if not hasattr(self, "_empty_bind_group"):
            self._empty_bind_group = self.device.device.create_bind_group(
                layout=self.cache.cbv_layout(0), entries=[])
        return self._empty_bind_group

    def _check_outputs(self, capture: bool) -> None:
        """The bound targets and constant buffers must be what the pipeline state says (WebGPU
        rejects a mismatch at submit, which would abort the process)."""
        pso = self._pso
        for i, size in pso.constant_buffer_reads:
            if i not in self._cbvs:
                raise InvalidDescError("draw", f"root constant buffer view {i}", None,
                                       f"the pipeline state's shaders read constant buffer {i}; "
                                       f"set_graphics_root_constant_buffer_view({i}, ...) was "
                                       f"not called")
            buffer, offset = self._cbvs[i]
            if buffer.size - offset < size:
                raise InvalidDescError("draw", f"root constant buffer view {i}",
                                       buffer.size - offset,
                                       f"the shaders read {size} bytes of constant buffer {i}; "
                                       f"the view holds {buffer.size - offset} from offset "
                                       f"{offset}")
        if capture:
            return
        bound = (tuple(t.format.name for t in self._rtvs),
                 self._dsv.format.name if self._dsv is not None else None)
        want = ((), None) if self._output.internal else self._output.signature()
        if bound != want:
            raise InvalidDescError(
                "draw", "render targets", bound,
                f"the pipeline state's RTVFormats/DSVFormat are {want}; bind matching targets "
                f"with om_set_render_targets (formats must match, as in D3D12)")

    @_exclusive
    def set_path(self, path: str) -> None:
        """``auto`` (default), ``native`` or ``pulling`` for the following draws."""
        if path not in ("auto", "native", "pulling"):
            raise InvalidDescError("set_path", "path", path, "must be auto, native or pulling")
        self.path = path
        self._dirty = self._epoch_dirty = True

    def _slot_limit(self) -> int:
        return self._slot_count

    # -- draws -------------------------------------------------------------------------------
    def draw_instanced(self, vertex_count_per_instance: int, instance_count: int = 1,
                       start_vertex_location: int = 0, start_instance_location: int = 0) -> Plan:
        """DrawInstanced. Returns the draw's :class:`Plan`."""
        # One thread at a time (see _exclusive), inlined: this is a hot call.
        lock = self._lock
        if not lock.acquire(False):
            if self._owner != _get_ident():
                raise _concurrent(self, "draw_instanced")
            lock = None  # a call from inside this context (same thread)
        else:
            self._owner = _get_ident()
        try:
            vc, ic, sv, si = (vertex_count_per_instance, instance_count, start_vertex_location,
                              start_instance_location)
            state = (self._state if not self._dirty and self._releases_seen == RELEASES[0]
                     else self._resolve_state())
            # Fast path: a state whose every slot is native with nothing per draw (see
            # _State.fast), plain ints, every fetch in bounds. Anything else: the general path.
            if (state.fast and self.path != "pulling"
                    and type(vc) is int and type(ic) is int and type(sv) is int and type(si) is int
                    and 0 < vc <= _U32 and 0 < ic <= _U32 and 0 <= sv <= _U32 - vc + 1
                    and 0 <= si <= _U32 - ic + 1):
                if sv + vc - 1 > state.fast_last_vertex:
                    return self.draw(DrawInstanced(vc, ic, sv, si))
                for rate, last in state.fast_instances:
                    if si + ((ic - 1) // rate if rate else 0) > last:
                        break
                else:
                    # Encode inline (the hottest path of the package; see _ffi).
                    if self._pass is None:
                        self._open_pass()
                    rp = self._pass_handle
                    if state is not self._encoded_state:
                        # Raw calls keep no references: the pass holds each state it
                        # encoded (once).
                        self._pass_states[id(state)] = state
                        self._encoded_state = state
                    pipeline = state.fast_pipeline
                    if pipeline is None:
                        pipeline = state.fast_pipeline = self._pipeline(state, "native")
                    if pipeline is not self._bound_pipeline:
                        _ffi.set_pipeline(self._pass, pipeline)
                        self._bound_pipeline = pipeline
                    bound = self._bound_vb
                    j = 0
                    for b in state.native_handles:
                        if bound[j] is not b:
                            _ffi.raw_set_vertex_buffer(rp, j, b[0], b[1], b[2])
                            bound[j] = b
                        j += 1
                    _ffi.raw_draw(rp, vc, ic, sv, si)
                    self.last_plan = state.native_plan
                    self.draw_count += 1
                    return state.native_plan
            return self.draw(DrawInstanced(vc, ic, sv, si))
        finally:
            if lock is not None:
                self._owner = None
                lock.release()

    @_exclusive
    def draw_indexed_instanced(self, index_count_per_instance: int, instance_count: int = 1,
                               start_index_location: int = 0, base_vertex_location: int = 0,
                               start_instance_location: int = 0) -> Plan:
        """DrawIndexedInstanced. Returns the draw's :class:`Plan`."""
        return self.draw(DrawIndexedInstanced(index_count_per_instance, instance_count,
                                              start_index_location, base_vertex_location,
                                              start_instance_location))

    @_guarded
    def draw(self, draw) -> Plan:
        """Plan and encode one draw: a :class:`DrawInstanced`, a :class:`DrawIndexedInstanced`
        or their case-file dict form."""
        if not isinstance(draw, (DrawInstanced, DrawIndexedInstanced)):
            draw = draw_of(draw)
        draw = delivering(draw)
        state = (self._state if not self._dirty and self._releases_seen == RELEASES[0]
                 else self._resolve_state())
        if draw.indexed:
            iv = self._index
            if iv is not None and iv.buffer is not None and iv.buffer.released:
                raise released_error("draw", "index buffer", iv.buffer)
        capture = state.capture
        if capture and draw.count > self._capture_limit():
            raise UnsupportedError(
                f"a capture draw of {draw.count} vertices per instance exceeds what one capture "
                f"can hold ({self._capture_limit()} on this adapter)")
        index = plan_indices(draw, self._index, state.topology, self._pso.strip_cut_value,
                             capture, state.assembly)
        index = shift_first_vertex(index, draw, self.device.caps.quirks)
        dynamic = bounds_obstacles(state.static, draw, index) if not state.static.native_obstacles else []
        if index.vertex_shift:
            dynamic.append(index.reasons[-1] + ", which the native path's fetch cannot follow")
        path, reasons = choose_path(state.static, dynamic, self.path)
        plan = Plan(path, reasons, index, state.static.slots)
        self.last_plan = plan
        self.draw_count += 1
        count = index.values.shape[0] if index.mode == "host" else draw.count
        if capture:
            if index.fetch is None:
                raise UnsupportedError("capture needs the draw's fetch indices on the host")
            if self._capture_route != "targets":  # that route's pipelines are built per group
                self._pipeline(state, path)
            self._records.append(_Record(state, draw, plan, _sorted_unique(index.fetch),
                                         index_view=self._index,
                                         cbv_group=self._cbv_group() if state.cbvs else None))
            return plan
        if state.so is not None and draw.instance_count:  # an empty draw streams out nothing
            if state.static.pulling_obstacles:
                raise UnsupportedError("Stream Output pulls the draw's vertices: "
                                       + "; ".join(state.static.pulling_obstacles))
            self._so().encode(state, state.so, draw, index, self._pso.strip_cut_value)
            if not state.so.rasterizes:
                return plan  # NO_RASTERIZED_STREAM: the draw rasterizes nothing
        if count == 0 or draw.instance_count == 0:
            return plan
        self._encode(state, path, draw, index,
                     self._next_block(state, path, draw, None, index.vertex_shift))
        return plan

    # -- Stream Output -----------------------------------------------------------------------
    def _so(self):
        if self._so_engine is None:
            from .so_engine import SOEngine

            self._so_engine = SOEngine(self)
        return self._so_engine

    @_guarded
    def so_set_targets(self, views, offsets=None) -> None:
        """SOSetTargets: bind :class:`~gpuia.d3d.desc.StreamOutputBufferView`s to output slots
        0..n-1 (None: unbound; fewer than four: the rest unbound). ``offsets`` (D3D11 style)
        sets each target's BufferFilledSize, -1 appending where it stands; views with their own
        counter buffer (D3D12) keep it. A target buffer bound in the IA is unbound there, with a
        warning, as the D3D runtime does. Views over released buffers are refused."""
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
        self._so().set_targets(views, offsets)
        for slot, v in list(self._views.items()):
            if v is not None and id(v.buffer) in self._so_bound_buffers:
                warnings.warn(f"SOSetTargets: the buffer at IA slot {slot} is now a Stream "
                              f"Output target; the IA slot is set to NULL", stacklevel=2)
                self._views[slot] = None
                self._dirty = self._epoch_dirty = True

    @_guarded
    def so_statistics(self) -> dict[str, int]:
        """SO statistics of stream 0 over every draw of this context (waits for the GPU)."""
        return self._so().statistics()

    @_guarded
    def so_filled_size(self, slot: int) -> int:
        """The BufferFilledSize of the SO target at ``slot`` (waits for the GPU). Refused when
        its counter is in a released buffer (reading it back would submit a destroyed one)."""
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
        fetch still follows D3D's bounds for every slot (rulebook 10.5, 6.5)."""
        return self._draw_auto()

    def _draw_auto(self) -> Plan:
        state = (self._state if not self._dirty and self._releases_seen == RELEASES[0]
                 else self._resolve_state())
        if state.so is not None:
            raise UnsupportedError("Stream Output of a DrawAuto draw: its vertex count is known "
                                   "only on the GPU")
        view0 = self._views.get(0)
        if view0 is None or view0.buffer is None:
            raise InvalidDescError("DrawAuto", "IA slot 0", None,
                                   "DrawAuto draws from the buffer bound at IA slot 0; none is")
        known = self._so().counter_of(view0.buffer)
        if known is None:
            raise InvalidDescError("DrawAuto", "IA slot 0", view0.buffer,
                                   "that buffer was never a Stream Output target, so it has no "
                                   "BufferFilledSize")
        counter, counter_offset, location = known
        if getattr(counter, "_gpuia_released", False):
            raise InvalidDescError("DrawAuto", "IA slot 0", view0.buffer,
                                   "the BufferFilledSizeLocation buffer of its last Stream Output "
                                   "view was released")
        if state.static.pulling_obstacles:
            raise UnsupportedError("DrawAuto pulls its vertices: "
                                   + "; ".join(state.static.pulling_obstacles))
        max_vertices = (view0.size_in_bytes // view0.stride_in_bytes + 1
                        if view0.stride_in_bytes else 1)
        draw = DrawInstanced(0, 1, 0, 0)
        plan = Plan("pulling", ["DrawAuto: the vertex count is on the GPU"],
                    non_indexed_plan(0, min(max_vertices, self._capture_limit()),
                                     with_fetch=state.capture), state.static.slots)
        self.last_plan = plan
        self.draw_count += 1
        args = (counter, counter_offset, location, view0.offset, view0.stride_in_bytes)
        if state.capture:
            if self._capture_route != "targets":
                self._pipeline(state, "pulling")
            rec = _Record(state, draw, plan, plan.index.fetch.astype(np.uint32),
                          cbv_group=self._cbv_group() if state.cbvs else None)
            rec.auto = args
            self._records.append(rec)
            return plan
        self._encode_auto(state, draw, args, self._next_block(state, "pulling", draw, None))
        return plan

    def _encode_auto(self, state, draw, args, block_offset, capture_bufs=None,
                     cbv_group=None) -> None:
        indirect = self._so().encode_draw_auto_args(*args)
        self._encode(state, "pulling", draw, non_indexed_plan(0, 0), block_offset, capture_bufs,
                     indirect=indirect, cbv_group=cbv_group)

    def _compute_encoder(self):
        """The command encoder with no render pass open (for compute work between draws)."""
        self._end_pass()
        if self._encoder is None:
            self._encoder = self.device.device.create_command_encoder()
        return self._encoder

    def _capture_limit(self) -> int:
        """Most vertices one capture draw can record (one record per vertex at the least)."""
        words = record_words(len(self._pso.input_layout.elements))
        return self.device.caps.max_storage_buffer_binding_size // (4 * words)

    def _resolve_state(self) -> _State:
        if self._epoch_dirty or self._releases_seen != RELEASES[0]:
            self._new_epoch()
        # Keyed by identity: each entry holds its pipeline state and views, so while it is cached
        # no other object can have their ids, and a hit is always the same objects.
        key = tuple(self._bound_ids)
        state = self._epoch_states.get(key)
        if state is None:
            bound = tuple(map(self._views.get, self._pso_slots))
            state = self._new_state(self._pso, self._topology, self._capture is not None, bound)
            if len(self._epoch_states) > 4096:
                self._epoch_states.clear()
            self._epoch_states[key] = state
        state.used = self._flushes
        self._state = state
        self._dirty = False
        return state

    def _sweep(self) -> None:
        """Forget the states and views no draw resolved to in the last _SWEEP_EVERY flushes:
        they hold their buffers (and pulled states their arena copies), so an engine that
        streams buffers in and out would otherwise keep every one it ever bound alive."""
        recent = self._flushes - _SWEEP_EVERY
        keep = set()
        for epoch, states in list(self._states.items()):
            for key, st in list(states.items()):
                if st.used < recent and st is not self._state:
                    del states[key]
                else:
                    keep.update(id(v) for v in st.bound)
            if not states and states is not self._epoch_states:
                del self._states[epoch]
        keep.update(id(v) for v in self._views.values())
        cache = self._view_cache
        for key in [k for k, v in cache.items() if id(v) not in keep]:
            del cache[key]

    def _new_epoch(self) -> None:
        """Validate what changed besides cached vertex buffer bindings and pick the state cache
        of (pipeline state, topology, capture)."""
        pso, topo = self._pso, self._topology
        if pso is None:
            raise InvalidDescError("draw", "pipeline state", None, "no pipeline state is set")
        if topo is None:
            raise InvalidDescError("draw", "PrimitiveTopology", None,
                                   "IASetPrimitiveTopology was not called")
        capture = self._capture is not None
        releases = RELEASES[0]
        self._check_live(capture)
        self._check_outputs(capture)
        epoch = (id(pso), topo.topology, capture)
        if epoch not in self._states and len(self._states) > 256:
            self._states.clear()
        self._epoch_states = self._states.setdefault(epoch, {})
        self._slot_pos = {s: j for j, s in enumerate(self._pso_slots)}
        self._bound_ids = [id(self._views.get(s)) for s in self._pso_slots]
        self._epoch_dirty = False
        self._releases_seen = releases

    def _check_live(self, capture: bool) -> None:
        """Nothing a draw hands to wgpu may have been released: a destroyed buffer or texture
        in a submit aborts the process. Runs when the bindings changed and after any release
        (RELEASES), so the fast draw path stays one comparison."""
        pso = self._pso
        for s in self._pso_slots:
            v = self._views.get(s)
            if v is not None and v.buffer is not None and v.buffer.released:
                raise released_error("draw", f"IA slot {s} buffer", v.buffer)
        for i, (b, _) in self._cbvs.items():
            if b.released and i < pso.constant_buffers:  # every view below n is bound
                raise released_error("draw", f"root constant buffer view {i}", b)
        if capture or self._output.internal:
            if self._target_texture is not None and self._target_texture.released:
                raise released_error("draw", "Context target", self._target_texture)
        else:
            for i, t in enumerate(self._rtvs):
                if t.released:
                    raise released_error("draw", f"render target {i}", t)
            if self._dsv is not None and self._dsv.released:
                raise released_error("draw", "depth-stencil target", self._dsv)
        if pso.so is not None and self._so_engine is not None:
            for slot, t in self._so_engine.targets.items():
                for field_name, b in (("buffer", t.buffer),
                                      ("BufferFilledSizeLocation", t.view.filled_size_buffer)):
                    if isinstance(b, Buffer) and b.released:
                        raise released_error("draw", f"SO target {slot} {field_name}", b)

    def _new_state(self, pso, topo, capture: bool, bound: tuple) -> _State:
        layout, sig = pso.input_layout, pso.signature
        views = dict(zip(self._pso_slots, bound))
        static = static_plan(layout, views, self.device.caps, capture, pso.so is not None)
        uses_sv = sig.uses("SV_VERTEXID") or sig.uses("SV_INSTANCEID")
        state = _State(static, pso, views, layout, sig, topo, capture, capture or uses_sv)
        state.bound = bound
        state.so = pso.so
        state.output = INTERNAL_OUTPUT if capture else self._output
        state.assembly = (EXACT_ASSEMBLY if capture else Assembly.of(
            self.device.caps.quirks, any(v.flat for v in state.output.varyings)))
        state.cbvs = pso.constant_buffers
        state.aligned = frozenset(
            s for s in static.slots if views[s] is not None and views[s].buffer is not None
            and views[s].offset % 4 == 0 and views[s].stride_in_bytes % 4 == 0
            and all(e.offset % 4 == 0 for e in layout.slots[s].elements))
        state.aligned16 = frozenset(
            s for s in state.aligned
            if views[s].offset % 16 == 0 and views[s].stride_in_bytes % 16 == 0)
        state.native_plan = Plan("native", [], non_indexed_plan(0, 0), static.slots)
        if not static.native_obstacles:
            state.native_buffers = tuple(
                (views[s].buffer.wgpu, views[s].offset, views[s].size_in_bytes)
                for s in static.slots)
            state.native_handles = tuple(_ffi.vertex_buffer_args(*b) for b in state.native_buffers)
            # Per slot, the highest element index whose fetch stays inside the view (one
            # comparison per draw instead of a bounds formula per slot).
            last = {}
            for b in static.bounds:
                held = (-1 if b.extent > b.size else _U32 if b.stride == 0
                        else (b.size - b.extent) // b.stride)
                key = b.rate if b.per_instance else None
                last[key] = min(last.get(key, held), held)
            state.fast_last_vertex = last.pop(None, _U32)
            if has_effect(self.device.caps.quirks, SIGNED_FIRST_VERTEX):
                # Past 2**31 - 1 the general path shifts the first vertex (shift_first_vertex).
                state.fast_last_vertex = min(state.fast_last_vertex, (1 << 31) - 1)
            state.fast_instances = tuple(last.items())
        if static.arena:
            layout_rows, pos = [], 0
            for slot in static.slots:
                v = views[slot]
                if v is not None and v.buffer is not None:
                    start, length = arena_extent(v)
                    layout_rows.append((v, start, length, pos))
                    pos += (length + 15) // 16 * 16
            state.arena_layout = tuple(layout_rows)
            state.arena_size = max(16, pos)
        state.fast = (not capture and not state.constants and not static.native_obstacles
                      and not state.cbvs and not state.assembly.rotate
                      and state.so is None and not topo.adjacency and _ffi.DIRECT)
        return state

    def _pipeline(self, state: _State, path: str, strip_fmt: str | None = None,
                  listed: bool = False):
        """The render pipeline of ``state`` on ``path``; ``listed``: drawing a strip's
        primitives from a list stream (:func:`gpuia.gpu.assembly.list_stream`)."""
        group, per_group = (self._capture_group, self._capture_targets) if state.capture else (-1, 0)
        pipe = state.pipelines.get((path, strip_fmt, group, listed))
        if pipe is not None:
            return pipe
        topo = webgpu_topology(state.topology, listed, state.capture)
        if path == "native":
            layout = state.layout
            buffers = tuple((state.views[s].stride_in_bytes,
                             "instance" if layout.slots[s].per_instance else "vertex")
                            for s in state.static.slots)
            key = NativeKey(layout, state.signature, state.capture, state.constants, buffers,
                            topo, strip_fmt, state.output, capture_group=group,
                            capture_targets=per_group, cbvs=state.cbvs)
            pipe = self.cache.native(key, state.static.slots)
        else:
            key = PullingKey(state.layout, state.signature, state.capture, state.static.slots,
                             topo, strip_fmt, state.output, capture_group=group,
                             capture_targets=per_group, cbvs=state.cbvs, aligned=state.aligned,
                             aligned16=state.aligned16,
                             arena=state.static.arena)
            pipe = self.cache.pulling(key)
        state.pipelines[(path, strip_fmt, group, listed)] = pipe
        return pipe

    # -- encoding ----------------------------------------------------------------------------
    def _target_view(self):
        if self._target is None:  # the internal 1x1 target (a given one is set in __init__)
            import wgpu

            tex = self.device.device.create_texture(size=(1, 1, 1), format=TARGET_FORMAT,
                                                    usage=wgpu.TextureUsage.RENDER_ATTACHMENT)
            self._target = tex.create_view()
        return self._target

    def _end_pass(self) -> None:
        if self._pass is not None:
            self._pass.end()
            self._pass = None

    def _open_pass(self):
        if self._pass is None:
            if self._encoder is None:
                self._encoder = self.device.device.create_command_encoder()
            depth = None
            if self._capture_encoding or not (self._rtvs or self._dsv is not None):
                views = self._capture_views or [self._target_view()]
            else:
                views = [t.view for t in self._rtvs]
                if self._dsv is not None:
                    depth = {"view": self._dsv.view, "depth_load_op": "load",
                             "depth_store_op": "store"}
                    if self._dsv.format.stencil:
                        depth.update(stencil_load_op="load", stencil_store_op="store")
            self._pass = self._encoder.begin_render_pass(color_attachments=[
                {"view": v, "load_op": "load", "store_op": "store"} for v in views],
                depth_stencil_attachment=depth)
            self._pass_handle = _ffi.handle(self._pass)
            self._bound_pipeline = None
            self._bound_vb = [None] * 32
            self._bound_g1 = None
        return self._pass

    def _next_block(self, state: _State, path: str, draw, record, shift: int = 0) -> int | None:
        """Fill the next per-draw uniform block; returns its byte offset (None if unused)."""
        if path == "native" and not state.constants:
            return None
        if self._ring_used == _RING_DRAWS:
            self.flush()
        i = self._ring_used
        self._ring_used += 1
        block = self._ring[i]
        block[0] = (draw.base_vertex_location & _U32 if draw.indexed
                    else draw.start_vertex_location)
        block[1] = draw.start_instance_location
        block[8] = shift  # see shift_first_vertex
        if record is not None:
            keys = record.keys
            block[2] = record.capture_base
            block[3] = record.key_offset
            block[4] = keys.shape[0]
            contiguous = keys.shape[0] == 0 or int(keys[-1]) - int(keys[0]) + 1 == keys.shape[0]
            block[5] = 1 if contiguous else 0
            block[6] = int(keys[0]) if keys.shape[0] else 0
            block[7] = self._capture_rows
        if path == "pulling":
            if state.pulled_slot_words is None:
                words = np.zeros(SLOT_WORDS * len(state.static.slots), dtype=np.uint32)
                arena = {id(v): pos - start for v, start, _, pos in state.arena_layout}
                for j, s in enumerate(state.static.slots):
                    v = state.views[s]
                    if v is not None and v.buffer is not None:
                        window = state.static.windows.get(s, (0, 0))
                        base = v.offset + arena.get(id(v), 0) - window[0]
                        words[4 * j:4 * j + 4] = (base, v.stride_in_bytes, v.size_in_bytes, 1)
                state.pulled_slot_words = words
            w = state.pulled_slot_words
            block[DRAW_HEADER_WORDS:DRAW_HEADER_WORDS + w.shape[0]] = w
        return i * self._block_words * 4

    def _group0(self, capture: bool, n: int, capture_bufs=None):
        mode = "targets" if capture and self._capture_route == "targets" else capture
        key = (mode, n, id(capture_bufs[0]) if capture_bufs else None)
        g = self._group0_cache.get(key)
        if g is None:
            entries = [{"binding": 0, "resource": {"buffer": self._ring_buffer, "offset": 0,
                                                   "size": self.cache.draw_block_size(n)}}]
            bindings = (2,) if mode == "targets" else (1, 2, 3)
            if capture:
                entries += [{"binding": k, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                            for k, b in zip(bindings, capture_bufs)]
            g = self.device.device.create_bind_group(layout=self.cache.group0_layout(mode, n),
                                                     entries=entries)
            if capture:
                self._group0_cache = {k: v for k, v in self._group0_cache.items() if not k[0]}
            self._group0_cache[key] = g
        return g

    def _pulled_group(self, state: _State, compute: bool = False):
        """The bind group of the pulled vertex buffers (vertex stage, or compute for SO)."""
        groups = state.pulled_group or {}
        if compute not in groups and state.static.arena:
            if state.arena_buffer is None:
                state.arena_buffer = self.device.device.create_buffer(
                    size=state.arena_size, usage="STORAGE|COPY_DST")
            groups[compute] = self.device.device.create_bind_group(
                layout=self.cache.group1_layout(1, compute=compute), entries=[
                    {"binding": 0, "resource": {"buffer": state.arena_buffer, "offset": 0,
                                                "size": state.arena_size}}])
            state.pulled_group = groups
        if compute not in groups:
            entries = []
            for j, s in enumerate(state.static.slots):
                v = state.views[s]
                wb = v.buffer.wgpu if v is not None and v.buffer is not None else self._dummy()
                offset, size = state.static.windows.get(s, (0, wb.size))
                entries.append({"binding": j, "resource": {"buffer": wb, "offset": offset,
                                                            "size": size}})
            if not entries:
                entries = [{"binding": 0, "resource": {"buffer": self._dummy(), "offset": 0,
                                                        "size": 16}}]
            groups[compute] = self.device.device.create_bind_group(
                layout=self.cache.group1_layout(len(entries), compute=compute), entries=entries)
            state.pulled_group = groups
        return groups[compute]

    @_exclusive
    def fill_arena(self, state: _State) -> None:
        """Copy every pulled view into the state's arena buffer, right before the draw that
        reads it (a render pass cannot hold copies, so the open one is ended)."""
        self._pulled_group(state)  # creates the arena buffer
        enc = self._compute_encoder()
        for v, start, length, pos in state.arena_layout:
            enc.copy_buffer_to_buffer(v.buffer.wgpu, start, state.arena_buffer, pos, length)
        self._keepalive.append(state)

    def _encode(self, state: _State, path: str, draw, index, block_offset, capture_bufs=None,
                indirect=None, index_view=None, cbv_group=None):
        if path == "pulling" and state.static.arena:
            self.fill_arena(state)
        rp = self._open_pass()
        # WebGPU strips take the index format for restart; adjacency strips are drawn as lists.
        strip_fmt = strip_index_format(state.topology, index, draw, state.capture)
        pipeline = self._pipeline(state, path, strip_fmt, index.listed)
        if pipeline is not self._bound_pipeline:
            rp.set_pipeline(pipeline)
            self._bound_pipeline = pipeline
            self._bound_g1 = None
        if block_offset is not None:
            n = len(state.static.slots) if path == "pulling" else 1
            rp.set_bind_group(0, self._group0(state.capture, max(1, n), capture_bufs),
                              [block_offset])
        if path == "pulling":
            g1 = self._pulled_group(state)
            if g1 is not self._bound_g1:
                rp.set_bind_group(1, g1)
                self._bound_g1 = g1
        if state.cbvs:
            # Groups below 3 that this path's layout leaves empty still need a (empty) group.
            used = 2 if path == "pulling" else (1 if block_offset is not None else 0)
            for g in range(used, 3):
                rp.set_bind_group(g, self._empty_group())
            if used <= 1:
                self._bound_g1 = None
            rp.set_bind_group(3, cbv_group or self._cbv_group())
        if path != "pulling":
            bound = self._bound_vb
            for j, b in enumerate(state.native_buffers):
                if bound[j] is not b:
                    rp.set_vertex_buffer(j, b[0], b[1], b[2])
                    bound[j] = b
        if indirect is not None:
            rp.draw_indirect(indirect, 0)
            return
        issue_draw(rp, draw, index, index_view or self._index, self._upload_indices)

    def _upload_indices(self, data: np.ndarray):
        buf = self.device.device.create_buffer_with_data(data=data, usage="INDEX")
        self._keepalive.append(buf)
        return buf

    def _dummy(self):
        if not hasattr(self, "_dummy_buf"):
            self._dummy_buf = self.device.device.create_buffer(size=16, usage="STORAGE")
        return self._dummy_buf

    @_guarded
    def flush(self) -> None:
        """Submit every draw encoded since the last flush; then destroy what was released while
        they were pending (:meth:`gpuia.gpu.Buffer.release`)."""
        if self._encoder is None:
            self._ring_used = 0  # blocks of draws that encoded nothing
            self._retire()
            return
        rp, enc, used = self._pass, self._encoder, self._ring_used
        self._pass = self._encoder = None
        self._ring_used = 0
        try:
            if rp is not None:
                rp.end()
            if used:
                self.device.device.queue.write_buffer(self._ring_buffer, 0, self._ring[:used])
            commands = enc.finish()
        except Exception as e:  # wgpu validation at finish(): nothing was submitted
            self._retire()  # nor will it be
            raise device_error(e, "flush") or UnsupportedError(
                f"wgpu refused the encoded draws: {e}") from None
        finally:
            self._encoded_state = None
        self.device.device.queue.submit([commands])
        self._keepalive.clear()
        self._pass_states.clear()
        self._retire()
        self._flushes += 1
        if self._flushes % _SWEEP_EVERY == 0:
            self._sweep()

    # -- capture -----------------------------------------------------------------------------
    @_guarded
    def begin_capture(self, route: str = "auto") -> None:
        """Start recording what vertex shaders receive. Pending draws are submitted first.

        ``route``: ``storage`` (vertex shaders write records to a storage buffer; needs the
        adapter feature vertex-writable-storage), ``targets`` (one point per record rendered into
        rgba32uint color targets; works on any adapter), or ``auto`` (storage when available)."""
        if route not in ("auto", "storage", "targets"):
            raise InvalidDescError("begin_capture", "route", route,
                                   "must be auto, storage or targets")
        if route == "auto":
            route = "storage" if self.device.caps.vertex_writable_storage else "targets"
        if route == "storage" and not self.device.caps.vertex_writable_storage:
            raise UnsupportedError("the storage capture route needs the adapter feature "
                                   "vertex-writable-storage; use route='targets'")
        self.flush()
        self._capture = Capture()
        self._capture_route = route
        self._records = []
        self._dirty = self._epoch_dirty = True

    @_guarded
    def end_capture(self) -> Capture:
        """Encode and run the captured draws and read back what they received."""
        if self._capture is None:
            raise InvalidDescError("end_capture", None, None, "begin_capture was not called")
        cap, records = self._capture, self._records
        self._capture, self._records = None, []
        self._dirty = self._epoch_dirty = True
        if not records:
            self._retire()
            return cap
        self._capture_running = True  # its draws are encoded and submitted in several parts
        try:
            return self._run_capture(records, cap)
        finally:
            self._capture_running = False
            self._retire()
            # Capture bind groups name this capture's buffers: never reuse them (an id() of a
            # freed buffer can come back for the next capture's).
            self._group0_cache = {k: v for k, v in self._group0_cache.items() if not k[0]}

    def _run_capture(self, records, cap: Capture) -> Capture:
        total, keys = self._layout_records(records, cap)
        key_buf = self.device.device.create_buffer_with_data(data=keys, usage="STORAGE")
        if self._capture_route == "targets":
            self._capture_to_targets(records, cap, total, key_buf)
            return cap
        words = record_words(cap.element_count)
        size = max(4, total * words * 4)
        if size > self.device.caps.max_storage_buffer_binding_size:
            raise UnsupportedError(
                f"the capture needs {size} bytes, more than max-storage-buffer-binding-size "
                f"{self.device.caps.max_storage_buffer_binding_size}; capture fewer vertices "
                f"per call")
        wgpu_dev = self.device.device
        bufs = (wgpu_dev.create_buffer(size=size, usage="STORAGE|COPY_SRC"), key_buf,
                wgpu_dev.create_buffer(size=16, usage="STORAGE|COPY_SRC"))
        self._capture_rows = 0
        clock = __import__("time").perf_counter
        t0 = clock()
        self._encode_records(records, bufs)
        if self.timings is not None:
            self.device.device.queue.read_buffer(bufs[2], 0, 4)  # waits for the GPU
            t1 = clock()
        self._read_capture(cap, bufs)
        if self.timings is not None:
            self.timings.update({"encode_and_gpu": t1 - t0, "readback": clock() - t1})
        return cap

    def _encode_records(self, records, bufs) -> None:
        self._end_pass()
        self._capture_encoding = True
        try:
            self._encode_record_list(records, bufs)
        finally:
            self._capture_encoding = False

    def _encode_record_list(self, records, bufs) -> None:
        for r in records:
            d = r.draw
            if r.auto is not None:
                self._encode_auto(r.state, d, r.auto, self._next_block(r.state, "pulling", d, r),
                                  bufs, r.cbv_group)
                continue
            count = r.plan.index.values.shape[0] if r.plan.index.mode == "host" else d.count
            if count == 0 or d.instance_count == 0:
                continue
            offset = self._next_block(r.state, r.plan.path, d, r, r.plan.index.vertex_shift)
            self._encode(r.state, r.plan.path, d, r.plan.index, offset, bufs,
                         index_view=r.index_view, cbv_group=r.cbv_group)
        self.flush()

    def _layout_records(self, records, cap: Capture):
        """Give each capture draw its first record and first key; returns (total records,
        all keys)."""
        layout = records[0].state.layout
        cap.element_count = len(layout.elements)
        cap.records = records
        total, key_total = 0, 0
        for r in records:
            if r.state.layout != layout:
                raise UnsupportedError("one capture holds draws of one input layout")
            r.capture_base = total
            r.key_offset = key_total
            total += r.keys.shape[0] * r.draw.instance_count
            key_total += r.keys.shape[0]
        keys = np.concatenate([r.keys for r in records] + [np.zeros(1, np.uint32)])
        return total, keys

    def _capture_to_targets(self, records, cap: Capture, total: int, key_buf) -> None:
        import wgpu

        caps = self.device.caps
        per_group = max(1, min(8, caps.max_color_attachments,
                               caps.max_color_attachment_bytes_per_sample // 16))
        vec4s = 1 + cap.element_count
        width = CAPTURE_TARGET_WIDTH
        rows = (total + 1 + width - 1) // width  # + 1: the last texel takes unexpected vertices
        if rows > caps.max_texture_dimension_2d:
            raise UnsupportedError(f"the capture needs {rows} texel rows, more than "
                                   f"max-texture-dimension-2d {caps.max_texture_dimension_2d}")
        out = np.zeros((rows * width, 4 * vec4s), dtype=np.uint32)
        self._capture_rows = rows
        try:
            for group in range(0, (vec4s + per_group - 1) // per_group):
                n = min(per_group, vec4s - group * per_group)
                textures = [self.device.device.create_texture(
                    size=(width, rows, 1), format="rgba32uint",
                    usage=wgpu.TextureUsage.RENDER_ATTACHMENT | wgpu.TextureUsage.COPY_SRC)
                    for _ in range(n)]
                self._capture_group, self._capture_targets = group, per_group
                self._capture_views = [t.create_view() for t in textures]
                self._encode_records(records, (key_buf,))
                for j, tex in enumerate(textures):
                    data = self.device.device.queue.read_texture(
                        {"texture": tex}, {"bytes_per_row": width * 16, "rows_per_image": rows},
                        (width, rows, 1))
                    col = 4 * (group * per_group + j)
                    out[:, col:col + 4] = np.frombuffer(data, np.uint32).reshape(-1, 4)
        finally:
            self._capture_group, self._capture_targets, self._capture_views = -1, 0, None
        last = out[-1]
        if last[0] == 2:  # vertices D3D would not fetch were shaded (count not kept)
            cap.unexpected, cap.unexpected_max_vertex_index = 1, int(last[3])
        recs = out[:total]
        cap.words = np.concatenate([recs[:, :3], recs[:, 4:]], axis=1).reshape(-1)

    def _read_capture(self, cap: Capture, bufs) -> None:
        cap_buf, _, err_buf = bufs
        q = self.device.device.queue
        cap.words = np.frombuffer(q.read_buffer(cap_buf), dtype=np.uint32)
        errs = np.frombuffer(q.read_buffer(err_buf), dtype=np.uint32)
        cap.unexpected = int(errs[0])
        cap.unexpected_max_vertex_index = int(errs[1])
