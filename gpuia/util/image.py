"""Images for the demos and their regression tests: PNG files, comparison with a tolerance, and
diff images.

Images are numpy ``uint8`` arrays of shape ``(height, width, 4)`` (RGBA; ``(h, w, 3)`` RGB is
accepted and gets alpha 255). PNG reading and writing go through Pillow, the optional extra
``demo`` (``pip install 'gpuia[demo]'``); without it they raise :class:`UnsupportedError` naming
the extra. Comparison and diff images need only numpy.

:func:`compare_images` counts a pixel as different when any of its channels differs by more than
``threshold``; two images match when they have the same size and the fraction of different
pixels is at most ``max_fraction``. It always reports the largest and the mean per-channel
difference, so a passing comparison still says how close it was.

Refused with :class:`ImageError` (a ``ValueError``): arrays that are not uint8 images of that
shape, and PNG files that cannot be read.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import GpuiaError, UnsupportedError
from .files import write_atomic

__all__ = [
    "ImageDiff",
    "ImageError",
    "as_rgba",
    "check_png_support",
    "compare_images",
    "diff_image",
    "read_png",
    "write_png",
]


class ImageError(GpuiaError, ValueError):
    """An array that is not an image gpuia can handle, or a PNG file that cannot be read."""


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise UnsupportedError("PNG files need Pillow, which is not installed: "
                               "pip install 'gpuia[demo]'") from None
    return Image


def check_png_support() -> None:
    """Raise :class:`UnsupportedError` naming the ``demo`` extra when Pillow is missing."""
    _pil()


def as_rgba(img) -> np.ndarray:
    """``img`` as a contiguous (h, w, 4) uint8 array; RGB gets alpha 255."""
    a = np.asarray(img)
    if a.dtype != np.uint8 or a.ndim != 3 or a.shape[2] not in (3, 4) or 0 in a.shape[:2]:
        raise ImageError(f"an image must be a non-empty uint8 array of shape (h, w, 3 or 4), "
                         f"got {a.dtype} {a.shape}")
    if a.shape[2] == 3:
        a = np.concatenate([a, np.full(a.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return np.ascontiguousarray(a)


def write_png(path, img) -> Path:
    """Write ``img`` as an RGBA PNG file, atomically (parent folders are created); returns the
    path. Raises :class:`gpuia.util.files.OutputError` (an ``OSError``) when it cannot be
    written."""
    rgba = as_rgba(img)
    image = _pil()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    encoded = io.BytesIO()
    image.fromarray(rgba, "RGBA").save(encoded, format="PNG")
    return write_atomic(p, encoded.getvalue())  # a killed run leaves the old picture or none


def read_png(path) -> np.ndarray:
    """Read a PNG file as a (h, w, 4) uint8 RGBA array (other modes are converted)."""
    image = _pil()
    try:
        with image.open(path) as im:
            return np.asarray(im.convert("RGBA"), np.uint8).copy()
    except FileNotFoundError:
        raise ImageError(f"{path}: no such file") from None
    except OSError as exc:  # Pillow's UnidentifiedImageError is an OSError
        raise ImageError(f"{path}: not a readable image ({' '.join(str(exc).split())})") \
            from None


@dataclass(frozen=True)
class ImageDiff:
    """The result of :func:`compare_images`. ``max_diff`` and ``mean_diff`` are over every
    channel of every pixel (``None`` when the sizes differ); ``over`` counts the pixels with a
    channel differing by more than ``threshold``, ``over_fraction`` is their share."""

    ok: bool
    size_a: tuple[int, int]
    size_b: tuple[int, int]
    max_diff: int | None
    mean_diff: float | None
    over: int
    over_fraction: float
    threshold: int
    max_fraction: float

    def summary(self) -> str:
        """One line: verdict, max/mean difference, pixels over the threshold."""
        if self.max_diff is None:
            return (f"DIFFERENT: sizes differ ({self.size_a[1]}x{self.size_a[0]} vs "
                    f"{self.size_b[1]}x{self.size_b[0]})")
        verdict = "OK" if self.ok else "DIFFERENT"
        return (f"{verdict}: max {self.max_diff}, mean {self.mean_diff:.4f}, "
                f"{self.over} pixels ({100 * self.over_fraction:.3f}%) over {self.threshold} "
                f"(allowed {100 * self.max_fraction:.3f}%)")


def compare_images(actual, expected, threshold: int = 2, max_fraction: float = 0.0) -> ImageDiff:
    """Compare two images channel by channel (alpha included); see the module docstring."""
    if not 0 <= threshold <= 255 or not 0.0 <= max_fraction <= 1.0:
        raise ImageError(f"threshold must be 0..255 and max_fraction 0..1, got {threshold}, "
                         f"{max_fraction}")
    a, b = as_rgba(actual), as_rgba(expected)
    if a.shape != b.shape:
        return ImageDiff(False, a.shape[:2], b.shape[:2], None, None, 0, 1.0, threshold,
                         max_fraction)
    d = np.abs(a.astype(np.int16) - b.astype(np.int16))
    per_pixel = d.max(axis=2)
    over = int(np.count_nonzero(per_pixel > threshold))
    fraction = over / per_pixel.size
    return ImageDiff(fraction <= max_fraction, a.shape[:2], b.shape[:2], int(d.max()),
                     float(d.mean()), over, fraction, threshold, max_fraction)


def diff_image(actual, expected, gain: int = 8) -> np.ndarray:
    """The absolute RGB difference of two same-size images times ``gain`` (clipped to 255), with
    pixels whose alpha differs shown in magenta, as an opaque RGBA image."""
    a, b = as_rgba(actual), as_rgba(expected)
    if a.shape != b.shape:
        raise ImageError(f"diff_image needs images of one size, got {a.shape[:2]} and "
                         f"{b.shape[:2]}")
    d = np.abs(a.astype(np.int32) - b.astype(np.int32))
    out = np.empty_like(a)
    out[..., :3] = np.clip(d[..., :3] * gain, 0, 255)
    alpha_differs = d[..., 3] > 0
    out[alpha_differs, 0] = 255
    out[alpha_differs, 2] = 255
    out[..., 3] = 255
    return out
