"""The HTML report's constant buffer table shows the values a case binds (issue: whole
pipeline, item 2): each member read from the bound bytes at the D3D offset the packing rules
give it (docs/hlsl.md, "Constant buffers"), here derived by hand: ``float4 V`` at 0, ``float T``
at 16, ``int2 I`` at 20 (it fits in the rest of the second register)."""

from __future__ import annotations

import struct

import pytest

from gpuia.harness.report.html_case import bound_values
from gpuia.hlsl import compile_shader

SOURCE = """
cbuffer CB : register(b0) { float4 V; float T; int2 I; };
float4 main(float4 p : POSITION) : SV_Position { return p * V + T + float4(I, 0, 0); }
"""


@pytest.fixture(scope="module")
def cbuffer():
    return compile_shader(SOURCE, "vertex", "main").constant_buffers[0]


def test_each_member_reads_its_d3d_offset(cbuffer):
    data = struct.pack("<4ff2i", 1.0, 2.0, 3.0, 4.0, 1.5, -3, 7)
    assert bound_values(cbuffer, data) == "V = 1.0, 2.0, 3.0, 4.0; T = 1.5; I = -3, 7"
    # A float32 shows as the shortest text that reads back as the same float32.
    data = struct.pack("<4ff2i", 0.2, 0.1, 0.3, 1e-3, 0.016, 0, 0)
    assert bound_values(cbuffer, data) == "V = 0.2, 0.1, 0.3, 0.001; T = 0.016; I = 0, 0"


def test_members_past_the_bound_bytes_read_zero(cbuffer):
    data = struct.pack("<4f", 0.5, 0.25, -2.0, 8.0)
    assert bound_values(cbuffer, data) == "V = 0.5, 0.25, -2.0, 8.0; T = 0; I = 0, 0"


def test_nothing_bound(cbuffer):
    assert bound_values(cbuffer, None) == "nothing bound (zeros)"
