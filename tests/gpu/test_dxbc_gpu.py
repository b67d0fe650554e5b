"""DXBC vertex shaders (FXC's blobs) drawn for real: the CPU reference and the GPU's Stream
Output each against the values derived in numpy from the HLSL source FXC compiled
(tests/dxbc_cases.py), gpuia check's verdict on the native and pulling draws, and the same case
with the source drawn through gpuia's HLSL path (which shares nothing with the DXBC chain but
gpuia's front end).

vertex.hlsl's outputs round once in float32, so they are compared bit for bit; cbuffers.hlsl's
within 1e-5. The tests fail, never skip, without an adapter or without the tools.
"""

from __future__ import annotations

import numpy as np
import pytest

import dxbc_cases as dc
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import reference_ia, reference_so
from gpuia.harness.run_gpu import run_case_so_gpu
from hlsl_vertex_cases import decode_outputs

CASES = {
    "vertex.main.vs_4_0": (dc.vertex_case, "vertex.hlsl"),
    "vertex.main.vs_5_0": (dc.vertex_case, "vertex.hlsl"),
    "vertex.main.vs_5_1": (dc.vertex_case, "vertex.hlsl"),
    "cbuffers.main.vs_5_0": (dc.cbuffers_case, "cbuffers.hlsl"),
    "unread.main.vs_5_0": (dc.unread_case, "unread.hlsl"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cpu_and_gpu_match_the_source_arithmetic(name, gpu_device):
    vs = CASES[name][0]()
    case = load_case(dc.with_dxbc(vs, name))
    cpu = reference_so(case, reference_ia(case))
    gpu = run_case_so_gpu(case, gpu_device)
    dc.check_close(decode_outputs(cpu.buffers[0], vs), vs, "CPU")
    dc.check_close(decode_outputs(gpu.buffers[0], vs), vs, "GPU")
    if getattr(vs, "expected_exact", False):
        assert cpu.buffers[0] == gpu.buffers[0]  # bit-exact end to end


@pytest.mark.parametrize("name", sorted(CASES))
def test_cross_check_passes_on_every_path(name, gpu_device):
    """gpuia check's own verdict: IA inputs exact on the native and pulling draws, the
    shader's outputs and Stream Output against the CPU reference running the same translated
    shader."""
    case = load_case(dc.with_dxbc(CASES[name][0](), name, inline=name.endswith("5_1")))
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()
    statuses = {line.path: line.status for line in result.lines}
    assert statuses == {"native": "OK", "pulling": "OK", "vs outputs": "OK",
                        "stream output": "OK"}, result.text()


@pytest.mark.parametrize("name", ["vertex.main.vs_5_0", "cbuffers.main.vs_5_0"])
def test_the_blob_draws_what_its_source_draws(name, gpu_device):
    """The blob and its HLSL source, each through its own path, give the same Stream Output
    (bit for bit for vertex.hlsl, within 1e-5 for cbuffers.hlsl, where FXC fuses and reorders
    the arithmetic)."""
    make, source = CASES[name]
    vs = make()
    from_blob = run_case_so_gpu(load_case(dc.with_dxbc(vs, name)), gpu_device).buffers[0]
    from_source = run_case_so_gpu(load_case(dc.with_hlsl(vs, source)), gpu_device).buffers[0]
    if getattr(vs, "expected_exact", False):
        assert from_blob == from_source
    else:
        np.testing.assert_allclose(np.frombuffer(from_blob, np.float32),
                                   np.frombuffer(from_source, np.float32), rtol=1e-5,
                                   atol=1e-5)


def test_a_dxbc_pixel_shader_draws_what_its_source_says(gpu_device):
    """target.hlsl compiled by FXC (ps_4_0 and ps_5_0), drawn after test_hlsl_pixel's HLSL
    vertex shader: color * 0.5 + (0, 0, 0, 0.5) perspective-correct, and the flat id of the
    leading vertex (3) with the pixel's integer coordinates and 7 (an integer constant FXC
    stores as a float literal's bits) in an R32G32B32A32_UINT target, each pixel against
    numpy's barycentrics. The float target is R32G32B32A32_FLOAT, or R16G16B16A16_FLOAT (to
    half a 16-bit ulp of 1) where the adapter cannot render into the former."""
    import test_hlsl_pixel as px

    from gpuia.gpu import Context, PipelineState
    from gpuia.gpu.targets import TARGET_FORMATS
    from gpuia.hlsl import compile_dxbc, compile_shader

    wide = TARGET_FORMATS["R32G32B32A32_FLOAT"].webgpu in gpu_device.caps.target_formats
    targets = ("R32G32B32A32_FLOAT" if wide else "R16G16B16A16_FLOAT", "R32G32B32A32_UINT")
    vs = compile_shader(px.VS, "vertex")
    yy, xx = np.mgrid[0:px.H, 0:px.W]
    want, allowance, inside = px.expect(
        lambda lam: px.perspective(lam, px.COLORS) * 0.5 + [0, 0, 0, 0.5])
    for model in ("4_0", "5_0"):
        ps = compile_dxbc(dc.blob(f"target.main.ps_{model}"), "pixel", f"ps_{model}.cso")
        rts = [gpu_device.create_render_target(px.W, px.H, f) for f in targets]
        ctx = Context(gpu_device)
        ctx.om_set_render_targets(rts)
        for rt in rts:
            ctx.clear_render_target_view(rt, (0, 0, 0, 0))
        ctx.set_pipeline_state(PipelineState(px.LAYOUT, vertex_shader=vs, pixel_shader=ps,
                                             rtv_formats=targets, depth_enable=False,
                                             cull_mode="NONE"))
        ctx.ia_set_primitive_topology("TRIANGLELIST")
        ctx.ia_set_vertex_buffers(0, [gpu_device.create_buffer(px.clip_positions()),
                                      gpu_device.create_buffer(px.COLORS.astype(np.float32))],
                                  [16, 16])
        ctx.draw_instanced(3)
        ctx.flush()
        img, ids = (np.asarray(rt.read()) for rt in rts)
        px.assert_close(img.astype(np.float64), want, allowance, inside,
                        atol=2e-4 if wide else 2.5e-4 + 2 ** -12)
        np.testing.assert_array_equal(
            ids[inside], np.stack([np.full(inside.sum(), 3), xx[inside], yy[inside],
                                   np.full(inside.sum(), 7)], -1), err_msg=f"ps_{model}")
