"""Shader signatures in D3D terms: the members a vertex or pixel shader reads and writes, each with
its semantic name and index, scalar type and component count. Data only: the WGSL parser
(:mod:`gpuia.wgsl.signature`) and the HLSL front end (:mod:`gpuia.hlsl`) produce these values;
layouts, Stream Output declarations and every path consume them."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidDescError
from .layout import InputLayout

__all__ = ["Member", "ShaderSignature", "SYSTEM_INPUTS", "SYSTEM_OUTPUTS"]

SYSTEM_INPUTS = ("SV_VERTEXID", "SV_INSTANCEID")
"""System-generated inputs: never taken from the input layout (rules 3.8)."""
SYSTEM_OUTPUTS = {"SV_VERTEXID": 1, "SV_INSTANCEID": 1}
"""System values a vertex shader can stream out, with their component counts."""


@dataclass(frozen=True)
class Member:
    """One struct member: its WGSL name, the semantic it stands for, its scalar type and
    component count, and the ``@interpolate(...)`` argument written on it (pixel inputs: how
    the rasterizer interpolates it; None is WGSL's and D3D's default, perspective-correct at
    the pixel center). A frozen value.

    Arguments:
        name (str): the member's name in the shader (``TEXCOORD1``, ``SV_Position``).
        semantic (str): the upper-case semantic name (``TEXCOORD``).
        index (int): the semantic index (1).
        type (str): the scalar type: ``"float"``, ``"uint"`` or ``"sint"``.
        components (int): the component count, 1-4.
        wgsl_type (str): the WGSL type as written, spaces normalized (``vec4<f32>``).
        interpolation (str): the ``@interpolate`` argument (``"flat"``,
            ``"linear, centroid"``), or None (the default).
        register (int): the D3D register a compiled shader's signature gives it (``v2`` is 2),
            named in linkage refusals; None (the default) where the source fixes none (WGSL,
            HLSL: the register is the D3D compiler's packing).
    """

    name: str
    semantic: str  # upper-case semantic name
    index: int
    type: str  # "float", "uint" or "sint"
    components: int
    wgsl_type: str
    interpolation: str | None = None
    register: int | None = None

    @property
    def where(self) -> str:
        """``TEXCOORD1``, with `` (register 2)`` where the signature gives the register."""
        return self.key if self.register is None else f"{self.key} (register {self.register})"

    @property
    def key(self) -> str:
        """The semantic as results and layouts key it: upper-case name + index (``TEXCOORD1``,
        the key of :class:`~gpuia.d3d.layout.ResolvedElement`)."""
        return f"{self.semantic}{self.index}"


@dataclass(frozen=True)
class ShaderSignature:
    """The parsed interface of a vertex or pixel shader and the module text gpuia compiles: a
    frozen value that the WGSL parser and the HLSL front end make.

    Arguments:
        entry_point (str): the entry point's name.
        input_struct (str): the name of the entry point's input struct, or None when it takes
            no input.
        output_struct (str): the name of its output struct.
        inputs (tuple): the input struct's :class:`Member` values, in declaration order.
        outputs (tuple): the output struct's :class:`Member` values, in declaration order.
        source (str): the module as gpuia compiles it: the stage attribute removed and the IO
            attributes stripped from the two structs.
    """

    entry_point: str
    input_struct: str | None
    output_struct: str
    inputs: tuple[Member, ...]
    outputs: tuple[Member, ...]
    source: str  # the module with @vertex removed and IO attributes stripped from its structs

    def input(self, key: str) -> Member | None:
        """The input with a semantic key.

        Arguments:
            key (str): the upper-case semantic name + index (``POSITION0``).

        Returns:
            The :class:`Member`, or None when the shader has no such input.
        """
        for m in self.inputs:
            if m.key == key:
                return m
        return None

    def output(self, key: str) -> Member | None:
        """The output with a semantic key.

        Arguments:
            key (str): the upper-case semantic name + index (``SV_POSITION0``).

        Returns:
            The :class:`Member`, or None when the shader has no such output.
        """
        for m in self.outputs:
            if m.key == key:
                return m
        return None

    def uses(self, system_value: str) -> bool:
        """Whether the shader reads a system value.

        Arguments:
            system_value (str): an upper-case semantic name without index, such as
                ``"SV_VERTEXID"`` (one of :data:`SYSTEM_INPUTS`).

        Returns:
            True when an input has that semantic name.
        """
        return any(m.semantic == system_value for m in self.inputs)

    def check_layout(self, layout: InputLayout) -> None:
        """Check that ``layout`` provides every input of this (vertex) shader: each input other
        than :data:`SYSTEM_INPUTS` needs an element of the same semantic name and index, names
        compared ignoring case (rules 3.7, 3.8). Elements the shader does not read are allowed;
        types are not compared with formats (rules 2.12).

        Arguments:
            layout (InputLayout): the input layout.

        Raises:
            InvalidDescError: an input no element provides, naming the input and its semantic.
        """
        keys = set(layout.keys)
        for m in self.inputs:
            if m.semantic in SYSTEM_INPUTS:
                continue
            if m.key not in keys:
                raise InvalidDescError(
                    "vertex shader", "input", m.name,
                    f"the shader reads {m.where} but the input layout has no element with "
                    f"that semantic (every vertex shader input must be provided; rules 3.8)")

