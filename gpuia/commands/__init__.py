"""``gpuia`` subcommands that live in their own modules.

Every module here (names not starting with ``_``) defines ``register(subparsers)``, which adds
its subparser and sets ``func`` to a callable taking the parsed arguments and returning the exit
status (0 ok, 1 a difference found, 2 invalid input: ``gpuia.cli.EXIT_*``). ``gpuia.cli`` discovers
them, so a new command is one new file. Shared CLI helpers (error lines, GPU options) are in
``gpuia.cli``.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["register_all"]


def register_all(subparsers) -> None:
    """Add every command module's subparser, in name order."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}").register(subparsers)
