"""``gpuia layout FILE --shader X.cso [--gs Y.cso] [--ps Z.cso]``: compiled shaders (FXC's and
DXC's blobs of tests/data/shaders/*.hlsl) linked as CreateGraphicsPipelineState links them: the
layout with the vertex shader's input rows (rules 3.7, 3.8), the stages register by register
(rules 14.1), SO declarations with each stream's outputs (rules 8.3). What links is read from
the HLSL sources by hand; the registers from the compilers' reflection beside each blob. Needs no
adapter (``--no-gpu``); the command runs in the test's process (``gpuia.cli.main``: its report,
lines and exit status are what is tested)."""

from __future__ import annotations

import json

import pytest

from helpers import DATA, assert_one_error_line, gpuia_in_process

BLOBS = DATA / "shaders" / "blobs"
VS = BLOBS / "vertex.main.vs_5_0.cso"
PS = BLOBS / "pixel.main.ps_5_0.cso"
GS = BLOBS / "geometry.streams.gs_5_0.cso"


def _element(name, fmt, offset):
    return {"SemanticName": name, "SemanticIndex": 0, "Format": fmt, "InputSlot": 0,
            "AlignedByteOffset": offset, "InputSlotClass": "PER_VERTEX_DATA",
            "InstanceDataStepRate": 0}


# vertex.hlsl's VSIn: POSITION (float3), TEXCOORD0 (float2), BLENDINDICES (uint4), SV_VertexID
FULL = [_element("POSITION", "R32G32B32_FLOAT", 0), _element("TEXCOORD", "R32G32_FLOAT", 12),
        _element("BLENDINDICES", "R8G8B8A8_UINT", 20)]


@pytest.fixture
def layouts(tmp_path):
    (tmp_path / "full.json").write_text(json.dumps(FULL))
    (tmp_path / "short.json").write_text(json.dumps(FULL[:2]))
    return tmp_path


@pytest.mark.parametrize("vs", ["vertex.main.vs_4_0", "vertex.main.vs_6_0"])
def test_a_matching_layout_links(layouts, vs):
    proc = gpuia_in_process("layout", layouts / "full.json", "--no-gpu", "--shader",
                            BLOBS / f"{vs}.cso")
    assert proc.returncode == 0, proc.stderr
    assert "BLENDINDICES0 (vec4<u32>, register 2)" in proc.stdout
    assert "lint: 0 error(s), 0 warning(s)" in proc.stdout


def test_a_missing_element_is_one_error_line(layouts):
    proc = gpuia_in_process("layout", layouts / "short.json", "--no-gpu", "--shader", VS)
    assert_one_error_line(proc, "E003", "BLENDINDICES0 (register 2)", "rules 3.8")


def test_a_pixel_shader_links_register_by_register(layouts):
    proc = gpuia_in_process("layout", layouts / "full.json", "--no-gpu", "--shader", VS, "--ps",
                            PS)
    assert proc.returncode == 0, proc.stderr
    # precision.hlsl's vertex shader writes no TEXCOORD1, which pixel.hlsl reads in v2
    proc = gpuia_in_process("layout", layouts / "full.json", "--no-gpu", "--shader",
                            BLOBS / "precision.main.vs_5_0.cso", "--ps", PS)
    line = assert_one_error_line(proc, "rules 3.8")  # the layout lacks OFFSET and ID first
    assert "OFFSET0 (register 1)" in line
    (layouts / "precision.json").write_text(json.dumps([
        _element("POSITION", "R32G32B32A32_FLOAT", 0), _element("OFFSET", "R32G32_SINT", 16),
        _element("ID", "R32_UINT", 24)]))
    proc = gpuia_in_process("layout", layouts / "precision.json", "--no-gpu", "--shader",
                            BLOBS / "precision.main.vs_5_0.cso", "--ps", PS)
    assert_one_error_line(proc, "E005", "pixel shader input TEXCOORD1 (register 2)",
                          "SEMANTICNAME_NOT_FOUND", "rules 14.1")
    assert "W013" in proc.stdout  # TEXCOORD0: min16float out, float in


def test_ps_needs_compiled_stages(layouts):
    proc = gpuia_in_process("layout", layouts / "full.json", "--no-gpu", "--ps", PS)
    assert_one_error_line(proc, "--ps", "compiled container")
    proc = gpuia_in_process("layout", layouts / "full.json", "--no-gpu", "--shader", VS,
                            "--ps", DATA / "shaders" / "pixel.hlsl")
    assert_one_error_line(proc, "--ps", "expected a compiled pixel shader")


def test_shader_must_be_a_vertex_shader(layouts):
    proc = gpuia_in_process("layout", layouts / "full.json", "--no-gpu", "--shader", PS)
    assert_one_error_line(proc, "stage='pixel'", "vertex shader")


def test_cbuffer_is_for_drawn_shaders(layouts, tmp_path):
    (tmp_path / "cb.bin").write_bytes(bytes(16))
    proc = gpuia_in_process("layout", layouts / "full.json", "--no-gpu", "--shader", VS,
                            "--cbuffer", f"b0={tmp_path / 'cb.bin'}")
    assert_one_error_line(proc, "--cbuffer", "does not draw it")


def test_no_case_is_saved_for_a_compiled_shader(layouts, tmp_path):
    out = tmp_path / "cases"
    proc = gpuia_in_process("layout", layouts / "full.json", "--no-gpu", "--json", "--shader",
                            VS, "--save-case", out)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["shader"]["inputs"][2] == {"semantic": "BLENDINDICES0", "type": "vec4<u32>",
                                          "register": 2}
    assert "does not draw it" in doc["arrays"][0]["check_skipped"]
    assert not list(out.iterdir())


def _so(tmp_path, second: str) -> str:
    doc = {"gpuia_case": 1, "input_layout": FULL, "primitive_topology": "LINELIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 2, "InstanceCount": 1,
                                      "StartVertexLocation": 0, "StartInstanceLocation": 0}},
           "stream_output": {"declaration": [
               {"Stream": 0, "SemanticName": "TEXCOORD", "SemanticIndex": 0,
                "StartComponent": 0, "ComponentCount": 2, "OutputSlot": 0},
               {"Stream": 1, "SemanticName": second, "SemanticIndex": 0,
                "StartComponent": 0, "ComponentCount": 1, "OutputSlot": 1}],
               "buffer_strides": [8, 4], "rasterized_stream": 0,
               "targets": [{"slot": 0, "size": 64}, {"slot": 1, "size": 64}]}}
    path = tmp_path / f"so_{second}.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("gs", ["geometry.streams.gs_5_0", "geometry.streams.gs_6_1"])
def test_a_compiled_geometry_shaders_streams(tmp_path, gs):
    proc = gpuia_in_process("layout", _so(tmp_path, "MARKER"), "--no-gpu", "--shader", VS,
                            "--gs", BLOBS / f"{gs}.cso", "--gs-topology", "LINELIST")
    assert proc.returncode == 0, proc.stderr
    assert "stream 1 (PointStream): SV_POSITION0 (vec4<f32>, register 0), MARKER0" in proc.stdout
    proc = gpuia_in_process("layout", _so(tmp_path, "TEXCOORD"), "--no-gpu", "--shader", VS,
                            "--gs", BLOBS / f"{gs}.cso")
    assert_one_error_line(proc, "E002", "stream 1", "rules 8.3")


def test_a_compiled_geometry_shaders_topology(layouts):
    proc = gpuia_in_process("layout", layouts / "full.json", "--no-gpu", "--shader", VS,
                            "--gs", GS, "--gs-topology", "TRIANGLELIST")
    assert_one_error_line(proc, "E004", "rules 13.2")
