"""Stream Output declarations, validated as CreateGraphicsPipelineState does (rules section 8).

:func:`resolve_stream_output` checks a :class:`~gpuia.d3d.so_desc.StreamOutputDesc` against the
vertex shader's output signature, or the geometry shader's per stream, and returns a
:class:`ResolvedStreamOutput`: per output slot, its stream, its stride and the entries writing into
it, each with its byte offset within a vertex record, the shader output it reads and the component
range. A vertex shader has stream 0 only (rules 8.12); a geometry shader's entries name outputs of
their own stream, and a slot takes one stream (rules 8.9, 13.7). The limits that differ by feature
level (rules 8.8-8.11) come from a :class:`~gpuia.d3d.feature_level.FeatureLevel` row (D3D12's by
default).

Every rejection is an :class:`~gpuia.errors.InvalidDescError` naming the entry index, the field,
the value and the rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import InvalidDescError
from .feature_level import FeatureLevel, feature_level
from .signature import Member, ShaderSignature
from .so_desc import SO_NO_RASTERIZED_STREAM, SODeclarationEntry, StreamOutputDesc

__all__ = ["SOEntry", "SOSlot", "ResolvedStreamOutput", "resolve_stream_output",
           "declared_sizes", "SO_BUFFER_SLOT_COUNT", "SO_BUFFER_MAX_STRIDE_IN_BYTES"]

SO_BUFFER_SLOT_COUNT = 4
"""D3D12_SO_BUFFER_SLOT_COUNT: the output slots 0-3, and the most buffer strides (rules 8.1)."""
SO_STREAM_COUNT = 4  # D3D11 / D3D12; a feature level may have fewer (its so_streams)
SO_BUFFER_MAX_STRIDE_IN_BYTES = 2048
"""D3D12_SO_BUFFER_MAX_STRIDE_IN_BYTES: the largest stride of an output slot (rules 8.8)."""


@dataclass(frozen=True)
class SOEntry:
    """One resolved declaration entry: a frozen value :func:`resolve_stream_output` makes.

    Arguments:
        index (int): the entry's position in the declaration.
        slot (int): its OutputSlot.
        byte_offset (int): where its first component goes within the slot's vertex record:
            the bytes of the slot's earlier entries, gaps included (rules 8.5).
        member (Member): the vertex shader output it reads, or None for a gap.
        start_component (int): StartComponent (0 for a gap).
        component_count (int): ComponentCount: the words it writes, or a gap skips.
    """

    index: int
    slot: int
    byte_offset: int  # within the slot's vertex record
    member: Member | None
    start_component: int
    component_count: int

    @property
    def is_gap(self) -> bool:
        """Whether the entry is a gap: it skips its bytes and leaves them untouched (rules
        8.4)."""
        return self.member is None


@dataclass(frozen=True)
class SOSlot:
    """One output slot the declaration writes: a frozen value :func:`resolve_stream_output`
    makes.

    Arguments:
        slot (int): the output slot, 0-3.
        stride (int): the bytes from one vertex record to the next: pBufferStrides[slot], or
            the declared size when no strides were given (rules 8.8).
        declared_size (int): the bytes the slot's entries cover, gaps included (at most 512,
            rules 8.9); bytes between it and the stride are left untouched.
        entries (tuple): the slot's :class:`SOEntry` values, in declaration order, at least one
            of them not a gap (rules 8.7).
        stream (int): the stream whose vertices the slot receives (rules 8.9): 0 for a vertex
            shader's declaration. Default 0.
    """

    slot: int
    stride: int
    declared_size: int
    entries: tuple[SOEntry, ...]
    stream: int = 0


@dataclass(frozen=True)
class ResolvedStreamOutput:
    """A validated declaration: a frozen value :func:`resolve_stream_output` makes.

    Arguments:
        slots (tuple): the :class:`SOSlot` of every slot the declaration writes, in slot order
            (empty for an empty declaration).
        rasterized_stream (int): RasterizedStream, 0-3 or ``SO_NO_RASTERIZED_STREAM``.
        stream_count (int): the streams the shader before Stream Output has: 1 for a vertex
            shader, 1-4 for a geometry shader. Default 1.
    """

    slots: tuple[SOSlot, ...]
    rasterized_stream: int
    stream_count: int = 1

    @property
    def rasterizes(self) -> bool:
        """Whether a stream is rasterized: RasterizedStream names one of the shader's streams.
        A vertex shader produces stream 0 only, so any other rasterized stream (1-3 or
        NO_RASTERIZED_STREAM) rasterizes nothing."""
        return self.rasterized_stream < self.stream_count

    @property
    def streams(self) -> tuple[int, ...]:
        """The streams the declaration writes, ascending (rules 8.9: each slot takes one)."""
        return tuple(sorted({s.stream for s in self.slots}))

    def slots_of(self, stream: int) -> tuple[SOSlot, ...]:
        """The slots a stream writes.

        Arguments:
            stream (int): a stream, 0-3.

        Returns:
            Its :class:`SOSlot` values, in slot order (empty when it writes none).
        """
        return tuple(s for s in self.slots if s.stream == stream)

    @property
    def empty(self) -> bool:
        """Whether the declaration writes nothing: no slot, and no SO statistics counted
        (rules 10.3)."""
        return not self.slots

    def slot(self, slot: int) -> SOSlot | None:
        """The slot ``slot`` of the declaration.

        Arguments:
            slot (int): an output slot number.

        Returns:
            Its :class:`SOSlot`, or None when the declaration does not write it.
        """
        for s in self.slots:
            if s.slot == slot:
                return s
        return None


def declared_sizes(entries: Iterable[SODeclarationEntry]) -> dict[int, int]:
    """Bytes per vertex declared for each output slot, gaps included (rules 8.5).

    Arguments:
        entries (iterable of SODeclarationEntry): the declaration's entries.

    Returns:
        A dict: output slot -> bytes, for every slot an entry names.
    """
    sizes: dict[int, int] = {}
    for e in entries:
        sizes[e.output_slot] = sizes.get(e.output_slot, 0) + 4 * e.component_count
    return sizes


def _rasterized_rule(fl: FeatureLevel) -> str:
    """Why a RasterizedStream is refused at ``fl`` (rules 8.10)."""
    streams = "0" if fl.so_streams == 1 else f"0-{fl.so_streams - 1}"
    if fl.so_no_rasterized_stream:
        return f"must be {streams} or NO_RASTERIZED_STREAM (rules 8.10)"
    return f"must be {streams} at {fl.label}, which has no NO_RASTERIZED_STREAM (rules 8.10)"


def _stream_rule(fl: FeatureLevel) -> str:
    """Why an entry's Stream is refused at ``fl`` (rules 8.1)."""
    if fl.so_streams == SO_STREAM_COUNT:
        return f"must be 0-{SO_STREAM_COUNT - 1} (rules 8.1)"
    return f"must be 0 at {fl.label}, which has one stream (rules 8.1, 8.10)"


def _entry_where(i: int, e: SODeclarationEntry) -> str:
    name = "gap" if e.is_gap else f"{e.semantic_name}{e.semantic_index}"
    return f"SO entry {i} ({name})"


def _check_entry_fields(where: str, e: SODeclarationEntry, fl: FeatureLevel,
                        stream_count: int | None) -> None:
    """Refuse an entry whose fields lie outside D3D's ranges or the level's (rules 8.1, 8.4),
    or whose stream the shader does not have (a vertex shader: stream 0 only, rules 8.12; a
    geometry shader: its ``stream_count`` streams, rules 13.7)."""
    if e.stream >= fl.so_streams:
        raise InvalidDescError(where, "Stream", e.stream, _stream_rule(fl))
    if stream_count is None and e.stream != 0:
        raise InvalidDescError(where, "Stream", e.stream,
                               "a vertex shader writes stream 0 only (rules 8.12)")
    if stream_count is not None and e.stream >= stream_count:
        raise InvalidDescError(where, "Stream", e.stream,
                               f"the geometry shader has {stream_count} output stream"
                               f"{'s' if stream_count > 1 else ''} (rules 13.7)")
    if e.output_slot >= SO_BUFFER_SLOT_COUNT:
        raise InvalidDescError(where, "OutputSlot", e.output_slot, "must be 0-3 (rules 8.1)")
    if e.component_count < 1:
        raise InvalidDescError(where, "ComponentCount", e.component_count,
                               "must be at least 1 (rules 8.1, 8.4)")
    if e.is_gap:
        if e.start_component != 0:
            raise InvalidDescError(where, "StartComponent", e.start_component,
                                   "must be 0 for a gap (rules 8.4)")
        if e.semantic_index != 0:
            raise InvalidDescError(where, "SemanticIndex", e.semantic_index,
                                   "must be 0 for a gap (rules 8.4)")
        return
    if e.start_component > 3:
        raise InvalidDescError(where, "StartComponent", e.start_component,
                               "must be 0-3 (rules 8.1)")
    if e.component_count > 4:
        raise InvalidDescError(where, "ComponentCount", e.component_count,
                               "must be 1-4 (rules 8.1)")


def _entry_member(where: str, i: int, e: SODeclarationEntry,
                  outputs: dict[tuple[str, int], Member],
                  used: dict[str, list[tuple[int, int, int]]], producer: str) -> Member:
    """The output entry ``i`` (not a gap) reads, refused when there is none (rules 8.3), when
    the entry reaches past its components (rules 8.2) or overlaps an earlier entry's components
    of the same output (rules 8.6); its components are then added to ``used`` (output key ->
    [(start, end, entry)]). ``producer`` names what has the outputs in the message."""
    assert e.semantic_name is not None  # not a gap
    key = f"{e.semantic_name.upper()}{e.semantic_index}"
    member = outputs.get((e.semantic_name.upper(), e.semantic_index))
    if member is None:
        names = ", ".join(f"{n}{i}" for n, i in outputs) or "none"
        raise InvalidDescError(where, "SemanticName", e.semantic_name,
                               f"{producer} has no output with semantic "
                               f"{e.semantic_name} index {e.semantic_index} (outputs: "
                               f"{names}; rules 8.3)")
    end = e.start_component + e.component_count
    if end > member.components:
        raise InvalidDescError(where, "ComponentCount", e.component_count,
                               f"StartComponent {e.start_component} + ComponentCount "
                               f"{e.component_count} exceeds the {member.components} "
                               f"components of output {key} (rules 8.2)")
    for start, stop, j in used.get(key, []):
        if e.start_component < stop and start < end:
            raise InvalidDescError(where, "StartComponent", e.start_component,
                                   f"components {e.start_component}..{end - 1} of {key} "
                                   f"overlap SO entry {j} (rules 8.6)")
    used.setdefault(key, []).append((e.start_component, end, i))
    return member


def _producers(signature: ShaderSignature, streams: Sequence[Sequence[Member]] | None,
               ) -> list[tuple[str, dict[tuple[str, int], Member]]]:
    """Per stream, what names its outputs in messages and its outputs by (name, index): the
    vertex shader's one stream, or each of the geometry shader's."""
    # Matched on (name, index) pairs: a SemanticName ending in digits is not split (rule 3.7).
    if streams is None:
        return [("the vertex shader", {(m.semantic, m.index): m for m in signature.outputs})]
    return [(f"stream {s} of the geometry shader", {(m.semantic, m.index): m for m in record})
            for s, record in enumerate(streams)]


def _check_slot_stream(where: str, e: SODeclarationEntry, slot_stream: dict[int, tuple]) -> None:
    """Refuse an entry whose slot already takes another stream (rules 8.9); else note its
    slot's stream (``slot_stream``: slot -> (stream, first entry))."""
    stream, first = slot_stream.setdefault(e.output_slot, (e.stream, where))
    if stream != e.stream:
        raise InvalidDescError(where, "OutputSlot", e.output_slot,
                               f"slot {e.output_slot} takes stream {stream} ({first}): a buffer "
                               f"takes one stream only (rules 8.9)")


def _entries_by_slot(desc: StreamOutputDesc, signature: ShaderSignature, fl: FeatureLevel,
                     streams: Sequence[Sequence[Member]] | None = None,
                     ) -> tuple[dict[int, list[SOEntry]], list[int], dict[int, int]]:
    """Every entry checked and resolved, by output slot, each slot's declared bytes and its
    stream: the entries' offsets are the sums of the earlier entries of their slot (rules 8.5).
    Refuses, as :func:`resolve_stream_output` says, an entry, a slot fed by two streams, or more
    named components in a stream than the level's (rules 8.9)."""
    producers = _producers(signature, streams)
    # stream -> output key -> [(start, end, entry)]: entries of one stream may not overlap
    used: dict[int, dict[str, list[tuple[int, int, int]]]] = {}
    offsets = [0] * SO_BUFFER_SLOT_COUNT
    per_slot: dict[int, list[SOEntry]] = {}
    slot_stream: dict[int, tuple] = {}
    components = [0] * SO_STREAM_COUNT
    for i, e in enumerate(desc.so_declaration):
        where = _entry_where(i, e)
        _check_entry_fields(where, e, fl, None if streams is None else len(streams))
        _check_slot_stream(where, e, slot_stream)
        member = None
        if not e.is_gap:
            producer, outputs = producers[e.stream]
            member = _entry_member(where, i, e, outputs, used.setdefault(e.stream, {}), producer)
            components[e.stream] += e.component_count
        per_slot.setdefault(e.output_slot, []).append(SOEntry(
            i, e.output_slot, offsets[e.output_slot], member, e.start_component,
            e.component_count))
        offsets[e.output_slot] += 4 * e.component_count
    for s, count in enumerate(components):
        if count > fl.so_components:
            raise InvalidDescError("StreamOutput", "NumEntries", count,
                                   f"more than {fl.so_components} components in stream {s} at "
                                   f"{fl.label} (rules 8.9)")
    return per_slot, offsets, {slot: s for slot, (s, _) in slot_stream.items()}


def _check_one_entry_per_slot(desc: StreamOutputDesc, per_slot: dict[int, list[SOEntry]],
                              fl: FeatureLevel) -> None:
    """At a level whose slots take one entry each when several are used (10_x), refuse a
    second entry in a slot (rules 8.11)."""
    for slot, entries_of in sorted(per_slot.items()):
        if len(entries_of) > 1:
            first, second = entries_of[0], entries_of[1]
            raise InvalidDescError(
                _entry_where(second.index, desc.so_declaration[second.index]), "OutputSlot",
                slot, f"slot {slot} already holds SO entry {first.index}: with several "
                      f"output slots, each takes exactly one entry (a gap counts) at "
                      f"{fl.label} (rules 8.11)")


def _resolve_slot(slot: int, entries: tuple[SOEntry, ...], declared: int,
                  strides: tuple[int, ...], n_slots: int, fl: FeatureLevel,
                  stream: int = 0) -> SOSlot:
    """One used slot with its stride: refused when it receives only gaps (rules 8.7), declares
    more bytes than one buffer takes (rules 8.9), or has no stride where one is needed, or one
    too small, not a multiple of 4 or too large (rules 8.8)."""
    if all(x.is_gap for x in entries):
        raise InvalidDescError(f"SO slot {slot}", "OutputSlot", slot,
                               "receives only gaps (rules 8.7)")
    if declared > fl.so_buffer_bytes:
        raise InvalidDescError(f"SO slot {slot}", "ComponentCount", declared // 4,
                               f"{declared} bytes per vertex exceed the "
                               f"{fl.so_buffer_bytes} one buffer takes at {fl.label} "
                               f"(SO_BUFFER_MAX_WRITE_WINDOW_IN_BYTES; rules 8.9)")
    if strides:
        stride = strides[slot] if slot < len(strides) else 0
        if stride == 0:
            raise InvalidDescError(f"SO slot {slot}", "pBufferStrides", stride,
                                   "a used slot needs a stride (rules 8.8)")
    elif n_slots > 1:
        raise InvalidDescError(f"SO slot {slot}", "pBufferStrides", None,
                               "strides are required when several slots are used "
                               "(rules 8.8)")
    else:
        stride = declared
    if stride < declared:
        raise InvalidDescError(f"SO slot {slot}", "pBufferStrides", stride,
                               f"smaller than the {declared} bytes declared for the slot "
                               f"(rules 8.8)")
    if stride % 4:
        raise InvalidDescError(f"SO slot {slot}", "pBufferStrides", stride,
                               "not a multiple of 4 (rules 8.8)")
    if stride > SO_BUFFER_MAX_STRIDE_IN_BYTES:
        raise InvalidDescError(f"SO slot {slot}", "pBufferStrides", stride,
                               f"exceeds {SO_BUFFER_MAX_STRIDE_IN_BYTES} (rules 8.8)")
    return SOSlot(slot, stride, declared, entries, stream)


def resolve_stream_output(desc: StreamOutputDesc, signature: ShaderSignature,
                          level: FeatureLevel | str | None = None, *,
                          streams: Sequence[Sequence[Member]] | None = None,
                          ) -> ResolvedStreamOutput:
    """Validate a Stream Output declaration for a vertex shader, or for a geometry shader's
    streams, and lay out its slots.

    With no ``streams``, the declaration is a vertex shader's: entries of stream 0 only (rules 8.12)
    name its outputs. With ``streams``, an entry of stream s names an output of the geometry
    shader's stream s (rules 8.3, 13.7), and each slot takes one stream (rules 8.9). Outputs are
    named by semantic name (ignoring case) and index (rules 8.3), each entry's offset is the sum of
    the earlier entries of its slot (rules 8.5). At feature level 11_0 and in D3D12 the strides of
    slots the declaration does not write are not checked (rules 8.8); at 10_0 and 10_1 a nonzero one
    is refused, and with several slots each slot takes exactly one entry (rules 8.11). The numbers
    (streams, components, bytes per buffer) are the level's (rules 8.9, 8.10).

    Arguments:
        desc (StreamOutputDesc): the declaration, strides and rasterized stream.
        signature (ShaderSignature): the vertex shader's signature; without ``streams`` its
            ``outputs`` are what entries may name.
        level: the feature level (anything :func:`~gpuia.d3d.feature_level.feature_level` takes;
            None, the default: D3D12).
        streams: the geometry shader's output record of each of its streams, stream 0 first: the
            :class:`~gpuia.d3d.signature.Member` values entries of that stream may name; None
            (the default): no geometry shader.

    Returns:
        The :class:`ResolvedStreamOutput`.

    Raises:
        InvalidDescError: ``desc`` is no StreamOutputDesc, or ``level`` no feature level;
            RasterizedStream is not a stream of the level or NO_RASTERIZED_STREAM where the level
            has it (rules 8.10); more than 4 strides, or an entry's Stream past the level's streams,
            OutputSlot past 3, StartComponent past 3 or ComponentCount outside 1-4 (rules 8.1; a
            gap's ComponentCount may exceed 4); an entry of stream 1-3 without a geometry shader
            (rules 8.12), or of a stream the geometry shader does not have (rules 13.7); an entry in
            a slot that takes another stream (rules 8.9); a gap with a StartComponent or
            SemanticIndex (rules 8.4); an entry naming no output of its stream (rules 8.3), reaching
            past its output's components (rules 8.2) or overlapping another entry's components of
            the same output (rules 8.6); more named components in a stream than the level's (128; 64
            at 10_x) or more declared bytes in a slot (512; 256 at 10_x; rules 8.9); a second entry
            in a slot when several slots are used, at 10_x (rules 8.11); a slot of gaps only (rules
            8.7); a used slot without a stride, several slots without strides, a stride below the
            slot's declared size, not a multiple of 4 or above 2048, or at 10_x a nonzero stride for
            a slot no entry writes (rules 8.8). The error names the entry (``SO entry 2 (COLOR0)``)
            or slot, the field, the value and the rule, and the feature level where the rule is the
            level's.
    """
    if not isinstance(desc, StreamOutputDesc):
        raise InvalidDescError("StreamOutput", None, desc, "expected a StreamOutputDesc")
    fl = feature_level(level)
    rs = desc.rasterized_stream
    if not (rs < fl.so_streams or rs == SO_NO_RASTERIZED_STREAM and fl.so_no_rasterized_stream):
        raise InvalidDescError("StreamOutput", "RasterizedStream", rs,
                               _rasterized_rule(fl))
    if len(desc.buffer_strides) > SO_BUFFER_SLOT_COUNT:
        raise InvalidDescError("StreamOutput", "NumStrides", len(desc.buffer_strides),
                               f"at most {SO_BUFFER_SLOT_COUNT} buffer strides (rules 8.1)")
    per_slot, offsets, slot_streams = _entries_by_slot(desc, signature, fl, streams)
    if fl.so_one_entry_per_buffer and len(per_slot) > 1:
        _check_one_entry_per_slot(desc, per_slot, fl)
    strides = desc.buffer_strides
    if fl.so_strides_of_used_slots_only:
        for slot, stride in enumerate(strides):
            if stride and slot not in per_slot:
                raise InvalidDescError(f"SO slot {slot}", "pBufferStrides", stride,
                                       f"a stride for a slot no entry writes, refused at "
                                       f"{fl.label} (rules 8.8)")
    slots = [_resolve_slot(slot, tuple(per_slot[slot]), offsets[slot], strides, len(per_slot), fl,
                           slot_streams[slot])
             for slot in sorted(per_slot)]
    return ResolvedStreamOutput(tuple(slots), rs, 1 if streams is None else len(streams))
