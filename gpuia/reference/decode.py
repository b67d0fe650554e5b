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

from ..d3d.formats import ONE_BITS, FormatInfo

# ONE_BITS is the format table's (gpuia.d3d.formats); it stays importable from here.
__all__ = ["decode_words", "gather_words", "ONE_BITS", "bits_to_values"]

U32 = np.uint32


def _sign_extend(raw: np.ndarray, bits: int) -> np.ndarray:
    shift = U32(32 - bits)
    return (raw << shift).view(np.int32) >> np.int32(32 - bits)


def _unorm(raw, bits):
    return (raw.astype(np.float32) / np.float32((1 << bits) - 1)).view(U32)


def _snorm(raw, bits):
    v = _sign_extend(raw, bits).astype(np.float32) / np.float32((1 << (bits - 1)) - 1)
    return np.maximum(v, np.float32(-1.0)).view(U32)


def _uint(raw, bits):
    return raw


def _sint(raw, bits):
    return _sign_extend(raw, bits).view(U32)


def _float(raw, bits):
    if bits == 32:
        return raw
    return raw.astype(np.uint16).view(np.float16).astype(np.float32).view(U32)


def _ufloat(raw, bits):
    mbits = bits - 5
    exp = (raw >> U32(mbits)) & U32(31)
    mant = raw & U32((1 << mbits) - 1)
    normal = ((exp + U32(127 - 15)) << U32(23)) | (mant << U32(23 - mbits))
    # Denormals: mant * 2**(-14 - mbits), exact in float32.
    denorm = (mant.astype(np.float64) * 2.0 ** (-14 - mbits)).astype(np.float32).view(U32)
    special = U32(0x7F800000) | np.where(mant != 0, U32(0x00400000) | (mant << U32(23 - mbits)),
                                         U32(0))
    return np.where(exp == 0, denorm, np.where(exp == 31, special, normal)).astype(U32)


_DECODERS = {"un": _unorm, "sn": _snorm, "u": _uint, "s": _sint, "f": _float, "uf": _ufloat}


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
    channel_values: list[np.ndarray | None] = []
    for c in fmt.channels:
        if c.kind == "x":
            channel_values.append(None)
            continue
        raw = words[:, c.word]
        if c.shift:
            raw = raw >> U32(c.shift)
        if c.bits < 32:
            raw = raw & U32(c.mask)
        channel_values.append(_DECODERS[c.kind](raw, c.bits))
    out = np.empty((n, 4), dtype=U32)
    one = ONE_BITS[fmt.shader_type]
    for i, s in enumerate(fmt.swizzle):
        if s == "0":
            out[:, i] = 0
        elif s == "1":
            out[:, i] = one
        else:
            channel = channel_values["xyzw".index(s)]
            assert channel is not None  # the swizzle reads channels the format has
            out[:, i] = channel
    return out


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
