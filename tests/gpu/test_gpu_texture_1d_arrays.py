"""Texture1DArray in an HLSL vertex shader (docs/resources.md, rules 17.8): the CPU reference
against every GPU path (Stream Output, native and pulling captures).

Expected values are worked out by hand from the rules: texel x of level m of slice z holds
100 z + 10 m + x, so each output says which texel D3D picks. ``Load(int3(x, slice, mip))``
reads 0 outside the level, the slices or the levels (rules 17.1); ``GetDimensions(mip, w,
elements, levels)`` gives 0 for the sizes past the last level (rules 17.2); ``SampleLevel(s,
float2(u, slice), lod)`` takes texel ``floor(u * width)`` (rules 17.3) of the slice rounded to
nearest even and clamped to the slices (D3D11.3 spec 5.3.6.1, rules 17.3), texel offsets on u
only (rules 17.11), a comparison as rules 17.10.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.errors import InvalidDescError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_so_gpu
from texture_cases import refusal_vs, so_words, texture_case_doc

ARRAY_1D = r"""
Texture1DArray<float4> Rows : register(t0);
Texture1DArray<float> CmpRows : register(t1);
Texture1DArray<uint4> Ids : register(t2);
Texture1DArray<float4> LinRows : register(t3);  // one sampler a texture (OpenGL's rule)
SamplerState Clamp : register(s0);
SamplerState LinearWrap : register(s1);
SamplerComparisonState Less : register(s2);
static const int3 AT[7] = { int3(1, 0, 0), int3(3, 2, 0), int3(1, 1, 1), int3(0, 3, 0),
                            int3(-1, 1, 0), int3(0, 0, 2), int3(2, 1, 1) };
static const float3 UL[7] = { float3(1.5 / 4, 1.4, 0), float3(2.5 / 4, 1.5, 0),
                              float3(0.5 / 4, 2.5, 0), float3(3.5 / 4, 0.5, 0),
                              float3(1.5 / 4, -3, 0), float3(0.75, 7, 1),
                              float3(5.5 / 4, 1, 0) };
struct O { float4 pos : SV_Position; float4 texel : TEXCOORD0; uint4 dims : TEXCOORD1;
           float4 sampled : TEXCOORD2; float4 more : TEXCOORD3; uint4 ids : TEXCOORD4; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.texel = Rows.Load(AT[id]);
    uint w, e, n; Rows.GetDimensions(uint(AT[id].z), w, e, n);
    uint w0, e0; Rows.GetDimensions(w0, e0);
    float fw, fe, fn; Rows.GetDimensions(uint(AT[id].z), fw, fe, fn);
    o.dims = uint4(w, e, n, w0 * 10000 + e0 * 1000 + uint(fw) * 100 + uint(fe) * 10 + uint(fn));
    o.sampled = float4(Rows.SampleLevel(Clamp, UL[id].xy, UL[id].z).x,
                       Rows.SampleLevel(Clamp, float2(1.5 / 4, id), 0, -1).x,
                       Rows.Load(int3(1, id, 0), 1).x,
                       Rows[uint2(3, id)].x);
    o.more = float4(CmpRows.SampleCmpLevelZero(Less, float2(1.5 / 4, id * 0.5), 150),
                    LinRows.SampleLevel(LinearWrap, float2(0.5, id), 0).x, 0, 0);
    o.ids = Ids.Load(int3(AT[id].x, AT[id].y, 0));
    return o;
}
"""
# Three slices of a 4-texel row of 2 levels: texel x of level m of slice z = 100 z + 10 m + x,
# slice by slice, each slice's level 0 then level 1 (D3D12's subresource order).
VALUES = [100 * z + 10 * m + x for z in range(3) for m, w in ((0, 4), (1, 2)) for x in range(w)]
# Sampled as R16G16_FLOAT (r the value, exact in float16; g 1): filterable without WebGPU's
# float32-filterable feature, which llvmpipe's OpenGL lacks.
ROWS = {"register": 0, "kind": "texture1d", "format": "R16G16_FLOAT", "width": 4,
        "mip_levels": 2, "array_size": 3,
        "data": {"dtype": "uint16", "values": np.array([[v, 1] for v in VALUES], np.float16)
                 .view(np.uint16).reshape(-1).tolist()}}
CMP_ROWS = {**ROWS, "register": 1, "format": "R32_FLOAT",
            "data": {"dtype": "float32", "values": VALUES}}
LIN_ROWS = {**ROWS, "register": 3}
IDS = {**ROWS, "register": 2, "format": "R32_UINT", "data": {"dtype": "uint32",
                                                              "values": VALUES}}
SAMPLERS = [{"register": 0, "filter": "MIN_MAG_MIP_POINT", "address_u": "CLAMP",
             "address_v": "CLAMP"},
            {"register": 1, "filter": "MIN_MAG_MIP_LINEAR", "address_u": "WRAP"},
            {"register": 2, "filter": "COMPARISON_MIN_MAG_MIP_POINT", "comparison_func": "LESS"}]

# Load int3(x, slice, mip): (1, 0, 0) 1, (3, 2, 0) 203, (1, 1, 1) 111; slice 3 of 3, x = -1,
# level 2 of 2 and x = 2 of level 1 (2 wide) are outside: 0 in every component.
_LOADED = [1, 203, 111, None, None, None, None]
TEXEL = np.array([[v, 1, 0, 1] if v is not None else [0, 0, 0, 0] for v in _LOADED],
                 np.float32).view(np.uint32)
IDS_WANT = np.array([[v, 0, 0, 1] if v is not None else [0, 0, 0, 0]
                     for v in (1, 203, 101, None, None, 0, 102)], np.uint32)  # level 0 each
# GetDimensions(mip, w, elements, levels): level 0 (4, 3, 2), level 1 (2, 3, 2), level 2 past
# the last (0, 0, 2); level 0's (4, 3) packed as 43 * 1000, the float overload's as digits.
_SIZE = {0: (4, 3), 1: (2, 3), 2: (0, 0)}
DIMS = np.array([[*_SIZE[m], 2, 43000 + _SIZE[m][0] * 100 + _SIZE[m][1] * 10 + 2]
                 for m in (0, 0, 1, 0, 0, 2, 1)], np.uint32)
# Point, CLAMP: texel floor(4 u) of slice round-to-nearest-even(slice) clamped to 0..2:
#  (1, slice 1.4 -> 1) 101; (2, 1.5 -> 2) 202; (0, 2.5 -> 2) 200; (3, 0.5 -> 0) 3;
#  (1, -3 -> 0) 1; LOD 1: level 1 (2 wide) texel floor(1.5) = 1 of slice 7 -> 2: 211;
#  x = 5 clamped to 3 of slice 1: 103.
# Offset -1 on u of texel 1 of slice id (clamped to 2): texel 0: 100 * slice.
# Load int3(1, id, 0) offset 1: texel 2 of slice id, 0 past slice 2. [uint2(3, id)]: texel 3.
POINT = [101, 202, 200, 3, 1, 211, 103]
SLICE = [0, 1, 2, 2, 2, 2, 2]
SAMPLED = np.array([[POINT[i], 100 * SLICE[i], 100 * i + 2 if i < 3 else 0,
                     100 * i + 3 if i < 3 else 0] for i in range(7)], np.float32)
# SampleCmpLevelZero LESS at texel 1 of slice id / 2 rounded to nearest even and clamped:
# 0, 0 (0.5 -> 0), 1, 2 (1.5 -> 2), 2, 2 (2.5 -> 2), 2 (3 -> 2); 1 where 150 < 100 z + 1.
CMP_SLICE = [0, 0, 1, 2, 2, 2, 2]
COMPARED = np.array([1.0 if 150 < 100 * z + 1 else 0.0 for z in CMP_SLICE], np.float32)
# Linear WRAP at u = 0.5 of slice min(id, 2): taps 1 and 2 at weight 0.5: 100 z + 1.5.
LINEAR = np.array([100 * min(i, 2) + 1.5 for i in range(7)], np.float32)


def array_case():
    return load_case(texture_case_doc("texture1d_array", ARRAY_1D, 7,
                                      [ROWS, CMP_ROWS, IDS, LIN_ROWS],
                                      [(0, 4), (1, 4), (2, 4), (3, 2), (4, 4)], SAMPLERS))


def test_texture1d_array_reads_cpu_and_stream_output(gpu_device):
    from gpuia.harness.case_textures import WEIGHT_ERROR

    case = array_case()
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], TEXEL)
    np.testing.assert_array_equal(cpu["TEXCOORD1"], DIMS)
    np.testing.assert_array_equal(cpu["TEXCOORD2"], SAMPLED.view(np.uint32))
    np.testing.assert_array_equal(cpu["TEXCOORD3"][:, :2],
                                  np.column_stack([COMPARED, LINEAR]).view(np.uint32))
    np.testing.assert_array_equal(cpu["TEXCOORD4"], IDS_WANT)
    so = so_words(run_case_so_gpu(case, gpu_device), 7, 18)
    np.testing.assert_array_equal(so[:, :4], TEXEL)
    np.testing.assert_array_equal(so[:, 4:8], DIMS)
    np.testing.assert_array_equal(so[:, 8:12], SAMPLED.view(np.uint32))  # point: exact
    np.testing.assert_array_equal(so[:, 12], COMPARED.view(np.uint32))
    np.testing.assert_array_equal(so[:, 14:18], IDS_WANT)
    # linear (rules 17.6 on u): within 3 * 0.6 * 2^-8 * (211 - 0)
    off = np.abs(so[:, 13].view(np.float32).astype(np.float64) - LINEAR)
    assert (off <= 3 * WEIGHT_ERROR * 211).all(), so[:, 13].view(np.float32)


def test_texture1d_array_capture_paths_match_the_cpu(gpu_device):
    result = cross_check(array_case(), [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


@pytest.mark.parametrize("decl, use, says", [
    ("Texture1DArray<float4> T : register(t0);", "T.Sample(S, float2(0, 0))", "rules 17.8"),
    ("Texture1DArray<float4> T : register(t0), U : register(t1);", "T.Load(int3(0, 0, 0))",
     "statement of its own"),
    ("Texture1DArray<float4> T : register(t0);\n"
     "float4 f(Texture1DArray<float4> t) { return t.Load(int3(0, 0, 0)); }", "f(T)",
     "rules 17.8"),
    ("Texture1DArray<float4> T : register(t0);", "T.Load(int3(0, 0, 0), int(k))", "17.11"),
], ids=["sample", "two_in_one_statement", "passed", "offset_not_literal"])
def test_texture1d_array_uses_gpuia_does_not_rewrite_are_refused(decl, use, says):
    from gpuia.hlsl import compile_shader

    src = refusal_vs(decl, use).replace("O main(", "static const int k = 1;\nO main(")
    with pytest.raises(InvalidDescError, match=says):
        compile_shader(src)


def test_a_texture1d_array_binds_a_texture1d_of_slices():
    doc = texture_case_doc("t", ARRAY_1D, 7, [{**ROWS, "kind": "texture2d", "height": 1},
                                              CMP_ROWS, IDS, LIN_ROWS], [(0, 4)], SAMPLERS)
    with pytest.raises(InvalidDescError, match="bind a texture1d there"):
        load_case(doc)
