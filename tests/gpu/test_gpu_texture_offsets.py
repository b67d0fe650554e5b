"""Texel offsets of SampleLevel and SampleCmpLevelZero in an HLSL vertex shader, and
SampleCmpLevelZero on a Texture1D (rules 17.11, 17.10), the CPU reference against every GPU
path (Stream Output, native and pulling captures).

Expected values are worked out by hand from the D3D11.3 spec's rules: the offset is added to
the integer texel index in the texels of the level sampled, before the address mode (WRAP
``i mod n``, MIRROR reflecting odd tiles, CLAMP to 0..n-1), never to an array's slice; a
Texture1D's offset is an int, a Texture3D's an int3. A texel's value encodes its place
(10 y + x, 100 more on level 1), so each output says which texel was taken. Coordinates sit at
texel centres (point) or half-way between two (linear), where no rounding moves a tap.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_so_gpu
from texture_cases import assert_filtered_within, so_words, texture_case_doc

POINT = r"""
// One texture per sampler: wgpu's OpenGL backend combines each texture with one sampler.
Texture2D<float> Tex : register(t0);
Texture2D<float> Tex1 : register(t1);
Texture2D<float> Tex4 : register(t4);
SamplerState Wrap : register(s0);
SamplerState Mirror : register(s1);
SamplerState Clamp : register(s3);
static const float3 UVL[4] = { float3(0.5, 0.5, 0) / 4, float3(2.5, 3.5, 0) / 4,
                               float3(3.5, 1.5, 0) / 4, float3(0.75, 0.25, 1.0) };
struct O { float4 pos : SV_Position; float3 picked : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    float2 uv = UVL[id].xy;
    float lod = UVL[id].z;
    o.picked = float3(Tex.SampleLevel(Wrap, uv, lod, int2(3, -2)),
                      Tex1.SampleLevel(Mirror, uv, lod, int2(3, -2)),
                      Tex4.SampleLevel(Clamp, uv, lod, int2(3, -2)));
    return o;
}
"""

# A 4x4 R16G16_FLOAT texture of 2 levels (filterable on every adapter): texel (x, y) of level
# 0 r = 10 y + x, of level 1 (2x2) 100 + 10 y + x; whole numbers, exact halves.
LEVEL0 = [10 * y + x for y in range(4) for x in range(4)]
LEVEL1 = [100 + 10 * y + x for y in range(2) for x in range(2)]
_HALVES = np.array([[v, 0] for v in LEVEL0 + LEVEL1], np.float16).view(np.uint16)
TEXTURE = {"register": 0, "kind": "texture2d", "format": "R16G16_FLOAT", "width": 4,
           "height": 4, "mip_levels": 2,
           "data": {"dtype": "uint16", "values": _HALVES.reshape(-1).tolist()}}
TEXTURES = [TEXTURE, {**TEXTURE, "register": 1}, {**TEXTURE, "register": 4}]
SAMPLERS = [{"register": r, "filter": "MIN_MAG_MIP_POINT", "address_u": a, "address_v": a}
            for r, a in ((0, "WRAP"), (1, "MIRROR"), (3, "CLAMP"))]
# Per vertex: the texel (x, y) the coordinate picks, plus the offset (3, -2), then addressed:
#  (0, 0) level 0 -> (3, -2): WRAP (3, 2) 23, MIRROR (3, 1) 13, CLAMP (3, 0) 3
#  (2, 3) level 0 -> (5, 1):  WRAP (1, 1) 11, MIRROR (2, 1) 12, CLAMP (3, 1) 13
#  (3, 1) level 0 -> (6, -1): WRAP (2, 3) 32, MIRROR (1, 0) 1,  CLAMP (3, 0) 3
#  (1, 0) of level 1 (2x2; LOD 1) -> (4, -2) in level 1's texels:
#     WRAP (0, 0) 100, MIRROR (0, 1) 110, CLAMP (1, 0) 101
# (MIRROR on 4: 5 -> 2, 6 -> 1, -1 -> 0, -2 -> 1; on 2: 4 -> 0, -2 -> 1.) Level 0's texels
# would give other values at LOD 1: the offset is in the sampled level's texels.
POINT_WANT = np.array([[23, 13, 3], [11, 12, 13], [32, 1, 3], [100, 110, 101]], np.float32)


def point_case():
    return load_case(texture_case_doc("texel_offset_point", POINT, 4, TEXTURES, [(0, 3)],
                                      SAMPLERS))


def _check_exact(case, want: np.ndarray, device) -> None:
    cpu = shader_outputs(case, run_reference(case))["TEXCOORD0"]
    np.testing.assert_array_equal(cpu, want.view(np.uint32))
    np.testing.assert_array_equal(so_words(run_case_so_gpu(case, device), *want.shape),
                                  want.view(np.uint32))
    result = cross_check(case, [device], ("native", "pulling"))
    assert result.ok, result.text()


def test_point_sample_level_offsets_before_the_address_mode(gpu_device):
    _check_exact(point_case(), POINT_WANT, gpu_device)


SHAPES = r"""
Texture1D<float> T1 : register(t0);
Texture3D<float> T3 : register(t1);
Texture2DArray<float> TA : register(t2);
SamplerState Wrap1 : register(s0);
SamplerState Wrap3 : register(s1);
SamplerState WrapA : register(s2);
struct O { float4 pos : SV_Position; float3 picked : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.picked = float3(T1.SampleLevel(Wrap1, 0.125, 0, 3),
                      T3.SampleLevel(Wrap3, float3(0.25, 0.25, 0.75), 0, int3(1, 2, -3)),
                      TA.SampleLevel(WrapA, float3(0.25, 0.75, 1), 0, int2(-8, 7)));
    return o;
}
"""
_T1 = {"register": 0, "kind": "texture1d", "format": "R16G16_FLOAT", "width": 4,
       "mip_levels": 1, "data": {"dtype": "uint16", "values": np.array(
           [[v, 0] for v in (1, 2, 3, 4)], np.float16).view(np.uint16).reshape(-1).tolist()}}


def _plane(values):
    return np.array([[v, 0] for v in values], np.float16).view(np.uint16).reshape(-1).tolist()


# 2x2x2 and two 2x2 slices: texel (x, y, z) / (x, y) of slice z = 100 z + 10 y + x
_T3 = {"register": 1, "kind": "texture3d", "format": "R16G16_FLOAT", "width": 2, "height": 2,
       "depth": 2, "mip_levels": 1,
       "data": {"dtype": "uint16", "values": _plane([100 * z + 10 * y + x for z in range(2)
                                                     for y in range(2) for x in range(2)])}}
_TA = {**_T3, "register": 2, "kind": "texture2d", "depth": 1, "array_size": 2}
_TA.pop("depth")
SHAPE_SAMPLERS = [{"register": r, "filter": "MIN_MAG_MIP_POINT", "address_u": "WRAP",
                   "address_v": "WRAP", "address_w": "WRAP"} for r in range(3)]
# Texture1D: u 0.125 * 4 = texel 0, + 3 = 3: value 4.
# Texture3D: (0.25, 0.25, 0.75) * 2 = texel (0, 0, 1), + (1, 2, -3) = (1, 2, -2), WRAP on 2:
#   (1, 0, 0): 1.
# Texture2DArray slice 1: (0.25, 0.75) * 2 = (0, 1), + (-8, 7) = (-8, 8), WRAP on 2: (0, 0),
#   the slice not offset: 100.
SHAPES_WANT = np.array([[4, 1, 100]], np.float32)


def test_offsets_of_each_shape(gpu_device):
    case = load_case(texture_case_doc("texel_offset_shapes", SHAPES, 1, [_T1, _T3, _TA],
                                      [(0, 3)], SHAPE_SAMPLERS))
    _check_exact(case, SHAPES_WANT, gpu_device)


LINEAR = r"""
Texture2D<float> Tex : register(t0);
SamplerState Linear : register(s0);
static const float2 UV[2] = { float2(1.0, 1.5) / 4, float2(3.0, 1.5) / 4 };
struct O { float4 pos : SV_Position; float picked : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.picked = Tex.SampleLevel(Linear, UV[id], 0, int2(1, -1));
    return o;
}
"""
# u * 4 - 0.5 = 0.5: taps 0 and 1, weight 0.5; v * 4 - 0.5 = 1: row 1 (weight 0). Offset
# (1, -1): taps (1, 0) and (2, 0): (1 + 2) / 2 = 1.5. Second vertex: u * 4 - 0.5 = 2.5, taps
# 2 and 3 + 1 = 3 and 4, WRAP 3 and 0: (3 + 0) / 2 = 1.5.
LINEAR_WANT = np.array([[1.5], [1.5]], np.float32)


def test_linear_sample_level_offset_within_the_bound(gpu_device):
    from gpuia.harness.case_textures import WEIGHT_ERROR

    sampler = {"register": 0, "filter": "MIN_MAG_MIP_LINEAR", "address_u": "WRAP",
               "address_v": "WRAP"}
    case = load_case(texture_case_doc("texel_offset_linear", LINEAR, 2, [TEXTURE], [(0, 1)],
                                      [sampler]))
    # rules 17.6: 3 weights each off by at most 0.6 * 2^-8, times the texture's range 0..111
    assert_filtered_within(case, LINEAR_WANT, 3 * WEIGHT_ERROR * 111, gpu_device,
                           "linear offset")


COMPARE = r"""
Texture1D<float> C1 : register(t0);
Texture2D<float> C2 : register(t1);
SamplerComparisonState Less1 : register(s0);
SamplerComparisonState Less2 : register(s1);
static const float REF[2] = { 0.25, 0.35 };
struct O { float4 pos : SV_Position; float4 passed : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    float r = REF[id];
    o.passed = float4(C1.SampleCmpLevelZero(Less1, 0.125, r),
                      C1.SampleCmpLevelZero(Less1, 0.125, r, 2),
                      C2.SampleCmpLevelZero(Less2, float2(0.875, 0.125), r),
                      C2.SampleCmpLevelZero(Less2, float2(0.875, 0.125), r, int2(2, 1)));
    return o;
}
"""
# R32_FLOAT: Texture1D 0.1 0.2 0.3 0.4; Texture2D 4x2, row 0 0.1 0.2 0.3 0.4, row 1 0.5 0.6
# 0.7 0.8. LESS: 1 when reference < texel.
_C1 = {"register": 0, "kind": "texture1d", "format": "R32_FLOAT", "width": 4, "mip_levels": 1,
       "data": {"dtype": "float32", "values": [0.1, 0.2, 0.3, 0.4]}}
_C2 = {"register": 1, "kind": "texture2d", "format": "R32_FLOAT", "width": 4, "height": 2,
       "mip_levels": 1,
       "data": {"dtype": "float32", "values": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]}}
COMPARE_SAMPLERS = [{"register": r, "filter": "COMPARISON_MIN_MAG_MIP_POINT",
                     "comparison_func": "LESS", "address_u": "CLAMP", "address_v": "WRAP"}
                    for r in range(2)]
# Texture1D u 0.125: texel 0 (0.1); offset 2: texel 2 (0.3).
# Texture2D (0.875, 0.125) * (4, 2): texel (3, 0) (0.4); offset (2, 1): (5, 1), u CLAMP 3,
#   v WRAP 1: 0.8.
# Reference 0.25: 0.1 no, 0.3 yes, 0.4 yes, 0.8 yes; 0.35: no, no, yes, yes.
COMPARE_WANT = np.array([[0, 1, 1, 1], [0, 0, 1, 1]], np.float32)


def test_comparisons_of_texture1d_and_with_offsets(gpu_device):
    case = load_case(texture_case_doc("texel_offset_compare", COMPARE, 2, [_C1, _C2], [(0, 4)],
                                      COMPARE_SAMPLERS))
    _check_exact(case, COMPARE_WANT, gpu_device)


def _shader_with(call: str) -> str:
    return POINT.replace("Tex.SampleLevel(Wrap, uv, lod, int2(3, -2))", call)


@pytest.mark.parametrize("call", ["Tex.SampleLevel(Wrap, uv, lod, int2(id, 0))",
                                  "Tex.SampleLevel(Wrap, uv, lod, int2(8, 0))",
                                  "Tex.SampleLevel(Wrap, uv, lod, int2(0, -9))"])
def test_programmable_and_out_of_range_offsets_refused(call):
    doc = texture_case_doc("texel_offset_refused", _shader_with(call), 4, TEXTURES, [(0, 3)],
                           SAMPLERS)
    with pytest.raises(InvalidDescError, match=r"rules 17\.11"):
        load_case(doc)


def test_mirror_once_with_an_offset_refused():
    # WebGPU has no MIRROR_ONCE: gpuia's mirror-repeat on a clamped coordinate (rules 17.4)
    # cannot take a texel offset exactly, so the pairing is refused naming the rule
    samplers = [{**SAMPLERS[0], "address_u": "MIRROR_ONCE"}, *SAMPLERS[1:]]
    doc = texture_case_doc("texel_offset_mirror_once", POINT, 4, TEXTURES, [(0, 3)], samplers)
    with pytest.raises(UnsupportedError, match=r"MIRROR_ONCE.*rules 17\.11"):
        load_case(doc)


LOAD = r"""
Texture1D<float> L1 : register(t0);
Texture2D<float> L2 : register(t1);
Texture2DArray<float> LA : register(t2);
Texture3D<float> L3 : register(t3);
struct O { float4 pos : SV_Position; float4 loaded : TEXCOORD0; float3 more : TEXCOORD1; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.loaded = float4(L1.Load(int2(1, 0), 2), L1.Load(int2(1, 0), -2),
                      L2.Load(int3(0, 0, 1), int2(1, 1)), L2.Load(int3(3, 0, 0), int2(1, 0)));
    o.more = float3(LA.Load(int4(1, 1, 1, 0), int2(-1, -1)), L3.Load(int4(0, 1, 1, 0),
                                                                     int3(1, -1, -1)),
                    L2.Load(int3(2, 1, 0), int2(-2, 2)));
    return o;
}
"""
_LOAD_TEXTURES = [
    {"register": 0, "kind": "texture1d", "format": "R32_FLOAT", "width": 4, "mip_levels": 1,
     "data": {"dtype": "float32", "values": [1, 2, 3, 4]}},
    {**TEXTURE, "register": 1, "format": "R32_FLOAT",
     "data": {"dtype": "float32", "values": LEVEL0 + LEVEL1}},
    {"register": 2, "kind": "texture2d", "format": "R32_FLOAT", "width": 2, "height": 2,
     "array_size": 2, "mip_levels": 1,
     "data": {"dtype": "float32", "values": [100 * z + 10 * y + x for z in range(2)
                                             for y in range(2) for x in range(2)]}},
    {"register": 3, "kind": "texture3d", "format": "R32_FLOAT", "width": 2, "height": 2,
     "depth": 2, "mip_levels": 1,
     "data": {"dtype": "float32", "values": [100 * z + 10 * y + x for z in range(2)
                                             for y in range(2) for x in range(2)]}}]
# ld adds the offset to the integer texel, the level's: D3D addresses no Load, so a texel
# moved outside reads 0 (rules 17.1).
#  Texture1D x 1 + 2 = 3: 4; 1 - 2 = -1: outside, 0.
#  Texture2D level 1 (2x2) (0, 0) + (1, 1) = (1, 1): 111 (level 0's (1, 1) is 11);
#    level 0 (3, 0) + (1, 0) = (4, 0): outside, 0; (2, 1) + (-2, 2) = (0, 3): 30.
#  Texture2DArray slice 1 (1, 1) + (-1, -1) = (0, 0), the slice kept: 100.
#  Texture3D (0, 1, 1) + (1, -1, -1) = (1, 0, 0): 1.
LOAD_WANT_LOADED = np.array([[4, 0, 111, 0]], np.float32)
LOAD_WANT_MORE = np.array([[100, 1, 30]], np.float32)


def test_load_offsets_of_each_shape(gpu_device):
    case = load_case(texture_case_doc("texel_offset_load", LOAD, 1, _LOAD_TEXTURES,
                                      [(0, 4), (1, 3)]))
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], LOAD_WANT_LOADED.view(np.uint32))
    np.testing.assert_array_equal(cpu["TEXCOORD1"], LOAD_WANT_MORE.view(np.uint32))
    so = so_words(run_case_so_gpu(case, gpu_device), 1, 7)
    np.testing.assert_array_equal(so[:, :4], LOAD_WANT_LOADED.view(np.uint32))
    np.testing.assert_array_equal(so[:, 4:], LOAD_WANT_MORE.view(np.uint32))
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


@pytest.mark.parametrize("offset", ["int2(id, 0)", "int2(8, 0)", "OFF"])
def test_load_offsets_refused(offset):
    hlsl = LOAD.replace("L2.Load(int3(3, 0, 0), int2(1, 0))",
                        f"L2.Load(int3(3, 0, 0), {offset})").replace(
        "struct O", "static const int2 OFF = int2(1, 0);\nstruct O")
    doc = texture_case_doc("texel_offset_load_refused", hlsl, 1, _LOAD_TEXTURES,
                           [(0, 4), (1, 3)])
    with pytest.raises(InvalidDescError, match=r"rules 17\.11"):
        load_case(doc)


LINEAR_COMPARE = r"""
Texture1D<float> C1 : register(t0);
SamplerComparisonState Less : register(s0);
static const float REF[2] = { 0.25, 0.35 };
struct O { float4 pos : SV_Position; float3 passed : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    float r = REF[id];
    o.passed = float3(C1.SampleCmpLevelZero(Less, 0.25, r),
                      C1.SampleCmpLevelZero(Less, 0.25, r, 2),
                      C1.SampleCmpLevelZero(Less, 0.25, r, 3));
    return o;
}
"""
# u * 4 - 0.5 = 0.5: taps 0 and 1, weight 0.5 each. Offset 2: taps 2 and 3 (0.3, 0.4); offset
# 3: taps 3 and 4, CLAMP 3 and 3 (0.4, 0.4). LESS on 0.1 0.2 0.3 0.4:
#   reference 0.25: taps 0.1 0.2 fail: 0; 0.3 0.4 pass: 1; 1.
#   reference 0.35: 0; 0.3 fails, 0.4 passes: (0 + 1) / 2 = 0.5; 1.
LINEAR_COMPARE_WANT = np.array([[0, 1, 1], [0, 0.5, 1]], np.float32)


def test_linear_texture1d_comparison_with_offsets_within_the_bound(gpu_device):
    from gpuia.harness.case_textures import WEIGHT_ERROR

    sampler = {**COMPARE_SAMPLERS[0], "filter": "COMPARISON_MIN_MAG_MIP_LINEAR"}
    case = load_case(texture_case_doc("texel_offset_linear_compare", LINEAR_COMPARE, 2, [_C1],
                                      [(0, 3)], [sampler]))
    # rules 17.10: 17.6's bound with R = 1 plus the product of the two weights' errors
    assert_filtered_within(case, LINEAR_COMPARE_WANT, 3 * WEIGHT_ERROR + 2 * WEIGHT_ERROR ** 2,
                           gpu_device, "linear Texture1D comparison with offsets")
