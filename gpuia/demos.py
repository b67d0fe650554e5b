"""gpuia's demo programs: where they are, and each one by name (docs/demos.md).

The demos are programs in the repository's top-level ``demos/`` folder: each one a script a user
can run and copy (``python demos/instancing.py --out inst.png``), which imports gpuia's public
API and one helper beside it, ``demos/_common.py``. The wheel ships the folder as
``gpuia/_demos/`` (pyproject.toml's force-include), with the HLSL shaders and data files beside
the programs, so ``gpuia demo NAME`` runs the same files from a wheel and from a checkout:
:func:`folder` finds them either way, :func:`load` loads one as a module, :func:`run` runs a demo
as ``python demos/NAME.py`` does.

A program is loaded as a module named ``gpuia_demo_NAME``, not run as ``__main__``; the helper is
the module ``_common``, as it is when a script runs from its folder. Nothing here imports the
command line (``gpuia.cli``) or wgpu; loading a demo imports what it draws with.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from .errors import InvalidDescError, UnsupportedError

__all__ = ["DEMOS", "HELPER", "demo_module", "folder", "load", "run"]

DEMOS = {
    "mesh": "a lit Utah teapot (or --mesh FILE) from a two-slot layout: R32G32B32_FLOAT "
            "positions, R10G10B10A2_UNORM normals, R16G16_FLOAT UVs",
    "instancing": "2048 teapots: per-instance transforms at step rate 1 (native path) and "
                  "colours at step rate 32 (pulling path)",
    "stream_output": "the teapot twisted once through Stream Output, then drawn 7 times "
                     "with DrawAuto",
    "real_layouts": "23 real engine layouts fed synthetic data, each with its cross-check "
                    "verdict",
    "particles": "a fountain of sparks: a geometry shader steps them through Stream Output "
                 "(ping-pong, DrawAuto), another expands them into camera-facing quads",
}
"""Demo name (also its program, ``demos/NAME.py``) -> one line saying what it shows."""

HELPER = "_common"
"""The module every program imports its shared parts from (``demos/_common.py``)."""


def folder() -> Path:
    """The folder of the demo programs: ``gpuia/_demos`` in an installed wheel, else the
    checkout's ``demos/`` beside the ``gpuia`` package. Raises
    :class:`~gpuia.errors.UnsupportedError` when neither holds them."""
    package = Path(__file__).resolve().parent
    # The wheel's copy first: beside an installed package, ../demos is any other distribution's.
    for where in (package / "_demos", package.parent / "demos"):
        if (where / f"{HELPER}.py").is_file():
            return where
    raise UnsupportedError(f"gpuia's demo programs are missing: neither {package / '_demos'} "
                           f"(a wheel) nor {package.parent / 'demos'} (a checkout) holds them")


def load(name: str) -> ModuleType:
    """The program ``NAME.py`` of :func:`folder` (a demo of :data:`DEMOS`, ``render_all``,
    ``image_diff``, or the helper ``_common``) as a module, loaded once per process; the helper
    is loaded first, as ``_common``, for the program's ``import _common``.

    Raises:
        InvalidDescError: the folder has no such program.
        UnsupportedError: the folder is missing, or another module ``_common`` is already
            imported.
    """
    where = folder()
    path = where / f"{name}.py"
    if not name.isidentifier() or not path.is_file():
        raise InvalidDescError("demos", "name", name, f"no program {name}.py in {where}")
    helper = _module(HELPER, where / f"{HELPER}.py")
    return helper if name == HELPER else _module(f"gpuia_demo_{name}", path)


def demo_module(name: str) -> ModuleType:
    """The program of the demo ``name``, a key of :data:`DEMOS`: its ``DEMO`` (the
    ``_common.Demo`` subclass it draws) and what else it defines. Raises
    :class:`~gpuia.errors.InvalidDescError` for any other name, listing the demos."""
    if name not in DEMOS:
        raise InvalidDescError("demos", "name", name, f"expected one of {', '.join(DEMOS)}")
    return load(name)


def run(name: str, argv: Sequence[str] = ()) -> int:
    """Run the demo ``name`` as ``python demos/NAME.py ARGV`` does (``_common.main``): draw it
    in a window or headless, write the PNG, print what it drew; returns the exit status (0, 1 a
    difference found, 2 bad arguments or input, one ``error: demo: ...`` line)."""
    program = demo_module(name)
    return load(HELPER).main(program.DEMO, list(argv), prog=f"gpuia demo {name}")


def _module(module_name: str, path: Path) -> ModuleType:
    """The module of the file ``path`` under ``module_name``: the one already imported from that
    file, else executed now."""
    loaded = sys.modules.get(module_name)
    if loaded is not None:
        if Path(getattr(loaded, "__file__", "") or "").resolve() != path.resolve():
            raise UnsupportedError(f"a module {module_name} from {loaded.__file__} is already "
                                   f"imported; the demos need theirs, {path}")
        return loaded
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None  # a .py file always has a loader
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: dataclasses and the program's own imports look it up there.
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module
