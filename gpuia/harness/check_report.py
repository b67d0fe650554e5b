"""``gpuia check --json FILE``: the results of a check as one JSON document, written as they
arrive, and the merge of the documents of several shards (docs/scale-out.md).

The document::

    {"gpuia_check_report": 1, "command": "...", "shard": "K/N" or null, "inputs": N,
     "complete": true, "seconds": 1.2, "adapters": {"<summary>": {...}},
     "unavailable": [["<summary>", "<reason>"]], "views": false, "csv": false,
     "cases": [{"index": 3, "source": "examples/cases/a.json", "case": "a",
                "status": "pass" | "fail" | "error" | "crash" | "timeout",
                "lines": [LINE, ...] or null,
                "error": "<message>" or null, "view": {...}, "csv_files": {...}}]}

``inputs`` is the number of case arguments of the whole command line and ``index`` a case's
position among them (a shard runs those of its part only). ``LINE`` is one line of ``gpuia
check`` (:class:`~gpuia.harness.crosscheck.CheckLine`'s ``label``, ``status``, ``detail``,
``table``, ``problems``, ``path``, ``adapter``, ``seconds``). ``view`` (with ``--html``) is the
case's HTML view and ``csv_files`` (with ``--csv``) the case's CSV files by name, so the merge can
write those reports too. ``ran_on`` (``check --workers`` with ``--adapter``) lists the positions
in wgpu's enumeration of the adapters the case ran on (identical GPUs share a summary, not a
position). ``crash`` and ``timeout`` (``check --workers``): the case's worker died or passed
``--timeout``, and again when the case ran alone (``error`` says how).
``complete`` is false in a report saved part way (the run was stopped); ``command``,
``shard`` and ``seconds`` are provenance and timing.

Guaranteed: :func:`merge` of the reports of shards 1..N of one command line is the report the
command without ``--shard`` writes, apart from ``command``, ``shard``, ``seconds`` and the
lines' ``seconds``. Refused (:class:`ReportError`, naming the file and why): a file that is not
such a report, a partial one, shards of different command lines, and a missing or repeated
shard.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import GpuiaError
from ..util.files import read_text, write_atomic
from .shards import parse_shard

if TYPE_CHECKING:  # the check's lines: imported where made, as they import wgpu
    from .crosscheck import CheckLine, CheckResult

__all__ = ["REPORT_VERSION", "ReportError", "CaseRecord", "Report", "case_status",
           "line_json", "read_report", "merge"]

REPORT_VERSION = 1
_LINE_KEYS = ("label", "status", "detail", "table", "problems", "path", "adapter", "seconds")


class ReportError(GpuiaError, ValueError):
    """A file that is not a complete check report, or reports that do not merge."""


def line_json(line: CheckLine) -> dict:
    """One line of ``gpuia check`` as the report holds it (without GPU values)."""
    return {k: getattr(line, k) for k in _LINE_KEYS}


def case_status(lines: Sequence[dict] | None, error: str | None) -> str:
    """A case's status: ``error`` (it could not be checked), ``fail`` (a line is
    ``DIFFERENT``), else ``pass``."""
    if error is not None:
        return "error"
    return "fail" if any(ln["status"] == "DIFFERENT" for ln in lines or ()) else "pass"


@dataclass
class CaseRecord:
    """One case argument's outcome: its lines (None when it was not read), its error line's
    message (None when it was checked), and what ``--html`` / ``--csv`` made of it."""

    index: int
    source: str
    case: str
    lines: list[dict] | None = None
    error: str | None = None
    view: Any = None
    csv_files: dict[str, str] | None = None
    outcome: str | None = None  # "crash" or "timeout": its worker died or ran out of time
    ran_on: list[int] | None = None  # --workers over adapters: the adapters' indexes

    def as_json(self) -> dict:
        doc: dict[str, Any] = {"index": self.index, "source": self.source, "case": self.case,
                               "status": self.outcome or case_status(self.lines, self.error),
                               "lines": self.lines, "error": self.error}
        if self.view is not None:
            doc["view"] = self.view
        if self.csv_files is not None:
            doc["csv_files"] = self.csv_files
        if self.ran_on is not None:
            doc["ran_on"] = self.ran_on
        return doc

    @classmethod
    def from_json(cls, doc: dict) -> CaseRecord:
        outcome = doc.get("status") if doc.get("status") in ("crash", "timeout") else None
        return cls(doc["index"], doc["source"], doc["case"], doc.get("lines"), doc.get("error"),
                   doc.get("view"), doc.get("csv_files"), outcome, doc.get("ran_on"))

    def result(self) -> CheckResult | None:
        """The case's :class:`CheckResult` (verdicts only), None when it was not read."""
        if self.lines is None:
            return None
        from .crosscheck import CheckLine, CheckResult

        lines = [CheckLine(**{k: ln[k] for k in _LINE_KEYS}) for ln in self.lines]
        return CheckResult(self.case, lines)


@dataclass
class Report:
    """A check report being written or read (see the module docstring)."""

    inputs: int
    command: str | None = None
    shard: str | None = None
    adapters: dict[str, dict] = field(default_factory=dict)
    unavailable: list[tuple[str, str]] = field(default_factory=list)
    views: bool = False
    csv: bool = False
    cases: list[CaseRecord] = field(default_factory=list)
    complete: bool = False
    seconds: float = 0.0
    started: float = field(default_factory=time.monotonic, repr=False)

    def as_json(self) -> dict:
        return {"gpuia_check_report": REPORT_VERSION, "command": self.command,
                "shard": self.shard, "inputs": self.inputs, "complete": self.complete,
                "seconds": round(self.seconds, 3), "adapters": self.adapters,
                "unavailable": [list(u) for u in self.unavailable], "views": self.views,
                "csv": self.csv, "cases": [c.as_json() for c in self.cases]}

    def write(self, path: str) -> None:
        """Write the report atomically (a reader never sees a part of it)."""
        self.seconds = time.monotonic() - self.started
        write_atomic(path, json.dumps(self.as_json(), indent=1, default=_plain) + "\n")

    def results(self) -> tuple[list[tuple[CheckResult, str]], list[tuple[str, str, str]]]:
        """What ``gpuia check`` hands its JUnit report: ``(result, source)`` per checked case
        and ``(label, error line, source)`` per case that could not be checked, in order."""
        checked, invalid = [], []
        for c in self.cases:
            result = c.result()
            if result is not None:
                checked.append((result, c.source))
            if c.error is not None:
                invalid.append((c.case, f"error: {c.case}: {c.error}", c.source))
        return checked, invalid


def _plain(value):
    """JSON for what ``json`` cannot write itself (numpy scalars, paths): a number or text."""
    item = getattr(value, "item", None)
    return item() if callable(item) else str(value)


def read_report(path: str) -> Report:
    """The report in ``path``; raises :class:`ReportError` for anything else, or a report the
    run did not finish."""
    try:
        doc = json.loads(read_text(path))
    except (GpuiaError, ValueError) as exc:
        raise ReportError(f"{path}: not a check report: {exc}") from None
    if not isinstance(doc, dict) or doc.get("gpuia_check_report") != REPORT_VERSION:
        raise ReportError(f"{path}: not a check report (no \"gpuia_check_report\": "
                          f"{REPORT_VERSION})")
    if not doc.get("complete"):
        raise ReportError(f"{path}: a partial report: its run was stopped before the end")
    try:
        if doc.get("shard") is not None:
            parse_shard(doc["shard"])
        return Report(doc["inputs"], doc.get("command"), doc.get("shard"), doc["adapters"],
                      [(s, r) for s, r in doc["unavailable"]], bool(doc.get("views")),
                      bool(doc.get("csv")), [CaseRecord.from_json(c) for c in doc["cases"]],
                      True, float(doc.get("seconds") or 0.0))
    except (KeyError, TypeError, ValueError) as exc:
        raise ReportError(f"{path}: not a check report: missing or bad {exc}") from None


def merge(reports: Sequence[tuple[str, Report]]) -> Report:
    """The report of the whole command line from those of its shards 1..N (``(file name,
    report)`` each, in any order): cases in argument order, adapters and unavailable
    adapters as the shards saw them. Raises :class:`ReportError` (naming the files) for shards
    of different command lines, a missing or repeated shard, or a report that is no shard."""
    if not reports:
        raise ReportError("no report to merge")
    shards = []  # (Shard, file name, report)
    for name, r in reports:
        if r.shard is None:
            raise ReportError(f"{name}: not a shard's report (it was written without --shard)")
        shards.append((parse_shard(r.shard), name, r))
    counts = {(shard.count, r.inputs) for shard, _, r in shards}
    if len(counts) != 1:
        raise ReportError("the reports are shards of different command lines (shard counts or "
                          "case counts differ: " + "; ".join(
                              f"{name}: shard {r.shard} of {r.inputs} cases"
                              for name, r in reports) + ")")
    ((n, inputs),) = counts
    parts: dict[int, str] = {}
    for shard, name, _ in shards:
        if shard.index in parts:
            raise ReportError(f"{parts[shard.index]} and {name} are both shard {shard}")
        parts[shard.index] = name
    missing = [k for k in range(1, n + 1) if k not in parts]
    if missing:
        raise ReportError(f"shard{'s' if len(missing) > 1 else ''} "
                          f"{', '.join(f'{k}/{n}' for k in missing)} missing")
    ordered = [r for _, _, r in sorted(shards, key=lambda s: s[0].index)]
    out = Report(inputs, views=all(r.views for r in ordered), csv=all(r.csv for r in ordered),
                 complete=True)
    for r in ordered:
        for summary, facts in r.adapters.items():
            out.adapters.setdefault(summary, facts)
        for summary, reason in r.unavailable:
            if (summary, reason) not in out.unavailable:
                out.unavailable.append((summary, reason))
        out.seconds += r.seconds
    out.cases = sorted((c for r in ordered for c in r.cases), key=lambda c: c.index)
    return out
