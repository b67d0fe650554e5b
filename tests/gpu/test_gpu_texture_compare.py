"""Comparison samplers in an HLSL vertex shader: SampleCmpLevelZero on a Texture2D and a
Texture2DArray (rules 17.10), the CPU reference against every GPU path (Stream Output, native
and pulling captures).

Expected values are worked out by hand from D3D's rule "reference {ComparisonFunc} texel.r",
each passing tap 1.0 and each failing one 0.0, then filtered: a 2x2 R32_FLOAT texture holds
0.25, 0.5 (row 0) and 0.75, 1.0 (row 1). Point taps sit at texel centres; linear taps at
weights of 1/4 and 1/2, so the fraction of passing taps is plain. Point results are compared
bit for bit, linear ones within the bound of rules 17.10 (cross_check's tolerance).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.errors import InvalidDescError
from gpuia.harness.case import load_case
from gpuia.harness.case_textures import WEIGHT_ERROR
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_so_gpu

pytest.importorskip("gpuia.hlsl.library")

FUNCS = ["NEVER", "LESS", "EQUAL", "LESS_EQUAL", "GREATER", "NOT_EQUAL", "GREATER_EQUAL",
         "ALWAYS"]
HLSL = r"""
Texture2D<float> Depth : register(t0);
Texture2DArray<float> Layers : register(t1);
SamplerComparisonState Never : register(s0);
SamplerComparisonState Less : register(s1);
SamplerComparisonState Equal : register(s2);
SamplerComparisonState LessEqual : register(s3);
SamplerComparisonState Greater : register(s4);
SamplerComparisonState NotEqual : register(s5);
SamplerComparisonState GreaterEqual : register(s6);
SamplerComparisonState Always : register(s7);
SamplerComparisonState Linear : register(s8);
// per vertex: point uv and reference; linear uv and reference; array uv, slice, reference
static const float3 POINT[4] = { float3(0.75, 0.25, 0.25), float3(0.75, 0.25, 0.5),
                                 float3(0.75, 0.25, 0.75), float3(1.75, -0.25, 0.5) };
static const float3 LINEAR[4] = { float3(0.5, 0.5, 0.6), float3(0.5, 0.5, 0.5),
                                  float3(0.375, 0.5, 0.4), float3(0.5, 0.5, 2.0) };
static const float4 ARRAY[4] = { float4(0.25, 0.25, 0.0, 0.25), float4(0.25, 0.25, 0.6, -1.0),
                                 float4(0.75, 0.75, 0.0, 0.9), float4(0.75, 0.75, 1.4, 0.0) };
struct O { float4 pos : SV_Position; float4 a : TEXCOORD0; float4 b : TEXCOORD1;
           float2 c : TEXCOORD2; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    float2 uv = POINT[id].xy;
    float r = POINT[id].z;
    o.a = float4(Depth.SampleCmpLevelZero(Never, uv, r), Depth.SampleCmpLevelZero(Less, uv, r),
                 Depth.SampleCmpLevelZero(Equal, uv, r),
                 Depth.SampleCmpLevelZero(LessEqual, uv, r));
    o.b = float4(Depth.SampleCmpLevelZero(Greater, uv, r),
                 Depth.SampleCmpLevelZero(NotEqual, uv, r),
                 Depth.SampleCmpLevelZero(GreaterEqual, uv, r),
                 Depth.SampleCmpLevelZero(Always, uv, r));
    o.c = float2(Depth.SampleCmpLevelZero(Linear, LINEAR[id].xy, LINEAR[id].z),
                 Layers.SampleCmpLevelZero(Less, ARRAY[id].xyz, ARRAY[id].w));
    return o;
}
"""
DEPTH = {"register": 0, "kind": "texture2d", "format": "R32_FLOAT", "width": 2, "height": 2,
         "data": {"dtype": "float32", "values": [0.25, 0.5, 0.75, 1.0]}}
# slice 0 the same texels, slice 1 all 0
LAYERS = {"register": 1, "kind": "texture2d", "format": "R32_FLOAT", "width": 2, "height": 2,
          "array_size": 2,
          "data": {"dtype": "float32", "values": [0.25, 0.5, 0.75, 1.0, 0, 0, 0, 0]}}
SAMPLERS = [{"register": k, "filter": "COMPARISON_MIN_MAG_MIP_POINT", "comparison_func": f}
            for k, f in enumerate(FUNCS)] + [
    {"register": 8, "filter": "D3D12_FILTER_COMPARISON_MIN_MAG_MIP_LINEAR",
     "comparison_func": "D3D12_COMPARISON_FUNC_LESS_EQUAL"}]
# Point: texel (1, 0) = 0.5 against 0.25 (below), 0.5 (equal), 0.75 (above); vertex 3's uv
# (1.75, -0.25) takes texel (3, -1), CLAMPed to (1, 0): 0.5 against 0.5 again.
_BELOW, _EQUAL, _ABOVE = [0, 1, 0, 1, 0, 1, 0, 1], [0, 0, 1, 1, 0, 0, 1, 1], \
    [0, 0, 0, 0, 1, 1, 1, 1]
POINT_WANT = np.array([_BELOW, _EQUAL, _ABOVE, _EQUAL], np.float32)
# Linear, LESS_EQUAL: uv (0.5, 0.5) takes u * 2 - 0.5 = 0.5 on each axis: the four texels at
# 1/4 each; 0.6 <= 0.75, 1.0: 1/2; 0.5 <= 0.5, 0.75, 1.0: 3/4; 2.0 <= none: 0. uv (0.375, 0.5):
# u weight 1/4 (taps x 0, 1 at 3/4, 1/4), v 1/2: 0.4 <= 0.5 (1/8), 0.75 (3/8), 1.0 (1/8): 5/8.
# Array, LESS: slice 0 texel (0, 0) 0.25 < 0.25 fails; slice 0.6 rounds to 1 (0): -1 < 0
# passes; slice 0 texel (1, 1) 1.0: 0.9 < 1 passes; slice 1.4 rounds to 1: 0 < 0 fails.
LINEAR_WANT = np.array([0.5, 0.75, 0.625, 0.0], np.float32)
ARRAY_WANT = np.array([0, 1, 1, 0], np.float32)
# rules 17.10: two texel weights and the mip weight each off by WEIGHT_ERROR on results in
# [0, 1], plus the product of the two texel weights' errors
BOUND = 3 * WEIGHT_ERROR + 2 * WEIGHT_ERROR ** 2


def _doc(hlsl=HLSL, textures=(DEPTH, LAYERS), samplers=SAMPLERS, count=4, **extra) -> dict:
    return {"gpuia_case": 1, "name": "texture_compare", "input_layout": [],
            "vertex_buffers": [], "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": count}},
            "vertex_shader": {"hlsl": hlsl}, "shader_resources": list(textures),
            "samplers": list(samplers),
            "stream_output": {"declaration": [
                {"SemanticName": "TEXCOORD", "SemanticIndex": i, "ComponentCount": c}
                for i, c in ((0, 4), (1, 4), (2, 2))], "targets": [{"slot": 0, "size": 4096}]},
            **extra}


def _check(got: np.ndarray) -> None:
    """``got``: (4, 10) float32 per vertex (8 point functions, linear, array)."""
    np.testing.assert_array_equal(got[:, :8].view(np.uint32), POINT_WANT.view(np.uint32))
    np.testing.assert_array_equal(got[:, 9].view(np.uint32), ARRAY_WANT.view(np.uint32))
    assert np.abs(got[:, 8].astype(np.float64) - LINEAR_WANT).max() <= BOUND, got[:, 8]


def test_every_function_point_linear_and_array_cpu_and_stream_output(gpu_device):
    case = load_case(_doc())
    cpu = shader_outputs(case, run_reference(case))
    got = np.concatenate([cpu["TEXCOORD0"], cpu["TEXCOORD1"], cpu["TEXCOORD2"]], axis=1)
    _check(got.view(np.float32))
    np.testing.assert_array_equal(got[:, 8].view(np.float32), LINEAR_WANT)  # exact on the CPU
    so = np.frombuffer(run_case_so_gpu(case, gpu_device).buffers[0], np.float32)[:40]
    _check(so.reshape(4, 10))


def test_capture_paths_match_the_cpu(gpu_device):
    result = cross_check(load_case(_doc()), [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


ONE = r"""
Texture2D<float> Depth : register(t0);
SamplerComparisonState Cmp : register(s0);
struct O { float4 pos : SV_Position; float v : TEXCOORD0; };
static const float REF[3] = { 0.5, 1.5, -3.0 };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.v = Depth.SampleCmpLevelZero(Cmp, float2(0.5, 0.5), REF[id]);
    return o;
}
"""


def _one(func: str, texture: dict, hlsl: str = ONE, **sampler) -> dict:
    doc = _doc(hlsl, [texture], [{"register": 0, "filter": "COMPARISON_MIN_MAG_MIP_POINT",
                                  "comparison_func": func, **sampler}], 3)
    doc["stream_output"]["declaration"] = [{"SemanticName": "TEXCOORD", "SemanticIndex": 0,
                                            "ComponentCount": 1}]
    return doc


def test_a_unorm_reference_is_quantized_and_clamped_on_the_cpu():
    # R16_UNORM 0x8000 reads 32768 / 65535 = 0.500008; the reference 0.5 quantizes to
    # floor(0.5 * 65535 + 0.5) = 32768: EQUAL passes (as floats they differ); 1.5 clamps to 1
    # (65535) and -3 to 0: EQUAL fails; GREATER: 65535 > 32768 passes, 0 > 32768 fails.
    r16 = {"register": 0, "kind": "texture2d", "format": "R16_UNORM", "width": 1, "height": 1,
           "data": {"dtype": "uint16", "values": [0x8000]}}
    for func, want in (("EQUAL", [1, 0, 0]), ("GREATER", [0, 1, 0])):
        case = load_case(_one(func, r16))
        got = shader_outputs(case, run_reference(case))["TEXCOORD0"].view(np.float32)
        np.testing.assert_array_equal(got[:, 0], np.array(want, np.float32))


def test_a_mip_level_from_min_lod_and_wrap_addressing(gpu_device):
    # 4x4 level 0 all 2.0, level 1 (2x2) 0.25 but texel (1, 1) 1.0: MinLOD 1 takes level 1
    # (SampleCmpLevelZero's LOD 0 clamped, sample_c_lz). uv (1.75, -0.25) WRAPs to (0.75, 0.75):
    # texel (1, 1) of level 1 (point). LESS: 0.5 < 1 passes, 1.5 fails, -3 passes; level 0
    # would pass all three, any other texel of level 1 fail 0.5.
    hlsl = ONE.replace("float2(0.5, 0.5)", "float2(1.75, -0.25)")
    tex = {"register": 0, "kind": "texture2d", "format": "R32_FLOAT", "width": 4, "height": 4,
           "mip_levels": 2, "data": {"dtype": "float32",
                                     "values": [2.0] * 16 + [0.25, 0.25, 0.25, 1.0]}}
    case = load_case(_one("LESS", tex, hlsl, min_lod=1, address_u="WRAP", address_v="WRAP"))
    want = np.array([1, 0, 1], np.float32)
    cpu = shader_outputs(case, run_reference(case))["TEXCOORD0"].view(np.float32)
    np.testing.assert_array_equal(cpu[:, 0], want)
    so = np.frombuffer(run_case_so_gpu(case, gpu_device).buffers[0], np.float32)[:3]
    np.testing.assert_array_equal(so, want)
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


def test_a_static_comparison_sampler_of_the_root_signature(gpu_device):
    rs = ("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | ALLOW_STREAM_OUTPUT), "
          "DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_VERTEX), "
          "StaticSampler(s0, filter=FILTER_COMPARISON_MIN_MAG_MIP_POINT, "
          "comparisonFunc=COMPARISON_GREATER, visibility=SHADER_VISIBILITY_VERTEX)")
    doc = _one("LESS", DEPTH)  # its samplers entry dropped: the static sampler is s0's
    doc["samplers"] = []
    doc["root_signature"] = rs
    case = load_case(doc)
    # uv (0.5, 0.5) point: u * 2 = 1: texel (1, 1) = 1.0; GREATER: 1.5 > 1 only
    want = np.array([0, 1, 0], np.float32)
    cpu = shader_outputs(case, run_reference(case))["TEXCOORD0"].view(np.float32)
    np.testing.assert_array_equal(cpu[:, 0], want)
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


def test_refusals():
    with pytest.raises(InvalidDescError, match="pixel shader's only"):
        load_case(_one("LESS", DEPTH, ONE.replace("SampleCmpLevelZero", "SampleCmp")))
    # a texel offset and a Texture1D are sampled (tests/gpu/test_gpu_texture_offsets.py); an
    # offset out of D3D's [-8, 7] is refused (rules 17.11)
    with pytest.raises(InvalidDescError, match=r"rules 17\.11"):
        load_case(_one("LESS", DEPTH, ONE.replace("REF[id])", "REF[id], int2(8, 0))")))
    # sample_c takes no Texture3D (D3D11.3 spec 22.4.19)
    three_d = ONE.replace("Texture2D<float>", "Texture3D<float>").replace(
        "float2(0.5, 0.5)", "float3(0.5, 0.5, 0.5)")
    with pytest.raises(InvalidDescError, match=r"Texture1D, Texture2D or Texture2DArray only"):
        load_case(_one("LESS", {**DEPTH, "kind": "texture3d", "height": 1, "depth": 1,
                                "data": {"dtype": "float32", "values": [0.25, 0.5]}}, three_d))
    with pytest.raises(InvalidDescError, match="needs a D3D12_COMPARISON_FUNC"):
        load_case(_doc(samplers=[{k: v for k, v in s.items() if k != "comparison_func"}
                                 for s in SAMPLERS]))
    with pytest.raises(InvalidDescError, match="bind a COMPARISON_ filter"):
        load_case(_one("LESS", DEPTH, filter="MIN_MAG_MIP_POINT"))
    r8 = {**DEPTH, "format": "R8_UNORM", "data": {"hex": "00408000"}}
    with pytest.raises(InvalidDescError, match="Format List"):
        load_case(_one("LESS", r8))


def test_a_nan_reference_fails_all_but_not_equal_on_the_cpu():
    # D3D's float comparisons (rules 17.10, spec 3.1): NaN {func} 1.0 is false for LESS,
    # EQUAL, GREATER_EQUAL ..., true for NOT_EQUAL; ALWAYS passes and NEVER fails regardless
    nan = ONE.replace("{ 0.5, 1.5, -3.0 }", "{ asfloat(0x7FC00000u), 0.5, 0.5 }")
    for func, want in (("LESS", 0), ("EQUAL", 0), ("GREATER_EQUAL", 0), ("NOT_EQUAL", 1),
                       ("ALWAYS", 1), ("NEVER", 0)):
        case = load_case(_one(func, DEPTH, nan))
        got = shader_outputs(case, run_reference(case))["TEXCOORD0"].view(np.float32)
        assert got[0, 0] == want, (func, got[0, 0])


def test_the_context_api_refuses_a_sampler_of_the_other_kind(gpu_device):
    from gpuia import InputLayout
    from gpuia.gpu import Context, PipelineState
    from gpuia.gpu.textures import create_texture
    from gpuia.hlsl import compile_shader

    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(InputLayout([]), compile_shader(ONE)))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.set_texture_shader_resource_view(0, create_texture(
        gpu_device, "R32_FLOAT", 2, 2, 1, np.array([0.25, 0.5, 0.75, 1.0], np.float32).tobytes()))
    ctx.set_sampler(0, {"filter": "MIN_MAG_MIP_POINT"})
    with pytest.raises(InvalidDescError, match="bind a COMPARISON_ filter"):
        ctx.draw_instanced(3)
    ctx.set_sampler(0, {"filter": "COMPARISON_MIN_MAG_MIP_POINT", "comparison_func": "LESS"})
    ctx.draw_instanced(3)
    ctx.flush()
    ctx.set_texture_shader_resource_view(0, create_texture(
        gpu_device, "R8_UNORM", 2, 2, 1, bytes([0, 64, 128, 255])))
    with pytest.raises(InvalidDescError, match="Format List"):
        ctx.draw_instanced(3)
