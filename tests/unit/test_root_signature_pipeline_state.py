"""``PipelineState(root_signature=...)``: pRootSignature in any form, validated (rules 16) and
checked against the HLSL shaders' registers (rules 16.9) when the state is made."""

from __future__ import annotations

import struct

import pytest

from gpuia.d3d.root_signature import RootSignature, parse_root_signature
from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.gpu import PipelineState

pytest.importorskip("gpuia.hlsl.library")
from gpuia.hlsl import compile_shader  # noqa: E402

VS = """StructuredBuffer<float4> A : register(t2);
cbuffer C : register(b0) { float4 k; };
float4 main(uint id : SV_VertexID) : SV_Position { return A[id] * k; }
"""


@pytest.fixture(scope="module")
def vs():
    return compile_shader(VS)


@pytest.mark.parametrize("form", [
    "RootConstants(num32BitConstants=4, b0), DescriptorTable(SRV(t0, numDescriptors=4))",
    {"parameters": [{"type": "cbv", "shader_register": 0},
                    {"type": "srv", "shader_register": 2, "visibility": "vertex"}]},
    parse_root_signature("CBV(b0), SRV(t2)"),
    # serialized 1.0: root CBV b0 and root SRV t2, both ALL
    struct.pack("<6I", 1, 2, 24, 0, 64, 0) + struct.pack("<6I", 2, 0, 48, 3, 0, 56)
    + struct.pack("<4I", 0, 0, 2, 0),
])
def test_forms(vs, form):
    state = PipelineState([], vs, root_signature=form)
    assert isinstance(state.root_signature, RootSignature)
    hash(state)  # still a hashable value


def test_without_one_nothing_changes(vs):
    assert PipelineState([], vs).root_signature is None


def test_refusals(vs):
    with pytest.raises(InvalidDescError, match="rules 16.9"):  # t2 visible to PIXEL only
        PipelineState([], vs, root_signature="CBV(b0), SRV(t2, visibility=SHADER_VISIBILITY_PIXEL)")
    with pytest.raises(InvalidDescError, match="rules 16.6"):
        PipelineState([], vs, root_signature="CBV(b0), SRV(t2), SRV(t2)")
    with pytest.raises(UnsupportedError, match="16 bytes"):  # C is 16 bytes, 2 values are 8
        PipelineState([], vs, root_signature="RootConstants(num32BitConstants=2, b0), SRV(t2)")
    with pytest.raises(InvalidDescError, match="expected a RootSignature"):
        PipelineState([], vs, root_signature=42)
