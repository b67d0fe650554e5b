"""The GPU index pass without an adapter (gpuia.gpu.ia.index_pass, gpuia.wgsl.index_pass): the spec
a draw runs, its refusals, the scan's levels and the generated program's text. The pass on the
GPU: tests/gpu/test_gpu_index_pass.py.

Expected values come from the rules: the cut literal only for a strip of an indexed draw (rules
5.2), ``cuts`` only where a value can equal it (5.3, 5.5).
"""

from __future__ import annotations

import pytest

from gpuia.d3d.desc import StripCutValue
from gpuia.d3d.draws import DrawIndexedInstanced, DrawInstanced
from gpuia.d3d.ia_desc import IndexBufferView
from gpuia.d3d.topology import topology_info
from gpuia.errors import InvalidDescError
from gpuia.gpu.ia.index_pass import IndexStreams, index_pass_spec
from gpuia.wgsl.index_pass import (
    BLOCK,
    ENTRY_POINTS,
    IndexPassSpec,
    IndexSource,
    index_pass_program,
    scan_levels,
)

C16 = 0xFFFF
C32 = 0xFFFFFFFF
CUT16 = StripCutValue.CUT_0xFFFF
CUT32 = StripCutValue.CUT_0xFFFFFFFF
OFF = StripCutValue.DISABLED


def test_spec_refusals():
    strip, lst = topology_info("TRIANGLESTRIP"), topology_info("TRIANGLELIST")
    with pytest.raises(InvalidDescError, match="not a strip"):
        IndexPassSpec(lst, IndexSource.UINT16, 0xFFFF)
    with pytest.raises(InvalidDescError, match="0xFFFF or 0xFFFFFFFF"):
        IndexPassSpec(strip, IndexSource.UINT16, 0xFFFE)
    with pytest.raises(InvalidDescError, match="non-indexed"):
        IndexPassSpec(strip, IndexSource.SEQUENTIAL, 0xFFFF)
    with pytest.raises(InvalidDescError, match="streams"):
        IndexPassSpec(strip, IndexSource.UINT16, None, streams=IndexStreams(0))
    with pytest.raises(InvalidDescError, match="IndexSource"):
        IndexPassSpec(strip, "uint16")


def test_which_specs_can_cut():
    strip = topology_info("LINESTRIP")
    assert IndexPassSpec(strip, IndexSource.UINT16, 0xFFFF).cuts
    assert IndexPassSpec(strip, IndexSource.UINT32, 0xFFFF).cuts
    assert IndexPassSpec(strip, IndexSource.UINT32, 0xFFFFFFFF).cuts
    assert not IndexPassSpec(strip, IndexSource.UINT16, 0xFFFFFFFF).cuts  # 5.3
    assert not IndexPassSpec(strip, IndexSource.NULL, 0xFFFF).cuts  # 5.5: only zeros
    assert not IndexPassSpec(strip, IndexSource.UINT16, None).cuts


def test_the_spec_of_a_draw():
    """index_pass_spec is what the pass runs for a draw (no device): the cut literal only for a
    strip of an indexed draw (5.2), ``cuts`` only where a value can equal it (5.3, 5.5)."""
    strip, lst = topology_info("TRIANGLESTRIP"), topology_info("TRIANGLELIST")
    ib16 = IndexBufferView(b"\0" * 8, "R16_UINT")
    ib32 = IndexBufferView(b"\0" * 8, "R32_UINT")
    draw = DrawIndexedInstanced(4)

    def spec(topo=strip, ib=ib16, cut=CUT16, d=draw):
        return index_pass_spec(d, topo, index_buffer=ib, strip_cut_value=cut)

    assert spec().cuts and spec().source is IndexSource.UINT16 and spec().cut == C16
    assert spec(ib=ib32, cut=CUT16).cuts  # 0xFFFF cuts 32-bit indices
    assert not spec(cut=CUT32).cuts  # and 0xFFFFFFFF never 16-bit ones
    assert spec(ib=ib32, cut=CUT32).cuts
    assert spec(topo=lst).cut is None and not spec(topo=lst).cuts  # lists never cut
    assert not spec(cut=OFF).cuts
    for null in (None, IndexBufferView(None, "R32_UINT")):  # a NULL view reads only 0
        assert spec(ib=null).source is IndexSource.NULL and not spec(ib=null).cuts
    assert spec(d=DrawInstanced(4)).source is IndexSource.SEQUENTIAL
    assert spec(d=DrawInstanced(4)).cut is None
    with pytest.raises(InvalidDescError, match="IBStripCutValue"):
        spec(cut=7)
    with pytest.raises(InvalidDescError, match="draw"):
        spec(d=(4, 1))
    with pytest.raises(InvalidDescError, match="index_buffer"):
        spec(ib=b"\0" * 8)


def test_scan_levels():
    assert scan_levels(0) == [0]
    assert scan_levels(1) == [1, 1]
    assert scan_levels(BLOCK) == [BLOCK, 1]
    assert scan_levels(BLOCK + 1) == [BLOCK + 1, 2]
    assert scan_levels(BLOCK * BLOCK) == [BLOCK * BLOCK, BLOCK]
    assert scan_levels(BLOCK * BLOCK + 1) == [BLOCK * BLOCK + 1, BLOCK + 1, 2]
    assert len(scan_levels(C32)) == 4


def test_program_text():
    """Every entry point is in every program; the cut literal and the picks are spelled out."""
    spec = IndexPassSpec(topology_info("TRIANGLESTRIP"), IndexSource.UINT16, 0xFFFF, rotate=True)
    text = index_pass_program(spec)
    for entry in ENTRY_POINTS:
        assert f"fn {entry}(" in text
    assert "v == 0xffffu" in text
    assert spec.picks == ((1, 2, 0), (2, 1, 0))  # (0,1,2) / (0,2,1) rotated left
    closed = index_pass_program(IndexPassSpec(topology_info("TRIANGLESTRIP"), IndexSource.NULL,
                                              0xFFFF))
    assert "return false;" in closed and "return 0u;  // a NULL view" in closed

