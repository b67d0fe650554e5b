"""The cross-check of a large case in windows of invocations, in bounded host memory.

The whole-array cross-check holds the reference's words of every invocation, the GPU's records
of every invocation in IA order and the comparison's arrays at once: about 160 bytes per vertex
of a three-element layout. Here the invocations go a window at a time (:data:`WINDOW_ROWS`):
the reference's rows of the window (:class:`gpuia.reference.ia_window.IAWindows`), the GPU's
records those rows read (the capture's draws run once per block of records, writing only that
range: ``Context.end_capture(windows=True)``; the blocks are read on a thread of their own,
one block ahead of the windows: :mod:`gpuia.harness.read_ahead`), assembled in IA order and
compared by :func:`~gpuia.harness.compare.compare` itself, every rule and allowance included.
What is kept across windows is exact: the counts of
:meth:`~gpuia.harness.compare.Comparison.summary` and the first differing rows of the table, so
the summary and the table are the whole-array path's, character for character. Host memory is
the case's own bytes, the window's and two blocks of records.

A window's records are the range from its rows' lowest to their highest record: the window's
own where a draw's rows are in record order (draws without indices), and as wide as the spread
of the window's fetch indices for indexed draws (a mesh's indices are local; indices that jump
across the whole vertex range make a window read up to an instance's records).

:func:`windowed_applies` says which cases ``gpuia check`` (``cross_check``) runs this way:
above :data:`WINDOWED_ABOVE` invocations, the IA lines and the raster lines only (no vertex
shader of the case's own, no UAV, Stream Output or geometry shader, no full table, no kept
results). The raster check reads the reference per draw (:func:`draw_reference`): a draw of
more primitives than it takes is counted, not assembled.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from ..d3d.draws import DrawInstanced
from ..errors import UnsupportedError
from ..gpu.context import Capture
from ..gpu.device import Device
from ..reference.ia import ElementData, IAResult, run_ia
from ..reference.ia_window import IAWindows
from ..wgsl.program import record_words
from . import raster_check as raster
from .case import Case
from .case_uavs import uavs_of
from .compare import Comparison, compare, comparison_table, summary_text
from .outputs_check import has_real_shader
from .read_ahead import ReadAhead
from .run_gpu import GPUResult, assemble_capture, plans_path, record_capture

__all__ = ["WINDOW_ROWS", "WINDOWED_ABOVE", "GPU_BLOCK", "WindowedComparison",
           "windowed_applies", "case_windows", "draw_reference", "check_windowed"]

WINDOW_ROWS = 1 << 21
"""Invocations per window: about 400 MiB of host memory for a three-element layout, and more
rows than ``gpuia.util.parallel.CHUNK_ROWS``, so that a window's work runs on every core."""
GPU_BLOCK = 1 << 22
"""Most capture records read by one run of the draws (fewer where one storage binding holds
fewer): 240 MiB of records of a three-element layout, serving the windows that follow."""
WINDOWED_ABOVE = 1 << 23
"""Cases whose draws may deliver more invocations than this are checked in windows."""


@dataclass
class WindowedComparison:
    """A comparison summed over windows: the counts :meth:`summary` needs and the first
    differing rows (those the table shows). :func:`check_windowed` makes it.

    Arguments:
        invocations (int): the invocations the reference delivers.
        bad (int): rows that differ (a component beyond the allowances, an ID, a record not
            delivered).
        element_rows (dict): element key -> rows where that element differs, every key in
            layout order.
        id_rows (int): rows whose SV_VertexID or SV_InstanceID differs.
        missing (int): rows the GPU delivered no record of.
        unexpected (int): GPU invocations at vertex indices D3D does not fetch.
        tolerated (int): components the 1-ULP normalized-format tolerance accepted.
        first (tuple): ``(reference rows, GPU rows, their Comparison)`` of the first differing
            rows, at most the table's rows, in IA order.
        path (str): the paths the draws took.
    """

    invocations: int = 0
    bad: int = 0
    element_rows: dict[str, int] = field(default_factory=dict)
    id_rows: int = 0
    missing: int = 0
    unexpected: int = 0
    tolerated: int = 0
    first: tuple | None = field(default=None, repr=False)
    path: str = ""

    @property
    def ok(self) -> bool:
        """As :attr:`Comparison.ok`: no differing row and no unexpected invocation."""
        return self.bad == 0 and self.unexpected == 0

    def summary(self) -> str:
        """:meth:`Comparison.summary`'s line, from the counts."""
        return summary_text(self.invocations, self.bad, self.element_rows, self.id_rows,
                            self.missing, self.unexpected, self.tolerated)

    def table(self) -> str:
        """``comparison_table(..., only_differences=True)``'s text with the table's rows."""
        assert self.first is not None
        ref, gpu, cmp = self.first
        text = comparison_table(ref, gpu, cmp, max_rows=None, only_differences=True)
        if self.bad > len(ref):
            text += f"\n... {self.bad - len(ref)} more differing invocations"
        return text


def windowed_applies(case: Case, table: bool, rows: int | None, keep: bool) -> bool:
    """Whether ``cross_check`` checks ``case`` in windows: more than :data:`WINDOWED_ABOVE`
    invocations, nothing but IA lines and raster lines (no vertex shader of its own, UAV,
    Stream Output or geometry shader), the differing rows' table of at most ``rows`` rows
    (``table`` off, ``rows`` not None) and no results kept."""
    return (case.invocation_count > WINDOWED_ABOVE and not (table or keep)
            and rows is not None and case.so_desc is None and case.gs is None
            and not has_real_shader(case) and not uavs_of(case))


def case_windows(case: Case) -> IAWindows:
    """The reference of ``case``'s draws a window at a time."""
    return IAWindows(case.layout, case.vertex_buffers, case.draws,
                     topology=case.topology.topology, index_buffer=case.index_buffer,
                     strip_cut_value=case.strip_cut_value)


def draw_reference(case: Case, windows: IAWindows) -> Callable[[int], IAResult | int]:
    """What the raster check of a windowed case reads per draw: the count of the draw's
    primitives where they are more than the check takes (nothing is assembled), else the
    reference of that draw alone (``run_ia`` of the draws with every other one left out, so
    its rows and primitives are the draw's, numbered as the whole reference numbers draws)."""
    def reference(d: int) -> IAResult | int:
        count = windows.primitive_count(d)
        if count > raster.MAX_RASTER_PRIMITIVES:
            return count
        draws = [DrawInstanced(0, 0)] * d + [case.draws[d]]
        return run_ia(case.layout, case.vertex_buffers, draws,
                      topology=case.topology.topology, index_buffer=case.index_buffer,
                      strip_cut_value=case.strip_cut_value)

    return reference


class _Path:
    """One path's capture, read a window at a time, and its sums."""

    def __init__(self, case: Case, device: Device, path: str, capture_route: str,
                 uploaded: tuple | None, timings: dict):
        ctx, self.plans, _ = record_capture(case, device, path, None, capture_route, uploaded,
                                            timings)
        self.cap: Capture = ctx.end_capture(windows=True)
        self.result = WindowedComparison(path=plans_path(self.plans, path))
        self.kept: list[tuple] = []
        self.read_any = False
        self.refused: UnsupportedError | None = None  # wgpu refused a run of the draws
        self.ahead = _Ahead()  # the thread reading blocks ahead, shared by the paths
        self.block = (0, np.zeros((0, record_words(self.cap.element_count)), np.uint32))

    def block_size(self, first: int, count: int) -> int:
        """Records of the block read for a window's records ``first .. first + count - 1``:
        up to :data:`GPU_BLOCK` (fewer where one run of the draws writes fewer), never fewer
        than the window's."""
        windows = self.cap.windows
        assert windows is not None
        return min(windows.total - first, max(count, min(GPU_BLOCK, windows.most)))

    def read(self, first: int, count: int) -> np.ndarray:
        """Records ``first .. first + count - 1``, uint32 ``(count, words)``: from the block
        read last where it holds them, else from a new block of :meth:`block_size` records
        from ``first`` (one run of the draws serves the windows that follow): the one
        :attr:`ahead` read already where it is that block, else read here."""
        self.read_any = True
        at, block = self.block
        if at <= first and first + count <= at + block.shape[0]:
            return block[first - at:first - at + count]
        windows = self.cap.windows
        if windows is None:  # the targets route ran the whole capture at once
            words = self.cap.words if self.cap.words is not None else np.zeros(0, np.uint32)
            self.block = (0, words.reshape(-1, record_words(self.cap.element_count)))
            return self.block[1][first:first + count]
        self.block = (0, self.block[1][:0])  # the old block goes before the new one comes
        if self.ahead.reader is not None:
            key, got, error = self.ahead.reader.take()
            if key is not None and key[0] is self and key[1] == first and count <= key[2]:
                if error is not None:
                    raise error
                self.block = (first, got)
                return got[:count]
            self.ahead.stop()  # not the block planned (never expected): read here from now on
        self.block = (first, windows.read(first, self.block_size(first, count)))
        return self.block[1][:count]

    def window(self, case: Case, ref: IAResult, rows: int, device: Device, t: dict) -> None:
        """Compare the rows of one window (``ref``) with their records, summing into the
        path's result; ``t`` gets the seconds of each step added."""
        clock = time.perf_counter
        t0 = clock()
        start, count = _record_range(self.cap, ref)
        words = self.read(start, count)
        t1 = clock()
        cap = replace(self.cap, words=words.reshape(-1), windows=None, records=[
            replace(r, capture_base=r.capture_base - start) for r in self.cap.records])
        gpu = assemble_capture(case, ref, cap, self.plans, self.result.path, device)
        t2 = clock()
        _add(self, ref, gpu, compare(ref, gpu, case.layout), rows)
        t["gpu"] += t1 - t0
        t["assemble"] += t2 - t1
        t["compare"] += clock() - t2


def _record_range(cap: Capture, ref: IAResult) -> tuple[int, int]:
    """(first record, records) that the rows of ``ref`` (a window) read: record
    ``capture_base + instance * len(keys) + rank of the fetch index`` of each row's draw (the
    Capture's numbering). The rank grows with the fetch index, so rows of one instance need
    only their lowest and highest fetch index."""
    if not len(ref):
        return 0, 0
    lo, hi = [], []
    draws = ref.draw
    for d in range(int(draws[0]), int(draws[-1]) + 1):  # rows are in draw order
        a, b = (int(x) for x in np.searchsorted(draws, [d, d + 1]))
        if a == b:
            continue
        r = cap.records[d]
        keys, inst, fetch = r.keys, ref.instance[a:b], ref.fetch_index[a:b]
        if inst[0] == inst[-1]:  # rows of one instance (instances are in order)
            ranks = np.searchsorted(keys, [fetch.min(), fetch.max()])
            rec = r.capture_base + int(inst[0]) * keys.shape[0] + ranks.astype(np.int64)
        else:
            rec = (r.capture_base + inst.astype(np.int64) * keys.shape[0]
                   + np.searchsorted(keys, fetch))
        lo.append(int(rec.min()))
        hi.append(int(rec.max()))
    return _clipped(cap, lo, hi)


def _extent_range(cap: Capture, extents: list[tuple[int, int, int, int, int]]
                  ) -> tuple[int, int]:
    """:func:`_record_range` of a window from its rows' :meth:`IAWindows.fetch_extents`,
    without the rows: a draw's lowest record is its first instance's at that instance's least
    fetch index, its highest the last instance's at its greatest (an instance's records all
    lie below the next instance's)."""
    lo, hi = [], []
    for d, first, least, last, greatest in extents:
        r = cap.records[d]
        keys = r.keys
        ranks = np.searchsorted(keys, np.array([least, greatest], keys.dtype))
        lo.append(r.capture_base + first * keys.shape[0] + int(ranks[0]))
        hi.append(r.capture_base + last * keys.shape[0] + int(ranks[1]))
    return _clipped(cap, lo, hi)


def _clipped(cap: Capture, lo: list[int], hi: list[int]) -> tuple[int, int]:
    """(first record, records) from the draws' lowest and highest records, within the
    capture's records."""
    total = sum(r.keys.shape[0] * r.draw.instance_count for r in cap.records)
    if not lo or not total:
        return 0, 0
    first, last = max(0, min(min(lo), total - 1)), max(0, min(max(hi), total - 1))
    return first, last - first + 1


class _Ahead:
    """The paths' thread reading blocks ahead (:class:`ReadAhead` of :func:`_planned_blocks`);
    ``reader`` None when there is none, or no more."""

    def __init__(self, reader: ReadAhead | None = None):
        self.reader = reader

    def stop(self) -> None:
        if self.reader is not None:
            self.reader.close()
            self.reader = None


def _planned_blocks(windows: IAWindows, runs: list[_Path], window: int,
                    ) -> Iterator[tuple[tuple[_Path, int, int], Callable[[], np.ndarray]]]:
    """The blocks the windows will read, in the order :meth:`_Path.read` reads them: per
    window, per path, the block it reads there (if any), by :meth:`_Path.read`'s rule, the
    windows' records found from their fetch extents. Keys: ``(path, first record, records)``.
    A path whose read wgpu refused gets no more blocks."""
    refused: set[int] = set()
    held = {id(p): (0, 0) for p in runs}  # each path's block: (first record, records)

    def read(p: _Path, first: int, n: int) -> np.ndarray:
        assert p.cap.windows is not None
        try:
            return p.cap.windows.read(first, n)
        except UnsupportedError:
            refused.add(id(p))
            raise

    for lo in range(0, windows.total, window):
        extents = windows.fetch_extents(lo, min(windows.total, lo + window))
        for p in runs:
            if id(p) in refused:
                continue
            first, count = _extent_range(p.cap, extents)
            at, n = held[id(p)]
            if at <= first and first + count <= at + n:
                continue
            n = p.block_size(first, count)
            held[id(p)] = (first, n)
            yield (p, first, n), functools.partial(read, p, first, n)


def _add(p: _Path, ref: IAResult, gpu: GPUResult, cmp: Comparison, rows: int) -> None:
    """Sum one window's comparison into the path's, keeping its first differing rows."""
    s = p.result
    s.invocations += cmp.invocations
    s.tolerated += cmp.tolerated
    bad = np.flatnonzero(cmp.bad_rows)
    assert cmp.id_mismatch is not None and cmp.missing is not None  # compare() sets both
    for key in cmp.element_mismatches:
        s.element_rows.setdefault(key, 0)
    if not bad.size:
        return  # a differing element, ID or missing record makes its row bad: none here
    s.bad += bad.shape[0]
    for key, m in cmp.element_mismatches.items():
        s.element_rows[key] += int(m[bad].any(axis=1).sum())
    s.id_rows += int(cmp.id_mismatch[bad].sum())
    s.missing += int(cmp.missing[bad].sum())
    take = bad[:max(0, rows - sum(len(k[0]) for k in p.kept))]
    if take.size:  # copies of those rows only: the window's arrays go with the window
        p.kept.append((_rows_of(ref, take), _rows_of(gpu.ia, take), cmp.missing[take],
                       cmp.id_mismatch[take],
                       {k: m[take] for k, m in cmp.element_mismatches.items()}))


def _rows_of(ia: IAResult, at: np.ndarray) -> IAResult:
    """The rows ``at`` of a result (copies), without primitives."""
    return IAResult(topology=ia.topology, draw=ia.draw[at], instance=ia.instance[at],
                    vertex=ia.vertex[at], vertex_id=ia.vertex_id[at],
                    fetch_index=ia.fetch_index[at],
                    inputs={k: ElementData(d.type, d.bits[at]) for k, d in ia.inputs.items()},
                    primitives=ia.primitives[:0], adjacency=None,
                    primitive_draw=ia.primitive_draw[:0])


def _concat(parts: list[IAResult]) -> IAResult:
    """Results' rows one after another (``parts``: at least one)."""
    one = parts[0]

    def cat(f: str) -> np.ndarray:
        return np.concatenate([getattr(p, f) for p in parts])

    return IAResult(topology=one.topology, draw=cat("draw"), instance=cat("instance"),
                    vertex=cat("vertex"), vertex_id=cat("vertex_id"),
                    fetch_index=cat("fetch_index"), inputs={
                        k: ElementData(d.type, np.concatenate([p.inputs[k].bits for p in parts]))
                        for k, d in one.inputs.items()},
                    primitives=one.primitives, adjacency=None, primitive_draw=one.primitive_draw)


def _first_rows(kept: list[tuple], empty: tuple[IAResult, GPUResult]) -> tuple:
    """(reference rows, GPU rows, their Comparison) of the kept differing rows, in order;
    ``empty``: zero rows of each side (for no kept row)."""
    ref = _concat([k[0] for k in kept] + [empty[0]])
    gpu_ia = _concat([k[1] for k in kept] + [empty[0]])
    missing = np.concatenate([k[2] for k in kept] + [np.zeros(0, bool)])
    ids = np.concatenate([k[3] for k in kept] + [np.zeros(0, bool)])
    mism = {key: np.concatenate([k[4][key] for k in kept] + [np.zeros((0, 4), bool)])
            for key in ref.inputs}
    n = len(ref)
    gpu = replace(empty[1], ia=gpu_ia, missing=missing)
    return ref, gpu, Comparison(n, np.ones(n, bool), mism, ids, missing)


def check_windowed(case: Case, device: Device, paths: list[str], capture_route: str = "auto",
                   rows: int = 32, window: int | None = None, uploaded: tuple | None = None,
                   timings: dict | None = None, windows: IAWindows | None = None,
                   ) -> list[WindowedComparison | UnsupportedError]:
    """Cross-check ``case`` on ``device`` through each of ``paths`` in windows of ``window``
    invocations (None: :data:`WINDOW_ROWS`): the reference's rows once per window for every
    path. The caller bounds the case's size (``reference_run.check_size``). ``uploaded``: as
    ``run_case_gpu``'s; ``timings`` (when given) receives seconds per step, summed over the
    windows; ``windows``: the case's :func:`case_windows`, made here when None.

    Returns:
        Per path, its :class:`WindowedComparison` (``table()`` the differing rows' table of at
        most ``rows`` rows), or the UnsupportedError that made it not applicable.

    Raises:
        InvalidDescError, GpuOutOfMemoryError, DeviceLostError: as ``run_case_gpu``.
    """
    clock = time.perf_counter
    window = max(1, window or WINDOW_ROWS)
    t = {"cpu_reference": 0.0, "gpu": 0.0, "assemble": 0.0, "compare": 0.0}
    windows = windows or case_windows(case)
    runs: list[_Path | UnsupportedError] = []
    for p in paths:
        try:
            runs.append(_Path(case, device, p, capture_route, uploaded, t))
        except UnsupportedError as refused:
            runs.append(refused)
    live = [r for r in runs if isinstance(r, _Path)]
    # The blocks of records are read on a thread of their own, one block ahead of the windows
    # (their reference rows, assembly and comparison on this thread): at most two blocks live.
    ahead = _Ahead(ReadAhead(_planned_blocks(windows, [r for r in live if r.cap.windows],
                                             window)) if live and windows.total else None)
    for run in live:
        run.ahead = ahead
    try:
        for lo in range(0, windows.total, window):
            t0 = clock()
            ref = windows.rows(lo, min(windows.total, lo + window))
            t["cpu_reference"] += clock() - t0
            for run in live:
                if run.refused is None:
                    try:
                        run.window(case, ref, rows, device, t)
                    except UnsupportedError as refused:  # wgpu refused a run of the draws
                        run.refused = refused
            del ref
    finally:
        if ahead.reader is not None:
            t["gpu_read_ahead"] = ahead.reader.busy
        ahead.stop()
    empty_ref = windows.rows(0, 0)
    live = [r for r in live if r.refused is None]
    for run in live:
        if not run.read_any:  # no invocation: one empty read runs the draws (unexpected ones)
            run.read(0, 0)
        run.result.unexpected = int(run.cap.unexpected)
        empty = (empty_ref, GPUResult(empty_ref, run.result.path, run.plans, np.zeros(0, bool),
                                      0, 0, dict(device.info)))
        run.result.first = _first_rows(run.kept, empty)
        run.kept = []
        for e in case.layout.elements:
            run.result.element_rows.setdefault(e.key, 0)
    if timings is not None:
        timings.update(t)
    return [r if isinstance(r, UnsupportedError) else r.refused or r.result for r in runs]
