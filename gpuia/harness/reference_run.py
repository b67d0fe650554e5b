"""The CPU reference of a case's Input Assembler: what D3D delivers for its layout, buffers and
draws (the vertex shader plays no part), within the case's invocation limit."""

from __future__ import annotations

from ..errors import CaseError
from ..reference import IAResult, run_ia
from .case import DEFAULT_MAX_INVOCATIONS, Case

__all__ = ["reference_ia", "check_size"]


def check_size(case: Case, max_invocations: int) -> None:
    """Refuse a case whose draws may deliver more vertices than a limit, before any work is
    sized by them. The count is :attr:`Case.invocation_count`, an upper bound (cut indices are
    not subtracted).

    Arguments:
        case (Case): the parsed case.
        max_invocations (int): the limit.

    Raises:
        CaseError: at ``draw``, naming the count and the limit.
    """
    if case.invocation_count > max_invocations:
        raise CaseError("draw", f"the draws deliver up to {case.invocation_count} vertices, more "
                        f"than the limit {max_invocations} (raise it with --max-invocations)")


def reference_ia(case: Case, max_invocations: int = DEFAULT_MAX_INVOCATIONS) -> IAResult:
    """What the Input Assembler delivers for a case (the vertex shader plays no part in it):
    :func:`gpuia.reference.run_ia` over the case's layout, views, draws, topology, index
    buffer and strip cut value.

    Arguments:
        case (Case): the parsed case.
        max_invocations (int): the most vertices the draws may deliver
            (:data:`~gpuia.harness.case.DEFAULT_MAX_INVOCATIONS` by default).

    Returns:
        The :class:`~gpuia.reference.IAResult`.

    Raises:
        CaseError: the draws may deliver more than ``max_invocations`` vertices
            (:func:`check_size`).
    """
    check_size(case, max_invocations)
    return run_ia(case.layout, case.vertex_buffers, case.draws, topology=case.topology.topology,
                  index_buffer=case.index_buffer, strip_cut_value=case.strip_cut_value)
