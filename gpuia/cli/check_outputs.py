"""The JUnit and HTML reports of ``gpuia check`` written from its JSON report's records
(:mod:`gpuia.harness.check_report`): what ``gpuia report merge`` writes from the shards'
reports and ``gpuia check --workers`` from its workers' answers, the same documents as
``gpuia check`` in one process writes from its results.
"""

from __future__ import annotations

from ..util.files import write_atomic

__all__ = ["write_junit", "write_html"]


def write_junit(path: str, report) -> None:
    """The JUnit XML report of ``report`` (a :class:`~gpuia.harness.check_report.Report`)."""
    from ..harness.export.junit import junit_xml

    checked, invalid = report.results()
    write_atomic(path, junit_xml([r for r, _ in checked], errors=invalid,
                                 unavailable=report.unavailable, adapters=report.adapters,
                                 sources=[src for _, src in checked]))


def write_html(path: str, report, command: str | None) -> None:
    """The HTML report of ``report``, whose cases carry their views (a check with
    ``--html``), with ``command`` in its header."""
    from ..harness.report.html import render_report
    from ..harness.report.view_codec import view_from_json

    views = [view_from_json(c.view) for c in report.cases if c.view is not None]
    errors = [f"{c.case}: {c.error}" for c in report.cases if c.error is not None]
    write_atomic(path, render_report(
        views, errors=errors, unavailable=[f"{s}: {r}" for s, r in report.unavailable],
        command=command))
