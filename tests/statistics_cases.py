"""Cases of the pipeline statistics cross-check with their hand-derived counts, shared by
tests/unit/test_statistics_check.py (the reference's side) and
tests/gpu/test_gpu_pipeline_statistics.py (the GPU's).

Per case, per draw: (complete primitives = D3D's CInvocations, distinct vertices of those
primitives = the fewest vertex shader invocations a GPU may run, D3D's VSInvocations = the
vertices the IA delivers), derived from rules 4.9, 4.10, 5.2-5.3 and 13.8 by counting.
"""

from __future__ import annotations

from draw_cases import indexed, layout_case, plain

M = 0xFFFFFFFF


def _u32(values):
    return {"format": "R32_UINT", "data": {"dtype": "uint32", "values": values}}


STATISTICS_CASES = [
    # 6 vertices: 2 triangles of 3 vertices each, every vertex delivered and in a triangle.
    (layout_case("list-6", "TRIANGLELIST", [plain(6)]), [(2, 6, 6)]),
    # 8 vertices: the last 2 make no triangle (rules 4.9) but are delivered.
    (layout_case("list-8", "TRIANGLELIST", [plain(8)]), [(2, 6, 8)]),
    # 9 vertices in 3 instances: 3 triangles each; a vertex of another instance is another.
    (layout_case("list-9x3", "TRIANGLELIST", [plain(9, 3)]), [(9, 27, 27)]),
    # a strip of 6: 4 triangles over 6 vertices.
    (layout_case("strip-6", "TRIANGLESTRIP", [plain(6)]), [(4, 6, 6)]),
    # indices 0 1 2 2 1 0: 2 triangles on 3 distinct vertices, 6 delivered.
    (layout_case("indexed-repeats", "TRIANGLELIST", [indexed(6)], _u32([0, 1, 2, 2, 1, 0])),
     [(2, 3, 6)]),
    # 0 1 2 cut 3 4 5 6 7: runs of 3 and 5 make 1 + 3 triangles on 8 vertices; the cut is
    # no vertex (rules 5.3).
    (layout_case("strip-cut", "TRIANGLESTRIP", [indexed(9)], _u32([0, 1, 2, M, 3, 4, 5, 6, 7]),
           cut="0xFFFFFFFF"), [(4, 8, 8)]),
    # a line strip of 7: 6 lines; 20 points, then 3 points in 2 instances: 6.
    (layout_case("line-strip-7", "LINESTRIP", [plain(7)]), [(6, 7, 7)]),
    (layout_case("points", "POINTLIST", [plain(20), plain(3, 2)]), [(20, 20, 20), (6, 6, 6)]),
    # triangles with adjacency, 12 vertices in 2 instances: 2 triangles each of vertices 0 2 4
    # and 6 8 10; the adjacency vertices are delivered (D3D shades them) but in no
    # rasterized triangle.
    (layout_case("adjacency", "TRIANGLELIST_ADJ", [plain(12, 2)]), [(4, 12, 24)]),
]
"""(case document, per draw (primitives, shaded at least, D3D's VSInvocations))."""
