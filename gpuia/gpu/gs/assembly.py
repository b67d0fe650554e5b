"""The geometry shader's input primitives, assembled by the GPU side on the host.

:func:`gs_primitives` lists, for one draw, every primitive the Input Assembler completes, as
the geometry shader's compute program reads them (``gpuia_gs_prims``, :data:`GS_PARAMS`'s
``about``): per primitive its input vertices, adjacency included, in the order the shader's
input array receives them (rules 13.1), then its ``SV_PrimitiveID`` (rules 13.3). A vertex is
named by its place in the vertex shader's outputs of the draw: ``instance * count + p`` for the
``p``-th index (or vertex) of the draw's instance ``instance``, cut entries included, so that
the vertex shader's outputs are one point-list run over the draw.

The places come from :data:`GS_INPUT_PICKS` and the topology table's ``step`` and ``span``
(:class:`gpuia.d3d.topology.TopologyInfo`), not from the CPU reference's assembly
(``gpuia.reference.assembly`` and ``gpuia.reference.geometry``), so a bug in either shows as a
difference. Strip cuts end runs (rules 5.4; a cut is an entry whose value is the cut value, in
strips only, rules 5.2); a run's incomplete primitive is dropped (rules 4.9); ``SV_PrimitiveID``
counts the primitives of one instance, across cuts, from 0 (rules 13.3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...d3d.desc import PrimitiveTopology
from ...d3d.topology import TopologyInfo
from ..ia.host_lists import run_bounds

__all__ = ["GSInputPicks", "GS_INPUT_PICKS", "GSPrimitives", "gs_primitives"]


@dataclass(frozen=True)
class GSInputPicks:
    """Where primitive ``p`` of a cut-free run finds its geometry shader inputs: positions
    ``step * p + picks`` (even and odd ``p``), relative to the run's start; in a run's first
    primitive a position of ``first`` is replaced by its value, in its last one a position of
    ``last`` (TRIANGLESTRIP_ADJ's ends, rules 13.1)."""

    even: tuple[int, ...]
    odd: tuple[int, ...]
    first: tuple[tuple[int, int], ...] = ()
    last: tuple[tuple[int, int], ...] = ()


_T = PrimitiveTopology
# fmt: off
GS_INPUT_PICKS: dict[PrimitiveTopology, GSInputPicks] = {
    _T.POINTLIST:         GSInputPicks((0,), (0,)),
    _T.LINELIST:          GSInputPicks((0, 1), (0, 1)),
    _T.LINESTRIP:         GSInputPicks((0, 1), (0, 1)),
    _T.TRIANGLELIST:      GSInputPicks((0, 1, 2), (0, 1, 2)),
    # An odd strip triangle keeps D3D's winding order (rules 9.3).
    _T.TRIANGLESTRIP:     GSInputPicks((0, 1, 2), (0, 2, 1)),
    # (adjacent, v0, v1, adjacent)
    _T.LINELIST_ADJ:      GSInputPicks((0, 1, 2, 3), (0, 1, 2, 3)),
    _T.LINESTRIP_ADJ:     GSInputPicks((0, 1, 2, 3), (0, 1, 2, 3)),
    # (v0, a01, v1, a12, v2, a20)
    _T.TRIANGLELIST_ADJ:  GSInputPicks((0, 1, 2, 3, 4, 5), (0, 1, 2, 3, 4, 5)),
    # triangle i at 2i: even (2i, 2i-2, 2i+2, 2i+6, 2i+4, 2i+3), odd (2i, 2i+3, 2i+4, 2i+6,
    # 2i+2, 2i-2); the first takes 2i+1 for 2i-2, the last 2i+5 for 2i+6 (rules 13.1).
    _T.TRIANGLESTRIP_ADJ: GSInputPicks((0, -2, 2, 6, 4, 3), (0, 3, 4, 6, 2, -2),
                                       first=((-2, 1),), last=((6, 5),)),
}
# fmt: on
"""The geometry shader's input picks of each topology gpuia draws."""


@dataclass(frozen=True)
class GSPrimitives:
    """The input primitives of one draw, listed chunk by chunk: :meth:`rows` gives any range
    of the ``gpuia_gs_prims`` rows (module docstring) without the others, so a draw of any size
    needs host memory for one chunk (and, with cuts, one index per kept entry). Made by
    :meth:`of`."""

    topo: TopologyInfo
    count: int  # indices (or vertices) of one instance
    instances: int
    kept: np.ndarray | None  # the places of the entries that are no cut (None: no cut)
    run_start: np.ndarray  # per cut-free run, its first entry among the kept ones
    run_first: np.ndarray  # per run, its first primitive's index in the instance
    run_prims: np.ndarray  # per run, its complete primitives
    per_instance: int  # primitives of one instance

    @classmethod
    def of(cls, topo: TopologyInfo, count: int, instances: int,
           cuts: np.ndarray | None = None) -> GSPrimitives:
        """The primitives of a draw of ``instances`` instances of ``count`` indices (or
        vertices), ``cuts`` per index whether it is a strip cut (None: none)."""
        kept = None if cuts is None or not cuts.any() else \
            np.flatnonzero(~cuts).astype(np.uint32)
        starts, lengths = run_bounds(count, None if kept is None else cuts)
        prims = np.array([topo.primitive_count(int(n)) for n in lengths], np.int64)
        first = np.cumsum(prims) - prims
        return cls(topo, count, instances, kept, starts, first, prims, int(prims.sum()))

    @property
    def total(self) -> int:
        """The draw's primitives, all instances."""
        return self.per_instance * self.instances

    @property
    def width(self) -> int:
        """Words per row: the input vertices, then SV_PrimitiveID."""
        return len(GS_INPUT_PICKS[self.topo.topology].even) + 1

    def rows(self, first: int, n: int) -> np.ndarray:
        """Rows ``first`` to ``first + n - 1`` of the draw, as uint32 ``(n, width)``."""
        picks = GS_INPUT_PICKS[self.topo.topology]
        i = np.arange(first, first + n, dtype=np.int64)
        instance, q = np.divmod(i, max(self.per_instance, 1))
        run = np.searchsorted(self.run_first, q, side="right") - 1
        p = q - self.run_first[run]  # the primitive's index in its run
        rel = np.where((p & 1)[:, None] == 1, np.asarray(picks.odd, np.int64),
                       np.asarray(picks.even, np.int64))
        for ends, which in ((picks.first, p == 0), (picks.last, p == self.run_prims[run] - 1)):
            for old, new in ends:
                rel = np.where(which[:, None] & (rel == old), new, rel)
        places = self.run_start[run, None] + self.topo.step * p[:, None] + rel
        if self.kept is not None:
            places = self.kept[places]
        out = np.empty((n, self.width), np.uint32)
        out[:, :-1] = places + (instance * self.count)[:, None]
        out[:, -1] = q
        return out


def gs_primitives(topo: TopologyInfo, count: int, instances: int,
                  cuts: np.ndarray | None = None) -> np.ndarray:
    """Every ``gpuia_gs_prims`` row of a draw at once (:class:`GSPrimitives`).

    Arguments:
        topo (TopologyInfo): the draw's topology.
        count (int): the indices (or vertices) of one instance.
        instances (int): the draw's instances.
        cuts (ndarray): per index, whether it is a strip cut (None: none).

    Returns:
        A uint32 array ``(instances * P, k + 1)``: P primitives per instance, each its ``k``
        input vertices' places in the draw's vertex shader outputs, then its SV_PrimitiveID.
    """
    prims = GSPrimitives.of(topo, count, instances, cuts)
    return prims.rows(0, prims.total)
