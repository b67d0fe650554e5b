"""Render every demo headless into a folder: ``python demos/render_all.py --out DIR``.

Writes ``DIR/NAME.png`` for each demo of ``gpuia.demos.DEMOS`` (the last of ``--frames`` frames
at ``--size``) and ``DIR/notes.txt``: the adapter, then each demo's notes (the path every draw
took, the real-layouts verdicts) and its render time. Compare two such folders, for example
lavapipe's and a real GPU's, with ``python demos/image_diff.py A_DIR B_DIR``.

Options: ``--size WxH`` (default 800x600), ``--frames N`` (1), ``--adapter S``,
``--gpu-backend NAME``, ``--only NAME[,NAME]``. Exit status: 0 done; 1 a real-layouts verdict
found a difference; 2 bad arguments (one ``error:`` line).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _common import error_line, parse_frames, parse_size, run
from gpuia.demos import DEMOS, demo_module
from gpuia.errors import GpuiaError, InvalidDescError
from gpuia.gpu import get_device
from gpuia.util.files import write_atomic
from gpuia.util.image import check_png_support, write_png


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="render_all.py", description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, metavar="DIR", help="folder for NAME.png and notes.txt")
    p.add_argument("--size", default="800x600", metavar="WxH")
    p.add_argument("--frames", default="1", metavar="N")
    p.add_argument("--only", default=None, metavar="NAME[,NAME]", help="render only these demos")
    p.add_argument("--adapter", default=None, metavar="SUBSTRING")
    p.add_argument("--gpu-backend", default=None, metavar="NAME")
    args = p.parse_args(argv)
    try:
        size, frames = parse_size(args.size), parse_frames(args.frames)
        names = list(DEMOS)
        if args.only:
            names = [n.strip() for n in args.only.split(",")]
            for n in names:
                if n not in DEMOS:
                    raise InvalidDescError("render_all", "--only", n,
                                           f"expected one of {', '.join(DEMOS)}")
        check_png_support()
        device = get_device(args.adapter, args.gpu_backend)
    except GpuiaError as exc:
        error_line("render_all", exc)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    notes = [f"adapter: {device.info['summary']}", f"size: {size[0]}x{size[1]}, frames: {frames}"]
    differences = 0
    for name in names:
        start = time.perf_counter()
        image, demo = run(demo_module(name).DEMO, device, size, frames)
        seconds = time.perf_counter() - start
        path = write_png(out / f"{name}.png", image)
        lines = demo.notes()
        differences += demo.differences
        notes += ["", f"== {name}: {path.name}, {frames} frame(s) in {seconds:.3f} s", *lines]
        print(f"{name}: {path} ({seconds:.3f} s)")
    write_atomic(out / "notes.txt", "\n".join(notes) + "\n")
    print(f"notes: {out / 'notes.txt'}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
