"""The guards of a context's public calls: one thread at a time (a call from another thread
while one is inside is refused, not waited for), and wgpu's exceptions for what the device does
(lost, out of memory) translated into gpuia's at the calls that reach wgpu."""

from __future__ import annotations

import functools
import threading
import weakref

from ...errors import UnsupportedError
from ..lifetime import wgpu_call

__all__ = ["concurrent_error", "exclusive", "guarded", "weak_call"]

_get_ident = threading.get_ident


def concurrent_error(what: str) -> UnsupportedError:
    """The refusal of ``Context.<what>`` called while another thread is inside the context."""
    return UnsupportedError(
        f"Context.{what}: another thread is inside a call of this Context; a Context is not "
        f"thread-safe (concurrent calls would corrupt its encoder): use one Context per thread "
        f"(the Device and its buffers may be shared). Nothing was changed or recorded")


def exclusive(method):
    """Public calls run one thread at a time: a call from another thread while one is inside
    is refused (a non-blocking lock: no waiting, no deadlock); calls a method makes into the
    context's own public methods (same thread) go through. The object holds the lock in
    ``_lock`` and the thread inside in ``_owner``. The two hottest calls
    (``draw_instanced``, ``ia_set_vertex_buffers``) take the lock inline instead."""
    what = method.__name__

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        lock = self._lock
        if not lock.acquire(False):
            if self._owner == _get_ident():
                return method(self, *args, **kwargs)
            raise concurrent_error(what)
        self._owner = _get_ident()
        try:
            return method(self, *args, **kwargs)
        finally:
            self._owner = None
            lock.release()

    return run


def guarded(method):
    """Public calls that reach wgpu raise gpuia exceptions for what the device does (lost,
    out of memory) instead of wgpu's, one thread at a time (:func:`exclusive`)."""
    what = method.__name__

    def translated(self, *args, **kwargs):
        return wgpu_call(lambda: method(self, *args, **kwargs), what)

    translated.__name__ = what
    return functools.wraps(method)(exclusive(translated))


def weak_call(method):
    """A callable calling bound ``method`` while its object lives (False after): what the
    device holds of a context must not keep it alive."""
    ref = weakref.WeakMethod(method)

    def call():
        m = ref()
        return m() if m is not None else False

    return call
