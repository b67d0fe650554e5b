"""Constant buffers past b13 refused by the commands when the shader is compiled, before any
GPU work: ``gpuia validate`` (the case's HLSL) and ``gpuia layout --shader`` (a vertex shader
file), each with one ``error:`` line naming the register, the cbuffer and D3D11's 14 slots
(D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT); b13 is accepted by both. The commands run in
the test's process (``gpuia.cli.main``: their lines and exit statuses are what is tested)."""

from __future__ import annotations

from helpers import assert_one_error_line, gpuia_in_process, write_case


def shader(register: int) -> str:
    return (f"cbuffer Far : register(b{register}) {{ float k; }};\n"
            "float4 main(float4 p : POSITION) : SV_Position { return p + k; }\n")


def case(register: int) -> dict:
    return {"gpuia_case": 1,
            "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}],
            "vertex_buffers": [{"slot": 0, "stride": 16,
                                "data": {"dtype": "float32", "values": [0, 0, 0, 1]}}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 1}},
            "vertex_shader": {"hlsl": shader(register)},
            "constant_buffers": [{"slot": register, "data": {"hex": "0000803f"}}]}


def test_validate_refuses_b14_at_compile_time(tmp_path):
    ok = gpuia_in_process("validate", write_case(tmp_path, "b13", case(13)))
    assert ok.returncode == 0 and ok.stdout.startswith("ok: b13:"), ok.stderr
    err = assert_one_error_line(gpuia_in_process("validate",
                                                 write_case(tmp_path, "b14", case(14))),
                                "register(b14)", "cbuffer Far", "b0..b13",
                                "D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT", case="b14")
    assert "vertex_shader" in err


def test_layout_shader_refuses_b14_at_compile_time(tmp_path):
    (tmp_path / "layout.json").write_text(
        '[{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}]')
    (tmp_path / "b13.hlsl").write_text(shader(13))
    (tmp_path / "b14.hlsl").write_text(shader(14))
    ok = gpuia_in_process("layout", tmp_path / "layout.json", "--shader", tmp_path / "b13.hlsl",
                          "--no-gpu")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert_one_error_line(gpuia_in_process("layout", tmp_path / "layout.json",
                                           "--shader", tmp_path / "b14.hlsl", "--no-gpu"),
                          "register(b14)", "cbuffer Far",
                          "D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT")
