"""Compiled HLSL kept in memory and on disk, so a repeated run pays no compile.

A key covers everything a compile depends on: the source, entry point, stage, defines, matrix
layout, file name, include folders, the compiler (its library file's name, size and time) and
gpuia's own front end (a hash of its modules, so a new gpuia never reads an old rewrite). An
entry also records every file the source included, with a hash of its contents: an entry
whose includes changed is compiled again.

The folder is ``$GPUIA_CACHE_DIR`` (``none`` turns the disk cache off), else
``$XDG_CACHE_HOME/gpuia``, else ``~/.cache/gpuia``. Files are written atomically (a temporary
file renamed into place); a folder that cannot be written only costs the compile next time.
Guaranteed: a cache entry is never trusted unless its key, format and includes match; any
unreadable entry is ignored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path

__all__ = ["cache_dir", "frontend_hash", "key_of", "load", "store", "encode", "decode",
           "file_digest", "digests", "unchanged", "write_atomic", "MemoryCache"]

_FORMAT = 1


def cache_dir() -> Path | None:
    """The disk cache folder, or None when ``GPUIA_CACHE_DIR=none``."""
    named = os.environ.get("GPUIA_CACHE_DIR")
    if named is not None:
        return None if named.strip().lower() in ("", "none", "off", "0") else Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gpuia"


_FRONTEND: str | None = None


def frontend_hash() -> str:
    """A hash of gpuia's HLSL modules (what turns HLSL into gpuia's WGSL)."""
    global _FRONTEND
    if _FRONTEND is None:
        h = hashlib.sha256()
        here = Path(__file__).resolve().parent
        for path in sorted(here.glob("*.py")) + sorted(here.glob("*.cpp")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
        from ..wgsl import signature  # the reader the output must satisfy

        h.update(Path(signature.__file__).read_bytes())
        _FRONTEND = h.hexdigest()[:16]
    return _FRONTEND


def key_of(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def file_digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


# -- a small codec for gpuia's frozen dataclasses -----------------------------------------------
_TYPES: dict[str, type] = {}


def encode(value):
    """JSON-able form of dataclasses, tuples, lists and plain values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        _TYPES.setdefault(type(value).__name__, type(value))
        out = {"__type": type(value).__name__}
        for f in dataclasses.fields(value):
            if f.compare:  # fields that are not compared are derived again on load
                out[f.name] = encode(getattr(value, f.name))
        return out
    if isinstance(value, tuple):
        return {"__tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {"__dict": [[encode(k), encode(v)] for k, v in value.items()]}
    return value


def decode(value, types: Mapping[str, type]):
    if isinstance(value, list):
        return [decode(v, types) for v in value]
    if isinstance(value, dict):
        if "__tuple" in value:
            return tuple(decode(v, types) for v in value["__tuple"])
        if "__dict" in value:
            return {decode(k, types): decode(v, types) for k, v in value["__dict"]}
        cls = types[value["__type"]]
        return cls(**{k: decode(v, types) for k, v in value.items() if k != "__type"})
    return value


def write_atomic(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` through a temporary file in the same folder; False when the
    folder cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o644 if path.suffix != "" else 0o755)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return True
    except OSError:
        return False


def digests(paths) -> list[tuple[str, str | None]]:
    """(path, content hash or None when absent) of files a result depends on."""
    return [(p, file_digest(p)) for p in paths]


def unchanged(recorded) -> bool:
    """Every recorded file still has its hash (absent ones are still absent)."""
    return all(file_digest(p) == d for p, d in recorded)


def load(kind: str, key: str, types: Mapping[str, type], cls: type):
    """The ``cls`` object stored under ``key`` (the files it depends on unchanged), or None;
    anything unreadable or of another shape is None."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        doc = json.loads((folder / kind / f"{key}.json").read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != _FORMAT or doc.get("key") != key:
            return None
        if not unchanged([(str(p), d) for p, d in doc.get("includes", [])]):
            return None
        value = decode(doc["value"], types)
        return value if isinstance(value, cls) else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def store(kind: str, key: str, value, depends_on=()) -> None:
    folder = cache_dir()
    if folder is None:
        return
    doc = {"format": _FORMAT, "key": key, "value": encode(value),
           "includes": [list(pd) for pd in digests(depends_on)]}
    write_atomic(folder / kind / f"{key}.json", json.dumps(doc).encode())


class MemoryCache:
    """A bounded, thread-safe map of the most recently used entries."""

    def __init__(self, size: int = 256):
        self.size = size
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key, value):
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)
        return value

    def clear(self):
        with self._lock:
            self._data.clear()
