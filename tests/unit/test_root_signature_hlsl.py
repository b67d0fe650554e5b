"""HLSL's root signature string form and the [RootSignature] attribute (Microsoft Learn,
"Specifying Root Signatures in HLSL"): the parse gives the desc the documentation describes."""

import re

import pytest

from gpuia.d3d.root_signature import entry_root_signature, parse_root_signature, validate
from gpuia.errors import InvalidDescError

# Microsoft's version 1.0 example, verbatim in content.
MS_EXAMPLE = (
    "RootFlags( ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | DENY_VERTEX_SHADER_ROOT_ACCESS), "
    "CBV(b0, space = 1), SRV(t0), UAV(u0, visibility = SHADER_VISIBILITY_GEOMETRY), "
    "DescriptorTable( CBV(b0), UAV(u1, numDescriptors = 2), SRV(t1, numDescriptors = unbounded)), "
    "DescriptorTable(Sampler(s0, numDescriptors = 2)), RootConstants(num32BitConstants=1, b9), "
    "DescriptorTable( UAV(u3), UAV(u4), UAV(u5, offset=1)), StaticSampler(s2),"
    "StaticSampler(s3, addressU = TEXTURE_ADDRESS_CLAMP, filter = FILTER_MIN_MAG_MIP_LINEAR )")


def test_microsoft_example():
    rs = parse_root_signature(MS_EXAMPLE, "1.0")
    assert rs.flags == 0x1 | 0x2  # d3d12.h's bits
    types = [p.type for p in rs.parameters]
    assert types == [2, 3, 4, 0, 0, 1, 0]  # CBV, SRV, UAV, table, table, constants, table
    cbv, srv, uav, t1, t2, consts, t3 = rs.parameters
    assert (cbv.shader_register, cbv.register_space, cbv.visibility) == (0, 1, 0)
    assert (uav.shader_register, uav.visibility) == (0, 4)  # GEOMETRY
    assert [(r.type, r.base_shader_register, r.num_descriptors) for r in t1.ranges] == \
        [(2, 0, 1), (1, 1, 2), (0, 1, 0xFFFFFFFF)]
    assert [(r.type, r.num_descriptors) for r in t2.ranges] == [(3, 2)]
    assert (consts.shader_register, consts.num_32bit_values) == (9, 1)
    # u4 and u5 alias one descriptor: u5's offset is 1, u3 and u4 append from 0
    assert [(r.base_shader_register, r.offset) for r in t3.ranges] == \
        [(3, 0xFFFFFFFF), (4, 0xFFFFFFFF), (5, 1)]
    s2, s3 = rs.static_samplers
    # defaults: ANISOTROPIC, WRAP, 16, LESS_EQUAL, OPAQUE_WHITE
    assert (s2.shader_register, s2.filter, s2.address_u, s2.max_anisotropy, s2.comparison_func,
            s2.border_color) == (2, 0x55, 1, 16, 4, 2)
    assert (s3.shader_register, s3.filter, s3.address_u, s3.address_v) == (3, 0x15, 3, 1)
    validate(rs)  # the documentation's example is a valid root signature


def test_version_1_1_flags():
    rs = parse_root_signature(
        "CBV(b0, space = 1, flags = DATA_STATIC), "
        "DescriptorTable(SRV(t1, numDescriptors = 8, flags = DESCRIPTORS_VOLATILE), "
        "UAV(u1, numDescriptors = unbounded, flags = DESCRIPTORS_VOLATILE | DATA_VOLATILE), "
        "visibility = SHADER_VISIBILITY_VERTEX)")
    cbv, table = rs.parameters
    assert cbv.flags == 0x8
    assert table.visibility == 1
    assert [r.flags for r in table.ranges] == [0x1, 0x1 | 0x2]
    validate(rs)


def test_no_flags_is_zero():
    rs = parse_root_signature("CBV(b0), DescriptorTable(SRV(t0))")
    assert rs.parameters[0].flags == 0 and rs.parameters[1].ranges[0].flags == 0


def test_arguments_in_any_order_and_spaces():
    a = parse_root_signature("RootConstants(b3, space=2, num32BitConstants=4, "
                             "visibility=SHADER_VISIBILITY_PIXEL)")
    p = a.parameters[0]
    assert (p.shader_register, p.register_space, p.num_32bit_values, p.visibility) == (3, 2, 4, 5)


def test_string_refused_where_it_breaks_a_rule():
    # overlap (rules 16.6) found by validation, not by the parse
    rs = parse_root_signature("SRV(t0), DescriptorTable(SRV(t0, numDescriptors=2))")
    with pytest.raises(InvalidDescError, match="rules 16.6"):
        validate(rs)
    # flags in a 1.0 root signature (rules 16.3)
    rs = parse_root_signature("CBV(b0, flags=DATA_STATIC)", "1.0")
    with pytest.raises(InvalidDescError, match="rules 16.3"):
        validate(rs)


@pytest.mark.parametrize("text, words", [
    ("CBV(t0)", "bN"),                           # the wrong register class
    ("CBV(B0)", "bN"),                           # registers are lower case
    ("SRV(t0, space=1, space=2)", "once"),
    ("RootConstants(b0)", "num32BitConstants"),
    ("Texture(t0)", "RootFlags"),
    ("SRV(t0) SRV(t1)", "','"),
    ("SRV(t0, visibility=SHADER_VISIBILITY_COMPUTE)", "visibility"),
    ("DescriptorTable(SRV(t0, numDescriptors=-1))", "whole number"),
    ("SRV(t0", "')'"),
])
def test_parse_refusals(text, words):
    with pytest.raises(InvalidDescError, match=re.escape(words)):
        parse_root_signature(text)


SHADER = r'''
// a comment with [RootSignature("SRV(t9)")] void main(
#define MyRS "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), " \
             "SRV(t0, visibility=SHADER_VISIBILITY_VERTEX), " \
             "CBV(b0)"
cbuffer C : register(b0) { float4 k; };
[RootSignature(MyRS)]
float4 main(float4 p : POSITION) : SV_Position { return p * k; }

[RootSignature("CBV(b1)")]
float4 other(float4 p : POSITION) : SV_Position { return p; }
'''


def test_entry_attribute_through_a_define():
    text = entry_root_signature(SHADER, "main")
    assert text == ("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), "
                    "SRV(t0, visibility=SHADER_VISIBILITY_VERTEX), CBV(b0)")
    assert entry_root_signature(SHADER, "other") == "CBV(b1)"
    assert entry_root_signature("float4 main() : SV_Position { return 0; }", "main") is None


def test_entry_attribute_through_compile_defines():
    src = "[RootSignature(RS)]\nfloat4 main() : SV_Position { return 0; }"
    assert entry_root_signature(src, "main", (("RS", '"SRV(t2)"'),)) == "SRV(t2)"
    with pytest.raises(InvalidDescError, match="string literal"):
        entry_root_signature(src, "main")
