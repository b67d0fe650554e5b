"""Stream Output throughput against a plain compute copy of the same bytes, in the same run.

Draws of N points (NO_RASTERIZED_STREAM) with one R32G32B32A32_FLOAT element (16 bytes per
vertex, pulled) streamed out whole (16 bytes per vertex) through gpuia's compute emulation of
Stream Output; throughput counts input bytes read + SO bytes written. Baselines on the same
device, same run: a compute shader copying one ``vec4<u32>`` per invocation between storage
buffers (16N bytes read + 16N written), and ``copy_buffer_to_buffer`` of 16N bytes.

GPU time per operation is the *marginal* cost: K operations recorded in one submission against
one, ``(t_K - t_1) / (K - 1)``, each the minimum over repeats of submit-to-completion wall time
(a 4-byte readback waits for the queue). That removes the fixed cost of a submission, which is
large next to a millisecond of GPU work. The K Stream Output draws append to one target, as D3D
draws do. Host recording (Python encoding the draws or dispatches) is timed apart and left out
of the GPU time: it is reported per operation, and end to end (recording + GPU) beside it.
Target on a real GPU: SO >= 80% of the compute copy.

A separate single draw of ``--one-call`` vertices (default 2**26) checks that one call captures
them all (output compared with the input, NaN payloads aside).

``--cpu`` also times the CPU reference (IA + Stream Output) on N vertices, for the vertices/s
ratio on software adapters.

Run: python benchmarks/bench_streamout.py [--vertices N] [--draws K] [--cpu] [--quick]
"""

from __future__ import annotations

import argparse
import json
import platform
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

COPY_WGSL = """
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
  let i = gid.x + gid.y * n.x * 256u;
  if (i < arrayLength(&src)) { dst[i] = src[i]; }
}
"""
LAYOUT = [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}]
# NO_RASTERIZED_STREAM: only the Stream Output is timed (the pass-through shader would
# otherwise rasterize every point onto the target's centre pixel).
DESC = StreamOutputDesc((SODeclarationEntry(0, "POSITION", 0, 0, 4, 0),), (16,),
                        SO_NO_RASTERIZED_STREAM)


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


def bench_copies(dev, src, n, k, repeats):
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

    def compute_copy(times):
        enc = d.create_command_encoder()
        for _ in range(times):
            cp = enc.begin_compute_pass()
            cp.set_pipeline(pipe)
            cp.set_bind_group(0, group)
            cp.dispatch_workgroups(x, y)
            cp.end()
        return enc

    def buffer_copy(times):
        enc = d.create_command_encoder()
        for _ in range(times):
            enc.copy_buffer_to_buffer(src.wgpu, 0, dst, 0, 16 * n)
        return enc

    def submit(enc):
        d.queue.submit([enc.finish()])

    return (_measure(dev, lambda: None, compute_copy, submit, k, repeats),
            _measure(dev, lambda: None, buffer_copy, submit, k, repeats))


def _so_context(dev, src):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(InputLayout(LAYOUT), stream_output=DESC))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(src, 16)])
    return ctx


def bench_so(dev, src, n, k, repeats):
    out = dev.create_buffer(size=16 * n * k, bind=("stream_output",))
    ctx = _so_context(dev, src)
    view = StreamOutputBufferView(out, 16 * n * k)

    def prepare():
        ctx.so_set_targets([view], [0])  # rewinds BufferFilledSize (submits earlier work)
        _wait(dev)

    def record(times):
        for _ in range(times):
            ctx.draw(DrawInstanced(n))  # consecutive draws append

    times = _measure(dev, prepare, record, lambda _: ctx.flush(), k, repeats)
    return times, ctx.so_filled_size(0), ctx.so_statistics()


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
    return ok, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vertices", type=int, default=1 << 24)
    ap.add_argument("--draws", type=int, default=6, help="K operations per timed submission")
    ap.add_argument("--one-call", type=int, default=1 << 26)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--cpu", action="store_true", help="also time the CPU reference")
    ap.add_argument("--quick", action="store_true", help="256k vertices, 1M in one call")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "streamout.json"))
    args = ap.parse_args()
    n, one_n = ((1 << 18), (1 << 20)) if args.quick else (args.vertices, args.one_call)
    k = args.draws
    dev = get_device(args.adapter)
    print(f"adapter: {dev.info['summary']}; {n:,} vertices per operation, marginal cost of "
          f"{k} operations per submission")
    data = np.random.default_rng(3).integers(0, 2**32, size=4 * n, dtype=np.uint32)
    src = dev.create_buffer(data)
    copy, b2b = bench_copies(dev, src, n, k, args.repeats)
    so, filled, stats = bench_so(dev, src, n, k, args.repeats)
    copy_s, b2b_s, so_s = copy["gpu"], b2b["gpu"], so["gpu"]
    moved = 32 * n
    ok, one_s = one_call(dev, one_n)
    result = {
        "adapter": dev.info, "python": platform.python_version(), "vertices": n, "draws": k,
        # GPU time: submit to completion, marginal per operation (host recording excluded)
        "compute_copy_s": copy_s, "copy_buffer_to_buffer_s": b2b_s, "so_s": so_s,
        "compute_copy_gbps": moved / copy_s / 1e9,
        "copy_buffer_to_buffer_gbps": moved / b2b_s / 1e9,
        "so_gbps": moved / so_s / 1e9, "so_vs_compute_copy": copy_s / so_s,
        "so_vertices_per_s": n / so_s,
        # host side: recording one operation, and recording + GPU time together
        "compute_copy_record_s": copy["record"], "so_record_s": so["record"],
        "compute_copy_end_to_end_s": copy["end_to_end"], "so_end_to_end_s": so["end_to_end"],
        "so_vs_compute_copy_end_to_end": copy["end_to_end"] / so["end_to_end"],
        "compute_copy_single_submit_s": copy["single"], "so_single_submit_s": so["single"],
        "filled_size_after_k_draws": filled,
        "statistics": stats, "one_call_vertices": one_n, "one_call_matches": ok,
        "one_call_s": one_s,
    }
    print(f"compute copy          : {copy_s * 1e3:8.3f} ms  "
          f"{result['compute_copy_gbps']:8.1f} GB/s (read+write)")
    print(f"copy_buffer_to_buffer : {b2b_s * 1e3:8.3f} ms  "
          f"{result['copy_buffer_to_buffer_gbps']:8.1f} GB/s")
    print(f"Stream Output         : {so_s * 1e3:8.3f} ms  {result['so_gbps']:8.1f} GB/s "
          f"({n / so_s / 1e6:.1f} M vertices/s)")
    print(f"SO / compute copy throughput: {result['so_vs_compute_copy']:.2f} (target >= 0.80)")
    print(f"host recording per operation: copy {copy['record'] * 1e6:.1f} us, SO draw "
          f"{so['record'] * 1e6:.1f} us; with it: SO / copy "
          f"{result['so_vs_compute_copy_end_to_end']:.2f}; single submissions: copy "
          f"{copy['single'] * 1e3:.3f} ms, SO {so['single'] * 1e3:.3f} ms")
    print(f"one call of {one_n:,} vertices: {one_s * 1e3:.1f} ms, output "
          f"{'matches' if ok else 'DIFFERS from'} input; filled after {k} draws {filled} "
          f"(expected {16 * n * k})")
    if args.cpu:
        from gpuia.d3d.so_declaration import resolve_stream_output
        from gpuia.reference import run_ia
        from gpuia.reference.so_output import SOTarget, pass_through_outputs, stream_output
        from gpuia.wgsl import pass_through_signature

        layout = InputLayout(LAYOUT)
        so = resolve_stream_output(DESC, pass_through_signature(layout))

        def cpu():
            ia = run_ia(layout, {0: VertexBufferView(data, 16)}, DrawInstanced(n),
                        topology="POINTLIST")
            return stream_output(ia, so, pass_through_outputs(ia, layout),
                                 {0: SOTarget(bytes(16 * n))})

        t_cpu = _best(cpu, 3)
        result.update({"cpu_reference_s": t_cpu, "cpu_vertices_per_s": n / t_cpu,
                       "gpu_vs_cpu_vertices_per_s": t_cpu / so_s})
        print(f"CPU reference         : {t_cpu * 1e3:8.3f} ms  "
              f"({n / t_cpu / 1e6:.1f} M vertices/s); GPU/CPU vertices/s ratio {t_cpu / so_s:.2f}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
