"""The processes a command starts end with it: a SIGKILL of ``gpuia check`` leaves no CPU runner,
no C++ build and no shared-memory file of the runner behind, and SIGTERM and SIGINT end ``gpuia
check --jobs`` at once, its runners with it (docs/case-format.md, "Command line"). The fuzzer's
children: tests/tools/test_fuzz.py.

The slow case is an HLSL vertex shader looping a number of times its constant buffer gives
(2^32 - 1 per vertex: about as many seconds on the CPU as the runner's 60-second limit allows), so
its CPU reference is still running whenever the signal comes. Every wait has a bound, and every
process a test starts is killed at its end, whatever happened.
"""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import (
    REPO,
    alive,
    descendants,
    kill_all,
    process_name,
    valid_case,
    wait_for,
    write_case,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

SLOW_VS = """
cbuffer K : register(b0) { uint Count; };
struct O { float4 pos : SV_Position; float v : TEXCOORD0; };
O main(float2 p : POSITION) {
    float acc = p.x;
    for (uint i = 0; i < Count; i++) { acc = acc * 1.0000001f + 1.0f; }
    O o; o.pos = float4(p, 0, 1); o.v = acc; return o;
}
"""


def _slow_case(folder: Path, stem: str, salt: str = "") -> Path:
    """A case whose CPU reference runs for about a minute (``salt``: a comment that makes the
    shader, and so its C++ build, new)."""
    return write_case(folder, stem, valid_case(
        vertex_shader={"hlsl": SLOW_VS + f"// {salt}\n"},
        constant_buffers=[{"slot": 0, "data": {"hex": struct.pack("<I", 0xFFFFFFFF).hex()}}],
        stream_output={"declaration": [{"SemanticName": "TEXCOORD", "ComponentCount": 1}],
                       "targets": [{"slot": 0, "size": 16}]}))


# -- processes, read from /proc ----------------------------------------------------------------
def _runners(pid: int) -> set[int]:
    """The CPU runners under ``pid``: a program named by a cache key (32 hex digits) given the
    size of its shared file."""
    out = set()
    for q in descendants(pid):
        try:
            argv = Path(f"/proc/{q}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        name = os.path.basename(argv[0]).decode(errors="replace")
        if len(name) == 32 and all(c in "0123456789abcdef" for c in name) and argv[1].isdigit():
            out.add(q)
    return out


def _start(*args, env=None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "gpuia", *map(str, args)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)


# -- SIGKILL ----------------------------------------------------------------------------------
def test_sigkill_during_the_cpu_run_leaves_no_runner_and_no_shared_file(gpu_device, tmp_path):
    """The runner dies with gpuia (PR_SET_PDEATHSIG) and its shared file has no name that could
    outlive both (before: /dev/shm/gpuia-cpu-XXXX stayed for ever)."""
    case = _slow_case(tmp_path, "slow")
    proc = _start("check", case)
    seen: set[int] = set()
    try:
        assert wait_for(lambda: bool(_runners(proc.pid)), 180), proc.stderr
        seen = descendants(proc.pid)
        runners = _runners(proc.pid)
        # the runner's standard input is the shared file: its path (a memfd's is no path)
        shared = {os.readlink(f"/proc/{q}/fd/0") for q in runners}
        proc.kill()
        proc.wait(timeout=30)
        assert wait_for(lambda: not any(alive(q) for q in runners), 2), runners
        # Slang's worker polls for its parent every second (gpuia.util.interrupt)
        assert wait_for(lambda: not any(alive(q) for q in seen), 5), \
            {q: process_name(q) for q in seen if alive(q)}
        assert not any(os.path.exists(path) for path in shared), shared
    finally:
        kill_all(proc, seen)


def test_sigkill_during_the_cpu_build_leaves_no_compiler(gpu_device, tmp_path):
    """A build of its own (a new cache folder): the C++ compiler's driver dies with gpuia at
    once, and the compiler it started (which nothing kills: it is the driver's child) ends with
    the step it was running, within seconds."""
    case = _slow_case(tmp_path, "slow", salt="build")
    # TMPDIR: the compiler step that ends alone leaves its temporary file there
    env = dict(os.environ, GPUIA_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp_path))
    proc = _start("check", case, env=env)
    seen: set[int] = set()
    try:
        def building():
            return any(process_name(q) in ("g++", "c++", "cc1plus") for q in descendants(proc.pid))

        assert wait_for(building, 180, 0.01), proc.stderr
        seen = descendants(proc.pid)
        proc.kill()
        proc.wait(timeout=30)
        assert wait_for(lambda: not any(alive(q) for q in seen), 10), \
            {q: process_name(q) for q in seen if alive(q)}
    finally:
        kill_all(proc, seen)


# -- SIGTERM and SIGINT -----------------------------------------------------------------------
@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_every_lane_and_its_runner_at_once(gpu_device, tmp_path, sig, status):
    """`check --jobs 2` on two slow cases, both runners running: the signal ends the command
    within seconds with one line and 128 + the signal, and every process it started is gone
    (before: SIGTERM waited for both runners to finish, 33 s here)."""
    cases = [_slow_case(tmp_path, f"slow{i}") for i in range(2)]
    proc = _start("check", "--jobs", "2", *cases)
    seen: set[int] = set()
    try:
        assert wait_for(lambda: len(_runners(proc.pid)) == 2, 180), proc.stderr
        seen = descendants(proc.pid)
        start = time.monotonic()
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=60)
        took = time.monotonic() - start
        assert proc.returncode == status, stderr
        assert stderr.splitlines() == [f"gpuia: interrupted by {signal.Signals(sig).name}"]
        assert took < 5, took
        assert wait_for(lambda: not any(alive(q) for q in seen), 5), \
            {q: process_name(q) for q in seen if alive(q)}
    finally:
        kill_all(proc, seen)
