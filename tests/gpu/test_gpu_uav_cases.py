"""A case's UAVs (examples/cases/uav_vertex_writes.json, docs/case-format.md): the CPU
reference's bytes after the draw and every GPU path's, each from the case's own bytes, against
the values worked out by hand in the case's description; cross_check compares them bit for
bit; the result documents carry them.

By hand: vertex i at (x, y) = (1, 2), (0.5, -1), (-3, 0.25), (10, 20) writes view element i of
Out (buffer element 1 + i) = (2x, 2y, i, 0), the last from ``Out[i + 3]`` past the 3-element
view (0, though the buffer holds 99.0 there); vertex 3's write is past the view and dropped.
Raw's view is buffer words 2..13: word 2 + i = bits of x + y (3.0, -0.5, -2.75, 30.0); the
Store4 at view byte 16 + 16i lands in buffer words 6 + 4i .. 9 + 4i for i = 0, 1 (i, i*i, 7,
bits of y) and is dropped for i = 2, 3 (view words 12..19).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import reference_uavs, run_case, run_cpu, run_reference
from gpuia.harness.run_gpu import run_case_gpu
from helpers import EXAMPLE_CASES

SENTINEL = 0xEEEEEEEE


def _case():
    return load_case(str(EXAMPLE_CASES / "uav_vertex_writes.json"))


def _bits(*floats) -> list[int]:
    return np.array(floats, np.float32).view(np.uint32).tolist()


def _expected() -> dict[str, bytes]:
    out = np.full((5, 4), 99, np.float32)
    out[1:4] = [[2, 4, 0, 0], [1, -2, 1, 0], [-6, 0.5, 2, 0]]
    raw = np.full(20, SENTINEL, np.uint32)
    raw[2:6] = _bits(3.0, -0.5, -2.75, 30.0)
    raw[6:10] = [0, 0, 7, *_bits(2.0)]
    raw[10:14] = [1, 1, 7, *_bits(-1.0)]
    return {"u0": out.tobytes(), "u1": raw.tobytes()}


def test_cpu_reference_by_hand():
    case = _case()
    assert reference_uavs(case, run_reference(case)) == _expected()


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_each_gpu_path_by_hand(gpu_device, path):
    case = _case()
    first = run_case_gpu(case, gpu_device, path=path)
    assert first.path == path and first.uavs == _expected()
    # a second run starts from the case's bytes again (a new buffer per run)
    assert run_case_gpu(case, gpu_device, path=path).uavs == _expected()


def test_cross_check_compares_them(gpu_device):
    result = cross_check(_case(), gpu_device, paths=("native", "pulling"))
    lines = [line for line in result.lines if line.path in ("native", "pulling")]
    assert len(lines) == 2 and result.ok, result.text()
    for line in lines:
        assert line.status == "OK" and "UAVs u0, u1: bit for bit" in line.detail, line.text()


@pytest.mark.parametrize("root_signature, held_by", [
    ("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), UAV(u0), UAV(u1)",
     ["root descriptor", "root descriptor"]),
    ({"flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"],
      "parameters": [{"type": "descriptor_table", "visibility": "vertex",
                      "ranges": [{"type": "uav", "num_descriptors": 2,
                                  "base_shader_register": 0}]}]}, ["table", "table"]),
])
def test_through_a_root_signature(gpu_device, root_signature, held_by):
    """Root UAVs or a UAV range hold u0 and u1: the CPU reference and both paths give the
    hand values, and the path lines compare them as without a root signature."""
    doc = json.loads((EXAMPLE_CASES / "uav_vertex_writes.json").read_text())
    doc["root_signature"] = root_signature
    case = load_case(doc)
    assert [r.kind for _, _, r in case.root_signature.covered] == held_by
    assert reference_uavs(case, run_reference(case)) == _expected()
    result = cross_check(case, gpu_device, paths=("native", "pulling"))
    lines = [line for line in result.lines if line.path in ("native", "pulling")]
    assert len(lines) == 2 and result.ok, result.text()
    for line in lines:
        assert "UAVs u0, u1: bit for bit" in line.detail, line.text()
    assert run_case_gpu(case, gpu_device, path="native").uavs == _expected()


def test_result_documents_carry_them(gpu_device):
    case = _case()
    want = [{"register": 0, "space": 0, "hex": _expected()["u0"].hex()},
            {"register": 1, "space": 0, "hex": _expected()["u1"].hex()}]
    assert run_cpu(case).document["unordered_access_views"] == want
    _, doc = run_case(case, "gpu", path="native", device=gpu_device)
    assert doc["unordered_access_views"] == want


COUNTING = r"""
RWStructuredBuffer<float4> Out : register(u0);
RWByteAddressBuffer Raw : register(u1);
float4 main(float2 p : POSITION, uint id : SV_VertexID) : SV_Position {
    Out[id] = Out[id] + 1;  // depends on how many times the vertex ran
    Raw.Store(0, id);       // every vertex writes word 0: depends on their order
    return float4(p, 0, 1);
}
"""


@pytest.mark.parametrize("body, changed", [
    (COUNTING, "u0, u1"),
    (COUNTING.replace("Out[id] = Out[id] + 1;", "Out[id] = 1;"), "u1"),
])
def test_writes_that_depend_on_invocations_are_not_compared(gpu_device, body, changed):
    """D3D leaves such contents undefined (rules 18): the path lines say so, naming the UAVs,
    and compare the IA as before; nothing is reported DIFFERENT."""
    doc = json.loads((EXAMPLE_CASES / "uav_vertex_writes.json").read_text())
    doc["vertex_shader"]["hlsl"] = body
    result = cross_check(load_case(doc), gpu_device, paths=("native",))
    (line,) = [line for line in result.lines if line.path == "native"]
    assert line.status == "OK" and result.ok, result.text()
    assert f"UAVs u0, u1: not compared: the contents of {changed} depend on how many times " \
        f"or in which order the vertices ran" in line.detail, line.detail
