"""Queries and predication on a GPU Context (gpuia.gpu.context.query_calls): SO statistics and
overflow predicates over a begin/end range, ResolveQueryData into a buffer in D3D's layout,
SetPredication skipping draws, and PIPELINE_STATISTICS. Every expected value is derived by hand
from docs/rules.md (rules 4.9, 4.10, 5.2, 9.7, 10.1, 10.2, 13.3, 13.8). Fails, never skips,
without an adapter.

The Stream Output setup: one POSITION.xy + SV_VertexID record of 12 bytes per vertex, so a
triangle takes 36 bytes and a 72-byte target holds two triangles.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from gpuia import (
    IndexBufferView,
    InputLayout,
    InvalidDescError,
    SODeclarationEntry,
    StreamOutputBufferView,
    StreamOutputDesc,
)
from gpuia.gpu import Context, PipelineState
from gpuia.gpu.context import PredicationOp
from gpuia.harness.case import load_case
from gpuia.harness.run_gpu import case_pipeline_state

LAYOUT = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}])
DESC = StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=2),
                         SODeclarationEntry(semantic_name="SV_VertexID", component_count=1)))
GUARD = 0xAB


def _context(dev, topology="TRIANGLELIST", so=True, cut="DISABLED"):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=DESC if so else None,
                                         strip_cut_value=cut))
    ctx.ia_set_primitive_topology(topology)
    data = np.array([[k, 100 + k] for k in range(32)], "<f4").tobytes()
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(data, bind=("vertex_buffer",))], [8], [0])
    return ctx


def _target(dev, size=72):
    return dev.create_buffer(bytes([GUARD]) * size, bind=("stream_output",))


def _stats(written, needed):
    return {"NumPrimitivesWritten": written, "PrimitivesStorageNeeded": needed}


def test_nine_vertices_into_two_triangles_of_room(gpu_device):
    """A TRIANGLELIST draw of 9 vertices (3 triangles) into 72 bytes: 2 written, 3 needed
    (rules 10.2), the stream overflowed (9.7)."""
    ctx = _context(gpu_device)
    ctx.so_set_targets([StreamOutputBufferView(_target(gpu_device))], [0])
    heap = ctx.create_query_heap("SO_STATISTICS", 2)
    ctx.begin_query(heap, "SO_STATISTICS_STREAM0", 0)
    ctx.begin_query(heap, "SO_OVERFLOW_PREDICATE_STREAM0", 1)
    ctx.draw_instanced(9)
    ctx.end_query(heap, "SO_STATISTICS_STREAM0", 0)
    ctx.end_query(heap, "D3D11_QUERY_SO_OVERFLOW_PREDICATE_STREAM0", 1)
    assert ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM0", 0, 1) == [_stats(2, 3)]
    assert ctx.resolve_query_data(heap, "SO_OVERFLOW_PREDICATE_STREAM0", 1, 1) == [
        {"Overflow": 1}]


def test_a_range_counts_only_its_own_draws(gpu_device):
    """Draw 1 (before the begin) writes one triangle; draw 2 (in the range) one more, which
    fits; draw 3 (after the end) overflows: the range saw 1 written, 1 needed, no overflow.
    Streams 1-3 (no geometry shader) count nothing."""
    ctx = _context(gpu_device)
    ctx.so_set_targets([StreamOutputBufferView(_target(gpu_device))], [0])
    heap = ctx.create_query_heap(3, 3)  # D3D12_QUERY_HEAP_TYPE_SO_STATISTICS
    ctx.draw_instanced(3)
    ctx.begin_query(heap, 4, 0)  # D3D12_QUERY_TYPE_SO_STATISTICS_STREAM0
    ctx.begin_query(heap, "SO_OVERFLOW_PREDICATE_STREAM0", 1)
    ctx.begin_query(heap, "SO_STATISTICS_STREAM1", 2)
    ctx.draw_instanced(3, 1, 3)
    ctx.end_query(heap, 4, 0)
    ctx.end_query(heap, "SO_OVERFLOW_PREDICATE_STREAM0", 1)
    ctx.end_query(heap, "SO_STATISTICS_STREAM1", 2)
    ctx.draw_instanced(6, 1, 6)
    assert ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM0", 0, 1) == [_stats(1, 1)]
    assert ctx.resolve_query_data(heap, "SO_OVERFLOW_PREDICATE_STREAM0", 1, 1) == [
        {"Overflow": 0}]
    assert ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM1", 2, 1) == [_stats(0, 0)]
    assert ctx.so_statistics() == _stats(2, 4)  # the context's own totals include every draw


def test_resolve_into_a_buffer_writes_d3d_layout(gpu_device):
    """D3D12_QUERY_DATA_SO_STATISTICS: two UINT64 per query, little-endian, at an offset that
    is a multiple of 8; the bytes around it untouched."""
    ctx = _context(gpu_device)
    ctx.so_set_targets([StreamOutputBufferView(_target(gpu_device))], [0])
    heap = ctx.create_query_heap("D3D12_QUERY_HEAP_TYPE_SO_STATISTICS", 2)
    for i, count in enumerate((3, 6)):  # 1 triangle (fits), then 2 (1 fits)
        ctx.begin_query(heap, "SO_STATISTICS_STREAM0", i)
        ctx.draw_instanced(count)
        ctx.end_query(heap, "SO_STATISTICS_STREAM0", i)
    dest = gpu_device.create_buffer(bytes([0x55]) * 48, bind=("constant_buffer",))
    got = ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM0", 0, 2, dest, 8)
    assert got == [_stats(1, 1), _stats(1, 2)]
    assert dest.read() == bytes([0x55]) * 8 + struct.pack("<4Q", 1, 1, 1, 2) + bytes([0x55]) * 8


def test_predication_on_the_overflow_predicate_skips_draws(gpu_device):
    """The overflow predicate (1) resolved into a buffer; SetPredication NOT_EQUAL_ZERO skips
    the following draws: the new target stays untouched, its filled size 0, the statistics
    unchanged. EQUAL_ZERO on the same value skips nothing; a NULL buffer ends predication."""
    ctx = _context(gpu_device)
    ctx.so_set_targets([StreamOutputBufferView(_target(gpu_device))], [0])
    heap = ctx.create_query_heap("SO_STATISTICS", 1)
    ctx.begin_query(heap, "SO_OVERFLOW_PREDICATE_STREAM0", 0)
    ctx.draw_instanced(9)
    ctx.end_query(heap, "SO_OVERFLOW_PREDICATE_STREAM0", 0)
    predicate = gpu_device.create_buffer(bytes(16), bind=("constant_buffer",))
    ctx.resolve_query_data(heap, "SO_OVERFLOW_PREDICATE_STREAM0", 0, 1, predicate, 8)
    assert predicate.read() == bytes(8) + struct.pack("<Q", 1)

    fresh = _target(gpu_device)
    ctx.so_set_targets([StreamOutputBufferView(fresh)], [0])
    ctx.set_predication(predicate, 8, PredicationOp.NOT_EQUAL_ZERO)
    before = ctx.so_statistics()
    plan = ctx.draw_instanced(3)
    ctx.draw({"DrawInstanced": {"VertexCountPerInstance": 3}})
    assert plan is not None  # still planned and returned
    assert ctx.so_filled_size(0) == 0
    ctx.flush()
    assert fresh.read() == bytes([GUARD]) * 72
    assert ctx.so_statistics() == before

    ctx.set_predication(predicate, 8, "D3D12_PREDICATION_OP_EQUAL_ZERO")  # 1 is not 0: draws
    ctx.draw_instanced(3)
    assert ctx.so_filled_size(0) == 36
    ctx.set_predication(predicate, 0, "EQUAL_ZERO")  # bytes 0-7 are 0: skips
    ctx.draw_instanced(3, 1, 3)
    assert ctx.so_filled_size(0) == 36
    ctx.set_predication(None)
    assert "draw_instanced" not in vars(ctx)  # the fast path is back
    ctx.draw_instanced(3, 1, 3)
    assert ctx.so_filled_size(0) == 72
    ctx.flush()
    assert fresh.read()[36:48] == struct.pack("<2fI", 3, 103, 0)


def _pipeline(ctx, heap, index=0):
    (got,) = ctx.resolve_query_data(heap, "PIPELINE_STATISTICS", index, 1)
    return got


NOT_COUNTED = {"CInvocations", "CPrimitives", "PSInvocations"}


def test_pipeline_statistics_of_a_triangle_strip(gpu_device):
    """Rules 4.10: a 4-vertex triangle strip counts 4 IA vertices, 2 primitives, 4 vertex
    shader invocations; no geometry shader: GS counters 0; no hull, domain or compute stage:
    0; the clipper and pixel shader counts are not available, each with its reason."""
    ctx = _context(gpu_device, "TRIANGLESTRIP", so=False)
    heap = ctx.create_query_heap("PIPELINE_STATISTICS", 1)
    ctx.begin_query(heap, "PIPELINE_STATISTICS", 0)
    ctx.draw_instanced(4)
    ctx.end_query(heap, "PIPELINE_STATISTICS", 0)
    got = _pipeline(ctx, heap)
    adapter = ("not_available", "adapter_counts", "adapter_note")  # the next tests'
    assert {k: v for k, v in got.items() if k not in adapter} == {
        "IAVertices": 4, "IAPrimitives": 2, "VSInvocations": 4, "GSInvocations": 0,
        "GSPrimitives": 0, "CInvocations": None, "CPrimitives": None, "PSInvocations": None,
        "HSInvocations": 0, "DSInvocations": 0, "CSInvocations": 0}
    assert set(got["not_available"]) == NOT_COUNTED
    assert all("WebGPU" in why for why in got["not_available"].values())
    dest = gpu_device.create_buffer(bytes(88), bind=("constant_buffer",))
    ctx.resolve_query_data(heap, "PIPELINE_STATISTICS", 0, 1, dest)
    ones = 0xFFFFFFFFFFFFFFFF
    assert dest.read() == struct.pack("<11Q", 4, 2, 4, 0, 0, ones, ones, ones, 0, 0, 0)


def test_pipeline_statistics_count_cuts_instances_and_only_the_range(gpu_device):
    """Indexed TRIANGLESTRIP 0,1,2,3,cut,4,5,6 (strip cut 0xFFFF, rules 5.2): runs of 4 and 3,
    2 + 1 triangles, 7 vertices; two instances: 14 and 6. A TRIANGLELIST of 8 vertices: 8
    vertices, 2 triangles (the last 2 vertices complete none, 4.9). A draw before the begin and
    one after the end are not counted; a draw skipped by predication is not either."""
    ctx = _context(gpu_device, "TRIANGLESTRIP", so=False, cut="0xFFFF")
    ib = gpu_device.create_buffer(struct.pack("<8H", 0, 1, 2, 3, 0xFFFF, 4, 5, 6),
                                  bind=("index_buffer",))
    ctx.ia_set_index_buffer(IndexBufferView(ib, "R16_UINT"))
    heap = ctx.create_query_heap("PIPELINE_STATISTICS", 2)
    ctx.draw_instanced(5)  # before: not counted
    ctx.begin_query(heap, "PIPELINE_STATISTICS", 1)
    ctx.draw_indexed_instanced(8, 2)
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    ctx.draw_instanced(8)
    zero = gpu_device.create_buffer(bytes(8), bind=("constant_buffer",))
    ctx.set_predication(zero, 0, "EQUAL_ZERO")
    ctx.draw_instanced(30)  # skipped
    ctx.set_predication(None)
    ctx.end_query(heap, "PIPELINE_STATISTICS", 1)
    ctx.draw_instanced(3)  # after: not counted
    got = _pipeline(ctx, heap, 1)
    assert (got["IAVertices"], got["IAPrimitives"], got["VSInvocations"]) == (22, 8, 22)


def _adapter(got, counts):
    """The adapter's own counts of a resolved query against hand-derived ``(primitives,
    distinct vertices of them)`` (rules 4.11), or the reason where the adapter has none."""
    from gpuia.gpu.context.gpu_counts import NO_FEATURE, NOTE

    if got["adapter_counts"] is None:
        assert got["adapter_note"] == NO_FEATURE
        return False
    assert got["adapter_note"] == NOTE
    primitives, at_least = counts
    assert got["adapter_counts"]["CInvocations"] == primitives, got["adapter_counts"]
    assert got["adapter_counts"]["VSInvocations"] >= at_least, got["adapter_counts"]
    return True


def test_the_adapters_own_counts_beside_gpuias(gpu_device):
    """Overlapping queries. Query 0: a 4-vertex strip, 2 triangles on 4 vertices. Query 1:
    the indexed strip 0,1,2,3,cut,4,5,6 in 2 instances (3 triangles on 7 vertices each: 6 on
    14), then an 8-vertex list (2 triangles on 6 vertices): 8 triangles, at least 20
    invocations. Query 2, begun inside 1: the 8-vertex list and a 6-vertex list: 4 triangles
    on 12 vertices. Draws before, between and after are not counted; D3D's own counts stay
    gpuia's (22 VSInvocations in query 1)."""
    ctx = _context(gpu_device, "TRIANGLESTRIP", so=False, cut="0xFFFF")
    ib = gpu_device.create_buffer(struct.pack("<8H", 0, 1, 2, 3, 0xFFFF, 4, 5, 6),
                                  bind=("index_buffer",))
    ctx.ia_set_index_buffer(IndexBufferView(ib, "R16_UINT"))
    heap = ctx.create_query_heap("PIPELINE_STATISTICS", 3)
    ctx.draw_instanced(5)
    ctx.begin_query(heap, "PIPELINE_STATISTICS", 0)
    ctx.draw_instanced(4)
    ctx.end_query(heap, "PIPELINE_STATISTICS", 0)
    ctx.draw_instanced(5)
    ctx.begin_query(heap, "PIPELINE_STATISTICS", 1)
    ctx.draw_indexed_instanced(8, 2)
    ctx.begin_query(heap, "PIPELINE_STATISTICS", 2)
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    ctx.draw_instanced(8)
    ctx.end_query(heap, "PIPELINE_STATISTICS", 1)
    ctx.draw_instanced(6)
    ctx.end_query(heap, "PIPELINE_STATISTICS", 2)
    ctx.draw_instanced(9)
    got = ctx.resolve_query_data(heap, "PIPELINE_STATISTICS", 0, 3)
    has = gpu_device.caps.pipeline_statistics_query
    assert [_adapter(g, c) for g, c in zip(got, [(2, 4), (8, 20), (4, 12)], strict=True)] \
        == [has] * 3
    assert [g["VSInvocations"] for g in got] == [4, 22, 14]


@pytest.mark.parametrize("per_set, read_at", [(2, 4096), (256, 1)])
def test_the_adapters_counts_across_many_passes(gpu_device, monkeypatch, per_set, read_at):
    """A range of 5 render passes (a flush ends each), 2 triangles of 6 vertices per pass:
    10 triangles on 30 vertices, whether the passes fill several query sets or each submit
    reads its counts."""
    from gpuia.gpu.context import gpu_counts, recorder

    monkeypatch.setattr(gpu_counts, "_PER_SET", per_set)
    monkeypatch.setattr(recorder, "READ_AT", read_at)
    ctx = _context(gpu_device, so=False)
    heap = ctx.create_query_heap("PIPELINE_STATISTICS", 1)
    ctx.begin_query(heap, "PIPELINE_STATISTICS", 0)
    for _ in range(5):
        ctx.draw_instanced(6)
        ctx.flush()
    ctx.end_query(heap, "PIPELINE_STATISTICS", 0)
    (got,) = ctx.resolve_query_data(heap, "PIPELINE_STATISTICS", 0, 1)
    assert _adapter(got, (10, 30)) is gpu_device.caps.pipeline_statistics_query
    assert got["VSInvocations"] == 30


def test_pipeline_statistics_of_a_geometry_shader_draw(gpu_device):
    """Rules 13.3, 13.8: GSInvocations = input primitives x draw instances x GS instances:
    5 triangles x 1 x 2 = 10; GSPrimitives only the GPU counts: not available, with why."""
    from test_gpu_geometry_statistics import case_doc

    case = load_case(case_doc(True))  # streams out (no SO target bound: nothing written)
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(case_pipeline_state(case, stream_output=True))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    data = np.array([[10 + i, 0, 0, 0] for i in range(15)], "<u4").tobytes()
    ctx.ia_set_vertex_buffers(0, [gpu_device.create_buffer(data, bind=("vertex_buffer",))],
                              [16], [0])
    heap = ctx.create_query_heap("PIPELINE_STATISTICS", 1)
    ctx.begin_query(heap, "PIPELINE_STATISTICS", 0)
    ctx.draw_instanced(15)
    ctx.end_query(heap, "PIPELINE_STATISTICS", 0)
    got = _pipeline(ctx, heap)
    assert (got["IAVertices"], got["IAPrimitives"], got["GSInvocations"]) == (15, 5, 10)
    assert got["GSPrimitives"] is None and "geometry shader" in got["not_available"][
        "GSPrimitives"]


@pytest.mark.parametrize("call, args, rule", [
    ("begin", ("SO_STATISTICS_STREAM0", 0), "begun as SO_STATISTICS_STREAM0 and not ended"),
    ("end", ("SO_STATISTICS_STREAM1", 0), "was not begun as SO_STATISTICS_STREAM1"),
])
def test_begin_twice_and_mismatched_end_are_refused(gpu_device, call, args, rule):
    ctx = _context(gpu_device)
    heap = ctx.create_query_heap("SO_STATISTICS", 1)
    ctx.begin_query(heap, "SO_STATISTICS_STREAM0", 0)
    method = ctx.begin_query if call == "begin" else ctx.end_query
    with pytest.raises(InvalidDescError, match=rule):
        method(heap, *args)
    ctx.end_query(heap, "SO_STATISTICS_STREAM0", 0)  # the open query is still open, and ends
    assert ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM0", 0, 1) == [_stats(0, 0)]


def test_resolve_and_predication_refusals(gpu_device):
    """ResolveQueryData of a query still begun, never ended, or ended as another type; a range
    past the heap; a destination offset that is no multiple of 8 or data past its end; a
    SetPredication offset that is no multiple of 8 or past the buffer; a heap of another
    context. Each refusal changes nothing: the query still resolves afterwards."""
    ctx = _context(gpu_device)
    heap = ctx.create_query_heap("SO_STATISTICS", 3)
    ctx.begin_query(heap, "SO_STATISTICS_STREAM0", 0)
    with pytest.raises(InvalidDescError, match="query 0 is begun and not ended"):
        ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM0", 0, 1)
    ctx.end_query(heap, "SO_STATISTICS_STREAM0", 0)
    with pytest.raises(InvalidDescError, match="query 1 was never ended"):
        ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM0", 0, 2)
    with pytest.raises(InvalidDescError, match="query 0 was ended as SO_STATISTICS_STREAM0"):
        ctx.resolve_query_data(heap, "SO_OVERFLOW_PREDICATE_STREAM0", 0, 1)
    with pytest.raises(InvalidDescError, match="NumQueries"):
        ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM0", 2, 2)
    dest = gpu_device.create_buffer(bytes(24), bind=("constant_buffer",))
    with pytest.raises(InvalidDescError, match="AlignedDestinationBufferOffset.*multiple of 8"):
        ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM0", 0, 1, dest, 4)
    with pytest.raises(InvalidDescError, match="run past the buffer's 24"):
        ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM0", 0, 1, dest, 16)
    with pytest.raises(InvalidDescError, match="AlignedBufferOffset"):
        ctx.set_predication(dest, 4)
    with pytest.raises(InvalidDescError, match="AlignedBufferOffset"):
        ctx.set_predication(dest, 24)
    with pytest.raises(InvalidDescError, match="Operation"):
        ctx.set_predication(dest, 0, "LESS")
    with pytest.raises(InvalidDescError, match="another Context"):
        _context(gpu_device).begin_query(heap, "SO_STATISTICS_STREAM0", 1)
    assert ctx.resolve_query_data(heap, "SO_STATISTICS_STREAM0", 0, 1, dest, 8) == [
        _stats(0, 0)]
    ctx.draw_instanced(3)  # no predicate was set by the refused calls: the draw runs
    assert ctx.so_statistics() == _stats(0, 1)  # its slot unbound: full (rules 9.8)


def test_predication_skips_clears(gpu_device):
    """D3D12 predicates ClearRenderTargetView: a clear while the predicate skips leaves the
    target as it was; after set_predication(None) the clear runs."""
    ctx = Context(gpu_device)
    rt = gpu_device.create_render_target(4, 4)
    ctx.clear_render_target_view(rt, (1, 0, 0, 1))
    one = gpu_device.create_buffer(struct.pack("<Q", 1 << 40), bind=("constant_buffer",))
    ctx.set_predication(one, 0, "NOT_EQUAL_ZERO")  # a bit of the high word set: not zero
    ctx.clear_render_target_view(rt, (0, 1, 0, 1))
    with pytest.raises(InvalidDescError):  # still checked
        ctx.clear_render_target_view(rt, (0, 1, 0))
    ctx.flush()
    assert rt.read()[2, 2].tolist() == [255, 0, 0, 255]
    ctx.set_predication(None)
    ctx.clear_render_target_view(rt, (0, 1, 0, 1))
    ctx.flush()
    assert rt.read()[2, 2].tolist() == [0, 255, 0, 255]


GS_TWO_STREAMS = """
struct V { float2 pos : POSITION; };
struct P { uint id : ID; };
[maxvertexcount(3)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout PointStream<P> s0,
          inout PointStream<P> s1) {
    P p; p.id = pid; s0.Append(p); s1.Append(p); s1.Append(p);
}
"""


def test_queries_of_geometry_shader_streams(gpu_device):
    """A geometry shader appending one point to stream 0 and two to stream 1, drawn over 2
    points: stream 0 needs 2 (64 bytes hold 16: all written, no overflow); stream 1 needs 4 and
    its 12-byte target holds 3 (rules 9.7, 13.8): 3 written, overflow. Pipeline statistics: 2
    IA vertices and primitives, 2 GS invocations (2 points x 1 instance x 1 GS instance)."""
    from gpuia.hlsl import compile_geometry_shader

    ctx = _context(gpu_device, "POINTLIST", so=False)
    ctx.set_pipeline_state(PipelineState(LAYOUT, stream_output=StreamOutputDesc(
        (SODeclarationEntry(0, "ID", 0, 0, 1, 0), SODeclarationEntry(1, "ID", 0, 0, 1, 1)),
        (4, 4), "NO_RASTERIZED_STREAM"),
        geometry_shader=compile_geometry_shader(GS_TWO_STREAMS)))
    ctx.so_set_targets([StreamOutputBufferView(_target(gpu_device, 64)),
                        StreamOutputBufferView(_target(gpu_device, 12))], [0, 0])
    so = ctx.create_query_heap("SO_STATISTICS", 4)
    stats = ctx.create_query_heap("PIPELINE_STATISTICS", 1)
    kinds = ("SO_STATISTICS_STREAM0", "SO_STATISTICS_STREAM1", "SO_OVERFLOW_PREDICATE_STREAM0",
             "SO_OVERFLOW_PREDICATE_STREAM1")
    for i, kind in enumerate(kinds):
        ctx.begin_query(so, kind, i)
    ctx.begin_query(stats, "PIPELINE_STATISTICS", 0)
    ctx.draw_instanced(2)
    ctx.end_query(stats, "PIPELINE_STATISTICS", 0)
    for i, kind in enumerate(kinds):
        ctx.end_query(so, kind, i)
    got = [ctx.resolve_query_data(so, kind, i, 1)[0] for i, kind in enumerate(kinds)]
    assert got == [_stats(2, 2), _stats(3, 4), {"Overflow": 0}, {"Overflow": 1}]
    p = _pipeline(ctx, stats)
    assert (p["IAVertices"], p["IAPrimitives"], p["VSInvocations"], p["GSInvocations"]) == (
        2, 2, 2, 2)


def test_draw_auto_leaves_the_ia_counters_unknown(gpu_device):
    """A DrawAuto without a geometry shader draws a count only the GPU knows: the range's IA,
    vertex shader and GS counters are not available, with the reason."""
    ctx = _context(gpu_device, "POINTLIST")
    out = gpu_device.create_buffer(size=96, bind=("stream_output", "vertex_buffer"))
    ctx.so_set_targets([StreamOutputBufferView(out)], [0])
    ctx.draw_instanced(4)  # 4 records of 12 bytes
    ctx.so_set_targets([])
    ctx.set_pipeline_state(PipelineState(LAYOUT))
    ctx.ia_set_vertex_buffers(0, [out], [12], [0])
    heap = ctx.create_query_heap("PIPELINE_STATISTICS", 1)
    ctx.begin_query(heap, "PIPELINE_STATISTICS", 0)
    ctx.draw_auto()
    ctx.end_query(heap, "PIPELINE_STATISTICS", 0)
    p = _pipeline(ctx, heap)
    for name in ("IAVertices", "IAPrimitives", "VSInvocations", "GSInvocations",
                 "GSPrimitives"):
        assert p[name] is None and "DrawAuto" in p["not_available"][name], name
    assert p["HSInvocations"] == 0
