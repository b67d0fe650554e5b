"""What the GPU's geometry shader stage did, read back from its own buffers: the invocations,
their inputs, their regions and the pipeline statistics of the stage.

While a :class:`GSCapture` is attached to a context's geometry stage
(:meth:`gpuia.gpu.Context.begin_gs_capture`), every draw through a geometry shader runs the
shader's program even where nothing streams out or is drawn, and the stage hands the capture,
per draw, its input primitives (the ``gpuia_gs_prims`` rows :mod:`gpuia.gpu.gs.assembly` made
for the program, kept instead of dropped after the upload), and a regions buffer per chunk and
a vertex records buffer per draw that the stage writes and then no longer reuses (no copy is
made). :meth:`GSCapture.result` reads them all back in one submission
(:func:`gpuia.gpu.readback.read_ranges`). Draws through a geometry shader are
numbered from 0 in the order they were made, empty ones included; the draws of one capture
share one shader's region layout.

:class:`GSCaptured` holds per invocation, in D3D's order (draw, instance, primitive, GS
instance, rules 13.3): the draw, the instance, SV_PrimitiveID, SV_GSInstanceID, the input
vertices' records and the region (:data:`gpuia.wgsl.blocks.GS_REGION`); and the statistics of
D3D12_QUERY_DATA_PIPELINE_STATISTICS (rules 13.8): ``GSInvocations``, the invocations the
program ran (input primitives times GS instances, whether or not one emitted), and
``GSPrimitives``, the complete primitives the regions make on all streams (each strip of ``L``
Appends of a stream whose primitive has ``v`` vertices makes ``max(0, L - v + 1)``; a strip
starts at an entry whose header has bit 2, rules 13.4, 13.5). Nothing here is the CPU
reference's: the counts come from the GPU's rows and regions.

Refused (:class:`~gpuia.errors.UnsupportedError`): a draw through a shader of another region
layout than the capture's first, wgpu refusing the buffers, the copies or the reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import UnsupportedError
from ..lifetime import wgpu_call
from ..readback import read_ranges

__all__ = ["GSCapture", "GSCaptured", "gs_primitives_count"]

_START = 4  # a region entry's header bit: the Append starts a strip of its stream
_STREAM = 3  # the header's stream bits


@dataclass(frozen=True)
class GSCaptured:
    """The geometry shader stage's work read back (module docstring).

    Arguments:
        draw, instance, primitive_id, gs_instance (numpy.ndarray): uint32 per invocation.
        inputs (numpy.ndarray): uint32 ``(invocations, k, vertex_words)``: each input vertex's
            record (members in the input record's order, one word per component).
        regions (numpy.ndarray): uint32 ``(invocations, region_words)``.
        statistics (dict): ``GSInvocations`` and ``GSPrimitives``.
    """

    draw: np.ndarray
    instance: np.ndarray
    primitive_id: np.ndarray
    gs_instance: np.ndarray
    inputs: np.ndarray
    regions: np.ndarray
    statistics: dict


def gs_primitives_count(regions: np.ndarray, vertices: tuple[int, ...], max_vertex_count: int,
                        record_words: int) -> int:
    """``GSPrimitives`` of ``regions`` (module docstring): the complete primitives of every
    stream, ``vertices`` giving each stream's primitive's vertices (1, 2 or 3).

    Arguments:
        regions (numpy.ndarray): uint32 ``(invocations, 1 + N * (1 + R))``.
        vertices (tuple): per stream, its primitive's vertices.
        max_vertex_count (int): N.
        record_words (int): R.
    """
    if not regions.shape[0]:
        return 0
    counts = np.minimum(regions[:, 0].astype(np.int64), max_vertex_count)
    headers = regions[:, 1:1 + max_vertex_count * (1 + record_words)].reshape(
        regions.shape[0], max_vertex_count, 1 + record_words)[:, :, 0]
    used = (np.arange(max_vertex_count)[None, :] < counts[:, None]).ravel()
    headers = headers.ravel()
    total = 0
    for s, v in enumerate(vertices):
        mine = used & ((headers & _STREAM) == s)
        if not mine.any():
            continue
        starts = mine & ((headers & _START) != 0)
        strip = np.cumsum(starts)[mine]  # each Append's strip (1-based, in call order)
        lengths = np.bincount(strip)[1:]
        total += int(np.maximum(lengths - v + 1, 0).sum())
    return total


@dataclass
class _Draw:
    """One draw of a capture: what :meth:`GSCapture.result` reads and puts together."""

    draw: int
    count: int  # indices (or vertices) of one instance
    instance_count: int  # the draw's instances
    instances: int  # GS instances
    rows: list = field(default_factory=list)  # per chunk, its gpuia_gs_prims rows
    regions: list = field(default_factory=list)  # per chunk, (its regions buffer, bytes)
    records: tuple | None = None  # (the vertex records' buffer, bytes)
    vertex_words: int = 0


class GSCapture:
    """Collects what the geometry stage's draws did, for :meth:`result` (module docstring).

    Arguments:
        device: the gpuia Device.
    """

    def __init__(self, device):
        self.device = device
        self._draws: list[_Draw] = []
        self._shape: tuple | None = None
        self.draw_index = 0

    def draw(self, count: int, instance_count: int, instances: int, shape: tuple) -> _Draw:
        """Start the next draw, of ``instance_count`` instances of ``count`` indices, through a
        shader of ``instances`` GS instances; ``shape``: (stream vertices, N, R, vertex_words,
        k)."""
        if self._shape is not None and self._shape != shape:
            raise UnsupportedError(f"a geometry shader capture holds the draws of one shader's "
                                   f"region layout: {self._shape}, then {shape}")
        self._shape = shape
        d = _Draw(self.draw_index, count, instance_count, instances, vertex_words=shape[3])
        self.draw_index += 1
        self._draws.append(d)
        return d

    def skip(self) -> None:
        """A draw through a geometry shader that runs nothing (no vertex or no instance): it
        has a number all the same."""
        self.draw_index += 1

    def regions(self, d: _Draw, rows: np.ndarray, nbytes: int):
        """A regions buffer of its own for the next chunk of ``d`` (its ``rows``, absolute
        places), kept for the read: the program writes it and nothing overwrites it."""
        dev = self.device.device
        buf = wgpu_call(lambda: dev.create_buffer(size=max(16, nbytes),
                                                  usage="STORAGE|COPY_SRC"),
                        "allocating the geometry stage's capture")
        d.rows.append(rows)
        d.regions.append((buf, nbytes))
        return buf

    def records(self, d: _Draw, buffer, nbytes: int) -> None:
        """The vertex records of ``d``: the first ``nbytes`` of ``buffer``, a buffer of the
        draw's own that nothing overwrites, kept for the read."""
        d.records = (buffer, nbytes)

    def result(self) -> GSCaptured:
        """Read every buffer back (the work was submitted) and put the invocations together."""
        parts: list[tuple] = []
        shape = self._shape or ((1,), 1, 1, 1, 1)
        vertices, n_max, r_words, v_words, k = shape
        region_words = 1 + n_max * (1 + r_words)
        ranges = [r for d in self._draws for r in ([d.records] if d.records else [])
                  + list(d.regions)]
        read = iter(wgpu_call(lambda: read_ranges(self.device.device,
                                                  [(b, 0, n) for b, n in ranges]),
                              "reading the geometry stage's capture back"))
        for d in self._draws:
            words = next(read).view(np.uint32) if d.records else np.zeros(0, np.uint32)
            records = words.reshape(-1, v_words) if v_words else \
                np.zeros((d.count * d.instance_count, 0), np.uint32)
            for rows in d.rows:
                regions = next(read).view(np.uint32).reshape(-1, region_words)
                n = regions.shape[0]
                rows = np.repeat(rows, d.instances, axis=0)
                parts.append((np.full(n, d.draw, np.uint32),
                              (rows[:, 0] // max(d.count, 1)).astype(np.uint32),
                              rows[:, -1].astype(np.uint32),
                              np.tile(np.arange(d.instances, dtype=np.uint32),
                                      n // d.instances),
                              records[rows[:, :k].astype(np.int64)], regions))
        if not parts:
            parts.append((*(np.zeros(0, np.uint32),) * 4, np.zeros((0, k, v_words), np.uint32),
                          np.zeros((0, region_words), np.uint32)))
        draw, instance, pid, gsi, inputs, regions = (np.concatenate(c) for c in zip(*parts,
                                                                                  strict=True))
        stats = {"GSInvocations": int(draw.shape[0]),
                 "GSPrimitives": gs_primitives_count(regions, vertices, n_max, r_words)}
        return GSCaptured(draw, instance, pid, gsi, inputs, regions, stats)

