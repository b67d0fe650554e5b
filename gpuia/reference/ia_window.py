"""The reference Input Assembler a window of invocations at a time: the rows ``lo .. hi - 1`` of
what :func:`gpuia.reference.ia.run_ia` delivers for the same draws, bit for bit, in memory
proportional to the window (the case's own vertex and index bytes aside).

A row is a function of (draw, instance, delivered vertex): its IDs come from the draw's index
stream read for the window's positions only (a strip's cut positions are found once, in chunks,
and kept: one entry per cut), its elements from the same decoders :func:`run_ia` uses
(:func:`gpuia.reference.ia.fetch_tasks`). Primitives are not assembled: a window's result has
none (``primitives`` empty, ``IAPrimitives`` 0); the whole draw's come from :func:`run_ia`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ..d3d.desc import StripCutValue
from ..d3d.draws import Draw, DrawIndexedInstanced, DrawInstanced, delivers_nothing, draw_of
from ..d3d.ia_desc import IndexBufferView
from ..d3d.layout import InputLayout
from ..util.parallel import row_chunks, run_tasks
from .ia import (
    U32,
    DrawSequence,
    ElementData,
    IAResult,
    PlannedDraw,
    as_bytes,
    fetch_tasks,
    resolve_topology,
    resolve_views,
)

__all__ = ["IAWindows"]

_SCAN = 1 << 22
"""Index positions scanned at once for cuts (a bounded temporary)."""


class _Draw(NamedTuple):
    """A draw that delivers vertices, as the windows need it."""

    position: int  # its place in the list of draws
    draw: Draw
    delivered: int  # vertices delivered per instance
    first_row: int  # its first invocation's row
    bounds: np.ndarray | None  # per cut: the vertices delivered before it (strips with cuts)


class IAWindows:
    """The rows of :func:`gpuia.reference.ia.run_ia`'s result for the same arguments (which it
    checks and refuses as :func:`run_ia` does), a window at a time: :meth:`rows`.

    Arguments:
        layout, vertex_buffers, draws, topology, index_buffer, strip_cut_value: as
            :func:`run_ia`'s.
    """

    def __init__(self, layout: InputLayout, vertex_buffers: Mapping | Sequence,
                 draws: DrawInstanced | DrawIndexedInstanced | dict | Sequence, *,
                 topology="TRIANGLELIST", index_buffer: IndexBufferView | None = None,
                 strip_cut_value=StripCutValue.DISABLED):
        self.layout = layout if isinstance(layout, InputLayout) else InputLayout(layout)
        self.views = resolve_views(vertex_buffers)
        self.topology = resolve_topology(topology)
        cut = StripCutValue.of(strip_cut_value)
        self.index_buffer = IndexBufferView.of(index_buffer)
        if isinstance(draws, (dict, DrawInstanced, DrawIndexedInstanced)):
            draws = [draws]
        self.cut = cut.index if self.topology.strip else None
        self.draws: list[_Draw] = []
        total = 0
        for position, draw in enumerate(draw_of(d) for d in draws):
            if delivers_nothing(draw):
                continue
            bounds = (self._cut_bounds(draw) if isinstance(draw, DrawIndexedInstanced)
                      else None)
            delivered = draw.count - (0 if bounds is None else bounds.shape[0])
            self.draws.append(_Draw(position, draw, delivered, total, bounds))
            total += draw.instance_count * delivered
        self.total = total  # rows of the whole result (run_ia's len())

    def primitive_count(self, position: int) -> int:
        """The complete primitives of the draw at ``position`` in the list of draws (its
        ``IAPrimitives``), from its cut-free runs by the topology's closed form (rules 4.9;
        :class:`~gpuia.d3d.topology.TopologyInfo`), without assembling them."""
        topo = self.topology
        for d in self.draws:
            if d.position == position:
                cuts = np.zeros(0, np.int64) if d.bounds is None else d.bounds
                runs = np.diff(np.concatenate(([0], cuts, [d.delivered])))
                whole = np.where(runs > topo.span, (runs - 1 - topo.span) // topo.step + 1, 0)
                return d.draw.instance_count * int(whole.sum())
        return 0

    def _index_values(self, draw: DrawIndexedInstanced, p0: int, p1: int) -> np.ndarray:
        """The index values at positions ``p0 .. p1 - 1`` of one instance (uint32), 0 for
        reads outside the view (rules 5.5, 5.6), as run_ia reads them."""
        values = np.zeros(p1 - p0, dtype=U32)
        ib = self.index_buffer
        if ib is None or ib.buffer is None or p1 <= p0:
            return values
        size = ib.index_size
        assert ib.size_in_bytes is not None  # resolved: the view has a buffer
        inside = max(0, min(draw.index_count_per_instance,
                            ib.size_in_bytes // size - draw.start_index_location))
        end = min(p1, inside)
        if end > p0:
            data = as_bytes(ib.buffer)[ib.offset: ib.offset + ib.size_in_bytes]
            values[:end - p0] = np.ndarray((end - p0,), dtype=f"<u{size}", buffer=data,
                                           offset=(draw.start_index_location + p0) * size)
        return values

    def _cut_bounds(self, draw: DrawIndexedInstanced) -> np.ndarray | None:
        """Per cut index of a strip, the vertices delivered before it; None without cuts."""
        if self.cut is None:
            return None
        cuts = [np.flatnonzero(self._index_values(draw, a, min(a + _SCAN, draw.count))
                               == U32(self.cut)) + a
                for a in range(0, draw.count, _SCAN)]
        found = np.concatenate(cuts) if cuts else np.zeros(0, np.int64)
        return (found - np.arange(found.shape[0])) if found.size else None

    def _sequence(self, d: _Draw, k0: int, k1: int) -> DrawSequence:
        """Delivered vertices ``k0 .. k1 - 1`` of one instance of a draw (segments unset)."""
        draw, none = d.draw, np.zeros(0, np.int64)
        if isinstance(draw, DrawInstanced):
            positions = np.arange(k0, k1, dtype=U32)
            start = draw.start_vertex_location
            fetch = positions + U32(start) if start else positions  # wraps (4.8)
            regular = start + k0 if start + max(k1, 1) - 1 <= 0xFFFFFFFF else None
            return DrawSequence(positions, positions, fetch, none, none, regular)
        k = np.arange(k0, k1, dtype=np.int64)
        where = k if d.bounds is None else k + np.searchsorted(d.bounds, k, side="right")
        if where.size:
            span = self._index_values(draw, int(where[0]), int(where[-1]) + 1)
            vid = span[where - where[0]] if d.bounds is not None else span
        else:
            vid = np.zeros(0, U32)
        base = draw.base_vertex_location & 0xFFFFFFFF
        fetch = vid + U32(base) if base else vid  # wraps (4.2, 4.8)
        return DrawSequence(where.astype(U32), vid, fetch, none, none, None)

    def fetch_extents(self, lo: int, hi: int) -> list[tuple[int, int, int, int, int]]:
        """What the rows ``lo .. hi - 1`` fetch, without decoding an element: per draw with
        rows among them, in order, ``(its position, the first instance among the rows, the
        least fetch index of that instance's rows, the last instance, the greatest fetch index
        of its rows)`` (the fetch indices as :meth:`rows` gives them).

        Raises:
            ValueError: a range outside ``0 .. total``.
        """
        if not 0 <= lo <= hi <= self.total:
            raise ValueError(f"rows {lo} .. {hi} lie outside the {self.total} invocations")
        out = []
        for d in self.draws:
            a = max(lo, d.first_row) - d.first_row
            b = min(hi, d.first_row + d.draw.instance_count * d.delivered) - d.first_row
            if a >= b:
                continue
            pieces = _pieces(a, b, d.delivered)
            (i0, _, k0, k1), (i1, count, j0, j1) = pieces[0], pieces[-1]
            least = self._fetch_bounds(d, k0, k1)[0]
            greatest = self._fetch_bounds(d, j0, j1)[1]
            out.append((d.position, i0, least, i1 + count - 1, greatest))
        return out

    def _fetch_bounds(self, d: _Draw, k0: int, k1: int) -> tuple[int, int]:
        """The least and greatest fetch index of delivered vertices ``k0 .. k1 - 1``
        (``k0 < k1``) of one instance of a draw."""
        draw = d.draw
        if isinstance(draw, DrawInstanced) and draw.start_vertex_location + k1 - 1 <= 0xFFFFFFFF:
            return draw.start_vertex_location + k0, draw.start_vertex_location + k1 - 1
        fetch = self._sequence(d, k0, k1).fetch_index  # wraps, or the index values
        return int(fetch.min()), int(fetch.max())

    def rows(self, lo: int, hi: int) -> IAResult:
        """Rows ``lo .. hi - 1`` (``0 <= lo <= hi <= total``) of run_ia's result: every
        per-invocation field equal to its rows there; no primitives.

        Raises:
            ValueError: a range outside ``0 .. total``.
        """
        if not 0 <= lo <= hi <= self.total:
            raise ValueError(f"rows {lo} .. {hi} lie outside the {self.total} invocations")
        n = hi - lo
        ids = {name: np.empty(n, dtype=U32)
               for name in ("draw", "instance", "vertex", "vertex_id", "fetch")}
        bits = {el.key: np.empty((n, 4), dtype=U32) for el in self.layout.elements}
        tasks: list = []
        after: list = []
        for d in self.draws:
            end = d.first_row + d.draw.instance_count * d.delivered
            a, b = max(lo, d.first_row) - d.first_row, min(hi, end) - d.first_row
            if a >= b:
                continue
            for inst, count, k0, k1 in _pieces(a, b, d.delivered):
                seq = self._sequence(d, k0, k1)
                at = d.first_row + inst * d.delivered + k0 - lo
                block = slice(at, at + count * (k1 - k0))
                # The IDs are written on the pool beside the elements, a chunk of the piece's
                # vertices at a time (each chunk writes its columns of every instance).
                tasks += [functools.partial(_fill_ids, ids, block, count, d.position, inst, seq,
                                            a, b) for a, b in row_chunks(k1 - k0)]
                tasks += fetch_tasks(self.layout, self.views, PlannedDraw(
                    d.position, d.draw, seq, at), bits, after, inst, count)
        run_tasks(tasks, n)
        for copy in after:
            copy()
        inputs = {e.key: ElementData(e.format.shader_type, bits[e.key])
                  for e in self.layout.elements}
        return IAResult(topology=self.topology, draw=ids["draw"], instance=ids["instance"],
                        vertex=ids["vertex"], vertex_id=ids["vertex_id"],
                        fetch_index=ids["fetch"], inputs=inputs,
                        primitives=np.zeros((0, self.topology.vertices), np.int64), adjacency=None,
                        primitive_draw=np.zeros(0, U32),
                        statistics={"IAVertices": n, "IAPrimitives": 0})


def _fill_ids(ids: dict, block: slice, count: int, position: int, inst: int,
              seq: DrawSequence, a: int, b: int) -> None:
    """Write the IDs of vertices ``a .. b - 1`` of a piece (``seq``: its vertices of one
    instance) for each of its ``count`` instances from ``inst`` into ``ids``' rows ``block``."""
    rows = {name: ids[name][block].reshape(count, -1)[:, a:b]
            for name in ("draw", "instance", "vertex", "vertex_id", "fetch")}
    rows["draw"][:] = position
    rows["instance"][:] = np.arange(inst, inst + count, dtype=U32)[:, None]
    for name, values in (("vertex", seq.positions), ("vertex_id", seq.vertex_id),
                         ("fetch", seq.fetch_index)):
        rows[name][:] = values[a:b]


def _pieces(a: int, b: int, delivered: int) -> list[tuple[int, int, int, int]]:
    """Rows ``a .. b - 1`` of a draw (``delivered`` rows per instance) as pieces
    ``(first instance, instances, first vertex, end vertex)``: a partial first instance, the
    whole instances, a partial last one."""
    i0, k0 = divmod(a, delivered)
    i1, k1 = divmod(b, delivered)
    if i0 == i1:
        return [(i0, 1, k0, k1)]
    out = []
    if k0:
        out.append((i0, 1, k0, delivered))
        i0 += 1
    if i1 > i0:
        out.append((i0, i1 - i0, 0, delivered))
    if k1:
        out.append((i1, 1, 0, k1))
    return out
