"""``gpuia check --workers N --adapter ...`` over several adapters (docs/scale-out.md, "Every GPU
of a host"): workers spread round-robin over the matching adapters, each opening its own alone,
every case recorded with the adapter it ran on; ``--each-adapter`` runs every case on every
adapter and fails a case whose result bytes differ between two.

The expected adapters come from ``gpuia adapters --json`` (wgpu's order: position k is adapter
#k); the tests need two adapters (lavapipe and llvmpipe's OpenGL here) and skip with fewer."""

from __future__ import annotations

import json
import os
import sys
import tempfile

import pytest

from gpuia.cli import check_workers
from gpuia.cli import main as cli_main
from gpuia.util import worker_pool
from helpers import EXAMPLE_CASES, TRIANGLE, assert_one_error_line, gpuia_cli

SO_CASE = EXAMPLE_CASES / "stream_output_strip_overflow.json"


@pytest.fixture(scope="module")
def summaries() -> list[str]:
    """Every adapter's summary, in wgpu's order; skips unless there are two or more."""
    proc = gpuia_cli("adapters", "--json")
    assert proc.returncode == 0, proc.stderr
    found = [a["summary"] for a in json.loads(proc.stdout)]
    if len(found) < 2:
        pytest.skip(f"needs two adapters, this machine has {len(found)}")
    return found


def _check(tmp_path, *args):
    report = tmp_path / "r.json"
    proc = gpuia_cli("check", *args, "--json", report)
    return proc, (json.loads(report.read_text()) if report.exists() else None)


def test_workers_spread_over_every_adapter_and_record_it(tmp_path, summaries):
    cases = [TRIANGLE, SO_CASE, TRIANGLE.with_name("instance_step_rates.json")]
    proc, doc = _check(tmp_path, *cases, "--workers", "2", "--adapter", "all")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""
    assert list(doc["adapters"]) == summaries[:2]  # worker k opened adapter k of 2
    seen = set()
    for case in doc["cases"]:
        (index,) = case["ran_on"]  # one adapter each: its worker's
        seen.add(index)
        assert {ln["adapter"] for ln in case["lines"]} == {summaries[index]}
        for ln in case["lines"]:  # the printed lines name the same adapter
            text = f"{case['case']}: {summaries[index]}: {ln['path']}: {ln['status']}: "
            assert text in proc.stdout
    assert seen == {0, 1}  # the first two cases go to the two workers at once


def test_round_robin_gives_each_adapter_its_share_of_workers(summaries):
    """Worker k opens adapter k mod M: five workers on two adapters are 0, 1, 0, 1, 0."""
    config = {"mode": "check", "adapter": "all", "gpu_backend": None, "argv": []}
    pool = worker_pool.Pool(config, 5, [sys.executable, "-m", "gpuia.cli.check_child"],
                            [{"adapter_slot": k} for k in range(5)])
    try:
        pool.start()
        groups = [w.ready["adapter_index"] for w in pool.workers]
        opened = [list(w.ready["infos"]) for w in pool.workers]
    finally:
        pool.close()
    m = len(summaries)
    assert groups == [k % m for k in range(5)]
    assert opened == [[summaries[k % m]] for k in range(5)]  # its own adapter, no other


def test_several_substrings_select_the_adapters_each_names(tmp_path, summaries):
    """``--adapter A,B``: the adapters whose summary holds A or B."""
    proc, doc = _check(tmp_path, TRIANGLE, "--workers", "1", "--each-adapter", "--adapter",
                       f"{summaries[1]},{summaries[0]}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert doc["cases"][0]["ran_on"] == [0, 1]
    # a value that as a whole is part of one summary stays one substring, commas and all
    proc, doc = _check(tmp_path, TRIANGLE, "--workers", "1", "--adapter", summaries[0])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert list(doc["adapters"]) == [s for s in summaries if summaries[0] in s]


def test_each_adapter_runs_every_case_everywhere_and_says_they_agree(tmp_path, summaries):
    # one worker for two adapters: --each-adapter starts one more
    proc, doc = _check(tmp_path, TRIANGLE, SO_CASE, "--workers", "1", "--adapter", "all",
                       "--each-adapter")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = ", ".join(f"#{k}" for k in range(len(summaries)))
    for case in doc["cases"]:
        assert case["ran_on"] == list(range(len(summaries)))
        assert case["status"] == "pass"
        assert {ln["adapter"] for ln in case["lines"][:-1]} == set(summaries)
        line = case["lines"][-1]
        assert (line["path"], line["status"]) == ("each adapter", "OK")
        text = (f"{case['case']}: each adapter: OK: the same result bytes on "
                f"{len(summaries)} adapters ({names})")
        assert text in proc.stdout.splitlines()


def test_each_adapter_fails_a_case_whose_bytes_differ(tmp_path, summaries, monkeypatch,
                                                      capsys):
    """One adapter's Stream Output bytes, as its worker answered them, replaced in the parent:
    the case fails, naming both adapters and the part that differs."""
    receive = worker_pool.Worker.receive

    def tampered(self, timeout):
        out = receive(self, timeout)
        if self.ready.get("group") == 1 and "stream_output" in (out.answer.get("digest") or {}):
            out.answer["digest"]["stream_output"] = "0" * 64
        return out

    monkeypatch.setattr(worker_pool.Worker, "receive", tampered)
    report = tmp_path / "r.json"
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    rc = cli_main(["check", str(TRIANGLE), str(SO_CASE), "--workers", "2", "--adapter", "all",
                   "--each-adapter", "--no-progress", "--json", str(report)])
    out = capsys.readouterr().out
    assert rc == 1, out
    doc = json.loads(report.read_text())
    triangle, so = doc["cases"]
    assert triangle["status"] == "pass"  # no Stream Output: nothing tampered with
    assert so["status"] == "fail"
    line = so["lines"][-1]
    assert line["status"] == "DIFFERENT"
    problem = f"#0 {summaries[0]} and #1 {summaries[1]}: different bytes in stream_output"
    assert line["problems"][0] == problem
    assert f"  {problem}" in out.splitlines()
    assert os.listdir(tmp_path) == ["r.json"]  # the workers' folder is gone


@pytest.mark.parametrize("extra, says", [
    ([], "give --workers N"),
    (["--workers", "2"], "give --adapter"),
    (["--workers", "2", "--adapter", "all", "--html", "x.html"], "--html holds one view"),
])
def test_each_adapter_refusals(extra, says):
    proc = gpuia_cli("check", TRIANGLE, "--each-adapter", *extra)
    assert_one_error_line(proc, "--each-adapter" if "--html" not in says else says, says)


def test_run_workers_spread_too_and_each_result_names_its_adapter(tmp_path, summaries):
    cases = [TRIANGLE, SO_CASE]
    proc = gpuia_cli("run", *cases, "--backend", "gpu", "--workers", "2", "--adapter", "all",
                     "--out-dir", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ran = {json.loads((tmp_path / f"{c.stem}.json").read_text())["adapter"]["summary"]
           for c in cases}
    assert ran == set(summaries[:2])  # the two cases went to the two workers at once


def test_a_case_whose_worker_died_runs_again_on_its_adapter(tmp_path, summaries, monkeypatch,
                                                            capsys):
    """The worker of adapter #1 killed (SIGKILL) right after it was sent its first case: the
    case runs again alone on a new worker of that adapter, and every case completes."""
    send = worker_pool.Worker.send
    killed: list[str] = []

    def killing(self, request):
        send(self, request)
        if self.ready.get("group") == 1 and not killed:
            killed.append(request["path"])
            self.proc.kill()
            self.proc.wait()

    monkeypatch.setattr(worker_pool.Worker, "send", killing)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    report = tmp_path / "r.json"
    cases = [str(TRIANGLE), str(SO_CASE), str(TRIANGLE.with_name("instance_step_rates.json"))]
    rc = cli_main(["check", *cases, "--workers", "2", "--adapter", "all", "--no-progress",
                   "--json", str(report)])
    out = capsys.readouterr().out
    assert rc == 0, out
    (path,) = killed
    doc = json.loads(report.read_text())
    assert [c["status"] for c in doc["cases"]] == ["pass"] * 3
    (case,) = [c for c in doc["cases"] if c["source"] == path]
    assert case["ran_on"] == [1]
    assert {ln["adapter"] for ln in case["lines"]} == {summaries[1]}
    assert (f"{case['case']}: crash: the child process killed by SIGKILL; run again alone in a "
            f"new worker, it completed:") in out.splitlines()


# A worker whose adapter makes no device: wgpu's refusal stood in for (made to raise on
# llvmpipe's OpenGL adapter, in the worker process alone), as on a machine whose GL driver gives
# no context to wgpu (docs/known-adapter-issues.md).
REFUSING_WORKER = """
import sys
import gpuia.gpu.device as device
real = device.request_device
def refuse(adapter, *args):
    if adapter.info.get("backend_type") == "OpenGL":
        raise RuntimeError("no EGL context today")
    return real(adapter, *args)
device.request_device = refuse
from gpuia.cli.check_child import main
sys.exit(main())
"""


def test_a_worker_whose_adapter_makes_no_device_stops_the_run(tmp_path, summaries, monkeypatch,
                                                              capsys):
    """docs/scale-out.md: exit 2 and one ``error:`` line naming the adapter and the reason;
    no case runs, no report is written."""
    gl = next((s for s in summaries if s.endswith("via OpenGL")), None)
    if gl is None:
        pytest.skip("needs an OpenGL adapter")
    monkeypatch.setattr(check_workers, "WORKER_COMMAND", [sys.executable, "-c", REFUSING_WORKER])
    report = tmp_path / "r.json"
    rc = cli_main(["check", str(TRIANGLE), str(SO_CASE), "--workers", "2", "--adapter", "all",
                   "--no-progress", "--json", str(report)])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "", out
    assert err.splitlines() == [
        f"error: check: --adapter all: adapter #{summaries.index(gl)} {gl} cannot create a "
        f"device (no EGL context today); give --adapter the adapters that work"]
    assert not report.exists()
