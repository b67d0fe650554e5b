"""Bounded caches: everything gpuia remembers across draws (signatures, pipelines, views) has a
size limit, so a long-lived process that keeps meeting new layouts and buffers (a fuzz run, an
engine streaming assets) does not grow without bound. Dicts keep insertion order; the oldest
entry goes first. An entry dropped from a cache stays alive while something still uses it
(a pipeline held by a resolved draw state), so eviction never changes what a draw does."""

from __future__ import annotations

__all__ = ["remember", "CACHE_SIZE"]

CACHE_SIZE = 1024


def remember(cache: dict, key, value, limit: int = CACHE_SIZE):
    """Store ``value`` under ``key``, first dropping the oldest entry when ``cache`` holds
    ``limit`` entries; returns ``value``."""
    if len(cache) >= limit and key not in cache:
        del cache[next(iter(cache))]
    cache[key] = value
    return value
