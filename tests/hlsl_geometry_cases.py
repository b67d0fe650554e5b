"""HLSL geometry shaders with their inputs and the regions they must give, derived by hand (in
the comments): run on the CPU reference by tests/unit/test_hlsl_geometry.py and on the GPU by
tests/gpu/test_hlsl_geometry_gpu.py, bit for bit (every record is an integer or an exactly
representable float)."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

NEW = 4  # a header's bit 2: the vertex starts a new strip of its stream


def f(x: float) -> int:
    """The bits of float32 ``x``."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def region(n: int, r: int, entries) -> list[int]:
    """An invocation's region: the kept count, then per entry (header, record words) padded
    to 1 + r words, then zeros up to n entries."""
    out = [len(entries)]
    for header, words in entries:
        out += [header, *words, *[0] * (r - len(words))]
    return out + [0] * (1 + n * (1 + r) - len(out))


@dataclass(frozen=True)
class GSCase:
    source: str
    vertices: np.ndarray  # uint32 (V, vertex words)
    prims: np.ndarray  # uint32 (P, k + 1)
    expected: np.ndarray  # uint32 (P * instances, region words)
    constant_buffers: dict = field(default_factory=dict)
    entry_point: str = "main"


def _u(rows) -> np.ndarray:
    return np.array(rows, dtype=np.uint32)


def quad() -> GSCase:
    """(a) A point becomes a 4-vertex TriangleStream quad: vertex k at pos + (k & 1, k >> 1)."""
    src = """
struct V { float4 pos : SV_Position; };
struct O { float4 pos : SV_Position; };
[maxvertexcount(4)]
void main(point V p[1], inout TriangleStream<O> s) {
    O o;
    for (int k = 0; k < 4; k++) {
        o.pos = p[0].pos + float4(k & 1, k >> 1, 0, 0);
        s.Append(o);
    }
}
"""
    verts = _u([[f(1), f(2), f(0), f(1)], [f(10), f(20), f(0), f(1)]])

    def corners(x, y):  # (x, y), (x+1, y), (x, y+1), (x+1, y+1); only the first starts a strip
        return region(4, 4, [(NEW if k == 0 else 0, [f(x + (k & 1)), f(y + (k >> 1)), f(0), f(1)])
                             for k in range(4)])

    # primitive 0 is vertex 1, primitive 1 vertex 0
    return GSCase(src, verts, _u([[1, 0], [0, 1]]), _u([corners(10, 20), corners(1, 2)]))


def instances() -> GSCase:
    """(b) [instance(3)]: each primitive runs 3 times, GS instance innermost (rules 13.3); the
    record holds the input, SV_PrimitiveID and SV_GSInstanceID."""
    src = """
struct V { uint id : ID; };
struct O { uint3 ids : IDS; };
[maxvertexcount(1)]
[instance(3)]
void main(point V p[1], uint prim : SV_PrimitiveID, uint gsi : SV_GSInstanceID,
          inout PointStream<O> s) {
    O o;
    o.ids = uint3(p[0].id, prim, gsi);
    s.Append(o);
}
"""
    # primitive 0: vertex 1 (id 9), SV_PrimitiveID 5; primitive 1: vertex 0 (id 7), ID 6
    expected = [region(1, 3, [(NEW, [9, 5, i])]) for i in range(3)] + \
        [region(1, 3, [(NEW, [7, 6, i])]) for i in range(3)]
    return GSCase(src, _u([[7], [9]]), _u([[1, 5], [0, 6]]), _u(expected))


def two_streams() -> GSCase:
    """(c) Two PointStreams, maxvertexcount 4, 3 + 3 Appends: the first 4 take effect, all
    streams together (rules 13.4): 3 on stream 0, then 1 on stream 1; R = 2 (stream 1's
    uint2), stream 0's one-word records padded with 0."""
    src = """
struct A { uint v : A; };
struct B { uint2 v : B; };
[maxvertexcount(4)]
void main(point A p[1], inout PointStream<A> s0, inout PointStream<B> s1) {
    A a;
    B b;
    for (uint k = 0; k < 3; k++) { a.v = p[0].v + k; s0.Append(a); }
    for (uint j = 0; j < 3; j++) { b.v = uint2(100 + j, 200 + j); s1.Append(b); }
}
"""
    # stream 0: 5, 6, 7 (the first starts its strip); stream 1: header 1 | NEW, (100, 200)
    expected = region(4, 2, [(NEW, [5]), (0, [6]), (0, [7]), (1 | NEW, [100, 200])])
    return GSCase(src, _u([[5]]), _u([[0, 0]]), _u([expected]))


def restarts() -> GSCase:
    """(d) RestartStrip marks: a LineStream's Appends 1-2, two cuts, 3-4, a cut, 5: the
    vertices after a cut (and the first) start strips; a second cut changes nothing."""
    src = """
struct V { uint a : A; };
struct O { uint x : X; };
[maxvertexcount(5)]
void main(line V l[2], inout LineStream<O> s) {
    O o;
    o.x = l[0].a; s.Append(o);
    o.x = l[1].a; s.Append(o);
    s.RestartStrip();
    s.RestartStrip();
    o.x = 3; s.Append(o);
    o.x = 4; s.Append(o);
    s.RestartStrip();
    o.x = 5; s.Append(o);
}
"""
    # the line is (vertex 0, vertex 1): a = 7, 8
    expected = region(5, 1, [(NEW, [7]), (0, [8]), (NEW, [3]), (0, [4]), (NEW, [5])])
    return GSCase(src, _u([[7], [8]]), _u([[0, 1, 0]]), _u([expected]))


def cbuffer() -> GSCase:
    """(e) A cbuffer read: p * k and u.y, with k = (2, 3, 4, 0.5) and u = (0, 42, 0, 0) in
    register b2 (D3D packing: k at byte 0, u at byte 16)."""
    src = """
cbuffer C : register(b2) { float4 k; uint4 u; };
struct V { float4 p : POSITION; };
struct O { float4 p : POSITION; uint m : M; };
[maxvertexcount(1)]
void main(point V v[1], inout PointStream<O> s) {
    O o;
    o.p = v[0].p * k;
    o.m = u.y;
    s.Append(o);
}
"""
    cb = struct.pack("<4f4I", 2, 3, 4, 0.5, 0, 42, 0, 0)
    # (1, 2, 3, 4) * (2, 3, 4, 0.5) = (2, 6, 12, 2)
    expected = region(1, 5, [(NEW, [f(2), f(6), f(12), f(2), 42])])
    return GSCase(src, _u([[f(1), f(2), f(3), f(4)]]), _u([[0, 0]]), _u([expected]), {2: cb})


def records() -> GSCase:
    """Records of every shape a signature has: a row_major float2x3 and a bool in the input, a
    column_major float2x2 (one member per column), a nested struct, an array (TEXCOORD5 and 6)
    and a bool in the output; an int SV_PrimitiveID; Appends through a helper function; the
    maxvertexcount through a macro."""
    src = """
struct Inner { int2 q : QUAD; };
struct V { float4 p : POSITION; row_major float2x3 m : MATRIX; bool flag : FLAG; };
struct O { float2x2 m : MAT; Inner inner; float t[2] : TEXCOORD5; bool b : BOOL; };
void emit(inout PointStream<O> s, O o) { s.Append(o); }
#define N 3
[maxvertexcount(N)]
void main(triangle V v[3], int pid : SV_PrimitiveID, inout PointStream<O> s) {
    for (int k = 0; k < 3; k++) {
        O o;
        o.m = float2x2(v[k].m[0][0], v[k].m[0][1], v[k].m[1][0], v[k].m[1][2]);
        o.inner.q = int2(pid, -k);
        o.t[0] = v[k].p.x;
        o.t[1] = v[k].p.w;
        o.b = v[k].flag;
        emit(s, o);
    }
}
"""
    # An input record is 11 words: p (4), m's rows (3 + 3), flag; vertex j holds the floats
    # 11j .. 11j + 10 but for its flag, 1, 0, 1.
    verts = np.arange(33, dtype=np.float32).reshape(3, 11).view(np.uint32).copy()
    verts[:, 10] = [1, 0, 1]

    def entry(j: int) -> list[int]:
        a = 11 * j  # m's rows: (a + 4, a + 5, a + 6), (a + 7, a + 8, a + 9)
        m = (a + 4, a + 5, a + 7, a + 9)  # o.m's rows (m0, m1), (m2, m3)
        # its columns (m0, m2), (m1, m3), then q = (pid, -j), t = (p.x, p.w), b = the flag
        return [f(m[0]), f(m[2]), f(m[1]), f(m[3]), 9, -j & 0xFFFFFFFF, f(a), f(a + 3),
                [1, 0, 1][j]]

    # R = 9: 2 + 2 (the columns) + 2 (q) + 1 + 1 (t) + 1 (b); points: only the first Append
    # starts a "strip"
    expected = region(3, 9, [(NEW if j == 0 else 0, entry(j)) for j in range(3)])
    return GSCase(src, verts, _u([[0, 1, 2, 9]]), _u([expected]))


def vector_input() -> GSCase:
    """The input array's elements are float4 POSITION values, not a struct; the entry is
    GSMain. The record is x * 2 of the line's second vertex: the line (1, 0) has vertex 0 (x =
    3) second, so 6."""
    src = """
struct O { float x : X; };
[maxvertexcount(1)]
void GSMain(line float4 p[2] : POSITION, inout PointStream<O> s) {
    O o;
    o.x = p[1].x * 2;
    s.Append(o);
}
"""
    verts = _u([[f(3), 0, 0, f(1)], [f(5), 0, 0, f(1)]])
    return GSCase(src, verts, _u([[1, 0, 0]]), _u([region(1, 1, [(NEW, [f(6)])])]),
                  entry_point="GSMain")


CASES = {"quad": quad, "instances": instances, "two_streams": two_streams,
         "restarts": restarts, "cbuffer": cbuffer, "records": records,
         "vector_input": vector_input}
