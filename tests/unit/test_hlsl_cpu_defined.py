"""The CPU reference computes D3D's value where C++ leaves the result undefined (rules section
12, gpuia.hlsl.cpu_defined): every expected value below is derived by hand from the D3D11.3
functional spec's instruction (ftoi/ftou 22.13.3-4, udiv 22.12.9, ishl/ishr/ushr 22.11.7-12,
iadd/imul 22.12, round_ne 22.10.14, firstbit 22.11.5), never from gpuia; what D3D leaves
undefined is an error naming it, never a value or a crash."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpuia.errors import InvalidDescError
from gpuia.hlsl import compile_shader, cpu_defined
from gpuia.hlsl import cpu as hcpu

INT_MIN, INT_MAX, UINT_MAX = -2**31, 2**31 - 1, 2**32 - 1


def run(src: str, inputs: dict, cbuffers=None) -> dict:
    """Run ``src`` over one vertex per row of ``inputs`` ({semantic: list of rows of int or
    float scalars}); outputs as uint32 bit patterns."""
    n = len(next(iter(inputs.values())))
    table = {}
    for key, rows in inputs.items():
        a = np.zeros((n, 4), np.uint32)
        for i, row in enumerate(rows):
            for c, v in enumerate(row):
                a[i, c] = np.float32(v).view(np.uint32) if isinstance(v, float) \
                    else np.uint32(v & 0xFFFFFFFF)
        table[key] = a
    shader = hcpu.cpu_shader(compile_shader(src))
    return shader.run(table, np.arange(n, dtype=np.uint32), np.zeros(n, np.uint32),
                      cbuffers or {})


def signed(words) -> list:
    return np.asarray(words, np.uint32).view(np.int32).tolist()


# ---- rules 12.1: float to integer, as ftoi and ftou ----

# (input, ftoi, ftou): inputs clamped to [-2147483648.999, 2147483647.999] and
# [0, 4294967295.999], NaN to 0, then truncated.
CONVERSIONS = [
    (1e30, INT_MAX, UINT_MAX), (-1e30, INT_MIN, 0), (math.nan, 0, 0), (math.inf, INT_MAX, UINT_MAX),
    (-math.inf, INT_MIN, 0), (2147483520.0, 2147483520, 2147483520),
    (2147483648.0, INT_MAX, 2147483648), (-2147483648.0, INT_MIN, 0), (-2.9, -2, 0), (2.9, 2, 2),
    (-0.5, 0, 0), (4294967040.0, INT_MAX, 4294967040), (4294967296.0, INT_MAX, UINT_MAX),
]


def test_float_to_int_and_uint_saturate_and_nan_is_zero():
    out = run("""
struct O { int i : TEXCOORD0; uint u : TEXCOORD1; };
O main(float f : TEXCOORD0) { O o; o.i = (int)f; o.u = (uint)f; return o; }
""", {"TEXCOORD0": [[f] for f, _, _ in CONVERSIONS]})
    assert signed(out["TEXCOORD0"][:, 0]) == [i for _, i, _ in CONVERSIONS]
    assert out["TEXCOORD1"][:, 0].tolist() == [u for _, _, u in CONVERSIONS]


def test_vector_and_matrix_conversions_saturate_too():
    """int4(float4), uint2(float2), an implicit conversion, and a float2x2 cast to int2x2 (which
    Slang's prelude converts component by component)."""
    out = run("""
struct O { int4 a : TEXCOORD0; uint2 b : TEXCOORD1; int c : TEXCOORD2; int4 d : TEXCOORD3; };
O main(float4 f : TEXCOORD0) {
    O o; o.a = int4(f); o.b = uint2(f.yz); o.c = f.w;
    int2x2 m = (int2x2)float2x2(f.x, f.y, f.z, f.w);
    o.d = int4(m[0], m[1]);
    return o;
}""", {"TEXCOORD0": [[1e30, -1e30, math.nan, -7.5]]})
    assert signed(out["TEXCOORD0"][0]) == [INT_MAX, INT_MIN, 0, -7]
    assert out["TEXCOORD1"][0].tolist() == [0, 0]
    assert signed(out["TEXCOORD2"][0]) == [-7]
    assert signed(out["TEXCOORD3"][0]) == [INT_MAX, INT_MIN, 0, -7]


# ---- rules 12.2: integer division and remainder ----

def test_unsigned_division_by_zero_is_all_ones():
    """udiv: 'Divide by zero returns 0xffffffff for both quotient and remainder.'"""
    out = run("""
struct O { uint4 q : TEXCOORD0; uint4 v : TEXCOORD1; };
O main(uint a : TEXCOORD0, uint b : TEXCOORD1) {
    O o; o.q = uint4(a / b, a % b, 5u / b, 0u % b);
    o.v = uint4(uint2(a, 7u) / uint2(b, 2u), uint2(a, 7u) % uint2(b, 2u));
    return o;
}""", {"TEXCOORD0": [[5], [7]], "TEXCOORD1": [[0], [2]]})
    assert out["TEXCOORD0"].tolist() == [[UINT_MAX] * 4, [3, 1, 2, 0]]
    assert out["TEXCOORD1"].tolist() == [[UINT_MAX, 3, UINT_MAX, 1], [3, 3, 1, 1]]


def test_signed_division_truncates_toward_zero():
    out = run("int4 main(int a : TEXCOORD0, int b : TEXCOORD1) : TEXCOORD0 "
              "{ return int4(a / b, a % b, -a / b, -a % b); }",
              {"TEXCOORD0": [[7], [INT_MIN]], "TEXCOORD1": [[-2], [1]]})
    assert [signed(r) for r in out["TEXCOORD0"]] == [[-3, 1, 3, -1], [INT_MIN, 0, INT_MIN, 0]]


@pytest.mark.parametrize("a, b, op", [(7, 0, "/"), (7, 0, "%"), (INT_MIN, -1, "/"),
                                      (INT_MIN, -1, "%")],
                         ids=["div0", "rem0", "min_div_m1", "min_rem_m1"])
def test_signed_division_d3d_leaves_undefined_is_not_comparable(a, b, op):
    """No signed divide in D3D11's instructions, LLVM's sdiv/srem in DXIL: undefined. The run
    says so, naming the construct: no SIGFPE, no value."""
    with pytest.raises(InvalidDescError, match="not comparable.*signed integer division"):
        run(f"int main(int a : TEXCOORD0, int b : TEXCOORD1) : TEXCOORD0 {{ return a {op} b; }}",
            {"TEXCOORD0": [[1], [a]], "TEXCOORD1": [[1], [b]]})


# ---- rules 12.3: shifts take the count's low 5 bits; integer arithmetic wraps ----

def test_shift_counts_are_masked_to_five_bits():
    out = run("""
struct O { uint4 u : TEXCOORD0; int4 i : TEXCOORD1; uint2 v : TEXCOORD2; };
O main(uint n : TEXCOORD0, int m : TEXCOORD1) {
    O o;
    o.u = uint4(1u << n, 0x80000000u >> (n + 2u), 3u << (n - 1u), 0xF0u >> 36u + n - n);
    o.i = int4(-8 >> n, 1 << (n - 1u), -1 << 31, m << n);
    o.v = uint2(1u, 2u) << uint2(n, 32u);
    return o;
}""", {"TEXCOORD0": [[33]], "TEXCOORD1": [[-3]]})
    # n = 33: shifts by 1; n + 2 = 35 by 3; n - 1 = 32 by 0; 36 by 4
    assert out["TEXCOORD0"][0].tolist() == [2, 0x10000000, 3, 0xF]
    assert signed(out["TEXCOORD1"][0]) == [-4, 1, INT_MIN, -6]
    assert out["TEXCOORD2"][0].tolist() == [2, 2]


def test_signed_overflow_wraps():
    """iadd, imul and ineg keep the low 32 bits; abs is imax(-x, x)."""
    out = run("int4 main(int a : TEXCOORD0, int b : TEXCOORD1) : TEXCOORD0 "
              "{ return int4(a + 1, a * b, -(a + 1), abs(a + 1)); }",
              {"TEXCOORD0": [[INT_MAX]], "TEXCOORD1": [[2]]})
    assert signed(out["TEXCOORD0"][0]) == [INT_MIN, -2, INT_MIN, INT_MIN]


# ---- rules 12.4: subscripts out of range ----

@pytest.mark.parametrize("body", [
    "float t[4] = {1, 2, 3, 4}; return t[i];",
    "float t[4] = {1, 2, 3, 4}; t[i] = 9; return t[0];",
    "return s_table[i];",
    "return k_table[i].x;",
    "float4 v = float4(1, 2, 3, 4); return v[i];",
    "float2 v = float2(1, 2); return v[i];",
    "float4x4 m = (float4x4)1; return m[i].x;",
], ids=["local_read", "local_write", "static", "cbuffer", "vector4", "vector2", "matrix_row"])
def test_subscripts_out_of_range_are_not_comparable(body):
    """In range the values are exact; out of range D3D leaves a local array undefined and a
    cbuffer array reads another register: an error naming the subscript, never memory
    outside the array."""
    src = ("cbuffer K : register(b0) { float4 k_table[2]; };\n"
           "static float s_table[3] = {5, 6, 7};\n"
           f"float main(uint i : TEXCOORD0) : TEXCOORD0 {{ {body} }}")
    cb = {0: np.arange(8, dtype=np.float32).tobytes()}
    ok = run(src, {"TEXCOORD0": [[1]]}, cb)["TEXCOORD0"][0].view(np.float32)[0]
    assert ok in (2.0, 1.0, 6.0, 4.0)  # t[1], t[0] after t[1] = 9, s_table[1], k_table[1].x...
    for index in (4, 5_000_000, 2**32 - 1):
        with pytest.raises(InvalidDescError, match="not comparable.*subscript out of its range"):
            run(src, {"TEXCOORD0": [[1], [index]]}, cb)


# ---- rules 12.5: a loop is never assumed to end ----

def test_an_endless_loop_is_stopped_not_assumed_finished():
    """i steps by 2 from 0 and never equals an odd a: spin never returns (a GPU hangs or
    resets). Its result is dead only once g++ folds s & 0, and g++'s -ffinite-loops (on at -O2
    for C++) then deletes the loop and returns 7."""
    assert {"-fwrapv", "-fno-finite-loops"} <= set(hcpu.CXX_FLAGS)
    with pytest.raises(InvalidDescError, match="did not finish"):
        hcpu.cpu_shader(compile_shader(
            "uint spin(uint a) { uint i = 0; while (i != a) i += 2; return i; }\n"
            "uint main(uint a : TEXCOORD0) : TEXCOORD0 { uint s = spin(a); return 7 + (s & 0u); }"
        )).run({"TEXCOORD0": np.array([[1, 0, 0, 0]], np.uint32)}, np.zeros(1, np.uint32),
               np.zeros(1, np.uint32), {}, timeout=3)


# ---- rules 12.6: intrinsics whose C++ differs ----

def test_round_halves_to_even_and_bit_intrinsics_on_zero():
    out = run("""
struct O { float4 r : TEXCOORD0; int4 s : TEXCOORD1; uint4 b : TEXCOORD2; };
O main(float4 f : TEXCOORD0, int3 i : TEXCOORD1, uint z : TEXCOORD2) {
    O o; o.r = round(f); o.s = int4(sign(i), 0);
    o.b = uint4(firstbithigh(z), firstbitlow(z), countbits(z), reversebits(z | 1u));
    return o;
}""", {"TEXCOORD0": [[2.5, -2.5, 3.5, 0.5]], "TEXCOORD1": [[-5, 0, 7]], "TEXCOORD2": [[0]]})
    assert out["TEXCOORD0"][0].view(np.float32).tolist() == [2.0, -2.0, 4.0, 0.0]
    assert signed(out["TEXCOORD1"][0]) == [-1, 0, 1, 0]
    assert out["TEXCOORD2"][0].tolist() == [UINT_MAX, UINT_MAX, 0, 0x80000000]


# ---- the rewrite itself ----

@pytest.mark.parametrize("cpp, want", [
    ("x = a * b / c + d % e;", "x = gpuia_div(a * b,  c) + gpuia_rem(d,  e);"),
    ("x = - i_1 / int(3);", "x = gpuia_div(- i_1,  int(3));"),
    ("y = a + b << c + d >> e;", "y = gpuia_shr(gpuia_shl(a + b,  c + d),  e);"),
    ("z = a < b << c ? p / q : r;", "z = a < gpuia_shl(b,  c) ? gpuia_div(p,  q) : r;"),
    ("k = a / b / c;", "k = gpuia_div(gpuia_div(a,  b),  c);"),
    ("w = (int32_t)(uint32_t)x_0 / (&o)->m[i_0].y;",
     "w = gpuia_div(gpuia_to_i32(gpuia_to_u32(x_0)),  (&o)->m[i_0].y);"),
    ("v = Vector<int32_t, 2> {(int32_t)f(v, 0), int32_t(g)};",
     "v = Vector<int32_t, 2> {gpuia_to_i32(f(v, 0)), gpuia_to_i32(g)};"),
    ("FixedArray<Vector<float, 4> , 2>  t_0; q = (Vector<uint32_t, 2> )2U >> s;",
     "FixedArray<Vector<float, 4> , 2>  t_0; q = gpuia_shr((Vector<uint32_t, 2> )2U,  s);"),
    ("return int(0) + float(a_0 / b_0);", "return int(0) + float(gpuia_div(a_0,  b_0));"),
])
def test_the_rewrite_follows_cpp_precedence(cpp, want):
    assert cpu_defined.rewrite(cpp) == want


def test_an_unreadable_form_is_refused_not_left_undefined():
    from gpuia.errors import UnsupportedError

    with pytest.raises(UnsupportedError, match="compound assignment"):
        cpu_defined.rewrite("a /= b;")
    with pytest.raises(UnsupportedError, match="prelude"):
        cpu_defined.prepare("int main() { return 1 / 2; }")
    # brackets nested deeper than Python's recursion (Slang keeps a / (b / (c / ...)) so)
    with pytest.raises(UnsupportedError, match="nests brackets deeper"):
        cpu_defined.rewrite("x = " + "(a / " * 5000 + "b" + ")" * 5000 + ";")


def test_asint_of_a_uint_is_signed_where_it_is_used():
    """asint(u) is an int wherever it is used: asint(0x80000001) >> 31 is ishr, -1 (the C++
    prelude's U32_asint returned uint32_t, so the shift was logical and gave 1), and
    asint(0xFFFFFFFF) < 0 is true (1)."""
    out = run("int2 main(uint u : TEXCOORD0, uint v : TEXCOORD1) : TEXCOORD0 "
              "{ return int2(asint(u) >> 31, asint(v) < 0 ? 1 : 0); }",
              {"TEXCOORD0": [[0x80000001]], "TEXCOORD1": [[0xFFFFFFFF]]})
    assert signed(out["TEXCOORD0"][0]) == [-1, 1]
