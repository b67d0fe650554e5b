"""DXBC shader code turned into HLSL text by two fixed external tools (docs/compiled-shaders.md).

:func:`translate` runs Debian's ``vkd3d-compiler`` (DXBC shader model 4-5.1 -> SPIR-V) and
Debian's ``spirv-cross`` (SPIR-V -> HLSL shader model 5.0) on a container's bytes and returns
SPIRV-Cross's HLSL as it wrote it; :mod:`gpuia.hlsl.dxbc` makes it gpuia's HLSL.

Guaranteed: only those two programs run, found on ``PATH`` by their fixed names, with fixed
arguments and no shell; each in a private temporary folder that is removed afterwards, with a
time limit and the resource limits of :mod:`gpuia.hlsl.sandbox` (CPU seconds, address space,
largest file written, no core file; no network where the kernel allows it); their output is
read bounded (:data:`MAX_OUTPUT_BYTES`) and must be UTF-8 text. Results are cached in memory
and on disk as HLSL compiles are (``gpuia.hlsl.cache``, kind ``dxbc``), keyed by the bytes and
by both tools' identity (path, size, modification time).

Refused: a machine without either tool (:class:`~gpuia.errors.UnsupportedError` naming the
Debian packages), a tool that fails or runs past its limit (:class:`~gpuia.errors.
InvalidDescError` with its first lines of standard error).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from ..errors import InvalidDescError, UnsupportedError
from ..util.files import read_input
from . import cache, sandbox

__all__ = ["TOOLS", "PACKAGES", "Translated", "translate", "tool_paths", "MAX_OUTPUT_BYTES",
           "forget_in_memory"]

TOOLS = ("vkd3d-compiler", "spirv-cross")
"""The programs run, in order."""

PACKAGES = "Debian's vkd3d-compiler and spirv-cross packages (apt-get install vkd3d-compiler " \
           "spirv-cross)"
"""What to install, as refusals name it."""

_ARGS = {  # shader.* are files in the temporary folder
    "vkd3d-compiler": ("-x", "dxbc-tpf", "-b", "spirv-binary", "-o", "shader.spv",
                       "shader.dxbc"),
    # SPIRV-Cross's HLSL for shader model 5.0 (what Slang reads); the base vertex and instance
    # become a cbuffer gpuia.hlsl.dxbc turns into constants 0; a DXBC temporary register read
    # before it is written reads zero, the same on the CPU and on every GPU
    "spirv-cross": ("--hlsl", "--shader-model", "50",
                    "--hlsl-support-nonzero-basevertex-baseinstance",
                    "--force-zero-initialized-variables", "--output", "shader.hlsl",
                    "shader.spv"),
}
MAX_OUTPUT_BYTES = 4 << 20
"""The largest SPIR-V or HLSL file read back (and written: the tools' RLIMIT_FSIZE)."""
_LIMITS = sandbox.Limits(cpu_seconds=30, address_space=2 << 30, file_size=MAX_OUTPUT_BYTES,
                         open_files=64, isolate=True)
_TIMEOUT = 60.0
_MEMORY = cache.MemoryCache(64)


@dataclass(frozen=True)
class Translated:
    """SPIRV-Cross's HLSL of one DXBC program, and the seconds the two tools took (0.0 when
    it came from the cache)."""

    hlsl: str
    seconds: float = 0.0


def forget_in_memory() -> None:
    """Forget the translations kept in this process's memory; the disk cache stays."""
    _MEMORY.clear()


def tool_paths() -> dict[str, str]:
    """The path of each tool on ``PATH``. Raises :class:`UnsupportedError` naming the
    packages when one is missing."""
    paths = {name: shutil.which(name) for name in TOOLS}
    missing = [name for name, path in paths.items() if path is None]
    if missing:
        raise UnsupportedError(f"drawing a DXBC shader needs {' and '.join(missing)} on PATH: "
                               f"install {PACKAGES}")
    return {name: str(path) for name, path in paths.items()}


def _identity(path: str) -> tuple[str, int, int]:
    info = os.stat(path)
    return path, info.st_size, info.st_mtime_ns


def _run(name: str, path: str, folder: str, where: str) -> None:
    try:
        argv = [path] + [os.path.join(folder, a) if a.startswith("shader.") else a
                         for a in _ARGS[name]]
        done = sandbox.run(argv, _LIMITS, _TIMEOUT)
    except subprocess.TimeoutExpired:
        raise InvalidDescError(where, None, None, f"{name} ran past {_TIMEOUT:.0f} s") from None
    except OSError as e:
        raise UnsupportedError(f"{where}: {name} cannot be run ({e.strerror}): install "
                               f"{PACKAGES}") from None
    if done.returncode != 0:
        lines = done.stderr[:4096].decode("utf-8", "replace").strip().splitlines()[:4]
        raise InvalidDescError(where, None, None,
                               f"{name} cannot translate this shader (exit status "
                               f"{done.returncode}): {' / '.join(lines) or 'no message'}")


def translate(blob: bytes, where: str) -> Translated:
    """SPIRV-Cross's HLSL for the DXBC container ``blob`` (see the module docstring); ``where``
    names the shader in errors."""
    paths = tool_paths()
    request = ("dxbc", cache.frontend_hash(), hashlib.sha256(blob).hexdigest(),
               [_identity(paths[name]) for name in TOOLS])
    key = cache.key_of(*request)
    hit = _MEMORY.get(key)
    if hit is not None:
        return hit
    entry = cache.load("dxbc", key, Translated, request)
    if entry is not None:
        _MEMORY.put(key, entry[0])
        return Translated(entry[0].hlsl)
    with tempfile.TemporaryDirectory(prefix="gpuia-dxbc-") as folder:
        with open(os.path.join(folder, "shader.dxbc"), "wb") as f:
            f.write(blob)
        start = time.perf_counter()
        for name in TOOLS:
            _run(name, paths[name], folder, where)
        seconds = time.perf_counter() - start
        raw = read_input(os.path.join(folder, "shader.hlsl"), MAX_OUTPUT_BYTES)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidDescError(where, None, None, "spirv-cross wrote text that is not "
                                                  "UTF-8") from None
    result = Translated(text, seconds)
    cache.store("dxbc", key, Translated(text), request)
    _MEMORY.put(key, Translated(text))
    return result
