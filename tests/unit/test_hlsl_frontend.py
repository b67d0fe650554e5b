"""The HLSL front end without a GPU (gpuia.hlsl): signature leaves, pixel-shader interpolation,
D3D constant-buffer packing, refusals, the source rewrites, defines and includes, the compile
cache, a missing compiler and the WGSL it produces.

Every expected value here comes from D3D's rules, worked out by hand in the comments, never from
gpuia:

* signature (fxc/dxc): an array of N takes N consecutive semantic indices; a matrix takes one
  index per column when column_major (the default) and one per row when row_major, so index n
  is column (or row) n;
* cbuffer packing ("Packing rules for constant variables"): 16-byte registers; a scalar or
  vector never straddles two; arrays, matrices and structs start a register, every array
  element starts a register and the last element (or matrix column/row) is unpadded, so the
  next scalar may pack into the last register;
* interpolation (D3D_INTERPOLATION_MODE): nointerpolation is constant (WGSL flat),
  noperspective is linear without perspective (WGSL linear), centroid/sample change where it
  is sampled, no modifier is perspective-correct at the pixel center.

Compiles take a fraction of a second each; the disk cache is kept in a temporary folder so
that no test reads or writes the user's cache.
"""

from __future__ import annotations

import json
import os
import re

import pytest

import gpuia.hlsl.frontend as frontend
import gpuia.hlsl.library as library
import gpuia.hlsl.source as source
from gpuia.errors import InvalidDescError
from gpuia.hlsl import compile_shader
from gpuia.hlsl.reflect import Leaf
from gpuia.wgsl.signature import (
    ShaderSignature,
    parse_pixel_shader,
    parse_vertex_shader,
    uniform_slots,
)


# -- helpers ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def _module_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("hlsl-cache")


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, _module_cache):
    """Every test compiles into a temporary disk cache, never the user's."""
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(_module_cache))


def vs_with(cbuffers: str, expr: str, **kw):
    """A vertex shader that declares ``cbuffers`` and adds ``expr`` to its position."""
    return compile_shader(cbuffers + "\nfloat4 main(float4 p : POSITION) : SV_Position\n"
                          "{ return p + " + expr + "; }\n", **kw)


def the_cbuffer(shader):
    assert len(shader.constant_buffers) == 1, shader.constant_buffers
    return shader.constant_buffers[0]


def d3d_offsets(cb) -> dict[str, int]:
    return {m.path: m.d3d for m in cb.members}


def kinds(cb) -> dict[str, str]:
    return {m.path: m.kind for m in cb.members}


def leaf_rows(shader, direction=None):
    """(direction, key, kind, components) per leaf."""
    return [(lf.direction, lf.key, lf.kind, lf.components) for lf in shader.leaves
            if direction is None or lf.direction == direction]


def refusal(excinfo) -> str:
    return str(excinfo.value)


# -- 1. signature leaves ------------------------------------------------------------------------
def test_struct_members_are_leaves_with_their_declarations():
    """Each member of a struct parameter is a leaf named param.member with its own semantic."""
    s = compile_shader("""
struct VSIn { float3 pos : POSITION; float4 col : COLOR1; };
float4 main(VSIn v) : SV_Position { return float4(v.pos, 1) + v.col; }
""")
    assert all(isinstance(lf, Leaf) for lf in s.leaves)
    got = [(lf.direction, lf.semantic, lf.index, lf.kind, lf.components, lf.declaration)
           for lf in s.leaves]
    assert got == [("in", "POSITION", 0, "float", 3, "v.pos"),
                   ("in", "COLOR", 1, "float", 4, "v.col"),
                   ("out", "SV_POSITION", 0, "float", 4, "return")]
    assert all(lf.matrix is None and lf.interpolation is None for lf in s.leaves)


def test_an_array_takes_consecutive_semantic_indices():
    """float2 t[2] : TEXCOORD3 is TEXCOORD3 (t[0]) and TEXCOORD4 (t[1])."""
    s = compile_shader("""
float4 main(float4 p : POSITION, float2 t[2] : TEXCOORD3) : SV_Position
{ return p + t[0].xyxy + t[1].xyxy; }
""")
    tex = [lf for lf in s.leaves if lf.semantic == "TEXCOORD"]
    assert [(lf.index, lf.components, lf.declaration) for lf in tex] == \
        [(3, 2, "t[0]"), (4, 2, "t[1]")]


def test_column_major_matrix_takes_one_index_per_column():
    """column_major float4x4 w : WORLD is WORLD0..3, column n at index n, 4 components each."""
    s = compile_shader("""
float4 main(float4 p : POSITION, column_major float4x4 w : WORLD) : SV_Position
{ return mul(w, p); }
""")
    world = [lf for lf in s.leaves if lf.semantic == "WORLD"]
    assert [(lf.index, lf.components, lf.kind) for lf in world] == \
        [(n, 4, "float") for n in range(4)]
    # matrix = (rows, columns, column_major, which column/row)
    assert [lf.matrix for lf in world] == [(4, 4, True, n) for n in range(4)]


def test_default_matrix_packing_is_column_major():
    """float4x4 without a modifier is column-major too (fxc/dxc's default)."""
    s = compile_shader("float4 main(float4x4 w : WORLD) : SV_Position { return w[0]; }")
    assert [lf.matrix for lf in s.leaves if lf.direction == "in"] == \
        [(4, 4, True, n) for n in range(4)]


def test_row_major_matrix_takes_one_index_per_row():
    """row_major float4x3 m : WORLD is 4 rows of 3 components, WORLD0..3."""
    s = compile_shader("""
float4 main(float4 p : POSITION, row_major float4x3 m : WORLD) : SV_Position
{ return p + float4(m[3], 0); }
""")
    world = [lf for lf in s.leaves if lf.semantic == "WORLD"]
    assert [(lf.key, lf.components) for lf in world] == [(f"WORLD{n}", 3) for n in range(4)]
    assert [lf.matrix for lf in world] == [(4, 3, False, n) for n in range(4)]


def test_non_square_column_major_matrix():
    """float2x3 (2 rows, 3 columns), column-major by default: 3 leaves of 2 components."""
    s = compile_shader("""
float4 main(float4 p : POSITION, float2x3 q : Q) : SV_Position { return p + q[1].xyzx; }
""")
    q = [lf for lf in s.leaves if lf.semantic == "Q"]
    assert [(lf.index, lf.components) for lf in q] == [(0, 2), (1, 2), (2, 2)]
    assert [lf.matrix for lf in q] == [(2, 3, True, n) for n in range(3)]


def test_matrix_layout_row_major_applies_to_signature_matrices():
    """With matrix_layout='row_major' (/Zpr) float2x3 is 2 rows of 3; column_major overrides."""
    s = compile_shader("""
float4 main(float2x3 r : R, column_major float4x3 c : C) : SV_Position
{ return r[0].xyzx + c[0].xyzx; }
""", matrix_layout="row_major")
    assert [(lf.key, lf.components, lf.matrix) for lf in s.leaves if lf.direction == "in"] == [
        ("R0", 3, (2, 3, False, 0)), ("R1", 3, (2, 3, False, 1)),
        ("C0", 4, (4, 3, True, 0)), ("C1", 4, (4, 3, True, 1)), ("C2", 4, (4, 3, True, 2))]


def test_inout_parameter_is_one_input_and_one_output():
    """An inout parameter is read from the input signature and written to the output one."""
    s = compile_shader("""
float4 main(inout float4 c : COLOR, float4 p : POSITION) : SV_Position { c *= 2; return p; }
""")
    color = [(lf.direction, lf.declaration) for lf in s.leaves if lf.key == "COLOR0"]
    assert color == [("in", "c"), ("out", "c")]
    assert {n: d for n, _, d in s.entry.params}["c"] == "inout"


def test_out_parameters_and_the_return_value_are_outputs():
    """out parameters and the return semantic are outputs; an out array takes indices too."""
    s = compile_shader("""
float4 main(float4 p : POSITION, out float4 o : SV_Position, out float2 t[2] : TEXCOORD5)
    : TEXCOORD0
{ o = p; t[0] = p.xy; t[1] = p.zw; return p; }
""")
    assert leaf_rows(s, "out") == [("out", "SV_POSITION0", "float", 4),
                                   ("out", "TEXCOORD5", "float", 2),
                                   ("out", "TEXCOORD6", "float", 2),
                                   ("out", "TEXCOORD0", "float", 4)]
    assert [lf.declaration for lf in s.leaves if lf.direction == "out"] == \
        ["o", "t[0]", "t[1]", "return"]


def test_system_values_and_sv_position_input():
    """SV_VertexID/SV_InstanceID are uint leaves; SV_Position is an ordinary float4 input."""
    s = compile_shader("""
float4 main(uint vid : SV_VertexID, uint iid : SV_InstanceID, float4 pos : SV_Position)
    : SV_Position
{ return pos + vid + iid; }
""")
    assert leaf_rows(s) == [("in", "SV_VERTEXID0", "uint", 1), ("in", "SV_INSTANCEID0", "uint", 1),
                            ("in", "SV_POSITION0", "float", 4), ("out", "SV_POSITION0", "float", 4)]


def test_min16_half_and_bool_types():
    """min16float4 and half2 are 32-bit floats (no 16-bit types); bool is kind bool."""
    s = compile_shader("""
float4 main(min16float4 a : A, half2 b : B, bool c : C, bool4 d : D, int2 e : E, uint3 f : F)
    : SV_Position
{ return a + b.xyxy + (c ? 1 : 0) + (d.x ? 1 : 0) + e.x + f.x; }
""")
    assert leaf_rows(s, "in") == [("in", "A0", "float", 4), ("in", "B0", "float", 2),
                                  ("in", "C0", "bool", 1), ("in", "D0", "bool", 4),
                                  ("in", "E0", "sint", 2), ("in", "F0", "uint", 3)]


def test_shader_signature_keys_and_types():
    """shader.signature names members by semantic+index with float/uint/sint types."""
    s = compile_shader("""
struct VSOut { float4 pos : SV_Position; int2 idx : IDX; uint id : ID; };
VSOut main(float4x4 w : WORLD, uint vid : SV_VertexID, int2 i : IDX, bool b : FLAG)
{ VSOut o; o.pos = w[2]; o.idx = i; o.id = vid + (b ? 1 : 0); return o; }
""")
    sig = s.signature
    assert isinstance(sig, ShaderSignature)
    ins = {m.key: (m.type, m.components) for m in sig.inputs}
    assert ins == {"WORLD0": ("float", 4), "WORLD1": ("float", 4), "WORLD2": ("float", 4),
                   "WORLD3": ("float", 4), "SV_VERTEXID0": ("uint", 1), "IDX0": ("sint", 2),
                   "FLAG0": ("uint", 1)}  # bool travels as a uint word
    outs = {m.key: (m.type, m.components) for m in sig.outputs}
    assert outs == {"SV_POSITION0": ("float", 4), "IDX0": ("sint", 2), "ID0": ("uint", 1)}
    assert sig.input("WORLD2").type == "float" and sig.output("SV_POSITION0") is not None


def test_semantics_are_case_insensitive_and_default_to_index_0():
    """'texcoord1' is TEXCOORD1; 'NORMAL' (no digits) is NORMAL0."""
    s = compile_shader("float4 main(float4 a : texcoord1, float4 n : NORMAL) : sv_position "
                       "{ return a + n; }")
    assert [lf.key for lf in s.leaves] == ["TEXCOORD1", "NORMAL0", "SV_POSITION0"]


# -- 2. pixel shader interpolation --------------------------------------------------------------
PS_INTERP = """
float4 main(float4 pos : SV_Position, nointerpolation float4 a : A, noperspective float4 b : B,
            centroid float4 c : C, sample float4 d : D, float4 e : E, linear float4 f : F)
    : SV_Target
{ return pos + a + b + c + d + e + f; }
"""
INTERP_WANT = {"A0": "flat", "B0": "linear", "C0": "perspective, centroid",
               "D0": "perspective, sample", "E0": None, "F0": None, "SV_POSITION0": None}


def test_pixel_interpolation_modifiers_on_leaves():
    """nointerpolation=flat, noperspective=linear, centroid/sample; none or linear is None."""
    s = compile_shader(PS_INTERP, stage="pixel")
    got = {lf.key: lf.interpolation for lf in s.leaves if lf.direction == "in"}
    assert got == INTERP_WANT


def test_pixel_interpolation_modifiers_on_the_signature():
    """The WGSL signature's inputs carry the same @interpolate arguments."""
    s = compile_shader(PS_INTERP, stage="pixel")
    assert {m.key: m.interpolation for m in s.signature.inputs} == INTERP_WANT
    assert "@interpolate(flat)" in s.wgsl and "@interpolate(perspective, centroid)" in s.wgsl


def test_pixel_interpolation_on_struct_members():
    """Modifiers written on struct members apply to those members' leaves."""
    s = compile_shader("""
struct PSIn { float4 pos : SV_Position; nointerpolation uint id : ID;
              noperspective float2 uv : TEXCOORD0; float3 n : NORMAL; };
float4 main(PSIn i) : SV_Target0 { return i.pos + i.id + i.uv.xyxy + i.n.xyzx; }
""", stage="pixel")
    got = {lf.key: lf.interpolation for lf in s.leaves if lf.direction == "in"}
    assert got == {"SV_POSITION0": None, "ID0": "flat", "TEXCOORD0": "linear", "NORMAL0": None}
    assert s.signature.input("ID0").interpolation == "flat"


def test_pixel_parameter_modifier_overrules_struct_members():
    """D3D: 'nointerpolation PSIn i' makes every member of i flat, overriding member modifiers."""
    s = compile_shader("""
struct PSIn { float4 a : A; noperspective float4 b : B; };
float4 main(nointerpolation PSIn i) : SV_Target { return i.a + i.b; }
""", stage="pixel")
    assert {lf.key: lf.interpolation for lf in s.leaves if lf.direction == "in"} == \
        {"A0": "flat", "B0": "flat"}


@pytest.mark.parametrize("mods,want", [("noperspective centroid", "linear, centroid"),
                                       ("linear centroid", "perspective, centroid"),
                                       ("noperspective sample", "linear, sample")])
def test_combined_interpolation_modifiers(mods, want):
    """D3D_INTERPOLATION_LINEAR_NOPERSPECTIVE_CENTROID etc. exist: the pairs are valid HLSL."""
    s = compile_shader(f"float4 main({mods} float4 q : Q) : SV_Target {{ return q; }}",
                       stage="pixel")
    assert s.leaves[0].interpolation == want


def test_pixel_outputs_have_no_interpolation():
    """SV_Target outputs carry no interpolation; several targets keep their indices."""
    s = compile_shader("""
struct O { float4 a : SV_Target0; float4 b : SV_Target3; };
O main(float4 x : COLOR) { O o; o.a = x; o.b = x; return o; }
""", stage="pixel")
    assert [(lf.key, lf.interpolation) for lf in s.leaves if lf.direction == "out"] == \
        [("SV_TARGET0", None), ("SV_TARGET3", None)]


# -- 3. constant buffer D3D offsets -------------------------------------------------------------
# Each case: (cbuffer text, an expression reading it, {member path: D3D offset} by hand,
# D3D size in bytes). Member paths are name[row][column] for matrices and .x/.y/.z/.w for
# vectors.
CB_CASES = {
    # a @0; b: 4 + 8 <= 16, so it packs into register 0 at 4. Size 12.
    "float_then_float2": ("cbuffer K { float a; float2 b; };", "a + b.x",
                          {"K.a": 0, "K.b.x": 4, "K.b.y": 8}, 12),
    # every element starts a register: w[k] @16k; the last is unpadded (ends at 36), x @36.
    "float_array_then_float": ("cbuffer K { float w[3]; float x; };", "w[2] + x",
                               {"K.w[0]": 0, "K.w[1]": 16, "K.w[2]": 32, "K.x": 36}, 40),
    # column-major: register c holds column c, so m[r][c] @16c + 4r; the last column ends at
    # 32 + 12 = 44, where s packs.
    "column_major_3x3_then_float": (
        "cbuffer K { float3x3 m; float s; };", "m[0].x + s",
        {**{f"K.m[{r}][{c}]": 16 * c + 4 * r for r in range(3) for c in range(3)}, "K.s": 44},
        48),
    # row-major: register r holds row r, r[i][j] @16i + 4j: r[1][2] @16 + 8. Size 16 + 12.
    "row_major_2x3": ("cbuffer K { row_major float2x3 r; };", "r[1].z",
                      {f"K.r[{i}][{j}]": 16 * i + 4 * j for i in range(2) for j in range(3)}, 28),
    # struct array: element k @16k, fields d @0, i @12 inside it; L ends at 32, t @32.
    "struct_array_then_float": (
        "struct Light { float3 d; float i; };\ncbuffer K { Light L[2]; float t; };",
        "L[1].i + t",
        {"K.L[0].d.x": 0, "K.L[0].d.z": 8, "K.L[0].i": 12, "K.L[1].d.x": 16,
         "K.L[1].d.z": 24, "K.L[1].i": 28, "K.t": 32}, 36),
    # float4x4 M[2] column-major: M[k][r][c] @64k + 16c + 4r; M[1][2][3] @64 + 48 + 8 = 120.
    "matrix_array": ("cbuffer K : register(b5) { float4x4 M[2]; };", "M[1][2][3]",
                     {f"K.M[{k}][{r}][{c}]": 64 * k + 16 * c + 4 * r
                      for k in range(2) for r in range(4) for c in range(4)}, 128),
    # bool is a 32-bit word @0, int @4; uint3 would straddle (8 + 12 > 16): next register.
    "bool_int_uint3": ("cbuffer K { bool b; int i; uint3 u; };", "b + i + u.x",
                       {"K.b": 0, "K.i": 4, "K.u.x": 16, "K.u.y": 20, "K.u.z": 24}, 28),
    # packing-rules page: 'float1 Val1; float3 Val2;' is one register: b @4 (4 + 12 = 16).
    "float_then_float3": ("cbuffer K { float a; float3 b; };", "a + b.x",
                          {"K.a": 0, "K.b.x": 4, "K.b.y": 8, "K.b.z": 12}, 16),
    # float2 after float3 would straddle (12 + 8 > 16): it starts register 1.
    "float3_then_float2": ("cbuffer K { float3 a; float2 b; };", "a.x + b.x",
                           {"K.a.x": 0, "K.a.z": 8, "K.b.x": 16, "K.b.y": 20}, 24),
    # float2 w[2]: w[0] @0, w[1] @16, unpadded end 24; float2 x fits at 24 (24 + 8 = 32).
    "float2_array_then_float2": ("cbuffer K { float2 w[2]; float2 x; };", "w[1].x + x.y",
                                 {"K.w[0].x": 0, "K.w[0].y": 4, "K.w[1].x": 16, "K.w[1].y": 20,
                                  "K.x.x": 24, "K.x.y": 28}, 32),
    # float2x3 column-major: 3 columns of 2, m[r][c] @16c + 4r, ends at 32 + 8 = 40; s @40.
    "column_major_2x3_then_float": (
        "cbuffer K { float2x3 m; float s; };", "m[1].z + s",
        {**{f"K.m[{r}][{c}]": 16 * c + 4 * r for r in range(2) for c in range(3)}, "K.s": 40},
        44),
    # A struct starts a register; its size is not rounded up (LLVM's LegacyCBufferLayout for
    # DXIL; DXC's reflection reports unrounded struct sizes), so t packs into its last
    # register at 16 + 12 = 28. (The packing-rules page says a struct forces the next
    # variable to a new register, which would put t at 32; LLVM's reimplementation of the
    # compilers' layout does not. Not verified against fxc itself.)
    "struct_then_float": ("struct S3 { float3 d; };\ncbuffer K { float4 v; S3 s; float t; };",
                          "v + s.d.x + t",
                          {"K.v.x": 0, "K.v.w": 12, "K.s.d.x": 16, "K.s.d.z": 24, "K.t": 28},
                          32),
}


@pytest.mark.parametrize("name", sorted(CB_CASES))
def test_cbuffer_member_offsets_follow_d3d_packing(name):
    """Every scalar's D3D offset is where D3D's packing rules put it (derived by hand)."""
    text, expr, want, size = CB_CASES[name]
    cb = the_cbuffer(vs_with(text, expr))
    got = d3d_offsets(cb)
    for path, off in want.items():
        assert got.get(path) == off, (path, got)
    assert cb.size == size


def test_cbuffer_covers_every_scalar_exactly_once():
    """A float3x3 then a float: 9 + 1 members, all distinct 4-byte words."""
    cb = the_cbuffer(vs_with(*CB_CASES["column_major_3x3_then_float"][:2]))
    assert len(cb.members) == 10
    assert len({m.d3d for m in cb.members}) == 10 and all(m.d3d % 4 == 0 for m in cb.members)


def test_cbuffer_member_kinds():
    """Members keep their scalar kind: bool, sint, uint."""
    cb = the_cbuffer(vs_with(*CB_CASES["bool_int_uint3"][:2]))
    assert kinds(cb) == {"K.b": "bool", "K.i": "sint", "K.u.x": "uint", "K.u.y": "uint",
                         "K.u.z": "uint"}


def test_row_major_matrix_layout_changes_cbuffer_packing():
    """matrix_layout='row_major' (/Zpr): float4x3 is 4 rows of 3, m[r][c] @16r + 4c."""
    cb = the_cbuffer(vs_with("cbuffer K { float4x3 m; float s; };", "m[0].x + s",
                             matrix_layout="row_major"))
    got = d3d_offsets(cb)
    for r in range(4):
        for c in range(3):
            assert got[f"K.m[{r}][{c}]"] == 16 * r + 4 * c
    assert got["K.s"] == 60  # the last row ends at 48 + 12


def test_pragma_pack_matrix_before_all_matrices_is_the_default():
    """#pragma pack_matrix(row_major) ahead of every matrix makes them row-major."""
    cb = the_cbuffer(vs_with("#pragma pack_matrix(row_major)\ncbuffer K { float4x4 M; };",
                             "M[0]"))
    got = d3d_offsets(cb)
    assert got["K.M[0][1]"] == 4 and got["K.M[1][0]"] == 16


def _slang_hlsl_field_offsets(src: str) -> dict[str, int]:
    """Top-level cbuffer field offsets from Slang's own reflection of its -target hlsl compile."""
    prepared = source.prepare(src, "x.hlsl", "column_major")
    out = library.compile_source(prepared.text, "x.hlsl", "main", "vertex", "hlsl",
                                 frontend.slang_args("column_major"))
    offsets = {}
    for p in out.reflection["parameters"]:
        if p["type"]["kind"] != "constantBuffer":
            continue
        for f in p["type"]["elementType"]["fields"]:
            offsets[f"{p['name']}.{f['name']}"] = f["binding"]["offset"]
    return offsets


@pytest.mark.parametrize("name", sorted(CB_CASES))
def test_cbuffer_offsets_agree_with_slangs_hlsl_reflection(name):
    """Each top-level member starts where Slang's D3D (-target hlsl) layout puts it."""
    text, expr, _, _ = CB_CASES[name]
    src = text + "\nfloat4 main(float4 p : POSITION) : SV_Position\n{ return p + " + expr + "; }\n"
    slang = _slang_hlsl_field_offsets(src)
    cb = the_cbuffer(compile_shader(src))
    ours = {}
    for m in cb.members:
        top = re.match(r"^\w+\.\w+", m.path).group(0)
        ours[top] = min(ours.get(top, m.d3d), m.d3d)
    assert ours == slang


@pytest.mark.parametrize("text,expr,remapped", [
    ("cbuffer K { float4 v; float4x4 M; float4 w; };", "v + M[0] + w", False),
    ("cbuffer K { float4x4 A; float4x4 B[2]; };", "A[0] + B[1][0]", False),
    ("cbuffer K { float a; float2 b; };", "a + b.x", True),  # b: D3D 4, WGSL 8
    ("cbuffer K { float w[3]; float x; };", "w[2] + x", True),  # x: D3D 36, WGSL 48
    ("cbuffer K { float4 v; bool flag; };", "v + (flag ? 1 : 0)", True),  # bool: no WGSL bool
])
def test_cbuffer_is_remapped_exactly_when_wgsl_differs(text, expr, remapped):
    """remapped when a D3D offset differs from WGSL's or a bool exists, else not."""
    cb = the_cbuffer(vs_with(text, expr))
    assert cb.remapped is remapped
    differs = any(m.d3d != m.wgsl or m.kind == "bool" for m in cb.members)
    assert differs is remapped


@pytest.mark.parametrize("slot", [0, 3, 7])
def test_cbuffer_slot_is_its_register(slot):
    """cbuffer K : register(bN) is root constant buffer slot N."""
    s = vs_with(f"cbuffer K : register(b{slot}) {{ float4 v; }};", "v")
    assert the_cbuffer(s).slot == slot
    assert s.constant_buffer_slots == (slot,) and s.constant_buffer(slot).name == "K"


def test_cbuffers_without_register_take_the_lowest_free_ones():
    """Unbound cbuffers fill the lowest registers the bound ones leave free."""
    s = vs_with("cbuffer A : register(b0) { float4 a; };\ncbuffer B { float4 b; };\n"
                "cbuffer C : register(b2) { float4 c; };\ncbuffer D { float4 d; };",
                "a + b + c + d")
    assert {cb.name: cb.slot for cb in s.constant_buffers} == {"A": 0, "B": 1, "C": 2, "D": 3}
    s = vs_with("cbuffer A : register(b1) { float4 a; };\ncbuffer B { float4 b; };", "a + b")
    assert {cb.name: cb.slot for cb in s.constant_buffers} == {"A": 1, "B": 0}


def test_constant_buffer_template_form():
    """ConstantBuffer<T> : register(b4) is a cbuffer at slot 4 with T's members."""
    s = vs_with("struct P { float4 a; float b; };\nConstantBuffer<P> CB : register(b4);",
                "CB.a + CB.b")
    cb = the_cbuffer(s)
    assert cb.slot == 4 and d3d_offsets(cb) == {"CB.a.x": 0, "CB.a.y": 4, "CB.a.z": 8,
                                                "CB.a.w": 12, "CB.b": 16}


def test_unread_cbuffer_is_not_listed():
    """Only the cbuffers the entry reads are constant buffers of the shader."""
    s = vs_with("cbuffer Used : register(b1) { float4 u; };\n"
                "cbuffer Unused : register(b2) { float4 n; };", "u")
    assert [cb.name for cb in s.constant_buffers] == ["Used"]


def test_cbuffer_names_starting_with_sv_are_the_users():
    """A member named sv_bias is reported as K.sv_bias, not gpuia's internal rename."""
    s = vs_with("cbuffer sv_consts { float4 sv_bias; };", "sv_bias")
    cb = the_cbuffer(s)
    assert cb.name == "sv_consts"
    assert [m.path for m in cb.members][0] == "sv_consts.sv_bias.x"


# -- 4. refusals --------------------------------------------------------------------------------
def test_undefined_identifier_reports_the_users_line():
    """A Slang error names the user's file:line and the identifier; InvalidDescError."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 p : POSITION) : SV_Position\n{\n"
                       "    return p + undefinedThing;\n}\n", file_name="mine.hlsl")
    msg = refusal(e)
    assert "mine.hlsl:3:" in msg and "undefinedThing" in msg


def test_syntax_error_reports_the_users_line():
    """A syntax error on line 4 is reported at :4: (the prelude does not shift lines)."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("// a comment\nfloat4 main(float4 p : POSITION) : SV_Position\n{\n"
                       "    return p +;\n}\n")
    assert "vertex_shader.hlsl:4:" in refusal(e)


def test_line_numbers_survive_the_rewrites():
    """After a pragma, a row_major matrix array and SV_ renames the error is still at :6:."""
    src = ("#pragma pack_matrix(row_major)\n"
           "cbuffer K { row_major float3x4 Bones[2]; };\n"
           "float4 main(float4 p : SV_Position) : SV_Position\n"
           "{\n"
           "    float4 q = mul(Bones[0], p).xyzx;\n"
           "    return q + missingName;\n"
           "}\n")
    with pytest.raises(InvalidDescError) as e:
        compile_shader(src)
    msg = refusal(e)
    assert ":6:" in msg and "missingName" in msg
    assert "GPUIA" not in msg and "gpuia_" not in msg  # gpuia's names are restored


def test_slang_diagnostics_are_kept_on_the_error():
    """The whole diagnostic text, at the user's names, travels on the error."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 p : SV_Position) : SV_Position "
                       "{ return p + nope; }")
    assert "nope" in e.value.diagnostics and "GPUIA_SV_" not in e.value.diagnostics


@pytest.mark.parametrize("decl,use,name", [
    ("Texture2DMS<float4> MyTex;", "MyTex.Load(int2(0, 0), 0)", "MyTex"),
    ("RWTexture2D<float4> MyRW;", "MyRW[int2(0, 0)]", "MyRW"),
    ("RWBuffer<float3> MyTyped;", "MyTyped[0].xyzz", "MyTyped"),  # 3 components: 12 vs 16 B
])
def test_resources_the_entry_uses_are_refused(decl, use, name):
    """gpuia binds cbuffers and a vertex shader's StructuredBuffer / ByteAddressBuffer / Buffer
    (tests/unit/test_hlsl_shader_resources.py), their RW forms (tests/gpu/test_gpu_uavs.py),
    Texture1D, Texture2D, Texture2DArray, Texture3D and samplers (tests/gpu/test_gpu_textures.py,
    tests/gpu/test_gpu_texture_dimensions.py): a used multisampled texture, a texture UAV or a typed
    buffer UAV of 3 components is refused by name."""
    with pytest.raises(InvalidDescError) as e:
        vs_with(decl, use)
    assert f"resource {name}" in refusal(e)


def test_a_cube_texture_load_is_refused():
    """D3D's ld takes no TextureCube: a cube's Load is refused naming it as a resource."""
    with pytest.raises(InvalidDescError) as e:
        vs_with("TextureCube MyTex;", "MyTex.Load(int4(0, 0, 0, 0))")
    assert e.value.field == "resource MyTex"
    assert "TextureCube" in str(e.value) and "rules 17.9" in str(e.value)


def test_pixel_shader_uav_is_refused():
    """A pixel shader's RWStructuredBuffer is refused naming it (UAVs: vertex shaders only)."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("RWStructuredBuffer<float4> PsOut : register(u1);\n"
                       "float4 main(float4 c : COLOR0) : SV_Target "
                       "{ PsOut[0] = c; return c; }", stage="pixel")
    assert e.value.field == "resource PsOut"


def test_pixel_shader_texture_is_refused():
    """A pixel shader that samples a texture is refused naming the texture."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("Texture2D PsTex;\nSamplerState PsSamp;\n"
                       "float4 main(float2 uv : TEXCOORD0) : SV_Target "
                       "{ return PsTex.Sample(PsSamp, uv); }", stage="pixel")
    assert e.value.field in ("resource PsTex", "resource PsSamp")


def test_declared_but_unused_resources_are_fine():
    """Resources the entry never reads do not matter."""
    s = vs_with("Texture2D Unused;\nSamplerState AlsoUnused;\nRWStructuredBuffer<uint> U2;\n"
                "cbuffer K { float4 v; };", "v")
    assert [cb.name for cb in s.constant_buffers] == ["K"]


def test_cbuffer_outside_space0_is_refused():
    """register(b0, space1) is refused naming the cbuffer and space1."""
    with pytest.raises(InvalidDescError) as e:
        vs_with("cbuffer Spaced : register(b0, space1) { float4 k; };", "k")
    msg = refusal(e)
    assert "space1" in msg and "Spaced" in msg


def test_double_in_cbuffer_is_refused():
    """A double member is refused (WGSL has no f64) with InvalidDescError."""
    with pytest.raises(InvalidDescError):
        vs_with("cbuffer K { float4 k; double Thickness64; };", "k + (float)Thickness64")


def test_double_in_cbuffer_refusal_names_the_member():
    """The refusal of a double member names it (K.Thickness64)."""
    with pytest.raises(InvalidDescError) as e:
        vs_with("cbuffer K { float4 k; double Thickness64; };", "k + (float)Thickness64")
    assert "Thickness64" in refusal(e)


def test_int64_in_cbuffer_is_refused_naming_the_member():
    """An int64_t member is refused naming the cbuffer member."""
    with pytest.raises(InvalidDescError) as e:
        vs_with("cbuffer K { int64_t Big64; };", "(float)Big64")
    msg = refusal(e)
    assert "K.Big64" in msg and "64" in msg


def test_double_input_is_refused():
    """A double signature input is refused naming the parameter."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 p : POSITION, double dblIn : DBL) : SV_Position "
                       "{ return p + (float)dblIn; }")
    msg = refusal(e)
    assert "dblIn" in msg and "64-bit" in msg


@pytest.mark.parametrize("decl,semantic", [
    ("bool4 x : SV_IsFrontFace", "SV_ISFRONTFACE"),
    ("uint p : SV_PrimitiveID", "SV_PRIMITIVEID"),
    ("uint s : SV_SampleIndex", "SV_SAMPLEINDEX"),
])
def test_vertex_shader_system_values_it_cannot_take(decl, semantic):
    """A VS reads only SV_VertexID/SV_InstanceID (and SV_Position as an element)."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader(f"float4 main(float4 q : POSITION, {decl}) : SV_Position {{ return q; }}")
    assert semantic in refusal(e).upper()


def test_sv_vertex_id_must_be_a_scalar():
    """SV_VertexID as uint2 is refused naming the declaration."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(uint2 vid2 : SV_VertexID) : SV_Position { return vid2.x; }")
    msg = refusal(e)
    assert "vid2" in msg and "SV_VERTEXID" in msg.upper()


def test_vertex_shader_without_outputs_is_refused():
    """A VS that writes nothing is refused naming its outputs."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("void main(float4 p : POSITION) { }")
    assert "outputs" in refusal(e)


def test_uniform_entry_parameter_is_refused():
    """uniform float4 k on the entry is refused naming k."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 p : POSITION, uniform float4 kUniform) : SV_Position "
                       "{ return p + kUniform; }")
    msg = refusal(e)
    assert "kUniform" in msg and "uniform" in msg


@pytest.mark.parametrize("src,name", [
    ("float4 main(float4 p : POSITION, float4 noSem) : SV_Position { return p + noSem; }",
     "noSem"),
    ("float4 main(float4 p : POSITION) { return p; }", "return"),
    ("struct S { float4 a : A; float4 bare; };\n"
     "float4 main(S sIn) : SV_Position { return sIn.a + sIn.bare; }", "sIn.bare"),
])
def test_leaf_without_semantic_is_refused(src, name):
    """Every input and output needs a semantic; the refusal names the declaration."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader(src)
    msg = refusal(e)
    assert f"{name}=" in msg and "semantic" in msg


def test_semantic_on_a_struct_parameter_is_refused():
    """S s : SEM is refused naming s and SEM."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("struct S { float4 a : A; };\n"
                       "float4 main(S sParam : SEMX) : SV_Position { return sParam.a; }")
    msg = refusal(e)
    assert "sParam" in msg and "SEMX" in msg


def test_array_of_structs_in_the_signature_is_refused():
    """S s[2] : SEM is refused naming s as an array of structs."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("struct S { float4 a : A; };\n"
                       "float4 main(S sArr[2] : SEM) : SV_Position { return sArr[0].a; }")
    msg = refusal(e)
    assert "sArr" in msg and "arrays of structs" in msg


def test_array_of_structs_with_member_semantics_is_refused():
    """S s[2] whose members carry semantics is refused naming s."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("struct S { float4 a : A; };\n"
                       "float4 main(S sArr[2]) : SV_Position { return sArr[0].a; }")
    assert "sArr" in refusal(e)


def test_array_of_structs_refusal_gives_the_right_reason():
    """The refusal of S s[2] says arrays of structs are not supported."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("struct S { float4 a : A; };\n"
                       "float4 main(S sArr[2]) : SV_Position { return sArr[0].a; }")
    assert "arrays of structs" in refusal(e)


def test_duplicate_output_semantic_is_refused():
    """Two outputs with TEXCOORD0 are refused naming both declarations."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("struct O { float4 p : SV_Position; float4 first : TEXCOORD0; "
                       "float4 second : TEXCOORD0; };\n"
                       "O main(float4 p : POSITION) { O o; o.p = p; o.first = p; o.second = p; "
                       "return o; }")
    msg = refusal(e)
    assert "TEXCOORD0" in msg and "return.first" in msg and "return.second" in msg


def test_duplicate_input_semantic_through_an_array_is_refused():
    """float4 q[2] : TEXCOORD0 also takes TEXCOORD1, which p already has."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 p : TEXCOORD1, float4 q[2] : TEXCOORD0) : SV_Position "
                       "{ return p + q[0]; }")
    msg = refusal(e)
    assert "TEXCOORD1" in msg and "q[1]" in msg


def test_mixed_pack_matrix_modes_are_refused_naming_both_lines():
    """A column-major matrix (line 1), pragma row_major, another matrix (line 3): refused."""
    with pytest.raises(InvalidDescError) as e:
        vs_with("cbuffer A { float4x4 M1; };\n#pragma pack_matrix(row_major)\n"
                "cbuffer B { float4x4 M2; };", "M1[0] + M2[0]")
    msg = refusal(e)
    assert "line 1" in msg and "line 3" in msg and "pack_matrix" in msg


def test_bare_matrix_keyword_before_pack_matrix_pragma():
    """'matrix M1;' (float4x4) then pragma row_major then float4x4 M2: mixed modes, refused."""
    with pytest.raises(InvalidDescError):
        vs_with("cbuffer A { matrix M1; };\n#pragma pack_matrix(row_major)\n"
                "cbuffer B { float4x4 M2; };", "M1[0] + M2[0]")


def test_unknown_pack_matrix_argument_is_refused():
    """#pragma pack_matrix(push) is refused naming the line."""
    with pytest.raises(InvalidDescError) as e:
        vs_with("cbuffer A { float4 v; };\n#pragma pack_matrix(push)", "v")
    assert "vertex_shader.hlsl:2" in refusal(e)


def test_major_modifier_on_a_macro_matrix_array_is_refused():
    """row_major MYMAT arr[2] with #define MYMAT float4x4 is refused (Slang would ignore it)."""
    with pytest.raises(InvalidDescError) as e:
        vs_with("#define MYMAT float4x4\ncbuffer A { row_major MYMAT arr[2]; };", "arr[0][0]")
    msg = refusal(e)
    assert "MYMAT" in msg and "vertex_shader.hlsl:2" in msg


@pytest.mark.parametrize("kw,field,value", [
    ({"entry_point": "1main"}, "entry_point", "1main"),
    ({"entry_point": "ma in"}, "entry_point", "ma in"),
    ({"entry_point": "hlslw_main"}, "entry_point", "hlslw_main"),
    ({"entry_point": "gpuia_vs"}, "entry_point", "gpuia_vs"),
    ({"matrix_layout": "rowmajor"}, "matrix_layout", "rowmajor"),
    ({"defines": {"1N": "3"}}, "defines", "1N"),
    ({"defines": {"A-B": "3"}}, "defines", "A-B"),
    ({"defines": {"N": "3\n4"}}, "defines.N", "3\n4"),
    ({"defines": {"N": 3}}, "defines.N", 3),
    ({"stage": "geometry"}, "stage", "geometry"),
    ({"stage": "compute"}, "stage", "compute"),
])
def test_bad_arguments_are_refused(kw, field, value):
    """Entry point, matrix layout, define names/values and stage are checked and named."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 p : POSITION) : SV_Position { return p; }", **kw)
    assert e.value.field == field and e.value.value == value
    assert f"{field}={value!r}" in refusal(e)


def test_empty_source_is_refused():
    """Blank source text is refused."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("  \n\t")
    assert e.value.field == "hlsl"


def test_missing_entry_point_is_refused():
    """An entry point that is not in the source is refused with InvalidDescError."""
    with pytest.raises(InvalidDescError):
        compile_shader("float4 main(float4 p : POSITION) : SV_Position { return p; }",
                       entry_point="vsOther")


def test_missing_entry_point_refusal_names_it():
    """The refusal of entry_point='vsOther' names vsOther."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 p : POSITION) : SV_Position { return p; }",
                       entry_point="vsOther")
    assert "vsOther" in refusal(e)


@pytest.mark.parametrize("out_decl,key", [
    ("float d : SV_Depth", "SV_DEPTH0"),
    ("float4 t : SV_Target8", "SV_TARGET8"),
    ("float4 c : COLOR0", "COLOR0"),
])
def test_pixel_outputs_other_than_sv_target0_7_are_refused(out_decl, key):
    """A PS writes only SV_Target0..7; others are refused naming the semantic."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader(f"void main(float4 x : COLOR, out {out_decl}) {{ {out_decl.split()[1]} = "
                       f"x.x; }}", stage="pixel")
    assert key in refusal(e).upper()


def test_pixel_system_value_inputs_other_than_position_are_refused():
    """A PS reading SV_PrimitiveID is refused naming it."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 x : COLOR, uint prim : SV_PrimitiveID) : SV_Target "
                       "{ return x + prim; }", stage="pixel")
    assert "SV_PRIMITIVEID" in refusal(e).upper()


def test_row_major_matrix_array_input():
    """row_major float4x4 M[2] : M is M0..M7, one row each (M[1] row r at index 4 + r)."""
    s = compile_shader("float4 main(row_major float4x4 M[2] : M) : SV_Position "
                       "{ return M[0][0] + M[1][1]; }")
    rows = [(lf.key, lf.components, lf.matrix) for lf in s.leaves if lf.direction == "in"]
    assert rows == [(f"M{4 * k + r}", 4, (4, 4, False, r)) for k in range(2) for r in range(4)]


def test_matrix_array_input_without_modifier():
    """float2x4 M[2] : M (column-major) is M0..M7, 4 columns of 2 per element."""
    s = compile_shader("float4 main(float2x4 M[2] : M) : SV_Position "
                       "{ return M[0][0] + M[1][1]; }")
    rows = [(lf.key, lf.components, lf.matrix, lf.declaration) for lf in s.leaves
            if lf.direction == "in"]
    assert rows == [(f"M{4 * k + c}", 2, (2, 4, True, c), f"M[{k}]")
                    for k in range(2) for c in range(4)]


# -- 5. source rewrites -------------------------------------------------------------------------
REWRITE_SRC = ("cbuffer K { row_major float3x4 Bones[2]; };\n"
               "float4 main(float4 p : SV_Position) : SV_Position\n"
               "{\n"
               "    return mul(Bones[1], p).xyzx;\n"
               "}\n")


def _user_part(prepared, file_name="x.hlsl") -> tuple[str, str]:
    directive = f'#line 1 "{file_name}"\n'
    assert prepared.text.count(directive) == 1
    prelude, user = prepared.text.split(directive)
    return prelude, user


def test_prepare_keeps_the_users_line_count():
    """The text after the #line 1 directive has exactly the input's lines."""
    prepared = source.prepare(REWRITE_SRC, "x.hlsl", "column_major")
    _, user = _user_part(prepared)
    assert user.count("\n") == REWRITE_SRC.count("\n")
    assert user.splitlines()[3].strip().startswith("return mul(Bones[1], p)")


def test_prepare_renames_system_value_semantics():
    """SV_Position becomes GPUIA_SV_Position in the user's text."""
    _, user = _user_part(source.prepare(REWRITE_SRC, "x.hlsl", "column_major"))
    assert "GPUIA_SV_Position" in user and re.search(r"(?<!GPUIA_)\bSV_Position", user) is None


def test_prepare_rewrites_a_row_major_matrix_array_to_a_typedef():
    """row_major float3x4 Bones[2] uses a typedef of 'row_major float3x4' from the prelude."""
    prepared = source.prepare(REWRITE_SRC, "x.hlsl", "column_major")
    prelude, user = _user_part(prepared)
    [(name, spelling)] = prepared.typedefs.items()
    assert spelling == "row_major float3x4"
    assert f"{name} Bones[2]" in user and re.search(r"\brow_major\b", user) is None
    assert f"typedef row_major float3x4 {name};" in prelude


def test_prepare_pack_matrix_pragma_sets_the_default():
    """#pragma pack_matrix(row_major) before all matrices: matrix_layout row_major, lines kept."""
    src = "#pragma pack_matrix(row_major)\ncbuffer K { float4x4 M; };\n"
    prepared = source.prepare(src, "x.hlsl", "column_major")
    assert prepared.matrix_layout == "row_major"
    _, user = _user_part(prepared)
    assert user.count("\n") == src.count("\n") and "pack_matrix" not in user


def test_prepare_without_pragma_keeps_the_given_layout():
    """Without a pragma the layout argument is the default; a pragma in a comment is ignored."""
    src = "// #pragma pack_matrix(row_major)\ncbuffer K { float4x4 M; };\n"
    assert source.prepare(src, "x.hlsl", "column_major").matrix_layout == "column_major"
    assert source.prepare(src, "x.hlsl", "row_major").matrix_layout == "row_major"


@pytest.mark.parametrize("markers", [False, True])
def test_a_pragma_in_a_block_comment_is_not_one(markers):
    """A #pragma pack_matrix line inside /* */ is a comment (it ended in StopIteration): the
    real pragma after it still counts, and alone it changes nothing."""
    commented = "/*\n#pragma pack_matrix(column_major)\n*/\n"
    real = commented + "#pragma pack_matrix(row_major)\ncbuffer K { float4x4 M; };\n"
    alone = commented + "cbuffer K { float4x4 M; };\n"
    assert source.prepare(real, "x.hlsl", "column_major", markers=markers).pragmas == 1
    assert source.prepare(alone, "x.hlsl", "column_major", markers=markers).pragmas == 0
    if not markers:
        assert source.prepare(real, "x.hlsl", "column_major").matrix_layout == "row_major"
        assert source.prepare(alone, "x.hlsl", "row_major").matrix_layout == "row_major"


def test_restore_maps_gpuia_names_back():
    """restore() turns GPUIA_SV_ and the typedef names back into the user's spelling."""
    prepared = source.prepare(REWRITE_SRC, "x.hlsl", "column_major")
    [name] = prepared.typedefs
    text = f"x.hlsl:1: cannot use '{name}' with GPUIA_SV_Position"
    assert source.restore(text, prepared) == \
        "x.hlsl:1: cannot use 'row_major float3x4' with SV_Position"


def test_row_major_matrix_array_in_cbuffer_is_honoured():
    """After the typedef rewrite row_major float3x4 Bones[2] packs by rows: stride 48."""
    cb = the_cbuffer(vs_with("cbuffer K { row_major float3x4 Bones[2]; };", "Bones[1][2]"))
    got = d3d_offsets(cb)
    # row-major 3x4: 3 registers of 4; element k @48k; Bones[k][r][c] @48k + 16r + 4c
    for k in range(2):
        for r in range(3):
            for c in range(4):
                assert got[f"K.Bones[{k}][{r}][{c}]"] == 48 * k + 16 * r + 4 * c


# -- 6. defines and includes ---------------------------------------------------------------------
DEFINE_SRC = """
#if N == 3
cbuffer K { float4 three; };
#define PICK three
#else
cbuffer K { float4 other; };
#define PICK other
#endif
float4 main(float4 p : POSITION) : SV_Position { return p + PICK; }
"""


@pytest.mark.parametrize("defines,member", [({"N": "3"}, "K.three.x"), ({"N": "4"}, "K.other.x"),
                                            (None, "K.other.x"), ([("N", "3")], "K.three.x")])
def test_defines_choose_the_code(defines, member):
    """#if N == 3 picks the cbuffer member of the branch the define selects."""
    cb = the_cbuffer(compile_shader(DEFINE_SRC, defines=defines))
    assert cb.members[0].path == member


def test_include_from_include_dirs(tmp_path):
    """#include "common.hlsli" is found in include_dirs and recorded as a dependency."""
    (tmp_path / "common.hlsli").write_text("cbuffer C { float4 alpha; };\n")
    s = compile_shader('#include "common.hlsli"\n'
                       "float4 main(float4 p : POSITION) : SV_Position { return p + alpha; }\n",
                       include_dirs=[tmp_path])
    assert the_cbuffer(s).members[0].path == "C.alpha.x"
    assert s.dependencies == (str((tmp_path / "common.hlsli").resolve()),)


def test_missing_include_is_refused(tmp_path):
    """An #include that is not found is refused naming the file."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader('#include "nowhere.hlsli"\n'
                       "float4 main(float4 p : POSITION) : SV_Position { return p; }\n",
                       include_dirs=[tmp_path])
    assert "nowhere.hlsli" in refusal(e)


class SlangSpy:
    """Counts calls of library.compile_source (or refuses them)."""

    def __init__(self, monkeypatch, refuse=False):
        self.calls = 0
        real = library.compile_source

        def spy(*args, **kw):
            self.calls += 1
            if refuse:
                raise AssertionError("Slang must not be called: the shader is in the cache")
            return real(*args, **kw)

        monkeypatch.setattr(library, "compile_source", spy)


@pytest.fixture
def disk_cache(tmp_path, monkeypatch):
    """An empty disk cache folder of this test's own."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(folder))
    return folder


def own(src: str, folder) -> str:
    """``src`` with a comment naming ``folder``: a source no other test compiles, so that this
    process's memory cache (keyed by the source) cannot answer for it."""
    return f"{src}// {folder}\n"


# A fresh process: its memory cache is empty, so what it gets comes from the disk cache
# ($GPUIA_CACHE_DIR) or from Slang. It compiles each keyword set of argv[1] (JSON) and writes
# the shaders and its count of Slang calls, pickled (argv[2] "refuse": a Slang call fails).
FRESH_PROCESS = r"""
import json, pickle, sys
from gpuia.hlsl import compile_shader, library
calls, real = [], library.compile_source

def spy(*args, **kw):
    calls.append(1)
    if sys.argv[2] == "refuse":
        raise AssertionError("Slang must not be called: the shader is in the cache")
    return real(*args, **kw)

library.compile_source = spy
shaders = [compile_shader(**kw) for kw in json.loads(sys.argv[1])]
sys.stdout.buffer.write(pickle.dumps((shaders, len(calls))))
"""


def in_a_fresh_process(*requests: dict, refuse=False, **env):
    """(the shaders of ``requests``, compile_shader's keyword sets, and the number of Slang
    calls) from a fresh process with ``env`` added to its environment."""
    import os
    import pickle
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", FRESH_PROCESS, json.dumps(requests),
                           "refuse" if refuse else "count"], capture_output=True, timeout=300,
                          env=dict(os.environ, **env))
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
    return pickle.loads(proc.stdout)


def test_changing_an_include_invalidates_the_cache(tmp_path, disk_cache, monkeypatch):
    """A changed include is compiled again, from disk (a fresh process) and from memory."""
    inc = tmp_path / "inc"
    inc.mkdir()
    header = inc / "common.hlsli"
    src = own('#include "common.hlsli"\n'
              "float4 main(float4 p : POSITION) : SV_Position { return p + USE; }\n", disk_cache)
    header.write_text("cbuffer C { float4 alpha; };\n#define USE alpha\n")
    assert the_cbuffer(compile_shader(src, include_dirs=[inc])).members[0].path == "C.alpha.x"
    header.write_text("cbuffer C { float4 beta; };\n#define USE beta\n")
    (shader,), calls = in_a_fresh_process({"source": src, "include_dirs": [str(inc)]})
    assert the_cbuffer(shader).members[0].path == "C.beta.x" and calls > 0
    header.write_text("cbuffer C { float4 gamma; };\n#define USE gamma\n")  # memory kept
    assert the_cbuffer(compile_shader(src, include_dirs=[inc])).members[0].path == "C.gamma.x"


def test_a_new_shadowing_include_invalidates_the_cache(tmp_path, disk_cache):
    """include_dirs=[a, b] with the header only in b; adding a/common.hlsli must win next time."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    src = own('#include "common.hlsli"\n'
              "float4 main(float4 p : POSITION) : SV_Position { return p + USE; }\n", disk_cache)
    (b / "common.hlsli").write_text("cbuffer C { float4 fromB; };\n#define USE fromB\n")
    assert the_cbuffer(compile_shader(src, include_dirs=[a, b])).members[0].path == "C.fromB.x"
    (a / "common.hlsli").write_text("cbuffer C { float4 fromA; };\n#define USE fromA\n")
    (shader,), _ = in_a_fresh_process({"source": src, "include_dirs": [str(a), str(b)]})
    assert the_cbuffer(shader).members[0].path == "C.fromA.x"
    assert the_cbuffer(compile_shader(src, include_dirs=[a, b])).members[0].path == "C.fromA.x"


# -- 7. the cache -------------------------------------------------------------------------------
CACHE_SRC = """
cbuffer K : register(b2) { float a; float2 b; float4x4 M; };
float4 main(float4 p : POSITION, float4x4 w : WORLD) : SV_Position
{ return mul(M, p) + a + b.x + w[0]; }
float4 other(float4 p : POSITION) : SV_Position { return p * a; }
"""


def _cache_files(folder):
    return sorted((folder / "hlsl").glob("*.json"))


def test_first_compile_writes_one_json_file(disk_cache):
    """One compile writes one JSON entry under <cache>/hlsl/ and nothing else there."""
    compile_shader(own(CACHE_SRC, disk_cache))
    files = _cache_files(disk_cache)
    assert len(files) == 1
    assert list((disk_cache / "hlsl").iterdir()) == files  # no temporary files left
    json.loads(files[0].read_text())


def test_a_cached_shader_loads_without_slang(disk_cache):
    """In a fresh process the shader comes from disk, equal, without Slang."""
    src = own(CACHE_SRC, disk_cache)
    first = compile_shader(src)
    (again,), _ = in_a_fresh_process({"source": src}, refuse=True)
    assert again is not first
    assert again == first
    assert again.wgsl == first.wgsl and again.leaves == first.leaves
    assert [cb.members for cb in again.constant_buffers] == \
        [cb.members for cb in first.constant_buffers]
    assert [(cb.slot, cb.remapped, cb.size) for cb in again.constant_buffers] == \
        [(cb.slot, cb.remapped, cb.size) for cb in first.constant_buffers]
    assert again.signature == first.signature  # derived again on load


def test_the_memory_cache_returns_the_same_object(disk_cache, monkeypatch):
    """A repeated compile in the same process returns the same shader without Slang."""
    src = own(CACHE_SRC, disk_cache)
    first = compile_shader(src)
    SlangSpy(monkeypatch, refuse=True)
    assert compile_shader(src) is first


@pytest.mark.parametrize("damage", ["{not json", "", '{"format": 1, "key": "other"}',
                                    '{"format": 999}', '{"format": 1}'])
def test_a_corrupted_cache_file_is_ignored(disk_cache, damage):
    """An unreadable or mismatched entry is ignored: the shader is compiled again."""
    src = own(CACHE_SRC, disk_cache)
    first = compile_shader(src)
    [entry] = _cache_files(disk_cache)
    entry.write_text(damage)
    (again,), calls = in_a_fresh_process({"source": src})
    assert calls > 0 and again == first
    assert json.loads(entry.read_text())["key"] == entry.stem  # rewritten whole


DAMAGES = {
    "json_list": lambda good: [1, 2],
    "json_null": lambda good: None,
    "json_string": lambda good: "abc",
    "value_not_a_shader": lambda good: dict(good, value=5),
    "wgsl_damaged": lambda good: dict(good, value=dict(good["value"], wgsl="garbage")),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_wrongly_shaped_cache_file_is_ignored(disk_cache, damage):
    """gpuia.hlsl.cache guarantees any unreadable entry is ignored: the shader is recompiled."""
    src = own(CACHE_SRC, disk_cache)
    first = compile_shader(src)
    [entry] = _cache_files(disk_cache)
    entry.write_text(json.dumps(DAMAGES[damage](json.loads(entry.read_text()))))
    (again,), _ = in_a_fresh_process({"source": src})
    assert again == first


def test_cache_dir_none_writes_nothing(tmp_path, monkeypatch):
    """GPUIA_CACHE_DIR=none: no file anywhere; a new process-level compile calls Slang again."""
    env = {"GPUIA_CACHE_DIR": "none", "XDG_CACHE_HOME": str(tmp_path / "xdg"),
           "HOME": str(tmp_path / "home")}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    src = own(CACHE_SRC, tmp_path)
    compile_shader(src)
    _, calls = in_a_fresh_process({"source": src}, **env)
    assert calls > 0
    assert list(tmp_path.rglob("*")) == []


def test_defines_layout_and_entry_are_part_of_the_key(disk_cache):
    """A different define, matrix layout or entry point is a different cache entry."""
    src = own(CACHE_SRC, disk_cache)
    variants = {"base": {}, "define": {"defines": {"X": "1"}},
                "layout": {"matrix_layout": "row_major"}, "entry": {"entry_point": "other"}}
    shaders = {k: compile_shader(src, **kw) for k, kw in variants.items()}
    assert len(_cache_files(disk_cache)) == 4
    found, _ = in_a_fresh_process(*({"source": src, **kw} for kw in variants.values()),
                                  refuse=True)
    loaded = dict(zip(variants, found, strict=True))
    assert loaded == shaders
    # float4x4 M after float a; float2 b: starts register 1 (@16). column-major M[0][1] is
    # column 1 row 0: 16 + 16 = 32; row-major it is row 0 column 1: 16 + 4 = 20.
    assert d3d_offsets(the_cbuffer(loaded["base"]))["K.M[0][1]"] == 32
    assert d3d_offsets(the_cbuffer(loaded["layout"]))["K.M[0][1]"] == 20
    assert loaded["entry"].entry_point == "other"
    assert [lf.key for lf in loaded["entry"].leaves] == ["POSITION0", "SV_POSITION0"]
    assert loaded["define"].defines == (("X", "1"),)


# -- 8. missing compiler ------------------------------------------------------------------------
MISSING_LIBRARY = r"""
from gpuia.errors import UnsupportedError
from gpuia.hlsl import compile_shader
try:
    compile_shader("float4 main(float4 p : POSITION) : SV_Position { return p * 3; }")
except UnsupportedError as e:
    print(e)
"""


def test_missing_compiler_is_unsupported():
    """GPUIA_SLANG_LIBRARY naming no file: UnsupportedError that names gpuia[hlsl] (in a fresh
    process: one that has loaded Slang's library keeps it)."""
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", MISSING_LIBRARY], capture_output=True,
                          text=True, timeout=120,
                          env=dict(os.environ,
                                   GPUIA_SLANG_LIBRARY="/nonexistent/libslang-compiler.so"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "gpuia[hlsl]" in proc.stdout and "/nonexistent/libslang-compiler.so" in proc.stdout


# -- 9. the WGSL it produces --------------------------------------------------------------------
def test_vertex_wgsl_parses_with_gpuias_reader():
    """shader.wgsl is a gpuia vertex shader whose members are the leaves' semantics."""
    s = compile_shader(CACHE_SRC)
    sig = parse_vertex_shader(s.wgsl, s.wgsl_entry_point)
    assert [m.key for m in sig.inputs] == [lf.key for lf in s.leaves if lf.direction == "in"]
    assert [m.key for m in sig.outputs] == [lf.key for lf in s.leaves if lf.direction == "out"]
    assert sig == s.signature


def test_pixel_wgsl_parses_with_gpuias_reader():
    """A pixel shader's WGSL is a gpuia pixel shader with SV_Target outputs."""
    s = compile_shader(PS_INTERP, stage="pixel")
    sig = parse_pixel_shader(s.wgsl, s.wgsl_entry_point)
    assert [m.key for m in sig.outputs] == ["SV_TARGET0"]
    assert sig == s.signature


def test_cbuffers_are_bound_at_group_3_by_register():
    """Each cbuffer is @group(3) @binding(register); nothing else is bound."""
    s = vs_with("cbuffer A : register(b1) { float4 a; };\n"
                "cbuffer B : register(b4) { float x; float2 y; };", "a + x + y.x")
    assert uniform_slots(s.wgsl, 3) == (1, 4)
    assert set(re.findall(r"@group\((\d+)\)", s.wgsl)) == {"3"}
    assert re.search(r"@group\(3\)\s*@binding\(1\)\s*var<uniform>\s*\w+\s*:\s*(?!array)\w+;",
                     s.wgsl)  # A matches WGSL's layout: bound as Slang declared it


@pytest.mark.parametrize("name,registers", [("float_then_float2", 1),  # 12 bytes
                                            ("float_array_then_float", 3),  # 40 bytes
                                            ("column_major_3x3_then_float", 3),  # 48 bytes
                                            ("bool_int_uint3", 2)])  # 28 bytes
def test_remapped_cbuffer_is_raw_registers(name, registers):
    """A remapped cbuffer is array<vec4<u32>, R> with R = ceil(D3D size / 16)."""
    text, expr, _, size = CB_CASES[name]
    assert registers == -(-size // 16)
    s = vs_with(text.replace("cbuffer K", "cbuffer K : register(b6)"), expr)
    assert the_cbuffer(s).remapped
    assert re.search(rf"@group\(3\)\s*@binding\(6\)\s*var<uniform>\s*\w+\s*:\s*"
                     rf"array<vec4<u32>,\s*{registers}>;", s.wgsl), s.wgsl
    assert uniform_slots(s.wgsl, 3) == (6,)


def test_global_uniform_outside_a_cbuffer_is_refused():
    """fxc's $Globals: a uniform outside any cbuffer is refused, naming it."""
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 k;\nfloat4 main(float4 p : POSITION) : SV_Position "
                       "{ return p + k; }")
    assert "global k" in refusal(e) and "register(bN)" in refusal(e)


# -- what review found --------------------------------------------------------------------------
@pytest.mark.parametrize("decl", ["int2x3 m;", "column_major uint3x3 m;", "bool2x2 m;",
                                  "row_major int4x4 m[2];"])
def test_integer_and_bool_matrices_in_a_cbuffer_are_refused(decl):
    """Slang stores them unlike their declared packing: refused by name, not read wrong."""
    with pytest.raises(InvalidDescError) as e:
        vs_with(f"cbuffer K : register(b0) {{ {decl} float k; }};", "k + (float)m[0][0]"
                if "[2]" not in decl else "k + (float)m[1][0][0]")
    assert "cbuffer K" in refusal(e) and "matri" in refusal(e)


def test_packoffset_places_members():
    """packoffset(c2) is byte 32, c0.y byte 4, c1.z byte 24 (D3D: register * 16 + 4 * component)."""
    s = vs_with("cbuffer K : register(b0) { float4 a : packoffset(c2); float b : "
                "packoffset(c0.y); float2 c : packoffset(c1.z); };", "a + b + c.xyxy")
    cb = the_cbuffer(s)
    assert [(n, at) for n, at, _ in cb.declared()] == [("a", 32), ("b", 4), ("c", 24)]
    assert cb.remapped and cb.size == 48


def test_a_cbuffer_past_4096_registers_is_refused_quickly():
    """D3D's constant buffers hold 4096 registers; a bigger one is refused before any leaf."""
    import time

    t0 = time.perf_counter()
    with pytest.raises(InvalidDescError) as e:
        vs_with("cbuffer K : register(b0) { float4 a[100000000]; };", "a[3]")
    assert "4096 registers" in refusal(e) and time.perf_counter() - t0 < 30


def test_an_inactive_pack_matrix_pragma_does_not_count():
    """#pragma pack_matrix inside an #ifdef the preprocessor drops leaves the default."""
    src = ("#ifdef ROWS\n#pragma pack_matrix(row_major)\n#endif\n"
           "cbuffer K : register(b0) { float4x4 M; };\n"
           "float4 main(float4 p : POSITION) : SV_Position { return mul(M, p); }\n")
    assert compile_shader(src).matrix_layout == "column_major"
    assert compile_shader(src, defines={"ROWS": "1"}).matrix_layout == "row_major"
    # M[0][1] (row 0, column 1): column-major at 16, row-major at 4
    off = {True: 16, False: 4}
    for rows, shader in ((False, compile_shader(src)),
                         (True, compile_shader(src, defines={"ROWS": "1"}))):
        assert d3d_offsets(the_cbuffer(shader))["K.M[0][1]"] == off[not rows]


def test_a_pack_matrix_pragma_in_an_include_counts_where_it_is_read(tmp_path):
    """An included file is read in place, so its pragma applies to the matrices after the
    #include (fxc's order); one under an inactive #if does not count."""
    (tmp_path / "pack.hlsli").write_text("#ifdef ROWS\n#pragma pack_matrix(row_major)\n#endif\n")
    src = ('#include "pack.hlsli"\ncbuffer K : register(b0) { float4x4 M; };\n'
           "float4 main(float4 p : POSITION) : SV_Position { return mul(M, p); }")
    # M[0][1] (row 0, column 1): row-major at 4, column-major at 16
    rows = compile_shader(src, include_dirs=[tmp_path], defines={"ROWS": "1"})
    assert rows.matrix_layout == "row_major"
    assert d3d_offsets(the_cbuffer(rows))["K.M[0][1]"] == 4
    cols = compile_shader(src, include_dirs=[tmp_path])
    assert cols.matrix_layout == "column_major"
    assert d3d_offsets(the_cbuffer(cols))["K.M[0][1]"] == 16


def test_noperspective_pairs_are_per_declaration():
    """A noperspective centroid input of one entry, or in a comment, leaves another entry's
    plain centroid input perspective-correct; a comment never refuses anything."""
    src = ("// an old try: noperspective centroid float4 c : COLOR0\n"
           "float4 psA(noperspective centroid float4 c : COLOR0) : SV_Target { return c; }\n"
           "float4 psB(centroid float4 c : COLOR0) : SV_Target { return c; }\n"
           "// TODO: noperspective centroid here\n")
    a = compile_shader(src, "pixel", "psA")
    b = compile_shader(src, "pixel", "psB")
    assert a.leaves[0].interpolation == "linear, centroid" and a.leaves[0].key == "COLOR0"
    assert b.leaves[0].interpolation == "perspective, centroid"


@pytest.mark.parametrize("module", ["frontend", "bindings", "refusals", "source", "wrapper",
                                    "cbuffer", "wgsl_defined", "wgsl_types", "wgsl_tokens",
                                    "wgsl_expressions", "wgsl_statements", "emitted", "cpu",
                                    "cpu_defined"])
def test_the_cache_key_covers_every_module_that_shapes_the_output(module, monkeypatch):
    """An edit of any of gpuia's modules that shape the WGSL or the C++ is a new key: no
    entry written by another gpuia is read."""
    import importlib
    from pathlib import Path

    from gpuia.hlsl import cache

    target = Path(importlib.import_module(f"gpuia.hlsl.{module}").__file__).resolve()
    monkeypatch.setattr(cache, "_FRONTEND", None)
    before = cache.frontend_hash()
    real = Path.read_bytes

    def edited(path):
        return real(path) + (b"\n# edited\n" if path.resolve() == target else b"")

    monkeypatch.setattr(Path, "read_bytes", edited)
    monkeypatch.setattr(cache, "_FRONTEND", None)
    assert cache.frontend_hash() != before


def test_includes_of_text_source_come_only_from_include_dirs(tmp_path, monkeypatch):
    """A source given as text has no folder: the working directory is not searched."""
    (tmp_path / "common.h").write_text("#define V 1.0\n")
    monkeypatch.chdir(tmp_path)
    src = '#include "common.h"\nfloat4 main(float4 p : POSITION) : SV_Position { return p * V; }'
    with pytest.raises(InvalidDescError):
        compile_shader(src)
    assert compile_shader(src, include_dirs=[tmp_path]).dependencies == \
        (str(tmp_path / "common.h"),)


def test_a_source_file_includes_from_its_own_folder(tmp_path, monkeypatch):
    """source_path's folder is searched first, whatever the working directory."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "common.h").write_text("cbuffer C { float4 fromA; };\n#define V fromA\n")
    (tmp_path / "b" / "common.h").write_text("cbuffer C { float4 fromB; };\n#define V fromB\n")
    src = '#include "common.h"\nfloat4 main(float4 p : POSITION) : SV_Position { return p + V; }'
    (tmp_path / "a" / "vs.hlsl").write_text(src)
    monkeypatch.chdir(tmp_path / "b")
    s = compile_shader(src, source_path=tmp_path / "a" / "vs.hlsl", file_name="vs.hlsl")
    assert the_cbuffer(s).members[0].path == "C.fromA.x"


def test_slang_crashing_is_a_refusal_and_the_next_compile_works():
    """Slang's WGSL back end crashes on this valid shader: one refusal, no crash of gpuia."""
    src = ("cbuffer K : register(b0) { float a[2][3]; float x; };\n"
           "float4 main(float4 p : POSITION) : SV_Position "
           "{ return float4(asuint(a[0][1]), 0, 0, 1); }")
    with pytest.raises(InvalidDescError) as e:
        compile_shader(src)
    assert "crashed" in refusal(e)
    assert compile_shader("float4 main(float4 p : POSITION) : SV_Position { return p * 7; }")


def test_a_compile_past_the_timeout_is_refused(monkeypatch):
    monkeypatch.setenv("GPUIA_SLANG_TIMEOUT", "0.000001")
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float4 p : POSITION) : SV_Position { return p * 9; }")
    assert "did not finish" in refusal(e)
    monkeypatch.delenv("GPUIA_SLANG_TIMEOUT")
    assert compile_shader("float4 main(float4 p : POSITION) : SV_Position { return p * 9; }")


@pytest.mark.parametrize("value", ["abc", "0", "-5", "nan", "inf", "1e10"])
def test_a_timeout_setting_that_is_no_usable_number_is_refused_by_name(monkeypatch, value):
    """GPUIA_SLANG_TIMEOUT=abc was a ValueError traceback and 1e10 an OverflowError in the
    wait: each is one refusal naming the variable."""
    from gpuia.errors import UnsupportedError

    monkeypatch.setenv("GPUIA_SLANG_TIMEOUT", value)
    with pytest.raises(UnsupportedError, match=f"GPUIA_SLANG_TIMEOUT={value}: must be a "
                                               f"positive number"):
        compile_shader(f"float4 main(float4 p : POSITION) : SV_Position {{ return p * 3; }}"
                       f"// {value}\n")


@pytest.mark.parametrize("where", ["source", "define"])
def test_a_lone_surrogate_is_refused(where):
    src = "float4 main(float4 p : POSITION) : SV_Position { return p; }"
    with pytest.raises(InvalidDescError) as e:
        if where == "source":
            compile_shader(src + " // \ud800")
        else:
            compile_shader(src, defines={"X": "\ud800"})
    assert "surrogate" in refusal(e)


@pytest.mark.parametrize("where", ["source_path", "include_dirs"])
def test_a_path_that_is_not_utf8_is_refused_by_name(where, tmp_path):
    """A folder whose name is not UTF-8 (os.fsdecode gives lone surrogates): Slang takes
    paths as UTF-8 text, so the path is refused by name (the worker died on it: "Slang's
    compiler crashed")."""
    folder = str(tmp_path / os.fsdecode(b"caf\xe9"))
    src = "float4 main(float4 p : POSITION) : SV_Position { return p; }"
    kw = {"source_path": folder + "/vs.hlsl"} if where == "source_path" else \
        {"include_dirs": [folder]}
    with pytest.raises(InvalidDescError) as e:
        compile_shader(src, **kw)
    assert where in refusal(e) and "not UTF-8" in refusal(e) and "crashed" not in refusal(e)


def test_signatures_past_32_registers_are_refused():
    with pytest.raises(InvalidDescError) as e:
        compile_shader("float4 main(float a[100000] : TEXCOORD0) : SV_Position { return a[0]; }")
    assert "32 registers" in refusal(e)


@pytest.mark.parametrize("spelling", ["SV_POSITION0", "SV_Position0", "sv_position0"])
def test_a_system_value_with_its_index_spelled_is_the_same_semantic(spelling):
    # SV_POSITION0 is SV_POSITION with index 0 (a trailing number is the semantic index, as for
    # any semantic), as SPIRV-Cross writes it; Slang refuses it as a vertex input (E30702)
    # unless gpuia renames it as it renames SV_POSITION. The shader is the same shader.
    plain = compile_shader("struct I { float4 p : SV_POSITION; float2 t : TEXCOORD0; };\n"
                           "float4 main(I i) : SV_POSITION { return i.p + i.t.xyxy; }",
                           "vertex", "main")
    spelled = compile_shader(f"struct I {{ float4 p : {spelling}; float2 t : TEXCOORD0; }};\n"
                             f"float4 main(I i) : {spelling} {{ return i.p + i.t.xyxy; }}",
                             "vertex", "main")
    assert [(m.semantic, m.index) for m in spelled.signature.inputs] == [
        ("SV_POSITION", 0), ("TEXCOORD", 0)]
    assert [(m.semantic, m.index) for m in spelled.signature.outputs] == [("SV_POSITION", 0)]
    assert spelled.wgsl == plain.wgsl
