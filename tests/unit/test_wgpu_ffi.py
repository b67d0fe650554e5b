"""gpuia.util.wgpu_ffi: wgpu-native's declarations loaded from the disk cache are the ones cffi's
own parse of wgpu-py's header gives (every type's size, every struct's fields and offsets, every
constant of the library), the process that loads them never parses (pycparser is not even
imported), and an entry that is not plain data, a file that is not regular, or no disk cache
falls back to wgpu-py's own parse."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import cffi
import pytest
from wgpu._coreutils import get_header_filename, get_library_filename

from gpuia.util.wgpu_ffi import load_ffi

HEADER = Path(get_header_filename("combined_header.h")).read_text()
LIBRARY = get_library_filename("libwgpu_native-release.so")


@pytest.fixture(scope="module")
def parsed():
    """The truth: the header parsed by cffi's classic FFI, as wgpu-py does at its import."""
    ffi = cffi.FFI()
    ffi.cdef(HEADER)
    return ffi


def _spelled(cname: str) -> str:
    """A type's name without the tag keywords (the two FFIs spell ``struct WGPUChainedStruct``
    and its typedef ``WGPUChainedStruct`` each its own way; the type is the same)."""
    return re.sub(r"\b(struct|union|enum) ", "", cname)


def _types(ffi) -> dict:
    """Every named type's size and alignment, and every struct's fields (name, offset, type)."""
    typedefs, structs, unions = ffi.list_types()
    out = {}
    for name in typedefs + [f"struct {s}" for s in structs] + [f"union {u}" for u in unions]:
        t = ffi.typeof(name)
        if t.kind == "function":
            out[name] = _spelled(t.cname)
            continue
        try:
            entry = [ffi.sizeof(t), ffi.alignof(t)]
        except (ValueError, getattr(ffi, "error", ValueError)):  # an opaque struct or void
            out[name] = ["opaque", _spelled(t.cname)]  # (a handle's target; no fields to read)
            continue
        if t.kind == "struct" and t.fields is not None:
            entry.append([(n, f.offset, _spelled(f.type.cname), f.bitsize) for n, f in t.fields])
        out[name] = entry
    return out


def _constants(lib) -> dict:
    """Every integer constant of the library, and the names neither FFI gives a value from a
    dlopen() library (typed ``static const`` flags: cffi refuses them, each FFI with its own
    exception, and wgpu-py does not use them)."""
    out = {}
    for name in dir(lib):
        try:
            value = getattr(lib, name)
        except Exception:  # noqa: BLE001
            out[name] = "refused"
            continue
        if isinstance(value, int):
            out[name] = value
    return out


def test_the_cached_declarations_are_the_parsed_ones(parsed, tmp_path):
    first = load_ffi(HEADER, tmp_path)  # made and stored
    again = load_ffi(HEADER, tmp_path)  # read back
    assert first is not None and again is not None
    assert len(list(tmp_path.iterdir())) == 1
    truth = _types(parsed)
    assert len(truth) > 400  # wgpu-py 0.32's header: hundreds of typedefs and structs
    for ffi in (first, again):
        assert _types(ffi) == truth
    expected = _constants(parsed.dlopen(LIBRARY))
    assert len(expected) > 500 and expected["WGPUBufferUsage_Vertex"] == 0x20  # webgpu.h's value
    assert _constants(again.dlopen(LIBRARY)) == expected
    assert sorted(dir(again.dlopen(LIBRARY))) == sorted(dir(parsed.dlopen(LIBRARY)))


def test_a_process_that_opens_wgpu_through_gpuia_parses_nothing(tmp_path):
    script = ("import sys, json, gpuia, wgpu.backends.wgpu_native._ffi as m\n"
              "print(json.dumps([type(m.ffi).__module__, 'pycparser' in sys.modules,"
              " m.lib.wgpuGetVersion() == m.lib_version_info[0] << 24 | "
              "m.lib_version_info[1] << 16 | m.lib_version_info[2] << 8 | "
              "m.lib_version_info[3]]))")
    env = {**os.environ, "GPUIA_CACHE_DIR": str(tmp_path)}

    def run(extra: dict) -> list:
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             check=True, timeout=120, env={**env, **extra})
        assert out.stderr == ""
        return json.loads(out.stdout)

    assert run({})[0] == "_cffi_backend"  # the first process makes the entry
    assert run({}) == ["_cffi_backend", False, True]  # later ones only read it
    # no disk cache: wgpu-py's own parse, its classic FFI
    assert run({"GPUIA_CACHE_DIR": "none"}) == ["cffi.api", True, True]


def _entry(arguments) -> bytes:
    """An entry as gpuia writes one: the payload and its SHA-256."""
    payload = marshal.dumps(arguments)
    return marshal.dumps((hashlib.sha256(payload).hexdigest(), payload))


@pytest.mark.parametrize("entry", [
    b"garbage",
    marshal.dumps(("0" * 64, marshal.dumps({"_version": 0x2601, "_types": b"\x00"}))),
    _entry({"_version": 0x2601, "_types": compile("1", "x", "eval")}),  # code: not plain data
    _entry({"_version": 0x2601, "_types": b"\x00", "_unknown": 1}),  # not an ABI keyword
    _entry({"_types": b"\x00"}),  # no version
    _entry([1, 2, 3]),
], ids=["garbage", "wrong-digest", "code-object", "unknown-keyword", "no-version", "list"])
def test_an_entry_that_is_not_what_gpuia_wrote_is_made_again(parsed, tmp_path, entry):
    load_ffi(HEADER, tmp_path)
    (path,) = tmp_path.iterdir()
    path.write_bytes(entry)
    ffi = load_ffi(HEADER, tmp_path)
    assert ffi is not None and _types(ffi) == _types(parsed)
    assert path.read_bytes() != entry  # replaced by a good entry


def test_an_entry_that_is_not_a_regular_file_is_not_read(parsed, tmp_path):
    load_ffi(HEADER, tmp_path)
    (path,) = tmp_path.iterdir()
    path.unlink()
    os.mkfifo(path)  # opening a FIFO without a writer (or reader) would wait for ever
    ffi = load_ffi(HEADER, tmp_path)
    assert ffi is not None and ffi.sizeof("WGPUBufferDescriptor") == \
        parsed.sizeof("WGPUBufferDescriptor")
    assert path.is_file()  # the entry made again replaced the FIFO


def test_a_header_cffi_cannot_parse_gives_none(tmp_path):
    assert load_ffi("typedef struct { int x; } Broken; Broken (*)(", tmp_path) is None
