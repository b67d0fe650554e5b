"""Shader signatures in D3D terms: the members a vertex or pixel shader reads and writes, each with
its semantic name and index, scalar type and component count. Data only: the WGSL parser
(:mod:`gpuia.wgsl.signature`) and the HLSL front end (:mod:`gpuia.hlsl`) produce these values;
layouts, Stream Output declarations and every path consume them."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidDescError
from .layout import InputLayout

__all__ = ["Member", "ShaderSignature", "SYSTEM_INPUTS"]

SYSTEM_INPUTS = ("SV_VERTEXID", "SV_INSTANCEID")
"""System-generated inputs: never taken from the input layout (rulebook 3.8)."""


@dataclass(frozen=True)
class Member:
    """One struct member: its WGSL name, the semantic it stands for, its scalar type and
    component count, and the ``@interpolate(...)`` argument written on it (pixel inputs: how
    the rasterizer interpolates it; None is WGSL's and D3D's default, perspective-correct at
    the pixel center)."""

    name: str
    semantic: str  # upper-case semantic name
    index: int
    type: str  # "float", "uint" or "sint"
    components: int
    wgsl_type: str
    interpolation: str | None = None

    @property
    def key(self) -> str:
        return f"{self.semantic}{self.index}"


@dataclass(frozen=True)
class ShaderSignature:
    """The parsed interface of a vertex shader and the module text gpuia compiles."""

    entry_point: str
    input_struct: str | None
    output_struct: str
    inputs: tuple[Member, ...]
    outputs: tuple[Member, ...]
    source: str  # the module with @vertex removed and IO attributes stripped from its structs

    def input(self, key: str) -> Member | None:
        for m in self.inputs:
            if m.key == key:
                return m
        return None

    def output(self, key: str) -> Member | None:
        for m in self.outputs:
            if m.key == key:
                return m
        return None

    def uses(self, system_value: str) -> bool:
        return any(m.semantic == system_value for m in self.inputs)

    def check_layout(self, layout: InputLayout) -> None:
        """Every non-system input must be provided by a layout element (rulebook 3.8);
        extra elements are allowed."""
        keys = set(layout.keys)
        for m in self.inputs:
            if m.semantic in SYSTEM_INPUTS:
                continue
            if m.key not in keys:
                raise InvalidDescError(
                    "vertex shader", "input", m.name,
                    f"the shader reads {m.key} but the input layout has no element with "
                    f"that semantic (every vertex shader input must be provided; rulebook 3.8)")

