"""DrawAuto with a flat pixel input takes D3D's provoking vertex, a primitive's first, on every
adapter: on one whose provoking vertex is the last (llvmpipe's OpenGL), gpuia reads the count
back and draws a host list that puts D3D's first vertex last (docs/known-adapter-issues.md).
The triangle covers the whole target, so every covered pixel shows vertex 0's ID (10), never
vertex 2's (30). Fails, never skips, without an adapter."""

from __future__ import annotations

import numpy as np

from gpuia import SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.gpu import Context, PipelineState

LAYOUT = [{"SemanticName": "SV_Position", "Format": "R32G32B32A32_FLOAT"},
          {"SemanticName": "ID", "Format": "R32_UINT", "AlignedByteOffset": 16}]
PS = """
struct PSIn { @interpolate(flat) ID: vec4<u32> }
struct PSOut { SV_Target0: vec4<f32> }
@fragment fn ps(i: PSIn) -> PSOut {
    var o: PSOut; o.SV_Target0 = vec4<f32>(f32(i.ID.x) / 255.0, 0.0, 0.0, 1.0); return o;
}
"""
TARGETS = {"rtv_formats": ("R8G8B8A8_UNORM",), "depth_enable": False, "cull_mode": "NONE"}


def test_draw_auto_takes_the_first_vertex_of_a_flat_input(gpu_device):
    dev = gpu_device
    data = np.zeros(3, dtype=[("p", "<f4", 4), ("id", "<u4"), ("pad", "<u4", 3)])
    data["p"] = [[-1, -1, 0, 1], [-1, 3, 0, 1], [3, -1, 0, 1]]
    data["id"] = [10, 20, 30]
    src = dev.create_buffer(data.tobytes())
    streamed = dev.create_buffer(size=96, bind=("vertex_buffer", "stream_output"))
    ctx = Context(dev)
    rt = dev.create_render_target(8, 8, "R8G8B8A8_UNORM")
    ctx.om_set_render_targets([rt])
    ctx.clear_render_target_view(rt, (0, 0, 0, 1))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    # The vertices streamed out as they are (SV_Position and ID at the source's offsets).
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=StreamOutputDesc(
        (SODeclarationEntry(0, "SV_Position", 0, 0, 4, 0), SODeclarationEntry(0, "ID", 0, 0, 1, 0)),
        (32,), "NO_RASTERIZED_STREAM"), **TARGETS))
    ctx.ia_set_vertex_buffers(0, [src], [32], [0])
    ctx.so_set_targets([StreamOutputBufferView(streamed)], [0])
    ctx.draw_instanced(3)
    ctx.so_set_targets([])
    ctx.set_pipeline_state(PipelineState(LAYOUT, pixel_shader=PS, **TARGETS))
    ctx.ia_set_vertex_buffers(0, [streamed], [32], [0])
    ctx.draw_auto()
    ctx.flush()
    assert (rt.read()[..., 0] == 10).all()
