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

from ..errors import UnsupportedError
from ..gpu.device import wgpu_call
from ..gpu.drawcall import issue_draw, strip_index_format, webgpu_topology
from ..gpu.plan import Assembly, plan_indices, shift_first_vertex
from ..reference.coverage import (
    KEY_SALT,
    cell_codes,
    expected_fragments,
    primitive_coverage,
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
    got_cells, got_n = np.unique(cell_codes(records[:, 1], records[:, 0] >> 31,
                                            records[:, 0] & 0x7FFFFFFF, size),
                                 return_counts=True)
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
                 max_problems: int = 8) -> list[RasterDraw]:
    """Check the primitives ``device`` rasterizes for every draw of ``case`` against ``ref``
    (the CPU reference of the case). A draw gpuia cannot check is not raised for: that draw's
    result says ``not run`` and why. Raises :class:`~gpuia.errors.UnsupportedError` when the
    case's buffers cannot be made on the device or wgpu refuses the probe (``gpuia check``
    prints the raster line as not applicable), and DeviceLostError on a lost device."""
    import wgpu

    from .run_gpu import upload_case

    dev = device.device
    _views, ib = upload_case(case, device)
    assembly = Assembly.of(device.caps.quirks, flat_inputs=True)
    module = wgpu_call(lambda: dev.create_shader_module(code=_shader(size)), "raster check")
    stages = wgpu.ShaderStage.VERTEX | wgpu.ShaderStage.FRAGMENT
    layout = dev.create_bind_group_layout(entries=[
        {"binding": 0, "visibility": stages, "buffer": {"type": "uniform"}},
        {"binding": 1, "visibility": wgpu.ShaderStage.FRAGMENT, "buffer": {"type": "storage"}},
        {"binding": 2, "visibility": wgpu.ShaderStage.FRAGMENT, "buffer": {"type": "storage"}},
    ])
    pipeline_layout = dev.create_pipeline_layout(bind_group_layouts=[layout])
    target = dev.create_texture(size=(size, size, 1), format="r8unorm",
                                usage="RENDER_ATTACHMENT")
    out = []
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
        expected = expected_fragments(primitive_coverage(names, size), size)
        allowed = int(expected[2].sum())
        if allowed > MAX_RASTER_FRAGMENTS:
            out.append(RasterDraw(d, "not run", f"{allowed} fragments: the raster check takes "
                                                f"at most {MAX_RASTER_FRAGMENTS}"))
            continue
        capacity = allowed + 4096  # room to see extra fragments, not only count them
        records, written = wgpu_call(functools.partial(
            _draw, dev, module, layout, pipeline_layout, target, case.topology, draw, index, ib,
            capacity), "raster check")
        problems = _compare(records, expected, who, size)
        detail = f"{names.shape[0]} primitive(s), {written} fragment(s)"
        if written > allowed:
            problems.insert(0, f"{written} fragments: more than the {allowed} any conforming "
                               f"rasterizer writes for D3D's primitives")
        status = "DIFFERENT" if problems else "OK"
        if problems:
            detail += f", {len(problems)} difference(s)"
        out.append(RasterDraw(d, status, detail, names.shape[0], written,
                              problems[:max_problems]))
    return out


def _draw(dev, module, layout, pipeline_layout, target, topo, draw, index, ib,
          capacity: int) -> tuple[np.ndarray, int]:
    """One draw through the probe: the records it kept, shape (n, 2), and how many fragments
    it counted (more than it kept when past ``capacity``)."""
    primitive = {"topology": webgpu_topology(topo, index.listed, False),
                 "cull_mode": "none", "front_face": "cw"}
    fmt = strip_index_format(topo, index, draw, False)
    if fmt is not None:
        primitive["strip_index_format"] = fmt
    pipeline = dev.create_render_pipeline(
        layout=pipeline_layout, vertex={"module": module, "entry_point": "vs", "buffers": []},
        primitive=primitive,
        fragment={"module": module, "entry_point": "fs", "targets": [{"format": "r8unorm"}]})
    sub_vertex = (draw.base_vertex_location if draw.indexed
                  else draw.start_vertex_location - index.vertex_shift)
    params = np.array([sub_vertex & 0xFFFFFFFF, draw.start_instance_location, capacity, 0],
                      np.uint32)
    uniform = dev.create_buffer_with_data(data=params, usage="UNIFORM")
    records = dev.create_buffer(size=capacity * 8, usage="STORAGE|COPY_SRC")
    counter = dev.create_buffer_with_data(data=np.zeros(4, np.uint32), usage="STORAGE|COPY_SRC")
    group = dev.create_bind_group(layout=layout, entries=[
        {"binding": 0, "resource": {"buffer": uniform}},
        {"binding": 1, "resource": {"buffer": records}},
        {"binding": 2, "resource": {"buffer": counter}}])
    keep = []

    def upload(data):
        buf = dev.create_buffer_with_data(data=data, usage="INDEX")
        keep.append(buf)
        return buf

    encoder = dev.create_command_encoder()
    rp = encoder.begin_render_pass(color_attachments=[{
        "view": target.create_view(), "load_op": "clear", "store_op": "discard",
        "clear_value": (0, 0, 0, 0)}])
    rp.set_pipeline(pipeline)
    rp.set_bind_group(0, group)
    if draw.instance_count and (index.mode != "host" or index.values.shape[0]):
        issue_draw(rp, draw, index, ib, upload)
    rp.end()
    dev.queue.submit([encoder.finish()])
    n = int(np.frombuffer(dev.queue.read_buffer(counter), np.uint32)[0])
    kept = min(n, capacity)
    if kept == 0:
        return np.zeros((0, 2), np.uint32), n
    data = dev.queue.read_buffer(records, 0, kept * 8)
    return np.frombuffer(data, np.uint32).reshape(-1, 2), n
