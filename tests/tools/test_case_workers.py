"""``gpuia run --workers N`` and ``gpuia validate --workers N`` (docs/scale-out.md): each
stream of output and every file written equal one process's; a case past ``--timeout`` twice
is one ``error:`` line naming it (exit 2: it could not be run)."""

from __future__ import annotations

import json

from helpers import EXAMPLES, TRIANGLE, gpuia_cli


def _bad(tmp_path) -> str:
    bad = json.loads(TRIANGLE.read_text())
    bad["name"] = "bad_offset"
    bad["input_layout"][1]["AlignedByteOffset"] = 2  # rules 3.2
    path = tmp_path / "bad_offset.json"
    path.write_text(json.dumps(bad))
    return str(path)


def test_validate_on_workers_prints_what_one_process_does(tmp_path):
    cases = [str(p) for p in EXAMPLES] + [_bad(tmp_path)]
    one = gpuia_cli("validate", *cases)
    workers = gpuia_cli("validate", *cases, "--workers", "2")
    assert one.returncode == workers.returncode == 2
    assert workers.stdout == one.stdout and workers.stderr == one.stderr
    assert len(one.stdout.splitlines()) == len(EXAMPLES)


def test_run_on_workers_writes_what_one_process_does(tmp_path):
    cases = [str(p) for p in EXAMPLES]
    runs = {}
    for tag, extra in (("one", []), ("workers", ["--workers", "2"])):
        runs[tag] = gpuia_cli("run", *cases, "--table", "--out-dir", tmp_path / tag, "--csv",
                              tmp_path / f"{tag}-csv", *extra)
        assert runs[tag].returncode == 0, runs[tag].stderr
    # the tables end with "result: <the folder>/<case>.json": the folders differ by name only
    assert runs["workers"].stdout.replace(str(tmp_path / "workers"), "OUT") == \
        runs["one"].stdout.replace(str(tmp_path / "one"), "OUT")
    for folder in ("", "-csv"):
        names = sorted(p.name for p in (tmp_path / f"one{folder}").iterdir())
        assert names == sorted(p.name for p in (tmp_path / f"workers{folder}").iterdir())
        for name in names:
            assert (tmp_path / f"workers{folder}" / name).read_bytes() == \
                (tmp_path / f"one{folder}" / name).read_bytes(), name


def test_a_gpu_run_on_a_worker_prints_both_streams_as_one_process(tmp_path):
    one = gpuia_cli("run", TRIANGLE, "--backend", "gpu", "--explain")
    worker = gpuia_cli("run", TRIANGLE, "--backend", "gpu", "--explain", "--workers", "1")
    assert one.returncode == worker.returncode == 0
    assert worker.stdout == one.stdout and worker.stderr == one.stderr
    assert json.loads(worker.stdout)["backend"] == "gpu"
    assert "triangle_two_slots: draw 0: path: " in worker.stderr


def _heavy_triangle(tmp_path) -> str:
    """The triangle with 8 MiB more bytes in slot 1 (a valid case): a worker surely takes more
    than a millisecond to read it (16 Mi hex digits), however fast the machine, where the
    triangle alone may be validated within one."""
    case = json.loads(TRIANGLE.read_text())
    case["vertex_buffers"][1]["data"]["hex"] += "00" * (8 << 20)
    path = tmp_path / "heavy_triangle.json"
    path.write_text(json.dumps(case))
    return str(path)


def test_a_case_past_the_timeout_twice_is_an_error_line(tmp_path):
    proc = gpuia_cli("validate", _heavy_triangle(tmp_path), "--workers", "1", "--timeout",
                     "0.001")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "error: heavy_triangle: timeout: no answer within 0.001 s (the child was killed); "
        "run again alone in a new worker: no answer within 0.001 s (the child was killed)"]


def test_what_workers_refuse_is_one_line():
    for command in ("run", "validate"):
        proc = gpuia_cli(command, "-", "--workers", "2", stdin="{}")
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.splitlines() == [
            f"error: {command}: --workers reads case files; standard input ('-') is read by "
            f"one process: {command} it without --workers"]
        proc = gpuia_cli(command, TRIANGLE, "--timeout", "3")
        assert proc.returncode == 2 and proc.stderr.splitlines() == [
            f"error: {command}: --timeout S times the cases of --workers N processes: give "
            f"--workers too"]
