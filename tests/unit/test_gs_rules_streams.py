"""A geometry shader's streams and its linkage (docs/rules.md 13.8, 13.9, and 8.9, 8.10, 9.7,
10.1, 10.2 per stream), end to end: HLSL cases on the CPU reference through gpuia.harness. Each
expected value is derived by hand from the rule text, in the comment above it. Needs Slang and a
C++ compiler, as the other HLSL tests; no adapter."""

from __future__ import annotations

import pytest

from gpuia.errors import InvalidDescError
from gs_rules_case import FILL, gs_case, run_cpu, so_entry, target, words

# -- 13.8 overflow and statistics per stream ----------------------------------------------------

FOUR_STREAMS = """
struct V { uint id : ID; };
struct O { uint x : X; };
[maxvertexcount(4)]
void main(point V v[1], inout PointStream<O> s0, inout PointStream<O> s1,
          inout PointStream<O> s2, inout PointStream<O> s3) {
    O o;
    o.x = v[0].id; s0.Append(o);
    o.x = 100 + v[0].id; s1.Append(o);
    o.x = 200 + v[0].id; s2.Append(o);
    o.x = 300 + v[0].id; s3.Append(o);
}
"""


def test_13_8_four_point_streams_overflow_on_their_own():
    # Two draws of 3 points (IDs 0-2, then 3-5); each point appends s * 100 + ID to stream s,
    # stream s into slot s, 4 bytes a point. Slot 1 holds 12 bytes: points 100, 101, 102 of draw
    # 0 fit, then nothing more of stream 1 (rules 9.7), in draw 1 too: written 3, needed 6
    # (10.2). Slot 2 holds 24 bytes: exactly the 6 points, so it never overflows. Slots 0 and 3
    # have room to spare: all 6 points, then untouched words. Stream 1's overflow stops no other
    # stream (13.8).
    draws = [{"DrawInstanced": {"VertexCountPerInstance": 3, "InstanceCount": 1}},
             {"DrawInstanced": {"VertexCountPerInstance": 3, "InstanceCount": 1,
                                "StartVertexLocation": 3}}]
    declaration = [so_entry("X", 1, s, s) for s in range(4)]
    doc = gs_case(FOUR_STREAMS, 6, declaration,
                  [target(0, 32), target(1, 12), target(2, 24), target(3, 32)],
                  draws=draws, strides=(4, 4, 4, 4))
    result = run_cpu(doc)
    assert words(result, 0) == [0, 1, 2, 3, 4, 5, FILL, FILL]
    assert words(result, 1) == [100, 101, 102]
    assert words(result, 2) == [200, 201, 202, 203, 204, 205]
    assert words(result, 3) == [300, 301, 302, 303, 304, 305, FILL, FILL]
    so = result["stream_output"]
    assert [b["filled_size"] for b in so["buffers"]] == [24, 12, 24, 24]
    assert [(s["NumPrimitivesWritten"], s["PrimitivesStorageNeeded"]) for s in so["streams"]] == [
        (6, 6), (3, 6), (6, 6), (6, 6)]
    # GSPrimitives counts every stream's points, written or not; one invocation per point.
    assert result["statistics"]["GSPrimitives"] == 24
    assert result["statistics"]["GSInvocations"] == 6


TWO_SLOTS = """
struct V { uint id : ID; };
struct O { uint x : X; uint y : Y; };
[maxvertexcount(2)]
void main(point V v[1], inout PointStream<O> s0, inout PointStream<O> s1) {
    O o;
    o.x = v[0].id; o.y = 0; s0.Append(o);
    o.x = 10 + v[0].id; o.y = 20 + v[0].id; s1.Append(o);
}
"""


def test_9_7_a_stream_stops_in_every_one_of_its_buffers():
    # Stream 1 writes X to slot 1 (room for 4 points) and Y to slot 2 (room for 2). A point fits
    # only where it fits in both (rules 9.7): points 10 and 11 (20, 21), then stream 1 stops in
    # slot 1 too, with room left there. Stream 0, into slot 0, writes all 4 points.
    doc = gs_case(TWO_SLOTS, 4, [so_entry("X", 1, 0, 0), so_entry("X", 1, 1, 1),
                                 so_entry("Y", 1, 2, 1)],
                  [target(0, 16), target(1, 16), target(2, 8)], strides=(4, 4, 4))
    result = run_cpu(doc)
    assert words(result, 0) == [0, 1, 2, 3]
    assert words(result, 1) == [10, 11, FILL, FILL]
    assert words(result, 2) == [20, 21]
    streams = result["stream_output"]["streams"]
    assert [(s["NumPrimitivesWritten"], s["PrimitivesStorageNeeded"]) for s in streams[:2]] == [
        (4, 4), (2, 4)]


SOME_SILENT = """
struct V { uint id : ID; };
struct O { uint3 r : R; };
[instance(4)]
[maxvertexcount(3)]
void main(point V v[1], uint pid : SV_PrimitiveID, uint gsi : SV_GSInstanceID,
          inout LineStream<O> s) {
    uint n = gsi == 0 ? 2 : gsi == 1 ? 0 : gsi == 2 ? 1 : 3;
    for (uint k = 0; k < n; k++) { O o; o.r = uint3(pid, gsi, k); s.Append(o); }
}
"""


def test_13_8_gs_invocations_with_instances_and_silent_invocations():
    # Three points, [instance(4)]: 3 x 4 = 12 invocations, counted whether or not they emit
    # (13.8). GS instance 0 appends 2 vertices (one line), 1 none, 2 one (an incomplete strip:
    # dropped, counted nowhere, 13.4), 3 three (two lines). Each instance starts its own strip
    # (13.4): instance 2's lone vertex does not join instance 3's. Per point 3 lines; 9 in all,
    # in order (pid, gsi) with the strip's segments (k, k + 1).
    result = run_cpu(gs_case(SOME_SILENT, 3, [so_entry("R", 3)], [target(0, 9 * 2 * 12)]))
    lines = [(0, (0, 1)), (3, (0, 1)), (3, (1, 2))]
    assert words(result, 0) == [w for p in range(3) for gsi, seg in lines for k in seg
                                for w in (p, gsi, k)]
    assert result["statistics"]["GSInvocations"] == 12
    assert result["statistics"]["GSPrimitives"] == 9
    assert result["stream_output"]["streams"][0] == {
        "stream": 0, "NumPrimitivesWritten": 9, "PrimitivesStorageNeeded": 9}
    # Every invocation is listed, the silent ones with no emits.
    emits = [len(e["emits"]) for e in result["geometry_invocations"]]
    assert emits == [2, 0, 1, 3] * 3


# -- 8.10 the rasterized stream with a geometry shader -------------------------------------------

@pytest.mark.parametrize("rasterized", [0, 1, 2, 3, "NO_RASTERIZED_STREAM"])
def test_8_10_a_rasterized_stream_of_0_to_3_or_none_is_accepted(rasterized):
    # Rules 8.10: 0-3 or NO_RASTERIZED_STREAM in D3D12; what is rasterized changes nothing in
    # Stream Output: every point of both streams is written.
    doc = gs_case(TWO_SLOTS, 2, [so_entry("X", 1, 0, 0), so_entry("Y", 1, 1, 1)],
                  [target(0, 8), target(1, 8)], strides=(4, 4), rasterized=rasterized)
    result = run_cpu(doc)
    assert (words(result, 0), words(result, 1)) == ([0, 1], [20, 21])


def test_8_10_rasterized_stream_4_is_refused():
    doc = gs_case(TWO_SLOTS, 2, [so_entry("X", 1, 0, 0)], [target(0, 8)], rasterized=4)
    with pytest.raises(InvalidDescError, match=r"RasterizedStream=4.*rules 8\.10"):
        run_cpu(doc)


# -- 13.9 linkage ---------------------------------------------------------------------------------

LAYOUT = [{"SemanticName": "A", "Format": "R32_UINT"},
          {"SemanticName": "B", "Format": "R32G32_UINT"}]
VS = """
struct VO { uint a : A; uint2 b : B; float4 pos : SV_Position; };
VO main(uint a : A, uint2 b : B) { VO o; o.a = a; o.b = b; o.pos = float4(0, 0, 0, 1); return o; }
"""


def linked(gs_inputs: str, record: str) -> dict:
    """Two points through an HLSL vertex shader that outputs A (1 component) and B (2): point 0
    A = 1, B = (2, 3); point 1 A = 4, B = (5, 6)."""
    source = f"""
struct V {{ {gs_inputs} }};
struct O {{ uint3 r : R; }};
[maxvertexcount(1)]
void main(point V v[1], inout PointStream<O> s) {{ O o; o.r = {record}; s.Append(o); }}
"""
    return gs_case(source, 2, [so_entry("R", 3)], [target(0, 24)], layout=LAYOUT,
                   values=[1, 2, 3, 4, 5, 6], stride=12, vertex_shader={"hlsl": VS})


def test_13_9_inputs_link_by_semantic_not_by_position():
    # The GS declares B before A, and spells them in lower case (semantics ignore case, as
    # rules 8.3 compares them): each still receives the vertex shader's output of its semantic.
    result = run_cpu(linked("uint2 b : b; uint a : a;", "uint3(v[0].a, v[0].b)"))
    assert words(result, 0) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("gs_inputs, says", [
    # B1 is no output (the vertex shader outputs A0 and B0): the semantic index counts.
    ("uint a : A; uint2 b : B1;", r"input='B1': the vertex shader has no output B1.*rules 13\.9"),
    ("uint a : A; uint2 c : C;", r"input='C0': the vertex shader has no output C0.*rules 13\.9"),
    # B0 has 2 components; reading 3 reads one the vertex shader does not write.
    ("uint a : A; uint3 b : B;", r"input='B0': reads 3 components; the vertex shader outputs 2 "
                                 r"\(rules 13\.9\)"),
])
def test_13_9_every_input_must_be_a_vertex_shader_output(gs_inputs, says):
    with pytest.raises(InvalidDescError, match=says):
        run_cpu(linked(gs_inputs, "uint3(v[0].a, 0, 0)"))


# -- 13.7 and 11.1: several streams are shader model 5 -------------------------------------------

@pytest.mark.parametrize("level", ["10_0", "10_1"])
def test_13_7_several_streams_are_refused_at_feature_level_10(level):
    # Rules 13.7: streams 1-3 are shader model 5's; rules 11.1: feature levels 10_0 and 10_1
    # have one Stream Output stream (and run shader model 4). A shader of two streams is
    # refused there, even with entries of stream 0 only; a one-stream shader runs.
    doc = gs_case(TWO_SLOTS, 2, [so_entry("X", 1, 0, 0)], [target(0, 8)], rasterized=0,
                  feature_level=level)
    with pytest.raises(InvalidDescError, match=rf"geometry shader: streams=2: feature level "
                                               rf"{level} has 1 Stream Output stream.*"
                                               r"rules 13\.7, 11\.1"):
        run_cpu(doc)
    doc["geometry_shader"]["hlsl"] = SOME_SILENT.replace("[instance(4)]", "")
    doc["stream_output"]["declaration"] = [so_entry("R", 3)]
    doc["stream_output"]["targets"] = [target(0, 2 * 2 * 12)]
    # GS instance 0 only: 2 vertices per point, one line each.
    assert words(run_cpu(doc), 0) == [0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1]
