"""Baselines of expected results and lists of flaky cases for ``gpuia check`` (docs/scale-out.md).

A **baseline** is a CSV file, one expectation a row, ``#`` lines comments::

    # case,path,adapter,status,code
    bad_offset,*,*,error,E001
    strip_overflow,stream output,*llvmpipe*,fail,

``case``, ``path`` and ``adapter`` are shell patterns (``fnmatch``; the adapter's
case-insensitively) over the case's name, the line's path (``native``, ``pulling``, ``stream
output``, ``raster``, ``pipeline statistics``) and the adapter's summary; an error of a whole
case has the empty path and adapter, which ``*`` matches. ``status`` is ``pass``, ``fail`` (a
``DIFFERENT`` line), ``error`` (the case could not be checked; ``code``, when given, is the lint
code of what was refused: :data:`ERROR_CODES`), ``crash`` or ``timeout``. The first row that
matches a result is its expectation; a result no row matches is expected to pass (lines ``not
applicable`` or ``not compared`` pass). Rows that match nothing (cases of another shard) are
ignored.

A **flakes** file holds one shell pattern a line; a result whose case name or line label
(``case: adapter: path``) matches one may differ from the baseline without counting.

Guaranteed: :func:`differences` is empty exactly when every result that is no flake has its
expected status (and code); a new failure, a changed status and an unexpected pass are one line
each, naming the case. Refused: a row with a status not listed or a missing column
(:class:`BaselineError` naming file, line and value).
"""

from __future__ import annotations

import csv
import fnmatch
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import GpuiaError
from ..util.files import read_text

__all__ = ["STATUSES", "ERROR_CODES", "BaselineError", "Expectation", "Outcome", "error_code",
           "outcomes", "read_baseline", "read_flakes", "baseline_text", "differences"]

STATUSES = ("pass", "fail", "error", "crash", "timeout")
ERROR_CODES = (("input_layout", "E001"), ("stream_output", "E002"),
               ("geometry_shader", "E004"))
"""Where an error line says a case was refused -> the lint code of that refusal
(gpuia.harness.lint.LINT_CODES: CreateInputLayout, the SO declaration, the GS link)."""
_HEADER = "# case,path,adapter,status,code\n"


class BaselineError(GpuiaError, ValueError):
    """A baseline or flakes file that cannot be read (the message names file, line, value)."""


@dataclass(frozen=True)
class Expectation:
    """One baseline row."""

    case: str
    path: str
    adapter: str
    status: str
    code: str = ""

    def matches(self, o: Outcome) -> bool:
        return (fnmatch.fnmatchcase(o.case, self.case) and fnmatch.fnmatchcase(o.path, self.path)
                and fnmatch.fnmatchcase(o.adapter.lower(), self.adapter.lower()))


@dataclass(frozen=True)
class Outcome:
    """One result: a line of a checked case, or a case's error (empty path and adapter)."""

    case: str
    path: str
    adapter: str
    status: str
    code: str = ""

    @property
    def label(self) -> str:
        return ": ".join(p for p in (self.case, self.adapter, self.path) if p)


def error_code(message: str) -> str:
    """The lint code of an error line's message (``<where>: <rule>``), or ``""``."""
    where = message.split(":", 1)[0].strip()
    return next((code for prefix, code in ERROR_CODES if where.startswith(prefix)), "")


def outcomes(cases: Iterable[dict]) -> list[Outcome]:
    """The outcomes of a check report's cases (:mod:`gpuia.harness.check_report`'s
    ``cases``): one per line (``DIFFERENT``: ``fail``, else ``pass``), one per error."""
    out = []
    for c in cases:
        for ln in c.get("lines") or ():
            out.append(Outcome(c["case"], ln["path"], ln["adapter"],
                               "fail" if ln["status"] == "DIFFERENT" else "pass"))
        if c.get("error") is not None:
            status = str(c["status"]) if c.get("status") in ("crash", "timeout") else "error"
            out.append(Outcome(c["case"], "", "", status, error_code(c["error"])))
    return out


def read_baseline(path: str) -> list[Expectation]:
    """The rows of the baseline file ``path``; raises :class:`BaselineError`."""
    rows = []
    text = read_text(path)
    for number, row in enumerate(csv.reader(io.StringIO(text)), 1):
        if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
            continue
        if len(row) not in (4, 5):
            raise BaselineError(f"{path}: line {number}: {len(row)} columns: a row is case, "
                                f"path, adapter, status[, code]")
        status = row[3].strip()
        if status not in STATUSES:
            raise BaselineError(f"{path}: line {number}: status {status!r}: one of "
                                f"{', '.join(STATUSES)}")
        code = row[4].strip() if len(row) == 5 else ""
        rows.append(Expectation(row[0], row[1], row[2], status, code))
    return rows


def read_flakes(path: str) -> list[str]:
    """The patterns of the flakes file ``path`` (blank and ``#`` lines skipped)."""
    return [ln.strip() for ln in read_text(path).splitlines()
            if ln.strip() and not ln.lstrip().startswith("#")]


def baseline_text(results: Iterable[Outcome]) -> str:
    """A baseline expecting exactly ``results``: a row per result that does not pass (every
    result not listed is expected to pass), each naming its case, path and adapter as they
    are (shell pattern characters escaped)."""
    out = io.StringIO()
    out.write(_HEADER)
    writer = csv.writer(out, lineterminator="\n")
    for o in results:
        if o.status != "pass":
            writer.writerow([_literal(o.case), _literal(o.path) or "*",
                             _literal(o.adapter) or "*", o.status, o.code])
    return out.getvalue()


def _literal(text: str) -> str:
    """``text`` as a shell pattern that matches it alone."""
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in text)


def differences(results: Sequence[Outcome], expected: Sequence[Expectation],
                flakes: Sequence[str] = ()) -> list[str]:
    """One line per result whose status (or error code) is not its expectation's, flakes
    aside: ``new fail``/``new error``/... where a pass was expected, ``unexpected pass``
    where another status was (the baseline must be updated), ``changed`` otherwise."""
    lines = []
    for o in results:
        if any(fnmatch.fnmatchcase(o.case, f) or fnmatch.fnmatchcase(o.label, f)
               for f in flakes):
            continue
        want = next((e for e in expected if e.matches(o)), None)
        status, code = (want.status, want.code) if want is not None else ("pass", "")
        if o.status == status and (not code or o.code == code):
            continue
        got = f"{o.status} {o.code}".strip()
        if status == "pass":
            lines.append(f"baseline: new {got}: {o.label}")
        elif o.status == "pass":
            lines.append(f"baseline: unexpected pass: {o.label} (expected {status}; update "
                         f"the baseline)")
        else:
            lines.append(f"baseline: changed: {o.label}: {got}, expected "
                         f"{f'{status} {code}'.strip()}")
    return lines
