"""Worker processes: the parent side (start them, send cases, time them out) and the child's
loop (:func:`serve`). The fuzzer's children (:mod:`gpuia.fuzz.worker`,
:mod:`gpuia.cli.fuzz_child`) and ``gpuia check --workers``'s (:mod:`gpuia.cli.check_child`)
run on them.

:class:`Worker` owns one child (``python -m gpuia.fuzz.worker`` unless a command is given) and
turns every way a case can end into an :class:`Outcome`: the child's answer, ``crash`` when the
child dies (a signal, an abort, an unexpected exit; the tail of its stderr is kept, where wgpu
prints its panic message) or ``hang`` when no answer comes within the timeout (the child is
killed). A dead or killed child is replaced before the next case. :class:`Pool` runs cases on
several children at once and yields each outcome with its case's position.

The protocol: the parent writes one JSON line of configuration on the child's stdin, then one
JSON request per line; the child answers each with one JSON line on its stdout (:func:`serve`).

Only processes started here are ever signalled, by their own pid.
"""

from __future__ import annotations

import collections
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import IO

from .child import limit_memory, mapped_bytes
from .interrupt import exit_with_parent, worker_env

__all__ = ["Outcome", "Pool", "Worker", "WorkerStartError", "serve"]


_STOP_SECONDS = 5.0
"""How long children may take to exit after their stdin closes (a case in progress ends)."""


class WorkerStartError(RuntimeError):
    """A child could not set up (no adapter, no device): the run cannot go on. ``detail``:
    the child's own message."""

    detail = ""


@dataclass
class Outcome:
    """How one case ended. ``status`` is the child's answer (``ok``, ``different``,
    ``unsupported``, ``rejected``, ``error`` in valid mode; the exit status is in ``answer`` in
    cli mode), or ``crash`` / ``hang``. ``answer`` is the child's whole answer, ``stderr`` the
    tail of the child's stderr for crashes and hangs, ``reference`` the CPU result for in-process
    runs (never sent between processes)."""

    status: str
    detail: str = ""
    answer: dict = field(default_factory=dict)
    stderr: str = ""
    seconds: float = 0.0
    reference: object = None
    group: object = None  # the ready message's group of the worker that ran it (Pool.run)

    @property
    def lines(self) -> list:
        return self.answer.get("lines", [])


def _signal_name(rc: int) -> str:
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exited with status {rc}"


class Worker:
    """One child process. ``config`` is sent as its first line (see ``gpuia.fuzz.worker``);
    ``command`` replaces ``[python, -m, gpuia.fuzz.worker]``."""

    def __init__(self, config: dict, command: list[str] | None = None, start_timeout: float = 300):
        self.config = config
        self.command = command or [sys.executable, "-m", "gpuia.fuzz.worker"]
        self.start_timeout = start_timeout
        self.proc: subprocess.Popen | None = None
        self.ready: dict = {}
        self.starts = 0
        self._buf = b""
        self._stderr: collections.deque = collections.deque(maxlen=40)
        self.rss_kib = 0

    # -- process management ---------------------------------------------------------------
    def start(self) -> dict:
        """Start the child and wait until it is ready (its ready message)."""
        self.launch()
        return self.wait_ready()

    def launch(self) -> None:
        """Start the child without waiting for it (see :meth:`wait_ready`)."""
        env = worker_env()
        env.setdefault("XDG_RUNTIME_DIR", "/tmp")
        env["PYTHONFAULTHANDLER"] = "1"  # a Python-level fatal error prints its stack
        proc = self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            env=env)
        assert proc.stdin is not None  # PIPE: the three streams exist
        self.starts += 1
        self._buf = b""
        self._stderr = collections.deque(maxlen=40)
        threading.Thread(target=self._drain, args=(proc.stderr, self._stderr),
                         daemon=True).start()
        proc.stdin.write((json.dumps(self.config) + "\n").encode())
        proc.stdin.flush()

    def wait_ready(self) -> dict:
        msg = self._read(time.monotonic() + self.start_timeout)
        if not isinstance(msg, dict) or not msg.get("ready"):
            detail = msg.get("error") if isinstance(msg, dict) else msg
            self.stop()
            error = WorkerStartError(f"the worker process could not start: {detail}"
                                     f"{self._stderr_tail()}")
            if isinstance(msg, dict):  # the child's own refusal, without the exception's name
                error.detail = str(detail).split(": ", 1)[-1]
            raise error
        self.ready = msg
        return msg

    @staticmethod
    def _drain(stream, sink):
        for raw in iter(stream.readline, b""):
            sink.append(raw.decode("utf-8", "replace").rstrip("\n"))
        stream.close()

    def _stderr_tail(self) -> str:
        time.sleep(0.05)  # let the drain thread catch the last lines of a dying child
        return ("\n" + "\n".join(self._stderr)) if self._stderr else ""

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def close_input(self) -> None:
        """Close the child's stdin: it exits once its case is done (see :meth:`stop`)."""
        if self.proc is not None and self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    def stop(self, deadline: float | None = None) -> None:
        """End the child: close its stdin, then kill it (by its pid) if it has not exited by
        ``deadline`` (monotonic seconds; default 5 s from now)."""
        p, self.proc = self.proc, None
        if p is None:
            return
        assert p.stdin is not None and p.stdout is not None  # PIPE: the streams exist
        try:
            p.stdin.close()
        except OSError:
            pass
        if deadline is None:
            deadline = time.monotonic() + _STOP_SECONDS
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        p.stdout.close()

    def _kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            assert self.proc.stdout is not None  # PIPE
            self.proc.stdout.close()
            self.proc = None

    # -- requests --------------------------------------------------------------------------
    def send(self, request: dict) -> None:
        if not self.alive():
            self.start()
        self.sent_at = time.monotonic()
        proc = self.proc
        assert proc is not None and proc.stdin is not None  # started above, PIPE
        try:
            proc.stdin.write((json.dumps(request) + "\n").encode())
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the read that follows sees the dead child

    def has_line(self) -> bool:
        """Whether a whole reply line is already read and waiting (receive() returns it at
        once)."""
        return b"\n" in self._buf

    def _stdout(self) -> IO[bytes]:
        """The running child's stdout."""
        assert self.proc is not None and self.proc.stdout is not None  # running, PIPE
        return self.proc.stdout

    def fileno(self) -> int:
        return self._stdout().fileno()

    def _read(self, deadline: float):
        """The next message, ``"eof"`` when the child's stdout closed, ``"timeout"``."""
        fd = self._stdout().fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            sel = selectors.DefaultSelector()
            sel.register(fd, selectors.EVENT_READ)
            ready = sel.select(left)
            sel.close()
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return "eof"
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def receive(self, timeout: float) -> Outcome:
        """Wait for the answer to the request sent last."""
        msg = self._read(self.sent_at + timeout)
        seconds = time.monotonic() - self.sent_at
        if msg == "timeout":
            self._kill()
            return Outcome("hang", f"no answer within {timeout:g} s (the child was killed)",
                           stderr=self._stderr_tail(), seconds=seconds)
        if msg == "eof":
            stdout = self._stdout()
            assert self.proc is not None  # as _stdout checked
            rc = self.proc.wait()
            stdout.close()
            self.proc = None
            return Outcome("crash", f"the child process {_signal_name(rc)}",
                           answer={"rc": rc}, stderr=self._stderr_tail(), seconds=seconds)
        self.rss_kib = msg.get("rss_kib", self.rss_kib)
        return Outcome(msg.get("status", ""), msg.get("detail", ""), msg, seconds=seconds)

    def run(self, request: dict, timeout: float) -> Outcome:
        self.send(request)
        return self.receive(timeout)


class Pool:
    """``jobs`` workers with the same configuration, apart from ``slots``: worker ``k`` gets
    ``slots[k]`` added to it (``--workers`` spread over adapters: each its own). :meth:`run`
    sends requests to whichever worker is free and yields ``(position, Outcome)`` as they
    finish; ``stop_when()`` (checked before each new request) ends submission early. A request
    with a ``group`` goes only to a worker whose ready message has that ``group`` (its
    adapter); the others wait for it, not the requests behind them.

    The pool owns one temporary folder, ``config["workdir"]`` for its children (a child writes
    its files under it, a folder per request): :meth:`close` removes it with whatever a child
    killed mid-case left there."""

    def __init__(self, config: dict, jobs: int = 1, command: list[str] | None = None,
                 slots: list[dict] | None = None):
        self.workdir = tempfile.mkdtemp(prefix="gpuia-workers-")
        self.config = {**config, "workdir": self.workdir}
        self.command = command
        self.workers = [Worker({**self.config, **(slots[k] if slots else {})}, command)
                        for k in range(max(1, jobs))]

    def grow(self, slots: list[dict]) -> None:
        """Start one more worker per entry of ``slots`` (each added to the configuration) and
        wait until each is ready."""
        added = [Worker({**self.config, **slot}, self.command) for slot in slots]
        self.workers += added
        for w in added:
            w.launch()
        for w in added:
            w.wait_ready()

    def worker_for(self, request: dict) -> Worker:
        """The first worker that may take ``request`` (its ``group``'s)."""
        return next(w for w in self.workers if _takes(w, request))

    def start(self) -> dict:
        """Start every child at once, then wait for each; returns the last ready message."""
        for w in self.workers:
            w.launch()
        ready = {}
        for w in self.workers:
            ready = w.wait_ready()
        return ready

    def close(self, at_once: bool = False) -> None:
        """End every child: with ``at_once`` (an interrupted run) kill each now; else close
        every stdin first, so that they finish their cases side by side, and kill those that
        have not exited :data:`_STOP_SECONDS` later (one deadline for all, not one each)."""
        try:
            if at_once:
                for w in self.workers:  # every one signalled first, then each reaped
                    if w.proc is not None:
                        w.proc.kill()
                for w in self.workers:
                    w._kill()
                return
            for w in self.workers:
                w.close_input()
            deadline = time.monotonic() + _STOP_SECONDS
            for w in self.workers:
                w.stop(deadline)
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)

    @property
    def restarts(self) -> int:
        return sum(max(0, w.starts - 1) for w in self.workers)

    def rss_kib(self) -> list[int]:
        return [w.rss_kib for w in self.workers]

    def run(self, requests, timeout: float, stop_when=lambda: False):
        requests = iter(requests)
        busy: dict[int, tuple[Worker, int]] = {}
        free = list(self.workers)
        waiting: list = []  # (position, request) taken, waiting for a worker of its group
        position = 0
        exhausted = False
        while True:
            while free and not stop_when():
                pick = next(((p, r, w) for p, r in waiting for w in reversed(free)
                             if _takes(w, r)), None)
                if pick is None:
                    if exhausted or len(waiting) >= 4 * len(self.workers):
                        break
                    req = next(requests, None)
                    if req is None:
                        exhausted = True
                        break
                    waiting.append((position, req))
                    position += 1
                    continue
                pos, req, w = pick
                waiting.remove((pos, req))
                free.remove(w)
                w.send(req)
                busy[id(w)] = (w, pos)
            if not busy:
                return
            # Wait for any busy worker; a worker past its deadline is timed out by receive().
            now = time.monotonic()
            sel = selectors.DefaultSelector()
            for w, _ in busy.values():
                if w.proc is not None and not w.has_line():
                    sel.register(w.fileno(), selectors.EVENT_READ, w)
            wait = min(w.sent_at + timeout - now for w, _ in busy.values())
            events = sel.select(max(0.0, wait)) if sel.get_map() else []
            sel.close()
            ready = {id(key.data) for key, _ in events}
            for key, (w, pos) in list(busy.items()):
                due = w.sent_at + timeout <= time.monotonic()
                if key in ready or due or w.has_line() or w.proc is None:
                    out = w.receive(timeout)
                    out.group = w.ready.get("group")
                    del busy[key]
                    free.append(w)
                    yield pos, out


def _takes(worker: Worker, request: dict) -> bool:
    """Whether ``worker`` may run ``request``: any worker, unless the request names a group."""
    return "group" not in request or worker.ready.get("group") == request["group"]


# -- the child's side --------------------------------------------------------------------
def _vm_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def serve(make_handler, wrap=None) -> int:
    """Serve requests until stdin closes: read the configuration line, set up with
    ``make_handler(config) -> (handler, ready)``, send the ready message (or, when setting up
    raised, ``{"ready": false, "error": ...}`` and return 2), then answer every request with
    ``handler(request)``, its ``id`` and the child's RSS added. ``wrap(handler) -> handler``
    lets a caller put its own code around every request (the test suite makes a child abort on
    a marker with it)."""
    exit_with_parent()  # a case in progress must not outlive a killed fuzzer
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # stray prints (Python or native) go to stderr, never into the protocol

    def send(msg):
        proto.write(json.dumps(msg) + "\n")
        proto.flush()

    config = json.loads(sys.stdin.readline() or "{}")
    try:
        handler, ready = make_handler(config)
    except Exception as e:  # noqa: BLE001 - reported to the parent, which stops with an error
        send({"ready": False, "error": f"{type(e).__name__}: {' '.join(str(e).split())}"})
        return 2
    limit = config.get("memory_limit_mb")
    if limit is None and ready.get("cpu_only"):
        limit = config.get("cpu_memory_limit_mb", 4096)
    # the address space capped at its peak so far plus the limit
    ready["memory_cap_mb"] = limit_memory(mapped_bytes() + (limit << 20)) >> 20 if limit \
        else None
    ready.update({"ready": True, "pid": os.getpid()})
    if wrap is not None:
        handler = wrap(handler)
    send(ready)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        answer = handler(req)
        answer["id"] = req.get("id")
        answer["rss_kib"] = _vm_kib("VmRSS")
        send(answer)
    return 0
