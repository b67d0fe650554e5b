"""Judging fuzz outcomes: which ones are findings, and of what kind.

:func:`valid_judge` makes a finding of any valid case whose GPU result differs from the
reference, that gpuia refuses as invalid, or that raises, crashes or hangs, and of a run it
calls not applicable without saying why.
:func:`invalid_outcome` classifies a ``gpuia check`` run of a corrupted case by its exit status
and error lines; :func:`invalid_judge` makes a finding of anything but a clean refusal or a
correct run (running out of host memory is clean only for a case that asks for much of it), and
for a case drawn to break one known rule (``(what, content, expect)``), of anything but a clean
refusal naming that rule.
"""

from __future__ import annotations

from .pool import Outcome

VALID_FINDINGS = ("different", "wgpu-refused", "rejected", "error", "crash", "hang",
                  "unexplained")
"""Valid-mode findings. ``ok`` and ``unsupported`` (gpuia refuses the whole case as beyond its
GPU paths, with a reason) are not; ``unexplained`` is a run that is ``not applicable`` without a
reason."""


def valid_judge(value, outcome: Outcome) -> str | None:
    """A finding's kind for a valid case, or None: any GPU result that differs from the
    reference, a case gpuia refuses as invalid, an unexpected exception, a crash or a hang, a
    run (a path, Stream Output) left ``not applicable`` with no reason."""
    if outcome.status in VALID_FINDINGS:
        return outcome.status
    if any(line["status"] == "not applicable" and not line["detail"].strip()
           for line in outcome.lines):
        return "unexplained"
    return None


def invalid_outcome(outcome: Outcome) -> Outcome:
    """Classify a ``gpuia check`` run of a corrupted case: ``ran`` (exit 0), ``refused`` (exit 2
    with exactly one ``error:`` line on stderr), ``out-of-memory`` (the same, the child saying
    the line named the host's MemoryError: ``host_out_of_memory``), ``different`` (exit 1), or
    ``error`` (a traceback, another exit status, or exit 2 without exactly one error line).
    Crashes and hangs stay as they are."""
    if outcome.status in ("crash", "hang"):
        return outcome
    a = outcome.answer
    rc, err = a.get("rc"), a.get("stderr", "")
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    if a.get("traceback") or "Traceback (most recent call last)" in err:
        last = (a.get("traceback") or err).strip().splitlines()[-1]
        status, detail = "error", "a traceback: " + last
    elif rc == 0:
        status, detail = "ran", ""
    elif rc == 2 and len(errors) == 1:
        status = "out-of-memory" if a.get("host_out_of_memory") else "refused"
        detail = errors[0]
    elif rc == 2:
        status, detail = "error", f"exit 2 with {len(errors)} error lines"
    elif rc == 1:
        diffs = [line for line in a.get("stdout", "").splitlines() if ": DIFFERENT" in line]
        status, detail = "different", "; ".join(diffs[:3]) or "exit 1"
    else:
        status, detail = "error", f"exit status {rc}"
    outcome.status, outcome.detail = status, detail
    return outcome


SMALL_DEMAND = {"invocations": 1 << 20, "buffer_bytes": 1 << 28}
"""A case within both bounds needs at most a few hundred MiB of host memory (the reference and
the capture take tens of bytes per vertex and element), far below the child's cap: gpuia running
out of memory on it is a defect, like the 16 GiB index list once planned for a draw of
2^31 indices and no instance. Larger cases may run out of memory under the cap honestly."""


def invalid_judge(value, outcome: Outcome) -> str | None:
    """A corrupted case must be refused cleanly or run correctly; anything else is a finding.
    Running out of host memory is a clean refusal only for a case that asks for much of it
    (beyond :data:`SMALL_DEMAND`). A case drawn to break one rule, ``(what, content,
    expect)``, must be refused cleanly with ``expect`` in its error line: running it is an
    ``accepted`` finding, a refusal naming something else a ``wrong-refusal``."""
    expect = value[2] if isinstance(value, tuple) and len(value) > 2 else None
    if expect is not None and outcome.status in ("ran", "refused", "out-of-memory"):
        if outcome.status == "ran":
            return "accepted"
        return None if expect in outcome.detail else "wrong-refusal"
    if outcome.status == "out-of-memory":
        demand = outcome.answer.get("demand") or {}
        small = all(demand.get(k, 1 << 62) <= bound for k, bound in SMALL_DEMAND.items())
        return "out-of-memory" if small else None
    return None if outcome.status in ("ran", "refused") else outcome.status
