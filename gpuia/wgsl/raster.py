"""The raster probe's program: a vertex stage that places each vertex by the key of its
(SV_VertexID, SV_InstanceID) and a fragment stage that appends one record per fragment (its
pixel, its primitive's facing and the flat key of the provoking vertex). Text only: the
program is the shader file ``raster_probe.wgsl``; :mod:`gpuia.gpu.raster.probe` runs it and
:mod:`gpuia.harness.raster_check` compares its records with the reference's coverage. Its
blocks are :data:`gpuia.wgsl.blocks.RASTER_PARAMS` and :data:`~gpuia.wgsl.blocks.RASTER_RECORD`.
"""

from __future__ import annotations

from ..util.resources import shader_text
from .blocks import RASTER_PARAMS, RASTER_RECORD

__all__ = ["raster_probe_program"]


def raster_probe_program(size: int, salt: int, subpixel: int) -> str:
    """The probe's WGSL (entry points ``vs`` and ``fs``) for a ``size`` x ``size`` target: a
    vertex's key is ``lowbias32(SV_VertexID ^ lowbias32(SV_InstanceID ^ salt))``, its position
    that key's hashes modulo ``size * subpixel`` in units of 1/``subpixel`` pixel (the
    reference's :func:`gpuia.reference.coverage.key_positions` for the same numbers)."""
    return shader_text("raster_probe.wgsl", RASTER_PARAMS=RASTER_PARAMS.wgsl(),
                       RASTER_RECORD=RASTER_RECORD.wgsl(), SALT=f"{salt:#x}",
                       SPAN=size * subpixel, HALF=size * subpixel // 2, SIZE=size) + "\n"
