"""Import paths of gpuia 0.1 that moved when the package was split into layers: they keep working
for one release, with a DeprecationWarning naming the new path.

``MODULES`` maps an old module path to its new one: a finder on ``sys.meta_path`` makes the old
name the very same module object as the new one, so ``import``, ``from ... import`` and
monkeypatching all act on the one module. ``NAMES`` maps names a package used to export to the
module that now holds them, for the packages' ``__getattr__``."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

__all__ = ["MODULES", "NAMES", "install", "moved_name"]

MODULES = {
    "gpuia.formats": "gpuia.d3d.formats",
    "gpuia.desc": "gpuia.d3d.desc",
    "gpuia.layout": "gpuia.d3d.layout",
    "gpuia.topology": "gpuia.d3d.topology",
    "gpuia.streamout": "gpuia.d3d.so_declaration",
    "gpuia.files": "gpuia.util.files",
    "gpuia.image": "gpuia.util.image",
    "gpuia.progress": "gpuia.util.progress",
    "gpuia.interrupt": "gpuia.util.interrupt",
    "gpuia.case": "gpuia.harness.case",
    "gpuia.runner": "gpuia.harness.run",
    "gpuia.compare": "gpuia.harness.compare",
    "gpuia.crosscheck": "gpuia.harness.crosscheck",
    "gpuia.lint": "gpuia.harness.lint",
    "gpuia.report": "gpuia.harness.report.text",
    "gpuia.htmlreport": "gpuia.harness.report.html",
    "gpuia.plot": "gpuia.harness.report.plot",
    "gpuia.reference.streamout": "gpuia.reference.so_output",
    "gpuia.gpu.capture": "gpuia.harness.run_gpu",
    "gpuia.gpu.raster": "gpuia.harness.raster_check",
    "gpuia.gpu.streamout": "gpuia.gpu.so_engine",
    "gpuia.wgsl.streamout": "gpuia.wgsl.so_pass",
    "gpuia.commands": "gpuia.cli.commands",
    "gpuia.commands.demo": "gpuia.cli.commands.demo",
    "gpuia.commands.fuzz": "gpuia.cli.commands.fuzz",
    "gpuia.commands.layout": "gpuia.cli.commands.layout",
    "gpuia._demos": "gpuia.demos",
    "gpuia._demos.common": "gpuia.demos.common",
    "gpuia._demos.encode": "gpuia.demos.encode",
    "gpuia._demos.geometry": "gpuia.demos.geometry",
    "gpuia._demos.image_diff": "gpuia.demos.image_diff",
    "gpuia._demos.instancing": "gpuia.demos.instancing",
    "gpuia._demos.mesh": "gpuia.demos.mesh",
    "gpuia._demos.real_layouts": "gpuia.demos.real_layouts",
    "gpuia._demos.render_all": "gpuia.demos.render_all",
    "gpuia._demos.stream_output": "gpuia.demos.stream_output",
}

NAMES = {
    ("gpuia.gpu", "GPUResult"): "gpuia.harness.run_gpu",
    ("gpuia.gpu", "run_case_gpu"): "gpuia.harness.run_gpu",
    ("gpuia.gpu", "upload_case"): "gpuia.harness.run_gpu",
}


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} moved to {new}; the old path goes in the next release",
                  DeprecationWarning, stacklevel=3)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in MODULES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # The import system reads the module back from sys.modules after this call, so the old
        # name ends up bound to the new module itself.
        new = MODULES[module.__name__]
        _warn(module.__name__, new)
        sys.modules[module.__name__] = importlib.import_module(new)


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())  # before the path finder: a moved package's
        # submodules must alias too, not load again from its new folder under the old name


def moved_name(package: str, name: str):
    """The object ``package.name`` used to be, for a package's ``__getattr__``; AttributeError
    if it never was."""
    where = NAMES.get((package, name))
    if where is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    _warn(f"{package}.{name}", f"{where}.{name}")
    return getattr(importlib.import_module(where), name)
