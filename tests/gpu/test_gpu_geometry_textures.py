"""A Texture2D and a sampler a geometry shader reads, through the Context API and the CPU
reference: Load (one texel past the width reads 0), point SampleLevel and GetDimensions.
Expected values derived by hand in the comments. Fails, never skips, without an adapter."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia import SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.d3d.textures import sampler_desc
from gpuia.errors import InvalidDescError
from gpuia.gpu import Context, PipelineState
from gpuia.gpu.textures import create_texture
from gpuia.hlsl import compile_geometry_shader
from gpuia.hlsl.cpu_textures import texture_blob
from gpuia.hlsl.geometry_cpu import cpu_geometry_shader
from gpuia.reference.textures import decode_texels

LAYOUT = [{"SemanticName": "P", "Format": "R32G32B32A32_FLOAT"}]
GS = """
struct V { float4 pos : P; };
struct O { float4 pos : POS; float4 c : COL; float4 d : OOB; uint2 dims : DIM; };
Texture2D<float4> T : register(t2);
SamplerState S : register(s1);
[maxvertexcount(1)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout PointStream<O> s) {
    O o;
    o.pos = v[0].pos;
    o.c = T.Load(int3(pid, 0, 0)) + T.SampleLevel(S, float2(0.25, 0.75), 0);
    o.d = T.Load(int3(pid + 1, 0, 0));
    uint w, h;
    T.GetDimensions(w, h);
    o.dims = uint2(w, h);
    s.Append(o);
}
"""
SO = StreamOutputDesc((SODeclarationEntry(0, "POS", 0, 0, 4, 0),
                       SODeclarationEntry(0, "COL", 0, 0, 4, 0),
                       SODeclarationEntry(0, "OOB", 0, 0, 4, 0),
                       SODeclarationEntry(0, "DIM", 0, 0, 2, 0)), (56,),
                      "NO_RASTERIZED_STREAM")
POINTS = np.array([[1, 2, 0, 1], [10, 20, 0, 1]], np.float32)
# 2x2 R16G16_FLOAT (half values exact, filterable on every adapter), row y = 0 first: (0,0)
# (1, 2), (1,0) (3, 4), (0,1) (5, 6), (1,1) (7, 8); read as float4 (r, g, 0, 1) (rules 17.1)
TEXELS = np.arange(1, 9, dtype=np.float16)
POINT = {"filter": "MIN_MAG_MIP_POINT"}
# SampleLevel at (0.25, 0.75) of 2x2, point (rules 17.3): texel (floor(0.5), floor(1.5)) =
# (0, 1) = (5, 6, 0, 1). Point 0: Load (0,0) + that = (6, 8, 0, 2), Load (1,0) = (3, 4, 0, 1);
# point 1: Load (1,0) + that = (8, 10, 0, 2), Load (2,0): past the width, 0 in every
# component (rules 17.1). GetDimensions: 2 x 2 (rules 17.2).
EXPECTED = [[1, 2, 0, 1, 6, 8, 0, 2, 3, 4, 0, 1, 2, 2],
            [10, 20, 0, 1, 8, 10, 0, 2, 0, 0, 0, 0, 2, 2]]


def _rows(words: np.ndarray) -> list:
    words = words.reshape(-1, 14)
    return [w[:12].view(np.float32).tolist() + w[12:].tolist() for w in words]


def _draw(dev, shader, sampler=True):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=SO, geometry_shader=shader))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(POINTS.tobytes())], [16], [0])
    ctx.set_texture_shader_resource_view(2, create_texture(
        dev, "R16G16_FLOAT", 2, 2, 1, TEXELS.tobytes()))
    if sampler:
        ctx.set_sampler(1, POINT)
    out = dev.create_buffer(size=2 * 56, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(out)], [0])
    ctx.draw_instanced(2)
    ctx.so_set_targets([])
    return out


def test_the_geometry_shader_reads_its_texture_on_the_gpu(gpu_device):
    shader = compile_geometry_shader(GS)
    assert [(t.name, t.register) for t in shader.textures] == [("T", 2)]
    assert [(s.name, s.register) for s in shader.samplers] == [("S", 1)]
    out = _draw(gpu_device, shader)
    assert _rows(np.frombuffer(out.read(), np.uint32).copy()) == EXPECTED


def test_the_cpu_reference_reads_the_same_texture():
    shader = compile_geometry_shader(GS)
    texels = decode_texels("R16G16_FLOAT", TEXELS.tobytes(), 2, 2, 1, 1)
    blobs = {shader.textures[0].binding: texture_blob(2, 2, 1, texels),
             shader.samplers[0].binding: sampler_desc(POINT, "sampler").words()}
    regions = cpu_geometry_shader(shader).run(POINTS.view(np.uint32),
                                              np.array([[0, 0], [1, 1]], np.uint32),
                                              shader_resources=blobs)
    assert regions[:, 0].tolist() == [1, 1]  # one Append each, its record after its header
    assert _rows(regions[:, 2:16].copy()) == EXPECTED


def test_a_sampler_the_geometry_shader_reads_must_be_set(gpu_device):
    with pytest.raises(InvalidDescError, match=r"the geometry shader samples with S "
                                               r"\(register s1\)"):
        _draw(gpu_device, compile_geometry_shader(GS), sampler=False)


CMP = """
struct V { float4 pos : P; };
struct O { float4 pos : POS; float v : V; };
Texture2D<float> D : register(t0);
SamplerComparisonState C : register(s0);
[maxvertexcount(1)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout PointStream<O> s) {
    O o;
    o.pos = v[0].pos;
    o.v = D.SampleCmpLevelZero(C, float2(0.25 + 0.5 * pid, 0.5), 0.5);
    s.Append(o);
}
"""
LESS = {"filter": "COMPARISON_MIN_MAG_MIP_POINT", "comparison_func": "LESS"}
DEPTHS = np.array([0.25, 0.75], np.float32)  # a 2x1 R32_FLOAT texture


def test_a_comparison_sampler_in_the_geometry_shader(gpu_device):
    # point p samples texel p (u = 0.25, 0.75 of 2 texels, point filter); LESS holds when
    # the reference 0.5 < texel.r: 0 for 0.25, 1 for 0.75 (rules 17.10); GPU and CPU agree
    shader = compile_geometry_shader(CMP)
    ctx = Context(gpu_device)
    so = StreamOutputDesc((SODeclarationEntry(0, "POS", 0, 0, 4, 0),
                           SODeclarationEntry(0, "V", 0, 0, 1, 0)), (20,),
                          "NO_RASTERIZED_STREAM")
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=so, geometry_shader=shader))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [gpu_device.create_buffer(POINTS.tobytes())], [16], [0])
    ctx.set_texture_shader_resource_view(0, create_texture(
        gpu_device, "R32_FLOAT", 2, 1, 1, DEPTHS.tobytes()))
    ctx.set_sampler(0, LESS)
    out = gpu_device.create_buffer(size=40, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(out)], [0])
    ctx.draw_instanced(2)
    ctx.so_set_targets([])
    assert np.frombuffer(out.read(), np.float32).reshape(2, 5)[:, 4].tolist() == [0, 1]
    texels = decode_texels("R32_FLOAT", DEPTHS.tobytes(), 2, 1, 1, 1)
    blobs = {shader.textures[0].binding: texture_blob(2, 1, 1, texels),
             shader.samplers[0].binding: sampler_desc(LESS, "sampler").words()}
    regions = cpu_geometry_shader(shader).run(POINTS.view(np.uint32),
                                              np.array([[0, 0], [1, 1]], np.uint32),
                                              shader_resources=blobs)
    assert regions[:, 6].view(np.float32).tolist() == [0, 1]  # count, header, 4 POS, V
