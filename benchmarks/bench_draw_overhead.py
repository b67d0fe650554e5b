"""Per-draw Python cost: a gpuia draw with a cached pipeline against the same draw in plain wgpu-py.

Both sides record N draws of a 3-vertex triangle list with two vertex buffers (positions in slot 0,
colours in slot 1), alternating between two pairs of buffers so every draw really rebinds, then
encode and submit them and wait for the GPU. The plain side is what a careful wgpu-py user writes:
one pipeline, set_vertex_buffer twice and draw per iteration. The gpuia side uses the D3D-style
context: ia_set_vertex_buffers + draw_instanced per iteration, flush at the end. Reported: us per
draw for each, and the ratio gpuia / plain (target <= 1.3).
Run: python benchmarks/bench_draw_overhead.py
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from gpuia import InputLayout
from gpuia.gpu import Context, PipelineState, get_device

LAYOUT = InputLayout([
    {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT", "InputSlot": 0},
    {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "InputSlot": 1},
])
SHADER = """
struct VSIn { POSITION: vec3<f32>, COLOR: vec4<f32> }
struct VSOut { SV_Position: vec4<f32>, COLOR: vec4<f32> }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = vec4<f32>(input.POSITION, 1.0);
  o.COLOR = input.COLOR;
  return o;
}
"""
PLAIN_WGSL = """
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@location(0) p: vec3<f32>, @location(1) c: vec4<f32>) -> Out {
  var o: Out; o.p = vec4<f32>(p, 1.0); o.c = c; return o;
}
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(0.0); }
"""


def wait(device):
    # on_submitted_work_done is broken in wgpu-py 0.32: a tiny read waits for the queue.
    buf = getattr(wait, "buf", None) or device.create_buffer(size=4, usage="COPY_SRC|COPY_DST")
    wait.buf = buf
    device.queue.read_buffer(buf)


def bench_plain(dev, bufs, n):
    """(python seconds, end-to-end seconds) for n draws in plain wgpu-py."""
    import wgpu

    d = dev.device
    mod = d.create_shader_module(code=PLAIN_WGSL)
    pipe = d.create_render_pipeline(layout="auto", vertex={
        "module": mod, "entry_point": "vs", "buffers": [
            {"array_stride": 12, "step_mode": "vertex",
             "attributes": [{"format": "float32x3", "offset": 0, "shader_location": 0}]},
            {"array_stride": 4, "step_mode": "vertex",
             "attributes": [{"format": "unorm8x4", "offset": 0, "shader_location": 1}]}]},
        primitive={"topology": "triangle-list"},
        fragment={"module": mod, "entry_point": "fs", "targets": [{"format": "rgba8unorm"}]})
    tex = d.create_texture(size=(1, 1, 1), format="rgba8unorm",
                           usage=wgpu.TextureUsage.RENDER_ATTACHMENT)
    view = tex.create_view()
    t0 = time.perf_counter()
    enc = d.create_command_encoder()
    rp = enc.begin_render_pass(color_attachments=[{"view": view, "load_op": "clear",
                                                   "store_op": "store",
                                                   "clear_value": (0, 0, 0, 0)}])
    rp.set_pipeline(pipe)
    for i in range(n):
        p, c = bufs[i & 1]
        rp.set_vertex_buffer(0, p.wgpu)
        rp.set_vertex_buffer(1, c.wgpu)
        rp.draw(3, 1, 0, 0)
    rp.end()
    d.queue.submit([enc.finish()])
    t1 = time.perf_counter()
    wait(d)
    return t1 - t0, time.perf_counter() - t0


def bench_gpuia(dev, bufs, n, ctx):
    """(python seconds, end-to-end seconds) for n draws through a gpuia context."""
    t0 = time.perf_counter()
    for i in range(n):
        p, c = bufs[i & 1]
        ctx.ia_set_vertex_buffers(0, [p, c], [12, 4], [0, 0])
        ctx.draw_instanced(3, 1, 0, 0)
    ctx.flush()
    t1 = time.perf_counter()
    wait(dev.device)
    return t1 - t0, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=10000)
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "draw_overhead.json"))
    args = ap.parse_args()
    dev = get_device(args.adapter)
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    col = np.full((3, 4), 255, np.uint8)
    bufs = [(dev.create_buffer(pos), dev.create_buffer(col)) for _ in range(2)]
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(LAYOUT, SHADER))
    ctx.ia_set_primitive_topology("TRIANGLELIST")
    bench_gpuia(dev, bufs, 100, ctx)  # warm-up: builds and caches the pipeline
    bench_plain(dev, bufs, 100)
    # Alternate the two so both see the same machine conditions (shared hosts drift).
    plain_runs, ours_runs = [], []
    for _ in range(args.repeats):
        plain_runs.append(bench_plain(dev, bufs, args.draws))
        ours_runs.append(bench_gpuia(dev, bufs, args.draws, ctx))
    plain, plain_e2e = (min(r[i] for r in plain_runs) for i in (0, 1))
    ours, ours_e2e = (min(r[i] for r in ours_runs) for i in (0, 1))
    n = args.draws
    result = {
        "draws": n, "adapter": dev.info, "python": platform.python_version(),
        "plain_python_us_per_draw": plain / n * 1e6, "gpuia_python_us_per_draw": ours / n * 1e6,
        "ratio_python": ours / plain,
        "plain_end_to_end_us_per_draw": plain_e2e / n * 1e6,
        "gpuia_end_to_end_us_per_draw": ours_e2e / n * 1e6,
        "ratio_end_to_end": ours_e2e / plain_e2e,
        "pipelines_created": ctx.cache.stats.pipelines,
        "path": ctx.last_plan.path,
    }
    print(f"adapter: {dev.info['summary']}")
    print(f"{'':16s} {'python us/draw':>15s} {'end-to-end us/draw':>19s}")
    print(f"{'plain wgpu-py':16s} {plain / n * 1e6:15.2f} {plain_e2e / n * 1e6:19.2f}")
    print(f"{'gpuia context':16s} {ours / n * 1e6:15.2f} {ours_e2e / n * 1e6:19.2f}   (path "
          f"{result['path']}, {result['pipelines_created']} pipeline(s) built)")
    print(f"ratio gpuia/plain: python {result['ratio_python']:.2f} (target <= 1.3), "
          f"end-to-end {result['ratio_end_to_end']:.2f}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
