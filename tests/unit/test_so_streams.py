"""Stream Output declarations of a geometry shader's streams (rules 8.3, 8.9, 8.10, 13.7):
entries name outputs of their own stream, a slot takes one stream, the component limit is per
stream. The expected outcomes are read off the rules. Needs no adapter."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia import InvalidDescError
from gpuia.d3d.so_declaration import resolve_stream_output
from gpuia.d3d.so_desc import SO_NO_RASTERIZED_STREAM, SODeclarationEntry, StreamOutputDesc
from gpuia.reference.stream_output import SOTarget, StreamPrimitives, write_streams
from gpuia.wgsl.signature import parse_vertex_shader


def record(fields: str):
    """A signature whose outputs are the struct's fields (one stream's output record)."""
    names = [f.split(":")[0].strip() for f in fields.split(",") if f.strip()]
    body = "\n".join(f"  o.{n} = o.{n};" for n in names)
    return parse_vertex_shader(f"""
struct VSIn {{ POSITION: vec4<f32>, }}
struct VSOut {{ {fields} }}
@vertex fn main(input: VSIn) -> VSOut {{
  var o: VSOut;
{body}
  return o;
}}""")


VS = record("SV_Position: vec4<f32>,")
STREAM0 = record("SV_Position: vec4<f32>, COLOR: vec4<f32>,")
STREAM1 = record("TEXCOORD: vec2<f32>, COLOR: vec4<f32>, ID: u32,")
GS = (STREAM0.outputs, STREAM1.outputs)


def entry(name, count, slot, stream, start=0, index=0):
    return SODeclarationEntry.of({"Stream": stream, "SemanticName": name, "SemanticIndex": index,
                                  "StartComponent": start, "ComponentCount": count,
                                  "OutputSlot": slot})


def desc(*entries, strides=(), rasterized=0):
    return StreamOutputDesc(tuple(entries), tuple(strides), rasterized)


def test_two_streams_into_their_own_slots():
    # Stream 0: SV_Position (16 bytes) into slot 0; stream 1: TEXCOORD (8) and ID (4) into
    # slot 2, then COLOR of stream 1 (16) into slot 3. COLOR exists in both streams: they are
    # different outputs, so stream 1's COLOR overlaps nothing (rules 8.6 is per output).
    d = desc(entry("SV_Position", 4, 0, 0), entry("TEXCOORD", 2, 2, 1), entry("ID", 1, 2, 1),
             entry("COLOR", 4, 3, 1), entry("COLOR", 4, 1, 0), strides=(16, 16, 12, 16))
    so = resolve_stream_output(d, VS, streams=GS)
    assert [(s.slot, s.stream, s.stride) for s in so.slots] == [
        (0, 0, 16), (1, 0, 16), (2, 1, 12), (3, 1, 16)]
    assert so.streams == (0, 1)
    assert [s.slot for s in so.slots_of(1)] == [2, 3]
    assert so.slots_of(2) == ()
    slot2 = so.slots_of(1)[0]
    assert [(e.byte_offset, e.member.key) for e in slot2.entries] == [(0, "TEXCOORD0"), (8, "ID0")]


def test_8_3_an_entry_names_an_output_of_its_own_stream():
    # ID is an output of stream 1 only: a stream-0 entry naming it names nothing.
    with pytest.raises(InvalidDescError, match=r"SO entry 0 \(ID0\): SemanticName='ID': "
                                               r"stream 0 of the geometry shader has no output "
                                               r"with semantic ID index 0.*rules 8\.3"):
        resolve_stream_output(desc(entry("ID", 1, 0, 0)), VS, streams=GS)


def test_8_9_a_slot_takes_one_stream():
    d = desc(entry("SV_Position", 4, 0, 0), entry("TEXCOORD", 2, 0, 1), strides=(24,))
    with pytest.raises(InvalidDescError, match=r"SO entry 1 \(TEXCOORD0\): OutputSlot=0: slot 0 "
                                               r"takes stream 0 .*one stream only \(rules 8\.9\)"):
        resolve_stream_output(d, VS, streams=GS)


def test_13_7_an_entry_of_a_stream_the_shader_lacks():
    with pytest.raises(InvalidDescError, match=r"Stream=2: the geometry shader has 2 output "
                                               r"streams \(rules 13\.7\)"):
        resolve_stream_output(desc(entry("COLOR", 4, 0, 2)), VS, streams=GS)
    # A vertex shader still writes stream 0 only.
    with pytest.raises(InvalidDescError, match=r"Stream=1: .*stream 0 only \(rules 8\.12\)"):
        resolve_stream_output(desc(entry("SV_Position", 4, 0, 1)), VS)


WIDE = record("".join(f"A{k}: vec4<f32>, " for k in range(33)))


def test_8_9_the_component_limit_is_per_stream():
    # 128 components per stream (D3D12): 32 four-component entries of stream 0 over slots 0-1
    # (256 bytes each) and 32 of stream 1 over slots 2-3 are 128 + 128: accepted. A 33rd entry
    # on stream 0 makes 132 in stream 0: refused, naming stream 0.
    def half(stream, slots):
        return [entry("A", 4, slots[k // 16], stream, index=k) for k in range(32)]
    both = (WIDE.outputs, WIDE.outputs)
    entries = half(0, (0, 1)) + half(1, (2, 3))
    so = resolve_stream_output(desc(*entries, strides=(512,) * 4), VS, streams=both)
    assert so.streams == (0, 1)
    over = entries + [entry("A", 4, 1, 0, index=32)]
    with pytest.raises(InvalidDescError, match=r"NumEntries=132: more than 128 components in "
                                               r"stream 0 .*rules 8\.9"):
        resolve_stream_output(desc(*over, strides=(512,) * 4), VS, streams=both)


@pytest.mark.parametrize("rasterized, streams, expected", [
    (0, None, True), (1, None, False), (SO_NO_RASTERIZED_STREAM, None, False),
    (1, GS, True), (0, GS, True), (3, GS, False), (SO_NO_RASTERIZED_STREAM, GS, False),
])
def test_8_10_the_rasterized_stream_is_one_the_shader_has(rasterized, streams, expected):
    d = desc(entry("COLOR", 4, 0, 0) if streams else entry("SV_Position", 4, 0, 0),
             rasterized=rasterized)
    assert resolve_stream_output(d, VS, streams=streams).rasterizes is expected


# -- what the streams write (rules 9.7, 9.8, 10.1, 13.8) ----------------------------------------

def test_13_8_each_stream_overflows_and_counts_on_its_own():
    s0 = record("COLOR: vec4<u32>,")
    s1 = record("TEXCOORD: vec2<u32>, ID: u32,")
    so = resolve_stream_output(desc(entry("COLOR", 4, 0, 0), entry("ID", 1, 1, 1),
                                    entry("TEXCOORD", 2, 2, 1), strides=(16, 4, 8)),
                               VS, streams=(s0.outputs, s1.outputs))
    # Stream 0: three points in draw 0 into a 40-byte slot 0 of stride 16: two fit (32 bytes),
    # the third does not, so 2 written of 3 needed, and bytes 32-39 stay as they were.
    color = np.arange(1, 13, dtype=np.uint32).reshape(3, 4)
    stream0 = StreamPrimitives(np.array([[0], [1], [2]]), np.array([0, 0, 0]),
                               {"COLOR0": color}, 2)
    # Stream 1: points 0, 1 in draw 0 and 2, 3 in draw 1, into slot 1 (ID, 4 bytes, room for
    # all) and slot 2 (TEXCOORD, 8 bytes, 24-byte buffer: room for 3). Draw 0 writes both; in
    # draw 1 8 bytes are left in slot 2: one point fits, the second does not (written 1, then
    # the stream stops). Stream 0's overflow in draw 0 does not stop stream 1.
    ids = np.array([[10], [11], [12], [13]], np.uint32)
    tex = np.array([[20, 21], [22, 23], [24, 25], [26, 27]], np.uint32)
    stream1 = StreamPrimitives(np.array([[0], [1], [2], [3]]), np.array([0, 0, 1, 1]),
                               {"ID0": ids, "TEXCOORD0": tex}, 2)
    fill = b"\xab" * 40
    res = write_streams(so, [stream0, stream1], {0: SOTarget(fill), 1: SOTarget(fill[:20]),
                                                  2: SOTarget(fill[:24])})
    u32 = np.dtype("<u4")
    assert np.frombuffer(res.buffers[0][:32], u32).tolist() == list(range(1, 9))
    assert res.buffers[0][32:] == fill[32:]
    assert np.frombuffer(res.buffers[1][:12], u32).tolist() == [10, 11, 12]
    assert res.buffers[1][12:] == fill[12:20]
    assert np.frombuffer(res.buffers[2], u32).tolist() == [20, 21, 22, 23, 24, 25]
    assert res.filled_size == {0: 32, 1: 12, 2: 24}
    assert res.streams == [{"NumPrimitivesWritten": 2, "PrimitivesStorageNeeded": 3},
                           {"NumPrimitivesWritten": 3, "PrimitivesStorageNeeded": 4},
                           {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 0},
                           {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 0}]
    assert res.statistics == res.streams[0]
    assert res.written_per_draw == [2, 0]
