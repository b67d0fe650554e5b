"""Jobs run in order on a thread of their own, a bounded number ahead of the caller that takes
their results: the GPU reads of a windowed cross-check (:mod:`gpuia.harness.windowed`) run
while the calling thread works on the windows read before (numpy releases the GIL in its large
operations, wgpu-py while it waits for the GPU).

Guaranteed: the jobs (and the iterator that makes them) run one at a time, in order, on one
thread; at most ``ahead`` results wait untaken or are being made, so the memory of results
beyond the one the caller holds is bounded by ``ahead`` of them; a job's exception comes back
as its result (:meth:`ReadAhead.take` raises nothing of the jobs'). :meth:`ReadAhead.close`
stops the thread between jobs and waits for it, after which nothing runs on it.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["ReadAhead"]

_END = object()  # the iterator is exhausted (or failed: its exception follows it)


class ReadAhead:
    """Run ``jobs`` (``(key, job)`` pairs, ``job()`` without arguments) on a thread started
    here, at most ``ahead`` results ahead of :meth:`take`.

    Arguments:
        jobs: the jobs in the order :meth:`take` wants their results; the iterator itself runs
            on the thread too (it may plan the next job from work of its own).
        ahead (int): results made before they are taken, at least 1.
    """

    def __init__(self, jobs: Iterator[tuple[Any, Callable[[], Any]]], ahead: int = 1):
        self._jobs = jobs
        self._slots = threading.Semaphore(max(1, ahead))
        self._done: queue.SimpleQueue = queue.SimpleQueue()
        self._stop = threading.Event()
        self.busy = 0.0  # seconds the thread spent in the iterator and the jobs
        self._thread = threading.Thread(target=self._run, name="gpuia-read-ahead", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        clock = time.perf_counter
        try:
            while True:
                while not self._slots.acquire(timeout=0.1):  # a slot: a result was taken
                    if self._stop.is_set():
                        return
                if self._stop.is_set():
                    return
                t0 = clock()
                item = next(self._jobs, None)
                if item is None:
                    self.busy += clock() - t0
                    self._done.put((_END, None, None))
                    return
                key, job = item
                try:
                    result, error = job(), None
                except Exception as e:  # noqa: BLE001 (handed to the taker with its key)
                    result, error = None, e
                self.busy += clock() - t0
                self._done.put((key, result, error))
        except BaseException as e:  # noqa: BLE001 (the iterator failed: take() raises it)
            self._done.put((_END, None, e))

    def take(self) -> tuple[Any, Any, BaseException | None]:
        """The next job's ``(key, result, exception)`` (its result None where it raised),
        waiting for it; ``(None, None, None)`` when no job is left.

        Raises:
            Exception: what the jobs' iterator raised (not a job's own exception).
        """
        key, result, error = self._done.get()
        if key is _END:
            self._done.put((_END, None, None))  # every later take() sees the end too
            if error is not None:
                raise error
            return None, None, None
        self._slots.release()
        return key, result, error

    def close(self) -> None:
        """Stop the thread after the job it is running and wait for it; drop what it made."""
        self._stop.set()
        self._slots.release()
        self._thread.join()
        while not self._done.empty():
            self._done.get()
