"""What reaches a geometry shader (docs/rules.md 13.1 to 13.3) on the CPU reference, through
gpuia.reference.geometry and gpuia.d3d.geometry: the inputs of every adjacency topology with odd
vertex counts, strip cuts and instances, every pairing of input primitive and topology, and
SV_PrimitiveID. Each expected value is derived by hand from the rule text, in the comment above
it; none is computed by gpuia. Needs no adapter (tests/unit/test_geometry_stage.py has the
first cases of the same rules)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from gpuia import IndexBufferView, InputLayout, InvalidDescError, VertexBufferView, run_ia
from gpuia.d3d.desc import StripCutValue
from gpuia.d3d.draws import DrawIndexedInstanced, DrawInstanced
from gpuia.d3d.geometry import GS_INPUTS, GeometryDeclaration, check_topology
from gpuia.d3d.topology import topology_info
from gpuia.reference.geometry import gs_invocations

ID = InputLayout([{"SemanticName": "ID", "Format": "R32_UINT"}])
CUT = 0xFFFF


def ids(n: int) -> dict:
    """Slot 0 holding n R32_UINT elements, element k = k: a vertex's ID is its fetch."""
    return {0: VertexBufferView(struct.pack(f"<{n}I", *range(n)), stride_in_bytes=4)}


def indexed(indices: list[int]) -> IndexBufferView:
    return IndexBufferView(struct.pack(f"<{len(indices)}H", *indices), "R16_UINT")


def gs(primitive: str, instances: int = 1) -> GeometryDeclaration:
    return GeometryDeclaration(primitive, 4, ("PointStream",), (4,), instances)


def inputs(ia, primitive: str, instances: int = 1):
    """Each invocation's input vertices as the IDs fetched, and the invocations."""
    inv = gs_invocations(ia, gs(primitive, instances))
    return ia.inputs["ID0"].bits[:, 0][np.asarray(inv.inputs)].tolist(), inv


# -- 13.1 TRIANGLESTRIP_ADJ: t = (n - 4) / 2 triangles ----------------------------------------
# Triangle i of t receives (v0, a01, v1, a12, v2, a20):
#   t = 1:            (0, 1, 2, 5, 4, 3)
#   i = 0, t > 1:     (0, 1, 2, 6, 4, 3)
#   even i > 0:       (2i, 2i-2, 2i+2, 2i+6, 2i+4, 2i+3)
#   odd i:            (2i, 2i+3, 2i+4, 2i+6, 2i+2, 2i-2)
#   and in the last triangle 2i+6 becomes 2i+5.
T0 = [0, 1, 2, 6, 4, 3]  # i = 0 of several
T1_MID = [2, 5, 6, 8, 4, 0]  # i = 1 odd, not last: (2, 5, 6, 8, 4, 0)
T1_LAST = [2, 5, 6, 7, 4, 0]  # i = 1 odd, last: 2i+6 = 8 becomes 2i+5 = 7
T2_MID = [4, 2, 6, 10, 8, 7]  # i = 2 even, not last: (4, 2, 6, 10, 8, 7)
T2_LAST = [4, 2, 6, 9, 8, 7]  # i = 2 even, last: 10 becomes 9
T3_LAST = [6, 9, 10, 11, 8, 4]  # i = 3 odd, last: (6, 9, 10, 11, 8, 4)


@pytest.mark.parametrize("n, expected", [
    (4, []), (5, []),  # t = 0: no complete triangle, no invocation (13.1, 4.9)
    (6, [[0, 1, 2, 5, 4, 3]]),  # t = 1
    (7, [[0, 1, 2, 5, 4, 3]]),  # t = (7 - 4) // 2 = 1: vertex 6 completes nothing
    (9, [T0, T1_LAST]),  # t = 2: vertex 8 completes nothing, triangle 1 is the last
    (11, [T0, T1_MID, T2_LAST]),  # t = 3, vertex 10 unused
    (12, [T0, T1_MID, T2_MID, T3_LAST]),  # t = 4: an even i > 0 that is not the last
])
def test_13_1_triangle_strip_adj_any_vertex_count(n, expected):
    ia = run_ia(ID, ids(n), DrawInstanced(n, 1, 0, 0), topology="TRIANGLESTRIP_ADJ")
    got, inv = inputs(ia, "triangleadj")
    assert got == expected
    assert inv.primitive_id.tolist() == list(range(len(expected)))


def test_13_1_triangle_strip_adj_cuts_and_instances():
    # Indices 0..7 | cut | 10..15 | cut | 20..26 | cut | 30..34, two instances. Each cut ends a
    # strip, and ending it completes its pending last triangle (rules 5.4): the segments are
    # strips of 8, 6, 7 and 5 vertices: t = 2, 1, 1 and 0.
    #   0..7:   (0,1,2,6,4,3), triangle 1 last: (2,5,6,7,4,0)
    #   10..15: t = 1: (0,1,2,5,4,3) + 10
    #   20..26: t = 1: (0,1,2,5,4,3) + 20; vertex 26 completes nothing
    #   30..34: nothing
    # SV_PrimitiveID counts the draw instance's triangles across the cuts: 0, 1, 2, 3; the second
    # instance starts the strip and the count again (4.9, 13.3).
    index = ([*range(8), CUT, *range(10, 16), CUT, *range(20, 27), CUT, *range(30, 35)])
    ia = run_ia(ID, ids(35), DrawIndexedInstanced(len(index), 2, 0, 0, 0),
                topology="TRIANGLESTRIP_ADJ", index_buffer=indexed(index),
                strip_cut_value=StripCutValue.CUT_0xFFFF)
    got, inv = inputs(ia, "triangleadj")
    once = [T0, T1_LAST, [10, 11, 12, 15, 14, 13], [20, 21, 22, 25, 24, 23]]
    assert got == once * 2
    assert inv.primitive_id.tolist() == [0, 1, 2, 3] * 2
    assert inv.instance.tolist() == [0] * 4 + [1] * 4


def test_13_1_an_instance_does_not_continue_the_strip():
    # 8 vertices, 2 instances: each instance is its own 8-vertex strip (rules 4.9), t = 2 each,
    # not one strip of 16 (which would give 6 triangles).
    ia = run_ia(ID, ids(8), DrawInstanced(8, 2, 0, 0), topology="TRIANGLESTRIP_ADJ")
    got, inv = inputs(ia, "triangleadj")
    assert got == [T0, T1_LAST] * 2
    assert inv.primitive_id.tolist() == [0, 1, 0, 1]


def test_13_1_line_adjacency_lists_strips_and_cuts():
    # LINELIST_ADJ: line i is vertices 4i..4i+3 as given, (adjacent, v0, v1, adjacent); a 9th
    # vertex completes nothing.
    ia = run_ia(ID, ids(9), DrawInstanced(9, 1, 0, 0), topology="LINELIST_ADJ")
    assert inputs(ia, "lineadj")[0] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    # LINESTRIP_ADJ 0 1 2 3 4 | cut | 5 6 7 8 | cut | 9 10 11: segment t of a strip is
    # (t, t+1, t+2, t+3): 2 segments, then 1, then none (3 vertices complete nothing).
    index = [0, 1, 2, 3, 4, CUT, 5, 6, 7, 8, CUT, 9, 10, 11]
    ia = run_ia(ID, ids(12), DrawIndexedInstanced(len(index), 1, 0, 0, 0),
                topology="LINESTRIP_ADJ", index_buffer=indexed(index),
                strip_cut_value=StripCutValue.CUT_0xFFFF)
    got, inv = inputs(ia, "lineadj")
    assert got == [[0, 1, 2, 3], [1, 2, 3, 4], [5, 6, 7, 8]]
    assert inv.primitive_id.tolist() == [0, 1, 2]


def test_13_1_line_and_point_strips_one_invocation_per_segment():
    # LINESTRIP 0 1 2 3 | cut | 4 5: segments (0,1), (1,2), (2,3), (4,5): four invocations.
    # POINTLIST of 3 vertices: three.
    index = [0, 1, 2, 3, CUT, 4, 5]
    ia = run_ia(ID, ids(6), DrawIndexedInstanced(len(index), 1, 0, 0, 0), topology="LINESTRIP",
                index_buffer=indexed(index), strip_cut_value=StripCutValue.CUT_0xFFFF)
    assert inputs(ia, "line")[0] == [[0, 1], [1, 2], [2, 3], [4, 5]]
    ia = run_ia(ID, ids(3), DrawInstanced(3, 1, 0, 0), topology="POINTLIST")
    assert inputs(ia, "point")[0] == [[0], [1], [2]]


# -- 13.2 every pairing of input primitive and topology ---------------------------------------
# The rule's table, written out: the only topologies each input primitive takes.
TAKES = {
    "point": {"POINTLIST"},
    "line": {"LINELIST", "LINESTRIP"},
    "lineadj": {"LINELIST_ADJ", "LINESTRIP_ADJ"},
    "triangle": {"TRIANGLELIST", "TRIANGLESTRIP"},
    "triangleadj": {"TRIANGLELIST_ADJ", "TRIANGLESTRIP_ADJ"},
}
TOPOLOGIES = ["POINTLIST", "LINELIST", "LINESTRIP", "TRIANGLELIST", "TRIANGLESTRIP",
              "LINELIST_ADJ", "LINESTRIP_ADJ", "TRIANGLELIST_ADJ", "TRIANGLESTRIP_ADJ"]


def test_13_2_the_table_covers_every_input_primitive():
    assert set(TAKES) == set(GS_INPUTS)


@pytest.mark.parametrize("topology", TOPOLOGIES)
@pytest.mark.parametrize("primitive", sorted(TAKES))
def test_13_2_each_pairing(primitive, topology):
    decl = gs(primitive)
    if topology in TAKES[primitive]:
        check_topology(decl, topology_info(topology))
        return
    with pytest.raises(InvalidDescError, match=rf"'{primitive}'.*takes no {topology} "
                                               r"topology.*\(rules 13\.2\)"):
        check_topology(decl, topology_info(topology))


# -- 13.3 SV_PrimitiveID and SV_GSInstanceID ---------------------------------------------------

def test_13_3_thirty_two_gs_instances_innermost():
    # Two draws: LINESTRIP 0 1 2 with 2 instances (segments (0,1), (1,2) per instance), then 3 4
    # (one segment). [instance(32)]: each segment runs 32 times, SV_GSInstanceID 0..31, before the
    # next segment; SV_PrimitiveID 0, 1 in each instance of draw 0, 0 in draw 1.
    draws = [DrawInstanced(3, 2, 0, 0), DrawInstanced(2, 1, 3, 0)]
    ia = run_ia(ID, ids(5), draws, topology="LINESTRIP")
    got, inv = inputs(ia, "line", instances=32)
    segments = [[0, 1], [1, 2], [0, 1], [1, 2], [3, 4]]
    assert len(inv) == 5 * 32
    assert got == [s for s in segments for _ in range(32)]
    assert inv.gs_instance.tolist() == list(range(32)) * 5
    assert inv.primitive_id.tolist() == [p for p in (0, 1, 0, 1, 0) for _ in range(32)]
    assert inv.instance.tolist() == [i for i in (0, 0, 1, 1, 0) for _ in range(32)]
    assert inv.draw.tolist() == [0] * 128 + [1] * 32
