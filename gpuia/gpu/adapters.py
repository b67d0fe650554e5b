"""The adapters wgpu finds, how gpuia chooses one, and the wgpu device it makes on it.

Adapters are chosen by a substring of their summary (``--adapter``, env ``GPUIA_ADAPTER``), by
several substrings separated by commas, or ``all``, and optionally a backend (``Vulkan``,
``OpenGL``, ...); :func:`select_adapter` prefers any backend to OpenGL, then a discrete GPU, an
integrated one, a virtual one, a CPU one.

Guaranteed: wgpu enumerates adapters once per process, and every listing and selection here
describes that one set (enumerating again breaks an existing OpenGL device). On an adapter with
the :data:`~gpuia.gpu.quirks.ONE_DEVICE` quirk, :func:`request_device` hands out one shared wgpu
device per adapter (replaced when found lost) and keeps every other wgpu device it made there
alive for the process. Refused with :class:`~gpuia.errors.UnsupportedError`: a selection no
adapter matches (the message lists them all), and a machine where wgpu enumerates nothing.
Nothing here makes a gpuia :class:`~gpuia.gpu.Device`.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..errors import UnsupportedError
from ..util.wgpu_types import prefill
from .caps import Caps, device_alive
from .lifetime import import_wgpu
from .quirks import ONE_DEVICE, has_effect, quirks_for

if TYPE_CHECKING:  # imported where an adapter is enumerated: the cpu backend never loads wgpu
    import wgpu

__all__ = ["AdapterInfo", "list_adapters", "select_adapters", "select_adapter",
           "spread_adapter", "request_device", "adapter_driver_info"]

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")  # Mesa complains on stderr without it


@dataclass(frozen=True)
class AdapterInfo:
    """What ``gpuia adapters`` prints for one adapter (:func:`list_adapters`). A frozen value.

    Arguments:
        index (int): the adapter's position in wgpu's enumeration (the same in every call
            of one process).
        summary (str): wgpu's summary of the adapter (what ``--adapter`` matches).
        name (str): the device name wgpu reports.
        backend (str): the wgpu backend (``Vulkan``, ``OpenGL``, ...; ``?`` if unknown).
        type (str): the adapter type (``DiscreteGPU``, ``CPU``, ...; ``?`` if unknown).
        caps (Caps): the adapter's limits, features and quirks (not probed).
        features (tuple of str): every feature the adapter has, sorted.
    """

    index: int
    summary: str
    name: str
    backend: str
    type: str
    caps: Caps
    features: tuple[str, ...] = field(default=(), repr=False)

    def as_dict(self) -> dict:
        """The adapter's ``name``, ``backend``, ``type`` and ``summary`` as a new dict."""
        return {"name": self.name, "backend": self.backend, "type": self.type,
                "summary": self.summary}


_ENUMERATED: list | None = None
_ENUMERATE_LOCK = threading.Lock()


def _adapters():
    """wgpu's adapters, enumerated once per process. Enumerating again creates new OpenGL
    adapters (an EGL display and context), which makes the polling thread of an existing
    OpenGL device panic with EGL's BadAccess and abort the process (wgpu-hal 29, measured on
    llvmpipe: docs/known-adapter-issues.md); one set of adapters serves every device."""
    global _ENUMERATED
    wgpu = import_wgpu()
    with _ENUMERATE_LOCK:
        if _ENUMERATED is None:
            prefill()  # wgpu-py's C types in one parse, before the first of them is needed
            try:
                _ENUMERATED = list(wgpu.gpu.enumerate_adapters_sync())
            except Exception as e:  # noqa: BLE001 - RuntimeError when wgpu finds nothing
                raise UnsupportedError(f"cannot enumerate GPU adapters: {e}") from None
        return list(_ENUMERATED)


# Adapters whose wgpu devices must outlive every gpuia Device (quirks.ONE_DEVICE): one wgpu
# device per adapter, made on first use, replaced only when found lost.
_SHARED: dict = {}
_KEPT: list = []  # private and lost devices of such adapters: never dropped
_SHARED_LOCK = threading.Lock()


def request_device(adapter, features, private: bool):
    """A wgpu device on ``adapter``: a new one, or where dropping a device breaks the others
    (quirks.ONE_DEVICE) the adapter's shared one, or with ``private`` a new one kept alive for
    the process. A shared device found lost is replaced; the lost one is kept too.

    Arguments:
        adapter: the ``wgpu.GPUAdapter``.
        features: the WebGPU feature names to ask for (the adapter has them all).
        private (bool): a device of its own even where the adapter's devices share one.

    Returns:
        The ``wgpu.GPUDevice``.

    Raises:
        Exception: whatever wgpu raises when it makes no device (a gpuia
            :class:`~gpuia.gpu.Device` turns it into UnsupportedError).
    """
    if not has_effect(quirks_for(adapter.summary), ONE_DEVICE):
        return adapter.request_device_sync(required_features=features)
    with _SHARED_LOCK:
        if private:
            device = adapter.request_device_sync(required_features=features)
            _KEPT.append(device)
            return device
        _, device = _SHARED.get(id(adapter), (None, None))
        if device is None or not device_alive(device):
            if device is not None:
                _KEPT.append(device)
            device = adapter.request_device_sync(required_features=features)
            _SHARED[id(adapter)] = (adapter, device)  # the adapter kept: its id stays its own
        return device


def adapter_driver_info(adapter) -> dict:
    """What identifies ``adapter`` and its driver, for reports a difference is reproduced from.

    Arguments:
        adapter: a ``wgpu.GPUAdapter``.

    Returns:
        dict: ``name``, ``backend``, ``type``, ``summary`` (str), ``driver`` (wgpu's adapter
        ``description``: the driver's name and version, "" where wgpu has none), ``vendor``
        (str), ``vendor_id``, ``device_id`` (int, 0 where unknown) and ``wgpu_native`` (the
        version string of the wgpu-native library that drove it).
    """
    from wgpu.backends.wgpu_native import version_info

    info = adapter.info
    return {"name": info.get("device", adapter.summary),
            "backend": info.get("backend_type", "?"),
            "type": info.get("adapter_type", "?"),
            "summary": adapter.summary,
            "driver": info.get("description", ""),
            "vendor": info.get("vendor", ""),
            "vendor_id": int(info.get("vendor_id", 0) or 0),
            "device_id": int(info.get("device_id", 0) or 0),
            "wgpu_native": ".".join(str(v) for v in version_info)}


def _info(i: int, a) -> AdapterInfo:
    caps = replace(Caps.from_wgpu(a.limits, a.features), quirks=quirks_for(a.summary))
    return AdapterInfo(i, a.summary, a.info.get("device", a.summary),
                       a.info.get("backend_type", "?"), a.info.get("adapter_type", "?"), caps,
                       tuple(sorted(a.features)))


def list_adapters() -> list[AdapterInfo]:
    """Every adapter wgpu can enumerate on this machine. wgpu enumerates them once per process
    (enumerating again breaks an existing OpenGL device); later calls describe the same
    adapters. Makes no device.

    Returns:
        An :class:`AdapterInfo` per adapter, in wgpu's order.

    Raises:
        UnsupportedError: wgpu cannot enumerate adapters at all.
    """
    return [_info(i, a) for i, a in enumerate(_adapters())]


def _patterns(substring: str, adapters) -> list[str]:
    """The substrings an ``--adapter`` value names: the value itself when it is part of an
    adapter's summary as it stands (commas and all: summaries hold commas, and a value that
    selected adapters before keeps selecting the same ones), else its comma-separated parts."""
    if any(substring.lower() in a.summary.lower() for a in adapters):
        return [substring]
    return [p.strip() for p in substring.split(",") if p.strip()] or [substring]


def _matches(a, patterns: list[str], backend: str | None) -> bool:
    if backend and a.info.get("backend_type", "").lower() != backend.lower():
        return False
    return not patterns or any(p.lower() in a.summary.lower() for p in patterns)


def select_adapters(substring: str | None = None, backend: str | None = None):
    """All adapters whose summary contains ``substring`` (case-insensitive) on ``backend``, in
    wgpu's order. ``substring`` ``"all"`` selects every adapter; ``"A,B"`` the adapters that
    contain ``A`` or ``B`` (unless ``"A,B"`` as a whole is part of a summary: then it is one
    substring, as before commas separated substrings).

    Raises:
        UnsupportedError: no adapter matches (the message lists them all), or wgpu cannot
            enumerate adapters.
    """
    adapters = _adapters()
    if substring == "all":
        substring = None
    patterns = _patterns(substring, adapters) if substring else []
    chosen = [a for a in adapters if _matches(a, patterns, backend)]
    if not chosen:
        have = "; ".join(a.summary for a in adapters) or "none"
        raise UnsupportedError(f"no GPU adapter matches adapter={substring!r} backend={backend!r} "
                               f"(adapters: {have})")
    return chosen


def spread_adapter(substring: str | None, backend: str | None, slot: int):
    """The adapter of worker ``slot`` when workers are spread over the adapters an
    ``--adapter`` value selects (:func:`select_adapters`): round-robin, so that slot ``k`` of
    ``M`` matching adapters takes the ``k mod M``-th of them in wgpu's order (16 workers on 8
    GPUs: two each). Every process of one machine enumerates the same adapters in the same
    order, so the workers agree without talking to each other.

    Returns:
        ``(adapter, index, count)``: the ``wgpu.GPUAdapter``, its position in wgpu's
        enumeration (:attr:`AdapterInfo.index`: identical GPUs have identical summaries, not
        identical indexes), and how many adapters matched.

    Raises:
        UnsupportedError: as :func:`select_adapters`.
    """
    chosen = select_adapters(substring, backend)
    adapter = chosen[slot % len(chosen)]
    index = next(i for i, a in enumerate(_adapters()) if a is adapter)
    return adapter, index, len(chosen)


def select_adapter(substring: str | None = None, backend: str | None = None) -> wgpu.GPUAdapter:
    """The adapter to use: among the adapters whose summary contains ``substring`` and whose
    backend is ``backend``, the preferred one: any backend before OpenGL (wgpu's GL backend
    ignores primitive restart and takes flat inputs from the last vertex: gpuia works around
    both at a cost), then a discrete GPU, an integrated one, a virtual one, a CPU one.

    Arguments:
        substring (str | None): a case-insensitive substring of the adapter's summary, or
            several separated by commas (:func:`select_adapters`); ``"all"`` or empty matches
            every adapter. Default: env ``GPUIA_ADAPTER``.
        backend (str | None): the wgpu backend name, compared case-insensitively
            (``Vulkan``, ``OpenGL``, ``Metal``, ``D3D12``). Default: env ``GPUIA_BACKEND``.

    Returns:
        The ``wgpu.GPUAdapter`` (no device is made).

    Raises:
        UnsupportedError: no adapter matches (the message lists them all), or wgpu cannot
            enumerate adapters.
    """
    substring = substring if substring is not None else os.environ.get("GPUIA_ADAPTER") or None
    backend = backend if backend is not None else os.environ.get("GPUIA_BACKEND") or None
    chosen = select_adapters(substring, backend)
    order = {"DiscreteGPU": 0, "IntegratedGPU": 1, "VirtualGPU": 2, "CPU": 3}
    gl_last = {"OpenGL": 1, "OpenGLES": 1}
    return min(chosen, key=lambda a: (gl_last.get(a.info.get("backend_type"), 0),
                                      order.get(a.info.get("adapter_type"), 4)))

