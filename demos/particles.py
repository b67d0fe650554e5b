"""The particles demo: a fountain of sparks that one geometry shader steps through Stream Output
and another expands into camera-facing quads, the way D3D10's ParticlesGS sample and the engines
after it draw GPU particles.

Run it: ``python demos/particles.py --out particles.png`` (``--help`` lists the options;
``gpuia demo particles`` runs this same file).

**The particles** are vertex records of 32 bytes in one of two buffers, both Stream Output
targets and vertex buffers (:data:`PARTICLE_LAYOUT`, and the Stream Output declaration
``POSITION.xyz; NORMAL.xyz; TIMER.x; TYPE.x`` of ParticlesGS): position, velocity (NORMAL), age
in steps (TIMER, R32_UINT) and type (TYPE, R32_UINT: 0 the emitter, 1 a spark).

**A step** of 1/60 s draws the particles as a point list through ``vs_pass`` and the geometry
shader ``gs_advance`` of ``hlsl/particles_advance.hlsl`` into the other buffer, with
``D3D12_SO_NO_RASTERIZED_STREAM``: nothing is rasterized. The emitter appends itself (one step
older) and :data:`SPAWN` new sparks at its position, each with a speed, a tilt from +y and an
azimuth from an integer hash of its step and number (the same bits on every adapter); a spark
appends itself one step older, gravity applied to its velocity and the velocity to its
position, while it is younger than :data:`LIFETIME` steps. The first step draws the emitter
alone from a buffer of one record (``DrawInstanced(1, 1, 0, 0)``); every later one draws the
last step's output with ``DrawAuto``, the two buffers swapping roles (ping-pong). Invocations
stream out in primitive order (rules 13.3, 9.4), so the emitter stays the first record, followed
by the sparks from the youngest to the oldest. After ``n`` steps there are ``1 + SPAWN *
min(n, LIFETIME)`` particles.

**Frame** ``i`` shows the fountain after ``LIFETIME + i`` steps: the first frame already shows
it full (:data:`WARMUP`), and every later frame takes one step.

**Drawing**: ``gs_sprite`` of ``hlsl/particles_sprite.hlsl`` takes the particles as a
point list (``DrawAuto`` from the last step's buffer) and expands each spark (the emitter is not
drawn) into a quad facing the camera, a 4-vertex ``TriangleStream`` as ParticlesGS's
``GSScenemain`` writes it: the corners ``position ± size · right ± size · up``, with the camera's
right and up axes and its view-projection from a second root constant buffer; colour and size
follow the spark's age. Its pipeline state has no Stream Output declaration, so its stream 0 is
rasterized (D3D's default), with ``ps_sprite``, which reads the stream's outputs and discards
the quad's corners for round sparks; depth tested, no culling. gpuia draws a geometry shader's
rasterized stream from its expansion, as a triangle list in D3D's order (docs/geometry.md).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from _common import DSV_FORMAT, FPS, Demo, camera, column_major_bytes, look_at, main
from gpuia import (
    SO_NO_RASTERIZED_STREAM,
    InputLayout,
    SODeclarationEntry,
    StreamOutputBufferView,
    StreamOutputDesc,
)
from gpuia.gpu import PipelineState

SPAWN = 8
"""Sparks the emitter spawns per step."""
LIFETIME = 60
"""Steps a spark lives: spawned with age 0, it streams out while its new age is below this."""
WARMUP = LIFETIME
"""Steps before frame 0: frame ``i`` shows the particles after ``WARMUP + i`` steps."""
DT = 1.0 / FPS
GRAVITY = 8.0                 # metres per second squared, along -y
SPEED = (3.4, 4.4)            # a new spark's speed, metres per second
CONE = 0.38                   # a new spark's largest angle from +y, radians
SIZE = 0.035                  # half the side of a new spark's quad, metres; halves as it ages
EYE, TARGET = (0.0, 1.1, 4.4), (0.0, 0.75, 0.0)

PARTICLE_STRIDE = 32
MAX_PARTICLES = 1 + SPAWN * LIFETIME
"""The most particles there ever are: the emitter and LIFETIME steps of sparks."""

PARTICLE_LAYOUT = InputLayout([
    {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
    {"SemanticName": "NORMAL", "Format": "R32G32B32_FLOAT"},
    {"SemanticName": "TIMER", "Format": "R32_UINT"},
    {"SemanticName": "TYPE", "Format": "R32_UINT"},
])
"""A particle record: position, velocity, age in steps, type (0 the emitter, 1 a spark)."""
PARTICLE_SO = StreamOutputDesc(
    (SODeclarationEntry(semantic_name="POSITION", component_count=3),
     SODeclarationEntry(semantic_name="NORMAL", component_count=3),
     SODeclarationEntry(semantic_name="TIMER", component_count=1),
     SODeclarationEntry(semantic_name="TYPE", component_count=1)),
    buffer_strides=(PARTICLE_STRIDE,), rasterized_stream=SO_NO_RASTERIZED_STREAM)
"""``POSITION.xyz; NORMAL.xyz; TIMER.x; TYPE.x`` into one buffer of stride 32, nothing
rasterized."""


def emitter_record() -> bytes:
    """The first step's input: the emitter at the origin, at rest, age 0."""
    floats = np.zeros(6, np.float32).tobytes()
    return floats + np.array([0, 0], np.uint32).tobytes()


def simulation_constants() -> bytes:
    """``cbuffer Simulation`` (register b0) as D3D packs it: six scalars in two registers."""
    words = np.array([DT, GRAVITY, 0, SPEED[0], SPEED[1], CONE, 0, 0], np.float32)
    words.view(np.uint32)[2] = LIFETIME
    return words.tobytes()


def camera_constants(aspect: float) -> tuple[bytes, np.ndarray]:
    """``cbuffer Camera`` (register b1) and the view-projection matrix it holds: the matrix,
    then the camera's right and up axes in world space with SIZE and LIFETIME in w."""
    view_proj, _ = camera(aspect, eye=EYE, target=TARGET)
    view = look_at(EYE, TARGET)
    axes = np.array([[*view[0, :3], SIZE], [*view[1, :3], LIFETIME]], np.float32)
    return column_major_bytes(view_proj) + axes.tobytes(), view_proj


class ParticlesDemo(Demo):
    """The fountain of sparks (see the module docstring)."""

    name = "particles"

    def __init__(self, device, rtv_format, options=None):
        super().__init__(device, rtv_format, options)
        defines = {"SPAWN": str(SPAWN)}
        advance, sprite = "particles_advance.hlsl", "particles_sprite.hlsl"
        vs_pass = self.hlsl(advance, "vs_pass")
        targets: dict[str, Any] = dict(rtv_formats=(rtv_format,), dsv_format=DSV_FORMAT)
        self.advance_pso = PipelineState(
            PARTICLE_LAYOUT, vertex_shader=vs_pass, stream_output=PARTICLE_SO,
            geometry_shader=self.hlsl(advance, "gs_advance", "geometry", defines), **targets)
        self.sprite_pso = PipelineState(
            PARTICLE_LAYOUT, vertex_shader=vs_pass,
            geometry_shader=self.hlsl(sprite, "gs_sprite", "geometry", defines),
            pixel_shader=self.hlsl(sprite, "ps_sprite", "pixel"), cull_mode="NONE", **targets)
        both = ("stream_output", "vertex_buffer")
        self.start = device.create_buffer(emitter_record())
        self.particles = [device.create_buffer(size=MAX_PARTICLES * PARTICLE_STRIDE, bind=both)
                          for _ in range(2)]
        self.simulation = device.create_buffer(simulation_constants(), bind="constant_buffer")
        self.camera = device.create_buffer(camera_constants(1.0)[0], bind="constant_buffer")
        self.view_proj = np.eye(4, dtype=np.float32)
        self.ctx = None        # the context the particles were simulated in
        self.steps = 0         # steps taken in it
        self.current = self.start  # the buffer holding the particles after the last step
        self.counts: dict[str, int] = {}

    # -- a step of the simulation -------------------------------------------------------------
    def step(self, ctx):
        """One step (the module docstring): the particles of :attr:`current` through
        ``gs_advance`` into the other buffer, which becomes :attr:`current`. Returns the
        draw's Plan."""
        target = self.particles[self.steps % 2]
        ctx.set_pipeline_state(self.advance_pso)
        ctx.ia_set_primitive_topology("POINTLIST")
        ctx.set_graphics_root_constant_buffer_view(0, self.simulation)
        ctx.so_set_targets([])  # the source was the last step's target: unbind it first
        ctx.ia_set_vertex_buffers(0, [self.current], [PARTICLE_STRIDE], [0])
        ctx.so_set_targets([StreamOutputBufferView(target)], [0])
        plan = ctx.draw_instanced(1) if self.steps == 0 else ctx.draw_auto()
        self.current = target
        self.steps += 1
        return plan

    def simulate(self, ctx, steps: int) -> None:
        """Take steps in ``ctx`` until ``steps`` were taken there (a new context starts again
        from the emitter alone); records the particle count and the last step's plan."""
        if self.ctx is not ctx:
            self.ctx, self.steps, self.current = ctx, 0, self.start
        label, plan = None, None
        while self.steps < steps:
            label = "step: DrawAuto" if self.steps else "step: DrawInstanced(1)"
            plan = self.step(ctx)
        if plan is not None:
            self.plans.append((f"{label} (gs_advance, NO_RASTERIZED_STREAM)", plan))
            self.counts["particles"] = ctx.so_filled_size(0) // PARTICLE_STRIDE

    # -- a frame ------------------------------------------------------------------------------
    def draw(self, ctx, frame, aspect):
        self.simulate(ctx, WARMUP + frame)
        constants, self.view_proj = camera_constants(aspect)
        self.camera.write(constants)
        # The sparks as camera-facing quads: the geometry shader's stream 0 rasterized.
        ctx.so_set_targets([])  # the last step's target is the input now
        ctx.set_pipeline_state(self.sprite_pso)
        ctx.ia_set_primitive_topology("POINTLIST")
        ctx.set_graphics_root_constant_buffer_view(1, self.camera)
        ctx.ia_set_vertex_buffers(0, [self.current], [PARTICLE_STRIDE], [0])
        self.plans.append(("sprites: DrawAuto (gs_sprite, ps_sprite)", ctx.draw_auto()))
        stats = ctx.so_statistics(0)
        self.counts["written"] = stats["NumPrimitivesWritten"]
        self.counts["needed"] = stats["PrimitivesStorageNeeded"]

    def notes(self) -> list[str]:
        c = self.counts
        return [
            f"particles: {c['particles']} after {self.steps} steps (the emitter and {SPAWN} "
            f"sparks per step, each living {LIFETIME} steps); {c['particles'] - 1} sparks drawn "
            f"as quads by gs_sprite's rasterized stream",
            f"Stream Output statistics, stream 0, all steps: {c['written']} points written "
            f"({c['needed']} needed)",
        ] + super().notes()


DEMO = ParticlesDemo
"""The demo this program draws (what ``gpuia demo particles`` runs)."""

if __name__ == "__main__":
    sys.exit(main(DEMO))
