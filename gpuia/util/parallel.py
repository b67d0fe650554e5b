"""Row-chunked work on a thread pool, for the host side of large draws (the CPU reference's
decode, the comparison): numpy releases the GIL in its copies, gathers, conversions and
element-wise comparisons, so chunks of rows on a thread per usable core
(:func:`gpuia.util.cores.usable_cores`) use the cores a GPU host gives the process. Small
inputs run on the calling thread: for them a pool costs more than it saves."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from .cores import usable_cores

__all__ = ["CHUNK_ROWS", "row_chunks", "run_tasks", "for_row_chunks"]

CHUNK_ROWS = 1 << 20
"""Rows one task covers. Work over more rows than this runs in chunks of this many rows on the
pool; less runs on the calling thread."""

_pool_lock = threading.Lock()
_pool_state: dict[str, object] = {}


def _pool() -> ThreadPoolExecutor:
    """The thread pool, made on first use and again in a forked child (whose copy of the
    parent's pool has no threads)."""
    with _pool_lock:
        if _pool_state.get("pid") != os.getpid():
            _pool_state["pid"] = os.getpid()
            _pool_state["pool"] = ThreadPoolExecutor(max_workers=usable_cores(),
                                                     thread_name_prefix="gpuia-rows")
        pool = _pool_state["pool"]
        assert isinstance(pool, ThreadPoolExecutor)
        return pool


def row_chunks(n: int) -> list[tuple[int, int]]:
    """``[(start, stop), ...]`` covering rows ``0 .. n - 1`` in pieces of at most
    :data:`CHUNK_ROWS` rows: smaller ones (down to a sixteenth of it) where that gives every
    core two pieces, so that 10M rows on a 16-core host keep all 16 busy rather than 10.

    Arguments:
        n (int): the number of rows.

    Returns:
        list: the half-open row ranges, in order (empty for ``n == 0``).
    """
    if n <= CHUNK_ROWS // 16:  # one piece whatever the cores (no system call per call)
        return [(0, n)] if n else []
    spread = -(-n // (2 * usable_cores()))
    step = max(1, min(CHUNK_ROWS, max(CHUNK_ROWS // 16, spread)))
    return [(a, min(n, a + step)) for a in range(0, n, step)]


def run_tasks(tasks: list[Callable[[], object]], rows: int) -> None:
    """Run ``tasks``: on the pool when there are several and they cover more than
    :data:`CHUNK_ROWS` rows, else in order on this thread. Tasks must write disjoint data.

    Arguments:
        tasks (list): callables without arguments.
        rows (int): the rows the tasks cover together.

    Raises:
        Exception: the first exception a task raised (every task has run or been waited for).
    """
    if len(tasks) > 1 and rows > CHUNK_ROWS:
        futures = [_pool().submit(task) for task in tasks]
        for future in futures:
            future.result()
    else:
        for task in tasks:
            task()


def for_row_chunks(n: int, work: Callable[[int, int], object]) -> None:
    """``work(start, stop)`` for each of :func:`row_chunks`' ranges, as :func:`run_tasks`
    runs them.

    Arguments:
        n (int): the number of rows.
        work: called with each range's start and stop; must write only its own rows.

    Raises:
        Exception: the first exception ``work`` raised.
    """
    run_tasks([functools.partial(work, a, b) for a, b in row_chunks(n)], n)
