"""A draw's SO uniform block (``gpuia.wgsl.blocks.SO_BLOCK``): its words, filled on the host.

:func:`fill_so_block` writes every word the passes read, so a block reused from the ring holds
nothing of an earlier draw: the instances, the primitives per instance and those needed (0
where the GPU index pass's args fill them), the first index and the index buffer view of an
indexed draw in the closed-form order, each bound slot's BufferLocation, SizeInBytes and
counter offset, and, for a draw the host prepares, what the prepare step would have stored.
"""

from __future__ import annotations

from ...d3d.so_declaration import ResolvedStreamOutput
from ...wgsl.blocks import SO_BLOCK, SO_SLOT
from ...wgsl.so_pass import SO_HEADER_WORDS, SO_SLOT_WORDS
from .plan import SODrawPlan
from .statistics import stats_words

__all__ = ["SO_PRIMITIVES", "SO_NEEDED", "SO_T_BASE", "SO_T_END", "slot_word", "fill_so_block"]

(_SO_INSTANCES, SO_PRIMITIVES, SO_NEEDED, _SO_START_INDEX, _SO_IB_BASE, _SO_IB_SIZE,
 SO_T_BASE, SO_T_END, _SO_FUSED, _SO_STATS) = (SO_BLOCK.word(name) for name in (
    "instance_count", "prims_per_instance", "needed", "start_index", "ib_base", "ib_size",
    "t_base", "t_end", "fused", "stats"))
"""Words of the SO block: the primitives per instance and needed (the index pass's args fill
them on the GPU), the first and past-the-last output vertex of a chunk."""
_SLOT_LOCATION, _SLOT_SIZE, _SLOT_COUNTER, _SLOT_FILLED = (SO_SLOT.word(name) for name in (
    "location", "size", "counter", "filled"))


def slot_word(slot: int, word: str) -> int:
    """The word of the SO block holding ``word`` (an ``SO_SLOT`` field name) of SO slot
    ``slot``'s entry."""
    return SO_HEADER_WORDS + SO_SLOT_WORDS * slot + SO_SLOT.word(word)


def fill_so_block(block, so: ResolvedStreamOutput, targets: dict, draw, plan: SODrawPlan,
                  primitives: int, gpu_counts: bool, index) -> None:
    """Fill ``block`` (the uint32 words of the draw's SO block in the ring) for ``draw`` under
    ``plan``, with ``primitives`` per instance (0 where ``gpu_counts``: the index pass's args
    are copied there on the GPU), the bound ``targets`` and index buffer view ``index``."""
    block[:] = 0
    block[_SO_INSTANCES] = draw.instance_count
    block[SO_PRIMITIVES] = 0 if gpu_counts else primitives
    block[SO_NEEDED] = 0 if gpu_counts else primitives * draw.instance_count
    block[_SO_START_INDEX] = draw.start_index_location if draw.indexed else 0
    if plan.index_size and index is not None and index.buffer is not None:
        block[_SO_IB_BASE] = index.offset
        block[_SO_IB_SIZE] = index.size_in_bytes
    host = plan.host
    for s in so.slots:
        t = targets.get(s.slot)
        if t is not None:
            entry = block[SO_HEADER_WORDS + SO_SLOT_WORDS * s.slot:][:SO_SLOT_WORDS]
            entry[_SLOT_LOCATION] = t.view.offset
            entry[_SLOT_SIZE] = t.view.size_in_bytes
            entry[_SLOT_COUNTER] = t.counter_offset
            if host is not None:
                entry[_SLOT_FILLED] = host[2][s.slot]
    if host is not None:
        block[_SO_FUSED:_SO_FUSED + 2] = (host[0], int(host[1]))
        block[_SO_STATS:_SO_STATS + 4] = stats_words(host[3])
