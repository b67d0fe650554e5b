"""The shader files (the top-level shaders/ folder) and their one reader,
gpuia.util.resources.shader_text: what it finds, how it fills placeholders, what it refuses.
Needs no adapter; the wheel's copy is read in tests/tools/test_package.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuia.errors import GpuiaError
from gpuia.util import resources
from gpuia.util.resources import shader_names, shader_placeholders, shader_text

ROOT = Path(__file__).resolve().parents[2]
SHADERS = ROOT / "shaders"


def test_a_checkout_reads_the_top_level_shaders_folder():
    assert Path(str(resources._folder())) == SHADERS
    files = sorted(p.name for p in SHADERS.iterdir() if p.suffix in (".wgsl", ".cpp", ".hlsl"))
    assert list(shader_names()) == files
    assert {"ia_decode.wgsl", "draw_auto.wgsl", "runner.cpp", "cpu_defined.cpp"} <= set(files)
    # Nothing else of the package holds shader text of its own any more.
    stray = [p for p in (ROOT / "gpuia").rglob("*") if p.suffix in (".wgsl", ".cpp", ".hlsl")]
    assert not stray, stray


@pytest.mark.parametrize("name", shader_names())
def test_a_file_without_placeholders_is_read_as_it_is_but_its_last_line_break(name):
    text = (SHADERS / name).read_text(encoding="utf-8")
    assert text.endswith("\n") and not text.endswith("\n\n"), name
    if not shader_placeholders(name):
        assert shader_text(name) == text[:-1]


@pytest.mark.parametrize("name", ["../gpuia/__init__.py", "shaders/ia_decode.wgsl", "nope.wgsl",
                                  "/etc/passwd", ""])
def test_a_name_that_is_no_shader_file_is_refused_listing_them(name):
    with pytest.raises(GpuiaError, match="no shader file .*it has .*ia_decode.wgsl.*runner.cpp"):
        shader_text(name)


@pytest.fixture
def template(monkeypatch):
    """A shader file of the test's own text, read as the real ones are."""
    def make(text: str) -> str:
        def read(name: str) -> str:
            assert name == "t.wgsl"
            return text

        monkeypatch.setattr(resources, "_read", read)
        return "t.wgsl"
    return make


def test_placeholders_are_filled_in_once_and_values_are_not_searched(template):
    name = template("fn {{NAME}}() -> u32 { return {{VALUE}}u; }  // {{NAME}}")
    assert shader_placeholders(name) == {"NAME", "VALUE"}
    assert (shader_text(name, NAME="f", VALUE=7)
            == "fn f() -> u32 { return 7u; }  // f")
    # A value's own text is never searched: user text that looks like a placeholder stays.
    assert shader_text(name, NAME="{{VALUE}}", VALUE=1) == (
        "fn {{VALUE}}() -> u32 { return 1u; }  // {{VALUE}}")


def test_a_placeholder_alone_on_its_line_takes_lines_indented_as_it_is(template):
    name = template("fn f() {\n  {{BODY}}\n  return;\n}")
    assert shader_text(name, BODY="let a = 1;\n\nif (a == 1) {\n  a = 2;\n}") == (
        "fn f() {\n  let a = 1;\n\n  if (a == 1) {\n    a = 2;\n  }\n  return;\n}")
    # An empty value removes the line, its break with it.
    assert shader_text(name, BODY="") == "fn f() {\n  return;\n}"


def test_an_empty_value_on_a_shared_line_leaves_the_line(template):
    name = template("a{{X}}b\n{{Y}}")
    assert shader_text(name, X="", Y="") == "ab\n"


@pytest.mark.parametrize("values, says", [
    ({"NAME": "f"}, "no value for VALUE"),
    ({"NAME": "f", "VALUE": 1, "EXTRA": 2}, "no placeholder for EXTRA"),
    ({}, "no value for NAME, VALUE"),
    ({"NAME": "f", "Value": 1}, "no value for VALUE; no placeholder for Value"),
])
def test_a_missing_or_unused_placeholder_is_refused(template, values, says):
    name = template("fn {{NAME}}() -> u32 { return {{VALUE}}u; }")
    with pytest.raises(GpuiaError, match=f"shader file t.wgsl: {says}$"):
        shader_text(name, **values)


def test_only_capitals_digits_and_underscores_make_a_placeholder(template):
    name = template("{{lower}} {{ SPACED }} {{A1_B}} {{1A}}")
    assert shader_placeholders(name) == {"A1_B"}
    assert shader_text(name, A1_B="x") == "{{lower}} {{ SPACED }} x {{1A}}"


@pytest.mark.parametrize("name", [n for n in shader_names() if n.endswith(".cpp")])
def test_the_cpu_references_cpp_has_no_placeholders(name):
    assert not shader_placeholders(name)


@pytest.mark.parametrize("file", ["runner.cpp", "ia_decode.wgsl", "fetch_load.wgsl"])
def test_the_hlsl_front_ends_cache_key_covers_the_cpp_files(monkeypatch, file):
    """The C++ the CPU reference builds with, and the decoders a typed buffer's reads embed."""
    from gpuia.hlsl import cache

    monkeypatch.setattr(cache, "_FRONTEND", None)
    before = cache.frontend_hash()
    real = resources._read

    def edited(name: str) -> str:
        return real(name) + ("\n// edited" if name == file else "")

    monkeypatch.setattr(resources, "_read", edited)
    monkeypatch.setattr(cache, "_FRONTEND", None)
    assert cache.frontend_hash() != before
