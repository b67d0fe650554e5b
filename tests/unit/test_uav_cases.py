"""UAVs in case files and in the front end (docs/case-format.md ``shader_resources``, kinds
``rw_structured`` and ``rw_raw``; docs/resources.md "Unordered access views"): what a case
binds, and each refusal naming the entry, register or rule. No GPU."""

from __future__ import annotations

import pytest

from gpuia.errors import CaseError, InvalidDescError
from gpuia.harness.case import load_case
from gpuia.hlsl import compile_shader

HLSL = r"""
RWStructuredBuffer<float4> Out : register(u1);
StructuredBuffer<float4> In : register(t1);
float4 main(uint id : SV_VertexID) : SV_Position { Out[id] = In[id] * 2; return In[id]; }
"""
DATA = {"dtype": "float32", "values": [1.0] * 16}  # four float4 elements


def _doc(entries: list, hlsl: str = HLSL) -> dict:
    return {"gpuia_case": 1, "name": "u", "input_layout": [], "vertex_buffers": [],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 1}},
            "vertex_shader": {"hlsl": hlsl}, "shader_resources": entries}


def test_u_and_t_registers_of_one_number_are_apart():
    """u1 and t1 are two registers: each entry binds its own (keys (1, 0, "u") and (1, 0))."""
    case = load_case(_doc([
        {"register": 1, "kind": "structured", "data": DATA},
        {"register": 1, "kind": "rw_structured", "first_element": 1, "num_elements": 2,
         "data": DATA}]))
    uav, srv = case.shader_resources[(1, 0, "u")], case.shader_resources[(1, 0)]
    assert (uav.writable, uav.kind, uav.stride, uav.first_element, uav.num_elements) == \
        (True, "structured", 16, 1, 2)
    assert not srv.writable and srv.num_elements == 4
    assert uav.binding == 992 and srv.binding == 16 + 1  # gpuia.d3d.uav_bindings, srv_bindings


@pytest.mark.parametrize("entries, error, words", [
    ([{"register": 1, "kind": "structured", "data": DATA}], InvalidDescError,
     "register u1); the case binds no UAV there"),
    ([{"register": 1, "kind": "structured", "data": DATA},
      {"register": 1, "kind": "rw_raw", "data": DATA}], InvalidDescError,
     "is a rw_structured buffer"),
    ([{"register": 1, "kind": "structured", "data": DATA},
      {"register": 1, "kind": "rw_structured", "data": DATA},
      {"register": 1, "kind": "rw_structured", "data": DATA}], CaseError,
     "register u1 is given twice"),
    ([{"register": 1, "kind": "structured", "data": DATA},
      {"register": 1, "kind": "rw_structured", "first_element": 3, "num_elements": 2,
       "data": DATA}], InvalidDescError, "reaches past the data"),
    ([{"register": 1, "kind": "structured", "data": DATA},
      {"register": 1, "kind": "rw_structured", "structure_byte_stride": 8, "data": DATA}],
     InvalidDescError, "element is 16 bytes"),
])
def test_case_refusals(entries, error, words):
    with pytest.raises(error) as e:
        load_case(_doc(entries))
    assert words in str(e.value), str(e.value)


@pytest.mark.parametrize("hlsl, words", [
    # an atomic's result depends on how many times a vertex runs: not comparable
    ("RWByteAddressBuffer R : register(u0);\nfloat4 main(uint id : SV_VertexID) : SV_Position "
     "{ uint o; R.InterlockedAdd(0, 1, o); return o; }", "resource R"),
    ("RWStructuredBuffer<uint> R : register(u0);\nfloat4 main(uint id : SV_VertexID) : "
     "SV_Position { InterlockedMax(R[0], id); return 0; }", "resource R"),
])
def test_atomics_are_refused_as_not_comparable(hlsl, words):
    with pytest.raises(InvalidDescError) as e:
        compile_shader(hlsl)
    assert words in str(e.value) and "atomic" in str(e.value) and \
        "how many times the GPU runs each vertex" in str(e.value), str(e.value)


@pytest.mark.parametrize("decl, words", [
    ("RWStructuredBuffer<float4> R : register(u64);", "u0..u63"),
    ("RWStructuredBuffer<float4> R : register(u0, space7);", "spaces 0..6"),
])
def test_registers_past_the_limits_are_refused(decl, words):
    with pytest.raises(InvalidDescError) as e:
        compile_shader(decl + "\nfloat4 main(uint id : SV_VertexID) : SV_Position "
                              "{ R[id] = 1; return 0; }")
    assert words in str(e.value), str(e.value)


def test_more_than_eight_uavs_are_refused():
    decls = "".join(f"RWStructuredBuffer<float4> R{k} : register(u{k});\n" for k in range(9))
    body = " ".join(f"R{k}[id] = 1;" for k in range(9))
    with pytest.raises(InvalidDescError) as e:
        compile_shader(decls + f"float4 main(uint id : SV_VertexID) : SV_Position {{ {body} "
                               f"return 0; }}")
    assert "at most 8 UAVs" in str(e.value), str(e.value)


def test_writes_are_guarded_in_the_wgsl():
    """Every write goes through the view's bounds check (gpuia.hlsl.uavs): a member write too."""
    s = compile_shader("struct P { float4 a; float4 b; };\n"
                       "RWStructuredBuffer<P> R : register(u2);\n"
                       "float4 main(uint id : SV_VertexID) : SV_Position "
                       "{ R[id].b = 1; R[id + 1].a = 2; return 0; }")
    assert "@binding(992) @group(3) var<storage, read_write> R" in s.wgsl
    assert s.wgsl.count("< gpuia_srv_views[0].y) {") == 2, s.wgsl
    assert "].b_0 = " in s.wgsl and "].a_0 = " in s.wgsl


@pytest.mark.parametrize("rs, words", [
    # a root signature with the SRV only leaves the UAV uncovered (rules 16.9)
    ("SRV(t1)", "no UAV range of the root signature"),
    # a UAV range of other registers: the closest range is named
    ("SRV(t1), DescriptorTable(UAV(u2, numDescriptors=4))",
     "closest is root parameter 1, range 0 (table, u2..u5"),
    # a UAV range holding u1 that the vertex stage does not see
    ("SRV(t1), UAV(u1, visibility=SHADER_VISIBILITY_PIXEL)", "visible to the vertex stage"),
])
def test_root_signatures_see_u_registers(rs, words):
    doc = _doc([{"register": 1, "kind": "structured", "data": DATA},
                {"register": 1, "kind": "rw_structured", "data": DATA}])
    doc["root_signature"] = rs
    with pytest.raises(InvalidDescError) as e:
        load_case(doc)
    assert words in str(e.value) and "register u1" in str(e.value), str(e.value)


@pytest.mark.parametrize("rs, held_by", [
    ("UAV(u1), SRV(t1)", "root descriptor"),
    ("DescriptorTable(SRV(t0, numDescriptors=2), UAV(u0, numDescriptors=2))", "table"),
])
def test_root_signature_holding_the_uav(rs, held_by):
    doc = _doc([{"register": 1, "kind": "structured", "data": DATA},
                {"register": 1, "kind": "rw_structured", "data": DATA}])
    doc["root_signature"] = rs
    case = load_case(doc)
    [(binding, held)] = [(b, r) for _, b, r in case.root_signature.covered
                         if b.register_class == "u"]
    assert (binding.register, binding.binding, held.type, held.kind) == (1, 992, "uav", held_by)


def _run_case(gs, draws):
    from types import SimpleNamespace

    return SimpleNamespace(gs=gs, draws=draws)


class _Ref:
    def __init__(self, n, primitives, adjacency=None):
        import numpy as np

        self.n = n
        self.primitives = np.array(primitives, np.int64).reshape(-1, 3)
        self.adjacency = None if adjacency is None else np.array(adjacency, np.int64)

    def __len__(self):
        return self.n


CPU = ({"u0": b"\1\0\0\0"}, "")


def test_so_run_reasons():
    """The Stream Output run shades the vertices of complete primitives, and with a geometry
    shader their adjacent vertices (rules 4.11): a triangle list of 4 vertices leaves one out;
    a triangle list with adjacency (6 vertices: 0, 2, 4 the triangle, 1, 3, 5 adjacent) leaves
    three out without a geometry shader and none with one."""
    from gpuia.harness.case_uavs import run_verdict

    same = {"u0": b"\1\0\0\0"}
    problems, said = run_verdict(_run_case(None, []), _Ref(3, [[0, 1, 2]]), CPU, same,
                                 "stream output")
    assert (problems, said) == ([], "; UAVs u0: bit for bit")
    _, said = run_verdict(_run_case(None, []), _Ref(4, [[0, 1, 2]]), CPU, same, "stream output")
    assert "not compared: 1 of the 4 vertices the Input Assembler delivered are no vertex of " \
           "a complete primitive: the Stream Output run" in said
    adjacent = _Ref(6, [[0, 2, 4]], [[1, 3, 5]])
    _, said = run_verdict(_run_case(None, []), adjacent, CPU, same, "stream output")
    assert "3 of the 6 vertices" in said and "an adjacent vertex is none" in said
    _, said = run_verdict(_run_case("gs", []), adjacent, CPU, same, "stream output")
    assert said == "; UAVs u0: bit for bit"
    # a difference is reported; a count-dependent reason wins over the run's own
    problems, said = run_verdict(_run_case(None, []), _Ref(3, [[0, 1, 2]]), CPU,
                                 {"u0": b"\2\0\0\0"}, "stream output")
    assert said == "; UAVs u0: DIFFERENT" and problems[0].startswith("UAV u0: 1 of 1 words")
    _, said = run_verdict(_run_case(None, []), _Ref(4, [[0, 1, 2]]), (CPU[0], "not compared: X"),
                          same, "stream output")
    assert said == "; UAVs u0: not compared: X"
