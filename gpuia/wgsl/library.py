"""The WGSL library as gpuia 0.1 named it: :func:`load_shader_source` and :func:`shader_names`,
kept for their callers. Every shader file is in the top-level ``shaders/`` folder and read
through :func:`gpuia.util.resources.shader_text`, the one reader of those files:

* ``ia_decode.wgsl``: the exact channel decoders every vertex-pulling program includes
  (:mod:`gpuia.wgsl.fetch`);
* the other ``.wgsl`` files: the pieces gpuia's programs are made of, most with placeholders
  its generators fill in (``draw_auto.wgsl``: DrawAuto's vertex count, computed on the GPU from a
  Stream Output counter, :func:`gpuia.wgsl.so_pass.draw_auto_program`).
"""

from __future__ import annotations

from ..errors import GpuiaError
from ..util import resources

__all__ = ["load_shader_source", "shader_names"]


def shader_names() -> tuple[str, ...]:
    """The names of the WGSL shader files, sorted."""
    return tuple(n for n in resources.shader_names() if n.endswith(".wgsl"))


def load_shader_source(name: str) -> str:
    """The text of WGSL shader file ``name`` (e.g. ``"ia_decode.wgsl"``), as the file holds
    it. Only the shader files are read, and only one without placeholders: any other name (a
    path included) raises :class:`~gpuia.errors.GpuiaError` listing the files, and so does a
    file whose placeholders its generator fills in."""
    if name not in shader_names():
        raise GpuiaError(f"gpuia has no WGSL shader file {name!r} (it has "
                         f"{', '.join(shader_names())})")
    return resources.shader_text(name) + "\n"
