"""The fuzzer's child processes: the protocol they serve, and the valid mode's cases
(``python -m gpuia.fuzz.worker``).

The parent writes one JSON line of configuration on the child's stdin, then one JSON request
per line; the child answers each with one JSON line on its stdout. Running cases in a child
keeps the fuzzer alive when wgpu aborts the process (a Rust panic is not a Python exception) or
a case hangs: the parent sees the pipe close or its timeout pass, reports the case it had sent,
and starts a new child. :func:`gpuia.util.worker_pool.serve` is that loop, for any
``make_handler(config) -> (handler, ready)``.

* ``valid`` mode (this module's :func:`main`): the child takes one device per selected adapter
  once (:class:`gpuia.gpu.device.DevicePool`), and for each request loads the case with
  :func:`gpuia.harness.case.load_case` and cross-checks it with
  :func:`gpuia.harness.crosscheck.cross_check`, the code ``gpuia check`` runs, with its
  comparison rules (:func:`gpuia.fuzz.runs.run_valid_case`). Answer ``status``: ``ok``,
  ``different``, ``unsupported`` (gpuia raised :class:`UnsupportedError` for the whole case),
  ``wgpu-refused`` (wgpu rejected what gpuia encoded, for the case or one path), ``rejected``
  (any other gpuia error: the generator believed the case valid) or ``error`` (an unexpected
  exception, with its traceback).
* ``cli`` mode, the invalid fuzzer's: each request carries the bytes of a case file, run
  through the command line (``gpuia validate`` and ``gpuia check``) in the child. The command
  line is the top of gpuia, above this package, so that child is the command line's own
  module, :mod:`gpuia.cli.fuzz_child`, serving this protocol; its answers carry the exit
  status, stdout, stderr and ``host_out_of_memory`` (the error line named the host's
  MemoryError), and for a case that ran out of host memory its demand
  (:func:`gpuia.fuzz.runs.case_demand`).

The child's own stdout is moved to its stderr at start, so nothing printed by gpuia or a native
library can corrupt the protocol. With a memory limit, the child caps its address space
(``RLIMIT_AS``) at its size after start-up plus the limit, so a case that would exhaust memory
raises :class:`MemoryError` in the child instead of taking the machine down.
"""

from __future__ import annotations

import sys

from ..gpu.device import DevicePool
from ..util.worker_pool import serve
from .runs import run_valid_case

__all__ = ["main", "make_handler", "serve"]


def make_handler(config: dict, devices=None):
    """The request handler of a valid-mode child: ``handler(request) -> answer`` (both dicts),
    plus the ``ready`` message describing what it set up. ``devices``: the
    :class:`~gpuia.gpu.device.DevicePool` to take the devices from (default a new one). Raises
    ValueError for another mode and RuntimeError when no selected adapter can make a device."""
    mode = config.get("mode", "valid")
    if mode != "valid":
        raise ValueError(f"unknown worker mode {mode!r} (the invalid fuzzer's 'cli' mode is "
                         f"served by gpuia.cli.fuzz_child)")
    pool = devices if devices is not None else DevicePool()
    made, missing = pool.select(config.get("adapter"), config.get("gpu_backend"))
    unavailable = [f"{summary}: {reason}" for summary, reason in missing]
    if not made:
        raise RuntimeError("no selected adapter could create a device: " + "; ".join(unavailable))
    ready = {"adapters": [d.info["summary"] for d in made], "unavailable": unavailable,
             "cpu_only": all(d.info["type"] == "CPU" for d in made)}
    paths = list(config.get("paths", ["native", "pulling"]))
    capture = config.get("capture") or "auto"

    def handle(req):
        return run_valid_case(req["case"], made, paths, capture)[0]

    return handle, ready


def main(wrap=None) -> int:
    """A valid-mode child: :func:`serve` with :func:`make_handler`."""
    return serve(make_handler, wrap)


if __name__ == "__main__":
    sys.exit(main())
