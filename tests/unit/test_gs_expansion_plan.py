"""The pure parts of the geometry shader's expansion into Stream Output (gpuia.gpu.gs.plan,
gpuia.wgsl.gs_expansion): the stream plan and its region layout, each entry's record word, the
bindings of the targets, the parameter records and the scan's levels. Needs no adapter; the
passes themselves run in tests/gpu/test_gpu_gs_expansion.py."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.d3d.geometry import GeometryDeclaration
from gpuia.d3d.so_declaration import resolve_stream_output
from gpuia.d3d.so_desc import SODeclarationEntry, StreamOutputDesc
from gpuia.errors import InvalidDescError
from gpuia.gpu.gs.plan import (
    GSStreamPlan,
    GSTarget,
    entry_table,
    params_records,
    stream_vertices,
    target_bindings,
)
from gpuia.wgsl.blocks import GS_SO_PARAMS, GS_SO_SLOT
from gpuia.wgsl.gs_expansion import BLOCK, PARAMS_WORDS, PROGRAMS, gs_program, scan_levels
from gpuia.wgsl.signature import parse_vertex_shader


def record(fields: str):
    return parse_vertex_shader(f"""
struct VSIn {{ POSITION: vec4<f32>, }}
struct VSOut {{ {fields} }}
@vertex fn main(input: VSIn) -> VSOut {{
  var o: VSOut;
  return o;
}}""")


S0 = record("SV_Position: vec4<f32>, COLOR: vec3<f32>, ID: u32,")
S1 = record("TEXCOORD: vec2<f32>, ID: u32,")


def entry(name, count, slot, stream=0, start=0):
    return SODeclarationEntry.of({"Stream": stream, "SemanticName": name, "SemanticIndex": 0,
                                  "StartComponent": start, "ComponentCount": count,
                                  "OutputSlot": slot})


GAP = SODeclarationEntry.of({"Stream": 0, "SemanticName": None, "ComponentCount": 2,
                             "OutputSlot": 0})


def plan2() -> GSStreamPlan:
    gs = GeometryDeclaration("point", 5, ("PointStream", "PointStream"), (8, 3))
    return GSStreamPlan.of(gs, [S0.outputs, S1.outputs])


def test_the_plan_reads_the_declaration_and_each_streams_record():
    plan = plan2()
    assert plan.vertices == (1, 1)
    assert plan.records == ((("SV_POSITION0", 4), ("COLOR0", 3), ("ID0", 1)),
                            (("TEXCOORD0", 2), ("ID0", 1)))
    # R is the largest record (8 words); a region is 1 + N * (1 + R) words.
    assert (plan.record_words, plan.region_words) == (8, 1 + 5 * 9)
    assert [plan.member_word(0, k) for k in ("SV_POSITION0", "COLOR0", "ID0")] == [0, 4, 7]
    assert [plan.member_word(1, k) for k in ("TEXCOORD0", "ID0")] == [0, 2]
    tri = GSStreamPlan.of(GeometryDeclaration("triangle", 3, ("TriangleStream",), (8,)),
                          [S0.outputs])
    assert tri.vertices == (3,)


@pytest.mark.parametrize("args, says", [
    (((), (), 4), "1 to 4 streams"),
    (((1,) * 5, ((),) * 5, 4), "1 to 4 streams"),
    (((4,), ((("A0", 1),),), 4), "1, 2 or 3 vertices"),
    (((1, 1), ((("A0", 1),),), 4), "one record per stream"),
    (((1,), ((("A0", 1),),), 0), "1 to 1024"),
    (((1,), ((("A0", 1),),), 1025), "1 to 1024"),
])
def test_a_plan_that_is_no_geometry_shaders_is_refused(args, says):
    with pytest.raises(InvalidDescError, match=says):
        GSStreamPlan(*args)


def test_a_member_or_stream_the_plan_lacks_is_refused():
    with pytest.raises(InvalidDescError, match="no member of stream 1's record"):
        plan2().member_word(1, "COLOR0")
    with pytest.raises(InvalidDescError, match="has 2 stream"):
        plan2().member_word(2, "ID0")


def declaration():
    # Slot 0 (stream 0): COLOR.yz, a 2-word gap, ID; slot 2 (stream 1): ID then TEXCOORD.
    desc = StreamOutputDesc((entry("COLOR", 2, 0, 0, 1), GAP, entry("ID", 1, 0),
                             entry("ID", 1, 2, 1), entry("TEXCOORD", 2, 2, 1)), (20, 0, 12), 0)
    return resolve_stream_output(desc, S0, streams=[S0.outputs, S1.outputs])


def test_the_entries_table_holds_each_entry_but_gaps_with_its_record_word():
    where, table = entry_table(plan2(), declaration())
    assert where == {0: (0, 2), 2: (2, 2)}
    # (record word, word in the vertex, components, 0): COLOR.y is record word 5; ID of
    # stream 0 word 7 after the gap at vertex word 4; stream 1's ID word 2, TEXCOORD word 0.
    assert table.tolist() == [[5, 0, 2, 0], [7, 4, 1, 0], [2, 0, 1, 0], [0, 1, 2, 0]]
    assert table.dtype == np.uint32


def test_streams_that_write_no_slot_count_nothing():
    so = resolve_stream_output(StreamOutputDesc((entry("ID", 1, 1, 1),), (0, 4), 0), S0,
                               streams=[S0.outputs, S1.outputs])
    assert stream_vertices(plan2(), so) == (0, 1, 0, 0)
    assert stream_vertices(plan2(), declaration()) == (1, 1, 0, 0)


def test_each_distinct_buffer_is_bound_once_and_undeclared_slots_are_ignored():
    a, b, c = object(), object(), object()
    targets = {0: GSTarget(a, 0, 64, c, 0), 1: GSTarget(b, 0, 64, b, 0),
               2: GSTarget(a, 64, 64, c, 4)}
    bindings = target_bindings(declaration(), targets)
    # Slot 1 is not declared: its target takes no binding (rules 9.8).
    assert bindings.data == (a,) and bindings.counters == (c,)
    assert bindings.slots == {0: (0, 0), 2: (0, 0)}


def test_params_records_one_per_scan_level_with_the_slots():
    plan, so = plan2(), declaration()
    buf, counter = object(), object()
    targets = {0: GSTarget(buf, 16, 400, counter, 8), 2: None}
    bindings = target_bindings(so, targets)
    where, _ = entry_table(plan, so)
    records = params_records(plan, so, targets, bindings, where, (2048, 2000), 128)
    assert records.shape == (2, 128) and records.dtype == np.uint32

    def word(name):
        return GS_SO_PARAMS.word(name)

    assert records[:, word("level")].tolist() == [0, 1]
    assert set(records[:, word("top")]) == {1}
    assert records[0, word("first")] == 2048 and records[0, word("invocations")] == 2000
    assert records[0, word("region_words")] == plan.region_words
    assert records[0, word("total_at")] == 2000 + 2
    at = word("level_length")
    assert records[0, at:at + 4].tolist() == [2000, 2, 0, 0]
    at = word("level_offset")
    assert records[0, at:at + 4].tolist() == [0, 2000, 0, 0]
    slot0 = records[0, word("slots"):word("slots") + GS_SO_SLOT.words()]
    assert dict(zip((f.name for f in GS_SO_SLOT.fields), slot0.tolist(), strict=True)) == {
        "declared": 1, "bound": 1, "stream": 0, "stride": 20, "location": 16, "size": 400,
        "data": 0, "counter": 0, "counter_word": 2, "entry_first": 0, "entry_count": 2,
        "rotate": 0}
    slot2 = records[0, word("slots") + 2 * GS_SO_SLOT.words():][:GS_SO_SLOT.words()]
    assert slot2[:4].tolist() == [1, 0, 1, 12]  # declared, no target (full), stream 1
    assert records[0, word("slots") + GS_SO_SLOT.words()] == 0  # slot 1 is not declared
    assert PARAMS_WORDS <= 128


def test_scan_levels_reduce_by_blocks_until_one_block():
    assert scan_levels(0) == [0]
    assert scan_levels(1) == [1]
    assert scan_levels(BLOCK) == [BLOCK]
    assert scan_levels(BLOCK + 1) == [BLOCK + 1, 2]
    assert scan_levels(10_000_000) == [10_000_000, 9766, 10]
    assert scan_levels(BLOCK * BLOCK + 1) == [BLOCK * BLOCK + 1, BLOCK + 1, 2]


def test_each_program_holds_its_entry_points_and_the_parameter_block():
    for name, entries in PROGRAMS.items():
        text = gs_program(name)
        assert GS_SO_PARAMS.wgsl() in text
        assert all(f"fn {e}(" in text for e in entries)
    with pytest.raises(ValueError, match="no GS expansion program 'nope'"):
        gs_program("nope")
