"""gpuia's demos: real draws into real render targets, driven by D3D12 input layouts and slot
bindings (docs/demos.md).

Each demo is a module exposing ``DEMO`` (a :class:`common.Demo` subclass, what ``gpuia demo``'s
window loop drives) and ``render(device, size, frames, options)``, which returns the last frame
as an (h, w, 4) uint8 image. :data:`DEMOS` lists them under their command-line names, and
:func:`demo_module` finds one by name. Their data files (``hlsl/``: the HLSL shaders, ``data/``:
the real layouts) are package data, read with :mod:`importlib.resources`.

The demos draw through the GPU side and the harness only. ``render_all`` and ``image_diff`` are
scripts over them (``python -m gpuia.demos.render_all``), printing errors as ``gpuia`` does.
"""

import importlib

from ..errors import InvalidDescError

__all__ = ["DEMOS", "demo_module"]

DEMOS = {
    "mesh": "a lit Utah teapot (or --mesh FILE) from a two-slot layout: R32G32B32_FLOAT "
            "positions, R10G10B10A2_UNORM normals, R16G16_FLOAT UVs",
    "instancing": "2048 teapots: per-instance transforms at step rate 1 (native path) and "
                  "colours at step rate 32 (pulling path)",
    "stream_output": "the teapot twisted once through Stream Output, then drawn 7 times "
                     "with DrawAuto",
    "real_layouts": "23 real engine layouts fed synthetic data, each with its cross-check "
                    "verdict",
}
"""Demo name (also its module) -> one line saying what it shows."""


def demo_module(name: str):
    """The module of the demo ``name``, a key of :data:`DEMOS` (its ``DEMO`` class and
    ``render``). Raises :class:`~gpuia.errors.InvalidDescError` for any other name, listing
    the demos."""
    if name not in DEMOS:
        raise InvalidDescError("demos", "name", name, f"expected one of {', '.join(DEMOS)}")
    return importlib.import_module(f"{__name__}.{name}")
