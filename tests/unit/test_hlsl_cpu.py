"""The CPU reference of HLSL vertex shaders (gpuia.hlsl.cpu) against hand-derived values, and
its refusals: a shader that faults or never ends on the CPU is an error, never a crash or a
hang of the caller. (The 19 engine-style shaders of hlsl_vertex_cases.py run on the CPU in
test_hlsl_vertex.py too.)"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpuia.errors import InvalidDescError, UnsupportedError
from gpuia.hlsl import compile_shader
from gpuia.hlsl import cpu as hcpu


def run(src, inputs, n, cbuffers=None, vid=None, iid=None, **kw):
    shader = hcpu.cpu_shader(compile_shader(src))
    vid = np.arange(n, dtype=np.uint32) if vid is None else vid
    iid = np.zeros(n, np.uint32) if iid is None else iid
    return shader.run(inputs, vid, iid, cbuffers or {}, **kw)


def bits(values, dtype="<f4") -> np.ndarray:
    """(n, 4) uint32 bit patterns of per-vertex values (padded with D3D's (0, 0, 0, 1))."""
    a = np.asarray(values, dtype)
    out = np.zeros((a.shape[0], 4), np.uint32)
    out[:, 3] = 0x3F800000
    out[:, :a.shape[1]] = a.view(np.uint32)
    return out


def test_arithmetic_and_system_values_by_hand():
    out = run("""
struct O { float2 a : TEXCOORD0; uint2 ids : TEXCOORD1; };
O main(float2 p : POSITION, uint vid : SV_VertexID, uint iid : SV_InstanceID) {
    O o; o.a = p * 2 + 1; o.ids = uint2(vid + 100, iid * 3); return o;
}""", {"POSITION0": bits([[0.5, -1.0], [2.0, 3.25], [-4.0, 0.0]])}, 3,
        vid=np.array([7, 8, 9], np.uint32), iid=np.array([0, 1, 2], np.uint32))
    np.testing.assert_array_equal(out["TEXCOORD0"].view(np.float32),
                                  [[2.0, -1.0], [5.0, 7.5], [-7.0, 1.0]])
    np.testing.assert_array_equal(out["TEXCOORD1"], [[107, 0], [108, 3], [109, 6]])


def test_constant_buffer_bytes_are_d3d_packed():
    """float a @0, float2 b @4, float w[2] @16 and @32, bool f @36 (after w's unpadded last
    element), float3x3 m (column-major) @48: D3D's offsets, copied to the C++ layout."""
    cb = bytearray(96)
    struct.pack_into("<f", cb, 0, 1.5)
    struct.pack_into("<2f", cb, 4, 2.0, 3.0)
    struct.pack_into("<f", cb, 16, 10.0)
    struct.pack_into("<f", cb, 32, 20.0)
    struct.pack_into("<I", cb, 36, 7)  # bool: non-zero is true
    for c in range(3):  # m = [[1,2,3],[4,5,6],[7,8,9]], column c in register 3 + c
        struct.pack_into("<3f", cb, 48 + 16 * c, *[1 + c + 3 * r for r in range(3)])
    out = run("""
cbuffer K : register(b3) { float a; float2 b; float w[2]; bool f; float3x3 m; };
struct O { float4 x : TEXCOORD0; float3 y : TEXCOORD1; };
O main(float3 p : POSITION) {
    O o; o.x = float4(a, b, w[0] + w[1] + (f ? 1000 : 0)); o.y = mul(m, p); return o;
}""", {"POSITION0": bits([[1, 0, 0], [0, 1, 0], [1, 1, 1]])}, 3, {3: bytes(cb)})
    np.testing.assert_array_equal(out["TEXCOORD0"].view(np.float32),
                                  np.tile([1.5, 2.0, 3.0, 1030.0], (3, 1)))
    np.testing.assert_array_equal(out["TEXCOORD1"].view(np.float32),
                                  [[1, 4, 7], [2, 5, 8], [6, 15, 24]])


def test_many_invocations_on_every_core_match_numpy():
    n = 100_003  # not a multiple of the group size
    p = np.random.default_rng(5).uniform(-10, 10, (n, 3)).astype(np.float32)
    out = run("float4 main(float3 p : POSITION) : SV_Position { return float4(p * p, p.x); }",
              {"POSITION0": bits(p)}, n)
    want = np.c_[p * p, p[:, 0]]
    np.testing.assert_array_equal(out["SV_POSITION0"].view(np.float32), want)


def test_out_of_range_array_index_is_not_comparable():
    """In range, exact; out of range D3D reads another register of the cbuffer (rules 12.4),
    which the CPU reference does not reproduce: an error, never element 0 or other memory."""
    src = """
cbuffer K : register(b0) { float4 table[2]; };
float4 main(uint i : TEXCOORD0) : TEXCOORD0 { return table[i]; }
"""
    cb = {0: np.arange(8, dtype=np.float32).tobytes()}
    out = run(src, {"TEXCOORD0": bits([[1], [0]], "<u4")}, 2, cb)
    np.testing.assert_array_equal(out["TEXCOORD0"].view(np.float32), [[4, 5, 6, 7], [0, 1, 2, 3]])
    with pytest.raises(InvalidDescError, match="not comparable"):
        run(src, {"TEXCOORD0": bits([[1], [5000000]], "<u4")}, 2, cb)


def test_integer_division_by_zero_is_d3d_value_not_a_crash():
    """udiv: x / 0 = 0xFFFFFFFF (rules 12.2); a signed one is undefined: an error, no SIGFPE."""
    src = "uint main(uint a : TEXCOORD0, uint b : TEXCOORD1) : TEXCOORD0 { return a / b; }"
    out = run(src, {"TEXCOORD0": bits([[7]], "<u4"), "TEXCOORD1": bits([[0]], "<u4")}, 1)
    assert out["TEXCOORD0"].tolist() == [[0xFFFFFFFF]]
    with pytest.raises(InvalidDescError, match="not comparable.*division"):
        run(src.replace("uint", "int"),
            {"TEXCOORD0": bits([[7]], "<u4"), "TEXCOORD1": bits([[0]], "<u4")}, 1)


def test_an_endless_loop_is_stopped():
    with pytest.raises(InvalidDescError, match="did not finish"):
        # 2^64 float multiply-adds: no compiler can fold them away (an empty endless loop it
        # may assume away).
        run("""
float main(uint a : TEXCOORD0) : TEXCOORD0 {
    float acc = 0;
    for (uint i = 0; i < a; i++)
        for (uint j = 0; j < a; j++)
            acc = acc * 1.0000001 + 1.0;
    return acc;
}""", {"TEXCOORD0": bits([[0xFFFFFFFF]], "<u4")}, 1, timeout=3)


def test_unbound_constant_buffer_and_missing_input_are_refused():
    src = "cbuffer K : register(b1) { float4 k; };\nfloat4 main(float4 p : POSITION) : " \
          "SV_Position { return p + k; }"
    with pytest.raises(InvalidDescError, match="b1"):
        run(src, {"POSITION0": bits([[1, 2, 3, 4]])}, 1)
    with pytest.raises(InvalidDescError, match="POSITION0"):
        run(src, {}, 1, {1: bytes(16)})


def test_no_cpp_compiler_is_unsupported(monkeypatch):
    monkeypatch.setenv("CXX", "gpuia-no-such-compiler")
    with pytest.raises(UnsupportedError, match="g\\+\\+"):
        hcpu.cpu_shader(compile_shader("float4 main(float4 p : POSITION) : SV_Position "
                                       "{ return p * 3; }"))


def test_a_failed_build_leaves_nothing_in_the_build_folder(tmp_path, monkeypatch):
    """A compiler that writes part of its output and then fails: the error says why, and no
    half-built file stays in the cache's cpu folder."""
    fake = tmp_path / "half-c++"
    fake.write_text('#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && echo half > "$2"; '
                    "shift; done\necho 'half-c++: stopped halfway' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CXX", str(fake))
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(UnsupportedError, match="stopped halfway"):
        hcpu.cpu_shader(compile_shader("float4 main(float4 p : POSITION) : SV_Position "
                                       "{ return p * 29; }"))
    assert not [p.name for p in (tmp_path / "cache" / "cpu").iterdir() if p.suffix == ".build"]


def test_pixel_shaders_do_not_run_on_the_cpu():
    with pytest.raises(InvalidDescError, match="vertex"):
        hcpu.cpu_shader(compile_shader("float4 main() : SV_Target { return 1; }", "pixel"))


# A fresh process (its in-memory cache empty) builds or loads the CPU build of argv[1] from
# $GPUIA_CACHE_DIR, runs it on POSITION0 = (1, 2, 3, 4) and prints the executable, then SV_Position.
_FRESH_PROCESS = """
import sys
import numpy as np
from gpuia.hlsl import compile_shader
from gpuia.hlsl.cpu import cpu_shader
built = cpu_shader(compile_shader(sys.argv[1]))
out = built.run({"POSITION0": np.array([[1, 2, 3, 4]], "<f4").view("<u4")},
                np.zeros(1, np.uint32), np.zeros(1, np.uint32))
print(built.executable)
print(out["SV_POSITION0"].view(np.float32).tolist())
"""


def _in_a_fresh_process(src: str, cache: Path) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", _FRESH_PROCESS, src], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, GPUIA_CACHE_DIR=str(cache)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()


def test_build_is_cached_on_disk(tmp_path, monkeypatch):
    """Another process loads the build from the disk cache: the same executable, untouched
    (a rebuild would write it again), and it runs right."""
    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path))
    src = "float4 main(float4 p : POSITION) : SV_Position { return p * 5; }"
    first = hcpu.cpu_shader(compile_shader(src))
    assert first.executable.startswith(str(tmp_path))
    built = os.stat(first.executable)
    assert _in_a_fresh_process(src, tmp_path) == [first.executable, "[[5.0, 10.0, 15.0, 20.0]]"]
    again = os.stat(first.executable)
    assert (again.st_ino, again.st_mtime_ns) == (built.st_ino, built.st_mtime_ns)


def test_declared_but_unread_resources_do_not_stop_the_cpu_reference():
    """An unread cbuffer gets zeros, an unread texture a null pointer: the shader never
    touches either (its GPU build does not bind them either)."""
    out = run("""
cbuffer Unused : register(b0) { float4 x; };
Texture2D<float4> tex : register(t0);
SamplerState samp : register(s0);
cbuffer Used : register(b1) { float4 k; };
float4 main(float4 p : POSITION) : SV_Position { return p + k; }
""", {"POSITION0": bits([[1, 2, 3, 4]])}, 1, {1: np.float32([10, 20, 30, 40]).tobytes()})
    np.testing.assert_array_equal(out["SV_POSITION0"].view(np.float32), [[11, 22, 33, 44]])


# A factor of its own per damage: a shader this process has built before would come from its
# in-memory cache, not from this test's folder.
@pytest.mark.parametrize("damage, k", [("garbage", 11), ("empty", 17), ("exits_0", 19),
                                       ("fields", 23)], ids=["garbage", "empty", "exits_0",
                                                              "fields"])
def test_a_damaged_cached_build_is_rebuilt(tmp_path, monkeypatch, damage, k):
    """A cached executable that is not what was built, or a record of the wrong shape, is
    never trusted: the shader is built again and runs right."""
    import json

    monkeypatch.setenv("GPUIA_CACHE_DIR", str(tmp_path))
    src = f"float4 main(float4 p : POSITION) : SV_Position {{ return p * {k}; }}"
    first = hcpu.cpu_shader(compile_shader(src))
    exe = first.executable
    if damage == "garbage":
        open(exe, "wb").write(b"not an executable")
    elif damage == "empty":
        open(exe, "wb").close()
    elif damage == "exits_0":
        open(exe, "w").write("#!/bin/sh\nexit 0\n")
    else:
        (entry,) = (tmp_path / "cpu").glob("*.json")
        doc = json.loads(entry.read_text())
        doc["value"]["in_words"] = "eight"
        entry.write_text(json.dumps(doc))
    os.chmod(exe, 0o755)
    # a fresh process: this one's in-memory cache would hand back the first build
    assert _in_a_fresh_process(src, tmp_path)[1] == f"[[{k}.0, {2 * k}.0, {3 * k}.0, {4 * k}.0]]"


def test_a_runner_that_does_not_finish_its_work_is_an_error(tmp_path):
    """An executable that exits 0 without running the shader is caught by the runner's
    completion mark, not read as zeros."""
    import dataclasses

    src = "float4 main(float4 p : POSITION) : SV_Position { return p * 13; }"
    built = hcpu.cpu_shader(compile_shader(src))
    fake = tmp_path / "fake"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    with pytest.raises(UnsupportedError, match="without running the shader"):
        dataclasses.replace(built, executable=str(fake)).run(
            {"POSITION0": bits([[1, 2, 3, 4]])}, np.zeros(1, np.uint32), np.zeros(1, np.uint32))
