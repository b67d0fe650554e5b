"""List streams for draws WebGPU cannot assemble as D3D does: the GPU side's own expansion.

WebGPU has no adjacency topologies, restarts strips only at 0xFFFF / 0xFFFFFFFF, and some
adapters ignore restart altogether or take a primitive's last vertex as its provoking vertex
(:mod:`gpuia.gpu.quirks`). Such draws are drawn as the matching *list* topology from an index
stream gpuia builds on the host: every complete primitive of each cut-free run, its vertices in
D3D's order (rules 9.3: a strip's odd triangles ``(t, t+2, t+1)``; adjacency vertices
dropped, rules 9.2; runs end at cuts and instances, rules 4.9 and 5.4), or
rotated so that D3D's first vertex comes last.

The positions come from the topology table's closed form (:class:`gpuia.d3d.topology.TopologyInfo`
``step``, ``span``, ``picks``), not from the CPU reference's assembly, so that the raster
cross-check compares two independent derivations. Where only the GPU holds the indices, the GPU
index pass (:mod:`gpuia.gpu.ia.index_pass`) builds the same list there, from the same table.
"""

from __future__ import annotations

import numpy as np

from ...d3d.topology import TopologyInfo

__all__ = ["list_stream", "run_bounds"]


def run_bounds(count: int, cuts: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(starts, lengths) of the cut-free runs of a stream of ``count`` entries, in the positions
    of the stream with its cut entries removed. ``cuts`` is a bool mask (None: no cut)."""
    if cuts is None or not cuts.any():
        return np.array([0], np.int64), np.array([count], np.int64)
    at = np.flatnonzero(cuts)
    # A cut at raw position c splits the kept entries before kept position c - (cuts before c).
    splits = at - np.arange(at.shape[0])
    edges = np.concatenate([[0], splits, [count - at.shape[0]]]).astype(np.int64)
    return edges[:-1], edges[1:] - edges[:-1]


def list_stream(values: np.ndarray, cuts: np.ndarray | None, topo: TopologyInfo,
                rotate: bool = False) -> np.ndarray:
    """The uint32 list stream (``topo.webgpu``'s list topology) drawing the complete primitives
    of one instance's stream ``values`` whose ``cuts`` entries restart the topology.
    ``rotate``: each primitive's vertices rotated left by one, ``(b, c, a)`` for ``(a, b, c)``
    (winding kept) and ``(b, a)`` for a line, so that D3D's provoking vertex is the last."""
    values = np.asarray(values, np.uint32)
    kept = values if cuts is None else values[~cuts]
    starts, lengths = run_bounds(values.shape[0], cuts)
    counts = np.where(lengths > topo.span, (lengths - 1 - topo.span) // topo.step + 1, 0)
    total = int(counts.sum())
    run = np.repeat(np.arange(counts.shape[0]), counts)
    p = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    base = starts[run] + topo.step * p
    even, odd = (np.asarray(k, np.int64) for k in topo.picks)
    corners = base[:, None] + np.where((p & 1)[:, None] == 1, odd, even)
    if rotate and corners.shape[1] > 1:
        corners = np.roll(corners, -1, axis=1)
    return kept[corners.reshape(-1)]
