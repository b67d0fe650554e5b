"""``gpuia check --baseline/--flakes/--write-baseline`` as a user runs them (docs/scale-out.md),
on the test adapter: a run matching its baseline exits 0; a new failure and an unexpected pass
exit 1 with one line naming the case."""

from __future__ import annotations

import json

import pytest

from helpers import TRIANGLE, gpuia_cli


@pytest.fixture
def bad_case(tmp_path):
    """A case CreateInputLayout refuses (rules 3.2: an offset not a multiple of 4)."""
    bad = json.loads(TRIANGLE.read_text())
    bad["name"] = "bad_offset"
    bad["input_layout"][1]["AlignedByteOffset"] = 2
    path = tmp_path / "bad_offset.json"
    path.write_text(json.dumps(bad))
    return str(path)


def test_a_baseline_run_exits_0_and_each_difference_exits_1_naming_the_case(bad_case, tmp_path):
    cases = [str(TRIANGLE), bad_case]  # triangle_two_slots passes, bad_offset is refused
    baseline = tmp_path / "baseline.csv"
    wrote = gpuia_cli("check", *cases, "--write-baseline", baseline)
    assert wrote.returncode == 2  # without --baseline: the status it always had
    assert baseline.read_text() == "# case,path,adapter,status,code\nbad_offset,*,*,error,E001\n"
    same = gpuia_cli("check", *cases, "--baseline", baseline)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "baseline:" not in same.stdout
    # a new failure: bad_offset is no longer expected
    new = tmp_path / "new.csv"
    new.write_text("# nothing expected to fail\n")
    proc = gpuia_cli("check", *cases, "--baseline", new)
    assert proc.returncode == 1
    assert [ln for ln in proc.stdout.splitlines() if ln.startswith("baseline:")] == [
        "baseline: new error E001: bad_offset"]
    # an unexpected pass: the baseline says the triangle's native path fails
    stale = tmp_path / "stale.csv"
    stale.write_text(baseline.read_text() + "triangle_two_slots,native,*,fail\n")
    proc = gpuia_cli("check", *cases, "--baseline", stale)
    assert proc.returncode == 1
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("baseline:")]
    assert len(lines) == 1 and lines[0].startswith("baseline: unexpected pass: "
                                                   "triangle_two_slots: ")
    assert lines[0].endswith(": native (expected fail; update the baseline)")
    # ... unless the case is a known flake
    flakes = tmp_path / "flakes.txt"
    flakes.write_text("# may vary\ntriangle_two_slots\n")
    proc = gpuia_cli("check", *cases, "--baseline", stale, "--flakes", flakes)
    assert proc.returncode == 0, proc.stdout


def test_a_bad_baseline_is_refused_before_anything_runs(tmp_path):
    bad = tmp_path / "b.csv"
    bad.write_text("x,*,*,maybe\n")
    proc = gpuia_cli("check", TRIANGLE, "--baseline", bad)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (f"error: check: {bad}: line 1: status 'maybe': one of pass, "
                                   f"fail, error, crash, timeout")
