"""Stream Output on the GPU (compute emulation) against the CPU reference, and the SO parts of the
D3D-style Context API: SOSetTargets (D3D11 offsets, D3D12 counters), statistics, filled sizes,
NO_RASTERIZED_STREAM, WGSL vertex shaders, DrawAuto and the IA/SO binding hazard.

The CPU reference (``gpuia.harness.run.reference_so``) is checked against hand-derived bytes in
``test_streamout.py``; here the GPU must reproduce it byte for byte (``compare_so`` compares
every byte of every target, written or untouched, the filled sizes and both statistics). Where
the reference is not involved, the expected bytes are derived by hand (``struct.pack``).
GPU tests fail, never skip, without an adapter (conftest's ``gpu_device``).
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from gpuia import (
    SO_NO_RASTERIZED_STREAM,
    IndexBufferView,
    InputLayout,
    InvalidDescError,
    SODeclarationEntry,
    StreamOutputBufferView,
    StreamOutputDesc,
    VertexBufferView,
)
from gpuia.gpu import Context, PipelineState
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare_so
from gpuia.harness.run import reference_ia, reference_so
from gpuia.harness.run_gpu import run_case_so_gpu
from gpuia.reference.stream_output import stream_output
from gpuia.reference.vertex import python_outputs
from gpuia.wgsl.program import CAPTURE_HEADER_WORDS, record_words
from helpers import so_points_context

CASES = Path(__file__).resolve().parents[2] / "examples" / "cases"
GUARD = 0xAB
U32 = 0xFFFFFFFF


# -- helpers ---------------------------------------------------------------------------------------

def f32(*v) -> bytes:
    return struct.pack(f"<{len(v)}f", *v)


def u32(*v) -> bytes:
    return struct.pack(f"<{len(v)}I", *v)


def b64(data) -> dict:
    return {"base64": base64.b64encode(bytes(data)).decode()}


def entry(name, count=4, start=0, slot=0, index=0) -> dict:
    return {"Stream": 0, "SemanticName": name, "SemanticIndex": index, "StartComponent": start,
            "ComponentCount": count, "OutputSlot": slot}


def target(slot: int, size: int, filled: int = 0, guard: bool = True) -> dict:
    t = {"slot": slot, "size": size, "filled_size": filled}
    if guard:
        t["data"] = {"hex": f"{GUARD:02x}" * size}
    return t


def guarded(size: int, writes: dict[int, bytes]) -> bytes:
    out = bytearray([GUARD]) * size
    for at, data in writes.items():
        out[at:at + len(data)] = data
    return bytes(out)


def draw(count, instances=1, start_vertex=0, start_instance=0) -> dict:
    return {"DrawInstanced": {"VertexCountPerInstance": count, "InstanceCount": instances,
                              "StartVertexLocation": start_vertex,
                              "StartInstanceLocation": start_instance}}


def indexed(count, instances=1, start_index=0, base=0, start_instance=0) -> dict:
    return {"DrawIndexedInstanced": {"IndexCountPerInstance": count, "InstanceCount": instances,
                                     "StartIndexLocation": start_index, "BaseVertexLocation": base,
                                     "StartInstanceLocation": start_instance}}


NV = 40
# Vertex k: POSITION (k + 0.25, 2k - 7.5, -k) R32G32B32_FLOAT, COLOR R8G8B8A8_UNORM bytes
# (k, 3k, 255 - k, 7k mod 256) in slot 0 (stride 16); per-instance slot 1: INST R32G32_FLOAT
# (10m + 0.5, -m) for element m.
_pos = np.stack([np.arange(NV) + 0.25, 2 * np.arange(NV) - 7.5, -np.arange(NV)], 1)
_col = np.stack([np.arange(NV), 3 * np.arange(NV), 255 - np.arange(NV),
                 (7 * np.arange(NV)) % 256], 1).astype(np.uint8)
_vtx = np.zeros((NV, 16), np.uint8)
_vtx[:, :12] = _pos.astype("<f4").view(np.uint8).reshape(NV, 12)
_vtx[:, 12:] = _col
_inst = np.stack([10 * np.arange(8) + 0.5, -np.arange(8)], 1).astype("<f4")

LAYOUT = [
    {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT", "InputSlot": 0},
    {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "InputSlot": 0},
]
INST_ELEMENT = {"SemanticName": "INST", "Format": "R32G32_FLOAT", "InputSlot": 1,
                "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}
VB = {"slot": 0, "stride": 16, "data": b64(_vtx.tobytes())}
IB_INST = {"slot": 1, "stride": 8, "data": b64(_inst.tobytes())}
DECL = [entry("POSITION", 4), entry("COLOR", 2, start=1), entry("SV_VertexID", 1),
        entry("SV_InstanceID", 1)]  # 32 bytes


def case(name, topology, draws, declaration=None, targets=None, strides=None, layout=None,
         buffers=None, **extra) -> dict:
    so = {"declaration": DECL if declaration is None else declaration,
          "targets": [target(0, 1024)] if targets is None else targets}
    if strides is not None:
        so["buffer_strides"] = strides
    doc = {"gpuia_case": 1, "name": name, "input_layout": LAYOUT if layout is None else layout,
           "vertex_buffers": [VB] if buffers is None else buffers,
           "primitive_topology": topology, "draw": draws, "stream_output": so}
    doc.update(extra)
    return doc


def ib(fmt: str, values) -> dict:
    dtype = {"R16_UINT": "uint16", "R32_UINT": "uint32"}[fmt]
    return {"format": fmt, "data": {"dtype": dtype, "values": list(values)}}


def _example(stem: str) -> dict:
    return json.loads((CASES / f"{stem}.json").read_text())


def _packed_formats() -> dict:
    doc = _example("packed_formats")
    doc["stream_output"] = {
        "declaration": [entry("NORMAL"), entry("COLOR", index=0), entry("COLOR", index=1),
                        entry("TEXCOORD", 2), entry(None, 1), entry("TANGENT", 3, start=1),
                        entry("SV_VertexID", 1)],
        "targets": [target(0, 256, 4)]}
    return doc


def _unaligned_stride() -> dict:
    doc = _example("unaligned_stride")
    doc["stream_output"] = {
        "declaration": [entry("BLENDINDICES", 1), entry("BLENDWEIGHT", 2),
                        entry("TEXCOORD", 3, slot=1), entry("SV_VertexID", 1, slot=1)],
        "buffer_strides": [12, 16], "targets": [target(0, 64), target(1, 60)]}
    return doc


def _no_rasterized_stream() -> dict:
    doc = case("norast", "TRIANGLESTRIP", draw(5))
    doc["stream_output"]["rasterized_stream"] = "NO_RASTERIZED_STREAM"
    return doc


STRIP_ADJ16 = [0, 1, 2, 3, 4, 5, 6, 7, 0xFFFF, 10, 11, 12, 13, 14, 15, 0xFFFF, 20, 21, 22, 23,
               24, 25]
STRIP16 = [2, 3, 4, 5, 0xFFFF, 6, 7, 8, 0xFFFF, 0xFFFF, 9, 10, 11, 12, 13, 0xFFFF, 14]
STRIP32 = [5, 6, U32, 7, 8, 9, U32, 10, U32, 11, 12, 13]

GPU_CASES = {
    "points-start-vertex": lambda: case("p", "POINTLIST", draw(7, 1, 3)),
    "linelist-odd-count": lambda: case("l", "LINELIST", draw(9, 2, 1)),
    "linestrip-instanced": lambda: case(
        "ls", "LINESTRIP", draw(5, 3, 4, 2), layout=LAYOUT + [INST_ELEMENT],
        buffers=[VB, IB_INST],
        declaration=DECL + [entry("INST", 2, slot=1)], strides=[32, 8],
        targets=[target(0, 1024), target(1, 512)]),
    "trilist-instance-step-rate-0": lambda: case(
        "tl", "TRIANGLELIST", draw(7, 2, 0, 3),
        layout=LAYOUT + [dict(INST_ELEMENT, InstanceDataStepRate=0)], buffers=[VB, IB_INST],
        declaration=[entry("INST", 2), entry("SV_InstanceID", 1), entry("POSITION", 2)]),
    "tristrip-instanced": lambda: case("ts", "TRIANGLESTRIP", draw(8, 2, 5),
                                       targets=[target(0, 2048)]),
    "indexed-strip-r16-cuts-negative-base": lambda: case(
        "is16", "TRIANGLESTRIP", indexed(17, 2, 0, -2, 1), index_buffer=ib("R16_UINT", STRIP16),
        strip_cut_value="0xFFFF", layout=LAYOUT + [INST_ELEMENT], buffers=[VB, IB_INST],
        declaration=DECL + [entry("INST", 1, start=1)], targets=[target(0, 2048)]),
    "indexed-linestrip-r32-cuts-start-index": lambda: case(
        "is32", "LINESTRIP", indexed(11, 2, 1, 3), index_buffer=ib("R32_UINT", STRIP32),
        strip_cut_value="0xFFFFFFFF"),
    "indexed-strip-r16-cut-disabled": lambda: case(
        "is16d", "TRIANGLESTRIP", indexed(9), index_buffer=ib("R16_UINT", STRIP16),
        strip_cut_value="DISABLED"),
    "indexed-list-r32-cut-value-is-an-index": lambda: case(
        "il32", "TRIANGLELIST", indexed(9, 1, 0, 3), index_buffer=ib("R32_UINT", STRIP32),
        strip_cut_value="0xFFFFFFFF"),
    "indexed-list-r16-instanced-start-index": lambda: case(
        "il16", "TRIANGLELIST", indexed(9, 3, 4, 1, 2),
        index_buffer=ib("R16_UINT", list(range(20))),
        layout=LAYOUT + [INST_ELEMENT], buffers=[VB, IB_INST],
        declaration=[entry("INST", 2), entry("SV_VertexID", 1), entry("SV_InstanceID", 1)]),
    "indexed-strip-r32-literal-cut-ffff": lambda: case(
        "lit32", "TRIANGLESTRIP", indexed(9, 1, 0, 1),
        index_buffer=ib("R32_UINT", [0, 1, 2, 3, 0xFFFF, 4, 5, 6, 0xFFFF]),
        strip_cut_value="0xFFFF"),
    "indexed-strip-r16-ffff-not-cut-by-ffffffff": lambda: case(
        "lit16", "TRIANGLESTRIP", indexed(6), index_buffer=ib("R16_UINT", [0, 1, 2, 0xFFFF, 3, 4]),
        strip_cut_value="0xFFFFFFFF"),
    "null-index-buffer": lambda: case(
        "nullib", "TRIANGLESTRIP", indexed(6, 2, 0, 5), index_buffer={"format": "R16_UINT",
                                                                        "data": None}),
    "linelist-adj": lambda: case("la", "LINELIST_ADJ", draw(11, 2, 1)),
    "linestrip-adj": lambda: case("lsa", "LINESTRIP_ADJ", draw(8, 1, 2)),
    "trilist-adj": lambda: case("ta", "TRIANGLELIST_ADJ", draw(14, 2)),
    "tristrip-adj": lambda: case("tsa", "TRIANGLESTRIP_ADJ", draw(12, 1, 1)),
    "tristrip-adj-indexed-cut": lambda: case(
        "tsai", "TRIANGLESTRIP_ADJ", indexed(22), index_buffer=ib("R16_UINT", STRIP_ADJ16),
        strip_cut_value="0xFFFF"),
    "multi-slot-strides-gaps": lambda: case(
        "ms", "TRIANGLELIST", draw(9, 2),
        declaration=[entry("POSITION", 3, slot=0), entry(None, 2, slot=1),
                     entry("COLOR", 3, start=1, slot=1), entry(None, 1, slot=0),
                     entry("SV_VertexID", 1, slot=3), entry("POSITION", 1, start=3, slot=3)],
        strides=[20, 32, 0, 12],
        targets=[target(0, 1024), target(1, 1024, 8), target(3, 1024, 12)]),
    "overflow-strip": lambda: case("ov", "TRIANGLESTRIP", draw(9), targets=[target(0, 300, 4)]),
    "overflow-all-slots": lambda: case(
        "ov2", "TRIANGLELIST", draw(12, 2),
        declaration=[entry("POSITION", 2, slot=0), entry("SV_VertexID", 1, slot=1)],
        strides=[8, 8], targets=[target(0, 1000), target(1, 100, 4)]),
    "unbound-declared-slot": lambda: case(
        "ub", "TRIANGLELIST", draw(6),
        declaration=[entry("POSITION", 2, slot=0), entry("SV_VertexID", 1, slot=2)],
        strides=[8, 0, 4], targets=[target(0, 256, 8), target(1, 64)]),
    "append-across-draws-then-overflow": lambda: case(
        "ap", "TRIANGLELIST", [draw(6), draw(3, 2, 10), indexed(6, 1, 0, 2), draw(3)],
        index_buffer=ib("R16_UINT", [0, 1, 2, 3, 4, 5]), targets=[target(0, 512, 0)]),
    "initial-filled-sizes": lambda: case(
        "if", "LINESTRIP", draw(6),
        declaration=[entry("POSITION", 1, slot=0), entry("COLOR", 1, slot=1)], strides=[4, 8],
        targets=[target(0, 200, 64), target(1, 200, 100)]),
    "packed-formats-r11g11b10-r16g16f": _packed_formats,
    "stride-7": _unaligned_stride,
    "unbound-and-out-of-bounds-vertices": lambda: case(
        "oob", "POINTLIST", draw(6, 2, 36, 1), layout=LAYOUT + [INST_ELEMENT],
        buffers=[dict(VB, size=16 * 39), {"slot": 1, "data": None}],
        declaration=[entry("POSITION"), entry("COLOR"), entry("INST"), entry("SV_VertexID", 1)]),
    "vertex-buffer-offset-and-size": lambda: case(
        "vbo", "TRIANGLESTRIP", draw(7, 1, 1), buffers=[dict(VB, offset=4, stride=20, size=100)]),
    "vertex-stride-0": lambda: case("s0", "TRIANGLELIST", draw(6, 2, 3),
                                    buffers=[dict(VB, stride=0, offset=32)]),
    "zero-instances": lambda: case("i0", "TRIANGLELIST", [draw(6, 0), draw(3, 1, 2)]),
    "filled-size-past-the-end": lambda: case("fb", "POINTLIST", draw(3),
                                             targets=[target(0, 64, 80)]),
    "empty-declaration": lambda: case("empty", "TRIANGLELIST", draw(6), declaration=[],
                                      targets=[target(0, 64, 4)]),
    "no-rasterized-stream": _no_rasterized_stream,
    "many-vertices-overflow-across-workgroups": lambda: case(
        "many", "POINTLIST", draw(500, 2), declaration=[entry("SV_VertexID", 1),
                                                        entry("SV_InstanceID", 1)],
        targets=[target(0, 8 * 700)]),
    "example-indexed-cuts": lambda: _example("stream_output_indexed_cuts"),
    "example-multi-slot": lambda: _example("stream_output_multi_slot"),
    "example-strip-overflow": lambda: _example("stream_output_strip_overflow"),
}


WRITES_NOTHING = {  # the cases that by construction write nothing: their statistics
    "empty-declaration": {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 0},
    "unbound-declared-slot": {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 2},
    "filled-size-past-the-end": {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 3},
}


@pytest.mark.parametrize("name", list(GPU_CASES))
def test_gpu_matches_reference(name, gpu_device):
    c = load_case(GPU_CASES[name]())
    ref = reference_so(c, reference_ia(c))
    if name in WRITES_NOTHING:
        assert ref.statistics == WRITES_NOTHING[name]
    else:
        assert ref.statistics["NumPrimitivesWritten"] > 0  # the case writes something
    gpu = run_case_so_gpu(c, gpu_device)
    assert compare_so(ref, gpu) == []
    assert set(gpu.buffers) == set(ref.buffers)


def test_gpu_case_count():
    assert len(GPU_CASES) >= 15


def test_reference_sanity_of_some_cases():
    """A few hand checks that the GPU cases exercise what their names say."""
    def so(name):
        c = load_case(GPU_CASES[name]())
        return reference_so(c, reference_ia(c))

    r = so("overflow-strip")  # 7 triangles of 96 bytes, room for (300 - 4) // 96 = 3
    assert r.statistics == {"NumPrimitivesWritten": 3, "PrimitivesStorageNeeded": 7}
    assert r.filled_size == {0: 4 + 3 * 3 * 32}
    r = so("overflow-all-slots")  # slot 1: (100 - 4) // 24 = 4 triangles of 8 needed
    assert r.statistics == {"NumPrimitivesWritten": 4, "PrimitivesStorageNeeded": 8}
    assert r.filled_size == {0: 4 * 3 * 8, 1: 4 + 4 * 3 * 8}
    r = so("unbound-declared-slot")
    assert r.statistics == {"NumPrimitivesWritten": 0, "PrimitivesStorageNeeded": 2}
    r = so("many-vertices-overflow-across-workgroups")
    assert r.statistics == {"NumPrimitivesWritten": 700, "PrimitivesStorageNeeded": 1000}
    r = so("null-index-buffer")  # every index 0 -> vertex 5, SV_VertexID 0
    assert r.buffers[0][:16] == f32(5.25, 2.5, -5, 1)
    r = so("no-rasterized-stream")
    assert r.statistics == {"NumPrimitivesWritten": 3, "PrimitivesStorageNeeded": 3}


# -- the Context API -------------------------------------------------------------------------------

POS2_LAYOUT = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}])
REC_DESC = StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=2),
                             SODeclarationEntry(semantic_name="SV_VertexID", component_count=1)))


def rec(fetch: int, vid: int) -> bytes:
    """POSITION.xy, SV_VertexID of vertex ``fetch`` of ``_pos2_buffer`` (k, 100 + k)."""
    return f32(fetch, 100 + fetch) + u32(vid)


def _pos2_buffer(dev, n=16):
    data = np.array([[k, 100 + k] for k in range(n)], "<f4").tobytes()
    return dev.create_buffer(data, bind=("vertex_buffer",))


def _rec_context(dev, desc=REC_DESC, topology="POINTLIST"):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(POS2_LAYOUT, stream_output=desc))
    ctx.ia_set_primitive_topology(topology)
    ctx.ia_set_vertex_buffers(0, [_pos2_buffer(dev)], [8], [0])
    return ctx


def read(ctx, buf) -> bytes:
    """A buffer's contents once the context's encoded work has been submitted (Buffer.read
    does not submit it)."""
    ctx.flush()
    return buf.read()


def _stats(written, needed):
    return {"NumPrimitivesWritten": written, "PrimitivesStorageNeeded": needed}


def test_context_statistics_start_at_zero(gpu_device):
    ctx = _rec_context(gpu_device)
    assert ctx.so_statistics() == _stats(0, 0)


def test_so_set_targets_d3d11_offsets(gpu_device):
    """Offset 0, then -1 appending across a re-binding, then an explicit offset 8 (9.5)."""
    ctx = _rec_context(gpu_device)
    buf = gpu_device.create_buffer(bytes([GUARD]) * 120, bind=("stream_output",))
    view = StreamOutputBufferView(buf)
    ctx.so_set_targets([view], [0])
    ctx.draw_instanced(2)
    assert ctx.so_filled_size(0) == 24
    ctx.so_set_targets([view], [-1])
    ctx.draw_instanced(2, 1, 4)
    assert ctx.so_filled_size(0) == 48
    assert read(ctx, buf) == guarded(120, {0: rec(0, 0) + rec(1, 1) + rec(4, 0) + rec(5, 1)})
    ctx.so_set_targets([view], [U32])  # 0xFFFFFFFF is -1 too
    assert ctx.so_filled_size(0) == 48
    ctx.so_set_targets([view], [8])
    ctx.draw_instanced(1, 1, 9)
    assert ctx.so_filled_size(0) == 20
    assert read(ctx, buf) == guarded(120, {0: rec(0, 0) + rec(1, 1) + rec(4, 0) + rec(5, 1),
                                       8: rec(9, 0)})
    assert ctx.so_statistics() == _stats(5, 5)


def test_so_set_targets_append_on_a_new_buffer_starts_at_zero(gpu_device):
    ctx = _rec_context(gpu_device)
    buf = gpu_device.create_buffer(bytes([GUARD]) * 48, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(buf)], [-1])
    assert ctx.so_filled_size(0) == 0
    ctx.draw_instanced(1, 1, 3)
    assert read(ctx, buf) == guarded(48, {0: rec(3, 0)})
    ctx.so_set_targets([StreamOutputBufferView(buf)])  # no offsets: keeps the counter
    ctx.draw_instanced(1, 1, 4)
    assert read(ctx, buf) == guarded(48, {0: rec(3, 0) + rec(4, 0)})
    assert ctx.so_filled_size(0) == 24


def test_so_set_targets_fewer_views_unbind_the_rest(gpu_device):
    """Two declared slots; re-binding only slot 0 unbinds slot 1, which then behaves as full
    (9.5, 9.8): nothing more is written anywhere, PrimitivesStorageNeeded keeps counting."""
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=2),
                             SODeclarationEntry(semantic_name="SV_VertexID", component_count=1,
                                                output_slot=1)), (8, 4))
    ctx = _rec_context(gpu_device, desc)
    a = gpu_device.create_buffer(bytes([GUARD]) * 64, bind=("stream_output",))
    b = gpu_device.create_buffer(bytes([GUARD]) * 64, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(a), StreamOutputBufferView(b)], [0, 0])
    ctx.draw_instanced(2, 1, 6)
    ctx.so_set_targets([StreamOutputBufferView(a)], [-1])
    with pytest.raises(InvalidDescError):
        ctx.so_filled_size(1)
    ctx.draw_instanced(3)
    assert ctx.so_filled_size(0) == 16
    assert read(ctx, a) == guarded(64, {0: f32(6, 106, 7, 107)})
    assert read(ctx, b) == guarded(64, {0: u32(0, 1)})
    assert ctx.so_statistics() == _stats(2, 5)


def test_d3d12_view_with_counter_in_the_same_buffer(gpu_device):
    """D3D12_STREAM_OUTPUT_BUFFER_VIEW whose BufferFilledSize lives at byte 0 of the buffer and
    whose data starts at byte 16 (9.6): writes go to 16 + counter, the counter advances in
    bytes, on the GPU, across draws; a point that does not fit is not written (9.7)."""
    ctx = _rec_context(gpu_device)
    buf = gpu_device.create_buffer(u32(8, 0, 0, 0) + bytes([GUARD]) * 96,
                                   bind=("stream_output",))
    view = StreamOutputBufferView(buf, 96, offset=16, filled_size_buffer=buf,
                                  filled_size_offset=0)
    ctx.so_set_targets([view])
    ctx.draw_instanced(3)
    assert ctx.so_filled_size(0) == 8 + 36
    ctx.draw_instanced(2, 1, 5)
    assert ctx.so_filled_size(0) == 8 + 60
    ctx.draw_instanced(3, 1, 10)  # room for 2 more points of 12 bytes (96 - 68 = 28)
    data = rec(0, 0) + rec(1, 1) + rec(2, 2) + rec(5, 0) + rec(6, 1) + rec(10, 0) + rec(11, 1)
    got = read(ctx, buf)
    assert got[:16] == u32(8 + 84, 0, 0, 0)
    assert got[16:] == guarded(96, {8: data})
    assert ctx.so_filled_size(0) == 92
    assert ctx.so_statistics() == _stats(7, 8)


def test_overflow_stops_writes_until_targets_are_set_again(gpu_device):
    """Rules 9.7: once a primitive did not fit, writes stop for the rest of the draws, even
    a later smaller primitive (a point after a triangle) that would fit; SOSetTargets clears
    it."""
    ctx = _rec_context(gpu_device, topology="TRIANGLELIST")
    buf = gpu_device.create_buffer(bytes([GUARD]) * 48, bind=("stream_output",))
    view = StreamOutputBufferView(buf)
    ctx.so_set_targets([view], [0])
    ctx.draw_instanced(3)       # 36 bytes
    ctx.draw_instanced(3, 1, 3)  # needs 36 more, 12 left: overflow
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.draw_instanced(1, 1, 7)  # would fit, but writes have stopped
    assert ctx.so_filled_size(0) == 36
    assert ctx.so_statistics() == _stats(1, 3)
    ctx.so_set_targets([view], [-1])
    ctx.draw_instanced(1, 1, 8)
    assert ctx.so_filled_size(0) == 48
    assert read(ctx, buf) == rec(0, 0) + rec(1, 1) + rec(2, 2) + rec(8, 0)
    assert ctx.so_statistics() == _stats(2, 4)


def test_d3d12_view_size_smaller_than_the_buffer(gpu_device):
    """SizeInBytes 40 of a 128-byte buffer from BufferLocation 16: three 12-byte points fit
    (36), the fourth does not; nothing is written past the view."""
    ctx = _rec_context(gpu_device)
    buf = gpu_device.create_buffer(u32(0, 0, 0, 0) + bytes([GUARD]) * 112,
                                   bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(buf, 40, offset=16, filled_size_buffer=buf,
                                               filled_size_offset=4)])
    ctx.draw_instanced(4)
    got = read(ctx, buf)
    assert got[:16] == u32(0, 36, 0, 0)
    assert got[16:] == guarded(112, {0: rec(0, 0) + rec(1, 1) + rec(2, 2)})
    assert ctx.so_statistics() == _stats(3, 4)


def test_offsets_are_written_into_d3d12_counters(gpu_device):
    ctx = _rec_context(gpu_device)
    buf = gpu_device.create_buffer(u32(40) + bytes([GUARD]) * 60, bind=("stream_output",))
    view = StreamOutputBufferView(buf, 56, offset=8, filled_size_buffer=buf, filled_size_offset=0)
    ctx.so_set_targets([view], [12])
    ctx.draw_instanced(1, 1, 3)
    ctx.so_set_targets([view], [-1])  # keeps the counter (24)
    ctx.draw_instanced(1, 1, 4)
    got = read(ctx, buf)
    assert got[:4] == u32(36)
    assert got[4:] == guarded(60, {4 + 12: rec(3, 0) + rec(4, 0)})


def test_two_d3d12_views_into_one_buffer_with_their_counters(gpu_device):
    """Slot 0 writes [16, 64), slot 1 [64, 112) of one buffer; their counters are words 0 and 1
    of the same buffer."""
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=2),
                             SODeclarationEntry(semantic_name="SV_VertexID", component_count=1,
                                                output_slot=1)), (8, 4))
    ctx = _rec_context(gpu_device, desc)
    buf = gpu_device.create_buffer(bytes(16) + bytes([GUARD]) * 112, bind=("stream_output",))
    ctx.so_set_targets([
        StreamOutputBufferView(buf, 48, offset=16, filled_size_buffer=buf, filled_size_offset=0),
        StreamOutputBufferView(buf, 48, offset=64, filled_size_buffer=buf, filled_size_offset=4)])
    ctx.draw_instanced(3, 1, 1)
    got = read(ctx, buf)
    assert got[:16] == u32(24, 12, 0, 0)
    assert got[16:] == guarded(112, {0: f32(1, 101, 2, 102, 3, 103), 48: u32(0, 1, 2)})
    assert (ctx.so_filled_size(0), ctx.so_filled_size(1)) == (24, 12)
    assert ctx.so_statistics() == _stats(3, 3)


def test_append_position_survives_a_pipeline_without_stream_output(gpu_device):
    """Rules 9.5 (WINE test_stream_output_resume): drawing with a pipeline without SO between
    SO draws does not reset the append position."""
    ctx = _rec_context(gpu_device)
    so_pso = PipelineState(POS2_LAYOUT, stream_output=REC_DESC)
    ctx.set_pipeline_state(so_pso)
    buf = gpu_device.create_buffer(bytes([GUARD]) * 48, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(buf)], [0])
    ctx.draw_instanced(1, 1, 2)
    ctx.set_pipeline_state(PipelineState(POS2_LAYOUT))
    ctx.draw_instanced(3)
    ctx.set_pipeline_state(so_pso)
    ctx.draw_instanced(1, 1, 3)
    assert read(ctx, buf) == guarded(48, {0: rec(2, 0) + rec(3, 0)})
    assert ctx.so_filled_size(0) == 24
    assert ctx.so_statistics() == _stats(2, 2)


@pytest.mark.parametrize("rasterized", [SO_NO_RASTERIZED_STREAM, 2, 0])
def test_no_rasterized_stream_still_writes(gpu_device, rasterized):
    """Stream 0 is streamed out whichever stream is rasterized (8.10)."""
    desc = StreamOutputDesc(REC_DESC.so_declaration, (), rasterized)
    ctx = _rec_context(gpu_device, desc, "LINESTRIP")
    buf = gpu_device.create_buffer(bytes([GUARD]) * 64, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(buf)])
    ctx.draw_instanced(3, 1, 2)
    assert read(ctx, buf) == guarded(64, {0: rec(2, 0) + rec(3, 1) + rec(3, 1) + rec(4, 2)})
    assert ctx.so_filled_size(0) == 48
    assert ctx.so_statistics() == _stats(2, 2)


def test_empty_declaration_context_statistics_zero(gpu_device):
    ctx = _rec_context(gpu_device, StreamOutputDesc(()))
    buf = gpu_device.create_buffer(bytes([GUARD]) * 32, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(buf)], [4])
    ctx.draw_instanced(4)
    assert ctx.so_statistics() == _stats(0, 0)
    assert ctx.so_filled_size(0) == 4
    assert read(ctx, buf) == guarded(32, {})


# -- a WGSL vertex shader --------------------------------------------------------------------------

WGSL = """
struct VSIn { POSITION: vec4<f32>, SV_VertexID: u32, SV_InstanceID: u32, }
struct VSOut {
  SV_Position: vec4<f32>,
  POSITION: vec4<f32>,
  TEXCOORD1: vec2<f32>,
  COLOR: vec2<u32>,
}
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = input.POSITION;
  o.POSITION = input.POSITION * 2.0;
  o.TEXCOORD1 = vec2<f32>(0.25, -3.0);
  o.COLOR = vec2<u32>(input.SV_VertexID * 3u, 77u + input.SV_InstanceID);
  return o;
}
"""


def _python_shader(inputs, vertex_id, instance_id):
    pos = inputs["POSITION0"]
    n = pos.shape[0]
    return {"SV_POSITION0": pos, "POSITION0": pos * np.float32(2),
            "TEXCOORD1": np.tile(np.array([0.25, -3.0], np.float32), (n, 1)),
            "COLOR0": np.stack([vertex_id.astype(np.uint32) * np.uint32(3),
                                np.uint32(77) + instance_id.astype(np.uint32)], 1)}


def test_wgsl_vertex_shader_against_python_reference(gpu_device):
    doc = {"gpuia_case": 1, "name": "wgsl-so",
           "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
           "vertex_buffers": [{"slot": 0, "stride": 8, "data": {
               "dtype": "float32", "values": [[k, 100 + k] for k in range(12)]}}],
           "index_buffer": ib("R16_UINT", [1, 2, 3, 4, 0xFFFF, 5, 6, 7]),
           "strip_cut_value": "0xFFFF", "primitive_topology": "TRIANGLESTRIP",
           "draw": indexed(8, 2, 0, 1),
           "vertex_shader": {"wgsl": WGSL},
           "stream_output": {
               "declaration": [entry("POSITION", 4), entry("texcoord", 2, index=1),
                               entry(None, 1), entry("COLOR", 2)],
               "targets": [target(0, 1024, 8)]}}
    c = load_case(doc)
    ia = reference_ia(c)
    ref = stream_output(ia, c.so, python_outputs(ia, _python_shader), c.so_targets)
    # Hand check of the reference: the first record is index 1 -> vertex 2, POSITION*2 =
    # (4, 204, 0, 2), TEXCOORD1 (0.25, -3), a gap, COLOR (3 * 1, 77).
    assert ref.buffers[0][8:44] == f32(4, 204, 0, 2, 0.25, -3) + bytes([GUARD]) * 4 + u32(3, 77)
    assert ref.statistics == _stats(6, 6)  # per instance: 2 + 1 triangles
    assert ref.filled_size == {0: 8 + 6 * 3 * 36}
    gpu = run_case_so_gpu(c, gpu_device)
    assert compare_so(ref, gpu) == []


# -- DrawAuto --------------------------------------------------------------------------------------

SO_STRIDE = 24  # POSITION (4 words) + SV_VertexID, 4 padding bytes
STRIP_ORDER = [0, 1, 2, 1, 3, 2, 2, 3, 4]  # 5-vertex triangle strip, D3D order (9.3)


def _draw_auto_source(dev):
    """SO a 5-vertex strip into a buffer bindable as SO target and vertex buffer; returns
    (context, buffer, CPU reference bytes of the same SO)."""
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=4),
                             SODeclarationEntry(semantic_name="SV_VertexID", component_count=1)),
                            (SO_STRIDE,))
    ctx = _rec_context(dev, desc, "TRIANGLESTRIP")
    buf = dev.create_buffer(bytes([GUARD]) * 256, bind=("stream_output", "vertex_buffer"))
    ctx.so_set_targets([StreamOutputBufferView(buf)], [0])
    ctx.draw_instanced(5, 1, 2)
    doc = {"gpuia_case": 1, "input_layout": [{"SemanticName": "POSITION",
                                              "Format": "R32G32_FLOAT"}],
           "vertex_buffers": [{"slot": 0, "stride": 8, "data": {
               "dtype": "float32", "values": [[k, 100 + k] for k in range(16)]}}],
           "primitive_topology": "TRIANGLESTRIP", "draw": draw(5, 1, 2),
           "stream_output": {"declaration": [entry("POSITION", 4), entry("SV_VertexID", 1)],
                             "buffer_strides": [SO_STRIDE], "targets": [target(0, 256)]}}
    c = load_case(doc)
    ref = reference_so(c, reference_ia(c))
    expected = b"".join(f32(2 + i, 102 + i, 0, 1) + u32(i) + bytes([GUARD]) * 4
                        for i in STRIP_ORDER)
    assert ref.buffers[0] == guarded(256, {0: expected})
    assert read(ctx, buf) == ref.buffers[0]
    assert ctx.so_filled_size(0) == 9 * SO_STRIDE
    return ctx, buf, ref.buffers[0]


READBACK_LAYOUT = InputLayout([
    {"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT", "AlignedByteOffset": 0},
    {"SemanticName": "VID", "Format": "R32_UINT", "AlignedByteOffset": 16},
])


@pytest.mark.parametrize("ia_offset", [0, SO_STRIDE])
def test_draw_auto_round_trip(gpu_device, ia_offset):
    ctx, buf, so_bytes = _draw_auto_source(gpu_device)
    ctx.so_set_targets([])  # unbind: the buffer keeps its BufferFilledSize
    ctx.set_pipeline_state(PipelineState(READBACK_LAYOUT))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [buf], [SO_STRIDE], [ia_offset])
    ctx.begin_capture()
    ctx.draw_auto()
    cap = ctx.end_capture()
    n = (9 * SO_STRIDE - ia_offset) // SO_STRIDE  # rules 10.5
    words = cap.words.reshape(-1, record_words(cap.element_count))
    (r,) = cap.records
    keys = r.keys.tolist()
    assert keys == list(range(len(keys))) and len(keys) > n
    rows = words[r.capture_base:r.capture_base + len(keys)]
    flags = rows[:, 0]
    assert flags[:n].tolist() == [1] * n and not flags[n:].any(), flags.tolist()
    assert np.count_nonzero(words[:, 0]) == n
    for k in range(n):
        at = ia_offset + k * SO_STRIDE
        pos = np.frombuffer(so_bytes[at:at + 16], "<u4").tolist()
        vid = struct.unpack_from("<I", so_bytes, at + 16)[0]
        row = rows[k]
        assert row[1] == k and row[2] == 0  # SV_VertexID, SV_InstanceID
        h = CAPTURE_HEADER_WORDS
        assert row[h:h + 4].tolist() == pos
        assert row[h + 4:h + 8].tolist() == [vid, 0, 0, 1]
        assert vid == STRIP_ORDER[k + ia_offset // SO_STRIDE]


def test_draw_auto_other_slots_follow_the_bounds_rule(gpu_device):
    """DrawAuto with a per-vertex element in IA slot 1 whose buffer holds 5 vertices: the 9
    drawn vertices read it in bounds for k < 5 and (0, 0, 0, 1) beyond (rules 10.5, 6.5,
    6.1)."""
    ctx, buf, _ = _draw_auto_source(gpu_device)
    ctx.so_set_targets([])
    layout = InputLayout([
        {"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT", "AlignedByteOffset": 0},
        {"SemanticName": "EXTRA", "Format": "R32_UINT", "InputSlot": 1, "AlignedByteOffset": 0},
    ])
    extra = gpu_device.create_buffer(u32(*(0x100 + k for k in range(5))), bind=("vertex_buffer",))
    ctx.set_pipeline_state(PipelineState(layout))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    ctx.ia_set_vertex_buffers(0, [buf, extra], [SO_STRIDE, 4], [0, 0])
    ctx.begin_capture()
    ctx.draw_auto()
    cap = ctx.end_capture()
    rows = cap.words.reshape(-1, record_words(cap.element_count))
    (r,) = cap.records
    rows = rows[r.capture_base:r.capture_base + r.keys.shape[0]]
    assert rows[:9, 0].tolist() == [1] * 9 and not rows[9:, 0].any()
    h = CAPTURE_HEADER_WORDS
    for k in range(9):
        want = [0x100 + k, 0, 0, 1] if k < 5 else [0, 0, 0, 1]
        assert rows[k, h + 4:h + 8].tolist() == want, k


def test_draw_auto_with_a_buffer_never_an_so_target(gpu_device):
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(READBACK_LAYOUT))
    ctx.ia_set_primitive_topology("POINTLIST")
    vb = gpu_device.create_buffer(bytes(96), bind=("vertex_buffer",))
    ctx.ia_set_vertex_buffers(0, [vb], [SO_STRIDE], [0])
    with pytest.raises(InvalidDescError, match="Stream Output"):
        ctx.draw_auto()
    ctx.ia_set_vertex_buffers(0, [None])
    with pytest.raises(InvalidDescError):
        ctx.draw_auto()


def test_so_target_bound_in_the_ia_is_null_with_a_warning(gpu_device):
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(READBACK_LAYOUT))
    ctx.ia_set_primitive_topology("POINTLIST")
    data = (f32(1, 2, 3, 4) + u32(9) + u32(0)) * 4
    buf = gpu_device.create_buffer(data, bind=("stream_output", "vertex_buffer"))
    ctx.so_set_targets([StreamOutputBufferView(buf)])
    with pytest.warns(UserWarning, match="Stream Output"):
        ctx.ia_set_vertex_buffers(0, [buf], [SO_STRIDE], [0])
    with pytest.raises(InvalidDescError):  # IA slot 0 is NULL: nothing for DrawAuto
        ctx.draw_auto()
    ctx.begin_capture()
    ctx.draw_instanced(2)
    cap = ctx.end_capture()
    words = cap.words.reshape(-1, record_words(cap.element_count))[:2]
    assert words[:, 0].tolist() == [1, 1]
    # An unbound slot reads 0 in all four components, no (0, 0, 0, 1) default (6.2).
    assert not words[:, CAPTURE_HEADER_WORDS:].any(), words


def test_so_set_targets_unbinds_the_buffer_from_the_ia_with_a_warning(gpu_device):
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(READBACK_LAYOUT))
    ctx.ia_set_primitive_topology("POINTLIST")
    data = (f32(1, 2, 3, 4) + u32(9) + u32(0)) * 4
    buf = gpu_device.create_buffer(data, bind=("stream_output", "vertex_buffer"))
    ctx.ia_set_vertex_buffers(0, [buf], [SO_STRIDE], [0])
    with pytest.warns(UserWarning, match="Stream Output"):
        ctx.so_set_targets([StreamOutputBufferView(buf)])
    ctx.begin_capture()
    ctx.draw_instanced(1)
    cap = ctx.end_capture()
    row = cap.words.reshape(-1, record_words(cap.element_count))[0]
    assert row[0] == 1 and not row[CAPTURE_HEADER_WORDS:].any(), row


# -- bad input -------------------------------------------------------------------------------------

def test_so_set_targets_bad_input_then_still_works(gpu_device):
    ctx = _rec_context(gpu_device)
    good = gpu_device.create_buffer(bytes([GUARD]) * 48, bind=("stream_output",))
    vb_only = gpu_device.create_buffer(bytes(48), bind=("vertex_buffer",))
    with pytest.raises(InvalidDescError, match="stream_output"):
        ctx.so_set_targets([StreamOutputBufferView(vb_only)])
    with pytest.raises(InvalidDescError, match="BufferLocation"):
        ctx.so_set_targets([StreamOutputBufferView(good, 40, offset=2)])
    with pytest.raises(InvalidDescError):
        ctx.so_set_targets([StreamOutputBufferView(good)] * 5)
    with pytest.raises(InvalidDescError):
        ctx.so_set_targets([StreamOutputBufferView(good)], [6])  # not a multiple of 4
    with pytest.raises(InvalidDescError):
        ctx.so_set_targets([StreamOutputBufferView(good)], [])  # one offset per view
    with pytest.raises(InvalidDescError):
        ctx.so_set_targets([good])  # a buffer, not a view
    with pytest.raises(InvalidDescError):
        ctx.so_set_targets([StreamOutputBufferView(good, 40, offset=8, filled_size_buffer=good,
                                                   filled_size_offset=2)])
    with pytest.raises(InvalidDescError):
        ctx.so_set_targets([StreamOutputBufferView(good, 40, offset=8, filled_size_buffer=good,
                                                   filled_size_offset=48)])
    with pytest.raises(InvalidDescError):
        StreamOutputBufferView(good, 64)  # past the end of the 48-byte buffer
    with pytest.raises(InvalidDescError):
        ctx.so_filled_size(0)  # nothing was bound
    # No abort, and the context still works.
    ctx.so_set_targets([StreamOutputBufferView(good)], [4])
    ctx.draw_instanced(2, 1, 1)
    assert read(ctx, good) == guarded(48, {4: rec(1, 0) + rec(2, 1)})
    assert ctx.so_filled_size(0) == 28
    assert ctx.so_statistics() == _stats(2, 2)


def test_pipeline_state_with_a_bad_declaration(gpu_device):
    ctx = Context(gpu_device)
    bad = StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=2,
                                               start_component=3),))
    with pytest.raises(InvalidDescError, match="8.2"):
        ctx.set_pipeline_state(PipelineState(POS2_LAYOUT, stream_output=bad))


# -- targets larger than one storage binding --------------------------------------------------

def test_targets_larger_than_a_storage_binding_are_written_in_chunks(gpu_device):
    """A device copy whose storage bindings hold 1024 bytes: 1000 points into two slots (strides
    24 and 12, a gap, an initial filled size) need many windows of each target; the buffers,
    filled sizes and statistics equal the reference, and a second draw appends."""
    import copy
    import dataclasses

    small = copy.copy(gpu_device)
    small.caps = dataclasses.replace(gpu_device.caps, max_storage_buffer_binding_size=1024,
                                     min_storage_buffer_offset_alignment=256)
    n = 1000
    positions = [float(v) for v in range(2 * n)]
    case = load_case({
        "gpuia_case": 1, "name": "chunked",
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 8, "data": {"dtype": "float32",
                                                              "values": positions[:200]}}],
        "primitive_topology": "POINTLIST",
        "draw": [{"DrawInstanced": {"VertexCountPerInstance": n, "InstanceCount": 1,
                                    "StartVertexLocation": 0, "StartInstanceLocation": 0}},
                 {"DrawInstanced": {"VertexCountPerInstance": 7, "InstanceCount": 1,
                                    "StartVertexLocation": 3, "StartInstanceLocation": 0}}],
        "stream_output": {
            "declaration": [{"SemanticName": "POSITION", "ComponentCount": 4, "OutputSlot": 0},
                            {"SemanticName": None, "ComponentCount": 2, "OutputSlot": 0},
                            {"SemanticName": "SV_VertexID", "ComponentCount": 1, "OutputSlot": 1},
                            {"SemanticName": None, "ComponentCount": 1, "OutputSlot": 1},
                            {"SemanticName": "SV_InstanceID", "ComponentCount": 1,
                             "OutputSlot": 1}],
            "buffer_strides": [24, 12],
            "targets": [{"slot": 0, "size": 24 * 1010 + 8, "filled_size": 8,
                         "data": {"hex": "ab" * (24 * 1010 + 8)}},
                        {"slot": 1, "size": 12 * 1200}]}})
    ref = reference_so(case, reference_ia(case))
    got = run_case_so_gpu(case, small)
    assert compare_so(ref, got) == []
    assert got.statistics == {"NumPrimitivesWritten": 1007, "PrimitivesStorageNeeded": 1007}


def test_whole_vec4_records_at_aligned_and_unaligned_starts(gpu_device):
    """Stride 16, one 4-component entry: a record starting on a 16-byte boundary is written
    whole, one starting 4 or 8 bytes past one word by word, to the same bytes (rules 9.6: the
    record goes at BufferLocation + BufferFilledSize), the bytes around it untouched."""
    layout = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}])
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=4),),
                            (16,))
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(layout, stream_output=desc))
    ctx.ia_set_primitive_topology("POINTLIST")
    vertices = [f32(k, k + 0.5, -k, 7) for k in range(4)]
    ctx.ia_set_vertex_buffers(0, [gpu_device.create_buffer(b"".join(vertices))], [16], [0])
    buf = gpu_device.create_buffer(bytes([GUARD]) * 128, bind=("stream_output",))
    for location, filled in ((0, 4), (0, 16), (8, 0), (16, 32)):
        ctx.so_set_targets([StreamOutputBufferView(buf, 128 - location, offset=location)],
                           [filled])
        buf.write(bytes([GUARD]) * 128)
        ctx.draw_instanced(3, 1, 1)
        at = location + filled
        assert read(ctx, buf) == guarded(128, {at: b"".join(vertices[1:4])}), (location, filled)
        assert ctx.so_filled_size(0) == filled + 48


def test_a_target_over_the_adapters_own_binding_limit_is_written_in_chunks(gpu_device):
    """Regression: the whole-target bind group was made before the chunked route was chosen, so
    a target over the adapter's real storage-binding limit (not a lowered copy of the caps) was
    refused by wgpu. Four points straddling the limit land whole; the 16 bytes on either side
    stay zero (a new buffer is zero-filled); BufferFilledSize advances by 64."""
    edge = gpu_device.caps.max_storage_buffer_binding_size // 16 * 16
    size = edge + 64
    assert size <= gpu_device.caps.max_buffer_size
    words = np.arange(1, 17, dtype="<u4")  # four R32G32B32A32_UINT points: 1..4, 5..8, ...
    ctx = so_points_context(gpu_device, "R32G32B32A32_UINT", 4, [VertexBufferView(
        gpu_device.create_buffer(words, bind=("vertex_buffer",)), 16)])
    target = gpu_device.create_buffer(size=size, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, size)], [edge - 32])
    ctx.draw_instanced(4)
    ctx.flush()
    got = np.frombuffer(gpu_device.device.queue.read_buffer(target.wgpu, edge - 48, 96), "<u4")
    assert got.tolist() == [0] * 4 + list(range(1, 17)) + [0] * 4
    assert ctx.so_filled_size(0) == edge + 32
    assert ctx.so_statistics() == {"NumPrimitivesWritten": 4, "PrimitivesStorageNeeded": 4}


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


# -- the fused pass: one dispatch where the host knows the counters -------------------------------

STRIP_LAYOUT = POS2_LAYOUT


def _fused_scenario(dev, d3d12: bool):
    """One sequence of Stream Output draws with D3D11-style targets (gpuia's own counters,
    set with offsets: the host knows them, so draws in the closed-form order are fused) or
    with D3D12 views over counter buffers of the test's own (the GPU's prepare step). Two
    declared slots; instanced, indexed and list-order draws; appending, an unbound slot, an
    overflow, SOSetTargets clearing it. Returns everything observable, and the context's
    ``so_draws``."""
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION", component_count=2),
                             SODeclarationEntry(semantic_name="SV_VertexID", component_count=1,
                                                output_slot=1)), (8, 4))
    ctx = _rec_context(dev, desc, topology="TRIANGLESTRIP")
    a = dev.create_buffer(bytes([GUARD]) * 200, bind=("stream_output",))
    b = dev.create_buffer(bytes([GUARD]) * 96, bind=("stream_output",))
    counters = dev.create_buffer(u32(8, 4, 0, 0), bind=("stream_output",))

    def bind(first, second, offsets):
        if d3d12:
            views = [StreamOutputBufferView(a, filled_size_buffer=counters, filled_size_offset=0),
                     StreamOutputBufferView(b, filled_size_buffer=counters, filled_size_offset=4)]
            views = [views[0] if first else None, views[1] if second else None]
            # D3D12 offsets are written into the application's counters, as D3D11's are
            ctx.so_set_targets(views, offsets)
        else:
            views = [StreamOutputBufferView(a) if first else None,
                     StreamOutputBufferView(b) if second else None]
            ctx.so_set_targets(views, offsets)

    got = []
    bind(True, True, [8, 4])
    ctx.draw_instanced(4, 2, 1)  # 2 triangles per instance, 2 instances
    got.append((ctx.so_filled_size(0), ctx.so_filled_size(1)))
    ib = dev.create_buffer(np.array([3, 1, 0xFFFF, 5, 6, 7], "<u2").tobytes(),
                           bind=("index_buffer",))
    ctx.ia_set_index_buffer(IndexBufferView(ib, "R16_UINT"))
    ctx.set_pipeline_state(PipelineState(POS2_LAYOUT, stream_output=desc,
                                         strip_cut_value=0xFFFF))
    ctx.draw_indexed_instanced(6)  # a cut: the list order (the index pass counts on the GPU)
    got.append((ctx.so_filled_size(0), ctx.so_filled_size(1)))
    bind(True, True, [-1, -1])  # append where the counters stand
    ctx.set_pipeline_state(PipelineState(POS2_LAYOUT, stream_output=desc))
    ctx.draw_indexed_instanced(3, 1, 3)  # no cut value: the closed form, indices read
    ctx.draw_instanced(9, 1, 2)  # overflows slot 1: nothing more is written
    ctx.draw_instanced(3)
    got.append((ctx.so_filled_size(0), ctx.so_filled_size(1)))
    bind(True, False, [0, 0])  # slot 1 unbound: full (9.8), clears the overflow
    ctx.draw_instanced(3)
    bind(True, True, [-1, 0])
    ctx.draw_instanced(3, 1, 5)
    got.append((ctx.so_filled_size(0), ctx.so_filled_size(1)))
    got.append(ctx.so_statistics())
    # the filled sizes and statistics read back, the flag cleared: the host knows all again
    bind(True, True, [-1, -1])
    ctx.draw_instanced(4)
    got.append(ctx.so_statistics())
    got += [read(ctx, a), read(ctx, b)]
    return got, ctx.stats()["so_draws"]


def test_fused_draws_write_what_the_gpus_prepare_step_writes(gpu_device):
    """The same draws with gpuia's own counters (fused where the host knows them) and with the
    application's counter buffers (always the GPU's prepare step): the same bytes, filled
    sizes and statistics, and each took the way the host's knowledge allows."""
    fused, fused_draws = _fused_scenario(gpu_device, d3d12=False)
    prepared, prepared_draws = _fused_scenario(gpu_device, d3d12=True)
    assert fused == prepared
    assert prepared_draws == {"fused": 0, "prepared": 8}
    # the list-order draw's counts are the GPU's: it and the draws after it are prepared on
    # the GPU until the statistics and filled sizes are read back and the flag cleared
    assert fused_draws == {"fused": 2, "prepared": 6}
    # hand-checked fragments: the first draw's 4 triangles of slot 0 from byte 8
    assert fused[0] == (8 + 4 * 3 * 8, 4 + 4 * 3 * 4)
    assert fused[-3]["PrimitivesStorageNeeded"] > fused[-3]["NumPrimitivesWritten"]


# -- targets: other slots, refused views, bind groups, 32-bit offsets ------------------------------

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


def test_rejected_so_targets_change_nothing(gpu_device):
    ctx = Context(gpu_device)
    buf = gpu_device.create_buffer(np.zeros(16, np.uint8), bind=("stream_output",))
    view = StreamOutputBufferView(buf, 16)
    with pytest.raises(InvalidDescError):
        ctx.so_set_targets([view, view], [0, 6])  # slot 1's offset is not a multiple of 4
    assert buf.host is not None
    stats = ctx.stats()
    assert stats["so_counters"] == 0 and stats["bound"]["so_targets"] == []


def test_so_bind_groups_follow_the_index_buffer_of_each_draw(gpu_device):
    """The SO bind groups are reused across draws only while they bind the same buffers: two
    indexed draws, each with its own index buffer, stream their own vertices in order."""
    ctx = so_points_context(gpu_device, "R32_UINT", 1, [VertexBufferView(
        gpu_device.create_buffer(np.array([10, 20, 30, 40], "<u4"), bind=("vertex_buffer",)), 4)])
    target = gpu_device.create_buffer(size=32, bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(target, 32)])
    for indices in ([0, 1], [3, 2], [1, 1]):
        ib = gpu_device.create_buffer(np.array(indices, "<u4"), bind=("index_buffer",))
        ctx.ia_set_index_buffer(IndexBufferView(ib, "R32_UINT", 0, 8))
        ctx.draw_indexed_instanced(2)
    ctx.flush()
    assert np.frombuffer(target.read(), "<u4").tolist() == [10, 20, 40, 30, 20, 20, 0, 0]


def test_so_offsets_past_the_32_bit_counter_are_refused(gpu_device):
    """A D3D11-style SO offset of 2**32 raised OverflowError deep in gpuia (found next to the
    fuzzer's filled_size case); the counter is 32-bit (rules 9.6)."""
    ctx = Context(gpu_device)
    t = gpu_device.create_buffer(size=64, bind="stream_output")
    with pytest.raises(InvalidDescError, match="32-bit counter"):
        ctx.so_set_targets([StreamOutputBufferView(t, 64)], [2**32])
    ctx.so_set_targets([StreamOutputBufferView(t, 64)], [8])
    assert ctx.so_filled_size(0) == 8
