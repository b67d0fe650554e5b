"""The word checks compare() applies (gpuia.harness.word_checks) give the plain definitions'
answers: the 1-ULP test is the distance on the ordered integer line (a pattern with the sign bit
set at -(its magnitude)) computed in Python integers, NaN pairs are cleared only where both
floats are NaN, and a strided element view's contiguous copy holds its words."""

from __future__ import annotations

import numpy as np

from gpuia.harness.word_checks import contiguous_rows, unmark_nan_pairs, within_one_ulp

SPECIAL = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00000002, 0x80000002,
           0x3F800000, 0x3F7FFFFF, 0xBF800000, 0xBF7FFFFF, 0x7F7FFFFF, 0xFF7FFFFF,
           0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7FFFFFFF, 0xFFFFFFFF]


def _place(x: int) -> int:
    return -(x & 0x7FFFFFFF) if x & 0x80000000 else x


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    """Every pair of the special patterns, and random patterns with their neighbours."""
    a = [x for x in SPECIAL for _ in SPECIAL]
    b = [y for _ in SPECIAL for y in SPECIAL]
    rng = np.random.default_rng(5)
    r = rng.integers(0, 2**32, 3000, dtype=np.uint64)
    for x, step in zip(r.tolist(), rng.integers(-2, 3, 3000).tolist(), strict=True):
        a.append(x)
        b.append((x + step) % 2**32)
        a.append(x)
        b.append(x ^ 0x80000000)
    return np.array(a, np.uint32).reshape(-1, 2), np.array(b, np.uint32).reshape(-1, 2)


def test_within_one_ulp_is_the_ordered_line_distance():
    a, b = _pairs()
    want = [abs(_place(x) - _place(y)) <= 1 for x, y in zip(a.ravel().tolist(),
                                                             b.ravel().tolist(), strict=True)]
    assert within_one_ulp(a, b).ravel().tolist() == want


def test_nan_pairs_are_cleared_where_both_are_nan_only():
    a, b = _pairs()
    diff = a != b
    unmark_nan_pairs(a, b, diff)

    def nan(x: int) -> bool:
        return (x & 0x7F800000) == 0x7F800000 and (x & 0x007FFFFF) != 0

    want = [x != y and not (nan(x) and nan(y))
            for x, y in zip(a.ravel().tolist(), b.ravel().tolist(), strict=True)]
    assert diff.ravel().tolist() == want


def test_contiguous_rows_of_a_strided_view():
    records = np.arange(7 * 15, dtype=np.uint32).reshape(7, 15)
    view = records[:, 3:7]
    got = contiguous_rows(view)
    assert got.flags.c_contiguous and got.tolist() == [[15 * r + c for c in range(3, 7)]
                                                       for r in range(7)]
    plain = np.arange(8, dtype=np.uint32).reshape(2, 4)
    assert contiguous_rows(plain) is plain
