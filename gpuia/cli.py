"""The ``gpuia`` command line (contract: spec/case-format.md, "Command line").

Exit status: 0 success, 1 a difference was found (``check``), 2 invalid input. Invalid input
prints exactly one line per failing case, ``error: <case>: <where>: <rule>``, on stderr, and no
traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .case import DEFAULT_MAX_INVOCATIONS, load_case
from .errors import GpuiaError
from .report import formats_table, invocation_table, layout_table

EXIT_OK, EXIT_DIFF, EXIT_INVALID = 0, 1, 2


def _case_label(path: str) -> str:
    return Path(path).stem if path != "-" else "stdin"


def _error(label: str, exc: BaseException) -> None:
    text = " ".join(str(exc).split()) or type(exc).__name__
    print(f"error: {label}: {text}", file=sys.stderr)


def _load(path: str):
    if path == "-":
        return load_case(sys.stdin.read(), default_name="stdin")
    return load_case(Path(path))


def _each_case(paths, action) -> int:
    """Run ``action(label, case)`` for every case; invalid ones print their error line."""
    status = EXIT_OK
    for path in paths:
        label = _case_label(path)
        try:
            case = _load(path)
            label = case.name
            status = max(status, action(path, case) or EXIT_OK)
        except (GpuiaError, MemoryError) as exc:
            _error(getattr(exc, "case_name", label), exc)
            status = EXIT_INVALID
    return status


def cmd_validate(args) -> int:
    def action(path, case):
        if not args.quiet:
            print(f"ok: {case.name}: {len(case.layout)} elements, {len(case.draws)} draw(s), "
                  f"{case.topology.name}")
    return _each_case(args.cases, action)


def cmd_run(args) -> int:
    from .runner import run_case

    to_stdout = args.out_dir is None and len(args.cases) == 1 and not args.table
    if args.out_dir is None and len(args.cases) > 1 and not args.table:
        print("error: run: several cases need --out-dir (or --table)", file=sys.stderr)
        return EXIT_INVALID
    out_dir = Path(args.out_dir) if args.out_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)

    def action(path, case):
        ia, doc = run_case(case, args.backend, max_invocations=args.max_invocations)
        if to_stdout:
            json.dump(doc, sys.stdout, indent=None if args.compact else 1)
            sys.stdout.write("\n")
        if out_dir:
            stem = Path(path).stem if path != "-" else case.name
            target = out_dir / f"{stem}.json"
            target.write_text(json.dumps(doc, indent=None if args.compact else 1) + "\n")
        if args.table:
            stats = ", ".join(f"{k} {v}" for k, v in doc["statistics"].items())
            print(f"== {case.name}: {case.topology.name}, {len(case.draws)} draw(s), {stats} "
                  f"[{doc['backend']}/{doc['path']}]")
            print(layout_table(case.layout))
            print()
            print(invocation_table(ia, max_rows=args.rows, show_bits=args.bits))
            if out_dir:
                print(f"result: {target}")
            print()
    return _each_case(args.cases, action)


def cmd_formats(args) -> int:
    print(formats_table())
    return EXIT_OK


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
    r.add_argument("--backend", choices=["cpu"], default="cpu",
                   help="cpu: the numpy reference (default)")
    r.add_argument("--out-dir", metavar="DIR", help="write DIR/<case stem>.json per case")
    r.add_argument("--table", action="store_true",
                   help="print the layout and a per-invocation table instead of JSON on stdout")
    r.add_argument("--rows", type=int, default=32, metavar="N", help="rows of --table (32)")
    r.add_argument("--bits", action="store_true", help="--table shows bit patterns in hex")
    r.add_argument("--compact", action="store_true", help="write JSON on one line")
    r.add_argument("--max-invocations", type=int, default=DEFAULT_MAX_INVOCATIONS, metavar="N",
                   help=f"refuse cases delivering more vertices (default {DEFAULT_MAX_INVOCATIONS})")
    r.set_defaults(func=cmd_run)

    f = sub.add_parser("formats", help="print the DXGI vertex format table")
    f.set_defaults(func=cmd_formats)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
