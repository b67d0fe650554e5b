"""The pipeline state as one unit (docs/rules.md section 15; docs/case-format.md,
``pipeline_state``): the topology type against the draw and the geometry shader, the render
target count, the pixel shader's linkage, and the section's precedence over the top level.
Every verdict is docs/rules.md's: rules 15.1 (a draw's topology is of the PSO's type), 15.2 (a GS
input primitive is of the type: vkd3d-proton test_gs_topology_mismatch), 15.3 (RTVFormats past
NumRenderTargets are UNKNOWN: vkd3d-proton test_create_graphics_pipeline_state), 13.9/14.1
(every pixel shader input is an output of the stage before). Needs no adapter; the geometry
and HLSL tests compile with Slang as the other HLSL tests do."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from gpuia.d3d.geometry import GeometryDeclaration
from gpuia.d3d.pipeline_desc import (
    check_draw_topology,
    check_gs_topology_type,
    check_render_target_count,
    topology_type,
)
from gpuia.d3d.topology import TOPOLOGIES
from gpuia.errors import CaseError, InvalidDescError
from gpuia.harness.case import load_case

VS = """
struct VSIn { POSITION: vec4<f32>, COLOR: vec4<f32> }
struct VSOut { SV_Position: vec4<f32>, COLOR: vec4<f32> }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = input.POSITION;
  o.COLOR = input.COLOR;
  return o;
}
"""

PS_COLOR = """
struct PSIn { SV_Position: vec4<f32>, COLOR: vec4<f32> }
struct PSOut { SV_Target0: vec4<f32> }
@fragment fn main(input: PSIn) -> PSOut { var o: PSOut; o.SV_Target0 = input.COLOR; return o; }
"""

PS_TEXCOORD = PS_COLOR.replace("COLOR", "TEXCOORD")

LAYOUT = [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"},
          {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM"}]


def doc(topology="TRIANGLELIST", **pso) -> dict:
    pipeline = {"input_layout": LAYOUT, "vertex_shader": {"wgsl": VS},
                "stream_output": {"declaration": [
                    {"SemanticName": "COLOR", "ComponentCount": 4}],
                    "targets": [{"slot": 0, "size": 96}]}}
    pipeline.update(pso)
    return {"gpuia_case": 1, "name": "pso", "pipeline_state": pipeline,
            "vertex_buffers": [{"slot": 0, "stride": 20, "data": {"hex": "00" * 120}}],
            "primitive_topology": topology,
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 6, "InstanceCount": 1}}}


# -- rules 15.1: the draw's topology is of the pipeline state's type ----------------------------
@pytest.mark.parametrize("type_name, topology, ok", [
    ("POINT", "POINTLIST", True), ("POINT", "LINELIST", False),
    ("LINE", "LINELIST", True), ("LINE", "LINESTRIP", True), ("LINE", "LINELIST_ADJ", True),
    ("LINE", "LINESTRIP_ADJ", True), ("LINE", "TRIANGLELIST", False), ("LINE", "POINTLIST", False),
    ("TRIANGLE", "TRIANGLELIST", True), ("TRIANGLE", "TRIANGLESTRIP_ADJ", True),
    ("TRIANGLE", "TRIANGLELIST_ADJ", True), ("TRIANGLE", "LINESTRIP", False),
    ("UNDEFINED", "TRIANGLELIST", False), ("PATCH", "POINTLIST", False),
])
def test_draw_topology_against_type(type_name, topology, ok):
    info = next(t for t in TOPOLOGIES.values() if t.name == topology)
    if ok:
        check_draw_topology(type_name, info)
    else:
        with pytest.raises(InvalidDescError, match=r"rules 15\.1") as e:
            check_draw_topology(type_name, info)
        assert e.value.field == "PrimitiveTopologyType" and topology in str(e.value)


def test_topology_type_values():
    # D3D12_PRIMITIVE_TOPOLOGY_TYPE: UNDEFINED 0, POINT 1, LINE 2, TRIANGLE 3, PATCH 4.
    assert topology_type("D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE") == "TRIANGLE"
    assert topology_type("line") == "LINE"
    assert topology_type(1) == "POINT" and topology_type(4) == "PATCH"
    for bad in ("QUAD", 5, True, None):
        with pytest.raises(InvalidDescError, match="PrimitiveTopologyType"):
            topology_type(bad)


# -- rules 15.2: the GS input primitive is of the type -------------------------------------------
@pytest.mark.parametrize("primitive, type_name, ok", [
    ("point", "POINT", True), ("point", "LINE", False), ("point", "TRIANGLE", False),
    ("line", "LINE", True), ("lineadj", "LINE", True), ("line", "POINT", False),
    ("lineadj", "TRIANGLE", False), ("triangle", "TRIANGLE", True),
    ("triangleadj", "TRIANGLE", True), ("triangle", "LINE", False),
    ("triangle", "UNDEFINED", False), ("point", "PATCH", False),
])
def test_gs_input_against_type(primitive, type_name, ok):
    # vkd3d-proton test_gs_topology_mismatch: S_OK exactly where the GS's input topology type
    # equals PrimitiveTopologyType (adjacency inputs of their base type), E_INVALIDARG else.
    decl = GeometryDeclaration(primitive, 3, ("PointStream",), (4,))
    if ok:
        check_gs_topology_type(type_name, decl)
    else:
        with pytest.raises(InvalidDescError, match=r"#673; rules 15\.2"):
            check_gs_topology_type(type_name, decl)


# -- rules 15.3: RTVFormats past NumRenderTargets are UNKNOWN ------------------------------------
def test_render_target_count():
    check_render_target_count(1, ["R8G8B8A8_UNORM"])
    check_render_target_count(1, ["R8G8B8A8_UNORM", "UNKNOWN", None, "DXGI_FORMAT_UNKNOWN"])
    check_render_target_count(2, ["UNKNOWN", "R8G8B8A8_UNORM"])  # a hole below the count
    check_render_target_count(0, [])
    # vkd3d-proton: NumRenderTargets 1 with RTVFormats[1] set -> E_INVALIDARG.
    with pytest.raises(InvalidDescError, match=r"RTVFormats\[1\].*rules 15\.3"):
        check_render_target_count(1, ["R8G8B8A8_UNORM", "R8G8B8A8_UNORM"])
    for bad in (9, -1, True):
        with pytest.raises(InvalidDescError, match="NumRenderTargets"):
            check_render_target_count(bad, [])
    with pytest.raises(InvalidDescError, match="at most 8"):
        check_render_target_count(8, ["UNKNOWN"] * 9)


# -- the case file's pipeline_state ----------------------------------------------------------------
def test_a_pipeline_state_case_loads_as_its_top_level_form_does():
    case = load_case(doc(primitive_topology_type="TRIANGLE", num_render_targets=1,
                         rtv_formats=["R8G8B8A8_UNORM"], pixel_shader={"wgsl": PS_COLOR}))
    flat = doc()
    pso = flat.pop("pipeline_state")
    flat.update({k: pso[k] for k in ("input_layout", "vertex_shader", "stream_output")})
    plain = load_case(flat)
    assert case.layout == plain.layout and case.so_desc == plain.so_desc
    assert case.pipeline_state is not None and plain.pipeline_state is None
    assert case.source["pipeline_state"]["primitive_topology_type"] == "TRIANGLE"


def test_a_field_given_twice_is_refused():
    d = doc()
    d["input_layout"] = LAYOUT
    with pytest.raises(CaseError, match=r"pipeline_state\.input_layout: .*top level"):
        load_case(d)
    d = doc(strip_cut_value="0xFFFF")
    d["strip_cut_value"] = "0xFFFF"  # equal values too: a field is given once
    with pytest.raises(CaseError, match=r"pipeline_state\.strip_cut_value"):
        load_case(d)
    with pytest.raises(CaseError, match="unknown keys"):
        load_case(doc(DSVFormat="D32_FLOAT"))


def test_refusals_point_into_the_section():
    d = doc()
    d["pipeline_state"]["input_layout"] = [{"SemanticName": "POSITION", "Format": "R8_SRGB"}]
    with pytest.raises(InvalidDescError) as e:
        load_case(d)
    assert str(e.value).startswith("pipeline_state.input_layout")
    d = doc()
    d["pipeline_state"]["stream_output"]["declaration"][0]["SemanticName"] = "NORMAL"
    with pytest.raises(InvalidDescError, match=r"^pipeline_state\.stream_output"):
        load_case(d)  # rules 8.3: the vertex shader outputs no NORMAL


def test_the_draw_against_the_type_in_a_case():
    load_case(doc("LINESTRIP", primitive_topology_type="LINE"))
    with pytest.raises(InvalidDescError, match=r"takes no TRIANGLELIST draw.*rules 15\.1"):
        load_case(doc(primitive_topology_type="LINE"))


def test_render_targets_in_a_case():
    with pytest.raises(InvalidDescError, match=r"RTVFormats\[1\]"):
        load_case(doc(num_render_targets=1, rtv_formats=["R8G8B8A8_UNORM", "R32_FLOAT"]))
    with pytest.raises(InvalidDescError, match="RTVFormats"):
        load_case(doc(rtv_formats=["R9G9B9E5_SHAREDEXP"]))  # not a render target format
    with pytest.raises(InvalidDescError, match="RTVFormats"):
        load_case(doc(rtv_formats=["D32_FLOAT"]))  # a depth format is the DSV's


def test_pixel_shader_linkage_in_a_case():
    load_case(doc(pixel_shader={"wgsl": PS_COLOR}))
    # Rules 13.9/14.1: TEXCOORD0 is no vertex shader output (it writes SV_Position, COLOR0).
    with pytest.raises(InvalidDescError, match=r"pipeline_state\.pixel_shader.*TEXCOORD0.*"
                                               r"SV_POSITION0, COLOR0"):
        load_case(doc(pixel_shader={"wgsl": PS_TEXCOORD}))
    wide = PS_COLOR.replace("SV_Position: vec4<f32>, COLOR: vec4<f32>",
                            "SV_Position: vec4<f32>, COLOR: vec4<u32>")
    with pytest.raises(InvalidDescError, match="reads uint components"):
        load_case(doc(pixel_shader={"wgsl": wide}))
    with pytest.raises(CaseError, match="pixel_shader"):
        load_case(doc(pixel_shader={"glsl": "void main() {}"}))


GS_LINE = """
struct V { float4 pos : SV_Position; float4 color : COLOR; };
struct O { float4 pos : SV_Position; float4 color : COLOR; };
[maxvertexcount(2)]
void main(line V v[2], inout LineStream<O> s) {
    for (uint k = 0; k < 2; k++) { O o; o.pos = v[k].pos; o.color = v[k].color; s.Append(o); }
}
"""


def test_geometry_shader_and_pixel_shader_of_its_stream():
    gs = {"geometry_shader": {"hlsl": GS_LINE},
          "stream_output": {"declaration": [{"SemanticName": "COLOR", "ComponentCount": 4}],
                            "targets": [{"slot": 0, "size": 96}]}}
    case = load_case(doc("LINELIST", primitive_topology_type="LINE",
                         pixel_shader={"wgsl": PS_COLOR}, **gs))
    assert case.gs is not None
    with pytest.raises(InvalidDescError, match="geometry shader's stream 0 outputs no TEXCOORD0"):
        load_case(doc("LINELIST", pixel_shader={"wgsl": PS_TEXCOORD}, **copy.deepcopy(gs)))
    # A TRIANGLE type refuses the LINELIST draw first (rules 15.1); with the draw of the type,
    # the GS's line input is refused by its class (rules 13.2).
    with pytest.raises(InvalidDescError, match=r"rules 15\.1"):
        load_case(doc("LINELIST", primitive_topology_type="TRIANGLE", **copy.deepcopy(gs)))
    with pytest.raises(InvalidDescError, match=r"rules 13\.2"):
        load_case(doc("TRIANGLELIST", primitive_topology_type="TRIANGLE",
                      **copy.deepcopy(gs)))


# -- compiled shaders: the pixel shader links register by register (rules 14.1) ----------------
BLOBS = Path(__file__).resolve().parents[1] / "data" / "shaders" / "blobs"


def compiled(**pso) -> dict:
    # tests/data/shaders: vertex.hlsl reads POSITION, TEXCOORD0, BLENDINDICES and writes
    # SV_Position (register 0), TEXCOORD0 (1), TEXCOORD1 (2), NORMAL (3); pixel.hlsl reads
    # SV_Position (0), TEXCOORD0 (1), TEXCOORD1 (2); geometry.hlsl's `triangles` takes
    # triangles of SV_Position, TEXCOORD0 and writes SV_Position (0), TEXCOORD0 (1).
    pipeline = {
        "input_layout": [
            {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
            {"SemanticName": "TEXCOORD", "Format": "R32G32_FLOAT", "AlignedByteOffset": 12},
            {"SemanticName": "BLENDINDICES", "Format": "R8G8B8A8_UINT",
             "AlignedByteOffset": 20}],
        "vertex_shader": {"dxbc_file": str(BLOBS / "vertex.main.vs_5_0.cso")},
        "pixel_shader": {"dxbc_file": str(BLOBS / "pixel.main.ps_5_0.cso")},
        "primitive_topology_type": "TRIANGLE"}
    pipeline.update(pso)
    return {"gpuia_case": 1, "pipeline_state": pipeline,
            "vertex_buffers": [{"slot": 0, "stride": 24, "data": {"hex": "00" * 72}}],
            "primitive_topology": "TRIANGLELIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 3, "InstanceCount": 1}}}


def test_compiled_stages_link_in_a_pipeline_state():
    # Every pixel input is in the register of the vertex shader's output: linked, and the
    # DXBC vertex shader loaded for drawing.
    assert load_case(compiled()).hlsl is not None
    # With the geometry shader between them, TEXCOORD1 (register 2) is no output of its
    # stream 0: SEMANTICNAME_NOT_FOUND (#666, rules 14.1).
    gs = {"dxbc_file": str(BLOBS / "geometry.triangles.gs_5_0.cso")}
    with pytest.raises(InvalidDescError, match=r"pixel shader input TEXCOORD1 \(register 2\).*"
                                               r"#666; rules 14\.1"):
        load_case(compiled(geometry_shader=gs))
    # A WGSL pixel shader after the compiled vertex shader links by semantic: TEXCOORD0 is a
    # float2 output; TEXCOORD1 a uint one; there is no COLOR0.
    uv = PS_COLOR.replace("COLOR: vec4<f32>", "TEXCOORD0: vec2<f32>").replace(
        "input.COLOR", "vec4<f32>(input.TEXCOORD0, 0.0, 1.0)")
    assert load_case(compiled(pixel_shader={"wgsl": uv})).hlsl is not None
    with pytest.raises(InvalidDescError, match="reads 4 components; the vertex shader outputs 2"):
        load_case(compiled(pixel_shader={"wgsl": PS_TEXCOORD.replace("TEXCOORD", "TEXCOORD0")}))
    with pytest.raises(InvalidDescError, match="reads float components; the vertex shader "
                                               "outputs uint ones"):
        load_case(compiled(pixel_shader={"wgsl": PS_TEXCOORD.replace("TEXCOORD", "TEXCOORD1")}))
    with pytest.raises(InvalidDescError, match="outputs no COLOR0"):
        load_case(compiled(pixel_shader={"wgsl": PS_COLOR}))
