"""``#include`` resolved by gpuia (gpuia.hlsl.includes): every included file gets the same
rewrites as the shader's own file, Slang's preprocessor still decides the conditionals, and
every error points at the user's file and line.

Expected values come from D3D's rules and fxc's behaviour, worked out by hand in the comments:

* a vertex shader may read ``SV_Position`` from its input layout (rules 3.8), wherever the
  input struct is declared;
* cbuffer packing ("Packing rules for constant variables"): a matrix takes one 16-byte register
  per row when row_major (per column when column_major), the last one unpadded; every array
  element starts a register;
* fxc's preprocessor: ``#pragma once`` and ``#ifndef`` guards make a repeated include empty (a
  cycle they end included), an ``#include`` under an inactive ``#if`` is not read.
"""

from __future__ import annotations

import os

import pytest

from gpuia.errors import InvalidDescError
from gpuia.hlsl import compile_shader


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path / "cache"))


def write(folder, name: str, text: str):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def compile_file(path, **kw):
    return compile_shader(path.read_text(), source_path=str(path), file_name=path.name, **kw)


def refusal(excinfo) -> str:
    return str(excinfo.value)


# -- the rewrites reach included files ----------------------------------------------------------
def test_an_sv_position_input_struct_in_a_header_is_an_ordinary_input(tmp_path):
    """DirectXTK's effects declare VSInput { float4 Position : SV_Position; ... } in a header:
    an input-layout element like any other (rules 3.8), not Slang's E30702."""
    write(tmp_path, "Structures.fxh", "struct VSIn { float4 Position : SV_Position;\n"
                                      "               float3 Normal : NORMAL; };\n")
    vs = write(tmp_path, "vs.hlsl", '#include "Structures.fxh"\n'
               "float4 main(VSIn v) : SV_Position { return v.Position + v.Normal.xyzz; }\n")
    shader = compile_file(vs)
    assert [(lf.direction, lf.key, lf.components) for lf in shader.leaves] == [
        ("in", "SV_POSITION0", 4), ("in", "NORMAL0", 3), ("out", "SV_POSITION0", 4)]


def test_a_row_major_matrix_array_in_a_header_packs_by_rows(tmp_path):
    """row_major float4x3 Bones[2] (4 rows of 3): one register per row, so an element is 4
    registers, 64 bytes apart, and the last element's last row is unpadded (12 bytes):
    64 + 3 * 16 + 12 = 124 bytes. Read column-major it would be 3 registers of 4 floats an
    element: 48 + 48 = 96 bytes."""
    write(tmp_path, "bones.hlsli", "cbuffer Skin : register(b0) { row_major float4x3 Bones[2]; "
                                   "};\n")
    vs = write(tmp_path, "vs.hlsl", '#include "bones.hlsli"\n'
               "float4 main(float4 p : POSITION) : SV_Position\n"
               "{ return float4(mul(p, Bones[1]), 1); }\n")
    cb = compile_file(vs).constant_buffers[0]
    assert cb.size == 124
    offsets = {m.path: m.d3d for m in cb.members}
    for k in range(2):
        for r in range(4):
            for c in range(3):
                assert offsets[f"Skin.Bones[{k}][{r}][{c}]"] == 64 * k + 16 * r + 4 * c


def test_an_interpolation_pair_in_a_header_is_taken(tmp_path):
    """noperspective centroid (D3D_INTERPOLATION_LINEAR_NOPERSPECTIVE_CENTROID) in an included
    struct: WGSL's @interpolate(linear, centroid), not Slang's duplicate-modifier error."""
    write(tmp_path, "io.hlsli", "struct PSIn { noperspective centroid float4 c : COLOR0; };\n")
    ps = write(tmp_path, "ps.hlsl", '#include "io.hlsli"\n'
               "float4 main(PSIn i) : SV_Target { return i.c; }\n")
    assert compile_file(ps, stage="pixel").leaves[0].interpolation == "linear, centroid"


# -- what the preprocessor decides ----------------------------------------------------------------
def test_a_cycle_that_include_guards_make_empty_compiles(tmp_path):
    """a.h includes b.h includes a.h, both guarded (WickedEngine's ShaderInterop headers): fxc
    reads each once; Slang alone refuses the cycle (E15302)."""
    write(tmp_path, "a.h", '#ifndef A_H\n#define A_H\n#include "b.h"\n'
                           "struct A { float4 v : POSITION; };\n#endif\n")
    write(tmp_path, "b.h", '#ifndef B_H\n#define B_H\n#include "a.h"\n#define SCALE 2\n#endif\n')
    vs = write(tmp_path, "vs.hlsl", '#include "a.h"\n#include "b.h"\n'
               "float4 main(A a) : SV_Position { return a.v * SCALE; }\n")
    assert compile_file(vs).leaves[0].key == "POSITION0"


def test_pragma_once_reads_a_file_once_and_a_pragma_under_if_does_not_count(tmp_path):
    """once.h twice is one struct (a second would be a redefinition); twice.h's pragma is under
    an inactive #if, so its second inclusion counts and declares another function."""
    write(tmp_path, "once.h", "#pragma once\nstruct S { float4 v : POSITION; };\n")
    write(tmp_path, "twice.h", "#if 0\n#pragma once\n#endif\nfloat4 F(N)(float4 x) "
                               "{ return x * N; }\n#undef N\n")
    vs = write(tmp_path, "vs.hlsl", '#include "once.h"\n#include "once.h"\n'
               "#define CAT(a, b) a##b\n#define F(n) CAT(f, n)\n#define N 2\n#include \"twice.h\"\n"
               "#define N 3\n#include \"twice.h\"\n"
               "float4 main(S s) : SV_Position { return f2(s.v) + f3(s.v); }\n")
    assert compile_file(vs).leaves[0].key == "POSITION0"


def test_a_guard_undefined_elsewhere_lets_the_file_be_read_again(tmp_path):
    """h.h's guard H is #undef'd by vs.hlsl between two inclusions: fxc reads h.h twice, and
    the second time SECOND is defined, so both constants exist. (A guard no other file names
    would make the second inclusion empty; this one is named elsewhere, so it is kept.)"""
    write(tmp_path, "h.h", "#ifndef H\n#define H\n#ifdef SECOND\nstatic const float second = 2;"
                           "\n#else\nstatic const float first = 1;\n#endif\n#endif\n")
    vs = write(tmp_path, "vs.hlsl", '#include "h.h"\n#undef H\n#define SECOND\n#include "h.h"\n'
               "float4 main(float4 p : POSITION) : SV_Position { return p * first * second; }\n")
    assert compile_file(vs).leaves[0].key == "POSITION0"


def test_a_file_read_in_a_second_pass_is_rewritten_once(tmp_path):
    """m.h's guard M_H is named in vs.hlsl, so the files are read in a second pass: what the
    rewrites gathered in the first (here, the one #pragma pack_matrix) must not count twice."""
    from gpuia.hlsl.source import prepare

    write(tmp_path, "m.h", "#ifndef M_H\n#define M_H\n#pragma pack_matrix(row_major)\n"
                           "cbuffer K : register(b0) { float4x4 M; };\n#endif\n")
    vs = write(tmp_path, "vs.hlsl", '#include "m.h"\n#ifdef M_H\n#endif\n'
               "float4 main(float4 p : POSITION) : SV_Position { return mul(p, M); }\n")
    prepared = prepare(vs.read_text(), "vs.hlsl", "column_major", markers=True,
                       source_path=str(vs))
    assert prepared.pragmas == 1
    assert compile_file(vs).matrix_layout == "row_major"


def test_an_include_under_an_inactive_if_is_not_read(tmp_path):
    """#if 0 around an #include of a missing file: the preprocessor never reads it."""
    vs = write(tmp_path, "vs.hlsl", '#if 0\n#include "nowhere.h"\n#endif\n'
               "float4 main(float4 p : POSITION) : SV_Position { return p; }\n")
    assert compile_file(vs).leaves[0].key == "POSITION0"


def test_a_missing_include_is_refused_where_it_is_read(tmp_path):
    vs = write(tmp_path, "vs.hlsl", "#define X 1\n#if X\n#include \"nowhere.h\"\n#endif\n"
               "float4 main(float4 p : POSITION) : SV_Position { return p; }\n")
    with pytest.raises(InvalidDescError) as e:
        compile_file(vs)
    assert "vs.hlsl:3" in refusal(e) and "nowhere.h" in refusal(e)


def test_an_include_that_is_not_a_regular_file_is_refused_by_name(tmp_path):
    """A FIFO would block a reader for ever and /dev/zero never ends: neither is read."""
    os.mkfifo(tmp_path / "fifo.h")
    (tmp_path / "zero.h").symlink_to("/dev/zero")
    for name in ("fifo.h", "zero.h"):
        vs = write(tmp_path, "vs.hlsl", f'#include "{name}"\n'
                   "float4 main(float4 p : POSITION) : SV_Position { return p; }\n")
        with pytest.raises(InvalidDescError) as e:
            compile_file(vs)
        assert name in refusal(e) and "not a regular file" in refusal(e)


def test_an_include_nested_without_end_is_refused(tmp_path):
    """self.h includes itself with no guard: a preprocessor's depth limit ends it."""
    from gpuia.hlsl import includes as inc

    write(tmp_path, "self.h", '#include "self.h"\n')
    vs = write(tmp_path, "vs.hlsl", '#include "self.h"\n'
               "float4 main(float4 p : POSITION) : SV_Position { return p; }\n")
    with pytest.raises(InvalidDescError) as e:
        compile_file(vs)
    assert f"more than {inc.MAX_DEPTH} deep" in refusal(e)


def test_angle_brackets_search_only_the_include_folders(tmp_path):
    """#include <x> never looks next to the including file (as Slang, fxc and dxc)."""
    write(tmp_path / "src", "x.h", "#define V 1\n")
    write(tmp_path / "inc", "x.h", "#define V 2\n")
    vs = write(tmp_path / "src", "vs.hlsl", "#include <x.h>\n"
               "cbuffer K : register(b0) { float4 k[V + 1]; };\n"
               "float4 main(float4 p : POSITION) : SV_Position { return p + k[V]; }\n")
    # V = 2: k[3] is 3 registers, 48 bytes (k[2] read); V = 1 would make it 32
    assert compile_file(vs, include_dirs=[tmp_path / "inc"]).constant_buffers[0].size == 48
    with pytest.raises(InvalidDescError):
        compile_file(vs)


# -- the user's lines -----------------------------------------------------------------------------
def test_errors_name_the_included_file_and_the_users_lines_after_it(tmp_path):
    """An error in a header is at the header's line; one in the shader after an #include (and
    after an #if whose #include was skipped) is at the shader's own line."""
    header = write(tmp_path, "h.hlsli", "float4 helper(float4 x)\n{\n  return x * oops;\n}\n")
    vs = write(tmp_path, "vs.hlsl", '#include "h.hlsli"\n'
               "float4 main(float4 p : POSITION) : SV_Position { return helper(p); }\n")
    with pytest.raises(InvalidDescError) as e:
        compile_file(vs)
    assert f"{header}:3" in refusal(e) and "oops" in refusal(e)
    header.write_text("float4 helper(float4 x) { return x; }\n")
    vs.write_text('#include "h.hlsli"\n#ifdef NOPE\n#include "h.hlsli"\n#else\n'
                  "#define Z 0\n#endif\n"
                  "float4 main(float4 p : POSITION) : SV_Position\n{\n"
                  "  return helper(p) + missing_name;\n}\n")
    with pytest.raises(InvalidDescError) as e:
        compile_file(vs)
    assert "vs.hlsl:9" in refusal(e) and "missing_name" in refusal(e)


def test_location_reads_the_line_markers():
    from gpuia.hlsl import includes as inc

    text = 'a\n#line 1 "h.h"\nb\nc\n#line 3 "m.hlsl"\nd\n'
    assert inc.location(text, text.index("c"), "m.hlsl") == ("h.h", 2)
    assert inc.location(text, text.index("d"), "m.hlsl") == ("m.hlsl", 3)
    assert inc.location(text, 0, "m.hlsl") == ("m.hlsl", 1)


# -- what the cache watches -----------------------------------------------------------------------
def test_a_nested_include_is_watched_where_it_was_searched(tmp_path):
    """vs.hlsl includes "sub/a.h" (found in the include folder), which includes "b.h": searched
    next to a.h first (inc/sub/b.h, absent), then in the include folder (inc/b.h). A b.h put
    in inc/sub/ later wins, so the compile must not be served from the cache."""
    incl = tmp_path / "inc"
    write(incl, "sub/a.h", '#include "b.h"\n')
    write(incl, "b.h", "#define V 1\n")
    vs = write(tmp_path / "src", "vs.hlsl", '#include "sub/a.h"\n'
               "cbuffer K : register(b0) { float4 k[V + 1]; };\n"
               "float4 main(float4 p : POSITION) : SV_Position { return p + k[V]; }\n")
    first = compile_file(vs, include_dirs=[incl])
    assert first.constant_buffers[0].size == 32  # k[2]: two registers
    assert set(first.dependencies) == {str(incl / "sub" / "a.h"), str(incl / "b.h")}
    assert str(incl / "sub" / "b.h") in first.include_candidates
    write(incl, "sub/b.h", "#define V 3\n")
    assert compile_file(vs, include_dirs=[incl]).constant_buffers[0].size == 64  # k[4]


def test_a_header_changed_while_slang_compiles_is_compiled_again(tmp_path, monkeypatch):
    """h.h is read as V 1 and changes to V 3 while Slang compiles: the result (k[2], 32 bytes)
    is recorded with the hash of what the compile read, so the next compile sees the change
    (k[4], 64 bytes) instead of serving the old result under the new file's hash."""
    from gpuia.hlsl import library

    h = write(tmp_path, "h.h", "#define V 1\n")
    vs = write(tmp_path, "vs.hlsl", '#include "h.h"\n'
               "cbuffer K : register(b0) { float4 k[V + 1]; };\n"
               "float4 main(float4 p : POSITION) : SV_Position { return p + k[V]; }\n")
    compile_source = library.compile_source

    def compile_while_edited(*args, **kwargs):
        out = compile_source(*args, **kwargs)
        h.write_text("#define V 3\n")
        return out

    monkeypatch.setattr(library, "compile_source", compile_while_edited)
    assert compile_file(vs).constant_buffers[0].size == 32
    monkeypatch.setattr(library, "compile_source", compile_source)
    assert compile_file(vs).constant_buffers[0].size == 64


def test_a_header_removed_while_slang_compiles_is_still_watched(tmp_path, monkeypatch):
    """h.h is read, then removed while Slang compiles: the compile used it, so it is watched;
    the next compile finds it gone and says so instead of serving the result from the cache."""
    from gpuia.hlsl import library

    h = write(tmp_path, "h.h", "#define V 1\n")
    vs = write(tmp_path, "vs.hlsl", '#include "h.h"\n'
               "float4 main(float4 p : POSITION) : SV_Position { return p * V; }\n")
    compile_source = library.compile_source

    def compile_while_removed(*args, **kwargs):
        out = compile_source(*args, **kwargs)
        h.unlink(missing_ok=True)
        return out

    monkeypatch.setattr(library, "compile_source", compile_while_removed)
    assert compile_file(vs).dependencies == (str(h),)
    monkeypatch.setattr(library, "compile_source", compile_source)
    with pytest.raises(InvalidDescError, match="cannot find include file"):
        compile_file(vs)


def test_a_macro_named_include_is_left_to_slang(tmp_path):
    """#include HEADER (a macro) is Slang's to resolve, as before."""
    write(tmp_path, "h.h", "#define V 2\n")
    src = '#define HEADER "h.h"\n#include HEADER\n' \
          "float4 main(float4 p : POSITION) : SV_Position { return p * V; }\n"
    shader = compile_shader(src, include_dirs=[tmp_path])
    assert shader.dependencies == (str(tmp_path / "h.h"),)
