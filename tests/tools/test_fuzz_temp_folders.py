"""The fuzzer's children leave no temporary folder behind (docs/scale-out.md): each
invalid-mode case file is written into a folder of its own inside the pool's work folder, and
the pool removes that folder when it stops, with whatever a killed child left in it."""

from __future__ import annotations

import os

from gpuia.fuzz.pool import Pool
from helpers import gpuia_cli


def test_an_invalid_fuzz_run_leaves_no_temporary_folder(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = gpuia_cli("fuzz", "--invalid", "--cases", "6", "--seed", "11", "--jobs", "2",
                     "--out", tmp_path / "out", env=env)
    assert proc.returncode in (0, 1), proc.stderr
    assert "6 cases" in proc.stdout, proc.stdout
    assert sorted(p.name for p in tmp.iterdir()) == []


def test_closing_a_pool_removes_what_its_children_left(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    pool = Pool({"mode": "valid"}, jobs=1, command=["true"])
    left = os.path.join(pool.workdir, "gpuia-fuzz-x")
    os.makedirs(left)  # as a child killed mid-case leaves its case folder
    open(os.path.join(left, "fuzzcase.json"), "w").close()
    assert os.path.dirname(pool.workdir) == str(tmp_path)
    pool.close()
    assert list(tmp_path.iterdir()) == []
