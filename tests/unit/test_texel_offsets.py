"""Texel offsets read from source and WGSL text (rules 17.11): a Load's offset lowered into its
location, SampleLevel's read from Slang's WGSL; values outside D3D's [-8, 7] and offsets that
are no integer literals refused naming the rule. No adapter needed."""

from __future__ import annotations

import pytest

from gpuia.errors import InvalidDescError
from gpuia.hlsl.load_offsets import lower_load_offsets
from gpuia.hlsl.textures import ShaderTexture, texel_offset

TYPES = {"A": "Texture1D", "B": "Texture2D", "C": "Texture2DArray", "D": "Texture3D"}


def test_load_offsets_added_to_the_location_per_shape():
    text = ("x = A.Load(int2(i, 0), -3) + B.Load(p, int2(1, -2)) + C.Load(q,\n int2(7, -8))"
            " + D.Load(r, int3(0, 1, 2)) + B.Load(p) + E.Load(p, 1);")
    got = lower_load_offsets(text, TYPES, "vertex shader")
    # the offset never reaches the level (the last component) or an array's slice
    assert got == ("x = A.Load(int2(int2(i, 0)) + int2(-3, 0)) + B.Load(int3(p) + int3(1, -2, "
                   "0)) + C.Load(int4(q) + int4(7, -8, 0, 0)\n) + D.Load(int4(r) + int4(0, 1, 2,"
                   " 0)) + B.Load(p) + E.Load(p, 1);")
    assert got.count("\n") == text.count("\n")


@pytest.mark.parametrize("offset", ["int2(8, 0)", "int2(0, -9)", "OFF", "int2(i, 0)",
                                    "int2(1, 2, 3)", "int2(1 + 1, 0)"])
def test_load_offsets_refused(offset):
    with pytest.raises(InvalidDescError, match=r"rules 17\.11"):
        lower_load_offsets(f"B.Load(p, {offset})", TYPES, "vertex shader")


def _texture(dimension):
    return ShaderTexture("T", 0, 0, 0, 1, "T_0", dimension=dimension)


def test_sample_offsets_read_from_slang_wgsl():
    consts = {"_S5": "vec2<i32>(i32(3), i32(-2))"}
    assert texel_offset("(_S5)", _texture("texture2d"), "SampleLevel", "vs", consts) == (3, -2)
    assert texel_offset("(i32(-8))", _texture("texture1d"), "SampleLevel", "vs", {}) == (-8, 0)
    assert texel_offset("vec3<i32>(i32(1), i32(2), i32(7))", _texture("texture3d"),
                        "SampleLevel", "vs", {}) == (1, 2, 7)
    for bad in ("vec2<i32>(i32(8), i32(0))", "(_S6)", "vec2<i32>(id, 0)"):
        with pytest.raises(InvalidDescError, match=r"rules 17\.11"):
            texel_offset(bad, _texture("texture2d"), "SampleLevel", "vs", consts)
