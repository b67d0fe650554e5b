"""The mesh demo: a lit Utah teapot (or any mesh file: ``--mesh FILE``, ``options["mesh"]``)
drawn from a multi-slot D3D12 input layout.

Layout (``geometry.MESH_LAYOUT``), bound with ``IASetVertexBuffers(0, 2, ...)``:

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

import numpy as np

from .. import IndexBufferView
from ..gpu import PipelineState
from .common import DSV_FORMAT, FPS, Demo, camera, run
from .geometry import (
    MESH_LAYOUT,
    MESH_STRIDES,
    Mesh,
    column_major_bytes,
    load_mesh,
    mesh_vertex_buffers,
    rotation_y,
    scaling,
    teapot,
    translation,
)

__all__ = [
    "DEMO",
    "MeshDemo",
    "model_matrix",
    "render",
    "scene_constants",
]

LIGHT_DIR = (-0.45, 0.8, 0.55)
BASE_COLOR = (0.86, 0.52, 0.30)
SPIN = 0.6  # radians per second
START_ANGLE = -0.55
EYE = (0.0, 1.15, 3.3)
SEGMENTS = 10


def model_matrix(mesh, angle: float) -> np.ndarray:
    """Centre the mesh's bounding box on the origin, scale its largest side to 2, turn it by
    ``angle`` about +y."""
    lo, hi = mesh.bounds()
    size = float((hi - lo).max())
    centre = (lo + hi) / 2
    return (rotation_y(angle) @ scaling(2.0 / size if size > 0 else 1.0)
            @ translation(*(-centre)))


def scene_constants(view_proj, model, eye, light=LIGHT_DIR, color=BASE_COLOR) -> bytes:
    """The bytes of ``cbuffer Scene`` (hlsl/scene.hlsli) as D3D packs it: the two matrices
    column-major (each one's columns in consecutive registers), then three float4."""
    extra = np.array([[*light, 0.0], [*eye, 1.0], [*color, 1.0]], np.float32)
    return column_major_bytes(view_proj, model) + extra.tobytes()


class MeshDemo(Demo):
    """See the module docstring; ``options["mesh"]`` is a mesh file path, a
    :class:`geometry.Mesh`, or None for the teapot."""

    name = "mesh"

    def __init__(self, device, rtv_format, options=None):
        super().__init__(device, rtv_format, options)
        given = self.options.get("mesh")
        if given is None:
            self.mesh = teapot(SEGMENTS)
        else:   # a path, or a Mesh already loaded
            self.mesh = given if isinstance(given, Mesh) else load_mesh(given)
        slots = mesh_vertex_buffers(self.mesh)
        self.vertex_buffers = [device.create_buffer(slots[s]) for s in sorted(slots)]
        self.index_buffer = device.create_buffer(self.mesh.indices.ravel(), bind="index_buffer")
        self.constants = device.create_buffer(
            scene_constants(np.eye(4), np.eye(4), (0, 0, 0)), bind="constant_buffer")
        self.pso = PipelineState(
            MESH_LAYOUT, vertex_shader=self.hlsl("lit.hlsl", "vs_mesh"),
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
        ctx.ia_set_vertex_buffers(0, self.vertex_buffers, [MESH_STRIDES[0], MESH_STRIDES[1]],
                                  [0, 0])
        ctx.ia_set_index_buffer(IndexBufferView(self.index_buffer, "R32_UINT"))
        plan = ctx.draw_indexed_instanced(self.mesh.index_count, 1, 0, 0, 0)
        self.plans.append((f"{self.mesh.name} ({self.mesh.index_count // 3} triangles)", plan))


DEMO = MeshDemo


def render(device, size=(160, 120), frames: int = 1, options: dict | None = None) -> np.ndarray:
    """The last of ``frames`` frames at ``size`` = (width, height), as an (h, w, 4) uint8
    image."""
    return run(MeshDemo, device, size, frames, options)[0]
