"""The Stream Output demo: the teapot is transformed once by a vertex shader whose outputs Stream
Output captures, then the captured buffer is drawn seven times with DrawAuto.

Run it: ``python demos/stream_output.py --out so.png`` (``--help`` lists the options; ``gpuia demo
stream_output`` runs this same file).

**Once** (the first frame in a context): the teapot, in the mesh demo's two-slot layout
(:data:`TEAPOT_LAYOUT`), goes through an HLSL vertex shader (``hlsl/twist.hlsl``) that fits the
teapot to the unit box and twists it about its vertical axis (the angle grows with height; the
constants come from a root constant buffer, which the Stream Output compute pass binds like the
draw would). The pipeline
state's Stream Output declaration captures, for every vertex of every triangle in D3D's order:

=====  ===========  ===============  ======
slot   semantic     components       offset
=====  ===========  ===============  ======
0      POSITION0    3 (x, y, z)      0
0      NORMAL0      3 (x, y, z)      12
0      TEXCOORD0    2 (u, v)         24
=====  ===========  ===============  ======

into one target of stride 32 with a D3D11-style counter kept by gpuia; the rasterized stream is
``D3D12_SO_NO_RASTERIZED_STREAM``, so this draw draws nothing. The normal is turned by the twist
at its vertex, which ignores the shear of the twist: close enough for lighting.

**Every frame**: the target is unbound, its buffer bound at IA slot 0 with stride 32 under a
plain single-slot layout (POSITION0/NORMAL0 R32G32B32_FLOAT at 0/12, TEXCOORD0 R32G32_FLOAT at 24)
and ``DrawAuto`` draws it seven times with the mesh demo's HLSL shaders (``vs_streamed`` and
``ps_lit`` of ``hlsl/lit.hlsl``), each with its own constant buffer placing one copy on a
turning ring. DrawAuto's vertex count is computed on the GPU from the filled size; the draw is
always pulled (its plan says why).
"""

from __future__ import annotations

import colorsys
import sys
from typing import Any

import numpy as np

from _common import (
    DSV_FORMAT,
    FPS,
    Demo,
    camera,
    column_major_bytes,
    main,
    pack_records,
    rotation_y,
    scaling,
    scene_constants,
    teapot,
    translation,
)
from gpuia import (
    SO_NO_RASTERIZED_STREAM,
    IndexBufferView,
    InputLayout,
    SODeclarationEntry,
    StreamOutputBufferView,
    StreamOutputDesc,
)
from gpuia.gpu import PipelineState

TEAPOT_LAYOUT = InputLayout([
    {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT", "InputSlot": 0,
     "AlignedByteOffset": 0},
    {"SemanticName": "NORMAL", "Format": "R10G10B10A2_UNORM", "InputSlot": 1,
     "AlignedByteOffset": 0},
    {"SemanticName": "TEXCOORD", "Format": "R16G16_FLOAT", "InputSlot": 1,
     "AlignedByteOffset": "APPEND_ALIGNED"},
])
"""The teapot going in: positions in slot 0, normals (``n * 0.5 + 0.5``) and UVs in slot 1."""
TEAPOT_STRIDES = {0: 12, 1: 8}
SO_STRIDE = 32
COPIES = 7
SO_DESC = StreamOutputDesc(
    (SODeclarationEntry(semantic_name="POSITION", component_count=3),
     SODeclarationEntry(semantic_name="NORMAL", component_count=3),
     SODeclarationEntry(semantic_name="TEXCOORD", component_count=2)),
    buffer_strides=(SO_STRIDE,), rasterized_stream=SO_NO_RASTERIZED_STREAM)
AUTO_LAYOUT = InputLayout([
    {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
    {"SemanticName": "NORMAL", "Format": "R32G32B32_FLOAT"},
    {"SemanticName": "TEXCOORD", "Format": "R32G32_FLOAT"},
])

TWIST = 2.6          # radians per unit of height
RING_RADIUS = 1.9
RING_SPIN = 0.4      # radians per second
SEGMENTS = 6


def copy_colors():
    """One base colour per copy, around the colour wheel."""
    return [colorsys.hsv_to_rgb(k / COPIES, 0.55, 0.95) for k in range(COPIES)]


class StreamOutputDemo(Demo):
    """The twisted teapot, streamed out once and drawn around a ring with DrawAuto."""

    name = "stream_output"

    def __init__(self, device, rtv_format, options=None):
        super().__init__(device, rtv_format, options)
        self.mesh = teapot(SEGMENTS)
        n = self.mesh.vertex_count
        values = {"POSITION0": self.mesh.positions, "TEXCOORD0": self.mesh.uvs,
                  "NORMAL0": np.concatenate([self.mesh.normals * 0.5 + 0.5, np.ones((n, 1))], 1)}
        self.vertex_buffers = [device.create_buffer(pack_records(TEAPOT_LAYOUT, s, stride, n,
                                                                 values))
                               for s, stride in TEAPOT_STRIDES.items()]
        self.index_buffer = device.create_buffer(self.mesh.indices.ravel(), bind="index_buffer")
        lo, hi = self.mesh.bounds()
        fit = scaling(1.0 / float((hi - lo).max())) @ translation(*(-(lo + hi) / 2))
        self.deform = device.create_buffer(
            column_major_bytes(fit) + np.array([TWIST, 0, 0, 0], np.float32).tobytes(),
            bind="constant_buffer")
        self.so_size = self.mesh.index_count * SO_STRIDE
        self.so_buffer = device.create_buffer(size=self.so_size,
                                              bind=("stream_output", "vertex_buffer"))
        targets: dict[str, Any] = dict(rtv_formats=(rtv_format,), dsv_format=DSV_FORMAT)
        self.so_pso = PipelineState(TEAPOT_LAYOUT, vertex_shader=self.hlsl("twist.hlsl",
                                                                           "vs_twist"),
                                    stream_output=SO_DESC, constant_buffers=1, **targets)
        self.draw_pso = PipelineState(AUTO_LAYOUT,
                                      vertex_shader=self.hlsl("lit.hlsl", "vs_streamed"),
                                      pixel_shader=self.hlsl("lit.hlsl", "ps_lit", "pixel"),
                                      cull_mode="BACK",
                                      front_counter_clockwise=True, constant_buffers=1, **targets)
        self.scenes = [device.create_buffer(scene_constants(np.eye(4), np.eye(4), (0, 0, 0)),
                                            bind="constant_buffer") for _ in range(COPIES)]
        self.streamed_in = None  # the context whose counter holds the filled size
        self.so_lines: list[str] = []

    def stream_out(self, ctx) -> None:
        """The one Stream Output draw (see the module docstring)."""
        ctx.set_pipeline_state(self.so_pso)
        ctx.ia_set_primitive_topology("TRIANGLELIST")
        ctx.set_graphics_root_constant_buffer_view(0, self.deform)
        ctx.ia_set_vertex_buffers(0, self.vertex_buffers, list(TEAPOT_STRIDES.values()), [0, 0])
        ctx.ia_set_index_buffer(IndexBufferView(self.index_buffer, "R32_UINT"))
        ctx.so_set_targets([StreamOutputBufferView(self.so_buffer, self.so_size)], offsets=[0])
        plan = ctx.draw_indexed_instanced(self.mesh.index_count, 1, 0, 0, 0)
        self.plans.append(("Stream Output pass (twist)", plan))
        stats = ctx.so_statistics()
        filled = ctx.so_filled_size(0)
        ctx.so_set_targets([])
        self.so_lines = [(
            f"Stream Output: {stats['NumPrimitivesWritten']} triangles written "
            f"({stats['PrimitivesStorageNeeded']} needed), BufferFilledSize {filled} bytes = "
            f"{filled // SO_STRIDE} vertices of {SO_STRIDE} bytes")]
        self.streamed_in = ctx

    def draw(self, ctx, frame, aspect):
        if self.streamed_in is not ctx:
            self.stream_out(ctx)
        view_proj, eye = camera(aspect, eye=(0.0, 2.2, 5.2), target=(0.0, -0.1, 0.0))
        spin = RING_SPIN * frame / FPS
        ctx.set_pipeline_state(self.draw_pso)
        ctx.ia_set_primitive_topology("TRIANGLELIST")
        ctx.ia_set_vertex_buffers(0, [self.so_buffer], [SO_STRIDE], [0])
        for k, (cb, color) in enumerate(zip(self.scenes, copy_colors(), strict=True)):
            angle = spin + 2 * np.pi * k / COPIES
            model = (rotation_y(angle) @ translation(0.0, 0.0, RING_RADIUS)
                     @ rotation_y(-2.2))
            cb.write(scene_constants(view_proj, model, eye, color=color))
            ctx.set_graphics_root_constant_buffer_view(0, cb)
            plan = ctx.draw_auto()
            if k == 0:
                self.plans.append((f"DrawAuto x {COPIES}", plan))

    def notes(self) -> list[str]:
        return self.so_lines + super().notes()


DEMO = StreamOutputDemo
"""The demo this program draws (what ``gpuia demo stream_output`` runs)."""

if __name__ == "__main__":
    sys.exit(main(DEMO))
