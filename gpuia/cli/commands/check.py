"""``gpuia check CASE...``: run each case on the CPU reference and on every applicable GPU path
of the chosen adapters, and compare (docs/case-format.md, "gpuia check").

One line per case, adapter and path: ``OK``, ``DIFFERENT`` with a table of the differing
invocations (``--table``: every row), or ``not applicable`` with the reason; a case with
Stream Output gets a line comparing its SO buffers, counters and statistics, and
(``--raster``, the default for indexed, strip and adjacency draws) one comparing the primitives
each GPU rasterizes (docs/raster-check.md). An adapter that cannot make a device is reported as
``<adapter>: unavailable: <reason>`` and skipped. ``--html FILE`` and ``--plot FILE.png`` also
write a report (docs/reports.md).

Exit status: 0 every compared run matched; 1 a difference; 2 invalid input, no usable adapter,
or a case no chosen path could run (one ``error:`` line each).
"""

from __future__ import annotations

import argparse
import sys

from ...errors import GpuiaError, UnsupportedError
from ...harness.case import DEFAULT_MAX_INVOCATIONS
from ...harness.compare import SHADER_TOLERANCE, ShaderTolerance
from ...util.files import write_atomic
from ...util.progress import LARGE_CASE_INVOCATIONS, Progress, wanted
from ..common import (EXIT_DIFF, EXIT_INVALID, EXIT_OK, case_arguments, case_progress,
                      each_case, error_line, gpu_options, open_devices, progress_option,
                      row_count, writable)

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
                                                        "differences")
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
    progress_option(c)
    gpu_options(c, allow_all=True)
    return c


def run(args) -> int:
    try:
        writable("--html", args.html)
        writable("--plot", args.plot)
        if args.plot:
            # The plot and HTML modules are imported only for --plot and --html: each costs
            # start-up time (5 and 30 ms, measured) that every gpuia command would pay.
            from ...harness.report.plot import require_matplotlib

            require_matplotlib()  # before any GPU work: a missing extra is invalid input
        devices, unavailable = open_devices(args, sys.stdout)
    except GpuiaError as exc:
        error_line("check", exc)
        return EXIT_INVALID
    # The harness's GPU runs import wgpu, which gpuia --help and validate must not cost.
    from ...harness.crosscheck import cross_check, raster_by_default

    if not devices:
        error_line("check", UnsupportedError("no selected adapter could create a device"))
        return EXIT_INVALID
    paths = ["native", "pulling"] if args.path == "all" else [args.path]
    keep = bool(args.html or args.plot)
    tolerance = ShaderTolerance(args.shader_ulps, args.shader_abs)
    views, series, errors = [], [], []
    bar = case_progress(args, "gpuia check")
    show = wanted(args.progress)

    def action(path, case):
        rasters = args.raster if args.raster is not None else raster_by_default(case)
        runs = Progress(len(devices) * (len(paths) + (case.so_desc is not None) + rasters),
                        case.name, "run",
                        enabled=show and case.invocation_count >= LARGE_CASE_INVOCATIONS,
                        nested=bar.enabled)
        with runs:
            result = cross_check(case, devices, paths, capture_route=args.capture,
                                 table=args.table, rows=args.rows,
                                 max_invocations=args.max_invocations, keep=keep,
                                 on_run=lambda line: runs.update(1, line.path),
                                 tolerance=tolerance, raster=args.raster)
        if result.lines:
            bar.write(result.text())
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

    with bar:
        status = each_case(args.cases, action, bar, errors.append)
    try:
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
    except (OSError, GpuiaError) as exc:
        error_line("check", exc)
        return EXIT_INVALID
    return status


def _case_view(result, rows, show: bool, nested: bool):
    """The HTML view of one case, with progress over its rows when there are many."""
    from ...harness.report.html import case_view, select_rows

    total = sum(len(select_rows(ln.comparison, rows)) for ln in result.lines
                if ln.comparison is not None)
    with Progress(total, f"{result.case}: HTML rows", "row", enabled=show and total >= 100_000,
                  nested=nested) as bar:
        return case_view(result, rows, on_rows=bar.update)
