"""The view of one checked case in the ``gpuia check`` HTML report: the case (topology, draws,
resolved input layout, Stream Output declaration, shader), its adapters, where the vertex
shader's outputs come from, the primitive table (:mod:`.mesh`) and every GPU run
(:mod:`.html_runs`).

Results must come from ``cross_check(keep=True)``; :func:`case_view` refuses others.
"""

from __future__ import annotations

import struct

import numpy as np

from ..compare import SHADER_TOLERANCE
from .html_runs import (
    error_rows,
    ia_stats,
    invocation_rows,
    select_rows,
    so_slots,
    so_stats,
    vs_out_view,
)
from .html_views import CaseView, GSOutView, GSStreamView, PrimitivesView, RunView, ShaderView
from .mesh import (
    captured_vs_outputs,
    gpu_vs_outputs,
    reference_primitives,
    reference_vs_outputs,
    tolerated_outputs,
)


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


def primitives_view(ref, gpu_lists: dict, rows: int | None) -> PrimitivesView:
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
            run.rows = invocation_rows(ref, line.gpu, line.comparison, shown, on_rows)
            run.total_rows = line.comparison.invocations
            run.omitted = run.total_rows - len(shown)
            run.stats = ia_stats(ref, line.gpu, line.comparison)
            run.errors = error_rows(result, line)
        elif line.so_gpu is not None:
            run.so_slots = so_slots(case, result.so_reference, line.so_gpu, rows,
                                    result.tolerance)
            run.stats = so_stats(result.so_reference, line.so_gpu)
            gpu = gpu_vs_outputs(case, ref, line.so_gpu)
            if gpu is not None:  # None only for a case without Stream Output
                tolerated = tolerated_outputs(gpu, result.so_reference, line.so_gpu,
                                              result.tolerance or SHADER_TOLERANCE)
                run.vs_out = vs_out_view(ref, cpu_outputs, gpu, rows, tolerated)
        elif line.vs_outputs is not None:  # the vs outputs run: every invocation's outputs
            gpu = captured_vs_outputs(case, line.vs_outputs)
            cmp = line.output_comparison
            tolerated = ({k: np.zeros(b.shape, bool) for k, b in gpu.bits.items()}
                         if cmp is None else cmp.tolerated)
            run.vs_out = vs_out_view(ref, cpu_outputs, gpu, rows, tolerated)
        runs.append(run)
    ref_stats = [(k, str(v)) for k, v in ref.statistics.items()]
    if result.so_reference is not None:
        ref_stats += [(k, str(v)) for k, v in result.so_reference.statistics.items()]
    geometry = None
    if result.geometry is not None:
        geometry = gs_out_view(case, ref, result, rows)
        ref_stats += geometry.statistics
        if result.so_reference is not None:  # Stream Output's statistics per stream (13.8)
            ref_stats += [(f"stream {s} {k}", str(v))
                          for s, st in enumerate(result.so_reference.streams)
                          for k, v in st.items()]
    return CaseView(case.name, str(case.source.get("description", "") or ""),
                    case.topology.name, [_draw_text(d) for d in case.draws], _element_rows(case),
                    _so_declaration_rows(case),
                    [result.adapters[s] for s in dict.fromkeys(ln.adapter for ln in result.lines)
                     if s in result.adapters], runs, ref_stats, shader_view(case),
                    vs_out_note, primitives_view(ref, result.primitives, rows), geometry)


def gs_out_view(case, ref, result, rows: int | None) -> GSOutView:
    """The :class:`GSOutView` of a kept result with a geometry shader: per stream its first
    ``rows`` rows (:func:`.gs_out.gs_stream_rows`)."""
    from .gs_out import GS_HEADER, gs_out, gs_stream_rows, statistics_text

    out = gs_out(case, ref, result.geometry, result.so_reference)
    streams = []
    for st in out.streams:
        so = f"; {statistics_text(st.statistics)}" if st.statistics else ""
        title = (f"Stream {st.stream} ({st.kind}): {len(st) - st.cuts} vertices, {st.cuts} "
                 f"cuts{so}")
        streams.append(GSStreamView(title, GS_HEADER + [c.name for c in st.columns],
                                    gs_stream_rows(out, st, rows), len(st)))
    return GSOutView(out.source, [(k, str(v)) for k, v in out.statistics.items()], streams)


# How a cbuffer's scalar of each kind reads from its D3D-packed bytes (little-endian words).
_SCALAR_FORMATS = {"float": "<f", "sint": "<i", "uint": "<I", "bool": "<I"}


def bound_values(cbuffer, data: bytes | None) -> str:
    """The values a case binds to a cbuffer, member by member in D3D memory order (a matrix's
    elements as its packing stores them): ``Time = 1.5; ViewProj = 1, 0, ...``, read from the
    bound bytes at each scalar's D3D offset. A scalar past the bound bytes reads 0, as D3D reads
    past a view; a case that binds nothing says so (the draws read zeros).

    Arguments:
        cbuffer: the :class:`gpuia.hlsl.ConstantBuffer` (its ``members``).
        data (bytes): the bytes the case binds at its register, or None.
    """
    if data is None:
        return "nothing bound (zeros)"
    groups: dict[str, list[tuple[int, str]]] = {}
    for m in cbuffer.members:
        name = m.path.split(".", 1)[-1].split("[", 1)[0].split(".", 1)[0]
        fmt = _SCALAR_FORMATS.get(m.kind)
        if m.d3d + 4 > len(data):
            text = "0"
        elif fmt is None:  # a kind without a table entry: its bits, never a guess
            text = data[m.d3d:m.d3d + 4][::-1].hex()
        else:
            value = struct.unpack_from(fmt, data, m.d3d)[0]
            text = str(np.float32(value)) if fmt == "<f" else str(value)  # shortest float32
        groups.setdefault(name, []).append((m.d3d, text))
    return "; ".join(f"{name} = " + ", ".join(text for _, text in sorted(values))
                     for name, values in groups.items())


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
                ", ".join(f"{name} @{at} ({size} B)" for name, at, size in cb.declared()),
                bound_values(cb, case.constant_buffers.get(cb.slot))]
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
