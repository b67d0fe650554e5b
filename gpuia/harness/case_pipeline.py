"""The ``pipeline_state`` section of a case file (``docs/case-format.md``): the parts of
``D3D12_GRAPHICS_PIPELINE_STATE_DESC`` the Input Assembler, the shaders and Stream Output use,
given as one object and validated together as CreateGraphicsPipelineState validates them.

The section holds the fields a case otherwise gives at its top level (:data:`HOISTED`:
``input_layout``, ``vertex_shader``, ``geometry_shader``, ``stream_output``,
``strip_cut_value``, ``root_signature`` (pRootSignature), each in the same form) and those only
a pipeline state has (:data:`OWN`: ``pixel_shader``, ``primitive_topology_type``,
``num_render_targets``, ``rtv_formats``). A field is given once: in ``pipeline_state`` or at the
top level, never both (:func:`hoist` refuses the second, naming both places). :func:`hoist`
moves the section's fields to the top level, where the case reader checks them as it checks a
case without the section (layout against vertex shader, vertex shader against geometry shader,
Stream Output against the last stage before it: rules 3.8, 13.9, 8.3, 14.1), and
:func:`relocate` points a refusal of one of them back into the section. :func:`check_pipeline`
then makes the checks only the section makes possible: the topology type against the draw and
the geometry shader (rules 15.1, 15.2), the render targets (rules 15.3) and the pixel shader's
linkage with the stage before it (rules 13.9, 14.1).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..d3d.pipeline_desc import (
    check_draw_topology,
    check_gs_topology_type,
    check_render_target_count,
    is_unknown,
    topology_type,
)
from ..errors import CaseError, InvalidDescError

if TYPE_CHECKING:
    from ..d3d.signature import Member
    from ..d3d.topology import TopologyInfo

__all__ = ["PIPELINE_KEY", "HOISTED", "OWN", "hoist", "relocate", "check_draw",
           "check_pipeline", "check_compiled_pipeline"]

PIPELINE_KEY = "pipeline_state"
HOISTED = ("input_layout", "vertex_shader", "geometry_shader", "stream_output",
           "strip_cut_value", "root_signature")
"""The section's fields that a case may also give at its top level, in the same form."""
OWN = ("pixel_shader", "primitive_topology_type", "num_render_targets", "rtv_formats")
"""The section's fields that only it has."""

_PIXEL_FORMS = ("wgsl", "hlsl", "hlsl_file", "dxbc", "dxbc_file")


def hoist(doc: dict) -> tuple[dict, dict | None]:
    """The case with its ``pipeline_state`` fields of :data:`HOISTED` moved to the top level.

    Returns:
        (the case without the section, its fields at the top level; the section as written,
        or None without one).

    Raises:
        CaseError: a section that is not an object, holds an unknown key, or gives a field
            the case also gives at its top level (both named).
    """
    pso = doc.get(PIPELINE_KEY)
    if pso is None:
        return doc, None
    if not isinstance(pso, dict):
        raise CaseError(PIPELINE_KEY, "expected an object (D3D12_GRAPHICS_PIPELINE_STATE_DESC's "
                                      "fields)")
    unknown = set(pso) - set(HOISTED) - set(OWN)
    if unknown:
        raise CaseError(PIPELINE_KEY, f"unknown keys {sorted(unknown)} (it takes "
                                      f"{', '.join(HOISTED + OWN)})")
    for key in HOISTED:
        if key in pso and key in doc:
            raise CaseError(f"{PIPELINE_KEY}.{key}",
                            f"the case also gives '{key}' at its top level: a field is given "
                            f"once, in pipeline_state or at the top level (none takes "
                            f"precedence)")
    out = {k: v for k, v in doc.items() if k != PIPELINE_KEY}
    out.update({k: pso[k] for k in HOISTED if k in pso})
    return out, pso


def relocate(err: Exception, pso: dict | None) -> Exception:
    """``err`` (a :class:`CaseError` or :class:`InvalidDescError` the case reader raised) with
    its ``where`` pointed into ``pipeline_state`` when it names a field the section gave;
    ``err`` itself otherwise (and for their subclasses, which keep their own form)."""
    if pso is None or type(err) not in (CaseError, InvalidDescError):
        return err
    where = getattr(err, "where", "")
    key = next((k for k in HOISTED if k in pso and where.startswith(k)), None)
    if key is None:
        return err
    moved = f"{PIPELINE_KEY}.{where}"
    if isinstance(err, InvalidDescError):
        out: Exception = InvalidDescError(moved, err.field, err.value, err.rule)
        out.diagnostics = err.diagnostics  # type: ignore[attr-defined]
        return out
    return CaseError(moved, err.rule)  # type: ignore[attr-defined]


def check_draw(pso: dict | None, topology: TopologyInfo) -> str | None:
    """The checks that need only the section and the draw's topology: the topology type
    against the draw (rules 15.1) and the render targets (rules 15.3). Made before any shader
    is compiled.

    Returns:
        The section's topology type (a :data:`~gpuia.d3d.pipeline_desc.TOPOLOGY_TYPES` name),
        or None where it gives none (the draw's own type is then taken).

    Raises:
        CaseError: a malformed ``num_render_targets`` or ``rtv_formats``.
        InvalidDescError: what D3D12 refuses, naming the field and the rule.
    """
    if pso is None:
        return None
    where = PIPELINE_KEY
    kind = None
    if "primitive_topology_type" in pso:
        kind = topology_type(pso["primitive_topology_type"], f"{where}.primitive_topology_type")
        check_draw_topology(kind, topology, where)
    formats = pso.get("rtv_formats", [])
    if not isinstance(formats, list) or not all(isinstance(f, (str, type(None)))
                                                for f in formats):
        raise CaseError(f"{where}.rtv_formats", "expected a list of DXGI format names")
    count = pso.get("num_render_targets", len(formats))
    check_render_target_count(count, formats, where)
    from ..gpu.targets import target_format

    for i, f in enumerate(formats[:count]):
        if not is_unknown(f):
            try:
                target_format(f, f"RTVFormats[{i}]", depth=False)
            except InvalidDescError as e:
                raise InvalidDescError(where, e.field, e.value, e.rule) from None
    return kind


def check_pipeline(case: Any, pso: dict | None, base: Path) -> None:
    """The section's checks that need the compiled shaders of a loaded ``case``
    (:class:`~gpuia.harness.case.Case`): the geometry shader's input primitive against the
    topology type (rules 15.2) and the pixel shader against the stage before it.

    Raises:
        CaseError: a malformed ``pixel_shader``.
        InvalidDescError: what CreateGraphicsPipelineState refuses, naming the field, the
            input and the rule.
        UnsupportedError: an HLSL pixel shader on a machine without Slang's compiler.
    """
    if pso is None:
        return
    kind = pso.get("primitive_topology_type")
    if case.gs is not None and kind is not None:
        check_gs_topology_type(topology_type(kind), case.gs.declaration, PIPELINE_KEY)
    ps = pso.get("pixel_shader")
    if ps is None:
        return
    if case.gs is not None:
        rasterized = case.so_desc.rasterized_stream if case.so_desc is not None else 0
        records = case.gs.stream_members
        if rasterized >= len(records):
            return  # no stream is rasterized (SO_NO_RASTERIZED_STREAM): the PS reads nothing
        upstream, name = records[rasterized], f"geometry shader's stream {rasterized}"
    else:
        upstream, name = case.shader_signature().outputs, "vertex shader"
    link_pixel(pixel_inputs(ps, base), upstream, name)


def check_compiled_pipeline(doc: dict, pso: dict | None, base: Path) -> None:
    """The section's shader checks for a case whose vertex or geometry shader is compiled
    (after :func:`gpuia.harness.case_compiled.link_compiled` linked the rest): a geometry
    shader's input primitive against the topology type (rules 15.2), and the pixel shader's
    inputs against the outputs of the stage before it, register by register where both are
    compiled (rules 14.1), by semantic otherwise (rules 13.9).

    Raises:
        CaseError, InvalidDescError: as :func:`check_pipeline`.
    """
    from ..d3d.linkage import check_stages, container_declaration, signature_members
    from .case_compiled import case_container, is_compiled
    from .case_geometry import case_geometry_shader

    if pso is None:
        return
    gs, kind = doc.get("geometry_shader"), pso.get("primitive_topology_type")
    gs_container = None if gs is None or not is_compiled(gs) else case_container(
        gs, "geometry_shader", base)
    if gs is not None and kind is not None:
        declaration = (container_declaration(gs_container, "geometry_shader")
                       if gs_container is not None else case_geometry_shader(gs, base).declaration)
        if declaration is not None:
            check_gs_topology_type(topology_type(kind), declaration, PIPELINE_KEY)
    ps = pso.get("pixel_shader")
    if ps is None:
        return
    so = doc.get("stream_output")
    stream = (so.get("rasterized_stream", 0) if isinstance(so, dict) and gs is not None else 0)
    if not isinstance(stream, int) or not 0 <= stream <= 3:
        return  # NO_RASTERIZED_STREAM: the pixel shader reads no stream
    where = f"{PIPELINE_KEY}.pixel_shader"
    upstream = gs_container if gs is not None else (
        case_container(doc["vertex_shader"], "vertex_shader", base)
        if is_compiled(doc.get("vertex_shader")) else None)
    name = f"geometry shader's stream {stream}" if gs is not None else "vertex shader"
    if upstream is not None and is_compiled(ps):
        pixel = case_container(ps, where, base)
        check_stages(upstream.output_signature, pixel.input_signature, "pixel",
                     "geometry shader" if gs is not None else "vertex shader", stream)
        return
    if upstream is not None:
        outputs = signature_members([r for r in upstream.output_signature
                                     if r.stream == stream], where)
    else:  # a compiled vertex shader, then an HLSL geometry shader
        records = case_geometry_shader(gs, base).stream_members
        if stream >= len(records):
            return
        outputs = records[stream]
    link_pixel(pixel_inputs(ps, base), outputs, name)


def pixel_inputs(ps: object, base: Path) -> tuple[Member, ...]:
    """A ``pixel_shader`` object's inputs that an upstream stage must output: ``wgsl`` (and
    ``entry_point``), ``hlsl``/``hlsl_file`` (the fields a vertex shader's HLSL takes) or a
    compiled ``dxbc``/``dxbc_file``; ``SV_Position`` and the inputs the pipeline generates
    (rules 14.2) left out.

    Raises:
        CaseError: a malformed object. InvalidDescError: a shader that does not parse or
            compile. UnsupportedError: HLSL without Slang's compiler.
    """
    where = f"{PIPELINE_KEY}.pixel_shader"
    if not isinstance(ps, dict) or len([k for k in _PIXEL_FORMS if k in ps]) != 1:
        raise CaseError(where, f"expected exactly one of {', '.join(map(repr, _PIXEL_FORMS))}")
    if "dxbc" in ps or "dxbc_file" in ps:
        from ..d3d.linkage import semantic_inputs
        from .case_compiled import case_container

        container = case_container(ps, where, base)
        if container.stage != "pixel":
            raise InvalidDescError(where, "stage", container.stage,
                                   "expected a pixel shader's container")
        members = semantic_inputs(container.input_signature, "pixel", where)
    else:
        from ..wgsl.signature import parse_pixel_shader

        if "wgsl" in ps:
            if not isinstance(ps["wgsl"], str) or set(ps) - {"wgsl", "entry_point"}:
                raise CaseError(where, "a WGSL pixel shader is {\"wgsl\": TEXT} with an "
                                       "optional 'entry_point'")
            text, entry = ps["wgsl"], ps.get("entry_point")
        else:
            from ..hlsl import compile_shader
            from .case_shader import hlsl_source, located

            src = hlsl_source(ps, where, base)
            try:
                shader = compile_shader(src.text, "pixel", src.entry_point, src.defines,
                                        src.matrix_layout, src.file_name, src.include_dirs,
                                        src.source_path)
            except InvalidDescError as e:
                raise located(e, where, "pixel shader") from None
            text, entry = shader.wgsl, shader.wgsl_entry_point
        try:
            members = parse_pixel_shader(text, entry).inputs
        except InvalidDescError as e:
            raise InvalidDescError(f"{where}: {e.where}", e.field, e.value, e.rule) from None
    return tuple(m for m in members if m.semantic != "SV_POSITION")


def link_pixel(inputs: tuple[Member, ...], upstream, name: str) -> None:
    """Every pixel shader input is an output of the stage before it (``name``: the vertex
    shader, or the geometry shader's rasterized stream), by semantic name and index, of its
    type class, with at least its components (rules 13.9, 14.1 by semantic).

    Raises:
        InvalidDescError: the first input that is not, naming it and the outputs there are.
    """
    where = f"{PIPELINE_KEY}.pixel_shader"
    outputs = {(m.semantic, m.index): m for m in upstream}
    for m in inputs:
        out = outputs.get((m.semantic, m.index))
        if out is None:
            names = ", ".join(o.key for o in upstream) or "none"
            raise InvalidDescError(where, "input", m.key,
                                   f"the {name} outputs no {m.key} (its outputs: {names}): "
                                   f"every pixel shader input must be one (rules 13.9, 14.1)")
        if out.type != m.type:
            raise InvalidDescError(where, "input", m.key,
                                   f"reads {m.type} components; the {name} outputs "
                                   f"{out.type} ones (rules 14.1)")
        if m.components > out.components:
            raise InvalidDescError(where, "input", m.key,
                                   f"reads {m.components} components; the {name} outputs "
                                   f"{out.components} (rules 14.1)")
