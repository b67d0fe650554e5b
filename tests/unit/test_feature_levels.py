"""Feature levels 10_0, 10_1, 11_0 and 12 (D3D12) without a GPU: every limit and rule that
differs between them (rules 3.1, 8.1, 8.8-8.11, 11.1), through InputLayout,
resolve_stream_output, PipelineState and case files.

The expected numbers are the headers' constants, never gpuia's: d3d10.h
(D3D10_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT 16, D3D10_IA_VERTEX_INPUT_STRUCTURE_ELEMENT_COUNT 16,
D3D10_SO_BUFFER_MAX_WRITE_WINDOW_IN_BYTES 256, D3D10_SO_SINGLE_BUFFER_COMPONENT_LIMIT 64,
D3D10_SO_MULTIPLE_BUFFER_ELEMENTS_PER_BUFFER 1), d3d10_1.h (the same SO constants, 32 slots and
elements), d3d11.h / d3d12.h (32 and 32, SO_OUTPUT_COMPONENT_COUNT 128,
SO_BUFFER_MAX_WRITE_WINDOW_IN_BYTES 512, SO_STREAM_COUNT 4); and Wine's
test_fl10_stream_output_desc (feature level 10_0) against test_stream_output (11_0): the
rasterized stream, one entry per buffer, and strides {64, 63} with only slot 0 written.
"""

from __future__ import annotations

import pytest

from gpuia import SO_NO_RASTERIZED_STREAM, InvalidDescError, SODeclarationEntry, StreamOutputDesc
from gpuia.d3d.feature_level import FEATURE_LEVELS, feature_level
from gpuia.d3d.layout import PROFILES, InputLayout
from gpuia.d3d.so_declaration import resolve_stream_output
from gpuia.errors import CaseError
from gpuia.gpu.context.pso import PipelineState
from gpuia.harness.case import load_case
from gpuia.wgsl.signature import parse_vertex_shader

# level -> (slots, elements, SO streams, components, bytes per buffer, one entry per buffer)
HEADERS = {
    "10_0": (16, 16, 1, 64, 256, True),
    "10_1": (32, 32, 1, 64, 256, True),
    "11_0": (32, 32, 4, 128, 512, False),
    "12": (32, 32, 4, 128, 512, False),
}
LEVELS = list(HEADERS)
D3D10 = ["10_0", "10_1"]
LATER = ["11_0", "12"]


def elements(n: int, slot: int = 0) -> list[dict]:
    return [{"SemanticName": "TEXCOORD", "SemanticIndex": i, "Format": "R32_FLOAT",
             "InputSlot": slot, "AlignedByteOffset": 0} for i in range(n)]


def test_the_table_holds_the_headers_constants():
    assert list(FEATURE_LEVELS) == LEVELS
    for name, (slots, count, streams, comps, window, one) in HEADERS.items():
        fl = FEATURE_LEVELS[name]
        assert (fl.slot_count, fl.element_count, fl.so_streams, fl.so_components,
                fl.so_buffer_bytes, fl.so_one_entry_per_buffer) == \
            (slots, count, streams, comps, window, one), name
        assert fl.so_no_rasterized_stream is (streams == 4)
        assert fl.so_strides_of_used_slots_only is one


def test_names_prefixes_and_profiles():
    assert feature_level(None) is FEATURE_LEVELS["12"]
    assert feature_level("D3D_FEATURE_LEVEL_10_1") is FEATURE_LEVELS["10_1"]
    assert feature_level("12_1") is FEATURE_LEVELS["12"]
    assert feature_level("d3d10") is FEATURE_LEVELS["10_0"]
    assert PROFILES["d3d10"] is FEATURE_LEVELS["10_0"]
    assert PROFILES["d3d11"] is FEATURE_LEVELS["11_0"]
    for bad in ("9_3", "11", "", 10):
        with pytest.raises(InvalidDescError, match="10_0, 10_1, 11_0, 12"):
            feature_level(bad)


# -- rules 3.1: slots and elements --------------------------------------------------------------

@pytest.mark.parametrize("level", LEVELS)
def test_element_count(level):
    n = HEADERS[level][1]
    assert len(InputLayout(elements(n), feature_level=level)) == n
    with pytest.raises(InvalidDescError) as e:
        InputLayout(elements(n + 1), feature_level=level)
    assert e.value.where == f"element {n} (TEXCOORD{n})" and e.value.field == "NumElements"
    assert e.value.value == n + 1
    assert f"more than {n} elements at feature level {level} " in str(e.value)
    assert "rules 3.1" in str(e.value)


@pytest.mark.parametrize("level", LEVELS)
def test_input_slots(level):
    n = HEADERS[level][0]
    InputLayout(elements(1, slot=n - 1), feature_level=level)
    with pytest.raises(InvalidDescError) as e:
        InputLayout(elements(1, slot=n), feature_level=level)
    assert e.value.field == "InputSlot" and e.value.value == n
    assert f"slots are 0..{n - 1} at feature level {level}" in str(e.value)
    assert "rules 3.1" in str(e.value)


def test_layouts_of_other_levels_differ_and_profile_is_the_level():
    a = InputLayout(elements(2), feature_level="10_0")
    assert a.feature_level is FEATURE_LEVELS["10_0"] and a.profile is a.feature_level
    assert a != InputLayout(elements(2))
    assert a == InputLayout(elements(2), "d3d10")
    with pytest.raises(TypeError):
        InputLayout(elements(2), "d3d10", feature_level="10_0")


# -- rules 8.8-8.11: Stream Output ----------------------------------------------------------------

def shader(outputs: int) -> str:
    members = "".join(f"  TEXCOORD{i}: vec4<f32>,\n" for i in range(outputs))
    body = "".join(f"  o.TEXCOORD{i} = i.POSITION;\n" for i in range(outputs))
    return ("struct VSIn { POSITION: vec4<f32>, }\n"
            f"struct VSOut {{\n  SV_Position: vec4<f32>,\n{members}}}\n"
            "@vertex fn main(i: VSIn) -> VSOut {\n  var o: VSOut;\n"
            f"  o.SV_Position = i.POSITION;\n{body}  return o;\n}}\n")


@pytest.fixture(scope="module")
def sig17():
    return parse_vertex_shader(shader(17))


def so(entries, strides=(), rasterized=0) -> StreamOutputDesc:
    return StreamOutputDesc(tuple(SODeclarationEntry.of(e) for e in entries), tuple(strides),
                            rasterized)


def tex(i, slot=0, count=4, start=0) -> dict:
    return {"SemanticName": "TEXCOORD", "SemanticIndex": i, "StartComponent": start,
            "ComponentCount": count, "OutputSlot": slot}


def gap(count, slot=0) -> dict:
    return {"SemanticName": None, "ComponentCount": count, "OutputSlot": slot}


def refused(d, sig, level, field, *rules) -> InvalidDescError:
    with pytest.raises(InvalidDescError) as e:
        resolve_stream_output(d, sig, level)
    assert e.value.field == field, str(e.value)
    for rule in rules:
        assert f"rules {rule}" in str(e.value) or f", {rule}" in str(e.value), str(e.value)
    return e.value


@pytest.mark.parametrize("level", LEVELS)
def test_components_per_stream(level, sig17):
    """64 components at 10_x, 128 later: 16 float4 outputs fit everywhere, 17 do not at 10_x;
    spread over slots of one entry each so that no other limit applies first."""
    limit = HEADERS[level][3]
    # 16 outputs x 4 = 64 components in slot 0 (256 bytes: the 10_x window exactly).
    resolve_stream_output(so([tex(i) for i in range(16)]), sig17, level)
    seventeen = so([tex(i) for i in range(17)])  # 68 components, 272 bytes in one slot
    if limit == 64:
        e = refused(seventeen, sig17, level, "NumEntries", "8.9")
        assert e.value == 68 and f"more than 64 components in stream 0 at feature level {level}" \
            in str(e)
    else:
        resolve_stream_output(seventeen, sig17, level)


@pytest.mark.parametrize("level", LEVELS)
def test_bytes_per_buffer_gaps_included(level, sig17):
    window = HEADERS[level][4]
    fits = so([tex(0), gap(window // 4 - 4)])  # 4 named + gap: exactly the window
    resolve_stream_output(fits, sig17, level)
    over = so([tex(0), gap(window // 4 - 3)])
    e = refused(over, sig17, level, "ComponentCount", "8.9")
    assert f"{window + 4} bytes per vertex exceed the {window} one buffer takes at feature " \
           f"level {level}" in str(e)


@pytest.mark.parametrize("level", LEVELS)
def test_rasterized_stream(level, sig17):
    entries = [tex(0)]
    resolve_stream_output(so(entries, rasterized=0), sig17, level)
    for rs in (1, 3, SO_NO_RASTERIZED_STREAM):
        if level in D3D10:  # Wine test_fl10_stream_output_desc: 1..3 and NO_RASTERIZED_STREAM
            e = refused(so(entries, rasterized=rs), sig17, level, "RasterizedStream", "8.10")
            assert f"must be 0 at feature level {level}" in str(e)
        else:  # Wine test_stream_output: 0..3 and NO_RASTERIZED_STREAM
            resolve_stream_output(so(entries, rasterized=rs), sig17, level)
    if level in LATER:
        refused(so(entries, rasterized=4), sig17, level, "RasterizedStream", "8.10")


@pytest.mark.parametrize("level", LEVELS)
def test_streams_of_entries(level, sig17):
    e = refused(so([dict(tex(0), Stream=1)]), sig17, level, "Stream")
    if level in D3D10:
        assert f"must be 0 at feature level {level}, which has one stream" in str(e)
    else:
        assert "a vertex shader writes stream 0 only (rules 8.12)" in str(e)


@pytest.mark.parametrize("level", LEVELS)
def test_the_lint_checks_streams_of_entries_at_the_level(level):
    """The lint takes streams 1-3 as stream 0 with a warning (W010) where the level has them;
    at 10_x, which has one, that turned an invalid entry into a warning."""
    from gpuia.harness.lint import lint_so

    report = lint_so([{"Stream": 1, "SemanticName": "TEXCOORD", "ComponentCount": 4}],
                     feature_level=level)
    codes = [f.code for f in report.findings]
    if level in D3D10:
        assert codes == ["E002"] and report.resolved is None
        assert f"must be 0 at feature level {level}, which has one stream" in \
            report.findings[0].message
    else:
        assert codes == ["W010"] and report.resolved is not None
    bad = lint_so([{"SemanticName": "TEXCOORD"}], feature_level="9_1")
    assert [(f.code, f.where) for f in bad.findings] == [("E002", "feature level")]


# Wine test_fl10_stream_output_desc's invalid declarations (ATTRIBn as TEXCOORDn), and valid
# ones: one entry in each of several slots, or any number in a single slot.
SEVERAL_PER_SLOT = [
    [tex(1), gap(4), tex(4, slot=3, count=1)],
    [tex(1), tex(2, count=3), tex(3, count=2), tex(4, count=1, slot=1)],
    [tex(1), tex(2, count=3), tex(3, count=2, slot=3), gap(1, slot=3),
     tex(4, count=1, slot=3)],
]
ONE_PER_SLOT = [
    [tex(1), tex(2, count=3, slot=1), tex(3, count=2, slot=2), tex(4, count=1, slot=3)],
    [tex(1), tex(2, count=3, slot=3)],
    [tex(1, count=2), tex(1, start=2, count=2, slot=1)],
]
SINGLE_SLOT = [[tex(0), gap(8), tex(1)], [tex(1), tex(2, count=3), gap(1), tex(4, count=1)]]


def strides_for(entries) -> tuple[int, ...]:
    """64 for each written slot, 0 (no stride) for the others below the last."""
    used = {e["OutputSlot"] for e in entries}
    return tuple(64 if s in used else 0 for s in range(max(used) + 1))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("entries", SEVERAL_PER_SLOT)
def test_one_entry_per_buffer_with_several_buffers(level, entries, sig17):
    d = so(entries, strides_for(entries))
    if level in D3D10:
        e = refused(d, sig17, level, "OutputSlot", "8.11")
        assert f"each takes exactly one entry (a gap counts) at feature level {level}" in str(e)
        assert e.where.startswith("SO entry 1 ")  # the second entry of slot 0
    else:
        resolve_stream_output(d, sig17, level)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("entries", ONE_PER_SLOT + SINGLE_SLOT)
def test_one_entry_per_buffer_or_one_buffer_is_valid(level, entries, sig17):
    resolve_stream_output(so(entries, strides_for(entries)), sig17, level)


@pytest.mark.parametrize("level", LEVELS)
def test_strides_of_slots_not_written(level, sig17):
    """Strides {64, 63} with only slot 0 written: refused at 10_0 (Wine), accepted at 11_0
    (Wine); a 0 for an unwritten slot is no stride (inferred)."""
    d = so([tex(0)], (64, 63))
    if level in D3D10:
        e = refused(d, sig17, level, "pBufferStrides", "8.8")
        assert e.where == "SO slot 1" and e.value == 63
        assert f"refused at feature level {level}" in str(e)
    else:
        resolve_stream_output(d, sig17, level)
    resolve_stream_output(so([tex(0)], (64, 0)), sig17, level)


# -- PipelineState and case files ---------------------------------------------------------------

def test_pipeline_state_takes_a_feature_level(sig17):
    with pytest.raises(InvalidDescError, match="more than 16 elements at feature level 10_0"):
        PipelineState(elements(17), feature_level="10_0")
    assert PipelineState(elements(17), feature_level="11_0").feature_level is \
        FEATURE_LEVELS["11_0"]
    # An InputLayout carries its level; PipelineState takes it, and refuses another.
    layout10 = InputLayout(elements(2), feature_level="10_0")
    assert PipelineState(layout10).feature_level is FEATURE_LEVELS["10_0"]
    with pytest.raises(InvalidDescError, match="made at feature level 12; make it at feature "
                                               "level 10_0"):
        PipelineState(InputLayout(elements(2)), feature_level="10_0")
    with pytest.raises(InvalidDescError, match="feature_level='9_3'"):
        PipelineState(elements(2), feature_level="9_3")
    # Its Stream Output declaration is checked at the level.
    layout = [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}]
    for level, ok in (("10_0", False), ("12", True)):
        pso = PipelineState(layout, vertex_shader=shader(2), feature_level=level,
                            stream_output=so([tex(0)], rasterized=1))
        if ok:
            assert pso.so is not None
        else:
            with pytest.raises(InvalidDescError, match="RasterizedStream=1: must be 0 at "
                                                       "feature level 10_0"):
                _ = pso.so


def case_doc(n: int, **extra) -> dict:
    return {"gpuia_case": 1, "name": "fl", "input_layout": elements(n),
            "vertex_buffers": [{"slot": 0, "stride": 4,
                                "data": {"dtype": "float32", "values": [1, 2]}}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 2}}, **extra}


def test_case_feature_level_key():
    assert load_case(case_doc(17)).feature_level is FEATURE_LEVELS["12"]
    assert load_case(case_doc(17, feature_level="11_0")).feature_level is \
        FEATURE_LEVELS["11_0"]
    case = load_case(case_doc(16, feature_level="10_0"))
    assert case.feature_level is FEATURE_LEVELS["10_0"] and case.layout.feature_level is \
        FEATURE_LEVELS["10_0"]
    with pytest.raises(InvalidDescError) as e:
        load_case(case_doc(17, feature_level="10_0"))
    assert str(e.value) == ("input_layout: element 16 (TEXCOORD16): NumElements=17: more than "
                            "16 elements at feature level 10_0 "
                            "(IA_VERTEX_INPUT_STRUCTURE_ELEMENT_COUNT; rules 3.1)")
    assert e.value.case_name == "fl"
    # The caller's level wins over the case's.
    assert load_case(case_doc(17, feature_level="10_0"), feature_level="11_0").feature_level \
        is FEATURE_LEVELS["11_0"]
    with pytest.raises(InvalidDescError, match="at feature level 10_0"):
        load_case(case_doc(17), feature_level="10_0")
    # A vertex buffer bound past the level's slots is refused where it is bound.
    doc = case_doc(1, feature_level="10_0")
    doc["vertex_buffers"][0]["slot"] = 16
    with pytest.raises(InvalidDescError, match=r"slot=16: input slots are 0..15 at feature "
                                               r"level 10_0 \(rules 3.1\)"):
        load_case(doc)
    for bad in ("9_3", 10, None, ["10_0"]):
        with pytest.raises(CaseError) as ce:
            load_case(case_doc(1, feature_level=bad))
        assert ce.value.where == "feature_level", str(ce.value)


def test_case_stream_output_at_the_case_level():
    so_doc = {"declaration": [{"SemanticName": "TEXCOORD", "ComponentCount": 1}],
              "rasterized_stream": "NO_RASTERIZED_STREAM",
              "targets": [{"slot": 0, "size": 64}]}
    assert load_case(case_doc(1, stream_output=so_doc)).so is not None
    with pytest.raises(InvalidDescError) as e:
        load_case(case_doc(1, stream_output=so_doc, feature_level="10_1"))
    assert e.value.where == "stream_output: StreamOutput"
    assert "must be 0 at feature level 10_1" in str(e.value) and "rules 8.10" in str(e.value)
