"""Real draws into render targets: pixel shaders linked by semantic, render target and depth
formats, D3D12's rasterizer and depth defaults, root constant buffers, clears, and every misuse
refused before it reaches wgpu.

Expected pixels come from hand derivation: pixel centers strictly inside a triangle (edge
functions in numpy, independent of the GPU) are covered; centers on an edge are left out of the
comparison (D3D's top-left rule decides those).
"""

import numpy as np
import pytest

import gpuia
from gpuia.errors import InvalidDescError
from gpuia.gpu import Context, PipelineState
from gpuia.gpu.targets import Texture

W = H = 16
RED, BLUE = (255, 0, 0, 255), (0, 0, 255, 255)

LAYOUT = [{"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
          {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "InputSlot": 1}]

VS = """
struct VSIn { POSITION: vec3<f32>, COLOR: vec4<f32>, SV_InstanceID: u32 }
struct VSOut { SV_Position: vec4<f32>, COLOR0: vec4<f32>, TEXCOORD3: u32 }
@vertex fn main(i: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = vec4<f32>(i.POSITION, 1.0);
  o.COLOR0 = i.COLOR;
  o.TEXCOORD3 = i.SV_InstanceID + 7u;
  return o;
}
"""

PS = """
struct PSIn { color: vec4<f32> }
struct PSOut { SV_Target0: vec4<f32> }
@fragment fn ps(i: PSIn) -> PSOut { var o: PSOut; o.SV_Target0 = i.color; return o; }
"""
# Members named by semantics: "color" is COLOR0 (case-insensitive, index 0).
PS = PS.replace("color: vec4<f32> }", "COLOR: vec4<f32> }").replace("i.color", "i.COLOR")


def centers_inside(tri_ndc, w=W, h=H):
    """(inside, on_edge) masks of pixel centers for a triangle given in NDC (y up)."""
    xs = (np.arange(w) + 0.5) / w * 2 - 1
    ys = 1 - (np.arange(h) + 0.5) / h * 2
    px, py = np.meshgrid(xs, ys)
    (x0, y0), (x1, y1), (x2, y2) = tri_ndc
    e = [(x1 - x0) * (py - y0) - (y1 - y0) * (px - x0),
         (x2 - x1) * (py - y1) - (y2 - y1) * (px - x1),
         (x0 - x2) * (py - y2) - (y0 - y2) * (px - x2)]
    e = np.stack(e)
    inside = np.all(e > 1e-9, axis=0) | np.all(e < -1e-9, axis=0)
    on_edge = np.any(np.abs(e) <= 1e-9, axis=0)
    return inside, on_edge


def tri_buffers(dev, tri, z=0.5, color=RED):
    pos = np.array([[x, y, z] for x, y in tri], np.float32)
    col = np.array([color] * 3, np.uint8)
    return dev.create_buffer(pos), dev.create_buffer(col)


@pytest.fixture
def scene(gpu_device):
    dev = gpu_device
    rt = dev.create_render_target(W, H, "R8G8B8A8_UNORM")
    ds = dev.create_depth_stencil(W, H, "D32_FLOAT")
    ctx = Context(dev)
    ctx.om_set_render_targets([rt], ds)
    ctx.clear_render_target_view(rt, (0, 0, 1, 1))
    ctx.clear_depth_stencil_view(ds, 1.0)
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    return dev, ctx, rt, ds


def pso(**kw):
    kw.setdefault("rtv_formats", ["R8G8B8A8_UNORM"])
    kw.setdefault("dsv_format", "D32_FLOAT")
    return PipelineState(LAYOUT, vertex_shader=kw.pop("vs", VS), pixel_shader=kw.pop("ps", PS),
                         **kw)


CW = [(-1.0, -1.0), (0.0, 1.0), (1.0, -1.0)]  # clockwise on screen (y down): D3D's front face
CCW = CW[::-1]


def draw(ctx, dev, tri, **kw):
    vb0, vb1 = tri_buffers(dev, tri, **kw)
    ctx.ia_set_vertex_buffers(0, [vb0, vb1], [12, 4])
    plan = ctx.draw_instanced(3)
    return plan


def assert_coverage(img, tri, color, background=BLUE):
    inside, on_edge = centers_inside(tri)
    assert inside.sum() > 20
    assert (img[inside] == color).all()
    outside = ~inside & ~on_edge
    assert (img[outside] == background).all()


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_triangle_covers_the_pixels_inside_it(scene, path):
    dev, ctx, rt, _ = scene
    ctx.set_pipeline_state(pso())
    ctx.set_path(path)
    plan = draw(ctx, dev, CW)
    assert plan.path == path
    ctx.flush()
    assert_coverage(rt.read(), CW, RED)


@pytest.mark.parametrize("cull,ccw_front,tri,visible", [
    ("BACK", False, CW, True), ("BACK", False, CCW, False),
    ("BACK", True, CCW, True), ("FRONT", False, CW, False),
    ("NONE", False, CCW, True), ("D3D12_CULL_MODE_FRONT", True, CW, True)])
def test_culling_follows_d3d_winding(scene, cull, ccw_front, tri, visible):
    dev, ctx, rt, _ = scene
    ctx.set_pipeline_state(pso(cull_mode=cull, front_counter_clockwise=ccw_front))
    draw(ctx, dev, tri)
    ctx.flush()
    img = rt.read()
    if visible:
        assert_coverage(img, tri, RED)
    else:
        assert (img == BLUE).all()


@pytest.mark.parametrize("depth_enable,write,func,expect", [
    (True, "ALL", "LESS", RED),          # the nearer (red, z 0.25) wins whatever the order
    (True, "ALL", "GREATER", (0, 255, 0, 255)),  # farther wins... over a cleared depth of 0
    (False, "ALL", "LESS", (0, 255, 0, 255)),    # no depth test: the last draw wins
])
def test_depth_test(scene, depth_enable, write, func, expect):
    dev, ctx, rt, ds = scene
    if func == "GREATER":
        ctx.clear_depth_stencil_view(ds, 0.0)
    ctx.set_pipeline_state(pso(depth_enable=depth_enable, depth_write_mask=write,
                               depth_func=func, cull_mode="NONE"))
    quad = [(-1, -1), (-1, 1), (1, 1)]
    draw(ctx, dev, quad, z=0.25, color=RED)
    draw(ctx, dev, quad, z=0.75, color=(0, 255, 0, 255))
    ctx.flush()
    img = rt.read()
    inside, _ = centers_inside(quad)
    assert (img[inside] == expect).all()


def _depth_probe(ctx, dev, rt, quad, z):
    """Which pixels of ``quad`` a LESS test at ``z`` passes, seen in the color target (for
    adapters that cannot copy depth out, and as a second witness where they can)."""
    ctx.clear_render_target_view(rt, (0, 0, 1, 1))
    ctx.set_pipeline_state(pso(depth_write_mask="ZERO", cull_mode="NONE"))
    draw(ctx, dev, quad, z=z, color=RED)
    ctx.flush()
    return (rt.read() == RED).all(axis=-1)


def test_depth_written_is_z_over_w_and_write_mask_zero_keeps_it(scene):
    from gpuia.errors import UnsupportedError

    dev, ctx, rt, ds = scene
    quad = [(-1, -1), (-1, 1), (1, 1)]
    inside, _ = centers_inside(quad)
    ctx.set_pipeline_state(pso(depth_write_mask="ZERO", cull_mode="NONE"))
    draw(ctx, dev, quad, z=0.25)
    ctx.flush()
    if dev.caps.depth_copies:
        assert (ds.read() == np.float32(1.0)).all()  # tested, colored, not written
    else:  # refused before wgpu, with the reason
        with pytest.raises(UnsupportedError, match="DEPTH_TEXTURE_AND_BUFFER_COPIES"):
            ds.read()
    assert _depth_probe(ctx, dev, rt, quad, 0.999)[inside].all()  # depth still 1.0
    ctx.set_pipeline_state(pso(cull_mode="NONE"))
    draw(ctx, dev, quad, z=0.25)
    ctx.flush()
    if dev.caps.depth_copies:
        assert (ds.read()[inside] == np.float32(0.25)).all()
    # 0.25 written: a test at 0.25 itself (LESS) fails, at the next float below it passes,
    # except where depth goes through OpenGL's [-1, 1] range: that float rounds to 0.25 there
    # (quirks.DEPTH_REMAP), two floats below do not.
    from gpuia.gpu.quirks import DEPTH_REMAP, has_effect

    one_below = float(np.nextafter(np.float32(0.25), np.float32(0)))
    two_below = float(np.nextafter(np.float32(one_below), np.float32(0)))
    remaps = has_effect(dev.caps.quirks, DEPTH_REMAP)
    assert _depth_probe(ctx, dev, rt, quad, one_below)[inside].all() != remaps
    assert _depth_probe(ctx, dev, rt, quad, two_below)[inside].all()
    assert not _depth_probe(ctx, dev, rt, quad, 0.25)[inside].any()


def test_several_targets_uint_varyings_and_unwritten_targets(gpu_device):
    dev = gpu_device
    ps = """
    struct PSIn { COLOR0: vec4<f32>, TEXCOORD3: u32 }
    struct PSOut { SV_Target0: vec4<f32>, SV_Target2: vec4<u32> }
    @fragment fn ps(i: PSIn) -> PSOut {
      var o: PSOut; o.SV_Target0 = i.COLOR0; o.SV_Target2 = vec4<u32>(i.TEXCOORD3, 1u, 2u, 3u);
      return o;
    }"""
    fmts = ["R8G8B8A8_UNORM", "R8G8B8A8_UNORM", "R32G32B32A32_UINT"]
    rts = [dev.create_render_target(W, H, f) for f in fmts]
    ctx = Context(dev)
    ctx.om_set_render_targets(rts)
    for t in rts[:2]:
        ctx.clear_render_target_view(t, (0, 0, 1, 1))
    ctx.clear_render_target_view(rts[2], (9, 9, 9, 9))
    ctx.set_pipeline_state(PipelineState(LAYOUT, vertex_shader=VS, pixel_shader=ps,
                                         rtv_formats=fmts))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    vb0, vb1 = tri_buffers(dev, CW)
    ctx.ia_set_vertex_buffers(0, [vb0, vb1], [12, 4])
    ctx.draw_instanced(3, 2)  # instance 1 lands last: TEXCOORD3 = 1 + 7
    ctx.flush()
    inside, on_edge = centers_inside(CW)
    assert_coverage(rts[0].read(), CW, RED)
    assert (rts[1].read() == BLUE).all()  # SV_Target1 not written: target untouched
    ints = rts[2].read()
    assert (ints[inside] == (8, 1, 2, 3)).all()
    assert (ints[~inside & ~on_edge] == 9).all()


def test_srgb_target_encodes(gpu_device):
    dev = gpu_device
    rt = dev.create_render_target(4, 4, "R8G8B8A8_UNORM_SRGB")
    ctx = Context(dev)
    ctx.om_set_render_targets([rt])
    ctx.clear_render_target_view(rt, (0.5, 0.0, 1.0, 0.5))
    ctx.flush()
    # sRGB(0.5) = 1.055 * 0.5 ** (1 / 2.4) - 0.055 = 0.735357 -> 187.516 of 255. D3D's data
    # conversion rules allow FLOAT -> SRGB a 0.6 ULP tolerance, so 187 (the H200) and 188 (the
    # correctly rounded value, lavapipe) are both right, and nothing else; alpha stays linear:
    # 0.5 * 255 = 127.5, and FLOAT -> UNORM's 0.6 ULP allows 127 (the H200) and 128 (lavapipe).
    img = rt.read()
    assert img[..., 0].min() >= 187 and img[..., 0].max() <= 188
    assert (img[..., 1:3] == (0, 255)).all()
    assert img[..., 3].min() >= 127 and img[..., 3].max() <= 128


def test_constant_buffer_feeds_both_stages_and_updates(scene):
    dev, ctx, rt, _ = scene
    vs = VS.replace("@vertex", "@group(3) @binding(0) var<uniform> k: vec4<f32>;\n@vertex") \
           .replace("vec4<f32>(i.POSITION, 1.0)",
                    "vec4<f32>(i.POSITION.xy * k.x, i.POSITION.z, 1.0)")
    ps = """
    @group(3) @binding(1) var<uniform> tint: vec4<f32>;
    struct PSIn { COLOR: vec4<f32> }
    struct PSOut { SV_Target0: vec4<f32> }
    @fragment fn ps(i: PSIn) -> PSOut { var o: PSOut; o.SV_Target0 = tint; return o; }"""
    ctx.set_pipeline_state(pso(vs=vs, ps=ps, constant_buffers=2))
    k = dev.create_buffer(np.array([0.5, 0, 0, 0], np.float32), bind="constant_buffer")
    tint = dev.create_buffer(np.array([0, 1, 0, 1], np.float32), bind="constant_buffer")
    ctx.set_graphics_root_constant_buffer_view(0, k)
    ctx.set_graphics_root_constant_buffer_view(1, tint)
    draw(ctx, dev, CW)
    ctx.flush()
    half = [(x * 0.5, y * 0.5) for x, y in CW]
    assert_coverage(rt.read(), half, (0, 255, 0, 255))
    k.write(np.array([1, 0, 0, 0], np.float32))
    draw(ctx, dev, CW)
    ctx.flush()
    inside, _ = centers_inside(CW)
    assert (rt.read()[inside] == (0, 255, 0, 255)).all()


def test_stream_output_runs_the_vertex_shader_with_its_constant_buffer(gpu_device):
    dev = gpu_device
    vs = """
    @group(3) @binding(0) var<uniform> k: vec4<f32>;
    struct VSIn { POSITION: vec3<f32> }
    struct VSOut { SV_Position: vec4<f32> }
    @vertex fn main(i: VSIn) -> VSOut { var o: VSOut;
      o.SV_Position = vec4<f32>(i.POSITION * k.x, 1.0); return o; }"""
    so = gpuia.StreamOutputDesc([{"SemanticName": "SV_Position", "ComponentCount": 4}], [16])
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState([LAYOUT[0]], vertex_shader=vs, stream_output=so,
                                         constant_buffers=1))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    pos = np.arange(9, dtype=np.float32)
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(pos)], [12])
    ctx.set_graphics_root_constant_buffer_view(
        0, dev.create_buffer(np.array([2, 0, 0, 0], np.float32), bind="constant_buffer"))
    target = dev.create_buffer(size=48, bind="stream_output")
    ctx.so_set_targets([gpuia.StreamOutputBufferView(target, 48)], [0])
    ctx.draw_instanced(3)
    ctx.flush()
    got = np.frombuffer(target.read(), np.float32).reshape(3, 4)
    want = np.concatenate([pos.reshape(3, 3) * 2, np.ones((3, 1), np.float32)], axis=1)
    assert (got == want).all()


def test_capture_with_render_targets_bound(scene):
    """A capture draw of a pipeline state with render targets still captures what the IA
    delivered (capture draws render nothing into the targets)."""
    dev, ctx, rt, _ = scene
    ctx.set_pipeline_state(pso())
    vb0, vb1 = tri_buffers(dev, CW)
    ctx.ia_set_vertex_buffers(0, [vb0, vb1], [12, 4])
    ctx.begin_capture()
    ctx.draw_instanced(3)
    cap = ctx.end_capture()
    assert cap.words is not None and cap.unexpected == 0
    ctx.draw_instanced(3)
    ctx.flush()
    assert_coverage(rt.read(), CW, RED)


def test_from_wgpu_wraps_a_texture(gpu_device):
    import wgpu

    tex = gpu_device.device.create_texture(
        size=(4, 4, 1), format="bgra8unorm",
        usage=wgpu.TextureUsage.RENDER_ATTACHMENT | wgpu.TextureUsage.COPY_SRC)
    t = Texture.from_wgpu(gpu_device, tex)
    assert t.format.name == "B8G8R8A8_UNORM" and (t.width, t.height) == (4, 4)
    ctx = Context(gpu_device)
    ctx.om_set_render_targets([t])
    ctx.clear_render_target_view(t, (1, 0, 0, 1))
    ctx.flush()
    assert (t.read() == (0, 0, 255, 255)).all()  # BGRA byte order in memory
    bad = gpu_device.device.create_texture(size=(4, 4, 1), format="rg8unorm",
                                           usage=wgpu.TextureUsage.RENDER_ATTACHMENT)
    with pytest.raises(InvalidDescError, match="rg8unorm"):
        Texture.from_wgpu(gpu_device, bad)
    # What a pass attachment must be, checked before wgpu (it would refuse the whole frame).
    ra, cs = wgpu.TextureUsage.RENDER_ATTACHMENT, wgpu.TextureUsage.COPY_SRC
    for kw, message in [(dict(usage=cs), "RENDER_ATTACHMENT"),
                        (dict(usage=ra, sample_count=4), "single-sampled"),
                        (dict(usage=ra, mip_level_count=3), "one mip level"),
                        (dict(usage=ra, size=(4, 4, 2)), "one 2-D layer")]:
        kw.setdefault("size", (4, 4, 1))
        tex = gpu_device.device.create_texture(format="rgba8unorm", **kw)
        with pytest.raises(InvalidDescError, match=message):
            Texture.from_wgpu(gpu_device, tex)
    # A private device: on adapters whose Devices share one wgpu device (quirks.ONE_DEVICE)
    # a plain Device() would be this one's.
    other = gpuia.gpu.Device(gpu_device.adapter, private=True)
    with pytest.raises(InvalidDescError, match="another wgpu device"):
        Texture.from_wgpu(gpu_device, other.device.create_texture(
            size=(4, 4, 1), format="rgba8unorm", usage=ra))
    with pytest.raises(InvalidDescError, match="bound twice"):
        ctx.om_set_render_targets([t, t])


# -- refusals: every one before wgpu sees anything ---------------------------------------------
BAD_PSOS = [
    (dict(ps=PS.replace("COLOR: vec4<f32> }", "NORMAL: vec4<f32> }")
               .replace("i.COLOR", "i.NORMAL")),
     "no vertex shader output has semantic NORMAL0"),
    (dict(ps=PS.replace("COLOR: vec4<f32> }", "COLOR: vec3<f32> }")
               .replace("= i.COLOR", "= vec4<f32>(i.COLOR, 1.0)")),
     "writes COLOR0 as vec4<f32>"),
    (dict(ps=PS.replace("SV_Target0", "SV_Target1")), "SV_Target1 has none"),
    (dict(ps=PS.replace("SV_Target0: vec4<f32>", "SV_Target0: vec4<u32>")
          .replace("= i.COLOR", "= vec4<u32>(i.COLOR)")), "takes f32 values"),
    (dict(ps=PS.replace("SV_Target0", "BLENDWEIGHT")), "SV_Target0 .. SV_Target7"),
    (dict(rtv_formats=["D32_FLOAT"]), "is a depth format"),
    (dict(dsv_format="R8G8B8A8_UNORM"), "is a color format"),
    (dict(rtv_formats=["R8G8_SNORM"]), "gpuia renders into"),
    (dict(rtv_formats=["R8G8B8A8_UNORM"] * 9), "at most 8"),
    (dict(cull_mode="SIDEWAYS"), "CullMode"),
    (dict(depth_func="SOMETIMES"), "DepthFunc"),
    (dict(depth_write_mask="HALF"), "DepthWriteMask"),
    (dict(constant_buffers=15), "constant_buffers"),
    (dict(depth_enable=1), "depth_enable"),
]


@pytest.mark.parametrize("kw,message", BAD_PSOS)
def test_bad_pipeline_states_are_refused(gpu_device, kw, message):
    ctx = Context(gpu_device)
    with pytest.raises(InvalidDescError, match=message):
        ctx.set_pipeline_state(pso(**kw))


def test_draw_refused_when_targets_do_not_match(scene):
    dev, ctx, rt, ds = scene
    vb0, vb1 = tri_buffers(dev, CW)
    ctx.ia_set_vertex_buffers(0, [vb0, vb1], [12, 4])
    ctx.set_pipeline_state(pso(rtv_formats=["R16G16B16A16_FLOAT"]))
    with pytest.raises(InvalidDescError, match="RTVFormats"):
        ctx.draw_instanced(3)
    ctx.set_pipeline_state(pso(dsv_format=None))
    with pytest.raises(InvalidDescError, match="RTVFormats"):
        ctx.draw_instanced(3)
    ctx.set_pipeline_state(PipelineState(LAYOUT))  # no targets in the PSO, targets bound
    with pytest.raises(InvalidDescError, match="om_set_render_targets"):
        ctx.draw_instanced(3)
    # A constant buffer the shader reads must be bound; one it does not read need not be
    # (D3D12 checks the root parameters a pipeline's shaders reference).
    reads = VS.replace("@vertex", "@group(3) @binding(0) var<uniform> k: vec4<f32>;\n@vertex") \
        .replace("o.COLOR0 = i.COLOR;", "o.COLOR0 = i.COLOR * k;")
    ctx.set_pipeline_state(pso(vs=reads))
    with pytest.raises(InvalidDescError, match="set_graphics_root_constant_buffer_view"):
        ctx.draw_instanced(3)
    ctx.set_pipeline_state(pso(constant_buffers=1))
    ctx.draw_instanced(3)
    # The same context still draws correctly afterwards.
    ctx.set_pipeline_state(pso())
    ctx.draw_instanced(3)
    ctx.flush()
    assert_coverage(rt.read(), CW, RED)


def test_bad_target_bindings_are_refused(gpu_device):
    dev = gpu_device
    ctx = Context(dev)
    rt = dev.create_render_target(8, 8)
    ds = dev.create_depth_stencil(8, 8)
    with pytest.raises(InvalidDescError, match="same width and height"):
        ctx.om_set_render_targets([rt, dev.create_render_target(4, 8)])
    with pytest.raises(InvalidDescError, match="cannot be a render target"):
        ctx.om_set_render_targets([ds])
    with pytest.raises(InvalidDescError, match="expected a depth format"):
        ctx.om_set_render_targets([rt], rt)
    with pytest.raises(InvalidDescError, match="at most 8"):
        ctx.om_set_render_targets([rt] * 9)
    with pytest.raises(InvalidDescError, match="ColorRGBA"):
        ctx.clear_render_target_view(rt, (1, 2))
    with pytest.raises(InvalidDescError, match="color Texture"):
        ctx.clear_render_target_view(ds, (1, 1, 1, 1))
    with pytest.raises(InvalidDescError, match="Depth"):
        ctx.clear_depth_stencil_view(ds, 2.0)
    with pytest.raises(InvalidDescError, match="constant_buffer bind flag"):
        ctx.set_graphics_root_constant_buffer_view(0, dev.create_buffer(size=16))
    with pytest.raises(InvalidDescError, match="RootParameterIndex"):
        ctx.set_graphics_root_constant_buffer_view(14, None)
    with pytest.raises(InvalidDescError, match="Width"):
        dev.create_render_target(0, 8)
    with pytest.raises(InvalidDescError, match="Format"):
        dev.create_depth_stencil(8, 8, "D32_FLOAT_S8X24_UINT")
    with pytest.raises(InvalidDescError, match="WebGPU cannot copy"):
        dev.create_depth_stencil(8, 8, "D24_UNORM_S8_UINT").read()
    with pytest.raises(InvalidDescError, match="multiples of 4"):
        dev.create_buffer(size=16, bind="constant_buffer").write(b"abc")
    with pytest.raises(InvalidDescError, match="runs past"):
        dev.create_buffer(size=16, bind="constant_buffer").write(bytes(20))


def test_depth_stencil_format_with_stencil(gpu_device):
    dev = gpu_device
    rt = dev.create_render_target(W, H)
    ds = dev.create_depth_stencil(W, H, "D24_UNORM_S8_UINT")
    ctx = Context(dev)
    ctx.om_set_render_targets([rt], ds)
    ctx.clear_render_target_view(rt, (0, 0, 1, 1))
    ctx.clear_depth_stencil_view(ds, 1.0, 3)
    ctx.set_pipeline_state(pso(dsv_format="D24_UNORM_S8_UINT", cull_mode="NONE"))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    quad = [(-1, -1), (-1, 1), (1, 1)]
    draw(ctx, dev, quad, z=0.25, color=RED)
    draw(ctx, dev, quad, z=0.75, color=(0, 255, 0, 255))
    ctx.flush()
    inside, _ = centers_inside(quad)
    assert (rt.read()[inside] == RED).all()


def test_cached_rebinds_follow_the_pipeline_states_slots(gpu_device):
    """Rebinds that hit the view cache update only the slots they name, for whichever pipeline
    state is set; a pipeline state change re-reads every slot (the colour on screen says which
    buffer each draw read)."""
    dev = gpu_device
    layout_b = [LAYOUT[0], dict(LAYOUT[1], InputSlot=2)]
    ps_b = PipelineState(layout_b, vertex_shader=VS, pixel_shader=PS,
                         rtv_formats=["R8G8B8A8_UNORM"], cull_mode="NONE")
    ps_a = PipelineState(LAYOUT, vertex_shader=VS, pixel_shader=PS,
                         rtv_formats=["R8G8B8A8_UNORM"], cull_mode="NONE")
    green = (0, 255, 0, 255)
    pos = dev.create_buffer(np.array([[-1, -1, 0.5], [-1, 3, 0.5], [3, -1, 0.5]], np.float32))
    red_b = dev.create_buffer(np.array([RED] * 3, np.uint8))
    green_b = dev.create_buffer(np.array([green] * 3, np.uint8))
    rt = dev.create_render_target(4, 4)
    ctx = Context(dev)
    ctx.om_set_render_targets([rt])
    ctx.ia_set_primitive_topology("TRIANGLELIST")

    def color():
        ctx.draw_instanced(3)
        ctx.flush()
        px = rt.read()
        assert (px == px[0, 0]).all()
        return tuple(px[0, 0])

    ctx.set_pipeline_state(ps_a)
    ctx.ia_set_vertex_buffers(0, [pos, red_b], [12, 4])
    assert color() == RED
    ctx.ia_set_vertex_buffers(1, [green_b], [4])
    ctx.ia_set_vertex_buffers(1, [red_b], [4])  # cached
    ctx.ia_set_vertex_buffers(1, [green_b], [4])  # cached
    assert color() == green
    ctx.set_pipeline_state(ps_b)
    ctx.ia_set_vertex_buffers(2, [red_b], [4])
    assert color() == RED
    ctx.ia_set_vertex_buffers(1, [red_b], [4])  # cached, a slot ps_b does not read
    ctx.ia_set_vertex_buffers(2, [green_b], [4])  # cached
    assert color() == green
    ctx.set_pipeline_state(ps_a)  # slot 1 holds red_b since the rebind above
    assert color() == RED


def test_root_constant_buffer_slices_of_one_buffer_per_draw(scene):
    """D3D12's constant ring: one buffer, each draw's root CBV at its own 256-byte slice, all
    in one flush; each draw reads its slice."""
    dev, ctx, rt, _ = scene
    vs = VS.replace("@vertex", "@group(3) @binding(0) var<uniform> k: vec4<f32>;\n@vertex") \
           .replace("vec4<f32>(i.POSITION, 1.0)",
                    "vec4<f32>(i.POSITION.xy * k.x, i.POSITION.z, 1.0)")
    ctx.set_pipeline_state(pso(vs=vs, constant_buffers=1, depth_enable=False))
    ring = np.zeros((2, 64), np.float32)
    ring[0, 0], ring[1, 0] = 1.0, 0.5
    cb = dev.create_buffer(ring, bind="constant_buffer")
    ctx.set_graphics_root_constant_buffer_view(0, cb, 0)
    draw(ctx, dev, CW, color=RED)
    ctx.set_graphics_root_constant_buffer_view(0, cb, 256)
    draw(ctx, dev, CW, color=(0, 255, 0, 255))
    ctx.flush()
    img = rt.read()
    half = [(x * 0.5, y * 0.5) for x, y in CW]
    inner, inner_edge = centers_inside(half)
    outer, _ = centers_inside(CW)
    assert (img[inner] == (0, 255, 0, 255)).all()
    assert (img[outer & ~inner & ~inner_edge] == RED).all()
    for bad in (100, 512, -256, 256.0):
        with pytest.raises(InvalidDescError, match="multiple of"):
            ctx.set_graphics_root_constant_buffer_view(0, cb, bad)
