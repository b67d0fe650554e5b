"""What every demo program shares, so each demo file holds only its own layouts, data and draws:
the program around a demo (options, window or offscreen frames, the PNG, what is printed), the
:class:`Demo` interface, the HLSL shaders and data files beside the demos, the camera and
matrices, the Utah teapot, and vertex records encoded for a D3D12 layout.

A user copying one demo copies it with this file (and ``hlsl/``, ``data/``). It imports gpuia as
any user of the library does, never gpuia's command line: ``gpuia demo NAME`` loads the same
files (``gpuia.demos``) and calls :func:`main`, as ``python demos/NAME.py`` does.

**A demo** is a :class:`Demo` subclass. Its constructor builds everything that does not change
from frame to frame (buffers, pipeline states) for one render-target format; :meth:`Demo.draw`
records one frame's draws into a context whose targets are already bound and cleared;
:meth:`Demo.notes` returns what is printed after drawing: the shaders, the path each draw took
(``plan.explain()``) and, for some demos, verdicts. Frames are numbered from 0; frame ``i``
shows the animation at ``i / FPS`` seconds, so a PNG of N frames is the same on every run and
every machine speed.

**Matrices** are numpy float32 arrays in the mathematical convention: column vectors, a point is
transformed as ``M @ p``, translation in the last column. An HLSL cbuffer's ``float4x4`` is
column-major by default (fxc/dxc), so :func:`column_major_bytes` uploads ``M.T`` in C order and
the shader writes ``mul(M, v)`` for ``M @ v``. View space is right-handed (the camera looks down
-z) and :func:`perspective` maps the view depth range ``[near, far]`` to D3D/WebGPU clip depth
``[0, 1]``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, overload

import numpy as np

from gpuia import InputLayout
from gpuia.d3d.formats import FormatInfo, format_info
from gpuia.errors import GpuiaError, InvalidDescError, UnsupportedError
from gpuia.gpu import Context, Texture, get_device
from gpuia.gpu.targets import TARGET_FORMATS
from gpuia.hlsl import compile_geometry_shader, compile_shader
from gpuia.util.files import printable
from gpuia.util.image import check_png_support, write_png

HERE = Path(__file__).resolve().parent
# The demos' HLSL shaders: the folder, and the name their files go by in messages and notes.
HLSL_DIR, HLSL_NAME = HERE / "hlsl", "demos/hlsl"
DATA_DIR = HERE / "data"
"""The demos' data files: the real layouts, the teapot's patches."""

CLEAR_COLOR = (0.08, 0.09, 0.12, 1.0)
"""The render target's clear colour (RGBA, linear)."""
RTV_FORMAT = "R8G8B8A8_UNORM"
DSV_FORMAT = "D32_FLOAT"
FPS = 60.0


# -- the program: options, window or offscreen, the PNG ------------------------------------------
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


def error_line(label: str, exc: BaseException) -> None:
    """Print the one ``error: LABEL: ...`` line of a refused input on stderr, as ``gpuia`` does
    (a compiler's diagnostic follows, indented)."""
    detail = getattr(exc, "diagnostic", ())
    text = (getattr(exc, "summary", None) if detail else None) or str(exc)
    print(f"error: {printable(label)}: {printable(' '.join(text.split())) or type(exc).__name__}",
          file=sys.stderr)
    for line in detail:
        print(f"    {printable(line)}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """argparse, its errors one ``error: demo: ...`` line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        error_line("demo", ValueError(f"{message}; see {self.prog} --help"))
        self.exit(2)


def options(demo_class, prog: str | None = None) -> argparse.ArgumentParser:
    """The options of a demo program (``gpuia demo`` takes the same ones)."""
    program = sys.modules.get(demo_class.__module__)
    about = (getattr(program, "__doc__", None) or demo_class.name).split("\n\n")[0]
    p = _Parser(prog=prog, description=" ".join(about.split()))
    where = p.add_mutually_exclusive_group()
    where.add_argument("--headless", action="store_true", help="draw offscreen even with a display")
    where.add_argument("--window", action="store_true",
                       help="draw in a window, or fail saying why none can open")
    p.add_argument("--out", metavar="FILE.png",
                   help=f"where to write the picture (default gpuia-demo-{demo_class.name}.png)")
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


def main(demo_class, argv=None, prog: str | None = None) -> int:
    """Run ``demo_class`` as a program (``python demos/NAME.py --help``, ``gpuia demo NAME``).

    A window opens when a display exists (``DISPLAY`` or ``WAYLAND_DISPLAY``) and glfw and
    rendercanvas import (the extra ``window``); otherwise, or with ``--headless``, the demo draws
    offscreen and the first line printed says why; with ``--window`` no window is an error.
    Either way the last frame is written as a PNG (after a window closes, its last frame is drawn
    again offscreen at ``--size``). Printed: the shaders, the path each draw took, the demo's
    own notes, and ``picture: PATH (NAME, WxH, frame N, ADAPTER)``.

    Returns the exit status: 0 drawn and written; 1 a check in the demo's notes found a
    difference; 2 bad arguments or input (one ``error: demo: ...`` line), a missing extra
    included.
    """
    args = options(demo_class, prog).parse_args(argv)
    out = Path(args.out or f"gpuia-demo-{demo_class.name}.png")
    try:
        size, frames = parse_size(args.size), parse_frames(args.frames)
        if out.suffix.lower() != ".png":
            raise InvalidDescError("arguments", "--out", str(out), "the picture is a PNG: name a "
                                                              ".png file")
        check_png_support()
        # Files a demo reads (a mesh) are read once, before any window opens.
        demo_options = demo_class.read_options(args)
        device = get_device(args.adapter, args.gpu_backend)
        why = "asked for with --headless" if args.headless else window_unavailable()
        shown = None
        if why is None:
            try:
                shown = run_window(demo_class, device, size, frames, demo_options,
                                   f"gpuia demo {demo_class.name}")
            except WindowUnavailable as exc:
                why = str(exc)
        if why is not None:
            if args.window:
                raise UnsupportedError(f"--window: {why}")
            print(f"headless: {why}")
        last = max(shown or frames or 1, 1)
        image, demo = run(demo_class, device, size, last, demo_options,
                          first_frame=last - 1 if shown else 0)
        for line in demo.notes():
            print(line)
        path = write_png(out, image).resolve()
    except GpuiaError as exc:
        error_line("demo", exc)
        return 2
    except OSError as exc:  # --out names a directory, or a place that cannot be written
        error_line("demo", UnsupportedError(f"--out {out}: cannot write the picture: "
                                       f"{exc.strerror or exc}"))
        return 2
    print(f"picture: {path} ({demo_class.name}, {size[0]}x{size[1]}, frame {last}, "
          f"{device.info['summary']})")
    return 1 if demo.differences else 0


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
    from rendercanvas.glfw import RenderCanvas, loop  # the optional 'window' extra

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
            ds = state["depth"] = device.create_depth_stencil(rt.width, rt.height, DSV_FORMAT)
        draw_frame(demo, ctx, rt, ds, state["frame"])
        state["frame"] += 1
        if frames is not None and state["frame"] >= frames:
            canvas.close()

    canvas.request_draw(draw)
    loop.run()
    return state["frame"]


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


# -- the Demo interface ---------------------------------------------------------------------------
class Demo(ABC):
    """Base class of the demos (see the module docstring). ``options`` holds what
    :meth:`read_options` read from the command line."""

    name = "demo"

    def __init__(self, device, rtv_format: str = RTV_FORMAT, options: dict | None = None):
        self.device = device
        self.rtv_format = rtv_format
        self.options = dict(options or {})
        self.plans: list[tuple[str, object]] = []  # (label, Plan) of the last frame's draws
        self.differences = 0  # checks in notes() that found a difference (exit status 1)
        self.shaders: list[str] = []  # "file: entry, entry" of the HLSL shaders it compiled

    @classmethod
    def read_options(cls, args) -> dict:
        """The demo's own options from the parsed command line (read before anything is drawn);
        this demo has none, so ``--mesh`` is refused (``InvalidDescError``)."""
        if args.mesh is not None:
            raise InvalidDescError("arguments", "--mesh", args.mesh, "only the mesh demo draws "
                                                                "a mesh file")
        return {}

    @abstractmethod
    def draw(self, ctx, frame: int, aspect: float) -> None:
        """Record frame ``frame``'s draws (targets bound and cleared; ``aspect`` = w / h) and
        append each draw's ``(label, plan)`` to ``self.plans``."""

    def notes(self) -> list[str]:
        """Lines to print after the last frame: the HLSL shaders and each draw's path."""
        lines = [f"shaders: HLSL {s} (compiled by Slang through gpuia.hlsl)"
                 for s in self.shaders]
        return lines + plan_lines(self.plans)

    def hlsl(self, file: str, entry: str, stage: str = "vertex", defines=None):
        """:func:`hlsl_shader`, remembered for :meth:`notes`."""
        shader = hlsl_shader(file, entry, stage, defines)
        label = f"{HLSL_NAME}/{file}"
        for i, line in enumerate(self.shaders):
            if line.startswith(label + ":"):
                self.shaders[i] = f"{line}, {entry}"
                break
        else:
            self.shaders.append(f"{label}: {entry}")
        return shader


def plan_lines(plans) -> list[str]:
    """``label: path: native`` followed by the plan's indented reasons, for each plan."""
    out = []
    for label, plan in plans:
        first, *rest = plan.explain().splitlines()
        out += [f"{label}: {first}", *rest]
    return out


def hlsl_shader(file: str, entry: str, stage: str = "vertex", defines=None):
    """A demo shader compiled from ``hlsl/<file>`` (Slang, through gpuia.hlsl; cached), its
    ``#include`` files found next to it. ``stage``: ``vertex``, ``pixel`` or ``geometry``
    (:func:`gpuia.hlsl.compile_geometry_shader`); ``defines``: {NAME: value}."""
    source = (HLSL_DIR / file).read_text(encoding="utf-8")
    where: dict[str, Any] = dict(file_name=f"{HLSL_NAME}/{file}", include_dirs=[HLSL_DIR])
    if stage == "geometry":
        return compile_geometry_shader(source, entry, defines, **where)
    return compile_shader(source, stage, entry, defines, **where)


# -- camera and matrices (column vectors; see the module docstring) -------------------------------
def camera(aspect: float, eye=(0.0, 1.4, 4.2), target=(0.0, 0.0, 0.0), fovy_degrees=40.0):
    """``(view_projection, eye)`` of a right-handed camera."""
    proj = perspective(np.radians(fovy_degrees), aspect, 0.1, 100.0)
    return proj @ look_at(eye, target), np.asarray(eye, np.float32)


def scene_constants(view_proj, model, eye, light=(-0.45, 0.8, 0.55),
                    color=(0.86, 0.52, 0.30)) -> bytes:
    """The bytes of ``cbuffer Scene`` (hlsl/scene.hlsli) as D3D packs it: the two matrices
    column-major (each one's columns in consecutive registers), then three float4."""
    extra = np.array([[*light, 0.0], [*eye, 1.0], [*color, 1.0]], np.float32)
    return column_major_bytes(view_proj, model) + extra.tobytes()


def perspective(fovy_radians: float, aspect: float, near: float, far: float) -> np.ndarray:
    """Right-handed perspective projection to clip space with depth 0 at ``near`` and 1 at
    ``far`` (D3D and WebGPU), like XMMatrixPerspectiveFovRH."""
    if not (0 < fovy_radians < np.pi and aspect > 0 and 0 < near < far):
        raise ValueError(f"perspective needs 0 < fovy < pi, aspect > 0, 0 < near < far; got "
                         f"{fovy_radians}, {aspect}, {near}, {far}")
    f = 1.0 / np.tan(fovy_radians / 2)
    r = far / (near - far)
    return np.array([[f / aspect, 0, 0, 0],
                     [0, f, 0, 0],
                     [0, 0, r, r * near],
                     [0, 0, -1, 0]], np.float32)


def look_at(eye, target, up=(0.0, 1.0, 0.0)) -> np.ndarray:
    """Right-handed view matrix: the camera at ``eye`` looks at ``target`` down its -z axis."""
    eye, target, up = (np.asarray(x, np.float64) for x in (eye, target, up))
    z = normalize(eye - target)
    x = normalize(np.cross(up, z))
    y = np.cross(z, x)
    if not np.any(x):
        raise ValueError("look_at: up is parallel to the viewing direction")
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = x, y, z
    m[:3, 3] = -m[:3, :3] @ eye
    return m.astype(np.float32)


def _rotation(axis: int, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]  # the plane the rotation turns, counter-clockwise
    m = np.eye(4)
    m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
    return m.astype(np.float32)


def rotation_x(angle: float) -> np.ndarray:
    """Counter-clockwise rotation by ``angle`` radians about +x (y towards z)."""
    return _rotation(0, angle)


def rotation_y(angle: float) -> np.ndarray:
    """Counter-clockwise rotation by ``angle`` radians about +y (z towards x)."""
    return _rotation(1, angle)


def rotation_z(angle: float) -> np.ndarray:
    """Counter-clockwise rotation by ``angle`` radians about +z (x towards y)."""
    return _rotation(2, angle)


def translation(x: float, y: float, z: float) -> np.ndarray:
    m = np.eye(4, dtype=np.float32)
    m[:3, 3] = (x, y, z)
    return m


def scaling(x: float, y: float | None = None, z: float | None = None) -> np.ndarray:
    y = x if y is None else y
    z = x if z is None else z
    return np.diag([x, y, z, 1.0]).astype(np.float32)


def column_major_bytes(*matrices: np.ndarray) -> bytes:
    """The matrices packed for a cbuffer's ``column_major float4x4`` members (fxc/dxc's default):
    each matrix's columns in consecutive 16-byte registers, i.e. ``M.T`` in C order."""
    return b"".join(np.ascontiguousarray(np.asarray(m, np.float32).T).tobytes() for m in matrices)


def normalize(v: np.ndarray) -> np.ndarray:
    """``v`` divided by its length along the last axis (zero vectors stay zero)."""
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.divide(v, n, out=np.zeros_like(v), where=n > 0)


# -- the Utah teapot -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mesh:
    """An indexed triangle mesh: float32 ``positions`` (n, 3), unit ``normals`` (n, 3), ``uvs``
    (n, 2), uint32 ``indices`` (m, 3) wound counter-clockwise seen from outside."""

    name: str
    positions: np.ndarray
    normals: np.ndarray
    uvs: np.ndarray
    indices: np.ndarray

    @property
    def vertex_count(self) -> int:
        return len(self.positions)

    @property
    def index_count(self) -> int:
        return self.indices.size

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Smallest and largest corner of the axis-aligned bounding box."""
        return self.positions.min(axis=0), self.positions.max(axis=0)


def _teapot_tables() -> tuple[np.ndarray, np.ndarray]:
    numbers = " ".join(line for line in (DATA_DIR / "teapot.txt").read_text().splitlines()
                       if not line.startswith("#")).split()
    patches = np.array(numbers[:32 * 16], np.int64).reshape(32, 4, 4) - 1
    return patches, np.array(numbers[32 * 16:], np.float64).reshape(306, 3)


TEAPOT_PATCHES, TEAPOT_CONTROL_POINTS = _teapot_tables()
"""(32, 4, 4) zero-based control point numbers (patch, u row, v column), and the (306, 3) control
points in Newell's coordinates (z up), from ``data/teapot.txt``: Newell's 1975 teapot with Frank
Crow's bottom, as the teapot data file of Newell's tea set distributed by Steve Baker lists it
(http://www.sjbaker.org/teapot/teaset.tgz; history: F. Crow, "The Origins of the Teapot", IEEE
CG&A 7(1), 1987). tests/tools/test_geometry.py checks its mirror symmetry and that neighbouring
patches share their boundary control points."""

# Newell z-up -> y-up: (x, y, z) -> (x, z, -y), a rotation of -90 degrees about x.
_Z_UP_TO_Y_UP = np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]], np.float64)

# How far from a collapsed edge the normal is taken (in patch parameter units).
_POLE_STEP = 1e-4


def _bernstein(t: np.ndarray) -> np.ndarray:
    s = 1.0 - t
    return np.stack([s**3, 3 * s * s * t, 3 * s * t * t, t**3], axis=-1)


def _bernstein_derivative(t: np.ndarray) -> np.ndarray:
    s = 1.0 - t
    return np.stack([-3 * s * s, 3 * s * s - 6 * s * t, 6 * s * t - 3 * t * t, 3 * t * t], axis=-1)


def _evaluate(control: np.ndarray, u: np.ndarray, v: np.ndarray):
    """Position, dP/du and dP/dv of patches ``control`` (p, 4, 4, 3) on the grid ``u`` × ``v``:
    arrays of shape (p, len(u), len(v), 3)."""
    bu, bv = _bernstein(u), _bernstein(v)
    du, dv = _bernstein_derivative(u), _bernstein_derivative(v)
    pos = np.einsum("ur,vc,prcx->puvx", bu, bv, control)
    dpu = np.einsum("ur,vc,prcx->puvx", du, bv, control)
    dpv = np.einsum("ur,vc,prcx->puvx", bu, dv, control)
    return pos, dpu, dpv


def _collapsed_edges(patches: np.ndarray) -> dict[str, np.ndarray]:
    """Per patch, whether each boundary's four control points are one point (a pole)."""
    return {
        "u0": np.all(patches[:, 0, :] == patches[:, 0, :1], axis=1),
        "u1": np.all(patches[:, 3, :] == patches[:, 3, :1], axis=1),
        "v0": np.all(patches[:, :, 0] == patches[:, :1, 0], axis=1),
        "v1": np.all(patches[:, :, 3] == patches[:, :1, 3], axis=1),
    }


def teapot(segments: int = 8, y_up: bool = True) -> Mesh:
    """The Utah teapot, ``segments`` × ``segments`` quads per patch; ``segments`` must be an
    integer from 1 to 64 (``ValueError``). Guaranteed:

    * each patch is evaluated exactly from the Bernstein basis and has its own
      ``(segments + 1)²`` vertices, so UVs are the patch parameters (u along the rows of control
      points, v along the columns) and seams stay sharp where patches meet;
    * normals point out of the surface and have unit length. Newell's patches are consistently
      oriented with ``dP/du × dP/dv`` pointing into the material, so the normal is
      ``dP/dv × dP/du``. Eight patches (the lid's knob top and the bottom) collapse their u = 0
      row of control points into one point; there ``dP/dv`` is 0, so the normal is taken at
      ``u = 1e-4`` along the same v, the limit of the surface normal as the pole is approached;
    * triangles are wound counter-clockwise seen from outside (the convention of glTF and
      trimesh); the degenerate triangle of each quad touching a collapsed edge is left out, so
      the teapot has ``32 · 2 · segments² − 8 · segments`` triangles;
    * coordinates are converted from Newell's z-up to y-up, ``(x, y, z) -> (x, z, -y)`` (a
      rotation, so the winding is kept), unless ``y_up=False``.
    """
    if isinstance(segments, bool) or not isinstance(segments, (int, np.integer)) \
            or not 1 <= segments <= 64:
        raise ValueError(f"teapot segments must be an integer from 1 to 64, got {segments!r}")
    n = int(segments)
    points = TEAPOT_CONTROL_POINTS @ _Z_UP_TO_Y_UP.T if y_up else TEAPOT_CONTROL_POINTS
    control = points[TEAPOT_PATCHES]                                # (32, 4, 4, 3)
    t = np.linspace(0.0, 1.0, n + 1)
    pos, dpu, dpv = _evaluate(control, t, t)
    normal = np.cross(dpv, dpu)
    # At a collapsed edge one partial derivative vanishes: take the normal just inside instead.
    edges = _collapsed_edges(TEAPOT_PATCHES)
    inner = {"u0": (np.array([_POLE_STEP]), t), "u1": (np.array([1 - _POLE_STEP]), t),
             "v0": (t, np.array([_POLE_STEP])), "v1": (t, np.array([1 - _POLE_STEP]))}
    where = {"u0": np.s_[:, :1, :], "u1": np.s_[:, -1:, :], "v0": np.s_[:, :, :1],
             "v1": np.s_[:, :, -1:]}
    for edge, mask in edges.items():
        if mask.any():
            _, eu, ev = _evaluate(control[mask], *inner[edge])
            sub = normal[mask]
            sub[where[edge]] = np.cross(ev, eu)
            normal[mask] = sub
    normal = normalize(normal)

    # Quads (i, j)..(i+1, j+1): a = (i, j), b = (i+1, j), c = (i+1, j+1), d = (i, j+1).
    # Outward is dP/dv x dP/du, so (a, d, c) and (a, c, b) are counter-clockwise from outside.
    grid = np.arange((n + 1) * (n + 1)).reshape(n + 1, n + 1)
    a, b = grid[:-1, :-1], grid[1:, :-1]
    c, d = grid[1:, 1:], grid[:-1, 1:]
    first = np.stack([a, d, c], axis=-1)        # touches the u = 0 edge (a, d) and v = 1 (d, c)
    second = np.stack([a, c, b], axis=-1)       # touches the u = 1 edge (c, b) and v = 0 (a, b)
    i_idx, j_idx = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    tris = []
    per_patch = (n + 1) * (n + 1)
    for p in range(len(TEAPOT_PATCHES)):
        keep1 = ~((edges["u0"][p] & (i_idx == 0)) | (edges["v1"][p] & (j_idx == n - 1)))
        keep2 = ~((edges["u1"][p] & (i_idx == n - 1)) | (edges["v0"][p] & (j_idx == 0)))
        quads = np.stack([first, second], axis=2)                  # (n, n, 2, 3)
        keep = np.stack([keep1, keep2], axis=2)
        tris.append(quads[keep] + p * per_patch)
    uv = np.stack(np.meshgrid(t, t, indexing="ij")[::-1], axis=-1)  # (u, v) grid -> (v, u)
    uvs = np.broadcast_to(uv, (len(TEAPOT_PATCHES), n + 1, n + 1, 2))
    return Mesh(
        name="teapot",
        positions=pos.reshape(-1, 3).astype(np.float32),
        normals=normal.reshape(-1, 3).astype(np.float32),
        uvs=uvs.reshape(-1, 2).astype(np.float32),
        indices=np.concatenate(tris).astype(np.uint32),
    )


# -- vertex records for a D3D12 layout -----------------------------------------------------------
def _channel_codes(kind: str, bits: int, x: np.ndarray) -> np.ndarray:
    """Codes of one channel as uint64 (fits every width), for values ``x``."""
    mask = (1 << bits) - 1
    if kind == "un":
        return np.rint(np.clip(x, 0.0, 1.0) * mask).astype(np.uint64)
    if kind == "sn":
        scale = (1 << (bits - 1)) - 1
        return np.rint(np.clip(x, -1.0, 1.0) * scale).astype(np.int64).astype(np.uint64) & mask
    if kind in ("u", "s"):
        return np.asarray(x).astype(np.int64).astype(np.uint64) & mask
    if kind == "f":
        if bits == 32:
            return np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
        return np.asarray(x, np.float16).view(np.uint16).astype(np.uint64)
    if kind == "uf":
        half = np.maximum(np.asarray(x, np.float32), 0).astype(np.float16).view(np.uint16)
        return (half.astype(np.uint64) >> np.uint64(10 - (bits - 5))) & mask
    raise ValueError(f"channel kind {kind!r} has no encoder")


def encode_elements(fmt: str | FormatInfo, values) -> np.ndarray:
    """Encode ``values`` (shape ``(n, k)`` or ``(n,)``, as the shader would see them, ``k`` at
    most the format's component count) as ``n`` elements of the DXGI format ``fmt``, driven by
    gpuia's format table: the inverse of what the Input Assembler decodes. Returns uint8 of
    shape ``(n, size)``, little-endian.

    Per channel kind: ``un<N>`` is ``rint(clip(x, 0, 1) * (2**N - 1))`` and ``sn<N>``
    ``rint(clip(x, -1, 1) * (2**(N-1) - 1))`` (round half to even; D3D's float-to-UNORM rule
    rounds to nearest and halves do not occur for the demos' data); ``u<N>``/``s<N>`` the
    integer modulo ``2**N``; ``f32`` the float32 bits, ``f16`` numpy's float16 rounding;
    ``uf<N>`` (R11G11B10_FLOAT) the float16 encoding of ``max(x, 0)`` with the sign dropped and
    the mantissa truncated to ``N - 5`` bits. Swizzles are honoured (``B8G8R8A8_UNORM``: the
    shader's x is the third byte); padding and components given no value are 0. Refused: an
    unknown format (gpuia's ``UnknownFormatError``) and values of the wrong shape
    (``ValueError``)."""
    info = fmt if isinstance(fmt, FormatInfo) else format_info(fmt)
    v = np.asarray(values, np.float64 if info.shader_type == "float" else np.int64)
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2 or v.shape[1] > info.component_count:
        raise ValueError(f"{info.name} takes values of shape (n, <= {info.component_count}), "
                         f"got {np.shape(values)}")
    n = v.shape[0]
    words = np.zeros((n, info.words), np.uint64)
    # The swizzle says which channel each shader component reads; invert it to know which value
    # each channel stores.
    for comp, sel in enumerate(info.swizzle):
        if sel not in "xyzw" or comp >= v.shape[1]:
            continue
        ch = info.channels["xyzw".index(sel)]
        codes = _channel_codes(ch.kind, ch.bits, v[:, comp])
        words[:, ch.word] |= codes << np.uint64(ch.shift)
    raw = words.astype(np.uint32).astype("<u4").view(np.uint8).reshape(n, 4 * info.words)
    return np.ascontiguousarray(raw[:, : info.size])


def pack_records(layout: InputLayout, slot: int, stride: int, count: int,
                 values: dict) -> np.ndarray:
    """Build ``count`` vertex records of ``slot`` of ``layout``, each ``stride`` bytes, with every
    element of the slot encoded from ``values[key]`` (keys as ``layout.keys``, e.g.
    ``"NORMAL0"``) at its resolved offset. Bytes no element covers are 0. Returns the records as
    a uint8 array of ``count * stride`` bytes. A missing key raises ``KeyError`` naming it; a
    stride below the slot's extent raises ``ValueError``."""
    info = layout.slots[slot]
    if stride < info.extent:
        raise ValueError(f"stride {stride} is below slot {slot}'s extent {info.extent}")
    out = np.zeros((count, stride), np.uint8)
    for e in info.elements:
        if e.key not in values:
            raise KeyError(f"no values for {e.key} (slot {slot})")
        enc = encode_elements(e.format, values[e.key])
        if enc.shape[0] != count:
            raise ValueError(f"{e.key}: {enc.shape[0]} values for {count} records")
        out[:, e.offset:e.offset + e.format.size] = enc
    return out.reshape(-1)
