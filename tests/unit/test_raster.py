"""The raster cross-check's parts that need no adapter (docs/raster-check.md): the hash placing
vertices, the coverage of triangles, lines and points, the list streams gpuia draws what WebGPU
cannot assemble with, and the quirk table naming its evidence. The check on every adapter:
tests/gpu/test_gpu_raster.py.

Expected values are hand-derived: pixel counts of triangles, lines and points placed by hand,
list streams written out from the orders of rules 9.3, and the hash checked against a
plain-int implementation of its published steps.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.d3d.topology import topology_info
from gpuia.gpu.ia.host_lists import list_stream, run_bounds
from gpuia.gpu.quirks import EFFECTS, FETCH, QUIRKS, quirks_for
from gpuia.reference.coverage import SUBPIXEL, coverage_at, key_positions, lowbias32, vertex_keys
from helpers import REPO

M = 0xFFFFFFFF


# -- the hash and positions --------------------------------------------------------------------


def _lowbias32_int(x: int) -> int:
    x ^= x >> 16
    x = (x * 0x7FEB352D) & M
    x ^= x >> 15
    x = (x * 0x846CA68B) & M
    x ^= x >> 16
    return x


def test_hash_matches_its_published_steps():
    rng = np.random.default_rng(7)
    xs = np.concatenate([[0, 1, 2, M, 0x80000000], rng.integers(0, 1 << 32, 200)]).astype(np.uint32)
    assert lowbias32(xs).tolist() == [_lowbias32_int(int(x)) for x in xs]


def test_positions_are_on_the_subpixel_grid_inside_the_target():
    keys = vertex_keys(np.arange(1000), np.arange(1000) % 7)
    pos = key_positions(keys, 64)
    assert pos.min() >= 0 and pos.max() < 64 * SUBPIXEL
    k = int(keys[5])
    assert pos[5].tolist() == [_lowbias32_int(k ^ 0x9E3779B9) % (64 * 256),
                               _lowbias32_int(k ^ 0x85EBCA6B) % (64 * 256)]


# -- coverage, by hand -------------------------------------------------------------------------

def _px(x, y, size=64):
    return y * size + x


def test_triangle_coverage_by_hand():
    """Legs of 16 px from (8, 8): centers with i + j <= 30 (i, j >= 8, 0-based offsets a + b
    <= 14) are inside by at least 0.7 px: 120 required; the 16 centers on the hypotenuse are
    only allowed; clockwise on screen (y down) is front."""
    front, required, allowed = coverage_at([(8, 8), (24, 8), (8, 24)], 64)
    assert front is True
    assert len(required) == 120 and len(allowed) == 136
    assert _px(8, 8) in required and _px(22, 8) in required
    assert _px(15, 16) in allowed and _px(15, 16) not in required  # center on x + y = 32
    assert _px(16, 16) not in allowed
    back, _, _ = coverage_at([(8, 8), (8, 24), (24, 8)], 64)
    assert back is False


def test_degenerate_triangle_covers_nothing():
    front, required, allowed = coverage_at([(8, 8), (16, 16), (24, 24)], 64)
    assert len(required) == 0 and len(allowed) == 0


def test_line_coverage_by_hand():
    """x-major, y = 10.25: row 10's centers (0.25 off) of columns the segment spans whole with
    the margin to spare (centers 5.5 .. 38.5) are required; row 9 (0.75 off) is only allowed."""
    _, required, allowed = coverage_at([(4.0, 10.25), (40.0, 10.25)], 64)
    assert sorted(required.tolist()) == [_px(x, 10) for x in range(5, 39)]
    assert {int(p) // 64 for p in allowed} == {9, 10}


def test_point_coverage_by_hand():
    _, required, allowed = coverage_at([(10.5, 20.5)], 64)
    assert required.tolist() == [_px(10, 20)] and allowed.tolist() == [_px(10, 20)]
    _, required, allowed = coverage_at([(11.0, 20.5)], 64)  # on the boundary of two pixels
    assert required.tolist() == [] and sorted(allowed.tolist()) == [_px(10, 20), _px(11, 20)]


# -- list streams (rules 9.3, 4.9, 5.4) ----------------------------------------------------

CUT = M


def _stream(values, topology, rotate=False, cut=CUT):
    v = np.array(values, np.uint32)
    cuts = v == cut if cut is not None else None
    return list_stream(v, cuts, topology_info(topology), rotate).tolist()


@pytest.mark.parametrize("topology, values, expected", [
    ("TRIANGLESTRIP", [10, 11, 12, CUT, 13, 14, 15, 16], [10, 11, 12, 13, 14, 15, 14, 16, 15]),
    ("TRIANGLESTRIP", [1, 2, CUT, 3, 4, 5], [3, 4, 5]),  # a 2-vertex run holds no triangle
    ("LINESTRIP", [1, 2, 3, CUT, 4, 5], [1, 2, 2, 3, 4, 5]),
    ("TRIANGLELIST", [1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6]),  # incomplete dropped (4.9)
    ("LINELIST", [1, 2, 3, 4, 5], [1, 2, 3, 4]),
    ("POINTLIST", [4, 5], [4, 5]),
    ("LINELIST_ADJ", [0, 1, 2, 3, 4, 5, 6, 7], [1, 2, 5, 6]),
    ("LINESTRIP_ADJ", [0, 1, 2, 3, 4], [1, 2, 2, 3]),
    ("TRIANGLELIST_ADJ", list(range(12)), [0, 2, 4, 6, 8, 10]),
    # Triangle strip with adjacency over 8 vertices: (0, 2, 4), then (2, 6, 4): vertex 2i
    # stays first, the strip's odd order (rules 9.3).
    ("TRIANGLESTRIP_ADJ", list(range(8)), [0, 2, 4, 2, 6, 4]),
    ("TRIANGLESTRIP_ADJ", [0, 1, 2, 3, 4, 5, CUT, 6, 7, 8, 9, 10], [0, 2, 4]),
])
def test_list_stream_by_hand(topology, values, expected):
    assert _stream(values, topology) == expected


def test_rotation_puts_d3ds_first_vertex_last_and_keeps_winding():
    assert _stream([10, 11, 12, 13], "TRIANGLESTRIP", rotate=True) == [11, 12, 10, 13, 12, 11]
    assert _stream([1, 2, 3], "LINESTRIP", rotate=True) == [2, 1, 3, 2]
    assert _stream([1, 2], "POINTLIST", rotate=True) == [1, 2]


def test_run_bounds():
    starts, lengths = run_bounds(8, np.array([0, 0, 1, 0, 1, 1, 0, 0], bool))
    assert starts.tolist() == [0, 2, 3, 3] and lengths.tolist() == [2, 1, 0, 2]


def test_quirk_rows_name_their_effect_and_evidence():
    for q in QUIRKS:
        assert q.effect in EFFECTS
        assert (q.affects is not None) == (q.effect == FETCH)
        path, _, test = q.shown_by.partition("::")
        assert (REPO / path).is_file(), q.shown_by
        assert test.split("[")[0] in (REPO / path).read_text(), q.shown_by
    assert {q.effect for q in quirks_for("llvmpipe (LLVM 15.0.6, 256 bits) (CPU) via OpenGL")} == \
        set(EFFECTS)
    assert quirks_for("NVIDIA H200 (DiscreteGPU) via Vulkan") == ()



@pytest.mark.parametrize("corners", [1, 2, 3])
@pytest.mark.parametrize("size", [64, 16])
def test_coverage_cells_is_the_per_primitive_coverage(corners, size):
    """The batched coverage (boxes padded, grouped and masked) gives exactly the cells, least
    and most counts of the per-primitive definition, for random primitives (clipped by the
    target's edges at size 16), a degenerate one (every corner one key) and none at all."""
    from gpuia.reference.coverage import coverage_cells, expected_fragments, primitive_coverage

    rng = np.random.default_rng(corners * 100 + size)
    for n in (0, 1, 7, 300):
        keys = rng.integers(0, 2**32, (n, corners), dtype=np.uint64).astype(np.uint32)
        if n > 3:
            keys[3] = keys[3, 0]
        got = coverage_cells(keys, size)
        want = expected_fragments(primitive_coverage(keys, size), size)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
        if n:
            assert got[0].shape[0] > 0


@pytest.mark.parametrize("size", [64, 8])
def test_line_bands_hold_every_allowed_pixel(size):
    """Lines are evaluated on a band around them, not their box: over thousands of random
    lines (steep, shallow, clipped by a small target, and some without length) the cells and
    counts are still exactly the per-primitive definition's, which looks at the whole box."""
    from gpuia.reference.coverage import coverage_cells, expected_fragments, primitive_coverage

    rng = np.random.default_rng(size)
    keys = rng.integers(0, 2**32, (4000, 2), dtype=np.uint64).astype(np.uint32)
    keys[::97, 1] = keys[::97, 0]  # no length: no fragment
    got = coverage_cells(keys, size)
    want = expected_fragments(primitive_coverage(keys, size), size)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
