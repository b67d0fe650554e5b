"""Differential and invalid-input fuzzing of gpuia (``gpuia fuzz``; ``docs/fuzzing.md``).

* :mod:`gpuia.fuzz.strategies`: hypothesis strategies drawing valid case files.
* :mod:`gpuia.fuzz.corrupt`: the same cases with random corruptions, as case-file bytes.
* :mod:`gpuia.fuzz.engine`: the loop (seeded, chunked generation; running; judging; shrinking
  findings with hypothesis; saving them as case files).
* :mod:`gpuia.fuzz.pool` and :mod:`gpuia.fuzz.worker`: the child processes that run the cases,
  so an abort or a hang is a finding rather than the end of the run; :mod:`gpuia.fuzz.runs`:
  how a valid case runs (the harness's cross-check) and what a case asks of memory. The
  invalid mode's children run the command line, which is above this package: their module is
  :mod:`gpuia.cli.fuzz_child`, given to :class:`Fuzzer` as its ``worker_command``.

hypothesis is needed (the optional ``fuzz`` extra); importing this package without it raises
:class:`gpuia.errors.UnsupportedError` naming the extra.
"""

from __future__ import annotations

from ..errors import UnsupportedError

try:
    import hypothesis  # noqa: F401
except ImportError:
    raise UnsupportedError("gpuia fuzz needs hypothesis, the optional extra 'fuzz': "
                           "pip install 'gpuia[fuzz]'") from None

from .engine import (
    Finding,
    FuzzConfig,
    Fuzzer,
    FuzzReport,
    ReferenceRunner,
    case_digest,
    default_jobs,
    generate,
    invalid_judge,
    valid_judge,
)

__all__ = ["Finding", "FuzzConfig", "FuzzReport", "Fuzzer", "ReferenceRunner", "case_digest",
           "default_jobs", "generate", "invalid_judge", "valid_judge"]
