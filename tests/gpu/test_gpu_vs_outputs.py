"""A real vertex shader's outputs read back per invocation and compared on every check, without
Stream Output: the ``vs outputs`` line of ``gpuia check`` and the ``outputs`` of result documents.

Expected values are derived by hand (a shader whose arithmetic is exact in float32, over an
indexed line strip with a cut and two instances) or come from tests/hlsl_vertex_cases.py's numpy
derivations; a difference injected on one side (the CPU run's outputs, or the GPU's) must be
caught with no Stream Output in the case.
"""

from __future__ import annotations

import numpy as np
import pytest

import hlsl_vertex_cases as cases
from gpuia.harness import outputs_check, run
from gpuia.harness.case import encode_data, load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import reference_ia, run_case
from gpuia.harness.run_outputs import run_case_outputs_gpu

HLSL = """
struct VSOut { float4 pos : SV_Position; uint id : TEXCOORD0; float2 uv : TEXCOORD1; };
VSOut main(float2 p : POSITION, uint vid : SV_VertexID, uint iid : SV_InstanceID) {
    VSOut o;
    o.pos = float4(p.x * 2.0, p.y + 0.5, 0.0, 1.0);
    o.id = vid * 3 + iid * 100;
    o.uv = float2(p.y, -p.x);
    return o;
}
"""

WGSL = """
struct VSIn { POSITION: vec2<f32>, SV_VertexID: u32, SV_InstanceID: u32, }
struct VSOut { SV_Position: vec4<f32>, TEXCOORD0: u32, TEXCOORD1: vec2<f32>, }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = vec4<f32>(input.POSITION.x * 2.0, input.POSITION.y + 0.5, 0.0, 1.0);
  o.TEXCOORD0 = input.SV_VertexID * 3u + input.SV_InstanceID * 100u;
  o.TEXCOORD1 = vec2<f32>(input.POSITION.y, -input.POSITION.x);
  return o;
}
"""

POSITIONS = np.array([[1.0, 2.0], [0.25, -1.0], [3.0, 4.0]], np.float32)
INDICES = np.array([2, 0, 0xFFFF, 1, 2], np.uint16)  # a cut at position 2

# By hand: a line strip cut at position 2 delivers positions 0, 1, 3, 4 (index values 2, 0, 1,
# 2) of each instance; outputs pos = (2x, y + 0.5, 0, 1), id = vid * 3 + iid * 100,
# uv = (y, -x), every operation exact in float32.
VIDS = [2, 0, 1, 2]
EXPECTED_POS = np.array([[6.0, 4.5, 0, 1], [2.0, 2.5, 0, 1], [0.5, -0.5, 0, 1],
                         [6.0, 4.5, 0, 1]] * 2, np.float32)
EXPECTED_ID = np.array([[6], [0], [3], [6], [106], [100], [103], [106]], np.uint32)
EXPECTED_UV = np.array([[4.0, -3.0], [2.0, -1.0], [-1.0, -0.25], [4.0, -3.0]] * 2, np.float32)


def _doc(shader: dict) -> dict:
    return {
        "gpuia_case": 1, "name": "vs_outputs_strip",
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 8, "data": encode_data(POSITIONS.tobytes())}],
        "index_buffer": {"format": "R16_UINT", "data": encode_data(INDICES.tobytes())},
        "strip_cut_value": "0xFFFF", "primitive_topology": "LINESTRIP",
        "vertex_shader": shader,
        "draw": {"DrawIndexedInstanced": {"IndexCountPerInstance": 5, "InstanceCount": 2,
                                          "StartIndexLocation": 0, "BaseVertexLocation": 0,
                                          "StartInstanceLocation": 0}}}


def _bits(a) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32)


def test_outputs_of_an_indexed_strip_with_a_cut_match_the_hand_values(gpu_device):
    case = load_case(_doc({"hlsl": HLSL}))
    assert case.so is None
    ref = reference_ia(case)
    assert ref.vertex_id.tolist() == VIDS * 2
    got = run_case_outputs_gpu(case, gpu_device, ref)
    assert not got.missing.any()
    np.testing.assert_array_equal(got.bits["SV_POSITION0"], _bits(EXPECTED_POS))
    np.testing.assert_array_equal(got.bits["TEXCOORD0"], EXPECTED_ID)
    np.testing.assert_array_equal(got.bits["TEXCOORD1"], _bits(EXPECTED_UV))


def test_check_compares_exact_outputs_bit_for_bit_without_stream_output(gpu_device):
    case = load_case(_doc({"hlsl": HLSL}))
    result = cross_check(case, [gpu_device], ("pulling",), keep=True)
    line = next(ln for ln in result.lines if ln.path == "vs outputs")
    assert all(ln.path != "stream output" for ln in result.lines)
    assert line.status == "OK", result.text()
    # Exact arithmetic: every bit equal, nothing accepted by the tolerance.
    assert line.detail == "8/8 invocations' outputs match"
    assert line.output_comparison is not None and line.output_comparison.tolerated_count == 0
    assert line.vs_outputs is not None
    np.testing.assert_array_equal(line.vs_outputs.bits["TEXCOORD0"], EXPECTED_ID)


def test_a_wrong_cpu_result_is_caught_without_stream_output(gpu_device, monkeypatch):
    """The CPU side's math made wrong in one component (0.5 added to one invocation's x): the
    vs outputs line differs and names the output and the invocation."""
    real = run.vertex_outputs

    def wrong(case, ia):
        out = {k: v.copy() for k, v in real(case, ia).items()}
        out["SV_POSITION0"][5, 0] = np.float32(EXPECTED_POS[5, 0] + 0.5).view(np.uint32)
        return out

    monkeypatch.setattr(run, "vertex_outputs", wrong)
    case = load_case(_doc({"hlsl": HLSL}))
    result = cross_check(case, [gpu_device], ("pulling",))
    line = next(ln for ln in result.lines if ln.path == "vs outputs")
    assert line.status == "DIFFERENT"
    assert line.detail == "7/8 invocations' outputs match, SV_POSITION0: 1 differ"
    assert "2.5 2.5 0 1 != 2 2.5 0 1" in line.table  # CPU x 2.5 (wrong), GPU 2.0
    assert not result.ok


def _nudged(rows: dict):
    """run_case_outputs_gpu with the GPU's outputs changed: {(key, row, component): delta in
    the word's integer value}."""
    real = outputs_check.run_case_outputs_gpu

    def nudged(*args, **kwargs):
        got = real(*args, **kwargs)
        for (key, r, c), delta in rows.items():
            got.bits[key] = got.bits[key].copy()
            got.bits[key][r, c] += np.uint32(delta)
        return got

    return nudged


def test_a_wrong_gpu_integer_is_caught_exactly(gpu_device, monkeypatch):
    monkeypatch.setattr(outputs_check, "run_case_outputs_gpu", _nudged({("TEXCOORD0", 3, 0): 1}))
    result = cross_check(load_case(_doc({"hlsl": HLSL})), [gpu_device], ("pulling",))
    line = next(ln for ln in result.lines if ln.path == "vs outputs")
    assert line.status == "DIFFERENT"
    assert line.detail == "7/8 invocations' outputs match, TEXCOORD0: 1 differ"
    assert "6 != 7" in line.table


def test_a_float_within_the_tolerance_is_counted_not_hidden(gpu_device, monkeypatch):
    """One float 1 ULP off passes (a shader's float outputs are computed) and is counted; 65
    ULP (beyond the default 64) fails."""
    monkeypatch.setattr(outputs_check, "run_case_outputs_gpu",
                        _nudged({("TEXCOORD1", 0, 0): 1}))
    case = load_case(_doc({"hlsl": HLSL}))
    line = next(ln for ln in cross_check(case, [gpu_device], ("pulling",)).lines
                if ln.path == "vs outputs")
    assert line.status == "OK"
    assert line.detail == ("8/8 invocations' outputs match, 1 float components within the "
                           "shader tolerance (64 ULP or 1.52588e-05 absolute; largest 1 ULP)")
    monkeypatch.setattr(outputs_check, "run_case_outputs_gpu",
                        _nudged({("TEXCOORD1", 0, 0): 65}))
    line = next(ln for ln in cross_check(case, [gpu_device], ("pulling",)).lines
                if ln.path == "vs outputs")
    assert line.status == "DIFFERENT"
    assert line.detail == "7/8 invocations' outputs match, TEXCOORD1: 1 differ"


def test_wgsl_outputs_are_read_back_but_not_compared(gpu_device):
    case = load_case(_doc({"wgsl": WGSL}))
    lines = cross_check(case, [gpu_device], ("pulling",), keep=True).lines
    line = next(ln for ln in lines if ln.path == "vs outputs")
    assert line.status == "not compared"
    assert "not WGSL" in line.detail
    assert line.vs_outputs is not None
    np.testing.assert_array_equal(line.vs_outputs.bits["SV_POSITION0"], _bits(EXPECTED_POS))
    np.testing.assert_array_equal(line.vs_outputs.bits["TEXCOORD0"], EXPECTED_ID)


def test_result_documents_carry_the_outputs(gpu_device):
    case = load_case(_doc({"hlsl": HLSL}))
    for backend in ("cpu", "gpu"):
        kwargs = {"device": gpu_device, "path": "pulling"} if backend == "gpu" else {}
        _, doc = run_case(case, backend, **kwargs)
        inv = doc["invocations"]
        assert [i["outputs"]["TEXCOORD0"]["bits"] for i in inv] == EXPECTED_ID.tolist()
        assert inv[2]["outputs"]["TEXCOORD1"] == {"type": "float", "bits": _bits(
            EXPECTED_UV[2]).tolist(), "value": [-1.0, -0.25]}
        assert inv[0]["outputs"]["SV_POSITION0"]["value"] == [6.0, 4.5, 0.0, 1.0]
        assert list(inv[0]["outputs"]) == ["SV_POSITION0", "TEXCOORD0", "TEXCOORD1"]


@pytest.mark.parametrize("name", sorted(cases.BY_NAME))
def test_engine_shaders_outputs_match_numpy_and_check(name, gpu_device):
    """Every engine-style shader without its Stream Output: the GPU's outputs read back match
    the numpy derivation, and the vs outputs line passes."""
    vs = cases.BY_NAME[name]()
    doc = vs.doc()
    doc.pop("stream_output")
    case = load_case(doc)
    got = run_case_outputs_gpu(case, gpu_device, reference_ia(case))
    decoded = {}
    for key, comps, kind in vs.layout_of_outputs():
        part = got.bits[key][:, :comps]
        decoded[key] = {"float": part.view(np.float32), "sint": part.view(np.int32),
                        "uint": part}[kind]
    cases.check_outputs(decoded, vs, "GPU")
    lines = cross_check(case, [gpu_device], ("pulling",)).lines
    line = next(ln for ln in lines if ln.path == "vs outputs")
    assert line.status == "OK", line.text()


GS_VS = "float4 main(float2 p : POSITION) : SV_Position { return float4(p, 0, 1); }"
GS = """
struct V { float4 pos : SV_Position; };
struct O { float4 pos : SV_Position; uint id : TEXCOORD0; };
[maxvertexcount(3)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout TriangleStream<O> s) {
    O o;
    for (uint k = 0; k < 3; k++) {
        o.pos = v[0].pos + float4(k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0, 0, 0);
        o.id = k + 10 * pid;
        s.Append(o);
    }
}
"""


def _gs_doc() -> dict:
    return {"gpuia_case": 1, "name": "gs_outputs",
            "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
            "vertex_buffers": [{"slot": 0, "stride": 8, "data": encode_data(
                np.array([[1, 2], [3, 4]], np.float32).tobytes())}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 2}},
            "vertex_shader": {"hlsl": GS_VS}, "geometry_shader": {"hlsl": GS}}


# By hand: each point p makes one triangle p, p + (1, 0), p + (0, 1), ids k + 10 * SV_PrimitiveID;
# the record is SV_Position (4 words) then TEXCOORD0 (1 word), 20 bytes.
GS_RECORDS = [(1, 2, 0), (2, 2, 1), (1, 3, 2), (3, 4, 10), (4, 4, 11), (3, 5, 12)]


def test_geometry_shader_outputs_are_read_back_as_derived_by_hand(gpu_device):
    from gpuia.harness.gs_outputs_check import gs_output_case
    from gpuia.harness.run import reference_gs
    from gpuia.harness.run_gpu import run_case_so_gpu

    case = load_case(_gs_doc())
    recorded, computed = gs_output_case(case, reference_gs(case, reference_ia(case)))
    assert computed == {"SV_POSITION0"}
    assert recorded.so_targets[0].size == 2 * 3 * 20
    got = run_case_so_gpu(recorded, gpu_device)
    words = np.frombuffer(got.buffers[0], np.uint32).reshape(6, 5)
    want = np.array([_bits(np.array([x, y, 0, 1], np.float32)).tolist() + [i]
                     for x, y, i in GS_RECORDS], np.uint32)
    np.testing.assert_array_equal(words, want)
    assert got.filled_size[0] == 120


def test_geometry_shader_outputs_are_checked_without_stream_output(gpu_device, monkeypatch):
    from gpuia.harness import gs_outputs_check

    case = load_case(_gs_doc())
    assert case.so is None
    line = next(ln for ln in cross_check(case, [gpu_device], ("pulling",)).lines
                if ln.path == "gs outputs")
    assert line.status == "OK", line.text()
    assert line.detail == "2 primitives of 1 stream(s), stream s in slot s, every output"
    # Without Stream Output in the case, one run gives the outputs and the stage's capture.
    real = gs_outputs_check.run_case_gs_gpu

    def wrong(*args, **kwargs):  # the GPU's id of the second vertex one off
        got, captured = real(*args, **kwargs)
        words = bytearray(got.buffers[0])
        words[36:40] = (2).to_bytes(4, "little")
        got.buffers[0] = bytes(words)
        return got, captured

    monkeypatch.setattr(gs_outputs_check, "run_case_gs_gpu", wrong)
    line = next(ln for ln in cross_check(case, [gpu_device], ("pulling",)).lines
                if ln.path == "gs outputs")
    assert line.status == "DIFFERENT"
    assert "SO slot 0: 1 bytes differ, first at byte 36" in line.detail


def _count_gs_runs(monkeypatch):
    """Spy on the GPU runs of a geometry shader case: calls per (module, function)."""
    from gpuia.harness import crosscheck, gs_outputs_check

    calls: dict = {}
    for module in (crosscheck, gs_outputs_check):
        for name in ("run_case_gs_gpu", "run_case_so_gpu"):
            real = getattr(module, name, None)
            if real is None:
                continue

            key = (module.__name__.rsplit(".", 1)[1], name)

            def spy(*args, _real=real, _key=key, **kwargs):
                calls[_key] = calls.get(_key, 0) + 1
                return _real(*args, **kwargs)

            monkeypatch.setattr(module, name, spy)
    return calls


def test_gs_outputs_and_the_geometry_shader_line_share_one_run(gpu_device, monkeypatch):
    """Without Stream Output in the case, the gs outputs run captures the stage too and the
    geometry shader line compares that capture: one GPU run for both lines."""
    calls = _count_gs_runs(monkeypatch)
    lines = {ln.path: ln for ln in cross_check(load_case(_gs_doc()), [gpu_device],
                                               ("pulling",)).lines}
    assert calls == {("gs_outputs_check", "run_case_gs_gpu"): 1}
    assert lines["gs outputs"].status == "OK", lines["gs outputs"].text()
    gs = lines["geometry shader"]
    assert (gs.status, gs.detail) == ("OK", "GSInvocations 2, GSPrimitives 2"), gs.text()


def test_the_geometry_shader_line_runs_alone_where_gs_outputs_could_not(gpu_device,
                                                                         monkeypatch):
    from gpuia.errors import UnsupportedError
    from gpuia.harness import gs_outputs_check

    def refuse(*args, **kwargs):
        raise UnsupportedError("refused for the test")

    monkeypatch.setattr(gs_outputs_check, "run_case_gs_gpu", refuse)
    calls = _count_gs_runs(monkeypatch)
    lines = {ln.path: ln for ln in cross_check(load_case(_gs_doc()), [gpu_device],
                                               ("pulling",)).lines}
    assert (lines["gs outputs"].status, lines["gs outputs"].detail) == \
        ("not applicable", "refused for the test")
    assert calls[("crosscheck", "run_case_gs_gpu")] == 1
    gs = lines["geometry shader"]
    assert (gs.status, gs.detail) == ("OK", "GSInvocations 2, GSPrimitives 2"), gs.text()


def test_with_stream_output_the_case_runs_its_own_declaration(gpu_device, monkeypatch):
    """A case with Stream Output: the gs outputs run takes gpuia's declaration, the geometry
    shader and stream output lines one run of the case's own (20-byte records: 2 points make
    2 triangles, 6 vertices, 120 bytes)."""
    doc = _gs_doc()
    doc["stream_output"] = {
        "declaration": [{"Stream": 0, "SemanticName": "SV_Position", "ComponentCount": 4,
                         "OutputSlot": 0},
                        {"Stream": 0, "SemanticName": "TEXCOORD", "ComponentCount": 1,
                         "OutputSlot": 0}],
        "buffer_strides": [20], "rasterized_stream": "NO_RASTERIZED_STREAM",
        "targets": [{"slot": 0, "size": 120}]}
    calls = _count_gs_runs(monkeypatch)
    lines = {ln.path: ln for ln in cross_check(load_case(doc), [gpu_device],
                                               ("pulling",)).lines}
    assert calls == {("gs_outputs_check", "run_case_so_gpu"): 1,
                     ("crosscheck", "run_case_gs_gpu"): 1}
    for path in ("gs outputs", "geometry shader", "stream output"):
        assert lines[path].status == "OK", lines[path].text()
    assert lines["stream output"].detail.startswith(
        "NumPrimitivesWritten 2, PrimitivesStorageNeeded 2"), lines["stream output"].detail


def test_an_adapter_that_cannot_read_outputs_back_is_not_applicable(gpu_device, monkeypatch):
    """A refusal of the capture (as the pulling pass refuses a view over a storage binding) makes
    the line not applicable with the reason, and leaves a GPU result's outputs out."""
    from gpuia.errors import UnsupportedError
    from gpuia.harness import run_outputs

    def refuse(*args, **kwargs):
        raise UnsupportedError("Stream Output pulls the draw's vertices: slot 0's view is too big")

    monkeypatch.setattr(outputs_check, "run_case_outputs_gpu", refuse)
    monkeypatch.setattr(run_outputs, "run_case_outputs_gpu", refuse)
    case = load_case(_doc({"hlsl": HLSL}))
    result = cross_check(case, [gpu_device], ("pulling",))
    line = next(ln for ln in result.lines if ln.path == "vs outputs")
    assert (line.status, line.detail) == ("not applicable", "Stream Output pulls the draw's "
                                                            "vertices: slot 0's view is too big")
    assert result.ok
    res, doc = run_case(case, "gpu", device=gpu_device, path="pulling")
    assert res.outputs is None and "outputs" not in doc["invocations"][0]
