"""uint and int textures in an HLSL vertex shader (docs/resources.md, rules 17.12), the CPU
reference against every GPU path (Stream Output, native and pulling captures).

Expected values are worked out by hand from the texels each test writes: a _UINT channel reads
as its unsigned integer, a _SINT one sign-extended to 32 bits (0xFF of R8_SINT is -1), 32-bit
channels bit for bit, missing components (0, 0, 1) of the integer type (rules 2.11); a Load
outside the level, the slices or the levels reads 0 in every component (rules 17.1), a texel
offset is added before that check (rules 17.11). Refusals name the texture, its register and
rules 17.12.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_so_gpu
from texture_cases import so_words, texture_case_doc

LOAD = r"""
Texture2D<int2> Sig : register(t0);
Texture2D<uint4> Big : register(t1);
Texture1D<int4> Row : register(t2);
Texture2DArray<uint2> Arr : register(t3);
Texture3D<uint> Vol : register(t4);
// (x, y, slice or z, mip) per vertex
static const int4 AT[8] = { int4(0, 0, 0, 0), int4(1, 0, 1, 0), int4(3, 1, 0, 0),
                            int4(1, 0, 1, 1), int4(0, 0, 0, 1), int4(1, 0, 2, 2),
                            int4(-1, 1, 0, 0), int4(2, 1, 1, 0) };
struct O { float4 pos : SV_Position; int2 sig : TEXCOORD0; uint4 big : TEXCOORD1;
           int4 row : TEXCOORD2; uint4 misc : TEXCOORD3; int4 sub : TEXCOORD4;
           int4 index : TEXCOORD5; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    int4 a = AT[id];
    o.sig = Sig.Load(int3(a.xy, a.w));
    o.big = Big.Load(int3(a.x, 0, 0));
    o.row = Row.Load(int2(a.x, 0));
    uint w, h, n; Sig.GetDimensions(uint(a.w), w, h, n);
    o.misc = uint4(Arr.Load(int4(a.x, 0, a.z, 0)), Vol.Load(int4(a.x, 0, a.z, 0)),
                   w * 100 + h * 10 + n);
    o.sub = int4(Sig[uint2(a.xy)], Sig.Load(int3(a.xy, 0), int2(1, 1)));
    o.index = int4(Arr[uint3(a.x, 0, a.z)].y, Vol[uint3(a.x, 0, a.z)], Row[uint(a.x)].xw);
    return o;
}
"""
# R16G16_SINT 4x2 of 2 levels, texel by texel (row by row), level 1 (2x1) last
SIG_LEVEL0 = [(-32768, 32767), (-1, 0), (1, -2), (100, -100),
              (7, 8), (-7, -8), (32767, -32768), (0, -1)]
SIG_LEVEL1 = [(1000, -1000), (-2000, 2000)]
SIG = {"register": 0, "kind": "texture2d", "format": "R16G16_SINT", "width": 4, "height": 2,
       "mip_levels": 2,
       "data": {"dtype": "int16", "values": [c for t in SIG_LEVEL0 + SIG_LEVEL1 for c in t]}}
# R32G32B32A32_UINT 2x1: 32-bit channels read bit for bit
BIG_TEXELS = [(0xFFFFFFFF, 0x80000000, 0, 1), (0x7FFFFFFF, 2, 3, 0xDEADBEEF)]
BIG = {"register": 1, "kind": "texture2d", "format": "R32G32B32A32_UINT", "width": 2,
       "height": 1, "data": {"dtype": "uint32", "values": [c for t in BIG_TEXELS for c in t]}}
# R8_SINT, 4 wide, as bytes: 0xFF is -1, 0x80 -128, 0x7F 127
ROW = {"register": 2, "kind": "texture1d", "format": "R8_SINT", "width": 4,
       "data": {"dtype": "uint8", "values": [0xFF, 0x80, 0x7F, 0x01]}}
# R8G8_UINT 2x1 of 2 slices, slice 0 first
ARR = {"register": 3, "kind": "texture2d", "format": "R8G8_UINT", "width": 2, "height": 1,
       "array_size": 2, "data": {"dtype": "uint8", "values": [255, 0, 1, 2, 3, 4, 200, 128]}}
# R16_UINT 2x1x2, plane z = 0 first
VOL = {"register": 4, "kind": "texture3d", "format": "R16_UINT", "width": 2, "height": 1,
       "depth": 2, "data": {"dtype": "uint16", "values": [65535, 1, 2, 32768]}}

_I = np.int32
# Sig.Load(x, y, mip): rows 0-4 and 7 in range; mip 2 is no level (row 5), x = -1 outside (6)
SIG_WANT = np.array([(-32768, 32767), (-1, 0), (0, -1), (-2000, 2000), (1000, -1000), (0, 0),
                     (0, 0), (32767, -32768)], _I).view(np.uint32)
# Big.Load(x, 0, 0): x = 0, 1 in range; 3, -1 and 2 outside (width 2)
_B0, _B1, _Z4 = BIG_TEXELS[0], BIG_TEXELS[1], (0, 0, 0, 0)
BIG_WANT = np.array([_B0, _B1, _Z4, _B1, _B0, _B1, _Z4, _Z4], np.uint32)
# Row.Load(x, 0) as int4: (v, 0, 0, 1), v sign-extended; x = 3 -> 1, 2 -> 127; -1 outside
_ROW = {0: -1, 1: -128, 2: 127, 3: 1}
ROW_WANT = np.array([(_ROW[x], 0, 0, 1) if x in _ROW else (0, 0, 0, 0)
                     for x in (0, 1, 3, 1, 0, 1, -1, 2)], _I).view(np.uint32)
# (Arr.Load(x, 0, slice), Vol.Load(x, 0, z), Sig's width * 100 + height * 10 + levels at mip):
# Arr (0, s0) = (255, 0), (1, s1) = (200, 128); slice 2 and x outside 0..1 read 0. Vol (0, z0)
# = 65535, (1, z1) = 32768. Sig's mip 0 is 4x2, mip 1 2x1, mip 2 (no level) 0x0; 2 levels.
MISC_WANT = np.array([(255, 0, 65535, 422), (200, 128, 32768, 422), (0, 0, 0, 422),
                      (200, 128, 32768, 212), (255, 0, 65535, 212), (0, 0, 0, 2),
                      (0, 0, 0, 422), (0, 0, 0, 422)], np.uint32)
# (Sig[x, y] at mip 0, Sig.Load at (x + 1, y + 1) of mip 0): (-1, 1) as uint2 is outside;
# (4, 2), (0, 2) and (3, 2) are outside the 4x2 level
SUB_WANT = np.array([(-32768, 32767, -7, -8), (-1, 0, 32767, -32768), (0, -1, 0, 0),
                     (-1, 0, 32767, -32768), (-32768, 32767, -7, -8),
                     (-1, 0, 32767, -32768), (0, 0, 0, 0), (32767, -32768, 0, 0)],
                    _I).view(np.uint32)
# [] of the other shapes, level 0: (Arr[x, 0, slice].y, Vol[x, 0, z], Row[x].x, Row[x].w); x = -1
# as a uint is outside, as are slice 2 and x = 2 or 3 of Arr and Vol (2 wide)
INDEX_WANT = np.array([(0, 65535, -1, 1), (128, 32768, -128, 1), (0, 0, 1, 1),
                       (128, 32768, -128, 1), (0, 65535, -1, 1), (0, 0, -128, 1), (0, 0, 0, 0),
                       (0, 0, 127, 1)], _I).view(np.uint32)


def load_case_doc(resources=None):
    return texture_case_doc("texture_integers", LOAD, 8, resources or [SIG, BIG, ROW, ARR, VOL],
                            [(0, 2), (1, 4), (2, 4), (3, 4), (4, 4), (5, 4)])


def test_integer_textures_load_on_cpu_reference():
    case = load_case(load_case_doc())
    cpu = shader_outputs(case, run_reference(case))
    for key, want in (("TEXCOORD0", SIG_WANT), ("TEXCOORD1", BIG_WANT), ("TEXCOORD2", ROW_WANT),
                      ("TEXCOORD3", MISC_WANT), ("TEXCOORD4", SUB_WANT),
                      ("TEXCOORD5", INDEX_WANT)):
        np.testing.assert_array_equal(cpu[key], want, err_msg=key)


def test_integer_textures_load_on_gpu(gpu_device):
    case = load_case(load_case_doc())
    so = so_words(run_case_so_gpu(case, gpu_device), 8, 22)
    np.testing.assert_array_equal(so[:, :2], SIG_WANT)
    np.testing.assert_array_equal(so[:, 2:6], BIG_WANT)
    np.testing.assert_array_equal(so[:, 6:10], ROW_WANT)
    np.testing.assert_array_equal(so[:, 10:14], MISC_WANT)
    np.testing.assert_array_equal(so[:, 14:18], SUB_WANT)
    np.testing.assert_array_equal(so[:, 18:], INDEX_WANT)
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


FORMATS = r"""
Texture2D<uint4> T0 : register(t0);
Texture2D<uint4> T1 : register(t1);
Texture2D<uint4> T2 : register(t2);
Texture2D<uint4> T3 : register(t3);
Texture2D<uint4> T4 : register(t4);
Texture2D<uint4> T5 : register(t5);
Texture2D<uint4> T6 : register(t6);
Texture2D<uint4> T7 : register(t7);
Texture2D<uint4> T8 : register(t8);
Texture2D<uint4> T9 : register(t9);
struct O { float4 pos : SV_Position; uint4 texel : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    int3 at = int3(0, 0, 0);
    uint4 t[10] = { T0.Load(at), T1.Load(at), T2.Load(at), T3.Load(at), T4.Load(at),
                    T5.Load(at), T6.Load(at), T7.Load(at), T8.Load(at), T9.Load(at) };
    o.texel = t[id];
    return o;
}
"""
# One 1x1 texture per format, its texel's bytes (little-endian), and the uint4 the shader reads,
# worked out by hand: _UINT zero-extended, _SINT sign-extended (as bits), missing (0, 0, 1)
UINT_TEXELS = [
    ("R8_UINT", "fe", (254, 0, 0, 1)),
    ("R8G8_UINT", "ff01", (255, 1, 0, 1)),
    ("R8G8B8A8_UINT", "80007fff", (128, 0, 127, 255)),
    ("R16_UINT", "ffff", (65535, 0, 0, 1)),
    ("R16G16_UINT", "00800100", (32768, 1, 0, 1)),
    ("R16G16B16A16_UINT", "01000200feffff7f", (1, 2, 65534, 32767)),
    ("R32_UINT", "ffffffff", (0xFFFFFFFF, 0, 0, 1)),
    ("R32G32_UINT", "0000008078563412", (0x80000000, 0x12345678, 0, 1)),
    ("R32G32B32A32_UINT", "00000000ffffffff050000000df0feca",
     (0, 0xFFFFFFFF, 5, 0xCAFEF00D)),
    # 0xA00003FF: R bits 0-9 = 1023, G 10-19 = 0, B 20-29 = 512, A 30-31 = 2 (rules 2.7)
    ("R10G10B10A2_UINT", "ff0300a0", (1023, 0, 512, 2)),
]
SINT_TEXELS = [
    ("R8_SINT", "80", (-128, 0, 0, 1)),
    ("R8G8_SINT", "ff7f", (-1, 127, 0, 1)),
    ("R8G8B8A8_SINT", "01fe8100", (1, -2, -127, 0)),
    ("R16_SINT", "0080", (-32768, 0, 0, 1)),
    ("R16G16_SINT", "ffffff7f", (-1, 32767, 0, 1)),
    ("R16G16B16A16_SINT", "feff010001800000", (-2, 1, -32767, 0)),
    ("R32_SINT", "00000080", (-2147483648, 0, 0, 1)),
    ("R32G32_SINT", "ffffffffffffff7f", (-1, 2147483647, 0, 1)),
    ("R32G32B32A32_SINT", "01000000ffffffff00000080ffffff7f",
     (1, -1, -2147483648, 2147483647)),
]


def formats_case(texels, hlsl=FORMATS):
    resources = [{"register": k, "kind": "texture2d", "format": fmt, "width": 1, "height": 1,
                  "data": {"hex": data}} for k, (fmt, data, _) in enumerate(texels)]
    if len(texels) < 10:  # the shader's t9 reads a tenth texture: repeat the first
        resources.append({**resources[0], "register": 9})
    return load_case(texture_case_doc("texture_integer_formats", hlsl, len(texels), resources,
                                      [(0, 4)]))


@pytest.mark.parametrize("texels", [UINT_TEXELS, SINT_TEXELS], ids=["uint", "sint"])
def test_every_integer_format_reads_bit_exactly(gpu_device, texels):
    hlsl = FORMATS if texels is UINT_TEXELS else FORMATS.replace("uint4", "int4")
    case = formats_case(texels, hlsl)
    want = np.array([t for *_, t in texels], np.int64).astype(np.uint32)
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], want)
    np.testing.assert_array_equal(so_words(run_case_so_gpu(case, gpu_device), len(texels), 4),
                                  want)


SAMPLED = r"""
Texture2D<uint4> Ids : register(t3, space1);
SamplerState Point : register(s0);
struct O { float4 pos : SV_Position; uint4 v : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.v = Ids.SampleLevel(Point, float2(0.5, 0.5), 0);
    return o;
}
"""
FLOAT_LOAD = r"""
Texture2D<float4> Heights : register(t0);
struct O { float4 pos : SV_Position; float4 v : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.v = Heights.Load(int3(0, 0, 0));
    return o;
}
"""


def _one(fmt: str, hex_: str, register: int = 0) -> dict:
    return {"register": register, "kind": "texture2d", "format": fmt, "width": 1, "height": 1,
            "data": {"hex": hex_}}


def test_sampling_an_integer_texture_is_refused_naming_it():
    from gpuia.hlsl import compile_shader

    # D3D's Format List gives _UINT and _SINT formats ld only: no sample, sample_c (17.12)
    with pytest.raises(InvalidDescError, match=r"Ids \(register t3, space1\) is a uint or int "
                                               r"texture.*rules 17\.12"):
        compile_shader(SAMPLED)
    compared = SAMPLED.replace("SamplerState", "SamplerComparisonState").replace(
        "o.v = Ids.SampleLevel(Point, float2(0.5, 0.5), 0);",
        "o.v = uint4(Ids.SampleCmpLevelZero(Point, float2(0.5, 0.5), 0.5), 0, 0, 0);")
    with pytest.raises(InvalidDescError, match=r"SampleCmpLevelZero.*Ids \(register t3, "
                                               r"space1\).*rules 17\.12"):
        compile_shader(compared)


def test_a_view_format_of_the_other_return_type_is_refused():
    # D3D validates the view's format against the shader's declared return type (17.12)
    uint_shader = FORMATS
    with pytest.raises(InvalidDescError, match=r"T2 \(register t2\) Texture2D of uint "
                                               r"components.*_UINT format.*R32_FLOAT.*17\.12"):
        formats_case([UINT_TEXELS[0], UINT_TEXELS[1], ("R32_FLOAT", "0000803f", None),
                      *UINT_TEXELS[3:]], uint_shader)
    with pytest.raises(InvalidDescError, match=r"T0 \(register t0\) Texture2D of sint "
                                               r"components.*_SINT format.*R8_UINT reads as "
                                               r"uint.*17\.12"):
        formats_case(UINT_TEXELS, FORMATS.replace("uint4", "int4"))
    with pytest.raises(InvalidDescError, match=r"Heights \(register t0\) Texture2D of float "
                                               r"components.*FLOAT, UNORM or SNORM.*R8_UINT "
                                               r"reads as uint.*17\.12"):
        load_case(texture_case_doc("t", FLOAT_LOAD, 1, [_one("R8_UINT", "01")], [(0, 4)]))
    # a float shader reads a UNORM format as before
    load_case(texture_case_doc("t", FLOAT_LOAD, 1, [_one("R8_UNORM", "01")], [(0, 4)]))


def test_formats_webgpu_has_no_texture_of_are_refused():
    with pytest.raises(UnsupportedError, match="R32G32B32_UINT: WebGPU has no texture format "
                                               "of three 32-bit channels"):
        load_case(texture_case_doc("t", FORMATS, 1, [_one("R32G32B32_UINT", "00" * 12)],
                                   [(0, 4)]))
    with pytest.raises(InvalidDescError, match="gpuia binds textures of"):
        load_case(texture_case_doc("t", FORMATS, 1, [_one("R10G10B10A2_SINT", "00" * 4)],
                                   [(0, 4)]))


def test_the_context_api_binds_integer_textures_and_refuses_a_mismatch(gpu_device):
    from gpuia import InputLayout
    from gpuia.gpu import Context, PipelineState
    from gpuia.gpu.textures import create_texture
    from gpuia.hlsl import compile_shader

    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState(InputLayout([]), compile_shader(FLOAT_LOAD)))
    ctx.ia_set_primitive_topology("POINTLIST")
    ints = create_texture(gpu_device, "R32_SINT", 1, 1, 1, bytes.fromhex("ffffffff"))
    ctx.set_texture_shader_resource_view(0, ints)
    with pytest.raises(InvalidDescError, match=r"draw: texture t0.*Heights \(register t0\) "
                                               r"Texture2D of float.*R32_SINT reads as sint"):
        ctx.draw_instanced(1)
    ctx.set_pipeline_state(PipelineState(InputLayout([]), compile_shader(
        FLOAT_LOAD.replace("float4> Heights", "int4> Heights").replace("float4 v", "int4 v"))))
    ctx.draw_instanced(1)  # Texture2D<int4> reads R32_SINT
    ctx.flush()


def test_the_index_operator_of_a_float_texture_too(gpu_device):
    # tex[uint2(x, y)] is level 0's Load on the CPU reference too (a float texture's also):
    # R32_FLOAT texels 1.5 and -2 read (v, 0, 0, 1); x = 2 is outside the 2x1 texture: 0
    hlsl = FLOAT_LOAD.replace("Heights.Load(int3(0, 0, 0))", "Heights[uint2(id, 0)]")
    texture = {**_one("R32_FLOAT", "", 0), "width": 2,
               "data": {"dtype": "float32", "values": [1.5, -2]}}
    case = load_case(texture_case_doc("t", hlsl, 3, [texture], [(0, 4)]))
    want = np.array([(1.5, 0, 0, 1), (-2, 0, 0, 1), (0, 0, 0, 0)], np.float32).view(np.uint32)
    np.testing.assert_array_equal(shader_outputs(case, run_reference(case))["TEXCOORD0"], want)
    np.testing.assert_array_equal(so_words(run_case_so_gpu(case, gpu_device), 3, 4), want)
