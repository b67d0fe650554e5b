"""``gpuia check CASE...``: run each case on the CPU reference and on every applicable GPU path
of the chosen adapters, and compare (docs/case-format.md, "gpuia check").

One line per case, adapter and path: ``OK``, ``DIFFERENT`` with a table of the differing
invocations (``--table``: every row), or ``not applicable`` with the reason; a case with
Stream Output gets a line comparing its SO buffers, counters and statistics, and
(``--raster``, the default for indexed, strip and adjacency draws) one comparing the primitives
each GPU rasterizes (docs/raster-check.md). ``--table`` also prints, per case, the vertex
shader's outputs (Stream Output cases), the primitives the draws assemble and a geometry
shader's output per stream (GS Out, the CPU reference's). An adapter that
cannot make a device is reported as ``<adapter>: unavailable: <reason>`` and skipped.
``--html FILE`` and ``--plot FILE.png`` also write a report (docs/reports.md); ``--csv DIR``
writes the mesh viewer's tables in RenderDoc's CSV format and ``--junit FILE`` a JUnit XML
report (docs/exports.md).

Exit status: 0 every compared run matched; 1 a difference; 2 invalid input, no usable adapter,
or a case no chosen path could run (one ``error:`` line each).
"""

from __future__ import annotations

import argparse
import sys

from ...errors import GpuiaError, UnsupportedError
from ...harness.case import DEFAULT_MAX_INVOCATIONS
from ...harness.compare import SHADER_TOLERANCE, ShaderTolerance
from ...util.files import make_folder, printable, write_atomic
from ...util.progress import LARGE_CASE_INVOCATIONS, Progress, wanted
from ..check_workers import run_with_workers
from ..common import (
    EXIT_DIFF,
    EXIT_INVALID,
    EXIT_OK,
    case_arguments,
    case_progress,
    claim_stems,
    each_case_at_once,
    error_line,
    feature_level_option,
    gpu_options,
    lanes_option,
    open_devices,
    output_stem,
    progress_option,
    row_count,
    start_hlsl_worker,
    writable,
)
from ..each_adapter import each_adapter_option
from ..scale import CheckRecorder, check_report_options, shard_option
from ..workers import worker_options

__all__ = ["add_parser", "run"]


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text}: a tolerance is a number >= 0")
    return value


def add_parser(subparsers):
    c = subparsers.add_parser("check", help="compare the CPU reference with every applicable "
                                            "GPU path (exit 1 on any difference)")
    case_arguments(c)
    c.add_argument("--path", choices=["all", "native", "pulling"], default="all",
                   help="GPU paths to check (default all that apply)")
    c.add_argument("--table", action="store_true", help="print every invocation, not only "
                                                        "differences, and the VS outputs and "
                                                        "primitives")
    c.add_argument("--rows", type=row_count, default=32, metavar="N",
                   help="rows per table (32); the HTML report adds every differing row")
    c.add_argument("--max-invocations", type=int, default=DEFAULT_MAX_INVOCATIONS, metavar="N")
    c.add_argument("--html", metavar="FILE", default=None,
                   help="also write a self-contained HTML report: adapters, layouts, CPU and GPU "
                        "values side by side with differences highlighted, SO buffers "
                        "(docs/reports.md)")
    c.add_argument("--plot", metavar="FILE.png", default=None,
                   help="also draw histograms of the per-component GPU error where a tolerance "
                        "applies or values differ (needs the plot extra: matplotlib); embedded "
                        "in --html too")
    c.add_argument("--csv", metavar="DIR", default=None,
                   help="also write per draw and instance the vertex shader's inputs (and "
                        "outputs, for Stream Output) of the CPU reference and of every GPU run "
                        "as CSV in RenderDoc's mesh viewer format, with a manifest per case "
                        "(docs/exports.md)")
    c.add_argument("--junit", metavar="FILE", default=None,
                   help="also write a JUnit XML report: one test case per case, adapter and "
                        "path (docs/exports.md)")
    c.add_argument("--shader-ulps", type=row_count, default=SHADER_TOLERANCE.ulps,
                   metavar="N", help="Stream Output of an HLSL shader: its computed float "
                                     "components may differ from the CPU's by N ULP "
                                     f"(default {SHADER_TOLERANCE.ulps})")
    c.add_argument("--shader-abs", type=_tolerance, default=SHADER_TOLERANCE.absolute,
                   metavar="X", help="... or by X absolute (default "
                                     f"{SHADER_TOLERANCE.absolute:g}, 2^-16)")
    c.add_argument("--raster", action=argparse.BooleanOptionalAction, default=None,
                   help="also check the primitives each GPU rasterizes against the reference's "
                        "(docs/raster-check.md); default: for cases with an indexed draw, a "
                        "strip or an adjacency topology")
    lanes_option(c)
    progress_option(c)
    gpu_options(c, allow_all=True)
    feature_level_option(c)
    shard_option(c)
    check_report_options(c)
    worker_options(c)
    each_adapter_option(c)
    return c


def run(args) -> int:
    if args.workers or args.timeout is not None or args.each_adapter:  # (alone: refused there)
        return run_with_workers(args)
    unavailable_pairs: list = []
    views: list = []
    try:
        recorder = CheckRecorder(args, views)  # --json, --baseline: read or refused first
        csv_dir, stems, devices, unavailable = _open(args, unavailable_pairs)
    except GpuiaError as exc:
        error_line("check", exc)
        return EXIT_INVALID
    # The harness's GPU runs import wgpu, which gpuia --help and validate must not cost.
    from ...harness.crosscheck import cross_check, raster_by_default

    if not devices:
        error_line("check", UnsupportedError("no selected adapter could create a device"))
        return EXIT_INVALID
    paths = ["native", "pulling"] if args.path == "all" else [args.path]
    infos = {dev.info["summary"]: dev.info for dev in devices}  # with the driver facts
    recorder.start(csv_dir, infos, unavailable_pairs)  # args.cases: --shard's part from here
    # --table prints the VS outputs and primitives, --csv writes them: both read kept results.
    keep = bool(args.html or args.plot or args.table or csv_dir is not None)
    tolerance = ShaderTolerance(args.shader_ulps, args.shader_abs)
    series, errors, checked, invalid = [], [], [], []
    bar = case_progress(args, "gpuia check")
    show = wanted(args.progress)

    def work(case):
        rasters = args.raster if args.raster is not None else raster_by_default(case)
        runs = Progress(len(devices) * _lines_per_device(case, len(paths), rasters),
                        case.name, "run",
                        enabled=show and case.invocation_count >= LARGE_CASE_INVOCATIONS,
                        nested=bar.enabled)
        with runs:
            return cross_check(case, devices, paths, capture_route=args.capture,
                               table=args.table, rows=args.rows,
                               max_invocations=args.max_invocations, keep=keep,
                               on_run=lambda line: runs.update(1, line.path),
                               tolerance=tolerance, raster=args.raster)

    def emit(path, case, result):
        if result.lines:
            bar.write(result.text())
        if args.table:
            from ...harness.report.gs_out import check_gs_out_text
            from ...harness.report.mesh import mesh_text

            bar.write(mesh_text(result, args.rows) + check_gs_out_text(result, args.rows))
        if csv_dir is not None:
            _write_csv(csv_dir, output_stem(path, case, stems, "--csv"), result, infos)
        if args.junit:
            checked.append((_light(result), _source(path)))
        if args.html:
            views.append(_case_view(result, args.rows, show, bar.enabled))
        if args.plot:
            from ...harness.report.plot import error_series

            series.extend(error_series([result]))
        if not result.ok:
            return EXIT_DIFF
        if not result.compared:  # every chosen path refused the case: not a pass
            raise UnsupportedError("no GPU run could be compared on the chosen adapters and "
                                   "paths (see the lines above)")
        return EXIT_OK

    def on_error(label: str, message: str, path: str) -> None:
        label = printable(label)  # as the error line shows it: a file name may not be UTF-8
        errors.append(f"{label}: {message}")
        invalid.append((label, f"error: {label}: {message}", _source(path)))

    with bar, recorder.saving():
        status = each_case_at_once(args.cases, work, recorder.emit(emit), args.jobs, bar,
                                   recorder.on_error(on_error), args.feature_level)
    try:
        _write_reports(args, views, series, errors, unavailable, checked, invalid,
                       unavailable_pairs, infos)
    except (OSError, GpuiaError) as exc:
        error_line("check", exc)
        return EXIT_INVALID
    return recorder.finish(status)


def _lines_per_device(case, paths: int, raster: bool) -> int:
    """The lines cross_check makes per device for ``case`` (the progress bar's runs): one per
    path; vs outputs (a shader of its own); gs outputs and geometry shader (a geometry
    shader); raster; stream output."""
    return (paths + (case.vertex_shader is not None) + 2 * (case.gs is not None) + raster
            + (case.so_desc is not None))


def _open(args, unavailable_pairs: list):
    """Everything checked before any case runs: the report files writable, the CSV folder
    made and its file stems claimed, matplotlib there for ``--plot``, the devices opened.
    Returns (CSV folder or None, stems, devices, unavailable adapters); raises GpuiaError."""
    csv_dir, stems = None, {}
    writable("--html", args.html)
    writable("--plot", args.plot)
    writable("--junit", args.junit)
    if args.csv is not None:
        csv_dir = make_folder(args.csv, "--csv")
        stems = claim_stems(args.cases, "--csv")
    if args.plot:
        # The plot and HTML modules are imported only for --plot and --html: each costs
        # start-up time (5 and 30 ms, measured) that every gpuia command would pay.
        from ...harness.report.plot import require_matplotlib

        require_matplotlib()  # before any GPU work: a missing extra is invalid input
    start_hlsl_worker(args.cases)  # Slang's session starts while the devices open
    devices, unavailable = open_devices(args, sys.stdout, unavailable_pairs)
    return csv_dir, stems, devices, unavailable


def _write_reports(args, views, series, errors, unavailable, checked, invalid,
                   unavailable_pairs, infos) -> None:
    """The files written after every case ran: the plot, the HTML report, the JUnit XML."""
    png = None
    if args.plot:
        from ...harness.report.plot import plot_png

        png = plot_png(series)
        write_atomic(args.plot, png)
    if args.html:
        from ...harness.report.html import render_report

        text = render_report(views, errors=errors, unavailable=unavailable, plot_png=png,
                             command=getattr(args, "command_line", None))
        write_atomic(args.html, text)
    if args.junit:
        from ...harness.export.junit import junit_xml

        write_atomic(args.junit, junit_xml([r for r, _ in checked], errors=invalid,
                                           unavailable=unavailable_pairs, adapters=infos,
                                           sources=[src for _, src in checked]))


def _source(path: str) -> str:
    """An input as JUnit names it: the argument as given, on one line; ``stdin`` for ``-``."""
    return "stdin" if path == "-" else printable(path)


def _case_view(result, rows, show: bool, nested: bool):
    """The HTML view of one case, with progress over its rows when there are many."""
    from ...harness.report.html import case_view, select_rows

    total = sum(len(select_rows(ln.comparison, rows)) for ln in result.lines
                if ln.comparison is not None)
    with Progress(total, f"{result.case}: HTML rows", "row", enabled=show and total >= 100_000,
                  nested=nested) as bar:
        return case_view(result, rows, on_rows=bar.update)


def _light(result):
    """The result without the GPU values its lines may keep (JUnit needs only the verdicts)."""
    from dataclasses import replace

    from ...harness.crosscheck import CheckResult

    return CheckResult(result.case, [replace(ln, gpu=None, comparison=None, so_gpu=None,
                                             vs_outputs=None, output_comparison=None)
                                     for ln in result.lines])


def _write_csv(folder, stem: str, result, infos: dict) -> None:
    """The CSV tables of one checked case: the CPU reference, every GPU run's inputs, every
    GPU's vertex shader outputs and Stream Output (docs/exports.md); ``infos``: adapter summary
    -> ``Device.info``."""
    from ...harness.case import ADAPTER_INFO_KEYS, ADAPTER_KEYS
    from ...harness.export.mesh_csv import CsvSide, side_tag, write_case_csv
    from ...harness.report.mesh import captured_vs_outputs, gpu_vs_outputs, reference_vs_outputs

    case, ref = result.case_data, result.reference
    cpu, note = reference_vs_outputs(case, ref)
    gs = None
    if result.geometry is not None:
        from ...harness.report.gs_out import gs_out

        gs = gs_out(case, ref, result.geometry, result.so_reference)
    sides = [CsvSide("cpu", "cpu", "reference", ref, outputs=cpu, note=note, gs_out=gs)]
    runs = [p for p in ("vs outputs", "stream output") if any(ln.path == p for ln in result.lines)]
    vs_out_from = f"VS Out comes from the {' and '.join(runs)} run" if runs else (
        "VS Out comes from the stream output run")
    for ln in result.lines:
        facts = infos.get(ln.adapter, {})
        adapter = {k: facts.get(k) for k in ADAPTER_KEYS}
        info = {k: facts.get(k) for k in ADAPTER_INFO_KEYS}
        tag = side_tag(ln.adapter, ln.path)
        if ln.gpu is not None:
            sides.append(CsvSide(tag, "gpu", ln.gpu.path, ln.gpu.ia, missing=ln.gpu.missing,
                                 note=vs_out_from, adapter=adapter, adapter_info=info))
        elif ln.vs_outputs is not None:
            sides.append(CsvSide(tag, "gpu", ln.path, ref, inputs=False,
                                 outputs=captured_vs_outputs(case, ln.vs_outputs),
                                 adapter=adapter, adapter_info=info))
        elif ln.so_gpu is not None:
            # IDX and rows are the draw's own (the reference's); the values are the GPU's.
            sides.append(CsvSide(tag, "gpu", ln.path, ref, inputs=False,
                                 outputs=gpu_vs_outputs(case, ref, ln.so_gpu),
                                 adapter=adapter, adapter_info=info))
    write_case_csv(folder, stem, case, sides)
