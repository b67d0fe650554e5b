"""The raster cross-check: the primitives a GPU rasterizes for a case's draws, against the CPU
reference's primitive list (``docs/raster-check.md``).

A capture shows what vertex shaders received; this shows what the GPU assembled from them for
rasterization: strip cuts, restart values, adjacency, winding and the provoking vertex. Each draw
is drawn as a rendering draw of a :class:`~gpuia.gpu.Context` would be (the same index plan,
adapter quirks included, the same primitive state and draw calls: :mod:`gpuia.gpu.drawcall`),
with a generated vertex shader that places every vertex by its ``(SV_VertexID, SV_InstanceID)``
and a pixel shader that appends one record per fragment: its pixel, the flat key of the
primitive's provoking vertex and its facing. The CPU side (:mod:`gpuia.reference.coverage`)
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

from ..d3d.desc import Draw, DrawIndexedInstanced
from ..d3d.topology import TopologyInfo
from ..errors import UnsupportedError
from ..gpu.cache import remember
from ..gpu.device import wgpu_call
from ..gpu.drawcall import issue_draw, strip_index_format, webgpu_topology
from ..gpu.plan import Assembly, IndexPlan, plan_indices, shift_first_vertex
from ..gpu.readback import read_ranges
from ..reference.coverage import (
    KEY_SALT,
    cell_codes,
    coverage_cells,
    split_cell,
    vertex_keys,
)

__all__ = ["RASTER_SIZE", "MAX_RASTER_PRIMITIVES", "MAX_RASTER_FRAGMENTS", "RasterDraw",
           "raster_check"]

RASTER_SIZE = 64
"""The check's target is RASTER_SIZE x RASTER_SIZE pixels (a power of two: exact positions)."""
MAX_RASTER_PRIMITIVES = 1 << 14
MAX_RASTER_FRAGMENTS = 1 << 22

_SHADER = """
struct Params { sub_vertex: u32, sub_instance: u32, capacity: u32, pad: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> records: array<u32>;
@group(0) @binding(2) var<storage, read_write> counter: array<atomic<u32>, 4>;

fn lowbias32(v: u32) -> u32 {
  var x = v;
  x ^= x >> 16u; x *= 0x7feb352du; x ^= x >> 15u; x *= 0x846ca68bu; x ^= x >> 16u;
  return x;
}

struct Varyings { @builtin(position) pos: vec4<f32>, @location(0) @interpolate(flat) key: u32 }

@vertex fn vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> Varyings {
  // D3D's SV_VertexID and SV_InstanceID, as gpuia's vertex stage computes them.
  let key = lowbias32((vi - params.sub_vertex) ^ lowbias32((ii - params.sub_instance) ^ SALTu));
  let x = lowbias32(key ^ 0x9E3779B9u) % SPANu;
  let y = lowbias32(key ^ 0x85EBCA6Bu) % SPANu;
  var o: Varyings;
  o.pos = vec4<f32>(f32(x) / HALFf - 1.0, 1.0 - f32(y) / HALFf, 0.5, 1.0);
  o.key = key;
  return o;
}

@fragment fn fs(v: Varyings, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
  let n = atomicAdd(&counter[0], 1u);
  if (n < params.capacity) {
    let pixel = u32(v.pos.y) * SIZEu + u32(v.pos.x);
    records[2u * n] = pixel | select(0u, 0x80000000u, front);
    records[2u * n + 1u] = v.key;
  }
  return vec4<f32>(1.0);
}
"""


def _shader(size: int) -> str:
    return (_SHADER.replace("SALT", f"{KEY_SALT:#x}").replace("SPAN", str(size * 256))
            .replace("HALF", str(size * 128)).replace("SIZE", str(size)))


@dataclass
class RasterDraw:
    """The raster check of one draw. ``status``: OK, DIFFERENT or not run (``detail`` says
    why). ``problems``: the first differences, one line each."""

    draw: int
    status: str
    detail: str
    primitives: int = 0
    fragments: int = 0
    problems: list[str] = field(default_factory=list)


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
    codes = cell_codes(records[:, 1], records[:, 0] >> 31, records[:, 0] & 0x7FFFFFFF, size)
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
    """Check the primitives ``device`` rasterizes for every draw of ``case`` against ``ref``
    (the CPU reference of the case). A draw gpuia cannot check is not raised for: that draw's
    result says ``not run`` and why. Raises :class:`~gpuia.errors.UnsupportedError` when the
    case's buffers cannot be made on the device or wgpu refuses the probe (``gpuia check``
    prints the raster line as not applicable), and DeviceLostError on a lost device.

    The probe's shader, layouts, target and pipelines are built once per device and size and
    kept (:class:`_Probe`); the draws of a case go in one submission and come back in one
    read, batched by :data:`_BATCH_BYTES` of records. ``uploaded``: what
    :func:`~gpuia.harness.run_gpu.upload_case` returned for the case and device (None: upload
    here)."""
    from .run_gpu import upload_case

    _views, ib = uploaded if uploaded is not None else upload_case(case, device)
    assembly = Assembly.of(device.caps.quirks, flat_inputs=True)
    probe = wgpu_call(lambda: _Probe.of(device, size), "raster check")
    out: list[RasterDraw | None] = []
    batch: list[_ProbeDraw] = []
    batch_records = 0  # the records the batch's draws have room for

    def run_batch():
        nonlocal batch_records
        if batch:
            wgpu_call(functools.partial(probe.run, batch, ib), "raster check")
            batch.clear()
            batch_records = 0

    pending: list[_ProbeDraw] = []
    for d, draw in enumerate(case.draws):
        names, who = _reference_names(ref, d)
        if names.shape[0] > MAX_RASTER_PRIMITIVES:
            out.append(RasterDraw(d, "not run", f"{names.shape[0]} primitives: the raster "
                                                f"check takes at most {MAX_RASTER_PRIMITIVES}"))
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
        job = _ProbeDraw(d, draw, index, case.topology, allowed + 4096, names.shape[0],
                         allowed, expected, who)
        if batch and batch_records + job.capacity > _BATCH_BYTES // 8:
            run_batch()
        batch.append(job)
        batch_records += job.capacity
        pending.append(job)
        out.append(None)  # filled in below, in draw order
    run_batch()
    done = iter(pending)
    return [r if r is not None else _judge(next(done), size, max_problems) for r in out]


_BATCH_BYTES = 64 << 20
"""Records of the draws one submission probes, at most (one draw alone may exceed it)."""


@dataclass(eq=False)
class _ProbeDraw:
    """One draw to probe, and once run, what it wrote: ``records`` (n, 2) and ``written``."""

    draw_number: int
    draw: Draw
    index: IndexPlan
    topology: TopologyInfo
    capacity: int
    primitives: int
    allowed: int
    expected: tuple
    who: dict
    records: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.uint32))
    written: int = 0


def _judge(job: _ProbeDraw, size: int, max_problems: int) -> RasterDraw:
    problems = _compare(job.records, job.expected, job.who, size)
    detail = f"{job.primitives} primitive(s), {job.written} fragment(s)"
    if job.written > job.allowed:
        problems.insert(0, f"{job.written} fragments: more than the {job.allowed} any "
                           f"conforming rasterizer writes for D3D's primitives")
    status = "DIFFERENT" if problems else "OK"
    if problems:
        detail += f", {len(problems)} difference(s)"
    return RasterDraw(job.draw_number, status, detail, job.primitives, job.written,
                      problems[:max_problems])


class _Probe:
    """The probe's wgpu objects on one device for one target size: shader module, layouts,
    the target, and one pipeline per primitive state. Built once (:meth:`of`) and shared by
    every raster check on the device; the pipelines are a bounded cache."""

    def __init__(self, device, size: int):
        import wgpu

        dev = device.device
        self.device, self.size = device, size
        self.module = dev.create_shader_module(code=_shader(size), label="gpuia raster check")
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
    def of(cls, device, size: int) -> _Probe:
        """The probe of ``size`` on the gpuia ``device`` (kept with it:
        :meth:`~gpuia.gpu.Device.held`)."""
        probe: _Probe = device.held((cls, size), lambda: cls(device, size))
        return probe

    def pipeline(self, primitive: dict):
        key = tuple(sorted(primitive.items()))
        pipe = self.pipelines.get(key)
        if pipe is None:
            pipe = self.device.device.create_render_pipeline(
                layout=self.layout,
                vertex={"module": self.module, "entry_point": "vs", "buffers": []},
                primitive=primitive,
                fragment={"module": self.module, "entry_point": "fs",
                          "targets": [{"format": "r8unorm"}]})
            remember(self.pipelines, key, pipe, _PIPELINE_LIMIT)
        return pipe

    def run(self, jobs: list[_ProbeDraw], ib) -> None:
        """Draw ``jobs`` in one render pass and one submission; read every draw's counter
        and records back in one read, and fill in each job's ``records`` and ``written``."""
        dev = self.device.device
        align = max(16, self.device.caps.min_storage_buffer_offset_alignment)
        head = _round_up(16, align)  # per draw: a 16-byte counter, then its records, aligned
        starts, total = [], 0
        for job in jobs:
            starts.append(total)
            total += _round_up(head + job.capacity * 8, align)
        # WebGPU zeroes a new buffer: every counter starts at 0.
        storage = dev.create_buffer(size=total, usage="STORAGE|COPY_SRC")
        keep: list = []

        def upload(data):
            buf = dev.create_buffer_with_data(data=data, usage="INDEX")
            keep.append(buf)
            return buf

        encoder = dev.create_command_encoder()
        rp = encoder.begin_render_pass(color_attachments=[{
            "view": self.target.create_view(), "load_op": "clear", "store_op": "discard",
            "clear_value": (0, 0, 0, 0)}])
        for job, start in zip(jobs, starts, strict=True):
            draw, index = job.draw, job.index
            primitive = {"topology": webgpu_topology(job.topology, index.listed, False),
                         "cull_mode": "none", "front_face": "cw"}
            fmt = strip_index_format(job.topology, index, draw, False)
            if fmt is not None:
                primitive["strip_index_format"] = fmt
            sub_vertex = (draw.base_vertex_location if isinstance(draw, DrawIndexedInstanced)
                          else draw.start_vertex_location - index.vertex_shift)
            params = np.array([sub_vertex & 0xFFFFFFFF, draw.start_instance_location,
                               job.capacity, 0], np.uint32)
            uniform = dev.create_buffer_with_data(data=params, usage="UNIFORM")
            records_at = start + head
            group = dev.create_bind_group(layout=self.group_layout, entries=[
                {"binding": 0, "resource": {"buffer": uniform}},
                {"binding": 1, "resource": {"buffer": storage, "offset": records_at,
                                            "size": job.capacity * 8}},
                {"binding": 2, "resource": {"buffer": storage, "offset": start, "size": 16}}])
            keep += [uniform, group]
            rp.set_pipeline(self.pipeline(primitive))
            rp.set_bind_group(0, group)
            if draw.instance_count and (index.mode != "host" or (
                    index.values is not None and index.values.shape[0])):
                issue_draw(rp, draw, index, ib, upload)
        rp.end()
        dev.queue.submit([encoder.finish()])
        words = read_ranges(dev, [(storage, 0, total)])[0].view(np.uint32)
        for job, start in zip(jobs, starts, strict=True):
            job.written = int(words[start // 4])
            kept = min(job.written, job.capacity)
            at = (start + head) // 4
            job.records = words[at:at + 2 * kept].reshape(-1, 2)


_PIPELINE_LIMIT = 64  # primitive states per probe: topologies x strip index formats


def _round_up(x: int, a: int) -> int:
    return -(-x // a) * a
