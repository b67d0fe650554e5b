"""The parts of a capture draw that write a range of capture records
(gpuia.gpu.context.capture_spans): record ``capture_base + i * len(keys) + k`` is instance i's
k-th key (docs/gpu.md), so a range is a part of one instance's keys, whole instances and a part
of the last; a part of the keys is drawn from the positions that fetch them. Expected pieces
are derived by hand from that numbering."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from gpuia.gpu.context import capture_spans
from gpuia.gpu.context.capture_spans import Piece, PositionBounds, window_pieces


def _record(keys: int, instances: int, base: int = 100):
    return SimpleNamespace(keys=np.arange(keys, dtype=np.uint32), capture_base=base,
                           draw=SimpleNamespace(instance_count=instances))


IDENTITY = PositionBounds(None)


@pytest.mark.parametrize(("first", "count", "expected"), [
    # records 105..124 of 10 keys x 4 instances from 100: keys 5-9 of instance 0, instance 1,
    # keys 0-4 of instance 2
    (105, 20, [Piece(5, 10, 0, 1), Piece(0, 10, 1, 1), Piece(0, 5, 2, 1)]),
    (100, 40, [Piece(0, 10, 0, 4)]),  # every record: every instance whole
    (112, 3, [Piece(2, 5, 1, 1)]),  # inside instance 1
    (0, 101, [Piece(0, 1, 0, 1)]),  # the range ends at the draw's first record
    (0, 100, []),  # before the draw
    (140, 10, []),  # after it
    (110, 25, [Piece(0, 10, 1, 2), Piece(0, 5, 3, 1)]),  # from an instance's first key
    (95, 25, [Piece(0, 10, 0, 2)]),  # to an instance's last key
])
def test_pieces_of_a_range(first, count, expected):
    assert window_pieces(_record(10, 4), IDENTITY, first, count) == expected


def test_a_draw_without_keys_has_no_piece():
    assert window_pieces(_record(0, 3), IDENTITY, 0, 1000) == []


def test_positions_of_keys_by_chunks(monkeypatch):
    """Chunks of 4 positions over fetch indices [7 3 9 1 | 2 2 8 0 | 5 6]: keys 0 and 1 are
    fetched at positions 3 and 7 (chunks 0 and 1), 9 at position 2 (chunk 0), 5 and 6 at 8 and
    9, whose chunk's range 5..6 lies inside the other two chunks' ranges too."""
    monkeypatch.setattr(capture_spans, "CHUNK", 4)
    fetch = np.array([7, 3, 9, 1, 2, 2, 8, 0, 5, 6], np.uint32)
    keys = np.unique(fetch)  # 0 1 2 3 5 6 7 8 9
    b = PositionBounds(fetch)
    assert b.span(keys, 0, 2) == (0, 8)
    assert b.span(keys, 8, 9) == (0, 4)
    assert b.span(keys, 4, 6) == (0, 10)


def test_every_fetching_position_lies_in_the_span(monkeypatch):
    """Against a brute force: for random fetch indices (a mesh-like local run, then random),
    every position fetching a key of the part lies within its span."""
    monkeypatch.setattr(capture_spans, "CHUNK", 8)
    rng = np.random.default_rng(5)
    for fetch in (np.repeat(np.arange(300, dtype=np.uint32), 3) + rng.integers(0, 4, 900,
                                                                               dtype=np.uint32),
                  rng.integers(0, 2**32, 500, dtype=np.uint64).astype(np.uint32)):
        keys = np.unique(fetch)
        b = PositionBounds(fetch)
        for k0, k1 in ((0, 1), (3, 40), (len(keys) - 7, len(keys)), (0, len(keys))):
            p0, p1 = b.span(keys, k0, k1)
            where = np.flatnonzero(np.isin(fetch, keys[k0:k1]))
            assert p0 <= where.min() and where.max() < p1


def test_a_run_of_positions_is_drawn_from_its_chunks_only(monkeypatch):
    """Fetch index p at position p (a mesh's indices are near this), chunks of 8: keys
    100..199 are positions 100..199, inside chunks 12 (96..103) to 24 (192..199)."""
    monkeypatch.setattr(capture_spans, "CHUNK", 8)
    fetch = np.arange(1000, dtype=np.uint32)
    assert PositionBounds(fetch).span(fetch, 100, 200) == (96, 200)


def _draw_record(mode, auto=None, **draw):
    from gpuia.d3d.draws import DrawIndexedInstanced, DrawInstanced

    d = (DrawIndexedInstanced(**draw) if "index_count_per_instance" in draw
         else DrawInstanced(**draw))
    return SimpleNamespace(draw=d, auto=auto, plan=SimpleNamespace(index=SimpleNamespace(
        mode=mode)))


def test_which_draws_are_split():
    """Split: draws whose vertices and instances stay below 2**32 (rules 4.8: the counters
    wrap; WebGPU's do not within a draw), of direct, host or no indices; whole: the rest."""
    from gpuia.gpu.context.capture_spans import splittable
    from gpuia.gpu.ia.plan import IndexMode

    top = 1 << 32
    assert splittable(_draw_record(IndexMode.NONE, vertex_count_per_instance=10,
                                   start_vertex_location=top - 10, instance_count=3,
                                   start_instance_location=top - 3))
    assert not splittable(_draw_record(IndexMode.NONE, vertex_count_per_instance=10,
                                       start_vertex_location=top - 9))
    assert not splittable(_draw_record(IndexMode.DIRECT, index_count_per_instance=10,
                                       instance_count=3, start_instance_location=top - 2))
    assert splittable(_draw_record(IndexMode.HOST, index_count_per_instance=10,
                                   base_vertex_location=-5))
    assert not splittable(_draw_record(IndexMode.GPU, index_count_per_instance=10))
    assert not splittable(_draw_record(IndexMode.NONE, auto=(0,), vertex_count_per_instance=0))
