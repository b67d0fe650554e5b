"""Regression tests for defects found in review: each test failed before its fix."""

import copy
import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from gpuia import (
    DrawInstanced,
    InputLayout,
    SODeclarationEntry,
    StreamOutputBufferView,
    StreamOutputDesc,
    VertexBufferView,
)
from gpuia.d3d.desc import IndexBufferView
from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.gpu import Context, IndexMode, PipelineState
from gpuia.gpu.device import Device
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare, compare_so
from gpuia.harness.run import reference_ia, reference_so
from gpuia.harness.run_gpu import run_case_gpu, run_case_so_gpu


def _ctx(dev, layout=({"SemanticName": "A", "Format": "R32_UINT"},)):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(list(layout)))
    ctx.ia_set_primitive_topology("POINTLIST")
    return ctx


def test_capture_uses_the_index_buffer_bound_at_draw_time(gpu_device):
    ctx = _ctx(gpu_device)
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(
        gpu_device.create_buffer(np.arange(100, 110, dtype=np.uint32)), 4)])
    ib_a = gpu_device.create_buffer(np.array([1, 2, 3], np.uint16), bind="index_buffer")
    ib_b = gpu_device.create_buffer(np.array([7, 8, 9], np.uint16), bind="index_buffer")
    ctx.begin_capture()
    ctx.ia_set_index_buffer(IndexBufferView(ib_a, "R16_UINT"))
    ctx.draw_indexed_instanced(3)
    ctx.ia_set_index_buffer(IndexBufferView(ib_b, "R16_UINT"))  # after the draw: irrelevant
    cap = ctx.end_capture()
    records = cap.words.reshape(-1, 7)
    # flag, SV_VertexID (the index), SV_InstanceID, A (vertex 100 + index)
    assert records[:, :4].tolist() == [[1, 1, 0, 101], [1, 2, 0, 102], [1, 3, 0, 103]]
    assert cap.unexpected == 0


def test_stream_output_to_another_slot_gets_its_own_targets(gpu_device):
    layout = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}])
    decl = [StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=2,
                                                 output_slot=s),)) for s in (0, 1)]
    vb = gpu_device.create_buffer(np.array([[1, 2], [3, 4]], "<f4"))
    a = gpu_device.create_buffer(size=64, bind="stream_output")
    b = gpu_device.create_buffer(size=64, bind="stream_output")
    counters = gpu_device.create_buffer(size=16, bind="stream_output")
    ctx = Context(gpu_device)
    ctx.so_set_targets([StreamOutputBufferView(a, 64, 0, counters, 0),
                        StreamOutputBufferView(b, 64, 0, counters, 4)])
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.set_pipeline_state(PipelineState(layout, stream_output=decl[0]))
    ctx.ia_set_vertex_buffers(0, [vb], [8])
    ctx.draw_instanced(1)
    ctx.set_pipeline_state(PipelineState(layout, stream_output=decl[1]))
    ctx.draw_instanced(1, 1, 1)
    ctx.flush()
    assert np.frombuffer(a.read(), "<f4")[:2].tolist() == [1.0, 2.0]
    assert np.frombuffer(b.read(), "<f4")[:2].tolist() == [3.0, 4.0]
    assert np.frombuffer(counters.read(), "<u4")[:2].tolist() == [8, 8]


# Raw wgpu devices made here live until the process ends: on wgpu's OpenGL backend dropping one
# breaks the adapter's other devices (gpuia.gpu.quirks.ONE_DEVICE).
_RAW_DEVICES = []


def test_render_target_capture_on_an_adapter_without_writable_vertex_storage(gpu_device):
    dev = Device(gpu_device.adapter)
    dev.device = dev.adapter.request_device_sync(required_features=[])
    _RAW_DEVICES.append(dev.device)
    dev.caps = dataclasses.replace(dev.caps, vertex_writable_storage=False)
    ctx = _ctx(dev)
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(
        dev.create_buffer(np.arange(5, 9, dtype=np.uint32)), 4)])
    ctx.begin_capture()  # auto: the render-target route
    ctx.draw_instanced(3)
    cap = ctx.end_capture()
    records = cap.words.reshape(-1, 7)
    assert records[:, [0, 1, 3]].tolist() == [[1, 0, 5], [1, 1, 6], [1, 2, 7]]


def test_stride_zero_with_an_extent_past_the_stride_limit_is_pulled(gpu_device):
    case = load_case({
        "gpuia_case": 1,
        "input_layout": [{"SemanticName": "A", "Format": "R32_UINT", "AlignedByteOffset": 4096}],
        "vertex_buffers": [{"slot": 0, "stride": 0,
                            "data": {"dtype": "uint32", "values": list(range(1025))}}],
        "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}}})
    ref = reference_ia(case)
    res = run_case_gpu(case, gpu_device, "auto", ref)
    assert res.plans[0].path == "pulling"
    assert "stride 0" in " ".join(res.plans[0].reasons)
    assert compare(ref, res, case.layout).ok


def test_non_indexed_adjacency_with_a_large_start_vertex_draws(gpu_device):
    """A non-indexed draw gpuia draws as a list it builds (LINELIST_ADJ: adjacency vertices
    dropped) is an indexed draw whose base vertex is StartVertexLocation, which WebGPU takes as
    a signed 32-bit value: 2**31 was refused. The draw is encoded and submitted on that path,
    and the same draw captured delivers D3D's values."""
    ctx = _ctx(gpu_device)
    ctx.ia_set_primitive_topology("LINELIST_ADJ")
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(
        gpu_device.create_buffer(np.arange(8, dtype=np.uint32)), 4)])
    plan = ctx.draw(DrawInstanced(4, 1, 0x80000000))
    ctx.flush()
    # The planner sees element 2**31 + i past the 8-element view and pulls.
    assert (plan.path, plan.index.mode) == ("pulling", IndexMode.HOST), plan
    ctx.begin_capture()
    ctx.draw_instanced(4, 1, 0x80000000)
    cap = ctx.end_capture()
    # Vertex i is fetched at byte 4 * (2**31 + i), which wraps to 4 * i (rules 4.2): A = i;
    # SV_VertexID is i, without StartVertexLocation (rules 4.5). Adjacency vertices included.
    records = cap.words.reshape(-1, 7)  # flag, SV_VertexID, SV_InstanceID, A (x, y, z, w)
    assert records[:, :4].tolist() == [[1, i, 0, i] for i in range(4)]
    assert cap.unexpected == 0


def test_semantic_names_ending_in_digits_on_the_gpu(gpu_device, tmp_path):
    doc = {"gpuia_case": 1, "name": "digits",
           "input_layout": [{"SemanticName": "COLOR1", "Format": "R32_FLOAT"},
                            {"SemanticName": "A0", "Format": "R8_UINT", "InputSlot": 1}],
           "vertex_buffers": [{"slot": 0, "stride": 4,
                               "data": {"dtype": "float32", "values": [1, 2, 3]}},
                              {"slot": 1, "stride": 1, "data": {"hex": "050607"}}],
           "primitive_topology": "POINTLIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}},
           "stream_output": {"declaration": [{"SemanticName": "COLOR1", "ComponentCount": 1},
                                             {"SemanticName": "A0", "ComponentCount": 1}],
                             "targets": [{"slot": 0, "size": 32}]}}
    case = load_case(doc)
    ref = reference_ia(case)
    assert compare(ref, run_case_gpu(case, gpu_device, "pulling", ref), case.layout).ok
    assert compare_so(reference_so(case, ref), run_case_so_gpu(case, gpu_device)) == []
    path = tmp_path / "digits.json"
    path.write_text(json.dumps(doc))
    proc = subprocess.run([sys.executable, "-m", "gpuia", "run", str(path), "--backend", "gpu"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def test_chunked_draws_that_write_nothing_do_not_fill_the_uniform_ring(gpu_device):
    small = copy.copy(gpu_device)
    small.caps = dataclasses.replace(gpu_device.caps, max_storage_buffer_binding_size=4096)
    layout = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}])
    ctx = Context(small)
    ctx.set_pipeline_state(PipelineState(layout, stream_output=StreamOutputDesc(
        (SODeclarationEntry(semantic_name="POSITION", component_count=2),))))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [small.create_buffer(np.zeros(8, "<f4"))], [8])
    target = small.create_buffer(size=8192, bind="stream_output")
    ctx.so_set_targets([StreamOutputBufferView(target, 8192)])
    for _ in range(3000):  # more than the ring holds
        ctx.draw_instanced(0)
    assert ctx.stats()["pending_blocks"] <= 2


def test_rejected_so_targets_change_nothing(gpu_device):
    ctx = Context(gpu_device)
    buf = gpu_device.create_buffer(np.zeros(16, np.uint8), bind=("stream_output",))
    view = StreamOutputBufferView(buf, 16)
    with pytest.raises(InvalidDescError):
        ctx.so_set_targets([view, view], [0, 6])  # slot 1's offset is not a multiple of 4
    assert buf.host is not None
    stats = ctx.stats()
    assert stats["so_counters"] == 0 and stats["bound"]["so_targets"] == []


def _so_points(dev, fmt: str, components: int, views) -> Context:
    """A POINTLIST context streaming out the one element ``A`` (``fmt``) whole, slot 0 bound."""
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(
        InputLayout([{"SemanticName": "A", "Format": fmt}]),
        stream_output=StreamOutputDesc((SODeclarationEntry(semantic_name="A",
                                                           component_count=components),))))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, views)
    return ctx


def test_a_target_over_the_adapters_own_binding_limit_is_written_in_chunks(gpu_device):
    """Regression: the whole-target bind group was made before the chunked route was chosen, so
    a target over the adapter's real storage-binding limit (not a lowered copy of the caps) was
    refused by wgpu. Four points straddling the limit land whole; the 16 bytes on either side
    stay zero (a new buffer is zero-filled); BufferFilledSize advances by 64."""
    edge = gpu_device.caps.max_storage_buffer_binding_size // 16 * 16
    size = edge + 64
    assert size <= gpu_device.caps.max_buffer_size
    words = np.arange(1, 17, dtype="<u4")  # four R32G32B32A32_UINT points: 1..4, 5..8, ...
    ctx = _so_points(gpu_device, "R32G32B32A32_UINT", 4, [VertexBufferView(
        gpu_device.create_buffer(words, bind=("vertex_buffer",)), 16)])
    target = gpu_device.create_buffer(size=size, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, size)], [edge - 32])
    ctx.draw_instanced(4)
    ctx.flush()
    got = np.frombuffer(gpu_device.device.queue.read_buffer(target.wgpu, edge - 48, 96), "<u4")
    assert got.tolist() == [0] * 4 + list(range(1, 17)) + [0] * 4
    assert ctx.so_filled_size(0) == edge + 32
    assert ctx.so_statistics() == {"NumPrimitivesWritten": 4, "PrimitivesStorageNeeded": 4}


def test_so_bind_groups_follow_the_index_buffer_of_each_draw(gpu_device):
    """The SO bind groups are reused across draws only while they bind the same buffers: two
    indexed draws, each with its own index buffer, stream their own vertices in order."""
    ctx = _so_points(gpu_device, "R32_UINT", 1, [VertexBufferView(gpu_device.create_buffer(
        np.array([10, 20, 30, 40], "<u4"), bind=("vertex_buffer",)), 4)])
    target = gpu_device.create_buffer(size=32, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, 32)])
    for indices in ([0, 1], [3, 2], [1, 1]):
        ib = gpu_device.create_buffer(np.array(indices, "<u4"), bind=("index_buffer",))
        ctx.ia_set_index_buffer(IndexBufferView(ib, "R32_UINT", 0, 8))
        ctx.draw_indexed_instanced(2)
    ctx.flush()
    assert np.frombuffer(target.read(), "<u4").tolist() == [10, 20, 40, 30, 20, 20, 0, 0]


def test_pulled_views_in_a_buffer_over_the_binding_limit_bind_a_window(gpu_device):
    """A view inside a buffer larger than the adapter's storage-binding limit is pulled through
    a binding of just its window (the buffer whole would be refused by wgpu): four R32_UINT
    vertices from a view at an offset past the limit that is not a multiple of 16, plus one
    vertex past the view's end, which reads 0 by the D3D12 rule (rules 6.3)."""
    caps = gpu_device.caps
    edge = caps.max_storage_buffer_binding_size // 16 * 16
    big = gpu_device.create_buffer(size=edge + 4096, bind=("vertex_buffer",))
    offset = edge + 100
    gpu_device.device.queue.write_buffer(big.wgpu, offset - 4,
                                         np.array([99, 7, 8, 9, 10, 11], "<u4"))
    ctx = _ctx(gpu_device)
    ctx.set_path("pulling")
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(big, 4, offset, 16)])
    ctx.begin_capture()
    ctx.draw_instanced(5)
    cap = ctx.end_capture()
    records = cap.words.reshape(-1, 7)
    assert records[:, 3].tolist() == [7, 8, 9, 10, 0]
    assert records[:, 0].tolist() == [1] * 5 and cap.unexpected == 0
    # Stream Output pulls through the same window (its compute pass has its own bind group).
    so = _so_points(gpu_device, "R32_UINT", 1, [VertexBufferView(big, 4, offset, 16)])
    target = gpu_device.create_buffer(size=20, bind=("stream_output",))
    so.so_set_targets([StreamOutputBufferView(target, 20)])
    so.draw_instanced(5)
    so.flush()
    assert np.frombuffer(target.read(), "<u4").tolist() == [7, 8, 9, 10, 0]
    # A view that itself needs more than one binding is refused by name before wgpu sees it.
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(big, 4, 16, edge + 16)])
    with pytest.raises(UnsupportedError, match="slot 0's view .* max-storage-buffer-binding"):
        ctx.draw_instanced(3)


@pytest.mark.parametrize("indexed", [False, True])
def test_instance_counter_wraps_at_32_bits(gpu_device, indexed):
    """StartInstanceLocation + InstanceCount past 2**32: D3D's counter wraps (rules 4.8), so
    instances 2 and 3 of a draw starting at 2**32 - 2 fetch per-instance elements 0 and 1, and
    SV_InstanceID still counts 0..3 (found by gpuia fuzz: the GPU dropped the wrapped
    instances)."""
    draw = ({"DrawIndexedInstanced": {"IndexCountPerInstance": 1, "InstanceCount": 4,
                                      "StartInstanceLocation": 2**32 - 2}} if indexed else
            {"DrawInstanced": {"VertexCountPerInstance": 1, "InstanceCount": 4,
                               "StartInstanceLocation": 2**32 - 2}})
    doc = {"gpuia_case": 1, "name": "instance_wrap",
           "input_layout": [{"SemanticName": "A", "Format": "R32_UINT"},
                            {"SemanticName": "B", "Format": "R32_UINT", "InputSlot": 1,
                             "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}],
           "vertex_buffers": [{"slot": 0, "stride": 4, "data": {"dtype": "uint32", "values": [7]}},
                              {"slot": 1, "stride": 4,
                               "data": {"dtype": "uint32", "values": [100, 101]}}],
           "primitive_topology": "POINTLIST", "draw": draw}
    if indexed:
        doc["index_buffer"] = {"format": "R32_UINT", "data": {"dtype": "uint32", "values": [0]}}
    case = load_case(doc)
    ref = reference_ia(case)
    # By hand: instances 0, 1 fetch elements 2**32 - 2, 2**32 - 1 (out of bounds: 0); 2, 3
    # fetch elements 0 and 1.
    assert ref.inputs["B0"].values[:, 0].tolist() == [0, 0, 100, 101]
    assert ref.instance_id.tolist() == [0, 1, 2, 3]
    gpu = run_case_gpu(case, gpu_device, "pulling", ref)
    assert compare(ref, gpu, case.layout).ok
    # WebGPU's fixed-function fetch cannot wrap (nor read out of bounds as zeros): refused.
    with pytest.raises(UnsupportedError, match="wraps past 2\\*\\*32"):
        run_case_gpu(case, gpu_device, "native", ref)


def test_so_offsets_past_the_32_bit_counter_are_refused(gpu_device):
    """A D3D11-style SO offset of 2**32 raised OverflowError deep in gpuia (found next to the
    fuzzer's filled_size case); the counter is 32-bit (rules 9.6)."""
    ctx = Context(gpu_device)
    t = gpu_device.create_buffer(size=64, bind="stream_output")
    with pytest.raises(InvalidDescError, match="32-bit counter"):
        ctx.so_set_targets([StreamOutputBufferView(t, 64)], [2**32])
    ctx.so_set_targets([StreamOutputBufferView(t, 64)], [8])
    assert ctx.so_filled_size(0) == 8

