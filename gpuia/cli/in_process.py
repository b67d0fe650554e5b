"""A ``gpuia`` command line run inside a worker process, its output captured: what the
fuzzer's invalid-mode children (:mod:`gpuia.cli.fuzz_child`) and ``check --workers``'s
children (:mod:`gpuia.cli.check_child`) answer with.
"""

from __future__ import annotations

import contextlib
import io
import traceback

from . import main as cli_main
from .common import HOST_OUT_OF_MEMORY

__all__ = ["DEVICE_GONE", "run_command"]

DEVICE_GONE = ("device was lost", "out of memory", HOST_OUT_OF_MEMORY)
"""Words of the error lines of DeviceLostError, GpuOutOfMemoryError and a host MemoryError:
after such a command a worker clears its pool of devices, so that a device in doubt does not
turn the cases after it into failures."""


def run_command(argv: list[str], devices, parser=None) -> dict:
    """``gpuia.cli.main(argv, devices=devices)`` in this process: ``rc`` (its exit status),
    ``stdout``, ``stderr``, and ``traceback`` when an exception escaped it (a real command
    line would have printed it). Clears ``devices`` after a command whose device is in doubt
    (:data:`DEVICE_GONE`, or a traceback). ``parser``: the command line's parser
    (:func:`gpuia.cli.build_parser`) made once by a caller running many commands (making it
    costs about 20 ms); default a new one per command."""
    out, err = io.StringIO(), io.StringIO()
    answer: dict = {}
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli_main(argv, devices=devices, parser=parser)
        except SystemExit as e:  # argparse and friends
            rc = e.code if isinstance(e.code, int) else 1
        except Exception:  # noqa: BLE001 - a traceback from the command line is reported
            rc = 1
            answer["traceback"] = traceback.format_exc()
    answer.update({"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()})
    if answer.get("traceback") or any(lost in answer["stderr"] for lost in DEVICE_GONE):
        devices.clear()  # the next command makes new devices
    return answer
