"""compare_geometry (gpuia.harness.compare) on hand-made result parts, and the GPU side's
GSPrimitives count (gpuia.gpu.gs.capture.gs_primitives_count) on hand-made regions: what
``gpuia check``'s geometry shader line reports when the two sides disagree."""

from __future__ import annotations

import copy

import numpy as np

from gpuia.gpu.gs.capture import gs_primitives_count
from gpuia.harness.compare import ShaderTolerance, compare_geometry


def uint4(*x):
    return {"type": "uint", "bits": list(x), "value": list(x)}


def f32(*x):
    bits = np.array(x, np.float32).view(np.uint32).tolist()
    return {"type": "float", "bits": bits, "value": [float(v) for v in x]}


def part():
    """Two invocations of one point: GS instance 0 appends twice to stream 0 with a cut
    between, GS instance 1 once. 2 invocations; as points, 3 primitives."""
    inputs = [{"TAG0": uint4(10, 0, 0, 0)}]
    emits0 = [{"stream": 0, "outputs": {"POS0": f32(1.0, 2.0)}}, {"stream": 0, "cut": True},
              {"stream": 0, "outputs": {"POS0": f32(3.0, 4.0)}}]
    emits1 = [{"stream": 0, "outputs": {"POS0": f32(5.0, 6.0)}}]
    invs = [{"draw": 0, "instance": 0, "primitive": 0, "gs_instance": g, "inputs": inputs,
             "emits": e} for g, e in ((0, emits0), (1, emits1))]
    return {"GSInvocations": 2, "GSPrimitives": 3}, invs


def test_equal_parts_have_no_difference():
    assert compare_geometry(part(), part()) == []


def test_a_statistics_disagreement_is_reported():
    gpu = part()
    gpu[0]["GSInvocations"] = 4
    gpu[0]["GSPrimitives"] = 1
    assert compare_geometry(part(), gpu) == ["GS statistics: GSInvocations CPU 2 GPU 4",
                                             "GS statistics: GSPrimitives CPU 3 GPU 1"]


def test_a_missing_invocation_is_reported():
    gpu = part()
    del gpu[1][1]
    assert compare_geometry(part(), gpu) == ["geometry_invocations: CPU 2 invocations, GPU 1"]


def test_a_missing_cut_is_reported_at_its_emit():
    gpu = part()
    del gpu[1][0]["emits"][1]
    assert compare_geometry(part(), gpu) == [
        "geometry_invocations: 1 of 2 invocations differ, first invocation 0 (draw 0, "
        "primitive 0, GS instance 0): emit 1: CPU RestartStrip of stream 0, GPU Append to "
        "stream 0"]


def test_ids_and_inputs_are_exact():
    gpu = part()
    gpu[1][1]["gs_instance"] = 0
    assert compare_geometry(part(), gpu)[0].endswith("gs_instance CPU 1 GPU 0")
    gpu = part()
    gpu[1][0]["inputs"] = [{"TAG0": uint4(11, 0, 0, 0)}]
    assert compare_geometry(part(), gpu)[0].endswith(
        "input vertex 0: TAG0: CPU [10, 0, 0, 0] GPU [11, 0, 0, 0]")


def test_emitted_floats_are_compared_within_the_tolerance():
    near = part()
    bits = near[1][1]["emits"][0]["outputs"]["POS0"]["bits"]
    bits[0] += 3  # 3 ULP from 5.0
    assert compare_geometry(part(), near) == []
    assert compare_geometry(part(), near, ShaderTolerance(ulps=2, absolute=0.0)) == [
        "geometry_invocations: 1 of 2 invocations differ, first invocation 1 (draw 0, "
        "primitive 0, GS instance 1): emit 0 (stream 0): POS0: CPU [5.0, 6.0] GPU [5.0, 6.0]"]


def test_input_floats_are_exact_unless_a_shader_computed_them():
    ref, gpu = part(), part()
    for side in (ref, gpu):
        side[1][0]["inputs"] = [{"P0": f32(1.0)}]
    gpu[1][0]["inputs"][0]["P0"]["bits"][0] += 1
    assert len(compare_geometry(ref, copy.deepcopy(gpu))) == 1
    assert compare_geometry(ref, gpu, computed_inputs=True) == []


def regions(entries: list[list[tuple[int, bool]]], n_max: int, r: int = 1) -> np.ndarray:
    """Regions (GS_REGION) of hand-made invocations: per invocation its Appends as (stream,
    starts a strip)."""
    out = np.zeros((len(entries), 1 + n_max * (1 + r)), np.uint32)
    for i, inv in enumerate(entries):
        out[i, 0] = len(inv)
        for j, (s, start) in enumerate(inv):
            out[i, 1 + j * (1 + r)] = s | (4 if start else 0)
    return out


def test_gs_primitives_count_of_hand_made_regions():
    # Stream 0 triangles: a strip of 4 (2 triangles), a strip of 2 (none); stream 1 lines: a
    # strip of 3 (2 lines); stream 2 points: 2 (points ignore strips). 2 + 2 + 2 = 6.
    inv0 = [(0, True), (0, False), (1, True), (0, False), (0, False), (0, True), (0, False)]
    inv1 = [(1, True), (1, False), (1, False), (2, True), (2, True)]
    assert gs_primitives_count(regions([inv0, inv1], 8), (3, 2, 1), 8, 1) == 6


def test_gs_primitives_count_reads_no_entry_past_the_count():
    r = regions([[(0, True)]], 4)
    r[0, 1 + 1 * 2] = 4  # entry 1, past the count of 1: an Append of stream 0 if it were read
    assert gs_primitives_count(r, (1,), 4, 1) == 1
    assert gs_primitives_count(np.zeros((0, 9), np.uint32), (1,), 4, 1) == 0
