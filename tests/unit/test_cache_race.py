"""``remember`` (gpuia/gpu/cache.py) under threads writing one cache at once.

The caches are in memory only (no files). Before the fix ``remember`` checked the size, picked
the oldest key and deleted it in three unguarded steps: two threads evicting at once picked the
same oldest key and the second ``del`` raised KeyError (seen within a few thousand calls with a
short switch interval), and two threads storing at ``limit - 1`` entries both skipped eviction
and left the cache over its limit."""

import sys
import threading

import pytest

from gpuia.gpu.cache import remember

LIMIT = 8


@pytest.fixture
def fast_switching():
    """Switch threads every microsecond (CPython's default is 5 ms), so that races show."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _hammer(cache: dict, seed: int, errors: list, sizes: list, rounds: int = 20000) -> None:
    try:
        for i in range(rounds):
            # every other call stores the same key; the rest cycle through 24 keys, so the
            # cache (limit 8) evicts all the time
            key = "same" if i % 2 == 0 else (7 * i + seed) % 24
            assert remember(cache, key, ("value of", key), LIMIT) == ("value of", key)
            sizes.append(len(cache))
    except Exception as e:  # noqa: BLE001 - any exception is the failure being tested
        errors.append(repr(e))


@pytest.mark.parametrize("threads", [2, 4])
def test_threads_hammering_one_cache_never_raise_or_overfill(fast_switching, threads):
    for _ in range(3):
        cache: dict = {}
        errors: list = []
        sizes: list = []
        workers = [threading.Thread(target=_hammer, args=(cache, seed, errors, sizes))
                   for seed in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert errors == []
        assert len(sizes) == 20000 * threads
        assert max(sizes) <= LIMIT
        assert len(cache) <= LIMIT
        # every entry is whole: the value stored for its own key
        assert all(value == ("value of", key) for key, value in cache.items())


def test_a_limit_of_zero_or_one_keeps_only_the_newest_entry():
    cache: dict = {}
    remember(cache, "a", 1, 0)  # before the fix: StopIteration from the empty cache
    remember(cache, "b", 2, 0)
    assert cache == {"b": 2}
    remember(cache, "c", 3, 1)
    assert cache == {"c": 3}
