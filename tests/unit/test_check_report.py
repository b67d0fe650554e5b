"""``check --json`` reports and their merge (gpuia.harness.check_report, docs/scale-out.md): the
merge of shards 1..N is the one-process report in argument order, and reports that do not
make a whole are refused by name; the HTML views survive JSON unchanged."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpuia.harness.check_report import CaseRecord, Report, ReportError, merge, read_report
from gpuia.harness.report.html_views import (
    CaseView,
    Cell,
    ErrorRow,
    HexRow,
    InvocationRow,
    PrimitivesView,
    RunView,
    SOSlotView,
)
from gpuia.harness.report.view_codec import view_from_json, view_to_json


def _line(case: str, status: str = "OK") -> dict:
    return {"label": f"{case}: gpu: native", "status": status, "detail": "3/3 invocations match",
            "table": "", "problems": [], "path": "native", "adapter": "gpu", "seconds": 0.25}


def _shard(k: int, n: int, indices, inputs: int = 5) -> Report:
    cases = [CaseRecord(i, f"c{i}.json", f"c{i}", [_line(f"c{i}")]) for i in indices]
    return Report(inputs, f"gpuia check --shard {k}/{n}", f"{k}/{n}", {"gpu": {"driver": "x"}},
                  [], cases=cases, complete=True)


def test_merge_puts_the_cases_of_every_shard_in_argument_order():
    merged = merge([("b.json", _shard(2, 2, [1, 4])), ("a.json", _shard(1, 2, [0, 2, 3]))])
    assert [c.index for c in merged.cases] == [0, 1, 2, 3, 4]
    assert [c.case for c in merged.cases] == ["c0", "c1", "c2", "c3", "c4"]
    assert merged.shard is None and merged.complete and merged.inputs == 5
    assert merged.adapters == {"gpu": {"driver": "x"}}


def test_a_missing_shard_is_named():
    with pytest.raises(ReportError, match="shard 2/3 missing"):
        merge([("a", _shard(1, 3, [0])), ("c", _shard(3, 3, [1]))])


def test_a_repeated_shard_is_named_with_both_files():
    with pytest.raises(ReportError, match="a.json and again.json are both shard 1/2"):
        merge([("a.json", _shard(1, 2, [0])), ("again.json", _shard(1, 2, [0])),
               ("b.json", _shard(2, 2, [1]))])


def test_shards_of_different_command_lines_are_refused():
    with pytest.raises(ReportError, match="different command lines"):
        merge([("a", _shard(1, 2, [0], inputs=5)), ("b", _shard(2, 2, [1], inputs=6))])
    with pytest.raises(ReportError, match="different command lines"):
        merge([("a", _shard(1, 2, [0])), ("b", _shard(2, 3, [1])), ("c", _shard(1, 3, [2]))])


def test_a_report_written_without_shard_is_no_part():
    whole = _shard(1, 1, [0])
    whole.shard = None
    with pytest.raises(ReportError, match="w.json: not a shard's report"):
        merge([("w.json", whole)])


def test_a_partial_report_and_a_foreign_file_are_refused(tmp_path):
    partial = _shard(1, 2, [0])
    partial.complete = False
    path = tmp_path / "partial.json"
    partial.write(str(path))
    with pytest.raises(ReportError, match="partial.json: a partial report"):
        read_report(str(path))
    other = tmp_path / "result.json"
    other.write_text(json.dumps({"gpuia_result": 1}))
    with pytest.raises(ReportError, match="result.json: not a check report"):
        read_report(str(other))
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(ReportError, match="broken.json: not a check report"):
        read_report(str(broken))


def test_a_written_report_reads_back_equal(tmp_path):
    report = _shard(2, 3, [1, 4])
    report.cases.append(CaseRecord(2, "bad.json", "bad", None, "input_layout: rule"))
    path = tmp_path / "r.json"
    report.write(str(path))
    back = read_report(str(path))
    assert back.cases == report.cases and back.shard == "2/3" and back.inputs == 5
    doc = json.loads(path.read_text())
    assert [c["status"] for c in doc["cases"]] == ["pass", "pass", "error"]
    checked, invalid = back.results()
    assert [r.case for r, _ in checked] == ["c1", "c4"]
    assert invalid == [("bad", "error: bad: input_layout: rule", "bad.json")]


def test_the_adapters_a_case_ran_on_read_back(tmp_path):
    """``ran_on`` (workers over several adapters) is kept; a case without it has no such key."""
    report = _shard(1, 1, [0, 1])
    report.cases[1].ran_on = [1]
    report.cases.append(CaseRecord(2, "x.json", "x", None, "died twice", outcome="crash",
                                   ran_on=[0, 1]))
    path = tmp_path / "r.json"
    report.write(str(path))
    doc = json.loads(path.read_text())
    assert ["ran_on" in c for c in doc["cases"]] == [False, True, True]
    assert [c.ran_on for c in read_report(str(path)).cases] == [None, [1], [0, 1]]


def test_a_different_line_makes_the_case_fail(tmp_path):
    record = CaseRecord(0, "a.json", "a", [_line("a"), _line("a", "DIFFERENT")])
    assert record.as_json()["status"] == "fail"
    assert CaseRecord(0, "a.json", "a", [_line("a", "not applicable")]).as_json()["status"] \
        == "pass"


def _view() -> CaseView:
    cell = Cell(["1.0", "nan"], ["0x3f800000", "0x7fc00000"], ["same", "nan"], "nan", "n")
    row = InvocationRow(np.int64(3), 0, 1, 2, "diff", [(cell, cell)], [(None, cell), (cell, cell)])
    run = RunView("a: gpu: native", "gpu", "native", "DIFFERENT", "1 differs", ["p"], ["POS"],
                  [row], 4, 3, [("IAVertices", "3", "3", False)],
                  [ErrorRow("POS", "exact", 4, 3, 1, 0, 1, float("inf"))],
                  [SOSlotView(0, 16, None, 0, 16, 12, 4, [HexRow(0, [("ab", "diff")], None,
                                                                 True)], 0)])
    prims = PrimitivesView(["prim"], [[("0", "same")]], 1, ["note"])
    return CaseView("a", "desc", "TRIANGLELIST", ["DrawInstanced(3)"], [["0", "POSITION0"]], [],
                    [{"summary": "gpu", "driver": "x"}], [run], [("IAVertices", "3")],
                    primitives=prims)


def test_an_html_view_survives_json_unchanged():
    view = _view()
    text = json.dumps(view_to_json(view))
    back = view_from_json(json.loads(text))
    assert back == view
    assert isinstance(back.runs[0].rows[0].cells[0], tuple)  # tuples stay tuples
    assert back.runs[0].rows[0].cells[0][0] is None
