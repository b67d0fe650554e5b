"""The BORDER address mode in an HLSL vertex shader (rules 17.4): SampleLevel with point and
linear filters on Texture1D, Texture2D, Texture2DArray and Texture3D, texel offsets, mips,
static border colours and SampleCmpLevelZero, the CPU reference against every GPU path (Stream
Output, native and pulling captures).

Expected values are worked out by hand from the D3D11.3 spec: a point tap is texel
``floor(u * size)``, linear taps ``floor(u * size - 0.5)`` and the next weighted by the fraction
(7.18.7, 7.18.8), the offset added before the address mode (rules 17.11); a tap outside the
level on a BORDER axis takes the border colour, of which the format keeps the components it has
(clamped to its range) and takes its defaults 0, 0, 0, 1 for the others (7.18.9, 7.18.9.1).
The 2x2 R16G16_FLOAT texture holds r = 1, 2 (row 0) and 11, 12 (row 1), g = 0; its 1x1 level 1
r = 50. The border colour (100, 200, 300, 400) reads (100, 200, 0, 1) on it. Coordinates sit at
texel centres, just inside or outside an edge (point), or at weights 0.25, 0.5 and 0.75
(linear), where every result is exact.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.harness.case import load_case
from gpuia.harness.case_textures import WEIGHT_ERROR, filtering_tolerance
from gpuia.harness.compare import SHADER_TOLERANCE
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_so_gpu
from texture_cases import assert_filtered_within, so_words, texture_case_doc

pytest.importorskip("gpuia.hlsl.library")

BORDER = (100.0, 200.0, 0.0, 1.0)  # (100, 200, 300, 400) on R16G16_FLOAT


def _halves(values):
    return np.array([[v, 0] for v in values], np.float16).view(np.uint16).reshape(-1).tolist()


def _texture(register, values, width=2, height=2, levels=1, **more):
    return {"register": register, "kind": "texture2d", "format": "R16G16_FLOAT",
            "width": width, "height": height, "mip_levels": levels,
            "data": {"dtype": "uint16", "values": _halves(values)}, **more}


def _sampler(register, filt, u, v, w="CLAMP", colour=(100, 200, 300, 400)):
    return {"register": register, "filter": filt, "address_u": u, "address_v": v,
            "address_w": w, "border_color": list(colour)}


POINT = r"""
Texture2D<float4> Tex : register(t0);
Texture2D<float4> Tex1 : register(t1);
SamplerState Border : register(s0);
SamplerState BorderUWrapV : register(s1);
static const float3 UVL[10] = {
    float3(0.25, 0.25, 0), float3(0.75, 0.75, 0), float3(-0.001, 0.25, 0),
    float3(0.0, 0.25, 0), float3(0.999, 0.75, 0), float3(1.0, 0.75, 0),
    float3(0.25, 1.25, 0), float3(0.75, -0.25, 0), float3(0.75, 0.25, 1),
    float3(0.6, 0.6, 1) };
struct O { float4 pos : SV_Position; float4 a : TEXCOORD0; float4 b : TEXCOORD1;
           float4 c : TEXCOORD2; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    float2 uv = UVL[id].xy;
    float lod = UVL[id].z;
    o.a = Tex.SampleLevel(Border, uv, lod);
    o.b = Tex1.SampleLevel(BorderUWrapV, uv, lod);
    o.c = Tex.SampleLevel(Border, uv, lod, int2(1, -1));
    return o;
}
"""
# level 0 (2x2): r 1, 2 / 11, 12; level 1 (1x1): r 50
TEXELS = [1, 2, 11, 12, 50]


def _t(r):
    return (r, 0.0, 0.0, 1.0)


# Per vertex (u, v, lod): a = BORDER on u and v; b = BORDER on u, WRAP on v; c = a at offset
# (1, -1), added to the texel index before the address mode:
#  (0.25, 0.25) L0: texel (0, 0): 1; b 1; c (1, -1): v outside
#  (0.75, 0.75) L0: (1, 1): 12; b 12; c (2, 0): u outside
#  (-0.001, 0.25): floor(-0.002) = -1: outside; b outside (u); c (0, -1) outside
#  (0.0, 0.25): 0 inside: 1; b 1; c (1, -1) outside
#  (0.999, 0.75): floor(1.998) = 1: 12; b 12; c (2, 0) outside
#  (1.0, 0.75): 2, outside; b outside; c (3, 0) outside
#  (0.25, 1.25): v index 2 outside; b WRAP frac(1.25) 0.25: row 0: 1; c (1, 2 - 1 = 1): 12
#  (0.75, -0.25): v -1 outside; b frac(-0.25) = 0.75: row 1: 12; c (2, -2) outside
#  (0.75, 0.25) L1 (1x1): (0, 0): 50; b 50; c (1, -1) outside level 1
#  (0.6, 0.6) L1: 50 (level 0 would give 12); b 50; c outside
POINT_WANT = np.array([
    [*_t(1), *_t(1), *BORDER], [*_t(12), *_t(12), *BORDER], [*BORDER, *BORDER, *BORDER],
    [*_t(1), *_t(1), *BORDER], [*_t(12), *_t(12), *BORDER], [*BORDER, *BORDER, *BORDER],
    [*BORDER, *_t(1), *_t(12)], [*BORDER, *_t(12), *BORDER], [*_t(50), *_t(50), *BORDER],
    [*_t(50), *_t(50), *BORDER]], np.float32)


def _point_case():
    doc = texture_case_doc(
        "border_point", POINT, 10, [_texture(0, TEXELS, levels=2),
                                    _texture(1, TEXELS, levels=2)], [(0, 4), (1, 4), (2, 4)],
        [_sampler(0, "MIN_MAG_MIP_POINT", "BORDER", "BORDER"),
         _sampler(1, "MIN_MAG_MIP_POINT", "BORDER", "WRAP")])
    return load_case(doc)


def _so_rows(case, device, count, width):
    return so_words(run_case_so_gpu(case, device), count, width)


def test_point_border_at_each_edge_per_axis_offsets_and_mips(gpu_device):
    case = _point_case()
    cpu = shader_outputs(case, run_reference(case))
    got = np.hstack([cpu[f"TEXCOORD{i}"] for i in range(3)])
    np.testing.assert_array_equal(got, POINT_WANT.view(np.uint32))
    np.testing.assert_array_equal(_so_rows(case, gpu_device, 10, 12), POINT_WANT.view(np.uint32))
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()
    # exact border colours on a float format: no tolerance beyond the default
    assert filtering_tolerance(case, SHADER_TOLERANCE) == SHADER_TOLERANCE


LINEAR = r"""
Texture2D<float4> Tex : register(t0);
Texture2D<float4> Tex1 : register(t1);
SamplerState Border : register(s0);
SamplerState BorderUWrapV : register(s1);
static const float3 UVL[7] = {
    float3(0.0, 0.25, 0), float3(0.125, 0.25, 0), float3(0.875, 0.25, 0),
    float3(0.5, 0.5, 0), float3(1.0, 1.0, 0), float3(0.0, 0.0, 0), float3(1.0, 0.25, 0.5) };
struct O { float4 pos : SV_Position; float4 ab[2] : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.ab[0] = Tex.SampleLevel(Border, UVL[id].xy, UVL[id].z);
    o.ab[1] = Tex1.SampleLevel(BorderUWrapV, UVL[id].xy, UVL[id].z);
    return o;
}
"""
# Linear taps floor(2u - 0.5) and the next, weight the fraction; B the border colour.
#  (0.0, 0.25): u -0.5: taps -1 (B), 0 at 1/2 each; v 0: row 0 at weight 1:
#     r 0.5 * 100 + 0.5 * 1 = 50.5, g 100, a 1; b the same (row 0 only)
#  (0.125, 0.25): u -0.25: fraction 0.75, tap -1 (B) at 0.25, tap 0 at 0.75:
#     r 25 + 0.75 = 25.75, g 50; b the same
#  (0.875, 0.25): u 1.25: tap 1 at 0.75, tap 2 (B) at 0.25: r 1.5 + 25 = 26.5, g 50; b same
#  (0.5, 0.5): u, v 0.5: the four texels at 1/4: r 6.5, g 0; b the same
#  (1.0, 1.0): u, v 1.5: (1, 1) = 12 at 1/4, three B taps: r 3 + 75 = 78, g 150;
#     b: v WRAP rows 1 and 2 -> 0: (1, 1) 12, (1, 0) 2 at 1/4, two B: r 3.5 + 50 = 53.5, g 100
#  (0.0, 0.0): u, v -0.5: (0, 0) = 1 at 1/4, three B: r 75.25, g 150;
#     b: rows -1 -> 1 and 0: (0, 1) 11, (0, 0) 1 at 1/4, two B: r 3 + 50 = 53, g 100
#  (1.0, 0.25) LOD 0.5 (MIN_MAG_MIP_LINEAR: levels 0 and 1 at 1/2 each):
#     level 0: u 1.5: (1, 0) = 2 and B at 1/2; v 0: r 51, g 100
#     level 1 (1x1): u 0.5: x 0 and 1 (B) at 1/2; v -0.25: fraction 0.75, row -1 (B) at
#       0.25, row 0 at 0.75: 50 at 0.5 * 0.75, B at the rest, 0.625:
#       r 18.75 + 62.5 = 81.25, g 125; mixed: r 66.125, g 112.5
#     b: level 0 the same 51, 100; level 1 rows -1 and 0 both row 0 (WRAP): 50 at 1/2, B at 1/2:
#       r 75, g 100; mixed: r 63, g 100
LINEAR_WANT = np.array([
    [50.5, 100, 0, 1, 50.5, 100, 0, 1], [25.75, 50, 0, 1, 25.75, 50, 0, 1],
    [26.5, 50, 0, 1, 26.5, 50, 0, 1], [6.5, 0, 0, 1, 6.5, 0, 0, 1],
    [78, 150, 0, 1, 53.5, 100, 0, 1], [75.25, 150, 0, 1, 53, 100, 0, 1],
    [66.125, 112.5, 0, 1, 63, 100, 0, 1]], np.float32)


def test_linear_border_blends_the_border_colour(gpu_device):
    doc = texture_case_doc(
        "border_linear", LINEAR, 7, [_texture(0, TEXELS, levels=2),
                                     _texture(1, TEXELS, levels=2)], [(0, 4), (1, 4)],
        [_sampler(0, "MIN_MAG_MIP_LINEAR", "BORDER", "BORDER"),
         _sampler(1, "MIN_MAG_MIP_LINEAR", "BORDER", "WRAP")])
    case = load_case(doc)
    cpu = shader_outputs(case, run_reference(case))
    got = np.hstack([cpu["TEXCOORD0"], cpu["TEXCOORD1"]])
    np.testing.assert_array_equal(got, LINEAR_WANT.view(np.uint32))
    # rules 17.6: 3 weights off by WEIGHT_ERROR each times R, the range of the texels' r and g
    # (0..12 and 50) and the border colour's on the format (100, 200): 200
    bound = 3 * WEIGHT_ERROR * 200
    assert filtering_tolerance(case, SHADER_TOLERANCE).absolute == bound
    so = _so_rows(case, gpu_device, 7, 8).view(np.float32)
    off = np.abs(so.astype(np.float64) - LINEAR_WANT)
    assert (off <= bound).all(), so
    print(f"border linear: {int((off > 0).sum())} of {off.size} components inexact, "
          f"largest {off.max():g} (bound {bound:g})")
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


SHAPES = r"""
Texture1D<float4> T1 : register(t0);
Texture3D<float4> T3 : register(t1);
Texture2DArray<float4> TA : register(t2);
SamplerState BorderU : register(s0);
SamplerState BorderW : register(s1);
SamplerState BorderUA : register(s2);
struct O { float4 pos : SV_Position; float4 v[6] : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.v[0] = T1.SampleLevel(BorderU, 0.75, 0, 1);
    o.v[1] = T1.SampleLevel(BorderU, 0.75, 0);
    o.v[2] = T3.SampleLevel(BorderW, float3(0.25, 0.25, 0.75), 0, int3(0, 0, 1));
    o.v[3] = T3.SampleLevel(BorderW, float3(1.25, 0.25, 0.75), 0);
    o.v[4] = TA.SampleLevel(BorderUA, float3(0.25, 0.25, 1), 0, int2(-1, 0));
    o.v[5] = TA.SampleLevel(BorderUA, float3(0.75, 0.25, 1), 0, int2(-1, 0));
    return o;
}
"""
# texel (x, y, z) of the 2x2x2 texture, (x, y) of slice z of the array: r 100 z + 10 y + x + 1
_CUBE = [100 * z + 10 * y + x + 1 for z in range(2) for y in range(2) for x in range(2)]
# Texture1D (1, 2): u 0.75 -> texel 1, + 1 = 2: outside (B); without the offset 2.
# Texture3D, BORDER on w only: (0, 0, 1) + (0, 0, 1) = plane 2: B; (1.25, 0.25, 0.75): u
#   index 2 CLAMPed to 1, (1, 0, 1): 102.
# Texture2DArray slice 1, BORDER on u: (0, 0) + (-1, 0): outside, B; (1, 0) - 1 = (0, 0): 101
#   (no offset on the slice).
SHAPES_WANT = np.array([[*BORDER, *_t(2), *BORDER, *_t(102), *BORDER, *_t(101)]], np.float32)


def test_point_border_on_each_shape_with_offsets(gpu_device):
    t1 = {**_texture(0, [1, 2], height=1), "kind": "texture1d"}
    t3 = {**_texture(1, _CUBE), "kind": "texture3d", "depth": 2}
    ta = _texture(2, _CUBE, array_size=2)
    doc = texture_case_doc(
        "border_shapes", SHAPES, 1, [t1, t3, ta], [(i, 4) for i in range(6)],
        [_sampler(0, "MIN_MAG_MIP_POINT", "BORDER", "CLAMP"),
         _sampler(1, "MIN_MAG_MIP_POINT", "CLAMP", "CLAMP", "BORDER"),
         _sampler(2, "MIN_MAG_MIP_POINT", "BORDER", "CLAMP")])
    case = load_case(doc)
    cpu = shader_outputs(case, run_reference(case))
    got = np.hstack([cpu[f"TEXCOORD{i}"] for i in range(6)])
    np.testing.assert_array_equal(got, SHAPES_WANT.view(np.uint32))
    np.testing.assert_array_equal(_so_rows(case, gpu_device, 1, 24), SHAPES_WANT.view(np.uint32))
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


LINEAR_3D = r"""
Texture3D<float4> T3 : register(t0);
SamplerState Border : register(s0);
struct O { float4 pos : SV_Position; float4 v : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.v = T3.SampleLevel(Border, float3(0.5, 0.5, 1.0), 0);
    return o;
}
"""


def test_linear_border_on_a_texture3d(gpu_device):
    # u, v 0.5: the four texels of a plane at 1/4; w 1.0: 2 - 0.5 = 1.5, planes 1 and 2 (B) at
    # 1/2: r 0.5 * (101 + 102 + 111 + 112) / 4 + 0.5 * 100 = 53.25 + 50, g 100, a 1
    want = np.array([[103.25, 100, 0, 1]], np.float32)
    doc = texture_case_doc("border_linear_3d", LINEAR_3D, 1,
                           [{**_texture(0, _CUBE), "kind": "texture3d", "depth": 2}], [(0, 4)],
                           [_sampler(0, "MIN_MAG_MIP_LINEAR", "BORDER", "BORDER", "BORDER")])
    # rules 17.7: 4 weights times R = 200 (g 0 to the border's 200)
    assert_filtered_within(load_case(doc), want, 4 * WEIGHT_ERROR * 200, gpu_device,
                           "border 3D")


FORMATS = r"""
Texture2D<float4> R8 : register(t0);
Texture2D<float4> Rgba8 : register(t1);
SamplerState BorderR8 : register(s0);
SamplerState BorderRgba8 : register(s1);
struct O { float4 pos : SV_Position; float4 v[2] : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    float2 uv = id == 0 ? float2(-0.5, 0.5) : float2(0.25, 0.25);
    o.v[0] = R8.SampleLevel(BorderR8, uv, 0);
    o.v[1] = Rgba8.SampleLevel(BorderRgba8, uv, 0);
    return o;
}
"""


def test_border_colour_on_formats_lacking_components_and_unorm_clamp(gpu_device):
    # (2, 0.5, -3, 0.25) on R8_UNORM: red clamped to 1, the others the format's 0, 0, 1; on
    # R8G8B8A8_UNORM: (1, 0.5, 0, 0.25) (clamped to [0, 1]). Vertex 1 reads texel (0, 0):
    # R8 255 -> (1, 0, 0, 1); RGBA8 (255, 0, 255, 0) -> (1, 0, 1, 0).
    r8 = {"register": 0, "kind": "texture2d", "format": "R8_UNORM", "width": 2, "height": 2,
          "data": {"dtype": "uint8", "values": [255, 0, 0, 255]}}
    rgba8 = {"register": 1, "kind": "texture2d", "format": "R8G8B8A8_UNORM", "width": 2,
             "height": 2, "data": {"dtype": "uint8", "values": [255, 0, 255, 0] * 4}}
    colour = (2, 0.5, -3, 0.25)
    doc = texture_case_doc("border_formats", FORMATS, 2, [r8, rgba8], [(0, 4), (1, 4)],
                           [_sampler(0, "MIN_MAG_MIP_POINT", "BORDER", "BORDER", colour=colour),
                            _sampler(1, "MIN_MAG_MIP_POINT", "BORDER", "BORDER", colour=colour)])
    case = load_case(doc)
    want = np.array([[1, 0, 0, 1, 1, 0.5, 0, 0.25], [1, 0, 0, 1, 1, 0, 1, 0]], np.float32)
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(np.hstack([cpu["TEXCOORD0"], cpu["TEXCOORD1"]]),
                                  want.view(np.uint32))
    np.testing.assert_array_equal(_so_rows(case, gpu_device, 2, 8), want.view(np.uint32))
    # 0.5 is no R8G8B8A8_UNORM value (127.5 / 255): D3D snaps it to the precision it filters
    # the format at, so a case states half a unit, 0.5 / 255 (rules 17.4)
    assert filtering_tolerance(case, SHADER_TOLERANCE).absolute == 0.5 / 255
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


STATIC = r"""
Texture2D<float4> T0 : register(t0);
Texture2D<float4> T1 : register(t1);
Texture2D<float4> T2 : register(t2);
Texture2D<float4> T3 : register(t3);
SamplerState S0 : register(s0);
SamplerState S1 : register(s1);
SamplerState S2 : register(s2);
SamplerState S3 : register(s3);
struct O { float4 pos : SV_Position; float4 v[4] : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    float2 uv = float2(1.5, 0.25);
    o.v[0] = T0.SampleLevel(S0, uv, 0);
    o.v[1] = T1.SampleLevel(S1, uv, 0);
    o.v[2] = T2.SampleLevel(S2, uv, 0);
    o.v[3] = T3.SampleLevel(S3, uv, 0);
    return o;
}
"""
_FLAGS = "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | ALLOW_STREAM_OUTPUT)"


def _static(register, colour):
    return (f"StaticSampler(s{register}, filter=FILTER_MIN_MAG_MIP_POINT, "
            f"addressU=TEXTURE_ADDRESS_BORDER, addressV=TEXTURE_ADDRESS_BORDER, "
            f"addressW=TEXTURE_ADDRESS_BORDER, borderColor=STATIC_BORDER_COLOR_{colour}, "
            f"visibility=SHADER_VISIBILITY_VERTEX)")


def test_static_border_colours(gpu_device):
    # u 1.5: texel 3 of 2, outside. R8_UNORM keeps red, alpha its default 1:
    # TRANSPARENT_BLACK (0, 0, 0, 1), OPAQUE_BLACK (0, 0, 0, 1), OPAQUE_WHITE (1, 0, 0, 1);
    # R8G8B8A8_UNORM keeps all four: TRANSPARENT_BLACK (0, 0, 0, 0)
    r8 = {"kind": "texture2d", "format": "R8_UNORM", "width": 2, "height": 2,
          "data": {"dtype": "uint8", "values": [255, 0, 0, 255]}}
    textures = [{**r8, "register": r} for r in range(3)] + [
        {**r8, "register": 3, "format": "R8G8B8A8_UNORM",
         "data": {"dtype": "uint8", "values": [255] * 16}}]
    doc = texture_case_doc("border_static", STATIC, 1, textures, [(i, 4) for i in range(4)])
    doc["root_signature"] = ", ".join([
        _FLAGS, "DescriptorTable(SRV(t0, numDescriptors=4), visibility=SHADER_VISIBILITY_VERTEX)",
        _static(0, "TRANSPARENT_BLACK"), _static(1, "OPAQUE_BLACK"), _static(2, "OPAQUE_WHITE"),
        _static(3, "TRANSPARENT_BLACK")])
    case = load_case(doc)
    assert case.samplers[2].border == (1.0, 1.0, 1.0, 1.0)
    want = np.array([[0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0]], np.float32)
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(np.hstack([cpu[f"TEXCOORD{i}"] for i in range(4)]),
                                  want.view(np.uint32))
    np.testing.assert_array_equal(_so_rows(case, gpu_device, 1, 16), want.view(np.uint32))
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


COMPARE = r"""
Texture2D<float> Depth : register(t0);
Texture2D<float> Depth1 : register(t1);
SamplerComparisonState Point : register(s0);
SamplerComparisonState Linear : register(s1);
static const float2 UV[3] = { float2(0.25, 0.25), float2(-0.25, 0.25), float2(0.0, 0.25) };
struct O { float4 pos : SV_Position; float2 v : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.v = float2(Depth.SampleCmpLevelZero(Point, UV[id], 2.0),
                 Depth1.SampleCmpLevelZero(Linear, UV[id], 2.0));
    return o;
}
"""


def test_comparison_with_border_compares_the_border_colours_red(gpu_device):
    # R32_FLOAT texels 1, 2 / 3, 4; border red 2.5; LESS: "2.0 < texel.r"
    #  (0.25, 0.25): texel 1: fails, 0; linear taps 0 at weight 1: 0
    #  (-0.25, 0.25): point tap -1: border 2.5 passes, 1; linear u -1, weight 0: tap -1 alone: 1
    #  (0.0, 0.25): point tap 0 fails: 0; linear taps -1 (passes) and 0 (fails) at 1/2: 0.5
    tex = {"kind": "texture2d", "format": "R32_FLOAT", "width": 2, "height": 2,
           "data": {"dtype": "float32", "values": [1, 2, 3, 4]}}
    samplers = [{"register": r, "filter": f"COMPARISON_MIN_MAG_MIP_{f}", "comparison_func": "LESS",
                 "address_u": "BORDER", "address_v": "BORDER", "border_color": [2.5, 0, 0, 0]}
                for r, f in ((0, "POINT"), (1, "LINEAR"))]
    doc = texture_case_doc("border_compare", COMPARE, 3,
                           [{**tex, "register": 0}, {**tex, "register": 1}], [(0, 2)], samplers)
    want = np.array([[0, 0], [1, 1], [0, 0.5]], np.float32)
    # rules 17.10: R the range of the texels' and the border's red, 3 (at least 1)
    assert_filtered_within(load_case(doc), want, 3 * WEIGHT_ERROR * 3 + 2 * WEIGHT_ERROR ** 2,
                           gpu_device, "border compare")


MIRROR_ONCE = r"""
Texture2D<float4> Tex : register(t0);
SamplerState S : register(s0);
struct O { float4 pos : SV_Position; float4 v[3] : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.v[0] = Tex.SampleLevel(S, float2(0.75, 0.25), 0, int2(-3, 0));
    o.v[1] = Tex.SampleLevel(S, float2(0.25, 0.75), 0, int2(-8, 0));
    o.v[2] = Tex.SampleLevel(S, float2(0.25, 0.75), 0, int2(5, 1));
    return o;
}
"""


def test_mirror_once_with_an_offset_beside_a_border_axis(gpu_device):
    # MIRROR_ONCE on u (-i - 1 for a negative index, then clamped), BORDER on v; the offset
    # added first (rules 17.11): (1, 0) - 3 = -2 -> 1: texel (1, 0) = 2; (0, 1) - 8 = -8 -> 7
    # -> 1: (1, 1) = 12; (0, 1) + (5, 1): u 5 -> 1, v 2 outside: B. Through a sampler without
    # a BORDER axis this offset is refused (rules 17.11); here gpuia takes the taps itself.
    want = np.array([[*_t(2), *_t(12), *BORDER]], np.float32)
    doc = texture_case_doc("border_mirror_once", MIRROR_ONCE, 1, [_texture(0, TEXELS[:4])],
                           [(i, 4) for i in range(3)],
                           [_sampler(0, "MIN_MAG_MIP_POINT", "MIRROR_ONCE", "BORDER")])
    case = load_case(doc)
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(np.hstack([cpu[f"TEXCOORD{i}"] for i in range(3)]),
                                  want.view(np.uint32))
    np.testing.assert_array_equal(_so_rows(case, gpu_device, 1, 12), want.view(np.uint32))
