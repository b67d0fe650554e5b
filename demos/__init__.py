"""gpuia's demos: real draws into real render targets, driven by D3D12 input layouts and slot
bindings (docs/demos.md).

Each demo is a module exposing ``DEMO`` (a :class:`common.Demo` subclass, what ``gpuia demo``'s
window loop drives) and ``render(device, size, frames, options)``, which returns the last frame
as an (h, w, 4) uint8 image. :data:`DEMOS` lists them under their command-line names.

The wheel ships this folder as ``gpuia._demos``; in a checkout it is found next to ``gpuia/``
(``gpuia.commands.demo.demo_package``).
"""

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
