"""HLSL that Slang compiled to WGSL naga refuses, or to C++ g++ refuses: checked when the shader
is compiled (naga, through gpuia's Slang worker, which needs an adapter: these tests fail, never
skip, without one), drawn when gpuia can correct it, and a failed CPU build that leaves every
IA comparison standing. Expected values are derived by hand in the comments."""

from __future__ import annotations

import struct

import pytest

from gpuia.errors import InvalidDescError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.hlsl import compile_shader, library

NEGATE = """cbuffer K : register(b0) { float3x3 N; };
struct O { float4 pos : SV_Position; float3 n : TEXCOORD0; };
O main(float3 n : NORMAL) {
    O o;
    o.n = mul(-N, n);
    o.pos = float4(n, 1);
    return o;
}
"""


@pytest.fixture(autouse=True)
def _fresh_worker(monkeypatch, tmp_path, gpu_device):
    """A disk cache of the test's own, and a Slang worker started now: one started by a unit
    test of the same session saw no adapter and would check nothing."""
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path / "cache"))
    library._WORKER.stop()
    yield
    library._WORKER.stop()


def negate_case(**extra) -> dict:
    """Three normals through -N: N = [[1,2,3],[4,5,6],[7,8,9]] (column c in register c), so
    -N n = -(n.x + 2 n.y + 3 n.z, 4 n.x + 5 n.y + 6 n.z, 7 n.x + 8 n.y + 9 n.z)."""
    cb = bytearray(44)
    for c in range(3):
        struct.pack_into("<3f", cb, 16 * c, *[1 + c + 3 * r for r in range(3)])
    normals = [(1.0, 0.0, 0.0), (0.0, 1.0, -1.0), (0.5, 0.25, 2.0)]
    doc = {"gpuia_case": 1, "name": "negate",
           "input_layout": [{"SemanticName": "NORMAL", "Format": "R32G32B32_FLOAT"}],
           "vertex_buffers": [{"slot": 0, "stride": 12, "data": {"hex": b"".join(
               struct.pack("<3f", *n) for n in normals).hex()}}],
           "primitive_topology": "POINTLIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 3, "InstanceCount": 1,
                                      "StartVertexLocation": 0, "StartInstanceLocation": 0}},
           "vertex_shader": {"hlsl": NEGATE},
           "constant_buffers": [{"slot": 0, "data": {"hex": cb.hex()}}],
           "stream_output": {"declaration": [{"Stream": 0, "SemanticName": "TEXCOORD",
                                              "SemanticIndex": 0, "StartComponent": 0,
                                              "ComponentCount": 3, "OutputSlot": 0}],
                             "buffer_strides": [12], "targets": [{"slot": 0, "size": 36}],
                             "rasterized_stream": "NO_RASTERIZED_STREAM"}}
    doc.update(extra)
    return doc


def test_a_negated_matrix_draws_and_streams_out_on_every_path(gpu_device):
    """-N n for the three normals: (-1, -4, -7); (2 - 3, 5 - 6, 8 - 9) negated = (1, 1, 1);
    -(0.5 + 0.5 + 6, 2 + 1.25 + 12, 3.5 + 2 + 18) = (-7, -15.25, -23.5): the CPU reference
    and the GPU both stream out these values."""
    case = load_case(negate_case())
    result = cross_check(case, [gpu_device], ("native", "pulling"), keep=True)
    assert result.ok, result.text()
    assert {line.path: line.status for line in result.lines}["stream output"] == "OK"
    expected = (-1.0, -4.0, -7.0, 1.0, 1.0, 1.0, -7.0, -15.25, -23.5)
    assert struct.unpack("<9f", bytes(result.so_reference.buffers[0][:36])) == expected
    [so] = [line for line in result.lines if line.path == "stream output"]
    assert struct.unpack("<9f", bytes(so.so_gpu.buffers[0][:36])) == expected


def test_wgsl_naga_refuses_is_refused_when_compiled_at_the_users_line(monkeypatch):
    """Without gpuia's correction of Slang's WGSL for -N (a matrix constructor WGSL lacks),
    the shader is refused by compile_shader (what gpuia validate runs), at line 5 where -N is,
    quoting naga, instead of failing when it is first drawn."""
    import gpuia.hlsl.emitted as emitted

    monkeypatch.setattr(emitted, "FIXES", tuple(f for f in emitted.FIXES if f.target != "wgsl"))
    with pytest.raises(InvalidDescError) as e:
        compile_shader(NEGATE, file_name="negate.hlsl")
    text = str(e.value)
    assert "negate.hlsl:5='o.n = mul(-N, n);'" in text and "naga" in text, text
    assert "mat3x3" in text


def test_a_naga_validation_refusal_names_its_cause(monkeypatch):
    """Naga's validation errors say "Function [0] 'main_0' is invalid" first and the cause in
    a note under it: the refusal gives the cause. Without gpuia's masking of literal shift
    counts, `v << uint2(n, 32u)` is refused for its count of 32 (rules 12.3 mask it)."""
    import gpuia.hlsl.emitted as emitted

    monkeypatch.setattr(emitted, "FIXES", tuple(f for f in emitted.FIXES
                                                if "constant count" not in f.why))
    src = ("uint2 main(uint n : TEXCOORD0) : TEXCOORD0\n"
           "{ return uint2(1u, 2u) << uint2(n, 32u); }\n")
    with pytest.raises(InvalidDescError) as e:
        compile_shader(src, file_name="shift.hlsl")
    assert "Shift amount exceeds the bit width" in str(e.value), str(e.value)


def test_a_cpu_build_that_fails_still_compares_the_ia(tmp_path, monkeypatch, gpu_device):
    """A C++ compiler that refuses the CPU build: every IA line is still compared (OK), and
    the Stream Output line is 'not compared', saying why."""
    fake = tmp_path / "refusing-c++"
    fake.write_text("#!/bin/sh\necho 'refusing-c++: error: this build is refused' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CXX", str(fake))
    result = cross_check(load_case(negate_case()), [gpu_device], ("native", "pulling"))
    statuses = {line.path: line for line in result.lines}
    assert statuses["native"].status == "OK" and statuses["pulling"].status == "OK"
    so = statuses["stream output"]
    assert so.status == "not compared", result.text()
    assert "could not be built" in so.detail and "this build is refused" in so.detail
    assert result.ok
