"""Case documents with a geometry shader for the rule tests (tests/unit/test_gs_rules_*.py), run
on the CPU reference through gpuia.harness. A helper builds inputs and runs them; the expected
values stay in the tests, derived there by hand."""

from __future__ import annotations

import struct

from gpuia.harness.case import load_case
from gpuia.harness.run import run_case

FILL = 0xEEEEEEEE  # every target word before the draws: a word never written still reads it


def u32s(hex_text: str) -> list[int]:
    """A result buffer's hex as little-endian uint32 words."""
    raw = bytes.fromhex(hex_text)
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


def target(slot: int, size: int, filled_size: int = 0) -> dict:
    """An SO target of ``size`` bytes filled with ``FILL``."""
    return {"slot": slot, "size": size, "filled_size": filled_size,
            "data": {"dtype": "uint32", "values": [FILL] * (size // 4)}}


def so_entry(semantic: str, count: int, slot: int = 0, stream: int = 0) -> dict:
    return {"Stream": stream, "SemanticName": semantic, "ComponentCount": count,
            "OutputSlot": slot}


def gs_case(gs: str, vertices: int, declaration: list, targets: list, *,
            topology: str = "POINTLIST", draws: list | None = None, strides=(),
            rasterized: int | str = "NO_RASTERIZED_STREAM", layout: list | None = None,
            values: list | None = None, stride: int = 4, **extra) -> dict:
    """A case whose vertex k holds ID = k (R32_UINT), or ``layout`` over ``values``; the
    pass-through vertex shader outputs the elements; ``draws`` defaults to one DrawInstanced of
    every vertex."""
    doc = {
        "gpuia_case": 1, "name": "gs_rules",
        "input_layout": layout or [{"SemanticName": "ID", "Format": "R32_UINT"}],
        "vertex_buffers": [{"slot": 0, "stride": stride, "data": {
            "dtype": "uint32", "values": values if values is not None else list(range(vertices))}}],
        "primitive_topology": topology,
        "draw": draws or [{"DrawInstanced": {"VertexCountPerInstance": vertices,
                                             "InstanceCount": 1}}],
        "geometry_shader": {"hlsl": gs},
        "stream_output": {"declaration": declaration, "buffer_strides": list(strides),
                          "rasterized_stream": rasterized, "targets": targets},
    }
    doc.update(extra)
    return doc


def run_cpu(doc: dict) -> dict:
    """The case's result document on the CPU reference."""
    return run_case(load_case(doc), "cpu")[1]


def words(result: dict, slot: int) -> list[int]:
    """Every word of the target of output slot ``slot`` after the draws."""
    buffers = result["stream_output"]["buffers"]
    return u32s(next(b for b in buffers if b["slot"] == slot)["hex"])
