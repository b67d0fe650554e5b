"""The fuzz loop: generate cases with hypothesis, run them, judge them, shrink findings.

Cases are generated in **chunks**. Chunk ``k`` of a run with seed ``S`` is the sequence of
values hypothesis draws, under ``@seed`` (a number derived from ``S``, the mode and ``k``), with
no example database, when every value is reported uninteresting; chunk sizes are fixed (16, 32,
64, 128, then 256). So ``--seed S`` always gives the same cases in the same order, whatever the
time limit, the number of workers or the machine, and ``--cases N`` runs the first ``N``.
``--shard K/N`` runs chunks ``K-1``, ``K-1+N``, ... only: N machines with one seed share no
chunk, and every finding names its chunk, drawn the same from the seed anywhere.

A chunk's cases run on the worker pool (``gpuia.fuzz.pool``). The judge turns each outcome into
a finding or not. For the first finding of a chunk the chunk is **replayed**: hypothesis draws
the same values again (they are answered uninteresting, as before, without running them) until
it reaches the finding's case, which is answered interesting; hypothesis then shrinks it,
running each smaller candidate and keeping those that show a finding of the same kind. The
smallest one is saved with the original and a report. Outcomes are memoised by the case's
digest during a shrink, so hypothesis's final replay of the minimal case always agrees.

This module runs the loop (:class:`Fuzzer`) and is where the fuzzer's names are imported from;
the drawing is in :mod:`.generation`, the judges in :mod:`.judges`, the shrinking in
:mod:`.minimize`, the request, the findings and the summary in :mod:`.report`.
"""

from __future__ import annotations

import base64
import re
import sys
import time
from collections import Counter

from ..harness.shards import Shard
from ..util.cores import usable_cores
from .generation import CHUNK_SIZES as CHUNK_SIZES
from .generation import MAX_DRAWING_PROCESSES, Drawers, Drawn, Prefetch, case_digest
from .generation import SHRINK_LIMIT as SHRINK_LIMIT
from .generation import chunk_seed as chunk_seed
from .generation import chunk_size as chunk_size
from .generation import generate as generate
from .judges import SMALL_DEMAND as SMALL_DEMAND
from .judges import VALID_FINDINGS as VALID_FINDINGS
from .judges import invalid_judge, invalid_outcome, valid_judge
from .minimize import shrink
from .pool import Outcome, Pool
from .report import Finding, FuzzConfig, FuzzReport, print_finding, save_finding
from .runs import run_valid_case

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


class ReferenceRunner:
    """Runs valid cases in this process on the CPU reference only (no GPU, no child): the
    generator's own check, and the runner tests use. Outcomes carry the reference result."""

    def __call__(self, value) -> Outcome:
        t = time.monotonic()
        answer, ref = run_valid_case(value, [], [])
        return Outcome(answer["status"], answer.get("detail", ""), answer,
                       seconds=time.monotonic() - t, reference=ref)


def _rss_mib(pid: int | None = None) -> int:
    try:
        with open(f"/proc/{pid or 'self'}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


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
        drawers: Drawers | None = None
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
            # --shard K/N runs chunks K-1, K-1+N, ...: N machines never draw the same one.
            shard = c.shard if c.shard is not None else Shard(1, 1)
            chunks = shard.chunks()
            k = next(chunks)
            processes = _drawing_processes(c)
            ahead: Prefetch | Drawn = Prefetch(c.mode, c.so, c.seed, k, c.gs)
            while not self._time_up() and self._distinct() < c.max_findings:
                values = ahead.result()
                after = next(chunks)
                # The next chunk is drawn while this one runs (the workers would wait for it).
                if processes and drawers is None:
                    drawers = Drawers(c.mode, c.so, c.seed, processes, c.gs, step=shard.count)
                ahead = (drawers.chunk(after) if drawers is not None
                         else Prefetch(c.mode, c.so, c.seed, after, c.gs))
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
                k = after
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

    def _found(self, k: int, i: int, value, outcome: Outcome, kind: str) -> None:
        # hypothesis often draws near copies of a case in a row: a finding whose kind and
        # detail (numbers aside) match an earlier one is saved as is, not shrunk again.
        signature = f"{kind}:{re.sub(r'[0-9]+', 'N', outcome.detail)}"
        if signature in self._signatures:
            f = Finding(kind, outcome.detail, k, i, value, value, outcome, 0, False,
                        duplicate_of=self._signatures[signature])
            f.path = save_finding(self.config, f)
            self.report.findings.append(f)
            self.out.write(f"fuzz: {kind} in case {i} of chunk {k}, probably the same as "
                           f"{f.duplicate_of} (saved unshrunk: {f.path})\n")
            return
        self.out.write(f"{'' if not self._tty else chr(10)}fuzz: {kind} in case {i} of chunk {k}: "
                       f"{outcome.detail[:300]}; shrinking...\n")
        self.out.flush()
        t = time.monotonic()
        minimal, m_outcome, runs, shrunk = shrink(self.config, k, value, kind, outcome,
                                                  self._run_one, self.judge)
        self.report.shrink_seconds += time.monotonic() - t
        f = Finding(kind, m_outcome.detail or outcome.detail, k, i, value, minimal, m_outcome,
                    runs, shrunk)
        key = f"{kind}:{case_digest(minimal)}"
        if key in self._seen_minimal:
            f.duplicate_of = self._signatures[signature] = self._seen_minimal[key]
            self.report.findings.append(f)
            self.out.write(f"fuzz: same minimal case as {f.duplicate_of}\n")
            return
        f.path = save_finding(self.config, f)
        self._seen_minimal[key] = self._signatures[signature] = str(f.path)
        self.report.findings.append(f)
        print_finding(self.out, f)
