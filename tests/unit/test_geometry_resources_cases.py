"""Cases whose geometry shader reads buffer SRVs (examples/cases/gs_srv_triangles.json): the CPU
reference's Stream Output against values derived by hand (the case's description), the root
signature's visibility (rules 16.9) and the registers a case must bind."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpuia.errors import InvalidDescError
from gpuia.harness.case import load_case
from gpuia.harness.run import run_cpu

CASE = Path(__file__).resolve().parents[2] / "examples" / "cases" / "gs_srv_triangles.json"
# corner k of point p: the point plus Offsets[3p + k] (Offsets[j] = (j, -j, j / 2, 0)), Raw's
# word 3p + k (100..103, then 0 past the 4-word view), Ids[p] (7, 9)
EXPECTED = [[1, 2, 0, 1, 100, 7], [2, 1, 0.5, 1, 101, 7], [3, 0, 1, 1, 102, 7],
            [13, 17, 1.5, 1, 103, 9], [14, 16, 2, 1, 0, 9], [15, 15, 2.5, 1, 0, 9]]


def _doc() -> dict:
    return json.loads(CASE.read_text())


def _records(data: bytes) -> list:
    words = np.frombuffer(data, np.uint32).reshape(-1, 6)
    return [w[:4].view(np.float32).tolist() + w[4:].tolist() for w in words]


@pytest.mark.parametrize("root_signature", [True, False])  # given, implied
def test_the_reference_streams_out_the_hand_derived_triangles(root_signature):
    doc = _doc()
    if not root_signature:
        del doc["root_signature"]
    run = run_cpu(load_case(doc))
    assert _records(run.so.buffers[0]) == EXPECTED
    assert run.so.statistics == {"NumPrimitivesWritten": 2, "PrimitivesStorageNeeded": 2}


def test_a_range_visible_to_the_vertex_stage_only_is_refused():
    doc = _doc()
    doc["root_signature"] = doc["root_signature"].replace(
        "SRV(t1, visibility=SHADER_VISIBILITY_GEOMETRY)",
        "SRV(t1, visibility=SHADER_VISIBILITY_VERTEX)")
    with pytest.raises(InvalidDescError, match=r"Raw \(register t1, space0\).*visible to the "
                                               r"geometry stage.*root parameter 1 .*visibility "
                                               r"vertex\) \(rules 16\.9\)"):
        load_case(doc)


def test_a_register_the_geometry_shader_reads_must_be_bound():
    doc = _doc()
    doc["shader_resources"] = doc["shader_resources"][:2]
    with pytest.raises(InvalidDescError, match=r"geometry shader reads Ids \(register t3, "
                                               r"space1\)"):
        load_case(doc)


def test_one_register_read_as_two_kinds_is_refused():
    doc = _doc()
    doc["vertex_shader"] = {"hlsl": (
        "ByteAddressBuffer W : register(t0);\n"
        "struct V { float4 p : P; };\n"
        "V main(float4 p : P) { V o; o.p = p + asfloat(W.Load(0)); return o; }\n")}
    del doc["root_signature"]
    with pytest.raises(InvalidDescError, match=r"vertex shader's W is the same register"):
        load_case(doc)


def test_gpuia_shader_lists_the_geometry_shaders_resources():
    """Offsets is one float4 (16 bytes in D3D's structured layout); the buffer SRVs are bound,
    a texture the geometry shader declares and does not read is not listed."""
    from gpuia.harness.shader_info import describe_hlsl

    text = _doc()["geometry_shader"]["hlsl"].replace(
        "ByteAddressBuffer Raw", "Texture2D<float4> T : register(t5);\nByteAddressBuffer Raw")
    doc = describe_hlsl("g.hlsl", text, "main", None)
    rows = {r["name"]: (r["register"], r["space"], r["type"], r["size"], r["bound"])
            for r in doc["resources"]}
    assert doc["stage"] == "geometry"
    assert rows == {"Offsets": ("t0", 0, "StructuredBuffer<float4>", 16, True),
                    "Raw": ("t1", 0, "ByteAddressBuffer", None, True),
                    "Ids": ("t3", 1, "Buffer<uint>", None, True)}


def test_both_shaders_read_one_view():
    """The vertex shader moves vertex i by Offsets[i] (point 1 to (11, 19, 0.5, 1)); the
    geometry shader reads the same view: point 1's corners are (11, 19, 0.5, 1) plus
    Offsets[3..5]."""
    doc = _doc()
    doc["vertex_shader"] = {"hlsl": (
        "StructuredBuffer<float4> Offsets : register(t0);\n"
        "struct V { float4 p : P; };\n"
        "V main(float4 p : P, uint i : SV_VertexID) { V o; o.p = p + Offsets[i]; return o; }\n")}
    doc["root_signature"] = doc["root_signature"].replace(
        "SRV(t0, visibility=SHADER_VISIBILITY_GEOMETRY)", "SRV(t0)")  # ALL: both stages
    run = run_cpu(load_case(doc))
    assert _records(run.so.buffers[0]) == EXPECTED[:3] + [
        [14, 16, 2, 1, 103, 9], [15, 15, 2.5, 1, 0, 9], [16, 14, 3, 1, 0, 9]]


def test_the_programs_storage_buffers_count_against_the_adapters_limit():
    """The program binds 3 storage buffers of its own: with a limit of 8, 5 SRVs fit (5 + 3 =
    8) and 6 do not (9), refused with the numbers; the views uniform is one past the uniforms
    already bound."""
    from types import SimpleNamespace

    from gpuia.errors import UnsupportedError
    from gpuia.gpu.context.srv_state import check_resource_limits
    from gpuia.gpu.gs.program import GS_STORAGE_BUFFERS
    from gpuia.hlsl.srv import ShaderResource

    caps = SimpleNamespace(max_storage_buffers_per_shader_stage=8,
                           max_uniform_buffers_per_shader_stage=3)
    srvs = [ShaderResource(f"B{i}", i, 0, "raw", 4, i) for i in range(6)]
    assert GS_STORAGE_BUFFERS == 3
    check_resource_limits(srvs[:5], 2, caps, "A", "geometry shader", GS_STORAGE_BUFFERS)
    with pytest.raises(UnsupportedError, match=r"the geometry shader binds 6 .*t0, t1, t2, t3, "
                                               r"t4, t5.* beside the 3 of gpuia's .*"
                                               r"max-storage-buffers-per-shader-stage 8"):
        check_resource_limits(srvs, 2, caps, "A", "geometry shader", GS_STORAGE_BUFFERS)
    with pytest.raises(UnsupportedError, match=r"beside the 3 the pass binds.*"
                                               r"max-uniform-buffers-per-shader-stage 3"):
        check_resource_limits(srvs[:1], 3, caps, "A", "geometry shader", GS_STORAGE_BUFFERS)


TEXTURE_CASE = CASE.with_name("gs_texture_points.json")
# per point: POS, COL (Load + point SampleLevel), OOB (Load one texel on), DIM (the case's
# description derives them)
TEXTURE_EXPECTED = [[1, 2, 0, 1, 6, 8, 0, 2, 3, 4, 0, 1, 2, 2],
                    [10, 20, 0, 1, 8, 10, 0, 2, 0, 0, 0, 0, 2, 2]]


def _texture_doc() -> dict:
    return json.loads(TEXTURE_CASE.read_text())


def test_the_reference_reads_the_geometry_shaders_texture_and_static_sampler():
    run = run_cpu(load_case(_texture_doc()))
    words = np.frombuffer(run.so.buffers[0], np.uint32).reshape(-1, 14)
    assert [w[:12].view(np.float32).tolist() + w[12:].tolist() for w in words] == \
        TEXTURE_EXPECTED


def test_a_static_sampler_visible_to_the_vertex_stage_only_is_refused():
    doc = _texture_doc()
    doc["root_signature"] = doc["root_signature"].replace(
        "FILTER_MIN_MAG_MIP_POINT, visibility=SHADER_VISIBILITY_GEOMETRY",
        "FILTER_MIN_MAG_MIP_POINT, visibility=SHADER_VISIBILITY_VERTEX")
    with pytest.raises(InvalidDescError, match=r"S \(register s1, space0\).*geometry stage"):
        load_case(doc)


def test_a_sampler_the_geometry_shader_reads_must_be_given():
    doc = _texture_doc()
    doc["root_signature"] = doc["root_signature"].split(", StaticSampler")[0] + \
        ", DescriptorTable(Sampler(s1), visibility=SHADER_VISIBILITY_GEOMETRY)"
    with pytest.raises(InvalidDescError, match=r"the geometry shader samples with S \(register "
                                               r"s1\); the case binds no sampler there"):
        load_case(doc)
    doc["samplers"] = [{"register": 1, "filter": "MIN_MAG_MIP_POINT"}]
    run = run_cpu(load_case(doc))
    assert np.frombuffer(run.so.buffers[0], np.uint32).reshape(-1, 14)[:, 12:].tolist() == \
        [[2, 2], [2, 2]]


def test_each_stage_counts_its_own_textures_against_the_limits():
    """WebGPU's limits are per shader stage: 9 textures in the vertex shader and the same 9 in
    the geometry shader are 9 of the guaranteed 16 sampled textures each, not 18 of one."""
    from gpuia.gpu import PipelineState
    from gpuia.hlsl import compile_geometry_shader, compile_shader

    decl = "".join(f"Texture2D<float4> T{i} : register(t{i});\n" for i in range(9))
    reads = "".join(f" + T{i}.Load(int3(0, 0, 0))" for i in range(9))
    vs = compile_shader(decl + "struct V { float4 p : P; };\n"
                               "V main(float4 p : P) { V o; o.p = p" + reads + "; return o; }\n")
    gs = compile_geometry_shader(
        decl + "struct V { float4 p : P; };\n[maxvertexcount(1)] void main(point V v[1], "
               "inout PointStream<V> s) { V o; o.p = v[0].p" + reads + "; s.Append(o); }\n")
    rs = ("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | ALLOW_STREAM_OUTPUT), "
          "DescriptorTable(SRV(t0, numDescriptors=9))")
    pso = PipelineState([{"SemanticName": "P", "Format": "R32G32B32A32_FLOAT"}],
                        vertex_shader=vs, geometry_shader=gs, root_signature=rs)
    assert len(pso.textures) == 9 and len(gs.textures) == 9
