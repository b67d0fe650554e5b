"""The CPU side of the raster cross-check: which pixels each reference primitive must and may
cover when its vertices stand at generated positions (``docs/raster-check.md``).

Every vertex gets a position from its ``(SV_VertexID, SV_InstanceID)`` alone
(:func:`vertex_keys`, :func:`key_positions`): a hash, in 32-bit integer arithmetic that WGSL
computes bit for bit, picks a point on the 1/256-pixel grid of a ``size x size`` target (the
subpixel grid D3D and Vulkan snap to, so no snapping moves it). A primitive is named by its first
vertex's key and, for triangles, its facing (clockwise in window coordinates is front, D3D's
default): the first vertex is the provoking vertex of D3D, Vulkan, OpenGL and WebGPU alike, and
a fragment shader reads it as a flat input.

Coverage is exact away from edges and undecided near them, because rasterization rules differ
there (top-left ties, line styles, subpixel precision): for each primitive, ``required`` pixels
are covered by every conforming rasterizer and ``allowed`` pixels by some; every other pixel by
none. Triangles: a pixel center at least :data:`MARGIN` pixels inside every edge is required,
one within :data:`MARGIN` outside some edge is allowed. Lines (aliased, one pixel wide): along
the major axis, a pixel column the segment spans with :data:`MARGIN` to spare whose center is
at most 0.5 - :data:`MARGIN` from the line (minor axis) is required (D3D's diamond-exit rule,
Bresenham and Vulkan's rectangle all light it); centers within 0.75 + :data:`MARGIN` (Euclidean)
of the segment are allowed. Points: the pixel whose center is within 0.5 - :data:`MARGIN` on both
axes is required, within 0.5 + :data:`MARGIN` allowed.

Nothing here depends on the GPU code; :mod:`gpuia.harness.raster_check` implements the same hash
in WGSL.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["SUBPIXEL", "MARGIN", "KEY_SALT", "lowbias32", "vertex_keys", "key_positions",
           "PrimitiveCoverage", "coverage_at", "primitive_coverage", "expected_fragments",
           "cell_codes", "split_cell", "coverage_cells"]

SUBPIXEL = 256
"""Positions are multiples of 1/256 pixel (8 subpixel bits)."""
MARGIN = 1.0 / 8.0
"""Pixels whose center is closer than this (in pixels) to a decisive boundary are undecided."""
KEY_SALT = 0x6A09E667
"""Mixed into every key, so that the all-zero vertex is not at the target's corner."""

_M32 = np.uint64(0xFFFFFFFF)


def lowbias32(x) -> np.ndarray:
    """Chris Wellons' 32-bit integer hash "lowbias32" (x ^= x >> 16; x *= 0x7feb352d; x ^= x >>
    15; x *= 0x846ca68b; x ^= x >> 16), on uint32 arrays with wrapping multiplication."""
    x = np.asarray(x, np.uint64) & _M32
    x ^= x >> np.uint64(16)
    x = (x * np.uint64(0x7FEB352D)) & _M32
    x ^= x >> np.uint64(15)
    x = (x * np.uint64(0x846CA68B)) & _M32
    x ^= x >> np.uint64(16)
    return x.astype(np.uint32)


def vertex_keys(vertex_id, instance_id) -> np.ndarray:
    """The key of each vertex: ``lowbias32(SV_VertexID ^ lowbias32(SV_InstanceID ^ KEY_SALT))``."""
    inst = lowbias32(np.asarray(instance_id, np.uint32) ^ np.uint32(KEY_SALT))
    return lowbias32(np.asarray(vertex_id, np.uint32) ^ inst)


def key_positions(keys, size: int) -> np.ndarray:
    """Window positions (x right, y down) of keys, in units of 1/:data:`SUBPIXEL` pixel, shape
    ``(..., 2)``: ``x = lowbias32(key ^ 0x9E3779B9) mod (size * 256)``, ``y`` likewise with
    ``0x85EBCA6B``. ``size`` is a power of two, so every position is exact in float32 NDC."""
    keys = np.asarray(keys, np.uint32)
    span = np.uint32(size * SUBPIXEL)
    x = lowbias32(keys ^ np.uint32(0x9E3779B9)) % span
    y = lowbias32(keys ^ np.uint32(0x85EBCA6B)) % span
    return np.stack([x, y], axis=-1).astype(np.int64)


@dataclass(frozen=True)
class PrimitiveCoverage:
    """One primitive's name and pixels (flat pixel indices ``y * size + x``, ascending)."""

    key: int
    front: bool
    required: np.ndarray
    allowed: np.ndarray


def _centers(x0, x1, y0, y1, size):
    """Pixel centers (in pixels) of the clamped box, and their flat indices."""
    xs = np.arange(max(x0, 0), min(x1, size - 1) + 1)
    ys = np.arange(max(y0, 0), min(y1, size - 1) + 1)
    px, py = np.meshgrid(xs, ys)
    return px + 0.5, py + 0.5, (py * size + px).reshape(-1)


def _triangle(p: np.ndarray, size: int):
    """(front, required, allowed) of a triangle at positions ``p`` (3 x 2, pixels)."""
    (ax, ay), (bx, by), (cx, cy) = p
    area2 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    if area2 == 0:  # no area: no fragment anywhere, whatever the rules
        empty = np.zeros(0, np.int64)
        return True, empty, empty
    sign = 1.0 if area2 > 0 else -1.0
    lo = np.floor(p.min(axis=0) - 1).astype(int)
    hi = np.ceil(p.max(axis=0) + 1).astype(int)
    qx, qy, flat = _centers(lo[0], hi[0], lo[1], hi[1], size)
    inside = np.ones(qx.shape, bool)
    maybe = np.ones(qx.shape, bool)
    for (ex, ey), (fx, fy) in (((ax, ay), (bx, by)), ((bx, by), (cx, cy)), ((cx, cy), (ax, ay))):
        length = np.hypot(fx - ex, fy - ey)
        dist = sign * ((fx - ex) * (qy - ey) - (fy - ey) * (qx - ex)) / length
        inside &= dist >= MARGIN
        maybe &= dist > -MARGIN
    return bool(area2 > 0), flat[inside.reshape(-1)], flat[maybe.reshape(-1)]


def _line(p: np.ndarray, size: int):
    (ax, ay), (bx, by) = p
    dx, dy = bx - ax, by - ay
    lo = np.floor(p.min(axis=0) - 2).astype(int)
    hi = np.ceil(p.max(axis=0) + 2).astype(int)
    qx, qy, flat = _centers(lo[0], hi[0], lo[1], hi[1], size)
    length2 = dx * dx + dy * dy
    if length2 == 0:
        empty = np.zeros(0, np.int64)
        return True, empty, empty
    t = np.clip(((qx - ax) * dx + (qy - ay) * dy) / length2, 0.0, 1.0)
    euclid = np.hypot(qx - (ax + t * dx), qy - (ay + t * dy))
    allowed = euclid <= 0.75 + MARGIN
    if abs(dx) >= abs(dy):  # x-major: one pixel per column
        major, minor, a_major, a_minor, d_major, d_minor = qx, qy, ax, ay, dx, dy
    else:
        major, minor, a_major, a_minor, d_major, d_minor = qy, qx, ay, ax, dy, dx
    m_lo, m_hi = sorted((a_major, a_major + d_major))
    spans = (major - 0.5 - MARGIN >= m_lo) & (major + 0.5 + MARGIN <= m_hi)
    at = a_minor + (major - a_major) * d_minor / d_major
    required = spans & (np.abs(minor - at) <= 0.5 - MARGIN)
    return True, flat[required.reshape(-1)], flat[allowed.reshape(-1)]


def _point(p: np.ndarray, size: int):
    (x, y), = p
    qx, qy, flat = _centers(int(np.floor(x)) - 1, int(np.floor(x)) + 1,
                            int(np.floor(y)) - 1, int(np.floor(y)) + 1, size)
    d = np.maximum(np.abs(qx - x), np.abs(qy - y))
    return True, flat[(d <= 0.5 - MARGIN).reshape(-1)], flat[(d < 0.5 + MARGIN).reshape(-1)]


_RASTERIZE = {1: _point, 2: _line, 3: _triangle}


def coverage_at(points: np.ndarray, size: int) -> tuple[bool, np.ndarray, np.ndarray]:
    """(front, required pixels, allowed pixels) of one primitive whose ``k`` vertices (1, 2 or
    3, D3D's order) stand at ``points`` (shape ``(k, 2)``, window pixels, y down) in a ``size x
    size`` target. Lines and points are front."""
    points = np.asarray(points, np.float64)
    return _RASTERIZE[points.shape[0]](points, size)


def primitive_coverage(corner_keys: np.ndarray, size: int) -> list[PrimitiveCoverage]:
    """Coverage of primitives given by their corners' keys, shape ``(n, k)`` with ``k`` 1
    (points), 2 (lines) or 3 (triangles) in D3D's vertex order."""
    corner_keys = np.asarray(corner_keys, np.uint32)
    pos = key_positions(corner_keys, size) / SUBPIXEL  # exact: a power-of-two divisor
    out = []
    for i in range(corner_keys.shape[0]):
        front, required, allowed = coverage_at(pos[i], size)
        out.append(PrimitiveCoverage(int(corner_keys[i, 0]), bool(front), required, allowed))
    return out


def expected_fragments(coverage: list[PrimitiveCoverage], size: int):
    """Per (primitive name, pixel), the least and the most fragments a conforming rasterizer
    writes there for these primitives: ``(cells, least, most)``, where ``cells`` are sorted
    int64 codes :func:`cell_codes` makes and ``least``/``most`` their counts. A cell absent
    from ``cells`` gets no fragment from any conforming rasterizer."""
    def codes(attr):
        parts = [cell_codes(np.full(getattr(c, attr).shape, c.key, np.int64),
                            np.full(getattr(c, attr).shape, c.front), getattr(c, attr), size)
                 for c in coverage]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    return _cell_counts(codes("allowed"), codes("required"))


def _cell_counts(allowed: np.ndarray, required: np.ndarray):
    """``(cells, least, most)`` of :func:`expected_fragments` from every primitive's allowed and
    required cell codes (a code once per primitive that allows or requires the cell)."""
    cells, most = np.unique(allowed, return_counts=True)
    req, req_n = np.unique(required, return_counts=True)
    least = np.zeros_like(most)
    least[np.searchsorted(cells, req)] = req_n  # required pixels are allowed ones
    return cells, least, most


_GROUP = 256  # primitives evaluated at once by coverage_cells (bounds its temporaries)
_BAND = 5
"""Pixels across a line's band (:func:`_line_band`): the rows (x-major) or columns around the
line's minor coordinate at each pixel of its major axis that can hold an allowed cell."""


def coverage_cells(corner_keys: np.ndarray, size: int):
    """``expected_fragments(primitive_coverage(corner_keys, size), size)``, computed for many
    primitives at once: the same arithmetic as :func:`coverage_at`, in the same order, on
    every primitive's candidate pixels (padded to the largest of a group and masked), so the
    result is bit for bit the per-primitive one (the unit tests compare both). A triangle's or
    a point's candidates are its pixel box; a line's are the band of :data:`_BAND` pixels
    around it along its major axis (:func:`_line_band`), which holds every pixel of its box
    that the rules can allow, at a fraction of the box's area."""
    corner_keys = np.asarray(corner_keys, np.uint32)
    n, k = corner_keys.shape if corner_keys.ndim == 2 else (0, 1)
    allowed_parts, required_parts = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    if n:
        pos = key_positions(corner_keys, size) / SUBPIXEL
        if k == 1:  # the point's 3 x 3 block around floor(x), floor(y), as _point takes it
            lo = np.floor(pos[:, 0]).astype(np.int64) - 1
            hi = lo + 2
        else:  # the bounding box, 1 pixel around for triangles and 2 for lines
            pad = 2 if k == 2 else 1
            lo = np.floor(pos.min(axis=1) - pad).astype(np.int64)
            hi = np.ceil(pos.max(axis=1) + pad).astype(np.int64)
        lo, hi = np.maximum(lo, 0), np.minimum(hi, size - 1)
        extent = np.maximum(hi - lo + 1, 0)
        candidates: Callable
        if k == 2:
            candidates = functools.partial(_line_band, pos)
            spans = _line_spans(pos, extent)
        else:
            candidates = _box_grid
            spans = extent
        for group in _groups(spans):
            px, py, valid = candidates(lo[group], extent[group], group)
            required, allowed, front = _RASTERIZE_BOXES[k](pos[group], px + 0.5, py + 0.5)
            code = cell_codes(corner_keys[group, 0:1], front[:, None], py * size + px, size)
            allowed_parts.append(code[valid & allowed])
            required_parts.append(code[valid & required])
    return _cell_counts(np.concatenate(allowed_parts), np.concatenate(required_parts))


def _groups(spans: np.ndarray) -> list[np.ndarray]:
    """Primitives in groups of at most :data:`_GROUP` whose candidate spans (n, 2) are at
    most twice the group's first plus 2, in order of span area, so a group pads little to its
    largest: each group found with one comparison over the next :data:`_GROUP` primitives."""
    order = np.argsort(spans[:, 0] * spans[:, 1], kind="stable")
    ranked = spans[order]
    out, a, n = [], 0, order.shape[0]
    while a < n:
        fits = (ranked[a:a + _GROUP] <= 2 * ranked[a] + 2).all(axis=1)
        b = a + (int(np.argmin(fits)) if not fits.all() else fits.shape[0])
        out.append(order[a:b])
        a = b
    return out


def _box_grid(lo, extent, _group=None):
    """Pixel coordinates (px, py) of each primitive's box padded to the group's largest box,
    shape (n, H * W), and the mask of those inside the primitive's own box."""
    w, h = int(extent[:, 0].max()), int(extent[:, 1].max())
    gx = np.tile(np.arange(w), h)
    gy = np.repeat(np.arange(h), w)
    px = lo[:, 0:1] + gx[None, :]
    py = lo[:, 1:2] + gy[None, :]
    inside = (gx[None, :] < extent[:, 0:1]) & (gy[None, :] < extent[:, 1:2])
    return px, py, inside


def _line_spans(pos: np.ndarray, extent: np.ndarray) -> np.ndarray:
    """(pixels along the major axis, :data:`_BAND`) per line: the size of its candidates."""
    d = np.abs(pos[:, 1] - pos[:, 0])
    major = np.where(d[:, 0] >= d[:, 1], extent[:, 0], extent[:, 1])
    return np.stack([major, np.full_like(major, _BAND)], axis=1)


def _line_band(pos, lo, extent, group):
    """A line's candidate pixels: at each pixel of its box along the major axis (x when
    ``|dx| >= |dy|``, as :func:`_line` decides), the :data:`_BAND` pixels of the minor axis
    around the line's minor coordinate there, kept inside the box. Every pixel of the box it
    leaves out lies 2.5 pixels or more from the line along the minor axis, so at least
    2.5 / sqrt(2) from it (the major axis is the longer), farther than any allowed or required
    pixel (0.75 + MARGIN); a line without length has no pixel at all (both rules say none).
    Returns (px, py, valid) as :func:`_box_grid` does, shape (n, W * _BAND)."""
    p = pos[group]
    (ax, ay), (bx, by) = [(p[:, v, 0:1], p[:, v, 1:2]) for v in range(2)]
    dx, dy = bx - ax, by - ay
    xmajor = np.abs(dx) >= np.abs(dy)
    lo_major = np.where(xmajor, lo[:, 0:1], lo[:, 1:2])
    lo_minor = np.where(xmajor, lo[:, 1:2], lo[:, 0:1])
    n_major = np.where(xmajor, extent[:, 0:1], extent[:, 1:2])
    n_minor = np.where(xmajor, extent[:, 1:2], extent[:, 0:1])
    a_major, a_minor = np.where(xmajor, ax, ay), np.where(xmajor, ay, ax)
    d_major, d_minor = np.where(xmajor, dx, dy), np.where(xmajor, dy, dx)
    width = int(n_major.max())
    step = np.repeat(np.arange(width), _BAND)[None, :]
    across = np.tile(np.arange(_BAND) - _BAND // 2, width)[None, :]
    major = lo_major + step
    some = d_major != 0  # |d_major| >= |d_minor|: 0 only for a line without length
    with np.errstate(divide="ignore", invalid="ignore"):
        at = a_minor + (major + 0.5 - a_major) * np.where(some, d_minor / d_major, 0.0)
    minor = np.floor(at).astype(np.int64) + across
    valid = (some & (step < n_major) & (minor >= lo_minor)
             & (minor < lo_minor + n_minor))
    return np.where(xmajor, major, minor), np.where(xmajor, minor, major), valid


# The per-primitive rules (_triangle, _line, _point) on arrays: n primitives at p (n, k, 2),
# pixel centers qx, qy (n, H * W); each returns (required, allowed, front per primitive).
def _triangle_boxes(p, qx, qy):
    (ax, ay), (bx, by), (cx, cy) = [(p[:, v, 0:1], p[:, v, 1:2]) for v in range(3)]
    area2 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    sign = np.where(area2 > 0, 1.0, -1.0)
    inside = np.broadcast_to(area2 != 0, qx.shape).copy()  # no area: no fragment anywhere
    maybe = inside.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        for (ex, ey), (fx, fy) in (((ax, ay), (bx, by)), ((bx, by), (cx, cy)),
                                   ((cx, cy), (ax, ay))):
            length = np.hypot(fx - ex, fy - ey)
            dist = sign * ((fx - ex) * (qy - ey) - (fy - ey) * (qx - ex)) / length
            inside &= dist >= MARGIN
            maybe &= dist > -MARGIN
    return inside, maybe, area2[:, 0] >= 0  # no area: front, as _triangle says


def _line_boxes(p, qx, qy):
    (ax, ay), (bx, by) = [(p[:, v, 0:1], p[:, v, 1:2]) for v in range(2)]
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    some = length2 != 0  # no length: no fragment anywhere
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.clip(((qx - ax) * dx + (qy - ay) * dy) / length2, 0.0, 1.0)
        euclid = np.hypot(qx - (ax + t * dx), qy - (ay + t * dy))
        allowed = some & (euclid <= 0.75 + MARGIN)
        xmajor = np.abs(dx) >= np.abs(dy)
        major, minor = np.where(xmajor, qx, qy), np.where(xmajor, qy, qx)
        a_major, a_minor = np.where(xmajor, ax, ay), np.where(xmajor, ay, ax)
        d_major, d_minor = np.where(xmajor, dx, dy), np.where(xmajor, dy, dx)
        m_lo = np.minimum(a_major, a_major + d_major)
        m_hi = np.maximum(a_major, a_major + d_major)
        spans = (major - 0.5 - MARGIN >= m_lo) & (major + 0.5 + MARGIN <= m_hi)
        at = a_minor + (major - a_major) * d_minor / d_major
        required = some & spans & (np.abs(minor - at) <= 0.5 - MARGIN)
    return required, allowed, np.ones(p.shape[0], bool)


def _point_boxes(p, qx, qy):
    x, y = p[:, 0, 0:1], p[:, 0, 1:2]
    d = np.maximum(np.abs(qx - x), np.abs(qy - y))
    return d <= 0.5 - MARGIN, d < 0.5 + MARGIN, np.ones(p.shape[0], bool)


_RASTERIZE_BOXES = {1: _point_boxes, 2: _line_boxes, 3: _triangle_boxes}


def cell_codes(keys, front, pixels, size: int) -> np.ndarray:
    """One int64 per (key, facing, pixel): ``((key << 1 | front) * size * size) + pixel``."""
    name = (np.asarray(keys, np.int64) << 1) | np.asarray(front, np.int64)
    return name * (size * size) + np.asarray(pixels, np.int64)


def split_cell(code: int, size: int) -> tuple[int, bool, int]:
    """(key, front, pixel) of a :func:`cell_codes` code."""
    name, pixel = divmod(int(code), size * size)
    return name >> 1, bool(name & 1), pixel
