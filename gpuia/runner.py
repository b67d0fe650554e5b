"""Run a parsed case on a backend and produce its result document.

The CPU backend is the reference (``gpuia.reference``). It runs the pass-through vertex shader
only: a case carrying its own WGSL shader is refused with :class:`UnsupportedError`, as the case
format allows.
"""

from __future__ import annotations

from .case import DEFAULT_MAX_INVOCATIONS, Case, result_json
from .errors import CaseError, UnsupportedError
from .reference import IAResult, run_ia

__all__ = ["run_reference", "run_case"]


def _check_size(case: Case, max_invocations: int) -> None:
    if case.invocation_count > max_invocations:
        raise CaseError("draw", f"the draws deliver up to {case.invocation_count} vertices, more "
                        f"than the limit {max_invocations} (raise it with --max-invocations)")


def run_reference(case: Case, max_invocations: int = DEFAULT_MAX_INVOCATIONS) -> IAResult:
    """The CPU reference Input Assembler over a case."""
    _check_size(case, max_invocations)
    if case.vertex_shader is not None:
        raise UnsupportedError("vertex_shader: the cpu backend runs only the pass-through shader; "
                               "run WGSL shaders with --backend gpu")
    if case.stream_output is not None:
        raise UnsupportedError("stream_output: Stream Output is not available in this gpuia "
                               "version")
    return run_ia(case.layout, case.vertex_buffers, case.draws, topology=case.topology.topology,
                  index_buffer=case.index_buffer, strip_cut_value=case.strip_cut_value)


def run_case(case: Case, backend: str = "cpu",
             max_invocations: int = DEFAULT_MAX_INVOCATIONS) -> tuple[IAResult, dict]:
    """Run a case and return ``(result object, result document)``."""
    if backend != "cpu":
        raise UnsupportedError(f"backend {backend!r} is not available")
    ia = run_reference(case, max_invocations)
    return ia, result_json(case.name, ia)
