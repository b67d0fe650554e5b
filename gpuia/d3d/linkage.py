"""Linkage of compiled shaders' signatures, as CreateGraphicsPipelineState checks it.

A compiled shader (a DXBC or DXIL container, :func:`gpuia.d3d.container.read_container`) gives
each signature row its register and masks, so its linkage is checked as D3D12 checks it:

* the input layout feeds the vertex shader by semantic: :func:`vertex_signature` turns the
  container's rows into the :class:`~gpuia.d3d.signature.ShaderSignature` every other path
  links a layout with (:meth:`~gpuia.d3d.signature.ShaderSignature.check_layout`, rules 3.7,
  3.8; a type class the format does not deliver is a warning, rules 2.12), each input carrying
  its register;
* a downstream stage's inputs (a pixel or geometry shader's) link with the upstream stage's
  outputs register by register (:func:`link_stages`, rules 14.1): the same semantic and index,
  in the same register, with the same system value and component type, reading no component
  the output does not have. Inputs the pipeline generates (:data:`GENERATED_INPUTS`) need no
  output;
* Stream Output entries name outputs of their stream (:func:`stream_members` gives a geometry
  shader's rows per stream as :func:`gpuia.d3d.so_declaration.resolve_stream_output` takes them;
  rules 8.2, 8.3, 13.7).

Every refusal is an :class:`~gpuia.errors.InvalidDescError` naming the input (semantic and
register), the field and the rule, with the D3D12 debug layer's message for it
(:data:`LINK_RULES`); what D3D12 only warns about is a :class:`LinkFinding` of severity
``warning``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidDescError
from .container import ShaderContainer
from .container.signatures import SignatureParameter
from .geometry import GeometryDeclaration
from .signature import Member, ShaderSignature

__all__ = ["LinkRule", "LinkFinding", "LINK_RULES", "GENERATED_INPUTS", "NO_REGISTER",
           "SHADER_TYPES", "STREAM_TOPOLOGIES", "signature_members", "vertex_signature",
           "stream_members", "container_declaration", "semantic_inputs",
           "link_stages", "check_stages"]

NO_REGISTER = 0xFFFFFFFF
"""The register of a row that has none (SV_Depth, a geometry shader's SV_PrimitiveID)."""

SHADER_TYPES = {"FLOAT32": ("float", "f32"), "FLOAT16": ("float", "f16"),
                "UINT32": ("uint", "u32"), "UINT16": ("uint", "u32"),
                "SINT32": ("sint", "i32"), "SINT16": ("sint", "i32")}
"""A row's component type -> the type class a layout's format is compared with (rules 2.12)
and the WGSL scalar shown for it. 64-bit and UNKNOWN rows are no stage's interface values."""

GENERATED_INPUTS = {
    "pixel": ("PRIMITIVE_ID", "IS_FRONT_FACE", "SAMPLE_INDEX", "COVERAGE", "INNER_COVERAGE",
              "BARYCENTRICS", "SHADINGRATE"),
    "geometry": ("PRIMITIVE_ID",),
}
"""System values the pipeline generates for a stage's inputs, by stage: such an input needs
no upstream output (rules 14.2; a pixel shader's SV_PrimitiveID is the geometry shader's
output where it writes one)."""


@dataclass(frozen=True)
class LinkRule:
    """One linkage rule: the D3D12 debug layer's message for its breach (the suffix of
    ``D3D12_MESSAGE_ID_CREATEGRAPHICSPIPELINESTATE_SHADER_LINKAGE_``, and its number), whether
    D3D12 refuses the pipeline state (``error``) or the debug layer only warns, and the rule
    in words."""

    message: str
    number: int
    severity: str
    text: str


# fmt: off
LINK_RULES = {
    "semantic":       LinkRule("SEMANTICNAME_NOT_FOUND", 666, "error",
                               "every input must be an output of the stage before"),
    "register":       LinkRule("REGISTERINDEX", 660, "error",
                               "an input must be in the register of its output"),
    "system_value":   LinkRule("SYSTEMVALUE", 663, "error",
                               "an input must have its output's system value"),
    "component_type": LinkRule("COMPONENTTYPE", 661, "error",
                               "an input must have its output's component type"),
    "mask":           LinkRule("REGISTERMASK", 662, "error",
                               "an input's components must be a subset of its output's"),
    "never_written":  LinkRule("NEVERWRITTEN_ALWAYSREADS", 664, "warning",
                               "the input always reads a component the output never writes: "
                               "its value is undefined"),
    "min_precision":  LinkRule("MINPRECISION", 665, "warning",
                               "the input's minimum precision differs from its output's"),
}
"""The checks of :func:`link_stages`, in the order they are made: D3D12 refuses the errors
(rules 14.1); its debug layer reports the warnings, which gpuia does not refuse (rules 14.3)."""
# fmt: on


@dataclass(frozen=True)
class LinkFinding:
    """A breach of a :class:`LinkRule`: where (``pixel shader input TEXCOORD1 (register 2)``),
    the field and value, the rule's key in :data:`LINK_RULES` and the sentence naming both
    rows."""

    where: str
    field: str
    value: object
    rule: str
    detail: str

    @property
    def severity(self) -> str:
        return LINK_RULES[self.rule].severity

    @property
    def text(self) -> str:
        """The detail, the message D3D12's debug layer gives and the rule number."""
        r = LINK_RULES[self.rule]
        rule = "14.1" if r.severity == "error" else "14.3"
        return f"{self.detail}: {r.text} (D3D12 {r.message} #{r.number}; rules {rule})"

    def error(self) -> InvalidDescError:
        return InvalidDescError(self.where, self.field, self.value, self.text)


def _mask(mask: int) -> str:
    return "".join("xyzw"[i] for i in range(4) if mask >> i & 1) or "none"


def _components(mask: int) -> int:
    return bin(mask & 0xF).count("1")


def signature_members(rows: Sequence[SignatureParameter], where: str) -> tuple[Member, ...]:
    """Signature rows as :class:`~gpuia.d3d.signature.Member` values: semantic upper-cased,
    components the bits of the mask, the type class of :data:`SHADER_TYPES`, the register kept
    (None for :data:`NO_REGISTER`).

    Raises:
        InvalidDescError: a row of a component type no stage interface has (UNKNOWN, 64-bit),
            naming it at ``where``.
    """
    out = []
    for row in rows:
        if row.component_type not in SHADER_TYPES:
            raise InvalidDescError(where, f"{row.semantic_name}{row.semantic_index}",
                                   row.component_type,
                                   f"expected a component type of {', '.join(SHADER_TYPES)}")
        kind, scalar = SHADER_TYPES[row.component_type]
        n = _components(row.mask)
        out.append(Member(row.semantic_name, row.semantic_name.upper(), row.semantic_index,
                          kind, n, scalar if n == 1 else f"vec{n}<{scalar}>",
                          register=None if row.register == NO_REGISTER else row.register))
    return tuple(out)


def _stage(container: ShaderContainer, stage: str, where: str) -> None:
    if container.stage != stage:
        raise InvalidDescError(where, "stage", container.stage,
                               f"expected a {stage} shader's container")


def vertex_signature(container: ShaderContainer, where: str = "vertex shader"
                     ) -> ShaderSignature:
    """A compiled vertex shader's signature: its input rows (what the input layout must feed,
    rules 3.8) and output rows as :func:`signature_members`, no source.

    Raises:
        InvalidDescError: a container of another stage; a row :func:`signature_members`
            refuses.
    """
    _stage(container, "vertex", where)
    return ShaderSignature("main", None, "", signature_members(container.input_signature, where),
                           signature_members(container.output_signature, where), "")


def stream_members(container: ShaderContainer, where: str = "geometry shader"
                   ) -> tuple[tuple[Member, ...], ...]:
    """A compiled geometry shader's output rows, one record per stream from 0 to the last
    stream its program declares (a stream without rows is an empty record), as
    :func:`gpuia.d3d.so_declaration.resolve_stream_output` names them (rules 8.3, 13.7).

    Raises:
        InvalidDescError: a container of another stage; a row :func:`signature_members`
            refuses.
    """
    _stage(container, "geometry", where)
    rows = container.output_signature
    declared = [s for s, _ in container.geometry.output_topology] if container.geometry else []
    count = max([r.stream for r in rows] + declared + [0]) + 1
    return tuple(signature_members([r for r in rows if r.stream == s], where)
                 for s in range(count))


def semantic_inputs(rows: Sequence[SignatureParameter], stage: str, where: str
                    ) -> tuple[Member, ...]:
    """A compiled ``stage``'s input rows as :func:`signature_members`, less its
    :data:`GENERATED_INPUTS`: what an HLSL or WGSL stage before it, whose outputs have no
    registers, must output by semantic (rules 13.9, 14.2)."""
    generated = GENERATED_INPUTS.get(stage, ())
    return signature_members([r for r in rows if r.system_value_type not in generated], where)


STREAM_TOPOLOGIES = {"POINTLIST": "PointStream", "LINESTRIP": "LineStream",
                     "TRIANGLESTRIP": "TriangleStream"}
"""A geometry shader program's output topology -> the HLSL stream type that declares it."""


def container_declaration(container: ShaderContainer, where: str = "geometry shader"
                          ) -> GeometryDeclaration | None:
    """A compiled geometry shader's declarations as a
    :class:`~gpuia.d3d.geometry.GeometryDeclaration`, checked as an HLSL shader's are (rules
    13.3, 13.4, 13.7); None where the container does not hold the input primitive or the
    maximum vertex count (a DXIL container without PSV0 runtime information of version 1). The
    output scalars of a stream are its rows' components.

    Raises:
        InvalidDescError: a container of another stage; declarations D3D refuses.
    """
    streams = stream_members(container, where)
    d = container.geometry
    if d is None or d.input_primitive is None or d.max_vertex_count is None:
        return None
    kinds = dict(d.output_topology)
    return GeometryDeclaration(
        d.input_primitive, d.max_vertex_count,
        tuple(STREAM_TOPOLOGIES[kinds.get(s, "POINTLIST")] for s in range(len(streams))),
        tuple(max(1, sum(m.components for m in record)) for record in streams),
        d.instance_count or 1, where)


def link_stages(outputs: Sequence[SignatureParameter], inputs: Sequence[SignatureParameter],
                stage: str, upstream: str = "vertex shader", stream: int = 0
                ) -> list[LinkFinding]:
    """Link a stage's input rows with the rows the stage before outputs on ``stream`` (a
    geometry shader's rasterized stream; 0 otherwise), in the input signature's order, as
    CreateGraphicsPipelineState does (rules 14.1). Each input other than the
    :data:`GENERATED_INPUTS` of ``stage`` (``"pixel"``, ``"geometry"``) that no output
    provides, and each rows' difference of :data:`LINK_RULES`, is a finding; outputs no input
    reads are allowed.

    Returns:
        The findings, errors and warnings, in input order.
    """
    by_key = {(r.semantic_name.upper(), r.semantic_index): r for r in outputs
              if r.stream == stream}
    out: list[LinkFinding] = []
    for row in inputs:
        key = (row.semantic_name.upper(), row.semantic_index)
        where = f"{stage} shader input {key[0]}{key[1]}" + (
            "" if row.register == NO_REGISTER else f" (register {row.register})")
        src = by_key.get(key)
        if src is None:
            if row.system_value_type not in GENERATED_INPUTS.get(stage, ()):
                names = ", ".join(f"{r.semantic_name}{r.semantic_index}"
                                  for r in by_key.values()) or "none"
                out.append(LinkFinding(where, "SemanticName", row.semantic_name, "semantic",
                                       f"the {upstream} outputs no {key[0]}{key[1]} "
                                       f"(its outputs: {names})"))
            continue
        out += _compare(where, row, src, upstream)
    return out


def _compare(where: str, row: SignatureParameter, src: SignatureParameter,
             upstream: str) -> list[LinkFinding]:
    """The :data:`LINK_RULES` breaches of one input ``row`` and its output ``src``."""
    said = f"the {upstream} outputs it"
    if row.register != src.register:
        return [LinkFinding(where, "Register", row.register, "register",
                            f"{said} in register {src.register}")]
    found = []
    if row.system_value_type != src.system_value_type:
        found.append(LinkFinding(where, "SystemValueType", row.system_value_type,
                                 "system_value", f"{said} as {src.system_value_type}"))
    if row.component_type != src.component_type:
        found.append(LinkFinding(where, "ComponentType", row.component_type, "component_type",
                                 f"{said} as {src.component_type}"))
    if row.mask & ~src.mask & 0xF:
        found.append(LinkFinding(where, "Mask", _mask(row.mask), "mask",
                                 f"{said} with components {_mask(src.mask)}"))
    never = row.read_write_mask & src.read_write_mask & src.mask & 0xF
    if never:
        found.append(LinkFinding(where, "ReadWriteMask", _mask(row.read_write_mask),
                                 "never_written", f"{said} and never writes {_mask(never)}"))
    if row.min_precision != src.min_precision:
        found.append(LinkFinding(where, "MinPrecision", row.min_precision, "min_precision",
                                 f"{said} at {src.min_precision}"))
    return found


def check_stages(outputs: Sequence[SignatureParameter], inputs: Sequence[SignatureParameter],
                 stage: str, upstream: str = "vertex shader", stream: int = 0
                 ) -> list[LinkFinding]:
    """:func:`link_stages`, refusing its first error.

    Returns:
        The warnings.

    Raises:
        InvalidDescError: the first input D3D12 refuses, naming the input, its register, the
            field, the rule and the debug layer's message.
    """
    found = link_stages(outputs, inputs, stage, upstream, stream)
    for f in found:
        if f.severity == "error":
            raise f.error()
    return found
