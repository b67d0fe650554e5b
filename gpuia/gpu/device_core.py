"""What every gpuia device is beneath its resource factories: :class:`DeviceCore`, a wgpu device
with what gpuia read from it and what its resources and contexts rely on.

:class:`~gpuia.gpu.Device` is a DeviceCore that also chooses its adapter, makes or checks its
wgpu device and creates buffers and textures (:mod:`gpuia.gpu.device`). The core is its own
class so that :class:`~gpuia.gpu.buffers.Buffer` can refuse what is no gpuia device without
importing the class that creates buffers.

Guaranteed: the caps are read, and what the limits do not say probed, once, when the core is
made (:class:`~gpuia.gpu.caps.Caps`); an object held under a key is made at most once
(:meth:`DeviceCore.held`); a resource is released by exactly one call
(:meth:`DeviceCore.mark_released`); contexts are registered weakly. All of it is thread-safe.
Refused: nothing; a wgpu device that does not work is the caller's to refuse first.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .adapters import adapter_driver_info
from .caps import Caps, copies_depth, renderable_formats
from .lifetime import ContextWork
from .quirks import quirks_for

if TYPE_CHECKING:  # imported where a device is made: the cpu backend never loads wgpu
    import wgpu

__all__ = ["DeviceCore"]


class DeviceCore:
    """A wgpu device on its adapter, with its caps, its info and the registries gpuia's
    resources and contexts use: the objects held per device, the live contexts, the released
    resources. The base class of :class:`~gpuia.gpu.Device`, which makes it; not made on its own.

    Arguments:
        adapter: the ``wgpu.GPUAdapter`` of ``device``.
        device: the ``wgpu.GPUDevice``, working (the caps are probed on it).
        depth_copies (bool | None): whether the device copies a depth32float texture's depth
            aspect to a buffer, when the caller knows; None probes it.

    Attributes:
        adapter: the ``wgpu.GPUAdapter``.
        device: the ``wgpu.GPUDevice``.
        caps (Caps): what gpuia's decisions depend on.
        info (dict): what :func:`~gpuia.gpu.adapters.adapter_driver_info` says of the adapter.
    """

    def __init__(self, adapter: wgpu.GPUAdapter, device: wgpu.GPUDevice, *,
                 depth_copies: bool | None = None):
        self.adapter = adapter
        self.device = device
        self.caps = replace(Caps.from_wgpu(device.limits, device.features),
                            quirks=quirks_for(adapter.summary),
                            target_formats=renderable_formats(device),
                            depth_copies=(copies_depth(device) if depth_copies is None
                                          else bool(depth_copies)))
        self.info = adapter_driver_info(adapter)
        # The contexts on this device (weakly): a released resource waits for those with
        # unsubmitted work. The lock guards the registry and release() across threads.
        self._contexts: weakref.WeakSet = weakref.WeakSet()
        self._lock = threading.Lock()
        self._held: dict = {}
        self._held_lock = threading.RLock()  # make() may ask for another held object

    def __repr__(self):
        return f"<gpuia.Device {self.info['summary']}>"

    def held(self, key: Hashable, make: Callable[[], object]) -> Any:
        """The object this device keeps under ``key``, made by ``make()`` on first use: for
        what gpuia's layers keep per device (the pipeline cache its contexts share, the raster
        probe). It lives and goes with the device (a table keyed by devices would keep every
        device alive, since these objects refer to it). Thread-safe: ``make`` runs at most once
        per key; an exception from it leaves nothing stored.

        Arguments:
            key: what the object is kept under (the keeping module's own class, or a tuple
                starting with it, so that modules never share a key).
            make: called without arguments, on first use only.

        Returns:
            The object kept under ``key``.

        Raises:
            Exception: whatever ``make`` raised (nothing is kept then).
        """
        with self._held_lock:
            if key not in self._held:
                self._held[key] = make()
            return self._held[key]

    def register_context(self, work: ContextWork) -> None:
        """Register a context of this device: from now on, a released resource waits for its
        submits (:meth:`~gpuia.gpu.buffers.Buffer.release`). Called by
        :class:`~gpuia.gpu.Context`; kept weakly, so a dropped context leaves by itself.

        Arguments:
            work (ContextWork): what the context tells the device of its unsubmitted work.
        """
        with self._lock:
            self._contexts.add(work)

    def context_work(self) -> list:
        """The :class:`~gpuia.gpu.lifetime.ContextWork` of every live context of this device.

        Returns:
            A new list (a snapshot, in no particular order).
        """
        with self._lock:
            return list(self._contexts)

    def mark_released(self, resource: Any) -> bool:
        """Set ``resource.released``, atomically with every other call on this device (two
        threads releasing one resource: exactly one gets True and retires it).

        Arguments:
            resource: a :class:`~gpuia.gpu.buffers.Buffer` or
                :class:`~gpuia.gpu.targets.Texture` of this device.

        Returns:
            True if this call released it, False if it already was released.
        """
        with self._lock:
            if resource.released:
                return False
            resource.released = True
            return True

