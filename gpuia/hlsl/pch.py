"""The part of every CPU build that does not depend on the shader, compiled once: a precompiled
header in gpuia's own cache.

A CPU build (``gpuia.hlsl.cpu``) is gpuia's functions (``shaders/cpu_defined.cpp``), Slang's
C++ prelude (patched by ``gpuia.hlsl.cpu_defined``), the shader's code and the runner
(``shaders/runner.cpp``). The first two and the runner's standard headers are the same text for
every shader and take about half of the compiler's time; GCC reads them from a precompiled
header instead (``-x c++-header``), which gives the same program: the precompiled state is the
parsed text itself, and the shader's code is compiled with the same flags.

Guaranteed: the header and its ``.gch`` live in the disk cache's private ``pch`` folder
(``gpuia.hlsl.cache.entry_folder("pch")``, never a shared or temporary one), named by a key of
the compiler (path, size, time), the flags and the header's text; both are written atomically
(built under a temporary name, renamed into place), and used only when a record of the same key
and request gives their hashes and both files are regular files of this user that no other user
may write, with those hashes; anything else (absent, damaged, replaced, written by another
compiler) is built again, never trusted. The compile is contained as every build is
(``gpuia.hlsl.sandbox``). Where no precompiled header can be made (no disk cache, a build that
fails, a folder whose path a C++ string cannot hold), :func:`precompiled` gives None and the
shader is built from its whole text, as before; a ``.gch`` the compiler cannot use (another
compiler's) makes it read the header's text, which is the same program.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from ..util.resources import shader_text
from . import cache, sandbox

__all__ = ["PchRecord", "precompiled", "shared_text", "KIND"]

KIND = "pch"
"""The cache folder the headers live in."""

_INCLUDES = re.compile(r"(?:^#include <[^>\n]+>\n)+", re.M)


@dataclass(frozen=True)
class PchRecord:
    """A built precompiled header: the SHA-256 of its text file and of its ``.gch``."""

    header: str
    gch: str


def shared_text(head: str) -> str:
    """The precompiled header's text for a build whose shader-independent start is ``head``
    (gpuia's functions and Slang's prelude): ``head`` and the runner's first block of standard
    headers, which the runner includes again after the shader (a no-op then)."""
    m = _INCLUDES.search(shader_text("runner.cpp"))
    return head + ("\n" + m.group(0) if m else "")


def _sound(path: Path, digest: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and \
        not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and cache.file_digest(str(path)) == digest


def precompiled(cxx: str, flags: tuple[str, ...], text: str, limits: sandbox.Limits,
                seconds: float) -> str | None:
    """The path of the header holding ``text`` whose ``.gch`` is sound, built now when absent
    or stale; None without a private ``pch`` folder in the disk cache (a header made per process
    would cost more than it saves), or when the compiler cannot build it (the caller builds
    from the whole text)."""
    folder = cache.entry_folder(KIND)
    if folder is None or any(c in str(folder) for c in '"\\\n'):
        return None  # no disk cache, or a path an #include "..." cannot name
    st = os.stat(cxx)
    request = ("pch", cxx, st.st_size, st.st_mtime_ns, flags, text)
    key = cache.key_of(*request)
    name = f"pch-{key[:32]}.h"
    header, gch = folder / name, folder / f"{name}.gch"
    entry = cache.load(KIND, key, PchRecord, request)
    if entry is not None and _sound(header, entry[0].header) and _sound(gch, entry[0].gch):
        return str(header)
    record = _build(cxx, flags, text, header, gch, limits, seconds)
    if record is None:
        return None
    cache.store(KIND, key, record, request)
    return str(header)


def _build(cxx: str, flags: tuple[str, ...], text: str, header: Path, gch: Path,
           limits: sandbox.Limits, seconds: float) -> PchRecord | None:
    """Write the header and build its ``.gch`` (contained, under a temporary name, then
    renamed); None when either cannot be made."""
    data = text.encode("utf-8")
    if not cache.write_atomic(header, data):
        return None
    digest = cache.build_into(
        gch, lambda out: [cxx, *flags, "-x", "c++-header", "-o", out, str(header)], limits,
        seconds)
    return None if digest is None else PchRecord(hashlib.sha256(data).hexdigest(), digest)
