"""What part of a recorded capture draw writes a given range of capture records: the sub-draws
a run of the storage route draws for one block of records instead of the whole draw.

A draw's record ``capture_base + i * len(keys) + k`` is what instance ``i`` received for its
``k``-th distinct fetch index (``keys``, ascending). The records of a range are therefore a
part of one instance's keys, whole instances, and a part of a last instance; a part of the
keys ``k0 .. k1 - 1`` is written by the draw positions (vertices of a draw without indices,
index positions of an indexed one) whose fetch index lies in ``keys[k0] .. keys[k1 - 1]``.

A sub-draw draws positions ``p0 .. p1 - 1`` of instances ``i0 .. i0 + n - 1`` with the
original draw's per-draw block (StartVertexLocation, BaseVertexLocation, StartInstanceLocation
as D3D has them), so its SV_VertexID, SV_InstanceID, fetches and record places are the whole
draw's at those positions and instances; a position range may hold more than the range's
records (an indexed draw's ranges come from chunks of positions), whose records the shader
does not write (they lie outside the block). Only non-wrapping draws are split: a draw whose
vertices or instances wrap past 2**32 - 1, a DrawAuto and a plan of GPU-listed indices are
drawn whole (:func:`window_pieces` returns None)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ia.plan import IndexMode

__all__ = ["CHUNK", "Piece", "PositionBounds", "position_bounds", "splittable", "window_pieces"]

CHUNK = 1024
"""Draw positions per chunk of :class:`PositionBounds`: an indexed draw's sub-draw covers whole
chunks whose fetch indices reach into the range's keys."""

_LIMIT = 1 << 32


@dataclass(frozen=True)
class Piece:
    """Positions ``first .. end - 1`` of instances ``instance .. instance + instances - 1``
    (counted from the draw's first, 0-based)."""

    first: int
    end: int
    instance: int
    instances: int


class PositionBounds:
    """The least and greatest fetch index of each chunk of :data:`CHUNK` positions of one
    instance's ``fetch`` (uint32), to find the positions that fetch a range of keys; None for
    a draw whose position ``p`` fetches ``keys[p]`` (a draw without indices that does not
    wrap)."""

    def __init__(self, fetch: np.ndarray | None):
        self.identity = fetch is None
        if fetch is None:
            return
        n = fetch.shape[0]
        whole = n // CHUNK * CHUNK
        lo = [fetch[:whole].reshape(-1, CHUNK).min(axis=1)] if whole else []
        hi = [fetch[:whole].reshape(-1, CHUNK).max(axis=1)] if whole else []
        if whole < n:
            lo.append(fetch[whole:].min(keepdims=True))
            hi.append(fetch[whole:].max(keepdims=True))
        self.count = n
        self.lo = np.concatenate(lo) if lo else np.zeros(0, np.uint32)
        self.hi = np.concatenate(hi) if hi else np.zeros(0, np.uint32)

    def span(self, keys: np.ndarray, k0: int, k1: int) -> tuple[int, int]:
        """The positions ``(p0, p1)`` that fetch every key of ``keys[k0:k1]`` (``k0 < k1``)."""
        if self.identity:
            return k0, k1
        a, b = keys[k0], keys[k1 - 1]
        hit = np.flatnonzero((self.hi >= a) & (self.lo <= b))
        if hit.shape[0] == 0:  # every key is some position's fetch index: not reached
            return 0, 0
        return int(hit[0]) * CHUNK, min(self.count, (int(hit[-1]) + 1) * CHUNK)


def splittable(record) -> bool:
    """Whether ``record`` (a CaptureRecord) may be drawn in parts: not a DrawAuto, its
    indices direct, on the host or none, neither its vertices nor its instances wrapping."""
    d, index = record.draw, record.plan.index
    if record.auto is not None or index.mode not in (IndexMode.NONE, IndexMode.DIRECT,
                                                      IndexMode.HOST):
        return False
    if d.start_instance_location + d.instance_count > _LIMIT:
        return False
    return d.indexed or d.start_vertex_location + d.vertex_count_per_instance <= _LIMIT


def position_bounds(record) -> PositionBounds:
    """The record's :class:`PositionBounds` (of its plan's fetch indices)."""
    if not record.draw.indexed:
        return PositionBounds(None)  # splittable: vertex p fetches start + p, keys[p]
    return PositionBounds(record.plan.index.fetch)


def window_pieces(record, bounds: PositionBounds, first: int, count: int) -> list[Piece]:
    """The sub-draws of ``record`` that write every one of its records among capture records
    ``first .. first + count - 1`` (none when it has none there): at most three (a part of an
    instance, whole instances, a part of the last)."""
    keys = record.keys.shape[0]
    base = record.capture_base
    lo = max(first, base) - base
    hi = min(first + count, base + keys * record.draw.instance_count) - base
    if keys == 0 or lo >= hi:
        return []
    i0, k0 = divmod(lo, keys)
    i1, k1 = divmod(hi - 1, keys)
    k1 += 1
    parts = []  # (k0, k1, first instance, instances)
    if i0 == i1:
        parts.append((k0, k1, i0, 1))
    else:
        whole_from = i0 if k0 == 0 else i0 + 1
        whole_to = i1 + 1 if k1 == keys else i1
        if k0 != 0:
            parts.append((k0, keys, i0, 1))
        if whole_to > whole_from:
            parts.append((0, keys, whole_from, whole_to - whole_from))
        if k1 != keys:
            parts.append((0, k1, i1, 1))
    pieces = []
    for a, b, inst, n in parts:
        p0, p1 = bounds.span(record.keys, a, b)
        if p1 > p0:
            pieces.append(Piece(p0, p1, inst, n))
    return pieces
