"""HLSL vertex shaders in case files through the command line: validate, run --backend cpu
and check (docs/case-format.md, ``vertex_shader`` with ``hlsl`` / ``hlsl_file`` and
``constant_buffers``), and every refusal as one ``error:`` line with exit status 2."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from helpers import EXAMPLE_CASES as CASES
from helpers import assert_one_error_line, gpuia_cli, gpuia_in_process, valid_case, write_case

SKINNED = CASES / "hlsl_skinned_particles.json"

VS = """
cbuffer K : register(b0) { float Scale; float2 Shift; };
struct O { float4 pos : SV_Position; float2 p : TEXCOORD0; uint id : TEXCOORD1; };
O main(float2 p : POSITION, uint vid : SV_VertexID) {
    O o; o.pos = float4(p, 0, 1); o.p = p * Scale + Shift; o.id = vid * 2 + 1; return o;
}
"""
# Scale @0, Shift @4 (a float2 packed into register 0 by D3D's rules)
CB = {"slot": 0, "data": {"hex": struct.pack("<3f", 3.0, 0.5, -1.0).hex()}}
SO = {"declaration": [{"Stream": 0, "SemanticName": "TEXCOORD", "SemanticIndex": 0,
                       "StartComponent": 0, "ComponentCount": 2, "OutputSlot": 0},
                      {"Stream": 0, "SemanticName": "TEXCOORD", "SemanticIndex": 1,
                       "StartComponent": 0, "ComponentCount": 1, "OutputSlot": 0}],
      "buffer_strides": [12], "targets": [{"slot": 0, "size": 48}]}


def hlsl_case(**overrides) -> dict:
    fields = {"vertex_shader": {"hlsl": VS}, "constant_buffers": [CB], "stream_output": SO}
    return valid_case(**dict(fields, **overrides))


def test_run_cpu_streams_the_shaders_outputs(tmp_path):
    """Points (0,0), (1,0), (0,1), (1,1): p * 3 + (0.5, -1) and SV_VertexID * 2 + 1, by hand."""
    proc = gpuia_cli("run", "--backend", "cpu", write_case(tmp_path, "vs", hlsl_case()))
    assert proc.returncode == 0, proc.stderr
    so = json.loads(proc.stdout)["stream_output"]
    words = np.frombuffer(bytes.fromhex(so["buffers"][0]["hex"]), "<u4").reshape(4, 3)
    np.testing.assert_array_equal(words[:, :2].view(np.float32),
                                  [[0.5, -1.0], [3.5, -1.0], [0.5, 2.0], [3.5, 2.0]])
    np.testing.assert_array_equal(words[:, 2], [1, 3, 5, 7])
    assert so["buffers"][0]["filled_size"] == 48
    assert so["statistics"] == {"NumPrimitivesWritten": 4, "PrimitivesStorageNeeded": 4}


def test_check_compares_the_shaders_stream_output(tmp_path, gpu_device):
    proc = gpuia_cli("check", write_case(tmp_path, "vs", hlsl_case()))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "stream output: OK" in proc.stdout
    assert "native: OK" in proc.stdout and "pulling: OK" in proc.stdout


def test_the_example_with_an_include_a_define_and_two_cbuffers(gpu_device):
    proc = gpuia_cli("validate", SKINNED)
    assert proc.returncode == 0, proc.stderr
    proc = gpuia_cli("check", SKINNED)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "stream output: OK" in proc.stdout


def test_hlsl_file_is_relative_to_the_case(tmp_path):
    (tmp_path / "shaders").mkdir()
    (tmp_path / "shaders" / "vs.hlsl").write_text(VS)
    path = write_case(tmp_path, "filed", hlsl_case(vertex_shader={"hlsl_file": "shaders/vs.hlsl"}))
    proc = gpuia_cli("validate", path, cwd="/")
    assert proc.returncode == 0, proc.stderr


def test_compile_error_is_one_line_at_the_users_line(tmp_path):
    bad = VS.replace("o.id = vid * 2 + 1;", "o.id = vid * 2 + no_such_name;")
    line = VS.splitlines().index("    O o; o.pos = float4(p, 0, 1); o.p = p * Scale + Shift; "
                                 "o.id = vid * 2 + 1; return o;") + 1
    err = assert_one_error_line(gpuia_cli("validate", write_case(tmp_path, "bad", hlsl_case(
        vertex_shader={"hlsl": bad}))), case="bad")
    assert f"vertex_shader.hlsl:{line}:" in err and "no_such_name" in err


def test_refusals_are_one_line(tmp_path):
    cases = {
        "no_cbuffer": (hlsl_case(constant_buffers=[]), "register b0"),
        "both_forms": (hlsl_case(vertex_shader={"hlsl": VS, "wgsl": "x"}), "exactly one"),
        "unknown_key": (hlsl_case(vertex_shader={"hlsl": VS, "optimize": 3}), "optimize"),
        "bad_layout": (hlsl_case(vertex_shader={"hlsl": VS, "matrix_layout": "diagonal"}),
                       "matrix_layout"),
        "bad_defines": (hlsl_case(vertex_shader={"hlsl": VS, "defines": ["A"]}), "defines"),
        "missing_file": (hlsl_case(vertex_shader={"hlsl_file": "nope.hlsl"}), "nope.hlsl"),
        "missing_input": (hlsl_case(vertex_shader={"hlsl": VS.replace(
            "float2 p : POSITION", "float2 p : NORMAL")}), "NORMAL0"),
        "texture": (hlsl_case(vertex_shader={
            "hlsl": "Texture2D<float4> T : register(t0);\n"
                    + VS.replace("o.p = p * Scale", "o.p = T.Load(int3(0, 0, 0)).xy * Scale")}),
                    "binds no texture"),
        "cbuffer_slot": (hlsl_case(constant_buffers=[{"slot": 14, "data": {"hex": "00"}}]),
                         "0..13"),
        "cbuffer_size": (hlsl_case(constant_buffers=[{"slot": 0, "data": {"hex": "00" * 65537}}]),
                         "4096 registers"),
        "cbuffer_twice": (hlsl_case(constant_buffers=[CB, CB]), "twice"),
        "so_unknown": (hlsl_case(stream_output=dict(SO, declaration=[
            dict(SO["declaration"][0], SemanticName="COLOR")])), "COLOR"),
    }
    for stem, (doc, needle) in cases.items():  # in this process: the line and exit status
        # are what is tested (a child process's refusal: the compile error test above)
        err = assert_one_error_line(gpuia_in_process("validate",
                                                     write_case(tmp_path, stem, doc)), case=stem)
        assert needle in err, (stem, err)


def test_without_slang_the_error_names_the_extra(tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, GPUIA_SLANG_LIBRARY=str(tmp_path / "no-libslang.so"))
    proc = subprocess.run([sys.executable, "-m", "gpuia", "validate",
                           str(write_case(tmp_path, "vs", hlsl_case()))], capture_output=True,
                          text=True, env=env, timeout=120)
    err = assert_one_error_line(proc, case="vs")
    assert "gpuia[hlsl]" in err


def test_wgsl_shaders_still_have_no_cpu_reference(tmp_path):
    wgsl = ("struct I { POSITION: vec2<f32> }\nstruct O { SV_Position: vec4<f32> }\n"
            "@vertex fn main(i: I) -> O { var o: O; o.SV_Position = vec4<f32>(i.POSITION, 0.0,"
            " 1.0); return o; }")
    src = write_case(tmp_path, "w", valid_case(vertex_shader={"wgsl": wgsl}))
    err = assert_one_error_line(gpuia_cli("run", "--backend", "cpu", src), case="w")
    assert "WGSL" in err


def test_wgsl_case_with_a_constant_buffer(tmp_path, gpu_device):
    """constant_buffers binds WGSL's @group(3) @binding(N) too; a missing one is refused."""
    wgsl = ("@group(3) @binding(1) var<uniform> k: vec4<f32>;\n"
            "struct I { POSITION: vec2<f32> }\nstruct O { SV_Position: vec4<f32> }\n"
            "@vertex fn main(i: I) -> O { var o: O; o.SV_Position = vec4<f32>(i.POSITION, 0.0,"
            " 1.0) * k; return o; }")
    doc = valid_case(vertex_shader={"wgsl": wgsl})
    err = assert_one_error_line(gpuia_cli("validate", write_case(tmp_path, "w", doc)), case="w")
    assert "@binding(1)" in err
    doc["constant_buffers"] = [{"slot": 1, "data": {"dtype": "<f4", "values": [1, 2, 3, 4]}}]
    proc = gpuia_cli("check", write_case(tmp_path, "w", doc))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_case_file_docs_example_is_what_the_spec_says():
    """The examples folder holds an HLSL case whose shader file is next to it."""
    doc = json.loads(SKINNED.read_text())
    assert (SKINNED.parent / doc["vertex_shader"]["hlsl_file"]).is_file()
    assert Path(SKINNED.parent / "hlsl" / "common.hlsli").is_file()


def test_html_report_shows_the_hlsl_source_signature_and_cbuffers(tmp_path, gpu_device):
    import html

    report = tmp_path / "r.html"
    proc = gpuia_cli("check", SKINNED, "--html", report)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = report.read_text()
    assert "<h3>Vertex shader (HLSL main in hlsl/skinned_particles.hlsl, column_major, " \
           "defines DAMPING=0.95)</h3>" in text
    source = (CASES / "hlsl" / "skinned_particles.hlsl").read_text()
    assert html.escape(source, quote=True) in text or html.escape(source, quote=False) in text
    # signature rows: declaration and HLSL type by semantic
    assert "<td>in</td><td>BLENDINDICES0</td><td>p.bones</td><td>uint4</td>" in text
    assert "<td>out</td><td>TEXCOORD0</td><td>return.tag</td><td>uint</td>" in text
    # cbuffer Frame: TimeStep @0, Wind (float2) @4 by D3D's packing, FrameIndex @12: 16 bytes,
    # and WGSL would put Wind at 8, so gpuia remaps it
    assert ("<td>b1</td><td>Frame</td><td>16</td><td>gpuia&#x27;s remap (WGSL lays it out "
            "otherwise)</td><td>TimeStep @0 (4 B), Wind @4 (8 B), FrameIndex @12 (4 B)</td>") \
        in text
    assert "<td>b0</td><td>Skeleton</td><td>192</td><td>as bound</td>" in text


def test_report_marks_tolerated_words_apart_from_differences():
    """SO words of a shader's float outputs within the tolerance are marked 'tol', not 'diff',
    and counted apart; a word beyond it, or outside the shader's words, is a difference."""
    import re

    from gpuia.harness.case import load_case
    from gpuia.harness.compare import compare_so, tolerated_bytes
    from gpuia.harness.crosscheck import CheckLine, CheckResult
    from gpuia.harness.report.html import case_view, render_report
    from gpuia.harness.run import reference_ia
    from gpuia.reference.stream_output import SOResult

    case = load_case({"gpuia_case": 1, "name": "tol",
                      "input_layout": [{"SemanticName": "POSITION",
                                        "Format": "R32G32B32A32_FLOAT"}],
                      "vertex_buffers": [{"slot": 0, "stride": 16, "data": {
                          "dtype": "float32", "values": [1, 2, 3, 4]}}],
                      "primitive_topology": "POINTLIST",
                      "draw": {"DrawInstanced": {"VertexCountPerInstance": 1}},
                      "stream_output": {"declaration": [{"SemanticName": "POSITION",
                                                         "ComponentCount": 4}],
                                        "targets": [{"slot": 0, "size": 16}]}})
    cpu = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    gpu = cpu.copy()
    gpu[1] = np.nextafter(np.float32(2.0), np.float32(3.0))  # 1 ULP: tolerated
    gpu[3] = 4.5  # beyond the tolerance
    mask = np.array([True, True, True, True])  # every word a float the shader computed
    ref = SOResult({0: cpu.tobytes()}, {0: 16}, {}, [], {0: mask})
    got = SOResult({0: gpu.tobytes()}, {0: 16}, {})
    tol = tolerated_bytes(ref, 0, ref.buffers[0], got.buffers[0])
    assert np.flatnonzero(tol).tolist() == [4, 5, 6, 7]
    problems = compare_so(ref, got)
    assert len(problems) == 1 and "1 shader float components beyond" in problems[0]
    line = CheckLine("tol: A: stream output", "DIFFERENT", "", path="stream output",
                     adapter="A", problems=problems, so_gpu=got)
    view = case_view(CheckResult("tol", [line], case_data=case, reference=reference_ia(case),
                                 so_reference=ref))
    (slot,) = view.runs[0].so_slots
    # 4.0 is 0x40800000 and 4.5 0x40900000: one byte differs
    assert (slot.tolerated_bytes, slot.differing_bytes) == (4, 1)
    assert {state for _, state in slot.rows[0].gpu} == {"", "tol", "diff"}
    gpu_cell = re.search(r'<td class="gpu">(.*?)</td>', render_report([view]), re.S).group(1)
    assert gpu_cell.count('class="tol"') == 4 and gpu_cell.count('class="diff"') >= 1


def test_a_directxtk_style_header_and_legacy_forms_validate(tmp_path):
    """The input struct (SV_Position) in an included header, fxc's `sampler`, and a C-style
    truncating cast: what DirectXTK's effects are written with validates as fxc compiles it."""
    (tmp_path / "Structures.fxh").write_text(
        "struct VSIn { float4 Position : SV_Position; float4 Extra : TEXCOORD0; };\n")
    (tmp_path / "vs.hlsl").write_text(
        '#include "Structures.fxh"\nsampler Sampler : register(s0);\n'
        "cbuffer K : register(b0) { float Scale; float2 Shift; };\n"
        "struct O { float4 pos : SV_Position; float2 p : TEXCOORD0; uint id : TEXCOORD1; };\n"
        "O main(VSIn v, uint vid : SV_VertexID) {\n"
        "    O o; o.pos = v.Position; o.p = (float2)v.Extra * Scale + Shift; o.id = vid;"
        " return o; }\n")
    doc = hlsl_case(vertex_shader={"hlsl_file": "vs.hlsl"}, input_layout=[
        {"SemanticName": "SV_Position", "Format": "R32G32_FLOAT"},
        {"SemanticName": "TEXCOORD", "Format": "R32G32_FLOAT", "AlignedByteOffset": 0}])
    proc = gpuia_cli("validate", write_case(tmp_path, "dtk", doc))
    assert proc.returncode == 0, proc.stderr


def test_a_missing_entry_point_with_defines_is_one_line_naming_it(tmp_path):
    doc = hlsl_case(vertex_shader={"hlsl": VS, "entry_point": "VSMain",
                                   "defines": {"SCALE": "2"}})
    err = assert_one_error_line(gpuia_cli("validate", write_case(tmp_path, "entry", doc)),
                                case="entry")
    assert "has no function VSMain" in err


def test_check_compares_the_ia_when_the_cpu_build_cannot_be_made(tmp_path, gpu_device):
    """A C++ compiler that refuses every build: the IA lines are compared as ever and the
    stream output line is 'not compared', saying why; the check still succeeds."""
    import os

    fake = tmp_path / "refusing-c++"
    fake.write_text("#!/bin/sh\necho 'refusing-c++: this build is refused' >&2\nexit 1\n")
    fake.chmod(0o755)
    env = dict(os.environ, CXX=str(fake), GPUIA_CACHE_DIR=str(tmp_path / "cache"))
    proc = gpuia_cli("check", write_case(tmp_path, "vs", hlsl_case()), env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "native: OK" in proc.stdout and "pulling: OK" in proc.stdout
    assert "stream output: not compared: the CPU reference of the HLSL shader could not be " \
           "built" in proc.stdout and "this build is refused" in proc.stdout
