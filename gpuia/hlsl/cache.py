"""Compiled HLSL kept in memory and on disk, so a repeated run pays no compile.

A key covers everything a compile depends on: the source, entry point, stage, defines, matrix
layout, file name, include folders, the compiler (its library file's name, size and time) and
gpuia's own front end (a hash of its modules, so a new gpuia never reads an old rewrite). An
entry also records every file the source included, with a hash of its contents as the result
saw them (:func:`store`'s ``recorded``): an entry whose includes changed is compiled again.

The folder is ``$GPUIA_CACHE_DIR`` (``none`` turns the disk cache off), else
``$XDG_CACHE_HOME/gpuia``, else ``~/.cache/gpuia``; each kind of entry has a subfolder
(``hlsl``, ``cpu``). Files are written atomically (a temporary file renamed into place); a folder
that cannot be written only costs the compile next time.

Every entry is untrusted input. Guaranteed:

* a subfolder is used only when it is a folder owned by this user that no other user may write
  (:func:`private_folder`; gpuia makes it with mode 0700): a folder another user planted or can
  change is never read from, written to or run from;
* an entry is read only when it is a regular file of at most :data:`MAX_ENTRY_BYTES` (a FIFO,
  a device, ``/dev/zero`` behind a link are not read), and the files it depends on are hashed
  under the same rule;
* an entry is trusted only when its format, its key and the whole request it was made for (the
  source text included, not only the key's hash) are the ones asked for, and every field of the
  stored object has the type its class declares (:func:`decode`); anything else is ignored, as
  if there were no entry.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import stat
import subprocess
import threading
import types
import typing
from collections import OrderedDict
from pathlib import Path

from ..errors import GpuiaError
from ..util.cache_folder import cache_dir, entry_folder, private_folder, replace_entry
from ..util.files import read_input
from ..util.resources import shader_names, shader_placeholders, shader_text

__all__ = ["cache_dir", "private_folder", "entry_folder", "frontend_hash", "key_of",
           "request_of", "load", "store", "encode", "decode", "file_digest", "digests",
           "unchanged", "write_atomic", "MemoryCache", "MAX_ENTRY_BYTES"]

_FORMAT = 2
MAX_ENTRY_BYTES = 64 << 20
"""The largest cache entry read, and the largest file hashed for one (64 MiB: an entry is a few
kilobytes, an executable of the CPU reference well under a megabyte)."""


_FRONTEND: str | None = None


def frontend_hash() -> str:
    """A hash of gpuia's HLSL modules (what turns HLSL into gpuia's WGSL) and of the shader
    files they compile with the user's source: the C++ the CPU reference builds with (the
    ``.cpp`` files), the HLSL gpuia wraps around a geometry shader (the ``.hlsl`` files) and the
    format table and decoders a typed buffer's reads embed."""
    global _FRONTEND
    if _FRONTEND is None:
        h = hashlib.sha256()
        here = Path(__file__).resolve().parent
        for path in sorted(here.glob("*.py")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
        for name in shader_names():
            # a typed buffer's reads embed the vertex-pulling decoders (gpuia.hlsl.typed_buffers)
            if name.endswith((".cpp", ".hlsl")) or name in ("ia_decode.wgsl", "fetch_load.wgsl"):
                h.update(name.encode())
                # the file as it is: each placeholder filled with its own spelling
                h.update(shader_text(name, **{p: f"{{{{{p}}}}}" for p in
                                              shader_placeholders(name)}).encode())
        from ..d3d import formats

        # the reader the output must satisfy and its bounds (a cached signature is not read
        # again); the decoders
        from ..wgsl import bounds, fetch, signature, uniforms

        for module in (signature, bounds, uniforms, fetch, formats):
            h.update(Path(str(module.__file__)).read_bytes())
        _FRONTEND = h.hexdigest()[:16]
    return _FRONTEND


def _canonical(parts) -> str:
    return json.dumps(parts, sort_keys=True, default=str)


def key_of(*parts) -> str:
    """The key of a request: a hash of ``parts`` (JSON, anything else by its ``str``)."""
    return hashlib.sha256(_canonical(parts).encode()).hexdigest()


def request_of(*parts):
    """``parts`` as an entry records them: what :func:`load` compares, whole."""
    return json.loads(_canonical(parts))


def build_into(target: Path, command, limits, seconds: float) -> str | None:
    """Run the contained compile ``command(output)`` (:func:`gpuia.hlsl.sandbox.run`) with its
    output under a temporary name beside ``target``, then rename it to ``target``: a reader never
    sees a part-written file. Returns the output's SHA-256, None when the compile fails, times
    out or makes no regular file (the temporary file is removed whatever happens)."""
    from . import sandbox  # noqa: PLC0415 - the sandbox is needed only to build

    tmp = target.parent / f".{target.name}.{os.getpid()}.build"
    try:
        try:
            done = sandbox.run(command(str(tmp)), limits, seconds)
        except (OSError, subprocess.TimeoutExpired):
            return None
        digest = file_digest(str(tmp)) if done.returncode == 0 else None
        if digest is not None:
            os.replace(tmp, target)
        return digest
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def trusted_executable(path: Path, digest: str) -> bool:
    """Whether ``path`` is an executable gpuia built and may run: a regular file (not a link)
    of this user's that no other user may write, executable, whose SHA-256 is ``digest`` (the
    hash recorded when it was built)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and \
        not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and os.access(path, os.X_OK) and \
        file_digest(str(path)) == digest


def file_digest(path: str) -> str | None:
    """The SHA-256 of a regular file of at most :data:`MAX_ENTRY_BYTES`; None for anything
    else (absent, a FIFO, a device, too large, unreadable)."""
    try:
        return hashlib.sha256(read_input(path, MAX_ENTRY_BYTES)).hexdigest()
    except GpuiaError:
        return None


# -- a small codec for gpuia's frozen dataclasses -----------------------------------------------
def encode(value):
    """JSON-able form of dataclasses, tuples, lists and plain values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
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


def _fail(value, hint) -> typing.NoReturn:
    raise ValueError(f"{str(value)[:60]!r} is not {hint}")


def decode(value, hint):
    """``value`` as :func:`encode` wrote it, rebuilt as an object of the type ``hint`` (a
    dataclass, ``str``, ``int``, ``float``, ``bool``, ``None``, a union, ``tuple[X, ...]``,
    ``tuple[X, Y]``, ``list[X]`` or ``dict[K, V]``); every field is checked against its class's
    annotation, recursively. Raises ValueError for anything else (a field missing, extra or of
    another type, an ``int`` where a ``bool`` is declared, a container whose elements are not
    declared). The checks of each type are put together once per process
    (:func:`_decoder`), not worked out again for every value."""
    return _decoder(hint)(value)


@functools.cache
def _decoder(hint) -> typing.Callable:
    """The function that decodes (and checks) a value of the type ``hint``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is None or hint is type(None):
        return lambda v: None if v is None else _fail(v, hint)
    if origin in (typing.Union, types.UnionType):
        return _union(hint, args)
    if hint is bool or hint is str or hint is int:
        return lambda v: v if type(v) is hint else _fail(v, hint)
    if hint is float:
        return lambda v: float(v) if type(v) in (int, float) else _fail(v, hint)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _dataclass(hint)
    if origin is tuple and args:
        return _tuple(hint, args)
    if origin is list and args:
        item = _decoder(args[0])
        return lambda v: [item(x) for x in v] if isinstance(v, list) else _fail(v, hint)
    if origin is dict and args:
        return _dict(hint, args)

    def unknown(v):
        raise TypeError(f"gpuia's cache cannot check the type {hint!r}: declare its elements")
    return unknown


def _union(hint, args) -> typing.Callable:
    arms = [_decoder(a) for a in args]

    def decode_union(v):
        for arm in arms:
            try:
                return arm(v)
            except ValueError:
                pass
        _fail(v, hint)
    return decode_union


def _dataclass(hint: type) -> typing.Callable:
    declared = [f.name for f in dataclasses.fields(hint) if f.compare]
    allowed = {"__type", *declared}
    fields: list[tuple[str, typing.Callable]] = []  # filled on first use: hints may refer on

    def decode_dataclass(v):
        if not isinstance(v, dict) or v.get("__type") != hint.__name__ or not allowed >= v.keys():
            _fail(v, hint)
        if not fields:
            hints = typing.get_type_hints(hint)
            fields.extend((name, _decoder(hints[name])) for name in declared)
        given = {name: fn(v[name]) for name, fn in fields if name in v}
        try:
            return hint(**given)
        except TypeError:  # a field without a default is missing
            _fail(v, hint)
    return decode_dataclass


def _tuple(hint, args) -> typing.Callable:
    def items(v) -> list:
        if not isinstance(v, dict) or v.keys() != {"__tuple"} or \
                not isinstance(v["__tuple"], list):
            _fail(v, hint)
        return v["__tuple"]
    if len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])
        return lambda v: tuple([item(x) for x in items(v)])
    each = [_decoder(a) for a in args]

    def decode_fixed(v):
        got = items(v)
        if len(got) != len(each):
            _fail(v, hint)
        return tuple([fn(x) for fn, x in zip(each, got, strict=True)])
    return decode_fixed


def _dict(hint, args) -> typing.Callable:
    key, val = _decoder(args[0]), _decoder(args[1])

    def decode_dict(v):
        if not isinstance(v, dict) or v.keys() != {"__dict"} or not isinstance(v["__dict"], list):
            _fail(v, hint)
        out = {}
        for pair in v["__dict"]:
            if not isinstance(pair, list) or len(pair) != 2:
                _fail(v, hint)
            out[key(pair[0])] = val(pair[1])
        return out
    return decode_dict


def write_atomic(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` atomically (:func:`gpuia.util.cache_folder.replace_entry`:
    whatever is at ``path``, a FIFO included, is replaced); False when it cannot be written."""
    return replace_entry(path, data)


def digests(paths) -> list[tuple[str, str | None]]:
    """(path, content hash or None when absent) of files a result depends on."""
    return [(p, file_digest(p)) for p in paths]


def unchanged(recorded) -> bool:
    """Every recorded file still has its hash (absent ones are still absent)."""
    return all(file_digest(p) == d for p, d in recorded)


def load(kind: str, key: str, cls: type, request):
    """``(value, recorded)``: the ``cls`` object stored under ``key`` for ``request`` (the parts
    ``key`` was made of) and the (path, hash) it recorded of the files it depends on, every one
    unchanged; None for no entry, or for any entry not exactly that (see the module
    docstring)."""
    folder = entry_folder(kind)
    if folder is None:
        return None
    try:
        doc = json.loads(read_input(folder / f"{key}.json", MAX_ENTRY_BYTES))
        if not isinstance(doc, dict) or doc.get("format") != _FORMAT or doc.get("key") != key \
                or key != key_of(*request) or doc.get("request") != request_of(*request):
            return None
        recorded = decode(doc.get("includes"), tuple[tuple[str, str | None], ...])
        if not unchanged(recorded):
            return None
        return decode(doc["value"], cls), list(recorded)
    except (GpuiaError, ValueError, KeyError, RecursionError):
        return None


def store(kind: str, key: str, value, request, recorded=()) -> None:
    """Keep ``value`` under ``key`` for ``request`` (see :func:`load`) with ``recorded``, the
    (path, hash or None) of the files it depends on as the result saw them (:func:`digests`
    gives them as they are now); nothing happens without a usable folder."""
    folder = entry_folder(kind)
    if folder is None:
        return
    doc = {"format": _FORMAT, "key": key, "request": request_of(*request),
           "value": encode(value), "includes": encode(tuple(tuple(r) for r in recorded))}
    write_atomic(folder / f"{key}.json", json.dumps(doc).encode())


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
