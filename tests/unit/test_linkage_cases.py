"""Case files naming compiled shaders (docs/case-format.md, "Compiled shaders": ``{"dxbc_file":
...}`` or ``{"dxbc": DATA}``), linked as CreateGraphicsPipelineState links them
(gpuia.harness.case_compiled) on the blobs FXC and DXC compiled from tests/data/shaders/*.hlsl.
What links and what fails is read from the HLSL sources by hand: vertex.hlsl reads POSITION,
TEXCOORD0 and BLENDINDICES and writes SV_Position, TEXCOORD0, TEXCOORD1 and NORMAL; geometry.hlsl's
``streams`` takes lines and writes GSOut on stream 0 and Marker (MARKER) on stream 1. A DXBC
vertex shader that links is loaded for drawing; DXIL code and compiled geometry shaders that link
are refused as not drawable here (UnsupportedError), never as invalid."""

from __future__ import annotations

import base64
import json
import shutil

import pytest

from gpuia.errors import CaseError, InvalidDescError, UnsupportedError
from gpuia.harness.case import load_case
from helpers import DATA

BLOBS = DATA / "shaders" / "blobs"
VS = str(BLOBS / "vertex.main.vs_5_0.cso")
GS = str(BLOBS / "geometry.streams.gs_5_0.cso")


def case(**overrides) -> dict:
    doc = {
        "gpuia_case": 1,
        "input_layout": [
            {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
            {"SemanticName": "TEXCOORD", "Format": "R32G32_FLOAT", "AlignedByteOffset": 12},
            {"SemanticName": "BLENDINDICES", "Format": "R8G8B8A8_UINT", "AlignedByteOffset": 20}],
        "vertex_buffers": [{"slot": 0, "stride": 24, "data": {"hex": "00" * 48}}],
        "primitive_topology": "LINELIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": 2, "InstanceCount": 1,
                                   "StartVertexLocation": 0, "StartInstanceLocation": 0}},
        "vertex_shader": {"dxbc_file": VS},
    }
    doc.update(overrides)
    return doc


def so(*entries, strides=(8, 4)) -> dict:
    return {"declaration": [dict(zip(("Stream", "SemanticName", "SemanticIndex",
                                      "StartComponent", "ComponentCount", "OutputSlot"), e,
                                 strict=True))
                            for e in entries],
            "buffer_strides": list(strides),
            "targets": [{"slot": s, "size": 64} for s in range(len(strides))]}


def test_a_linking_dxbc_vertex_shader_is_loaded_for_drawing():
    loaded = load_case(case())
    assert [m.semantic for m in loaded.shader_signature().inputs] == [
        "POSITION", "TEXCOORD", "BLENDINDICES", "SV_VERTEXID"]


def test_the_bytes_inline_link_as_the_file_does():
    data = base64.b64encode((BLOBS / "vertex.main.vs_6_0.cso").read_bytes()).decode()
    with pytest.raises(UnsupportedError, match="DXIL"):   # links, then cannot be drawn
        load_case(case(vertex_shader={"dxbc": {"base64": data}}))
    short = case(vertex_shader={"dxbc": {"base64": data}})
    short["input_layout"] = short["input_layout"][:2]
    with pytest.raises(InvalidDescError, match=r"BLENDINDICES0 \(register 2\)"):
        load_case(short)


def test_a_file_relative_to_the_case(tmp_path):
    shutil.copy(VS, tmp_path / "vs.cso")
    path = tmp_path / "c.json"
    path.write_text(json.dumps(case(vertex_shader={"dxbc_file": "vs.cso"})))
    assert load_case(path).hlsl is not None


def test_an_element_missing_for_an_input_is_refused():
    doc = case()
    doc["input_layout"] = doc["input_layout"][:2]
    with pytest.raises(InvalidDescError) as e:
        load_case(doc)
    assert "BLENDINDICES0 (register 2)" in str(e.value) and "rules 3.8" in str(e.value)


@pytest.mark.parametrize("shader,says", [
    ({"dxbc_file": VS, "entry_point": "main"}, "alone"),
    ({"dxbc_file": VS, "dxbc": {"hex": "00"}}, "alone"),
    ({"dxbc_file": 3}, "expected a path"),
    ({"dxbc_file": str(BLOBS / "no-such.cso")}, "cannot read"),
])
def test_malformed_objects(shader, says):
    with pytest.raises(CaseError, match=says):
        load_case(case(vertex_shader=shader))


def test_bytes_that_are_no_container():
    with pytest.raises(InvalidDescError, match="vertex_shader: header at byte 0"):
        load_case(case(vertex_shader={"dxbc": {"hex": "00112233"}}))


def test_a_pixel_shader_is_no_vertex_shader():
    with pytest.raises(InvalidDescError, match="stage='pixel'"):
        load_case(case(vertex_shader={"dxbc_file": str(BLOBS / "pixel.main.ps_5_0.cso")}))


def test_a_compiled_geometry_shader_links_and_streams_out():
    ok = case(geometry_shader={"dxbc_file": GS},
              stream_output=so((0, "TEXCOORD", 0, 0, 2, 0), (1, "MARKER", 0, 0, 1, 1)))
    with pytest.raises(UnsupportedError, match="cannot draw one"):
        load_case(ok)


def test_an_so_entry_its_stream_does_not_output():
    bad = case(geometry_shader={"dxbc_file": GS},
               stream_output=so((0, "TEXCOORD", 0, 0, 2, 0), (1, "TEXCOORD", 0, 0, 1, 1)))
    with pytest.raises(InvalidDescError, match=r"stream 1 .*rules 8\.3"):
        load_case(bad)


def test_the_geometry_shaders_input_primitive_takes_the_topology():
    with pytest.raises(InvalidDescError, match=r"POINTLIST.*rules 13\.2"):
        load_case(case(geometry_shader={"dxbc_file": GS}, primitive_topology="POINTLIST"))


def test_a_geometry_shader_input_the_vertex_shader_does_not_write():
    # cbuffers.hlsl's vertex shader writes SV_Position only; GSIn reads TEXCOORD0
    doc = case(vertex_shader={"dxbc_file": str(BLOBS / "cbuffers.main.vs_5_0.cso")},
               geometry_shader={"dxbc_file": GS})
    doc["input_layout"] = [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}]
    doc["vertex_buffers"] = [{"slot": 0, "stride": 16, "data": {"hex": "00" * 32}}]
    with pytest.raises(InvalidDescError) as e:
        load_case(doc)
    assert "geometry shader input TEXCOORD0 (register 1)" in str(e.value)
    assert "rules 14.1" in str(e.value)


def test_two_streams_at_feature_level_10_0():
    with pytest.raises(InvalidDescError, match=r"rules 13\.7, 11\.1"):
        load_case(case(geometry_shader={"dxbc_file": GS}), feature_level="10_0")


def _wgsl(outputs: str, body: str) -> dict:
    return {"wgsl": f"struct VSIn {{ POSITION: vec4<f32>, }}\nstruct VSOut {{ {outputs} }}\n"
                    f"@vertex fn main(input: VSIn) -> VSOut {{\n  var o: VSOut;\n{body}\n"
                    f"  return o;\n}}\n"}


def _wgsl_case(vs: dict) -> dict:
    doc = case(vertex_shader=vs, geometry_shader={"dxbc_file": GS})
    doc["input_layout"] = [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}]
    doc["vertex_buffers"] = [{"slot": 0, "stride": 16, "data": {"hex": "00" * 32}}]
    return doc


def test_a_wgsl_vertex_shader_links_with_a_compiled_geometry_shader_by_semantic():
    # GSIn: SV_Position, float2 TEXCOORD0; SV_PrimitiveID is generated (rules 14.2)
    vs = _wgsl("SV_Position: vec4<f32>, TEXCOORD0: vec2<f32>,",
               "  o.SV_Position = input.POSITION;\n  o.TEXCOORD0 = input.POSITION.xy;")
    with pytest.raises(UnsupportedError):
        load_case(_wgsl_case(vs))
    short = _wgsl("SV_Position: vec4<f32>,", "  o.SV_Position = input.POSITION;")
    with pytest.raises(InvalidDescError, match=r"TEXCOORD0.*rules 13\.9"):
        load_case(_wgsl_case(short))
