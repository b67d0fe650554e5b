"""Stream Output's compute pipelines and how a pass sets them.

:class:`SOPrograms` builds the pipelines of ``gpuia.wgsl.so_pass`` for a program spec on first
use, each entry point apart (a context that only ever draws with known counters never builds
the prepare and main pipelines), and keeps them per device (:class:`SOPipelines`, with the
device: :meth:`~gpuia.gpu.Device.held`), so every context of a device shares them; a program
that does not compile or link is refused with :class:`~gpuia.errors.UnsupportedError` before
anything is recorded. The last draw's :class:`SOProgram` is reused while every input of its
spec compares equal, so consecutive draws of one state neither build nor hash a spec again.
:func:`dispatch_size` sizes a dispatch of the main pass, refusing more vertices than one
dispatch holds.
"""

from __future__ import annotations

from ...d3d.so_declaration import ResolvedStreamOutput
from ...errors import UnsupportedError
from ...wgsl.so_pass import (
    VERTICES_PER_THREAD,
    WORKGROUP,
    SOProgramSpec,
    SOVertexOrder,
    so_program,
)
from ..cache import build_once
from ..vertex.pipelines import checked_create, compile_module, pulled_bindings, vertex_text

__all__ = ["FUSED", "MAIN", "PREPARE", "SOPipelines", "SOProgram", "SOPrograms",
           "dispatch_size"]

PREPARE = "gpuia_so_prepare"
"""Entry point of the prepare step (one invocation: counters, overflow flag, statistics)."""
MAIN = "gpuia_so_main"
"""Entry point of the main pass (the vertices, after the prepare step)."""
FUSED = "gpuia_so_fused"
"""Entry point of the fused pass (the main pass with the host's prepare step)."""


def dispatch_size(caps, total: int) -> tuple[int, int]:
    """Workgroups (x, y) of a main pass over ``total`` vertices on a device of ``caps``;
    UnsupportedError past one dispatch's workgroups."""
    threads = (total + VERTICES_PER_THREAD - 1) // VERTICES_PER_THREAD
    groups = (threads + WORKGROUP - 1) // WORKGROUP
    limit = caps.max_compute_workgroups_per_dimension
    x = min(groups, limit)
    y = (groups + x - 1) // x
    if y > limit:
        raise UnsupportedError(f"{total} SO vertices exceed one dispatch's {limit}x{limit} "
                               f"workgroups of {WORKGROUP}")
    return x, y


class SOProgram:
    """The program of a draw: its ``spec``, ``n_pulled`` pulled vertex buffers and root
    constant buffers ``cbvs``; :meth:`pipeline` gives each entry point's pipeline."""

    def __init__(self, programs: SOPrograms, spec: SOProgramSpec, n_pulled: int,
                 cbvs: tuple[int, ...]):
        self.programs = programs
        self.spec = spec
        self.n_pulled = n_pulled
        self.cbvs = cbvs
        self._built: dict = {}

    def pipeline(self, entry: str):
        """The pipeline of ``entry`` (:data:`PREPARE`, :data:`MAIN` or :data:`FUSED`),
        :meth:`SOPrograms.pipeline`'s."""
        pipe = self._built.get(entry)
        if pipe is None:
            pipe = self.programs.pipeline(self.spec, self.n_pulled, self.cbvs, entry)
            self._built[entry] = pipe
        return pipe


class SOPipelines:
    """The Stream Output shader modules and compute pipelines one device has built, shared by
    all its contexts: :meth:`of`. Modules are keyed by the :class:`SOProgramSpec` (it alone
    makes the WGSL), pipelines by ``(spec, cbvs, entry)`` (with the spec, all their layout
    depends on; the bind group layouts themselves are the device's PipelineCache's). Built
    through :func:`~gpuia.gpu.cache.build_once` (bounded, thread-safe: two threads missing one
    key build it once)."""

    @classmethod
    def of(cls, device) -> SOPipelines:
        """The gpuia ``device``'s (made on first use; it goes with the device)."""
        pipelines: SOPipelines = device.held(cls, cls)
        return pipelines

    def __init__(self):
        self.modules: dict = {}
        self.pipelines: dict = {}


class SOPrograms:
    """The Stream Output programs of one context; their pipelines are the device's
    (:class:`SOPipelines`).

    Arguments:
        device: the gpuia Device; ``cache``: the context's PipelineCache (its layouts and
            statistics).
        cbv_group: returns the bind group of the bound root constant buffers.
    """

    def __init__(self, device, cache, cbv_group):
        self.device = device
        self.cache = cache
        self.cbv_group = cbv_group
        self.built = SOPipelines.of(device)
        self._last: tuple | None = None  # (key, SOProgram) of the last draw

    def program(self, state, so: ResolvedStreamOutput, slots: tuple, buffers: int,
                mode: SOVertexOrder, index_size: int) -> SOProgram:
        """The program of a draw under the resolved draw state ``state`` with the declaration
        ``so``, the group-2 ``slots`` bindings and ``buffers`` of
        :class:`~gpuia.wgsl.so_pass.SOProgramSpec`, the vertex order ``mode`` and the
        ``index_size`` the main pass reads."""
        static = state.static
        # Every input of the spec: equal keys make equal specs (identical objects compare
        # first, so a repeated draw compares cheaply).
        key = (state.layout, state.signature, so, state.topology, static.slots, static.arena,
               slots, buffers, mode, index_size, state.aligned, state.aligned16, state.cbvs)
        last = self._last
        if last is not None and last[0] == key:
            return last[1]
        pulled = pulled_bindings(static.slots, static.arena)
        spec = SOProgramSpec(state.layout, state.signature, so, state.topology, pulled, slots,
                             buffers, mode, index_size, state.aligned, state.aligned16)
        program = SOProgram(self, spec, len(pulled), state.cbvs)
        self._last = (key, program)
        return program

    def pipeline(self, spec: SOProgramSpec, n_pulled: int, cbvs: tuple[int, ...], entry: str):
        """The compute pipeline of ``entry`` (:data:`PREPARE`, :data:`MAIN` or :data:`FUSED`)
        for ``spec``, with ``n_pulled`` pulled vertex buffers and the root constant buffers
        ``cbvs``, built on the device's first use (``n_pulled`` is ``spec``'s pulled
        bindings' count, so the key need not hold it)."""
        built = self.built
        pipe = built.pipelines.get((spec, cbvs, entry))
        if pipe is not None:
            return pipe
        cache = self.cache
        dev = self.device.device

        def build_module():
            made = compile_module(dev, so_program(spec), "gpuia SO",
                                  "does not compile for Stream Output",
                                  [vertex_text(spec.signature)])
            cache.stats.shader_modules += 1
            return made

        def build():
            mod = build_once(built.modules, spec, build_module)
            n_bindings = len({b for _, b in spec.pulled_slots}) or 1
            # The main pass reads the prepare step's state as a uniform; the prepare step and
            # the fused pass write it (and the statistics) as storage.
            layout = dev.create_pipeline_layout(bind_group_layouts=cache.with_cbvs([
                cache.so_group0_layout(max(1, n_pulled), entry == MAIN),
                cache.group1_layout(n_bindings, compute=True),
                cache.so_group2_layout(spec.buffers)], cbvs))
            made = checked_create(lambda: dev.create_compute_pipeline(
                layout=layout, compute={"module": mod, "entry_point": entry}),
                "cannot be linked into a Stream Output pipeline")
            cache.stats.pipelines += 1
            return made
        return build_once(built.pipelines, (spec, cbvs, entry), build)

    def bind(self, cp, pipeline, groups, offsets, cbvs: tuple[int, ...]) -> None:
        """Set ``pipeline`` and its groups 0-2 (group 0 with the two uniform blocks' dynamic
        ``offsets``) on the compute pass ``cp``, and group 3 when the shaders read root
        constant buffers."""
        cp.set_pipeline(pipeline)
        cp.set_bind_group(0, groups[0], offsets)
        cp.set_bind_group(1, groups[1])
        cp.set_bind_group(2, groups[2])
        if cbvs:
            cp.set_bind_group(3, self.cbv_group())
