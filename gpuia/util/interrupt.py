"""Ending on SIGINT and SIGTERM the conventional way: one line, exit status 128 + the signal.

Inside :func:`ending_on_signals` (the command line installs it first thing), the first SIGINT or
SIGTERM raises :class:`Interrupted` in the main thread (a signal that lands inside importlib,
where an exception may be dropped with a printed traceback, is delivered to the main thread
again a moment later). It is a :class:`KeyboardInterrupt`, so
every ``finally`` and ``with`` on the way out runs: temporary output files are removed
(:func:`gpuia.util.files.write_atomic`), worker processes are stopped (the fuzzer's pool, Slang's
worker), and code that already ends cleanly on Ctrl-C (the fuzzer prints its summary) does so
on SIGTERM too. A second signal while that clean-up runs exits at once with the same status.
Where Python drops the exception itself (a signal that lands in an object's finalizer or a
weakref callback: "Exception ignored"), :func:`received` still says a signal came, and the
commands' case loops stop between cases on it.

Only the main thread gets the exception: a child process that another thread waits for (the CPU
reference's runner in a lane of ``gpuia check --jobs``) would run on until it ends by itself, and
the command would wait for it. So a child is registered while it is waited for
(:func:`stopped_on_signal`), and the first signal kills every registered child at once, before
anything else runs. Child processes that outlive their parent anyway (a SIGKILL) end themselves:
see :func:`exit_with_parent`.
"""

from __future__ import annotations

import _thread
import contextlib
import itertools
import os
import signal
import sys
import threading
import time

__all__ = ["Interrupted", "ending_on_signals", "received", "exit_status", "describe",
           "stopped_on_signal", "signals_held", "worker_env", "exit_with_parent"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: int | None = None
_installed = False  # inside ending_on_signals: the handlers are this module's


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; ``signum`` says which."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


_deferred = False  # the first signal landed in the import machinery and comes again
_REDELIVER_SECONDS = 0.01
_holding = 0  # inside signals_held: the first signal is raised when the block ends


def _handler(signum, frame):
    global _received, _deferred
    if _received is not None and not _deferred:
        # a second signal: clean-up takes too long for the user
        _kill_children()
        os.write(2, f"gpuia: {signal.Signals(signum).name} again: stopping now\n".encode())
        os._exit(128 + signum)
    _received = signum  # before the kill: a child registered from now on is killed on entry
    _kill_children()
    if frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
        # Landed inside importlib (a module lock's weakref callback, for one), where an
        # exception can be printed as "Exception ignored" and dropped instead of ending the
        # command: the main thread gets the signal again in a moment, past the import.
        _deferred = True
        threading.Timer(_REDELIVER_SECONDS, _thread.interrupt_main, (signum,)).start()
        return
    _deferred = False
    if _holding:
        return  # signals_held raises it when its block ends
    raise Interrupted(signum)


@contextlib.contextmanager
def ending_on_signals():
    """Install the handlers for the block (main thread only; elsewhere a no-op) and restore the
    previous ones after it."""
    global _received, _deferred, _installed
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received, _deferred = None, False
    previous = {s: signal.signal(s, _handler) for s in _SIGNALS}
    _installed = True
    try:
        yield
    finally:
        _installed = False
        for s, h in previous.items():
            signal.signal(s, h)


_children: dict[int, tuple[int, bool]] = {}  # token -> (pid, whole process group)
_tokens = itertools.count()


def _kill_children() -> None:
    """SIGKILL every registered child (each one's process group where asked). Runs in the
    signal handler: a copy of the registry taken at once (a C-level copy, which no other
    thread can interleave with under the GIL), no lock."""
    for pid, group in list(_children.values()):
        with contextlib.suppress(OSError):
            if group:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def stopped_on_signal(pid: int, group: bool = False):
    """While the block waits for child process ``pid``, the first SIGINT or SIGTERM kills it
    (with ``group``, its whole process group: ``pid`` leads a session of its own) at once,
    whichever thread waits. A signal that came before the block kills it on entry. When the
    block ends without an exception after a signal, it raises :class:`Interrupted`, so that a
    thread other than the main one stops too instead of reporting the killed child as the
    cause of an error.

    Arguments:
        pid: the child's process id.
        group: kill its process group rather than the process alone.

    Raises:
        Interrupted: a signal came before or while the block ran.
    """
    token = next(_tokens)
    _children[token] = (pid, group)
    try:
        if _installed and _received is not None:  # the handler ran before this registration
            _kill_children()
        yield
    finally:
        del _children[token]
    if _installed and _received is not None:
        raise Interrupted(_received)


@contextlib.contextmanager
def signals_held():
    """In the main thread, the first SIGINT or SIGTERM during the block does not interrupt it:
    registered children are still killed at once, and :class:`Interrupted` is raised when the
    block ends. For short steps that an exception must not cut in half, such as starting a
    process pool (a child whose start-up data was half written dies with a traceback on the
    user's stderr). Elsewhere than the main thread, or outside :func:`ending_on_signals`, it
    changes nothing.

    Raises:
        Interrupted: a signal came during the block.
    """
    global _holding
    if not _installed or threading.current_thread() is not threading.main_thread():
        yield
        return
    _holding += 1
    try:
        yield
    finally:
        _holding -= 1
    if not _holding and _received is not None:
        raise Interrupted(_received)


def received() -> int | None:
    """The signal that started the ending, or None."""
    return _received


def exit_status(signum: int) -> int:
    """The shell's status for a process ended by ``signum`` (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + signum


def describe(signum: int) -> str:
    """The one line printed when a signal ended the command."""
    return f"gpuia: interrupted by {signal.Signals(signum).name}"


PARENT_PID_VARIABLE = "GPUIA_PARENT_PID"


def worker_env(env: dict | None = None) -> dict:
    """The environment to start a worker with: ``env`` (default this process's) plus this
    process's pid, which the worker's :func:`exit_with_parent` watches."""
    return {**(os.environ if env is None else env), PARENT_PID_VARIABLE: str(os.getpid())}


def exit_with_parent(poll_seconds: float = 1.0) -> None:
    """In a worker process: leave SIGINT to the parent (a Ctrl-C reaches the whole process
    group; the parent stops its workers itself), and exit (status 1) as soon as the parent is
    gone, so a parent killed beyond clean-up (SIGKILL) leaves no worker running on. Polls the
    parent pid from a daemon thread: unlike Linux's parent-death signal it does not depend on
    which of the parent's threads started the worker."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The parent's pid as the parent saw it (worker_env): one that died while this process
    # was still starting is noticed too.
    parent = int(os.environ.get(PARENT_PID_VARIABLE) or os.getppid())

    def watch():
        while os.getppid() == parent:
            time.sleep(poll_seconds)
        with contextlib.suppress(OSError):
            sys.stderr.flush()
        os._exit(1)

    threading.Thread(target=watch, name="gpuia-exit-with-parent", daemon=True).start()
