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


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its errors gpuia's one line instead of the usage: ``error: <command>:
    <message>; see gpuia <command> --help`` on stderr, exit status 2 (SystemExit). An argument
    that no option of the command takes is that command's error, not the top level's."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.commands: dict[str, argparse.ArgumentParser] = {}  # the top level's: name -> parser

    def error(self, message: str):
        command = self.prog.split(" ", 1)[1] if " " in self.prog else self.prog
        error_line(command, ValueError(f"{message}; see {self.prog} --help"))
        self.exit(EXIT_INVALID)

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            # argparse gives the command's leftovers to the top level: the command says so
            owner = self.commands.get(str(getattr(parsed, "command", "")), self)
            owner.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (:data:`gpuia.cli.commands.COMMANDS`); its errors are one
    line each (:class:`_Parser`)."""
    p = _Parser(
        prog="gpuia",
        description="Direct3D 12 Input Assembler and Stream Output through WebGPU, checked "
                    "against an exact CPU reference.")
    p.add_argument("--version", action="version", version=f"gpuia {__version__}")
    subparsers = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_parsers(subparsers)  # each command's parser is a _Parser too (argparse's default)
    p.commands = dict(subparsers.choices)
    return p


def main(argv=None, *, devices=None, parser=None) -> int:
    """Run one command line (``argv``, default ``sys.argv[1:]``) in this process; returns its
    exit status, as the ``gpuia`` program would exit with it.

    ``devices``: a :class:`gpuia.gpu.device.DevicePool` that the commands choosing adapters
    (``check``, ``layout``) take their devices from and leave them in, for a caller that runs
    many command lines in one process; None (default): each command makes its own.
    ``parser``: :func:`build_parser`'s parser, made once by such a caller; None (default): a
    new one.

    SIGINT and SIGTERM end it with one line and status 130 / 143 (:mod:`gpuia.util.interrupt`);
    a standard output that cannot be written (a full disk) is one error line and status 2, a
    closed pipe a quiet end. Bad arguments raise SystemExit(2) from argparse, after one line
    ``error: <command>: <message>; see gpuia <command> --help``."""
    with interrupt.ending_on_signals():
        try:
            argv = sys.argv[1:] if argv is None else list(argv)
            args = (parser or build_parser()).parse_args(argv)
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


