"""The instancing demo: 2048 small teapots, each placed by a per-instance transform, drawn in two
DrawIndexedInstanced calls whose layouts differ only in where the colour comes from.

Run it: ``python demos/instancing.py --out inst.png`` (``--help`` lists the options; ``gpuia demo
instancing`` runs this same file).

Both draws share slot 0 (the teapot, per vertex) and slot 1 (per instance, step rate 1: the
four rows of the instance's world matrix and a colour). The shaders are HLSL
(``hlsl/instancing.hlsl``): the vertex shader reads the matrix as one input,
``row_major float4x4 world : WORLD``, which D3D feeds from the elements WORLD0..WORLD3 (one row
each). Slot 1 is one buffer of 2048 records;
the second draw binds it with a view offset of 1024 records.

* **Left half, native**: the colour is COLOR0 in slot 1, step rate 1, a gradient over the
  instances. Every element has a WebGPU vertex format and WebGPU's ``instance`` step mode
  expresses step rate 1, so WebGPU fetches everything itself.
* **Right half, pulled**: the colour is COLOR0 in slot 2, step rate 32: instances 32k..32k+31 (one
  row of the half) share colour k. WebGPU has no instance divisor, so gpuia generates a vertex
  shader that reads slot 2 at ``StartInstanceLocation + SV_InstanceID / 32``.

======  ===========  ===================  ======  ================  ======
slot    semantic     format               offset  class, step rate  stride
======  ===========  ===================  ======  ================  ======
0       POSITION0    R32G32B32_FLOAT      0       per vertex        16
0       NORMAL0      R8G8B8A8_SNORM       12      per vertex        16
1       WORLD0..3    R32G32B32A32_FLOAT   0..48   per instance, 1   68
1       COLOR0       R8G8B8A8_UNORM       64      per instance, 1   68  (native draw only)
2       COLOR0       R8G8B8A8_UNORM       0       per instance, 32  4   (pulled draw only)
======  ===========  ===================  ======  ================  ======

Indices are R16_UINT. The vertex shader lights each vertex (Gouraud); the camera orbits.
"""

from __future__ import annotations

import colorsys
import sys

import numpy as np

from _common import (
    DSV_FORMAT,
    FPS,
    Demo,
    camera,
    main,
    pack_records,
    rotation_y,
    scaling,
    teapot,
    translation,
)
from gpuia import IndexBufferView, InputLayout, VertexBufferView
from gpuia.gpu import PipelineState

COLUMNS, ROWS = 64, 32          # the grid; each half is COLUMNS // 2 wide
GROUP = 32                      # the step rate of the pulled draw's colours
HALF = COLUMNS // 2 * ROWS      # instances per draw
STRIDES = (16, 68, 4)

_MESH = {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"}, \
        {"SemanticName": "NORMAL", "Format": "R8G8B8A8_SNORM", "AlignedByteOffset": 12}
_WORLD = tuple({"SemanticName": "WORLD", "SemanticIndex": i, "Format": "R32G32B32A32_FLOAT",
                "InputSlot": 1, "AlignedByteOffset": 16 * i,
                "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}
               for i in range(4))
NATIVE_LAYOUT = InputLayout([*_MESH, *_WORLD, {
    "SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "InputSlot": 1,
    "AlignedByteOffset": 64, "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}])
PULLED_LAYOUT = InputLayout([*_MESH, *_WORLD, {
    "SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "InputSlot": 2,
    "AlignedByteOffset": 0, "InputSlotClass": "PER_INSTANCE_DATA",
    "InstanceDataStepRate": GROUP}])


def _hsv(h, s, v):
    return colorsys.hsv_to_rgb(h % 1.0, s, v)


def instance_data(mesh):
    """Slot 1's records (transforms and gradient colours, all 2048 instances) and slot 2's
    group colours (one per row of the pulled half), as (uint8 bytes, bytes)."""
    lo, hi = mesh.bounds()
    fit = scaling(0.8 / float((hi - lo).max())) @ translation(*(-(lo + hi) / 2))
    rng = np.random.default_rng(7)
    worlds, colors = [], []
    for half in range(2):
        for i in range(HALF):
            col = half * (COLUMNS // 2) + i % (COLUMNS // 2)
            row = i // (COLUMNS // 2)
            x, z = col - (COLUMNS - 1) / 2, row - (ROWS - 1) / 2
            turn = rng.uniform(0, 2 * np.pi)
            world = translation(x, 0.0, z) @ rotation_y(turn) @ scaling(rng.uniform(0.8, 1.2)) @ fit
            worlds.append(world)
            colors.append((*_hsv(col / COLUMNS * 0.8 + row / ROWS * 0.2, 0.75, 1.0), 1.0))
    world_rows = np.array(worlds, np.float32)
    slot1 = pack_records(NATIVE_LAYOUT, 1, STRIDES[1], 2 * HALF, {
        "WORLD0": world_rows[:, 0], "WORLD1": world_rows[:, 1], "WORLD2": world_rows[:, 2],
        "WORLD3": world_rows[:, 3], "COLOR0": np.array(colors)})
    groups = [(*_hsv(k / (HALF // GROUP), 0.85 if k % 2 else 0.55, 1.0), 1.0)
              for k in range(HALF // GROUP)]
    slot2 = pack_records(PULLED_LAYOUT, 2, STRIDES[2], HALF // GROUP, {"COLOR0": np.array(groups)})
    return slot1, slot2


class InstancingDemo(Demo):
    """The grid of teapots: the left half's colours fetched natively, the right half's
    pulled."""

    name = "instancing"

    def __init__(self, device, rtv_format, options=None):
        super().__init__(device, rtv_format, options)
        mesh = teapot(2)
        self.index_count = mesh.index_count
        slot0 = pack_records(NATIVE_LAYOUT, 0, STRIDES[0], mesh.vertex_count,
                             {"POSITION0": mesh.positions, "NORMAL0": mesh.normals})
        slot1, slot2 = instance_data(mesh)
        self.buffers = [device.create_buffer(b) for b in (slot0, slot1, slot2)]
        self.index_buffer = device.create_buffer(mesh.indices.ravel().astype(np.uint16),
                                                 bind="index_buffer")
        self.constants = device.create_buffer(np.zeros(20, np.float32), bind="constant_buffer")
        common = dict(vertex_shader=self.hlsl("instancing.hlsl", "vs_instanced"),
                      pixel_shader=self.hlsl("instancing.hlsl", "ps_color", "pixel"),
                      rtv_formats=(rtv_format,), dsv_format=DSV_FORMAT, cull_mode="BACK",
                      front_counter_clockwise=True, depth_enable=True, constant_buffers=1)
        self.native = PipelineState(NATIVE_LAYOUT, **common)
        self.pulled = PipelineState(PULLED_LAYOUT, **common)

    def draw(self, ctx, frame, aspect):
        orbit = 0.35 * frame / FPS
        eye = (36.0 * np.sin(orbit), 30.0, 36.0 * np.cos(orbit))
        view_proj, _ = camera(aspect, eye=eye, target=(0.0, -5.0, 0.0), fovy_degrees=50.0)
        light = np.array([-0.4, 0.85, 0.35, 0.0], np.float32)
        # cbuffer Scene: ViewProj column_major (registers 0..3), LightDir (register 4)
        self.constants.write(np.ascontiguousarray(view_proj.T).tobytes() + light.tobytes())
        vb0, vb1, vb2 = self.buffers
        ctx.ia_set_primitive_topology("TRIANGLELIST")
        ctx.ia_set_index_buffer(IndexBufferView(self.index_buffer, "R16_UINT"))
        ctx.set_pipeline_state(self.native)
        ctx.set_graphics_root_constant_buffer_view(0, self.constants)
        ctx.ia_set_vertex_buffers(0, [VertexBufferView(vb0, STRIDES[0]),
                                      VertexBufferView(vb1, STRIDES[1])])
        plan = ctx.draw_indexed_instanced(self.index_count, HALF, 0, 0, 0)
        self.plans.append((f"left half, COLOR0 step rate 1 ({HALF} instances)", plan))
        ctx.set_pipeline_state(self.pulled)
        ctx.set_graphics_root_constant_buffer_view(0, self.constants)
        ctx.ia_set_vertex_buffers(0, [VertexBufferView(vb0, STRIDES[0]),
                                      VertexBufferView(vb1, STRIDES[1], HALF * STRIDES[1]),
                                      VertexBufferView(vb2, STRIDES[2])])
        plan = ctx.draw_indexed_instanced(self.index_count, HALF, 0, 0, 0)
        self.plans.append((f"right half, COLOR0 step rate {GROUP} ({HALF} instances)", plan))


DEMO = InstancingDemo
"""The demo this program draws (what ``gpuia demo instancing`` runs)."""

if __name__ == "__main__":
    sys.exit(main(DEMO))
