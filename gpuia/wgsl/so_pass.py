"""The compute program that emulates Stream Output: the user's vertex shader, run per output vertex.

WebGPU has no transform feedback. gpuia runs the same WGSL vertex function in a compute pass: one
invocation per vertex of every complete primitive of the draw (strips expanded in D3D's order,
adjacency dropped, instance after instance), fetching its inputs with the vertex-pulling
functions and writing each declaration entry's components where D3D would.

Two entry points per draw, or one (``gpuia_so_fused``) where the host knows the counters:

* ``gpuia_so_prepare`` (one invocation) decides how many primitives fit: every declared slot must
  hold the whole primitive (rules 9.7), an unbound slot holds nothing (9.8), and once a
  primitive did not fit nothing more is written until the targets are set again. It records each
  slot's BufferFilledSize, advances the counters (which live in GPU buffers, so DrawAuto needs no
  readback) and accumulates the SO statistics (10.1, 10.2) as 64-bit counts.
* ``gpuia_so_main`` (one invocation per output vertex) computes which delivered vertex it is —
  in closed form from the topology table (``step * p + picks[p % 2][k]``, reading the index
  buffer for indexed draws), or, where strip cuts can make the runs irregular, from the list
  stream of the GPU index pass (:mod:`gpuia.wgsl.index_pass`: one instance's primitives'
  SV_VertexIDs in output order, repeated for every instance) — runs the vertex shader and
  writes.

* ``gpuia_so_fused`` is ``gpuia_so_main`` with the prepare step's results given in the
  ``gpuia_so`` block by the host, which computed them from counters it knows (targets gpuia set
  with offsets, then draws in the closed-form order: :mod:`gpuia.gpu.so.statistics`): invocation 0
  also stores what ``gpuia_so_prepare`` would have (the counters, the state, the statistics),
  and no invocation reads what it stores. One dispatch per draw instead of two.

In the list order the primitives per instance and the primitives needed exist only on the GPU:
the engine copies them from the index pass's args into the ``gpuia_so`` block before the
dispatches, and the main dispatch is sized by the pass's dispatch arguments.

The program's text is the shader files ``so_*.wgsl`` (and DrawAuto's, ``draw_auto.wgsl``); its
blocks are :data:`gpuia.wgsl.blocks.SO_BLOCK` and :data:`~gpuia.wgsl.blocks.SO_STATE`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..d3d.layout import InputLayout
from ..d3d.signature import Member, ShaderSignature
from ..d3d.so_declaration import ResolvedStreamOutput
from ..d3d.topology import TopologyInfo
from ..util.named import NamedMode
from ..util.resources import shader_text
from .blocks import DRAW_AUTO, SO_BLOCK, SO_SLOT, SO_STATE, SO_STATS
from .draw_block import draw_block_lines
from .fetch import fetch_call, load_function, pulling_lines
from .vertex import shader_call_lines, user_shader_lines

__all__ = ["SOProgramSpec", "SOVertexOrder", "so_program", "SO_HEADER_WORDS", "SO_SLOT_WORDS",
           "SO_FUSED_WORDS", "SO_BLOCK_WORDS", "SO_STATE_WORDS", "draw_auto_program", "WORKGROUP",
           "VERTICES_PER_THREAD"]

WORKGROUP = 256
"""Invocations per workgroup of ``gpuia_so_main``."""
VERTICES_PER_THREAD = 4
"""Output vertices each ``gpuia_so_main`` invocation streams (a dispatch-wide stride apart)."""
SO_HEADER_WORDS = SO_BLOCK.word("slots")
"""u32 words before the per-slot entries in the ``gpuia_so`` block (:data:`SO_BLOCK`'s table:
InstanceCount, primitives per instance and needed, StartIndexLocation, the index view, the
chunk of output vertices)."""
SO_SLOT_WORDS = SO_SLOT.words()
"""Per SO slot in the ``gpuia_so`` block (:data:`gpuia.wgsl.blocks.SO_SLOT`)."""
SO_FUSED_WORDS = SO_BLOCK.words() - SO_BLOCK.word("fused")
"""u32 words after the slot entries, read by the fused pass only (``fused``, ``stats``)."""
SO_BLOCK_WORDS = SO_BLOCK.words()
"""u32 words of the ``gpuia_so`` block."""
SO_STATE_WORDS = SO_STATE.words()
"""u32 words of the SO state buffer (:data:`gpuia.wgsl.blocks.SO_STATE`)."""
_WRITTEN, _OVERFLOWED, _BASE = (SO_STATE.word(n) for n in ("written", "overflowed", "base"))
# The statistics words (each 64-bit count low word first), as the host reads them.
_STATS = {"STATS_WRITTEN": SO_STATS.word("written_lo"), "STATS_WRITTEN_HI": SO_STATS.word(
    "written_hi"), "STATS_NEEDED": SO_STATS.word("needed_lo"),
    "STATS_NEEDED_HI": SO_STATS.word("needed_hi")}

# A shader output component as the u32 word Stream Output stores: its bits, unchanged.
_AS_U32 = {"float": "bitcast<u32>({})", "sint": "bitcast<u32>({})", "uint": "{}"}


class SOVertexOrder(NamedMode):
    """Where ``gpuia_so_main`` finds each output vertex's SV_VertexID and SV_InstanceID."""

    DIRECT = "direct"  # in closed form from the topology table (index buffer read if indexed)
    LIST = "list"  # from one instance's SV_VertexIDs in output order (the index pass's list)

    @classmethod
    def of(cls, value, where: str = "Stream Output program",
           field_name: str = "mode") -> SOVertexOrder:
        """A member, or its value; anything else raises
        :class:`~gpuia.errors.InvalidDescError` (:meth:`gpuia.util.named.NamedMode.of`)."""
        return super().of(value, where, field_name)


@dataclass(frozen=True)
class SOProgramSpec:
    """What an SO compute program depends on.

    ``slots``: per declared SO slot (in declaration order of slots), ``(data binding, counter
    binding)`` into group 2, or None when no target is bound there. ``mode``: a
    :class:`SOVertexOrder` or its value (``"direct"``: closed-form vertex order, ``"list"``:
    one instance's SV_VertexIDs per output vertex, bound as the aux buffer), stored as the
    member; anything else raises :class:`~gpuia.errors.InvalidDescError`. ``index_size`` is 0
    for non-indexed draws (and the list order), else 2 or 4.
    """

    layout: InputLayout
    signature: ShaderSignature
    so: ResolvedStreamOutput
    topology: TopologyInfo
    pulled_slots: tuple[tuple[int, int], ...]
    slots: tuple
    buffers: int  # bindings in group 2
    mode: SOVertexOrder | str
    index_size: int
    aligned: frozenset = frozenset()  # pulled slots whose every fetch is word-aligned
    aligned16: frozenset = frozenset()  # pulled slots with 16-byte view offset and stride

    def __post_init__(self):
        object.__setattr__(self, "mode", SOVertexOrder.of(self.mode))


def _output_word(member: Member, c: int) -> str:
    """Component ``c`` of the shader's output ``member`` as the u32 word Stream Output writes."""
    expr = f"output.{member.name}" if member.components == 1 else f"output.{member.name}[{c}]"
    return _AS_U32[member.type].format(expr)


def so_program(spec: SOProgramSpec) -> str:
    """The compute module of one Stream Output draw shape: entry points ``gpuia_so_prepare``
    and ``gpuia_so_main`` (see the module doc), the vertex-pulling functions and the user's
    vertex shader."""
    topo = spec.topology
    vertices = topo.vertices  # per output primitive
    out = draw_block_lines(len(spec.pulled_slots))
    out.append(shader_text("so_bindings.wgsl", SO_BLOCK=SO_BLOCK.wgsl(), SO_STATE=SO_STATE.wgsl()))
    out += pulling_lines(spec.layout, spec.pulled_slots, spec.aligned, spec.aligned16)
    # SO targets and counters as vec4 arrays: a whole aligned 16-byte entry is one 128-bit store,
    # anything else is written component by component (gaps stay untouched).
    out += [f"@group(2) @binding({k}) var<storage, read_write> gpuia_so_buf_{k}: "
            f"array<vec4<u32>>;" for k in range(spec.buffers)]
    out.append(load_function("gpuia_load_aux", "gpuia_so_aux"))
    out += user_shader_lines(spec.signature)
    out.append(_prepare_entry_point(spec, vertices))
    out.append(_main_entry_point(spec, topo, vertices))
    return "\n".join(out) + "\n"


def draw_auto_program() -> str:
    """DrawAuto's compute program (entry point ``main``): the vertex count of an SO target's
    BufferFilledSize, computed on the GPU into draw-indirect arguments. Its block is
    :data:`gpuia.wgsl.blocks.DRAW_AUTO`."""
    return shader_text("draw_auto.wgsl", DRAW_AUTO_BLOCK=DRAW_AUTO.wgsl())


def _bound_slots(spec: SOProgramSpec):
    """(declaration position, SOSlot, data binding, counter binding) of each slot with a
    target."""
    for j, slot in enumerate(spec.so.slots):
        if spec.slots[j] is not None:
            yield (j, slot) + tuple(spec.slots[j])


def _filled_before(slot: int) -> str:
    """BufferFilledSize of SO slot ``slot`` before the draw, from the entry point's
    ``GpuiaSOBase``."""
    return f"base.filled[{slot}]"


def _pick_expr(topo: TopologyInfo) -> str:
    """``picks[p % 2][k]``, the run position of vertex ``k`` of primitive ``p`` after its first,
    as selects (no local array)."""
    def chain(picks):
        expr = f"{picks[0]}u"
        for i in range(1, len(picks)):
            expr = f"select({expr}, {picks[i]}u, k == {i}u)"
        return expr

    even, odd = topo.picks
    if even == odd:
        return chain(even)
    return f"select({chain(even)}, {chain(odd)}, (p & 1u) == 1u)"


def _prepare_entry_point(spec: SOProgramSpec, vertices: int) -> str:
    slots = []
    for j, slot in enumerate(spec.so.slots):
        binding = spec.slots[j]
        if binding is None:
            slots.append(f"written = 0u;  // SO slot {slot.slot} has no target: full (9.8)")
            continue
        slots.append(shader_text("so_prepare_slot.wgsl", J=j, SLOT=slot.slot, COUNTER=binding[1],
                                 PRIMITIVE_BYTES=vertices * slot.stride, BASE=_BASE + slot.slot))
    stores = [f"gpuia_so_buf_{counter}[cw{j} >> 2u][cw{j} & 3u] = "
              f"filled{j} + written * {vertices * slot.stride}u;"
              for j, slot, _, counter in _bound_slots(spec)]
    return shader_text("so_prepare.wgsl", OVERFLOWED=_OVERFLOWED, WRITTEN=_WRITTEN,
                       SLOTS="\n".join(slots), COUNTER_STORES="\n".join(stores),
                       STATS_WRITTEN=_STATS["STATS_WRITTEN"],
                       STATS_NEEDED=_STATS["STATS_NEEDED"])


def _main_entry_point(spec: SOProgramSpec, topo: TopologyInfo, vertices: int) -> str:
    n = VERTICES_PER_THREAD
    # What gpuia_so_fetch hands gpuia_so_emit: every element's words and the two system values.
    fetched = [f"e{e.index}" for e in spec.layout.elements] + ["sv_vertex_id", "sv_instance_id"]
    fused_stores = [f"gpuia_so_state[{_BASE + slot.slot}u] = gpuia_so.slots[{slot.slot}].filled;"
                    for j, slot in enumerate(spec.so.slots) if spec.slots[j] is not None]
    for j, slot, _, counter in _bound_slots(spec):
        fused_stores += [
            f"let cw{j} = gpuia_so.slots[{slot.slot}].counter / 4u;",
            f"gpuia_so_buf_{counter}[cw{j} >> 2u][cw{j} & 3u] = gpuia_so.slots[{slot.slot}].filled"
            f" + gpuia_so.fused.x * {vertices * slot.stride}u;",
        ]
    if spec.mode is SOVertexOrder.LIST:
        vertex = shader_text("so_vertex_list.wgsl", VERTICES=vertices)
    else:
        if spec.index_size:
            vertex_id = shader_text("so_index_read.wgsl", INDEX_SIZE=spec.index_size,
                                    MASK="0xffffu" if spec.index_size == 2 else "0xffffffffu")
        else:
            vertex_id = "let sv_vertex_id = j;"
        vertex = shader_text("so_vertex_direct.wgsl", STEP=topo.step, PICK=_pick_expr(topo),
                             VERTEX_ID=vertex_id)
    return shader_text(
        "so_main.wgsl", PER_THREAD=n, WORKGROUP=WORKGROUP, VERTICES=vertices,
        WRITTEN=_WRITTEN, OVERFLOWED=_OVERFLOWED, VERTEX=vertex, **_STATS,
        FETCHED="\n".join(f"{x}: {'vec4<u32>' if x.startswith('e') else 'u32'}," for x in fetched),
        FETCHES="\n".join(f"let f{u} = gpuia_so_fetch(i + {u}u * threads, base);"
                          for u in range(n)),
        EMITS="\n".join(f"gpuia_so_emit(i + {u}u * threads, f{u}, base);" for u in range(n)),
        FUSED_STORES="\n".join(fused_stores),
        ELEMENTS="\n".join(f"let e{e.index} = {fetch_call(e)};" for e in spec.layout.elements),
        KEEP="\n".join(f"f.{x} = {x};" for x in fetched),
        UNPACK="\n".join(f"let {x} = f.{x};" for x in fetched),
        CALL="\n".join(shader_call_lines(spec.layout, spec.signature)),
        STORES="\n".join(_store_lines(spec)))


def _store_lines(spec: SOProgramSpec) -> list[str]:
    """``gpuia_so_emit``'s stores: each bound slot's record, entry by entry."""
    lines = []
    for j, slot, data, _ in _bound_slots(spec):
        first = f"gpuia_so.slots[{slot.slot}].location + {_filled_before(slot.slot)}"
        lines.append(f"let r{j} = ({first} + t * {slot.stride}u) / 4u;")
        # With a stride of whole 16-byte units every record of the draw has the first one's
        # alignment (the byte sum wraps mod 2^32, which keeps its low 4 bits), so the vec4 test
        # reads only uniforms: one branch for the whole dispatch instead of one per vertex.
        aligned = (f"((({first}) / 4u) & 3u) == 0u" if slot.stride % 16 == 0
                   else f"(r{j} & 3u) == 0u")
        for e in slot.entries:
            if e.is_gap:
                continue  # gaps leave their bytes untouched (rules 8.4)
            words = [_output_word(e.member, e.start_component + c)
                     for c in range(e.component_count)]
            scalar = [f"{{ let w = r{j} + {e.byte_offset // 4 + c}u; "
                      f"gpuia_so_buf_{data}[w >> 2u][w & 3u] = {v}; }}"
                      for c, v in enumerate(words)]
            if e.component_count == 4 and e.byte_offset % 16 == 0:
                # A whole aligned 16-byte entry is one 128-bit store.
                lines.append(shader_text("so_store_vec4.wgsl", ALIGNED=aligned, DATA=data, J=j,
                                         VEC4=e.byte_offset // 16, WORDS=", ".join(words),
                                         SCALARS="\n".join(scalar)))
            else:
                lines += scalar
    return lines
