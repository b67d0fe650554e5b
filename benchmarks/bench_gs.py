"""The geometry shader stage against the VS-only Stream Output path and a compute copy, per size.

Each size N (``--points``) is N points expanded by an HLSL geometry shader into 4-vertex quads
(one ``TriangleStream`` strip of 4 Appends: 2 triangles, 6 vertices) and streamed out as
``float2`` records (POSITION, 8 bytes): 48 bytes per point. In the same run, alternating with it
repeat by repeat, the same bytes are written by:

* **VS-only Stream Output**: the pass-through vertex shader drawing a TRIANGLELIST of 6 vertices
  per instance over N instances, the point as per-instance data (InstanceDataStepRate 1), so it
  reads the same 8 bytes per point and writes the same 48;
* **compute copy**: a WGSL compute shader copying 48 N bytes between two storage buffers, one
  ``vec4<u32>`` per invocation in workgroups of 256, in windows of at most one storage binding;
  ``copy_buffer_to_buffer`` of the same bytes is printed beside it (not a baseline).

Times: wall clock, the median over ``--repeats`` after one warm-up. **End to end** (the ratios'
measure) runs from the draw call (or the copy's encoding) to the completion of a 4-byte readback
that waits for the queue; **recording** is the draw call (for the geometry shader also building
and uploading the input primitives), **submission to completion** the rest (``Context.flush``
or ``queue.submit``, then the wait). For the geometry shader this covers all its dispatches: the
vertex shader pass into the shader's input records, and per chunk the shader's program and the
expansion (count, scan, fit, write). Where the SO target exceeds one storage binding the
geometry shader draw submits each chunk and reads the filled size back itself, so its GPU work
falls in its recording: only the end-to-end ratios are given there. Each size runs in a process
of its own: **peak host memory** is that process's ``ru_maxrss`` after the first geometry
shader draw (``resource.getrusage``; on a software adapter GPU buffers are host memory and
count), beside its RSS just before that draw (device, shader and buffers made) and the peak of
Python and numpy allocations during the draw (``tracemalloc``).

Every output is checked against numpy on its first run: the quads' corners are the point plus
offsets of 2**-6 (exact in float32), in D3D's strip order (rules 9.3); the statistics and
BufferFilledSize are checked too. A draw gpuia refuses (gpuia's error, e.g. a limit of the
adapter) is printed with its reason and the size carries on with the baselines.

The CPU reference (IA, pass-through vertex shader, the geometry shader built for the CPU,
expansion and Stream Output in numpy: ``gpuia.harness.run``'s ``reference_ia``,
``reference_gs``, ``reference_so``) runs on ``--cpu-points`` points in a process of its own; its
time is given per million geometry shader invocations (one per point).

Target (on the H200): GS pass / VS-only Stream Output <= ``RATIO_TARGET``, end to end. The script
prints whether it is met and exits 0 either way.

Run: python benchmarks/bench_gs.py [--points 1M,10M] [--repeats 5] [--cpu-points 100000]
[--adapter S] [--quick] [--out FILE]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # measure the gpuia of this checkout, not an installed one
RATIO_TARGET = 1.5
DEFAULT_POINTS = (1_000_000, 10_000_000)
QUICK_POINTS = (100_000, 1_000_000)
RECORD = 8  # bytes of one streamed-out vertex: float2 POSITION
VERTICES = 6  # per point: a strip of 4 streamed out as 2 triangles
D = 0.015625  # 2**-6: the corners' offsets, exact in float32
GS_HLSL = """
struct V { float2 pos : POSITION; };
[maxvertexcount(4)]
void main(point V v[1], inout TriangleStream<V> s) {
    V o;
    o.pos = v[0].pos + float2(-@D, -@D); s.Append(o);
    o.pos = v[0].pos + float2( @D, -@D); s.Append(o);
    o.pos = v[0].pos + float2(-@D,  @D); s.Append(o);
    o.pos = v[0].pos + float2( @D,  @D); s.Append(o);
}
""".replace("@D", repr(D))
# The strip's corners (v0 v1 v2 v3) as Stream Output writes its two triangles: (0, 1, 2) and,
# the second one odd, (1, 3, 2) (rules 9.3).
CORNERS = np.array([[-D, -D], [D, -D], [-D, D], [D, -D], [D, D], [-D, D]], np.float32)
COPY_WGSL = """
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
  let i = gid.x + gid.y * n.x * 256u;
  if (i < arrayLength(&src)) { dst[i] = src[i]; }
}
"""
LAYOUT_GS = [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}]
LAYOUT_VS = [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT",
              "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}]


def parse_count(text: str) -> int:
    """``1M``, ``10M``, ``100k`` or a plain count (decimal units)."""
    m = re.fullmatch(r"\s*(\d+)\s*([kKmM]?)\s*", text)
    if not m or int(m.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"not a point count: {text!r} (e.g. 100k, 1M, 4096)")
    return int(m.group(1)) * {"": 1, "K": 10**3, "M": 10**6}[m.group(2).upper()]


def _counts(text: str) -> list[int]:
    return [parse_count(t) for t in text.split(",") if t.strip()]


def _points(n: int) -> np.ndarray:
    return np.random.default_rng(7).random((n, 2), dtype=np.float32)


def _expected(pts: np.ndarray) -> np.ndarray:
    """(n, 6, 2) float32: each point's two triangles as Stream Output writes them."""
    return pts[:, None, :] + CORNERS[None, :, :]


def _repeated(pts: np.ndarray) -> np.ndarray:
    """(n, 6, 2) float32: each point six times, as the pass-through vertex shader writes it."""
    return np.repeat(pts[:, None, :], VERTICES, axis=1)


def _rss_mib() -> float:
    """The process's resident set now, MiB (/proc/self/statm)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


class _Gpu:
    """The device, the shader, the buffers and the three ways of writing the bytes of one size."""

    def __init__(self, adapter: str | None, n: int):
        from gpuia import (
            SO_NO_RASTERIZED_STREAM,
            InputLayout,
            SODeclarationEntry,
            StreamOutputDesc,
        )
        from gpuia.gpu import Context, PipelineState, get_device
        from gpuia.hlsl import compile_geometry_shader

        self.dev = get_device(adapter)
        self.n = n
        self.nbytes = VERTICES * RECORD * n
        self.pts = _points(n)
        self.src = self.dev.create_buffer(self.pts.tobytes())
        self.out = self.dev.create_buffer(size=self.nbytes, bind=("stream_output",))
        self._wait_buf = self.dev.device.create_buffer(size=4, usage="COPY_SRC")
        so = StreamOutputDesc((SODeclarationEntry(0, "POSITION", 0, 0, 2, 0),), (RECORD,),
                              SO_NO_RASTERIZED_STREAM)
        self.gs_ctx = Context(self.dev)
        gs = compile_geometry_shader(GS_HLSL)
        self.gs_ctx.set_pipeline_state(PipelineState(InputLayout(LAYOUT_GS), stream_output=so,
                                                     geometry_shader=gs))
        self.gs_ctx.ia_set_primitive_topology("POINTLIST")
        self.gs_ctx.ia_set_vertex_buffers(0, [self.src], [RECORD], [0])
        self.vs_ctx = Context(self.dev)
        self.vs_ctx.set_pipeline_state(PipelineState(InputLayout(LAYOUT_VS), stream_output=so))
        self.vs_ctx.ia_set_primitive_topology("TRIANGLELIST")
        self.vs_ctx.ia_set_vertex_buffers(0, [self.src], [RECORD], [0])
        self.copy_dst = None

    def wait(self) -> None:
        self.dev.device.queue.read_buffer(self._wait_buf)

    def _so_run(self, ctx, draw) -> dict:
        from gpuia import StreamOutputBufferView

        ctx.so_set_targets([StreamOutputBufferView(self.out)], [0])  # rewinds the counter
        self.wait()
        t0 = time.perf_counter()
        draw()
        t1 = time.perf_counter()
        ctx.flush()
        self.wait()
        t2 = time.perf_counter()
        return {"record_s": t1 - t0, "gpu_s": t2 - t1, "end_to_end_s": t2 - t0}

    def gs(self) -> dict:
        return self._so_run(self.gs_ctx, lambda: self.gs_ctx.draw_instanced(self.n))

    def vs(self) -> dict:
        return self._so_run(self.vs_ctx, lambda: self.vs_ctx.draw_instanced(VERTICES, self.n))

    def check(self, ctx, runs: int, expected=None) -> str | None:
        """Why the last draw of ``ctx`` is wrong, or None: BufferFilledSize, the statistics
        (cumulative over its ``runs`` draws) and, given ``expected`` (points -> their (k, 6, 2)
        records), the records of the first and last (up to) 2**18 points."""
        if ctx.so_filled_size(0) != self.nbytes:
            return f"BufferFilledSize {ctx.so_filled_size(0)} != {self.nbytes}"
        want = {"NumPrimitivesWritten": 2 * self.n * runs,
                "PrimitivesStorageNeeded": 2 * self.n * runs}
        if ctx.so_statistics(0) != want:
            return f"statistics {ctx.so_statistics(0)} != {want}"
        part = min(self.n, 1 << 18)
        for first in sorted({0, self.n - part}) if expected is not None else ():
            got = np.frombuffer(self.dev.device.queue.read_buffer(
                self.out.wgpu, first * VERTICES * RECORD, part * VERTICES * RECORD), np.float32)
            want_rows = expected(self.pts[first:first + part])
            if not np.array_equal(got.reshape(want_rows.shape), want_rows):
                return f"records of points {first}..{first + part - 1} differ from numpy"
        return None

    def copies(self) -> tuple:
        """(compute copy, copy_buffer_to_buffer) of ``nbytes`` from the SO target to a buffer of
        the same size, each a function returning its times."""
        d = self.dev.device
        caps = self.dev.caps
        if self.copy_dst is None:
            self.copy_dst = d.create_buffer(size=self.nbytes, usage="STORAGE|COPY_DST")
        pipe = d.create_compute_pipeline(layout="auto", compute={
            "module": d.create_shader_module(code=COPY_WGSL), "entry_point": "main"})
        align = max(256, caps.min_storage_buffer_offset_alignment)
        span = min(caps.max_storage_buffer_binding_size, caps.max_buffer_size) // align * align
        steps = []
        for off in range(0, self.nbytes, span):
            length = min(span, self.nbytes - off)
            group = d.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[
                {"binding": b, "resource": {"buffer": buf, "offset": off, "size": length}}
                for b, buf in enumerate((self.out.wgpu, self.copy_dst))])
            groups = (length // 16 + 255) // 256
            x = min(groups, caps.max_compute_workgroups_per_dimension)
            steps.append((group, x, (groups + x - 1) // x))

        def compute(enc):
            cp = enc.begin_compute_pass()
            cp.set_pipeline(pipe)
            for group, x, y in steps:
                cp.set_bind_group(0, group)
                cp.dispatch_workgroups(x, y)
            cp.end()

        def b2b(enc):
            enc.copy_buffer_to_buffer(self.out.wgpu, 0, self.copy_dst, 0, self.nbytes)

        return self._timed(compute), self._timed(b2b)

    def _timed(self, encode):
        d = self.dev.device

        def run() -> dict:
            self.wait()
            t0 = time.perf_counter()
            enc = d.create_command_encoder()
            encode(enc)
            buf = enc.finish()
            t1 = time.perf_counter()
            d.queue.submit([buf])
            self.wait()
            t2 = time.perf_counter()
            return {"record_s": t1 - t0, "gpu_s": t2 - t1, "end_to_end_s": t2 - t0}
        return run


def _median(runs: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def _first(run, row: dict, name: str) -> bool:
    """The warm-up run of ``name``; False where gpuia refused it (the reason in ``row``)."""
    from gpuia.errors import GpuiaError

    try:
        run()
    except GpuiaError as err:
        row[f"{name}_refused"] = f"{type(err).__name__}: {err}"
        return False
    return True


def child(n: int, repeats: int, adapter: str | None) -> dict:
    """Every GPU measurement of one size (module docstring), in this process."""
    gpu = _Gpu(adapter, n)
    caps = gpu.dev.caps
    row: dict = {"points": n, "bytes": gpu.nbytes, "adapter": gpu.dev.info,
                 "max_storage_buffer_binding_size": caps.max_storage_buffer_binding_size,
                 "max_buffer_size": caps.max_buffer_size}
    row["gs_submits_in_draw"] = gpu.nbytes > min(caps.max_storage_buffer_binding_size,
                                                  caps.max_buffer_size)
    row["rss_before_gs_mib"] = _rss_mib()
    kinds = {}
    tracemalloc.start()
    gs_ok = _first(gpu.gs, row, "gs")  # first: the peaks below are the geometry shader's
    row["gs_traced_peak_mib"] = tracemalloc.get_traced_memory()[1] / (1 << 20)
    tracemalloc.stop()
    row["peak_rss_mib"] = _peak_mib()
    if gs_ok:
        kinds["gs"] = gpu.gs
        row["gs_check"] = gpu.check(gpu.gs_ctx, 1, _expected) or "ok"
    if _first(gpu.vs, row, "vs_so"):
        kinds["vs_so"] = gpu.vs
        row["vs_so_check"] = gpu.check(gpu.vs_ctx, 1, _repeated) or "ok"
    kinds["compute_copy"], kinds["copy_buffer_to_buffer"] = gpu.copies()
    kinds["compute_copy"]()
    kinds["copy_buffer_to_buffer"]()
    runs: dict[str, list[dict]] = {k: [] for k in kinds}
    names = list(kinds)
    for r in range(repeats):
        for name in names[r % len(names):] + names[:r % len(names)]:  # rotate the order
            runs[name].append(kinds[name]())
    row["times"] = {k: _median(v) for k, v in runs.items()}
    row["repeats"] = repeats
    for name, ctx in (("gs", gpu.gs_ctx), ("vs_so", gpu.vs_ctx)):
        if name in kinds:  # the shared target holds the last writer's: counts only
            row[f"{name}_check_after"] = gpu.check(ctx, 1 + repeats) or "ok"
    return row


def cpu_child(n: int, repeats: int) -> dict:
    """The CPU reference of the same draw on ``n`` points: the median time of IA, the geometry
    shader stage and Stream Output after one warm-up run (which builds the shader)."""
    from gpuia.harness.case import load_case
    from gpuia.harness.run import reference_gs, reference_ia, reference_so

    pts = _points(n)
    doc = {"gpuia_case": 1, "name": "bench_gs", "input_layout": LAYOUT_GS,
           "vertex_buffers": [{"slot": 0, "stride": RECORD, "data": {
               "base64": base64.b64encode(pts.tobytes()).decode()}}],
           "primitive_topology": "POINTLIST",
           "draw": [{"DrawInstanced": {"VertexCountPerInstance": n}}],
           "geometry_shader": {"hlsl": GS_HLSL},
           "stream_output": {"declaration": [{"SemanticName": "POSITION", "ComponentCount": 2}],
                             "buffer_strides": [RECORD],
                             "rasterized_stream": "NO_RASTERIZED_STREAM",
                             "targets": [{"slot": 0, "size": VERTICES * RECORD * n}]}}
    case = load_case(doc)

    def run():
        t0 = time.perf_counter()
        ia = reference_ia(case)
        t1 = time.perf_counter()
        gs = reference_gs(case, ia)
        t2 = time.perf_counter()
        so = reference_so(case, ia, gs)
        t3 = time.perf_counter()
        return so, {"ia_s": t1 - t0, "gs_s": t2 - t1, "so_s": t3 - t2, "total_s": t3 - t0}

    so, _ = run()
    got = np.frombuffer(bytes(so.buffers[0]), np.float32)
    ok = np.array_equal(got.reshape(n, VERTICES, 2), _expected(pts))
    times = _median([run()[1] for _ in range(repeats)])
    return {"points": n, "invocations": n, "repeats": repeats, "times": times,
            "per_million_invocations_s": times["total_s"] * 1e6 / n,
            "check": "ok" if ok else "records differ from numpy"}


def _tree() -> str:
    """The checkout measured: its commit, ``+changes`` where its files differ from it."""
    def git(*args):
        return subprocess.run(["git", "-C", str(HERE.parent), *args], capture_output=True,
                              text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def _machine() -> dict:
    model = next((line.split(":", 1)[1].strip() for line in
                  Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    return {"cpu": model, "cpus": os.cpu_count(), "os": platform.platform(),
            "python": platform.python_version(), "numpy": np.__version__, "tree": _tree()}


def _spawn(args: list[str], timeout: float) -> dict:
    """Run this script's child mode; its last stdout line is its JSON, or an error."""
    cmd = [sys.executable, __file__, *args]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:g} s"}
    lines = p.stdout.strip().splitlines()
    if p.returncode or not lines:
        return {"error": (p.stderr.strip() or f"exit {p.returncode}")[-800:]}
    return json.loads(lines[-1])


def _ms(t: dict | None, key: str = "gpu_s") -> str:
    return "n/a" if t is None else f"{t[key] * 1e3:.1f} ms"


def _line(name: str, t: dict | None) -> str:
    if t is None:
        return f"{name} n/a"
    return (f"{name} {_ms(t, 'end_to_end_s')} (recording {_ms(t, 'record_s')}, "
            f"submission to completion {_ms(t)})")


def _ratios(gs: dict, bases: dict, submits: bool) -> dict:
    """GS against each baseline: end to end, and submission to completion where the GS draw
    submits nothing itself."""
    out = {}
    for name, base in bases.items():
        if base is not None:
            out[f"gs_vs_{name}"] = gs["end_to_end_s"] / base["end_to_end_s"]
            if not submits:
                out[f"gs_vs_{name}_submission"] = gs["gpu_s"] / base["gpu_s"]
    return out


def report(row: dict) -> None:
    """Print one size's lines and add its ratios and verdict to ``row``."""
    n = row["points"]
    head = f"{n:>11,} points ({row.get('bytes', VERTICES * RECORD * n) / 1e6:.0f} MB of SO)"
    if "error" in row:
        print(f"{head}: error: {row['error'].splitlines()[-1]}")
        return
    t = row["times"]
    gs, vs, copy = t.get("gs"), t.get("vs_so"), t.get("compute_copy")
    pad = " " * 13
    print(f"{head}, median of {row['repeats']}, end to end:")
    for name, key in (("GS pass", "gs"), ("VS-only SO", "vs_so"), ("compute copy",
                                                                   "compute_copy"),
                      ("copy_buffer_to_buffer", "copy_buffer_to_buffer")):
        print(f"{pad}{_line(name, t.get(key))}")
    for key in ("gs_refused", "vs_so_refused"):
        if key in row:
            print(f"{pad}{key.split('_refused')[0]} refused: {row[key]}")
    if gs is not None:
        if row["gs_submits_in_draw"]:
            print(f"{pad}the SO target exceeds one storage binding: the GS draw submits each "
                  "chunk and reads back the filled size itself, so its GPU time is in its "
                  "recording")
        row["ratios"] = _ratios(gs, {"vs_so": vs, "compute_copy": copy},
                                row["gs_submits_in_draw"])
        if "gs_vs_vs_so" in row["ratios"]:
            row["target"] = {"gs_vs_vs_so": RATIO_TARGET,
                             "met": bool(row["ratios"]["gs_vs_vs_so"] <= RATIO_TARGET)}
        print(f"{pad}" + ", ".join(f"{k} {v:.2f}" for k, v in row["ratios"].items())
              + (f"; GS / VS-only SO <= {RATIO_TARGET}: "
                 f"{'met' if row['target']['met'] else 'NOT met'}" if "target" in row else ""))
        print(f"{pad}GS output {row['gs_check']}, counts after the repeats "
              f"{row['gs_check_after']}")
    if vs is not None:
        print(f"{pad}VS-only SO output {row['vs_so_check']}, counts after the repeats "
              f"{row['vs_so_check_after']}")
    what = "up to the refusal" if "gs_refused" in row else "after the first GS draw"
    print(f"{pad}peak RSS {what} {row['peak_rss_mib']:.0f} MiB (RSS before it "
          f"{row['rss_before_gs_mib']:.0f} MiB); peak of Python and numpy allocations during "
          f"it (tracemalloc) {row['gs_traced_peak_mib']:.0f} MiB")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=_counts, default=None,
                    help="points per draw, comma-separated (1M,10M by default)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cpu-points", type=parse_count, default=100_000)
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--timeout", type=float, default=900, help="seconds per size")
    ap.add_argument("--quick", action="store_true",
                    help="100k and 1M points, 3 repeats, the CPU reference on 20k points")
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--cpu-child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.quick:
        args.repeats, args.cpu_points = min(args.repeats, 3), min(args.cpu_points, 20_000)
    if args.child is not None:
        print(json.dumps(child(args.child, args.repeats, args.adapter)))
        return 0
    if args.cpu_child is not None:
        print(json.dumps(cpu_child(args.cpu_child, args.repeats)))
        return 0
    sizes = args.points or list(QUICK_POINTS if args.quick else DEFAULT_POINTS)
    machine = _machine()
    print(f"machine: {machine['cpu']}, {machine['cpus']} CPUs, {machine['os']}, Python "
          f"{machine['python']}, numpy {machine['numpy']}; gpuia of {HERE.parent} at "
          f"{machine['tree']}")
    common = ["--repeats", str(args.repeats)] + (["--adapter", args.adapter] if args.adapter
                                                 else [])
    rows: list[dict] = []
    for n in sizes:
        row = {"points": n, **_spawn(["--child", str(n), *common], args.timeout)}
        if len(rows) == 0 and "adapter" in row:
            print(f"adapter: {row['adapter']['summary']}; max-storage-buffer-binding-size "
                  f"{row['max_storage_buffer_binding_size']}")
        report(row)
        rows.append(row)
    cpu = {"points": args.cpu_points, **_spawn(["--cpu-child", str(args.cpu_points),
                                                "--repeats", str(args.repeats)], args.timeout)}
    if "error" in cpu:
        print(f"CPU reference: error: {cpu['error'].splitlines()[-1]}")
    else:
        tm = cpu["times"]
        print(f"CPU reference, {cpu['points']:,} points (median of {cpu['repeats']}): "
              f"{tm['total_s'] * 1e3:.0f} ms (IA {tm['ia_s'] * 1e3:.0f}, GS stage "
              f"{tm['gs_s'] * 1e3:.0f}, SO {tm['so_s'] * 1e3:.0f}); "
              f"{cpu['per_million_invocations_s']:.2f} s per million invocations; "
              f"output {cpu['check']}")
    out = Path(args.out or HERE / "results" / ("gs-quick.json" if args.quick else "gs.json"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"machine": machine, "record_bytes": RECORD,
                               "vertices_per_point": VERTICES, "target": RATIO_TARGET,
                               "sizes": rows, "cpu_reference": cpu}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
