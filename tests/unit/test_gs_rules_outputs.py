"""What a geometry shader's calls become (docs/rules.md 13.3 to 13.7), end to end: HLSL cases run
on the CPU reference through gpuia.harness (the shader through Slang's C++, everything around it
in numpy), and declarations through gpuia.hlsl.compile_geometry_shader. Each expected value is
derived by hand from the rule text, in the comment above it. Needs Slang and a C++ compiler, as
the other HLSL tests; no adapter."""

from __future__ import annotations

import pytest

from gpuia.errors import InvalidDescError
from gpuia.hlsl import compile_geometry_shader
from gs_rules_case import FILL, gs_case, run_cpu, so_entry, target, words

# -- 13.3 SV_PrimitiveID across a strip cut, draw instances and draws; 32 GS instances ---------

INSTANCED = """
struct V { uint id : ID; };
struct O { uint4 tri : TRI; uint2 ids : IDS; };
[instance(32)]
[maxvertexcount(1)]
void main(triangle V v[3], uint pid : SV_PrimitiveID, uint gsi : SV_GSInstanceID,
          inout PointStream<O> s) {
    O o;
    o.tri = uint4(v[0].id, v[1].id, v[2].id, 0);
    o.ids = uint2(pid, gsi);
    s.Append(o);
}
"""


def test_13_3_primitive_id_and_32_gs_instances_end_to_end():
    # Draw 0: indices 0 1 2 3 CUT 4 5 6 as a triangle strip, 2 instances: triangles (0,1,2),
    # (1,3,2) (odd: last two swapped, 9.3), then (4,5,6) after the cut; SV_PrimitiveID 0, 1, 2
    # through the cut, and again 0, 1, 2 in instance 1. Draw 1: indices 4 5 6 (StartIndex 5):
    # (4,5,6) with SV_PrimitiveID 0. Each triangle runs 32 times, SV_GSInstanceID 0..31, before
    # the next triangle. Record: the three IDs, 0, then (pid, gsi): 24 bytes per point.
    index = [0, 1, 2, 3, 0xFFFF, 4, 5, 6]
    draws = [{"DrawIndexedInstanced": {"IndexCountPerInstance": 8, "InstanceCount": 2}},
             {"DrawIndexedInstanced": {"IndexCountPerInstance": 3, "InstanceCount": 1,
                                       "StartIndexLocation": 5}}]
    doc = gs_case(INSTANCED, 7, [so_entry("TRI", 4), so_entry("IDS", 2)], [target(0, 7 * 32 * 24)],
                  topology="TRIANGLESTRIP", draws=draws, strides=(24,), strip_cut_value="0xFFFF",
                  index_buffer={"format": "R16_UINT",
                                "data": {"dtype": "uint16", "values": index}})
    result = run_cpu(doc)
    triangles = [((0, 1, 2), 0), ((1, 3, 2), 1), ((4, 5, 6), 2)] * 2 + [((4, 5, 6), 0)]
    expected = [w for tri, pid in triangles for gsi in range(32) for w in (*tri, 0, pid, gsi)]
    assert words(result, 0) == expected
    assert result["statistics"]["GSInvocations"] == 7 * 32
    assert result["statistics"]["GSPrimitives"] == 7 * 32
    inv = result["geometry_invocations"]
    assert [(e["draw"], e["instance"], e["primitive"], e["gs_instance"]) for e in inv[::32]] == [
        (0, 0, 0, 0), (0, 0, 1, 0), (0, 0, 2, 0), (0, 1, 0, 0), (0, 1, 1, 0), (0, 1, 2, 0),
        (1, 0, 0, 0)]


ADJACENT = """
struct V { uint id : ID; };
struct O { uint4 a : A; uint4 b : B; };
[maxvertexcount(1)]
void main(triangleadj V v[6], uint pid : SV_PrimitiveID, inout PointStream<O> s) {
    O o;
    o.a = uint4(v[0].id, v[1].id, v[2].id, v[3].id);
    o.b = uint4(v[4].id, v[5].id, pid, 0);
    s.Append(o);
}
"""


def test_13_1_triangle_strip_adj_inputs_end_to_end():
    # Indices 0..7 | cut | 10..16 as TRIANGLESTRIP_ADJ: strips of 8 and 7 vertices. 8: t = 2,
    # (0,1,2,6,4,3) and, the last, odd i = 1: (2i, 2i+3, 2i+4, 2i+5, 2i+2, 2i-2) = (2,5,6,7,4,0);
    # 7: t = 1: (0,1,2,5,4,3) + 10, vertex 16 completing nothing. SV_PrimitiveID 0, 1, 2 through
    # the cut (13.3). The shader writes the six IDs it received, then the id.
    index = [*range(8), 0xFFFF, *range(10, 17)]
    draws = [{"DrawIndexedInstanced": {"IndexCountPerInstance": len(index), "InstanceCount": 1}}]
    doc = gs_case(ADJACENT, 17, [so_entry("A", 4), so_entry("B", 4)], [target(0, 3 * 32)],
                  topology="TRIANGLESTRIP_ADJ", draws=draws, strides=(32,),
                  strip_cut_value="0xFFFF",
                  index_buffer={"format": "R16_UINT",
                                "data": {"dtype": "uint16", "values": index}})
    result = run_cpu(doc)
    assert words(result, 0) == [0, 1, 2, 6, 4, 3, 0, 0,
                                2, 5, 6, 7, 4, 0, 1, 0,
                                10, 11, 12, 15, 14, 13, 2, 0]
    assert result["statistics"]["GSInvocations"] == 3


# -- 13.4 maxvertexcount: the limits, and a run at the limit ----------------------------------

def declaring(n: int, record: str, streams: int = 1, extra_record: str = "uint") -> str:
    """A point shader of ``streams`` PointStreams, [maxvertexcount(n)], stream 0's record one
    ``record`` member, the others' one ``extra_record``."""
    params = ", ".join(["inout PointStream<O> s0"]
                       + [f"inout PointStream<P> s{k}" for k in range(1, streams)])
    return f"""
struct V {{ uint id : ID; }};
struct O {{ {record} x : X; }};
struct P {{ {extra_record} y : Y; }};
[maxvertexcount({n})]
void main(point V v[1], {params}) {{ O o; o.x = ({record})v[0].id; s0.Append(o); }}
"""


@pytest.mark.parametrize("n, record, streams, extra", [
    (1024, "uint", 1, "uint"),  # 1024 x 1 = 1024 scalars: the limit itself
    (256, "uint4", 1, "uint"),  # 256 x 4 = 1024
    (341, "float3", 1, "uint"),  # 341 x 3 = 1023
    (256, "uint4", 4, "uint2"),  # four streams: each Append writes one record, at most 4 scalars
])
def test_13_4_maxvertexcount_up_to_the_limit_is_accepted(n, record, streams, extra):
    d = compile_geometry_shader(declaring(n, record, streams, extra)).declaration
    assert (d.max_vertex_count, d.streams) == (n, ("PointStream",) * streams)


@pytest.mark.parametrize("n, record, streams, extra, says", [
    (1025, "uint", 1, "uint", r"maxvertexcount=1025: must be 1 to 1024 \(rules 13\.4\)"),
    (257, "uint4", 1, "uint", r"times the 4 scalars of the output record is 1028, over 1024 "
                              r"\(rules 13\.4\)"),
    (342, "float3", 1, "uint", r"maxvertexcount=342: times the 3 scalars of the output record "
                               r"is 1026"),
    # the largest record decides (rules 13.4, gpuia's reading for several streams): 4 scalars
    # on stream 1, 1 on stream 0: 257 x 4 = 1028
    (257, "uint", 2, "uint4", r"1028, over 1024 \(rules 13\.4\)"),
])
def test_13_4_maxvertexcount_past_the_limit_is_refused(n, record, streams, extra, says):
    with pytest.raises(InvalidDescError, match=says):
        compile_geometry_shader(declaring(n, record, streams, extra))


APPEND_PAST_N = """
struct V { uint id : ID; };
struct O { RECORD x : X; };
[maxvertexcount(N)]
void main(point V v[1], inout PointStream<O> s) {
    for (uint k = 0; k < N + 6; k++) { O o; o.x = (RECORD)(1000 * v[0].id + k); s.Append(o); }
}
"""


@pytest.mark.parametrize("n, record, components", [(1024, "uint", 1), (256, "uint4", 4)])
def test_13_4_a_run_at_the_scalar_limit_keeps_the_first_n_appends(n, record, components):
    # Two points, N + 6 Appends each: the shader ends at the N-th (rules 13.4), so point p
    # streams out k = 0..N-1 as 1000 p + k in every component, and the 6 past N count nowhere.
    source = APPEND_PAST_N.replace("RECORD", record).replace("N", str(n))
    size = 2 * n * 4 * components
    result = run_cpu(gs_case(source, 2, [so_entry("X", components)], [target(0, size)]))
    assert words(result, 0) == [1000 * p + k for p in range(2) for k in range(n)
                                for _ in range(components)]
    assert result["statistics"]["GSPrimitives"] == 2 * n
    assert result["stream_output"]["streams"][0] == {
        "stream": 0, "NumPrimitivesWritten": 2 * n, "PrimitivesStorageNeeded": 2 * n}


OVER_STREAMS = """
struct V { uint id : ID; };
struct O { uint x : X; };
[maxvertexcount(4)]
void main(point V v[1], inout PointStream<O> s0, inout PointStream<O> s1) {
    O o;
    for (uint k = 0; k < A; k++) { o.x = k; s0.Append(o); }
    for (uint j = 0; j < B; j++) { o.x = 100 + j; s1.Append(o); }
}
"""


@pytest.mark.parametrize("a, b, kept0, kept1", [
    # N = 4 counts the Appends of all streams together: the first 4 survive, whatever their
    # stream (rules 13.4; the H200's native GS keeps 3 + 1 of 3 + 3, 1 + 3 of 1 + 5, 4 + 0 of
    # 5 + 1).
    (3, 3, 3, 1), (1, 5, 1, 3), (5, 1, 4, 0),
])
def test_13_4_maxvertexcount_counts_all_streams_together(a, b, kept0, kept1):
    source = OVER_STREAMS.replace("A;", f"{a};").replace("B;", f"{b};")
    doc = gs_case(source, 1, [so_entry("X", 1, 0, 0), so_entry("X", 1, 1, 1)],
                  [target(0, 32), target(1, 32)], strides=(4, 4))
    result = run_cpu(doc)
    assert words(result, 0) == list(range(kept0)) + [FILL] * (8 - kept0)
    assert words(result, 1) == [100 + j for j in range(kept1)] + [FILL] * (8 - kept1)
    assert [s["NumPrimitivesWritten"] for s in result["stream_output"]["streams"]] == [
        kept0, kept1, 0, 0]
    assert result["statistics"]["GSPrimitives"] == 4


# -- 13.4 / 13.5 RestartStrip, incomplete strips, strip expansion ------------------------------

RESTARTS = """
struct V { uint id : ID; };
struct O { uint x : X; };
[maxvertexcount(12)]
void main(point V v[1], inout STREAM<O> s) {
    s.RestartStrip();  // before any Append: nothing to end
    for (uint k = 0; k < 12; k++) {
        if (k == 6 || k == 8 || k == 9) s.RestartStrip();
        if (k == 8) s.RestartStrip();  // a second cut in a row ends nothing more
        O o; o.x = 100 * v[0].id + k; s.Append(o);
    }
}
"""


@pytest.mark.parametrize("stream, vertices, expected", [
    # Appends k = 0..11 with cuts before 6, 8 and 9: strips [0..5], [6, 7], [8], [9, 10, 11].
    # Points ignore cuts: 12 points.
    ("PointStream", 1, [[k] for k in range(12)]),
    # Lines: segment t of a strip is (t, t+1): five of [0..5], (6, 7), none of the lone 8,
    # (9, 10), (10, 11).
    ("LineStream", 2, [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [6, 7], [9, 10], [10, 11]]),
    # Triangles: t even (t, t+1, t+2), t odd (t, t+2, t+1): four of [0..5]; [6, 7] and [8]
    # are incomplete, dropped and counted nowhere; (9, 10, 11).
    ("TriangleStream", 3, [[0, 1, 2], [1, 3, 2], [2, 3, 4], [3, 5, 4], [9, 10, 11]]),
])
def test_13_4_and_13_5_restart_strip_and_incomplete_strips(stream, vertices, expected):
    # Two points (IDs 0 and 1): each invocation starts its own strips; point 1's records add 100.
    prims = len(expected)
    result = run_cpu(gs_case(RESTARTS.replace("STREAM", stream), 2, [so_entry("X", 1)],
                             [target(0, 2 * prims * vertices * 4)]))
    assert words(result, 0) == [100 * p + k for p in range(2) for prim in expected for k in prim]
    assert result["statistics"]["GSPrimitives"] == 2 * prims
    assert result["stream_output"]["streams"][0] == {
        "stream": 0, "NumPrimitivesWritten": 2 * prims, "PrimitivesStorageNeeded": 2 * prims}


# -- 13.6 outputs after Append -------------------------------------------------------------------

AFTER_APPEND = """
struct V { uint id : ID; };
struct O { uint a : A; uint b : B; };
[maxvertexcount(2)]
void main(point V v[1], inout PointStream<O> s) {
    O o;
    o.a = 1; o.b = 5; s.Append(o);
    o.a = 2; s.Append(o);  // b not written again: undefined in D3D
}
"""


def test_13_6_each_append_streams_what_was_written_before_it():
    # The first point's (1, 5) were written before its Append: defined, and a later write does
    # not reach it. The second point's a = 2 is defined; its b is undefined in D3D (13.6), and
    # gpuia stores what the record held (5): rules 13.6's documented choice, so a case that
    # reads it is no conformance case.
    result = run_cpu(gs_case(AFTER_APPEND, 1, [so_entry("A", 1), so_entry("B", 1)],
                             [target(0, 16)], strides=(8,)))
    assert words(result, 0) == [1, 5, 2, 5]


# -- 13.7 streams in parameter order; 8.13 several streams need points ---------------------------

ORDER = """
struct V { uint id : ID; };
struct A { uint a : A; };
struct B { uint2 b : B; };
[maxvertexcount(2)]
void main(point V v[1], inout PointStream<B> second, inout PointStream<A> first) {
    A a; a.a = 7; first.Append(a);
    B b; b.b = uint2(8, 9); second.Append(b);
}
"""


def test_13_7_streams_are_numbered_in_parameter_order():
    # `second` is declared first: it is stream 0, whose record is B; `first` is stream 1 (A).
    doc = gs_case(ORDER, 1, [so_entry("B", 2, 0, 0), so_entry("A", 1, 1, 1)],
                  [target(0, 8), target(1, 4)], strides=(8, 4))
    result = run_cpu(doc)
    assert (words(result, 0), words(result, 1)) == ([8, 9], [7])
    # A is no output of stream 0 (rules 8.3, 13.7).
    doc["stream_output"]["declaration"] = [so_entry("A", 1, 0, 0)]
    with pytest.raises(InvalidDescError, match=r"stream 0 of the geometry shader has no output "
                                               r"with semantic A.*rules 8\.3"):
        run_cpu(doc)


@pytest.mark.parametrize("streams", [
    "inout LineStream<O> s0, inout LineStream<O> s1",
    "inout TriangleStream<O> s0, inout TriangleStream<O> s1",
    "inout PointStream<O> s0, inout PointStream<O> s1, inout LineStream<O> s2",
])
def test_8_13_several_streams_must_all_be_points(streams):
    source = f"""
struct V {{ uint id : ID; }};
struct O {{ uint x : X; }};
[maxvertexcount(2)]
void main(point V v[1], {streams}) {{ O o; o.x = v[0].id; s0.Append(o); }}
"""
    with pytest.raises(InvalidDescError, match=r"every stream must be a PointStream "
                                               r"\(rules 13\.7, 8\.13\)"):
        compile_geometry_shader(source)
