"""The GPU index pass (gpuia.gpu.ia.index_pass, gpuia.wgsl.index_pass): list and kept streams and
the GPU-written args, for every topology.

Expected streams are written by hand from the rules: the values a draw delivers (rules 4.2,
4.5, 5.5, 5.6), strip cuts (5.2 to 5.4), incomplete primitives dropped (4.9), strips expanded in
D3D's order with adjacency dropped (9.2, 9.3: triangle strip triangle t is (t, t+1, t+2) for
even t and (t, t+2, t+1) for odd t, restarting at every cut). The randomized tests compare with
the CPU reference (``gpuia.reference.run_ia``), the independent side. Run on Vulkan and on
OpenGL (``GPUIA_BACKEND=OpenGL``). The pass's specs and generated text, with no adapter:
tests/unit/test_index_pass.py.
"""

from __future__ import annotations

import dataclasses
import types

import numpy as np
import pytest

from gpuia.d3d.desc import StripCutValue
from gpuia.d3d.draws import DrawIndexedInstanced, DrawInstanced
from gpuia.d3d.ia_desc import IndexBufferView
from gpuia.d3d.layout import InputLayout
from gpuia.d3d.topology import TOPOLOGIES, topology_info
from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.gpu.ia.index_pass import (
    ARGS_DISPATCH,
    ARGS_KEPT,
    ARGS_LIST,
    ARGS_NEEDED,
    ARGS_PRIMITIVES,
    IndexStreams,
    encode_index_pass,
    index_window,
)
from gpuia.reference import run_ia
from gpuia.wgsl.index_pass import BLOCK, scan_levels

C16 = 0xFFFF
C32 = 0xFFFFFFFF
CUT16 = StripCutValue.CUT_0xFFFF
CUT32 = StripCutValue.CUT_0xFFFFFFFF
OFF = StripCutValue.DISABLED
FILL16 = 0x5A5A  # bytes around a view: a read outside it would show this, not D3D's 0
LIST_WORD, KEPT_WORD = ARGS_LIST // 4, ARGS_KEPT // 4


def index_buffer(device, values, fmt="R16_UINT", offset=0, size=None, tail=8):
    """A view of ``values`` at byte ``offset`` of a gpuia Buffer whose other bytes are filler;
    ``size``: SizeInBytes (default: exactly the values)."""
    dtype = {"R16_UINT": "<u2", "R32_UINT": "<u4"}[fmt]
    body = np.asarray(values, dtype=np.uint64).astype(dtype).tobytes()
    raw = bytes([0x5A]) * offset + body + bytes([0x5A]) * tail
    buf = device.create_buffer(raw, bind="index_buffer")
    return IndexBufferView(buf, fmt, offset, len(body) if size is None else size)


def run_pass(device, draw, topology, ib=None, cut=OFF, **kw):
    """(list, kept, args) after the pass ran: the streams cut to the GPU-written counts."""
    dev = device.device
    enc = dev.create_command_encoder()
    result = encode_index_pass(device, enc, draw, topology_info(topology), index_buffer=ib,
                               strip_cut_value=cut, **kw)
    dev.queue.submit([enc.finish()])
    args = np.frombuffer(dev.queue.read_buffer(result.args), np.uint32).copy()

    def stream(buf, count):
        if buf is None:
            return None
        return np.frombuffer(dev.queue.read_buffer(buf), np.uint32)[:count].copy()

    assert args[LIST_WORD] <= result.max_list and args[KEPT_WORD] <= result.max_kept
    return stream(result.list, args[LIST_WORD]), stream(result.kept, args[KEPT_WORD]), args


# (case id, topology, index format, indices, cut value, list stream, kept stream); "C" marks
# the cut literal of the row's cut value. Each list is derived by hand from the rules.
HAND = [
    ("points", "POINTLIST", "R16_UINT", [5, 6, 7], OFF, [5, 6, 7], [5, 6, 7]),
    # A list topology never cuts (5.2): 0xFFFF is an ordinary index.
    ("points-no-cut", "POINTLIST", "R16_UINT", [5, "C", 7], CUT16, [5, C16, 7], [5, C16, 7]),
    ("lines-incomplete", "LINELIST", "R16_UINT", [0, 1, 2, 3, 4], OFF, [0, 1, 2, 3],
     [0, 1, 2, 3, 4]),
    ("lines-no-cut", "LINELIST", "R32_UINT", [0, "C", 2, 3], CUT32, [0, C32, 2, 3],
     [0, C32, 2, 3]),
    ("line-strip", "LINESTRIP", "R16_UINT", [0, 1, 2, 3], OFF, [0, 1, 1, 2, 2, 3], [0, 1, 2, 3]),
    ("line-strip-cut", "LINESTRIP", "R16_UINT", [0, 1, "C", 2, 3, 4], CUT16,
     [0, 1, 2, 3, 3, 4], [0, 1, 2, 3, 4]),
    ("line-strip-cut-first", "LINESTRIP", "R16_UINT", ["C", 0, 1], CUT16, [0, 1], [0, 1]),
    ("line-strip-cut-last", "LINESTRIP", "R16_UINT", [0, 1, "C"], CUT16, [0, 1], [0, 1]),
    ("line-strip-consecutive", "LINESTRIP", "R32_UINT", [0, 1, "C", "C", 2, 3], CUT32,
     [0, 1, 2, 3], [0, 1, 2, 3]),
    ("line-strip-short-runs", "LINESTRIP", "R16_UINT", [0, "C", 1, "C", 2, 3], CUT16, [2, 3],
     [0, 1, 2, 3]),
    ("line-strip-only-cuts", "LINESTRIP", "R16_UINT", ["C", "C", "C"], CUT16, [], []),
    ("triangles-incomplete", "TRIANGLELIST", "R16_UINT", list(range(8)), OFF,
     [0, 1, 2, 3, 4, 5], list(range(8))),
    ("triangle-strip", "TRIANGLESTRIP", "R16_UINT", [0, 1, 2, 3, 4, 5], OFF,
     [0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4], [0, 1, 2, 3, 4, 5]),
    # Each run restarts the odd/even order.
    ("triangle-strip-cut", "TRIANGLESTRIP", "R16_UINT", [10, 11, 12, 13, "C", 14, 15, 16, 17],
     CUT16, [10, 11, 12, 11, 13, 12, 14, 15, 16, 15, 17, 16], [10, 11, 12, 13, 14, 15, 16, 17]),
    ("triangle-strip-cut-odd-run", "TRIANGLESTRIP", "R32_UINT", [1, 2, 3, 4, 5, "C", 6, 7, 8],
     CUT32, [1, 2, 3, 2, 4, 3, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8]),
    ("triangle-strip-every-class", "TRIANGLESTRIP", "R16_UINT",
     ["C", "C", 1, 2, "C", 3, 4, 5, "C"], CUT16, [3, 4, 5], [1, 2, 3, 4, 5]),
    # 5.3: the PSO's literal, whatever the width: 0xFFFF cuts 32-bit indices ...
    ("triangle-strip-32-cut-ffff", "TRIANGLESTRIP", "R32_UINT", [1, 2, 3, C16, 4, 5, 6], CUT16,
     [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]),
    # ... and 0xFFFFFFFF never cuts 16-bit ones.
    ("triangle-strip-16-cut-ffffffff", "TRIANGLESTRIP", "R16_UINT", [1, 2, C16, 3], CUT32,
     [1, 2, C16, 2, 3, C16], [1, 2, C16, 3]),
    ("triangle-strip-disabled", "TRIANGLESTRIP", "R16_UINT", [1, 2, C16, 3], OFF,
     [1, 2, C16, 2, 3, C16], [1, 2, C16, 3]),
    ("line-list-adj", "LINELIST_ADJ", "R16_UINT", list(range(9)), OFF, [1, 2, 5, 6],
     list(range(9))),
    ("line-strip-adj", "LINESTRIP_ADJ", "R16_UINT", [0, 1, 2, 3, 4], OFF, [1, 2, 2, 3],
     [0, 1, 2, 3, 4]),
    ("line-strip-adj-cut", "LINESTRIP_ADJ", "R16_UINT", [0, 1, 2, 3, "C", 4, 5, 6], CUT16,
     [1, 2], [0, 1, 2, 3, 4, 5, 6]),
    ("triangle-list-adj", "TRIANGLELIST_ADJ", "R16_UINT", list(range(14)), OFF,
     [0, 2, 4, 6, 8, 10], list(range(14))),
    # Strip vertices 0 2 4 6 8: triangles (0,2,4), (2,6,4), (4,6,8).
    ("triangle-strip-adj", "TRIANGLESTRIP_ADJ", "R16_UINT", list(range(10)), OFF,
     [0, 2, 4, 2, 6, 4, 4, 6, 8], list(range(10))),
    ("triangle-strip-adj-odd", "TRIANGLESTRIP_ADJ", "R16_UINT", list(range(7)), OFF, [0, 2, 4],
     list(range(7))),
    ("triangle-strip-adj-short", "TRIANGLESTRIP_ADJ", "R16_UINT", list(range(5)), OFF, [],
     list(range(5))),
    ("triangle-strip-adj-cut", "TRIANGLESTRIP_ADJ", "R32_UINT",
     [0, 1, 2, 3, 4, 5, "C", 10, 11, 12, 13, 14, 15, 16, 17], CUT32,
     [0, 2, 4, 10, 12, 14, 12, 16, 14], [0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16, 17]),
    ("triangle-strip-adj-cut-at-5", "TRIANGLESTRIP_ADJ", "R16_UINT",
     [0, 1, 2, 3, 4, "C", 5, 6, 7, 8, 9, 10], CUT16, [5, 7, 9], list(range(11))),
]


def _literal(values, cut):
    return [cut.index if v == "C" else v for v in values]


@pytest.mark.parametrize("case", HAND, ids=[c[0] for c in HAND])
def test_hand_streams(gpu_device, case):
    _, topo, fmt, values, cut, want_list, want_kept = case
    values = _literal(values, cut)
    ib = index_buffer(gpu_device, values, fmt)
    lst, kept, args = run_pass(gpu_device, DrawIndexedInstanced(len(values)), topo, ib, cut)
    assert lst.tolist() == want_list
    assert kept.tolist() == want_kept
    vpp = topology_info(topo).vertices
    assert args[ARGS_PRIMITIVES] == len(want_list) // vpp


def test_rotation(gpu_device):
    """Each primitive rotated left by one: (b, c, a) for (a, b, c), (b, a) for a line; points
    unchanged."""
    ib = index_buffer(gpu_device, [0, 1, 2, 3, 4, C16, 5, 6, 7])
    draw = DrawIndexedInstanced(9)
    lst, _, _ = run_pass(gpu_device, draw, "TRIANGLESTRIP", ib, CUT16, rotate=True)
    # unrotated: (0,1,2) (1,3,2) (2,3,4) | (5,6,7)
    assert lst.tolist() == [1, 2, 0, 3, 2, 1, 3, 4, 2, 6, 7, 5]
    lst, _, _ = run_pass(gpu_device, draw, "LINESTRIP", ib, CUT16, rotate=True)
    assert lst.tolist() == [1, 0, 2, 1, 3, 2, 4, 3, 6, 5, 7, 6]
    lst, _, _ = run_pass(gpu_device, draw, "POINTLIST", ib, OFF, rotate=True)
    assert lst.tolist() == [0, 1, 2, 3, 4, C16, 5, 6, 7]
    lst, _, _ = run_pass(gpu_device, DrawIndexedInstanced(6), "TRIANGLELIST_ADJ",
                         index_buffer(gpu_device, [10, 11, 12, 13, 14, 15]), rotate=True)
    assert lst.tolist() == [12, 14, 10]


@pytest.mark.parametrize("offset", [2, 6, 10, 34])
def test_16_bit_at_2_byte_positions(gpu_device, offset):
    """A view starting in the high half of a word, with StartIndexLocation moving the first
    read to either half."""
    ib = index_buffer(gpu_device, [5, 6, 7, 8, C16, 9, 10, 11], offset=offset)
    lst, kept, _ = run_pass(gpu_device, DrawIndexedInstanced(7, 1, 1), "TRIANGLESTRIP", ib, CUT16)
    assert kept.tolist() == [6, 7, 8, 9, 10, 11]
    assert lst.tolist() == [6, 7, 8, 9, 10, 11]
    _, kept, _ = run_pass(gpu_device, DrawIndexedInstanced(8), "POINTLIST", ib)
    assert kept.tolist() == [5, 6, 7, 8, C16, 9, 10, 11]


@pytest.mark.parametrize("offset", [4, 8, 12, 36])
def test_32_bit_view_offsets(gpu_device, offset):
    ib = index_buffer(gpu_device, [70000, 1, C32, 2, 3, 4], "R32_UINT", offset=offset)
    lst, kept, _ = run_pass(gpu_device, DrawIndexedInstanced(6), "LINESTRIP", ib, CUT32)
    assert kept.tolist() == [70000, 1, 2, 3, 4]
    assert lst.tolist() == [70000, 1, 2, 3, 3, 4]


def test_reads_past_the_view_are_zero(gpu_device):
    """5.6: indices past SizeInBytes read 0 (the buffer's bytes there are filler), and 0 is no
    cut: [1, cut | 0, 0, 0] is the runs [1] and [0, 0, 0]."""
    ib = index_buffer(gpu_device, [1, C16, 7, 8], size=4)
    lst, kept, _ = run_pass(gpu_device, DrawIndexedInstanced(5), "TRIANGLESTRIP", ib, CUT16)
    assert kept.tolist() == [1, 0, 0, 0]
    assert lst.tolist() == [0, 0, 0]
    # A SizeInBytes that ends inside an index: that index is past the view too.
    ib = index_buffer(gpu_device, [5, 6, 7, 8], size=7)
    _, kept, _ = run_pass(gpu_device, DrawIndexedInstanced(4), "POINTLIST", ib)
    assert kept.tolist() == [5, 6, 7, 0]
    # StartIndexLocation past the view: every read is past it.
    _, kept, _ = run_pass(gpu_device, DrawIndexedInstanced(3, 1, 10), "POINTLIST", ib)
    assert kept.tolist() == [0, 0, 0]
    # Positions that wrap past 2**32 are past the view as well.
    ib = index_buffer(gpu_device, [5, 6, 7, 8], "R32_UINT")
    _, kept, _ = run_pass(gpu_device, DrawIndexedInstanced(3, 1, C32 - 1), "POINTLIST", ib)
    assert kept.tolist() == [0, 0, 0]


def test_null_view_reads_zero(gpu_device):
    """5.5: a NULL view (no buffer) reads 0 everywhere; 0 never cuts."""
    for ib in (None, IndexBufferView(None, "R16_UINT")):
        lst, kept, args = run_pass(gpu_device, DrawIndexedInstanced(4), "TRIANGLESTRIP", ib, CUT16)
        assert kept.tolist() == [0, 0, 0, 0]
        assert lst.tolist() == [0, 0, 0, 0, 0, 0]
        assert args[ARGS_PRIMITIVES] == 2


def test_non_indexed_draw(gpu_device):
    """A non-indexed draw delivers positions 0..count-1 (4.5), never cut; StartVertexLocation is
    the list's base vertex."""
    lst, kept, args = run_pass(gpu_device, DrawInstanced(5, 2, 7, 0), "LINESTRIP_ADJ", cut=CUT16)
    assert lst.tolist() == [1, 2, 2, 3]
    assert kept.tolist() == [0, 1, 2, 3, 4]
    assert args[LIST_WORD:LIST_WORD + 5].tolist() == [4, 2, 0, 7, 0]
    # A caller that adds part of StartVertexLocation in its vertex stage names the rest.
    _, _, args = run_pass(gpu_device, DrawInstanced(5, 1, 0xFFFFFFF0, 0), "LINESTRIP_ADJ",
                          base_vertex=-16)
    assert args[LIST_WORD + 3] == args[KEPT_WORD + 3] == 0xFFFFFFF0
    _, _, args = run_pass(gpu_device, DrawInstanced(5, 1, 0xFFFFFFF0, 0), "LINESTRIP_ADJ",
                          base_vertex=0)
    assert args[LIST_WORD + 3] == 0


def test_args(gpu_device):
    """drawIndexedIndirect words (count, InstanceCount, 0, BaseVertexLocation's bits,
    StartInstanceLocation), primitives per instance, their 64-bit total and the dispatch."""
    values = [0, 1, 2, 3, C16, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]  # runs of 4 and 10: 2 + 8
    ib = index_buffer(gpu_device, values)
    draw = DrawIndexedInstanced(len(values), 3, 0, -3, 5)
    _, _, args = run_pass(gpu_device, draw, "TRIANGLESTRIP", ib, CUT16, items_per_group=64)
    assert args[LIST_WORD:LIST_WORD + 5].tolist() == [30, 3, 0, 0xFFFFFFFD, 5]
    assert args[KEPT_WORD:KEPT_WORD + 5].tolist() == [14, 3, 0, 0xFFFFFFFD, 5]
    assert args[ARGS_PRIMITIVES] == 10
    assert args[ARGS_NEEDED:ARGS_NEEDED + 2].tolist() == [30, 0]
    d = ARGS_DISPATCH // 4
    assert args[d:d + 3].tolist() == [2, 1, 1]  # 90 vertices, 64 per workgroup
    # 1 triangle x 100000 instances x 3 vertices, one per workgroup: rows of 65535.
    ib = index_buffer(gpu_device, [0, 1, 2])
    _, _, args = run_pass(gpu_device, DrawIndexedInstanced(3, 100000), "TRIANGLELIST", ib,
                          items_per_group=1)
    limit = gpu_device.caps.max_compute_workgroups_per_dimension
    assert args[d:d + 3].tolist() == [min(300000, limit), -(-300000 // min(300000, limit)), 1]
    # 2 lines x (2**32 - 1) instances: 2**33 - 2 primitives, over 32 bits.
    _, _, args = run_pass(gpu_device, DrawIndexedInstanced(4, C32), "LINELIST", ib)
    assert args[ARGS_NEEDED:ARGS_NEEDED + 2].tolist() == [0xFFFFFFFE, 1]
    assert args[d:d + 3].tolist() == [0, 0, 0]  # no consumer named
    # Nothing delivered: zero counts (and no buffer sized by the other count).
    _, kept, args = run_pass(gpu_device, DrawIndexedInstanced(C32, 0), "TRIANGLESTRIP", ib, CUT16)
    assert kept.tolist() == [] and args[:13].tolist() == [0] * 13


def test_streams_asked_for(gpu_device):
    ib = index_buffer(gpu_device, [0, 1, C16, 2, 3, 4])
    dev = gpu_device.device
    for streams in (IndexStreams.LIST, IndexStreams.KEPT):
        enc = dev.create_command_encoder()
        r = encode_index_pass(gpu_device, enc, DrawIndexedInstanced(6),
                              topology_info("TRIANGLESTRIP"), index_buffer=ib,
                              strip_cut_value=CUT16, streams=streams)
        dev.queue.submit([enc.finish()])
        args = np.frombuffer(dev.queue.read_buffer(r.args), np.uint32)
        assert (r.list is None) == (streams is IndexStreams.KEPT)
        assert (r.kept is None) == (streams is IndexStreams.LIST)
        assert args[LIST_WORD] == 3 and args[KEPT_WORD] == 5 and args[ARGS_PRIMITIVES] == 1


def test_a_window_of_a_buffer_larger_than_a_binding(gpu_device):
    """Where the index buffer exceeds max-storage-buffer-binding-size, only the bytes the draw
    reads are bound. A device whose binding limit is 4 KiB runs that path on a 64 KiB buffer."""
    caps = dataclasses.replace(gpu_device.caps, max_storage_buffer_binding_size=4096)
    small = types.SimpleNamespace(device=gpu_device.device, caps=caps)
    values = (np.arange(32768) * 7 % 65521).astype(np.uint16)
    values[20001] = C16
    ib = index_buffer(gpu_device, values, offset=2, tail=0)
    offset, size, base, held = index_window(ib, 20000, 5, caps)
    align = max(4, caps.min_storage_buffer_offset_alignment)
    assert offset % align == 0 and offset <= 2 + 2 * 20000 and size <= 4096
    assert offset + size >= 2 + 2 * 20005 and held == 32768
    lst, kept, _ = run_pass(small, DrawIndexedInstanced(5, 1, 20000), "LINESTRIP", ib, CUT16)
    v = [int(x) for x in values[20000:20005]]
    assert kept.tolist() == [v[0]] + v[2:]
    assert lst.tolist() == [v[2], v[3], v[3], v[4]]
    with pytest.raises(UnsupportedError, match="max-storage-buffer-binding-size"):
        index_window(ib, 0, 4000, caps)


def test_few_million_indices(gpu_device):
    """4,000,000 indices (a scan over several levels of blocks): blocks [4k .. 4k+3, cut] give
    triangles (4k, 4k+1, 4k+2) and (4k+1, 4k+3, 4k+2) each; the kept values are 0 .. 3,199,999."""
    blocks = 800_000
    values = np.full((blocks, 5), C32, np.uint32)
    values[:, :4] = np.arange(4 * blocks, dtype=np.uint32).reshape(blocks, 4)
    assert len(scan_levels(values.size)) == 3
    ib = index_buffer(gpu_device, values.reshape(-1), "R32_UINT")
    lst, kept, args = run_pass(gpu_device, DrawIndexedInstanced(values.size), "TRIANGLESTRIP",
                               ib, CUT32)
    k = 4 * np.arange(blocks, dtype=np.uint32)[:, None]
    want = (k + np.array([0, 1, 2, 1, 3, 2], np.uint32)).reshape(-1)
    assert args[ARGS_PRIMITIVES] == 2 * blocks
    assert np.array_equal(kept, np.arange(4 * blocks, dtype=np.uint32))
    assert np.array_equal(lst, want)


def reference_streams(topo: str, draw, ib, cut, rotate: bool):
    """(list, kept) of one instance from the CPU reference: SV_VertexID of each delivered
    vertex, and of each primitive's vertices (rotated left by one if asked)."""
    ref = run_ia(InputLayout([]), {}, draw, topology=topo, index_buffer=ib, strip_cut_value=cut)
    prims = ref.primitives
    if rotate and prims.shape[1] > 1:
        prims = np.roll(prims, -1, axis=1)
    vid = ref.vertex_id.astype(np.uint32)
    return vid[prims.reshape(-1)], vid


def _random_case(rng, topo: str):
    fmt = ["R16_UINT", "R32_UINT"][rng.integers(2)]
    size = {"R16_UINT": 2, "R32_UINT": 4}[fmt]
    cut = [OFF, CUT16, CUT32][rng.integers(3)]
    # Mostly short streams (every position class near each other), some over several blocks.
    n = int(rng.integers(0, 48) if rng.random() < 0.85 else rng.integers(BLOCK, 5 * BLOCK))
    values = rng.integers(0, 6, n).astype(np.uint64)
    for literal in (C16, C32):  # sprinkle both literals (and runs of them)
        values[rng.random(n) < 0.15] = literal & (0xFFFF if size == 2 else C32)
    start = int(rng.integers(0, 4))
    offset = size * int(rng.integers(0, 5))
    held = n + start - int(rng.integers(0, 4)) if rng.random() < 0.3 else n + start
    body = np.zeros(n + start + 4, np.uint64)
    body[start:start + n] = values
    return fmt, cut, body, start, n, offset, max(0, held) * size, bool(rng.integers(2))


@pytest.mark.parametrize("topo", [t.name for t in TOPOLOGIES.values()])
def test_random_streams_match_the_reference(gpu_device, topo):
    rng = np.random.default_rng(sum(map(ord, topo)))
    for _ in range(40):
        fmt, cut, body, start, n, offset, size, rotate = _random_case(rng, topo)
        if rng.random() < 0.1:
            gpu_ib = host_ib = None  # NULL view
        else:
            gpu_ib = index_buffer(gpu_device, body, fmt, offset, size)
            host_ib = IndexBufferView(bytes(gpu_ib.buffer.host), fmt, offset, size)
        draw = DrawIndexedInstanced(n, 1, start, int(rng.integers(-2, 3)))
        lst, kept, args = run_pass(gpu_device, draw, topo, gpu_ib, cut, rotate=rotate)
        want_list, want_kept = reference_streams(topo, draw, host_ib, cut, rotate)
        where = f"{topo} {fmt} cut={cut} start={start} n={n} size={size} rotate={rotate}"
        assert kept.tolist() == want_kept.tolist(), where
        assert lst.tolist() == want_list.tolist(), where


def test_long_random_runs_match_the_reference(gpu_device):
    """Runs crossing many blocks of the scan (odd/even order carried across them)."""
    rng = np.random.default_rng(13)
    n = 1_200_000
    values = rng.integers(0, 1 << 20, n).astype(np.uint32)
    values[rng.random(n) < 0.002] = C32
    values[:3] = C32
    ib = index_buffer(gpu_device, values, "R32_UINT")
    host_ib = IndexBufferView(values.tobytes(), "R32_UINT")
    for topo in ("TRIANGLESTRIP_ADJ", "TRIANGLESTRIP"):
        draw = DrawIndexedInstanced(n, 2, 0, 0)
        lst, kept, args = run_pass(gpu_device, draw, topo, ib, CUT32)
        want_list, want_kept = reference_streams(topo, DrawIndexedInstanced(n), host_ib, CUT32,
                                                 False)
        assert np.array_equal(kept, want_kept)
        assert np.array_equal(lst, want_list)


def test_indirect_args_drive_draws_and_dispatches(gpu_device):
    """The outputs are what WebGPU consumes: the kept stream drawn with draw_indexed_indirect
    marks each delivered vertex (vertex_index = BaseVertexLocation + value) for each instance,
    and dispatch_workgroups_indirect runs the workgroups the args name."""
    dev = gpu_device.device
    ib = index_buffer(gpu_device, [3, C16, 1, 4, 1, 5])
    draw = DrawIndexedInstanced(6, 2, 0, 2, 0)
    enc = dev.create_command_encoder()
    r = encode_index_pass(gpu_device, enc, draw, topology_info("LINESTRIP"), index_buffer=ib,
                          strip_cut_value=CUT16, items_per_group=2)
    marks = dev.create_buffer(size=4 * 32, usage="STORAGE|COPY_SRC")
    code = """
    @group(0) @binding(0) var<storage, read_write> marks: array<atomic<u32>>;
    @vertex fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32)
        -> @builtin(position) vec4<f32> {
      atomicOr(&marks[v], 1u << i);
      return vec4<f32>(2.0, 2.0, 0.0, 1.0);
    }
    @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }
    @compute @workgroup_size(1) fn cs(@builtin(workgroup_id) g: vec3<u32>) {
      atomicAdd(&marks[31], 1u);
    }
    """
    mod = dev.create_shader_module(code=code)
    layout = dev.create_bind_group_layout(entries=[{
        "binding": 0, "visibility": 1 | 2 | 4, "buffer": {"type": "storage"}}])
    pl = dev.create_pipeline_layout(bind_group_layouts=[layout])
    group = dev.create_bind_group(layout=layout, entries=[
        {"binding": 0, "resource": {"buffer": marks, "offset": 0, "size": marks.size}}])
    target = dev.create_texture(size=(1, 1, 1), format="rgba8unorm",
                                usage="RENDER_ATTACHMENT")
    pipe = dev.create_render_pipeline(
        layout=pl, vertex={"module": mod, "entry_point": "vs", "buffers": []},
        primitive={"topology": "point-list"},
        fragment={"module": mod, "entry_point": "fs", "targets": [{"format": "rgba8unorm"}]})
    rp = enc.begin_render_pass(color_attachments=[{
        "view": target.create_view(), "load_op": "clear", "store_op": "store"}])
    rp.set_pipeline(pipe)
    rp.set_bind_group(0, group)
    rp.set_index_buffer(r.kept, "uint32", 0, r.kept.size)
    rp.draw_indexed_indirect(r.args, ARGS_KEPT)
    rp.end()
    cp = enc.begin_compute_pass()
    cp.set_pipeline(dev.create_compute_pipeline(layout=pl, compute={"module": mod,
                                                                    "entry_point": "cs"}))
    cp.set_bind_group(0, group)
    cp.dispatch_workgroups_indirect(r.args, ARGS_DISPATCH)
    cp.end()
    dev.queue.submit([enc.finish()])
    got = np.frombuffer(dev.queue.read_buffer(marks), np.uint32)
    # kept [3, 1, 4, 1, 5] + 2: vertices 3, 5, 6, 7 in both instances (bits 0 and 1).
    assert [int(x) for x in np.flatnonzero(got[:31])] == [3, 5, 6, 7]
    assert set(got[[3, 5, 6, 7]].tolist()) == {3}
    # runs [3] and [1, 4, 1, 5]: 3 lines x 2 instances x 2 vertices = 12 items, 2 per
    # workgroup: 6 workgroups.
    assert got[31] == 6


# -- refusals ----------------------------------------------------------------------------------

def test_pass_refusals(gpu_device):
    dev = gpu_device.device
    strip = topology_info("TRIANGLESTRIP")
    enc = dev.create_command_encoder()
    with pytest.raises(InvalidDescError, match="gpuia Buffer"):
        encode_index_pass(gpu_device, enc, DrawIndexedInstanced(3), strip,
                          index_buffer=IndexBufferView(b"\0" * 8, "R16_UINT"))
    with pytest.raises(InvalidDescError, match="IBStripCutValue"):
        encode_index_pass(gpu_device, enc, DrawIndexedInstanced(3), strip, strip_cut_value=7)
    with pytest.raises(InvalidDescError, match="draw"):
        encode_index_pass(gpu_device, enc, {"DrawInstanced": {}}, strip)
    with pytest.raises(InvalidDescError, match="base_vertex"):
        encode_index_pass(gpu_device, enc, DrawInstanced(3), strip, base_vertex=1 << 31)
    buf = index_buffer(gpu_device, [0, 1, 2])
    buf.buffer.release()
    with pytest.raises(InvalidDescError, match="released"):
        encode_index_pass(gpu_device, enc, DrawIndexedInstanced(3), strip, index_buffer=buf)
    # 2**32 - 1 indices: streams far over one storage binding, refused before any allocation.
    with pytest.raises(UnsupportedError, match="max|binding"):
        encode_index_pass(gpu_device, enc, DrawIndexedInstanced(C32), strip)
    if not gpu_device.caps.indirect_first_instance:
        with pytest.raises(UnsupportedError, match="indirect-first-instance"):
            encode_index_pass(gpu_device, enc, DrawIndexedInstanced(3, 1, 0, 0, 1), strip)
    enc.finish()  # nothing was recorded: the encoder is still valid

