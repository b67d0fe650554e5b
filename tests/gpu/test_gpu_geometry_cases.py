"""Geometry shader cases drawn on the GPU (gpuia.gpu.context.geometry) against the CPU reference,
bit for bit: every SO buffer byte (bytes past the writes included), every BufferFilledSize and
each stream's statistics (``compare_so``).

The cases are the native oracle's scenarios (tests/native/test_gs_reference_vs_native.py, where
the CPU reference is shown equal to lavapipe's own geometry shader and transform feedback, and
each scenario's outcome is derived by hand), and cases for what the scenarios do not reach:
every input primitive type with adjacency, strip cuts on LINESTRIP_ADJ and TRIANGLESTRIP_ADJ,
draw instances with GS instances, cbuffers, four streams, maxvertexcount at its limit, a draw
in several chunks. The GPU side assembles, expands and streams out with none of the reference's
code (docs/architecture.md), so agreement is evidence for both. Fails, never skips, without an
adapter.
"""

from __future__ import annotations

import json

import pytest

from gpuia.cli import main
from gpuia.gpu import Context
from gpuia.gpu.context import geometry
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare_so
from gpuia.harness.run import reference_ia, reference_so
from gpuia.harness.run_gpu import run_case_so_gpu
from native.test_gs_reference_vs_native import MAX_OVER_STREAMS, SCENARIOS, scenario_case

NATIVE = {**SCENARIOS, "max_vertex_count_over_streams": MAX_OVER_STREAMS}


def gpu_against_reference(device, doc: dict, context=None):
    """(the reference's SOResult, the GPU's) of a case document, after asserting they agree."""
    case = load_case(doc)
    ref = reference_so(case, reference_ia(case))
    got = run_case_so_gpu(case, device, context)
    assert compare_so(ref, got) == []
    assert got.streams == [{k: s[k] for k in ("NumPrimitivesWritten",
                                               "PrimitivesStorageNeeded")}
                           for s in ref.streams]
    return ref, got


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native_scenarios_match_the_reference(gpu_device, name):
    gpu_against_reference(gpu_device, scenario_case(NATIVE[name]))


TAGS = """
struct V { uint4 tag : TAG; };
struct O { uint4 a : A; uint4 b : B; };
[instance(@GSI)]
[maxvertexcount(1)]
void main(@PRIM V v[@K], uint pid : SV_PrimitiveID, uint gsid : SV_GSInstanceID,
          inout PointStream<O> s) {
    O o;
    o.a = uint4(v[0].tag.x, v[min(1, @K - 1)].tag.x, v[min(2, @K - 1)].tag.x,
                v[min(3, @K - 1)].tag.x);
    o.b = uint4(v[min(4, @K - 1)].tag.x, v[@K - 1].tag.x, pid, gsid * 100 + v[0].tag.y);
    s.Append(o);
}
"""
PRIMS = {"POINTLIST": ("point", 1), "LINELIST": ("line", 2), "LINESTRIP": ("line", 2),
         "TRIANGLELIST": ("triangle", 3), "TRIANGLESTRIP": ("triangle", 3),
         "LINELIST_ADJ": ("lineadj", 4), "LINESTRIP_ADJ": ("lineadj", 4),
         "TRIANGLELIST_ADJ": ("triangleadj", 6), "TRIANGLESTRIP_ADJ": ("triangleadj", 6)}


def tags_case(topology: str, draws: list, vertices: int = 24, indices=None, gs_instances=1,
              size: int = 4096, filled: int = 0) -> dict:
    """Every input vertex's tag (10 + vertex), SV_PrimitiveID, SV_GSInstanceID and
    SV_InstanceID of each invocation, one 32-byte point each, into one buffer."""
    prim, k = PRIMS[topology]
    gs = TAGS.replace("@PRIM", prim).replace("@GSI", str(gs_instances)).replace("@K", str(k))
    doc = scenario_case(SCENARIOS["point_to_quad_strip"])  # its layout, vertex shader, tags
    doc["vertex_buffers"][0]["data"]["values"] = [[10 + i, 0, 0, 0] for i in range(vertices)]
    doc.update({"name": f"gs_tags_{topology.lower()}", "primitive_topology": topology,
                "draw": draws, "geometry_shader": {"hlsl": gs}})
    doc["stream_output"] = {
        "declaration": [{"SemanticName": "A", "ComponentCount": 4},
                        {"SemanticName": "B", "ComponentCount": 4}],
        "buffer_strides": [32], "rasterized_stream": "NO_RASTERIZED_STREAM",
        "targets": [{"slot": 0, "size": size, "filled_size": filled,
                     "data": {"hex": "ab" * size}}]}
    doc.pop("index_buffer", None)
    doc.pop("strip_cut_value", None)
    if indices is not None:
        doc["index_buffer"] = {"format": "R16_UINT",
                               "data": {"dtype": "uint16", "values": list(indices)}}
        doc["strip_cut_value"] = "0xFFFF"
    return doc


def drawn(count, instances=1, first=0):
    return {"DrawInstanced": {"VertexCountPerInstance": count, "InstanceCount": instances,
                              "StartVertexLocation": first, "StartInstanceLocation": 0}}


def indexed(count, instances=1, first=0, base=0):
    return {"DrawIndexedInstanced": {"IndexCountPerInstance": count,
                                     "InstanceCount": instances, "StartIndexLocation": first,
                                     "BaseVertexLocation": base, "StartInstanceLocation": 0}}


CUT = 0xFFFF
STRIPS = [0, 1, 2, 3, 4, 5, 6, CUT, 7, 8, 9, 10, 11, 12, 13, 14, CUT, CUT, 15, 16, 17, 18,
          19, 20, 21]


@pytest.mark.parametrize("topology", sorted(PRIMS))
def test_every_input_primitive_non_indexed_with_instances(gpu_device, topology):
    ref, _ = gpu_against_reference(gpu_device, tags_case(
        topology, [drawn(13, 2), drawn(7, 1, first=3)], gs_instances=2))
    assert ref.streams[0]["NumPrimitivesWritten"] > 0


@pytest.mark.parametrize("topology", sorted(t for t in PRIMS if "STRIP" in t))
def test_strips_with_cuts_indexed(gpu_device, topology):
    ref, _ = gpu_against_reference(gpu_device, tags_case(
        topology, [indexed(len(STRIPS), 2), indexed(9, 1, first=4, base=2)], indices=STRIPS,
        gs_instances=3))
    assert ref.streams[0]["NumPrimitivesWritten"] > 0


def test_overflow_and_append_across_draws(gpu_device):
    # 40 points of 32 bytes each fit 12 after the 224 bytes already filled: the rest overflow.
    ref, _ = gpu_against_reference(gpu_device, tags_case(
        "POINTLIST", [drawn(10), drawn(20, 2)], size=608, filled=224))
    assert ref.streams[0] == {"NumPrimitivesWritten": 12, "PrimitivesStorageNeeded": 50}


FOUR = """
cbuffer K : register(b3) { uint4 scale; };
struct V { uint4 tag : TAG; };
struct O { uint4 r : R; };
[maxvertexcount(8)]
void main(triangle V v[3], uint pid : SV_PrimitiveID, inout PointStream<O> s0,
          inout PointStream<O> s1, inout PointStream<O> s2, inout PointStream<O> s3) {
    O o;
    for (uint k = 0; k < 4; k++) {
        o.r = uint4(v[k % 3].tag.x * scale.x, pid, 0, k);
        if (k < pid % 4) s0.Append(o);
        o.r.z = 1; s1.Append(o);
        if (k == 1) { o.r.z = 2; s2.Append(o); o.r.z = 3; s3.Append(o); }
    }
}
"""


def test_four_streams_a_cbuffer_and_maxvertexcount(gpu_device):
    # pid % 4 + 6 appends per invocation over four streams, at most 8 taking effect (rules
    # 13.4): an invocation with pid % 4 == 3 loses its last stream-1 append. 10 triangles per
    # instance, 2 instances: stream 1 needs more than slot 1's 320 bytes hold (20 points of
    # 16 bytes), so it writes 20 and overflows; the other streams fit.
    doc = tags_case("TRIANGLESTRIP", [drawn(12, 2)])
    doc["geometry_shader"] = {"hlsl": FOUR}
    doc["constant_buffers"] = [{"slot": 3, "data": {"dtype": "uint32",
                                                    "values": [7, 0, 0, 0]}}]
    doc["stream_output"]["declaration"] = [
        {"Stream": s, "SemanticName": "R", "ComponentCount": 4, "OutputSlot": s}
        for s in range(4)]
    doc["stream_output"]["buffer_strides"] = [16] * 4
    doc["stream_output"]["targets"] = [{"slot": s, "size": size, "data": {"hex": "cd" * size}}
                                       for s, size in enumerate((4096, 320, 4096, 4096))]
    ref, _ = gpu_against_reference(gpu_device, doc)
    assert [s["NumPrimitivesWritten"] for s in ref.streams][1] == 20


def test_a_draw_in_many_chunks(gpu_device, monkeypatch):
    # Chunks of 5 invocations: primitives split between chunks, each chunk's vertex window at
    # an aligned offset, the expansion appending chunk after chunk as one draw would.
    monkeypatch.setattr(geometry, "CHUNK", 5)
    for topology in ("TRIANGLESTRIP_ADJ", "LINELIST", "POINTLIST"):
        ctx = Context(gpu_device)
        gpu_against_reference(gpu_device, tags_case(
            topology, [indexed(len(STRIPS), 2, base=1), drawn(11)], indices=STRIPS,
            gs_instances=3), ctx)
        assert ctx.stats()["draws"] == 2


TWO_POINT_STREAMS = """
struct V { uint4 tag : TAG; };
struct A { uint id : ID; };
[maxvertexcount(3)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout PointStream<A> s0,
          inout PointStream<A> s1) {
    A a; a.id = pid; s0.Append(a); a.id = 100 + pid; s1.Append(a); a.id = 200 + pid; s1.Append(a);
}
"""


def two_streams_case(sizes: tuple[int, int]) -> dict:
    """Three points through TWO_POINT_STREAMS, stream s into slot s of ``sizes[s]`` bytes
    (filled with 0xee)."""
    doc = tags_case("POINTLIST", [drawn(3)])
    doc["geometry_shader"] = {"hlsl": TWO_POINT_STREAMS}
    doc["stream_output"] = {
        "declaration": [{"Stream": s, "SemanticName": "ID", "ComponentCount": 1,
                         "OutputSlot": s} for s in range(2)],
        "buffer_strides": [4, 4], "rasterized_stream": "NO_RASTERIZED_STREAM",
        "targets": [{"slot": s, "size": size, "data": {"hex": "ee" * size}}
                    for s, size in enumerate(sizes)]}
    return doc


def test_gpuia_check_compares_each_stream(gpu_device, tmp_path, capsys):
    # Three points: stream 0 gets 1 point each (3), stream 1 two each (6 needed), of which its
    # 16-byte slot holds 4 (rules 9.7, 13.8). The check's stream output line says so and
    # passes; the raster line is not applicable (it checks the Input Assembler's primitives).
    doc = two_streams_case((16, 16))
    path = tmp_path / "gs.json"
    path.write_text(json.dumps(doc))
    assert main(["check", str(path), "--raster"]) == 0
    out = capsys.readouterr().out
    assert "stream output: OK: NumPrimitivesWritten 3, PrimitivesStorageNeeded 3, " \
           "stream 1: 4 written, 6 needed" in out
    assert "raster: not applicable" in out


def test_target_sizes_that_are_no_word_multiple(gpu_device):
    # SizeInBytes 10 and 14 hold 2 and 3 whole 4-byte points (rules 9.7): stream 0 writes 2 of
    # its 3, stream 1 3 of its 6; the bytes past them keep the targets' fill.
    ref, got = gpu_against_reference(gpu_device, two_streams_case((10, 14)))
    assert [s["NumPrimitivesWritten"] for s in ref.streams[:2]] == [2, 3]
    assert got.filled_size == {0: 8, 1: 12}
