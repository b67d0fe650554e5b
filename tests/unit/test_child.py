"""gpuia.util.child: a worker that dies is reported with the reason, and is replaced by the next
request (the time and memory limits, and signals, are tested through ``gpuia layout`` in
tests/tools/test_layout_hostile.py). Every request here is bounded by its timeout."""

from __future__ import annotations

import pytest

from gpuia.util.child import Child, ChildFailed


def test_a_worker_that_dies_is_reported_with_its_last_words_and_replaced():
    child = Child("gpuia.source.worker")
    try:
        with pytest.raises(ChildFailed) as first:
            child.request({"not": "a request"}, timeout=120)  # the worker's handler raises
        assert first.value.reason.startswith("exit status 1: KeyError: ")
        assert first.value.signal is None and not first.value.memory
        assert child.proc is None  # reaped
        with pytest.raises(ChildFailed, match="KeyError"):  # a new worker, the same end
            child.request({"not": "a request"}, timeout=120)
    finally:
        child.stop()


def test_a_module_that_is_not_there_is_a_failure_naming_it():
    child = Child("gpuia.no_such_worker")
    try:
        with pytest.raises(ChildFailed, match=r"exit status 1: .*No module named "
                                              r"gpuia\.no_such_worker"):
            child.request({}, timeout=120)
    finally:
        child.stop()
