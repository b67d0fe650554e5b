"""The geometry shader's expansion into Stream Output on the GPU (gpuia.gpu.gs): regions of GS
output words become each stream's complete primitives in its targets, with per-stream fit,
overflow and 64-bit statistics (docs/rules.md 9.3, 9.7, 9.8, 10.1, 10.2, 13.4, 13.5, 13.8).

The small cases build regions by hand and derive the bytes by hand, in comments. The randomized
cases decode the same regions in numpy into the CPU reference's call arrays and compare the
GPU's buffers, filled sizes and statistics bit for bit with
``gpuia.reference.stream_output.write_streams`` over ``gpuia.reference.geometry
.stream_primitives``: the independent side. Pure parts: tests/unit/test_gs_expansion_plan.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import wgpu

from gpuia.d3d.geometry import STREAM_TYPES
from gpuia.d3d.so_declaration import resolve_stream_output
from gpuia.d3d.so_desc import SODeclarationEntry, StreamOutputDesc
from gpuia.errors import InvalidDescError
from gpuia.gpu.gs.expansion import GSStreamOutput
from gpuia.gpu.gs.plan import GSStreamPlan, GSTarget
from gpuia.reference.geometry import stream_primitives
from gpuia.reference.stream_output import SOTarget, StreamPrimitives, write_streams
from gpuia.wgsl.blocks import GS_SO_STATE
from gpuia.wgsl.signature import parse_vertex_shader

FILL = 0xA5A5A5A5  # every target word before the draws: an untouched word still reads it
NEW = 4  # header bit 2: the Append starts a strip of its stream
TYPES = {1: STREAM_TYPES["PointStream"], 2: STREAM_TYPES["LineStream"],
         3: STREAM_TYPES["TriangleStream"]}


def record(fields: str):
    """A signature whose outputs are the struct's fields (one stream's output record)."""
    return parse_vertex_shader(f"""
struct VSIn {{ POSITION: vec4<f32>, }}
struct VSOut {{ {fields} }}
@vertex fn main(input: VSIn) -> VSOut {{
  var o: VSOut;
  return o;
}}""")


ID = record("ID: u32,")
PAIR = record("A: vec2<u32>, B: u32,")
WIDE = record("A: vec2<u32>, B: u32, C: vec4<u32>,")


def entry(name, count, slot, stream=0, start=0):
    return SODeclarationEntry.of({"Stream": stream, "SemanticName": name, "SemanticIndex": 0,
                                  "StartComponent": start, "ComponentCount": count,
                                  "OutputSlot": slot})


def declaration(streams, *entries, strides):
    return resolve_stream_output(StreamOutputDesc(tuple(entries), tuple(strides), 0), ID,
                                 streams=[s.outputs for s in streams])


def plan_of(streams, vertices, n):
    return GSStreamPlan(tuple(vertices),
                        tuple(tuple((m.key, m.components) for m in s.outputs) for s in streams),
                        n)


def regions(plan: GSStreamPlan, invocations) -> np.ndarray:
    """The regions of ``invocations``: per invocation a list of Appends (stream, starts a
    strip, record words)."""
    r = plan.record_words
    out = np.zeros((len(invocations), plan.region_words), np.uint32)
    for i, appends in enumerate(invocations):
        out[i, 0] = len(appends)
        for a, (s, new, words) in enumerate(appends):
            at = 1 + a * (1 + r)
            out[i, at] = s | (NEW if new else 0)
            out[i, at + 1:at + 1 + len(words)] = words
    return out.reshape(-1)


def strip(stream, *words, cuts=()):
    """Appends of one stream: a record word each (one-word records), a new strip at the first
    and after each index in ``cuts``."""
    return [(stream, k == 0 or k in cuts, [w]) for k, w in enumerate(words)]


def run_gpu(device, plan, so, draws, targets, chunk=1 << 20):
    """(per slot the target's words, per slot its BufferFilledSize, per-stream statistics,
    overflow flags) after each draw's regions ran in order; ``targets``: slot -> (SizeInBytes,
    BufferFilledSize, BufferLocation) or None (a declared slot without a target)."""
    dev = device.device
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
    gs = GSStreamOutput(device, chunk=chunk)
    bound: dict = {}
    for slot, spec in targets.items():
        if spec is None:
            bound[slot] = None
            continue
        size, filled, location = spec
        data = dev.create_buffer_with_data(
            data=np.full((location + size) // 4 + 4, FILL, np.uint32), usage=usage)
        counter = dev.create_buffer_with_data(data=np.array([7, filled, 7, 7], np.uint32),
                                              usage=usage)
        bound[slot] = GSTarget(data, location, size, counter, 4)
    for words in draws:
        n = words.shape[0] // plan.region_words
        buf = dev.create_buffer_with_data(data=np.append(words, np.zeros(4, np.uint32)),
                                          usage=wgpu.BufferUsage.STORAGE)
        enc = dev.create_command_encoder()
        keep = gs.encode(enc, buf, n, plan, so, bound)
        dev.queue.submit([enc.finish()])
        del keep
    data, filled = {}, {}
    for slot, t in bound.items():
        if t is None:
            continue
        words = np.frombuffer(dev.queue.read_buffer(t.buffer), np.uint32)
        data[slot] = words[t.location // 4:(t.location + t.size) // 4]
        filled[slot] = int(np.frombuffer(dev.queue.read_buffer(t.counter), np.uint32)[1])
    return data, filled, gs.statistics(), gs.overflowed()


def decode(plan: GSStreamPlan, draws):
    """The regions of each draw as the reference's calls: (invocation, stream, cut, kept,
    record words per call, draw per call); an Append starting a strip of a stream that already
    appended in its invocation follows a RestartStrip of that stream."""
    inv, stream, cut, words, draw = [], [], [], [], []
    r = plan.record_words
    i = 0
    for d, flat in enumerate(draws):
        for region in flat.reshape(-1, plan.region_words):
            seen = set()
            for a in range(min(int(region[0]), plan.max_vertex_count)):
                at = 1 + a * (1 + r)
                s, new = int(region[at]) & 3, bool(region[at] & NEW)
                if new and s in seen:
                    inv.append(i), stream.append(s), cut.append(True), draw.append(d)
                    words.append(np.zeros(r, np.uint32))
                inv.append(i), stream.append(s), cut.append(False), draw.append(d)
                words.append(region[at + 1:at + 1 + r])
                seen.add(s)
            i += 1
    words_array = np.array(words, np.uint32).reshape(-1, r)
    return (np.array(inv, np.int64), np.array(stream, np.int64), np.array(cut, bool),
            words_array, np.array(draw, np.int64))


def run_reference(plan, so, draws, targets):
    """The reference's SOResult for the same regions and targets as :func:`run_gpu`."""
    inv, stream, cut, words, draw = decode(plan, draws)
    kept = np.ones(inv.shape[0], bool)
    streams = []
    for s, v in enumerate(plan.vertices):
        prims = stream_primitives(inv, stream, cut, kept, s, TYPES[v])
        outputs, w = {}, 0
        for key, comps in plan.records[s]:
            outputs[key] = words[:, w:w + comps]
            w += comps
        streams.append(StreamPrimitives(prims, draw[prims[:, 0]] if len(prims) else
                                        np.zeros(0, np.int64), outputs, len(draws)))
    fill = np.full(1, FILL, np.uint32).tobytes()
    ref_targets = {slot: None if spec is None else SOTarget(fill * (spec[0] // 4), spec[1])
                   for slot, spec in targets.items()}
    return write_streams(so, streams, ref_targets)


def check_against_reference(device, plan, so, draws, targets, chunk=1 << 20):
    data, filled, stats, _ = run_gpu(device, plan, so, draws, targets, chunk)
    ref = run_reference(plan, so, draws, targets)
    for slot in data:
        assert data[slot].tobytes() == ref.buffers[slot], slot
        assert filled[slot] == ref.filled_size[slot], slot
    assert stats == ref.streams
    return ref


# -- by hand -----------------------------------------------------------------------------------
def test_a_triangle_strip_of_5_appends_is_3_triangles_in_d3d_order(gpu_device):
    # Appends 10..14: triangles t=0 (10, 11, 12), t=1 odd (11, 13, 12), t=2 (12, 13, 14).
    plan = plan_of([ID], [3], 5)
    so = declaration([ID], entry("ID", 1, 0), strides=(4,))
    data, filled, stats, over = run_gpu(gpu_device, plan, so,
                                        [regions(plan, [strip(0, 10, 11, 12, 13, 14)])],
                                        {0: (64, 0, 0)})
    assert data[0][:9].tolist() == [10, 11, 12, 11, 13, 12, 12, 13, 14]
    assert (data[0][9:] == FILL).all()
    assert filled[0] == 36
    assert stats[0] == {"NumPrimitivesWritten": 3, "PrimitivesStorageNeeded": 3}
    assert not any(over)


def test_a_restart_strip_in_the_middle_and_an_invocation_without_appends(gpu_device):
    # Invocation 0 appends nothing. Invocation 1: 10, 11, 12 | cut | 13, 14, 15, 16: strips of
    # 3 and 4 vertices make (10, 11, 12), then (13, 14, 15) and odd (14, 16, 15). Invocation 2:
    # 20, 21 then a cut and 22: two strips too short, nothing. Invocation 3: 30, 31, 32.
    plan = plan_of([ID], [3], 8)
    so = declaration([ID], entry("ID", 1, 0), strides=(4,))
    words = regions(plan, [[], strip(0, 10, 11, 12, 13, 14, 15, 16, cuts=(3,)),
                           strip(0, 20, 21, 22, cuts=(2,)), strip(0, 30, 31, 32)])
    data, filled, stats, _ = run_gpu(gpu_device, plan, so, [words], {0: (64, 0, 0)})
    assert data[0][:12].tolist() == [10, 11, 12, 13, 14, 15, 14, 16, 15, 30, 31, 32]
    assert filled[0] == 48
    assert stats[0] == {"NumPrimitivesWritten": 4, "PrimitivesStorageNeeded": 4}


def test_a_line_strip_with_gaps_and_two_members(gpu_device):
    # Records (A.x, A.y, B); slot 0 takes B then a 1-word gap then A.y, stride 16 (word 3 is
    # beyond the declaration). Appends (1,2,3), (4,5,6), (7,8,9): segments (v0, v1), (v1, v2);
    # each vertex writes [B, gap, A.y, untouched].
    plan = plan_of([PAIR], [2], 3)
    gap = SODeclarationEntry.of({"Stream": 0, "SemanticName": None, "ComponentCount": 1,
                                 "OutputSlot": 0})
    so = resolve_stream_output(StreamOutputDesc((entry("B", 1, 0), gap, entry("A", 1, 0, 0, 1)),
                                                 (16,), 0), ID, streams=[PAIR.outputs])
    appends = [(0, True, [1, 2, 3]), (0, False, [4, 5, 6]), (0, False, [7, 8, 9])]
    data, filled, _, _ = run_gpu(gpu_device, plan, so, [regions(plan, [appends])],
                                 {0: (80, 0, 16)})
    f = FILL
    assert data[0].tolist() == [3, f, 2, f, 6, f, 5, f, 6, f, 5, f, 9, f, 8, f, f, f, f, f]
    assert filled[0] == 64


def test_two_point_streams_overflow_each_on_its_own(gpu_device):
    # Stream 0 into slot 0 (room for 3 points), stream 1 into slot 1 (room for 8). Draw 1: 2
    # invocations each append 2 points on stream 0 and 1 on stream 1: stream 0 needs 4, writes
    # the 3 that fit (1, 2, 3: whole primitives in order) and overflows; stream 1 writes both
    # of its points. Draw 2: stream 0 stays overflowed and writes nothing more (needed 8 in
    # all), stream 1 writes 2 more (100, 101 again).
    plan = plan_of([ID, ID], [1, 1], 4)
    so = declaration([ID, ID], entry("ID", 1, 0, 0), entry("ID", 1, 1, 1), strides=(4, 4))
    draw = regions(plan, [[(0, True, [1]), (0, False, [2]), (1, True, [100])],
                          [(0, True, [3]), (1, True, [101]), (0, False, [4])]])
    targets = {0: (12, 0, 0), 1: (32, 0, 0)}
    data, filled, stats, over = run_gpu(gpu_device, plan, so, [draw, draw], targets)
    assert data[0].tolist() == [1, 2, 3]
    assert data[1].tolist()[:4] == [100, 101, 100, 101] and (data[1][4:] == FILL).all()
    assert filled == {0: 12, 1: 16}
    assert stats[0] == {"NumPrimitivesWritten": 3, "PrimitivesStorageNeeded": 8}
    assert stats[1] == {"NumPrimitivesWritten": 4, "PrimitivesStorageNeeded": 4}
    assert over == (True, False, False, False)


def test_statistics_across_draws_and_a_stream_without_a_slot(gpu_device):
    # Stream 1 writes no slot: it counts nothing (rules 10.3) and its Appends do not disturb
    # stream 0. Two draws of one invocation each: points 5, 6 then 7 on stream 0.
    plan = plan_of([ID, ID], [1, 1], 4)
    so = declaration([ID, ID], entry("ID", 1, 2, 0), strides=(0, 0, 8))
    first = regions(plan, [[(0, True, [5]), (1, True, [50]), (0, False, [6])]])
    second = regions(plan, [[(1, True, [51]), (0, True, [7])]])
    data, filled, stats, over = run_gpu(gpu_device, plan, so, [first, second], {2: (64, 8, 0)})
    # filled starts at 8: points at bytes 8, 16, 24 (stride 8), word 1 of each left untouched.
    f = FILL
    assert data[2].tolist()[:8] == [f, f, 5, f, 6, f, 7, f]
    assert filled[2] == 32
    assert stats[0] == {"NumPrimitivesWritten": 3, "PrimitivesStorageNeeded": 3}
    assert stats[1] == {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 0}
    assert not any(over)


def test_a_declared_slot_without_a_target_is_full(gpu_device):
    # Slot 1 is declared for stream 0 but nothing is bound: nothing is written to slot 0 either
    # (rules 9.8), 1 triangle needed, and the stream has overflowed.
    plan = plan_of([PAIR], [3], 3)
    so = resolve_stream_output(StreamOutputDesc((entry("A", 2, 0), entry("B", 1, 1)), (8, 4), 0),
                               ID, streams=[PAIR.outputs])
    appends = [(0, k == 0, [k, k, k]) for k in range(3)]
    data, filled, stats, over = run_gpu(gpu_device, plan, so, [regions(plan, [appends])],
                                        {0: (64, 0, 0), 1: None})
    assert (data[0] == FILL).all() and filled[0] == 0
    assert stats[0] == {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 1}
    assert over[0]


# -- against the reference ---------------------------------------------------------------------
def random_invocations(rng, plan, count, cut_rate=0.2):
    """``count`` invocations of random Appends over the plan's streams, each record's words
    random, header bit 2 on each stream's first Append and at random after it."""
    out = []
    streams = len(plan.vertices)
    for _ in range(count):
        n = int(rng.integers(0, plan.max_vertex_count + 1))
        seen: set = set()
        appends = []
        for _ in range(n):
            s = int(rng.integers(0, streams))
            new = s not in seen or bool(rng.random() < cut_rate)
            seen.add(s)
            words = rng.integers(0, 1 << 32, plan.record_words, dtype=np.uint64)
            appends.append((s, new, words.astype(np.uint32).tolist()))
        out.append(appends)
    return out


@pytest.mark.parametrize("vertices", [1, 2, 3])
def test_random_single_stream_with_chunks_matches_the_reference(gpu_device, vertices):
    rng = np.random.default_rng(100 + vertices)
    plan = plan_of([WIDE], [vertices], 6)
    gap = SODeclarationEntry.of({"Stream": 0, "SemanticName": None, "ComponentCount": 2,
                                 "OutputSlot": 1})
    so = resolve_stream_output(StreamOutputDesc(
        (entry("A", 2, 0), entry("B", 1, 0), entry("C", 2, 1, 0, 2), gap, entry("C", 1, 1)),
        (12, 20), 0), ID, streams=[WIDE.outputs])
    draws = [regions(plan, random_invocations(rng, plan, 700)) for _ in range(3)]
    # Room for most of the first draw: the stream overflows part-way, in a later chunk.
    targets = {0: (12 * vertices * 1500, 24, 0), 1: (20 * vertices * 1600, 0, 0)}
    ref = check_against_reference(gpu_device, plan, so, draws, targets, chunk=300)
    assert 0 < ref.streams[0]["NumPrimitivesWritten"] < ref.streams[0]["PrimitivesStorageNeeded"]


def test_random_four_point_streams_over_two_scan_levels_match_the_reference(gpu_device):
    rng = np.random.default_rng(7)
    plan = plan_of([ID, PAIR, ID, PAIR], [1, 1, 1, 1], 3)
    so = resolve_stream_output(StreamOutputDesc(
        (entry("ID", 1, 0, 0), entry("A", 2, 1, 1), entry("B", 1, 2, 1), entry("B", 1, 3, 3)),
        (4, 8, 4, 4), 0), ID, streams=[s.outputs for s in (ID, PAIR, ID, PAIR)])
    # 3000 invocations: 3 blocks of 1024 at level 0, so the scan reduces, scans its top and
    # comes down again; stream 2 writes no slot, slot 3 overflows part-way.
    draws = [regions(plan, random_invocations(rng, plan, 3000)) for _ in range(2)]
    targets = {0: (4 * 5000, 0, 0), 1: (8 * 5000, 0, 0), 2: (4 * 5000, 0, 0), 3: (4 * 1000, 0, 0)}
    ref = check_against_reference(gpu_device, plan, so, draws, targets)
    assert ref.streams[2]["PrimitivesStorageNeeded"] == 0
    assert ref.streams[3]["NumPrimitivesWritten"] < ref.streams[3]["PrimitivesStorageNeeded"]


def test_three_scan_levels_match_the_reference(gpu_device):
    # 1024 * 1024 + 5 invocations of one point each (every 7th none): level 0 has 1025 blocks,
    # level 1 two, so the scan runs over three levels.
    plan = plan_of([ID], [1], 1)
    so = declaration([ID], entry("ID", 1, 0), strides=(4,))
    n = 1024 * 1024 + 5
    words = np.zeros((n, plan.region_words), np.uint32)
    words[:, 0] = (np.arange(n) % 7 != 0)
    words[:, 1] = NEW
    words[:, 2] = np.arange(n, dtype=np.uint32) * 3
    check_against_reference(gpu_device, plan, so, [words.reshape(-1)], {0: (4 * n, 0, 0)})


# -- buffers, 64-bit counts, refusals ----------------------------------------------------------
def test_two_slots_and_their_counters_in_one_buffer(gpu_device):
    # One buffer: the counters of slots 0 and 1 at bytes 0 and 4 (rules 9.6: a counter may
    # live in the data's buffer), slot 0's data from byte 16, slot 1's from byte 48. Stream 0
    # (records A.xy, B) writes A to slot 0 and B to slot 1: points (1, 2, 3) and (4, 5, 6).
    dev = gpu_device.device
    plan = plan_of([PAIR], [1], 2)
    so = resolve_stream_output(StreamOutputDesc((entry("A", 2, 0), entry("B", 1, 1)), (8, 4), 0),
                               ID, streams=[PAIR.outputs])
    words = np.full(20, FILL, np.uint32)
    words[0], words[1] = 0, 4  # slot 1 already holds one vertex
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
    buf = dev.create_buffer_with_data(data=words, usage=usage)
    targets = {0: GSTarget(buf, 16, 32, buf, 0), 1: GSTarget(buf, 48, 16, buf, 4)}
    gs = GSStreamOutput(gpu_device)
    regions_buffer = dev.create_buffer_with_data(
        data=regions(plan, [[(0, True, [1, 2, 3]), (0, False, [4, 5, 6])]]),
        usage=wgpu.BufferUsage.STORAGE)
    enc = dev.create_command_encoder()
    keep = gs.encode(enc, regions_buffer, 1, plan, so, targets)
    dev.queue.submit([enc.finish()])
    del keep
    out = np.frombuffer(dev.queue.read_buffer(buf), np.uint32)
    f = FILL
    assert out.tolist() == [16, 12, f, f, 1, 2, 4, 5, f, f, f, f, f, 3, 6, f, f, f, f, f]
    assert gs.statistics()[0] == {"NumPrimitivesWritten": 2, "PrimitivesStorageNeeded": 2}
    assert gs.written() == (2, 0, 0, 0)


def test_the_statistics_carry_into_their_high_words(gpu_device):
    # Counts just below 2**32: 3 points more carry into the high words (rules 10.1: 64 bits).
    plan = plan_of([ID], [1], 3)
    so = declaration([ID], entry("ID", 1, 0), strides=(4,))
    gs = GSStreamOutput(gpu_device)
    dev = gpu_device.device
    stats = 4 * GS_SO_STATE.word("stats")
    dev.queue.write_buffer(gs.state, stats, np.array([0xFFFFFFFE, 0, 0xFFFFFFFF, 7], np.uint32))
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
    data = dev.create_buffer(size=64, usage=usage)
    counter = dev.create_buffer(size=16, usage=usage)
    buf = dev.create_buffer_with_data(data=regions(plan, [strip(0, 1, 2, 3)]),
                                      usage=wgpu.BufferUsage.STORAGE)
    enc = dev.create_command_encoder()
    keep = gs.encode(enc, buf, 1, plan, so, {0: GSTarget(data, 0, 64, counter, 0)})
    dev.queue.submit([enc.finish()])
    del keep
    assert gs.statistics()[0] == {"NumPrimitivesWritten": (1 << 32) + 1,
                                  "PrimitivesStorageNeeded": (8 << 32) + 2}
    gs.clear_overflow()
    assert gs.overflowed() == (False,) * 4


def test_refusals_record_nothing(gpu_device):
    dev = gpu_device.device
    plan = plan_of([ID], [1], 3)  # regions of 1 + 3 * 2 = 7 words
    so = declaration([ID], entry("ID", 1, 0), strides=(4,))
    gs = GSStreamOutput(gpu_device)
    usage = wgpu.BufferUsage.STORAGE
    small = dev.create_buffer(size=48, usage=usage)
    data = dev.create_buffer(size=64, usage=usage)
    enc = dev.create_command_encoder()
    with pytest.raises(InvalidDescError, match="2 regions of 7 words need 56 bytes"):
        gs.encode(enc, small, 2, plan, so, {})
    with pytest.raises(InvalidDescError, match="the target inside the 64-byte buffer"):
        gs.encode(enc, small, 1, plan, so, {0: GSTarget(data, 2, 16, data, 0)})
    with pytest.raises(InvalidDescError, match="the target inside the 64-byte buffer"):
        gs.encode(enc, small, 1, plan, so, {0: GSTarget(data, 16, 64, data, 0)})
    with pytest.raises(InvalidDescError, match="BufferFilledSizeLocation"):
        gs.encode(enc, small, 1, plan, so, {0: GSTarget(data, 0, 16, data, 62)})
    with pytest.raises(InvalidDescError, match="invocations"):
        gs.encode(enc, small, -1, plan, so, {})
    with pytest.raises(InvalidDescError, match="chunk"):
        GSStreamOutput(gpu_device, chunk=0)
    assert gs.encode(enc, small, 0, plan, so, {}) == ()
