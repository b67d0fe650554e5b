"""The capture's distinct fetch indices (gpuia.gpu.context.capture.sorted_unique): ascending
and distinct whether the values are dense (a presence mask) or sparse (a sort), with numpy's
own unique as the independent oracle, across the 32-bit range's ends."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.gpu.context.capture import sorted_unique

RNG = np.random.default_rng(2026)
CASES = {
    "empty": np.zeros(0, np.int64),
    "one": np.array([7], np.int64),
    "dense mesh-like": RNG.integers(0, 1000, 6000),
    "dense near 2**32": RNG.integers(2**32 - 500, 2**32, 3000),
    "sparse": RNG.integers(0, 2**32, 5000),
    "sparse with both ends": np.array([0, 2**32 - 1, 0, 5, 2**32 - 1], np.int64),
    "repeats only": np.full(100, 123456, np.int64),
    "increasing uint32 (a draw without indices)": np.arange(5, 3000, dtype=np.uint32),
    "increasing, then one repeat at the end": np.append(np.arange(200, dtype=np.uint32),
                                                        np.uint32(199)),
    "increasing but for one pair": np.arange(300, dtype=np.uint32)[[*range(150), 151, 150,
                                                                    *range(152, 300)]],
}


@pytest.mark.parametrize("name", CASES)
def test_sorted_unique_is_numpys_unique(name):
    values = CASES[name]
    got = sorted_unique(values)
    assert got.dtype == np.uint32
    assert got.tolist() == np.unique(values).tolist()


def test_increasing_fetch_indices_are_kept_as_they_are():
    """Strictly increasing uint32 indices are their own distinct sorted values: no copy, and
    read-only, so the capture's keys cannot change the draw's fetch indices."""
    values = np.arange(10, 70000, 3, dtype=np.uint32)
    got = sorted_unique(values)
    assert np.shares_memory(got, values) and not got.flags.writeable
    assert got.tolist() == values.tolist()
