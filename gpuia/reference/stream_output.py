"""The CPU reference Stream Output: the buffers, filled sizes and statistics D3D produces.

Given what the Input Assembler delivered (:class:`~gpuia.reference.IAResult`, which already lists
every complete primitive in D3D's order, strips expanded and adjacency dropped), the vertex
shader's outputs per invocation, a validated declaration and the bound targets,
:func:`stream_output` writes draw by draw (rules section 9):

* every complete primitive goes to every slot of stream 0 at ``filled + v * stride``, vertex by
  vertex, each entry's components as raw 32-bit words at its offset; gaps skip their bytes and
  leave them untouched;
* a primitive is written only if it fits in every declared slot; a declared slot without a
  target is full (9.8). Once a primitive did not fit, nothing more is written until the targets
  are set again (9.7, "writes to all buffers of that stream stop for the rest of the draw(s)");
* BufferFilledSize advances by what was written; NumPrimitivesWritten counts written primitives,
  PrimitivesStorageNeeded every primitive (10.1, 10.2).

A geometry shader's streams go through :func:`write_streams`: each stream's primitives to the
slots of its own stream, with its own overflow and statistics; streams do not affect each other
(13.8). A stream the declaration writes no slot of counts nothing, as a draw without a
declaration counts nothing (10.3; inferred: no source speaks of such a stream).

The outputs come from the vertex shader stage (:mod:`gpuia.reference.vertex`) or the geometry
shader stage (:mod:`gpuia.reference.geometry`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..d3d.so_declaration import ResolvedStreamOutput, SOSlot
from .ia import IAResult

__all__ = ["SOTarget", "SOResult", "StreamPrimitives", "stream_output", "write_streams",
           "vertex_stream"]

STREAMS = 4  # SO_STATISTICS_STREAM0-3


@dataclass
class SOTarget:
    """A bound D3D12_STREAM_OUTPUT_BUFFER_VIEW, as the reference sees it.

    Arguments:
        data (bytes): the buffer's initial contents, SizeInBytes bytes long (any bytes-like
            object :func:`bytearray` copies).
        filled_size (int): the initial BufferFilledSize, a multiple of 4 (the case reader
            checks it; rules 9.6). Default 0.
    """

    data: bytes
    filled_size: int = 0

    @property
    def size(self) -> int:
        """SizeInBytes: the length of ``data``."""
        return len(self.data)


@dataclass
class SOResult:
    """Stream Output's results: every target's bytes and BufferFilledSize, the statistics.
    :func:`stream_output` makes it; the GPU harness reads the same fields back from a GPU
    (:func:`gpuia.harness.run_gpu.run_case_so_gpu`).

    Arguments:
        buffers (dict): output slot -> the target's bytes after the draws (SizeInBytes long),
            for every bound target, written or not.
        filled_size (dict): output slot -> its BufferFilledSize after the draws.
        statistics (dict): ``NumPrimitivesWritten`` and ``PrimitivesStorageNeeded`` of stream
            0 over the draws (rules 10.1-10.3).
        written_per_draw (list): the primitives stream 0 wrote in each draw, one entry per
            draw up to the last one that delivered a vertex.
        shader_words (dict): reference results of a real shader only: per slot, a boolean mask
            over the buffer's 32-bit words, true where a float output the shader computed was
            written, which a comparison with a GPU allows a stated tolerance (shader arithmetic
            is not bit-exact across back ends); only slots with such a word have an entry.
        streams (list): the statistics of streams 0-3, as ``statistics`` holds stream 0's
            (rules 10.1, 13.8); :func:`write_streams` fills it.
        uavs (dict): a GPU run's only: ``u1``, ``u1 space2`` -> the case's UAV's whole buffer
            after the run's draws (``gpuia.harness.case_uavs``); empty for the reference and
            for a case without UAVs.
    """

    buffers: dict[int, bytes]
    filled_size: dict[int, int]
    statistics: dict[str, int] = field(default_factory=dict)
    written_per_draw: list[int] = field(default_factory=list)
    shader_words: dict[int, np.ndarray] = field(default_factory=dict)
    streams: list[dict[str, int]] = field(default_factory=list)
    uavs: dict[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamPrimitives:
    """One stream's complete primitives, as Stream Output receives them.

    Arguments:
        primitives (numpy.ndarray): int64 ``(primitives, vertices)``: each primitive's
            vertices, as rows of ``outputs``, in D3D's order.
        draw (numpy.ndarray): per primitive, the draw that made it (non-decreasing).
        outputs (Mapping): output key -> uint32 bit patterns ``(rows, components)``.
        draws (int): the draws of the sequence (primitives of a draw are written together,
            and the per-draw counts have one entry per draw).
    """

    primitives: np.ndarray
    draw: np.ndarray
    outputs: Mapping[str, np.ndarray]
    draws: int

    @property
    def vertices(self) -> int:
        """The vertices of one primitive."""
        return int(self.primitives.shape[1])


def vertex_stream(ia: IAResult, outputs: Mapping[str, np.ndarray]) -> StreamPrimitives:
    """Stream 0 of a pipeline without a geometry shader.

    Arguments:
        ia (IAResult): what the Input Assembler delivered, its primitives included.
        outputs (Mapping): the vertex shader's outputs, one row per invocation.

    Returns:
        The :class:`StreamPrimitives` of the IA's complete primitives over those outputs.
    """
    return StreamPrimitives(ia.primitives, ia.primitive_draw, outputs, ia.draw_count)


def stream_output(ia: IAResult, so: ResolvedStreamOutput, outputs: Mapping[str, np.ndarray],
                  targets: Mapping[int, SOTarget | None],
                  computed: frozenset = frozenset()) -> SOResult:
    """Write the IA's primitives to the targets, as the module docstring states (rules
    section 9). The targets are bound for this call: overflow in one draw stops the writes of
    every later draw of the call (rules 9.7). An empty declaration writes nothing and counts no
    statistics (rules 10.3); a bound target whose slot the declaration does not write is
    returned unchanged (rules 9.8). The inputs are not modified.

    Arguments:
        ia (IAResult): what the Input Assembler delivered, its primitives included.
        so (ResolvedStreamOutput): the validated declaration
            (:func:`gpuia.d3d.so_declaration.resolve_stream_output`).
        outputs: output key -> uint32 bit patterns ``(n, components)`` per invocation
            (:mod:`gpuia.reference.vertex`); every output an entry names
            must be there.
        targets: output slot -> :class:`SOTarget`; None or absent is an unbound slot, which
            the declaration's writes see as full (rules 9.8).
        computed: output keys whose float components a real shader computed; the words they
            fill are listed in :attr:`SOResult.shader_words`. Default: none.

    Returns:
        The :class:`SOResult`.

    Raises:
        KeyError: ``outputs`` lacks an output that a written entry names.
    """
    return write_streams(so, [vertex_stream(ia, outputs)], targets, computed)


def write_streams(so: ResolvedStreamOutput, streams: Sequence[StreamPrimitives | None],
                  targets: Mapping[int, SOTarget | None],
                  computed: frozenset = frozenset()) -> SOResult:
    """Write each stream's primitives to the slots of its stream (rules section 9, 13.8):
    draw by draw, each stream on its own, with :func:`stream_output`'s rules per stream. The
    inputs are not modified.

    Arguments:
        so (ResolvedStreamOutput): the validated declaration; a slot's ``stream`` says which
            primitives it takes.
        streams: stream 0's :class:`StreamPrimitives` first, then streams 1-3; None or absent
            for a stream the shader does not have.
        targets: output slot -> :class:`SOTarget`; None or absent is an unbound slot.
        computed: output keys whose float components a real shader computed (see
            :func:`stream_output`).

    Returns:
        The :class:`SOResult`, with every stream's statistics in ``streams``.

    Raises:
        KeyError: a stream's ``outputs`` lacks an output that a written entry names.
    """
    state = _Writer(targets, computed)
    draws = max((s.draws for s in streams if s is not None), default=0)
    per_stream = []
    for index in range(STREAMS):
        stream = streams[index] if index < len(streams) else None
        slots = so.slots_of(index)
        per_stream.append(state.write(stream, slots, draws) if stream is not None and slots
                          else (0, 0, [0] * draws))
    counts = [{"NumPrimitivesWritten": w, "PrimitivesStorageNeeded": n} for w, n, _ in per_stream]
    return SOResult({s: bytes(b) for s, b in state.buffers.items()}, state.filled, counts[0],
                    per_stream[0][2],
                    {s: mask for s, mask in state.computed_at.items() if mask.any()}, counts)


class _Writer:
    """The targets' bytes and filled sizes while streams are written (one writer per call)."""

    def __init__(self, targets: Mapping[int, SOTarget | None], computed: frozenset):
        self.buffers = {s: bytearray(t.data) for s, t in targets.items() if t is not None}
        self.filled = {s: t.filled_size for s, t in targets.items() if t is not None}
        self.computed = computed
        self.computed_at = ({s: np.zeros(len(b) // 4, bool) for s, b in self.buffers.items()}
                            if computed else {})

    def write(self, stream: StreamPrimitives, slots: tuple[SOSlot, ...],
              draws: int) -> tuple[int, int, list[int]]:
        """One stream into its slots, draw by draw: (written, needed, written per draw). Once a
        primitive did not fit, nothing more of the stream is written (rules 9.7)."""
        written_total = needed_total = 0
        overflowed = False
        per_draw = []
        for d in range(draws):
            prims = stream.primitives[stream.draw == d]
            needed = int(prims.shape[0])
            written = 0 if overflowed else needed
            for slot in slots:
                if slot.slot not in self.buffers:
                    written = 0  # a declared slot without a target is full (rules 9.8)
                    continue
                room = len(self.buffers[slot.slot]) - self.filled[slot.slot]
                written = min(written, max(room, 0) // (stream.vertices * slot.stride))
            overflowed |= written < needed
            needed_total += needed
            written_total += written
            per_draw.append(written)
            if written:
                self._rows(prims[:written].reshape(-1), slots, stream.outputs)
        return written_total, needed_total, per_draw

    def _rows(self, rows: np.ndarray, slots: tuple[SOSlot, ...],
              outputs: Mapping[str, np.ndarray]) -> None:
        """Write the given output rows, one vertex record each, at every slot's filled size."""
        n = rows.shape[0]
        for slot in slots:
            buf = self.buffers[slot.slot]
            # The written vertices as rows of stride bytes (BufferFilledSize, strides and
            # offsets are multiples of 4, and the fit keeps them inside the buffer).
            first, width = self.filled[slot.slot] // 4, slot.stride // 4
            words = np.frombuffer(buf, dtype="<u4", count=len(buf) // 4)[
                first:first + n * width].reshape(n, width)
            for e in slot.entries:
                if e.is_gap:
                    continue
                assert e.member is not None  # resolved for every entry but a gap
                at = slice(e.byte_offset // 4, e.byte_offset // 4 + e.component_count)
                words[:, at] = outputs[e.member.key][rows, e.start_component:
                                                     e.start_component + e.component_count]
                if e.member.key in self.computed and e.member.type == "float":
                    self.computed_at[slot.slot][first:first + n * width].reshape(
                        n, width)[:, at] = True
            self.filled[slot.slot] += n * slot.stride
