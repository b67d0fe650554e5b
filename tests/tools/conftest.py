"""The runs of every example case that tests of several modules compare against, each made once
per pytest run (tests/example_runs.py: one worker makes it, the others read it)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from example_runs import load_cli, made_once, save_cli
from helpers import EXAMPLES, TRIANGLE


@pytest.fixture(scope="session")
def examples_check(tmp_path_factory, gpu_device) -> SimpleNamespace:
    """``gpuia check`` of every example case in one process on the default adapter, with
    ``--html``: ``proc`` (the finished process) and ``html`` (the report's path)."""
    def make(folder):
        save_cli(folder, "check", "check", *EXAMPLES, "--html", folder / "report.html")

    folder = made_once(tmp_path_factory, "examples_check", make)
    return SimpleNamespace(proc=load_cli(folder, "check"), html=folder / "report.html")


@pytest.fixture(scope="session")
def examples_run(tmp_path_factory, gpu_device) -> dict[str, SimpleNamespace]:
    """Every example case run once on each backend with ``gpuia run --out-dir`` (one process
    per backend): ``{backend: proc (the finished process), dir (its --out-dir)}``."""
    def make(folder):
        for backend in ("cpu", "gpu"):
            (folder / backend).mkdir()
            save_cli(folder, backend, "run", "--backend", backend, "--out-dir", folder / backend,
                     *EXAMPLES)

    folder = made_once(tmp_path_factory, "examples_run", make)
    return {b: SimpleNamespace(proc=load_cli(folder, b), dir=folder / b) for b in ("cpu", "gpu")}


def _refused_cases(folder) -> tuple:
    """An unreadable case (``input_layout`` not a list) and a case refused by rules 3.2 (an
    offset not a multiple of 4), written into ``folder``."""
    broken = folder / "broken.json"
    broken.write_text('{"gpuia_case": 1, "input_layout": 7}')
    bad = json.loads(TRIANGLE.read_text())
    bad["name"] = "bad_offset"
    bad["input_layout"][1]["AlignedByteOffset"] = 2  # rules 3.2
    (folder / "bad_offset.json").write_text(json.dumps(bad))
    return broken, folder / "bad_offset.json"


def _reports(folder, tag: str) -> list:
    """Every report ``gpuia check`` writes, named ``tag`` in ``folder``."""
    return ["--json", folder / f"{tag}.json", "--junit", folder / f"{tag}.xml", "--html",
            folder / f"{tag}.html", "--csv", folder / f"{tag}-csv"]


@pytest.fixture(scope="session")
def examples_one_at_a_time(tmp_path_factory, gpu_device) -> SimpleNamespace:
    """What ``--jobs N``, ``--workers N`` and merged ``--shard`` reports are compared against:
    ``cases``, the example cases of :data:`EXAMPLES` with the unreadable ``broken``
    between the fourth and the fifth and ``bad_offset`` (rules 3.2) last, checked in one
    process one case at a time (``--jobs 1``) with every report (:func:`_reports`, tag ``one``,
    in ``folder``); ``proc``, the finished process."""
    def make(folder):
        broken, bad = _refused_cases(folder)
        cases = [*EXAMPLES[:4], broken, *EXAMPLES[4:], bad]
        (folder / "cases.json").write_text(json.dumps([str(c) for c in cases]))
        save_cli(folder, "one", "check", "--jobs", "1", *cases, *_reports(folder, "one"))

    folder = made_once(tmp_path_factory, "examples_one_at_a_time", make)
    return SimpleNamespace(cases=json.loads((folder / "cases.json").read_text()),
                           proc=load_cli(folder, "one"), folder=folder)
