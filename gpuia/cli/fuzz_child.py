"""The invalid fuzzer's child process: ``python -m gpuia.cli.fuzz_child``.

It serves the fuzzer's worker protocol (:func:`gpuia.fuzz.worker.serve`) in ``cli`` mode: each
request carries the bytes of a case file, which the child writes to a file and runs through the
command line in this process (:func:`gpuia.cli.main`, output captured), as a user would:
``gpuia validate -q FILE`` first, and ``gpuia check FILE`` when the case loads. ``check`` loads
its cases with the same code and prints the same error line for a case that does not load, but
only after choosing adapters and making devices, which costs far more (0.3 s on an H200) than
loading; so a case ``validate`` refuses is answered by ``validate``.

Answer: ``rc`` (the exit status), ``stdout``, ``stderr``, ``command`` (``validate`` or
``check``), ``traceback`` (an exception that escaped ``main``, which a real command line would
have printed), ``host_out_of_memory`` (the error line named the host's MemoryError) and, for
such a case, its ``demand`` (:func:`gpuia.fuzz.runs.case_demand`).

Each case file is written into a folder of its own, removed once the case is answered, inside
the pool's ``workdir`` (``config["workdir"]``), which the parent removes when it stops its
children, so no ``gpuia-fuzz-*`` folder outlives a run, even one whose child was killed.

``check`` takes its devices from one :class:`~gpuia.gpu.device.DevicePool` for all requests
(creating a device costs 0.1-0.4 s on an NVIDIA driver); the pool is cleared after a check
whose device was lost or ran out of memory, or that ended in a traceback (:data:`DEVICE_GONE`),
so that a device in doubt does not turn the cases after it into findings.
"""

from __future__ import annotations

import base64
import os
import sys
import tempfile

from ..fuzz.runs import case_demand, clip
from ..fuzz.worker import serve
from ..gpu.device import DevicePool
from .common import HOST_OUT_OF_MEMORY
from .in_process import DEVICE_GONE, run_command

__all__ = ["DEVICE_GONE", "adapter_args", "main", "make_handler", "run_case_file"]

def adapter_args(config: dict) -> list[str]:
    """The ``gpuia check`` options that select the configured adapters and capture route."""
    args = []
    if config.get("adapter"):
        args += ["--adapter", config["adapter"]]
    if config.get("gpu_backend"):
        args += ["--gpu-backend", config["gpu_backend"]]
    if config.get("capture"):
        args += ["--capture", config["capture"]]
    return args


def _command(argv: list[str], devices: DevicePool) -> dict:
    """:func:`gpuia.cli.in_process.run_command`, its output and traceback clipped."""
    answer = run_command(argv, devices)
    for key in ("stdout", "stderr", "traceback"):
        if key in answer:
            answer[key] = clip(answer[key])
    return answer


def run_case_file(content: bytes, config: dict, workdir: str, devices: DevicePool) -> dict:
    """Run a case file holding ``content`` through ``gpuia validate`` and ``gpuia check`` (see
    the module docstring); returns the answer."""
    path = os.path.join(workdir, "fuzzcase.json")
    with open(path, "wb") as f:
        f.write(content)
    answer = _command(["validate", "-q", path], devices)
    if answer["rc"] != 0 or answer.get("traceback"):
        answer["command"] = "validate"
        return answer
    answer = _command(["check", path] + adapter_args(config), devices)
    answer["command"] = "check"  # (a device in doubt was cleared: DEVICE_GONE)
    errors = [line for line in answer["stderr"].splitlines() if line.startswith("error:")]
    answer["host_out_of_memory"] = any(HOST_OUT_OF_MEMORY in line for line in errors)
    if answer["host_out_of_memory"]:
        try:
            answer["demand"] = case_demand(path)
        except MemoryError:
            pass  # loading alone exhausts the cap: the case asks for much memory
    return answer


def make_handler(config: dict, devices: DevicePool | None = None):
    """The request handler of an invalid-mode child: ``handler(request) -> answer``, plus the
    ``ready`` message. ``devices``: the pool ``check`` takes its devices from (default a new
    one); the selected adapters' devices are made now, before the first case. An adapter where
    none can be made is not an error here: every ``check`` then says so, as it would for a
    user. Raises ValueError for another mode, and what selecting the adapters raises
    (:class:`~gpuia.errors.UnsupportedError` when none matches)."""
    if config.get("mode") != "cli":
        raise ValueError(f"this child serves the 'cli' mode, not {config.get('mode')!r}")
    pool = devices if devices is not None else DevicePool()
    made, missing = pool.select(config.get("adapter"), config.get("gpu_backend"))
    ready = {"adapters": [d.info["summary"] for d in made] + [s for s, _ in missing],
             "cpu_only": all(d.info["type"] == "CPU" for d in made)}

    def handle(req):
        # A folder per case, removed after it; one a killed child leaves is in the pool's
        # workdir, which the parent removes (gpuia.util.worker_pool.Pool.close).
        with tempfile.TemporaryDirectory(prefix="gpuia-fuzz-", dir=config.get("workdir")) as d:
            return run_case_file(base64.b64decode(req["content"]), config, d, pool)

    return handle, ready


def main(wrap=None) -> int:
    """Serve requests until stdin closes (:func:`gpuia.fuzz.worker.serve`); ``wrap`` as
    there."""
    return serve(make_handler, wrap)


if __name__ == "__main__":
    sys.exit(main())
