"""GPU adapters, the gpuia device and its buffers.

Adapters are chosen by a substring of their summary (``--adapter``, env ``GPUIA_ADAPTER``) and
optionally a backend (``Vulkan``, ``OpenGL``, ...). Everything gpuia relies on is read from the
adapter (limits and features), never assumed, and collected in :class:`Caps`; planners decide
with it what a draw can do.

:class:`Buffer` is gpuia's resource: a wgpu buffer plus the D3D bind flags it was created with
(``vertex_buffer``, ``index_buffer``, ``stream_output``), its size in bytes, and, when created from
host data, a read-only host copy. The host copy lets the planner check index ranges and let the
CPU reference run the same draw; buffers written by the GPU have none.

Host data is bytes: anything with the buffer protocol (bytes, bytearray, memoryview, a numpy
array of a numeric or structured dtype). A numpy array that is not C-contiguous is copied into C
order first; object, string and datetime dtypes, and Python lists, are refused
(:func:`host_bytes`).

:meth:`Buffer.release` (and ``with``) frees a buffer's GPU memory. Draws already recorded with it
still run: its wgpu buffer is destroyed once every context of the device that may hold such
draws has submitted them (see :meth:`Buffer.release`); any later use raises
:class:`~gpuia.errors.InvalidDescError` naming the buffer.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from ..errors import GpuiaError, InvalidDescError, UnsupportedError
from .lifetime import (
    RELEASES,
    ContextWork,
    device_error,
    import_wgpu,
    intercept_destroy,
    is_released,
    release_resource,
    released_error,
    wgpu_call,
)
from .quirks import ONE_DEVICE, has_effect, quirks_for
from .targets import TARGET_FORMATS, Texture, texture_usage

if TYPE_CHECKING:  # imported where a device is made: the cpu backend never loads wgpu
    import wgpu

HostData: TypeAlias = bytes | bytearray | memoryview | np.ndarray
"""What a buffer's contents may be given as: bytes-like, or a numpy array of a numeric or
structured dtype (:func:`host_bytes` refuses the rest)."""

__all__ = ["Caps", "AdapterInfo", "list_adapters", "select_adapter", "Device", "Buffer",
           "checked_buffer", "get_device", "BIND_FLAGS", "device_error", "wgpu_call",
           "host_bytes", "RELEASES", "ContextWork", "is_released", "released_error",
           "release_resource", "intercept_destroy", "DevicePool", "adapter_driver_info",
           "HostData"]

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")  # Mesa complains on stderr without it

BIND_FLAGS = ("vertex_buffer", "index_buffer", "stream_output", "constant_buffer")
"""D3D bind flags a gpuia buffer can carry (D3D11_BIND_VERTEX_BUFFER, ...)."""

_LIMIT_KEYS = ("max-vertex-buffers", "max-vertex-attributes", "max-vertex-buffer-array-stride",
               "max-storage-buffers-per-shader-stage", "max-storage-buffer-binding-size",
               "max-buffer-size", "max-uniform-buffer-binding-size",
               "min-uniform-buffer-offset-alignment", "min-storage-buffer-offset-alignment",
               "max-compute-workgroups-per-dimension", "max-inter-stage-shader-variables",
               "max-bind-groups", "max-color-attachments", "max-color-attachment-bytes-per-sample",
               "max-texture-dimension-2d", "max-uniform-buffers-per-shader-stage")
_FEATURES = ("vertex-writable-storage", "indirect-first-instance")


@dataclass(frozen=True)
class Caps:
    """The limits and features of a device that gpuia's decisions depend on: every planner
    and check reads them from here, never assumes them. A frozen value. A :class:`Device`'s
    caps are read from its wgpu device and also probe what the limits do not say
    (``target_formats``, ``depth_copies``); an adapter listing's (:func:`list_adapters`) are
    read from the adapter and probe nothing.

    Arguments:
        max_vertex_buffers, max_vertex_attributes (int): WebGPU's limits of those names
            (hyphenated in WebGPU: ``max-vertex-buffers``, ...), as every limit below.
        max_vertex_buffer_array_stride (int): the largest native vertex buffer stride.
        max_storage_buffers_per_shader_stage (int): storage buffers one stage binds.
        max_storage_buffer_binding_size, max_buffer_size (int): bytes of one storage
            binding, of one buffer.
        max_uniform_buffer_binding_size (int): bytes of one uniform binding.
        min_uniform_buffer_offset_alignment (int): alignment of a uniform binding's offset.
        min_storage_buffer_offset_alignment (int): alignment of a storage binding's offset.
        max_compute_workgroups_per_dimension (int): workgroups of one dispatch, per dimension.
        max_inter_stage_shader_variables (int): vertex-to-pixel shader variables.
        max_bind_groups (int): bind groups of one pipeline layout.
        max_color_attachments (int): color targets of one render pass.
        max_color_attachment_bytes_per_sample (int): bytes of one sample over all of them.
        max_texture_dimension_2d (int): the largest 2-D texture side.
        max_uniform_buffers_per_shader_stage (int): uniform buffers one stage binds: gpuia's
            own blocks and the root constant buffers the shaders read together.
        vertex_writable_storage (bool): the ``vertex-writable-storage`` feature (a capture's
            ``storage`` route).
        indirect_first_instance (bool): the ``indirect-first-instance`` feature (an indirect
            draw's first instance other than 0).
        vertex_formats (frozenset): WebGPU vertex formats this wgpu build can use
            (:func:`supported_vertex_formats`).
        quirks (tuple): the :class:`~gpuia.gpu.quirks.Quirk` rows of the adapter.
        target_formats (frozenset | None): WebGPU formats of
            :data:`~gpuia.gpu.targets.TARGET_FORMATS` the device renders into; None where
            not probed.
        depth_copies (bool | None): whether the device copies a depth texture to a buffer;
            None where not probed.
    """

    max_vertex_buffers: int
    max_vertex_attributes: int
    max_vertex_buffer_array_stride: int
    max_storage_buffers_per_shader_stage: int
    max_storage_buffer_binding_size: int
    max_buffer_size: int
    max_uniform_buffer_binding_size: int
    min_uniform_buffer_offset_alignment: int
    min_storage_buffer_offset_alignment: int
    max_compute_workgroups_per_dimension: int
    max_inter_stage_shader_variables: int
    max_bind_groups: int
    max_color_attachments: int
    max_color_attachment_bytes_per_sample: int
    max_texture_dimension_2d: int
    max_uniform_buffers_per_shader_stage: int
    vertex_writable_storage: bool
    indirect_first_instance: bool
    vertex_formats: frozenset = frozenset()
    quirks: tuple = ()  # gpuia.gpu.quirks.Quirk rows that apply to this adapter
    # WebGPU formats of gpuia's target table this device renders into (probed by Device;
    # None: not probed, e.g. adapter listings): OpenGL ES takes fewer than WebGPU's core.
    target_formats: frozenset | None = None
    # Whether a depth texture's depth aspect can be copied to a buffer (probed by Device; wgpu's
    # OpenGL backend lacks the DEPTH_TEXTURE_AND_BUFFER_COPIES downlevel flag).
    depth_copies: bool | None = None

    @classmethod
    def from_wgpu(cls, limits: dict, features: Iterable[str]) -> Caps:
        """The caps of wgpu's ``limits`` and ``features`` (a ``GPUAdapter``'s or a
        ``GPUDevice``'s), with this wgpu build's vertex formats; no quirks, nothing probed.

        Arguments:
            limits (dict): wgpu's limits, keyed by WebGPU's hyphenated names.
            features: wgpu's feature names.

        Returns:
            The :class:`Caps`.

        Raises:
            KeyError: ``limits`` lacks a limit gpuia reads.
        """
        features = set(features)
        kw: dict[str, Any] = {k.replace("-", "_"): int(limits[k]) for k in _LIMIT_KEYS}
        kw.update({f.replace("-", "_"): f in features for f in _FEATURES})
        return cls(**kw, vertex_formats=supported_vertex_formats())

    def as_dict(self) -> dict:
        """The caps as JSON-ready values (what ``gpuia adapters --json`` prints as
        ``limits``): every field by name, ``vertex_formats`` and ``target_formats`` as sorted
        lists, ``quirks`` as their reasons; ``target_formats`` and ``depth_copies`` left out
        where not probed.

        Returns:
            A new dict.
        """
        d = dict(self.__dict__)
        d["vertex_formats"] = sorted(self.vertex_formats)
        for probed in ("target_formats", "depth_copies"):  # what only a Device knows
            if d[probed] is None:
                del d[probed]
        if self.target_formats is not None:
            d["target_formats"] = sorted(self.target_formats)
        d["quirks"] = [q.reason for q in self.quirks]
        return d


# Vertex formats that wgpu-native versions accept in their enum but abort the process on (a Rust
# panic, not an error): "invalid vertex format for vertex attribute: 41" for unorm8x4-bgra in
# wgpu-native 29.0.1.1 (bundled with wgpu-py 0.32). Keyed by the lib's major version; formats
# listed here take the pulling path. tests/gpu/test_gpu_formats.py checks the abort still happens,
# so a fixed release shows up as a failing test rather than a silent slowdown.
_ABORTING_VERTEX_FORMATS = {29: frozenset({"unorm8x4-bgra"})}


def supported_vertex_formats() -> frozenset:
    """WebGPU vertex formats this wgpu-py and wgpu-native can really use. The enum is not
    trusted: wgpu-py 0.32 lists ``unorm10-10-10-2`` but has no mapping for it (KeyError when a
    pipeline is created), so the binding's mapping table decides, and formats the native library
    is known to abort on are removed."""
    wgpu = _wgpu()
    names = set(wgpu.VertexFormat)
    try:
        from wgpu.backends.wgpu_native import version_info
        from wgpu.backends.wgpu_native._mappings import enummap
    except ImportError:  # pragma: no cover - another wgpu-py layout: trust the enum
        return frozenset(names)
    names -= _ABORTING_VERTEX_FORMATS.get(version_info[0], frozenset())
    return frozenset(n for n in names if f"VertexFormat.{n}" in enummap)


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


_wgpu = import_wgpu


_ENUMERATED: list | None = None
_ENUMERATE_LOCK = threading.Lock()


def _adapters():
    """wgpu's adapters, enumerated once per process. Enumerating again creates new OpenGL
    adapters (an EGL display and context), which makes the polling thread of an existing
    OpenGL device panic with EGL's BadAccess and abort the process (wgpu-hal 29, measured on
    llvmpipe: docs/known-adapter-issues.md); one set of adapters serves every device."""
    global _ENUMERATED
    wgpu = _wgpu()
    with _ENUMERATE_LOCK:
        if _ENUMERATED is None:
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


def _alive(device) -> bool:
    """Whether a wgpu device still works: a 4-byte write and read-back."""
    try:
        usage = _wgpu().BufferUsage
        buf = device.create_buffer_with_data(data=b"gpia", usage=usage.COPY_SRC | usage.COPY_DST)
    except Exception:  # noqa: BLE001 - whatever a lost device raises, it does not work
        return False
    try:
        return bytes(device.queue.read_buffer(buf)) == b"gpia"
    except Exception:  # noqa: BLE001 - likewise
        return False
    finally:
        try:
            buf.destroy()
        except Exception:  # noqa: BLE001 - a lost device: nothing left to free
            pass


def _renderable_formats(device) -> frozenset:
    """The formats of gpuia's target table that ``device`` creates render targets of, found by
    creating a 1x1 one of each (wgpu's downlevel OpenGL refuses some, e.g. rgba32float, with a
    validation error, never an abort)."""
    out = set()
    for f in TARGET_FORMATS.values():
        try:
            device.create_texture(size=(1, 1, 1), format=f.webgpu,
                                  usage=texture_usage(f)).destroy()
        except Exception:  # noqa: BLE001 - a refused format, whatever wgpu raises for it
            continue
        out.add(f.webgpu)
    return frozenset(out)


def _copies_depth(device) -> bool:
    """Whether ``device`` copies a depth32float texture's depth aspect to a buffer (a 1x1
    copy, encoded and submitted; a missing downlevel flag is a validation error at finish)."""
    usage = _wgpu().TextureUsage
    made = []
    try:
        made.append(device.create_texture(size=(1, 1, 1), format="depth32float",
                                          usage=usage.RENDER_ATTACHMENT | usage.COPY_SRC))
        made.append(device.create_buffer(size=256, usage=_wgpu().BufferUsage.COPY_DST))
        enc = device.create_command_encoder()
        enc.copy_texture_to_buffer({"texture": made[0], "aspect": "depth-only"},
                                   {"buffer": made[1], "offset": 0, "bytes_per_row": 256,
                                    "rows_per_image": 1}, (1, 1, 1))
        device.queue.submit([enc.finish()])
        return True
    except Exception:  # noqa: BLE001 - a refused copy, whatever wgpu raises for it
        return False
    finally:
        for obj in made:
            try:
                obj.destroy()
            except Exception:  # noqa: BLE001 - a lost device: nothing left to free
                pass


def _request_device(adapter, features, private: bool):
    """A wgpu device on ``adapter``: a new one, or where dropping a device breaks the others
    (quirks.ONE_DEVICE) the adapter's shared one, or with ``private`` a new one kept alive for
    the process. A shared device found lost is replaced; the lost one is kept too."""
    if not has_effect(quirks_for(adapter.summary), ONE_DEVICE):
        return adapter.request_device_sync(required_features=features)
    with _SHARED_LOCK:
        if private:
            device = adapter.request_device_sync(required_features=features)
            _KEPT.append(device)
            return device
        _, device = _SHARED.get(id(adapter), (None, None))
        if device is None or not _alive(device):
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
    from dataclasses import replace

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


def _matches(a, substring: str | None, backend: str | None) -> bool:
    if backend and a.info.get("backend_type", "").lower() != backend.lower():
        return False
    return not substring or substring.lower() in a.summary.lower()


def select_adapters(substring: str | None = None, backend: str | None = None):
    """All adapters whose summary contains ``substring`` (case-insensitive) on ``backend``.
    ``substring`` ``"all"`` selects every adapter."""
    adapters = _adapters()
    if substring == "all":
        substring = None
    chosen = [a for a in adapters if _matches(a, substring, backend)]
    if not chosen:
        have = "; ".join(a.summary for a in adapters) or "none"
        raise UnsupportedError(f"no GPU adapter matches adapter={substring!r} backend={backend!r} "
                               f"(adapters: {have})")
    return chosen


def select_adapter(substring: str | None = None, backend: str | None = None) -> wgpu.GPUAdapter:
    """The adapter to use: among the adapters whose summary contains ``substring`` and whose
    backend is ``backend``, the preferred one: any backend before OpenGL (wgpu's GL backend
    ignores primitive restart and takes flat inputs from the last vertex: gpuia works around
    both at a cost), then a discrete GPU, an integrated one, a virtual one, a CPU one.

    Arguments:
        substring (str | None): a case-insensitive substring of the adapter's summary;
            ``"all"`` or empty matches every adapter. Default: env ``GPUIA_ADAPTER``.
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


# dtype kinds whose bytes are data: bool, integers, floats, complex, structured records (void).
# Objects (pointers), strings and datetimes are refused: their bytes are not what a shader reads.
_DATA_KINDS = frozenset("biufcV")


def host_bytes(data, where: str = "Buffer", field_name: str = "data") -> np.ndarray:
    """``data`` as a 1-D uint8 array of its bytes in C order. Accepted: bytes-like objects and
    numpy arrays of numeric or structured dtypes; a numpy array (or memoryview) that is not
    C-contiguous is copied (``np.ascontiguousarray``). Refused with
    :class:`~gpuia.errors.InvalidDescError` naming ``where`` and ``field_name``: Python lists,
    str, and arrays of object, string or datetime dtypes (or records holding objects)."""
    if isinstance(data, (str, list, tuple)):
        raise InvalidDescError(where, field_name, f"a {type(data).__name__}",
                               "expected bytes or a numpy array (a D3D buffer holds bytes: pack "
                               "numbers first, e.g. np.asarray(values, np.float32))")
    arr = data if isinstance(data, np.ndarray) else None
    if arr is None:
        try:
            view = memoryview(data)
        except TypeError:
            raise InvalidDescError(where, field_name, type(data).__name__,
                                   "expected bytes or a numpy array (a bytes-like object: "
                                   "bytes, bytearray, memoryview, numpy array)") from None
        if view.c_contiguous:
            try:
                return np.frombuffer(view.cast("B"), dtype=np.uint8)
            except (TypeError, ValueError):  # a format memoryview cannot cast: numpy reads it
                pass
        try:
            arr = np.asarray(view)
        except (TypeError, ValueError, NotImplementedError) as e:
            raise InvalidDescError(where, field_name, type(data).__name__,
                                   f"its buffer cannot be read as bytes ({e})") from None
    dt = arr.dtype
    if dt.hasobject or dt.kind not in _DATA_KINDS:
        raise InvalidDescError(where, field_name, f"numpy array of dtype {dt}",
                               "expected a numeric or structured dtype (object arrays hold "
                               "pointers, string and datetime arrays are not vertex data)")
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)  # a strided view: its elements, packed in C order
    return arr.reshape(-1).view(np.uint8)


def _bind_flags(bind) -> frozenset:
    if isinstance(bind, str):
        bind = (bind,)
    try:
        flags = frozenset(bind)
    except TypeError:
        raise InvalidDescError("Buffer", "bind", bind, f"expected a bind flag or an iterable of "
                               f"them ({', '.join(BIND_FLAGS)})") from None
    odd = [f for f in flags if not isinstance(f, str)]
    if odd:
        raise InvalidDescError("Buffer", "bind", odd, f"bind flags are the strings "
                               f"{', '.join(BIND_FLAGS)}")
    return flags


class Buffer:
    """A GPU buffer with D3D bind flags.

    Arguments:
        device (Device): the owner.
        size (int): bytes, 0 or more (the wgpu buffer is rounded up to a multiple of 16, at
            least 16: shaders read it as 16-byte units).
        bind (iterable of str): D3D bind flags from :data:`BIND_FLAGS` (a single flag may be
            given as a str).
        data: optional initial contents of exactly ``size`` bytes (see :func:`host_bytes`);
            kept as the host copy, read-only (``bytes`` are kept as they are, anything else
            is copied).
        label (str): the wgpu buffer's label.

    Raises:
        InvalidDescError: ``device`` is no gpuia Device, a bind flag is unknown, ``size`` is
            no integer or negative, ``label`` no str, or ``data`` is no host bytes or not
            ``size`` bytes.
        UnsupportedError: the buffer exceeds the adapter's ``max-buffer-size`` (a constant
            buffer: ``max-uniform-buffer-binding-size``), or wgpu refused it.
        DeviceLostError: the device was lost.
        GpuOutOfMemoryError: the adapter is out of memory.

    Attributes:
        device (Device): the owner.
        size (int): the size asked for, in bytes.
        bind (frozenset): the bind flags.
        host (numpy.ndarray | None): the read-only host copy (uint8, ``size`` bytes), kept in
            step with :meth:`write`; None for a buffer made without data, once it was bound as
            a Stream Output target (the GPU writes it), and once a released buffer's wgpu
            buffer is destroyed.
        released (bool): True once :meth:`release` was called.

    ``wgpu`` is the wgpu buffer. Free it with :meth:`release` or a ``with`` block, not with
    ``wgpu.destroy()``: wgpu-py has no destroyed flag gpuia could check before a submit, so on
    buffers gpuia created that call is routed to :meth:`release`; destroying the wgpu buffer
    any other way is unsupported (the next submit that uses it aborts the process).
    """

    released = False  # set by release(): every later use raises InvalidDescError

    def __init__(self, device: Device, size: int, bind: Iterable[str] | str,
                 data: HostData | None = None, label: str = ""):
        wgpu = _wgpu()
        if not isinstance(device, Device):
            raise InvalidDescError("Buffer", "device", device, "expected a gpuia Device")
        bind = _bind_flags(bind)
        unknown = bind - set(BIND_FLAGS)
        if unknown:
            raise InvalidDescError("Buffer", "bind", sorted(unknown),
                                   f"bind flags are {', '.join(BIND_FLAGS)}")
        if type(size) is not int:
            raise InvalidDescError("Buffer", "size", size, "must be an integer")
        if size < 0:
            raise InvalidDescError("Buffer", "size", size, "must not be negative")
        if not isinstance(label, str):
            raise InvalidDescError("Buffer", "label", label, "expected a str")
        # Whole 16-byte units: shaders view buffers as arrays of vec4<u32> (one 128-bit access
        # per vertex where the data allows it), and WebGPU sizes need 4-byte multiples anyway.
        padded = max(16, (size + 15) // 16 * 16)
        if padded > device.caps.max_buffer_size:
            raise UnsupportedError(f"a {size}-byte buffer exceeds the adapter's max-buffer-size "
                                   f"{device.caps.max_buffer_size}")
        usage = wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.STORAGE
        if "vertex_buffer" in bind:
            usage |= wgpu.BufferUsage.VERTEX
        if "index_buffer" in bind:
            usage |= wgpu.BufferUsage.INDEX
        if "stream_output" in bind:
            usage |= wgpu.BufferUsage.VERTEX | wgpu.BufferUsage.INDIRECT
        if "constant_buffer" in bind:
            if padded > device.caps.max_uniform_buffer_binding_size:
                raise UnsupportedError(f"a {size}-byte constant buffer exceeds the adapter's "
                                       f"max-uniform-buffer-binding-size "
                                       f"{device.caps.max_uniform_buffer_binding_size}")
            usage |= wgpu.BufferUsage.UNIFORM
        self.device = device
        self.size = int(size)
        self.bind = bind
        self.host: np.ndarray | None = None
        if data is not None:
            raw = host_bytes(data)
            if raw.shape[0] != size:
                raise InvalidDescError("Buffer", "data", f"{raw.shape[0]} bytes",
                                       f"does not match size {size}")
            # The buffer is made mapped (zero-filled, so its padding reads 0) and the data
            # copied straight into the mapping: no padded host copy. Immutable bytes are their
            # own host copy; anything else is copied, so a later change of the caller's array
            # cannot change it.
            host = raw if isinstance(data, bytes) else raw.copy()
            host.flags.writeable = False

            def made():
                buf = device.device.create_buffer(size=padded, usage=usage, label=label,
                                                  mapped_at_creation=True)
                if size:
                    buf.write_mapped(host, 0)
                buf.unmap()
                return buf

            self.wgpu = wgpu_call(made, "create_buffer")
            self.host = host
        else:
            self.wgpu = wgpu_call(lambda: device.device.create_buffer(
                size=padded, usage=usage, label=label), "create_buffer")
        intercept_destroy(self, self.wgpu)

    def __repr__(self):
        gone = " released" if self.released else ""
        return f"<gpuia.Buffer {self.size} bytes bind={sorted(self.bind)}{gone}>"

    def __enter__(self) -> Buffer:
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def release(self) -> None:
        """Free the buffer's GPU memory; idempotent. Afterwards every use (binding it, a draw
        with it still bound, :meth:`write`, :meth:`read`) raises
        :class:`~gpuia.errors.InvalidDescError` naming it. Draws recorded before the release
        but not yet submitted still run with its contents: the wgpu buffer is destroyed (and
        the host copy dropped) at once only when no context of the device has unsubmitted work
        or is inside a call on another thread; otherwise after each such context has submitted
        (its next :meth:`~gpuia.gpu.Context.flush`, or end_capture for a capture in progress).
        ``wgpu`` keeps naming the (destroyed) wgpu buffer: do not use it. Raises nothing."""
        if self.device.mark_released(self):  # two threads releasing one buffer: one retires it
            release_resource(self, (self.wgpu,), self._drop_host)

    def _drop_host(self) -> None:
        self.host = None

    def check_live(self, where: str) -> None:
        """Refuse a released buffer: what every binding of it calls first.

        Arguments:
            where (str): the call to name in the error (``"IASetIndexBuffer"``).

        Raises:
            InvalidDescError: the buffer was released (:meth:`release`, or its ``.wgpu``
                destroyed).
        """
        if self.released:
            raise released_error(where, "buffer", self)

    @property
    def nbytes(self) -> int:
        """The buffer's size in bytes (:attr:`size`, the size asked for, not the padded one)."""
        return self.size

    def write(self, data: HostData, offset: int = 0) -> None:
        """Replace bytes ``offset .. offset + len(data)`` (queued: draws submitted later see
        them; draws already encoded but not flushed see them too, as with UpdateSubresource on a
        deferred context, so flush between frames that differ). Both ends must be multiples of 4
        (WebGPU's copy alignment); the host copy, if any, follows (as a new read-only array).

        Arguments:
            data: the bytes (bytes-like or a numpy array, as :func:`host_bytes` takes).
            offset (int): the first byte written.

        Raises:
            InvalidDescError: the buffer was released, ``data`` is no host bytes, ``offset``
                or the length is negative or no multiple of 4, or the bytes run past the
                buffer's size; nothing is written then.
            UnsupportedError: wgpu refused the write.
            DeviceLostError: the device was lost.
            GpuOutOfMemoryError: the adapter is out of memory.
        """
        self.check_live("Buffer.write")
        raw = host_bytes(data, "Buffer.write")
        if type(offset) is not int or offset < 0 or offset % 4 or raw.shape[0] % 4:
            raise InvalidDescError("Buffer.write", "offset", offset,
                                   "offset and length must be non-negative multiples of 4")
        if offset + raw.shape[0] > self.size:
            raise InvalidDescError("Buffer.write", "data", f"{raw.shape[0]} bytes at {offset}",
                                   f"runs past the buffer's {self.size} bytes")
        wgpu_call(lambda: self.device.device.queue.write_buffer(self.wgpu, offset, raw),
                  "Buffer.write")
        if self.host is not None:
            host = self.host.copy()
            host[offset:offset + raw.shape[0]] = raw
            host.flags.writeable = False
            self.host = host

    def read(self) -> bytes:
        """The buffer's current GPU contents (blocks until the GPU is done with it). What a
        context has encoded but not submitted is not in them: flush first.

        Returns:
            ``size`` bytes.

        Raises:
            InvalidDescError: the buffer was released.
            UnsupportedError: wgpu refused the read.
            DeviceLostError: the device was lost.
            GpuOutOfMemoryError: the adapter is out of memory.
        """
        self.check_live("Buffer.read")
        data = wgpu_call(lambda: self.device.device.queue.read_buffer(
            self.wgpu, 0, (self.size + 3) // 4 * 4), "Buffer.read")
        return bytes(data[: self.size])


def checked_buffer(buf, device: Device, where: str, field_name: str = "buffer", *,
                   same_wgpu_device: bool = False) -> Buffer:
    """The ownership check of every binding of a buffer: ``buf`` is a gpuia :class:`Buffer`
    created on ``device`` (that very Device, not another sharing its wgpu device). Whether it
    is still live and has the binding's flag is the caller's next check.

    Arguments:
        buf: what was bound.
        device (Device): the device the binding is on.
        where (str): the call to name in the error (``"IASetIndexBuffer"``).
        field_name (str): the argument to name in the error. Default ``"buffer"``.
        same_wgpu_device (bool): compare the wgpu devices instead: a buffer of any Device on
            ``device.device`` binds there. For the index pass, which runs on whatever carries
            a wgpu device and its caps. Default False.

    Returns:
        ``buf``.

    Raises:
        InvalidDescError: ``buf`` is no gpuia Buffer (host bytes, a wgpu buffer, a view), or it
            belongs to another device.
    """
    if not isinstance(buf, Buffer):
        raise InvalidDescError(where, field_name, buf,
                               "expected a gpuia Buffer created on this device "
                               "(Device.create_buffer uploads host bytes)")
    if (buf.device.device is not device.device if same_wgpu_device
            else buf.device is not device):
        raise InvalidDescError(where, field_name, buf,
                               "expected a gpuia Buffer created on this device; this one "
                               "belongs to another device")
    return buf


class Device:
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
            ``wgpu_native`` (the wgpu-native version), as :func:`adapter_driver_info` gives.
    """

    def __init__(self, adapter: wgpu.GPUAdapter | None = None, *, adapter_name: str | None = None,
                 backend: str | None = None,
                 private: bool = False):
        if adapter is None:
            adapter = select_adapter(adapter_name, backend)
        self.adapter = adapter
        features = [f for f in _FEATURES if f in adapter.features]
        try:
            self.device = _request_device(adapter, features, private)
        except Exception as e:  # noqa: BLE001 - any refusal: UnsupportedError with its text
            text = " ".join(str(e).split())
            if "Parent device is lost" in text and adapter.info.get("backend_type") == "OpenGL":
                # Measured on NVIDIA's driver (580, EGL): wgpu-core's indirect-draw validation
                # builds a compute pipeline while making the device, and the GL context wgpu's
                # backend makes there has no compute shaders, so no device comes out at all.
                text += (" (wgpu's OpenGL backend could not build its internal compute pipeline "
                         "on this driver: the GL context it made has no compute shaders; "
                         "docs/known-adapter-issues.md)")
            raise UnsupportedError(f"cannot create a device on {adapter.summary}: {text}") from None
        self._adopt(self.device, depth_copies=None)

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
        if not _alive(device):
            raise UnsupportedError("Device.from_wgpu: the wgpu device is lost or destroyed")
        self = cls.__new__(cls)
        self.adapter = device.adapter
        self.device = device
        self._adopt(device, depth_copies=depth_copies)
        return self

    def _adopt(self, device, *, depth_copies: bool | None) -> None:
        """Caps, info and the context registry for ``device`` on ``self.adapter``."""
        from dataclasses import replace

        adapter = self.adapter
        self.caps = replace(Caps.from_wgpu(device.limits, device.features),
                            quirks=quirks_for(adapter.summary),
                            target_formats=_renderable_formats(device),
                            depth_copies=(_copies_depth(device) if depth_copies is None
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
        submits (:meth:`Buffer.release`). Called by :class:`~gpuia.gpu.Context`; kept weakly,
        so a dropped context leaves by itself.

        Arguments:
            work (ContextWork): what the context tells the device of its unsubmitted work.
        """
        with self._lock:
            self._contexts.add(work)

    def context_work(self) -> list:
        """The :class:`ContextWork` of every live context of this device.

        Returns:
            A new list (a snapshot, in no particular order).
        """
        with self._lock:
            return list(self._contexts)

    def mark_released(self, resource: Buffer | Texture) -> bool:
        """Set ``resource.released``, atomically with every other call on this device (two
        threads releasing one resource: exactly one gets True and retires it).

        Arguments:
            resource: a :class:`Buffer` or :class:`~gpuia.gpu.targets.Texture` of this device.

        Returns:
            True if this call released it, False if it already was released.
        """
        with self._lock:
            if resource.released:
                return False
            resource.released = True
            return True

    def create_buffer(self, data: HostData | None = None, *, size: int | None = None,
                      bind: Iterable[str] | str = ("vertex_buffer",), label: str = "") -> Buffer:
        """A :class:`Buffer` with the given D3D bind flags, from ``data`` or zero-filled of
        ``size`` bytes. ``data`` is bytes-like or a numpy array of a numeric or structured
        dtype; an array that is not C-contiguous is copied in C order first. Python lists,
        str and object/string/datetime arrays are refused (:func:`host_bytes`).

        Arguments:
            data: the initial contents, kept as the buffer's read-only host copy (``bytes``
                as they are, anything else copied); None for a zero-filled buffer without one.
            size (int): bytes; with ``data`` it must equal ``data``'s byte count.
            bind: D3D bind flags from :data:`BIND_FLAGS`, one str or an iterable of them.
            label (str): the wgpu buffer's label.

        Returns:
            The :class:`Buffer`.

        Raises:
            InvalidDescError: neither ``data`` nor ``size`` given, ``size`` no integer or not
                ``data``'s length, or any refusal of the :class:`Buffer` constructor.
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
        substring of the summary, or ``"all"``) every adapter matching it and ``backend``;
        without, the one :func:`select_adapter` prefers (env ``GPUIA_ADAPTER``,
        ``GPUIA_BACKEND``). An adapter whose device cannot be made (a gpuia exception) is
        reported, not raised.

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
        chosen = select_adapters(adapter, backend) if adapter else [select_adapter(None, backend)]
        devices, unavailable = [], []
        for a in chosen:
            try:
                devices.append(self.get(a))
            except GpuiaError as exc:  # e.g. a GL context a headless machine cannot give
                unavailable.append((a.summary, " ".join(str(exc).split())))
        return devices, unavailable

    def clear(self) -> None:
        """Forget every kept device, so that the next :meth:`get` makes a new one: after a
        device was lost or ran out of memory, the checks that follow must not run on it. The
        forgotten devices live on while anything else holds them."""
        with self._lock:
            self._kept.clear()
