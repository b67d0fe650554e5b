"""Typed ``Buffer<T>`` SRVs: the source lowering, the case section's ``typed`` entries and the
formats D3D12 refuses for a typed buffer view (docs/resources.md)."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.d3d.buffer_views import view_format
from gpuia.errors import CaseError, InvalidDescError, UnsupportedError
from gpuia.harness.case import load_case
from gpuia.hlsl.typed_buffers import cpu_elements, lower_source

pytest.importorskip("gpuia.hlsl.library")
from gpuia.hlsl import compile_shader  # noqa: E402


def test_lowering_keeps_lines_and_registers():
    text = ("Buffer<float4> A : register(t1, space2);\n"
            "// Buffer<uint> Commented;\n"
            "Buffer B: register(t0);  StructuredBuffer<uint> S;  RWBuffer<float> W;\n")
    out = lower_source(text, {"A", "B"}, "vertex shader")
    lines = out.splitlines()
    assert lines[0] == "StructuredBuffer<float4> A : register(t1, space2);"
    # a typed UAV's RWBuffer<T> is lowered too (gpuia.d3d.uav_formats)
    assert lines[2] == ("StructuredBuffer<float4> B: register(t0);  StructuredBuffer<uint> S;  "
                        "RWStructuredBuffer<float> W;")
    # Buffer's and RWBuffer's one-argument form
    assert "extension<T> StructuredBuffer<T> { void GetDimensions(out uint gpuia_count)" in out
    assert "extension<T> RWStructuredBuffer<T> { void GetDimensions(out uint gpuia_count)" in out
    assert lower_source(text, set(), "vertex shader") == text  # no typed buffer: unchanged


def vs(decl: str, body: str) -> str:
    return f"{decl}\nfloat4 main(uint id : SV_VertexID) : SV_Position {{ {body} }}\n"


def test_typed_buffers_are_bound_by_register_and_space():
    """Element T's bytes are the CPU reference's stride: float3 12, uint 4."""
    s = compile_shader(vs("Buffer<float3> A : register(t4, space1);\n"
                          "Buffer<uint> B : register(t0);",
                          "uint n; A.GetDimensions(n); return float4(A[id], B.Load(id) + n);"))
    got = [(r.name, r.register, r.space, r.kind, r.stride) for r in s.shader_resources]
    assert got == [("B", 0, 0, "typed", 4), ("A", 4, 1, "typed", 12)]
    assert "@binding(148) @group(3) var<storage, read> A_0 : array<u32>;" in s.wgsl
    assert "@binding(16) @group(3) var<storage, read> B_0 : array<u32>;" in s.wgsl


def _doc(entry: dict, decl: str = "Buffer<float4> A : register(t1);") -> dict:
    return {"gpuia_case": 1, "name": "t", "input_layout": [], "vertex_buffers": [],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 1}},
            "vertex_shader": {"hlsl": vs(decl, "return A[id];")},
            "shader_resources": [{"register": 1, "kind": "typed", **entry}]}


DATA = {"dtype": "uint8", "values": list(range(12))}


def test_case_view_is_in_elements_of_the_format():
    """R8G8_UNORM: 2-byte elements, 12 bytes hold 6; the CPU reference reads element 2 and 3
    (bytes 4..7) decoded: c / 255, 0 for b and 1 for a (rules 2.2, 2.11), then the element a
    read past the view returns (0, 0 for R and G, the defaults 0, 1 for B and A: "ld")."""
    case = load_case(_doc({"format": "r8g8_unorm", "first_element": 2, "num_elements": 2,
                           "data": DATA}))
    r = case.shader_resources[(1, 0)]
    assert (r.kind, r.format, r.stride, r.first_element, r.num_elements) == \
        ("typed", "R8G8_UNORM", 2, 2, 2)
    want = np.array([[4 / 255, 5 / 255, 0, 1], [6 / 255, 7 / 255, 0, 1], [0, 0, 0, 1]],
                    np.float32)
    np.testing.assert_array_equal(np.frombuffer(r.view_bytes(), np.float32).reshape(3, 4), want)


@pytest.mark.parametrize("entry, decl, error, words", [
    ({"data": DATA}, None, CaseError, "missing required key 'format'"),
    ({"format": "R8G8_UNORM", "first_element": 5, "num_elements": 2, "data": DATA}, None,
     InvalidDescError, "6 elements of 2 bytes"),
    ({"format": "R8_UINT", "data": DATA}, None, InvalidDescError,
     "its values are uint and the shader reads float"),
    ({"format": "R32_FLOAT", "data": DATA}, "Buffer<int4> A : register(t1);", InvalidDescError,
     "its values are float and the shader reads sint"),
    ({"format": "BC1_UNORM", "data": DATA}, None, InvalidDescError, "block-compressed"),
    ({"format": "R32_FLOAT", "data": DATA}, "StructuredBuffer<float4> A : register(t1);",
     InvalidDescError, "A (register t1) is a structured buffer"),
])
def test_case_refusals(entry, decl, error, words):
    doc = _doc(entry) if decl is None else _doc(entry, decl)
    with pytest.raises(error) as e:
        load_case(doc)
    assert words in str(e.value), str(e.value)


@pytest.mark.parametrize("fmt, error, words", [
    ("BC7_UNORM", InvalidDescError, "block-compressed"),
    ("D24_UNORM_S8_UINT", InvalidDescError, "depth"),
    ("R32G8X24_TYPELESS", InvalidDescError, "depth"),
    ("R16G16_TYPELESS", InvalidDescError, "fully typed"),
    ("B8G8R8A8_UNORM_SRGB", InvalidDescError, "sRGB"),
    ("R1_UNORM", InvalidDescError, "whole number of bytes"),
    ("G8R8_G8B8_UNORM", InvalidDescError, "packed-pair"),
    ("UNKNOWN", InvalidDescError, "names its format"),
    ("NV12", UnsupportedError, "format table"),
    ("FLOAT4", InvalidDescError, "not a DXGI format"),
])
def test_formats_refused_for_a_typed_view(fmt, error, words):
    with pytest.raises(error) as e:
        view_format(fmt, "float", "view")
    assert words in str(e.value), str(e.value)


def test_cpu_elements_take_the_first_components():
    """R10G10B10A2_UINT (1023, 5, 0, 3) read as uint2: (1023, 5), then the out-of-bounds
    element (0, 0): the format has all four components."""
    word = np.array([1023 | 5 << 10 | 0 << 20 | 3 << 30], "<u4").tobytes()
    got = cpu_elements(view_format("R10G10B10A2_UINT", "uint", "v"), word, 2)
    assert np.frombuffer(got, "<u4").tolist() == [1023, 5, 0, 0]


def test_gpuia_shader_lists_typed_buffers():
    """Bound, its size empty: the bytes of an element come with the view's format."""
    from gpuia.harness.shader_info import describe_hlsl

    text = vs("Buffer<float4> A : register(t2, space1);", "return A[id];")
    rows = [(r["name"], r["register"], r["space"], r["type"], r["size"], r["bound"])
            for r in describe_hlsl("t.hlsl", text, "main", None)["resources"]]
    assert rows == [("A", "t2", 1, "Buffer<float4>", None, True)]
