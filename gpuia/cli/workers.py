"""Worker processes for the case commands (docs/scale-out.md): ``--workers N [--timeout S]``,
the loop that hands cases out and prints their answers in case order, and ``gpuia run`` and
``gpuia validate`` on workers (``gpuia check``'s reports are :mod:`gpuia.cli.check_workers`).

Guaranteed: the output is the one process's, case after case in the order given; a worker
that dies or passes ``--timeout`` is replaced and its case run again alone in a new worker with
nothing else in flight, a line naming the case saying so; the cases after it wait for that run.
``run`` and ``validate`` report a case whose worker died twice as ``error: <case>: crash: ...``
(or ``timeout``), exit status 2: the case could not be run. Ctrl-C and SIGTERM kill every worker
at once, with the pool's temporary folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UnsupportedError
from ..util.files import printable
from ..util.progress import Progress
from ..util.worker_pool import Pool, WorkerStartError
from .common import EXIT_INVALID, case_progress, error_line, whole_number

__all__ = ["worker_options", "in_case_order", "write_output", "run_on_workers", "died_line",
           "refuse_without_workers", "adapter_slots", "DIED", "NO_TIMEOUT", "WORKER_COMMAND"]

WORKER_COMMAND = [sys.executable, "-m", "gpuia.cli.check_child"]
NO_TIMEOUT = 1e6  # seconds (11 days; poll() takes no more): a case without --timeout waits
DIED = {"crash": "crash", "hang": "timeout"}  # the pool's outcome -> the case's status


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < NO_TIMEOUT:
        raise argparse.ArgumentTypeError(f"{text}: seconds, more than 0")
    return value


def worker_options(p) -> None:
    """``--workers N`` and ``--timeout S``."""
    p.add_argument("--workers", type=whole_number("a whole number of 1 or more"), default=None,
                   metavar="N",
                   help="run the cases in N worker processes, each with its own devices (with "
                        "--adapter: one of the matching adapters each, round-robin); a worker "
                        "that dies or passes --timeout is replaced and its case run again alone "
                        "(--jobs is threads within one process; docs/scale-out.md)")
    p.add_argument("--timeout", type=_seconds, default=None, metavar="S",
                   help="with --workers: a case taking more than S seconds is a timeout (its "
                        "worker is killed and replaced)")


def adapter_slots(args, count: int, devices: bool = True) -> list[dict] | None:
    """Each of ``count`` workers' own configuration when ``--adapter`` names the adapters
    (and the command opens devices): worker ``k`` opens the ``k``-th of the matching adapters,
    round-robin (:func:`gpuia.gpu.adapters.spread_adapter`); None without ``--adapter``,
    where every worker opens the one preferred adapter."""
    if not devices or not getattr(args, "adapter", None):
        return None
    return [{"adapter_slot": k} for k in range(count)]


def write_output(bar, text: str, file) -> None:
    """A worker's output for one case, as the one process would have printed it."""
    if not text:
        return
    if bar.enabled:
        bar.write(text.rstrip("\n"), file=file)
    else:
        file.write(text)
        file.flush()


def in_case_order(pool: Pool, requests: list[dict], timeout: float, emit, died) -> int:
    """Every request on the pool; ``emit(i, outcome)`` in request order as answers arrive, and
    for a request whose worker died, ``died(i, first, again)`` with the outcome of its run
    again alone on a new worker (the requests after it wait for that). Returns the worst of
    what they return."""
    done: dict = {}
    status, head = 0, 0
    for position, outcome in pool.run(requests, timeout):
        done[position] = outcome
        while head in done and done[head].status not in DIED:
            status = max(status, emit(head, done.pop(head)))
            head += 1
    for i in range(head, len(requests)):  # from the first request whose worker died
        outcome = done.pop(i)
        if outcome.status in DIED:
            # every other worker is idle now: one of its adapter's runs it alone
            again = requests[i] if outcome.group is None else \
                {**requests[i], "group": outcome.group}  # on the adapter it died on
            worker = pool.worker_for(again)
            worker.stop()
            status = max(status, died(i, outcome, worker.run(requests[i], timeout)))
        else:
            status = max(status, emit(i, outcome))
    return status


def died_line(first, again, path: str) -> tuple[str, str | None]:
    """(the line naming a case whose worker died, the case's status when it died again or
    None when its run alone completed)."""
    label = printable(Path(path).stem)
    kind = DIED[first.status]
    if again.status not in DIED:
        return (f"{label}: {kind}: {first.detail}; run again alone in a new worker, it "
                f"completed:\n", None)
    return f"{label}: {kind}: {first.detail}; run again alone in a new worker: {again.detail}", \
        kind


def refuse_without_workers(args, command: str) -> None:
    """Raise UnsupportedError for what ``--workers`` cannot do: ``--timeout`` without it,
    standard input (``-``) as a case."""
    if not args.workers:
        raise UnsupportedError("--timeout S times the cases of --workers N processes: give "
                               "--workers too")
    if "-" in args.cases:
        raise UnsupportedError(f"--workers reads case files; standard input ('-') is read by "
                               f"one process: {command} it without --workers")


def run_on_workers(args, command: str, argv: list[str], devices: bool) -> int:
    """``gpuia <command> CASE <argv>`` for each of ``args.cases`` on ``args.workers`` workers
    (``devices``: each opens the selected adapters' devices first); returns the exit status."""
    try:
        refuse_without_workers(args, command)
    except UnsupportedError as exc:
        error_line(command, exc)
        return EXIT_INVALID
    config = {"mode": "command", "command": command, "argv": argv, "devices": devices,
              "adapter": getattr(args, "adapter", None),
              "gpu_backend": getattr(args, "gpu_backend", None)}
    pool = Pool(config, args.workers, WORKER_COMMAND, adapter_slots(args, args.workers, devices))
    # validate has no --progress: no bar
    bar = case_progress(args, f"gpuia {command}") if hasattr(args, "progress") else \
        Progress(len(args.cases), command, "case", enabled=False)
    requests = [{"id": i, "path": p} for i, p in enumerate(args.cases)]

    def emit(i: int, outcome) -> int:
        write_output(bar, outcome.answer.get("stdout", ""), sys.stdout)
        write_output(bar, outcome.answer.get("stderr", "") + outcome.answer.get("traceback", ""),
                     sys.stderr)
        bar.update(1, Path(args.cases[i]).stem)
        return int(outcome.answer.get("rc", EXIT_INVALID))

    def died(i: int, first, again) -> int:
        line, kind = died_line(first, again, args.cases[i])
        if kind is None:
            write_output(bar, line, sys.stdout)
            return emit(i, again)
        write_output(bar, f"error: {line}\n", sys.stderr)
        bar.update(1, Path(args.cases[i]).stem)
        return EXIT_INVALID

    stopped = True  # until the cases are done: a signal or an error kills every worker now
    try:
        pool.start()
        with bar:
            status = in_case_order(pool, requests, args.timeout or NO_TIMEOUT, emit, died)
        stopped = False
    except WorkerStartError as exc:
        error_line(command, UnsupportedError(exc.detail or str(exc)))
        return EXIT_INVALID
    finally:
        pool.close(at_once=stopped)
    return status
