"""Bounds on WGSL shaders (gpuia/wgsl/bounds.py), checked before anything reaches wgpu.

Before the fix, a vertex shader with a large private or function array went to wgpu as it was:
``array<f32, 16384>`` took llvmpipe 31 s to build the pipeline, ``array<f32, 65536>`` more than
two minutes, ``array<f32, 100000000>`` never finished (or exhausted memory). Sizes here are
hand-derived from WGSL's SizeOf: an ``array<E, N>`` of 4-byte scalars is ``4 N`` bytes, nested
arrays multiply, and the limit is ``MAX_ARRAY_BYTES`` = 4096.
"""

import json
import subprocess
import sys

import pytest

from gpuia.errors import InvalidDescError
from gpuia.harness.case import load_case
from gpuia.wgsl.bounds import MAX_ARRAY_BYTES, MAX_SOURCE_BYTES, array_memory, check_shader_bounds
from gpuia.wgsl.signature import parse_vertex_shader
from helpers import TWO_ROW_STRUCT, array_shader, uniform_shader


def refusal(source: str) -> str:
    with pytest.raises(InvalidDescError) as e:
        check_shader_bounds(source)
    return str(e.value)


def test_the_limits_are_what_the_docs_say():
    assert MAX_ARRAY_BYTES == 4096 and MAX_SOURCE_BYTES == 1 << 20


@pytest.mark.parametrize("source, total", [
    (array_shader("var<private> big: array<f32, 1024>;\n", n="1024u"), 4096),
    (array_shader(local="var big: array<f32, 1024>;", n="1024u"), 4096),
    (array_shader("var<private> big: array<array<f32, 32>, 32>;\n"), 4096),  # 32 * (32 * 4)
    (array_shader("const K = 1000u;\nconst M: u32 = K + 24u;\n"
                  "var<private> big: array<f32, M>;\n"), 4096),
    (array_shader("var<private> big: array<vec4<f32>, (1 << 8)>;\n"), 4096),  # 256 * 16
    # a struct counts the arrays it holds (4 * 1024), not its other members
    (array_shader("struct T { pad: vec4<f32>, a: array<u32, 1024> }\n"
                  "var<private> big: T;\n"), 4096),
    (array_shader("var<private> big: array<f32, 512>;\n", "var c = big;"), 4096),  # a copy counts
])
def test_at_or_under_the_limit_passes(source, total):
    assert sum(u.array_bytes for u in array_memory(source)) == total
    check_shader_bounds(source)


@pytest.mark.parametrize("source, declaration, size, total", [
    (array_shader("var<private> big: array<f32, 1025>;\n", n="1025u"),
     "line 3: var<private> big: array<f32, 1025>", 4100, 4100),
    (array_shader(local="var big: array<f32, 1025>;", n="1025u"),
     "line 4: var big: array<f32, 1025>", 4100, 4100),
    (array_shader("var<private> big: array<array<f32, 32>, 33>;\n"),
     "line 3: var<private> big: array<array<f32, 32>, 33>", 4224, 4224),
    (array_shader("const K = 1000u;\nconst M: u32 = K + 25u;\nvar<private> big: array<f32, M>;\n"),
     "line 5: var<private> big: array<f32, M>", 4100, 4100),
    (array_shader("var<private> big: array<f32, 100000000>;\n"),
     "line 3: var<private> big: array<f32, 100000000>", 400000000, 400000000),
    (array_shader(local="var big: array<f32, 10000000>;"),
     "line 4: var big: array<f32, 10000000>", 40000000, 40000000),
    (array_shader("var<private> big: array<array<array<f32, 100000>, 100000>, 100000>;\n"),
     "line 3: var<private> big: array<array<array<f32, 100000>, 100000>, 100000>",
     4 * 10 ** 15, 4 * 10 ** 15),
    (array_shader("struct T { pad: vec4<f32>, a: array<u32, 1025> }\nvar<private> big: T;\n"),
     "line 4: var<private> big: T", 4100, 4100),
    (array_shader("var<private> big: array<f32, 513>;\n", "var c = big;"),  # 2052 twice
     "line 3: var<private> big: array<f32, 513>", 2052, 4104),
    (array_shader("alias Big = array<f32, 2048>;\nvar<private> big: Big;\n"),
     "line 4: var<private> big: Big", 8192, 8192),
    (array_shader(local="var big = array<f32, 2000>();"),
     "line 4: var big = array<f32, 2000>()", 8000, 8000),
])
def test_over_the_limit_is_refused_naming_the_declaration(source, declaration, size, total):
    message = refusal(source)
    assert f"vertex shader ({declaration.split(':')[0]}): {declaration.split(': ', 1)[1]} holds " \
           f"{size} bytes of arrays;" in message, message
    assert f"add up to {total} bytes per invocation" in message
    assert "over gpuia's limit of 4096 bytes" in message


@pytest.mark.parametrize("size_text, why", [
    ("foo(3)", "'foo(3)' is not an integer expression gpuia evaluates"),
    ("K", "'K' is an override, whose value gpuia cannot bound"),
    ("UNDECLARED", "'UNDECLARED' is not a const gpuia can evaluate"),
    ("2.5", "'2.5' is not an integer expression gpuia evaluates"),
])
def test_an_array_size_it_cannot_evaluate_is_refused(size_text, why):
    source = array_shader(f"override K: u32 = 4u;\nvar<workgroup> big: array<f32, {size_text}>;\n")
    message = refusal(source)
    assert f"line 4: var<workgroup> big: array<f32, {size_text}>: {why}" in message, message


def test_comments_and_uniform_buffers_hold_no_invocation_memory():
    source = array_shader("struct U { a: array<vec4<f32>, 1000> }\n"  # 16000 bytes, in a buffer
                    "@group(3) @binding(0) var<uniform> cb: U;\n"
                    "/* var<private> x: array<f32, 99999>; /* nested */ still a comment */\n"
                    "// var<private> y: array<f32, 99999>;\n"
                    "var<private> big: array<f32, 4>;\n")
    assert sum(u.array_bytes for u in array_memory(source)) == 16
    check_shader_bounds(source)
    # ... but copying the uniform into the invocation does
    copied = source.replace("var o: VSOut;", "var o: VSOut; let u = cb;")
    assert "let u = cb holds 16000 bytes of arrays" in refusal(copied)


def test_a_source_over_one_mib_is_refused():
    filler = "// " + "x" * 1000 + "\n"
    source = array_shader("var<private> big: array<f32, 4>;\n")
    big = source + filler * ((MAX_SOURCE_BYTES - len(source)) // len(filler))
    check_shader_bounds(big)  # just under: fine
    over = big + "x" * (MAX_SOURCE_BYTES - len(big) + 1)
    message = refusal(over)
    assert f"wgsl='{MAX_SOURCE_BYTES + 1} bytes': a WGSL source is at most 1048576 bytes" in message


@pytest.mark.parametrize("char, name", [("\0", "U+0000"), ("\ud800", "U+D800")])
def test_nul_and_lone_surrogates_are_refused(char, name):
    source = array_shader("var<private> big: array<f32, 4>;\n").replace("o.B =", char + "o.B =")
    assert f"wgsl='{name} at line 8': a WGSL source cannot hold a NUL" in refusal(source)


def test_the_vertex_shader_parser_applies_the_bounds():
    with pytest.raises(InvalidDescError, match="over gpuia's limit of 4096 bytes"):
        parse_vertex_shader(array_shader("var<private> big: array<f32, 1025>;\n", n="1025u"))


def test_the_refusal_happens_without_wgpu():
    """In a process where ``import wgpu`` fails, the case loader and the pipeline state refuse
    the shader with the limit; nothing of wgpu was ever needed."""
    src = array_shader("var<private> big: array<f32, 100000000>;\n")
    doc = {"gpuia_case": 1, "input_layout": [{"SemanticName": "A", "Format": "R32_FLOAT"}],
           "vertex_buffers": [{"slot": 0, "stride": 4, "data": {"dtype": "float32",
                                                                 "values": [1, 2, 3]}}],
           "primitive_topology": "POINTLIST", "vertex_shader": {"wgsl": src},
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}}}
    script = f"""
import json, sys
sys.modules["wgpu"] = None  # any import of wgpu now raises ImportError
from gpuia.harness.case import load_case
from gpuia.errors import InvalidDescError
from gpuia.gpu import PipelineState
doc = json.loads({json.dumps(json.dumps(doc))})
for attempt in (lambda: load_case(doc),
                lambda: PipelineState([{{"SemanticName": "A", "Format": "R32_FLOAT"}}],
                                      doc["vertex_shader"]["wgsl"]).signature):
    try:
        attempt()
        print("accepted")
    except InvalidDescError as e:
        print("refused:", str(e).splitlines()[0])
print("wgpu loaded:", sys.modules["wgpu"] is not None)
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 3 and lines[2] == "wgpu loaded: False", proc.stdout
    for line in lines[:2]:
        assert line.startswith("refused:") and "400000000 bytes" in line, line


def test_case_with_a_shader_over_the_limit_is_refused_by_the_loader():
    doc = {"gpuia_case": 1, "input_layout": [{"SemanticName": "A", "Format": "R32_FLOAT"}],
           "vertex_buffers": [{"slot": 0, "stride": 4, "data": {"dtype": "float32",
                                                                 "values": [1]}}],
           "primitive_topology": "POINTLIST",
           "vertex_shader": {"wgsl": array_shader(local="var big: array<f32, 1025>;", n="1025u")},
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 1}}}
    with pytest.raises(InvalidDescError, match=r"var big: array<f32, 1025> holds 4100 bytes"):
        load_case(doc)


# -- uniform loads naga aborts the process on (gpuia/wgsl/uniforms.py) ------------------------
# Measured with wgpu-py 0.32 in subprocesses: on Vulkan (lavapipe) each REFUSED shader aborted
# the process (naga back/spv/writer.rs:837 panics, exit 134); OpenGL (llvmpipe) ran them all.
# The uniform reads of tests/gpu/test_wgsl_bounds_gpu.py (ALLOWED) ran on both.
S2 = TWO_ROW_STRUCT  # short, for the table below
REFUSED = {
    "whole struct": (S2, "S", "let s = cb; let r = s.m[1][0];", "`cb`", "S", "cb"),
    "copied into a var": (S2, "S", "var s = cb; let r = s.m[1][0];", "`cb`", "S", "cb"),
    "phony assignment": (S2, "S", "_ = cb; let r = 0.0;", "`cb`", "S", "cb"),
    "through a pointer": (S2, "S", "let p = &cb; let s = *p; let r = s.m[1][0];", "`*p`",
                          "S", "cb"),
    "array of structs": (S2, "array<S, 2>", "let a = cb; let r = a[1].m[1][0];", "`cb`", "S",
                         "cb"),
    "array element": (S2, "array<S, 2>", "let s = cb[1]; let r = s.m[1][0];", "`cb[1]`", "S",
                      "cb"),
    "array of arrays element": (S2, "array<array<S, 2>, 2>", "let s = cb[1]; let r = 0.0;",
                                "`cb[1]`", "S", "cb"),
    "matrix array member": ("struct S { m: array<mat{c}x2<f32>, 2>, x: vec4<f32> }", "S",
                            "let s = cb; let r = s.m[1][1][0];", "`cb`", "S", "cb"),
    "alias": (S2 + "\nalias T = S;", "T", "let s = cb; let r = s.m[1][0];", "`cb`", "S", "cb"),
    "function argument": (S2 + "\nfn g(s: S) -> f32 { return s.m[1][0]; }", "S",
                          "let r = g(cb);", "`cb`", "S", "cb"),
}


@pytest.mark.parametrize("columns", [2, 3, 4])
@pytest.mark.parametrize("shape", sorted(REFUSED))
def test_whole_uniform_loads_of_structs_with_two_row_matrices_are_refused(shape, columns):
    decls, t, use, expr, struct, var = REFUSED[shape]
    member = (f"m: array<mat{columns}x2<f32>, 2>" if "array<mat" in decls
              else f"m: mat{columns}x2<f32>")
    with pytest.raises(InvalidDescError) as e:
        parse_vertex_shader(uniform_shader(decls.replace("{c}", str(columns)), t, use))
    message = str(e.value)
    assert message.startswith(f"vertex shader (line {7 + decls.count(chr(10))}): {expr} loads a "
                              f"whole value of struct {struct} from var<uniform> {var}, and "
                              f"{struct}'s member {member} is a matrix with 2 "
                              f"rows: naga (wgpu-py 0.32) aborts the process"), message

