"""Bounded caches: everything gpuia remembers across draws (signatures, pipelines, views) has a
size limit, so a long-lived process that keeps meeting new layouts and buffers (a fuzz run, an
engine streaming assets) does not grow without bound. Dicts keep insertion order; the oldest
entry goes first. An entry dropped from a cache stays alive while something still uses it
(a pipeline held by a resolved draw state), so eviction never changes what a draw does.

These caches live in memory only (nothing here is written to disk). Several threads may share
one (the module-wide caches of ``gpuia.gpu.context``, a device's contexts on several threads):
:func:`remember` takes one lock for its check, eviction and store, so concurrent writers never
raise (two evicting the same oldest entry, or iterating a dict another thread resizes) and never
leave a cache over its limit; a reader's ``cache.get(key)`` is a single dict operation, which
sees either the old entry or the new one, whole.
"""

from __future__ import annotations

import threading

__all__ = ["remember", "CACHE_SIZE"]

CACHE_SIZE = 1024

_LOCK = threading.Lock()  # one for all caches: each critical section is a few dict operations


def remember(cache: dict, key, value, limit: int = CACHE_SIZE):
    """Store ``value`` under ``key``, first dropping the oldest entries while ``cache`` holds
    ``limit`` or more of them and ``key`` is new; returns ``value``.

    Guaranteed under concurrent calls on one cache (threads): no exception, ``len(cache) <=
    max(limit, 1)`` afterwards, and the entry under ``key`` is one of the values stored for it,
    never a mix. When two threads store the same key at once the later store wins (both values are
    equivalent for gpuia's caches: each is built from the key alone)."""
    with _LOCK:
        if key not in cache:
            while cache and len(cache) >= limit:
                cache.pop(next(iter(cache)), None)
        cache[key] = value
    return value
