"""Texture1D and Texture3D in an HLSL vertex shader (docs/resources.md, rules 17.7, 17.8), the
CPU reference against every GPU path (Stream Output, native and pulling captures).

Expected values are worked out by hand: a texel's value encodes its place (100 z + 10 y + x in
a volume, 10 + x along a row), so each output says which texel D3D's rules pick. Load outside
the level or of a missing level reads 0 (rules 17.1); GetDimensions past the last level gives
sizes 0 (rules 17.2); point SampleLevel picks texel floor(u * size) on each axis with the
address mode applied to the integer (rules 17.3, 17.4); linear taps floor(u * size - 0.5) and
the next, weighted by the fraction (rules 17.6). A 1D texture reads as D3D's 2D rules with one
axis (rules 17.8); a 3D texture's w axis is one more axis under the same rules (rules 17.7).
Coordinates sit at texel centres, or at weights 0.25, 0.5, 0.75 (exact in 8 fractional bits).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.errors import CaseError, InvalidDescError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_so_gpu
from helpers import EXAMPLE_CASES
from texture_cases import assert_filtered_within, refusal_vs, so_words, texture_case_doc


def _halves(values) -> list[int]:
    """R16G16_FLOAT texels (r = value, g = 1) as uint16 words."""
    return np.array([[v, 1] for v in values], np.float16).view(np.uint16).reshape(-1).tolist()


# --- Texture3D: Load and GetDimensions ---------------------------------------------------------

LOAD_3D = r"""
Texture3D<float4> Vol : register(t0);
static const int4 AT[7] = { int4(0, 1, 1, 0), int4(1, 1, 1, 0), int4(2, 0, 0, 0),
                            int4(0, 0, 0, 1), int4(0, 0, 1, 1), int4(0, 0, 0, 2),
                            int4(0, 0, -1, 0) };
struct O { float4 pos : SV_Position; float4 texel : TEXCOORD0; uint4 dims : TEXCOORD1;
           float4 fdims : TEXCOORD2; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.texel = Vol.Load(AT[id]);
    uint w, h, d, n; Vol.GetDimensions(uint(AT[id].w), w, h, d, n);
    uint w0, h0, d0; Vol.GetDimensions(w0, h0, d0);
    o.dims = uint4(w, h, d, n * 1000 + w0 * 100 + h0 * 10 + d0);
    float fw, fh, fd, fn; Vol.GetDimensions(uint(AT[id].w), fw, fh, fd, fn);
    o.fdims = float4(fw, fh, fd, fn);
    return o;
}
"""
# A 2x2x2 R32_FLOAT volume of 2 levels: level 0 texel (x, y, z) = 100 z + 10 y + x, plane by
# plane (z), row by row; level 1 (1x1x1) 1000.
LOAD_VOLUME = {"register": 0, "kind": "texture3d", "format": "R32_FLOAT", "width": 2,
               "height": 2, "depth": 2, "mip_levels": 2,
               "data": {"dtype": "float32", "values": [100 * z + 10 * y + x for z in range(2)
                                                       for y in range(2) for x in range(2)]
                        + [1000]}}
# (0, 1, 1) = 110, (1, 1, 1) = 111; x = 2 is outside; level 1's (0, 0, 0) = 1000; z = 1 is
# outside level 1 (1 deep); level 2 is missing; z = -1 is outside: 0 in every component.
LOAD_3D_TEXEL = np.array([[110, 0, 0, 1], [111, 0, 0, 1], [0, 0, 0, 0], [1000, 0, 0, 1],
                          [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], np.float32).view(np.uint32)
# level 0: 2x2x2, level 1: 1x1x1, level 2 (past the last): 0x0x0; 2 levels; level 0's 2, 2, 2
_DIMS = {0: (2, 2, 2), 1: (1, 1, 1), 2: (0, 0, 0)}
_LEVELS = [0, 0, 0, 1, 1, 2, 0]
LOAD_3D_DIMS = np.array([[*_DIMS[m], 2222] for m in _LEVELS], np.uint32)
LOAD_3D_FDIMS = np.array([[*_DIMS[m], 2] for m in _LEVELS], np.float32).view(np.uint32)


def load_3d_case():
    return load_case(texture_case_doc("texture3d_load", LOAD_3D, 7, [LOAD_VOLUME],
                                      [(0, 4), (1, 4), (2, 4)]))


def test_texture3d_load_and_dimensions_cpu_and_stream_output(gpu_device):
    case = load_3d_case()
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], LOAD_3D_TEXEL)
    np.testing.assert_array_equal(cpu["TEXCOORD1"], LOAD_3D_DIMS)
    np.testing.assert_array_equal(cpu["TEXCOORD2"], LOAD_3D_FDIMS)
    so = so_words(run_case_so_gpu(case, gpu_device), 7, 12)
    np.testing.assert_array_equal(so[:, :4], LOAD_3D_TEXEL)
    np.testing.assert_array_equal(so[:, 4:8], LOAD_3D_DIMS)
    np.testing.assert_array_equal(so[:, 8:], LOAD_3D_FDIMS)


# --- Texture3D: point sampling with each address mode on w -------------------------------------

POINT_3D = r"""
// One texture per sampler: wgpu's OpenGL backend combines each texture with one sampler.
Texture3D<float> VolWrap : register(t0);
Texture3D<float> VolMirror : register(t1);
Texture3D<float> VolClamp : register(t2);
SamplerState Wrap : register(s0);
SamplerState Mirror : register(s1);
SamplerState Clamp : register(s2);
static const float W[6] = { 1.5 / 4, -0.5 / 4, 5.5 / 4, -4.5 / 4, 9.5 / 4, 6.5 / 4 };
struct O { float4 pos : SV_Position; float3 picked : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    float3 uvw = float3(0.75, 0.25, W[id]);  // the centre of texel (1, 0) in u, v
    o.picked = float3(VolWrap.SampleLevel(Wrap, uvw, 0), VolMirror.SampleLevel(Mirror, uvw, 0),
                      VolClamp.SampleLevel(Clamp, uvw, 0));
    return o;
}
"""
# A 2x2x4 R16G16_FLOAT volume (filterable everywhere), r = 100 z + 10 y + x (whole numbers:
# exact halves).
VOLUME_24 = [100 * z + 10 * y + x for z in range(4) for y in range(2) for x in range(2)]
POINT_VOLUMES = [{"register": k, "kind": "texture3d", "format": "R16G16_FLOAT", "width": 2,
                  "height": 2, "depth": 4, "data": {"dtype": "uint16",
                                                    "values": _halves(VOLUME_24)}}
                 for k in range(3)]
POINT_SAMPLERS = [{"register": k, "filter": "MIN_MAG_MIP_POINT", "address_u": mode,
                   "address_v": mode, "address_w": mode}
                  for k, mode in enumerate(("WRAP", "MIRROR", "CLAMP"))]
# Plane index k = floor(4 w) per vertex: 1, -1, 5, -5, 9, 6. Depth 4: WRAP k mod 4; MIRROR k
# mod 8, reflected to 7 - m past 3 (a negative k first becomes -k - 1); CLAMP to 0..3.
_PLANES = {1: (1, 1, 1), -1: (3, 0, 0), 5: (1, 2, 3), -5: (3, 3, 0), 9: (1, 1, 3),
           6: (2, 1, 3)}
POINT_3D_WANT = np.array([[100 * _PLANES[k][m] + 1 for m in range(3)]
                          for k in (1, -1, 5, -5, 9, 6)], np.float32).view(np.uint32)


def point_3d_case():
    return load_case(texture_case_doc("texture3d_point", POINT_3D, 6, POINT_VOLUMES, [(0, 3)],
                          POINT_SAMPLERS))


def test_texture3d_point_sampling_address_modes_on_w(gpu_device):
    case = point_3d_case()
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], POINT_3D_WANT)
    so = so_words(run_case_so_gpu(case, gpu_device), 6, 3)
    np.testing.assert_array_equal(so, POINT_3D_WANT)


# --- Texture3D: trilinear filtering within the bound of rules 17.7 ------------------------------

LINEAR_3D = r"""
Texture3D<float> VolClamp : register(t0);
Texture3D<float> VolWrap : register(t1);
SamplerState LinearClamp : register(s0);
SamplerState LinearWrap : register(s1);
static const float4 UVWL[5] = { float4(0.5, 0.5, 0.5, 0), float4(0.375, 0.25, 0.625, 0),
                                float4(0, 0, 0, 0), float4(1, 1, 1, 0),
                                float4(0.5, 0.5, 0.5, 0.5) };
struct O { float4 pos : SV_Position; float2 filtered : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.filtered = float2(VolClamp.SampleLevel(LinearClamp, UVWL[id].xyz, UVWL[id].w),
                        VolWrap.SampleLevel(LinearWrap, UVWL[id].xyz, UVWL[id].w));
    return o;
}
"""
# A 2x2x2 R16G16_FLOAT volume of 2 levels: level 0 r = 100 z + 10 y + x, level 1 (1x1x1) 200.
LINEAR_VOLUMES = [{"register": k, "kind": "texture3d", "format": "R16G16_FLOAT", "width": 2,
                   "height": 2, "depth": 2, "mip_levels": 2,
                   "data": {"dtype": "uint16", "values": _halves(
                       [100 * z + 10 * y + x for z in range(2) for y in range(2)
                        for x in range(2)] + [200])}} for k in range(2)]
LINEAR_SAMPLERS = [{"register": k, "filter": "MIN_MAG_MIP_LINEAR", "address_u": mode,
                    "address_v": mode, "address_w": mode}
                   for k, mode in enumerate(("CLAMP", "WRAP"))]
# Per axis of size 2 the taps are floor(2 u - 0.5) and the next, weight the fraction; r is
# linear in x, y, z, so inside the volume the result is 100 z' + 10 y' + x' at the weighted
# places x' = tap0 + weight. Per vertex (clamp, wrap):
#  0 (0.5, 0.5, 0.5): taps 0, 1 at 0.5 on each axis: 55.5, 55.5
#  1 (0.375, 0.25, 0.625): x' = 0.25 (taps 0, 1 at 0.25), y' = 0 (tap 0 at weight 0), z' = 0.75:
#    75 + 0 + 0.25 = 75.25 for both
#  2 (0, 0, 0): each axis taps -1, 0 at 0.5: clamp 0, 0: 0; wrap 1, 0: 0.5 on each: 55.5
#  3 (1, 1, 1): each axis taps 1, 2 at 0.5: clamp 1, 1: 111; wrap 1, 0: 55.5
#  4 vertex 0 at LOD 0.5: half of level 0's 55.5 and level 1's 200: 127.75, 127.75
LINEAR_3D_WANT = np.array([[55.5, 55.5], [75.25, 75.25], [0, 55.5], [111, 55.5],
                           [127.75, 127.75]], np.float32)


def linear_3d_case():
    return load_case(texture_case_doc("texture3d_linear", LINEAR_3D, 5, LINEAR_VOLUMES, [(0, 2)],
                          LINEAR_SAMPLERS))


def test_texture3d_trilinear_within_the_stated_tolerance(gpu_device):
    from gpuia.harness.case_textures import WEIGHT_ERROR

    # rules 17.7: three texel weights and the mip weight, each off by at most 0.6 * 2^-8,
    # times the textures' range 0..200 (g = 1 lies inside it)
    assert_filtered_within(linear_3d_case(), LINEAR_3D_WANT, 4 * WEIGHT_ERROR * 200, gpu_device,
                           "trilinear filtering")


# --- Texture1D ----------------------------------------------------------------------------------

ONE_D = r"""
Texture1D<float4> Row : register(t0);
Texture1D<float> RowWrap : register(t1);
Texture1D<float> RowMirror : register(t2);
Texture1D<float> RowClamp : register(t3);
Texture1D<float> RowLinear : register(t4);
SamplerState Wrap : register(s0);
SamplerState Mirror : register(s1);
SamplerState Clamp : register(s2);
SamplerState LinearWrap : register(s3);
static const int2 AT[7] = { int2(0, 0), int2(3, 0), int2(1, 1), int2(4, 0), int2(-1, 0),
                            int2(0, 2), int2(2, 1) };
static const float2 UL[7] = { float2(1.5 / 4, 0), float2(-0.5 / 4, 0), float2(5.5 / 4, 0),
                              float2(-4.5 / 4, 0), float2(9.5 / 4, 0), float2(6.5 / 4, 0),
                              float2(0.75, 1) };
static const float LU[7] = { 0.5, 0, 0.4375, 0.125, 0.9375, 0.625, 0.25 };
struct O { float4 pos : SV_Position; float4 texel : TEXCOORD0; uint4 dims : TEXCOORD1;
           float4 sampled : TEXCOORD2; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.texel = Row.Load(AT[id]);
    uint w, n; Row.GetDimensions(uint(AT[id].y), w, n);
    uint w0; Row.GetDimensions(w0);
    float fw, fn; Row.GetDimensions(uint(AT[id].y), fw, fn);
    o.dims = uint4(w, n, w0, uint(fw) * 10 + uint(fn));
    o.sampled = float4(RowWrap.SampleLevel(Wrap, UL[id].x, UL[id].y),
                       RowMirror.SampleLevel(Mirror, UL[id].x, UL[id].y),
                       RowClamp.SampleLevel(Clamp, UL[id].x, UL[id].y),
                       RowLinear.SampleLevel(LinearWrap, LU[id], 0));
    return o;
}
"""
# A 4-texel R16G16_FLOAT row of 2 levels: level 0 r = 10 + x, level 1 (2 texels) 20, 21
# (g = 1); every register holds one (Load reads r, g, 0, 1).
ROW = _halves([10, 11, 12, 13, 20, 21])
ROWS = [{"register": k, "kind": "texture1d", "format": "R16G16_FLOAT", "width": 4,
         "mip_levels": 2, "data": {"dtype": "uint16", "values": ROW}} for k in range(5)]
ONE_D_SAMPLERS = [*({"register": k, "filter": "MIN_MAG_MIP_POINT", "address_u": mode}
                    for k, mode in enumerate(("WRAP", "MIRROR", "CLAMP"))),
                  {"register": 3, "filter": "MIN_MAG_MIP_LINEAR", "address_u": "WRAP"}]
# Load int2(x, mip): (0, 0) 10, (3, 0) 13, (1, 1) 21; x = 4 and x = -1 outside, level 2
# missing: 0; (2, 1) outside level 1 (2 wide): 0.
ONE_D_TEXEL = np.array([[10, 1, 0, 1], [13, 1, 0, 1], [21, 1, 0, 1], [0, 0, 0, 0],
                        [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], np.float32).view(np.uint32)
# GetDimensions(mip, w, levels): level 0 4 wide, level 1 2, level 2 0; 2 levels; level 0's
# width 4; the float overload's width * 10 + levels.
_WIDTH = {0: 4, 1: 2, 2: 0}
ONE_D_DIMS = np.array([[_WIDTH[m], 2, 4, _WIDTH[m] * 10 + 2] for m in (0, 0, 1, 0, 0, 2, 1)],
                      np.uint32)
# Point: texel floor(4 u) = 1, -1, 5, -5, 9, 6 (WRAP, MIRROR, CLAMP as in 3D above): 10 + the
# pick; the last vertex at LOD 1: level 1 (2 wide) texel floor(1.5) = 1: 21 for each.
# Linear WRAP (4 wide): taps floor(4 u - 0.5) and the next at the fraction:
#  0.5: taps 1, 2 at 0.5: 11.5; 0: taps -1 (wraps to 3) and 0 at 0.5: 11.5;
#  0.4375: taps 1, 2 at 0.25: 11.25; 0.125: texel centre 0: 10;
#  0.9375: taps 3, 4 (wraps to 0) at 0.25: 13 * 0.75 + 10 * 0.25 = 12.25;
#  0.625: taps 2, 3 at 0: 12; 0.25: taps 0, 1 at 0.5: 10.5
ONE_D_SAMPLED = np.array([[10 + _PLANES[k][m] for m in range(3)]
                          for k in (1, -1, 5, -5, 9, 6)] + [[21, 21, 21]], np.float32)
ONE_D_LINEAR = np.array([11.5, 11.5, 11.25, 10, 12.25, 12, 10.5], np.float32)
ONE_D_WANT = np.column_stack([ONE_D_SAMPLED, ONE_D_LINEAR]).view(np.uint32)


def one_d_case():
    return load_case(texture_case_doc("texture1d", ONE_D, 7, ROWS, [(0, 4), (1, 4), (2, 4)],
                          ONE_D_SAMPLERS))


def test_texture1d_load_dimensions_and_sampling(gpu_device):
    from gpuia.harness.case_textures import WEIGHT_ERROR

    case = one_d_case()
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], ONE_D_TEXEL)
    np.testing.assert_array_equal(cpu["TEXCOORD1"], ONE_D_DIMS)
    np.testing.assert_array_equal(cpu["TEXCOORD2"], ONE_D_WANT)
    so = so_words(run_case_so_gpu(case, gpu_device), 7, 12)
    np.testing.assert_array_equal(so[:, :4], ONE_D_TEXEL)
    np.testing.assert_array_equal(so[:, 4:8], ONE_D_DIMS)
    np.testing.assert_array_equal(so[:, 8:11], ONE_D_WANT[:, :3])  # point: exact
    # linear (rules 17.6 with one axis): within 3 * 0.6 * 2^-8 * (21 - 1)
    off = np.abs(so[:, 11].view(np.float32).astype(np.float64) - ONE_D_LINEAR)
    assert (off <= 3 * WEIGHT_ERROR * 20).all(), so[:, 11].view(np.float32)


@pytest.mark.parametrize("make", [load_3d_case, point_3d_case, one_d_case],
                         ids=["load3d", "point3d", "texture1d"])
def test_capture_paths_match_the_cpu(gpu_device, make):
    result = cross_check(make(), [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


def test_volume_example(gpu_device):
    case = load_case(str(EXAMPLE_CASES / "texture_volume.json"))
    cpu = shader_outputs(case, run_reference(case))
    # The description's grid: vertex (x, y, z) (x fastest) samples noise texel x + 2 y + 4 z,
    # world (x, y + n, z); the ramp's texel (n + 1) * 2 (n on the texel centres).
    noise = [-0.75, 0.25, 0.75, -0.25, 0.25, -0.75, -0.25, 0.75]
    ramp = {-0.75: (0, 1), -0.25: (0.25, 0.75), 0.25: (0.5, 0.5), 0.75: (1, 0)}
    grid = [(x, y, z) for z in range(2) for y in range(2) for x in range(2)]
    world = np.array([[x, y + noise[k], z] for k, (x, y, z) in enumerate(grid)], np.float32)
    color = np.array([ramp[n] for n in noise], np.float32)
    np.testing.assert_array_equal(cpu["TEXCOORD0"], world.view(np.uint32))
    np.testing.assert_array_equal(cpu["TEXCOORD1"], color.view(np.uint32))
    so = so_words(run_case_so_gpu(case, gpu_device), 8, 5)
    np.testing.assert_array_equal(so, np.column_stack([world, color]).view(np.uint32))
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


# --- refusals -----------------------------------------------------------------------------------

def _volume(**fields) -> dict:
    return {"register": 0, "kind": "texture3d", "format": "R32_FLOAT", "width": 2, "height": 2,
            "depth": 2, "data": {"dtype": "float32", "values": [0] * 8}, **fields}


@pytest.mark.parametrize("entry, field, says", [
    (_volume(array_size=2), "DepthOrArraySize", "no array slices"),
    (_volume(width=4096), "Width", "1..2048"),
    (_volume(depth=2049), "DepthOrArraySize", "1..2048"),
    (_volume(mip_levels=3), "MipLevels", "1..2"),
    ({**_volume(kind="texture1d", height=2), "depth": 1}, "Height", "Height is 1"),
    ({**_volume(kind="texture1d", width=16385), "height": 1, "depth": 1}, "Width",
     "1..16384"),
    ({**_volume(kind="texture2d"), "depth": 2}, "DepthOrArraySize", "no depth"),
], ids=["3d_array", "3d_width", "3d_depth", "3d_mips", "1d_height", "1d_width", "2d_depth"])
def test_descriptions_refused_as_d3d12_does(entry, field, says):
    with pytest.raises(InvalidDescError, match=says) as e:
        load_case(texture_case_doc("t", LOAD_3D, 1, [entry], [(0, 4), (1, 4), (2, 4)]))
    assert e.value.field == field


def test_a_texture_of_another_dimension_is_refused():
    flat = {**LOAD_VOLUME, "kind": "texture2d", "depth": 1, "mip_levels": 1,
            "data": {"dtype": "float32", "values": [0] * 4}}
    with pytest.raises(InvalidDescError, match="texture3d"):
        load_case(texture_case_doc("t", LOAD_3D, 1, [flat], [(0, 4), (1, 4), (2, 4)]))
    with pytest.raises(CaseError, match="missing required key 'depth'"):
        load_case(texture_case_doc("t", LOAD_3D, 1, [{k: v for k, v in LOAD_VOLUME.items()
                                          if k != "depth"}], [(0, 4), (1, 4), (2, 4)]))


def test_a_texture1d_reads_one_slice():
    rows = {**ROWS[0], "array_size": 2, "data": {"dtype": "uint16", "values": ROW * 2}}
    with pytest.raises(InvalidDescError, match="as a Texture1D \\(one slice\\)"):
        load_case(texture_case_doc("t", refusal_vs("Texture1D<float4> T : register(t0);",
                                            "T.Load(int2(id, 0))"),
                                   1, [rows], [(0, 4)]))


def test_the_context_api_binds_a_volume_and_refuses_a_flat_texture(gpu_device):
    from gpuia import InputLayout
    from gpuia.gpu import Context, PipelineState
    from gpuia.gpu.textures import create_texture
    from gpuia.hlsl import compile_shader

    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(InputLayout([]), compile_shader(LOAD_3D)))
    ctx.ia_set_primitive_topology("POINTLIST")
    flat = create_texture(gpu_device, "R32_FLOAT", 2, 2, 1, bytes(16))
    ctx.set_texture_shader_resource_view(0, flat)
    with pytest.raises(InvalidDescError, match="bind a texture3d"):
        ctx.draw_instanced(1)
    with pytest.raises(InvalidDescError, match="Dimension"):
        create_texture(gpu_device, "R32_FLOAT", 2, 2, dimension="texture4d")
    with pytest.raises(InvalidDescError, match="no array slices"):
        create_texture(gpu_device, "R32_FLOAT", 2, 2, array_size=2, dimension="texture3d",
                       depth=2)
    volume = create_texture(gpu_device, "R32_FLOAT", 2, 2, 2,
                            np.array(LOAD_VOLUME["data"]["values"], np.float32).tobytes(),
                            dimension="texture3d", depth=2)
    ctx.set_texture_shader_resource_view(0, volume)
    ctx.draw_instanced(7)
    ctx.flush()


ROOT_SIGNATURE = ("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | ALLOW_STREAM_OUTPUT), "
                  "DescriptorTable(SRV(t0, numDescriptors=3), "
                  "visibility=SHADER_VISIBILITY_VERTEX), "
                  "DescriptorTable(Sampler(s0, numDescriptors=3), "
                  "visibility=SHADER_VISIBILITY_VERTEX)")


def test_volumes_through_a_root_signature(gpu_device):
    # A descriptor table holds the three volumes: each lands on its sampled binding 944 + k as
    # a filterable 3d texture (docs/resources.md, "The mapping onto WebGPU"), and the draw
    # picks the same texels as without a root signature.
    from gpuia.d3d.root_signature import cover, parse_root_signature
    from gpuia.d3d.root_signature.pipeline import shader_bindings
    from gpuia.d3d.root_signature.webgpu import webgpu_bindings

    doc = texture_case_doc("texture3d_root_signature", POINT_3D, 6, POINT_VOLUMES, [(0, 3)],
                           POINT_SAMPLERS)
    case = load_case({**doc, "root_signature": ROOT_SIGNATURE})
    sig = parse_root_signature(ROOT_SIGNATURE, "1.1")
    rows = webgpu_bindings(sig, cover(sig, shader_bindings(case.hlsl)), {})
    assert [(r["register"], r["binding"], r.get("texture")) for r in rows
            if r["resource"] == "texture"] == [(f"t{k}", 944 + k, "float 3d") for k in range(3)]
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], POINT_3D_WANT)
    so = so_words(run_case_so_gpu(case, gpu_device), 6, 3)
    np.testing.assert_array_equal(so, POINT_3D_WANT)


MIRROR_ONCE_3D = r"""
Texture3D<float> Vol : register(t0);
SamplerState Once : register(s0);
static const float W[6] = { 1.5 / 4, -0.5 / 4, 5.5 / 4, -4.5 / 4, 9.5 / 4, 6.5 / 4 };
struct O { float4 pos : SV_Position; float picked : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.picked = Vol.SampleLevel(Once, float3(0.75, 0.25, W[id]), 0);
    return o;
}
"""


def test_texture3d_mirror_once_on_w(gpu_device):
    # MIRROR_ONCE on the plane index k = floor(4 w) (rules 17.4): a negative k becomes -k - 1,
    # then clamped to 0..3: 1 -> 1, -1 -> 0, 5 -> 3, -5 -> 4 -> 3, 9 -> 3, 6 -> 3. WebGPU has
    # no such mode: gpuia's WGSL clamps w to [-1, 1] under mirror-repeat (bit 2 of the
    # sampler state), which picks the same planes.
    sampler = {"register": 0, "filter": "MIN_MAG_MIP_POINT", "address_u": "MIRROR_ONCE",
               "address_v": "MIRROR_ONCE", "address_w": "MIRROR_ONCE"}
    case = load_case(texture_case_doc("texture3d_mirror_once", MIRROR_ONCE_3D, 6, POINT_VOLUMES[:1],
                          [(0, 1)], [sampler]))
    want = np.array([[100 * k + 1] for k in (1, 0, 3, 3, 3, 3)], np.float32).view(np.uint32)
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], want)
    np.testing.assert_array_equal(so_words(run_case_so_gpu(case, gpu_device), 6, 1), want)


UNORM_TRILINEAR = r"""
Texture3D<float4> Ramp : register(t0);
SamplerState Linear : register(s0);
static const float W[4] = { 0.4, 0.55, 0.7, 0.9 };
struct O { float4 pos : SV_Position; float r : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.r = Ramp.SampleLevel(Linear, float3(0.5, 0.5, W[id]), 0).r;
    return o;
}
"""


def test_trilinear_weights_a_gpu_rounds_stay_within_the_bound(gpu_device):
    # A 2x1x2 R8G8B8A8_UNORM volume, red 0 in plane 0 and 255 (1.0) in plane 1: u = 0.5 takes
    # texels 0 and 1 at 0.5 (equal), v the one row, and w the planes 0 and 1 with weight
    # 2w - 0.5 on plane 1 (clamped): red = 0.3, 0.6, 0.9, 1.0. 0.3 and 0.6 need more than 8
    # fractional bits: a GPU's weights round them, within 4 * 0.6 * 2^-8 * 1 + 0.5 / 255
    # (rules 17.7).
    from gpuia.harness.case_textures import WEIGHT_ERROR, filtering_tolerance
    from gpuia.harness.compare import SHADER_TOLERANCE

    ramp = {"register": 0, "kind": "texture3d", "format": "R8G8B8A8_UNORM", "width": 2,
            "height": 1, "depth": 2, "data": {"hex": "000000ff000000ffff0000ffff0000ff"}}
    case = load_case(texture_case_doc("texture3d_unorm_linear", UNORM_TRILINEAR, 4, [ramp],
                                      [(0, 1)], [{"register": 0, "filter": "MIN_MAG_MIP_LINEAR"}]))
    want = np.array([0.3, 0.6, 0.9, 1.0])
    bound = 4 * WEIGHT_ERROR * 1 + 0.5 / 255
    assert filtering_tolerance(case, SHADER_TOLERANCE).absolute == bound
    cpu = shader_outputs(case, run_reference(case))["TEXCOORD0"].view(np.float32)[:, 0]
    np.testing.assert_array_equal(cpu, want.astype(np.float32))  # exact weights, rounded once
    so = so_words(run_case_so_gpu(case, gpu_device), 4, 1).view(np.float32)[:, 0]
    off = np.abs(so.astype(np.float64) - want)
    assert (off <= bound).all(), so
    print(f"trilinear UNORM: largest {off.max():g} off (bound {bound:g}), "
          f"{int((off > 1e-7).sum())} of 4 values")
