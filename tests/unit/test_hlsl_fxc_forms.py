"""HLSL that fxc and dxc accept and Slang 2026.12 refuses or miscompiles, taken as fxc takes it
(gpuia.hlsl.source, gpuia.hlsl.emitted), and refusals that name the user's name and line instead
of something of gpuia's (a crash, a generated file, a nameless error).

Expected values are fxc's rules, worked out by hand in the comments:

* ``sampler`` is fxc's legacy name of ``SamplerState`` (a keyword of fxc and dxc);
* a C-style cast of a vector to a narrower one, ``(float3)v``, keeps the first components
  (fxc warns X3206 "implicit truncation of vector type" and truncates; dxc the same);
* ``-M`` negates every element of a matrix;
* names are Unicode identifiers: a non-ASCII name is a name like any other.
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


def test_a_legacy_sampler_the_entry_uses_is_a_sampler_state():
    """Sampling through a legacy sampler binds it as the SamplerState it is, at its register
    (docs/resources.md), beside the texture."""
    shader = compile_shader("\nTexture2D<float4> Tex : register(t0);\n"
                            "sampler Samp : register(s3);\n"
                            "float4 main(float4 p : POSITION) : SV_Position\n"
                            "{ return Tex.SampleLevel(Samp, p.xy, 0); }\n")
    assert [(s.name, s.register) for s in shader.samplers] == [("Samp", 3)]
    assert [(t.name, t.register, t.sampled) for t in shader.textures] == [("Tex", 0, True)]


def test_a_cube_the_entry_samples_through_an_fxc_sampler_is_bound():
    """A cube sampled through fxc's ``sampler`` keyword binds both (rules 17.9), the sampler
    marked as a cube's (point filters only)."""
    shader = compile_shader("\nTextureCube<float4> Tex : register(t0);\n"
                            "sampler Samp : register(s0);\n"
                            "float4 main(float4 p : POSITION) : SV_Position\n"
                            "{ return Tex.SampleLevel(Samp, p.xyz, 0); }\n")
    assert [(t.name, t.cube, t.hlsl_type) for t in shader.textures] == [
        ("Tex", True, "TextureCube")]
    assert [(s.name, s.cube) for s in shader.samplers] == [("Samp", True)]


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


def test_a_cast_of_a_macro_is_left_as_written(tmp_path):
    """(float3)HALF where HALF is `i / j`, defined in an included file: the cast applies to i
    alone, so with i = 7, j = 2 the value is float3(7) / 2 = 3.5 each; wrapping the expansion in
    a call would make it (float3)(7 / 2) = 3. A macro's cast is left to Slang."""
    (tmp_path / "ratio.h").write_text("#define HALF i / j\n")
    src = ('#include "ratio.h"\n'
           "float3 main(int i : INDEX0, int j : INDEX1) : TEXCOORD0 { return (float3)HALF; }\n")
    shader = hcpu.cpu_shader(compile_shader(src, include_dirs=[tmp_path]))
    out = shader.run({"INDEX0": np.array([[7]], np.uint32), "INDEX1": np.array([[2]], np.uint32)},
                     np.arange(1, dtype=np.uint32), np.zeros(1, np.uint32), {})
    np.testing.assert_array_equal(out["TEXCOORD0"].view(np.float32), [[3.5, 3.5, 3.5]])


def test_a_define_inside_a_comment_is_no_macro():
    """A #define line inside /* */ defines nothing: (float3)v4 of the variable v4 is still a
    truncating cast (it was left to Slang, which refused it, E30019)."""
    shader = compile_shader("/*\n#define v4 unused\n*/\n"
                            "float4 main(float4 v4 : POSITION) : SV_Position "
                            "{ return float4((float3)v4, 1); }\n")
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


# -- item: refusals that name the user's name and line ------------------------------------------
def test_non_ascii_names_compile():
    """décalage @0 and größe @16 (a float4 fills register 0): Unicode identifiers, as fxc and
    dxc take them; they used to end Slang's worker (its reflection JSON escapes non-ASCII
    bytes the way C does, which is not JSON)."""
    shader = compile_shader("cbuffer K : register(b0) { float4 décalage; float größe; };\n"
                            "struct Sortie { float4 pos : SV_Position; float4 cölor : COLOR; };\n"
                            "Sortie main(noperspective float4 pö : POSITION) {\n"
                            "    Sortie o; o.pos = pö + décalage; o.cölor = pö * größe; "
                            "return o; }\n")
    cb = shader.constant_buffers[0]
    assert {m.path: m.d3d for m in cb.members}["K.größe"] == 16
    assert {m.path: m.d3d for m in cb.members}["K.décalage.w"] == 12
    assert [lf.declaration for lf in shader.leaves] == ["pö", "return.pos", "return.cölor"]


def test_a_missing_entry_point_with_defines_is_named():
    """With defines a macro could make the entry's name, so only Slang can tell it is missing;
    its first error is a nameless 'undefined identifier': the refusal names the entry."""
    src = "float4 vs_main(float4 p : POSITION) : SV_Position { return p * SCALE; }\n"
    with pytest.raises(InvalidDescError) as e:
        compile_shader(src, entry_point="main", defines={"SCALE": "2"}, file_name="mesh.hlsl")
    assert e.value.field == "entry_point"
    assert "mesh.hlsl has no function main" in message(e)


@pytest.mark.parametrize("src,line,name", [
    ("float4 main(float4 p : POSITION) : SV_Position\n{ return p; }\nstruct hlslw_in { float x; };",
     3, "hlslw_in"),
    ("\ntypedef float4 gpuia_row_major_float3x4;\ncbuffer K { row_major float3x4 B[2]; };\n"
     "float4 main(float4 p : POSITION) : SV_Position { return p + B[1][0]; }", 2,
     "gpuia_row_major_float3x4"),
    ("float4 main(float4 p : GPUIA_SV_Position) : SV_Position { return p; }", 1,
     "GPUIA_SV_Position"),
])
def test_a_name_spelled_like_gpuias_is_refused_at_its_line(src, line, name):
    """Names starting hlslw_ or gpuia_ (any case) are gpuia's generated ones: refused at the
    user's line, not as a clash inside a file the user does not have."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader(src)
    assert f"vertex_shader.hlsl:{line}='{name}'" in message(e) and "gpuia's own" in message(e)


def test_an_array_of_typed_buffers_is_refused_at_its_declaration():
    """An array of Buffer<float4> read by the entry (a typed buffer alone is bound,
    tests/unit/test_typed_buffers.py): the refusal is at the declaration (line 3), naming the
    type, not at gpuia's wrapper."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("cbuffer K : register(b0) { float4 k; };\n\n"
                       "Buffer<float4> Positions[2] : register(t0);\n"
                       "float4 main(uint id : SV_VertexID) : SV_Position "
                       "{ return Positions[1][id] + k; }\n", file_name="pull.hlsl")
    assert message(e).startswith("pull.hlsl:3: resource Positions='Buffer<float4>'")
    assert "wrapper" not in message(e)


def test_a_feature_webgpu_lacks_is_refused_at_the_users_use():
    """msad4 is not available for WGSL: Slang places the error on gpuia's wrapper entry; the
    refusal is at the user's call (line 2, column 13) that its note names."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 p : POSITION, uint4 q : Q) : SV_Position {\n"
                       " return p + msad4(q.x, q.xy, q); }\n", file_name="sad.hlsl")
    assert "sad.hlsl:2:13" in message(e) and "msad4" in message(e)
    assert "gpuia-wrapper" not in message(e)
