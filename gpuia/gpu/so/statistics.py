"""Stream Output's statistics and overflow state, on the GPU and as the host knows them.

The GPU keeps them in two buffers of each :class:`~gpuia.gpu.so.engine.SOEngine`: the SO state
(``SO_STATE``: what the last prepare step wrote, the overflow flag, each slot's BufferFilledSize
before the draw) and the statistics, NumPrimitivesWritten and PrimitivesStorageNeeded as 64-bit
values, each two 32-bit words, low first (:func:`stats_words`, :func:`stats_value`).

:func:`prepare_step` is the prepare step of ``gpuia_so_prepare`` (rules 9.7, 9.8, 10.1, 10.2)
on the host: the same rules, so a draw the host prepares writes what the GPU's would.
:class:`HostState` is the host's copy of what the prepare step reads where it knows it: the
value of each of gpuia's own counters, the overflow flag and the statistics. Set by
SOSetTargets, advanced by each draw the host prepares, learnt again from a readback; a draw the
GPU counts, or a target with the application's own counter buffer (which anything may write),
makes them unknown, and an unknown value is never guessed.
"""

from __future__ import annotations

from collections.abc import Callable

from ...d3d.so_declaration import ResolvedStreamOutput
from ...wgsl.blocks import SO_STATE, SO_STATS
from ...wgsl.so_pass import SO_STATE_WORDS
from ..cache import remember

__all__ = ["STATE_WRITTEN", "STATE_OVERFLOWED", "STATE_BASE", "STATE_BYTES", "STATS_BYTES",
           "PrepareResult", "stats_words", "stats_value", "prepare_step", "HostState"]

STATE_WRITTEN, STATE_OVERFLOWED, STATE_BASE = (SO_STATE.word(name) for name in (
    "written", "overflowed", "base"))
"""Words of the SO state buffer: primitives written by the last draw, the overflow flag, and
from ``STATE_BASE`` on each slot's BufferFilledSize before it."""
STATE_BYTES = 4 * SO_STATE_WORDS
"""Bytes of the SO state buffer."""
STATS_BYTES = 4 * SO_STATS.words()
"""Bytes of the statistics buffer (:data:`gpuia.wgsl.blocks.SO_STATS`): two 64-bit values,
each two 32-bit words, low first."""
_STATS_WORDS = tuple(SO_STATS.word(n) for n in ("written_lo", "written_hi", "needed_lo",
                                                 "needed_hi"))

_U32 = 0xFFFFFFFF

PrepareResult = tuple[int, bool, dict[int, int], tuple[int, int]]
"""What a prepare step computes: (primitives written, overflowed after, {slot: BufferFilledSize
before}, (NumPrimitivesWritten, PrimitivesStorageNeeded) after)."""


def stats_words(stats: tuple[int, int]) -> tuple[int, int, int, int]:
    """The four 32-bit words the GPU keeps for (NumPrimitivesWritten, PrimitivesStorageNeeded),
    both under 2**64."""
    words = [0] * 4
    for w, v in zip(_STATS_WORDS, (stats[0] & _U32, stats[0] >> 32, stats[1] & _U32,
                                   stats[1] >> 32), strict=True):
        words[w] = v
    return words[0], words[1], words[2], words[3]


def stats_value(words) -> tuple[int, int]:
    """(NumPrimitivesWritten, PrimitivesStorageNeeded) from the four words of the statistics
    buffer (a uint32 array read back)."""
    wl, wh, nl, nh = (int(words[w]) for w in _STATS_WORDS)
    return wl | wh << 32, nl | nh << 32


def prepare_step(so: ResolvedStreamOutput, targets: dict, vertices: int, needed: int,
                 overflowed: bool, stats: tuple[int, int],
                 filled_of: Callable) -> PrepareResult | None:
    """The prepare step of a draw needing ``needed`` primitives of ``vertices`` vertices, on
    the host, from the overflow flag, the statistics and ``filled_of(binding)`` (each bound
    slot's BufferFilledSize, or None when it is not known): its :data:`PrepareResult`, or None
    when a BufferFilledSize is not known. The rules of ``gpuia_so_prepare`` (9.7, 9.8, 10.1,
    10.2): an overflow writes nothing; an unbound declared slot is full; the statistics wrap
    at 2**64."""
    written = 0 if overflowed else needed
    filled: dict[int, int] = {}
    for s in so.slots:
        t = targets.get(s.slot)
        if t is None:
            written = 0  # no target: full (9.8)
            continue
        f = filled_of(t)
        if f is None:
            return None
        size = t.view.size_in_bytes
        room = size - f if f <= size else 0
        written = min(written, room // (vertices * s.stride))
        filled[s.slot] = f
    after = ((stats[0] + written) % (1 << 64), (stats[1] + needed) % (1 << 64))
    return written, overflowed or written < needed, filled, after


class HostState:
    """What the host knows of the prepare step's inputs (module docstring): ``counters``,
    id(counter wgpu buffer) -> (that buffer, its value), for gpuia's own counters only;
    ``overflowed`` and ``stats`` (NumPrimitivesWritten, PrimitivesStorageNeeded), None where
    only the GPU knows them. A new context's are known: no overflow, statistics 0."""

    def __init__(self):
        self.counters: dict[int, tuple] = {}
        self.overflowed: bool | None = False
        self.stats: tuple[int, int] | None = (0, 0)

    def counter(self, t) -> int | None:
        """The BufferFilledSize of the bound target ``t`` (an SOTargetBinding), or None."""
        known = self.counters.get(id(t.counter))
        return known[1] if known is not None and known[0] is t.counter else None

    def set_counter(self, counter, value: int | None) -> None:
        """What the host knows of the counter wgpu buffer ``counter``: ``value``, or nothing."""
        if value is None:
            self.counters.pop(id(counter), None)
        else:
            remember(self.counters, id(counter), (counter, value))

    def prepare(self, so: ResolvedStreamOutput, targets: dict, vertices: int,
                needed: int) -> PrepareResult | None:
        """:func:`prepare_step` from what the host knows, or None where it does not."""
        if self.overflowed is None or self.stats is None:
            return None
        return prepare_step(so, targets, vertices, needed, self.overflowed, self.stats,
                            self.counter)

    def advance(self, so: ResolvedStreamOutput, targets: dict, vertices: int,
                result: PrepareResult) -> None:
        """After a draw whose prepare step :meth:`prepare` computed (``result``)."""
        written, overflowed, filled, stats = result
        for s in so.slots:
            t = targets.get(s.slot)
            if t is not None:
                self.set_counter(t.counter, filled[s.slot] + written * vertices * s.stride)
        self.overflowed, self.stats = overflowed, stats

    def forget(self, so: ResolvedStreamOutput, targets: dict) -> None:
        """After a draw the GPU counted: its targets' counters, the flag and the statistics
        are the GPU's alone."""
        for s in so.slots:
            t = targets.get(s.slot)
            if t is not None:
                self.set_counter(t.counter, None)
        self.overflowed = self.stats = None
