"""The attribute form of pulled slots (issue 31): which slots read their raw words through
vertex attributes, and why the others keep storage loads (``Plan.attributes``, ``Plan.forms``).

The form may serve a slot only where WebGPU's vertex fetch of ``uint32`` words is D3D's fetch
exactly: a bound view at step rate 1 (rules 4.3: WebGPU has no other rate; an unbound slot reads
zeros, rules 6.2), stride, view offset and element offsets multiples of 4 (WebGPU's attribute
alignment), and every element's whole words of every fetch of the draw inside the view (rules
6.1 and 6.3: D3D reads zeros past it, WebGPU would not). The expected forms below follow from
those rules and the byte arithmetic written beside each case; no GPU is needed.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpuia import InputLayout
from gpuia.d3d.draws import DrawIndexedInstanced, DrawInstanced
from gpuia.d3d.ia_desc import IndexBufferView, VertexBufferView
from gpuia.d3d.topology import topology_info
from gpuia.errors import UnsupportedError
from gpuia.gpu.quirks import ATTRIBUTE_FETCH, QUIRKS, SIGNED_FIRST_VERTEX
from gpuia.gpu.vertex.plan import SizedBuffer, plan_draw
from gpuia.harness.lint import webgpu_default_caps

POINTS = topology_info("POINTLIST")


def _caps(*effects, **limits):
    rows = tuple(q for q in QUIRKS if q.effect in effects)
    return dataclasses.replace(webgpu_default_caps(), quirks=rows, **limits)


ON = _caps(ATTRIBUTE_FETCH)


def _view(size: int, stride: int, offset: int = 0) -> VertexBufferView:
    return VertexBufferView(SizedBuffer(offset + size), stride, offset, size)


def _el(fmt: str, slot: int = 0, offset: int = 0, instance_rate: int | None = None,
        name: str = "A", index: int = 0) -> dict:
    e = {"SemanticName": name, "SemanticIndex": index, "Format": fmt, "InputSlot": slot,
         "AlignedByteOffset": offset}
    if instance_rate is not None:
        e.update(InputSlotClass="PER_INSTANCE_DATA", InstanceDataStepRate=instance_rate)
    return e


def _plan(elements, views, draw, caps=ON, **kw):
    return plan_draw(InputLayout(elements), views, draw, POINTS, caps, path="pulling", **kw)


def _form(plan, slot: int) -> str:
    (line,) = [f for f in plan.forms if f.startswith(f"slot {slot}: ")]
    return line


def test_a_slot_inside_its_view_reads_raw_words_through_vertex_attributes():
    """R32G32B32_FLOAT at 0 and R8G8B8A8_UNORM at 12, stride 16, a 64-byte view: vertices 0..3
    reach byte 3 * 16 + 16 = 64, inside. The plan stays ``pulling`` and says the form."""
    plan = _plan([_el("R32G32B32_FLOAT"), _el("R8G8B8A8_UNORM", offset=12, name="B")],
                 {0: _view(64, 16)}, DrawInstanced(4))
    assert plan.path == "pulling" and plan.attributes == {0}
    assert "  - fetch: slot 0: raw words through vertex attributes" in plan.explain()


def test_without_the_quirk_every_slot_keeps_storage_loads():
    plan = _plan([_el("R32_FLOAT")], {0: _view(64, 16)}, DrawInstanced(4),
                 caps=_caps())
    assert plan.attributes == frozenset()
    assert _form(plan, 0) == "slot 0: storage loads: the adapter's storage loads are its fast form"


def test_a_native_plan_has_no_forms():
    plan = plan_draw(InputLayout([_el("R32_FLOAT")]), {0: _view(64, 16)}, DrawInstanced(4),
                     POINTS, ON)
    assert plan.path == "native" and plan.attributes == frozenset() and plan.forms == ()


@pytest.mark.parametrize("rate, attributes, says", [
    (1, {0, 1}, None),
    (0, {0}, "slot 1 has step rate 0"),
    (2, {0}, "slot 1 steps every 2 instances"),
])
def test_per_instance_slots_take_the_form_at_step_rate_1_only(rate, attributes, says):
    """Rules 4.3: rate 0 reads StartInstanceLocation's data for every instance and rate N
    instance first + k / N; WebGPU's instance step reads instance first + k."""
    plan = _plan([_el("R32_FLOAT"), _el("R32_UINT", slot=1, instance_rate=rate, name="B")],
                 {0: _view(16, 4), 1: _view(64, 4)}, DrawInstanced(4, 3))
    assert plan.attributes == attributes
    if says:
        assert says in _form(plan, 1)


def test_an_unbound_slot_keeps_storage_loads():
    """Rules 6.2: an unbound slot reads (0, 0, 0, 0), w included."""
    plan = _plan([_el("R32_FLOAT"), _el("R32_FLOAT", slot=1, name="B")],
                 {0: _view(16, 4), 1: None}, DrawInstanced(4))
    assert plan.attributes == {0}
    assert "slot 1 is unbound" in _form(plan, 1)


@pytest.mark.parametrize("stride, offset, element_offset, says", [
    (6, 0, 0, "stride 6 is not a multiple of 4"),
    (8, 2, 0, "view offset 2 is not a multiple of 4"),
    (8, 0, 2, "offset 2 is not a multiple of 4"),
])
def test_unaligned_addresses_keep_storage_loads(stride, offset, element_offset, says):
    plan = _plan([_el("R16_UINT", offset=element_offset)], {0: _view(64, stride, offset)},
                 DrawInstanced(2))
    assert plan.attributes == frozenset() and says in _form(plan, 0)


def test_a_draw_reading_past_the_view_keeps_storage_loads():
    """R32G32_FLOAT, stride 8, a 20-byte view: element 1 ends at byte 16 (inside), element 2 at
    24 (past 20: D3D reads zeros there, rules 6.3)."""
    elements, views = [_el("R32G32_FLOAT")], {0: _view(20, 8)}
    assert _plan(elements, views, DrawInstanced(2)).attributes == {0}
    plan = _plan(elements, views, DrawInstanced(3))
    assert plan.attributes == frozenset()
    assert "the draw fetches element 2, past the view's 20 bytes" in _form(plan, 0)


def test_the_whole_words_of_an_element_must_be_inside_the_view():
    """R8_UNORM, stride 4, a 9-byte view: element 2 is byte 8, inside the view (D3D reads it),
    but its word is bytes 8..11, past byte 9: the word cannot be fetched, so storage loads."""
    elements, views = [_el("R8_UNORM")], {0: _view(9, 4)}
    assert _plan(elements, views, DrawInstanced(2)).attributes == {0}
    plan = _plan(elements, views, DrawInstanced(3))
    assert plan.attributes == frozenset() and "past the view's 9 bytes" in _form(plan, 0)


@pytest.mark.parametrize("fmt", ["R11G11B10_FLOAT", "B5G6R5_UNORM", "B8G8R8X8_UNORM"])
def test_formats_without_a_webgpu_vertex_format_take_the_form(fmt):
    """The words are fetched as uint32, so the format's WebGPU vertex format does not matter."""
    plan = _plan([_el(fmt)], {0: _view(64, 4)}, DrawInstanced(4))
    assert plan.attributes == {0}


def test_the_adapters_vertex_buffers_and_attributes_bound_the_form():
    elements = [_el("R32_FLOAT", slot=s, name=f"S{s}") for s in range(3)]
    views = {s: _view(16, 4) for s in range(3)}
    plan = _plan(elements, views, DrawInstanced(4), caps=_caps(ATTRIBUTE_FETCH,
                                                                max_vertex_buffers=2))
    assert plan.attributes == {0, 1}
    assert "the adapter's 2 vertex buffers are taken" in _form(plan, 2)
    two = elements + [_el("R32_FLOAT", slot=1, offset=0, name="T")]
    plan = _plan(two, views, DrawInstanced(4), caps=_caps(ATTRIBUTE_FETCH,
                                                           max_vertex_attributes=2))
    # slot 1's two elements would make 3 attributes; slot 2's one makes 2
    assert plan.attributes == {0, 2}
    assert "the adapter's 2 vertex attributes are taken" in _form(plan, 1)


def test_stream_output_keeps_storage_loads():
    plan = _plan([_el("R32_FLOAT")], {0: _view(16, 4)}, DrawInstanced(4), stream_output=True)
    assert plan.attributes == frozenset()
    assert "the vertex stage also runs in a compute pass" in _form(plan, 0)


def test_indices_unknown_on_the_host_keep_storage_loads():
    """An index buffer without a host copy: which elements the draw fetches is not known before
    the GPU reads the indices, so no bound can be checked."""
    ib = IndexBufferView(SizedBuffer(64), "R32_UINT")
    plan = _plan([_el("R32_FLOAT")], {0: _view(16, 4)}, DrawIndexedInstanced(3),
                 index_buffer=ib)
    assert plan.attributes == frozenset() and "fetch indices unknown" in _form(plan, 0)


def test_a_first_vertex_added_in_the_vertex_stage_keeps_storage_loads():
    """Stride 0: every vertex reads element 0, inside the view. Where the adapter takes the first
    vertex as signed (SIGNED_FIRST_VERTEX), a StartVertexLocation of 2**31 is added in the vertex
    stage, so the vertex fetch's index is not D3D's: per-vertex slots keep storage loads."""
    elements, views = [_el("R32_FLOAT")], {0: _view(4, 0)}
    draw = DrawInstanced(3, 1, 1 << 31)
    assert _plan(elements, views, draw).attributes == {0}
    plan = _plan(elements, views, draw, caps=_caps(ATTRIBUTE_FETCH, SIGNED_FIRST_VERTEX))
    assert plan.attributes == frozenset()
    assert "the vertex stage adds the draw's first vertex" in _form(plan, 0)


def test_a_view_over_one_storage_binding_limits_storage_loads_only():
    """Issue 31: with a 1024-byte storage-binding limit, a 2048-byte view of R32_FLOAT (stride
    16) needs a 2048-byte storage binding. Vertices 0..127 reach byte 127 * 16 + 4 <= 2048:
    every fetch inside, so the attribute form reads it as a vertex buffer and the draw is pulled.
    Vertex 128 starts at byte 2048, past the view: its zeros need storage loads, refused with
    the limit and why; without the quirk every draw is refused so."""
    caps = dataclasses.replace(ON, max_storage_buffer_binding_size=1024)
    views = {0: _view(2048, 16)}
    plan = _plan([_el("R32_FLOAT")], views, DrawInstanced(128), caps=caps)
    assert plan.path == "pulling" and plan.attributes == {0}
    over = ("the pulling path cannot do this draw: slot 0's view (2048 bytes at offset 0) needs "
            "a 2048-byte storage binding, over max-storage-buffer-binding-size 1024")
    with pytest.raises(UnsupportedError) as refused:
        _plan([_el("R32_FLOAT")], views, DrawInstanced(129), caps=caps)
    assert str(refused.value) == (over + " (slot 0: storage loads: slot 0: the draw fetches "
                                  "element 128, past the view's 2048 bytes (D3D reads zeros, "
                                  "WebGPU rejects or clamps)) (native path: slot 0: the draw "
                                  "fetches element 128, past the view's 2048 bytes (D3D reads "
                                  "zeros, WebGPU rejects or clamps))")
    with pytest.raises(UnsupportedError) as refused:
        _plan([_el("R32_FLOAT")], views, DrawInstanced(128),
              caps=dataclasses.replace(caps, quirks=()))
    assert str(refused.value).startswith(over), refused.value
