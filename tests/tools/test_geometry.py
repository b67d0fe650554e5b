"""Demo geometry (demos/_common.py, demos/mesh.py): the teapot's data and tessellation, the
vertex encoder, the packed vertex buffers of the mesh layout, mesh files through trimesh, and the
matrices.

Expected values are derived by hand from Newell's published table, the DXGI bit layouts and the
Bézier basis; the packed bytes are also decoded back by gpuia's reference decoder, which is
independent of the demo encoder."""

import struct
import sys

import numpy as np
import pytest

from gpuia.d3d.formats import format_info
from gpuia.demos import load
from gpuia.errors import CaseError, UnsupportedError
from gpuia.reference.decode import decode_words

common = load("_common")    # the teapot, the matrices and the vertex encoder
mesh_demo = load("mesh")    # the mesh demo's layout, its vertex buffers, mesh files


def newell(number):
    """Control point ``number`` (one-based, as in the published table), z up."""
    return common.TEAPOT_CONTROL_POINTS[number - 1]


# -- the data table --------------------------------------------------------------------------
def test_table_has_32_patches_over_306_points():
    assert common.TEAPOT_PATCHES.shape == (32, 4, 4)
    assert common.TEAPOT_CONTROL_POINTS.shape == (306, 3)
    assert common.TEAPOT_PATCHES.min() == 0 and common.TEAPOT_PATCHES.max() == 305
    # The four near-pole points 0.002 off the lid's axis are listed but used by no patch.
    unused = set(range(306)) - set(common.TEAPOT_PATCHES.ravel().tolist())
    assert {u + 1 for u in unused} == {205, 206, 216, 223}


def test_published_values_spot_checked():
    assert newell(1).tolist() == [1.4, 0.0, 2.4]
    assert newell(204).tolist() == [0.0, 0.0, 3.15]        # top of the knob
    assert newell(270).tolist() == [0.0, 0.0, 0.0]         # centre of the bottom
    assert newell(306).tolist() == [1.425, -0.798, 0.0]


def test_teapot_is_mirror_symmetric_about_the_xz_plane():
    pts = {tuple(p) for p in common.TEAPOT_CONTROL_POINTS.tolist()}
    assert all((x, -y if y else y, z) in pts for x, y, z in pts)


def test_neighbouring_patches_share_boundary_control_points():
    p = common.TEAPOT_PATCHES + 1
    assert p[0][:, 3].tolist() == p[1][:, 0].tolist() == [4, 8, 12, 16]   # rim 1 | rim 2
    assert p[0][3].tolist() == p[4][0].tolist() == [13, 14, 15, 16]       # rim 1 / body 1
    assert p[4][3].tolist() == p[8][0].tolist() == [57, 58, 59, 60]       # body 1 / body 5
    assert p[20][0].tolist() == [204] * 4 and p[28][0].tolist() == [270] * 4  # the two poles


# -- tessellation ----------------------------------------------------------------------------
def test_counts():
    m = common.teapot(4)
    assert m.vertex_count == 32 * 5 * 5
    # 2 triangles per quad, minus one per quad along the 8 collapsed edges (4 lid, 4 bottom)
    assert m.indices.shape == (32 * 2 * 4 * 4 - 8 * 4, 3)
    assert m.indices.dtype == np.uint32 and int(m.indices.max()) == m.vertex_count - 1


def test_patch_corners_are_control_points_and_a_midpoint_is_the_bezier_average():
    n = 4
    m = common.teapot(n, y_up=False)
    np.testing.assert_array_equal(m.positions[0], np.float32(newell(1)))     # patch 1, u=0 v=0
    np.testing.assert_array_equal(m.positions[(n + 1) ** 2 - 1], np.float32(newell(16)))  # u=v=1
    # u=0, v=1/2 on patch 1: (P1 + 3 P2 + 3 P3 + P4) / 8 over the first row 1, 2, 3, 4
    # = ((1.4 + 4.2 + 2.352 + 0) / 8, (0 - 2.352 - 4.2 - 1.4) / 8, 2.4)
    np.testing.assert_allclose(m.positions[n // 2], [0.994, -0.994, 2.4], atol=1e-6)


def test_y_up_is_a_rotation_of_newells_frame():
    m = common.teapot(2)
    np.testing.assert_array_equal(m.positions[0], np.float32([1.4, 2.4, 0.0]))  # (x, z, -y)
    lo, hi = m.bounds()
    assert lo[1] == 0.0 and hi[1] == np.float32(3.15)   # bottom at y=0, knob at y=3.15


def test_normals_are_unit_and_point_outwards():
    m = common.teapot(6, y_up=False)
    p, nrm = m.positions.astype(np.float64), m.normals.astype(np.float64)
    np.testing.assert_allclose(np.linalg.norm(nrm, axis=1), 1.0, atol=1e-6)
    per = 7 * 7
    body = slice(4 * per, 12 * per)                      # patches 5..12
    radial = p[body, :2]
    assert np.all(np.einsum("ij,ij->i", nrm[body, :2], radial) > 0)
    axis = np.hypot(p[:, 0], p[:, 1]) < 1e-9
    top, bottom = axis & (p[:, 2] == np.float32(3.15)), axis & (p[:, 2] == 0)
    assert top.sum() == 4 * 7 and bottom.sum() == 4 * 7  # the poles: one row per patch
    np.testing.assert_allclose(nrm[top], np.tile([0, 0, 1.0], (28, 1)), atol=1e-3)
    np.testing.assert_allclose(nrm[bottom], np.tile([0, 0, -1.0], (28, 1)), atol=1e-3)


def test_triangles_wind_counter_clockwise_seen_from_outside():
    m = common.teapot(4)
    p = m.positions.astype(np.float64)
    a, b, c = (p[m.indices[:, k]] for k in range(3))
    face = np.cross(b - a, c - a)
    assert np.all(np.linalg.norm(face, axis=1) > 0)           # no degenerate triangle left
    assert np.all(np.einsum("ij,ij->i", face, m.normals[m.indices].sum(axis=1)) > 0)


@pytest.mark.parametrize("bad", [0, 65, 2.5, True, "8"])
def test_bad_segment_count_refused(bad):
    with pytest.raises(ValueError, match="segments"):
        common.teapot(bad)


# -- the mesh layout and its packed buffers ----------------------------------------------------
def test_mesh_layout_is_the_multi_slot_layout():
    lay = mesh_demo.LAYOUT
    assert [(e.key, e.format.name, e.slot, e.offset) for e in lay] == [
        ("POSITION0", "R32G32B32_FLOAT", 0, 0),
        ("NORMAL0", "R10G10B10A2_UNORM", 1, 0),
        ("TEXCOORD0", "R16G16_FLOAT", 1, 4),
    ]
    assert mesh_demo.STRIDES == {0: 12, 1: 8}


def _one_vertex(normal, uv, pos=(1.0, -2.0, 0.5)):
    return common.Mesh("one", np.float32([pos]), np.float32([normal]), np.float32([uv]),
                         np.zeros((0, 3), np.uint32))


def test_packed_normal_and_uv_bits():
    bufs = mesh_demo.vertex_buffers(_one_vertex((1, 0, 0), (0.5, 0.25)))
    assert bytes(bufs[0]) == struct.pack("<3f", 1.0, -2.0, 0.5)
    normal_word, uv_word = struct.unpack("<2I", bytes(bufs[1]))
    # 1 -> 1.0 * 1023 = 1023; 0 -> 0.5 * 1023 = 511.5 -> 512 (nearest, ties to even); A = 3
    assert normal_word == 1023 | (512 << 10) | (512 << 20) | (3 << 30)
    assert uv_word == 0x3800 | (0x3400 << 16)                # half 0.5 = 0x3800, 0.25 = 0x3400
    bufs = mesh_demo.vertex_buffers(_one_vertex((0, -1, 0), (0, 1)))
    normal_word, uv_word = struct.unpack("<2I", bytes(bufs[1]))
    assert normal_word == 512 | (0 << 10) | (512 << 20) | (3 << 30)
    assert uv_word == 0x3C00 << 16


def test_packed_teapot_decodes_back_through_the_reference():
    m = common.teapot(3)
    rec = mesh_demo.vertex_buffers(m)[1].view("<u4").reshape(-1, 2)
    normal = decode_words(format_info("R10G10B10A2_UNORM"), rec[:, :1]).view(np.float32)
    np.testing.assert_allclose(normal[:, :3] * 2 - 1, m.normals, atol=1.0 / 1023 + 1e-7)
    assert np.all(normal[:, 3] == 1.0)
    uv = decode_words(format_info("R16G16_FLOAT"), rec[:, 1:]).view(np.float32)
    np.testing.assert_allclose(uv[:, :2], m.uvs, atol=2.0**-11)


@pytest.mark.parametrize("fmt, values, expected", [
    # B8G8R8A8: the shader's x (red) is the third byte in memory
    ("B8G8R8A8_UNORM", [[1.0, 0.0, 0.0, 1.0]], [0, 0, 255, 255]),
    ("R8G8B8A8_SNORM", [[-1.0, 1.0, 0.0, 0.5]], [0x81, 0x7F, 0x00, 0x40]),   # 0.5*127 -> 64
    ("R16G16B16A16_UINT", [[1, 2, 65535, 0]], [1, 0, 2, 0, 255, 255, 0, 0]),
    ("R8_SINT", [[-2]], [0xFE]),
    # 1.0 as half is 0x3C00; 11-bit keeps 6 mantissa bits (0x3C0), 10-bit keeps 5 (0x1E0)
    ("R11G11B10_FLOAT", [[1.0, 1.0, 1.0]],
     list(struct.pack("<I", 0x3C0 | (0x3C0 << 11) | (0x1E0 << 22)))),
])
def test_encoder_bit_layouts(fmt, values, expected):
    assert common.encode_elements(fmt, values).ravel().tolist() == expected


def test_encoder_refuses_too_many_components():
    with pytest.raises(ValueError, match="R16G16_FLOAT"):
        common.encode_elements("R16G16_FLOAT", [[1, 2, 3]])


# -- mesh files through trimesh ----------------------------------------------------------------
TETRA_OBJ = """v 0 0 0
v 4 0 0
v 0 2 0
v 0 0 1
f 1 3 2
f 1 2 4
f 1 4 3
f 2 3 4
"""


def test_load_obj_through_trimesh(tmp_path):
    f = tmp_path / "tetra.obj"
    f.write_text(TETRA_OBJ)
    m = mesh_demo.load_mesh(f)
    assert m.name == "tetra" and m.indices.shape == (4, 3) and m.vertex_count == 4
    lo, hi = m.bounds()
    # box 4 x 2 x 1 centred at (2, 1, 0.5), scaled by 2 / 4
    np.testing.assert_allclose(lo, [-1, -0.5, -0.25])
    np.testing.assert_allclose(hi, [1, 0.5, 0.25])
    np.testing.assert_allclose(np.linalg.norm(m.normals, axis=1), 1.0, atol=1e-6)
    bufs = mesh_demo.vertex_buffers(m)
    assert bufs[0].size == 4 * 12 and bufs[1].size == 4 * 8


def test_load_stl_written_by_trimesh(tmp_path):
    import trimesh

    f = tmp_path / "box.stl"
    trimesh.creation.box().export(f)
    m = mesh_demo.load_mesh(f)
    assert m.indices.shape == (12, 3)


def test_mesh_file_errors(tmp_path, monkeypatch):
    with pytest.raises(CaseError, match="no such file"):
        mesh_demo.load_mesh(tmp_path / "missing.obj")
    bad = tmp_path / "mesh.xyz"
    bad.write_text("1 2 3")
    with pytest.raises(CaseError, match="unknown mesh suffix"):
        mesh_demo.load_mesh(bad)
    empty = tmp_path / "empty.obj"
    empty.write_text("# nothing\n")
    with pytest.raises(CaseError, match=r"empty\.obj"):
        mesh_demo.load_mesh(empty)
    monkeypatch.setitem(sys.modules, "trimesh", None)
    f = tmp_path / "tetra.obj"
    f.write_text(TETRA_OBJ)
    with pytest.raises(UnsupportedError, match=r"gpuia\[mesh\]"):
        mesh_demo.load_mesh(f)


# -- matrices ----------------------------------------------------------------------------------
def _project(m, p):
    h = m @ np.append(np.asarray(p, np.float64), 1.0)
    return h[:3] / h[3]


def test_perspective_maps_near_to_0_and_far_to_1():
    proj = common.perspective(np.pi / 2, 2.0, 1.0, 10.0)
    np.testing.assert_allclose(_project(proj, [0, 0, -1]), [0, 0, 0], atol=1e-7)
    np.testing.assert_allclose(_project(proj, [0, 0, -10]), [0, 0, 1], atol=1e-6)
    # fovy 90 degrees: y = -z at the top edge; aspect 2: x = -2z at the right edge
    np.testing.assert_allclose(_project(proj, [4, 2, -2])[:2], [1, 1], atol=1e-6)


def test_look_at_and_rotations():
    view = common.look_at((0, 0, 5), (0, 0, 0))
    np.testing.assert_allclose(view @ [0, 0, 0, 1], [0, 0, -5, 1], atol=1e-6)
    view = common.look_at((3, 0, 0), (0, 0, 0))
    np.testing.assert_allclose(view @ [0, 0, 0, 1], [0, 0, -3, 1], atol=1e-6)
    np.testing.assert_allclose(view @ [3, 1, 0, 1], [0, 1, 0, 1], atol=1e-6)
    np.testing.assert_allclose(common.rotation_y(np.pi / 2) @ [0, 0, 1, 1], [1, 0, 0, 1],
                               atol=1e-7)
    np.testing.assert_allclose(common.rotation_x(np.pi / 2) @ [0, 1, 0, 1], [0, 0, 1, 1],
                               atol=1e-7)
    np.testing.assert_allclose(common.rotation_z(np.pi / 2) @ [1, 0, 0, 1], [0, 1, 0, 1],
                               atol=1e-7)


def test_column_major_bytes_are_column_major():
    words = np.frombuffer(common.column_major_bytes(common.translation(1, 2, 3)), np.float32)
    assert words.tolist() == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1]
