"""The particles demo (demos/particles.py): what its two geometry shaders write and what its
picture shows. Every expected value is derived by hand from the demo's documented rules (its
module docstring and hlsl/particles_advance.hlsl: SPAWN sparks per step, a spark streams out
while its new age is below LIFETIME, semi-implicit Euler under gravity, the spawn hash) and from
docs/rules.md (9.2, 9.3: a 4-vertex triangle strip streams out as two triangles, the odd one
``(1, 3, 2)``; 9.4, 13.3: primitive order; 10.1, 10.2: the statistics).

The demo rasterizes the sprite shader's stream. To see the quads it expands, the tests stream
the same shader out instead (a Stream Output declaration of its record, NO_RASTERIZED_STREAM) and
draw that buffer with DrawAuto and the demo's pixel shader: the picture must be the demo's, pixel
for pixel, since the rasterizer gets the same triangles in the same order. The image reference
of the demo is tests/tools/test_demos.py's, with the other demos'.
"""

import numpy as np
import pytest

from gpuia import SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.demos import demo_module, load
from gpuia.gpu import Context, PipelineState
from gpuia.hlsl import compile_shader

common = load("_common")
P = demo_module("particles")
K, LIFE, G, DT = P.SPAWN, P.LIFETIME, P.GRAVITY, 1.0 / 60
SIZE = (320, 240)
CLEAR_8BIT = [round(c * 255) for c in common.CLEAR_COLOR]
SPRITE_SO = StreamOutputDesc(
    (SODeclarationEntry(semantic_name="SV_Position", component_count=4),
     SODeclarationEntry(semantic_name="COLOR", component_count=4),
     SODeclarationEntry(semantic_name="TEXCOORD", component_count=2)),
    (40,), "NO_RASTERIZED_STREAM")
SPRITE_LAYOUT = [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"},
                 {"SemanticName": "COLOR", "Format": "R32G32B32A32_FLOAT"},
                 {"SemanticName": "TEXCOORD", "Format": "R32G32_FLOAT"}]
SPRITE_VS = """
struct In { float4 position : POSITION; float4 color : COLOR; float2 uv : TEXCOORD0; };
struct Out { float4 position : SV_Position; float4 color : COLOR; float2 uv : TEXCOORD0; };
Out main(In i) { Out o; o.position = i.position; o.color = i.color; o.uv = i.uv; return o; }
"""


@pytest.fixture(scope="module")
def drawn(gpu_device):
    """Frame 0 at 320x240: the particles after WARMUP = LIFETIME steps, drawn."""
    return common.run(P.DEMO, gpu_device, SIZE, 1)


def particle_records(demo):
    """The particles after the demo's last step: (floats (n, 8), words (n, 8))."""
    data = demo.current.read()
    n = demo.counts["particles"]
    words = np.frombuffer(data, np.uint32)[:8 * n].reshape(n, 8)
    return words.view(np.float32), words


@pytest.fixture(scope="module")
def streamed(drawn, gpu_device):
    """The demo's last frame again, with gs_sprite's stream streamed out (NO_RASTERIZED_STREAM)
    from the demo's particles and camera, then drawn from that buffer with DrawAuto by a vertex
    shader passing the record on and the demo's ps_sprite. Returns the sprite vertices ((n, 10)
    floats: clip position, colour, UV), the filled size, stream 0's statistics and the image."""
    _, demo = drawn
    ctx = Context(gpu_device)
    rt = gpu_device.create_render_target(*SIZE)
    ds = gpu_device.create_depth_stencil(*SIZE, common.DSV_FORMAT)
    ctx.om_set_render_targets([rt], ds)
    ctx.clear_render_target_view(rt, common.CLEAR_COLOR)
    ctx.clear_depth_stencil_view(ds, 1.0)
    targets = dict(rtv_formats=(common.RTV_FORMAT,), dsv_format=common.DSV_FORMAT)
    gs = common.hlsl_shader("particles_sprite.hlsl", "gs_sprite", "geometry", {"SPAWN": str(K)})
    ctx.set_pipeline_state(PipelineState(
        P.PARTICLE_LAYOUT, vertex_shader=common.hlsl_shader("particles_advance.hlsl", "vs_pass"),
        stream_output=SPRITE_SO, geometry_shader=gs, **targets))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.set_graphics_root_constant_buffer_view(1, demo.camera)
    ctx.ia_set_vertex_buffers(0, [demo.current], [P.PARTICLE_STRIDE], [0])
    sprites = gpu_device.create_buffer(size=6 * K * LIFE * 40,
                                       bind=("stream_output", "vertex_buffer"))
    ctx.so_set_targets([StreamOutputBufferView(sprites)], [0])
    ctx.draw_instanced(demo.counts["particles"])
    filled, stats = ctx.so_filled_size(0), ctx.so_statistics(0)
    ctx.so_set_targets([])
    ctx.set_pipeline_state(PipelineState(
        SPRITE_LAYOUT, vertex_shader=compile_shader(SPRITE_VS),
        pixel_shader=common.hlsl_shader("particles_sprite.hlsl", "ps_sprite", "pixel"),
        cull_mode="NONE", **targets))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    ctx.ia_set_vertex_buffers(0, [sprites], [40], [0])
    ctx.draw_auto()
    ctx.flush()
    vertices = np.frombuffer(sprites.read(), np.float32)[:filled // 4].reshape(-1, 10)
    return vertices, filled, stats, rt.read()


def sparks_alive(steps: int) -> int:
    """Sparks spawned at step s (1-based) are alive after step n while n - s < LIFE."""
    return K * min(steps, LIFE)


def spawned_velocity(step: int, k: int) -> np.ndarray:
    """Spark k of step ``step``: lowbias32 of 3 (step K + k) + 0, 1, 2 as 24-bit fractions give
    the azimuth, the tilt from +y and the speed (hlsl/particles_advance.hlsl)."""
    def unit(i):
        x = np.uint64(i) & np.uint64(0xFFFFFFFF)
        for shift, mul in ((16, 0x7FEB352D), (15, 0x846CA68B)):
            x ^= x >> np.uint64(shift)
            x = (x * np.uint64(mul)) & np.uint64(0xFFFFFFFF)
        x ^= x >> np.uint64(16)
        return float(x >> np.uint64(8)) / 2**24

    seed = 3 * (step * K + k)
    azimuth, tilt = 2 * np.pi * unit(seed), P.CONE * unit(seed + 1)
    speed = P.SPEED[0] + (P.SPEED[1] - P.SPEED[0]) * unit(seed + 2)
    return speed * np.array([np.sin(tilt) * np.cos(azimuth), np.cos(tilt),
                             np.sin(tilt) * np.sin(azimuth)])


def test_counts_and_statistics(drawn):
    _, demo = drawn
    assert demo.steps == LIFE
    # The emitter and K sparks of each of the last LIFE steps.
    assert demo.counts["particles"] == 1 + K * LIFE == 481
    # Stream 0 over every draw (rules 10.1): step j writes 1 + K j points; the sprite draw has
    # no Stream Output declaration, so it counts nothing (rules 10.3). The buffers hold the
    # most particles there ever are, so nothing overflows (rules 10.2).
    written = sum(1 + sparks_alive(j) for j in range(1, LIFE + 1))
    assert written == 60 + 8 * 1830 == 14700
    assert (demo.counts["written"], demo.counts["needed"]) == (written, written)
    notes = "\n".join(demo.notes())
    assert "particles: 481 after 60 steps" in notes and "480 sparks drawn as quads" in notes
    assert "14700 points written (14700 needed)" in notes
    assert "demos/hlsl/particles_advance.hlsl: vs_pass, gs_advance" in notes
    assert "demos/hlsl/particles_sprite.hlsl: gs_sprite, ps_sprite" in notes
    labels = [label for label, _ in demo.plans]
    assert labels == ["step: DrawAuto (gs_advance, NO_RASTERIZED_STREAM)",
                      "sprites: DrawAuto (gs_sprite, ps_sprite)"]
    assert all("DrawAuto through a geometry shader" in plan.explain() for _, plan in demo.plans)


def test_particles_in_stream_order(drawn):
    # Invocations stream out in primitive order (rules 13.3, 9.4): the emitter's own record
    # first, then its K new sparks, then the older sparks in their order, so ages run
    # 0 x K, 1 x K, ..., LIFE - 1 x K.
    _, demo = drawn
    floats, words = particle_records(demo)
    assert words[0, 6:].tolist() == [LIFE, 0] and floats[0, :6].tolist() == [0.0] * 6
    assert np.array_equal(words[1:, 6], np.repeat(np.arange(LIFE), K))
    assert (words[1:, 7] == 1).all()


def test_sparks_follow_their_hand_derived_paths(drawn):
    # A spark of age a, spawned at step n = steps - a at the origin with v0: after a steps of
    # v.y -= g dt; p += v dt, v = v0 - (0, a g dt, 0) and p = a dt v0 - (0, g dt^2 a (a+1) / 2, 0).
    _, demo = drawn
    floats, words = particle_records(demo)
    ages = words[1:, 6].astype(np.float64)
    v0 = np.array([spawned_velocity(demo.steps - a, i % K)
                   for i, a in enumerate(words[1:, 6].tolist())])
    vel = v0 - np.outer(ages * G * DT, [0, 1, 0])
    pos = ages[:, None] * DT * v0 - np.outer(G * DT * DT * ages * (ages + 1) / 2, [0, 1, 0])
    np.testing.assert_allclose(floats[1:, 3:6], vel, atol=1e-4)
    np.testing.assert_allclose(floats[1:, 0:3], pos, atol=1e-3)
    speed = np.linalg.norm(v0, axis=1)
    assert (speed >= P.SPEED[0]).all() and (speed < P.SPEED[1]).all()
    assert (np.arccos(v0[:, 1] / speed) <= P.CONE + 1e-6).all()


def camera_axes():
    """The camera's right and up axes, from EYE and TARGET (right-handed, +y up)."""
    forward = np.subtract(P.TARGET, P.EYE)
    forward = forward / np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 1.0, 0.0])
    right /= np.linalg.norm(right)
    return right, np.cross(right, forward)


def test_sprites_are_camera_facing_quads(drawn, streamed):
    # Spark i (record i + 1: the emitter makes no quad) streams out the strip TL TR BL BR as
    # triangles (0, 1, 2) and (1, 3, 2) (rules 9.3): vertices 3 and 5 repeat 1 and 2. Corner
    # (cx, cy) is p + size (cx right + cy up), size = SIZE (1 - age / (2 LIFE)), transformed by
    # the camera's view-projection; UV (cx + 1) / 2, (1 - cy) / 2; one colour per quad.
    _, demo = drawn
    vertices, filled, stats, _ = streamed
    # Each spark is a 4-vertex strip: 2 triangles, 6 vertices of 40 bytes (rules 9.2, 10.1).
    assert filled == 6 * K * LIFE * 40 == 115200
    assert stats == {"NumPrimitivesWritten": 960, "PrimitivesStorageNeeded": 960}
    floats, words = particle_records(demo)
    quads = vertices.reshape(-1, 6, 10)
    assert len(quads) == len(floats) - 1
    assert np.array_equal(quads[:, 3], quads[:, 1]) and np.array_equal(quads[:, 5], quads[:, 2])
    strip = quads[:, [0, 1, 2, 4]]
    right, up = camera_axes()
    size = P.SIZE * (1 - words[1:, 6] / (2 * LIFE))
    for c, (cx, cy) in enumerate([(-1, 1), (1, 1), (-1, -1), (1, -1)]):
        world = floats[1:, :3] + size[:, None] * (cx * right + cy * up)
        clip = np.c_[world, np.ones(len(world))] @ demo.view_proj.T.astype(np.float64)
        np.testing.assert_allclose(strip[:, c, :4], clip, atol=1e-4, rtol=1e-5)
        assert (strip[:, c, 8:] == [(cx + 1) / 2, (1 - cy) / 2]).all()
    assert (strip[:, :, 4:8] == strip[:, :1, 4:8]).all()
    young = words[1:, 6] == 0
    np.testing.assert_allclose(strip[young, 0, 4:8], [[1.0, 0.95, 0.65, 1.0]] * K, atol=1e-6)


def test_picture_shows_each_spark_where_it_is(drawn):
    # A spark's centre projects to pixel ((x + 1) / 2 W, (1 - y) / 2 H) of its normalized
    # device coordinates; its round quad covers that pixel's centre when its radius there is
    # at least 0.75 pixel (the pixel's centre is at most 0.71 pixel away). What lies in front
    # of it is another spark, so the pixel is never the clear colour.
    image, demo = drawn
    w, h = SIZE
    bg = np.all(np.abs(image.astype(int) - CLEAR_8BIT) <= 1, axis=2)
    assert bg[0, 0] and bg[0, -1] and bg[-1, 0] and bg[-1, -1]
    floats, words = particle_records(demo)
    clip = np.c_[floats[1:, :3], np.ones(len(floats) - 1)] @ demo.view_proj.T.astype(np.float64)
    ndc = clip[:, :2] / clip[:, 3:]
    px = ((ndc[:, 0] + 1) / 2 * w).astype(int)
    py = ((1 - ndc[:, 1]) / 2 * h).astype(int)
    # The projection's y scale is view_proj[1, 1]; a length r at depth w spans r f H / (2 w).
    radius = P.SIZE * (1 - words[1:, 6] / (2 * LIFE)) * demo.view_proj[1, 1] * h / (2 * clip[:, 3])
    seen = (px >= 0) & (px < w) & (py >= 0) & (py < h) & (clip[:, 3] > 0) & (radius >= 0.75)
    assert seen.sum() > 300
    assert not bg[py[seen], px[seen]].any()
    lit = image[~bg][:, :3].astype(int)
    assert 0.01 < (~bg).mean() < 0.25
    assert np.median(lit[:, 0]) > np.median(lit[:, 2]) + 50       # sparks are warm


def test_the_rasterized_stream_draws_what_stream_output_carries(drawn, streamed):
    # The same triangles in the same order, the same pixel shader: the same pixels.
    image, _ = drawn
    assert np.array_equal(streamed[3], image)


def test_counts_before_and_after_the_first_sparks_die(gpu_device):
    # Step n streams out 1 + K min(n, LIFE) particles (the module docstring): 41 after 5 steps,
    # 481 after LIFE + 3 (the sparks of steps 1 to 3 died). Statistics over the context:
    # sum of 1 + 8 j for j = 1..5 is 125; for j = 1..63, 63 + 8 (1830 + 3 * 60) = 16143.
    demo = P.DEMO(gpu_device, common.RTV_FORMAT)
    ctx = Context(gpu_device)
    ctx.om_set_render_targets([gpu_device.create_render_target(8, 8)],
                              gpu_device.create_depth_stencil(8, 8, common.DSV_FORMAT))
    demo.simulate(ctx, 5)
    assert demo.counts["particles"] == 41
    assert ctx.so_statistics(0) == {"NumPrimitivesWritten": 125, "PrimitivesStorageNeeded": 125}
    assert demo.current is demo.particles[0]       # steps 1, 3, 5 wrote buffer 0 (ping-pong)
    _, words = particle_records(demo)
    assert words[0, 6] == 5 and np.array_equal(words[1:, 6], np.repeat([0, 1, 2, 3, 4], K))
    demo.simulate(ctx, LIFE + 3)
    assert demo.counts["particles"] == 481
    assert ctx.so_statistics(0) == {"NumPrimitivesWritten": 16143,
                                    "PrimitivesStorageNeeded": 16143}
    _, words = particle_records(demo)
    assert words[1:, 6].max() == LIFE - 1


def test_a_frame_is_the_same_drawn_alone(gpu_device):
    # Frame i is the state after LIFETIME + i steps however it is reached: frames 0, 1, 2
    # drawn one after another (a window) and frame 2 drawn alone in a new context (the
    # picture written after a window closes) are the same picture, and the same particles.
    animated, first = common.run(P.DEMO, gpu_device, (64, 48), 3)
    alone, second = common.run(P.DEMO, gpu_device, (64, 48), 3, first_frame=2)
    assert first.steps == second.steps == LIFE + 2
    assert np.array_equal(animated, alone)
    assert first.current.read() == second.current.read()
