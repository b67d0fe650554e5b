"""The mesh demo: a lit Utah teapot (or any mesh file: --mesh FILE) drawn from a two-slot D3D12
input layout.

Run it: ``python demos/mesh.py --out mesh.png`` (``--help`` lists the options; ``gpuia demo mesh``
runs this same file).

The layout (:data:`LAYOUT`), bound with ``IASetVertexBuffers(0, 2, ...)``:

====  ==========  ===================  ======  ======
slot  semantic    format               offset  stride
====  ==========  ===================  ======  ======
0     POSITION0   R32G32B32_FLOAT      0       12
1     NORMAL0     R10G10B10A2_UNORM    0       8
1     TEXCOORD0   R16G16_FLOAT         4       8
====  ==========  ===================  ======  ======

One ``DrawIndexedInstanced`` with R32_UINT indices. The shaders are HLSL (``hlsl/lit.hlsl``:
``vs_mesh`` and ``ps_lit``, the scene constants in ``cbuffer Scene : register(b0)`` of
``hlsl/scene.hlsli``), compiled by gpuia.hlsl and linked by semantic. wgpu-py 0.32 cannot fetch
R10G10B10A2_UNORM natively, so the draw takes the pulling path (its plan says why) and the
vertex shader still sees the decoded normal as a float4. The pixel shader lights it with one
directional light (Lambert plus Blinn-Phong), tinted by a 4 × 4 checker of the UVs so the
R16G16_FLOAT coordinates show on screen. Back faces are culled; triangles are counter-clockwise
from outside, so the pipeline state sets ``front_counter_clockwise=True``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from _common import (
    DSV_FORMAT,
    FPS,
    Demo,
    Mesh,
    camera,
    main,
    normalize,
    pack_records,
    rotation_y,
    scaling,
    scene_constants,
    teapot,
    translation,
)
from gpuia import IndexBufferView, InputLayout
from gpuia.errors import CaseError, UnsupportedError
from gpuia.gpu import PipelineState

LAYOUT = InputLayout([
    {"SemanticName": "POSITION", "SemanticIndex": 0, "Format": "R32G32B32_FLOAT",
     "InputSlot": 0, "AlignedByteOffset": 0, "InputSlotClass": "PER_VERTEX_DATA",
     "InstanceDataStepRate": 0},
    {"SemanticName": "NORMAL", "SemanticIndex": 0, "Format": "R10G10B10A2_UNORM",
     "InputSlot": 1, "AlignedByteOffset": 0, "InputSlotClass": "PER_VERTEX_DATA",
     "InstanceDataStepRate": 0},
    {"SemanticName": "TEXCOORD", "SemanticIndex": 0, "Format": "R16G16_FLOAT",
     "InputSlot": 1, "AlignedByteOffset": "APPEND_ALIGNED", "InputSlotClass": "PER_VERTEX_DATA",
     "InstanceDataStepRate": 0},
])
"""Positions R32G32B32_FLOAT in slot 0; normals R10G10B10A2_UNORM (``n * 0.5 + 0.5``, A = 3) and
UVs R16G16_FLOAT in slot 1."""
STRIDES = {0: 12, 1: 8}
"""Bytes per vertex in each slot of :data:`LAYOUT`."""
NORMAL_ALPHA = 3
"""The 2-bit A channel written with packed normals (1.0 after decoding); shaders ignore it."""

SPIN = 0.6  # radians per second
START_ANGLE = -0.55
EYE = (0.0, 1.15, 3.3)
SEGMENTS = 10


def vertex_buffers(mesh: Mesh) -> dict[int, np.ndarray]:
    """The two interleaved slot buffers of ``mesh`` for :data:`LAYOUT`: slot number -> uint8
    bytes. Normals are stored as ``n * 0.5 + 0.5`` in the UNORM channels (decoded by the shader
    as ``x * 2 - 1``)."""
    n = mesh.vertex_count
    values = {
        "POSITION0": mesh.positions,
        "NORMAL0": np.concatenate([mesh.normals * 0.5 + 0.5,
                                   np.full((n, 1), NORMAL_ALPHA / 3.0)], axis=1),
        "TEXCOORD0": mesh.uvs,
    }
    return {s: pack_records(LAYOUT, s, STRIDES[s], n, values) for s in LAYOUT.slots}


MESH_SUFFIXES = (".obj", ".gltf", ".glb", ".ply", ".stl", ".off")


def load_mesh(path) -> Mesh:
    """Load an OBJ, glTF/GLB, PLY, STL or OFF file through trimesh (the optional extra
    ``mesh``). A scene (glTF) is flattened into one mesh with its node transforms applied.
    Normals are trimesh's vertex normals; UVs are the file's texture coordinates when it has one
    per vertex, else (0, 0). The mesh is centred on its bounding box and scaled so that the
    box's largest side is 2, which the camera frames.

    Refused: a missing file or unknown suffix (``CaseError``), a file trimesh cannot read or one
    without triangles (``CaseError``), trimesh not installed (``UnsupportedError`` naming the
    extra)."""
    p = Path(path)
    where = f"--mesh {path}"
    if not p.is_file():
        raise CaseError(where, "no such file")
    if p.suffix.lower() not in MESH_SUFFIXES:
        raise CaseError(where, f"unknown mesh suffix {p.suffix!r}; expected one of "
                               f"{', '.join(MESH_SUFFIXES)}")
    try:
        import trimesh
    except ImportError:
        raise UnsupportedError("--mesh needs trimesh, which is not installed: "
                               "pip install 'gpuia[mesh]'") from None
    import logging

    # trimesh logs a traceback when its optional scipy is missing and it falls back to dense
    # matrices; the fallback is fine for demo meshes, the noise is not.
    logging.getLogger("trimesh").setLevel(logging.ERROR)
    try:
        # force="mesh" gives a Trimesh (or a scene flattened into one); trimesh annotates it as
        # any Geometry, which has no vertex normals.
        tm: Any = trimesh.load(str(p), force="mesh", process=True)
    except Exception as exc:  # noqa: BLE001 - trimesh raises many kinds for unreadable files
        raise CaseError(where, f"trimesh could not read it: {' '.join(str(exc).split())}") \
            from None
    faces = np.asarray(getattr(tm, "faces", np.zeros((0, 3))), np.int64)
    verts = np.asarray(getattr(tm, "vertices", np.zeros((0, 3))), np.float64)
    if faces.size == 0 or verts.size == 0:
        raise CaseError(where, "the file holds no triangles")
    normals = np.asarray(tm.vertex_normals, np.float64)
    uv = getattr(getattr(tm, "visual", None), "uv", None)
    uvs = (np.asarray(uv, np.float64) if uv is not None and len(uv) == len(verts)
           else np.zeros((len(verts), 2)))
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    size = float((hi - lo).max())
    verts = (verts - (lo + hi) / 2) * (2.0 / size if size > 0 else 1.0)
    return Mesh(name=p.stem, positions=verts.astype(np.float32),
                normals=normalize(normals).astype(np.float32), uvs=uvs.astype(np.float32),
                indices=faces.astype(np.uint32))


def model_matrix(mesh: Mesh, angle: float) -> np.ndarray:
    """Centre the mesh's bounding box on the origin, scale its largest side to 2, turn it by
    ``angle`` about +y."""
    lo, hi = mesh.bounds()
    size = float((hi - lo).max())
    centre = (lo + hi) / 2
    return (rotation_y(angle) @ scaling(2.0 / size if size > 0 else 1.0)
            @ translation(*(-centre)))


class MeshDemo(Demo):
    """The teapot, or ``options["mesh"]`` (a :class:`Mesh` or a mesh file's path), drawn from
    :data:`LAYOUT` and lit."""

    name = "mesh"

    @classmethod
    def read_options(cls, args) -> dict:
        return {"mesh": load_mesh(args.mesh) if args.mesh is not None else None}

    def __init__(self, device, rtv_format, options=None):
        super().__init__(device, rtv_format, options)
        given = self.options.get("mesh")
        if given is None:
            self.mesh = teapot(SEGMENTS)
        else:   # a path, or a Mesh already loaded
            self.mesh = given if isinstance(given, Mesh) else load_mesh(given)
        slots = vertex_buffers(self.mesh)
        self.vertex_buffers = [device.create_buffer(slots[s]) for s in sorted(slots)]
        self.index_buffer = device.create_buffer(self.mesh.indices.ravel(), bind="index_buffer")
        self.constants = device.create_buffer(
            scene_constants(np.eye(4), np.eye(4), (0, 0, 0)), bind="constant_buffer")
        self.pso = PipelineState(
            LAYOUT, vertex_shader=self.hlsl("lit.hlsl", "vs_mesh"),
            pixel_shader=self.hlsl("lit.hlsl", "ps_lit", "pixel"),
            rtv_formats=(rtv_format,), dsv_format=DSV_FORMAT, cull_mode="BACK",
            front_counter_clockwise=True, depth_enable=True, depth_func="LESS",
            constant_buffers=1)

    def draw(self, ctx, frame, aspect):
        view_proj, eye = camera(aspect, eye=EYE)
        model = model_matrix(self.mesh, START_ANGLE + SPIN * frame / FPS)
        self.constants.write(scene_constants(view_proj, model, eye))
        ctx.set_pipeline_state(self.pso)
        ctx.ia_set_primitive_topology("TRIANGLELIST")
        ctx.set_graphics_root_constant_buffer_view(0, self.constants)
        ctx.ia_set_vertex_buffers(0, self.vertex_buffers, [STRIDES[0], STRIDES[1]], [0, 0])
        ctx.ia_set_index_buffer(IndexBufferView(self.index_buffer, "R32_UINT"))
        plan = ctx.draw_indexed_instanced(self.mesh.index_count, 1, 0, 0, 0)
        self.plans.append((f"{self.mesh.name} ({self.mesh.index_count // 3} triangles)", plan))


DEMO = MeshDemo
"""The demo this program draws (what ``gpuia demo mesh`` runs)."""

if __name__ == "__main__":
    sys.exit(main(DEMO))
