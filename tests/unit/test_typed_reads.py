"""The typed buffer reads' decode switch and its specialisation to the bound view's format
(``gpuia.wgsl.typed_reads``; docs/resources.md): the specialised text keeps the bound format's
case, unchanged, and every other line of the program; a value without a case is refused.
DXGI values from dxgiformat.h: R8G8B8A8_UNORM 28, R16G16_SNORM 37, R8_UINT 62, R32_FLOAT 41."""

from __future__ import annotations

import re

import pytest

from gpuia.hlsl.typed_buffers import wgsl_helpers
from gpuia.wgsl.typed_reads import decode_switch, specialise

PROGRAM = "\n".join(["// the user's shader", wgsl_helpers(0, "A", "vec4<f32>"),
                     wgsl_helpers(3, "B", "vec2<f32>"), wgsl_helpers(5, "C", "u32"), "// end"])


def _cases(code: str, index: int) -> dict[int, str]:
    """DXGI value -> the text of its case in gpuia_tb_decode<index> (found by its own regex)."""
    body = code.split(f"fn gpuia_tb_decode{index}(", 1)[1].split("default:", 1)[0]
    return {int(m.group(1)): m.group(0)
            for m in re.finditer(r"(?ms)^ {8}case (\d+)u: \{.*?^ {8}\}\n", body)}


def test_the_full_switch_has_a_case_per_format_of_the_kind():
    floats = _cases(PROGRAM, 0)
    assert {28, 37, 41} <= set(floats) and 62 not in floats
    assert 62 in _cases(PROGRAM, 5) and 28 not in _cases(PROGRAM, 5)


def test_specialised_keeps_the_bound_case_and_every_other_line():
    bound = {0: 28, 3: 37, 5: 62}
    out = specialise(PROGRAM, tuple(bound.items()))
    # the program less the other cases' text (each names its view's word function: unique)
    want = PROGRAM
    for index, value in bound.items():
        for other, text in _cases(PROGRAM, index).items():
            assert re.search(rf"gpuia_tb_a?word{index}\(", text)
            if other != value:
                want = want.replace(text, "", 1)
    assert out == want
    for index, value in bound.items():
        assert _cases(out, index) == {value: _cases(PROGRAM, index)[value]}


def test_whole_word_elements_read_one_load_per_word():
    """An element of 4, 8, 12 or 16 bytes starts at a multiple of 4: R32G32B32A32_FLOAT (2),
    R16G16B16A16_FLOAT (10), R8G8B8A8_UNORM (28) read through the aligned loads; R16_FLOAT
    (54) and R8_UNORM (61), of 2 and 1 bytes, through the unaligned ones."""
    cases = _cases(PROGRAM, 0)
    for value, words in ((2, 4), (10, 2), (28, 1)):
        assert cases[value].count("gpuia_tb_aword0(b + ") == words
        assert "gpuia_tb_word0(" not in cases[value]
    for value in (54, 61):
        assert cases[value].count("gpuia_tb_word0(b + 0u)") == 1
        assert "gpuia_tb_aword0(" not in cases[value]


def test_only_the_views_named_are_specialised():
    out = specialise(PROGRAM, ((3, 37),))
    assert _cases(out, 0) == _cases(PROGRAM, 0) and set(_cases(out, 3)) == {37}
    assert specialise(PROGRAM, ()) == PROGRAM


@pytest.mark.parametrize("formats, words", [
    (((0, 62),), "typed view 0: the shader's element has no case for format value 62"),
    (((1, 28),), "typed view 1: no decode function"),
])
def test_refused(formats, words):
    with pytest.raises(ValueError, match=words):
        specialise(PROGRAM, formats)


def test_decode_switch_text():
    assert decode_switch(2, [(41, "R32_FLOAT", ["return vec4<u32>(1u);"])]) == (
        "fn gpuia_tb_decode2(f : u32, b : u32, inside : bool) -> vec4<u32>\n{\n"
        "    switch f {\n"
        "        case 41u: { // R32_FLOAT\n"
        "            return vec4<u32>(1u);\n"
        "        }\n"
        "        default: { return vec4<u32>(); }\n"
        "    }\n}")
