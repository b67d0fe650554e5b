"""C/C++ files read in a worker process with limits: what libclang does with a hostile file
costs that file only.

libclang follows the file wherever it leads: an ``#include`` of a FIFO blocks it for ever, one of
``/dev/zero`` (named through a macro, past :func:`gpuia.source.includes.check_includes`) or a
macro that expands exponentially takes memory without end, and while its native code runs no
signal handler of this process can run. So :func:`read_cpp` hands every C/C++ file to one
worker process (:mod:`gpuia.source.worker`, started on the first file of a run and kept for the
next), which parses under these limits:

- wall-clock time, :data:`TIMEOUT_VARIABLE` seconds per file (default :data:`DEFAULT_TIMEOUT`);
  the same is its processor time (``RLIMIT_CPU``);
- memory, :data:`MEMORY_VARIABLE` MiB of address space (``RLIMIT_AS``) on top of what the
  worker maps at start-up with libclang loaded (default :data:`DEFAULT_MEMORY_MB`).

Guaranteed: a file past a limit, or one that makes the worker die, is refused with a
:class:`~gpuia.source.model.SourceError` naming the file and the reason, and the next file gets
a new worker; SIGINT and SIGTERM while a file is read kill the worker at once and end the run
(:mod:`gpuia.util.interrupt`); a worker whose parent is gone ends itself. Refused before any
worker starts: malformed options, and a missing libclang.
"""

from __future__ import annotations

import atexit
import base64
import importlib.util
import os
import signal
from pathlib import Path

from ..errors import UnsupportedError
from ..util.child import Child, ChildFailed, ChildTimeout, setting
from .clang_parse import SOURCE_EXTRA, ParseOptions
from .cpp import read_source_bytes, source_label
from .model import SourceError, SourceFile, source_file_from_doc

__all__ = ["read_cpp", "start_worker", "TIMEOUT_VARIABLE", "MEMORY_VARIABLE", "DEFAULT_TIMEOUT",
           "DEFAULT_MEMORY_MB"]

TIMEOUT_VARIABLE = "GPUIA_SOURCE_TIMEOUT"
"""Environment variable: seconds one C/C++ file may take (wall-clock and processor time)."""
MEMORY_VARIABLE = "GPUIA_SOURCE_MEMORY_MB"
"""Environment variable: MiB of memory reading one C/C++ file may take."""
DEFAULT_TIMEOUT = 120.0
"""Seconds; ample: a file that includes a real d3d12.h reads in well under one."""
DEFAULT_MEMORY_MB = 2048
"""MiB; ample: a file that includes a real d3d12.h (microsoft/DirectX-Headers', vkd3d's) reads
within 64."""

_WORKER = Child("gpuia.source.worker")
atexit.register(_WORKER.stop)


_MOST_SECONDS = 1e6
"""The largest GPUIA_SOURCE_TIMEOUT (11.6 days): a wait of 1e10 s cannot be expressed at all."""
_MOST_MB = float(1 << 40)
"""The largest GPUIA_SOURCE_MEMORY_MB (an address-space limit of 2^60 bytes: none at all)."""


def start_worker() -> None:
    """Start the worker process now, when C/C++ files are to be read, so that its start-up
    (about 0.2 s: Python and gpuia's imports) overlaps the caller's; nothing without libclang."""
    if importlib.util.find_spec("clang.cindex") is not None:
        _WORKER.start()


def read_cpp(path: str | Path, assume_false=(), options: ParseOptions | None = None
             ) -> SourceFile:
    """:func:`gpuia.source.cpp.extract_cpp` in the worker process (see the module docstring).

    Arguments:
        path: the file.
        assume_false: texts of ``if`` conditions to take as false.
        options: ``-D``, ``-I`` and the target; None for the defaults.

    Returns:
        The file's :class:`~gpuia.source.model.SourceFile`.

    Raises:
        SourceError: the file cannot be read, an option is malformed, or reading it passed a
            limit or ended the worker (the reason is said).
        UnsupportedError: libclang (the ``source`` extra) is missing, or a limit's setting is
            not a positive number (at most 1e6 seconds, 2^40 MiB).
    """
    label = source_label(path)
    options = options or ParseOptions()
    options.arguments()  # malformed options are refused before a worker starts
    if importlib.util.find_spec("clang.cindex") is None:
        raise UnsupportedError(f"{SOURCE_EXTRA}: clang.cindex is not installed")
    timeout = setting(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT, _MOST_SECONDS)
    memory_mb = setting(MEMORY_VARIABLE, DEFAULT_MEMORY_MB, _MOST_MB)
    # Read here: standard input ("-") is this process's (the worker's is its protocol), and a
    # file that is not source text is refused before a worker runs.
    data = read_source_bytes(path)
    try:
        cwd = os.getcwd()  # the folder the worker finds relative paths from
    except OSError as e:  # removed while gpuia runs in it
        raise SourceError(label, f"cannot read the current folder, which relative paths are "
                                 f"found from: {e.strerror or e}") from None
    request = {"path": label, "data": base64.b64encode(data).decode("ascii"),
               "cwd": cwd, "assume_false": list(assume_false),
               "defines": list(options.defines), "include_dirs": list(options.include_dirs),
               "target": options.target, "memory": int(memory_mb * (1 << 20)),
               "cpu_seconds": timeout}
    try:
        reply = _WORKER.request(request, timeout)
    except ChildTimeout:
        raise SourceError(label, f"the compiler did not finish reading it in {timeout:g} s "
                                 f"({TIMEOUT_VARIABLE}): an #include of a FIFO or a device, or "
                                 f"a macro that expands without end, does this") from None
    except ChildFailed as e:
        raise SourceError(label, _failure(e, timeout, memory_mb)) from None
    if reply.get("recycle"):
        _WORKER.stop()  # its peak memory says nothing about the next file: a new one reads it
    if reply.get("ok"):
        return source_file_from_doc(reply["source"])
    kind = reply.get("kind")
    if kind == "source":
        raise SourceError(reply["where"], reply["rule"])
    if kind == "unsupported":
        raise UnsupportedError(reply["message"])
    if kind == "memory":
        _WORKER.stop()  # a process that ran out of memory is not trusted with the next file
        raise SourceError(label, _memory(memory_mb))
    raise SourceError(label, f"gpuia failed reading it ({reply.get('message')})")


def _memory(memory_mb: float) -> str:
    return (f"the compiler needed more than {memory_mb:g} MiB of memory ({MEMORY_VARIABLE}): "
            f"an #include of a device, or a macro that expands without end, does this")


def _failure(e: ChildFailed, timeout: float, memory_mb: float) -> str:
    """The reason a worker that died without a reply gives."""
    if e.memory:
        return _memory(memory_mb)
    if e.signal == signal.SIGXCPU:
        return (f"the compiler used more than {timeout:g} s of processor time "
                f"({TIMEOUT_VARIABLE})")
    return f"the compiler's process ended without a reply ({e.reason})"
