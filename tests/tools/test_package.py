"""gpuia as a package: the wheel ``python -m build`` makes holds the whole package (its code,
``py.typed``), the shader files of shaders/ (as ``gpuia/shaders/``, where gpuia reads them) and
the demo programs of demos/ (with their shaders and data, as ``gpuia/_demos/``) and nothing
else, and the public API
is fully annotated, as ``py.typed`` promises.

The public API is the one ``tests/unit/test_public_docstrings.py`` defines (gpuia's ``__all__``
and those of the core D3D-model, reference, harness, error and GPU modules); annotated means
every argument of every exported function, public method, property and explicit constructor, and
every return (a constructor's may be left out, as PEP 484 allows).
"""

from __future__ import annotations

import enum
import inspect
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import gpuia
from unit.test_public_docstrings import MODULES, exported, gpuia_classes

ROOT = Path(__file__).resolve().parents[2]


# -- the wheel ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from this checkout (PEP 517, in an isolated build environment)."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out),
                           str(ROOT)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (path,) = out.glob("gpuia-*.whl")
    return path


@pytest.fixture(scope="module")
def wheel_names(wheel) -> set[str]:
    with zipfile.ZipFile(wheel) as z:
        return set(z.namelist())


def package_files(folder: str = "gpuia") -> list[str]:
    """Every file of ``folder`` in the checkout that git does not ignore (caches excluded): what
    the wheel must hold."""
    proc = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "--", folder],
                          cwd=ROOT, capture_output=True, text=True)
    if proc.returncode == 0:
        names = proc.stdout.splitlines()
    else:  # not a git checkout: every file but caches
        names = [p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*")
                 if p.is_file()]
    return sorted(n for n in names if "__pycache__" not in n and not n.endswith(".pyc")
                  and (ROOT / n).is_file())


def test_wheel_holds_the_package_data(wheel_names):
    for name in ("gpuia/py.typed", "gpuia/shaders/ia_decode.wgsl",
                 "gpuia/shaders/draw_auto.wgsl", "gpuia/_demos/hlsl/lit.hlsl",
                 "gpuia/_demos/hlsl/scene.hlsli", "gpuia/_demos/hlsl/twist.hlsl",
                 "gpuia/_demos/hlsl/instancing.hlsl", "gpuia/_demos/data/real-layouts.json",
                 "gpuia/_demos/_common.py", "gpuia/_demos/mesh.py",
                 "gpuia/shaders/runner.cpp", "gpuia/shaders/cpu_defined.cpp",
                 "gpuia/shaders/launcher.cpp"):
        assert name in wheel_names, name


def test_wheel_holds_every_file_of_the_package_and_nothing_else(wheel_names):
    missing = [n for n in package_files() if n not in wheel_names]
    assert not missing, f"files of gpuia/ the wheel lacks: {missing}"
    # demos/ travels whole, as gpuia/_demos/ (pyproject.toml's force-include)
    missing = [n for n in package_files("demos")
               if "gpuia/_demos/" + n.removeprefix("demos/") not in wheel_names]
    assert not missing, f"files of demos/ the wheel lacks: {missing}"
    # shaders/ too, as gpuia/shaders/
    missing = [n for n in package_files("shaders")
               if "gpuia/shaders/" + n.removeprefix("shaders/") not in wheel_names]
    assert not missing, f"files of shaders/ the wheel lacks: {missing}"
    stray = sorted(n for n in wheel_names
                   if not (n.startswith(("gpuia/", "gpuia-0"))))
    assert not stray, f"files outside the package: {stray}"
    assert not [n for n in wheel_names if "__pycache__" in n or n.endswith(".pyc")]


def test_the_wheels_gpuia_reads_the_wheels_shader_files(wheel, tmp_path):
    """gpuia.util.resources finds gpuia/shaders inside the installed package, not the
    checkout's shaders/ (here: the wheel unpacked first on the path)."""
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp_path)
    script = ("from gpuia.util import resources; import gpuia; "
              "print(gpuia.__file__); print(resources._folder()); "
              "print(len(resources.shader_text('ia_decode.wgsl')))")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    where, folder, size = proc.stdout.split("\n")[:3]
    assert Path(where).is_relative_to(tmp_path) and Path(folder) == tmp_path / "gpuia" / "shaders"
    assert int(size) == len((ROOT / "shaders" / "ia_decode.wgsl").read_text()) - 1


def test_wheel_declares_the_command_and_the_pytest_plugin(wheel):
    info = f"gpuia-{gpuia.__version__}.dist-info"
    with zipfile.ZipFile(wheel) as z:
        entry_points = z.read(f"{info}/entry_points.txt").decode()
        metadata = z.read(f"{info}/METADATA").decode()
    lines = [line.replace(" ", "") for line in entry_points.splitlines()]
    assert "[console_scripts]" in lines and "gpuia=gpuia.cli:main" in lines
    assert "[pytest11]" in lines and "gpuia=gpuia.pytest_plugin" in lines
    assert f"Version: {gpuia.__version__}" in metadata.splitlines()


# -- annotations of the public API ----------------------------------------------------------
def _unannotated(qualname: str, func, *, skip_first: bool, need_return: bool) -> list[str]:
    sig = inspect.signature(func)
    params = list(sig.parameters.values())[1 if skip_first else 0:]
    out = [f"{qualname}: argument {p.name}" for p in params
           if p.annotation is inspect.Parameter.empty]
    if need_return and sig.return_annotation is inspect.Signature.empty:
        out.append(f"{qualname}: return")
    return out


def _class_problems(cls) -> list[str]:
    """What the class and its gpuia base classes leave unannotated."""
    return [p for klass in gpuia_classes(cls) for p in _own_members_problems(klass)]


def _own_members_problems(klass) -> list[str]:
    """What one class's own constructor, public methods and properties leave unannotated."""
    out = []
    own = vars(klass)
    init = own.get("__init__")
    if inspect.isfunction(init) and not issubclass(klass, enum.Enum):
        out += _unannotated(f"{klass.__module__}.{klass.__qualname__}.__init__", init,
                            skip_first=True, need_return=False)
    for name, value in own.items():
        if name.startswith("_"):
            continue
        qual = f"{klass.__module__}.{klass.__qualname__}.{name}"
        if isinstance(value, (classmethod, staticmethod)):
            out += _unannotated(qual, value.__func__, skip_first=isinstance(value, classmethod),
                                need_return=True)
        elif inspect.isfunction(value):
            out += _unannotated(qual, value, skip_first=True, need_return=True)
        elif isinstance(value, property) and value.fget is not None:
            out += _unannotated(qual, value.fget, skip_first=True, need_return=True)
    return out


def public_api_problems(module_name: str) -> list[str]:
    import importlib

    module = importlib.import_module(module_name)
    out: list[str] = []
    for name in exported(module_name):
        obj = getattr(module, name)
        if inspect.isclass(obj):
            out += _class_problems(obj)
        elif inspect.isfunction(obj):
            out += _unannotated(f"{obj.__module__}.{obj.__qualname__}", obj, skip_first=False,
                                need_return=True)
    return sorted(set(out))


@pytest.mark.parametrize("module_name", MODULES)
def test_public_api_is_fully_annotated(module_name):
    problems = public_api_problems(module_name)
    assert not problems, "not annotated:\n" + "\n".join(problems)


def _typed(a: int, *rest: str, key: bool = False) -> None:
    """Fully annotated."""


def _untyped(a, b: int, *rest, **kw):
    """Three arguments and the return unannotated."""


class _Half:
    def __init__(self, x):
        self.x = x

    def method(self, y: int) -> int:
        return y

    @property
    def size(self):
        return 0


def test_checker_names_each_missing_annotation():
    assert _unannotated("f", _typed, skip_first=False, need_return=True) == []
    assert _unannotated("g", _untyped, skip_first=False, need_return=True) == [
        "g: argument a", "g: argument rest", "g: argument kw", "g: return"]
    assert _own_members_problems(_Half) == [
        f"{__name__}._Half.__init__: argument x", f"{__name__}._Half.size: return"]
