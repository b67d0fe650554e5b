"""Texture2D SRVs and samplers in an HLSL vertex shader (docs/resources.md, rules 17), the CPU
reference against every GPU path (Stream Output, native and pulling captures).

Expected values are worked out by hand: a texel's value encodes its place (10 y + x, 100 more
on level 1), so each output says which texel D3D's rules pick. Load outside the level or of a
missing level reads 0 in every component (rules 17.1); GetDimensions of a level past the last
gives size 0 (rules 17.2); point SampleLevel picks texel floor(u * width) with WRAP, MIRROR or
CLAMP applied to the integer, the level nearest the LOD clamped to MaxLOD and the texture's
levels (rules 17.3, 17.4). Texture coordinates sit at texel centres, where no rounding of the
coordinate can move the pick.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_so_gpu
from helpers import EXAMPLE_CASES
from texture_cases import assert_filtered_within, so_words, texture_case_doc

LOAD = r"""
Texture2D<float4> Tex : register(t2);
static const int3 AT[8] = { int3(0, 0, 0), int3(3, 1, 0), int3(1, 0, 1), int3(4, 0, 0),
                            int3(0, 2, 0), int3(-1, 0, 0), int3(0, 0, 2), int3(1, 0, -1) };
struct O { float4 pos : SV_Position; float4 texel : TEXCOORD0; uint4 dims : TEXCOORD1; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.texel = Tex.Load(AT[id]);
    uint w, h, n; Tex.GetDimensions(uint(AT[id].z), w, h, n);
    uint w0, h0; Tex.GetDimensions(w0, h0);
    o.dims = uint4(w, h, n, w0 * 100 + h0);
    return o;
}
"""

SAMPLE = r"""
// One texture per sampler: wgpu's OpenGL backend combines each texture with one sampler.
Texture2D<float> Tex : register(t0);
Texture2D<float> Tex1 : register(t1);
Texture2D<float> Tex4 : register(t4);
SamplerState Wrap : register(s0);
SamplerState Mirror : register(s1);
SamplerState Clamp : register(s3);
static const float3 UVL[8] = {
    float3(1.5, 2.5, 0) / 4, float3(-0.5, 5.5, 0) / 4, float3(5.5, -0.5, 0) / 4,
    float3(-4.5, 9.5, 0) / 4, float3(9.5, 6.5, 0) / 4, float3(6.5, -4.5, 0) / 4,
    float3(0.75, 0.25, 1.0), float3(0.75, 0.25, 3.0) };
struct O { float4 pos : SV_Position; float3 picked : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    float2 uv = UVL[id].xy;
    float lod = UVL[id].z;
    o.picked = float3(Tex.SampleLevel(Wrap, uv, lod), Tex1.SampleLevel(Mirror, uv, lod),
                      Tex4.SampleLevel(Clamp, uv, lod));
    return o;
}
"""



# A 4x2 R32_FLOAT texture of 2 levels: level 0 holds 1..8 row by row, level 1 (2x1) 9, 10.
LOAD_TEXTURE = {"register": 2, "kind": "texture2d", "format": "R32_FLOAT", "width": 4,
                "height": 2, "mip_levels": 2,
                "data": {"dtype": "float32", "values": list(range(1, 11))}}
# Per vertex: the texel (R32_FLOAT: r, 0, 0, 1; 0 in every component outside) and
# GetDimensions(mip): width, height, levels, then 100 * width + height of level 0.
LOAD_WANT_TEXEL = np.array([[1, 0, 0, 1], [8, 0, 0, 1], [10, 0, 0, 1], [0, 0, 0, 0],
                            [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
                           np.float32).view(np.uint32)
LOAD_WANT_DIMS = np.array([[4, 2, 2, 402], [4, 2, 2, 402], [2, 1, 2, 402], [4, 2, 2, 402],
                           [4, 2, 2, 402], [4, 2, 2, 402], [0, 0, 2, 402], [0, 0, 2, 402]],
                          np.uint32)


def load_case_doc():
    return load_case(texture_case_doc("texture_load", LOAD, 8, [LOAD_TEXTURE], [(0, 4), (1, 4)]))


# A 4x4 R16G16_FLOAT texture of 2 levels, texel (x, y) r = 10 y + x, level 1 (2x2) 100 + 10 y
# + x (whole numbers below 2048: exact halves; g = 0). R16G16_FLOAT is filterable everywhere;
# the R32_FLOAT variant below needs float32-filterable.
LEVEL0 = [10 * y + x for y in range(4) for x in range(4)]
LEVEL1 = [100 + 10 * y + x for y in range(2) for x in range(2)]
_HALVES = np.array([[v, 0] for v in LEVEL0 + LEVEL1], np.float16).view(np.uint16)
SAMPLE_TEXTURE = {"register": 0, "kind": "texture2d", "format": "R16G16_FLOAT", "width": 4,
                  "height": 4, "mip_levels": 2,
                  "data": {"dtype": "uint16", "values": _HALVES.reshape(-1).tolist()}}
SAMPLE_TEXTURE_F32 = {**SAMPLE_TEXTURE, "format": "R32_FLOAT",
                      "data": {"dtype": "float32", "values": LEVEL0 + LEVEL1}}
SAMPLE_TEXTURES = [SAMPLE_TEXTURE, {**SAMPLE_TEXTURE, "register": 1},
                   {**SAMPLE_TEXTURE, "register": 4}]
SAMPLERS = [{"register": 0, "filter": "MIN_MAG_MIP_POINT", "address_u": "WRAP",
             "address_v": "WRAP"},
            {"register": 1, "filter": "MIN_MAG_MIP_POINT", "address_u": "MIRROR",
             "address_v": "MIRROR"},
            {"register": 3, "filter": "MIN_MAG_MIP_POINT", "address_u": "CLAMP",
             "address_v": "CLAMP", "max_lod": 0}]
# Texel indices i along u or v, width 4: WRAP i mod 4; MIRROR i mod 8, reflected to 7 - m past
# 3; CLAMP to 0..3. i = 1: 1 1 1; -1: 3 0 0; 5: 1 2 3; -5: 3 3 0; 9: 1 1 3; 6: 2 1 3; 2: 2 2 2.
_PICK = {1: (1, 1, 1), -1: (3, 0, 0), 5: (1, 2, 3), -5: (3, 3, 0), 9: (1, 1, 3), 6: (2, 1, 3),
         2: (2, 2, 2)}
_PAIRS = [(1, 2), (-1, 5), (5, -1), (-5, 9), (9, 6), (6, -5)]
SAMPLE_WANT = np.array(
    [[10 * _PICK[v][k] + _PICK[u][k] for k in range(3)] for u, v in _PAIRS]
    # uv (0.75, 0.25) at LOD 1 and 3: level 1 (the last) texel (1, 0) = 101 for WRAP and
    # MIRROR; the CLAMP sampler's MaxLOD 0 keeps level 0, texel (3, 1) = 13.
    + [[101, 101, 13], [101, 101, 13]], np.float32).view(np.uint32)


def sample_case_doc():
    return load_case(texture_case_doc("texture_sample", SAMPLE, 8, SAMPLE_TEXTURES, [(0, 3)],
                                      SAMPLERS))



def test_load_and_dimensions_cpu_and_stream_output(gpu_device):
    case = load_case_doc()
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], LOAD_WANT_TEXEL)
    np.testing.assert_array_equal(cpu["TEXCOORD1"], LOAD_WANT_DIMS)
    so = so_words(run_case_so_gpu(case, gpu_device), 8, 8)
    np.testing.assert_array_equal(so[:, :4], LOAD_WANT_TEXEL)
    np.testing.assert_array_equal(so[:, 4:], LOAD_WANT_DIMS)


def test_point_sampling_address_modes_cpu_and_stream_output(gpu_device):
    case = sample_case_doc()
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], SAMPLE_WANT)
    so = so_words(run_case_so_gpu(case, gpu_device), 8, 3)
    np.testing.assert_array_equal(so, SAMPLE_WANT)


@pytest.mark.parametrize("make", [load_case_doc, sample_case_doc], ids=["load", "sample"])
def test_capture_paths_match_the_cpu(gpu_device, make):
    result = cross_check(make(), [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


def test_heightmap_example(gpu_device):
    case = load_case(str(EXAMPLE_CASES / "texture_heightmap.json"))
    cpu = shader_outputs(case, run_reference(case))
    # The description's grid: vertex (i, j) at uv ((i + 0.5) / 4, (j + 0.5) / 4) samples texel
    # (i, j) of the 4x4 heightmap, whose value is 0.25 (i + 4 j): world (i, height, j).
    want = np.array([[i, 0.25 * (i + 4 * j), j] for j in range(4) for i in range(4)],
                    np.float32).view(np.uint32)
    np.testing.assert_array_equal(cpu["TEXCOORD0"], want)  # a point list: vertex k, row k
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


def test_refusals():
    with pytest.raises(InvalidDescError, match="binds no texture"):
        load_case(texture_case_doc("t", LOAD, 1, [], [(0, 4), (1, 4)]))
    with pytest.raises(InvalidDescError, match="binds no sampler"):
        load_case(texture_case_doc("t", SAMPLE, 1, SAMPLE_TEXTURES, [(0, 3)], SAMPLERS[:2]))
    # BORDER is sampled; an integer border colour (for integer formats) is refused with it
    with pytest.raises(UnsupportedError, match="integer border colour"):
        load_case(texture_case_doc("t", SAMPLE, 1, SAMPLE_TEXTURES, [(0, 3)],
                       [{**SAMPLERS[0], "address_u": "BORDER",
                         "border_color": "OPAQUE_WHITE_UINT"}, *SAMPLERS[1:]]))
    # a comparison filter on a SamplerState (D3D's sampler modes, rules 17.10)
    with pytest.raises(InvalidDescError, match="bind a filter other than COMPARISON_"):
        load_case(texture_case_doc("t", SAMPLE, 1, SAMPLE_TEXTURES, [(0, 3)],
                       [{**SAMPLERS[0], "filter": "COMPARISON_MIN_MAG_MIP_LINEAR",
                         "comparison_func": "LESS"}, *SAMPLERS[1:]]))
    bad = {**LOAD_TEXTURE, "data": {"dtype": "float32", "values": list(range(1, 10))}}
    with pytest.raises(InvalidDescError, match="texels"):
        load_case(texture_case_doc("t", LOAD, 1, [bad], [(0, 4), (1, 4)]))


FORMATS = r"""
Texture2D<float4> A : register(t0);
Texture2D<float4> B : register(t1);
Texture2D<float4> C : register(t2);
Texture2D<float4> D : register(t3);
struct O { float4 pos : SV_Position; float4 a : TEXCOORD0; float4 b : TEXCOORD1;
           float4 c : TEXCOORD2; float4 d : TEXCOORD3; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    int3 at = int3(id, 0, 0);
    o.a = A.Load(at); o.b = B.Load(at); o.c = C.Load(at); o.d = D.Load(at);
    return o;
}
"""
FORMAT_TEXTURES = [
    {"register": 0, "kind": "texture2d", "format": "R8G8B8A8_UNORM", "width": 2, "height": 1,
     "data": {"hex": "00ff3366ff0000ff"}},
    {"register": 1, "kind": "texture2d", "format": "R8_UNORM", "width": 1, "height": 1,
     "data": {"hex": "33"}},
    {"register": 2, "kind": "texture2d", "format": "R16G16_FLOAT", "width": 1, "height": 1,
     "data": {"dtype": "uint16", "values": [0x3C00, 0xC000]}},
    {"register": 3, "kind": "texture2d", "format": "DXGI_FORMAT_R32G32B32A32_FLOAT", "width": 1,
     "height": 1, "data": {"dtype": "float32", "values": [1.5, -0.25, 3, 4]}}]
# UNORM c / (2^n - 1) correctly rounded: 0x33 = 51 -> 0.2, 0x66 = 102 -> 0.4 (float32); the
# half floats 0x3C00 = 1, 0xC000 = -2; missing components 0, 0, 1 (rules 2.11); vertex 1 reads
# x = 1, outside the 1x1 textures: 0 in every component (rules 17.1).
FORMAT_WANT = np.array([
    [[0, 1, 0.2, 0.4], [0.2, 0, 0, 1], [1, -2, 0, 1], [1.5, -0.25, 3, 4]],
    [[1, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]], np.float32).view(np.uint32)


def test_formats_decode_as_d3d(gpu_device):
    case = load_case(texture_case_doc("texture_formats", FORMATS, 2, FORMAT_TEXTURES,
                          [(0, 4), (1, 4), (2, 4), (3, 4)]))
    cpu = shader_outputs(case, run_reference(case))
    got = np.stack([cpu[f"TEXCOORD{k}"] for k in range(4)], axis=1)
    np.testing.assert_array_equal(got, FORMAT_WANT)
    so = so_words(run_case_so_gpu(case, gpu_device), 2, 16).reshape(2, 4, 4)
    # A GPU's UNORM conversion may lie 1 ULP from the correctly rounded quotient (lavapipe reads
    # 51 / 255 as 0x3E4CCCCE, not 0.2's 0x3E4CCCCD), as its vertex fetch may (docs/gpu.md):
    # 1 ULP is allowed on the UNORM textures' components (A, B), everything else is exact.
    unorm = np.zeros(FORMAT_WANT.shape, bool)
    unorm[:, :2] = True
    distance = np.abs(so.astype(np.int64) - FORMAT_WANT.astype(np.int64))
    assert (distance[~unorm] == 0).all(), so
    assert (distance[unorm] <= 1).all(), so
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


def test_r16_unorm_reads_on_the_cpu_and_is_refused_without_the_feature(gpu_device):
    r16 = {"register": 1, "kind": "texture2d", "format": "R16_UNORM", "width": 1, "height": 1,
           "data": {"dtype": "uint16", "values": [0x8000]}}
    case = load_case(texture_case_doc("texture_r16", FORMATS, 1, [*FORMAT_TEXTURES[:1], r16,
                                                       *FORMAT_TEXTURES[2:]],
                          [(0, 4), (1, 4), (2, 4), (3, 4)]))
    cpu = shader_outputs(case, run_reference(case))
    want = np.array([32768 / 65535, 0, 0, 1], np.float32).view(np.uint32)  # correctly rounded
    np.testing.assert_array_equal(cpu["TEXCOORD1"][0], want)
    if "texture-format16bit-norm" not in gpu_device.device.features:
        with pytest.raises(UnsupportedError, match="texture-format16bit-norm"):
            run_case_so_gpu(case, gpu_device)


LINEAR = r"""
Texture2D<float2> Clamped : register(t0);
Texture2D<float2> Wrapped : register(t1);
Texture2D<float2> Mipped : register(t2);
SamplerState LinearClamp : register(s0);
SamplerState LinearWrap : register(s1);
SamplerState MipLinear : register(s2);
static const float3 UVL[6] = { float3(0.375, 0.25, 0), float3(0.5, 0.25, 0),
                               float3(0.4375, 0.5, 0), float3(0, 0.25, 0),
                               float3(0.375, 0.25, 0.5), float3(0.875, 0.75, 3) };
struct O { float4 pos : SV_Position; float3 filtered : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    float2 uv = UVL[id].xy;
    float lod = UVL[id].z;
    o.filtered = float3(Clamped.SampleLevel(LinearClamp, uv, lod).r,
                        Wrapped.SampleLevel(LinearWrap, uv, lod).r,
                        Mipped.SampleLevel(MipLinear, uv, lod).r);
    return o;
}
"""
# R16G16_FLOAT 4x2, 2 levels: level 0 r = 10 y + x, level 1 (2x1) r = 100 + x; g = 1.
_HALF = {0: 0x0000, 1: 0x3C00, 2: 0x4000, 3: 0x4200, 10: 0x4900, 11: 0x4980, 12: 0x4A00,
         13: 0x4A80, 100: 0x5640, 101: 0x5650}
LINEAR_TEXELS = [v for r in [10 * y + x for y in range(2) for x in range(4)] + [100, 101]
                 for v in (_HALF[r], 0x3C00)]
LINEAR_TEXTURES = [{"register": k, "kind": "texture2d", "format": "R16G16_FLOAT", "width": 4,
                    "height": 2, "mip_levels": 2,
                    "data": {"dtype": "uint16", "values": LINEAR_TEXELS}} for k in range(3)]
LINEAR_SAMPLERS = [
    {"register": 0, "filter": "MIN_MAG_MIP_LINEAR", "address_u": "CLAMP", "address_v": "CLAMP"},
    {"register": 1, "filter": "MIN_MAG_MIP_LINEAR", "address_u": "WRAP", "address_v": "WRAP"},
    {"register": 2, "filter": "MIN_MAG_POINT_MIP_LINEAR"}]
# Hand-worked (rules 17.3, 17.6): linear taps floor(u * w - 0.5) and the next, weight the
# fraction; a point tap floor(u * w); LOD 0 takes level 0 alone, LOD 0.5 half of levels 0 and
# 1, LOD 3 level 1 (the last). Per vertex (clamp, wrap, point with linear mip):
#  0 (0.375, 0.25): texel centre (1, 0): 1, 1, 1
#  1 (0.5, 0.25): between texels 1 and 2: 1.5, 1.5; point texel 2: 2
#  2 (0.4375, 0.5): u taps 1, 2 at 0.75, 0.25; v rows 0, 1 at 0.5: (1.25 + 11.25) / 2 = 6.25;
#    point texel (1, 1): 11
#  3 (0, 0.25): taps -1 and 0: clamp 0 and 0: 0; wrap 3 and 0: 1.5; point texel 0: 0
#  4 (0.375, 0.25), LOD 0.5: level 0 gives 1; level 1 (2x1): u taps 0, 1 at 0.75, 0.25:
#    100.25 (both v taps row 0): (1 + 100.25) / 2 = 50.625 for clamp and wrap; point: (1 +
#    100) / 2 = 50.5
#  5 (0.875, 0.75), LOD 3: level 1: u taps 1, 2 at 0.75, 0.25: clamp 101, wrap 101 * 0.75 +
#    100 * 0.25 = 100.75; point texel 1: 101
LINEAR_WANT = np.array([[1, 1, 1], [1.5, 1.5, 2], [6.25, 6.25, 11], [0, 1.5, 0],
                        [50.625, 50.625, 50.5], [101, 100.75, 101]], np.float32)


def linear_case_doc():
    return load_case(texture_case_doc("texture_linear", LINEAR, 6, LINEAR_TEXTURES, [(0, 3)],
                          LINEAR_SAMPLERS))


def test_linear_filtering_within_the_stated_tolerance(gpu_device):
    from gpuia.harness.case_textures import WEIGHT_ERROR

    # rules 17.6: 3 weights each off by at most 0.6 * 2^-8, times the textures' range 0..101
    assert_filtered_within(linear_case_doc(), LINEAR_WANT, 3 * WEIGHT_ERROR * 101, gpu_device,
                           "linear filtering")


def test_a_sampled_float32_texture_needs_the_feature(gpu_device):
    textures = [{**SAMPLE_TEXTURE_F32, "register": t["register"]} for t in SAMPLE_TEXTURES]
    case = load_case(texture_case_doc("texture_sample_f32", SAMPLE, 8, textures, [(0, 3)],
                                      SAMPLERS))
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], SAMPLE_WANT)
    if gpu_device.caps.float32_filterable:
        so = so_words(run_case_so_gpu(case, gpu_device), 8, 3)
        np.testing.assert_array_equal(so, SAMPLE_WANT)
    else:
        with pytest.raises(UnsupportedError, match="float32-filterable"):
            run_case_so_gpu(case, gpu_device)


def test_the_context_api_binds_and_refuses(gpu_device):
    from gpuia import InputLayout
    from gpuia.gpu import Context, PipelineState
    from gpuia.gpu.textures import create_texture
    from gpuia.hlsl import compile_shader

    vs = compile_shader(LOAD)
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(InputLayout([]), vs))
    ctx.ia_set_primitive_topology("POINTLIST")
    with pytest.raises(InvalidDescError, match="set_texture_shader_resource_view"):
        ctx.draw_instanced(1)  # t2 is read and not bound
    with pytest.raises(InvalidDescError, match="ShaderRegister"):
        ctx.set_texture_shader_resource_view(128, None)
    with pytest.raises(InvalidDescError, match="Texture2D of this device"):
        ctx.set_texture_shader_resource_view(2, b"texels")
    with pytest.raises(InvalidDescError, match="ShaderRegister"):
        ctx.set_sampler(16, {})
    with pytest.raises(UnsupportedError, match="finite border colours"):
        ctx.set_sampler(0, {"address_u": "BORDER", "border_color": [0, float("nan"), 0, 1]})
    with pytest.raises(InvalidDescError, match="MipLevels"):
        create_texture(gpu_device, "R32_FLOAT", 4, 2, 4)  # a 4x2 chain has 3 levels
    tex = create_texture(gpu_device, "R32_FLOAT", 4, 2, 2,
                         np.arange(1, 11, dtype=np.float32).tobytes())
    ctx.set_texture_shader_resource_view(2, tex)
    ctx.draw_instanced(8)
    ctx.flush()
    tex.release()
    with pytest.raises(InvalidDescError, match="released"):
        ctx.draw_instanced(8)


UNORM_LINEAR = r"""
Texture2D<float4> Ramp : register(t0);
SamplerState Linear : register(s0);
static const float U[4] = { 0.4, 0.55, 0.7, 0.9 };
struct O { float4 pos : SV_Position; float r : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.r = Ramp.SampleLevel(Linear, float2(U[id], 0.5), 0).r;
    return o;
}
"""


def test_linear_weights_a_gpu_rounds_stay_within_the_bound(gpu_device):
    # A 2x1 R8G8B8A8_UNORM ramp, red 0 then 255 (1.0): at u the taps are texels 0 and 1 with
    # weight 2u - 0.5 on texel 1 (clamped), so red = 2u - 0.5: 0.3, 0.6, 0.9, 1.0 (u = 0.9:
    # taps 1 and 2 -> clamp 1). 0.3 and 0.6 need more than 8 fractional bits: a GPU's 8-bit
    # weights round them, within the bound 3 * 0.6 * 2^-8 * 1 + 0.5 / 255 (rules 17.6).
    from gpuia.harness.case_textures import WEIGHT_ERROR, filtering_tolerance
    from gpuia.harness.compare import SHADER_TOLERANCE

    ramp = {"register": 0, "kind": "texture2d", "format": "R8G8B8A8_UNORM", "width": 2,
            "height": 1, "data": {"hex": "000000ffff0000ff"}}
    case = load_case(texture_case_doc("texture_unorm_linear", UNORM_LINEAR, 4, [ramp], [(0, 1)],
                          [{"register": 0, "filter": "MIN_MAG_MIP_LINEAR"}]))
    want = np.array([0.3, 0.6, 0.9, 1.0])
    bound = 3 * WEIGHT_ERROR * 1.0 + 0.5 / 255
    assert filtering_tolerance(case, SHADER_TOLERANCE).absolute == bound
    cpu = shader_outputs(case, run_reference(case))["TEXCOORD0"][:, 0].view(np.float32)
    assert np.abs(cpu - want).max() < 1e-6  # exact weights: only float32's rounding of u
    gpu = so_words(run_case_so_gpu(case, gpu_device), 4, 1)[:, 0].view(np.float32)
    off = np.abs(gpu.astype(np.float64) - cpu)
    assert (off <= bound).all(), (gpu, cpu)
    print(f"UNORM linear filtering: {int((off > 0).sum())} of 4 values off the CPU, largest "
          f"{off.max():g} (bound {bound:g})")
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


ARRAY = r"""
Texture2DArray<float2> Arr : register(t1);
SamplerState S : register(s2);
static const int4 AT[6] = { int4(1, 1, 0, 0), int4(0, 1, 2, 0), int4(0, 0, 1, 1),
                            int4(0, 0, 3, 0), int4(0, 0, -1, 0), int4(2, 0, 0, 0) };
static const float3 UVW[6] = { float3(0.75, 0.25, 0), float3(0.25, 0.75, 1.5),
                               float3(0.25, 0.25, 2.5), float3(0.25, 0.25, 0.5),
                               float3(0.25, 0.25, -3), float3(0.25, 0.25, 9) };
static const uint MIP[6] = { 0, 1, 2, 0, 1, 0 };
struct O { float4 pos : SV_Position; float2 read : TEXCOORD0; uint4 dims : TEXCOORD1; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.read = float2(Arr.Load(AT[id]).r, Arr.SampleLevel(S, UVW[id], 0).r);
    uint w, h, e, l; Arr.GetDimensions(MIP[id], w, h, e, l);
    o.dims = uint4(w, h, e, l);
    return o;
}
"""
# 3 slices of a 2x2 R16G16_FLOAT texture of 2 levels, slice by slice: level 0 r = 100 s + 10 y
# + x, level 1 (1x1) r = 100 s + 50; g = 0.
_ARRAY_R = [v for s in range(3) for v in [100 * s + 10 * y + x for y in range(2)
                                          for x in range(2)] + [100 * s + 50]]
ARRAY_TEXTURE = {"register": 1, "kind": "texture2d", "format": "R16G16_FLOAT", "width": 2,
                 "height": 2, "mip_levels": 2, "array_size": 3,
                 "data": {"dtype": "uint16", "values": np.array(
                     [[r, 0] for r in _ARRAY_R], np.float16).view(np.uint16).reshape(-1).tolist()}}
# Load (x, y, slice, mip) (rules 17.1): 11; 210; slice 1 level 1: 150; slice 3 of 3, slice -1
# (unsigned: past the end) and x = 2 outside: 0. SampleLevel, point, CLAMP, LOD 0 (rules
# 17.3): the slice rounded to nearest even and clamped: 0 -> 0, 1.5 -> 2, 2.5 -> 2, 0.5 -> 0,
# -3 -> 0, 9 -> 2; texel (floor(2u), floor(2v)): (1, 0) -> 1, (0, 1) -> 210, then (0, 0): 200,
# 0, 0, 200. GetDimensions(mip): level 0 2x2, level 1 1x1, 3 slices, 2 levels; mip 2 is past the
# last: width, height and slices 0 (resinfo), the level count kept.
ARRAY_WANT_READ = np.array([[11, 1], [210, 210], [150, 200], [0, 0], [0, 0], [0, 200]],
                           np.float32).view(np.uint32)
ARRAY_WANT_DIMS = np.array([[2, 2, 3, 2], [1, 1, 3, 2], [0, 0, 0, 2], [2, 2, 3, 2],
                            [1, 1, 3, 2], [2, 2, 3, 2]], np.uint32)


def test_texture_array_load_sample_and_dimensions(gpu_device):
    case = load_case(texture_case_doc("texture_array", ARRAY, 6, [ARRAY_TEXTURE], [(0, 2), (1, 4)],
                          [{"register": 2, "filter": "MIN_MAG_MIP_POINT"}]))
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], ARRAY_WANT_READ)
    np.testing.assert_array_equal(cpu["TEXCOORD1"], ARRAY_WANT_DIMS)
    so = so_words(run_case_so_gpu(case, gpu_device), 6, 6)
    np.testing.assert_array_equal(so[:, :2], ARRAY_WANT_READ)
    np.testing.assert_array_equal(so[:, 2:], ARRAY_WANT_DIMS)
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


GS_DOUBLE = r"""
struct V { float4 pos : SV_Position; float3 world : TEXCOORD0; };
struct G { float4 pos : SV_Position; float3 twice : TEXCOORD0; };
[maxvertexcount(1)]
void main(point V v[1], inout PointStream<G> s) {
    G o; o.pos = v[0].pos; o.twice = v[0].world * 2; s.Append(o);
}
"""


def test_textures_reach_the_vertex_pass_of_a_geometry_shader(gpu_device):
    """The heightmap example's vertex shader feeding a geometry shader: its vertex pass binds
    the texture and sampler too, on the GPU and in the CPU reference. The GS doubles the
    displaced vertex (i, 0.25 (i + 4 j), j) of each point."""
    import json

    from gpuia.harness.run import reference_gs, reference_so

    doc = json.loads((EXAMPLE_CASES / "texture_heightmap.json").read_text())
    doc["geometry_shader"] = {"hlsl": GS_DOUBLE}
    case = load_case(doc)
    want = np.array([[2 * i, 0.5 * (i + 4 * j), 2 * j] for j in range(4) for i in range(4)],
                    np.float32).view(np.uint32)
    ia = run_reference(case)
    ref = reference_so(case, ia, reference_gs(case, ia))
    np.testing.assert_array_equal(
        np.frombuffer(ref.buffers[0], np.uint32)[:48].reshape(16, 3), want)
    np.testing.assert_array_equal(so_words(run_case_so_gpu(case, gpu_device), 16, 3), want)


ONCE = r"""
Texture2D<float> Once : register(t0);
Texture2D<float> Biased : register(t1);
SamplerState MirrorOnce : register(s4);
SamplerState Bias : register(s5);
static const float2 UV[6] = { float2(-0.125, 0.625), float2(1.375, 0.125), float2(-1.625, 0.375),
                              float2(0.625, -2.125), float2(-0.875, 1.125), float2(0.375, 0.875) };
struct O { float4 pos : SV_Position; float2 picked : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.picked = float2(Once.SampleLevel(MirrorOnce, UV[id], 0),
                      Biased.SampleLevel(Bias, float2(0.375, 0.125), id * 0.5));
    return o;
}
"""
ONCE_SAMPLERS = [{"register": 4, "address_u": "MIRROR_ONCE", "address_v": "MIRROR_ONCE"},
                 {"register": 5, "mip_lod_bias": 0.75, "max_lod": 1}]
# MIRROR_ONCE on texel index i of 4 (rules 17.4): a negative i becomes -i - 1, then clamped to
# 0..3. u or v = (i + 0.5) / 4: i = -1 -> 0, 5 -> 3, -7 -> 6 -> 3, 2 -> 2, -9 -> 8 -> 3, 4 -> 3,
# 1 -> 1, 3 -> 3, -4 -> 3, 0 -> 0. Texel (x, y) holds 10 y + x:
#   (-0.125, 0.625): (0, 2) 20; (1.375, 0.125): (3, 0) 3; (-1.625, 0.375): (3, 1) 13;
#   (0.625, -2.125): (2, 3) 32; (-0.875, 1.125): (3, 3) 33; (0.375, 0.875): (1, 3) 31.
# MipLODBias 0.75 (added to SampleLevel's LOD as sample_l does), MaxLOD 1: LOD 0.75, 1.25,
# 1.75 (clamped to 1), ...: the nearest level floor(lod + 0.5) is 1 for all six, texel
# (floor(0.375 * 2), floor(0.125 * 2)) = (0, 0) of level 1: 100. Without the bias, vertex 0
# (LOD 0) would read level 0: 1.
ONCE_WANT = np.array([[20, 100], [3, 100], [13, 100], [32, 100], [33, 100], [31, 100]],
                     np.float32).view(np.uint32)


def test_mirror_once_and_mip_lod_bias_are_emulated(gpu_device):
    textures = [{**SAMPLE_TEXTURE, "register": 0}, {**SAMPLE_TEXTURE, "register": 1}]
    case = load_case(texture_case_doc("texture_once", ONCE, 6, textures, [(0, 2)], ONCE_SAMPLERS))
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], ONCE_WANT)
    np.testing.assert_array_equal(so_words(run_case_so_gpu(case, gpu_device), 6, 2), ONCE_WANT)
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()
