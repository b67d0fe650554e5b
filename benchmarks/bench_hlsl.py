"""HLSL front end and CPU reference: compile times, the cache, and what HLSL adds to a check.

Measured in one run, each against its baseline where one exists:

* **session**: loading Slang's library and creating its session, in a fresh process (the
  one-time cost of the first HLSL compile in a process). Reported, no target.
* **first compile** of a typical vertex shader (the teapot demo's ``vs_mesh``: a cbuffer with two
  matrices, a struct in, a struct out) once the session is up, the disk cache off and the
  memory cache empty: two Slang compiles (HLSL reflection, WGSL) and gpuia's rewrites. Each
  repeat changes a define so nothing is reused. Target <= 100 ms.
* **cached**: the same compile answered from memory, and from the disk cache in a fresh process
  state (memory cache emptied). Target <= 2 ms.
* **check HLSL / WGSL**: ``cross_check`` (what ``gpuia check`` runs per case) of one case whose
  vertex shader is HLSL against the same case with the same shader hand-written in WGSL, warm
  disk cache, on the native and pulling paths; ratio target <= 1.2. Measured twice: for an IA
  case, and for the same case with Stream Output, where the HLSL side also runs the shader on
  the CPU reference (the WGSL side has no CPU reference: its SO line is "not compared").
* **first compile's wait**: in a fresh process that opens its device and then compiles its first
  shader, the time that compile takes, with gpuia's Slang worker started as the process starts
  (what ``gpuia check`` and ``run`` do for HLSL cases) and without. Reported.
* **CPU reference**: building the vertex shader for the CPU (Slang C++ + the host compiler; the
  median of other shaders once the cache's precompiled header exists, and the first build in a
  new cache, which makes it), and running it over 1M vertices on every core against numpy
  doing the same matrix product.

Run: ``python benchmarks/bench_hlsl.py [--quick] [--out PATH]``. Exit status 0 whatever the
numbers; ratios and verdicts are printed and written as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VS = (ROOT / "demos" / "hlsl" / "lit.hlsl").read_text()
SCENE = (ROOT / "demos" / "hlsl" / "scene.hlsli")

CHECK_HLSL = """
cbuffer K : register(b0) { float4x4 M; float4 Tint; };
struct VSIn { float3 pos : POSITION; float4 color : COLOR; uint vid : SV_VertexID; };
struct VSOut { float4 pos : SV_Position; float4 color : COLOR; float4 extra : TEXCOORD0; };
VSOut main(VSIn v) {
    VSOut o;
    o.pos = mul(M, float4(v.pos, 1));
    o.color = v.color * Tint;
    o.extra = float4(v.pos * 2, v.vid);
    return o;
}
"""
CHECK_WGSL = """
struct K { M: mat4x4<f32>, Tint: vec4<f32> }
@group(3) @binding(0) var<uniform> k: K;
struct VSIn { POSITION: vec3<f32>, COLOR: vec4<f32>, SV_VertexID: u32 }
struct VSOut { SV_Position: vec4<f32>, COLOR: vec4<f32>, TEXCOORD0: vec4<f32> }
@vertex fn main(v: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = k.M * vec4<f32>(v.POSITION, 1.0);
  o.COLOR = v.COLOR * k.Tint;
  o.TEXCOORD0 = vec4<f32>(v.POSITION * 2.0, f32(v.SV_VertexID));
  return o;
}
"""


def _median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def session_seconds() -> dict:
    code = ("import time; t0 = time.perf_counter(); from gpuia.hlsl import library as L; "
            "lib = L._library(); print(time.perf_counter() - t0, lib.session_seconds)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.split()
    return {"load_and_session_s": float(out[0]), "session_s": float(out[1])}


_WAIT = """
import os, sys, time
os.environ["GPUIA_CACHE_DIR"] = "none"
t0 = time.perf_counter()
from gpuia.hlsl import compile_shader, library
if sys.argv[1] == "early" and hasattr(library, "start_worker"):
    library.start_worker()  # what check and run do when a case names an HLSL shader
from gpuia.gpu import get_device
get_device()
t1 = time.perf_counter()
compile_shader("float4 main(float4 p : POSITION) : SV_Position { return p; }")
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def first_compile_wait(repeats: int) -> dict:
    """What a fresh process waits for at its first HLSL compile after opening its device (the
    worker, its imports, Slang's session, the compile), with the worker started at the
    process's start (what check and run do) and without; and the whole time to that point."""
    out: dict = {}
    for mode in ("early", "late"):
        runs = [subprocess.run([sys.executable, "-c", _WAIT, mode], capture_output=True,
                               text=True, cwd=ROOT, check=True).stdout.split()
                for _ in range(min(repeats, 5))]
        out[mode] = {"device_s": statistics.median(float(r[0]) for r in runs),
                     "compile_wait_s": statistics.median(float(r[1]) for r in runs),
                     "total_s": statistics.median(float(r[0]) + float(r[1]) for r in runs)}
    return out


def compile_times(repeats: int) -> dict:
    from gpuia.hlsl import compile_shader, frontend, library

    os.environ["GPUIA_CACHE_DIR"] = "none"
    library._library()  # the session is up: what follows is compile time only
    counter = iter(range(10 ** 6))

    def first():
        frontend._MEMORY.clear()
        compile_shader(VS, "vertex", "vs_mesh", {"BENCH_REPEAT": str(next(counter))},
                       file_name="lit.hlsl", include_dirs=[SCENE.parent])

    first()  # warm Slang's own lazily loaded parts
    first_s = _median(first, repeats)
    compile_shader(VS, "vertex", "vs_mesh", file_name="lit.hlsl", include_dirs=[SCENE.parent])
    memory_s = _median(lambda: compile_shader(VS, "vertex", "vs_mesh", file_name="lit.hlsl",
                                              include_dirs=[SCENE.parent]), repeats * 5)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GPUIA_CACHE_DIR"] = tmp
        compile_shader(VS, "vertex", "vs_mesh", file_name="lit.hlsl", include_dirs=[SCENE.parent])

        def disk():
            frontend._MEMORY.clear()
            compile_shader(VS, "vertex", "vs_mesh", file_name="lit.hlsl",
                           include_dirs=[SCENE.parent])

        disk_s = _median(disk, repeats * 5)
    del os.environ["GPUIA_CACHE_DIR"]
    return {"first_compile_s": first_s, "memory_hit_s": memory_s, "disk_hit_s": disk_s}


def _case(shader: dict, n: int, so: bool) -> dict:
    rng = np.random.default_rng(1)
    pos = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    col = rng.integers(0, 256, (n, 4), dtype=np.uint8)
    cb = np.r_[np.eye(4, dtype=np.float32).reshape(-1) * 0.5, [1, 0.5, 0.25, 1]].astype(np.float32)
    doc = {"gpuia_case": 1, "name": "bench",
           "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
                            {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM",
                             "InputSlot": 1}],
           "vertex_buffers": [{"slot": 0, "stride": 12, "data": {"hex": pos.tobytes().hex()}},
                              {"slot": 1, "stride": 4, "data": {"hex": col.tobytes().hex()}}],
           "primitive_topology": "TRIANGLELIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": n, "InstanceCount": 1,
                                      "StartVertexLocation": 0, "StartInstanceLocation": 0}},
           "vertex_shader": shader,
           "constant_buffers": [{"slot": 0, "data": {"hex": cb.tobytes().hex()}}]}
    if so:
        doc["stream_output"] = {
            "declaration": [{"Stream": 0, "SemanticName": s, "SemanticIndex": 0,
                             "StartComponent": 0, "ComponentCount": 4, "OutputSlot": 0}
                            for s in ("SV_Position", "COLOR", "TEXCOORD")],
            "buffer_strides": [48], "targets": [{"slot": 0, "size": 48 * n}]}
    return doc


def check_ratio(device, n: int, repeats: int, so: bool) -> dict:
    from gpuia.harness.case import load_case
    from gpuia.harness.crosscheck import cross_check

    hlsl = _case({"hlsl": CHECK_HLSL}, n, so)
    wgsl = _case({"wgsl": CHECK_WGSL}, n, so)

    def run(doc):
        def once():
            result = cross_check(load_case(doc), [device], ("native", "pulling"))
            assert result.ok, result.text()
        return once

    run(hlsl)()
    run(wgsl)()  # warm: the disk cache, pipelines, the CPU build
    h = _median(run(hlsl), repeats)
    w = _median(run(wgsl), repeats)
    return {"vertices": n, "stream_output": so, "hlsl_s": h, "wgsl_s": w, "ratio": h / w}


def cpu_reference(n: int, repeats: int) -> dict:
    from gpuia.hlsl import compile_shader
    from gpuia.hlsl import cpu as hcpu

    shader = compile_shader(CHECK_HLSL)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GPUIA_CACHE_DIR"] = tmp
        hcpu._MEMORY.clear()
        t0 = time.perf_counter()
        hcpu.cpu_shader(compile_shader(CHECK_HLSL.replace("v.pos * 2", "v.pos * 3")))
        first_build_s = time.perf_counter() - t0  # with the cache's precompiled header made
        builds = []
        for k in range(repeats):  # other shaders: the precompiled header is there
            hcpu._MEMORY.clear()
            other = compile_shader(CHECK_HLSL.replace("v.pos * 2", f"v.pos * {k + 4}"))
            t0 = time.perf_counter()
            hcpu.cpu_shader(other)
            builds.append(time.perf_counter() - t0)
        build_s = statistics.median(builds)
        built = hcpu.cpu_shader(shader)
        rng = np.random.default_rng(2)
        pos = np.zeros((n, 4), np.uint32)
        pos[:, :3] = rng.uniform(-1, 1, (n, 3)).astype(np.float32).view(np.uint32)
        col = np.zeros((n, 4), np.uint32)
        col[:] = np.float32(0.5).view(np.uint32)
        m = np.eye(4, dtype=np.float32) * 0.5
        cb = np.r_[m.reshape(-1), [1, 0.5, 0.25, 1]].astype(np.float32).tobytes()
        vid = np.arange(n, dtype=np.uint32)
        iid = np.zeros(n, np.uint32)
        inputs = {"POSITION0": pos, "COLOR0": col}
        out = built.run(inputs, vid, iid, {0: cb})
        run_s = _median(lambda: built.run(inputs, vid, iid, {0: cb}), repeats)
        p4 = np.c_[pos[:, :3].view(np.float32), np.ones(n, np.float32)]
        numpy_s = _median(lambda: p4 @ m.T, repeats)
        np.testing.assert_allclose(out["SV_POSITION0"].view(np.float32), p4 @ m.T, rtol=1e-6)
    del os.environ["GPUIA_CACHE_DIR"]
    return {"vertices": n, "build_s": build_s, "first_build_s": first_build_s, "run_s": run_s,
            "vertices_per_s": n / run_s, "numpy_matmul_s": numpy_s, "threads": os.cpu_count()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    repeats = 3 if args.quick else 7
    from gpuia.gpu import get_device

    device = get_device()
    res = {"machine": platform.node(), "platform": platform.platform(),
           "python": platform.python_version(), "cpus": os.cpu_count(),
           "adapter": device.info["summary"]}
    res["session"] = session_seconds()
    res["first_compile_wait"] = first_compile_wait(repeats)
    res["compile"] = compile_times(repeats)
    n = 20_000 if args.quick else 100_000
    res["check_ia"] = check_ratio(device, n, repeats, so=False)
    from gpuia.errors import UnsupportedError

    try:
        res["check_so"] = check_ratio(device, n, repeats, so=True)
        res["cpu"] = cpu_reference(200_000 if args.quick else 1_000_000, repeats)
    except UnsupportedError as e:  # no C++ compiler here: the CPU reference cannot be built
        res["check_so"] = res["cpu"] = {"unavailable": str(e)}

    c, s = res["compile"], res["session"]
    rows = [
        ("Slang load + session (fresh process)", f"{s['load_and_session_s'] * 1e3:.0f} ms",
         "reported"),
        *((f"first compile's wait after the device, worker started {mode}",
           f"{w['compile_wait_s'] * 1e3:.0f} ms (device {w['device_s'] * 1e3:.0f} ms, "
           f"total {w['total_s'] * 1e3:.0f} ms)", "reported")
          for mode, w in res["first_compile_wait"].items()),
        ("first compile, typical VS", f"{c['first_compile_s'] * 1e3:.1f} ms",
         "OK" if c["first_compile_s"] <= 0.100 else "MISSED (<= 100 ms)"),
        ("cached compile, memory", f"{c['memory_hit_s'] * 1e3:.3f} ms",
         "OK" if c["memory_hit_s"] <= 0.002 else "MISSED (<= 2 ms)"),
        ("cached compile, disk", f"{c['disk_hit_s'] * 1e3:.3f} ms",
         "OK" if c["disk_hit_s"] <= 0.002 else "MISSED (<= 2 ms)"),
    ]
    for key, label in (("check_ia", "check HLSL / WGSL, IA"),
                       ("check_so", "check HLSL / WGSL, with Stream Output")):
        r = res[key]
        if "unavailable" in r:
            rows.append((label, "not measured", r["unavailable"][:60]))
            continue
        rows.append((f"{label} ({r['vertices']} vertices)",
                     f"{r['ratio']:.2f} ({r['hlsl_s'] * 1e3:.0f} / {r['wgsl_s'] * 1e3:.0f} ms)",
                     "OK" if r["ratio"] <= 1.2 else "MISSED (<= 1.2)"))
    cpu = res["cpu"]
    if "unavailable" not in cpu:
        rows.append(("CPU shader build (Slang C++ + host compiler)", f"{cpu['build_s']:.2f} s "
                     f"(the first in a new cache: {cpu['first_build_s']:.2f} s)", "reported"))
        rows.append((f"CPU shader run, {cpu['vertices']} vertices",
                     f"{cpu['run_s'] * 1e3:.1f} ms ({cpu['vertices_per_s'] / 1e6:.0f} M "
                     f"vertices/s; numpy matmul {cpu['numpy_matmul_s'] * 1e3:.1f} ms)",
                     "reported"))
    width = max(len(r[0]) for r in rows)
    print(f"HLSL benchmarks on {res['adapter']} ({res['machine']}, {res['cpus']} CPUs)")
    for name, value, verdict in rows:
        print(f"  {name:<{width}}  {value:<40}  {verdict}")
    out = Path(args.out) if args.out else ROOT / "benchmarks" / "results" / (
        "hlsl-quick.json" if args.quick else "hlsl.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
