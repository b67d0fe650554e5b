"""HLSL vertex shaders, run for real on the GPU: Stream Output's compute emulation and draws on
both paths, each against values derived in numpy from the shader's own math
(tests/hlsl_vertex_cases.py), never from gpuia; tests/unit/test_hlsl_vertex.py runs the same
shaders on the CPU reference.

Float outputs are compared with a relative tolerance of 1e-5 (shader arithmetic in float32
against numpy in float64), integer outputs exactly. The tests fail, never skip, without an
adapter.
"""

from __future__ import annotations

import numpy as np
import pytest

import hlsl_vertex_cases as cases
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare_so
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import reference_ia, reference_so
from gpuia.harness.run_gpu import run_case_so_gpu


@pytest.mark.parametrize("name", sorted(cases.BY_NAME))
def test_gpu_stream_output_matches_numpy(name, gpu_device):
    vs = cases.BY_NAME[name]()
    case = load_case(vs.doc())
    got = run_case_so_gpu(case, gpu_device)
    cases.check_outputs(cases.decode_outputs(got.buffers[0], vs), vs, "GPU")


@pytest.mark.parametrize("name", sorted(cases.BY_NAME))
def test_cross_check_passes_on_every_path(name, gpu_device):
    """gpuia check's own verdict: IA inputs exact on the native and pulling draws, Stream
    Output within the stated shader tolerance."""
    case = load_case(cases.BY_NAME[name]().doc())
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()
    statuses = {line.path: line.status for line in result.lines}
    assert statuses["stream output"] == "OK", result.text()
    assert statuses["pulling"] == "OK", result.text()
    assert statuses["native"] in ("OK", "not applicable"), result.text()


def test_a_wrong_cpu_result_is_caught(gpu_device):
    """The tolerant comparison still fails a real difference: a GPU buffer with one float
    nudged by 1% differs from the reference."""
    vs = cases.BY_NAME["cb_column_major"]()
    case = load_case(vs.doc())
    ref = reference_so(case, reference_ia(case))
    got = run_case_so_gpu(case, gpu_device)
    assert compare_so(ref, got) == []
    words = bytearray(got.buffers[0])
    value = np.frombuffer(bytes(words[8:12]), np.float32)[0]
    words[8:12] = np.float32(value * 1.01 + 0.01).tobytes()
    got.buffers[0] = bytes(words)
    problems = compare_so(ref, got)
    assert problems and "beyond the tolerance" in problems[0]

