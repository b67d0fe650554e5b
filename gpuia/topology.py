"""Primitive topology facts: one table row per D3D_PRIMITIVE_TOPOLOGY gpuia draws.

The row is the single source of what a topology is: its primitive kind, how many vertices one
output primitive has (adjacency vertices excluded), how many input vertices one list primitive
consumes, whether it is a strip (strip-cut indices apply only to strips in D3D12, rulebook 5.2),
whether it carries adjacency, and the WebGPU topology that draws its non-adjacent primitives.
The assembly rules themselves live in ``gpuia.reference.assembly``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .desc import PrimitiveTopology

__all__ = ["TopologyInfo", "TOPOLOGIES", "topology_info"]


@dataclass(frozen=True)
class TopologyInfo:
    topology: PrimitiveTopology
    kind: str  # "point", "line" or "triangle"
    vertices: int  # vertices of one output primitive (adjacency excluded)
    strip: bool
    adjacency: bool
    webgpu: str  # wgpu PrimitiveTopology drawing the same primitives (adjacency dropped)

    @property
    def name(self) -> str:
        return self.topology.name


_T = PrimitiveTopology
# fmt: off
TOPOLOGIES: dict[PrimitiveTopology, TopologyInfo] = {row.topology: row for row in [
    #             topology              kind        verts strip  adj    webgpu
    TopologyInfo(_T.POINTLIST,         "point",    1,   False, False, "point-list"),
    TopologyInfo(_T.LINELIST,          "line",     2,   False, False, "line-list"),
    TopologyInfo(_T.LINESTRIP,         "line",     2,   True,  False, "line-strip"),
    TopologyInfo(_T.TRIANGLELIST,      "triangle", 3,   False, False, "triangle-list"),
    TopologyInfo(_T.TRIANGLESTRIP,     "triangle", 3,   True,  False, "triangle-strip"),
    TopologyInfo(_T.LINELIST_ADJ,      "line",     2,   False, True,  "line-list"),
    TopologyInfo(_T.LINESTRIP_ADJ,     "line",     2,   True,  True,  "line-list"),
    TopologyInfo(_T.TRIANGLELIST_ADJ,  "triangle", 3,   False, True,  "triangle-list"),
    TopologyInfo(_T.TRIANGLESTRIP_ADJ, "triangle", 3,   True,  True,  "triangle-list"),
]}
# fmt: on


def topology_info(value) -> TopologyInfo:
    """The row of a topology given as enum, name or D3D value. UNDEFINED and patch lists are
    refused: a draw needs a topology, and gpuia has no tessellation stages."""
    topo = PrimitiveTopology.of(value)
    if topo not in TOPOLOGIES:
        raise ValueError(f"{topo.name} cannot be drawn: set a point, line or triangle topology")
    return TOPOLOGIES[topo]
