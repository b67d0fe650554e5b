"""Queries and predication the D3D12 way, for :class:`gpuia.gpu.Context`: query heaps,
``BeginQuery``/``EndQuery``/``ResolveQueryData`` and ``SetPredication``
(:class:`~gpuia.gpu.context.query_calls.QueryCalls` is the context's face of it).

What each query type counts between its begin and its end (one table, :data:`QUERY_TYPES`):

* ``SO_STATISTICS_STREAM0..3``: ``D3D12_QUERY_DATA_SO_STATISTICS`` of the stream, the difference
  of the context's 64-bit statistics (:meth:`gpuia.gpu.Context.so_statistics`, rules 10.1,
  10.2, 13.8) read at the end and at the begin (each read submits the pending draws and waits).
* ``SO_OVERFLOW_PREDICATE_STREAM0..3``: 1 when a primitive of the stream needed storage it was
  not written to in the range (``PrimitivesStorageNeeded`` grew more than
  ``NumPrimitivesWritten``: rule 9.7's overflow, or a declared slot with no buffer, 9.8), else
  0; one UINT64. D3D12 has no such query type (its docs: an application resolves the SO
  statistics and compares them); D3D11's ``SO_OVERFLOW_PREDICATE_STREAMn`` defines it, and
  gpuia computes it so from the same counts. It lives in an ``SO_STATISTICS`` heap.
* ``PIPELINE_STATISTICS``: ``D3D12_QUERY_DATA_PIPELINE_STATISTICS``, counted on the host from
  each draw the context issues in the range (a draw predication skips is not counted): the
  counters of :data:`PIPELINE_COUNTERS`; those gpuia cannot know exactly are None, with the
  reason in ``not_available``. Beside them, the GPU's own counts of the range where the device
  has wgpu's pipeline statistics query (:mod:`gpuia.gpu.context.gpu_counts`).

Refused as the D3D12 runtime refuses (:class:`~gpuia.errors.InvalidDescError`, naming the
call, the field and the rule): a query type the heap type does not hold, an index past the
heap's count, a begin of a query already begun, an end of one not begun (or begun as another
type), a resolve of a query begun and not ended or never ended (D3D12 leaves its data
undefined), a range past the heap, a destination offset that is no multiple of 8.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ...d3d.topology import TopologyInfo
from ...errors import InvalidDescError

__all__ = ["QueryHeapType", "QueryType", "QUERY_TYPES", "PIPELINE_COUNTERS", "QueryHeap",
           "PredicationOp", "pack_query_data", "draw_counts", "PipelineCounts"]

_U64 = 1 << 64


class QueryHeapType(Enum):
    """D3D12_QUERY_HEAP_TYPE: the heap types gpuia makes (the value is D3D12's)."""

    PIPELINE_STATISTICS = 2
    SO_STATISTICS = 3


class QueryType(Enum):
    """The query types gpuia answers: D3D12_QUERY_TYPE's (value D3D12's), and the overflow
    predicates D3D11 has (``D3D11_QUERY_SO_OVERFLOW_PREDICATE_STREAMn``, value ``-1 - n``:
    D3D12 numbers none)."""

    PIPELINE_STATISTICS = 3
    SO_STATISTICS_STREAM0 = 4
    SO_STATISTICS_STREAM1 = 5
    SO_STATISTICS_STREAM2 = 6
    SO_STATISTICS_STREAM3 = 7
    SO_OVERFLOW_PREDICATE_STREAM0 = -1
    SO_OVERFLOW_PREDICATE_STREAM1 = -2
    SO_OVERFLOW_PREDICATE_STREAM2 = -3
    SO_OVERFLOW_PREDICATE_STREAM3 = -4


@dataclass(frozen=True)
class _TypeInfo:
    heap: QueryHeapType
    stream: int | None  # the SO stream counted; None: pipeline statistics
    fields: tuple[str, ...]  # the UINT64 members of the resolved struct, in D3D's order


PIPELINE_COUNTERS = ("IAVertices", "IAPrimitives", "VSInvocations", "GSInvocations",
                     "GSPrimitives", "CInvocations", "CPrimitives", "PSInvocations",
                     "HSInvocations", "DSInvocations", "CSInvocations")
"""The members of D3D12_QUERY_DATA_PIPELINE_STATISTICS, in its order (11 UINT64)."""

_SO_FIELDS = ("NumPrimitivesWritten", "PrimitivesStorageNeeded")
_PREDICATE_FIELDS = ("Overflow",)

QUERY_TYPES: dict[QueryType, _TypeInfo] = {
    QueryType.PIPELINE_STATISTICS: _TypeInfo(QueryHeapType.PIPELINE_STATISTICS, None,
                                             PIPELINE_COUNTERS),
    **{QueryType[f"SO_STATISTICS_STREAM{s}"]: _TypeInfo(QueryHeapType.SO_STATISTICS, s,
                                                         _SO_FIELDS) for s in range(4)},
    **{QueryType[f"SO_OVERFLOW_PREDICATE_STREAM{s}"]: _TypeInfo(QueryHeapType.SO_STATISTICS,
                                                                 s, _PREDICATE_FIELDS)
       for s in range(4)},
}
"""Per query type: its heap type, its stream, and the UINT64 fields it resolves to."""

NOT_AVAILABLE = 0xFFFFFFFFFFFFFFFF
"""What a counter gpuia cannot know is written as in a resolved buffer (UINT64 all ones; the
returned dict holds None and the reason)."""

# Counters gpuia does not count, and why: stages WebGPU runs without telling how often.
_UNKNOWN = {
    "CInvocations": "WebGPU runs the clipper without counting the primitives it receives",
    "CPrimitives": "WebGPU runs the clipper without counting the primitives it outputs",
    "PSInvocations": "WebGPU runs the pixel shader without counting its invocations",
}
# Counters that are 0 for every gpuia draw: stages its pipelines never have (no hull or domain
# shader, D3D12 tessellation), and no Dispatch (gpuia's own compute passes are no D3D stage).
_ZERO = ("HSInvocations", "DSInvocations", "CSInvocations")


def _enum_of(enum, value, where: str, field_name: str):
    if isinstance(value, enum):
        return value
    if isinstance(value, str):
        name = value.upper()
        for prefix in ("D3D12_QUERY_HEAP_TYPE_", "D3D12_QUERY_TYPE_", "D3D11_QUERY_",
                       "D3D12_PREDICATION_OP_"):
            name = name.removeprefix(prefix)
        if name in enum.__members__:
            return enum[name]
    elif type(value) is int:
        for m in enum:
            if m.value == value:
                return m
    raise InvalidDescError(where, field_name, value,
                           f"expected one of {', '.join(enum.__members__)} ({enum.__name__})")


class PredicationOp(Enum):
    """D3D12_PREDICATION_OP: EQUAL_ZERO skips the predicated calls when the 64-bit value is 0,
    NOT_EQUAL_ZERO when it is not."""

    EQUAL_ZERO = 0
    NOT_EQUAL_ZERO = 1

    @classmethod
    def of(cls, value) -> PredicationOp:
        return _enum_of(cls, value, "SetPredication", "Operation")


def query_type_of(value, where: str) -> QueryType:
    """A :class:`QueryType` from itself, its name (``D3D12_QUERY_TYPE_`` prefix optional) or
    its value."""
    return _enum_of(QueryType, value, where, "Type")


@dataclass
class _Slot:
    """One query of a heap: ``open`` (begun as that type) or ``data`` (the resolved fields)."""

    open: QueryType | None = None
    begin: Any = None  # what the begin snapshot was (SO counts, or the PipelineCounts)
    data: tuple[QueryType, dict] | None = None


class QueryHeap:
    """ID3D12QueryHeap: ``count`` queries of one heap type, made by
    :meth:`gpuia.gpu.Context.create_query_heap`. Its queries are begun, ended and resolved
    through the context that made it (another context refuses it).

    Attributes:
        type (QueryHeapType): the heap type.
        count (int): the queries it holds.
    """

    def __init__(self, owner, heap_type, count):
        heap_type = _enum_of(QueryHeapType, heap_type, "CreateQueryHeap", "Type")
        if type(count) is not int or not 1 <= count <= 1 << 20:
            raise InvalidDescError("CreateQueryHeap", "Count", count,
                                   "a query heap holds 1 to 2**20 queries")
        self.type = heap_type
        self.count = count
        self._owner = owner
        self.slots = [_Slot() for _ in range(count)]

    def __repr__(self):
        return f"QueryHeap({self.type.name}, {self.count})"

    def slot(self, owner, query_type, index, where: str) -> tuple[QueryType, _Slot]:
        """(the query type, the slot at ``index``), refused as D3D12 refuses."""
        if owner is not self._owner:
            raise InvalidDescError(where, "pQueryHeap", self,
                                   "the query heap was made by another Context")
        qt = query_type_of(query_type, where)
        if QUERY_TYPES[qt].heap is not self.type:
            raise InvalidDescError(where, "Type", qt.name,
                                   f"a {self.type.name} query heap holds no {qt.name} query "
                                   f"(D3D12_QUERY_HEAP_TYPE and D3D12_QUERY_TYPE must match)")
        if type(index) is not int or not 0 <= index < self.count:
            raise InvalidDescError(where, "Index", index,
                                   f"the heap holds queries 0 to {self.count - 1}")
        return qt, self.slots[index]


def pack_query_data(query_type, data: list[dict]) -> bytes:
    """The bytes ResolveQueryData writes for ``data`` (dicts as
    :meth:`gpuia.gpu.Context.resolve_query_data` returns them) of ``query_type``: per query its
    UINT64 fields in D3D's order, little-endian; a counter that is None
    (not available) as :data:`NOT_AVAILABLE`."""
    fields = QUERY_TYPES[query_type_of(query_type, "ResolveQueryData")].fields
    out = bytearray()
    for d in data:
        out += struct.pack(f"<{len(fields)}Q",
                           *(NOT_AVAILABLE if d[f] is None else d[f] for f in fields))
    return bytes(out)


def _run_primitives(topo: TopologyInfo, length: int) -> int:
    """Complete primitives of a cut-free run of ``length`` vertices (rules 4.9)."""
    return (length - 1 - topo.span) // topo.step + 1 if length > topo.span else 0


def draw_counts(topo: TopologyInfo, vertices: int, index_values=None,
                cut_index: int | None = None) -> tuple[int, int]:
    """(IAVertices, IAPrimitives) of one instance of a draw of ``vertices`` vertices (indices):
    the vertices the IA delivers and the complete primitives they make (rules 4.9, 4.10); with
    ``index_values`` (uint32) and the cut value of a strip topology, the cut indices end runs
    and are no vertices (rules 5.2, 5.3)."""
    if index_values is None or cut_index is None or not topo.strip:
        return vertices, _run_primitives(topo, vertices)
    cuts = [i for i, v in enumerate(index_values.tolist()) if v == cut_index]
    if not cuts:
        return vertices, _run_primitives(topo, vertices)
    prims, start = 0, 0
    for c in [*cuts, vertices]:
        prims += _run_primitives(topo, c - start)
        start = c + 1
    return vertices - len(cuts), prims


@dataclass
class PipelineCounts:
    """The counters of an open PIPELINE_STATISTICS query: ``values`` per counter, and
    ``unknown`` (counter -> why) for those a draw in the range left unknowable."""

    values: dict = field(default_factory=lambda: dict.fromkeys(PIPELINE_COUNTERS, 0))
    unknown: dict = field(default_factory=lambda: dict(_UNKNOWN))
    # The GPU's own running totals at the begin (gpu_counts.PassCounts), None without them.
    adapter_begin: list | None = None

    def add(self, counts: dict) -> None:
        for k, v in counts.items():
            self.values[k] = (self.values[k] + v) % _U64

    def lose(self, counters, reason: str) -> None:
        for k in counters:
            self.unknown.setdefault(k, reason)

    def result(self) -> dict:
        out: dict = {k: (None if k in self.unknown else self.values[k])
                     for k in PIPELINE_COUNTERS}
        for k in _ZERO:
            out[k] = 0
        out["not_available"] = dict(self.unknown)
        return out
