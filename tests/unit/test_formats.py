"""The DXGI vertex format table and the exact numpy decoder (rules sections 1 and 2).

Every expected value here is written out by hand or derived in this file from docs/rules.md:
integers as literals, floats as explicit IEEE-754 bit patterns or as exact fractions rounded to
float32 by ``f32_bits`` below (a pure-Python correctly rounded conversion that does not use the
code under test). Nothing was produced by running gpuia and pasting its output.
"""

from __future__ import annotations

import struct
from fractions import Fraction

import numpy as np
import pytest

from gpuia.d3d.formats import VERTEX_FORMATS, FormatInfo, UnknownFormatError, format_info
from gpuia.errors import GpuiaError
from gpuia.reference.decode import decode_elements, decode_words, gather_words

# ---------------------------------------------------------------------------------------------
# Hand-written helpers
# ---------------------------------------------------------------------------------------------

ONE = 0x3F800000  # float32 1.0
NEG_ONE = 0xBF800000  # float32 -1.0
POS_INF = 0x7F800000
NEG_INF = 0xFF800000


def f32_bits(q, exact: bool = False) -> int:
    """IEEE-754 binary32 bit pattern of the rational ``q``, rounded to nearest, ties to even.

    Pure integer arithmetic on ``Fraction`` (independent of numpy and of gpuia). Handles normal
    numbers and exactly representable denormals, which is all this file needs.
    """
    q = Fraction(q)
    if q == 0:
        return 0
    sign = 0x80000000 if q < 0 else 0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    if e < -126:  # denormal: must be an exact multiple of 2**-149
        m = a / Fraction(1, 2**149)
        assert m.denominator == 1, "only exact denormals are supported"
        return sign | int(m)
    assert e <= 127
    scaled = a / Fraction(2) ** (e - 23)  # in [2**23, 2**24)
    m = scaled.numerator // scaled.denominator
    rem = scaled - m
    if exact:
        assert rem == 0, f"{q} is not exactly representable in float32"
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and m % 2 == 1):
        m += 1
        if m == 2**24:
            m, e = 2**23, e + 1
    return sign | ((e + 127) << 23) | (m - 2**23)


def q(num, den=1) -> int:
    """float32 bits of num/den, correctly rounded (how UNORM/SNORM conversion is specified,
    rules 2.2/2.3: exact to 1/2 ULP)."""
    return f32_bits(Fraction(num, den))


def u16s(*vals) -> bytes:
    return struct.pack(f"<{len(vals)}H", *vals)


def u32s(*vals) -> bytes:
    return struct.pack(f"<{len(vals)}I", *vals)


def u8s(*vals) -> bytes:
    return bytes(vals)


def is_f32_nan(bits: int) -> bool:
    return (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF) != 0


def words_of(element_bytes: list[bytes], size: int, pad: int = 0) -> np.ndarray:
    """Build the (n, words) little-endian uint32 array decode_words takes: each element's bytes
    padded to a multiple of 4 with ``pad`` (the bytes that follow the element in memory)."""
    nwords = (size + 3) // 4
    rows = []
    for b in element_bytes:
        assert len(b) == size, (b, size)
        rows.append(b + bytes([pad]) * (4 * nwords - size))
    return np.frombuffer(b"".join(rows), dtype="<u4").reshape(len(rows), nwords)


def decode(name: str, element_bytes: list[bytes], pad: int = 0) -> list[tuple[int, ...]]:
    fmt = format_info(name)
    out = decode_words(fmt, words_of(element_bytes, TABLE[name][1], pad))
    assert out.dtype == np.uint32 and out.shape == (len(element_bytes), 4)
    return [tuple(int(v) for v in row) for row in out]


# ---------------------------------------------------------------------------------------------
# The table as rules 1.1, 2.1-2.12 and 3.2 state it, written out independently
# ---------------------------------------------------------------------------------------------

# name: (DXGI enum value from dxgiformat.h, byte size, component count, shader type,
#        WebGPU vertex format or None)
TABLE = {
    "R32G32B32A32_FLOAT": (2, 16, 4, "float", "float32x4"),
    "R32G32B32A32_UINT": (3, 16, 4, "uint", "uint32x4"),
    "R32G32B32A32_SINT": (4, 16, 4, "sint", "sint32x4"),
    "R32G32B32_FLOAT": (6, 12, 3, "float", "float32x3"),
    "R32G32B32_UINT": (7, 12, 3, "uint", "uint32x3"),
    "R32G32B32_SINT": (8, 12, 3, "sint", "sint32x3"),
    "R16G16B16A16_FLOAT": (10, 8, 4, "float", "float16x4"),
    "R16G16B16A16_UNORM": (11, 8, 4, "float", "unorm16x4"),
    "R16G16B16A16_UINT": (12, 8, 4, "uint", "uint16x4"),
    "R16G16B16A16_SNORM": (13, 8, 4, "float", "snorm16x4"),
    "R16G16B16A16_SINT": (14, 8, 4, "sint", "sint16x4"),
    "R32G32_FLOAT": (16, 8, 2, "float", "float32x2"),
    "R32G32_UINT": (17, 8, 2, "uint", "uint32x2"),
    "R32G32_SINT": (18, 8, 2, "sint", "sint32x2"),
    "R10G10B10A2_UNORM": (24, 4, 4, "float", "unorm10-10-10-2"),
    "R10G10B10A2_UINT": (25, 4, 4, "uint", None),
    "R11G11B10_FLOAT": (26, 4, 3, "float", None),
    "R8G8B8A8_UNORM": (28, 4, 4, "float", "unorm8x4"),
    "R8G8B8A8_UINT": (30, 4, 4, "uint", "uint8x4"),
    "R8G8B8A8_SNORM": (31, 4, 4, "float", "snorm8x4"),
    "R8G8B8A8_SINT": (32, 4, 4, "sint", "sint8x4"),
    "R16G16_FLOAT": (34, 4, 2, "float", "float16x2"),
    "R16G16_UNORM": (35, 4, 2, "float", "unorm16x2"),
    "R16G16_UINT": (36, 4, 2, "uint", "uint16x2"),
    "R16G16_SNORM": (37, 4, 2, "float", "snorm16x2"),
    "R16G16_SINT": (38, 4, 2, "sint", "sint16x2"),
    "R32_FLOAT": (41, 4, 1, "float", "float32"),
    "R32_UINT": (42, 4, 1, "uint", "uint32"),
    "R32_SINT": (43, 4, 1, "sint", "sint32"),
    "R8G8_UNORM": (49, 2, 2, "float", "unorm8x2"),
    "R8G8_UINT": (50, 2, 2, "uint", "uint8x2"),
    "R8G8_SNORM": (51, 2, 2, "float", "snorm8x2"),
    "R8G8_SINT": (52, 2, 2, "sint", "sint8x2"),
    "R16_FLOAT": (54, 2, 1, "float", "float16"),
    "R16_UNORM": (56, 2, 1, "float", "unorm16"),
    "R16_UINT": (57, 2, 1, "uint", "uint16"),
    "R16_SNORM": (58, 2, 1, "float", "snorm16"),
    "R16_SINT": (59, 2, 1, "sint", "sint16"),
    "R8_UNORM": (61, 1, 1, "float", "unorm8"),
    "R8_UINT": (62, 1, 1, "uint", "uint8"),
    "R8_SNORM": (63, 1, 1, "float", "snorm8"),
    "R8_SINT": (64, 1, 1, "sint", "sint8"),
    "B5G6R5_UNORM": (85, 2, 3, "float", None),
    "B5G5R5A1_UNORM": (86, 2, 4, "float", None),
    "B8G8R8A8_UNORM": (87, 4, 4, "float", "unorm8x4-bgra"),
    "B8G8R8X8_UNORM": (88, 4, 3, "float", None),
    "B4G4R4A4_UNORM": (115, 2, 4, "float", None),
}
OPTIONAL = {"B5G6R5_UNORM", "B5G5R5A1_UNORM", "B4G4R4A4_UNORM"}
NO_WEBGPU = {"R11G11B10_FLOAT", "R10G10B10A2_UINT", "B8G8R8X8_UNORM",
             "B5G6R5_UNORM", "B5G5R5A1_UNORM", "B4G4R4A4_UNORM"}

# wgpu-py 0.32 `list(wgpu.VertexFormat)`, in its own order.
WGPU_VERTEX_FORMATS = [
    "uint8", "uint8x2", "uint8x4", "sint8", "sint8x2", "sint8x4", "unorm8", "unorm8x2", "unorm8x4",
    "snorm8", "snorm8x2", "snorm8x4", "uint16", "uint16x2", "uint16x4", "sint16", "sint16x2",
    "sint16x4", "unorm16", "unorm16x2", "unorm16x4", "snorm16", "snorm16x2", "snorm16x4",
    "float16", "float16x2", "float16x4", "float32", "float32x2", "float32x3", "float32x4",
    "uint32", "uint32x2", "uint32x3", "uint32x4", "sint32", "sint32x2", "sint32x3", "sint32x4",
    "unorm10-10-10-2", "unorm8x4-bgra",
]

ALL_NAMES = sorted(TABLE)


def _bits_from_name(name: str) -> int:
    """Total bits of a DXGI name's channel part (``R10G10B10A2`` -> 32, ``B8G8R8X8`` -> 32)."""
    import re

    channel_part = name.split("_")[0]
    return sum(int(n) for n in re.findall(r"[RGBAX](\d+)", channel_part))


# ---------------------------------------------------------------------------------------------
# 1.1: the 47 formats
# ---------------------------------------------------------------------------------------------

def test_table_has_exactly_the_47_formats_of_rules_1_1():
    assert len(TABLE) == 47
    assert set(VERTEX_FORMATS) == set(TABLE)
    assert len(VERTEX_FORMATS) == 47


def test_exactly_three_optional_formats():
    assert {n for n, f in VERTEX_FORMATS.items() if f.optional} == OPTIONAL


def test_table_sizes_agree_with_dxgi_names():
    # Second, independent derivation of the sizes: the bit counts in the DXGI name.
    for name, (_, size, *_rest) in TABLE.items():
        assert _bits_from_name(name) == 8 * size, name


@pytest.mark.parametrize("name", ALL_NAMES)
def test_format_row(name):
    dxgi, size, ncomp, stype, webgpu = TABLE[name]
    fmt = format_info(name)
    assert isinstance(fmt, FormatInfo)
    assert fmt.name == name
    assert fmt.size == size
    assert fmt.alignment == min(4, size)  # rules 3.2 (sizes are 1, 2, 4, 8, 12, 16)
    assert fmt.words == (size + 3) // 4
    assert fmt.component_count == ncomp
    assert fmt.shader_type == stype
    assert fmt.webgpu == webgpu
    assert fmt.native == (webgpu is not None)
    assert fmt.optional == (name in OPTIONAL)
    assert fmt.dxgi_value == dxgi
    assert fmt.is_normalized == name.endswith(("_UNORM", "_SNORM"))
    assert str(fmt) == name


@pytest.mark.parametrize("name", ALL_NAMES)
def test_shader_type_follows_dxgi_suffix(name):
    suffix = name.rsplit("_", 1)[1]
    expected = {"UINT": "uint", "SINT": "sint"}.get(suffix, "float")
    assert format_info(name).shader_type == expected


def test_alignment_values_rules_3_2():
    assert format_info("R8_UNORM").alignment == 1
    assert format_info("R8G8_UINT").alignment == 2
    assert format_info("R16_FLOAT").alignment == 2
    assert format_info("B5G6R5_UNORM").alignment == 2
    assert format_info("R32_FLOAT").alignment == 4
    assert format_info("R16G16B16A16_SINT").alignment == 4
    assert format_info("R32G32B32_FLOAT").alignment == 4
    assert format_info("R32G32B32A32_FLOAT").alignment == 4


def test_webgpu_formats_are_the_wgpu_list_one_to_one():
    mapped = [f.webgpu for f in VERTEX_FORMATS.values() if f.webgpu is not None]
    assert len(mapped) == len(set(mapped)) == 41
    assert set(mapped) == set(WGPU_VERTEX_FORMATS)


def test_formats_without_webgpu_vertex_format():
    assert {n for n, f in VERTEX_FORMATS.items() if f.webgpu is None} == NO_WEBGPU
    for n in NO_WEBGPU:
        assert not format_info(n).native


# ---------------------------------------------------------------------------------------------
# Name handling and rejection of non-vertex DXGI formats
# ---------------------------------------------------------------------------------------------

NON_VERTEX = [
    "R8G8B8A8_UNORM_SRGB", "B8G8R8A8_UNORM_SRGB", "BC1_UNORM_SRGB",
    "R32G32B32A32_TYPELESS", "R8G8B8A8_TYPELESS", "R16_TYPELESS", "R10G10B10A2_TYPELESS",
    "BC1_UNORM", "BC7_UNORM", "D32_FLOAT", "D16_UNORM", "D24_UNORM_S8_UINT", "R24G8_TYPELESS",
    "R32G8X24_TYPELESS", "R9G9B9E5_SHAREDEXP", "R10G10B10_XR_BIAS_A2_UNORM", "A8_UNORM",
    "R1_UNORM", "UNKNOWN", "R8G8_B8G8_UNORM", "NV12", "YUY2",
]


@pytest.mark.parametrize("name", NON_VERTEX)
def test_non_vertex_dxgi_format_rejected_by_name(name):
    with pytest.raises(UnknownFormatError) as ei:
        format_info(name)
    assert isinstance(ei.value, ValueError)
    assert isinstance(ei.value, GpuiaError)
    assert name in str(ei.value)


@pytest.mark.parametrize("value,name", [(29, "R8G8B8A8_UNORM_SRGB"), (0, "UNKNOWN"),
                                        (40, "D32_FLOAT"), (67, "R9G9B9E5_SHAREDEXP"),
                                        (71, "BC1_UNORM")])
def test_non_vertex_dxgi_integer_rejected_naming_the_format(value, name):
    with pytest.raises(UnknownFormatError) as ei:
        format_info(value)
    assert name in str(ei.value)


@pytest.mark.parametrize("bad", ["R8G8B8_UNORM", "R16G16B16_FLOAT", "R10G10B10A2_SNORM", "FLOAT3",
                                 "", "R32G32B32A32_FLOATX", "DXGI_FORMAT_", "float32x4",
                                 "R32_FLOAT R32_FLOAT"])
def test_garbage_names_rejected(bad):
    with pytest.raises(UnknownFormatError) as ei:
        format_info(bad)
    assert isinstance(ei.value, ValueError)
    if bad:
        assert bad in str(ei.value)


@pytest.mark.parametrize("bad", [None, 3.0, True, False, -1, 1000, 116, b"R32_FLOAT",
                                 ["R32_FLOAT"]])
def test_non_name_values_rejected(bad):
    with pytest.raises(UnknownFormatError):
        format_info(bad)


@pytest.mark.parametrize("spelling", ["R32G32B32_FLOAT", "DXGI_FORMAT_R32G32B32_FLOAT",
                                      "dxgi_format_r32g32b32_float", "r32g32b32_float",
                                      "Dxgi_Format_R32G32B32_Float", 6])
def test_prefix_case_and_integer_accepted(spelling):
    assert format_info(spelling).name == "R32G32B32_FLOAT"


@pytest.mark.parametrize("name", ALL_NAMES)
def test_dxgi_integer_value_accepted(name):
    assert format_info(TABLE[name][0]).name == name


def test_dxgi_integer_examples():
    assert format_info(28).name == "R8G8B8A8_UNORM"
    assert format_info(115).name == "B4G4R4A4_UNORM"
    assert format_info(85).name == "B5G6R5_UNORM"
    assert format_info(24).name == "R10G10B10A2_UNORM"


def test_format_info_accepts_a_row():
    row = VERTEX_FORMATS["R16G16_SNORM"]
    assert format_info(row) is row


# ---------------------------------------------------------------------------------------------
# decode_words: one or more hand-derived vectors for every format
# ---------------------------------------------------------------------------------------------

# name: list of (element bytes, expected (x, y, z, w) 32-bit patterns)
VECTORS: dict[str, list[tuple[bytes, tuple[int, int, int, int]]]] = {
    # 2.1: 32-bit components are the bits unchanged (no denormal flush, NaN payload kept).
    "R32G32B32A32_FLOAT": [
        (u32s(0x3F800000, 0xC0000000, 0x7F800001, 0x00000001),
         (0x3F800000, 0xC0000000, 0x7F800001, 0x00000001)),
        (u32s(0x7FC00000, NEG_INF, 0x80000000, 0x00800000),
         (0x7FC00000, NEG_INF, 0x80000000, 0x00800000)),
    ],
    "R32G32B32A32_UINT": [(u32s(0xFFFFFFFF, 0, 0x12345678, 7), (0xFFFFFFFF, 0, 0x12345678, 7))],
    "R32G32B32A32_SINT": [(u32s(0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0),
                           (0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0))],
    # 2.11: a missing w is 1.0f for float formats, integer 1 for UINT/SINT.
    "R32G32B32_FLOAT": [(u32s(0x40490FDB, 0x80000000, 0x7F800001),
                         (0x40490FDB, 0x80000000, 0x7F800001, ONE))],
    "R32G32B32_UINT": [(u32s(1, 0xFFFFFFFF, 3), (1, 0xFFFFFFFF, 3, 1))],
    "R32G32B32_SINT": [(u32s(0xFFFFFFFE, 5, 0x80000000), (0xFFFFFFFE, 5, 0x80000000, 1))],
    "R32G32_FLOAT": [(u32s(0x3F000000, 0x00000001), (0x3F000000, 0x00000001, 0, ONE))],
    "R32G32_UINT": [(u32s(0xDEADBEEF, 0x10), (0xDEADBEEF, 0x10, 0, 1))],
    "R32G32_SINT": [(u32s(0xFFFFFFFF, 0x7FFFFFFF), (0xFFFFFFFF, 0x7FFFFFFF, 0, 1))],
    "R32_FLOAT": [(u32s(NEG_INF), (NEG_INF, 0, 0, ONE)),
                  (u32s(0x7F800001), (0x7F800001, 0, 0, ONE)),
                  (u32s(0x00000001), (0x00000001, 0, 0, ONE))],
    "R32_UINT": [(u32s(0xCAFEF00D), (0xCAFEF00D, 0, 0, 1))],
    "R32_SINT": [(u32s(0x80000000), (0x80000000, 0, 0, 1))],
    # 2.5: half -> float32. 0x3C00 = 1.0; 0xC000 = -2.0 (0xC0000000); 0x3800 = 0.5 (0x3F000000);
    # 0x7BFF = 65504 = 1.1111111111b * 2**15 -> exponent 142 (0x8E), mantissa 0x3FF << 13
    # -> 0x477FE000. Second row: the WINE vectors, derived in test_half_wine_vectors.
    "R16G16B16A16_FLOAT": [
        (u16s(0x3C00, 0xC000, 0x3800, 0x7BFF), (ONE, 0xC0000000, 0x3F000000, 0x477FE000)),
        (u16s(0x0001, 0x8765, 0x4321, 0x1234), (0x33800000, 0xB8ECA000, 0x40642000, 0x3A468000)),
    ],
    # 2.2: UNORM16 c / 65535.
    "R16G16B16A16_UNORM": [(u16s(0xFFFF, 0, 0x8000, 1), (ONE, 0, q(32768, 65535), q(1, 65535)))],
    "R16G16B16A16_UINT": [(u16s(0xFFFF, 0x8000, 1, 0), (65535, 32768, 1, 0))],
    # 2.3: SNORM16 -32768 and -32767 both -1.0; 0x4000 = 16384 -> 16384/32767.
    "R16G16B16A16_SNORM": [(u16s(0x8000, 0x8001, 0x7FFF, 0x4000),
                            (NEG_ONE, NEG_ONE, ONE, q(16384, 32767)))],
    # 2.4: sign extension: 0xFFFF -> -1, 0x8000 -> -32768 = 0xFFFF8000.
    "R16G16B16A16_SINT": [(u16s(0xFFFF, 0x8000, 0x7FFF, 2), (0xFFFFFFFF, 0xFFFF8000, 0x7FFF, 2))],
    "R16G16_FLOAT": [(u16s(0x3C00, 0xFC00), (ONE, NEG_INF, 0, ONE))],
    # 0x0101 / 0xFFFF = 257/65535 = 1/255.
    "R16G16_UNORM": [(u16s(0xFFFF, 0x0101), (ONE, q(1, 255), 0, ONE))],
    "R16G16_UINT": [(u16s(0x1234, 0xFFFF), (0x1234, 0xFFFF, 0, 1))],
    "R16G16_SNORM": [(u16s(0x8001, 0x0001), (NEG_ONE, q(1, 32767), 0, ONE))],
    "R16G16_SINT": [(u16s(0x8000, 0x0005), (0xFFFF8000, 5, 0, 1))],
    # 0x3555: exponent 13, mantissa 0x155 = 341 -> 2**-2 * 1365/1024; float32 exponent 125
    # (0x3E800000) | 341 << 13 (0x2AA000) = 0x3EAAA000.
    "R16_FLOAT": [(u16s(0x3555), (0x3EAAA000, 0, 0, ONE))],
    "R16_UNORM": [(u16s(0x8000), (q(32768, 65535), 0, 0, ONE))],
    "R16_UINT": [(u16s(0xBEEF), (0xBEEF, 0, 0, 1))],
    # 0xC001 = -16383.
    "R16_SNORM": [(u16s(0xC001), (q(-16383, 32767), 0, 0, ONE))],
    "R16_SINT": [(u16s(0xFFFE), (0xFFFFFFFE, 0, 0, 1))],
    "R8G8B8A8_UNORM": [(u8s(0xFF, 0x00, 0x80, 0x01), (ONE, 0, q(128, 255), q(1, 255)))],
    "R8G8B8A8_UINT": [(u8s(0xFF, 0x80, 0x01, 0x00), (255, 128, 1, 0))],
    # WINE: SNORM8 {-128, 0, 127, 64} -> {-1, 0, 1, 64/127}; plus -127 -> -1.
    "R8G8B8A8_SNORM": [(u8s(0x80, 0x00, 0x7F, 0x40), (NEG_ONE, 0, ONE, q(64, 127))),
                       (u8s(0x81, 0x81, 0x81, 0x81), (NEG_ONE,) * 4)],
    "R8G8B8A8_SINT": [(u8s(0xFF, 0x80, 0x7F, 0x01), (0xFFFFFFFF, 0xFFFFFF80, 0x7F, 1))],
    # 0x33 = 51 -> 51/255 = 0.2; 0xCC = 204 -> 0.8.
    "R8G8_UNORM": [(u8s(0x33, 0xCC), (q(1, 5), q(4, 5), 0, ONE))],
    "R8G8_UINT": [(u8s(0xFF, 0x02), (255, 2, 0, 1))],
    "R8G8_SNORM": [(u8s(0x81, 0x3F), (NEG_ONE, q(63, 127), 0, ONE))],
    "R8G8_SINT": [(u8s(0x80, 0xFF), (0xFFFFFF80, 0xFFFFFFFF, 0, 1))],
    "R8_UNORM": [(u8s(0x80), (q(128, 255), 0, 0, ONE)), (u8s(0xFF), (ONE, 0, 0, ONE))],
    "R8_UINT": [(u8s(0xFF), (255, 0, 0, 1))],
    "R8_SNORM": [(u8s(0x80), (NEG_ONE, 0, 0, ONE)), (u8s(0xC0), (q(-64, 127), 0, 0, ONE))],
    "R8_SINT": [(u8s(0xFF), (0xFFFFFFFF, 0, 0, 1))],
    # 2.7: R bits 0-9, G 10-19, B 20-29, A 30-31. 0xA00003FF: R = 0x3FF, G = 0,
    # B = (0xA00003FF >> 20) & 0x3FF = 0x200 = 512, A = 0xA00003FF >> 30 = 2.
    "R10G10B10A2_UNORM": [(u32s(0xA00003FF), (ONE, 0, q(512, 1023), q(2, 3))),
                          (u32s(0xFFFFFFFF), (ONE, ONE, ONE, ONE))],
    "R10G10B10A2_UINT": [(u32s(0xA00003FF), (1023, 0, 512, 2)),
                         (u32s(0x000FFC00), (0, 1023, 0, 0))],
    # 2.6: word 0x87654321.
    #   R = 0x321 (bits 0-10): exponent 0x321 >> 6 = 12, mantissa 0x21 = 33
    #       -> 2**(12-15) * (1 + 33/64) = 97/512 = 0.189453125
    #   G = (word >> 11) & 0x7FF = 0x4A8: exponent 18, mantissa 40 -> 2**3 * 104/64 = 13.0
    #   B = word >> 22 = 0x21D: exponent 16, mantissa 29 -> 2 * 61/32 = 3.8125
    # 13.0 = 0x41500000 and 3.8125 = 0x40740000 written out; A missing -> 1.0.
    "R11G11B10_FLOAT": [(u32s(0x87654321), (f32_bits(Fraction(97, 512), exact=True),
                                            0x41500000, 0x40740000, ONE))],
    # 2.8: memory bytes B, G, R, A; shader sees (R, G, B, A).
    "B8G8R8A8_UNORM": [(u8s(0x21, 0x43, 0x65, 0x87),
                        (q(0x65, 255), q(0x43, 255), q(0x21, 255), q(0x87, 255)))],
    # 2.9: the X byte is no component; w = 1.0 (spec-consistent choice).
    "B8G8R8X8_UNORM": [(u8s(0x21, 0x43, 0x65, 0x87),
                        (q(0x65, 255), q(0x43, 255), q(0x21, 255), ONE)),
                       (u8s(0x21, 0x43, 0x65, 0x00),
                        (q(0x65, 255), q(0x43, 255), q(0x21, 255), ONE))],
    # 2.10: B bits 0-4, G 5-10, R 11-15. 0x8408 = R 16 << 11 | G 32 << 5 | B 8.
    "B5G6R5_UNORM": [(u16s(0x8408), (q(16, 31), q(32, 63), q(8, 31), ONE)),
                     (u16s(0xF800), (ONE, 0, 0, ONE)),
                     (u16s(0x07E0), (0, ONE, 0, ONE)),
                     (u16s(0x001F), (0, 0, ONE, ONE))],
    # 2.10: B 0-4, G 5-9, R 10-14, A 15. 0xFC20 = A 1 << 15 | R 31 << 10 | G 1 << 5 | B 0.
    "B5G5R5A1_UNORM": [(u16s(0xFC20), (ONE, q(1, 31), 0, ONE)),
                       (u16s(0x7C00), (ONE, 0, 0, 0)),
                       (u16s(0x03E0), (0, ONE, 0, 0)),
                       (u16s(0x001F), (0, 0, ONE, 0)),
                       (u16s(0x8000), (0, 0, 0, ONE))],
    # 2.10: B 0-3, G 4-7, R 8-11, A 12-15. 0x1234: A 1, R 2, G 3, B 4.
    "B4G4R4A4_UNORM": [(u16s(0x1234), (q(2, 15), q(3, 15), q(4, 15), q(1, 15))),
                       (u16s(0x0F00), (ONE, 0, 0, 0)),
                       (u16s(0x00F0), (0, ONE, 0, 0)),
                       (u16s(0x000F), (0, 0, ONE, 0)),
                       (u16s(0xF000), (0, 0, 0, ONE))],
}


def test_every_format_has_a_vector():
    assert set(VECTORS) == set(TABLE)


@pytest.mark.parametrize("name", sorted(VERTEX_FORMATS))
def test_decode_hand_vectors(name):
    vectors = VECTORS[name]
    got = decode(name, [b for b, _ in vectors])  # all rows in one call
    assert got == [exp for _, exp in vectors]


@pytest.mark.parametrize("name", sorted(n for n in TABLE if TABLE[n][1] < 4))
def test_decode_ignores_bytes_after_a_short_element(name):
    # A 1- or 2-byte element is read from a whole word; the bytes after it belong to other data.
    vectors = VECTORS[name]
    for pad in (0xA5, 0xFF):
        assert decode(name, [b for b, _ in vectors], pad=pad) == [exp for _, exp in vectors]


@pytest.mark.parametrize("name", sorted(n for n in TABLE if TABLE[n][2] < 4))
def test_default_fill_for_missing_components(name):
    """2.11: G, B -> 0; A -> 1 typed as the format (1.0f or integer 1), whatever the data."""
    _, size, ncomp, stype, _ = TABLE[name]
    data = [bytes((0x5A + 37 * i) & 0xFF for i in range(size)), b"\xFF" * size, b"\x00" * size]
    one = ONE if stype == "float" else 1
    for row in decode(name, data):
        assert row[3] == one
        for c in range(ncomp, 3):
            assert row[c] == 0


# --- 2.3 SNORM ---------------------------------------------------------------------------------

def test_snorm8_most_negative_two_codes_are_minus_one():
    got = decode("R8_SNORM", [u8s(0x80), u8s(0x81), u8s(0x7F)])
    assert [r[0] for r in got] == [0xBF800000, 0xBF800000, 0x3F800000]


def test_snorm16_most_negative_two_codes_are_minus_one():
    got = decode("R16_SNORM", [u16s(0x8000), u16s(0x8001), u16s(0x7FFF)])
    assert [r[0] for r in got] == [0xBF800000, 0xBF800000, 0x3F800000]


def test_snorm8_64_is_exact_float32_division():
    expected = int(np.array(np.float32(64) / np.float32(127)).view(np.uint32))
    assert expected == q(64, 127)  # the helper agrees with IEEE division
    assert decode("R8G8_SNORM", [u8s(0x40, 0xC0)])[0][:2] == (expected, expected | 0x80000000)


def test_snorm16_values_are_correctly_rounded():
    codes = [1, 2, 3, 100, 12345, 16384, 32766, -1, -2, -12345, -32766]
    got = decode("R16_SNORM", [u16s(c & 0xFFFF) for c in codes])
    assert [r[0] for r in got] == [q(c, 32767) for c in codes]


# --- 2.2 UNORM ---------------------------------------------------------------------------------

UNORM_NAMES = sorted(n for n in TABLE if n.endswith("_UNORM"))


@pytest.mark.parametrize("name", UNORM_NAMES)
def test_unorm_all_ones_is_one(name):
    _, size, ncomp, _, _ = TABLE[name]
    (row,) = decode(name, [b"\xFF" * size])
    assert row[:ncomp] == (ONE,) * ncomp
    assert row[3] == ONE  # present or default-filled, w is 1.0 either way


def test_unorm8_every_code_correctly_rounded():
    got = decode("R8_UNORM", [u8s(c) for c in range(256)])
    assert [r[0] for r in got] == [q(c, 255) for c in range(256)]


def test_unorm16_sample_codes_correctly_rounded():
    codes = [0, 1, 2, 255, 256, 257, 1000, 32767, 32768, 43690, 65534, 65535]
    got = decode("R16_UNORM", [u16s(c) for c in codes])
    assert [r[0] for r in got] == [q(c, 65535) for c in codes]


# --- 2.4 UINT/SINT -----------------------------------------------------------------------------

def test_sint8_all_ones_is_minus_one():
    # WINE test_input_assembler: SINT8 0xFFFFFFFF -> -1 each.
    (row,) = decode("R8G8B8A8_SINT", [b"\xFF\xFF\xFF\xFF"])
    assert row == (0xFFFFFFFF,) * 4
    assert np.array(row, dtype=np.uint32).view(np.int32).tolist() == [-1, -1, -1, -1]


def test_uint8_all_ones_is_255():
    # WINE test_input_assembler: UINT8 0xFFFFFFFF -> 255 each.
    (row,) = decode("R8G8B8A8_UINT", [b"\xFF\xFF\xFF\xFF"])
    assert row == (255, 255, 255, 255)


def test_sint_sign_extension_boundaries():
    assert decode("R8_SINT", [u8s(0x7F), u8s(0x80)]) == [(0x7F, 0, 0, 1), (0xFFFFFF80, 0, 0, 1)]
    assert decode("R16_SINT", [u16s(0x7FFF), u16s(0x8000)]) == [(0x7FFF, 0, 0, 1),
                                                                 (0xFFFF8000, 0, 0, 1)]


# --- 2.1 FLOAT32 -------------------------------------------------------------------------------

@pytest.mark.parametrize("bits", [0x7F800001, 0x7FBFFFFF, 0xFF800001, 0x7FC00000, 0xFFFFFFFF,
                                  0x00000001, 0x807FFFFF, 0x80000000, 0x7F7FFFFF])
def test_float32_bits_pass_through(bits):
    assert decode("R32_FLOAT", [u32s(bits)]) == [(bits, 0, 0, ONE)]
    assert decode("R32G32B32A32_FLOAT", [u32s(bits, bits, bits, bits)]) == [(bits,) * 4]


# --- 2.5 FLOAT16 -------------------------------------------------------------------------------

@pytest.mark.parametrize("half,expected", [
    (0x0000, 0x00000000),
    (0x8000, 0x80000000),  # -0 keeps its sign
    (0x0001, f32_bits(Fraction(1, 2**24), exact=True)),  # smallest denormal = 2**-24
    (0x8001, 0xB3800000),  # -2**-24: exponent 127-24 = 103 = 0x67
    (0x03FF, 0x387FC000),  # largest denormal 1023 * 2**-24 = 1.998046875 * 2**-15
    (0x0400, 0x38800000),  # smallest normal 2**-14
    (0x3C00, 0x3F800000),
    (0x7BFF, 0x477FE000),  # 65504
    (0x7C00, 0x7F800000),  # +Inf
    (0xFC00, 0xFF800000),  # -Inf
])
def test_half_to_float32(half, expected):
    assert decode("R16_FLOAT", [u16s(half)]) == [(expected, 0, 0, ONE)]


def test_half_smallest_denormal_is_exactly_2_pow_minus_24():
    (row,) = decode("R16_FLOAT", [u16s(0x0001)])
    assert row[0] == 0x33800000  # exponent 103, mantissa 0
    assert np.array([row[0]], dtype=np.uint32).view(np.float32)[0] == np.float32(2.0**-24)


@pytest.mark.parametrize("half,decimal,num,den", [
    # sign 1, exponent 1, mantissa 0x365 = 869: -(1024 + 869) * 2**(1 - 15 - 10)
    (0x8765, "-1.12831593e-4", -(1024 + 869), 2**24),
    # exponent 16, mantissa 0x321 = 801: (1024 + 801) * 2**(16 - 15 - 10)
    (0x4321, "3.56445313", 1024 + 801, 2**9),
    # exponent 4, mantissa 0x234 = 564: (1024 + 564) * 2**(4 - 15 - 10)
    (0x1234, "7.57217407e-4", 1024 + 564, 2**21),
])
def test_half_wine_vectors(half, decimal, num, den):
    exact = f32_bits(Fraction(num, den), exact=True)
    # The WINE decimal strings round to exactly these float32 values.
    assert int(np.array(np.float32(decimal)).view(np.uint32)) == exact
    (row,) = decode("R16_FLOAT", [u16s(half)])
    assert row[0] == exact


@pytest.mark.parametrize("half", [0x7E00, 0x7C01, 0x7FFF, 0xFE00, 0xFC01, 0x7D00])
def test_half_nan_stays_nan(half):
    (row,) = decode("R16_FLOAT", [u16s(half)])
    assert is_f32_nan(row[0]), hex(row[0])


def test_half_denormals_not_flushed_in_every_float16_format():
    for name, n in (("R16_FLOAT", 1), ("R16G16_FLOAT", 2), ("R16G16B16A16_FLOAT", 4)):
        (row,) = decode(name, [u16s(*([0x0001] * n))])
        assert row[:n] == (0x33800000,) * n


# --- 2.6 R11G11B10_FLOAT -----------------------------------------------------------------------

def test_r11g11b10_wine_vector():
    (row,) = decode("R11G11B10_FLOAT", [u32s(0x87654321)])
    vals = np.array(row, dtype=np.uint32).view(np.float32).tolist()
    assert vals == [0.189453125, 13.0, 3.8125, 1.0]
    assert row[3] == ONE


def _r11g11b10(r: int, g: int, b: int) -> bytes:
    return u32s(r | (g << 11) | (b << 22))


@pytest.mark.parametrize("r,expected", [
    (0x000, 0x00000000),
    (0x001, f32_bits(Fraction(1, 2**20), exact=True)),  # denormal: 2**-14 * 1/64
    (0x03F, f32_bits(Fraction(63, 2**20), exact=True)),  # largest denormal
    (0x040, 0x38800000),  # smallest normal 2**-14
    (0x3C0, 0x3F800000),  # exponent 15, mantissa 0 = 1.0
    (0x7BF, 0x477E0000),  # largest finite: 2**15 * (1 + 63/64) = 65024
    (0x7C0, 0x7F800000),  # +Inf
])
def test_r11_channel_values(r, expected):
    (row,) = decode("R11G11B10_FLOAT", [_r11g11b10(r, 0, 0)])
    assert row == (expected, 0, 0, ONE)
    (row,) = decode("R11G11B10_FLOAT", [_r11g11b10(0, r, 0)])
    assert row == (0, expected, 0, ONE)


@pytest.mark.parametrize("b,expected", [
    (0x001, f32_bits(Fraction(1, 2**19), exact=True)),  # denormal: 2**-14 * 1/32
    (0x01F, f32_bits(Fraction(31, 2**19), exact=True)),
    (0x020, 0x38800000),  # smallest normal
    (0x1E0, 0x3F800000),  # exponent 15 -> 1.0
    (0x3DF, 0x477C0000),  # largest finite: 2**15 * (1 + 31/32) = 64512
    (0x3E0, 0x7F800000),  # +Inf
])
def test_b10_channel_values(b, expected):
    (row,) = decode("R11G11B10_FLOAT", [_r11g11b10(0, 0, b)])
    assert row == (0, 0, expected, ONE)


@pytest.mark.parametrize("channel", ["r", "g", "b"])
def test_r11g11b10_nan(channel):
    word = {"r": _r11g11b10(0x7C1, 0, 0), "g": _r11g11b10(0, 0x7FF, 0),
            "b": _r11g11b10(0, 0, 0x3E1)}[channel]
    (row,) = decode("R11G11B10_FLOAT", [word])
    i = "rgb".index(channel)
    assert is_f32_nan(row[i])
    assert [row[j] for j in range(3) if j != i] == [0, 0]


# --- 2.7 / 2.8 / 2.9 / 2.10 packed -------------------------------------------------------------

def test_r10g10b10a2_unorm_wine_vector():
    (row,) = decode("R10G10B10A2_UNORM", [u32s(0xA00003FF)])
    f = np.array(row, dtype=np.uint32).view(np.float32)
    assert f[0] == np.float32(1) and f[1] == np.float32(0)
    assert f[2] == np.float32(512) / np.float32(1023)
    assert f[3] == np.float32(2) / np.float32(3)


def test_r10g10b10a2_uint_wine_vector():
    assert decode("R10G10B10A2_UINT", [u32s(0xA00003FF)]) == [(1023, 0, 512, 2)]
    assert decode("R10G10B10A2_UINT", [u32s(0xFFFFFFFF)]) == [(1023, 1023, 1023, 3)]


def test_b8g8r8a8_swizzle_wine_vector():
    (row,) = decode("B8G8R8A8_UNORM", [bytes.fromhex("21436587")])
    f = np.array(row, dtype=np.uint32).view(np.float32)
    assert f.tolist() == [np.float32(c) / np.float32(255) for c in (0x65, 0x43, 0x21, 0x87)]


def test_b8g8r8x8_w_is_one_whatever_the_x_byte():
    rows = decode("B8G8R8X8_UNORM", [bytes.fromhex("214365" + x) for x in ("00", "87", "FF")])
    assert {r[3] for r in rows} == {ONE}
    assert {r[:3] for r in rows} == {(q(0x65, 255), q(0x43, 255), q(0x21, 255))}


@pytest.mark.parametrize("name,value,expected", [
    # B5G6R5: B bits 0-4, G 5-10, R 11-15 -> shader (R, G, B, 1)
    ("B5G6R5_UNORM", 1 << 11, (q(1, 31), 0, 0, ONE)),
    ("B5G6R5_UNORM", 1 << 5, (0, q(1, 63), 0, ONE)),
    ("B5G6R5_UNORM", 1 << 0, (0, 0, q(1, 31), ONE)),
    ("B5G6R5_UNORM", 1 << 15, (q(16, 31), 0, 0, ONE)),
    ("B5G6R5_UNORM", 1 << 10, (0, q(32, 63), 0, ONE)),
    # B5G5R5A1: B 0-4, G 5-9, R 10-14, A 15
    ("B5G5R5A1_UNORM", 1 << 10, (q(1, 31), 0, 0, 0)),
    ("B5G5R5A1_UNORM", 1 << 5, (0, q(1, 31), 0, 0)),
    ("B5G5R5A1_UNORM", 1 << 0, (0, 0, q(1, 31), 0)),
    ("B5G5R5A1_UNORM", 1 << 14, (q(16, 31), 0, 0, 0)),
    # B4G4R4A4: B 0-3, G 4-7, R 8-11, A 12-15
    ("B4G4R4A4_UNORM", 1 << 8, (q(1, 15), 0, 0, 0)),
    ("B4G4R4A4_UNORM", 1 << 4, (0, q(1, 15), 0, 0)),
    ("B4G4R4A4_UNORM", 1 << 0, (0, 0, q(1, 15), 0)),
    ("B4G4R4A4_UNORM", 1 << 12, (0, 0, 0, q(1, 15))),
    ("B4G4R4A4_UNORM", 1 << 11, (q(8, 15), 0, 0, 0)),
])
def test_16bit_packed_bit_positions(name, value, expected):
    assert decode(name, [u16s(value)]) == [expected]


# --- 2.11 default fill, named examples ---------------------------------------------------------

def test_default_fill_r16g16_uint_integer_one():
    (row,) = decode("R16G16_UINT", [u16s(7, 9)])
    assert row == (7, 9, 0, 1)  # integer 1, not 0x3F800000


def test_default_fill_r32g32b32_float_w_is_one_float():
    (row,) = decode("R32G32B32_FLOAT", [u32s(0, 0, 0)])
    assert row == (0, 0, 0, 0x3F800000)


def test_default_fill_r16_sint():
    (row,) = decode("R16_SINT", [u16s(0xFFFD)])
    assert row == (0xFFFFFFFD, 0, 0, 1)


def test_default_fill_r16_unorm():
    (row,) = decode("R16_UNORM", [u16s(0xFFFF)])
    assert row == (ONE, 0, 0, ONE)


def test_decode_zero_rows():
    fmt = format_info("R32G32B32_FLOAT")
    out = decode_words(fmt, np.zeros((0, 3), dtype=np.uint32))
    assert out.shape == (0, 4) and out.dtype == np.uint32


# ---------------------------------------------------------------------------------------------
# gather_words
# ---------------------------------------------------------------------------------------------

def _le_words(data: bytes, addr: int, nwords: int) -> list[int]:
    """Reference: nwords little-endian words at addr, bytes past the end are 0."""
    padded = data + bytes(addr + 4 * nwords)
    return [int.from_bytes(padded[addr + 4 * k: addr + 4 * k + 4], "little") for k in range(nwords)]


def test_gather_unaligned_addresses():
    data = np.arange(16, dtype=np.uint8)
    got = gather_words(data, np.array([1, 3, 2], dtype=np.int64), 2)
    assert got.dtype == np.uint32 and got.shape == (3, 2)
    assert got.tolist() == [[0x04030201, 0x08070605],
                            [0x06050403, 0x0A090807],
                            [0x05040302, 0x09080706]]


def test_gather_near_end_reads_zero_past_the_end():
    data = np.arange(10, dtype=np.uint8)  # bytes 0..9
    got = gather_words(data, np.array([8, 9, 7, 10, 100], dtype=np.int64), 1)
    assert got[:, 0].tolist() == [0x00000908, 0x00000009, 0x00090807, 0, 0]
    got2 = gather_words(data, np.array([6], dtype=np.int64), 2)
    assert got2.tolist() == [[0x09080706, 0]]


def test_gather_aligned_address_running_past_the_end():
    data = np.arange(10, dtype=np.uint8)
    # 8 is aligned but the word 8..11 runs past the end: bytes 10, 11 read 0.
    assert gather_words(data, np.array([0, 4, 8], dtype=np.int64), 1)[:, 0].tolist() == [
        0x03020100, 0x07060504, 0x00000908]


def test_gather_short_buffer():
    data = np.array([0xAB, 0xCD], dtype=np.uint8)
    assert gather_words(data, np.array([0, 1], dtype=np.int64), 1)[:, 0].tolist() == [0xCDAB, 0xCD]


def test_gather_aligned_fast_path_equals_unaligned_path():
    raw = bytes((i * 37 + 11) % 251 for i in range(64))
    data = np.frombuffer(raw, dtype=np.uint8)
    aligned = np.array([0, 4, 8, 28, 60, 12, 0], dtype=np.int64)
    for nwords in (1, 2, 3, 4):
        addrs = aligned[aligned + 4 * nwords <= 64]
        fast = gather_words(data, addrs, nwords)
        # The same bytes one position later, so every address is odd (no fast path).
        shifted = np.frombuffer(b"\x00" + raw, dtype=np.uint8)
        slow = gather_words(shifted, addrs + 1, nwords)
        assert fast.dtype == slow.dtype == np.uint32
        assert fast.tolist() == slow.tolist()
        assert fast.tolist() == [_le_words(raw, int(a), nwords) for a in addrs]


def test_gather_mixed_alignment_matches_reference():
    raw = bytes((i * 91 + 3) % 256 for i in range(37))
    data = np.frombuffer(raw, dtype=np.uint8)
    addrs = np.array([0, 1, 2, 3, 4, 33, 34, 35, 36, 37, 40], dtype=np.int64)
    for nwords in (1, 2, 4):
        got = gather_words(data, addrs, nwords)
        assert got.tolist() == [_le_words(raw, int(a), nwords) for a in addrs]


def test_gather_from_a_view_not_aligned_in_memory():
    base = np.arange(33, dtype=np.uint8)
    data = base[1:]  # starts at an odd host address
    got = gather_words(data, np.array([0, 4], dtype=np.int64), 1)
    assert got[:, 0].tolist() == [0x04030201, 0x08070605]


def test_gather_read_only_buffer():
    data = np.frombuffer(bytes(range(12)), dtype=np.uint8)
    assert not data.flags.writeable
    got = gather_words(data, np.array([9, 0], dtype=np.int64), 1)
    assert got[:, 0].tolist() == [0x0B0A09, 0x03020100]


def test_gather_no_addresses():
    got = gather_words(np.arange(8, dtype=np.uint8), np.zeros(0, dtype=np.int64), 3)
    assert got.shape == (0, 3) and got.dtype == np.uint32


def test_gather_empty_buffer_reads_zero():
    got = gather_words(np.zeros(0, dtype=np.uint8), np.array([0, 4], dtype=np.int64), 1)
    assert got.tolist() == [[0], [0]]


def test_gather_then_decode_unaligned_element():
    # An R16G16_SNORM element at byte 3 of a buffer: bytes 3..6 are 01 80 FF 7F.
    raw = bytes([0xEE, 0xEE, 0xEE, 0x01, 0x80, 0xFF, 0x7F, 0xEE])
    words = gather_words(np.frombuffer(raw, dtype=np.uint8), np.array([3], dtype=np.int64), 1)
    out = decode_words(format_info("R16G16_SNORM"), words)
    # 0x8001 = -32767 -> -1.0 ; 0x7FFF -> 1.0
    assert out.tolist() == [[NEG_ONE, ONE, 0, ONE]]


# ---------------------------------------------------------------------------------------------
# FormatInfo.numpy_field
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,field", [
    ("R32G32B32_FLOAT", ("<f4", 3)),
    ("R32G32B32A32_UINT", ("<u4", 4)),
    ("R32_SINT", ("<i4", 1)),
    ("R16G16_FLOAT", ("<f2", 2)),
    ("R16G16B16A16_SNORM", ("<i2", 4)),
    ("R16_UNORM", ("<u2", 1)),
    ("R8G8B8A8_UNORM", ("<u1", 4)),
    ("R8G8_SINT", ("<i1", 2)),
    ("R10G10B10A2_UNORM", ("<u4", 1)),
    ("R10G10B10A2_UINT", ("<u4", 1)),
    ("R11G11B10_FLOAT", ("<u4", 1)),
    ("B5G6R5_UNORM", ("<u2", 1)),
    ("B4G4R4A4_UNORM", ("<u2", 1)),
])
def test_numpy_field(name, field):
    assert format_info(name).numpy_field == field


@pytest.mark.parametrize("name", ALL_NAMES)
def test_numpy_field_covers_the_element_bytes(name):
    scalar, count = format_info(name).numpy_field
    dt = np.dtype(scalar) if count == 1 else np.dtype((scalar, (count,)))
    assert dt.itemsize == TABLE[name][1]


def test_numpy_field_float_values_round_trip_bits():
    # A float16x2 field written with numpy decodes to the same values.
    fmt = format_info("R16G16_FLOAT")
    scalar, count = fmt.numpy_field
    arr = np.array([(1.5, -0.25)], dtype=np.dtype((scalar, (count,))))
    words = np.frombuffer(arr.tobytes(), dtype="<u4").reshape(1, 1)
    out = decode_words(fmt, words)
    # 1.5 = 0x3FC00000, -0.25 = 0xBE800000
    assert out.tolist() == [[0x3FC00000, 0xBE800000, 0, ONE]]


# ---------------------------------------------------------------------------------------------
# decode_elements: decoding straight from (strided) element bytes
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL_NAMES)
@pytest.mark.parametrize("stride,offset", [(None, 0), (23, 5), (16, 0), (7, 1)])
def test_decode_elements_from_a_strided_view_equals_decode_words(name, stride, offset):
    # decode_words (hand-derived vectors above) is the oracle: the same element bytes, read
    # through a strided view of a buffer at unaligned addresses, decode to the same bits.
    fmt = format_info(name)
    size = TABLE[name][1]
    stride = stride if stride is not None and stride >= size else size
    n = 300
    rng = np.random.default_rng(len(name) * 31 + stride)
    buf = rng.integers(0, 256, size=offset + stride * n, dtype=np.uint8)
    rows = np.ndarray((n, size), dtype=np.uint8, buffer=buf, offset=offset, strides=(stride, 1))
    words = np.zeros((n, fmt.words), dtype="<u4")
    words.view(np.uint8).reshape(n, -1)[:, :size] = rows
    expected = decode_words(fmt, words)
    out = np.full((n, 8), 0xDEADBEEF, dtype=np.uint32)  # a strided destination, too
    got = decode_elements(fmt, rows, out[:, ::2])
    assert got.tolist() == expected.tolist()
    assert (out[:, 1::2] == 0xDEADBEEF).all()  # nothing written outside the four columns


@pytest.mark.parametrize("name", ALL_NAMES)
def test_decode_elements_of_zero_bytes_is_the_default_fill(name):
    # Zero bytes decode to 0 in every component the format has (+0.0, integer 0) and the
    # (0, 0, 0, 1) fill elsewhere (rules 2.11, 6.1); BGRX's w is 1.0 (rules 2.9).
    fmt = format_info(name)
    one = ONE if TABLE[name][3] == "float" else 1
    got = decode_elements(fmt, np.zeros((2, TABLE[name][1]), dtype=np.uint8),
                          np.empty((2, 4), dtype=np.uint32))
    count = 3 if name in ("B8G8R8X8_UNORM", "B5G6R5_UNORM") else TABLE[name][2]
    assert got.tolist() == [[0] * count + [0] * (3 - count) + [one] * (count < 4)] * 2


def test_decode_elements_r8g8b8a8_unorm_hand_vector_strided():
    # Two R8G8B8A8_UNORM elements at bytes 3 and 13 of a buffer (stride 10): c / 255 (rules 2.2).
    raw = bytearray(23)
    raw[3:7] = bytes([0, 255, 51, 128])
    raw[13:17] = bytes([1, 2, 3, 4])
    rows = np.ndarray((2, 4), dtype=np.uint8, buffer=np.frombuffer(bytes(raw), np.uint8),
                      offset=3, strides=(10, 1))
    got = decode_elements(format_info("R8G8B8A8_UNORM"), rows, np.empty((2, 4), np.uint32))
    assert got.tolist() == [[0, ONE, q(1, 5), q(128, 255)],
                            [q(1, 255), q(2, 255), q(3, 255), q(4, 255)]]
