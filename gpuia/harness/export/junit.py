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
  ``skipped`` testcase in every case's suite (name ``<adapter>: unavailable``);
* every result is a suite of its own, so no suite holds two testcases of one name: where two
  suites would share a name (two case files whose cases have one name), each is named
  ``<case> (<source>)`` after the input it came from, and ``<case> (<source> #N)`` where even
  that is shared (one file given twice; ``<case> #N`` where the source is not known); names
  used once are kept as they are, and ``classname`` is ``gpuia.<suite name>``.

Text is written as XML escapes it; characters XML 1.0 cannot hold (control characters) are
replaced by ``\\xNN``, and lone surrogates (how Python holds an undecodable byte of a file
name: 0xff is U+DCFF) by ``\\uNNNN`` (``\\udcff``), so the file always parses and is UTF-8.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the results written
    from ..crosscheck import CheckResult

__all__ = ["junit_xml"]

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _text(value) -> str:
    """``value`` as text XML 1.0 can carry and UTF-8 can encode."""
    return _NOT_XML.sub(lambda m: _escape(m.group()), str(value))


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


@dataclass
class _Suite:
    """One input's suite: its case label, the input it came from, its result (None for a case
    that was not checked) and its error lines."""

    label: str
    source: str | None
    result: CheckResult | None = None
    errors: list[str] = field(default_factory=list)


def _suites(results: Iterable[CheckResult], sources: Sequence[str | None] | None,
            errors: Iterable[tuple]) -> list[_Suite]:
    """A suite per result, in order, then one per error that joins none: an error joins the
    first suite of its label and source that has no error yet (the case it belongs to)."""
    suites = [_Suite(r.case, None if sources is None else sources[i], r)
              for i, r in enumerate(results)]
    waiting: dict[str, list[_Suite]] = {}  # label -> its suites without an error, in order
    for s in suites:
        waiting.setdefault(s.label, []).append(s)
    for label, message, *source in errors:
        src = source[0] if source else None
        group = waiting.get(label, [])
        home = next((s for s in group if src is None or s.source == src), None)
        if home is None:
            home = _Suite(label, src)
            suites.append(home)
        else:
            group.remove(home)
        home.errors.append(message)
    return suites


def _names(suites: list[_Suite]) -> list[str]:
    """Each suite's name: its label where no other suite has it, else ``label (source)``, with
    ``#N`` (its place among them) where the source is shared too or unknown."""
    labels = Counter(s.label for s in suites)
    places = Counter((s.label, s.source) for s in suites)
    seen: Counter = Counter()
    out = []
    for s in suites:
        key = (s.label, s.source)
        seen[key] += 1
        number = f"#{seen[key]}" if places[key] > 1 else ""
        if labels[s.label] == 1:
            out.append(s.label)
        elif s.source is None:
            out.append(f"{s.label} {number}" if number else s.label)
        else:
            out.append(f"{s.label} ({' '.join(filter(None, (s.source, number)))})")
    return out


def _lines(suite, classname: str, result: CheckResult, counts: dict) -> float:
    """A testcase per line of ``result`` in ``suite``, counted in ``counts``; returns their
    seconds."""
    seconds = 0.0
    for line in result.lines:
        case = ET.SubElement(suite, "testcase", classname=classname,
                             name=_text(f"{line.adapter}: {line.path}"),
                             time=_seconds(line.seconds))
        seconds += line.seconds
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
    return seconds


def junit_xml(results: Iterable[CheckResult], *, errors: Iterable[tuple] = (),
              unavailable: Sequence[tuple[str, str]] = (), adapters: dict | None = None,
              name: str = "gpuia check", sources: Sequence[str | None] | None = None) -> str:
    """The JUnit XML document of ``gpuia check`` runs (see the module docstring).

    Arguments:
        results: the :class:`~gpuia.harness.crosscheck.CheckResult` of every checked case,
            in order (their lines need not keep GPU results).
        errors: ``(case label, error line)`` or ``(case label, error line, source)`` per case
            that could not be checked (invalid input, or nothing compared); one naming a
            checked case (and its source, when given) adds to that case's suite. Default none.
        unavailable: ``(adapter summary, reason)`` per adapter that made no device. Default
            none.
        adapters (dict): adapter summary -> its facts (``driver``, ``vendor``, ``vendor_id``,
            ``device_id``, ``wgpu_native``), written as each suite's properties; None (the
            default) writes none.
        name (str): the ``testsuites`` name. Default ``"gpuia check"``.
        sources (list): per result, the input it came from (a file name as the user gave it),
            shown only where two suites would have one name; None (the default): unknown.

    Returns:
        The document as text, with its XML declaration.
    """
    root = ET.Element("testsuites", name=_text(name))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    suites = _suites(results, sources, errors)
    written = []  # (element, counts, seconds) per suite
    for entry, suite_name in zip(suites, _names(suites), strict=True):
        suite = ET.SubElement(root, "testsuite", name=_text(suite_name))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        seconds = 0.0
        classname = _text(f"gpuia.{suite_name}")
        if entry.result is not None:
            _properties(suite, adapters or {})
            seconds = _lines(suite, classname, entry.result, counts)
            for summary, reason in unavailable:
                case = ET.SubElement(suite, "testcase", classname=classname,
                                     name=_text(f"{summary}: unavailable"), time=_seconds(0))
                ET.SubElement(case, "skipped", message=_text(f"unavailable: {reason}"))
                counts["tests"] += 1
                counts["skipped"] += 1
        for message in entry.errors:
            case = ET.SubElement(suite, "testcase", classname=classname, name="case",
                                 time=_seconds(0))
            error = ET.SubElement(case, "error", message=_text(message), type="not checked")
            error.text = _text(message)
            counts["tests"] += 1
            counts["errors"] += 1
        written.append((suite, counts, seconds))
    total_time = 0.0
    for suite, counts, seconds in written:
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", _seconds(seconds))
        total_time += seconds
    for key in ("tests", "failures", "errors"):
        root.set(key, str(totals[key]))
    root.set("time", _seconds(total_time))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
