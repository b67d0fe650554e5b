"""Primitive assembly: which delivered vertices form which complete primitives.

Input is a list of *segments*: runs of consecutive delivered vertices that one topology walks
without interruption. A segment ends at a draw boundary, an instance boundary (every instance
restarts the topology, rules 4.9) or a strip-cut index (5.4). Output is, per complete primitive,
its vertices as positions in the delivered-vertex sequence, in D3D's order, and its adjacency
vertices (adjacency topologies only). Incomplete primitives at a segment's end are dropped (4.9).

Orders (rules 9.3): a triangle strip's triangle ``t`` is ``(t, t+1, t+2)`` for even ``t`` and
``(t, t+2, t+1)`` for odd ``t`` (winding kept, vertex ``t`` stays first); line strip segment ``t``
is ``(t, t+1)``. Adjacency topologies give the same primitives over their non-adjacent vertices.
Adjacency vertices are listed per edge, in the order of the D3D geometry shader's input
(``[v0, adj(v0,v1), v1, adj(v1,v2), v2, adj(v2,v0)]`` for triangles, ``[adj, v0, v1, adj]`` for
lines); for triangle strips with adjacency the edge neighbours follow the OpenGL 4.6 table 10.1
(first / middle / last / only triangle), which D3D shares, remapped to D3D's vertex order.

Everything is vectorized over all segments at once: no Python loop per vertex or primitive.
"""

from __future__ import annotations

import numpy as np

from ..d3d.topology import TopologyInfo

__all__ = ["assemble"]


def _ramp(starts: np.ndarray, counts: np.ndarray, per: int, local: bool = False):
    """For segment starts and per-segment primitive counts, return ``(base, t)``: per primitive
    ``base = start of its segment + per * t``, where ``t`` is its local index within its
    segment, both int64 and in order (``t`` only when ``local``, else None). Built without a
    per-primitive segment lookup: ``base = per * k + (start - per * first)``, where ``k``
    counts all primitives and ``first`` is the segment's first ``k``."""
    counts = counts.astype(np.int64, copy=False)
    total = int(counts.sum())
    if counts.shape[0] == 1:  # one segment: an arithmetic sequence
        s0 = int(starts[0])
        base = np.arange(s0, s0 + per * total, per, dtype=np.int64)
        return base, (np.arange(total, dtype=np.int64) if local else None)
    k = np.arange(total, dtype=np.int64)
    first = np.cumsum(counts) - counts
    base = k * per
    base += np.repeat(starts - per * first, counts)
    if not local:
        return base, None
    k -= np.repeat(first, counts)
    return base, k


def _list(starts, lengths, per, picks, adj_picks=None):
    base, _ = _ramp(starts, lengths // per, per)
    prims = base[:, None] if picks == [0] else base[:, None] + np.asarray(picks)
    adj = None if adj_picks is None else base[:, None] + np.asarray(adj_picks)
    return prims, adj


def _points(starts, lengths):
    return _list(starts, lengths, 1, [0])


def _line_list(starts, lengths):
    return _list(starts, lengths, 2, [0, 1])


def _triangle_list(starts, lengths):
    return _list(starts, lengths, 3, [0, 1, 2])


def _line_list_adj(starts, lengths):
    # [adj, v0, v1, adj]
    return _list(starts, lengths, 4, [1, 2], [0, 3])


def _triangle_list_adj(starts, lengths):
    # [v0, a01, v1, a12, v2, a20]
    return _list(starts, lengths, 6, [0, 2, 4], [1, 3, 5])


def _line_strip(starts, lengths):
    base, _ = _ramp(starts, np.maximum(lengths - 1, 0), 1)
    return base[:, None] + np.array([0, 1]), None


def _line_strip_adj(starts, lengths):
    base, _ = _ramp(starts, np.maximum(lengths - 3, 0), 1)
    return base[:, None] + np.array([1, 2]), base[:, None] + np.array([0, 3])


def _triangle_strip(starts, lengths):
    base, t = _ramp(starts, np.maximum(lengths - 2, 0), 1, local=True)
    odd = t & 1
    prims = np.empty((t.shape[0], 3), dtype=np.int64)
    prims[:, 0] = base
    # (t, t+1, t+2) for even t, (t, t+2, t+1) for odd t: t+1+odd and t+2-odd.
    np.add(base, 1, out=prims[:, 1])
    prims[:, 1] += odd
    np.add(base, 2, out=prims[:, 2])
    prims[:, 2] -= odd
    return prims, None


def _triangle_strip_adj(starts, lengths):
    # n triangles need 2n + 4 vertices; even positions are the strip, odd ones adjacency.
    counts = np.maximum((lengths - 4) // 2, 0)
    b, t = _ramp(starts, counts, 2, local=True)
    n = np.repeat(counts, counts)
    odd = (t & 1).astype(bool)
    first = t == 0
    last = t == n - 1
    prims = np.empty((t.shape[0], 3), dtype=np.int64)
    prims[:, 0] = b
    prims[:, 1] = b + np.where(odd, 4, 2)
    prims[:, 2] = b + np.where(odd, 2, 4)
    # Neighbour across each strip edge (OpenGL 4.6 table 10.1, 0-based, i = t):
    #   edge (2i, 2i+2): 2i-2, or 2i+1 for the first triangle
    #   edge (2i+2, 2i+4): 2i+6, or 2i+5 for the last triangle
    #   edge (2i, 2i+4):  2i+3
    e_lo = np.where(first, b + 1, b - 2)
    e_hi = np.where(last, b + 5, b + 6)
    e_mid = b + 3
    adj = np.empty_like(prims)
    # D3D edge order follows the primitive's vertex order: (p0,p1), (p1,p2), (p2,p0).
    # even: p = (2i, 2i+2, 2i+4) -> edges lo, hi, mid; odd: p = (2i, 2i+4, 2i+2) -> mid, hi, lo.
    adj[:, 0] = np.where(odd, e_mid, e_lo)
    adj[:, 1] = e_hi
    adj[:, 2] = np.where(odd, e_lo, e_mid)
    return prims, adj


_ASSEMBLERS = {
    "POINTLIST": _points,
    "LINELIST": _line_list,
    "LINESTRIP": _line_strip,
    "TRIANGLELIST": _triangle_list,
    "TRIANGLESTRIP": _triangle_strip,
    "LINELIST_ADJ": _line_list_adj,
    "LINESTRIP_ADJ": _line_strip_adj,
    "TRIANGLELIST_ADJ": _triangle_list_adj,
    "TRIANGLESTRIP_ADJ": _triangle_strip_adj,
}


def assemble(topology: TopologyInfo, starts: np.ndarray, lengths: np.ndarray):
    """Primitives of all segments, in order: ``(prims, adjacency)`` as int64 arrays of
    delivered-vertex positions, shapes ``(P, topology.vertices)`` and ``(P, k)`` (``None`` when
    the topology has no adjacency)."""
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    return _ASSEMBLERS[topology.name](starts, lengths)
