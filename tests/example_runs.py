"""Runs of every example case that several tests look at, made once per pytest run.

A ``gpuia check`` of all of examples/cases takes 10-30 s on lavapipe, and the tests that compare
another way of running them (``--jobs``, ``--workers``, the HTML report, ``run --out-dir``)
each made their own one-process run to compare against. :func:`made_once` makes a folder's
contents once for the whole pytest run: under pytest-xdist the first worker that asks makes
it while a lock holds the others, which then read what it wrote (the folder lives in the
run's shared temporary directory, so a later pytest run never sees it). A command's exit
status and output are kept with :func:`save_cli` and read back with :func:`load_cli`, so
every test still asserts on them itself, in whichever worker it runs.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from helpers import gpuia_cli


def _run_root(tmp_path_factory) -> Path:
    """The temporary directory of the whole pytest run: under pytest-xdist a worker's base
    directory is ``.../pytest-N/popen-gwK``, shared by none, so its parent."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(tmp_path_factory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name``, filled by ``make(folder)`` once in this pytest run whatever the
    number of worker processes asking. A ``make`` that raised leaves no finished folder: the
    next one to ask makes it again (and fails the same way, in its own test)."""
    root = _run_root(tmp_path_factory)
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed make left
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


def save_cli(folder: Path, tag: str, *args) -> None:
    """``gpuia ARGS`` (:func:`helpers.gpuia_cli`), its exit status and output kept as
    ``folder/tag.proc.json``."""
    proc = gpuia_cli(*args)
    (folder / f"{tag}.proc.json").write_text(json.dumps(
        {"args": [str(a) for a in proc.args], "returncode": proc.returncode,
         "stdout": proc.stdout, "stderr": proc.stderr}))


def load_cli(folder: Path, tag: str) -> subprocess.CompletedProcess:
    """What :func:`save_cli` kept, as the process it ran."""
    doc = json.loads((folder / f"{tag}.proc.json").read_text())
    return subprocess.CompletedProcess(doc["args"], doc["returncode"], doc["stdout"],
                                       doc["stderr"])
