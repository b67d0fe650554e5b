"""Slang's compiler library, loaded with ctypes: where it is, one session per process, one call.

gpuia compiles HLSL with Slang's C API (``spCreateCompileRequest`` ... ``spCompile``), offline,
from the ``libslang-compiler`` shared library that the ``slangpy`` wheel ships (the ``hlsl``
extra pins the version gpuia is verified with, :data:`VERIFIED_VERSION`). ``GPUIA_SLANG_LIBRARY``
names another copy of that library instead (a bare ``libslang-compiler`` file is all gpuia
needs; nothing of slangpy is imported).

Guaranteed: Slang runs in a worker process of its own (``gpuia.hlsl.worker``), started on the
first compile or earlier, in the background, by :func:`start_worker` (a command that knows it
will compile HLSL calls it before it opens its devices), where the library is loaded and the
session created once, as the worker starts, before it reads a request; compiles are
serialised (a Slang session is not thread-safe); a compile that fails raises
:class:`SlangError` with Slang's own diagnostics; a source that crashes Slang or keeps it busy
past the timeout costs only the worker, which the next compile starts again: nothing here aborts
or hangs the caller. Refused: no library found (:class:`~gpuia.errors.UnsupportedError` naming
``gpuia[hlsl]``). Never used: the vertex stage on Slang's CPU targets, which crashes inside the
library (the CPU reference compiles a compute wrapper instead, ``gpuia.hlsl.cpu``).
"""

from __future__ import annotations

import atexit
import base64
import ctypes
import glob
import importlib.util
import json
import os
import re
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from ..errors import GpuiaError, UnsupportedError
from ..util.child import Child, ChildFailed, ChildTimeout, setting
from . import emitted, wgsl_defined

__all__ = ["SlangError", "SlangOutput", "library_path", "library_identity", "compile_source",
           "check_wgsl", "session_seconds", "start_worker", "start_session", "VERIFIED_VERSION",
           "STAGES", "INSTALL_HINT", "PREPROCESS"]

VERIFIED_VERSION = "2026.12"
"""Slang's build tag in the slangpy 0.43.1 wheel: the compiler gpuia's rewrites are verified
with (several work around bugs of this version, docs/hlsl.md)."""

INSTALL_HINT = ("HLSL shaders need Slang's compiler: pip install 'gpuia[hlsl]' (or set "
                "GPUIA_SLANG_LIBRARY to a libslang-compiler shared library)")

STAGES = {"vertex": 1, "geometry": 4, "fragment": 5, "compute": 6}
"""SlangStage values of the stages gpuia compiles."""

PREPROCESS = "preprocess"
"""The ``target`` of :func:`compile_source` that runs only Slang's preprocessor (its ``-E``,
``-output-preprocessor``): the reply's code is the token stream Slang's parser would read (the
defines, includes and ``##`` pastes applied, comments gone), one space after every token."""

_LANGUAGE_HLSL = 2  # SLANG_SOURCE_LANGUAGE_HLSL
_WRITER_STD_OUTPUT = 1  # SLANG_WRITER_CHANNEL_STD_OUTPUT: where -E writes
_NAMES = {"linux": ("libslang-compiler.so*", "libslang.so"),
          "darwin": ("libslang-compiler*.dylib", "libslang.dylib"),
          "win32": ("slang-compiler*.dll", "slang.dll")}


class SlangError(GpuiaError, ValueError):
    """Slang rejected the source. ``diagnostics`` is Slang's whole text (file:line:column in the
    user's own numbering); the message is its first error."""

    def __init__(self, diagnostics: str, what: str = "shader"):
        self.diagnostics = diagnostics
        self.what = what
        super().__init__(f"{what}: {first_error(diagnostics)}")


def first_error(diagnostics: str) -> str:
    """The first error of a Slang diagnostic text, on one line with its location
    (``vs.hlsl:3:27: error[E30015]: undefined identifier 'x'``)."""
    lines = diagnostics.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(("error", "internal error")):
            where, detail = "", ""
            for follow in lines[i + 1:i + 8]:
                text = follow.strip()
                if text.startswith(("error", "warning", "internal error")):
                    break
                if text.startswith("-->") and not where:
                    where = text[3:].strip() + ": "
                m = re.match(r"^\|\s*\^+\s*(.+)$", text)
                if m and not detail:
                    detail = m.group(1).strip()
            message = line.strip()
            detail = detail.rstrip(".")
            if detail:  # the caret line often says it better ("undefined identifier 'x'")
                head = message.split("]:", 1)
                message = f"{head[0]}]: {detail}" if len(head) == 2 and \
                    detail.startswith(head[1].strip()) else f"{message}: {detail}"
            return where + message
    text = " ".join(diagnostics.split())
    return text or "Slang reported an error without a message"


@dataclass(frozen=True)
class SlangOutput:
    """One compile: the entry point's code, Slang's reflection (its JSON form), the
    diagnostics (warnings), and the files the source included."""

    code: bytes
    reflection: dict
    diagnostics: str
    dependencies: tuple[str, ...]


def library_path() -> Path:
    """The library file gpuia loads: ``GPUIA_SLANG_LIBRARY``, else the one in the installed
    ``slangpy`` package (found without importing it). Raises UnsupportedError without one."""
    named = os.environ.get("GPUIA_SLANG_LIBRARY")
    if named:
        path = Path(named)
        if not path.is_file():
            raise UnsupportedError(f"GPUIA_SLANG_LIBRARY={named}: no such file ({INSTALL_HINT})")
        return path
    try:
        spec = importlib.util.find_spec("slangpy")
    except (ImportError, ValueError):
        spec = None
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    patterns = _NAMES.get(sys.platform, _NAMES["linux"])
    for folder in folders:
        for pattern in patterns:
            found = sorted(glob.glob(os.path.join(folder, pattern)))
            if found:
                return Path(found[-1])
    raise UnsupportedError(INSTALL_HINT)


_IDENTITY: dict = {}


def library_identity() -> str:
    """What identifies the compiler without loading it (for cache keys): the library's file
    name, size and modification time (looked up once per process and library setting)."""
    setting = os.environ.get("GPUIA_SLANG_LIBRARY")
    if setting not in _IDENTITY:
        path = library_path()
        st = path.stat()
        _IDENTITY[setting] = f"{path.name}:{st.st_size}:{st.st_mtime_ns}"
    return _IDENTITY[setting]


class _Library:
    """The loaded library, its session and the ctypes signatures gpuia calls."""

    def __init__(self, path: Path):
        vp, cp, ci = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        try:
            lib = ctypes.CDLL(str(path))
        except OSError as e:
            raise UnsupportedError(f"cannot load Slang's compiler {path}: {e} ({INSTALL_HINT})") \
                from None
        sigs = {
            "spCreateSession": (vp, [cp]),
            "spCreateCompileRequest": (vp, [vp]),
            "spDestroyCompileRequest": (None, [vp]),
            "spProcessCommandLineArguments": (ci, [vp, ctypes.POINTER(cp), ci]),
            "spAddTranslationUnit": (ci, [vp, ci, cp]),
            "spAddTranslationUnitSourceString": (None, [vp, ci, cp, cp]),
            "spAddPreprocessorDefine": (None, [vp, cp, cp]),
            "spAddSearchPath": (None, [vp, cp]),
            "spAddEntryPoint": (ci, [vp, ci, cp, ci]),
            "spCompile": (ci, [vp]),
            "spGetDiagnosticOutput": (cp, [vp]),
            "spGetEntryPointCode": (vp, [vp, ci, ctypes.POINTER(ctypes.c_size_t)]),
            "spGetReflection": (vp, [vp]),
            "spReflection_ToJson": (ci, [vp, vp, ctypes.POINTER(vp)]),
            "spGetDependencyFileCount": (ci, [vp]),
            "spGetDependencyFilePath": (cp, [vp, ci]),
            "spGetBuildTagString": (cp, []),
            "spSetWriter": (None, [vp, ci, vp]),
        }
        for name, (res, args) in sigs.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        self.lib = lib
        self.version = (lib.spGetBuildTagString() or b"?").decode()
        t0 = time.perf_counter()
        self.session = lib.spCreateSession(None)
        self.session_seconds = time.perf_counter() - t0
        if not self.session:
            raise UnsupportedError(f"Slang at {path} could not create a session")


_LOCK = threading.Lock()
_LOADED: _Library | None = None


def _library() -> _Library:
    global _LOADED
    if _LOADED is None:
        _LOADED = _Library(library_path())
    return _LOADED


def start_session() -> None:
    """In the worker, as it starts: load the library and create the session now, so the first
    compile does not wait for them. A library that cannot be loaded is left to that compile,
    which reports it."""
    try:
        with _LOCK:
            _library()
    except GpuiaError:
        pass


def start_worker() -> bool:
    """Start gpuia's Slang worker now, in the background, without waiting for it: its process
    start, imports and Slang session (most of a second) overlap the caller's work instead of
    delaying the first compile. Once per process: a worker that runs is kept (a no-op).
    Returns whether one runs or was started; False without Slang's library (nothing starts;
    the first compile reports it)."""
    try:
        library_path()
    except UnsupportedError:
        return False
    _WORKER.child.start()
    return True


def session_seconds() -> float | None:
    """How long creating the Slang session took in gpuia's worker (None before the first
    compile)."""
    return _SESSION_SECONDS


def _blob(ptr) -> bytes:
    """The bytes of an ISlangBlob (COM vtable: queryInterface, addRef, release,
    getBufferPointer, getBufferSize), released after reading."""
    vtable = ctypes.cast(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_void_p))[0],
                         ctypes.POINTER(ctypes.c_void_p))
    pointer = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(vtable[3])
    size = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_void_p)(vtable[4])
    release = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)(vtable[2])
    data = ctypes.string_at(pointer(ptr), size(ptr))
    release(ptr)
    return data


_OCTAL_RE = re.compile(rb"\\(\\|[0-7]{3})")


def _reflection_json(data: bytes) -> dict:
    """Slang's reflection JSON. Slang writes a name's non-ASCII bytes as C's octal escapes
    (``d\\303\\251calage`` for ``décalage``), which JSON does not have: they become the bytes
    they stand for (the name's UTF-8) before the text is parsed."""
    def byte(m: re.Match) -> bytes:
        if m.group(1) == b"\\":
            return b"\\\\"  # an escaped backslash stays one
        value = int(m.group(1), 8)
        return bytes([value]) if value >= 0x20 else b"\\u%04x" % value
    return json.loads(_OCTAL_RE.sub(byte, data).decode("utf-8", "replace"))


class _TextWriter:
    """An ``ISlangWriter`` that keeps what Slang writes. Slang's default writer of a request's
    standard output is this process's stdout, which in the worker is the protocol's pipe: the
    preprocessor's output must land here instead. COM vtable order: queryInterface, addRef,
    release, beginAppendBuffer, endAppendBuffer, write, flush, isConsole, setMode; the object
    is owned here (addRef/release count nothing) and outlives the request."""

    def __init__(self):
        vp, sz, i32 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int32
        self.chunks: list[bytes] = []
        self._buffer = ctypes.create_string_buffer(1)

        def query(this, guid, out):
            out[0] = None
            return -2147467262  # E_NOINTERFACE: Slang only stores and calls the writer

        def begin(this, n):
            if n > len(self._buffer):
                self._buffer = ctypes.create_string_buffer(n)
            return ctypes.addressof(self._buffer)

        def write(this, chars, n):
            self.chunks.append(ctypes.string_at(chars, n))
            return 0

        self._functions = (
            ctypes.CFUNCTYPE(i32, vp, vp, ctypes.POINTER(vp))(query),
            ctypes.CFUNCTYPE(ctypes.c_uint32, vp)(lambda this: 1),
            ctypes.CFUNCTYPE(ctypes.c_uint32, vp)(lambda this: 1),
            ctypes.CFUNCTYPE(vp, vp, sz)(begin),
            ctypes.CFUNCTYPE(i32, vp, vp, sz)(write),
            ctypes.CFUNCTYPE(i32, vp, vp, sz)(write),
            ctypes.CFUNCTYPE(None, vp)(lambda this: None),
            ctypes.CFUNCTYPE(ctypes.c_bool, vp)(lambda this: False),
            ctypes.CFUNCTYPE(i32, vp, ctypes.c_int)(lambda this, mode: 0),
        )
        self._vtable = (vp * len(self._functions))(*[ctypes.cast(f, vp)
                                                      for f in self._functions])
        self._object = vp(ctypes.addressof(self._vtable))
        self.pointer = ctypes.addressof(self._object)

    def text(self) -> bytes:
        return b"".join(self.chunks)


def compile_in_this_process(source: str, file_name: str, entry_point: str, stage: str,
                            target: str, args, defines, include_dirs, what: str) -> dict:
    """One compile in this process (the worker's side of :func:`compile_source`): a JSON-able
    reply, or SlangError."""
    with _LOCK:
        lib = _library()
        lib_ = lib.lib
        req = lib_.spCreateCompileRequest(lib.session)
        writer = _TextWriter() if target == PREPROCESS else None
        try:
            argv = ["-E", *args] if writer else ["-target", target, *args]
            arr = (ctypes.c_char_p * len(argv))(*[a.encode() for a in argv])
            if lib_.spProcessCommandLineArguments(req, arr, len(argv)) < 0:
                raise SlangError(f"error: Slang refused the options {argv}", what)
            if writer:
                lib_.spSetWriter(req, _WRITER_STD_OUTPUT, writer.pointer)
            for name, value in defines:
                lib_.spAddPreprocessorDefine(req, name.encode(), value.encode())
            for folder in include_dirs:
                lib_.spAddSearchPath(req, str(folder).encode())
            unit = lib_.spAddTranslationUnit(req, _LANGUAGE_HLSL, b"gpuia")
            lib_.spAddTranslationUnitSourceString(req, unit, file_name.encode(),
                                                  source.encode("utf-8"))
            if not writer:
                lib_.spAddEntryPoint(req, unit, entry_point.encode(), STAGES[stage])
            rc = lib_.spCompile(req)
            diagnostics = (lib_.spGetDiagnosticOutput(req) or b"").decode("utf-8", "replace")
            if rc < 0 or (writer and re.search(r"^(internal )?error", diagnostics, re.M)):
                # -E ends well even after a preprocessor error (a missing include): its output
                # would be short of what the compile reads
                raise SlangError(diagnostics or f"error: Slang failed ({rc:#x})", what)
            if writer:  # no reflection, no dependency list (Slang has none after -E)
                return {"ok": True, "code": base64.b64encode(writer.text()).decode(),
                        "reflection": {}, "diagnostics": diagnostics, "dependencies": [],
                        "session_seconds": lib.session_seconds, "version": lib.version}
            size = ctypes.c_size_t()
            code = lib_.spGetEntryPointCode(req, 0, ctypes.byref(size))
            blob = ctypes.c_void_p()
            if lib_.spReflection_ToJson(lib_.spGetReflection(req), req, ctypes.byref(blob)) < 0:
                raise SlangError("error: Slang gave no reflection", what)
            deps = [lib_.spGetDependencyFilePath(req, i).decode("utf-8", "replace")
                    for i in range(lib_.spGetDependencyFileCount(req))]
            data = ctypes.string_at(code, size.value) if code else b""
            return {"ok": True, "code": base64.b64encode(data).decode(),
                    "reflection": _reflection_json(_blob(blob)), "diagnostics": diagnostics,
                    "dependencies": deps, "session_seconds": lib.session_seconds,
                    "version": lib.version}
        finally:
            lib_.spDestroyCompileRequest(req)


def compile_source(source: str, file_name: str, entry_point: str, stage: str, target: str,
                   args: tuple[str, ...] = (), defines: tuple[tuple[str, str], ...] = (),
                   include_dirs: tuple[str, ...] = (), what: str = "shader") -> SlangOutput:
    """Compile one entry point of HLSL ``source`` (named ``file_name`` in diagnostics) for
    ``target`` (``hlsl``, ``wgsl``, ``cpp``; :data:`PREPROCESS`: the preprocessed tokens only)
    with extra command-line ``args``, in gpuia's Slang worker process
    (``gpuia.hlsl.worker``): a source that crashes Slang or keeps it busy past
    ``GPUIA_SLANG_TIMEOUT`` seconds (default 300) is refused, never the caller's crash. The
    code is corrected where Slang emits invalid code for valid HLSL (``gpuia.hlsl.emitted``);
    WGSL computes D3D's float-to-integer conversions and unsigned division
    (``gpuia.hlsl.wgsl_defined``; what it leaves is a warning in the diagnostics). Raises
    :class:`SlangError` when Slang refuses the source."""
    if stage not in STAGES:
        raise ValueError(f"stage {stage!r}")
    if "\0" in source:
        raise SlangError(f"error: the {what} source contains a NUL character", what)
    reply = _WORKER.request({"source": source, "file_name": file_name,
                             "entry_point": entry_point, "stage": stage, "target": target,
                             "args": list(args), "defines": [list(d) for d in defines],
                             "include_dirs": list(include_dirs), "what": what}, what)
    if not reply.get("ok"):
        if reply.get("kind") == "unsupported":
            raise UnsupportedError(reply["message"])
        raise SlangError(reply["message"], what)
    global _SESSION_SECONDS
    if _SESSION_SECONDS is None:
        _SESSION_SECONDS = reply.get("session_seconds")
        if reply.get("version") != VERIFIED_VERSION:
            warnings.warn(f"Slang {reply.get('version')} at {library_path()}: gpuia is verified "
                          f"with {VERIFIED_VERSION} (slangpy 0.43.1); its workarounds of that "
                          f"version's bugs may not fit", stacklevel=3)
    code = base64.b64decode(reply["code"])
    if any(f.target == target for f in emitted.FIXES):  # Slang's invalid output, corrected
        code = emitted.fix(code.decode("utf-8", "replace"), target).encode("utf-8")
    diagnostics = reply["diagnostics"]
    if target == "wgsl":  # D3D's conversions and unsigned division, not WGSL's (rules 12.1-2)
        defined = wgsl_defined.rewrite(code.decode("utf-8", "replace"))
        code = defined.code.encode("utf-8")
        diagnostics += "".join(f"gpuia: warning: WGSL's value, not D3D's, in Slang's WGSL "
                               f"{left}\n" for left in defined.left)
    return SlangOutput(code, reply["reflection"], diagnostics, tuple(reply["dependencies"]))


def check_wgsl(code: str, what: str = "shader") -> tuple[bool, str | None]:
    """Naga's verdict on WGSL, from gpuia's Slang worker (``gpuia.hlsl.naga``): (whether it was
    checked: False where the worker has no adapter, or ``GPUIA_HLSL_NAGA=0``; naga's error, or
    None)."""
    reply = _WORKER.request({"op": "naga", "code": code}, what)
    return bool(reply.get("checked")), reply.get("error")


_SESSION_SECONDS: float | None = None


class _Worker:
    """The process that runs Slang for this one (:class:`gpuia.util.child.Child`: started on
    the first compile, again after a crash or a timeout; requests serialised; SIGINT and
    SIGTERM end it at once); its failures are Slang errors of the one shader."""

    def __init__(self):
        self.child = Child("gpuia.hlsl.worker")

    def stop(self):
        self.child.stop()

    def request(self, message: dict, what: str) -> dict:
        timeout = setting("GPUIA_SLANG_TIMEOUT", 300.0, 1e6)
        try:
            return self.child.request(message, timeout)
        except ChildTimeout:
            raise SlangError(f"error: Slang did not finish compiling the {what} in "
                             f"{timeout:g} s (GPUIA_SLANG_TIMEOUT)", what) from None
        except ChildFailed as e:
            raise SlangError(f"error: Slang's compiler crashed on this {what} ({e.status}); "
                             f"gpuia ran it in a process of its own, so only this compile "
                             f"is lost", what) from None


_WORKER = _Worker()
atexit.register(_WORKER.stop)
