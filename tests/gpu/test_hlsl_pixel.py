"""HLSL pixel shaders drawn for real, linked to HLSL vertex shaders by semantic, each pixel
checked against numpy: D3D's interpolation modes (perspective-correct by default,
``noperspective``, ``nointerpolation`` from the leading vertex, ``centroid``/``sample``),
``SV_Position`` (pixel center, depth, clip w), constant buffers in both stages, several render
targets with an integer one, and the refusals of linkage.

Expected values come from barycentric coordinates of each pixel center computed in numpy (edge
functions of the triangle's corners, snapped to D3D's 8-bit sub-pixel grid as a rasterizer
does), never from the GPU. Pixels whose center lies within
1e-3 of an edge are left out (D3D's top-left rule decides those).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia import InputLayout
from gpuia.errors import InvalidDescError
from gpuia.gpu import Context, PipelineState
from gpuia.hlsl import compile_shader

W = H = 32
LAYOUT = InputLayout([
    {"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"},
    {"SemanticName": "COLOR", "Format": "R32G32B32A32_FLOAT", "InputSlot": 1},
])

VS = """
struct VSIn { float4 pos : POSITION; float4 color : COLOR; uint vid : SV_VertexID; };
struct VSOut {
    float4 pos : SV_Position;
    float4 color : COLOR0;
    uint id : TEXCOORD1;
    float depth : TEXCOORD2;
};
VSOut main(VSIn v) {
    VSOut o;
    o.pos = v.pos;
    o.color = v.color;
    o.id = v.vid * 10 + 3;
    o.depth = v.pos.z;
    return o;
}
"""

# One triangle, clockwise on screen, with a different clip w at each corner (1, 2, 0.5), so
# perspective-correct and screen-linear interpolation differ.
NDC = np.array([[-0.9, -0.8], [0.1, 0.9], [0.8, -0.6]])
WS = np.array([1.0, 2.0, 0.5])
ZS = np.array([0.25, 0.5, 0.75])  # NDC depth
COLORS = np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.5], [0.0, 0.0, 1.0, 0.0]])


def clip_positions(ndc=NDC, ws=WS, zs=ZS) -> np.ndarray:
    return np.array([[x * w, y * w, z * w, w]
                     for (x, y), w, z in zip(ndc, ws, zs, strict=True)], np.float32)


def snapped(ndc):
    """The corners as a rasterizer may see them: in pixels, snapped to D3D's 16.8 fixed-point
    grid (8 bits of sub-pixel precision), back in NDC."""
    sx = np.round((np.asarray(ndc)[:, 0] + 1) / 2 * W * 256) / 256
    sy = np.round((1 - np.asarray(ndc)[:, 1]) / 2 * H * 256) / 256
    return np.stack([sx / W * 2 - 1, 1 - sy / H * 2], 1)


def barycentrics(ndc=NDC):
    """Screen-space barycentric coordinates of every pixel center, (H, W, 3), and the mask of
    centers safely inside."""
    xs = (np.arange(W) + 0.5) / W * 2 - 1
    ys = 1 - (np.arange(H) + 0.5) / H * 2
    px, py = np.meshgrid(xs, ys)
    (x0, y0), (x1, y1), (x2, y2) = ndc
    area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
    l0 = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) / area
    l1 = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) / area
    l2 = 1 - l0 - l1
    lam = np.stack([l0, l1, l2], -1)
    inside = (lam > 1e-3).all(-1)
    assert inside.sum() > 60
    return lam, inside


def expect(values_of, ndc=NDC):
    """(expected values at every pixel center, allowance, mask of centers inside):
    ``values_of(lam)`` from the exact corners; the allowance is how much snapping the corners
    to the sub-pixel grid changes them (D3D leaves open whether attributes are set up from
    snapped positions: lavapipe does not, NVIDIA does)."""
    lam, inside = barycentrics(ndc)
    want = values_of(lam)
    allowance = np.abs(values_of(barycentrics(snapped(ndc))[0]) - want)
    return want, allowance, inside


def assert_close(img, want, allowance, inside, atol=2e-4):
    """Every covered pixel within ``atol`` (float interpolation) plus the snapping allowance."""
    err = np.abs(img[inside] - want[inside])
    limit = atol + allowance[inside]
    worst = np.unravel_index(np.argmax(err - limit), err.shape)
    assert (err <= limit).all(), (f"{int((err > limit).sum())} components off; worst "
                                  f"{img[inside][worst]} vs {want[inside][worst]} (allowed "
                                  f"{limit[worst]:.2e})")


def perspective(lam, values, ws=WS):
    wts = lam / ws
    return (wts @ values) / wts.sum(-1, keepdims=True)


def screen_linear(lam, values):
    return lam @ values


def render(dev, ps_src, *, vs_src=VS, targets=("R32G32B32A32_FLOAT",), path="auto",
           positions=None, colors=COLORS, vertices=3, cbuffers=None):
    vs = compile_shader(vs_src, "vertex")
    ps = compile_shader(ps_src, "pixel")
    from gpuia.gpu.targets import TARGET_FORMATS

    missing = [f for f in targets if TARGET_FORMATS[f].webgpu not in dev.caps.target_formats]
    if missing:  # create_render_target refuses them (tested in test_gpu_api_refusals.py)
        pytest.skip(f"{dev.info['summary']} cannot render into {', '.join(missing)}, which "
                    f"this test reads its float results from")
    rts = [dev.create_render_target(W, H, f) for f in targets]
    ctx = Context(dev)
    ctx.om_set_render_targets(rts)
    for rt in rts:
        ctx.clear_render_target_view(rt, (0, 0, 0, 0))
    ctx.set_pipeline_state(PipelineState(LAYOUT, vertex_shader=vs, pixel_shader=ps,
                                         rtv_formats=targets, depth_enable=False,
                                         cull_mode="NONE"))
    for slot, data in (cbuffers or {}).items():
        ctx.set_graphics_root_constant_buffer_view(
            slot, dev.create_buffer(bytes(data) + bytes(256 - len(data) % 256),
                                    bind=("constant_buffer",)))
    ctx.set_path(path)
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    pos = clip_positions() if positions is None else positions
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(np.asarray(pos, np.float32)),
                                  dev.create_buffer(np.asarray(colors, np.float32))], [16, 16])
    plan = ctx.draw_instanced(vertices)
    ctx.flush()
    if path != "auto":
        assert plan.path == path
    return [rt.read() for rt in rts]


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_default_interpolation_is_perspective_correct(gpu_device, path):
    (img,) = render(gpu_device, """
float4 main(float4 c : COLOR0) : SV_Target { return c; }
""", path=path)
    want, allowance, inside = expect(lambda lam: perspective(lam, COLORS))
    assert_close(img, want, allowance, inside)
    # The test can tell the modes apart: screen-linear values differ by far more than that.
    assert np.abs(screen_linear(barycentrics()[0], COLORS) - want)[inside].max() > 0.05
    assert allowance[inside].max() < 0.01


@pytest.mark.parametrize("mods", ["noperspective", "noperspective centroid",
                                  "sample noperspective"])
def test_noperspective_is_screen_linear(gpu_device, mods):
    """With centroid or sample too (single-sampled, covered centers: the same values)."""
    (img,) = render(gpu_device, f"""
struct PSIn {{ {mods} float4 c : COLOR0; }};
float4 main(PSIn i) : SV_Target {{ return i.c; }}
""")
    assert_close(img, *expect(lambda lam: screen_linear(lam, COLORS)))


def test_centroid_and_sample_interpolate_at_the_center_of_covered_pixels(gpu_device):
    """Single-sampled: a pixel whose center is covered reads the perspective-correct value at
    its center, in either mode."""
    (img,) = render(gpu_device, """
float4 main(centroid float4 c : COLOR0, sample float d : TEXCOORD2) : SV_Target {
    return float4(c.xyz, d);
}
""")
    assert_close(img, *expect(lambda lam: perspective(
        lam, np.c_[COLORS[:, :3], clip_positions()[:, 2]])))


def test_nointerpolation_takes_the_leading_vertex_and_integer_target(gpu_device):
    """Two triangles; each pixel gets its triangle's first vertex value (D3D's leading vertex),
    a float through nointerpolation, a uint (always flat) into an R32G32B32A32_UINT target."""
    ndc2 = np.array([[0.85, 0.9], [0.9, -0.9], [0.2, 0.95]])  # a second, clockwise triangle
    pos = np.r_[clip_positions(), clip_positions(ndc2, np.ones(3), np.full(3, 0.5))]
    colors = np.r_[COLORS, [[0.3, 0.6, 0.9, 1.0], [0, 0, 0, 0], [1, 1, 1, 1]]]
    img, ids = render(gpu_device, """
struct PSIn { nointerpolation float4 c : COLOR0; uint id : TEXCOORD1; };
struct PSOut { float4 color : SV_Target0; uint4 id : SV_Target1; };
PSOut main(PSIn i) { PSOut o; o.color = i.c; o.id = uint4(i.id, i.id + 1, 7, 9); return o; }
""", targets=("R32G32B32A32_FLOAT", "R32G32B32A32_UINT"), positions=pos, colors=colors,
        vertices=6)
    lam, inside = barycentrics()
    lam2, inside2 = barycentrics(ndc2)
    assert not (inside & inside2).any()
    colors = colors.astype(np.float32)  # flat values arrive bit for bit
    np.testing.assert_array_equal(img[inside], np.tile(colors[0], (inside.sum(), 1)))
    np.testing.assert_array_equal(img[inside2], np.tile(colors[3], (inside2.sum(), 1)))
    # SV_VertexID 0 and 3 lead the triangles: ids 3 and 33.
    np.testing.assert_array_equal(ids[inside], np.tile([3, 4, 7, 9], (inside.sum(), 1)))
    np.testing.assert_array_equal(ids[inside2], np.tile([33, 34, 7, 9], (inside2.sum(), 1)))


def test_sv_position_is_d3ds(gpu_device):
    """SV_Position in the pixel shader: pixel center x, y; NDC depth z (screen-linear); the
    clip-space w (perspective-correct w, i.e. 1 / interpolated 1/w)."""
    (img,) = render(gpu_device, """
float4 main(float4 p : SV_Position) : SV_Target { return p; }
""")
    yy, xx = np.mgrid[0:H, 0:W]
    want, allowance, inside = expect(lambda lam: np.stack(
        [xx + 0.5, yy + 0.5, screen_linear(lam, ZS), 1.0 / (lam / WS).sum(-1)], -1))
    # x, y are exact pixel centers: no allowance there
    assert not allowance[..., :2].any()
    assert_close(img, want, allowance, inside, atol=2e-4)


def test_constant_buffers_in_both_stages(gpu_device):
    """VS cbuffer b0 (row_major matrix), PS cbuffer b1 whose float2 follows a float (D3D
    offset 4, WGSL 8: remapped), bound as root constant buffers 0 and 1."""
    vs = VS.replace("struct VSIn", "cbuffer Xform : register(b0) { row_major float4x4 M; };\n"
                                   "struct VSIn")
    vs = vs.replace("o.pos = v.pos;", "o.pos = mul(v.pos, M);")
    m = np.eye(4, dtype=np.float32)
    m[3, :2] = [0.05, -0.1]  # row-major: translation in the last row, mul(v, M)
    cb0 = m.tobytes()  # rows in registers 0..3
    cb1 = np.array([2.0, 0.25, 0.5, 0.0, 0.5, 1.0, 1.0, 1.0], np.float32).tobytes()
    # Gain @0, Offset @4 (float2), Tint @16 (float4)
    (img,) = render(gpu_device, """
cbuffer Look : register(b1) { float Gain; float2 Offset; float4 Tint; };
float4 main(float4 c : COLOR0) : SV_Target { return c * Gain * Tint + float4(Offset, 0, 0); }
""", vs_src=vs, cbuffers={0: cb0, 1: cb1})
    moved = NDC + [0.05, -0.1]  # the translation, in NDC (w cancels)
    assert_close(img, *expect(lambda lam: perspective(lam, COLORS) * 2.0 * [0.5, 1, 1, 1]
                              + [0.25, 0.5, 0, 0], moved), atol=4e-4)


def test_pixel_shader_linkage_refusals(gpu_device):
    vs = compile_shader(VS, "vertex")

    def pso(ps_src, **kw):
        return PipelineState(LAYOUT, vertex_shader=vs,
                             pixel_shader=compile_shader(ps_src, "pixel"),
                             rtv_formats=kw.pop("rtv", ("R32G32B32A32_FLOAT",)), **kw)

    ctx = Context(gpu_device)
    with pytest.raises(InvalidDescError, match="NORMAL0"):
        ctx.set_pipeline_state(pso("float4 main(float3 n : NORMAL) : SV_Target "
                                   "{ return float4(n, 1); }"))
    with pytest.raises(InvalidDescError, match="TEXCOORD1.*nointerpolation"):
        ctx.set_pipeline_state(pso("float4 main(noperspective uint id : TEXCOORD1) : SV_Target "
                                   "{ return id; }"))
    with pytest.raises(InvalidDescError, match="COLOR0"):  # a width the VS does not write
        ctx.set_pipeline_state(pso("float4 main(float2 c : COLOR0) : SV_Target "
                                   "{ return c.xyxy; }"))
    with pytest.raises(InvalidDescError, match="SV_Target1"):  # no RTVFormats[1]
        ctx.set_pipeline_state(pso("struct O { float4 a : SV_Target0; float4 b : SV_Target1; };"
                                   "O main(float4 c : COLOR0) { O o; o.a = c; o.b = c; "
                                   "return o; }"))
    with pytest.raises(InvalidDescError, match="u32"):  # float output into a UINT target
        ctx.set_pipeline_state(pso("float4 main(float4 c : COLOR0) : SV_Target { return c; }",
                                   rtv=("R32G32B32A32_UINT",)))
    with pytest.raises(InvalidDescError, match="pixel shader"):  # a pixel shader as the VS
        PipelineState(LAYOUT, vertex_shader=compile_shader("float4 main() : SV_Target "
                                                           "{ return 1; }", "pixel"))
