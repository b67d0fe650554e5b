"""gpuia 0.1's import paths keep working for one release (gpuia/_moved.py): each old module
name is the very module of its new path, with a DeprecationWarning naming the new path. Needs no
adapter."""

import importlib
import subprocess
import sys

import pytest

from gpuia._moved import MODULES, NAMES
from helpers import REPO


@pytest.mark.parametrize("old", sorted(MODULES))
def test_an_old_module_path_is_the_new_module(old):
    new = importlib.import_module(MODULES[old])
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=MODULES[old].replace(".", r"\.")):
        aliased = importlib.import_module(old)
    assert aliased is new


@pytest.mark.parametrize("package, name", sorted(NAMES))
def test_a_name_a_package_used_to_export_is_the_moved_object(package, name):
    where = importlib.import_module(NAMES[(package, name)])
    with pytest.warns(DeprecationWarning, match=name):
        obj = getattr(importlib.import_module(package), name)
    assert obj is getattr(where, name)


def test_a_name_no_package_exported_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        _ = importlib.import_module("gpuia.gpu").not_a_name


def test_gpuia_itself_imports_no_moved_path():
    """Inside gpuia only the new paths are used: a fresh interpreter importing every module of
    the package, with gpuia's deprecation warnings as errors, succeeds."""
    modules = sorted(m for m in _gpuia_modules() if not m.startswith("gpuia.__main__"))
    code = "import importlib\n" + "".join(f"importlib.import_module({m!r})\n" for m in modules)
    run = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]


def _gpuia_modules():
    root = REPO / "gpuia"
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts)
