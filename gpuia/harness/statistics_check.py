"""The pipeline statistics cross-check: the GPU's own counts of the draws the raster check
draws, against what D3D's rules make of the CPU reference's primitives (docs/raster-check.md,
"The GPU's pipeline statistics"; rules 4.11).

On a device with wgpu's native ``pipeline-statistics-query`` feature the raster probe wraps each
draw in a pipeline statistics query (:mod:`gpuia.gpu.raster.probe`): the GPU's count of vertex
shader invocations and of primitives reaching its clipper. What the rules make of them, per draw:

* **clipper invocations = the draw's complete primitives**, exactly. Vulkan counts a clipping
  invocation each time a primitive reaches the clipping stage; D3D's ``CInvocations`` counts the
  primitives sent to the rasterizer, which without a geometry shader and with the rasterizer on
  (the probe draws a pixel shader) are the Input Assembler's complete primitives. gpuia's
  translation of a draw (list streams for cuts and adjacency) keeps the primitives one for one.
* **vertex shader invocations >= the distinct vertices of the draw's complete primitives** (per
  instance). Every vertex a primitive is made of is shaded at least once; a GPU may shade a
  vertex an index buffer repeats only once (Vulkan lets it reuse the results; D3D lets
  ``VSInvocations`` fall short of ``IAVertices`` for that), may leave vertices of no complete
  primitive unshaded (no source pins them down, rules 13.8), and gpuia's list streams repeat
  vertices, so no upper bound holds: D3D's ``VSInvocations`` (one per vertex the IA delivers)
  is shown beside the count, not compared.

Refused: nothing; a draw without the GPU's counts (not probed) is left out, and a line with no
draw left says why (:func:`statistics_verdict`). An adapter without the feature gets the line
``not applicable`` with :data:`NO_FEATURE` (:func:`gpuia.harness.crosscheck.cross_check`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["DrawStatistics", "reference_statistics", "statistics_problems",
           "statistics_verdict", "NO_FEATURE"]

NO_FEATURE = ("the device has no pipeline-statistics-query, wgpu's native feature (its adapter "
              "lacks it, or the wgpu device was made without it): the GPU's own vertex shader "
              "and clipper counts cannot be read (docs/known-adapter-issues.md)")


@dataclass(frozen=True)
class DrawStatistics:
    """What D3D's rules make of one draw of the reference, for the GPU's counts.

    Attributes:
        draw (int): the draw's position in the case.
        primitives (int): its complete primitives: D3D's ``CInvocations`` (no geometry shader,
            rasterizer on), what the GPU's clipper must receive.
        shaded_at_least (int): the distinct ``(SV_VertexID, SV_InstanceID)`` among those
            primitives' vertices (adjacency vertices are no part of a rasterized primitive):
            the fewest vertex shader invocations a GPU may run.
        vs_invocations (int): D3D's ``VSInvocations``: one per vertex the IA delivers
            (``IAVertices``, rules 13.8).
    """

    draw: int
    primitives: int
    shaded_at_least: int
    vs_invocations: int


def reference_statistics(ref, draw: int) -> DrawStatistics:
    """The :class:`DrawStatistics` of draw ``draw`` of ``ref`` (an
    :class:`~gpuia.reference.ia.IAResult`)."""
    rows = ref.primitives[ref.primitive_draw == draw]
    corners = np.unique(rows.reshape(-1))
    pairs = (ref.vertex_id[corners].astype(np.uint64) << np.uint64(32)) | ref.instance[corners]
    return DrawStatistics(draw, int(rows.shape[0]), int(np.unique(pairs).shape[0]),
                          int(np.count_nonzero(ref.draw == draw)))


def statistics_problems(expected: DrawStatistics, gpu: tuple[int, int]) -> list[str]:
    """One line per count of ``gpu`` = ``(vertex shader invocations, clipper invocations)``
    that breaks its rule (module docstring): empty when both keep to them."""
    vs, clipper = gpu
    problems = []
    if clipper != expected.primitives:
        problems.append(f"draw {expected.draw}: the GPU's clipper received {clipper} "
                        f"primitive(s); D3D sends its {expected.primitives} complete "
                        f"primitive(s) to the rasterizer (CInvocations)")
    if vs < expected.shaded_at_least:
        problems.append(f"draw {expected.draw}: {vs} vertex shader invocation(s) for the "
                        f"{expected.shaded_at_least} distinct vertices of its "
                        f"{expected.primitives} primitive(s), each shaded at least once")
    return problems


def statistics_verdict(draws: Sequence[tuple[DrawStatistics, tuple[int, int] | None]]
                       ) -> tuple[str, str, list[str]]:
    """(status, detail, problems) of the ``pipeline statistics`` line of one device, from each
    probed draw's reference statistics and GPU counts (None: not read).

    Returns:
        ``OK`` or ``DIFFERENT`` with one detail part per draw read (the GPU's counts, the
        bound and D3D's counts) and :func:`statistics_problems`' lines; ``not applicable``
        when no draw has counts.
    """
    parts, problems = [], []
    for expected, gpu in draws:
        if gpu is None:
            continue
        vs, clipper = gpu
        parts.append(f"draw {expected.draw}: vertex shader invocations {vs} (at least "
                     f"{expected.shaded_at_least}; D3D's VSInvocations "
                     f"{expected.vs_invocations}), clipper invocations {clipper} (D3D's "
                     f"CInvocations {expected.primitives})")
        problems += statistics_problems(expected, gpu)
    if not parts:
        return "not applicable", ("no draw the raster check drew has the GPU's counts (its "
                                  "line says why each was not drawn)"), []
    return ("DIFFERENT" if problems else "OK"), "; ".join(parts), problems
