"""Signature chunks: the rows of a shader's input, output and patch-constant signatures, as
D3D12_SIGNATURE_PARAMETER_DESC has them.

Every signature chunk is an element count, the offset of the first element (from the chunk's
start; 8 as compilers write it) and the elements, which differ only in which fields they store
(:data:`LAYOUTS`): ISGN, OSGN and PCSG (shader model 4-5) store no stream and no minimum
precision; OSG5 (a shader model 5 geometry shader's outputs) adds the stream; ISG1, OSG1 and PSG1
(shader model 5.1 and DXIL) add both. A semantic name is a zero-terminated string at an offset
from the chunk's start.

Values are kept as stored, with one rule of D3DReflect's: a pixel shader's output that a DXBC
container stores with system value 0 but names SV_Target, SV_Depth, SV_DepthGreaterEqual,
SV_DepthLessEqual or SV_Coverage reports TARGET, DEPTH, DEPTH_GREATER_EQUAL, DEPTH_LESS_EQUAL or
COVERAGE (:data:`PIXEL_OUTPUT_NAMES`; DXIL stores these values itself); and a 16-bit component
type stored with a minimum precision reports its 32-bit type, as reflection does
(:data:`WIDE_TYPES`; native 16-bit types, MinPrecision DEFAULT, stay 16-bit).
"""

from __future__ import annotations

from dataclasses import dataclass

from .chunks import Chunk

__all__ = ["SignatureParameter", "SignatureLayout", "LAYOUTS", "SYSTEM_VALUES", "WIDE_TYPES",
           "COMPONENT_TYPES", "MIN_PRECISIONS", "PIXEL_OUTPUT_NAMES", "read_signature"]

# D3D_NAME (d3dcommon.h), by number: the suffix after D3D_NAME_
SYSTEM_VALUES = {
    0: "UNDEFINED", 1: "POSITION", 2: "CLIP_DISTANCE", 3: "CULL_DISTANCE",
    4: "RENDER_TARGET_ARRAY_INDEX", 5: "VIEWPORT_ARRAY_INDEX", 6: "VERTEX_ID", 7: "PRIMITIVE_ID",
    8: "INSTANCE_ID", 9: "IS_FRONT_FACE", 10: "SAMPLE_INDEX", 11: "FINAL_QUAD_EDGE_TESSFACTOR",
    12: "FINAL_QUAD_INSIDE_TESSFACTOR", 13: "FINAL_TRI_EDGE_TESSFACTOR",
    14: "FINAL_TRI_INSIDE_TESSFACTOR", 15: "FINAL_LINE_DETAIL_TESSFACTOR",
    16: "FINAL_LINE_DENSITY_TESSFACTOR", 23: "BARYCENTRICS", 24: "SHADINGRATE",
    25: "CULLPRIMITIVE", 64: "TARGET", 65: "DEPTH", 66: "COVERAGE", 67: "DEPTH_GREATER_EQUAL",
    68: "DEPTH_LESS_EQUAL", 69: "STENCIL_REF", 70: "INNER_COVERAGE",
}
"""D3D_NAME values, by number (d3dcommon.h)."""

WIDE_TYPES = {"FLOAT16": "FLOAT32", "SINT16": "SINT32", "UINT16": "UINT32"}
"""A 16-bit component type stored with a minimum precision -> the type reflection reports: DXC
stores min16float as FLOAT16 with MinPrecision FLOAT_16 where FXC stores FLOAT32, and both
compilers' reflection report FLOAT32 (a minimum-precision value is 32-bit at the interface)."""

COMPONENT_TYPES = {0: "UNKNOWN", 1: "UINT32", 2: "SINT32", 3: "FLOAT32", 4: "UINT16",
                   5: "SINT16", 6: "FLOAT16", 7: "UINT64", 8: "SINT64", 9: "FLOAT64"}
"""D3D_REGISTER_COMPONENT_TYPE values, by number (d3dcommon.h)."""

MIN_PRECISIONS = {0: "DEFAULT", 1: "FLOAT_16", 2: "FLOAT_2_8", 3: "RESERVED", 4: "SINT_16",
                  5: "UINT_16", 0xF0: "ANY_16", 0xF1: "ANY_10"}
"""D3D_MIN_PRECISION values, by number (d3dcommon.h)."""

PIXEL_OUTPUT_NAMES = {"SV_TARGET": "TARGET", "SV_DEPTH": "DEPTH",
                      "SV_DEPTHGREATEREQUAL": "DEPTH_GREATER_EQUAL",
                      "SV_DEPTHLESSEQUAL": "DEPTH_LESS_EQUAL", "SV_COVERAGE": "COVERAGE"}
"""A pixel shader output's semantic name (upper case) -> the system value D3DReflect reports for
it where a DXBC container stores 0."""


@dataclass(frozen=True)
class SignatureParameter:
    """One signature element, as D3D12_SIGNATURE_PARAMETER_DESC reports it (fields in snake
    case). ``system_value_type``, ``component_type`` and ``min_precision`` are the suffixes of
    D3D_NAME_, D3D_REGISTER_COMPONENT_TYPE_ and D3D_MIN_PRECISION_ (``POSITION``, ``FLOAT32``,
    ``DEFAULT``); ``register`` is 4294967295 (-1 as UINT) for an element without one (SV_Depth,
    a geometry shader's SV_PrimitiveID); ``mask`` and ``read_write_mask`` are the stored bytes
    (for an output, D3D's read-write mask is the components never written)."""

    semantic_name: str
    semantic_index: int
    register: int
    system_value_type: str
    component_type: str
    mask: int
    read_write_mask: int
    stream: int = 0
    min_precision: str = "DEFAULT"

    def desc(self) -> dict:
        """The row under D3D12_SIGNATURE_PARAMETER_DESC's field names."""
        return {"SemanticName": self.semantic_name, "SemanticIndex": self.semantic_index,
                "Register": self.register, "SystemValueType": self.system_value_type,
                "ComponentType": self.component_type, "Mask": self.mask,
                "ReadWriteMask": self.read_write_mask, "Stream": self.stream,
                "MinPrecision": self.min_precision}


@dataclass(frozen=True)
class SignatureLayout:
    """How one kind of signature chunk stores an element: its words, and whether the first word
    is the stream and the last the minimum precision."""

    words: int
    stream: bool
    min_precision: bool


# fmt: off
LAYOUTS = {
    #                      words stream min_precision
    "ISGN": SignatureLayout(6,   False,  False),
    "OSGN": SignatureLayout(6,   False,  False),
    "PCSG": SignatureLayout(6,   False,  False),
    "OSG5": SignatureLayout(7,   True,   False),
    "ISG1": SignatureLayout(8,   True,   True),
    "OSG1": SignatureLayout(8,   True,   True),
    "PSG1": SignatureLayout(8,   True,   True),
}
"""The signature chunks, by four-character code."""
# fmt: on


def _named(table: dict, value: int, chunk: Chunk, at: int, field: str) -> str:
    if value not in table:
        raise chunk.fail(at, f"{field} {value} is not a D3D value of it "
                             f"({', '.join(f'{k} {v}' for k, v in list(table.items())[:6])}, ...)")
    return table[value]


def read_signature(chunk: Chunk, pixel_outputs: bool = False) -> tuple[SignatureParameter, ...]:
    """The elements of a signature chunk (one of :data:`LAYOUTS`), in stored order.

    Arguments:
        chunk: the chunk.
        pixel_outputs (bool): the chunk is a pixel shader's outputs in a DXBC container: apply
            :data:`PIXEL_OUTPUT_NAMES` to elements stored with system value 0.

    Raises:
        ContainerError: elements or a name past the chunk's end, a value that is no D3D value
            (naming the chunk, the byte offset and the field).
    """
    layout = LAYOUTS[chunk.fourcc]
    count, first = chunk.u32s(0, 2, "the signature's header")
    if count * layout.words * 4 > chunk.size:
        raise chunk.fail(0, f"{count} elements of {layout.words * 4} bytes do not fit in the "
                            f"chunk ({chunk.size} bytes)")
    out = []
    for i in range(count):
        at = first + 4 * layout.words * i
        words = chunk.u32s(at, layout.words, f"element {i}")
        stream = words[0] if layout.stream else 0
        name_at, index, system, component, register, masks = words[layout.stream:][:6]
        name = chunk.cstring(name_at, f"element {i}'s semantic name")
        system_name = _named(SYSTEM_VALUES, system, chunk, at, f"element {i}'s system value")
        if pixel_outputs and system == 0:
            system_name = PIXEL_OUTPUT_NAMES.get(name.upper(), system_name)
        precision = _named(MIN_PRECISIONS, words[-1] if layout.min_precision else 0, chunk, at,
                           f"element {i}'s minimum precision")
        kind = _named(COMPONENT_TYPES, component, chunk, at, f"element {i}'s component type")
        if precision != "DEFAULT":
            kind = WIDE_TYPES.get(kind, kind)
        out.append(SignatureParameter(name, index, register, system_name, kind, masks & 0xFF,
                                      (masks >> 8) & 0xFF, stream, precision))
    return tuple(out)
