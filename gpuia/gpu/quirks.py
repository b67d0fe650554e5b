"""Adapter quirks: where an adapter measurably differs from Direct3D, and what gpuia does about it.

One row per fact. Each names the adapters it applies to (a case-insensitive substring of the
adapter summary, such as ``"llvmpipe"`` or ``"via OpenGL"``), its *effect* on planning, why, and
the case or test that shows it; the measurements are in ``docs/known-adapter-issues.md``.

Effects (what the planner does, :mod:`gpuia.gpu.plan`):

``FETCH``
    WebGPU's vertex fetch of the elements ``affects`` picks differs: those draws take the
    vertex-pulling path (exact everywhere); ``gpuia check`` can still force the native path to
    show the difference.
``NO_PRIMITIVE_RESTART``
    The adapter draws strips as if no index restarted them: a rendering strip draw with a cut is
    drawn as the matching list, from a host index stream (:mod:`gpuia.gpu.assembly`).
``LAST_PROVOKING_VERTEX``
    Flat inputs of a pixel shader come from a primitive's last vertex, not its first (D3D's
    leading vertex, WebGPU's provoking vertex): a rendering draw whose pixel shader reads a flat
    input is drawn as a list with each primitive's vertices rotated so D3D's first comes last.
``SIGNED_FIRST_VERTEX``
    A non-indexed draw's first vertex is a signed 32-bit value: from StartVertexLocation
    >= 2**31 some draws deliver nothing. gpuia draws such a draw from vertex 0 and adds StartVertexLocation in the
    vertex stage (the per-draw block's ``vertex_shift``), which is exact for pulled fetches and
    system values; the native path, whose fetch would start at vertex 0, refuses such draws.
``DEPTH_REMAP``
    Depth reaches the depth buffer through OpenGL's [-1, 1] clip range (2z - w in the vertex
    stage, (z + 1) / 2 in the viewport transform), which rounds away the lowest bits of some
    depths: a depth test between depths within a few ULPs may differ from D3D's. Nothing can
    route around it in WebGPU; documented, and depth read-back is refused there anyway.
``UNIFORM_TWO_ROW_MATRICES``
    A WGSL uniform holding a matCx2 (mat2x2, mat3x2, mat4x2) reads wrong values: the adapter's
    uniform block pads a 2-row matrix's columns to 16 bytes where WGSL's uniform layout has 8.
    A pipeline state whose shaders declare such a uniform is refused on the adapter, naming it.
``ONE_DEVICE``
    Dropping one of the adapter's wgpu devices breaks the others: gpuia keeps one wgpu device
    per such adapter for the whole process and every :class:`~gpuia.gpu.Device` on the adapter
    shares it (:mod:`gpuia.gpu.device`); a lost one is replaced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["Quirk", "QUIRKS", "FETCH", "NO_PRIMITIVE_RESTART", "LAST_PROVOKING_VERTEX",
           "SIGNED_FIRST_VERTEX", "ONE_DEVICE", "DEPTH_REMAP",
           "UNIFORM_TWO_ROW_MATRICES", "EFFECTS", "quirks_for", "has_effect"]

FETCH = "fetch"
NO_PRIMITIVE_RESTART = "no-primitive-restart"
LAST_PROVOKING_VERTEX = "last-provoking-vertex"
SIGNED_FIRST_VERTEX = "signed-first-vertex"
ONE_DEVICE = "one-device"
DEPTH_REMAP = "depth-remap"
UNIFORM_TWO_ROW_MATRICES = "uniform-two-row-matrices"
EFFECTS = (FETCH, NO_PRIMITIVE_RESTART, LAST_PROVOKING_VERTEX, SIGNED_FIRST_VERTEX, ONE_DEVICE,
           DEPTH_REMAP, UNIFORM_TWO_ROW_MATRICES)


@dataclass(frozen=True)
class Quirk:
    adapter: str  # case-insensitive substring of the adapter summary
    effect: str  # one of the effects above
    reason: str
    shown_by: str  # the case file or test that shows the difference
    affects: Callable | None = None  # FETCH: ResolvedElement -> bool


def _per_instance_snorm(e) -> bool:
    return e.per_instance and e.format.components[0].kind == "sn"


QUIRKS: tuple[Quirk, ...] = (
    Quirk("llvmpipe", FETCH,
          "llvmpipe's per-instance fetch does not clamp the most negative SNORM code to -1.0 "
          "(rules 2.3)",
          "tests/test_gpu_raster.py::test_fetch_quirk_is_measured",
          _per_instance_snorm),
    # wgpu's GL backend is OpenGL ES 3, which has no glProvokingVertex (gpuweb issue 4489).
    Quirk("via OpenGL", LAST_PROVOKING_VERTEX,
          "wgpu's OpenGL backend takes flat pixel inputs from a primitive's last vertex, not "
          "its first (D3D's leading vertex)",
          "tests/test_gpu_raster.py::test_quirk_rows_are_measured[last-provoking-vertex]"),
    Quirk("via OpenGL", NO_PRIMITIVE_RESTART,
          "wgpu's OpenGL backend draws strips as if no index restarted them",
          "tests/test_gpu_raster.py::test_quirk_rows_are_measured[no-primitive-restart]"),
    # GL ES 3.2's DrawArrays* take `int first`; a negative one is INVALID_VALUE.
    Quirk("via OpenGL", SIGNED_FIRST_VERTEX,
          "wgpu's OpenGL backend passes a non-indexed draw's first vertex as a signed 32-bit "
          "value: from StartVertexLocation >= 2**31 llvmpipe's OpenGL draws no points (its "
          "triangle strips were drawn)",
          "tests/test_gpu_raster.py::test_signed_first_vertex_quirk_is_measured"),
    Quirk("via OpenGL", ONE_DEVICE,
          "on wgpu's OpenGL backend, dropping one device of an adapter breaks its other devices "
          "(measured on llvmpipe: their draws deliver nothing)",
          "tests/test_gpu_device_churn.py::test_one_device_quirk_is_measured"),
    Quirk("via OpenGL", DEPTH_REMAP,
          "wgpu's OpenGL backend maps depth through OpenGL's [-1, 1] clip range: a depth one "
          "ULP below 0.25 is stored as 0.25",
          "tests/test_gpu_render.py::test_depth_written_is_z_over_w_and_write_mask_zero_keeps_it"),
    Quirk("via OpenGL", UNIFORM_TWO_ROW_MATRICES,
          "wgpu's OpenGL backend reads a WGSL uniform's mat2x2 / mat3x2 / mat4x2 with 16-byte "
          "column strides (GLSL's std140), not WGSL's 8: the values come out wrong",
          "tests/test_wgsl_bounds.py::test_two_row_uniform_matrix_quirk_is_measured"),
)


def quirks_for(summary: str) -> tuple[Quirk, ...]:
    """The quirks of the adapter with this summary."""
    s = summary.lower()
    return tuple(q for q in QUIRKS if q.adapter.lower() in s)


def has_effect(quirks, effect: str) -> bool:
    """Whether any of ``quirks`` has ``effect``."""
    return any(q.effect == effect for q in quirks)
