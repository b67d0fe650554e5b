"""``gpuia check --workers N`` (docs/scale-out.md) on the test adapter: the output and every
report equal one process's; a worker killed with SIGKILL is replaced, its case run again alone
and named, and every other case completes; a case past ``--timeout`` is reported by name; a
signal to the command leaves no worker and no temporary folder."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import pytest

from helpers import (
    REPO,
    TRIANGLE,
    alive,
    gpuia_cli,
    kill_all,
    kill_busy_worker,
    wait_for,
    workers_of,
)

CHECK_CHILD = "gpuia.cli.check_child"


def _triangles(folder, count: int) -> list[str]:
    base = json.loads(TRIANGLE.read_text())
    paths = []
    for i in range(count):
        path = folder / f"tri_{i:02d}.json"
        path.write_text(json.dumps({**base, "name": f"tri_{i:02d}"}))
        paths.append(str(path))
    return paths


def _untimed_json(path) -> dict:
    doc = json.loads(path.read_text())
    for key in ("command", "shard", "seconds"):
        doc.pop(key)
    for case in doc["cases"]:
        for line in case["lines"] or ():
            line.pop("seconds")
    return doc


def test_workers_print_and_report_what_one_process_does(examples_one_at_a_time, tmp_path):
    """The example cases (every one), an unreadable case among them and a case refused by
    rules 3.2 at the end, on two workers: the output and every report equal those of one
    process (made once per pytest run: tests/tools/conftest.py)."""
    base = examples_one_at_a_time
    one_dir, w = base.folder, tmp_path
    workers = gpuia_cli("check", *base.cases, "--workers", "2", "--json", w / "workers.json",
                        "--junit", w / "workers.xml", "--html", w / "workers.html", "--csv",
                        w / "workers-csv")
    one = base.proc
    assert one.returncode == workers.returncode == 2  # broken and bad_offset are invalid input
    assert workers.stdout == one.stdout
    assert workers.stderr == one.stderr
    assert _untimed_json(w / "workers.json") == _untimed_json(one_dir / "one.json")
    xml = [re.sub(r' time="[0-9.]+"', "", (d / f"{t}.xml").read_text())
           for d, t in ((one_dir, "one"), (w, "workers"))]
    assert xml[0] == xml[1]
    html = [[ln for ln in (d / f"{t}.html").read_text().splitlines()
             if "generated " not in ln] for d, t in ((one_dir, "one"), (w, "workers"))]
    assert html[0] == html[1]
    names = sorted(p.name for p in (one_dir / "one-csv").iterdir())
    assert names == sorted(p.name for p in (w / "workers-csv").iterdir())
    for name in names:
        assert (w / "workers-csv" / name).read_text() == \
            (one_dir / "one-csv" / name).read_text()


def test_a_killed_worker_is_replaced_and_its_case_named(tmp_path):
    cases = _triangles(tmp_path, 30)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "gpuia", "check", *cases, "--workers", "2",
                             "--json", str(tmp_path / "r.json")], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp)})
    seen: set[int] = set()
    try:
        assert wait_for(lambda: len(workers_of(proc.pid, CHECK_CHILD)) == 2, 120)
        seen = workers_of(proc.pid, CHECK_CHILD)
        # killed while both workers are inside a case (a tiny case takes milliseconds: an idle
        # worker killed between cases would leave no case to name)
        assert kill_busy_worker(seen, tmp, 120) is not None
        out, err = proc.communicate(timeout=300)
    finally:
        kill_all(proc, seen)
    assert proc.returncode == 0, err
    crashes = [ln for ln in out.splitlines() if ": crash: " in ln]
    assert len(crashes) == 1, out
    assert re.fullmatch(r"tri_\d\d: crash: the child process killed by SIGKILL; run again alone "
                        r"in a new worker, it completed:", crashes[0])
    # every case's lines once, in order; the killed worker's case among them
    pulling = [ln.split(":", 1)[0] for ln in out.splitlines() if ": pulling: OK" in ln]
    assert pulling == [f"tri_{i:02d}" for i in range(30)]
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["complete"] and [c["status"] for c in doc["cases"]] == ["pass"] * 30
    assert not any(alive(pid) for pid in seen)
    assert list(tmp.iterdir()) == []  # no worker left a temporary folder


def test_a_case_past_the_timeout_is_named_and_run_again_alone(tmp_path):
    cases = _triangles(tmp_path, 2)
    baseline = tmp_path / "baseline.csv"
    proc = gpuia_cli("check", *cases, "--workers", "1", "--timeout", "0.001", "--json",
                     tmp_path / "r.json", "--write-baseline", baseline)
    assert proc.returncode == 1, proc.stderr
    expected = ("{}: timeout: no answer within 0.001 s (the child was killed); run again alone "
                "in a new worker: no answer within 0.001 s (the child was killed)")
    assert proc.stdout.splitlines() == [expected.format("tri_00"), expected.format("tri_01")]
    doc = json.loads((tmp_path / "r.json").read_text())
    assert [(c["case"], c["status"]) for c in doc["cases"]] == [("tri_00", "timeout"),
                                                               ("tri_01", "timeout")]
    assert baseline.read_text().splitlines()[1:] == ["tri_00,*,*,timeout,", "tri_01,*,*,timeout,"]
    again = gpuia_cli("check", *cases, "--workers", "1", "--timeout", "0.001", "--baseline",
                      baseline)
    assert again.returncode == 0, again.stdout  # the timeouts are expected now


def test_sigterm_ends_every_worker_and_leaves_a_valid_report(tmp_path):
    cases = _triangles(tmp_path, 200)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    report = tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, "-m", "gpuia", "check", *cases, "--workers", "2",
                             "--json", str(report)], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp)})
    seen: set[int] = set()
    try:
        assert wait_for(lambda: report.exists(), 120)
        seen = workers_of(proc.pid, CHECK_CHILD)
        assert len(seen) == 2
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        kill_all(proc, seen)
    assert proc.returncode == 143, err
    assert wait_for(lambda: not any(alive(pid) for pid in seen), 10)  # no orphan
    doc = json.loads(report.read_text())
    assert doc["complete"] is False and 1 <= len(doc["cases"]) < 200
    assert [c["index"] for c in doc["cases"]] == list(range(len(doc["cases"])))
    assert list(tmp.iterdir()) == []


@pytest.mark.parametrize("args, says", [
    (["-", "--workers", "2"], "standard input ('-')"),
    ([str(TRIANGLE), "--workers", "2", "--plot", "x.png"], "--plot"),
    ([str(TRIANGLE), "--timeout", "5"], "--timeout S times the cases of --workers N"),
    ([str(TRIANGLE), "--workers", "0"], "--workers: 0: a whole number of 1 or more"),
])
def test_what_workers_refuse_is_one_line(args, says):
    proc = gpuia_cli("check", *args, stdin="{}")
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: check: ") and says in lines[0], lines


def test_no_matching_adapter_is_the_one_process_line():
    one = gpuia_cli("check", TRIANGLE, "--adapter", "nosuch")
    workers = gpuia_cli("check", TRIANGLE, "--adapter", "nosuch", "--workers", "2")
    assert one.returncode == workers.returncode == 2
    assert workers.stderr == one.stderr and workers.stdout == one.stdout == ""
    assert one.stderr.startswith("error: check: no GPU adapter matches adapter='nosuch'")
