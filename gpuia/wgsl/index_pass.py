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
This module is text only: :mod:`gpuia.gpu.index_pass` sizes, binds and dispatches it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..d3d.topology import TopologyInfo
from ..errors import InvalidDescError
from .blocks import INDEX_PARAMS

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

# The args buffer, in u32 words. Offsets of indirect arguments are in bytes where wgpu takes them.
ARGS_LIST = 0
"""Byte offset of the list stream's drawIndexedIndirect arguments (indexCount, instanceCount,
firstIndex, baseVertex, firstInstance)."""
ARGS_KEPT = 20
"""Byte offset of the kept stream's drawIndexedIndirect arguments."""
ARGS_PRIMITIVES = 10
"""Word: complete primitives per instance."""
ARGS_NEEDED = 11
"""Words 11, 12: primitives per instance times InstanceCount, as a 64-bit count (lo, hi)."""
ARGS_DISPATCH = 52
"""Byte offset of dispatchWorkgroupsIndirect arguments (x, y, 1) covering every vertex of every
primitive of every instance at ``items_per_group`` per workgroup (x first, at most
``max_groups``; all 0 when ``items_per_group`` is 0)."""
ARGS_SUMS = 16
"""Words 16..19: the pass's own grand totals of its scans (cuts, -, primitives, -)."""
ARGS_WORDS = 20

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
    out = [
        "// gpuia index pass: D3D index sequencing, strip cuts and primitive order",
        f"// topology {topo.name}, source {spec.source.value}, "
        f"cut {'none' if spec.cut is None else hex(spec.cut)}, rotate {str(spec.rotate).lower()}, "
        f"program {'scan' if spec.cuts else 'closed'}",
        INDEX_PARAMS.wgsl(),
        "@group(0) @binding(0) var<uniform> gpuia_ix: GpuiaIndexParams;",
        "@group(0) @binding(1) var<storage, read> gpuia_ix_words: array<u32>;",
        "@group(0) @binding(2) var<storage, read_write> gpuia_ix_codes: array<u32>;",
        "@group(0) @binding(3) var<storage, read_write> gpuia_ix_totals: array<vec2<u32>>;",
        "@group(0) @binding(4) var<storage, read_write> gpuia_ix_list: array<u32>;",
        "@group(0) @binding(5) var<storage, read_write> gpuia_ix_kept: array<u32>;",
        "@group(0) @binding(6) var<storage, read_write> gpuia_ix_args: array<u32>;",
        f"var<workgroup> gpuia_ix_shared: array<vec2<u32>, {WORKGROUP}>;",
        "",
    ]
    out += _value_lines(spec.source)
    out += _common_lines(spec)
    out += _closed_lines(spec)
    out += _scan_lines(spec)
    out += _finish_lines(spec)
    return "\n".join(out) + "\n"


def _value_lines(source: IndexSource) -> list[str]:
    """``gpuia_ix_value(j)``: the value D3D delivers at position ``j`` of the draw."""
    head = ["// The value D3D delivers at position j of one instance (rules 4.2, 5.5, 5.6).",
            "fn gpuia_ix_value(j: u32) -> u32 {"]
    if source is IndexSource.SEQUENTIAL:
        return head + ["  return j;  // non-indexed: SV_VertexID is the position (4.5)", "}", ""]
    if source is IndexSource.NULL:
        return head + ["  return 0u;  // a NULL view: every index reads 0 (5.5)", "}", ""]
    size = source.size
    lines = head + [
        "  let p = gpuia_ix.start + j;",
        "  // Past the view's SizeInBytes reads 0 (5.6); p < start: the position wrapped past",
        "  // 2^32, also past the view. Compared in indices, so p * size cannot overflow.",
        "  if (p < gpuia_ix.start || p >= gpuia_ix.held) { return 0u; }",
        f"  let a = gpuia_ix.ib_base + p * {size}u;  // byte address in the bound window",
        "  let s = (a & 3u) * 8u;",
    ]
    if size == 2:
        lines += [
            "  // A 16-bit index at a 2-byte position is the high half of its word; only an odd",
            "  // byte address (never a valid view) straddles into the next word.",
            "  var v = gpuia_ix_words[a >> 2u] >> s;",
            "  if (s == 24u) { v = v | (gpuia_ix_words[(a >> 2u) + 1u] << 8u); }",
            "  return v & 0xffffu;",
        ]
    else:
        lines += [
            "  let lo = gpuia_ix_words[a >> 2u];",
            "  if (s == 0u) { return lo; }",
            "  // Not word-aligned: the next word holds the rest (a shift by 32 is not defined).",
            "  return (lo >> s) | (gpuia_ix_words[(a >> 2u) + 1u] << (32u - s));",
        ]
    return lines + ["}", ""]


def _pick(spec: IndexPassSpec, k: int, parity: str) -> str:
    """Run offset of output vertex ``k`` of a primitive of parity ``parity`` (a u32 expr)."""
    even, odd = spec.picks
    if even[k] == odd[k]:
        return _u(even[k])
    return f"select({_u(even[k])}, {_u(odd[k])}, {parity} == 1u)"


def _write_primitive(spec: IndexPassSpec, slot: str, j: str, parity: str) -> list[str]:
    """Statements writing the primitive starting at position ``j`` at list slot ``slot``."""
    vpp = spec.topology.vertices
    return [f"    gpuia_ix_list[{slot} * {vpp}u + {k}u] = gpuia_ix_value({j} + "
            f"{_pick(spec, k, parity)});" for k in range(vpp)]


def _common_lines(spec: IndexPassSpec) -> list[str]:
    topo = spec.topology
    cut = "false" if not spec.cuts else f"v == {spec.cut:#x}u"
    return [
        "fn gpuia_ix_is_cut(v: u32) -> bool {",
        f"  return {cut};  // the PSO's literal, whatever the index width (5.3)",
        "}",
        "// Complete primitives of a cut-free run of n positions (the topology table's form).",
        "fn gpuia_ix_primitives(n: u32) -> u32 {",
        f"  if (n <= {topo.span}u) {{ return 0u; }}",
        f"  return (n - 1u - {topo.span}u) / {topo.step}u + 1u;",
        "}",
        "// Runs combine by (sum of cuts, max of run start); the primitive scan uses x only.",
        "fn gpuia_ix_combine(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {",
        "  return vec2<u32>(a.x + b.x, max(a.y, b.y));",
        "}",
        "struct GpuiaIxScan { before: vec2<u32>, total: vec2<u32> }",
        "// Exclusive scan of one value per invocation over the workgroup (Hillis-Steele), and",
        "// the workgroup's total. Every invocation must call it (it holds barriers).",
        "fn gpuia_ix_workgroup_scan(lid: u32, value: vec2<u32>) -> GpuiaIxScan {",
        "  gpuia_ix_shared[lid] = value;",
        "  workgroupBarrier();",
        f"  for (var d = 1u; d < {WORKGROUP}u; d = d << 1u) {{",
        "    var earlier = vec2<u32>(0u, 0u);",
        "    if (lid >= d) { earlier = gpuia_ix_shared[lid - d]; }",
        "    workgroupBarrier();",
        "    if (lid >= d) {",
        "      gpuia_ix_shared[lid] = gpuia_ix_combine(earlier, gpuia_ix_shared[lid]);",
        "    }",
        "    workgroupBarrier();",
        "  }",
        "  var r: GpuiaIxScan;",
        "  if (lid > 0u) { r.before = gpuia_ix_shared[lid - 1u]; }",
        f"  r.total = gpuia_ix_shared[{WORKGROUP - 1}u];",
        "  workgroupBarrier();  // everyone has read before the array is written again",
        "  return r;",
        "}",
        "// Workgroups of a dispatch laid out in two dimensions, in order.",
        "fn gpuia_ix_group(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {",
        "  return wid.x + wid.y * nwg.x;",
        "}",
        "",
    ]


def _closed_lines(spec: IndexPassSpec) -> list[str]:
    topo = spec.topology
    lines = [
        "// One run: position j keeps its value at j, and starts primitive j / step when",
        "// j % step == 0 and the primitive's last position j + span is in the draw.",
        f"@compute @workgroup_size({WORKGROUP})",
        "fn gpuia_ix_closed(@builtin(workgroup_id) wid: vec3<u32>,",
        "                   @builtin(num_workgroups) nwg: vec3<u32>,",
        "                   @builtin(local_invocation_index) lid: u32) {",
        f"  let j = gpuia_ix_group(wid, nwg) * {WORKGROUP}u + lid;",
        "  let n = gpuia_ix.count;",
        "  if (j >= n) { return; }",
    ]
    if IndexStreams.KEPT in spec.streams:
        lines.append("  gpuia_ix_kept[j] = gpuia_ix_value(j);")
    if IndexStreams.LIST in spec.streams:
        lines += [
            f"  if (n > {topo.span}u && j < n - {topo.span}u && j % {topo.step}u == 0u) {{",
            f"    let p = j / {topo.step}u;",
            "    let parity = p & 1u;",
            *_write_primitive(spec, "p", "j", "parity"),
            "  }",
        ]
    return lines + ["}", ""]


def _block_pass(name: str, item: str, body: list[str], level0: bool) -> list[str]:
    """A scan workgroup over one block: ``item(e)`` is entry ``e``'s value (identity past the
    level), ``body`` runs with ``pre{k}`` the exclusive prefix of this invocation's entries
    within the block (``block`` the block's index, ``first`` its first entry) and ``s.total``
    the block's total. Workgroups past the level's blocks leave at once (a uniform branch)."""
    level = "0u" if level0 else "gpuia_ix.level"
    lines = [
        f"@compute @workgroup_size({WORKGROUP})",
        f"fn {name}(@builtin(workgroup_id) wid: vec3<u32>,",
        "           @builtin(num_workgroups) nwg: vec3<u32>,",
        "           @builtin(local_invocation_index) lid: u32) {",
        "  let block = gpuia_ix_group(wid, nwg);",
        f"  if (block >= gpuia_ix.level_length[{level} + 1u]) {{ return; }}",
        f"  let first = block * {BLOCK}u + lid * {ITEMS}u;",
    ]
    return lines + _scan_items(item) + body + ["}", ""]


def _scan_items(item: str) -> list[str]:
    """This invocation's ``ITEMS`` entries from ``first`` (``a{k}``), their exclusive prefixes
    among themselves (``pre{k}``) and the workgroup scan of their totals (``s``)."""
    lines = [f"  let a{k} = {item.format(f'first + {k}u')};" for k in range(ITEMS)]
    lines.append("  let pre0 = vec2<u32>(0u, 0u);")
    lines += [f"  let pre{k} = gpuia_ix_combine(pre{k - 1}, a{k - 1});" for k in range(1, ITEMS)]
    lines.append(f"  let s = gpuia_ix_workgroup_scan(lid, gpuia_ix_combine(pre{ITEMS - 1}, "
                 f"a{ITEMS - 1}));")
    return lines


def _scan_lines(spec: IndexPassSpec) -> list[str]:
    topo = spec.topology
    lines = [
        "// Scan entries: a level's entry e (identity past the level's length).",
        "fn gpuia_ix_entry(level: u32, e: u32) -> vec2<u32> {",
        "  if (e >= gpuia_ix.level_length[level]) { return vec2<u32>(0u, 0u); }",
        "  return gpuia_ix_totals[gpuia_ix.level_offset[level] + e];",
        "}",
        "// The cut scan's value at position j: a cut at j starts the next run at j + 1.",
        "fn gpuia_ix_cut_item(j: u32) -> vec2<u32> {",
        "  if (j >= gpuia_ix.count || !gpuia_ix_is_cut(gpuia_ix_value(j))) {",
        "    return vec2<u32>(0u, 0u);",
        "  }",
        "  return vec2<u32>(1u, j + 1u);",
        "}",
        "// The primitive scan's value at position j: 1 where a primitive starts.",
        "fn gpuia_ix_prim_item(j: u32) -> vec2<u32> {",
        "  if (j >= gpuia_ix.count || gpuia_ix_codes[j] == 0u) { return vec2<u32>(0u, 0u); }",
        "  return vec2<u32>(1u, 0u);",
        "}",
    ]
    # Position j with its exclusive prefix (cuts before j, start of j's run).
    lines += [
        "fn gpuia_ix_cut_emit(j: u32, pre: vec2<u32>) {",
        "  if (j >= gpuia_ix.count) { return; }",
        "  let v = gpuia_ix_value(j);",
        "  var code = 0u;",
        "  if (!gpuia_ix_is_cut(v)) {",
    ]
    if IndexStreams.KEPT in spec.streams:
        lines.append("    gpuia_ix_kept[j - pre.x] = v;")
    lines += [
        "    let place = j - pre.y;  // position within its cut-free run",
        f"    var whole = place % {topo.step}u == 0u && gpuia_ix.count > {topo.span}u"
        f" && j < gpuia_ix.count - {topo.span}u;",
        f"    for (var k = 1u; k <= {topo.span}u; k = k + 1u) {{",
        "      if (whole && gpuia_ix_is_cut(gpuia_ix_value(j + k))) { whole = false; }",
        "    }",
        f"    if (whole) {{ code = 1u + ((place / {topo.step}u) & 1u); }}",
        "  }",
        "  gpuia_ix_codes[j] = code;",
        "}",
        "fn gpuia_ix_prim_emit(j: u32, pre: vec2<u32>) {",
        "  if (j >= gpuia_ix.count) { return; }",
        "  let code = gpuia_ix_codes[j];",
        "  if (code != 0u) {",
        "    let parity = code - 1u;",
        *_write_primitive(spec, "pre.x", "j", "parity"),
        "  }",
        "}",
        "",
    ]
    # Element passes (level 0): reduce and final, for each scan.
    total = ["  if (lid == 0u) { gpuia_ix_totals[gpuia_ix.level_offset[1] + block] = s.total; }"]
    for scan, item, emit in (("cuts", "gpuia_ix_cut_item({})", "gpuia_ix_cut_emit"),
                             ("prims", "gpuia_ix_prim_item({})", "gpuia_ix_prim_emit")):
        lines += _block_pass(f"gpuia_ix_{scan}_reduce", item, total, True)
        final = ["  let base = gpuia_ix_combine(gpuia_ix_entry(1u, block), s.before);"]
        final += [f"  {emit}(first + {k}u, gpuia_ix_combine(base, pre{k}));" for k in range(ITEMS)]
        lines += _block_pass(f"gpuia_ix_{scan}_final", item, final, True)
    entry = "gpuia_ix_entry(gpuia_ix.level, {})"
    write = [
        "  let here = gpuia_ix.level_offset[gpuia_ix.level];",
        "  let length = gpuia_ix.level_length[gpuia_ix.level];",
        *[f"  if (first + {k}u < length) {{ gpuia_ix_totals[here + first + {k}u] = "
          f"gpuia_ix_combine(base, pre{k}); }}" for k in range(ITEMS)],
    ]
    # Up: level -> one total per block at level + 1.
    lines += _block_pass("gpuia_ix_up", entry, [
        "  if (lid == 0u) {",
        "    gpuia_ix_totals[gpuia_ix.level_offset[gpuia_ix.level + 1u] + block] = s.total;",
        "  }",
    ], False)
    # Down: a level's blocks become exclusive prefixes, from the (scanned) level above.
    lines += _block_pass("gpuia_ix_down", entry, [
        "  let base = gpuia_ix_combine(gpuia_ix_entry(gpuia_ix.level + 1u, block), s.before);",
        *write,
    ], False)
    # Top: the one block of the last level, in place; its total is the grand total.
    lines += [
        "// The last level fits one workgroup: scanned in place; the grand total is recorded.",
        f"@compute @workgroup_size({WORKGROUP})",
        "fn gpuia_ix_top(@builtin(local_invocation_index) lid: u32) {",
        f"  let first = lid * {ITEMS}u;",
    ]
    lines += _scan_items(entry)
    lines += [
        "  let base = s.before;",
        *write,
        "  if (lid == 0u) {",
        f"    gpuia_ix_args[{ARGS_SUMS}u + 2u * gpuia_ix.scan] = s.total.x;",
        f"    gpuia_ix_args[{ARGS_SUMS + 1}u + 2u * gpuia_ix.scan] = s.total.y;",
        "  }",
        "}",
        "",
    ]
    return lines


def _finish_lines(spec: IndexPassSpec) -> list[str]:
    vpp = spec.topology.vertices
    if spec.cuts:
        counts = [
            "  // From the scans' grand totals (0 in a fresh args buffer when nothing ran).",
            f"  let kept = n - gpuia_ix_args[{ARGS_SUMS}u];",
            f"  let prims = gpuia_ix_args[{ARGS_SUMS + 2}u];",
        ]
    else:
        counts = ["  let kept = n;", "  let prims = gpuia_ix_primitives(n);"]
    words = ARGS_LIST // 4, ARGS_KEPT // 4, ARGS_DISPATCH // 4
    return [
        "// a * b as a 64-bit (lo, hi) pair: WGSL has no 64-bit integers.",
        "fn gpuia_ix_mul_wide(a: u32, b: u32) -> vec2<u32> {",
        "  let a0 = a & 0xffffu;",
        "  let a1 = a >> 16u;",
        "  let b0 = b & 0xffffu;",
        "  let b1 = b >> 16u;",
        "  let p00 = a0 * b0;",
        "  let p01 = a0 * b1;",
        "  let p10 = a1 * b0;",
        "  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);",
        "  let lo = (p00 & 0xffffu) | (mid << 16u);",
        "  return vec2<u32>(lo, a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));",
        "}",
        "@compute @workgroup_size(1)",
        "fn gpuia_ix_finish() {",
        "  let n = gpuia_ix.count;",
        *counts,
        f"  gpuia_ix_args[{words[0]}u] = prims * {vpp}u;",
        f"  gpuia_ix_args[{words[1]}u] = kept;",
        *[f"  gpuia_ix_args[{w + 1}u] = gpuia_ix.instance_count;\n"
          f"  gpuia_ix_args[{w + 2}u] = 0u;\n"
          f"  gpuia_ix_args[{w + 3}u] = gpuia_ix.base_vertex;\n"
          f"  gpuia_ix_args[{w + 4}u] = gpuia_ix.first_instance;" for w in words[:2]],
        f"  gpuia_ix_args[{ARGS_PRIMITIVES}u] = prims;",
        "  let needed = gpuia_ix_mul_wide(prims, gpuia_ix.instance_count);",
        f"  gpuia_ix_args[{ARGS_NEEDED}u] = needed.x;",
        f"  gpuia_ix_args[{ARGS_NEEDED + 1}u] = needed.y;",
        "  // Workgroups for every vertex of every primitive: x first, then rows of x.",
        f"  let items = gpuia_ix_mul_wide(needed.x, {vpp}u);",
        f"  let items_hi = needed.y * {vpp}u + items.y;",
        "  let g = gpuia_ix.items_per_group;",
        "  var groups = 0u;",
        "  if (g != 0u) {",
        "    groups = items.x / g + select(0u, 1u, items.x % g != 0u);",
        "    if (items_hi != 0u) { groups = 0xffffffffu; }  // saturated: the host bounds it",
        "  }",
        "  let x = min(groups, gpuia_ix.max_groups);",
        "  var y = 0u;",
        "  if (x != 0u) { y = min((groups - 1u) / x + 1u, gpuia_ix.max_groups); }",
        f"  gpuia_ix_args[{words[2]}u] = x;",
        f"  gpuia_ix_args[{words[2] + 1}u] = y;",
        f"  gpuia_ix_args[{words[2] + 2}u] = select(0u, 1u, x != 0u);",
        "}",
    ]
