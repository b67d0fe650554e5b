"""The program chunk: which stage and shader model it is, and a geometry shader's declarations.

DXBC's SHDR and SHEX chunks hold the tokenized program (D3D10/11's "tokenized program format",
d3d11TokenizedProgramFormat.hpp): a version token (bits 0-3 minor, 4-7 major, 16-31 the program
type), the program's length in words, then instructions, each an opcode token (bits 0-10 the
opcode, 24-30 the instruction's length in words) whose length lets the walk skip what it does
not decode; ``customdata`` blocks (opcode 53) keep their length in the next word instead. Only a
geometry shader's instructions are walked, and only its declarations decoded
(:data:`GS_OPCODES`).

DXIL's DXIL (and ILDB) chunk starts with the same version word (the program kind in bits 16-31);
its geometry shader's declarations are read from the PSV0 chunk's runtime information (input
primitive, output topology, the streams' mask; the maximum vertex count when the runtime
information is of version 1 or later), the instance count not (it is only in the bitcode).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .chunks import Chunk

__all__ = ["STAGES", "GeometryDeclarations", "ProgramInfo", "read_tokens", "instructions",
           "read_dxil", "INPUT_PRIMITIVES", "OUTPUT_TOPOLOGIES", "GS_OPCODES"]

STAGES = {0: "pixel", 1: "vertex", 2: "geometry", 3: "hull", 4: "domain", 5: "compute",
          6: "library", 7: "ray_generation", 8: "intersection", 9: "any_hit", 10: "closest_hit",
          11: "miss", 12: "callable", 13: "mesh", 14: "amplification", 15: "node"}
"""The program type of the version word (D3D10_SB_TOKENIZED_PROGRAM_TYPE, DXIL::ShaderKind)."""

INPUT_PRIMITIVES = {1: "point", 2: "line", 3: "triangle", 6: "lineadj", 7: "triangleadj",
                    **{8 + n: f"patch{n + 1}" for n in range(32)}}
"""D3D_PRIMITIVE values -> the HLSL input modifier (patch inputs as ``patchN``)."""

OUTPUT_TOPOLOGIES = {1: "POINTLIST", 3: "LINESTRIP", 5: "TRIANGLESTRIP"}
"""A geometry shader's output topology (D3D_PRIMITIVE_TOPOLOGY values)."""

GS_OPCODES = {92: "output_topology", 93: "input_primitive", 94: "max_vertex_count",
              143: "stream", 206: "instance_count"}
"""The declarations read from a DXBC program: dcl_outputtopology, dcl_inputprimitive,
dcl_maxout, dcl_stream and dcl_gsinstances (D3D10_SB_OPCODE_* / D3D11_SB_OPCODE_*)."""
_CUSTOMDATA = 53


@dataclass(frozen=True)
class GeometryDeclarations:
    """A geometry shader's declarations, from its program. ``output_topology`` holds one
    (stream, topology) pair per declared stream, in stream order (stream 0 alone when the
    program declares no stream). ``instance_count`` is 1 for a DXBC program without
    ``dcl_gsinstances`` (D3D's default, where D3DReflect says 0). None is a value the container
    does not hold (a DXIL container's instance count, a version-0 PSV0's maximum vertex
    count)."""

    input_primitive: str | None
    output_topology: tuple[tuple[int, str], ...]
    max_vertex_count: int | None
    instance_count: int | None

    def desc(self) -> dict:
        return {"input_primitive": self.input_primitive,
                "output_topology": [{"stream": s, "topology": t}
                                    for s, t in self.output_topology],
                "max_vertex_count": self.max_vertex_count, "instance_count": self.instance_count}


@dataclass(frozen=True)
class ProgramInfo:
    """The stage, the shader model (``"5_0"``) and a geometry shader's declarations."""

    stage: str
    shader_model: str
    geometry: GeometryDeclarations | None


def _version(chunk: Chunk, word: int) -> tuple[str, str]:
    kind = word >> 16
    if kind not in STAGES:
        raise chunk.fail(0, f"program type {kind} is no shader stage (0-15)")
    return STAGES[kind], f"{(word >> 4) & 0xF}_{word & 0xF}"


def _named(table: dict, value: int, chunk: Chunk, at: int, what: str) -> str:
    if value not in table:
        raise chunk.fail(at, f"{what} {value} is not one D3D declares")
    return table[value]


class _GeometryWalk:
    """The geometry declarations met while walking a program's instructions."""

    def __init__(self, chunk: Chunk):
        self.chunk = chunk
        self.input: str | None = None
        self.max_count: int | None = None
        self.instances = 1  # D3D's default without dcl_gsinstances
        self.stream = 0
        self.topologies: dict[int, str] = {}

    def see(self, opcode: int, token: int, at: int, length: int) -> None:
        field = GS_OPCODES[opcode]
        if field == "input_primitive":
            self.input = _named(INPUT_PRIMITIVES, (token >> 11) & 0x3F, self.chunk, at,
                                "dcl_inputprimitive's primitive")
        elif field == "output_topology":
            self.topologies[self.stream] = _named(OUTPUT_TOPOLOGIES, (token >> 11) & 0x7F,
                                                  self.chunk, at, "dcl_outputtopology's topology")
        elif length < 2:
            raise self.chunk.fail(at, f"a {field} declaration of {length} words has no operand")
        else:
            value = self.chunk.u32s(at + 4 * (length - 1), 1, f"the {field} declaration")[0]
            if field == "stream" and value > 3:
                raise self.chunk.fail(at, f"dcl_stream m{value}: streams are 0-3")
            setattr(self, {"stream": "stream", "max_vertex_count": "max_count",
                           "instance_count": "instances"}[field], value)

    def result(self) -> GeometryDeclarations:
        return GeometryDeclarations(self.input, tuple(sorted(self.topologies.items())),
                                    self.max_count, self.instances)


def read_tokens(chunk: Chunk) -> ProgramInfo:
    """The stage, the shader model and (geometry shaders) the declarations of a SHDR or SHEX
    chunk; a geometry shader's instructions are walked by their lengths, other programs' code
    is not read.

    Raises:
        ContainerError: a program longer than its chunk; in a geometry shader, an instruction
            of length 0 or past the program's end, a declaration's value that D3D does not
            define."""
    version, length = chunk.u32s(0, 2, "the program's version and length")
    stage, model = _version(chunk, version)
    if length < 2 or length * 4 > chunk.size:
        raise chunk.fail(4, f"the program's length {length} words is not 2 to the chunk's "
                            f"{chunk.size // 4}")
    if stage != "geometry":  # nothing else is read from the code
        return ProgramInfo(stage, model, None)
    walk = _GeometryWalk(chunk)
    for i, token, opcode, size in instructions(chunk, length):
        if opcode in GS_OPCODES:
            walk.see(opcode, token, 4 * i, size)
    return ProgramInfo(stage, model, walk.result())


def instructions(chunk: Chunk, length: int) -> Iterator[tuple[int, int, int, int]]:
    """The instructions of a SHDR/SHEX program of ``length`` words (from its second word's
    count), walked by their lengths: (word index, opcode token, opcode, length in words).
    A customdata block's length is its second word.

    Raises:
        ContainerError: an instruction of length 0 or past the program's end, at its byte."""
    words = chunk.words(length)
    i = 2
    while i < length:
        token = words[i]
        opcode, size = token & 0x7FF, (token >> 24) & 0x7F
        if opcode == _CUSTOMDATA:
            size = words[i + 1] if i + 1 < length else 0
        if size == 0 or i + size > length:
            raise chunk.fail(4 * i, f"an instruction (opcode {opcode}) of {size} words does "
                                    f"not fit between it and the program's end (byte "
                                    f"{4 * length})")
        yield i, token, opcode, size
        i += size


def read_dxil(chunk: Chunk, psv: Chunk | None) -> ProgramInfo:
    """The stage and the shader model of a DXIL (or ILDB) chunk's program header, and a
    geometry shader's declarations from ``psv``, the PSV0 chunk (None without one).

    Raises:
        ContainerError: a header past the chunk's end, an unknown program kind, a PSV0 chunk
            too short for its runtime information."""
    stage, model = _version(chunk, chunk.u32s(0, 1, "the program header")[0])
    if stage != "geometry" or psv is None:
        return ProgramInfo(stage, model, None)
    (size,) = psv.u32s(0, 1, "the runtime information's size")
    if size < 16 or size > psv.size - 4:
        raise psv.fail(0, f"runtime information of {size} bytes (16 at least, within the chunk)")
    primitive, topology, streams = psv.u32s(4, 3, "the geometry shader's information")
    max_count = None
    if size >= 28:  # PSVRuntimeInfo1: ShaderStage, UsesViewID, then MaxVertexCount (u16)
        max_count = psv.u32s(4 + 24, 1, "MaxVertexCount")[0] >> 16
    name = _named(OUTPUT_TOPOLOGIES, topology, psv, 8, "the output topology")
    return ProgramInfo(stage, model, GeometryDeclarations(
        _named(INPUT_PRIMITIVES, primitive, psv, 4, "the input primitive"),
        tuple((s, name) for s in range(4) if streams >> s & 1), max_count, None))
