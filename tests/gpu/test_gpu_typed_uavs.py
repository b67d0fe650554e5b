"""Typed UAVs (``RWBuffer<T>``) of a vertex shader whose view format is T's components in 32-bit
channels of T's kind (docs/resources.md "Unordered access views", docs/rules.md 18.5): a write
stores T's bits, a read returns them (rules 2.1), out-of-bounds writes dropped and reads 0 (rules
18.2), on the CPU reference and every GPU path bit for bit; the other formats refused with the
reason.

By hand, four points at (x, y) = (1, 2), (0.5, -1), (-3, 0.25), (10, 20):

* F, ``RWBuffer<float4>`` at u0, R32G32B32A32_FLOAT, buffer of 5 elements of 99.0, view
  elements 1..3: vertex i writes view element i = (2x, 2y, i, F[i + 3].x), F[i + 3] past the
  view reads 0; vertex 3's write is past the view and dropped. Buffer: (99 x4), (2, 4, 0, 0),
  (1, -2, 1, 0), (-6, 0.5, 2, 0), (99 x4).
* U, ``RWBuffer<uint>`` at u1, R32_UINT, buffer of 8 words 0xEEEEEEEE, view words 2..5:
  vertex i writes 3i + 1 at buffer word 2 + i: words 2..5 = 1, 4, 7, 10.
* I, ``RWBuffer<int2>`` at u2 of space1, R32G32_SINT, buffer of 4 elements of words 0x11111111,
  view elements 0..1: vertex i writes (-i, U[i + 4] + n) where U[i + 4] is past U's 4-element
  view (0) and n = U's GetDimensions count, 4: element 0 = (0, 4), element 1 = (-1, 4),
  vertices 2 and 3 dropped.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from gpuia.errors import CaseError, InvalidDescError, UnsupportedError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import reference_uavs, run_reference
from gpuia.harness.run_gpu import run_case_gpu
from gpuia.hlsl import compile_shader

HLSL = r"""
RWBuffer<float4> F : register(u0);
RWBuffer<uint> U : register(u1);
RWBuffer<int2> I : register(u2, space1);
struct VSOut { float4 pos : SV_Position; float4 seen : TEXCOORD0; };
VSOut main(float2 p : POSITION, uint id : SV_VertexID) {
    F[id] = float4(p * 2, id, F[id + 3].x);
    U[id] = id * 3 + 1;
    uint n; U.GetDimensions(n);
    I[id] = int2(-(int)id, (int)(U[id + 4] + n));
    VSOut o;
    o.pos = float4(p, 0, 1);
    o.seen = float4(F[id].xy, asfloat(U[id]), (float)I[id].y);
    return o;
}
"""
POINTS = [1, 2, 0.5, -1, -3, 0.25, 10, 20]
F_DATA = {"dtype": "float32", "values": [99.0] * 20}
U_DATA = {"dtype": "uint32", "values": [0xEEEEEEEE] * 8}
I_DATA = {"dtype": "uint32", "values": [0x11111111] * 8}


def _doc() -> dict:
    return {"gpuia_case": 1, "name": "typed_uavs",
            "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
            "vertex_buffers": [{"slot": 0, "stride": 8,
                                "data": {"dtype": "float32", "values": POINTS}}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 4}},
            "vertex_shader": {"hlsl": HLSL},
            "shader_resources": [
                {"register": 0, "kind": "rw_typed", "format": "R32G32B32A32_FLOAT",
                 "first_element": 1, "num_elements": 3, "data": F_DATA},
                {"register": 1, "kind": "rw_typed", "format": "DXGI_FORMAT_R32_UINT",
                 "first_element": 2, "num_elements": 4, "data": U_DATA},
                {"register": 2, "space": 1, "kind": "rw_typed", "format": "R32G32_SINT",
                 "num_elements": 2, "data": I_DATA}]}


def _expected() -> dict[str, bytes]:
    f = np.full((5, 4), 99, np.float32)
    f[1:4] = [[2, 4, 0, 0], [1, -2, 1, 0], [-6, 0.5, 2, 0]]
    u = np.full(8, 0xEEEEEEEE, np.uint32)
    u[2:6] = [1, 4, 7, 10]
    i = np.full(8, 0x11111111, np.uint32)
    i[0:4] = np.array([0, 4, -1, 4], np.int32).view(np.uint32)
    return {"u0": f.tobytes(), "u1": u.tobytes(), "u2 space1": i.tobytes()}


def test_cpu_reference_by_hand():
    case = load_case(_doc())
    assert reference_uavs(case, run_reference(case)) == _expected()


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_each_gpu_path_by_hand(gpu_device, path):
    assert run_case_gpu(load_case(_doc()), gpu_device, path=path).uavs == _expected()


def test_cross_check_compares_them(gpu_device):
    result = cross_check(load_case(_doc()), gpu_device, paths=("native", "pulling"))
    assert result.ok, result.text()
    for line in result.lines:
        if line.path in ("native", "pulling", "vs outputs"):
            assert "UAVs u0, u1, u2 space1: bit for bit" in line.detail, line.text()


def test_in_a_descriptor_table_never_a_root_uav():
    """rules 16.9: a typed view has a format, which a root UAV (a buffer address) lacks."""
    doc = _doc()
    doc["root_signature"] = "DescriptorTable(UAV(u0, numDescriptors=2), UAV(u2, space=1))"
    assert load_case(doc).root_signature is not None
    doc["root_signature"] = "DescriptorTable(UAV(u0, numDescriptors=2)), UAV(u2, space=1)"
    with pytest.raises(InvalidDescError, match="root descriptor") as e:
        load_case(doc)
    assert "I (register u2, space1)" in str(e.value) and "rules 16.9" in str(e.value)


@pytest.mark.parametrize("register, fmt, error, words", [
    # a write would convert float to UNORM (0.6 ULP, rules 18.5); 8-bit channels need byte writes
    (0, "R8G8B8A8_UNORM", UnsupportedError, "its channels are not 32-bit"),
    (0, "R16G16B16A16_FLOAT", UnsupportedError, "its channels are not 32-bit"),
    # D3D writes the format's components only: one of float4's four
    (0, "R32_FLOAT", UnsupportedError, "it has 1 components and the shader's T 4"),
    # the values of a UINT format are not float (as a typed SRV's)
    (0, "R32G32B32A32_UINT", InvalidDescError, "its values are uint and the shader reads float"),
    # D3D12 refuses these for any buffer view
    (1, "R32_TYPELESS", InvalidDescError, "D3D12 refuses it for a typed buffer"),
])
def test_formats_refused(register, fmt, error, words):
    doc = _doc()
    entry = next(e for e in doc["shader_resources"] if e["register"] == register)
    entry["format"] = fmt
    with pytest.raises(error) as e:
        load_case(doc)
    assert words in str(e.value), str(e.value)


def test_a_typed_uav_needs_a_format():
    doc = copy.deepcopy(_doc())
    del doc["shader_resources"][1]["format"]
    with pytest.raises(CaseError, match="missing required key 'format'"):
        load_case(doc)


def test_three_components_refused():
    with pytest.raises(InvalidDescError) as e:
        compile_shader("RWBuffer<float3> W : register(u0);\nfloat4 main(uint id : SV_VertexID) "
                       ": SV_Position { W[id] = 1; return 0; }")
    assert "resource W" in str(e.value) and "1, 2 or 4 components" in str(e.value)


COUNTER = r"""
RWBuffer<uint> U : register(u1);
float4 main(uint id : SV_VertexID) : SV_Position { U[id] = id * 3 + 1; return 0; }
"""


def _context_draw(dev, fmt, root_signature=None):
    from gpuia import InputLayout
    from gpuia.gpu import Context, PipelineState

    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(InputLayout([]), compile_shader(COUNTER),
                                         root_signature=root_signature))
    ctx.ia_set_primitive_topology("POINTLIST")
    buf = dev.create_buffer(np.full(8, 0xEEEEEEEE, np.uint32), bind=("unordered_access",))
    ctx.set_graphics_root_unordered_access_view(1, buf, 8, 4, format=fmt)
    ctx.draw_instanced(5)
    ctx.flush()
    return np.frombuffer(buf.read(), np.uint32)


@pytest.mark.parametrize("root_signature", [None, "DescriptorTable(UAV(u1))"])
def test_context_api(gpu_device, root_signature):
    """Five vertices write 3i + 1 at view word i of a 4-word view from byte 8: words 2..5 are
    1, 4, 7, 10; vertex 4's write is dropped."""
    want = np.full(8, 0xEEEEEEEE, np.uint32)
    want[2:6] = [1, 4, 7, 10]
    np.testing.assert_array_equal(_context_draw(gpu_device, "R32_UINT", root_signature), want)


def test_context_api_refusals(gpu_device):
    with pytest.raises(UnsupportedError, match="its channels are not 32-bit"):
        _context_draw(gpu_device, "R16_UINT")
    with pytest.raises(InvalidDescError, match="its view needs a format") as e:
        _context_draw(gpu_device, None)
    assert "set_graphics_root_unordered_access_view(..., format=...)" in str(e.value)
