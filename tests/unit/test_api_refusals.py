"""The Python API refuses what it cannot do, with gpuia errors, before anything reaches wgpu: the
refusals and facts that need no device. A Buffer of something that is not a gpuia Device is
refused; a PipelineState knows the bytes each WGSL uniform it reads needs (sizes derived by hand
from the WGSL spec's alignment and size rules), so that a smaller root constant buffer view is
refused at the draw (tests/gpu/test_gpu_api_refusals.py draws them); a PipelineState's Stream
Output must be a StreamOutputDesc.
"""

from __future__ import annotations

import pytest

from gpuia import InputElementDesc, InputLayout
from gpuia.errors import InvalidDescError
from gpuia.gpu import Buffer, PipelineState

POS = InputLayout([InputElementDesc("POSITION", 0, "R32G32_FLOAT", 0, 0)])


def test_buffer_constructor_refuses_what_is_not_a_device():
    with pytest.raises(InvalidDescError, match="device.*gpuia Device"):
        Buffer("not a device", 16, ["vertex_buffer"])


def test_stream_output_must_be_a_desc():
    with pytest.raises(InvalidDescError, match="StreamOutputDesc"):
        PipelineState([{"SemanticName": "A", "Format": "R32_UINT"}],
                      stream_output={"so_declaration": []})


def _vs_reading(decl: str, var_type: str = "CB") -> str:
    return decl + f"""
@group(3) @binding(0) var<uniform> cb: {var_type};
struct VSIn {{ POSITION: vec2<f32>, }}
struct VSOut {{ SV_Position: vec4<f32>, }}
@vertex fn main(input: VSIn) -> VSOut {{
  var o: VSOut;
  let k = cb;
  o.SV_Position = vec4<f32>(input.POSITION, 0.0, 1.0);
  return o;
}}
"""


# (struct declaration, uniform type, bytes): the WGSL spec's SizeOf, derived by hand. A member
# starts at the next multiple of its alignment; a struct's size rounds its end up to its
# largest member alignment; vec3 aligns to 16 and is 12 bytes; matCxR is C columns of vecR,
# each padded to the vecR alignment; an array element's stride is its size rounded up to its
# alignment.
UNIFORM_SIZES = {
    # m: 4 columns x 16 = 64 at 0; tint 16 at 64 -> 80.
    "mat4x4 and vec4": ("struct CB { m: mat4x4<f32>, tint: vec4<f32>, }", "CB", 80),
    # a: 4 at 0; b (vec3, align 16): 12 at 16 -> 28, rounded to 16 -> 32.
    "f32 then vec3": ("struct CB { a: f32, b: vec3<f32>, }", "CB", 32),
    # b: 12 at 0; a: 4 at 12 -> 16.
    "vec3 then f32": ("struct CB { b: vec3<f32>, a: f32, }", "CB", 16),
    # m: 3 columns of vec3 padded to 16 = 48; a at 48 -> 52 -> 64.
    "mat3x3 then f32": ("struct CB { m: mat3x3<f32>, a: f32, }", "CB", 64),
    # 2 columns of vec3 (16 each) = 32.
    "mat2x3f shorthand": ("struct CB { m: mat2x3f, }", "CB", 32),
    # 5 x 16 = 80; b at 80 -> 84 -> 96.
    "array of vec4 then f32": ("struct CB { a: array<vec4<f32>, 5>, b: f32, }", "CB", 96),
    # In: 16; a at 0; s at 16 -> 32; b (vec2, align 8) at 32 -> 40; c (align 16) at 48 + 48.
    "nested struct and array of structs":
        ("struct In { x: vec4<f32>, } struct CB { a: f32, s: In, b: vec2f, c: array<In, 3>, }",
         "CB", 96),
    # @size(40): a takes 40; b at 40 -> 44 (align 4).
    "@size": ("struct CB { @size(40) a: f32, b: u32, }", "CB", 44),
    # b at 64 (@align(64)) -> 80, rounded to the struct's alignment 64 -> 128.
    "@align": ("struct CB { a: f32, @align(64) b: vec4<i32>, }", "CB", 128),
    # 3 x (2 x 16) = 96; b (vec2<i32>) at 96 -> 104 -> 112.
    "array of arrays": ("struct CB { a: array<array<vec4<u32>, 2>, 3>, b: vec2<i32> }", "CB", 112),
    # alias V = vec4: 2 x 16.
    "alias": ("alias V = vec4<f32>; struct CB { a: array<V, 2u>, }", "CB", 32),
    # comments are not members: a vec4 (16) then vec3<u32> (12) at 16 -> 28 -> 32.
    "comments": ("struct CB { /* x: f32, */ a: vec4<f32>, // y: f32\n b: vec3<u32>, }", "CB", 32),
    "a bare matrix": ("", "mat4x4<f32>", 64),
    "a bare vec4": ("", "vec4<u32>", 16),
    # An override-sized array cannot be sized from the text: 0, not checked (as before).
    "override-sized array": ("const N = 4u; struct CB { a: array<vec4<f32>, N>, }", "CB", 0),
}


@pytest.mark.parametrize("label", list(UNIFORM_SIZES))
def test_pipeline_state_knows_the_bytes_a_wgsl_uniform_needs(label):
    decl, var_type, size = UNIFORM_SIZES[label]
    pso = PipelineState(POS, _vs_reading(decl, var_type))
    assert pso.constant_buffer_reads == ((0, size),)


def test_pixel_shader_uniforms_count_too():
    ps = """
struct CB { m: mat4x4<f32>, tint: vec4<f32>, }
@group(3) @binding(2) var<uniform> cb: CB;
struct PSIn { SV_Position: vec4<f32>, }
struct PSOut { SV_Target0: vec4<f32>, }
@fragment fn ps(input: PSIn) -> PSOut { var o: PSOut; o.SV_Target0 = cb.tint; return o; }
"""
    pso = PipelineState(POS, _vs_reading("struct CB { a: vec4<f32>, }"), pixel_shader=ps,
                        rtv_formats=["R8G8B8A8_UNORM"])
    assert pso.constant_buffer_reads == ((0, 16), (2, 80))

