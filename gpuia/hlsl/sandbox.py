"""Where the CPU reference starts processes: the C++ build and the runner, each contained.

The CPU reference builds the C++ that Slang emits for the user's shader with the host's C++
compiler and runs the result (``gpuia.hlsl.cpu``). What may be in that code is limited before
anything is built (``gpuia.hlsl.escapes``); this module limits what the processes can do if
something slipped through anyway. :func:`run` is the only way ``gpuia.hlsl.cpu`` starts one.

Guaranteed for every process :func:`run` starts (Linux; elsewhere only what the platform has):

* no shell (an argument list), no file descriptor of gpuia's but the three standard ones
  (``close_fds``): standard input is ``/dev/null`` or the one file given, standard output goes
  to ``/dev/null``, standard error to a pipe gpuia reads (or ``/dev/null``);
* a session of its own, ended as a whole (the compiler's own children included) on a timeout
  or at once when gpuia is interrupted (SIGINT, SIGTERM), whichever thread waits for it
  (:func:`gpuia.util.interrupt.stopped_on_signal`);
* ``PR_SET_PDEATHSIG``: SIGKILL when gpuia dies, even by SIGKILL (a process whose parent
  died before the setting is in place ends itself);
* resource limits (:class:`Limits`): CPU seconds, address space, the size of any file it
  writes, open files, no core file. RLIMIT_NPROC is not set: it counts every process and
  thread of the user, not of this process, so any value either stops the runner's threads on
  a busy machine or limits nothing; the runner's own seccomp filter allows only threads;
* with ``isolate``, new user and network namespaces where the kernel lets an unprivileged
  process make them (no network; skipped silently where it does not).

The runner (``runner.cpp``) adds a seccomp filter of its own before any code of the shader
runs: docs/hlsl.md, "What the CPU reference runs and how it is contained".

A process is contained either by a step of gpuia's between fork and exec, or, given
``launcher``, by gpuia's launcher (``gpuia.hlsl.launcher``), which sets the same things in the
same order and then runs the program in its own place; Python then starts it with ``vfork``
(no copy of gpuia's memory, tens of milliseconds less per start). Both give every guarantee
above.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import sys
from dataclasses import dataclass

from ..util import interrupt

try:
    import resource
except ImportError:  # not a POSIX system: no limits to set
    resource = None  # type: ignore[assignment]

__all__ = ["Limits", "run", "FORBIDDEN_SYSCALL"]

FORBIDDEN_SYSCALL = signal.SIGSYS
"""The signal the runner's seccomp filter ends it with."""

_PR_SET_PDEATHSIG = 1
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000


def _libc_function(name: str):
    """A function of the C library, bound in the parent (the child must not load anything)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        # dlopen(NULL): the process's own symbols, the C library's among them; find_library
        # would run `ldconfig -p` twice at every command's start, before its signal handlers
        fn = getattr(ctypes.CDLL(None, use_errno=True), name)
    except (OSError, AttributeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_ulong] * (5 if name == "prctl" else 1)
    return fn


_PRCTL = _libc_function("prctl")
_UNSHARE = _libc_function("unshare")


@dataclass(frozen=True)
class Limits:
    """Resource limits of one process (None: the current limit stays)."""

    cpu_seconds: int  # RLIMIT_CPU, summed over threads: SIGXCPU, then SIGKILL 5 s later
    address_space: int | None  # RLIMIT_AS, bytes
    file_size: int  # RLIMIT_FSIZE: the largest file it may write (SIGXFSZ beyond)
    open_files: int | None = None  # RLIMIT_NOFILE
    isolate: bool = False  # new user and network namespaces, where permitted

    def settings(self) -> list[tuple[int, int, int]]:
        """(resource, soft, hard) to set, clamped to the hard limits this process has (a limit
        can only be lowered)."""
        if resource is None:
            return []
        wanted = [(resource.RLIMIT_CORE, 0, 0),
                  (resource.RLIMIT_CPU, self.cpu_seconds, self.cpu_seconds + 5),
                  (resource.RLIMIT_FSIZE, self.file_size, self.file_size)]
        if self.address_space is not None:
            wanted.append((resource.RLIMIT_AS, self.address_space, self.address_space))
        if self.open_files is not None:
            wanted.append((resource.RLIMIT_NOFILE, self.open_files, self.open_files))
        out = []
        for res, soft, hard in wanted:
            _, current = resource.getrlimit(res)
            if current != resource.RLIM_INFINITY:
                hard = min(hard, current)
                soft = min(soft, hard)
            out.append((res, soft, hard))
        return out


def _contain(settings: list[tuple[int, int, int]], isolate: bool, parent: int) -> None:
    """In the child, between fork and exec: only calls bound beforehand (no import, no lock
    another thread of gpuia's could hold)."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # gpuia died before the setting: nothing would end this
            os._exit(1)
    for res, soft, hard in settings:
        try:
            resource.setrlimit(res, (soft, hard))
        except (OSError, ValueError):  # a limit this system does not take (RLIMIT_AS on macOS)
            pass
    if isolate and _UNSHARE is not None:
        _UNSHARE(_CLONE_NEWUSER | _CLONE_NEWNET)  # best effort: refused in many containers


def _end(proc: subprocess.Popen) -> None:
    """Kill the process's whole session (a compiler's children too) and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    proc.communicate()


def _wait_exit(proc: subprocess.Popen, timeout: float) -> None:
    """Wait until ``proc`` ends, at most ``timeout`` seconds (then TimeoutExpired), on its
    pidfd: Popen's own wait for a process without pipes polls with sleeps of up to 50 ms, a
    third of a short run of the CPU reference. Where there is no pidfd (not Linux 5.3+), the
    caller's ``communicate`` waits instead."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    finally:
        os.close(fd)
    if not ready:
        raise subprocess.TimeoutExpired(proc.args, timeout)


def _start(argv: list[str], limits: Limits, stdin: int | None, keep_stderr: bool,
           launcher: str | None) -> subprocess.Popen:
    """Start ``argv`` contained: through ``launcher`` (gpuia's launcher, ``shaders/launcher.cpp``,
    which sets the same containment and then runs ``argv``) when given, else forked with the
    containment set in the child (:func:`_contain`)."""
    settings = limits.settings()
    parent = os.getpid()
    streams = dict(stdin=subprocess.DEVNULL if stdin is None else stdin,
                   stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE if keep_stderr else subprocess.DEVNULL,
                   close_fds=True, start_new_session=True)
    if launcher is None:
        return subprocess.Popen(argv, **streams,  # type: ignore[call-overload]
                                preexec_fn=lambda: _contain(settings, limits.isolate, parent))
    # No preexec_fn: Python starts the launcher with vfork, not a fork of all of gpuia's memory.
    # The pipe's write end reaches only the launcher (closed when it runs argv), which writes
    # the errno there when argv cannot be run.
    read_end, write_end = os.pipe()
    try:
        head = [launcher, str(write_end), str(parent), str(int(limits.isolate)),
                str(len(settings))]
        head += [str(v) for setting in settings for v in setting]
        proc = subprocess.Popen(head + list(argv), **streams,  # type: ignore[call-overload]
                                pass_fds=(write_end,))
        os.close(write_end)
        write_end = -1
        with os.fdopen(read_end, "rb") as errors:
            read_end = -1
            try:  # until the launcher runs argv (the pipe closes) or ends
                failed = errors.read(4)
            except BaseException:  # gpuia interrupted meanwhile: nothing is left running
                _end(proc)
                raise
    finally:
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)
    if failed:  # the launcher ended (127) without running argv: reap it, raise as Popen would
        proc.communicate()
        code = int.from_bytes(failed.ljust(4, b"\0"), sys.byteorder)
        raise OSError(code, os.strerror(code), argv[0])
    return proc


def run(argv: list[str], limits: Limits, timeout: float, stdin: int | None = None,
        keep_stderr: bool = True, launcher: str | None = None) -> subprocess.CompletedProcess:
    """Run ``argv`` contained as the module docstring says, ``stdin`` (a file descriptor) as
    its standard input, and wait for it. Returns its exit status and standard error (bytes;
    empty unless ``keep_stderr``). Raises :class:`subprocess.TimeoutExpired` after ``timeout``
    seconds (the process is gone by then), :class:`gpuia.util.interrupt.Interrupted` when gpuia
    was interrupted meanwhile (likewise), and OSError when ``argv[0]`` cannot be run.

    ``launcher``, the path of gpuia's built launcher (``gpuia.hlsl.launcher``), starts the
    process without forking gpuia (a fork of a large process costs tens of milliseconds); the
    containment, the results and the errors are the same with it and without."""
    proc = _start(argv, limits, stdin, keep_stderr, launcher)
    # SIGINT/SIGTERM kill the session at once, whichever thread waits here (a lane of
    # `gpuia check --jobs`), and raise Interrupted there.
    with interrupt.stopped_on_signal(proc.pid, group=True):
        try:
            if not keep_stderr:  # no pipe to wait on: wake when it ends, not on a poll
                _wait_exit(proc, timeout)
            _, err = proc.communicate(timeout=timeout)
        except BaseException:  # the timeout, or gpuia interrupted: nothing is left running
            _end(proc)
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, b"", err or b"")
