"""Bad input never aborts the process, and unusual valid input gets Direct3D's result.

In wgpu-py 0.32 a validation error at ``queue.submit`` is a Rust panic: the process dies with exit
134 and no Python exception (docs/gpu.md). gpuia must therefore refuse every input WebGPU would
reject *before* it reaches wgpu, with a :class:`gpuia.GpuiaError`. These tests feed gpuia bad
input through its public API in subprocesses (an abort would otherwise take pytest down), several
bad calls per subprocess, each in its own ``try``. Every script then makes a correct capture draw
on the *same* device (and, where it matters, the same context) and checks it bit for bit against
the CPU reference: an earlier bad call must not have poisoned anything.

Some calls among them look wrong but are valid Direct3D (docs/rules.md): a NULL index buffer, a
16-bit index 0xFFFF under the cut value 0xFFFFFFFF, index reads past the view of a buffer only the
GPU holds, one buffer in slots 0 and 31, an adjacency topology drawn without capture, D3D's largest
stride on the native path, a draw given as its case-file dict. For those the script also prints
what the draw produced: the records a capture read back, or the pixels of a render target in which
every vertex carries a tag. The tests compare them with values derived by hand from the rules
(each table entry says how), so "no exception" is never the whole check.

Each script prints one line per call, ``BAD <label> | <exception type> | <message>`` (``-`` as
the type: no exception), for a valid call also ``CAPTURE <label> | <paths> | <records>`` or
``IMAGE <label> | <tags>``, one line per good draw, ``GOOD <label> | <path> | match``, and ``OK``
last. The tests parse these lines: one test per script (no crash, no traceback, ends with OK,
every call reported), one per bad call (its exception type and what the message names) and one
per valid call (no exception, and the result). A call that aborted the process would fail its
script's test and leave every later line missing, so there is no separate per-call abort test.

Every script runs under an address-space limit (RLIMIT_AS), so a runaway allocation fails with a
MemoryError instead of getting the machine's OOM killer involved.

The last part runs ``gpuia run --backend gpu`` and ``gpuia check`` on invalid case files: exit 2,
exactly one ``error:`` line, no traceback.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys

import numpy as np
import pytest

from helpers import REPO, SCRIPT_TIMEOUT, describe, run_script, script_text

GPUIA_ERRORS = ("InvalidDescError", "UnsupportedError", "CaseError")
NO_EXCEPTION = "-"

# --------------------------------------------------------------------------------------------
# The scripts
# --------------------------------------------------------------------------------------------

# What the scripts here add to helpers.SCRIPT_PRELUDE.
DEFINITIONS = r'''
from gpuia.wgsl.program import record_words


def good(label, case, ctx=None, path="auto"):
    """A correct capture draw on the same device, compared with the CPU reference (exactly:
    no tolerance). An exception is reported on the line, and the script goes on."""
    try:
        ref = reference_ia(case)
        res = run_case_gpu(case, dev, path, ref, context=ctx)
    except GpuiaError as e:
        print(f"GOOD {label} | refused | {type(e).__name__}: {one_line(e)}", flush=True)
        return
    except Exception as e:
        print(f"GOOD {label} | exception | {type(e).__module__}.{type(e).__qualname__}: "
              f"{one_line(e)}", flush=True)
        return
    cmp = compare(ref, res)
    status = "match" if cmp.ok else "DIFFERENT " + cmp.summary()
    print(f"GOOD {label} | {res.path} | {status}", flush=True)


def example(name):
    return load_case(CASES / f"{name}.json")


BASE = {
    "gpuia_case": 1,
    "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
    "vertex_buffers": [{"slot": 0, "stride": 8, "data": {"dtype": "float32",
                                                        "values": [[0, 0.5], [1, 2], [3, -4]]}}],
    "primitive_topology": "POINTLIST",
    "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}},
}


def mkcase(name, **overrides):
    doc = json.loads(json.dumps(BASE))
    doc.update(overrides)
    return load_case(doc, name=name)


POS = InputLayout([InputElementDesc("POSITION", 0, "R32G32_FLOAT", 0, 0)])
VERTS = np.array([[0, 0.5], [1, 2], [3, -4]], np.float32).tobytes()
vb = dev.create_buffer(VERTS, bind="vertex_buffer")
ib = dev.create_buffer(np.array([0, 1, 2, 2, 1, 0], np.uint16).tobytes(), bind="index_buffer")


def context(layout=POS, topology="POINTLIST", views=None, path="auto", **pso):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(layout, **pso))
    ctx.ia_set_primitive_topology(topology)
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(vb, 8)] if views is None else views)
    ctx.set_path(path)
    return ctx


def submit(ctx, fn, capture=False):
    """Record draws with ``fn(ctx)`` and submit them (or run them as a capture)."""
    if capture:
        ctx.begin_capture()
    fn(ctx)
    if capture:
        ctx.end_capture()
    else:
        ctx.flush()


def captured(label, ctx, fn):
    """A valid call, made as one capture on ``ctx``: ``fn(ctx)`` binds what it needs and
    returns the Plan of each draw it makes. Prints its BAD line and, when it raised nothing,
    ``CAPTURE <label> | <paths> | <records>``: per draw, per instance, per distinct fetch index
    (ascending) the record [fetch index, written flag, SV_VertexID, SV_InstanceID, then 4 words
    per element], as gpuia.wgsl.program lays records out. Each context takes one capture only:
    a reused context's capture bind group can outlive its capture buffer."""
    out = {}

    def run():
        ctx.begin_capture()
        plans = fn(ctx)
        out["plans"] = plans if isinstance(plans, list) else [plans]
        out["capture"] = ctx.end_capture()

    bad(label, run)
    if "capture" not in out:
        return
    cap = out["capture"]
    words = cap.words.reshape(-1, record_words(cap.element_count))
    draws = []
    for r in cap.records:
        n = r.keys.shape[0]
        draws.append([[int(k)] + words[r.capture_base + i * n + j].tolist()
                      for i in range(r.draw.instance_count) for j, k in enumerate(r.keys)])
    paths = "/".join(str(p.path) for p in out["plans"])
    print(f"CAPTURE {label} | {paths} | {json.dumps(draws)}", flush=True)


# Rendering draws are checked by their pixels. Every vertex carries a tag, its number + 1 (so 0
# is the cleared target), which the pixel shader writes as a flat integer: a pixel holds the tag
# of the leading vertex of the last primitive that covered it. The target is 4 x 4.
TAG_LAYOUT = InputLayout([InputElementDesc("POSITION", 0, "R32G32_FLOAT", 0, 0),
                          InputElementDesc("TAG", 0, "R32_UINT", 0, 8)])
TAG_VS = """
struct VSIn { POSITION: vec2<f32>, TAG: u32, }
struct VSOut { SV_Position: vec4<f32>, TAG: u32, }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = vec4<f32>(input.POSITION, 0.0, 1.0);
  o.TAG = input.TAG;
  return o;
}
"""
TAG_PS = """
struct PSIn { TAG: u32, }
struct PSOut { SV_Target0: vec4<u32>, }
@fragment fn ps(input: PSIn) -> PSOut {
  var o: PSOut;
  o.SV_Target0 = vec4<u32>(input.TAG, 0u, 0u, 0u);
  return o;
}
"""


def pixel(p):
    """The clip-space position of the centre of pixel ``p`` (row-major, row 0 at the top)."""
    return (-0.75 + 0.5 * (p % 4), 0.75 - 0.5 * (p // 4))


def tagged(positions, count=None):
    """A vertex buffer (stride 12) of ``count`` tagged vertices (default: up to the highest one
    placed); ``positions`` maps vertex numbers to clip-space (x, y), the others sit at (0, 0)."""
    n = max(positions) + 1 if count is None else count
    v = np.zeros(n, dtype=[("p", "<f4", 2), ("t", "<u4")])
    for i, xy in positions.items():
        v["p"][i] = xy
    v["t"] = np.arange(1, n + 1)
    return dev.create_buffer(v.tobytes(), bind="vertex_buffer")


def tag_context(vertices, topology="POINTLIST", path="auto", **pso):
    """(context, target): the tag shaders, no culling or depth, ``vertices`` in slot 0 at
    stride 12, the target cleared to 0."""
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(TAG_LAYOUT, TAG_VS, pixel_shader=TAG_PS,
                                         rtv_formats=["R32G32B32A32_UINT"], cull_mode="NONE",
                                         depth_enable=False, **pso))
    ctx.ia_set_primitive_topology(topology)
    ctx.ia_set_vertex_buffers(0, [VertexBufferView(vertices, 12)])
    rt = dev.create_render_target(4, 4, "R32G32B32A32_UINT")
    ctx.om_set_render_targets([rt])
    ctx.clear_render_target_view(rt, (0, 0, 0, 0))
    ctx.set_path(path)
    return ctx, rt


def drawn(label, ctx, rt, fn):
    """A valid rendering call: ``fn(ctx)``, then a flush. Prints its BAD line and, when it raised
    nothing, ``IMAGE <label> | <tags>``: the target's rows of tags."""
    ok = []
    bad(label, lambda: (fn(ctx), ctx.flush(), ok.append(True)))
    if ok:
        print(f"IMAGE {label} | {json.dumps(rt.read()[..., 0].tolist())}", flush=True)
'''

BINDINGS = r'''
ctx = context()
vb_only = vb
ib_only = ib
other_dev = Device()
other_vb = other_dev.create_buffer(VERTS, bind="vertex_buffer")
other_ib = other_dev.create_buffer(np.zeros(6, np.uint8).tobytes(), bind="index_buffer")

bad("vb without vertex_buffer flag", lambda: ctx.ia_set_vertex_buffers(3, [ib_only], [8], [0]))
bad("vb view without vertex_buffer flag",
    lambda: ctx.ia_set_vertex_buffers(0, [VertexBufferView(vb, 8), VertexBufferView(ib_only, 4)]))
bad("ib without index_buffer flag", lambda: ctx.ia_set_index_buffer(IndexBufferView(vb_only)))
bad("vb from another device", lambda: ctx.ia_set_vertex_buffers(0, [other_vb], [8]))
bad("vb view from another device",
    lambda: ctx.ia_set_vertex_buffers(0, [VertexBufferView(other_vb, 8)]))
bad("ib from another device", lambda: ctx.ia_set_index_buffer(IndexBufferView(other_ib)))
bad("vb plain bytes", lambda: ctx.ia_set_vertex_buffers(0, [VERTS], [8]))
bad("vb view over plain bytes", lambda: ctx.ia_set_vertex_buffers(0, [VertexBufferView(VERTS, 8)]))
bad("vb numpy array", lambda: ctx.ia_set_vertex_buffers(0, [np.zeros(6, np.float32)], [8]))
bad("ib view over plain bytes", lambda: ctx.ia_set_index_buffer(IndexBufferView(b"\0" * 6)))
bad("ib not a view", lambda: ctx.ia_set_index_buffer(ib))
bad("start slot + count past 32", lambda: ctx.ia_set_vertex_buffers(31, [vb, vb], [8, 8]))
bad("start slot 32", lambda: ctx.ia_set_vertex_buffers(32, [vb], [8]))
bad("negative start slot", lambda: ctx.ia_set_vertex_buffers(-1, [vb], [8]))
bad("start slot not an int", lambda: ctx.ia_set_vertex_buffers("0", [vb], [8]))
bad("strides shorter than buffers", lambda: ctx.ia_set_vertex_buffers(0, [vb, vb], [8]))
bad("no strides", lambda: ctx.ia_set_vertex_buffers(0, [vb]))
bad("offsets shorter than buffers", lambda: ctx.ia_set_vertex_buffers(0, [vb, vb], [8, 8], [0]))
bad("mix of views and buffers",
    lambda: ctx.ia_set_vertex_buffers(0, [vb, VertexBufferView(vb, 8)], [8, 8], [0, 0]))
bad("views with strides", lambda: ctx.ia_set_vertex_buffers(0, [VertexBufferView(vb, 8)], [8]))
bad("view offset past the buffer", lambda: VertexBufferView(vb, 8, 28))
bad("view size past the buffer", lambda: VertexBufferView(vb, 8, 0, 32))
bad("view offset+size past the buffer", lambda: VertexBufferView(vb, 8, 16, 16))
bad("d3d11 offset past the buffer", lambda: ctx.ia_set_vertex_buffers(0, [vb], [8], [28]))
bad("negative stride", lambda: ctx.ia_set_vertex_buffers(0, [vb], [-8]))
bad("negative stride view", lambda: VertexBufferView(vb, -8))
bad("negative offset", lambda: ctx.ia_set_vertex_buffers(0, [vb], [8], [-4]))
bad("float stride", lambda: ctx.ia_set_vertex_buffers(0, [vb], [8.5]))
bad("buffers not a sequence", lambda: ctx.ia_set_vertex_buffers(0, 5))
bad("strides not a sequence", lambda: ctx.ia_set_vertex_buffers(0, [vb], 8))
bad("view list holding a str", lambda: ctx.ia_set_vertex_buffers(0, ["a"]))
bad("float stride after the same int stride",
    lambda: (ctx.ia_set_vertex_buffers(0, [vb], [8]), ctx.ia_set_vertex_buffers(0, [vb], [8.0])))
bad("draw given an object", lambda: ctx.draw(object()))
bad("ib view offset past the buffer", lambda: IndexBufferView(ib, "R16_UINT", 14))
bad("ib view format R8_UINT", lambda: IndexBufferView(ib, "R8_UINT"))

# Valid calls in an unusual form, each captured on a fresh context.
def generator_bind(c):
    c.ia_set_vertex_buffers(0, (b for b in [vb]), [8])
    return c.draw_instanced(3)


captured("buffers as a generator", context(views=[]), generator_bind)
captured("draw given the case-file dict", context(), lambda c: c.draw(
    {"DrawInstanced": {"VertexCountPerInstance": 2, "InstanceCount": 2,
                       "StartVertexLocation": 1}}))

# A failing IASetVertexBuffers changes no slot: slot 0 still holds vb afterwards, so a forced
# native draw (which needs every slot bound) draws vb's vertices.
rebind = context(path="native")
bad("failing rebind of slots 0-1",
    lambda: rebind.ia_set_vertex_buffers(0, [None, VertexBufferView(ib_only, 4)]))
captured("native draw after the failing rebind", rebind, lambda c: c.draw_instanced(3))

# Temporary buffers dropped (and collected) between their draws and the submit: gpuia must keep
# what it encoded alive (a freed buffer in a submitted pass would be fatal), and each draw reads
# the buffer it was given. Each temporary holds one vertex at its own pixel: 16 draws, 16 pixels.
import gc


def dropped_buffers(tmp_ctx):
    for i in range(8):
        for p, bind in ((2 * i, lambda t: tmp_ctx.ia_set_vertex_buffers(
                            0, [VertexBufferView(t, 12)])),
                        (2 * i + 1, lambda t: tmp_ctx.ia_set_vertex_buffers(0, [t], [12], [0]))):
            v = np.zeros(1, dtype=[("p", "<f4", 2), ("t", "<u4")])
            v["p"][0], v["t"][0] = pixel(p), p + 1
            tmp = dev.create_buffer(v.tobytes(), bind="vertex_buffer")
            bind(tmp)
            tmp_ctx.draw_instanced(1)
            del tmp
            gc.collect()
    tmp_ctx.ia_set_vertex_buffers(0, [None])
    gc.collect()


for path in ("auto", "pulling"):
    drawn(f"buffers dropped before the flush, {path}",
          *tag_context(tagged({0: pixel(0)}), path=path), dropped_buffers)

# The same buffer in slots 0 and 31 (one gpuia Buffer: upload_case shares it).
two = mkcase("slots_0_and_31",
             input_layout=[{"SemanticName": "POSITION", "Format": "R32G32_FLOAT", "InputSlot": 0},
                           {"SemanticName": "TEXCOORD", "Format": "R32_FLOAT", "InputSlot": 31,
                            "AlignedByteOffset": 4}],
             vertex_buffers=[BASE["vertex_buffers"][0],
                             {"slot": 31, "stride": 8, "data": {"hex": "00"}}])
two.vertex_buffers[31] = VertexBufferView(two.vertex_buffers[0].buffer, 8)
bind_ctx = Context(dev)
bind_ctx.set_pipeline_state(PipelineState(two.layout))
bind_ctx.ia_set_primitive_topology("POINTLIST")
bind_ctx.ia_set_vertex_buffers(0, [vb], [8], [0])
bind_ctx.ia_set_vertex_buffers(31, [vb], [8], [0])
bind_ctx.set_path("native")
captured("vb in slot 0 and 31 (native)", bind_ctx, lambda c: c.draw_instanced(3))
good("slots 0 and 31, native", two, path="native")
good("slots 0 and 31, pulling", two, path="pulling")

# Rebinding after the exceptions, on the very context that raised them.
good("same context after the exceptions", example("triangle_two_slots"), ctx=ctx)
good("fresh context", example("triangle_two_slots"))
print("OK")
'''

STATE = r'''
fresh = Context(dev)
bad("draw before set_pipeline_state", lambda: fresh.draw_instanced(3))
bad("indexed draw before set_pipeline_state", lambda: fresh.draw_indexed_instanced(3))
bad("set_pipeline_state with a layout", lambda: fresh.set_pipeline_state(POS))
fresh.set_pipeline_state(PipelineState(POS))
fresh.ia_set_vertex_buffers(0, [VertexBufferView(vb, 8)])
bad("draw before ia_set_primitive_topology", lambda: fresh.draw_instanced(3))
bad("topology UNDEFINED", lambda: fresh.ia_set_primitive_topology("UNDEFINED"))
bad("topology 0", lambda: fresh.ia_set_primitive_topology(0))
bad("topology 33 (1-control-point patch list)", lambda: fresh.ia_set_primitive_topology(33))
bad("topology 64 (32-control-point patch list)", lambda: fresh.ia_set_primitive_topology(64))
bad("topology patch list by name",
    lambda: fresh.ia_set_primitive_topology("D3D_PRIMITIVE_TOPOLOGY_3_CONTROL_POINT_PATCHLIST"))
bad("topology None", lambda: fresh.ia_set_primitive_topology(None))
bad("draw after refused topologies", lambda: fresh.draw_instanced(3))
bad("end_capture without begin_capture", lambda: fresh.end_capture())
bad("set_path bogus", lambda: fresh.set_path("fast"))
ready = context()
bad("negative vertex count", lambda: ready.draw_instanced(-1))
bad("negative instance count", lambda: ready.draw_instanced(3, -1))
bad("vertex count 2**32", lambda: ready.draw_instanced(2**32))
bad("start vertex 2**32", lambda: ready.draw_instanced(3, 1, 2**32))
bad("float vertex count", lambda: ready.draw_instanced(3.0))
bad("bool vertex count", lambda: ready.draw_instanced(True))
bad("base vertex 2**31", lambda: ready.draw_indexed_instanced(3, 1, 0, 2**31))
bad("base vertex -2**31-1", lambda: ready.draw_indexed_instanced(3, 1, 0, -2**31 - 1))
print(f"RECORDED draws with bad arguments | {ready.draw_count}", flush=True)
ready.flush()
bad("strip cut value bogus", lambda: PipelineState(POS, None, None, "0x1234"))
bad("strip cut value 7", lambda: PipelineState(POS, None, None, 7))


def junk_context_draw():
    ctx = Context(b"junk")
    ctx.set_pipeline_state(PipelineState(POS))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.draw_instanced(3)
    ctx.flush()


bad("Context on something that is not a Device", junk_context_draw)
bad("buffer with unknown bind flag", lambda: dev.create_buffer(VERTS, bind="vertex"))
bad("buffer with negative size", lambda: dev.create_buffer(size=-4))
bad("buffer size does not match data", lambda: dev.create_buffer(VERTS, size=64))
bad("buffer without data or size", lambda: dev.create_buffer())
bad("buffer past max-buffer-size", lambda: dev.create_buffer(size=2**40))
bad("buffer from a list", lambda: dev.create_buffer([1, 2, 3]))
bad("buffer from a str", lambda: dev.create_buffer("abc"))

# Forcing the native path where it cannot be exact: UnsupportedError naming the reason, and
# nothing recorded, so nothing is submitted.
buf64 = dev.create_buffer(np.arange(16, dtype=np.float32).tobytes(), bind="vertex_buffer")


def forced_native(label, elements, views, draw, topology="POINTLIST"):
    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(InputLayout(elements)))
    ctx.ia_set_primitive_topology(topology)
    ctx.ia_set_vertex_buffers(0, views)
    ctx.set_path("native")
    bad(label, lambda: draw(ctx))
    print(f"RECORDED {label} | {ctx.draw_count}", flush=True)
    ctx.flush()


E = InputElementDesc
forced_native("native R11G11B10_FLOAT", [E("COLOR", 0, "R11G11B10_FLOAT", 0, 0)],
              [VertexBufferView(buf64, 4)], lambda c: c.draw_instanced(3))
forced_native("native stride 7", [E("COLOR", 0, "R8G8B8A8_UNORM", 0, 0)],
              [VertexBufferView(buf64, 7)], lambda c: c.draw_instanced(3))
forced_native("native step rate 2",
              [E("POSITION", 0, "R32_FLOAT", 0, 0),
               E("OFFSET", 0, "R32_FLOAT", 1, 0, "PER_INSTANCE_DATA", 2)],
              [VertexBufferView(buf64, 4), VertexBufferView(buf64, 4)],
              lambda c: c.draw_instanced(3, 4))
forced_native("native out-of-bounds vertices", [E("COLOR", 0, "R8G8B8A8_UNORM", 0, 0)],
              [VertexBufferView(buf64, 4)], lambda c: c.draw_instanced(100))
forced_native("native out-of-bounds instances",
              [E("POSITION", 0, "R32_FLOAT", 0, 0),
               E("OFFSET", 0, "R32_FLOAT", 1, 0, "PER_INSTANCE_DATA", 1)],
              [VertexBufferView(buf64, 4), VertexBufferView(buf64, 4)],
              lambda c: c.draw_instanced(3, 100))
forced_native("native unbound slot",
              [E("POSITION", 0, "R32_FLOAT", 0, 0),
               E("OFFSET", 0, "R32_FLOAT", 1, 0, "PER_INSTANCE_DATA", 1)],
              [VertexBufferView(buf64, 4), None], lambda c: c.draw_instanced(3))
forced_native("native view offset 2", [E("COLOR", 0, "R8G8B8A8_UNORM", 0, 0)],
              [VertexBufferView(buf64, 4, 2)], lambda c: c.draw_instanced(3))
# D3D's stride limit is refused where the view is made, before any path is chosen.
bad("stride 2049", lambda: VertexBufferView(buf64, 2049))
bad("stride 4096 through ia_set_vertex_buffers",
    lambda: Context(dev).ia_set_vertex_buffers(0, [buf64], [4096]))
# D3D's largest stride is valid (rules 3.3) and is WebGPU's guaranteed maxVertexBufferArrayStride:
# the native path fetches vertex 1 2048 bytes after vertex 0.
wide = np.zeros(513, np.uint32)
wide[0], wide[512] = 0x11, 0x22
captured("native stride 2048",
         context(InputLayout([E("COLOR", 0, "R32_UINT", 0, 0)]), path="native",
                 views=[VertexBufferView(dev.create_buffer(wide.tobytes(), bind="vertex_buffer"),
                                         2048)]),
         lambda c: c.draw_instanced(2))
forced_native("native stride below the extent", [E("P", 0, "R32G32B32A32_FLOAT", 0, 0)],
              [VertexBufferView(buf64, 8)], lambda c: c.draw_instanced(2))
# An adjacency topology drawn without capture (and without a geometry shader) rasterizes the
# triangle of its non-adjacent vertices 0, 2, 4, which here covers the whole target; the
# adjacent vertices 1, 3, 5 lie inside it.
adjacency = tagged({0: (-1, -1), 1: (0.5, 0.5), 2: (-1, 3), 3: (0.5, -0.5), 4: (3, -1),
                    5: (-0.5, 0.5)})
drawn("adjacency without capture", *tag_context(adjacency, "TRIANGLELIST_ADJ", path="native"),
      lambda c: c.draw_instanced(6))

good("after the state errors", example("instance_step_rates"))
good("same context after the state errors", example("triangle_two_slots"), ctx=fresh)
print("OK")
'''

SHADERS = r'''
VS = """
struct VSIn { POSITION: vec2<f32>, %(extra_in)s }
struct VSOut { SV_Position: vec4<f32>, }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = vec4<f32>(input.POSITION, 0.0, 1.0);
  %(body)s
  return o;
}
"""


def vs(extra_in="", body=""):
    return VS % {"extra_in": extra_in, "body": body}


def pso(src, entry=None):
    Context(dev).set_pipeline_state(PipelineState(POS, src, entry))


SIGNATURE = {
    "shader reads a semantic the layout lacks": vs("NORMAL: vec3<f32>,"),
    "no @vertex function": vs().replace("@vertex", ""),
    "two @vertex functions": vs() + vs().replace("fn main", "fn main2"),
    "non-struct input": """
struct VSOut { SV_Position: vec4<f32>, }
@vertex fn main(@location(0) p: vec2<f32>) -> VSOut { var o: VSOut; return o; }
""",
    "non-struct output": """
struct VSIn { POSITION: vec2<f32>, }
@vertex fn main(input: VSIn) -> @builtin(position) vec4<f32> { return vec4<f32>(input.POSITION, 0.0, 1.0); }
""",
    "SV_Position vec3": vs().replace("SV_Position: vec4<f32>", "SV_Position: vec3<f32>"),
    "SV_Position vec4<u32>": vs().replace("SV_Position: vec4<f32>", "SV_Position: vec4<u32>"),
    "matrix member": vs().replace("POSITION: vec2<f32>", "POSITION: mat2x2<f32>"),
    "SV_VertexID f32": vs("SV_VertexID: f32,"),
    "duplicate semantic": vs("POSITION0: vec2<f32>,"),
    "undeclared input struct": vs().replace("struct VSIn", "struct Other"),
}
for label, src in SIGNATURE.items():
    bad(f"signature: {label}", lambda: pso(src))
bad("signature: entry point not in the module", lambda: pso(vs(), "nope"))
bad("signature: WGSL given as bytes", lambda: pso(b"@vertex fn main() {}"))

# WGSL that parses as a gpuia signature but does not compile: whatever comes out must be a
# Python exception (not an abort), on every path, with and without capture.
COMPILE = {
    "type error": vs(body="let x: u32 = 1.5;"),
    "syntax error": vs(body="o = ;"),
    "unknown identifier": vs(body="o.SV_Position = undefined_fn();"),
}
for label, src in COMPILE.items():
    for path in ("native", "pulling"):
        for capture in (False, True):
            def draw(src=src, path=path, capture=capture):
                ctx = Context(dev)
                ctx.set_pipeline_state(PipelineState(POS, src))
                ctx.ia_set_primitive_topology("POINTLIST")
                ctx.ia_set_vertex_buffers(0, [vb], [8])
                ctx.set_path(path)
                submit(ctx, lambda c: c.draw_instanced(3), capture)
            bad(f"compile: {label}, {path}, capture={capture}", draw)

good("after the shader errors, pass-through", example("triangle_two_slots"))
custom = mkcase("custom_shader", vertex_shader={"wgsl": vs(body="o.SV_Position.z = 0.5;")})
good("after the shader errors, custom shader native", custom, path="native")
good("after the shader errors, custom shader pulling", custom, path="pulling")
print("OK")
'''  # noqa: E501 - a shader written on one line

INDICES = r'''
# NULL index buffer: every index reads 0 (valid D3D12), through the context and a case file.
null_case = mkcase("null_index_buffer", index_buffer={"format": "R16_UINT", "data": None},
                   draw={"DrawIndexedInstanced": {"IndexCountPerInstance": 4, "InstanceCount": 2}})
good("NULL index buffer view, native", null_case, path="native")
good("NULL index buffer view, pulling", null_case, path="pulling")
# Four tagged points, vertex v at pixel v.
points = tagged({v: pixel(v) for v in range(4)})
for path in ("auto", "native", "pulling"):
    drawn(f"draw_indexed with no index buffer bound, {path}", *tag_context(points, path=path),
          lambda c: c.draw_indexed_instanced(3))

# An index view offset that is not a multiple of the index size (rules 7.4) is refused
# where the view is made, in a case file and through the API, before anything reaches wgpu.
bad("case: index offset 1", lambda: mkcase(
    "odd_index_offset",
    index_buffer={"format": "R16_UINT", "offset": 1, "data": {"hex": "00 0100 0200 0000"}},
    draw={"DrawIndexedInstanced": {"IndexCountPerInstance": 3}}))
bad("view: R16 offset 1", lambda: IndexBufferView(ib, "R16_UINT", 1))
gpu_ib = dev.create_buffer(size=6, bind="index_buffer")
bad("view: R32 offset 2", lambda: IndexBufferView(gpu_ib, "R32_UINT", 2))

# Index buffers only the GPU holds (created without data, written through the queue): gpuia
# never sees their values. This one holds the R16 indices 1, 2, 1, 3, under a 6-byte view that
# leaves the 3 outside.
past_view = dev.create_buffer(size=8, bind="index_buffer")
past_view.write(np.array([1, 2, 1, 3], np.uint16).tobytes())
for path in ("auto", "pulling"):
    ctx, rt = tag_context(points, path=path)
    ctx.ia_set_index_buffer(IndexBufferView(past_view, "R16_UINT", 0, 6))
    drawn(f"GPU-only indices, draw past the view, {path}", ctx, rt,
          lambda c: c.draw_indexed_instanced(10))
    good(f"same context after GPU-only indices [{path}]", example("indexed_strip_cut"), ctx=ctx)
    good(f"fresh context after GPU-only indices [{path}]", example("indexed_strip_cut"))

# A triangle strip over a 2 x 1 grid of quads whose third vertex is number 0xFFFF, drawn from
# R16 indices 0, 1, 0xFFFF, 3, 4, 5 (in bounds: 65536 vertices). Grid positions, left to right:
# (-1, -1), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 1).
grid = [(-1, -1), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 1)]
strip_vertices = tagged({0: grid[0], 1: grid[1], 0xFFFF: grid[2], 3: grid[3], 4: grid[4],
                         5: grid[5]})
STRIP = np.array([0, 1, 0xFFFF, 3, 4, 5], np.uint16).tobytes()
# First from indices only the GPU holds, under the default cut value DISABLED.
gpu_strip = dev.create_buffer(size=12, bind="index_buffer")
gpu_strip.write(STRIP)
ctx, rt = tag_context(strip_vertices, "TRIANGLESTRIP")
ctx.ia_set_index_buffer(IndexBufferView(gpu_strip, "R16_UINT"))
drawn("GPU-only indices, strip with cut DISABLED", ctx, rt,
      lambda c: c.draw_indexed_instanced(6))
ctx = context()
ctx.ia_set_index_buffer(IndexBufferView(gpu_ib, "R16_UINT"))
bad("GPU-only indices in a capture",
    lambda: submit(ctx, lambda c: c.draw_indexed_instanced(3), capture=True))
ctx = context(path="native")
ctx.ia_set_index_buffer(IndexBufferView(gpu_ib, "R16_UINT"))
bad("GPU-only indices, native", lambda: submit(ctx, lambda c: c.draw_indexed_instanced(3)))

# The same strip from host indices, under cut values WebGPU cannot express (it would restart at
# 0xFFFF), drawn without capture.
host_strip = dev.create_buffer(STRIP, bind="index_buffer")
for label, cut in (("strip: 16-bit indices with cut 0xFFFFFFFF", "0xFFFFFFFF"),
                   ("strip: cut DISABLED with 0xFFFF in the indices", "DISABLED")):
    ctx, rt = tag_context(strip_vertices, "TRIANGLESTRIP", strip_cut_value=cut)
    ctx.ia_set_index_buffer(IndexBufferView(host_strip, "R16_UINT"))
    drawn(label, ctx, rt, lambda c: c.draw_indexed_instanced(6))

good("after the index errors", example("indexed_strip_cut"))
print("OK")
'''

HUGE = r'''
def capture(n_vertices, n_instances, indexed=False):
    ctx = context()
    if indexed:
        ctx.ia_set_index_buffer(None)
    ctx.begin_capture()
    if indexed:
        ctx.draw_indexed_instanced(n_vertices, n_instances)
    else:
        ctx.draw_instanced(n_vertices, n_instances)
    ctx.end_capture()


bad("capture InstanceCount 2**31", lambda: capture(3, 2**31))
bad("capture InstanceCount 2**32-1", lambda: capture(3, 2**32 - 1))
bad("capture 2**20 x 2**20", lambda: capture(2**20, 2**20))
bad("capture VertexCountPerInstance 2**31", lambda: capture(2**31, 1))
bad("capture VertexCountPerInstance 2**32-1", lambda: capture(2**32 - 1, 1))
bad("capture IndexCountPerInstance 2**31 (NULL index buffer)", lambda: capture(2**31, 1, True))
huge_case = mkcase("huge", draw={"DrawInstanced": {"VertexCountPerInstance": 2**31}})
bad("run_case_gpu on a 2**31-vertex case", lambda: run_case_gpu(huge_case, dev))
good("after the huge draws", example("triangle_two_slots"))
print("OK")
'''

BATCHES = {"bindings": BINDINGS, "state": STATE, "shaders": SHADERS, "indices": INDICES,
           "huge": HUGE}


@functools.cache
def run_batch(name: str):
    """Run one script once per session: (process, {label: (type, message)}, {label: (path,
    status)}, {label: draws recorded}, {label: ("capture", paths, records) or ("image", None,
    tags)})."""
    proc, lines = run_script(script_text(DEFINITIONS, BATCHES[name]))
    bad = {k: tuple(v) for k, v in lines.get("BAD", {}).items() if len(v) == 2}
    good = {k: tuple(v) for k, v in lines.get("GOOD", {}).items() if len(v) == 2}
    recorded = {k: int(v[0]) for k, v in lines.get("RECORDED", {}).items() if len(v) == 1}
    seen = {k: ("capture", v[0], json.loads(v[1]))
            for k, v in lines.get("CAPTURE", {}).items() if len(v) == 2}
    seen.update({k: ("image", None, json.loads(v[0]))
                 for k, v in lines.get("IMAGE", {}).items() if len(v) == 1})
    return proc, bad, good, recorded, seen


# --------------------------------------------------------------------------------------------
# Expectations: (batch, label, allowed exception types, substrings of the message)
# --------------------------------------------------------------------------------------------

INV, UNS = ("InvalidDescError",), ("UnsupportedError",)


def x(batch, label, allowed, *subs, mark=None):
    return pytest.param(batch, label, allowed, subs, id=f"{batch}: {label}",
                        marks=() if mark is None else mark)


BAD_CASES = [
    # -- bindings
    x("bindings", "vb without vertex_buffer flag", INV, "slot 3", "vertex_buffer"),
    x("bindings", "vb view without vertex_buffer flag", INV, "slot 1", "vertex_buffer"),
    x("bindings", "ib without index_buffer flag", INV, "IASetIndexBuffer", "index_buffer"),
    x("bindings", "vb from another device", INV, "slot 0", "device"),
    x("bindings", "vb view from another device", INV, "slot 0", "device"),
    x("bindings", "ib from another device", INV, "IASetIndexBuffer", "device"),
    x("bindings", "vb plain bytes", INV, "slot 0", "gpuia Buffer"),
    x("bindings", "vb view over plain bytes", INV, "slot 0", "gpuia Buffer"),
    x("bindings", "vb numpy array", INV, "slot 0", "gpuia Buffer"),
    x("bindings", "ib view over plain bytes", INV, "IASetIndexBuffer", "gpuia Buffer"),
    x("bindings", "ib not a view", INV, "IndexBufferView"),
    x("bindings", "start slot + count past 32", INV, "StartSlot", "32"),
    x("bindings", "start slot 32", INV, "StartSlot", "32"),
    x("bindings", "negative start slot", INV, "StartSlot"),
    x("bindings", "start slot not an int", INV, "StartSlot"),
    x("bindings", "strides shorter than buffers", INV, "pStrides"),
    x("bindings", "no strides", INV, "pStrides"),
    x("bindings", "offsets shorter than buffers", INV, "pOffsets"),
    x("bindings", "mix of views and buffers", INV, "ppVertexBuffers[1]"),
    x("bindings", "views with strides", INV, "pStrides"),
    x("bindings", "view offset past the buffer", INV, "offset", "past the end"),
    x("bindings", "view size past the buffer", INV, "SizeInBytes", "past the end"),
    x("bindings", "view offset+size past the buffer", INV, "SizeInBytes", "past the end"),
    x("bindings", "d3d11 offset past the buffer", INV, "slot 0", "past the end"),
    x("bindings", "negative stride", INV, "slot 0", "StrideInBytes"),
    x("bindings", "negative stride view", INV, "StrideInBytes"),
    x("bindings", "negative offset", INV, "slot 0", "offset"),
    x("bindings", "float stride", INV, "StrideInBytes", "integer"),
    x("bindings", "buffers not a sequence", INV),
    x("bindings", "strides not a sequence", INV),
    x("bindings", "view list holding a str", INV, "VertexBufferView"),
    x("bindings", "float stride after the same int stride", INV, "StrideInBytes"),
    x("bindings", "draw given an object", INV),
    x("bindings", "ib view offset past the buffer", INV, "offset", "past the end"),
    x("bindings", "ib view format R8_UINT", INV, "R8_UINT"),
    x("bindings", "failing rebind of slots 0-1", INV, "slot 1", "vertex_buffer"),
    # -- state
    x("state", "draw before set_pipeline_state", INV, "pipeline state"),
    x("state", "indexed draw before set_pipeline_state", INV, "pipeline state"),
    x("state", "set_pipeline_state with a layout", INV, "PipelineState"),
    x("state", "draw before ia_set_primitive_topology", INV, "IASetPrimitiveTopology"),
    x("state", "topology UNDEFINED", INV, "UNDEFINED"),
    x("state", "topology 0", INV, "UNDEFINED"),
    x("state", "topology 33 (1-control-point patch list)", INV, "33"),
    x("state", "topology 64 (32-control-point patch list)", INV, "64"),
    x("state", "topology patch list by name", INV, "PATCHLIST"),
    x("state", "topology None", INV, "PrimitiveTopology"),
    x("state", "draw after refused topologies", INV, "IASetPrimitiveTopology"),
    x("state", "end_capture without begin_capture", INV, "begin_capture"),
    x("state", "set_path bogus", INV, "fast"),
    x("state", "negative vertex count", INV, "VertexCountPerInstance"),
    x("state", "negative instance count", INV, "InstanceCount"),
    x("state", "vertex count 2**32", INV, "VertexCountPerInstance"),
    x("state", "start vertex 2**32", INV, "StartVertexLocation"),
    x("state", "float vertex count", INV, "VertexCountPerInstance"),
    x("state", "bool vertex count", INV, "VertexCountPerInstance"),
    x("state", "base vertex 2**31", INV, "BaseVertexLocation"),
    x("state", "base vertex -2**31-1", INV, "BaseVertexLocation"),
    x("state", "strip cut value bogus", INV, "0x1234"),
    x("state", "strip cut value 7", INV, "7"),
    x("state", "Context on something that is not a Device", GPUIA_ERRORS),
    x("state", "buffer with unknown bind flag", INV, "vertex"),
    x("state", "buffer with negative size", INV, "size"),
    x("state", "buffer size does not match data", INV, "size"),
    x("state", "buffer without data or size", INV, "size"),
    x("state", "buffer past max-buffer-size", UNS, "max-buffer-size"),
    x("state", "buffer from a list", INV),
    x("state", "buffer from a str", INV),
    x("state", "native R11G11B10_FLOAT", UNS, "R11G11B10_FLOAT", "no WebGPU vertex format"),
    x("state", "native stride 7", UNS, "stride 7", "multiple of 4"),
    x("state", "native step rate 2", UNS, "slot 1", "step"),
    x("state", "native out-of-bounds vertices", UNS, "slot 0", "past the view"),
    x("state", "native out-of-bounds instances", UNS, "slot 1", "past the view"),
    x("state", "native unbound slot", UNS, "slot 1", "unbound"),
    x("state", "native view offset 2", UNS, "offset 2"),
    x("state", "stride 2049", INV, "StrideInBytes", "2049", "0..2048", "rules 3.3"),
    x("state", "stride 4096 through ia_set_vertex_buffers", INV, "4096", "rules 3.3"),
    x("state", "native stride below the extent", UNS, "stride 8", "extent"),
    # -- shaders
    x("shaders", "signature: shader reads a semantic the layout lacks", INV, "NORMAL0", "3.8"),
    x("shaders", "signature: no @vertex function", INV, "@vertex"),
    x("shaders", "signature: two @vertex functions", INV, "found 2"),
    x("shaders", "signature: non-struct input", INV),
    x("shaders", "signature: non-struct output", INV, "struct"),
    x("shaders", "signature: SV_Position vec3", INV, "SV_Position"),
    x("shaders", "signature: SV_Position vec4<u32>", INV, "SV_Position"),
    x("shaders", "signature: matrix member", INV, "mat2x2"),
    x("shaders", "signature: SV_VertexID f32", INV, "SV_VERTEXID"),
    x("shaders", "signature: duplicate semantic", INV, "POSITION0"),
    x("shaders", "signature: undeclared input struct", INV, "VSIn"),
    x("shaders", "signature: entry point not in the module", INV, "nope"),
    x("shaders", "signature: WGSL given as bytes", INV, "WGSL"),
    # Each error is on line 7 of the shader text, the line of its body (the script's VS).
    *[x("shaders", f"compile: {what}, {path}, capture={cap}", ("ShaderCompileError",),
        "does not compile", "line 7", "of the vertex shader")
      for what in ("type error", "syntax error", "unknown identifier")
      for path in ("native", "pulling") for cap in (False, True)],
    # -- indices
    x("indices", "case: index offset 1", INV, "index_buffer", "offset=1", "rules 7.4"),
    x("indices", "view: R16 offset 1", INV, "offset=1", "2 bytes for R16_UINT", "rules 7.4"),
    x("indices", "view: R32 offset 2", INV, "offset=2", "4 bytes for R32_UINT", "rules 7.4"),
    x("indices", "GPU-only indices in a capture", UNS, "capture"),
    x("indices", "GPU-only indices, native", UNS, "fetch indices unknown"),
    # -- huge
    x("huge", "capture InstanceCount 2**31", GPUIA_ERRORS, "capture"),
    x("huge", "capture InstanceCount 2**32-1", GPUIA_ERRORS, "capture"),
    x("huge", "capture 2**20 x 2**20", GPUIA_ERRORS, "capture"),
    x("huge", "capture VertexCountPerInstance 2**31", GPUIA_ERRORS, "capture", "2147483648"),
    x("huge", "capture VertexCountPerInstance 2**32-1", GPUIA_ERRORS, "capture", "4294967295"),
    x("huge", "capture IndexCountPerInstance 2**31 (NULL index buffer)", GPUIA_ERRORS,
      "capture", "2147483648"),
    x("huge", "run_case_gpu on a 2**31-vertex case", ("CaseError",), "2147483648"),
]


# --------------------------------------------------------------------------------------------
# Valid input and D3D's result: (batch, label, how it is seen, the result, the path of a capture)
# Every value below is derived by hand from docs/rules.md, never from gpuia's output.
# --------------------------------------------------------------------------------------------

def f32(value) -> int:
    """The bits of a float32, as a capture record holds them."""
    return int(np.float32(value).view(np.uint32))


def position(x, y) -> list:
    """R32G32_FLOAT: the two floats as they are (rules 2.1), blue 0 and alpha 1.0 (rules 2.11)."""
    return [f32(x), f32(y), 0, f32(1.0)]


def record(fetch, vertex_id, instance_id, *elements) -> list:
    """A capture record: its fetch index, the written flag, the two IDs, each element's words."""
    return [fetch, 1, vertex_id, instance_id] + [w for e in elements for w in e]


VERTS = [(0, 0.5), (1, 2), (3, -4)]  # the scripts' 3 vertices, R32G32_FLOAT at stride 8

# DrawInstanced(3) of vb: vertex i fetched at 8 * i (rules 4.1), SV_VertexID i (4.5), instance 0.
THREE_VERTICES = [[record(i, i, 0, position(*VERTS[i])) for i in range(3)]]


def image(*lit) -> list:
    """A 4 x 4 tag target (rows top down) with the given (pixel, tag) pairs, 0 elsewhere."""
    tags = [0] * 16
    for p, tag in lit:
        tags[p] = tag
    return [tags[r * 4:r * 4 + 4] for r in range(4)]


# The strip of 0, 1, 0xFFFF, 3, 4, 5 with no index cutting: triangle n is (n, n+1, n+2) for even
# n and (n, n+2, n+1) for odd n, led by the vertex at position n (rules 9.3), so (0, 1, 0xFFFF),
# (1, 3, 0xFFFF), (0xFFFF, 3, 4), (3, 5, 4), led by the tags 1, 2, 0x10000, 4. On the grid the
# first two split the left half along the diagonal from (-1, 1) to (0, -1), the last two the right
# half along the one from (0, 1) to (1, -1); no pixel centre lies on an edge. Had 0xFFFF cut, only
# (3, 5, 4) would be drawn.
STRIP_IMAGE = [[2, 2, 4, 4], [1, 2, 0x10000, 4], [1, 2, 0x10000, 4], [1, 1, 0x10000, 0x10000]]


def v(batch, label, seen_as, result, path=None):
    return pytest.param(batch, label, seen_as, result, path, id=f"{batch}: {label}")


VALID_CASES = [
    # -- bindings
    # IASetVertexBuffers binds the buffers it is given from StartSlot on (rules 7.1), here taken
    # from a generator; the slot was unbound before, which would read zeros (rules 6.2).
    v("bindings", "buffers as a generator", "capture", THREE_VERTICES),
    # Context.draw takes the case-file form (docs/case-format.md, draw): DrawInstanced(2, 2, 1):
    # vertices 1 and 2 fetched (rules 4.1), SV_VertexID 0 and 1 (4.5), SV_InstanceID 0 and 1 (4.6).
    v("bindings", "draw given the case-file dict", "capture",
      [[record(1 + i, i, k, position(*VERTS[1 + i])) for k in range(2) for i in range(2)]]),
    # A call that fails changes nothing (Context.ia_set_vertex_buffers): slot 0 keeps vb.
    v("bindings", "native draw after the failing rebind", "capture", THREE_VERTICES, "native"),
    # One buffer in two slots reads the same bytes through both (rules 7.3): TEXCOORD0, R32_FLOAT
    # at offset 4 of slot 31, is each vertex's y, then 0, 0, 1.0 (rules 2.11).
    v("bindings", "vb in slot 0 and 31 (native)", "capture",
      [[record(i, i, 0, position(x, y), [f32(y), 0, 0, f32(1.0)])
        for i, (x, y) in enumerate(VERTS)]], "native"),
    # Each draw reads the buffer bound when it was recorded, whatever became of the buffer
    # afterwards (Buffer.release: draws recorded before still run with its contents): the
    # temporary of draw p put tag p + 1 at pixel p.
    *[v("bindings", f"buffers dropped before the flush, {p}", "image",
        image(*[(i, i + 1) for i in range(16)])) for p in ("auto", "pulling")],
    # -- state
    # Stride 2048 (rules 3.3): vertex 1 at byte 2048. R32_UINT gives the word, then 0, 0 and the
    # integer 1 (rules 2.11).
    v("state", "native stride 2048", "capture",
      [[record(0, 0, 0, [0x11, 0, 0, 1]), record(1, 1, 0, [0x22, 0, 0, 1])]], "native"),
    # TRIANGLELIST_ADJ without a geometry shader rasterizes the triangle of positions 0, 2, 4:
    # the adjacent vertices 1, 3, 5 are visible to a geometry shader only, and the leading vertex
    # is the first non-adjacent one (Microsoft, "Primitive Topologies",
    # https://learn.microsoft.com/en-us/windows/win32/direct3d11/d3d10-graphics-programming-guide-primitive-topologies;
    # rules 9.2, 9.3).
    v("state", "adjacency without capture", "image", image(*[(i, 1) for i in range(16)])),
    # -- indices
    # No index buffer bound is the NULL view: every index reads 0 (rules 5.5), so the three points
    # are vertex 0, at pixel 0.
    *[v("indices", f"draw_indexed with no index buffer bound, {p}", "image", image((0, 1)))
      for p in ("auto", "native", "pulling")],
    # Indices 1, 2, 1 in the view, then 0 for the seven positions past it (rules 5.6), never the
    # 3 stored just after it: points 0, 1 and 2.
    *[v("indices", f"GPU-only indices, draw past the view, {p}", "image",
        image((0, 1), (1, 2), (2, 3))) for p in ("auto", "pulling")],
    # DISABLED cuts nothing (rules 5.3), although WebGPU restarts 16-bit strips at 0xFFFF.
    v("indices", "GPU-only indices, strip with cut DISABLED", "image", STRIP_IMAGE),
    # The cut value is compared as a literal: 0xFFFFFFFF never matches a 16-bit index, DISABLED
    # matches nothing (rules 5.3).
    v("indices", "strip: 16-bit indices with cut 0xFFFFFFFF", "image", STRIP_IMAGE),
    v("indices", "strip: cut DISABLED with 0xFFFF in the indices", "image", STRIP_IMAGE),
]

GOOD_CASES = {
    "bindings": ["slots 0 and 31, native", "slots 0 and 31, pulling",
                 "same context after the exceptions", "fresh context"],
    "state": ["after the state errors", "same context after the state errors"],
    "shaders": ["after the shader errors, pass-through",
                "after the shader errors, custom shader native",
                "after the shader errors, custom shader pulling"],
    "indices": ["NULL index buffer view, native", "NULL index buffer view, pulling",
                "fresh context after GPU-only indices [auto]",
                "fresh context after GPU-only indices [pulling]",
                pytest.param("same context after GPU-only indices [auto]"),
                pytest.param("same context after GPU-only indices [pulling]"),
                "after the index errors"],
    "huge": ["after the huge draws"],
}


FORCED_NATIVE = ["draws with bad arguments", "native R11G11B10_FLOAT", "native stride 7",
                 "native step rate 2", "native out-of-bounds vertices",
                 "native out-of-bounds instances", "native unbound slot", "native view offset 2",
                 "native stride below the extent"]


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------

def _label(g) -> str:
    return g if isinstance(g, str) else g.values[0]


@pytest.mark.parametrize("batch", list(BATCHES))
def test_batch_survives_and_draws_correctly_afterwards(gpu_device, batch):
    """No abort, no signal, no traceback, no Rust panic, and the script reaches its last line
    having reported every bad call and every correct draw."""
    proc, bad, good, _, _ = run_batch(batch)
    assert proc.returncode == 0, describe(proc)
    assert "Traceback" not in proc.stderr, describe(proc)
    assert "panicked" not in proc.stderr, describe(proc)
    assert proc.stdout.splitlines()[-1] == "OK", describe(proc)
    expected_bad = {p.values[1] for p in BAD_CASES + VALID_CASES if p.values[0] == batch}
    assert expected_bad <= set(bad), sorted(expected_bad - set(bad))
    expected_good = {_label(g) for g in GOOD_CASES[batch]}
    assert expected_good <= set(good), sorted(expected_good - set(good))


@pytest.mark.parametrize("batch, label, allowed, substrings", BAD_CASES)
def test_bad_input_raises_gpuia_error(batch, label, allowed, substrings):
    """The bad call raised one of the allowed types, and the message says what is wrong."""
    proc, bad, _, _, _ = run_batch(batch)
    assert label in bad, f"no line for {label!r}\n{describe(proc)}"
    kind, message = bad[label]
    assert kind in allowed, f"{label}: raised {kind}: {message}"
    for s in substrings:
        assert s in message, f"{label}: {s!r} not in {message!r}"


@pytest.mark.parametrize("batch, label, seen_as, result, path", VALID_CASES)
def test_valid_input_gets_d3ds_result(batch, label, seen_as, result, path):
    """A call that looks wrong but is valid D3D raised nothing, and what it drew (the capture's
    records, or the tag target's pixels) is what the rules give; a captured draw also took the
    path its row names."""
    proc, bad, _, _, seen = run_batch(batch)
    assert label in bad, f"no line for {label!r}\n{describe(proc)}"
    kind, message = bad[label]
    assert kind == NO_EXCEPTION, f"{label}: raised {kind}: {message}"
    assert label in seen, f"no result for {label!r}\n{describe(proc)}"
    how, paths, got = seen[label]
    assert how == seen_as, how
    if path is not None:
        assert paths == path, paths
    assert got == result, f"{label}: got {got}, D3D gives {result}"


@pytest.mark.parametrize("batch, label", [
    pytest.param(b, _label(g), marks=() if isinstance(g, str) else g.marks,
                 id=f"{b}: {_label(g)}")
    for b, labels in GOOD_CASES.items() for g in labels])
def test_correct_draw_after_bad_input_matches_reference(batch, label):
    """The correct capture draw made after the bad calls, on the same device (and where the
    label says so the same context), matches the CPU reference bit for bit."""
    proc, _, good, _, _ = run_batch(batch)
    assert label in good, f"no line for {label!r}\n{describe(proc)}"
    path, status = good[label]
    assert status == "match", f"{label} ({path}): {status}"
    assert path in ("native", "pulling", "native/pulling"), path
    if label.endswith(", native"):
        assert path == "native"
    if label.endswith(", pulling"):
        assert path == "pulling"


@pytest.mark.parametrize("label", FORCED_NATIVE)
def test_refused_draw_records_nothing(label):
    """A draw refused with a GpuiaError (bad arguments, or the native path forced where it
    cannot be exact) leaves nothing recorded, so nothing reaches wgpu."""
    proc, _, _, recorded, _ = run_batch("state")
    assert label in recorded, describe(proc)
    assert recorded[label] == 0


# --------------------------------------------------------------------------------------------
# The command line on invalid cases
# --------------------------------------------------------------------------------------------

_VS = """
struct VSIn { POSITION: vec2<f32>, %s }
struct VSOut { SV_Position: vec4<f32>, }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = vec4<f32>(input.POSITION, 0.0, 1.0);
  %s
  return o;
}
"""


def _case(**overrides) -> dict:
    doc = {
        "gpuia_case": 1,
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 8,
                            "data": {"dtype": "float32", "values": [[0, 0], [1, 0], [0, 1]]}}],
        "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}},
    }
    doc.update(overrides)
    return doc


INVALID_CASES = {
    "bad_format": (_case(input_layout=[{"SemanticName": "POSITION", "Format": "R32G32_FLOATX"}]),
                   "R32G32_FLOATX", None),
    "not_a_vertex_format": (_case(input_layout=[{"SemanticName": "POSITION",
                                                 "Format": "D32_FLOAT"}]), "D32_FLOAT", None),
    "misaligned_offset": (_case(input_layout=[{"SemanticName": "POSITION",
                                               "Format": "R32G32_FLOAT", "AlignedByteOffset": 2}]),
                          "AlignedByteOffset", None),
    "topology_undefined": (_case(primitive_topology="UNDEFINED"), "UNDEFINED", None),
    "too_many_vertices": (_case(draw={"DrawInstanced": {"VertexCountPerInstance": 2**31}}),
                          "max-invocations", None),
    "too_many_instances": (_case(draw={"DrawInstanced": {"VertexCountPerInstance": 3,
                                                         "InstanceCount": 2**31}}),
                           "max-invocations", None),
    "shader_missing_semantic": (_case(vertex_shader={"wgsl": _VS % ("NORMAL: vec3<f32>,", "")}),
                                "NORMAL0", None),
    "shader_no_entry_point": (
        _case(vertex_shader={"wgsl": (_VS % ("", "")).replace("@vertex", "")}), "@vertex", None),
    "shader_type_error": (_case(vertex_shader={"wgsl": _VS % ("", "let x: u32 = 1.5;")}),
                          None, None),
    "shader_syntax_error": (_case(vertex_shader={"wgsl": _VS % ("", "o = ;")}),
                            None, None),
}

CLI_COMMANDS = {"run-gpu": ("run", "--backend", "gpu"), "check": ("check",)}


@pytest.mark.parametrize("command", list(CLI_COMMANDS))
@pytest.mark.parametrize("stem", [
    pytest.param(stem, marks=() if mark is None else mark, id=stem)
    for stem, (_, _, mark) in INVALID_CASES.items()])
def test_cli_invalid_case_exits_2_with_one_error_line(gpu_device, tmp_path, stem, command):
    doc, needle, _ = INVALID_CASES[stem]
    path = tmp_path / f"{stem}.json"
    path.write_text(json.dumps(doc))
    proc = subprocess.run([sys.executable, "-m", "gpuia", *CLI_COMMANDS[command], str(path)],
                          capture_output=True, text=True, timeout=SCRIPT_TIMEOUT, cwd=REPO)
    assert proc.returncode == 2, describe(proc)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, describe(proc)
    lines = proc.stderr.splitlines()
    errors = [ln for ln in lines if ln.startswith("error:")]
    assert len(errors) == 1 and lines[0] == errors[0], describe(proc)
    # Only a shader compiler's diagnostic follows its error line, indented (docs/case-format.md).
    rest = lines[1:]
    assert all(ln.startswith("    ") for ln in rest), describe(proc)
    assert bool(rest) == ("does not compile" in errors[0]), describe(proc)
    assert errors[0].startswith(f"error: {stem}: "), errors[0]
    if needle is not None:
        assert needle in errors[0], errors[0]
