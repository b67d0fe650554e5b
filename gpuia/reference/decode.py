"""Exact numpy decoding of vertex elements, driven by the format table.

An element is read as little-endian 32-bit words (the last one partly for 1- and 2-byte formats,
the extra bytes ignored); each channel is ``(word >> shift) & mask`` and is converted by its
channel kind, then the row's swizzle places channels and constants in x, y, z, w. The output of
every decoder is the four 32-bit patterns the shader sees, so float results are exact bits, not
approximations (rules section 2):

* UNORM: ``c / (2**n - 1)`` in float32, correctly rounded (IEEE division).
* SNORM: ``max(c / (2**(n-1) - 1), -1)``: the two most negative codes both give -1.0.
* UINT/SINT: zero- or sign-extended to 32 bits.
* FLOAT32: the bits unchanged (no denormal flush). FLOAT16: exact widening, denormals become
  normal float32 values, infinities stay infinite, NaN stays NaN (numpy's conversion, which shifts
  the payload; gpuia compares NaN by class).
* 11- and 10-bit unsigned floats (R11G11B10_FLOAT): 5-bit exponent with bias 15, no sign; every
  value is exactly representable in float32.
"""

from __future__ import annotations

import numpy as np

from ..d3d.formats import ONE_BITS, Channel, FormatInfo

# ONE_BITS is the format table's (gpuia.d3d.formats); it stays importable from here.
__all__ = ["decode_elements", "decode_words", "gather_words", "ONE_BITS", "bits_to_values"]

U32 = np.uint32


def _sign_extend(raw: np.ndarray, bits: int) -> np.ndarray:
    shift = U32(32 - bits)
    return (raw << shift).view(np.int32) >> np.int32(32 - bits)


# How a channel that fills whole bytes at a byte boundary reads as one numpy scalar of the
# element's memory, by (kind, bits): the signed kinds as two's complement (the cast to 32 bits
# is the sign extension), FLOAT16 as half (the cast to float32 widens exactly), FLOAT32 and the
# unsigned kinds as unsigned integers (the bits unchanged). Every other channel (packed, or an
# 11/10-bit float) is read from its 32-bit word as ``(word >> shift) & mask``.
_WHOLE_BYTES_DTYPE = {
    ("un", 8): "u1", ("un", 16): "<u2",
    ("sn", 8): "i1", ("sn", 16): "<i2",
    ("u", 8): "u1", ("u", 16): "<u2", ("u", 32): "<u4",
    ("s", 8): "i1", ("s", 16): "<i2", ("s", 32): "<i4",
    ("f", 16): "<f2", ("f", 32): "<u4",
}

# The kinds whose codes are two's complement: a packed one is sign-extended from its bits.
_SIGNED_KINDS = frozenset({"sn", "s"})


# Each converter writes the channel's 32-bit patterns into ``col``, a uint32 column of the
# output, straight from ``raw``: the channel's codes as _WHOLE_BYTES_DTYPE reads them, or as
# uint32 (int32 for the signed kinds) when they were shifted out of a word. The division of the
# normalized kinds is float32 division of exactly representable integers, so each result is the
# correctly rounded quotient (rules 2.2, 2.3).
def _unorm(raw, bits, col):
    np.divide(raw, np.float32((1 << bits) - 1), out=col.view(np.float32), dtype=np.float32)


def _snorm(raw, bits, col):
    f = col.view(np.float32)
    np.divide(raw, np.float32((1 << (bits - 1)) - 1), out=f, dtype=np.float32)
    np.maximum(f, np.float32(-1.0), out=f)


def _uint(raw, bits, col):
    np.copyto(col, raw, casting="unsafe")  # zero extension


def _sint(raw, bits, col):
    np.copyto(col.view(np.int32), raw, casting="unsafe")  # sign extension


def _float(raw, bits, col):
    if bits == 32:
        np.copyto(col, raw, casting="unsafe")  # the bits, unchanged
        return
    if raw.dtype != np.float16:
        raw = raw.astype(np.uint16).view(np.float16)
    np.copyto(col.view(np.float32), raw, casting="unsafe")


def _ufloat(raw, bits, col):
    mbits = bits - 5
    exp = (raw >> U32(mbits)) & U32(31)
    mant = raw & U32((1 << mbits) - 1)
    normal = ((exp + U32(127 - 15)) << U32(23)) | (mant << U32(23 - mbits))
    # Denormals: mant * 2**(-14 - mbits), exact in float32.
    denorm = (mant.astype(np.float64) * 2.0 ** (-14 - mbits)).astype(np.float32).view(U32)
    special = U32(0x7F800000) | np.where(mant != 0, U32(0x00400000) | (mant << U32(23 - mbits)),
                                         U32(0))
    np.copyto(col, np.where(exp == 0, denorm, np.where(exp == 31, special, normal)),
              casting="unsafe")


_DECODERS = {"un": _unorm, "sn": _snorm, "u": _uint, "s": _sint, "f": _float, "uf": _ufloat}


def _whole_bytes(c: Channel) -> str | None:
    """The numpy scalar that reads channel ``c`` straight from the element's bytes, or None when
    it must be shifted out of its word."""
    dtype = _WHOLE_BYTES_DTYPE.get((c.kind, c.bits))
    return dtype if dtype is not None and c.bit_offset % 8 == 0 else None


def _word_codes(c: Channel, elements: np.ndarray, words: dict[int, np.ndarray]) -> np.ndarray:
    """The codes of channel ``c`` of every element, shifted and masked out of its 32-bit word
    (each word read once, cached in ``words``); sign-extended for the signed kinds."""
    word = words.get(c.word)
    if word is None:
        first = 4 * c.word
        width = min(4, elements.shape[1] - first)  # 1- and 2-byte elements are one short word
        word = elements[:, first : first + width].view(f"<u{width}")[:, 0].astype(U32)
        words[c.word] = word
    raw = word >> U32(c.shift) if c.shift else word
    if c.bits < 32:
        raw = raw & U32(c.mask)
    return _sign_extend(raw, c.bits) if c.kind in _SIGNED_KINDS else raw


def decode_elements(fmt: FormatInfo, elements: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Decode elements from their bytes into the four components the shader receives, exactly
    as the module docstring states, default fill included (rules 2.11), straight from
    ``elements``, which may be a strided view of a vertex buffer. Channels that fill whole
    bytes and land in consecutive components in memory order (R8G8B8A8, R32G32B32, ...) are
    converted together, in one pass over the rows.

    Arguments:
        fmt (FormatInfo): the elements' format row.
        elements (numpy.ndarray): uint8, shape ``(n, k)`` with ``k >= fmt.size``: each row
            starts with one element's bytes (the others are ignored); any row stride, each row's
            bytes consecutive.
        out (numpy.ndarray): uint32, shape ``(n, 4)``, writable, any strides: where the
            components' 32-bit patterns go. It may not overlap ``elements``.

    Returns:
        ``out``, every component written.
    """
    words: dict[int, np.ndarray] = {}
    done: dict[str, int] = {}
    one = ONE_BITS[fmt.shader_type]
    swizzle = fmt.swizzle
    i = 0
    while i < 4:
        s = swizzle[i]
        if s in "01":
            out[:, i] = one if s == "1" else 0
            i += 1
            continue
        if s in done:  # a channel the swizzle names twice is decoded once
            out[:, i] = out[:, done[s]]
            i += 1
            continue
        first = "xyzw".index(s)
        c = fmt.channels[first]
        assert c.kind != "x"  # the swizzle reads channels the format has
        dtype = _whole_bytes(c)
        if dtype is None:
            _DECODERS[c.kind](_word_codes(c, elements, words), c.bits, out[:, i])
            done[s] = i
            i += 1
            continue
        # The run of components i, i+1, ... that read channels first, first+1, ... of the same
        # kind and width: consecutive in memory, so one 2-D view reads them all. Only 8- and
        # 16-bit channels are grouped: a 32-bit channel is one plain copy, and numpy copies
        # whole columns faster than rows of two to four words.
        m = 1
        while (c.bits < 32 and i + m < 4 and first + m < len(fmt.channels)
               and swizzle[i + m] in "xyzw" and "xyzw".index(swizzle[i + m]) == first + m
               and swizzle[i + m] not in done
               and (fmt.channels[first + m].kind, fmt.channels[first + m].bits)
               == (c.kind, c.bits)):
            m += 1
        start = c.bit_offset // 8
        codes = elements[:, start : start + m * (c.bits // 8)].view(dtype)
        _DECODERS[c.kind](codes, c.bits, out[:, i : i + m])
        for k in range(m):
            done[swizzle[i + k]] = i + k
        i += m
    return out


def decode_words(fmt: FormatInfo, words: np.ndarray) -> np.ndarray:
    """Decode elements into the four components the shader receives, exactly as the module
    docstring states, default fill included (rules 2.11). Bits of a word outside the format's
    channels are ignored.

    Arguments:
        fmt (FormatInfo): the elements' format row.
        words (numpy.ndarray): uint32, shape ``(n, fmt.words)``: each element's little-endian
            32-bit words (as :func:`gather_words` reads them).

    Returns:
        uint32, shape ``(n, 4)``: the components' 32-bit patterns.
    """
    n = words.shape[0]
    nbytes = 4 * words.shape[1]
    elements = np.ascontiguousarray(words, dtype="<u4").view(np.uint8).reshape(n, nbytes)
    return decode_elements(fmt, elements[:, : fmt.size], np.empty((n, 4), dtype=U32))


def gather_words(data: np.ndarray, addresses: np.ndarray, nwords: int) -> np.ndarray:
    """Read little-endian 32-bit words at byte addresses. Addresses need no alignment. Bytes
    past the end of ``data`` read as zero (callers only ask for them in the unused tail of a 1-
    or 2-byte element's word); bounds of a view are the caller's check (rules 6.3).

    Arguments:
        data (numpy.ndarray): a one-dimensional uint8 array (:func:`gpuia.reference.ia.as_bytes`).
        addresses (numpy.ndarray): non-negative integer byte addresses, one per element to read.
        nwords (int): the words to read at each address.

    Returns:
        uint32, shape ``(len(addresses), nwords)``: a new array, never a view of ``data``.
    """
    n = addresses.shape[0]
    nbytes = 4 * nwords
    if n == 0:
        return np.zeros((0, nwords), dtype=U32)
    size = data.shape[0]
    if size == 0:
        return np.zeros((n, nwords), dtype=U32)
    if size >= 4 and not np.any(addresses & 3):
        # Aligned fast path: index a uint32 view of the same memory (no copy of the buffer).
        word_view = data[: size - size % 4].view("<u4")
        first = addresses >> 2
        inside = first + nwords <= word_view.shape[0]
        if inside.all():
            if nwords == 1:
                return word_view[first][:, None].astype(U32, copy=False)
            return word_view[first[:, None] + np.arange(nwords)].astype(U32, copy=False)
    idx = addresses[:, None] + np.arange(nbytes)
    inside = idx < size
    raw = data[np.where(inside, idx, 0)]
    raw[~inside] = 0
    return np.ascontiguousarray(raw).view("<u4").astype(U32, copy=False).reshape(n, nwords)


def bits_to_values(bits: np.ndarray, shader_type: str) -> np.ndarray:
    """View 32-bit patterns as the shader's values.

    Arguments:
        bits (numpy.ndarray): uint32 patterns, any shape.
        shader_type (str): ``"float"``, ``"uint"`` or ``"sint"``.

    Returns:
        The same memory viewed as float32, uint32 or int32 (no copy).

    Raises:
        KeyError: ``shader_type`` is none of the three.
    """
    return bits.view({"float": np.float32, "uint": np.uint32, "sint": np.int32}[shader_type])
