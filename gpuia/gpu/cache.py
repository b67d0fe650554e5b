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
sees either the old entry or the new one, whole. :func:`build_once` is for what is expensive to
build (shader modules, pipelines): one thread builds a missing key while the others that want it
wait for that build instead of compiling the same thing again.
"""

from __future__ import annotations

import threading

__all__ = ["remember", "build_once", "CACHE_SIZE"]

CACHE_SIZE = 1024

_LOCK = threading.Lock()  # one for all caches: each critical section is a few dict operations
# (id of a cache, key) -> the Event of the build under way in some thread
_BUILDING: dict[tuple[int, object], threading.Event] = {}


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


def build_once(cache: dict, key, build, limit: int = CACHE_SIZE):
    """``cache[key]``, built by ``build()`` and stored (:func:`remember`) when missing.

    Guaranteed under concurrent calls (threads): while one thread builds a key of ``cache``, the
    others asking for the same key wait and then take what it stored, so a key is built once
    (two threads at once used to compile the same pipeline twice). A build that raises stores
    nothing and raises in its own thread; each thread that was waiting for it then tries the
    build itself (raising that build's error, if it fails again). Different keys build at the
    same time. ``build`` returns something other than None, and must not ask for the same key of
    the same cache (it would wait for itself)."""
    while True:
        value = cache.get(key)
        if value is not None:
            return value
        mine = threading.Event()
        with _LOCK:
            value = cache.get(key)
            if value is not None:
                return value
            other = _BUILDING.setdefault((id(cache), key), mine)
        if other is not mine:
            other.wait()
            continue
        try:
            value = build()
            remember(cache, key, value, limit)
            return value
        finally:
            with _LOCK:
                _BUILDING.pop((id(cache), key), None)
            mine.set()
