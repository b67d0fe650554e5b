"""GPU draws against the CPU reference: indexed draws, strip cuts, draw lists, slots, what a
capture reads, fetch at the edges (stride 0, 32-bit starts and counters, buffers over a binding),
the pipeline cache and the D3D-style Context API.

Each case runs through ``run_case_gpu`` with a forced path and is compared with ``reference_ia``
(``compare`` checks every element, SV_VertexID, SV_InstanceID and that every invocation was
delivered). Where gpuia's plan cannot do a draw natively, forcing ``native`` must raise
:class:`UnsupportedError` (with the reason) and only the pulling path runs. The expected native
decision is computed here from the rules in ``gpuia.gpu.vertex.plan``, not taken from it.

The indexed matrix: R16/R32 indices x strip cut (DISABLED, 0xFFFF, 0xFFFFFFFF) x topology
(TRIANGLELIST, TRIANGLESTRIP, LINESTRIP, POINTLIST, TRIANGLESTRIP_ADJ) x BaseVertexLocation
(0, 5, -3) x both paths; each case is a list of four draws (StartIndexLocation 0/3 x
StartInstanceLocation 0/2, InstanceCount 3). The indices hold both cut values, repeated and
adjacent cuts, and 0xFFFF/0xFFFFFFFF as ordinary indices where nothing cuts. The vertex buffer
has 0x10008 vertices so that 0xFFFF + BaseVertexLocation is still in bounds, and
0xFFFFFFFF + 5 wraps (32-bit) to vertex 4.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from gpuia import (
    DrawInstanced,
    IndexBufferView,
    InputLayout,
    StreamOutputBufferView,
    VertexBufferView,
    run_ia,
)
from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.gpu import Context, Device, IndexMode, PipelineState
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare, compare_so, comparison_table
from gpuia.harness.run import reference_ia, reference_so
from gpuia.harness.run_gpu import run_case_gpu, run_case_so_gpu
from gpuia.wgsl.program import CAPTURE_HEADER_WORDS, record_words
from helpers import check_gpu, pulled_form_device, so_points_context

U32 = 0xFFFFFFFF
NVERT = 0x10008
INSTANCE_ELEMENTS = 8


def _b64(data) -> dict:
    return {"base64": base64.b64encode(bytes(data)).decode()}


def _vertex_data() -> bytes:
    """Vertex k: R32_UINT 0x01000000 + k (never 0, so an out-of-bounds read shows)."""
    return (np.arange(NVERT, dtype=np.uint32) + 0x01000000).astype("<u4").tobytes()


def _instance_data() -> bytes:
    """Instance element k: R32G32_FLOAT (k + 0.5, -k - 0.25)."""
    k = np.arange(INSTANCE_ELEMENTS, dtype=np.float32)
    return np.stack([k + 0.5, -k - 0.25], axis=1).astype("<f4").tobytes()


VERTEX_DATA = _b64(_vertex_data())
INSTANCE_DATA = _b64(_instance_data())

LAYOUT = [
    {"SemanticName": "VERTEXNUMBER", "Format": "R32_UINT", "InputSlot": 0},
    {"SemanticName": "INSTANCEDATA", "Format": "R32G32_FLOAT", "InputSlot": 1,
     "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1},
]
BUFFERS = [
    {"slot": 0, "stride": 4, "data": VERTEX_DATA},
    {"slot": 1, "stride": 8, "data": INSTANCE_DATA},
]

INDICES = {
    # 16 entries; a draw reads 12 from StartIndexLocation 0 or 3
    "R16_UINT": [3, 4, 5, 0xFFFF, 6, 7, 8, 9, 0xFFFF, 0xFFFF, 10, 11, 12, 13, 0xFFFF, 15],
    "R32_UINT": [3, 4, 5, 0xFFFF, 6, 7, 8, U32, 9, 10, U32, U32, 11, 0xFFFF, 12, 13],
}
CUTS = {"DISABLED": None, "0xFFFF": 0xFFFF, "0xFFFFFFFF": U32}
TOPOLOGIES = {  # name: is a strip (D3D12 cuts only strips, rules 5.2)
    "TRIANGLELIST": False, "TRIANGLESTRIP": True, "LINESTRIP": True, "POINTLIST": False,
    "TRIANGLESTRIP_ADJ": True,
}
BASE_VERTEX = {"zero": 0, "positive": 5, "negative": -3}
INDEX_COUNT = 12
START_INDEX = (0, 3)
START_INSTANCE = (0, 2)


def indexed_case(fmt: str, cut: str, topology: str, base: int) -> tuple[dict, bool]:
    """The case of one matrix cell and whether the native path can draw it exactly (every
    delivered index's fetch ``(base + index) mod 2**32`` inside the vertex buffer)."""
    dtype = {"R16_UINT": "<u2", "R32_UINT": "<u4"}[fmt]
    draws = [{"DrawIndexedInstanced": {"IndexCountPerInstance": INDEX_COUNT, "InstanceCount": 3,
                                       "StartIndexLocation": si, "BaseVertexLocation": base,
                                       "StartInstanceLocation": st}}
             for si in START_INDEX for st in START_INSTANCE]
    native = True
    cut_value = CUTS[cut] if TOPOLOGIES[topology] else None
    for si in START_INDEX:
        for index in INDICES[fmt][si:si + INDEX_COUNT]:
            if index != cut_value:
                native &= (base + index) % (1 << 32) < NVERT
    case = {
        "gpuia_case": 1, "name": f"indexed-{fmt}-{cut}-{topology}-{base}",
        "input_layout": LAYOUT, "vertex_buffers": BUFFERS,
        "index_buffer": {"format": fmt,
                         "data": _b64(np.array(INDICES[fmt], dtype=dtype).tobytes())},
        "strip_cut_value": cut, "primitive_topology": topology, "draw": draws,
    }
    return case, native


def check_native_refused(case_dict, device, words: str, context=None):
    case = load_case(case_dict)
    with pytest.raises(UnsupportedError, match="native path cannot") as info:
        run_case_gpu(case, device, "native", reference_ia(case), context=context)
    assert words in str(info.value), str(info.value)


# -- the indexed matrix ---------------------------------------------------------------------------

@pytest.mark.parametrize("base", list(BASE_VERTEX))
@pytest.mark.parametrize("topology", list(TOPOLOGIES))
@pytest.mark.parametrize("cut", list(CUTS))
@pytest.mark.parametrize("fmt", list(INDICES))
@pytest.mark.parametrize("path", ["native", "pulling"])
def test_indexed_matrix(ctx, gpu_device, path, fmt, cut, topology, base):
    case, native = indexed_case(fmt, cut, topology, BASE_VERTEX[base])
    if path == "native" and not native:
        check_native_refused(case, gpu_device, "past the view", ctx)
        return
    ref = check_gpu(case, gpu_device, path, ctx).ref
    # The reference itself: cut positions deliver nothing, the rest deliver their raw index.
    cut_value = CUTS[cut] if TOPOLOGIES[topology] else None
    for d, (si, _) in enumerate([(si, st) for si in START_INDEX for st in START_INSTANCE]):
        window = INDICES[fmt][si:si + INDEX_COUNT]
        kept = [i for i in window if i != cut_value]
        sel = ref.draw == d
        assert ref.vertex_id[sel].tolist() == kept * 3
        assert ref.instance[sel].tolist() == [k for k in range(3) for _ in kept]


def test_indexed_matrix_has_both_outcomes():
    cells = [indexed_case(f, c, t, b)[1] for f in INDICES for c in CUTS for t in TOPOLOGIES
             for b in BASE_VERTEX.values()]
    assert 0 < sum(cells) < len(cells)
    # 0xFFFFFFFF + 5 wraps to vertex 4: a native draw that relies on 32-bit wrapping
    assert indexed_case("R32_UINT", "DISABLED", "POINTLIST", 5)[1]
    assert not indexed_case("R32_UINT", "DISABLED", "POINTLIST", 0)[1]


# -- index buffer edge cases ----------------------------------------------------------------------

def _index_case(name, index_buffer, draws, topology="TRIANGLESTRIP", cut="0xFFFF"):
    return {"gpuia_case": 1, "name": name, "input_layout": LAYOUT, "vertex_buffers": BUFFERS,
            "index_buffer": index_buffer, "strip_cut_value": cut, "primitive_topology": topology,
            "draw": draws}


def _indexed(count, start_index=0, base=0, instances=2, start_instance=1):
    return {"DrawIndexedInstanced": {"IndexCountPerInstance": count, "InstanceCount": instances,
                                     "StartIndexLocation": start_index,
                                     "BaseVertexLocation": base,
                                     "StartInstanceLocation": start_instance}}


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_index_reads_past_the_view_read_zero(ctx, gpu_device, path):
    """The view holds 5 R16 indices (SizeInBytes 10 of a 32-byte buffer); draws read up to 12:
    the rest read 0, i.e. vertex BaseVertexLocation (rules 5.6)."""
    data = np.array([7, 8, 9, 10, 11, 0xFFFF, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29], "<u2")
    case = _index_case("index-past-view", {"format": "R16_UINT", "size": 10,
                                           "data": _b64(data.tobytes())},
                       [_indexed(12), _indexed(8, start_index=3, base=5),
                        _indexed(4, start_index=6)])
    ref = check_gpu(case, gpu_device, path, ctx).ref
    first = ref.vertex_id[ref.draw == 0][:12].tolist()
    assert first == [7, 8, 9, 10, 11] + [0] * 7  # the 0xFFFF past the view is no cut
    assert ref.vertex_id[ref.draw == 2].tolist() == [0] * 8


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_index_view_with_offset_and_size(ctx, gpu_device, path):
    """An R32 view starting 4 bytes into its buffer and ending 4 bytes before its end."""
    values = np.array([0, 1, 2, 3, U32, 4, 5, 6, 7], "<u4")
    raw = b"\xaa\xbb\xcc\xdd" + values.tobytes() + b"\xcc\xdd\xee\xff"
    case = _index_case("index-offset-view", {"format": "R32_UINT", "offset": 4,
                                             "size": values.nbytes, "data": _b64(raw)},
                       [_indexed(9), _indexed(6, start_index=2, base=3)], cut="0xFFFFFFFF")
    ref = check_gpu(case, gpu_device, path, ctx).ref
    assert ref.vertex_id[ref.draw == 0][:8].tolist() == [0, 1, 2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("fmt, offset", [("R32_UINT", 2), ("R16_UINT", 1), ("R32_UINT", 6)])
def test_index_view_offset_off_the_index_size_is_refused(fmt, offset):
    """An index view must start at a multiple of its index size (rules 7.4): refused when
    the case is read, naming the field, the value and the rule."""
    with pytest.raises(InvalidDescError, match=rf"offset={offset}: .*rules 7\.4"):
        load_case(_index_case("index-unaligned-view", {"format": fmt, "offset": offset,
                                                       "data": _b64(bytes(16))}, [_indexed(2)]))


@pytest.mark.parametrize("fmt", ["R16_UINT", "R32_UINT"])
@pytest.mark.parametrize("path", ["native", "pulling"])
def test_null_index_buffer_reads_zero(ctx, gpu_device, path, fmt):
    """A NULL index buffer view: every index reads 0 (rules 5.5), in every draw."""
    case = _index_case("null-index-buffer", {"format": fmt, "data": None},
                       [_indexed(4), _indexed(3, start_index=100, base=9, instances=3)],
                       topology="TRIANGLELIST", cut="DISABLED")
    _, ref, res, _ = check_gpu(case, gpu_device, path, ctx)
    assert ref.vertex_id.tolist() == [0] * (4 * 2 + 3 * 3)
    assert res.ia.vertex_id.tolist() == [0] * (4 * 2 + 3 * 3)


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_mixed_draw_list(ctx, gpu_device, path):
    """Non-indexed and indexed draws in one case: ids restart per draw (rules 4.5, 4.6)."""
    data = np.array([9, 8, 7, 0xFFFF, 6, 5, 4, 3], "<u2")
    draws = [
        {"DrawInstanced": {"VertexCountPerInstance": 5, "InstanceCount": 2,
                           "StartVertexLocation": 10, "StartInstanceLocation": 3}},
        _indexed(8, base=100, instances=3, start_instance=0),
        {"DrawInstanced": {"VertexCountPerInstance": 3, "InstanceCount": 1,
                           "StartVertexLocation": 0, "StartInstanceLocation": 7}},
        _indexed(5, start_index=2, base=-2, instances=2, start_instance=5),
    ]
    case = _index_case("mixed-draws", {"format": "R16_UINT", "data": _b64(data.tobytes())}, draws,
                       topology="LINESTRIP")
    ref = check_gpu(case, gpu_device, path, ctx).ref
    assert ref.vertex_id[ref.draw == 0].tolist() == [0, 1, 2, 3, 4] * 2
    assert ref.instance[ref.draw == 0].tolist() == [0] * 5 + [1] * 5
    assert ref.vertex_id[ref.draw == 1].tolist() == [9, 8, 7, 6, 5, 4, 3] * 3


# -- slots and elements beyond the adapter's limits ----------------------------------------------

def _slot_case(name, slots, formats=("R32G32_FLOAT",), per_slot=1, vertices=4, bind=None):
    """``per_slot`` elements per slot s (semantic ``SLOT<s>X<k>``, format
    ``formats[(s + k) % len]``, appended), random bytes per slot, stride 32. ``bind``: slot ->
    buffer entry replacing the slot's own (``{"data": None}`` binds NULL)."""
    rng = np.random.default_rng(len(slots) * 31 + per_slot)
    layout, buffers = [], []
    for s in slots:
        for k in range(per_slot):
            layout.append({"SemanticName": f"SLOT{s}X", "SemanticIndex": k,
                           "Format": formats[(s + k) % len(formats)], "InputSlot": s,
                           "AlignedByteOffset": "APPEND_ALIGNED_ELEMENT"})
        data = rng.integers(0, 256, 32 * vertices, dtype=np.uint8).tobytes()
        buffers.append({"slot": s, **(bind or {}).get(s, {"stride": 32, "data": _b64(data)})})
    return {"gpuia_case": 1, "name": name, "input_layout": layout, "vertex_buffers": buffers,
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": vertices, "InstanceCount": 2,
                                       "StartVertexLocation": 0, "StartInstanceLocation": 0}}}


def test_slots_beyond_vertex_buffer_count(ctx, gpu_device):
    """Slots 0..19 all used: more than the adapter's vertex buffers, so no native path (with a
    reason naming vertex buffers); the pulling path matches."""
    n = gpu_device.caps.max_vertex_buffers + 4
    case = _slot_case("slots-0-19", list(range(n)), ("R32G32_FLOAT", "R8G8B8A8_UNORM", "R16_SINT"))
    check_native_refused(case, gpu_device, "vertex buffers", ctx)
    check_gpu(case, gpu_device, "pulling", ctx)


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_sparse_slots_up_to_31(ctx, gpu_device, path):
    """Four slots spread over 0..31: WebGPU's slots are compacted, so native works too."""
    case = _slot_case("sparse-slots", [0, 9, 17, 31], ("R32G32B32A32_UINT", "R16G16_FLOAT"), 2)
    check_gpu(case, gpu_device, path, ctx)


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_32_elements_in_16_slots(ctx, gpu_device, path):
    """The D3D12 maximum of 32 elements (2 per slot in 16 slots): both paths within an
    adapter's 32 vertex attributes (lavapipe); with fewer (llvmpipe's OpenGL has 16) the native
    path is refused naming them and the pulling path still matches."""
    assert gpu_device.caps.max_vertex_buffers >= 16
    case = _slot_case("32-elements", list(range(16)), ("R32_FLOAT", "R16G16_SINT", "R8G8_UINT"), 2)
    assert len(case["input_layout"]) == 32
    if path == "native" and gpu_device.caps.max_vertex_attributes < 32:
        check_native_refused(case, gpu_device, "vertex attributes", ctx)
        return
    check_gpu(case, gpu_device, path, ctx)


def test_elements_beyond_max_vertex_attributes(gpu_device):
    """An adapter with 16 vertex attributes (llvmpipe's GL limit), emulated by a copy of the
    device with that limit: 20 elements cannot go native (a reason naming vertex attributes),
    the pulling path matches."""
    dev16 = copy.copy(gpu_device)
    dev16.caps = dataclasses.replace(gpu_device.caps, max_vertex_attributes=16)
    case = _slot_case("20-elements", list(range(10)), ("R32_UINT", "R16G16B16A16_FLOAT"), 2)
    assert len(case["input_layout"]) == 20
    check_native_refused(case, dev16, "vertex attributes")
    check_gpu(case, dev16, "pulling")
    # the real device takes the same case natively where it has the attributes
    if gpu_device.caps.max_vertex_attributes >= 20:
        check_gpu(case, gpu_device, "native")
    else:
        check_native_refused(case, gpu_device, "vertex attributes")


def test_all_32_slots_with_capture_use_an_arena(gpu_device):
    """32 slots (D3D's maximum) plus the capture's 3 storage buffers exceed lavapipe's 32 per
    stage: the views are copied into one arena buffer per draw and the capture still matches
    (unaligned views included: slot 5 starts at byte 3, slot 9 has stride 7)."""
    case = _slot_case("slots-0-31", list(range(32)), ("R32G32_FLOAT", "R8G8B8A8_UNORM",
                                                      "R16_SINT", "R11G11B10_FLOAT"))
    case["vertex_buffers"][5]["offset"] = 3
    case["vertex_buffers"][9]["stride"] = 7
    c = load_case(case)
    ref = reference_ia(c)
    res = run_case_gpu(c, gpu_device, "pulling", ref)
    cmp = compare(ref, res, c.layout)
    assert cmp.ok, comparison_table(ref, res, cmp, only_differences=True)
    if 32 + 3 > gpu_device.caps.max_storage_buffers_per_shader_stage:
        assert res.plans[0].path == "pulling"


def test_arena_when_the_adapter_has_few_storage_buffers(gpu_device):
    """Device copies with few storage buffers per stage: 6 slots are pulled from one arena;
    capture (3 storage buffers + the arena, limit 4) and Stream Output (limit 8: the arena,
    one target, one counter and 3 of gpuia's) match the reference."""
    dev4 = copy.copy(gpu_device)
    dev4.caps = dataclasses.replace(gpu_device.caps, max_storage_buffers_per_shader_stage=4)
    dev8 = copy.copy(gpu_device)
    dev8.caps = dataclasses.replace(gpu_device.caps, max_storage_buffers_per_shader_stage=8)
    case = _slot_case("arena-6-slots", list(range(6)), ("R32G32_FLOAT", "R16G16B16A16_UNORM",
                                                        "R8_SINT"))
    case["vertex_buffers"][2]["offset"] = 1
    check_gpu(case, dev4, "pulling")
    case["stream_output"] = {"declaration": [{"SemanticName": f"SLOT{s}X", "ComponentCount": 2,
                                              "OutputSlot": 0} for s in range(6)],
                             "targets": [{"slot": 0, "size": 4096}]}
    c = load_case(case)
    from gpuia.harness.compare import compare_so
    from gpuia.harness.run import reference_so
    from gpuia.harness.run_gpu import run_case_so_gpu

    assert compare_so(reference_so(c, reference_ia(c)), run_case_so_gpu(c, dev8)) == []


def _unbound_case():
    case = _slot_case("unbound-slots", [0, 1, 2], ("R32G32_FLOAT", "R8G8B8A8_SINT", "R16_UNORM"), 2,
                      bind={1: {"data": None}})
    case["vertex_buffers"] = [b for b in case["vertex_buffers"] if b["slot"] != 2]
    return case


def test_unbound_slots_read_zero(gpu_device):
    """A slot bound to NULL and a slot with no entry read 0 in all four components, w included
    (rules 6.2): only the pulling path can do that."""
    case = _unbound_case()
    check_native_refused(case, gpu_device, "unbound")
    _, ref, res, _ = check_gpu(case, gpu_device, "pulling")
    for key in ("SLOT1X0", "SLOT1X1", "SLOT2X0", "SLOT2X1"):
        assert not res.ia.inputs[key].bits.any() and not ref.inputs[key].bits.any()
    assert res.ia.inputs["SLOT0X0"].bits.any()


RUN_CASE_LEAKS_BINDINGS = (
    "run_case_gpu(case, device, path, ref, context=ctx) binds only slots 0..max(case slots) on "
    "the given context, so a slot the layout uses but the case leaves out (unbound per the case "
    "format) keeps whatever an earlier case bound there: the GPU reads that old buffer where "
    "D3D and the reference read zeros")


def test_unbound_slots_read_zero_on_a_reused_context(gpu_device):
    """The same case on a context that drew another case with slot 2 bound before."""
    ctx = Context(gpu_device)
    other = _slot_case("slot-2-bound", [0, 1, 2], ("R32G32_FLOAT", "R8G8B8A8_SINT", "R16_UNORM"), 2)
    check_gpu(other, gpu_device, "pulling", ctx)
    check_gpu(_unbound_case(), gpu_device, "pulling", ctx)


# -- capture on a reused context -----------------------------------------------------------------

def test_second_capture_on_a_context_binds_its_own_buffers(gpu_device):
    """Capture bind groups name the capture's buffers. Were one kept past its capture under
    the buffer's id(), the next capture's buffer could get the freed one's id (CPython reuses
    addresses), its draws would write into the old buffer and every invocation would read as
    not delivered (seen once in five runs of a reused context). None is kept: after each
    capture the context holds no capture bind group, and the next capture delivers."""
    ctx = Context(gpu_device)
    for case in (indexed_case("R16_UINT", "0xFFFF", "TRIANGLESTRIP", 0)[0],
                 indexed_case("R32_UINT", "DISABLED", "POINTLIST", 5)[0]):
        check_gpu(case, gpu_device, "pulling", ctx)
        assert ctx.stats()["capture_bind_groups"] == 0


def test_many_captures_on_a_fresh_context_each(gpu_device, shared_pipelines):
    """The same two cases, each on its own context (sharing pipelines): always delivered."""
    for k in range(6):
        ctx = Context(gpu_device)
        ctx.cache = shared_pipelines
        fmt, cut = (("R16_UINT", "0xFFFF"), ("R32_UINT", "0xFFFFFFFF"))[k % 2]
        case, native = indexed_case(fmt, cut, "TRIANGLESTRIP", 0)
        assert native
        check_gpu(case, gpu_device, ("native", "pulling")[k // 3], ctx)


# -- what a capture reads --------------------------------------------------------------------------

def _ctx(dev, layout=({"SemanticName": "A", "Format": "R32_UINT"},)):
    """A Context on ``dev`` drawing points of ``layout`` (one R32_UINT element ``A``)."""
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


# -- the pipeline cache ---------------------------------------------------------------------------

def _cache_setup(gpu_device):
    layout = InputLayout([
        {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT", "InputSlot": 0},
        {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "InputSlot": 0},
        {"SemanticName": "OFFSET", "Format": "R32G32_FLOAT", "InputSlot": 1,
         "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1},
    ])
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(layout))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    rng = np.random.default_rng(5)

    def buf(n):
        return gpu_device.create_buffer(rng.random(n // 4, dtype=np.float32).tobytes(),
                                        bind=("vertex_buffer",))
    return ctx, buf


def _stats(ctx):
    return ctx.cache.stats.pipelines, ctx.cache.stats.shader_modules


def test_pipeline_cache_native(gpu_device):
    ctx, buf = _cache_setup(gpu_device)
    ctx.set_path("native")
    ctx.ia_set_vertex_buffers(0, [buf(16 * 6), buf(8 * 2)], [16, 8], [0, 0])
    assert ctx.draw_instanced(6, 2).path == "native"
    ctx.flush()
    first = _stats(ctx)
    assert first[0] >= 1 and first[1] >= 1
    # other buffers, same strides: nothing new
    ctx.ia_set_vertex_buffers(0, [buf(16 * 6), buf(8 * 2)], [16, 8])
    assert ctx.draw_instanced(6, 2).path == "native"
    ctx.draw_instanced(3, 1, 3, 1)
    ctx.flush()
    assert _stats(ctx) == first
    # a different stride in slot 0: one new pipeline, the same shader module
    ctx.ia_set_vertex_buffers(0, [buf(20 * 6)], [20])
    assert ctx.draw_instanced(6, 2).path == "native"
    ctx.flush()
    assert _stats(ctx) == (first[0] + 1, first[1])
    # back to the first strides: found in the cache
    ctx.ia_set_vertex_buffers(0, [buf(16 * 6)], [16])
    ctx.draw_instanced(6, 2)
    ctx.flush()
    assert _stats(ctx) == (first[0] + 1, first[1])


def test_pipeline_cache_pulling(gpu_device):
    """Storage loads (forced: llvmpipe's own form for these aligned slots is vertex
    attributes, whose strides are baked into the pipeline as the native path's)."""
    ctx, buf = _cache_setup(pulled_form_device(gpu_device, "storage"))
    ctx.set_path("pulling")
    ctx.ia_set_vertex_buffers(0, [buf(16 * 6), buf(8 * 2)], [16, 8])
    assert ctx.draw_instanced(6, 2).path == "pulling"
    ctx.flush()
    first = _stats(ctx)
    ctx.ia_set_vertex_buffers(0, [buf(16 * 6), buf(8 * 2)], [16, 8])
    ctx.draw_instanced(6, 2)
    ctx.flush()
    assert _stats(ctx) == first
    # strides (and offsets) are per-draw uniforms on the pulling path: no new pipeline while
    # each slot keeps its alignment class (16-byte for slot 0, 4-byte for slot 1) ...
    ctx.ia_set_vertex_buffers(0, [buf(32 * 6 + 16), buf(24 * 2 + 8)], [32, 24], [16, 8])
    assert ctx.draw_instanced(5, 2).path == "pulling"
    ctx.flush()
    assert _stats(ctx) == first
    # ... and one more variant (two-word loads for slot 0) for unaligned bindings, whatever
    # their strides and offsets (gpuia.wgsl.program: alignment classes are part of the key).
    ctx.ia_set_vertex_buffers(0, [buf(7 * 6)], [7], [1])
    ctx.draw_instanced(5, 2)
    ctx.flush()
    unaligned = _stats(ctx)
    assert unaligned[0] == first[0] + 1 and unaligned[1] == first[1] + 1, (first, unaligned)
    ctx.ia_set_vertex_buffers(0, [buf(13 * 6)], [13], [3])
    ctx.draw_instanced(5, 2)
    ctx.flush()
    assert _stats(ctx) == unaligned


def test_pipeline_cache_pulling_attribute_form(gpu_device):
    """Slots read through vertex attributes bake their strides into the pipeline (WebGPU's
    array_stride), as native pipelines do: other buffers at the same strides create nothing,
    other strides one pipeline and no shader module (the program does not depend on them)."""
    ctx, buf = _cache_setup(pulled_form_device(gpu_device, "attributes"))
    ctx.set_path("pulling")
    ctx.ia_set_vertex_buffers(0, [buf(16 * 6), buf(8 * 2)], [16, 8])
    assert ctx.draw_instanced(6, 2).attributes == {0, 1}
    ctx.flush()
    first = _stats(ctx)
    ctx.ia_set_vertex_buffers(0, [buf(16 * 6), buf(8 * 2)], [16, 8])
    ctx.draw_instanced(6, 2)
    ctx.flush()
    assert _stats(ctx) == first
    ctx.ia_set_vertex_buffers(0, [buf(32 * 6 + 16), buf(24 * 2 + 8)], [32, 24], [16, 8])
    assert ctx.draw_instanced(5, 2).attributes == {0, 1}
    ctx.flush()
    assert _stats(ctx) == (first[0] + 1, first[1])


# -- the D3D-style Context API --------------------------------------------------------------------

def _decode_capture(cap, ref, first_draw=0):
    """The GPU's record of every invocation of ``ref`` (whose draw 0 is the capture's draw
    ``first_draw``), decoded from ``cap.words`` by the record layout of gpuia.wgsl.program: per
    record a written flag, SV_VertexID, SV_InstanceID, then 4 words per element; the records of
    a draw start at its capture_base, instance-major over the draw's sorted fetch keys."""
    words = cap.words.reshape(-1, record_words(cap.element_count))
    rows = []
    for d, inst, fetch in zip(ref.draw, ref.instance, ref.fetch_index, strict=True):
        r = cap.records[first_draw + int(d)]
        rank = int(np.searchsorted(r.keys, fetch))
        assert r.keys[rank] == fetch
        rows.append(words[r.capture_base + int(inst) * r.keys.shape[0] + rank])
    return np.array(rows, dtype=np.uint32).reshape(len(ref), -1)


def _assert_capture_matches(cap, ref, layout, first_draw=0):
    got = _decode_capture(cap, ref, first_draw)
    assert (got[:, 0] == 1).all(), "records not written"
    assert got[:, 1].tolist() == ref.vertex_id.tolist()
    assert got[:, 2].tolist() == ref.instance.tolist()
    for e in layout.elements:
        base = CAPTURE_HEADER_WORDS + 4 * e.index
        np.testing.assert_array_equal(got[:, base:base + 4], ref.inputs[e.key].bits,
                                      err_msg=e.key)


def _draw(vc, ic, sv, si):
    return {"DrawInstanced": {"VertexCountPerInstance": vc, "InstanceCount": ic,
                              "StartVertexLocation": sv, "StartInstanceLocation": si}}


def test_context_d3d_binding_forms(gpu_device):
    """IASetVertexBuffers in D3D11 form (buffers, strides, offsets) and D3D12 form (views),
    a NULL array ignored, None unbinding a slot, rebinding a subset leaving the others, a
    pipeline state change, all between draws of one capture (begin_capture / draw_instanced /
    draw_indexed_instanced / end_capture), decoded from ``cap.words`` by hand and checked
    against the reference run with the views each draw saw. (One capture: several captures on
    one context hit STALE_CAPTURE_BIND_GROUP now and then.)"""
    layout = InputLayout([
        {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT", "InputSlot": 0},
        {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "InputSlot": 1},
        {"SemanticName": "TEXCOORD", "Format": "R16G16_SNORM", "InputSlot": 2,
         "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1},
        {"SemanticName": "BLENDINDICES", "Format": "R8G8B8A8_UINT", "InputSlot": 3,
         "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 2},
    ])
    rng = np.random.default_rng(11)
    host = {name: rng.integers(0, 256, n, dtype=np.uint8)
            for name, n in [("pos", 12 * 16 + 4), ("col", 4 * 16 + 8), ("col2", 4 * 16),
                            ("tex", 4 * 8), ("blend", 4 * 8)]}
    gpu = {k: gpu_device.create_buffer(v.tobytes(), bind=("vertex_buffer",))
           for k, v in host.items()}
    indices = np.array([0, 1, 2, 0xFFFF, 3, 4, 5, 6], "<u2")
    ib = gpu_device.create_buffer(indices.tobytes(), bind=("index_buffer",))
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(layout))
    ctx.ia_set_primitive_topology("TRIANGLESTRIP")
    # D3D11 form for slots 0-1, D3D12 form for slots 2-3
    ctx.ia_set_vertex_buffers(0, [gpu["pos"], gpu["col"]], [12, 4], [4, 8])
    ctx.ia_set_vertex_buffers(2, [VertexBufferView(gpu["tex"], 4, 0),
                                  VertexBufferView(gpu["blend"], 4, 4, 16)])
    ctx.ia_set_vertex_buffers(0, None)  # D3D12: a NULL array is ignored (rules 6.4)
    views = {0: VertexBufferView(host["pos"], 12, 4), 1: VertexBufferView(host["col"], 4, 8),
             2: VertexBufferView(host["tex"], 4, 0), 3: VertexBufferView(host["blend"], 4, 4, 16)}
    refs = []  # (reference of one draw, its capture draw number)

    ctx.begin_capture()
    # draw 0: everything bound
    assert ctx.draw_instanced(6, 3, 2, 1).path == "pulling"  # slot 3 steps every 2 instances
    refs.append(run_ia(layout, dict(views), [_draw(6, 3, 2, 1)], topology="TRIANGLESTRIP"))

    # draw 1: slot 1 unbound (None) reads all zeros; slots 0, 2, 3 keep their bindings
    ctx.ia_set_vertex_buffers(1, [None])
    views[1] = None
    ctx.set_path("native")
    with pytest.raises(UnsupportedError, match="unbound"):
        ctx.draw_instanced(4, 2, 0, 0)
    ctx.set_path("pulling")
    ctx.draw_instanced(4, 2, 0, 0)
    refs.append(run_ia(layout, dict(views), [_draw(4, 2, 0, 0)], topology="TRIANGLESTRIP"))
    assert not refs[-1].inputs["COLOR0"].bits.any()

    # draws 2-3: slot 1 rebound alone (D3D11 form, another buffer), a new pipeline state with a
    # strip cut, an index buffer; path auto
    ctx.ia_set_vertex_buffers(1, [gpu["col2"]], [4])
    views[1] = VertexBufferView(host["col2"], 4, 0)
    ctx.set_pipeline_state(PipelineState(layout, strip_cut_value="0xFFFF"))
    ctx.ia_set_index_buffer(IndexBufferView(ib, "R16_UINT"))
    ctx.set_path("auto")
    p2 = ctx.draw_indexed_instanced(8, 4, 0, 2, 1)
    p3 = ctx.draw_instanced(3, 1, 5, 2)
    assert (p2.path, p3.path) == ("pulling", "pulling")
    assert any("steps every 2 instances" in r for r in p2.reasons), p2.reasons
    ref = run_ia(layout, dict(views), [
        {"DrawIndexedInstanced": {"IndexCountPerInstance": 8, "InstanceCount": 4,
                                  "StartIndexLocation": 0, "BaseVertexLocation": 2,
                                  "StartInstanceLocation": 1}}, _draw(3, 1, 5, 2)],
        topology="TRIANGLESTRIP", index_buffer=IndexBufferView(indices, "R16_UINT"),
        strip_cut_value="0xFFFF")
    assert ref.vertex_id[ref.draw == 0].tolist()[:7] == [0, 1, 2, 3, 4, 5, 6]
    refs.append(ref)
    cap = ctx.end_capture()

    assert len(cap.records) == 4
    _assert_capture_matches(cap, refs[0], layout, 0)
    _assert_capture_matches(cap, refs[1], layout, 1)
    _assert_capture_matches(cap, refs[2], layout, 2)


def test_context_native_capture_decoded(gpu_device):
    """The native path through the Context API: D3D11-form binding with offsets, a non-indexed
    and an indexed draw (negative BaseVertexLocation) in one capture, decoded by hand."""
    layout = InputLayout([
        {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT", "InputSlot": 0},
        {"SemanticName": "NORMAL", "Format": "R16G16B16A16_SINT", "InputSlot": 0},
        {"SemanticName": "OFFSET", "Format": "R32G32_UINT", "InputSlot": 4,
         "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1},
    ])
    rng = np.random.default_rng(3)
    vdata = rng.integers(0, 256, 20 * 12 + 8, dtype=np.uint8)
    idata = rng.integers(0, 256, 8 * 6 + 4, dtype=np.uint8)
    indices = np.array([4, 5, 6, 9, 11, 4], "<u4")
    vb = gpu_device.create_buffer(vdata.tobytes(), bind=("vertex_buffer",))
    inst = gpu_device.create_buffer(idata.tobytes(), bind=("vertex_buffer",))
    ib = gpu_device.create_buffer(indices.tobytes(), bind=("index_buffer",))
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(layout))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    ctx.ia_set_vertex_buffers(0, [vb], [20], [8])
    ctx.ia_set_vertex_buffers(4, [inst], [8], [4])
    ctx.ia_set_index_buffer(IndexBufferView(ib, "R32_UINT"))
    ctx.set_path("native")
    ctx.begin_capture()
    p0 = ctx.draw_instanced(7, 3, 2, 1)
    p1 = ctx.draw_indexed_instanced(6, 2, 0, -3, 4)
    cap = ctx.end_capture()
    assert (p0.path, p1.path) == ("native", "native")
    views = {0: VertexBufferView(vdata, 20, 8), 4: VertexBufferView(idata, 8, 4)}
    ref = run_ia(layout, views, [
        _draw(7, 3, 2, 1),
        {"DrawIndexedInstanced": {"IndexCountPerInstance": 6, "InstanceCount": 2,
                                  "StartIndexLocation": 0, "BaseVertexLocation": -3,
                                  "StartInstanceLocation": 4}}],
        topology="TRIANGLELIST", index_buffer=IndexBufferView(indices, "R32_UINT"))
    assert ref.vertex_id[ref.draw == 1].tolist() == indices.tolist() * 2
    _assert_capture_matches(cap, ref, layout)


def test_contexts_of_a_device_share_its_pipelines(gpu_device):
    """Pipelines are the device's (PipelineCache.of): a second context drawing a layout the
    first built builds nothing, and Device.held makes each kept object once, keeping nothing
    when making it raised."""
    from gpuia.gpu.vertex.pipelines import PipelineCache

    first, buf = _cache_setup(gpu_device)
    first.set_path("native")
    first.ia_set_vertex_buffers(0, [buf(16 * 6), buf(8 * 2)], [16, 8])
    first.draw_instanced(6, 2)
    first.flush()
    second, _ = _cache_setup(gpu_device)
    assert second.cache is first.cache is PipelineCache.of(gpu_device)
    built = _stats(second)
    second.set_path("native")
    second.ia_set_vertex_buffers(0, [buf(16 * 6), buf(8 * 2)], [16, 8])
    second.draw_instanced(6, 2)
    second.flush()
    assert _stats(second) == built

    calls = []

    def failing():
        calls.append(1)
        raise RuntimeError("no")

    key = ("test_contexts_of_a_device_share_its_pipelines", id(calls))
    for _ in range(2):
        with pytest.raises(RuntimeError):
            gpu_device.held(key, failing)
    assert len(calls) == 2  # nothing was kept: made again
    made = gpu_device.held(key, lambda: object())
    assert gpu_device.held(key, lambda: object()) is made


# -- fetch at the edges: stride 0, 32-bit starts and counters, buffers over a binding --------------

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
    so = so_points_context(gpu_device, "R32_UINT", 1, [VertexBufferView(big, 4, offset, 16)])
    target = gpu_device.create_buffer(size=20, bind=("stream_output",))
    so.so_set_targets([StreamOutputBufferView(target, 20)])
    so.draw_instanced(5)
    so.flush()
    assert np.frombuffer(target.read(), "<u4").tolist() == [7, 8, 9, 10, 0]
    # A view that itself needs more than one binding: test_gpu_attribute_fetch.py (pulled
    # through vertex attributes where they may read it, else refused by name).


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
