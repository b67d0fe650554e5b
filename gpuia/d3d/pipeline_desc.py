"""The parts of ``D3D12_GRAPHICS_PIPELINE_STATE_DESC`` checked together, as
CreateGraphicsPipelineState and a draw check them (rules section 15).

* :data:`TOPOLOGY_TYPES` names each ``D3D12_PRIMITIVE_TOPOLOGY_TYPE`` and the primitive kind
  of the draw topologies it takes; :func:`topology_type` reads a value of it.
* :func:`check_draw_topology`: a draw's topology must be of the pipeline state's type (rules
  15.1; the debug layer's ``PRIMITIVE_TOPOLOGY_MISMATCH_PIPELINE_STATE``).
* :func:`check_gs_topology_type`: a geometry shader's input primitive must be of the type
  (rules 15.2; ``E_INVALIDARG`` from CreateGraphicsPipelineState).
* :func:`check_render_target_count`: ``RTVFormats`` past ``NumRenderTargets`` must be
  ``UNKNOWN`` (rules 15.3).

Every refusal is an :class:`~gpuia.errors.InvalidDescError` naming the field, the value and
the rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InvalidDescError
from .geometry import GeometryDeclaration
from .topology import TopologyInfo

__all__ = ["TOPOLOGY_TYPES", "MAX_RENDER_TARGETS", "topology_type", "type_of_kind",
           "check_draw_topology", "check_gs_topology_type", "check_render_target_count",
           "is_unknown"]

# fmt: off
TOPOLOGY_TYPES = {
    #  D3D12_PRIMITIVE_TOPOLOGY_TYPE  (value, kind of the topologies and GS inputs it takes)
    "UNDEFINED": (0, None),
    "POINT":     (1, "point"),
    "LINE":      (2, "line"),
    "TRIANGLE":  (3, "triangle"),
    "PATCH":     (4, "patch"),
}
"""``D3D12_PRIMITIVE_TOPOLOGY_TYPE`` name -> (its value, the primitive kind of the draw
topologies and geometry shader inputs of that type: a
:attr:`~gpuia.d3d.topology.TopologyInfo.kind`). UNDEFINED takes none; PATCH takes the control
point patch lists, which gpuia does not draw."""
# fmt: on

MAX_RENDER_TARGETS = 8
"""D3D12_SIMULTANEOUS_RENDER_TARGET_COUNT: the entries of ``RTVFormats``."""

_PREFIX = "D3D12_PRIMITIVE_TOPOLOGY_TYPE_"


def topology_type(value: str | int, where: str = "pipeline state") -> str:
    """The :data:`TOPOLOGY_TYPES` name of a ``PrimitiveTopologyType`` value: a name (the
    ``D3D12_PRIMITIVE_TOPOLOGY_TYPE_`` prefix optional, any case) or its integer value.

    Raises:
        InvalidDescError: anything else, naming ``PrimitiveTopologyType`` at ``where``.
    """
    if isinstance(value, str):
        name = value.strip().upper().removeprefix(_PREFIX)
        if name in TOPOLOGY_TYPES:
            return name
    elif isinstance(value, int) and not isinstance(value, bool):
        for name, (number, _) in TOPOLOGY_TYPES.items():
            if number == value:
                return name
    raise InvalidDescError(where, "PrimitiveTopologyType", value,
                           f"expected one of {', '.join(TOPOLOGY_TYPES)} "
                           f"(D3D12_PRIMITIVE_TOPOLOGY_TYPE) or its value 0-4")


def type_of_kind(kind: str) -> str:
    """The topology type whose draws have primitives of ``kind`` (``"point"``, ``"line"``,
    ``"triangle"``): what a pipeline state that gives no type is taken to have."""
    return next(name for name, (_, k) in TOPOLOGY_TYPES.items() if k == kind)


def check_draw_topology(type_name: str, topology: TopologyInfo,
                        where: str = "pipeline state") -> None:
    """Rules 15.1: a draw's primitive topology must be of the pipeline state's
    ``PrimitiveTopologyType``: POINT takes POINTLIST; LINE the line lists and strips, with or
    without adjacency; TRIANGLE the triangle lists and strips, with or without adjacency.

    Raises:
        InvalidDescError: the draw's topology is of another type (UNDEFINED and PATCH take none
            that gpuia draws), naming both.
    """
    kind = TOPOLOGY_TYPES[type_name][1]
    if topology.kind != kind:
        raise InvalidDescError(where, "PrimitiveTopologyType", type_name,
                               f"takes no {topology.name} draw ({topology.kind} primitives are "
                               f"of type {type_of_kind(topology.kind)}): a draw's topology must "
                               f"be of its pipeline state's type (D3D12 debug layer "
                               f"PRIMITIVE_TOPOLOGY_MISMATCH_PIPELINE_STATE #611; rules 15.1)")


def check_gs_topology_type(type_name: str, declaration: GeometryDeclaration,
                           where: str = "pipeline state") -> None:
    """Rules 15.2: a geometry shader's input primitive must be of the pipeline state's
    ``PrimitiveTopologyType``: ``point`` POINT, ``line`` and ``lineadj`` LINE, ``triangle``
    and ``triangleadj`` TRIANGLE.

    Raises:
        InvalidDescError: another type (UNDEFINED and PATCH take no geometry shader input
            without tessellation), naming the input primitive and the type.
    """
    gs = declaration.input
    if TOPOLOGY_TYPES[type_name][1] != gs.kind:
        raise InvalidDescError(where, "PrimitiveTopologyType", type_name,
                               f"the geometry shader's input primitive {gs.name} is of type "
                               f"{type_of_kind(gs.kind)}: CreateGraphicsPipelineState refuses "
                               f"a geometry shader whose input is not of the type "
                               f"(E_INVALIDARG, CREATEGRAPHICSPIPELINESTATE_INVALID_PRIMITIVE"
                               f"TOPOLOGY #673; rules 15.2)")


def check_render_target_count(num_render_targets: int, rtv_formats: Sequence[str | None],
                              where: str = "pipeline state") -> None:
    """Rules 15.3: ``NumRenderTargets`` is 0 to 8, and every ``RTVFormats`` entry at or past
    it is ``UNKNOWN`` (None or ``"UNKNOWN"``); entries below it may be any render target
    format, ``UNKNOWN`` included (an unbound target).

    Raises:
        InvalidDescError: a count outside 0-8, more than 8 formats, or a format past the count,
            naming its index.
    """
    if (not isinstance(num_render_targets, int) or isinstance(num_render_targets, bool)
            or not 0 <= num_render_targets <= MAX_RENDER_TARGETS):
        raise InvalidDescError(where, "NumRenderTargets", num_render_targets,
                               f"expected 0-{MAX_RENDER_TARGETS} "
                               f"(D3D12_SIMULTANEOUS_RENDER_TARGET_COUNT; rules 15.3)")
    if len(rtv_formats) > MAX_RENDER_TARGETS:
        raise InvalidDescError(where, "RTVFormats", len(rtv_formats),
                               f"at most {MAX_RENDER_TARGETS} entries (rules 15.3)")
    for i in range(num_render_targets, len(rtv_formats)):
        if not is_unknown(rtv_formats[i]):
            raise InvalidDescError(where, f"RTVFormats[{i}]", rtv_formats[i],
                                   f"NumRenderTargets is {num_render_targets}: the formats of "
                                   f"targets past it must be UNKNOWN (CreateGraphicsPipelineState "
                                   f"returns E_INVALIDARG; rules 15.3)")


def is_unknown(fmt: str | None) -> bool:
    """Whether an ``RTVFormats`` entry is ``DXGI_FORMAT_UNKNOWN`` (None, or its name with the
    prefix optional)."""
    return fmt is None or (isinstance(fmt, str)
                           and fmt.strip().upper().removeprefix("DXGI_FORMAT_") == "UNKNOWN")
