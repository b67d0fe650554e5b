"""Root constant buffers in registers b8..b13 on the GPU: D3D11 gives a stage 14 constant buffer
slots (D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT = 14), and gpuia binds b0..b13.

Each cbuffer bN holds the float 2**N and the shader adds them all to its input, so the sum,
streamed out, says exactly which buffers the shader read where (distinct powers of two,
exact in float32): the expected values are that sum, worked out here by hand. How many buffers
an adapter binds at once is its max-uniform-buffers-per-shader-stage, less the uniform blocks
gpuia's own Stream Output pass binds (three): where the adapter has too few, the pipeline
state is refused naming that limit, before anything reaches wgpu. Runs on lavapipe and, in CI,
on llvmpipe's OpenGL adapter (GPUIA_BACKEND=OpenGL); both have 15.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.errors import UnsupportedError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run_gpu import run_case_so_gpu

SO_OWN_UNIFORMS = 3  # the SO pass's pulling block, SO block and state (gpuia.gpu.vertex.pipelines)
XS = [0.0, 100.0, -0.5]  # the POSITION.x of the three points


def case_reading(registers) -> dict:
    decls = "".join(f"cbuffer CB{r} : register(b{r}) {{ float k{r}; }};\n" for r in registers)
    total = " + ".join(f"k{r}" for r in registers)
    hlsl = (decls + "struct O { float4 pos : SV_Position; float total : TEXCOORD0; };\n"
            "O main(float4 p : POSITION) {\n"
            f"    O o; o.pos = p; o.total = p.x + {total}; return o;\n}}\n")
    return {
        "gpuia_case": 1, "name": "cbuffers_" + "_".join(f"b{r}" for r in registers),
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 16, "data": {
            "dtype": "float32", "values": [[x, 0, 0, 1] for x in XS]}}],
        "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": len(XS)}},
        "vertex_shader": {"hlsl": hlsl},
        "constant_buffers": [{"slot": r, "data": {"dtype": "float32", "values": [2.0 ** r]}}
                             for r in registers],
        "stream_output": {
            "declaration": [{"SemanticName": "TEXCOORD", "ComponentCount": 1}],
            "targets": [{"slot": 0, "size": 4 * len(XS)}]},
    }


@pytest.mark.parametrize("registers", [range(8, 14), range(2, 14), range(14)],
                         ids=["b8-b13", "b2-b13", "b0-b13"])
def test_constant_buffers_stream_out_their_sum(gpu_device, registers):
    registers = tuple(registers)
    case = load_case(case_reading(registers))
    limit = gpu_device.caps.max_uniform_buffers_per_shader_stage
    if len(registers) + SO_OWN_UNIFORMS > limit:
        with pytest.raises(UnsupportedError) as e:
            run_case_so_gpu(case, gpu_device)
        assert f"max-uniform-buffers-per-shader-stage {limit}" in str(e.value), str(e.value)
        assert f"b{registers[0]}..b{registers[-1]}" in str(e.value), str(e.value)
        return
    got = run_case_so_gpu(case, gpu_device)
    # 2**8 + ... + 2**13 = 16128; 2**2 + ... + 2**13 = 16380; 2**0 + ... + 2**13 = 16383.
    expected_sum = {6: 16128.0, 12: 16380.0, 14: 16383.0}[len(registers)]
    assert sum(2.0 ** r for r in registers) == expected_sum
    values = np.frombuffer(got.buffers[0], np.float32)
    assert values.tolist() == [x + expected_sum for x in XS]
    assert got.filled_size[0] == 4 * len(XS)


def test_b8_to_b13_pass_gpuia_check(gpu_device):
    """gpuia check's verdict on the same case: the CPU reference (the same shader built for the
    host) and every GPU path agree."""
    case = load_case(case_reading(range(8, 14)))
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()
    statuses = {line.path: line.status for line in result.lines}
    assert statuses["stream output"] == "OK", result.text()
