"""The plan of one draw's Stream Output, decided before anything is recorded.

:func:`plan_draw` picks where the main pass finds each output vertex (in closed form from the
topology table, or from the GPU index pass's list for an indexed strip whose values may cut),
the group-2 buffers (every target's data and counter buffer, each once), the program spec and
its pipelines, whether the targets need chunks (one larger than a storage binding) and whether
the host prepares the draw (it knows every value the prepare step reads: one fused dispatch).

Refused with :class:`~gpuia.errors.UnsupportedError`, nothing recorded and nothing changed:
2**32 primitives or more (a draw's primitives are counted in 32 bits on the GPU; in the list
order, the most the draw has without cuts); more storage buffers than one compute stage has;
more output vertices than one dispatch holds; a program that does not compile or link.
"""

from __future__ import annotations

from typing import NamedTuple

from ...d3d.so_declaration import ResolvedStreamOutput
from ...errors import UnsupportedError
from ...wgsl.so_pass import SOVertexOrder
from ..ia.index_pass import IndexStreams, index_pass_spec
from .programs import FUSED, MAIN, PREPARE, SOPrograms, dispatch_size
from .statistics import HostState, PrepareResult

__all__ = ["SODrawPlan", "vertex_order", "target_bindings", "plan_draw"]

_U32 = 0xFFFFFFFF


class SODrawPlan(NamedTuple):
    """One draw's Stream Output as :func:`plan_draw` decided it.

    ``mode``: the vertex order. ``primitives``: per instance, exact in the direct order, the
    cut-free count (the most there can be) in the list order. ``most``: that times the
    instances. ``unique``: the group-2 buffers. ``n_pulled``: the pulled vertex buffers.
    ``index_size``: bytes of an index the main pass reads (0: none, the order is not the
    direct order of an indexed draw). ``chunked``: a target is larger than a storage binding.
    ``host``: the host's prepare step (the draw is fused), or None. ``groups``: the main (or
    fused) dispatch's workgroups, None where it has none or is sized later. ``pipelines``:
    (fused,), or (prepare, main); empty where a fused draw writes and counts nothing, so
    nothing is recorded."""

    mode: SOVertexOrder
    primitives: int
    most: int
    unique: tuple
    n_pulled: int
    index_size: int
    chunked: bool
    host: PrepareResult | None
    groups: tuple[int, int] | None
    pipelines: tuple


def vertex_order(index, topo, draw, cut) -> SOVertexOrder:
    """Where the main pass finds each output vertex of ``draw`` with the bound index buffer
    view ``index``: in closed form, unless the draw's index values can cut (the index pass's
    own rule: an indexed strip, a cut value, indices wide enough to hold it, a bound view);
    cut runs are irregular, so the pass lists them."""
    if not draw.indexed:
        return SOVertexOrder.DIRECT
    spec = index_pass_spec(draw, topo, index_buffer=index, strip_cut_value=cut,
                           streams=IndexStreams.LIST)
    return SOVertexOrder.LIST if spec.cuts else SOVertexOrder.DIRECT


def target_bindings(targets: dict, so: ResolvedStreamOutput) -> tuple[list, tuple]:
    """Group-2 buffers (unique, data and counters) and per declared slot their bindings
    ((data, counter) binding numbers, None for an unbound slot)."""
    unique: list = []

    def index_of(b):
        for k, u in enumerate(unique):
            if u is b:
                return k
        unique.append(b)
        return len(unique) - 1

    slots = []
    for s in so.slots:
        t = targets.get(s.slot)
        slots.append(None if t is None else (index_of(t.buffer.wgpu), index_of(t.counter)))
    return unique, tuple(slots)


def _check_counts(caps, state, draw, primitives: int, mode: SOVertexOrder, n_unique: int):
    """Refuse 2**32 primitives or more, and more storage buffers than one compute stage has."""
    most = primitives * draw.instance_count
    if most > _U32:
        raise UnsupportedError(
            f"Stream Output of {draw.instance_count} instances of {primitives} primitives "
            f"({most}{' at most' if mode is SOVertexOrder.LIST else ''}): the pass counts a "
            f"draw's primitives in 32 bits (at most {_U32})")
    vertex_bindings = 1 if state.static.arena else len(state.static.slots)
    srvs = len(state.pso.shader_resources)
    storage = vertex_bindings + n_unique + 3 + srvs  # + state, statistics, aux; the VS's SRVs
    if storage > caps.max_storage_buffers_per_shader_stage:
        raise UnsupportedError(
            f"Stream Output needs {storage} storage buffers in one compute stage ("
            f"{vertex_bindings} vertex buffer bindings, {n_unique} target and counter "
            f"buffers, 3 of gpuia's, {srvs} shader resource views), the adapter has "
            f"{caps.max_storage_buffers_per_shader_stage}")


def plan_draw(device, programs: SOPrograms, host: HostState, index, targets: dict, state,
              so: ResolvedStreamOutput, draw, cut) -> SODrawPlan:
    """The plan of ``draw``'s Stream Output (module docstring) under the resolved draw state
    ``state``, the bound index buffer view ``index``, the bound ``targets`` and the strip cut
    value ``cut``; the host's prepare step is computed (not applied) where ``host`` knows
    every value it reads."""
    topo = state.topology
    vpp = topo.vertices
    mode = vertex_order(index, topo, draw, cut)
    ppi = topo.primitive_count(draw.count)
    most = ppi * draw.instance_count
    unique, slot_bindings = target_bindings(targets, so)
    _check_counts(device.caps, state, draw, ppi, mode, len(unique))
    index_size = 0
    if draw.indexed and mode is SOVertexOrder.DIRECT:
        # A NULL view reads 0 everywhere (rules 5.5): the closed form with a view of 0 bytes
        # reads nothing, whatever the index size.
        index_size = 2 if index is None else index.index_size
    program = programs.program(state, so, slot_bindings, max(1, len(unique)), mode, index_size)
    chunked = any(b.size > device.caps.max_storage_buffer_binding_size for b in unique)
    # The host's prepare step, where it knows every value it reads (the closed-form order
    # needs exactly `most` primitives): one fused dispatch sized by what is written.
    prepared = (host.prepare(so, targets, vpp, most)
                if mode is SOVertexOrder.DIRECT and not chunked else None)
    groups: tuple[int, int] | None
    if prepared is not None:
        fused = program.pipeline(FUSED)
        written = prepared[0]
        if written == 0 and most == 0:  # nothing written, nothing counted: nothing changes
            return SODrawPlan(mode, ppi, most, tuple(unique), program.n_pulled, index_size, chunked,
                              prepared, None, ())
        groups = dispatch_size(device.caps, max(1, written * vpp))
        pipelines: tuple = (fused,)
    else:
        main = program.pipeline(MAIN)
        prepare = program.pipeline(PREPARE)
        groups = dispatch_size(device.caps, most * vpp) if most and not chunked else None
        pipelines = (prepare, main)
    return SODrawPlan(mode, ppi, most, tuple(unique), program.n_pulled, index_size, chunked,
                      prepared, groups, pipelines)
