"""``build_once`` (gpuia/gpu/cache.py): threads missing one key of a cache build it once.

Before it, two threads of ``gpuia check --jobs 2`` that met the same layout at once both
compiled its pipeline: 143 render pipelines for 200 fuzz cases where one thread built 100."""

import threading

import pytest

from gpuia.gpu.cache import build_once

WAIT = 10  # seconds: a test thread waits no longer than this for another


def _run(threads: list[threading.Thread]) -> None:
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
        assert not t.is_alive()


def test_a_present_key_is_returned_without_building():
    cache = {"k": "v"}
    assert build_once(cache, "k", lambda: pytest.fail("built a key the cache holds")) == "v"


def test_a_missing_key_is_built_stored_and_returned():
    cache: dict = {}
    assert build_once(cache, "k", lambda: ["made"]) == ["made"]
    assert cache == {"k": ["made"]}


def test_threads_asking_for_one_key_at_once_build_it_once():
    cache: dict = {}
    calls: list = []
    inside = threading.Event()
    release = threading.Event()
    got: list = []

    def build():
        calls.append(1)
        inside.set()
        assert release.wait(WAIT)  # every other thread asks while this build is under way
        return object()

    first = threading.Thread(target=lambda: got.append(build_once(cache, "k", build)))
    first.start()
    assert inside.wait(WAIT)
    others = [threading.Thread(target=lambda: got.append(build_once(cache, "k", build)))
              for _ in range(7)]
    for t in others:
        t.start()
    release.set()
    first.join(WAIT)
    for t in others:
        t.join(WAIT)
    assert len(calls) == 1
    assert len(got) == 8
    assert all(g is cache["k"] for g in got)


def test_a_failed_build_stores_nothing_and_a_waiting_thread_builds_again():
    cache: dict = {}
    calls: list = []
    inside = threading.Event()
    release = threading.Event()
    outcome: dict = {}

    def build():
        calls.append(1)
        if len(calls) == 1:
            inside.set()
            assert release.wait(WAIT)
            raise ValueError("the first build fails")
        return "second"

    def first():
        try:
            build_once(cache, "k", build)
        except ValueError as e:
            outcome["first"] = str(e)

    t1 = threading.Thread(target=first)
    t1.start()
    assert inside.wait(WAIT)
    t2 = threading.Thread(target=lambda: outcome.setdefault("second", build_once(cache, "k",
                                                                               build)))
    t2.start()
    release.set()
    t1.join(WAIT)
    t2.join(WAIT)
    assert outcome == {"first": "the first build fails", "second": "second"}
    assert len(calls) == 2
    assert cache == {"k": "second"}


def test_a_build_that_always_fails_raises_in_every_thread_and_stores_nothing():
    cache: dict = {}
    errors: list = []

    def build():
        raise RuntimeError("refused")

    def ask():
        try:
            build_once(cache, "k", build)
        except RuntimeError as e:
            errors.append(str(e))

    _run([threading.Thread(target=ask) for _ in range(4)])
    assert errors == ["refused"] * 4
    assert cache == {}


def test_different_keys_build_at_the_same_time():
    """Two builds of different keys are both under way at once: each waits at a barrier for
    the other, which times out (BrokenBarrierError) if one build held up the other."""
    cache: dict = {}
    barrier = threading.Barrier(2, timeout=WAIT)
    got: dict = {}

    def build(name):
        barrier.wait()
        return name

    _run([threading.Thread(target=lambda n=n: got.setdefault(n, build_once(
        cache, n, lambda: build(n)))) for n in ("a", "b")])
    assert got == {"a": "a", "b": "b"}
    assert cache == {"a": "a", "b": "b"}


def test_the_same_key_of_two_caches_builds_in_each():
    first: dict = {}
    second: dict = {}
    assert build_once(first, "k", lambda: 1) == 1
    assert build_once(second, "k", lambda: 2) == 2
    assert (first, second) == ({"k": 1}, {"k": 2})


def test_the_cache_stays_within_its_limit():
    cache: dict = {}
    for k in range(5):
        build_once(cache, k, lambda k=k: k, limit=3)
    assert cache == {2: 2, 3: 3, 4: 4}  # the oldest go first
