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
from gpuia.harness.run_gpu import run_case_gpu, run_case_so_gpu
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


def _with_so(doc: dict, topology: str = "POINTLIST") -> dict:
    """The case with Stream Output of its TEXCOORD0 (4 words a vertex) into one target."""
    doc["primitive_topology"] = topology
    doc["stream_output"] = {
        "declaration": [{"SemanticName": "TEXCOORD", "ComponentCount": 4}],
        "buffer_strides": [16], "rasterized_stream": "NO_RASTERIZED_STREAM",
        "targets": [{"slot": 0, "size": 64}]}
    return doc


def test_stream_output_run_reads_them_back(gpu_device):
    """The Stream Output run starts from the case's bytes too and leaves the hand values."""
    case = load_case(_with_so(json.loads((EXAMPLE_CASES / "uav_vertex_writes.json")
                                          .read_text())))
    assert run_case_so_gpu(case, gpu_device).uavs == _expected()


def test_stream_output_and_outputs_lines_compare_them(gpu_device):
    case = load_case(_with_so(json.loads((EXAMPLE_CASES / "uav_vertex_writes.json")
                                          .read_text())))
    result = cross_check(case, gpu_device, paths=("native",))
    lines = {line.path: line for line in result.lines}
    assert result.ok, result.text()
    for path in ("native", "vs outputs", "stream output"):
        assert lines[path].status == "OK", lines[path].text()
        assert lines[path].detail.endswith("; UAVs u0, u1: bit for bit"), lines[path].text()


def test_a_difference_in_those_runs_is_reported(gpu_device, monkeypatch):
    """A UAV byte the GPU got wrong makes the line DIFFERENT, naming the word."""
    import gpuia.harness.run_gpu as run_gpu
    import gpuia.harness.run_outputs as run_outputs

    real = run_gpu.read_contents

    def flipped(case, buffers):
        got = real(case, buffers)
        got["u1"] = bytes([got["u1"][0] ^ 1]) + got["u1"][1:]
        return got

    monkeypatch.setattr(run_gpu, "read_contents", flipped)
    monkeypatch.setattr(run_outputs, "read_contents", flipped)
    case = load_case(_with_so(json.loads((EXAMPLE_CASES / "uav_vertex_writes.json")
                                          .read_text())))
    result = cross_check(case, gpu_device, paths=())
    lines = {line.path: line for line in result.lines}
    assert not result.ok
    for path in ("vs outputs", "stream output"):
        line = lines[path]
        assert line.status == "DIFFERENT" and "UAVs u0, u1: DIFFERENT" in line.detail
        # word 0 of u1 is the case's 0xEEEEEEEE, which no vertex writes
        assert line.problems == ["UAV u1: 1 of 20 words differ; first at byte 0: CPU "
                                 "0xeeeeeeee, GPU 0xeeeeeeef"], line.problems


INCOMPLETE = r"""
RWStructuredBuffer<float4> Out : register(u0);
RWByteAddressBuffer Raw : register(u1);
struct VSOut { float4 pos : SV_Position; float4 seen : TEXCOORD0; };
VSOut main(float2 p : POSITION, uint id : SV_VertexID) {
    Out[id] = float4(p, id, 1);
    Raw.Store(id * 4, id + 1);
    VSOut o; o.pos = float4(p, 0, 1); o.seen = float4(p, 0, 1); return o;
}
"""


def test_vertices_of_no_complete_primitive_are_not_compared_in_the_so_run(gpu_device):
    """A 4-vertex triangle list: vertex 3 completes no primitive, and a GPU may leave it
    unshaded (rules 4.11); the Stream Output line says so, the outputs line (every vertex a
    point) compares."""
    doc = _with_so(json.loads((EXAMPLE_CASES / "uav_vertex_writes.json").read_text()),
                   "TRIANGLELIST")
    doc["vertex_shader"]["hlsl"] = INCOMPLETE
    result = cross_check(load_case(doc), gpu_device, paths=("native",))
    lines = {line.path: line for line in result.lines}
    assert result.ok, result.text()
    assert "UAVs u0, u1: not compared: 1 of the 4 vertices the Input Assembler delivered " \
           "are no vertex of a complete primitive: the Stream Output run shades the " \
           "vertices of the primitives it writes" in lines["stream output"].detail
    assert lines["vs outputs"].detail.endswith("UAVs u0, u1: bit for bit")


def test_cut_positions_are_not_compared_in_the_outputs_run(gpu_device):
    """An indexed line strip with a cut (0xFFFF): the outputs run draws the cut position as a
    point the Input Assembler never delivers (rules 5)."""
    doc = _with_so(json.loads((EXAMPLE_CASES / "uav_vertex_writes.json").read_text()),
                   "LINESTRIP")
    doc["vertex_shader"]["hlsl"] = INCOMPLETE
    doc["index_buffer"] = {"format": "R16_UINT", "data": {"dtype": "uint16",
                                                         "values": [0, 1, 65535, 2, 3]}}
    doc["strip_cut_value"] = "0xFFFF"
    doc["draw"] = {"DrawIndexedInstanced": {"IndexCountPerInstance": 5}}
    result = cross_check(load_case(doc), gpu_device, paths=("native",))
    lines = {line.path: line for line in result.lines}
    assert result.ok, result.text()
    assert "UAVs u0, u1: not compared: the outputs run shades each of the draws' 5 index " \
           "positions as a point, cut positions included, and the Input Assembler delivered " \
           "4 vertices" in lines["vs outputs"].detail, lines["vs outputs"].detail
    assert lines["stream output"].detail.endswith("UAVs u0, u1: bit for bit")


GS_VS = r"""
RWStructuredBuffer<float4> Out : register(u0);
struct V { float4 pos : POSITION; };
V main(V v, uint id : SV_VertexID) { Out[id] = v.pos * 2; return v; }
"""


@pytest.mark.parametrize("with_so", [False, True])
def test_geometry_shader_runs_compare_them(gpu_device, with_so):
    """A vertex shader writing Out[i] = 2 * position i ahead of a geometry shader (two points:
    (1, 2, 3, 4) and (-1, 0.5, 8, 16)): the gs outputs run (and the stream output line with a
    declaration) reads the UAV back and compares it with the CPU reference, which holds the
    hand values."""
    from gs_view_cases import TWO_STREAMS, TWO_STREAMS_SO, gs_case

    doc = gs_case(TWO_STREAMS, [(1, 2, 3, 4), (-1, 0.5, 8, 16)],
                  TWO_STREAMS_SO if with_so else None)
    doc["vertex_shader"] = {"hlsl": GS_VS}
    doc["shader_resources"] = [{"register": 0, "kind": "rw_structured",
                                "data": {"dtype": "float32", "values": [7.0] * 12}}]
    case = load_case(doc)
    want = np.array([[2, 4, 6, 8], [-2, 1, 16, 32], [7, 7, 7, 7]], np.float32).tobytes()
    assert reference_uavs(case, run_reference(case)) == {"u0": want}
    result = cross_check(case, gpu_device, paths=("native",))
    lines = {line.path: line for line in result.lines}
    assert result.ok, result.text()
    paths = ["native", "vs outputs", "gs outputs"] + (["stream output"] if with_so else [])
    for path in paths:
        assert lines[path].detail.endswith("; UAVs u0: bit for bit"), lines[path].text()
