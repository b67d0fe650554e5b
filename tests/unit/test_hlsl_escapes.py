"""Slang's ways out of a shader are refused before anything is compiled, built or run
(gpuia.hlsl.escapes): text pasted into the C++ the CPU reference builds and runs, code picked
per target, native calls, modules from disk, raw pointers.

The expected values come from the rules, worked out by hand: each example spells one construct
on line 2 of ``vs.hlsl`` (the construct and the line are written here, not read from gpuia);
macros, includes and defines are followed as Slang's preprocessor follows them, so the refusal
points at the ``##`` that built a name, the included file's line, or the define. Real HLSL
whose tokens merely look like a refused construct (a product, a bitwise and, a variable named
``module``) still compiles.
"""

from __future__ import annotations

import dataclasses

import pytest

import gpuia.hlsl.cpu as hcpu
import gpuia.hlsl.escapes as escapes
import gpuia.hlsl.library as library
from gpuia.errors import InvalidDescError
from gpuia.hlsl import compile_shader


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, tmp_path_factory):
    """Compiles go to a temporary disk cache, never the user's."""
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "escapes-cache"))


HEAD = "struct O { float4 p : SV_Position; float t : TEXCOORD0; };\n"
TAIL = "\nO main(float3 pos : POSITION) { O o; o.p = float4(pos, 1); o.t = f(pos.x); return o; }\n"

# (id, line 2 of vs.hlsl, the construct as spelled there, the table entry: (spelling, match))
EXAMPLES = [
    ("intrinsic_asm", 'float f(float x) { __intrinsic_asm "($0)"; }', "__intrinsic_asm",
     ("__intrinsic_asm", "name")),
    ("require_prelude", 'float f(float x) { __requirePrelude("#include <cstdlib>"); return x; }',
     "__requirePrelude", ("__requirePrelude", "name")),
    ("require_prelude_attribute", '[RequirePrelude(cpp, "static int q = 1;")] struct S { float v; '
     '}; float f(float x) { S s; s.v = x; return s.v; }', "RequirePrelude",
     ("RequirePrelude", "name")),
    ("target_intrinsic", '__target_intrinsic(cpp, "system") float f(float x);',
     "__target_intrinsic", ("__target_intrinsic", "name")),
    ("target_switch", "float f(float x) { __target_switch { case cpp: return 0; default: return "
     "x; } }", "__target_switch", ("__target_switch", "name")),
    ("stage_switch", "float f(float x) { __stage_switch { case vertex: return x; default: return "
     "0; } }", "__stage_switch", ("__stage_switch", "name")),
    ("spirv_asm", "float f(float x) { return spirv_asm { result:$$float = OpFAdd $x $x }; }",
     "spirv_asm", ("spirv_asm", "name")),
    ("vk_spirv_instruction", "[[vk::spirv_instruction(129)]] float f(float x);",
     "vk::spirv_instruction", ("vk_spirv_instruction", "name")),
    ("require", "[require(cpp)] float f(float x) { return x; }", "require", ("require", "name")),
    ("syntax", "syntax plain : ExternCppModifier; float f(float x) { return x; }", "syntax",
     ("syntax", "declaration")),
    ("attribute_syntax", "attribute_syntax [Paste(target, text: String)] : "
     "RequirePreludeAttribute; float f(float x) { return x; }", "attribute_syntax",
     ("attribute_syntax", "name")),
    ("extern_cpp", "__extern_cpp float strtof(NativeString s, int e); float f(float x) { return "
     "x; }", "__extern_cpp", ("__extern_cpp", "name")),
    ("global", "__global float g; float f(float x) { return x + g; }", "__global",
     ("__global", "name")),
    ("dll_import", '[DllImport("libc.so.6")] float sinf(float x); float f(float x) { return '
     'sinf(x); }', "DllImport", ("DllImport", "name")),
    ("dll_export", "[DllExport] float f(float x) { return x; }", "DllExport",
     ("DllExport", "name")),
    *[(name, f"[{name}] float f(float x) {{ return x; }}", name, (name, "name"))
      for name in ("TorchEntryPoint", "CudaDeviceExport", "CudaHost", "CudaKernel",
                   "CUDADeviceExport", "CUDAHost", "CUDAKernel", "AutoPyBindCUDA")],
    ("py_export", '[PyExport("s")] struct S { float v; }; float f(float x) { return x; }',
     "PyExport", ("PyExport", "name")),
    ("com", '[COM("8e2f3a1b-0000-4000-8000-000000000000")] interface IHost { float get(); }; '
     "float f(float x) { return x; }", "COM", ("COM", "call")),
    ("create_dynamic_object", "interface I { float g(); }; float f(float x) { I i = "
     "createDynamicObject<I>(7u); return i.g(); }", "createDynamicObject",
     ("createDynamicObject", "name")),
    ("import", "import helpers; float f(float x) { return x; }", "import",
     ("import", "declaration")),
    ("include_declaration", '__include "helpers"; float f(float x) { return x; }', "__include",
     ("__include", "name")),
    ("implementing", "implementing helpers; float f(float x) { return x; }", "implementing",
     ("implementing", "declaration")),
    ("module", "module helpers; float f(float x) { return x; }", "module",
     ("module", "declaration")),
    ("ptr", "float f(float x) { Ptr<float> p = Ptr<float>(uint64_t(4096)); return p[0]; }",
     "Ptr", ("Ptr", "name")),
    ("immutable_ptr", "float f(float x) { ImmutablePtr<float> p; return x; }", "ImmutablePtr",
     ("ImmutablePtr", "name")),
    ("layout_ptr", "float f(float x) { LayoutPtr<float, DefaultDataLayout> p; return x; }",
     "LayoutPtr", ("LayoutPtr", "name")),
    ("node_payload_ptr", "float f(float x) { NodePayloadPtr<float> p; return x; }",
     "NodePayloadPtr", ("NodePayloadPtr", "name")),
    ("buffer_pointer", "float f(float x) { return vk::BufferPointer<float>(uint64_t(4096)).Get(); "
     "}", "BufferPointer", ("BufferPointer", "name")),
    ("const_buffer_pointer", "float f(float x) { return ConstBufferPointer<float>::fromUInt("
     "uint64_t(4096)).get(); }", "ConstBufferPointer", ("ConstBufferPointer", "name")),
    ("get_buffer_pointer", "ByteAddressBuffer b; float f(float x) { return "
     "b.GetBufferPointer()[0]; }", "GetBufferPointer", ("GetBufferPointer", "name")),
    ("native_ref", "float f(float x) { NativeRef<float> r; return x; }", "NativeRef",
     ("NativeRef", "name")),
    ("native_string", 'float f(float x) { NativeString s = "x"; return x; }', "NativeString",
     ("NativeString", "name")),
    ("nullptr", "float f(float x) { return nullptr == nullptr ? x : 0; }", "nullptr",
     ("nullptr", "name")),
    ("null_ptr_type", "float f(float x) { NullPtr p; return x; }", "NullPtr",
     ("NullPtr", "name")),
    ("bit_cast", "float f(float x) { return bit_cast<float>(asuint(x)); }", "bit_cast",
     ("bit_cast", "name")),
    ("reinterpret", "float f(float x) { return reinterpret<float>(x); }", "reinterpret",
     ("reinterpret", "name")),
    ("functype", "float apply(functype(float)->float g, float x) { return g(x); } float f(float "
     "x) { return x; }", "functype", ("functype", "name")),
    ("get_address", "float f(float x) { let p = __getAddress(x); return x; }", "__getAddress",
     ("__getAddress", "name")),
    ("pointer_declaration", "float f(float x) { float* p; return x; }", "*",
     ("*", "pointer type")),
    ("pointer_cast", "struct S { float v; }; float f(float x) { return ((S*)x).v; }", "*",
     ("*", "pointer type")),
    ("pointer_of_a_struct", "struct S { float v; }; float f(float x) { S* p = 0; return x; }",
     "*", ("*", "pointer type")),
    ("pointer_in_a_generic_function", "float g<T : IFloat>(T a = {}, T* p) { return "
     "a.toFloat(); } float f(float x) { return x; }", "*", ("*", "pointer type")),
    ("address_of", "float f(float x) { let p = &x; return x; }", "&", ("&", "address of")),
    ("dereference", "float f(float x) { return *x; }", "*", ("*", "dereference")),
    ("reserved_name", "float __helper(float x) { return x; } float f(float x) { return "
     "__helper(x); }", "__helper", ("__", "prefix")),
    ("scoped_attribute_name", "[::_extern] float f(float x);", "::_extern", ("__", "prefix")),
]


def refusal(src: str, **kw) -> InvalidDescError:
    with pytest.raises(InvalidDescError) as info:
        compile_shader(src, file_name="vs.hlsl", **kw)
    return info.value


@pytest.mark.parametrize("line, spelled, entry", [e[1:] for e in EXAMPLES],
                         ids=[e[0] for e in EXAMPLES])
def test_each_construct_is_refused_naming_it_and_its_line(line, spelled, entry):
    e = refusal(HEAD + line + TAIL)
    assert (e.field, e.value) == ("vs.hlsl:2", spelled), str(e)
    assert "gpuia refuses Slang's ways out of a shader" in e.rule, str(e)
    refused = next(r for r in escapes.REFUSED if (r.spelling, r.match) == entry)
    assert refused.why in e.rule


def test_every_entry_of_the_table_has_an_example_here():
    """A construct added to the table gets its negative test too."""
    assert {(r.spelling, r.match) for r in escapes.REFUSED} == {e[3] for e in EXAMPLES}


def test_the_published_exploit_is_refused_before_slang_compiles_anything(monkeypatch):
    """The shape of the reported case: a __target_switch whose cpp branch pastes a static
    initialiser calling system(). Slang is asked for nothing but the preprocessed tokens."""
    asked = []
    real = library.compile_source

    def spy(source, file_name, entry_point, stage, target, *args, **kw):
        asked.append(target)
        return real(source, file_name, entry_point, stage, target, *args, **kw)

    monkeypatch.setattr(library, "compile_source", spy)
    e = refusal("float pwn(float x) {\n    __target_switch {\n    case cpp:\n"
                '        __requirePrelude("#include <cstdlib>\\nstatic int x = std::system('
                '\\"touch /tmp/gpuia-escapes-test\\");");\n        __intrinsic_asm "($0)";\n'
                "    default:\n        return x;\n    }\n}\n"
                "struct O { float4 p : SV_Position; float t : TEXCOORD0; };\n"
                "O main(float3 pos : POSITION) { O o; o.p = float4(pos, 1); o.t = pwn(pos.x); "
                "return o; }\n")
    assert (e.field, e.value) == ("vs.hlsl:2", "__target_switch"), str(e)
    assert asked == [library.PREPROCESS]


@pytest.mark.parametrize("define", ["#define PASTE(a, b) a ## b", "#define PASTE(a, b) a##b"])
def test_a_name_built_by_token_pasting_is_refused_at_the_paste(define):
    e = refusal(HEAD + define + "\nfloat f(float x) { PASTE(__intrin, sic_asm) \"($0)\"; }" + TAIL)
    assert (e.field, e.value) == ("vs.hlsl:2 (built by this ## paste)", "__intrinsic_asm"), str(e)


def test_a_construct_in_an_included_file_is_refused_at_its_line(tmp_path):
    inc = tmp_path / "helpers.hlsli"
    inc.write_text("// helpers\nfloat f(float x) { __requirePrelude(\"#include <unistd.h>\"); "
                   "return x; }\n")
    e = refusal(HEAD + '#include "helpers.hlsli"' + TAIL, include_dirs=[tmp_path])
    assert (e.field, e.value) == (f"{inc}:2", "__requirePrelude"), str(e)


def test_a_construct_in_a_define_is_refused_naming_the_define():
    e = refusal(HEAD + 'float f(float x) { ASM "($0)"; }' + TAIL,
                defines={"ASM": "__intrinsic_asm"})
    assert (e.field, e.value) == ("defines.ASM", "__intrinsic_asm"), str(e)


def test_a_construct_behind_an_inactive_branch_is_not_there():
    """What the preprocessor drops is not compiled: only what Slang's parser reads counts."""
    shader = compile_shader(HEAD + "#if 0\n__target_switch\n#endif\n"
                            "float f(float x) { return x * 2; }" + TAIL, file_name="vs.hlsl")
    assert shader.entry_point == "main"


def test_a_name_inside_a_string_counts_too():
    """A margin against reading a literal's end differently from Slang: names in literals."""
    assert escapes.first_escape('R"x( " )x" __target_switch').spelled == "__target_switch"
    assert escapes.first_escape('"__intrinsic_asm"').spelled == "__intrinsic_asm"


LOOK_ALIKES = """
struct O { float4 p : SV_Position; float4 c : COLOR0; float4 m : TEXCOORD0; };
struct Light { float3 dir; float power; };
struct Holder { float Light; };
cbuffer K : register(b0) { float4x4 World; float Scale; Holder h; };
float shade(Light l, float3 n) { return saturate(dot(n, -l.dir)) * l.power; }
O main(float3 pos : POSITION, float3 n : NORMAL, uint vid : SV_VertexID) {
    float module = 2.0; float COM = pos.x * module; float implementing = 1; float import = 3;
    uint mask = vid & 3u; bool both = (mask != 0) && (vid > 1);
    Light light; light.dir = float3(0, 0, 1); light.power = Scale * 0.5;
    float lit = shade(light, n) * (float)mask;
    O o; o.p = mul(World, float4(pos * COM, 1)) * Scale;
    o.c = float4(both ? 1 : 0, lit, implementing, (float)(vid & 1) * import);
    o.m = float4(sizeof(float) * 0.25, h.Light * 2, 0, 1);
    return o;
}
"""


def test_real_hlsl_that_looks_like_a_refused_construct_compiles():
    """Products after a cast and between names, a bitwise and, && and sizeof(float) * k; a
    struct named and used as a type, and a member named as that type (h.Light * 2); variables
    named module, implementing, import and COM."""
    shader = compile_shader(LOOK_ALIKES, file_name="vs.hlsl")
    assert [lf.semantic for lf in shader.entry.outputs()] == ["SV_POSITION", "COLOR", "TEXCOORD"]


def test_the_cpu_build_checks_the_text_it_compiles_before_the_compiler_runs(monkeypatch):
    """A compiled shader whose source is not what was checked (a stale or planted record) is
    refused when its CPU build is made, before Slang emits C++ and before g++ runs."""
    shader = compile_shader("float4 main(float4 p : POSITION) : SV_Position { return p * 3; }",
                            file_name="vs.hlsl")
    planted = dataclasses.replace(shader, source="float4 main(float4 p : POSITION) : SV_Position"
                                                 "\n{ __intrinsic_asm \"($0)\"; }")
    asked = []
    real = library.compile_source

    def spy(source, file_name, entry_point, stage, target, *args, **kw):
        asked.append(target)
        return real(source, file_name, entry_point, stage, target, *args, **kw)

    def no_compiler(*args, **kw):
        raise AssertionError("the C++ compiler must not run")

    monkeypatch.setattr(library, "compile_source", spy)
    monkeypatch.setattr(hcpu.sandbox, "run", no_compiler)
    monkeypatch.setenv("GPUIA_CACHE_DIR", "none")
    with pytest.raises(InvalidDescError) as info:
        hcpu.cpu_shader(planted)
    assert (info.value.field, info.value.value) == ("vs.hlsl:2", "__intrinsic_asm")
    assert asked == [library.PREPROCESS]


def test_a_template_parameter_is_a_type_only_in_its_template():
    """HLSL 2021's template <typename T> makes T a type inside that declaration only: elsewhere
    a variable T times a value is a product (WickedEngine's tangent frame, float3x3(T *
    invmax, ...)), while T * inside the template is still a pointer."""
    frame = ("template <typename T> T twice(T x) { return x * 2; }\n"
             "float3x3 frame(float3 T, float3 B, float3 N, float invmax)\n"
             "{ return float3x3(T * invmax, B * invmax, N); }\n")
    assert escapes.first_escape(frame) is None
    inside = "template <typename T> void f(T * p, T x) { }\n"
    found = escapes.first_escape(inside)
    assert found is not None and found.refused.match == "pointer type"


@pytest.mark.parametrize("src", [
    "float g<T>(T* p = {}) { return 0; }",  # Slang's generic function: T is its type
    "float g<T : IFloat>(T a = {}, T* p) { return 0; }",  # past a default argument's braces
    "float g<T : IFloat, let N : int>(T * p) { return 0; }",
])
def test_a_generic_functions_type_parameter_is_a_type_in_it(src):
    """float g<T>(T* p): T is a type within g (it passed as a product of two names)."""
    found = escapes.first_escape(src)
    assert found is not None and found.refused.match == "pointer type"


@pytest.mark.parametrize("src", [
    "float g<T>(T x) { return 0; } float h(float T, float k) { return T * k; }",
    "bool h(int a, int b, int c, int d) { return a < b > (c * d); }",  # comparisons
    "bool h(int a, int b, int c, int d) { bool r = a < b > (c * d); return r; }",
    "float h(float x) { return f<float>(x * 2); }",  # a call with a type argument
])
def test_a_generic_functions_type_parameter_is_no_type_elsewhere(src):
    assert escapes.first_escape(src) is None
