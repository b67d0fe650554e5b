"""The native oracle (tests/native/vk_oracle.py) against values derived by hand from the rules:
Stream Output's (rules sections 9 and 10, docs/rules.md) and the geometry shader's (rules section
13).

Each expectation is written out literally, with its derivation in a comment: these tests pin
what lavapipe's native geometry shader and transform feedback do, so that gpuia's emulation can
later be checked against the oracle rather than against itself. Outside CI a missing oracle skips
them, naming what is missing; in CI (``CI`` set) it fails them, since .ci/setup installs it.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from native import vk_oracle
from native.vk_oracle import FILL, Draw

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def oracle():
    """The oracle's device; a missing piece skips (fails in CI) with the oracle's own reason."""
    try:
        return vk_oracle.device()
    except vk_oracle.OracleUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"the native oracle must run in CI (.ci/setup installs it): {exc}")
        pytest.skip(f"native oracle unavailable: {exc}")


@pytest.fixture(autouse=True)
def _no_leaks():
    """Every run destroys what it created, whether it returned or raised."""
    yield
    assert vk_oracle.live_objects() == 0


# The vertex shader of most tests: each vertex carries (attribute 0's x or 0, its index, its
# instance, 0) to the geometry shader.
VS_IDS = """#version 450
layout(location = 0) out uvec4 v;
void main() { v = uvec4(0u, gl_VertexIndex, gl_InstanceIndex, 0u); gl_Position = vec4(0.0); }
"""
VS_ATTRIBUTE = """#version 450
layout(location = 0) in uvec4 a;
layout(location = 0) out uvec4 v;
void main() { v = uvec4(a.x, gl_VertexIndex, gl_InstanceIndex, 0u); gl_Position = vec4(0.0); }
"""


def gs_point_strip(n: int) -> str:
    """A point -> n-vertex triangle strip: vertex k written as (the point's tag, k, 0, 0)."""
    return f"""#version 450
layout(points) in;
layout(triangle_strip, max_vertices = {n}) out;
layout(location = 0) in uvec4 v[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 o;
void main() {{
    for (uint k = 0u; k < {n}u; ++k) {{
        o = uvec4(v[0].x, k, 0u, 0u); gl_Position = vec4(0.0); EmitVertex();
    }}
}}
"""


def tags(*values: int) -> dict[int, np.ndarray]:
    """Attribute 0 for one vertex per value: (value, 0, 0, 0)."""
    data = np.zeros((len(values), 4), np.uint32)
    data[:, 0] = values
    return {0: data}


@pytest.mark.parametrize(("n", "expected"), [
    # Rules 9.3 / 13.5: strip triangle t is (t, t+1, t+2) for even t, (t, t+2, t+1) for odd t.
    # 4 vertices (a quad): t=0 -> (0,1,2), t=1 -> (1,3,2).
    (4, [0, 1, 2, 1, 3, 2]),
    # 5 vertices: t=0 -> (0,1,2), t=1 -> (1,3,2), t=2 -> (2,3,4).
    (5, [0, 1, 2, 1, 3, 2, 2, 3, 4]),
])
def test_point_to_strip_expansion_order(oracle, n, expected):
    """Two points (tags 10, 20) each become an n-vertex strip; SO receives its triangles as
    lists, in the rule's vertex order, point after point (9.4)."""
    r = oracle.run(VS_ATTRIBUTE, gs_point_strip(n), topology="point_list", draws=[Draw(2)],
                   xfb_sizes=[1024], attributes=tags(10, 20))
    rows = r.records(0)
    assert rows[:, 0].tolist() == [10] * len(expected) + [20] * len(expected)
    assert rows[:, 1].tolist() == expected + expected
    triangles = 2 * (n - 2)  # n - 2 per point
    assert r.counters.tolist() == [triangles * 3 * 16]  # BufferFilledSize in bytes (9.6)
    assert r.streams.tolist() == [[triangles, triangles], [0, 0], [0, 0], [0, 0]]
    assert (r.buffers[0][r.counters[0]:] == FILL).all()  # nothing past the counter written
    assert {k: r.statistics[k] for k in ("ia_vertices", "ia_primitives", "vs_invocations",
                                         "gs_invocations", "gs_primitives")} == \
        dict(ia_vertices=2, ia_primitives=2, vs_invocations=2, gs_invocations=2,
             gs_primitives=triangles)


def test_overflow_keeps_whole_primitives(oracle):
    """Rule 9.7: a primitive is written only when all of it fits. Two points -> quads are 4
    triangles of 48 bytes; a 176-byte buffer holds 3 (144 bytes) and not the 4th (32 bytes
    left), which is dropped whole: written 3, needed 4 (10.2), counter 144, 32 bytes untouched."""
    r = oracle.run(VS_ATTRIBUTE, gs_point_strip(4), topology="point_list", draws=[Draw(2)],
                   xfb_sizes=[176], attributes=tags(10, 20))
    assert r.counters.tolist() == [144]
    assert r.records(0)[:, :2].tolist() == [[10, 0], [10, 1], [10, 2], [10, 1], [10, 3],
                                            [10, 2], [20, 0], [20, 1], [20, 2]]
    assert (r.buffers[0][144:] == FILL).all()
    assert r.streams[0].tolist() == [3, 4]


GS_TRIANGLE_IDS = """#version 450
layout(triangles) in;
layout(points, max_vertices = 1) out;
layout(location = 0) in uvec4 v[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 32) out uvec4 id;
layout(location = 1, xfb_buffer = 0, xfb_offset = 16, xfb_stride = 32) out uvec4 verts;
void main() {
    id = uvec4(gl_PrimitiveIDIn, v[0].z, 0u, 0u);
    verts = uvec4(v[0].y, v[1].y, v[2].y, 0u);
    gl_Position = vec4(0.0);
    EmitVertex();
}
"""


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32])
def test_primitive_id_across_cut_and_instances(oracle, dtype):
    """Rule 13.3: gl_PrimitiveIDIn counts the triangles of one instance of one draw from 0,
    through a strip cut (5.4), restarts for each instance and for each draw.

    Draw 1: indices 0 1 2 3 CUT 4 5 6 as a triangle strip, 2 instances. Strip 0 1 2 3 gives
    triangles (0,1,2) and (1,3,2) (9.3's odd order), the cut starts strip 4 5 6: (4,5,6). Their
    ids are 0, 1, 2 in instance 0 and again 0, 1, 2 in instance 1 (instance-major, 9.4).
    Draw 2: indices 4 5 6 (first index 5), one instance: (4,5,6) with id 0 again. The cut is the
    all-ones index of the index width (Vulkan's fixed restart value; D3D12's IBStripCutValue
    matching the width)."""
    cut = np.iinfo(dtype).max
    indices = np.array([0, 1, 2, 3, cut, 4, 5, 6], dtype)
    r = oracle.run(VS_IDS, GS_TRIANGLE_IDS, topology="triangle_strip", indices=indices,
                   primitive_restart=True, draws=[Draw(8, instance_count=2), Draw(3, first=5)],
                   xfb_sizes=[1024])
    rows = r.records(0, width=8)
    # (primitive id, instance) and (vertex indices) of each triangle, in SO order
    assert rows[:, [0, 1]].tolist() == [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1], [0, 0]]
    assert rows[:, 4:7].tolist() == [[0, 1, 2], [1, 3, 2], [4, 5, 6]] * 2 + [[4, 5, 6]]
    assert r.streams[0].tolist() == [7, 7]
    assert r.statistics["ia_primitives"] == 7
    assert r.statistics["gs_invocations"] == 7  # one GS instance: primitives x 1


GS_INSTANCED = """#version 450
layout(points, invocations = 3) in;
layout(points, max_vertices = 1) out;
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 o;
void main() {
    o = uvec4(gl_PrimitiveIDIn, gl_InvocationID, 0u, 0u); gl_Position = vec4(0.0); EmitVertex();
}
"""


def test_gs_instances_of_a_primitive_come_first(oracle):
    """Rule 13.3: with invocations = 3 (D3D's [instance(3)]), SO receives every GS instance of
    primitive p, instance 0 to 2, before any output of primitive p + 1: for 3 points
    (0,0) (0,1) (0,2) (1,0) (1,1) (1,2) (2,0) (2,1) (2,2) as (primitive id, instance id)."""
    r = oracle.run(VS_IDS, GS_INSTANCED, topology="point_list", draws=[Draw(3)],
                   xfb_sizes=[1024])
    assert r.records(0)[:, :2].tolist() == [[p, i] for p in range(3) for i in range(3)]
    assert r.streams[0].tolist() == [9, 9]
    assert r.statistics["gs_primitives"] == 9


def test_lavapipe_gs_invocations_counts_primitives(oracle):
    """lavapipe deviates: its GSInvocations counts input primitives, not GS invocations.

    Three points through a GS with invocations = 3 run 9 GS invocations; D3D's GSInvocations is
    then 9 (rule 13.8: input primitives x instances; an NVIDIA H200's native GS counts so, and
    so does the Vulkan spec). lavapipe reports 3, so GSInvocations from this oracle must not be
    compared with gpuia's where a GS has more than one instance."""
    r = oracle.run(VS_IDS, GS_INSTANCED, topology="point_list", draws=[Draw(3)],
                   xfb_sizes=[1024])
    assert len(r.records(0)) == 9  # the 9 invocations ran
    assert r.statistics["gs_invocations"] == 3


GS_STREAMS = """#version 450
layout(points) in;
layout(points, max_vertices = 4) out;
layout(stream = 0, location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 s0;
layout(stream = 1, location = 1, xfb_buffer = 1, xfb_offset = 0, xfb_stride = 16) out uvec4 s1a;
layout(stream = 1, location = 2, xfb_buffer = 2, xfb_offset = 0, xfb_stride = 16) out uvec4 s1b;
layout(stream = 3, location = 3, xfb_buffer = 3, xfb_offset = 0, xfb_stride = 16) out uvec4 s3;
void main() {
    uint p = uint(gl_PrimitiveIDIn);
    s0 = uvec4(p, 0u, 0u, 0u); gl_Position = vec4(0.0); EmitStreamVertex(0);
    for (uint k = 0u; k < 2u; ++k) {
        s1a = uvec4(p, k, 1u, 0u); s1b = uvec4(p, k, 1u, 1u); EmitStreamVertex(1);
    }
    s3 = uvec4(p, 0u, 3u, 0u); EmitStreamVertex(3);
}
"""


def test_streams_overflow_on_their_own(oracle):
    """Rules 9.7, 10.2, 13.8: overflow is per stream and per whole primitive, across every
    buffer of the stream; other streams go on.

    Five points; each emits 1 point on stream 0 (buffer 0), 2 on stream 1 (split over buffers 1
    and 2), 1 on stream 3 (buffer 3); nothing on stream 2. Buffer 2 is 56 bytes: 3 points of 16
    fit, the 4th does not, so stream 1 stops after 3 points in buffer 1 too, though buffer 1 has
    room: stream 1 written 3, needed 10; counters 48 and 48; buffer 2's last 8 bytes untouched.
    Streams 0 and 3 write all 5 points (counters 80); stream 2 counts nothing."""
    r = oracle.run(VS_IDS, GS_STREAMS, topology="point_list", draws=[Draw(5)],
                   xfb_sizes=[256, 256, 56, 256])
    assert r.counters.tolist() == [80, 48, 48, 80]
    assert r.streams.tolist() == [[5, 5], [3, 10], [0, 0], [5, 5]]
    assert r.records(0).tolist() == [[p, 0, 0, 0] for p in range(5)]
    assert r.records(1).tolist() == [[0, 0, 1, 0], [0, 1, 1, 0], [1, 0, 1, 0]]
    assert r.records(2).tolist() == [[0, 0, 1, 1], [0, 1, 1, 1], [1, 0, 1, 1]]
    assert r.records(3).tolist() == [[p, 0, 3, 0] for p in range(5)]
    assert (r.buffers[1][48:] == FILL).all() and (r.buffers[2][48:] == FILL).all()
    assert r.statistics["gs_primitives"] == 20  # all streams' primitives, written or not


GS_MAX_VERTICES = """#version 450
layout(points) in;
layout(points, max_vertices = 4) out;
layout(stream = 0, location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 s0;
layout(stream = 1, location = 1, xfb_buffer = 1, xfb_offset = 0, xfb_stride = 16) out uvec4 s1;
void main() {
    for (uint k = 0u; k < 3u; ++k) { s0 = uvec4(k); gl_Position = vec4(0.0); EmitStreamVertex(0); }
    for (uint k = 0u; k < 3u; ++k) { s1 = uvec4(k); EmitStreamVertex(1); }
}
"""


def test_lavapipe_max_vertices_counts_each_stream(oracle):
    """lavapipe deviates: it applies max_vertices to each stream on its own.

    One point, max_vertices = 4, 3 emits on stream 0 then 3 on stream 1. D3D counts the emits of
    all streams together and keeps the first 4: 3 on stream 0 and 1 on stream 1 (rule 13.4, as
    an NVIDIA H200's native GS does). lavapipe keeps 3 and 3 (GLSL leaves emits past
    max_vertices undefined), so a case emitting more than maxvertexcount in all is no oracle
    case."""
    r = oracle.run(VS_IDS, GS_MAX_VERTICES, topology="point_list", draws=[Draw(1)],
                   xfb_sizes=[256, 256])
    assert r.streams[:2].tolist() == [[3, 3], [3, 3]]
    assert r.records(1)[:, 0].tolist() == [0, 1, 2]


GS_CUT_AND_SILENT = """#version 450
layout(points) in;
layout(triangle_strip, max_vertices = 6) out;
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 o;
void main() {
    if (gl_PrimitiveIDIn == 1) return;  // emits nothing
    for (uint k = 0u; k < 4u; ++k) { o = uvec4(k); gl_Position = vec4(0.0); EmitVertex(); }
    EndPrimitive();
    for (uint k = 0u; k < 2u; ++k) { o = uvec4(10u + k); gl_Position = vec4(0.0); EmitVertex(); }
}
"""


def test_incomplete_gs_strips_and_silent_invocations(oracle):
    """Rule 13.4: a strip left incomplete at the end of an invocation is discarded and counted
    nowhere; rule 13.8: an invocation that emits nothing still counts in GSInvocations.

    Three points; points 0 and 2 each emit a 4-vertex strip ((0,1,2), (1,3,2)), a cut, then 2
    vertices (10, 11) that make no triangle; point 1 emits nothing. SO receives 4 triangles;
    GSPrimitives 4, GSInvocations 3 (one GS instance: lavapipe's deviation does not show)."""
    r = oracle.run(VS_IDS, GS_CUT_AND_SILENT, topology="point_list", draws=[Draw(3)],
                   xfb_sizes=[1024])
    assert r.records(0)[:, 0].tolist() == [0, 1, 2, 1, 3, 2] * 2
    assert r.streams[0].tolist() == [4, 4]
    assert (r.statistics["gs_invocations"], r.statistics["gs_primitives"]) == (3, 4)


def test_lavapipe_ia_statistics(oracle):
    """What lavapipe counts where the rules pin nothing down (rule 13.8: IAVertices and
    VSInvocations for vertices of no complete primitive; hardware may reuse shaded vertices).

    lavapipe counts only the vertices of complete primitives in IAVertices (3 of a 5-vertex
    triangle list; 6 of a 7-vertex strip with adjacency) and shades a repeated index once
    (indices 0 1 2 0 1 2: IAVertices 6, VSInvocations 3). A reference counts one of each per
    vertex the IA delivers (rule 13.8), so these two are not compared with the oracle's."""
    def stats(**kwargs):
        r = oracle.run(VS_STREAMED, None, xfb_sizes=[1024], **kwargs)
        return r.statistics["ia_vertices"], r.statistics["vs_invocations"]

    assert stats(topology="triangle_list", draws=[Draw(5)]) == (3, 3)
    assert stats(topology="triangle_strip_with_adjacency", draws=[Draw(7)]) == (6, 6)
    assert stats(topology="triangle_list", draws=[Draw(6)],
                 indices=np.array([0, 1, 2, 0, 1, 2], np.uint32)) == (6, 3)


GS_ADJACENCY = """#version 450
layout(triangles_adjacency) in;
layout(points, max_vertices = 1) out;
layout(location = 0) in uvec4 v[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 32) out uvec4 first4;
layout(location = 1, xfb_buffer = 0, xfb_offset = 16, xfb_stride = 32) out uvec4 last2;
void main() {
    first4 = uvec4(v[0].y, v[1].y, v[2].y, v[3].y);
    last2 = uvec4(v[4].y, v[5].y, gl_PrimitiveIDIn, 0u);
    gl_Position = vec4(0.0);
    EmitVertex();
}
"""


def test_triangle_strip_adjacency_gs_inputs(oracle):
    """Rule 13.1: the six GS input vertices (v0, a01, v1, a12, v2, a20) of triangle i of a
    triangle strip with adjacency of n vertices (t = (n - 4) // 2 triangles).

    Draw 1, vertices 0..9 (t = 3):
      i = 0, t > 1:            (0, 1, 2, 6, 4, 3)
      i = 1, odd, not last:    (2i, 2i+3, 2i+4, 2i+6, 2i+2, 2i-2) = (2, 5, 6, 8, 4, 0)
      i = 2, even, last:       (2i, 2i-2, 2i+2, 2i+5, 2i+4, 2i+3) = (4, 2, 6, 9, 8, 7)
    Draw 2, vertices 10..16 (n = 7, t = 1, vertex 16 completes nothing and is dropped, 4.9):
      t = 1:                   (0, 1, 2, 5, 4, 3) + 10 = (10, 11, 12, 15, 14, 13)
    Primitive ids 0, 1, 2, then 0 again for the new draw (13.3)."""
    r = oracle.run(VS_IDS, GS_ADJACENCY, topology="triangle_strip_with_adjacency",
                   draws=[Draw(10), Draw(7, first=10)], xfb_sizes=[1024])
    rows = r.records(0, width=8)
    assert rows[:, :6].tolist() == [[0, 1, 2, 6, 4, 3], [2, 5, 6, 8, 4, 0], [4, 2, 6, 9, 8, 7],
                                    [10, 11, 12, 15, 14, 13]]
    assert rows[:, 6].tolist() == [0, 1, 2, 0]
    assert r.statistics["gs_invocations"] == 4


VS_STREAMED = """#version 450
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 v;
void main() { v = uvec4(gl_VertexIndex, 0u, 0u, 0u); gl_Position = vec4(0.0); }
"""


@pytest.mark.parametrize(("topology", "count", "expected"), [
    # Rule 9.2: without a GS, adjacency topologies stream only their non-adjacent vertices, in
    # the order of the matching topology without adjacency (9.3).
    # Two triangles with adjacency, vertices 0..11: triangle i is 6i, 6i+2, 6i+4.
    ("triangle_list_with_adjacency", 12, [0, 2, 4, 6, 8, 10]),
    # A strip with adjacency of 10 vertices: the even vertices 0 2 4 6 8 form the strip, whose
    # triangles are (0,2,4), (2,6,4) (odd: first, third, second), (4,6,8).
    ("triangle_strip_with_adjacency", 10, [0, 2, 4, 2, 6, 4, 4, 6, 8]),
    # A line strip with adjacency of 6 vertices: 0 and 5 are adjacency only; the segments of
    # 1 2 3 4 are (1,2), (2,3), (3,4).
    ("line_strip_with_adjacency", 6, [1, 2, 2, 3, 3, 4]),
])
def test_vs_only_adjacency_streams_without_adjacent_vertices(oracle, topology, count, expected):
    """The vertex shader feeds transform feedback itself (no GS; D3D's SO without a GS, rules
    8.12)."""
    r = oracle.run(VS_STREAMED, None, topology=topology, draws=[Draw(count)], xfb_sizes=[1024])
    assert r.records(0)[:, 0].tolist() == expected
    primitives = len(expected) // (2 if topology.startswith("line") else 3)
    assert r.streams[0].tolist() == [primitives, primitives]
    assert r.statistics["gs_invocations"] == 0


VS_D3D_IDS = """#version 460
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out uvec4 v;
void main() {
    v = uvec4(gl_VertexIndex - gl_BaseVertex, gl_InstanceIndex - gl_BaseInstance,
              gl_VertexIndex, gl_InstanceIndex);
    gl_Position = vec4(0.0); gl_PointSize = 1.0;
}
"""


def test_d3d_ids_from_vulkan_ids(oracle):
    """Rules 4.5 and 4.6: SV_VertexID of an indexed draw is the raw index (BaseVertexLocation
    excluded) and SV_InstanceID counts from 0 (StartInstanceLocation excluded); Vulkan's
    gl_VertexIndex and gl_InstanceIndex include both, so the oracle's shaders subtract
    gl_BaseVertex and gl_BaseInstance. Indices 7 9, vertex offset 100, first instance 3, two
    instances: (7, 0), (9, 0), (7, 1), (9, 1), Vulkan's own ids 107, 109 and 3, 4."""
    if not oracle.draw_parameters:
        pytest.skip(f"{oracle.name} has no shaderDrawParameters")
    r = oracle.run(VS_D3D_IDS, None, topology="point_list", indices=np.array([7, 9], np.uint32),
                   draws=[Draw(2, instance_count=2, first_instance=3, vertex_offset=100)],
                   xfb_sizes=[1024])
    assert r.records(0).tolist() == [[7, 0, 107, 3], [9, 0, 109, 3], [7, 1, 107, 4],
                                     [9, 1, 109, 4]]


def test_refusals(oracle):
    """What the oracle refuses names the reason, before Vulkan sees anything."""
    strip = dict(topology="point_list", draws=[Draw(1)], xfb_sizes=[64])
    with pytest.raises(ValueError, match="Vulkan restarts strips only"):
        oracle.run(VS_IDS, GS_INSTANCED, **{**strip, "primitive_restart": True},
                   indices=np.zeros(1, np.uint32))
    if not oracle.limits["transformFeedbackRasterizationStreamSelect"]:
        with pytest.raises(ValueError, match="rasterizes stream 0 only"):
            oracle.run(VS_IDS, GS_INSTANCED, **strip, rasterized_stream=1)
    with pytest.raises(ValueError, match="positive multiple of 4"):
        oracle.run(VS_IDS, GS_INSTANCED, **{**strip, "xfb_sizes": [62]})
    with pytest.raises(ValueError, match="unsigned"):
        oracle.run(VS_IDS, GS_INSTANCED, **{**strip, "draws": [Draw(1, first=-1)]})
    with pytest.raises(ValueError, match="refused the geom shader"):
        oracle.run(VS_IDS, "#version 450\nvoid main() { undefined(); }\n", **strip)


def test_rasterized_stream_reaches_the_clipper(oracle):
    """Rasterization discarded (D3D's NO_RASTERIZED_STREAM) clips nothing; stream 0 rasterized
    sends each of its primitives to the clipper: 2 points -> quads are 4 triangles either way
    in SO."""
    base = dict(topology="point_list", draws=[Draw(2)], xfb_sizes=[1024],
                attributes=tags(1, 2))
    discarded = oracle.run(VS_ATTRIBUTE, gs_point_strip(4), **base)
    drawn = oracle.run(VS_ATTRIBUTE, gs_point_strip(4), **base, rasterized_stream=0)
    assert discarded.streams[0].tolist() == drawn.streams[0].tolist() == [4, 4]
    assert discarded.statistics["c_invocations"] == 0
    assert drawn.statistics["c_invocations"] == 4


def test_missing_pieces_are_named(oracle, monkeypatch):
    """Without glslangValidator, or without any Vulkan driver, the oracle says which is missing
    (what these tests skip with outside CI)."""
    monkeypatch.setattr(vk_oracle.shutil, "which", lambda name: None)
    with pytest.raises(vk_oracle.OracleUnavailable, match="glslangValidator"):
        vk_oracle.spirv("vert", VS_IDS + "// not cached\n")
    monkeypatch.undo()
    code = ("from native import vk_oracle\n"
            "try:\n    vk_oracle.device()\n"
            "except vk_oracle.OracleUnavailable as exc:\n    print('unavailable:', exc)\n")
    env = {**os.environ, "VK_ICD_FILENAMES": "/nonexistent/icd.json",
           "VK_DRIVER_FILES": "/nonexistent/icd.json", "PYTHONPATH": str(TESTS)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "unavailable: no Vulkan ICD" in done.stdout or \
        "unavailable: no CPU Vulkan device" in done.stdout, done.stdout
