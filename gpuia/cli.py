"""The ``gpuia`` command line (contract: spec/case-format.md, "Command line").

Exit status: 0 success, 1 a difference was found (``check``), 2 invalid input. Invalid input
prints exactly one line per failing case, ``error: <case>: <where>: <rule>``, on stderr, and no
traceback.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from . import __version__
from .harness.case import DEFAULT_MAX_INVOCATIONS, load_case
from .harness.compare import SHADER_TOLERANCE
from .errors import GpuiaError, UnsupportedError
from .util.files import OutputError, make_folder, printable, read_text, safe_stem, write_atomic
from .harness.report.text import formats_table, invocation_table, layout_table

EXIT_OK, EXIT_DIFF, EXIT_INVALID = 0, 1, 2


def _case_label(path: str) -> str:
    return Path(path).stem if path != "-" else "stdin"


HOST_OUT_OF_MEMORY = "out of host memory"
"""How an ``error:`` line names a :class:`MemoryError` of the host (numpy's, or an address-space
cap's): the fuzzer tells these from gpuia's own refusals by it."""


def error_line(label: str, exc: BaseException) -> None:
    """Print the one ``error:`` line of an invalid input (exit status 2). An error that carries
    a compiler's multi-line ``diagnostic`` (gpuia.wgsl.diagnostics.ShaderCompileError) prints
    its one-line ``summary`` there, then the diagnostic's lines indented by four spaces."""
    detail = getattr(exc, "diagnostic", ())
    message = getattr(exc, "summary", None) if detail else None
    text = printable(" ".join((message or str(exc)).split())) or type(exc).__name__
    # wgpu's GPUOutOfMemoryError is a MemoryError too, but of the adapter, not the host.
    if isinstance(exc, MemoryError) and not isinstance(exc, GpuiaError) \
            and not type(exc).__module__.startswith("wgpu"):
        text = f"{HOST_OUT_OF_MEMORY}: {text}"
    print(f"error: {printable(label)}: {text}", file=sys.stderr)
    for line in detail:
        print(f"    {printable(line)}", file=sys.stderr)


def _load(path: str):
    if path == "-":  # always JSON text, never a path, whatever it starts with
        from .harness.case import load_case_text

        return load_case_text(read_text("-"), default_name="stdin")
    return load_case(Path(path))


def _each_case(paths, action, progress=None, on_error=None) -> int:
    """Run ``action(path, case)`` for every case; invalid ones print their error line (and are
    passed to ``on_error(line)``). ``progress`` (a :class:`gpuia.util.progress.Progress`) counts the
    cases."""
    status = EXIT_OK
    for path in paths:
        label = _case_label(path)
        try:
            case = _load(path)
            label = case.name
            status = max(status, action(path, case) or EXIT_OK)
        except (GpuiaError, MemoryError) as exc:
            error_line(getattr(exc, "case_name", label), exc)
            if on_error is not None:
                on_error(f"{getattr(exc, 'case_name', label)}: {' '.join(str(exc).split())}")
            status = EXIT_INVALID
        if progress is not None:
            progress.update(1, label)
    return status


def _case_progress(args, desc: str):
    """The progress over a command's cases: shown for several cases only, and only where
    :func:`gpuia.util.progress.wanted` says so (``--progress``, or stderr a terminal)."""
    from .util.progress import Progress, wanted

    return Progress(len(args.cases), desc, "case",
                    enabled=wanted(args.progress) and len(args.cases) > 1)


def cmd_validate(args) -> int:
    def action(path, case):
        if not args.quiet:
            print(f"ok: {case.name}: {len(case.layout)} elements, {len(case.draws)} draw(s), "
                  f"{case.topology.name}")
    return _each_case(args.cases, action)


def _device(args):
    from .gpu import get_device

    return get_device(args.adapter, args.gpu_backend)


def cmd_run(args) -> int:
    from .harness.run import run_case

    to_stdout = args.out_dir is None and args.out is None and len(args.cases) == 1 \
        and not args.table
    if args.out is not None:
        try:
            if args.out_dir is not None or len(args.cases) != 1:
                raise OutputError("--out FILE takes the result of one case (several cases: "
                                  "--out-dir)")
            _writable("--out", args.out)
        except GpuiaError as exc:
            error_line("run", exc)
            return EXIT_INVALID
    if args.out_dir is None and len(args.cases) > 1 and not args.table:
        print("error: run: several cases need --out-dir (or --table)", file=sys.stderr)
        return EXIT_INVALID
    out_dir, written = None, {}
    if args.out_dir:
        try:
            out_dir = make_folder(args.out_dir, "--out-dir")
            written = _result_names(args.cases, out_dir)
        except GpuiaError as exc:
            error_line("run", exc)
            return EXIT_INVALID
    bar = _case_progress(args, "gpuia run")

    def action(path, case):
        device = _device(args) if args.backend == "gpu" else None
        res, doc = run_case(case, args.backend, path=args.path, device=device,
                            max_invocations=args.max_invocations, capture_route=args.capture)
        ia = res.ia if args.backend == "gpu" else res
        if args.explain:
            if args.backend != "gpu":
                bar.write(f"{case.name}: cpu backend: the numpy reference (no GPU path)",
                          file=sys.stderr)
            for d, plan in enumerate(res.plans if args.backend == "gpu" else []):
                bar.write(f"{case.name}: draw {d}: {plan.explain()}", file=sys.stderr)
        if to_stdout:
            json.dump(doc, sys.stdout, indent=None if args.compact else 1)
            sys.stdout.write("\n")
        target = Path(args.out) if args.out else (
            _result_target(out_dir, path, case, written) if out_dir else None)
        if target is not None:
            write_atomic(target, json.dumps(doc, indent=None if args.compact else 1) + "\n")
        if args.table:
            stats = ", ".join(f"{k} {v}" for k, v in doc["statistics"].items())
            lines = [(f"== {case.name}: {case.topology.name}, {len(case.draws)} draw(s), {stats} "
                      f"[{doc['backend']}/{doc['path']}]"),
                     layout_table(case.layout), "",
                     invocation_table(ia, max_rows=args.rows, show_bits=args.bits)]
            if target is not None:
                lines.append(f"result: {target}")
            bar.write("\n".join(lines) + "\n")

    with bar:
        return _each_case(args.cases, action, bar)


def _result_names(paths, out_dir: Path) -> dict:
    """The result file of every case file given, refusing two that would write one file
    (``a/x.json`` and ``b/x.json``) before anything runs."""
    names: dict = {}
    for path in paths:
        if path == "-":
            continue  # named by the case inside: known once it is read
        target = out_dir / f"{safe_stem(Path(path).stem)}.json"
        if target in names and names[target] != path:
            raise OutputError(f"--out-dir: {names[target]} and {path} would both write "
                              f"{target}; run them into different folders")
        names[target] = path
    return names


def _result_target(out_dir: Path, path: str, case, written: dict) -> Path:
    """Where the result of ``case`` (read from ``path``) goes: ``<file stem>.json``, or for
    standard input the case's own name made into one safe file name (never a path)."""
    stem = Path(path).stem if path != "-" else case.name
    target = out_dir / f"{safe_stem(stem)}.json"
    owner = written.setdefault(target, path)
    if owner != path:
        raise OutputError(f"--out-dir: {owner} and {path} would both write {target}")
    return target


def _writable(option: str, target: str | None) -> None:
    """Refuse before any GPU work an output file whose folder does not exist."""
    if target is None:
        return
    if Path(target).is_dir():
        raise OutputError(f"{option} {target}: is a folder, not a file name")
    if not Path(target).resolve().parent.is_dir():
        raise OutputError(f"{option} {target}: the folder {Path(target).parent} does not exist")


_KEPT_DEVICES: dict | None = None


def keep_devices(keep: bool = True) -> None:
    """Let ``check`` keep the devices it creates for its later calls in this process, instead
    of creating its own each time (the invalid fuzzer's children run thousands of checks, and
    creating a device costs 0.1-0.4 s on an NVIDIA driver, more when many processes do it at
    once). ``keep_devices(False)`` forgets them and stops keeping; ``keep_devices()`` again starts
    over with none kept (after a check whose device was lost)."""
    global _KEPT_DEVICES
    _KEPT_DEVICES = {} if keep else None


def _check_device(adapter, position: int, make):
    if _KEPT_DEVICES is None:
        return make(adapter)
    key = (adapter.summary, position)  # two identical GPUs share a summary
    if key not in _KEPT_DEVICES:
        _KEPT_DEVICES[key] = make(adapter)
    return _KEPT_DEVICES[key]


def cmd_check(args) -> int:
    from .harness.compare import ShaderTolerance
    from .harness.crosscheck import cross_check, raster_by_default
    from .gpu import Device
    from .gpu.device import select_adapter, select_adapters
    from .util.progress import LARGE_CASE_INVOCATIONS, Progress, wanted

    try:
        _writable("--html", args.html)
        _writable("--plot", args.plot)
        if args.plot:
            from .harness.report.plot import require_matplotlib

            require_matplotlib()  # before any GPU work: a missing extra is invalid input
        if args.adapter:
            adapters = select_adapters(None if args.adapter == "all" else args.adapter,
                                       args.gpu_backend)
        else:
            adapters = [select_adapter(None, args.gpu_backend)]
    except GpuiaError as exc:
        error_line("check", exc)
        return EXIT_INVALID
    devices, unavailable = [], []
    for i, a in enumerate(adapters):
        try:
            devices.append(_check_device(a, i, Device))
        except GpuiaError as exc:  # e.g. a GL context a headless machine cannot give
            unavailable.append(f"{a.summary}: {' '.join(str(exc).split())}")
            print(f"{a.summary}: unavailable: {' '.join(str(exc).split())}")
    if not devices:
        error_line("check", UnsupportedError("no selected adapter could create a device"))
        return EXIT_INVALID
    paths = ["native", "pulling"] if args.path == "all" else [args.path]
    keep = bool(args.html or args.plot)
    tolerance = ShaderTolerance(args.shader_ulps, args.shader_abs)
    views, series, errors = [], [], []
    bar = _case_progress(args, "gpuia check")
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
            from .harness.report.plot import error_series

            series.extend(error_series([result]))
        if not result.ok:
            return EXIT_DIFF
        if not result.compared:  # every chosen path refused the case: not a pass
            raise UnsupportedError("no GPU run could be compared on the chosen adapters and "
                                   "paths (see the lines above)")
        return EXIT_OK

    with bar:
        status = _each_case(args.cases, action, bar, errors.append)
    try:
        png = None
        if args.plot:
            from .harness.report.plot import plot_png

            png = plot_png(series)
            write_atomic(args.plot, png)
        if args.html:
            from .harness.report.html import render_report

            text = render_report(views, errors=errors, unavailable=unavailable, plot_png=png,
                                 command=getattr(args, "command_line", None))
            write_atomic(args.html, text)
    except (OSError, GpuiaError) as exc:
        error_line("check", exc)
        return EXIT_INVALID
    return status


def _case_view(result, rows, show: bool, nested: bool):
    """The HTML view of one case, with progress over its rows when there are many."""
    from .harness.report.html import case_view, select_rows
    from .util.progress import Progress

    total = sum(len(select_rows(ln.comparison, rows)) for ln in result.lines
                if ln.comparison is not None)
    with Progress(total, f"{result.case}: HTML rows", "row", enabled=show and total >= 100_000,
                  nested=nested) as bar:
        return case_view(result, rows, on_rows=bar.update)


def cmd_adapters(args) -> int:
    from .gpu import list_adapters

    adapters = list_adapters()
    if args.json:
        print(json.dumps([dict(a.as_dict(), limits=a.caps.as_dict(), features=list(a.features))
                          for a in adapters], indent=1))
        return EXIT_OK
    if not adapters:
        print("no GPU adapter found")
        return EXIT_OK
    for a in adapters:
        c = a.caps
        print(f"[{a.index}] {a.summary}")
        print(f"    backend {a.backend}, type {a.type}")
        print(f"    vertex buffers {c.max_vertex_buffers}, vertex attributes "
              f"{c.max_vertex_attributes}, max stride {c.max_vertex_buffer_array_stride}")
        print(f"    storage buffers per stage {c.max_storage_buffers_per_shader_stage}, max storage "
              f"binding {c.max_storage_buffer_binding_size}, max buffer {c.max_buffer_size}")
        print(f"    vertex-writable-storage {'yes' if c.vertex_writable_storage else 'no'}, "
              f"indirect-first-instance {'yes' if c.indirect_first_instance else 'no'}")
        for q in c.quirks:
            print(f"    quirk: {q.reason}")
    return EXIT_OK


def cmd_formats(args) -> int:
    print(formats_table())
    return EXIT_OK


def gpu_options(p, allow_all: bool = False) -> None:
    extra = " ('all' for every adapter)" if allow_all else ""
    p.add_argument("--capture", choices=["auto", "storage", "targets"], default="auto",
                   help="how the GPU reports what vertex shaders received: storage writes from "
                        "the vertex stage (needs vertex-writable-storage), points rendered into "
                        "rgba32uint targets, or auto")
    p.add_argument("--adapter", metavar="SUBSTRING", default=None,
                   help=f"GPU adapter whose name contains SUBSTRING (env GPUIA_ADAPTER){extra}")
    p.add_argument("--gpu-backend", metavar="NAME", default=None,
                   help="only adapters of this wgpu backend: Vulkan, OpenGL, Metal, D3D12 "
                        "(env GPUIA_BACKEND)")


def _row_count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: a row count is 0 or more")
    return value


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text}: a tolerance is a number >= 0")
    return value


def progress_option(p) -> None:
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress on stderr over cases (and the runs of large cases); default: "
                        "only when stderr is a terminal")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gpuia",
        description="Direct3D 12 Input Assembler and Stream Output through WebGPU, checked "
                    "against an exact CPU reference.")
    p.add_argument("--version", action="version", version=f"gpuia {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    v = sub.add_parser("validate", help="validate case files (exit 2 on the first rule broken)")
    v.add_argument("cases", nargs="+", metavar="CASE", help="case file ('-' for stdin)")
    v.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    v.set_defaults(func=cmd_validate)

    r = sub.add_parser("run", help="run cases and write their results")
    r.add_argument("cases", nargs="+", metavar="CASE", help="case file ('-' for stdin)")
    r.add_argument("--backend", choices=["cpu", "gpu"], default="cpu",
                   help="cpu: the numpy reference (default); gpu: a real draw through wgpu")
    r.add_argument("--path", choices=["auto", "native", "pulling"], default="auto",
                   help="GPU path: WebGPU vertex fetch, vertex pulling, or chosen per draw")
    r.add_argument("--explain", action="store_true",
                   help="print on stderr why each draw took its path")
    gpu_options(r)
    r.add_argument("--out-dir", metavar="DIR", help="write DIR/<case stem>.json per case")
    r.add_argument("--out", metavar="FILE", help="write the result of the one case to FILE")
    r.add_argument("--table", action="store_true",
                   help="print the layout and a per-invocation table instead of JSON on stdout")
    r.add_argument("--rows", type=_row_count, default=32, metavar="N", help="rows of --table (32)")
    r.add_argument("--bits", action="store_true", help="--table shows bit patterns in hex")
    r.add_argument("--compact", action="store_true", help="write JSON on one line")
    r.add_argument("--max-invocations", type=int, default=DEFAULT_MAX_INVOCATIONS, metavar="N",
                   help=f"refuse cases delivering more vertices (default {DEFAULT_MAX_INVOCATIONS})")
    progress_option(r)
    r.set_defaults(func=cmd_run)

    c = sub.add_parser("check", help="compare the CPU reference with every applicable GPU path "
                                     "(exit 1 on any difference)")
    c.add_argument("cases", nargs="+", metavar="CASE", help="case file ('-' for stdin)")
    c.add_argument("--path", choices=["all", "native", "pulling"], default="all",
                   help="GPU paths to check (default all that apply)")
    c.add_argument("--table", action="store_true", help="print every invocation, not only "
                                                        "differences")
    c.add_argument("--rows", type=_row_count, default=32, metavar="N",
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
    c.add_argument("--shader-ulps", type=_row_count, default=SHADER_TOLERANCE.ulps,
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
    c.set_defaults(func=cmd_check)

    a = sub.add_parser("adapters", help="list GPU adapters with the limits gpuia depends on")
    a.add_argument("--json", action="store_true", help="machine-readable output")
    a.set_defaults(func=cmd_adapters)

    f = sub.add_parser("formats", help="print the DXGI vertex format table")
    f.set_defaults(func=cmd_formats)

    from .commands import register_all

    register_all(sub)
    return p


def main(argv=None) -> int:
    """Run one command; returns its exit status. SIGINT and SIGTERM end it with one line and
    status 130 / 143 (:mod:`gpuia.util.interrupt`); a standard output that cannot be written (a
    full disk) is one error line and status 2, a closed pipe a quiet end."""
    from .util import interrupt

    with interrupt.ending_on_signals():
        try:
            argv = sys.argv[1:] if argv is None else list(argv)
            args = build_parser().parse_args(argv)
            args.command_line = shlex.join(["gpuia", *argv])
            status = args.func(args)
            sys.stdout.flush()
        except KeyboardInterrupt as exc:
            signum = getattr(exc, "signum", None) or interrupt.received() or 2
            print(interrupt.describe(signum), file=sys.stderr)
            return interrupt.exit_status(signum)
        except BrokenPipeError:
            _drop_stdout()
            return EXIT_OK
        except OSError as exc:  # writing standard output (ENOSPC, EIO, EFBIG)
            _drop_stdout()
            error_line("gpuia", OutputError(f"standard output: cannot write: "
                                            f"{exc.strerror or exc}"))
            return EXIT_INVALID
    if interrupt.received() is not None:  # a command that ended itself cleanly (fuzz)
        print(interrupt.describe(interrupt.received()), file=sys.stderr)
        return interrupt.exit_status(interrupt.received())
    return status


def _drop_stdout() -> None:
    """Point standard output at /dev/null so the interpreter's last flush of what could not be
    written raises nothing at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
