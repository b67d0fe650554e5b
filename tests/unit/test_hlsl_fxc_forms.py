"""HLSL that fxc and dxc accept and Slang 2026.12 refuses or miscompiles, taken as fxc takes it
(gpuia.hlsl.source, gpuia.hlsl.emitted).

Expected values are fxc's rules, worked out by hand in the comments:

* ``sampler`` is fxc's legacy name of ``SamplerState`` (a keyword of fxc and dxc);
* a C-style cast of a vector to a narrower one, ``(float3)v``, keeps the first components
  (fxc warns X3206 "implicit truncation of vector type" and truncates; dxc the same);
* ``-M`` negates every element of a matrix.
"""

from __future__ import annotations

import re
import struct

import numpy as np
import pytest

from gpuia.errors import InvalidDescError
from gpuia.hlsl import compile_shader
from gpuia.hlsl import cpu as hcpu


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path / "cache"))


def cpu_outputs(src: str, inputs: dict, n: int, cbuffers=None, entry="main") -> dict:
    shader = hcpu.cpu_shader(compile_shader(src, entry_point=entry))
    return shader.run(inputs, np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32),
                      cbuffers or {})


def floats4(rows) -> np.ndarray:
    return np.asarray(rows, "<f4").view(np.uint32)


def message(excinfo) -> str:
    return str(excinfo.value)


# -- item: the legacy sampler type ---------------------------------------------------------------
def test_the_legacy_sampler_type_is_samplerstate():
    """DirectXTK's effects declare `sampler Sampler : register(s0);` (unused by their vertex
    shaders): it compiles, and the entry's signature is the shader's."""
    shader = compile_shader("Texture2D<float4> Texture : register(t0);\n"
                            "sampler Sampler : register(s0);\n"
                            "float4 main(float4 p : POSITION) : SV_Position { return p; }\n")
    assert [lf.key for lf in shader.leaves] == ["POSITION0", "SV_POSITION0"]


# -- item: C-style truncating vector casts ------------------------------------------------------
CASTS = """
float4 wide(float4 v) { return v * 2; }
struct O { float3 a : TEXCOORD0; int2 b : TEXCOORD1; float3 c : TEXCOORD2; float2 d : TEXCOORD3;
           float3 e : TEXCOORD4; };
O main(float4 p : POSITION, uint4 u : BLENDINDICES) {
    O o;
    o.a = (float3)wide(p);          // a call's result, truncated: 2 * p.xyz
    o.b = (int2)-p;                 // a prefix operator's operand: int2(-p.xy)
    o.c = (float3)u;                // uint4 -> float3: converted and truncated
    o.d = (float2)(p.zw + p.xy).yx; // a parenthesized expression with a swizzle
    o.e = (float3)p.x;              // a scalar is splatted, as before
    return o;
}
"""


def test_truncating_casts_keep_the_first_components_on_the_cpu():
    """p = (1.5, -2.25, 3, 4), u = (7, 8, 9, 10): a = (3, -4.5, 6), b = int2(-1.5, 2.25) =
    (-1, 2) (truncation towards zero), c = (7, 8, 9), d = (3 + 1.5, 4 - 2.25).yx = (1.75,
    4.5), e = (1.5, 1.5, 1.5)."""
    out = cpu_outputs(CASTS, {"POSITION0": floats4([[1.5, -2.25, 3.0, 4.0]]),
                              "BLENDINDICES0": np.array([[7, 8, 9, 10]], np.uint32)}, 1)
    np.testing.assert_array_equal(out["TEXCOORD0"].view(np.float32), [[3.0, -4.5, 6.0]])
    np.testing.assert_array_equal(out["TEXCOORD1"].view(np.int32), [[-1, 2]])
    np.testing.assert_array_equal(out["TEXCOORD2"].view(np.float32), [[7.0, 8.0, 9.0]])
    np.testing.assert_array_equal(out["TEXCOORD3"].view(np.float32), [[1.75, 4.5]])
    np.testing.assert_array_equal(out["TEXCOORD4"].view(np.float32), [[1.5, 1.5, 1.5]])


def test_truncating_casts_keep_the_users_line_numbers():
    """The cast rewrite stays within the line: an error two lines below a cast is at its line."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 p : POSITION) : SV_Position {\n"
                       "    float3 a = (float3)p;\n\n    return float4(a, 1) + nope;\n}\n")
    assert "vertex_shader.hlsl:4" in message(e) and "nope" in message(e)


def test_a_cast_of_a_macro_is_left_as_written():
    """(float3)M where M is a macro: wrapping its expansion in a call could bind differently
    (a + b would become one operand), so the cast is Slang's, as before."""
    shader = compile_shader("#define M p.xyz + 1\n"
                            "float4 main(float4 p : POSITION) : SV_Position\n"
                            "{ return float4((float3)M, 1); }\n")
    assert shader.leaves[0].key == "POSITION0"


# -- item: unary minus on a matrix ---------------------------------------------------------------
NEGATE = """
cbuffer K : register(b0) { float3x3 N; };
float3 main(float3 n : NORMAL) : TEXCOORD0 { return mul(-N, n); }
"""


def test_unary_minus_on_a_matrix_compiles_to_valid_wgsl_and_runs_on_the_cpu():
    """N = [[1,2,3],[4,5,6],[7,8,9]] (column-major: column c in register c), n = (1, 0, -1):
    N n = (1 - 3, 4 - 6, 7 - 9) = (-2, -2, -2), so -N n = (2, 2, 2). Slang's WGSL of -N was
    `mat3x3<f32>(0) - N` (no such constructor) and its C++ did not compile."""
    shader = compile_shader(NEGATE)
    assert not re.search(r"mat\dx\d<f32>\(0\)", shader.wgsl)
    cb = bytearray(44)
    for c in range(3):
        struct.pack_into("<3f", cb, 16 * c, *[1 + c + 3 * r for r in range(3)])
    out = cpu_outputs(NEGATE, {"NORMAL0": floats4([[1.0, 0.0, -1.0]])}, 1, {0: bytes(cb)})
    np.testing.assert_array_equal(out["TEXCOORD0"].view(np.float32), [[2.0, 2.0, 2.0]])
