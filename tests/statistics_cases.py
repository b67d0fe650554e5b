"""Cases of the pipeline statistics cross-check with their hand-derived counts, shared by
tests/unit/test_statistics_check.py (the reference's side) and
tests/gpu/test_gpu_pipeline_statistics.py (the GPU's).

Per case, per draw: (complete primitives = D3D's CInvocations, distinct vertices of those
primitives = the fewest vertex shader invocations a GPU may run, D3D's VSInvocations = the
vertices the IA delivers), derived from rules 4.9, 4.10, 5.2-5.3 and 13.8 by counting.
"""

from __future__ import annotations

M = 0xFFFFFFFF


def _case(name, topology, draws, index_buffer=None, cut="DISABLED", vertices=32):
    doc = {"gpuia_case": 1, "name": name,
           "input_layout": [{"SemanticName": "POSITION", "Format": "R32_FLOAT"}],
           "vertex_buffers": [{"slot": 0, "stride": 4, "data": {"dtype": "float32",
                                                               "values": [0.0] * vertices}}],
           "primitive_topology": topology, "strip_cut_value": cut, "draw": draws}
    if index_buffer is not None:
        doc["index_buffer"] = index_buffer
    return doc


def _plain(n, instances=1):
    return {"DrawInstanced": {"VertexCountPerInstance": n, "InstanceCount": instances,
                              "StartVertexLocation": 0, "StartInstanceLocation": 0}}


def _indexed(n, instances=1):
    return {"DrawIndexedInstanced": {"IndexCountPerInstance": n, "InstanceCount": instances,
                                     "StartIndexLocation": 0, "BaseVertexLocation": 0,
                                     "StartInstanceLocation": 0}}


def _u32(values):
    return {"format": "R32_UINT", "data": {"dtype": "uint32", "values": values}}


STATISTICS_CASES = [
    # 6 vertices: 2 triangles of 3 vertices each, every vertex delivered and in a triangle.
    (_case("list-6", "TRIANGLELIST", [_plain(6)]), [(2, 6, 6)]),
    # 8 vertices: the last 2 make no triangle (rules 4.9) but are delivered.
    (_case("list-8", "TRIANGLELIST", [_plain(8)]), [(2, 6, 8)]),
    # 9 vertices in 3 instances: 3 triangles each; a vertex of another instance is another.
    (_case("list-9x3", "TRIANGLELIST", [_plain(9, 3)]), [(9, 27, 27)]),
    # a strip of 6: 4 triangles over 6 vertices.
    (_case("strip-6", "TRIANGLESTRIP", [_plain(6)]), [(4, 6, 6)]),
    # indices 0 1 2 2 1 0: 2 triangles on 3 distinct vertices, 6 delivered.
    (_case("indexed-repeats", "TRIANGLELIST", [_indexed(6)], _u32([0, 1, 2, 2, 1, 0])),
     [(2, 3, 6)]),
    # 0 1 2 cut 3 4 5 6 7: runs of 3 and 5 make 1 + 3 triangles on 8 vertices; the cut is
    # no vertex (rules 5.3).
    (_case("strip-cut", "TRIANGLESTRIP", [_indexed(9)], _u32([0, 1, 2, M, 3, 4, 5, 6, 7]),
           cut="0xFFFFFFFF"), [(4, 8, 8)]),
    # a line strip of 7: 6 lines; 20 points, then 3 points in 2 instances: 6.
    (_case("line-strip-7", "LINESTRIP", [_plain(7)]), [(6, 7, 7)]),
    (_case("points", "POINTLIST", [_plain(20), _plain(3, 2)]), [(20, 20, 20), (6, 6, 6)]),
    # triangles with adjacency, 12 vertices in 2 instances: 2 triangles each of vertices 0 2 4
    # and 6 8 10; the adjacency vertices are delivered (D3D shades them) but in no
    # rasterized triangle.
    (_case("adjacency", "TRIANGLELIST_ADJ", [_plain(12, 2)]), [(4, 12, 24)]),
]
"""(case document, per draw (primitives, shaded at least, D3D's VSInvocations))."""
