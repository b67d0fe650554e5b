"""``gpuia check --workers N``: the cases run in N worker processes, each owning its devices
(and Slang session), handed out as workers free up (docs/scale-out.md).

Guaranteed: stdout, stderr and every report are those of ``gpuia check`` in one process, case
after case in the order given, apart from timings: each worker runs ``gpuia check FILE`` with the
same options (:mod:`gpuia.cli.check_child`) and the parent prints its output and records its
JSON entry in case order. A worker that dies (a signal, a wgpu-native abort) or passes
``--timeout`` is replaced and its case run again alone, in a new worker, with nothing else in
flight: when it completes, a line ``<case>: crash: ...; run again alone in a new worker, it
completed:`` precedes its result; when it dies again, the case is reported as ``crash`` (or
``timeout``), one line naming it, exit status 1. The cases after a dead worker's case wait for
that re-run before they are printed. Ctrl-C and SIGTERM kill every worker at once, and the pool's
temporary folder goes with them.

With ``--adapter`` (a substring, several separated by commas, or ``all``), each worker opens one
of the matching adapters, round-robin, and each case runs on its worker's adapter alone (its
report entry's ``ran_on`` says which); ``--each-adapter`` runs every case on every matching
adapter and judges whether they agree (:mod:`gpuia.cli.each_adapter`).

Refused (exit 2, one line): standard input (``-``) as a case and ``--plot`` (both need the one
process), and ``--timeout`` without ``--workers``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import GpuiaError, UnsupportedError
from ..harness.check_report import CaseRecord
from ..util.files import make_folder, printable
from ..util.worker_pool import Pool, WorkerStartError
from .check_outputs import write_html, write_junit
from .common import EXIT_DIFF, EXIT_INVALID, case_progress, claim_stems, error_line, writable
from .each_adapter import AdapterRun, join_runs, refuse_each_adapter
from .scale import CheckRecorder
from .workers import (
    NO_TIMEOUT,
    WORKER_COMMAND,
    adapter_slots,
    died_line,
    in_case_order,
    refuse_without_workers,
    write_output,
)

__all__ = ["run_with_workers"]


def _child_argv(args) -> list[str]:
    """The options each worker's ``gpuia check FILE`` takes: the parent's, reports aside."""
    argv = ["--path", args.path, "--rows", str(args.rows), "--max-invocations",
            str(args.max_invocations), "--shader-ulps", str(args.shader_ulps), "--shader-abs",
            repr(args.shader_abs), "--capture", args.capture, "--jobs", "1", "--no-progress"]
    if args.table:
        argv.append("--table")
    if args.raster is not None:
        argv.append("--raster" if args.raster else "--no-raster")
    for option, value in (("--feature-level", args.feature_level), ("--adapter", args.adapter),
                          ("--gpu-backend", args.gpu_backend)):
        if value:
            argv += [option, value]
    return argv


def _run_argv(args) -> list[str]:
    """The options of the ``gpuia run FILE --backend gpu`` whose result ``--each-adapter``
    compares (the worker's pool gives it the worker's adapter)."""
    argv = ["--max-invocations", str(args.max_invocations), "--capture", args.capture]
    return argv + (["--feature-level", args.feature_level] if args.feature_level else [])


def _prepare(args):
    """The refusals and output checks made before any worker starts: returns (recorder, CSV
    folder or None); raises GpuiaError."""
    refuse_each_adapter(args)  # first: without --workers, its own refusal
    refuse_without_workers(args, "check")
    if args.plot:
        raise UnsupportedError("--plot draws every case's values in one process: use it "
                               "without --workers")
    recorder = CheckRecorder(args, [])
    writable("--html", args.html)
    writable("--junit", args.junit)
    csv_dir = None
    if args.csv is not None:
        csv_dir = make_folder(args.csv, "--csv")
        claim_stems(args.cases, "--csv")
    return recorder, csv_dir


def run_with_workers(args) -> int:
    """``gpuia check`` of ``args`` on ``args.workers`` worker processes (module docstring)."""
    try:
        recorder, csv_dir = _prepare(args)
    except GpuiaError as exc:
        error_line("check", exc)
        return EXIT_INVALID
    config = {"mode": "check", "adapter": args.adapter, "gpu_backend": args.gpu_backend,
              "argv": _child_argv(args), "run_argv": _run_argv(args)}
    slots = adapter_slots(args, args.workers)
    pool = Pool(config, args.workers, WORKER_COMMAND, slots)
    stopped = True  # until the cases are done: a signal or an error kills every worker now
    try:
        pool.start()
        adapters = _spread(args, pool) if slots else {}
        infos: dict = {}
        unavailable: list = []
        for w in sorted(pool.workers, key=lambda w: w.ready.get("group", 0)):
            infos.update(w.ready["infos"])
            unavailable += [u for u in w.ready["unavailable"] if u not in unavailable]
        for summary, reason in unavailable:
            print(f"{summary}: unavailable: {reason}")
        recorder.start(csv_dir, infos, unavailable)  # --shard's part
        bar = case_progress(args, "gpuia check")
        with bar, recorder.saving():
            if args.each_adapter:
                status = _each_adapter(args, pool, recorder, bar, adapters)
            else:
                status = _run_cases(args, pool, recorder, bar, csv_dir)
        stopped = False
    except WorkerStartError as exc:  # at start, or a replacement worker (no device now)
        error_line("check", UnsupportedError(exc.detail or str(exc)))
        return EXIT_INVALID
    finally:
        pool.close(at_once=stopped)
    try:
        if args.junit:
            write_junit(args.junit, recorder.report)
        if args.html:
            write_html(args.html, recorder.report, getattr(args, "command_line", None))
    except (OSError, GpuiaError) as exc:
        error_line("check", exc)
        return EXIT_INVALID
    return recorder.finish(status)


def _run_cases(args, pool: Pool, recorder: CheckRecorder, bar, csv_dir) -> int:
    """Every case on the pool, printed and recorded in case order; returns the worst status."""
    paths = list(args.cases)
    requests = [{"id": i, "path": p, "html": bool(args.html),
                 "csv": None if csv_dir is None else str(Path(csv_dir).resolve())}
                for i, p in enumerate(paths)]

    def emit(i: int, outcome) -> int:
        return _emit(outcome, paths[i], recorder, bar)

    def died(i: int, first, again) -> int:
        line, kind = died_line(first, again, paths[i])
        if kind is None:
            write_output(bar, line, sys.stdout)
            return _emit(again, paths[i], recorder, bar)
        write_output(bar, line + "\n", sys.stdout)
        label = printable(Path(paths[i]).stem)
        message = line[len(label) + 2:]  # after "<label>: "
        recorder.add(CaseRecord(0, printable(paths[i]), label, None, message, outcome=kind,
                                ran_on=None if first.group is None else [first.group]))
        bar.update(1, label)
        return EXIT_DIFF

    return in_case_order(pool, requests, args.timeout or NO_TIMEOUT, emit, died)


def _spread(args, pool: Pool) -> dict[int, str]:
    """The adapters the workers opened (position in wgpu's enumeration -> summary), in that
    order; with ``--each-adapter``, workers started first for adapters that have none (fewer
    workers than adapters)."""
    count = pool.workers[0].ready["adapters_matching"]
    if args.each_adapter and len(pool.workers) < count:
        pool.grow([{"adapter_slot": k} for k in range(len(pool.workers), count)])
    return dict(sorted((w.ready["group"], next(iter(w.ready["infos"])))
                       for w in pool.workers))


def _each_adapter(args, pool: Pool, recorder: CheckRecorder, bar,
                  adapters: dict[int, str]) -> int:
    """Every case on every adapter's workers, each case's runs joined, printed and recorded
    in case order (:mod:`gpuia.cli.each_adapter`); returns the worst status."""
    paths, groups = list(args.cases), list(adapters)
    requests = [{"id": j, "path": p, "group": g, "digest": True}
                for j, (p, g) in enumerate((p, g) for p in paths for g in groups)]
    runs: dict[int, list[AdapterRun]] = {}

    def collect(j: int, run: AdapterRun) -> int:
        i = j // len(groups)
        runs.setdefault(i, []).append(run)
        return _emit_joined(runs.pop(i), paths[i], recorder, bar) \
            if len(runs[i]) == len(groups) else 0

    def emit(j: int, outcome) -> int:
        g = groups[j % len(groups)]
        doc = outcome.answer.get("record")
        return collect(j, AdapterRun(g, adapters[g], outcome.answer, outcome.answer.get("digest"),
                                     record=None if doc is None else CaseRecord.from_json(doc)))

    def died(j: int, first, again) -> int:
        line, kind = died_line(first, again, paths[j // len(groups)])
        g = groups[j % len(groups)]
        write_output(bar, f"#{g} {adapters[g]}: {line}" + ("" if kind is None else "\n"),
                     sys.stdout)
        if kind is None:
            return emit(j, again)
        label = printable(Path(paths[j // len(groups)]).stem)
        return collect(j, AdapterRun(g, adapters[g], died=line[len(label) + 2:], kind=kind))

    return in_case_order(pool, requests, args.timeout or NO_TIMEOUT, emit, died)


def _emit_joined(runs: list[AdapterRun], path: str, recorder: CheckRecorder, bar) -> int:
    """Print every adapter's output of one case and the agreement line, record the joined
    case; returns its exit status."""
    printed: list[str] = []
    for run in runs:
        answer = run.answer or {}
        write_output(bar, answer.get("stdout", ""), sys.stdout)
        err = answer.get("stderr", "") + answer.get("traceback", "")
        if err not in printed:  # an invalid case's error line: once, not once per adapter
            printed.append(err)
            write_output(bar, err, sys.stderr)
    record, agreement = join_runs(runs, printable(path), printable(Path(path).stem))
    write_output(bar, agreement, sys.stdout)
    recorder.add(record)
    bar.update(1, record.case)
    status = max(int(r.answer.get("rc", EXIT_INVALID)) for r in runs if r.answer is not None) \
        if all(r.answer is not None for r in runs) else EXIT_DIFF
    return max(status, EXIT_DIFF if record.as_json()["status"] == "fail" else 0)


def _emit(outcome, path: str, recorder: CheckRecorder, bar) -> int:
    """Print a worker's answer for one case and record it; returns its exit status."""
    answer = outcome.answer
    write_output(bar, answer.get("stdout", ""), sys.stdout)
    write_output(bar, answer.get("stderr", "") + answer.get("traceback", ""), sys.stderr)
    doc = answer.get("record")
    label = Path(path).stem
    if doc is not None:
        record = CaseRecord.from_json(doc)
    else:  # the command raised before recording the case (its traceback is printed above)
        record = CaseRecord(0, printable(path), printable(label), None,
                            "the worker's check ended with an exception")
    if "adapter_index" in answer:  # a worker of several adapters: the one this case ran on
        record.ran_on = [answer["adapter_index"]]
    recorder.add(record)
    bar.update(1, record.case)
    return int(answer.get("rc", EXIT_INVALID))
