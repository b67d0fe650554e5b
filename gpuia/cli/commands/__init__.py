"""The ``gpuia`` commands, one module each, registered from :data:`COMMANDS`.

Every command module follows one convention:

* ``add_parser(subparsers)`` adds the command's subparser (its name, help and options, built
  from the option groups of :mod:`gpuia.cli.common`) and returns it;
* ``run(args) -> int`` runs the command on the parsed arguments and returns its exit status
  (:data:`gpuia.cli.common.EXIT_OK` 0, ``EXIT_DIFF`` 1 a difference found, ``EXIT_INVALID`` 2
  invalid input, after one ``error:`` line per failing input, :func:`gpuia.cli.common.error_line`).

A module imports at its top only what building its parser and running need without wgpu; what
needs wgpu (the GPU side) or an optional extra is imported where the command runs, so that
``gpuia --help`` and ``gpuia validate`` start without them. A new command is one new module
here and its row in :data:`COMMANDS`.
"""

from __future__ import annotations

from . import (
    adapters,
    check,
    demo,
    formats,
    fuzz,
    layout,
    report,
    run,
    shader,
    translate,
    validate,
)

__all__ = ["COMMANDS", "add_parsers"]

COMMANDS = (validate, run, check, report, adapters, formats, demo, fuzz, layout, translate,
            shader)
"""The command modules, in the order ``gpuia --help`` lists them."""


def add_parsers(subparsers) -> None:
    """Add every command's subparser, with the command's ``run`` as its ``func`` default."""
    for module in COMMANDS:
        module.add_parser(subparsers).set_defaults(func=module.run)
