"""``gpuia layout --shader vs.hlsl --check --cbuffer bN=FILE``: the constant buffers the check
draws with, from raw bytes or a JSON object of members by name packed by D3D's rules; the
report shows the bytes per 16-byte register. Expected bytes are hand-derived (column_major
float4x4: register c holds column c)."""

from __future__ import annotations

import json
import struct

from helpers import assert_one_error_line, gpuia_cli, gpuia_in_process

VS = """
cbuffer K : register(b0) { float4x4 M; };
float4 main(float3 pos : POSITION) : SV_Position { return mul(M, float4(pos, 1)); }
"""

CPP = """
#include <d3d12.h>
static const D3D12_INPUT_ELEMENT_DESC kIn[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};
static const D3D12_SO_DECLARATION_ENTRY kOut[] = { { 0, "SV_Position", 0, 0, 4, 0 } };
"""  # noqa: E501 - one element a line, as engines write them

# A translation by (5, 6, 7): column 3 is (5, 6, 7, 1).
M = [[1, 0, 0, 5], [0, 1, 0, 6], [0, 0, 1, 7], [0, 0, 0, 1]]
ONE, ZERO = "0000803f", "00000000"


def files(tmp_path):
    (tmp_path / "r.cpp").write_text(CPP)
    (tmp_path / "vs.hlsl").write_text(VS)
    (tmp_path / "k.json").write_text(json.dumps({"M": M}))


def test_members_by_name_are_packed_shown_checked_and_saved(tmp_path, gpu_device):
    files(tmp_path)
    proc = gpuia_cli("layout", tmp_path / "r.cpp", "--shader", tmp_path / "vs.hlsl", "--check",
                     "--cbuffer", f"b0={tmp_path / 'k.json'}", "--save-case", tmp_path / "saved")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"constant buffer b0 (cbuffer K): 64 bytes from {tmp_path / 'k.json'} " \
           f"(members by name)" in proc.stdout
    assert f"  c0     {ONE} {ZERO} {ZERO} {ZERO}\n" in proc.stdout
    assert f"  c1     {ZERO} {ONE} {ZERO} {ZERO}\n" in proc.stdout
    assert "  c3     0000a040 0000c040 0000e040 0000803f\n" in proc.stdout  # 5.0 6.0 7.0 1.0
    assert "stream output: OK" in proc.stdout and ": native: OK" in proc.stdout
    saved = json.loads((tmp_path / "saved" / "r_kOut.json").read_text())
    assert saved["constant_buffers"] == [{"slot": 0, "values": {"M": M}}]
    proc = gpuia_cli("validate", tmp_path / "saved" / "r_kOut.json")
    assert proc.returncode == 0, proc.stderr


def test_raw_bytes_and_json_report(tmp_path):
    files(tmp_path)
    raw = struct.pack("<4f", 1, 2, 3, 4) + bytes(48) + struct.pack("<f", 8)
    (tmp_path / "k.bin").write_bytes(raw)
    proc = gpuia_cli("layout", tmp_path / "r.cpp", "--shader", tmp_path / "vs.hlsl", "--no-gpu",
                     "--cbuffer", f"b0={tmp_path / 'k.bin'}")
    assert proc.returncode == 0, proc.stderr
    assert "(bytes)" in proc.stdout and "  c1..c3  zero\n" in proc.stdout
    assert "  c4     00000041\n" in proc.stdout  # 8.0; the last register is as long as given
    proc = gpuia_cli("layout", tmp_path / "r.cpp", "--shader", tmp_path / "vs.hlsl", "--no-gpu",
                     "--json", "--cbuffer", f"b0={tmp_path / 'k.json'}")
    doc = json.loads(proc.stdout)
    (cb,) = doc["constant_buffers"]
    assert cb["slot"] == 0 and cb["cbuffer"] == "K" and cb["form"] == "members by name"
    assert cb["registers"][0] == ONE + ZERO * 3 and cb["registers"][3] == \
        "0000a0400000c0400000e0400000803f"


def test_refusals_are_one_error_line(tmp_path):
    files(tmp_path)
    (tmp_path / "bad.json").write_text(json.dumps({"M": M, "Q": 1}))
    (tmp_path / "neg.json").write_text(json.dumps({"M": [[-1] * 3] * 4}))
    (tmp_path / "vs.wgsl").write_text(
        "struct K { s : f32 }\n@group(3) @binding(0) var<uniform> k : K;\n"
        "struct In { @location(0) POSITION : vec4<f32> }\n"
        "struct Out { @builtin(position) SV_Position : vec4<f32> }\n"
        "@vertex fn main(i : In) -> Out { var o : Out; o.SV_Position = i.POSITION * k.s; "
        "return o; }\n")
    # in this process: each refusal's line and exit status are what is tested
    base = ["layout", tmp_path / "r.cpp", "--no-gpu"]
    hlsl = [*base, "--shader", tmp_path / "vs.hlsl"]
    assert_one_error_line(gpuia_in_process(*hlsl, "--cbuffer", f"b0={tmp_path / 'bad.json'}"),
                          "--cbuffer b0", "cbuffer K (register b0): K.Q", "no member 'Q'")
    assert_one_error_line(gpuia_in_process(*hlsl, "--cbuffer", f"b0={tmp_path / 'neg.json'}"),
                          "K.M[0]", "a row of a column_major float4x4 takes a list of 4")
    assert_one_error_line(gpuia_in_process(*hlsl, "--cbuffer", f"b3={tmp_path / 'k.json'}"),
                          "--cbuffer b3", "reads no constant buffer in register b3 (it reads b0)")
    assert_one_error_line(gpuia_in_process(*hlsl, "--cbuffer", f"{tmp_path / 'k.json'}"),
                          "expected bN=FILE")
    assert_one_error_line(gpuia_in_process(*hlsl, "--cbuffer", f"b0={tmp_path / 'no.json'}"),
                          "--cbuffer b0: cannot read")
    assert_one_error_line(gpuia_in_process(*hlsl, "--cbuffer", f"b0={tmp_path / 'k.json'}",
                                           "--cbuffer", f"b0={tmp_path / 'k.json'}"), "given twice")
    assert_one_error_line(gpuia_in_process(*base, "--cbuffer", f"b0={tmp_path / 'k.json'}"),
                          "--cbuffer needs --shader")
    assert_one_error_line(gpuia_in_process(*base, "--shader", tmp_path / "vs.wgsl",
                                           "--cbuffer", f"b0={tmp_path / 'k.json'}"),
                          "is WGSL: give the bytes")
