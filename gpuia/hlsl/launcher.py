"""gpuia's launcher: a small program that contains a process and then becomes it, built once.

:func:`gpuia.hlsl.sandbox.run` starts the CPU reference's runner through it: without a Python
step between fork and exec (``preexec_fn``), Python starts the launcher with ``vfork`` instead of
copying all of gpuia's memory (a fork of a process holding a GPU device costs tens of
milliseconds, a large part of a short check with Stream Output). The launcher
(``shaders/launcher.cpp``) sets what the sandbox's own step sets, in the same order: the death
signal (ending itself when gpuia died first), each resource limit, the namespaces; then it runs
the program, or reports why it cannot (``gpuia.hlsl.sandbox``).

Guaranteed: the launcher is built with the C++ compiler, contained as every build is, into the
build folder of the CPU reference (``gpuia.hlsl.cpu.build_folder``: the disk cache's private
``cpu`` folder, else a folder of this process's own), atomically (built under a temporary name,
renamed into place), named by a key of its source, the compiler (path, size, time), the
flags and the folder, its record in the disk cache's ``launcher`` folder; a built one is used
only when a record of the same key and request gives its hash and it
is a regular, executable file of this user's that no other user may write, with that hash (as a
CPU build is, ``gpuia.hlsl.cpu.sound_build``); anything else is built again, never trusted.
Where it cannot be built (:func:`launcher` gives None), the sandbox starts processes itself, with
the same containment.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from ..util.resources import shader_text
from . import cache, sandbox

__all__ = ["LauncherBuild", "launcher", "FLAGS"]

FLAGS = ("-std=c++17", "-O2", "-w")
"""How the launcher is built."""

_KIND = "launcher"  # its records; the file itself is in the build folder it is given
_LOCK = threading.Lock()
_KNOWN: dict[tuple, str | None] = {}  # request: the sound launcher's path (None: none here)


@dataclass(frozen=True)
class LauncherBuild:
    """A built launcher: its path and the SHA-256 of the file."""

    executable: str
    digest: str


def _sound(built: LauncherBuild | None, exe: Path) -> bool:
    return built is not None and built.executable == str(exe) and \
        cache.trusted_executable(exe, built.digest)


def launcher(cxx: str, folder: Path, limits: sandbox.Limits, seconds: float) -> str | None:
    """The path of a sound launcher in ``folder`` (the CPU reference's build folder), built now
    with ``cxx`` under ``limits`` when absent or stale; None when it cannot be built. Checked
    once per process and folder (as a CPU build is once per process)."""
    st = os.stat(cxx)
    request = ("launcher", cxx, st.st_size, st.st_mtime_ns, FLAGS, shader_text("launcher.cpp"),
               str(folder))
    with _LOCK:
        if request in _KNOWN:
            known = _KNOWN[request]
            if known is None or os.path.isfile(known):
                return known
        key = cache.key_of(*request)
        exe = folder / f"launcher-{key[:32]}"
        entry = cache.load(_KIND, key, LauncherBuild, request)
        built = entry[0] if entry is not None else None
        if not _sound(built, exe):
            built = _build(cxx, request[5], folder, exe, limits, seconds)
            if built is not None:
                cache.store(_KIND, key, built, request)
        _KNOWN[request] = built.executable if built is not None else None
        return _KNOWN[request]


def _build(cxx: str, text: str, folder: Path, exe: Path, limits: sandbox.Limits,
           seconds: float) -> LauncherBuild | None:
    """Write the source and build it (contained, under a temporary name, then renamed); None
    when it cannot be built."""
    src = folder / f"{exe.name}.cpp"
    if not cache.write_atomic(src, text.encode("utf-8")):
        return None
    digest = cache.build_into(exe, lambda out: [cxx, *FLAGS, "-o", out, str(src)], limits,
                              seconds)
    return None if digest is None else LauncherBuild(str(exe), digest)
