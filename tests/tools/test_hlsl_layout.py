"""``gpuia layout FILE --shader vs.hlsl[:entry]``: layouts linked with a real vertex shader's
input signature as CreateGraphicsPipelineState does (rules 3.7-3.9), SO declarations resolved
against its outputs, and ``--check`` drawing with it. Expected findings are the rules' own."""

from __future__ import annotations

import json

from gpuia.d3d.layout import InputLayout
from gpuia.harness.lint import link_findings, lint_layout
from gpuia.hlsl import compile_shader
from helpers import assert_one_error_line, gpuia_cli, gpuia_in_process

VS = """
cbuffer K : register(b0) { float4x4 M; };
struct VSIn { float3 pos : POSITION; float3 n : NORMAL; uint4 bones : BLENDINDICES;
              uint vid : SV_VertexID; };
struct VSOut { float4 pos : SV_Position; float3 n : NORMAL; uint id : TEXCOORD0; };
VSOut main(VSIn v) {
    VSOut o; o.pos = mul(M, float4(v.pos, 1)); o.n = v.n; o.id = v.bones.x + v.vid; return o;
}
float4 flat(float3 pos : POSITION) : SV_Position { return float4(pos, 1); }
"""

CPP = """
#include <d3d12.h>
static const D3D12_INPUT_ELEMENT_DESC kGood[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "NORMAL", 0, DXGI_FORMAT_R16G16B16A16_SNORM, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "BLENDINDICES", 0, DXGI_FORMAT_R8G8B8A8_UINT, 0, 20, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "TANGENT", 0, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 24, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};
static const D3D12_SO_DECLARATION_ENTRY kStream[] = {
    { 0, "SV_Position", 0, 0, 4, 0 }, { 0, "NORMAL", 0, 0, 3, 0 }, { 0, "TEXCOORD", 0, 0, 1, 0 },
};
"""  # noqa: E501 - one element a line, as engines write them


def layout(*elements) -> InputLayout:
    return InputLayout([{"SemanticName": n, "Format": f} for n, f in elements])


def codes(findings) -> list[tuple[str, str]]:
    return [(f.code, f.where) for f in findings]


def test_missing_input_is_e003_and_system_values_are_not_asked_for():
    sig = compile_shader(VS).signature
    found = link_findings(layout(("POSITION", "R32G32B32_FLOAT"),
                                 ("BLENDINDICES", "R8G8B8A8_UINT")), sig)
    assert codes(found) == [("E003", "shader input NORMAL0")]  # SV_VertexID: system value


def test_type_class_mismatch_is_w011_both_ways():
    sig = compile_shader(VS).signature
    found = link_findings(layout(("POSITION", "R32G32B32_UINT"), ("NORMAL", "R32G32B32_FLOAT"),
                                 ("BLENDINDICES", "R8G8B8A8_UNORM")), sig)
    assert [f.code for f in found] == ["W011", "W011"]
    assert "R32G32B32_UINT delivers UINT values to the shader's float input POSITION0" \
        in found[0].message
    assert "R8G8B8A8_UNORM delivers float values to the shader's uint input BLENDINDICES0" \
        in found[1].message


def test_extra_elements_and_snorm_for_float_are_fine():
    sig = compile_shader(VS).signature
    lay = layout(("POSITION", "R32G32B32_FLOAT"), ("NORMAL", "R16G16B16A16_SNORM"),
                 ("BLENDINDICES", "R8G8B8A8_UINT"), ("COLOR", "R8G8B8A8_UNORM"))
    assert link_findings(lay, sig) == []
    report = lint_layout(lay.to_dicts(), [], signature=sig)
    assert not [f for f in report.findings if f.code in ("E003", "W011")]


def test_sv_position_input_must_come_from_the_layout():
    sig = compile_shader("float4 main(float4 p : SV_Position) : SV_Position { return p; }"
                         ).signature
    assert codes(link_findings(layout(("POSITION", "R32G32B32A32_FLOAT")), sig)) == \
        [("E003", "shader input SV_POSITION0")]
    assert link_findings(layout(("SV_Position", "R32G32B32A32_FLOAT")), sig) == []


def test_layout_command_links_checks_and_saves(tmp_path, gpu_device):
    (tmp_path / "r.cpp").write_text(CPP)
    (tmp_path / "vs.hlsl").write_text(VS)
    proc = gpuia_cli("layout", tmp_path / "r.cpp", "--shader", f"{tmp_path / 'vs.hlsl'}:main",
                 "--check", "--save-case", tmp_path / "saved")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "shader: " in proc.stdout and "inputs: POSITION0 (vec3<f32>)" in proc.stdout
    assert "E003" not in proc.stdout and "W011" not in proc.stdout
    assert proc.stdout.count(": native: OK") == 2 and "stream output: OK" in proc.stdout
    saved = json.loads((tmp_path / "saved" / "r_kGood.json").read_text())
    assert saved["vertex_shader"]["hlsl_file"] == "../vs.hlsl"
    assert saved["constant_buffers"] == [{"slot": 0, "data": {"hex": ""}}]
    proc = gpuia_cli("validate", tmp_path / "saved" / "r_kGood.json", tmp_path / "saved" /
                 "r_kStream.json")
    assert proc.returncode == 0, proc.stderr


def test_layout_command_errors_and_werror(tmp_path):
    # in this process: the lines and exit statuses are what is tested
    (tmp_path / "r.cpp").write_text(CPP)
    (tmp_path / "vs.hlsl").write_text(VS)
    (tmp_path / "bad.hlsl").write_text(VS.replace("o.n = v.n;", "o.n = v.nope;"))
    # flat() reads only POSITION: kGood's extra elements are fine; but flat writes no NORMAL,
    # so kStream cannot be resolved against its outputs (E002), and the run exits 2.
    proc = gpuia_in_process("layout", tmp_path / "r.cpp", "--shader",
                            f"{tmp_path / 'vs.hlsl'}:flat", "--no-gpu")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    good, stream = proc.stdout.split("== ")[1:3]
    assert "lint: 0 error(s)" in good
    assert "E002" in stream and "NORMAL" in stream
    err = assert_one_error_line(gpuia_in_process("layout", tmp_path / "r.cpp",
                                                 "--shader", tmp_path / "bad.hlsl", "--no-gpu"),
                                case="layout")
    assert "bad.hlsl:7:" in err and "nope" in err
    err = assert_one_error_line(gpuia_in_process("layout", tmp_path / "r.cpp",
                                                 "--shader", tmp_path / "no.hlsl", "--no-gpu"),
                                case="layout")
    assert "no.hlsl" in err
    wrong = CPP.replace("DXGI_FORMAT_R32G32B32_FLOAT", "DXGI_FORMAT_R32G32B32_UINT")
    (tmp_path / "w.cpp").write_text(wrong)
    proc = gpuia_in_process("layout", tmp_path / "w.cpp", "--shader", tmp_path / "vs.hlsl",
                            "--no-gpu", "--werror")
    assert proc.returncode == 1 and "W011" in proc.stdout


def test_so_declaration_resolved_against_the_real_outputs(tmp_path):
    (tmp_path / "r.cpp").write_text(CPP.replace('"TEXCOORD", 0, 0, 1', '"COLOR", 0, 0, 1'))
    (tmp_path / "vs.hlsl").write_text(VS)
    proc = gpuia_cli("layout", tmp_path / "r.cpp", "--shader", tmp_path / "vs.hlsl", "--no-gpu")
    assert proc.returncode == 2
    assert "E002" in proc.stdout and "COLOR" in proc.stdout


def test_wgsl_shader_file_and_json_output(tmp_path):
    (tmp_path / "r.cpp").write_text(CPP)
    (tmp_path / "vs.wgsl").write_text(
        "struct I { POSITION: vec3<f32>, COLOR: vec4<f32> }\nstruct O { SV_Position: vec4<f32> }\n"
        "@vertex fn main(i: I) -> O { var o: O; o.SV_Position = vec4<f32>(i.POSITION, 1.0); "
        "return o; }\n")
    proc = gpuia_cli("layout", tmp_path / "r.cpp", "--shader", tmp_path / "vs.wgsl", "--no-gpu",
                 "--json")
    doc = json.loads(proc.stdout)
    assert doc["shader"]["language"] == "WGSL"
    assert [i["semantic"] for i in doc["shader"]["inputs"]] == ["POSITION0", "COLOR0"]
    good = next(a for a in doc["arrays"] if a["name"] == "kGood")
    assert [(f["code"], f["where"]) for f in good["findings"] if f["code"] == "E003"] == \
        [("E003", "shader input COLOR0")]
    assert proc.returncode == 2
