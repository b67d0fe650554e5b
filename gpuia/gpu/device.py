"""The gpuia device: :class:`Device`, the shared devices of :func:`get_device`, and
:class:`DevicePool`, which keeps one device per adapter for callers that run many checks.

A :class:`Device` is made on an adapter gpuia chooses (:func:`~gpuia.gpu.select_adapter`) or
wraps a wgpu device the application already has (:meth:`Device.from_wgpu`); it creates gpuia's
resources (:class:`~gpuia.gpu.buffers.Buffer`, :class:`~gpuia.gpu.targets.Texture`).

Guaranteed: a Device's caps are read from its own wgpu device, never assumed
(:class:`~gpuia.gpu.caps.Caps`); resources belong to one Device; :func:`get_device` returns one
Device per (adapter substring, backend) and a :class:`DevicePool` one per adapter, from any
thread, and neither keeps a device that could not be made. Refused with
:class:`~gpuia.errors.UnsupportedError`: an adapter no selection matches, one on which wgpu makes
no device (with wgpu's reason), and a wgpu device that is lost or not wgpu-py's native one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..errors import GpuiaError, InvalidDescError, UnsupportedError
from .adapters import request_device, select_adapter, select_adapters
from .buffers import Buffer, HostData, host_bytes
from .caps import FEATURES, device_alive
from .device_core import DeviceCore
from .lifetime import import_wgpu
from .targets import Texture
from .wgpu_log import held_wgpu_log

if TYPE_CHECKING:  # imported where a device is made: the cpu backend never loads wgpu
    import wgpu

__all__ = ["Device", "get_device", "DevicePool"]


class Device(DeviceCore):
    """A wgpu device on a chosen adapter, with what gpuia needs from it.

    The device is made with the features gpuia uses where the adapter has them
    (``vertex-writable-storage``, ``indirect-first-instance``); :attr:`caps` then holds its
    limits and features, the adapter's quirks, and two probes: the target formats it renders
    into and whether it copies depth out. On an adapter with the
    :data:`~gpuia.gpu.quirks.ONE_DEVICE` quirk, Devices share one wgpu device per adapter for
    the whole process (a lost one is replaced when the next Device is made); each Device still
    has its own caches and contexts. Buffers, textures and contexts belong to one Device and
    are refused on another. A Device may be shared by threads.

    Arguments:
        adapter: a ``wgpu.GPUAdapter``, or None to use :func:`select_adapter`.
        adapter_name (str): substring to select the adapter (see :func:`select_adapter`);
            ignored when ``adapter`` is given.
        backend (str): backend to select the adapter; ignored when ``adapter`` is given.
        private (bool): a wgpu device of its own even on an adapter whose Devices share one
            (:data:`~gpuia.gpu.quirks.ONE_DEVICE`: wgpu's OpenGL backend); there gpuia keeps
            it alive until the process ends, since dropping it would break the adapter's other
            devices. For code that destroys ``.device`` on purpose; make few.

    Raises:
        UnsupportedError: no adapter matches, or wgpu makes no device on it (the message
            names the adapter and wgpu's reason, and the cause where it is known).

    Attributes:
        adapter: the ``wgpu.GPUAdapter``.
        device: the ``wgpu.GPUDevice``.
        caps (Caps): what gpuia's decisions depend on.
        info (dict): the adapter's ``name``, ``backend``, ``type``, ``summary``, and what
            reproduces a result on another machine: ``driver`` (the driver's description, e.g.
            ``"Mesa 22.3.6 (LLVM 15.0.6)"``), ``vendor``, ``vendor_id``, ``device_id`` and
            ``wgpu_native`` (the wgpu-native version), as
            :func:`~gpuia.gpu.adapters.adapter_driver_info` gives.
    """

    def __init__(self, adapter: wgpu.GPUAdapter | None = None, *, adapter_name: str | None = None,
                 backend: str | None = None,
                 private: bool = False):
        if adapter is None:
            adapter = select_adapter(adapter_name, backend)
        features = [f for f in FEATURES if f in adapter.features]
        try:
            with held_wgpu_log() as logged:  # a cause wgpu logs goes into the error, once
                device = request_device(adapter, features, private)
        except Exception as e:  # noqa: BLE001 - any refusal: UnsupportedError with its text
            text = " ".join(str(e).split())
            if logged:
                text += f" (wgpu logged: {' '.join(' '.join(m.split()) for m in logged)})"
            if "Parent device is lost" in text and adapter.info.get("backend_type") == "OpenGL":
                # Measured on NVIDIA's driver (580, EGL): wgpu-core's indirect-draw validation
                # builds a compute pipeline while making the device, and the GL context wgpu's
                # backend makes there has no compute shaders, so no device comes out at all.
                text += (" (wgpu's OpenGL backend could not build its internal compute pipeline "
                         "on this driver: the GL context it made has no compute shaders; "
                         "docs/known-adapter-issues.md)")
            raise UnsupportedError(f"cannot create a device on {adapter.summary}: {text}") from None
        super().__init__(adapter, device)

    @classmethod
    def from_wgpu(cls, device: wgpu.GPUDevice, *, depth_copies: bool | None = None) -> Device:
        """A gpuia Device on a ``wgpu.GPUDevice`` the application already has (pygfx's,
        rendercanvas's, its own), so contexts, captures and cross-checks run on that device
        and share buffers with the application's own work.

        The application keeps the device: gpuia never destroys it, and dropping the Device
        leaves it working. gpuia's caps come from the device's own limits and features (a
        device made without ``vertex-writable-storage`` or ``indirect-first-instance`` gets
        the paths that need none). gpuia probes the device once: a 1x1 texture of each target
        format, and, unless ``depth_copies`` says, one 1x1 depth-to-buffer copy (on a device
        that refuses it, a validation error the device's uncaptured-error handler sees).

        Arguments:
            device: a ``wgpu.GPUDevice`` of wgpu-py's native backend.
            depth_copies (bool | None): whether the device copies a depth32float texture's
                depth aspect to a buffer, when the application knows (then no copy is
                submitted); None probes it.

        Returns:
            Device: ``.device`` is ``device`` itself; ``.adapter`` is its adapter.

        Raises:
            UnsupportedError: ``device`` is not a wgpu-py native device, or is lost.
        """
        import_wgpu()
        from wgpu.backends.wgpu_native import GPUDevice

        if not isinstance(device, GPUDevice):
            raise UnsupportedError(f"Device.from_wgpu: {type(device).__name__} is not a wgpu-py "
                                   "GPUDevice of the wgpu_native backend (gpuia calls "
                                   "wgpu-native directly)")
        if not device_alive(device):
            raise UnsupportedError("Device.from_wgpu: the wgpu device is lost or destroyed")
        self = cls.__new__(cls)
        DeviceCore.__init__(self, device.adapter, device, depth_copies=depth_copies)
        return self

    def create_buffer(self, data: HostData | None = None, *, size: int | None = None,
                      bind: Iterable[str] | str = ("vertex_buffer",), label: str = "") -> Buffer:
        """A :class:`~gpuia.gpu.buffers.Buffer` with the given D3D bind flags, from ``data`` or
        zero-filled of ``size`` bytes. ``data`` is bytes-like or a numpy array of a numeric or
        structured dtype; an array that is not C-contiguous is copied in C order first. Python
        lists, str and object/string/datetime arrays are refused
        (:func:`~gpuia.gpu.buffers.host_bytes`).

        Arguments:
            data: the initial contents, kept as the buffer's read-only host copy (``bytes``
                as they are, anything else copied); None for a zero-filled buffer without one.
            size (int): bytes; with ``data`` it must equal ``data``'s byte count.
            bind: D3D bind flags from :data:`~gpuia.gpu.buffers.BIND_FLAGS`, one str or an
                iterable of them.
            label (str): the wgpu buffer's label.

        Returns:
            The :class:`~gpuia.gpu.buffers.Buffer`.

        Raises:
            InvalidDescError: neither ``data`` nor ``size`` given, ``size`` no integer or not
                ``data``'s length, or any refusal of the :class:`~gpuia.gpu.buffers.Buffer`
                constructor.
            UnsupportedError: the buffer exceeds the adapter's limits, or wgpu refused it.
            DeviceLostError: the device was lost.
            GpuOutOfMemoryError: the adapter is out of memory.
        """
        if data is not None:
            raw = host_bytes(data)
            n = raw.shape[0]
            if size is not None and size != n:
                raise InvalidDescError("Buffer", "size", size, f"data has {n} bytes")
            size = n
            if not isinstance(data, bytes):  # bytes go as they are: the Buffer keeps them
                data = raw
        if size is None:
            raise InvalidDescError("Buffer", "size", None, "give data or a size")
        if type(size) is not int:
            raise InvalidDescError("Buffer", "size", size, "must be an integer")
        return Buffer(self, size, bind, data, label)

    def create_render_target(self, width: int, height: int,
                             format: str = "R8G8B8A8_UNORM") -> Texture:
        """A color :class:`~gpuia.gpu.targets.Texture` to render into (and read back), owned by
        gpuia (:meth:`~gpuia.gpu.targets.Texture.release` frees it).

        Arguments:
            width, height (int): the size in texels, each in 1..``max-texture-dimension-2d``.
            format: a color format of :data:`~gpuia.gpu.targets.TARGET_FORMATS` (DXGI name,
                ``DXGI_FORMAT_`` prefix optional).

        Returns:
            The :class:`~gpuia.gpu.targets.Texture`.

        Raises:
            InvalidDescError: the format is unknown or a depth format, or a size is out of
                range.
            UnsupportedError: this device cannot render into the format (the message lists
                those it can), or wgpu refused the texture.
            DeviceLostError: the device was lost.
            GpuOutOfMemoryError: the adapter is out of memory.
        """
        return Texture.create(self, width, height, format, depth=False)

    def create_depth_stencil(self, width: int, height: int, format: str = "D32_FLOAT") -> Texture:
        """A depth(-stencil) :class:`~gpuia.gpu.targets.Texture`, owned by gpuia.

        Arguments:
            width, height (int): the size in texels, each in 1..``max-texture-dimension-2d``.
            format: a depth format of :data:`~gpuia.gpu.targets.TARGET_FORMATS` (``D32_FLOAT``,
                ``D16_UNORM`` or ``D24_UNORM_S8_UINT``; ``DXGI_FORMAT_`` prefix optional).

        Returns:
            The :class:`~gpuia.gpu.targets.Texture`.

        Raises:
            InvalidDescError: the format is unknown or a color format, or a size is out of
                range.
            UnsupportedError: this device cannot render into the format, or wgpu refused the
                texture.
            DeviceLostError: the device was lost.
            GpuOutOfMemoryError: the adapter is out of memory.
        """
        return Texture.create(self, width, height, format, depth=True)


_DEFAULT: dict = {}
_DEFAULT_LOCK = threading.Lock()  # threads asking at once get the same Device


def get_device(adapter_name: str | None = None, backend: str | None = None) -> Device:
    """A shared :class:`Device` per (adapter substring, backend), created on first use; later
    calls with the same pair (after the env defaults) return the same Device, from any thread.
    A Device that was lost is returned as it is (make a new :class:`Device`, or use a
    :class:`DevicePool` and clear it).

    Arguments:
        adapter_name (str | None): substring of the adapter summary (see
            :func:`select_adapter`). Default: env ``GPUIA_ADAPTER``.
        backend (str | None): the wgpu backend. Default: env ``GPUIA_BACKEND``.

    Returns:
        The :class:`Device`.

    Raises:
        UnsupportedError: no adapter matches, or no device can be made on it (nothing is
            kept then: the next call tries again).
    """
    key = (adapter_name or os.environ.get("GPUIA_ADAPTER"),
           backend or os.environ.get("GPUIA_BACKEND"))
    with _DEFAULT_LOCK:
        if key not in _DEFAULT:
            _DEFAULT[key] = Device(adapter_name=key[0], backend=key[1])
        return _DEFAULT[key]


class DevicePool:
    """Devices kept for reuse by code that runs many checks in one process (a caller of the
    command line's ``main``, the fuzzer's children): one :class:`Device` per adapter, made on
    first use. Making a device costs 0.1-0.4 s on an NVIDIA driver, more when many processes
    do it at once, and a fuzzer's child runs thousands of checks.

    Guaranteed: :meth:`get` returns the same :class:`Device` for the same wgpu adapter until
    :meth:`clear`; two identical GPUs are two adapters, so two devices. A device that could not
    be made is not kept (the next :meth:`get` tries again). One pool may be shared by threads.

    Arguments:
        make: makes a device from a wgpu adapter (default :class:`Device`); a test passes a
            factory of its own, e.g. one making private devices it may destroy.
    """

    def __init__(self, make: Callable[[wgpu.GPUAdapter], Device] | None = None):
        self._make = make or Device
        # id(adapter) -> (adapter, Device); the adapter is held so that its id stays its own.
        self._kept: dict[int, tuple] = {}
        self._lock = threading.Lock()
        self._pinned = None  # the one adapter of a worker spread over several (pin())

    def __len__(self) -> int:
        """How many devices are kept."""
        with self._lock:
            return len(self._kept)

    def get(self, adapter: wgpu.GPUAdapter) -> Device:
        """The kept device of ``adapter``, made now when there is none.

        Arguments:
            adapter: a ``wgpu.GPUAdapter`` (one of :func:`select_adapter`'s).

        Returns:
            The :class:`Device` (the same one until :meth:`clear`).

        Raises:
            UnsupportedError: the default factory cannot make a device on ``adapter`` (the
                message names it); a factory of the caller's raises what it raises. Nothing
                is kept then.
        """
        with self._lock:
            kept = self._kept.get(id(adapter))
            if kept is None:
                kept = self._kept[id(adapter)] = (adapter, self._make(adapter))
            return kept[1]

    def select(self, adapter: str | None = None,
               backend: str | None = None) -> tuple[list[Device], list[tuple[str, str]]]:
        """The devices of the adapters an ``--adapter`` option selects: with ``adapter`` (a
        substring of the summary, or ``"all"``) every adapter matching it and ``backend``; without,
        the one :func:`select_adapter` prefers (env ``GPUIA_ADAPTER``, ``GPUIA_BACKEND``); in a pool
        :meth:`pin` pinned, that one adapter. An adapter whose device cannot be made (a gpuia
        exception) is reported, not raised.

        Arguments:
            adapter (str | None): the ``--adapter`` value.
            backend (str | None): the wgpu backend (``--gpu-backend``); None: env
                ``GPUIA_BACKEND`` where no ``adapter`` is given, any backend otherwise.

        Returns:
            ``(devices, unavailable)``: the devices that could be made or were kept, in
            adapter order, and ``(summary, reason)`` for each adapter where none could be made.

        Raises:
            UnsupportedError: no adapter matches, or wgpu cannot enumerate adapters.
        """
        if self._pinned is not None:
            chosen = [self._pinned]
        elif adapter:
            chosen = select_adapters(adapter, backend)
        else:
            chosen = [select_adapter(None, backend)]
        devices, unavailable = [], []
        for a in chosen:
            try:
                devices.append(self.get(a))
            except GpuiaError as exc:  # e.g. a GL context a headless machine cannot give
                unavailable.append((a.summary, " ".join(str(exc).split())))
        return devices, unavailable

    def pin(self, adapter: wgpu.GPUAdapter) -> None:
        """From now on :meth:`select` gives ``adapter``'s device whatever it is asked: a worker
        process of ``--workers N --adapter A,B`` runs every command on its own adapter alone
        (docs/scale-out.md). :meth:`clear` keeps the pin.

        Arguments:
            adapter: the ``wgpu.GPUAdapter`` (one of
                :func:`~gpuia.gpu.adapters.select_adapters`').
        """
        self._pinned = adapter

    @property
    def pinned(self) -> wgpu.GPUAdapter | None:
        """The adapter :meth:`pin` set, or None."""
        return self._pinned

    def clear(self) -> None:
        """Forget every kept device, so that the next :meth:`get` makes a new one: after a
        device was lost or ran out of memory, the checks that follow must not run on it. The
        forgotten devices live on while anything else holds them."""
        with self._lock:
            self._kept.clear()
