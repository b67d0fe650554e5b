"""The DXBC container's header and chunk table, and bounded reads inside one chunk.

A container (FXC's DXBC and DXC's DXIL alike) is ``DXBC``, a 16-byte checksum, the version
(1, as u16 major and minor), the total size in bytes, the chunk count and one u32 file offset
per chunk; each chunk is a four-character code, its size in bytes and its data. Every read is
checked against the chunk's or the file's end first, so a truncated or inconsistent container
raises :class:`~gpuia.errors.ContainerError` naming the chunk and the byte offset, and nothing is
allocated in proportion to a count before the count is checked against the bytes that hold it.
"""

from __future__ import annotations

import array
import struct
import sys
from dataclasses import dataclass, field

from ...errors import ContainerError

__all__ = ["Chunk", "read_chunks", "MAGIC", "HEADER_BYTES", "MAX_CONTAINER_BYTES", "MAX_CHUNKS",
           "MAX_NAME"]

MAGIC = b"DXBC"
HEADER_BYTES = 32  # magic, checksum, version, total size, chunk count
MAX_CONTAINER_BYTES = 16 << 20
"""Larger files are refused: real shader containers are kilobytes to a few megabytes (the
pure-Python checksum takes about half a second per megabyte)."""
MAX_CHUNKS = 1024
"""More chunks are refused: compilers write about ten."""
assert array.array("I").itemsize == 4  # u32 words read as the platform's unsigned int

MAX_NAME = 4096
"""A semantic name's bytes, at most."""


@dataclass(frozen=True)
class Chunk:
    """One chunk: its four-character code, where its data starts in the file, and the data.

    Reads go through :meth:`u32s` and :meth:`cstring`, which refuse anything past the chunk's
    end with a :class:`~gpuia.errors.ContainerError` naming the chunk and the file offset."""

    index: int
    fourcc: str
    offset: int  # the file offset of the chunk's data (after its 8-byte header)
    size: int  # the data's bytes
    blob: bytes = field(repr=False)  # the whole file (chunks share it: no copies)

    @property
    def data(self) -> bytes:
        """The chunk's data (a copy)."""
        return self.blob[self.offset:self.offset + self.size]

    @property
    def label(self) -> str:
        return f"chunk {self.index} ({self.fourcc})"

    def fail(self, at: int, rule: str) -> ContainerError:
        """The error for a problem at byte ``at`` of this chunk's data."""
        return ContainerError(self.label, self.offset + at, rule)

    def u32s(self, at: int, count: int, what: str) -> tuple[int, ...]:
        """``count`` little-endian u32 from byte ``at`` of the data."""
        if at < 0 or count < 0 or at + 4 * count > self.size:
            raise self.fail(at, f"{what} ({count} words) runs past the chunk's end "
                                f"({self.size} bytes)")
        return struct.unpack_from(f"<{count}I", self.blob, self.offset + at)

    def words(self, count: int) -> array.array:
        """The first ``count`` words of the data as u32 (an ``array`` of them: one copy, read by
        index without a call per word); ``count`` must fit in the chunk."""
        if not 0 <= count <= self.size // 4:
            raise self.fail(0, f"{count} words run past the chunk's end ({self.size} bytes)")
        out = array.array("I")
        out.frombytes(self.blob[self.offset:self.offset + 4 * count])
        if sys.byteorder == "big":
            out.byteswap()
        return out

    def cstring(self, at: int, what: str) -> str:
        """The zero-terminated ASCII string at byte ``at`` of the data."""
        if not 0 <= at < self.size:
            raise self.fail(at, f"{what} starts outside the chunk ({self.size} bytes)")
        start = self.offset + at
        end = self.blob.find(b"\0", start, min(self.offset + self.size, start + MAX_NAME))
        if end < 0:
            raise self.fail(at, f"{what} is not terminated inside the chunk within "
                                f"{MAX_NAME} bytes")
        raw = self.blob[start:end]
        if not raw.isascii() or not raw.decode("ascii").isprintable():
            raise self.fail(at, f"{what} is not printable ASCII: {raw[:40]!r}")
        return raw.decode("ascii")


def _fourcc(raw: bytes) -> str:
    return raw.decode("latin-1") if raw.isascii() and raw.isalnum() else raw.hex()


def read_chunks(blob: bytes) -> tuple[Chunk, ...]:
    """The chunks of a container, in table order.

    Refused (:class:`~gpuia.errors.ContainerError`): a file shorter than the header, over
    :data:`MAX_CONTAINER_BYTES`, with more than :data:`MAX_CHUNKS` chunks, without the ``DXBC``
    magic, whose total size is not the file's
    size, with no chunk, or with a chunk table, chunk header or chunk data past the end."""
    size = len(blob)
    if size > MAX_CONTAINER_BYTES:
        raise ContainerError("header", 0, f"the file has {size} bytes, more than the "
                                          f"{MAX_CONTAINER_BYTES} a shader container may have")
    if size < HEADER_BYTES or blob[:4] != MAGIC:
        what = "too short for a container header" if blob[:4] == MAGIC else \
            "not a shader container: it does not start with DXBC"
        raise ContainerError("header", 0, f"{what} ({size} bytes)")
    total, count = struct.unpack_from("<2I", blob, 24)
    if total != size:
        raise ContainerError("header", 24, f"the total size {total} is not the file's size "
                                           f"{size}")
    if count == 0:
        raise ContainerError("header", 28, "the container has no chunks")
    if count > MAX_CHUNKS:
        raise ContainerError("header", 28, f"{count} chunks, more than the {MAX_CHUNKS} a "
                                           f"container may have")
    if HEADER_BYTES + 4 * count > size:
        raise ContainerError("header", 28, f"the chunk table of {count} entries runs past "
                                           f"the end ({size} bytes)")
    table_end = HEADER_BYTES + 4 * count
    chunks = []
    for index, at in enumerate(struct.unpack_from(f"<{count}I", blob, HEADER_BYTES)):
        if at < table_end or at + 8 > size:
            raise ContainerError(f"chunk {index}", HEADER_BYTES + 4 * index,
                                 f"its offset {at} is outside the chunks' area "
                                 f"({table_end}-{size})")
        fourcc = _fourcc(blob[at:at + 4])
        length = struct.unpack_from("<I", blob, at + 4)[0]
        if at + 8 + length > size:
            raise ContainerError(f"chunk {index} ({fourcc})", at + 4,
                                 f"its size {length} runs past the end ({size} bytes)")
        chunks.append(Chunk(index, fourcc, at + 8, length, blob))
    return tuple(chunks)
