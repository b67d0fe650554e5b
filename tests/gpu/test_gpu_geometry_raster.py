"""A geometry shader's rasterized stream drawn (gpuia.gpu.context.gs_raster): points expanded
into quads by the shader, shaded by a pixel shader that reads the stream's outputs. Expected
pixels derived by hand: the quads' edges lie on pixel edges, so the covered pixels are exactly
the pixels inside (D3D's top-left rule decides nothing here), and the winding follows D3D's
strip order (rules 13.5, 9.3). Fails, never skips, without an adapter."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia import SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.gpu import Context, PipelineState
from gpuia.gpu.context import geometry
from gpuia.hlsl import compile_geometry_shader

W = H = 16
LAYOUT = [{"SemanticName": "RECT", "Format": "R32G32B32A32_FLOAT"},
          {"SemanticName": "COLOR", "Format": "R32G32B32A32_FLOAT", "AlignedByteOffset": 16}]
# Each point is a rectangle (x0, y0, x1, y1) in pixels, rows counted from the top, and a color:
# a 4-vertex strip (x0,y0) (x1,y0) (x0,y1) (x1,y1) in NDC, whose triangles (0,1,2) and
# (1,3,2) are both clockwise on screen (y down), front faces under D3D's default.
QUADS = """
struct V { float4 rect : RECT; float4 color : COLOR; };
struct O { float4 pos : SV_Position; float4 color : COLOR; uint corner : CORNER; };
[maxvertexcount(4)]
void main(point V v[1], inout TriangleStream<O> s) {
    for (uint k = 0; k < 4; k++) {
        float x = (k & 1) ? v[0].rect.z : v[0].rect.x;
        float y = (k & 2) ? v[0].rect.w : v[0].rect.y;
        O o;
        o.pos = float4(x / 8.0 - 1.0, 1.0 - y / 8.0, 0.5, 1.0);
        o.color = v[0].color;
        o.corner = k;
        s.Append(o);
    }
}
"""
PS = """
struct PSIn { COLOR: vec4<f32> }
struct PSOut { SV_Target0: vec4<f32> }
@fragment fn ps(i: PSIn) -> PSOut { var o: PSOut; o.SV_Target0 = i.COLOR; return o; }
"""
RECTS = [((2, 3, 7, 5), (1, 0, 0, 1)), ((9, 8, 16, 16), (0, 1, 0, 1)),
         ((0, 0, 1, 1), (1, 1, 1, 1))]


def draw(dev, so=None, rects=RECTS, ps=PS, **pso):
    """A context drawing QUADS of ``rects`` with ``ps`` into a cleared 16 x 16 target."""
    ctx = Context(dev)
    rt = dev.create_render_target(W, H, "R8G8B8A8_UNORM")
    ctx.om_set_render_targets([rt])
    ctx.clear_render_target_view(rt, (0, 0, 1, 1))
    ctx.set_pipeline_state(PipelineState(
        LAYOUT, pixel_shader=ps, rtv_formats=("R8G8B8A8_UNORM",), depth_enable=False,
        stream_output=so, geometry_shader=compile_geometry_shader(QUADS), **pso))
    data = np.array([[*r, *c] for r, c in rects], np.float32)
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(data)], [32], [0])
    ctx.ia_set_primitive_topology("POINTLIST")
    return ctx, rt


def expected(rects=RECTS) -> np.ndarray:
    img = np.zeros((H, W, 4), np.uint8)
    img[..., 2:] = 255  # the clear color (0, 0, 1, 1)
    for (x0, y0, x1, y1), color in rects:
        img[y0:y1, x0:x1] = np.array(color) * 255
    return img


@pytest.mark.parametrize("chunk", [None, 2])
def test_points_become_quads_on_screen(gpu_device, monkeypatch, chunk):
    if chunk:  # two chunks: the stream is drawn after each
        monkeypatch.setattr(geometry, "CHUNK", chunk)
    ctx, rt = draw(gpu_device)
    ctx.draw_instanced(3)
    ctx.flush()
    np.testing.assert_array_equal(rt.read(), expected())


def test_the_strip_winding_is_d3d_s(gpu_device):
    # Both triangles are clockwise on screen: culling front faces removes them all, culling
    # back faces none; with FrontCounterClockwise the roles swap.
    for cull, ccw, drawn in (("FRONT", False, []), ("BACK", False, RECTS),
                             ("BACK", True, []), ("FRONT", True, RECTS)):
        ctx, rt = draw(gpu_device, cull_mode=cull, front_counter_clockwise=ccw)
        ctx.draw_instanced(3)
        ctx.flush()
        np.testing.assert_array_equal(rt.read(), expected(drawn), err_msg=f"{cull} {ccw}")


def test_stream_output_and_the_rasterized_stream_together(gpu_device):
    # RasterizedStream 0 with Stream Output of CORNER: the strips stream out as lists (corners
    # 0 1 2 1 3 2 per quad, rules 9.3) and the same quads are drawn.
    so = StreamOutputDesc((SODeclarationEntry(0, "CORNER", 0, 0, 1, 0),), (4,), 0)
    ctx, rt = draw(gpu_device, so=so)
    out = gpu_device.create_buffer(size=128, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(out)], [0])
    ctx.draw_instanced(3)
    ctx.flush()
    np.testing.assert_array_equal(rt.read(), expected())
    assert np.frombuffer(out.read(), np.uint32)[:18].tolist() == [0, 1, 2, 1, 3, 2] * 3
    assert ctx.so_statistics() == {"NumPrimitivesWritten": 6, "PrimitivesStorageNeeded": 6}


def test_no_rasterized_stream_draws_nothing(gpu_device):
    so = StreamOutputDesc((SODeclarationEntry(0, "CORNER", 0, 0, 1, 0),), (4,),
                          "NO_RASTERIZED_STREAM")
    ctx, rt = draw(gpu_device, so=so)
    ctx.so_set_targets([StreamOutputBufferView(
        gpu_device.create_buffer(size=128, bind=("stream_output",)))], [0])
    ctx.draw_instanced(3)
    ctx.flush()
    np.testing.assert_array_equal(rt.read(), expected([]))


FLAT_PS = """
struct PSIn { @interpolate(flat) CORNER: u32 }
struct PSOut { SV_Target0: vec4<f32> }
@fragment fn ps(i: PSIn) -> PSOut {
    var o: PSOut; o.SV_Target0 = vec4<f32>(f32(i.CORNER) / 3.0, 0.0, 0.0, 1.0); return o;
}
"""


def test_a_flat_output_comes_from_each_triangle_s_first_vertex(gpu_device):
    # One 4 x 3 pixel rectangle at (2, 3): triangle (0, 1, 2) takes the pixels whose centers
    # (i + 0.5, j + 0.5), relative to its corner, satisfy 3 (i + 0.5) + 4 (j + 0.5) < 12 (the
    # side of the diagonal from corner 1 to corner 2 holding corner 0; no center lies on it),
    # and shows corner 0; triangle (1, 3, 2) the others, corner 1 (D3D's provoking vertex is
    # a primitive's first, and the strip's second triangle starts at vertex 1, rules 9.3).
    ctx, rt = draw(gpu_device, rects=[((2, 3, 6, 6), (0, 0, 0, 0))], ps=FLAT_PS,
                   cull_mode="NONE")
    ctx.draw_instanced(1)
    ctx.flush()
    want = expected([])
    for j in range(3):
        for i in range(4):
            corner = 0 if 3 * (i + 0.5) + 4 * (j + 0.5) < 12 else 1
            want[3 + j, 2 + i] = (round(corner / 3 * 255), 0, 0, 255)
    np.testing.assert_array_equal(rt.read(), want)
