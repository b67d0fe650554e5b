"""The DXBC container checksum: the 16 bytes after the magic, which D3D compares with its own
computation and refuses a blob on a mismatch.

It is MD5 (RFC 1321's compression function and initial state) over the container from byte 20
(after the magic and the checksum itself) with a padding of its own, as publicly described by
Seth Sowerby's DXBCChecksum (2007) and implemented in Wine's d3dcompiler and vkd3d-shader
(``dxbc.c``); this module is written from that description. For a message of L bytes:

* the full 64-byte blocks are compressed as MD5 does;
* with ``r = L % 64`` bytes left over and ``b = 8 * L`` (32 bits), ``p = (b >> 2) | 1``: when
  ``r < 56``, one last block of ``b`` (little-endian), the ``r`` bytes, 0x80, zeros and ``p`` in
  its last four bytes; when ``r >= 56``, a block of the ``r`` bytes, 0x80 and zeros, then a block
  of ``b``, zeros and ``p``;
* the checksum is MD5's four state words, little-endian.

A container compiled without a signing validator (DXC's unsigned DXIL) stores zeros instead.
"""

from __future__ import annotations

import math
import struct

__all__ = ["dxbc_checksum", "CHECKSUM_START"]

CHECKSUM_START = 20
"""The checksum covers the container from this byte on."""

_SHIFTS = (7, 12, 17, 22) * 4 + (5, 9, 14, 20) * 4 + (4, 11, 16, 23) * 4 + (6, 10, 15, 21) * 4
_SINES = tuple(int(abs(math.sin(i + 1)) * 2**32) & 0xFFFFFFFF for i in range(64))
# which message word round i reads (RFC 1321 section 3.4)
_WORDS = tuple(i if i < 16 else (5 * i + 1) % 16 if i < 32 else (3 * i + 5) % 16 if i < 48
               else (7 * i) % 16 for i in range(64))
_INITIAL = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)
_MASK = 0xFFFFFFFF


# One row per round: (message word, shift, sine) of each of its 16 steps.
_ROUNDS = tuple(tuple((_WORDS[i], _SHIFTS[i], _SINES[i]) for i in range(r * 16, r * 16 + 16))
                for r in range(4))


def _compress(state: tuple[int, int, int, int], block: bytes) -> tuple[int, int, int, int]:
    """MD5's compression of one 64-byte block (RFC 1321 section 3.4), one loop per round so
    that no step branches on its round (this runs once per 64 bytes of the container)."""
    x = struct.unpack("<16I", block)
    a, b, c, d = state
    m = _MASK
    for k, s, t in _ROUNDS[0]:
        v = (a + (d ^ (b & (c ^ d))) + t + x[k]) & m
        a, d, c, b = d, c, b, (b + ((v << s) | (v >> (32 - s)))) & m
    for k, s, t in _ROUNDS[1]:
        v = (a + (c ^ (d & (b ^ c))) + t + x[k]) & m
        a, d, c, b = d, c, b, (b + ((v << s) | (v >> (32 - s)))) & m
    for k, s, t in _ROUNDS[2]:
        v = (a + (b ^ c ^ d) + t + x[k]) & m
        a, d, c, b = d, c, b, (b + ((v << s) | (v >> (32 - s)))) & m
    for k, s, t in _ROUNDS[3]:
        v = (a + (c ^ (b | (~d & m))) + t + x[k]) & m
        a, d, c, b = d, c, b, (b + ((v << s) | (v >> (32 - s)))) & m
    return ((state[0] + a) & m, (state[1] + b) & m, (state[2] + c) & m, (state[3] + d) & m)


def dxbc_checksum(container: bytes | memoryview) -> bytes:
    """The checksum D3D expects in bytes 4-19 of ``container`` (computed over bytes 20 on).

    Arguments:
        container: the whole container, at least 20 bytes.

    Returns:
        16 bytes.
    """
    data = bytes(container[CHECKSUM_START:])
    size = len(data)
    full = size - size % 64
    state = _INITIAL
    for at in range(0, full, 64):
        state = _compress(state, data[at:at + 64])
    rest = data[full:]
    bits = (size * 8) & _MASK
    last = struct.pack("<I", (bits >> 2) | 1)
    if len(rest) < 56:
        state = _compress(state, struct.pack("<I", bits) + rest + b"\x80"
                          + bytes(55 - len(rest)) + last)
    else:
        state = _compress(state, rest + b"\x80" + bytes(63 - len(rest)))
        state = _compress(state, struct.pack("<I", bits) + bytes(56) + last)
    return struct.pack("<4I", *state)
