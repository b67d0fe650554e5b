"""The geometry shader stage's rules (docs/rules.md section 13) on the CPU side: the declaration
checks CreateGraphicsPipelineState makes (gpuia.d3d.geometry) and the reference's invocations,
inputs, SV_PrimitiveID, maxvertexcount and strip expansion (gpuia.reference.geometry). Every
expected value below is derived by hand from the rule it names. Needs no adapter."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from gpuia import IndexBufferView, InputLayout, InvalidDescError, VertexBufferView, run_ia
from gpuia.d3d.desc import StripCutValue
from gpuia.d3d.draws import DrawIndexedInstanced, DrawInstanced
from gpuia.d3d.geometry import STREAM_TYPES, GeometryDeclaration, check_topology
from gpuia.d3d.topology import topology_info
from gpuia.reference.geometry import (
    effective_calls,
    gs_invocations,
    gs_statistics,
    primitive_ids,
    stream_primitives,
)

ID = InputLayout([{"SemanticName": "ID", "Format": "R32_UINT"}])


def ids(n: int) -> dict:
    """Slot 0 holding n R32_UINT elements, element k = k: an invocation's ID is its fetch."""
    return {0: VertexBufferView(struct.pack(f"<{n}I", *range(n)), stride_in_bytes=4)}


def fetched(ia, rows) -> list:
    """The IDs (element indices) of IA invocation rows, as nested lists."""
    return ia.inputs["ID0"].bits[:, 0][np.asarray(rows)].tolist()


def gs(input_primitive="triangle", n=4, streams=("TriangleStream",), scalars=(4,), instances=1):
    return GeometryDeclaration(input_primitive, n, tuple(streams), tuple(scalars), instances)


# -- 13.1 what each invocation receives --------------------------------------------------------

@pytest.mark.parametrize("n, expected", [
    # t = 1: (0, 1, 2, 5, 4, 3).
    (6, [[0, 1, 2, 5, 4, 3]]),
    # t = 2: i = 0, t > 1: (0, 1, 2, 6, 4, 3); i = 1 odd and last:
    # (2i, 2i+3, 2i+4, 2i+5, 2i+2, 2i-2) = (2, 5, 6, 7, 4, 0).
    (8, [[0, 1, 2, 6, 4, 3], [2, 5, 6, 7, 4, 0]]),
    # t = 3: i = 1 odd, not last: (2, 5, 6, 8, 4, 0); i = 2 even and last:
    # (2i, 2i-2, 2i+2, 2i+5, 2i+4, 2i+3) = (4, 2, 6, 9, 8, 7).
    (10, [[0, 1, 2, 6, 4, 3], [2, 5, 6, 8, 4, 0], [4, 2, 6, 9, 8, 7]]),
])
def test_13_1_triangle_strip_adj_inputs(n, expected):
    ia = run_ia(ID, ids(n), DrawInstanced(n, 1, 0, 0), topology="TRIANGLESTRIP_ADJ")
    inv = gs_invocations(ia, gs("triangleadj"))
    assert fetched(ia, inv.inputs) == expected


def test_13_1_triangle_list_adj_and_line_adj_inputs_are_as_given():
    # TRIANGLELIST_ADJ: triangle i is vertices 6i..6i+5 in the given order.
    ia = run_ia(ID, ids(12), DrawInstanced(12, 1, 0, 0), topology="TRIANGLELIST_ADJ")
    assert fetched(ia, gs_invocations(ia, gs("triangleadj")).inputs) == [
        [0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]]
    # LINESTRIP_ADJ over 5 vertices: segment t is (t, t+1, t+2, t+3) with t+1, t+2 the line.
    ia = run_ia(ID, ids(5), DrawInstanced(5, 1, 0, 0), topology="LINESTRIP_ADJ")
    assert fetched(ia, gs_invocations(ia, gs("lineadj")).inputs) == [[0, 1, 2, 3], [1, 2, 3, 4]]


# -- 13.2 the input primitive matches the topology's class -------------------------------------

@pytest.mark.parametrize("primitive, topology, ok", [
    ("point", "POINTLIST", True), ("line", "LINESTRIP", True), ("line", "LINELIST", True),
    ("lineadj", "LINESTRIP_ADJ", True), ("triangle", "TRIANGLESTRIP", True),
    ("triangleadj", "TRIANGLELIST_ADJ", True),
    ("triangle", "LINELIST", False), ("triangleadj", "TRIANGLELIST", False),
    ("triangle", "TRIANGLELIST_ADJ", False), ("line", "LINELIST_ADJ", False),
    ("point", "TRIANGLELIST", False),
])
def test_13_2_topology_class(primitive, topology, ok):
    decl = gs(primitive)
    if ok:
        check_topology(decl, topology_info(topology))
        return
    with pytest.raises(InvalidDescError, match=r"rules 13\.2") as err:
        check_topology(decl, topology_info(topology))
    assert topology in str(err.value) and primitive in str(err.value)


# -- 13.3 invocation order, SV_PrimitiveID, SV_GSInstanceID -------------------------------------

def test_13_3_primitive_id_continues_across_cuts_restarts_per_instance_and_draw():
    # Strip 0 1 2 3 | cut | 4 5 6: triangles (0,1,2), (1,3,2), then (4,5,6): ids 0, 1, 2 in each
    # instance (a cut does not restart the count, an instance does); [instance(2)] makes each
    # primitive two invocations, GS instance innermost. A second draw starts again at 0.
    index = IndexBufferView(struct.pack("<8H", 0, 1, 2, 3, 0xFFFF, 4, 5, 6), "R16_UINT")
    draws = [DrawIndexedInstanced(8, 2, 0, 0, 0), DrawIndexedInstanced(3, 1, 0, 0, 0)]
    ia = run_ia(ID, ids(8), draws, topology="TRIANGLESTRIP", index_buffer=index,
                strip_cut_value=StripCutValue.CUT_0xFFFF)
    assert primitive_ids(ia).tolist() == [0, 1, 2, 0, 1, 2, 0]
    inv = gs_invocations(ia, gs("triangle", instances=2))
    assert inv.primitive_id.tolist() == [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0]
    assert inv.gs_instance.tolist() == [0, 1] * 7
    assert inv.primitive.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    assert inv.instance.tolist() == [0] * 6 + [1] * 6 + [0, 0]
    assert inv.draw.tolist() == [0] * 12 + [1, 1]
    assert fetched(ia, inv.inputs[:6:2]) == [[0, 1, 2], [1, 3, 2], [4, 5, 6]]


def test_13_3_an_incomplete_primitive_is_never_an_invocation():
    # 5 vertices of a triangle list: one triangle; vertices 3 and 4 reach no GS (13.1, 4.9).
    ia = run_ia(ID, ids(5), DrawInstanced(5, 1, 0, 0), topology="TRIANGLELIST")
    inv = gs_invocations(ia, gs("triangle", instances=3))
    assert len(inv) == 3 and fetched(ia, inv.inputs) == [[0, 1, 2]] * 3
    assert gs_statistics(inv, [])["GSInvocations"] == 3


# -- 13.4 maxvertexcount counts the Appends of all streams together ----------------------------

def calls(spec):
    """Parallel call arrays from (invocation, stream, 'A' or 'C') triples."""
    inv = np.array([c[0] for c in spec], np.int64)
    stream = np.array([c[1] for c in spec], np.uint8)
    cut = np.array([c[2] == "C" for c in spec], bool)
    return inv, stream, cut


def test_13_4_first_n_appends_whatever_their_stream():
    # N = 4. Invocation 0 appends 3 on stream 0 then 3 on stream 1: 3 + 1 survive. Invocation 1
    # appends 1 on stream 0 then 5 on stream 1: 1 + 3 survive. A cut after the 4th Append is
    # after the shader ended; a cut before it counts.
    spec = ([(0, 0, "A")] * 3 + [(0, 1, "A")] * 3
            + [(1, 0, "A"), (1, 1, "A"), (1, 1, "C"), (1, 1, "A"), (1, 1, "A"), (1, 1, "C"),
               (1, 1, "A"), (1, 1, "A")])
    inv, stream, cut = calls(spec)
    kept = effective_calls(inv, cut, 4)
    assert kept.tolist() == [True] * 4 + [False] * 2 + [True] * 5 + [False] * 3
    assert stream[kept & ~cut].tolist() == [0, 0, 0, 1, 0, 1, 1, 1]


@pytest.mark.parametrize("n, scalars, ok", [
    (1024, 1, True), (256, 4, True), (257, 4, False), (1025, 1, False), (0, 1, False),
])
def test_13_4_maxvertexcount_limits(n, scalars, ok):
    if ok:
        gs(n=n, scalars=(scalars,))
        return
    with pytest.raises(InvalidDescError, match=r"maxvertexcount.*rules 13\.4"):
        gs(n=n, scalars=(scalars,))


# -- 13.5 strips out of the GS expand like IA strips --------------------------------------------

def test_13_5_triangle_strip_expansion_cuts_and_invocations():
    # Invocation 0: A A A A C A A A -> strips rows 0-3 and 5-7: triangles (0,1,2), (1,3,2) (odd:
    # last two swapped), (5,6,7). Invocation 1: A A, then invocation 2: A: two strips of
    # 2 and 1 vertices, not joined across invocations: nothing.
    spec = [(0, 0, "A")] * 4 + [(0, 0, "C")] + [(0, 0, "A")] * 3 + [(1, 0, "A")] * 2 + [(2, 0, "A")]
    inv, stream, cut = calls(spec)
    kept = effective_calls(inv, cut, 8)
    prims = stream_primitives(inv, stream, cut, kept, 0, STREAM_TYPES["TriangleStream"])
    assert prims.tolist() == [[0, 1, 2], [1, 3, 2], [5, 6, 7]]


def test_13_5_line_strips_points_and_streams():
    # Stream 0 a LineStream would be refused with two streams (13.7); the expansion itself is
    # per stream: rows 0, 1, 3 of stream 0 as a line strip are (0,1), (1,3); as points they are
    # three points, the cut ignored.
    spec = [(0, 0, "A"), (0, 0, "A"), (0, 1, "A"), (0, 0, "A"), (0, 1, "C"), (0, 1, "A")]
    inv, stream, cut = calls(spec)
    kept = effective_calls(inv, cut, 16)
    assert stream_primitives(inv, stream, cut, kept, 0,
                             STREAM_TYPES["LineStream"]).tolist() == [[0, 1], [1, 3]]
    assert stream_primitives(inv, stream, cut, kept, 1,
                             STREAM_TYPES["PointStream"]).tolist() == [[2], [5]]
    assert stream_primitives(inv, stream, cut, kept, 2,
                             STREAM_TYPES["PointStream"]).shape == (0, 1)


def test_13_4_and_13_5_appends_past_n_leave_an_incomplete_strip():
    # N = 4, 6 Appends on a TriangleStream: rows 0-3 survive: (0,1,2), (1,3,2); rows 4-5 never
    # existed. GSPrimitives counts the two.
    inv, stream, cut = calls([(0, 0, "A")] * 6)
    kept = effective_calls(inv, cut, 4)
    prims = stream_primitives(inv, stream, cut, kept, 0, STREAM_TYPES["TriangleStream"])
    assert prims.tolist() == [[0, 1, 2], [1, 3, 2]]


# -- 13.7 streams -----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({"streams": ("PointStream", "LineStream"), "scalars": (4, 4)}, r"PointStream.*13\.7"),
    ({"streams": ("PointStream",) * 5, "scalars": (4,) * 5}, r"1 to 4 output streams.*13\.7"),
    ({"streams": (), "scalars": ()}, r"13\.7"),
    ({"streams": ("QuadStream",)}, r"QuadStream.*TriangleStream"),
    ({"input_primitive": "quad"}, r"input primitive='quad'.*13\.1"),
    ({"instances": 33}, r"instance=33.*13\.3"),
    ({"instances": 0}, r"13\.3"),
    ({"streams": ("PointStream", "PointStream"), "scalars": (4,)}, r"output_scalars"),
])
def test_13_declaration_refusals_name_the_rule(kwargs, match):
    with pytest.raises(InvalidDescError, match=match):
        gs(**kwargs)


def test_13_7_four_point_streams_are_a_valid_declaration():
    decl = gs("point", n=8, streams=("PointStream",) * 4, scalars=(4, 2, 1, 128), instances=32)
    assert [decl.stream_type(s).kind for s in range(4)] == ["point"] * 4
