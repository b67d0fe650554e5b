"""The CPU build's precompiled header (gpuia.hlsl.pch): the same program as a build from the
whole text, kept in gpuia's private cache folder, and built again, never trusted, when it is
absent, damaged or replaced; no disk cache, no header."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from gpuia.hlsl import compile_shader, pch, sandbox
from gpuia.hlsl import cpu as hcpu

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

_SRC = """
cbuffer K : register(b0) { float4x4 M; float4 Tint; };
struct O { float4 pos : SV_Position; float4 c : COLOR; uint q : TEXCOORD0; };
O main(float3 p : POSITION, uint vid : SV_VertexID) {
    O o; o.pos = mul(M, float4(p, 1)); o.c = float4(p / 3.0, 1) * Tint; o.q = vid / 3u + %d;
    return o;
}
"""


def _build(k: int):
    hcpu._MEMORY.clear()  # the disk cache decides, as in a fresh process
    return hcpu.cpu_shader(compile_shader(_SRC % k))


def _run(shader) -> dict:
    p = np.zeros((5, 4), np.uint32)
    p[:, :3] = np.arange(15, dtype=np.float32).reshape(5, 3).view(np.uint32)
    m = np.arange(16, dtype=np.float32) / 8
    cb = np.r_[m, [1, 0.5, 0.25, 2]].astype(np.float32).tobytes()
    return shader.run({"POSITION0": p}, np.arange(5, dtype=np.uint32),
                      np.zeros(5, np.uint32), {0: cb})


def _headers(folder):
    return sorted(folder.glob("pch-*.h.gch"))


def test_the_build_from_the_header_is_the_same_program(tmp_path, monkeypatch):
    """The same machine code as the build from the whole text (objdump's disassembly), so the
    same values; the header and its .gch are in the private cpu folder."""
    if shutil.which("objdump") is None:
        pytest.skip("needs objdump")
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path / "with"))
    with_header = _build(1)
    assert len(_headers(tmp_path / "with" / "pch")) == 1
    assert (tmp_path / "with" / "cpu" / (with_header.executable.rsplit("/", 1)[1] + ".cpp")) \
        .read_text().startswith(f'#include "{tmp_path / "with" / "pch"}/pch-')
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path / "whole"))
    monkeypatch.setattr(pch, "precompiled", lambda *a, **k: None)
    whole = _build(1)
    assert _headers(tmp_path / "whole" / "pch") == []
    code = [subprocess.run(["objdump", "-d", "--no-show-raw-insn", s.executable],
                           capture_output=True, text=True, check=True).stdout.split("\n", 3)[3]
            for s in (with_header, whole)]
    assert code[0] == code[1]
    a, b = _run(with_header), _run(whole)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])


@pytest.mark.parametrize("damage", ["garbage", "link", "removed", "header"])
def test_a_stale_header_is_built_again(tmp_path, monkeypatch, damage):
    """A .gch that is not the one recorded (other bytes, a link, gone) or a header text that was
    changed is built again before the next shader uses it; that shader runs right."""
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path))
    first = _run(_build(2))
    (gch,) = _headers(tmp_path / "pch")
    built = gch.read_bytes()
    header = gch.with_suffix("")
    if damage == "garbage":
        gch.write_bytes(b"gpch" + b"\0" * 64)
    elif damage == "link":
        gch.unlink()
        (tmp_path / "elsewhere.gch").write_bytes(built)
        gch.symlink_to(tmp_path / "elsewhere.gch")
    elif damage == "removed":
        gch.unlink()
    else:
        header.write_text(header.read_text() + "\n#define planted 1\n")
    second = _run(_build(3))
    assert _headers(tmp_path / "pch") == [gch]
    assert not gch.is_symlink() and gch.stat().st_size > 1000
    assert "planted" not in header.read_text()
    np.testing.assert_array_equal(second["SV_POSITION0"], first["SV_POSITION0"])
    np.testing.assert_array_equal(second["TEXCOORD0"], first["TEXCOORD0"] + 1)


def test_a_sound_header_is_used_again(tmp_path, monkeypatch):
    """A second shader reads the same .gch, untouched (a rebuild would write it again)."""
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path))
    _build(4)
    (gch,) = _headers(tmp_path / "pch")
    before = gch.stat().st_mtime_ns, gch.stat().st_ino
    _build(5)
    assert _headers(tmp_path / "pch") == [gch]
    assert (gch.stat().st_mtime_ns, gch.stat().st_ino) == before


def test_no_disk_cache_no_header(monkeypatch):
    """Without a disk cache the build is made from its whole text (a header per process would
    cost more than it saves) and is right."""
    monkeypatch.setenv("GPUIA_CACHE_DIR", "none")
    out = _run(_build(6))
    np.testing.assert_array_equal(out["TEXCOORD0"][:, 0], [6, 6, 6, 7, 7])


def test_the_key_covers_flags_and_text(tmp_path, monkeypatch):
    """Another text or other flags: another header, never the first one's .gch."""
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path))
    cxx = hcpu.compiler()
    args = (sandbox.Limits(cpu_seconds=600, address_space=None, file_size=1 << 30), 600)
    a = pch.precompiled(cxx, hcpu.CXX_FLAGS, "int a();\n", *args)
    b = pch.precompiled(cxx, hcpu.CXX_FLAGS, "int b();\n", *args)
    c = pch.precompiled(cxx, (*hcpu.CXX_FLAGS, "-DX"), "int a();\n", *args)
    assert None not in (a, b, c) and len({a, b, c}) == 3
    assert pch.precompiled(cxx, hcpu.CXX_FLAGS, "int a();\n", *args) == a
