"""``gpuia report merge REPORT...``: join the ``check --json`` reports of ``--shard K/N`` jobs
into the reports one ``gpuia check`` of the whole case list writes (docs/scale-out.md).

``--json FILE`` writes the merged report, ``--junit FILE`` the JUnit XML report, ``--html FILE``
the HTML report (the shards ran with ``--html``: their reports carry each case's view), and
``--csv DIR`` the CSV tables (the shards ran with ``--csv``). Each is what ``gpuia check`` of
every case in one process writes, apart from timings and the command line shown.

Exit status: 0 written; 2 a file that is not a finished check report, shards of different
command lines, a missing or repeated shard, a report asked for that the shards did not keep, or
an output that cannot be written (one ``error:`` line).
"""

from __future__ import annotations

from pathlib import Path

from ...errors import GpuiaError
from ...util.files import OutputError, make_folder, write_atomic
from ..check_outputs import write_html, write_junit
from ..common import EXIT_INVALID, EXIT_OK, error_line, writable

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    p = subparsers.add_parser("report", help="merge the check reports of --shard jobs "
                                             "(docs/scale-out.md)")
    sub = p.add_subparsers(dest="report_command", required=True, metavar="ACTION")
    m = sub.add_parser("merge", help="join the 'check --json' reports of shards 1..N into the "
                                     "reports of the whole case list")
    m.add_argument("reports", nargs="+", metavar="REPORT",
                   help="a report written by 'gpuia check --shard K/N --json REPORT'")
    m.add_argument("--json", metavar="FILE", default=None, help="write the merged JSON report")
    m.add_argument("--junit", metavar="FILE", default=None,
                   help="write the JUnit XML report (docs/exports.md)")
    m.add_argument("--html", metavar="FILE", default=None,
                   help="write the HTML report (the shards ran with --html)")
    m.add_argument("--csv", metavar="DIR", default=None,
                   help="write the CSV tables (the shards ran with --csv)")
    return p


def run(args) -> int:
    from ...harness.check_report import merge, read_report

    try:
        for option in ("json", "junit", "html"):
            writable(f"--{option}", getattr(args, option))
        merged = merge([(path, read_report(path)) for path in args.reports])
        merged.command = getattr(args, "command_line", None)
        if args.html and not merged.views:
            raise OutputError("--html: a shard's report holds no HTML views: run its check "
                              "with --html too")
        if args.csv and not merged.csv:
            raise OutputError("--csv: a shard's report holds no CSV tables: run its check "
                              "with --csv too")
        _write(args, merged)
    except (OSError, GpuiaError) as exc:
        error_line("report", exc)
        return EXIT_INVALID
    return EXIT_OK


def _write(args, merged) -> None:
    """Every report asked for, from the merged one."""
    if args.json:
        merged.write(args.json)
    if args.junit:
        write_junit(args.junit, merged)
    if args.html:
        write_html(args.html, merged, merged.command)
    if args.csv:
        folder = make_folder(args.csv, "--csv")
        for c in merged.cases:
            for name, text in (c.csv_files or {}).items():
                if Path(name).name != name or name.startswith(".") or "\\" in name:
                    # names come from a file: none may leave the folder
                    raise OutputError(f"--csv: {name!r} in the report of {c.case}: not one "
                                      f"safe file name")
                write_atomic(folder / name, text)
