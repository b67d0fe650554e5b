"""Buffer shader resource views a geometry shader reads, through the Context API and the CPU
reference: a StructuredBuffer<float4>, a ByteAddressBuffer read past its end (0, rules 18) and a
typed Buffer<uint> of another register space, streamed out. Expected values derived by hand in
the comments. Fails, never skips, without an adapter."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia import SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.d3d.srv_bindings import srv_binding
from gpuia.errors import InvalidDescError
from gpuia.gpu import Context, PipelineState
from gpuia.hlsl import compile_geometry_shader
from gpuia.hlsl.geometry_cpu import cpu_geometry_shader

LAYOUT = [{"SemanticName": "P", "Format": "R32G32B32A32_FLOAT"}]
# Each point becomes a triangle: corner k of primitive pid is the point plus offsets[3 pid + k],
# with the raw buffer's word 3 pid + k and ids[pid].
GS = """
struct V { float4 pos : P; };
struct O { float4 pos : POS; uint2 more : MORE; };
StructuredBuffer<float4> offsets : register(t0);
ByteAddressBuffer raw : register(t1);
Buffer<uint> ids : register(t3, space1);
[maxvertexcount(3)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout TriangleStream<O> s) {
    for (uint k = 0; k < 3; ++k) {
        O o;
        o.pos = v[0].pos + offsets[pid * 3 + k];
        o.more = uint2(raw.Load(4 * (pid * 3 + k)), ids[pid]);
        s.Append(o);
    }
}
"""
SO = StreamOutputDesc((SODeclarationEntry(0, "POS", 0, 0, 4, 0),
                       SODeclarationEntry(0, "MORE", 0, 0, 2, 0)), (24,), "NO_RASTERIZED_STREAM")
POINTS = np.array([[1, 2, 0, 1], [10, 20, 0, 1]], np.float32)
OFFSETS = np.array([[j, -j, 0.5 * j, 0] for j in range(6)], np.float32)  # offsets[j]
RAW = np.array([100, 101, 102, 103], np.uint32)  # 16 bytes: words 4 and 5 read as 0
IDS = np.array([7, 9], np.uint16)  # R16_UINT: ids[0] = 7, ids[1] = 9
# Point 0 (1, 2, 0, 1) + offsets[0..2] = (1,2,0,1) (2,1,.5,1) (3,0,1,1), raw words 100..102;
# point 1 (10, 20, 0, 1) + offsets[3..5] = (13,17,1.5,1) (14,16,2,1) (15,15,2.5,1), raw word 3
# (103), then words 4 and 5: past the view's 4 words, 0 (D3D12's out-of-bounds read).
EXPECTED = [([1, 2, 0, 1], [100, 7]), ([2, 1, 0.5, 1], [101, 7]), ([3, 0, 1, 1], [102, 7]),
            ([13, 17, 1.5, 1], [103, 9]), ([14, 16, 2, 1], [0, 9]), ([15, 15, 2.5, 1], [0, 9])]


def _rows(words: np.ndarray) -> list:
    words = words.reshape(-1, 6)
    return [(w[:4].view(np.float32).tolist(), w[4:].tolist()) for w in words]


def _draw(dev, shader, bind_typed=True, root_signature=None):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=SO, geometry_shader=shader,
                                         root_signature=root_signature))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(POINTS.tobytes())], [16], [0])
    srv = ("shader_resource",)
    ctx.set_graphics_root_shader_resource_view(0, dev.create_buffer(OFFSETS.tobytes(), bind=srv))
    ctx.set_graphics_root_shader_resource_view(1, dev.create_buffer(RAW.tobytes(), bind=srv))
    if bind_typed:
        ctx.set_graphics_root_shader_resource_view(3, dev.create_buffer(IDS.tobytes(), bind=srv),
                                                   format="R16_UINT", register_space=1)
    out = dev.create_buffer(size=6 * 24, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(out)], [0])
    ctx.draw_instanced(2)
    ctx.so_set_targets([])
    return ctx, out


def test_the_geometry_shader_reads_its_srvs_on_the_gpu(gpu_device):
    shader = compile_geometry_shader(GS)
    assert [r.register_name for r in shader.shader_resources] == ["t0", "t1", "t3 space1"]
    ctx, out = _draw(gpu_device, shader)
    assert _rows(np.frombuffer(out.read(), np.uint32).copy()) == EXPECTED
    assert ctx.so_statistics() == {"NumPrimitivesWritten": 2, "PrimitivesStorageNeeded": 2}


def test_a_format_change_between_draws_reaches_the_geometry_shader(gpu_device):
    """ids' bytes (7, 0, 9, 0) as R16_UINT (ids 7, 9), then as R8_UINT (7, 0: element 1 is
    byte 1), then as R16_UINT again, three draws of one context, each into its own target."""
    ctx, first = _draw(gpu_device, compile_geometry_shader(GS))
    ids = gpu_device.create_buffer(IDS.tobytes(), bind=("shader_resource",))
    outs = []
    for fmt in ("R8_UINT", "R16_UINT"):
        ctx.set_graphics_root_shader_resource_view(3, ids, format=fmt, register_space=1)
        out = gpu_device.create_buffer(size=6 * 24, bind=("stream_output",))
        ctx.so_set_targets([StreamOutputBufferView(out)], [0])
        ctx.draw_instanced(2)
        outs.append(out)
    ctx.so_set_targets([])
    r8 = [(pos, [raw, 7 if k < 3 else 0]) for k, (pos, (raw, _)) in enumerate(EXPECTED)]
    for out, want in zip((first, *outs), (EXPECTED, r8, EXPECTED), strict=True):
        assert _rows(np.frombuffer(out.read(), np.uint32).copy()) == want


def test_the_cpu_reference_reads_the_same_srvs():
    shader = compile_geometry_shader(GS)
    prims = np.array([[0, 0], [1, 1]], np.uint32)  # vertex index, SV_PrimitiveID
    resources = {srv_binding(0, 0): OFFSETS.tobytes(), srv_binding(1, 0): RAW.tobytes(),
                 srv_binding(3, 1): IDS.astype(np.uint32).tobytes()}  # R16_UINT's values
    regions = cpu_geometry_shader(shader).run(POINTS.view(np.uint32), prims,
                                              shader_resources=resources)
    # region: its count, then per Append a header word and the 6-word record
    assert regions[:, 0].tolist() == [3, 3]
    records = np.stack([regions[:, 2 + 7 * k:8 + 7 * k] for k in range(3)], 1)
    assert _rows(records) == EXPECTED


def test_an_srv_the_geometry_shader_reads_must_be_bound(gpu_device):
    with pytest.raises(InvalidDescError, match=r"geometry shader reads ids \(register t3 space1\)"):
        _draw(gpu_device, compile_geometry_shader(GS), bind_typed=False)


def test_uavs_in_a_geometry_shader_are_refused():
    source = GS.replace("Buffer<uint> ids : register(t3, space1);",
                        "Buffer<uint> ids : register(t3, space1); RWByteAddressBuffer u;").replace(
        "ids[pid]", "ids[pid] + u.Load(0)")
    with pytest.raises(InvalidDescError, match=r"resource u.*UAVs in a vertex shader only"):
        compile_geometry_shader(source)


GS_VISIBLE = ("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | ALLOW_STREAM_OUTPUT), "
              "SRV(t0, visibility=SHADER_VISIBILITY_GEOMETRY), SRV(t1), "
              "DescriptorTable(SRV(t3, space=1), visibility=SHADER_VISIBILITY_GEOMETRY)")


def test_a_root_signature_visible_to_the_geometry_stage_binds_them(gpu_device):
    # t0 (root parameter 0) and t3 space1 visible to GEOMETRY, t1 to ALL: every register
    # covered (rules 16.9); the draw gives the same records as through the implied one
    _, out = _draw(gpu_device, compile_geometry_shader(GS), root_signature=GS_VISIBLE)
    assert _rows(np.frombuffer(out.read(), np.uint32).copy()) == EXPECTED


def test_a_range_visible_to_the_vertex_stage_only_is_refused():
    rs = GS_VISIBLE.replace("SRV(t0, visibility=SHADER_VISIBILITY_GEOMETRY)",
                            "SRV(t0, visibility=SHADER_VISIBILITY_VERTEX)")
    with pytest.raises(InvalidDescError, match=r"offsets \(register t0, space0\).*geometry "
                                               r"stage.*root parameter 0 \(root descriptor, "
                                               r"t0, space0, visibility vertex\) \(rules 16\.9\)"):
        PipelineState(LAYOUT, stream_output=SO, geometry_shader=compile_geometry_shader(GS),
                      root_signature=rs)
