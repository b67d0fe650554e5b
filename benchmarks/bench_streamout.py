"""Stream Output throughput against a plain compute copy of the same bytes, in the same run.

One draw of N points (NO_RASTERIZED_STREAM) (default 2**26 on a real GPU) with one R32G32B32A32_FLOAT element (16 bytes
per vertex, pulled) streamed out whole (16 bytes per vertex) through gpuia's compute emulation of
Stream Output. Throughput counts input bytes read + SO bytes written. Baselines on the same
device, same run: a compute shader copying one ``vec4<u32>`` per invocation from one storage
buffer to another (16N bytes read + 16N written), and ``copy_buffer_to_buffer`` of 16N bytes.
Target on a real GPU: SO >= 80% of the compute copy. Each measurement is the minimum over
repeats of submit-to-completion wall time (a 4-byte readback waits for the queue).

``--cpu`` also times the CPU reference (IA + Stream Output) on the same draw, for the
vertices/s ratio on software adapters. The GPU output is checked against the input bytes.

Run: python benchmarks/bench_streamout.py [--vertices N] [--cpu] [--quick]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from gpuia import SO_NO_RASTERIZED_STREAM, DrawInstanced, InputLayout, SODeclarationEntry, \
    StreamOutputBufferView, StreamOutputDesc, VertexBufferView
from gpuia.gpu import Context, PipelineState, get_device

COPY_WGSL = """
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
  let i = gid.x + gid.y * n.x * 256u;
  if (i < arrayLength(&src)) { dst[i] = src[i]; }
}
"""


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


def bench_copy(dev, src, n, repeats):
    d = dev.device
    dst = d.create_buffer(size=16 * n, usage="STORAGE|COPY_DST")
    mod = d.create_shader_module(code=COPY_WGSL)
    pipe = d.create_compute_pipeline(layout="auto", compute={"module": mod, "entry_point": "main"})
    group = d.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[
        {"binding": 0, "resource": {"buffer": src.wgpu, "offset": 0, "size": 16 * n}},
        {"binding": 1, "resource": {"buffer": dst, "offset": 0, "size": 16 * n}}])
    groups = (n + 255) // 256
    x = min(groups, dev.caps.max_compute_workgroups_per_dimension)
    y = (groups + x - 1) // x

    def compute_copy():
        enc = d.create_command_encoder()
        cp = enc.begin_compute_pass()
        cp.set_pipeline(pipe)
        cp.set_bind_group(0, group)
        cp.dispatch_workgroups(x, y)
        cp.end()
        d.queue.submit([enc.finish()])
        _wait(dev)

    def buffer_copy():
        enc = d.create_command_encoder()
        enc.copy_buffer_to_buffer(src.wgpu, 0, dst, 0, 16 * n)
        d.queue.submit([enc.finish()])
        _wait(dev)

    compute_copy()
    buffer_copy()
    return _best(compute_copy, repeats), _best(buffer_copy, repeats)


def bench_so(dev, src, n, repeats):
    layout = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}])
    # NO_RASTERIZED_STREAM: only the Stream Output is timed (the pass-through shader would
    # otherwise rasterize every point onto the target's centre pixel).
    desc = StreamOutputDesc((SODeclarationEntry(0, "POSITION", 0, 0, 4, 0),), (16,),
                            SO_NO_RASTERIZED_STREAM)
    out = dev.create_buffer(size=16 * n, bind=("stream_output",))
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(layout, stream_output=desc,
                                         strip_cut_value="DISABLED"))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(src, 16)])
    ctx.set_path("pulling")
    view = StreamOutputBufferView(out, 16 * n)

    def one():
        ctx.so_set_targets([view], [0])  # rewinds BufferFilledSize (and submits earlier work)
        ctx.draw(DrawInstanced(n))
        ctx.flush()
        _wait(dev)

    # Rewinding costs a submit + a 4-byte write: measured alone and subtracted.
    def rewind():
        ctx.so_set_targets([view], [0])
        _wait(dev)

    t_rewind = _best(rewind, repeats)
    one()
    t = _best(one, repeats)
    filled = ctx.so_filled_size(0)
    stats = ctx.so_statistics()
    return t, t_rewind, out, filled, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vertices", type=int, default=1 << 26)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--cpu", action="store_true", help="also time the CPU reference")
    ap.add_argument("--quick", action="store_true", help="1M vertices")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "streamout.json"))
    args = ap.parse_args()
    n = (1 << 20) if args.quick else args.vertices
    dev = get_device(args.adapter)
    print(f"adapter: {dev.info['summary']}, {n:,} vertices")
    rng = np.random.default_rng(3)
    data = rng.integers(0, 2**32, size=4 * n, dtype=np.uint32)
    src = dev.create_buffer(data)
    def empty():
        dev.device.queue.submit([dev.device.create_command_encoder().finish()])
        _wait(dev)

    empty_s = _best(empty, args.repeats)
    copy_s, b2b_s = bench_copy(dev, src, n, args.repeats)
    so_s, rewind_s, out, filled, stats = bench_so(dev, src, n, args.repeats)
    so_net = max(so_s - rewind_s, 1e-9)
    moved = 32 * n  # 16 bytes read + 16 written per vertex
    got = np.frombuffer(out.read(), np.uint32)
    # Bits must match, except NaN payloads (a float output may quiet a signalling NaN).
    nan = np.isnan(data.view(np.float32)) & np.isnan(got.view(np.float32))
    ok = bool(np.all((got == data) | nan)) and filled == 16 * n
    result = {
        "adapter": dev.info, "python": platform.python_version(), "vertices": n,
        "compute_copy_s": copy_s, "copy_buffer_to_buffer_s": b2b_s,
        "so_s": so_s, "so_rewind_s": rewind_s, "so_net_s": so_net,
        "compute_copy_gbps": moved / copy_s / 1e9,
        "copy_buffer_to_buffer_gbps": moved / b2b_s / 1e9,
        "so_gbps": moved / so_net / 1e9,
        "so_vs_compute_copy": copy_s / so_net,
        "empty_submit_s": empty_s,
        "so_vs_compute_copy_without_submit": (copy_s - empty_s) / max(so_net - empty_s, 1e-9),
        "so_vertices_per_s": n / so_net,
        "output_matches_input": ok, "filled_size": filled, "statistics": stats,
    }
    print(f"compute copy          : {copy_s * 1e3:9.2f} ms  {result['compute_copy_gbps']:8.1f} GB/s (read+write)")
    print(f"copy_buffer_to_buffer : {b2b_s * 1e3:9.2f} ms  {result['copy_buffer_to_buffer_gbps']:8.1f} GB/s")
    print(f"Stream Output         : {so_net * 1e3:9.2f} ms  {result['so_gbps']:8.1f} GB/s "
          f"({n / so_net / 1e6:.1f} M vertices/s; rewind {rewind_s * 1e3:.2f} ms subtracted)")
    print(f"empty submit + wait   : {empty_s * 1e3:9.2f} ms (in every time above; without it "
          f"SO / copy = {result['so_vs_compute_copy_without_submit']:.2f})")
    print(f"SO / compute copy throughput: {result['so_vs_compute_copy']:.2f} (target >= 0.80); "
          f"output {'matches' if ok else 'DIFFERS from'} input; {stats}")
    if args.cpu:
        from gpuia.reference import run_ia
        from gpuia.reference.streamout import SOTarget, pass_through_outputs, stream_output
        from gpuia.streamout import resolve_stream_output
        from gpuia.wgsl import parse_vertex_shader, pass_through_shader

        layout = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}])
        so = resolve_stream_output(StreamOutputDesc((SODeclarationEntry(0, "POSITION", 0, 0, 4, 0),),
                                                    (16,)),
                                   parse_vertex_shader(pass_through_shader(layout)))

        def cpu():
            ia = run_ia(layout, {0: VertexBufferView(data, 16)}, DrawInstanced(n),
                        topology="POINTLIST")
            return stream_output(ia, so, pass_through_outputs(ia, layout),
                                 {0: SOTarget(bytes(16 * n))})

        t_cpu = _best(cpu, 1 if n > 4_000_000 else 3)
        result.update({"cpu_reference_s": t_cpu, "cpu_vertices_per_s": n / t_cpu,
                       "gpu_vs_cpu_vertices_per_s": t_cpu / so_net})
        print(f"CPU reference         : {t_cpu * 1e3:9.2f} ms  ({n / t_cpu / 1e6:.1f} M vertices/s); "
              f"GPU/CPU vertices/s ratio {t_cpu / so_net:.2f}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
