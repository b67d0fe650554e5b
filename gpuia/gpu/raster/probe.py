"""The raster probe on the GPU: what a device rasterizes for a draw, as one record per fragment.

Each draw is drawn as a rendering draw of a :class:`~gpuia.gpu.Context` would be (the same
index plan, adapter quirks included, the same primitive state and draw calls:
:mod:`gpuia.gpu.raster.drawcall`), with the program of :mod:`gpuia.wgsl.raster`, which places every
vertex by the key of its ``(SV_VertexID, SV_InstanceID)`` and appends a record per fragment
(:data:`gpuia.wgsl.blocks.RASTER_RECORD`). :class:`RasterProbe` holds the probe's wgpu objects
on one device; :meth:`RasterProbe.run` draws a batch in one submission and reads every draw's
records back in one read. Judging them is the harness's (:mod:`gpuia.harness.raster_check`).

On a device with wgpu's native ``pipeline-statistics-query`` feature
(:attr:`~gpuia.gpu.caps.Caps.pipeline_statistics_query`) each draw is also wrapped in a pipeline
statistics query: the GPU's own count of vertex shader invocations and of primitives reaching
its clipper for that draw, read back with the records (``ProbeDraw.statistics``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...d3d.draws import Draw, DrawIndexedInstanced
from ...d3d.topology import TopologyInfo
from ...wgsl.blocks import RASTER_PARAMS, RASTER_RECORD
from ...wgsl.raster import raster_probe_program
from .._ffi import begin_statistics, end_statistics
from ..cache import build_once
from ..ia.plan import IndexPlan
from ..readback import read_ranges
from .drawcall import issue_draw, strip_index_format, webgpu_topology

__all__ = ["ProbeDraw", "RasterProbe"]

_PIPELINE_LIMIT = 64  # primitive states per probe: topologies x strip index formats
_STATISTICS = ("vertex-shader-invocations", "clipper-invocations")  # resolved in this order
_MAX_QUERIES = 4096  # wgpu's limit on the queries of one query set
_RECORD_WORDS = RASTER_RECORD.words()
_SUB_VERTEX, _SUB_INSTANCE, _CAPACITY = (RASTER_PARAMS.word(name) for name in (
    "sub_vertex", "sub_instance", "capacity"))


@dataclass(eq=False)
class ProbeDraw:
    """One draw to probe: the draw, its index plan (:func:`gpuia.gpu.ia.plan.plan_indices`, the
    first-vertex shift applied), its topology and the records it has room for. Once run:
    ``records``, shape (n, words of :data:`~gpuia.wgsl.blocks.RASTER_RECORD`), the first
    ``capacity`` fragments' records, and ``written``, every fragment's count; ``statistics``,
    the GPU's pipeline statistics of the draw, ``(vertex shader invocations, clipper
    invocations)``, or None where the device has no pipeline statistics query (or the batch
    held more draws than one query set takes)."""

    draw: Draw
    index: IndexPlan
    topology: TopologyInfo
    capacity: int
    records: np.ndarray = field(default_factory=lambda: np.zeros((0, _RECORD_WORDS), np.uint32))
    written: int = 0
    statistics: tuple[int, int] | None = None


class RasterProbe:
    """The probe's wgpu objects on one device for one target size and key salt: shader
    module, layouts, the target, and one pipeline per primitive state. Built once (:meth:`of`)
    and shared by every raster probe on the device; the pipelines are a bounded cache."""

    def __init__(self, device, size: int, salt: int, subpixel: int):
        import wgpu

        dev = device.device
        self.device, self.size = device, size
        self.module = dev.create_shader_module(code=raster_probe_program(size, salt, subpixel),
                                               label="gpuia raster check")
        stages = wgpu.ShaderStage.VERTEX | wgpu.ShaderStage.FRAGMENT
        self.group_layout = dev.create_bind_group_layout(entries=[
            {"binding": 0, "visibility": stages, "buffer": {"type": "uniform"}},
            {"binding": 1, "visibility": wgpu.ShaderStage.FRAGMENT, "buffer": {"type": "storage"}},
            {"binding": 2, "visibility": wgpu.ShaderStage.FRAGMENT, "buffer": {"type": "storage"}},
        ])
        self.layout = dev.create_pipeline_layout(bind_group_layouts=[self.group_layout])
        self.target = dev.create_texture(size=(size, size, 1), format="r8unorm",
                                         usage="RENDER_ATTACHMENT")
        self.pipelines: dict = {}

    @classmethod
    def of(cls, device, size: int, salt: int, subpixel: int) -> RasterProbe:
        """The probe of ``size``, ``salt`` and ``subpixel`` on the gpuia ``device`` (kept with
        it: :meth:`~gpuia.gpu.Device.held`)."""
        probe: RasterProbe = device.held((cls, size, salt, subpixel),
                                         lambda: cls(device, size, salt, subpixel))
        return probe

    def pipeline(self, primitive: dict):
        key = tuple(sorted(primitive.items()))
        pipe = self.pipelines.get(key)
        if pipe is not None:
            return pipe
        return build_once(self.pipelines, key, lambda: self.device.device.create_render_pipeline(
            layout=self.layout,
            vertex={"module": self.module, "entry_point": "vs", "buffers": []},
            primitive=primitive,
            fragment={"module": self.module, "entry_point": "fs",
                      "targets": [{"format": "r8unorm"}]}), _PIPELINE_LIMIT)

    def run(self, jobs: list[ProbeDraw], ib) -> None:
        """Draw ``jobs`` in one render pass and one submission, with ``ib`` the index buffer
        view they draw with; read every draw's counter and records back in one read, and fill
        in each job's ``records`` and ``written``."""
        dev = self.device.device
        align = max(16, self.device.caps.min_storage_buffer_offset_alignment)
        head = _round_up(16, align)  # per draw: a 16-byte counter, then its records, aligned
        record_bytes = 4 * _RECORD_WORDS
        starts, total = [], 0
        for job in jobs:
            starts.append(total)
            total += _round_up(head + job.capacity * record_bytes, align)
        # WebGPU zeroes a new buffer: every counter starts at 0.
        storage = dev.create_buffer(size=total, usage="STORAGE|COPY_SRC")
        keep: list = []

        def upload(data):
            buf = dev.create_buffer_with_data(data=data, usage="INDEX")
            keep.append(buf)
            return buf

        stats = None
        if self.device.caps.pipeline_statistics_query and len(jobs) <= _MAX_QUERIES:
            from wgpu.backends.wgpu_native import extras

            stats = extras.create_statistics_query_set(dev, count=len(jobs),
                                                       statistics=list(_STATISTICS))
        encoder = dev.create_command_encoder()
        rp = encoder.begin_render_pass(color_attachments=[{
            "view": self.target.create_view(), "load_op": "clear", "store_op": "discard",
            "clear_value": (0, 0, 0, 0)}])
        for number, (job, start) in enumerate(zip(jobs, starts, strict=True)):
            draw, index = job.draw, job.index
            primitive = {"topology": webgpu_topology(job.topology, index.listed, False),
                         "cull_mode": "none", "front_face": "cw"}
            fmt = strip_index_format(job.topology, index, draw, False)
            if fmt is not None:
                primitive["strip_index_format"] = fmt
            sub_vertex = (draw.base_vertex_location if isinstance(draw, DrawIndexedInstanced)
                          else draw.start_vertex_location - index.vertex_shift)
            params = np.zeros(RASTER_PARAMS.words(), np.uint32)
            params[_SUB_VERTEX] = sub_vertex & 0xFFFFFFFF
            params[_SUB_INSTANCE] = draw.start_instance_location
            params[_CAPACITY] = job.capacity
            uniform = dev.create_buffer_with_data(data=params, usage="UNIFORM")
            records_at = start + head
            group = dev.create_bind_group(layout=self.group_layout, entries=[
                {"binding": 0, "resource": {"buffer": uniform}},
                {"binding": 1, "resource": {"buffer": storage, "offset": records_at,
                                            "size": job.capacity * record_bytes}},
                {"binding": 2, "resource": {"buffer": storage, "offset": start, "size": 16}}])
            keep += [uniform, group]
            rp.set_pipeline(self.pipeline(primitive))
            rp.set_bind_group(0, group)
            if stats is not None:
                begin_statistics(rp, stats, number)
            if draw.instance_count and (index.mode != "host" or (
                    index.values is not None and index.values.shape[0])):
                issue_draw(rp, draw, index, ib, upload)
            if stats is not None:
                end_statistics(rp)
        rp.end()
        ranges = [(storage, 0, total)]
        if stats is not None:
            size = 8 * len(_STATISTICS) * len(jobs)
            resolved = dev.create_buffer(size=size, usage="QUERY_RESOLVE|COPY_SRC")
            encoder.resolve_query_set(stats, 0, len(jobs), resolved, 0)
            ranges.append((resolved, 0, size))
        dev.queue.submit([encoder.finish()])
        read = read_ranges(dev, ranges)
        words = read[0].view(np.uint32)
        if stats is not None:
            counts = read[1].view(np.uint64).reshape(len(jobs), len(_STATISTICS))
            for job, (vs, clipper) in zip(jobs, counts.tolist(), strict=True):
                job.statistics = (vs, clipper)
        for job, start in zip(jobs, starts, strict=True):
            job.written = int(words[start // 4])
            kept = min(job.written, job.capacity)
            at = (start + head) // 4
            job.records = words[at:at + _RECORD_WORDS * kept].reshape(-1, _RECORD_WORDS)


def _round_up(x: int, a: int) -> int:
    return -(-x // a) * a
