"""gpuia's pytest plugin (gpuia/pytest_plugin.py): registered by the install, its fixtures pass
on real cases and layouts, and fail (never skip) with the comparison table when the GPU and the
reference differ or when nothing could be compared, each message printed once. ``--gpuia-adapter
all`` runs each GPU test once per adapter that ``gpuia adapters`` lists; the session header names
the adapters; a selection that matches nothing is refused with one line.

Expected adapters come from the ``gpuia adapters --json`` command, not from the plugin."""

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from gpuia.errors import InvalidDescError
from gpuia.harness.crosscheck import CheckLine, CheckResult, layout_case
from helpers import every_adapter_device

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "cases"
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
    import gpuia.harness.crosscheck as g  # where cross_check takes its GPU run from

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


@pytest.fixture
def plugin_args(pytestconfig, monkeypatch):
    """The arguments that load gpuia's plugin in an inner pytest as it was loaded here: none
    when the install's entry point did (``-p`` as well would register it twice, which pytest
    refuses), else ``-p gpuia.pytest_plugin`` with this checkout on PYTHONPATH. The inner runs
    choose adapters by their own arguments only, so $GPUIA_ADAPTER / $GPUIA_BACKEND are unset."""
    monkeypatch.delenv("GPUIA_ADAPTER", raising=False)
    monkeypatch.delenv("GPUIA_BACKEND", raising=False)
    if pytestconfig.pluginmanager.has_plugin("gpuia"):
        return ["-p", "no:cacheprovider"]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT),
                                                                  os.environ.get("PYTHONPATH")])))
    return ["-p", "no:cacheprovider", "-p", "gpuia.pytest_plugin"]


def test_gpuia_check_fails_with_the_table(pytester, plugin_args, gpu_device):
    pytester.makepyfile(FAILING.replace("CASE", repr(str(CASES / "triangle_two_slots.json"))))
    result = pytester.runpytest_subprocess(*plugin_args, "-rN")  # -rN: no short summary
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*no GPU run could be compared*", "*not applicable*",
                                 "*the GPU differs from the CPU reference*",
                                 "*native: DIFFERENT*", "*pulling: DIFFERENT*"])
    out = result.stdout.str()
    assert out.count("no GPU run could be compared") == 1
    assert out.count("the GPU differs from the CPU reference") == 1
    assert "During handling" not in out


def test_the_documented_example_runs_as_written(pytester, plugin_args, gpu_device):
    """docs/pytest-plugin.md's example, pasted whole as a test module into a project whose
    tests/cases/ holds the case it names: both of its tests pass on this adapter."""
    text = (ROOT / "docs" / "pytest-plugin.md").read_text()
    example = text.split("```python\n")[1].split("```")[0]
    assert example.startswith("# tests/test_vertex_layouts.py\n")
    (pytester.path / "tests" / "cases").mkdir(parents=True)
    (pytester.path / "tests" / "cases" / "terrain_strip.json").write_bytes(
        (CASES / "indexed_strip_cut.json").read_bytes())
    pytester.makepyfile(test_vertex_layouts=example)
    adapter = ["--gpuia-adapter", gpu_device.adapter.summary]
    pytester.runpytest_subprocess(*plugin_args, *adapter, "-q").assert_outcomes(passed=2)


def test_gpuia_check_takes_a_case_or_a_layout(gpuia_check):
    with pytest.raises(TypeError, match="a case or layout="):
        gpuia_check()
    with pytest.raises(TypeError, match="not both"):
        gpuia_check(CASES / "triangle_two_slots.json", layout=TWO_SLOTS)


def test_bad_input_fails_with_one_line(pytester, plugin_args, gpu_device):
    pytester.makepyfile(test_bad="""
def test_layout(gpuia_check):
    gpuia_check(layout=[{"SemanticName": "C", "Format": "R8G8B8A8_UNORM", "AlignedByteOffset": 2}])

def test_missing(gpuia_check):
    gpuia_check("no/such/case.json")
""")
    result = pytester.runpytest_subprocess(*plugin_args, "-q", "-rN")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    # once each: the GpuiaError caught in gpuia_check is not printed before the failure
    assert out.count("element 0 (C0): AlignedByteOffset=2") == 1
    assert out.count("no/such/case.json: cannot read") == 1
    assert "gpuia: element 0 (C0): AlignedByteOffset=2" in out
    assert "gpuia: no/such/case.json: cannot read" in out
    assert "During handling" not in out
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
    # COLOR steps every 2 instances: only pulling can draw it (native is not applicable); the
    # shader's outputs are compared on their own line
    assert result.ok and result.compared == 2
    assert [(ln.path, ln.status) for ln in result.lines] == [
        ("native", "not applicable"), ("pulling", "OK"), ("vs outputs", "OK")]
    entry = gpuia_check(layout=TWO_SLOTS, vertex_shader=f"{tmp_path / 'vs.hlsl'}:main")
    assert entry.ok



def test_gpuia_check_fills_constant_buffers_from_bytes_or_members(gpuia_check, tmp_path):
    (tmp_path / "vs.hlsl").write_text(VS)
    m = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]
    # column_major float4x4 (the default): register c holds column c, m[r][c] @16c + 4r
    packed = struct.pack("<16f", *(m[r][c] for c in range(4) for r in range(4)))
    shader = {"hlsl_file": str(tmp_path / "vs.hlsl")}
    case = layout_case(TWO_SLOTS, vertex_shader=shader, constant_buffers={1: {"M": m}})
    assert case.constant_buffers == {1: packed}
    case = layout_case(TWO_SLOTS, vertex_shader=shader, constant_buffers={1: b"\x01" * 64})
    assert case.constant_buffers == {1: b"\x01" * 64}
    with pytest.raises(InvalidDescError, match="reads no constant buffer in register b0"):
        layout_case(TWO_SLOTS, vertex_shader=shader, constant_buffers={0: b""})
    result = gpuia_check(layout=TWO_SLOTS, vertex_shader=tmp_path / "vs.hlsl",
                         constant_buffers={1: {"M": m}})
    assert result.ok and result.compared == 2  # pulling and vs outputs
    with pytest.raises(TypeError, match="constant_buffers= goes with layout= and"):
        gpuia_check(layout=TWO_SLOTS, constant_buffers={1: b""})

MISSING_INPUT = '''
def test_missing_input(gpuia_check, tmp_path):
    (tmp_path / "vs.hlsl").write_text("float4 main(float4 c : COLOR1) : SV_Position { return c; }")
    gpuia_check(layout=[{"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM"}],
                vertex_shader=tmp_path / "vs.hlsl")
'''


def test_a_layout_missing_a_shader_input_fails_with_one_line(pytester, plugin_args,
                                                           gpu_device):
    pytester.makepyfile(MISSING_INPUT)
    result = pytester.runpytest(*plugin_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*gpuia: *COLOR1*rules 3.8*"])
    assert "Traceback" not in result.stdout.str()


# --- adapter selection: --gpuia-adapter all, the header, refusals -------------------------------

@pytest.fixture(scope="module")
def listed(gpu_device):
    """What ``gpuia adapters --json`` lists on this machine (the CLI, not the plugin); the tests
    using it draw on every adapter listed."""
    out = subprocess.run([sys.executable, "-m", "gpuia", "adapters", "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True)
    adapters = json.loads(out.stdout)
    assert adapters, "these tests need an adapter (install Mesa's lavapipe)"
    return adapters


FAKE_ADAPTERS = '''
import wgpu.backends.wgpu_native as native


class Fake:  # what the plugin reads of an adapter to list and name it
    def __init__(self, device, backend):
        self.summary = f"{device} (Unknown) via {backend}"
        self.info = {"device": device, "backend_type": backend, "adapter_type": "Unknown"}


native.GPU.enumerate_adapters_sync = lambda self: [Fake(d, b) for d, b in ADAPTERS]
'''


ADAPTER_IDS = [  # (device, backend) pairs as wgpu lists them -> the test ids
    ([("llvmpipe (LLVM 15.0.6, 256 bits)", "Vulkan"),
      ("llvmpipe (LLVM 15.0.6, 256 bits)", "OpenGL")],
     ["gpuia:llvmpipe-Vulkan", "gpuia:llvmpipe-OpenGL"]),
    ([("AMD Radeon RX 6800 (RADV NAVI21)", "Vulkan"), ("Apple M2 Max", "Metal")],
     ["gpuia:AMD-Radeon-RX-6800-Vulkan", "gpuia:Apple-M2-Max-Metal"]),
    # two identical GPUs: the ids stay distinct, numbered in wgpu's order
    ([("NVIDIA GeForce RTX 4090", "Vulkan")] * 2 + [("llvmpipe (LLVM 15.0.6, 256 bits)", "Vulkan")],
     ["gpuia:NVIDIA-GeForce-RTX-4090-Vulkan-0", "gpuia:NVIDIA-GeForce-RTX-4090-Vulkan-1",
      "gpuia:llvmpipe-Vulkan"]),
    ([("(unnamed)", "D3D12")], ["gpuia:adapter-D3D12"]),
]


def test_adapter_ids_name_the_device_and_backend(pytester, plugin_args):
    """``--gpuia-adapter all`` names each test after its adapter's device and backend (child
    sessions listing made-up adapters: nothing is drawn at collection)."""
    pytester.makepyfile(GPU_AND_PLAIN)
    for adapters, ids in ADAPTER_IDS:
        pytester.makeconftest(FAKE_ADAPTERS.replace("ADAPTERS", repr(adapters)))
        result = pytester.runpytest_subprocess(*plugin_args, "--collect-only", "-q",
                                               "--gpuia-adapter", "all")
        assert [line.split("::test_device[", 1)[1].removesuffix("]")
                for line in result.stdout.lines if "::test_device[" in line] == ids, \
            result.stdout.str()


PER_ADAPTER = '''
def show(request, device):
    print(f"\\nSEEN {request.node.callspec.id} {id(device)} {device.info['summary']}")

def test_device_a(gpuia_device, request):
    show(request, gpuia_device)

def test_device_b(gpuia_device, request):
    show(request, gpuia_device)

def test_check(gpuia_check, gpuia_device):
    result = gpuia_check(layout=[{"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"}],
                         vertices=3, instances=1, path="pulling")
    assert result.compared == 1 and gpuia_device.info["summary"] in result.lines[0].label

def test_plain():
    pass
'''


def test_all_runs_each_gpu_test_once_per_adapter(pytester, plugin_args, listed):
    pytester.makepyfile(PER_ADAPTER)
    result = pytester.runpytest_subprocess(*plugin_args, "--gpuia-adapter", "all", "-s", "-v")
    # An adapter that makes no device (NVIDIA's OpenGL one, docs/known-adapter-issues.md) is
    # still parametrized: its three tests error with wgpu's reason, none passes silently.
    _, unavailable = every_adapter_device()
    n = len(listed) - len(unavailable)
    result.assert_outcomes(passed=3 * n + 1, errors=3 * len(unavailable))  # test_plain once
    out = result.stdout.str()
    for reason in unavailable.values():
        assert reason.split(":")[0] in out
    seen = [line.split(" ", 3)[1:] for line in out.splitlines() if line.startswith("SEEN ")]
    assert len(seen) == 2 * n
    # one test per listed adapter that makes a device, its id naming its backend and device
    summaries = {test_id: summary for test_id, _, summary in seen}
    assert sorted(summaries.values()) == sorted(a["summary"] for a in listed
                                                if a["summary"] not in unavailable)
    for test_id, summary in summaries.items():
        adapter = next(a for a in listed if a["summary"] == summary)
        assert test_id.startswith("gpuia:") and test_id.endswith("-" + adapter["backend"])
        assert adapter["name"].split()[0] in test_id
    if sorted(summaries.values()) == ["llvmpipe (LLVM 15.0.6, 256 bits) (CPU) via OpenGL",
                                      "llvmpipe (LLVM 15.0.6, 256 bits) (CPU) via Vulkan"]:
        assert set(summaries) == {"gpuia:llvmpipe-Vulkan", "gpuia:llvmpipe-OpenGL"}  # this host
    for test_id in summaries:
        assert f"test_check[{test_id}] PASSED" in out
    assert "test_plain PASSED" in out
    # one device per adapter for the session: both tests of an adapter got the same object
    devices = {test_id: {dev for i, dev, _ in seen if i == test_id} for test_id in summaries}
    assert all(len(d) == 1 for d in devices.values())
    assert len(set.union(*devices.values())) == n
    # the header names every adapter with its id
    assert f"gpuia: {len(listed)} adapter" in out and "(--gpuia-adapter all)" in out
    for test_id, summary in summaries.items():
        assert f"  [{test_id}] {summary}" in out.splitlines()


GPU_AND_PLAIN = '''
def test_device(gpuia_device):
    pass

def test_plain():
    pass
'''


def test_all_with_a_backend_keeps_its_adapters_and_one_adapter_keeps_plain_ids(
        pytester, plugin_args, listed):
    pytester.makepyfile(GPU_AND_PLAIN)
    backend = listed[-1]["backend"]
    expected = [a for a in listed if a["backend"] == backend]
    result = pytester.runpytest(*plugin_args, "--collect-only", "-q", "--gpuia-adapter", "all",
                                "--gpuia-backend", backend.lower())  # backends: any case
    ids = [line for line in result.stdout.lines if "::test_device[" in line]
    assert len(ids) == len(expected) and all(i.endswith(f"-{backend}]") for i in ids)
    assert "test_plain" in result.stdout.str()
    plain = pytester.runpytest(*plugin_args, "--collect-only", "-q")
    assert [ln for ln in plain.stdout.lines if "::test_" in ln] == \
        ["test_all_with_a_backend_keeps_its_adapters_and_one_adapter_keeps_plain_ids.py::"
         f"test_{name}" for name in ("device", "plain")]


def test_the_header_names_the_adapter_used(pytester, plugin_args, listed):
    pytester.makepyfile(GPU_AND_PLAIN)
    result = pytester.runpytest(*plugin_args, "--collect-only")
    header = [ln for ln in result.stdout.lines if ln.startswith("gpuia:")]
    assert len(header) == 1 and header[0].endswith(" (default)"), header
    named = header[0].removeprefix("gpuia: adapter ").removesuffix(" (default)")
    # the default is the first non-OpenGL adapter (docs/pytest-plugin.md)
    not_gl = [a["summary"] for a in listed if not a["backend"].startswith("OpenGL")]
    if len(not_gl) == 1:
        assert named == not_gl[0]
    assert named in [a["summary"] for a in listed] and "default" not in named
    last = listed[-1]["summary"]
    chosen = pytester.runpytest(*plugin_args, "--collect-only", "--gpuia-adapter", last)
    assert f"gpuia: adapter {last} (--gpuia-adapter {last})" in chosen.stdout.lines


@pytest.mark.parametrize("args, env, asked", [
    (["--gpuia-adapter", "no-such-adapter"], {}, "--gpuia-adapter no-such-adapter"),
    (["--gpuia-adapter", "all", "--gpuia-backend", "NoSuchBackend"], {},
     "--gpuia-adapter all, --gpuia-backend NoSuchBackend"),
    ([], {"GPUIA_ADAPTER": "no-such-adapter"}, "$GPUIA_ADAPTER=no-such-adapter"),
])
def test_a_selection_matching_nothing_is_refused_with_one_line(pytester, plugin_args, listed,
                                                               monkeypatch, args, env, asked):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pytester.makepyfile(GPU_AND_PLAIN)
    result = pytester.runpytest(*plugin_args, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [ln for ln in result.stderr.lines if ln.strip()]
    assert len(errors) == 1 and errors[0].startswith(f"ERROR: gpuia: {asked}: no GPU adapter "
                                                     "matches"), errors
    assert all(a["summary"] in errors[0] for a in listed)  # what there is to choose from
    assert "collected" not in result.stdout.str()  # refused before any test


REFUSE_DEVICE = '''
import wgpu.backends.wgpu_native as native

real = native.GPUAdapter.request_device_sync

def refuse(self, **kwargs):  # as a headless machine's OpenGL adapter does
    if self.summary == SUMMARY:
        raise RuntimeError("no EGL display (simulated)")
    return real(self, **kwargs)

native.GPUAdapter.request_device_sync = refuse
'''


def test_an_adapter_without_a_device_fails_its_tests_with_the_reason(pytester, plugin_args,
                                                                     listed):
    refused = listed[-1]["summary"]
    pytester.makeconftest(REFUSE_DEVICE.replace("SUMMARY", repr(refused)))
    pytester.makepyfile(GPU_AND_PLAIN.replace("def test_plain", "def test_device_2(gpuia_device):"
                                              "\n    pass\n\ndef test_plain"))
    reason = f"gpuia: cannot create a device on {refused}: no EGL display (simulated)"
    ok = sum(a["summary"] != refused for a in listed)
    result = pytester.runpytest_subprocess(*plugin_args, "--gpuia-adapter", "all", "-rN")
    result.assert_outcomes(passed=2 * ok + 1, errors=2)  # failing, never skipped
    out = result.stdout.str()
    assert out.count(reason) == 2 and "During handling" not in out  # once per test
    one = pytester.runpytest_subprocess(*plugin_args, "--gpuia-adapter", refused, "-rN")
    one.assert_outcomes(passed=1, errors=2)
    assert one.stdout.str().count(reason) == 2
    assert "lavapipe" not in one.stdout.str()  # there is an adapter: no install hint


NO_ADAPTER = '''
import wgpu.backends.wgpu_native as native

native.GPU.enumerate_adapters_sync = lambda self: []  # a machine where wgpu finds none
'''


def test_without_any_adapter_gpu_tests_fail_and_all_is_refused(pytester, plugin_args):
    pytester.makeconftest(NO_ADAPTER)
    pytester.makepyfile(GPU_AND_PLAIN)
    result = pytester.runpytest_subprocess(*plugin_args, "-rN")
    result.assert_outcomes(passed=1, errors=1)  # the plain test still runs
    out = result.stdout.str()
    header = [ln for ln in out.split("collected")[0].splitlines() if ln.startswith("gpuia:")]
    assert len(header) == 1 and header[0].startswith("gpuia: no GPU adapter found (default)")
    assert out.count("gpuia: no GPU adapter: ") == 1 and "During handling" not in out
    assert "apt-get install mesa-vulkan-drivers" in out
    refused = pytester.runpytest_subprocess(*plugin_args, "--gpuia-adapter", "all")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    errors = [ln for ln in refused.stderr.lines if ln.startswith("ERROR:")]
    assert len(errors) == 1 and errors[0].startswith("ERROR: gpuia: --gpuia-adapter all: ")
    assert "(adapters: none)" in errors[0] and "mesa-vulkan-drivers" in errors[0]


# -- geometry shader cases -------------------------------------------------------------------
GS_CASE = {
    "gpuia_case": 1, "name": "gs_quads",
    "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}],
    "vertex_buffers": [{"slot": 0, "stride": 16, "data": {"dtype": "float32",
                                                          "values": [0, 0, 0, 1, 4, 8, 0, 1]}}],
    "primitive_topology": "POINTLIST",
    "draw": {"DrawInstanced": {"VertexCountPerInstance": 2, "InstanceCount": 1,
                               "StartVertexLocation": 0, "StartInstanceLocation": 0}},
    "geometry_shader": {"hlsl": """
struct V { float4 pos : POSITION; };
struct O { float4 pos : SV_Position; uint corner : CORNER; };
[maxvertexcount(4)]
void main(point V v[1], uint pid : SV_PrimitiveID, inout TriangleStream<O> s) {
    for (uint k = 0; k < 4; k++) {
        O o;
        o.pos = v[0].pos + float4(k & 1, k >> 1, 0, 0);
        o.corner = pid * 10 + k;
        s.Append(o);
    }
}
"""},
    "stream_output": {"declaration": [{"SemanticName": "CORNER", "ComponentCount": 1}],
                      "targets": [{"slot": 0, "size": 48}]},
}


def test_gpuia_check_runs_a_geometry_shader_case(gpuia_check):
    """A case with a geometry shader goes through gpuia_check as any case: its Input Assembler
    is compared on the GPU, and its Stream Output (the shader's triangles) is compared where
    the GPU side runs geometry shaders, else said not applicable with the reason."""
    result = gpuia_check(GS_CASE)
    assert result.ok and result.compared >= 2  # native and pulling
    (so,) = [line for line in result.lines if line.path == "stream output"]
    assert so.status == "OK" or (so.status == "not applicable" and so.detail.strip())


def test_a_geometry_shader_case_d3d_refuses_fails_with_one_line(pytester, plugin_args,
                                                                 gpu_device):
    # A point geometry shader on a triangle list: CreateGraphicsPipelineState refuses the
    # pairing (rules 13.2), so the test fails with that one line.
    pytester.makepyfile(test_gs=f"""
import json
CASE = json.loads({json.dumps(json.dumps(dict(GS_CASE, primitive_topology="TRIANGLELIST")))})

def test_gs(gpuia_check):
    gpuia_check(CASE)
""")
    result = pytester.runpytest_subprocess(*plugin_args, "-q", "-rN")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert out.count("rules 13.2") == 1
    assert "gpuia: geometry shader: input primitive='point': takes no TRIANGLELIST" in out
    assert "During handling" not in out and "Traceback" not in out
