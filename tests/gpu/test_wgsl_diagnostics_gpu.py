"""naga's diagnostics in the user's shader's lines (gpuia/wgsl/diagnostics.py).

Before the fix a WGSL error named the generated program's lines (the user's line 5 was the
program's line 70-odd on the pulling path, another on the native path) and was squeezed into one
line. Now the error's first line says "at line 5, column 7 of the vertex shader", and naga's
rendering follows, multi-line, with the user's line numbers: on real draws of both paths, Stream
Output, a pixel shader and the command line."""

import json
import subprocess
import sys

import numpy as np
import pytest

from gpuia import SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.errors import InvalidDescError
from gpuia.gpu import Context, PipelineState
from gpuia.wgsl.diagnostics import ShaderCompileError
from helpers import TYPE_ERROR_VS as BAD_VS

GOOD_VS = BAD_VS.replace("  let x: u32 = 1.5;\n", "  o.B = input.A;\n")
# The pixel shader's error is on its line 3.
BAD_PS = """struct PSIn { B: f32 }
struct PSOut { SV_Target0: vec4<f32> }
@fragment fn ps(input: PSIn) -> PSOut { var o: PSOut;
  o.SV_Target0 = vec4<f32>(nothere);
  return o; }
"""


LAYOUT = [{"SemanticName": "A", "Format": "R32_FLOAT"}]


def _context(dev, **pso):
    ctx = Context(dev)
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(np.array([1, 2, 3], np.float32))], [4])
    ctx.set_pipeline_state(PipelineState(LAYOUT, **pso))
    return ctx


def _expect_line_5(e: ShaderCompileError) -> None:
    text = str(e)
    first, *rest = text.split("\n")
    assert first == ("vertex shader: wgsl='...': does not compile at line 5, column 7 of the "
                     "vertex shader: parsing error: the type of `x` is expected to be `u32`, "
                     "but got `{AbstractFloat}`"), first
    assert first == e.summary and tuple(rest) == e.diagnostic
    assert rest[0].strip() == "┌─ vertex shader:5:7"
    numbered = [line for line in rest if line.strip()[:1].isdigit()]
    assert len(numbered) == 1 and numbered[0].split("│")[0].strip() == "5"
    assert numbered[0].split("│", 1)[1] == "   let x: u32 = 1.5;"
    assert any(line.strip().endswith("^ definition of `x`") for line in rest)
    assert len(rest) >= 4


@pytest.mark.parametrize("path", ["pulling", "native"])
def test_a_type_error_names_the_users_line(gpu_device, path):
    ctx = _context(gpu_device, vertex_shader=BAD_VS)
    ctx.set_path(path)
    with pytest.raises(ShaderCompileError) as e:
        ctx.draw_instanced(3)
    assert isinstance(e.value, InvalidDescError)
    _expect_line_5(e.value)


def test_stream_output_names_the_users_line_too(gpu_device):
    ctx = _context(gpu_device, vertex_shader=BAD_VS, stream_output=StreamOutputDesc(
        (SODeclarationEntry(semantic_name="B", component_count=1),)))
    ctx.so_set_targets([StreamOutputBufferView(
        gpu_device.create_buffer(bytes(16), bind=("stream_output",)))], [0])
    with pytest.raises(ShaderCompileError) as e:
        ctx.draw_instanced(3)
    assert "does not compile for Stream Output at line 5, column 7 of the vertex shader" \
        in e.value.summary
    assert e.value.diagnostic[0].strip() == "┌─ vertex shader:5:7"


def test_a_pixel_shader_error_names_the_pixel_shaders_line(gpu_device):
    ctx = Context(gpu_device)
    rt = gpu_device.create_render_target(4, 4, "R8G8B8A8_UNORM")
    ctx.om_set_render_targets([rt], None)
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [gpu_device.create_buffer(np.array([1, 2, 3], np.float32))],
                              [4])
    ctx.set_pipeline_state(PipelineState(LAYOUT, vertex_shader=GOOD_VS, pixel_shader=BAD_PS,
                                         rtv_formats=["R8G8B8A8_UNORM"]))
    with pytest.raises(ShaderCompileError) as e:
        ctx.draw_instanced(3)
    assert e.value.summary.startswith(
        "pixel shader: wgsl='...': does not compile at line 4, column 28 of the pixel shader: "
        "parsing error: no definition in scope for identifier: `nothere`"), e.value.summary
    assert e.value.diagnostic[0].strip() == "┌─ pixel shader:4:28"


def test_the_cli_prints_one_error_line_then_the_diagnostic(tmp_path):
    doc = {"gpuia_case": 1, "name": "bad", "input_layout": LAYOUT,
           "vertex_buffers": [{"slot": 0, "stride": 4,
                               "data": {"dtype": "float32", "values": [1, 2, 3]}}],
           "primitive_topology": "POINTLIST", "vertex_shader": {"wgsl": BAD_VS},
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}}}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    proc = subprocess.run([sys.executable, "-m", "gpuia", "run", str(path), "--backend", "gpu"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "XDG_RUNTIME_DIR" not in line]
    errors = [line for line in lines if line.startswith("error:")]
    assert errors == [lines[0]] and lines[0].startswith(
        "error: bad: vertex shader: wgsl='...': does not compile at line 5, column 7 of the "
        "vertex shader:"), proc.stderr
    rest = lines[1:]
    assert len(rest) >= 4 and all(line.startswith("    ") for line in rest), proc.stderr
    assert rest[0].strip() == "┌─ vertex shader:5:7"

