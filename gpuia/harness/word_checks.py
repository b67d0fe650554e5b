"""Checks of 32-bit words that :func:`gpuia.harness.compare.compare` applies a part of rows at a
time: float NaN pairs (rules 2.5), the 1-ULP distance of the native fetch's allowance, and a
contiguous copy of a strided element view, each the plain definition's answer for every
pattern, in fewer passes over the words than the plain definition takes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["unmark_nan_pairs", "within_one_ulp", "contiguous_rows"]


def unmark_nan_pairs(a: np.ndarray, b: np.ndarray, diff: np.ndarray) -> None:
    """Clear ``diff`` where both floats are NaN (rules 2.5: payloads are not specified). A
    whole-array NaN test of ``a`` (a and b may be strided views) is far cheaper than gathering
    the differing components, and most arrays hold no NaN at all: then nothing is cleared."""
    nan_a = np.isnan(a.view(np.float32))
    if not nan_a.any():
        return
    nan_a &= np.isnan(b.view(np.float32))
    diff &= ~nan_a


def within_one_ulp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether float32 patterns ``a`` and ``b`` are at most one unit in the last place apart on
    the ordered integer line, in uint32 arithmetic without int64 copies. A pattern's place on
    the ordered line is ``x`` for a clear sign bit and ``-(x & 0x7fffffff)`` for a
    set one: with equal sign bits the distance is ``|a - b|`` (at most 2**31 - 1, so ``a - b``
    modulo 2**32 is 2**32 - 1, 0 or 1 exactly when it is -1, 0 or 1), with different ones the
    sum of the magnitudes."""
    d = a - b
    d += np.uint32(1)
    near = d <= 2
    cross = (a ^ b) >= 0x80000000  # the sign bits differ (rare: values around zero)
    if cross.any():
        magnitude = np.uint32(0x7FFFFFFF)
        near[cross] = (a[cross] & magnitude) + (b[cross] & magnitude) <= 1
    return near


_ROW = np.dtype((np.void, 16))  # one element's four words, copied as one item


def contiguous_rows(bits: np.ndarray) -> np.ndarray:
    """``bits`` (uint32 ``(n, 4)``), C-contiguous: a copy where it is a strided view, such as a
    GPU result's element columns of its records. numpy loops over a strided ``(n, 4)`` array
    four words at a time (several times slower than over contiguous words), so each chunk is
    copied once, a row of four words as one 16-byte item, and compared contiguously."""
    if bits.flags.c_contiguous:
        return bits
    if bits.ndim == 2 and bits.shape[1] == 4 and bits.strides[1] == bits.itemsize == 4:
        return np.ascontiguousarray(bits.view(_ROW)).view(bits.dtype).reshape(-1, 4)
    return np.ascontiguousarray(bits)
