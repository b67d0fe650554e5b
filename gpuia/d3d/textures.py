"""Textures and samplers a vertex shader reads: the facts both sides share (docs/resources.md,
rules 17).

One table row per texture format gpuia binds (:data:`TEXTURE_FORMATS`: the WebGPU format that
holds the same texels, whether WebGPU filters it without an optional feature, the feature it
needs), one per resource dimension (:data:`DIMENSIONS`: texture1d, texture2d, texture3d and
D3D12_RESOURCE_DESC's limits, checked by :func:`check_dimensions`), the mip chain's sizes
(:func:`mip_size`, :func:`mip_offsets`: D3D12's ``max(1, width >> level)``), the bindings of
@group(3) that hold them (a Texture3D's layout slot: :func:`texture_slot`), and a
D3D12_SAMPLER_DESC read from its snake_case fields (:func:`sampler_desc`): the eight basic
point and linear filters and their COMPARISON_ forms with a ComparisonFunc (rules 17.10).
Refused, naming the field: an unknown filter, address mode or comparison function, a comparison
filter without one, LODs out of order, a MipLODBias outside -16..15.99; a minimum, maximum or
anisotropic filter and what gpuia does not sample (a negative MinLOD; with BORDER, a border
colour of the _UINT forms or not finite) are an :class:`~gpuia.errors.UnsupportedError` with
the reason. MIRROR_ONCE, MipLODBias and BORDER (rules 17.4: the sampler's border colour, each
format's share of it by :attr:`TextureFormat.border_range`), which WebGPU's samplers lack, are
emulated in the shader through :meth:`SamplerDesc.state_words` and
:meth:`SamplerDesc.border_words`.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from ..errors import InvalidDescError, UnsupportedError
from .formats import format_info
from .srv_bindings import SRV_BINDING_BASE, SRV_SLOTS, SRV_SPACES
from .uav_bindings import UAV_BINDING_BASE

__all__ = ["TextureFormat", "TEXTURE_FORMATS", "texture_format", "mip_size", "mip_offsets",
           "TEXTURE_BINDING_BASE", "MAX_TEXTURES", "SAMPLER_BINDING_BASE", "SAMPLER_SLOTS",
           "texture_binding", "sampler_binding", "binding_kind", "SamplerDesc", "sampler_desc",
           "SAMPLED_TEXTURE_BINDING_BASE", "SAMPLER_STATE_BINDING",
           "ADDRESS_MODES", "FILTERS", "MAX_MIP_LEVELS", "DIMENSIONS", "Dimension",
           "texture_slot", "slot_binding", "COMPARISON_FUNCS", "check_sampler_kind",
           "check_compare_format", "check_view_format", "texture_layout", "RETURN_TYPES",
           "SAMPLE_TYPE_SLOT", "VIEW_CUBE_SLOT", "CUBE_FACES", "check_view_shape", "BORDER_COLORS",
           "STATE_ROWS"]

TEXTURE_BINDING_BASE = SRV_BINDING_BASE + SRV_SLOTS * SRV_SPACES  # 912: after the buffer SRVs
MAX_TEXTURES = 16  # WebGPU's guaranteed maxSampledTexturesPerShaderStage
SAMPLER_BINDING_BASE = TEXTURE_BINDING_BASE + MAX_TEXTURES  # 928
SAMPLER_SLOTS = 16  # WebGPU's guaranteed maxSamplersPerShaderStage (D3D12's heap has 2048)
# A texture the shader samples binds as WebGPU's filterable "float" (any sampler may filter
# it), one it only loads as "unfilterable-float" (any format binds so): 944 + k.
SAMPLED_TEXTURE_BINDING_BASE = SAMPLER_BINDING_BASE + SAMPLER_SLOTS
# A Texture2DArray binds as a 2d-array view: 960 + k loaded, 976 + k sampled (below 1000).
ARRAY_BINDING_BASE = SAMPLED_TEXTURE_BINDING_BASE + MAX_TEXTURES
MAX_MIP_LEVELS = 15  # D3D12_REQ_MIP_LEVELS: a 16384-texel texture's chain
# A Texture3D's layout slot: its binding (912 + k or 944 + k) plus VIEW_3D_SLOT; an integer
# texture's plus SAMPLE_TYPE_SLOT times 1 (uint) or 2 (sint). The bindings up to 999 are all
# taken, so the slot, not the number, says the WebGPU view is 3d and the texture integer
# (gpuia.gpu.vertex.pipelines builds the layout entry from it, binding slot_binding(slot)).
VIEW_3D_SLOT = 4096
SAMPLE_TYPE_SLOT = 2 * VIEW_3D_SLOT
# A TextureCube's slot: plus VIEW_CUBE_SLOT (its view ``cube``, a TextureCubeArray's, at an
# array binding, ``cube-array``; rules 17.9)
VIEW_CUBE_SLOT = 3 * SAMPLE_TYPE_SLOT
CUBE_FACES = 6  # D3D's face order +X, -X, +Y, -Y, +Z, -Z: a cube's slices 6c..6c+5
RETURN_TYPES = ("float", "uint", "sint")  # a slot's // SAMPLE_TYPE_SLOT; formats.shader_type


@dataclass(frozen=True)
class Dimension:
    """A D3D12_RESOURCE_DIMENSION gpuia binds: the case kind (``texture1d`` ...), the limits
    of D3D12_RESOURCE_DESC at feature level 11 (``width``, ``height``, ``depth`` the largest
    Width, Height and DepthOrArraySize as a depth, ``array`` as an array size; 1: none)."""

    kind: str
    width: int
    height: int
    depth: int
    array: int


# D3D12_REQ_TEXTURE1D_U_DIMENSION 16384, _ARRAY_AXIS_DIMENSION 2048; TEXTURE2D 16384 a side;
# TEXTURE3D_U_V_OR_W_DIMENSION 2048 (a 3D texture has depth and no slices)
DIMENSIONS = {d.kind: d for d in (
    Dimension("texture1d", 16384, 1, 1, 2048),
    Dimension("texture2d", 16384, 16384, 1, 2048),
    Dimension("texture3d", 2048, 2048, 2048, 1),
)}


def texture_slot(binding: int, dimension: str, return_type: str = "float",
                 cube: bool = False) -> int:
    """The @group(3) layout slot of a texture at ``binding``: the binding itself, a
    ``texture3d``'s plus VIEW_3D_SLOT (its WebGPU view is 3d), a ``uint`` or ``sint`` texture's
    (``return_type``, of :data:`RETURN_TYPES`) plus SAMPLE_TYPE_SLOT times 1 or 2 (WebGPU's
    sample type ``uint`` or ``sint``), a ``cube``'s plus VIEW_CUBE_SLOT."""
    return binding + VIEW_3D_SLOT * (dimension == "texture3d") + \
        SAMPLE_TYPE_SLOT * RETURN_TYPES.index(return_type) + VIEW_CUBE_SLOT * cube


def slot_binding(slot: int) -> int:
    """The binding number of a @group(3) layout slot (:func:`texture_slot`)."""
    return slot % VIEW_3D_SLOT


def texture_layout(slot: int) -> tuple[str, str] | None:
    """(WebGPU sample type, view dimension) of a texture's layout slot (:func:`texture_slot`),
    None for a slot that holds no texture: a texture the shader samples is ``float``
    (filterable), one it only loads ``unfilterable-float`` (any float format binds so), an
    integer one ``uint`` or ``sint``; the view ``2d``, ``2d-array`` or ``3d``."""
    kind = binding_kind(slot)
    if "texture" not in kind:
        return None
    sample = RETURN_TYPES[slot % VIEW_CUBE_SLOT // SAMPLE_TYPE_SLOT]
    if sample == "float":
        sample = "float" if kind.startswith("sampled") else "unfilterable-float"
    view = "2d-array" if "_array" in kind else "3d" if "_3d" in kind else "2d"
    return sample, view.replace("2d", "cube") if kind.endswith("_cube") else view


def texture_binding(index: int, sampled: bool = False, array: bool = False) -> int:
    """The @group(3) binding of the shader's ``index``-th texture (in register order), one it
    samples (``sampled``) or one it only loads, a Texture2DArray (``array``) or a Texture2D."""
    if array:
        return ARRAY_BINDING_BASE + MAX_TEXTURES * sampled + index
    return (SAMPLED_TEXTURE_BINDING_BASE if sampled else TEXTURE_BINDING_BASE) + index


def sampler_binding(register: int) -> int:
    """The @group(3) binding of sampler ``register(s<register>)`` (space 0)."""
    return SAMPLER_BINDING_BASE + register


def binding_kind(binding: int) -> str:
    """What a @group(3) binding holds: ``uniform`` (root CBVs, the views uniform),
    ``storage`` (buffer SRVs), ``texture`` (loaded only), ``sampled_texture``, the same two of
    a Texture2DArray (``texture_array``, ``sampled_texture_array``), ``sampler`` or
    ``rw_storage`` (buffer UAVs, ``gpuia.d3d.uav_bindings``); a Texture3D's slot
    (:func:`texture_slot`) ``texture_3d`` or ``sampled_texture_3d``, an integer texture's its
    kind plus ``_uint`` or ``_sint``, a TextureCube's plus ``_cube``."""
    if binding >= VIEW_CUBE_SLOT:
        return binding_kind(binding - VIEW_CUBE_SLOT) + "_cube"
    if binding >= VIEW_3D_SLOT:
        sample = RETURN_TYPES[binding // SAMPLE_TYPE_SLOT]
        return binding_kind(slot_binding(binding)) + "_3d" * (binding // VIEW_3D_SLOT % 2) + \
            ("" if sample == "float" else f"_{sample}")
    if binding >= UAV_BINDING_BASE:
        return "rw_storage"
    if binding >= ARRAY_BINDING_BASE + MAX_TEXTURES:
        return "sampled_texture_array"
    if binding >= ARRAY_BINDING_BASE:
        return "texture_array"
    if binding >= SAMPLED_TEXTURE_BINDING_BASE:
        return "sampled_texture"
    if binding >= SAMPLER_BINDING_BASE:
        return "sampler"
    if binding >= TEXTURE_BINDING_BASE:
        return "texture"
    return "storage" if binding >= SRV_BINDING_BASE else "uniform"


@dataclass(frozen=True)
class TextureFormat:
    """One texture format: ``name`` (DXGI), ``webgpu`` the WebGPU texture format with the same
    texels, ``filterable`` whether WebGPU filters it linearly in core, ``feature`` the WebGPU
    feature it needs (None: core), ``compare_bits`` whether a comparison sampler samples it
    (None: no; 0: a float format; n: an n-bit UNORM one, the reference quantized to it)."""

    name: str
    webgpu: str
    filterable: bool
    feature: str | None = None
    compare_bits: int | None = None

    @property
    def size(self) -> int:
        """Bytes of one texel (the DXGI table's element size)."""
        return format_info(self.name).size

    @property
    def border_range(self) -> tuple[int, float, float]:
        """(the components the format has, the lowest and highest value one holds): what a
        BORDER sampler's border colour keeps of itself on this format (D3D11.3 spec 7.18.9.1:
        the components present, clamped into the format's range; the others the format's
        defaults 0, 0, 0, 1; rules 17.4). An integer format, never sampled (rules 17.12),
        gives float32's range, unused."""
        channels = format_info(self.name).channels
        lo, hi = _CHANNEL_RANGES.get((channels[0].kind, channels[0].bits), _CHANNEL_RANGES[
            ("f", 32)])
        return len(channels), lo, hi

    @property
    def return_type(self) -> str:
        """``float`` (FLOAT, UNORM, SNORM), ``uint`` or ``sint``: the type a shader reads the
        format as (the DXGI table's shader type; D3D11.3 spec 19.1.3.2), one of
        :data:`RETURN_TYPES`."""
        return format_info(self.name).shader_type


# r32float and rgba32float are "unfilterable-float" without the float32-filterable feature;
# r16unorm is no core WebGPU format (wgpu's native "texture-format16bit-norm").
# A comparison samples R32_FLOAT (float, compare_bits 0) and R16_UNORM (16 bits) of these only
# (the D3D11.3 spec's Format List, column "Shader sample_c"; rules 17.10).
# The _UINT and _SINT formats of 8, 16 and 32 bits and 1, 2 or 4 channels and R10G10B10A2_UINT
# are WebGPU's core "uint" / "sint" textures of the same texels; the Format List gives them ld
# and no sample (rules 17.12).
# The range of a channel a sampled format has (kind, bits): UNORM [0, 1], float16's and
# float32's largest finite values (rules 17.4: a border colour is clamped to it)
_CHANNEL_RANGES = {("un", 8): (0.0, 1.0), ("un", 16): (0.0, 1.0), ("f", 16): (-65504.0, 65504.0),
                   ("f", 32): (-3.4028234663852886e38, 3.4028234663852886e38)}
TEXTURE_FORMATS = {f.name: f for f in (
    TextureFormat("R8G8B8A8_UNORM", "rgba8unorm", True),
    TextureFormat("R8_UNORM", "r8unorm", True),
    TextureFormat("R16_UNORM", "r16unorm", True, "texture-format16bit-norm", 16),
    TextureFormat("R16G16_FLOAT", "rg16float", True),
    TextureFormat("R32_FLOAT", "r32float", False, None, 0),
    TextureFormat("R32G32B32A32_FLOAT", "rgba32float", False),
    *(TextureFormat(f"{dxgi}_{kind.upper()}", f"{webgpu}{kind}", False)
      for dxgi, webgpu in (("R8", "r8"), ("R8G8", "rg8"), ("R8G8B8A8", "rgba8"),
                           ("R16", "r16"), ("R16G16", "rg16"), ("R16G16B16A16", "rgba16"),
                           ("R32", "r32"), ("R32G32", "rg32"), ("R32G32B32A32", "rgba32"))
      for kind in ("uint", "sint")),
    TextureFormat("R10G10B10A2_UINT", "rgb10a2uint", False),
)}
# DXGI formats D3D12 makes textures of that WebGPU has no texture format for, with the reason
_NO_WEBGPU_FORMAT = {f"R32G32B32_{kind}": "WebGPU has no texture format of three 32-bit "
                                          "channels (D3D12 makes one, WebGPU cannot hold it)"
                     for kind in ("FLOAT", "UINT", "SINT")}


def texture_format(value, where: str) -> TextureFormat:
    """The row of a DXGI format name (``DXGI_FORMAT_`` prefix optional); refused otherwise
    (an :class:`~gpuia.errors.UnsupportedError` with the reason for a D3D12 texture format
    WebGPU has no texture format for: R32G32B32_FLOAT, _UINT, _SINT)."""
    name = value.upper().removeprefix("DXGI_FORMAT_") if isinstance(value, str) else value
    if name in _NO_WEBGPU_FORMAT:
        raise UnsupportedError(f"{where}: Format={value}: {_NO_WEBGPU_FORMAT[name]}; gpuia "
                               f"binds textures of {', '.join(TEXTURE_FORMATS)}")
    if name not in TEXTURE_FORMATS:
        raise InvalidDescError(where, "Format", value,
                               f"gpuia binds textures of {', '.join(TEXTURE_FORMATS)}")
    return TEXTURE_FORMATS[name]


def mip_size(size: int, level: int) -> int:
    """A dimension of mip ``level``: ``max(1, size >> level)`` (D3D12's mip chain)."""
    return max(1, size >> level)


def mip_offsets(width: int, height: int, levels: int, array_size: int,
                depth: int = 1) -> tuple[int, ...]:
    """The first texel of each (array slice, mip) in a tightly packed texture, slice-major
    (D3D12's subresource order: mip 0..levels-1 of slice 0, then of slice 1, ...), plus the
    total count last; a 3D texture's level holds ``max(1, depth >> level)`` planes."""
    out, at = [], 0
    for _ in range(array_size):
        for level in range(levels):
            out.append(at)
            at += mip_size(width, level) * mip_size(height, level) * mip_size(depth, level)
    return (*out, at)


def check_dimensions(width, height, levels, array_size, where: str, dimension: str = "texture2d",
                     depth: int = 1) -> None:
    """D3D12_RESOURCE_DESC's checks of a texture's size and mip count (``dimension`` a key of
    :data:`DIMENSIONS`; a 3D texture's DepthOrArraySize is ``depth``, its ``array_size`` 1)."""
    d = DIMENSIONS[dimension]
    for name, value, top, none in (
            ("Width", width, d.width, ""), ("Height", height, d.height, "its Height is 1"),
            ("DepthOrArraySize", depth, d.depth, "it has no depth (depth is 3D's)"),
            ("DepthOrArraySize", array_size, d.array,
             "it has no array slices: its DepthOrArraySize is the depth")):
        if type(value) is not int or not 1 <= value <= top:
            rule = f"a {dimension}: {none}" if top == 1 else \
                f"D3D12 feature level 11 limits of a {dimension}"
            raise InvalidDescError(where, name, value, f"expected 1..{top} ({rule})")
    full = 1 + int(math.log2(max(width, height, depth)))
    if type(levels) is not int or not 1 <= levels <= full:
        raise InvalidDescError(where, "MipLevels", levels,
                               f"expected 1..{full}: a {width}x{height}x{depth} texture's full "
                               f"chain (1 + log2 of the largest side)")


# D3D12_FILTER's basic filters: (min, mag, mip), each "point" or "linear".
FILTERS = {
    "MIN_MAG_MIP_POINT": ("point", "point", "point"),
    "MIN_MAG_POINT_MIP_LINEAR": ("point", "point", "linear"),
    "MIN_POINT_MAG_LINEAR_MIP_POINT": ("point", "linear", "point"),
    "MIN_POINT_MAG_MIP_LINEAR": ("point", "linear", "linear"),
    "MIN_LINEAR_MAG_MIP_POINT": ("linear", "point", "point"),
    "MIN_LINEAR_MAG_POINT_MIP_LINEAR": ("linear", "point", "linear"),
    "MIN_MAG_LINEAR_MIP_POINT": ("linear", "linear", "point"),
    "MIN_MAG_MIP_LINEAR": ("linear", "linear", "linear"),
}
_REDUCTIONS = ("MINIMUM_", "MAXIMUM_")
# D3D12_COMPARISON_FUNC: a comparison sampler's test, "reference {func} texel" (rules 17.10)
COMPARISON_FUNCS = {"NEVER": 1, "LESS": 2, "EQUAL": 3, "LESS_EQUAL": 4, "GREATER": 5,
                    "NOT_EQUAL": 6, "GREATER_EQUAL": 7, "ALWAYS": 8}
# D3D12_TEXTURE_ADDRESS_MODE: its enum value, what gpuia does with it (None: sampled).
ADDRESS_MODES = {
    "WRAP": (1, None), "MIRROR": (2, None), "CLAMP": (3, None),
    "BORDER": (4, None),  # emulated: gpuia's WGSL takes the taps itself (rules 17.4)
    "MIRROR_ONCE": (5, None),  # emulated: mirror-repeat on a coordinate clamped to [-1, 1]
}
SAMPLER_STATE_BINDING = 14  # gpuia's uniform of the samplers' emulated state, beside the CBVs
_BIAS_RANGE = (-16.0, 15.99)  # D3D12_MIP_LOD_BIAS_MIN, D3D12_MIP_LOD_BIAS_MAX
_FIELDS = {"register", "space", "filter", "address_u", "address_v", "address_w",
           "border_color", "min_lod", "max_lod", "mip_lod_bias", "comparison_func",
           "max_anisotropy"}
_FLT_MAX = 3.4028234663852886e38  # D3D12_FLOAT32_MAX: MaxLOD's "no limit"
# D3D12_STATIC_BORDER_COLOR as RGBA (a static sampler's BorderColor; root_signature.model);
# the _UINT forms are integer colours, for integer formats, which gpuia never samples
BORDER_COLORS = {"TRANSPARENT_BLACK": (0.0, 0.0, 0.0, 0.0), "OPAQUE_BLACK": (0.0, 0.0, 0.0, 1.0),
                 "OPAQUE_WHITE": (1.0, 1.0, 1.0, 1.0), "OPAQUE_BLACK_UINT": None,
                 "OPAQUE_WHITE_UINT": None}
STATE_ROWS = 4
"""The rows of gpuia's WGSL sampler state uniform (``vec4<u32>`` each, SAMPLER_SLOTS per row
kind): :meth:`SamplerDesc.state_words` at r, :meth:`SamplerDesc.border_words` at
SAMPLER_SLOTS + r and 2 * SAMPLER_SLOTS + r, the k-th texture's
:attr:`TextureFormat.border_range` at 3 * SAMPLER_SLOTS + k."""


@dataclass(frozen=True)
class SamplerDesc:
    """A D3D12_SAMPLER_DESC gpuia samples with: ``filter`` (min, mag, mip), address modes
    ``address`` (u, v, w: names of :data:`ADDRESS_MODES`), ``min_lod``, ``max_lod`` (float32
    values)."""

    filter: tuple[str, str, str] = ("point", "point", "point")
    address: tuple[str, str, str] = ("CLAMP", "CLAMP", "CLAMP")
    min_lod: float = 0.0
    max_lod: float = _FLT_MAX
    mip_lod_bias: float = 0.0
    comparison: str | None = None  # a comparison filter's D3D12_COMPARISON_FUNC (a name)
    # BorderColor as float32 (a sampler without a BORDER axis keeps the default: unused)
    border: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def words(self) -> bytes:
        """The sampler as 14 little-endian words, as gpuia's CPU reference reads it
        (``gpuia.hlsl.cpu_textures``): min, mag, mip filter (0 point, 1 linear), the address
        modes' D3D12 enum values, MinLOD, MaxLOD and MipLODBias as float32, the comparison
        function's D3D12 value (0: not a comparison sampler), BorderColor as 4 float32."""
        return struct.pack("<6I3fI4f", *(int(f == "linear") for f in self.filter),
                           *(ADDRESS_MODES[a][0] for a in self.address), self.min_lod,
                           min(self.max_lod, _FLT_MAX), self.mip_lod_bias,
                           COMPARISON_FUNCS.get(self.comparison or "", 0), *self.border)

    def border_words(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The sampler's two further rows of gpuia's WGSL sampler state (:data:`STATE_ROWS`),
        read by the filter gpuia emulates for a sampler with a BORDER axis
        (``gpuia.hlsl.border_wgsl``): BorderColor's float32 bits; then MinLOD's and MaxLOD's
        float32 bits and a word of flags: bit 0 (1) set when an axis is BORDER, bits 1-3 the
        min, mag and mip filters linear, bits 4-7, 8-11 and 12-15 the address modes of u, v, w
        (D3D12 values)."""
        bits = [struct.unpack("<I", struct.pack("<f", v))[0] for v in
                (*self.border, self.min_lod, min(self.max_lod, _FLT_MAX))]
        flags = ("BORDER" in self.address) + sum(
            (f == "linear") << (1 + k) for k, f in enumerate(self.filter)) + sum(
            ADDRESS_MODES[a][0] << (4 + 4 * k) for k, a in enumerate(self.address))
        return tuple(bits[:4]), (bits[4], bits[5], flags, 0)

    def comparison_lod(self) -> float:
        """SampleCmpLevelZero's LOD: 0 plus MipLODBias clamped to MinLOD..MaxLOD in float32
        (sample_c_lz, rules 17.10), as the CPU reference computes it."""
        f32 = [struct.unpack("<f", struct.pack("<f", min(v, _FLT_MAX)))[0]
               for v in (self.mip_lod_bias, self.min_lod, self.max_lod)]
        return min(max(f32[0], f32[1]), f32[2])

    def state_words(self) -> tuple[int, int, int, int]:
        """The sampler's entry of gpuia's WGSL sampler state (a ``vec4<u32>`` per register at
        @binding(SAMPLER_STATE_BINDING), ``gpuia.hlsl.textures``): what WebGPU's sampler
        cannot say. Word 0: bit 0 (1) MIRROR_ONCE on u, bit 1 (2) on v, bit 2 (4) on w; word 1:
        MipLODBias's float32 bits (a comparison sampler's: :meth:`comparison_lod`'s); a
        comparison sampler's word 2: its function's D3D12 value, plus 16 for a linear min,
        32 a linear mag and 64 a linear mip filter; word 3: AddressU's D3D12 value plus 16
        times AddressV's (gpuia emulates its filter from texel loads); 0 otherwise."""
        flags = sum((a == "MIRROR_ONCE") << k for k, a in enumerate(self.address))
        if self.comparison is None:
            return flags, struct.unpack("<I", struct.pack("<f", self.mip_lod_bias))[0], 0, 0
        lod = struct.unpack("<I", struct.pack("<f", self.comparison_lod()))[0]
        mode = COMPARISON_FUNCS[self.comparison] + sum(
            (f == "linear") << (4 + k) for k, f in enumerate(self.filter))
        return flags, lod, mode, ADDRESS_MODES[self.address[0]][0] + \
            16 * ADDRESS_MODES[self.address[1]][0]


def _name(value, where: str, field: str, prefix: str, names) -> str:
    name = value.upper().removeprefix(prefix) if isinstance(value, str) else None
    if name is None or name not in names:
        raise InvalidDescError(where, field, value, f"expected one of {', '.join(names)}")
    return name


def sampler_desc(entry: dict, where: str) -> SamplerDesc:
    """A D3D12_SAMPLER_DESC (or D3D12_STATIC_SAMPLER_DESC) given by its snake_case fields
    (``register`` and ``space`` are the caller's); missing fields take D3D12's defaults of
    CD3DX12_SAMPLER_DESC but for the filter (MIN_MAG_MIP_POINT) and address modes (CLAMP)."""
    if not isinstance(entry, dict):
        raise InvalidDescError(where, None, entry, "expected an object of D3D12_SAMPLER_DESC "
                                                   "fields")
    unknown = set(entry) - _FIELDS
    if unknown:
        raise InvalidDescError(where, sorted(unknown)[0], None,
                               f"not a D3D12_SAMPLER_DESC field: {', '.join(sorted(_FIELDS))}")
    raw = entry.get("filter", "MIN_MAG_MIP_POINT")
    spelled = raw.upper().removeprefix("D3D12_FILTER_") if isinstance(raw, str) else raw
    if isinstance(spelled, str) and (spelled.startswith(_REDUCTIONS) or "ANISOTROPIC" in spelled):
        raise UnsupportedError(f"{where}: Filter={raw!r}: minimum, maximum and anisotropic "
                               f"filters are not sampled by gpuia (a vertex shader's "
                               f"SampleLevel takes a basic filter, SampleCmpLevelZero a "
                               f"basic comparison one)")
    compare = isinstance(spelled, str) and spelled.startswith("COMPARISON_")
    filt = FILTERS[_name(spelled.removeprefix("COMPARISON_") if compare else raw, where,
                         "Filter", "D3D12_FILTER_", FILTERS)]
    func = None
    if compare:  # D3D12 ignores ComparisonFunc otherwise (COMPARISON_FUNC_IGNORED)
        if "comparison_func" not in entry:
            raise InvalidDescError(where, "comparison_func", None,
                                   f"the comparison filter {raw} needs a D3D12_COMPARISON_FUNC: "
                                   f"one of {', '.join(COMPARISON_FUNCS)} (rules 17.10)")
        func = _name(entry["comparison_func"], where, "comparison_func",
                     "D3D12_COMPARISON_FUNC_", COMPARISON_FUNCS)
    address = []
    for field in ("address_u", "address_v", "address_w"):
        mode = _name(entry.get(field, "CLAMP"), where, field,
                     "D3D12_TEXTURE_ADDRESS_MODE_", ADDRESS_MODES)
        refusal = ADDRESS_MODES[mode][1]
        if refusal:
            raise UnsupportedError(f"{where}: {field}={mode}: {refusal} (rules 17.4)")
        address.append(mode)
    lods = []
    for field, default in (("min_lod", 0.0), ("max_lod", _FLT_MAX), ("mip_lod_bias", 0.0)):
        value = entry.get(field, default)
        if type(value) not in (int, float) or math.isnan(value):
            raise InvalidDescError(where, field, value, "expected a number")
        lods.append(float(value))
    if lods[0] > lods[1]:
        raise InvalidDescError(where, "max_lod", lods[1], f"below min_lod {lods[0]}")
    if lods[0] < 0:
        raise UnsupportedError(f"{where}: min_lod={lods[0]}: WebGPU clamps a sampler's LOD "
                               f"to 0 and above (lodMinClamp >= 0)")
    if not _BIAS_RANGE[0] <= lods[2] <= _BIAS_RANGE[1]:
        raise InvalidDescError(where, "mip_lod_bias", lods[2],
                               f"expected {_BIAS_RANGE[0]}..{_BIAS_RANGE[1]} "
                               f"(D3D12_MIP_LOD_BIAS_MIN..MAX)")
    # D3D12_DEFAULT_BORDER_COLOR_COMPONENT is 0.0 (d3d12.h); kept only where a mode is BORDER
    border = _border_color(entry.get("border_color", (0.0,) * 4), where, "BORDER" in address)
    if "BORDER" not in address:
        border = (0.0, 0.0, 0.0, 0.0)
    return SamplerDesc(filt, tuple(address), lods[0], lods[1],  # type: ignore[arg-type]
                       lods[2], func, border)


def _border_color(value, where: str, used: bool) -> tuple[float, float, float, float]:
    """BorderColor as 4 float32 values: D3D12_SAMPLER_DESC's 4 numbers (RGBA) or a
    D3D12_STATIC_BORDER_COLOR name; ``used``: an address mode is BORDER (then a _UINT colour,
    a non-finite component and a denormal one are refused)."""
    if isinstance(value, str):
        name = value.upper().removeprefix("D3D12_").removeprefix("STATIC_BORDER_COLOR_")
        if name not in BORDER_COLORS:
            raise InvalidDescError(where, "border_color", value,
                                   f"expected 4 numbers (RGBA) or one of "
                                   f"{', '.join(BORDER_COLORS)}")
        rgba = BORDER_COLORS[name]
        if rgba is None:
            if used:
                raise UnsupportedError(f"{where}: border_color={value}: an integer border "
                                       f"colour is an integer format's, and gpuia samples "
                                       f"FLOAT and UNORM formats only (rules 17.4, 17.12)")
            return (0.0, 0.0, 0.0, 0.0)  # unused: no axis is BORDER
        return rgba
    if not isinstance(value, (list, tuple)) or len(value) != 4 or \
            any(type(v) not in (int, float) for v in value):
        raise InvalidDescError(where, "border_color", value, "expected 4 numbers (RGBA) or a "
                                                             "D3D12_STATIC_BORDER_COLOR name")
    if any(math.isfinite(v) and abs(v) > _FLT_MAX for v in value):
        raise InvalidDescError(where, "border_color", value, "expected float32 values")
    rgba = tuple(struct.unpack("<4f", struct.pack("<4f", *value)))
    if used and any(not math.isfinite(v) or 0 < abs(v) < 2.0 ** -126 for v in rgba):
        raise UnsupportedError(f"{where}: border_color={list(value)}: gpuia takes finite "
                               f"border colours of no denormal float32 component (D3D11.3 "
                               f"spec 3.1.3.2: a state's denormal may or may not be flushed; "
                               f"rules 17.4)")
    return rgba


def check_sampler_kind(sampler, desc: SamplerDesc, where: str) -> None:
    """Refuse ``desc`` bound at the register of the shader's ``sampler``
    (``gpuia.hlsl.textures.ShaderSampler``) when one is a comparison sampler and the other not:
    D3D's sampler mode takes a COMPARISON_ filter exactly for SamplerComparisonState (D3D11.3
    spec 7.18.2; rules 17.10); refuse a MIRROR_ONCE ``desc`` when ``sampler.offset`` (a
    SampleLevel with a texel offset uses it: rules 17.11) but for one with a BORDER axis
    (whose taps gpuia addresses itself, exactly), a linear min or mag filter when
    ``sampler.cube`` (a cube's SampleLevel uses it: rules 17.9)."""
    if sampler.comparison != (desc.comparison is not None):
        kind = "SamplerComparisonState" if sampler.comparison else "SamplerState"
        need = "a COMPARISON_ filter" if sampler.comparison else "a filter other than COMPARISON_"
        raise InvalidDescError(where, "Filter", desc.filter, f"the vertex shader samples with "
                                                             f"{sampler.name} ({kind}): bind "
                                                             f"{need} there (rules 17.10)")
    if getattr(sampler, "cube", False) and "linear" in desc.filter[:2]:
        raise UnsupportedError(f"{where}: Filter=({', '.join(desc.filter)}): the vertex shader "
                               f"samples a cube with {sampler.name}, and gpuia compares point "
                               f"sampling of cubes only: D3D's linear taps spill over a face's "
                               f"edges and corners into its neighbours (7.18.12), which the "
                               f"CPU reference does not emulate (rules 17.9)")
    if getattr(sampler, "cube", False) and "BORDER" in desc.address:
        raise UnsupportedError(f"{where}: AddressU/V/W=BORDER: the vertex shader samples a cube "
                               f"with {sampler.name}, and a cube's taps stay on its faces (a "
                               f"face's edge leads to its neighbour, 7.18.7), where gpuia's "
                               f"BORDER emulation has no outside to take the colour for "
                               f"(rules 17.9)")
    if getattr(sampler, "offset", False) and desc.comparison is None and \
            "MIRROR_ONCE" in desc.address and "BORDER" not in desc.address:
        raise UnsupportedError(f"{where}: AddressU/V/W=MIRROR_ONCE: the vertex shader samples "
                               f"with {sampler.name} at a texel offset, and gpuia's MIRROR_ONCE "
                               f"(WebGPU's mirror-repeat on a coordinate clamped to [-1, 1]) "
                               f"is not exact past the texture's edge once the offset moves "
                               f"the taps (rules 17.11)")


def check_compare_format(texture, format: str, where: str) -> None:
    """Refuse a texture of ``format`` at the register of the shader's ``texture``
    (``gpuia.hlsl.textures.ShaderTexture``) that it samples with a comparison sampler when
    D3D's Format List does not give the format sample_c (its results are undefined there)."""
    if texture.compared and TEXTURE_FORMATS[format].compare_bits is None:
        takes = ", ".join(f for f, r in TEXTURE_FORMATS.items() if r.compare_bits is not None)
        raise InvalidDescError(where, "Format", format,
                               f"the vertex shader samples {texture.name} with a comparison "
                               f"sampler: D3D's Format List gives sample_c to {takes} of "
                               f"gpuia's formats (and depth formats; rules 17.10)")


def check_view_format(texture, format: str, where: str) -> None:
    """Refuse a texture of ``format`` at the register of the shader's ``texture``
    (``gpuia.hlsl.textures.ShaderTexture``) when the format's return type is not the one the
    shader declares (``Texture2D<uint4>`` reads a _UINT format, ``<int...>`` a _SINT one,
    ``<float...>`` a FLOAT, UNORM or SNORM one): D3D validates the bound view's format against
    the shader's resource declaration (dcl_resource, D3D11.3 spec 22.3.12; D3D12's debug
    layer: COMMAND_LIST_DRAW_RESOURCE_RETURN_TYPE_MISMATCH), and what it reads otherwise is
    undefined (rules 17.12); then :func:`check_compare_format`."""
    have = TEXTURE_FORMATS[format].return_type
    want = getattr(texture, "return_type", "float")
    if have != want:
        at = f"t{texture.register}" + (f", space{texture.space}" if texture.space else "")
        takes = {"float": "a FLOAT, UNORM or SNORM format", "uint": "a _UINT format",
                 "sint": "a _SINT format"}
        raise InvalidDescError(where, "Format", format,
                               f"the vertex shader declares {texture.name} (register {at}) "
                               f"{texture.hlsl_type} of {want} components: bind {takes[want]} "
                               f"there, {format} reads as {have} (a view's format must match "
                               f"the shader's return type: dcl_resource, D3D11.3 spec "
                               f"22.3.12; rules 17.12)")
    check_compare_format(texture, format, where)


def check_view_shape(texture, width: int, height: int, array_size: int, where: str) -> None:
    """Refuse a texture of ``width`` x ``height`` and ``array_size`` slices at the register of
    the shader's ``texture`` (``gpuia.hlsl.textures.ShaderTexture``) whose whole-resource view
    D3D12 cannot make: a Texture1D, Texture2D or Texture3D reads one slice; a TextureCube
    square faces, 6 slices (a TEXTURECUBE view's six faces), a TextureCubeArray a multiple of
    6 (D3D11.3 spec 5.3.8: "6 faces, each of which is like a square Texture2D"; rules 17.9)."""
    if getattr(texture, "cube", False):
        faces = array_size == CUBE_FACES if not texture.array else array_size % CUBE_FACES == 0
        if not faces or width != height:
            need = "6 slices" if not texture.array else "a multiple of 6 slices"
            raise InvalidDescError(where, "array_size" if not faces else "height",
                                   array_size if not faces else height,
                                   f"the vertex shader reads {texture.name} as a "
                                   f"{texture.hlsl_type}: bind a square texture2d of {need} "
                                   f"there (faces +X, -X, +Y, -Y, +Z, -Z; rules 17.9)")
    elif not texture.array and array_size > 1:
        raise InvalidDescError(where, "array_size", array_size,
                               f"the vertex shader reads {texture.name} as a "
                               f"{texture.hlsl_type} (one slice): bind a texture of one slice "
                               f"there")
