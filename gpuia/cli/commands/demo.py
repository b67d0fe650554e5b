"""``gpuia demo [NAME]``: draw one of the demos in a window or headless, and write a PNG.

``NAME`` is ``mesh`` (default), ``instancing``, ``stream_output``, ``real_layouts`` or
``particles`` (docs/demos.md). Each demo is a program, ``demos/NAME.py``, which the wheel ships
too; this command runs it (:func:`gpuia.demos.run`) with the options given here, exactly as
``python demos/NAME.py OPTIONS`` does: a window when a display exists and glfw and rendercanvas
import (the extra ``window``), otherwise, or with ``--headless``, offscreen targets, saying why;
``--window`` makes a missing window an error. Either way the last frame is written as a PNG
(Pillow, the extra ``demo``), and the program prints where it is, the path each draw took, and
for ``real_layouts`` each layout's cross-check verdict.

Options: ``--out FILE.png`` (default ``gpuia-demo-NAME.png`` in the current folder),
``--size WxH`` (800x600), ``--frames N`` (frames of animation; headless default 1, in a window
the window closes after N frames, and without ``--frames`` it stays open until closed),
``--adapter S`` / ``--gpu-backend NAME`` (as for ``gpuia check``), ``--mesh FILE`` (mesh demo
only: an OBJ, glTF, PLY or STL file through trimesh, the extra ``mesh``).

Exit status: 0 drawn and written; 1 a real-layouts verdict found a difference; 2 bad arguments
or input (one ``error:`` line), a missing extra included.
"""

from __future__ import annotations

from ...demos import DEMOS
from ...demos import run as run_demo
from ...errors import GpuiaError, InvalidDescError
from ..common import EXIT_INVALID, error_line

__all__ = ["add_parser", "run", "program_arguments"]

# The program's options and their values as this command's parser names them; the program
# parses them again, so `gpuia demo NAME ...` and `python demos/NAME.py ...` read one text.
_VALUED = ("out", "size", "frames", "mesh", "adapter", "gpu_backend")
_FLAGS = ("headless", "window")


def _demo_name(text: str) -> str:
    name = text.strip().lower().replace("-", "_")
    if name not in DEMOS:
        raise InvalidDescError("arguments", "NAME", text, f"expected one of {', '.join(DEMOS)}")
    return name


def program_arguments(args) -> list[str]:
    """The demo program's command line for this command's parsed ``args``: each option given,
    as ``--name=value`` (a value that starts with ``-`` stays a value)."""
    argv = [f"--{key.replace('_', '-')}={value}" for key in _VALUED
            if (value := getattr(args, key)) is not None]
    return argv + [f"--{key}" for key in _FLAGS if getattr(args, key)]


def run(args) -> int:
    try:
        name = _demo_name(args.name)
        # The program imports wgpu and gpuia's GPU side: only once its name is good.
        return run_demo(name, program_arguments(args))
    except GpuiaError as exc:
        error_line("demo", exc)
        return EXIT_INVALID


def add_parser(subparsers):
    p = subparsers.add_parser(
        "demo", help="draw a demo in a window (or headless) and write a PNG of its last frame",
        description="Draw one of gpuia's demos: real draws driven by D3D12 input layouts. "
                    "Opens a window when a display and the 'window' extra are there, else draws "
                    "offscreen; always writes a PNG. Each demo is a program, demos/NAME.py, "
                    "which takes the same options.")
    p.add_argument("name", nargs="?", default="mesh", metavar="NAME",
                   help="mesh (default), instancing, stream_output, real_layouts or particles")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--headless", action="store_true",
                       help="draw offscreen even with a display")
    where.add_argument("--window", action="store_true",
                       help="draw in a window, or fail saying why none can open")
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
