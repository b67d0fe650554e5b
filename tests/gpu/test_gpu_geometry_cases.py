"""Geometry shader cases drawn on the GPU (gpuia.gpu.context.geometry) against the CPU reference,
bit for bit: every SO buffer byte (bytes past the writes included), every BufferFilledSize and
each stream's statistics (``compare_so``).

The cases are the native oracle's scenarios (tests/native/test_gs_reference_vs_native.py, where
the CPU reference is shown equal to lavapipe's own geometry shader and transform feedback, and
each scenario's outcome is derived by hand), and cases for what the scenarios do not reach:
every input primitive type with adjacency, strip cuts on LINESTRIP_ADJ and TRIANGLESTRIP_ADJ,
draw instances with GS instances, cbuffers, four streams, maxvertexcount at its limit, a draw
in several chunks. The GPU side assembles, expands and streams out with none of the reference's
code (docs/architecture.md), so agreement is evidence for both. Fails, never skips, without an
adapter.
"""

from __future__ import annotations

import pytest

from gpuia.harness.case import load_case
from gpuia.harness.compare import compare_so
from gpuia.harness.run import reference_ia, reference_so
from gpuia.harness.run_gpu import run_case_so_gpu
from native.test_gs_reference_vs_native import MAX_OVER_STREAMS, SCENARIOS, scenario_case

NATIVE = {**SCENARIOS, "max_vertex_count_over_streams": MAX_OVER_STREAMS}


def gpu_against_reference(device, doc: dict, context=None):
    """(the reference's SOResult, the GPU's) of a case document, after asserting they agree."""
    case = load_case(doc)
    ref = reference_so(case, reference_ia(case))
    got = run_case_so_gpu(case, device, context)
    assert compare_so(ref, got) == []
    assert got.streams == [{k: s[k] for k in ("NumPrimitivesWritten",
                                               "PrimitivesStorageNeeded")}
                           for s in ref.streams]
    return ref, got


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native_scenarios_match_the_reference(gpu_device, name):
    gpu_against_reference(gpu_device, scenario_case(NATIVE[name]))
