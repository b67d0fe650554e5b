"""What more than one test module uses: the repository's paths and shared test data.

Imported by name (``from helpers import ...``): pytest puts tests/ on ``sys.path``
(``pythonpath`` in pyproject.toml), so every folder under tests/ sees this module. Nothing here
touches a GPU adapter when imported; the helpers that draw take a gpuia Device as an argument.
Expected values stay in the tests: a helper builds inputs or runs a step, it never computes what
a test asserts.
"""

from __future__ import annotations

from pathlib import Path

from gpuia.harness.case import load_case

# -- paths -------------------------------------------------------------------------------------
REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"
DATA = TESTS / "data"
GOLDEN_DIR = TESTS / "golden" / "wgsl"
EXAMPLE_CASES = REPO / "examples" / "cases"
# The command that rewrites the golden WGSL files (named in each file's header and in failures).
REGENERATE_GOLDEN = "pytest tests/unit/test_wgsl_golden.py --regenerate-golden"


# -- WGSL vertex shaders (tests/unit/test_wgsl_bounds.py, tests/gpu/test_wgsl_bounds_gpu.py) -----
BOUNDS_HEAD = ("struct VSIn { A: f32, SV_VertexID: u32 }\n"
               "struct VSOut { SV_Position: vec4<f32>, B: f32 }\n")


def array_shader(module: str = "", local: str = "", n: str = "N") -> str:
    """A vertex shader filling array ``big`` (declared by ``module`` or ``local``) with
    0, 1, 2, ... and returning B = big[(7 * SV_VertexID) % n] + A."""
    return (BOUNDS_HEAD + module + "@vertex fn main(input: VSIn) -> VSOut {\n"
            f"  {local}\n"
            "  var o: VSOut;\n"
            f"  for (var i = 0u; i < {n}; i++) {{ big[i] = f32(i); }}\n"
            f"  o.B = big[(input.SV_VertexID * 7u) % {n}] + input.A;\n"
            "  o.SV_Position = vec4<f32>(0.0, 0.0, 0.0, 1.0);\n"
            "  return o;\n"
            "}\n")


UNIFORM_HEAD = "@group(3) @binding(0) var<uniform> cb: {t};\n"
# A struct holding a matrix of {c} columns and 2 rows, then a vec4.
TWO_ROW_STRUCT = "struct S { m: mat{c}x2<f32>, x: vec4<f32> }"


def uniform_shader(decls: str, t: str, use: str) -> str:
    """A vertex shader declaring ``decls``, root constant buffer 0 as ``var<uniform> cb: t``,
    and B = ``r`` (computed by ``use``) + A."""
    return (BOUNDS_HEAD + decls + "\n" + UNIFORM_HEAD.format(t=t)
            + "@vertex fn main(input: VSIn) -> VSOut {\n"
            "  var o: VSOut;\n"
            f"  {use}\n"
            "  o.B = r + input.A;\n"
            "  o.SV_Position = vec4<f32>(0.0, 0.0, 0.0, 1.0);\n"
            "  return o;\n"
            "}\n")


# A WGSL vertex shader with a type error on line 5, column 7 (the ``x`` of ``let x``)
# (tests/unit/test_wgsl_diagnostics.py, tests/gpu/test_wgsl_diagnostics_gpu.py).
TYPE_ERROR_VS = """struct VSIn { @location(0) A: f32 }
struct VSOut { @builtin(position) SV_Position: vec4<f32>, B: f32 }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  let x: u32 = 1.5;
  o.SV_Position = vec4<f32>(input.A);
  return o;
}
"""


# -- semantic names that would end a WGSL comment or program -------------------------------------
# (tests/unit/test_wgsl_safe_text.py, tests/gpu/test_wgsl_safe_text_gpu.py)
ODD_NAMES = ["A\nB", "C\rD", "E\u2028F", "G\0H", "I\u2029J", "K\x85L"]


def odd_names_case(so: bool = False):
    """A point list of 3 vertices whose R32_FLOAT elements are named ``ODD_NAMES``; element k of
    vertex v holds 10 v + k. With ``so``, Stream Output records "A\\nB" and "G\\0H"."""
    layout = [{"SemanticName": n, "Format": "R32_FLOAT", "AlignedByteOffset": 4 * i}
              for i, n in enumerate(ODD_NAMES)]
    doc = {"gpuia_case": 1, "name": "odd_names", "input_layout": layout,
           "vertex_buffers": [{"slot": 0, "stride": 4 * len(ODD_NAMES),
                               "data": {"dtype": "float32",
                                        "values": [float(10 * v + k) for v in range(3)
                                                   for k in range(len(ODD_NAMES))]}}],
           "primitive_topology": "POINTLIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}}}
    if so:
        doc["stream_output"] = {"declaration": [{"SemanticName": "A\nB", "ComponentCount": 1},
                                                {"SemanticName": "G\0H", "ComponentCount": 1}],
                                "targets": [{"slot": 0, "size": 64}]}
    return load_case(doc)
