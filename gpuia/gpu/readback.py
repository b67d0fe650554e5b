"""Reading GPU buffers back to the host: several ranges in one submission and one map (in
batches through one staging buffer of at most 256 MiB when they are larger).

``queue.read_buffer`` of wgpu-py makes a staging buffer, submits one copy and waits on one map
per call, then copies the mapped bytes on one thread. A capture reads its records and its error
words, the raster check its counters and fragments: :func:`read_ranges` copies every range into
one staging buffer in one command buffer, maps it once, and copies large mappings out in row
chunks on the worker threads (:mod:`gpuia.util.parallel`: numpy's copy releases the GIL).

Guaranteed: each returned array holds exactly the bytes of its range as the GPU had them after
all work submitted before the call; the arrays are the caller's own (nothing refers to the
staging buffer, which is destroyed before returning). Refused: a range that is not inside its
buffer or whose offset is not a multiple of 4 (ValueError, before anything is encoded: wgpu
would abort on a copy out of bounds).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..util.parallel import CHUNK_ROWS, run_tasks

__all__ = ["read_ranges"]

_ALIGN = 256  # staging offset of each range: COPY_BUFFER_ALIGNMENT (4) and map alignment (8)
_CHUNK_BYTES = 16 * CHUNK_ROWS  # bytes one thread copies out of the mapping at a time
_STAGING_BYTES = 1 << 28  # the most host memory one read maps at a time (256 MiB)


def read_ranges(device, ranges: Sequence[tuple[Any, int, int]],
                into: Sequence[np.ndarray | None] | None = None,
                staging_bytes: int | None = None) -> list[np.ndarray]:
    """The bytes of each ``(wgpu buffer, offset, size)`` range of ``device`` (a
    ``wgpu.GPUDevice``), as uint8 arrays, read in one submission and one map where they total
    at most 256 MiB, else in batches of that size through one staging buffer (so a large read
    maps at most 256 MiB of host memory besides its result).

    Arguments:
        device: the ``wgpu.GPUDevice`` owning every buffer.
        ranges: ``(buffer, offset, size)``, each buffer with ``COPY_SRC`` usage; ``offset`` a
            multiple of 4, ``size`` any length (the copy is rounded up to 4 bytes within the
            buffer, then cut back).
        into: per range, None or a C-contiguous uint8 array of exactly ``size`` bytes to
            receive it (a slice of the caller's larger array: no second copy).
        staging_bytes (int): the most bytes one batch maps, a multiple of 256 (None: 256 MiB):
            less host memory at once for more submissions and maps.

    Returns:
        One uint8 array per range, in order (the ``into`` array where one was given).

    Raises:
        ValueError: a range outside its buffer, a negative size or an offset that is not a
            multiple of 4, or an ``into`` array of another size or kind.
    """
    targets = list(into) if into is not None else [None] * len(ranges)
    if len(targets) != len(ranges):
        raise ValueError("read_ranges: one 'into' entry per range")
    # Each range is cut into pieces of at most _STAGING_BYTES, and the pieces are read in
    # batches that fill one staging buffer of at most that size: small reads stay one
    # submission and one map, and a read of gigabytes never maps more than _STAGING_BYTES of
    # host memory beside its result. Nothing is encoded before every range is checked.
    staging_bytes = staging_bytes or _STAGING_BYTES
    out: list[np.ndarray] = []
    batches: list[list[tuple]] = [[]]
    filled = staging_size = 0
    for (buf, offset, size), dst in zip(ranges, targets, strict=True):
        length = -(-size // 4) * 4
        if offset < 0 or offset % 4 or size < 0 or offset + length > buf.size:
            raise ValueError(f"read_ranges: {size} bytes at {offset} do not lie in a buffer of "
                             f"{buf.size} bytes at a multiple of 4")
        if dst is None:
            dst = np.empty(size, np.uint8)
        elif (dst.dtype != np.uint8 or dst.shape != (size,) or not dst.flags.c_contiguous
              or not dst.flags.writeable):
            raise ValueError(f"read_ranges: 'into' must be a writable contiguous uint8 array of "
                             f"{size} bytes")
        out.append(dst)
        for at in range(0, length, staging_bytes):
            piece = min(staging_bytes, length - at)
            staged = -(-piece // _ALIGN) * _ALIGN
            if filled + staged > staging_bytes:
                batches.append([])
                filled = 0
            # (source, its offset, bytes copied, staging offset, destination slice)
            batches[-1].append((buf, offset + at, piece, filled, dst[at:at + piece]))
            filled += staged
            staging_size = max(staging_size, filled)
    if staging_size == 0:
        return out
    staging = device.create_buffer(size=staging_size, usage="MAP_READ|COPY_DST")
    try:
        for batch in batches:
            encoder = device.create_command_encoder()
            for buf, offset, piece, start, _dst in batch:
                encoder.copy_buffer_to_buffer(buf, offset, staging, start, piece)
            device.queue.submit([encoder.finish()])
            staging.map_sync("READ")
            try:
                mapped = np.frombuffer(staging.read_mapped(copy=False), np.uint8)
                for _buf, _offset, _piece, start, dst in batch:
                    _copy_out(dst, mapped[start:start + dst.shape[0]])
            finally:
                staging.unmap()
    finally:
        staging.destroy()
    return out


def _copy_out(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[:] = src``, in :data:`_CHUNK_BYTES` pieces on the worker threads when large."""
    n = src.shape[0]

    def copy(lo: int, hi: int) -> None:
        dst[lo:hi] = src[lo:hi]

    run_tasks([functools.partial(copy, a, min(n, a + _CHUNK_BYTES))
               for a in range(0, n, _CHUNK_BYTES)], n)
