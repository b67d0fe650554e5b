"""Jobs run on a thread of their own a bounded number ahead (gpuia.harness.read_ahead): results
come back in order with their keys, a job's exception comes back as its result, the iterator's
is raised, no more than ``ahead`` jobs run before their results are taken, and close() stops
the thread between jobs."""

from __future__ import annotations

import threading
import time

import pytest

from gpuia.harness.read_ahead import ReadAhead


def _jobs(n, started, fail_at=None):
    for k in range(n):
        def job(k=k):
            started.append((k, threading.current_thread().name))
            if k == fail_at:
                raise RuntimeError(f"job {k}")
            return k * 10
        yield k, job


def _wait_for(cond, seconds=10.0):
    end = time.monotonic() + seconds
    while not cond() and time.monotonic() < end:
        time.sleep(0.01)


def test_results_in_order_then_the_end():
    started: list = []
    r = ReadAhead(_jobs(4, started))
    assert [r.take() for _ in range(4)] == [(k, k * 10, None) for k in range(4)]
    assert r.take() == (None, None, None)
    assert r.take() == (None, None, None)  # the end stays the end
    assert {name for _, name in started} == {"gpuia-read-ahead"}  # not the calling thread
    r.close()


@pytest.mark.parametrize("ahead", [1, 2])
def test_at_most_ahead_jobs_run_before_their_results_are_taken(ahead):
    started: list = []
    r = ReadAhead(_jobs(6, started), ahead=ahead)
    _wait_for(lambda: len(started) >= ahead)
    time.sleep(0.2)  # time for a job beyond the bound to start, were it allowed
    assert len(started) == ahead
    assert r.take()[0] == 0
    _wait_for(lambda: len(started) >= ahead + 1)
    time.sleep(0.2)
    assert len(started) == ahead + 1
    r.close()
    assert len(started) == ahead + 1  # closed: nothing more ran


def test_a_jobs_exception_is_its_result_and_the_jobs_go_on():
    started: list = []
    r = ReadAhead(_jobs(3, started, fail_at=1))
    assert r.take() == (0, 0, None)
    key, result, error = r.take()
    assert (key, result) == (1, None) and isinstance(error, RuntimeError)
    assert r.take() == (2, 20, None)
    r.close()


def test_the_iterators_exception_is_raised_by_take():
    def jobs():
        yield 0, lambda: 1
        raise ValueError("planning failed")

    r = ReadAhead(jobs())
    assert r.take() == (0, 1, None)
    with pytest.raises(ValueError, match="planning failed"):
        r.take()
    r.close()
