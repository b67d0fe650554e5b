"""The serialized root signature (RTS0) reader, on bytes assembled here from the layout
DirectXShaderCompiler's DxilRootSignature.h documents (its DxilContainer* structs): a 6-word
header (Version, NumParameters, RootParametersOffset, NumStaticSamplers, StaticSamplersOffset,
Flags), 3 words per parameter (type, visibility, payload offset), payloads, ranges of 5 words
(1.0) or 6 (1.1: Flags before the offset), static samplers of 13 words."""

import struct

import pytest

from gpuia.d3d.root_signature import read_root_signature_blob, validate
from gpuia.errors import ContainerError, InvalidDescError


def words(*w):
    return struct.pack(f"<{len(w)}I", *w)


def sampler(reg, space=0, vis=0, filt=0x15, u=3, v=3, w=3, bias=0.0, aniso=16, func=4,
            border=2, min_lod=0.0, max_lod=1000.0):
    return struct.pack("<4If3I2f3I", filt, u, v, w, bias, aniso, func, border, min_lod, max_lod,
                       reg, space, vis)


def rts0_v11():
    """Root parameters: 0 a table, VERTEX (SRV t0..t3 space0, flags DATA_VOLATILE, offset
    APPEND; CBV b2 space1, flags 0, offset 8); 1 root constants b0 (4 values), ALL; 2 a root UAV
    u1 space2, flags DATA_STATIC, PIXEL; one static sampler s0 space3 VERTEX. Flags
    ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT."""
    header = 24
    params_at = header
    table_at = params_at + 3 * 12           # 60
    ranges_at = table_at + 8                # 68
    consts_at = ranges_at + 2 * 24          # 116
    uav_at = consts_at + 12                 # 128
    samplers_at = uav_at + 12               # 140
    data = words(2, 3, params_at, 1, samplers_at, 0x1)
    data += words(0, 1, table_at) + words(1, 0, consts_at) + words(4, 5, uav_at)
    data += words(2, ranges_at)
    data += words(0, 4, 0, 0, 0x2, 0xFFFFFFFF) + words(2, 1, 2, 1, 0, 8)
    data += words(0, 0, 4)                  # ShaderRegister, RegisterSpace, Num32BitValues
    data += words(1, 2, 0x8)
    data += sampler(0, space=3, vis=1)
    assert len(data) == samplers_at + 52
    return data


def container(chunk_code: bytes, chunk: bytes) -> bytes:
    body = chunk_code + struct.pack("<I", len(chunk)) + chunk
    total = 32 + 4 + len(body)
    return b"DXBC" + bytes(16) + struct.pack("<2H2I", 1, 0, total, 1) + struct.pack("<I", 36) \
        + body


def check_v11(rs):
    assert rs.version == "1.1" and rs.flags == 0x1
    table, consts, uav = rs.parameters
    assert (table.type, table.visibility) == (0, 1)
    r0, r1 = table.ranges
    assert (r0.type, r0.num_descriptors, r0.base_shader_register, r0.register_space, r0.flags,
            r0.offset) == (0, 4, 0, 0, 0x2, 0xFFFFFFFF)
    assert (r1.type, r1.num_descriptors, r1.base_shader_register, r1.register_space, r1.flags,
            r1.offset) == (2, 1, 2, 1, 0, 8)
    assert (consts.type, consts.shader_register, consts.register_space,
            consts.num_32bit_values) == (1, 0, 0, 4)
    assert (uav.type, uav.visibility, uav.shader_register, uav.register_space, uav.flags) == \
        (4, 5, 1, 2, 0x8)
    (s,) = rs.static_samplers
    assert (s.shader_register, s.register_space, s.visibility, s.filter, s.address_u,
            s.max_anisotropy, s.comparison_func, s.border_color, s.max_lod) == \
        (0, 3, 1, 0x15, 3, 16, 4, 2, 1000.0)


def test_chunk_data_v11():
    rs = read_root_signature_blob(rts0_v11())
    check_v11(rs)
    validate(rs)  # no rule of section 16 refuses it


def test_container_v11():
    check_v11(read_root_signature_blob(container(b"RTS0", rts0_v11())))


def test_v10_ranges_and_descriptors_have_no_flags():
    # 1.0: a table with one range of 5 words (SRV t5 x2 space0 offset 3), a root CBV of 2 words
    params_at, table_at = 24, 24 + 24
    ranges_at = table_at + 8
    cbv_at = ranges_at + 20
    data = words(1, 2, params_at, 0, cbv_at + 8, 0)
    data += words(0, 0, table_at) + words(2, 5, cbv_at)
    data += words(1, ranges_at) + words(0, 2, 5, 0, 3) + words(7, 1)
    rs = read_root_signature_blob(data)
    assert rs.version == "1.0"
    (r,) = rs.parameters[0].ranges
    assert (r.type, r.num_descriptors, r.base_shader_register, r.offset, r.flags) == (0, 2, 5, 3, 0)
    cbv = rs.parameters[1]
    assert (cbv.type, cbv.visibility, cbv.shader_register, cbv.register_space, cbv.flags) == \
        (2, 5, 7, 1, 0)


def test_truncated_and_bad():
    data = rts0_v11()
    with pytest.raises(ContainerError, match="past the chunk's end"):
        read_root_signature_blob(data[:-4])
    with pytest.raises(ContainerError, match="version 3"):
        read_root_signature_blob(words(3) + data[4:])
    bad_type = data[:24] + words(9) + data[28:]
    with pytest.raises(ContainerError, match="ParameterType 9"):
        read_root_signature_blob(bad_type)
    with pytest.raises(ContainerError, match="no RTS0"):
        read_root_signature_blob(container(b"ISGN", words(0, 8)))


def test_a_blob_d3d12_refuses_is_read_then_refused():
    # 1.0 with a range of 0 descriptors: read as stored, refused by rules 16.4
    data = words(1, 1, 24, 0, 24 + 12 + 8 + 20, 0) + words(0, 0, 36) + words(1, 44) + \
        words(0, 0, 0, 0, 0xFFFFFFFF)
    rs = read_root_signature_blob(data)
    with pytest.raises(InvalidDescError, match="rules 16.4"):
        validate(rs)
