"""HLSL vertex shaders, run for real: on the GPU (Stream Output's compute emulation and draws on
both paths) and on the CPU (gpuia's reference of the shader), each against values derived in
numpy from the shader's own math (tests/hlsl_vertex_cases.py), never from gpuia.

Float outputs are compared with a relative tolerance of 1e-5 (shader arithmetic in float32
against numpy in float64), integer outputs exactly. GPU tests fail, never skip, without an
adapter.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.harness.case import load_case
from gpuia.harness.compare import compare_so
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run_gpu import run_case_so_gpu
from gpuia.harness.run import reference_ia, reference_so

import hlsl_vertex_cases as cases

CASES = {f.__name__.removeprefix("case_"): f for f in cases.ALL}


def _decode(so_bytes: bytes, case: cases.VSCase) -> dict:
    layout = case.layout_of_outputs()
    stride = sum(c for _, c, _ in layout)
    words = np.frombuffer(so_bytes, "<u4").reshape(-1, stride)
    out, col = {}, 0
    for key, comps, kind in layout:
        part = words[:, col:col + comps]
        out[key] = {"float": part.view(np.float32), "sint": part.view(np.int32),
                    "uint": part}[kind]
        col += comps
    return out


def _check(got: dict, case: cases.VSCase, who: str) -> None:
    for key, want in case.expected.items():
        have = got[key]
        assert have.shape == want.shape, f"{who} {key}: shape {have.shape} != {want.shape}"
        if want.dtype.kind == "f":
            np.testing.assert_allclose(have.astype(np.float64), want, rtol=1e-5, atol=2e-6,
                                       err_msg=f"{who} {key} ({case.covers})")
        else:
            np.testing.assert_array_equal(have, want, err_msg=f"{who} {key} ({case.covers})")


def test_the_table_covers_what_the_issue_names():
    assert len(CASES) >= 15
    covered = " ".join(f().covers for f in cases.ALL)
    for topic in ("column_major", "row_major", "/Zpr", "pragma", "TEXCOORD0..7", "min16",
                  "SV_VertexID", "out and inout", "WORLD0..3", "SV_Position as a vertex",
                  "never reads", "Stream Output only", "remapped"):
        assert topic in covered, topic


@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_stream_output_matches_numpy(name, gpu_device):
    vs = CASES[name]()
    case = load_case(vs.doc())
    got = run_case_so_gpu(case, gpu_device)
    _check(_decode(got.buffers[0], vs), vs, "GPU")


@pytest.mark.parametrize("name", sorted(CASES))
def test_cpu_reference_matches_numpy(name):
    vs = CASES[name]()
    case = load_case(vs.doc())
    ref = reference_so(case, reference_ia(case))
    _check(_decode(ref.buffers[0], vs), vs, "CPU")


@pytest.mark.parametrize("name", sorted(CASES))
def test_cross_check_passes_on_every_path(name, gpu_device):
    """gpuia check's own verdict: IA inputs exact on the native and pulling draws, Stream
    Output within the stated shader tolerance."""
    case = load_case(CASES[name]().doc())
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()
    statuses = {line.path: line.status for line in result.lines}
    assert statuses["stream output"] == "OK", result.text()
    assert statuses["pulling"] == "OK", result.text()
    assert statuses["native"] in ("OK", "not applicable"), result.text()


def test_a_wrong_cpu_result_is_caught(gpu_device):
    """The tolerant comparison still fails a real difference: a GPU buffer with one float
    nudged by 1% differs from the reference."""
    vs = CASES["cb_column_major"]()
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
