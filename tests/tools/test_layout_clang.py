"""``gpuia layout`` reads C/C++ through libclang: the compiler's preprocessor, struct layout and
constant evaluation, the D3D header on the include path or gpuia's stub, and the compiler's
diagnostics.

Every expected offset and size is derived by hand from the C layout rules (each member at the
next multiple of its alignment, the struct's size a multiple of its largest alignment; MSVC x64:
``long`` 4 bytes, ``wchar_t`` 2; x86_64 Linux, LP64: ``long`` 8, ``wchar_t`` 4; ``#pragma
pack(1)``: alignment 1) and written in a comment next to it. Several tests are the defects the
hand-written front end had: each names it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gpuia.cli import main
from gpuia.errors import UnsupportedError
from gpuia.source import SourceError, read_source
from gpuia.source.d3d_header import stub_headers

VKD3D = Path("/usr/include/vkd3d")
DATA = Path(__file__).resolve().parents[1] / "data" / "layouts"


def _source(tmp_path, text: str, name: str = "a.cpp", **options):
    path = tmp_path / name
    path.write_text(text)
    return read_source(path, **options)


def _array(source, name: str):
    found = [a for a in source.arrays if a.name == name]
    assert len(found) == 1, [a.name for a in source.arrays]
    return found[0]


def _offsets(arr) -> list:
    assert arr.error is None, arr.error
    return [e["AlignedByteOffset"] for e in arr.elements]


def _element(semantic: str, offset: str) -> str:
    return f'{{ "{semantic}", 0, DXGI_FORMAT_R32_FLOAT, 0, {offset} }},'


# -- the preprocessor and the layout are the compiler's ---------------------------------------
def test_pragma_pack_1_puts_the_member_after_a_byte_at_25_not_26(tmp_path):
    # Defect: #pragma pack was ignored (the hand-written layout gave 26 with no note).
    source = _source(tmp_path, """
#pragma pack(push, 1)
struct Packed { float pos[3]; float nrm[3]; unsigned char tag; float uv[2]; };
#pragma pack(pop)
struct Natural { float pos[3]; float nrm[3]; unsigned char tag; float uv[2]; };
const D3D12_INPUT_ELEMENT_DESC layout[] = {
""" + _element("PACKED", "offsetof(Packed, uv)") + _element("NATURAL", "offsetof(Natural, uv)")
        + _element("SIZE", "sizeof(Packed)") + "};\n")
    # pos 0..11, nrm 12..23, tag 24; packed: uv at 25, size 25 + 8 = 33;
    # natural: uv at the next multiple of 4 after 25, 28.
    assert _offsets(_array(source, "layout")) == [25, 28, 33]
    assert source.diagnostics == []


def test_only_the_if_branch_the_defines_choose_is_reported(tmp_path):
    # Defect: both branches of #if USE_HALF were reported as two arrays.
    text = """
#if USE_HALF
const D3D12_INPUT_ELEMENT_DESC layout[] = { { "TEXCOORD", 0, DXGI_FORMAT_R16G16_FLOAT } };
#else
const D3D12_INPUT_ELEMENT_DESC layout[] = { { "TEXCOORD", 0, DXGI_FORMAT_R32G32_FLOAT } };
#endif
"""
    plain = _source(tmp_path, text)
    assert [a.elements[0]["Format"] for a in plain.arrays] == ["R32G32_FLOAT"]
    half = _source(tmp_path, text, defines=["USE_HALF=1"])
    assert [a.elements[0]["Format"] for a in half.arrays] == ["R16G16_FLOAT"]


def test_an_if_inside_a_struct_moves_offsetof_as_the_compiler_does(tmp_path):
    # Defect: an #if inside a struct dropped both branches: offsetof(Vertex, uv) read 12 even
    # when the tangent is compiled in.
    text = """
struct Vertex {
    float pos[3];
#ifdef WITH_TANGENT
    float tangent[3];
#endif
    float uv[2];
};
const D3D12_INPUT_ELEMENT_DESC layout[] = {
""" + _element("TEXCOORD", "offsetof(Vertex, uv)") + "};\n"
    # pos is 12 bytes; the tangent adds 12 more: uv at 12 without it, 24 with it.
    assert _offsets(_array(_source(tmp_path, text), "layout")) == [12]
    assert _offsets(_array(_source(tmp_path, text, defines=["WITH_TANGENT"]), "layout")) == [24]


def test_token_pasting_stringizing_and_variadic_macros(tmp_path):
    # Defect: `#define FMT(x) DXGI_FORMAT_##x` failed with an error inside gpuia's own parse.
    source = _source(tmp_path, """
#define FMT(x) DXGI_FORMAT_##x
#define SEMANTIC(x) #x
#define ELEMENT(...) { __VA_ARGS__ }
const D3D12_INPUT_ELEMENT_DESC layout[] = {
    ELEMENT(SEMANTIC(POSITION), 0, FMT(R32G32B32_FLOAT), 0, 0),
    { SEMANTIC(TEXCOORD), 1, FMT(R16G16_FLOAT), 0, 12 },
};
""")
    arr = _array(source, "layout")
    assert [(e["SemanticName"], e["SemanticIndex"], e["Format"], e["AlignedByteOffset"])
            for e in arr.elements] == [("POSITION", 0, "R32G32B32_FLOAT", 0),
                                       ("TEXCOORD", 1, "R16G16_FLOAT", 12)]


def test_an_ifdef_inside_an_initializer_and_a_macro_for_a_whole_element(tmp_path):
    # Defect: both were refused.
    text = """
#define NORMAL_ELEMENT { "NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, D3D12_APPEND_ALIGNED_ELEMENT }
const D3D12_INPUT_ELEMENT_DESC layout[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0 },
#ifdef WITH_COLOR
    { "COLOR", 0, DXGI_FORMAT_R8G8B8A8_UNORM, 0, D3D12_APPEND_ALIGNED_ELEMENT },
#endif
    NORMAL_ELEMENT,
};
"""
    without = _array(_source(tmp_path, text), "layout")
    assert [e["SemanticName"] for e in without.elements] == ["POSITION", "NORMAL"]
    with_color = _array(_source(tmp_path, text, defines=["WITH_COLOR"]), "layout")
    assert [e["SemanticName"] for e in with_color.elements] == ["POSITION", "COLOR", "NORMAL"]
    assert with_color.elements[2]["AlignedByteOffset"] == "APPEND_ALIGNED_ELEMENT"


def test_constexpr_templates_and_static_assert_are_the_compilers(tmp_path):
    text = """
#include <DirectXMath.h>
using namespace DirectX;
template <class T> struct Skinned { T base; uint32_t bones; };
struct Plain { XMFLOAT3 pos; XMFLOAT2 uv; };
template <class T> constexpr UINT kStride = sizeof(T);
constexpr UINT AlignUp4(UINT x) { return (x + 3) & ~3u; }
static_assert(sizeof(Plain) == 20, "Plain is 20 bytes");
const D3D12_INPUT_ELEMENT_DESC layout[] = {
""" + _element("BONES", "offsetof(Skinned<Plain>, bones)") + _element(
        "STRIDE", "kStride<Skinned<Plain>>") + _element("ALIGNED", "AlignUp4(13)") + "};\n"
    # Plain: XMFLOAT3 (12) + XMFLOAT2 (8) = 20, 4-byte aligned; Skinned<Plain>: bones at 20,
    # size 24; AlignUp4(13) = 16.
    source = _source(tmp_path, text)
    assert _offsets(_array(source, "layout")) == [20, 24, 16]
    assert source.diagnostics == []
    failing = _source(tmp_path, text.replace("== 20", "== 24"))
    assert [d.message for d in failing.diagnostics if "static assertion" in d.message]
    assert _offsets(_array(failing, "layout")) == [20, 24, 16]  # the arrays are still read


@pytest.mark.parametrize("target,expected", [
    # MSVC x64: c 0; long (4) at 4; wchar_t (2) at 8; float at 12 (10 rounded up to 4);
    # size 16.
    ("x86_64-pc-windows-msvc", [4, 8, 12, 16]),
    # x86_64 Linux (LP64): long (8) at 8; wchar_t (4) at 16; float at 20; size 24.
    ("x86_64-linux-gnu", [8, 16, 20, 24]),
])
def test_long_and_wchar_t_follow_the_target(tmp_path, target, expected):
    # Defect: long and wchar_t had MSVC's sizes whatever the source was built for.
    source = _source(tmp_path, """
struct S { char c; long l; wchar_t w; float f; };
const D3D12_INPUT_ELEMENT_DESC layout[] = {
""" + "".join(_element(n, e) for n, e in [("L", "offsetof(S, l)"), ("W", "offsetof(S, w)"),
                                          ("F", "offsetof(S, f)"), ("SIZE", "sizeof(S)")])
        + "};\n", target=target)
    assert _offsets(_array(source, "layout")) == expected


def test_c_conversions_wrap_as_c_does(tmp_path):
    source = _source(tmp_path, """
static const D3D12_SO_DECLARATION_ENTRY so[] = {
    { 0, "POSITION", 0, 0, 0x104, 0 },
};
static const D3D12_INPUT_ELEMENT_DESC layout[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, -1 },
};
""", name="a.c")
    # ComponentCount is a BYTE: 0x104 becomes 4. -1 becomes UINT 0xFFFFFFFF, which is
    # D3D12_APPEND_ALIGNED_ELEMENT.
    assert _array(source, "so").elements[0]["ComponentCount"] == 4
    assert _offsets(_array(source, "layout")) == ["APPEND_ALIGNED_ELEMENT"]
    assert source.language == "C"


def test_a_constant_condition_around_a_push_is_evaluated(tmp_path):
    source = _source(tmp_path, """
constexpr bool kWithTangent = WITH_TANGENT;
void f() {
    std::vector<D3D12_INPUT_ELEMENT_DESC> v;
    v.push_back({ "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT });
    if (kWithTangent)
        v.push_back({ "TANGENT", 0, DXGI_FORMAT_R32G32B32_FLOAT });
}
""", defines=["WITH_TANGENT=0"])
    arr = _array(source, "v")
    assert [e["SemanticName"] for e in arr.elements] == ["POSITION"]
    assert not any(n.startswith("condition") for n in arr.notes)


# -- the D3D header -----------------------------------------------------------------------------
def test_the_stub_header_is_reported_and_holds_the_real_values(tmp_path):
    source = _source(tmp_path, """
#include <d3d12.h>
const D3D12_INPUT_ELEMENT_DESC layout[] = {
    { "A", 0, DXGI_FORMAT_R10G10B10A2_UNORM, (UINT)DXGI_FORMAT_R10G10B10A2_UNORM,
      D3D12_APPEND_ALIGNED_ELEMENT, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 1 },
};
""")
    assert source.d3d_header is None and "stub" in source.header_text
    # dxgiformat.h: DXGI_FORMAT_R10G10B10A2_UNORM = 24; D3D12_APPEND_ALIGNED_ELEMENT is
    # 0xffffffff; D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA = 1.
    assert _array(source, "layout").elements == [
        {"SemanticName": "A", "SemanticIndex": 0, "Format": "R10G10B10A2_UNORM",
         "InputSlot": 24, "AlignedByteOffset": "APPEND_ALIGNED_ELEMENT",
         "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}]
    assert source.diagnostics == []


def test_the_stub_headers_compile_without_a_diagnostic(tmp_path):
    includes = "".join(f"#include <{name}>\n" for name in stub_headers())
    for name in ("a.cpp", "a.c"):
        assert _source(tmp_path, includes, name=name).diagnostics == []


def test_the_generated_headers_are_found_whatever_the_case_as_on_windows(tmp_path):
    # Defect: `#include <Windows.h>` (the Windows SDK's own spelling) was not found on a
    # case-sensitive file system, nor <D3D12.h>: UINT and the D3D types were undeclared.
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "engine.h").write_text(
        "#include <WINDOWS.H>\n#define MATH_HEADER <directxmath.h>\n#include MATH_HEADER\n"
        "struct V { DirectX::XMFLOAT3 p; UINT c; };\n")
    source = _source(tmp_path, """
#include <Windows.h>
#include <D3D12.h>
#include "engine.h"
#include <Vector>
std::vector<D3D12_INPUT_ELEMENT_DESC> layout = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0 },
    { "COLOR", 0, DXGI_FORMAT_R8G8B8A8_UNORM, 0, offsetof(V, c) },
};
""", include_dirs=[tmp_path / "inc"])
    assert source.diagnostics == []
    # V: XMFLOAT3 (12 bytes), then c at 12.
    assert _offsets(_array(source, "layout")) == [0, 12]
    assert source.d3d_header is None


def test_a_real_header_is_found_under_another_case_of_its_generated_name(tmp_path):
    # <D3D12.h> names d3d12.h, as on Windows: the real one on the include path.
    header = _own_header(tmp_path / "sdk", "const char *SemanticName; UINT SemanticIndex; "
                         "DXGI_FORMAT Format; UINT InputSlot; UINT AlignedByteOffset; "
                         "D3D12_INPUT_CLASSIFICATION InputSlotClass; UINT InstanceDataStepRate;")
    source = _source(tmp_path, """
#include <D3D12.h>
const D3D12_INPUT_ELEMENT_DESC layout[] = { { "A", 0, DXGI_FORMAT_R32_FLOAT, 0, 4 } };
""", include_dirs=[tmp_path / "sdk"])
    assert source.d3d_header == str(header)
    assert not [d for d in source.diagnostics if "not found" in d.message]
    assert _offsets(_array(source, "layout")) == [4]


def test_directxmath_types_have_the_real_headers_constructors_and_layout(tmp_path):
    # Defect: the stub's XMFLOAT3 had no constructors, so `XMFLOAT3 v(0, 0.25f, 0)` (common in
    # engine code) was a C++20 parenthesized aggregate initialization, a cursor kind (155) the
    # libclang bindings do not know: the read ended in a ValueError traceback.
    source = _source(tmp_path, """
#include <DirectXPackedVector.h>
using namespace DirectX;
using namespace DirectX::PackedVector;
struct Half { float f; XMHALF4 h; };
struct Aligned { float f; XMFLOAT3A a; };
struct Colored { unsigned char tag; XMCOLOR c; };
constexpr XMFLOAT3 kUp(0, 0.25f, 0);
void Setup() {
    XMFLOAT3 v(0, 0.25f, 0);
    XMFLOAT4X4 world(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
    XMFLOAT2 uv[] = { { 0, 1 }, XMFLOAT2(1, 1) };
    (void)v; (void)world; (void)uv;
}
const D3D12_INPUT_ELEMENT_DESC layout[] = {
""" + _element("HALF", "offsetof(Half, h)") + _element("ALIGNED", "offsetof(Aligned, a)")
        + _element("COLOR", "offsetof(Colored, c)") + _element("UP", "(UINT)(kUp.y * 4)")
        + "};\n")
    # DirectXPackedVector.h: XMHALF4 is a union with a uint64_t v, so 8-byte aligned: h at 8.
    # DirectXMath.h: XMFLOAT3A is XM_ALIGNED_STRUCT(16): a at 16. XMCOLOR is a union with a
    # uint32_t c: 4-byte aligned, c at 4. The constexpr constructor makes kUp.y 0.25: 1.
    assert _offsets(_array(source, "layout")) == [8, 16, 4, 1]
    assert source.diagnostics == []


def test_a_cursor_kind_the_bindings_do_not_know_is_read_as_another_construct(tmp_path):
    # Defect: any C++20 parenthesized aggregate initialization (a kind newer than the libclang
    # bindings) ended the whole read in a ValueError traceback, losing every array.
    source = _source(tmp_path, """
struct Pair { float a, b; };
void First() {
    Pair p(1, 2);
    D3D12_INPUT_ELEMENT_DESC before[] = { { "A", 0, DXGI_FORMAT_R32_FLOAT, 0, 4 } };
    (void)p; (void)before;
}
const D3D12_INPUT_ELEMENT_DESC one("B", 0, DXGI_FORMAT_R32_FLOAT);
const D3D12_INPUT_ELEMENT_DESC paren[] = { one };
void Second() {
    std::vector<D3D12_INPUT_ELEMENT_DESC> v;
    v.push_back({ "C", 0, DXGI_FORMAT_R32_FLOAT, 0, 8 });
    v.push_back(D3D12_INPUT_ELEMENT_DESC("D", 0, DXGI_FORMAT_R32_FLOAT));
}
const D3D12_INPUT_ELEMENT_DESC after[] = { { "E", 0, DXGI_FORMAT_R32_FLOAT, 0, 12 } };
""")
    assert _offsets(_array(source, "before")) == [4]
    assert _offsets(_array(source, "after")) == [12]
    # An element initialized with parentheses is refused, by name, not misread.
    where = tmp_path / "a.cpp"
    assert str(_array(source, "paren").error) == (
        f"{where}:9:44: array paren: element 0: `one` is not a brace initializer of "
        f"D3D12_INPUT_ELEMENT_DESC")
    assert str(_array(source, "v").error).startswith(f"{where}:13:17: array v: element 1: ")


def test_an_array_the_reader_fails_on_costs_that_array_only(tmp_path, monkeypatch):
    from gpuia.source import cpp

    items = cpp._Reader._items

    def fails_on_b(self, index, container, arr, kind):
        if arr.name == "b":
            raise ValueError("an unexpected construct")
        return items(self, index, container, arr, kind)

    monkeypatch.setattr(cpp._Reader, "_items", fails_on_b)
    (tmp_path / "a.cpp").write_text("".join(
        f'const D3D12_INPUT_ELEMENT_DESC {n}[] = {{ {{ "A", 0, DXGI_FORMAT_R32_FLOAT }} }};\n'
        for n in "abc"))
    source = cpp.extract_cpp(tmp_path / "a.cpp")  # in this process, where the patch is
    assert [(a.name, len(a.elements)) for a in source.arrays] == [("a", 1), ("b", 0), ("c", 1)]
    assert str(source.arrays[1].error) == (
        f"{tmp_path / 'a.cpp'}:2:32: array b: gpuia cannot read this array (ValueError: an "
        f"unexpected construct); the file's other arrays are read")


def _own_header(folder: Path, fields: str) -> Path:
    folder.mkdir()
    (folder / "d3d12.h").write_text(f"""
#pragma once
typedef unsigned int UINT;
typedef enum DXGI_FORMAT {{ DXGI_FORMAT_R32_FLOAT = 41 }} DXGI_FORMAT;
typedef enum D3D12_INPUT_CLASSIFICATION {{ D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA = 0 }}
    D3D12_INPUT_CLASSIFICATION;
typedef struct D3D12_INPUT_ELEMENT_DESC {{ {fields} }} D3D12_INPUT_ELEMENT_DESC;
""")
    return folder / "d3d12.h"


def test_the_users_own_d3d12_header_is_found_through_include(tmp_path):
    header = _own_header(tmp_path / "sdk", "const char *SemanticName; UINT SemanticIndex; "
                         "DXGI_FORMAT Format; UINT InputSlot; UINT AlignedByteOffset; "
                         "D3D12_INPUT_CLASSIFICATION InputSlotClass; UINT InstanceDataStepRate;")
    source = _source(tmp_path, """
#include <d3d12.h>
const D3D12_INPUT_ELEMENT_DESC layout[] = { { "A", 0, DXGI_FORMAT_R32_FLOAT, 0, 4 } };
""", include_dirs=[tmp_path / "sdk"])
    assert source.d3d_header == str(header)
    assert _offsets(_array(source, "layout")) == [4]


def test_a_header_whose_struct_differs_is_an_error_naming_its_fields(tmp_path):
    _own_header(tmp_path / "sdk", "const char *SemanticName; DXGI_FORMAT Format;")
    source = _source(tmp_path, """
#include <d3d12.h>
const D3D12_INPUT_ELEMENT_DESC layout[] = { { "A", DXGI_FORMAT_R32_FLOAT } };
""", include_dirs=[tmp_path / "sdk"])
    error = str(_array(source, "layout").error)
    assert "declares D3D12_INPUT_ELEMENT_DESC with the fields SemanticName, Format" in error


@pytest.mark.skipif(not (VKD3D / "vkd3d_d3d12.h").is_file(),
                    reason="Debian's libvkd3d-headers are not installed (.ci/setup installs them)")
def test_debians_vkd3d_header_is_used_for_a_linux_build():
    with_vkd3d = read_source(DATA / "d3d12_pso.c", include_dirs=[VKD3D],
                             target="x86_64-linux-gnu")
    assert with_vkd3d.d3d_header == str(VKD3D / "vkd3d_d3d12.h")
    assert with_vkd3d.diagnostics == []
    stub = read_source(DATA / "d3d12_pso.c")
    assert [(a.name, a.elements, a.buffer_strides) for a in with_vkd3d.arrays] == \
        [(a.name, a.elements, a.buffer_strides) for a in stub.arrays]


# -- files that do not compile --------------------------------------------------------------
BROKEN = """#include "missing_engine_header.h"
struct Known { float p[3]; unsigned int c; };
const D3D12_INPUT_ELEMENT_DESC good[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0 },
    { "COLOR", 0, DXGI_FORMAT_R8G8B8A8_UNORM, 0, offsetof(Known, c) },
};
void Setup(Engine& engine) { engine.Start(); }
const D3D12_INPUT_ELEMENT_DESC bad[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0 },
    { "NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, kNormalOffset + 4 },
};
template <class T> void Outer<T>::Build()
{
    D3D12_INPUT_ELEMENT_DESC lost[] = { { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT } };
}
"""


def test_a_file_that_does_not_compile_still_yields_every_readable_array(tmp_path):
    source = _source(tmp_path, BROKEN)
    where = str(tmp_path / "a.cpp")
    assert [(d.line, d.severity) for d in source.diagnostics] == [
        (1, "error"), (7, "error"), (10, "error"), (12, "error")]
    assert all(str(d).startswith(f"{where}:{d.line}:") for d in source.diagnostics)
    # Known: p is 12 bytes, so c is at 12.
    assert _offsets(_array(source, "good")) == [0, 12]


def test_a_value_that_depends_on_an_undeclared_name_names_array_element_field_and_name(
        tmp_path):
    arr = _array(_source(tmp_path, BROKEN), "bad")
    text = str(arr.error)
    assert text.startswith(f"{tmp_path / 'a.cpp'}:10:52: array bad: element 1: "
                           f"AlignedByteOffset: ")
    assert "`kNormalOffset + 4` depends on `kNormalOffset`, which is not declared" in text
    assert arr.elements == []


def test_a_struct_that_does_not_compile_is_named_with_its_own_error(tmp_path):
    """XMCOLOR is DirectX::PackedVector's, not DirectXMath's: the struct does not compile, and
    C++ then refuses to narrow `offsetof` into a UINT, an error at every element. The cause is
    the struct's error, which the refusal names with the struct (before: the narrowing, with the
    struct's error only a warning higher up)."""
    source = _source(tmp_path, """#include <DirectXMath.h>
using namespace DirectX;
struct Vertex {
    XMFLOAT3 pos;
    XMCOLOR color;
};
const D3D12_INPUT_ELEMENT_DESC layout[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, offsetof(Vertex, pos) },
    { "COLOR", 0, DXGI_FORMAT_B8G8R8A8_UNORM, 0, offsetof(Vertex, color) },
};
""")
    where = tmp_path / "a.cpp"
    # struct Vertex at line 3, column 8; XMCOLOR at line 5, column 5; the first element's
    # offsetof at line 8, column 54 (after 4 spaces and `{ "POSITION", 0, DXGI_..._FLOAT, 0, `)
    assert str(_array(source, "layout").error) == (
        f"{where}:8:54: array layout: element 0: AlignedByteOffset: `offsetof(Vertex, pos)` is "
        f"not a constant: struct Vertex ({where}:3:8) does not compile: {where}:5:5: error: "
        f"unknown type name 'XMCOLOR'")


def test_an_array_in_code_the_compiler_did_not_keep_is_an_error(tmp_path):
    text = str(_array(_source(tmp_path, BROKEN), "lost").error)
    assert text.startswith(f"{tmp_path / 'a.cpp'}:14:30: array lost: the compiler did not keep")
    assert "12:25: error: no template named 'Outer'" in text


def test_a_push_with_an_error_in_it_refuses_the_vector(tmp_path):
    arr = _array(_source(tmp_path, """
void f() {
    std::vector<D3D12_INPUT_ELEMENT_DESC> v;
    v.push_back({ "A", 0, DXGI_FORMAT_R32_FLOAT });
    v.push_back({ "B", 0, DXGI_FORMAT_R32_FLOAT, 0, static_cast<Unknown>(4) });
}
"""), "v")
    # The compiler keeps the call, and its recovery folds the cast to 4: a value with an error
    # in it is refused all the same.
    assert str(arr.error).startswith(
        f"{tmp_path / 'a.cpp'}:5:53: array v: element 1: AlignedByteOffset: "
        f"`static_cast<Unknown>(4)` does not compile: ")
    assert str(arr.error).endswith("5:65: error: unknown type name 'Unknown'")


def test_a_push_the_compiler_did_not_keep_refuses_the_vector(tmp_path):
    # offsetof of an unknown type: the compiler drops the whole statement.
    arr = _array(_source(tmp_path, """
void f() {
    std::vector<D3D12_INPUT_ELEMENT_DESC> v;
    v.push_back({ "A", 0, DXGI_FORMAT_R32_FLOAT });
    v.push_back({ "B", 0, DXGI_FORMAT_R32_FLOAT, 0, offsetof(Unknown, c) });
}
"""), "v")
    assert arr.elements == []
    assert str(arr.error) == (
        f"{tmp_path / 'a.cpp'}:3:5: array v: 1 of its push_back/emplace_back calls do not "
        f"compile (the first error: {tmp_path / 'a.cpp'}:5:53: error: unknown type name "
        f"'Unknown'), so its elements are not known")


# -- containers filled by code gpuia does not read ----------------------------------------------
FILLERS = """
#include <vector>
void Fill(std::vector<D3D12_INPUT_ELEMENT_DESC>& out);
void Defined(std::vector<D3D12_INPUT_ELEMENT_DESC>& out) {
    out.push_back({ "X", 0, DXGI_FORMAT_R32_FLOAT });
}
template <class T> void Generic(T& out) { }
struct Builder { void Into(std::vector<D3D12_INPUT_ELEMENT_DESC>* out); };
void Patch(D3D12_INPUT_ELEMENT_DESC* e, UINT n);
"""


@pytest.mark.parametrize("code,callee", [
    ("Fill(v);", "Fill"),
    ("Defined(v);", "Defined"),  # defined in the same file: still not followed
    ("Generic(v);", "Generic"),
    ("NotDeclared(v);", "NotDeclared"),
    ("Builder b; b.Into(&v);", "b.Into"),
    ('v.push_back({ "A", 0, DXGI_FORMAT_R32_FLOAT }); Patch(v.data(), 1);', "Patch"),
])
def test_a_vector_handed_to_a_function_that_can_change_it_is_unresolved(tmp_path, code,
                                                                        callee):
    # Defect: `std::vector<...> v; Fill(v);` was a valid, empty layout (exit 0), though the
    # function fills it.
    source = _source(tmp_path, FILLERS + "void Build() {\n"
                     "    std::vector<D3D12_INPUT_ELEMENT_DESC> v;\n    " + code + "\n}\n")
    arr = _array(source, "v")
    assert arr.elements == []
    assert f"v is passed to `{callee}`, which can change it" in str(arr.error)


def test_a_vector_bound_to_a_non_const_reference_is_unresolved(tmp_path):
    arr = _array(_source(tmp_path, FILLERS + """void Build() {
    std::vector<D3D12_INPUT_ELEMENT_DESC> v;
    auto& alias = v;
    alias.push_back({ "A", 0, DXGI_FORMAT_R32_FLOAT });
}
"""), "v")
    assert "v is bound to `alias`, through which other code can change it" in str(arr.error)


def test_a_vector_handed_to_code_that_only_reads_it_is_read(tmp_path):
    source = _source(tmp_path, FILLERS + """
void Use(const std::vector<D3D12_INPUT_ELEMENT_DESC>& in);
void Copy(std::vector<D3D12_INPUT_ELEMENT_DESC> copy);
void Reads(const D3D12_INPUT_ELEMENT_DESC* e, UINT n);
void Build() {
    std::vector<D3D12_INPUT_ELEMENT_DESC> v;
    v.push_back({ "A", 0, DXGI_FORMAT_R32_FLOAT, 0, 4 });
    Use(v);
    Copy(v);
    Reads(v.data(), (UINT)v.size());
    Reads(&v[0], 1);
    D3D12_INPUT_LAYOUT_DESC desc = { v.data(), (UINT)v.size() };
    (void)desc;
}
""")
    assert _offsets(_array(source, "v")) == [4]


@pytest.mark.parametrize("declaration", ["D3D12_INPUT_ELEMENT_DESC a[2];",
                                         "std::array<D3D12_INPUT_ELEMENT_DESC, 2> a;"])
def test_a_fixed_array_without_an_initializer_is_unresolved_not_empty(tmp_path, declaration):
    # Defect: an array of 2 elements that Fill sets was reported as a valid layout of 0.
    source = _source(tmp_path, """
void Fill(D3D12_INPUT_ELEMENT_DESC* out);
void Build() {
    """ + declaration + """
    Fill(&a[0]);
}
""")
    arr = _array(source, "a")
    assert arr.elements == []
    assert str(arr.error) == (
        f"{tmp_path / 'a.cpp'}:4:5: array a: a is declared without an initializer, so its "
        f"elements are set by code gpuia does not read (it is passed to `Fill`, which can "
        f"change it)")


def test_cli_a_vector_filled_by_a_function_exits_2_naming_it(capsys, tmp_path):
    (tmp_path / "a.cpp").write_text(FILLERS + "void Build() {\n"
                                    "    std::vector<D3D12_INPUT_ELEMENT_DESC> layout;\n"
                                    "    Fill(layout);\n}\n")
    code, out, err = run_cli(capsys, tmp_path / "a.cpp", "--no-gpu")
    assert code == 2
    assert err.splitlines() == [
        f"error: layout: {tmp_path / 'a.cpp'}:12:5: array layout: layout is passed to `Fill`, "
        f"which can change it: gpuia reads only the push_back/emplace_back calls in the block "
        f"that declares it, not what other code does to it"]


def test_malformed_options_are_refused_before_the_compiler_runs(tmp_path):
    (tmp_path / "a.cpp").write_text("int x;\n")
    with pytest.raises(SourceError, match="C identifier"):
        read_source(tmp_path / "a.cpp", defines=["1X=2"])
    with pytest.raises(SourceError, match="no such folder"):
        read_source(tmp_path / "a.cpp", include_dirs=[tmp_path / "nope"])
    with pytest.raises(SourceError, match="not a target triple"):
        read_source(tmp_path / "a.cpp", target="msvc")


# -- the command line ---------------------------------------------------------------------------
def run_cli(capsys, *args):
    code = main(["layout", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_define_include_and_target_reach_the_compiler(capsys, tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "vertex.h").write_text(
        "struct Vertex { char c; long id;\n#ifdef WITH_UV\nfloat uv[2];\n#endif\nfloat w; };\n")
    (tmp_path / "a.cpp").write_text('#include <vertex.h>\nconst D3D12_INPUT_ELEMENT_DESC '
                                    'layout[] = { { "W", 0, DXGI_FORMAT_R32_FLOAT, 0, '
                                    'offsetof(Vertex, w) } };\n')
    code, out, err = run_cli(capsys, tmp_path / "a.cpp", "--no-gpu", "--json", "-I",
                             tmp_path / "inc", "--define", "WITH_UV", "--target",
                             "x86_64-linux-gnu")
    assert code == 0, err
    doc = json.loads(out)
    # LP64: c 0, long id at 8, uv (8 bytes) at 16, w at 24.
    assert doc["arrays"][0]["elements"][0]["AlignedByteOffset"] == 24
    assert doc["files"] == [{"file": str(tmp_path / "a.cpp"), "language": "C++",
                             "target": "x86_64-linux-gnu", "d3d_header": None,
                             "d3d_header_stub": True, "diagnostics": []}]
    code, out, _ = run_cli(capsys, tmp_path / "a.cpp", "--no-gpu", "--json", "-I",
                           tmp_path / "inc")
    # MSVC x64 without WITH_UV: long id at 4, w at 8.
    assert json.loads(out)["arrays"][0]["elements"][0]["AlignedByteOffset"] == 8


def test_cli_prints_the_header_and_each_diagnostic_as_a_warning(capsys, tmp_path):
    (tmp_path / "a.cpp").write_text(BROKEN)
    code, out, err = run_cli(capsys, tmp_path / "a.cpp", "--no-gpu")
    assert f"-- {tmp_path / 'a.cpp'}: C++ for x86_64-pc-windows-msvc, D3D header: gpuia's " \
           f"generated stub" in out
    assert f"  warning: {tmp_path / 'a.cpp'}:7:12: error: unknown type name 'Engine'" in out
    assert code == 2  # bad and lost cannot be resolved: one error line each
    assert [line.split(": array ")[1].split(":")[0] for line in err.splitlines()] == \
        ["bad", "lost"]


def test_cli_werror_counts_the_compilers_diagnostics(capsys, tmp_path):
    (tmp_path / "a.cpp").write_text('void f(Engine& e);\nconst D3D12_INPUT_ELEMENT_DESC '
                                    'layout[] = { { "P", 0, DXGI_FORMAT_R32_FLOAT } };\n')
    assert run_cli(capsys, tmp_path / "a.cpp", "--no-gpu")[0] == 0
    assert run_cli(capsys, tmp_path / "a.cpp", "--no-gpu", "--werror")[0] == 1



def test_cli_standard_input_is_read_as_the_file(capsys, monkeypatch, tmp_path):
    """``gpuia layout -``: libclang reads a main file named ``-`` from standard input, not from
    the bytes gpuia gives it: the file read as empty ("no D3D input-element arrays"), and in
    the worker, whose standard input was its protocol, waited for the time limit."""
    import io

    text = 'const D3D12_INPUT_ELEMENT_DESC layout[] = { { "P", 0, DXGI_FORMAT_R32_FLOAT } };\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    code, out, err = run_cli(capsys, "-", "--no-gpu")
    assert code == 0, err
    assert "-- stdin: C++ for x86_64-pc-windows-msvc" in out
    assert "== stdin:1:32: layout (D3D12_INPUT_ELEMENT_DESC, 1 elements)" in out

@pytest.mark.parametrize("option,words", [
    (["--define", "1X"], "--define 1X: the name before '=' must be a C identifier"),
    (["--include", "/no/such/folder"], "--include /no/such/folder: no such folder"),
    (["--target", "msvc"], "--target msvc: not a target triple (such as x86_64-pc-windows-msvc "
                           "or x86_64-linux-gnu)"),
])
def test_cli_malformed_options_one_error_line(capsys, tmp_path, option, words):
    (tmp_path / "a.cpp").write_text("int x;\n")
    code, _, err = run_cli(capsys, tmp_path / "a.cpp", "--no-gpu", *option)
    assert code == 2 and err == f"error: layout: {words}\n"


def test_cli_without_libclang_one_error_line_names_the_extra(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "clang.cindex", None)  # import fails as if not installed
    (tmp_path / "a.cpp").write_text("int x;\n")
    code, _, err = run_cli(capsys, tmp_path / "a.cpp", "--no-gpu")
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith("error: layout: ")
    assert "'source' extra (pip install 'gpuia[source]': libclang)" in err
    with pytest.raises(UnsupportedError):
        read_source(tmp_path / "a.cpp")
