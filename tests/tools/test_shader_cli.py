"""``gpuia shader FILE [--entry NAME] [--stage STAGE] [--json]`` (docs/case-format.md, "Command line
additions") on the blobs FXC and DXC compiled from tests/data/shaders/*.hlsl and on those HLSL
sources themselves. Expected rows come from the compilers' reflection recorded beside each blob
(tests/data/shaders/regen.py), never from gpuia. The command runs in the test's process
(``gpuia.cli.main``: its output and exit status are what is tested)."""

from __future__ import annotations

import json

import pytest

from gpuia.harness.shader_info import describe_file
from helpers import DATA, assert_one_error_line, gpuia_in_process

SHADERS = DATA / "shaders"
BLOBS = SHADERS / "blobs"
# d3dcommon.h's numbers, for the compilers' reflection
D3D_NAME = {0: "UNDEFINED", 1: "POSITION", 6: "VERTEX_ID", 7: "PRIMITIVE_ID",
            13: "FINAL_TRI_EDGE_TESSFACTOR", 14: "FINAL_TRI_INSIDE_TESSFACTOR", 64: "TARGET",
            65: "DEPTH"}
COMPONENT = {1: "UINT32", 2: "SINT32", 3: "FLOAT32"}
SPEC_KEYS = {"gpuia_shader", "file", "container", "stage", "shader_model", "input_signature",
             "output_signature", "patch_constant_signature", "geometry"}


def _reflection(name: str) -> dict:
    return json.loads((BLOBS / f"{name}.json").read_text())["reflection"]


def test_json_of_a_dxbc_geometry_shader():
    proc = gpuia_in_process("shader", BLOBS / "geometry.streams.gs_5_0.cso", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert SPEC_KEYS <= set(doc)
    assert (doc["gpuia_shader"], doc["container"], doc["stage"], doc["shader_model"]) == \
        (1, "DXBC", "geometry", "5_0")
    want = _reflection("geometry.streams.gs_5_0")
    assert doc["input_signature"] == [
        {**r, "SystemValueType": D3D_NAME[r["SystemValueType"]],
         "ComponentType": COMPONENT[r["ComponentType"]], "MinPrecision": "DEFAULT"}
        for r in want["input"]]
    assert doc["geometry"] == {"input_primitive": "line", "max_vertex_count": 4,
                               "instance_count": 2,
                               "output_topology": [{"stream": 0, "topology": "POINTLIST"},
                                                   {"stream": 1, "topology": "POINTLIST"}]}
    assert doc["checksum"]["status"] == "ok"


def test_text_of_a_dxil_pixel_shader():
    proc = gpuia_in_process("shader", BLOBS / "pixel.main.ps_6_0.cso")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("DXIL pixel shader, shader model 6_0")
    assert "checksum: none stored (zeros: unsigned)" in lines
    rows = [line.split() for line in lines if line.startswith("SV_")]
    assert ["SV_Target", "3", "3", "TARGET", "UINT32", "xy"] == rows[-2][:6]
    assert ["SV_Depth", "0", "N/A", "DEPTH", "FLOAT32", "x"] == rows[-1][:6]


def _comparable(rows: list, reflected: list) -> tuple[list, list]:
    """What an HLSL source fixes, from gpuia's rows and the compiler's: name (upper case),
    index, system value, component type, mask, stream."""
    ours = [(r["SemanticName"].upper(), r["SemanticIndex"], r["SystemValueType"],
             r["ComponentType"], r["Mask"], r["Stream"]) for r in rows]
    theirs = [(r["SemanticName"].upper(), r["SemanticIndex"], D3D_NAME[r["SystemValueType"]],
               COMPONENT[r["ComponentType"]], r["Mask"], r["Stream"]) for r in reflected]
    return ours, theirs


@pytest.mark.parametrize("source, entry, blob, stage", [
    ("vertex.hlsl", None, "vertex.main.vs_5_0", "vertex"),
    ("pixel.hlsl", None, "pixel.main.ps_5_0", "pixel"),
    ("geometry.hlsl", "streams", "geometry.streams.gs_5_0", "geometry"),
    # the file's other geometry shader, whose stream appends another record
    ("geometry.hlsl", "triangles", "geometry.triangles.gs_5_0", "geometry"),
])
def test_hlsl_signatures_agree_with_fxc(source, entry, blob, stage):
    doc = describe_file(str(SHADERS / source), entry)
    want = _reflection(blob)
    assert (doc["container"], doc["stage"], doc["entry_point"]) == ("HLSL", stage, entry or "main")
    for kind in ("input", "output"):
        ours, theirs = _comparable(doc[f"{kind}_signature"], want[kind])
        assert ours == theirs, kind
    assert all(r["Register"] is None and r["ReadWriteMask"] is None
               for r in doc["input_signature"] + doc["output_signature"])
    if stage == "geometry":
        assert doc["geometry"] == describe_file(str(BLOBS / f"{blob}.cso"))["geometry"]


def test_hlsl_stage_and_entry_options():
    proc = gpuia_in_process("shader", SHADERS / "geometry.hlsl", "--entry", "streams", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["stage"] == "geometry"
    err = assert_one_error_line(gpuia_in_process("shader", SHADERS / "vertex.hlsl", "--entry",
                                                 "nope"))
    assert "nope" in err


def test_bad_inputs_are_one_error_line(tmp_path):
    raw = (BLOBS / "vertex.main.vs_5_0.cso").read_bytes()
    (tmp_path / "cut.cso").write_bytes(raw[:500])
    assert_one_error_line(gpuia_in_process("shader", tmp_path / "cut.cso"), "header at byte 24",
                          "the total size 904 is not the file's size 500")
    (tmp_path / "noise.bin").write_bytes(bytes(range(256)) * 4)
    assert_one_error_line(gpuia_in_process("shader", tmp_path / "noise.bin"),
                          "not a shader container")
    (tmp_path / "noise.dat").write_bytes(b"\xff\xfe\x00" * 100)
    assert_one_error_line(gpuia_in_process("shader", tmp_path / "noise.dat"), "not a shader")
    assert_one_error_line(gpuia_in_process("shader", tmp_path / "missing.cso"))
    assert_one_error_line(gpuia_in_process("shader", BLOBS / "vertex.main.vs_5_0.cso", "--entry",
                                           "x"),
                          "--entry", "HLSL files")
