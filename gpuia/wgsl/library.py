"""The WGSL library gpuia ships: the files in ``gpuia/wgsl/shaders/``, package data read through
:mod:`importlib.resources` (so they are found in a source tree, an installed wheel or a zip alike).

* ``ia_decode.wgsl``: the exact channel decoders every vertex-pulling program includes
  (:mod:`gpuia.wgsl.fetch`);
* ``draw_auto.wgsl``: DrawAuto's vertex count, computed on the GPU from a Stream Output counter.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from ..errors import GpuiaError

__all__ = ["load_shader_source", "shader_names"]


def _folder():
    return resources.files(__package__).joinpath("shaders")


@cache
def shader_names() -> tuple[str, ...]:
    """The names of the library's files, sorted."""
    return tuple(sorted(p.name for p in _folder().iterdir() if p.name.endswith(".wgsl")))


@cache
def load_shader_source(name: str) -> str:
    """The text of library file ``name`` (e.g. ``"ia_decode.wgsl"``). Only the library's own
    files are read: any other name (a path included) raises :class:`~gpuia.errors.GpuiaError`
    listing them."""
    if name not in shader_names():
        raise GpuiaError(f"gpuia's WGSL library has no file {name!r} (it has "
                         f"{', '.join(shader_names())})")
    return _folder().joinpath(name).read_text(encoding="utf-8")
