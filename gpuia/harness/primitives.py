"""The primitives of a case's draws, as data: the reference's assembly
(:func:`reference_primitives`, a :class:`PrimitiveList`) and what the GPU side draws as each
draw's primitives on an adapter (:func:`gpu_primitives`, a :class:`GPUPrimitives` per draw).

The cross-check keeps the GPU side's lists per adapter; the mesh tables
(:mod:`gpuia.harness.report.mesh`, which re-exports these names), the text and HTML reports and
the CSV export show them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import UnsupportedError

if TYPE_CHECKING:  # annotations only: the modules whose values these functions read
    from ..gpu.quirks import Quirk
    from ..reference.ia import IAResult
    from .case import Case

__all__ = ["PrimitiveList", "GPUPrimitives", "reference_primitives", "gpu_primitives"]


@dataclass
class PrimitiveList:
    """The complete primitives of a case's draws, in D3D's order (rules 4.9, 9.3, 9.4).

    Arguments:
        draw (numpy.ndarray): int64 per primitive: its draw.
        instance (numpy.ndarray): int64 per primitive: its instance.
        vtx (numpy.ndarray): int64 ``(primitives, vertices)``: each corner's index position
            (RenderDoc's VTX), in D3D's vertex order.
        idx (numpy.ndarray): int64 ``(primitives, vertices)``: each corner's SV_VertexID (the
            index value, or the position of a non-indexed draw: RenderDoc's IDX).
        invocation (numpy.ndarray): int64 ``(primitives, vertices)``: each corner's
            invocation in IA order.
        adjacency_vtx (numpy.ndarray): for adjacency topologies, int64 ``(primitives, 2 or
            3)``: the adjacency vertices' index positions; else None.
    """

    draw: np.ndarray
    instance: np.ndarray
    vtx: np.ndarray
    idx: np.ndarray
    invocation: np.ndarray
    adjacency_vtx: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.draw.shape[0])

    def within_instance(self) -> np.ndarray:
        """Each primitive's place among the primitives of its draw's instance (from 0), the
        row of the per-instance list the GPU side draws.

        Returns:
            An int64 array, one entry per primitive.
        """
        n = len(self)
        if n == 0:
            return np.zeros(0, np.int64)
        # Primitives come draw by draw, instance by instance: a group starts where either changes.
        starts = np.ones(n, bool)
        starts[1:] = (self.draw[1:] != self.draw[:-1]) | (self.instance[1:] != self.instance[:-1])
        first = np.flatnonzero(starts)
        return np.arange(n, dtype=np.int64) - first[np.cumsum(starts) - 1]


@dataclass
class GPUPrimitives:
    """What the GPU side knows of one draw's primitives on one adapter.

    Arguments:
        draw (int): the draw's position in the case's draw list.
        idx (numpy.ndarray): int64 ``(primitives, vertices)``: the corners' SV_VertexID of one
            instance's primitives, from the list stream gpuia builds and draws; None when WebGPU
            assembles the draw itself.
        note (str): how the GPU side draws the draw's primitives.
    """

    draw: int
    idx: np.ndarray | None
    note: str

    def describe(self, adapter: str, prims: PrimitiveList, within: np.ndarray) -> str:
        """The line the text and HTML reports show for this draw: ``adapter: draw N: note``,
        and, where the GPU side's list has another primitive count per instance than the
        reference assembles, both counts.

        Arguments:
            adapter (str): the adapter's summary.
            prims (PrimitiveList): the reference's primitives.
            within (numpy.ndarray): ``prims.within_instance()``.

        Returns:
            The line.
        """
        line = f"{adapter}: draw {self.draw}: {self.note}"
        sel = prims.draw == self.draw
        expected = int(within[sel].max()) + 1 if sel.any() else 0
        if self.idx is not None and self.idx.shape[0] != expected:
            line += (f"; {self.idx.shape[0]} primitive(s) per instance where the reference "
                     f"assembles {expected}")
        return line


def reference_primitives(ia: IAResult) -> PrimitiveList:
    """The primitives of an IA result (the reference's assembly; a GPU run's ``ia`` carries the
    same).

    Arguments:
        ia (IAResult): the result.

    Returns:
        The :class:`PrimitiveList`.
    """
    prims = ia.primitives.astype(np.int64)
    vertex = ia.vertex.astype(np.int64)
    first = prims[:, 0] if prims.shape[0] else np.zeros(0, np.int64)
    adjacency = None
    if ia.adjacency is not None:
        adjacency = vertex[ia.adjacency.astype(np.int64)]
    return PrimitiveList(ia.primitive_draw.astype(np.int64), ia.instance[first].astype(np.int64),
                         vertex[prims], ia.vertex_id.astype(np.int64)[prims], prims, adjacency)


def gpu_primitives(case: Case, quirks: Iterable[Quirk] = ()) -> list[GPUPrimitives]:
    """What the GPU side draws as each draw's primitives on an adapter with ``quirks``: the
    rendering draw's index plan (:func:`gpuia.gpu.ia.plan.plan_indices`, no flat pixel input).
    Where gpuia draws a list it built (:mod:`gpuia.gpu.ia.host_lists`: adjacency vertices dropped,
    strips expanded in D3D's order, an adapter's missing restart worked around), that list is
    the GPU side's own assembly, derived apart from the reference's; elsewhere WebGPU
    assembles the draw and only the note is given.

    Arguments:
        case (Case): the parsed case.
        quirks: the adapter's quirk rows (``Device.caps.quirks``). Default: none.

    Returns:
        One :class:`GPUPrimitives` per draw.
    """
    from ..gpu.ia.plan import Assembly, plan_indices

    assembly = Assembly.of(quirks, flat_inputs=False)
    topo = case.topology
    out = []
    for d, draw in enumerate(case.draws):
        try:
            plan = plan_indices(draw, case.index_buffer, topo, case.strip_cut_value, False,
                                assembly)
        except UnsupportedError as e:
            out.append(GPUPrimitives(d, None, f"not drawn by gpuia: {e}"))
            continue
        if plan.listed and plan.values is not None:
            idx = plan.values.astype(np.int64).reshape(-1, topo.vertices)
            out.append(GPUPrimitives(d, idx, f"gpuia draws a {topo.webgpu_list} it builds: "
                                             + "; ".join(plan.reasons)))
        else:
            out.append(GPUPrimitives(d, None, f"WebGPU assembles the {topo.webgpu} itself "
                                              f"(indices: {plan.mode}); nothing of its "
                                              f"assembly is read back (the raster check "
                                              f"compares it)"))
    return out
