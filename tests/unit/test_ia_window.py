"""The reference a window of invocations at a time (gpuia.reference.ia_window) delivers, for every
window size and place, exactly the rows of the whole-array reference (run_ia) of the same draws:
the IDs and every element's words. The draws exercise what a window must find out on its own:
instances split by a window's edge, per-instance elements with step rates, strip cuts (rows are
not index positions there), an index view shorter than the draw (reads 0, rules 5.5-5.6), a base
vertex, fetches past the vertex view (default fill, rules 6.1), an unbound slot and a draw that
delivers nothing between two that do."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.reference.ia import run_ia
from gpuia.reference.ia_window import IAWindows

RNG = np.random.default_rng(7)
VERTEX_BYTES = RNG.integers(0, 256, 16 * 50, dtype=np.uint8).tobytes()
INSTANCE_BYTES = RNG.integers(0, 256, 4 * 6, dtype=np.uint8).tobytes()
INDICES = RNG.integers(0, 60, 200).astype(np.uint16)  # past the 50 vertices now and then
INDICES[[0, 5, 6, 77, 199]] = 0xFFFF  # cuts: first, two in a row, inside, last

LAYOUT = [
    {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
    {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "AlignedByteOffset": 12},
    {"SemanticName": "TEXCOORD", "Format": "R8G8B8A8_SNORM", "InputSlot": 1,
     "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 2},
    {"SemanticName": "NORMAL", "Format": "R16G16_UINT", "InputSlot": 2},  # slot 2 is unbound
]
VIEWS = {0: {"data": VERTEX_BYTES, "stride": 16}, 1: {"data": INSTANCE_BYTES, "stride": 4}}

DRAWS = {
    "points with instances": ("POINTLIST", None, [
        {"DrawInstanced": {"VertexCountPerInstance": 23, "InstanceCount": 7,
                           "StartVertexLocation": 40, "StartInstanceLocation": 1}}]),
    "strip with cuts, several draws": ("TRIANGLESTRIP", "0xFFFF", [
        {"DrawIndexedInstanced": {"IndexCountPerInstance": 180, "InstanceCount": 3,
                                  "StartIndexLocation": 15, "BaseVertexLocation": 2}},
        {"DrawInstanced": {"VertexCountPerInstance": 0, "InstanceCount": 4}},
        {"DrawInstanced": {"VertexCountPerInstance": 9, "InstanceCount": 2}}]),
    "indexed list": ("TRIANGLELIST", "DISABLED", [
        {"DrawIndexedInstanced": {"IndexCountPerInstance": 198, "InstanceCount": 2}}]),
}


@pytest.fixture(autouse=True, params=["one piece", "chunks of 16 rows"])
def _chunking(request, monkeypatch):
    """The rows come out the same whether a window's work is one piece or row chunks on the
    thread pool (IDs and elements written a chunk of a piece's vertices at a time)."""
    if request.param != "one piece":
        monkeypatch.setattr("gpuia.util.parallel.CHUNK_ROWS", 16)


def _whole_and_windows(spec):
    """The whole reference of a draw list ``(topology, cut, draws)`` and its IAWindows."""
    topology, cut, draws = spec
    kw = {"topology": topology}
    if cut is not None:
        # 200 indices of which the draw reads 15 .. 194: the view ends 20 indices early.
        kw.update(index_buffer={"data": INDICES[:180].tobytes(), "format": "R16_UINT"},
                  strip_cut_value=cut)
    return run_ia(LAYOUT, VIEWS, draws, **kw), IAWindows(LAYOUT, VIEWS, draws, **kw), draws


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_windows_are_the_whole_reference_rows(name):
    whole, windows, draws = _whole_and_windows(DRAWS[name])
    assert windows.total == len(whole)
    for size in (1, 5, 23, 64, len(whole)):
        for lo in range(0, len(whole), size):
            hi = min(len(whole), lo + size)
            got = windows.rows(lo, hi)
            assert len(got) == hi - lo
            for f in ("draw", "instance", "vertex", "vertex_id", "fetch_index"):
                assert np.array_equal(getattr(got, f), getattr(whole, f)[lo:hi]), (f, lo, size)
            for key, data in whole.inputs.items():
                assert got.inputs[key].type == data.type
                assert np.array_equal(got.inputs[key].bits, data.bits[lo:hi]), (key, lo, size)
    for d in range(len(draws)):
        assert windows.primitive_count(d) == int((whole.primitive_draw == d).sum())


WRAPPING = ("POINTLIST", None, [  # vertex ids wrap past 2**32 - 1 (rules 4.8)
    {"DrawInstanced": {"VertexCountPerInstance": 23, "InstanceCount": 3,
                       "StartVertexLocation": 0xFFFFFFF0}}])


@pytest.mark.parametrize("name", sorted(DRAWS) + ["wrapping vertex ids"])
def test_fetch_extents_are_the_rows_first_and_last_instance_fetches(name):
    """Per draw among a window's rows of the whole reference: its first instance with the
    least fetch index of that instance's rows, its last instance with the greatest of its."""
    whole, windows, _ = _whole_and_windows(DRAWS[name] if name in DRAWS else WRAPPING)
    for size in (1, 5, 23, 64, len(whole)):
        for lo in range(0, len(whole), size):
            hi = min(len(whole), lo + size)
            draw, inst = whole.draw[lo:hi], whole.instance[lo:hi]
            fetch = whole.fetch_index[lo:hi].astype(np.int64)
            expected = []
            for d in dict.fromkeys(draw.tolist()):
                at = draw == d
                first, last = int(inst[at].min()), int(inst[at].max())
                expected.append((d, first, int(fetch[at & (inst == first)].min()), last,
                                 int(fetch[at & (inst == last)].max())))
            assert windows.fetch_extents(lo, hi) == expected, (lo, size)
    with pytest.raises(ValueError, match="outside"):
        windows.fetch_extents(0, len(whole) + 1)


@pytest.mark.parametrize("topology, per_instance", [
    ("POINTLIST", 5), ("LINELIST", 2), ("TRIANGLELIST", 1), ("LINELIST_ADJ", 1),
    ("LINESTRIP", 2), ("TRIANGLESTRIP", 1), ("LINESTRIP_ADJ", 0), ("TRIANGLESTRIP_ADJ", 0)])
def test_primitive_counts_by_hand(topology, per_instance):
    """Indices 4, 0xFFFF, 5, 6, 7, 2 instances (rules 4.9, 5.2): a list topology sees 5
    vertices (5 points, 2 lines, 1 triangle, 1 line with adjacency of 4); a strip is cut into
    runs of 1 and 3 vertices (0 + 2 lines, 0 + 1 triangle; 3 vertices are too few for a
    strip with adjacency)."""
    ib = {"data": np.array([4, 0xFFFF, 5, 6, 7], np.uint16).tobytes(), "format": "R16_UINT"}
    draw = [{"DrawIndexedInstanced": {"IndexCountPerInstance": 5, "InstanceCount": 2}}]
    cut = "0xFFFF" if "STRIP" in topology else "DISABLED"
    w = IAWindows(LAYOUT[:1], VIEWS, draw, topology=topology, index_buffer=ib,
                  strip_cut_value=cut)
    assert w.primitive_count(0) == 2 * per_instance
    assert w.primitive_count(1) == 0  # no such draw


def test_cut_rows_skip_the_cut_positions():
    """By hand: indices 4, CUT, 5, CUT, CUT, 6 of a strip deliver three rows, at index positions
    0, 2 and 5 (rules 5.4), whatever the window."""
    ib = {"data": np.array([4, 0xFFFF, 5, 0xFFFF, 0xFFFF, 6], np.uint16).tobytes(),
          "format": "R16_UINT"}
    draw = [{"DrawIndexedInstanced": {"IndexCountPerInstance": 6}}]
    w = IAWindows(LAYOUT[:1], VIEWS, draw, topology="LINESTRIP", index_buffer=ib,
                  strip_cut_value="0xFFFF")
    assert w.total == 3
    assert w.rows(1, 3).vertex.tolist() == [2, 5]
    assert w.rows(0, 3).vertex_id.tolist() == [4, 5, 6]


def test_rows_outside_the_invocations_are_refused():
    w = IAWindows(LAYOUT[:1], VIEWS, [{"DrawInstanced": {"VertexCountPerInstance": 3}}],
                  topology="POINTLIST")
    with pytest.raises(ValueError, match="outside the 3 invocations"):
        w.rows(2, 4)
