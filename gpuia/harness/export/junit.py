"""``gpuia check`` as JUnit XML, the report format CI systems read (``docs/exports.md``).

The document follows the common JUnit schema (the one Jenkins, GitLab and most CI readers
accept: ``testsuites`` > ``testsuite`` > ``properties``, ``testcase`` > ``skipped`` /
``error`` / ``failure``):

* one ``testsuite`` per case, named after it, with ``tests``, ``failures``, ``errors``,
  ``skipped`` and ``time``, and a ``property`` per adapter naming its driver
  (``adapter: <summary>`` = ``driver ...; vendor ...; wgpu-native ...``);
* one ``testcase`` per case x adapter x path (each line of ``gpuia check``): ``classname``
  ``gpuia.<case>``, ``name`` ``<adapter summary>: <path>``, ``time`` the run's seconds;
* ``DIFFERENT``: a ``failure`` whose ``message`` is the comparison summary and whose text holds
  the problems and the table; ``not applicable`` and ``not compared``: ``skipped`` with the
  reason; ``OK``: nothing inside;
* a case that could not be checked (invalid input, or no chosen path could run it): a
  ``testcase`` named ``case`` holding an ``error`` with the error line, in the case's suite
  (a suite of its own when the case was not read); an adapter that made no device: a
  ``skipped`` testcase in every case's suite (name ``<adapter>: unavailable``).

Text is written as XML escapes it; characters XML 1.0 cannot hold (control characters) are
replaced by ``\\xNN`` so the file always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the results written
    from ..crosscheck import CheckResult

__all__ = ["junit_xml"]

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(value) -> str:
    """``value`` as text XML 1.0 can carry."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def _seconds(t: float) -> str:
    return f"{max(float(t), 0.0):.3f}"


def _properties(suite, adapters: dict) -> None:
    if not adapters:
        return
    props = ET.SubElement(suite, "properties")
    for summary, facts in adapters.items():
        value = "; ".join(f"{k.replace('_', '-')} {facts[k]}" for k in
                          ("driver", "vendor", "vendor_id", "device_id", "wgpu_native")
                          if facts.get(k) not in (None, ""))
        ET.SubElement(props, "property", name=_text(f"adapter: {summary}"), value=_text(value))


def junit_xml(results: Iterable[CheckResult], *, errors: Iterable[tuple[str, str]] = (),
              unavailable: Sequence[tuple[str, str]] = (), adapters: dict | None = None,
              name: str = "gpuia check") -> str:
    """The JUnit XML document of ``gpuia check`` runs (see the module docstring).

    Arguments:
        results: the :class:`~gpuia.harness.crosscheck.CheckResult` of every checked case,
            in order (their lines need not keep GPU results).
        errors: ``(case label, error line)`` per case that could not be checked (invalid input,
            or nothing compared); a label naming a checked case adds to its suite. Default
            none.
        unavailable: ``(adapter summary, reason)`` per adapter that made no device. Default
            none.
        adapters (dict): adapter summary -> its facts (``driver``, ``vendor``, ``vendor_id``,
            ``device_id``, ``wgpu_native``), written as each suite's properties; None (the
            default) writes none.
        name (str): the ``testsuites`` name. Default ``"gpuia check"``.

    Returns:
        The document as text, with its XML declaration.
    """
    root = ET.Element("testsuites", name=_text(name))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    suites = {}  # case -> (element, counts, seconds)

    def suite_for(case: str):
        if case not in suites:
            suites[case] = (ET.SubElement(root, "testsuite", name=_text(case)),
                            {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}, [0.0])
        return suites[case]

    for result in results:
        suite, counts, seconds = suite_for(result.case)
        _properties(suite, adapters or {})
        for line in result.lines:
            case = ET.SubElement(suite, "testcase", classname=_text(f"gpuia.{result.case}"),
                                 name=_text(f"{line.adapter}: {line.path}"),
                                 time=_seconds(line.seconds))
            seconds[0] += line.seconds
            counts["tests"] += 1
            if line.status == "DIFFERENT":
                counts["failures"] += 1
                body = "\n".join(list(line.problems) + ([line.table] if line.table else []))
                failure = ET.SubElement(case, "failure", message=_text(line.detail),
                                        type="DIFFERENT")
                failure.text = _text(body or line.detail)
            elif line.status != "OK":
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=_text(f"{line.status}: {line.detail}"))
        for summary, reason in unavailable:
            case = ET.SubElement(suite, "testcase", classname=_text(f"gpuia.{result.case}"),
                                 name=_text(f"{summary}: unavailable"), time=_seconds(0))
            ET.SubElement(case, "skipped", message=_text(f"unavailable: {reason}"))
            counts["tests"] += 1
            counts["skipped"] += 1
    for label, message in errors:
        suite, counts, _ = suite_for(label)
        case = ET.SubElement(suite, "testcase", classname=_text(f"gpuia.{label}"), name="case",
                             time=_seconds(0))
        error = ET.SubElement(case, "error", message=_text(message), type="not checked")
        error.text = _text(message)
        counts["tests"] += 1
        counts["errors"] += 1
    total_time = 0.0
    for suite, counts, seconds in suites.values():
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", _seconds(seconds[0]))
        total_time += seconds[0]
    for key in ("tests", "failures", "errors"):
        root.set(key, str(totals[key]))
    root.set("time", _seconds(total_time))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
