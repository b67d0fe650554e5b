"""The geometry shader through the Context API: a PipelineState with ``geometry_shader``, DrawAuto
from buffers a geometry shader wrote (the particle systems' ping-pong), per-stream
``so_statistics``, and what the draw and the pipeline state refuse. Expected values derived by
hand in the comments (docs/rules.md sections 9, 10 and 13). Fails, never skips, without an
adapter."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia import SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.errors import InvalidDescError
from gpuia.gpu import Context, PipelineState
from gpuia.gpu.context import geometry
from gpuia.hlsl import compile_geometry_shader

LAYOUT = [{"SemanticName": "TAG", "Format": "R32G32B32A32_UINT"}]
# A particle ages by one each pass and dies at 14: (x, y) -> (x + 1, y, SV_PrimitiveID, 0).
AGE = """
struct V { uint4 tag : TAG; };
[maxvertexcount(1)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout PointStream<V> s) {
    if (v[0].tag.x < 14) { V o; o.tag = uint4(v[0].tag.x + 1, v[0].tag.y, pid, 0); s.Append(o); }
}
"""
SO = StreamOutputDesc((SODeclarationEntry(0, "TAG", 0, 0, 4, 0),), (16,), "NO_RASTERIZED_STREAM")


def u32(*rows) -> bytes:
    return np.array(rows, np.uint32).tobytes()


def records(buf, n: int) -> list[list[int]]:
    return np.frombuffer(buf.read(), np.uint32)[:4 * n].reshape(n, 4).tolist()


def test_draw_auto_ping_pong_between_two_buffers(gpu_device):
    # Frame 0 draws the particles (10,0) (12,1) (13,2) into B: (11,0,0) (13,1,1) (14,2,2),
    # filled 48. Frame 1: DrawAuto from B, 48 / 16 = 3 points (rules 10.5) into A: 11 -> 12,
    # 13 -> 14, 14 dies: (12,0,0) (14,1,1), filled 32. Frame 2: DrawAuto from A, 2 points, into
    # B from offset 0: 12 -> (13,0,0), 14 dies; B's other records keep frame 0's. Stream 0
    # wrote 3 + 2 + 1 primitives, all of them needed (rules 10.1, 10.2).
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=SO,
                                         geometry_shader=compile_geometry_shader(AGE)))
    ctx.ia_set_primitive_topology("POINTLIST")
    src = gpu_device.create_buffer(u32([10, 0, 0, 0], [12, 1, 0, 0], [13, 2, 0, 0]))
    a, b = (gpu_device.create_buffer(size=64, bind=("vertex_buffer", "stream_output"))
            for _ in range(2))
    ctx.ia_set_vertex_buffers(0, [src], [16], [0])
    ctx.so_set_targets([StreamOutputBufferView(b)], [0])
    ctx.draw_instanced(3)
    for source, target in ((b, a), (a, b)):
        ctx.so_set_targets([])  # a buffer is not bound for input and output at once
        ctx.ia_set_vertex_buffers(0, [source], [16], [0])
        ctx.so_set_targets([StreamOutputBufferView(target)], [0])
        ctx.draw_auto()
    ctx.so_set_targets([])
    assert records(a, 2) == [[12, 0, 0, 0], [14, 1, 1, 0]]
    assert records(b, 3) == [[13, 0, 0, 0], [13, 1, 1, 0], [14, 2, 2, 0]]
    assert ctx.so_statistics() == {"NumPrimitivesWritten": 6, "PrimitivesStorageNeeded": 6}
    assert ctx.so_statistics(1) == {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 0}


TWO = """
struct V { uint4 tag : TAG; };
struct P { uint id : ID; };
[maxvertexcount(3)]
void main(point V v[1], inout PointStream<P> s0, inout PointStream<P> s1) {
    P p; p.id = v[0].tag.x; s0.Append(p); s1.Append(p); s1.Append(p);
}
"""


def test_streams_and_a_vertex_shader_draw_share_stream_0(gpu_device):
    # A vertex shader draw of 3 points and a geometry shader draw of 2 points into the same
    # stream-0 slot: stream 0 counts 3 + 2, stream 1 the GS's 2 * 2 (rules 10.1, 13.8); the
    # GS's stream-0 points follow the vertex shader's in slot 0 (rules 9.6).
    ctx = Context(gpu_device)
    src = gpu_device.create_buffer(u32(*([k, 0, 0, 0] for k in range(1, 4))))
    s0, s1 = (gpu_device.create_buffer(size=64, bind=("stream_output",)) for _ in range(2))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [src], [16], [0])
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=StreamOutputDesc(
        (SODeclarationEntry(0, "TAG", 0, 0, 1, 0),), (4,))))
    ctx.so_set_targets([StreamOutputBufferView(s0), StreamOutputBufferView(s1)], [0, 0])
    ctx.draw_instanced(3)
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=StreamOutputDesc(
        (SODeclarationEntry(0, "ID", 0, 0, 1, 0), SODeclarationEntry(1, "ID", 0, 0, 1, 1)),
        (4, 4), "NO_RASTERIZED_STREAM"), geometry_shader=compile_geometry_shader(TWO)))
    ctx.draw_instanced(2)
    assert ctx.so_statistics(0) == {"NumPrimitivesWritten": 5, "PrimitivesStorageNeeded": 5}
    assert ctx.so_statistics(1) == {"NumPrimitivesWritten": 4, "PrimitivesStorageNeeded": 4}
    assert ctx.so_filled_size(0) == 20 and ctx.so_filled_size(1) == 16
    assert np.frombuffer(s0.read(), np.uint32)[:5].tolist() == [1, 2, 3, 1, 2]
    assert np.frombuffer(s1.read(), np.uint32)[:4].tolist() == [1, 1, 2, 2]


def test_refusals(gpu_device):
    gs = compile_geometry_shader(AGE)
    ctx = Context(gpu_device)
    with pytest.raises(InvalidDescError, match="GS"):
        PipelineState(LAYOUT, geometry_shader="not a shader")
    # rules 13.9: the geometry shader reads TAG, which this vertex shader does not output
    other = [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}]
    with pytest.raises(InvalidDescError, match="13.9"):
        ctx.set_pipeline_state(PipelineState(other, stream_output=SO, geometry_shader=gs))
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=SO, geometry_shader=gs))
    src = gpu_device.create_buffer(u32([10, 0, 0, 0]))
    ctx.ia_set_vertex_buffers(0, [src], [16], [0])
    ctx.ia_set_primitive_topology("TRIANGLELIST")  # rules 13.2: a point GS takes POINTLIST
    with pytest.raises(InvalidDescError, match="13.2"):
        ctx.draw_instanced(3)
    with pytest.raises(InvalidDescError, match="stream"):
        ctx.so_statistics(4)
    # A rasterized stream is drawn with its record's SV_Position: this record has none.
    raster = StreamOutputDesc(SO.so_declaration, SO.buffer_strides, 0)
    with pytest.raises(InvalidDescError, match="SV_Position"):
        ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=raster, geometry_shader=gs,
                                             rtv_formats=("R8G8B8A8_UNORM",)))

PAIR = """
struct V { uint4 tag : TAG; };
struct P { uint id : ID; };
[maxvertexcount(2)]
void main(point V v[1], inout PointStream<P> s) {
    P p; p.id = v[0].tag.x; s.Append(p); p.id = v[0].tag.x + 100; s.Append(p);
}
"""


@pytest.mark.parametrize("chunk", [None, 7])
def test_a_target_larger_than_one_storage_binding(gpu_device, monkeypatch, chunk):
    # The target starts past the first 128 MiB of its buffer (the largest storage binding of
    # the software adapters), so the expansion binds only the window a chunk can write, from
    # its filled size on. 100 points give 200 records of 4 bytes: 800 bytes; a second draw of
    # 100 points finds 200 bytes of room in SizeInBytes 1000: 50 points fit, the rest
    # overflow (rules 9.7): 250 written, 400 needed, BufferFilledSize 1000. In chunks of 7
    # invocations, each chunk's window starts where the one before left the filled size.
    if chunk:
        monkeypatch.setattr(geometry, "CHUNK", chunk)
    limit = gpu_device.caps.max_storage_buffer_binding_size
    location = limit + 64
    big = gpu_device.create_buffer(size=location + 1024, bind=("stream_output",))
    ctx = Context(gpu_device)
    so = StreamOutputDesc((SODeclarationEntry(0, "ID", 0, 0, 1, 0),), (4,),
                          "NO_RASTERIZED_STREAM")
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=so,
                                         geometry_shader=compile_geometry_shader(PAIR)))
    ctx.ia_set_primitive_topology("POINTLIST")
    src = gpu_device.create_buffer(u32(*([k, 0, 0, 0] for k in range(100))))
    ctx.ia_set_vertex_buffers(0, [src], [16], [0])
    ctx.so_set_targets([StreamOutputBufferView(big, 1000, location)], [0])
    ctx.draw_instanced(100)
    ctx.draw_instanced(100)
    assert ctx.so_filled_size(0) == 1000
    assert ctx.so_statistics() == {"NumPrimitivesWritten": 250, "PrimitivesStorageNeeded": 400}
    got = np.frombuffer(big.read()[location:], np.uint32)
    first = [x for k in range(100) for x in (k, k + 100)]
    assert got[:250].tolist() == first + first[:50]
    assert not got[250:].any()  # past the writes, the zeros the buffer was made with
