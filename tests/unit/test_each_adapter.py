"""``check --each-adapter``'s judgement of one case (gpuia.cli.each_adapter, docs/scale-out.md):
the same result bytes on every adapter is one ``OK`` line; a part whose digest differs on an
adapter is ``DIFFERENT``, naming the first adapter, that one and the part; an adapter without a
result is ``not compared``; an error or a dead worker on any adapter makes the case's entry."""

from __future__ import annotations

from gpuia.cli.each_adapter import AdapterRun, agreement_line, join_runs
from gpuia.harness.check_report import CaseRecord

SAME = {"invocations": "a" * 64, "statistics": "b" * 64, "stream_output": "c" * 64}


def _run(index: int, digest=SAME, lines=None, error=None) -> AdapterRun:
    record = CaseRecord(0, "t.json", "t", lines if lines is not None else [
        {"label": f"t: gpu{index}: native", "status": "OK", "detail": "", "table": "",
         "problems": [], "path": "native", "adapter": f"gpu{index}", "seconds": 0.0}], error)
    return AdapterRun(index, f"gpu{index}", {"rc": 0}, digest, record=record)


def test_equal_bytes_on_every_adapter_is_one_ok_line():
    line = agreement_line("t", [_run(0), _run(1), _run(2)])
    assert (line["status"], line["path"]) == ("OK", "each adapter")
    assert line["detail"] == "the same result bytes on 3 adapters (#0, #1, #2)"
    assert line["adapter"] == "#0 gpu0, #1 gpu1, #2 gpu2"


def test_a_part_that_differs_names_both_adapters_and_the_part():
    runs = [_run(0), _run(1), _run(2, {**SAME, "stream_output": "d" * 64})]
    line = agreement_line("t", runs)
    assert line["status"] == "DIFFERENT"
    assert line["problems"] == ["#0 gpu0 and #2 gpu2: different bytes in stream_output"]
    assert line["detail"] == "the result bytes differ on 1 of 2 other adapters"
    # a part one adapter has and the other lacks differs too
    line = agreement_line("t", [_run(0), _run(1, {**SAME, "outputs": "e" * 64})])
    assert line["problems"] == ["#0 gpu0 and #1 gpu1: different bytes in outputs"]


def test_an_adapter_without_a_result_is_not_compared():
    line = agreement_line("t", [_run(0), _run(1, None)])
    assert line["status"] == "not compared"
    assert line["detail"].startswith("no result on #1 gpu1")


def test_the_joined_case_fails_on_a_difference_and_lists_its_adapters():
    record, text = join_runs([_run(0), _run(1, {**SAME, "invocations": "f" * 64})], "t.json",
                             "t")
    doc = record.as_json()
    assert doc["status"] == "fail" and doc["ran_on"] == [0, 1]
    assert [ln["adapter"] for ln in doc["lines"]] == ["gpu0", "gpu1", "#0 gpu0, #1 gpu1"]
    assert text == ("t: each adapter: DIFFERENT: the result bytes differ on 1 of 1 other "
                    "adapters\n  #0 gpu0 and #1 gpu1: different bytes in invocations\n")


def test_an_error_or_a_dead_worker_makes_the_case_entry():
    record, text = join_runs([_run(0), _run(1, None, error="input_layout: rule")], "t.json", "t")
    assert (record.as_json()["status"], record.error, text) == ("error", "input_layout: rule", "")
    dead = AdapterRun(1, "gpu1", died="crash: killed by SIGKILL; again: killed", kind="crash")
    record, text = join_runs([_run(0), dead], "t.json", "t")
    doc = record.as_json()
    assert (doc["status"], doc["ran_on"], text) == ("crash", [0, 1], "")
    assert doc["error"] == "#1 gpu1: crash: killed by SIGKILL; again: killed"
