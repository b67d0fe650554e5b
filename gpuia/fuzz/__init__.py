"""Differential and invalid-input fuzzing of gpuia (``gpuia fuzz``; ``docs/fuzzing.md``).

* :mod:`gpuia.fuzz.strategies`: hypothesis strategies drawing valid case files.
* :mod:`gpuia.fuzz.corrupt`: the same cases with random corruptions, as case-file bytes.
* :mod:`gpuia.fuzz.engine`: the loop (seeded, chunked generation; running; judging; shrinking
  findings with hypothesis; saving them as case files).
* :mod:`gpuia.fuzz.pool` and :mod:`gpuia.fuzz.worker`: the child processes that run the cases,
  so an abort or a hang is a finding rather than the end of the run.

hypothesis is needed (the ``fuzz`` extra); it is imported when this package is.
"""

from __future__ import annotations

try:
    import hypothesis  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("gpuia fuzz needs hypothesis: pip install 'gpuia[fuzz]'") from e

from .engine import (Finding, FuzzConfig, FuzzReport, Fuzzer, ReferenceRunner, case_digest,
                     generate, invalid_judge, valid_judge)

__all__ = ["Finding", "FuzzConfig", "FuzzReport", "Fuzzer", "ReferenceRunner", "case_digest",
           "generate", "invalid_judge", "valid_judge"]
