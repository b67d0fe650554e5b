"""A case's ``pipeline_state`` checked by ``gpuia check`` on the adapter, and
``PipelineState.primitive_topology_type`` at a Context draw (docs/rules.md section 15).

The case draws a 5-vertex triangle strip with a cut at index 2 (IBStripCutValue 0xFFFF): the
strip's runs are (0, 1) and (3, 4, 5, 6), so the raster check expects 2 triangles, (3,4,5) and
(4,6,5) (rules 5.4, 9.3); the Input Assembler delivers vertices 0, 1, 3, 4, 5, 6 and the Stream
Output line streams those 2 triangles' COLOR. Those expectations are docs/rules.md's; what this
test adds is that the pipeline state given as one object draws as the top-level form does."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpuia import InputLayout
from gpuia.cli import main
from gpuia.errors import InvalidDescError
from gpuia.gpu import Context, PipelineState

VS = """
struct VSIn { float4 pos : POSITION; float4 color : COLOR; };
struct VSOut { float4 pos : SV_Position; float4 color : COLOR; };
VSOut main(VSIn i) { VSOut o; o.pos = i.pos; o.color = i.color; return o; }
"""

PS = """
float4 main(float4 pos : SV_Position, float4 color : COLOR) : SV_Target { return color; }
"""


def case(type_name: str = "TRIANGLE") -> dict:
    positions = np.arange(7 * 4, dtype=np.float32).reshape(7, 4) / 8
    colors = np.arange(7, dtype=np.uint32) * 0x01020304
    data = b"".join(p.tobytes() + c.tobytes() for p, c in zip(positions, colors, strict=True))
    return {
        "gpuia_case": 1, "name": "pso_strip",
        "pipeline_state": {
            "input_layout": [
                {"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"},
                {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM"}],
            "vertex_shader": {"hlsl": VS}, "pixel_shader": {"hlsl": PS},
            "strip_cut_value": "0xFFFF", "primitive_topology_type": type_name,
            "num_render_targets": 1, "rtv_formats": ["R8G8B8A8_UNORM"],
            "stream_output": {"declaration": [{"SemanticName": "COLOR", "ComponentCount": 4}],
                              "targets": [{"slot": 0, "size": 6 * 16}]}},
        "vertex_buffers": [{"slot": 0, "stride": 20, "data": {"hex": data.hex()}}],
        "index_buffer": {"format": "R16_UINT",
                         "data": {"dtype": "<u2", "values": [0, 1, 0xFFFF, 3, 4, 5, 6]}},
        "primitive_topology": "TRIANGLESTRIP",
        "draw": {"DrawIndexedInstanced": {"IndexCountPerInstance": 7, "InstanceCount": 1}},
    }


def test_gpuia_check_runs_a_pipeline_state_case(gpu_device, tmp_path, capsys):
    path = tmp_path / "pso.json"
    path.write_text(json.dumps(case()))
    assert main(["check", str(path), "--raster"]) == 0
    out = capsys.readouterr().out
    assert "raster: OK: draw 0: 2 primitive(s)" in out
    assert "stream output: OK" in out
    # PrimitiveTopologyType LINE takes no TRIANGLESTRIP draw (rules 15.1): exit 2, one line.
    path.write_text(json.dumps(case("LINE")))
    assert main(["check", str(path)]) == 2
    captured = capsys.readouterr()
    assert "pipeline_state: PrimitiveTopologyType='LINE': takes no TRIANGLESTRIP draw" \
        in captured.err


def test_a_context_draw_against_the_type(gpu_device):
    layout = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}])
    vb = gpu_device.create_buffer(np.zeros(16, np.float32).tobytes(), bind="vertex_buffer")
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(layout, primitive_topology_type="LINE"))
    ctx.ia_set_vertex_buffers(0, [vb], [16], [0])
    ctx.ia_set_primitive_topology("LINESTRIP")
    ctx.draw_instanced(4, 1, 0, 0)  # LINESTRIP is of type LINE
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    with pytest.raises(InvalidDescError, match=r"takes no TRIANGLELIST draw.*rules 15\.1"):
        ctx.draw_instanced(3, 1, 0, 0)
    ctx.flush()
    with pytest.raises(InvalidDescError, match="PrimitiveTopologyType"):
        PipelineState(layout, primitive_topology_type="QUADS")


def test_gpuia_layout_checks_a_cpp_pipeline_state_as_one_case(gpu_device, capsys):
    # tests/data/layouts/pso_particles.cpp: one desc sets particleLayout and particleSO; with
    # its HLSL vertex shader they run as one case. The defaults draw 64 points x 3 instances:
    # 192 invocations, each one point streamed out (rules 9.2), all fitting the targets.
    data = Path(__file__).resolve().parents[1] / "data" / "layouts"
    assert main(["layout", "--check", str(data / "pso_particles.cpp"),
                 "--shader", str(data / "pso_particles.hlsl")]) == 0
    out = capsys.readouterr().out
    name = "pso_particles_particleLayout_particleSO"
    assert f"check: {name}: " in out
    assert "native: OK: 192/192 invocations match" in out
    assert "stream output: OK: NumPrimitivesWritten 192, PrimitivesStorageNeeded 192" in out
