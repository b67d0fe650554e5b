"""Stream Output without a GPU: declaration validation (rules section 8) and the CPU reference
(sections 9 and 10), through the Python API, case files and the command line.

Every expected byte is derived by hand here (``struct.pack`` of the values D3D writes), never
taken from gpuia's output. The pass-through shader outputs each input element as 4 components
after D3D's default fill, plus SV_VertexID, SV_InstanceID (1 component each) and SV_Position.
Unless said otherwise, vertex ``k`` of the vertex buffer is POSITION ``(k, 100 + k)``
(R32G32_FLOAT), and a record is ``POSITION.xy`` then ``SV_VertexID``: 12 bytes.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys

import numpy as np
import pytest

from gpuia import (
    SO_NO_RASTERIZED_STREAM,
    CaseError,
    InvalidDescError,
    SODeclarationEntry,
    StreamOutputDesc,
)
from gpuia.d3d.so_declaration import resolve_stream_output
from gpuia.harness.case import load_case, so_result_json
from gpuia.harness.run import reference_ia, reference_so, run_case
from gpuia.reference.stream_output import SOTarget, stream_output
from gpuia.reference.vertex import python_outputs
from gpuia.wgsl.signature import parse_vertex_shader

GUARD = 0xAB


# -- helpers ---------------------------------------------------------------------------------------

def f32(*v) -> bytes:
    return struct.pack(f"<{len(v)}f", *v)


def u32(*v) -> bytes:
    return struct.pack(f"<{len(v)}I", *v)


def rec(fetch: int, vid: int) -> bytes:
    """The 12-byte record POSITION.xy, SV_VertexID of vertex ``fetch`` (see module docstring)."""
    return f32(fetch, 100 + fetch) + u32(vid)


def entry(name, count=4, start=0, slot=0, index=0, stream=0) -> dict:
    return {"Stream": stream, "SemanticName": name, "SemanticIndex": index,
            "StartComponent": start, "ComponentCount": count, "OutputSlot": slot}


REC_DECL = [entry("POSITION", 2), entry("SV_VertexID", 1)]
POS_LAYOUT = [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}]


def pos_buffer(n: int = 16) -> dict:
    return {"slot": 0, "stride": 8,
            "data": {"dtype": "float32", "values": [[k, 100 + k] for k in range(n)]}}


def guard_target(slot: int, size: int, filled: int = 0) -> dict:
    return {"slot": slot, "size": size, "filled_size": filled,
            "data": {"hex": f"{GUARD:02x}" * size}}


def so_case(topology="POINTLIST", draw=None, declaration=None, targets=None, strides=None,
            layout=None, buffers=None, rasterized=None, **extra) -> dict:
    so = {"declaration": REC_DECL if declaration is None else declaration,
          "targets": [guard_target(0, 256)] if targets is None else targets}
    if strides is not None:
        so["buffer_strides"] = strides
    if rasterized is not None:
        so["rasterized_stream"] = rasterized
    doc = {"gpuia_case": 1, "name": "so",
           "input_layout": POS_LAYOUT if layout is None else layout,
           "vertex_buffers": [pos_buffer()] if buffers is None else buffers,
           "primitive_topology": topology,
           "draw": draw or {"DrawInstanced": {"VertexCountPerInstance": 3}},
           "stream_output": so}
    doc.update(extra)
    return doc


def run_so(doc: dict):
    case = load_case(doc)
    return reference_so(case, reference_ia(case))


def guarded(size: int, writes: dict[int, bytes]) -> bytes:
    """A ``size``-byte buffer of GUARD bytes with ``writes`` (byte offset -> bytes) applied."""
    out = bytearray([GUARD]) * size
    for at, data in writes.items():
        out[at:at + len(data)] = data
    return bytes(out)


def stats(written: int, needed: int) -> dict:
    return {"NumPrimitivesWritten": written, "PrimitivesStorageNeeded": needed}


def draw_instanced(count, instances=1, start_vertex=0, start_instance=0) -> dict:
    return {"DrawInstanced": {"VertexCountPerInstance": count, "InstanceCount": instances,
                              "StartVertexLocation": start_vertex,
                              "StartInstanceLocation": start_instance}}


# -- validation: a WGSL shader with outputs of 1..4 components ------------------------------------

SHADER = """
struct VSIn { POSITION: vec4<f32>, }
struct VSOut {
  SV_Position: vec4<f32>,
  TEXCOORD: vec2<f32>,
  NORMAL: vec3<f32>,
  FOG: f32,
  COLOR1: vec4<u32>,
}
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = input.POSITION;
  o.TEXCOORD = input.POSITION.xy;
  o.NORMAL = input.POSITION.xyz;
  o.FOG = 1.0;
  o.COLOR1 = vec4<u32>(1u, 2u, 3u, 4u);
  return o;
}
"""


@pytest.fixture(scope="module")
def sig():
    return parse_vertex_shader(SHADER)


def desc(entries, strides=(), rasterized=0) -> StreamOutputDesc:
    return StreamOutputDesc(tuple(SODeclarationEntry.of(e) for e in entries), tuple(strides),
                            rasterized)


def _rules(message: str) -> set[str]:
    out = set()
    for m in re.finditer(r"rules (\d+\.\d+(?:\s*,\s*\d+\.\d+)*)", message):
        out |= {s.strip() for s in m.group(1).split(",")}
    return out


def rejected(d: StreamOutputDesc, signature, *, where: str, field: str, value, rule: str):
    """resolve_stream_output raises InvalidDescError naming where (entry index or slot), the
    field, the value and the rule."""
    with pytest.raises(InvalidDescError) as info:
        resolve_stream_output(d, signature)
    e = info.value
    msg = str(e)
    assert where in msg, msg
    assert e.field == field, msg
    assert f"{field}={value!r}" in msg, msg
    assert rule in _rules(msg), msg
    return e


# 8.1 ranges ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad, field, value", [
    (dict(stream=4), "Stream", 4),
    (dict(start=4), "StartComponent", 4),
    (dict(count=0), "ComponentCount", 0),
    (dict(count=5), "ComponentCount", 5),
    (dict(slot=4), "OutputSlot", 4),
], ids=["Stream4", "StartComponent4", "ComponentCount0", "ComponentCount5", "OutputSlot4"])
def test_8_1_field_ranges(sig, bad, field, value):
    kw = dict(name="SV_Position", count=4)
    kw.update(bad)
    decl = [entry("TEXCOORD", 2), entry(**kw)]
    rejected(desc(decl), sig, where="SO entry 1", field=field, value=value, rule="8.1")


def test_8_1_field_ranges_upper_bounds_accepted(sig):
    so = resolve_stream_output(desc([entry("COLOR", 1, start=3, slot=3, index=1),
                                     entry("SV_Position", 4)], (16, 0, 0, 4)), sig)
    assert [s.slot for s in so.slots] == [0, 3]


def test_8_12_stream_1_with_a_vertex_shader(sig):
    rejected(desc([entry("SV_Position", 4, stream=1)]), sig, where="SO entry 0", field="Stream",
             value=1, rule="8.12")


# 8.2 component range within the output element -------------------------------------------------

def test_8_2_float2_start1_count1_accepted(sig):
    so = resolve_stream_output(desc([entry("TEXCOORD", 1, start=1)]), sig)
    (slot,) = so.slots
    assert slot.declared_size == 4 and slot.stride == 4
    (e,) = slot.entries
    assert (e.start_component, e.component_count, e.member.key) == (1, 1, "TEXCOORD0")


def test_8_2_float2_start2_rejected(sig):
    rejected(desc([entry("TEXCOORD", 1, start=2)]), sig, where="SO entry 0",
             field="ComponentCount", value=1, rule="8.2")


def test_8_2_float3_count4_rejected(sig):
    rejected(desc([entry("FOG", 1), entry("NORMAL", 4)]), sig, where="SO entry 1",
             field="ComponentCount", value=4, rule="8.2")


def test_8_2_scalar_output_count2_rejected(sig):
    rejected(desc([entry("FOG", 2)]), sig, where="SO entry 0", field="ComponentCount", value=2,
             rule="8.2")


# 8.3 semantic matching ---------------------------------------------------------------------------

def test_8_3_unknown_semantic_rejected(sig):
    rejected(desc([entry("SV_Position"), entry("BINORMAL", 3)]), sig, where="SO entry 1",
             field="SemanticName", value="BINORMAL", rule="8.3")


def test_8_3_unknown_semantic_index_rejected(sig):
    # COLOR1 exists, COLOR0 does not.
    rejected(desc([entry("COLOR", 4, index=0)]), sig, where="SO entry 0", field="SemanticName",
             value="COLOR", rule="8.3")


def test_8_3_case_insensitive_match_accepted(sig):
    so = resolve_stream_output(desc([entry("sv_POSITION", 4), entry("texCoord", 2),
                                     entry("cOlOr", 2, index=1)]), sig)
    keys = [e.member.key for e in so.slots[0].entries]
    assert keys == ["SV_POSITION0", "TEXCOORD0", "COLOR1"]


NAME_WITH_DIGITS_SHADER = """
struct VSIn { POSITION: vec4<f32>, }
struct VSOut { SV_Position: vec4<f32>, TEXCOORD11: vec4<f32>, COLOR10: vec4<f32>, }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = input.POSITION;
  o.TEXCOORD11 = input.POSITION;
  o.COLOR10 = input.POSITION;
  return o;
}
"""


def test_8_3_name_and_index_of_an_output_with_a_two_digit_index_accepted():
    sig = parse_vertex_shader(NAME_WITH_DIGITS_SHADER)
    so = resolve_stream_output(desc([entry("TEXCOORD", 4, index=11), entry("color", 2, index=10)]),
                               sig)
    assert [e.member.key for e in so.slots[0].entries] == ["TEXCOORD11", "COLOR10"]


@pytest.mark.parametrize("name, index", [("TEXCOORD1", 1), ("COLOR1", 0)])
def test_8_3_semantic_name_with_digits_is_not_name_plus_index(name, index):
    sig = parse_vertex_shader(NAME_WITH_DIGITS_SHADER)
    rejected(desc([entry(name, 4, index=index)]), sig, where="SO entry 0", field="SemanticName",
             value=name, rule="8.3")


# 8.4 gaps ----------------------------------------------------------------------------------------

def test_8_4_gap_start_component_rejected(sig):
    rejected(desc([entry("SV_Position"), entry(None, 2, start=1)]), sig, where="SO entry 1",
             field="StartComponent", value=1, rule="8.4")


def test_8_4_gap_semantic_index_rejected(sig):
    rejected(desc([entry("SV_Position"), entry(None, 2, index=1)]), sig, where="SO entry 1",
             field="SemanticIndex", value=1, rule="8.4")


def test_8_4_gap_component_count_zero_rejected(sig):
    rejected(desc([entry("SV_Position"), entry(None, 0)]), sig, where="SO entry 1",
             field="ComponentCount", value=0, rule="8.4")


def test_8_4_gap_of_8_components_accepted(sig):
    so = resolve_stream_output(desc([entry("FOG", 1), entry(None, 8), entry("TEXCOORD", 2),
                                     entry(None, 7)]), sig)
    (slot,) = so.slots
    assert [(e.is_gap, e.byte_offset) for e in slot.entries] == [
        (False, 0), (True, 4), (False, 36), (True, 44)]
    assert slot.declared_size == 4 * (1 + 8 + 2 + 7) == slot.stride


# 8.5 offsets --------------------------------------------------------------------------------------

def test_8_5_offsets_running_sum_per_slot_interleaved(sig):
    decl = [entry("SV_Position", 4, slot=0),   # slot 0 @ 0
            entry("TEXCOORD", 2, slot=1),      # slot 1 @ 0
            entry(None, 1, slot=0),            # slot 0 @ 16 (gap)
            entry("NORMAL", 3, slot=1),        # slot 1 @ 8
            entry("FOG", 1, slot=0),           # slot 0 @ 20
            entry(None, 2, slot=3),            # slot 3 @ 0 (gap)
            entry("COLOR", 2, start=2, slot=3, index=1)]  # slot 3 @ 8
    so = resolve_stream_output(desc(decl, (24, 20, 0, 16)), sig)
    assert [(s.slot, s.stride, s.declared_size) for s in so.slots] == [
        (0, 24, 24), (1, 20, 20), (3, 16, 16)]
    offsets = {e.index: (e.slot, e.byte_offset) for s in so.slots for e in s.entries}
    assert offsets == {0: (0, 0), 1: (1, 0), 2: (0, 16), 3: (1, 8), 4: (0, 20), 5: (3, 0),
                       6: (3, 8)}


# 8.6 repeats of one element -----------------------------------------------------------------------

def test_8_6_overlapping_components_rejected(sig):
    rejected(desc([entry("SV_Position", 2, start=0), entry("SV_Position", 2, start=1, slot=1)],
                  (8, 8)), sig, where="SO entry 1", field="StartComponent", value=1, rule="8.6")


def test_8_6_identical_repeat_rejected(sig):
    rejected(desc([entry("FOG", 1), entry("TEXCOORD", 2), entry("FOG", 1)]), sig,
             where="SO entry 2", field="StartComponent", value=0, rule="8.6")


def test_8_6_non_overlapping_repeats_accepted_even_to_other_slots(sig):
    so = resolve_stream_output(desc([entry("SV_Position", 2, start=2, slot=0),
                                     entry("SV_Position", 1, start=0, slot=2),
                                     entry("SV_Position", 1, start=1, slot=0)],
                                    (12, 0, 4)), sig)
    got = [(e.slot, e.byte_offset, e.start_component, e.component_count)
           for s in so.slots for e in s.entries]
    assert got == [(0, 0, 2, 2), (0, 8, 1, 1), (2, 0, 0, 1)]


# 8.7 a slot with only gaps ------------------------------------------------------------------------

def test_8_7_slot_with_only_gaps_rejected(sig):
    e = rejected(desc([entry("SV_Position", 4, slot=0), entry(None, 2, slot=1),
                       entry(None, 1, slot=1)], (16, 12)), sig, where="SO slot 1",
                 field="OutputSlot", value=1, rule="8.7")
    assert e.where == "SO slot 1"


# 8.8 strides --------------------------------------------------------------------------------------

TWO_SLOTS = [entry("SV_Position", 4, slot=0), entry("TEXCOORD", 2, slot=1)]  # 16 and 8 bytes


@pytest.mark.parametrize("strides, slot, value, words", [
    ((12, 8), 0, 12, "smaller than the 16 bytes"),
    ((18, 8), 0, 18, "not a multiple of 4"),
    ((2052, 8), 0, 2052, "exceeds 2048"),
    ((16, 0), 1, 0, "needs a stride"),
    ((16,), 1, 0, "needs a stride"),
], ids=["smaller", "not-multiple-of-4", "over-2048", "zero-for-used-slot", "missing-entry"])
def test_8_8_bad_strides(sig, strides, slot, value, words):
    e = rejected(desc(TWO_SLOTS, strides), sig, where=f"SO slot {slot}", field="pBufferStrides",
                 value=value, rule="8.8")
    assert words in str(e)


def test_8_8_strides_missing_when_several_slots_used(sig):
    rejected(desc(TWO_SLOTS, ()), sig, where="SO slot 0", field="pBufferStrides", value=None,
             rule="8.8")


def test_8_8_stride_omitted_with_one_slot_is_the_declared_size(sig):
    so = resolve_stream_output(desc([entry("TEXCOORD", 2, slot=2), entry(None, 3, slot=2),
                                     entry("FOG", 1, slot=2)]), sig)
    (slot,) = so.slots
    assert (slot.slot, slot.stride, slot.declared_size) == (2, 24, 24)


def test_8_8_larger_stride_and_2048_accepted(sig):
    so = resolve_stream_output(desc(TWO_SLOTS, (2048, 12)), sig)
    assert [(s.stride, s.declared_size) for s in so.slots] == [(2048, 16), (12, 8)]


def test_8_8_unused_slot_stride_not_validated(sig):
    # WINE FL11: {64, 63} with only slot 0 used is accepted.
    so = resolve_stream_output(desc([entry("SV_Position", 4)], (64, 63)), sig)
    assert [(s.slot, s.stride) for s in so.slots] == [(0, 64)]
    so = resolve_stream_output(desc([entry("SV_Position", 4)], (16, 0, 4000, 6)), sig)
    assert [(s.slot, s.stride) for s in so.slots] == [(0, 16)]


def test_more_than_4_strides_rejected(sig):
    rejected(desc([entry("SV_Position", 4)], (16, 16, 16, 16, 16)), sig, where="StreamOutput",
             field="NumStrides", value=5, rule="8.1")


# 8.9 limits ---------------------------------------------------------------------------------------

def _wide_shader(n: int) -> str:
    members = "\n".join(f"  TEXCOORD{k}: vec4<f32>," for k in range(n))
    body = "\n".join(f"  o.TEXCOORD{k} = input.POSITION;" for k in range(n))
    return (f"struct VSIn {{ POSITION: vec4<f32>, }}\nstruct VSOut {{\n  SV_Position: vec4<f32>,\n"
            f"{members}\n}}\n@vertex fn main(input: VSIn) -> VSOut {{\n  var o: VSOut;\n"
            f"  o.SV_Position = input.POSITION;\n{body}\n  return o;\n}}\n")


@pytest.fixture(scope="module")
def wide_sig():
    return parse_vertex_shader(_wide_shader(33))


def test_8_9_more_than_128_components_rejected(wide_sig):
    # 32 float4 into slot 0 (exactly 512 bytes) + 1 float4 into slot 1: 132 components.
    decl = [entry("TEXCOORD", 4, index=k, slot=0) for k in range(32)]
    decl.append(entry("TEXCOORD", 4, index=32, slot=1))
    e = rejected(desc(decl, (512, 16)), wide_sig, where="StreamOutput", field="NumEntries",
                 value=132, rule="8.9")
    assert "128" in str(e)


def test_8_9_128_components_accepted(wide_sig):
    decl = [entry("TEXCOORD", 4, index=k, slot=k % 2) for k in range(32)]
    so = resolve_stream_output(desc(decl, (256, 256)), wide_sig)
    assert [s.declared_size for s in so.slots] == [256, 256]


def test_8_9_more_than_512_bytes_per_buffer_rejected(sig):
    # A 128-component gap plus a float4: 528 bytes into one buffer per vertex.
    e = rejected(desc([entry(None, 128), entry("SV_Position", 4)]), sig, where="SO slot 0",
                 field="ComponentCount", value=132, rule="8.9")
    assert "528" in str(e) and "512" in str(e)


def test_8_9_512_bytes_per_buffer_accepted(sig):
    so = resolve_stream_output(desc([entry(None, 124), entry("SV_Position", 4)]), sig)
    assert so.slots[0].declared_size == 512 == so.slots[0].stride


# 8.10 rasterized stream ---------------------------------------------------------------------------

def test_8_10_rasterized_stream_4_rejected(sig):
    rejected(desc([entry("SV_Position", 4)], (), 4), sig, where="StreamOutput",
             field="RasterizedStream", value=4, rule="8.10")


@pytest.mark.parametrize("value", [SO_NO_RASTERIZED_STREAM, "NO_RASTERIZED_STREAM",
                                   "D3D12_SO_NO_RASTERIZED_STREAM"])
def test_8_10_no_rasterized_stream_accepted(sig, value):
    so = resolve_stream_output(desc([entry("SV_Position", 4)], (), value), sig)
    assert so.rasterized_stream == SO_NO_RASTERIZED_STREAM and not so.rasterizes


def test_empty_declaration_is_no_stream_output(sig):
    so = resolve_stream_output(desc([]), sig)
    assert so.empty and so.slots == ()


# -- validation through case files -----------------------------------------------------------------

def _so_with(**changes) -> dict:
    so = {"declaration": [entry("POSITION", 4), entry("SV_VertexID", 1)],
          "targets": [{"slot": 0, "size": 64}]}
    so.update(changes)
    return so


BAD_SO = {
    "stream-4": _so_with(declaration=[entry("POSITION", 4, stream=4)]),
    "stream-1": _so_with(declaration=[entry("POSITION", 4, stream=1)]),
    "start-4": _so_with(declaration=[entry("POSITION", 1, start=4)]),
    "count-0": _so_with(declaration=[entry("POSITION", 0)]),
    "count-5": _so_with(declaration=[entry("POSITION", 5)]),
    "slot-4": _so_with(declaration=[entry("POSITION", 4, slot=4)]),
    "beyond-element": _so_with(declaration=[entry("SV_VertexID", 1, start=1)]),
    "unknown-semantic": _so_with(declaration=[entry("TEXCOORD", 4)]),
    "gap-start": _so_with(declaration=[entry("POSITION"), entry(None, 1, start=1)]),
    "gap-index": _so_with(declaration=[entry("POSITION"), entry(None, 1, index=2)]),
    "gap-count-0": _so_with(declaration=[entry("POSITION"), entry(None, 0)]),
    "overlap": _so_with(declaration=[entry("POSITION", 3), entry("POSITION", 2, start=2)]),
    "gap-only-slot": _so_with(declaration=[entry("POSITION"), entry(None, 4, slot=1)],
                              buffer_strides=[16, 16]),
    "stride-small": _so_with(buffer_strides=[16]),
    "stride-unaligned": _so_with(buffer_strides=[22]),
    "stride-huge": _so_with(buffer_strides=[4096]),
    "stride-zero": _so_with(declaration=[entry("POSITION", slot=1)], buffer_strides=[16, 0]),
    "strides-missing": _so_with(declaration=[entry("POSITION"), entry("SV_VertexID", 1, slot=1)]),
    "five-strides": _so_with(buffer_strides=[20, 0, 0, 0, 0]),
    "stride-negative": _so_with(buffer_strides=[-20]),
    "too-many-bytes": _so_with(declaration=[entry(None, 126), entry("POSITION", 4)]),
    "rasterized-4": _so_with(rasterized_stream=4),
    "rasterized-word": _so_with(rasterized_stream="ALL_STREAMS"),
    "semantic-empty": _so_with(declaration=[{"SemanticName": "", "ComponentCount": 1}]),
    "start-negative": _so_with(declaration=[entry("POSITION", 1, start=-1)]),
    "entry-not-object": _so_with(declaration=["POSITION"]),
    "declaration-not-list": _so_with(declaration={"SemanticName": "POSITION"}),
    "unknown-key": dict(_so_with(), NumEntries=2),
    "target-slot-4": _so_with(targets=[{"slot": 4, "size": 64}]),
    "target-two-on-slot": _so_with(targets=[{"slot": 0, "size": 64}, {"slot": 0, "size": 64}]),
    "target-no-slot": _so_with(targets=[{"size": 64}]),
    "target-filled-unaligned": _so_with(targets=[{"slot": 0, "size": 64, "filled_size": 6}]),
    "target-data-over-size": _so_with(targets=[{"slot": 0, "size": 4, "data": {"hex": "00" * 8}}]),
    "target-unknown-key": _so_with(targets=[{"slot": 0, "size": 64, "stride": 20}]),
    "targets-not-list": _so_with(targets={"slot": 0}),
    "so-not-object": [],
}


@pytest.mark.parametrize("name", sorted(BAD_SO))
def test_case_file_rejections(name):
    doc = so_case(targets=[])
    doc["stream_output"] = BAD_SO[name]
    with pytest.raises((InvalidDescError, CaseError)) as info:
        load_case(doc)
    assert info.value.case_name == "so"
    assert str(info.value)


def test_case_file_rejection_names_entry_field_value_rule():
    doc = so_case(declaration=[entry("POSITION", 4), entry("SV_VertexID", 1, start=1)])
    with pytest.raises(InvalidDescError) as info:
        load_case(doc)
    msg = str(info.value)
    assert "stream_output" in msg and "SO entry 1" in msg
    assert "ComponentCount=1" in msg and "8.2" in _rules(msg)


def test_case_file_declaration_against_case_wgsl_shader():
    doc = so_case(declaration=[entry("TEXCOORD", 1, start=2)],
                  vertex_shader={"wgsl": SHADER})
    doc["input_layout"] = [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}]
    with pytest.raises(InvalidDescError) as info:
        load_case(doc)
    assert "8.2" in _rules(str(info.value))
    doc["stream_output"]["declaration"] = [entry("TEXCOORD", 1, start=1), entry("FOG", 1)]
    case = load_case(doc)
    assert case.so.slots[0].declared_size == 8


def test_cli_validate_rejects_stream_output(tmp_path):
    doc = so_case(declaration=[entry("POSITION", 4, stream=1)])
    path = tmp_path / "bad_stream.json"
    path.write_text(json.dumps(doc))
    proc = subprocess.run([sys.executable, "-m", "gpuia", "validate", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Stream" in lines[0] and "8.12" in lines[0]


def test_cli_validate_accepts_stream_output_examples():
    from pathlib import Path

    cases = sorted((Path(__file__).resolve().parents[2] / "examples" / "cases")
                   .glob("stream_output_*.json"))
    assert len(cases) >= 3
    proc = subprocess.run([sys.executable, "-m", "gpuia", "validate", *map(str, cases)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


# -- CPU reference: what gets written (rules 9) -------------------------------------------------

# topology, vertex count, the drawn vertices D3D streams (hand derived: 9.2, 9.3), primitives
TOPOLOGY_ORDER = [
    ("POINTLIST", 3, [0, 1, 2], 3),
    ("LINELIST", 5, [0, 1, 2, 3], 2),                       # vertex 4 incomplete
    ("LINESTRIP", 4, [0, 1, 1, 2, 2, 3], 3),
    ("TRIANGLELIST", 7, [0, 1, 2, 3, 4, 5], 2),             # vertex 6 incomplete
    ("TRIANGLESTRIP", 6, [0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4], 4),  # odd: (n, n+2, n+1)
    ("TRIANGLESTRIP", 2, [], 0),
    ("LINELIST_ADJ", 9, [1, 2, 5, 6], 2),                   # (a, v1, v2, a)
    ("LINESTRIP_ADJ", 6, [1, 2, 2, 3, 3, 4], 3),
    ("TRIANGLELIST_ADJ", 13, [0, 2, 4, 6, 8, 10], 2),       # (v0, a, v2, a, v4, a)
    ("TRIANGLESTRIP_ADJ", 10, [0, 2, 4, 2, 6, 4, 4, 6, 8], 3),  # strip of the even vertices
]


@pytest.mark.parametrize("topology, count, order, prims", TOPOLOGY_ORDER,
                         ids=[f"{t[0]}-{t[1]}" for t in TOPOLOGY_ORDER])
def test_9_topology_order(topology, count, order, prims):
    start = 2  # fetch StartVertexLocation + i; SV_VertexID is i (4.1, 4.5)
    so = run_so(so_case(topology, draw_instanced(count, start_vertex=start)))
    data = b"".join(rec(start + i, i) for i in order)
    assert so.buffers[0] == guarded(256, {0: data})
    assert so.filled_size == {0: len(data)}
    assert so.statistics == stats(prims, prims)


def test_9_1_raw_words_and_default_fill():
    """All four POSITION components after default fill (x, y, 0, 1) and SV_Position (0,0,0,1)
    of the pass-through shader, written raw; SV_InstanceID is 0."""
    decl = [entry("POSITION", 4), entry("SV_Position", 4), entry("SV_InstanceID", 1)]
    so = run_so(so_case("POINTLIST", draw_instanced(2, start_vertex=5), decl))
    data = b"".join(f32(k, 100 + k, 0, 1) + f32(0, 0, 0, 1) + u32(0) for k in (5, 6))
    assert so.buffers[0] == guarded(256, {0: data})


def test_9_1_integer_outputs_bit_exact():
    layout = [{"SemanticName": "BLENDINDICES", "Format": "R16G16_SINT"},
              {"SemanticName": "COLOR", "Format": "R8G8B8A8_UINT"}]
    buffers = [{"slot": 0, "stride": 8,
                "data": {"hex": "ffff0080" "01020304" "05000200" "ff000000"}}]
    decl = [entry("BLENDINDICES", 4), entry("COLOR", 3, start=1)]
    so = run_so(so_case("POINTLIST", draw_instanced(2), decl, layout=layout, buffers=buffers))
    v0 = struct.pack("<4i", -1, -32768, 0, 1) + u32(2, 3, 4)
    v1 = struct.pack("<4i", 5, 2, 0, 1) + u32(0, 0, 0)
    assert so.buffers[0] == guarded(256, {0: v0 + v1})


def test_9_3_indexed_strip_with_cut_and_base_vertex():
    """R16 indices 0 1 2 3 CUT 4 5 6, cut 0xFFFF, BaseVertexLocation 2: triangles (0,1,2),
    (1,3,2) then (4,5,6) after the restart; fetch index + 2, SV_VertexID the index."""
    idx = [0, 1, 2, 3, 0xFFFF, 4, 5, 6]
    doc = so_case("TRIANGLESTRIP", {"DrawIndexedInstanced": {
        "IndexCountPerInstance": 8, "InstanceCount": 1, "StartIndexLocation": 0,
        "BaseVertexLocation": 2, "StartInstanceLocation": 0}},
        index_buffer={"format": "R16_UINT", "data": {"dtype": "uint16", "values": idx}},
        strip_cut_value="0xFFFF")
    so = run_so(doc)
    data = b"".join(rec(i + 2, i) for i in (0, 1, 2, 1, 3, 2, 4, 5, 6))
    assert so.buffers[0] == guarded(256, {0: data})
    assert so.statistics == stats(3, 3)


def test_9_r16_index_ffff_does_not_cut_with_cut_value_ffffffff():
    """D3D12 compares the cut literally (5.3): with IBStripCutValue 0xFFFFFFFF an R16 0xFFFF is
    an ordinary index; vertex 0xFFFF is out of bounds (POSITION (0, 0, 0, 1), 6.1) and its
    SV_VertexID is 0xFFFF. Strip 0 1 2 X 3 4: (0,1,2) (1,X,2) (2,X,3) (X,4,3)."""
    doc = so_case("TRIANGLESTRIP", {"DrawIndexedInstanced": {
        "IndexCountPerInstance": 6, "InstanceCount": 1, "StartIndexLocation": 0,
        "BaseVertexLocation": 0, "StartInstanceLocation": 0}},
        index_buffer={"format": "R16_UINT",
                      "data": {"dtype": "uint16", "values": [0, 1, 2, 0xFFFF, 3, 4]}},
        strip_cut_value="0xFFFFFFFF")
    so = run_so(doc)
    x = f32(0, 0) + u32(0xFFFF)
    order = [rec(0, 0), rec(1, 1), rec(2, 2), rec(1, 1), x, rec(2, 2), rec(2, 2), x, rec(3, 3),
             x, rec(4, 4), rec(3, 3)]
    assert so.buffers[0] == guarded(256, {0: b"".join(order)})
    assert so.statistics == stats(4, 4)


def test_9_null_index_buffer_reads_zero():
    """NULL index buffer view: every index is 0 (5.5), so every vertex is vertex
    BaseVertexLocation with SV_VertexID 0."""
    doc = so_case("TRIANGLELIST", {"DrawIndexedInstanced": {
        "IndexCountPerInstance": 6, "InstanceCount": 1, "StartIndexLocation": 3,
        "BaseVertexLocation": 4, "StartInstanceLocation": 0}},
        index_buffer={"format": "R32_UINT", "data": None})
    so = run_so(doc)
    assert so.buffers[0] == guarded(256, {0: rec(4, 0) * 6})
    assert so.statistics == stats(2, 2)


def test_9_4_instancing_is_instance_major():
    """Two instances of a 4-vertex strip from StartInstanceLocation 1: each instance restarts the
    strip (4.9); per-instance element k is INST (10k + 0.5); order instance by instance."""
    layout = POS_LAYOUT + [{"SemanticName": "INST", "Format": "R32_FLOAT", "InputSlot": 1,
                            "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}]
    buffers = [pos_buffer(), {"slot": 1, "stride": 4,
                              "data": {"dtype": "float32", "values": [0.5, 10.5, 20.5, 30.5]}}]
    decl = [entry("POSITION", 1), entry("INST", 1), entry("SV_InstanceID", 1),
            entry("SV_VertexID", 1)]
    so = run_so(so_case("TRIANGLESTRIP", draw_instanced(4, 2, 3, 1), decl, layout=layout,
                        buffers=buffers))
    data = b""
    for inst in (0, 1):
        for i in (0, 1, 2, 1, 3, 2):
            data += f32(3 + i, 10 * (1 + inst) + 0.5) + u32(inst, i)
    assert so.buffers[0] == guarded(256, {0: data})
    assert so.statistics == stats(4, 4)


def test_9_4_gaps_and_stride_padding_leave_bytes_untouched():
    """POSITION.y, a 2-component gap, SV_VertexID; stride 20 (16 declared); initial
    BufferFilledSize 8: bytes before 8, the gap, the 4 stride-padding bytes and everything after
    the written range keep the guard."""
    decl = [entry("POSITION", 1, start=1), entry(None, 2), entry("SV_VertexID", 1)]
    so = run_so(so_case("LINELIST", draw_instanced(4, start_vertex=1), decl,
                        targets=[guard_target(0, 128, 8)], strides=[20]))
    writes = {}
    for i in range(4):
        base = 8 + 20 * i
        writes[base] = f32(101 + i)
        writes[base + 12] = u32(i)
    expected = guarded(128, writes)
    assert so.buffers[0] == expected
    assert so.filled_size == {0: 8 + 80}
    assert expected[:8] == bytes([GUARD]) * 8 and expected[88:] == bytes([GUARD]) * 40
    assert expected[12:20] == bytes([GUARD]) * 8  # the gap of vertex 0
    assert so.statistics == stats(2, 2)


def test_9_several_slots_with_different_strides():
    """Slot 0: POSITION.xy (stride 8); slot 1: SV_VertexID (stride 12, 8 padding bytes);
    slot 3: POSITION.z (default-filled 0) then SV_InstanceID (stride 8) starting at
    BufferFilledSize 16."""
    decl = [entry("POSITION", 2, slot=0), entry("SV_VertexID", 1, slot=1),
            entry("POSITION", 1, start=2, slot=3), entry("SV_InstanceID", 1, slot=3)]
    targets = [guard_target(0, 64), guard_target(1, 64), guard_target(3, 64, 16)]
    so = run_so(so_case("TRIANGLELIST", draw_instanced(3), decl, targets=targets,
                        strides=[8, 12, 0, 8]))
    assert so.buffers[0] == guarded(64, {0: b"".join(f32(k, 100 + k) for k in range(3))})
    assert so.buffers[1] == guarded(64, {12 * k: u32(k) for k in range(3)})
    assert so.buffers[3] == guarded(64, {16 + 8 * k: f32(0) + u32(0) for k in range(3)})
    assert so.filled_size == {0: 24, 1: 36, 3: 40}
    assert so.statistics == stats(1, 1)


# 9.7 / 10.2 overflow ------------------------------------------------------------------------------

def test_10_2_overflow_vector_10_of_16_points():
    """WINE test_so_statistics_query: buffers of 10 vec4, 16 points -> written 10, needed 16."""
    layout = [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}]
    values = [[k, k + 0.25, -k, 1] for k in range(16)]
    buffers = [{"slot": 0, "stride": 16, "data": {"dtype": "float32", "values": values}}]
    so = run_so(so_case("POINTLIST", draw_instanced(16), [entry("POSITION", 4)],
                        targets=[guard_target(0, 160)], layout=layout, buffers=buffers))
    assert so.buffers[0] == b"".join(f32(*v) for v in values[:10])
    assert so.filled_size == {0: 160}
    assert so.statistics == stats(10, 16)


def test_9_7_overflow_stops_at_last_whole_primitive():
    """Three 36-byte triangles, a 100-byte target: two fit (72 bytes), the third would straddle
    the end and is not written at all; the last 28 bytes keep the guard."""
    so = run_so(so_case("TRIANGLELIST", draw_instanced(9), targets=[guard_target(0, 100)]))
    data = b"".join(rec(k, k) for k in range(6))
    assert so.buffers[0] == guarded(100, {0: data})
    assert so.filled_size == {0: 72}
    assert so.statistics == stats(2, 3)


def test_9_7_primitive_must_fit_in_every_slot():
    """Slot 0 has room for 27 triangles, slot 1 (SV_VertexID, stride 4) for one: one written to
    both; NumPrimitivesWritten 1, PrimitivesStorageNeeded 3."""
    decl = [entry("POSITION", 2, slot=0), entry("SV_VertexID", 1, slot=1)]
    targets = [guard_target(0, 256), guard_target(1, 20)]
    so = run_so(so_case("TRIANGLELIST", draw_instanced(9), decl, targets=targets,
                        strides=[8, 4]))
    assert so.buffers[0] == guarded(256, {0: b"".join(f32(k, 100 + k) for k in range(3))})
    assert so.buffers[1] == guarded(20, {0: u32(0, 1, 2)})
    assert so.filled_size == {0: 24, 1: 12}
    assert so.statistics == stats(1, 3)


def test_9_8_declared_slot_without_target_writes_nothing():
    decl = [entry("POSITION", 2, slot=0), entry("SV_VertexID", 1, slot=1)]
    so = run_so(so_case("TRIANGLELIST", draw_instanced(6), decl,
                        targets=[guard_target(0, 256, 4)], strides=[8, 4]))
    assert so.buffers == {0: guarded(256, {})}
    assert so.filled_size == {0: 4}
    assert so.statistics == stats(0, 2)


def test_9_8_target_on_undeclared_slot_is_ignored():
    so = run_so(so_case("POINTLIST", draw_instanced(2),
                        targets=[guard_target(0, 64), guard_target(2, 32, 12)]))
    assert so.buffers[0] == guarded(64, {0: rec(0, 0) + rec(1, 1)})
    assert so.buffers[2] == guarded(32, {})
    assert so.filled_size == {0: 24, 2: 12}


def test_9_5_append_across_draws():
    """Two draws of one case: the second appends after the first; SV_VertexID restarts."""
    draws = [draw_instanced(3), draw_instanced(3, start_vertex=7)]
    so = run_so(so_case("TRIANGLELIST", draws))
    data = b"".join(rec(k, k) for k in range(3)) + b"".join(rec(7 + i, i) for i in range(3))
    assert so.buffers[0] == guarded(256, {0: data})
    assert so.filled_size == {0: 72}
    assert so.statistics == stats(2, 2)


def test_9_7_overflow_in_a_later_draw():
    """Room for 3 triangles (108 of 112 bytes): draw 0 writes 2, draw 1 writes its first and
    then stops; a third draw writes nothing although needed keeps counting."""
    draws = [draw_instanced(6), draw_instanced(6, start_vertex=6), draw_instanced(3)]
    so = run_so(so_case("TRIANGLELIST", draws, targets=[guard_target(0, 112)]))
    data = b"".join(rec(k, k) for k in range(6)) + b"".join(rec(6 + i, i) for i in range(3))
    assert so.buffers[0] == guarded(112, {0: data})
    assert so.filled_size == {0: 108}
    assert so.statistics == stats(3, 5)
    assert so.written_per_draw == [2, 1, 0]


def test_9_5_initial_filled_size():
    so = run_so(so_case("POINTLIST", draw_instanced(2), targets=[guard_target(0, 64, 40)]))
    assert so.buffers[0] == guarded(64, {40: rec(0, 0) + rec(1, 1)})
    assert so.filled_size == {0: 64}
    assert so.statistics == stats(2, 2)


def test_9_5_initial_filled_size_at_the_end_is_full():
    so = run_so(so_case("POINTLIST", draw_instanced(2), targets=[guard_target(0, 64, 56)]))
    assert so.buffers[0] == guarded(64, {})
    assert so.filled_size == {0: 56}
    assert so.statistics == stats(0, 2)


def test_10_3_empty_declaration_statistics_zero():
    so = run_so(so_case("TRIANGLELIST", draw_instanced(6), declaration=[],
                        targets=[guard_target(0, 64, 8)]))
    assert so.statistics == stats(0, 0)
    assert so.buffers == {0: guarded(64, {})} and so.filled_size == {0: 8}


def test_no_stream_output_section():
    doc = so_case()
    del doc["stream_output"]
    case = load_case(doc)
    assert reference_so(case, reference_ia(case)) is None


# -- results ---------------------------------------------------------------------------------------

def test_so_result_json():
    doc = so_case("LINESTRIP", draw_instanced(3), targets=[guard_target(0, 40, 4),
                                                           guard_target(2, 8)])
    so = run_so(doc)
    data = rec(0, 0) + rec(1, 1)  # the second segment does not fit (4 + 48 > 40)
    expected = {
        "buffers": [{"slot": 0, "hex": guarded(40, {4: data}).hex(), "filled_size": 28},
                    {"slot": 2, "hex": guarded(8, {}).hex(), "filled_size": 0}],
        "statistics": stats(1, 2),
    }
    assert so_result_json(so) == expected
    assert json.loads(json.dumps(so_result_json(so))) == expected
    _, result = run_case(load_case(doc), "cpu")
    assert result["stream_output"] == expected
    assert [inv["SV_VertexID"] for inv in result["invocations"]] == [0, 1, 2]


def test_result_without_stream_output_has_no_section():
    doc = so_case()
    del doc["stream_output"]
    _, result = run_case(load_case(doc), "cpu")
    assert "stream_output" not in result


# -- a Python vertex shader ------------------------------------------------------------------------

PY_WGSL = """
struct VSIn { POSITION: vec4<f32>, }
struct VSOut { SV_Position: vec4<f32>, POSITION: vec2<f32>, TEXCOORD3: u32, }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = input.POSITION;
  o.POSITION = input.POSITION.xy * 2.0;
  o.TEXCOORD3 = 7u;
  return o;
}
"""


def test_python_outputs_stream_output():
    """POSITION.xy * 2 and TEXCOORD3 = 7 + 10 * SV_InstanceID, SO'd as TEXCOORD3, then
    POSITION.yx reordered by two entries; 2 instances of one triangle."""
    case = load_case(so_case("TRIANGLELIST", draw_instanced(3, 2, 4)))
    ia = reference_ia(case)

    def shader(inputs, vertex_id, instance_id):
        pos = inputs["POSITION0"]
        assert pos.dtype == np.float32 and pos.shape == (6, 4)
        return {"position0": pos[:, :2] * np.float32(2),
                "TEXCOORD3": (np.uint32(7) + np.uint32(10) * instance_id).astype(np.uint32)}

    outputs = python_outputs(ia, shader)
    assert set(outputs) == {"POSITION0", "TEXCOORD3"}
    sig = parse_vertex_shader(PY_WGSL)
    so_desc = desc([entry("TEXCOORD", 1, index=3), entry("POSITION", 1, start=1),
                    entry("POSITION", 1, start=0)])
    so = resolve_stream_output(so_desc, sig)
    result = stream_output(ia, so, outputs, {0: SOTarget(bytes([GUARD]) * 80, 4)})
    data = b"".join(u32(7 + 10 * inst) + f32(2 * (100 + k), 2 * k)
                    for inst in (0, 1) for k in (4, 5, 6))
    assert result.buffers[0] == guarded(80, {4: data})
    assert result.filled_size == {0: 76}
    assert result.statistics == stats(2, 2)


def test_python_outputs_rejects_float64():
    case = load_case(so_case("POINTLIST", draw_instanced(1)))
    ia = reference_ia(case)
    with pytest.raises(TypeError):
        python_outputs(ia, lambda i, v, n: {"POSITION0": np.zeros((1, 2))})
