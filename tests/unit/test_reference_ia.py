"""The numpy reference Input Assembler (gpuia.reference.ia.run_ia) against docs/rules.md.

Rule numbers refer to docs/rules.md. Every expected value below is
derived by hand from the vertex data each test writes; the data is chosen so that the fetched
element is readable directly:

* ``counting(n)``: an R32_UINT element k holds k (so the fetched value *is* the fetch index);
* ``counting(n, base=1000)``: element k holds 1000 + k (so element 0 is distinguishable from an
  out-of-bounds read, which returns 0);
* ``positions(n)``: vertex k's POSITION is (k, 10k, 100k) as R32G32B32_FLOAT.

Results are compared as 32-bit patterns (``ElementData.bits``): the reference must be exact.
"""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from gpuia import (
    DrawIndexedInstanced,
    DrawInstanced,
    IndexBufferView,
    InputLayout,
    StripCutValue,
    VertexBufferView,
    run_ia,
)
from gpuia.d3d.formats import VERTEX_FORMATS
from gpuia.reference.decode import decode_words

U32MAX = 0xFFFFFFFF
ONE_F = 0x3F800000  # float32 1.0: the default fill "1" of float formats (rules 2.11)
ONE_I = 1  # the default fill "1" of UINT/SINT formats
CUT16 = StripCutValue.CUT_0xFFFF
CUT32 = StripCutValue.CUT_0xFFFFFFFF


# -- helpers ----------------------------------------------------------------------------------

def el(name, fmt, slot=0, offset=0, rate=None):
    """An input element; ``rate`` not None makes it PER_INSTANCE_DATA with that step rate."""
    d = {"SemanticName": name, "Format": fmt, "InputSlot": slot, "AlignedByteOffset": offset}
    if rate is not None:
        d["InputSlotClass"] = "PER_INSTANCE_DATA"
        d["InstanceDataStepRate"] = rate
    return d


def layout(*elements):
    return InputLayout(list(elements))


def u32(values) -> bytes:
    values = list(values)
    return struct.pack(f"<{len(values)}I", *values)


def u16(values) -> bytes:
    values = list(values)
    return struct.pack(f"<{len(values)}H", *values)


def counting(n, base=0) -> bytes:
    """n R32_UINT elements; element k holds base + k."""
    return u32(base + k for k in range(n))


def positions(n) -> bytes:
    """n R32G32B32_FLOAT elements; element k is (k, 10k, 100k)."""
    return b"".join(struct.pack("<3f", k, 10 * k, 100 * k) for k in range(n))


def fbits(*values) -> list[int]:
    """float32 bit patterns of the given values."""
    return np.array(values, dtype=np.float32).view(np.uint32).tolist()


def pos_bits(k) -> list[int]:
    """What the shader sees for positions()[k]: (k, 10k, 100k, 1.0)."""
    return fbits(k, 10 * k, 100 * k, 1.0)


def rows(result, key="ID0") -> list[list[int]]:
    return result.inputs[key].bits.tolist()


def xs(result, key="ID0") -> list[int]:
    """The x component of each invocation's element, as uint32."""
    return result.inputs[key].bits[:, 0].tolist()


ID = layout(el("ID", "R32_UINT"))
POS = layout(el("POSITION", "R32G32B32_FLOAT"))
OOB_U = [0, 0, 0, ONE_I]  # an out-of-bounds R32_UINT fetch (6.1)



def vb_count(n=16, base=0, **kw):
    return {0: VertexBufferView(counting(n, base), stride_in_bytes=4, **kw)}


def ib16(values, **kw):
    return IndexBufferView(u16(values), "R16_UINT", **kw)


def ib32(values, **kw):
    return IndexBufferView(u32(values), "R32_UINT", **kw)


# -- 4.1 non-indexed per-vertex fetch ---------------------------------------------------------

def test_4_1_nonindexed_fetch_is_start_vertex_plus_i():
    r = run_ia(ID, vb_count(), DrawInstanced(4, 1, 5, 0), topology="POINTLIST")
    assert r.fetch_index.tolist() == [5, 6, 7, 8]
    assert xs(r) == [5, 6, 7, 8]
    # R32_UINT has one component: (k, 0, 0, 1) with the integer 1 (2.11)
    assert rows(r) == [[5, 0, 0, 1], [6, 0, 0, 1], [7, 0, 0, 1], [8, 0, 0, 1]]
    assert r.vertex.tolist() == [0, 1, 2, 3]


def test_4_1_nonindexed_float3_position_exact():
    r = run_ia(POS, {0: VertexBufferView(positions(8), 12)}, DrawInstanced(3, 1, 2, 0),
               topology="POINTLIST")
    assert rows(r, "POSITION0") == [pos_bits(2), pos_bits(3), pos_bits(4)]


def test_4_1_nonindexed_restarts_every_instance():
    r = run_ia(ID, vb_count(), DrawInstanced(3, 3, 2, 0), topology="POINTLIST")
    assert xs(r) == [2, 3, 4] * 3
    assert r.fetch_index.tolist() == [2, 3, 4] * 3
    assert r.instance.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert r.vertex.tolist() == [0, 1, 2] * 3


def test_4_1_start_vertex_wraps_at_32_bits():
    # StartVertexLocation + i in 32-bit arithmetic (4.8, SPEC 8.19.1): 0xFFFFFFFF + 1 -> 0.
    r = run_ia(ID, vb_count(4, base=1000), DrawInstanced(2, 1, U32MAX, 0), topology="POINTLIST")
    assert r.fetch_index.tolist() == [U32MAX, 0]
    assert rows(r) == [OOB_U, [1000, 0, 0, 1]]


def test_4_2_byte_address_wraps_at_32_bits():
    # stride 4 * 0x40000000 = 2**32 -> wraps to byte address 0 (4.2, SPEC 8.19.1).
    r = run_ia(ID, vb_count(4, base=1000), DrawInstanced(2, 1, 0x40000000, 0),
               topology="POINTLIST")
    assert r.fetch_index.tolist() == [0x40000000, 0x40000001]
    assert xs(r) == [1000, 1001]


# -- 4.2 indexed fetch ------------------------------------------------------------------------

def test_4_2_indexed_fetch_is_base_plus_index():
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(4, 1, 0, 4, 0), topology="POINTLIST",
               index_buffer=ib16([3, 0, 2, 1]))
    assert r.vertex_id.tolist() == [3, 0, 2, 1]
    assert r.fetch_index.tolist() == [7, 4, 6, 5]
    assert xs(r) == [7, 4, 6, 5]


def test_4_2_negative_base_vertex():
    # base -2 with index 5 -> vertex 3
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(3, 1, 0, -2, 0), topology="POINTLIST",
               index_buffer=ib32([5, 6, 7]))
    assert r.fetch_index.tolist() == [3, 4, 5]
    assert xs(r) == [3, 4, 5]
    assert r.vertex_id.tolist() == [5, 6, 7]


def test_4_2_base_minus_one_index_zero_wraps_out_of_bounds():
    # -1 + 0 = 0xFFFFFFFF (unsigned 32-bit): far out of bounds -> zeros + (0,0,0,1) fill (6.1);
    # -1 + 1 = 0 and -1 + 2 = 1 are ordinary vertices.
    lay = layout(el("V", "R32G32_FLOAT"))
    data = b"".join(struct.pack("<2f", 100 + k, 200 + k) for k in range(4))
    r = run_ia(lay, {0: VertexBufferView(data, 8)}, DrawIndexedInstanced(3, 1, 0, -1, 0),
               topology="POINTLIST", index_buffer=ib16([0, 1, 2]))
    assert r.fetch_index.tolist() == [U32MAX, 0, 1]
    assert rows(r, "V0") == [fbits(0, 0, 0, 1.0), fbits(100, 200, 0, 1.0),
                             fbits(101, 201, 0, 1.0)]


def test_4_2_base_plus_index_wraps_back_into_range():
    # 0x7FFFFFFF + 0x80000003 = 0x1_0000_0002 -> 2 in 32-bit arithmetic (4.2, SPEC 8.19.1).
    r = run_ia(ID, vb_count(8, base=1000), DrawIndexedInstanced(1, 1, 0, 0x7FFFFFFF, 0),
               topology="POINTLIST", index_buffer=ib32([0x80000003]))
    assert r.fetch_index.tolist() == [2]
    assert xs(r) == [1002]
    assert r.vertex_id.tolist() == [0x80000003]


def test_4_2_indexed_fetch_past_vertex_buffer_is_out_of_bounds():
    # SPEC 8.19.2: "applies when an index refers to a vertex number outside the buffer"
    r = run_ia(ID, vb_count(4, base=1000), DrawIndexedInstanced(3, 1, 0, 0, 0),
               topology="POINTLIST", index_buffer=ib16([3, 4, 1000]))
    assert rows(r) == [[1003, 0, 0, 1], OOB_U, OOB_U]


# -- 4.3 per-instance data --------------------------------------------------------------------

def _instanced_layout(rate):
    return layout(el("ID", "R32_UINT"), el("INST", "R32_UINT", slot=1, rate=rate))


@pytest.mark.parametrize("rate, start, count, elements", [
    (2, 4, 4, [4, 4, 5, 5]),              # WINE test_instanced_draw
    (0, 4, 4, [4, 4, 4, 4]),              # step rate 0: StartInstanceLocation for all
    (1, 0, 4, [0, 1, 2, 3]),
    (1, 3, 4, [3, 4, 5, 6]),
    (3, 0, 7, [0, 0, 0, 1, 1, 1, 2]),
    (3, 10, 7, [10, 10, 10, 11, 11, 11, 12]),  # (10 + id)//3 would give 3,3,4,4,4,5,5
])
@pytest.mark.parametrize("indexed", [False, True])
def test_4_3_per_instance_element_index(rate, start, count, elements, indexed):
    vbs = {0: VertexBufferView(counting(16), 4), 1: VertexBufferView(counting(32), 4)}
    if indexed:
        draw = DrawIndexedInstanced(2, count, 0, 0, start)
        r = run_ia(_instanced_layout(rate), vbs, draw, topology="POINTLIST",
                   index_buffer=ib16([0, 1]))
    else:
        r = run_ia(_instanced_layout(rate), vbs, DrawInstanced(2, count, 0, start),
                   topology="POINTLIST")
    # two vertices per instance, instance-major
    assert xs(r, "INST0") == [e for e in elements for _ in range(2)]
    assert xs(r) == [0, 1] * count
    assert r.instance.tolist() == [i for i in range(count) for _ in range(2)]


def test_4_3_per_instance_out_of_bounds():
    # 8 instance elements; start 6, rate 1 -> elements 6, 7, 8 (OOB), 9 (OOB)
    vbs = {0: VertexBufferView(counting(4), 4), 1: VertexBufferView(counting(8), 4)}
    r = run_ia(_instanced_layout(1), vbs, DrawInstanced(1, 4, 0, 6), topology="POINTLIST")
    assert rows(r, "INST0") == [[6, 0, 0, 1], [7, 0, 0, 1], OOB_U, OOB_U]


def test_4_3_start_instance_wraps_at_32_bits():
    vbs = {0: VertexBufferView(counting(4), 4), 1: VertexBufferView(counting(4, 1000), 4)}
    r = run_ia(_instanced_layout(1), vbs, DrawInstanced(1, 2, 0, U32MAX), topology="POINTLIST")
    assert rows(r, "INST0") == [OOB_U, [1000, 0, 0, 1]]


def test_4_3_per_instance_with_float3():
    lay = layout(el("ID", "R32_UINT"), el("POSITION", "R32G32B32_FLOAT", slot=2, rate=2))
    vbs = {0: VertexBufferView(counting(4), 4), 2: VertexBufferView(positions(8), 12)}
    r = run_ia(lay, vbs, DrawInstanced(1, 5, 0, 1), topology="POINTLIST")
    # instance elements 1 + id//2: 1, 1, 2, 2, 3
    assert rows(r, "POSITION0") == [pos_bits(1), pos_bits(1), pos_bits(2), pos_bits(2),
                                    pos_bits(3)]


# -- 4.4 per-instance data is not indexed -----------------------------------------------------

def test_4_4_per_instance_data_ignores_index_buffer_and_base_vertex():
    vbs = {0: VertexBufferView(counting(16), 4), 1: VertexBufferView(counting(16), 4)}
    r = run_ia(_instanced_layout(1), vbs, DrawIndexedInstanced(3, 2, 0, 2, 5),
               topology="POINTLIST", index_buffer=ib16([3, 1, 2]))
    assert xs(r) == [5, 3, 4, 5, 3, 4]  # per-vertex: base 2 + index
    assert xs(r, "INST0") == [5, 5, 5, 6, 6, 6]  # per-instance: 5 + instance id


# -- 4.5 SV_VertexID / 4.6 SV_InstanceID -------------------------------------------------------

def test_4_5_vertex_id_of_drawinstanced_excludes_start_vertex():
    # WINE test_vertex_id: DrawInstanced(3, 1, 3, 16) -> IDs 0,1,2 fetching vertices 3,4,5
    vbs = {0: VertexBufferView(counting(16), 4), 1: VertexBufferView(counting(32), 4)}
    r = run_ia(_instanced_layout(1), vbs, DrawInstanced(3, 1, 3, 16), topology="POINTLIST")
    assert r.vertex_id.tolist() == [0, 1, 2]
    assert xs(r) == [3, 4, 5]
    assert r.instance.tolist() == [0, 0, 0]
    assert xs(r, "INST0") == [16, 16, 16]


def test_4_5_vertex_id_of_drawindexed_is_raw_index():
    # WINE test_vertex_id: DrawIndexedInstanced(IndexCountPerInstance=3, InstanceCount=1,
    # StartIndexLocation=3, BaseVertexLocation=9, StartInstanceLocation=7); the indices at
    # positions 3..5 are 0, 1, 2 -> IDs 0,1,2 while fetching vertices 9..11.
    vbs = {0: VertexBufferView(counting(16), 4), 1: VertexBufferView(counting(16), 4)}
    r = run_ia(_instanced_layout(1), vbs, DrawIndexedInstanced(3, 1, 3, 9, 7),
               topology="POINTLIST", index_buffer=ib16([100, 101, 102, 0, 1, 2]))
    assert r.vertex_id.tolist() == [0, 1, 2]
    assert r.fetch_index.tolist() == [9, 10, 11]
    assert xs(r) == [9, 10, 11]
    assert r.vertex.tolist() == [0, 1, 2]  # j counts from StartIndexLocation (4.2)
    assert r.instance.tolist() == [0, 0, 0]
    assert xs(r, "INST0") == [7, 7, 7]


def test_4_5_vertex_id_is_index_value_not_position():
    r = run_ia(ID, vb_count(2048), DrawIndexedInstanced(3, 1, 1, 2, 0), topology="POINTLIST",
               index_buffer=ib16([9, 7, 3, 1000]))
    assert r.vertex_id.tolist() == [7, 3, 1000]
    assert r.vertex.tolist() == [0, 1, 2]
    assert xs(r) == [9, 5, 1002]


def test_4_5_vertex_id_resets_per_instance():
    r = run_ia(ID, vb_count(), DrawInstanced(2, 3, 5, 0), topology="POINTLIST")
    assert r.vertex_id.tolist() == [0, 1] * 3
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(2, 2, 0, 0, 0), topology="POINTLIST",
               index_buffer=ib16([4, 2]))
    assert r.vertex_id.tolist() == [4, 2, 4, 2]


def test_4_6_instance_id_excludes_start_instance():
    r = run_ia(ID, vb_count(), DrawInstanced(1, 4, 0, 100), topology="POINTLIST")
    assert r.instance.tolist() == [0, 1, 2, 3]
    assert r.instance_id.tolist() == [0, 1, 2, 3]
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(1, 3, 0, 0, 50), topology="POINTLIST",
               index_buffer=ib16([0]))
    assert r.instance.tolist() == [0, 1, 2]


# -- 4.9 incomplete primitives, restarts ------------------------------------------------------

def test_4_9_incomplete_triangle_dropped_but_all_vertices_delivered():
    r = run_ia(ID, vb_count(), DrawInstanced(5), topology="TRIANGLELIST")
    assert len(r) == 5
    assert xs(r) == [0, 1, 2, 3, 4]
    assert r.primitives.tolist() == [[0, 1, 2]]


def test_4_9_incomplete_list_primitive_not_completed_by_next_instance():
    # 4 vertices per instance: one triangle each; (3, 4, 5) would span the instances.
    r = run_ia(ID, vb_count(), DrawInstanced(4, 2), topology="TRIANGLELIST")
    assert r.primitives.tolist() == [[0, 1, 2], [4, 5, 6]]


def test_4_9_every_instance_restarts_a_triangle_strip():
    # 5 vertices per instance -> 3 triangles per instance; the second instance's first triangle
    # is again an even one (t, t+1, t+2) (9.3).
    r = run_ia(ID, vb_count(), DrawInstanced(5, 2), topology="TRIANGLESTRIP")
    assert r.primitives.tolist() == [[0, 1, 2], [1, 3, 2], [2, 3, 4],
                                     [5, 6, 7], [6, 8, 7], [7, 8, 9]]
    # invocation -> fetched vertex: both instances fetch 0..4
    assert xs(r) == [0, 1, 2, 3, 4] * 2


def test_4_9_every_instance_restarts_a_line_strip():
    r = run_ia(ID, vb_count(), DrawInstanced(3, 2), topology="LINESTRIP")
    assert r.primitives.tolist() == [[0, 1], [1, 2], [3, 4], [4, 5]]


def test_4_9_every_instance_restarts_an_indexed_strip():
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(3, 2, 0, 0, 0), topology="TRIANGLESTRIP",
               index_buffer=ib16([2, 1, 0]))
    assert r.primitives.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert xs(r) == [2, 1, 0, 2, 1, 0]


def test_4_9_each_draw_starts_a_new_topology():
    r = run_ia(ID, vb_count(), [DrawInstanced(2), DrawInstanced(2)], topology="TRIANGLESTRIP")
    assert len(r) == 4
    assert r.primitives.shape == (0, 3)
    r = run_ia(ID, vb_count(), [DrawInstanced(2), DrawInstanced(1)], topology="TRIANGLELIST")
    assert r.primitives.shape == (0, 3)


# -- 4.10 statistics --------------------------------------------------------------------------

def test_4_10_statistics_of_four_vertex_triangle_strip():
    r = run_ia(POS, {0: VertexBufferView(positions(4), 12)}, DrawInstanced(4),
               topology="TRIANGLESTRIP")
    assert r.statistics["IAVertices"] == 4
    assert r.statistics["IAPrimitives"] == 2


def test_4_10_statistics_count_incomplete_vertices_and_instances():
    r = run_ia(ID, vb_count(), DrawInstanced(5), topology="TRIANGLELIST")
    assert (r.statistics["IAVertices"], r.statistics["IAPrimitives"]) == (5, 1)
    r = run_ia(ID, vb_count(), DrawInstanced(4, 3), topology="TRIANGLESTRIP")
    assert (r.statistics["IAVertices"], r.statistics["IAPrimitives"]) == (12, 6)


# -- 5.2 strip cut applies only to strip topologies -------------------------------------------

LIST_TOPOLOGIES = {  # name -> primitives from 6 delivered vertices
    "POINTLIST": [[0], [1], [2], [3], [4], [5]],
    "LINELIST": [[0, 1], [2, 3], [4, 5]],
    "TRIANGLELIST": [[0, 1, 2], [3, 4, 5]],
    "LINELIST_ADJ": [[1, 2]],
    "TRIANGLELIST_ADJ": [[0, 2, 4]],
}


@pytest.mark.parametrize("topology", list(LIST_TOPOLOGIES))
def test_5_2_cut_value_is_an_ordinary_index_in_list_topologies(topology):
    r = run_ia(ID, vb_count(8, base=1000), DrawIndexedInstanced(6), topology=topology,
               index_buffer=ib32([0, U32MAX, 1, 2, 3, 4]), strip_cut_value=CUT32)
    assert len(r) == 6
    assert r.vertex_id.tolist() == [0, U32MAX, 1, 2, 3, 4]
    assert r.fetch_index.tolist() == [0, U32MAX, 1, 2, 3, 4]
    assert r.vertex.tolist() == [0, 1, 2, 3, 4, 5]
    assert xs(r) == [1000, 0, 1001, 1002, 1003, 1004]  # 0xFFFFFFFF fetches out of bounds
    assert rows(r)[1] == OOB_U
    assert r.primitives.tolist() == LIST_TOPOLOGIES[topology]


@pytest.mark.parametrize("topology", ["LINELIST", "TRIANGLELIST"])
def test_5_2_cut_0xffff_is_an_ordinary_r16_index_in_list_topologies(topology):
    r = run_ia(ID, vb_count(8), DrawIndexedInstanced(6), topology=topology,
               index_buffer=ib16([0, 0xFFFF, 1, 2, 3, 4]), strip_cut_value=CUT16)
    assert r.vertex_id.tolist() == [0, 0xFFFF, 1, 2, 3, 4]
    assert len(r.primitives) == {"LINELIST": 3, "TRIANGLELIST": 2}[topology]


@pytest.mark.parametrize("topology, prims, adj", [
    # 0xFFFFFFFF at position 1 splits the strip into segments of 1 and 4 delivered vertices
    ("LINESTRIP", [[1, 2], [2, 3], [3, 4]], None),
    ("TRIANGLESTRIP", [[1, 2, 3], [2, 4, 3]], None),
    ("LINESTRIP_ADJ", [[2, 3]], [[1, 4]]),
    ("TRIANGLESTRIP_ADJ", [], []),
])
def test_5_2_cut_value_cuts_strip_topologies(topology, prims, adj):
    r = run_ia(ID, vb_count(8), DrawIndexedInstanced(6), topology=topology,
               index_buffer=ib32([0, U32MAX, 1, 2, 3, 4]), strip_cut_value=CUT32)
    assert len(r) == 5
    assert r.vertex.tolist() == [0, 2, 3, 4, 5]
    assert r.vertex_id.tolist() == [0, 1, 2, 3, 4]
    assert r.primitives.tolist() == prims
    if adj is None:
        assert r.adjacency is None
    else:
        assert r.adjacency.tolist() == adj


# -- 5.3 literal compare, DISABLED ------------------------------------------------------------

@pytest.mark.parametrize("fmt, cut, special, cuts", [
    ("R32_UINT", CUT16, 0xFFFF, True),        # 0xFFFF cuts even with 32-bit indices
    ("R16_UINT", CUT32, 0xFFFF, False),       # 0xFFFFFFFF never matches a 16-bit index
    ("R16_UINT", CUT16, 0xFFFF, True),
    ("R32_UINT", CUT32, U32MAX, True),
    ("R32_UINT", CUT16, U32MAX, False),
    ("R32_UINT", CUT32, 0xFFFF, False),
    ("R16_UINT", StripCutValue.DISABLED, 0xFFFF, False),
    ("R32_UINT", StripCutValue.DISABLED, U32MAX, False),
    ("R32_UINT", StripCutValue.DISABLED, 0xFFFF, False),
])
def test_5_3_cut_compares_the_pipeline_literal(fmt, cut, special, cuts):
    indices = [0, 1, 2, special, 3, 4, 5]
    ib = ib16(indices) if fmt == "R16_UINT" else ib32(indices)
    r = run_ia(ID, vb_count(8), DrawIndexedInstanced(7), topology="TRIANGLESTRIP",
               index_buffer=ib, strip_cut_value=cut)
    if cuts:
        assert r.vertex.tolist() == [0, 1, 2, 4, 5, 6]
        assert r.vertex_id.tolist() == [0, 1, 2, 3, 4, 5]
        assert r.primitives.tolist() == [[0, 1, 2], [3, 4, 5]]
    else:
        assert r.vertex.tolist() == [0, 1, 2, 3, 4, 5, 6]
        assert r.vertex_id.tolist() == indices
        assert r.fetch_index.tolist()[3] == special
        assert rows(r)[3] == OOB_U
        assert r.primitives.tolist() == [[0, 1, 2], [1, 3, 2], [2, 3, 4], [3, 5, 4], [4, 5, 6]]


def test_5_3_cut_value_given_as_integer():
    r = run_ia(ID, vb_count(8), DrawIndexedInstanced(5), topology="LINESTRIP",
               index_buffer=ib32([0, 1, 0xFFFF, 2, 3]), strip_cut_value=0xFFFF)
    assert r.primitives.tolist() == [[0, 1], [2, 3]]


# -- 5.4 a cut delivers no vertex and restarts the strip --------------------------------------

def test_5_4_cut_restarts_triangle_strip_parity():
    # [0 1 2 | 3 4 5 6]: strips of 3 and 4 -> (0,1,2); (3,4,5), (4,6,5) in delivered numbering.
    # Without a restart the second strip's first triangle would be an odd one, (3, 5, 4).
    r = run_ia(ID, vb_count(8), DrawIndexedInstanced(8), topology="TRIANGLESTRIP",
               index_buffer=ib16([0, 1, 2, 0xFFFF, 3, 4, 5, 6]), strip_cut_value=CUT16)
    assert len(r) == 7
    assert r.vertex.tolist() == [0, 1, 2, 4, 5, 6, 7]
    assert r.vertex_id.tolist() == [0, 1, 2, 3, 4, 5, 6]
    assert xs(r) == [0, 1, 2, 3, 4, 5, 6]
    assert r.primitives.tolist() == [[0, 1, 2], [3, 4, 5], [4, 6, 5]]
    assert r.statistics["IAVertices"] == 7
    assert r.statistics["IAPrimitives"] == 3


def test_5_4_leading_trailing_and_consecutive_cuts():
    C = 0xFFFF
    r = run_ia(ID, vb_count(8), DrawIndexedInstanced(9), topology="TRIANGLESTRIP",
               index_buffer=ib16([C, 0, 1, 2, C, C, 3, 4, C]), strip_cut_value=CUT16)
    assert r.vertex.tolist() == [1, 2, 3, 6, 7]
    assert r.vertex_id.tolist() == [0, 1, 2, 3, 4]
    assert r.primitives.tolist() == [[0, 1, 2]]  # the (3, 4) strip is incomplete


def test_5_4_cut_in_line_strip():
    r = run_ia(ID, vb_count(8), DrawIndexedInstanced(6), topology="LINESTRIP",
               index_buffer=ib16([0, 1, 0xFFFF, 2, 3, 4]), strip_cut_value=CUT16)
    assert r.primitives.tolist() == [[0, 1], [2, 3], [3, 4]]


def test_5_4_cut_in_line_strip_adj():
    # [0 1 2 3 | 4 5 6 7 8]: 1 line then 2 lines; line t of a strip = (t+1, t+2), adj (t, t+3)
    C = U32MAX
    r = run_ia(ID, vb_count(16), DrawIndexedInstanced(10), topology="LINESTRIP_ADJ",
               index_buffer=ib32([0, 1, 2, 3, C, 4, 5, 6, 7, 8]), strip_cut_value=CUT32)
    assert r.vertex.tolist() == [0, 1, 2, 3, 5, 6, 7, 8, 9]
    assert r.primitives.tolist() == [[1, 2], [5, 6], [6, 7]]
    assert r.adjacency.tolist() == [[0, 3], [4, 7], [5, 8]]


def test_5_4_cut_in_triangle_strip_adj():
    # two 6-vertex strips: each is the "only" triangle (0,2,4) with adjacency (1,5,3)
    C = 0xFFFF
    r = run_ia(ID, vb_count(16), DrawIndexedInstanced(13), topology="TRIANGLESTRIP_ADJ",
               index_buffer=ib16([0, 1, 2, 3, 4, 5, C, 6, 7, 8, 9, 10, 11]),
               strip_cut_value=CUT16)
    assert len(r) == 12
    assert r.primitives.tolist() == [[0, 2, 4], [6, 8, 10]]
    assert r.adjacency.tolist() == [[1, 5, 3], [7, 11, 9]]


def test_5_4_cut_in_every_instance():
    r = run_ia(ID, vb_count(8), DrawIndexedInstanced(5, 2), topology="LINESTRIP",
               index_buffer=ib16([0, 1, 0xFFFF, 2, 3]), strip_cut_value=CUT16)
    assert r.vertex.tolist() == [0, 1, 3, 4] * 2
    assert r.instance.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert r.primitives.tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]


# -- 5.5 NULL index buffer --------------------------------------------------------------------

@pytest.mark.parametrize("ib", [
    None,
    IndexBufferView(None),
    IndexBufferView(None, "R32_UINT"),
    IndexBufferView(u16([7, 8, 9]), "R16_UINT", 0, 0),  # SizeInBytes 0
], ids=["None", "view-None-R16", "view-None-R32", "size-0"])
def test_5_5_null_index_buffer_reads_zero(ib):
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(3, 2, 4, 5, 0), topology="TRIANGLESTRIP",
               index_buffer=ib, strip_cut_value=CUT16)
    assert r.vertex_id.tolist() == [0] * 6
    assert r.fetch_index.tolist() == [5] * 6
    assert xs(r) == [5] * 6
    assert r.primitives.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_5_5_index_buffer_omitted():
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(2, 1, 0, 3, 0), topology="POINTLIST")
    assert r.vertex_id.tolist() == [0, 0]
    assert xs(r) == [3, 3]


# -- 5.6 index reads outside the index view; view offset/size; R16 vs R32 ----------------------

def test_5_6_index_reads_past_size_in_bytes_read_zero():
    ib = ib16([5, 6, 7, 8], size_in_bytes=4)  # only 2 indices visible
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(4), topology="POINTLIST", index_buffer=ib)
    assert r.vertex_id.tolist() == [5, 6, 0, 0]
    assert xs(r) == [5, 6, 0, 0]


def test_5_6_start_index_past_the_end_reads_zero():
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(3, 1, 2, 0, 0), topology="POINTLIST",
               index_buffer=ib16([5, 6, 7, 8]))
    assert r.vertex_id.tolist() == [7, 8, 0]


def test_5_6_index_view_offset_and_size():
    data = u16([100, 101, 102, 103, 104])
    r = run_ia(ID, vb_count(256), DrawIndexedInstanced(4), topology="POINTLIST",
               index_buffer=IndexBufferView(data, "R16_UINT", 4))
    assert r.vertex_id.tolist() == [102, 103, 104, 0]
    r = run_ia(ID, vb_count(256), DrawIndexedInstanced(3), topology="POINTLIST",
               index_buffer=IndexBufferView(data, "R16_UINT", 2, 4))
    assert r.vertex_id.tolist() == [101, 102, 0]
    r = run_ia(ID, vb_count(256), DrawIndexedInstanced(3, 1, 1, 0, 0), topology="POINTLIST",
               index_buffer=IndexBufferView(u32([10, 11, 12, 13]), "R32_UINT", 8))
    assert r.vertex_id.tolist() == [13, 0, 0]


def test_5_6_r16_and_r32_read_the_same_bytes_differently():
    data = u32([0x00020001, 0x00040003])  # as 16-bit little-endian: 1, 2, 3, 4
    r16 = run_ia(ID, vb_count(), DrawIndexedInstanced(4), topology="POINTLIST",
                 index_buffer=IndexBufferView(data, "R16_UINT"))
    assert r16.vertex_id.tolist() == [1, 2, 3, 4]
    assert xs(r16) == [1, 2, 3, 4]
    r32 = run_ia(ID, vb_count(), DrawIndexedInstanced(2), topology="POINTLIST",
                 index_buffer=IndexBufferView(data, "R32_UINT"))
    assert r32.vertex_id.tolist() == [0x00020001, 0x00040003]
    assert rows(r32) == [OOB_U, OOB_U]


def test_5_6_index_partly_inside_the_view_reads_zero():
    # (inferred from 6.1/6.3: an index is read only if all its bytes lie inside the view)
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(2), topology="POINTLIST",
               index_buffer=ib16([7, 8], size_in_bytes=3))
    assert r.vertex_id.tolist() == [7, 0]
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(2), topology="POINTLIST",
               index_buffer=ib32([9, 10], size_in_bytes=6))
    assert r.vertex_id.tolist() == [9, 0]


def test_5_6_last_r16_index_at_the_very_end_of_the_buffer():
    # 3 indices = 6 bytes: the last one ends exactly at the buffer's end
    r = run_ia(ID, vb_count(), DrawIndexedInstanced(3), topology="POINTLIST",
               index_buffer=ib16([1, 2, 3]))
    assert r.vertex_id.tolist() == [1, 2, 3]


# -- 6.1 out-of-bounds fetch ------------------------------------------------------------------

@pytest.mark.parametrize("fmt, element, inside, oob", [
    ("R32G32_FLOAT", struct.pack("<2f", 1.5, -2.0), fbits(1.5, -2.0, 0, 1.0), fbits(0, 0, 0, 1.0)),
    ("R32G32B32_FLOAT", struct.pack("<3f", 1, 2, 3), fbits(1, 2, 3, 1.0), fbits(0, 0, 0, 1.0)),
    ("R32G32B32A32_FLOAT", struct.pack("<4f", 1, 2, 3, 4), fbits(1, 2, 3, 4), [0, 0, 0, 0]),
    ("R16G16_UINT", struct.pack("<2H", 7, 0xFFFF), [7, 0xFFFF, 0, 1], [0, 0, 0, 1]),
    ("R32_SINT", struct.pack("<i", -5), [0xFFFFFFFB, 0, 0, 1], [0, 0, 0, 1]),
    ("R16_SINT", struct.pack("<h", -3), [0xFFFFFFFD, 0, 0, 1], [0, 0, 0, 1]),
    ("R8G8B8A8_UINT", bytes([1, 2, 3, 4]), [1, 2, 3, 4], [0, 0, 0, 0]),
    ("R32G32B32A32_UINT", u32([9, 8, 7, 6]), [9, 8, 7, 6], [0, 0, 0, 0]),
])
def test_6_1_out_of_bounds_reads_zero_plus_default_fill(fmt, element, inside, oob):
    size = len(element)
    lay = layout(el("V", fmt))
    vb = {0: VertexBufferView(element * 2, size)}  # 2 elements
    r = run_ia(lay, vb, DrawInstanced(4), topology="POINTLIST")
    assert rows(r, "V0") == [inside, inside, oob, oob]


# -- 6.2 unbound slots ------------------------------------------------------------------------

TWO_SLOTS = layout(el("ID", "R32_UINT"), el("V", "R32G32_FLOAT", slot=1))


@pytest.mark.parametrize("buffers", [
    {0: VertexBufferView(counting(4), 4)},
    {0: VertexBufferView(counting(4), 4), 1: None},
    {0: VertexBufferView(counting(4), 4), 1: VertexBufferView(None, 8)},
    {0: VertexBufferView(counting(4), 4), 1: VertexBufferView(None)},
    [VertexBufferView(counting(4), 4)],
    [VertexBufferView(counting(4), 4), None],
], ids=["missing", "None", "null-view-stride", "null-view", "seq-short", "seq-None"])
def test_6_2_unbound_slot_reads_all_zero(buffers):
    r = run_ia(TWO_SLOTS, buffers, DrawInstanced(3), topology="POINTLIST")
    assert rows(r, "V0") == [[0, 0, 0, 0]] * 3  # w = 0, not 1.0
    assert xs(r) == [0, 1, 2]


@pytest.mark.parametrize("fmt", ["R32G32B32_FLOAT", "R16G16_UINT", "R32_SINT", "R8_UNORM"])
def test_6_2_unbound_slot_has_no_default_fill(fmt):
    r = run_ia(layout(el("V", fmt, slot=3)), {}, DrawInstanced(2), topology="POINTLIST")
    assert rows(r, "V0") == [[0, 0, 0, 0]] * 2


def test_6_2_unbound_per_instance_slot_reads_all_zero():
    r = run_ia(_instanced_layout(1), {0: VertexBufferView(counting(4), 4)},
               DrawInstanced(1, 2), topology="POINTLIST")
    assert rows(r, "INST0") == [[0, 0, 0, 0]] * 2


@pytest.mark.parametrize("view", [
    VertexBufferView(struct.pack("<2f", 1.0, 2.0), 8, size_in_bytes=0),
    VertexBufferView(b"", 8),
    VertexBufferView(struct.pack("<2f", 1.0, 2.0), 8, offset=8),  # starts at the buffer's end
], ids=["size-0", "empty-bytes", "offset-at-end"])
def test_6_2_bound_but_empty_view_is_out_of_bounds_not_unbound(view):
    # the asymmetry of 6.1 / 6.2: a bound view of size 0 gives the (0,0,0,1) fill
    r = run_ia(TWO_SLOTS, {0: VertexBufferView(counting(4), 4), 1: view},
               DrawInstanced(1), topology="POINTLIST")
    assert rows(r, "V0") == [fbits(0, 0, 0, 1.0)]


# -- 6.3 per-element bounds against SizeInBytes -----------------------------------------------

def test_6_3_element_partly_inside_is_out_of_bounds():
    # stride 12, SizeInBytes 30: vertex 2 covers bytes [24, 36) -> only partly inside
    r = run_ia(POS, {0: VertexBufferView(positions(3), 12, size_in_bytes=30)}, DrawInstanced(3),
               topology="POINTLIST")
    assert rows(r, "POSITION0") == [pos_bits(0), pos_bits(1), fbits(0, 0, 0, 1.0)]


def test_6_3_bounds_are_per_element_not_per_stride():
    # stride 16, 12-byte element at 0, SizeInBytes 44: vertex 2 = [32, 44) is wholly inside even
    # though 44 // 16 == 2 (the "idx < Size/Stride" rule would reject it); vertex 3 is not.
    data = b"".join(struct.pack("<3f4x", k, 10 * k, 100 * k) for k in range(4))
    r = run_ia(POS, {0: VertexBufferView(data, 16, size_in_bytes=44)}, DrawInstanced(4),
               topology="POINTLIST")
    assert rows(r, "POSITION0") == [pos_bits(0), pos_bits(1), pos_bits(2), fbits(0, 0, 0, 1.0)]


def test_6_3_two_elements_of_one_vertex_bounded_separately():
    # stride 12: A at +0, B at +8. SizeInBytes 20: vertex 1's A = [12, 16) is inside, its
    # B = [20, 24) is not.
    lay = layout(el("A", "R32_UINT"), el("B", "R32_UINT", offset=8))
    r = run_ia(lay, {0: VertexBufferView(counting(6), 12, size_in_bytes=20)}, DrawInstanced(2),
               topology="POINTLIST")
    assert xs(r, "A0") == [0, 3]
    assert rows(r, "B0") == [[2, 0, 0, 1], OOB_U]


def test_6_3_stride_zero_with_size_below_element_end_reads_zero():
    lay = layout(el("V", "R32G32B32A32_UINT"))
    data = u32([5, 6, 7, 8])
    r = run_ia(lay, {0: VertexBufferView(data, 0, size_in_bytes=12)}, DrawInstanced(3),
               topology="POINTLIST")
    assert rows(r, "V0") == [[0, 0, 0, 0]] * 3
    r = run_ia(lay, {0: VertexBufferView(data, 0, size_in_bytes=16)}, DrawInstanced(3),
               topology="POINTLIST")
    assert rows(r, "V0") == [[5, 6, 7, 8]] * 3


def test_6_3_stride_zero_with_element_offset():
    # element at +4, 4 bytes: in bounds only if SizeInBytes >= 8; when out of bounds the one
    # component reads 0 and the missing ones get the (0, 0, 0, 1) fill of 6.1
    lay = layout(el("V", "R32_UINT", offset=4))
    data = u32([5, 6, 7])
    r = run_ia(lay, {0: VertexBufferView(data, 0, size_in_bytes=7)}, DrawInstanced(2),
               topology="POINTLIST")
    assert rows(r, "V0") == [OOB_U] * 2
    r = run_ia(lay, {0: VertexBufferView(data, 0, size_in_bytes=8)}, DrawInstanced(2),
               topology="POINTLIST")
    assert xs(r, "V0") == [6, 6]


def test_6_3_view_offset_shifts_reads_and_bounds():
    data = counting(8)
    r = run_ia(ID, {0: VertexBufferView(data, 4, offset=8)}, DrawInstanced(7),
               topology="POINTLIST")
    # vertex i reads element 2 + i; the view holds elements 2..7 (24 bytes)
    assert rows(r) == [[2 + i, 0, 0, 1] for i in range(6)] + [OOB_U]
    r = run_ia(ID, {0: VertexBufferView(data, 4, offset=8, size_in_bytes=8)}, DrawInstanced(3),
               topology="POINTLIST")
    assert rows(r) == [[2, 0, 0, 1], [3, 0, 0, 1], OOB_U]  # element 4 exists but is outside


def test_6_3_size_smaller_than_buffer_limits_reads():
    r = run_ia(ID, {0: VertexBufferView(counting(16), 4, size_in_bytes=12)}, DrawInstanced(5),
               topology="POINTLIST")
    assert rows(r) == [[0, 0, 0, 1], [1, 0, 0, 1], [2, 0, 0, 1], OOB_U, OOB_U]


# -- strides (3.3) and unaligned data ---------------------------------------------------------

def test_stride_zero_every_vertex_reads_element_zero():
    lay = layout(el("V", "R32_UINT", offset=8))
    vb = {0: VertexBufferView(counting(4), 0)}
    r = run_ia(lay, vb, DrawInstanced(4, 1, 3, 0), topology="POINTLIST")
    assert xs(r, "V0") == [2, 2, 2, 2]  # byte 8 = word 2, for every vertex
    r = run_ia(lay, vb, DrawIndexedInstanced(3, 1, 0, 1, 0), topology="POINTLIST",
               index_buffer=ib16([5, 0, 9]))
    assert xs(r, "V0") == [2, 2, 2]


def test_stride_smaller_than_element_overlaps_vertices():
    lay = layout(el("V", "R32G32B32A32_UINT"))
    r = run_ia(lay, {0: VertexBufferView(counting(8), 4)}, DrawInstanced(4, 1, 1, 0),
               topology="POINTLIST")
    # vertex at element v reads words v..v+3; vertex 4 ([16, 32)) still fits in 32 bytes
    assert rows(r, "V0") == [[1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6], [4, 5, 6, 7]]
    r = run_ia(lay, {0: VertexBufferView(counting(8), 4)}, DrawInstanced(1, 1, 5, 0),
               topology="POINTLIST")
    assert rows(r, "V0") == [[0, 0, 0, 0]]  # [20, 36) runs past 32 bytes


def test_overlapping_elements_in_one_slot():
    lay = layout(el("A", "R32G32_UINT"), el("B", "R32_UINT", offset=4))
    r = run_ia(lay, {0: VertexBufferView(counting(8), 8)}, DrawInstanced(3),
               topology="POINTLIST")
    assert rows(r, "A0") == [[0, 1, 0, 1], [2, 3, 0, 1], [4, 5, 0, 1]]
    assert xs(r, "B0") == [1, 3, 5]


@pytest.mark.parametrize("view_offset", [0, 1, 2, 3])
def test_unaligned_stride_7(view_offset):
    # stride 7 = R32_UINT @0 + R16_UINT @4 + R8_UINT @6; the buffer ends exactly after the last
    # vertex, so the last R8 element is the buffer's last byte.
    n = 5
    buf = bytearray(view_offset + 7 * n)
    for v in range(n):
        struct.pack_into("<IHB", buf, view_offset + 7 * v, 0xA0B0C000 + v, 0x5000 + v, 0x30 + v)
    lay = layout(el("A", "R32_UINT"), el("B", "R16_UINT", offset=4), el("C", "R8_UINT", offset=6))
    r = run_ia(lay, {0: VertexBufferView(bytes(buf), 7, offset=view_offset)}, DrawInstanced(n),
               topology="POINTLIST")
    assert xs(r, "A0") == [0xA0B0C000 + v for v in range(n)]
    assert xs(r, "B0") == [0x5000 + v for v in range(n)]
    assert xs(r, "C0") == [0x30 + v for v in range(n)]
    # indexed, to read vertices out of order
    r = run_ia(lay, {0: VertexBufferView(bytes(buf), 7, offset=view_offset)},
               DrawIndexedInstanced(3), topology="POINTLIST", index_buffer=ib16([4, 0, 2]))
    assert xs(r, "A0") == [0xA0B0C004, 0xA0B0C000, 0xA0B0C002]
    assert xs(r, "C0") == [0x34, 0x30, 0x32]


@pytest.mark.parametrize("view_offset", [1, 3])
def test_unaligned_stride_13_float3_and_signed(view_offset):
    # stride 13 = POSITION (k, 10k, 100k) @0 + R8_SINT (-k) @12
    n = 4
    buf = bytearray(view_offset + 13 * n)
    for k in range(n):
        struct.pack_into("<3fb", buf, view_offset + 13 * k, k, 10 * k, 100 * k, -k)
    lay = layout(el("POSITION", "R32G32B32_FLOAT"), el("S", "R8_SINT", offset=12))
    r = run_ia(lay, {0: VertexBufferView(bytes(buf), 13, offset=view_offset)},
               DrawInstanced(n), topology="POINTLIST")
    assert rows(r, "POSITION0") == [pos_bits(k) for k in range(n)]
    assert r.inputs["S0"].values[:, 0].tolist() == [0, -1, -2, -3]  # sign-extended (2.4)


def test_unaligned_stride_11_mixed_formats():
    # stride 11 = R32_UINT @0 + R16G16_SINT @4 + R16_FLOAT @8 + R8_UINT @10, view offset 3
    n, off = 4, 3
    buf = bytearray(off + 11 * n)
    for k in range(n):
        struct.pack_into("<IhheB", buf, off + 11 * k, 0x01020304 * (k + 1), -k - 1, 100 * k,
                         k + 0.5, 200 + k)
    lay = layout(el("A", "R32_UINT"), el("S", "R16G16_SINT", offset=4),
                 el("F", "R16_FLOAT", offset=8), el("G", "R8_UINT", offset=10))
    r = run_ia(lay, {0: VertexBufferView(bytes(buf), 11, offset=off)}, DrawInstanced(n),
               topology="POINTLIST")
    assert xs(r, "A0") == [0x01020304 * (k + 1) for k in range(n)]
    assert r.inputs["S0"].values.tolist() == [[-k - 1, 100 * k, 0, 1] for k in range(n)]
    assert rows(r, "F0") == [fbits(k + 0.5, 0, 0, 1.0) for k in range(n)]  # exact in half
    assert xs(r, "G0") == [200 + k for k in range(n)]


# -- several draws in one call ----------------------------------------------------------------

def test_several_draws_fields_and_numbering():
    draws = [DrawInstanced(3), DrawInstanced(2, 2, 5, 0), DrawIndexedInstanced(3)]
    r = run_ia(ID, vb_count(), draws, topology="TRIANGLELIST", index_buffer=ib16([7, 8, 9]))
    assert r.draw.tolist() == [0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
    assert r.instance.tolist() == [0, 0, 0, 0, 0, 1, 1, 0, 0, 0]
    assert r.vertex.tolist() == [0, 1, 2, 0, 1, 0, 1, 0, 1, 2]
    assert r.vertex_id.tolist() == [0, 1, 2, 0, 1, 0, 1, 7, 8, 9]
    assert r.fetch_index.tolist() == [0, 1, 2, 5, 6, 5, 6, 7, 8, 9]
    assert xs(r) == [0, 1, 2, 5, 6, 5, 6, 7, 8, 9]
    # draw 1's instances have 2 vertices each: no triangle, and none spanning into draw 2
    assert r.primitives.tolist() == [[0, 1, 2], [7, 8, 9]]
    assert r.primitive_draw.tolist() == [0, 2]
    assert r.statistics["IAVertices"] == 10
    assert r.statistics["IAPrimitives"] == 2


def test_several_draws_line_strip_does_not_span_draws():
    r = run_ia(ID, vb_count(), [DrawInstanced(2), DrawInstanced(2, 1, 4, 0)],
               topology="LINESTRIP")
    assert r.primitives.tolist() == [[0, 1], [2, 3]]
    assert r.primitive_draw.tolist() == [0, 1]
    assert xs(r) == [0, 1, 4, 5]


def test_several_draws_triangle_strip_parity_restarts():
    r = run_ia(ID, vb_count(), [DrawInstanced(3), DrawInstanced(4)], topology="TRIANGLESTRIP")
    assert r.primitives.tolist() == [[0, 1, 2], [3, 4, 5], [4, 6, 5]]
    assert r.primitive_draw.tolist() == [0, 1, 1]


def test_several_draws_with_empty_draws_keep_numbering():
    draws = [DrawInstanced(3), DrawInstanced(0), DrawInstanced(3, 0), DrawInstanced(3, 1, 4, 0)]
    r = run_ia(ID, vb_count(), draws, topology="TRIANGLELIST")
    assert r.draw.tolist() == [0, 0, 0, 3, 3, 3]
    assert xs(r) == [0, 1, 2, 4, 5, 6]
    assert r.primitives.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert r.primitive_draw.tolist() == [0, 3]


EMPTY_DRAWS = {"vertices-no-instance": "DrawInstanced(0xFFFFFFFF, 0)",
               "instances-no-vertex": "DrawInstanced(0, 0xFFFFFFFF, 0, 0xFFFFFFFF)",
               "indices-no-instance": "DrawIndexedInstanced(0xFFFFFFFF, 0)",
               "instances-no-index": "DrawIndexedInstanced(0, 0xFFFFFFFF, 7, -3, 5)"}


@pytest.mark.parametrize("empty", list(EMPTY_DRAWS))
def test_a_draw_delivering_nothing_ignores_its_other_count(empty, capped_python):
    """A draw with one count 0 delivers nothing, however large the other: vertices 0..count-1
    of instances 0..InstanceCount-1 (rules 4.1, 4.6) is an empty set (found by the fuzzer:
    the index list of 2^31 indices and no instance was built, 16 GiB). Run under a 4 GiB cap:
    materializing the other count would need 32 GiB or more and fails there at once."""
    code = f"""
import json
from gpuia.d3d.draws import DrawIndexedInstanced, DrawInstanced
from gpuia.d3d.ia_desc import IndexBufferView
from gpuia.reference import run_ia
empty = {EMPTY_DRAWS[empty]}
layout = [{{"SemanticName": "X", "Format": "R32_UINT"}}]
vb = {{0: {{"buffer": bytes(range(40)), "stride": 4}}}}
ib = IndexBufferView(bytes([9, 0, 8, 0, 7, 0]), "R16_UINT")
r = run_ia(layout, vb, [empty, DrawInstanced(3, 1, 4, 0), empty], topology="TRIANGLELIST",
           index_buffer=ib)
print(json.dumps([r.draw.tolist(), r.fetch_index.tolist(), r.primitives.tolist(),
                  r.statistics]))
"""
    proc = capped_python("-c", code, cap_gib=4)
    assert proc.returncode == 0, proc.stderr
    draw, fetch, prims, stats = json.loads(proc.stdout)
    assert draw == [1, 1, 1] and fetch == [4, 5, 6] and prims == [[0, 1, 2]]
    assert stats == {"IAVertices": 3, "IAPrimitives": 1}


def test_several_draws_given_as_case_file_dicts():
    draws = [{"DrawInstanced": {"VertexCountPerInstance": 2, "StartVertexLocation": 3}},
             {"DrawIndexedInstanced": {"IndexCountPerInstance": 2, "BaseVertexLocation": -1,
                                       "StartIndexLocation": 1}}]
    r = run_ia(ID, vb_count(), draws, topology="LINELIST", index_buffer=ib16([9, 8, 7]))
    assert r.draw.tolist() == [0, 0, 1, 1]
    assert xs(r) == [3, 4, 7, 6]
    assert r.vertex_id.tolist() == [0, 1, 8, 7]
    assert r.primitive_draw.tolist() == [0, 1]


def test_several_indexed_draws_with_cut_and_instances():
    draws = [DrawIndexedInstanced(4, 2, 0, 0, 0), DrawIndexedInstanced(3, 1, 4, 10, 0)]
    r = run_ia(ID, vb_count(), draws, topology="LINESTRIP", strip_cut_value=CUT16,
               index_buffer=ib16([0, 0xFFFF, 1, 2, 3, 4, 5]))
    # draw 0 per instance: delivered [0, 1, 2] as segments [0] and [1, 2]; draw 1: 13, 14, 15
    assert r.draw.tolist() == [0] * 6 + [1] * 3
    assert xs(r) == [0, 1, 2, 0, 1, 2, 13, 14, 15]
    assert r.primitives.tolist() == [[1, 2], [4, 5], [6, 7], [7, 8]]
    assert r.primitive_draw.tolist() == [0, 0, 1, 1]


# -- several slots ----------------------------------------------------------------------------

SPARSE = layout(el("POSITION", "R32G32B32_FLOAT"), el("COLOR", "R32_UINT", slot=5))


def _sparse_color_buffer():
    # stride 8: element k at byte 8k holds 500 + k, the other 4 bytes hold 0xDEADBEEF
    return u32(w for k in range(8) for w in (500 + k, 0xDEADBEEF))


@pytest.mark.parametrize("as_sequence", [False, True])
def test_sparse_slots_0_and_5(as_sequence):
    pos = VertexBufferView(positions(8), 12)
    col = VertexBufferView(_sparse_color_buffer(), 8)
    buffers = [pos, None, None, None, None, col] if as_sequence else {0: pos, 5: col}
    r = run_ia(SPARSE, buffers, DrawInstanced(3, 1, 1, 0), topology="POINTLIST")
    assert rows(r, "POSITION0") == [pos_bits(1), pos_bits(2), pos_bits(3)]
    assert xs(r, "COLOR0") == [501, 502, 503]


def test_sparse_slots_indexed():
    pos = VertexBufferView(positions(8), 12)
    col = VertexBufferView(_sparse_color_buffer(), 8)
    r = run_ia(SPARSE, {0: pos, 5: col}, DrawIndexedInstanced(3, 1, 0, 1, 0),
               topology="POINTLIST", index_buffer=ib16([6, 0, 2]))
    assert rows(r, "POSITION0") == [pos_bits(7), pos_bits(1), pos_bits(3)]
    assert xs(r, "COLOR0") == [507, 501, 503]


def test_one_buffer_in_two_slots_with_different_offsets_and_strides():
    data = counting(32)
    lay = layout(el("A", "R32_UINT"), el("B", "R32_UINT", slot=1))
    r = run_ia(lay, {0: VertexBufferView(data, 4), 1: VertexBufferView(data, 8, offset=4)},
               DrawInstanced(4), topology="POINTLIST")
    assert xs(r, "A0") == [0, 1, 2, 3]
    assert xs(r, "B0") == [1, 3, 5, 7]  # byte 4 + 8v = word 1 + 2v


def test_slots_have_independent_bounds():
    lay = layout(el("A", "R32_UINT"), el("B", "R32_UINT", slot=1))
    r = run_ia(lay, {0: VertexBufferView(counting(4), 4), 1: VertexBufferView(counting(2), 4)},
               DrawInstanced(3), topology="POINTLIST")
    assert xs(r, "A0") == [0, 1, 2]
    assert rows(r, "B0") == [[0, 0, 0, 1], [1, 0, 0, 1], OOB_U]


# -- the decode paths agree with the rules address by address ---------------------------------
# run_ia reads a per-vertex element straight from a strided view when its addresses are a
# regular stride, gathers whole vertex rows when every indexed fetch is in bounds, and reads
# address by address otherwise. Each case below is checked against the rules applied one
# invocation at a time in Python: address = Stride * fetch index + AlignedByteOffset in 32-bit
# arithmetic (4.2, 4.8), in bounds only if the whole element is inside SizeInBytes (6.3), else
# zero bytes (6.1), decoded by decode_words (tested on its own in test_formats.py).

def _expected_bits(fmt, data: bytes, stride: int, offset: int, fetches) -> list[list[int]]:
    out = []
    for f in fetches:
        address = (stride * f + offset) & U32MAX
        element = (data[address : address + fmt.size] if address + fmt.size <= len(data)
                   else bytes(fmt.size))
        words = np.frombuffer(element + bytes(4 * fmt.words - fmt.size), dtype="<u4")
        out.append(decode_words(fmt, words.reshape(1, fmt.words))[0].tolist())
    return out


def _random_bytes(n: int, seed: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, size=n, dtype=np.uint8).tobytes()


@pytest.mark.parametrize("name", sorted(VERTEX_FORMATS))
@pytest.mark.parametrize("start,count,tail", [(0, 40, 0), (3, 40, 2), (5, 30, 30)])
def test_regular_stride_decode_matches_the_rules_every_format(name, start, count, tail):
    # Non-indexed: fetch indices start .. start + count - 1. The stride is odd, so addresses
    # are unaligned; ``tail`` rows at the end run past SizeInBytes (the last one partly).
    fmt = VERTEX_FORMATS[name]
    offset = fmt.alignment
    stride = offset + fmt.size + 3
    size = stride * (start + count - tail) + offset + fmt.size // 2 * (tail > 0)
    data = _random_bytes(size, len(name) + start)
    r = run_ia(layout(el("A", name, offset=offset)),
               {0: VertexBufferView(data, stride)}, DrawInstanced(count, 1, start, 0),
               topology="POINTLIST")
    assert rows(r, "A0") == _expected_bits(fmt, data, stride, offset,
                                           range(start, start + count))


@pytest.mark.parametrize("name", sorted(VERTEX_FORMATS))
@pytest.mark.parametrize("oob", [False, True])
def test_indexed_decode_matches_the_rules_every_format(name, oob):
    # Two elements of one slot fetched at scattered indices, every index in bounds (the
    # buffer ends exactly at the last vertex's second element), or one index past the end.
    fmt = VERTEX_FORMATS[name]
    second = 4 + 4 * fmt.words
    stride = second + fmt.size + 1
    n = 25
    size = stride * (n - 1) + second + fmt.size
    data = _random_bytes(size, len(name))
    indices = [int(v) for v in np.random.default_rng(7).permutation(n)] + [n - 1, 0, n - 1]
    if oob:
        indices[5] = n + 3
    r = run_ia(layout(el("A", name, offset=4), el("B", name, offset=second)),
               {0: VertexBufferView(data, stride)}, DrawIndexedInstanced(len(indices)),
               topology="POINTLIST", index_buffer=ib32(indices))
    assert rows(r, "A0") == _expected_bits(fmt, data, stride, 4, indices)
    assert rows(r, "B0") == _expected_bits(fmt, data, stride, second, indices)


@pytest.mark.parametrize("stride", [0, 20])
def test_decode_paths_with_instances_and_step_rates(stride):
    # Per-vertex POSITION plus a per-instance R16G16_UNORM at step rate 2, three instances
    # (4.3: element StartInstanceLocation + InstanceID // 2); stride 0 reads one vertex for all,
    # and with stride 20 index 3 (fetch 4, bytes 80..91) is past the 72 bytes: out of bounds.
    pos = positions(6)
    inst = _random_bytes(4 * 5, 3)
    lay = layout(el("POSITION", "R32G32B32_FLOAT"), el("C", "R16G16_UNORM", slot=1, rate=2))
    views = {0: VertexBufferView(pos, stride), 1: VertexBufferView(inst, 4)}
    r = run_ia(lay, views, DrawIndexedInstanced(4, 3, 0, 1, 2), topology="POINTLIST",
               index_buffer=ib16([3, 0, 2, 3]))
    fmt = VERTEX_FORMATS["R16G16_UNORM"]
    fetched = [1 + v for v in (3, 0, 2, 3)] * 3
    expected_pos = _expected_bits(VERTEX_FORMATS["R32G32B32_FLOAT"], pos, stride, 0, fetched)
    assert rows(r, "POSITION0") == expected_pos
    per_instance = _expected_bits(fmt, inst, 4, 0, [2 + i // 2 for i in range(3)])
    assert rows(r, "C0") == [per_instance[i] for i in range(3) for _ in range(4)]
    assert r.instance.tolist() == [0] * 4 + [1] * 4 + [2] * 4


def test_decode_in_chunks_on_threads_matches_the_rules(monkeypatch):
    # Chunks of 64 rows, so this draw is decoded by several tasks on the thread pool; the
    # result is the same, row for row.
    monkeypatch.setattr("gpuia.util.parallel.CHUNK_ROWS", 64)
    fmt = VERTEX_FORMATS["R8G8B8A8_SNORM"]
    n = 1000
    data = _random_bytes(8 * n, 11)
    indices = [int(v) for v in np.random.default_rng(5).permutation(n)]
    lay = layout(el("A", "R8G8B8A8_SNORM", offset=4), el("B", "R16G16_SINT"))
    vb = {0: VertexBufferView(data, 8)}
    r = run_ia(lay, vb, DrawIndexedInstanced(n, 2), topology="POINTLIST",
               index_buffer=ib32(indices))
    assert rows(r, "A0") == _expected_bits(fmt, data, 8, 4, indices) * 2
    sint = VERTEX_FORMATS["R16G16_SINT"]
    assert rows(r, "B0") == _expected_bits(sint, data, 8, 0, indices) * 2
    r = run_ia(lay, vb, DrawInstanced(n - 3, 1, 3, 0), topology="POINTLIST")
    assert rows(r, "A0") == _expected_bits(fmt, data, 8, 4, range(3, n))


def test_two_draws_out_of_bounds_each_read_their_own_indices():
    # Two indexed draws whose fetches run out of bounds (address by address): each draw's rows
    # come from its own indices, in draw order.
    r = run_ia(ID, vb_count(4, base=1000), [DrawIndexedInstanced(2, 1, 0, 0, 0),
                                           DrawIndexedInstanced(2, 1, 2, 0, 0)],
               topology="POINTLIST", index_buffer=ib32([9, 1, 2, 8]))
    assert rows(r) == [OOB_U, [1001, 0, 0, 1], [1002, 0, 0, 1], OOB_U]
    assert r.draw.tolist() == [0, 0, 1, 1]
