"""The index pass: D3D's index sequencing and primitive order as a WGSL compute program.

One draw's index buffer is turned, on the GPU, into what WebGPU can draw or Stream Output can
read, with every D3D rule applied where the indices live (no host copy):

* the values D3D delivers: an index past the view's SizeInBytes reads 0 (rules 5.6), a NULL
  view reads 0 everywhere (5.5), a non-indexed draw delivers ``0 .. count - 1`` (4.5); an index
  equal to the strip cut literal (5.2, 5.3: strips only, compared as the PSO's literal whatever
  the index width) delivers nothing and restarts the topology (5.4);
* the **list** stream: the complete primitives of every cut-free run, each primitive's vertices
  in D3D's order (rules 9.3: a strip's odd triangles ``(t, t+2, t+1)``; adjacency vertices
  dropped, 9.2; incomplete primitives dropped, 4.9), optionally rotated left by one so that an
  adapter taking the last vertex as provoking sees D3D's first; the matching list topology
  draws it;
* the **kept** stream: the delivered values in order, cut entries removed (a capture draws it
  as a point list);
* an **args** buffer the GPU fills (see ``ARGS_*``): drawIndexedIndirect arguments for both
  streams, the primitives per instance, their 64-bit total over the instances, and
  dispatchWorkgroupsIndirect arguments sized for a consumer that runs a fixed number of items
  per workgroup over every primitive vertex (Stream Output).

Where output primitive ``p`` of a cut-free run finds its vertices comes from the topology table
(:class:`gpuia.d3d.topology.TopologyInfo`): run positions ``step * p + picks[p % 2][k]``, the
primitive complete when position ``step * p + span`` is in the run.

Two shapes of program, chosen by whether an index can cut:

* **closed** (list topologies, cut DISABLED, a 16-bit buffer under the 0xFFFFFFFF literal, a
  NULL view, non-indexed draws): one run; one invocation per position writes its kept value
  and, if a primitive starts there, the whole primitive at slot ``position / step``;
* **scan** (a strip whose indices may cut): two parallel prefix scans over the positions.
  The first combines (cuts, run start) per position, where a cut at ``i`` contributes
  ``(1, i + 1)`` and runs combine by (sum, max): its exclusive prefix gives each position its
  kept slot (``position - cuts before``) and its place in its run (``position - run start``),
  so the final pass of that scan writes the kept stream and a code per position: 0, or
  1 + parity when a complete primitive starts there (``place % step == 0`` and the next
  ``span`` positions exist and are not cuts). The second scan counts codes: its prefix is each
  primitive's slot in the list stream, and its final pass writes the primitive.

Each scan is reduce-then-scan over blocks of ``BLOCK`` positions (``WORKGROUP`` invocations of
``ITEMS`` positions): a reduce pass writes one total per block; totals are reduced again per
block of ``BLOCK`` until one block holds them all (``levels``: at most 3 above the positions
for 2**32 of them); one workgroup scans the top level and records the grand total; down passes
turn each level into exclusive prefixes; the final pass rescans its block from its prefix. Each
dispatch reads its level from a ``GpuiaIndexParams`` record at its own dynamic offset.

Workgroups of 256 invocations and 2 KiB of workgroup memory stay within WebGPU's default limits;
dispatches larger than ``max-compute-workgroups-per-dimension`` are laid out in two dimensions.
This module is text only (the shader files ``index_*.wgsl``, its blocks
:data:`gpuia.wgsl.blocks.INDEX_PARAMS` and :data:`~gpuia.wgsl.blocks.INDEX_ARGS`):
:mod:`gpuia.gpu.ia.index_pass` sizes, binds and dispatches it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..d3d.topology import TopologyInfo
from ..errors import InvalidDescError
from ..util.resources import shader_text
from .blocks import INDEX_ARGS, INDEX_PARAMS

__all__ = ["IndexSource", "IndexStreams", "IndexPassSpec", "index_pass_program", "scan_levels",
           "WORKGROUP", "ITEMS", "BLOCK", "MAX_LEVELS", "PARAMS_WORDS", "ARGS_WORDS",
           "ARGS_LIST", "ARGS_KEPT", "ARGS_PRIMITIVES", "ARGS_NEEDED", "ARGS_DISPATCH",
           "ARGS_SUMS", "ENTRY_POINTS"]

WORKGROUP = 256
"""Invocations per workgroup: WebGPU's default maxComputeInvocationsPerWorkgroup."""
ITEMS = 4
"""Positions per invocation in the scan passes (a thread's own sequential scan is cheap)."""
BLOCK = WORKGROUP * ITEMS
"""Positions (or totals) one scan workgroup covers."""
MAX_LEVELS = 4
"""Levels of a scan: the positions, then totals per block: 2**32 positions need 4."""

PARAMS_WORDS = INDEX_PARAMS.words()
"""u32 words of one ``GpuiaIndexParams`` record (:data:`gpuia.wgsl.blocks.INDEX_PARAMS`)."""

# The args buffer (:data:`gpuia.wgsl.blocks.INDEX_ARGS`). Offsets of indirect arguments are in
# bytes where wgpu takes them.
ARGS_LIST = 4 * INDEX_ARGS.word("list")
"""Byte offset of the list stream's drawIndexedIndirect arguments (indexCount, instanceCount,
firstIndex, baseVertex, firstInstance)."""
ARGS_KEPT = 4 * INDEX_ARGS.word("kept")
"""Byte offset of the kept stream's drawIndexedIndirect arguments."""
ARGS_PRIMITIVES = INDEX_ARGS.word("primitives")
"""Word: complete primitives per instance."""
ARGS_NEEDED = INDEX_ARGS.word("needed")
"""Words ARGS_NEEDED, + 1: primitives per instance times InstanceCount, as a 64-bit count (lo,
hi)."""
ARGS_DISPATCH = 4 * INDEX_ARGS.word("dispatch")
"""Byte offset of dispatchWorkgroupsIndirect arguments (x, y, 1) covering every vertex of every
primitive of every instance at ``items_per_group`` per workgroup (x first, at most
``max_groups``; all 0 when ``items_per_group`` is 0)."""
ARGS_SUMS = INDEX_ARGS.word("sums")
"""Words ARGS_SUMS .. + 3: the pass's own grand totals of its scans (cuts, -, primitives, -)."""
ARGS_WORDS = INDEX_ARGS.words()

ENTRY_POINTS = ("gpuia_ix_closed", "gpuia_ix_cuts_reduce", "gpuia_ix_cuts_final",
                "gpuia_ix_prims_reduce", "gpuia_ix_prims_final", "gpuia_ix_up", "gpuia_ix_top",
                "gpuia_ix_down", "gpuia_ix_finish")


class IndexSource(enum.Enum):
    """Where the pass reads the draw's values."""

    SEQUENTIAL = "sequential"  # a non-indexed draw: position j delivers j (rules 4.5)
    NULL = "null"  # a NULL index buffer view: every index reads 0 (rules 5.5)
    UINT16 = "uint16"  # R16_UINT indices in a storage buffer read as u32 words
    UINT32 = "uint32"  # R32_UINT indices

    @property
    def size(self) -> int:
        """Bytes per index in the buffer (0: nothing is read)."""
        return {"uint16": 2, "uint32": 4}.get(self.value, 0)


class IndexStreams(enum.Flag):
    """Which streams the pass writes (the args are always written)."""

    LIST = 1
    KEPT = 2


_CUTS = (None, 0xFFFF, 0xFFFFFFFF)


@dataclass(frozen=True)
class IndexPassSpec:
    """What one index pass program depends on (everything else is a per-draw uniform).

    ``cut`` is the strip cut literal the program compares every value with (None: nothing
    cuts). Guaranteed: a spec that cannot cut (``cut`` None, or a literal no value of the source
    can equal) builds the closed program. Refused with :class:`InvalidDescError`: a cut for a
    topology that is not a strip (D3D12 cuts strips only, rules 5.2) or for a non-indexed
    draw, a cut that is not 0xFFFF or 0xFFFFFFFF, no stream asked for."""

    topology: TopologyInfo
    source: IndexSource
    cut: int | None = None
    rotate: bool = False
    streams: IndexStreams = IndexStreams.LIST | IndexStreams.KEPT

    def __post_init__(self):
        where = "index pass"
        if not isinstance(self.topology, TopologyInfo):
            raise InvalidDescError(where, "topology", self.topology, "expected a TopologyInfo")
        if not isinstance(self.source, IndexSource):
            raise InvalidDescError(where, "source", self.source, "expected an IndexSource")
        if self.cut not in _CUTS or isinstance(self.cut, bool):
            raise InvalidDescError(where, "IBStripCutValue", self.cut,
                                   "a strip cut literal is 0xFFFF or 0xFFFFFFFF (or None)")
        if self.cut is not None and not self.topology.strip:
            raise InvalidDescError(where, "IBStripCutValue", self.cut,
                                   f"{self.topology.name} is not a strip: D3D12 cuts only "
                                   f"strips (rules 5.2)")
        if self.cut is not None and self.source is IndexSource.SEQUENTIAL:
            raise InvalidDescError(where, "IBStripCutValue", self.cut,
                                   "a non-indexed draw has no index to cut at")
        if type(self.rotate) is not bool:
            raise InvalidDescError(where, "rotate", self.rotate, "expected a bool")
        if not isinstance(self.streams, IndexStreams) or not self.streams:
            raise InvalidDescError(where, "streams", self.streams,
                                   "expected IndexStreams.LIST and/or IndexStreams.KEPT")

    @property
    def cuts(self) -> bool:
        """Whether some value can equal the cut literal: the scan program is needed. A NULL
        view reads only 0; 16-bit indices never equal 0xFFFFFFFF (rules 5.3)."""
        if self.cut is None or self.source is IndexSource.NULL:
            return False
        return not (self.source is IndexSource.UINT16 and self.cut > 0xFFFF)

    @property
    def picks(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(even, odd) run offsets of a primitive's vertices in output order (rotated left by
        one with ``rotate``: ``(b, c, a)`` for ``(a, b, c)``, winding kept; ``(b, a)`` for a
        line; a point is unchanged)."""
        def rot(p):
            return tuple(p[1:] + p[:1]) if self.rotate else tuple(p)

        even, odd = self.topology.picks
        return rot(even), rot(odd)


def scan_levels(count: int) -> list[int]:
    """Entries per level of a scan over ``count`` positions: level 0 is the positions, level
    ``i + 1`` holds one total per ``BLOCK`` entries of level ``i``; the last level fits one
    workgroup. ``[0]`` for no position (nothing to scan)."""
    if count <= 0:
        return [0]
    levels = [count]
    while len(levels) == 1 or levels[-1] > BLOCK:
        levels.append((levels[-1] + BLOCK - 1) // BLOCK)
    return levels


def _u(x: int) -> str:
    return f"{x}u"


def index_pass_program(spec: IndexPassSpec) -> str:
    """The WGSL module of ``spec``: every entry point of :data:`ENTRY_POINTS` (the scan ones
    only do work in a program whose ``spec.cuts``; the host dispatches the ones its shape
    needs). Bindings, all in group 0: 0 the ``GpuiaIndexParams`` records (uniform, dynamic
    offset), 1 the index words (read-only storage; any buffer when the source reads none),
    2 codes (one u32 per position, scan program), 3 scan totals (vec2<u32> per entry),
    4 the list stream, 5 the kept stream, 6 the args (all read-write storage)."""
    topo = spec.topology
    kept, listed = IndexStreams.KEPT in spec.streams, IndexStreams.LIST in spec.streams
    closed_list = shader_text("index_closed_list.wgsl", SPAN=topo.span, STEP=topo.step,
                              WRITES="\n".join(_write_primitive(spec, "p", "j", "parity")))
    return shader_text(
        "index_pass.wgsl", TOPOLOGY=topo.name, SOURCE=spec.source.value,
        CUT="none" if spec.cut is None else hex(spec.cut), ROTATE=str(spec.rotate).lower(),
        PROGRAM="scan" if spec.cuts else "closed", INDEX_PARAMS=INDEX_PARAMS.wgsl(),
        INDEX_ARGS=INDEX_ARGS.wgsl(), WORKGROUP=WORKGROUP, LAST=WORKGROUP - 1, ITEMS=ITEMS,
        VALUE=shader_text(f"index_value_{spec.source.value}.wgsl"),
        IS_CUT="false" if not spec.cuts else f"v == {spec.cut:#x}u",
        SPAN=topo.span, STEP=topo.step, VERTICES=topo.vertices,
        CLOSED_KEPT="gpuia_ix_kept[j] = gpuia_ix_value(j);" if kept else "",
        CLOSED_LIST=closed_list if listed else "",
        SCAN_KEPT="gpuia_ix_kept[j - pre.x] = v;" if kept else "",
        SCAN_LIST="\n".join(_write_primitive(spec, "pre.x", "j", "parity")),
        BLOCK_PASSES=_block_passes(), TOP_ITEMS="\n".join(_scan_items(_LEVEL_ENTRY)),
        TOP_WRITE="\n".join(_level_write()), COUNTS="\n".join(_counts(spec))) + "\n"


def _pick(spec: IndexPassSpec, k: int, parity: str) -> str:
    """Run offset of output vertex ``k`` of a primitive of parity ``parity`` (a u32 expr)."""
    even, odd = spec.picks
    if even[k] == odd[k]:
        return _u(even[k])
    return f"select({_u(even[k])}, {_u(odd[k])}, {parity} == 1u)"


def _write_primitive(spec: IndexPassSpec, slot: str, j: str, parity: str) -> list[str]:
    """Statements writing the primitive starting at position ``j`` at list slot ``slot``."""
    vpp = spec.topology.vertices
    return [f"gpuia_ix_list[{slot} * {vpp}u + {k}u] = gpuia_ix_value({j} + "
            f"{_pick(spec, k, parity)});" for k in range(vpp)]


_LEVEL_ENTRY = "gpuia_ix_entry(gpuia_ix.level, {})"


def _block_pass(name: str, item: str, body: list[str], level0: bool) -> str:
    """A scan workgroup over one block: ``item(e)`` is entry ``e``'s value (identity past the
    level), ``body`` runs with ``pre{k}`` the exclusive prefix of this invocation's entries
    within the block (``block`` the block's index, ``first`` its first entry) and ``s.total``
    the block's total. Workgroups past the level's blocks leave at once (a uniform branch)."""
    return shader_text("index_block_pass.wgsl", NAME=name, WORKGROUP=WORKGROUP, BLOCK=BLOCK,
                       ITEMS=ITEMS, LEVEL="0u" if level0 else "gpuia_ix.level",
                       ITEM_SCAN="\n".join(_scan_items(item)), BODY="\n".join(body))


def _scan_items(item: str) -> list[str]:
    """This invocation's ``ITEMS`` entries from ``first`` (``a{k}``), their exclusive prefixes
    among themselves (``pre{k}``) and the workgroup scan of their totals (``s``)."""
    lines = [f"let a{k} = {item.format(f'first + {k}u')};" for k in range(ITEMS)]
    lines.append("let pre0 = vec2<u32>(0u, 0u);")
    lines += [f"let pre{k} = gpuia_ix_combine(pre{k - 1}, a{k - 1});" for k in range(1, ITEMS)]
    lines.append(f"let s = gpuia_ix_workgroup_scan(lid, gpuia_ix_combine(pre{ITEMS - 1}, "
                 f"a{ITEMS - 1}));")
    return lines


def _level_write() -> list[str]:
    """A level's entries from ``first`` become ``base`` combined with their prefixes."""
    return ["let here = gpuia_ix.level_offset[gpuia_ix.level];",
            "let length = gpuia_ix.level_length[gpuia_ix.level];",
            *[f"if (first + {k}u < length) {{ gpuia_ix_totals[here + first + {k}u] = "
              f"gpuia_ix_combine(base, pre{k}); }}" for k in range(ITEMS)]]


def _block_passes() -> str:
    """The element passes (level 0: reduce and final, of each scan), then up and down."""
    out = []
    total = ["if (lid == 0u) { gpuia_ix_totals[gpuia_ix.level_offset[1] + block] = s.total; }"]
    for scan, item, emit in (("cuts", "gpuia_ix_cut_item({})", "gpuia_ix_cut_emit"),
                             ("prims", "gpuia_ix_prim_item({})", "gpuia_ix_prim_emit")):
        out.append(_block_pass(f"gpuia_ix_{scan}_reduce", item, total, True))
        final = ["let base = gpuia_ix_combine(gpuia_ix_entry(1u, block), s.before);"]
        final += [f"{emit}(first + {k}u, gpuia_ix_combine(base, pre{k}));" for k in range(ITEMS)]
        out.append(_block_pass(f"gpuia_ix_{scan}_final", item, final, True))
    # Up: level -> one total per block at level + 1.
    out.append(_block_pass("gpuia_ix_up", _LEVEL_ENTRY, [
        "if (lid == 0u) {",
        "  gpuia_ix_totals[gpuia_ix.level_offset[gpuia_ix.level + 1u] + block] = s.total;",
        "}",
    ], False))
    # Down: a level's blocks become exclusive prefixes, from the (scanned) level above.
    out.append(_block_pass("gpuia_ix_down", _LEVEL_ENTRY, [
        "let base = gpuia_ix_combine(gpuia_ix_entry(gpuia_ix.level + 1u, block), s.before);",
        *_level_write(),
    ], False))
    return "\n\n".join(out) + "\n"


def _counts(spec: IndexPassSpec) -> list[str]:
    """``kept`` and ``prims`` of the draw, for the args."""
    if spec.cuts:
        return ["// From the scans' grand totals (0 in a fresh args buffer when nothing ran).",
                "let kept = n - gpuia_ix_args.sums[0];",
                "let prims = gpuia_ix_args.sums[2];"]
    return ["let kept = n;", "let prims = gpuia_ix_primitives(n);"]
