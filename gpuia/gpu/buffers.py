"""gpuia's buffers: :class:`Buffer`, the host bytes it is made from, and the ownership check
of every binding of one.

A :class:`Buffer` is a wgpu buffer plus the D3D bind flags it was created with
(``vertex_buffer``, ``index_buffer``, ``stream_output``, ``constant_buffer``), its size in
bytes, and, when created from host data, a read-only host copy. The host copy lets the planner
check index ranges and lets the CPU reference run the same draw; buffers written by the GPU
have none.

Host data is bytes: anything with the buffer protocol (bytes, bytearray, memoryview, a numpy
array of a numeric or structured dtype). A numpy array that is not C-contiguous is copied into C
order first; object, string and datetime dtypes, and Python lists, are refused
(:func:`host_bytes`).

:meth:`Buffer.release` (and ``with``) frees a buffer's GPU memory. Draws already recorded with it
still run: its wgpu buffer is destroyed once every context of the device that may hold such
draws has submitted them (see :meth:`Buffer.release`); any later use raises
:class:`~gpuia.errors.InvalidDescError` naming the buffer, and so does binding a buffer of
another device (:func:`checked_buffer`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

import numpy as np

from ..errors import InvalidDescError, UnsupportedError
from .device_core import DeviceCore
from .lifetime import (
    import_wgpu,
    intercept_destroy,
    release_resource,
    released_error,
    wgpu_call,
)

HostData: TypeAlias = bytes | bytearray | memoryview | np.ndarray
"""What a buffer's contents may be given as: bytes-like, or a numpy array of a numeric or
structured dtype (:func:`host_bytes` refuses the rest)."""

__all__ = ["BIND_FLAGS", "HostData", "host_bytes", "Buffer", "checked_buffer"]

BIND_FLAGS = ("vertex_buffer", "index_buffer", "stream_output", "constant_buffer",
              "shader_resource", "unordered_access")
"""D3D bind flags a gpuia buffer can carry (D3D11_BIND_VERTEX_BUFFER, ...;
``shader_resource``: a buffer a vertex shader's SRV reads, ``unordered_access`` one its UAV
writes (D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS), every buffer being storage too)."""


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

    def __init__(self, device: DeviceCore, size: int, bind: Iterable[str] | str,
                 data: HostData | None = None, label: str = ""):
        wgpu = import_wgpu()
        # Every gpuia Device is a DeviceCore (Device creates buffers, so it is not named here).
        if not isinstance(device, DeviceCore):
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


def checked_buffer(buf, device: DeviceCore, where: str, field_name: str = "buffer", *,
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
