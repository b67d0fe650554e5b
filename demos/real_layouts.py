"""The real-layouts demo: the input layouts of real engines and samples (imgui, MiniEngine,
DirectXTK12, DirectX-Graphics-Samples, vkd3d-proton's tests, GlareEngine), each fed synthetic but
plausible data, drawn in its own cell of a grid, and cross-checked against the CPU reference.

Run it: ``python demos/real_layouts.py --out layouts.png`` (``--help`` lists the options; ``gpuia
demo real_layouts`` runs this same file). Its exit status is 1 when a verdict finds a
difference.

The layouts are ``data/real-layouts.json`` (the project's one list of real engines' layouts,
which its tests read too; every entry names the repository, commit, file and symbol it was
transcribed from). For each one:

* **CreateInputLayout.** The elements go to ``gpuia.InputLayout`` exactly as written. One of them
  (the mesh-shader sample's template, which sets InstanceDataStepRate 1 on per-vertex elements)
  is refused, as D3D refuses it; its cell stays empty and its verdict quotes the rule.
* **Data.** Every element gets values by the role its semantic plays (table ``ROLES``): positions
  of a small teapot fitted to the unit box, its normals, tangents and bitangents (stored as
  ``v * 0.5 + 0.5`` in UNORM formats, as MiniEngine stores them), its UVs, colours from the
  normals, bone indices (0, 1, 2, 3) with weights (0.6, 0.3, 0.1, 0), glyph rectangles in
  integer texels, and small varying values for anything else (velocity, size, age...). Values are
  encoded by the format table (``_common.pack_records``), so every format of the list is exercised.
  Strides are the source's where it states them (imgui's 20, vkd3d's unaligned 9), otherwise
  the slot's extent rounded up to 4 bytes.
* **Draw.** A layout with a per-vertex position draws the teapot (indexed, R16_UINT) in one
  instance, or four in a 2 × 2 block when it has per-instance elements. A layout whose position
  is per instance (MiniEngine's glyphs) draws one quad per instance as a 4-vertex strip around
  it; a layout without a position draws a 4 × 4 grid of such quads placed by SV_InstanceID. The
  vertex shader is generated from the layout: position from the position element, colour from
  the first of COLOR, NORMAL, TEXCOORD or any other element. Only layouts whose position has a
  z test depth; 2-D ones (imgui's UI vertices, the quads) draw in API order.
* **Verdict.** The same bytes and draw, as a gpuia case, go through
  ``gpuia.harness.crosscheck`` on the same device, on both GPU paths: one line per layout says
  whether what the GPU's vertex shaders received matches the reference.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

import numpy as np

from _common import (
    DATA_DIR,
    DSV_FORMAT,
    FPS,
    Demo,
    column_major_bytes,
    main,
    normalize,
    pack_records,
    rotation_x,
    rotation_y,
    scaling,
    teapot,
    translation,
)
from gpuia import IndexBufferView, InputLayout, VertexBufferView
from gpuia.errors import GpuiaError
from gpuia.gpu import PipelineState
from gpuia.harness.case import encode_data, load_case
from gpuia.harness.crosscheck import cross_check

LAYOUTS_FILE = DATA_DIR / "real-layouts.json"
"""The layouts, beside the demos."""
COLUMNS = 6
BLOCK_INSTANCES = 4      # teapots per cell for layouts with per-instance elements
QUAD_INSTANCES = 16      # quads per cell for layouts without a per-vertex position

ROLES = {
    "POSITION": "position", "SV_POSITION": "position",
    "NORMAL": "normal", "TANGENT": "tangent", "BITANGENT": "bitangent", "BINORMAL": "bitangent",
    "TEXCOORD": "texcoord", "COLOR": "color",
    "BLENDINDICES": "bone_indices", "BONEINDICES": "bone_indices",
    "BLENDWEIGHT": "bone_weights", "WEIGHTS": "bone_weights",
}
"""Semantic name (upper case) -> the role its synthetic values play; others are ``other``."""

# Roles whose float values are directions in -1..1, stored as v * 0.5 + 0.5 in UNORM formats.
_DIRECTIONS = {"normal", "tangent", "bitangent"}


def load_layouts(path=LAYOUTS_FILE) -> list[dict]:
    """The layout entries of the JSON file ``path`` (default :data:`LAYOUTS_FILE`)."""
    return json.loads(path.read_text(encoding="utf-8"))["layouts"]


def element_dicts(entry: dict) -> list[dict]:
    """An entry's elements as D3D12_INPUT_ELEMENT_DESC dicts, unchanged."""
    return [{"SemanticName": e["semantic"], "SemanticIndex": e["semantic_index"],
             "Format": e["format"], "InputSlot": e["input_slot"],
             "AlignedByteOffset": e["aligned_byte_offset"],
             "InputSlotClass": e["input_slot_class"],
             "InstanceDataStepRate": e["instance_data_step_rate"]} for e in entry["elements"]]


@dataclass
class Prepared:
    """One layout made drawable: its data, draw and generated vertex shader; or ``refused``."""

    name: str
    layout: InputLayout | None = None
    refused: str = ""
    strides: dict = field(default_factory=dict)
    slot_bytes: dict = field(default_factory=dict)
    indices: np.ndarray | None = None
    topology: str = "TRIANGLELIST"
    count: int = 0            # index count (indexed) or vertex count per instance
    instances: int = 1
    vertex_shader: str = ""
    depth: bool = True        # depth test on: only for positions with a z

    def case(self):
        """The same bytes and draw as a gpuia case (for the cross-check)."""
        assert self.layout is not None  # asked only of a layout that was not refused
        doc = {"gpuia_case": 1, "name": self.name, "input_layout": self.layout.to_dicts(),
               "vertex_buffers": [{"slot": s, "stride": self.strides[s],
                                   "data": encode_data(self.slot_bytes[s].tobytes())}
                                  for s in sorted(self.slot_bytes)],
               "primitive_topology": self.topology}
        if self.indices is not None:
            doc["index_buffer"] = {"format": "R16_UINT",
                                   "data": encode_data(self.indices.tobytes())}
            doc["draw"] = {"DrawIndexedInstanced": {"IndexCountPerInstance": self.count,
                                                    "InstanceCount": self.instances}}
        else:
            doc["draw"] = {"DrawInstanced": {"VertexCountPerInstance": self.count,
                                             "InstanceCount": self.instances}}
        return load_case(doc)


def _teapot_attributes():
    mesh = teapot(2)
    lo, hi = mesh.bounds()
    pos = (mesh.positions - (lo + hi) / 2) / float((hi - lo).max())      # inside +-0.5
    n = mesh.normals.astype(np.float64)
    # A tangent across the normal, around the vertical axis (x where the normal is vertical).
    t = np.cross([0.0, 1.0, 0.0], n)
    t[np.linalg.norm(t, axis=1) < 1e-6] = (1.0, 0.0, 0.0)
    t = normalize(t)
    return mesh, {"position": pos, "normal": n, "tangent": t, "bitangent": np.cross(n, t),
                  "texcoord": mesh.uvs, "color": np.concatenate([n * 0.5 + 0.5,
                                                                 np.ones((len(n), 1))], 1)}


def _values(role: str, element, rows: int, per_instance: bool, attrs: dict) -> np.ndarray:
    """Synthetic values for ``rows`` records of one element (see the module docstring)."""
    fmt = element.format
    k = np.arange(rows)
    v: np.ndarray | None
    if fmt.shader_type != "float":
        if role == "texcoord":      # glyph rectangles: x, y, width, height in texels
            v = np.stack([(k % 16) * 8, (k // 16) * 12, np.full(rows, 8), np.full(rows, 12)], 1)
        elif role == "bone_indices":
            v = np.tile([0, 1, 2, 3], (rows, 1))
        else:
            v = np.stack([(k + c) % 4 for c in range(4)], 1) - (fmt.shader_type == "sint")
        return v[:, : fmt.component_count]
    if per_instance:
        grid = np.stack([(k % 4 - 1.5) * 0.22, (k // 4 % 4 - 1.5) * 0.22], 1)
        v = {"position": np.concatenate([grid, np.zeros((rows, 1)), np.ones((rows, 1))], 1),
             "color": np.stack([0.5 + 0.5 * np.cos(k + c * 2.1) for c in range(3)]
                               + [np.ones(rows)], 1)}.get(role)
    else:
        v = attrs.get(role)
        if role in ("tangent", "position"):  # w: handedness, for formats with a fourth component
            v = np.concatenate([v, np.ones((rows, 1))], 1)
    if role == "bone_weights":
        v = np.tile([0.6, 0.3, 0.1, 0.0], (rows, 1))
    if v is None:                   # velocity, size, age, offsets...: small varying values
        v = np.stack([0.5 + 0.45 * np.sin(0.7 * k + c) for c in range(4)], 1)
    v = np.asarray(v, np.float64)
    if role in _DIRECTIONS and fmt.components[0].kind == "un":
        v = v * 0.5 + 0.5
    return v[:, : fmt.component_count]


def _color_expr(layout: InputLayout) -> str:
    """WGSL for the vertex colour (vec3<f32>), from the first element that can give one."""
    def find(role):
        return next((e for e in layout if ROLES.get(e.desc.semantic_name.upper()) == role), None)

    for role in ("color", "normal", "texcoord"):
        e = find(role)
        if e is None:
            continue
        m = f"input.{e.key}"
        if e.format.shader_type != "float":
            return f"vec3<f32>(vec3<u32>({m}.xyz) % vec3<u32>(16u)) / 15.0"
        if role == "color":
            return f"{m}.rgb"
        if role == "normal":
            unorm = e.format.components[0].kind == "un"
            return f"{m}.xyz" if unorm else f"{m}.xyz * 0.5 + 0.5"
        return f"vec3<f32>(fract({m}.xy), 0.6)"
    for e in layout:
        if ROLES.get(e.desc.semantic_name.upper()) != "position":
            m = f"input.{e.key}"
            if e.format.shader_type == "float":
                return f"fract(abs({m}.xyz)) * 0.8 + 0.2"
            return f"vec3<f32>(vec3<u32>({m}.xyz) % vec3<u32>(8u)) / 7.0 * 0.8 + 0.2"
    return "vec3<f32>(0.8, 0.8, 0.8)"


def _vertex_shader(layout: InputLayout, position, block: bool) -> str:
    wgsl = {"float": "vec4<f32>", "uint": "vec4<u32>", "sint": "vec4<i32>"}
    members = [f"{e.key}: {wgsl[e.format.shader_type]}" for e in layout]
    members += ["SV_VertexID: u32", "SV_InstanceID: u32"]
    if position is not None and not position.per_instance:
        where = f"input.{position.key}.xyz"
        if block:   # four copies in a 2 x 2 block
            where = (f"{where} * 0.5 + vec3<f32>(f32(input.SV_InstanceID % 2u) - 0.5, "
                     f"f32(input.SV_InstanceID / 2u) - 0.5, 0.0) * 0.5")
    elif position is not None:
        where = f"vec3<f32>(input.{position.key}.xy + corner * 0.18, 0.0)"
    else:
        where = ("vec3<f32>((vec2<f32>(f32(input.SV_InstanceID % 4u), "
                 "f32(input.SV_InstanceID / 4u)) - 1.5) * 0.22 + corner * 0.18, 0.0)")
    return f"""
struct Cell {{ mvp: mat4x4<f32> }}
@group(3) @binding(0) var<uniform> cell: Cell;
struct VSIn {{ {', '.join(members)} }}
struct VSOut {{ SV_Position: vec4<f32>, COLOR0: vec4<f32> }}
@vertex fn vs_main(input: VSIn) -> VSOut {{
  let corner = vec2<f32>(f32(input.SV_VertexID & 1u), f32(input.SV_VertexID >> 1u)) - 0.5;
  var o: VSOut;
  o.SV_Position = cell.mvp * vec4<f32>({where}, 1.0);
  o.COLOR0 = vec4<f32>({_color_expr(layout)}, 1.0);
  return o;
}}
"""


PIXEL_SHADER = """
struct PSIn { COLOR0: vec4<f32> }
struct PSOut { SV_Target0: vec4<f32> }
@fragment fn ps_main(input: PSIn) -> PSOut {
  var o: PSOut;
  o.SV_Target0 = vec4<f32>(clamp(input.COLOR0.rgb, vec3<f32>(0.0), vec3<f32>(1.0)), 1.0);
  return o;
}
"""


def prepare(entry: dict) -> Prepared:
    """Validate one entry's layout and build its data, draw and vertex shader."""
    p = Prepared(entry["name"])
    try:
        p.layout = InputLayout(element_dicts(entry))
    except GpuiaError as exc:
        p.refused = " ".join(str(exc).split())
        return p
    lay = p.layout
    position = next((e for e in lay if ROLES.get(e.desc.semantic_name.upper()) == "position"
                     and e.format.shader_type == "float"), None)
    mesh, attrs = _teapot_attributes()
    has_instance_data = any(s.per_instance for s in lay.slots.values())
    if position is not None and not position.per_instance:
        p.indices = mesh.indices.ravel().astype(np.uint16)
        p.count = mesh.index_count
        p.instances = BLOCK_INSTANCES if has_instance_data else 1
    else:
        p.topology, p.count, p.instances = "TRIANGLESTRIP", 4, QUAD_INSTANCES
    given = {int(k): v for k, v in (entry.get("strides_by_slot") or {}).items()}
    for slot, info in lay.slots.items():
        p.strides[slot] = given.get(slot, (info.extent + 3) // 4 * 4)
        rows = p.instances if info.per_instance else (mesh.vertex_count if p.indices is not None
                                                      else p.count)
        values = {e.key: _values(ROLES.get(e.desc.semantic_name.upper(), "other"), e, rows,
                                 info.per_instance, attrs) for e in info.elements}
        p.slot_bytes[slot] = pack_records(lay, slot, p.strides[slot], rows, values)
    block = p.instances == BLOCK_INSTANCES and p.indices is not None
    # A 2-D position (imgui's) puts every triangle at one depth, where a depth test would pick
    # the winner by rounding; such layouts draw in API order, as imgui itself does.
    p.depth = position is not None and position.format.component_count >= 3
    p.vertex_shader = _vertex_shader(lay, position, block)
    return p


def cell_matrix(index: int, count: int, aspect: float, angle: float) -> np.ndarray:
    """Model-to-clip matrix of cell ``index`` of a grid of ``count`` cells, ``COLUMNS`` wide:
    the unit box, turned by ``angle`` and tilted, fills 85% of the cell; depth 0.25..0.75."""
    rows = -(-count // COLUMNS)
    col, row = index % COLUMNS, index // COLUMNS
    cw, ch = 2.0 / COLUMNS, 2.0 / rows
    side = 0.85 * min(cw * aspect, ch)          # the cell's square, in NDC units of height
    centre = translation(-1 + cw * (col + 0.5), 1 - ch * (row + 0.5), 0.5)
    fit = scaling(side / aspect, side, -0.5 * 0.999)    # z: +0.5 (near) -> depth 0.25
    return centre @ fit @ rotation_x(0.45) @ rotation_y(angle)


class RealLayoutsDemo(Demo):
    """Every real layout in its cell, and after the last frame each one's cross-check verdict
    (:meth:`verdicts`)."""

    name = "real_layouts"

    def __init__(self, device, rtv_format, options=None):
        super().__init__(device, rtv_format, options)
        self.prepared = [prepare(e) for e in load_layouts()]
        self.gpu: list[tuple | None] = []  # per layout: buffers, index buffer, cbuffer, state
        for p in self.prepared:
            if p.refused:
                self.gpu.append(None)
                continue
            assert p.layout is not None  # not refused: resolved
            buffers = {s: device.create_buffer(b) for s, b in p.slot_bytes.items()}
            ib = device.create_buffer(p.indices, bind="index_buffer") \
                if p.indices is not None else None
            cb = device.create_buffer(column_major_bytes(np.eye(4)), bind="constant_buffer")
            pso = PipelineState(p.layout, vertex_shader=p.vertex_shader,
                                pixel_shader=PIXEL_SHADER, rtv_formats=(rtv_format,),
                                dsv_format=DSV_FORMAT, cull_mode="NONE", depth_enable=p.depth,
                                constant_buffers=1)
            self.gpu.append((buffers, ib, cb, pso))

    def draw(self, ctx, frame, aspect):
        angle = 0.7 + 0.5 * frame / FPS
        for i, (p, gpu) in enumerate(zip(self.prepared, self.gpu, strict=True)):
            if gpu is None:
                continue
            buffers, ib, cb, pso = gpu
            cb.write(column_major_bytes(cell_matrix(i, len(self.prepared), aspect, angle)))
            ctx.set_pipeline_state(pso)
            ctx.set_graphics_root_constant_buffer_view(0, cb)
            ctx.ia_set_primitive_topology(p.topology)
            for slot, buf in buffers.items():
                ctx.ia_set_vertex_buffers(slot, [VertexBufferView(buf, p.strides[slot])])
            if ib is not None:
                ctx.ia_set_index_buffer(IndexBufferView(ib, "R16_UINT"))
                plan = ctx.draw_indexed_instanced(p.count, p.instances, 0, 0, 0)
            else:
                plan = ctx.draw_instanced(p.count, p.instances, 0, 0)
            self.plans.append((p.name, plan))

    def verdicts(self) -> list[str]:
        """One line per layout: refused by CreateInputLayout, or the cross-check of both GPU
        paths against the CPU reference on this demo's device."""
        out = []
        self.differences = 0
        for p in self.prepared:
            if p.refused:
                out.append(f"{p.name}: refused by CreateInputLayout: {p.refused}")
                continue
            result = cross_check(p.case(), [self.device], ("native", "pulling"))
            parts = [f"{line.path} {line.status}" + (f" ({line.detail})" if line.status in
                                                      ("OK", "DIFFERENT") else "")
                     for line in result.lines]
            out.append(f"{p.name}: {'OK' if result.ok else 'DIFFERENT'}: {'; '.join(parts)}")
            self.differences += not result.ok
        return out

    def notes(self) -> list[str]:
        return self.verdicts() + super().notes()


DEMO = RealLayoutsDemo
"""The demo this program draws (what ``gpuia demo real_layouts`` runs)."""

if __name__ == "__main__":
    sys.exit(main(DEMO))
