"""Index buffers that live only on the GPU, through the GPU index pass: Stream Output of strips
with cuts and of NULL views, and rendering draws WebGPU cannot draw from the buffer as it is
(adjacency, a cut value WebGPU does not restart at, reads past the view, an adapter that ignores
restart or takes the last vertex as provoking).

Every index buffer here has no host copy: it is created with a size and written (``Buffer.write``
keeps no host copy of a buffer made without data), or written by the GPU itself (a Stream Output
target). Expected results come from the CPU reference (``gpuia.reference``) over the same index
bytes on the host: Stream Output is compared with ``gpuia.harness.compare.compare_so`` (every
byte, filled size and statistic), rendering with the image the reference's primitives give by
hand rasterization: pixel centers strictly inside a triangle, painted in D3D's primitive order
with the key of the primitive's provoking vertex; centers on an edge are left out (the top-left
rule decides them). Run on Vulkan and on OpenGL (``GPUIA_BACKEND=OpenGL``), whose adapter has
both assembly quirks for real.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from gpuia.d3d.desc import StripCutValue
from gpuia.d3d.draws import DrawIndexedInstanced
from gpuia.d3d.ia_desc import IndexBufferView, VertexBufferView
from gpuia.d3d.layout import InputLayout
from gpuia.d3d.so_desc import SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.d3d.topology import topology_info
from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.gpu.context import Context
from gpuia.gpu.context.pso import PipelineState
from gpuia.gpu.ia.plan import IndexMode, IndexPlan
from gpuia.gpu.quirks import LAST_PROVOKING_VERTEX, NO_PRIMITIVE_RESTART, QUIRKS, has_effect
from gpuia.gpu.vertex.plan import DrawPath, plan_draw
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare, compare_so
from gpuia.harness.reference_run import reference_ia
from gpuia.harness.run_gpu import run_case_gpu
from gpuia.reference.ia import run_ia
from gpuia.reference.stream_output import SOResult, SOTarget, stream_output
from gpuia.reference.vertex import pass_through_outputs

CASES = Path(__file__).resolve().parents[2] / "examples" / "cases"
C16, C32 = 0xFFFF, 0xFFFFFFFF
U32 = 0xFFFFFFFF
GUARD = 0xAB


def gpu_only_indices(device, values, fmt="R16_UINT", offset=0, size=None, tail=()):
    """(GPU view, host view) of ``values`` at byte ``offset`` of a buffer only the GPU holds,
    and of the same bytes on the host for the reference. ``tail``: values after the view's
    ``size`` (default: exactly the values) that a read past the view would see."""
    dtype = {"R16_UINT": "<u2", "R32_UINT": "<u4"}[fmt]
    body = np.asarray(list(values) + list(tail), np.uint64).astype(dtype).tobytes()
    raw = bytes([0x5A]) * offset + body
    raw += bytes(-len(raw) % 4)  # Buffer.write takes whole words
    size = len(body) - len(tail) * np.dtype(dtype).itemsize if size is None else size
    buf = device.create_buffer(size=len(raw), bind="index_buffer")
    buf.write(raw)
    assert buf.host is None  # the point of this module
    return IndexBufferView(buf, fmt, offset, size), IndexBufferView(raw, fmt, offset, size)


def _with_quirk(device, monkeypatch, effect):
    """Give ``device`` the quirk row of ``effect`` (a stand-in where its adapter lacks it)."""
    rows = tuple(q for q in QUIRKS if q.effect == effect)
    monkeypatch.setattr(device, "caps", dataclasses.replace(
        device.caps, quirks=tuple(device.caps.quirks) + rows))


# -- Stream Output ------------------------------------------------------------------------------

NV = 48
SO_LAYOUT = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}])
SO_VERTICES = np.stack([np.arange(NV) + 0.5, 100 - np.arange(NV)], 1).astype("<f4").tobytes()
SO_DESC = StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=2),
                            SODeclarationEntry(semantic_name="SV_VertexID", component_count=1),
                            SODeclarationEntry(semantic_name="SV_InstanceID", component_count=1)))


def so_compare(device, topology, draws, gpu_ib, host_ib, cut, size=4096, filled=4):
    """Stream Output of ``draws`` with ``gpu_ib`` bound on ``device`` against the reference
    with ``host_ib``: the differences (none expected) and the reference's statistics."""
    pso = PipelineState(SO_LAYOUT, strip_cut_value=cut, stream_output=SO_DESC)
    ia = run_ia(SO_LAYOUT, {0: VertexBufferView(SO_VERTICES, 8)}, draws, topology=topology,
                index_buffer=host_ib, strip_cut_value=cut)
    initial = bytes([GUARD]) * size
    ref = stream_output(ia, pso.so, pass_through_outputs(ia, SO_LAYOUT),
                        {0: SOTarget(initial, filled)})
    ctx = Context(device)
    ctx.set_pipeline_state(pso)
    ctx.ia_set_primitive_topology(topology)
    ctx.ia_set_vertex_buffers(0, [device.create_buffer(SO_VERTICES)], [8])
    ctx.ia_set_index_buffer(gpu_ib)
    out = device.create_buffer(initial, bind="stream_output")
    ctx.so_set_targets([StreamOutputBufferView(out, size)], [filled])
    for d in draws:
        ctx.draw(d)
    stats = ctx.so_statistics()  # submits the draws
    gpu = SOResult({0: out.read()}, {0: ctx.so_filled_size(0)}, stats)
    return compare_so(ref, gpu), ref.statistics


STRIP16 = [2, 3, 4, 5, C16, 6, 7, 8, C16, C16, 9, 10, 11, 12, 13, C16, 14]
STRIP32 = [5, 6, C32, 7, 8, 9, C32, 10, C32, 11, 12, 13]


@pytest.mark.parametrize("topology, fmt, values, cut, draws", [
    ("TRIANGLESTRIP", "R16_UINT", STRIP16, "0xFFFF",
     [DrawIndexedInstanced(17, 2, 0, -2, 1), DrawIndexedInstanced(12, 1, 3, 5)]),
    ("LINESTRIP", "R32_UINT", STRIP32, "0xFFFFFFFF", [DrawIndexedInstanced(11, 3, 1, 3, 7)]),
    # 5.3: the PSO's literal whatever the width: 0xFFFF cuts 32-bit indices.
    ("TRIANGLESTRIP", "R32_UINT", [0, 1, 2, 3, C16, 4, 5, 6, C16, 7], "0xFFFF",
     [DrawIndexedInstanced(10, 2)]),
    ("TRIANGLESTRIP_ADJ", "R16_UINT", [0, 1, 2, 3, 4, 5, 6, 7, C16, 10, 11, 12, 13, 14, 15, 16],
     "0xFFFF", [DrawIndexedInstanced(16, 2, 0, 1)]),
], ids=["tristrip-r16", "linestrip-r32", "tristrip-r32-cut-ffff", "tristrip-adj-r16"])
def test_stream_output_of_a_strip_with_cuts_from_gpu_only_indices(gpu_device, topology, fmt,
                                                                   values, cut, draws):
    """Runs restart at every cut and at every instance (rules 5.4, 4.9), strips expanded in
    D3D's order (9.3); statistics and filled sizes as the reference's."""
    gpu_ib, host_ib = gpu_only_indices(gpu_device, values, fmt)
    diffs, stats = so_compare(gpu_device, topology, draws, gpu_ib, host_ib, cut)
    assert diffs == []
    assert stats["NumPrimitivesWritten"] > 0


def test_stream_output_reads_zero_past_a_gpu_only_view(gpu_device):
    """5.6: indices past SizeInBytes read 0, and 0 is no cut: the filler after the view (a cut
    and vertex 9) is never read."""
    gpu_ib, host_ib = gpu_only_indices(gpu_device, [1, 2, C16, 3, 4, 5], tail=[C16, 9, 9, 9])
    diffs, stats = so_compare(gpu_device, "TRIANGLESTRIP", [DrawIndexedInstanced(10, 2, 0, 1)],
                              gpu_ib, host_ib, "0xFFFF")
    assert diffs == []
    assert stats["PrimitivesStorageNeeded"] == 2 * 5  # runs [1, 2] and [3, 4, 5, 0, 0, 0, 0]


@pytest.mark.parametrize("view", [None, "R16_UINT", "R32_UINT"])
def test_stream_output_with_a_null_index_view(gpu_device, view):
    """5.5: a NULL view reads 0 everywhere, so no index cuts: every primitive is vertex
    BaseVertexLocation's, SV_VertexID 0."""
    gpu_ib = None if view is None else IndexBufferView(None, view)
    diffs, stats = so_compare(gpu_device, "TRIANGLESTRIP", [DrawIndexedInstanced(6, 2, 3, 5)],
                              gpu_ib, gpu_ib, "0xFFFF")
    assert diffs == []
    assert stats == {"NumPrimitivesWritten": 8, "PrimitivesStorageNeeded": 8}


def test_stream_output_from_indices_the_gpu_wrote(gpu_device):
    """An index buffer that is itself a Stream Output target's output: the pass-through shader
    streams an R32_UINT element, and the next draw uses those words as its strip's indices."""
    dev = gpu_device
    values = [3, 4, 5, 6, C32, 7, 8, 9, C32, 10, 11]
    layout = InputLayout([{"SemanticName": "TEXCOORD", "Format": "R32_UINT"}])
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(layout, stream_output=StreamOutputDesc(
        (SODeclarationEntry(semantic_name="TEXCOORD", component_count=1),))))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(np.array(values, "<u4"))], [4])
    written = dev.create_buffer(size=4 * len(values), bind=("stream_output", "index_buffer"))
    ctx.so_set_targets([StreamOutputBufferView(written, 4 * len(values))], [0])
    ctx.draw_instanced(len(values))
    ctx.so_set_targets([])
    ctx.flush()
    assert written.host is None and written.read() == np.array(values, "<u4").tobytes()
    host_ib = IndexBufferView(np.array(values, "<u4").tobytes(), "R32_UINT")
    diffs, stats = so_compare(dev, "LINESTRIP", [DrawIndexedInstanced(11, 2, 0, 1)],
                              IndexBufferView(written, "R32_UINT"), host_ib, "0xFFFFFFFF")
    assert diffs == []
    assert stats["PrimitivesStorageNeeded"] == 2 * (3 + 2 + 1)


def test_stream_output_overflow_with_gpu_only_cuts(gpu_device):
    """The primitive count of a cut strip exists only on the GPU; the prepare step still writes
    the longest run that fits (rules 9.7) and counts every primitive as needed."""
    gpu_ib, host_ib = gpu_only_indices(gpu_device, STRIP16)
    diffs, stats = so_compare(gpu_device, "TRIANGLESTRIP", [DrawIndexedInstanced(17, 3)],
                              gpu_ib, host_ib, "0xFFFF", size=4 + 16 * 3 * 5)
    assert diffs == []
    # Per instance: runs [2, 3, 4, 5], [6, 7, 8], [9 .. 13], [14]: 2 + 1 + 3 triangles.
    assert stats == {"NumPrimitivesWritten": 5, "PrimitivesStorageNeeded": 3 * 6}


def test_stream_output_of_gpu_only_cuts_into_targets_over_a_binding(gpu_device):
    """Targets larger than one storage binding are written in chunks sized on the host: the
    counts of a cut strip are read back from the index pass first. A device copy whose storage
    bindings hold 1024 bytes, a line strip of 100 indices with a cut every 7."""
    small = copy.copy(gpu_device)
    small.caps = dataclasses.replace(gpu_device.caps, max_storage_buffer_binding_size=1024,
                                     min_storage_buffer_offset_alignment=256)
    values = [C32 if k % 7 == 6 else k % NV for k in range(100)]
    gpu_ib, host_ib = gpu_only_indices(small, values, "R32_UINT")
    diffs, stats = so_compare(small, "LINESTRIP", [DrawIndexedInstanced(100, 2, 0, 0, 1)],
                              gpu_ib, host_ib, "0xFFFFFFFF", size=16 * 2 * 200 + 4)
    assert diffs == []
    # 100 positions: 14 runs of 6 indices (5 lines each) and a last run of 2 (1 line).
    assert stats["NumPrimitivesWritten"] == 2 * (14 * 5 + 1)


def test_stream_output_refuses_2_32_primitives(gpu_device):
    """A draw's primitives are counted in 32 bits on the GPU: 2 lines x 2**31 instances is
    refused before anything is recorded, with cuts possible (the cut-free count bounds it)
    or not."""
    gpu_ib, _ = gpu_only_indices(gpu_device, [0, 1, 2])
    for cut in ("0xFFFF", "DISABLED"):
        ctx = Context(gpu_device)
        ctx.set_pipeline_state(PipelineState(SO_LAYOUT, strip_cut_value=cut,
                                             stream_output=SO_DESC))
        ctx.ia_set_primitive_topology("LINESTRIP")
        ctx.ia_set_vertex_buffers(0, [gpu_device.create_buffer(SO_VERTICES)], [8])
        ctx.ia_set_index_buffer(gpu_ib)
        out = gpu_device.create_buffer(size=64, bind="stream_output")
        ctx.so_set_targets([StreamOutputBufferView(out, 64)], [0])
        with pytest.raises(UnsupportedError, match="32 bits"):
            ctx.draw(DrawIndexedInstanced(3, 1 << 31))
        assert ctx.so_statistics() == {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 0}


# -- rendering ----------------------------------------------------------------------------------

SIZE = 64
TARGET = "R32G32B32A32_UINT"


def vertex_position(vid) -> np.ndarray:
    """The NDC position of vertex ``vid``: three bands of 8 columns, each column a bottom
    (even) and a top (odd) vertex, so a strip over consecutive ids zigzags along its band."""
    vid = np.asarray(vid, np.int64)
    band, k = vid // 16, vid % 16
    x = -0.9 + 0.225 * (k // 2)
    top = 0.9 - 0.6 * band
    return np.stack([x, np.where(k % 2 == 1, top, top - 0.45)], -1)


VERTICES = vertex_position(np.arange(NV)).astype("<f4")
LAYOUT = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}])
# Every instance moves one NDC unit right; the key names the vertex and the instance.
VS = """
struct VSIn { POSITION: vec2<f32>, SV_VertexID: u32, SV_InstanceID: u32 }
struct VSOut { SV_Position: vec4<f32>, TEXCOORD0: u32 }
@vertex fn main(i: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = vec4<f32>(i.POSITION.x + f32(i.SV_InstanceID), i.POSITION.y, 0.5, 1.0);
  o.TEXCOORD0 = 1u + i.SV_VertexID + 1000u * i.SV_InstanceID;
  return o;
}
"""
# The same without vertex buffers: positions from SV_VertexID (the native path then applies).
VS_NO_INPUT = """
struct VSIn { SV_VertexID: u32, SV_InstanceID: u32 }
struct VSOut { SV_Position: vec4<f32>, TEXCOORD0: u32 }
@vertex fn main(i: VSIn) -> VSOut {
  let band = i.SV_VertexID / 16u;
  let k = i.SV_VertexID % 16u;
  var y = 0.9 - 0.6 * f32(band);
  if (k % 2u == 0u) { y = y - 0.45; }
  var o: VSOut;
  o.SV_Position = vec4<f32>(-0.9 + 0.225 * f32(k / 2u) + f32(i.SV_InstanceID), y, 0.5, 1.0);
  o.TEXCOORD0 = 1u + i.SV_VertexID + 1000u * i.SV_InstanceID;
  return o;
}
"""
# An integer pixel input is flat: an adapter whose provoking vertex is the last needs gpuia's
# rotation for it.
PS = """
struct PSIn { TEXCOORD0: u32 }
struct PSOut { SV_Target0: vec4<u32> }
@fragment fn ps(i: PSIn) -> PSOut {
  var o: PSOut;
  o.SV_Target0 = vec4<u32>(i.TEXCOORD0, 0u, 0u, 1u);
  return o;
}
"""


def _centers(tri: np.ndarray):
    """(strictly inside, on an edge) masks of the target's pixel centers for an NDC triangle."""
    xs = (np.arange(SIZE) + 0.5) / SIZE * 2 - 1
    ys = 1 - (np.arange(SIZE) + 0.5) / SIZE * 2
    px, py = np.meshgrid(xs, ys)
    (x0, y0), (x1, y1), (x2, y2) = tri
    e = np.stack([(x1 - x0) * (py - y0) - (y1 - y0) * (px - x0),
                  (x2 - x1) * (py - y1) - (y2 - y1) * (px - x1),
                  (x0 - x2) * (py - y2) - (y0 - y2) * (px - x2)])
    inside = np.all(e > 1e-7, axis=0) | np.all(e < -1e-7, axis=0)
    return inside, np.any(np.abs(e) <= 1e-7, axis=0)


def _area(tri: np.ndarray) -> float:
    """Twice the signed NDC area: negative for a triangle clockwise on screen, D3D's front face
    (FrontCounterClockwise FALSE)."""
    (x0, y0), (x1, y1), (x2, y2) = tri
    return x0 * (y1 - y2) + x1 * (y2 - y0) + x2 * (y0 - y1)


def expected_image(ref, vertex_buffer: bool, provoking: int = 0, cull: str = "NONE"):
    """(keys, compared) of the reference's triangles: each painted in D3D's order with the key
    of its vertex ``provoking`` (0: D3D's first), back faces skipped with ``cull`` BACK, pixel
    centers on any edge not compared."""
    if vertex_buffer:  # the fetched position (zeros past the vertex buffer, rules 6.3)
        pos = ref.inputs["POSITION0"].values[:, :2].astype(np.float64)
    else:
        pos = vertex_position(ref.vertex_id)
    pos = pos + np.stack([ref.instance.astype(np.float64), np.zeros(len(ref))], 1)
    key = (1 + ref.vertex_id.astype(np.int64) + 1000 * ref.instance.astype(np.int64)) & U32
    keys = np.zeros((SIZE, SIZE), np.uint32)
    edges = np.zeros((SIZE, SIZE), bool)
    for tri in ref.primitives:
        area = _area(pos[tri])
        if area == 0 or (cull == "BACK" and area > 0):  # a degenerate triangle covers nothing
            continue
        inside, on_edge = _centers(pos[tri])
        keys[inside] = key[tri[provoking]]
        edges |= on_edge
    return keys, ~edges


def render(device, topology, draw, gpu_ib, cut, vertex_buffer=True, cull="NONE"):
    """(plan, keys) of one draw with ``gpu_ib`` bound, into a cleared uint target."""
    rt = device.create_render_target(SIZE, SIZE, TARGET)
    ctx = Context(device)
    ctx.om_set_render_targets([rt])
    ctx.clear_render_target_view(rt, (0, 0, 0, 0))
    layout = LAYOUT if vertex_buffer else InputLayout([])
    ctx.set_pipeline_state(PipelineState(
        layout, vertex_shader=VS if vertex_buffer else VS_NO_INPUT, pixel_shader=PS,
        rtv_formats=[TARGET], strip_cut_value=cut, cull_mode=cull))
    ctx.ia_set_primitive_topology(topology)
    if vertex_buffer:
        ctx.ia_set_vertex_buffers(0, [device.create_buffer(VERTICES.tobytes())], [8])
    ctx.ia_set_index_buffer(gpu_ib)
    plan = ctx.draw(draw)
    ctx.flush()
    img = rt.read()
    assert (img[..., 3] == (img[..., 0] != 0)).all()  # every written pixel wrote its key
    return plan, img[..., 0]


def check_render(device, topology, draw, values, fmt, cut, *, size=None, tail=(),
                 vertex_buffer=True, provoking=0, cull="NONE"):
    """Render from GPU-only indices and compare with the reference's image; returns the plan."""
    gpu_ib, host_ib = gpu_only_indices(device, values, fmt, size=size, tail=tail)
    layout = LAYOUT if vertex_buffer else InputLayout([])
    views = {0: VertexBufferView(VERTICES.tobytes(), 8)} if vertex_buffer else {}
    ref = run_ia(layout, views, draw, topology=topology, index_buffer=host_ib,
                 strip_cut_value=cut)
    want, compared = expected_image(ref, vertex_buffer, provoking, cull)
    assert (want[compared] != 0).sum() >= 40  # the draw covers pixels: the check is not vacuous
    plan, got = render(device, topology, draw, gpu_ib, cut, vertex_buffer, cull)
    bad = np.argwhere((got != want) & compared)
    assert bad.shape[0] == 0, (f"{bad.shape[0]} pixels differ, first at (row, col) "
                               f"{bad[0].tolist()}: {got[tuple(bad[0])]} instead of "
                               f"{want[tuple(bad[0])]}")
    return plan


def _real(device, effect) -> bool:
    return has_effect(device.caps.quirks, effect)


# Three runs along band 0, one per pair of columns: bridged cuts would fill the gaps.
RUNS = [0, 1, 2, 3, "C", 4, 5, 6, 7, "C", 10, 11, 12, 13]


def _cut(values, literal):
    return [literal if v == "C" else v for v in values]


@pytest.mark.parametrize("vertex_buffer", [True, False], ids=["pulling", "native"])
def test_a_strip_with_a_cut_value_webgpu_does_not_restart_at(gpu_device, vertex_buffer):
    """R32_UINT indices cut at 0xFFFF (rules 5.3): WebGPU would restart only at 0xFFFFFFFF and
    draw 0xFFFF as a vertex; the index pass cuts there. Without vertex buffers the native path
    draws the pass's list."""
    plan = check_render(gpu_device, "TRIANGLESTRIP", DrawIndexedInstanced(14),
                        _cut(RUNS, C16), "R32_UINT", "0xFFFF", vertex_buffer=vertex_buffer,
                        cull="BACK")
    assert plan.index.mode == IndexMode.GPU and plan.index.listed
    assert plan.path == (DrawPath.PULLING if vertex_buffer else "native")
    assert any("differs from WebGPU's restart" in r for r in plan.index.reasons)


def test_a_strip_with_cuts_disabled_and_webgpus_restart_value(gpu_device):
    """Cut DISABLED: 0xFFFF is an ordinary 16-bit index (a vertex past the vertex buffer,
    read as zeros: the triangles meet at the origin), where WebGPU would restart."""
    plan = check_render(gpu_device, "TRIANGLESTRIP", DrawIndexedInstanced(9),
                        [0, 1, 2, 3, C16, 4, 5, 6, 7], "R16_UINT", "DISABLED")
    assert plan.index.mode == "gpu"


@pytest.mark.parametrize("topology, values, cut", [
    ("TRIANGLELIST_ADJ", [0, 40, 1, 41, 2, 42, 5, 43, 4, 44, 6, 45], "DISABLED"),
    ("TRIANGLESTRIP_ADJ", [0, 40, 1, 41, 2, 42, 3, 43, 4, 44, 5, 45], "DISABLED"),
    ("TRIANGLESTRIP_ADJ", [0, 40, 1, 41, 2, 42, 3, 43, "C", 8, 46, 9, 47, 10, 33, 11, 34],
     "0xFFFF"),
], ids=["trilist-adj", "tristrip-adj", "tristrip-adj-cut"])
def test_adjacency_from_gpu_only_indices(gpu_device, topology, values, cut):
    """WebGPU has no adjacency topologies: the pass lists the non-adjacent vertices (rules 9.2,
    9.3). Adjacency vertices point into band 2: drawn, they would show there."""
    plan = check_render(gpu_device, topology, DrawIndexedInstanced(len(values)),
                        _cut(values, C16), "R16_UINT", cut)
    assert plan.index.mode == IndexMode.GPU
    assert "WebGPU has no adjacency topologies" in plan.index.reasons


@pytest.mark.parametrize("topology", ["TRIANGLESTRIP", "TRIANGLELIST"])
def test_reads_past_a_gpu_only_view_read_zero(gpu_device, topology):
    """5.6: the index view holds 4 of the 6 indices drawn; the last two read 0 (vertex 0), not
    the buffer's 4 and 5 after the view."""
    plan = check_render(gpu_device, topology, DrawIndexedInstanced(6), [0, 1, 2, 3], "R16_UINT",
                        "0xFFFF", tail=[4, 5])
    assert plan.index.mode == IndexMode.GPU
    assert "D3D reads 0 past the view" in plan.index.reasons[0]


@pytest.mark.parametrize("start_instance", [3, U32], ids=["start-3", "wrapping-past-2**32"])
def test_instances_of_a_listed_draw(gpu_device, start_instance):
    """Every instance restarts the strip (4.9); SV_InstanceID counts from 0 (4.6). Instances
    past 2**32 - 1 are drawn by a second indirect draw from instance 0 (its index count
    copied from the pass's on the GPU)."""
    runs = [0, 1, 2, 3, "C", 4, 5, 6, 7]  # two runs in columns 0..3; instance 1 moves right
    plan = check_render(gpu_device, "TRIANGLESTRIP",
                        DrawIndexedInstanced(9, 2, 0, 0, start_instance), _cut(runs, C16),
                        "R32_UINT", "0xFFFF")
    assert plan.index.mode == IndexMode.GPU


def test_an_adapter_that_ignores_restart(gpu_device, monkeypatch):
    """NO_PRIMITIVE_RESTART (a stand-in where the adapter lacks it): a strip whose cut value
    WebGPU would restart at is still listed by the pass, so no cut is bridged."""
    values, fmt, cut = _cut(RUNS, C16), "R16_UINT", "0xFFFF"
    real = _real(gpu_device, NO_PRIMITIVE_RESTART)
    if not real:  # without the quirk, WebGPU's restart does it as the indices are
        plan = check_render(gpu_device, "TRIANGLESTRIP", DrawIndexedInstanced(14), values, fmt,
                            cut, provoking=0)
        assert plan.index.mode == IndexMode.DIRECT
    _with_quirk(gpu_device, monkeypatch, NO_PRIMITIVE_RESTART)
    plan = check_render(gpu_device, "TRIANGLESTRIP", DrawIndexedInstanced(14), values, fmt, cut)
    assert plan.index.mode == IndexMode.GPU
    assert "as if no index restarted them" in "; ".join(plan.index.reasons)


def test_an_adapter_whose_provoking_vertex_is_the_last(gpu_device, monkeypatch):
    """LAST_PROVOKING_VERTEX: each listed primitive is rotated left by one, (b, c, a) for
    D3D's (a, b, c), so that the adapter's last vertex is D3D's first. On an adapter with the
    quirk the flat key is D3D's first vertex's; with a stand-in on one whose provoking vertex
    is the first, it is visibly D3D's second."""
    values = [0, 1, 2, 3, 4, 5, 17, 18, 19]  # two triangles in band 0, one in band 1
    real = _real(gpu_device, LAST_PROVOKING_VERTEX)
    _with_quirk(gpu_device, monkeypatch, LAST_PROVOKING_VERTEX)
    plan = check_render(gpu_device, "TRIANGLELIST", DrawIndexedInstanced(9), values, "R16_UINT",
                        "DISABLED", provoking=0 if real else 1)
    assert plan.index.mode == IndexMode.GPU and plan.index.rotate


def test_a_capture_of_gpu_only_indices_that_need_rewriting_is_refused(gpu_device):
    """A capture's records are keyed by fetch indices, which the host must read: a strip whose
    cut value WebGPU does not restart at is refused, naming the capture, before anything is
    recorded."""
    gpu_ib, _ = gpu_only_indices(gpu_device, _cut(RUNS, C16), "R32_UINT")
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(LAYOUT, strip_cut_value="0xFFFF"))
    ctx.ia_set_primitive_topology("TRIANGLESTRIP")
    ctx.ia_set_vertex_buffers(0, [gpu_device.create_buffer(VERTICES.tobytes())], [8])
    ctx.ia_set_index_buffer(gpu_ib)
    ctx.begin_capture()
    with pytest.raises(UnsupportedError, match="capture.*only on the GPU"):
        ctx.draw(DrawIndexedInstanced(14))
    assert ctx.end_capture().records == []


# -- planning and the mode enums ----------------------------------------------------------------

def test_planning_gpu_only_indices_and_the_path_enum(gpu_device):
    """A draw the index pass lists has no fetch indices on the host: it is pulled, native is
    refused with the reason, and without indirect-first-instance a nonzero
    StartInstanceLocation is refused. Paths are taken as DrawPath members or their strings, and
    compare, hash and print as the strings."""
    dev = gpu_device
    gpu_ib, _ = gpu_only_indices(dev, _cut(RUNS, C16), "R32_UINT")
    views = {0: VertexBufferView(dev.create_buffer(VERTICES.tobytes()), 8)}
    topo = topology_info("TRIANGLESTRIP")
    draw = DrawIndexedInstanced(14, 1, 0, 0, 2)

    def plan(path="auto", caps=dev.caps, d=draw):
        return plan_draw(LAYOUT, views, d, topo, caps, index_buffer=gpu_ib,
                         strip_cut_value=StripCutValue.CUT_0xFFFF, path=path)

    for path in ("auto", DrawPath.AUTO, "pulling", DrawPath.PULLING):
        p = plan(path)
        assert p.path is DrawPath.PULLING and p.path == "pulling" and f"{p.path}" == "pulling"
        assert {p.path: 1}["pulling"] == 1
        assert p.index.mode is IndexMode.GPU and p.index.mode == "gpu" and p.index.fetch is None
        assert p.explain().startswith("path: pulling\n")
    with pytest.raises(UnsupportedError, match="fetch indices unknown on the host"):
        plan(DrawPath.NATIVE)
    with pytest.raises(InvalidDescError, match="must be auto, native or pulling"):
        plan("Native")
    no_first = dataclasses.replace(dev.caps, indirect_first_instance=False)
    with pytest.raises(UnsupportedError, match="instance 2: the adapter lacks indirect-first"):
        plan(caps=no_first)
    assert plan(caps=no_first, d=dataclasses.replace(draw, start_instance_location=0)) \
        .index.mode is IndexMode.GPU
    assert IndexPlan("host").mode is IndexMode.HOST
    with pytest.raises(InvalidDescError, match="none, direct, host or gpu"):
        IndexPlan("list")
    ctx = Context(dev)
    ctx.set_path(DrawPath.NATIVE)
    assert ctx.path is DrawPath.NATIVE and ctx.stats()["bound"]["path"] == "native"
    ctx.set_path("pulling")
    with pytest.raises(InvalidDescError, match="set_path: path='fast'"):
        ctx.set_path("fast")
    assert ctx.path is DrawPath.PULLING  # a refused path changes nothing
    case = load_case(str(CASES / "indexed_strip_cut.json"))
    ref = reference_ia(case)
    for path in (DrawPath.NATIVE, DrawPath.PULLING):
        res = run_case_gpu(case, dev, path, ref)
        assert res.path == path and compare(ref, res, case.layout).ok
