"""Named cbuffer values packed by D3D's rules (gpuia.hlsl.cbuffer_pack). The expected bytes are
written out by hand from the packing rules (docs/hlsl.md, "Constant buffers"; Microsoft's
"Packing rules for constant variables"): 16-byte registers, no scalar or vector straddling one,
a matrix one register per column (column_major) or row (row_major), every array element and
struct starting a register, bool a 32-bit word. Compiles with Slang (the reflection)."""

from __future__ import annotations

import struct

import pytest

from gpuia.errors import InvalidDescError
from gpuia.hlsl import compile_shader
from gpuia.hlsl.cbuffer_pack import pack_constant_buffer


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "hlsl-cache"))


def cbuffer_of(decl: str, expr: str):
    shader = compile_shader(decl + "\nfloat4 main(float4 p : POSITION) : SV_Position\n"
                            "{ return p + " + expr + "; }\n")
    assert len(shader.constant_buffers) == 1
    return shader.constant_buffers[0]


def f(*xs: float) -> bytes:
    return struct.pack(f"<{len(xs)}f", *xs)


Z = b"\0" * 4  # one unused 32-bit word


def test_float3_then_float_share_a_register():
    # a @0..12, b packs at 12 (12 + 4 <= 16): one register.
    cb = cbuffer_of("cbuffer K { float3 a; float b; };", "a.x + b")
    assert pack_constant_buffer(cb, {"a": [1, 2, 3], "b": 4.5}) == f(1, 2, 3, 4.5)


def test_float2_that_would_straddle_moves_to_the_next_register():
    # a float3 @0..12; b (8 bytes) would straddle at 12: it starts register 1 @16.
    cb = cbuffer_of("cbuffer K { float3 a; float2 b; };", "a.x + b.x")
    assert pack_constant_buffer(cb, {"a": [1, 2, 3], "b": [5, 6]}) == \
        f(1, 2, 3) + Z + f(5, 6) + Z + Z


def test_float4x4_column_major_stores_columns():
    # register c holds column c: m[r][c] @16c + 4r, so the bytes are the transpose's rows.
    m = [[r * 4 + c for c in range(4)] for r in range(4)]
    cb = cbuffer_of("cbuffer K { float4x4 m; };", "m[0]")
    expected = b"".join(f(*(m[r][c] for r in range(4))) for c in range(4))
    assert pack_constant_buffer(cb, {"m": m}) == expected


def test_float4x4_row_major_stores_rows():
    m = [[r * 4 + c for c in range(4)] for r in range(4)]
    cb = cbuffer_of("cbuffer K { row_major float4x4 m; };", "m[0]")
    assert pack_constant_buffer(cb, {"m": m}) == b"".join(f(*row) for row in m)


def test_row_major_2x3_then_float_packs_into_the_last_row():
    # rows @0 and @16 (3 floats each); the last row ends at 28, where s packs.
    cb = cbuffer_of("cbuffer K { row_major float2x3 r; float s; };", "r[1].z + s")
    got = pack_constant_buffer(cb, {"r": [[1, 2, 3], [4, 5, 6]], "s": 7})
    assert got == f(1, 2, 3) + Z + f(4, 5, 6, 7)


def test_float_array_has_a_16_byte_stride():
    # w[k] @16k; the last element is unpadded, x packs at 36.
    cb = cbuffer_of("cbuffer K { float w[3]; float x; };", "w[2] + x")
    got = pack_constant_buffer(cb, {"w": [1, 2, 3], "x": 9})
    assert got == f(1) + Z * 3 + f(2) + Z * 3 + f(3, 9) + Z * 2


def test_struct_member_and_struct_array():
    # Light {float3 d; float i} is one register; L[k] @16k; t @32.
    cb = cbuffer_of("struct Light { float3 d; float i; };\ncbuffer K { Light L[2]; float t; };",
                    "L[1].i + t")
    got = pack_constant_buffer(cb, {"L": [{"d": [1, 2, 3], "i": 4},
                                          {"d": [5, 6, 7], "i": 8}], "t": 10})
    assert got == f(1, 2, 3, 4, 5, 6, 7, 8, 10) + Z * 3


def test_bool_int_uint_words_and_members_not_given_are_zero():
    # b @0 (true = 1), i @4, u (uint3) would straddle at 8: @16.
    cb = cbuffer_of("cbuffer K { bool b; int i; uint3 u; };", "b + i + u.x")
    got = pack_constant_buffer(cb, {"b": True, "u": [1, 4294967295, 3]})
    assert got == struct.pack("<4I", 1, 0, 0, 0) + struct.pack("<3I", 1, 0xFFFFFFFF, 3) + Z
    got = pack_constant_buffer(cb, {"i": -2})
    assert got == Z + struct.pack("<i", -2) + Z * 6


def test_float_rounds_to_float32_and_keeps_special_values():
    cb = cbuffer_of("cbuffer K { float4 v; };", "v")
    got = pack_constant_buffer(cb, {"v": [0.1, float("inf"), -0.0, 16777217]})
    assert got == struct.pack("<4I", 0x3DCCCCCD, 0x7F800000, 0x80000000, 0x4B800000)


REFUSED = [
    ({"q": 1}, "K.q=1", "has no member 'q'"),
    ({"v": [1, 2, 3]}, "K.v", "float4 takes a list of 4"),
    ({"v": 1}, "K.v", "float4 takes a list of 4"),
    ({"v": [1, 2, 3, "x"]}, "K.v.w", "a float takes a number"),
    ({"n": -1}, "K.n", "a uint takes an integer in 0..4294967295"),
    ({"n": 1 << 32}, "K.n", "a uint takes an integer in 0..4294967295"),
    ({"n": 1.0}, "K.n", "a uint takes an integer"),
    ({"n": True}, "K.n", "a uint takes an integer"),
    ({"i": 1 << 31}, "K.i", "an int takes"),
    ({"b": 1}, "K.b", "a bool takes true or false"),
    ({"v": [1e39, 0, 0, 0]}, "K.v.x", "float32's range"),
    ({"v": [10 ** 400, 0, 0, 0]}, "K.v.x", "float32's range"),
    ({"m": [[1, 2], [3, 4]]}, "K.m[0]", "a row of a column_major float2x3 takes a list of 3"),
    ({"m": [[1, 2, 3]]}, "K.m", "column_major float2x3 takes a list of 2"),
    ({"s": [1, 2]}, "K.s", "a struct takes an object"),
    ({"s": {"a": 1, "z": 2}}, "K.s.z", "K.s has no member 'z'"),
    ({"w": [1, 2]}, "K.w", "float[3] takes a list of 3"),
]


@pytest.mark.parametrize("values,member,rule", REFUSED)
def test_refusals_name_the_cbuffer_member_value_and_rule(values, member, rule):
    cb = cbuffer_of("struct S { float a; };\n"
                    "cbuffer K : register(b2) { float4 v; uint n; int i; bool b; float2x3 m; "
                    "S s; float w[3]; };", "v + n + i + b + m[0].x + s.a + w[0]")
    with pytest.raises(InvalidDescError) as e:
        pack_constant_buffer(cb, values, "constant_buffers[0]")
    text = str(e.value)
    assert "constant_buffers[0]" in text and "cbuffer K (register b2)" in text, text
    assert member in text and rule in text, text


def test_array_of_matrices_and_of_float2():
    # column_major float2x2 M[2]: each element 2 registers (one per column), M[k] @32k;
    # float2 v[2] after it: @64 and @80, each element starting a register.
    cb = cbuffer_of("cbuffer K { float2x2 M[2]; float2 v[2]; };", "M[1][0].x + v[1].y")
    got = pack_constant_buffer(cb, {"M": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]],
                                    "v": [[9, 10], [11, 12]]})
    assert got == (f(1, 3) + Z * 2 + f(2, 4) + Z * 2 + f(5, 7) + Z * 2 + f(6, 8) + Z * 2
                   + f(9, 10) + Z * 2 + f(11, 12) + Z * 2)


def test_packoffset_places_the_member():
    # packoffset(c1.y): register 1, component y: byte 16 + 4 = 20; b at c0.x.
    cb = cbuffer_of("cbuffer K { float a : packoffset(c1.y); float b : packoffset(c0); };",
                    "a + b")
    assert pack_constant_buffer(cb, {"a": 2, "b": 1}) == f(1) + Z * 4 + f(2) + Z * 2
