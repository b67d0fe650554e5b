"""InputLayout: CreateInputLayout's resolution and validation (rules section 3).

Expected offsets are derived by hand in the comments from rules 3.2/3.4 (or transcribed from the
notes of the real-layouts demo's data/real-layouts.json, which quote the sources); nothing here was
obtained by running gpuia and pasting its output.
"""

from __future__ import annotations

import json
import re
import struct

import numpy as np
import pytest

import gpuia
from gpuia import APPEND_ALIGNED_ELEMENT, InputElementDesc, InputLayout, InvalidDescError
from gpuia.d3d.desc import InputClassification
from gpuia.d3d.layout import elements_from_dtype
from helpers import REAL_LAYOUTS

APPEND = 0xFFFFFFFF  # D3D12_APPEND_ALIGNED_ELEMENT


def el(name, fmt, slot=0, offset=APPEND, cls="PER_VERTEX_DATA", rate=0, index=0) -> dict:
    """A D3D12_INPUT_ELEMENT_DESC as a dict with the D3D field names."""
    return {"SemanticName": name, "SemanticIndex": index, "Format": fmt, "InputSlot": slot,
            "AlignedByteOffset": offset, "InputSlotClass": cls, "InstanceDataStepRate": rate}


def offsets(layout: InputLayout) -> list[int]:
    return [e.offset for e in layout.elements]


def rejected(elements, *, profile="d3d12") -> InvalidDescError:
    with pytest.raises(InvalidDescError) as ei:
        InputLayout(elements, profile=profile)
    assert isinstance(ei.value, ValueError)
    assert isinstance(ei.value, gpuia.GpuiaError)
    return ei.value


def assert_names(err: InvalidDescError, index: int | None, semantic: str | None, field: str,
                 value) -> None:
    """The message names the element index, its semantic, the field and the value."""
    msg = str(err)
    if index is not None:
        assert re.search(rf"\belement {index}\b", msg), msg
    if semantic is not None:
        assert semantic in msg, msg
    assert field in msg, msg
    assert repr(value) in msg or str(value) in msg, msg
    assert err.field == field
    assert err.value == value


# ---------------------------------------------------------------------------------------------
# 3.4 APPEND_ALIGNED_ELEMENT
# ---------------------------------------------------------------------------------------------

def test_append_r8_after_r8_is_offset_1():
    # Alignment uses the current element's size: R8 (1 byte) after R8 ends at 1 -> 1, not 4.
    layout = InputLayout([el("A", "R8_UNORM"), el("B", "R8_UNORM"), el("C", "R8_UINT")])
    assert offsets(layout) == [0, 1, 2]


def test_append_r32_after_r8_is_offset_4():
    # WINE test_instanced_draw: R8_UNORM at 0 then R32_FLOAT lands at align(1, 4) = 4.
    layout = InputLayout([el("COLOR", "R8_UNORM", offset=0), el("V_OFFSET", "R32_FLOAT")])
    assert offsets(layout) == [0, 4]


def test_append_alignment_per_element_size():
    # R8 @0 (end 1); R16 -> align(1, 2) = 2 (end 4); R8 -> 4 (end 5);
    # R16G16B16A16 (8 bytes, align 4) -> align(5, 4) = 8 (end 16); R8G8 -> 16 (end 18);
    # R32G32B32 (align 4) -> align(18, 4) = 20 (end 32); B5G6R5 (2) -> 32 (end 34);
    # R10G10B10A2 (4) -> 36.
    layout = InputLayout([el("A", "R8_UNORM"), el("B", "R16_FLOAT"), el("C", "R8_SINT"),
                          el("D", "R16G16B16A16_FLOAT"), el("E", "R8G8_UNORM"),
                          el("F", "R32G32B32_FLOAT"), el("G", "B5G6R5_UNORM"),
                          el("H", "R10G10B10A2_UNORM")])
    assert offsets(layout) == [0, 2, 4, 8, 16, 20, 32, 36]


def test_append_tracks_end_of_explicit_offset():
    # R32 at explicit 8 (end 12); R16 appended -> 12 (end 14); R8 -> 14 (end 15);
    # R32 -> align(15, 4) = 16.
    layout = InputLayout([el("A", "R32_FLOAT", offset=8), el("B", "R16_UINT"),
                          el("C", "R8_UINT"), el("D", "R32_UINT")])
    assert offsets(layout) == [8, 12, 14, 16]


def test_append_follows_previous_element_in_declaration_order_not_the_maximum():
    # R32G32B32A32 at 16 (end 32), then R32 at explicit 0 (end 4): the next append uses the
    # previous element's end (4), not the furthest end (32).
    layout = InputLayout([el("A", "R32G32B32A32_FLOAT", offset=16), el("B", "R32_FLOAT", offset=0),
                          el("C", "R32_FLOAT")])
    assert offsets(layout) == [16, 0, 4]


def test_append_slots_are_independent():
    # slot 0: R32G32B32 @0 (end 12), then R32 -> 12;
    # slot 1: R8 @0 (end 1), R8 -> 1, R16 -> align(2, 2) = 2.
    layout = InputLayout([el("P", "R32G32B32_FLOAT", slot=0), el("A", "R8_UNORM", slot=1),
                          el("Q", "R32_FLOAT", slot=0), el("B", "R8_UNORM", slot=1),
                          el("C", "R16_UNORM", slot=1)])
    assert offsets(layout) == [0, 0, 12, 1, 2]


def test_append_first_element_of_a_slot_is_zero():
    layout = InputLayout([el("P", "R32G32B32A32_FLOAT", slot=0), el("Q", "R32G32_FLOAT", slot=0),
                          el("T", "R16G16_FLOAT", slot=7)])
    assert offsets(layout) == [0, 16, 0]


def test_hdr_gradient_explicit_zero_then_append():
    # real-layouts.json hdr_gradient: "COLOR resolves to 12".
    layout = InputLayout([el("POSITION", "R32G32B32_FLOAT", offset=0),
                          el("COLOR", "R32G32B32_FLOAT")])
    assert offsets(layout) == [0, 12]


@pytest.mark.parametrize("spelling", ["APPEND_ALIGNED_ELEMENT", "D3D12_APPEND_ALIGNED_ELEMENT",
                                      "append_aligned_element", 0xFFFFFFFF,
                                      APPEND_ALIGNED_ELEMENT, np.uint32(0xFFFFFFFF)])
def test_append_spellings(spelling):
    layout = InputLayout([el("A", "R8_UNORM"), el("B", "R32_FLOAT", offset=spelling)])
    assert offsets(layout) == [0, 4]
    assert layout.descs[1].aligned_byte_offset == 0xFFFFFFFF
    assert layout.descs[1].is_append_aligned


def test_append_is_the_default_offset():
    layout = InputLayout([{"SemanticName": "A", "Format": "R8_UNORM"},
                          {"SemanticName": "B", "Format": "R32_FLOAT"}])
    assert offsets(layout) == [0, 4]


def test_bad_offset_string_rejected():
    err = rejected([el("A", "R32_FLOAT", offset="APPEND_SOMEWHERE")])
    assert_names(err, 0, None, "AlignedByteOffset", "APPEND_SOMEWHERE")


# ---------------------------------------------------------------------------------------------
# 3.2 alignment of explicit offsets
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt,offset", [
    ("R16_FLOAT", 1), ("R16_UNORM", 3), ("R8G8_UNORM", 1), ("B5G6R5_UNORM", 1),
    ("R32_FLOAT", 2), ("R32_UINT", 1), ("R8G8B8A8_UNORM", 2), ("R10G10B10A2_UNORM", 2),
    ("R16G16B16A16_SINT", 6), ("R32G32B32_FLOAT", 6),
    ("R32G32B32A32_FLOAT", 17), ("R32G32B32A32_FLOAT", 18), ("R32G32B32A32_FLOAT", 19),
])
def test_misaligned_offset_rejected(fmt, offset):
    err = rejected([el("POSITION", "R32_FLOAT", offset=0),
                    el("TEXCOORD", fmt, offset=offset, index=3)])
    assert_names(err, 1, "TEXCOORD3", "AlignedByteOffset", offset)


@pytest.mark.parametrize("fmt,offset", [
    ("R8_UNORM", 1), ("R8_SINT", 3), ("R16_FLOAT", 2), ("R8G8_UINT", 6), ("B4G4R4A4_UNORM", 2),
    ("R32_FLOAT", 4), ("R32G32B32A32_FLOAT", 20), ("R32G32B32A32_FLOAT", 4),
    ("R32G32B32_FLOAT", 4), ("R16G16B16A16_FLOAT", 4), ("R8G8B8A8_UNORM", 2044),
])
def test_aligned_offset_accepted(fmt, offset):
    layout = InputLayout([el("X", fmt, offset=offset)])
    assert offsets(layout) == [offset]


# ---------------------------------------------------------------------------------------------
# 3.1 limits
# ---------------------------------------------------------------------------------------------

def _n_elements(n):
    return [el("TEXCOORD", "R32_FLOAT", index=i) for i in range(n)]


def test_32_elements_accepted():
    layout = InputLayout(_n_elements(32))
    assert len(layout) == 32
    assert layout.elements[-1].offset == 31 * 4


def test_33_elements_rejected():
    err = rejected(_n_elements(33))
    assert "NumElements" in str(err) and "33" in str(err)
    assert err.field == "NumElements" and err.value == 33


def test_input_slot_31_accepted_32_rejected():
    layout = InputLayout([el("A", "R32_FLOAT", slot=31)])
    assert list(layout.slots) == [31]
    err = rejected([el("A", "R32_FLOAT"), el("BLEND", "R32_FLOAT", slot=32, index=2)])
    assert_names(err, 1, "BLEND2", "InputSlot", 32)


def test_d3d10_profile_limits_16():
    assert len(InputLayout(_n_elements(16), profile="d3d10")) == 16
    err = rejected(_n_elements(17), profile="d3d10")
    assert err.field == "NumElements" and err.value == 17
    InputLayout([el("A", "R32_FLOAT", slot=15)], profile="d3d10")
    err = rejected([el("A", "R32_FLOAT", slot=16)], profile="d3d10")
    assert_names(err, 0, "A0", "InputSlot", 16)
    # The same layouts are fine at D3D11/D3D12 limits.
    InputLayout(_n_elements(17), profile="d3d11")
    InputLayout([el("A", "R32_FLOAT", slot=16)], profile="d3d11")


# ---------------------------------------------------------------------------------------------
# 3.5 / 3.6 classification and step rate
# ---------------------------------------------------------------------------------------------

def test_mixed_classification_in_one_slot_rejected():
    err = rejected([el("POSITION", "R32G32_FLOAT", slot=2),
                    el("INST", "R32G32_FLOAT", slot=2, cls="PER_INSTANCE_DATA", rate=1)])
    assert_names(err, 1, "INST0", "InputSlotClass", "PER_INSTANCE_DATA")


def test_mixed_classification_instance_first_rejected():
    err = rejected([el("INST", "R32_FLOAT", cls="PER_INSTANCE_DATA", rate=0),
                    el("POSITION", "R32_FLOAT")])
    assert_names(err, 1, "POSITION0", "InputSlotClass", "PER_VERTEX_DATA")


def test_differing_step_rates_in_one_slot_rejected():
    err = rejected([el("A", "R32_FLOAT", slot=1, cls="PER_INSTANCE_DATA", rate=1),
                    el("B", "R32_FLOAT", slot=1, cls="PER_INSTANCE_DATA", rate=2)])
    assert_names(err, 1, "B0", "InstanceDataStepRate", 2)


def test_step_rates_may_differ_between_slots():
    layout = InputLayout([el("A", "R32_FLOAT", slot=1, cls="PER_INSTANCE_DATA", rate=1),
                          el("B", "R32_FLOAT", slot=2, cls="PER_INSTANCE_DATA", rate=3),
                          el("C", "R32_FLOAT", slot=0)])
    assert layout.slots[1].step_rate == 1 and layout.slots[2].step_rate == 3


def test_step_rate_on_per_vertex_rejected():
    err = rejected([el("POSITION", "R32G32B32_FLOAT", rate=1)])
    assert_names(err, 0, "POSITION0", "InstanceDataStepRate", 1)


def test_per_instance_step_rate_zero_accepted():
    layout = InputLayout([el("I", "R32_UINT", cls="PER_INSTANCE_DATA", rate=0)])
    s = layout.slots[0]
    assert s.per_instance and s.step_rate == 0
    assert layout.elements[0].per_instance and layout.elements[0].step_rate == 0


def test_per_instance_large_step_rate_accepted():
    layout = InputLayout([el("I", "R32_UINT", cls="PER_INSTANCE_DATA", rate=0xFFFFFFFF)])
    assert layout.slots[0].step_rate == 0xFFFFFFFF


# ---------------------------------------------------------------------------------------------
# 3.7 / 3.12 semantics
# ---------------------------------------------------------------------------------------------

def test_duplicate_semantic_rejected_case_insensitively():
    err = rejected([el("COLOR", "R8G8B8A8_UNORM"), el("POSITION", "R32G32_FLOAT"),
                    el("CoLoR", "R32_FLOAT")])
    assert_names(err, 2, "CoLoR", "SemanticName", "CoLoR")
    assert "element 0" in str(err)  # names the first holder of the semantic too


def test_duplicate_semantic_with_index_rejected():
    err = rejected([el("TEXCOORD", "R32G32_FLOAT", index=1),
                    el("texcoord", "R32G32_FLOAT", index=1, slot=3)])
    assert_names(err, 1, "texcoord", "SemanticName", "texcoord")


def test_same_name_different_index_accepted():
    layout = InputLayout([el("TEXCOORD", "R32G32_FLOAT", index=0),
                          el("TexCoord", "R32G32_FLOAT", index=1)])
    assert layout.keys == ("TEXCOORD0", "TEXCOORD1")
    assert layout.element("texcoord1").offset == 8


def test_semantic_keys_are_unambiguous():
    # SemanticName 'TEXCOORD1' is not parsed into name + index (rules 3.7), so these two
    # elements have different semantics; D3D accepts the layout (3.12 only forbids equal pairs).
    try:
        layout = InputLayout([el("TEXCOORD1", "R32_FLOAT", index=0),
                              el("TEXCOORD", "R32_FLOAT", index=10)])
    except InvalidDescError:
        return  # refusing such names would also be a consistent choice
    assert len(set(layout.keys)) == len(layout)


# ---------------------------------------------------------------------------------------------
# Formats, empty and NULL layouts
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["R8G8B8A8_UNORM_SRGB", "R32G32B32A32_TYPELESS", "D32_FLOAT",
                                 "BC1_UNORM", "R9G9B9E5_SHAREDEXP", "UNKNOWN",
                                 "DXGI_FORMAT_A8_UNORM", 29])
def test_non_vertex_format_rejected_naming_the_element(fmt):
    err = rejected([el("POSITION", "R32G32B32_FLOAT"), el("COLOR", fmt, index=1)])
    canonical = {29: "R8G8B8A8_UNORM_SRGB", "DXGI_FORMAT_A8_UNORM": "A8_UNORM"}.get(fmt, fmt)
    assert_names(err, 1, "COLOR1", "Format", canonical)


def test_unknown_format_name_rejected_naming_the_element():
    err = rejected([el("POSITION", "R32G32B32_FLOAT"), el("COLOR", "R8G8B8_UNORM")])
    assert_names(err, 1, None, "Format", "R8G8B8_UNORM")


def test_empty_layout_accepted():
    layout = InputLayout([])
    assert len(layout) == 0 and layout.slots == {} and layout.keys == ()
    assert InputLayout() == layout


def test_null_element_array_rejected():
    err = rejected(None)
    assert "pInputElementDescs" in str(err)


def test_none_element_rejected():
    err = rejected([el("POSITION", "R32_FLOAT"), None])
    assert re.search(r"\belement 1\b", str(err))


# ---------------------------------------------------------------------------------------------
# Accepted spellings of an element
# ---------------------------------------------------------------------------------------------

def _resolved(layout):
    return [(e.key, e.format.name, e.slot, e.offset, e.per_instance, e.step_rate)
            for e in layout.elements]


EXPECTED_FORMS = [("POSITION0", "R32G32B32_FLOAT", 0, 0, False, 0),
                  ("TEXCOORD1", "R16G16_FLOAT", 1, 4, True, 2)]


def test_forms_d3d_dicts():
    layout = InputLayout([
        {"SemanticName": "POSITION", "SemanticIndex": 0, "Format": "R32G32B32_FLOAT",
         "InputSlot": 0, "AlignedByteOffset": 0, "InputSlotClass": "PER_VERTEX_DATA",
         "InstanceDataStepRate": 0},
        {"SemanticName": "TEXCOORD", "SemanticIndex": 1, "Format": "R16G16_FLOAT",
         "InputSlot": 1, "AlignedByteOffset": 4, "InputSlotClass": "PER_INSTANCE_DATA",
         "InstanceDataStepRate": 2},
    ])
    assert _resolved(layout) == EXPECTED_FORMS


def test_forms_snake_case_dicts():
    layout = InputLayout([
        {"semantic_name": "POSITION", "format": "R32G32B32_FLOAT", "aligned_byte_offset": 0},
        {"semantic_name": "TEXCOORD", "semantic_index": 1, "format": "R16G16_FLOAT",
         "input_slot": 1, "aligned_byte_offset": 4, "input_slot_class": "PER_INSTANCE_DATA",
         "instance_data_step_rate": 2},
    ])
    assert _resolved(layout) == EXPECTED_FORMS


def test_forms_tuples_in_struct_order():
    layout = InputLayout([
        ("POSITION", 0, "R32G32B32_FLOAT", 0, 0, "PER_VERTEX_DATA", 0),
        ("TEXCOORD", 1, "R16G16_FLOAT", 1, 4, "PER_INSTANCE_DATA", 2),
    ])
    assert _resolved(layout) == EXPECTED_FORMS


def test_forms_c_prefixes_and_enum_values():
    layout = InputLayout([
        el("POSITION", "DXGI_FORMAT_R32G32B32_FLOAT", offset=0,
           cls="D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA"),
        el("TEXCOORD", "dxgi_format_r16g16_float", slot=1, offset=4,
           cls="D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA", rate=2, index=1),
    ])
    assert _resolved(layout) == EXPECTED_FORMS
    layout2 = InputLayout([el("POSITION", 6, offset=0, cls=0),
                           el("TEXCOORD", 34, slot=1, offset=4, cls=1, rate=2, index=1)])
    assert _resolved(layout2) == EXPECTED_FORMS
    layout3 = InputLayout([el("POSITION", "R32G32B32_FLOAT", offset=0, cls="PER_VERTEX"),
                           el("TEXCOORD", "R16G16_FLOAT", slot=1, offset=4,
                              cls=InputClassification.PER_INSTANCE_DATA, rate=2, index=1)])
    assert _resolved(layout3) == EXPECTED_FORMS


def test_forms_input_element_desc_instances():
    layout = InputLayout([InputElementDesc("POSITION", 0, "R32G32B32_FLOAT", 0, 0),
                          InputElementDesc("TEXCOORD", 1, "R16G16_FLOAT", 1, 4,
                                           "PER_INSTANCE_DATA", 2)])
    assert _resolved(layout) == EXPECTED_FORMS


def test_numpy_integers_accepted():
    layout = InputLayout([el("A", "R32_FLOAT", slot=np.int64(3), offset=np.uint32(8),
                             index=np.int32(2))])
    assert _resolved(layout) == [("A2", "R32_FLOAT", 3, 8, False, 0)]


def test_unknown_dict_key_rejected():
    err = rejected([el("POSITION", "R32_FLOAT"),
                    {"SemanticName": "COLOR", "Fromat": "R8G8B8A8_UNORM"}])
    assert_names(err, 1, None, "Fromat", "R8G8B8A8_UNORM")


def test_too_long_tuple_rejected():
    err = rejected([("POSITION", 0, "R32_FLOAT", 0, 0, "PER_VERTEX_DATA", 0, 99)])
    assert re.search(r"\belement 0\b", str(err))


def test_negative_input_slot_rejected():
    err = rejected([el("POSITION", "R32_FLOAT"), el("COLOR", "R32_FLOAT", slot=-1)])
    assert_names(err, 1, None, "InputSlot", -1)


@pytest.mark.parametrize("offset", [4.0, 4.5, "4", None, True])
def test_non_integer_offset_rejected(offset):
    err = rejected([el("POSITION", "R32_FLOAT"), el("COLOR", "R32_FLOAT", offset=offset)])
    assert_names(err, 1, None, "AlignedByteOffset", offset)


@pytest.mark.parametrize("field,value", [("SemanticIndex", -1), ("InstanceDataStepRate", -3),
                                         ("InputSlotClass", "PER_PIXEL"), ("SemanticName", ""),
                                         ("InputSlotClass", 2)])
def test_bad_field_values_rejected(field, value):
    e = el("COLOR", "R32_FLOAT")
    e[field] = value
    err = rejected([el("POSITION", "R32_FLOAT"), e])
    assert_names(err, 1, None, field, value)


@pytest.mark.parametrize("bad", [{"InputSlot": -1}, {"AlignedByteOffset": 4.5},
                                 {"Format": "R8G8B8_UNORM"}])
def test_field_level_rejection_names_the_semantic(bad):
    e = el("COLOR", "R32_FLOAT", index=5)
    e.update(bad)
    err = rejected([el("POSITION", "R32_FLOAT"), e])
    assert "COLOR" in str(err)


# ---------------------------------------------------------------------------------------------
# Slot info, equality, hashing
# ---------------------------------------------------------------------------------------------

def test_slot_info():
    layout = InputLayout([
        el("POSITION", "R32G32B32_FLOAT"),                  # slot 0 @0, end 12
        el("COLOR", "R8G8B8A8_UNORM"),                      # slot 0 @12, end 16
        el("I_A", "R8_UINT", slot=2, cls="PER_INSTANCE", rate=3),        # slot 2 @0, end 1
        el("I_B", "R16_FLOAT", slot=2, cls="PER_INSTANCE", rate=3),      # slot 2 @2, end 4
        el("ID", "R8_UINT", slot=5, cls="PER_INSTANCE", rate=0),         # slot 5 @0, end 1
    ])
    assert list(layout.slots) == [0, 2, 5]
    s0, s2, s5 = layout.slots[0], layout.slots[2], layout.slots[5]
    assert (s0.extent, s0.alignment, s0.per_instance, s0.step_rate) == (16, 4, False, 0)
    assert (s2.extent, s2.alignment, s2.per_instance, s2.step_rate) == (4, 2, True, 3)
    assert (s5.extent, s5.alignment, s5.per_instance, s5.step_rate) == (1, 1, True, 0)
    assert [e.key for e in s2.elements] == ["I_A0", "I_B0"]
    assert s2.input_slot_class == InputClassification.PER_INSTANCE_DATA


def test_slot_extent_is_the_furthest_end_not_the_last_element():
    # Overlapping elements are legal (3.3): R32G32B32A32 @0 (end 16) then R32 @4 (end 8).
    layout = InputLayout([el("A", "R32G32B32A32_FLOAT", offset=0), el("B", "R32_FLOAT", offset=4)])
    assert layout.slots[0].extent == 16
    # Two elements at the same offset (WINE test_create_input_layout).
    layout = InputLayout([el("A", "R32G32_FLOAT", offset=0), el("B", "R32G32_UINT", offset=0)])
    assert offsets(layout) == [0, 0] and layout.slots[0].extent == 8


def test_resolved_element_properties():
    layout = InputLayout([el("POSITION", "R32G32B32_FLOAT", offset=4, slot=3)])
    (e,) = layout.elements
    assert (e.index, e.key, e.slot, e.offset, e.end) == (0, "POSITION0", 3, 4, 16)
    assert e.format is gpuia.VERTEX_FORMATS["R32G32B32_FLOAT"]
    assert list(layout) == [e]


def test_layouts_equal_and_hashable_when_built_from_equal_descs():
    a = InputLayout([el("POSITION", "R32G32B32_FLOAT", offset=0),
                     el("COLOR", "R8G8B8A8_UNORM", cls="PER_VERTEX_DATA")])
    b = InputLayout([("POSITION", 0, "DXGI_FORMAT_R32G32B32_FLOAT", 0, 0),
                     {"semantic_name": "COLOR", "format": "r8g8b8a8_unorm",
                      "aligned_byte_offset": "APPEND_ALIGNED_ELEMENT",
                      "input_slot_class": "D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA"}])
    assert a == b and hash(a) == hash(b)
    cache = {a: "pso"}
    assert cache[b] == "pso"
    c = InputLayout([el("POSITION", "R32G32B32_FLOAT", offset=0),
                     el("COLOR", "R8G8B8A8_UNORM", slot=1)])
    assert a != c
    d = InputLayout([el("POSITION", "R32G32B32_FLOAT", offset=0),
                     el("COLOR", "R8G8B8A8_UNORM")], profile="d3d10")
    assert a != d
    assert a != "not a layout"


def test_to_dicts_round_trip():
    a = InputLayout([el("POSITION", "R32G32B32_FLOAT", offset=0),
                     el("COLOR", "R8G8B8A8_UNORM", slot=1, cls="PER_INSTANCE", rate=2)])
    b = InputLayout(json.loads(json.dumps(a.to_dicts())))
    assert a == b and _resolved(a) == _resolved(b)


# ---------------------------------------------------------------------------------------------
# numpy structured dtypes
# ---------------------------------------------------------------------------------------------

ROUND_TRIP_LAYOUT = [
    el("POSITION", "R32G32B32_FLOAT"),          # @0, 12 bytes
    el("TEXCOORD", "R16G16_FLOAT", index=1),    # @12, 4 bytes
    el("COLOR", "R8G8B8A8_UNORM"),              # @16, 4 bytes
    el("NORMAL", "R10G10B10A2_UNORM"),          # @20, 4 bytes (packed: one u4)
    el("BLENDINDICES", "R16G16B16A16_UINT"),    # @24, 8 bytes -> extent 32
]


def test_slot_dtype_fields_offsets_itemsize():
    layout = InputLayout(ROUND_TRIP_LAYOUT)
    dt = layout.slot_dtype(0)
    assert dt.names == ("POSITION0", "TEXCOORD1", "COLOR0", "NORMAL0", "BLENDINDICES0")
    assert [dt.fields[n][1] for n in dt.names] == [0, 12, 16, 20, 24]
    assert dt.itemsize == 32  # default stride = extent
    assert dt.fields["POSITION0"][0] == np.dtype(("<f4", (3,)))
    assert dt.fields["TEXCOORD1"][0] == np.dtype(("<f2", (2,)))
    assert dt.fields["COLOR0"][0] == np.dtype(("<u1", (4,)))
    assert dt.fields["NORMAL0"][0] == np.dtype("<u4")
    assert dt.fields["BLENDINDICES0"][0] == np.dtype(("<u2", (4,)))
    assert layout.slot_dtype(0, stride=48).itemsize == 48


def test_slot_dtype_stride_smaller_than_extent_rejected():
    layout = InputLayout(ROUND_TRIP_LAYOUT)
    with pytest.raises(ValueError):
        layout.slot_dtype(0, stride=28)


def test_slot_dtype_writes_bytes_where_the_layout_reads():
    layout = InputLayout(ROUND_TRIP_LAYOUT)
    arr = np.zeros(2, dtype=layout.slot_dtype(0, stride=36))
    arr["POSITION0"][1] = (1.0, 2.0, 3.0)
    arr["COLOR0"][1] = (0x11, 0x22, 0x33, 0x44)
    arr["NORMAL0"][0] = 0xA00003FF
    raw = arr.tobytes()
    assert len(raw) == 72
    assert raw[36:48] == struct.pack("<3f", 1.0, 2.0, 3.0)
    assert raw[36 + 16:36 + 20] == bytes([0x11, 0x22, 0x33, 0x44])
    assert raw[20:24] == struct.pack("<I", 0xA00003FF)


def test_elements_from_dtype_round_trip_with_formats_override():
    layout = InputLayout(ROUND_TRIP_LAYOUT)
    dt = layout.slot_dtype(0, stride=36)
    elements, stride = elements_from_dtype(
        dt, formats={"COLOR0": "R8G8B8A8_UNORM", "NORMAL0": "R10G10B10A2_UNORM"})
    assert stride == 36
    assert all(isinstance(e, InputElementDesc) for e in elements)
    assert [e.aligned_byte_offset for e in elements] == [0, 12, 16, 20, 24]  # explicit
    back = InputLayout(elements)
    assert _resolved(back) == _resolved(layout)
    assert back.slot_dtype(0, stride=36) == dt


def test_elements_from_dtype_without_override_uses_integer_formats():
    layout = InputLayout(ROUND_TRIP_LAYOUT)
    elements, _ = elements_from_dtype(layout.slot_dtype(0))
    assert [e.format for e in elements] == ["R32G32B32_FLOAT", "R16G16_FLOAT", "R8G8B8A8_UINT",
                                            "R32_UINT", "R16G16B16A16_UINT"]


def test_elements_from_hand_written_dtype():
    dt = np.dtype([("POSITION", "<f4", (2,)), ("TEXCOORD1", "<f2", (2,)), ("ID", "<i4"),
                   ("WEIGHTS", "<u1", (4,)), ("SV_Position", "<i2", (4,))])
    elements, stride = elements_from_dtype(dt, formats={"weights": "R8G8B8A8_UNORM"})
    # packed record: offsets 0, 8, 12, 16, 20; itemsize 28
    assert stride == 28
    assert [(e.semantic_name, e.semantic_index, e.format, e.aligned_byte_offset)
            for e in elements] == [("POSITION", 0, "R32G32_FLOAT", 0),
                                   ("TEXCOORD", 1, "R16G16_FLOAT", 8),
                                   ("ID", 0, "R32_SINT", 12),
                                   ("WEIGHTS", 0, "R8G8B8A8_UNORM", 16),
                                   ("SV_POSITION", 0, "R16G16B16A16_SINT", 20)]
    layout = InputLayout(elements)
    assert layout.keys == ("POSITION0", "TEXCOORD1", "ID0", "WEIGHTS0", "SV_POSITION0")


def test_elements_from_dtype_per_instance():
    dt = np.dtype([("OFFSET", "<f4", (4,))])
    elements, stride = elements_from_dtype(dt, slot=3, input_slot_class="PER_INSTANCE_DATA",
                                           instance_data_step_rate=2)
    layout = InputLayout(elements)
    s = layout.slots[3]
    assert (s.per_instance, s.step_rate, s.extent, stride) == (True, 2, 16, 16)


@pytest.mark.parametrize("field", [("P", "<f8"), ("P", "<f8", (2,)), ("P", "<u1", (3,)),
                                   ("P", "<f4", (5,)), ("P", "<i8"), ("P", "<c8"),
                                   ("P", "<f2", (3,))])
def test_elements_from_dtype_field_without_vertex_format(field):
    with pytest.raises(ValueError):
        elements_from_dtype(np.dtype([field]))


def test_elements_from_plain_dtype_rejected():
    with pytest.raises(ValueError):
        elements_from_dtype(np.dtype("<f4"))


# ---------------------------------------------------------------------------------------------
# Real layouts (helpers.REAL_LAYOUTS: the real-layouts demo's data/real-layouts.json)
# ---------------------------------------------------------------------------------------------

REAL = json.loads(REAL_LAYOUTS.read_text())["layouts"]

# Resolved offsets stated in the JSON notes (transcribed here by hand), in element order.
STATED_OFFSETS = {
    "hdr_gradient": [0, 12],
    "miniengine_color_pso_all_attributes": [0, 12, 16, 20, 24, 28, 36],
    "dxtk12_position_normal_tangent_color_texture": [0, 12, 24, 40, 44],
    "dxtk12_position_normal_tangent_color_texture_skinning": [0, 12, 24, 40, 44, 52, 56],
    # COLOR2 (slot 1) @0, COLOR3 (slot 5) @0, POSITION (slot 0) @0, COLOR0 (slot 5) @8,
    # COLOR1 (slot 1) @8
    "vkd3d_append_aligned_multi_slot": [0, 0, 0, 8, 8],
}
# Stride stated in the notes (not in strides_by_slot) for slot 0.
STATED_STRIDES = {
    "miniengine_color_pso_all_attributes": 44,
    "dxtk12_position_normal_tangent_color_texture": 52,
    "dxtk12_position_normal_tangent_color_texture_skinning": 60,
}


def _d3d_element(e: dict) -> dict:
    """The JSON schema's element -> a D3D-named dict (schema: 'APPEND_ALIGNED' stands for
    D3D12_APPEND_ALIGNED_ELEMENT, PER_VERTEX/PER_INSTANCE for the *_DATA classifications)."""
    off = e["aligned_byte_offset"]
    return {
        "SemanticName": e["semantic"], "SemanticIndex": e["semantic_index"],
        "Format": e["format"], "InputSlot": e["input_slot"],
        "AlignedByteOffset": APPEND if off == "APPEND_ALIGNED" else off,
        "InputSlotClass": {"PER_VERTEX": "D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA",
                           "PER_INSTANCE": "D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA"}[
                               e["input_slot_class"]],
        "InstanceDataStepRate": e["instance_data_step_rate"],
    }


def test_real_layouts_file_found():
    assert len(REAL) >= 10
    for name in list(STATED_OFFSETS) + list(STATED_STRIDES):
        assert name in {L["name"] for L in REAL}


@pytest.mark.parametrize("real", REAL, ids=[L["name"] for L in REAL])
def test_real_layout(real):
    elements = [_d3d_element(e) for e in real["elements"]]
    if "quirk_step_rate_on_per_vertex" in real.get("tags", []):
        # Mesh-shader descs with InstanceDataStepRate 1 on PER_VERTEX data: an IA PSO must
        # refuse them (rules 3.6).
        i = next(i for i, e in enumerate(real["elements"])
                 if e["input_slot_class"] == "PER_VERTEX" and e["instance_data_step_rate"] != 0)
        err = rejected(elements)
        assert_names(err, i, real["elements"][i]["semantic"], "InstanceDataStepRate",
                     real["elements"][i]["instance_data_step_rate"])
        return
    layout = InputLayout(elements)
    assert len(layout) == len(elements)
    for e, src in zip(layout.elements, real["elements"], strict=True):
        assert e.offset % e.format.alignment == 0
        if src["aligned_byte_offset"] != "APPEND_ALIGNED":
            assert e.offset == src["aligned_byte_offset"]
        assert e.format.name == src["format"].removeprefix("DXGI_FORMAT_")
        assert e.slot == src["input_slot"]
    if real["name"] in STATED_OFFSETS:
        assert offsets(layout) == STATED_OFFSETS[real["name"]]
    for slot, stride in (real.get("strides_by_slot") or {}).items():
        assert layout.slots[int(slot)].extent <= stride
    if real["name"] in STATED_STRIDES:
        assert layout.slots[0].extent == STATED_STRIDES[real["name"]]
    # The same layout written with the JSON's own spellings resolves identically.
    raw = [{"SemanticName": e["semantic"], "SemanticIndex": e["semantic_index"],
            "Format": e["format"], "InputSlot": e["input_slot"],
            "AlignedByteOffset": e["aligned_byte_offset"], "InputSlotClass": e["input_slot_class"],
            "InstanceDataStepRate": e["instance_data_step_rate"]} for e in real["elements"]]
    assert InputLayout(raw) == layout
