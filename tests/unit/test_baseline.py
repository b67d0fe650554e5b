"""Baselines and flakes (gpuia.harness.baseline, docs/scale-out.md): a run that matches its
baseline has no difference; a new failure, a changed status and an unexpected pass are one line
each naming the case; flakes never count; a written baseline reads back as the run."""

from __future__ import annotations

import pytest

from gpuia.harness.baseline import (
    BaselineError,
    Expectation,
    Outcome,
    baseline_text,
    differences,
    error_code,
    outcomes,
    read_baseline,
)

GPU = "llvmpipe (LLVM 15.0.6, 256 bits) (CPU) via Vulkan"
RUN = [Outcome("tri", "native", GPU, "pass"), Outcome("tri", "pulling", GPU, "pass"),
       Outcome("strip", "stream output", GPU, "fail"),
       Outcome("bad", "", "", "error", "E001")]


def _read(tmp_path, text: str):
    path = tmp_path / "baseline.csv"
    path.write_text(text)
    return read_baseline(str(path))


def test_a_run_that_matches_its_baseline_has_no_difference(tmp_path):
    expected = _read(tmp_path, "# case,path,adapter,status,code\n"
                               "strip,stream output,*llvmpipe*,fail\n"
                               "bad,*,*,error,E001\n")
    assert differences(RUN, expected) == []


def test_a_new_failure_is_one_line_naming_the_case(tmp_path):
    expected = _read(tmp_path, "bad,*,*,error,E001\n")
    assert differences(RUN, expected) == [f"baseline: new fail: strip: {GPU}: stream output"]


def test_an_unexpected_pass_is_a_difference(tmp_path):
    expected = _read(tmp_path, "strip,*,*,fail\nbad,*,*,error\ntri,native,*,fail\n")
    assert differences(RUN, expected) == [
        f"baseline: unexpected pass: tri: {GPU}: native (expected fail; update the baseline)"]


def test_a_changed_status_or_error_code_is_a_difference(tmp_path):
    expected = _read(tmp_path, "strip,*,*,crash\nbad,*,*,error,E002\n")
    assert differences(RUN, expected) == [
        f"baseline: changed: strip: {GPU}: stream output: fail, expected crash",
        "baseline: changed: bad: error E001, expected error E002"]


def test_an_error_without_a_code_in_the_baseline_matches_any_code(tmp_path):
    assert differences(RUN, _read(tmp_path, "strip,*,*,fail\nbad,*,*,error\n")) == []


def test_the_adapter_pattern_matches_without_case(tmp_path):
    expected = _read(tmp_path, "strip,*,*LLVMPIPE*,fail\nbad,*,*,error\n")
    assert differences(RUN, expected) == []
    other = _read(tmp_path, "strip,*,*NVIDIA*,fail\nbad,*,*,error\n")
    assert differences(RUN, other) == [f"baseline: new fail: strip: {GPU}: stream output"]


def test_flakes_never_count():
    assert differences(RUN, [], flakes=["strip", "bad"]) == []
    # a pattern over the line's label: only that line is a flake
    assert differences(RUN, [], flakes=["strip: *: stream output"]) == [
        "baseline: new error E001: bad"]


def test_rows_for_cases_that_did_not_run_are_ignored(tmp_path):
    expected = _read(tmp_path, "strip,*,*,fail\nbad,*,*,error\nelsewhere,*,*,fail\n")
    assert differences(RUN, expected) == []


def test_a_written_baseline_reads_back_as_the_run(tmp_path):
    odd = Outcome("a*b[1]?", "native", GPU, "fail")  # pattern characters in a name
    text = baseline_text([*RUN, odd])
    assert text.splitlines() == [
        "# case,path,adapter,status,code",
        f'strip,stream output,"{GPU}",fail,',  # CSV quotes the summary's comma
        "bad,*,*,error,E001",
        f'a[*]b[[]1][?],native,"{GPU}",fail,']
    expected = _read(tmp_path, text)
    assert differences([*RUN, odd], expected) == []
    assert differences([Outcome("aXb[1]Y", "native", GPU, "fail")], expected) == [
        f"baseline: new fail: aXb[1]Y: {GPU}: native"]


@pytest.mark.parametrize("row, says", [
    ("tri,*,*,broken\n", "line 1: status 'broken'"),
    ("tri,*,fail\n", "line 1: 3 columns"),
    ("# c\ntri,*,*,fail,E1,more\n", "line 2: 6 columns"),
])
def test_a_bad_row_is_refused_naming_the_line(tmp_path, row, says):
    with pytest.raises(BaselineError, match=says):
        _read(tmp_path, row)


@pytest.mark.parametrize("message, code", [
    ("input_layout: element 1 (COLOR0): AlignedByteOffset=2: not a multiple of 4", "E001"),
    ("stream_output: entry 0: ...", "E002"),
    ("geometry_shader: input: ...", "E004"),
    ("vertex_buffers: slot 0: ...", ""),
])
def test_error_codes_follow_where_the_error_is(message, code):
    assert error_code(message) == code


def test_outcomes_of_a_report_case():
    case = {"case": "c", "lines": [{"path": "native", "adapter": GPU, "status": "OK"},
                                   {"path": "pulling", "adapter": GPU, "status": "DIFFERENT"},
                                   {"path": "raster", "adapter": GPU,
                                    "status": "not applicable"}],
            "error": None}
    assert outcomes([case]) == [Outcome("c", "native", GPU, "pass"),
                                Outcome("c", "pulling", GPU, "fail"),
                                Outcome("c", "raster", GPU, "pass")]
    assert Expectation("c", "*", "*", "fail").matches(outcomes([case])[1])
