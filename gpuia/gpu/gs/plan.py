"""The pure parts of the geometry shader's expansion into Stream Output: what the streams are,
where each declaration entry finds its words, which buffer each binding holds and what each
dispatch's parameter record says. No device is needed; :mod:`gpuia.gpu.gs.expansion` binds and
dispatches what these build.

* :class:`GSStreamPlan`: per stream its primitive's vertices (point 1, line strip 2, triangle
  strip 3) and its record's members in declaration order, and ``maxvertexcount``: the layout of
  the GS program's regions (``1 + N * (1 + R)`` words per invocation, ``R`` the largest record's
  words) and each member's word within its stream's record (:meth:`GSStreamPlan.member_word`).
* :func:`entry_table`: per declared slot its rows of the entries table, one per entry that is no
  gap: (record word, word within the slot's vertex, components, 0).
* :class:`GSTarget` and :func:`target_bindings`: the bound targets, each distinct data buffer
  and counter buffer bound once (at most 4 of each).
* :func:`params_records`: one ``GpuiaGSSO`` record per scan level of a chunk
  (:data:`gpuia.wgsl.blocks.GS_SO_PARAMS`).

Refused with :class:`~gpuia.errors.InvalidDescError`: a plan of no stream or more than four, a
stream type that is none of 1-3 vertices, ``maxvertexcount`` outside 1-1024, a declaration entry
on a stream the plan lacks or naming a member its stream's record lacks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...d3d.geometry import GeometryDeclaration
from ...d3d.signature import Member
from ...d3d.so_declaration import ResolvedStreamOutput
from ...errors import InvalidDescError, UnsupportedError
from ...wgsl.blocks import GS_SO_PARAMS, GS_SO_SLOT
from ...wgsl.gs_expansion import MAX_LEVELS, PARAMS_WORDS, scan_levels

__all__ = ["GSStreamPlan", "GSTarget", "TargetBindings", "entry_table", "stream_vertices",
           "target_bindings", "params_records", "check_binding", "storage_binding_limit", "SLOTS",
           "STREAMS"]

SLOTS = 4
"""SO output slots 0-3."""
STREAMS = 4
"""GS streams 0-3."""

(_FIRST, _INVOCATIONS, _REGION_WORDS, _MAX_APPENDS, _RECORD_WORDS, _LEVEL, _TOP, _TOTAL_AT,
 _VERTICES, _LEVEL_OFFSET, _LEVEL_LENGTH, _DATA_BASE, _SLOTS) = (
    GS_SO_PARAMS.word(name) for name in (
        "first", "invocations", "region_words", "max_appends", "record_words", "level", "top",
        "total_at", "vertices", "level_offset", "level_length", "data_base", "slots"))
_SLOT_WORDS = GS_SO_SLOT.words()
_SLOT_FIELDS = tuple(f.name for f in GS_SO_SLOT.fields)


@dataclass(frozen=True)
class GSStreamPlan:
    """The geometry shader's streams as the expansion reads them: a frozen value.

    Arguments:
        vertices (tuple): per stream, stream 0 first, the vertices of one of its primitives:
            1 (PointStream), 2 (LineStream), 3 (TriangleStream).
        records (tuple): per stream, its record's members in declaration order, each (the
            member's key, as :attr:`gpuia.d3d.signature.Member.key`, its components).
        max_vertex_count (int): ``[maxvertexcount(N)]``.
    """

    vertices: tuple[int, ...]
    records: tuple[tuple[tuple[str, int], ...], ...]
    max_vertex_count: int

    def __post_init__(self):
        where = "GS stream plan"
        if not 1 <= len(self.vertices) <= STREAMS:
            raise InvalidDescError(where, "streams", len(self.vertices),
                                   "a geometry shader has 1 to 4 streams (rules 13.7)")
        if any(v not in (1, 2, 3) for v in self.vertices):
            raise InvalidDescError(where, "vertices", self.vertices,
                                   "each stream's primitive has 1, 2 or 3 vertices")
        if len(self.records) != len(self.vertices):
            raise InvalidDescError(where, "records", len(self.records), "one record per stream")
        n = self.max_vertex_count
        if type(n) is not int or not 1 <= n <= 1024:
            raise InvalidDescError(where, "maxvertexcount", n, "must be 1 to 1024 (rules 13.4)")

    @classmethod
    def of(cls, declaration: GeometryDeclaration,
           streams: Sequence[Sequence[Member]]) -> GSStreamPlan:
        """The plan of a checked declaration and its streams' records (each record's members,
        as :func:`gpuia.d3d.so_declaration.resolve_stream_output` takes them, stream 0
        first)."""
        return cls(tuple(declaration.stream_type(s).vertices for s in range(len(streams))),
                   tuple(tuple((m.key, m.components) for m in record) for record in streams),
                   declaration.max_vertex_count)

    @property
    def record_words(self) -> int:
        """R: the words of the largest stream record."""
        return max(sum(c for _, c in record) for record in self.records)

    @property
    def region_words(self) -> int:
        """Words of one invocation's region: ``1 + N * (1 + R)``."""
        return 1 + self.max_vertex_count * (1 + self.record_words)

    def member_word(self, stream: int, key: str) -> int:
        """The word of member ``key``'s first component within stream ``stream``'s record;
        InvalidDescError when the plan lacks the stream or the record the member."""
        if not 0 <= stream < len(self.records):
            raise InvalidDescError("GS stream plan", "stream", stream,
                                   f"the geometry shader has {len(self.records)} stream(s)")
        word = 0
        for name, components in self.records[stream]:
            if name == key:
                return word
            word += components
        raise InvalidDescError("GS stream plan", "member", key,
                               f"no member of stream {stream}'s record (rules 8.3)")


@dataclass(frozen=True)
class GSTarget:
    """One bound SO target as the expansion addresses it: ``buffer``, the data wgpu buffer;
    ``location`` (BufferLocation) and ``size`` (SizeInBytes), bytes; ``counter`` and
    ``counter_offset``, the wgpu buffer and byte offset of its 32-bit BufferFilledSize."""

    buffer: Any  # a wgpu.GPUBuffer
    location: int
    size: int
    counter: Any  # a wgpu.GPUBuffer
    counter_offset: int


def stream_vertices(plan: GSStreamPlan, so: ResolvedStreamOutput) -> tuple[int, ...]:
    """Per stream 0-3, the vertices of its primitive where the declaration writes a slot of it,
    else 0: a stream absent or writing no slot counts nothing (rules 10.3)."""
    written = set(so.streams)
    return tuple(plan.vertices[s] if s < len(plan.vertices) and s in written else 0
                 for s in range(STREAMS))


def entry_table(plan: GSStreamPlan, so: ResolvedStreamOutput
                ) -> tuple[dict[int, tuple[int, int]], np.ndarray]:
    """({slot: (first row, rows)}, the entries table: uint32 ``(rows, 4)``, at least one row),
    each declared slot's entries that are no gap in declaration order, each row (the member's
    component's word in its stream's record, the word within the slot's vertex, components,
    0)."""
    rows: list[tuple[int, int, int, int]] = []
    where: dict[int, tuple[int, int]] = {}
    for slot in so.slots:
        first = len(rows)
        for e in slot.entries:
            if e.is_gap:
                continue
            assert e.member is not None  # resolved for every entry but a gap
            word = plan.member_word(slot.stream, e.member.key) + e.start_component
            rows.append((word, e.byte_offset // 4, e.component_count, 0))
        where[slot.slot] = (first, len(rows) - first)
    table = np.array(rows or [(0, 0, 0, 0)], dtype=np.uint32).reshape(-1, 4)
    return where, table


@dataclass(frozen=True)
class TargetBindings:
    """Each distinct buffer bound once: ``data`` and ``counters`` (wgpu buffers, at most 4
    each), and per declared and bound slot, (its data binding, its counter binding)."""

    data: tuple
    counters: tuple
    slots: dict[int, tuple[int, int]]


def target_bindings(so: ResolvedStreamOutput,
                    targets: Mapping[int, GSTarget | None]) -> TargetBindings:
    """The bindings of the targets of ``so``'s declared slots (a target of a slot the
    declaration does not write is ignored: rules 9.8)."""
    data: list = []
    counters: list = []
    slots: dict[int, tuple[int, int]] = {}
    for s in so.slots:
        t = targets.get(s.slot)
        if t is None:
            continue
        d = next((k for k, b in enumerate(data) if b is t.buffer), None)
        if d is None:
            d = len(data)
            data.append(t.buffer)
        c = next((k for k, b in enumerate(counters) if b is t.counter), None)
        if c is None:
            c = len(counters)
            counters.append(t.counter)
        slots[s.slot] = (d, c)
    return TargetBindings(tuple(data), tuple(counters), slots)


def params_records(plan: GSStreamPlan, so: ResolvedStreamOutput,
                   targets: Mapping[int, GSTarget | None], bindings: TargetBindings,
                   entries: dict[int, tuple[int, int]], chunk: tuple[int, int],
                   stride_words: int, data_base: Sequence[int] = (0, 0, 0, 0),
                   rotate: bool = False) -> np.ndarray:
    """The ``GpuiaGSSO`` records of one chunk (``chunk``: its first invocation, its
    invocations; ``entries``: each slot's rows of :func:`entry_table`; ``data_base``: per
    data binding, the word its bound window starts at; ``rotate``: every slot stores each
    primitive's vertices rotated left by one), one per scan level
    (record ``L``'s ``level`` is ``L``), each ``stride_words`` words apart (a multiple of the
    uniform offset alignment): uint32 ``(levels, stride_words)``."""
    first, count = chunk
    levels = scan_levels(count)
    offsets = [sum(levels[:i]) for i in range(len(levels))]
    assert len(levels) <= MAX_LEVELS and stride_words >= PARAMS_WORDS
    records = np.zeros((len(levels), stride_words), np.uint32)
    records[:, _FIRST], records[:, _INVOCATIONS] = first, count
    records[:, _REGION_WORDS] = plan.region_words
    records[:, _MAX_APPENDS] = plan.max_vertex_count
    records[:, _RECORD_WORDS] = plan.record_words
    records[:, _LEVEL] = np.arange(len(levels))
    records[:, _TOP] = len(levels) - 1
    records[:, _TOTAL_AT] = sum(levels)
    records[:, _VERTICES:_VERTICES + STREAMS] = stream_vertices(plan, so)
    records[:, _LEVEL_OFFSET:_LEVEL_OFFSET + len(levels)] = offsets
    records[:, _LEVEL_LENGTH:_LEVEL_LENGTH + len(levels)] = levels
    records[:, _DATA_BASE:_DATA_BASE + STREAMS] = data_base
    for s in so.slots:
        t = targets.get(s.slot)
        data, counter = bindings.slots.get(s.slot, (0, 0))
        first_row, rows = entries[s.slot]
        values = {"declared": 1, "bound": int(t is not None), "stream": s.stream,
                  "stride": s.stride, "location": t.location if t else 0,
                  "size": t.size if t else 0, "data": data, "counter": counter,
                  "counter_word": t.counter_offset // 4 if t else 0, "entry_first": first_row,
                  "entry_count": rows, "rotate": int(rotate)}
        at = _SLOTS + s.slot * _SLOT_WORDS
        records[:, at:at + _SLOT_WORDS] = [values[name] for name in _SLOT_FIELDS]
    return records


def storage_binding_limit(caps) -> int:
    """The most bytes one storage binding holds on an adapter of ``caps`` (its largest storage
    binding, within its largest buffer)."""
    return min(caps.max_storage_buffer_binding_size, caps.max_buffer_size)


def check_binding(caps, what: str, nbytes: int) -> None:
    """UnsupportedError naming ``what`` when ``nbytes`` exceed one storage binding on an
    adapter of ``caps`` (:func:`storage_binding_limit`)."""
    limit = storage_binding_limit(caps)
    if nbytes > limit:
        raise UnsupportedError(f"the geometry shader's {what} needs {nbytes} bytes in one "
                               f"binding, more than this adapter's {limit}")
