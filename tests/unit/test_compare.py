"""gpuia's comparison rules (rules 2.5, and the native path's 1-ULP allowance for UNORM/SNORM
fetch, docs/gpu.md) on hand-made results: equal bits agree, NaN against NaN agrees for float
inputs only, and only a native draw's normalized element tolerates one ULP. The differences sit
at scattered rows and components of a long run, where the bulk word comparison must find them."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from gpuia.harness.compare import compare

N = 1000
ONE = 0x3F800000  # 1.0f
ONE_BELOW = 0x3F7FFFFF  # the float just below 1.0: 1 ULP away
TWO_BELOW = 0x3F7FFFFE  # 2 ULPs away
QNAN, QNAN_OTHER = 0x7FC00000, 0x7FC00001  # two NaN payloads


def _data(type_, fill=ONE):
    return SimpleNamespace(bits=np.full((N, 4), fill, np.uint32), type=type_)


def _runs(changes, types=None, paths=("native",), draws=None):
    """(reference, GPU) runs of one draw of N invocations with elements A (float) and B
    (uint); ``changes``: (key, row, component, reference bits, GPU bits)."""
    types = types or {"A0": "float", "B0": "uint"}
    ref_inputs = {k: _data(t) for k, t in types.items()}
    gpu_inputs = {k: _data(t) for k, t in types.items()}
    for key, row, comp, rb, gb in changes:
        ref_inputs[key].bits[row, comp] = rb
        gpu_inputs[key].bits[row, comp] = gb
    draw = np.zeros(N, np.int32) if draws is None else draws
    ids = np.arange(N, dtype=np.uint32)
    ref = _Reference(inputs=ref_inputs, draw=draw, vertex_id=ids,
                     instance=np.zeros(N, np.uint32))
    gpu = SimpleNamespace(ia=SimpleNamespace(inputs=gpu_inputs, vertex_id=ids.copy(),
                                             instance=np.zeros(N, np.uint32)),
                          plans=[SimpleNamespace(path=p) for p in paths],
                          missing=np.zeros(N, bool), unexpected=0)
    return ref, gpu


class _Reference(SimpleNamespace):
    """What compare() reads of an IAResult: its inputs, per-invocation ids and its length."""

    def __len__(self):
        return N


def _layout(normalized=("A0",)):
    """A stand-in layout: the elements compare() asks whether they are normalized."""
    keys = ("A0", "B0")
    return SimpleNamespace(elements=[SimpleNamespace(key=k, format=SimpleNamespace(
        is_normalized=k in normalized)) for k in keys])


@pytest.fixture(autouse=True, params=["one piece", "chunks of 64 rows",
                                        "chunks of 64 rows in parts of 24"])
def _chunking(request, monkeypatch):
    """Every rule holds whether the rows are compared in one piece or in row chunks on the
    thread pool (the differences then sit in different chunks, the counts summed over them),
    each checked in parts of fewer rows."""
    if request.param != "one piece":
        monkeypatch.setattr("gpuia.util.parallel.CHUNK_ROWS", 64)
    if request.param.endswith("parts of 24"):
        monkeypatch.setattr("gpuia.harness.compare.PART_ROWS", 24)


def test_equal_bits_agree_everywhere():
    cmp = compare(*_runs([]), _layout())
    assert cmp.ok and cmp.tolerated == 0 and not cmp.bad_rows.any()


def test_nan_against_nan_agrees_for_float_inputs_only():
    """rules 2.5: NaNs are compared by class (any NaN equals any NaN) where the shader reads
    floats; an integer input's bits are its value, so the same codes differ there."""
    cmp = compare(*_runs([("A0", 3, 2, QNAN, QNAN_OTHER), ("B0", 997, 1, QNAN, QNAN_OTHER)]))
    assert not cmp.element_mismatches["A0"].any()
    assert np.flatnonzero(cmp.element_mismatches["B0"].any(axis=1)).tolist() == [997]
    assert cmp.element_mismatches["B0"][997].tolist() == [False, True, False, False]
    assert np.flatnonzero(cmp.bad_rows).tolist() == [997]


def test_a_nan_against_a_number_differs():
    cmp = compare(*_runs([("A0", 500, 0, QNAN, ONE)]))
    assert np.flatnonzero(cmp.bad_rows).tolist() == [500]


@pytest.mark.parametrize("gpu_bits,tolerated", [
    (ONE_BELOW, True),  # 1 ULP: the native fetch's allowance
    (TWO_BELOW, False),  # 2 ULPs: a difference
])
def test_one_ulp_is_tolerated_on_a_native_normalized_element(gpu_bits, tolerated):
    cmp = compare(*_runs([("A0", 7, 3, ONE, gpu_bits), ("A0", 999, 0, ONE, gpu_bits)]),
                  _layout())
    assert cmp.ok is tolerated
    assert cmp.tolerated == (2 if tolerated else 0)
    assert int(cmp.tolerated_mask["A0"].sum()) == cmp.tolerated
    if tolerated:
        assert cmp.tolerated_mask["A0"][7, 3] and cmp.tolerated_mask["A0"][999, 0]
    else:
        assert np.flatnonzero(cmp.bad_rows).tolist() == [7, 999]


def test_signed_zeros_are_zero_ulps_apart_but_differ_exactly():
    """+0 (0x00000000) and -0 (0x80000000) are 0 apart on the ordered integer line: tolerated
    on a native normalized element; compared exactly (no layout) they differ."""
    changes = [("A0", 42, 1, 0x00000000, 0x80000000)]
    assert compare(*_runs(changes), _layout()).tolerated == 1
    assert np.flatnonzero(compare(*_runs(changes)).bad_rows).tolist() == [42]


@pytest.mark.parametrize("ref_bits,gpu_bits,tolerated", [
    # On the ordered integer line a pattern with the sign bit set sits at -(its magnitude):
    (0x80000001, 0x00000000, True),  # -(smallest denormal) to +0: 1 apart
    (0x80000001, 0x00000001, False),  # -(smallest denormal) to +(it): 2 apart
    (0x00000001, 0x80000000, True),  # +(smallest denormal) to -0 (at 0): 1 apart
    (0xBF800000, 0xBF7FFFFF, True),  # -1.0 to the float just above it: 1 apart
    (0xBF800000, 0xBF800002, False),  # -1.0 to 2 floats below it: 2 apart
    (0x7F7FFFFF, 0xFF7FFFFF, False),  # +FLT_MAX to -FLT_MAX: 2 * 0x7F7FFFFF apart
    (0x7F800000, 0xFF800000, False),  # +inf to -inf: 2 * 0x7F800000 apart
    (0xFF800000, 0x7F800000, False),
])
def test_the_allowance_measures_ulps_across_the_sign(ref_bits, gpu_bits, tolerated):
    """The 1-ULP allowance counts units on the ordered line across zero (an SNORM element
    may be negative), and distances near 2**32 are not mistaken for small ones."""
    cmp = compare(*_runs([("A0", 321, 2, ref_bits, gpu_bits)]), _layout())
    assert cmp.tolerated == (1 if tolerated else 0)
    assert np.flatnonzero(cmp.bad_rows).tolist() == ([] if tolerated else [321])


def test_the_allowance_is_for_native_draws_and_normalized_elements_only():
    # Draw 0 native, draw 1 pulled: rows 0..499 and 500..999.
    draws = np.repeat(np.array([0, 1], np.int32), N // 2)
    changes = [("A0", 10, 0, ONE, ONE_BELOW), ("A0", 600, 0, ONE, ONE_BELOW)]
    cmp = compare(*_runs(changes, paths=("native", "pulling"), draws=draws), _layout())
    assert cmp.tolerated == 1 and np.flatnonzero(cmp.bad_rows).tolist() == [600]
    # Not normalized: 1 ULP is a difference on the native path too.
    cmp = compare(*_runs(changes[:1]), _layout(normalized=()))
    assert cmp.tolerated == 0 and np.flatnonzero(cmp.bad_rows).tolist() == [10]


def test_gpu_words_as_columns_of_records():
    """The GPU's elements as views of its records' columns (rows of 9 words, as a capture's
    records are read back): the same rules, the same rows found."""
    changes = [("A0", 3, 2, QNAN, QNAN_OTHER), ("A0", 64, 0, ONE, ONE_BELOW),
               ("A0", 65, 3, ONE, TWO_BELOW), ("B0", 999, 1, 5, 6)]
    ref, gpu = _runs(changes)
    records = np.zeros((N, 9), np.uint32)
    for at, key in ((1, "A0"), (5, "B0")):
        records[:, at:at + 4] = gpu.ia.inputs[key].bits
        gpu.ia.inputs[key] = SimpleNamespace(bits=records[:, at:at + 4], type=ref.inputs[key].type)
    cmp = compare(ref, gpu, _layout())
    assert cmp.tolerated == 1 and cmp.tolerated_mask["A0"][64, 0]
    assert np.flatnonzero(cmp.bad_rows).tolist() == [65, 999]
    assert cmp.element_mismatches["A0"][65].tolist() == [False, False, False, True]
    assert cmp.element_mismatches["B0"][999].tolist() == [False, True, False, False]
