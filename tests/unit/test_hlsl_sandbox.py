"""The CPU reference's processes are contained even when something reaches the host anyway
(gpuia.hlsl.sandbox, runner.cpp): the runner's seccomp filter ends a shader whose C++ makes a
system call it does not need (before main too: a static initialiser runs after the filter), and
every process gpuia starts for it keeps no descriptor of gpuia's, has its limits, dies with
gpuia and, on a timeout, with its whole session.

Expected values are the rules: what the filter allows is what mapping the shared file, running
threads and exiting need (docs/hlsl.md), so opening a file, starting a program, forking, making
memory executable and signalling another process each end the runner with SIGSYS; the limits
are those :class:`~gpuia.hlsl.sandbox.Limits` is given.
"""

from __future__ import annotations

import ast
import os
import platform
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import gpuia.hlsl.cpu as hcpu
import gpuia.hlsl.escapes as escapes
import gpuia.hlsl.frontend as frontend
from gpuia.errors import InvalidDescError
from gpuia.hlsl import compile_shader, sandbox

LINUX = sys.platform.startswith("linux")
FILTERED = LINUX and platform.machine() in ("x86_64", "aarch64") and \
    "Seccomp:" in Path("/proc/self/status").read_text()

# C++ that a construct gpuia refuses would paste into the CPU build, each reaching for the host.
SLIPPED = {
    "open_a_file": ('__requirePrelude("#include <fcntl.h>"); '
                    '__intrinsic_asm "((float)open(\\"/etc/hostname\\", 0))";'),
    "run_a_program_before_main": ('__requirePrelude("#include <cstdlib>\\nstatic int gpuia_slip '
                                  '= std::system(\\"touch MARKER\\");"); __intrinsic_asm "($0)";'),
    "fork": '__requirePrelude("#include <unistd.h>"); __intrinsic_asm "((float)fork())";',
    "executable_memory": ('__requirePrelude("#include <sys/mman.h>"); __intrinsic_asm '
                          '"((float)(long)mmap(0, 4096, 7, 0x22, -1, 0))";'),
    "signal_another_process": ('__requirePrelude("#include <signal.h>"); '
                               '__intrinsic_asm "((float)kill(1, 0))";'),
}


@pytest.mark.skipif(not FILTERED, reason="the runner's seccomp filter is Linux x86-64/AArch64")
@pytest.mark.parametrize("name", list(SLIPPED))
def test_a_system_call_that_slipped_through_ends_the_runner(name, tmp_path, monkeypatch):
    """gpuia's refusals switched off, as if a construct slipped past them: the runner's filter
    still ends the program, and gpuia says so in one error."""
    monkeypatch.setattr(frontend, "refuse_escapes", lambda *a, **k: None, raising=False)
    monkeypatch.setattr(escapes, "refuse_escapes_in", lambda *a, **k: None, raising=False)
    monkeypatch.setenv("GPUIA_CACHE_DIR", "none")  # nothing unchecked is kept
    marker = tmp_path / "SLIPPED"
    body = SLIPPED[name].replace("MARKER", str(marker))
    src = (f"// slipped: {name}\nfloat probe(float x) {{ __target_switch {{ case cpp: {body} "
           "default: return x; } }\nstruct O { float4 p : SV_Position; float t : TEXCOORD0; };\n"
           "O main(float3 pos : POSITION) { O o; o.p = float4(pos, 1); o.t = probe(pos.x); "
           "return o; }\n")
    shader = hcpu.cpu_shader(compile_shader(src))
    with pytest.raises(InvalidDescError) as info:
        shader.run({"POSITION0": np.zeros((2, 4), np.uint32)}, np.arange(2, dtype=np.uint32),
                   np.zeros(2, np.uint32))
    assert info.value.value == f"signal {int(signal.SIGSYS)}"
    assert "the CPU reference tried a system call gpuia forbids" in info.value.rule
    assert not marker.exists()


LIMITS = sandbox.Limits(cpu_seconds=30, address_space=3 << 30, file_size=1 << 20,
                        open_files=32)
_REPORT = ("import resource as r, sys; sys.stderr.write(repr([r.getrlimit(k) for k in "
           "(r.RLIMIT_CORE, r.RLIMIT_CPU, r.RLIMIT_FSIZE, r.RLIMIT_AS, r.RLIMIT_NOFILE)]))")


@pytest.mark.skipif(not LINUX, reason="resource limits and /proc are Linux's")
def test_the_limits_are_set():
    """(soft, hard) per limit: no core file; CPU seconds, then SIGKILL 5 s later; the rest as
    given (where this process's own hard limit is lower, that one)."""
    done = sandbox.run([sys.executable, "-c", _REPORT], LIMITS, 60)
    assert done.returncode == 0, done.stderr
    got = ast.literal_eval(done.stderr.decode())

    def capped(value, res):
        hard = resource.getrlimit(res)[1]
        return value if hard == resource.RLIM_INFINITY else min(value, hard)

    assert got == [(0, 0), (capped(30, resource.RLIMIT_CPU), capped(35, resource.RLIMIT_CPU)),
                   (capped(1 << 20, resource.RLIMIT_FSIZE),) * 2,
                   (capped(3 << 30, resource.RLIMIT_AS),) * 2,
                   (capped(32, resource.RLIMIT_NOFILE),) * 2]


@pytest.mark.skipif(not LINUX, reason="/proc/self/fd is Linux's")
def test_only_the_standard_descriptors_reach_the_process(tmp_path):
    """A descriptor gpuia holds (even one marked inheritable) is not open in the child; the
    one file given is its standard input; 0, 1 and 2 are all it has (and the one it opens to
    list them)."""
    given = os.open(tmp_path / "given", os.O_RDWR | os.O_CREAT)
    held = os.open(tmp_path / "held", os.O_RDWR | os.O_CREAT)
    os.set_inheritable(held, True)
    script = textwrap.dedent(f"""
        import os, sys
        try:
            os.fstat({held})
            held = "open"
        except OSError:
            held = "closed"
        n = len(os.listdir("/proc/self/fd"))
        sys.stderr.write(f"{{held}} {{n}} {{os.readlink('/proc/self/fd/0')}}")
        """)
    try:
        done = sandbox.run([sys.executable, "-c", script], LIMITS, 60, stdin=given)
    finally:
        os.close(given)
        os.close(held)
    assert done.stderr.decode().split() == ["closed", "4", str(tmp_path / "given")]


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")  # a zombie nobody reaped has ended too


def _wait_gone(pid: int, seconds: float = 10) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not LINUX, reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("isolate", [False, True], ids=["plain", "isolated"])
def test_a_process_dies_with_gpuia_even_on_sigkill(tmp_path, isolate):
    """Also in namespaces of its own, as the runner is (a change of credentials could have
    cleared the setting)."""
    pidfile = tmp_path / "pid"
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        from gpuia.hlsl import sandbox
        sandbox.run(["sh", "-c", "echo $$ > {pidfile}; exec sleep 60"],
                    sandbox.Limits(cpu_seconds=60, address_space=None, file_size=1 << 20,
                                   isolate={isolate}), 120)
        """)])
    try:
        end = time.monotonic() + 60
        while not (pidfile.exists() and pidfile.read_text().strip()):
            assert time.monotonic() < end and parent.poll() is None, "the child never started"
            time.sleep(0.05)
        child = int(pidfile.read_text())
        assert not _gone(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert _wait_gone(child), "the child outlived gpuia"
    finally:
        parent.kill()
        parent.wait()


@pytest.mark.skipif(not LINUX, reason="/proc is Linux's")
def test_a_timeout_ends_the_whole_session(tmp_path):
    """A compiler's own children (here a background sleep) end with it."""
    pidfile = tmp_path / "pid"
    with pytest.raises(subprocess.TimeoutExpired):
        sandbox.run(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; sleep 60"], LIMITS, 2)
    assert _wait_gone(int(pidfile.read_text()))


@pytest.mark.skipif(not LINUX, reason="/proc is Linux's")
def test_a_timeout_without_standard_error_ends_the_whole_session(tmp_path):
    """The runner's wait (no pipe: woken by the process's end) keeps the timeout: the process
    and its children are gone when it is raised."""
    pidfile = tmp_path / "pid"
    with pytest.raises(subprocess.TimeoutExpired):
        sandbox.run(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; sleep 60"], LIMITS, 2,
                    keep_stderr=False)
    assert _wait_gone(int(pidfile.read_text()))


def test_a_run_without_standard_error_gives_its_exit_status():
    """Woken when the process ends, the status is the process's own."""
    done = sandbox.run(["sh", "-c", "exit 3"], LIMITS, 30, keep_stderr=False)
    assert (done.returncode, done.stderr) == (3, b"")
    done = sandbox.run(["sh", "-c", "kill -SEGV $$"], LIMITS, 30, keep_stderr=False)
    assert done.returncode == -signal.SIGSEGV


@pytest.mark.skipif(not LINUX, reason="namespaces are Linux's")
def test_an_isolated_process_has_a_network_of_its_own():
    """Where the kernel lets the process make namespaces (many containers do not: skipped
    there), it is in a network namespace of its own: no interface of the host's."""
    isolated = sandbox.Limits(cpu_seconds=30, address_space=None, file_size=1 << 20,
                              isolate=True)
    script = "import os, sys; sys.stderr.write(os.readlink('/proc/self/ns/net'))"
    done = sandbox.run([sys.executable, "-c", script], isolated, 60)
    assert done.returncode == 0, done.stderr
    if done.stderr.decode() == os.readlink("/proc/self/ns/net"):
        pytest.skip("this kernel or container refuses new namespaces to this user")
