"""The ``gpuia`` command line (contract: docs/case-format.md, "Command line").

:func:`main` parses the arguments and runs one command of :mod:`gpuia.cli.commands`, each in
its own module. Exit status: 0 success, 1 a difference was found (``check``), 2 invalid input.
Invalid input prints exactly one line per failing case, ``error: <case>: <where>: <rule>``, on
stderr, and no traceback (:func:`gpuia.cli.common.error_line`, the convention every command
shares with the option groups of :mod:`gpuia.cli.common`).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from .. import __version__
from ..util import interrupt
from ..util.files import OutputError
from .commands import add_parsers
from .common import (
    EXIT_DIFF,
    EXIT_INVALID,
    EXIT_OK,
    HOST_OUT_OF_MEMORY,
    error_line,
    gpu_options,
    progress_option,
)

__all__ = ["main", "build_parser", "EXIT_OK", "EXIT_DIFF", "EXIT_INVALID", "HOST_OUT_OF_MEMORY",
           "error_line", "gpu_options", "progress_option"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (:data:`gpuia.cli.commands.COMMANDS`)."""
    p = argparse.ArgumentParser(
        prog="gpuia",
        description="Direct3D 12 Input Assembler and Stream Output through WebGPU, checked "
                    "against an exact CPU reference.")
    p.add_argument("--version", action="version", version=f"gpuia {__version__}")
    add_parsers(p.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return p


def main(argv=None, *, devices=None) -> int:
    """Run one command line (``argv``, default ``sys.argv[1:]``) in this process; returns its
    exit status, as the ``gpuia`` program would exit with it.

    ``devices``: a :class:`gpuia.gpu.device.DevicePool` that the commands choosing adapters
    (``check``, ``layout``) take their devices from and leave them in, for a caller that runs
    many command lines in one process; None (default): each command makes its own.

    SIGINT and SIGTERM end it with one line and status 130 / 143 (:mod:`gpuia.util.interrupt`);
    a standard output that cannot be written (a full disk) is one error line and status 2, a
    closed pipe a quiet end. Bad arguments raise SystemExit(2) from argparse, after its usage
    message."""
    with interrupt.ending_on_signals():
        try:
            argv = sys.argv[1:] if argv is None else list(argv)
            args = build_parser().parse_args(argv)
            args.command_line = shlex.join(["gpuia", *argv])
            args.device_pool = devices
            status = args.func(args)
            sys.stdout.flush()
        except KeyboardInterrupt as exc:
            signum = getattr(exc, "signum", None) or interrupt.received() or 2
            print(interrupt.describe(signum), file=sys.stderr)
            return interrupt.exit_status(signum)
        except BrokenPipeError:
            _drop_stdout()
            return EXIT_OK
        except OSError as exc:  # writing standard output (ENOSPC, EIO, EFBIG)
            _drop_stdout()
            error_line("gpuia", OutputError(f"standard output: cannot write: "
                                            f"{exc.strerror or exc}"))
            return EXIT_INVALID
    received = interrupt.received()
    if received is not None:  # a command that ended itself cleanly (fuzz)
        print(interrupt.describe(received), file=sys.stderr)
        return interrupt.exit_status(received)
    return status


def _drop_stdout() -> None:
    """Point standard output at /dev/null so the interpreter's last flush of what could not be
    written raises nothing at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


