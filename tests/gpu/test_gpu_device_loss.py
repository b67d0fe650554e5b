"""A lost device (destroyed, reset, removed) and allocation failures surface as gpuia
exceptions (DeviceLostError, GpuOutOfMemoryError), never as wgpu's own errors or an abort; a new
Device works afterwards."""

import numpy as np
import pytest

import gpuia
from gpuia.errors import DeviceLostError, GpuiaError
from gpuia.gpu import Context, Device, PipelineState

LAYOUT = [{"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"}]


def _lost_context():
    dev = Device(private=True)  # destroyed below: not an adapter-shared device
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(LAYOUT))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    vb = dev.create_buffer(np.arange(9, dtype=np.float32))
    ctx.ia_set_vertex_buffers(0, [vb], [12])
    ctx.draw_instanced(3)
    ctx.flush()
    rt = dev.create_render_target(4, 4)
    dev.device.destroy()
    return dev, ctx, vb, rt


def _so_draw(dev, ctx, vb, rt):
    so = gpuia.StreamOutputDesc([{"SemanticName": "POSITION", "ComponentCount": 3}], [12])
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=so))
    t = dev.create_buffer(size=48, bind="stream_output")
    ctx.so_set_targets([gpuia.StreamOutputBufferView(t, 48)], [0])
    ctx.draw_instanced(3)


OPERATIONS = {
    "draw and flush": lambda dev, ctx, vb, rt: (ctx.draw_instanced(3), ctx.flush()),
    "indexed draw": lambda dev, ctx, vb, rt: ctx.draw_indexed_instanced(3),
    "create_buffer": lambda dev, ctx, vb, rt: dev.create_buffer(np.zeros(16, np.uint8)),
    "Buffer.read": lambda dev, ctx, vb, rt: vb.read(),
    "Buffer.write": lambda dev, ctx, vb, rt: dev.create_buffer(size=16).write(bytes(16)),
    "capture": lambda dev, ctx, vb, rt: (ctx.begin_capture(), ctx.draw_instanced(3),
                                         ctx.end_capture()),
    "render target": lambda dev, ctx, vb, rt: dev.create_render_target(4, 4),
    "clear": lambda dev, ctx, vb, rt: ctx.clear_render_target_view(rt, (0, 0, 0, 1)),
    "Texture.read": lambda dev, ctx, vb, rt: rt.read(),
    "stream output targets": _so_draw,
    "new Context": lambda dev, ctx, vb, rt: Context(dev),
}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_operations_on_a_lost_device_raise_device_lost(name):
    dev, ctx, vb, rt = _lost_context()
    # Some operations only record (a draw is encoded, a buffer write queued) and fail at the
    # first call that reaches the device: a flush follows each.
    with pytest.raises(DeviceLostError, match="device was lost"):
        OPERATIONS[name](dev, ctx, vb, rt)
        ctx.flush()
    assert issubclass(DeviceLostError, GpuiaError)
    # A new device draws and captures correctly.
    fresh = Device()
    c2 = Context(fresh)
    c2.set_pipeline_state(PipelineState(LAYOUT))
    c2.ia_set_primitive_topology("POINTLIST")
    c2.ia_set_vertex_buffers(0, [fresh.create_buffer(np.arange(9, dtype=np.float32))], [12])
    c2.begin_capture()
    c2.draw_instanced(3)
    cap = c2.end_capture()
    assert cap.unexpected == 0 and cap.words is not None


def test_buffers_over_the_adapters_limits_are_refused_up_front(gpu_device):
    with pytest.raises(gpuia.errors.UnsupportedError, match="max-buffer-size"):
        gpu_device.create_buffer(size=gpu_device.caps.max_buffer_size + 1)
    with pytest.raises(gpuia.errors.UnsupportedError, match="max-uniform-buffer-binding-size"):
        gpu_device.create_buffer(size=gpu_device.caps.max_uniform_buffer_binding_size + 16,
                                 bind="constant_buffer")

