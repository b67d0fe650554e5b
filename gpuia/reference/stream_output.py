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

The outputs come from the vertex shader stage (:mod:`gpuia.reference.vertex`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..d3d.so_declaration import ResolvedStreamOutput
from .ia import IAResult

__all__ = ["SOTarget", "SOResult", "stream_output"]


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
        written_per_draw (list): the primitives each draw wrote, one entry per draw up to the
            last one that delivered a vertex.
        shader_words (dict): reference results of a real shader only: per slot, a boolean mask
            over the buffer's 32-bit words, true where a float output the shader computed was
            written, which a comparison with a GPU allows a stated tolerance (shader arithmetic
            is not bit-exact across back ends); only slots with such a word have an entry.
    """

    buffers: dict[int, bytes]
    filled_size: dict[int, int]
    statistics: dict[str, int] = field(default_factory=dict)
    written_per_draw: list[int] = field(default_factory=list)
    shader_words: dict[int, np.ndarray] = field(default_factory=dict)


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
    buffers = {s: bytearray(t.data) for s, t in targets.items() if t is not None}
    filled = {s: t.filled_size for s, t in targets.items() if t is not None}
    vpp = ia.topology.vertices
    written_total = needed_total = 0
    overflowed = False
    per_draw = []
    computed_at = {s: np.zeros(len(b) // 4, bool) for s, b in buffers.items()} if computed \
        else {}
    n_draws = int(ia.draw.max()) + 1 if len(ia) else 0
    for d in range(n_draws):
        prims = ia.primitives[ia.primitive_draw == d] if ia.primitives.shape[0] else ia.primitives
        needed = int(prims.shape[0])
        written = 0 if (overflowed or so.empty) else needed
        for slot in so.slots:
            if slot.slot not in buffers:
                written = 0
                continue
            room = len(buffers[slot.slot]) - filled[slot.slot]
            written = min(written, max(room, 0) // (vpp * slot.stride))
        if not so.empty:
            overflowed |= written < needed
            needed_total += needed
            written_total += written
        per_draw.append(written)
        if written == 0:
            continue
        invocations = prims[:written].reshape(-1)
        n = invocations.shape[0]
        for slot in so.slots:
            buf = buffers[slot.slot]
            # The written vertices as rows of stride bytes (BufferFilledSize, strides and
            # offsets are multiples of 4, and `written` keeps them inside the buffer).
            first, width = filled[slot.slot] // 4, slot.stride // 4
            rows = np.frombuffer(buf, dtype="<u4", count=len(buf) // 4)[
                first:first + n * width].reshape(n, width)
            for e in slot.entries:
                if e.is_gap:
                    continue
                assert e.member is not None  # resolved for every entry but a gap
                at = slice(e.byte_offset // 4, e.byte_offset // 4 + e.component_count)
                rows[:, at] = outputs[e.member.key][invocations, e.start_component:
                                                    e.start_component + e.component_count]
                if e.member.key in computed and e.member.type == "float":
                    computed_at[slot.slot][first:first + n * width].reshape(n, width)[:, at] = True
            filled[slot.slot] += n * slot.stride
    return SOResult({s: bytes(b) for s, b in buffers.items()}, filled,
                    {"NumPrimitivesWritten": written_total,
                     "PrimitivesStorageNeeded": needed_total}, per_draw,
                    {s: mask for s, mask in computed_at.items() if mask.any()})
