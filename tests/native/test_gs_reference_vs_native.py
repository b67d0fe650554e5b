"""gpuia's CPU reference of the geometry shader (GS) and Stream Output (SO) against the native
oracle (tests/native/vk_oracle.py): the same shader written twice, in HLSL for gpuia's case and
in GLSL for lavapipe, run on the same vertices and draws.

Each scenario compares, bit for bit, every SO buffer's bytes (all of each buffer: both start as
``FILL`` bytes, so bytes past the writes are compared too), each buffer's filled size (D3D12's
BufferFilledSize), each stream's primitives written and needed (``SO_STATISTICS_STREAM0..3``)
and GSPrimitives (and GSInvocations where the GS has one instance). Records are integers, or
floats built from small integers, so both sides are exact. Each scenario also checks, on the
agreed output, that it shows what it names (derived by hand from docs/rules.md in its comment).

Where lavapipe deviates from D3D (tests/native/README.md) nothing is compared: one test per
deviation shows the two values and says which is D3D's. Outside CI a missing oracle skips these
tests; in CI it fails them, as in tests/native/test_vk_oracle.py, whose fixture they share.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from gpuia.harness.case import load_case
from gpuia.harness.run import run_case
from native import test_vk_oracle, vk_oracle
from native.vk_oracle import FILL, Draw

oracle = test_vk_oracle.oracle  # the oracle's device; skips (fails in CI) without it

D3D_TOPOLOGIES = {"point_list": "POINTLIST", "line_strip": "LINESTRIP",
                  "triangle_list": "TRIANGLELIST", "triangle_strip": "TRIANGLESTRIP",
                  "triangle_strip_with_adjacency": "TRIANGLESTRIP_ADJ"}
CUT = 0xFFFF  # the strip-cut index: D3D12's IBStripCutValue 0xFFFF, Vulkan's uint16 restart

# Both vertex shaders give the GS (vertex tag, SV_InstanceID, 0, 0); vertex i's tag is 10 + i.
VS_HLSL = """
struct VO { uint4 tag : TAG; float4 pos : SV_Position; };
VO main(uint4 tag : TAG, uint iid : SV_InstanceID) {
    VO o; o.tag = uint4(tag.x, iid, 0, 0); o.pos = float4(0, 0, 0, 1); return o;
}
"""
VS_GLSL = """#version 450
layout(location = 0) in uvec4 a;
layout(location = 0) out uvec4 v;
void main() { v = uvec4(a.x, uint(gl_InstanceIndex), 0u, 0u); gl_Position = vec4(0.0); }
"""
TAG = 10


@dataclass(frozen=True)
class Outcome:
    """What one side wrote: buffer words (uint32 rows of 4), filled sizes, per stream
    (written, needed), and the GS statistics."""

    words: list[list[list[int]]]
    filled: list[int]
    streams: list[list[int]]
    gs_invocations: int
    gs_primitives: int

    def rows(self, buffer: int, start: int = 0) -> np.ndarray:
        """Buffer ``buffer``'s written words, from byte ``start`` to its filled size, as rows
        of 4."""
        flat = np.array(self.words[buffer], np.uint32).ravel()
        return flat[start // 4:self.filled[buffer] // 4].reshape(-1, 4)


@dataclass(frozen=True)
class Scenario:
    """One GS in both languages, with its input and SO targets. ``topology`` is the oracle's
    name; ``indices`` (uint16, ``CUT`` cuts the strip) makes every draw indexed."""

    hlsl: str
    glsl: str
    topology: str
    vertices: int
    draws: tuple[Draw, ...]
    declaration: tuple[dict, ...]
    strides: tuple[int, ...]
    sizes: tuple[int, ...]
    shows: Callable[[Outcome], None]
    indices: tuple[int, ...] | None = None
    starts: tuple[int, ...] | None = None
    gs_instances: int = 1


def _words(raw: bytes) -> list[list[int]]:
    return np.frombuffer(raw, "<u4").reshape(-1, 4).tolist()


def _tags(n: int) -> np.ndarray:
    tags = np.zeros((n, 4), np.uint32)
    tags[:, 0] = TAG + np.arange(n)
    return tags


def _d3d_draw(draw: Draw, indexed: bool) -> dict:
    if indexed:
        return {"DrawIndexedInstanced": {
            "IndexCountPerInstance": draw.count, "InstanceCount": draw.instance_count,
            "StartIndexLocation": draw.first, "BaseVertexLocation": draw.vertex_offset,
            "StartInstanceLocation": draw.first_instance}}
    return {"DrawInstanced": {
        "VertexCountPerInstance": draw.count, "InstanceCount": draw.instance_count,
        "StartVertexLocation": draw.first, "StartInstanceLocation": draw.first_instance}}


def scenario_case(sc: Scenario) -> dict:
    """The scenario as a gpuia case document."""
    starts = sc.starts or (0,) * len(sc.sizes)
    doc = {
        "gpuia_case": 1, "name": "gs_vs_native",
        "input_layout": [{"SemanticName": "TAG", "Format": "R32G32B32A32_UINT"}],
        "vertex_buffers": [{"slot": 0, "stride": 16, "data": {
            "dtype": "uint32", "values": _tags(sc.vertices).tolist()}}],
        "primitive_topology": D3D_TOPOLOGIES[sc.topology],
        "draw": [_d3d_draw(d, sc.indices is not None) for d in sc.draws],
        "vertex_shader": {"hlsl": VS_HLSL},
        "geometry_shader": {"hlsl": sc.hlsl},
        "stream_output": {
            "declaration": list(sc.declaration), "buffer_strides": list(sc.strides),
            "rasterized_stream": "NO_RASTERIZED_STREAM",
            "targets": [{"slot": i, "size": size, "filled_size": start,
                         "data": {"hex": f"{FILL:02x}" * size}}
                        for i, (size, start) in enumerate(zip(sc.sizes, starts, strict=True))]},
    }
    if sc.indices is not None:
        doc["index_buffer"] = {"format": "R16_UINT",
                               "data": {"dtype": "uint16", "values": list(sc.indices)}}
        doc["strip_cut_value"] = "0xFFFF"
    return doc


def run_gpuia(sc: Scenario) -> Outcome:
    """The scenario as a gpuia case on the CPU reference."""
    _, result = run_case(load_case(scenario_case(sc)), "cpu")
    so = result["stream_output"]
    return Outcome([_words(bytes.fromhex(b["hex"])) for b in so["buffers"]],
                   [b["filled_size"] for b in so["buffers"]],
                   [[s["NumPrimitivesWritten"], s["PrimitivesStorageNeeded"]]
                    for s in so["streams"]],
                   result["statistics"]["GSInvocations"], result["statistics"]["GSPrimitives"])


def run_native(device: vk_oracle.NativeDevice, sc: Scenario) -> Outcome:
    """The scenario on the oracle."""
    indices = None if sc.indices is None else np.array(sc.indices, np.uint16)
    r = device.run(VS_GLSL, sc.glsl, topology=sc.topology, draws=list(sc.draws),
                   xfb_sizes=list(sc.sizes), attributes={0: _tags(sc.vertices)},
                   indices=indices, primitive_restart=indices is not None,
                   starts=list(sc.starts) if sc.starts else None)
    return Outcome([_words(b.tobytes()) for b in r.buffers], r.counters.tolist(),
                   r.streams.tolist(), r.statistics["gs_invocations"],
                   r.statistics["gs_primitives"])


def entry(semantic: str, slot: int, count: int = 4, stream: int = 0) -> dict:
    return {"Stream": stream, "SemanticName": semantic, "ComponentCount": count,
            "OutputSlot": slot}



def shows_quad(out: Outcome) -> None:
    """Three points, each a 4-vertex TriangleStream with the uint record (tag, k, pid, 0) in
    slot 0 and the float position (tag + (k & 1), k >> 1) in slot 1. Rules 13.5 and 9.3: the
    strip's triangles are (0, 1, 2) and (1, 3, 2), point after point."""
    assert out.rows(0)[:, :3].tolist() == [[TAG + p, k, p] for p in range(3)
                                          for k in (0, 1, 2, 1, 3, 2)]
    assert out.streams[0] == [6, 6]


QUAD = Scenario("""
struct V { uint4 tag : TAG; };
struct O { uint4 rec : REC; float2 pos : POS; };
[maxvertexcount(4)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout TriangleStream<O> s) {
    for (uint k = 0; k < 4; k++) {
        O o;
        o.rec = uint4(v[0].tag.x, k, pid, 0);
        o.pos = float2(v[0].tag.x + (k & 1), k >> 1);
        s.Append(o);
    }
}
""", """#version 450
layout(points) in;
layout(triangle_strip, max_vertices = 4) out;
layout(location = 0) in uvec4 v[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 rec;
layout(location = 1, xfb_buffer = 1, xfb_offset = 0, xfb_stride = 8) out vec2 pos;
void main() {
    for (uint k = 0u; k < 4u; ++k) {
        rec = uvec4(v[0].x, k, uint(gl_PrimitiveIDIn), 0u);
        pos = vec2(float(v[0].x + (k & 1u)), float(k >> 1u));
        gl_Position = vec4(0.0); EmitVertex();
    }
}
""", "point_list", 3, (Draw(3),), (entry("REC", 0), entry("POS", 1, 2)), (16, 8),
    (3 * 6 * 16 + 16, 3 * 6 * 8), shows_quad)


def shows_line_restart(out: Outcome) -> None:
    """A 4-vertex line strip is 3 segments (invocations). Each appends vertices k = 0 to 5 of
    one LineStream with a RestartStrip before k = 3 and k = 5 (record (v0 tag, v1 tag, k,
    pid)): rules 13.4 and 13.5 give the lines (0, 1), (1, 2), (3, 4); the lone vertex 5 makes
    no line and is dropped, counted nowhere."""
    assert out.rows(0).tolist() == [[TAG + p, TAG + p + 1, k, p] for p in range(3)
                                    for k in (0, 1, 1, 2, 3, 4)]
    assert out.streams[0] == [9, 9]


LINE_RESTART = Scenario("""
struct V { uint4 tag : TAG; };
struct O { uint4 rec : REC; };
[maxvertexcount(6)]
void main(line V v[2], uint pid : SV_PrimitiveID, inout LineStream<O> s) {
    for (uint k = 0; k < 6; k++) {
        if (k == 3 || k == 5) s.RestartStrip();
        O o; o.rec = uint4(v[0].tag.x, v[1].tag.x, k, pid); s.Append(o);
    }
}
""", """#version 450
layout(lines) in;
layout(line_strip, max_vertices = 6) out;
layout(location = 0) in uvec4 v[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 rec;
void main() {
    for (uint k = 0u; k < 6u; ++k) {
        if (k == 3u || k == 5u) EndPrimitive();
        rec = uvec4(v[0].x, v[1].x, k, uint(gl_PrimitiveIDIn));
        gl_Position = vec4(0.0); EmitVertex();
    }
}
""", "line_strip", 4, (Draw(4),), (entry("REC", 0),), (16,), (3 * 6 * 16 + 32,),
    shows_line_restart)


def shows_instances(out: Outcome) -> None:
    """[instance(3)] on the indexed triangle strip 0 1 2 3 CUT 4 5 6, 2 instances: triangles
    (0, 1, 2), (1, 3, 2), (4, 5, 6) per instance (rules 5.4, 9.3), SV_PrimitiveID 0, 1, 2
    across the cut and from 0 again in instance 1, and each primitive's GS instances 0, 1, 2
    before the next primitive (rule 13.3). Records (pid, SV_GSInstanceID, instance, 0) and
    (the three tags, 0)."""
    rows = out.rows(0)
    assert rows[0::2, :3].tolist() == [[p, g, i] for i in range(2) for p in range(3)
                                       for g in range(3)]
    triangles = [[0, 1, 2]] * 3 + [[1, 3, 2]] * 3 + [[4, 5, 6]] * 3
    assert (rows[1::2, :3] - TAG).tolist() == triangles * 2
    assert out.streams[0] == [18, 18]


INSTANCES = Scenario("""
struct V { uint4 tag : TAG; };
struct O { uint4 ids : IDS; uint4 tags : TAGS; };
[instance(3)]
[maxvertexcount(1)]
void main(triangle V v[3], uint pid : SV_PrimitiveID, uint gsid : SV_GSInstanceID,
          inout PointStream<O> s) {
    O o;
    o.ids = uint4(pid, gsid, v[0].tag.y, 0);
    o.tags = uint4(v[0].tag.x, v[1].tag.x, v[2].tag.x, 0);
    s.Append(o);
}
""", """#version 450
layout(triangles, invocations = 3) in;
layout(points, max_vertices = 1) out;
layout(location = 0) in uvec4 v[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 32) out uvec4 ids;
layout(location = 1, xfb_buffer = 0, xfb_offset = 16, xfb_stride = 32) out uvec4 tags;
void main() {
    ids = uvec4(uint(gl_PrimitiveIDIn), uint(gl_InvocationID), v[0].y, 0u);
    tags = uvec4(v[0].x, v[1].x, v[2].x, 0u);
    gl_Position = vec4(0.0); EmitVertex();
}
""", "triangle_strip", 7, (Draw(8, instance_count=2),), (entry("IDS", 0), entry("TAGS", 0)),
    (32,), (18 * 32 + 32,), shows_instances, indices=(0, 1, 2, 3, CUT, 4, 5, 6),
    gs_instances=3)


def shows_adjacency(out: Outcome) -> None:
    """TRIANGLESTRIP_ADJ: 10 vertices (3 triangles), then 7 from vertex 10 (1 triangle;
    vertex 16 completes nothing). Rule 13.1's six inputs (v0, a01, v1, a12, v2, a20) of each
    triangle, as tags, with its primitive id: (0,1,2,6,4,3), (2,5,6,8,4,0), (4,2,6,9,8,7),
    then (0,1,2,5,4,3) + 10 with id 0 in the new draw (13.3)."""
    rows = out.rows(0)
    six = np.hstack([rows[0::2], rows[1::2, :2]]) - TAG
    assert six.tolist() == [[0, 1, 2, 6, 4, 3], [2, 5, 6, 8, 4, 0], [4, 2, 6, 9, 8, 7],
                            [10, 11, 12, 15, 14, 13]]
    assert rows[1::2, 2].tolist() == [0, 1, 2, 0]


ADJACENCY = Scenario("""
struct V { uint4 tag : TAG; };
struct O { uint4 first4 : FIRST; uint4 last2 : LAST; };
[maxvertexcount(1)]
void main(triangleadj V v[6], uint pid : SV_PrimitiveID, inout PointStream<O> s) {
    O o;
    o.first4 = uint4(v[0].tag.x, v[1].tag.x, v[2].tag.x, v[3].tag.x);
    o.last2 = uint4(v[4].tag.x, v[5].tag.x, pid, 0);
    s.Append(o);
}
""", """#version 450
layout(triangles_adjacency) in;
layout(points, max_vertices = 1) out;
layout(location = 0) in uvec4 v[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 32) out uvec4 first4;
layout(location = 1, xfb_buffer = 0, xfb_offset = 16, xfb_stride = 32) out uvec4 last2;
void main() {
    first4 = uvec4(v[0].x, v[1].x, v[2].x, v[3].x);
    last2 = uvec4(v[4].x, v[5].x, uint(gl_PrimitiveIDIn), 0u);
    gl_Position = vec4(0.0); EmitVertex();
}
""", "triangle_strip_with_adjacency", 17, (Draw(10), Draw(7, first=10)),
    (entry("FIRST", 0), entry("LAST", 0)), (32,), (4 * 32 + 32,), shows_adjacency)


def shows_two_streams(out: Outcome) -> None:
    """Four points; each appends (tag, 0, pid, 0) to PointStream 0 (slot 0, room for all 4)
    and (tag, 1, pid, k), k = 0 and 1, to PointStream 1 (slot 1: 80 bytes, room for 5 of 8).
    Rules 9.7 and 13.8: stream 1 writes 5 and needs 8, stream 0 writes all 4 regardless."""
    assert out.streams[:2] == [[4, 4], [5, 8]]
    assert out.filled == [64, 80]
    assert out.rows(1).tolist() == [[TAG + p, 1, p, k] for p in range(3) for k in range(2)][:5]


TWO_STREAMS = Scenario("""
struct V { uint4 tag : TAG; };
struct O { uint4 rec : REC; };
[maxvertexcount(3)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout PointStream<O> s0,
          inout PointStream<O> s1) {
    O o;
    o.rec = uint4(v[0].tag.x, 0, pid, 0); s0.Append(o);
    for (uint k = 0; k < 2; k++) { o.rec = uint4(v[0].tag.x, 1, pid, k); s1.Append(o); }
}
""", """#version 450
layout(points) in;
layout(points, max_vertices = 3) out;
layout(location = 0) in uvec4 v[];
layout(stream = 0, location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 a;
layout(stream = 1, location = 1, xfb_buffer = 1, xfb_offset = 0, xfb_stride = 16) out uvec4 b;
void main() {
    uint p = uint(gl_PrimitiveIDIn);
    a = uvec4(v[0].x, 0u, p, 0u); gl_Position = vec4(0.0); EmitStreamVertex(0);
    for (uint k = 0u; k < 2u; ++k) { b = uvec4(v[0].x, 1u, p, k); EmitStreamVertex(1); }
}
""", "point_list", 4, (Draw(4),), (entry("REC", 0), entry("REC", 1, stream=1)), (16, 16),
    (64, 80), shows_two_streams)


def shows_draws_append(out: Outcome) -> None:
    """Three draws of a triangle list into one buffer whose BufferFilledSize starts at 32:
    vertices 0-5 (2 triangles), 6-8 (1), 3-8 with 2 instances (4). Each triangle's GS
    outlines it as the 4-vertex LineStream v0 v1 v2 v0 (3 lines; record (tag, pid, instance,
    k)). Rules 9.4, 9.6 and 9.7: the draws append after byte 32; 624 bytes hold 18 of the 21
    lines of 32 bytes (filled size 32 + 576): the last triangle's 3 lines are dropped, and
    needed."""
    assert out.filled == [608] and out.streams[0] == [18, 21]
    rows = out.rows(0, start=32)
    assert rows[0::6, :3].tolist() == [[10, 0, 0], [13, 1, 0], [16, 0, 0], [13, 0, 0],
                                       [16, 1, 0], [13, 0, 1]]
    assert rows[:6, 3].tolist() == [0, 1, 1, 2, 2, 3]


DRAWS_APPEND = Scenario("""
struct V { uint4 tag : TAG; };
struct O { uint4 rec : REC; };
[maxvertexcount(4)]
void main(triangle V v[3], uint pid : SV_PrimitiveID, inout LineStream<O> s) {
    for (uint k = 0; k < 4; k++) {
        O o; o.rec = uint4(v[k % 3].tag.x, pid, v[0].tag.y, k); s.Append(o);
    }
}
""", """#version 450
layout(triangles) in;
layout(line_strip, max_vertices = 4) out;
layout(location = 0) in uvec4 v[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 rec;
void main() {
    for (uint k = 0u; k < 4u; ++k) {
        rec = uvec4(v[k % 3u].x, uint(gl_PrimitiveIDIn), v[0].y, k);
        gl_Position = vec4(0.0); EmitVertex();
    }
}
""", "triangle_list", 9, (Draw(6), Draw(3, first=6), Draw(6, instance_count=2, first=3)),
    (entry("REC", 0),), (16,), (624,), shows_draws_append, starts=(32,))


def shows_max_vertex_count(out: Outcome) -> None:
    """Two points; each appends 6 vertices (tag, k, 0, 0) to a TriangleStream with
    [maxvertexcount(4)]. Rule 13.4: the first 4 Appends take effect, the 5th and 6th are
    dropped: triangles (0, 1, 2), (1, 3, 2) per point (one stream: lavapipe agrees)."""
    assert out.rows(0)[:, :2].tolist() == [[TAG + p, k] for p in range(2)
                                          for k in (0, 1, 2, 1, 3, 2)]
    assert out.streams[0] == [4, 4]


MAX_VERTEX_COUNT = Scenario("""
struct V { uint4 tag : TAG; };
struct O { uint4 rec : REC; };
[maxvertexcount(4)]
void main(point V v[1], inout TriangleStream<O> s) {
    for (uint k = 0; k < 6; k++) { O o; o.rec = uint4(v[0].tag.x, k, 0, 0); s.Append(o); }
}
""", """#version 450
layout(points) in;
layout(triangle_strip, max_vertices = 4) out;
layout(location = 0) in uvec4 v[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 rec;
void main() {
    for (uint k = 0u; k < 6u; ++k) {
        rec = uvec4(v[0].x, k, 0u, 0u); gl_Position = vec4(0.0); EmitVertex();
    }
}
""", "point_list", 2, (Draw(2),), (entry("REC", 0),), (16,), (2 * 6 * 16 + 48,),
    shows_max_vertex_count)

SCENARIOS = {"point_to_quad_strip": QUAD, "line_stream_restart": LINE_RESTART,
             "gs_instances_across_cut_and_instances": INSTANCES,
             "triangle_strip_adjacency_inputs": ADJACENCY,
             "two_point_streams_one_overflows": TWO_STREAMS,
             "draws_append": DRAWS_APPEND, "max_vertex_count_one_stream": MAX_VERTEX_COUNT}


@pytest.fixture(autouse=True)
def no_leaks():
    """Every oracle run destroys what it created."""
    yield
    assert vk_oracle.live_objects() == 0


@pytest.mark.parametrize("name", SCENARIOS)
def test_reference_matches_native(oracle, name):
    """gpuia's CPU reference writes exactly what the native GS and transform feedback write."""
    sc = SCENARIOS[name]
    ours, native = run_gpuia(sc), run_native(oracle, sc)
    for b in range(len(sc.sizes)):
        assert ours.words[b] == native.words[b], f"buffer {b}"
    assert ours.filled == native.filled
    assert ours.streams == native.streams
    assert ours.gs_primitives == native.gs_primitives
    if sc.gs_instances == 1:  # lavapipe does not count GS instances (test below)
        assert ours.gs_invocations == native.gs_invocations
    sc.shows(native)


MAX_OVER_STREAMS = Scenario("""
struct V { uint4 tag : TAG; };
struct O { uint4 rec : REC; };
[maxvertexcount(4)]
void main(point V v[1], inout PointStream<O> s0, inout PointStream<O> s1) {
    O o;
    for (uint k = 0; k < 3; k++) { o.rec = uint4(k, 0, 0, 0); s0.Append(o); }
    for (uint j = 0; j < 3; j++) { o.rec = uint4(j, 1, 0, 0); s1.Append(o); }
}
""", """#version 450
layout(points) in;
layout(points, max_vertices = 4) out;
layout(location = 0) in uvec4 v[];
layout(stream = 0, location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 a;
layout(stream = 1, location = 1, xfb_buffer = 1, xfb_offset = 0, xfb_stride = 16) out uvec4 b;
void main() {
    for (uint k = 0u; k < 3u; ++k) { a = uvec4(k, 0u, 0u, 0u); gl_Position = vec4(0.0);
                                     EmitStreamVertex(0); }
    for (uint k = 0u; k < 3u; ++k) { b = uvec4(k, 1u, 0u, 0u); EmitStreamVertex(1); }
}
""", "point_list", 1, (Draw(1),), (entry("REC", 0), entry("REC", 1, stream=1)), (16, 16),
    (64, 64), lambda out: None)  # what it shows is checked on each side below


def test_max_vertex_count_over_streams_differs(oracle):
    """Not compared: lavapipe applies max_vertices to each stream on its own.

    One point, [maxvertexcount(4)], 3 Appends on stream 0 then 3 on stream 1. D3D's value is
    gpuia's: the first 4 Appends of all streams together take effect, 3 on stream 0 and 1 on
    stream 1 (rules 13.4; an NVIDIA H200's native GS keeps the same). lavapipe keeps 3 and 3
    (GLSL leaves emits past max_vertices undefined). gpuia follows D3D."""
    ours, native = run_gpuia(MAX_OVER_STREAMS), run_native(oracle, MAX_OVER_STREAMS)
    assert ours.streams[:2] == [[3, 3], [1, 1]]  # D3D's
    assert ours.rows(1).tolist() == [[0, 1, 0, 0]]
    assert native.streams[:2] == [[3, 3], [3, 3]]  # lavapipe's
    assert native.rows(1).tolist() == [[k, 1, 0, 0] for k in range(3)]
    assert ours.rows(0).tolist() == native.rows(0).tolist()  # stream 0 agrees


def test_gs_invocations_with_instances_differs(oracle):
    """Not compared: lavapipe's GSInvocations counts input primitives, not GS invocations.

    The [instance(3)] scenario: 3 triangles per instance, 2 instances, 3 GS instances each.
    D3D's value is gpuia's: GSInvocations counts input primitives times GS instances, 6 x 3 =
    18 (rules 13.8; the Vulkan specification and an NVIDIA H200 count so too). lavapipe reports
    the 6 input primitives. gpuia follows D3D; everything else of the scenario agrees
    (test_reference_matches_native)."""
    ours, native = run_gpuia(INSTANCES), run_native(oracle, INSTANCES)
    assert ours.gs_invocations == 18  # D3D's
    assert native.gs_invocations == 6  # lavapipe's
    assert len(native.rows(0)) == 2 * 18  # the 18 invocations ran, two records each
