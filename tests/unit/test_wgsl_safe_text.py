"""User text in generated WGSL (gpuia/wgsl/text.py): a semantic name holding a line break or a
NUL is data, not code. Before the fix the pulling path pasted the name into a ``//`` comment:
"\\n", "\\r" and U+2028 ended the comment (naga: "expected global item"), and "\\0" ended the
whole program (naga: "Unable to find entry point 'gpuia_vs'"), while ``validate`` and the CPU
reference accepted the case."""

import pytest

from gpuia.d3d.layout import InputLayout
from gpuia.harness.run import reference_ia
from gpuia.wgsl.program import ProgramSpec, vertex_program
from gpuia.wgsl.signature import pass_through_signature
from gpuia.wgsl.text import wgsl_comment_text
from helpers import ODD_NAMES, odd_names_case


@pytest.mark.parametrize("text, expected", [
    ("A\nB", "A\\nB"), ("C\rD", "C\\rD"), ("E\u2028F", "E\\u2028F"), ("G\0H", "G\\x00H"),
    ("I\u2029J", "I\\u2029J"), ("K\x85L", "K\\x85L"), ("tab\there", "tab\\there"),
    ("back\\slash", "back\\\\slash"), ("lone \ud800", "lone \\ud800"),
    ("zero\u200bwidth", "zero\\u200bwidth"), ("TEXCOORD é 1", "TEXCOORD é 1"),
])
def test_comment_text_escapes_what_would_end_a_comment(text, expected):
    assert wgsl_comment_text(text) == expected


def test_generated_program_keeps_semantic_names_inside_their_comments():
    layout = InputLayout([{"SemanticName": n, "Format": "R32_FLOAT", "AlignedByteOffset": 4 * i}
                          for i, n in enumerate(ODD_NAMES)])
    sig = pass_through_signature(layout)
    code = vertex_program(ProgramSpec(layout, sig, False, ((0, 0),), False))
    assert "\0" not in code and "\r" not in code and "\u2028" not in code
    assert "\u2029" not in code and "\x85" not in code
    comments = [line for line in code.split("\n") if line.startswith("// element ")]
    assert comments == [
        "// element 0: A\\nB0 R32_FLOAT at offset 0 of slot 0",
        "// element 1: C\\rD0 R32_FLOAT at offset 4 of slot 0",
        "// element 2: E\\u2028F0 R32_FLOAT at offset 8 of slot 0",
        "// element 3: G\\x00H0 R32_FLOAT at offset 12 of slot 0",
        "// element 4: I\\u2029J0 R32_FLOAT at offset 16 of slot 0",
        "// element 5: K\\x85L0 R32_FLOAT at offset 20 of slot 0",
    ]


def test_the_case_loader_and_the_cpu_reference_accept_the_names():
    ref = reference_ia(odd_names_case())
    assert list(ref.inputs) == [n + "0" for n in ODD_NAMES]
    # element 3 ("G\0H") of vertex v is 10 * v + 3: 3.0, 13.0, 23.0, then D3D's (0, 0, 1) fill
    assert ref.inputs["G\0H0"].bits.tolist() == [[0x40400000, 0, 0, 0x3F800000],
                                                 [0x41500000, 0, 0, 0x3F800000],
                                                 [0x41B80000, 0, 0, 0x3F800000]]

