"""gpuia.util.lanes: several items at once on threads, outcomes in the items' order."""

from __future__ import annotations

import threading
import time

import pytest

from gpuia.util.lanes import default_lanes, in_order


def _slow_first(item: int) -> int:
    # Earlier items take longer, so with several lanes they finish last.
    time.sleep(0.002 * (10 - item % 10))
    return item * item


@pytest.mark.parametrize("lanes", [1, 2, 4])
def test_outcomes_come_in_input_order_whatever_finishes_first(lanes):
    items = list(range(30))
    got = [o.get() for o in in_order(iter(items), _slow_first, lanes)]
    assert got == [i * i for i in items]


def test_several_items_really_run_at_once():
    running, most = [0], [0]
    lock = threading.Lock()

    def work(item):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return item

    assert [o.get() for o in in_order(range(12), work, 3)] == list(range(12))
    assert most[0] == 3


def test_an_exception_is_the_items_outcome_in_its_place():
    def work(item):
        if item == 3:
            raise ValueError("three")
        return item

    outcomes = list(in_order(range(6), work, 2))
    assert [o.item for o in outcomes] == list(range(6))
    assert outcomes[3].error is not None and str(outcomes[3].error) == "three"
    with pytest.raises(ValueError, match="three"):
        outcomes[3].get()
    assert [o.get() for i, o in enumerate(outcomes) if i != 3] == [0, 1, 2, 4, 5]


def test_an_item_marked_alone_runs_with_nothing_else_in_flight():
    running, seen_with = [0], {}
    lock = threading.Lock()

    def work(item):
        with lock:
            running[0] += 1
            seen_with[item] = running[0]
        time.sleep(0.005)
        with lock:
            running[0] -= 1
        return threading.current_thread() is threading.main_thread()

    outcomes = list(in_order(range(10), work, 4, alone=lambda item: item == 5))
    assert seen_with[5] == 1
    assert outcomes[5].get() is True  # on the calling thread
    assert not any(o.get() for i, o in enumerate(outcomes) if i != 5)


def test_items_are_taken_at_most_two_lanes_ahead():
    taken = []

    def items():
        for i in range(40):
            taken.append(i)
            yield i

    for o in in_order(items(), lambda i: i, 3):
        # when item k is handed back, no item past k + 2 * lanes + 1 has been read
        assert len(taken) <= o.item + 2 * 3 + 2


def test_stopping_early_drops_what_has_not_started():
    started = []

    def work(item):
        started.append(item)
        time.sleep(0.01)
        return item

    gen = in_order(range(1000), work, 2)
    assert next(gen).get() == 0
    gen.close()
    assert len(started) < 20


def test_default_lanes_is_between_one_and_the_maximum():
    from gpuia.util.lanes import MAX_LANES

    assert 1 <= default_lanes() <= MAX_LANES


def test_default_lanes_follow_the_cores_this_process_may_use(monkeypatch):
    """Two cores of a 64-core host (a container, taskset): two lanes, not MAX_LANES."""
    import os

    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert default_lanes() == 2
