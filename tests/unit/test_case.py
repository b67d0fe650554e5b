"""load_case / decode_data / result_json against the fixed contract of docs/case-format.md.

Expected values are derived by hand from the spec (and from IEEE-754 / little-endian encoding
worked out with ``struct``), never pasted from gpuia's own output.
"""

from __future__ import annotations

import copy
import json
import math
import struct
from types import SimpleNamespace

import numpy as np
import pytest

import gpuia
from gpuia import CaseError, InvalidDescError
from gpuia.harness.case import decode_data, json_value, load_case, result_json
from gpuia.harness.run import run_case

APPEND = 0xFFFFFFFF  # D3D12_APPEND_ALIGNED_ELEMENT
MALFORMED = (CaseError, InvalidDescError)


def f32bits(x: float) -> int:
    """The IEEE-754 binary32 pattern of x, as an unsigned integer."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


ONE = f32bits(1.0)  # 0x3F800000


def minimal(**overrides) -> dict:
    """A valid one-point case; keyword arguments replace (or, with value ..., delete) keys."""
    doc = {
        "gpuia_case": 1,
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 4, "data": {"hex": "0000803f"}}],
        "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": 1, "InstanceCount": 1,
                                   "StartVertexLocation": 0, "StartInstanceLocation": 0}},
    }
    for k, v in overrides.items():
        if v is ...:
            doc.pop(k, None)
        else:
            doc[k] = v
    return doc


def draw_instanced(vcount=1, icount=1, start_vertex=0, start_instance=0) -> dict:
    return {"DrawInstanced": {"VertexCountPerInstance": vcount, "InstanceCount": icount,
                              "StartVertexLocation": start_vertex,
                              "StartInstanceLocation": start_instance}}


def draw_indexed(icount=1, instances=1, start_index=0, base_vertex=0, start_instance=0) -> dict:
    return {"DrawIndexedInstanced": {"IndexCountPerInstance": icount, "InstanceCount": instances,
                                     "StartIndexLocation": start_index,
                                     "BaseVertexLocation": base_vertex,
                                     "StartInstanceLocation": start_instance}}


# =============================================================================================
# DATA blocks
# =============================================================================================
class TestHex:
    def test_plain(self):
        assert decode_data({"hex": "00ff10a0"}, "d") == b"\x00\xff\x10\xa0"

    def test_whitespace_of_every_kind_is_ignored(self):
        assert decode_data({"hex": " 01 02\n03\t04  \r\n0506 "}, "d") == bytes([1, 2, 3, 4, 5, 6])

    def test_upper_case_digits(self):
        assert decode_data({"hex": "ABCDEF"}, "d") == b"\xab\xcd\xef"

    def test_empty(self):
        assert decode_data({"hex": ""}, "d") == b""

    @pytest.mark.parametrize("text", ["zz", "abc", "0x00", "0g", "01 2"])
    def test_bad_hex(self, text):
        with pytest.raises(MALFORMED):
            decode_data({"hex": text}, "d")

    def test_hex_not_a_string(self):
        with pytest.raises(MALFORMED):
            decode_data({"hex": 1234}, "d")


class TestBase64:
    def test_plain(self):
        assert decode_data({"base64": "AQIDBA=="}, "d") == bytes([1, 2, 3, 4])

    def test_same_bytes_as_hex(self):
        assert decode_data({"base64": "AACAPw=="}, "d") == decode_data({"hex": "0000803f"}, "d")

    @pytest.mark.parametrize("text", ["@@@@", "AAE", "A", "AQID*A=="])
    def test_bad_base64(self, text):
        with pytest.raises(MALFORMED):
            decode_data({"base64": text}, "d")

    def test_base64_not_a_string(self):
        with pytest.raises(MALFORMED):
            decode_data({"base64": ["AQ=="]}, "d")


class TestDtypeValues:
    def test_float32(self):
        data = decode_data({"dtype": "float32", "values": [1.0, -2.5]}, "d")
        assert data == struct.pack("<ff", 1.0, -2.5)

    def test_nested_lists_flatten_in_c_order(self):
        data = decode_data({"dtype": "uint8", "values": [[1, 2, 3], [4, 5, 6]]}, "d")
        assert data == bytes([1, 2, 3, 4, 5, 6])
        data = decode_data({"dtype": "uint16", "values": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]}, "d")
        assert data == struct.pack("<8H", 1, 2, 3, 4, 5, 6, 7, 8)

    @pytest.mark.parametrize("dtype", ["uint16", "<u2", ">u2", "=u2"])
    def test_integers_are_stored_little_endian_whatever_the_byte_order(self, dtype):
        assert decode_data({"dtype": dtype, "values": [0x0102, 0xA0B0]}, "d") == \
            bytes([0x02, 0x01, 0xB0, 0xA0])

    @pytest.mark.parametrize("dtype", ["float32", "<f4", ">f4"])
    def test_floats_are_stored_little_endian_whatever_the_byte_order(self, dtype):
        # 1.0f = 0x3F800000, -2.0f = 0xC0000000
        assert decode_data({"dtype": dtype, "values": [1.0, -2.0]}, "d").hex() == "0000803f000000c0"

    def test_big_endian_int32(self):
        assert decode_data({"dtype": ">i4", "values": [-2]}, "d") == b"\xfe\xff\xff\xff"

    def test_float16(self):
        # binary16: 1.0 = 0x3C00, -2.0 = 0xC000, 0.5 = 0x3800, 65504 = 0x7BFF (largest finite)
        data = decode_data({"dtype": "<f2", "values": [1.0, -2.0, 0.5, 65504]}, "d")
        assert data == struct.pack("<4H", 0x3C00, 0xC000, 0x3800, 0x7BFF)

    def test_float16_big_endian_request_still_little_endian(self):
        assert decode_data({"dtype": ">f2", "values": [1.0]}, "d") == b"\x00\x3c"

    def test_nan_inf_strings_float32(self):
        data = decode_data({"dtype": "float32", "values": ["nan", "inf", "-inf", 0.0]}, "d")
        a, b, c, d = struct.unpack("<4I", data)
        assert (a & 0x7F800000) == 0x7F800000 and (a & 0x007FFFFF) != 0  # a NaN
        assert b == 0x7F800000
        assert c == 0xFF800000
        assert d == 0

    def test_nan_inf_strings_float16(self):
        data = decode_data({"dtype": "<f2", "values": ["inf", "-inf", "nan"]}, "d")
        a, b, c = struct.unpack("<3H", data)
        assert a == 0x7C00
        assert b == 0xFC00
        assert (c & 0x7C00) == 0x7C00 and (c & 0x03FF) != 0

    def test_nan_inf_strings_float64(self):
        data = decode_data({"dtype": "float64", "values": ["-inf"]}, "d")
        assert data == struct.pack("<d", -math.inf)

    @pytest.mark.parametrize("dtype,values,expected", [
        ("uint8", [0, 255], b"\x00\xff"),
        ("int8", [-128, 127], b"\x80\x7f"),
        ("int16", [-1], b"\xff\xff"),
        ("uint32", [4294967295], b"\xff\xff\xff\xff"),
        ("int32", [-2147483648], b"\x00\x00\x00\x80"),
    ])
    def test_integer_range_limits(self, dtype, values, expected):
        assert decode_data({"dtype": dtype, "values": values}, "d") == expected

    def test_integral_float_for_integer_dtype_is_fine(self):
        assert decode_data({"dtype": "uint8", "values": [3.0]}, "d") == b"\x03"

    @pytest.mark.parametrize("dtype", ["foo", "f5", "float33", "complex64", "U3", "object",
                                       "S4", "datetime64[s]", "u1,u1"])
    def test_unknown_or_non_numeric_dtype(self, dtype):
        with pytest.raises(MALFORMED):
            decode_data({"dtype": dtype, "values": [1]}, "d")

    def test_null_dtype(self):
        with pytest.raises(MALFORMED):
            decode_data({"dtype": None, "values": [1]}, "d")

    @pytest.mark.parametrize("dtype,value", [
        ("uint8", 256), ("uint8", -1), ("int8", 128), ("int8", -129), ("uint16", 65536),
        ("uint16", -1), ("int16", 32768), ("uint32", 2 ** 32), ("int32", 2 ** 31),
        ("int32", -(2 ** 31) - 1), ("uint64", 2 ** 64), ("int64", 2 ** 70),
    ])
    def test_values_overflowing_the_integer_dtype(self, dtype, value):
        with pytest.raises(MALFORMED):
            decode_data({"dtype": dtype, "values": [0, value]}, "d")

    @pytest.mark.parametrize("dtype,value", [
        ("uint8", 1.5), ("int32", -0.25), ("int16", "nan"), ("uint32", "inf"), ("int8", "-inf"),
        ("uint8", "abc"),
    ])
    def test_non_integer_values_for_an_integer_dtype(self, dtype, value):
        with pytest.raises(MALFORMED):
            decode_data({"dtype": dtype, "values": [1, value]}, "d")

    @pytest.mark.parametrize("values", [["abc"], [None], [[1.0, 2.0], [3.0]], [{"x": 1}],
                                        "1 2 3", {"a": 1}, None])
    def test_non_numeric_values_for_a_float_dtype(self, values):
        with pytest.raises(MALFORMED):
            decode_data({"dtype": "float32", "values": values}, "d")

    @pytest.mark.parametrize("block", [
        "00ff", ["00"], None, {}, {"hex": "00", "base64": "AA=="}, {"dtype": "uint8"},
        {"values": [1]}, {"hex": "00", "extra": 1}, {"HEX": "00"},
    ])
    def test_malformed_block_shape(self, block):
        with pytest.raises(MALFORMED):
            decode_data(block, "d")

    def test_errors_are_value_errors(self):
        with pytest.raises(ValueError):
            decode_data({"hex": "zz"}, "d")
        assert issubclass(CaseError, ValueError) and issubclass(InvalidDescError, ValueError)


# =============================================================================================
# load_case: sources and names
# =============================================================================================
class TestSources:
    def test_dict_json_text_and_path_give_the_same_case(self, tmp_path):
        doc = minimal()
        p = tmp_path / "same.json"
        p.write_text(json.dumps(doc))
        for src in (doc, json.dumps(doc), p, str(p)):
            case = load_case(src)
            assert [e.key for e in case.layout.elements] == ["POSITION0"]
            assert case.vertex_buffers[0].buffer == struct.pack("<f", 1.0)

    def test_name_is_the_name_field(self, tmp_path):
        p = tmp_path / "file_stem.json"
        p.write_text(json.dumps(minimal(name="the name")))
        assert load_case(p).name == "the name"

    def test_name_defaults_to_the_file_stem(self, tmp_path):
        p = tmp_path / "file_stem.json"
        p.write_text(json.dumps(minimal()))
        assert load_case(p).name == "file_stem"

    def test_dict_is_not_modified(self):
        doc = minimal(input_layout=[{"SemanticName": "A", "Format": "R32_FLOAT"},
                                    {"SemanticName": "B", "Format": "R32_FLOAT"}])
        before = copy.deepcopy(doc)
        load_case(doc)
        assert doc == before

    def test_optional_free_text_keys(self):
        case = load_case(minimal(name="n", description="free text"))
        assert case.name == "n"


# =============================================================================================
# input_layout
# =============================================================================================
class TestInputLayout:
    def test_defaults_of_absent_keys(self):
        case = load_case(minimal(input_layout=[{"SemanticName": "POSITION",
                                                "Format": "R32_FLOAT"}]))
        (e,) = case.layout.elements
        d = e.desc
        assert d.semantic_name == "POSITION"
        assert d.semantic_index == 0
        assert d.input_slot == 0
        assert d.aligned_byte_offset == APPEND
        assert d.input_slot_class == gpuia.InputClassification.PER_VERTEX_DATA
        assert d.instance_data_step_rate == 0
        assert e.offset == 0  # the first appended element of slot 0 is at 0
        assert e.key == "POSITION0"

    def test_append_aligned_is_the_default_offset(self):
        # R32G32B32_FLOAT is 12 bytes; the next element (absent AlignedByteOffset) follows at 12.
        case = load_case(minimal(input_layout=[
            {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
            {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM"},
            {"SemanticName": "TEXCOORD", "SemanticIndex": 3, "Format": "R16G16_FLOAT"},
        ]))
        assert [e.offset for e in case.layout.elements] == [0, 12, 16]
        assert [e.key for e in case.layout.elements] == ["POSITION0", "COLOR0", "TEXCOORD3"]

    def test_append_aligned_integer_equals_name(self):
        def layout(offset):
            return [{"SemanticName": "A", "Format": "R16_UINT", "AlignedByteOffset": 0},
                    {"SemanticName": "B", "Format": "R32_FLOAT", "AlignedByteOffset": offset}]
        by_int = load_case(minimal(input_layout=layout(4294967295)))
        by_name = load_case(minimal(input_layout=layout("APPEND_ALIGNED_ELEMENT")))
        # R16 ends at 2; R32_FLOAT aligns to 4.
        assert [e.offset for e in by_int.layout.elements] == [0, 4]
        assert [e.offset for e in by_name.layout.elements] == [0, 4]
        assert by_int.layout.elements[1].desc == by_name.layout.elements[1].desc
        assert by_int.layout.elements[1].desc.aligned_byte_offset == APPEND

    def test_format_prefix(self):
        a = load_case(minimal(input_layout=[{"SemanticName": "P",
                                             "Format": "DXGI_FORMAT_R16G16_SNORM"}]))
        b = load_case(minimal(input_layout=[{"SemanticName": "P", "Format": "R16G16_SNORM"}]))
        assert a.layout.elements[0].format.name == "R16G16_SNORM"
        assert a.layout.elements[0].format == b.layout.elements[0].format

    @pytest.mark.parametrize("cls", ["PER_INSTANCE_DATA",
                                     "D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA"])
    def test_classification_with_and_without_prefix(self, cls):
        case = load_case(minimal(input_layout=[
            {"SemanticName": "P", "Format": "R32_FLOAT", "InputSlot": 2, "InputSlotClass": cls,
             "InstanceDataStepRate": 3}]))
        d = case.layout.elements[0].desc
        assert d.input_slot_class == gpuia.InputClassification.PER_INSTANCE_DATA
        assert d.instance_data_step_rate == 3 and d.input_slot == 2

    def test_per_vertex_with_prefix(self):
        case = load_case(minimal(input_layout=[
            {"SemanticName": "P", "Format": "R32_FLOAT",
             "InputSlotClass": "D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA"}]))
        assert (case.layout.elements[0].desc.input_slot_class
                == gpuia.InputClassification.PER_VERTEX_DATA)

    def test_all_fields_given(self):
        case = load_case(minimal(input_layout=[
            {"SemanticName": "TEXCOORD", "SemanticIndex": 5, "Format": "R32G32_FLOAT",
             "InputSlot": 7, "AlignedByteOffset": 8, "InputSlotClass": "PER_VERTEX_DATA",
             "InstanceDataStepRate": 0}]))
        e = case.layout.elements[0]
        assert (e.key, e.slot, e.offset) == ("TEXCOORD5", 7, 8)

    @pytest.mark.parametrize("element", [5, "POSITION", None, ["POSITION", 0, "R32_FLOAT"]])
    def test_element_not_an_object(self, element):
        with pytest.raises(MALFORMED):
            load_case(minimal(input_layout=[element]))

    def test_missing_semantic_name(self):
        with pytest.raises(MALFORMED):
            load_case(minimal(input_layout=[{"Format": "R32_FLOAT"}]))

    def test_input_layout_not_a_list(self):
        with pytest.raises(MALFORMED):
            load_case(minimal(input_layout={"SemanticName": "P", "Format": "R32_FLOAT"}))

    def test_result_keys_colliding(self):
        # 'POSITION2' index 0 and 'POSITION' index 20 would both be reported as POSITION20.
        with pytest.raises(MALFORMED):
            load_case(minimal(input_layout=[
                {"SemanticName": "POSITION2", "SemanticIndex": 0, "Format": "R32_FLOAT"},
                {"SemanticName": "POSITION", "SemanticIndex": 20, "Format": "R32_FLOAT"}]))

    def test_result_keys_colliding_other_order(self):
        with pytest.raises(MALFORMED):
            load_case(minimal(input_layout=[
                {"SemanticName": "POSITION", "SemanticIndex": 20, "Format": "R32_FLOAT"},
                {"SemanticName": "POSITION2", "Format": "R32_FLOAT"}]))

    def test_digit_names_without_collision_are_fine(self):
        case = load_case(minimal(input_layout=[
            {"SemanticName": "POSITION2", "SemanticIndex": 0, "Format": "R32_FLOAT"},
            {"SemanticName": "POSITION", "SemanticIndex": 2, "Format": "R32_FLOAT"}]))
        assert [e.key for e in case.layout.elements] == ["POSITION20", "POSITION2"]


# =============================================================================================
# vertex_buffers
# =============================================================================================
class TestVertexBuffers:
    DATA = {"hex": "00010203 04050607 08090a0b 0c0d0e0f"}  # 16 bytes

    def test_view_fields(self):
        case = load_case(minimal(vertex_buffers=[
            {"slot": 0, "stride": 8, "offset": 4, "size": 8, "data": self.DATA}]))
        v = case.vertex_buffers[0]
        assert bytes(v.buffer) == bytes(range(16))
        assert (v.stride_in_bytes, v.offset, v.size_in_bytes) == (8, 4, 8)

    @pytest.mark.parametrize("extra", [{"size": None}, {}])
    def test_size_null_or_absent_is_the_rest_of_the_data(self, extra):
        case = load_case(minimal(vertex_buffers=[
            {"slot": 0, "stride": 4, "offset": 4, "data": self.DATA, **extra}]))
        assert case.vertex_buffers[0].size_in_bytes == 12

    def test_offset_absent_is_zero(self):
        case = load_case(minimal(vertex_buffers=[{"slot": 0, "stride": 4, "data": self.DATA}]))
        v = case.vertex_buffers[0]
        assert (v.offset, v.size_in_bytes) == (0, 16)

    def test_view_may_end_exactly_at_the_end(self):
        case = load_case(minimal(vertex_buffers=[
            {"slot": 0, "stride": 4, "offset": 16, "size": 0, "data": self.DATA}]))
        assert case.vertex_buffers[0].size_in_bytes == 0

    def test_data_null_is_unbound(self):
        case = load_case(minimal(vertex_buffers=[{"slot": 0, "data": None}]))
        assert 0 in case.vertex_buffers and case.vertex_buffers[0] is None

    def test_several_slots(self):
        case = load_case(minimal(
            input_layout=[{"SemanticName": "A", "Format": "R32_FLOAT"},
                          {"SemanticName": "B", "Format": "R32_FLOAT", "InputSlot": 3}],
            vertex_buffers=[{"slot": 3, "stride": 4, "data": {"dtype": "float32", "values": [2.0]}},
                            {"slot": 0, "stride": 4, "data": {"base64": "AACAPw=="}}]))
        assert bytes(case.vertex_buffers[0].buffer) == struct.pack("<f", 1.0)
        assert bytes(case.vertex_buffers[3].buffer) == struct.pack("<f", 2.0)

    def test_unbound_by_absence_equals_unbound_by_null(self):
        layout = [{"SemanticName": "POSITION", "Format": "R32_FLOAT"},
                  {"SemanticName": "COLOR", "Format": "R32G32B32A32_FLOAT", "InputSlot": 1}]
        vb0 = {"slot": 0, "stride": 4, "data": {"hex": "0000803f"}}
        absent = load_case(minimal(input_layout=layout, vertex_buffers=[vb0]))
        null = load_case(minimal(input_layout=layout,
                                 vertex_buffers=[vb0, {"slot": 1, "data": None}]))
        assert absent.vertex_buffers.get(1) is None
        _, doc_absent = run_case(absent)
        _, doc_null = run_case(null)
        assert doc_absent["invocations"] == doc_null["invocations"]
        # D3D12: an unbound slot fetches 0 in all four components (no default w).
        assert doc_absent["invocations"][0]["inputs"]["COLOR0"]["bits"] == [0, 0, 0, 0]
        assert doc_absent["invocations"][0]["inputs"]["POSITION0"]["bits"] == [ONE, 0, 0, ONE]

    @pytest.mark.parametrize("entry", [
        {"slot": 0, "stride": 4, "offset": 17, "data": DATA},
        {"slot": 0, "stride": 4, "offset": 8, "size": 9, "data": DATA},
        {"slot": 0, "stride": 4, "size": 17, "data": DATA},
        {"slot": 0, "stride": 4, "offset": 100, "size": 0, "data": DATA},
    ])
    def test_view_past_the_data(self, entry):
        with pytest.raises(MALFORMED):
            load_case(minimal(vertex_buffers=[entry]))

    def test_duplicate_slot_entry(self):
        with pytest.raises(MALFORMED):
            load_case(minimal(vertex_buffers=[{"slot": 0, "stride": 4, "data": self.DATA},
                                              {"slot": 0, "data": None}]))

    @pytest.mark.parametrize("entry", [
        {"slot": -1, "data": None}, {"stride": 4, "data": DATA},
        {"slot": 0, "stride": -4, "data": DATA},
        {"slot": 0, "stride": 4, "offset": -1, "data": DATA},
        {"slot": 0, "stride": "4", "data": DATA}, {"slot": 0, "stride": 4}, "slot0",
        {"slot": 0, "stride": 4, "data": DATA, "Stride": 4},
    ])
    def test_malformed_entries(self, entry):
        with pytest.raises(MALFORMED):
            load_case(minimal(vertex_buffers=[entry]))

    def test_vertex_buffers_not_a_list(self):
        with pytest.raises(MALFORMED):
            load_case(minimal(vertex_buffers={"slot": 0, "data": None}))


# =============================================================================================
# index_buffer, strip_cut_value, topology, draws
# =============================================================================================
class TestIndexBuffer:
    def test_r16(self):
        case = load_case(minimal(
            index_buffer={"format": "R16_UINT", "offset": 2, "size": 4,
                          "data": {"dtype": "uint16", "values": [9, 0, 0, 9]}},
            draw=draw_indexed(2)))
        ib = case.index_buffer
        assert ib.format == "R16_UINT" and ib.index_size == 2
        assert (ib.offset, ib.size_in_bytes) == (2, 4)
        assert bytes(ib.buffer) == bytes([9, 0, 0, 0, 0, 0, 9, 0])

    def test_r32_with_prefix_and_rest_of_data(self):
        case = load_case(minimal(
            index_buffer={"format": "DXGI_FORMAT_R32_UINT", "offset": 4,
                          "data": {"dtype": "uint32", "values": [1, 2, 3]}},
            draw=draw_indexed(2)))
        ib = case.index_buffer
        assert ib.format == "R32_UINT" and ib.index_size == 4
        assert (ib.offset, ib.size_in_bytes) == (4, 8)

    def test_data_null_is_a_null_view(self):
        case = load_case(minimal(index_buffer={"format": "R32_UINT", "data": None},
                                 draw=draw_indexed(2)))
        assert case.index_buffer is not None
        assert case.index_buffer.buffer is None
        assert case.index_buffer.format == "R32_UINT"

    def test_null_view_reads_index_zero(self):
        # D3D12: a NULL index buffer view reads every index as 0.
        case = load_case(minimal(
            vertex_buffers=[{"slot": 0, "stride": 4,
                             "data": {"dtype": "float32", "values": [7, 8]}}],
            index_buffer={"format": "R16_UINT", "data": None}, draw=draw_indexed(2)))
        _, doc = run_case(case)
        assert [inv["SV_VertexID"] for inv in doc["invocations"]] == [0, 0]
        assert [inv["inputs"]["POSITION0"]["value"][0] for inv in doc["invocations"]] == [7.0, 7.0]

    @pytest.mark.parametrize("fmt", ["R8_UINT", "UNKNOWN", "DXGI_FORMAT_UNKNOWN", "R32_FLOAT",
                                     "R16_SINT", "NOT_A_FORMAT"])
    @pytest.mark.parametrize("data", [{"hex": "00000000"}, None])
    def test_bad_index_format(self, fmt, data):
        with pytest.raises(MALFORMED):
            load_case(minimal(index_buffer={"format": fmt, "data": data}, draw=draw_indexed(1)))

    @pytest.mark.parametrize("ib", [
        {"format": "R16_UINT", "offset": 5, "data": {"hex": "00000000"}},
        {"format": "R16_UINT", "offset": 2, "size": 4, "data": {"hex": "00000000"}},
        {"format": "R16_UINT", "data": {"hex": "0"}},
        {"format": "R16_UINT", "data": {"hex": "0000"}, "stride": 2},
        "R16_UINT",
    ])
    def test_malformed_index_buffer(self, ib):
        with pytest.raises(MALFORMED):
            load_case(minimal(index_buffer=ib, draw=draw_indexed(1)))

    def test_indexed_draw_without_index_buffer(self):
        with pytest.raises(MALFORMED):
            load_case(minimal(draw=draw_indexed(3)))

    def test_indexed_draw_in_a_list_without_index_buffer(self):
        with pytest.raises(MALFORMED):
            load_case(minimal(draw=[draw_instanced(1), draw_indexed(3)]))


class TestStripCut:
    def test_default_is_disabled(self):
        assert load_case(minimal()).strip_cut_value == gpuia.StripCutValue.DISABLED
        assert load_case(minimal()).strip_cut_value.index is None

    @pytest.mark.parametrize("value,index", [("DISABLED", None), ("0xFFFF", 0xFFFF),
                                             ("0xFFFFFFFF", 0xFFFFFFFF)])
    def test_forms(self, value, index):
        assert load_case(minimal(strip_cut_value=value)).strip_cut_value.index == index

    @pytest.mark.parametrize("value", ["0xFFFE", "0xFFFFFF", "CUT", "ENABLED", "", 42, 0x10000, [],
                                       {"value": "0xFFFF"}])
    def test_bad_strip_cut_value(self, value):
        with pytest.raises(MALFORMED):
            load_case(minimal(strip_cut_value=value))


class TestTopology:
    NAMES = ["POINTLIST", "LINELIST", "LINESTRIP", "TRIANGLELIST", "TRIANGLESTRIP",
             "LINELIST_ADJ", "LINESTRIP_ADJ", "TRIANGLELIST_ADJ", "TRIANGLESTRIP_ADJ"]

    @pytest.mark.parametrize("name", NAMES)
    def test_every_name_with_and_without_prefix(self, name):
        assert load_case(minimal(primitive_topology=name)).topology.name == name
        prefixed = load_case(minimal(primitive_topology="D3D_PRIMITIVE_TOPOLOGY_" + name))
        assert prefixed.topology.name == name

    @pytest.mark.parametrize("name", ["TRIANGLEFAN", "QUADLIST", "POINTS", "", "TRIANGLE_LIST",
                                      None, 1.5])
    def test_unknown_topology(self, name):
        with pytest.raises(MALFORMED):
            load_case(minimal(primitive_topology=name))

    @pytest.mark.parametrize("name", ["UNDEFINED", "D3D_PRIMITIVE_TOPOLOGY_UNDEFINED",
                                      "1_CONTROL_POINT_PATCHLIST",
                                      "D3D_PRIMITIVE_TOPOLOGY_3_CONTROL_POINT_PATCHLIST",
                                      "D3D_PRIMITIVE_TOPOLOGY_32_CONTROL_POINT_PATCHLIST",
                                      "PATCHLIST"])
    def test_undefined_and_patch_lists_are_refused(self, name):
        with pytest.raises(MALFORMED):
            load_case(minimal(primitive_topology=name))


class TestDraws:
    def test_draw_instanced_fields(self):
        case = load_case(minimal(draw=draw_instanced(6, 2, 3, 4)))
        (d,) = case.draws
        assert isinstance(d, gpuia.DrawInstanced)
        assert (d.vertex_count_per_instance, d.instance_count, d.start_vertex_location,
                d.start_instance_location) == (6, 2, 3, 4)

    def test_draw_indexed_fields(self):
        case = load_case(minimal(index_buffer={"format": "R16_UINT", "data": {"hex": "0000"}},
                                 draw=draw_indexed(5, 2, 1, -3, 7)))
        (d,) = case.draws
        assert isinstance(d, gpuia.DrawIndexedInstanced)
        assert (d.index_count_per_instance, d.instance_count, d.start_index_location,
                d.base_vertex_location, d.start_instance_location) == (5, 2, 1, -3, 7)

    def test_list_of_draws_in_order(self):
        case = load_case(minimal(
            index_buffer={"format": "R16_UINT", "data": {"hex": "0000"}},
            draw=[draw_instanced(1), draw_indexed(1), draw_instanced(1, 2)]))
        assert [type(d).__name__ for d in case.draws] == ["DrawInstanced", "DrawIndexedInstanced",
                                                          "DrawInstanced"]
        _, doc = run_case(case)
        # draw by draw, instance-major: draw 0 (1 vertex), draw 1 (1 index), draw 2 (2 instances)
        assert [(i["draw"], i["instance"]) for i in doc["invocations"]] == [
            (0, 0), (1, 0), (2, 0), (2, 1)]

    def test_base_vertex_location_int32_limits_are_accepted(self):
        ib = {"format": "R16_UINT", "data": {"hex": "0000"}}
        for bv in (2 ** 31 - 1, -(2 ** 31)):
            (d,) = load_case(minimal(index_buffer=ib, draw=draw_indexed(1, base_vertex=bv))).draws
            assert d.base_vertex_location == bv

    @pytest.mark.parametrize("bv", [2 ** 31, -(2 ** 31) - 1, 2 ** 40])
    def test_base_vertex_location_out_of_int32(self, bv):
        with pytest.raises(MALFORMED):
            load_case(minimal(index_buffer={"format": "R16_UINT", "data": {"hex": "0000"}},
                              draw=draw_indexed(1, base_vertex=bv)))

    @pytest.mark.parametrize("field", ["VertexCountPerInstance", "InstanceCount",
                                       "StartVertexLocation", "StartInstanceLocation"])
    def test_negative_draw_instanced_arguments(self, field):
        d = draw_instanced(3)
        d["DrawInstanced"][field] = -1
        with pytest.raises(MALFORMED):
            load_case(minimal(draw=d))

    @pytest.mark.parametrize("field", ["IndexCountPerInstance", "InstanceCount",
                                       "StartIndexLocation", "StartInstanceLocation"])
    def test_negative_draw_indexed_arguments(self, field):
        d = draw_indexed(3)
        d["DrawIndexedInstanced"][field] = -1
        with pytest.raises(MALFORMED):
            load_case(minimal(index_buffer={"format": "R16_UINT", "data": {"hex": "0000"}}, draw=d))

    @pytest.mark.parametrize("field", ["VertexCountPerInstance", "InstanceCount"])
    def test_uint32_overflow_of_counts(self, field):
        d = draw_instanced(3)
        d["DrawInstanced"][field] = 2 ** 32
        with pytest.raises(MALFORMED):
            load_case(minimal(draw=d))

    @pytest.mark.parametrize("draw", [
        {}, [], "DrawInstanced", {"Draw": {"VertexCountPerInstance": 1}},
        {"DrawInstanced": [1, 1, 0, 0]},
        {"DrawInstanced": {"VertexCountPerInstance": 1},
         "DrawIndexedInstanced": {"IndexCountPerInstance": 1}},
        {"DrawInstanced": {"VertexCountPerInstance": "3"}},
        {"DrawInstanced": {"VertexCountPerInstance": 1.5}},
        {"DrawInstanced": {"VertexCountPerInstance": 1, "Bogus": 0}},
    ])
    def test_malformed_draw(self, draw):
        with pytest.raises(MALFORMED):
            load_case(minimal(draw=draw))

    def test_draw_missing_required_argument(self):
        with pytest.raises(MALFORMED):
            load_case(minimal(draw={"DrawInstanced": {"InstanceCount": 1}}))


# =============================================================================================
# top level
# =============================================================================================
class TestTopLevelErrors:
    @pytest.mark.parametrize("text", ["{not json", "{\"gpuia_case\": 1,}", "{", "{'a': 1}"])
    def test_not_json_text(self, text):
        with pytest.raises(MALFORMED):
            load_case(text)

    @pytest.mark.parametrize("content", ["not json at all", "{\"gpuia_case\": 1", ""])
    def test_not_json_file(self, tmp_path, content):
        p = tmp_path / "c.json"
        p.write_text(content)
        with pytest.raises(MALFORMED):
            load_case(p)

    def test_not_utf8_file(self, tmp_path):
        p = tmp_path / "c.json"
        p.write_bytes(b"\xff\xfe{\x00")
        with pytest.raises(MALFORMED):
            load_case(p)

    def test_missing_file(self, tmp_path):
        with pytest.raises(MALFORMED):
            load_case(tmp_path / "nope.json")

    @pytest.mark.parametrize("content", ["[1, 2]", "3", "\"case\"", "null", "true"])
    def test_not_an_object_file(self, tmp_path, content):
        p = tmp_path / "c.json"
        p.write_text(content)
        with pytest.raises(MALFORMED):
            load_case(p)

    @pytest.mark.parametrize("doc", [[minimal()], 3, None])
    def test_not_an_object_parsed(self, doc):
        with pytest.raises(MALFORMED):
            load_case(doc)

    @pytest.mark.parametrize("version", [0, 2, "1", None, [1], ...])
    def test_wrong_or_missing_gpuia_case(self, version):
        with pytest.raises(MALFORMED):
            load_case(minimal(gpuia_case=version))

    def test_gpuia_case_true(self):
        with pytest.raises(MALFORMED):
            load_case(minimal(gpuia_case=True))

    @pytest.mark.parametrize("key", ["vertexbuffers", "Draw", "topology", "InputLayout", "extra"])
    def test_unknown_top_level_key(self, key):
        doc = minimal()
        doc[key] = 1
        with pytest.raises(MALFORMED):
            load_case(doc)

    @pytest.mark.parametrize("key", ["input_layout", "primitive_topology", "draw"])
    def test_missing_required_key(self, key):
        with pytest.raises(MALFORMED):
            load_case(minimal(**{key: ...}))

    def test_optional_keys_may_be_absent(self):
        case = load_case(minimal(vertex_buffers=...))
        assert case.index_buffer is None
        assert case.strip_cut_value == gpuia.StripCutValue.DISABLED
        assert case.vertex_shader is None and case.stream_output is None

    def test_name_not_a_string(self):
        with pytest.raises(MALFORMED):
            load_case(minimal(name=5))

    @pytest.mark.parametrize("vs", ["@vertex fn main() {}", {"entry_point": "main"}, {"wgsl": 1},
                                    {"wgsl": "", "entry_point": 3}])
    def test_malformed_vertex_shader(self, vs):
        with pytest.raises(MALFORMED):
            load_case(minimal(vertex_shader=vs))


def test_json_null_numbers_take_their_defaults():
    # A null vertex buffer offset, index buffer offset and SO filled size are their defaults, 0.
    doc = {"gpuia_case": 1, "input_layout": [{"SemanticName": "A", "Format": "R32_UINT"}],
           "vertex_buffers": [{"slot": 0, "stride": 4, "offset": None,
                               "data": {"hex": "01000000"}}],
           "index_buffer": {"format": "R16_UINT", "offset": None, "data": {"hex": "0000"}},
           "primitive_topology": "POINTLIST",
           "draw": {"DrawIndexedInstanced": {"IndexCountPerInstance": 1}},
           "stream_output": {"declaration": [{"SemanticName": "A", "ComponentCount": 1}],
                             "targets": [{"slot": 0, "size": 16, "filled_size": None}]}}
    case = load_case(doc)
    assert case.vertex_buffers[0].offset == 0 and case.index_buffer.offset == 0
    assert case.so_targets[0].filled_size == 0

# =============================================================================================
# result documents
# =============================================================================================
class TestJsonValue:
    @pytest.mark.parametrize("bits,expected", [
        (0x7F800000, "inf"), (0xFF800000, "-inf"), (0x7FC00000, "nan"), (0xFFC00000, "nan"),
        (0x7F800001, "nan"), (0x3F800000, 1.0), (0xBF000000, -0.5), (0, 0.0),
    ])
    def test_float(self, bits, expected):
        v = json_value(bits, "float")
        assert v == expected and type(v) is type(expected)

    def test_negative_zero_stays_a_float(self):
        v = json_value(0x80000000, "float")
        assert isinstance(v, float) and v == 0.0 and math.copysign(1.0, v) == -1.0

    @pytest.mark.parametrize("bits,typ,expected", [
        (0xFFFFFFFF, "sint", -1), (0x80000000, "sint", -(2 ** 31)), (5, "sint", 5),
        (0xFFFFFFFF, "uint", 4294967295), (0x7F800000, "uint", 0x7F800000), (0, "uint", 0),
    ])
    def test_integers_are_integers(self, bits, typ, expected):
        v = json_value(bits, typ)
        assert v == expected and type(v) is int


class _FakeIA:
    """An IAResult-shaped object: 2 invocations, one float and one sint element."""

    def __init__(self):
        self.draw = np.array([0, 1])
        self.instance = np.array([0, 3])
        self.vertex = np.array([0, 2])
        self.vertex_id = np.array([0, 9])
        bits_f = np.array([[0x3F800000, 0x7F800000, 0xFF800000, 0x7FC00000],
                           [0, 0x80000000, 0xBF000000, 0x3F800000]], dtype=np.uint32)
        bits_i = np.array([[0xFFFFFFFF, 2, 0, 1], [0x80000000, 0x7FFFFFFF, 0, 1]], dtype=np.uint32)
        self.inputs = {"POSITION0": SimpleNamespace(type="float", bits=bits_f),
                       "BLENDINDICES1": SimpleNamespace(type="sint", bits=bits_i)}
        self.statistics = {"IAVertices": 2, "IAPrimitives": 2}

    def __len__(self):
        return len(self.draw)


class TestResultJson:
    def test_structure_from_a_fake_result(self):
        doc = result_json("my case", _FakeIA())
        assert doc["gpuia_result"] == 1
        assert doc["case"] == "my case"
        assert doc["backend"] == "cpu" and doc["path"] == "reference" and doc["adapter"] is None
        # one vertex shader invocation per delivered vertex (rules 13.8)
        assert doc["statistics"] == {"IAVertices": 2, "IAPrimitives": 2, "VSInvocations": 2}
        assert "stream_output" not in doc
        inv0, inv1 = doc["invocations"]
        keys = ("draw", "instance", "vertex", "SV_VertexID", "SV_InstanceID")
        assert {k: inv0[k] for k in keys} == \
            {"draw": 0, "instance": 0, "vertex": 0, "SV_VertexID": 0, "SV_InstanceID": 0}
        assert {k: inv1[k] for k in keys} == \
            {"draw": 1, "instance": 3, "vertex": 2, "SV_VertexID": 9, "SV_InstanceID": 3}
        assert set(inv0["inputs"]) == {"POSITION0", "BLENDINDICES1"}
        assert inv0["inputs"]["POSITION0"] == {
            "type": "float", "bits": [0x3F800000, 0x7F800000, 0xFF800000, 0x7FC00000],
            "value": [1.0, "inf", "-inf", "nan"]}
        assert inv1["inputs"]["POSITION0"]["value"] == [0.0, -0.0, -0.5, 1.0]
        assert inv0["inputs"]["BLENDINDICES1"] == {
            "type": "sint", "bits": [4294967295, 2, 0, 1], "value": [-1, 2, 0, 1]}
        assert inv1["inputs"]["BLENDINDICES1"]["value"] == [-(2 ** 31), 2 ** 31 - 1, 0, 1]

    def test_types_are_plain_json(self):
        doc = result_json("c", _FakeIA())
        text = json.dumps(doc, allow_nan=False)  # no NaN/Infinity tokens anywhere
        back = json.loads(text)
        assert back == doc
        for inv in back["invocations"]:
            for k in ("draw", "instance", "vertex", "SV_VertexID", "SV_InstanceID"):
                assert type(inv[k]) is int
            for entry in inv["inputs"].values():
                assert len(entry["bits"]) == 4 and len(entry["value"]) == 4
                assert all(type(b) is int and 0 <= b <= 0xFFFFFFFF for b in entry["bits"])
        assert all(type(v) is int
                   for v in back["invocations"][0]["inputs"]["BLENDINDICES1"]["value"])
        assert all(type(v) is float for v in back["invocations"][1]["inputs"]["POSITION0"]["value"])

    @staticmethod
    def _real_case():
        # POSITION: R32G32B32A32_FLOAT holding nan, inf, -inf, 2.5; TEXCOORD: R16G16_SINT
        # holding -1, 300 (default fill 0, 1); COLOR: R8G8B8A8_UINT holding 1 2 3 255.
        return load_case(minimal(
            name="real",
            input_layout=[
                {"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"},
                {"SemanticName": "TEXCOORD", "SemanticIndex": 1, "Format": "R16G16_SINT"},
                {"SemanticName": "COLOR", "Format": "R8G8B8A8_UINT", "InputSlot": 1},
            ],
            vertex_buffers=[
                {"slot": 0, "stride": 20,
                 "data": {"hex": "0000c07f 0000807f 000080ff 00002040  ffff 2c01"}},
                {"slot": 1, "stride": 4, "data": {"dtype": "uint8", "values": [1, 2, 3, 255]}},
            ]))

    def test_from_a_real_run(self):
        _, doc = run_case(self._real_case())
        assert set(doc) == {"gpuia_result", "case", "backend", "path", "adapter",
                            "adapter_info", "invocations", "statistics"}
        # docs/case-format.md, "Result": the CPU backend has no adapter, and so no driver facts
        assert (doc["gpuia_result"], doc["case"], doc["backend"], doc["path"], doc["adapter"],
                doc["adapter_info"]) == (1, "real", "cpu", "reference", None, None)
        assert doc["statistics"] == {"IAVertices": 1, "IAPrimitives": 1, "VSInvocations": 1}
        (inv,) = doc["invocations"]
        assert set(inv) == {"draw", "instance", "vertex", "SV_VertexID", "SV_InstanceID", "inputs"}
        assert list(inv["inputs"]) == ["POSITION0", "TEXCOORD1", "COLOR0"]
        pos = inv["inputs"]["POSITION0"]
        assert pos["type"] == "float"
        assert pos["bits"] == [0x7FC00000, 0x7F800000, 0xFF800000, f32bits(2.5)]
        assert pos["value"] == ["nan", "inf", "-inf", 2.5]
        tc = inv["inputs"]["TEXCOORD1"]
        assert tc == {"type": "sint", "bits": [0xFFFFFFFF, 300, 0, 1], "value": [-1, 300, 0, 1]}
        col = inv["inputs"]["COLOR0"]
        assert col == {"type": "uint", "bits": [1, 2, 3, 255], "value": [1, 2, 3, 255]}
        json.dumps(doc, allow_nan=False)

    def test_adapter_and_adapter_info_from_the_device_info(self):
        # A Device.info as adapter_driver_info makes it on lavapipe. docs/case-format.md,
        # "Result": adapter holds its name, backend, type and summary; adapter_info the
        # driver facts, nothing else of the info (an extra key stays out of both).
        info = {"name": "llvmpipe (LLVM 15.0.6, 256 bits)", "backend": "Vulkan", "type": "CPU",
                "summary": "llvmpipe (LLVM 15.0.6, 256 bits) (CPU) via Vulkan",
                "driver": "Mesa 22.3.6 (LLVM 15.0.6)", "vendor": "", "vendor_id": 0x10005,
                "device_id": 0, "wgpu_native": "29.0.1.1", "limits": {"max_vertex_buffers": 8}}
        doc = result_json("my case", _FakeIA(), backend="gpu", path="native", adapter=info)
        assert doc["adapter"] == {"name": "llvmpipe (LLVM 15.0.6, 256 bits)",
                                  "backend": "Vulkan", "type": "CPU",
                                  "summary": "llvmpipe (LLVM 15.0.6, 256 bits) (CPU) via Vulkan"}
        assert doc["adapter_info"] == {"driver": "Mesa 22.3.6 (LLVM 15.0.6)", "vendor": "",
                                       "vendor_id": 0x10005, "device_id": 0,
                                       "wgpu_native": "29.0.1.1"}
        assert (doc["backend"], doc["path"]) == ("gpu", "native")
