"""Self-contained HTML reports of ``gpuia check`` (``--html REPORT.html``).

One file, no external resource: inline CSS, a few lines of inline JavaScript (row filters), the
error plot embedded as a base64 PNG when there is one. Per case it shows what RenderDoc's mesh
viewer would: the case, the adapters it ran on (name, backend, type, driver, vendor, PCI ids,
wgpu-native version, key limits), the resolved input layout (semantic, format, slot, offset,
class, step rate, stride), where the vertex shader's outputs come from (or why there are none),
the primitive list (the reference's, with the corners the GPU side draws per adapter:
:mod:`.mesh`), and per GPU run the verdict, the statistics and a per-invocation table with the
CPU and GPU values of every element side by side. Differing components are highlighted with
their 32-bit patterns inline; every value shows its pattern on hover. Stream Output runs show
the VS Out table (CPU outputs beside what the GPU's targets hold), then, per slot, the filled
sizes of both sides and a hex dump with differing bytes highlighted.

Row limits: a table shows the first ``rows`` invocations (or SO dump rows), plus **every**
differing one wherever it is, plus the first ``rows`` whose differences the tolerance accepted;
the number left out is stated. Every string from a case (names, semantics, descriptions, errors)
is HTML-escaped, and a file name's undecodable bytes are written as codes (``\\udcff``).

The module is in two layers: :func:`case_view` turns a check result into plain dataclasses
(what to show, with a state per value: ``same``, ``diff``, ``tol``, ``nan``, ``missing``), and
``_render_*`` functions turn those into HTML through :class:`string.Template` s and two small
helpers, :func:`esc` and :func:`tag`. Results must come from ``cross_check(keep=True)``.
"""

from __future__ import annotations

import base64
import datetime
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from string import Template

import numpy as np

from ... import __version__
from ..compare import SHADER_TOLERANCE, so_byte_differences
from .mesh import gpu_vs_outputs, reference_primitives, reference_vs_outputs, tolerated_outputs
from .text import format_values

__all__ = ["Html", "esc", "tag", "void", "case_view", "select_rows", "report_views",
           "render_report", "SO_ROW_BYTES"]

SO_ROW_BYTES = 16
"""Bytes per row of a Stream Output hex dump."""


# ---------------------------------------------------------------------------------------------
# HTML helpers: everything that is not already Html is escaped on the way in.
# ---------------------------------------------------------------------------------------------

class Html(str):
    """Markup that is already escaped (built by :func:`tag` or a template)."""


_SURROGATE = re.compile("[\ud800-\udfff]")


def esc(value) -> Html:
    """``value`` as HTML text: escaped, unless it already is :class:`Html`. A lone surrogate
    (how Python holds an undecodable byte of a file name: 0xff is U+DCFF) is written as its
    code, ``\\udcff``, as gpuia's error lines write it, so the report is always UTF-8.

    Arguments:
        value: anything; it is made a string first.

    Returns:
        The :class:`Html` text.
    """
    if isinstance(value, Html):
        return value
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", str(value))
    return Html(html.escape(text, quote=True))


def _open(name: str, attrs: dict) -> str:
    parts = [name]
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        key = "class" if key == "class_" else key.replace("_", "-")
        parts.append(key if value is True else f'{key}="{esc(value)}"')
    return f"<{' '.join(parts)}>"


def tag(name: str, *children, **attrs) -> Html:
    """``<name attrs>children</name>``; children and attribute values are escaped. ``class_``
    is ``class``, other underscores become dashes (``data_table`` is ``data-table``); None and
    False attributes are left out, True ones written bare.

    Arguments:
        name (str): the element's name.
        *children: its content, in order (escaped unless :class:`Html`).
        **attrs: its attributes.

    Returns:
        The element as :class:`Html`.
    """
    return Html(_open(name, attrs) + "".join(esc(c) for c in children) + f"</{name}>")


def void(name: str, **attrs) -> Html:
    """An element without content or end tag (``input``, ``img``), attributes as :func:`tag`.

    Arguments:
        name (str): the element's name.
        **attrs: its attributes.

    Returns:
        The element as :class:`Html`.
    """
    return Html(_open(name, attrs))


def _join(items) -> Html:
    return Html("".join(esc(i) for i in items))


def _fill(template: Template, **values) -> Html:
    return Html(template.substitute({k: esc(v) for k, v in values.items()}))


# ---------------------------------------------------------------------------------------------
# Views: what the report shows, without markup.
# ---------------------------------------------------------------------------------------------

@dataclass
class Cell:
    """One element (or system value) of one invocation on one side: per component its text,
    its 32-bit pattern in hex and its state: ``same``, ``diff`` (refused), ``tol`` (accepted
    within 1 ULP) or ``nan`` (NaN payloads differ); ``state`` is the worst of them, or
    ``missing`` when the GPU delivered nothing."""

    texts: list[str]
    hexes: list[str]
    states: list[str]
    state: str
    note: str = ""


@dataclass
class InvocationRow:
    index: int
    draw: int
    instance: int
    vertex: int
    state: str  # same, diff, tol
    ids: list[tuple[Cell, Cell]]  # SV_VertexID, SV_InstanceID: (CPU, GPU)
    # per element: (CPU, GPU); the CPU cell is None where the CPU side has no value (VS Out of
    # a shader the CPU reference does not run)
    cells: Sequence[tuple[Cell | None, Cell]]


@dataclass
class HexRow:
    offset: int
    cpu: list[tuple[str, str]] | None  # (two hex digits, "diff", "tol" or "") per byte;
    gpu: list[tuple[str, str]] | None  # None: no such side
    differs: bool
    tolerated: bool = False  # a byte differs within the shader tolerance


@dataclass
class SOSlotView:
    slot: int
    size: int
    stride: int | None  # None: the declaration does not write this slot
    initial_filled: int
    filled_cpu: int | None
    filled_gpu: int | None
    differing_bytes: int
    rows: list[HexRow]
    omitted: int
    tolerated_bytes: int = 0  # bytes of shader float results within the stated tolerance


@dataclass
class ErrorRow:
    element: str
    rule: str
    compared: int
    exact: int
    within_one: int
    beyond_one: int
    max_ulp: int
    max_absolute: float


@dataclass
class RunView:
    label: str
    adapter: str
    path: str
    status: str
    detail: str
    problems: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    rows: list[InvocationRow] = field(default_factory=list)
    total_rows: int = 0
    omitted: int = 0
    stats: list[tuple[str, str, str, bool]] = field(default_factory=list)  # name, cpu, gpu, differs
    errors: list[ErrorRow] = field(default_factory=list)
    so_slots: list[SOSlotView] = field(default_factory=list)
    vs_out: VSOutView | None = None


@dataclass
class VSOutView:
    """The vertex shader's outputs of one Stream Output run (RenderDoc's "VS Out"): per shown
    invocation the CPU and GPU cells of every output (``cpu`` False: the CPU reference has
    none, only GPU cells are shown). A GPU component Stream Output did not write shows ``-``."""

    source: str
    columns: list[str]
    cpu: bool
    rows: list[InvocationRow]
    total_rows: int
    omitted: int


@dataclass
class PrimitivesView:
    """The primitives of a case's draws: the reference's, and per adapter the corners the GPU
    side draws (``same``, ``!= ...`` highlighted, or ``-`` where WebGPU assembles the draw),
    with a note per adapter and draw."""

    header: list[str]
    rows: list[list[tuple[str, str]]]  # (text, state) per cell
    total_rows: int
    notes: list[str]


@dataclass
class ShaderView:
    """The case's own vertex shader: its language, where it is from, its source, its signature
    (direction, semantic, declaration, type, interpolation) and, for HLSL, its constant
    buffers (register, name, D3D size, whether gpuia remaps it, members with D3D offsets)."""

    language: str
    title: str
    source: str
    signature: list[list[str]]
    constant_buffers: list[list[str]] = field(default_factory=list)


@dataclass
class CaseView:
    name: str
    description: str
    topology: str
    draws: list[str]
    elements: list[list[str]]
    so_declaration: list[list[str]]
    adapters: list[dict]
    runs: list[RunView]
    reference_stats: list[tuple[str, str]]
    shader: ShaderView | None = None
    vs_out_note: str = ""  # where the VS outputs come from, or why the case has none
    primitives: PrimitivesView | None = None

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.runs)

    @property
    def verdict(self) -> str:
        if self.count("DIFFERENT"):
            return "DIFFERENT"
        return "OK" if self.count("OK") else "nothing compared"


ELEMENT_HEADER = ["#", "semantic", "format", "slot", "offset", "class", "step rate", "stride",
                  "slot extent"]
SO_DECL_HEADER = ["#", "stream", "semantic", "start component", "component count", "output slot"]


def _hex_strings(bits: np.ndarray) -> list:
    """``0x%08x`` of every pattern, as nested lists in the array's shape."""
    def walk(v):
        return [walk(x) for x in v] if isinstance(v, list) else f"0x{v:08x}"

    return walk(np.asarray(bits, dtype=np.uint32).tolist())


_ORDER = ("same", "nan", "tol", "diff")


def _cell(texts, hexes, states) -> Cell:
    return Cell(texts, hexes, states, max(states, key=_ORDER.index, default="same"))


def _missing_cell() -> Cell:
    return Cell([], [], [], "missing", "(not delivered)")


def _draw_text(d) -> str:
    # The case-file form names the call and its arguments by their D3D names, in D3D's order.
    ((call, args),) = d.to_dict().items()
    return f"{call}({', '.join(f'{name}={value}' for name, value in args.items())})"


def _element_rows(case) -> list[list[str]]:
    rows = []
    for e in case.layout.elements:
        view = case.vertex_buffers.get(e.slot)
        stride = "unbound" if view is None or view.buffer is None else str(view.stride_in_bytes)
        offset = f"{e.offset}{' (append)' if e.desc.is_append_aligned else ''}"
        rows.append([str(e.index), e.key, e.format.name, str(e.slot), offset,
                     "PER_INSTANCE_DATA" if e.per_instance else "PER_VERTEX_DATA",
                     str(e.step_rate), stride, str(case.layout.slots[e.slot].extent)])
    return rows


def _so_declaration_rows(case) -> list[list[str]]:
    if case.so_desc is None:
        return []
    return [[str(i), str(e.stream), "(gap)" if e.semantic_name is None else
             f"{e.semantic_name}{e.semantic_index}", str(e.start_component),
             str(e.component_count), str(e.output_slot)]
            for i, e in enumerate(case.so_desc.so_declaration)]


def select_rows(cmp, rows: int | None) -> np.ndarray:
    """Invocations a run's table shows: the first ``rows``, every differing one, and the first
    ``rows`` with components the tolerance accepted (all of them when ``rows`` is None).

    Arguments:
        cmp (Comparison): the run's comparison.
        rows (int): the row limit, or None for every row.

    Returns:
        The invocation numbers, ascending (int64).
    """
    n = cmp.invocations
    if rows is None:
        return np.arange(n)
    accepted = np.zeros(n, dtype=bool)
    for mask in cmp.tolerated_mask.values():
        accepted |= mask.any(axis=1)
    chosen = [np.arange(min(n, rows)), np.flatnonzero(cmp.bad_rows),
              np.flatnonzero(accepted)[:rows]]
    return np.unique(np.concatenate(chosen)).astype(np.int64)


def _invocation_rows(ref, gpu, cmp, shown, on_rows=None) -> list[InvocationRow]:
    # Every array is converted once for the shown rows (text, hex, masks as Python lists): the
    # per-row loop then only assembles, which keeps large reports fast.
    g = gpu.ia
    shown = np.asarray(shown, dtype=np.int64)
    missing = np.asarray(cmp.missing, dtype=bool)[shown].tolist()
    bad = cmp.bad_rows[shown].tolist()
    columns = []
    for cpu_ids, gpu_ids in ((ref.vertex_id, g.vertex_id), (ref.instance, g.instance)):
        a, b = cpu_ids[shown].astype(np.uint32), gpu_ids[shown].astype(np.uint32)
        differs = (cmp.id_mismatch[shown] & (a != b))[:, None]
        same = np.zeros_like(differs)
        columns.append((format_values(a[:, None], "uint"), _hex_strings(a[:, None]),
                        format_values(b[:, None], "uint"), _hex_strings(b[:, None]),
                        differs.tolist(), same.tolist(), same.tolist()))
    for key, data in ref.inputs.items():
        a, b = data.bits[shown], g.inputs[key].bits[shown]
        tol = cmp.tolerated_mask.get(key)
        tol = tol[shown] if tol is not None else np.zeros(a.shape, dtype=bool)
        columns.append((format_values(a, data.type), _hex_strings(a),
                        format_values(b, data.type), _hex_strings(b),
                        cmp.element_mismatches[key][shown].tolist(), tol.tolist(),
                        (a != b).tolist()))
    out = []
    for i, r in enumerate(shown.tolist()):
        cells = []
        accepted = False
        for cpu_txt, cpu_hex, gpu_txt, gpu_hex, mism, tol, unequal in columns:
            if missing[i]:
                cells.append((_cell(cpu_txt[i], cpu_hex[i], ["diff"] * len(cpu_txt[i])),
                              _missing_cell()))
                continue
            states = ["diff" if m else "tol" if t else "nan" if u else "same"
                      for m, t, u in zip(mism[i], tol[i], unequal[i], strict=True)]
            accepted |= "tol" in states or "nan" in states
            cells.append((_cell(cpu_txt[i], cpu_hex[i], states),
                          _cell(gpu_txt[i], gpu_hex[i], states)))
        state = "diff" if bad[i] else "tol" if accepted else "same"
        out.append(InvocationRow(r, int(ref.draw[r]), int(ref.instance[r]), int(ref.vertex[r]),
                                 state, cells[:2], cells[2:]))
        if on_rows is not None and (i + 1) % 4096 == 0:
            on_rows(4096)
    if on_rows is not None and len(out) % 4096:
        on_rows(len(out) % 4096)
    return out


def _ia_stats(ref, gpu, cmp) -> list[tuple[str, str, str, bool]]:
    n = cmp.invocations
    missing = int(np.asarray(cmp.missing).sum())
    bad = int(cmp.bad_rows.sum())
    stats = []
    for key in sorted(set(ref.statistics) | set(gpu.ia.statistics)):
        a, b = ref.statistics.get(key), gpu.ia.statistics.get(key)
        stats.append((key, str(a), str(b), a != b))
    stats += [
        ("invocations delivered", str(n), str(n - missing), bool(missing)),
        ("invocations matching", "", f"{n - bad}/{n}", bool(bad)),
        ("components within 1 ULP (native tolerance)", "", str(cmp.tolerated), False),
        ("GPU invocations at indices D3D does not fetch", "0", str(cmp.unexpected),
         bool(cmp.unexpected)),
        ("GPU path taken", "", gpu.path, False),
    ]
    return stats


def _hex_side(data: bytes | None, lo: int, differs: np.ndarray, tolerated: np.ndarray):
    """One side of a hex dump row: (two hex digits, state) per byte from ``lo``."""
    if data is None:
        return None
    return [(f"{data[i]:02x}", "tol" if tolerated[i] else "diff" if differs[i] else "")
            for i in range(lo, min(lo + SO_ROW_BYTES, len(data)))]


def _so_slots(case, ref_so, gpu_so, rows: int | None, tolerance=None) -> list[SOSlotView]:
    from ..compare import SHADER_TOLERANCE, tolerated_bytes

    slots = sorted(set(gpu_so.buffers) | set(ref_so.buffers if ref_so is not None else ()))
    out = []
    for slot in slots:
        cpu = ref_so.buffers.get(slot) if ref_so is not None else None
        got = gpu_so.buffers.get(slot)
        a = cpu if cpu is not None else b""
        b = got if got is not None else b""
        # A buffer on one side only differs in every byte; without a CPU side nothing is
        # compared.
        diff = so_byte_differences(a, b) if ref_so is not None else np.zeros(0, np.int64)
        tol = tolerated_bytes(ref_so, slot, a, b, tolerance or SHADER_TOLERANCE) \
            if ref_so is not None else np.zeros(max(len(a), len(b)), bool)
        diff = diff[~tol[diff]]  # what remains is a real difference
        diff_set = np.zeros(max(len(a), len(b)), dtype=bool)
        diff_set[diff] = True
        n_rows = (max(len(a), len(b)) + SO_ROW_BYTES - 1) // SO_ROW_BYTES
        bad_rows = np.unique(diff // SO_ROW_BYTES)
        first = np.arange(n_rows if rows is None else min(n_rows, rows))
        shown = np.unique(np.concatenate([first, bad_rows])).astype(np.int64)
        hex_rows = []
        for row in shown:
            lo = int(row) * SO_ROW_BYTES
            hex_rows.append(HexRow(lo, _hex_side(cpu, lo, diff_set, tol),
                                   _hex_side(got, lo, diff_set, tol),
                                   bool(diff_set[lo:lo + SO_ROW_BYTES].any()),
                                   bool(tol[lo:lo + SO_ROW_BYTES].any())))
        target = case.so_targets.get(slot)
        declared = case.so.slot(slot) if case.so is not None else None
        out.append(SOSlotView(
            slot, len(b) if got is not None else len(a), None if declared is None
            else declared.stride, target.filled_size if target is not None else 0,
            ref_so.filled_size.get(slot) if ref_so is not None else None,
            gpu_so.filled_size.get(slot), int(diff.shape[0]), hex_rows, n_rows - len(shown),
            int(tol.sum())))
    return out


def _so_stats(ref_so, gpu_so) -> list[tuple[str, str, str, bool]]:
    keys = sorted(set(gpu_so.statistics) | set(ref_so.statistics if ref_so else ()))
    out = []
    for k in keys:
        a = ref_so.statistics.get(k) if ref_so is not None else None
        b = gpu_so.statistics.get(k)
        out.append((k, "" if a is None else str(a), str(b), ref_so is not None and a != b))
    return out


def _error_rows(result, line) -> list[ErrorRow]:
    from .plot import error_series

    single = type(result)(result.case, [line], reference=result.reference)
    return [ErrorRow(s.label.rsplit(": ", 1)[-1], s.rule, s.compared, s.exact, s.within_one,
                     s.beyond_one, s.max_ulp, s.max_absolute) for s in error_series([single])]


def _output_cell(bits, known, shader_type: str, states) -> Cell:
    texts = format_values(bits, shader_type)
    hexes = _hex_strings(bits)
    return _cell([t if k else "-" for t, k in zip(texts, known, strict=True)],
                 [h if k else "" for h, k in zip(hexes, known, strict=True)], states)


def _vs_out_view(ref, cpu, gpu, rows: int | None, tolerated: dict) -> VSOutView:
    """The VS Out table of one Stream Output run: the first ``rows`` invocations, every one
    where a component the GPU wrote differs from the CPU's and the first ``rows`` with
    differences the shader tolerance accepts (``tolerated``: key -> mask)."""
    n = len(ref)
    differ = {c.key: np.zeros((n, c.components), bool) for c in gpu.columns}
    if cpu is not None:
        for c in gpu.columns:
            differ[c.key] = gpu.known_mask(c.key) & (gpu.bits[c.key] != cpu.bits[c.key])
    bad = np.zeros(n, bool)
    accepted = np.zeros(n, bool)
    for key, d in differ.items():
        bad |= (d & ~tolerated[key]).any(axis=1)
        accepted |= (d & tolerated[key]).any(axis=1)
    first = np.arange(n if rows is None else min(n, rows))
    shown = np.unique(np.concatenate([first, np.flatnonzero(bad),
                                      np.flatnonzero(accepted & ~bad)[:len(first)]]))
    out = []
    for r in shown.astype(np.int64).tolist():
        cells = []
        for c in gpu.columns:
            wrote = gpu.known_mask(c.key)[r].tolist()
            states = ["tol" if t else "diff" if d else "same"
                      for d, t in zip(differ[c.key][r].tolist(),
                                      (differ[c.key][r] & tolerated[c.key][r]).tolist(),
                                      strict=True)]
            cpu_cell = None if cpu is None else _output_cell(cpu.bits[c.key][r],
                                                             [True] * c.components, c.type,
                                                             states)
            cells.append((cpu_cell, _output_cell(gpu.bits[c.key][r], wrote, c.type, states)))
        out.append(InvocationRow(r, int(ref.draw[r]), int(ref.instance[r]), int(ref.vertex[r]),
                                 "diff" if bad[r] else "tol" if accepted[r] else "same", [],
                                 cells))
    source = gpu.source if cpu is None else f"{gpu.source}, against the {cpu.source}"
    return VSOutView(source, [c.name for c in gpu.columns], cpu is not None, out, n,
                     n - len(out))


def _primitives_view(ref, gpu_lists: dict, rows: int | None) -> PrimitivesView:
    """The primitive table: the first ``rows`` primitives and every one whose GPU corners
    differ from the reference's."""
    prims = reference_primitives(ref)
    n = len(prims)
    within = prims.within_instance()  # the GPU side's list is per instance
    # Per adapter, per primitive: -1 WebGPU assembles it, 0 same, 1 differs, 2 GPU has none.
    verdicts = {}
    for summary, lists in gpu_lists.items():
        v = np.full(n, -1, np.int64)
        for g in lists:
            if g.idx is None:
                continue
            sel = np.flatnonzero(prims.draw == g.draw)
            w = within[sel]
            has = w < g.idx.shape[0]
            v[sel[~has]] = 2
            same = (g.idx[w[has]] == prims.idx[sel[has]]).all(axis=1)
            v[sel[has]] = np.where(same, 0, 1)
        verdicts[summary] = v
    bad = np.zeros(n, bool)
    for v in verdicts.values():
        bad |= v > 0
    first = np.arange(n if rows is None else min(n, rows))
    shown = np.unique(np.concatenate([first, np.flatnonzero(bad)])).astype(np.int64)
    header = ["#", "draw", "instance", "VTX", "IDX"]
    if prims.adjacency_vtx is not None:
        header.append("adjacent VTX")
    header += [f"GPU IDX: {summary}" for summary in gpu_lists]
    cells = []
    for p in shown.tolist():
        d = int(prims.draw[p])
        row = [(str(p), ""), (str(d), ""), (str(int(prims.instance[p])), ""),
               (" ".join(map(str, prims.vtx[p].tolist())), ""),
               (" ".join(map(str, prims.idx[p].tolist())), "")]
        if prims.adjacency_vtx is not None:
            row.append((" ".join(map(str, prims.adjacency_vtx[p].tolist())), ""))
        for summary, lists in gpu_lists.items():
            verdict = int(verdicts[summary][p])
            if verdict == 1:
                corners = lists[d].idx[within[p]]
                row.append((" ".join(map(str, corners.tolist())), "diff"))
            else:
                row.append(({-1: "-", 0: "same", 2: "(none)"}[verdict],
                            "diff" if verdict == 2 else ""))
        cells.append(row)
    notes = [g.describe(summary, prims, within)
             for summary, lists in gpu_lists.items() for g in lists]
    return PrimitivesView(header, cells, n, notes)


def case_view(result, rows: int | None = 32, on_rows=None) -> CaseView:
    """The view of one kept :class:`~gpuia.harness.crosscheck.CheckResult`: the case, its
    adapters, layout, shader, VS outputs and primitives (:mod:`.mesh`) and every run.

    Arguments:
        result (CheckResult): a result of ``cross_check(keep=True)``.
        rows (int): the row limit of each table (every differing row is added); None shows
            all. Default 32.
        on_rows: called with a count as invocation rows are prepared (progress over large
            tables), or None (the default).

    Returns:
        The :class:`CaseView`.

    Raises:
        ValueError: ``result`` kept no case or reference (``keep`` was False).
    """
    case, ref = result.case_data, result.reference
    if case is None or ref is None:
        raise ValueError(f"{result.case}: the HTML report needs cross_check(keep=True) results")
    cpu_outputs, vs_out_note = reference_vs_outputs(case, ref)
    runs = []
    for line in result.lines:
        run = RunView(line.label, line.adapter, line.path, line.status, line.detail,
                      list(line.problems))
        if line.comparison is not None and line.gpu is not None:
            shown = select_rows(line.comparison, rows)
            run.columns = list(ref.inputs)
            run.rows = _invocation_rows(ref, line.gpu, line.comparison, shown, on_rows)
            run.total_rows = line.comparison.invocations
            run.omitted = run.total_rows - len(shown)
            run.stats = _ia_stats(ref, line.gpu, line.comparison)
            run.errors = _error_rows(result, line)
        elif line.so_gpu is not None:
            run.so_slots = _so_slots(case, result.so_reference, line.so_gpu, rows,
                                     result.tolerance)
            run.stats = _so_stats(result.so_reference, line.so_gpu)
            gpu = gpu_vs_outputs(case, ref, line.so_gpu)
            if gpu is not None:  # None only for a case without Stream Output
                tolerated = tolerated_outputs(gpu, result.so_reference, line.so_gpu,
                                              result.tolerance or SHADER_TOLERANCE)
                run.vs_out = _vs_out_view(ref, cpu_outputs, gpu, rows, tolerated)
        runs.append(run)
    ref_stats = [(k, str(v)) for k, v in ref.statistics.items()]
    if result.so_reference is not None:
        ref_stats += [(k, str(v)) for k, v in result.so_reference.statistics.items()]
    return CaseView(case.name, str(case.source.get("description", "") or ""),
                    case.topology.name, [_draw_text(d) for d in case.draws], _element_rows(case),
                    _so_declaration_rows(case),
                    [result.adapters[s] for s in dict.fromkeys(ln.adapter for ln in result.lines)
                     if s in result.adapters], runs, ref_stats, shader_view(case),
                    vs_out_note, _primitives_view(ref, result.primitives, rows))


SIGNATURE_HEADER = ["", "semantic", "declaration", "type", "interpolation"]
CBUFFER_HEADER = ["register", "cbuffer", "D3D bytes", "read as", "members (D3D offset, bytes)"]


def shader_view(case) -> ShaderView | None:
    """The :class:`ShaderView` of a case's vertex shader (None for the pass-through one)."""
    if case.vertex_shader is None:
        return None
    hlsl = case.hlsl
    if hlsl is not None:
        rows = [[lf.direction, lf.key, lf.declaration, lf.hlsl_type, lf.interpolation or ""]
                for lf in hlsl.leaves]
        cbs = [[f"b{cb.slot}", cb.name, str(cb.size),
                "gpuia's remap (WGSL lays it out otherwise)" if cb.remapped else "as bound",
                ", ".join(f"{name} @{at} ({size} B)" for name, at, size in cb.declared())]
               for cb in sorted(hlsl.constant_buffers, key=lambda c: c.slot)]
        defines = ", ".join(f"{k}={v}" for k, v in hlsl.defines)
        title = (f"HLSL {hlsl.entry_point} in {hlsl.file_name}, {hlsl.matrix_layout}"
                 + (f", defines {defines}" if defines else ""))
        return ShaderView("HLSL", title, hlsl.source, rows, cbs)
    sig = case.shader_signature()
    rows = [["in", m.key, m.name, m.wgsl_type, m.interpolation or ""] for m in sig.inputs]
    rows += [["out", m.key, m.name, m.wgsl_type, ""] for m in sig.outputs]
    return ShaderView("WGSL", f"WGSL {sig.entry_point}", case.vertex_shader["wgsl"], rows)


def report_views(results, rows: int | None = 32, on_rows=None) -> list[CaseView]:
    """One :class:`CaseView` per kept check result.

    Arguments:
        results: the :class:`~gpuia.harness.crosscheck.CheckResult` values.
        rows (int): as :func:`case_view`. Default 32.
        on_rows: as :func:`case_view`. Default None.

    Returns:
        The list of views.
    """
    return [case_view(r, rows, on_rows) for r in results]


# ---------------------------------------------------------------------------------------------
# Rendering: views to HTML.
# ---------------------------------------------------------------------------------------------

CSS = """
:root { --bg: #fff; --fg: #1b1b1b; --muted: #666; --line: #d0d0d0; --head: #eef1f5;
  --diff: #ffd7d5; --diff-strong: #c0392b; --tol: #fff1c2; --ok: #1e8449; --na: #7f8c8d; }
@media (prefers-color-scheme: dark) { :root { --bg: #17191c; --fg: #e4e4e4; --muted: #9aa;
  --line: #3a3d42; --head: #23272d; --diff: #5a1f1c; --diff-strong: #ff7b6e; --tol: #4d4217;
  --ok: #58d68d; --na: #aab7b8; } }
body { font: 14px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--fg);
  margin: 1.5em; }
h1 { font-size: 1.5em; margin: 0 0 .2em; } h2 { font-size: 1.25em; margin: 0; display: inline; }
h3 { font-size: 1.05em; margin: 1.2em 0 .4em; } h4 { margin: .8em 0 .3em; }
.meta, .note { color: var(--muted); }
table { border-collapse: collapse; margin: .3em 0 .8em; }
th, td { border: 1px solid var(--line); padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: var(--head); position: sticky; top: 0; }
td.num { text-align: right; }
.values td, .vsout td, .primitives td, .hex td {
  font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: nowrap; }
.values th.gpu, .values td.gpu, .vsout th.gpu, .vsout td.gpu {
  border-right: 2px solid var(--line); }
td.diff, td.missing { background: var(--diff); }
td.tol, td.nan { background: var(--tol); }
span.comp { margin-right: .7em; }
span.comp.diff { color: var(--diff-strong); font-weight: bold; }
span.comp code { font-size: 11px; margin-left: .25em; opacity: .85; }
tr.diff td:first-child { box-shadow: inset 4px 0 var(--diff-strong); }
table.only-differing tr.same { display: none; }
.hex td { white-space: pre; } .hex span.diff { background: var(--diff-strong); color: #fff; }
.hex span.tol { background: var(--tol); }
.verdict { font-weight: bold; padding: 0 .4em; border-radius: 3px; }
.verdict.OK { color: var(--ok); }
.verdict.DIFFERENT { color: #fff; background: var(--diff-strong); }
.verdict.na { color: var(--na); }
details.case { border: 1px solid var(--line); border-radius: 4px; padding: .5em .8em;
  margin: .8em 0; }
details.case > summary { cursor: pointer; }
.run { margin: .6em 0 1em 1em; }
img.plot { max-width: 100%; border: 1px solid var(--line); }
pre.source { font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  border: 1px solid var(--line); padding: .5em; overflow-x: auto; }
body.only-different-cases details.case.OK, body.only-different-cases details.case.none
  { display: none; }
"""

# A few lines: the row and case filters. Nothing else needs script.
SCRIPT = """
document.querySelectorAll('input[data-table]').forEach(function (box) {
  box.addEventListener('change', function () {
    document.getElementById(box.dataset.table).classList.toggle('only-differing', box.checked);
  });
});
var cases = document.getElementById('only-different-cases');
if (cases) cases.addEventListener('change', function () {
  document.body.classList.toggle('only-different-cases', cases.checked);
});
"""

PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gpuia $version">
<title>$title</title>
<style>$css</style>
</head>
<body>
<header>
<h1>$title</h1>
<p class="meta">$meta</p>
</header>
<section id="summary">
<h3>Summary</h3>
$summary
<label><input type="checkbox" id="only-different-cases"> show only cases with differences</label>
</section>
$problems
<section id="adapters">
<h3>Adapters</h3>
$adapters
</section>
$plot
<section id="cases">
$cases
</section>
<script>$script</script>
</body>
</html>
""")

CASE = Template("""<details class="case $state" id="$anchor"$open>
<summary><h2>$name</h2> <span class="verdict $verdict_class">$verdict</span>
<span class="note">$counts</span></summary>
$description
<h3>Case</h3>
$facts
<h3>Adapters</h3>
$adapters
<h3>Input layout (resolved)</h3>
$elements
$shader
$so_declaration
$mesh
<h3>GPU runs</h3>
$runs
</details>
""")

RUN = Template("""<div class="run">
<h4>$label <span class="verdict $verdict_class">$status</span></h4>
<p>$detail</p>
$problems
$stats
$errors
$body
</div>
""")


def _table(header, rows, cls=None, numeric=frozenset()) -> Html:
    head = tag("tr", *(tag("th", h) for h in header))
    body = [tag("tr", *(tag("td", c, class_="num" if i in numeric else None)
                        for i, c in enumerate(r))) for r in rows]
    return tag("table", tag("thead", head), tag("tbody", *body), class_=cls)


def _verdict_class(status: str) -> str:
    return status if status in ("OK", "DIFFERENT") else "na"


def _render_cell(cell: Cell, side: str) -> Html:
    if cell.state == "missing":
        return tag("td", cell.note, class_=f"{side} missing")
    patterns = " ".join(cell.hexes)
    if cell.state == "same":  # the common case, kept small: patterns on hover only
        return tag("td", " ".join(cell.texts), class_=side, title=patterns)
    comps = []
    for text, hex_, state in zip(cell.texts, cell.hexes, cell.states, strict=True):
        inline = tag("code", hex_) if state != "same" else ""
        comps.append(tag("span", text, inline, class_=f"comp {state}", title=hex_))
    return tag("td", *comps, class_=f"{side} {cell.state}", title=patterns)


def _render_invocations(run: RunView, table_id: str) -> Html:
    top = [tag("th", h, rowspan=2) for h in ("", "#", "draw", "inst", "vtx")]
    top += [tag("th", n, colspan=2) for n in ["SV_VertexID", "SV_InstanceID"] + run.columns]
    sub = []
    for _ in range(2 + len(run.columns)):
        sub += [tag("th", "CPU", class_="cpu"), tag("th", "GPU", class_="gpu")]
    body = []
    for r in run.rows:
        cells = _row_lead(r, "differs within the allowances")
        for cpu, gpu in [*r.ids, *r.cells]:
            assert cpu is not None  # an IA run's rows have both sides: only VS Out lacks one
            cells += [_render_cell(cpu, "cpu"), _render_cell(gpu, "gpu")]
        body.append(tag("tr", *cells, class_=r.state))
    table = tag("table", tag("thead", tag("tr", *top), tag("tr", *sub)), tag("tbody", *body),
                class_="values", id=table_id)
    shown = len(run.rows)
    note = f"{shown} of {run.total_rows} invocations shown"
    if run.omitted:
        note += (f"; {run.omitted} left out (every differing invocation is shown; raise --rows "
                 f"for more)")
    toggle = tag("label", void("input", type="checkbox", data_table=table_id),
                 " show only rows that differ")
    return _join([tag("p", note, " ", toggle, class_="note"), table])


def _row_lead(r, tolerated: str) -> list:
    """The five cells every invocation row starts with: its mark (``!`` differs, ``~``
    ``tolerated``), then #, draw, instance and vertex."""
    return [tag("td", {"diff": "!", "tol": "~"}.get(r.state, ""),
                title={"diff": "differs", "tol": tolerated}.get(r.state)),
            tag("td", r.index, class_="num"), tag("td", r.draw, class_="num"),
            tag("td", r.instance, class_="num"), tag("td", r.vertex, class_="num")]


def _render_vs_out(view: VSOutView, table_id: str) -> Html:
    """The VS Out table: per output a CPU and a GPU column (GPU only without a CPU side)."""
    sides = ["CPU", "GPU"] if view.cpu else ["GPU"]
    top = [tag("th", h, rowspan=2) for h in ("", "#", "draw", "inst", "vtx")]
    top += [tag("th", n, colspan=len(sides)) for n in view.columns]
    sub = [tag("th", s, class_=s.lower()) for _ in view.columns for s in sides]
    body = []
    for r in view.rows:
        cells = _row_lead(r, "differs within the shader tolerance")
        for cpu, gpu in r.cells:
            if cpu is not None:  # every row has a CPU cell exactly when view.cpu
                cells.append(_render_cell(cpu, "cpu"))
            cells.append(_render_cell(gpu, "gpu"))
        body.append(tag("tr", *cells, class_=r.state))
    table = tag("table", tag("thead", tag("tr", *top), tag("tr", *sub)), tag("tbody", *body),
                class_="vsout", id=table_id)
    note = (f"{view.source}. {len(view.rows)} of {view.total_rows} invocations shown"
            + (f"; {view.omitted} left out (every differing invocation is shown)"
               if view.omitted else "")
            + "; - marks a component Stream Output did not write, ~ a row whose differences the "
              "shader tolerance accepts.")
    return _join([tag("h4", "VS Out"), tag("p", note, class_="note"), table])


def _render_mesh(view: CaseView) -> Html:
    """The case's VS Out note and its primitive table."""
    parts: list[Html | str] = [tag("h3", "Vertex shader outputs (VS Out)"),
                               tag("p", view.vs_out_note, class_="note")]
    pv = view.primitives
    if pv is not None:
        rows = [tag("tr", *(tag("td", text, class_=state or None) for text, state in r))
                for r in pv.rows]
        table = tag("table", tag("thead", tag("tr", *(tag("th", h) for h in pv.header))),
                    tag("tbody", *rows), class_="primitives")
        note = f"{len(pv.rows)} of {pv.total_rows} primitives shown"
        if len(pv.rows) < pv.total_rows:
            note += " (every primitive the GPU side draws otherwise is shown)"
        parts += [tag("h3", "Primitives"),
                  tag("p", "The CPU reference's assembly: each primitive's corners by index "
                           "position (VTX) and index value (IDX), in D3D's order. " + note + ".",
                      class_="note"),
                  table, tag("ul", *(tag("li", n) for n in pv.notes)) if pv.notes else ""]
    return _join(parts)


def _render_hex_side(side) -> Html:
    """Bytes as hex, 4-byte words apart; only differing bytes get an element of their own."""
    out = []
    for i, (digits, state) in enumerate(side):
        if i and i % 4 == 0:
            out.append(" ")
        out.append(tag("span", digits, class_=state) if state else digits)
    return _join(out)


def _render_so(run: RunView, compared: bool) -> Html:
    parts = []
    for s in run.so_slots:
        facts: list[tuple[str, object]] = [
            ("size (SizeInBytes)", s.size),
            ("stride", "not written by the declaration" if s.stride is None else s.stride),
            ("initial BufferFilledSize", s.initial_filled),
            ("BufferFilledSize CPU", "(not compared)" if s.filled_cpu is None else s.filled_cpu),
            ("BufferFilledSize GPU", s.filled_gpu),
            ("differing bytes", s.differing_bytes if compared else "(not compared)")]
        if s.tolerated_bytes:
            facts.append(("bytes within the shader tolerance", s.tolerated_bytes))
        rows = []
        for fact, value in facts:
            differs = (fact == "BufferFilledSize GPU" and s.filled_cpu is not None
                       and s.filled_cpu != s.filled_gpu) or (fact == "differing bytes"
                                                             and s.differing_bytes)
            rows.append(tag("tr", tag("th", fact), tag("td", value,
                                                       class_="diff" if differs else None)))
        dump = [tag("tr", tag("th", "offset"), tag("th", "CPU"), tag("th", "GPU"))]
        for h in s.rows:
            absent = "(no buffer)" if compared else "(not compared)"
            dump.append(tag("tr", tag("td", f"0x{h.offset:08x}"),
                            tag("td", absent if h.cpu is None else _render_hex_side(h.cpu),
                                class_="cpu"),
                            tag("td", "(no buffer)" if h.gpu is None else
                                _render_hex_side(h.gpu), class_="gpu"),
                            class_="diff" if h.differs else "tol" if h.tolerated else "same"))
        note = f"{len(s.rows)} row{'' if len(s.rows) == 1 else 's'} of {SO_ROW_BYTES} bytes shown"
        if s.omitted:
            note += f"; {s.omitted} left out (every row with a differing byte is shown)"
        parts += [tag("h4", f"SO slot {s.slot}"), tag("table", *rows),
                  tag("p", note, class_="note"), tag("table", *dump, class_="hex")]
    return _join(parts)


def _render_run(run: RunView, anchor: str) -> Html:
    problems = tag("ul", *(tag("li", p) for p in run.problems)) if run.problems else ""
    stats = ""
    if run.stats:
        rows = [tag("tr", tag("th", n), tag("td", a, class_="num"),
                    tag("td", b, class_="num diff" if d else "num")) for n, a, b, d in run.stats]
        stats = tag("table", tag("tr", tag("th", "statistic"), tag("th", "CPU"), tag("th", "GPU")),
                    *rows, class_="stats")
    errors = ""
    if run.errors:
        header = ["element", "tolerance", "components", "bit-equal", "1 ULP", "beyond 1 ULP",
                  "max ULP", "max |GPU - CPU|"]
        errors = _join([tag("p", "Per-component error where a tolerance applies or a component "
                                 "differs:", class_="note"),
                        _table(header, [[e.element, e.rule, e.compared, e.exact, e.within_one,
                                         e.beyond_one, e.max_ulp, f"{e.max_absolute:.9g}"]
                                        for e in run.errors], numeric={2, 3, 4, 5, 6, 7})])
    body = ""
    if run.rows:
        body = _render_invocations(run, f"{anchor}-values")
    elif run.so_slots:
        body = _join([_render_vs_out(run.vs_out, f"{anchor}-vs-out") if run.vs_out else "",
                      _render_so(run, run.status != "not compared")])
    return _fill(RUN, label=f"{run.adapter}: {run.path}", verdict_class=_verdict_class(run.status),
                 status=run.status, detail=run.detail, problems=problems, stats=stats,
                 errors=errors, body=body)


def _pci_id(value) -> str:
    return "?" if value is None else f"0x{int(value):04x}"


def _adapter_table(adapters: list[dict], full: bool) -> Html:
    if not adapters:
        return tag("p", "none", class_="note")
    header = ["name", "backend", "type", "driver", "vendor", "PCI vendor:device", "wgpu-native"]
    rows = [[a["name"], a["backend"], a["type"], a["driver"], a["vendor"],
             f"{_pci_id(a.get('vendor_id'))}:{_pci_id(a.get('device_id'))}",
             a.get("wgpu_native") or "?"] for a in adapters]
    if not full:
        return _table(header, rows)
    parts = [_table(header, rows)]
    for a in adapters:
        limits = [[k.replace("_", "-"), "yes" if v is True else "no" if v is False else v]
                  for k, v in a["limits"].items()]
        parts.append(tag("h4", a["summary"]))
        parts.append(_table(["limit / feature", "value"], limits, numeric={1}))
        if a.get("quirks"):
            parts.append(tag("ul", *(tag("li", "quirk: ", q) for q in a["quirks"])))
    return _join(parts)


def _render_case(view: CaseView, index: int, open_: bool) -> Html:
    anchor = f"case-{index}"
    counts = ", ".join(f"{view.count(s)} {s}" for s in ("OK", "DIFFERENT", "not applicable",
                                                         "not compared") if view.count(s))
    facts = _table(["topology", "draws", "reference statistics"],
                   [[view.topology, _join(tag("div", d) for d in view.draws),
                     ", ".join(f"{k} {v}" for k, v in view.reference_stats)]])
    so_decl = ""
    if view.so_declaration:
        so_decl = _join([tag("h3", "Stream Output declaration"),
                         _table(SO_DECL_HEADER, view.so_declaration, numeric={0, 1, 3, 4, 5})])
    runs = _join(_render_run(r, f"{anchor}-run-{i}") for i, r in enumerate(view.runs))
    shader = ""
    if view.shader is not None:
        sv = view.shader
        parts = [tag("h3", f"Vertex shader ({sv.title})"),
                 _table(SIGNATURE_HEADER, sv.signature)]
        if sv.constant_buffers:
            parts += [tag("h4", "Constant buffers"), _table(CBUFFER_HEADER, sv.constant_buffers)]
        parts.append(tag("details", tag("summary", f"{sv.language} source"),
                         tag("pre", sv.source, class_="source")))
        shader = _join(parts)
    state = {"OK": "OK", "DIFFERENT": "DIFFERENT"}.get(view.verdict, "none")
    return _fill(CASE, state=state, anchor=anchor, open=Html(" open") if open_ else "",
                 name=view.name, verdict_class=_verdict_class(view.verdict),
                 verdict=view.verdict, counts=counts,
                 description=tag("p", view.description) if view.description else "",
                 facts=facts, adapters=_adapter_table(view.adapters, full=False),
                 elements=_table(ELEMENT_HEADER, view.elements, numeric={0, 3}),
                 shader=shader, so_declaration=so_decl, mesh=_render_mesh(view), runs=runs)


def _versions() -> str:
    parts = [f"gpuia {__version__}"]
    try:
        import wgpu
        from wgpu.backends.wgpu_native import version_info

        parts.append(f"wgpu-py {wgpu.__version__}, wgpu-native "
                     f"{'.'.join(map(str, version_info))}")
    except ImportError:  # the report still renders from results alone
        pass
    return ", ".join(parts)


def render_report(views: list[CaseView], *, title: str = "gpuia check report",
                  errors: Sequence[str] = (), unavailable: Sequence[str] = (),
                  plot_png: bytes | None = None, command: str | None = None) -> str:
    """The report as one HTML string.

    Arguments:
        views (list): the :class:`CaseView` of every case.
        title (str): the page's title. Default ``"gpuia check report"``.
        errors (list): lines of cases that could not be checked (invalid input). Default none.
        unavailable (list): ``"<adapter>: <reason>"`` of adapters that gave no device.
            Default none.
        plot_png (bytes): the error plot, embedded as a data: URL; None (the default) for
            none.
        command (str): the command line shown in the header; None (the default) for none.

    Returns:
        The document as text.
    """
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    meta = f"generated {now} by {_versions()}"
    if command:
        meta += f" · {command}"
    summary_rows = [[tag("a", v.name, href=f"#case-{i}"), v.count("OK"), v.count("DIFFERENT"),
                     v.count("not applicable"), v.count("not compared"),
                     tag("span", v.verdict, class_=f"verdict {_verdict_class(v.verdict)}")]
                    for i, v in enumerate(views)]
    summary = _table(["case", "OK", "DIFFERENT", "not applicable", "not compared", "verdict"],
                     summary_rows, numeric={1, 2, 3, 4})
    problems = ""
    if errors or unavailable:
        items = [tag("li", "invalid: ", e) for e in errors]
        items += [tag("li", "unavailable adapter: ", u) for u in unavailable]
        problems = tag("section", tag("h3", "Not checked"), tag("ul", *items), id="problems")
    adapters: dict[str, dict] = {}  # summary -> adapter_facts, each adapter once
    for v in views:
        for a in v.adapters:
            adapters.setdefault(a["summary"], a)
    plot = ""
    if plot_png is not None:
        data = base64.b64encode(plot_png).decode("ascii")
        plot = tag("section", tag("h3", "Error histograms"),
                   void("img", class_="plot", alt="GPU - CPU error histograms",
                        src=f"data:image/png;base64,{data}"), id="plot")
    few = len(views) <= 3
    cases = _join(_render_case(v, i, few or v.verdict == "DIFFERENT")
                  for i, v in enumerate(views))
    return _fill(PAGE, version=__version__, title=title, css=Html(CSS), meta=meta,
                 summary=summary, problems=problems,
                 adapters=_adapter_table(list(adapters.values()), full=True), plot=plot,
                 cases=cases, script=Html(SCRIPT))
