"""Golden text of the WGSL gpuia generates (tests/golden/wgsl/): one file per named spec of
tests/wgsl_goldens.py, whose docstring gives the layout, plus one file per library piece the
programs refer to (tests/golden/wgsl/pieces/).

Any change to the generated text shows as a diff of a golden file, as in Tint's transform tests:
a program's own text in its golden file, a library piece's (the decoders of ``ia_decode.wgsl``)
in its one piece file. Every program's full text stays pinned: its golden file with the pieces
put back is the program. These tests need no adapter and no wgpu device;
tests/gpu/test_wgsl_golden_gpu.py compiles each golden program on the adapter through gpuia's
own error mapping, so a golden file naga rejects cannot sit in the tree.

``pytest tests/unit/test_wgsl_golden.py --regenerate-golden`` rewrites the files. In that mode every
test here fails, naming the file it wrote, so that a regenerating run can never pass: review the
diff, then rerun without the flag.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from pathlib import Path

import pytest

from gpuia.d3d.formats import VERTEX_FORMATS
from gpuia.errors import GpuiaError, InvalidDescError
from gpuia.util import resources
from gpuia.wgsl.library import load_shader_source, shader_names
from gpuia.wgsl.program import CaptureRoute, ProgramSpec, vertex_program
from gpuia.wgsl.so_pass import SOVertexOrder
from helpers import GOLDEN_DIR, REGENERATE_GOLDEN
from wgsl_goldens import (
    CAPTURE_LAYOUT,
    GOLDENS,
    PIECES_DIR,
    expand,
    files_read,
    layout_of,
    pulling,
    reduce,
    so_host_list,
    so_strip_direct,
    split_header,
)


# -- the checks ----------------------------------------------------------------------------
def check_golden(path: Path, text: str, regenerate: bool) -> None:
    """Compare ``text`` with the golden file at ``path``; fail with a diff when they differ and
    with the command that creates it when the file is missing. ``regenerate``: write ``text``
    to ``path`` and fail, so that a regenerating run never passes."""
    if regenerate:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        pytest.fail(f"regenerated {path}: review the diff and rerun without --regenerate-golden",
                    pytrace=False)
    if not path.is_file():
        pytest.fail(f"missing golden file {path}: create it with `{REGENERATE_GOLDEN}`, review it, "
                    f"and rerun without --regenerate-golden", pytrace=False)
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = difflib.unified_diff(expected.splitlines(), text.splitlines(),
                                    f"{path.name} (golden)", f"{path.name} (generated)",
                                    lineterm="")
        shown = "\n".join(list(diff)[:200])
        pytest.fail(f"generated WGSL differs from {path}:\n{shown}\nIf the change is intended, "
                    f"run `{REGENERATE_GOLDEN}`, review the diff, and rerun without the flag",
                    pytrace=False)


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_generated_wgsl_matches_golden(name, regenerate):
    entry = GOLDENS[name]
    check_golden(entry.path, entry.text(), regenerate)


def _pieces_used() -> list[str]:
    return sorted({p for entry in GOLDENS.values() for p in reduce(entry.program())[1]})


@pytest.mark.parametrize("name", _pieces_used())
def test_library_piece_matches_golden(name, regenerate):
    """Each library piece a program refers to is pinned once, in its own golden file."""
    check_golden(PIECES_DIR / name, resources.shader_text(name) + "\n", regenerate)


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_a_golden_file_with_its_pieces_put_back_is_the_whole_program(name):
    entry = GOLDENS[name]
    if not entry.path.is_file():
        pytest.skip(f"{entry.path} is missing (test_generated_wgsl_matches_golden says so)")
    assert expand(split_header(entry.path.read_text(encoding="utf-8"))) == entry.program()


def test_every_golden_file_has_a_spec():
    """A golden file whose spec was removed or renamed, or a piece's that no program refers to
    any more, would never be checked again."""
    stray = sorted(p.name for p in GOLDEN_DIR.glob("*.wgsl") if p.stem not in GOLDENS)
    assert not stray, f"golden files without a spec in tests/wgsl_goldens.py: {stray}"
    pieces = sorted(p.name for p in PIECES_DIR.glob("*") if p.name not in _pieces_used())
    assert not pieces, f"piece golden files no golden program refers to: {pieces}"


def test_every_wgsl_shader_file_is_in_a_golden_program():
    """Every .wgsl file of shaders/ is read while a golden program is generated, so its text is
    pinned by a golden file and compiled in that program (tests/gpu/test_wgsl_golden_gpu.py)."""
    read = set().union(*(files_read(entry) for entry in GOLDENS.values()))
    unread = sorted(n for n in resources.shader_names() if n.endswith(".wgsl") and n not in read)
    assert not unread, f"shader files no golden program of tests/wgsl_goldens.py uses: {unread}"


def test_goldens_cover_every_channel_kind_of_the_format_table():
    """Every (channel kind, width) and every swizzle the format table uses appears in a fetch
    golden, so that each decode template's text is pinned."""
    kinds = {(c.kind, c.bits) for f in VERTEX_FORMATS.values() for c in f.channels}
    swizzles = {f.swizzle for f in VERTEX_FORMATS.values()}
    seen_kinds, seen_swizzles = set(), set()
    for entry in GOLDENS.values():
        spec = entry.build()
        if isinstance(spec, ProgramSpec) and not spec.native:
            for e in spec.layout.elements:
                seen_kinds |= {(c.kind, c.bits) for c in e.format.channels}
                seen_swizzles.add(e.format.swizzle)
    assert kinds - seen_kinds == set()
    assert swizzles - seen_swizzles == set()


def test_check_golden_fails_when_regenerating_missing_or_different(tmp_path):
    path = tmp_path / "g" / "x.wgsl"
    with pytest.raises(pytest.fail.Exception, match="missing golden file .*--regenerate-golden"):
        check_golden(path, "a\n", False)
    with pytest.raises(pytest.fail.Exception,
                       match="regenerated .*x.wgsl: review the diff and rerun without "
                             "--regenerate-golden"):
        check_golden(path, "a\n", True)
    assert path.read_text() == "a\n"
    check_golden(path, "a\n", False)  # the same text passes
    with pytest.raises(pytest.fail.Exception, match=r"(?s)differs from .*\n-a\n\+b\n"):
        check_golden(path, "b\n", False)
    with pytest.raises(pytest.fail.Exception, match="regenerated"):
        check_golden(path, "a\n", True)  # regenerating the same text fails too


# -- the spellings a spec accepts --------------------------------------------------------------
def test_capture_routes_and_so_orders_take_the_enum_or_its_value():
    """The specs above spell capture as True and the SO order as a string: the enum members
    and their values build the same spec, hence the same golden text."""
    layout = layout_of(*CAPTURE_LAYOUT)
    by_bool = pulling(layout, capture=True)
    for route in ("storage", CaptureRoute.STORAGE):
        spec = pulling(layout, capture=route)
        assert spec == by_bool and spec.capture is CaptureRoute.STORAGE
    targets = pulling(layout, capture=True, capture_group=0, capture_targets=2)
    for route in ("targets", CaptureRoute.TARGETS):
        spec = pulling(layout, capture=route, capture_group=0, capture_targets=2)
        assert spec == targets and spec.capture is CaptureRoute.TARGETS
    golden_text = GOLDENS["capture_targets_group0"].path.read_text(encoding="utf-8")
    assert vertex_program(pulling(layout, capture="targets", capture_group=0,
                                  capture_targets=2)) == expand(split_header(golden_text))
    assert pulling(layout).capture is None
    listed = so_host_list()
    assert listed.mode is SOVertexOrder.LIST
    assert replace(listed, mode=SOVertexOrder.LIST) == listed
    assert so_strip_direct().mode is SOVertexOrder.DIRECT


@pytest.mark.parametrize("capture, group, per_group, field", [
    ("texture", -1, 0, "route"),  # no such route
    ("targets", -1, 0, "capture_group"),  # the targets route needs a group
    ("targets", 0, 0, "capture_group"),  # ... of at least one vec4
    ("targets", 3, 1, "capture_group"),  # a record of 2 elements has 3 vec4s: group 3 is empty
    ("storage", 0, 2, "capture_group"),  # groups are the targets route's
    (False, 0, 2, "capture_group"),
])
def test_a_capture_spec_that_cannot_be_generated_is_refused(capture, group, per_group, field):
    layout = layout_of(*CAPTURE_LAYOUT)
    with pytest.raises(InvalidDescError) as err:
        pulling(layout, capture=capture, capture_group=group, capture_targets=per_group)
    assert err.value.field == field


def test_an_so_order_that_is_not_one_is_refused():
    with pytest.raises(InvalidDescError, match="must be direct or list"):
        replace(so_host_list(), mode="closed")


def test_the_wgsl_library_names_of_gpuia_0_1_read_the_shader_files():
    """gpuia.wgsl.load_shader_source reads a shader file without placeholders as the file holds
    it, through the one reader of shaders/; other names are refused, listing the WGSL files."""
    folder = Path(__file__).resolve().parents[2] / "shaders"
    assert "ia_decode.wgsl" in shader_names() and "runner.cpp" not in shader_names()
    assert load_shader_source("ia_decode.wgsl") == (folder / "ia_decode.wgsl").read_text(
        encoding="utf-8")
    for name in ("../gpuia/wgsl/program.py", "shaders/ia_decode.wgsl", "missing.wgsl",
                 "runner.cpp"):
        with pytest.raises(GpuiaError, match="no WGSL shader file .*it has .*ia_decode.wgsl"):
            load_shader_source(name)
    with pytest.raises(GpuiaError, match="draw_auto.wgsl: no value for DRAW_AUTO_BLOCK"):
        load_shader_source("draw_auto.wgsl")
