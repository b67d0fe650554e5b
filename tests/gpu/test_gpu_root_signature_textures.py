"""Textures, samplers and typed buffers of a vertex shader through a root signature
(docs/resources.md, "Root signatures"; rules 16.9, 17).

A texture or a typed ``Buffer<T>`` sits in a descriptor table's SRV range; a sampler register a
static sampler holds takes that static sampler's fields (D3D12: a static sampler needs no
descriptor, and none can override it). Expected values are worked out by hand: texel (i, j) of
a 4x4 heightmap holds 0.25 (i + 4 j) (exact in half precision); a point sample at u picks
texel index n = floor(4 u), which WRAP takes mod 4, MIRROR mod 8 reflected to 7 - m past 3 and
CLAMP to 0..3 (rules 17.4).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpuia import InputLayout, SODeclarationEntry, StreamOutputBufferView, StreamOutputDesc
from gpuia.d3d.textures import SamplerDesc
from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_so_gpu
from helpers import EXAMPLE_CASES

pytest.importorskip("gpuia.hlsl.library")

FLAGS = "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | ALLOW_STREAM_OUTPUT)"
TABLE_T0 = "DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_VERTEX)"
POINT_CLAMP = ("StaticSampler(s0, filter=FILTER_MIN_MAG_MIP_POINT, "
               "addressU=TEXTURE_ADDRESS_CLAMP, addressV=TEXTURE_ADDRESS_CLAMP, "
               "addressW=TEXTURE_ADDRESS_CLAMP, visibility=SHADER_VISIBILITY_VERTEX)")
HEIGHTMAP_RS = f"{FLAGS}, {TABLE_T0}, {POINT_CLAMP}"
# vertex (i, j) of the example's grid samples texel (i, j): world (i, 0.25 (i + 4 j), j)
HEIGHTMAP_WANT = np.array([[i, 0.25 * (i + 4 * j), j] for j in range(4) for i in range(4)],
                          np.float32).view(np.uint32)


def _heightmap_doc(root_signature=HEIGHTMAP_RS, samplers: bool = False) -> dict:
    doc = json.loads((EXAMPLE_CASES / "texture_heightmap.json").read_text())
    doc["root_signature"] = root_signature
    if not samplers:
        del doc["samplers"]
    return doc


def test_heightmap_through_a_table_and_a_static_sampler(gpu_device):
    case = load_case(_heightmap_doc())
    assert [(b.register_class, b.register, r.kind) for _, b, r in
            case.root_signature.covered] == [("t", 0, "table"), ("s", 0, "static sampler")]
    assert case.samplers == {0: SamplerDesc(("point",) * 3, ("CLAMP",) * 3)}
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], HEIGHTMAP_WANT)
    so = np.frombuffer(run_case_so_gpu(case, gpu_device).buffers[0], np.uint32)
    np.testing.assert_array_equal(so[:HEIGHTMAP_WANT.size].reshape(16, 3), HEIGHTMAP_WANT)
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()


def test_heightmap_refusals():
    # a static sampler holds s0: a sampler desc there too is refused, naming the register
    with pytest.raises(InvalidDescError, match="s0") as e:
        load_case(_heightmap_doc(samplers=True))
    assert "static sampler" in str(e.value)
    # the texture on a root SRV (rules 16.9: a root descriptor holds raw and structured only)
    with pytest.raises(InvalidDescError, match="root descriptor"):
        load_case(_heightmap_doc(f"{FLAGS}, SRV(t0), {POINT_CLAMP}"))
    # no range or static sampler holds s0
    with pytest.raises(InvalidDescError, match="s0"):
        load_case(_heightmap_doc(f"{FLAGS}, {TABLE_T0}"))
    # a static sampler of the pixel stage does not hold the vertex shader's s0
    with pytest.raises(InvalidDescError, match="visible to the vertex stage"):
        load_case(_heightmap_doc(f"{FLAGS}, {TABLE_T0}, "
                                 + POINT_CLAMP.replace("VERTEX", "PIXEL")))
    # the HLSL form's default filter is ANISOTROPIC, and gpuia samples no anisotropic filter
    with pytest.raises(UnsupportedError, match="static sampler 0") as e:
        load_case(_heightmap_doc(f"{FLAGS}, {TABLE_T0}, StaticSampler(s0)"))
    assert "anisotropic" in str(e.value)
    # BORDER is sampled; a static sampler's integer border colour is refused with it
    with pytest.raises(UnsupportedError, match="static sampler 0") as e:
        load_case(_heightmap_doc(f"{FLAGS}, {TABLE_T0}, " + POINT_CLAMP.replace(
            "addressU=TEXTURE_ADDRESS_CLAMP", "addressU=TEXTURE_ADDRESS_BORDER, "
                                              "borderColor=STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT")))
    assert "integer border colour" in str(e.value)


# u at 1.375 is texel index 5: MIRROR 2 (WRAP would give 1, CLAMP 3); v at 1.375, CLAMP 3
MIRROR_HLSL = r"""
Texture2D<float4> Heightmap : register(t0);
SamplerState S : register(s0);
static const float2 UV[3] = { float2(0.125, 0.125), float2(1.375, 0.125), float2(0.375, 1.375) };
struct O { float4 pos : SV_Position; float h : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o;
    o.pos = float4(0, 0, 0, 1);
    o.h = Heightmap.SampleLevel(S, UV[id], 0).r;
    return o;
}
"""
MIRROR_RS = (f"{FLAGS}, {TABLE_T0}, StaticSampler(s0, filter=FILTER_MIN_MAG_MIP_POINT, "
             f"addressU=TEXTURE_ADDRESS_MIRROR, addressV=TEXTURE_ADDRESS_CLAMP, "
             f"visibility=SHADER_VISIBILITY_VERTEX)")
# texel (0, 0), (2, 0), (1, 3)
MIRROR_WANT = np.array([0.0, 0.5, 3.25], np.float32).view(np.uint32)
_HEIGHTS = np.array([[0.25 * k, 0] for k in range(16)], np.float16)


def test_static_sampler_fields_on_the_cpu_and_stream_output(gpu_device):
    doc = {"gpuia_case": 1, "name": "static_mirror", "input_layout": [], "vertex_buffers": [],
           "primitive_topology": "POINTLIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}},
           "vertex_shader": {"hlsl": MIRROR_HLSL}, "root_signature": MIRROR_RS,
           "shader_resources": [{"register": 0, "kind": "texture2d", "format": "R16G16_FLOAT",
                                 "width": 4, "height": 4, "data": {
                                     "dtype": "uint16",
                                     "values": _HEIGHTS.view(np.uint16).ravel().tolist()}}],
           "stream_output": {"declaration": [{"SemanticName": "TEXCOORD", "ComponentCount": 1}],
                             "targets": [{"slot": 0, "size": 64}]}}
    case = load_case(doc)
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"].ravel(), MIRROR_WANT)
    so = np.frombuffer(run_case_so_gpu(case, gpu_device).buffers[0], np.uint32)
    np.testing.assert_array_equal(so[:3], MIRROR_WANT)


def test_the_context_api_binds_the_static_sampler(gpu_device):
    from gpuia.gpu import Context, PipelineState
    from gpuia.gpu.textures import create_texture
    from gpuia.hlsl import compile_shader

    vs = compile_shader(MIRROR_HLSL)
    desc = StreamOutputDesc((SODeclarationEntry(semantic_name="TEXCOORD", component_count=1),))
    pso = PipelineState(InputLayout([]), vs, stream_output=desc, root_signature=MIRROR_RS)
    # addressW left out: the HLSL form's default, WRAP
    assert dict(pso.static_samplers) == {0: SamplerDesc(("point",) * 3,
                                                        ("MIRROR", "CLAMP", "WRAP"))}
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(pso)
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.set_texture_shader_resource_view(0, create_texture(
        gpu_device, "R16G16_FLOAT", 4, 4, 1, _HEIGHTS.tobytes()))

    def draw() -> np.ndarray:
        target = gpu_device.create_buffer(size=12, bind=("stream_output",))
        ctx.so_set_targets([StreamOutputBufferView(target, 12, 0)])
        ctx.draw_instanced(3)
        ctx.flush()
        return np.frombuffer(target.read(), np.uint32)

    np.testing.assert_array_equal(draw(), MIRROR_WANT)  # no set_sampler: the static one
    # D3D12 gives no way to override a static sampler: one set there is refused at the draw
    ctx.set_sampler(0, {"filter": "MIN_MAG_MIP_POINT", "address_u": "WRAP"})
    with pytest.raises(InvalidDescError, match="s0") as e:
        draw()
    assert "static sampler" in str(e.value)
    ctx.set_sampler(0, None)
    np.testing.assert_array_equal(draw(), MIRROR_WANT)


def test_pipeline_state_refusals():
    from gpuia.gpu import PipelineState
    from gpuia.hlsl import compile_shader

    vs = compile_shader(MIRROR_HLSL)
    with pytest.raises(InvalidDescError, match="s0"):
        PipelineState(InputLayout([]), vs, root_signature=f"{FLAGS}, {TABLE_T0}")
    with pytest.raises(InvalidDescError, match="root descriptor"):
        PipelineState(InputLayout([]), vs, root_signature=MIRROR_RS.replace(TABLE_T0, "SRV(t0)"))
    with pytest.raises(UnsupportedError, match="static sampler 0"):
        PipelineState(InputLayout([]), vs, root_signature=f"{FLAGS}, {TABLE_T0}, "
                                                          f"StaticSampler(s0)")


TYPED_HLSL = r"""
Buffer<float4> T : register(t2);
struct O { float4 pos : SV_Position; float4 t : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o; o.pos = float4(0, 0, 0, 1); o.t = T[id]; return o;
}
"""


def _typed_doc(root_signature: str) -> dict:
    return {"gpuia_case": 1, "name": "typed_table", "input_layout": [], "vertex_buffers": [],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}},
            "vertex_shader": {"hlsl": TYPED_HLSL}, "root_signature": root_signature,
            "shader_resources": [{"register": 2, "kind": "typed", "format": "R8G8_UNORM",
                                  "data": {"dtype": "uint8", "values": [0, 255, 51, 102]}}],
            "stream_output": {"declaration": [
                {"SemanticName": "TEXCOORD", "ComponentCount": 4}],
                "targets": [{"slot": 0, "size": 64}]}}


def test_typed_buffer_through_a_descriptor_table(gpu_device):
    # R8G8_UNORM (0, 255), (51, 102), then past the view: c / 255 (rules 2.2), missing B 0 and
    # A 1 (2.11); past NumElements 0 in R and G and the defaults in B and A
    want = np.array([[0, 1, 0, 1], [np.float32(51 / 255), np.float32(102 / 255), 0, 1],
                     [0, 0, 0, 1]], np.float32).view(np.uint32)
    case = load_case(_typed_doc(f"{FLAGS}, DescriptorTable(SRV(t0, numDescriptors=4), "
                                f"visibility=SHADER_VISIBILITY_VERTEX)"))
    assert [(b.kind, r.kind) for _, b, r in case.root_signature.covered] == [("typed", "table")]
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], want)
    so = np.frombuffer(run_case_so_gpu(case, gpu_device).buffers[0], np.uint32)
    np.testing.assert_array_equal(so[:12].reshape(3, 4), want)
    # a typed view has a format, which a root SRV (a buffer address) lacks (rules 16.9)
    with pytest.raises(InvalidDescError, match="root descriptor"):
        load_case(_typed_doc(f"{FLAGS}, SRV(t2)"))


def test_root_signature_heightmap_example(gpu_device):
    case = load_case(str(EXAMPLE_CASES / "root_signature_heightmap.json"))
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], HEIGHTMAP_WANT)
    result = cross_check(case, [gpu_device], ("native", "pulling"))
    assert result.ok, result.text()
