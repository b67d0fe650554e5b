"""Adapter quirks: where an adapter measurably differs from Direct3D, and what gpuia does about it.

One row per fact. Each names the adapters it applies to (a case-insensitive substring of the
adapter summary, such as ``"llvmpipe"`` or ``"via OpenGL"``), its *effect* on planning, why, and
the case or test that shows it; the measurements are in ``docs/known-adapter-issues.md``.

Effects (what the planners do, :mod:`gpuia.gpu.ia.plan` and :mod:`gpuia.gpu.vertex.plan`):

``FETCH``
    WebGPU's vertex fetch of the elements ``affects`` picks differs: those draws take the
    vertex-pulling path (exact everywhere); ``gpuia check`` can still force the native path to
    show the difference.
``NO_PRIMITIVE_RESTART``
    The adapter draws strips as if no index restarted them: a rendering strip draw with a cut is
    drawn as the matching list, from a host index stream (:mod:`gpuia.gpu.ia.host_lists`).
``LAST_PROVOKING_VERTEX``
    Flat inputs of a pixel shader come from a primitive's last vertex, not its first (D3D's
    leading vertex, WebGPU's provoking vertex): a rendering draw whose pixel shader reads a flat
    input is drawn as a list with each primitive's vertices rotated so D3D's first comes last.
``SIGNED_FIRST_VERTEX``
    A non-indexed draw's first vertex is a signed 32-bit value: from StartVertexLocation >= 2**31
    some draws deliver nothing. gpuia draws such a draw from vertex 0 and adds StartVertexLocation
    in the vertex stage (the per-draw block's ``vertex_shift``), which is exact for pulled fetches
    and system values; the native path, whose fetch would start at vertex 0, refuses such draws.
``DEPTH_REMAP``
    Depth reaches the depth buffer through OpenGL's [-1, 1] clip range (2z - w in the vertex
    stage, (z + 1) / 2 in the viewport transform), which rounds away the lowest bits of some
    depths: a depth test between depths within a few ULPs may differ from D3D's. Nothing can
    route around it in WebGPU; documented, and depth read-back is refused there anyway.
``UNIFORM_TWO_ROW_MATRICES``
    A WGSL uniform holding a matCx2 (mat2x2, mat3x2, mat4x2) reads wrong values: the adapter's
    uniform block pads a 2-row matrix's columns to 16 bytes where WGSL's uniform layout has 8.
    A pipeline state whose shaders declare such a uniform is refused on the adapter, naming it.
``ATTRIBUTE_FETCH``
    The adapter's storage buffer gathers are slow beside its vertex fetch: a pulled slot whose
    fetch WebGPU's vertex fetch does exactly for the draw (the conditions of
    :func:`gpuia.gpu.vertex.plan.static_plan`'s attribute form) reads its raw 32-bit words through
    ``uint32`` vertex attributes instead of storage loads, and gpuia's decoders decode them as
    before; every other pulled slot keeps the storage loads. The values are the same either way
    (tests force each form with a device copy whose ``caps.quirks`` has the row or lacks it).
``ONE_DEVICE``
    Dropping one of the adapter's wgpu devices breaks the others: gpuia keeps one wgpu device
    per such adapter for the whole process and every :class:`~gpuia.gpu.Device` on the adapter
    shares it (:mod:`gpuia.gpu.adapters`); a lost one is replaced.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["Quirk", "QUIRKS", "FETCH", "NO_PRIMITIVE_RESTART", "LAST_PROVOKING_VERTEX",
           "SIGNED_FIRST_VERTEX", "ATTRIBUTE_FETCH", "ONE_DEVICE", "DEPTH_REMAP",
           "UNIFORM_TWO_ROW_MATRICES", "EFFECTS", "quirks_for", "has_effect"]

FETCH = "fetch"
"""Effect: WebGPU's vertex fetch of some elements (a row's ``affects``) differs; draws of those
elements are pulled."""
NO_PRIMITIVE_RESTART = "no-primitive-restart"
"""Effect: strips are drawn as if no index restarted them; a rendering strip draw with a cut is
drawn as the matching list."""
LAST_PROVOKING_VERTEX = "last-provoking-vertex"
"""Effect: flat pixel inputs come from a primitive's last vertex; a draw whose pixel shader
reads one is drawn as a list with each primitive rotated."""
SIGNED_FIRST_VERTEX = "signed-first-vertex"
"""Effect: a non-indexed draw's first vertex is signed 32-bit; from StartVertexLocation >= 2**31
the vertex stage adds it, and the native path refuses such draws."""
ATTRIBUTE_FETCH = "attribute-fetch"
"""Effect: storage gathers are slow; pulled slots WebGPU's vertex fetch reads exactly take their
raw words through vertex attributes (decoded by gpuia as pulled words are)."""
ONE_DEVICE = "one-device"
"""Effect: dropping one wgpu device of the adapter breaks the others; every gpuia Device there
shares one, kept for the process."""
DEPTH_REMAP = "depth-remap"
"""Effect: depth goes through OpenGL's [-1, 1] clip range and may lose its lowest bits;
documented only (nothing in WebGPU routes around it)."""
UNIFORM_TWO_ROW_MATRICES = "uniform-two-row-matrices"
"""Effect: a uniform's 2-row matrices read wrong values; a pipeline state whose shaders declare
one is refused on the adapter."""
EFFECTS = (FETCH, NO_PRIMITIVE_RESTART, LAST_PROVOKING_VERTEX, SIGNED_FIRST_VERTEX,
           ATTRIBUTE_FETCH, ONE_DEVICE, DEPTH_REMAP, UNIFORM_TWO_ROW_MATRICES)
"""Every effect a :class:`Quirk` may have (the module docstring says what each one does)."""


@dataclass(frozen=True)
class Quirk:
    """One measured difference between an adapter and Direct3D: which adapters, what the
    planner does about it (its effect), why, and what shows it. A frozen value; the rows are
    :data:`QUIRKS`, and a :class:`~gpuia.gpu.caps.Caps` holds those of its adapter
    (:func:`quirks_for`). Nothing is validated when a row is made.

    Arguments:
        adapter (str): a case-insensitive substring of the summaries of the adapters it
            applies to (``"llvmpipe"``, ``"via OpenGL"``).
        effect (str): one of :data:`EFFECTS`.
        reason (str): what differs, in words: ``Caps.as_dict`` (``gpuia adapters``) lists
            it, and a :data:`FETCH` row's reason is among the plan reasons of the draws it
            sends to pulling.
        shown_by (str): the case file or test that shows the difference.
        affects: for :data:`FETCH`, a callable taking a resolved layout element and returning
            whether its fetch differs; None for the other effects.
    """

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
          "tests/gpu/test_gpu_raster.py::test_fetch_quirk_is_measured",
          _per_instance_snorm),
    # Measured on an indexed 1M-vertex mesh: the pulled draw's time is its storage loads
    # (docs/benchmarks.md, issue 31); the vertex fetch of raw words is the native path's speed.
    Quirk("llvmpipe", ATTRIBUTE_FETCH,
          "llvmpipe's storage buffer gathers are slower than its vertex fetch: pulled slots the "
          "vertex fetch reads exactly take their raw words through uint32 vertex attributes",
          "benchmarks/bench_gpu_paths.py"),
    # wgpu's GL backend is OpenGL ES 3, which has no glProvokingVertex (gpuweb issue 4489).
    Quirk("via OpenGL", LAST_PROVOKING_VERTEX,
          "wgpu's OpenGL backend takes flat pixel inputs from a primitive's last vertex, not "
          "its first (D3D's leading vertex)",
          "tests/gpu/test_gpu_raster.py::test_quirk_rows_are_measured[last-provoking-vertex]"),
    Quirk("via OpenGL", NO_PRIMITIVE_RESTART,
          "wgpu's OpenGL backend draws strips as if no index restarted them",
          "tests/gpu/test_gpu_raster.py::test_quirk_rows_are_measured[no-primitive-restart]"),
    # GL ES 3.2's DrawArrays* take `int first`; a negative one is INVALID_VALUE.
    Quirk("via OpenGL", SIGNED_FIRST_VERTEX,
          "wgpu's OpenGL backend passes a non-indexed draw's first vertex as a signed 32-bit "
          "value: from StartVertexLocation >= 2**31 llvmpipe's OpenGL draws no points (its "
          "triangle strips were drawn)",
          "tests/gpu/test_gpu_raster.py::test_signed_first_vertex_quirk_is_measured"),
    Quirk("via OpenGL", ONE_DEVICE,
          "on wgpu's OpenGL backend, dropping one device of an adapter breaks its other devices "
          "(measured on llvmpipe: their draws deliver nothing)",
          "tests/gpu/test_gpu_device_churn.py::test_one_device_quirk_is_measured"),
    Quirk("via OpenGL", DEPTH_REMAP,
          "wgpu's OpenGL backend maps depth through OpenGL's [-1, 1] clip range: a depth one "
          "ULP below 0.25 is stored as 0.25",
          "tests/gpu/test_gpu_render.py::test_depth_written_is_z_over_w_and_write_mask_zero_keeps_it"),
    Quirk("via OpenGL", UNIFORM_TWO_ROW_MATRICES,
          "wgpu's OpenGL backend reads a WGSL uniform's mat2x2 / mat3x2 / mat4x2 with 16-byte "
          "column strides (GLSL's std140), not WGSL's 8: the values come out wrong",
          "tests/gpu/test_wgsl_bounds_gpu.py::test_two_row_uniform_matrix_quirk_is_measured"),
)
"""Every known quirk, one row per (adapters, effect); the measurements are in
docs/known-adapter-issues.md."""


def quirks_for(summary: str) -> tuple[Quirk, ...]:
    """The quirks of the adapter with this summary: the rows of :data:`QUIRKS` whose
    ``adapter`` occurs in it, compared case-insensitively.

    Arguments:
        summary (str): the adapter's summary (``wgpu.GPUAdapter.summary``, such as
            ``"llvmpipe (LLVM 15.0.6, 256 bits) (CPU) via Vulkan"``).

    Returns:
        The matching :class:`Quirk` rows, in :data:`QUIRKS` order (empty when none applies).
    """
    s = summary.lower()
    return tuple(q for q in QUIRKS if q.adapter.lower() in s)


def has_effect(quirks: Iterable[Quirk], effect: str) -> bool:
    """Whether any of ``quirks`` has ``effect``.

    Arguments:
        quirks: :class:`Quirk` rows (``Caps.quirks``, or what :func:`quirks_for` returns).
        effect (str): one of :data:`EFFECTS`.

    Returns:
        True when at least one row has that effect.
    """
    return any(q.effect == effect for q in quirks)
