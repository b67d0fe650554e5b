"""Context.set_graphics_root_shader_resource_view (docs/resources.md): a root SRV bound the
D3D12 way, its view (offset, NumElements) changing what the shader reads, reads past the view
returning 0, and each refusal naming the register and rule.

The shader streams out ``Values[id]`` of a ``StructuredBuffer<uint4>`` and the view's count
(GetDimensions): the buffer holds the words 100..115 (four uint4 elements), so element k of
the buffer is (100 + 4k, ..., 103 + 4k); a view from byte ``offset`` reads element
``offset / 16 + i`` for vertex i below its count, and (0, 0, 0, 0) past it.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia import InputLayout, SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.gpu import Context, PipelineState
from gpuia.hlsl import compile_shader

HLSL = r"""
StructuredBuffer<uint4> Values : register(t5);
struct O { float4 pos : SV_Position; uint4 v : TEXCOORD0; uint n : TEXCOORD1; };
O main(uint id : SV_VertexID) {
    O o; uint n, stride; Values.GetDimensions(n, stride);
    o.pos = float4(0, 0, 0, 1); o.v = Values[id]; o.n = n; return o;
}
"""
WORDS = np.arange(100, 116, dtype=np.uint32)


def _context(dev):
    ctx = Context(dev)
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="TEXCOORD", component_count=4),
                             SODeclarationEntry(semantic_name="TEXCOORD", semantic_index=1,
                                                component_count=1)))
    ctx.set_pipeline_state(PipelineState(InputLayout([]), compile_shader(HLSL),
                                         stream_output=desc))
    ctx.ia_set_primitive_topology("POINTLIST")
    return ctx


def _draw(dev, ctx, count: int) -> np.ndarray:
    target = dev.create_buffer(size=20 * count, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, 20 * count, 0)])
    ctx.draw_instanced(count)
    ctx.flush()
    return np.frombuffer(target.read(), np.uint32).reshape(count, 5)


def _expected(first: int, count: int, vertices: int) -> np.ndarray:
    out = np.zeros((vertices, 5), np.uint32)
    for i in range(vertices):
        if i < count:
            out[i, :4] = WORDS[4 * (first + i):4 * (first + i) + 4]
        out[i, 4] = count
    return out


@pytest.mark.parametrize("offset, num_elements, first, count", [
    (0, None, 0, 4), (16, None, 1, 3), (32, 1, 2, 1), (0, 0, 0, 0)])
def test_view_selects_what_is_read(gpu_device, offset, num_elements, first, count):
    ctx = _context(gpu_device)
    buf = gpu_device.create_buffer(WORDS, bind=("shader_resource",))
    ctx.set_graphics_root_shader_resource_view(5, buf, offset, num_elements)
    np.testing.assert_array_equal(_draw(gpu_device, ctx, 5), _expected(first, count, 5))


@pytest.mark.parametrize("bind, call, words", [
    (("vertex_buffer",), lambda c, b: c.set_graphics_root_shader_resource_view(5, b),
     "shader_resource bind flag"),
    (("shader_resource",), lambda c, b: c.set_graphics_root_shader_resource_view(128, b),
     "0..127"),
    (("shader_resource",), lambda c, b: c.set_graphics_root_shader_resource_view(5, b, 6),
     "multiple of 4"),
])
def test_refused_when_set(gpu_device, bind, call, words):
    ctx = _context(gpu_device)
    buf = gpu_device.create_buffer(WORDS, bind=bind)
    with pytest.raises(InvalidDescError) as e:
        call(ctx, buf)
    assert words in str(e.value), str(e.value)


@pytest.mark.parametrize("args, words", [
    (None, "set_graphics_root_shader_resource_view(5, ...) was not called"),
    ((4,), "no multiple of Values's 16-byte element"),
    ((16, 4), "reaches past the buffer"),
    ((0, None, 32), "StructureByteStride differs"),
])
def test_refused_at_the_draw(gpu_device, args, words):
    ctx = _context(gpu_device)
    if args is not None:
        buf = gpu_device.create_buffer(WORDS, bind=("shader_resource",))
        ctx.set_graphics_root_shader_resource_view(5, buf, *args)
    target = gpu_device.create_buffer(size=64, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, 64, 0)])
    with pytest.raises(InvalidDescError) as e:
        ctx.draw_instanced(1)
    assert words in str(e.value) and "root shader resource view 5" in str(e.value), str(e.value)


def test_more_resources_than_storage_buffers_are_refused(gpu_device):
    """An adapter's max-storage-buffers-per-shader-stage bounds the SRVs (OpenGL may have few
    in the vertex stage): one more than the limit is refused naming it."""
    import dataclasses

    from gpuia.gpu.context.srv_state import check_resource_limits

    srvs = compile_shader(HLSL).shader_resources
    caps = dataclasses.replace(gpu_device.caps, max_storage_buffers_per_shader_stage=0)
    with pytest.raises(UnsupportedError) as e:
        check_resource_limits(srvs, 1, caps, "this adapter")
    assert "max-storage-buffers-per-shader-stage 0" in str(e.value) and "t5" in str(e.value)
    caps = dataclasses.replace(gpu_device.caps, max_uniform_buffers_per_shader_stage=3)
    with pytest.raises(UnsupportedError) as e:
        check_resource_limits(srvs, 3, caps, "this adapter")
    assert "max-uniform-buffers-per-shader-stage 3" in str(e.value)


def test_released_buffers_are_refused(gpu_device):
    """A released buffer is refused when bound, and at the draw when released after binding."""
    ctx = _context(gpu_device)
    gone = gpu_device.create_buffer(WORDS, bind=("shader_resource",))
    gone.release()
    with pytest.raises(InvalidDescError) as e:
        ctx.set_graphics_root_shader_resource_view(5, gone)
    assert "SetGraphicsRootShaderResourceView" in str(e.value) and "released" in str(e.value)
    buf = gpu_device.create_buffer(WORDS, bind=("shader_resource",))
    ctx.set_graphics_root_shader_resource_view(5, buf)
    buf.release()
    target = gpu_device.create_buffer(size=64, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, 64, 0)])
    with pytest.raises(InvalidDescError) as e:
        ctx.draw_instanced(1)
    assert "root shader resource view 5" in str(e.value) and "released" in str(e.value)


def test_space_is_part_of_the_register(gpu_device):
    """A view bound at t5 of space0 does not bind t5 of space3."""
    shader = compile_shader(HLSL.replace("register(t5)", "register(t5, space3)"))
    ctx = Context(gpu_device)
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="TEXCOORD", component_count=4),))
    ctx.set_pipeline_state(PipelineState(InputLayout([]), shader, stream_output=desc))
    ctx.ia_set_primitive_topology("POINTLIST")
    buf = gpu_device.create_buffer(WORDS, bind=("shader_resource",))
    ctx.set_graphics_root_shader_resource_view(5, buf)
    target = gpu_device.create_buffer(size=16, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, 16, 0)])
    with pytest.raises(InvalidDescError) as e:
        ctx.draw_instanced(1)
    assert "register_space=3" in str(e.value), str(e.value)
    ctx.set_graphics_root_shader_resource_view(5, buf, 16, register_space=3)
    ctx.draw_instanced(1)
    ctx.flush()
    np.testing.assert_array_equal(np.frombuffer(target.read(), np.uint32), WORDS[4:8])


RENDER_VS = r"""
ByteAddressBuffer Corners : register(t0);
StructuredBuffer<float4> Colors : register(t1);
struct O { float4 pos : SV_Position; float4 color : COLOR0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(asfloat(Corners.Load2(id * 8)), 0.5, 1);
    o.color = Colors[id / 3];
    return o;
}
"""
RENDER_PS = r"""
float4 main(float4 pos : SV_Position, float4 color : COLOR0) : SV_Target { return color; }
"""


def test_a_rendering_draw_reads_its_resources(gpu_device):
    """Two full-target triangles pulled from a ByteAddressBuffer, coloured by Colors[id / 3]:
    the first (vertices 0-2) covers the upper left half of a 4x4 target in green, the second
    (3-5) reads Colors[1], past a 1-element view: (0, 0, 0, 0), so it clears the other half to
    transparent black over the target's blue."""
    dev = gpu_device
    rt = dev.create_render_target(4, 4, "R8G8B8A8_UNORM")
    ctx = Context(dev)
    ctx.om_set_render_targets([rt])
    ctx.clear_render_target_view(rt, (0, 0, 1, 1))
    ctx.set_pipeline_state(PipelineState(
        InputLayout([]), compile_shader(RENDER_VS), pixel_shader=compile_shader(
            RENDER_PS, stage="pixel"), rtv_formats=["R8G8B8A8_UNORM"], cull_mode="NONE",
        depth_enable=False))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    # clip space: (-1, 1) top left; triangle 0: top left, top right, bottom left;
    # triangle 1: top right, bottom right, bottom left
    corners = np.array([-1, 1, 1, 1, -1, -1, 1, 1, 1, -1, -1, -1], np.float32)
    ctx.set_graphics_root_shader_resource_view(0, dev.create_buffer(
        corners, bind=("shader_resource",)))
    ctx.set_graphics_root_shader_resource_view(1, dev.create_buffer(
        np.array([0, 1, 0, 1, 1, 1, 1, 1], np.float32), bind=("shader_resource",)), 0, 1)
    ctx.draw_instanced(6)
    ctx.flush()
    img = rt.read()
    # pixel (x, y) centre (x + .5, y + .5): in triangle 0 when x + y < 3 (above the diagonal);
    # centres on the shared diagonal (x + y = 3) go to triangle 1, whose left edge it is and
    # triangle 0's bottom-right edge (D3D's top-left rule)
    for y in range(4):
        for x in range(4):
            want = (0, 255, 0, 255) if x + y < 3 else (0, 0, 0, 0)
            assert tuple(img[y, x]) == want, (x, y, tuple(img[y, x]))
