"""Cases with a geometry shader on the CPU reference (docs/case-format.md, "Additions"): the
stages IA -> VS -> GS -> SO composed by the harness, the result document's geometry parts, and
the case reader's refusals (rules 13.2, 13.9, 8.3, 8.9). Every expected value is derived by
hand, in the comments, from docs/rules.md section 13 and section 9. Runs the geometry shader's
CPU build (Slang and g++, as the other HLSL tests do); needs no adapter."""

from __future__ import annotations

import struct

import pytest

from gpuia.errors import CaseError, InvalidDescError
from gpuia.harness.case import load_case
from gpuia.harness.run import run_case
from helpers import DATA

FOUND = DATA / "fuzz" / "gs_draw_without_primitives.json"

QUAD = """
struct V { float4 pos : POSITION; };
struct O { float4 pos : POSITION; uint corner : CORNER; };
[maxvertexcount(4)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout TriangleStream<O> s) {
    for (uint k = 0; k < 4; k++) {
        O o;
        o.pos = v[0].pos + float4(k & 1, k >> 1, 0, 0);
        o.corner = pid * 10 + k;
        s.Append(o);
    }
}
"""

TWO_STREAMS = """
struct V { float4 pos : POSITION; };
struct A { uint id : ID; };
[maxvertexcount(3)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout PointStream<A> s0,
          inout PointStream<A> s1) {
    A a;
    a.id = pid; s0.Append(a);
    a.id = 100 + pid; s1.Append(a);
    a.id = 200 + pid; s1.Append(a);
}
"""


def u32s(hex_text: str) -> list[int]:
    raw = bytes.fromhex(hex_text)
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


def case(gs: str, points: list, declaration: list, targets: list, strides=(),
         rasterized=0, topology="POINTLIST", **extra) -> dict:
    doc = {
        "gpuia_case": 1, "name": "gs",
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 16,
                            "data": {"dtype": "float32", "values": [c for p in points
                                                                     for c in p]}}],
        "primitive_topology": topology,
        "draw": {"DrawInstanced": {"VertexCountPerInstance": len(points), "InstanceCount": 1,
                                   "StartVertexLocation": 0, "StartInstanceLocation": 0}},
        "geometry_shader": {"hlsl": gs},
        "stream_output": {"declaration": declaration, "buffer_strides": list(strides),
                          "rasterized_stream": rasterized, "targets": targets},
    }
    doc.update(extra)
    return doc


def test_a_point_becomes_a_quad_strip_streamed_out():
    # Two points, primitive ids 0 and 1. Each invocation appends corners k = 0..3 with
    # CORNER = 10 * pid + k: one strip of 4 vertices, triangles (0,1,2) and (1,3,2) (rules
    # 13.5, 9.3). Slot 0 takes CORNER (4 bytes), slot 1 POSITION.xy (8 bytes): the vertices in
    # SO order are corners 0 1 2 1 3 2 10 11 12 11 13 12, and the positions are the point plus
    # (k & 1, k >> 1): point (0,0) then (10,20).
    doc = case(QUAD, [(0, 0, 0, 1), (10, 20, 0, 1)],
               [{"SemanticName": "CORNER", "ComponentCount": 1, "OutputSlot": 0},
                {"SemanticName": "POSITION", "ComponentCount": 2, "OutputSlot": 1}],
               [{"slot": 0, "size": 48}, {"slot": 1, "size": 96}], strides=(4, 8))
    _, result = run_case(load_case(doc), "cpu")
    so = result["stream_output"]
    assert u32s(so["buffers"][0]["hex"]) == [0, 1, 2, 1, 3, 2, 10, 11, 12, 11, 13, 12]
    xy = {0: (0, 0), 1: (1, 0), 2: (0, 1), 3: (1, 1)}
    expected = []
    for base, corners in (((0, 0), (0, 1, 2, 1, 3, 2)), ((10, 20), (0, 1, 2, 1, 3, 2))):
        for k in corners:
            expected += [base[0] + xy[k][0], base[1] + xy[k][1]]
    raw = bytes.fromhex(so["buffers"][1]["hex"])
    assert list(struct.unpack("<24f", raw)) == expected
    assert [b["filled_size"] for b in so["buffers"]] == [48, 96]
    assert so["statistics"] == {"NumPrimitivesWritten": 4, "PrimitivesStorageNeeded": 4}
    assert so["streams"][0] == {"stream": 0, "NumPrimitivesWritten": 4,
                                "PrimitivesStorageNeeded": 4}
    # One invocation per point (13.1), four triangles out (13.8).
    assert result["statistics"]["GSInvocations"] == 2
    assert result["statistics"]["GSPrimitives"] == 4
    inv = result["geometry_invocations"]
    assert [(e["draw"], e["instance"], e["primitive"], e["gs_instance"]) for e in inv] == [
        (0, 0, 0, 0), (0, 0, 1, 0)]
    assert [v["POSITION0"]["value"] for v in inv[1]["inputs"]] == [[10.0, 20.0, 0.0, 1.0]]
    assert [e["outputs"]["CORNER0"]["bits"] for e in inv[1]["emits"]] == [[10], [11], [12], [13]]
    assert all(e["stream"] == 0 and "cut" not in e for e in inv[0]["emits"])


def test_13_8_two_point_streams_overflow_each_on_its_own():
    # Three points; each invocation appends ID = pid on stream 0 and 100 + pid, 200 + pid on
    # stream 1. Stream 0 into slot 0 (12 bytes: room for 3 points): all 3 written. Stream 1
    # into slot 1 (16 bytes: room for 4 points) gets, in order, 100 200 101 201 and then 102
    # does not fit: written 4 of 6 needed, and stream 0 is unaffected (rules 9.7, 13.8).
    doc = case(TWO_STREAMS, [(0, 0, 0, 1)] * 3,
               [{"Stream": 0, "SemanticName": "ID", "ComponentCount": 1, "OutputSlot": 0},
                {"Stream": 1, "SemanticName": "ID", "ComponentCount": 1, "OutputSlot": 1}],
               [{"slot": 0, "size": 12}, {"slot": 1, "size": 16}], strides=(4, 4),
               rasterized=0xFFFFFFFF)
    _, result = run_case(load_case(doc), "cpu")
    so = result["stream_output"]
    assert u32s(so["buffers"][0]["hex"]) == [0, 1, 2]
    assert u32s(so["buffers"][1]["hex"]) == [100, 200, 101, 201]
    assert so["streams"] == [
        {"stream": 0, "NumPrimitivesWritten": 3, "PrimitivesStorageNeeded": 3},
        {"stream": 1, "NumPrimitivesWritten": 4, "PrimitivesStorageNeeded": 6},
        {"stream": 2, "NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 0},
        {"stream": 3, "NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 0}]
    assert result["statistics"]["GSPrimitives"] == 9
    emits = result["geometry_invocations"][2]["emits"]
    assert [(e["stream"], e["outputs"]["ID0"]["bits"]) for e in emits] == [
        (0, [2]), (1, [102]), (1, [202])]


@pytest.mark.parametrize("change, error, match", [
    # A point GS on a triangle list (rules 13.2).
    ({"primitive_topology": "TRIANGLELIST"}, InvalidDescError, r"rules 13\.2"),
    # A GS input the vertex shader does not output (the pass-through shader outputs POSITION0
    # only; rules 13.9).
    ({"geometry_shader": {"hlsl": QUAD.replace("POSITION; };\nstruct O",
                                               "NORMAL; };\nstruct O")}},
     InvalidDescError, r"geometry_shader: input='NORMAL0'.*rules 13\.9"),
    # A stream-0 entry naming what stream 0 does not output (rules 8.3).
    ({"stream_output": {"declaration": [{"SemanticName": "COLOR", "ComponentCount": 1}],
                        "targets": []}}, InvalidDescError,
     r"stream 0 of the geometry shader has no output with semantic COLOR.*rules 8\.3"),
    # An entry of a stream the shader does not have (rules 13.7).
    ({"stream_output": {"declaration": [{"Stream": 1, "SemanticName": "CORNER",
                                         "ComponentCount": 1}], "targets": []}},
     InvalidDescError, r"Stream=1: the geometry shader has 1 output stream \(rules 13\.7\)"),
    # A WGSL-style object: a geometry shader is HLSL.
    ({"geometry_shader": {"wgsl": "fn main() {}"}}, CaseError, r"geometry_shader"),
])
def test_the_case_reader_refuses(change, error, match):
    doc = case(QUAD, [(0, 0, 0, 1)], [{"SemanticName": "CORNER", "ComponentCount": 1}],
               [{"slot": 0, "size": 16}])
    doc.update(change)
    with pytest.raises(error, match=match):
        load_case(doc)


def test_a_cbuffer_the_geometry_shader_reads_must_be_bound():
    gs = QUAD.replace("struct V", "cbuffer K : register(b2) { uint offset; };\nstruct V").replace(
        "pid * 10 + k", "pid * 10 + k + offset")
    doc = case(gs, [(0, 0, 0, 1)], [{"SemanticName": "CORNER", "ComponentCount": 1}],
               [{"slot": 0, "size": 24}])
    with pytest.raises(InvalidDescError, match=r"the geometry shader reads cbuffer K "
                                               r"\(register b2\); the case binds no "
                                               r"constant buffer 2"):
        load_case(doc)
    # Bound to 1000: the corners of point 0 become 1000..1003: triangles (1000,1001,1002),
    # (1001,1003,1002).
    doc["constant_buffers"] = [{"slot": 2, "data": {"dtype": "<u4", "values": [1000, 0, 0, 0]}}]
    _, result = run_case(load_case(doc), "cpu")
    assert u32s(result["stream_output"]["buffers"][0]["hex"]) == [1000, 1001, 1002,
                                                                  1001, 1003, 1002]
    # The same by name: offset is the first word of register 0 (docs/case-format.md, values).
    doc["constant_buffers"] = [{"slot": 2, "values": {"offset": 1000}}]
    _, result = run_case(load_case(doc), "cpu")
    assert u32s(result["stream_output"]["buffers"][0]["hex"]) == [1000, 1001, 1002,
                                                                  1001, 1003, 1002]
    # A vertex shader declaring register b2 otherwise (offset its second word): refused.
    doc["vertex_shader"] = {"hlsl": "cbuffer P : register(b2) { uint pad; uint offset; };\n"
                                    "float4 main(float4 p : POSITION) : POSITION "
                                    "{ return p + pad + offset; }"}
    with pytest.raises(InvalidDescError, match="pack these values into different bytes"):
        load_case(doc)


def test_found_gs_draw_without_primitives():
    """Found by gpuia fuzz --gs: draws that assemble no primitive made the CPU reference fail
    on the shader's empty output. No primitive: no invocation (rules 13.1), nothing appended,
    so every stream writes and needs 0 (rules 13.8) and the target keeps its 32 zero bytes."""
    _, doc = run_case(load_case(FOUND), "cpu")
    assert doc["statistics"]["GSInvocations"] == 0 and doc["statistics"]["GSPrimitives"] == 0
    assert doc["geometry_invocations"] == []
    so = doc["stream_output"]
    assert so["buffers"] == [{"slot": 0, "hex": "00" * 32, "filled_size": 0}]
    assert all(s["NumPrimitivesWritten"] == s["PrimitivesStorageNeeded"] == 0
               for s in so["streams"])
