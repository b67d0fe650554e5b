"""Work on several items at once, on threads, with results handed back in the items' order.

``gpuia check`` of many small cases spends much of a case waiting: for the GPU to run its draws
and hand back the records, for the driver to compile a pipeline. Those waits release the GIL, so
while one case waits another can run its Python (the CPU reference, planning, comparison). A
:func:`in_order` loop keeps up to ``lanes`` items in flight on a thread pool and yields each
item's outcome in input order, so everything printed or written stays exactly what a one-by-one
loop gives. Items that ``alone(item)`` marks (large cases, which use every core through
:mod:`gpuia.util.parallel` themselves) run by themselves, after the items before them are done
and before any later one starts.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .cores import usable_cores

__all__ = ["Outcome", "in_order", "default_lanes", "MAX_LANES"]

T = TypeVar("T")

MAX_LANES = 8
"""The most lanes :func:`default_lanes` picks. The Python of the cases shares one GIL, but a
driver compiling a pipeline does not hold it, and a first run of new layouts compiles one for
most cases (tens of milliseconds each on a GPU driver): lanes let those compiles run side by
side."""


def default_lanes() -> int:
    """Lanes for this process: one per core it may run on, at most :data:`MAX_LANES`."""
    return min(MAX_LANES, usable_cores())


@dataclass
class Outcome(Generic[T]):
    """What ``work(item)`` gave: its ``value``, or the exception it raised (``error``)."""

    item: T
    value: Any = None
    error: BaseException | None = None

    def get(self) -> Any:
        """The value, or the exception raised again."""
        if self.error is not None:
            raise self.error
        return self.value


def _run(work: Callable[[T], Any], item: T) -> Outcome[T]:
    try:
        return Outcome(item, work(item))
    except Exception as e:  # noqa: BLE001 - handed to the caller, in order, by Outcome.get
        return Outcome(item, error=e)


def in_order(items: Iterable[T], work: Callable[[T], Any], lanes: int,
             alone: Callable[[T], bool] = lambda item: False) -> Iterator[Outcome[T]]:
    """``Outcome(item, work(item))`` for every item, in the order of ``items``.

    With ``lanes`` above 1, up to ``lanes`` items run at once on as many threads, and at most
    ``2 * lanes`` are taken from ``items`` ahead of the one being yielded (their results wait
    in memory). ``work`` must be safe to run on several threads at once for different items.
    An item for which ``alone(item)`` is true runs on the calling thread with nothing else in
    flight. An exception ``work`` raises (an ``Exception``) is kept in the item's outcome and
    raised by :meth:`Outcome.get`; what is still in flight when the caller stops iterating is
    finished (never abandoned mid-way on a device), and items not yet started are dropped.

    Arguments:
        items: the items, taken lazily.
        work: the function run on each item.
        lanes (int): items at once (1 or less: one by one on the calling thread).
        alone: the items that must run by themselves.

    Yields:
        One :class:`Outcome` per item, in order.
    """
    if lanes <= 1:
        for item in items:
            yield _run(work, item)
        return
    pending: deque[Future] = deque()
    pool = ThreadPoolExecutor(max_workers=lanes, thread_name_prefix="gpuia-lane")
    try:
        for item in items:
            if alone(item):
                while pending:
                    yield pending.popleft().result()
                yield _run(work, item)
                continue
            pending.append(pool.submit(_run, work, item))
            while len(pending) > 2 * lanes:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
