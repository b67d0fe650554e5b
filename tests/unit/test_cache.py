"""Bounded caches (gpuia/gpu/cache.py): the eviction rule itself, with no device; the caches of
a Context drawing on one: tests/gpu/test_cache_gpu.py."""

from gpuia.gpu.cache import remember


def test_remember_drops_the_oldest_entry_at_the_limit():
    cache: dict = {}
    for i in range(10):
        assert remember(cache, i, i * i, limit=4) == i * i
    assert list(cache) == [6, 7, 8, 9]
    remember(cache, 7, "again", limit=4)  # a present key is replaced, nothing dropped
    assert list(cache) == [6, 7, 8, 9] and cache[7] == "again"

