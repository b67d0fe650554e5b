"""A typed ``Buffer<T>`` view through the Context API (docs/resources.md):
``set_graphics_root_shader_resource_view(..., format=...)``, FirstElement and NumElements in
elements of the format, the format chosen at the bind (the programs are built for the bound
format, found again when it returns), and each refusal naming the register and rule.

The shader streams out ``T[id]`` of a ``Buffer<float4>`` at t2, ``S[id]`` of a
``StructuredBuffer<uint>`` at t3 and T's count. Expected values from the rules: UNORM code c of
n bits is the float32 nearest c / (2^n - 1) (rules 2.2), missing components 0, 0, 1 (2.11); past
the view 0 in the format's components and those defaults in the others (Microsoft's "ld (sm4 -
asm)").
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia import InputLayout, SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.errors import InvalidDescError
from gpuia.gpu import Context, PipelineState
from gpuia.hlsl import compile_shader

HLSL = r"""
Buffer<float4> T : register(t2);
StructuredBuffer<uint> S : register(t3);
struct O { float4 pos : SV_Position; float4 t : TEXCOORD0; uint2 sn : TEXCOORD1; };
O main(uint id : SV_VertexID) {
    O o; uint n; T.GetDimensions(n);
    o.pos = float4(0, 0, 0, 1); o.t = T[id]; o.sn = uint2(S[id], n); return o;
}
"""
BYTES = np.array([0, 255, 51, 102, 255, 0, 17, 34], np.uint8)


def _context(dev):
    ctx = Context(dev)
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="TEXCOORD", component_count=4),
                             SODeclarationEntry(semantic_name="TEXCOORD", semantic_index=1,
                                                component_count=2)))
    ctx.set_pipeline_state(PipelineState(InputLayout([]), compile_shader(HLSL),
                                         stream_output=desc))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.set_graphics_root_shader_resource_view(
        3, dev.create_buffer(np.array([7, 8, 9, 10], np.uint32), bind=("shader_resource",)))
    return ctx


def _draw(dev, ctx, count: int) -> np.ndarray:
    target = dev.create_buffer(size=24 * count, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, 24 * count, 0)])
    ctx.draw_instanced(count)
    ctx.flush()
    return np.frombuffer(target.read(), np.uint32).reshape(count, 6)


def _f32(rows) -> np.ndarray:
    return np.array(rows, np.float32).view(np.uint32)


def _want(t_rows, count) -> np.ndarray:
    out = np.zeros((4, 6), np.uint32)
    out[:, :4] = _f32(t_rows)
    out[:, 4] = [7, 8, 9, 10]
    out[:, 5] = count
    return out


def test_view_in_elements_of_its_format(gpu_device):
    """R8G8_UNORM from byte 2 (FirstElement 1: a typed view's offset is any whole element, not
    a multiple of 4), two elements: (51, 102) and (255, 0), then past the view (R and G 0, B 0
    and A 1 by default)."""
    ctx = _context(gpu_device)
    buf = gpu_device.create_buffer(BYTES, bind=("shader_resource",))
    ctx.set_graphics_root_shader_resource_view(2, buf, 2, 2, format="R8G8_UNORM")
    want = _want([[np.float32(51 / 255), np.float32(102 / 255), 0, 1], [1, 0, 0, 1],
                  [0, 0, 0, 1], [0, 0, 0, 1]], 2)
    np.testing.assert_array_equal(_draw(gpu_device, ctx, 4), want)


def test_the_format_is_chosen_at_the_bind(gpu_device):
    """The same pipeline reads the same bytes as R16_UNORM (0xFF00 = 65280, 0x6633 = 26163,
    0x00FF = 255, 0x2211 = 8721; the whole buffer: 4 elements) and as R8G8B8A8_UNORM (2)."""
    ctx = _context(gpu_device)
    buf = gpu_device.create_buffer(BYTES, bind=("shader_resource",))
    ctx.set_graphics_root_shader_resource_view(2, buf, format="DXGI_FORMAT_R16_UNORM")
    want = _want([[np.float32(c / 65535), 0, 0, 1] for c in (65280, 26163, 255, 8721)], 4)
    np.testing.assert_array_equal(_draw(gpu_device, ctx, 4), want)
    ctx.set_graphics_root_shader_resource_view(2, buf, format=28)  # R8G8B8A8_UNORM's value
    want = _want([[0, 1, np.float32(51 / 255), np.float32(102 / 255)],
                  [1, 0, np.float32(17 / 255), np.float32(34 / 255)], [0] * 4, [0] * 4], 2)
    np.testing.assert_array_equal(_draw(gpu_device, ctx, 4), want)


def test_a_format_change_between_draws_of_one_submission(gpu_device):
    """Three draws recorded before one submit, each into a target of its own: the view as
    R16_UNORM (65280, 26163, 255, 8721 over 65535), as R8G8B8A8_UNORM (two elements, then past
    the view: all four components 0) and as R16_UNORM again. The program is built for the
    bound format: the second draw is another pipeline state epoch, the third finds the first's
    again and builds no pipeline."""
    ctx = _context(gpu_device)
    buf = gpu_device.create_buffer(BYTES, bind=("shader_resource",))
    r16 = _want([[np.float32(c / 65535), 0, 0, 1] for c in (65280, 26163, 255, 8721)], 4)
    rgba8 = _want([[0, 1, np.float32(51 / 255), np.float32(102 / 255)],
                   [1, 0, np.float32(17 / 255), np.float32(34 / 255)], [0] * 4, [0] * 4], 2)
    targets, built = [], []
    for fmt in ("R16_UNORM", "R8G8B8A8_UNORM", "R16_UNORM"):
        ctx.set_graphics_root_shader_resource_view(2, buf, format=fmt)
        target = gpu_device.create_buffer(size=96, bind=("stream_output",))
        ctx.so_set_targets([StreamOutputBufferView(target, 96, 0)])
        ctx.draw_instanced(4)
        targets.append(target)
        built.append(ctx.stats()["pipelines"])
    ctx.flush()
    for target, want in zip(targets, (r16, rgba8, r16), strict=True):
        np.testing.assert_array_equal(np.frombuffer(target.read(), np.uint32).reshape(4, 6),
                                      want)
    assert ctx.stats()["state_epochs"] == 2
    assert built[2] == built[1]


@pytest.mark.parametrize("register, args, kwargs, words", [
    (2, (), {"format": "BC1_UNORM"}, "block-compressed"),
    (2, (3,), {"format": "R16_UNORM"}, "a multiple of 2"),
    (2, (), {"format": "NOT_A_FORMAT"}, "not a DXGI format"),
])
def test_refused_when_set(gpu_device, register, args, kwargs, words):
    ctx = _context(gpu_device)
    buf = gpu_device.create_buffer(BYTES, bind=("shader_resource",))
    with pytest.raises(InvalidDescError) as e:
        ctx.set_graphics_root_shader_resource_view(register, buf, *args, **kwargs)
    assert words in str(e.value), str(e.value)


@pytest.mark.parametrize("register, args, kwargs, words", [
    (2, (), {}, "its view needs a format"),
    (2, (), {"format": "R8_UINT"}, "its values are uint and the shader reads float"),
    (2, (0, 5), {"format": "R16_UNORM"}, "reaches past the buffer"),
    (3, (), {"format": "R32_UINT"}, "its view has no format"),
])
def test_refused_at_the_draw(gpu_device, register, args, kwargs, words):
    ctx = _context(gpu_device)
    buf = gpu_device.create_buffer(BYTES, bind=("shader_resource",))
    if register != 2:
        ctx.set_graphics_root_shader_resource_view(2, buf, format="R8_UNORM")
    ctx.set_graphics_root_shader_resource_view(register, buf, *args, **kwargs)
    target = gpu_device.create_buffer(size=64, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, 64, 0)])
    with pytest.raises(InvalidDescError) as e:
        ctx.draw_instanced(1)
    assert words in str(e.value) and f"root shader resource view {register}" in str(e.value), \
        str(e.value)
