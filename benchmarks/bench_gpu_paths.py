"""GPU time of the native and vertex-pulling paths, and the cost of a full capture + compare.

1. paths: the same large draw (default 10M vertices, 3 elements in one interleaved slot of stride
   20: R32G32B32_FLOAT, R8G8B8A8_UNORM, R16G16_FLOAT) through WebGPU's vertex fetch and through
   gpuia's vertex pulling. The vertex shader reads every element and places every point outside
   the clip volume, so what is timed is vertex fetch + shading, not rasterization. Time: wall
   clock from submit to a completed tiny readback, min over repeats, each repeat drawing the
   whole range ``--draws`` times in one submission; the empty-submission overhead measured in the
   same run is reported beside it. Ratio pulling / native (target <= 1.15 on a real GPU for
   points; for ``--mesh``, <= 1.0 on a real GPU and <= 1.5 on lavapipe).
2. capture: ``gpuia check``'s work for one case of the same size (default 10M vertices): the CPU
   reference, uploading, the GPU capture draw, readback, and the comparison, each timed.

The pulling path is timed in both forms of reading its words (docs/gpu.md): the adapter's own
(raw words through vertex attributes where it has the ``attribute-fetch`` quirk) and the other
one, forced on a copy of the device whose quirks add or drop that row; a form that cannot do the
draw (storage loads of a view over one storage binding) is printed refused, with the reason.

``--mesh`` draws what real meshes draw instead of points: an indexed TRIANGLELIST over a square
grid of vertices (two triangles per cell, R32_UINT indices, each inner vertex shared by six
triangles), with ``--vertices`` / ``--capture-vertices`` counting vertex shader invocations (the
index count, D3D's IAVertices), so the ratios compare with the point list's at equal work.

Run: python benchmarks/bench_gpu_paths.py [--vertices N] [--adapter S] [--quick]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import platform
import time
from pathlib import Path

import numpy as np

from gpuia import IndexBufferView, InputLayout
from gpuia.errors import UnsupportedError
from gpuia.gpu import Context, PipelineState, get_device
from gpuia.gpu.quirks import ATTRIBUTE_FETCH, QUIRKS
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare
from gpuia.harness.run import reference_ia
from gpuia.harness.run_gpu import run_case_gpu
from gpuia.harness.windowed import check_windowed, windowed_applies

LAYOUT = [
    {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
    {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM"},
    {"SemanticName": "TEXCOORD", "Format": "R16G16_FLOAT"},
]
STRIDE = 20
SHADER = """
struct VSIn { POSITION: vec3<f32>, COLOR: vec4<f32>, TEXCOORD: vec2<f32> }
struct VSOut { SV_Position: vec4<f32> }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  // Depends on every element; z > w puts every point outside the clip volume.
  let s = input.POSITION + input.COLOR.xyz + vec3<f32>(input.TEXCOORD, 0.0);
  o.SV_Position = vec4<f32>(s.xy, 3.0 + abs(s.z), 1.0);
  return o;
}
"""


def vertex_data(n: int) -> bytes:
    rng = np.random.default_rng(1)
    rec = np.zeros((n, STRIDE), np.uint8)
    rec[:, 0:12] = rng.standard_normal((n, 3), dtype=np.float32).view(np.uint8).reshape(n, 12)
    rec[:, 12:16] = rng.integers(0, 256, (n, 4), dtype=np.uint8)
    rec[:, 16:20] = rng.standard_normal((n, 2)).astype(np.float16).view(np.uint8).reshape(n, 4)
    return rec.tobytes()


def grid_indices(invocations: int) -> tuple[np.ndarray, int]:
    """(R32_UINT indices of an indexed TRIANGLELIST over a g x g vertex grid with about
    ``invocations`` indices, the vertex count g * g): two triangles per cell, rows in order."""
    g = int(np.ceil(np.sqrt(invocations / 6))) + 1
    cells = (g - 1) * (g - 1)
    r, c = np.divmod(np.arange(cells, dtype=np.uint32), np.uint32(g - 1))
    v = r * g + c
    quads = np.stack([v, v + g, v + 1, v + 1, v + g, v + g + 1], axis=1).reshape(-1)
    count = min(len(quads), invocations - invocations % 3)
    return np.ascontiguousarray(quads[:count]), g * g


def _wait(dev):
    buf = getattr(_wait, "buf", None) or dev.device.create_buffer(size=4, usage="COPY_SRC")
    _wait.buf = buf
    dev.device.queue.read_buffer(buf)


def time_path(dev, vb, n, path, draws, repeats, ib=None):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(InputLayout(LAYOUT), SHADER))
    ctx.ia_set_primitive_topology("POINTLIST" if ib is None else "TRIANGLELIST")
    ctx.ia_set_vertex_buffers(0, [vb], [STRIDE], [0])
    if ib is not None:
        ctx.ia_set_index_buffer(IndexBufferView(ib, "R32_UINT"))
    ctx.set_path(path)

    def draw():
        if ib is None:
            return ctx.draw_instanced(n, 1, 0, 0)
        return ctx.draw_indexed_instanced(n, 1, 0, 0, 0)

    draw()  # warm-up: pipeline build, first-touch
    ctx.flush()
    _wait(dev)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(draws):
            plan = draw()
        ctx.flush()
        _wait(dev)
        best = min(best, time.perf_counter() - t0)
    assert plan.path == path, plan.explain()
    return best


def other_form(dev):
    """(a copy of ``dev`` pulling in the other form, that form's name): without the
    ``attribute-fetch`` quirk row where the adapter has it, with it where not."""
    other = copy.copy(dev)
    quirks = dev.caps.quirks
    if any(q.effect == ATTRIBUTE_FETCH for q in quirks):
        kept = tuple(q for q in quirks if q.effect != ATTRIBUTE_FETCH)
        other.caps = dataclasses.replace(dev.caps, quirks=kept)
        return other, "storage loads"
    row = next(q for q in QUIRKS if q.effect == ATTRIBUTE_FETCH)
    other.caps = dataclasses.replace(dev.caps, quirks=quirks + (row,))
    return other, "vertex attributes"


def empty_submit(dev, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        dev.device.queue.submit([dev.device.create_command_encoder().finish()])
        _wait(dev)
        best = min(best, time.perf_counter() - t0)
    return best


def capture_breakdown(dev, n, mesh=False):
    """One path line of a cross-check of an N-vertex draw as ``gpuia check`` runs it: in
    windows of invocations above ``gpuia.harness.windowed.WINDOWED_ABOVE`` (the steps summed
    over the windows), else the whole-array steps. The total leaves out making the data (and
    the raster line, which for these draws counts their primitives and stops)."""
    indices, vertices = grid_indices(n) if mesh else (None, n)
    data = vertex_data(vertices)
    t = {}
    t0 = time.perf_counter()
    doc = {"gpuia_case": 1, "name": "bench", "input_layout": LAYOUT,
           "vertex_buffers": [{"slot": 0, "stride": STRIDE, "data": {"hex": ""}}],
           "primitive_topology": "POINTLIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": n}}}
    if mesh:
        doc.update(primitive_topology="TRIANGLELIST",
                   index_buffer={"format": "R32_UINT", "data": {"hex": ""}},
                   draw={"DrawIndexedInstanced": {"IndexCountPerInstance": len(indices)}})
    case = load_case(doc)
    # Replace the placeholder views with the real bytes (skips a hex round trip).
    from gpuia.d3d.ia_desc import VertexBufferView

    case.vertex_buffers[0] = VertexBufferView(data, STRIDE)
    if mesh:
        case.index_buffer = IndexBufferView(indices.tobytes(), "R32_UINT")
    t["load"] = time.perf_counter() - t0
    if windowed_applies(case, False, 32, False):  # what gpuia check does with it
        t0, c0 = time.perf_counter(), time.process_time()
        steps = {}
        [cmp] = check_windowed(case, dev, ["auto"], timings=steps)
        t["windowed_total"] = time.perf_counter() - t0
        # CPU seconds of every thread of the process (lavapipe's included): on a shared
        # machine a steadier measure than the wall clock.
        steps["process_cpu"] = time.process_time() - c0
        t.update({f"  {k}": v for k, v in steps.items()})
        t["total"] = t["windowed_total"]
        return t, cmp.summary(), cmp.path
    t0 = time.perf_counter()
    ref = reference_ia(case, max_invocations=n)
    t["cpu_reference"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    steps = {}
    res = run_case_gpu(case, dev, "auto", ref, timings=steps)
    t["gpu_total"] = time.perf_counter() - t0
    t.update({f"  gpu.{k}": v for k, v in steps.items()})
    t0 = time.perf_counter()
    cmp = compare(ref, res, case.layout)
    t["compare"] = time.perf_counter() - t0
    t["total"] = sum(v for k, v in t.items() if not k.startswith(" "))
    return t, cmp.summary(), res.path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vertices", type=int, default=10_000_000)
    ap.add_argument("--capture-vertices", type=int, default=None)
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--quick", action="store_true", help="200k vertices, for a smoke run")
    ap.add_argument("--mesh", action="store_true",
                    help="an indexed TRIANGLELIST over a vertex grid instead of a point list")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "gpu_paths.json"))
    args = ap.parse_args()
    if args.quick:
        args.vertices, args.draws, args.repeats = 200_000, 2, 2
    n = args.vertices
    dev = get_device(args.adapter)
    print(f"adapter: {dev.info['summary']}; draw: "
          f"{'indexed TRIANGLELIST over a vertex grid' if args.mesh else 'POINTLIST'}")
    indices, vertices = grid_indices(n) if args.mesh else (None, n)
    if indices is not None:
        n = len(indices)
    vb = dev.create_buffer(vertex_data(vertices))
    ib = None if indices is None else dev.create_buffer(indices, bind=("index_buffer",))
    overhead = empty_submit(dev, args.repeats)
    native = time_path(dev, vb, n, "native", args.draws, args.repeats, ib)
    pulling = time_path(dev, vb, n, "pulling", args.draws, args.repeats, ib)
    other, other_name = other_form(dev)
    # gpuia buffers belong to one Device: the copy gets its own
    vb_other = other.create_buffer(vertex_data(vertices))
    ib_other = None if indices is None else other.create_buffer(indices, bind=("index_buffer",))
    try:
        pulling_other = time_path(other, vb_other, n, "pulling", args.draws, args.repeats,
                                  ib_other)
        refused = None
    except UnsupportedError as exc:  # storage loads of a view over one storage binding
        pulling_other, refused = None, str(exc)
    verts = n * args.draws
    result = {"adapter": dev.info, "python": platform.python_version(), "vertices": n,
              "draw": "indexed TRIANGLELIST grid" if args.mesh else "POINTLIST",
              "unique_vertices": vertices,
              "draws_per_submit": args.draws, "empty_submit_s": overhead,
              "native_s": native, "pulling_s": pulling,
              "native_gverts_per_s": verts / native / 1e9,
              "pulling_gverts_per_s": verts / pulling / 1e9,
              "ratio_pulling_native": pulling / native,
              "pulling_other_form": other_name, "pulling_other_form_s": pulling_other,
              "ratio_pulling_other_form_native": pulling_other and pulling_other / native,
              "pulling_other_form_refused": refused}
    print(f"empty submit+wait      : {overhead * 1e3:8.3f} ms")
    print(f"native  {verts:>11,} verts: {native * 1e3:8.3f} ms "
          f"({result['native_gverts_per_s']:.3f} Gverts/s)")
    print(f"pulling {verts:>11,} verts: {pulling * 1e3:8.3f} ms "
          f"({result['pulling_gverts_per_s']:.3f} Gverts/s)")
    target = ("<= 1.0 on a real GPU, <= 1.5 on lavapipe" if args.mesh
              else "<= 1.15 on a real GPU")
    print(f"pulling, {other_name}: " + (f"refused: {refused}" if refused else
                                         f"{pulling_other * 1e3:8.3f} ms"))
    print(f"ratio pulling/native: {result['ratio_pulling_native']:.3f} (target {target})"
          + (f"; pulling with {other_name}/native: {pulling_other / native:.3f}"
             if pulling_other else ""))
    cap_n = args.capture_vertices or n
    t, summary, path = capture_breakdown(dev, cap_n, args.mesh)
    result["capture"] = {"vertices": cap_n, "path": path, "seconds": t, "comparison": summary}
    print(f"capture + compare of {cap_n:,} vertices ({path}): {summary}")
    for k, v in t.items():
        print(f"  {k:28s} {v:8.3f} s")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
