"""Root signatures validated as CreateRootSignature validates them (docs/rules.md section 16).

Each case's verdict is derived from the rule it cites, not from the code: a root signature
D3D12 accepts passes, one it refuses raises InvalidDescError naming the parameter, range or
sampler, and the rule.
"""

import pytest

from gpuia.d3d.root_signature import root_signature_from_json, validate
from gpuia.errors import CaseError, InvalidDescError


def table(*ranges, visibility="all"):
    return {"type": "descriptor_table", "visibility": visibility, "ranges": list(ranges)}


def rng(kind, base, count=1, space=0, **kw):
    return {"type": kind, "base_shader_register": base, "num_descriptors": count,
            "register_space": space, **kw}


def rs(*params, samplers=(), flags=(), version="1.1"):
    return root_signature_from_json({"version": version, "parameters": list(params),
                                     "static_samplers": list(samplers),
                                     "flags": flags if isinstance(flags, int) else list(flags)})


def refused(sig, *words):
    with pytest.raises(InvalidDescError) as e:
        validate(sig)
    for w in words:
        assert w in str(e.value), str(e.value)
    return str(e.value)


ACCEPTED = {
    # Microsoft's "Specifying Root Signatures in HLSL" example (version 1.0), as JSON.
    "microsoft example": rs(
        {"type": "cbv", "shader_register": 0, "register_space": 1},
        {"type": "srv", "shader_register": 0},
        {"type": "uav", "shader_register": 0, "visibility": "geometry"},
        table(rng("cbv", 0), rng("uav", 1, 2), rng("srv", 1, -1)),
        table(rng("sampler", 0, 2)),
        {"type": "32bit_constants", "shader_register": 9, "num_32bit_values": 1},
        table(rng("uav", 3), rng("uav", 4),
              rng("uav", 5, offset_in_descriptors_from_table_start=1)),
        samplers=[{"shader_register": 2}, {"shader_register": 3, "address_u": "clamp",
                                           "filter": "min_mag_mip_linear"}],
        flags=["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT", "DENY_VERTEX_SHADER_ROOT_ACCESS"],
        version="1.0"),
    "empty": rs(),
    # 16.6: different spaces, different visibilities (neither ALL), different classes
    "same register other space": rs({"type": "cbv", "shader_register": 0},
                                    {"type": "cbv", "shader_register": 0, "register_space": 1}),
    "same register vertex and pixel": rs(
        {"type": "srv", "shader_register": 0, "visibility": "vertex"},
        {"type": "srv", "shader_register": 0, "visibility": "pixel"}),
    "b0 and t0": rs({"type": "cbv", "shader_register": 0}, {"type": "srv", "shader_register": 0}),
    # 16.4: an unbounded range, then a range with an explicit offset in another space
    "after unbounded with offset": rs(table(
        rng("srv", 0, -1), rng("srv", 0, 4, space=1, offset_in_descriptors_from_table_start=0))),
    # 16.8: exactly 64 DWORDs: 60 constants, one root CBV (2), two tables (1 each)
    "64 dwords": rs({"type": "32bit_constants", "shader_register": 0, "num_32bit_values": 60},
                    {"type": "cbv", "shader_register": 1}, table(rng("srv", 0)),
                    table(rng("sampler", 0))),
    # 16.3: one DATA_* flag, DESCRIPTORS_VOLATILE with DATA_STATIC_WHILE_SET_AT_EXECUTE
    "1.1 flags": rs(table(rng("srv", 0, 4, flags=["DESCRIPTORS_VOLATILE",
                                                  "DATA_STATIC_WHILE_SET_AT_EXECUTE"])),
                    {"type": "cbv", "shader_register": 0, "flags": ["DATA_STATIC"]}),
    # 16.5: 0xFFFFFFEF is the last space not reserved
    "last ordinary space": rs({"type": "srv", "shader_register": 0,
                               "register_space": 0xFFFFFFEF}),
    # 16.7: the bounds themselves
    "sampler bounds": rs(samplers=[{"shader_register": 0, "mip_lod_bias": -16.0,
                                    "max_anisotropy": 16},
                                   {"shader_register": 1, "mip_lod_bias": 15.99}]),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted(name):
    assert validate(ACCEPTED[name]) is None


def test_overlap_within_a_visibility():
    # 16.6: t2..t5 and t4 in one space, both ALL
    refused(rs(table(rng("srv", 2, 4)), {"type": "srv", "shader_register": 4}),
            "root parameter 1", "t4", "root parameter 0, range 0", "rules 16.6")


def test_all_overlaps_every_visibility():
    # 16.6: ALL against PIXEL, either order
    refused(rs({"type": "srv", "shader_register": 0, "visibility": "pixel"},
               {"type": "srv", "shader_register": 0}), "root parameter 1", "rules 16.6")
    refused(rs({"type": "srv", "shader_register": 0},
               {"type": "srv", "shader_register": 0, "visibility": "pixel"}), "rules 16.6")


def test_root_constants_are_cbv_registers():
    # 16.6: root constants at b3 and a CBV range b0..b3
    refused(rs(table(rng("cbv", 0, 4)),
               {"type": "32bit_constants", "shader_register": 3, "num_32bit_values": 1}),
            "root parameter 1", "b3", "rules 16.6")


def test_overlap_within_one_table():
    refused(rs(table(rng("uav", 0, 2), rng("uav", 1))), "root parameter 0, range 1", "u1",
            "rules 16.6")


def test_unbounded_range_overlaps_what_follows_in_its_space():
    # 16.6: t8..unbounded covers t100
    refused(rs(table(rng("srv", 8, -1)), {"type": "srv", "shader_register": 100}),
            "root parameter 1", "rules 16.6")


def test_static_sampler_collides_with_sampler_range():
    refused(rs(table(rng("sampler", 0, 2)), samplers=[{"shader_register": 1}]),
            "static sampler 0", "s1", "rules 16.6")


def test_static_samplers_collide():
    refused(rs(samplers=[{"shader_register": 1}, {"shader_register": 1}]),
            "static sampler 1", "rules 16.6")


def test_samplers_not_mixed_with_resources():
    refused(rs(table(rng("srv", 0), rng("sampler", 0))), "root parameter 0, range 1",
            "rules 16.4")


def test_zero_descriptors():
    refused(rs(table(rng("cbv", 0, 0))), "root parameter 0, range 0", "NumDescriptors",
            "rules 16.4")


def test_append_after_unbounded():
    # 16.4: the second range appends after an unbounded one (another space: no overlap)
    refused(rs(table(rng("srv", 0, -1), rng("srv", 0, 1, space=1))),
            "root parameter 0, range 1", "APPEND", "rules 16.4")


def test_register_overflow():
    refused(rs(table(rng("srv", 0xFFFFFFFE, 4))), "BaseShaderRegister", "rules 16.4")


def test_descriptor_offset_overflow():
    refused(rs(table(rng("srv", 0, 4, offset_in_descriptors_from_table_start=0xFFFFFFFE))),
            "OffsetInDescriptorsFromTableStart", "rules 16.4")


@pytest.mark.parametrize("space", [0xFFFFFFF0, 0xFFFFFFFF])
def test_reserved_spaces(space):
    refused(rs({"type": "cbv", "shader_register": 0, "register_space": space}),
            "root parameter 0", "RegisterSpace", "rules 16.5")
    refused(rs(table(rng("srv", 0, 1, space=space))), "root parameter 0, range 0", "rules 16.5")
    refused(rs(samplers=[{"shader_register": 0, "register_space": space}]), "static sampler 0",
            "rules 16.5")


def test_sixty_five_dwords():
    # 16.8: 63 constants + a root SRV (2) = 65
    refused(rs({"type": "32bit_constants", "shader_register": 0, "num_32bit_values": 63},
               {"type": "srv", "shader_register": 0}), "65 DWORDs", "rules 16.8")


def test_flags_in_version_1_0():
    refused(rs(table(rng("srv", 0, flags=["DATA_VOLATILE"])), version="1.0"),
            "root parameter 0, range 0", "1.0", "rules 16.3")
    refused(rs({"type": "cbv", "shader_register": 0, "flags": ["DATA_STATIC"]}, version="1.0"),
            "root parameter 0", "rules 16.3")


def test_two_data_flags():
    refused(rs(table(rng("srv", 0, flags=["DATA_VOLATILE", "DATA_STATIC"]))), "DATA_",
            "rules 16.3")
    refused(rs({"type": "uav", "shader_register": 0, "flags": ["DATA_VOLATILE", "DATA_STATIC"]}),
            "rules 16.3")


def test_data_static_with_volatile_descriptors():
    refused(rs(table(rng("cbv", 0, flags=["DESCRIPTORS_VOLATILE", "DATA_STATIC"]))),
            "DESCRIPTORS_VOLATILE", "rules 16.3")


def test_sampler_range_with_data_flag():
    refused(rs(table(rng("sampler", 0, flags=["DATA_VOLATILE"]))), "sampler", "rules 16.3")


def test_unknown_flag_bits():
    refused(rs(flags=0x1000), "0x1000", "rules 16.2")
    refused(rs(table(rng("srv", 0, flags=0x20))), "0x20", "rules 16.3")


def test_static_sampler_fields():
    refused(rs(samplers=[{"shader_register": 0, "mip_lod_bias": 16.0}]), "MipLODBias",
            "rules 16.7")
    refused(rs(samplers=[{"shader_register": 0, "max_anisotropy": 17}]), "MaxAnisotropy",
            "rules 16.7")
    refused(rs(samplers=[{"shader_register": 0, "min_lod": float("nan")}]), "MinLOD",
            "rules 16.7")


def test_json_refusals():
    with pytest.raises(InvalidDescError, match="visibility"):
        root_signature_from_json({"parameters": [{"type": "srv", "shader_register": 0,
                                                  "visibility": "compute"}]})
    with pytest.raises(CaseError, match="unknown keys"):
        root_signature_from_json({"parameters": [], "extra": 1})
    with pytest.raises(CaseError, match="num_32bit_values"):
        root_signature_from_json({"parameters": [{"type": "32bit_constants",
                                                  "shader_register": 0}]})
    with pytest.raises(InvalidDescError, match="version"):
        root_signature_from_json({"version": "1.2"})


def test_json_spellings():
    a = root_signature_from_json({"parameters": [{"type": "D3D12_ROOT_PARAMETER_TYPE_SRV",
                                                  "visibility": "SHADER_VISIBILITY_VERTEX",
                                                  "shader_register": 3}]})
    b = root_signature_from_json({"parameters": [{"type": "srv", "visibility": "vertex",
                                                  "shader_register": 3}]})
    assert a.parameters == b.parameters
    assert a.parameters[0].type == 3 and a.parameters[0].visibility == 1  # d3d12.h's values
