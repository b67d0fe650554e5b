"""Texture cases of the vertex-shader texture tests (tests/gpu/test_gpu_textures.py,
test_gpu_texture_dimensions.py): a point-list case whose shader reads textures and streams what
it read out, and the check of a filtered read against its hand-worked values."""

from __future__ import annotations

import numpy as np

from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_so_gpu


def texture_case_doc(name, hlsl, count, resources, so, samplers=None) -> dict:
    """A case of ``count`` points and no input layout whose ``hlsl`` reads ``resources``
    (and ``samplers``), streaming TEXCOORDi of ``c`` components for each ``(i, c)`` of ``so``."""
    doc = {"gpuia_case": 1, "name": name, "input_layout": [], "vertex_buffers": [],
           "primitive_topology": "POINTLIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": count}},
           "vertex_shader": {"hlsl": hlsl}, "shader_resources": resources,
           "stream_output": {"declaration": [
               {"SemanticName": "TEXCOORD", "SemanticIndex": i, "ComponentCount": c}
               for i, c in so], "targets": [{"slot": 0, "size": 4096}]}}
    if samplers is not None:
        doc["samplers"] = samplers
    return doc


def so_words(result, count: int, width: int) -> np.ndarray:
    """The first ``count`` rows of ``width`` 32-bit words of SO buffer 0."""
    return np.frombuffer(result.buffers[0], np.uint32)[:count * width].reshape(count, width)


def assert_filtered_within(case, want: np.ndarray, bound: float, device, label: str) -> None:
    """``case``'s TEXCOORD0 (``want``'s shape, float32) is ``want`` exactly on the CPU, within
    ``bound`` (the case's own filtering tolerance) in the GPU's Stream Output, and every GPU
    path agrees with the CPU reference."""
    from gpuia.harness.case_textures import filtering_tolerance
    from gpuia.harness.compare import SHADER_TOLERANCE

    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], want.view(np.uint32))  # exact
    assert filtering_tolerance(case, SHADER_TOLERANCE).absolute == bound
    so = so_words(run_case_so_gpu(case, device), *want.shape).view(np.float32)
    off = np.abs(so.astype(np.float64) - want)
    assert (off <= bound).all(), so
    print(f"{label}: {int((off > 0).sum())} of {off.size} components inexact, "
          f"largest {off.max():g} (bound {bound:g})")
    result = cross_check(case, [device], ("native", "pulling"))
    assert result.ok, result.text()


def refusal_vs(decl: str, use: str) -> str:
    """A vertex shader of the refusal tests: ``decl`` (the resource declarations) and sampler
    ``S`` at s0, writing ``use`` (the read under test) to TEXCOORD0."""
    return (f"{decl}\nSamplerState S : register(s0);\n"
            "struct O { float4 pos : SV_Position; float4 v : TEXCOORD0; };\n"
            f"O main(uint id : SV_VertexID) {{ O o; o.pos = 0; o.v = {use}; return o; }}\n")
