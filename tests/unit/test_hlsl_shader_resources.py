"""Buffer SRVs of an HLSL vertex shader: what is bound and what is refused (docs/resources.md).

Layouts refused are those where D3D's structured layout (members at 4-byte steps, no padding)
and WGSL's storage layout differ: a float3 element is 12 bytes in D3D and 16 in WGSL; a float
after a float at offset 0 followed by a float4 sits at 4 in D3D and 16 in WGSL.
"""

from __future__ import annotations

import re

import pytest

from gpuia.errors import CaseError, InvalidDescError
from gpuia.harness.case import load_case

pytest.importorskip("gpuia.hlsl.library")
from gpuia.hlsl import compile_shader  # noqa: E402


def vs(decl: str, body: str) -> str:
    return f"{decl}\nfloat4 main(uint id : SV_VertexID) : SV_Position {{ {body} }}\n"


def test_structured_and_raw_are_bound_by_register():
    s = compile_shader(vs("StructuredBuffer<float4> A : register(t2);\n"
                          "ByteAddressBuffer B : register(t0);",
                          "return A[id] + asfloat(B.Load4(id * 16));"))
    got = [(r.name, r.register, r.kind, r.stride) for r in s.shader_resources]
    assert got == [("B", 0, "raw", 4), ("A", 2, "structured", 16)]
    assert "@binding(18) @group(3) var<storage, read> A" in s.wgsl
    assert "@binding(16) @group(3) var<storage, read> B" in s.wgsl
    assert "@binding(15) @group(3) var<uniform> gpuia_srv_views" in s.wgsl


@pytest.mark.parametrize("decl, body, words", [
    ("StructuredBuffer<float3> A : register(t0);", "return float4(A[id], 1);", "storage stride 16"),
    ("struct S { float a; float4 b; }; StructuredBuffer<S> A : register(t0);",
     "return A[id].b;", "WGSL's storage layout at 16"),
    ("StructuredBuffer<float4> A : register(t0, space7);", "return A[id];", "spaces 0..6"),
    ("Buffer<float4> A[2] : register(t0);", "return A[1][id];", "arrays of buffers"),
    ("Buffer<half4> A : register(t0);", "return A[id];", "float, int or uint scalar or vector"),
    ("#define TB(n) Buffer<float4> n : register(t0)\nTB(A);", "return A[id];",
     "made by a macro"),
    ("struct S { float4 a; bool b; float3 c; }; StructuredBuffer<S> A : register(t0);",
     "return A[id].b ? A[id].a : 0;", "a bool is 4 bytes in D3D"),
    ("Texture2DMS<float4> T : register(t0);", "return T.Load(int2(0, 0), 0);",
     "no multisampled"),
    # an integer texture is loaded, not sampled (rules 17.12)
    ("Texture2D<uint4> T : register(t2, space1); SamplerState S : register(s0);",
     "return T.SampleLevel(S, float2(0, 0), 0);",
     "T (register t2, space1) is a uint or int texture"),
    ("TextureCube T : register(t0);", "return T.Load(int4(0, 0, 0, 0));",
     "takes any resource but a TextureCube"),
    ("Texture1DArray T : register(t0); SamplerState S : register(s0);",
     "return T.Sample(S, float2(0, 0));", "Texture2DArray of height 1"),
    ("Texture2DMS<float4> T[2] : register(t0);", "return T[0].Load(int2(0, 0), 0);",
     "other textures"),
    ("Texture2D T : register(t0); SamplerState S : register(s0);",
     "return T.Sample(S, float2(0, 0));", "Load, GetDimensions and SampleLevel"),
    ("Texture2D T : register(t1); StructuredBuffer<float4> B : register(t1);",
     "return T.Load(int3(0, 0, 0)) + B[0];", "a t register holds one"),
])
def test_refused_with_a_reason(decl, body, words):
    with pytest.raises(InvalidDescError) as e:
        compile_shader(vs(decl, body))
    assert words in str(e.value), str(e.value)


def test_pixel_shader_resources_stay_refused():
    with pytest.raises(InvalidDescError) as e:
        compile_shader("StructuredBuffer<float4> A : register(t0);\n"
                       "float4 main(float4 p : SV_Position) : SV_Target { return A[0]; }",
                       stage="pixel")
    assert "only constant buffers" in str(e.value) and "in a pixel shader" in str(e.value)


def _doc(resources) -> dict:
    return {"gpuia_case": 1, "name": "r", "input_layout": [], "vertex_buffers": [],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 1}},
            "vertex_shader": {"hlsl": vs("StructuredBuffer<float4> A : register(t1);",
                                         "return A[id];")},
            "shader_resources": resources}


DATA = {"dtype": "float32", "values": [0.0] * 8}


@pytest.mark.parametrize("resources, error, words", [
    ([], InvalidDescError, "binds no shader resource"),
    ([{"register": 1, "kind": "raw", "data": DATA}], InvalidDescError, "structured buffer"),
    ([{"register": 1, "kind": "structured", "structure_byte_stride": 32, "data": DATA}],
     InvalidDescError, "16 bytes"),
    ([{"register": 1, "kind": "structured", "first_element": 1, "num_elements": 2,
       "data": DATA}], InvalidDescError, "past the data"),
    ([{"register": 1, "kind": "structured", "data": DATA},
      {"register": 2, "kind": "texture", "data": DATA}], CaseError,
     "'structured', 'raw', 'typed', 'rw_structured', 'rw_raw', 'rw_typed', 'texture1d', "
     "'texture2d' or 'texture3d'"),
    ([{"register": 1, "kind": "structured", "data": DATA, "format": "R32_FLOAT"}],
     InvalidDescError, "only a typed view has a format"),
    ([{"register": 1, "kind": "structured", "data": DATA},
      {"register": 1, "kind": "structured", "data": DATA}], CaseError, "given twice"),
    ([{"register": 1, "kind": "structured", "data": DATA, "space": 1}], InvalidDescError,
     "binds no shader resource"),
    ([{"register": 1, "kind": "structured", "data": DATA, "stride": 4}], CaseError,
     "unknown keys"),
])
def test_case_section_refusals(resources, error, words):
    with pytest.raises(error) as e:
        load_case(_doc(resources))
    assert words in str(e.value), str(e.value)


def test_spaces_have_bindings_of_their_own():
    """t0 of space0 and t0 of space2 are two resources: bindings 16 and 16 + 2 * 128."""
    s = compile_shader(vs("StructuredBuffer<float4> A : register(t0, space2);\n"
                          "StructuredBuffer<float4> B : register(t0);",
                          "return A[id] + B[id];"))
    assert [(r.name, r.space, r.binding) for r in s.shader_resources] == \
        [("B", 0, 16), ("A", 2, 272)]


def test_gpuia_shader_lists_the_resources_used():
    """``gpuia shader``'s document lists what the entry uses: P is one float4 (16 bytes in
    D3D's structured layout); cbuffer C's float4 k and float j span 16 + 4 = 20 bytes; the
    Texture2D, Texture2DArray and sampler are bound; the unused U is not listed."""
    from gpuia.harness.shader_info import describe_hlsl

    text = ("struct P { float4 a; };\n"
            "StructuredBuffer<P> Parts : register(t2, space1);\n"
            "ByteAddressBuffer Raw : register(t1);\n"
            "Texture2D T : register(t0); SamplerState S : register(s0);\n"
            "Texture2DArray A : register(t3);\n"
            "StructuredBuffer<float4> U : register(t9);\n"
            "cbuffer C : register(b3) { float4 k; float j; };\n"
            "float4 main(uint id : SV_VertexID) : SV_Position { return Parts[id].a + k * j"
            " + T.SampleLevel(S, float2(0, 0), 0) + A.Load(int4(0, 0, 0, 0))"
            " + asfloat(Raw.Load(0)); }\n")
    rows = {r["name"]: (r["register"], r["space"], r["type"], r["size"], r["bound"])
            for r in describe_hlsl("r.hlsl", text, "main", None)["resources"]}
    assert rows == {"Parts": ("t2", 1, "StructuredBuffer<P>", 16, True),
                    "Raw": ("t1", 0, "ByteAddressBuffer", None, True),
                    "T": ("t0", 0, "Texture2D", None, True),
                    "A": ("t3", 0, "Texture2DArray", None, True),
                    "S": ("s0", 0, "SamplerState", None, True),
                    "C": ("b3", 0, "cbuffer", 20, True)}


def test_layout_check_skips_a_shader_reading_resources(tmp_path):
    """``gpuia layout --shader`` links such a shader but generates no case for it (it has no
    bytes for the SRVs), saying why."""
    from gpuia.cli.layout_shaders import LayoutShader

    path = tmp_path / "skin.hlsl"
    path.write_text("StructuredBuffer<float4x4> Palette : register(t0, space2);\n"
                    "float4 main(float3 p : POSITION, uint b : BLENDINDICES) : SV_Position\n"
                    "{ return mul(Palette[b], float4(p, 1)); }\n")
    shader = LayoutShader(str(path), [], "column_major")
    assert shader.not_drawn is not None and "(t0 space2)" in shader.not_drawn


def test_entries_the_shader_does_not_read_are_left_out():
    case = load_case(_doc([{"register": 1, "kind": "structured", "data": DATA},
                           {"register": 7, "kind": "raw", "data": DATA}]))
    assert sorted(case.shader_resources) == [(1, 0)]
    assert case.shader_resources[(1, 0)].num_elements == 2  # 32 bytes of 16-byte elements


def test_a_wgsl_shader_takes_no_resources():
    doc = _doc([{"register": 1, "kind": "structured", "data": DATA}])
    doc["vertex_shader"] = {"wgsl": "struct I { @location(0) p : vec4<f32> };\n"
                                    "struct O { @builtin(position) p : vec4<f32> };\n"
                                    "@vertex fn main(i : I) -> O { return O(i.p); }\n"}
    doc["input_layout"] = [{"SemanticName": "P", "Format": "R32G32B32A32_FLOAT"}]
    with pytest.raises(InvalidDescError) as e:
        load_case(doc)
    assert "only an HLSL vertex or geometry shader" in str(e.value)


def test_an_index_read_from_the_same_buffer_is_checked_too():
    """``A[A[id].x]``: both reads go through gpuia's bounds-checked function."""
    s = compile_shader(vs("StructuredBuffer<uint4> A : register(t0);",
                          "return float4(A[A[id].x]);"))
    assert s.wgsl.count("gpuia_srv_load0(u32(") == 2
    assert s.wgsl.count("A_0[") == 1  # inside the function alone


@pytest.mark.parametrize("member, bound", [
    ("row_major float4x3 m;", False),  # 4 rows of 3: 48 bytes in D3D, 64 in WGSL storage
    ("float4x3 m;", True),  # column-major: 3 columns of 4, 48 bytes on both sides
    ("row_major float3x4 m;", True),  # 3 rows of 4
])
def test_matrix_packing_in_a_structured_element(member, bound):
    src = vs(f"struct B {{ {member} }}; StructuredBuffer<B> A : register(t0);",
             "return float4(mul(float4(1, 2, 3, 1), A[id].m).xyz, 1);"
             if "4x3" in member else "return float4(mul(A[id].m, float4(1, 2, 3, 1)), 1);")
    if bound:
        assert compile_shader(src).shader_resources[0].stride == 48
    else:
        with pytest.raises(InvalidDescError) as e:
            compile_shader(src)
        assert "storage stride 64" in str(e.value), str(e.value)


def test_the_cpu_reference_reads_every_register_of_a_space():
    """t0..t127 in one space, B_k = (k, 100 k): the shader's sum at vertex 0 is 0+1+...+127 =
    8128 and at vertex 1 100 times that (the CPU runner once refused more than 64 regions)."""
    from gpuia.harness.run import run_reference, shader_outputs

    n = 128
    decl = "".join(f"StructuredBuffer<uint> B{k} : register(t{k});\n" for k in range(n))
    total = " + ".join(f"B{k}[id]" for k in range(n))
    doc = _doc([{"register": k, "kind": "structured",
                 "data": {"dtype": "uint32", "values": [k, 100 * k]}} for k in range(n)])
    body = ("struct O { float4 p : SV_Position; uint t : TEXCOORD0; };\n"
            f"O main(uint id : SV_VertexID) {{ O o; o.p = float4(0, 0, 0, 1); o.t = {total}; "
            "return o; }\n")
    doc["vertex_shader"] = {"hlsl": decl + body}
    doc["draw"] = {"DrawInstanced": {"VertexCountPerInstance": 2}}
    case = load_case(doc)
    got = shader_outputs(case, run_reference(case))["TEXCOORD0"][:, 0]
    assert got.tolist() == [8128, 812800]


def test_gpuia_shader_lists_texture_dimensions():
    """A Texture1D, a Texture1DArray, a Texture3D and a TextureCube are bound (rules 17.7,
    17.8, 17.9)."""
    from gpuia.harness.shader_info import describe_hlsl

    text = ("Texture1D<float4> R : register(t0); Texture3D<float> V : register(t1);\n"
            "Texture1DArray<float4> RA : register(t2); TextureCube<float4> C : register(t3);\n"
            "SamplerState S : register(s0);\n"
            "float4 main(uint id : SV_VertexID) : SV_Position { return R.Load(int2(id, 0))"
            " + V.SampleLevel(S, float3(0, 0, 0), 0) + RA.Load(int3(0, 0, 0))"
            " + C.SampleLevel(S, float3(1, 0, 0), 0); }\n")
    rows = {r["name"]: (r["register"], r["type"], r["bound"])
            for r in describe_hlsl("d.hlsl", text, "main", None)["resources"]}
    assert rows == {"R": ("t0", "Texture1D<float4>", True), "V": ("t1", "Texture3D<float>", True),
                    "RA": ("t2", "Texture1DArray<float4>", True),
                    "C": ("t3", "TextureCube<float4>", True),
                    "S": ("s0", "SamplerState", True)}


def test_gpuia_shader_lists_integer_textures_as_bound():
    """uint and int textures are bound (rules 17.12); a multisampled one is not."""
    from gpuia.harness.shader_info import describe_hlsl, shader_text

    text = ("Texture2D<uint4> U : register(t0); Texture2DArray<int2> I : register(t1, space2);\n"
            "Texture2DMS<uint4> M : register(t2);\n"
            "uint4 main(uint id : SV_VertexID) : TEXCOORD0 { return U.Load(int3(id, 0, 0))"
            " + uint4(I.Load(int4(0, 0, 0, 0)), 0, 0) + M.Load(int2(0, 0), 0); }\n")
    doc = describe_hlsl("d.hlsl", text, "main", None)
    rows = {r["name"]: (r["register"], r["space"], r["type"], r["bound"])
            for r in doc["resources"]}
    assert rows == {"U": ("t0", 0, "Texture2D<uint4>", True),
                    "I": ("t1", 2, "Texture2DArray<int2>", True),
                    "M": ("t2", 0, "Texture2DMS<uint4>", False)}
    assert re.search(r"\bU\s+Texture2D<uint4>\s+-\s+yes\n", shader_text(doc))
