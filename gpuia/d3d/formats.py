"""The DXGI vertex format table: the single source of every per-format fact in gpuia.

Each row describes one of the 47 formats Direct3D accepts in a vertex buffer (rules section 1):
its channels in memory, how the shader sees them, and the WebGPU vertex format that expresses it
natively, if any. Everything else is derived from the row: byte size, alignment, component count,
shader type, default fill, the numpy decoder (``gpuia.reference.decode``), the WGSL decoder of the
vertex-pulling path, the numpy structured dtype of an element, and the parametrization of tests.
No other module branches on a format name.

Channel mini-language (Mesa ``u_format`` style), one token per channel, least significant bits
first (DXGI packed names list channels from bit 0 up, so ``B5G6R5`` has B in bits 0-4)::

    un<N>   unsigned normalized, N bits      value = c / (2**N - 1)
    sn<N>   signed normalized, N bits        value = max(c / (2**(N-1) - 1), -1)
    u<N>    unsigned integer, zero-extended  (shader type uint)
    s<N>    signed integer, sign-extended    (shader type sint)
    f<N>    IEEE float, N = 16 or 32          (half converts exactly, denormals kept)
    uf<N>   unsigned small float, N = 11 or 10: 5-bit exponent (bias 15), N-5 bit mantissa
    x<N>    N bits of padding, not a component

Swizzle: four characters giving the shader's x, y, z, w. A letter ``x``/``y``/``z``/``w`` picks
channel 0/1/2/3 (padding channels count), ``0`` and ``1`` are constants. When a row gives no
swizzle, the channels map in order and missing components are filled with (0, 0, 0, 1): the "1"
takes the shader type, 1.0 for float formats and integer 1 for UINT/SINT (rules 2.11).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from ..errors import GpuiaError

__all__ = [
    "Channel",
    "FormatInfo",
    "VERTEX_FORMATS",
    "INDEX_FORMATS",
    "DXGI_FORMAT_VALUES",
    "format_info",
    "canonical_format_name",
    "UnknownFormatError",
    "ONE_BITS",
]

_CHANNEL_RE = re.compile(r"^(un|sn|uf|u|s|f|x)(\d+)$")

# The shader-side type of each channel kind (padding has none).
_KIND_SHADER_TYPE = {"un": "float", "sn": "float", "f": "float", "uf": "float", "u": "uint",
                     "s": "sint"}

ONE_BITS = {"float": 0x3F800000, "uint": 1, "sint": 1}
"""The bit pattern of the default-fill "1" for each shader type (rules 2.11): 1.0 for float
formats, integer 1 for UINT and SINT ones. The numpy decoder and the WGSL fetch both read it."""


@dataclass(frozen=True)
class Channel:
    """One channel of a format: its kind, width in bits and position in the element, counted in
    bits from the least significant bit of the little-endian element. A frozen value; rows
    make them from their channel spec (:attr:`FormatInfo.channels`), and no channel straddles
    a 32-bit word.

    Arguments:
        kind (str): the channel kind of the module's mini-language: ``un``, ``sn``, ``u``,
            ``s``, ``f``, ``uf`` or ``x`` (padding).
        bits (int): the width in bits.
        bit_offset (int): the position of its least significant bit in the element.
    """

    kind: str
    bits: int
    bit_offset: int

    @property
    def word(self) -> int:
        """Index of the 32-bit little-endian word holding the channel (no channel straddles)."""
        return self.bit_offset // 32

    @property
    def shift(self) -> int:
        """The channel's bit position within its word: it reads as ``(word >> shift) & mask``."""
        return self.bit_offset % 32

    @property
    def mask(self) -> int:
        """``bits`` one bits, the mask of the shifted word (0xFFFFFFFF for 32-bit channels)."""
        return (1 << self.bits) - 1 if self.bits < 32 else 0xFFFFFFFF


@dataclass(frozen=True)
class FormatInfo:
    """One row of the table: a frozen, hashable value. Everything not stored is derived, so
    rows cannot contradict. ``str()`` of a row is its name.

    Arguments:
        name (str): the DXGI name without ``DXGI_FORMAT_``.
        channel_spec (str): the channels in memory, least significant first, one token per
            channel in the module's mini-language (``"un10 un10 un10 un2"``).
        webgpu (str): the WebGPU vertex format that expresses the format exactly, or None when
            only vertex pulling can fetch it.
        swizzle_spec (str): the four-character swizzle, or None (the default) for channels in
            order with the (0, 0, 0, 1) fill (rules 2.11).
        optional (bool): whether D3D lets a device leave the format unsupported (rules 1.1).
            Default False.
        dxgi_value (int): the DXGI_FORMAT enum value (not compared). Default 0.
    """

    name: str
    channel_spec: str
    webgpu: str | None
    swizzle_spec: str | None = None
    optional: bool = False
    dxgi_value: int = field(default=0, compare=False)

    @cached_property
    def channels(self) -> tuple[Channel, ...]:
        """The channels in memory order, padding included, each placed after the previous one.

        Raises:
            ValueError: a token of ``channel_spec`` is not of the mini-language.
        """
        out, pos = [], 0
        for token in self.channel_spec.split():
            m = _CHANNEL_RE.match(token)
            if not m:
                raise ValueError(f"bad channel token {token!r} in {self.name}")
            kind, bits = m.group(1), int(m.group(2))
            out.append(Channel(kind, bits, pos))
            pos += bits
        return tuple(out)

    @property
    def size(self) -> int:
        """Bytes one element occupies in the vertex buffer."""
        return sum(c.bits for c in self.channels) // 8

    @property
    def alignment(self) -> int:
        """Required alignment of the element's offset: min(4, next power of two of its size)
        (rules 3.2). Sizes are 1, 2, 4, 8, 12 or 16, so this is min(4, size)."""
        return min(4, self.size)

    @property
    def words(self) -> int:
        """Number of 32-bit words a fetch reads (the last one partly when size < 4)."""
        return (self.size + 3) // 4

    @cached_property
    def components(self) -> tuple[Channel, ...]:
        """The channels the shader sees, in memory order (padding removed)."""
        return tuple(c for c in self.channels if c.kind != "x")

    @property
    def component_count(self) -> int:
        """How many components the format has (1-4); the shader's others are filled (rules
        2.11)."""
        return len(self.components)

    @property
    def shader_type(self) -> str:
        """``float``, ``uint`` or ``sint``: the type of the four values the shader receives."""
        return _KIND_SHADER_TYPE[self.components[0].kind]

    @cached_property
    def swizzle(self) -> str:
        """Four characters: ``x``/``y``/``z``/``w`` select a channel index 0..3, ``0``/``1`` are
        constants of the shader type."""
        if self.swizzle_spec is not None:
            return self.swizzle_spec
        n = self.component_count
        return "xyzw"[:n] + "001"[n - 1 :] if n < 4 else "xyzw"

    @property
    def is_normalized(self) -> bool:
        """Whether the format is UNORM or SNORM (the kinds the native path's comparison allows
        1 ULP, rules 2.2)."""
        return self.components[0].kind in ("un", "sn")

    @property
    def native(self) -> bool:
        """True when a WebGPU vertex format expresses this format exactly."""
        return self.webgpu is not None

    @cached_property
    def numpy_field(self) -> tuple[str, int]:
        """(numpy dtype string, count) describing one element inside a structured dtype.

        Formats whose channels are all 8, 16 or 32 bits wide and of one kind become an array of
        that scalar (``('<f4', 3)`` for R32G32B32_FLOAT, ``('<f2', 2)`` for R16G16_FLOAT); packed
        formats become one unsigned word (``('<u4', 1)`` for R10G10B10A2_UNORM).
        """
        bits = {c.bits for c in self.channels}
        kinds = {c.kind for c in self.components}
        if len(bits) == 1 and bits <= {8, 16, 32} and len(kinds) == 1:
            (b,) = bits
            (kind,) = kinds
            scalar = {"f": "f", "s": "i", "sn": "i"}.get(kind, "u")
            return (f"<{scalar}{b // 8}", len(self.channels))
        return (f"<u{self.size}", 1)

    def __str__(self) -> str:
        return self.name


def _row(name: str, channels: str, webgpu: str | None, swizzle: str | None = None, optional=False):
    return FormatInfo(name, channels, webgpu, swizzle, optional, DXGI_FORMAT_VALUES[name])


# Every DXGI_FORMAT name with its enum value (dxgiformat.h), so integers are accepted and names
# that are real DXGI formats but not vertex formats are refused by name.
DXGI_FORMAT_VALUES: dict[str, int] = {
    name: value
    for value, name in [
        (0, "UNKNOWN"), (1, "R32G32B32A32_TYPELESS"), (2, "R32G32B32A32_FLOAT"),
        (3, "R32G32B32A32_UINT"), (4, "R32G32B32A32_SINT"), (5, "R32G32B32_TYPELESS"),
        (6, "R32G32B32_FLOAT"), (7, "R32G32B32_UINT"), (8, "R32G32B32_SINT"),
        (9, "R16G16B16A16_TYPELESS"), (10, "R16G16B16A16_FLOAT"), (11, "R16G16B16A16_UNORM"),
        (12, "R16G16B16A16_UINT"), (13, "R16G16B16A16_SNORM"), (14, "R16G16B16A16_SINT"),
        (15, "R32G32_TYPELESS"), (16, "R32G32_FLOAT"), (17, "R32G32_UINT"), (18, "R32G32_SINT"),
        (19, "R32G8X24_TYPELESS"), (20, "D32_FLOAT_S8X24_UINT"), (21, "R32_FLOAT_X8X24_TYPELESS"),
        (22, "X32_TYPELESS_G8X24_UINT"), (23, "R10G10B10A2_TYPELESS"), (24, "R10G10B10A2_UNORM"),
        (25, "R10G10B10A2_UINT"), (26, "R11G11B10_FLOAT"), (27, "R8G8B8A8_TYPELESS"),
        (28, "R8G8B8A8_UNORM"), (29, "R8G8B8A8_UNORM_SRGB"), (30, "R8G8B8A8_UINT"),
        (31, "R8G8B8A8_SNORM"), (32, "R8G8B8A8_SINT"), (33, "R16G16_TYPELESS"),
        (34, "R16G16_FLOAT"), (35, "R16G16_UNORM"), (36, "R16G16_UINT"), (37, "R16G16_SNORM"),
        (38, "R16G16_SINT"), (39, "R32_TYPELESS"), (40, "D32_FLOAT"), (41, "R32_FLOAT"),
        (42, "R32_UINT"), (43, "R32_SINT"), (44, "R24G8_TYPELESS"), (45, "D24_UNORM_S8_UINT"),
        (46, "R24_UNORM_X8_TYPELESS"), (47, "X24_TYPELESS_G8_UINT"), (48, "R8G8_TYPELESS"),
        (49, "R8G8_UNORM"), (50, "R8G8_UINT"), (51, "R8G8_SNORM"), (52, "R8G8_SINT"),
        (53, "R16_TYPELESS"), (54, "R16_FLOAT"), (55, "D16_UNORM"), (56, "R16_UNORM"),
        (57, "R16_UINT"), (58, "R16_SNORM"), (59, "R16_SINT"), (60, "R8_TYPELESS"),
        (61, "R8_UNORM"), (62, "R8_UINT"), (63, "R8_SNORM"), (64, "R8_SINT"), (65, "A8_UNORM"),
        (66, "R1_UNORM"), (67, "R9G9B9E5_SHAREDEXP"), (68, "R8G8_B8G8_UNORM"),
        (69, "G8R8_G8B8_UNORM"), (70, "BC1_TYPELESS"), (71, "BC1_UNORM"), (72, "BC1_UNORM_SRGB"),
        (73, "BC2_TYPELESS"), (74, "BC2_UNORM"), (75, "BC2_UNORM_SRGB"), (76, "BC3_TYPELESS"),
        (77, "BC3_UNORM"), (78, "BC3_UNORM_SRGB"), (79, "BC4_TYPELESS"), (80, "BC4_UNORM"),
        (81, "BC4_SNORM"), (82, "BC5_TYPELESS"), (83, "BC5_UNORM"), (84, "BC5_SNORM"),
        (85, "B5G6R5_UNORM"), (86, "B5G5R5A1_UNORM"), (87, "B8G8R8A8_UNORM"),
        (88, "B8G8R8X8_UNORM"), (89, "R10G10B10_XR_BIAS_A2_UNORM"), (90, "B8G8R8A8_TYPELESS"),
        (91, "B8G8R8A8_UNORM_SRGB"), (92, "B8G8R8X8_TYPELESS"), (93, "B8G8R8X8_UNORM_SRGB"),
        (94, "BC6H_TYPELESS"), (95, "BC6H_UF16"), (96, "BC6H_SF16"), (97, "BC7_TYPELESS"),
        (98, "BC7_UNORM"), (99, "BC7_UNORM_SRGB"), (100, "AYUV"), (101, "Y410"), (102, "Y416"),
        (103, "NV12"), (104, "P010"), (105, "P016"), (106, "420_OPAQUE"), (107, "YUY2"),
        (108, "Y210"), (109, "Y216"), (110, "NV11"), (111, "AI44"), (112, "IA44"), (113, "P8"),
        (114, "A8P8"), (115, "B4G4R4A4_UNORM"), (130, "P208"), (131, "V208"), (132, "V408"),
        (189, "SAMPLER_FEEDBACK_MIN_MIP_OPAQUE"), (190, "SAMPLER_FEEDBACK_MIP_REGION_USED_OPAQUE"),
        (191, "A4B4G4R4_UNORM"),
    ]
}
"""Every DXGI_FORMAT name (no prefix) and its value in dxgiformat.h."""

# fmt: off
#        DXGI name                  channels (LSB first)    WebGPU vertex format   swizzle
_ROWS = [
    _row("R32G32B32A32_FLOAT",  "f32 f32 f32 f32",   "float32x4"),
    _row("R32G32B32A32_UINT",   "u32 u32 u32 u32",   "uint32x4"),
    _row("R32G32B32A32_SINT",   "s32 s32 s32 s32",   "sint32x4"),
    _row("R32G32B32_FLOAT",     "f32 f32 f32",       "float32x3"),
    _row("R32G32B32_UINT",      "u32 u32 u32",       "uint32x3"),
    _row("R32G32B32_SINT",      "s32 s32 s32",       "sint32x3"),
    _row("R32G32_FLOAT",        "f32 f32",           "float32x2"),
    _row("R32G32_UINT",         "u32 u32",           "uint32x2"),
    _row("R32G32_SINT",         "s32 s32",           "sint32x2"),
    _row("R32_FLOAT",           "f32",               "float32"),
    _row("R32_UINT",            "u32",               "uint32"),
    _row("R32_SINT",            "s32",               "sint32"),
    _row("R16G16B16A16_FLOAT",  "f16 f16 f16 f16",   "float16x4"),
    _row("R16G16B16A16_UNORM",  "un16 un16 un16 un16", "unorm16x4"),
    _row("R16G16B16A16_UINT",   "u16 u16 u16 u16",   "uint16x4"),
    _row("R16G16B16A16_SNORM",  "sn16 sn16 sn16 sn16", "snorm16x4"),
    _row("R16G16B16A16_SINT",   "s16 s16 s16 s16",   "sint16x4"),
    _row("R16G16_FLOAT",        "f16 f16",           "float16x2"),
    _row("R16G16_UNORM",        "un16 un16",         "unorm16x2"),
    _row("R16G16_UINT",         "u16 u16",           "uint16x2"),
    _row("R16G16_SNORM",        "sn16 sn16",         "snorm16x2"),
    _row("R16G16_SINT",         "s16 s16",           "sint16x2"),
    _row("R16_FLOAT",           "f16",               "float16"),
    _row("R16_UNORM",           "un16",              "unorm16"),
    _row("R16_UINT",            "u16",               "uint16"),
    _row("R16_SNORM",           "sn16",              "snorm16"),
    _row("R16_SINT",            "s16",               "sint16"),
    _row("R8G8B8A8_UNORM",      "un8 un8 un8 un8",   "unorm8x4"),
    _row("R8G8B8A8_UINT",       "u8 u8 u8 u8",       "uint8x4"),
    _row("R8G8B8A8_SNORM",      "sn8 sn8 sn8 sn8",   "snorm8x4"),
    _row("R8G8B8A8_SINT",       "s8 s8 s8 s8",       "sint8x4"),
    _row("R8G8_UNORM",          "un8 un8",           "unorm8x2"),
    _row("R8G8_UINT",           "u8 u8",             "uint8x2"),
    _row("R8G8_SNORM",          "sn8 sn8",           "snorm8x2"),
    _row("R8G8_SINT",           "s8 s8",             "sint8x2"),
    _row("R8_UNORM",            "un8",               "unorm8"),
    _row("R8_UINT",             "u8",                "uint8"),
    _row("R8_SNORM",            "sn8",               "snorm8"),
    _row("R8_SINT",             "s8",                "sint8"),
    # Packed formats. WebGPU has unorm10-10-10-2 and unorm8x4-bgra; the rest need vertex pulling.
    _row("R10G10B10A2_UNORM",   "un10 un10 un10 un2", "unorm10-10-10-2"),
    _row("R10G10B10A2_UINT",    "u10 u10 u10 u2",    None),
    _row("R11G11B10_FLOAT",     "uf11 uf11 uf10",    None),
    _row("B8G8R8A8_UNORM",      "un8 un8 un8 un8",   "unorm8x4-bgra", "zyxw"),
    # The X byte is not a component; w is 1.0 per SPEC 19.1.3.3 (AMD returns garbage, WINE
    # does not check it; rules 2.9).
    _row("B8G8R8X8_UNORM",      "un8 un8 un8 x8",    None,              "zyx1"),
    # Optional formats (rules 1.1, 2.10); bit order inferred from DXGI naming.
    _row("B5G6R5_UNORM",        "un5 un6 un5",       None,              "zyx1", optional=True),
    _row("B5G5R5A1_UNORM",      "un5 un5 un5 un1",   None,              "zyxw", optional=True),
    _row("B4G4R4A4_UNORM",      "un4 un4 un4 un4",   None,              "zyxw", optional=True),
]
# fmt: on

VERTEX_FORMATS: dict[str, FormatInfo] = {row.name: row for row in _ROWS}
"""The 47 IA vertex formats, keyed by DXGI name without prefix."""

INDEX_FORMATS: dict[str, int] = {"R16_UINT": 2, "R32_UINT": 4}
"""The index buffer formats (rules 1.2) and their byte size."""

_BY_VALUE = {v: k for k, v in DXGI_FORMAT_VALUES.items()}


class UnknownFormatError(GpuiaError, ValueError):
    """A name or number that is no DXGI format, or not one valid where it was used (also a
    ``ValueError``). The descriptors and layouts re-raise it as an
    :class:`~gpuia.errors.InvalidDescError` naming the element and field."""


def canonical_format_name(value: object) -> str:
    """The canonical name of any DXGI format, vertex format or not.

    Arguments:
        value: a name (any case, surrounding spaces ignored, with or without
            ``DXGI_FORMAT_``), a :class:`FormatInfo`, or the DXGI enum integer.

    Returns:
        The upper-case DXGI name without prefix (``"R8G8B8A8_UNORM"``).

    Raises:
        UnknownFormatError: ``value`` is not a DXGI format at all: an unknown name or enum
            value, a bool, or another type.
    """
    if isinstance(value, FormatInfo):
        return value.name
    if isinstance(value, bool):
        raise UnknownFormatError(f"{value!r} is not a DXGI format")
    if isinstance(value, int):
        if value in _BY_VALUE:
            return _BY_VALUE[value]
        raise UnknownFormatError(f"{value} is not a DXGI_FORMAT value")
    if not isinstance(value, str):
        raise UnknownFormatError(f"{value!r} is not a DXGI format name")
    name = value.strip().upper()
    if name.startswith("DXGI_FORMAT_"):
        name = name[len("DXGI_FORMAT_") :]
    if name not in DXGI_FORMAT_VALUES:
        raise UnknownFormatError(f"{value!r} is not a DXGI format name")
    return name


def format_info(value: object) -> FormatInfo:
    """The table row of a vertex format (rules 1.1).

    Arguments:
        value: the format, in any form :func:`canonical_format_name` takes.

    Returns:
        The :class:`FormatInfo` row of :data:`VERTEX_FORMATS`.

    Raises:
        UnknownFormatError: ``value`` is no DXGI format, or a DXGI format that is not valid in
            a vertex buffer (sRGB, TYPELESS, depth, block-compressed, shared-exponent, video,
            ...), refused by name with the list of what the Input Assembler accepts.
    """
    name = canonical_format_name(value)
    row = VERTEX_FORMATS.get(name)
    if row is None:
        raise UnknownFormatError(
            f"DXGI_FORMAT_{name} is not a vertex buffer format (the Input Assembler accepts only "
            f"the 47 formats of D3D11.3 spec 19.1.4: 32/16/8-bit FLOAT/UNORM/SNORM/UINT/SINT "
            f"vectors, R10G10B10A2_UNORM/UINT, R11G11B10_FLOAT, B8G8R8A8/X8_UNORM, B5G6R5, "
            f"B5G5R5A1, B4G4R4A4)"
        )
    return row
