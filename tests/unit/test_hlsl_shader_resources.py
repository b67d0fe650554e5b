"""Buffer SRVs of an HLSL vertex shader: what is bound and what is refused (docs/resources.md).

Layouts refused are those where D3D's structured layout (members at 4-byte steps, no padding)
and WGSL's storage layout differ: a float3 element is 12 bytes in D3D and 16 in WGSL; a float
after a float at offset 0 followed by a float4 sits at 4 in D3D and 16 in WGSL.
"""

from __future__ import annotations

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
    ("Buffer<float4> A : register(t0);", "return A[id];", "typed buffers"),
    ("Texture2D T : register(t0);", "return T.Load(int3(0, 0, 0));", "textures"),
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
    assert "vertex shader only" in str(e.value)


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
    ([{"register": 2, "kind": "structured", "data": DATA}], InvalidDescError, "t2"),
    ([{"register": 1, "kind": "structured", "data": DATA, "space": 1}], InvalidDescError,
     "register(t1, space1)"),
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
