"""The fuzz loop: generate cases with hypothesis, run them, judge them, shrink findings.

Cases are generated in **chunks**. Chunk ``k`` of a run with seed ``S`` is the sequence of
values hypothesis draws, under ``@seed`` (a number derived from ``S``, the mode and ``k``), with
no example database, when every value is reported uninteresting; chunk sizes are fixed (16, 32,
64, 128, then 256). So ``--seed S`` always gives the same cases in the same order, whatever the
time limit, the number of workers or the machine, and ``--cases N`` runs the first ``N``.

A chunk's cases run on the worker pool (``gpuia.fuzz.pool``). The judge turns each outcome into
a finding or not. For the first finding of a chunk the chunk is **replayed**: hypothesis draws
the same values again (they are answered uninteresting, as before, without running them) until
it reaches the finding's case, which is answered interesting; hypothesis then shrinks it,
running each smaller candidate and keeping those that show a finding of the same kind. The
smallest one is saved with the original and a report. Outcomes are memoised by the case's
digest during a shrink, so hypothesis's final replay of the minimal case always agrees.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import random
import re
import shlex
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

from ..util.cores import usable_cores
from ..util.files import write_atomic
from .corrupt import corrupted_cases
from .pool import Outcome, Pool
from .runs import run_valid_case
from .strategies import cases

__all__ = [
    "CHUNK_SIZES",
    "Finding",
    "FuzzConfig",
    "FuzzReport",
    "Fuzzer",
    "ReferenceRunner",
    "case_digest",
    "chunk_seed",
    "generate",
    "invalid_judge",
    "valid_judge",
]

SHRINK_LIMIT = 20000
"""Successful shrinks hypothesis may make on one finding (its own default is 500)."""

CHUNK_SIZES = (16, 32, 64, 128, 256)
"""Sizes of the first chunks; every later chunk has the last size."""

VALID_FINDINGS = ("different", "wgpu-refused", "rejected", "error", "crash", "hang")
"""Valid-mode outcomes that are findings. ``ok`` and ``unsupported`` (gpuia refuses the whole
case as beyond its GPU paths, with a reason) are not."""


def chunk_size(k: int) -> int:
    return CHUNK_SIZES[min(k, len(CHUNK_SIZES) - 1)]


def chunk_seed(run_seed: int, mode: str, k: int) -> int:
    """The hypothesis seed of chunk ``k`` (string seeding is hashed with SHA-512 by
    :class:`random.Random`, so it is the same in every process)."""
    return random.Random(f"gpuia-fuzz:{mode}:{run_seed}:{k}").getrandbits(64)


def case_digest(value) -> str:
    """A digest of a generated value (a case dict, or ``(what, bytes)`` in invalid mode)."""
    if isinstance(value, tuple):
        return hashlib.sha1(value[1]).hexdigest()
    return hashlib.sha1(json.dumps(value, sort_keys=True).encode()).hexdigest()


class _Interesting(Exception):
    """Raised inside the hypothesis test to make it shrink (never escapes :func:`_drive`)."""


class _Stop(BaseException):
    """Raised inside the hypothesis test to end the run at once: hypothesis treats exceptions
    that are not ``Exception`` as interruptions, not as failures to shrink."""


@contextlib.contextmanager
def _without_local_constants():
    """hypothesis (6.1xx) mixes into its draws constants it harvests from the source of the
    "local" (not installed, not standard library) modules in ``sys.modules``, which includes an
    editable gpuia. Which modules are imported differs from one process to the next, and grows
    as cases run, so the same seed would draw different cases. During a fuzz run the harvest is
    replaced by an empty pool (and hypothesis's cache of it cleared on entry and exit), so the
    draws depend on the seed and the hypothesis version only."""
    try:
        from hypothesis.internal.conjecture import providers

        saved, empty = providers._get_local_constants, providers.Constants()
        cache = providers.CONSTANTS_CACHE.cache
    except (ImportError, AttributeError, TypeError):  # another hypothesis: nothing to do
        yield
        return
    providers._get_local_constants = lambda: empty
    cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = saved
        cache.clear()


def _drive(strategy, hseed: int, max_examples: int, on_value: Callable[[object], bool]) -> None:
    """Run hypothesis over ``strategy`` with seed ``hseed``; ``on_value(v)`` True shrinks."""
    from hypothesis.internal.conjecture import engine as conjecture

    # hypothesis stops after 500 successful shrinks. The strategies draw the fields of absent
    # items too (see gpuia.fuzz.strategies), and simplifying those counts as shrinks, although
    # the case does not change (such candidates are answered from the memo, without running).
    # The time limit of the shrink bounds the run instead.
    if getattr(conjecture, "MAX_SHRINKS", SHRINK_LIMIT) < SHRINK_LIMIT:
        conjecture.MAX_SHRINKS = SHRINK_LIMIT

    @settings(database=None, max_examples=max_examples, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
              verbosity=Verbosity.quiet, report_multiple_bugs=False, print_blob=False)
    @seed(hseed)
    @given(strategy)
    def test(value):
        if on_value(value):
            raise _Interesting

    try:
        with _without_local_constants():
            test()
    except (_Interesting, _Stop):
        pass


def _strategy(mode: str, so: bool):
    return corrupted_cases(so=so) if mode == "invalid" else cases(so=so)


def generate(run_seed: int, count: int, *, mode: str = "valid", so: bool = False) -> list:
    """The first ``count`` values a run with ``run_seed`` draws (no case is run)."""
    out: list = []
    k = 0
    while len(out) < count:
        out += _chunk(mode, so, run_seed, k)
        k += 1
    return out[:count]


def _chunk(mode: str, so: bool, run_seed: int, k: int) -> list:
    values: list = []

    def keep(v):
        values.append(v)
        return False

    _drive(_strategy(mode, so), chunk_seed(run_seed, mode, k), chunk_size(k), keep)
    return values


class _Prefetch:
    """Chunk ``k`` drawn in a background thread; :meth:`result` waits for it."""

    def __init__(self, mode: str, so: bool, run_seed: int, k: int):
        self._values: list = []
        self._error: BaseException | None = None

        def work():
            try:
                self._values = _chunk(mode, so, run_seed, k)
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
                self._error = e

        self._thread = threading.Thread(target=work, name=f"gpuia-fuzz-chunk-{k}", daemon=True)
        self._thread.start()

    def result(self) -> list:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._values


class _Drawn:
    """Chunk ``k`` drawn by a process of a :class:`_Drawers` pool."""

    def __init__(self, pending):
        self._pending = pending

    def result(self) -> list:
        values: list = self._pending.get()
        return values


class _Drawers:
    """Processes drawing chunks ahead of the run, ``processes`` of them, each chunk whole in
    one process: drawing is pure Python (hypothesis), so on this process's threads it would hold
    the GIL against the parent's pipe I/O and cap a campaign at one core's drawing. A chunk's
    values depend on (mode, so, seed, k) alone (:func:`chunk_seed`), so any process draws the
    same ones. Spawned, not forked: the parent may hold a wgpu device and threads.
    :meth:`close` ends the processes at once (a chunk being drawn is dropped)."""

    def __init__(self, mode: str, so: bool, run_seed: int, processes: int):
        import multiprocessing

        self.args = (mode, so, run_seed)
        self.ahead = processes
        self._pool = multiprocessing.get_context("spawn").Pool(processes)
        self._pending: dict[int, _Drawn] = {}

    def chunk(self, k: int) -> _Drawn:
        """Chunk ``k`` (drawing it and the next ones, one per process, if not yet asked)."""
        for j in range(k, k + self.ahead):
            if j not in self._pending:
                self._pending[j] = _Drawn(self._pool.apply_async(_chunk, (*self.args, j)))
        return self._pending.pop(k)

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()


MAX_DRAWING_PROCESSES = 8
"""The most processes drawing chunks ahead. A chunk is drawn whole by one process (its cases
depend on its seed alone), and the later chunks are 256 cases, several seconds of hypothesis
each: enough processes draw the next chunks while the current one runs, so the children rarely
wait for cases."""


def default_jobs() -> int:
    """Case children for this machine: one per four of the cores this process may use
    (:func:`gpuia.util.cores.usable_cores`), 1 to 4 (the rest draw cases and keep the parent's
    pipe I/O going)."""
    return max(1, min(4, usable_cores() // 4))


def _drawing_processes(config: FuzzConfig) -> int:
    """How many processes draw chunks ahead: none for a run that ends within chunk 0 (a thread
    draws it, without a process's start-up), else the cores the case children leave, 1 to
    :data:`MAX_DRAWING_PROCESSES`."""
    if config.cases is not None and config.cases <= CHUNK_SIZES[0]:
        return 0
    return max(1, min(MAX_DRAWING_PROCESSES, usable_cores() - config.jobs))


# -- judging -----------------------------------------------------------------------------------
def valid_judge(value, outcome: Outcome) -> str | None:
    """A finding's kind for a valid case, or None: any GPU result that differs from the
    reference, a case gpuia refuses as invalid, an unexpected exception, a crash or a hang."""
    return outcome.status if outcome.status in VALID_FINDINGS else None


def invalid_outcome(outcome: Outcome) -> Outcome:
    """Classify a ``gpuia check`` run of a corrupted case: ``ran`` (exit 0), ``refused`` (exit 2
    with exactly one ``error:`` line on stderr), ``out-of-memory`` (the same, the child saying
    the line named the host's MemoryError: ``host_out_of_memory``), ``different`` (exit 1), or
    ``error`` (a traceback, another exit status, or exit 2 without exactly one error line).
    Crashes and hangs stay as they are."""
    if outcome.status in ("crash", "hang"):
        return outcome
    a = outcome.answer
    rc, err = a.get("rc"), a.get("stderr", "")
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    if a.get("traceback") or "Traceback (most recent call last)" in err:
        last = (a.get("traceback") or err).strip().splitlines()[-1]
        status, detail = "error", "a traceback: " + last
    elif rc == 0:
        status, detail = "ran", ""
    elif rc == 2 and len(errors) == 1:
        status = "out-of-memory" if a.get("host_out_of_memory") else "refused"
        detail = errors[0]
    elif rc == 2:
        status, detail = "error", f"exit 2 with {len(errors)} error lines"
    elif rc == 1:
        diffs = [line for line in a.get("stdout", "").splitlines() if ": DIFFERENT" in line]
        status, detail = "different", "; ".join(diffs[:3]) or "exit 1"
    else:
        status, detail = "error", f"exit status {rc}"
    outcome.status, outcome.detail = status, detail
    return outcome


SMALL_DEMAND = {"invocations": 1 << 20, "buffer_bytes": 1 << 28}
"""A case within both bounds needs at most a few hundred MiB of host memory (the reference and
the capture take tens of bytes per vertex and element), far below the child's cap: gpuia running
out of memory on it is a defect, like the 16 GiB index list once planned for a draw of
2^31 indices and no instance. Larger cases may run out of memory under the cap honestly."""


def invalid_judge(value, outcome: Outcome) -> str | None:
    """A corrupted case must be refused cleanly or run correctly; anything else is a finding.
    Running out of host memory is a clean refusal only for a case that asks for much of it
    (beyond :data:`SMALL_DEMAND`)."""
    if outcome.status == "out-of-memory":
        demand = outcome.answer.get("demand") or {}
        small = all(demand.get(k, 1 << 62) <= bound for k, bound in SMALL_DEMAND.items())
        return "out-of-memory" if small else None
    return None if outcome.status in ("ran", "refused") else outcome.status


# -- runners -----------------------------------------------------------------------------------
class ReferenceRunner:
    """Runs valid cases in this process on the CPU reference only (no GPU, no child): the
    generator's own check, and the runner tests use. Outcomes carry the reference result."""

    def __call__(self, value) -> Outcome:
        t = time.monotonic()
        answer, ref = run_valid_case(value, [], [])
        return Outcome(answer["status"], answer.get("detail", ""), answer,
                       seconds=time.monotonic() - t, reference=ref)


# -- results -----------------------------------------------------------------------------------
@dataclass
class FuzzConfig:
    """What ``gpuia fuzz`` was asked to do. ``seconds``/``cases``: stop at whichever comes
    first (at least one must be set). ``paths``: GPU paths to compare (empty: CPU reference
    only, in this process). ``memory_limit_mb``: address-space headroom of each child (None:
    4096 MiB on CPU adapters, unlimited on others; 0: unlimited)."""

    mode: str = "valid"
    seed: int = 0
    seconds: float | None = None
    cases: int | None = None
    paths: tuple = ("native", "pulling")
    so: bool = False
    adapter: str | None = None
    gpu_backend: str | None = None
    capture: str = "auto"
    out: Path = Path("fuzz-out")
    jobs: int = 1
    timeout: float = 120.0
    max_findings: int = 1
    shrink_seconds: float = 300.0
    memory_limit_mb: int | None = None
    progress_interval: float = 10.0


@dataclass
class Finding:
    kind: str
    detail: str
    chunk: int
    index: int
    original: object
    minimal: object
    outcome: Outcome
    shrink_runs: int = 0
    shrunk: bool = True
    path: Path | None = None
    duplicate_of: str | None = None


@dataclass
class FuzzReport:
    config: FuzzConfig
    cases: int = 0
    seconds: float = 0.0
    outcomes: Counter = field(default_factory=Counter)
    paths: dict = field(default_factory=dict)  # path -> Counter of line statuses
    findings: list = field(default_factory=list)
    adapters: list = field(default_factory=list)
    restarts: int = 0
    shrink_seconds: float = 0.0
    memory: dict = field(default_factory=dict)  # parent/worker RSS samples in MiB
    digests: list = field(default_factory=list)  # only when Fuzzer(record_digests=True)
    interrupted: bool = False

    @property
    def rate(self) -> float:
        run = self.seconds - self.shrink_seconds
        return self.cases / run if run > 0 else 0.0

    def command_line(self) -> str:
        """The ``gpuia fuzz`` command line that runs this run's cases again, quoted for a POSIX
        shell: the seed, ``--cases`` the count that ran (when none ran, which ``--cases``
        refuses, the limit asked for), and the options that choose the cases and where they
        run. ``gpuia fuzz``'s own parser accepts it."""
        c = self.config
        parts = ["gpuia", "fuzz", "--seed", str(c.seed)]
        if self.cases:
            parts += ["--cases", str(self.cases)]
        elif c.cases:
            parts += ["--cases", str(c.cases)]
        elif c.seconds:
            parts += ["--seconds", str(c.seconds)]
        if c.mode == "invalid":
            parts.append("--invalid")
        if c.so:
            parts.append("--so")
        if tuple(c.paths) != ("native", "pulling") and c.mode == "valid":
            parts += ["--paths", ",".join(c.paths) or "none"]
        if c.adapter:
            parts += ["--adapter", c.adapter]
        if c.gpu_backend:
            parts += ["--gpu-backend", c.gpu_backend]
        if c.capture != "auto":
            parts += ["--capture", c.capture]
        return shlex.join(parts)

    def summary(self) -> str:
        c = self.config
        shrinking = f", {self.shrink_seconds:.1f} s shrinking" if self.shrink_seconds else ""
        lines = [(f"fuzz summary: {c.mode} cases, seed {c.seed}: {self.cases} cases in "
                  f"{self.seconds:.1f} s ({self.rate:.1f} cases/s{shrinking})")]
        if self.adapters:
            lines.append("  adapters: " + "; ".join(self.adapters))
        for path, counts in sorted(self.paths.items()):
            lines.append(f"  {path}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
        lines.append("  outcomes: " + (", ".join(f"{v} {k}" for k, v in
                                                 sorted(self.outcomes.items())) or "none"))
        if self.restarts:
            lines.append(f"  child restarts: {self.restarts}")
        if self.memory:
            m = self.memory
            lines.append(f"  memory (RSS MiB): parent {m['parent_first']} -> {m['parent_last']} "
                         f"(peak {m['parent_peak']}), children {m['child_first']} -> "
                         f"{m['child_last']} (peak {m['child_peak']})")
        new = [f for f in self.findings if f.duplicate_of is None]
        lines.append(f"  findings: {len(new)}" + (f" (+{len(self.findings) - len(new)} "
                                                  f"duplicates)" if len(new) < len(self.findings)
                                                  else ""))
        for f in new:
            lines.append(f"    {f.kind}: {f.detail[:200]}  -> {f.path}")
        if self.interrupted:
            lines.append("  interrupted before the limit")
        lines.append(f"  reproduce: {self.command_line()}")
        return "\n".join(lines)


def _rss_mib(pid: int | None = None) -> int:
    try:
        with open(f"/proc/{pid or 'self'}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


# -- the fuzzer --------------------------------------------------------------------------------
class Fuzzer:
    """One fuzz run. ``runner(value) -> Outcome`` replaces the worker pool (tests give
    :class:`ReferenceRunner`); ``judge(value, outcome) -> kind | None`` replaces the mode's
    judge (tests inject a fake difference with it); ``worker_command`` is the children's
    command line (default ``python -m gpuia.fuzz.worker``, the valid mode's child). Invalid mode
    judges what gpuia's command line prints, so its children must run the command line:
    ``gpuia fuzz --invalid`` gives ``python -m gpuia.cli.fuzz_child``, and without a runner or
    a worker command invalid mode is refused (ValueError). ``out``: where progress and findings
    are printed (stdout), ``err``: where the progress line goes (stderr)."""

    def __init__(self, config: FuzzConfig, *, runner=None, judge=None, worker_command=None,
                 out=None, err=None, record_digests: bool = False):
        if config.seconds is None and config.cases is None:
            raise ValueError("give a time limit (seconds) or a case count")
        if config.mode == "invalid" and runner is None and worker_command is None:
            raise ValueError("invalid mode runs cases through the command line: give the "
                             "children's worker_command (python -m gpuia.cli.fuzz_child)")
        self.config = config
        self.judge = judge or (invalid_judge if config.mode == "invalid" else valid_judge)
        self.runner = runner
        self.worker_command = worker_command
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.record_digests = record_digests
        self.pool: Pool | None = None
        self.report = FuzzReport(config)
        self._last_progress = -1e9  # when progress was last written (monotonic seconds)
        self._seen_minimal: dict[str, str] = {}
        self._signatures: dict[str, str] = {}
        self._tty = hasattr(self.err, "isatty") and self.err.isatty()

    # -- running cases ---------------------------------------------------------------------
    def _worker_config(self) -> dict:
        c = self.config
        return {"mode": "cli" if c.mode == "invalid" else "valid", "adapter": c.adapter,
                "gpu_backend": c.gpu_backend, "capture": c.capture, "paths": list(c.paths),
                "memory_limit_mb": c.memory_limit_mb}

    @staticmethod
    def _request(i: int, value) -> dict:
        if isinstance(value, tuple):
            return {"id": i, "content": base64.b64encode(value[1]).decode()}
        return {"id": i, "case": dict(value, name=f"fuzz{i}")}

    def _finish(self, outcome: Outcome) -> Outcome:
        return invalid_outcome(outcome) if self.config.mode == "invalid" else outcome

    def _run_many(self, values: list, stop_when) -> list:
        """Outcomes in case order (None where a case was not run because time ran out)."""
        outcomes: list = [None] * len(values)
        if self.runner is not None:
            for i, v in enumerate(values):
                if stop_when():
                    break
                outcomes[i] = self._finish(self.runner(v))
                self._account(v, outcomes[i])
            return outcomes
        reqs = (self._request(i, v) for i, v in enumerate(values))
        assert self.pool is not None  # run() made it: there is no runner
        for pos, outcome in self.pool.run(reqs, self.config.timeout, stop_when):
            outcomes[pos] = self._finish(outcome)
            self._account(values[pos], outcomes[pos])
        return outcomes

    def _run_one(self, value) -> Outcome:
        if self.runner is not None:
            return self._finish(self.runner(value))
        assert self.pool is not None  # as in _run_many
        w = self.pool.workers[0]
        return self._finish(w.run(self._request(0, value), self.config.timeout))

    def _account(self, value, outcome: Outcome) -> None:
        r = self.report
        r.cases += 1
        r.outcomes[outcome.status] += 1
        for line in outcome.lines:
            r.paths.setdefault(line["path"], Counter())[line["status"]] += 1
        if self.record_digests:
            r.digests.append(case_digest(value))
        self._progress()

    # -- progress and memory ---------------------------------------------------------------
    def _sample_memory(self) -> None:
        parent = _rss_mib()
        children = sum(k // 1024 for k in self.pool.rss_kib()) if self.pool else 0
        m = self.report.memory
        if not m:
            m.update(parent_first=parent, child_first=children, parent_peak=0, child_peak=0)
        m.update(parent_last=parent, child_last=children,
                 parent_peak=max(m["parent_peak"], parent),
                 child_peak=max(m["child_peak"], children))

    def _progress(self, force: bool = False) -> None:
        now = time.monotonic()
        interval = 0.5 if self._tty else self.config.progress_interval
        if not force and now - self._last_progress < interval:
            return
        self._last_progress = now
        self._sample_memory()
        r = self.report
        r.seconds = now - self._t0
        found = len(r.findings)
        text = (f"fuzz: {r.cases} cases, {r.rate:.1f}/s, {found} finding(s), "
                f"{r.seconds:.0f} s, RSS {r.memory['parent_last']}+{r.memory['child_last']} MiB")
        if self._tty:
            self.err.write("\r" + text.ljust(100))
        else:
            self.err.write(text + "\n")
        self.err.flush()

    # -- the loop --------------------------------------------------------------------------
    def _time_up(self) -> bool:
        c = self.config
        if c.cases is not None and self.report.cases >= c.cases:
            return True
        return c.seconds is not None and time.monotonic() - self._t0 >= c.seconds + \
            self.report.shrink_seconds

    def run(self) -> FuzzReport:
        c = self.config
        self._t0 = time.monotonic()
        self._last_progress = -1e9
        drawers: _Drawers | None = None
        try:
            if self.runner is None:
                self.pool = Pool(self._worker_config(), c.jobs, self.worker_command)
                ready = self.pool.start()
                self.report.adapters = list(ready.get("adapters", []))
                for line in ready.get("unavailable", []):
                    self.out.write(f"{line}: unavailable\n")
                # The time limit counts fuzzing, not the children's start-up: on a loaded
                # machine that took a short run's whole time, and no case ran.
                self._t0 = time.monotonic()
            k = 0
            processes = _drawing_processes(c)
            ahead: _Prefetch | _Drawn = _Prefetch(c.mode, c.so, c.seed, 0)
            while not self._time_up() and self._distinct() < c.max_findings:
                values = ahead.result()
                # The next chunk is drawn while this one runs (the workers would wait for it).
                if processes and drawers is None:
                    drawers = _Drawers(c.mode, c.so, c.seed, processes)
                ahead = (drawers.chunk(k + 1) if drawers is not None
                         else _Prefetch(c.mode, c.so, c.seed, k + 1))
                if c.cases is not None:
                    values = values[: c.cases - self.report.cases]
                def stop() -> bool:
                    return self._time_up() or self._distinct() >= c.max_findings

                outcomes = self._run_many(values, stop)
                for i, (v, o) in enumerate(zip(values, outcomes, strict=True)):
                    if o is None or self._distinct() >= c.max_findings:
                        continue
                    kind = self.judge(v, o)
                    if kind:
                        if drawers is None:  # one hypothesis run per process: shrinking is one
                            ahead.result()
                        self._found(k, i, v, o, kind)
                k += 1
            if drawers is None:
                ahead.result()
        except KeyboardInterrupt:
            self.report.interrupted = True
        finally:
            if drawers is not None:
                drawers.close()
            if self.pool is not None:
                self.report.restarts = self.pool.restarts
                self._sample_memory()
                self.pool.close(at_once=self.report.interrupted)  # a signal: no case waited for
            self.report.seconds = time.monotonic() - self._t0
            if self._tty:
                self.err.write("\n")
        return self.report

    # -- findings --------------------------------------------------------------------------
    def _distinct(self) -> int:
        return sum(f.duplicate_of is None for f in self.report.findings)

    def _shrink(self, k: int, target_value, kind: str, original: Outcome):
        """Replay chunk ``k`` to ``target_value`` and let hypothesis shrink it. Returns
        (minimal value, its outcome, runs, shrunk?)."""
        c = self.config
        target = case_digest(target_value)
        deadline = time.monotonic() + c.shrink_seconds
        memo: dict[str, tuple[bool, Outcome]] = {}
        state: dict[str, Any] = {"reached": False, "best": (target_value, original), "runs": 0}

        def on_value(v):
            d = case_digest(v)
            if not state["reached"]:
                if d != target:
                    return False
                state["reached"] = True
                memo[d] = (True, original)
                return True
            if d not in memo:
                if time.monotonic() > deadline:
                    raise _Stop  # out of shrink time: keep the smallest case so far
                o = self._run_one(v)
                state["runs"] += 1
                memo[d] = (self.judge(v, o) == kind, o)
            hit, o = memo[d]
            if hit:
                state["best"] = (v, o)
            return hit

        _drive(_strategy(c.mode, c.so), chunk_seed(c.seed, c.mode, k), chunk_size(k), on_value)
        value, outcome = state["best"]
        return value, outcome, state["runs"], state["reached"]

    def _found(self, k: int, i: int, value, outcome: Outcome, kind: str) -> None:
        # hypothesis often draws near copies of a case in a row: a finding whose kind and
        # detail (numbers aside) match an earlier one is saved as is, not shrunk again.
        signature = f"{kind}:{re.sub(r'[0-9]+', 'N', outcome.detail)}"
        if signature in self._signatures:
            f = Finding(kind, outcome.detail, k, i, value, value, outcome, 0, False,
                        duplicate_of=self._signatures[signature])
            f.path = self._save(f)
            self.report.findings.append(f)
            self.out.write(f"fuzz: {kind} in case {i} of chunk {k}, probably the same as "
                           f"{f.duplicate_of} (saved unshrunk: {f.path})\n")
            return
        self.out.write(f"{'' if not self._tty else chr(10)}fuzz: {kind} in case {i} of chunk {k}: "
                       f"{outcome.detail[:300]}; shrinking...\n")
        self.out.flush()
        t = time.monotonic()
        minimal, m_outcome, runs, shrunk = self._shrink(k, value, kind, outcome)
        self.report.shrink_seconds += time.monotonic() - t
        f = Finding(kind, m_outcome.detail or outcome.detail, k, i, value, minimal, m_outcome,
                    runs, shrunk)
        key = f"{kind}:{case_digest(minimal)}"
        if key in self._seen_minimal:
            f.duplicate_of = self._signatures[signature] = self._seen_minimal[key]
            self.report.findings.append(f)
            self.out.write(f"fuzz: same minimal case as {f.duplicate_of}\n")
            return
        f.path = self._save(f)
        self._seen_minimal[key] = self._signatures[signature] = str(f.path)
        self.report.findings.append(f)
        self._print_finding(f)

    def _case_bytes(self, value, name: str, description: str) -> bytes:
        if isinstance(value, tuple):
            return value[1]
        doc = dict(value)
        doc = {"gpuia_case": doc.pop("gpuia_case", 1), "name": name, "description": description,
               **{k: v for k, v in doc.items() if k not in ("name", "description")}}
        return (json.dumps(doc, indent=1) + "\n").encode()

    def _save(self, f: Finding) -> Path:
        c = self.config
        out = Path(c.out)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"{c.mode}-{c.seed}-{f.chunk}-{f.index}-{f.kind}"
        desc = (f"gpuia fuzz finding ({f.kind}): {f.detail[:500]} Found by: gpuia fuzz --seed "
                f"{c.seed}{' --invalid' if c.mode == 'invalid' else ''}{' --so' if c.so else ''} "
                f"(chunk {f.chunk}, case {f.index}); minimal case after {f.shrink_runs} "
                f"shrink runs.")
        path = out / f"{stem}.json"
        write_atomic(path, self._case_bytes(f.minimal, stem, desc))
        if f.duplicate_of is None:
            write_atomic(out / f"{stem}.orig.json",
                         self._case_bytes(f.original, stem + "-orig", desc))
        write_atomic(out / f"{stem}.txt", self._finding_text(f, path))
        return path

    def _finding_text(self, f: Finding, path: Path) -> str:
        o = f.outcome
        lines = [f"kind: {f.kind}", f"detail: {f.detail}",
                 f"seed: {self.config.seed} (mode {self.config.mode}, chunk {f.chunk}, "
                 f"case {f.index})",
                 f"shrink runs: {f.shrink_runs}" + (
                     f" (not shrunk: probably the same finding as {f.duplicate_of})"
                     if f.duplicate_of else "" if f.shrunk
                     else " (not shrunk: the replay did not reach the case)"),
                 f"reproduce: gpuia {o.answer.get('command', 'check')} {path}"]
        if isinstance(f.minimal, tuple):
            lines.append("corruptions: " + "; ".join(f.minimal[0]))
        for line in o.lines:
            if line.get("text"):
                lines += ["", line["text"]]
        for key in ("traceback", "stdout", "stderr"):
            if o.answer.get(key):
                lines += ["", f"{key}:", o.answer[key].rstrip()]
        if o.stderr:
            lines += ["", "child stderr (last lines):", o.stderr.strip()]
        return "\n".join(lines) + "\n"

    def _print_finding(self, f: Finding) -> None:
        assert f.path is not None  # saved before it is printed
        data = Path(f.path).read_bytes()
        lines = [f"FINDING {f.kind}: {f.detail[:500]}",
                 f"  minimal case: {f.path} ({len(data)} bytes, {f.shrink_runs} shrink runs)",
                 f"  report: {Path(f.path).with_suffix('.txt')}",
                 f"  reproduce: gpuia check {f.path}"]
        if isinstance(f.minimal, tuple):
            lines.append("  corruptions: " + "; ".join(f.minimal[0]))
        if len(data) <= 4000:
            lines.append(data.decode("utf-8", "replace").rstrip())
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()
