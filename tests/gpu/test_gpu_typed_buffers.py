"""Typed ``Buffer<T>`` SRVs in an HLSL vertex shader (docs/resources.md), CPU against GPU.

One shader reads three typed buffers, ``Buffer<float4> F``, ``Buffer<uint4> U`` and
``Buffer<int4> I``, plus ``Buffer<float2> G`` (a T narrower than its format); each view starts
at element 1 of three and holds two elements, so vertices 0 and 1 read data elements 1 and 2,
vertices 2 and 3 read past the view. Every expected value is worked out here from the rules:
UNORM c / (2^n - 1) and SNORM c / (2^(n-1) - 1) with the most negative code -1.0, each the nearest
float32 (rules 2.2, 2.3), half floats (2.5), R10G10B10A2 (2.7), B8G8R8A8's swizzle (2.8),
missing components 0 for g and b and 1 for a (2.11); past NumElements 0 in the format's
components and those defaults in the others (Microsoft's "ld (sm4 - asm)": "returns 0 in all
non-missing components of the format of the srcResource, and the default for missing
components"; the Input Assembler's rules 6.1 alike), the format's components counted here from
its DXGI name. The CPU reference and the GPU's Stream Output pass must both give them, bit for
bit.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from gpuia.harness.case import load_case
from gpuia.harness.run import run_reference, shader_outputs
from gpuia.harness.run_gpu import run_case_gpu, run_case_so_gpu

HLSL = r"""
Buffer<float4> F : register(t0);
Buffer<uint4> U : register(t1);
Buffer<int4> I : register(t2, space1);
Buffer<float2> G : register(t3);
struct O { float4 pos : SV_Position; float4 f : TEXCOORD0; uint4 u : TEXCOORD1;
           int4 i : TEXCOORD2; float2 g : TEXCOORD3; uint4 dims : TEXCOORD4; };
O main(uint id : SV_VertexID) {
    O o;
    uint nf, nu, ni, ng;
    F.GetDimensions(nf); U.GetDimensions(nu); I.GetDimensions(ni); G.GetDimensions(ng);
    o.pos = float4(0, 0, 0, 1);
    o.f = F[id]; o.u = U.Load(id); o.i = I[id]; o.g = G.Load(id);
    o.dims = uint4(nf, nu, ni, ng);
    return o;
}
"""


def f32(num: int, den: int = 1) -> np.float32:
    """The float32 nearest to num / den (exact rational comparison of the neighbours)."""
    q = Fraction(num, den)
    f = np.float32(float(q))
    near = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    return min(near, key=lambda x: abs(Fraction(float(x)) - q))


def unorm(c: int, bits: int) -> np.float32:
    return f32(c, 2 ** bits - 1)


def snorm(c: int, bits: int) -> np.float32:
    return np.float32(-1.0) if c <= -(2 ** (bits - 1)) + 1 else f32(c, 2 ** (bits - 1) - 1)


def _bytes(dtype, values) -> list[int]:
    return list(np.array(values, dtype).view(np.uint8))


def _r10g10b10a2(r, g, b, a) -> int:
    return r | g << 10 | b << 20 | a << 30


# format -> (the data: three elements' bytes (element 0 never read), the two elements read)
FLOATS = {
    "R8G8B8A8_UNORM": (_bytes(np.uint8, [9, 9, 9, 9, 0, 255, 128, 51, 1, 2, 3, 254]),
                       [[0, 1, unorm(128, 8), unorm(51, 8)],
                        [unorm(1, 8), unorm(2, 8), unorm(3, 8), unorm(254, 8)]]),
    "R16G16_SNORM": (_bytes(np.int16, [7, 7, -32768, -32767, 16384, 32767]),
                     [[-1, -1, 0, 1], [snorm(16384, 16), 1, 0, 1]]),
    "R8G8B8A8_SNORM": (_bytes(np.int8, [1, 1, 1, 1, -128, -127, 0, 127, 64, -64, 1, -1]),
                       [[-1, -1, 0, 1],
                        [snorm(64, 8), snorm(-64, 8), snorm(1, 8), snorm(-1, 8)]]),
    "R32G32B32A32_FLOAT": (_bytes(np.float32, [5] * 4 + [1.5, -2.25, 1e-40, 3e38]
                                  + [0.1, -0.0, 7, -8]),
                           [[1.5, -2.25, np.float32(1e-40), np.float32(3e38)],
                            [np.float32(0.1), -0.0, 7, -8]]),
    "R10G10B10A2_UNORM": (_bytes(np.uint32, [0, _r10g10b10a2(1023, 0, 512, 2),
                                             _r10g10b10a2(1, 2, 1022, 3)]),
                          [[1, 0, unorm(512, 10), unorm(2, 2)],
                           [unorm(1, 10), unorm(2, 10), unorm(1022, 10), 1]]),
    # half 0x3C00 = 1.0, 0xC000 = -2.0, 0x7BFF = 65504, 0x0001 = 2^-24 (a denormal, kept)
    "R16_FLOAT": (_bytes(np.uint16, [0x3C00, 0xC000, 0x0001]),
                  [[-2, 0, 0, 1], [2.0 ** -24, 0, 0, 1]]),
    "R16G16B16A16_FLOAT": (_bytes(np.uint16, [0] * 4 + [0x3C00, 0x7BFF, 0xBC00, 0x3800]
                                  + [0x4000, 0, 0x8000, 0xC400]),
                           [[1, 65504, -1, 0.5], [2, 0, -0.0, -4]]),
    # B8G8R8A8: bytes B, G, R, A; the shader sees (R, G, B, A)
    "B8G8R8A8_UNORM": (_bytes(np.uint8, [0] * 4 + [255, 0, 51, 102] + [1, 2, 3, 4]),
                       [[unorm(51, 8), 0, 1, unorm(102, 8)],
                        [unorm(3, 8), unorm(2, 8), unorm(1, 8), unorm(4, 8)]]),
}
UINTS = {
    "R8_UINT": (_bytes(np.uint8, [3, 7, 255]), [[7, 0, 0, 1], [255, 0, 0, 1]]),
    "R32G32B32A32_UINT": (_bytes(np.uint32, list(range(12))),
                          [[4, 5, 6, 7], [8, 9, 10, 11]]),
    "R10G10B10A2_UINT": (_bytes(np.uint32, [0, _r10g10b10a2(1023, 5, 0, 3),
                                            _r10g10b10a2(0, 1, 2, 1)]),
                         [[1023, 5, 0, 3], [0, 1, 2, 1]]),
    "R16G16_UINT": (_bytes(np.uint16, [1, 1, 65535, 2, 3, 40000]),
                    [[65535, 2, 0, 1], [3, 40000, 0, 1]]),
}
SINTS = {
    "R16G16B16A16_SINT": (_bytes(np.int16, [0] * 4 + [-1, 32767, -32768, 5] + [1, 2, 3, -4]),
                          [[-1, 32767, -32768, 5], [1, 2, 3, -4]]),
    "R8G8_SINT": (_bytes(np.int8, [0, 0, -128, 127, -1, 1]), [[-128, 127, 0, 1], [-1, 1, 0, 1]]),
    "R32_SINT": (_bytes(np.int32, [0, -2147483648, 12]), [[-2147483648, 0, 0, 1],
                                                          [12, 0, 0, 1]]),
}
# G: Buffer<float2> over R16G16_UNORM (its two components) and R8G8B8A8_UNORM (the first two)
GS = {
    "R16G16_UNORM": (_bytes(np.uint16, [0, 0, 65535, 32768, 1, 0]),
                     [[1, unorm(32768, 16)], [unorm(1, 16), 0]]),
    "R8G8B8A8_UNORM": (_bytes(np.uint8, [0] * 4 + [255, 1, 9, 9, 2, 0, 9, 9]),
                       [[1, unorm(1, 8)], [unorm(2, 8), 0]]),
}
DEFAULT = {"F": "R32G32B32A32_FLOAT", "U": "R8_UINT", "I": "R8G8_SINT", "G": "R16G16_UNORM"}
TABLES = {"F": FLOATS, "U": UINTS, "I": SINTS, "G": GS}
TYPES = {"F": np.float32, "U": np.uint32, "I": np.int32, "G": np.float32}
WIDTH = {"F": 4, "U": 4, "I": 4, "G": 2}
REGISTERS = {"F": (0, 0), "U": (1, 0), "I": (2, 1), "G": (3, 0)}


def _case(formats: dict):
    resources = []
    for name, fmt in formats.items():
        data, _ = TABLES[name].get(fmt, TABLES[name][DEFAULT[name]])
        register, space = REGISTERS[name]
        resources.append({"register": register, "space": space, "kind": "typed",
                          "format": fmt, "first_element": 1, "num_elements": 2,
                          "data": {"dtype": "uint8", "values": [int(b) for b in data]}})
    so = {"declaration": [{"SemanticName": "TEXCOORD", "SemanticIndex": k, "ComponentCount": c}
                          for k, c in enumerate([4, 4, 4, 2, 4])],
          "targets": [{"slot": 0, "size": 4096}]}
    return load_case({"gpuia_case": 1, "name": "typed", "input_layout": [],
                      "vertex_buffers": [], "primitive_topology": "POINTLIST",
                      "draw": {"DrawInstanced": {"VertexCountPerInstance": 4}},
                      "vertex_shader": {"hlsl": HLSL}, "shader_resources": resources,
                      "stream_output": so})


def _outside(fmt: str, width: int) -> list:
    """A read past the view: 0 in the format's components (its R, G, B, A channels, named
    first in the DXGI name, X is padding), the (0, 0, 0, 1) defaults in the others."""
    have = len(re.findall(r"[RGBA]\d+", fmt.split("_")[0]))
    return [0, 0, 0, 0 if have == 4 else 1][:width]


def _expected(formats: dict) -> np.ndarray:
    """Per vertex: F (4), U (4), I (4), G (2), the four counts (2 each): 18 words."""
    cols = []
    for name in ("F", "U", "I", "G"):
        rows = np.zeros((4, WIDTH[name]), TYPES[name])
        rows[:2] = np.array(TABLES[name][formats[name]][1], TYPES[name])
        rows[2:] = _outside(formats[name], WIDTH[name])  # vertices 2, 3
        cols.append(rows.view(np.uint32))
    cols.append(np.full((4, 4), 2, np.uint32))
    return np.concatenate(cols, axis=1)


PARAMS = [(name, fmt) for name in ("F", "U", "I", "G") for fmt in TABLES[name]]


@pytest.mark.parametrize("name, fmt", PARAMS, ids=[f"{n}-{f}" for n, f in PARAMS])
def test_typed_loads_cpu_and_stream_output(gpu_device, name, fmt):
    formats = {**DEFAULT, name: fmt}
    case = _case(formats)
    want = _expected(formats)
    cpu = shader_outputs(case, run_reference(case))
    got = np.concatenate([cpu[f"TEXCOORD{k}"].view(np.uint32) for k in range(5)], axis=1)
    np.testing.assert_array_equal(got, want)
    so = run_case_so_gpu(case, gpu_device)
    np.testing.assert_array_equal(
        np.frombuffer(so.buffers[0], np.uint32)[:4 * 18].reshape(4, 18), want)


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_capture_paths_draw_typed_buffers(gpu_device, path):
    result = run_case_gpu(_case(DEFAULT), gpu_device, path=path)
    assert not result.missing.any() and result.path == path


def test_example_case(gpu_device):
    """examples/cases/srv_typed_buffers.json, each value from its description: positions
    (x, y, 0, 1) from R16G16_SNORM, colours from R8G8B8A8_UNORM (vertex 2 past the view: all
    four components 0, the format has them all), GetDimensions' 2."""
    from helpers import EXAMPLE_CASES

    case = load_case(str(EXAMPLE_CASES / "srv_typed_buffers.json"))
    third = snorm(16384, 16)
    want = np.concatenate([
        np.array([[0, 1, 0, 1], [-1, -1, 0, 1], [third, -third, 0, 1]], np.float32),
        np.array([[1, 0, 0, 1], [0, unorm(51, 8), 1, unorm(102, 8)], [0, 0, 0, 0]],
                 np.float32)], axis=1).view(np.uint32)
    want = np.concatenate([want, np.full((3, 1), 2, np.uint32)], axis=1)
    cpu = shader_outputs(case, run_reference(case))
    got = np.concatenate([cpu[k].view(np.uint32) for k in ("SV_POSITION0", "COLOR0",
                                                            "TEXCOORD0")], axis=1)
    np.testing.assert_array_equal(got, want)
    so = run_case_so_gpu(case, gpu_device)
    np.testing.assert_array_equal(np.frombuffer(so.buffers[0], np.uint32)[:27].reshape(3, 9),
                                  want)


GS = r"""
struct V { float4 pos : SV_Position; float4 color : COLOR0; uint count : TEXCOORD0; };
struct G { float4 pos : SV_Position; float4 twice : TEXCOORD0; };
[maxvertexcount(1)]
void main(point V v[1], inout PointStream<G> s) {
    G o; o.pos = v[0].pos; o.twice = v[0].color * 2; s.Append(o);
}
"""


def test_typed_buffers_reach_a_geometry_shader(gpu_device):
    """The vertex pass before a geometry shader reads typed buffers too: the GS doubles the
    example's colours, (1, 0, 0, 1), (0, 51/255, 1, 102/255) and 0 past the view."""
    import json

    from helpers import EXAMPLE_CASES

    doc = json.loads((EXAMPLE_CASES / "srv_typed_buffers.json").read_text())
    doc["geometry_shader"] = {"hlsl": GS}
    doc["stream_output"] = {"declaration": [{"SemanticName": "TEXCOORD", "ComponentCount": 4}],
                           "targets": [{"slot": 0, "size": 48}]}
    so = run_case_so_gpu(load_case(doc), gpu_device)
    want = np.array([[2, 0, 0, 2], [0, unorm(51, 8) * 2, 2, unorm(102, 8) * 2], [0, 0, 0, 0]],
                    np.float32).view(np.uint32)
    np.testing.assert_array_equal(np.frombuffer(so.buffers[0], np.uint32)[:12].reshape(3, 4),
                                  want)
