"""A worker child process that a signal, a timeout or a limit ends at once: native code that can
run without end (a compiler reading a FIFO, a macro that expands without end) runs there, never
in the caller's process, where a signal handler cannot run until the native call returns.

Guaranteed, on the parent's side (:class:`Child`): the worker is started on the first request
and serves every later one (one process, not one per request); each request waits at most its
timeout, in ``select``; SIGINT and SIGTERM kill the worker at once and raise
:class:`~gpuia.util.interrupt.Interrupted` there, on whichever thread waits
(:func:`gpuia.util.interrupt.stopped_on_signal`); a timeout, a signal or any other exception
while waiting kills the worker (the next request starts a new one) and is raised on; a worker
that dies is reported with the reason its exit status and the end of its standard error give
(:class:`ChildFailed`). On the worker's side: :func:`serve` leaves SIGINT to the parent and
ends when the parent is gone (:func:`gpuia.util.interrupt.exit_with_parent`), keeps the protocol
off standard output and input (stray prints of native code go to standard error, stray reads
find the end of ``/dev/null``), and
:func:`limit_memory` / :func:`limit_cpu` cap its address space (``RLIMIT_AS``) and each
request's processor time (``RLIMIT_CPU``; SIGXCPU ends it) and turn core dumps off.

The protocol is length-prefixed JSON on the worker's standard input and output: one request,
one reply (the framing of :mod:`gpuia.hlsl.worker`).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

from ..errors import GpuiaError, UnsupportedError
from .interrupt import exit_with_parent, stopped_on_signal, worker_env

try:
    import resource
except ImportError:  # not a POSIX system: no limits to set
    resource = None  # type: ignore[assignment]

__all__ = ["Child", "ChildFailed", "ChildTimeout", "send_message", "receive_message", "setting",
           "serve", "mapped_bytes", "limit_memory", "limit_cpu", "OUT_OF_MEMORY"]

_HEADER = struct.Struct("<I")
_STDERR_TAIL = 4096  # bytes of the worker's standard error kept for the reason of its death
OUT_OF_MEMORY = ("out of memory", "MemoryError", "bad_alloc", "Cannot allocate memory")
"""What a process that ran into its address-space cap says on standard error: LLVM's handler,
Python's exception, C++'s exception, the system's message."""


class ChildFailed(GpuiaError):
    """The worker ended without replying. ``status`` says how it ended (``killed by SIGSEGV``,
    ``exit status 1``); ``reason`` adds the last line of its standard error (``killed by
    SIGXCPU: ...``, an out-of-memory message...); ``signal`` is the signal number that ended it,
    or None; ``memory`` is true when its standard error says it ran out of memory."""

    def __init__(self, reason: str, signum: int | None, memory: bool, status: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.status = status or reason
        self.signal = signum
        self.memory = memory


class ChildTimeout(GpuiaError):
    """The worker did not reply in time (it has been killed)."""


def send_message(stream, message: dict) -> None:
    """Write one length-prefixed JSON message.

    Arguments:
        stream: a binary stream.
        message: a JSON-able dict.
    """
    data = json.dumps(message).encode("utf-8")
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def receive_message(stream) -> dict | None:
    """Read one length-prefixed JSON message.

    Arguments:
        stream: a binary stream.

    Returns:
        The message, or None at the end of the stream (the other side is gone).
    """
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    (n,) = _HEADER.unpack(head)
    data = stream.read(n)
    return json.loads(data) if len(data) == n else None


def mapped_bytes() -> int:
    """The most address space this process has had mapped so far (``VmPeak``; 0 where the
    system does not say)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def limit_memory(cap: int) -> int:
    """In the worker: cap the address space at ``cap`` bytes (the soft limit, so a later call
    can move it; never above a hard cap the process already has), and turn core dumps off.

    Arguments:
        cap: the bytes of address space allowed (a start-up size from :func:`mapped_bytes`
            plus what a request may use).

    Returns:
        The cap set, in bytes.
    """
    if resource is None:
        return cap
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    return cap


def limit_cpu(seconds: float) -> None:
    """In the worker: allow the coming request ``seconds`` of processor time; past them the
    system ends the process with SIGXCPU.

    Arguments:
        seconds: the request's processor time.
    """
    if resource is None:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(used + seconds) + 1
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def serve(handle: Callable[[dict], dict], setup: Callable[[], None] | None = None) -> int:
    """The worker's main loop: answer each request with ``handle(request)`` until standard
    input closes.

    Arguments:
        handle: request -> reply.
        setup: run once first, after the protocol is set up (load libraries, then cap memory).

    Returns:
        The exit status, 0.
    """
    exit_with_parent()  # a request in progress must not outlive a killed parent
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints (Python or native) go to standard error, not the protocol
    # Stray reads of standard input (a compiler given the file name "-", an include of
    # /dev/stdin) find its end at once instead of blocking on, or eating, the next request.
    inp = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    if setup is not None:
        setup()
    while True:
        request = receive_message(inp)
        if request is None:
            return 0
        send_message(out, handle(request))


def setting(name: str, default: float, most: float) -> float:
    """The number the environment variable ``name`` holds (a worker's time or memory limit),
    ``default`` when it is unset or empty. Raises :class:`~gpuia.errors.UnsupportedError`,
    naming the variable, for anything but a number in (0, ``most``] (text, NaN, infinity, a
    value no limit can take)."""
    text = os.environ.get(name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= most:
        raise UnsupportedError(f"{name}={text}: must be a positive number, at most {most:g}")
    return value


def _describe_signal(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class Child:
    """The parent's side of one worker (see the module docstring).

    Arguments:
        module: the worker's module, run as ``python -m module``.
    """

    def __init__(self, module: str):
        self.module = module
        self.proc: subprocess.Popen | None = None
        self._stderr: IO[bytes] | None = None  # the worker's standard error, kept for its end
        self._lock = threading.Lock()  # one request at a time

    def start(self) -> None:
        """Start the worker now, without waiting for it, so that its start-up overlaps the
        caller's work (a no-op when it runs)."""
        with self._lock:
            if self.proc is None or self.proc.poll() is not None:
                self._start()

    def _start(self) -> subprocess.Popen:
        self.stop()  # the remains of one that ended
        # The worker imports the same gpuia as this process, whatever the folder it runs in:
        # -P keeps the working folder off its path, and the folder this gpuia lies in is put
        # first only when this process found it through its own first entry (the working
        # folder of `python -m gpuia`), which the worker does not have.
        root = Path(__file__).resolve().parents[2]  # the folder holding gpuia/
        env = worker_env()
        if root not in {Path(p).resolve() for p in sys.path[1:] if p}:
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (str(root), env.get("PYTHONPATH")) if p)
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", self.module],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, env=env)
        return self.proc

    def stop(self) -> None:
        """Kill the worker now (a no-op when none runs)."""
        proc, self.proc = self.proc, None
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.kill()
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def request(self, message: dict, timeout: float) -> dict:
        """Send one request and wait for its reply.

        Arguments:
            message: the request.
            timeout: seconds to wait for the reply.

        Returns:
            The reply.

        Raises:
            ChildTimeout: no reply in ``timeout`` seconds (the worker is killed).
            ChildFailed: the worker died without replying.
        """
        with self._lock:
            return self._request(message, timeout)

    def _request(self, message: dict, timeout: float) -> dict:
        proc = self.proc if self.proc is not None and self.proc.poll() is None else \
            self._start()
        assert proc.stdin is not None and proc.stdout is not None  # both are pipes
        try:
            # SIGINT/SIGTERM kill the worker at once whichever thread waits here (only the main
            # thread's select is interrupted), and raise Interrupted.
            with stopped_on_signal(proc.pid):
                with contextlib.suppress(BrokenPipeError, OSError):
                    send_message(proc.stdin, message)  # a dead worker is found below
                ready, _, _ = select.select([proc.stdout], [], [], timeout)
                if not ready:
                    raise ChildTimeout(f"no reply in {timeout:g} s")
                reply = receive_message(proc.stdout)
        except BaseException:
            self.stop()  # a timeout, SIGINT/SIGTERM or anything else: the worker goes now
            raise
        if reply is None:
            raise self._failed(proc)
        return reply

    def _failed(self, proc: subprocess.Popen) -> ChildFailed:
        """The ChildFailed of a worker that closed its output (it is reaped here)."""
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        tail = ""
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.seek(0, os.SEEK_END)
                size = self._stderr.tell()
                self._stderr.seek(max(0, size - _STDERR_TAIL))
                tail = self._stderr.read().decode("utf-8", "replace")
        self.stop()
        memory = any(words in tail for words in OUT_OF_MEMORY)
        signum = -code if code is not None and code < 0 else None
        if signum is not None:
            how = f"killed by {_describe_signal(signum)}"
        else:
            how = "no exit status" if code is None else f"exit status {code}"
        said = [line.strip() for line in tail.splitlines() if line.strip()]
        # its last word (a fatal error, an exception)
        reason = f"{how}: {said[-1]}" if said else how
        return ChildFailed(reason, signum, memory, how)
