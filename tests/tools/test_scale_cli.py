"""``--shard K/N``, ``gpuia report merge`` and ``check --json`` saved as it goes, as a user runs
them (docs/scale-out.md), on the test adapter.

The one-process run is the oracle of a merge: the merged JSON, JUnit, HTML and CSV must equal
what ``gpuia check`` of the whole list writes, apart from timings and the command line shown.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import pytest

from helpers import EXAMPLES, REPO, TRIANGLE, gpuia_cli

SHARDS = 3


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The example cases and generated ones: renamed triangles (a list large enough that
    every shard has cases) and one case CreateInputLayout refuses."""
    folder = tmp_path_factory.mktemp("corpus")
    base = json.loads(TRIANGLE.read_text())
    paths = [str(p.relative_to(REPO)) for p in EXAMPLES]
    for i in range(6):
        path = folder / f"gen_{i}.json"
        path.write_text(json.dumps({**base, "name": f"gen_{i}"}))
        paths.append(str(path))
    bad = json.loads(TRIANGLE.read_text())
    bad["name"] = "bad_offset"
    bad["input_layout"][1]["AlignedByteOffset"] = 2  # rules 3.2: not a multiple of 4
    (folder / "bad_offset.json").write_text(json.dumps(bad))
    paths.append(str(folder / "bad_offset.json"))
    return paths


def _reports(tmp, tag: str) -> list[str]:
    return ["--json", tmp / f"{tag}.json", "--junit", tmp / f"{tag}.xml", "--html",
            tmp / f"{tag}.html", "--csv", tmp / f"{tag}-csv"]


def _json(path) -> dict:
    doc = json.loads(path.read_text())
    for key in ("command", "shard", "seconds"):  # provenance and timing
        doc.pop(key)
    for case in doc["cases"]:
        for line in case["lines"] or ():
            line.pop("seconds")
    return doc


def test_merged_shards_equal_the_one_process_reports(examples_one_at_a_time, tmp_path):
    """The shards and merge of the example cases (every one), an unreadable case among
    them and a case refused by rules 3.2 at the end, against one process's check of the same
    list: the one that ``--jobs`` and ``--workers`` are compared against, made once per pytest
    run (tests/tools/conftest.py)."""
    base = examples_one_at_a_time
    cases, whole = base.cases, base.proc
    assert whole.returncode == 2, whole.stderr  # broken and bad_offset are invalid input
    shard_out = []
    for k in range(1, SHARDS + 1):
        proc = gpuia_cli("check", *cases, "--shard", f"{k}/{SHARDS}",
                         *_reports(tmp_path, f"s{k}"))
        assert proc.returncode in (0, 2), proc.stderr
        shard_out.append(proc.stdout)
    ran = [json.loads((tmp_path / f"s{k}.json").read_text())["cases"]
           for k in range(1, SHARDS + 1)]
    assert all(ran), f"a shard of {len(cases)} cases with no case: the test shows nothing"
    assert sorted(c["index"] for part in ran for c in part) == list(range(len(cases)))
    # every line check printed, once, across the shards
    assert sorted("".join(shard_out).splitlines()) == sorted(whole.stdout.splitlines())
    merge = gpuia_cli("report", "merge", *[tmp_path / f"s{k}.json" for k in (3, 1, 2)],
                      *_reports(tmp_path, "merged"))
    assert merge.returncode == 0, merge.stderr
    one = base.folder
    assert _json(tmp_path / "merged.json") == _json(one / "one.json")

    def untimed(path):
        return re.sub(r' time="[0-9.]+"', "", path.read_text())
    assert untimed(tmp_path / "merged.xml") == untimed(one / "one.xml")

    def undated(path):  # the header's line: the time it was made and the command line
        return [ln for ln in path.read_text().splitlines() if "generated " not in ln]
    assert undated(tmp_path / "merged.html") == undated(one / "one.html")
    whole_csv, merged_csv = one / "one-csv", tmp_path / "merged-csv"
    names = sorted(p.name for p in whole_csv.iterdir())
    assert names and names == sorted(p.name for p in merged_csv.iterdir())
    for name in names:
        assert (merged_csv / name).read_text() == (whole_csv / name).read_text(), name


def test_a_missing_shard_is_refused_by_name(corpus, tmp_path):
    out = tmp_path / "s1.json"
    proc = gpuia_cli("check", *corpus[:4], "--shard", "1/2", "--json", out)
    assert proc.returncode == 0, proc.stderr
    merge = gpuia_cli("report", "merge", out, "--junit", tmp_path / "m.xml")
    assert merge.returncode == 2
    assert merge.stderr.strip() == "error: report: shard 2/2 missing"
    assert not (tmp_path / "m.xml").exists()


def test_validate_shards_cover_every_case_once(corpus):
    seen = []
    for k in range(1, SHARDS + 1):
        proc = gpuia_cli("validate", *corpus, "--shard", f"{k}/{SHARDS}")
        seen += [ln.split(":")[1].strip() for ln in proc.stdout.splitlines()]
        seen += [ln.split(":")[1].strip() for ln in proc.stderr.splitlines()]
    whole = gpuia_cli("validate", *corpus)
    expected = [ln.split(":")[1].strip() for ln in whole.stdout.splitlines() + whole.stderr
                .splitlines()]
    assert len(expected) == len(corpus)
    assert sorted(seen) == sorted(expected)


def test_run_shards_write_every_result_once(corpus, tmp_path):
    valid = [p for p in corpus if "bad_offset" not in p]
    for k in range(1, SHARDS + 1):
        proc = gpuia_cli("run", *valid, "--shard", f"{k}/{SHARDS}", "--out-dir",
                         tmp_path / f"r{k}")
        assert proc.returncode == 0, proc.stderr
    written = [p.name for k in range(1, SHARDS + 1) for p in (tmp_path / f"r{k}").iterdir()]
    assert sorted(written) == sorted(p.rsplit("/", 1)[1] for p in valid)


def test_a_stopped_check_leaves_a_valid_partial_report(tmp_path):
    report = tmp_path / "partial.json"
    cases = [str(TRIANGLE)] * 400
    proc = subprocess.Popen([sys.executable, "-m", "gpuia", "check", *cases, "--jobs", "1",
                             "--json", str(report)], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not report.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert report.exists(), "no report was saved while the cases ran"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    doc = json.loads(report.read_text())
    assert doc["complete"] is False and doc["inputs"] == 400
    assert 1 <= len(doc["cases"]) < 400
    assert [c["index"] for c in doc["cases"]] == list(range(len(doc["cases"])))
    assert all(c["status"] == "pass" for c in doc["cases"])
    assert not list(tmp_path.glob(".*.part"))  # written whole: no temporary left
    merge = gpuia_cli("report", "merge", report)
    assert merge.returncode == 2 and "a partial report" in merge.stderr
