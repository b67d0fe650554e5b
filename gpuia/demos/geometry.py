"""Demo geometry: the Utah teapot tessellated from Newell's Bézier patches, any mesh file through
trimesh, the D3D12 input layout the mesh demos draw with, and view/projection matrices.

**The teapot.** Martin Newell's 1975 teapot as 32 bicubic Bézier patches over 306 control points:
rim (4 patches), body (8), handle (4), spout (4), lid (8) and the bottom (4) added later by Frank
Crow. Data source: the teapot data file of Newell's tea set as distributed by Steve Baker,
http://www.sjbaker.org/teapot/teaset.tgz (history: https://www.sjbaker.org/wiki/index.php?title=The_History_of_The_Teapot,
and F. Crow, "The Origins of the Teapot", IEEE CG&A 7(1), 1987). The table below keeps that file's
layout: patches as 16 one-based control point numbers, row by row (u rows, v columns), then the
control points as x y z with z up. The numbers were transcribed from a public copy of that file;
tests/tools/test_geometry.py checks the teapot's mirror symmetry and that neighbouring patches share
their boundary control points.

Guarantees of :func:`teapot`:

* ``segments`` × ``segments`` quads per patch, evaluated exactly from the Bernstein basis; each
  patch has its own ``(segments + 1)²`` vertices, so UVs are the patch parameters (u along the
  rows of control points, v along the columns) and seams stay sharp where patches meet.
* Normals point out of the surface and have unit length. Newell's patches are consistently
  oriented with ``dP/du × dP/dv`` pointing into the material, so the normal is
  ``dP/dv × dP/du``. Eight patches (the lid's knob top and the bottom) collapse their u = 0 row of
  control points into one point; there ``dP/dv`` is 0, so the normal is taken at ``u = 1e-4``
  along the same v, the limit of the surface normal as the pole is approached.
* Triangles are wound counter-clockwise seen from outside (the convention of glTF and trimesh);
  the degenerate triangle of each quad touching a collapsed edge is left out, so the teapot has
  ``32 · 2 · segments² − 8 · segments`` triangles.
* Coordinates are converted from Newell's z-up to y-up, ``(x, y, z) -> (x, z, -y)`` (a rotation,
  so the winding is kept), unless ``y_up=False``.

**Matrices** are numpy float32 arrays in the mathematical convention: column vectors, a point is
transformed as ``M @ p``, translation in the last column. An HLSL cbuffer's ``float4x4`` is
column-major by default (fxc/dxc), as is WGSL's ``mat4x4<f32>``, so :func:`column_major_bytes`
uploads ``M.T`` in C order; the shader then writes ``mul(M, v)`` (HLSL) or ``m * v`` (WGSL) for
``M @ v``. View space is right-handed (the camera looks down -z) and :func:`perspective` maps the
view depth range ``[near, far]`` to D3D/WebGPU clip depth ``[0, 1]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import InputLayout
from ..errors import CaseError, UnsupportedError
from .encode import pack_records

__all__ = [
    "MESH_LAYOUT",
    "MESH_STRIDES",
    "TEAPOT_CONTROL_POINTS",
    "TEAPOT_PATCHES",
    "Mesh",
    "load_mesh",
    "look_at",
    "mesh_vertex_buffers",
    "normalize",
    "perspective",
    "rotation_x",
    "rotation_y",
    "rotation_z",
    "scaling",
    "teapot",
    "translation",
    "column_major_bytes",
]

# -- the teapot data (Newell, via Baker's teaset; see the module docstring) ---------------------
# 32 patches, 16 one-based control point numbers each, rows of constant u.
_PATCH_TABLE = """
  1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16
  4  17  18  19   8  20  21  22  12  23  24  25  16  26  27  28
 19  29  30  31  22  32  33  34  25  35  36  37  28  38  39  40
 31  41  42   1  34  43  44   5  37  45  46   9  40  47  48  13
 13  14  15  16  49  50  51  52  53  54  55  56  57  58  59  60
 16  26  27  28  52  61  62  63  56  64  65  66  60  67  68  69
 28  38  39  40  63  70  71  72  66  73  74  75  69  76  77  78
 40  47  48  13  72  79  80  49  75  81  82  53  78  83  84  57
 57  58  59  60  85  86  87  88  89  90  91  92  93  94  95  96
 60  67  68  69  88  97  98  99  92 100 101 102  96 103 104 105
 69  76  77  78  99 106 107 108 102 109 110 111 105 112 113 114
 78  83  84  57 108 115 116  85 111 117 118  89 114 119 120  93
121 122 123 124 125 126 127 128 129 130 131 132 133 134 135 136
124 137 138 121 128 139 140 125 132 141 142 129 136 143 144 133
133 134 135 136 145 146 147 148 149 150 151 152  69 153 154 155
136 143 144 133 148 156 157 145 152 158 159 149 155 160 161  69
162 163 164 165 166 167 168 169 170 171 172 173 174 175 176 177
165 178 179 162 169 180 181 166 173 182 183 170 177 184 185 174
174 175 176 177 186 187 188 189 190 191 192 193 194 195 196 197
177 184 185 174 189 198 199 186 193 200 201 190 197 202 203 194
204 204 204 204 207 208 209 210 211 211 211 211 212 213 214 215
204 204 204 204 210 217 218 219 211 211 211 211 215 220 221 222
204 204 204 204 219 224 225 226 211 211 211 211 222 227 228 229
204 204 204 204 226 230 231 207 211 211 211 211 229 232 233 212
212 213 214 215 234 235 236 237 238 239 240 241 242 243 244 245
215 220 221 222 237 246 247 248 241 249 250 251 245 252 253 254
222 227 228 229 248 255 256 257 251 258 259 260 254 261 262 263
229 232 233 212 257 264 265 234 260 266 267 238 263 268 269 242
270 270 270 270 279 280 281 282 275 276 277 278 271 272 273 274
270 270 270 270 282 289 290 291 278 286 287 288 274 283 284 285
270 270 270 270 291 298 299 300 288 295 296 297 285 292 293 294
270 270 270 270 300 305 306 279 297 303 304 275 294 301 302 271
"""

# 306 control points, x y z (z up), three per line.
_POINT_TABLE = """
1.4 0.0 2.4   1.4 -0.784 2.4   0.784 -1.4 2.4
0.0 -1.4 2.4   1.3375 0.0 2.53125   1.3375 -0.749 2.53125
0.749 -1.3375 2.53125   0.0 -1.3375 2.53125   1.4375 0.0 2.53125
1.4375 -0.805 2.53125   0.805 -1.4375 2.53125   0.0 -1.4375 2.53125
1.5 0.0 2.4   1.5 -0.84 2.4   0.84 -1.5 2.4
0.0 -1.5 2.4   -0.784 -1.4 2.4   -1.4 -0.784 2.4
-1.4 0.0 2.4   -0.749 -1.3375 2.53125   -1.3375 -0.749 2.53125
-1.3375 0.0 2.53125   -0.805 -1.4375 2.53125   -1.4375 -0.805 2.53125
-1.4375 0.0 2.53125   -0.84 -1.5 2.4   -1.5 -0.84 2.4
-1.5 0.0 2.4   -1.4 0.784 2.4   -0.784 1.4 2.4
0.0 1.4 2.4   -1.3375 0.749 2.53125   -0.749 1.3375 2.53125
0.0 1.3375 2.53125   -1.4375 0.805 2.53125   -0.805 1.4375 2.53125
0.0 1.4375 2.53125   -1.5 0.84 2.4   -0.84 1.5 2.4
0.0 1.5 2.4   0.784 1.4 2.4   1.4 0.784 2.4
0.749 1.3375 2.53125   1.3375 0.749 2.53125   0.805 1.4375 2.53125
1.4375 0.805 2.53125   0.84 1.5 2.4   1.5 0.84 2.4
1.75 0.0 1.875   1.75 -0.98 1.875   0.98 -1.75 1.875
0.0 -1.75 1.875   2.0 0.0 1.35   2.0 -1.12 1.35
1.12 -2.0 1.35   0.0 -2.0 1.35   2.0 0.0 0.9
2.0 -1.12 0.9   1.12 -2.0 0.9   0.0 -2.0 0.9
-0.98 -1.75 1.875   -1.75 -0.98 1.875   -1.75 0.0 1.875
-1.12 -2.0 1.35   -2.0 -1.12 1.35   -2.0 0.0 1.35
-1.12 -2.0 0.9   -2.0 -1.12 0.9   -2.0 0.0 0.9
-1.75 0.98 1.875   -0.98 1.75 1.875   0.0 1.75 1.875
-2.0 1.12 1.35   -1.12 2.0 1.35   0.0 2.0 1.35
-2.0 1.12 0.9   -1.12 2.0 0.9   0.0 2.0 0.9
0.98 1.75 1.875   1.75 0.98 1.875   1.12 2.0 1.35
2.0 1.12 1.35   1.12 2.0 0.9   2.0 1.12 0.9
2.0 0.0 0.45   2.0 -1.12 0.45   1.12 -2.0 0.45
0.0 -2.0 0.45   1.5 0.0 0.225   1.5 -0.84 0.225
0.84 -1.5 0.225   0.0 -1.5 0.225   1.5 0.0 0.15
1.5 -0.84 0.15   0.84 -1.5 0.15   0.0 -1.5 0.15
-1.12 -2.0 0.45   -2.0 -1.12 0.45   -2.0 0.0 0.45
-0.84 -1.5 0.225   -1.5 -0.84 0.225   -1.5 0.0 0.225
-0.84 -1.5 0.15   -1.5 -0.84 0.15   -1.5 0.0 0.15
-2.0 1.12 0.45   -1.12 2.0 0.45   0.0 2.0 0.45
-1.5 0.84 0.225   -0.84 1.5 0.225   0.0 1.5 0.225
-1.5 0.84 0.15   -0.84 1.5 0.15   0.0 1.5 0.15
1.12 2.0 0.45   2.0 1.12 0.45   0.84 1.5 0.225
1.5 0.84 0.225   0.84 1.5 0.15   1.5 0.84 0.15
-1.6 0.0 2.025   -1.6 -0.3 2.025   -1.5 -0.3 2.25
-1.5 0.0 2.25   -2.3 0.0 2.025   -2.3 -0.3 2.025
-2.5 -0.3 2.25   -2.5 0.0 2.25   -2.7 0.0 2.025
-2.7 -0.3 2.025   -3.0 -0.3 2.25   -3.0 0.0 2.25
-2.7 0.0 1.8   -2.7 -0.3 1.8   -3.0 -0.3 1.8
-3.0 0.0 1.8   -1.5 0.3 2.25   -1.6 0.3 2.025
-2.5 0.3 2.25   -2.3 0.3 2.025   -3.0 0.3 2.25
-2.7 0.3 2.025   -3.0 0.3 1.8   -2.7 0.3 1.8
-2.7 0.0 1.575   -2.7 -0.3 1.575   -3.0 -0.3 1.35
-3.0 0.0 1.35   -2.5 0.0 1.125   -2.5 -0.3 1.125
-2.65 -0.3 0.9375   -2.65 0.0 0.9375   -2.0 -0.3 0.9
-1.9 -0.3 0.6   -1.9 0.0 0.6   -3.0 0.3 1.35
-2.7 0.3 1.575   -2.65 0.3 0.9375   -2.5 0.3 1.125
-1.9 0.3 0.6   -2.0 0.3 0.9   1.7 0.0 1.425
1.7 -0.66 1.425   1.7 -0.66 0.6   1.7 0.0 0.6
2.6 0.0 1.425   2.6 -0.66 1.425   3.1 -0.66 0.825
3.1 0.0 0.825   2.3 0.0 2.1   2.3 -0.25 2.1
2.4 -0.25 2.025   2.4 0.0 2.025   2.7 0.0 2.4
2.7 -0.25 2.4   3.3 -0.25 2.4   3.3 0.0 2.4
1.7 0.66 0.6   1.7 0.66 1.425   3.1 0.66 0.825
2.6 0.66 1.425   2.4 0.25 2.025   2.3 0.25 2.1
3.3 0.25 2.4   2.7 0.25 2.4   2.8 0.0 2.475
2.8 -0.25 2.475   3.525 -0.25 2.49375   3.525 0.0 2.49375
2.9 0.0 2.475   2.9 -0.15 2.475   3.45 -0.15 2.5125
3.45 0.0 2.5125   2.8 0.0 2.4   2.8 -0.15 2.4
3.2 -0.15 2.4   3.2 0.0 2.4   3.525 0.25 2.49375
2.8 0.25 2.475   3.45 0.15 2.5125   2.9 0.15 2.475
3.2 0.15 2.4   2.8 0.15 2.4   0.0 0.0 3.15
0.0 -0.002 3.15   0.002 0.0 3.15   0.8 0.0 3.15
0.8 -0.45 3.15   0.45 -0.8 3.15   0.0 -0.8 3.15
0.0 0.0 2.85   0.2 0.0 2.7   0.2 -0.112 2.7
0.112 -0.2 2.7   0.0 -0.2 2.7   -0.002 0.0 3.15
-0.45 -0.8 3.15   -0.8 -0.45 3.15   -0.8 0.0 3.15
-0.112 -0.2 2.7   -0.2 -0.112 2.7   -0.2 0.0 2.7
0.0 0.002 3.15   -0.8 0.45 3.15   -0.45 0.8 3.15
0.0 0.8 3.15   -0.2 0.112 2.7   -0.112 0.2 2.7
0.0 0.2 2.7   0.45 0.8 3.15   0.8 0.45 3.15
0.112 0.2 2.7   0.2 0.112 2.7   0.4 0.0 2.55
0.4 -0.224 2.55   0.224 -0.4 2.55   0.0 -0.4 2.55
1.3 0.0 2.55   1.3 -0.728 2.55   0.728 -1.3 2.55
0.0 -1.3 2.55   1.3 0.0 2.4   1.3 -0.728 2.4
0.728 -1.3 2.4   0.0 -1.3 2.4   -0.224 -0.4 2.55
-0.4 -0.224 2.55   -0.4 0.0 2.55   -0.728 -1.3 2.55
-1.3 -0.728 2.55   -1.3 0.0 2.55   -0.728 -1.3 2.4
-1.3 -0.728 2.4   -1.3 0.0 2.4   -0.4 0.224 2.55
-0.224 0.4 2.55   0.0 0.4 2.55   -1.3 0.728 2.55
-0.728 1.3 2.55   0.0 1.3 2.55   -1.3 0.728 2.4
-0.728 1.3 2.4   0.0 1.3 2.4   0.224 0.4 2.55
0.4 0.224 2.55   0.728 1.3 2.55   1.3 0.728 2.55
0.728 1.3 2.4   1.3 0.728 2.4   0.0 0.0 0.0
1.5 0.0 0.15   1.5 0.84 0.15   0.84 1.5 0.15
0.0 1.5 0.15   1.5 0.0 0.075   1.5 0.84 0.075
0.84 1.5 0.075   0.0 1.5 0.075   1.425 0.0 0.0
1.425 0.798 0.0   0.798 1.425 0.0   0.0 1.425 0.0
-0.84 1.5 0.15   -1.5 0.84 0.15   -1.5 0.0 0.15
-0.84 1.5 0.075   -1.5 0.84 0.075   -1.5 0.0 0.075
-0.798 1.425 0.0   -1.425 0.798 0.0   -1.425 0.0 0.0
-1.5 -0.84 0.15   -0.84 -1.5 0.15   0.0 -1.5 0.15
-1.5 -0.84 0.075   -0.84 -1.5 0.075   0.0 -1.5 0.075
-1.425 -0.798 0.0   -0.798 -1.425 0.0   0.0 -1.425 0.0
0.84 -1.5 0.15   1.5 -0.84 0.15   0.84 -1.5 0.075
1.5 -0.84 0.075   0.798 -1.425 0.0   1.425 -0.798 0.0
"""

TEAPOT_PATCHES = np.array(_PATCH_TABLE.split(), np.int64).reshape(32, 4, 4) - 1
"""(32, 4, 4) zero-based control point numbers: patch, u row, v column."""
TEAPOT_CONTROL_POINTS = np.array(_POINT_TABLE.split(), np.float64).reshape(306, 3)
"""(306, 3) control points in Newell's coordinates (z up)."""

# Newell z-up -> y-up: (x, y, z) -> (x, z, -y), a rotation of -90 degrees about x.
_Z_UP_TO_Y_UP = np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]], np.float64)

# How far from a collapsed edge the normal is taken (in patch parameter units).
_POLE_STEP = 1e-4


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


def normalize(v: np.ndarray) -> np.ndarray:
    """``v`` divided by its length along the last axis (zero vectors stay zero)."""
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.divide(v, n, out=np.zeros_like(v), where=n > 0)


def _collapsed_edges(patches: np.ndarray) -> dict[str, np.ndarray]:
    """Per patch, whether each boundary's four control points are one point (a pole)."""
    return {
        "u0": np.all(patches[:, 0, :] == patches[:, 0, :1], axis=1),
        "u1": np.all(patches[:, 3, :] == patches[:, 3, :1], axis=1),
        "v0": np.all(patches[:, :, 0] == patches[:, :1, 0], axis=1),
        "v1": np.all(patches[:, :, 3] == patches[:, :1, 3], axis=1),
    }


def teapot(segments: int = 8, y_up: bool = True) -> Mesh:
    """The Utah teapot, ``segments`` × ``segments`` quads per patch (see the module docstring for
    what is guaranteed). ``segments`` must be an integer from 1 to 64 (``ValueError``)."""
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


# -- mesh files through trimesh (extra "mesh") -----------------------------------------------
MESH_SUFFIXES = (".obj", ".gltf", ".glb", ".ply", ".stl", ".off")


def _trimesh():
    import logging

    try:
        import trimesh
    except ImportError:
        raise UnsupportedError("--mesh needs trimesh, which is not installed: "
                               "pip install 'gpuia[mesh]'") from None
    # trimesh logs a traceback when its optional scipy is missing and it falls back to dense
    # matrices; the fallback is fine for demo meshes, the noise is not.
    logging.getLogger("trimesh").setLevel(logging.ERROR)
    return trimesh


def load_mesh(path, normalize_size: bool = True) -> Mesh:
    """Load an OBJ, glTF/GLB, PLY, STL or OFF file through trimesh (the optional extra
    ``mesh``). A scene (glTF) is flattened into one mesh with its node transforms applied.
    Normals are trimesh's vertex normals; UVs are the file's texture coordinates when it has one
    per vertex, else (0, 0). With ``normalize_size`` the mesh is centred on its bounding box and
    scaled so that the box's largest side is 2, which the demos' camera frames.

    Refused: a missing file or unknown suffix (``CaseError``), a file trimesh cannot read or one
    without triangles (``CaseError``), trimesh not installed (``UnsupportedError`` naming the
    extra)."""
    p = Path(path)
    where = f"--mesh {path}"
    if not p.is_file():
        raise CaseError(where, "no such file")
    if p.suffix.lower() not in MESH_SUFFIXES:
        raise CaseError(where, f"unknown mesh suffix {p.suffix!r}; expected one of "
                               f"{', '.join(MESH_SUFFIXES)}")
    trimesh = _trimesh()
    try:
        tm = trimesh.load(str(p), force="mesh", process=True)
    except Exception as exc:  # noqa: BLE001 - trimesh raises many kinds for unreadable files
        raise CaseError(where, f"trimesh could not read it: {' '.join(str(exc).split())}") \
            from None
    faces = np.asarray(getattr(tm, "faces", np.zeros((0, 3))), np.int64)
    verts = np.asarray(getattr(tm, "vertices", np.zeros((0, 3))), np.float64)
    if faces.size == 0 or verts.size == 0:
        raise CaseError(where, "the file holds no triangles")
    normals = np.asarray(tm.vertex_normals, np.float64)
    uv = getattr(getattr(tm, "visual", None), "uv", None)
    uvs = (np.asarray(uv, np.float64) if uv is not None and len(uv) == len(verts)
           else np.zeros((len(verts), 2)))
    if normalize_size:
        lo, hi = verts.min(axis=0), verts.max(axis=0)
        size = float((hi - lo).max())
        verts = (verts - (lo + hi) / 2) * (2.0 / size if size > 0 else 1.0)
    return Mesh(name=p.stem, positions=verts.astype(np.float32),
                normals=normalize(normals).astype(np.float32), uvs=uvs.astype(np.float32),
                indices=faces.astype(np.uint32))


# -- the D3D12 layout of the mesh demos ------------------------------------------------------
MESH_LAYOUT = InputLayout([
    {"SemanticName": "POSITION", "SemanticIndex": 0, "Format": "R32G32B32_FLOAT",
     "InputSlot": 0, "AlignedByteOffset": 0, "InputSlotClass": "PER_VERTEX_DATA",
     "InstanceDataStepRate": 0},
    {"SemanticName": "NORMAL", "SemanticIndex": 0, "Format": "R10G10B10A2_UNORM",
     "InputSlot": 1, "AlignedByteOffset": 0, "InputSlotClass": "PER_VERTEX_DATA",
     "InstanceDataStepRate": 0},
    {"SemanticName": "TEXCOORD", "SemanticIndex": 0, "Format": "R16G16_FLOAT",
     "InputSlot": 1, "AlignedByteOffset": "APPEND_ALIGNED", "InputSlotClass": "PER_VERTEX_DATA",
     "InstanceDataStepRate": 0},
])
"""Positions R32G32B32_FLOAT in slot 0; normals R10G10B10A2_UNORM (``n * 0.5 + 0.5``, A = 3) and
UVs R16G16_FLOAT in slot 1."""

MESH_STRIDES = {0: 12, 1: 8}
"""Bytes per vertex in each slot of :data:`MESH_LAYOUT`."""

NORMAL_ALPHA = 3
"""The 2-bit A channel written with packed normals (1.0 after decoding); shaders ignore it."""


def mesh_vertex_buffers(mesh: Mesh, layout: InputLayout = MESH_LAYOUT,
                        strides: dict | None = None) -> dict[int, np.ndarray]:
    """The two interleaved slot buffers of ``mesh`` for :data:`MESH_LAYOUT`: slot number -> uint8
    bytes. Normals are stored as ``n * 0.5 + 0.5`` in the UNORM channels (decoded by the
    shader as ``x * 2 - 1``)."""
    strides = MESH_STRIDES if strides is None else strides
    n = mesh.vertex_count
    values = {
        "POSITION0": mesh.positions,
        "NORMAL0": np.concatenate([mesh.normals * 0.5 + 0.5,
                                   np.full((n, 1), NORMAL_ALPHA / 3.0)], axis=1),
        "TEXCOORD0": mesh.uvs,
    }
    return {s: pack_records(layout, s, strides[s], n, values) for s in layout.slots}


# -- matrices (column vectors; see the module docstring) -------------------------------------
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
