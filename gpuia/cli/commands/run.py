"""``gpuia run CASE...``: run cases on the CPU reference (default) or through a real draw on the
GPU (``--backend gpu``), and write their results (docs/case-format.md, "Result").

One case writes its JSON result on stdout; several need ``--out-dir DIR`` (``DIR/<case
stem>.json`` each, two inputs of one stem refused before anything runs) or ``--table`` (the
layout and a per-invocation table instead). ``--out FILE`` writes the one case's result to
FILE. ``--explain`` prints on stderr why each draw took its GPU path. Every file is written
whole or not at all (:func:`gpuia.util.files.write_atomic`).

Exit status: 0 every case ran; 2 invalid input or output (one ``error:`` line each).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ...errors import GpuiaError
from ...harness.case import DEFAULT_MAX_INVOCATIONS
from ...harness.report.text import invocation_table, layout_table
from ...util.files import OutputError, make_folder, safe_stem, write_atomic
from ..common import (EXIT_INVALID, case_arguments, case_progress, each_case, error_line,
                      gpu_options, progress_option, row_count, writable)

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    r = subparsers.add_parser("run", help="run cases and write their results")
    case_arguments(r)
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
    r.add_argument("--rows", type=row_count, default=32, metavar="N", help="rows of --table (32)")
    r.add_argument("--bits", action="store_true", help="--table shows bit patterns in hex")
    r.add_argument("--compact", action="store_true", help="write JSON on one line")
    r.add_argument("--max-invocations", type=int, default=DEFAULT_MAX_INVOCATIONS, metavar="N",
                   help=f"refuse cases delivering more vertices (default {DEFAULT_MAX_INVOCATIONS})")
    progress_option(r)
    return r


def run(args) -> int:
    to_stdout = args.out_dir is None and args.out is None and len(args.cases) == 1 \
        and not args.table
    if args.out is not None:
        try:
            if args.out_dir is not None or len(args.cases) != 1:
                raise OutputError("--out FILE takes the result of one case (several cases: "
                                  "--out-dir)")
            writable("--out", args.out)
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
    bar = case_progress(args, "gpuia run")
    from ...harness.run import run_case

    def action(path, case):
        device = None
        if args.backend == "gpu":  # wgpu is loaded only here: --backend cpu never needs it
            from ...gpu import get_device

            device = get_device(args.adapter, args.gpu_backend)
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
        return each_case(args.cases, action, bar)


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
