"""The optional ``conformance`` jobs of .github/workflows/ci.yml run docs/scale-out.md's recipe
(shards judged against a baseline, then one merge) through ``.ci/conformance``: the same script,
run here as each matrix job runs it, so the recipe is tested, not only written.

Truth: the example case files on disk (every one must be checked exactly once over the shards),
the committed baseline (every example passes, so every shard exits 0) and the workflow's own
matrix (its shard numbers are 1..N, N the count the shard command names).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from helpers import EXAMPLES, REPO

WORKFLOW = REPO / ".github" / "workflows" / "ci.yml"
SCRIPT = REPO / ".ci" / "conformance"


def _job(name: str) -> str:
    """The text of one job of the workflow (up to the next job at the same indentation)."""
    text = WORKFLOW.read_text()
    found = re.search(rf"^  {re.escape(name)}:\n(.*?)(?=^  \S|\Z)", text, re.M | re.S)
    assert found, f"{WORKFLOW} has no job {name!r}"
    return found.group(1)


def _matrix() -> tuple[list[int], int]:
    """The workflow's shard numbers and the N its shard command passes."""
    job = _job("conformance")
    ks = [int(k) for k in re.search(r"k: \[([\d, ]+)\]", job).group(1).split(",")]
    run = re.search(r"bash \.ci/conformance shard \$\{\{ matrix\.k \}\} (\d+) (\S+)", job)
    assert run, job
    return ks, int(run.group(1))


def _script(*args, folder: Path) -> subprocess.CompletedProcess:
    gpuia = Path(sys.executable).with_name("gpuia")
    assert gpuia.exists(), f"no gpuia command beside {sys.executable}"
    return subprocess.run(["bash", str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True, cwd=folder, env={**os.environ, "GPUIA": str(gpuia)},
                          timeout=600, check=False)


def test_the_workflow_runs_every_shard_once_and_merges_them():
    ks, n = _matrix()
    assert ks == list(range(1, n + 1)) and n >= 2
    merge = _job("conformance-merge")
    assert "needs: conformance" in merge and "bash .ci/conformance merge conformance" in merge


def test_the_recipe_checks_every_conformance_case_once(tmp_path):
    ks, n = _matrix()
    seen: list[str] = []
    for k in ks:
        proc = _script("shard", k, n, tmp_path, folder=tmp_path)
        assert proc.returncode == 0, (k, proc.stdout[-2000:], proc.stderr[-2000:])
        shard = json.loads((tmp_path / f"shard-{k}.json").read_text())
        seen += [case["source"] for case in shard["cases"]]
        assert all(case["status"] == "pass" for case in shard["cases"]), shard["cases"]
    expected = sorted(str(p.relative_to(REPO)) for p in EXAMPLES)
    assert sorted(seen) == expected  # disjoint and covering: each case in exactly one shard

    proc = _script("merge", tmp_path, folder=tmp_path)
    assert proc.returncode == 0, proc.stderr
    merged = json.loads((tmp_path / "report.json").read_text())
    assert sorted(case["source"] for case in merged["cases"]) == expected
    suites = ET.parse(tmp_path / "junit.xml").getroot()
    assert suites.findall(".//testcase")
    assert not suites.findall(".//failure") and not suites.findall(".//error")


def test_the_script_refuses_a_wrong_call(tmp_path):
    proc = _script("shard", 1, tmp_path, folder=tmp_path)
    assert proc.returncode == 2 and "usage:" in proc.stderr
