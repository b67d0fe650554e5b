"""Root constant buffers b0..b13 without a GPU: D3D11 gives a shader stage 14 constant buffer
slots (D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT = 14, d3d11.h; D3D10's is 14 too), so
gpuia binds registers b0..b13 and refuses b14 and above when the shader is compiled, naming the
register, the cbuffer and the limit; case files take constant_buffers slots 0..13; and how many
an adapter binds at once is checked against its max-uniform-buffers-per-shader-stage before
anything reaches wgpu (tests/gpu/test_gpu_constant_buffers.py runs them on an adapter).

The expected numbers are the D3D constant (14) and WebGPU's counts: one uniform block of
gpuia's own in a draw's vertex stage, three in the Stream Output pass (gpuia.gpu.vertex.pipelines).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.gpu.context.pso import MAX_CBVS, PipelineState
from gpuia.gpu.vertex.pipelines import check_constant_buffers
from gpuia.harness.case import load_case
from gpuia.harness.lint import webgpu_default_caps
from gpuia.hlsl import compile_shader

D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT = 14  # d3d11.h


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, tmp_path_factory):
    """Compile into a temporary disk cache, never the user's."""
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "hlsl-cache"))


def shader_at(*registers: int) -> str:
    """A vertex shader reading one cbuffer per register, each adding its own constant."""
    decls = "".join(f"cbuffer CB{r} : register(b{r}) {{ float k{r}; }};\n" for r in registers)
    total = " + ".join(f"k{r}" for r in registers)
    return (decls + "float4 main(float4 p : POSITION) : SV_Position\n"
            f"{{ return p + {total}; }}\n")


def test_the_limit_is_d3d11s_slot_count():
    assert MAX_CBVS == D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT


def test_b8_to_b13_compile():
    vs = compile_shader(shader_at(8, 9, 10, 11, 12, 13), "vertex")
    assert vs.constant_buffer_slots == (8, 9, 10, 11, 12, 13)
    pso = PipelineState([{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}],
                        vertex_shader=vs)
    assert pso.constant_buffers == 14  # the root signature reaches b13
    assert pso.constant_buffer_slots == (8, 9, 10, 11, 12, 13)  # what the group binds


@pytest.mark.parametrize("register", [14, 15, 31])
def test_b14_and_above_are_refused_when_compiled(register):
    with pytest.raises(InvalidDescError) as e:
        compile_shader(shader_at(0, register), "vertex")
    msg = str(e.value)
    assert f"register(b{register})" in msg and f"cbuffer CB{register}" in msg, msg
    assert "b0..b13" in msg and "D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT" in msg, msg


def test_pipeline_state_takes_14_views_not_15():
    layout = [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}]
    assert PipelineState(layout, constant_buffers=14).constant_buffers == 14
    with pytest.raises(InvalidDescError, match="0..14 root constant buffer views"):
        PipelineState(layout, constant_buffers=15)
    wgsl = ("struct I { @location(0) POSITION: vec4<f32> };\n"
            "struct O { @builtin(position) SV_Position: vec4<f32> };\n"
            "@group(3) @binding(B) var<uniform> k: vec4<f32>;\n"
            "@vertex fn main(i: I) -> O { return O(i.POSITION + k); }\n")
    assert PipelineState(layout, vertex_shader=wgsl.replace("B", "13")).constant_buffer_slots \
        == (13,)
    with pytest.raises(InvalidDescError, match=r"register b14\).*D3D11_COMMONSHADER"):
        PipelineState(layout, vertex_shader=wgsl.replace("B", "14"))


def _case(slots, registers) -> dict:
    return {"gpuia_case": 1, "name": "cb",
            "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}],
            "vertex_buffers": [{"slot": 0, "stride": 16,
                                "data": {"dtype": "float32", "values": [0, 0, 0, 1]}}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 1}},
            "vertex_shader": {"hlsl": shader_at(*registers)},
            "constant_buffers": [{"slot": s, "data": {"dtype": "float32", "values": [1]}}
                                 for s in slots]}


def test_case_constant_buffers_take_slots_0_to_13():
    case = load_case(_case(range(8, 14), range(8, 14)))
    assert sorted(case.constant_buffers) == [8, 9, 10, 11, 12, 13]
    with pytest.raises(InvalidDescError) as e:
        load_case(_case([8, 14], [8]))
    assert e.value.where == "constant_buffers[1]" and e.value.value == 14
    assert "0..13" in str(e.value) and "b0..b13" in str(e.value)
    with pytest.raises(InvalidDescError, match=r"register\(b14\)"):
        load_case(_case([8, 14], [8, 14]))  # the shader itself is refused first


def test_adapter_limit_is_checked_before_wgpu():
    """15 uniform buffers per stage (lavapipe's and llvmpipe GL's): a draw takes 14 root
    constant buffers beside its per-draw block, Stream Output 12 beside its three."""
    caps = replace(webgpu_default_caps(), max_uniform_buffers_per_shader_stage=15)
    check_constant_buffers(tuple(range(14)), caps, "lavapipe", stream_output=False)
    check_constant_buffers(tuple(range(2, 14)), caps, "lavapipe", stream_output=True)
    with pytest.raises(UnsupportedError) as e:
        check_constant_buffers(tuple(range(1, 14)), caps, "lavapipe", stream_output=True)
    msg = str(e.value)
    assert "max-uniform-buffers-per-shader-stage 15" in msg and "lavapipe" in msg, msg
    assert "(b1..b13)" in msg and "at most 12" in msg, msg
    # WebGPU's default 12: 11 in a draw.
    default = webgpu_default_caps()
    check_constant_buffers(tuple(range(11)), default, "x", stream_output=False)
    with pytest.raises(UnsupportedError, match="max-uniform-buffers-per-shader-stage 12"):
        check_constant_buffers(tuple(range(12)), default, "x", stream_output=False)
    few_groups = replace(caps, max_bind_groups=3)
    with pytest.raises(UnsupportedError, match="max-bind-groups 3"):
        check_constant_buffers((0,), few_groups, "x", stream_output=False)
    check_constant_buffers((), few_groups, "x", stream_output=False)  # nothing bound at 3

