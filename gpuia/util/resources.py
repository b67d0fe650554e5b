"""gpuia's shader files: every WGSL piece its programs are made of and the C++ of the CPU
reference, in the top-level ``shaders/`` folder of the repository. :func:`shader_text` is the one
way gpuia reads them.

Where they are: in an installed wheel, ``gpuia/shaders`` (the wheel maps the folder there:
``[tool.hatch.build.targets.wheel.force-include]`` in pyproject.toml); in a checkout, ``shaders/``
beside the ``gpuia/`` package. The wheel's folder is looked for first, through
:mod:`importlib.resources`.

A file holds the per-specialisation numbers and names as placeholders, ``{{NAME}}`` (capitals,
digits and ``_``), which :func:`shader_text` fills in from its keyword arguments in one pass
(a value's own text is never searched for placeholders).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from ..errors import GpuiaError

__all__ = ["shader_text", "shader_names", "shader_placeholders"]

_PLACEHOLDER = re.compile(r"\{\{([A-Z][A-Z0-9_]*)\}\}")
# One pass over the file: a placeholder alone on its line (with the line's break), or any other.
_FILL = re.compile(r"^(?P<indent>[ \t]*)\{\{(?P<line>[A-Z][A-Z0-9_]*)\}\}[ \t]*(?P<end>\n|\Z)"
                   r"|\{\{(?P<name>[A-Z][A-Z0-9_]*)\}\}", re.M)


@cache
def _folder() -> Traversable:
    """The folder of the shader files: the wheel's ``gpuia/shaders``, else the checkout's
    ``shaders/``."""
    packaged = resources.files("gpuia").joinpath("shaders")
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "shaders"
    if checkout.is_dir():
        return checkout
    raise GpuiaError(f"gpuia's shader files are missing: neither {packaged} (an installed "
                     f"wheel) nor {checkout} (a checkout) is a folder")


@cache
def shader_names() -> tuple[str, ...]:
    """The names of the shader files (``ia_decode.wgsl``, ``runner.cpp``, ``gs_entry.hlsl``,
    ...), sorted."""
    return tuple(sorted(p.name for p in _folder().iterdir()
                        if p.is_file() and p.name.endswith((".wgsl", ".cpp", ".hlsl"))))


@cache
def _read(name: str) -> str:
    if name not in shader_names():
        raise GpuiaError(f"gpuia has no shader file {name!r} (it has "
                         f"{', '.join(shader_names())})")
    text = _folder().joinpath(name).read_text(encoding="utf-8")
    return text[:-1] if text.endswith("\n") else text


def shader_placeholders(name: str) -> frozenset[str]:
    """The placeholders file ``name`` holds (the names between ``{{`` and ``}}``)."""
    return frozenset(_PLACEHOLDER.findall(_read(name)))


def shader_text(name: str, **values: str | int) -> str:
    """The text of shader file ``name``, its placeholders filled in.

    Guaranteed: ``values`` names exactly the file's placeholders, each ``{{NAME}}`` is replaced
    by ``str(values[NAME])``, and nothing else of the file changes, save its last line break,
    which is left out (a piece is joined into a program as a line). A placeholder alone on its
    line (indentation aside) takes a value of several lines, each indented as the placeholder;
    an empty value removes that line.

    Arguments:
        name (str): the file's name, as :func:`shader_names` lists it (no path).
        values: one value per placeholder of the file.

    Raises:
        GpuiaError: no such file (any other name, a path included, lists the files), a
            placeholder without a value, or a value without its placeholder.
    """
    text = _read(name)
    wanted = shader_placeholders(name)
    missing, unused = wanted - values.keys(), values.keys() - wanted
    if missing or unused:
        raise GpuiaError(f"shader file {name}: "
                         + "; ".join(([f"no value for {', '.join(sorted(missing))}"]
                                      if missing else [])
                                     + ([f"no placeholder for {', '.join(sorted(unused))}"]
                                        if unused else [])))
    if not wanted:
        return text

    def fill(m: re.Match) -> str:
        if m.group("name") is not None:
            return str(values[m.group("name")])
        value = str(values[m.group("line")])
        if not value:
            return ""  # the line goes, its break with it
        indent = m.group("indent")
        return "\n".join(indent + line if line else line
                         for line in value.split("\n")) + m.group("end")

    return _FILL.sub(fill, text)
