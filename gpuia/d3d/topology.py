"""Primitive topology facts: one table row per D3D_PRIMITIVE_TOPOLOGY gpuia draws.

The row is the single source of what a topology is: its primitive kind, how many vertices one
output primitive has (adjacency vertices excluded), how many input vertices one list primitive
consumes, whether it is a strip (strip-cut indices apply only to strips in D3D12, rules 5.2),
whether it carries adjacency, and the WebGPU topology that draws its non-adjacent primitives.
The assembly rules themselves live in ``gpuia.reference.assembly``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .desc import PrimitiveTopology

__all__ = ["TopologyInfo", "TOPOLOGIES", "topology_info"]


@dataclass(frozen=True)
class TopologyInfo:
    """One topology: a frozen row of :data:`TOPOLOGIES`.

    ``step``, ``span`` and ``picks`` describe where output primitive ``p`` of a cut-free run
    finds its vertices: positions ``step * p + picks[p % 2][k]``; a run of ``L`` vertices holds
    ``(L - 1 - span) // step + 1`` complete primitives when ``L > span`` (span: the last
    position a primitive touches, adjacency included; rules 4.9, 9.3). The GPU's Stream Output
    and list streams use this closed form; the CPU reference (``reference.assembly``) derives
    primitives independently.

    Arguments:
        topology (PrimitiveTopology): the D3D topology.
        kind (str): ``"point"``, ``"line"`` or ``"triangle"``.
        vertices (int): the vertices of one output primitive, adjacency excluded.
        strip (bool): whether it is a strip (strip cuts apply, rules 5.2).
        adjacency (bool): whether it carries adjacency vertices.
        webgpu (str): the wgpu PrimitiveTopology that draws the same primitives, adjacency
            dropped.
        step (int): positions between the first vertices of consecutive primitives. Default 1.
        span (int): the last position one primitive touches, adjacency included. Default 0.
        picks (tuple): the positions, relative to ``step * p``, of the output vertices of even
            and of odd primitives, in D3D's order. Default ``((0,), (0,))``.
    """

    topology: PrimitiveTopology
    kind: str  # "point", "line" or "triangle"
    vertices: int  # vertices of one output primitive (adjacency excluded)
    strip: bool
    adjacency: bool
    webgpu: str  # wgpu PrimitiveTopology drawing the same primitives (adjacency dropped)
    step: int = 1
    span: int = 0
    picks: tuple = ((0,), (0,))  # (even primitives, odd primitives)

    @property
    def name(self) -> str:
        """The topology's D3D name without prefix (``TRIANGLESTRIP_ADJ``)."""
        return self.topology.name

    @property
    def webgpu_list(self) -> str:
        """The WebGPU list topology of the same primitives (a strip drawn from a list)."""
        return self.webgpu.replace("-strip", "-list")

    def primitive_count(self, run_length: int) -> int:
        """Complete primitives in a cut-free run of vertices; the incomplete rest is dropped
        (rules 4.9).

        Arguments:
            run_length (int): the vertices of the run.

        Returns:
            ``(run_length - 1 - span) // step + 1``, or 0 when ``run_length <= span``.
        """
        if run_length <= self.span:
            return 0
        return (run_length - 1 - self.span) // self.step + 1


_T = PrimitiveTopology
# fmt: off
TOPOLOGIES: dict[PrimitiveTopology, TopologyInfo] = {row.topology: row for row in [
    #             topology              kind        verts strip  adj    webgpu       step span picks (even, odd)  # noqa: E501
    TopologyInfo(_T.POINTLIST,         "point",    1,   False, False, "point-list",     1, 0, ((0,), (0,))),  # noqa: E501
    TopologyInfo(_T.LINELIST,          "line",     2,   False, False, "line-list",      2, 1, ((0, 1), (0, 1))),  # noqa: E501
    TopologyInfo(_T.LINESTRIP,         "line",     2,   True,  False, "line-strip",     1, 1, ((0, 1), (0, 1))),  # noqa: E501
    TopologyInfo(_T.TRIANGLELIST,      "triangle", 3,   False, False, "triangle-list",  3, 2, ((0, 1, 2), (0, 1, 2))),  # noqa: E501
    # D3D strip order: odd triangles swap their last two vertices (rules 9.3).
    TopologyInfo(_T.TRIANGLESTRIP,     "triangle", 3,   True,  False, "triangle-strip", 1, 2, ((0, 1, 2), (0, 2, 1))),  # noqa: E501
    TopologyInfo(_T.LINELIST_ADJ,      "line",     2,   False, True,  "line-list",      4, 3, ((1, 2), (1, 2))),  # noqa: E501
    TopologyInfo(_T.LINESTRIP_ADJ,     "line",     2,   True,  True,  "line-list",      1, 3, ((1, 2), (1, 2))),  # noqa: E501
    TopologyInfo(_T.TRIANGLELIST_ADJ,  "triangle", 3,   False, True,  "triangle-list",  6, 5, ((0, 2, 4), (0, 2, 4))),  # noqa: E501
    TopologyInfo(_T.TRIANGLESTRIP_ADJ, "triangle", 3,   True,  True,  "triangle-list",  2, 5, ((0, 2, 4), (0, 4, 2))),  # noqa: E501
]}
# fmt: on
"""The topologies gpuia draws, one :class:`TopologyInfo` per :class:`PrimitiveTopology`
member other than UNDEFINED."""


def topology_info(value: PrimitiveTopology | str | int) -> TopologyInfo:
    """The row of a topology. UNDEFINED and patch lists are refused: a draw needs a topology,
    and gpuia has no tessellation stages.

    Arguments:
        value: the topology, in any form :meth:`PrimitiveTopology.of` takes (member, name or
            D3D value).

    Returns:
        Its :class:`TopologyInfo` row of :data:`TOPOLOGIES`.

    Raises:
        ValueError: ``value`` names no topology, or names UNDEFINED (callers that take a
            topology from users, such as :func:`gpuia.reference.run_ia` and the case reader,
            re-raise it as :class:`~gpuia.errors.InvalidDescError`).
    """
    topo = PrimitiveTopology.of(value)
    if topo not in TOPOLOGIES:
        raise ValueError(f"{topo.name} cannot be drawn: set a point, line or triangle topology")
    return TOPOLOGIES[topo]
