"""A result's ``statistics`` (docs/case-format.md, "Result", and the spec's "Result additions"):
``VSInvocations`` is always present and counts one vertex shader invocation per vertex the IA
delivered (docs/rules.md 13.8). Every expected count is derived by hand in the comments from
docs/rules.md (4.10 IAVertices/IAPrimitives, 5.4 strip cuts, 13.8). The CPU reference
only: needs no adapter."""

from __future__ import annotations

from gpuia.harness.case import load_case
from gpuia.harness.results import pipeline_statistics
from gpuia.harness.run import run_case


def strip_case(draw: dict, **extra) -> dict:
    doc = {
        "gpuia_case": 1, "name": "strip",
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 8,
                            "data": {"dtype": "float32", "values": list(range(16))}}],
        "primitive_topology": "TRIANGLESTRIP",
        "draw": draw,
    }
    doc.update(extra)
    return doc


def test_a_two_instance_strip_of_five_vertices():
    # DrawInstanced(5, 2): each instance delivers its 5 vertices (4.10), 10 in all, and the
    # vertex shader runs once for each (13.8): VSInvocations 10. A strip of 5 vertices makes
    # 5 - 2 = 3 triangles per instance: IAPrimitives 6.
    doc = strip_case({"DrawInstanced": {"VertexCountPerInstance": 5, "InstanceCount": 2,
                                        "StartVertexLocation": 0, "StartInstanceLocation": 0}})
    _, result = run_case(load_case(doc), "cpu")
    assert result["statistics"] == {"IAVertices": 10, "IAPrimitives": 6, "VSInvocations": 10}
    assert list(result["statistics"]) == ["IAVertices", "IAPrimitives", "VSInvocations"]


def test_a_strip_cut_delivers_no_vertex_so_runs_no_shader():
    # Indices 0 1 2 cut 3 4 5 (R16_UINT, cut value 0xFFFF), two instances. The cut position
    # delivers no vertex (5.4): 6 vertices per instance, 12 in all, VSInvocations 12. Each
    # 3-vertex piece is one triangle: 2 per instance, IAPrimitives 4.
    doc = strip_case({"DrawIndexedInstanced": {"IndexCountPerInstance": 7, "InstanceCount": 2,
                                               "StartIndexLocation": 0, "BaseVertexLocation": 0,
                                               "StartInstanceLocation": 0}},
                     index_buffer={"format": "R16_UINT",
                                   "data": {"dtype": "uint16",
                                            "values": [0, 1, 2, 0xFFFF, 3, 4, 5]}},
                     strip_cut_value="0xFFFF")
    _, result = run_case(load_case(doc), "cpu")
    assert result["statistics"] == {"IAVertices": 12, "IAPrimitives": 4, "VSInvocations": 12}


def test_no_vertex_no_invocation():
    # DrawInstanced(5, 0): no instance, nothing delivered: every count 0.
    doc = strip_case({"DrawInstanced": {"VertexCountPerInstance": 5, "InstanceCount": 0,
                                        "StartVertexLocation": 0, "StartInstanceLocation": 0}})
    _, result = run_case(load_case(doc), "cpu")
    assert result["statistics"] == {"IAVertices": 0, "IAPrimitives": 0, "VSInvocations": 0}


def test_the_gpu_counts_follow_the_same_rule():
    # A GPU run's IAVertices counts the vertices the GPU delivered (docs/case-format.md); its
    # VSInvocations counts the same vertices, by the rule above.
    assert pipeline_statistics({"IAVertices": 7, "IAPrimitives": 2}) == {
        "IAVertices": 7, "IAPrimitives": 2, "VSInvocations": 7}
    assert pipeline_statistics({}) == {}
