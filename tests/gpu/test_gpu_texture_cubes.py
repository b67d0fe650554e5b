"""TextureCube and TextureCubeArray in an HLSL vertex shader (docs/resources.md, rules 17.9):
the CPU reference against every GPU path (Stream Output, native and pulling captures).

Expected values are worked out by hand from the D3D11.3 spec's 7.18.7: the face is the
direction's largest-magnitude component (ties: Z, then Y, then X), in D3D's face order +X, -X,
+Y, -Y, +Z, -Z (slices 0..5); the face's (s, t) are its two minor components, mirrored as
the face's axes (+X: (-z, -y), -X: (z, -y), +Y: (x, z), -Y: (x, -z), +Z: (x, -y), -Z: (-x,
-y)), divided by the major magnitude, times 0.5 plus 0.5; then point sampling takes texel
``floor(s * size)``, ``floor(t * size)``. Texel (x, y) of face f at level m holds
``100 (f + 1) + 50 m + 10 y + x``, so each output says which face and texel D3D picks.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_so_gpu
from texture_cases import refusal_vs, so_words, texture_case_doc


def _halves(values) -> list[int]:
    """R16G16_FLOAT texels (r = value, exact in float16; g = 1) as uint16 words."""
    return np.array([[v, 1] for v in values], np.float16).view(np.uint16).reshape(-1).tolist()


CUBE = r"""
TextureCube<float4> Sky : register(t0);
SamplerState Point : register(s0);
static const float4 DIR[14] = {
    float4(1, 0.5, 0.5, 0), float4(-1, -0.5, -0.5, 0), float4(0.5, 1, -0.5, 0),
    float4(-0.5, -1, -0.5, 0), float4(-0.5, 0.5, 1, 0), float4(0.5, -0.5, -1, 0),
    float4(-3, 1.5, 1.5, 0), float4(1, 1, 0.25, 0), float4(0.25, 1, -1, 0),
    float4(-1, 0.25, -1, 0), float4(1, 1, 1, 0), float4(0, 0, -3, 1),
    float4(0.2, 4, 0.3, 1), float4(-1, 0.5, 0.5, 0.4) };
struct O { float4 pos : SV_Position; float4 texel : TEXCOORD0; uint4 dims : TEXCOORD1; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.texel = Sky.SampleLevel(Point, DIR[id].xyz, DIR[id].w);
    uint w, h, n; Sky.GetDimensions(id % 3, w, h, n);
    float fw, fh, fn; Sky.GetDimensions(id % 3, fw, fh, fn);
    uint w0, h0; Sky.GetDimensions(w0, h0);
    o.dims = uint4(w, h, n, uint(fw) * 1000 + uint(fh) * 100 + uint(fn) * 10 + w0 + h0);
    return o;
}
"""
# A cube of 2x2 faces and 2 levels, R16G16_FLOAT: face f's level 0 texel (x, y) holds
# 100 (f + 1) + 10 y + x, its level 1 (1x1) 100 (f + 1) + 50; slice by slice (D3D12's order).
FACES = [v for f in range(6) for v in
         [100 * (f + 1) + 10 * y + x for y in range(2) for x in range(2)] + [100 * (f + 1) + 50]]
SKY = {"register": 0, "kind": "texture2d", "format": "R16G16_FLOAT", "width": 2, "height": 2,
       "mip_levels": 2, "array_size": 6, "data": {"dtype": "uint16", "values": _halves(FACES)}}
POINT = [{"register": 0, "filter": "MIN_MAG_MIP_POINT"}]
# By hand, (s, t) = (sc / ma + 1) / 2, texel floor(2 s), floor(2 t):
#  (1, .5, .5): +X, sc = -z = -.5, tc = -y = -.5: s = t = .25: texel (0, 0): 100
#  (-1, -.5, -.5): -X, sc = z = -.5, tc = -y = .5: (.25, .75): (0, 1): 210
#  (.5, 1, -.5): +Y, sc = x = .5, tc = z = -.5: (.75, .25): (1, 0): 301
#  (-.5, -1, -.5): -Y, sc = x = -.5, tc = -z = .5: (.25, .75): (0, 1): 410
#  (-.5, .5, 1): +Z, sc = x = -.5, tc = -y = -.5: (0, 0): 500
#  (.5, -.5, -1): -Z, sc = -x = -.5, tc = -y = .5: (0, 1): 610
#  (-3, 1.5, 1.5): -X, ma = 3, sc = z / 3 = .5, tc = -y / 3 = -.5: (.75, .25): (1, 0): 201
#  ties: (1, 1, .25): |x| = |y|: Y first: +Y, sc = 1, tc = .25: s = 1 (texel 2, clamped to
#  the face: 1), t = .625: (1, 1): 311; (.25, 1, -1): |y| = |z|: Z: -Z, sc = -.25, tc = -1:
#  (.375, 0): (0, 0): 600; (-1, .25, -1): |x| = |z|: Z: -Z, sc = 1, tc = -.25: (1 -> 1, 0):
#  601; (1, 1, 1): Z: +Z, sc = 1, tc = -1: (1, 0): 501
#  LOD 1 (1x1 level): (0, 0, -3): -Z: 650; (.2, 4, .3): +Y: 350; LOD .4: level 0:
#  (-1, .5, .5): -X, sc = .5, tc = -.5: (1, 0): 201
CUBE_WANT = [100, 210, 301, 410, 500, 610, 201, 311, 600, 601, 501, 650, 350, 201]
TIES = slice(7, 11)
# GetDimensions(id % 3): level 0 2x2, level 1 1x1, level 2 past the last 0x0; 2 levels
_SIZE = {0: 2, 1: 1, 2: 0}
CUBE_DIMS = np.array([[_SIZE[i % 3], _SIZE[i % 3], 2,
                       _SIZE[i % 3] * 1100 + 20 + 4] for i in range(14)], np.uint32)


def cube_case(**sky):
    return load_case(texture_case_doc("texture_cube", CUBE, 14, [{**SKY, **sky}],
                                      [(0, 4), (1, 4)], POINT))


def _texels(values) -> np.ndarray:
    return np.array([[v, 1, 0, 1] for v in values], np.float32).view(np.uint32)


def test_cube_faces_texels_and_dimensions_on_the_cpu():
    case = cube_case()
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], _texels(CUBE_WANT))
    np.testing.assert_array_equal(cpu["TEXCOORD1"], CUBE_DIMS)


def test_cube_point_sampling_on_the_gpu(gpu_device):
    so = so_words(run_case_so_gpu(cube_case(), gpu_device), 14, 8)
    want = _texels(CUBE_WANT)
    np.testing.assert_array_equal(so[:, 4:], CUBE_DIMS)
    rows = [i for i in range(14) if i not in range(TIES.start, TIES.stop)]
    np.testing.assert_array_equal(so[rows, :4], want[rows])  # off the face edges: exact
    got = so[TIES, 0].view(np.float32).tolist()
    print(f"{gpu_device}: ties and corners {got} (D3D: {CUBE_WANT[TIES]})")


def test_cube_ties_and_corners_take_d3ds_face(gpu_device):
    """Ties of the largest magnitude take Z, then Y, then X (7.18.7), the coordinate on the
    chosen face's edge clamped to it: lavapipe and llvmpipe's OpenGL agree with D3D (rules
    17.9; docs/known-adapter-issues.md)."""
    so = so_words(run_case_so_gpu(cube_case(), gpu_device), 14, 8)
    np.testing.assert_array_equal(so[TIES, :4], _texels(CUBE_WANT)[TIES])


CUBE_ARRAY = r"""
TextureCubeArray<float4> Skies : register(t0);
SamplerState Point : register(s0);
static const float4 AT[5] = { float4(0, 2, 0, 0.4), float4(0, 0, -1, 1.5), float4(-5, 1, 1, 0.5),
                              float4(0, -1, 0.5, 7), float4(0.5, 0.25, 1, -2) };
struct O { float4 pos : SV_Position; float4 texel : TEXCOORD0; uint4 dims : TEXCOORD1; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.texel = Skies.SampleLevel(Point, AT[id], 0);
    uint w, h, e, n; Skies.GetDimensions(id % 2, w, h, e, n);
    float fw, fh, fe, fn; Skies.GetDimensions(id % 2, fw, fh, fe, fn);
    o.dims = uint4(w, h, e, n * 1000 + uint(fw) * 100 + uint(fe) * 10 + uint(fn));
    return o;
}
"""
# Two cubes of 1x1 faces: cube c's face f holds 1000 c + 100 (f + 1). The cube is the float
# rounded to nearest even and clamped to 0..1 (5.3.8.1): 0.4 -> 0, 1.5 -> 2 -> 1, 0.5 -> 0,
# 7 -> 1, -2 -> 0; faces +Y (300), -Z (600), -X (200), -Y (400), +Z (500).
SKIES = {"register": 0, "kind": "texture2d", "format": "R16G16_FLOAT", "width": 1, "height": 1,
         "array_size": 12, "data": {"dtype": "uint16", "values": _halves(
             [1000 * c + 100 * (f + 1) for c in range(2) for f in range(6)])}}
ARRAY_WANT = [300, 1600, 200, 1400, 500]
# GetDimensions(id % 2): level 0 1x1 of 2 cubes, level 1 past the last 0x0 and 0 cubes; 1 level
ARRAY_DIMS = np.array([[1, 1, 2, 1000 + 100 + 20 + 1] if i % 2 == 0 else [0, 0, 0, 1001]
                       for i in range(5)], np.uint32)


def cube_array_case():
    return load_case(texture_case_doc("texture_cube_array", CUBE_ARRAY, 5, [SKIES],
                                      [(0, 4), (1, 4)], POINT))


def test_cube_array_cpu_and_stream_output(gpu_device):
    case = cube_array_case()
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], _texels(ARRAY_WANT))
    np.testing.assert_array_equal(cpu["TEXCOORD1"], ARRAY_DIMS)
    so = so_words(run_case_so_gpu(case, gpu_device), 5, 8)
    np.testing.assert_array_equal(so[:, :4], _texels(ARRAY_WANT))
    np.testing.assert_array_equal(so[:, 4:], ARRAY_DIMS)


@pytest.mark.parametrize("make", [cube_case, cube_array_case], ids=["cube", "cube_array"])
def test_cube_capture_paths_match_the_cpu(gpu_device, make):
    result = cross_check(make(), [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


@pytest.mark.parametrize("decl, use, says", [
    ("TextureCube<float4> T : register(t0);", "T.Load(int3(0, 0, 0))", "22.4.6; rules 17.9"),
    ("TextureCubeArray<float4> T : register(t0);", "T[uint4(0, 0, 0, 0)]", "22.4.6; rules 17.9"),
    ("TextureCube<float4> T : register(t0);\nSamplerComparisonState C : register(s1);",
     "T.SampleCmpLevelZero(C, float3(1, 0, 0), 0.5)", "rules 17.9, 17.10"),
], ids=["load", "subscript", "comparison"])
def test_cube_reads_d3d_or_gpuia_does_not_take_are_refused(decl, use, says):
    from gpuia.hlsl import compile_shader

    with pytest.raises(InvalidDescError, match=says):
        compile_shader(refusal_vs(decl, use))


@pytest.mark.parametrize("sky, field, says", [
    ({"array_size": 12, "data": {"dtype": "uint16", "values": _halves(FACES * 2)}},
     "array_size", "6 slices"),
    ({"height": 1, "mip_levels": 1, "data": {"dtype": "uint16", "values": _halves(range(12))}},
     "height", "square"),
], ids=["twelve_slices", "not_square"])
def test_a_cube_binds_a_square_texture_of_six_slices(sky, field, says):
    with pytest.raises(InvalidDescError, match=says) as e:
        cube_case(**sky)
    assert e.value.field == field


def test_a_cube_array_binds_a_multiple_of_six_slices():
    doc = texture_case_doc("t", CUBE_ARRAY, 5, [{**SKIES, "array_size": 6, "data": {
        "dtype": "uint16", "values": _halves(range(6))}}], [(0, 4)], POINT)
    load_case(doc)  # one cube: a cube array of 1
    doc["shader_resources"][0].update(array_size=8, data={"dtype": "uint16",
                                                          "values": _halves(range(8))})
    with pytest.raises(InvalidDescError, match="a multiple of 6 slices"):
        load_case(doc)


@pytest.mark.parametrize("filter", ["MIN_MAG_MIP_LINEAR", "MIN_POINT_MAG_LINEAR_MIP_POINT"])
def test_linear_cube_sampling_is_refused_naming_the_rule(filter):
    doc = texture_case_doc("t", CUBE, 14, [SKY], [(0, 4)], [{"register": 0, "filter": filter}])
    with pytest.raises(UnsupportedError, match="7.18.12.*rules 17.9"):
        load_case(doc)


def test_a_linear_mip_filter_between_point_taps_is_taken():
    """MIN_MAG_POINT_MIP_LINEAR blends two levels' point taps, each on one face (rules 17.6's
    mip weight): taken, within the case's tolerance."""
    doc = texture_case_doc("t", CUBE, 14, [SKY], [(0, 4)],
                           [{"register": 0, "filter": "MIN_MAG_POINT_MIP_LINEAR"}])
    case = load_case(doc)
    cpu = shader_outputs(case, run_reference(case))["TEXCOORD0"][:, 0].view(np.float32)
    # LOD .4 of (-1, .5, .5): -X's level 0 texel (1, 0) 201 and level 1 250 at weight .4
    assert cpu[13] == np.float32(201 * 0.6 + 250 * 0.4)


def test_sky_example(gpu_device):
    """examples/cases/texture_cube_sky.json: each direction's face, worked out in its
    description, gives the vertex its colour exactly (UNORM 0 and 255: 0.0 and 1.0)."""
    from helpers import EXAMPLE_CASES

    case = load_case(str(EXAMPLE_CASES / "texture_cube_sky.json"))
    red, cyan, blue, green = (1, 0, 0, 1), (0, 1, 1, 1), (0, 0, 1, 1), (0, 1, 0, 1)
    yellow, magenta = (1, 1, 0, 1), (1, 0, 1, 1)
    want = np.array([blue, green, red, cyan, yellow, magenta, blue, magenta],
                    np.float32).view(np.uint32)
    np.testing.assert_array_equal(shader_outputs(case, run_reference(case))["TEXCOORD0"], want)
    np.testing.assert_array_equal(so_words(run_case_so_gpu(case, gpu_device), 8, 7)[:, :4], want)
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


def test_the_context_api_binds_a_cube_and_refuses_what_a_cube_view_cannot_be(gpu_device):
    from gpuia import InputLayout
    from gpuia.gpu import Context, PipelineState
    from gpuia.gpu.textures import create_texture
    from gpuia.hlsl import compile_shader

    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(InputLayout([]), compile_shader(CUBE)))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.set_sampler(0, {"filter": "MIN_MAG_MIP_POINT"})
    five = create_texture(gpu_device, "R16G16_FLOAT", 2, 2, 1, bytes(80), array_size=5)
    ctx.set_texture_shader_resource_view(0, five)
    with pytest.raises(InvalidDescError, match="6 slices"):
        ctx.draw_instanced(1)
    sky = create_texture(gpu_device, "R16G16_FLOAT", 2, 2, 2,
                         np.array(SKY["data"]["values"], np.uint16).tobytes(), array_size=6)
    ctx.set_texture_shader_resource_view(0, sky)
    ctx.draw_instanced(14)
    ctx.set_sampler(0, {"filter": "MIN_MAG_MIP_LINEAR"})
    with pytest.raises(UnsupportedError, match="rules 17.9"):
        ctx.draw_instanced(14)
    ctx.flush()


def test_a_cube_entry_may_name_its_view_dimension():
    """The optional view_dimension is the SRV's D3D12_SRV_DIMENSION: a cube's TEXTURECUBE is
    taken (prefix and case as D3D spells it too); another the shader does not declare, or
    one a texture2d cannot have, is refused naming the field."""
    cube_case(view_dimension="TEXTURECUBE")
    cube_case(view_dimension="d3d12_srv_dimension_texturecube")
    with pytest.raises(InvalidDescError, match="D3D12_SRV_DIMENSION_TEXTURECUBE") as e:
        cube_case(view_dimension="TEXTURE2DARRAY")
    assert e.value.field == "view_dimension"
    from gpuia.errors import CaseError

    with pytest.raises(CaseError, match="view_dimension"):
        cube_case(view_dimension="TEXTURE3D")
