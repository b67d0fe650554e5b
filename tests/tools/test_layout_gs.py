"""``gpuia layout FILE --shader vs.hlsl --gs gs.hlsl[:entry]``: a geometry shader after the
vertex shader. Its inputs are linked with the vertex shader's outputs (rules 13.9), its input
primitive with ``--gs-topology``'s class (rules 13.2), and every SO declaration is resolved
against its streams' records, each stream on its own (rules 8.3, 8.9, 13.7). Expected findings
are the rules' own, written here. Compiles HLSL with Slang; needs no adapter."""

from __future__ import annotations

import json

from helpers import gpuia_cli, gpuia_in_process

VS = """
struct VSOut { float4 pos : POSITION; uint id : ID; };
VSOut main(float4 p : POSITION, uint vid : SV_VertexID) {
    VSOut o; o.pos = p; o.id = vid; return o;
}
"""

# Two point streams: stream 0 carries POSITION and ID, stream 1 only ID (rules 13.7, 8.13).
GS = """
struct V { float4 pos : POSITION; };
struct A { float4 pos : POSITION; uint id : ID; };
struct B { uint id : ID; };
[maxvertexcount(2)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout PointStream<A> s0,
          inout PointStream<B> s1) {
    A a; a.pos = v[0].pos; a.id = pid; s0.Append(a);
    B b; b.id = 100 + pid; s1.Append(b);
}
"""

# reads TEXCOORD0, which the vertex shader does not output
GS_UV = """
struct T { float4 uv : TEXCOORD0; };
[maxvertexcount(1)]
void reads_uv(point T v[1], inout PointStream<T> s) { s.Append(v[0]); }
"""


def entry(stream, semantic, slot, count=1, start=0) -> dict:
    return {"stream": stream, "semantic": semantic, "start_component": start,
            "component_count": count, "output_slot": slot}


# stream 0: POSITION (16 bytes) and ID (4) into slot 0; stream 1: its ID into slot 1
TWO_STREAMS = [entry(0, "POSITION", 0, 4), entry(0, "ID", 0), entry(1, "ID", 1)]

CPP = """
#include <d3d12.h>
static const D3D12_SO_DECLARATION_ENTRY kTwo[] = {
    { 0, "POSITION", 0, 0, 4, 0 }, { 0, "ID", 0, 0, 1, 0 }, { 1, "ID", 0, 0, 1, 1 },
};
static const UINT kStrides[] = { 20, 4 };
void f(D3D12_STREAM_OUTPUT_DESC *d) {
    d->pSODeclaration = kTwo; d->NumEntries = 3; d->pBufferStrides = kStrides; d->NumStrides = 2;
}
"""


def write(tmp_path, entries, strides=(20, 4)):
    (tmp_path / "vs.hlsl").write_text(VS)
    (tmp_path / "gs.hlsl").write_text(GS)
    (tmp_path / "gs_uv.hlsl").write_text(GS_UV)
    (tmp_path / "decls.json").write_text(json.dumps(
        {"decls": [{"name": "so", "entries": entries, "buffer_strides": list(strides)}]}))
    return tmp_path / "decls.json"


def layout_json(tmp_path, *options):
    """``gpuia layout OPTIONS --no-gpu --json`` in this process (its report is what is tested)
    and its findings as (code, where, message)."""
    proc = gpuia_in_process("layout", *options, "--no-gpu", "--json")
    doc = json.loads(proc.stdout)
    return proc, doc, [(f["code"], f["where"], f["message"])
                       for a in doc["arrays"] for f in a["findings"]]


def with_gs(tmp_path, gs="gs.hlsl"):
    return ["--shader", tmp_path / "vs.hlsl", "--gs", tmp_path / gs]


def test_entries_of_two_streams_against_two_point_streams_are_legal(tmp_path):
    decls = write(tmp_path, TWO_STREAMS)
    proc, doc, findings = layout_json(tmp_path, decls, *with_gs(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert findings == []
    so = doc["arrays"][0]
    assert so["slots"] == [{"slot": 0, "declared_size": 20, "stride": 20, "stride_from": "source"},
                           {"slot": 1, "declared_size": 4, "stride": 4, "stride_from": "source"}]
    gs = doc["geometry_shader"]
    assert (gs["entry_point"], gs["input_primitive"], gs["topology"]) == ("main", "point", None)
    assert gs["inputs"] == [{"semantic": "POSITION0", "type": "vec4<f32>"}]
    assert gs["streams"] == [
        {"stream": 0, "type": "PointStream", "outputs": [
            {"semantic": "POSITION0", "type": "vec4<f32>"}, {"semantic": "ID0", "type": "u32"}]},
        {"stream": 1, "type": "PointStream", "outputs": [{"semantic": "ID0", "type": "u32"}]}]
    assert gs["linked_with"] == str(tmp_path / "vs.hlsl")


def test_cpp_declaration_text_names_the_streams(tmp_path):
    write(tmp_path, TWO_STREAMS)
    (tmp_path / "so.cpp").write_text(CPP)
    proc = gpuia_cli("layout", tmp_path / "so.cpp", *with_gs(tmp_path), "--no-gpu")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert f"geometry shader: {tmp_path / 'gs.hlsl'} (HLSL, entry main): point input" in out
    assert "  stream 0 (PointStream): POSITION0 (vec4<f32>), ID0 (u32)" in out
    assert "  stream 1 (PointStream): ID0 (u32)" in out
    assert "signature: each stream's output record of" in out
    assert "lint: 0 error(s), 0 warning(s)" in out


def test_without_gs_the_streams_warning_and_the_fold_stay(tmp_path):
    # No geometry shader: entry 2 is W010 and checked as stream 0, where its ID0 component 0
    # is entry 1's (rules 8.6): E002, as before --gs existed.
    decls = write(tmp_path, TWO_STREAMS)
    proc, _, findings = layout_json(tmp_path, decls, "--shader", tmp_path / "vs.hlsl")
    assert proc.returncode == 2
    assert findings == [
        ("W010", "SO entry 2 (ID)", "Stream 1: only a geometry shader writes streams 1-3; "
                                    "gpuia streams out a vertex shader, so this entry is "
                                    "checked as stream 0"),
        ("E002", "SO entry 2 (ID0)", "StartComponent=0: components 0..0 of ID0 overlap SO "
                                     "entry 1 (rules 8.6)")]


def test_stream_one_entry_naming_a_stream_zero_output_is_rules_8_3(tmp_path):
    decls = write(tmp_path, [entry(0, "ID", 0), entry(1, "POSITION", 1, 4)], strides=(4, 16))
    proc, _, findings = layout_json(tmp_path, decls, *with_gs(tmp_path))
    assert proc.returncode == 2
    assert findings == [("E002", "SO entry 1 (POSITION0)",
                         "SemanticName='POSITION': stream 1 of the geometry shader has no "
                         "output with semantic POSITION index 0 (outputs: ID0; rules 8.3)")]
    assert "E002 invalid-so: SO entry 1 (POSITION0)" in proc.stderr


def test_one_slot_fed_by_two_streams_is_rules_8_9(tmp_path):
    decls = write(tmp_path, [entry(0, "ID", 0), entry(1, "ID", 0)], strides=(8,))
    _, _, findings = layout_json(tmp_path, decls, *with_gs(tmp_path))
    assert findings == [("E002", "SO entry 1 (ID0)",
                         "OutputSlot=0: slot 0 takes stream 0 (SO entry 0 (ID0)): a buffer "
                         "takes one stream only (rules 8.9)")]


def test_overlap_within_stream_one_is_still_e002(tmp_path):
    # Both entries read component 0 of stream 1's ID0 (rules 8.6), in different slots.
    decls = write(tmp_path, [entry(1, "ID", 1), entry(1, "ID", 2)], strides=(0, 4, 4))
    _, _, findings = layout_json(tmp_path, decls, *with_gs(tmp_path))
    assert findings == [("E002", "SO entry 1 (ID0)",
                         "StartComponent=0: components 0..0 of ID0 overlap SO entry 0 "
                         "(rules 8.6)")]


def test_stream_past_the_shaders_streams_is_rules_13_7(tmp_path):
    decls = write(tmp_path, [entry(0, "ID", 0), entry(2, "ID", 1)], strides=(4, 4))
    _, _, findings = layout_json(tmp_path, decls, *with_gs(tmp_path))
    assert findings == [("E002", "SO entry 1 (ID0)",
                         "Stream=2: the geometry shader has 2 output streams (rules 13.7)")]


def test_gs_input_the_vertex_shader_lacks_is_rules_13_9(tmp_path):
    # The pipeline refuses the pair whatever array goes into it: the input layout (which
    # itself is fine: it feeds the vertex shader's POSITION) and the declaration both get E004.
    write(tmp_path, [])
    (tmp_path / "both.json").write_text(json.dumps({
        "layouts": [{"name": "vertices",
                     "elements": [{"semantic": "POSITION", "format": "R32G32B32A32_FLOAT"}]}],
        "decls": [{"name": "so", "entries": [entry(0, "TEXCOORD", 0, 4)]}]}))
    proc, _, findings = layout_json(tmp_path, tmp_path / "both.json",
                                    "--shader", tmp_path / "vs.hlsl",
                                    "--gs", f"{tmp_path / 'gs_uv.hlsl'}:reads_uv")
    assert proc.returncode == 2
    assert findings == [("E004", "geometry_shader",
                         "input='TEXCOORD0': the vertex shader has no output TEXCOORD0 "
                         "(outputs: POSITION0, ID0): every geometry shader input must be one "
                         "(rules 13.9)")] * 2
    assert proc.stderr.count("E004 gs-link: geometry_shader: input='TEXCOORD0'") == 2


def test_topology_class_is_rules_13_2(tmp_path):
    decls = write(tmp_path, TWO_STREAMS)
    proc, doc, findings = layout_json(tmp_path, decls, *with_gs(tmp_path),
                                      "--gs-topology", "POINTLIST")
    assert proc.returncode == 0 and findings == []
    assert doc["geometry_shader"]["topology"] == "POINTLIST"
    _, _, findings = layout_json(tmp_path, decls, *with_gs(tmp_path),
                                 "--gs-topology", "TRIANGLELIST")
    assert findings == [("E004", "geometry shader",
                         "input primitive='point': takes no TRIANGLELIST topology: D3D12 "
                         "refuses a geometry shader whose input primitive does not match the "
                         "topology's class (rules 13.2)")]


def test_gs_options_refused_alone_or_wrong(tmp_path):
    decls = write(tmp_path, TWO_STREAMS)
    for options, says in [(["--gs-topology", "POINTLIST"], "apply to a --gs shader"),
                          (["--gs", tmp_path / "no.hlsl"], "no.hlsl: no such file"),
                          ([*with_gs(tmp_path), "--gs-topology", "NOPE"], "--gs-topology NOPE")]:
        proc = gpuia_cli("layout", decls, "--no-gpu", *options)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.startswith("error: layout: ") and says in proc.stderr, proc.stderr


def test_two_streams_at_feature_level_10_0_are_rules_13_7(tmp_path):
    # 10_0 has one Stream Output stream and shader model 4 (rules 11.1): a shader of two streams
    # is refused there even when every entry names stream 0 (rules 13.7); at 11_0 it is fine.
    decls = write(tmp_path, [entry(0, "ID", 0)], strides=(4,))
    proc, _, findings = layout_json(tmp_path, decls, *with_gs(tmp_path),
                                    "--feature-level", "10_0")
    assert proc.returncode == 2
    assert [(code, where) for code, where, _ in findings] == [("E004", "geometry shader")]
    assert "rules 13.7, 11.1" in findings[0][2]
    _, _, findings = layout_json(tmp_path, decls, *with_gs(tmp_path), "--feature-level", "11_0")
    assert findings == []
