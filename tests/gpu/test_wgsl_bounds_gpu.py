"""Bounds on WGSL shaders (gpuia/wgsl/bounds.py) on the GPU: a shader over the limit is refused
before any shader module is made, shaders at the limit compile and run, and the uniform matrix
reads gpuia lets through draw D3D's values (the refusals themselves, with no adapter:
tests/unit/test_wgsl_bounds.py).
"""

import numpy as np
import pytest

from gpuia import InputLayout, SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.errors import InvalidDescError
from gpuia.gpu import Context, PipelineState
from helpers import TWO_ROW_STRUCT, array_shader, uniform_shader


def test_refused_at_set_pipeline_state_before_any_shader_module(gpu_device, monkeypatch):
    calls = []
    for name in ("create_shader_module", "create_render_pipeline", "create_compute_pipeline"):
        monkeypatch.setattr(gpu_device.device, name, lambda *a, _n=name, **k: calls.append(_n))
    ctx = Context(gpu_device)
    with pytest.raises(InvalidDescError, match="4100 bytes of arrays"):
        ctx.set_pipeline_state(PipelineState(
            [{"SemanticName": "A", "Format": "R32_FLOAT"}],
            array_shader("var<private> big: array<f32, 1025>;\n", n="1025u")))
    assert calls == []


def _run_so(dev, source: str, constant_buffer=None) -> list[float]:
    """B of vertices 0, 1, 2 (A = 1, 2, 3) through Stream Output, after a render draw of the
    same shader (so both a render and a compute pipeline are built); ``constant_buffer`` is
    bound as root constant buffer 0."""
    ctx = Context(dev)
    layout = InputLayout([{"SemanticName": "A", "Format": "R32_FLOAT"}])
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(np.array([1, 2, 3], np.float32))], [4])
    ctx.set_pipeline_state(PipelineState(layout, source))
    if constant_buffer is not None:
        ctx.set_graphics_root_constant_buffer_view(0, constant_buffer)
    ctx.draw_instanced(3)
    ctx.set_pipeline_state(PipelineState(layout, source, stream_output=StreamOutputDesc(
        (SODeclarationEntry(semantic_name="B", component_count=1),))))
    target = dev.create_buffer(bytes(12), bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target)], [0])
    ctx.draw_instanced(3)
    ctx.flush()
    return np.frombuffer(target.read(), np.float32).tolist()


@pytest.mark.parametrize("module, local, n", [
    ("var<private> big: array<f32, 1024>;\n", "", "1024u"),
    ("", "var big: array<f32, 1024>;", "1024u"),
    ("var<private> big: array<array<f32, 32>, 32>;\n", "", "32u"),
])
def test_a_shader_at_the_limit_compiles_and_runs(gpu_device, module, local, n):
    source = array_shader(module, local, n)
    if "array<array" in module:  # fill and read the first row of the nested array
        source = source.replace("big[i] =", "big[i][i] =").replace(
            "big[(input.SV_VertexID * 7u) % 32u]", "big[(input.SV_VertexID * 7u) % 32u]"
            "[(input.SV_VertexID * 7u) % 32u]")
    # B = big[(7 v) % n] + A = (7 v) % n + (v + 1), for v = 0, 1, 2
    assert _run_so(gpu_device, source) == [1.0, 9.0, 17.0]


# Uniform reads naga compiles on every adapter (measured with wgpu-py 0.32: Vulkan on lavapipe
# and OpenGL on llvmpipe), unlike the whole-struct loads tests/unit/test_wgsl_bounds.py refuses.
S2 = TWO_ROW_STRUCT.replace("{c}", "2")  # struct S { m: mat2x2<f32>, x: vec4<f32> }
ALLOWED = {
    # S over 0, 1, 2, ...: m[1][0] = 2, x.y = 5
    "member access": (S2, "S", "let r = cb.m[1][0] + cb.x.y;", 7.0),
    "matrix member loaded whole": (S2, "S", "let mm = cb.m; let r = mm[1][0] + 5.0;", 7.0),
    "member through a pointer": (S2, "S", "let p = &cb; let r = (*p).m[1][0];", 2.0),
    "array element member": (S2, "array<S, 2>", "let r = cb[1].m[1][0];", 10.0),
    # struct I { m: mat2x2<f32>, y: vec4<f32> } nested at byte 16 of T: m[1][0] = 6
    "nested struct loaded whole": ("struct I { m: mat2x2<f32>, y: vec4<f32> }\n"
                                   "struct T { x: vec4<f32>, i: I }", "T",
                                   "let t = cb; let r = t.i.m[1][0];", 6.0),
    "single-member struct": ("struct S { m: mat2x2<f32> }", "S",
                             "let s = cb; let r = s.m[1][0];", 2.0),
    # mat4x4: m[1][0] = 4, x (at byte 64) .y = 17
    "mat4x4 struct loaded whole": ("struct S { m: mat4x4<f32>, x: vec4<f32> }", "S",
                                   "let s = cb; let r = s.m[1][0] + s.x.y;", 21.0),
    "mat3x3 struct loaded whole": ("struct S { m: mat3x3<f32>, x: vec4<f32> }", "S",
                                   "let s = cb; let r = s.m[1][0];", 4.0),  # columns of 16 B
}


@pytest.mark.parametrize("shape", sorted(ALLOWED))
def test_other_uniform_matrix_reads_still_run(gpu_device, shape):
    """Run everywhere, except that an adapter which reads 2-row uniform matrices wrong
    (quirks.UNIFORM_TWO_ROW_MATRICES) refuses every uniform holding one, naming it."""
    from gpuia.errors import UnsupportedError
    from gpuia.gpu.quirks import UNIFORM_TWO_ROW_MATRICES, has_effect

    decls, t, use, r = ALLOWED[shape]
    source = uniform_shader(decls, t, use)
    cb = gpu_device.create_buffer(np.arange(64, dtype=np.float32), bind="constant_buffer")
    if has_effect(gpu_device.caps.quirks, UNIFORM_TWO_ROW_MATRICES) and "x2<" in decls:
        with pytest.raises(UnsupportedError, match=r"declares var<uniform> cb: .*2-row matrix"):
            _run_so(gpu_device, source, cb)
        return
    # B = r + A for A = 1, 2, 3
    assert _run_so(gpu_device, source, cb) == [r + 1.0, r + 2.0, r + 3.0]


def test_two_row_uniform_matrix_quirk_is_measured(devices, monkeypatch):
    """With the refusal off, a uniform's mat2x2 reads wrong exactly on the adapters with the
    quirk (the row is needed, and complete for the adapters here)."""
    import gpuia.gpu.context.drawing as context
    from gpuia.gpu.quirks import UNIFORM_TWO_ROW_MATRICES, has_effect

    monkeypatch.setattr(context, "two_row_matrix_uniforms", lambda source: [])
    decls, t, use, r = ALLOWED["member access"]
    source = uniform_shader(decls, t, use)
    for dev in devices:
        cb = dev.create_buffer(np.arange(64, dtype=np.float32), bind="constant_buffer")
        right = _run_so(dev, source, cb) == [r + 1.0, r + 2.0, r + 3.0]
        assert right != has_effect(dev.caps.quirks, UNIFORM_TWO_ROW_MATRICES), dev.info["summary"]
