"""gpuia's pytest plugin (gpuia/pytest_plugin.py): registered by the install, its fixtures pass
on real cases and layouts, and fail (never skip) with the comparison table when the GPU and the
reference differ or when nothing could be compared."""

from pathlib import Path

import pytest

from gpuia.crosscheck import CheckLine, CheckResult, layout_case

CASES = Path(__file__).resolve().parent.parent / "examples" / "cases"
TWO_SLOTS = [
    {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
    {"SemanticName": "NORMAL", "Format": "R10G10B10A2_UNORM", "InputSlot": 1},
    {"SemanticName": "TEXCOORD", "Format": "R16G16_FLOAT", "InputSlot": 1},
    {"SemanticName": "COLOR", "Format": "B8G8R8A8_UNORM", "InputSlot": 2,
     "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 2},
]


def test_the_plugin_is_registered_by_the_install(pytestconfig):
    assert pytestconfig.pluginmanager.has_plugin("gpuia")
    assert pytestconfig.getoption("gpuia_adapter", default="missing") != "missing"


def test_gpuia_check_passes_on_a_case_file(gpuia_check):
    result = gpuia_check(CASES / "triangle_two_slots.json")
    assert result.ok and result.compared == 2  # native and pulling on this adapter


def test_gpuia_check_on_a_layout_with_generated_data(gpuia_check):
    result = gpuia_check(layout=TWO_SLOTS, path="auto", vertices=10, instances=5)
    assert result.ok and result.compared == 1
    assert "pulling" in result.lines[0].label or "auto" in result.lines[0].label


def test_layout_case_binds_the_smallest_strides_and_one_row_per_instance():
    case = layout_case(TWO_SLOTS, vertices=10, instances=5)
    # extents: slot 0 12 bytes, slot 1 4 + 4, slot 2 4 (hand-derived from the formats' sizes)
    assert {s: v.stride_in_bytes for s, v in case.vertex_buffers.items()} == {0: 12, 1: 8, 2: 4}
    assert {s: len(v.buffer) for s, v in case.vertex_buffers.items()} == {0: 120, 1: 80, 2: 20}
    with pytest.raises(ValueError, match="vertices"):
        layout_case(TWO_SLOTS, vertices=0)


def test_check_result_is_ok_unless_a_run_differs():
    ok = CheckLine("c: a: native", "OK", "3 values")
    skip = CheckLine("c: a: native", "not applicable", "why")
    bad = CheckLine("c: a: pulling", "DIFFERENT", "1 of 3 differ", "TABLE")
    assert CheckResult("c", [ok, skip]).ok and CheckResult("c", [ok, skip]).compared == 1
    assert not CheckResult("c", [ok, bad]).ok
    assert "TABLE" in CheckResult("c", [bad]).text()


FAILING = '''
def test_nothing_compared(gpuia_check):
    # native cannot step every 2 instances: the only run is "not applicable"
    gpuia_check(layout=[{"SemanticName": "A", "Format": "R32_UINT",
                         "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 2}],
                path="native")

def test_differs(gpuia_check, monkeypatch):
    import gpuia.gpu as g

    real = g.run_case_gpu

    def one_bit_off(*args, **kwargs):  # the GPU result, with one bit of POSITION flipped
        res = real(*args, **kwargs)
        element = res.ia.inputs["POSITION0"]
        bits = element.bits.copy()
        bits[1, 0] ^= 1
        res.ia.inputs["POSITION0"] = type(element)(element.type, bits)
        return res

    monkeypatch.setattr(g, "run_case_gpu", one_bit_off)
    gpuia_check(CASE)
'''


def test_gpuia_check_fails_with_the_table(pytester):
    pytester.makepyfile(FAILING.replace("CASE", repr(str(CASES / "triangle_two_slots.json"))))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*no GPU run could be compared*", "*not applicable*",
                                 "*the GPU differs from the CPU reference*",
                                 "*native: DIFFERENT*", "*pulling: DIFFERENT*"])


def test_the_documented_example_layout_passes(gpuia_check):
    """docs/pytest-plugin.md's example layout is valid and agrees on this adapter."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "pytest-plugin.md").read_text()
    example = text.split("```python\n")[1].split("def test_skinned_layout")[0]
    namespace = {}
    exec(example, namespace)
    assert gpuia_check(layout=namespace["SKINNED"]).compared >= 1


def test_gpuia_check_takes_a_case_or_a_layout(gpuia_check):
    with pytest.raises(TypeError, match="a case or layout="):
        gpuia_check()
    with pytest.raises(TypeError, match="not both"):
        gpuia_check(CASES / "triangle_two_slots.json", layout=TWO_SLOTS)


def test_bad_input_fails_with_one_line(pytester):
    pytester.makepyfile(test_bad="""
def test_layout(gpuia_check):
    gpuia_check(layout=[{"SemanticName": "C", "Format": "R8G8B8A8_UNORM", "AlignedByteOffset": 2}])

def test_missing(gpuia_check):
    gpuia_check("no/such/case.json")
""")
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "gpuia: element 0 (C0): AlignedByteOffset=2" in out
    assert "gpuia: no/such/case.json: cannot read" in out
    assert "gpuia/layout.py" not in out  # no internal traceback


VS = """
cbuffer K : register(b1) { float4x4 M; };
struct VSIn { float3 pos : POSITION; float4 n : NORMAL; float2 uv : TEXCOORD0; };
float4 main(VSIn v) : SV_Position { return mul(M, float4(v.pos, 1)) + v.n + v.uv.xyxy; }
float4 bad(float3 pos : POSITION, float4 c : COLOR1) : SV_Position { return float4(pos, 1) + c; }
"""


def test_gpuia_check_draws_a_layout_with_an_hlsl_shader(gpuia_check, tmp_path):
    (tmp_path / "vs.hlsl").write_text(VS)
    result = gpuia_check(layout=TWO_SLOTS, vertex_shader=tmp_path / "vs.hlsl")
    # COLOR steps every 2 instances: only pulling can draw it (native is not applicable)
    assert result.ok and result.compared == 1
    assert [ln.status for ln in result.lines] == ["not applicable", "OK"]
    entry = gpuia_check(layout=TWO_SLOTS, vertex_shader=f"{tmp_path / 'vs.hlsl'}:main")
    assert entry.ok


MISSING_INPUT = '''
def test_missing_input(gpuia_check, tmp_path):
    (tmp_path / "vs.hlsl").write_text("float4 main(float4 c : COLOR1) : SV_Position { return c; }")
    gpuia_check(layout=[{"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM"}],
                vertex_shader=tmp_path / "vs.hlsl")
'''


def test_a_layout_missing_a_shader_input_fails_with_one_line(pytester):
    pytester.makepyfile(MISSING_INPUT)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*gpuia: *COLOR1*rulebook 3.8*"])
    assert "Traceback" not in result.stdout.str()
