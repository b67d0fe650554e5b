"""wgpu-py's C types parsed in one go, where wgpu-py would parse them one at a time.

wgpu-py talks to wgpu-native through cffi in ABI mode: each ``ffi.new("WGPUBufferDescriptor *")``
(and ``new_array``, ``cast``, ``callback``) names its C type as text, and cffi parses a text the
first time it meets it with pycparser, after a prelude that re-declares every typedef of
wgpu-native's header (432 of them in wgpu-py 0.32). Each first use costs about 25 ms on a
2-core machine, and one ``gpuia check`` of a small case meets about 60 of them: more than half
of its start-up. :func:`prefill` finds the type texts wgpu-py's backend uses (in its source,
where they are string literals), parses them all in one declaration (one prelude, about 30 ms)
and gives each text its type in cffi's cache of parsed texts, so wgpu-py finds them there.

Guaranteed: a text is given exactly the type object cffi's own parse of that text gives
(cffi keeps one object per type: tests/unit/test_wgpu_types.py checks every text against a
parse of its own); texts of a shape not handled here, or that do not parse, are left to cffi.
When wgpu-py or cffi is not what this module expects (another version, another backend), it
does nothing: wgpu-py then parses as before, slower, same behaviour. Nothing here changes a
type, a call or a result; only when the parsing happens. With the declarations loaded from
gpuia's disk cache (:mod:`gpuia.util.wgpu_ffi`, the usual case) cffi's C-level FFI parses type
texts itself in microseconds and this module finds nothing to do: it serves the parsed FFI of a
run without a disk cache.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

__all__ = ["prefill", "type_texts", "parsed_types"]

# What wgpu-py's backend passes a C type to, and the text's role: new_struct(T) makes a "T *".
_CALL = re.compile(r'\b(new_struct_p|new_struct|new_array|ffi\.new|ffi\.cast|ffi\.typeof|'
                   r'ffi\.callback)\(\s*"([^"]+)"\s*[,)]')
# The three shapes of type text this module turns into a parameter of one function type; any
# other text (a function pointer, a struct body) is left to cffi.
_NAME = r"[A-Za-z_][\w \t*]*"
_SHAPES = (
    ("function", re.compile(rf"\s*({_NAME})\(([\w \t*,]*)\)\s*")),  # void(A, B *): a callback
    ("array", re.compile(rf"\s*({_NAME})(\[\d*\])\s*")),  # T[] or T[4]
    ("plain", re.compile(rf"\s*({_NAME})\s*")),  # T, T *, T const *
)

_DONE = threading.Lock()
_STATE: dict = {}


def type_texts() -> list[str]:
    """The C type texts wgpu-py's wgpu-native backend gives cffi as string literals, in the
    order met, each once; ``[]`` when the backend's source cannot be read."""
    try:
        import wgpu.backends.wgpu_native as native  # noqa: PLC0415
        folder = Path(native.__file__).parent
        source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.py")))
    except (ImportError, OSError, UnicodeDecodeError, TypeError):
        return []
    texts: dict[str, None] = {}
    for call, text in _CALL.findall(source):
        texts[text + " *" if call == "new_struct" else text] = None
    return list(texts)


def _parameter(text: str) -> tuple[str, str] | None:
    """(a parameter declaration whose type leads to ``text``'s type, how) or None."""
    for shape, pattern in _SHAPES:
        m = pattern.fullmatch(text)
        if m is None:
            continue
        if shape == "function":  # a callback's function type: cffi keeps its pointer
            return f"{m.group(1)}(*)({m.group(2)})", shape
        if shape == "array":  # a pointer to the array: the array itself would decay
            return f"{m.group(1)}(*){m.group(2)}", shape
        return f"{m.group(1)} *", shape
    return None


def _parse(ffi, items: list[tuple[str, str, str]]) -> dict:
    """``{text: (type, is_function)}`` for ``items`` (text, parameter, shape) from one parse of
    a function type taking every parameter; a parse that fails is split in halves, and a text
    that fails alone is left out."""
    if not items:
        return {}
    try:
        function = ffi.typeof("void(*)(" + ", ".join(p for _, p, _ in items) + ")")
    except Exception:  # noqa: BLE001 - cffi's CDefError, pycparser's errors: split and retry
        if len(items) == 1:
            return {}
        half = len(items) // 2
        return {**_parse(ffi, items[:half]), **_parse(ffi, items[half:])}
    found = {}
    for (text, _, shape), ctype in zip(items, function.args, strict=True):
        found[text] = (ctype, True) if shape == "function" else (ctype.item, False)
    return found


def parsed_types(ffi, texts: list[str]) -> dict:
    """``{text: (cffi type, is_function)}``: the entry cffi's cache of parsed texts would hold
    for each of ``texts`` (a function type's entry is its pointer type, flagged), from one
    parse; texts of a shape not handled, or that do not parse, are absent."""
    items = []
    for text in texts:
        parameter = _parameter(text)
        if parameter is not None:
            items.append((text, *parameter))
    return _parse(ffi, items)


def prefill() -> int:
    """Give cffi, once per process, the types of every text :func:`type_texts` finds; returns
    how many texts were given (0 when wgpu-py or cffi is not as expected, and on later
    calls). Safe to call from several threads: one of them does the work."""
    with _DONE:
        if _STATE.get("done"):
            return 0
        _STATE["done"] = True
        try:
            from wgpu.backends.wgpu_native._ffi import ffi  # noqa: PLC0415
        except ImportError:
            return 0
        cache = getattr(ffi, "_parsed_types", None)  # cffi's cache of parsed type texts
        lock = getattr(ffi, "_lock", None)
        if not isinstance(cache, dict) or lock is None:
            return 0
        found = parsed_types(ffi, type_texts())
        with lock:
            for text, entry in found.items():
                cache.setdefault(text, entry)
        return len(found)
