"""Buffer shader resource views in an HLSL vertex shader (docs/resources.md), CPU against GPU.

Two cases, each drawn with an empty input layout (vertices pulled by SV_VertexID): skinning
from a ``StructuredBuffer<float4x4>`` palette with positions pulled from a ``ByteAddressBuffer``,
and particles from a ``StructuredBuffer<Particle>``. Expected values are worked out here with
numpy from the shaders' documented math and D3D12's rule that a read past a view returns 0
(a raw ``Load4`` straddling the end keeps the words inside); the CPU reference, the Stream
Output pass and the capture paths (native, pulling) must all give them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpuia.errors import UnsupportedError
from gpuia.harness.case import load_case
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_gpu, run_case_so_gpu
from helpers import EXAMPLE_CASES

SKINNING = r"""
StructuredBuffer<float4x4> Palette : register(t0);
ByteAddressBuffer Verts : register(t1);
struct O { float4 pos : SV_Position; float4 skinned : TEXCOORD0; uint4 raw : TEXCOORD1;
           uint2 dims : TEXCOORD2; };
O main(uint id : SV_VertexID) {
    O o;
    uint n, stride; Palette.GetDimensions(n, stride);
    uint bytes; Verts.GetDimensions(bytes);
    float3 v = asfloat(Verts.Load3(id * 12));
    o.pos = float4(v, 1);
    o.skinned = mul(Palette[id], float4(v, 1));
    o.raw = Verts.Load4(id * 12 + 4);
    o.dims = uint2(n, bytes);
    return o;
}
"""

PARTICLES = r"""
struct Particle { float4 position; float3 velocity; float age; };
StructuredBuffer<Particle> Particles : register(t3);
struct O { float4 pos : SV_Position; float4 moved : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    Particle p = Particles[id];
    O o;
    o.pos = p.position;
    o.moved = float4(p.position.xyz + p.velocity * p.age, p.age);
    return o;
}
"""


def _so(semantics) -> dict:
    decl = [{"SemanticName": "TEXCOORD", "SemanticIndex": i, "ComponentCount": c}
            for i, c in semantics]
    return {"declaration": decl, "targets": [{"slot": 0, "size": 4096}]}


def _doc(name, hlsl, count, resources, so) -> dict:
    return {"gpuia_case": 1, "name": name, "input_layout": [], "vertex_buffers": [],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": count}},
            "vertex_shader": {"hlsl": hlsl}, "shader_resources": resources,
            "stream_output": so}


PALETTE = np.stack([np.diag([k + 1.0, k + 2.0, k + 3.0, 1.0]).astype(np.float32)
                    for k in range(2)])
PALETTE[1, 0, 3] = 5.0  # a translation in x for bone 1 (column-major: row 0, column 3)
VERTS = np.arange(1, 10, dtype=np.float32)  # 3 positions of 3 floats: 36 bytes


def skinning_expected(count: int) -> np.ndarray:
    """Per vertex: skinned (4 floats), raw (4 words), dims (2 words), as uint32 bits."""
    out = np.zeros((count, 10), np.uint32)
    words = VERTS.view(np.uint32)
    for i in range(count):
        v = np.zeros(3, np.float32)
        for k in range(3):  # Load3 at byte 12 i: words 3i..3i+2, 0 past the 9 words
            w = 3 * i + k
            v[k] = VERTS[w] if w < 9 else 0.0
        # mul(M, v) with M column-major in memory: M[r][c] = data[c * 4 + r]
        m = PALETTE[i].T if i < 2 else np.zeros((4, 4), np.float32)
        skinned = (m.astype(np.float64) @ np.append(v, 1.0)).astype(np.float32)
        out[i, :4] = skinned.view(np.uint32)
        for k in range(4):  # Load4 at byte 12 i + 4: words 3i+1..3i+4
            w = 3 * i + 1 + k
            out[i, 4 + k] = words[w] if w < 9 else 0
        out[i, 8:] = (2, 36)
    return out


def skinning_case():
    resources = [
        {"register": 0, "kind": "structured", "structure_byte_stride": 64,
         "data": {"dtype": "float32", "values": PALETTE.reshape(-1).tolist()}},
        {"register": 1, "kind": "raw", "data": {"dtype": "float32", "values": VERTS.tolist()}}]
    return load_case(_doc("skinning", SKINNING, 4, resources, _so([(0, 4), (1, 4), (2, 2)])))


PARTS = np.array([[0, 0, 0, 1, 1, 2, 3, 0.5],
                  [1, 2, 3, 1, -1, 0, 1, 2.0],
                  [4, 4, 4, 1, 0, 0, 0, 9.0]], np.float32)


def particles_case(first: int, count: int):
    resources = [{"register": 3, "kind": "structured", "first_element": first,
                  "num_elements": count,
                  "data": {"dtype": "float32", "values": PARTS.reshape(-1).tolist()}}]
    return load_case(_doc("particles", PARTICLES, 3, resources, _so([(0, 4)])))


def particles_expected(first: int, count: int) -> np.ndarray:
    out = np.zeros((3, 4), np.float32)
    for i in range(3):
        if i < count:  # view element i is the data's element first + i
            p = PARTS[first + i]
            out[i, :3] = p[:3] + p[4:7] * p[7]
            out[i, 3] = p[7]
    return out.view(np.uint32)


def _so_words(result, count: int, width: int) -> np.ndarray:
    return np.frombuffer(result.buffers[0], np.uint32)[:count * width].reshape(count, width)


def test_skinning_cpu(gpu_device):
    case = skinning_case()
    cpu = shader_outputs(case, run_reference(case))
    got = np.concatenate([cpu["TEXCOORD0"], cpu["TEXCOORD1"], cpu["TEXCOORD2"]], axis=1)
    np.testing.assert_array_equal(got, skinning_expected(4))


def test_skinning_stream_output(gpu_device):
    so = run_case_so_gpu(skinning_case(), gpu_device)
    np.testing.assert_array_equal(_so_words(so, 4, 10), skinning_expected(4))


@pytest.mark.parametrize("view", [(0, 3), (1, 2), (0, 0)], ids=["whole", "offset", "empty"])
def test_particles_cpu_and_stream_output(gpu_device, view):
    case = particles_case(*view)
    want = particles_expected(*view)
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"], want)
    np.testing.assert_array_equal(_so_words(run_case_so_gpu(case, gpu_device), 3, 4), want)


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_capture_paths_draw_with_resources(gpu_device, path):
    case = skinning_case()
    result = run_case_gpu(case, gpu_device, path=path)
    assert not result.missing.any()
    assert result.ia.vertex_id.tolist() == [0, 1, 2, 3]


# -- the example cases (examples/cases/srv_*.json), each value worked out from its description --
def _example(name: str):
    return load_case(str(EXAMPLE_CASES / f"{name}.json"))


def _f32(rows) -> np.ndarray:
    return np.array(rows, np.float32).view(np.uint32)


EXAMPLES = {
    # v = (1, 2, 3, 1) through bone 0 (identity), 1 (translate (1, 2, 3)), 2 (scale 2), and
    # bone 7 past the 3-bone view (a zero matrix); then GetDimensions' count, 3.
    "srv_skinning_palette": np.concatenate([
        _f32([[1, 2, 3, 1], [2, 4, 6, 1], [2, 4, 6, 1], [0, 0, 0, 0]]),
        np.full((4, 1), 3, np.uint32)], axis=1),
    # position, RGBA8 colour / 255 (0xFF0000FF is R 255, A 255), GetDimensions' 40 bytes; the
    # view ends at word 10: vertex 2 keeps x, y and reads z = 0 and colour 0; vertex 3 zeros.
    "srv_vertex_pulling": np.concatenate([
        _f32([[0, 0.5, 0, 1], [0.5, -0.5, 0, 1], [-0.5, -0.5, 0, 1], [0, 0, 0, 1]]),
        _f32([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]]),
        np.full((4, 1), 40, np.uint32)], axis=1),
    # element 1 + i: (0,0,0) + (1,2,3) * 0.5, age 0.5; (1,2,3) + (-1,0,1) * 2, age 2; then past
    # the 2-element view: a zero particle.
    "srv_particles": _f32([[0.5, 1, 1.5, 0.5], [-1, 2, 5, 2], [0, 0, 0, 0]]),
}


STREAMED = {"srv_skinning_palette": ("TEXCOORD0", "TEXCOORD1"),
            "srv_vertex_pulling": ("SV_POSITION0", "COLOR0", "TEXCOORD0"),
            "srv_particles": ("TEXCOORD0",)}  # the outputs each example streams, in order


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_cpu_and_stream_output(gpu_device, name):
    case = _example(name)
    want = EXAMPLES[name]
    cpu = shader_outputs(case, run_reference(case))
    got = np.concatenate([cpu[k] for k in STREAMED[name]], axis=1)
    np.testing.assert_array_equal(got, want)
    so = run_case_so_gpu(case, gpu_device)
    np.testing.assert_array_equal(_so_words(so, *want.shape), want)


@pytest.mark.parametrize("path", ["native", "pulling"])
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_capture_paths(gpu_device, name, path):
    case = _example(name)
    result = run_case_gpu(case, gpu_device, path=path)
    assert not result.missing.any() and result.path == path


GS = r"""
struct V { float4 pos : SV_Position; float4 skinned : TEXCOORD0; uint bones : TEXCOORD1; };
struct G { float4 pos : SV_Position; float4 twice : TEXCOORD0; };
[maxvertexcount(1)]
void main(point V v[1], inout PointStream<G> s) {
    G o; o.pos = v[0].pos; o.twice = v[0].skinned * 2; s.Append(o);
}
"""


def test_vertex_shader_resources_reach_a_geometry_shader(gpu_device):
    """The vertex pass before a geometry shader binds the SRVs too: the GS doubles what the
    skinning example's VS read from its palette."""
    doc = json.loads((EXAMPLE_CASES / "srv_skinning_palette.json").read_text())
    doc["geometry_shader"] = {"hlsl": GS}
    doc["stream_output"] = {"declaration": [{"SemanticName": "TEXCOORD", "ComponentCount": 4}],
                           "targets": [{"slot": 0, "size": 64}]}
    so = run_case_so_gpu(load_case(doc), gpu_device)
    want = _f32([[2, 4, 6, 2], [4, 8, 12, 2], [4, 8, 12, 2], [0, 0, 0, 0]])
    np.testing.assert_array_equal(_so_words(so, 4, 4), want)


SPACES = r"""
StructuredBuffer<uint> A : register(t0, space1);
ByteAddressBuffer B : register(t0);
struct O { float4 pos : SV_Position; uint2 ab : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o; o.pos = float4(0, 0, 0, 1); o.ab = uint2(A[id], B.Load(id * 4)); return o;
}
"""


def test_register_spaces_are_bound_apart(gpu_device):
    """t0 of space1 and t0 of space0 are two views: A holds 7, 8 and B 1, 2, 3, so vertex i
    streams (A[i], B word i), 0 past either view."""
    resources = [{"register": 0, "space": 1, "kind": "structured",
                  "data": {"dtype": "uint32", "values": [7, 8]}},
                 {"register": 0, "kind": "raw", "data": {"dtype": "uint32", "values": [1, 2, 3]}}]
    case = load_case(_doc("spaces", SPACES, 4, resources, _so([(0, 2)])))
    want = np.array([[7, 1], [8, 2], [0, 3], [0, 0]], np.uint32)
    np.testing.assert_array_equal(shader_outputs(case, run_reference(case))["TEXCOORD0"], want)
    np.testing.assert_array_equal(_so_words(run_case_so_gpu(case, gpu_device), 4, 2), want)


LOADS = r"""
struct E { uint a; uint b; };
StructuredBuffer<E> S : register(t0);
ByteAddressBuffer R : register(t1);
struct O { float4 pos : SV_Position; uint2 s : TEXCOORD0; uint2 r2 : TEXCOORD1;
           uint3 r3 : TEXCOORD2; uint n : TEXCOORD3; };
O main(uint id : SV_VertexID) {
    O o; o.pos = float4(0, 0, 0, 1);
    E e = S.Load(id);
    o.s = uint2(e.a, e.b);
    o.r2 = R.Load2(id * 8);
    o.r3 = R.Load3(id * 8 + 4);
    uint count, stride; S.GetDimensions(count, stride);
    o.n = count * 100 + stride;
    return o;
}
"""


def test_load_methods_and_dimensions(gpu_device):
    """StructuredBuffer.Load and GetDimensions (count 2, stride 8: 208), ByteAddressBuffer's
    Load2 at byte 8 i and Load3 at byte 8 i + 4 over the words 1..5, 0 past them."""
    resources = [{"register": 0, "kind": "structured",
                  "data": {"dtype": "uint32", "values": [10, 11, 12, 13]}},
                 {"register": 1, "kind": "raw",
                  "data": {"dtype": "uint32", "values": [1, 2, 3, 4, 5]}}]
    case = load_case(_doc("loads", LOADS, 3, resources, _so([(0, 2), (1, 2), (2, 3), (3, 1)])))
    words = [1, 2, 3, 4, 5, 0, 0, 0, 0]
    want = np.array([[10, 11, *words[0:2], *words[1:4], 208],
                     [12, 13, *words[2:4], *words[3:6], 208],
                     [0, 0, *words[4:6], *words[5:8], 208]], np.uint32)
    cpu = shader_outputs(case, run_reference(case))
    got = np.concatenate([cpu[f"TEXCOORD{k}"] for k in range(4)], axis=1)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(_so_words(run_case_so_gpu(case, gpu_device), 3, 8), want)


SPACE_REGISTERS = 128  # t0..t127: the SRV registers of one space


def _many(n: int):
    decl = "".join(f"StructuredBuffer<uint> B{k} : register(t{k});\n" for k in range(n))
    total = " + ".join(f"B{k}[id]" for k in range(n))
    hlsl = decl + ("struct O { float4 p : SV_Position; uint t : TEXCOORD0; };\n"
                   f"O main(uint id : SV_VertexID) {{ O o; o.p = float4(0, 0, 0, 1); "
                   f"o.t = {total}; return o; }}\n")
    resources = [{"register": k, "kind": "structured",
                  "data": {"dtype": "uint32", "values": [k, 100 * k]}} for k in range(n)]
    return load_case(_doc("many", hlsl, 2, resources, _so([(0, 1)])))


def test_storage_buffer_limits_are_refused_with_reasons(gpu_device):
    """Each SRV is a storage buffer of the vertex stage (and of the Stream Output pass): with
    the adapter's limit L, L - 2 SRVs leave too few for a capture's 3 storage buffers (native)
    or pulling's 4, and the Stream Output pass's 5 of its own; each refused naming the limit.
    L - 3 draw, reading 0+1+...+(n-1) at vertex 0 and 100 times that at vertex 1. An adapter
    whose limit is beyond one register space's 128 SRVs (t0..t127) cannot be made to refuse
    by one space: there all 128 draw."""
    limit = gpu_device.caps.max_storage_buffers_per_shader_stage
    if limit - 2 <= SPACE_REGISTERS:
        case = _many(limit - 2)
        with pytest.raises(UnsupportedError) as e:
            run_case_gpu(case, gpu_device, path="native")
        assert "the capture's 3 storage buffers do not fit the 2" in str(e.value), str(e.value)
        with pytest.raises(UnsupportedError) as e:
            run_case_so_gpu(case, gpu_device)
        assert f"the adapter has {limit}" in str(e.value), str(e.value)
    n = min(limit - 3, SPACE_REGISTERS)
    case = _many(n)
    assert run_case_gpu(case, gpu_device, path="native").path == "native"
    total = n * (n - 1) // 2
    cpu = shader_outputs(case, run_reference(case))
    np.testing.assert_array_equal(cpu["TEXCOORD0"][:, 0], [total, 100 * total])


NESTED = r"""
StructuredBuffer<uint> A : register(t0);
struct O { float4 p : SV_Position; uint v : TEXCOORD0; };
O main(uint id : SV_VertexID) { O o; o.p = float4(0, 0, 0, 1); o.v = A[A[id]]; return o; }
"""


def test_an_index_read_from_the_buffer_itself(gpu_device):
    """A = (2, 0, 5): A[A[0]] = A[2] = 5, A[A[1]] = A[0] = 2, A[A[2]] = A[5], past the view: 0,
    A[A[3]] = A[0] (A[3] is past it: 0) = 2."""
    resources = [{"register": 0, "kind": "structured",
                  "data": {"dtype": "uint32", "values": [2, 0, 5]}}]
    case = load_case(_doc("nested", NESTED, 4, resources, _so([(0, 1)])))
    want = np.array([[5], [2], [0], [2]], np.uint32)
    np.testing.assert_array_equal(shader_outputs(case, run_reference(case))["TEXCOORD0"], want)
    np.testing.assert_array_equal(_so_words(run_case_so_gpu(case, gpu_device), 4, 1), want)


ROW_MAJOR = r"""
struct Bone { row_major float3x4 m; };
StructuredBuffer<Bone> Bones : register(t0);
struct O { float4 p : SV_Position; float3 moved : TEXCOORD0; };
O main(uint id : SV_VertexID) {
    O o; o.p = float4(0, 0, 0, 1); o.moved = mul(Bones[id].m, float4(1, 2, 3, 1)); return o;
}
"""


def test_a_row_major_bone_matrix_member(gpu_device):
    """A row_major float3x4 member is stored row by row (48 bytes): rows (1,0,0,10),
    (0,1,0,20), (0,0,1,30) move (1, 2, 3) to (11, 22, 33); bone 1, past the view, to 0."""
    rows = [1, 0, 0, 10, 0, 1, 0, 20, 0, 0, 1, 30]
    resources = [{"register": 0, "kind": "structured", "structure_byte_stride": 48,
                  "data": {"dtype": "float32", "values": rows}}]
    case = load_case(_doc("row_major", ROW_MAJOR, 2, resources, _so([(0, 3)])))
    want = _f32([[11, 22, 33], [0, 0, 0]])
    np.testing.assert_array_equal(shader_outputs(case, run_reference(case))["TEXCOORD0"], want)
    np.testing.assert_array_equal(_so_words(run_case_so_gpu(case, gpu_device), 2, 3), want)
