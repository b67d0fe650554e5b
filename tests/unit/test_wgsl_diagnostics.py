"""naga's diagnostics in the user's shader's lines (gpuia/wgsl/diagnostics.py).

Before the fix a WGSL error named the generated program's lines (the user's line 5 was the
program's line 70-odd on the pulling path, another on the native path) and was squeezed into one
line. Now the error's first line says "at line 5, column 7 of the vertex shader", and naga's
rendering follows, multi-line, with the user's line numbers. Here: the line mapping, by hand;
the errors of real draws and of the command line: tests/gpu/test_wgsl_diagnostics_gpu.py."""

from gpuia.wgsl.diagnostics import UserText, shader_diagnostic
from gpuia.wgsl.signature import parse_vertex_shader
from helpers import TYPE_ERROR_VS as BAD_VS


def test_the_rewritten_shader_keeps_every_line_and_column():
    sig = parse_vertex_shader(BAD_VS)
    assert [len(line) for line in sig.source.split("\n")] == \
        [len(line) for line in BAD_VS.split("\n")]
    assert sig.source.split("\n")[4] == BAD_VS.split("\n")[4]


NAGA = ("Validation Error\n\nCaused by:\n  In wgpuDeviceCreateShaderModule, label = 'p'\n\n"
        "Shader validation error: Function [1] 'g' is invalid\n"
        "   ┌─ :12:1\n   │\n12 │ ╭ fn g() -> f32 {\n13 │ │   return f(x);\n"
        "   │ │          ^^^^ invalid function call\n14 │ │ }\n   │ ╰─^ naga::ir::Function [1]\n"
        "   │\n   = Call to [0] is invalid\n\n\n      Call to [0] is invalid\n")


def test_mapping_of_a_rendering_by_hand():
    """The user's text starts at program line 10: program lines 12-14 are its lines 3-5;
    wgpu's wrapper and its repeated error chain are dropped."""
    code = "\n".join(f"// generated {k}" for k in range(1, 10)) + "\nA\nB\nfn g\nC\nD\nE"
    user = "A\nB\nfn g\nC\nD"
    e = shader_diagnostic(NAGA, code, [UserText("vertex shader", user)], "vertex shader",
                          "does not compile")
    assert e.summary == ("vertex shader: wgsl='...': does not compile at line 3, column 1 of "
                         "the vertex shader: validation error: Function [1] 'g' is invalid")
    assert e.diagnostic == (
        "   ┌─ vertex shader:3:1", "   │", " 3 │ ╭ fn g() -> f32 {", " 4 │ │   return f(x);",
        "   │ │          ^^^^ invalid function call", " 5 │ │ }",
        "   │ ╰─^ naga::ir::Function [1]", "   │", "   = Call to [0] is invalid")


def test_a_span_in_generated_code_says_so():
    code = "A\nB\n" + "\n".join(f"// gen {k}" for k in range(3, 20))
    message = "Shader 'x' parsing error: bad\n  ┌─ wgsl:12:3\n  │\n12 │ // gen 12\n"
    e = shader_diagnostic(message, code, [UserText("vertex shader", "A\nB")], "vertex shader",
                          "does not compile")
    assert "in gpuia's generated code (line 12 of the program" in e.summary
    assert e.diagnostic[0] == "  ┌─ gpuia's generated code:12:3"

