"""Compare two folders of PNG images: ``python demos/image_diff.py A_DIR B_DIR``.

For every file name ending in ``.png`` present in both folders, prints one line: the name, the
size, the largest and the mean absolute difference per channel (0-255, alpha included), and the
pixels whose largest channel difference is over ``--threshold`` (default 2), as a count and a
share. Names found in only one folder are listed after. ``--diff-dir DIR`` also writes each
pair's amplified difference image (``gpuia.util.image.diff_image``) as ``DIR/NAME.diff.png``.

Exit status: 0 when at least one pair was compared; 2 when a folder is missing or no name is in
both (one ``error:`` line). The numbers are a measurement, not a verdict.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _common import error_line
from gpuia.errors import CaseError, GpuiaError
from gpuia.util.image import compare_images, diff_image, read_png, write_png


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="image_diff.py", description=__doc__.splitlines()[0])
    p.add_argument("a", metavar="A_DIR")
    p.add_argument("b", metavar="B_DIR")
    p.add_argument("--threshold", type=int, default=2, metavar="T",
                   help="a pixel counts as different above this channel difference (2)")
    p.add_argument("--diff-dir", metavar="DIR", help="write NAME.diff.png images here")
    args = p.parse_args(argv)
    a, b = Path(args.a), Path(args.b)
    try:
        for folder in (a, b):
            if not folder.is_dir():
                raise CaseError(str(folder), "no such folder")
        names_a = {f.name for f in a.glob("*.png")}
        names_b = {f.name for f in b.glob("*.png")}
        common = sorted(names_a & names_b)
        if not common:
            raise CaseError(f"{a} and {b}", "no PNG file name is in both folders")
        for name in common:
            ia, ib = read_png(a / name), read_png(b / name)
            d = compare_images(ia, ib, threshold=args.threshold)
            if d.max_diff is None:
                print(f"{name}: sizes differ ({ia.shape[1]}x{ia.shape[0]} vs "
                      f"{ib.shape[1]}x{ib.shape[0]})")
                continue
            print(f"{name}: {ia.shape[1]}x{ia.shape[0]}: max {d.max_diff}, mean "
                  f"{d.mean_diff:.4f}, {d.over} pixels ({100 * d.over_fraction:.3f}%) over "
                  f"{args.threshold}")
            if args.diff_dir:
                write_png(Path(args.diff_dir) / f"{Path(name).stem}.diff.png", diff_image(ia, ib))
        for name in sorted(names_a - names_b):
            print(f"{name}: only in {a}")
        for name in sorted(names_b - names_a):
            print(f"{name}: only in {b}")
    except GpuiaError as exc:
        error_line("image_diff", exc)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
