"""The raster cross-check: the primitives a GPU rasterizes for a case's draws, against the CPU
reference's primitive list (``docs/raster-check.md``).

A capture shows what vertex shaders received; this shows what the GPU assembled from them for
rasterization: strip cuts, restart values, adjacency, winding and the provoking vertex. Each draw
is drawn as a rendering draw of a :class:`~gpuia.gpu.Context` would be (the same index plan,
adapter quirks included, the same primitive state and draw calls: :mod:`gpuia.gpu.raster.drawcall`),
with a generated vertex shader that places every vertex by its ``(SV_VertexID, SV_InstanceID)``
and a pixel shader that appends one record per fragment: its pixel, the flat key of the
primitive's provoking vertex and its facing (:mod:`gpuia.gpu.raster.probe` draws them, the
program is :mod:`gpuia.wgsl.raster`'s). The CPU side (:mod:`gpuia.reference.coverage`)
computes from the reference's primitives which pixels each must and may cover; every record
count per (primitive name, pixel) must lie between the two. The pixel shader reads a flat input,
so an adapter whose provoking vertex is the last one draws through the rotation gpuia applies
for such pixel shaders: that is checked too.

Refused with a reason (the check reports ``not run``): a draw of more than
:data:`MAX_RASTER_PRIMITIVES` primitives or :data:`MAX_RASTER_FRAGMENTS` fragments, and what the
rendering path itself refuses (its reason is reported).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ..errors import UnsupportedError
from ..gpu.ia.plan import Assembly, plan_indices, shift_first_vertex
from ..gpu.lifetime import wgpu_call
from ..gpu.raster.probe import ProbeDraw, RasterProbe
from ..reference.coverage import (
    KEY_SALT,
    SUBPIXEL,
    cell_codes,
    coverage_cells,
    split_cell,
    vertex_keys,
)
from ..wgsl.blocks import RASTER_RECORD
from .statistics_check import DrawStatistics, reference_statistics

__all__ = ["RASTER_SIZE", "MAX_RASTER_PRIMITIVES", "MAX_RASTER_FRAGMENTS", "RasterDraw",
           "raster_check"]

RASTER_SIZE = 64
"""The check's target is RASTER_SIZE x RASTER_SIZE pixels (a power of two: exact positions)."""
MAX_RASTER_PRIMITIVES = 1 << 14
MAX_RASTER_FRAGMENTS = 1 << 22
_PIXEL, _KEY = RASTER_RECORD.word("pixel"), RASTER_RECORD.word("key")

@dataclass
class RasterDraw:
    """The raster check of one draw. ``status``: OK, DIFFERENT or not run (``detail`` says
    why). ``problems``: the first differences, one line each. ``statistics``: the GPU's
    ``(vertex shader invocations, clipper invocations)`` of the draw where the device has the
    pipeline statistics query, else None; ``expected``: what the reference makes of the draw
    for them (:mod:`gpuia.harness.statistics_check`; None for a draw not run)."""

    draw: int
    status: str
    detail: str
    primitives: int = 0
    fragments: int = 0
    problems: list[str] = field(default_factory=list)
    statistics: tuple[int, int] | None = None
    expected: DrawStatistics | None = None


def _reference_names(ref, d: int) -> tuple[np.ndarray, dict]:
    """Corner keys of draw ``d``'s reference primitives, shape (n, vertices), and what each
    leading key stands for: ``key -> (SV_VertexID, SV_InstanceID)``."""
    prims = ref.primitives[ref.primitive_draw == d]
    if prims.shape[0] == 0:
        return np.zeros((0, ref.topology.vertices), np.uint32), {}
    keys = vertex_keys(ref.vertex_id[prims], ref.instance[prims])
    lead = prims[:, 0]
    who = dict(zip(keys[:, 0].tolist(), zip(ref.vertex_id[lead].tolist(),
                                             ref.instance[lead].tolist(), strict=True),
                   strict=True))
    return keys, who


def _compare(records: np.ndarray, expected, who: dict, size: int) -> list[str]:
    """One line per primitive name whose fragments fall outside what D3D's primitives allow."""
    cells, least, most = expected
    codes = cell_codes(records[:, _KEY], records[:, _PIXEL] >> 31, records[:, _PIXEL] & 0x7FFFFFFF,
                       size)
    # The common case first: every fragment on an expected cell (cells are sorted and
    # distinct), every cell's count within its bounds. Only a draw that fails this is named.
    at = np.minimum(np.searchsorted(cells, codes), max(cells.shape[0] - 1, 0))
    if cells.shape[0] and bool((cells[at] == codes).all()):
        counts = np.bincount(at, minlength=cells.shape[0])
        if bool((counts >= least).all() and (counts <= most).all()):
            return []
    elif not codes.shape[0]:  # no fragment, and no cell that needs one
        return []
    got_cells, got_n = np.unique(codes, return_counts=True)
    every = np.union1d(cells, got_cells)
    lo = np.zeros(every.shape, np.int64)
    hi = np.zeros(every.shape, np.int64)
    n = np.zeros(every.shape, np.int64)
    at = np.searchsorted(every, cells)
    lo[at], hi[at] = least, most
    n[np.searchsorted(every, got_cells)] = got_n
    missing = np.maximum(lo - n, 0)
    extra = np.maximum(n - hi, 0)
    names = every // (size * size)
    allowed_names = set((cells // (size * size)).tolist())
    problems = []
    for name in np.unique(names[(missing > 0) | (extra > 0)]).tolist():
        sel = names == name
        m, x = int(missing[sel].sum()), int(extra[sel].sum())
        key, front, _ = split_cell(name * size * size, size)
        facing = "front" if front else "back"
        if key in who and name in allowed_names:
            vid, inst = who[key]
            what = f"the {facing}-facing primitive led by SV_VertexID {vid} of instance {inst}"
        elif key in who:
            vid, inst = who[key]
            what = (f"a {facing}-facing primitive led by SV_VertexID {vid} of instance {inst} "
                    f"(D3D's faces the other way)")
        else:
            what = f"a {facing}-facing primitive D3D does not draw (leading key {key:#010x})"
        parts = ([f"{m} fragment(s) D3D covers missing"] if m else []) + \
                ([f"{x} fragment(s) outside it"] if x else [])
        problems.append(f"{what}: {', '.join(parts)}")
    return problems


def raster_check(case, device, ref, *, size: int = RASTER_SIZE,
                 max_problems: int = 8, uploaded: tuple | None = None) -> list[RasterDraw]:
    """Check the primitives ``device`` rasterizes for every draw of ``case`` against ``ref`` (the
    CPU reference of the case, or a function of a draw's position giving a reference that holds
    that draw's rows and primitives, or the count of its primitives where they are more than
    the check takes: :func:`gpuia.harness.windowed.draw_reference`). A draw gpuia cannot check
    is not raised for: that draw's result says ``not run`` and why. Raises
    :class:`~gpuia.errors.UnsupportedError` when the case's buffers cannot be made on the
    device or wgpu refuses the probe (``gpuia check`` prints the raster line as not
    applicable), or the case has a geometry shader, and DeviceLostError on a lost device.

    The probe's shader, layouts, target and pipelines are built once per device and size and
    kept (:class:`_Probe`); the draws of a case go in one submission and come back in one
    read, batched by :data:`_BATCH_BYTES` of records. ``uploaded``: what
    :func:`~gpuia.harness.run_gpu.upload_case` returned for the case and device (None: upload
    here)."""
    from .run_gpu import upload_case

    if case.gs is not None:
        raise UnsupportedError("the case has a geometry shader: the raster check compares the "
                               "Input Assembler's primitives, and D3D rasterizes the shader's "
                               "stream instead (drawn by the Context, docs/geometry.md)")
    _views, ib = uploaded if uploaded is not None else upload_case(case, device)
    assembly = Assembly.of(device.caps.quirks, flat_inputs=True)
    probe = wgpu_call(lambda: RasterProbe.of(device, size, KEY_SALT, SUBPIXEL), "raster check")
    out: list[RasterDraw | None] = []
    batch: list[_ProbeDraw] = []
    batch_records = 0  # the records the batch's draws have room for

    def run_batch():
        nonlocal batch_records
        if batch:
            wgpu_call(functools.partial(probe.run, [job.probe for job in batch], ib),
                      "raster check")
            batch.clear()
            batch_records = 0

    pending: list[_ProbeDraw] = []
    for d, draw in enumerate(case.draws):
        draw_ref = ref(d) if callable(ref) else ref
        count = draw_ref if isinstance(draw_ref, int) else None
        if count is None:
            names, who = _reference_names(draw_ref, d)
            count = names.shape[0]
        if count > MAX_RASTER_PRIMITIVES:
            out.append(RasterDraw(d, "not run", f"{count} primitives: the raster check takes "
                                                f"at most {MAX_RASTER_PRIMITIVES}"))
            continue
        try:
            index = shift_first_vertex(
                plan_indices(draw, ib, case.topology, case.strip_cut_value, False, assembly),
                draw, device.caps.quirks)
        except UnsupportedError as e:
            out.append(RasterDraw(d, "not run", str(e)))
            continue
        expected = coverage_cells(names, size)
        allowed = int(expected[2].sum())
        if allowed > MAX_RASTER_FRAGMENTS:
            out.append(RasterDraw(d, "not run", f"{allowed} fragments: the raster check takes "
                                                f"at most {MAX_RASTER_FRAGMENTS}"))
            continue
        # room to see extra fragments, not only count them
        job = _ProbeDraw(d, ProbeDraw(draw, index, case.topology, allowed + 4096),
                         names.shape[0], allowed, expected, who,
                         reference_statistics(draw_ref, d))
        if batch and batch_records + job.probe.capacity > _BATCH_BYTES // _RECORD_BYTES:
            run_batch()
        batch.append(job)
        batch_records += job.probe.capacity
        pending.append(job)
        out.append(None)  # filled in below, in draw order
    run_batch()
    done = iter(pending)
    return [r if r is not None else _judge(next(done), size, max_problems) for r in out]


_BATCH_BYTES = 64 << 20
"""Records of the draws one submission probes, at most (one draw alone may exceed it)."""
_RECORD_BYTES = 4 * RASTER_RECORD.words()


@dataclass(eq=False)
class _ProbeDraw:
    """One draw to probe (``probe``: what the GPU side draws, and once run, what it wrote) and
    what the reference expects of it."""

    draw_number: int
    probe: ProbeDraw
    primitives: int
    allowed: int
    expected: tuple
    who: dict
    statistics: DrawStatistics


def _judge(job: _ProbeDraw, size: int, max_problems: int) -> RasterDraw:
    written = job.probe.written
    problems = _compare(job.probe.records, job.expected, job.who, size)
    detail = f"{job.primitives} primitive(s), {written} fragment(s)"
    if written > job.allowed:
        problems.insert(0, f"{written} fragments: more than the {job.allowed} any "
                           f"conforming rasterizer writes for D3D's primitives")
    status = "DIFFERENT" if problems else "OK"
    if problems:
        detail += f", {len(problems)} difference(s)"
    return RasterDraw(job.draw_number, status, detail, job.primitives, written,
                      problems[:max_problems], job.probe.statistics, job.statistics)
