"""The vertex shader outputs' comparison (gpuia.harness.compare_outputs) and their place in result
documents, on hand-made bit patterns: integers bit for bit, floats within the stated shader
tolerance (counted), NaN by class, a missing record a difference."""

from __future__ import annotations

import numpy as np

from gpuia.d3d.signature import Member
from gpuia.harness.compare import ShaderTolerance
from gpuia.harness.compare_outputs import compare_outputs, outputs_table
from gpuia.harness.results import result_json, typed_outputs
from gpuia.reference import IAResult

POS = Member("SV_Position", "SV_POSITION", 0, "float", 4, "vec4<f32>")
ID = Member("TEXCOORD0", "TEXCOORD", 0, "uint", 1, "u32")
MEMBERS = (POS, ID)


def f32(*values) -> np.ndarray:
    return np.array(values, np.float32).view(np.uint32)


def sides(n=3):
    pos = np.tile(f32(1.0, 2.0, 0.0, 1.0), (n, 1))
    ids = np.arange(n, dtype=np.uint32).reshape(n, 1)
    return {"SV_POSITION0": pos, "TEXCOORD0": ids}, {"SV_POSITION0": pos.copy(),
                                                      "TEXCOORD0": ids.copy()}


def test_equal_outputs_match_and_nothing_is_tolerated():
    cpu, gpu = sides()
    cmp = compare_outputs(cpu, gpu, np.zeros(3, bool), MEMBERS)
    assert cmp.ok and cmp.tolerated_count == 0
    assert cmp.summary() == "3/3 invocations' outputs match"


def test_an_integer_one_off_is_a_difference():
    cpu, gpu = sides()
    gpu["TEXCOORD0"][1, 0] += 1
    cmp = compare_outputs(cpu, gpu, np.zeros(3, bool), MEMBERS)
    assert not cmp.ok
    assert cmp.bad_rows.tolist() == [False, True, False]
    assert cmp.summary() == "2/3 invocations' outputs match, TEXCOORD0: 1 differ"


def test_floats_within_the_tolerance_are_counted_and_beyond_it_differ():
    cpu, gpu = sides()
    # 1.0 is 0x3f800000: +3 ULP is within the default 64; 2.0 + 65 ULP is beyond it (and
    # 65 * 2**-22 = 1.5e-5 is just under 2**-16 = 1.53e-5: absolute also decides it, so a
    # 2.0 + 100 ULP (2.4e-5) is needed to differ).
    gpu["SV_POSITION0"][0, 0] += 3
    gpu["SV_POSITION0"][2, 1] += 100
    cmp = compare_outputs(cpu, gpu, np.zeros(3, bool), MEMBERS)
    assert cmp.mismatches["SV_POSITION0"][2].tolist() == [False, True, False, False]
    assert cmp.tolerated["SV_POSITION0"][0].tolist() == [True, False, False, False]
    assert cmp.tolerated_count == 1 and cmp.largest_ulp == 3
    assert cmp.summary() == ("2/3 invocations' outputs match, SV_POSITION0: 1 differ, 1 float "
                             "components within the shader tolerance (64 ULP or 1.52588e-05 "
                             "absolute; largest 3 ULP)")


def test_near_zero_the_absolute_tolerance_applies():
    cpu, gpu = sides()
    cpu["SV_POSITION0"][0, 2] = f32(1e-7)[0]
    gpu["SV_POSITION0"][0, 2] = f32(-1e-7)[0]  # billions of ULP apart, 2e-7 absolute
    cmp = compare_outputs(cpu, gpu, np.zeros(3, bool), MEMBERS)
    assert cmp.ok and cmp.tolerated_count == 1
    tight = compare_outputs(cpu, gpu, np.zeros(3, bool), MEMBERS,
                            tolerance=ShaderTolerance(64, 1e-8))
    assert not tight.ok


def test_nan_matches_nan_whatever_the_payload_and_exact_refuses_one_ulp():
    cpu, gpu = sides()
    cpu["SV_POSITION0"][1, 3] = 0x7FC00000
    gpu["SV_POSITION0"][1, 3] = 0x7FC00001
    cmp = compare_outputs(cpu, gpu, np.zeros(3, bool), MEMBERS)
    assert cmp.ok and cmp.tolerated_count == 0
    gpu["SV_POSITION0"][0, 0] += 1
    exact = compare_outputs(cpu, gpu, np.zeros(3, bool), MEMBERS, tolerance=None)
    assert not exact.ok and exact.mismatches["SV_POSITION0"][0, 0]
    assert not exact.mismatches["SV_POSITION0"][1, 3]


def test_a_missing_record_differs_and_a_missing_cpu_output_reads_zero():
    cpu, gpu = sides()
    del cpu["TEXCOORD0"]
    gpu["TEXCOORD0"][:] = 0
    cmp = compare_outputs(cpu, gpu, np.array([False, False, True]), MEMBERS)
    assert cmp.bad_rows.tolist() == [False, False, True]
    assert cmp.summary() == "2/3 invocations' outputs match, 1 not written by the GPU"


def _ia(n=3) -> IAResult:
    z = np.zeros(n, np.uint32)
    return IAResult(topology=None, draw=z, instance=z, vertex=np.arange(n, dtype=np.uint32),
                    vertex_id=np.arange(n, dtype=np.uint32), fetch_index=z, inputs={},
                    primitives=np.zeros((0, 1), np.uint32), adjacency=None,
                    primitive_draw=np.zeros(0, np.uint32))


def test_the_table_marks_differences_and_tolerated_values():
    cpu, gpu = sides()
    gpu["TEXCOORD0"][2, 0] = 7
    gpu["SV_POSITION0"][0, 0] += 1  # 1 + 2**-23 = 1.00000012 to 9 digits
    cmp = compare_outputs(cpu, gpu, np.zeros(3, bool), MEMBERS)
    text = outputs_table(_ia(), cpu, gpu, cmp, only_differences=False)
    rows = text.splitlines()[2:]
    assert rows[0].startswith("~") and "1 2 0 1 ~ 1.00000012 2 0 1" in rows[0]
    assert rows[1].startswith(" ") and "!=" not in rows[1] and "~" not in rows[1]
    assert rows[2].startswith("!") and "2 != 7" in rows[2]
    only = outputs_table(_ia(), cpu, gpu, cmp, only_differences=True).splitlines()[2:]
    assert len(only) == 1 and "2 != 7" in only[0]


def test_result_documents_write_outputs_beside_inputs_with_their_own_components():
    cpu, _ = sides(2)
    doc = result_json("c", _ia(2), outputs=typed_outputs(MEMBERS, cpu))
    inv = doc["invocations"]
    assert inv[1]["outputs"] == {
        "SV_POSITION0": {"type": "float", "bits": [0x3F800000, 0x40000000, 0, 0x3F800000],
                         "value": [1.0, 2.0, 0.0, 1.0]},
        "TEXCOORD0": {"type": "uint", "bits": [1], "value": [1]}}
    assert "outputs" not in result_json("c", _ia(2))["invocations"][0]
