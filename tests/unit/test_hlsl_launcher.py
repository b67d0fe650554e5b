"""gpuia's launcher (gpuia.hlsl.launcher, shaders/launcher.cpp) starts a process exactly as
contained as gpuia.hlsl.sandbox's own fork does: the limits it is given, stopped when it goes
past them, a session of its own that a timeout ends as a whole, no descriptor of gpuia's, death
with gpuia, a network of its own where permitted, and the same OSError when the program cannot
be run. Only a launcher whose file has the hash recorded when it was built is run.

Expected values are the rules of :class:`~gpuia.hlsl.sandbox.Limits` and docs/hlsl.md ("What
the CPU reference runs and how it is contained"), the kernel's signals for each limit
(SIGXCPU, SIGXFSZ), and, for a program that cannot be run, what Python's subprocess raises
when gpuia starts it without the launcher.
"""

from __future__ import annotations

import ast
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import gpuia.hlsl.cpu as hcpu
import gpuia.hlsl.launcher as hlauncher
from gpuia.errors import UnsupportedError
from gpuia.hlsl import sandbox

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the launcher's limits, /proc and namespaces are Linux's")

LIMITS = sandbox.Limits(cpu_seconds=30, address_space=3 << 30, file_size=1 << 20,
                        open_files=32)
BUILD = sandbox.Limits(cpu_seconds=600, address_space=16 << 30, file_size=1 << 30)


@pytest.fixture(scope="module")
def launcher(tmp_path_factory) -> str:
    try:
        cxx = hcpu.compiler()
    except UnsupportedError:
        pytest.skip("no C++ compiler")
    built = hlauncher.launcher(cxx, tmp_path_factory.mktemp("launcher"), BUILD, 600)
    assert built is not None
    return built


def _python(launcher: str, script: str, limits: sandbox.Limits = LIMITS, **kw):
    return sandbox.run([sys.executable, "-c", textwrap.dedent(script)], limits, 60,
                       launcher=launcher, **kw)


def test_the_limits_are_set(launcher):
    """(soft, hard) per limit, as the sandbox's own start sets them (test_hlsl_sandbox)."""
    script = ("import resource as r, sys; sys.stderr.write(repr([r.getrlimit(k) for k in "
              "(r.RLIMIT_CORE, r.RLIMIT_CPU, r.RLIMIT_FSIZE, r.RLIMIT_AS, r.RLIMIT_NOFILE)]))")
    done = _python(launcher, script)
    assert done.returncode == 0, done.stderr

    def capped(value, res):
        hard = resource.getrlimit(res)[1]
        return value if hard == resource.RLIM_INFINITY else min(value, hard)

    assert ast.literal_eval(done.stderr.decode()) == [
        (0, 0), (capped(30, resource.RLIMIT_CPU), capped(35, resource.RLIMIT_CPU)),
        (capped(1 << 20, resource.RLIMIT_FSIZE),) * 2, (capped(3 << 30, resource.RLIMIT_AS),) * 2,
        (capped(32, resource.RLIMIT_NOFILE),) * 2]


def test_cpu_time_past_the_limit_ends_the_process(launcher):
    limits = sandbox.Limits(cpu_seconds=1, address_space=None, file_size=1 << 20)
    done = _python(launcher, "while True: pass", limits)
    assert done.returncode == -signal.SIGXCPU


def test_a_file_past_the_size_limit_ends_the_process(launcher, tmp_path):
    limits = sandbox.Limits(cpu_seconds=30, address_space=None, file_size=4096)
    script = f"""
        import signal
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        with open({str(tmp_path / 'big')!r}, 'wb', buffering=0) as f:
            for _ in range(8):
                f.write(bytes(1024))
        """
    done = _python(launcher, script, limits)
    assert done.returncode == -signal.SIGXFSZ
    assert (tmp_path / "big").stat().st_size == 4096


def test_memory_past_the_address_space_is_refused(launcher):
    limits = sandbox.Limits(cpu_seconds=30, address_space=1 << 30, file_size=1 << 20)
    script = """
        import sys
        try:
            block = bytearray(2 << 30)
        except MemoryError:
            sys.stderr.write("refused")
        """
    done = _python(launcher, script, limits)
    assert (done.returncode, done.stderr) == (0, b"refused")


def test_descriptors_past_the_limit_are_refused(launcher):
    limits = sandbox.Limits(cpu_seconds=30, address_space=None, file_size=1 << 20,
                            open_files=16)
    script = """
        import errno, os, sys
        held = []
        try:
            while True:
                held.append(os.open("/dev/null", os.O_RDONLY))
        except OSError as e:
            sys.stderr.write(f"{errno.errorcode[e.errno]} {max(held)}")
        """
    done = _python(launcher, script, limits)
    assert done.stderr.decode().split() == ["EMFILE", "15"]


def test_only_the_standard_descriptors_reach_the_process(launcher, tmp_path):
    """Nor the launcher's own pipe: 0, 1, 2 and the one the listing opens."""
    given = os.open(tmp_path / "given", os.O_RDWR | os.O_CREAT)
    held = os.open(tmp_path / "held", os.O_RDWR | os.O_CREAT)
    os.set_inheritable(held, True)
    script = """
        import os, sys
        sys.stderr.write(f"{','.join(sorted(os.listdir('/proc/self/fd')))} "
                         f"{os.readlink('/proc/self/fd/0')}")
        """
    try:
        done = _python(launcher, script, stdin=given)
    finally:
        os.close(given)
        os.close(held)
    assert done.stderr.decode().split(" ", 1) == ["0,1,2,3", str(tmp_path / "given")]


def test_the_process_has_a_session_and_group_of_its_own(launcher):
    """The launcher runs the program in its own place (exec): the process gpuia waits for and
    kills is the program, leader of its session and process group."""
    script = "import os, sys; sys.stderr.write(f'{os.getpid()} {os.getsid(0)} {os.getpgid(0)}')"
    done = _python(launcher, script)
    pid, sid, pgid = map(int, done.stderr.split())
    assert pid == sid == pgid and sid != os.getsid(0)


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def _wait_gone(pid: int, seconds: float = 10) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("keep_stderr", [True, False])
def test_a_timeout_ends_the_whole_session(launcher, tmp_path, keep_stderr):
    pidfile = tmp_path / "pid"
    with pytest.raises(subprocess.TimeoutExpired):
        sandbox.run(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; sleep 60"], LIMITS, 2,
                    keep_stderr=keep_stderr, launcher=launcher)
    assert _wait_gone(int(pidfile.read_text()))


@pytest.mark.parametrize("isolate", [False, True], ids=["plain", "isolated"])
def test_a_process_dies_with_gpuia_even_on_sigkill(launcher, tmp_path, isolate):
    pidfile = tmp_path / "pid"
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        from gpuia.hlsl import sandbox
        sandbox.run(["sh", "-c", "echo $$ > {pidfile}; exec sleep 60"],
                    sandbox.Limits(cpu_seconds=60, address_space=None, file_size=1 << 20,
                                   isolate={isolate}), 120, launcher={launcher!r})
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


def test_the_exit_status_is_the_programs(launcher):
    done = sandbox.run(["sh", "-c", "exit 3"], LIMITS, 30, keep_stderr=False, launcher=launcher)
    assert (done.returncode, done.stderr) == (3, b"")
    done = sandbox.run(["sh", "-c", "kill -SEGV $$"], LIMITS, 30, launcher=launcher)
    assert done.returncode == -signal.SIGSEGV


def test_an_isolated_process_has_a_network_of_its_own(launcher):
    isolated = sandbox.Limits(cpu_seconds=30, address_space=None, file_size=1 << 20,
                              isolate=True)
    done = _python(launcher, "import os, sys; sys.stderr.write(os.readlink('/proc/self/ns/net'))",
                   isolated)
    assert done.returncode == 0, done.stderr
    if done.stderr.decode() == os.readlink("/proc/self/ns/net"):
        pytest.skip("this kernel or container refuses new namespaces to this user")


def _not_run(tmp_path: Path) -> dict[str, str]:
    text = tmp_path / "text"  # executable, but no program and no #!: no shell runs it
    text.write_text("echo ran > /dev/null\n")
    text.chmod(0o755)
    closed = tmp_path / "closed"
    closed.write_text("#!/bin/sh\n")
    closed.chmod(0o644)
    return {"missing": str(tmp_path / "missing"), "not_on_path": "gpuia-no-such-program",
            "not_a_program": str(text), "not_executable": str(closed)}


@pytest.mark.parametrize("case", ["missing", "not_on_path", "not_a_program", "not_executable"])
def test_a_program_that_cannot_run_raises_as_without_the_launcher(launcher, tmp_path, case):
    argv = [_not_run(tmp_path)[case]]
    errors = []
    for via in (None, launcher):
        with pytest.raises(OSError) as info:
            sandbox.run(argv, LIMITS, 30, launcher=via)
        errors.append((type(info.value), info.value.errno, info.value.filename, str(info.value)))
    assert errors[0] == errors[1]


def test_a_launcher_whose_file_changed_is_built_again(tmp_path, monkeypatch):
    """Its hash no longer the recorded one: never run, replaced by a new build."""
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(hlauncher, "_KNOWN", {})
    try:
        cxx = hcpu.compiler()
    except UnsupportedError:
        pytest.skip("no C++ compiler")
    folder = hcpu.build_folder()
    first = hlauncher.launcher(cxx, folder, BUILD, 600)
    assert first is not None
    good = Path(first).read_bytes()
    Path(first).write_bytes(b"#!/bin/sh\ntouch " + str(tmp_path / "ran").encode() + b"\n")
    monkeypatch.setattr(hlauncher, "_KNOWN", {})
    again = hlauncher.launcher(cxx, folder, BUILD, 600)
    assert again == first and Path(again).read_bytes() == good
    sandbox.run(["true"], LIMITS, 30, launcher=again)
    assert not (tmp_path / "ran").exists()
