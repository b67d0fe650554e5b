"""Linkage of compiled shaders' signatures (gpuia.d3d.linkage; rules 3.7, 3.8, 8.2, 8.3, 14.1-14.3)
on the blobs Microsoft's FXC and DXC compiled from tests/data/shaders/*.hlsl.

The signature rows the stage-to-stage checks are given come from the compilers' own reflection
recorded beside each blob (D3DReflect, IDxcUtils::CreateReflection), not from gpuia's reader;
which pairs link and which input fails is read from the HLSL sources by hand (vertex.hlsl's VSOut
holds pixel.hlsl's PSIn as its first members; precision.hlsl's VSOut has no TEXCOORD1;
geometry.hlsl's GSIn is VSOut's first two members). Register, mask and type mismatches no
compiler output shows are hand-made rows, each a one-field change of a linking pair."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gpuia.d3d.container import read_container
from gpuia.d3d.container.signatures import SignatureParameter
from gpuia.d3d.layout import InputLayout
from gpuia.d3d.linkage import (
    check_stages,
    container_declaration,
    link_stages,
    stream_members,
    vertex_signature,
)
from gpuia.d3d.so_declaration import resolve_stream_output
from gpuia.d3d.so_desc import SODeclarationEntry, StreamOutputDesc
from gpuia.errors import InvalidDescError
from gpuia.harness.lint import link_findings
from helpers import DATA

BLOBS = DATA / "shaders" / "blobs"
# d3dcommon.h's numbers, for the compilers' reflection
D3D_NAME = {0: "UNDEFINED", 1: "POSITION", 6: "VERTEX_ID", 7: "PRIMITIVE_ID", 64: "TARGET",
            65: "DEPTH"}
COMPONENT = {1: "UINT32", 2: "SINT32", 3: "FLOAT32"}
PRECISION = {0: "DEFAULT", 1: "FLOAT_16", 4: "SINT_16", 5: "UINT_16"}
VERTEX = ["vertex.main.vs_4_0", "vertex.main.vs_5_0", "vertex.main.vs_5_1", "vertex.main.vs_6_0"]


def rows(name: str, kind: str) -> list[SignatureParameter]:
    """The compiler's reflection of one signature of a blob, as rows."""
    meta = json.loads((BLOBS / f"{name}.json").read_text())["reflection"]
    return [SignatureParameter(r["SemanticName"], r["SemanticIndex"], r["Register"],
                               D3D_NAME[r["SystemValueType"]], COMPONENT[r["ComponentType"]],
                               r["Mask"], r["ReadWriteMask"], r["Stream"],
                               PRECISION[r["MinPrecision"]])
            for r in meta[kind]]


def container(name: str):
    return read_container((BLOBS / f"{name}.cso").read_bytes())


def element(name, fmt, offset, index=0, slot=0):
    return {"SemanticName": name, "SemanticIndex": index, "Format": fmt, "InputSlot": slot,
            "AlignedByteOffset": offset}


# vertex.hlsl's VSIn: float3 POSITION, float2 TEXCOORD0, uint4 BLENDINDICES, SV_VertexID
FULL = [element("POSITION", "R32G32B32_FLOAT", 0), element("TEXCOORD", "R32G32_FLOAT", 12),
        element("BLENDINDICES", "R8G8B8A8_UINT", 20)]


# --- input layout against the vertex shader's input rows (rules 3.7, 3.8, 2.12) ---------------

@pytest.mark.parametrize("name", VERTEX)
def test_a_layout_of_every_input_links(name):
    signature = vertex_signature(container(name))
    layout = InputLayout(FULL)
    signature.check_layout(layout)  # SV_VertexID is the IA's, not the layout's
    assert link_findings(layout, signature) == []


@pytest.mark.parametrize("name", VERTEX)
def test_names_match_ignoring_case(name):
    lower = [dict(e, SemanticName=e["SemanticName"].lower()) for e in FULL]
    vertex_signature(container(name)).check_layout(InputLayout(lower))


@pytest.mark.parametrize("name", VERTEX)
def test_a_missing_input_is_refused_naming_it_and_its_register(name):
    register = next(r.register for r in rows(name, "input")
                    if r.semantic_name == "BLENDINDICES")
    assert register == 2  # FXC and DXC both put the third input in v2
    with pytest.raises(InvalidDescError) as e:
        vertex_signature(container(name)).check_layout(InputLayout(FULL[:2]))
    assert "BLENDINDICES0 (register 2)" in str(e.value) and "rules 3.8" in str(e.value)


def test_a_semantic_index_must_match_too():
    moved = FULL[:1] + [element("TEXCOORD", "R32G32_FLOAT", 12, index=1)] + FULL[2:]
    with pytest.raises(InvalidDescError, match=r"TEXCOORD0 \(register 1\).*rules 3\.8"):
        vertex_signature(container("vertex.main.vs_5_0")).check_layout(InputLayout(moved))


def test_a_type_class_the_format_does_not_deliver_is_a_warning_only():
    # BLENDINDICES is uint4 in the source: a float format delivers floats' bits (rules 2.12)
    floats = FULL[:2] + [element("BLENDINDICES", "R32G32B32A32_FLOAT", 20)]
    signature = vertex_signature(container("vertex.main.vs_5_0"))
    layout = InputLayout(floats)
    signature.check_layout(layout)
    found = link_findings(layout, signature)
    assert [(f.code, f.severity) for f in found] == [("W011", "warning")]
    assert "BLENDINDICES0 (register 2)" in found[0].message


@pytest.mark.parametrize("name", ["precision.main.vs_5_0", "precision.main.vs_6_2"])
def test_minimum_precision_inputs_take_their_32_bit_class(name):
    # precision.hlsl: min16float4 POSITION, min16int2 OFFSET, min16uint ID
    layout = InputLayout([element("POSITION", "R16G16B16A16_FLOAT", 0),
                          element("OFFSET", "R16G16_SINT", 8), element("ID", "R16_UINT", 12)])
    signature = vertex_signature(container(name))
    signature.check_layout(layout)
    assert link_findings(layout, signature) == []


def test_another_stage_is_no_vertex_shader():
    with pytest.raises(InvalidDescError, match="stage='pixel'"):
        vertex_signature(container("pixel.main.ps_5_0"))


# --- stage to stage, register by register (rules 14.1-14.3) ------------------------------------

@pytest.mark.parametrize("vs,ps", [("vertex.main.vs_5_0", "pixel.main.ps_5_0"),
                                   ("vertex.main.vs_4_0", "pixel.main.ps_5_0"),
                                   ("vertex.main.vs_6_0", "pixel.main.ps_6_0")])
def test_a_pixel_shader_reading_a_prefix_of_the_outputs_links(vs, ps):
    assert link_stages(rows(vs, "output"), rows(ps, "input"), "pixel") == []


def test_an_input_the_vertex_shader_does_not_write_is_refused():
    found = link_stages(rows("precision.main.vs_5_0", "output"),
                        rows("pixel.main.ps_5_0", "input"), "pixel")
    # TEXCOORD0: min16float2 out, float2 in: linked, the precisions reported; TEXCOORD1 missing
    assert [(f.where, f.rule, f.severity) for f in found] == [
        ("pixel shader input TEXCOORD0 (register 1)", "min_precision", "warning"),
        ("pixel shader input TEXCOORD1 (register 2)", "semantic", "error")]
    with pytest.raises(InvalidDescError) as e:
        check_stages(rows("precision.main.vs_5_0", "output"), rows("pixel.main.ps_5_0", "input"),
                     "pixel")
    text = str(e.value)
    assert "TEXCOORD1 (register 2)" in text and "SEMANTICNAME_NOT_FOUND #666" in text
    assert "rules 14.1" in text


@pytest.mark.parametrize("gs", ["geometry.triangles.gs_4_0", "geometry.triangles.gs_5_0",
                                "geometry.streams.gs_5_0"])
def test_a_geometry_shader_links_and_its_primitive_id_is_generated(gs):
    assert link_stages(rows("vertex.main.vs_5_0", "output"), rows(gs, "input"), "geometry") == []


def test_a_geometry_shader_input_no_output_provides():
    # cbuffers.hlsl's shader writes SV_Position only; GSIn reads TEXCOORD0 too
    with pytest.raises(InvalidDescError, match=r"geometry shader input TEXCOORD0 \(register 1\)"):
        check_stages(rows("cbuffers.main.vs_5_0", "output"),
                     rows("geometry.triangles.gs_5_0", "input"), "geometry")


def test_a_pixel_shader_links_with_the_rasterized_stream_only():
    gs = rows("geometry.triangles.gs_5_0", "output")  # SV_Position, TEXCOORD0: no TEXCOORD1
    found = link_stages(gs, rows("pixel.main.ps_5_0", "input"), "pixel", "geometry shader")
    assert [(f.where, f.rule) for f in found] == [
        ("pixel shader input TEXCOORD1 (register 2)", "semantic")]
    streams = rows("geometry.streams.gs_5_0", "output")  # stream 1: SV_Position, MARKER
    found = link_stages(streams, rows("pixel.main.ps_5_0", "input")[:1], "pixel",
                        "geometry shader", stream=1)
    assert found == []


# hand-made rows: a vertex shader writing SV_Position v0, NORMAL v1.xyz, TEXCOORD0 v2.xy
VS_OUT = [SignatureParameter("SV_Position", 0, 0, "POSITION", "FLOAT32", 0xF, 0),
          SignatureParameter("NORMAL", 0, 1, "UNDEFINED", "FLOAT32", 0x7, 0x8),
          SignatureParameter("TEXCOORD", 0, 2, "UNDEFINED", "FLOAT32", 0x3, 0xC)]
PS_IN = [SignatureParameter("SV_Position", 0, 0, "POSITION", "FLOAT32", 0xF, 0),
         SignatureParameter("TEXCOORD", 0, 2, "UNDEFINED", "FLOAT32", 0x3, 0x3)]


def test_the_hand_made_pair_links():
    assert link_stages(VS_OUT, PS_IN, "pixel") == []
    lower = [replace(PS_IN[0], semantic_name="sv_position"), PS_IN[1]]
    assert link_stages(VS_OUT, lower, "pixel") == []


@pytest.mark.parametrize("change,rule,says", [
    # leaving NORMAL out of the pixel shader's struct moves TEXCOORD0 to v1
    ({"register": 1}, "register", "REGISTERINDEX #660"),
    ({"mask": 0x7, "read_write_mask": 0x7}, "mask", "REGISTERMASK #662"),
    ({"component_type": "UINT32"}, "component_type", "COMPONENTTYPE #661"),
    ({"system_value_type": "CLIP_DISTANCE"}, "system_value", "SYSTEMVALUE #663"),
])
def test_each_refusal_names_the_input_its_register_and_the_rule(change, rule, says):
    bad = [PS_IN[0], replace(PS_IN[1], **change)]
    found = link_stages(VS_OUT, bad, "pixel")
    assert [(f.rule, f.severity) for f in found] == [(rule, "error")]
    with pytest.raises(InvalidDescError) as e:
        check_stages(VS_OUT, bad, "pixel")
    text = str(e.value)
    register = change.get("register", 2)
    assert text.startswith(f"pixel shader input TEXCOORD0 (register {register}):")
    assert says in text and "rules 14.1" in text


def test_reading_a_component_never_written_is_a_warning():
    out = [VS_OUT[0], VS_OUT[1], replace(VS_OUT[2], mask=0x7, read_write_mask=0xC)]  # z unwritten
    ps = [PS_IN[0], replace(PS_IN[1], mask=0x7, read_write_mask=0x7)]
    assert check_stages(out, ps, "pixel")[0].rule == "never_written"  # returned, not raised
    assert "rules 14.3" in check_stages(out, ps, "pixel")[0].text


def test_generated_inputs_need_no_output_but_sv_position_does():
    front = SignatureParameter("SV_IsFrontFace", 0, 3, "IS_FRONT_FACE", "UINT32", 0x1, 0x1)
    prim = SignatureParameter("SV_PrimitiveID", 0, 3, "PRIMITIVE_ID", "UINT32", 0x2, 0x2)
    assert link_stages(VS_OUT, PS_IN + [front, prim], "pixel") == []
    assert [f.rule for f in link_stages(VS_OUT[1:], PS_IN, "pixel")] == ["semantic"]


# --- Stream Output against a compiled shader's outputs (rules 8.2, 8.3, 13.7) ------------------

def _so(*entries, strides=(8, 4)):
    return StreamOutputDesc(tuple(SODeclarationEntry(*e) for e in entries), strides, 0)


@pytest.mark.parametrize("name", ["geometry.streams.gs_5_0", "geometry.streams.gs_6_1"])
def test_so_entries_name_outputs_of_their_own_stream(name):
    c = container(name)
    streams = stream_members(c)
    # geometry.hlsl: stream 0 GSOut (SV_Position, float2 TEXCOORD0), stream 1 Marker (MARKER)
    assert [[m.key for m in s] for s in streams] == [["SV_POSITION0", "TEXCOORD0"],
                                                     ["SV_POSITION0", "MARKER0"]]
    vs = vertex_signature(container("vertex.main.vs_5_0"))
    ok = _so((0, "TEXCOORD", 0, 0, 2, 0), (1, "marker", 0, 0, 1, 1))
    resolve_stream_output(ok, vs, streams=streams)
    with pytest.raises(InvalidDescError, match=r"stream 1 .*TEXCOORD.*rules 8\.3"):
        resolve_stream_output(_so((0, "TEXCOORD", 0, 0, 2, 0), (1, "TEXCOORD", 0, 0, 1, 1)),
                              vs, streams=streams)
    with pytest.raises(InvalidDescError, match=r"rules 8\.2"):  # TEXCOORD0 has 2 components
        resolve_stream_output(_so((0, "TEXCOORD", 0, 1, 2, 0), (1, "MARKER", 0, 0, 1, 1)),
                              vs, streams=streams)


def test_a_compiled_vertex_shaders_outputs_take_so_entries():
    vs = vertex_signature(container("vertex.main.vs_5_0"))  # NORMAL is a float3
    resolve_stream_output(_so((0, "NORMAL", 0, 0, 3, 0), strides=(12,)), vs)
    with pytest.raises(InvalidDescError, match=r"rules 8\.2"):
        resolve_stream_output(_so((0, "NORMAL", 0, 0, 4, 0), strides=(16,)), vs)


def test_a_geometry_containers_declarations():
    d = container_declaration(container("geometry.streams.gs_5_0"))
    assert d is not None
    # [instance(2)] [maxvertexcount(4)] line input, two PointStreams
    assert (d.input_primitive, d.max_vertex_count, d.streams, d.instance_count) == \
        ("line", 4, ("PointStream", "PointStream"), 2)
