"""gpuia's Slang worker started in the background (gpuia.hlsl.library.start_worker, and
gpuia.cli.common.start_hlsl_worker for the commands): one worker per process, started early
once and then serving every compile, never one per case or per compile.

Each scenario runs in a fresh Python process (a pytest process may already hold a worker from
other tests), which reports its own children from /proc."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gpuia.cli.common import start_hlsl_worker
from helpers import REPO, write_case

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")

_WORKERS = '''
import os
def workers():
    """pids of this process's children running gpuia's Slang worker."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = open(f"/proc/{pid}/stat").read()
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"gpuia.hlsl.worker" in cmd:
            out.append(int(pid))
    return sorted(out)
'''


def _script(body: str) -> dict:
    env = {**os.environ, "GPUIA_CACHE_DIR": "none"}
    proc = subprocess.run([sys.executable, "-c", _WORKERS + body], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_an_early_start_is_the_one_worker_every_compile_uses():
    """Started twice before any compile, then three different shaders compiled: one worker,
    the same process throughout."""
    got = _script('''
import json
from gpuia.hlsl import compile_shader, library
started = [library.start_worker(), library.start_worker()]
before = workers()
for k in (1, 2, 3):
    compile_shader(f"float4 main(float4 p : POSITION) : SV_Position {{ return p * {k}; }}")
print(json.dumps({"started": started, "before": before, "after": workers(),
                  "session": library.session_seconds()}))
''')
    assert got["started"] == [True, True]
    assert len(got["before"]) == 1
    assert got["after"] == got["before"]
    assert got["session"] is not None and got["session"] > 0


def test_a_check_of_several_hlsl_cases_starts_one_worker(tmp_path):
    """The command's early start and its cases' compiles share one worker."""
    got = _script(f'''
import json
from gpuia.cli.common import start_hlsl_worker
from gpuia.harness.case import load_case
paths = [{str(REPO / "examples" / "cases" / "hlsl_skinned_particles.json")!r}] * 2
first = start_hlsl_worker(paths)
before = workers()
for path in paths:
    load_case(path)
again = start_hlsl_worker(paths)
print(json.dumps({{"first": first, "again": again, "before": before, "after": workers()}}))
''')
    assert got["first"] and got["again"]
    assert len(got["before"]) == 1
    assert got["after"] == got["before"]


def test_cases_without_hlsl_start_nothing(tmp_path, monkeypatch):
    """A WGSL case, standard input and a FIFO (never opened for reading beyond a non-blocking
    open: no hang) start no worker."""
    import gpuia.hlsl.library as library

    calls = []
    monkeypatch.setattr(library, "start_worker", lambda: calls.append(1) or True)
    wgsl = write_case(tmp_path, "wgsl", json.loads(
        (REPO / "examples" / "cases" / "triangle_two_slots.json").read_text()))
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    assert start_hlsl_worker([str(wgsl), "-", str(fifo)]) is False
    assert calls == []
    hlsl = write_case(tmp_path, "hlsl", {"vertex_shader": {"hlsl_file": "vs.hlsl"}})
    assert start_hlsl_worker([str(wgsl), str(hlsl)]) is True
    assert calls == [1]
