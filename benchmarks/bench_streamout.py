"""Stream Output throughput against the fastest WGSL compute copy of the same bytes, per size.

For each size S (bytes read and bytes written, ``--sizes``): draws of S/16 points
(NO_RASTERIZED_STREAM) with one R32G32B32A32_FLOAT element (16 bytes per vertex, pulled)
streamed out whole (16 bytes per vertex) through gpuia's compute emulation of Stream Output,
against compute copies of S bytes between storage buffers on the same device in the same run:

* ``vec4_wg64`` and ``vec4_wg256``: one ``vec4<u32>`` per invocation, workgroups of 64 and 256;
* ``vec4x4_coalesced``: four ``vec4<u32>`` per invocation, invocation i copying i, i + N/4,
  i + 2N/4 and i + 3N/4 of the N vec4s (neighbouring invocations on neighbouring vec4s), all
  four loaded before any is stored;
* ``grid_stride``: a fixed grid of ``GRID_STRIDE_GROUPS`` workgroups of 256 looping over the
  vec4s a grid apart.

The fastest copy at each size is that size's baseline; ``copy_buffer_to_buffer`` of S bytes is
reported beside them (not a WGSL copy, not a baseline). Throughput counts bytes read + bytes
written (2S).

GPU time per operation is the *marginal* cost: K operations against one, ``(t_K - t_1) /
(K - 1)``, each the minimum over repeats of submit-to-completion wall time (a 4-byte readback
waits for the queue). That removes the fixed cost of a submission, which is large next to a
millisecond of GPU work. Host recording (Python encoding the draws or dispatches) is timed
apart and left out of the GPU time. The copies and, where the target fits, Stream Output put
their K operations in one submission; the K Stream Output draws then append to one target of
K * S bytes, as D3D draws do (``so_method: "append"``). A target over the adapter's
max-storage-buffer-binding-size is written in host-sized chunks (a counter readback per draw),
which is not what this measures, so when K * S bytes do not fit one binding (2 * S at least),
the K draws go to K contexts, each appending to its own counter over one S-byte target, and are
submitted back to back, one submission per context (``so_method: "contexts"``).

Sizes the adapter cannot hold are skipped with the reason printed: a buffer over
max-buffer-size skips the size; a vertex buffer view of S bytes must be one storage binding
(and D3D12's SizeInBytes is 32 bits), so over max-storage-buffer-binding-size the Stream Output
of that size is skipped while the copies, bound as windows of at most one binding, still run.

Targets (on the H200): Stream Output >= ``RATIO_TARGET`` of the fastest copy at every size, and
>= ``TBPS_TARGET`` TB/s at 1 GiB each way. The script prints whether each is met and exits 0
either way.

A separate single draw of ``--one-call`` vertices (default 2**26) checks that one call captures
them all (output compared with the input, NaN payloads aside). ``--cpu`` also times the CPU
reference (IA + Stream Output) on the smallest size, for the vertices/s ratio on software
adapters.

Run: python benchmarks/bench_streamout.py [--sizes 64M,256M,1G,4G] [--draws K] [--cpu]
[--quick] [--out FILE]
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import re
import time
from pathlib import Path

import numpy as np

from gpuia import (
    SO_NO_RASTERIZED_STREAM,
    DrawInstanced,
    InputLayout,
    SODeclarationEntry,
    StreamOutputBufferView,
    StreamOutputDesc,
    VertexBufferView,
)
from gpuia.gpu import Context, PipelineState, get_device

MIB = 1 << 20
GIB = 1 << 30
DEFAULT_SIZES = (64 * MIB, 256 * MIB, GIB, 4 * GIB)
QUICK_SIZES = (4 * MIB, 16 * MIB)
RATIO_TARGET = 0.9
TBPS_TARGET = 4.0
TBPS_TARGET_SIZE = GIB
GRID_STRIDE_GROUPS = 2048
"""Workgroups of the grid-stride copy: a few per multiprocessor on a large GPU, so every one
loops over many vec4s."""
_D3D_VIEW_MAX = 0xFFFFFFFF  # D3D12_VERTEX_BUFFER_VIEW.SizeInBytes is a UINT

_HEADER = """
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
"""
# name -> (WGSL, workgroup size, vec4s per invocation or None for a fixed grid)
COPIES = {
    "vec4_wg64": ("""
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
  let i = gid.x + gid.y * n.x * 64u;
  if (i < arrayLength(&src)) { dst[i] = src[i]; }
}
""", 64, 1),
    "vec4_wg256": ("""
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
  let i = gid.x + gid.y * n.x * 256u;
  if (i < arrayLength(&src)) { dst[i] = src[i]; }
}
""", 256, 1),
    "vec4x4_coalesced": ("""
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
  let total = arrayLength(&src);
  let q = (total + 3u) / 4u;
  let i = gid.x + gid.y * n.x * 256u;
  if (i >= q) { return; }
  // every load before any store: a store could alias a later load otherwise
  let a = src[i];
  var b = vec4<u32>(0u);
  var c = vec4<u32>(0u);
  var d = vec4<u32>(0u);
  if (i + q < total) { b = src[i + q]; }
  if (i + 2u * q < total) { c = src[i + 2u * q]; }
  if (i + 3u * q < total) { d = src[i + 3u * q]; }
  dst[i] = a;
  if (i + q < total) { dst[i + q] = b; }
  if (i + 2u * q < total) { dst[i + 2u * q] = c; }
  if (i + 3u * q < total) { dst[i + 3u * q] = d; }
}
""", 256, 4),
    "grid_stride": ("""
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
  let total = arrayLength(&src);
  let grid = n.x * n.y * 256u;
  for (var i = gid.x + gid.y * n.x * 256u; i < total; i += grid) { dst[i] = src[i]; }
}
""", 256, None),
}
LAYOUT = [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}]
# NO_RASTERIZED_STREAM: only the Stream Output is timed (the pass-through shader would
# otherwise rasterize every point onto the target's centre pixel).
DESC = StreamOutputDesc((SODeclarationEntry(0, "POSITION", 0, 0, 4, 0),), (16,),
                        SO_NO_RASTERIZED_STREAM)


def parse_size(text: str) -> int:
    """Bytes of ``64M``, ``64MiB``, ``1G``, ``512K`` or a plain byte count (binary units)."""
    m = re.fullmatch(r"\s*(\d+)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 64M, 1GiB, 4096)")
    size = int(m.group(1)) << (10 * " KMGT".index(m.group(2).upper() or " "))
    if size < 16 or size % 16:
        raise argparse.ArgumentTypeError(f"{text!r}: a size must be a positive multiple of 16 "
                                         "bytes (one 16-byte vertex each)")
    return size


def _sizes(text: str) -> list[int]:
    return [parse_size(t) for t in text.split(",") if t.strip()]


def _label(size: int) -> str:
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (1 << 10, "KiB")):
        if size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} B"


def _wait(dev):
    buf = getattr(_wait, "buf", None) or dev.device.create_buffer(size=4, usage="COPY_SRC")
    _wait.buf = buf
    dev.device.queue.read_buffer(buf)


def _best(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _measure(dev, prepare, record, submit, k, repeats):
    """Marginal cost of one operation, K recorded and submitted together against one.

    ``prepare()`` runs untimed; ``record(times)`` encodes the operations (host time only);
    ``submit(token)`` submits them, and the queue is then waited for. Returns seconds:
    ``gpu`` (submit to completion, marginal), ``record`` (encoding, per operation),
    ``end_to_end`` (both, marginal) and ``single`` (one operation, recorded and completed)."""
    def once(times):
        prepare()
        t0 = time.perf_counter()
        token = record(times)
        t1 = time.perf_counter()
        submit(token)
        _wait(dev)
        t2 = time.perf_counter()
        return np.array([t1 - t0, t2 - t1, t2 - t0])

    once(1)
    one = np.min([once(1) for _ in range(repeats)], axis=0)
    many = np.min([once(k) for _ in range(repeats)], axis=0)
    return {"gpu": (many[1] - one[1]) / (k - 1), "record": many[0] / k,
            "end_to_end": (many[2] - one[2]) / (k - 1), "single": one[2]}


def _pattern_buffer(dev, size: int):
    """A vertex buffer of ``size`` bytes holding a cheap non-repeating word pattern, written in
    pieces (one write of several GiB is more than a staging upload should hold)."""
    buf = dev.create_buffer(size=size, bind=("vertex_buffer",))
    piece = min(size, 64 * MIB)
    words = np.arange(piece // 4, dtype=np.uint32)
    for offset in range(0, size, piece):
        length = min(piece, size - offset)
        buf.write((words[:length // 4] + np.uint32(offset // 4)) * np.uint32(2654435761), offset)
    return buf


def _windows(size: int, caps) -> list[tuple[int, int]]:
    """(offset, bytes) windows of at most one storage binding covering ``size`` bytes, each
    starting on the binding-offset alignment."""
    align = max(256, caps.min_storage_buffer_offset_alignment)
    span = caps.max_storage_buffer_binding_size // align * align
    return [(o, min(span, size - o)) for o in range(0, size, span)]


def _grid(groups: int, caps) -> tuple[int, int]:
    x = min(groups, caps.max_compute_workgroups_per_dimension)
    return x, (groups + x - 1) // x


def bench_copies(dev, src, size, k, repeats, regions: int = 1):
    """Each compute copy of ``size`` bytes from ``src`` and copy_buffer_to_buffer, timed.
    ``regions`` > 1: operation i writes region ``i % regions`` of a destination of ``regions *
    size`` bytes (where K Stream Output draws append, each writes fresh memory); 1: every
    operation rewrites one destination (which a large cache may partly hold between them)."""
    d = dev.device
    caps = dev.caps
    dst = d.create_buffer(size=size * regions, usage="STORAGE|COPY_DST")
    results = {}
    for name, (body, wg, per) in COPIES.items():
        mod = d.create_shader_module(code=_HEADER + body)
        pipe = d.create_compute_pipeline(layout="auto",
                                         compute={"module": mod, "entry_point": "main"})
        per_region = []
        for r in range(regions):
            steps = []
            for off, length in _windows(size, caps):
                group = d.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[
                    {"binding": 0, "resource": {"buffer": src.wgpu, "offset": off,
                                                "size": length}},
                    {"binding": 1, "resource": {"buffer": dst, "offset": r * size + off,
                                                "size": length}}])
                vec4s = length // 16
                groups = (GRID_STRIDE_GROUPS if per is None
                          else ((vec4s + per - 1) // per + wg - 1) // wg)
                steps.append((group, _grid(min(groups, (vec4s + wg - 1) // wg), caps)))
            per_region.append(steps)

        def compute_copy(times, pipe=pipe, per_region=per_region):
            enc = d.create_command_encoder()
            for i in range(times):
                cp = enc.begin_compute_pass()
                cp.set_pipeline(pipe)
                for group, (x, y) in per_region[i % regions]:
                    cp.set_bind_group(0, group)
                    cp.dispatch_workgroups(x, y)
                cp.end()
            return enc

        results[name] = _measure(dev, lambda: None, compute_copy, _submit(d), k, repeats)

    def buffer_copy(times):
        enc = d.create_command_encoder()
        for i in range(times):
            enc.copy_buffer_to_buffer(src.wgpu, 0, dst, (i % regions) * size, size)
        return enc

    b2b = _measure(dev, lambda: None, buffer_copy, _submit(d), k, repeats)
    dst.destroy()
    return results, b2b


def _submit(d):
    def submit(enc):
        d.queue.submit([enc.finish()])
    return submit


def _so_context(dev, src):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(InputLayout(LAYOUT), stream_output=DESC))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(src, 16)])
    return ctx


def so_plan(size: int, k: int, caps) -> tuple[str | None, str, int]:
    """(reason Stream Output of ``size`` bytes is skipped or None, method, operations K)."""
    binding = caps.max_storage_buffer_binding_size
    if size > _D3D_VIEW_MAX:
        return (f"a {size}-byte vertex buffer view exceeds D3D12's 32-bit SizeInBytes "
                f"(and max-storage-buffer-binding-size {binding})"), "", 0
    if size > binding:
        return (f"the {size}-byte vertex buffer view needs one storage binding, over "
                f"max-storage-buffer-binding-size {binding}"), "", 0
    fits = min(binding, caps.max_buffer_size) // size
    if fits >= 2:
        return None, "append", min(k, fits)
    return None, "contexts", k


def bench_so(dev, src, size, k, method, repeats):
    """Stream Output of ``size`` bytes: K draws appending to one target (``append``) or one
    draw in each of K contexts over one target (``contexts``). Returns (times, BufferFilledSize
    per context after the K draws, expected filled size, statistics of the first context)."""
    n = size // 16
    targets = k if method == "append" else 1
    out = dev.create_buffer(size=size * targets, bind=("stream_output",))
    ctxs = [_so_context(dev, src) for _ in range(1 if method == "append" else k)]
    view = StreamOutputBufferView(out, size * targets)

    def prepare():
        for ctx in ctxs:
            ctx.so_set_targets([view], [0])  # rewinds BufferFilledSize (submits earlier work)
        _wait(dev)

    if method == "append":
        def record(times):
            for _ in range(times):
                ctxs[0].draw(DrawInstanced(n))  # consecutive draws append

        def submit(_):
            ctxs[0].flush()
    else:
        def record(times):
            for ctx in ctxs[:times]:
                ctx.draw(DrawInstanced(n))
            return times

        def submit(times):
            for ctx in ctxs[:times]:
                ctx.flush()

    times = _measure(dev, prepare, record, submit, k, repeats)
    filled = [ctx.so_filled_size(0) for ctx in ctxs]
    stats = ctxs[0].so_statistics()
    expected = size * (k if method == "append" else 1)
    for ctx in ctxs:
        ctx.so_set_targets([])
    ctxs.clear()
    gc.collect()
    out.release()
    return times, filled, expected, stats


def one_call(dev, n):
    """One draw of n vertices: every one captured, output equal to input (NaN payloads aside)."""
    rng = np.random.default_rng(4)
    data = rng.integers(0, 2**32, size=4 * n, dtype=np.uint32)
    src = dev.create_buffer(data)
    out = dev.create_buffer(size=16 * n, bind=("stream_output",))
    ctx = _so_context(dev, src)
    ctx.so_set_targets([StreamOutputBufferView(out, 16 * n)], [0])
    t0 = time.perf_counter()
    ctx.draw(DrawInstanced(n))
    ctx.flush()
    _wait(dev)
    seconds = time.perf_counter() - t0
    got = np.frombuffer(out.read(), np.uint32)
    nan = np.isnan(data.view(np.float32)) & np.isnan(got.view(np.float32))
    ok = bool(np.all((got == data) | nan)) and ctx.so_filled_size(0) == 16 * n
    ctx.so_set_targets([])
    del ctx
    src.release()
    out.release()
    return ok, seconds


def _tbps(size: int, seconds: float) -> float:
    return 2 * size / seconds / 1e12


def _rate(tbps: float) -> str:
    """TB/s as printed: GB/s below 0.1 TB/s (software adapters), where TB/s would show 0."""
    return f"{tbps:.3f} TB/s" if tbps >= 0.1 else f"{tbps * 1e3:.2f} GB/s"


def bench_size(dev, size, k, repeats):
    """Every measurement of one size: a dict for the JSON (``skipped``: why, where it is)."""
    caps = dev.caps
    row: dict = {"bytes_each_way": size, "vertices": size // 16}
    if size > caps.max_buffer_size:
        row["skipped"] = (f"a {size}-byte buffer exceeds max-buffer-size {caps.max_buffer_size}")
        print(f"{_label(size):>8}: skipped: {row['skipped']}")
        return row
    src = _pattern_buffer(dev, size)
    copies, b2b = bench_copies(dev, src, size, k, repeats)
    row["copies"] = {name: {"gpu_s": t["gpu"], "tbps": _tbps(size, t["gpu"]),
                            "record_s": t["record"], "end_to_end_s": t["end_to_end"],
                            "single_submit_s": t["single"]} for name, t in copies.items()}
    fastest = min(copies, key=lambda name: copies[name]["gpu"])
    row["fastest_copy"] = fastest
    row["fastest_copy_tbps"] = row["copies"][fastest]["tbps"]
    row["copy_buffer_to_buffer"] = {"gpu_s": b2b["gpu"], "tbps": _tbps(size, b2b["gpu"])}
    line = ", ".join(f"{name} {_rate(c['tbps'])}" for name, c in row["copies"].items())
    print(f"{_label(size):>8}: copies: {line}; copy_buffer_to_buffer "
          f"{_rate(row['copy_buffer_to_buffer']['tbps'])}")
    reason, method, k_so = so_plan(size, k, caps)
    regions = min(k, caps.max_buffer_size // size)
    if regions > 1:
        fresh, _ = bench_copies(dev, src, size, k, repeats, regions)
        row["copies_to_regions"] = {name: {"gpu_s": t["gpu"], "tbps": _tbps(size, t["gpu"])}
                                    for name, t in fresh.items()}
        row["copies_to_regions_count"] = regions
        fastest_fresh = min(fresh, key=lambda name: fresh[name]["gpu"])
        row["fastest_copy_to_regions"] = fastest_fresh
        line = ", ".join(f"{name} {_rate(c['tbps'])}"
                         for name, c in row["copies_to_regions"].items())
        print(f"{'':>8}  copies, each to its own region of {regions}: {line}")
    if reason is not None:
        row["so_skipped"] = reason
        print(f"{'':>8}  Stream Output skipped: {reason}")
        src.release()
        return row
    so, filled, expected, stats = bench_so(dev, src, size, k_so, method, repeats)
    src.release()
    ratio = copies[fastest]["gpu"] / so["gpu"]
    row["so"] = {"method": method, "draws": k_so, "gpu_s": so["gpu"],
                 "tbps": _tbps(size, so["gpu"]), "vertices_per_s": size // 16 / so["gpu"],
                 "record_s": so["record"], "end_to_end_s": so["end_to_end"],
                 "single_submit_s": so["single"], "filled_sizes": filled,
                 "filled_expected": expected, "filled_ok": all(f == expected for f in filled),
                 "statistics": stats}
    row["so_vs_fastest_copy"] = ratio
    if "fastest_copy_to_regions" in row:
        best = row["copies_to_regions"][row["fastest_copy_to_regions"]]["gpu_s"]
        row["so_vs_fastest_copy_to_regions"] = best / so["gpu"]
    targets = {"ratio": {"target": RATIO_TARGET, "met": bool(ratio >= RATIO_TARGET)}}
    if size == TBPS_TARGET_SIZE:
        targets["tbps"] = {"target": TBPS_TARGET, "met": bool(row["so"]["tbps"] >= TBPS_TARGET)}
    row["targets"] = targets
    met = "; ".join(f"{name} {'met' if t['met'] else 'NOT met'} (>= {t['target']})"
                    for name, t in targets.items())
    print(f"{'':>8}  Stream Output ({method}, K={k_so}): {so['gpu'] * 1e3:.3f} ms, "
          f"{_rate(row['so']['tbps'])}; SO / fastest copy ({fastest}) {ratio:.3f}; {met}; "
          f"filled {'ok' if row['so']['filled_ok'] else f'WRONG {filled} != {expected}'}; "
          f"host recording per draw {so['record'] * 1e6:.1f} us")
    if "so_vs_fastest_copy_to_regions" in row:
        print(f"{'':>8}  SO / fastest copy to regions ({row['fastest_copy_to_regions']}) "
              f"{row['so_vs_fastest_copy_to_regions']:.3f}")
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=_sizes, default=None,
                    help="bytes each way, comma-separated (64M,256M,1G,4G by default)")
    ap.add_argument("--draws", type=int, default=6, help="K operations per timed submission")
    ap.add_argument("--one-call", type=int, default=1 << 26)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--cpu", action="store_true", help="also time the CPU reference")
    ap.add_argument("--quick", action="store_true",
                    help="4 MiB and 16 MiB, 4 operations, 3 repeats, 1M vertices in one call")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "streamout.json"))
    args = ap.parse_args()
    if args.draws < 2:
        ap.error("--draws must be at least 2 (the marginal cost needs two counts)")
    sizes = args.sizes or list(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    k, repeats, one_n = (4, 3, 1 << 20) if args.quick else (args.draws, args.repeats,
                                                             args.one_call)
    dev = get_device(args.adapter)
    caps = dev.caps
    print(f"adapter: {dev.info['summary']}; max-buffer-size {caps.max_buffer_size}, "
          f"max-storage-buffer-binding-size {caps.max_storage_buffer_binding_size}; marginal "
          f"cost of {k} operations; TB/s = (read + written) / marginal GPU time")
    rows = [bench_size(dev, size, k, repeats) for size in sizes]
    result = {"adapter": dev.info, "python": platform.python_version(), "draws": k,
              "repeats": repeats, "grid_stride_groups": GRID_STRIDE_GROUPS,
              "limits": {"max_buffer_size": caps.max_buffer_size,
                         "max_storage_buffer_binding_size": caps.max_storage_buffer_binding_size},
              "targets": {"so_vs_fastest_copy": RATIO_TARGET, "so_tbps": TBPS_TARGET,
                          "so_tbps_at_bytes": TBPS_TARGET_SIZE},
              "sizes": rows}
    if 16 * one_n <= min(caps.max_storage_buffer_binding_size, caps.max_buffer_size):
        ok, one_s = one_call(dev, one_n)
        result.update({"one_call_vertices": one_n, "one_call_matches": ok, "one_call_s": one_s})
        print(f"one call of {one_n:,} vertices: {one_s * 1e3:.1f} ms, output "
              f"{'matches' if ok else 'DIFFERS from'} input")
    else:
        print(f"one call of {one_n:,} vertices skipped: {16 * one_n} bytes exceed one storage "
              "binding")
    if args.cpu:
        from gpuia.d3d.so_declaration import resolve_stream_output
        from gpuia.reference import run_ia
        from gpuia.reference.stream_output import SOTarget, stream_output
        from gpuia.reference.vertex import pass_through_outputs
        from gpuia.wgsl import pass_through_signature

        n = min(sizes) // 16
        data = np.random.default_rng(3).integers(0, 2**32, size=4 * n, dtype=np.uint32)
        layout = InputLayout(LAYOUT)
        so = resolve_stream_output(DESC, pass_through_signature(layout))

        def cpu():
            ia = run_ia(layout, {0: VertexBufferView(data, 16)}, DrawInstanced(n),
                        topology="POINTLIST")
            return stream_output(ia, so, pass_through_outputs(ia, layout),
                                 {0: SOTarget(bytes(16 * n))})

        t_cpu = _best(cpu, 3)
        timed = [r for r in rows if r["vertices"] == n and "so" in r]
        result.update({"cpu_reference_vertices": n, "cpu_reference_s": t_cpu,
                       "cpu_vertices_per_s": n / t_cpu})
        line = f"CPU reference, {n:,} vertices: {t_cpu * 1e3:.3f} ms ({n / t_cpu / 1e6:.1f} M/s)"
        if timed:
            result["gpu_vs_cpu_vertices_per_s"] = t_cpu / timed[0]["so"]["gpu_s"]
            line += f"; GPU/CPU vertices/s ratio {result['gpu_vs_cpu_vertices_per_s']:.2f}"
        print(line)
    measured = [r for r in rows if "so" in r]
    print("summary: " + ("; ".join(
        f"{_label(r['bytes_each_way'])} SO {_rate(r['so']['tbps'])}, "
        f"{r['so_vs_fastest_copy']:.2f} of {r['fastest_copy']} "
        f"({'all targets met' if all(t['met'] for t in r['targets'].values()) else 'NOT met'})"
        for r in measured) or "no size measured"))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
