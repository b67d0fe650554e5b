"""The two forms of the pulling path on the GPU (issue 31): raw words through vertex attributes
and storage loads, each forced on a copy of the device (``pulled_form_device``) so that both run
on every adapter, whatever the adapter's own form (the ``attribute-fetch`` quirk).

Each form must deliver what D3D does: the values of hand-derived words (rules 2.2-2.11), every
code of the narrow channel kinds against the CPU reference, and the format matrix's cells that
the attribute form can serve; the forms' results are compared with each other bit for bit, and
each plan's forms with what the rules allow (the conditions are restated here, not read from
the planner).
"""

from __future__ import annotations

import struct

import numpy as np
import pytest
from test_gpu_formats import STEP_KINDS, _b64, _fetched, build_format_case

from gpuia import DrawIndexedInstanced, IndexBufferView, VertexBufferView
from gpuia.d3d.formats import VERTEX_FORMATS
from gpuia.errors import UnsupportedError
from gpuia.gpu import Context, PipelineState
from helpers import check_gpu, pulled_form_device

FORMS = ("attributes", "storage")
ONE = 0x3F800000  # 1.0f
# (semantic, format, slot, offset): every channel kind of the format table (rules 2.2-2.9).
_ELEMENTS = [
    ("A", "R8G8B8A8_UNORM", 0, 0),  # un
    ("B", "R8G8_SNORM", 0, 4),  # sn; bytes 6 and 7 belong to no element (0xAA)
    ("C", "R16_UINT", 0, 4),  # u, the same word's low half
    ("D", "R16G16_SINT", 0, 8),  # s
    ("E", "R11G11B10_FLOAT", 0, 12),  # uf; no WebGPU vertex format
    ("F", "R16G16_FLOAT", 1, 0),  # f, 16 bits
    ("G", "R32_UINT", 1, 4),  # u, 32 bits
    ("H", "B8G8R8A8_UNORM", 1, 8),  # un with a swizzle
    ("I", "R32_FLOAT", 1, 12),  # f, 32 bits: the bits kept, NaN payload included
]
_UF_ONES = 0x3C0 | 0x3C0 << 11 | 0x1E0 << 22  # 11/11/10-bit floats of exponent 15: 1.0 each
_SLOT0 = bytes([0xFF, 0x00, 0xFF, 0x00, 0x80, 0x7F, 0xAA, 0xAA, 0x00, 0x80, 0xFF, 0x7F]) \
    + struct.pack("<I", _UF_ONES)
_SLOT1 = bytes([0x00, 0x3C, 0x00, 0xFC]) + struct.pack("<I", 0xDEADBEEF) \
    + bytes([0xFF, 0x00, 0x00, 0x00]) + struct.pack("<I", 0x7FC00001)
# What D3D delivers (rules 2.2 UNORM c/255; 2.3 SNORM, -128 clamped to -1.0; 2.5 halves; 2.6
# integers zero/sign extended; 2.7 the 11/10-bit floats; 2.11 the (0, 0, 0, 1) fill, 1.0f for
# float types and 1 for integer ones; B8G8R8A8 delivers R from byte 2 and B from byte 0).
_EXPECTED = {
    "A": [ONE, 0, ONE, 0],
    "B": [0xBF800000, ONE, 0, ONE],
    "C": [0x7F80, 0, 0, 1],
    "D": [0xFFFF8000, 0x7FFF, 0, 1],
    "E": [ONE, ONE, ONE, ONE],
    "F": [ONE, 0xFF800000, 0, ONE],
    "G": [0xDEADBEEF, 0, 0, 1],
    "H": [0, 0, ONE, 0],
    "I": [0x7FC00001, 0, 0, ONE],
}


def _hand_case() -> dict:
    """Two vertices of slot 0 (stride 16) and two instances of slot 1 (per-instance, step rate
    1, stride 16), each element holding the same bytes: every fetch inside its view."""
    return {
        "gpuia_case": 1, "name": "attribute-form-hand-values",
        "input_layout": [
            {"SemanticName": s, "Format": f, "InputSlot": slot, "AlignedByteOffset": off,
             **({"InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}
                if slot else {})}
            for s, f, slot, off in _ELEMENTS],
        "vertex_buffers": [{"slot": 0, "stride": 16, "data": _b64(_SLOT0 * 2)},
                           {"slot": 1, "stride": 16, "data": _b64(_SLOT1 * 2)}],
        "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": 2, "InstanceCount": 2}},
    }


@pytest.mark.parametrize("form", FORMS)
def test_hand_derived_words_decode_alike_in_both_forms(gpu_device, form):
    dev = pulled_form_device(gpu_device, form)
    res = check_gpu(_hand_case(), dev, "pulling", exact=True).res
    (plan,) = res.plans
    assert plan.attributes == ({0, 1} if form == "attributes" else set())
    assert ("fetch: slot 1: raw words through vertex attributes" in plan.explain()) \
        == (form == "attributes")
    for semantic, want in _EXPECTED.items():
        key = next(k for k in res.ia.inputs if k.rstrip("0") == semantic)
        assert res.ia.inputs[key].bits.tolist() == [want] * 4, semantic


def _every_code_case(per_instance: bool) -> dict:
    """Element v (0..65535) is the word ``v | (v ^ 0xA5C3) << 16`` at stride 4: every 16-bit code
    in the low half and every byte in bytes 0 and 1, read as formats of every channel kind."""
    v = np.arange(1 << 16, dtype=np.uint32)
    words = (v | ((v ^ 0xA5C3) << 16)).astype("<u4")
    formats = ["R16_UNORM", "R16_SNORM", "R16_FLOAT", "R16_UINT", "R16_SINT", "R8G8B8A8_UNORM",
               "R8G8B8A8_SNORM", "R8G8_UINT", "R8G8_SINT", "R10G10B10A2_UNORM",
               "R11G11B10_FLOAT", "B5G6R5_UNORM", "B4G4R4A4_UNORM", "R32_FLOAT"]
    cls = "PER_INSTANCE_DATA" if per_instance else "PER_VERTEX_DATA"
    counts = (1, 1 << 16) if per_instance else (1 << 16, 1)
    return {
        "gpuia_case": 1, "name": "attribute-form-every-code",
        "input_layout": [{"SemanticName": "CODE", "SemanticIndex": k, "Format": f,
                          "AlignedByteOffset": 0, "InputSlotClass": cls,
                          "InstanceDataStepRate": int(per_instance)}
                         for k, f in enumerate(formats)],
        "vertex_buffers": [{"slot": 0, "stride": 4, "data": _b64(words.tobytes())}],
        "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": counts[0],
                                   "InstanceCount": counts[1]}},
    }


@pytest.mark.parametrize("per_instance", [False, True], ids=["per_vertex", "per_instance"])
def test_every_code_is_bit_identical_in_both_forms(gpu_device, per_instance):
    """Both forms equal the reference bit for bit and each other, on every code; per-instance
    SNORM included (the adapter quirk that keeps it off llvmpipe's native fetch does not touch
    raw uint32 words)."""
    case = _every_code_case(per_instance)
    got = {}
    for form in FORMS:
        res = check_gpu(case, pulled_form_device(gpu_device, form), "pulling", exact=True).res
        assert res.plans[0].attributes == ({0} if form == "attributes" else set()), \
            res.plans[0].explain()
        got[form] = {k: d.bits for k, d in res.ia.inputs.items()}
    for k, bits in got["attributes"].items():
        assert np.array_equal(bits, got["storage"][k]), k


def _attribute_slots(case: dict, step: str) -> set[int]:
    """The slots the attribute form may read in a format matrix cell, by the rules: step rate
    1 (or per-vertex data), stride, view offset and element offset multiples of 4, a stride of 0
    or at least the elements' whole words, and the last fetched element's whole words inside the
    view."""
    _, rate, _ = STEP_KINDS[step]
    top = int(_fetched(step).max())
    per_vertex = STEP_KINDS[step][0] == "PER_VERTEX_DATA"
    out = set()
    for e, b in zip(case["input_layout"], case["vertex_buffers"], strict=True):
        off, stride, view_off = e["AlignedByteOffset"], b["stride"], b["offset"]
        end = off + 4 * VERTEX_FORMATS[e["Format"]].words
        if ((per_vertex or rate == 1) and stride % 4 == 0 and view_off % 4 == 0
                and off % 4 == 0 and (stride == 0 or stride >= end)
                and stride * top + end <= b["size"]):
            out.add(b["slot"])
    return out


@pytest.mark.parametrize("step", ["per_vertex", "instance_rate_1", "instance_rate_3"])
@pytest.mark.parametrize("stride_kind", ["exact", "padded", "padded_shifted", "zero",
                                         "view_short", "view_offset_unaligned"])
@pytest.mark.parametrize("group", ["native_exact_1_2_bytes", "native_exact_4_bytes",
                                   "native_exact_8_16_bytes", "native_normalized",
                                   "pulling_only"])
def test_format_matrix_in_the_attribute_form(gpu_device, group, stride_kind, step):
    """The format matrix's cells (gpu/test_gpu_formats.py) with the attribute form forced: the
    slots the rules allow take it, the others keep storage loads, and every value is the
    reference's (the storage form's cells run in ``test_format_matrix_pulling`` on adapters
    without the quirk, and with it forced off below)."""
    case, _ = build_format_case(group, stride_kind, step)
    res = check_gpu(case, pulled_form_device(gpu_device, "attributes"), "pulling").res
    assert res.plans[0].attributes == _attribute_slots(case, step)


@pytest.mark.parametrize("stride_kind", ["exact", "padded_shifted", "view_short"])
@pytest.mark.parametrize("group", ["native_exact_4_bytes", "native_normalized", "pulling_only"])
def test_format_matrix_cells_in_the_storage_form(gpu_device, group, stride_kind):
    """Storage loads forced on cells the attribute form could read (adapters with the quirk
    otherwise never run them there)."""
    case, _ = build_format_case(group, stride_kind, "per_vertex")
    res = check_gpu(case, pulled_form_device(gpu_device, "storage"), "pulling").res
    assert res.plans[0].attributes == set()


def test_a_draw_past_the_view_switches_to_storage_loads_on_one_context(gpu_device):
    """One context, one slot (R32G32_FLOAT, stride 8, 20-byte view): a draw of 2 vertices reads
    elements 0-1 through vertex attributes; one of 3 reads element 2, whose bytes 16..23 pass
    byte 20, so that draw loads from storage and element 2 reads (0, 0, 0, 1.0) (rules 6.3)."""
    values = struct.pack("<5f", 1.5, 2.5, 3.5, 4.5, 5.5)
    case = {
        "gpuia_case": 1, "name": "attribute-form-then-storage",
        "input_layout": [{"SemanticName": "P", "Format": "R32G32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 8, "data": _b64(values)}],
        "primitive_topology": "POINTLIST",
        "draw": [{"DrawInstanced": {"VertexCountPerInstance": 2}},
                 {"DrawInstanced": {"VertexCountPerInstance": 3}}],
    }
    check = check_gpu(case, pulled_form_device(gpu_device, "attributes"), "pulling", exact=True)
    assert [p.attributes for p in check.res.plans] == [{0}, set()]
    f = [struct.unpack("<I", struct.pack("<f", x))[0] for x in (1.5, 2.5, 3.5, 4.5)]
    rows = [[f[0], f[1], 0, ONE], [f[2], f[3], 0, ONE]]
    assert check.res.ia.inputs["P0"].bits.tolist() == rows + rows + [[0, 0, 0, ONE]]


def _over_binding_context(dev):
    """A Context on ``dev`` pulling points of one R32_UINT element from a view one word past
    the adapter's storage-binding limit (stride 4, at offset 0); words 0 and 1 hold 7 and 8,
    the view's last word 9. Returns (context, the view's last element)."""
    limit = dev.caps.max_storage_buffer_binding_size
    size = limit + 4  # over one storage binding by one word; a vertex buffer may be this big
    buf = dev.create_buffer(size=size, bind=("vertex_buffer",))
    dev.device.queue.write_buffer(buf.wgpu, 0, np.array([7, 8], "<u4"))
    dev.device.queue.write_buffer(buf.wgpu, size - 4, np.array([9], "<u4"))
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState([{"SemanticName": "A", "Format": "R32_UINT"}]))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.set_path("pulling")
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(buf, 4, 0, size)])
    return ctx, size // 4 - 1


def test_a_view_over_the_storage_binding_limit_is_pulled_through_attributes(gpu_device):
    """Issue 31: the storage-binding limit (max-storage-buffer-binding-size) binds storage
    loads only. A view one word over it is pulled through vertex attributes, a vertex buffer's
    rules holding (stride 4, offset 0, every fetch inside the view): elements 0, 1 and the last,
    past the limit, read 7, 8 and 9. A draw that fetches past the view's end needs storage loads
    for its zeros (rules 6.3), so it is refused naming the limit and why storage loads."""
    ctx, last = _over_binding_context(pulled_form_device(gpu_device, "attributes"))
    ib = ctx.device.create_buffer(np.array([0, 1, last], "<u4"), bind="index_buffer")
    ctx.ia_set_index_buffer(IndexBufferView(ib, "R32_UINT"))
    plan = ctx.draw(DrawIndexedInstanced(3))
    assert (plan.path, plan.attributes) == ("pulling", {0}), plan.explain()
    ctx.begin_capture()
    ctx.draw_indexed_instanced(3)
    cap = ctx.end_capture()
    records = cap.words.reshape(-1, 7)  # flag, SV_VertexID, SV_InstanceID, A (x, y, z, w)
    assert records[:, :4].tolist() == [[1, 0, 0, 7], [1, 1, 0, 8], [1, last, 0, 9]]
    assert cap.unexpected == 0
    limit = ctx.device.caps.max_storage_buffer_binding_size
    with pytest.raises(UnsupportedError) as refused:
        ctx.draw_instanced(2, 1, last)  # element last + 1 is past the view: D3D reads zeros
    assert str(refused.value).startswith(
        f"the pulling path cannot do this draw: slot 0's view ({limit + 4} bytes at offset 0) "
        f"needs a {limit + 16}-byte storage binding, over max-storage-buffer-binding-size "
        f"{limit} (slot 0: storage loads: slot 0: the draw fetches element {last + 1}, past "
        f"the view's {limit + 4} bytes"), refused.value


def test_a_view_over_the_storage_binding_limit_is_refused_to_storage_loads(gpu_device):
    """Where pulled words are storage loads (the form forced here), the same in-bounds draw is
    refused, naming the slot, its view and the limit, before wgpu sees it."""
    ctx, _ = _over_binding_context(pulled_form_device(gpu_device, "storage"))
    limit = ctx.device.caps.max_storage_buffer_binding_size
    with pytest.raises(UnsupportedError) as refused:
        ctx.draw_instanced(3)
    assert (f"the pulling path cannot do this draw: slot 0's view ({limit + 4} bytes at offset "
            f"0) needs a {limit + 16}-byte storage binding, over "
            f"max-storage-buffer-binding-size {limit}") in str(refused.value)
