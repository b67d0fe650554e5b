"""``gpuia check --workers N --adapter A --each-adapter``: every case on every adapter ``--adapter``
selects, one worker's run per adapter, joined into the case's one entry with a line saying
whether the adapters agree (docs/scale-out.md, "Every GPU of a host").

A case judged on one adapter is the same bytes on any other: each adapter's worker also runs
``gpuia run CASE --backend gpu`` and answers a SHA-256 per part of that result document
(:func:`gpuia.cli.check_child.result_digest`: the invocations' input bits, the vertex shader's
outputs, the statistics, the Stream Output buffers' bytes; not the adapter's name or the path
taken).
The line ``<case>: each adapter: OK: the same result bytes on M adapters (#i, #j, ...)`` says
they are equal; ``DIFFERENT`` names the first adapter and each one that differs from it, with
the parts that differ, and fails the case (exit status 1). ``not compared``: an adapter gave no
result (``gpuia run`` refused the case there), which its check lines say why.

Guaranteed: the case's lines are each adapter's lines, adapter after adapter in wgpu's order,
then the agreement line; its ``ran_on`` lists the adapters. A case that could not be checked
(an ``error`` on some adapter) is reported with the first adapter's error and no agreement
line; one whose worker died twice on some adapter is ``crash`` (or ``timeout``).

Refused (exit 2, one line): ``--each-adapter`` without ``--workers`` or without ``--adapter``,
and with ``--html`` or ``--csv`` (each holds one view of a case, not one per worker).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import UnsupportedError
from ..harness.check_report import CaseRecord

__all__ = ["each_adapter_option", "refuse_each_adapter", "AdapterRun", "join_runs",
           "agreement_line", "PATH"]

PATH = "each adapter"
"""The agreement line's ``path`` (what a baseline row's ``path`` column matches)."""


def each_adapter_option(p) -> None:
    """``--each-adapter``."""
    p.add_argument("--each-adapter", action="store_true",
                   help="with --workers and --adapter: run every case on every matching "
                        "adapter and check that the results are the same bytes on each "
                        "(a difference fails the case; docs/scale-out.md)")


def refuse_each_adapter(args) -> None:
    """Raise UnsupportedError for what ``--each-adapter`` cannot do (module docstring)."""
    if not args.each_adapter:
        return
    if not args.workers:
        raise UnsupportedError("--each-adapter runs each case on every adapter in worker "
                               "processes: give --workers N (one process runs every case on "
                               "every adapter with --adapter all, without comparing them)")
    if not args.adapter:
        raise UnsupportedError("--each-adapter compares the adapters --adapter selects: give "
                               "--adapter (a substring, several separated by commas, or all)")
    for option, value in (("--html", args.html), ("--csv", args.csv)):
        if value is not None:
            raise UnsupportedError(f"{option} holds one view of a case, not one per adapter: "
                                   f"use it without --each-adapter")


@dataclass
class AdapterRun:
    """One adapter's run of a case: its position in wgpu's enumeration, its summary, the
    worker's answer (None when the worker died twice: ``died`` says how, ``kind`` is
    ``crash`` or ``timeout``), and its result digest (None: no result)."""

    index: int
    summary: str
    answer: dict | None = None
    digest: dict | None = None
    died: str = ""
    kind: str = ""
    record: CaseRecord | None = field(default=None, repr=False)


def _name(run: AdapterRun) -> str:
    return f"#{run.index} {run.summary}"


def agreement_line(case: str, runs: list[AdapterRun]) -> dict:
    """The line of the report saying whether ``runs`` (every adapter's, in order) gave the
    same result bytes, as :func:`gpuia.harness.check_report.line_json` holds a line."""
    problems: list[str] = []
    line = {"label": f"{case}: {PATH}", "status": "OK", "detail": "", "table": "",
            "problems": problems, "path": PATH, "adapter": ", ".join(_name(r) for r in runs),
            "seconds": 0.0}
    missing = [r for r in runs if r.digest is None]
    if missing:
        line["status"] = "not compared"
        line["detail"] = (f"no result on {', '.join(_name(r) for r in missing)} (gpuia run "
                          f"--backend gpu refused the case there)")
        return line
    first = runs[0]
    assert first.digest is not None  # none missing
    for other in runs[1:]:
        assert other.digest is not None
        parts = sorted(k for k in first.digest.keys() | other.digest.keys()
                       if first.digest.get(k) != other.digest.get(k))
        if parts:
            problems.append(f"{_name(first)} and {_name(other)}: different bytes in "
                                    f"{', '.join(parts)}")
    if problems:
        line["status"] = "DIFFERENT"
        line["detail"] = (f"the result bytes differ on {len(problems)} of "
                          f"{len(runs) - 1} other adapters")
    else:
        line["detail"] = (f"the same result bytes on {len(runs)} adapters "
                          f"({', '.join(f'#{r.index}' for r in runs)})")
    return line


def line_text(line: dict) -> str:
    """The agreement line as ``gpuia check`` prints a line: ``label: status: detail``, each
    problem indented below it."""
    return "\n".join([f"{line['label']}: {line['status']}: {line['detail']}",
                      *(f"  {p}" for p in line["problems"])]) + "\n"


def join_runs(runs: list[AdapterRun], source: str, label: str) -> tuple[CaseRecord, str]:
    """The case's one record from every adapter's run (module docstring), and the agreement
    line's text ("" when there is none)."""
    ran_on = [r.index for r in runs]
    dead = next((r for r in runs if r.answer is None), None)
    if dead is not None:
        return CaseRecord(0, source, label, None, f"{_name(dead)}: {dead.died}",
                          outcome=dead.kind, ran_on=ran_on), ""
    records = [r.record or CaseRecord(0, source, label, None,
                                      "the worker's check ended with an exception")
               for r in runs]
    failed = next((rec for rec in records if rec.error is not None or rec.lines is None), None)
    if failed is not None:
        failed.ran_on = ran_on
        return failed, ""
    line = agreement_line(records[0].case, runs)
    lines = [ln for rec in records for ln in rec.lines or ()] + [line]
    return CaseRecord(0, records[0].source, records[0].case, lines, ran_on=ran_on), \
        line_text(line)
