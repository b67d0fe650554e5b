"""D3D's conversions and unsigned division in gpuia's WGSL, without a GPU: the types read from
Slang's WGSL (gpuia/hlsl/wgsl_types.py and its reader, wgsl_tokens.py, wgsl_expressions.py,
wgsl_statements.py) and the rewrite that uses them
(gpuia/hlsl/wgsl_defined.py; rules 12.1, 12.2).

The modules are written as Slang writes WGSL: every declaration typed, ``u32(1)``/``i32(2)``
literals, constructors naming their type. Every expected type is WGSL's rule, worked out by
hand (W3C WGSL: a swizzle of n letters is a vector of n, a matrix column is a vector of its
rows, an abstract number takes the other operand's type, matCxR * vecC is vecR, vecR * matCxR
is vecC, a comparison is bool). Which operations change is D3D's: a float converted to an
integer (ftoi, ftou) and an unsigned division or remainder (udiv); a conversion between
integers keeps the bits and a signed division is left to WGSL (rules 12.2).
"""

from __future__ import annotations

import pytest

from gpuia.hlsl import library
from gpuia.hlsl.wgsl_defined import helper, rewrite
from gpuia.hlsl.wgsl_expressions import parse_type
from gpuia.hlsl.wgsl_statements import function_expressions, read
from gpuia.hlsl.wgsl_tokens import tokenize
from gpuia.hlsl.wgsl_types import Unreadable

PRELUDE = """struct S_0
{
    @location(0) a_0 : f32,
    b_0 : vec2<f32>,
    c_0 : i32,
    m_0 : mat3x4<f32>,
    arr_0 : array<vec4<u32>, i32(3)>,
};

struct U_0
{
    @align(16) s_0 : S_0,
};

@binding(0) @group(0) var<uniform> C_0 : U_0;
var<private> tbl_0 : array<f32, i32(3)> = array<f32, i32(3)>( 1.5f, -2.5f, 1.0f );

fn g_0( x_0 : f32) -> f32
{
    return x_0 * 2.0f;
}

fn mk_0( x_1 : f32) -> S_0
{
    var s_1 : S_0;
    s_1.a_0 = x_1;
    return s_1;
}
"""
PARAMS = "w : vec4<u32>,  f : vec4<f32>,  iv : vec4<i32>,  p : ptr<function, f32>"


def _module(body: str) -> str:
    return f"{PRELUDE}\nfn t_0( {PARAMS}) -> i32\n{{\n{body}\n    return i32(0);\n}}\n"


def _types(*expressions: str, decls: str = "") -> list[str | None]:
    """The type of each expression, as the last statements of a function (``_ = e;``)."""
    code = _module(decls + "".join(f"    _ = {e};\n" for e in expressions))
    tokens = tokenize(code)
    module = read(tokens)
    roots = function_expressions(tokens, module, module.functions["t_0"])
    return [None if r.type is None else str(r.type) for r in roots[-len(expressions) - 1:-1]]


def _body(code: str) -> str:
    """The body of t_0 in a rewritten module."""
    start = code.index("fn t_0(")
    return code[code.index("{", start) + 2:code.index("    return i32(0);", start) - 1]


# -- types ------------------------------------------------------------------------------------

@pytest.mark.parametrize("expression, want", [
    ("2.0f", "f32"), ("1", "AbstractInt"), ("1.5", "AbstractFloat"), (".5", "AbstractFloat"),
    ("1e30f", "f32"), ("1.00000001504746622e+30f", "f32"), ("2h", "f16"), ("2i", "i32"),
    ("0x7fffffffu", "u32"), ("0x1f", "AbstractInt"), ("0x1p3", "AbstractFloat"),
    ("u32(1)", "u32"), ("i32(-2147483648)", "i32"), ("true", "bool"), ("1 + 1.5", "AbstractFloat"),
])
def test_literals_have_their_forms_type(expression, want):
    assert _types(expression) == [want]


@pytest.mark.parametrize("expression, want", [
    ("f.xy", "vec2<f32>"), ("f.x", "f32"), ("w.zyx", "vec3<u32>"), ("f.rgba", "vec4<f32>"),
    ("iv.w", "i32"), ("f.xy.y", "f32"), ("f[w.x]", "f32"), ("f.xr", None), ("f.xq", None),
    ("C_0.s_0.b_0.y", "f32"), ("C_0.s_0.c_0", "i32"), ("C_0.s_0.m_0[1]", "vec4<f32>"),
    ("C_0.s_0.m_0[i32(1)][i32(2)]", "f32"), ("C_0.s_0.arr_0[i32(2)].w", "u32"),
    ("tbl_0[w.x]", "f32"), ("mk_0(f.x).b_0", "vec2<f32>"), ("g_0(f.x)", "f32"),
    ("(*p)", "f32"), ("&(f)", "ptr<vec4<f32>>"), ("C_0.s_0.nope_0", None),
])
def test_names_members_swizzles_and_subscripts(expression, want):
    assert _types(expression) == [want]


@pytest.mark.parametrize("expression, want", [
    ("bitcast<vec4<f32>>((w))", "vec4<f32>"), ("bitcast<i32>(w.x)", "i32"),
    ("vec3<i32>(i32(0))", "vec3<i32>"), ("vec4f(f)", "vec4<f32>"), ("vec2u(w.xy)", "vec2<u32>"),
    ("vec2(1.0f, 2.0f)", "vec2<f32>"), ("mat2x2<f32>(f)", "mat2x2<f32>"),
    ("array<f32, 2>(1.0f, 2.0f)", "array<f32, 2>"), ("S_0()", "S_0"),
    ("abs(iv)", "vec4<i32>"), ("abs(f.x)", "f32"), ("dot(w.xyz, w.xyz)", "u32"),
    ("length(f)", "f32"), ("distance(f.xy, f.zw)", "f32"), ("max(f.x, 0.0f)", "f32"),
    ("clamp(iv, vec4<i32>(0), iv)", "vec4<i32>"), ("select(w.x, u32(2), f.x > 0.0f)", "u32"),
    ("all(f > f)", "bool"), ("floor(f.xy)", "vec2<f32>"), ("countOneBits(w)", "vec4<u32>"),
    ("pack4x8unorm(f)", "u32"), ("unpack4x8snorm(w.x)", "vec4<f32>"),
    ("modf(f.x).whole", "f32"), ("frexp(f.xy).exp", "vec2<i32>"),
    ("transpose(C_0.s_0.m_0)", "mat4x3<f32>"), ("determinant(mat2x2<f32>(f))", "f32"),
    ("ldexp(f.x, iv.x)", "f32"), ("textureLoad(t_0, iv.xy, 0)", None), ("nope_0(f.x)", None),
])
def test_constructors_bitcasts_and_builtins(expression, want):
    assert _types(expression) == [want]


@pytest.mark.parametrize("expression, want", [
    ("f.x * 2.0f", "f32"), ("f * 2.0f", "vec4<f32>"), ("2 * w", "vec4<u32>"),
    ("w / u32(2)", "vec4<u32>"), ("w.x % w.y", "u32"), ("iv / 2", "vec4<i32>"),
    ("f.x > 0.0f", "bool"), ("f.xy < f.zw", "vec2<bool>"), ("w == w", "vec4<bool>"),
    ("f.x > 0.0f && f.y < 0.0f", "bool"), ("C_0.s_0.m_0 * f.xyz", "vec4<f32>"),
    ("f * C_0.s_0.m_0", "vec3<f32>"), ("C_0.s_0.m_0 * 2.0f", "mat3x4<f32>"),
    ("w.x << u32(3)", "u32"), ("iv >> w", "vec4<i32>"), ("- f.x", "f32"),
    ("!(f.x > 0.0f)", "bool"), ("~w", "vec4<u32>"), ("(w.x & (u32(3)))", "u32"),
    ("f.x + w.x", None), ("f.xy + f.xyz", None), ("nope_0 + 1", None), ("nope_0 / w.x", None),
    ("1.0f - f.x * (2.0f + f.y) / f.z", "f32"), ("w.x + w.y * w.z", "u32"),
])
def test_operators(expression, want):
    assert _types(expression) == [want]


def test_declarations_without_a_type_take_their_initializers_and_a_block_scopes_its_names():
    decls = ("    var k = 1;\n    let q = f.x / 2.0;\n    const c = 1;\n"
             "    var a_0 : f32 = f.x;\n    {\n        var a_0 : u32 = w.x;\n"
             "        _ = a_0;\n    }\n    for (var j : u32 = u32(0); j < w.x; j++) { }\n")
    assert _types("k", "q", "c", "a_0", "j", decls=decls) == \
        ["i32", "f32", "AbstractInt", "f32", None]
    code = _module(decls)
    tokens = tokenize(code)
    module = read(tokens)
    roots = function_expressions(tokens, module, module.functions["t_0"])
    inner = [r for r in roots if code[r.start:r.end] == "a_0"]
    assert [str(r.type) for r in inner] == ["u32"]  # the block's own a_0


def test_parse_type_spells_wgsl():
    assert str(parse_type("array<vec4<f32>, i32(3)>")) == "array<vec4<f32>, i32(3)>"
    assert str(parse_type("mat4x3f")) == "mat4x3<f32>"
    assert str(parse_type("ptr<function, vec2<u32>>")) == "ptr<vec2<u32>>"


def test_text_the_reader_does_not_parse_is_unreadable():
    with pytest.raises(Unreadable, match="unexpected character '\\$'"):
        tokenize("fn f() { var x : f32 = $; }")
    tokens = tokenize("fn f() -> f32 { var x : f32 = 1.0f +; return x; }")
    module = read(tokens)
    with pytest.raises(Unreadable, match="expected an expression"):
        function_expressions(tokens, module, module.functions["f"])


# -- the rewrite ------------------------------------------------------------------------------

def test_int_uint_conversions_bitcasts_and_float_constructors_stay():
    code = _module("""    var a : i32 = i32(w.x);
    var b : u32 = u32(iv.y);
    var c : vec4<u32> = vec4<u32>(iv);
    var d : vec4<i32> = vec4<i32>(w);
    var e : i32 = i32(true);
    var g : vec4<f32> = (bitcast<vec4<f32>>((w)));
    var k : f32 = f32(iv.x);
    var m : vec4<f32> = vec4<f32>(w);
    var n : i32 = bitcast<i32>(f.x);
    var o : u32 = u32(i32(-1)) + u32(4294967295);
    var q : vec3<i32> = vec3<i32>(i32(0));
    var r : vec2<u32> = vec2<u32>(w.x, (w.y << (u32(1))));""")
    done = rewrite(code)
    assert (done.code, done.helpers, done.left) == (code, (), ())


def test_float_conversions_become_d3d_conversions():
    body = """    var a : i32 = i32(f.x);
    var b : vec4<u32> = vec4<u32>(f);
    var c : vec2<i32> = vec2<i32>(C_0.s_0.m_0[i32(1)].yz);
    var d : vec3<u32> = vec3<u32>(f.xyz * vec3<f32>(2.0f));
    var e : i32 = i32(floor(f.w)) + i32(g_0(f.x)) + i32(C_0.s_0.b_0.y) + i32(mk_0(f.y).a_0);
    var h : u32 = u32(- f.x) + u32((*p)) + u32(tbl_0[w.x]) + u32(2.5);
    var k : i32 = i32(u32(f.x));"""
    done = rewrite(_module(body))
    assert _body(done.code) == """    var a : i32 = gpuia_d3d_ftoi(f.x);
    var b : vec4<u32> = gpuia_d3d_ftou4(f);
    var c : vec2<i32> = gpuia_d3d_ftoi2(C_0.s_0.m_0[i32(1)].yz);
    var d : vec3<u32> = gpuia_d3d_ftou3(f.xyz * vec3<f32>(2.0f));
    var e : i32 = gpuia_d3d_ftoi(floor(f.w)) + gpuia_d3d_ftoi(g_0(f.x)) + \
gpuia_d3d_ftoi(C_0.s_0.b_0.y) + gpuia_d3d_ftoi(mk_0(f.y).a_0);
    var h : u32 = gpuia_d3d_ftou(- f.x) + gpuia_d3d_ftou((*p)) + gpuia_d3d_ftou(tbl_0[w.x]) + \
gpuia_d3d_ftou(2.5);
    var k : i32 = i32(gpuia_d3d_ftou(f.x));"""
    assert done.helpers == ("ftoi1", "ftoi2", "ftou1", "ftou3", "ftou4")
    assert done.left == ()
    tail = done.code[done.code.index("// gpuia: D3D's"):]
    assert [line.split("(")[0] for line in tail.splitlines() if line.startswith("fn ")] == \
        ["fn gpuia_d3d_ftoi", "fn gpuia_d3d_ftoi2", "fn gpuia_d3d_ftou", "fn gpuia_d3d_ftou3",
         "fn gpuia_d3d_ftou4"]


def test_an_f16_argument_is_widened_exactly_first():
    code = "enable f16;\nfn t_0( h : f16,  v : vec2<f16>) -> i32\n{\n" \
           "    return i32(h) + i32(vec2<u32>(v).x);\n}\n"
    assert "return gpuia_d3d_ftoi(f32(h)) + i32(gpuia_d3d_ftou2(vec2<f32>(v)).x);" in \
        rewrite(code).code


def test_unsigned_division_and_remainder_become_d3d_division():
    body = """    var a : u32 = w.x / w.y;
    var b : vec4<u32> = w % (w + vec4<u32>(u32(1)));
    var c : vec2<u32> = w.xy / w.z;
    var d : vec3<u32> = u32(7) % w.xyz;
    var e : u32 = (w.x / w.y) / (w.z % 3);
    a = a % C_0.s_0.arr_0[i32(0)].x;
    a /= w.y;
    c %= w.w;
    var g : i32 = i32(w.x / u32(3));"""
    done = rewrite(_module(body))
    assert _body(done.code) == """    var a : u32 = gpuia_d3d_udiv(w.x, w.y);
    var b : vec4<u32> = gpuia_d3d_umod4(w, (w + vec4<u32>(u32(1))));
    var c : vec2<u32> = gpuia_d3d_udiv2(w.xy, vec2<u32>(w.z));
    var d : vec3<u32> = gpuia_d3d_umod3(vec3<u32>(u32(7)), w.xyz);
    var e : u32 = gpuia_d3d_udiv((gpuia_d3d_udiv(w.x, w.y)), (gpuia_d3d_umod(w.z, 3)));
    a = gpuia_d3d_umod(a, C_0.s_0.arr_0[i32(0)].x);
    a = gpuia_d3d_udiv(a, w.y);
    c = gpuia_d3d_umod2(c, vec2<u32>(w.w));
    var g : i32 = i32(gpuia_d3d_udiv(w.x, u32(3)));"""
    assert done.helpers == ("udiv1", "udiv2", "umod1", "umod2", "umod3", "umod4")


def test_signed_float_and_constant_divisions_stay():
    code = _module("""    var a : i32 = iv.x / iv.y;
    var b : vec4<i32> = iv % iv;
    var c : vec4<f32> = f / f.x;
    var d : f32 = ((f.x) % (f.y));
    var e : i32 = 7 / 2;""")
    done = rewrite(code)
    assert (done.code, done.left) == (code, ())


def test_conversions_and_divisions_nest():
    done = rewrite(_module("""    var a : u32 = u32(f.x) / u32(f.y / 2.0f);
    var b : i32 = i32(f32(w.x / w.y) * f.z);"""))
    assert _body(done.code) == """    var a : u32 = gpuia_d3d_udiv(gpuia_d3d_ftou(f.x), \
gpuia_d3d_ftou(f.y / 2.0f));
    var b : i32 = gpuia_d3d_ftoi(f32(gpuia_d3d_udiv(w.x, w.y)) * f.z);"""


def test_a_name_is_typed_by_its_own_scope():
    done = rewrite(_module("""    var a_0 : f32 = f.x;
    {
        var a_0 : u32 = w.x;
        var b : i32 = i32(a_0);
    }
    var c : i32 = i32(a_0);"""))
    assert _body(done.code) == """    var a_0 : f32 = f.x;
    {
        var a_0 : u32 = w.x;
        var b : i32 = i32(a_0);
    }
    var c : i32 = gpuia_d3d_ftoi(a_0);"""


def test_what_has_no_type_is_left_and_named():
    """Not a float division, though: WGSL's operands share their component type."""
    code = _module("""    var a : i32 = i32(nope_0);
    var b : u32 = nope_0 / w.x;
    var c : i32 = i32(textureLoad(t_0, iv.xy, 0).x);
    C_0.s_0.arr_0[i32(g_0(f.x))].x /= w.x;
    var d : f32 = nope_0 / f.x + textureLoad(t_0, iv.xy, 0).x / 2.0f;""")
    done = rewrite(code)
    line = code.count("\n", 0, code.index("    var a : i32")) + 1
    assert [x.split(":")[0] for x in done.left] == [f"line {line + k}" for k in (0, 1, 2, 3)]
    assert "the argument's type is not read" in done.left[0]
    assert "an operand's type is not read" in done.left[1]
    assert "its left side calls a function" in done.left[3]
    assert _body(done.code) == """    var a : i32 = i32(nope_0);
    var b : u32 = nope_0 / w.x;
    var c : i32 = i32(textureLoad(t_0, iv.xy, 0).x);
    C_0.s_0.arr_0[gpuia_d3d_ftoi(g_0(f.x))].x /= w.x;
    var d : f32 = nope_0 / f.x + textureLoad(t_0, iv.xy, 0).x / 2.0f;"""


def test_module_scope_and_unread_functions_are_left():
    code = ("const k_0 : i32 = i32(1.5f);\n"
            "fn bad_0( x : f32) -> f32\n{\n    var y : f32 = x / +;\n    return y;\n}\n"
            "fn good_0( x : f32) -> i32\n{\n    return i32(x);\n}\n")
    done = rewrite(code)
    assert done.left[0] == "line 1: a conversion or division at module scope"
    assert done.left[1].startswith("function bad_0 is not read: expected an expression")
    assert "const k_0 : i32 = i32(1.5f);" in done.code
    assert "    return gpuia_d3d_ftoi(x);" in done.code
    assert rewrite("fn f() -> i32 { return i32($); }").left[0].startswith(
        "the module is not read: an unexpected character '$'")


def test_every_line_keeps_its_number():
    code = _module("    var a : u32 = (w.x\n        /\n        w.y) + u32(f.x\n        );")
    done = rewrite(code)
    head = done.code[:done.code.index("\n// gpuia: D3D's")]
    assert head.count("\n") == code.count("\n")
    assert "var a : u32 = (gpuia_d3d_udiv(w.x\n        ,\n        w.y)) + gpuia_d3d_ftou(f.x\n" \
           "        );" in head


def test_a_module_without_candidates_is_returned_as_it_is():
    code = _module("    var a : f32 = f.x * 2.0f;")
    assert rewrite(code).code is code


def test_naga_accepts_every_helper():
    """What the helpers are made of: every WGSL back end has select, clamp, max and bitcast."""
    calls = [f"_ = gpuia_d3d_{kind}{'' if n == 1 else n}({arg});"
             for n in (1, 2, 3, 4) for kind, arg in (
                 ("ftoi", "f.x" if n == 1 else f"f.{'xyzw'[:n]}"),
                 ("ftou", "f.x" if n == 1 else f"f.{'xyzw'[:n]}"),
                 ("udiv", "w.x, w.y" if n == 1 else f"w.{'xyzw'[:n]}, w.{'wzyx'[:n]}"),
                 ("umod", "w.x, w.y" if n == 1 else f"w.{'xyzw'[:n]}, w.{'wzyx'[:n]}"))]
    code = "fn t_0( w : vec4<u32>,  f : vec4<f32>)\n{\n" + "\n".join(calls) + "\n}\n" + "".join(
        helper(kind, n) for kind in ("ftoi", "ftou", "udiv", "umod") for n in (1, 2, 3, 4))
    checked, error = library.check_wgsl(code)
    assert error is None, error
    if checked:
        assert library.check_wgsl(code.replace("gpuia_d3d_umod4(", "gpuia_d3d_umod3("))[1]
