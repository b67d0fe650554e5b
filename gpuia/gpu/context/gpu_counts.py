"""The GPU's own pipeline statistics for a :class:`~gpuia.gpu.Context`'s ``PIPELINE_STATISTICS``
queries, on a device with wgpu's native ``pipeline-statistics-query`` feature
(:attr:`~gpuia.gpu.caps.Caps.pipeline_statistics_query`).

While one such query is open, the recorder wraps every render pass it opens in a pipeline
statistics query (a wgpu query may not span passes) and resolves it when the pass ends;
:meth:`PassCounts.read` adds the resolved counts to running 64-bit totals, which a query reads at
its begin and its end. What they count is every render pass of the context in the range, as
gpuia draws: the draws' vertex stages on either path, captures, list streams, a geometry shader's
rasterized stream; not Stream Output's or the geometry shader's compute passes. How they relate
to D3D's counts is :data:`NOTE` (rules 4.11).
"""

from __future__ import annotations

import numpy as np

from .._ffi import begin_statistics, end_statistics
from ..readback import read_ranges

__all__ = ["PassCounts", "NOTE", "NO_FEATURE"]

_STATISTICS = ("vertex-shader-invocations", "clipper-invocations")  # resolved in this order
_PER_SET = 256  # queries of one query set
_SLOT = 256  # bytes per resolved query: ResolveQuerySet's destination offset is 256-aligned
READ_AT = 4096
"""Passes counted but not read that make a submit read them (bounds the query sets held)."""

NOTE = ("the adapter's own counts over every render pass gpuia encoded in the range (its "
        "draws as gpuia issues them, captures and a geometry shader's rasterized stream "
        "included; compute passes not): for draws that rasterize without a geometry shader, "
        "CInvocations is their complete primitives exactly and VSInvocations at least the "
        "distinct vertices of those primitives, no more fixed (rules 4.11)")
"""What ``adapter_counts`` of a resolved PIPELINE_STATISTICS query are."""

NO_FEATURE = ("the device has no pipeline-statistics-query, wgpu's native feature (its adapter "
              "lacks it, or the wgpu device was made without it): the GPU's own counts cannot "
              "be read (docs/known-adapter-issues.md)")
"""``adapter_note`` where the device has no pipeline statistics query."""


class PassCounts:
    """The query sets, resolve buffers and running totals of one context's GPU pipeline
    statistics (module docstring). ``totals``: ``[vertex shader invocations, clipper
    invocations]`` of every pass read so far."""

    def __init__(self, device):
        self.device = device  # the gpuia Device
        self.sets: list[tuple] = []  # (query set, resolve buffer), _PER_SET queries each
        self.used = 0  # queries begun since the last read
        self.counting = False  # whether the open pass's query is begun
        self.totals = [0, 0]

    def begin(self, rp) -> None:
        """Begin the query of the render pass ``rp`` just opened."""
        s, i = divmod(self.used, _PER_SET)
        if s == len(self.sets):
            from wgpu.backends.wgpu_native import extras

            dev = self.device.device
            self.sets.append((
                extras.create_statistics_query_set(dev, count=_PER_SET,
                                                   statistics=list(_STATISTICS)),
                dev.create_buffer(size=_PER_SET * _SLOT, usage="QUERY_RESOLVE|COPY_SRC")))
        begin_statistics(rp, self.sets[s][0], i)
        self.used += 1
        self.counting = True

    def end_pass(self, rp, encoder) -> None:
        """End the render pass ``rp`` of ``encoder``, its query first and its resolve after."""
        if not self.counting:
            rp.end()
            return
        end_statistics(rp)
        rp.end()
        self.counting = False
        s, i = divmod(self.used - 1, _PER_SET)
        query_set, buffer = self.sets[s]
        encoder.resolve_query_set(query_set, i, 1, buffer, i * _SLOT)

    def read(self) -> list[int]:
        """Add every resolved query to the totals (their resolves submitted: the caller
        flushed) and return a copy of the totals."""
        if self.used:
            full, rest = divmod(self.used, _PER_SET)
            ranges = [(buffer, 0, _PER_SET * _SLOT) for _, buffer in self.sets[:full]]
            if rest:
                ranges.append((self.sets[full][1], 0, rest * _SLOT))
            for data in read_ranges(self.device.device, ranges):
                words = data.view(np.uint64).reshape(-1, _SLOT // 8)[:, :len(_STATISTICS)]
                for k in range(len(_STATISTICS)):
                    self.totals[k] = (self.totals[k] + int(words[:, k].sum())) % (1 << 64)
            self.used = 0
        return list(self.totals)
