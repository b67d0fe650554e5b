"""The WGSL library gpuia ships: the files of ``shaders/`` (installed as ``gpuia/shaders``).

* ``ia_decode.wgsl``: the exact channel decoders every vertex-pulling program includes
  (:mod:`gpuia.wgsl.fetch`);
* ``draw_auto.wgsl``: DrawAuto's vertex count, computed on the GPU from a Stream Output counter.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

__all__ = ["load_shader_source"]


@lru_cache(maxsize=None)
def load_shader_source(name: str) -> str:
    """Text of a WGSL file shipped in ``shaders/`` (installed as ``gpuia/shaders``)."""
    here = Path(__file__).resolve().parent.parent
    for folder in (here / "shaders", here.parent / "shaders"):
        path = folder / name
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(f"gpuia shader {name} not found (looked in gpuia/shaders and shaders/)")
