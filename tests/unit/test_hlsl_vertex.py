"""HLSL vertex shaders on the CPU (gpuia's reference of the shader) against values derived in
numpy from the shader's own math (tests/hlsl_vertex_cases.py), never from gpuia;
tests/gpu/test_hlsl_vertex_gpu.py runs the same shaders on the GPU.

Float outputs are compared with a relative tolerance of 1e-5 (shader arithmetic in float32
against numpy in float64), integer outputs exactly.
"""

from __future__ import annotations

import pytest

import hlsl_vertex_cases as cases
from gpuia.harness.case import load_case
from gpuia.harness.run import reference_ia, reference_so


def test_the_table_covers_what_the_issue_names():
    assert len(cases.BY_NAME) >= 15
    covered = " ".join(f().covers for f in cases.ALL)
    for topic in ("column_major", "row_major", "/Zpr", "pragma", "TEXCOORD0..7", "min16",
                  "SV_VertexID", "out and inout", "WORLD0..3", "SV_Position as a vertex",
                  "never reads", "Stream Output only", "remapped"):
        assert topic in covered, topic


@pytest.mark.parametrize("name", sorted(cases.BY_NAME))
def test_cpu_reference_matches_numpy(name):
    vs = cases.BY_NAME[name]()
    case = load_case(vs.doc())
    ref = reference_so(case, reference_ia(case))
    cases.check_outputs(cases.decode_outputs(ref.buffers[0], vs), vs, "CPU")

