"""gpuia's HLSL front end against Microsoft's compilers: the D3D packing of constant buffers that
gpuia reads through Slang is compared with FXC's D3DReflect and DXC's reflection of the same
source (tests/data/shaders/cbuffers.hlsl), recorded beside the blobs by
tests/data/shaders/regen.py. Truth that does not come from gpuia."""

from __future__ import annotations

import json

import pytest

from gpuia.hlsl import compile_shader
from helpers import DATA

SHADERS = DATA / "shaders"
D3D_CT_CBUFFER = 0  # D3D_CBUFFER_TYPE
D3D_SIT_CBUFFER = 0  # D3D_SHADER_INPUT_TYPE


@pytest.fixture(scope="module")
def shader():
    path = SHADERS / "cbuffers.hlsl"
    return compile_shader(path.read_text(), "vertex", "main", file_name=path.name,
                          source_path=str(path))


@pytest.mark.parametrize("blob", ["cbuffers.main.vs_5_0", "cbuffers.main.vs_6_0"])
def test_constant_buffer_packing_is_the_compilers(shader, blob):
    reflection = json.loads((SHADERS / "blobs" / f"{blob}.json").read_text())["reflection"]
    slots = {b["Name"]: b["BindPoint"] for b in reflection["bindings"]
             if b["Type"] == D3D_SIT_CBUFFER}
    theirs = {c["Name"]: (slots[c["Name"]], c["Size"],
                          [(v["Name"], v["StartOffset"], v["Size"]) for v in c["Variables"]])
              for c in reflection["cbuffers"] if c["Type"] == D3D_CT_CBUFFER}
    ours = {cb.name: (cb.slot, cb.registers * 16, cb.declared()) for cb in shader.constant_buffers}
    assert ours == theirs
    assert set(theirs) == {"Frame", "Placed"}
