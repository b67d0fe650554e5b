"""gpuia.util.wgpu_types: wgpu-py's C types parsed in one go give exactly the types cffi's own
parse of each text gives (cffi keeps one object per type, so the check is identity)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from gpuia.util.wgpu_types import type_texts

# prefill works on wgpu-py's own FFI, the one it parses at its import: with no disk cache gpuia
# does not load the cached declarations of gpuia.util.wgpu_ffi, whose FFI parses type texts in C.
_PARSED = {**os.environ, "GPUIA_CACHE_DIR": "none"}

# Run in a fresh process: there nothing has filled cffi's cache yet, so ``ffi.typeof`` parses
# each text itself (the truth), before parsed_types builds its answers from one declaration.
_SCRIPT = r"""
import json
from cffi import CDefError
from wgpu.backends.wgpu_native._ffi import ffi
from gpuia.util.wgpu_types import parsed_types, type_texts

def truth(text):
    try:
        return ffi.typeof(text)
    except CDefError:  # a function type: cffi's entry is its pointer type
        return ffi.typeof(text.replace("(", "(*)(", 1))

extra = ["int[4]", "uint32_t []", "void(int, char *)", "unsigned int const *"]
texts = list(dict.fromkeys(type_texts() + extra))
expected = {t: truth(t) for t in texts}
found = parsed_types(ffi, texts + ["NoSuchType *", "struct { int x; }"])
print(json.dumps({
    "texts": len(texts),
    "given": sorted(found),
    "different": [t for t in texts if t in found and found[t][0] is not expected[t]],
    "functions": sorted(t for t, (_, f) in found.items() if f),
}))
"""


def test_every_text_is_given_the_type_cffi_parses_for_it():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         check=True, timeout=120, env=_PARSED)
    r = json.loads(out.stdout)
    # wgpu-py 0.32's backend names about a hundred types; each one given, none different
    assert r["texts"] > 50
    assert r["different"] == []
    assert len(r["given"]) == r["texts"]
    # a text that does not parse (an unknown name) is left out, the rest of its batch kept;
    # a shape the module does not handle (a struct body) is left to cffi
    assert "NoSuchType *" not in r["given"] and "struct { int x; }" not in r["given"]
    assert "int[4]" in r["given"] and "uint32_t []" in r["given"]
    # callbacks' function types are flagged, as cffi flags them, and nothing else is
    assert "void(int, char *)" in r["functions"]
    assert all("(" in t for t in r["functions"])


def test_the_texts_wgpu_py_uses_to_make_a_buffer_and_a_pipeline_are_found():
    texts = type_texts()
    # wgpu-py's create_buffer and create_render_pipeline (wgpu/backends/wgpu_native/_api.py)
    for text in ("WGPUBufferDescriptor *", "WGPURenderPipelineDescriptor *",
                 "WGPUVertexAttribute[]"):
        assert text in texts
    assert len(texts) == len(set(texts))


def test_a_second_prefill_does_nothing():
    script = ("from gpuia.util.wgpu_types import prefill\n"
              "first = prefill()\nprint(first, prefill())")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=120, env=_PARSED)
    first, second = map(int, out.stdout.split())
    assert first > 50 and second == 0
