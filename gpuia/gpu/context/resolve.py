"""Draw-state resolution and its cache: everything a draw needs that depends only on the
pipeline state, the bound views, the topology and whether a capture is running, resolved once
per combination (the static plan, the native vertex buffers, the fast path's bounds, the arena
layout) and found again with one dictionary look-up.

Two levels, as DXVK keeps its state: an *epoch* (pipeline state, topology, capture) is validated
when it changes (targets, constant buffers, released resources) and selects a dictionary keyed
by the ids of the views bound at the pipeline state's slots; a rebind to views already seen
changes only that key (:attr:`StateCache.bound_ids`, updated in place by the IA)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...d3d.layout import InputLayout
from ...d3d.signature import ShaderSignature
from ...d3d.so_declaration import ResolvedStreamOutput
from ...d3d.topology import TopologyInfo
from ...errors import InvalidDescError
from .. import _ffi
from ..buffers import Buffer
from ..ia.plan import EXACT_ASSEMBLY, Assembly, non_indexed_plan
from ..lifetime import RELEASES, released_error
from ..quirks import SIGNED_FIRST_VERTEX, has_effect
from ..targets import INTERNAL_OUTPUT, OutputState
from ..vertex.plan import Plan, StaticPlan, arena_extent, native_last_indices, static_plan
from .ia_state import IAState
from .pso import PipelineState

__all__ = ["DrawState", "StateCache", "SWEEP_EVERY"]

_U32 = 0xFFFFFFFF
SWEEP_EVERY = 8  # flushes: states and views unused for that long are forgotten (see sweep)


@dataclass(eq=False)
class DrawState:
    """Everything a draw needs that depends only on (pipeline state, bound views, topology,
    capture): resolved once per combination and cached."""

    static: StaticPlan
    pso: PipelineState
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
    so: ResolvedStreamOutput | None = None  # of the pipeline state
    aligned: frozenset = frozenset()  # bound slots whose every fetch is word-aligned
    aligned16: frozenset = frozenset()  # bound slots with 16-byte view offset and stride
    bound: tuple = ()  # the views in slot order (the cache key holds their ids)
    output: OutputState = INTERNAL_OUTPUT  # what follows the vertex shader (capture: internal)
    assembly: Assembly = EXACT_ASSEMBLY  # what this adapter's primitive assembly needs
    cbvs: tuple[int, ...] = ()  # root constant buffers the shaders read (@group(3))
    used: int = 0  # the cache's flush count when a draw last resolved to this state


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
        self.flushes = 0
        self._states: dict = {}  # (pipeline state id, topology, capture) -> {bound ids: state}
        self._epoch_states: dict = {}

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
            views = self.ia.views
            bound = tuple(map(views.get, self.pso_slots))
            state = self._new_state(self.pso, self.ia.topology, self.capturing, bound)
            if len(self._epoch_states) > 4096:
                self._epoch_states.clear()
            self._epoch_states[key] = state
        state.used = self.flushes
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
            for key, st in list(states.items()):
                if st.used < recent and st is not self.state:
                    del states[key]
                else:
                    keep.update(id(v) for v in st.bound)
            if not states and states is not self._epoch_states:
                del self._states[epoch]
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
        epoch = (id(pso), topo.topology, capture)
        if epoch not in self._states and len(self._states) > 256:
            self._states.clear()
        self._epoch_states = self._states.setdefault(epoch, {})
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

    def _new_state(self, pso, topo, capture: bool, bound: tuple) -> DrawState:
        caps = self.device.caps
        layout, sig = pso.input_layout, pso.signature
        views = dict(zip(self.pso_slots, bound, strict=True))
        static = static_plan(layout, views, caps, capture, pso.so is not None)
        uses_sv = sig.uses("SV_VERTEXID") or sig.uses("SV_INSTANCEID")
        state = DrawState(static, pso, views, layout, sig, topo, capture, capture or uses_sv)
        state.bound = bound
        state.so = pso.so
        output = self.om.output
        state.output = INTERNAL_OUTPUT if capture else output
        state.assembly = (EXACT_ASSEMBLY if capture else Assembly.of(
            caps.quirks, any(v.flat for v in state.output.varyings)))
        state.cbvs = pso.constant_buffer_slots
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
            # The highest vertex and instance indices whose fetches stay inside every view: the
            # fast path's bounds are one comparison each (the rule itself: gpuia.gpu.vertex.plan).
            state.fast_last_vertex, state.fast_instances = native_last_indices(static)
            if has_effect(caps.quirks, SIGNED_FIRST_VERTEX):
                # Past 2**31 - 1 the general path shifts the first vertex (shift_first_vertex).
                state.fast_last_vertex = min(state.fast_last_vertex, (1 << 31) - 1)
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
