"""gpuia's C/C++ worker: ``python -m gpuia.source.worker``, started by
:mod:`gpuia.source.isolated`, where libclang parses and the D3D arrays are read.

Each request gives one file (its name and its bytes, ``data``, in base64: the parent reads it),
the options of :func:`gpuia.source.cpp.extract_cpp`, the folder its relative includes are
found from, and the limits: ``memory`` (bytes of address space on top of what this process
mapped at start-up, libclang loaded and one empty file parsed) and ``cpu_seconds``
(processor time for this request; SIGXCPU ends the process past it). The reply is
``{"ok": true, "source": ...}`` (:func:`gpuia.source.model.source_file_doc`) or
``{"ok": false, "kind": ...}``: ``"source"`` (a :class:`~gpuia.source.model.SourceError`, with
``where`` and ``rule``), ``"unsupported"`` (libclang is missing), ``"memory"`` or
``"internal"`` (anything else, with ``message``).

libclang fails a parse quietly when an allocation past the address-space cap is refused ("Error
parsing translation unit"). Its buffers grow by doubling, so when an allocation is refused more
than half the allowed memory was already mapped: a failure with more than half the request's
memory mapped is a ``"memory"`` reply. Every reply says ``recycle`` when the process has
mapped more than that (so its peak is no measure of the next request): the parent then starts a
new one. A limit that ends the process (SIGXCPU, an allocation failure that aborts) is
reported by the parent from its exit status and standard error
(:class:`gpuia.util.child.Child`).
"""

from __future__ import annotations

import base64
import os
import sys

from ..errors import UnsupportedError
from ..util.child import limit_cpu, limit_memory, mapped_bytes, serve
from .clang_parse import ParseOptions, cindex, parse
from .cpp import extract_cpp
from .model import SourceError, source_file_doc

_start = {"mapped": 0}


def _setup() -> None:
    # libclang loaded and its parsing thread's stack and heap mapped before the start-up size is
    # measured, so the cap is what reading a file may use.
    try:
        cindex()
        parse("/gpuia-warm-up.c", b"")
    except (UnsupportedError, SourceError):
        pass  # each request reports it
    _start["mapped"] = mapped_bytes()


def _past_half(memory: int) -> bool:
    """Whether this process has mapped more than half of ``memory`` beyond its start-up size."""
    return mapped_bytes() - _start["mapped"] > memory // 2


def handle(request: dict) -> dict:
    """One request (see the module docstring).

    Arguments:
        request: the request.

    Returns:
        The reply, with ``recycle`` added.
    """
    memory = int(request["memory"])
    limit_memory(_start["mapped"] + memory)
    limit_cpu(float(request["cpu_seconds"]))
    reply = _read(request)
    if not reply["ok"] and reply["kind"] in ("source", "internal") and _past_half(memory):
        reply = {"ok": False, "kind": "memory"}
    reply["recycle"] = _past_half(memory)
    return reply


def _read(request: dict) -> dict:
    try:
        os.chdir(request["cwd"])
        options = ParseOptions(tuple(request["defines"]), tuple(request["include_dirs"]),
                               request["target"])
        source = extract_cpp(request["path"], tuple(request["assume_false"]), options,
                             base64.b64decode(request["data"]))
        return {"ok": True, "source": source_file_doc(source)}
    except SourceError as e:
        return {"ok": False, "kind": "source", "where": e.where, "rule": e.rule}
    except UnsupportedError as e:
        return {"ok": False, "kind": "unsupported", "message": str(e)}
    except MemoryError:
        return {"ok": False, "kind": "memory"}
    except OSError as e:  # the folder its includes are found from is gone
        return {"ok": False, "kind": "source", "where": request["path"],
                "rule": f"cannot read its folder: {e.strerror or e}"}
    except Exception as e:  # noqa: BLE001 - one file's failure, reported for that file
        return {"ok": False, "kind": "internal", "message": f"{type(e).__name__}: {e}"}


def main() -> int:
    return serve(handle, _setup)


if __name__ == "__main__":
    sys.exit(main())
