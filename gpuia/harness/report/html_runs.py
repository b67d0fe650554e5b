"""The views of one GPU run in the ``gpuia check`` HTML report: an Input Assembler run's
invocation table, statistics and per-element errors, a Stream Output run's per-slot hex dumps,
statistics and VS Out table.

Row limits: a table holds the first ``rows`` invocations (or SO dump rows), plus **every**
differing one wherever it is, plus the first ``rows`` whose differences the tolerance accepted;
the number left out is stated.
"""

from __future__ import annotations

import numpy as np

from ..compare import so_byte_differences
from .html_views import (
    SO_ROW_BYTES,
    Cell,
    ErrorRow,
    HexRow,
    InvocationRow,
    SOSlotView,
    VSOutView,
    hex_strings,
    make_cell,
    missing_cell,
)
from .text import format_values


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


def invocation_rows(ref, gpu, cmp, shown, on_rows=None) -> list[InvocationRow]:
    """The rows of an Input Assembler run's invocation table for the invocations ``shown``
    (CPU and GPU cells of the IDs and every element); ``on_rows`` is told every 4096 rows."""
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
        columns.append((format_values(a[:, None], "uint"), hex_strings(a[:, None]),
                        format_values(b[:, None], "uint"), hex_strings(b[:, None]),
                        differs.tolist(), same.tolist(), same.tolist()))
    for key, data in ref.inputs.items():
        a, b = data.bits[shown], g.inputs[key].bits[shown]
        tol = cmp.tolerated_mask.get(key)
        tol = tol[shown] if tol is not None else np.zeros(a.shape, dtype=bool)
        columns.append((format_values(a, data.type), hex_strings(a),
                        format_values(b, data.type), hex_strings(b),
                        cmp.element_mismatches[key][shown].tolist(), tol.tolist(),
                        (a != b).tolist()))
    out = []
    for i, r in enumerate(shown.tolist()):
        cells = []
        accepted = False
        for cpu_txt, cpu_hex, gpu_txt, gpu_hex, mism, tol, unequal in columns:
            if missing[i]:
                cells.append((make_cell(cpu_txt[i], cpu_hex[i], ["diff"] * len(cpu_txt[i])),
                              missing_cell()))
                continue
            states = ["diff" if m else "tol" if t else "nan" if u else "same"
                      for m, t, u in zip(mism[i], tol[i], unequal[i], strict=True)]
            accepted |= "tol" in states or "nan" in states
            cells.append((make_cell(cpu_txt[i], cpu_hex[i], states),
                          make_cell(gpu_txt[i], gpu_hex[i], states)))
        state = "diff" if bad[i] else "tol" if accepted else "same"
        out.append(InvocationRow(r, int(ref.draw[r]), int(ref.instance[r]), int(ref.vertex[r]),
                                 state, cells[:2], cells[2:]))
        if on_rows is not None and (i + 1) % 4096 == 0:
            on_rows(4096)
    if on_rows is not None and len(out) % 4096:
        on_rows(len(out) % 4096)
    return out


def ia_stats(ref, gpu, cmp) -> list[tuple[str, str, str, bool]]:
    """An Input Assembler run's statistics: (name, CPU, GPU, differs) per row."""
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


def error_rows(result, line) -> list[ErrorRow]:
    """The per-element error rows of one run (``line``) of ``result``."""
    from .plot import error_series

    single = type(result)(result.case, [line], reference=result.reference)
    return [ErrorRow(s.label.rsplit(": ", 1)[-1], s.rule, s.compared, s.exact, s.within_one,
                     s.beyond_one, s.max_ulp, s.max_absolute) for s in error_series([single])]


def _hex_side(data: bytes | None, lo: int, differs: np.ndarray, tolerated: np.ndarray):
    """One side of a hex dump row: (two hex digits, state) per byte from ``lo``."""
    if data is None:
        return None
    return [(f"{data[i]:02x}", "tol" if tolerated[i] else "diff" if differs[i] else "")
            for i in range(lo, min(lo + SO_ROW_BYTES, len(data)))]


def so_slots(case, ref_so, gpu_so, rows: int | None, tolerance=None) -> list[SOSlotView]:
    """Per Stream Output slot of either side: its sizes, counters and hex dump rows (the
    first ``rows`` and every one with a differing byte)."""
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


def so_stats(ref_so, gpu_so) -> list[tuple[str, str, str, bool]]:
    """A Stream Output run's statistics: (name, CPU, GPU, differs) per row."""
    keys = sorted(set(gpu_so.statistics) | set(ref_so.statistics if ref_so else ()))
    out = []
    for k in keys:
        a = ref_so.statistics.get(k) if ref_so is not None else None
        b = gpu_so.statistics.get(k)
        out.append((k, "" if a is None else str(a), str(b), ref_so is not None and a != b))
    return out


def _output_cell(bits, known, shader_type: str, states) -> Cell:
    texts = format_values(bits, shader_type)
    hexes = hex_strings(bits)
    return make_cell([t if k else "-" for t, k in zip(texts, known, strict=True)],
                     [h if k else "" for h, k in zip(hexes, known, strict=True)], states)


def vs_out_view(ref, cpu, gpu, rows: int | None, tolerated: dict) -> VSOutView:
    """The VS Out table of one Stream Output or vs outputs run: the first ``rows`` invocations,
    every one
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
