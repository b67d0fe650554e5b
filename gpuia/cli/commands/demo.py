"""``gpuia demo [NAME]``: draw one of the demos in a window or headless, and write a PNG.

``NAME`` is ``mesh`` (default), ``instancing``, ``stream_output`` or ``real_layouts``
(docs/demos.md). A window opens when a display exists (``DISPLAY`` or ``WAYLAND_DISPLAY``) and
glfw and rendercanvas import (the extra ``window``); otherwise, or with ``--headless``, the demo
draws into offscreen targets, saying why. Either way the last frame is written as a PNG (Pillow,
the extra ``demo``; after a window closes, its last frame is drawn again offscreen at
``--size``), and the command prints where it is, the path each draw took, and for
``real_layouts`` each layout's cross-check verdict.

Options: ``--out FILE.png`` (default ``gpuia-demo-NAME.png`` in the current folder),
``--size WxH`` (800x600), ``--frames N`` (frames of animation; headless default 1, in a window
the window closes after N frames, and without ``--frames`` it stays open until closed),
``--adapter S`` / ``--gpu-backend NAME`` (as for ``gpuia check``), ``--mesh FILE`` (mesh demo
only: an OBJ, glTF, PLY or STL file through trimesh, the extra ``mesh``).

Exit status: 0 drawn and written; 1 a real-layouts verdict found a difference; 2 bad arguments
or input (one ``error:`` line), a missing extra included.

The demos are the package :mod:`gpuia.demos`; this module is its command line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, overload

from ...demos import DEMOS, demo_module
from ...errors import GpuiaError, InvalidDescError, UnsupportedError
from ..common import EXIT_DIFF, EXIT_INVALID, EXIT_OK, error_line

__all__ = ["add_parser", "run", "parse_size", "parse_frames", "window_unavailable",
           "run_window", "WindowUnavailable"]


def parse_size(text: str) -> tuple[int, int]:
    """``"800x600"`` -> (800, 600); each side 1..16384 (``InvalidDescError`` otherwise)."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m or not all(0 < int(v) <= 16384 for v in m.groups()):
        raise InvalidDescError("arguments", "--size", text, "expected WIDTHxHEIGHT, each 1..16384 "
                                                      "(e.g. 800x600)")
    return int(m.group(1)), int(m.group(2))


@overload
def parse_frames(text: str) -> int: ...
@overload
def parse_frames(text: None) -> None: ...
def parse_frames(text: str | None) -> int | None:
    """A frame count 1..1000000 from its text; None stays None (``InvalidDescError``)."""
    if text is None:
        return None
    if not re.fullmatch(r"\s*\d+\s*", text) or not 1 <= int(text) <= 1_000_000:
        raise InvalidDescError("arguments", "--frames", text,
                               "expected an integer from 1 to 1000000")
    return int(text)


def _demo_name(text: str) -> str:
    name = text.strip().lower().replace("-", "_")
    if name not in DEMOS:
        raise InvalidDescError("arguments", "NAME", text, f"expected one of {', '.join(DEMOS)}")
    return name


def window_unavailable() -> str | None:
    """Why no window can open here (``None``: one can)."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "no display (DISPLAY and WAYLAND_DISPLAY are unset)"
    try:
        import glfw  # noqa: F401
        import rendercanvas.glfw  # noqa: F401
    except ImportError:
        return "glfw and rendercanvas are not installed (pip install 'gpuia[window]')"
    return None


class WindowUnavailable(Exception):
    """A window was expected but glfw could not open one; the demo then draws offscreen."""


def run_window(demo_class, device, size, frames, options, title: str) -> int:
    """Animate ``demo_class`` in a glfw window (rendercanvas) until it is closed, or for
    ``frames`` frames; returns the number of frames shown. The demo draws straight into the
    window's surface texture, in its preferred format without sRGB encoding (the demos' pixel
    shaders encode gamma themselves)."""
    # glfw and rendercanvas are the optional 'window' extra; the GPU side imports wgpu.
    from rendercanvas.glfw import RenderCanvas, loop

    from ...demos import common
    from ...gpu import Context, Texture
    from ...gpu.targets import TARGET_FORMATS

    try:
        canvas = RenderCanvas(size=size, title=f"{title} ($fps)", update_mode="continuous",
                              max_fps=60)
        context = canvas.get_context("wgpu")
    except Exception as exc:  # noqa: BLE001 - glfw reports a missing display in many ways
        raise WindowUnavailable(f"the window could not open ({' '.join(str(exc).split())})") \
            from None
    surface = context.get_preferred_format(device.device.adapter).removesuffix("-srgb")
    names = {f.webgpu: f.name for f in TARGET_FORMATS.values()}
    if surface not in names:
        canvas.close()
        raise UnsupportedError(f"the window's surface format {surface} is not one gpuia renders "
                               f"into")
    context.configure(device=device.device, format=surface)
    demo = demo_class(device, names[surface], options)
    ctx = Context(device)
    state: dict[str, Any] = {"frame": 0, "depth": None}  # the frame count, the depth target

    def draw():
        rt = Texture.from_wgpu(device, context.get_current_texture())
        ds = state["depth"]
        if ds is None or (ds.width, ds.height) != (rt.width, rt.height):
            ds = state["depth"] = device.create_depth_stencil(rt.width, rt.height,
                                                              common.DSV_FORMAT)
        common.draw_frame(demo, ctx, rt, ds, state["frame"])
        state["frame"] += 1
        if frames is not None and state["frame"] >= frames:
            canvas.close()

    canvas.request_draw(draw)
    loop.run()
    return state["frame"]


def run(args) -> int:
    try:
        name = _demo_name(args.name)
        size, frames = parse_size(args.size), parse_frames(args.frames)
        if args.mesh is not None and name != "mesh":
            raise InvalidDescError("arguments", "--mesh", args.mesh, "only the mesh demo draws a "
                                                                "mesh file")
        out = Path(args.out or f"gpuia-demo-{name}.png")
        if out.suffix.lower() != ".png":
            raise InvalidDescError("arguments", "--out", str(out), "the picture is a PNG: name a "
                                                              ".png file")
        # PNG writing (5 ms of imports) and the demos, which draw through the GPU side and so
        # import wgpu, are imported only when the command runs: every gpuia command imports
        # this module to build its parser.
        from ...util.image import check_png_support, write_png

        check_png_support()
        from ...demos import common, geometry
        from ...gpu import get_device

        module = demo_module(name)
        # A mesh file is read once, before any window opens.
        options = {"mesh": geometry.load_mesh(args.mesh) if args.mesh is not None else None}

        device = get_device(args.adapter, args.gpu_backend)
        why = "asked for with --headless" if args.headless else window_unavailable()
        shown = None
        if why is None:
            try:
                shown = run_window(module.DEMO, device, size, frames, options,
                                   f"gpuia demo {name}")
            except WindowUnavailable as exc:
                why = str(exc)
        if why is not None:
            print(f"headless: {why}")
        last = max(shown or frames or 1, 1)
        image, demo = common.run(module.DEMO, device, size, last, options,
                                 first_frame=last - 1 if shown else 0)
        for line in demo.notes():
            print(line)
        path = write_png(out, image).resolve()
    except GpuiaError as exc:
        error_line("demo", exc)
        return EXIT_INVALID
    except OSError as exc:  # --out names a directory, or a place that cannot be written
        error_line("demo", UnsupportedError(f"--out {out}: cannot write the picture: "
                                            f"{exc.strerror or exc}"))
        return EXIT_INVALID
    print(f"picture: {path} ({name}, {size[0]}x{size[1]}, frame {last}, "
          f"{device.info['summary']})")
    return EXIT_DIFF if demo.differences else EXIT_OK


def add_parser(subparsers):
    p = subparsers.add_parser(
        "demo", help="draw a demo in a window (or headless) and write a PNG of its last frame",
        description="Draw one of gpuia's demos: real draws driven by D3D12 input layouts. "
                    "Opens a window when a display and the 'window' extra are there, else draws "
                    "offscreen; always writes a PNG.")
    p.add_argument("name", nargs="?", default="mesh", metavar="NAME",
                   help="mesh (default), instancing, stream_output or real_layouts")
    p.add_argument("--headless", action="store_true", help="draw offscreen even with a display")
    p.add_argument("--out", metavar="FILE.png",
                   help="where to write the picture (default gpuia-demo-NAME.png)")
    p.add_argument("--size", default="800x600", metavar="WxH", help="picture size (800x600)")
    p.add_argument("--frames", default=None, metavar="N",
                   help="frames of animation; the picture is the last (headless default 1; a "
                        "window without --frames stays open until closed)")
    p.add_argument("--mesh", metavar="FILE",
                   help="mesh demo: draw this OBJ, glTF, PLY or STL file (extra 'mesh')")
    p.add_argument("--adapter", metavar="SUBSTRING", default=None,
                   help="GPU adapter whose name contains SUBSTRING (env GPUIA_ADAPTER)")
    p.add_argument("--gpu-backend", metavar="NAME", default=None,
                   help="only adapters of this wgpu backend: Vulkan, OpenGL, Metal, D3D12 "
                        "(env GPUIA_BACKEND)")
    return p
