"""Query heaps, query types and the host side of queries (gpuia.gpu.context.queries): the
refusals D3D12 makes, D3D's resolved layouts, and the IA counts of one draw derived by hand
from docs/rules.md (4.9 incomplete primitives dropped, 4.10 a 4-vertex strip, 5.2 cuts in
strips only)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from gpuia.d3d.topology import topology_info
from gpuia.errors import InvalidDescError
from gpuia.gpu.context.queries import (
    NOT_AVAILABLE,
    PIPELINE_COUNTERS,
    PipelineCounts,
    PredicationOp,
    QueryHeap,
    QueryHeapType,
    QueryType,
    draw_counts,
    pack_query_data,
)

OWNER = object()


def test_d3d12_values():
    # d3d12.h: D3D12_QUERY_HEAP_TYPE_PIPELINE_STATISTICS 2, _SO_STATISTICS 3;
    # D3D12_QUERY_TYPE_PIPELINE_STATISTICS 3, _SO_STATISTICS_STREAM0..3 4..7;
    # D3D12_PREDICATION_OP_EQUAL_ZERO 0, _NOT_EQUAL_ZERO 1.
    assert QueryHeapType.PIPELINE_STATISTICS.value == 2 and QueryHeapType.SO_STATISTICS.value == 3
    assert [QueryType[f"SO_STATISTICS_STREAM{s}"].value for s in range(4)] == [4, 5, 6, 7]
    assert QueryType.PIPELINE_STATISTICS.value == 3
    assert PredicationOp.of(1) is PredicationOp.NOT_EQUAL_ZERO
    assert PredicationOp.of("D3D12_PREDICATION_OP_EQUAL_ZERO") is PredicationOp.EQUAL_ZERO
    assert len(PIPELINE_COUNTERS) == 11 and PIPELINE_COUNTERS[0] == "IAVertices"
    assert PIPELINE_COUNTERS[-1] == "CSInvocations"


@pytest.mark.parametrize("heap_type, count, field", [
    ("OCCLUSION", 1, "Type"), ("TIMESTAMP", 1, "Type"), (0, 1, "Type"),
    ("SO_STATISTICS", 0, "Count"), ("SO_STATISTICS", 1.0, "Count"),
])
def test_heap_refusals(heap_type, count, field):
    with pytest.raises(InvalidDescError, match=f"CreateQueryHeap.*{field}"):
        QueryHeap(OWNER, heap_type, count)


@pytest.mark.parametrize("query_type, index, match", [
    ("PIPELINE_STATISTICS", 0, "SO_STATISTICS query heap holds no PIPELINE_STATISTICS"),
    ("OCCLUSION", 0, "expected one of"),
    ("SO_STATISTICS_STREAM0", 2, "the heap holds queries 0 to 1"),
    ("SO_STATISTICS_STREAM0", -1, "the heap holds queries 0 to 1"),
])
def test_slot_refusals(query_type, index, match):
    heap = QueryHeap(OWNER, "SO_STATISTICS", 2)
    with pytest.raises(InvalidDescError, match=match):
        heap.slot(OWNER, query_type, index, "BeginQuery")


def test_a_heap_of_another_context_is_refused():
    heap = QueryHeap(OWNER, "PIPELINE_STATISTICS", 1)
    with pytest.raises(InvalidDescError, match="another Context"):
        heap.slot(object(), "PIPELINE_STATISTICS", 0, "EndQuery")


def test_overflow_predicates_live_in_so_heaps():
    heap = QueryHeap(OWNER, "SO_STATISTICS", 1)
    qt, _ = heap.slot(OWNER, "SO_OVERFLOW_PREDICATE_STREAM3", 0, "BeginQuery")
    assert qt is QueryType.SO_OVERFLOW_PREDICATE_STREAM3


def test_packed_layouts():
    assert pack_query_data("SO_STATISTICS_STREAM2", [
        {"NumPrimitivesWritten": 2, "PrimitivesStorageNeeded": 1 << 40}]) == struct.pack(
        "<QQ", 2, 1 << 40)
    assert pack_query_data("SO_OVERFLOW_PREDICATE_STREAM0", [{"Overflow": 1}, {"Overflow": 0}]
                           ) == struct.pack("<QQ", 1, 0)
    stats = PipelineCounts()
    stats.add({"IAVertices": 4, "IAPrimitives": 2, "VSInvocations": 4})
    got = pack_query_data(QueryType.PIPELINE_STATISTICS, [stats.result()])
    assert got == struct.pack("<11Q", 4, 2, 4, 0, 0, NOT_AVAILABLE, NOT_AVAILABLE,
                              NOT_AVAILABLE, 0, 0, 0)


def test_lost_counters_are_none_with_their_reason():
    stats = PipelineCounts()
    stats.add({"IAVertices": 3})
    stats.lose(("IAVertices",), "only the GPU knows")
    got = stats.result()
    assert got["IAVertices"] is None and got["not_available"]["IAVertices"] == "only the GPU knows"


@pytest.mark.parametrize("topology, n, values, cut, expected", [
    ("TRIANGLESTRIP", 4, None, None, (4, 2)),          # rules 4.10
    ("TRIANGLELIST", 8, None, None, (8, 2)),           # 4.9: 2 vertices complete nothing
    ("POINTLIST", 5, None, None, (5, 5)),
    ("LINESTRIP", 1, None, None, (1, 0)),
    ("TRIANGLELIST_ADJ", 12, None, None, (12, 2)),     # 6 vertices per triangle
    ("TRIANGLESTRIP", 8, [0, 1, 2, 3, 0xFFFF, 4, 5, 6], 0xFFFF, (7, 3)),  # runs 4, 3 (5.2)
    ("LINESTRIP", 5, [0xFFFF, 1, 0xFFFF, 0xFFFF, 2], 0xFFFF, (2, 0)),     # runs of 1
    ("TRIANGLELIST", 6, [0, 1, 0xFFFF, 2, 3, 4], 0xFFFF, (6, 2)),         # lists never cut
])
def test_draw_counts(topology, n, values, cut, expected):
    arr = None if values is None else np.array(values, np.uint32)
    topo = topology_info(topology)
    assert draw_counts(topo, n, arr, cut if topo.strip else None) == expected
