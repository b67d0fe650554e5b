"""What every demo shares: the frame loop into offscreen targets, the clear colour, the camera,
and the :class:`Demo` interface the window loop of ``gpuia demo`` drives.

A demo is a :class:`Demo` subclass. Its constructor builds everything that does not change from
frame to frame (buffers, pipeline states) for one render-target format; :meth:`Demo.draw`
records one frame's draws into a context whose targets are already bound and cleared.
:meth:`Demo.notes` returns what ``gpuia demo`` prints after drawing: the path each draw took
(``plan.explain()``) and, for some demos, verdicts.

Frames are numbered from 0; frame ``i`` shows the animation at ``i / FPS`` seconds, so a PNG of
N frames is the same on every run and every machine speed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from importlib.resources import as_file, files

import numpy as np

from ..gpu import Context
from ..hlsl import compile_shader
from .geometry import look_at, perspective

__all__ = [
    "CLEAR_COLOR",
    "DSV_FORMAT",
    "FPS",
    "RTV_FORMAT",
    "Demo",
    "camera",
    "draw_frame",
    "hlsl_shader",
    "plan_lines",
    "run",
]

CLEAR_COLOR = (0.08, 0.09, 0.12, 1.0)
"""The render target's clear colour (RGBA, linear)."""
RTV_FORMAT = "R8G8B8A8_UNORM"
DSV_FORMAT = "D32_FLOAT"
FPS = 60.0


class Demo(ABC):
    """Base class of the demos (see the module docstring). ``options`` holds the command line's
    demo options (``mesh``: a mesh file for the mesh demo)."""

    name = "demo"

    def __init__(self, device, rtv_format: str = RTV_FORMAT, options: dict | None = None):
        self.device = device
        self.rtv_format = rtv_format
        self.options = dict(options or {})
        self.plans: list[tuple[str, object]] = []  # (label, Plan) of the last frame's draws
        self.differences = 0  # checks in notes() that found a difference (gpuia demo: exit 1)
        self.shaders: list[str] = []  # "file: entry, entry" of the HLSL shaders it compiled

    @abstractmethod
    def draw(self, ctx, frame: int, aspect: float) -> None:
        """Record frame ``frame``'s draws (targets bound and cleared; ``aspect`` = w / h) and
        append each draw's ``(label, plan)`` to ``self.plans``."""

    def notes(self) -> list[str]:
        """Lines to print after the last frame: the HLSL shaders and each draw's path."""
        lines = [f"shaders: HLSL {s} (compiled by Slang through gpuia.hlsl)"
                 for s in self.shaders]
        return lines + plan_lines(self.plans)

    def hlsl(self, file: str, entry: str, stage: str = "vertex"):
        """:func:`hlsl_shader`, remembered for :meth:`notes`."""
        shader = hlsl_shader(file, entry, stage)
        label = f"demos/hlsl/{file}"
        for i, line in enumerate(self.shaders):
            if line.startswith(label + ":"):
                self.shaders[i] = f"{line}, {entry}"
                break
        else:
            self.shaders.append(f"{label}: {entry}")
        return shader


HLSL_DIR = files(__package__) / "hlsl"
"""The demos' HLSL shaders (docs/demos.md): package data, an :mod:`importlib.resources`
traversable."""


def hlsl_shader(file: str, entry: str, stage: str = "vertex"):
    """A demo shader compiled from ``hlsl/<file>`` (Slang, through gpuia.hlsl; cached), its
    ``#include`` files found next to it."""
    source = (HLSL_DIR / file).read_text(encoding="utf-8")
    # Slang finds #include files in folders: the package's folder as a file system path.
    with as_file(HLSL_DIR) as folder:
        return compile_shader(source, stage, entry, file_name=f"demos/hlsl/{file}",
                              include_dirs=[folder])


def plan_lines(plans) -> list[str]:
    """``label: path: native`` followed by the plan's indented reasons, for each plan."""
    out = []
    for label, plan in plans:
        first, *rest = plan.explain().splitlines()
        out += [f"{label}: {first}", *rest]
    return out


def camera(aspect: float, eye=(0.0, 1.4, 4.2), target=(0.0, 0.0, 0.0), fovy_degrees=40.0):
    """``(view_projection, eye)`` of a right-handed camera (see ``geometry``)."""
    proj = perspective(np.radians(fovy_degrees), aspect, 0.1, 100.0)
    return proj @ look_at(eye, target), np.asarray(eye, np.float32)


def run(demo_class, device, size=(160, 120), frames: int = 1, options: dict | None = None,
        rtv_format: str = RTV_FORMAT, first_frame: int = 0):
    """Draw frames ``first_frame`` .. ``frames - 1`` of ``demo_class`` into an offscreen
    ``size`` = (width, height) render target with a D32_FLOAT depth buffer; returns
    ``(image, demo)``, the image of the last frame as read back ((h, w, 4) uint8 for 8-bit
    formats). Each frame is submitted before the next one starts, so per-frame constant buffer
    updates never overtake earlier draws."""
    width, height = size
    if not 0 <= first_frame < frames:
        raise ValueError(f"frames must be >= 1 and first_frame in 0..frames-1, got {frames}, "
                         f"{first_frame}")
    demo = demo_class(device, rtv_format, options)
    rt = device.create_render_target(width, height, rtv_format)
    ds = device.create_depth_stencil(width, height, DSV_FORMAT)
    ctx = Context(device)
    for frame in range(first_frame, frames):
        draw_frame(demo, ctx, rt, ds, frame)
    return rt.read(), demo


def draw_frame(demo: Demo, ctx, rt, ds, frame: int) -> None:
    """Bind and clear ``rt`` and ``ds``, record ``demo``'s frame ``frame`` and submit it."""
    ctx.om_set_render_targets([rt], ds)
    ctx.clear_render_target_view(rt, CLEAR_COLOR)
    ctx.clear_depth_stencil_view(ds, 1.0)
    demo.plans = []
    demo.draw(ctx, frame, rt.width / rt.height)
    ctx.flush()
