"""D3D12_SAMPLER_DESC and texture facts of gpuia.d3d.textures (docs/resources.md, rules 17):
defaults, the mip chain's sizes and offsets worked out by hand, and each refusal's reason."""

from __future__ import annotations

import struct

import pytest

from gpuia.d3d.textures import (
    TEXTURE_FORMATS,
    binding_kind,
    check_dimensions,
    mip_offsets,
    mip_size,
    sampler_desc,
    slot_binding,
    texture_format,
    texture_layout,
    texture_slot,
)
from gpuia.errors import InvalidDescError, UnsupportedError


def test_defaults_and_words():
    d = sampler_desc({}, "s0")
    assert d.filter == ("point", "point", "point") and d.address == ("CLAMP",) * 3
    # 14 words: filters 0, 0, 0; CLAMP = 3 (D3D12_TEXTURE_ADDRESS_MODE_CLAMP) three times;
    # MinLOD 0.0, MaxLOD FLT_MAX (0x7F7FFFFF), MipLODBias 0.0, no comparison function 0,
    # BorderColor D3D12_DEFAULT_BORDER_COLOR_COMPONENT (0.0) four times
    assert struct.unpack("<14I", d.words()) == (0, 0, 0, 3, 3, 3, 0, 0x7F7FFFFF, 0, 0,
                                                0, 0, 0, 0)
    assert d.state_words() == (0, 0, 0, 0)
    once = sampler_desc({"address_v": "MIRROR_ONCE", "mip_lod_bias": -1.5}, "s3")
    # bit 1: MIRROR_ONCE on v; -1.5 is 0xBFC00000; MIRROR_ONCE's enum value is 5
    assert once.state_words() == (2, 0xBFC00000, 0, 0)
    assert struct.unpack("<14I", once.words())[3:6] == (3, 5, 3)
    w = sampler_desc({"filter": "D3D12_FILTER_MIN_MAG_MIP_POINT", "address_u": "WRAP",
                      "address_v": "D3D12_TEXTURE_ADDRESS_MODE_MIRROR", "max_lod": 2}, "s1")
    assert w.address == ("WRAP", "MIRROR", "CLAMP") and w.max_lod == 2.0
    lin = sampler_desc({"filter": "MIN_LINEAR_MAG_POINT_MIP_LINEAR"}, "s2")
    assert lin.filter == ("linear", "point", "linear")
    assert struct.unpack("<3I", lin.words()[:12]) == (1, 0, 1)


def test_mip_chain():
    # 5x3: level 1 is 2x1, level 2 1x1 (max(1, size >> level)); offsets 0, 15, 17; 18 texels
    assert [mip_size(5, k) for k in range(4)] == [5, 2, 1, 1]
    assert mip_offsets(5, 3, 3, 1) == (0, 15, 17, 18)
    assert mip_offsets(2, 2, 2, 2) == (0, 4, 5, 9, 10)  # slice-major: slice 1 after slice 0
    assert texture_format("DXGI_FORMAT_R8G8B8A8_UNORM", "t").webgpu == "rgba8unorm"
    # a 4x2x3 volume: level 0 24 texels, level 1 2x1x1, level 2 1x1x1: offsets 0, 24, 26; 27
    assert mip_offsets(4, 2, 3, 1, 3) == (0, 24, 26, 27)


def test_mirror_once_on_w_and_the_volume_slot():
    once = sampler_desc({"address_w": "MIRROR_ONCE"}, "s0")
    assert once.state_words()[0] == 4  # bit 2: MIRROR_ONCE on w (gpuia_sampler_uvw)
    # a Texture3D's slot is its binding past the bindings: its WebGPU view is 3d
    assert texture_slot(944, "texture2d") == 944 and texture_slot(912, "texture1d") == 912
    slot = texture_slot(944, "texture3d")
    assert slot_binding(slot) == 944 and binding_kind(slot) == "sampled_texture_3d"
    assert binding_kind(texture_slot(912, "texture3d")) == "texture_3d"


def test_integer_texture_slots_and_layouts():
    # an integer texture's slot: its binding plus 8192 (uint) or 16384 (sint), plus 4096 for a
    # 3d view; WebGPU's sample type uint or sint, the view the shape's (rules 17.12)
    assert texture_slot(912, "texture2d", "uint") == 912 + 8192
    assert texture_slot(960, "texture2d", "sint") == 960 + 16384
    assert texture_slot(913, "texture3d", "sint") == 913 + 4096 + 16384
    for binding, dimension, ret, kind, layout in (
            (912, "texture2d", "uint", "texture_uint", ("uint", "2d")),
            (912, "texture1d", "sint", "texture_sint", ("sint", "2d")),
            (961, "texture2d", "uint", "texture_array_uint", ("uint", "2d-array")),
            (914, "texture3d", "sint", "texture_3d_sint", ("sint", "3d")),
            (914, "texture3d", "float", "texture_3d", ("unfilterable-float", "3d")),
            (944, "texture2d", "float", "sampled_texture", ("float", "2d")),
            (976, "texture2d", "float", "sampled_texture_array", ("float", "2d-array"))):
        slot = texture_slot(binding, dimension, ret)
        assert (slot_binding(slot), binding_kind(slot), texture_layout(slot)) == \
            (binding, kind, layout), (binding, dimension, ret)
    assert texture_layout(928) is None  # a sampler's binding
    assert texture_layout(0) is None  # a root constant buffer's


def test_integer_formats():
    # DXGI _UINT / _SINT read as WebGPU's ...uint / ...sint textures of the same texels
    for name, webgpu, ret, size in (("R8_UINT", "r8uint", "uint", 1),
                                    ("R8G8B8A8_SINT", "rgba8sint", "sint", 4),
                                    ("R16G16_SINT", "rg16sint", "sint", 4),
                                    ("R32G32B32A32_UINT", "rgba32uint", "uint", 16),
                                    ("R10G10B10A2_UINT", "rgb10a2uint", "uint", 4),
                                    ("R16_UNORM", "r16unorm", "float", 2)):
        fmt = texture_format(name, "t")
        assert (fmt.webgpu, fmt.return_type, fmt.size) == (webgpu, ret, size)
        assert not fmt.filterable or ret == "float"
    with pytest.raises(UnsupportedError, match="three 32-bit channels"):
        texture_format("R32G32B32_SINT", "t")


@pytest.mark.parametrize("args, field, says", [
    ((16385, 1, 1, 1, "texture1d"), "Width", "1..16384"),
    ((4, 2, 1, 1, "texture1d"), "Height", "its Height is 1"),
    ((4, 1, 1, 2049, "texture1d"), "DepthOrArraySize", "1..2048"),
    ((4, 1, 4, 1, "texture1d"), "MipLevels", "1..3"),  # 4 wide: levels 4, 2, 1
    ((2049, 1, 1, 1, "texture3d", 1), "Width", "1..2048"),
    ((2, 2, 1, 1, "texture3d", 2049), "DepthOrArraySize", "1..2048"),
    ((2, 2, 1, 2, "texture3d", 2), "DepthOrArraySize", "no array slices"),
    ((2, 2, 5, 1, "texture3d", 8), "MipLevels", "1..4"),  # the depth 8 sets the chain
    ((2, 2, 1, 1, "texture2d", 2), "DepthOrArraySize", "no depth"),
])
def test_d3d12_resource_desc_limits(args, field, says):
    with pytest.raises(InvalidDescError, match=says) as e:
        check_dimensions(*args[:4], "CreateCommittedResource", *args[4:])
    assert e.value.field == field
    check_dimensions(2, 2, 4, 1, "ok", "texture3d", 8)  # 2x2x8: 8, 4, 2, 1 deep


@pytest.mark.parametrize("fields, error, words", [
    ({"filter": "COMPARISON_MIN_MAG_MIP_POINT"}, InvalidDescError,
     "needs a D3D12_COMPARISON_FUNC"),
    ({"filter": "COMPARISON_MIN_MAG_MIP_POINT", "comparison_func": "LESSER"}, InvalidDescError,
     "LESS_EQUAL"),
    ({"filter": "COMPARISON_ANISOTROPIC", "comparison_func": "LESS"}, UnsupportedError,
     "anisotropic"),
    ({"filter": "MINIMUM_MIN_MAG_MIP_POINT"}, UnsupportedError, "minimum"),
    ({"filter": "ANISOTROPIC"}, UnsupportedError, "anisotropic"),
    ({"filter": "BILINEAR"}, InvalidDescError, "MIN_MAG_MIP_POINT"),
    ({"address_u": "BORDER", "border_color": "OPAQUE_BLACK_UINT"}, UnsupportedError,
     "integer border colour"),
    ({"address_w": "BORDER", "border_color": [0, 0, float("inf"), 1]}, UnsupportedError,
     "finite border colours"),
    ({"address_v": "BORDER", "border_color": [1e-40, 0, 0, 1]}, UnsupportedError,
     "denormal"),
    ({"border_color": [0, 0, 1]}, InvalidDescError, "4 numbers"),
    ({"border_color": "GREY"}, InvalidDescError, "OPAQUE_WHITE"),
    ({"border_color": [1e39, 0, 0, 1]}, InvalidDescError, "float32"),
    ({"mip_lod_bias": 16}, InvalidDescError, "D3D12_MIP_LOD_BIAS_MIN..MAX"),
    ({"address_v": "REPEAT"}, InvalidDescError, "WRAP"),
    ({"min_lod": 2, "max_lod": 1}, InvalidDescError, "below min_lod"),
    ({"min_lod": -1}, UnsupportedError, "lodMinClamp"),
    ({"max_lod": "lots"}, InvalidDescError, "a number"),
    ({"filtr": "MIN_MAG_MIP_POINT"}, InvalidDescError, "not a D3D12_SAMPLER_DESC field"),
])
def test_refusals_name_the_reason(fields, error, words):
    with pytest.raises(error) as e:
        sampler_desc(fields, "samplers[0]")
    assert words in str(e.value) and "samplers[0]" in str(e.value)


def test_unbound_formats_are_refused():
    with pytest.raises(InvalidDescError, match="R8G8B8A8_UNORM"):
        texture_format("BC1_UNORM", "shader_resources[0].format")


def test_layout_check_skips_a_shader_reading_textures(tmp_path):
    """``gpuia layout --shader`` generates no case for a shader that samples a texture (it has
    no texels), naming the texture's and the sampler's registers."""
    from gpuia.cli.layout_shaders import LayoutShader

    path = tmp_path / "terrain.hlsl"
    path.write_text("Texture2D H : register(t3); SamplerState S : register(s1);\n"
                    "float4 main(float2 uv : TEXCOORD) : SV_Position\n"
                    "{ return float4(uv, H.SampleLevel(S, uv, 0).r, 1); }\n")
    shader = LayoutShader(str(path), [], "column_major")
    assert shader.not_drawn is not None and "(t3, s1)" in shader.not_drawn


def test_a_comparison_sampler_desc_and_its_words():
    # D3D12_FILTER_COMPARISON_MIN_POINT_MAG_LINEAR_MIP_POINT with GREATER (5), MipLODBias 1.5
    # clamped to MaxLOD 1: SampleCmpLevelZero's LOD is 1 (sample_c_lz honours both)
    d = sampler_desc({"filter": "D3D12_FILTER_COMPARISON_MIN_POINT_MAG_LINEAR_MIP_POINT",
                      "comparison_func": "D3D12_COMPARISON_FUNC_GREATER", "mip_lod_bias": 1.5,
                      "max_lod": 1, "address_u": "WRAP", "address_v": "MIRROR"}, "s")
    assert d.filter == ("point", "linear", "point") and d.comparison == "GREATER"
    assert struct.unpack("<6I3fI4f", d.words())[9] == 5
    assert d.comparison_lod() == 1.0
    # word 2: GREATER 5 + 32 (a linear mag filter); word 3: WRAP 1 + 16 * MIRROR 2
    assert d.state_words() == (0, 0x3F800000, 5 + 32, 1 + 16 * 2)
    # a basic filter ignores ComparisonFunc, as D3D12 does (word 9: 0)
    plain = sampler_desc({"comparison_func": "NEVER"}, "s")
    assert plain.comparison is None and struct.unpack("<6I3fI4f", plain.words())[9] == 0


def test_a_border_sampler_desc_and_its_words():
    # BorderColor's default is D3D12_DEFAULT_BORDER_COLOR_COMPONENT (0.0, d3d12.h); a static
    # name reads as its RGBA; without a BORDER axis the colour is unused and kept at the
    # default (the _UINT forms too), so equal samplers compare equal
    assert sampler_desc({"address_v": "BORDER"}, "s").border == (0.0, 0.0, 0.0, 0.0)
    assert sampler_desc({"address_u": "BORDER",
                         "border_color": "D3D12_STATIC_BORDER_COLOR_OPAQUE_BLACK"},
                        "s").border == (0.0, 0.0, 0.0, 1.0)
    assert sampler_desc({"border_color": "opaque_white_uint"}, "s").border == (0.0,) * 4
    assert sampler_desc({"border_color": [1, 1, 1, 1]}, "s") == sampler_desc({}, "s")
    d = sampler_desc({"filter": "MIN_MAG_MIP_LINEAR", "address_u": "BORDER",
                      "address_v": "WRAP", "min_lod": 0.5, "max_lod": 2,
                      "border_color": [0.25, -1, 2, 0]}, "s")
    # words 10..13: BorderColor as float32
    assert struct.unpack("<6I3fI4f", d.words())[10:] == (0.25, -1.0, 2.0, 0.0)
    # row 1: the colour's bits; row 2: MinLOD, MaxLOD, flags: 1 (a BORDER axis) + 2 + 4 + 8
    # (linear min, mag, mip) + BORDER 4 << 4 + WRAP 1 << 8 + CLAMP 3 << 12
    assert d.border_words() == ((0x3E800000, 0xBF800000, 0x40000000, 0),
                                (0x3F000000, 0x40000000, 1 + 14 + (4 << 4) + (1 << 8) + (3 << 12),
                                 0))
    assert not sampler_desc({}, "s").border_words()[1][2] & 1
    # a format keeps the border colour's components it has, clamped to its range (rules 17.4)
    assert TEXTURE_FORMATS["R8_UNORM"].border_range == (1, 0.0, 1.0)
    assert TEXTURE_FORMATS["R16G16_FLOAT"].border_range == (2, -65504.0, 65504.0)
    assert TEXTURE_FORMATS["R32G32B32A32_FLOAT"].border_range[0] == 4


def test_a_border_sampler_of_a_cube_is_refused_naming_the_rule():
    """A cube's point taps stay on its faces (D3D11.3 spec 7.18.7: a face's edge leads to its
    neighbour), so a BORDER axis has no outside there: refused, naming the sampler and rules
    17.9; the same sampler of a 2D texture is taken."""
    from types import SimpleNamespace

    from gpuia.d3d.textures import check_sampler_kind

    desc = sampler_desc({"address_u": "BORDER"}, "samplers[0]")
    cube = SimpleNamespace(name="sky_sampler", comparison=False, cube=True, offset=False)
    with pytest.raises(UnsupportedError, match=r"samplers\[0\]: AddressU/V/W=BORDER: .*"
                                               r"sky_sampler.*rules 17\.9"):
        check_sampler_kind(cube, desc, "samplers[0]")
    check_sampler_kind(SimpleNamespace(name="s", comparison=False, cube=False, offset=False),
                       desc, "samplers[0]")
