"""The lifetime of gpuia's GPU resources and what wgpu's errors mean for gpuia.

A released Buffer or Texture keeps its wgpu objects until every context that may have encoded
them has submitted (:class:`ContextWork`); :data:`RELEASES` counts releases, so a context re-checks
what it has bound only after one. wgpu's own exceptions for a lost device or exhausted memory
become gpuia's (:func:`wgpu_call`)."""

from __future__ import annotations

import weakref

from ..errors import (
    DeviceLostError,
    GpuiaError,
    GpuOutOfMemoryError,
    InvalidDescError,
    UnsupportedError,
)

__all__ = ["import_wgpu", "device_error", "wgpu_call", "RELEASES", "is_released", "ContextWork",
           "release_resource", "intercept_destroy", "released_error"]


def import_wgpu():
    """The ``wgpu`` module, imported on first use (the GPU side is optional at import time:
    ``gpuia validate`` never loads it)."""
    try:
        import wgpu  # noqa: PLC0415
    except ImportError as e:  # pragma: no cover - wgpu is a core dependency
        raise UnsupportedError(f"wgpu is not installed: {e}") from None
    return wgpu


def device_error(exc: BaseException, what: str) -> GpuiaError | None:
    """The gpuia exception for a wgpu error caused by the device rather than by the input: a lost
    device (:class:`DeviceLostError`) or an allocation failure (:class:`GpuOutOfMemoryError`);
    None for anything else."""
    text = " ".join(str(exc).split())
    if "device is lost" in text.lower() or "device lost" in text.lower():
        return DeviceLostError(
            f"{what}: the GPU device was lost; create a new Device ({text[:300]})")
    if isinstance(exc, MemoryError):
        return GpuOutOfMemoryError(f"{what}: the adapter is out of memory ({text[:300]})")
    return None


def wgpu_call(fn, what: str):
    """Run ``fn()``; a wgpu error becomes a gpuia exception (gpuia validates its input before
    calling wgpu, so what remains is the device's doing, or a refusal reported as
    :class:`UnsupportedError`)."""
    wgpu = import_wgpu()
    try:
        return fn()
    except wgpu.GPUError as e:
        raise device_error(e, what) or UnsupportedError(
            f"{what}: wgpu refused it: {' '.join(str(e).split())[:300]}") from None


RELEASES = [0]
"""How many Buffers and Textures were released in this process; a context whose last resolved
draw state is older re-checks what it has bound before its next draw (one comparison per draw)."""


class _Retiring:
    """The wgpu objects of a released Buffer or Texture, destroyed once each context that may
    have encoded them (ids in ``waiting``) has submitted or dropped its work; then ``after``
    runs (it drops the host copy)."""

    __slots__ = ("objects", "waiting", "after")

    def __init__(self, objects: tuple, waiting: set, after):
        self.objects, self.waiting, self.after = objects, waiting, after

    def done(self, ctx_id: int) -> None:
        self.waiting.discard(ctx_id)
        if not self.waiting and self.objects:
            objects, self.objects = self.objects, ()  # once, if two contexts finish together
            _destroy(objects)
            if self.after is not None:
                self.after()


def _destroy(objects) -> None:
    for obj in objects:
        destroy = getattr(type(obj), "destroy", None)  # the class's: past gpuia's hook
        if destroy is not None:
            try:
                destroy(obj)
            except Exception:  # noqa: BLE001  # pragma: no cover - a lost device: nothing to free
                pass


def is_released(wobj) -> bool:
    """Whether ``wobj``, a wgpu object gpuia created, belongs to a released Buffer or Texture
    (for checks that hold only the wgpu object, such as a Stream Output counter)."""
    return getattr(wobj, "_gpuia_released", False)


class ContextWork:
    """What a context tells its device about its unsubmitted work: ``may_hold_work()`` (it may
    hold encoded draws not yet submitted, or is inside a call), and ``retiring``, the released
    resources waiting for its next submit (each told ``done(id(this))`` then)."""

    __slots__ = ("may_hold_work", "retiring", "__weakref__")

    def __init__(self, may_hold_work):
        self.may_hold_work = may_hold_work
        self.retiring: list = []

    def retire(self) -> None:
        """After a submit (or when the context is dropped): release what waited for it. In
        place: pop is atomic, so an entry another thread appends meanwhile is not lost."""
        entries = self.retiring
        while entries:
            entries.pop().done(id(self))


def release_resource(owner, objects: tuple, after=None) -> None:
    """Retire ``objects`` (the wgpu objects of ``owner``, a gpuia Buffer or Texture already
    marked released): destroyed now when no context of its device may have encoded them,
    otherwise after those contexts' next submit (:meth:`Context.flush`, end_capture); then
    ``after()``. The owner keeps its references (``.wgpu``): a draw that passed its checks
    on another thread just before the release still reads them."""
    for obj in objects:
        try:
            obj._gpuia_released = True  # seen by is_released, which holds only the wgpu object
        except AttributeError:  # pragma: no cover - a wgpu-py without instance attributes
            pass
    RELEASES[0] += 1
    if not objects:
        return
    device = owner.device
    waiting = [work for work in device.context_work() if work.may_hold_work()]
    entry = _Retiring(objects, {id(work) for work in waiting}, after)
    if not waiting:
        entry.done(0)
        return
    for work in waiting:
        work.retiring.append(entry)


def intercept_destroy(owner, wobj) -> None:
    """Make ``wobj.destroy()`` on a wgpu object gpuia created do ``owner.release()``: a plain
    destroy would abort the process at the next submit of a draw that uses it (wgpu-py cannot
    tell gpuia it happened). Weak references only: no cycle keeps GPU memory alive."""
    owner_ref, wobj_ref = weakref.ref(owner), weakref.ref(wobj)

    def destroy():
        o = owner_ref()
        if o is not None:
            o.release()
            return
        w = wobj_ref()
        if w is not None and not is_released(w):
            _destroy((w,))  # its gpuia owner is gone, and with it every draw that used it

    try:
        wobj.destroy = destroy
    except AttributeError:  # pragma: no cover - a wgpu-py without instance attributes
        pass


def released_error(where: str, field_name: str, obj) -> InvalidDescError:
    """The error for a use of a released resource (returned, not raised: the caller raises
    it, so the traceback ends where the use was found).

    Arguments:
        where (str): the call that found it (``"draw"``).
        field_name (str): the binding that holds it (``"IA slot 0 buffer"``).
        obj: the released :class:`~gpuia.gpu.buffers.Buffer` or
            :class:`~gpuia.gpu.targets.Texture`.

    Returns:
        An :class:`InvalidDescError` naming ``where``, ``field_name`` and the object, telling
        the user to create a new one.
    """
    kind = type(obj).__name__
    return InvalidDescError(where, field_name, obj,
                            f"this {kind} was released ({kind}.release(), or its .wgpu "
                            f"destroyed); create a new one")
