"""The compile cache and the CPU build folder treat what is on disk as untrusted input.

Guarantees under test (gpuia.hlsl.cache, gpuia.hlsl.cpu): an entry is used only when it is a
regular file of bounded size in a folder private to this user, made for exactly the request (the
source text, not only the key), with every field of the declared type; the CPU reference is built
and run only from such a folder, or from a fresh private folder of the process's own, never from
a shared, predictable one. Each damage below was taken as good before (a traceback, another
shader's result, a hang, a read without end, an executable another user could swap).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gpuia.hlsl import cache, compile_shader

FRESH_TIMEOUT = 120  # seconds: a hang on a FIFO entry fails here instead of stalling the run

# A fresh process (empty memory caches): compiles argv[1] with Slang calls counted, builds and
# runs its CPU reference when argv[2] is "cpu", and prints (shader source, Slang calls,
# executable, SV_Position of POSITION0 = (1, 2, 3, 4), (mode, owner) of the executable's folder)
# pickled.
_FRESH = r"""
import os, pickle, sys
import numpy as np
from gpuia.hlsl import compile_shader, library
calls, real = [], library.compile_source
def spy(*a, **k):
    calls.append(1)
    return real(*a, **k)
library.compile_source = spy
shader = compile_shader(sys.argv[1])
exe = out = folder = None
if sys.argv[2] == "cpu":
    from gpuia.hlsl.cpu import cpu_shader
    built = cpu_shader(shader)
    exe = built.executable
    got = built.run({"POSITION0": np.array([[1, 2, 3, 4]], "<f4").view("<u4")},
                    np.zeros(1, np.uint32), np.zeros(1, np.uint32))
    out = got["SV_POSITION0"].view(np.float32).tolist()
    info = os.stat(os.path.dirname(exe))
    folder = (info.st_mode & 0o7777, info.st_uid)
sys.stdout.buffer.write(pickle.dumps((shader.source, len(calls), exe, out, folder)))
"""


def fresh(src: str, cache_dir, cpu: bool = False, **env) -> tuple:
    proc = subprocess.run([sys.executable, "-c", _FRESH, src, "cpu" if cpu else "-"],
                          capture_output=True, timeout=FRESH_TIMEOUT,
                          env=dict(os.environ, GPUIA_CACHE_DIR=str(cache_dir), **env))
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
    assert b"Traceback" not in proc.stderr
    return pickle.loads(proc.stdout)


def shader_src(factor: int, tag) -> str:
    """A vertex shader returning POSITION * factor; ``tag`` makes the text (and so the key)
    this test's own."""
    return (f"cbuffer K : register(b1) {{ float4 k; }};\n"
            f"float4 main(float4 p : POSITION) : SV_Position {{ return p * {factor}; }}\n"
            f"// {tag}\n")


def entry_of(folder: Path, kind: str) -> Path:
    (entry,) = (folder / kind).glob("*.json")
    return entry


def _shader(doc):
    """The shader of an HLSL entry (its value is the shader and its WGSL signature)."""
    return doc["value"]["__tuple"][0]


def _signature(doc):
    return doc["value"]["__tuple"][1]


def _leaf0(doc):
    return _shader(doc)["entry"]["leaves"]["__tuple"][0]


# -- entries whose contents are not what they claim ----------------------------------------------
DAMAGES = {
    "a leaf's count is text": lambda d: _leaf0(d).update(components="4"),
    "an int field holds a bool": lambda d: _leaf0(d).update(index=True),
    "a tuple field is a list": lambda d: _shader(d).update(defines=[]),
    "a field the class lacks": lambda d: _shader(d).update(extra=1),
    "a field missing": lambda d: _shader(d).pop("wgsl"),
    "no signature": lambda d: d["value"]["__tuple"].pop(),
    "a signature member's count is text":
        lambda d: _signature(d)["outputs"]["__tuple"][0].update(components="4"),
    "a signature of another entry point": lambda d: _signature(d).update(entry_point="main"),
    "a signature of another text": lambda d: _signature(d).update(source="fn f() {}"),
    "another class's tag": lambda d: _leaf0(d).update(__type="ConstantBuffer"),
    "a tuple of the wrong length": lambda d: _leaf0(d).update(matrix={"__tuple": [1, 2]}),
    "includes of another shape": lambda d: d.update(includes=[["a", 5]]),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_field_of_another_type_anywhere_is_not_trusted(tmp_path, damage):
    """Every field is checked against its declared type, however deep: the shader is compiled
    again (Slang called), never handed over damaged or ended in a traceback."""
    src = shader_src(3, tmp_path)
    compile_shader(src)
    entry = entry_of(tmp_path, "hlsl")
    doc = json.loads(entry.read_text())
    DAMAGES[damage](doc)
    entry.write_text(json.dumps(doc))
    source, calls, *_ = fresh(src, tmp_path)
    assert source == src and calls > 0


@pytest.fixture(autouse=True)
def _cache_here(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path))


def test_another_shaders_entry_under_this_key_is_not_used(tmp_path):
    """An entry copied under another request's key (its key field rewritten to match) is
    refused: the request it records, source text included, is compared whole."""
    a, b = shader_src(2, f"a {tmp_path}"), shader_src(7, f"b {tmp_path}")
    compile_shader(a)
    entry_a = entry_of(tmp_path, "hlsl")
    doc = json.loads(entry_a.read_text())
    compile_shader(b)
    (entry_b,) = set((tmp_path / "hlsl").glob("*.json")) - {entry_a}
    doc["key"] = entry_b.stem
    entry_b.write_text(json.dumps(doc))
    source, calls, *_ = fresh(b, tmp_path)
    assert source == b and calls > 0


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "too large"])
def test_an_entry_that_is_no_bounded_regular_file_is_not_read(tmp_path, kind):
    """A FIFO would block the read forever, /dev/zero never ends, a huge file fills memory: each
    is passed over at once and the shader compiled again."""
    src = shader_src(5, tmp_path)
    compile_shader(src)
    entry = entry_of(tmp_path, "hlsl")
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "link to /dev/zero":
        entry.symlink_to("/dev/zero")
    else:
        with open(entry, "wb") as f:
            f.truncate(cache.MAX_ENTRY_BYTES + 1)
    source, calls, *_ = fresh(src, tmp_path)
    assert source == src and calls > 0


def test_file_digest_reads_only_bounded_regular_files(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    plain = tmp_path / "plain"
    plain.write_bytes(b"abc")
    assert cache.file_digest(str(plain)) == hashlib.sha256(b"abc").hexdigest()
    assert cache.file_digest(str(fifo)) is None  # returns at once, nothing read
    assert cache.file_digest("/dev/zero") is None
    assert cache.file_digest(str(tmp_path / "absent")) is None


# -- folders other users could change -------------------------------------------------------------
def test_private_folder_means_owned_by_this_user_and_writable_by_no_other(tmp_path, monkeypatch):
    folder = tmp_path / "made"
    assert cache.private_folder(folder)  # made with mode 0700
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for mode, private in ((0o755, True), (0o775, False), (0o757, False), (0o1777, False)):
        folder.chmod(mode)
        assert cache.private_folder(folder) is private, oct(mode)
    folder.chmod(0o700)
    (tmp_path / "file").write_text("")
    assert not cache.private_folder(tmp_path / "file", create=False)
    monkeypatch.setattr(cache.os, "geteuid", lambda: os.getuid() + 1)  # another user's folder
    assert not cache.private_folder(folder)


def _script_executable(path: Path, marker: Path) -> str:
    """Replace ``path`` by a program that leaves ``marker`` (what a swapped executable would
    run); returns its hash."""
    path.unlink()
    path.write_text(f"#!/bin/sh\ntouch {marker}\nexit 0\n")
    path.chmod(0o755)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _record_digest(folder: Path, digest: str, executable: str | None = None) -> None:
    entry = entry_of(folder, "cpu")
    doc = json.loads(entry.read_text())
    doc["value"]["digest"] = digest
    if executable is not None:
        doc["value"]["executable"] = executable
    entry.write_text(json.dumps(doc))


def test_a_cpu_cache_folder_other_users_may_write_is_never_run_from(tmp_path):
    """A cpu folder with group/other write (another user could swap the executable and its
    record) is not used: the build goes to a private folder and runs right; the swapped
    program never runs."""
    src = shader_src(11, tmp_path)
    _, _, exe, out, folder_mode = fresh(src, tmp_path, cpu=True)
    assert Path(exe).parent == tmp_path / "cpu" and out == [[11.0, 22.0, 33.0, 44.0]]
    marker = tmp_path / "swapped-program-ran"
    _record_digest(tmp_path, _script_executable(Path(exe), marker))
    (tmp_path / "cpu").chmod(0o777)
    _, _, exe2, out2, _ = fresh(src, tmp_path, cpu=True)
    assert out2 == [[11.0, 22.0, 33.0, 44.0]]
    assert not marker.exists()
    assert Path(exe2).parent != tmp_path / "cpu"


def test_a_record_naming_an_executable_elsewhere_is_not_run(tmp_path):
    """The record's executable must be the file its key builds in the private folder: one
    naming another program (with that program's hash) is built again instead."""
    src = shader_src(13, tmp_path)
    fresh(src, tmp_path, cpu=True)
    marker = tmp_path / "other-program-ran"
    other = tmp_path / "elsewhere"
    other.write_text("x")
    _record_digest(tmp_path, _script_executable(other, marker), str(other))
    _, _, exe, out, folder_mode = fresh(src, tmp_path, cpu=True)
    assert out == [[13.0, 26.0, 39.0, 52.0]] and not marker.exists()
    assert Path(exe).parent == tmp_path / "cpu"


def test_without_a_cache_the_build_folder_is_private_new_and_removed(tmp_path):
    """GPUIA_CACHE_DIR=none: the CPU build goes to a new folder of mode 0700 under $TMPDIR
    (never the fixed $TMPDIR/gpuia-cpu, where a planted file broke every run and another user's
    folder was used), its user's alone while the process runs and gone when it ends."""
    planted = tmp_path / "gpuia-cpu"
    planted.write_text("planted by another user")
    src = shader_src(17, tmp_path)
    _, _, exe, out, folder_mode = fresh(src, "none", cpu=True, TMPDIR=str(tmp_path))
    assert out == [[17.0, 34.0, 51.0, 68.0]]
    assert folder_mode == (0o700, os.geteuid())  # while the process ran
    folder = Path(exe).parent
    assert folder.parent == tmp_path and folder.name.startswith("gpuia-cpu-")
    assert not folder.exists()  # removed at exit
    assert planted.read_text() == "planted by another user"
