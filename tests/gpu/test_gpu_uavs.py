"""A vertex shader's UAVs (docs/resources.md "Unordered access views", docs/rules.md 18):
``RWStructuredBuffer<uint4>`` at u1 and ``RWByteAddressBuffer`` at u2 written by vertex, read
back after the draw, a write past the view dropped and a read past it 0, the CPU reference's
bytes bit for bit the GPU's.

Hand derivation. Out's buffer holds 8 uint4 elements of sentinel words ``0xDEAD0000 + k``
(word k); its view starts at element 1 and holds 4. Vertex i (0..4) writes view element i,
``(3i + 1, i ^ 5, 1000 - i, Out[i + 4].x)``: ``Out[i + 4]`` is past the view (index >= 4) and
reads 0 although the buffer holds a sentinel there; vertex 4's write is past the view and
dropped, so buffer elements 0 and 5..7 keep their sentinels. Raw's buffer holds 40 sentinel
words; its view starts at byte 16 (word 4) and holds 24 words. Vertex i stores ``7i + 2`` at
view byte 4i (buffer word 4 + i) and ``(i, i + 10, i + 20, i + 30)`` at view byte 64 + 16i:
inside the view for i = 0, 1 (buffer words 20..27), past it for i = 2..4 (view words 24..35),
dropped, so buffer words 28..39 keep their sentinels. Each vertex streams out
``(Out[i + 4].x, Out[i].x, Raw.Load(4i), Raw's GetDimensions)``: (0, 3i + 1, 7i + 2, 96) for
i below 4, (0, 0, 30, 96) for vertex 4 (its Out write was dropped, its raw word inside).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gpuia import InputLayout, SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.gpu import Context, PipelineState
from gpuia.gpu.context.srv_state import check_uav_support
from gpuia.hlsl import compile_shader
from gpuia.hlsl.cpu import cpu_shader

HLSL = r"""
RWStructuredBuffer<uint4> Out : register(u1);
RWByteAddressBuffer Raw : register(u2);
struct O { float4 pos : SV_Position; uint4 r : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    Out[id] = uint4(id * 3 + 1, id ^ 5, 1000 - id, Out[id + 4].x);
    Raw.Store(id * 4, id * 7 + 2);
    Raw.Store4(64 + id * 16, uint4(id, id + 10, id + 20, id + 30));
    uint bytes; Raw.GetDimensions(bytes);
    O o; o.pos = float4(0, 0, 0, 1);
    o.r = uint4(Out[id + 4].x, Out[id].x, Raw.Load(id * 4), bytes);
    return o;
}
"""
OUT_WORDS = (0xDEAD0000 + np.arange(32)).astype(np.uint32)
RAW_WORDS = (0xBEEF0000 + np.arange(40)).astype(np.uint32)
VERTICES = 5


def _expected_out() -> np.ndarray:
    words = OUT_WORDS.copy().reshape(8, 4)
    for i in range(4):
        words[1 + i] = (3 * i + 1, i ^ 5, 1000 - i, 0)
    return words.reshape(-1)


def _expected_raw() -> np.ndarray:
    words = RAW_WORDS.copy()
    for i in range(VERTICES):
        words[4 + i] = 7 * i + 2
    for i in range(2):
        words[20 + 4 * i:24 + 4 * i] = (i, i + 10, i + 20, i + 30)
    return words


def _expected_so() -> np.ndarray:
    return np.array([(0, 3 * i + 1, 7 * i + 2, 96) for i in range(4)] + [(0, 0, 30, 96)],
                    np.uint32)


def _draw(dev, shader, root_signature=None):
    ctx = Context(dev)
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="TEXCOORD", component_count=4),))
    ctx.set_pipeline_state(PipelineState(InputLayout([]), shader, stream_output=desc,
                                         root_signature=root_signature))
    ctx.ia_set_primitive_topology("POINTLIST")
    out = dev.create_buffer(OUT_WORDS, bind=("unordered_access",))
    raw = dev.create_buffer(RAW_WORDS, bind=("unordered_access",))
    ctx.set_graphics_root_unordered_access_view(1, out, 16, 4)
    ctx.set_graphics_root_unordered_access_view(2, raw, 16, 24)
    target = dev.create_buffer(size=16 * VERTICES, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, 16 * VERTICES, 0)])
    ctx.draw_instanced(VERTICES)
    ctx.flush()
    return (np.frombuffer(out.read(), np.uint32), np.frombuffer(raw.read(), np.uint32),
            np.frombuffer(target.read(), np.uint32).reshape(VERTICES, 4))


def test_writes_reads_and_bounds_on_the_gpu(gpu_device):
    out, raw, so = _draw(gpu_device, compile_shader(HLSL))
    np.testing.assert_array_equal(out, _expected_out())
    np.testing.assert_array_equal(raw, _expected_raw())
    np.testing.assert_array_equal(so, _expected_so())


@pytest.mark.parametrize("root_signature", [
    "RootFlags(ALLOW_STREAM_OUTPUT), UAV(u1), UAV(u2)",
    "RootFlags(ALLOW_STREAM_OUTPUT), DescriptorTable(UAV(u0, numDescriptors=4), "
    "visibility=SHADER_VISIBILITY_VERTEX)",
])
def test_through_a_root_signature(gpu_device, root_signature):
    """Root UAVs or a UAV range hold u1 and u2 where the implied root signature puts them: the
    same hand values."""
    out, raw, so = _draw(gpu_device, compile_shader(HLSL), root_signature)
    np.testing.assert_array_equal(out, _expected_out())
    np.testing.assert_array_equal(raw, _expected_raw())
    np.testing.assert_array_equal(so, _expected_so())


def test_root_signature_not_holding_a_uav_is_refused(gpu_device):
    # rules 16.9: u2 is in no UAV range (an SRV range of t2 is another register)
    with pytest.raises(InvalidDescError) as e:
        _draw(gpu_device, compile_shader(HLSL), "UAV(u1), DescriptorTable(SRV(t2))")
    assert "Raw (register u2, space0)" in str(e.value) and "rules 16.9" in str(e.value)


def test_cpu_reference_matches_the_hand_values():
    shader = compile_shader(HLSL)
    cpu = cpu_shader(shader)
    by_name = {r.name: r for r in shader.shader_resources}
    out_view = bytearray(OUT_WORDS[4:20].tobytes())
    raw_view = bytearray(RAW_WORDS[4:28].tobytes())
    ids = np.arange(VERTICES, dtype=np.uint32)
    result = cpu.run({}, ids, np.zeros(VERTICES, np.uint32),
                     shader_resources={by_name["Out"].binding: out_view,
                                       by_name["Raw"].binding: raw_view})
    np.testing.assert_array_equal(np.frombuffer(out_view, np.uint32), _expected_out()[4:20])
    np.testing.assert_array_equal(np.frombuffer(raw_view, np.uint32), _expected_raw()[4:28])
    np.testing.assert_array_equal(result["TEXCOORD0"], _expected_so())


def test_refused_without_vertex_writable_storage(gpu_device):
    """WebGPU lets a vertex shader write storage only with wgpu's vertex-writable-storage."""
    resources = compile_shader(HLSL).shader_resources
    caps = dataclasses.replace(gpu_device.caps, vertex_writable_storage=False)
    with pytest.raises(UnsupportedError) as e:
        check_uav_support(resources, caps, "this adapter")
    assert "vertex-writable-storage" in str(e.value) and "Out (u1)" in str(e.value)


def test_uavs_count_as_storage_buffers(gpu_device):
    """Each UAV is a storage buffer of the vertex stage: two against a limit of 1 are refused,
    naming them."""
    from gpuia.gpu.context.srv_state import check_resource_limits

    resources = compile_shader(HLSL).shader_resources
    caps = dataclasses.replace(gpu_device.caps, max_storage_buffers_per_shader_stage=1)
    with pytest.raises(UnsupportedError) as e:
        check_resource_limits(resources, 1, caps, "this adapter")
    assert "binds 2 shader resource and unordered access views (u1, u2)" in str(e.value) and \
        "max-storage-buffers-per-shader-stage 1" in str(e.value), str(e.value)
    caps = dataclasses.replace(caps, max_storage_buffers_per_shader_stage=2)
    check_resource_limits(resources, 1, caps, "this adapter")


def test_atomics_are_refused():
    src = HLSL.replace("Raw.Store(id * 4, id * 7 + 2);",
                       "uint old; Raw.InterlockedAdd(0, 1, old);")
    with pytest.raises(InvalidDescError) as e:
        compile_shader(src)
    assert "resource Raw" in str(e.value) and "atomic" in str(e.value), str(e.value)


def test_refused_bind_flag_and_unset_view(gpu_device):
    ctx = Context(gpu_device)
    srv = gpu_device.create_buffer(OUT_WORDS, bind=("shader_resource",))
    with pytest.raises(InvalidDescError) as e:
        ctx.set_graphics_root_unordered_access_view(1, srv)
    assert "SetGraphicsRootUnorderedAccessView" in str(e.value) and \
        "unordered_access bind flag" in str(e.value)
    with pytest.raises(InvalidDescError) as e:
        ctx.set_graphics_root_unordered_access_view(64, srv)
    assert "0..63" in str(e.value)
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="TEXCOORD", component_count=4),))
    ctx.set_pipeline_state(PipelineState(InputLayout([]), compile_shader(HLSL),
                                         stream_output=desc))
    ctx.ia_set_primitive_topology("POINTLIST")
    # a view at t1 is no view at u1: the registers are separate
    ctx.set_graphics_root_shader_resource_view(1, srv)
    target = gpu_device.create_buffer(size=16, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, 16, 0)])
    with pytest.raises(InvalidDescError) as e:
        ctx.draw_instanced(1)
    assert "root unordered access view 1" in str(e.value) and \
        "set_graphics_root_unordered_access_view(1, ...) was not called" in str(e.value)
