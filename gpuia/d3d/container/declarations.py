"""The resource declarations of a DXBC program: which constant buffers it declares, in order.

:func:`resource_declarations` walks a SHDR/SHEX program's instructions by their lengths (as
:mod:`.program` does for a geometry shader) and decodes ``dcl_constantbuffer``: the register
(``cb#``), the register space and the size in 16-byte registers, in the program's order; other
resource declarations (textures, samplers, UAVs, group-shared memory) are listed by kind only.

Operands (d3d11TokenizedProgramFormat.hpp): an operand token (bits 20-21 the index dimension,
22-24 / 25-27 / 28-30 each index's representation, bit 31 an extended operand token follows),
then the indices. Shader models 4-5.0 write ``cb[register][size]``; 5.1 writes
``cb[id][lower][upper]`` followed by the size and the register space.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ContainerError
from .chunks import read_chunks
from .program import instructions
from .reader import PROGRAM_CHUNKS

__all__ = ["ConstantBufferDeclaration", "ProgramDeclarations", "resource_declarations",
           "RESOURCE_OPCODES"]

_CONSTANT_BUFFER = 89
RESOURCE_OPCODES = {88: "texture or buffer (dcl_resource)", 90: "sampler (dcl_sampler)",
                    156: "typed UAV", 157: "raw UAV", 158: "structured UAV",
                    159: "raw group-shared memory", 160: "structured group-shared memory",
                    161: "raw buffer (dcl_resource_raw)",
                    162: "structured buffer (dcl_resource_structured)"}
"""The other declarations of a resource (D3D10_SB_OPCODE_* / D3D11_SB_OPCODE_*)."""


@dataclass(frozen=True)
class ConstantBufferDeclaration:
    """One ``dcl_constantbuffer``: register ``cb<register>`` of ``space``, ``size`` registers
    of 16 bytes (for shader model 5.1, ``upper`` is the last register of the range)."""

    register: int
    size: int
    space: int = 0
    upper: int | None = None


@dataclass(frozen=True)
class ProgramDeclarations:
    """The constant buffers declared, in order, and the other resources' kinds, in order."""

    constant_buffers: tuple[ConstantBufferDeclaration, ...]
    other_resources: tuple[str, ...]


def _constant_buffer(words, i: int, size: int, model51: bool, fail) -> ConstantBufferDeclaration:
    operand = words[i + 1]
    dims = (operand >> 20) & 3
    reprs = [(operand >> (22 + 3 * k)) & 7 for k in range(dims)]
    j = i + 2 + (1 if operand >> 31 else 0)
    need = dims + (2 if model51 else 0)
    if dims != (3 if model51 else 2) or any(reprs) or j + need > i + size:
        raise fail(4 * i, "a dcl_constantbuffer whose operand is not the immediate "
                          f"{'cb[id][lower][upper]' if model51 else 'cb[register][size]'}")
    if model51:
        _, lower, upper, count, space = words[j:j + 5]
        return ConstantBufferDeclaration(lower, count, space, upper)
    return ConstantBufferDeclaration(words[j], words[j + 1])


def resource_declarations(blob: bytes) -> ProgramDeclarations:
    """The resource declarations of the DXBC container ``blob`` (see the module docstring).

    Raises:
        ContainerError: no SHDR/SHEX chunk (a DXIL container too), an instruction of length 0
            or past the program's end, a constant buffer operand of another form."""
    chunks = read_chunks(bytes(blob))
    chunk = next((c for code in PROGRAM_CHUNKS[:2] for c in chunks if c.fourcc == code), None)
    if chunk is None:
        raise ContainerError("header", 0, "no DXBC program chunk (SHEX or SHDR)")
    version, length = chunk.u32s(0, 2, "the program's version and length")
    if length < 2 or length * 4 > chunk.size:
        raise chunk.fail(4, f"the program's length {length} words is not 2 to the chunk's "
                            f"{chunk.size // 4}")
    model51 = ((version >> 4) & 0xF, version & 0xF) >= (5, 1)
    words = chunk.words(length)
    buffers, others = [], []
    for i, _, opcode, size in instructions(chunk, length):
        if opcode == _CONSTANT_BUFFER:
            buffers.append(_constant_buffer(words, i, size, model51, chunk.fail))
        elif opcode in RESOURCE_OPCODES:
            others.append(RESOURCE_OPCODES[opcode])
    return ProgramDeclarations(tuple(buffers), tuple(others))
