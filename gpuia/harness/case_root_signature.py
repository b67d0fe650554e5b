"""The ``root_signature`` of a case file (docs/case-format.md, docs/resources.md "Root
signatures"), or the one its vertex shader carries.

Guaranteed: :func:`case_root_signature` returns None for a case without a root signature
anywhere (gpuia then binds through the implied one, as before), else a
:class:`CaseRootSignature`: the root signature, validated as CreateRootSignature validates it
(rules 16.1-16.8), and each register the case's HLSL shaders read with the range that holds it
(rules 16.9). The case's own field wins; without it, an HLSL vertex shader's
``[RootSignature(...)]`` attribute (its string literal or ``#define`` in the shader's file, or a
define of the compile), else a compiled vertex shader's ``RTS0`` chunk. The field is a JSON
object (:mod:`gpuia.d3d.root_signature.json_form`), an HLSL root signature string (version 1.1,
or ``{"hlsl": "...", "version": "1.0"}``), or ``{"blob_file": "rs.bin"}``: a serialized root
signature (a container with an ``RTS0`` chunk, or the chunk's data), relative to the case.
Refused: a malformed field (:class:`~gpuia.errors.CaseError`), a root signature D3D12 rejects,
or a register no range holds (:class:`~gpuia.errors.InvalidDescError`); a register gpuia cannot
bind, such as a cbuffer larger than the root constants holding it
(:class:`~gpuia.errors.UnsupportedError`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..d3d.root_signature import (
    RootSignature,
    ShaderBinding,
    container_root_signature,
    entry_root_signature,
    parse_root_signature,
    read_root_signature_blob,
    root_signature_from_json,
    validate,
)
from ..d3d.root_signature.pipeline import check_shaders, static_samplers
from ..d3d.root_signature.validation import RegisterRange
from ..d3d.textures import SamplerDesc
from ..errors import CaseError, ContainerError, GpuiaError, InvalidDescError, UnsupportedError

__all__ = ["CaseRootSignature", "case_root_signature"]

_MAX_BLOB = 1 << 20


@dataclass(frozen=True)
class CaseRootSignature:
    """A case's root signature and what it holds of the shaders: ``covered`` lists
    (stage, :class:`ShaderBinding`, :class:`RegisterRange`) per register the shaders read."""

    root_signature: RootSignature
    covered: tuple[tuple[str, ShaderBinding, RegisterRange], ...]

    def static_samplers(self, hlsl, gs=None) -> dict[int, SamplerDesc]:
        """{register: desc} of the samplers of the HLSL vertex shader ``hlsl`` and geometry
        shader ``gs`` (None: none) that static samplers visible to their stages hold
        (:func:`gpuia.d3d.root_signature.pipeline.static_samplers`: refused with
        UnsupportedError for a field gpuia does not sample, and for a register both shaders
        read through different static samplers: gpuia binds one sampler per register)."""
        registers = [s.register for s in hlsl.samplers] if hlsl is not None else []
        held = static_samplers(self.root_signature, registers)
        gs_registers = [s.register for s in gs.samplers] if gs is not None else []
        gs_held = static_samplers(self.root_signature, gs_registers, "geometry")
        for register in sorted(set(gs_held) | (set(registers) & set(gs_registers))):
            if register in registers and held.get(register) != gs_held.get(register):
                raise UnsupportedError(f"root_signature: s{register}: the vertex and geometry "
                                       f"shaders read it through different static samplers; "
                                       f"gpuia binds one sampler per register for both")
            if register in gs_held:
                held[register] = gs_held[register]
        return held


def _from_field(value, base: Path) -> RootSignature:
    where = "root_signature"
    if isinstance(value, str):
        return parse_root_signature(value, "1.1", origin=where)
    if isinstance(value, dict) and "hlsl" in value:
        if set(value) - {"hlsl", "version"} or not isinstance(value["hlsl"], str):
            raise CaseError(where, "expected {\"hlsl\": \"...\", \"version\": \"1.0\"|\"1.1\"}")
        version = str(value.get("version", "1.1"))
        if version not in ("1.0", "1.1"):
            raise InvalidDescError(where, "version", value.get("version"), "expected 1.0 or 1.1")
        return parse_root_signature(value["hlsl"], version, origin=where)
    if isinstance(value, dict) and "blob_file" in value:
        from ..util.files import read_input

        if set(value) != {"blob_file"} or not isinstance(value["blob_file"], str):
            raise CaseError(where, "expected {\"blob_file\": \"path\"} alone")
        try:
            data = read_input(base / value["blob_file"], _MAX_BLOB)
        except GpuiaError as e:
            raise CaseError(f"{where}.blob_file", str(e)) from None
        try:
            return read_root_signature_blob(data, origin=value["blob_file"])
        except ContainerError as e:
            raise InvalidDescError(f"{where}.blob_file: {e.where}", None, None, e.rule) from None
    return root_signature_from_json(value, where)


def _from_shader(doc: dict, hlsl, base: Path) -> RootSignature | None:
    vs = doc.get("vertex_shader")
    if isinstance(vs, dict) and ("dxbc" in vs or "dxbc_file" in vs):
        from .case_data import case_container_bytes

        data, name = case_container_bytes(vs, "vertex_shader", base)
        return container_root_signature(data, origin=f"RTS0 of {name}")
    if hlsl is None:
        return None
    text = entry_root_signature(hlsl.source, hlsl.entry_point, hlsl.defines)
    if text is None:
        return None
    return parse_root_signature(text, "1.1", origin=f"[RootSignature] of {hlsl.entry_point}")


def case_root_signature(doc: dict, hlsl, gs, base: Path) -> CaseRootSignature | None:
    """The case's root signature (see the module docstring); ``hlsl`` and ``gs`` the compiled
    vertex and geometry shaders (None where absent)."""
    rs = _from_field(doc["root_signature"], base) if "root_signature" in doc else \
        _from_shader(doc, hlsl, base)
    if rs is None:
        return None
    validate(rs)
    return CaseRootSignature(rs, tuple(check_shaders(rs, [("vertex", hlsl), ("geometry", gs)])))
