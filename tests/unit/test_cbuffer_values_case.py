"""A case file's ``constant_buffers`` entry with ``values`` (members by name): packed from the
HLSL shader's reflection into the bytes hand-derived from D3D's packing rules, read by the
shader as those bytes (CPU reference), and refused where nothing can pack them. Compiles with
Slang; the CPU reference builds with the system's C++ compiler."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from gpuia.errors import CaseError, InvalidDescError
from gpuia.harness.case import load_case
from gpuia.harness.run import run_reference, shader_outputs


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "hlsl-cache"))


VS = """cbuffer Frame : register(b1) { row_major float2x2 M; float3 Offset; float Scale; };
float4 main(float4 p : POSITION) : SV_Position
{ return float4(mul(p.xy, M) * Scale, Offset.z, 1); }
"""


def case_doc(constant_buffers, vertex_shader=None) -> dict:
    return {"gpuia_case": 1, "name": "cbv",
            "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}],
            "vertex_buffers": [{"slot": 0, "stride": 16,
                                "data": {"dtype": "float32", "values": [1, 2, 0, 1]}}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 1}},
            "vertex_shader": vertex_shader or {"hlsl": VS},
            "constant_buffers": constant_buffers}


VALUES = {"M": [[1, 2], [3, 4]], "Offset": [0, 0, 7], "Scale": 0.5}
# row_major float2x2: rows @0 and @16 (2 floats each, the last unpadded at 24); Offset (12
# bytes) would straddle at 24: @32; Scale packs at 44. Three registers.
PACKED = struct.pack("<12f", 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 7, 0.5)


def test_values_are_packed_and_read_by_the_shader_as_bytes():
    case = load_case(case_doc([{"slot": 1, "values": VALUES}]))
    assert case.constant_buffers == {1: PACKED}
    same = load_case(case_doc([{"slot": 1, "data": {"hex": PACKED.hex()}}]))
    assert same.constant_buffers == case.constant_buffers
    out = shader_outputs(case, run_reference(case))
    # mul(row vector (1, 2), M) = (1*1 + 2*3, 1*2 + 2*4) = (7, 10); x Scale: (3.5, 5); z 7.
    (position,) = out.values()
    assert np.asarray(position).view("<f4").tolist() == [[3.5, 5.0, 7.0, 1.0]]


def test_a_bad_value_names_the_entry_cbuffer_and_member():
    with pytest.raises(InvalidDescError) as e:
        load_case(case_doc([{"slot": 1, "values": {"Scale": [1]}}]))
    assert str(e.value).startswith("constant_buffers[0]: cbuffer Frame (register b1): "
                                   "Frame.Scale=[1]: a float takes a number"), str(e.value)


def test_data_and_values_together_or_neither_are_refused():
    with pytest.raises(CaseError, match="exactly one of 'data'"):
        load_case(case_doc([{"slot": 1, "values": VALUES, "data": {"hex": ""}}]))
    with pytest.raises(CaseError, match="exactly one of 'data'"):
        load_case(case_doc([{"slot": 1}]))
    with pytest.raises(CaseError, match="members by name"):
        load_case(case_doc([{"slot": 1, "values": [1, 2]}]))


def test_values_need_an_hlsl_shader_declaring_the_slot():
    with pytest.raises(InvalidDescError, match="register b0; there is none"):
        load_case(case_doc([{"slot": 1, "values": VALUES}, {"slot": 0, "values": {}}]))
    wgsl = {"wgsl": "struct K { s : f32 }\n@group(3) @binding(1) var<uniform> k : K;\n"
                    "struct In { @location(0) POSITION : vec4<f32> }\n"
                    "struct Out { @builtin(position) SV_Position : vec4<f32> }\n"
                    "@vertex fn main(i : In) -> Out { var o : Out; "
                    "o.SV_Position = i.POSITION * k.s; return o; }\n"}
    with pytest.raises(InvalidDescError, match="HLSL shader of the case"):
        load_case(case_doc([{"slot": 1, "values": {"s": 1}}], wgsl))
