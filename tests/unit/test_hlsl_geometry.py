"""HLSL geometry shaders (gpuia.hlsl.geometry): the declaration read from Slang's HLSL, the
records, the refusals with their rule, and the CPU reference's regions against hand-derived
values (tests/hlsl_geometry_cases.py; the GPU runs them in tests/gpu/test_hlsl_geometry_gpu.py)."""

from __future__ import annotations

import numpy as np
import pytest

import hlsl_geometry_cases as cases
from gpuia.errors import InvalidDescError
from gpuia.hlsl import compile_geometry_shader
from gpuia.hlsl.geometry_cpu import cpu_geometry_shader
from gpuia.wgsl.blocks import GS_PARAMS

_INPUTS = {"point": 1, "line": 2, "triangle": 3, "lineadj": 4, "triangleadj": 6}


def _gs(primitive="triangle", attrs="[maxvertexcount(3)]", streams="inout TriangleStream<O> s",
        body="O o; o.p = v[0].p; s.Append(o);", extra=""):
    n = _INPUTS.get(primitive, 3)
    return f"""
struct V {{ float4 p : SV_Position; float2 uv : TEXCOORD3; }};
struct O {{ float4 p : SV_Position; uint id : ID; }};
{extra}
{attrs}
void main({primitive} V v[{n}], {streams}) {{ {body} }}
"""


@pytest.mark.parametrize("primitive", sorted(_INPUTS))
def test_each_input_primitive_is_read_with_its_vertices(primitive):
    shader = compile_geometry_shader(_gs(primitive))
    d = shader.declaration
    assert (d.input_primitive, d.input.vertices) == (primitive, _INPUTS[primitive])
    assert (d.max_vertex_count, d.instance_count, d.streams) == (3, 1, ("TriangleStream",))
    # the input record: SV_Position's 4 words, then TEXCOORD3's 2
    assert [(m.key, m.kind, m.components, m.word) for m in shader.input_record] == [
        ("SV_POSITION0", "float", 4, 0), ("TEXCOORD3", "float", 2, 4)]
    assert [(m.key, m.kind, m.components, m.word) for m in shader.stream_record(0)] == [
        ("SV_POSITION0", "float", 4, 0), ("ID0", "uint", 1, 4)]
    # N = 3, R = 5: 1 + 3 * 6 words per region
    assert (shader.vertex_words, shader.record_words, shader.region_words) == (6, 5, 19)
    assert not shader.uses_primitive_id and not shader.uses_instance_id


def test_maxvertexcount_instance_and_system_values():
    shader = compile_geometry_shader(_gs(
        attrs="[instance(7)] [maxvertexcount(12)]",
        streams="uint pid : SV_PrimitiveID, inout LineStream<O> s, uint i : SV_GSInstanceID"))
    d = shader.declaration
    assert (d.max_vertex_count, d.instance_count, d.streams) == (12, 7, ("LineStream",))
    assert shader.uses_primitive_id and shader.uses_instance_id
    assert [p.role for p in shader.parameters] == ["input", "primitive_id", "stream",
                                                   "instance_id"]


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_one_to_four_point_streams(count):
    streams = ", ".join(f"inout PointStream<O> s{k}" for k in range(count))
    shader = compile_geometry_shader(_gs(streams=streams, body="O o; o.p = v[0].p; s0.Append(o);"))
    assert shader.declaration.streams == ("PointStream",) * count
    assert shader.declaration.output_scalars == (5,) * count


def test_the_program_binds_gpuias_blocks():
    shader = compile_geometry_shader(cases.cbuffer().source)
    assert GS_PARAMS.wgsl() in shader.wgsl
    for binding, name in enumerate(("gpuia_gs_vertices", "gpuia_gs_prims", "gpuia_gs_out"), 1):
        assert f"@group(0) @binding({binding}) var<storage" in shader.wgsl and name in shader.wgsl
    assert "@group(1) @binding(2)" in shader.wgsl  # cbuffer C : register(b2)
    assert shader.constant_buffer_slots == (2,)
    assert "@compute" in shader.wgsl and f"fn {shader.wgsl_entry_point}(" in shader.wgsl


@pytest.mark.parametrize("source, says", [
    (_gs(attrs=""), r"missing \[maxvertexcount\] attribute"),  # Slang's E38046, at the line
    (_gs(attrs="[maxvertexcount(2000)]"), r"rules 13\.4"),
    (_gs(attrs="[maxvertexcount(300)]"), r"1500, over 1024 \(rules 13\.4\)"),
    (_gs(attrs="[maxvertexcount(3)] [instance(33)]"), r"rules 13\.3"),
    (_gs(streams="inout TriangleStream<O> s, inout PointStream<O> t"), r"rules 13\.7"),
    (_gs(streams="triangle V w[3], inout TriangleStream<O> s"), r"exactly one input primitive"),
    (_gs(streams="uint k : FOO, inout TriangleStream<O> s"), r"parameters are its input"),
    (_gs(extra="RWStructuredBuffer<float4> u;", body="O o; o.p = u[0]; s.Append(o);"),
     r"resource u.*UAVs in a vertex shader only"),
    (_gs(body="O o; double d = v[0].p.x; o.p = float4(d * d, 0, 0, 1); s.Append(o);"),
     r"64-bit"),
    (_gs(body="O o; o.p = v[0].p; s.Append(o); __intrinsic_asm \"x\";"), r"__intrinsic_asm"),
])
def test_refusals_name_the_rule(source, says):
    with pytest.raises(InvalidDescError, match=says):
        compile_geometry_shader(source)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_the_cpu_reference_gives_the_hand_derived_regions(name):
    case = cases.CASES[name]()
    shader = compile_geometry_shader(case.source, case.entry_point)
    got = cpu_geometry_shader(shader).run(case.vertices, case.prims, None,
                                          case.constant_buffers)
    assert got.dtype == np.uint32 and got.shape == case.expected.shape
    np.testing.assert_array_equal(got, case.expected)


def test_a_cbuffer_the_shader_reads_must_be_bound():
    case = cases.cbuffer()
    cpu = cpu_geometry_shader(compile_geometry_shader(case.source))
    with pytest.raises(InvalidDescError, match="b2"):
        cpu.run(case.vertices, case.prims)


def test_many_invocations_run_over_the_cores_in_order():
    # the quad case over 5000 points at x = 0..4999: every region keeps 4 Appends, and
    # corner k of point i is (i + (k & 1), k >> 1)
    case = cases.quad()
    n = 5000
    verts = np.zeros((n, 4), np.float32)
    verts[:, 0], verts[:, 3] = np.arange(n), 1
    prims = np.stack([np.arange(n), np.arange(n)], 1).astype(np.uint32)
    got = cpu_geometry_shader(compile_geometry_shader(case.source)).run(
        verts.view(np.uint32), prims)
    assert got.shape == (n, 21) and (got[:, 0] == 4).all()
    for k in range(4):  # entry k: header at 1 + 5k, x at 2 + 5k, y at 3 + 5k
        assert (got[:, 1 + 5 * k] == (cases.NEW if k == 0 else 0)).all()
        np.testing.assert_array_equal(got[:, 2 + 5 * k].view(np.float32), np.arange(n) + (k & 1))
        np.testing.assert_array_equal(got[:, 3 + 5 * k].view(np.float32), np.full(n, k >> 1))


def test_a_compile_is_read_back_from_the_disk_cache(tmp_path, monkeypatch):
    from gpuia.hlsl import geometry

    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path))
    source = cases.instances().source
    geometry._MEMORY.clear()
    first = compile_geometry_shader(source)
    assert len(list((tmp_path / "hlsl").glob("*.json"))) == 1
    geometry._MEMORY.clear()
    again = compile_geometry_shader(source)
    assert again == first and again is not first


def test_what_d3d_leaves_undefined_is_refused_naming_the_geometry_shader():
    # int division by zero: D3D leaves it undefined (rules 12.2), so no reference value exists
    source = """
struct V { int a : A; };
struct O { int x : X; };
[maxvertexcount(1)]
void main(point V v[1], inout PointStream<O> s) { O o; o.x = 7 / v[0].a; s.Append(o); }
"""
    cpu = cpu_geometry_shader(compile_geometry_shader(source))
    with pytest.raises(InvalidDescError, match="^geometry shader.*CPU reference.*undefined"):
        cpu.run(np.zeros((1, 1), np.uint32), np.zeros((1, 2), np.uint32))


def test_the_cache_key_covers_the_geometry_shader_files(monkeypatch):
    from gpuia.hlsl import cache
    from gpuia.util import resources

    monkeypatch.setattr(cache, "_FRONTEND", None)
    before = cache.frontend_hash()
    real = resources._read

    for name in ("gs_prelude.hlsl", "gs_entry.hlsl", "gs_entry_cpu.hlsl"):
        def edited(n: str, name=name) -> str:
            return real(n) + ("\n// edited" if n == name else "")

        monkeypatch.setattr(resources, "_read", edited)
        monkeypatch.setattr(cache, "_FRONTEND", None)
        assert cache.frontend_hash() != before, name


def test_an_included_file_declares_the_records(tmp_path):
    (tmp_path / "records.hlsli").write_text(
        "struct V { uint a : A; };\nstruct O { uint x : X; };\n")
    source = """#include "records.hlsli"
[maxvertexcount(1)]
void main(point V v[1], inout PointStream<O> s) { O o; o.x = v[0].a + 1; s.Append(o); }
"""
    shader = compile_geometry_shader(source, include_dirs=[tmp_path])
    assert str(tmp_path / "records.hlsli") in shader.dependencies
    got = cpu_geometry_shader(shader).run(np.array([[41]], np.uint32), np.zeros((1, 2), np.uint32))
    np.testing.assert_array_equal(got, [[1, cases.NEW, 42]])  # 41 + 1, the first Append


@pytest.mark.parametrize("source, field", [
    (_gs(attrs="[maxvertexcount(2000)]"), "maxvertexcount=2000"),
    (_gs(streams="triangle V w[3], inout TriangleStream<O> s"), "parameter w='triangle'"),
    (_gs(streams="uint k : FOO, inout TriangleStream<O> s"), "parameter k='FOO'"),
])
def test_refusals_of_the_declaration_are_at_the_users_line(source, field):
    # _gs's entry is declared on line 6 of its text (the text starts with a line break)
    with pytest.raises(InvalidDescError) as e:
        compile_geometry_shader(source)
    assert str(e.value).startswith(f"geometry shader: geometry_shader.hlsl:6: {field}: ")


def test_a_vector_input_is_one_member():
    shader = compile_geometry_shader(cases.vector_input().source, "GSMain")
    assert [(m.key, m.components) for m in shader.input_record] == [("POSITION0", 4)]


def test_a_file_of_two_geometry_shaders_with_their_own_records():
    # An effect file keeps several geometry shaders; each compiles with its own stream record
    # whatever the other appends (a comment naming a stream of an undeclared type is ignored).
    source = """
struct A { float4 p : POSITION; };
struct B { float4 q : TEXCOORD; };
// PointStream<Nothing> in a comment
[maxvertexcount(1)] void gs_a(point A v[1], inout PointStream<A> s) { s.Append(v[0]); }
[maxvertexcount(1)] void gs_b(point A v[1], inout PointStream<B> s) {
    B b; b.q = v[0].p; s.Append(b);
}
"""
    for entry, record in (("gs_a", ["POSITION0"]), ("gs_b", ["TEXCOORD0"])):
        shader = compile_geometry_shader(source, entry)
        assert [m.key for m in shader.stream_record(0)] == record
        cpu_geometry_shader(shader)  # the CPU build compiles too
