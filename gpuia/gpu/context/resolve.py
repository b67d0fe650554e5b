"""Draw-state resolution and its cache: everything a draw needs that depends only on the
pipeline state, the bound views, the topology and whether a capture is running, resolved once
per combination (the static plan, the native vertex buffers, the fast path's bounds, the arena
layout) and found again with one dictionary look-up.

Two levels, as DXVK keeps its state: an *epoch* (pipeline state, topology, capture) is validated
when it changes (targets, constant buffers, released resources) and selects a dictionary keyed
by the ids of the views bound at the pipeline state's slots; a rebind to views already seen
changes only that key (:attr:`StateCache.bound_ids`, updated in place by the IA)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ...d3d.layout import InputLayout
from ...d3d.signature import ShaderSignature
from ...d3d.so_declaration import ResolvedStreamOutput
from ...d3d.topology import TopologyInfo
from ...errors import InvalidDescError
from ...wgsl.blocks import DRAW_SLOT
from ...wgsl.program import SLOT_WORDS
from .. import _ffi
from ..buffers import Buffer
from ..ia.plan import EXACT_ASSEMBLY, Assembly, non_indexed_plan
from ..lifetime import RELEASES, released_error
from ..quirks import SIGNED_FIRST_VERTEX, has_effect
from ..targets import INTERNAL_OUTPUT, OutputState
from ..vertex.plan import Plan, StaticPlan, arena_extent, native_last_indices, static_plan
from .ia_state import IAState
from .pso import PipelineState
from .srv_state import specialised_signature

__all__ = ["DrawState", "StateCache", "SWEEP_EVERY", "new_state", "StatePipelines"]

_SLOT_BASE, _SLOT_STRIDE, _SLOT_SIZE, _SLOT_BOUND = (DRAW_SLOT.word(name) for name in (
    "base", "stride", "size", "bound"))
SWEEP_EVERY = 8  # flushes: states and views unused for that long are forgotten (see sweep)


class StatePipelines(dict):
    """A draw state's pipeline cache: (path, strip format, capture group, listed) -> render
    pipeline, filled by the recorder on first use. ``fast``: the native pipeline of a fast
    state (:attr:`DrawState.fast`), which the fast draw reads without a look-up (None until
    its first draw)."""

    __slots__ = ("fast",)

    def __init__(self) -> None:
        super().__init__()
        self.fast = None


@dataclass(frozen=True, eq=False)
class DrawState:
    """Everything a draw needs that depends only on (pipeline state, bound views, topology,
    capture): resolved once per combination (:func:`new_state`, the one place that builds
    one), cached by :class:`StateCache`, and never changed after; ``pipelines`` is this
    state's pipeline cache (:class:`StatePipelines`), filled by the recorder."""

    static: StaticPlan
    pso: PipelineState
    views: dict  # input slot -> the view bound there (None: unbound)
    layout: InputLayout
    signature: ShaderSignature
    topology: TopologyInfo
    capture: bool
    constants: bool  # the program reads the per-draw uniform block
    bound: tuple  # the views in slot order (the cache key holds their ids)
    so: ResolvedStreamOutput | None  # of the pipeline state
    output: OutputState  # what follows the vertex shader (capture: internal)
    assembly: Assembly  # what this adapter's primitive assembly needs
    cbvs: tuple[int, ...]  # root constant buffers the shaders read (@group(3))
    aligned: frozenset  # bound slots whose every fetch is word-aligned
    aligned16: frozenset  # bound slots with 16-byte view offset and stride
    native_plan: Plan  # shared Plan of fast-path native draws
    native_buffers: tuple  # per compact slot: (wgpu buffer, offset, size); () if not native
    native_handles: tuple  # native_buffers as raw wgpu-native handles (see _ffi)
    attribute_buffers: dict  # slot -> (wgpu buffer, offset, size) of slots the attribute form
    # of pulling may read (static.attribute_bounds)
    fast_last_vertex: int  # the highest vertex index every per-vertex slot holds whole
    fast_instances: tuple  # (step rate, highest instance index held) of per-instance slots
    arena_layout: tuple  # (view, first byte, length, arena position) per bound pulled slot
    arena_size: int
    pulled_slot_words: np.ndarray  # the per-draw block's slot words of the pulling path
    fast: bool  # native everywhere, no capture, no SO, no per-draw block, no adjacency
    pipelines: StatePipelines = field(default_factory=StatePipelines)


def new_state(caps, pso: PipelineState, topo: TopologyInfo, capture: bool, slots: tuple,
              bound: tuple, output: OutputState, typed: tuple = ()) -> DrawState:
    """The :class:`DrawState` of a pipeline state, its views (``bound``, one per slot of
    ``slots``), a topology and whether a capture runs, on an adapter of ``caps``; ``output``:
    what follows the vertex shader (the pipeline state's output state); ``typed``: the formats
    of the vertex shader's typed views (its signature's programs are built for them:
    :func:`~gpuia.gpu.context.srv_state.specialised_signature`)."""
    layout, sig = pso.input_layout, specialised_signature(pso.signature, typed)
    views = dict(zip(slots, bound, strict=True))
    cbvs = pso.group_bindings
    if pso.shader_resources:  # the SRVs take storage buffers of every stage the VS runs in
        caps = dataclasses.replace(caps, max_storage_buffers_per_shader_stage=(
            caps.max_storage_buffers_per_shader_stage - len(pso.shader_resources)))
    static = static_plan(layout, views, caps, capture, pso.so is not None,
                         compute=pso.geometry_shader is not None)
    uses_sv = sig.uses("SV_VERTEXID") or sig.uses("SV_INSTANCEID")
    constants = capture or uses_sv
    output = INTERNAL_OUTPUT if capture else output
    assembly = (EXACT_ASSEMBLY if capture else Assembly.of(
        caps.quirks, any(v.flat for v in output.varyings)))
    aligned = frozenset(
        s for s in static.slots if views[s] is not None and views[s].buffer is not None
        and views[s].offset % 4 == 0 and views[s].stride_in_bytes % 4 == 0
        and all(e.offset % 4 == 0 for e in layout.slots[s].elements))
    aligned16 = frozenset(
        s for s in aligned if views[s].offset % 16 == 0 and views[s].stride_in_bytes % 16 == 0)
    native_buffers: tuple = ()
    native_handles: tuple = ()
    last_vertex, instances = -1, ()
    if not static.native_obstacles:
        native_buffers = tuple((views[s].buffer.wgpu, views[s].offset, views[s].size_in_bytes)
                               for s in static.slots)
        native_handles = tuple(_ffi.vertex_buffer_args(*b) for b in native_buffers)
        # The highest vertex and instance indices whose fetches stay inside every view: the
        # fast path's bounds are one comparison each (the rule itself: gpuia.gpu.vertex.plan).
        last_vertex, instances = native_last_indices(static)
        if has_effect(caps.quirks, SIGNED_FIRST_VERTEX):
            # Past 2**31 - 1 the general path shifts the first vertex (shift_first_vertex).
            last_vertex = min(last_vertex, (1 << 31) - 1)
    arena_layout, arena_size = _arena(static, views)
    fast = (not capture and not constants and not static.native_obstacles and not cbvs
            and not assembly.rotate and pso.so is None and not topo.adjacency and _ffi.DIRECT)
    return DrawState(static, pso, views, layout, sig, topo, capture, constants, bound, pso.so,
                     output, assembly, cbvs, aligned, aligned16,
                     Plan("native", [], non_indexed_plan(0, 0), static.slots), native_buffers,
                     native_handles,
                     {s: (views[s].buffer.wgpu, views[s].offset, views[s].size_in_bytes)
                      for s in static.attribute_bounds},
                     last_vertex, instances, arena_layout, arena_size,
                     _slot_words(static, views, arena_layout), fast)


def _arena(static: StaticPlan, views: dict) -> tuple[tuple, int]:
    """(arena layout, arena size): where each bound view's bytes go in the arena buffer of a
    state whose pulled slots are copied into one (``static.arena``); ((), 0) otherwise."""
    if not static.arena:
        return (), 0
    rows, pos = [], 0
    for slot in static.slots:
        v = views[slot]
        if v is not None and v.buffer is not None:
            start, length = arena_extent(v)
            rows.append((v, start, length, pos))
            pos += (length + 15) // 16 * 16
    return tuple(rows), max(16, pos)


def _slot_words(static: StaticPlan, views: dict, arena_layout: tuple) -> np.ndarray:
    """The per-draw block's words for the pulled slots (base, stride, size, bound per slot):
    the same for every pulled draw of the state."""
    words = np.zeros(SLOT_WORDS * len(static.slots), dtype=np.uint32)
    arena = {id(v): pos - start for v, start, _, pos in arena_layout}
    for j, s in enumerate(static.slots):
        v = views[s]
        if v is not None and v.buffer is not None:
            window = static.windows.get(s, (0, 0))
            entry = words[SLOT_WORDS * j:SLOT_WORDS * (j + 1)]
            entry[_SLOT_BASE] = v.offset + arena.get(id(v), 0) - window[0]
            entry[_SLOT_STRIDE] = v.stride_in_bytes
            entry[_SLOT_SIZE] = v.size_in_bytes
            entry[_SLOT_BOUND] = 1
    return words


class StateCache:
    """Resolves and caches :class:`DrawState` values for one context.

    Attributes (public because the IA's cached rebind and the fast draw read and write them
    without a call):
        dirty (bool): re-resolve at the next draw.
        epoch_dirty (bool): ... and more than cached vertex buffer bindings changed.
        state (DrawState | None): the last resolved state.
        releases_seen (int): RELEASES when the bound resources were last checked.
        bound_ids (list): id() of the view bound at each slot of the pipeline state.
        slot_pos (dict): input slot -> position in the pipeline state's slots.
        pso: the pipeline state; capturing (bool): a capture is running.
    """

    def __init__(self, device, om, so_targets):
        self.device = device
        self.ia = IAState(device, self.invalidate)  # its own: a binding change invalidates it
        self.om = om
        self.so_targets = so_targets  # () -> {SO slot: StreamOutputBufferView}
        self.pso: PipelineState | None = None
        self.pso_slots: tuple = ()
        self.capturing = False
        self.dirty = True
        self.epoch_dirty = True
        self.state: DrawState | None = None
        self.releases_seen = -1
        self.bound_ids: list = []
        self.slot_pos: dict = {}
        self.typed: tuple = ()  # the vertex shader's typed views' formats (the epoch's)
        self.flushes = 0
        self._states: dict = {}  # (pipeline state id, topology, capture, typed formats) ->
        # {bound ids: state}
        self._uses: dict = {}  # the same keys -> the flush count when a draw last resolved there
        self._epoch_states: dict = {}
        self._epoch_uses: dict = {}

    def invalidate(self) -> None:
        """More than a cached vertex buffer binding changed: validate again at the next draw."""
        self.dirty = self.epoch_dirty = True

    def set_pso(self, pso) -> None:
        self.pso = pso
        self.pso_slots = tuple(pso.input_layout.slots)
        self.invalidate()

    def current(self) -> DrawState:
        """The state of the next draw (resolved if anything changed)."""
        if not self.dirty and self.releases_seen == RELEASES[0]:
            assert self.state is not None  # resolved since the last change
            return self.state
        return self.resolve()

    def resolve(self) -> DrawState:
        if self.epoch_dirty or self.releases_seen != RELEASES[0]:
            self._new_epoch()
        # Keyed by identity: each entry holds its pipeline state and views, so while it is cached
        # no other object can have their ids, and a hit is always the same objects.
        key = tuple(self.bound_ids)
        state = self._epoch_states.get(key)
        if state is None:
            pso, topo, views = self.pso, self.ia.topology, self.ia.views
            assert pso is not None and topo is not None  # checked by the epoch
            pso.check_topology(topo)  # rules 15.1, once per resolved state
            state = new_state(self.device.caps, pso, topo, self.capturing, self.pso_slots,
                              tuple(map(views.get, self.pso_slots)), self.om.output, self.typed)
            if len(self._epoch_states) > 4096:
                self._epoch_states.clear()
                self._epoch_uses.clear()
            self._epoch_states[key] = state
        self._epoch_uses[key] = self.flushes
        self.state = state
        self.dirty = False
        return state

    def flushed(self) -> None:
        """Count a submit; every SWEEP_EVERY of them, forget what no draw used lately."""
        self.flushes += 1
        if self.flushes % SWEEP_EVERY == 0:
            self.sweep()

    def sweep(self) -> None:
        """Forget the states and views no draw resolved to in the last SWEEP_EVERY flushes:
        they hold their buffers (and pulled states their arena copies), so an engine that
        streams buffers in and out would otherwise keep every one it ever bound alive."""
        recent = self.flushes - SWEEP_EVERY
        keep: set[int] = set()
        for epoch, states in list(self._states.items()):
            uses = self._uses[epoch]
            for key, st in list(states.items()):
                if uses[key] < recent and st is not self.state:
                    del states[key], uses[key]
                else:
                    keep.update(id(v) for v in st.bound)
            if not states and states is not self._epoch_states:
                del self._states[epoch], self._uses[epoch]
        keep.update(id(v) for v in self.ia.views.values())
        cache = self.ia.view_cache
        for key in [k for k, v in cache.items() if id(v) not in keep]:
            del cache[key]

    def counts(self) -> dict:
        """How many draw states and views are cached (for :meth:`Context.stats`)."""
        return {"draw_states": sum(len(s) for s in self._states.values()),
                "state_epochs": len(self._states), "views": len(self.ia.view_cache)}

    def _new_epoch(self) -> None:
        """Validate what changed besides cached vertex buffer bindings and pick the state cache
        of (pipeline state, topology, capture)."""
        pso, topo = self.pso, self.ia.topology
        if pso is None:
            raise InvalidDescError("draw", "pipeline state", None, "no pipeline state is set")
        if topo is None:
            raise InvalidDescError("draw", "PrimitiveTopology", None,
                                   "IASetPrimitiveTopology was not called")
        capture = self.capturing
        releases = RELEASES[0]
        self._check_live(capture)
        self.om.check_outputs(pso, capture)
        # The typed views' formats select the programs (srv_state.specialised_signature): a
        # rebind to another format is another epoch.
        self.typed = self.om.srv.typed_formats(pso.shader_resources)
        epoch = (id(pso), topo.topology, capture, self.typed)
        if epoch not in self._states and len(self._states) > 256:
            self._states.clear()
            self._uses.clear()
        self._epoch_states = self._states.setdefault(epoch, {})
        self._epoch_uses = self._uses.setdefault(epoch, {})
        self.slot_pos = {s: j for j, s in enumerate(self.pso_slots)}
        views = self.ia.views
        self.bound_ids = [id(views.get(s)) for s in self.pso_slots]
        self.epoch_dirty = False
        self.releases_seen = releases

    def _check_live(self, capture: bool) -> None:
        """Nothing a draw hands to wgpu may have been released: a destroyed buffer or texture
        in a submit aborts the process. Runs when the bindings changed and after any release
        (RELEASES), so the fast draw path stays one comparison."""
        pso = self.pso
        assert pso is not None  # a draw runs with a pipeline state set
        for s in self.pso_slots:
            v = self.ia.views.get(s)
            if v is not None and v.buffer is not None and v.buffer.released:
                raise released_error("draw", f"IA slot {s} buffer", v.buffer)
        self.om.check_live(pso, capture)
        if pso.so is not None:
            for slot, t in self.so_targets().items():
                for field_name, b in (("buffer", t.buffer),
                                      ("BufferFilledSizeLocation", t.view.filled_size_buffer)):
                    if isinstance(b, Buffer) and b.released:
                        raise released_error("draw", f"SO target {slot} {field_name}", b)
