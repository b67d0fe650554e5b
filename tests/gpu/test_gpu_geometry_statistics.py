"""The GPU backend's geometry shader statistics and invocations (``GSInvocations``,
``GSPrimitives``, ``geometry_invocations``), read back from the GPU's own stage
(gpuia.gpu.gs.capture), against values derived by hand from docs/rules.md (rules 13.3: one
invocation per input primitive and GS instance, in the order draw, instance, primitive, GS
instance; rules 13.4, 13.5: strips of Appends, a RestartStrip ending one; rules 13.8:
GSPrimitives counts the complete primitives of all streams) and against the CPU reference.
Fails, never skips, without an adapter.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.gpu import Context
from gpuia.gpu.context import geometry
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare_geometry
from gpuia.harness.run import run_case
from gpuia.harness.run_gpu import case_pipeline_state
from native.test_gs_reference_vs_native import MAX_OVER_STREAMS, SCENARIOS, VS_HLSL, scenario_case

# Instance 0 appends 4 vertices: one strip, 2 triangles. Instance 1 appends 1 vertex, cuts, then
# appends 3: a strip of 1 (no triangle) and a strip of 3 (1 triangle). Each output records
# (the first input's tag, SV_PrimitiveID, SV_GSInstanceID, the Append's number).
GS = """
struct V { uint4 tag : TAG; };
struct O { uint4 a : A; };
[instance(2)]
[maxvertexcount(4)]
void main(triangle V v[3], uint pid : SV_PrimitiveID, uint gsi : SV_GSInstanceID,
          inout TriangleStream<O> s) {
    O o;
    if (gsi == 0) {
        for (uint i = 0; i < 4; i++) { o.a = uint4(v[0].tag.x, pid, gsi, i); s.Append(o); }
    } else {
        o.a = uint4(v[0].tag.x, pid, gsi, 0); s.Append(o);
        s.RestartStrip();
        for (uint j = 1; j < 4; j++) { o.a = uint4(v[0].tag.x, pid, gsi, j); s.Append(o); }
    }
}
"""


def drawn(count, instances=1, first=0):
    return {"DrawInstanced": {"VertexCountPerInstance": count, "InstanceCount": instances,
                              "StartVertexLocation": first, "StartInstanceLocation": 0}}


def case_doc(stream_output: bool) -> dict:
    """Draw 0: 5 triangles (15 vertices), one instance; draw 1: 2 triangles from vertex 3, two
    instances. Vertex i's tag is 10 + i; the vertex shader adds SV_InstanceID as tag.y."""
    doc = {
        "gpuia_case": 1, "name": "gs_statistics",
        "input_layout": [{"SemanticName": "TAG", "Format": "R32G32B32A32_UINT"}],
        "vertex_buffers": [{"slot": 0, "stride": 16, "data": {
            "dtype": "uint32", "values": [[10 + i, 0, 0, 0] for i in range(15)]}}],
        "primitive_topology": "TRIANGLELIST",
        "draw": [drawn(15), drawn(6, 2, 3)],
        "vertex_shader": {"hlsl": VS_HLSL},
        "geometry_shader": {"hlsl": GS},
    }
    if stream_output:
        doc["stream_output"] = {
            "declaration": [{"SemanticName": "A", "ComponentCount": 4}],
            "buffer_strides": [16], "rasterized_stream": "NO_RASTERIZED_STREAM",
            "targets": [{"slot": 0, "size": 4096, "filled_size": 0}]}
    return doc


def uint4(*x):
    return {"type": "uint", "bits": list(x), "value": list(x)}


def expected_invocations() -> list[dict]:
    """By hand: per draw, instance, primitive, GS instance (13.3); inputs (tag, instance, 0,
    0) of the triangle's 3 vertices; instance 0 four Appends, instance 1 Append, RestartStrip,
    three Appends (the cut follows an Append of its stream, so it is listed)."""
    out = []
    for draw, first, prims, instances in ((0, 0, 5, 1), (1, 3, 2, 2)):
        for inst in range(instances):
            for p in range(prims):
                tags = [10 + first + 3 * p + k for k in range(3)]
                for gsi in range(2):
                    a = [{"stream": 0, "outputs": {"A0": uint4(tags[0], p, gsi, i)}}
                         for i in range(4)]
                    emits = a if gsi == 0 else [a[0], {"stream": 0, "cut": True}, *a[1:]]
                    out.append({"draw": draw, "instance": inst, "primitive": p,
                                "gs_instance": gsi,
                                "inputs": [{"TAG0": uint4(t, inst, 0, 0)} for t in tags],
                                "emits": emits})
    return out


# (5 triangles x 1 instance + 2 triangles x 2 instances) x 2 GS instances = 18 invocations;
# per triangle 2 (GS instance 0) + 1 (GS instance 1) complete triangles: 9 x 3 = 27.
STATISTICS = {"GSInvocations": 18, "GSPrimitives": 27}


@pytest.mark.parametrize("stream_output", [False, True], ids=["no_so", "so"])
def test_gpu_result_holds_hand_derived_gs_statistics_and_invocations(gpu_device, stream_output):
    _, doc = run_case(load_case(case_doc(stream_output)), "gpu", device=gpu_device)
    assert {k: doc["statistics"][k] for k in STATISTICS} == STATISTICS
    assert doc["geometry_invocations"] == expected_invocations()
    if stream_output:  # 27 triangles of 3 vertices of 16 bytes fit 4096 bytes
        assert doc["stream_output"]["streams"][0]["NumPrimitivesWritten"] == 27


def test_five_triangles_two_gs_instances_are_ten_invocations(gpu_device):
    doc = case_doc(False)
    doc["draw"] = [drawn(15)]
    _, got = run_case(load_case(doc), "gpu", device=gpu_device)
    assert got["statistics"]["GSInvocations"] == 10
    assert got["statistics"]["GSPrimitives"] == 15


def test_gs_invocations_are_counted_across_chunks(gpu_device, monkeypatch):
    # Chunks of 3 invocations: a primitive's two GS instances stay in one chunk (1 primitive
    # per chunk), so 18 invocations are read back from 9 regions buffers, in order.
    monkeypatch.setattr(geometry, "CHUNK", 3)
    _, doc = run_case(load_case(case_doc(True)), "gpu", device=gpu_device)
    assert {k: doc["statistics"][k] for k in STATISTICS} == STATISTICS
    assert doc["geometry_invocations"] == expected_invocations()


def test_a_draw_without_primitives_has_no_invocation(gpu_device):
    doc = case_doc(False)
    # Draw 0 of no vertex, draw 1 of 2 vertices: no triangle (rules 4.9), draw 2 of no
    # instance; then draw 3, one triangle: its two invocations are draw 3's.
    doc["draw"] = [drawn(0), drawn(2), drawn(3, 0), drawn(3)]
    _, got = run_case(load_case(doc), "gpu", device=gpu_device)
    assert got["statistics"]["GSInvocations"] == 2 and got["statistics"]["GSPrimitives"] == 3
    assert [i["draw"] for i in got["geometry_invocations"]] == [3, 3]
    doc["draw"] = [drawn(2), drawn(0)]  # no triangle at all: no invocation anywhere
    _, got = run_case(load_case(doc), "gpu", device=gpu_device)
    assert got["statistics"]["GSInvocations"] == 0 and got["statistics"]["GSPrimitives"] == 0
    assert got["geometry_invocations"] == []


NATIVE = {**SCENARIOS, "max_vertex_count_over_streams": MAX_OVER_STREAMS}


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_gpu_gs_results_match_the_reference(gpu_device, name):
    # The native oracle's scenarios: strip cuts, adjacency, instances, four streams,
    # maxvertexcount over streams; the CPU reference is shown equal to lavapipe's own GS there.
    case = load_case(scenario_case(NATIVE[name]))
    _, cpu = run_case(case, "cpu")
    _, gpu = run_case(case, "gpu", device=gpu_device)
    parts = [(d["statistics"], d["geometry_invocations"]) for d in (cpu, gpu)]
    assert compare_geometry(*parts) == []
    assert parts[0] == parts[1]


def test_end_gs_capture_without_begin_is_refused(gpu_device):
    from gpuia.errors import InvalidDescError

    with pytest.raises(InvalidDescError, match="begin_gs_capture was not called"):
        Context(gpu_device).end_gs_capture()


def test_a_context_capture_counts_only_the_draws_it_spans(gpu_device):
    case = load_case(case_doc(False))
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(case_pipeline_state(case, stream_output=True))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    vb = gpu_device.create_buffer(np.array([[10 + i, 0, 0, 0] for i in range(15)], np.uint32))
    ctx.ia_set_vertex_buffers(0, [vb], [16], [0])
    ctx.draw_instanced(15)  # before the capture: not counted
    ctx.begin_gs_capture()
    ctx.draw_instanced(6, 2, 3)
    got = ctx.end_gs_capture()
    assert got.statistics == {"GSInvocations": 8, "GSPrimitives": 12}
    assert got.draw.tolist() == [0] * 8
    assert got.instance.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert got.primitive_id.tolist() == [0, 0, 1, 1, 0, 0, 1, 1]
    assert got.gs_instance.tolist() == [0, 1] * 4


def test_check_compares_the_gs_stage_and_reports_a_disagreement(gpu_device, monkeypatch):
    from gpuia.harness import crosscheck

    case = load_case(case_doc(True))
    lines = [ln for ln in crosscheck.cross_check(case, gpu_device, paths=("auto",)).lines
             if ln.path == "geometry shader"]
    assert [(ln.status, ln.detail) for ln in lines] == [
        ("OK", "GSInvocations 18, GSPrimitives 27")]
    made = crosscheck.captured_geometry_json

    def one_less(captured, gs):
        statistics, invocations = made(captured, gs)
        return {**statistics, "GSPrimitives": statistics["GSPrimitives"] - 1}, invocations

    monkeypatch.setattr(crosscheck, "captured_geometry_json", one_less)
    result = crosscheck.cross_check(case, gpu_device, paths=("auto",))
    line = next(ln for ln in result.lines if ln.path == "geometry shader")
    assert line.status == "DIFFERENT" and not result.ok
    assert line.problems == ["GS statistics: GSPrimitives CPU 27 GPU 26"]
