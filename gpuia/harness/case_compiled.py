"""Compiled shaders in a case file: ``{"dxbc": DATA}`` or ``{"dxbc_file": "path"}`` as a
``vertex_shader`` or ``geometry_shader`` (docs/case-format.md, "Compiled shaders"), linked with
the rest of the case as CreateGraphicsPipelineState links them.

:func:`is_compiled` says whether a shader object is one of these forms; :func:`case_container`
reads it (a DXBC or DXIL container, :func:`gpuia.d3d.container.read_container`);
:func:`link_compiled` makes the pipeline's linkage checks of a case with at least one compiled
shader (:mod:`gpuia.d3d.linkage`): the input layout against the vertex shader's input rows (rules
3.7, 3.8), a geometry shader's inputs against the vertex shader's outputs (register by register
where both are compiled, rules 14.1; by semantic where one is HLSL or WGSL, rules 13.9), and the
Stream Output declaration against the outputs of each stream (rules 8.2, 8.3, 13.7). This module
reads compiled shaders for their signatures only: drawing one is not its concern.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ContainerError, InvalidDescError
from .case_data import COMPILED_FORMS, case_container_bytes

if TYPE_CHECKING:
    from ..d3d.container import ShaderContainer
    from ..d3d.feature_level import FeatureLevel
    from ..d3d.layout import InputLayout
    from ..d3d.signature import Member, ShaderSignature
    from ..d3d.topology import TopologyInfo

__all__ = ["COMPILED_FORMS", "is_compiled", "case_container", "link_compiled"]



def is_compiled(obj: object) -> bool:
    """Whether a case's shader object is a compiled form (has a key of
    :data:`COMPILED_FORMS`)."""
    return isinstance(obj, dict) and any(k in obj for k in COMPILED_FORMS)


def case_container(obj: dict, where: str, base: Path) -> ShaderContainer:
    """Read a compiled shader object (:func:`.case_data.case_container_bytes`) as a container.

    Raises:
        CaseError: as :func:`.case_data.case_container_bytes`.
        InvalidDescError: bytes that are no container, or a truncated or inconsistent one (at
            ``where``: the chunk and byte offset).
    """
    from ..d3d.container import read_container

    data, _ = case_container_bytes(obj, where, base)
    try:
        return read_container(data)
    except ContainerError as e:
        raise InvalidDescError(f"{where}: {e.where}", e.field, e.value, e.rule) from None


def _vertex(vs: Any, layout: InputLayout, base: Path
            ) -> tuple[ShaderSignature, ShaderContainer | None]:
    """The vertex shader's signature (pass-through: the layout's elements as outputs) and
    its container where compiled; the layout checked against its inputs (rules 3.8)."""
    from ..d3d.linkage import vertex_signature
    from ..wgsl.signature import parse_vertex_shader, pass_through_signature
    from .case_shader import case_vertex_shader

    if vs is None:
        return pass_through_signature(layout), None
    container = case_container(vs, "vertex_shader", base) if is_compiled(vs) else None
    signature: ShaderSignature | None
    if container is not None:
        signature = vertex_signature(container, "vertex_shader")
    else:
        hlsl = case_vertex_shader(vs, base)
        signature = hlsl.signature if hlsl is not None else parse_vertex_shader(
            vs["wgsl"], vs.get("entry_point"))
    assert signature is not None  # compile_shader reads every shader's signature
    signature.check_layout(layout)
    return signature, container


def _geometry(gs: Any, vs: ShaderSignature, vs_container: ShaderContainer | None,
              topology: TopologyInfo, level: FeatureLevel, base: Path
              ) -> Sequence[Sequence[Member]]:
    """The geometry shader linked with the vertex shader and the draw's topology (rules 13.2,
    13.7, 13.9, 14.1); each stream's output record."""
    from ..d3d.geometry import check_feature_level, check_linkage, check_topology
    from ..d3d.linkage import (
        check_stages,
        container_declaration,
        semantic_inputs,
        stream_members,
    )
    from .case_geometry import case_geometry_shader, check_geometry

    where = "geometry_shader"
    if not is_compiled(gs):
        shader = case_geometry_shader(gs, base)
        check_geometry(shader, topology, vs.outputs)
        check_feature_level(shader.declaration, level)
        return shader.stream_members
    container = case_container(gs, where, base)
    streams = stream_members(container, where)
    declaration = container_declaration(container, where)
    if declaration is not None:
        check_topology(declaration, topology)
        check_feature_level(declaration, level)
    if vs_container is not None:
        check_stages(vs_container.output_signature, container.input_signature, "geometry")
    else:  # an HLSL or WGSL vertex shader's outputs have no registers: linked by semantic
        check_linkage(semantic_inputs(container.input_signature, "geometry", where),
                      vs.outputs, where)
    return streams


def link_compiled(doc: dict, layout: InputLayout, topology: TopologyInfo,
                  level: FeatureLevel, base: Path) -> None:
    """The linkage checks of a case whose ``vertex_shader`` or ``geometry_shader`` is compiled
    (module docstring), in pipeline order: layout, geometry shader, Stream Output.

    Raises:
        CaseError: a malformed shader object or section.
        InvalidDescError: what CreateGraphicsPipelineState refuses, naming the element or
            input, its register and the rule.
    """
    from .case_stream_output import stream_output_section

    vs, vs_container = _vertex(doc.get("vertex_shader"), layout, base)
    streams = None
    if doc.get("geometry_shader") is not None:
        streams = _geometry(doc["geometry_shader"], vs, vs_container, topology, level, base)
    if doc.get("stream_output") is not None:
        stream_output_section(doc["stream_output"], lambda: vs, level, streams)
