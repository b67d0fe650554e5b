"""The geometry shader cases of the views' tests (tests/unit/test_gs_views.py,
tests/tools/test_gs_views_cli.py), and what ``gpuia run --table`` prints of the first, derived by
hand in its comments from docs/rules.md section 13 and 9.7."""

from __future__ import annotations

# Two PointStreams of one record. Per input point (SV_PrimitiveID pid): stream 0 gets
# (P = pos.xy, ID = pid) and (P = pos.xy, ID = 10 + pid), stream 1 gets (P = pos.zw, ID = 20 + pid).
TWO_STREAMS = """
struct V { float4 pos : POSITION; };
struct A { float2 p : P; uint id : ID; };
[maxvertexcount(3)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout PointStream<A> s0,
          inout PointStream<A> s1) {
    A a;
    a.p = v[0].pos.xy; a.id = pid; s0.Append(a);
    a.id = 10 + pid; s0.Append(a);
    a.p = v[0].pos.zw; a.id = 20 + pid; s1.Append(a);
}
"""

# One LineStream: a cut before any Append, two Appends, a cut, a third Append, then a fourth
# Append and a cut past maxvertexcount(3).
CUTS = """
struct V { float4 pos : POSITION; };
struct A { uint id : ID; };
[maxvertexcount(3)]
void main(point V v[1], inout LineStream<A> s) {
    A a;
    s.RestartStrip();
    a.id = 1; s.Append(a);
    a.id = 2; s.Append(a);
    s.RestartStrip();
    a.id = 3; s.Append(a);
    a.id = 4; s.Append(a);
    s.RestartStrip();
}
"""


def gs_case(gs: str, points: list, so: dict | None) -> dict:
    doc = {
        "gpuia_case": 1, "name": "gs",
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 16,
                            "data": {"dtype": "float32", "values": [c for p in points
                                                                     for c in p]}}],
        "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": len(points), "InstanceCount": 1,
                                   "StartVertexLocation": 0, "StartInstanceLocation": 0}},
        "geometry_shader": {"hlsl": gs},
    }
    if so is not None:
        doc["stream_output"] = so
    return doc


# Stream 0's ID into slot 0 (4 bytes a point, room for 16), stream 1's P into slot 1 (8 bytes a
# point, 8 bytes: room for one).
TWO_STREAMS_SO = {"declaration": [
    {"Stream": 0, "SemanticName": "ID", "ComponentCount": 1, "OutputSlot": 0},
    {"Stream": 1, "SemanticName": "P", "ComponentCount": 2, "OutputSlot": 1}],
    "buffer_strides": [4, 8], "rasterized_stream": 0,
    "targets": [{"slot": 0, "size": 64}, {"slot": 1, "size": 8}]}


# 2 points, 1 GS instance: invocation 0 is point 0 (VTX 0, SV_PrimitiveID 0), invocation 1 point 1
# (13.1, 13.3). Stream 0's rows: (1 2, 0) (1 2, 10) from invocation 0, (5 6, 1) (5 6, 11) from 1,
# vertices 0-3; three shown, one more. Stream 1: (3 4, 20), (7 8, 21). GSInvocations 2,
# GSPrimitives 6 (4 + 2 points, 13.8); stream 0 writes its 4, stream 1 1 of 2 (9.7, 13.8).
TWO_TEXT = """\
== gs: GS Out (CPU reference: the geometry shader run on the CPU): 2 invocations, \
GSInvocations 2, GSPrimitives 6
== gs: GS Out stream 0 (PointStream): 4 vertices, 0 cuts, from 2 invocations; \
NumPrimitivesWritten 4, PrimitivesStorageNeeded 4
inv  draw  inst  prim  gsi  in VTX  vtx  P    ID
---  ----  ----  ----  ---  ------  ---  ---  --
  0     0     0     0    0  0       0    1 2  0
  0     0     0     0    0  0       1    1 2  10
  1     0     0     1    0  1       2    5 6  1
... 1 more rows (use --rows to show more)
== gs: GS Out stream 1 (PointStream): 2 vertices, 0 cuts, from 2 invocations; \
NumPrimitivesWritten 1, PrimitivesStorageNeeded 2
inv  draw  inst  prim  gsi  in VTX  vtx  P    ID
---  ----  ----  ----  ---  ------  ---  ---  --
  0     0     0     0    0  0       0    3 4  20
  1     0     0     1    0  1       1    7 8  21
"""
