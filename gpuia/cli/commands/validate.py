"""``gpuia validate CASE...``: load each case as ``gpuia run`` and ``gpuia check`` would, and
say what it holds; nothing is drawn.

Prints ``ok: <case>: <n> elements, <n> draw(s), <topology>`` per valid case (none with
``--quiet``). Exit status: 0 every case valid; 2 a case broke a rule (one ``error:`` line
each, the other cases still read).
"""

from __future__ import annotations

from ..common import case_arguments, each_case, feature_level_option
from ..scale import shard_cases, shard_option
from ..workers import run_on_workers, worker_options

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    p = subparsers.add_parser("validate", help="validate case files (exit 2 on the first rule "
                                               "broken)")
    case_arguments(p)
    p.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    feature_level_option(p)
    shard_option(p)
    worker_options(p)
    return p


def run(args) -> int:
    shard_cases(args)
    if args.workers or args.timeout is not None:
        return run_on_workers(args, "validate", (["--quiet"] if args.quiet else []) + (
            ["--feature-level", args.feature_level] if args.feature_level else []), False)

    def action(path, case):
        if not args.quiet:
            print(f"ok: {case.name}: {len(case.layout)} elements, {len(case.draws)} draw(s), "
                  f"{case.topology.name}")
    return each_case(args.cases, action, feature_level=args.feature_level)
