"""Generation of the WGSL vertex programs gpuia compiles: one per (layout, shader, path, mode).

A program is the user's vertex shader (rewritten by ``signature.parse_vertex_shader``) plus a
generated entry point that builds the shader's input struct from the Input Assembler's data and
calls the user's function. Two ways to get the data:

* **native**: one ``@location`` per input element, typed by the element's format class (WebGPU
  requires it), fed by WebGPU vertex buffers;
* **pulling**: every used slot is a ``var<storage, read> array<u32>``; each element has a
  generated fetch function (index by step rate, D3D12 per-element bounds, unaligned two-word
  loads, exact decode of every channel kind from the format table).

Either way each element arrives as the four 32-bit patterns D3D delivers, and the struct members
take them by bit cast (a float input fed by a UINT format sees raw bits, rulebook 2.12), truncated
to the member's width. SV_VertexID and SV_InstanceID are computed from the builtins minus the
draw's start values, which WebGPU includes and D3D does not (rulebook 4.5, 4.6).

In capture mode the entry point also writes a record per (draw, instance, fetched vertex) into a
storage buffer: a written flag, SV_VertexID, SV_InstanceID and every element's four words.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..d3d.formats import FormatInfo
from ..d3d.layout import InputLayout, ResolvedElement
from ..reference.decode import ONE_BITS
from .pixel import varyings_struct
from ..d3d.signature import ShaderSignature
from .text import wgsl_comment_text

__all__ = ["ProgramSpec", "vertex_program", "load_shader_source", "record_words",
           "DRAW_HEADER_WORDS", "SLOT_WORDS", "CAPTURE_HEADER_WORDS"]

DRAW_HEADER_WORDS = 12
"""u32 words before the per-slot entries in the per-draw uniform block."""
SLOT_WORDS = 4
"""u32 words per pulled slot: base byte offset in the buffer, stride, SizeInBytes, bound flag."""
CAPTURE_HEADER_WORDS = 3
"""Per capture record: written flag, SV_VertexID, SV_InstanceID; then 4 words per element."""

_WGSL_TYPE = {"float": "f32", "uint": "u32", "sint": "i32"}


def record_words(element_count: int) -> int:
    return CAPTURE_HEADER_WORDS + 4 * element_count


@lru_cache(maxsize=None)
def load_shader_source(name: str) -> str:
    """Text of a WGSL file shipped in ``shaders/`` (installed as ``gpuia/shaders``)."""
    here = Path(__file__).resolve().parent.parent
    for folder in (here / "shaders", here.parent / "shaders"):
        path = folder / name
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(f"gpuia shader {name} not found (looked in gpuia/shaders and shaders/)")


# -- channel decoding: one template per channel kind (the format table picks the kind) --------
def _channel_expr(kind: str, bits: int, raw: str) -> str:
    templates = {
        "un": "gpuia_unorm({c}, {n}u)",
        "sn": "gpuia_snorm({c}, {n}u)",
        "u": "{c}",
        "s": "{c}" if bits == 32 else "gpuia_sext({c}, {n}u)",
        "f": "{c}" if bits == 32 else "gpuia_half({c})",
        "uf": "gpuia_ufloat({c}, {n}u)",
    }
    return templates[kind].format(c=raw, n=bits)


def _raw_expr(fmt: FormatInfo, ch) -> str:
    w = f"w{ch.word}"
    if ch.shift:
        w = f"({w} >> {ch.shift}u)"
    if ch.shift + ch.bits < 32:  # bits above the channel belong to others (or other elements)
        w = f"({w} & 0x{ch.mask:x}u)"
    return w


def _decode_lines(fmt: FormatInfo) -> tuple[list[str], str]:
    lines, values = [], []
    for i, ch in enumerate(fmt.channels):
        if ch.kind == "x":
            values.append(None)
            continue
        lines.append(f"  let c{i} = {_channel_expr(ch.kind, ch.bits, _raw_expr(fmt, ch))};")
        values.append(f"c{i}")
    one = f"{ONE_BITS[fmt.shader_type]}u"
    comps = [("0u" if s == "0" else one if s == "1" else values["xyzw".index(s)])
             for s in fmt.swizzle]
    return lines, f"vec4<u32>({', '.join(comps)})"


def _oob_value(fmt: FormatInfo) -> str:
    """Out of bounds: 0 for the format's components, the (0,0,0,1) fill for the others."""
    one = f"{ONE_BITS[fmt.shader_type]}u"
    return f"vec4<u32>({', '.join(one if s == '1' else '0u' for s in fmt.swizzle)})"


@dataclass(frozen=True)
class ProgramSpec:
    """What a generated vertex program depends on (and so, with the wgpu state, its cache key).

    ``pulled_slots`` maps D3D slot -> storage binding index (pulling path); ``native`` is True
    when elements come from ``@location`` inputs. Strides, offsets and sizes are not part of it:
    they are per-draw uniforms, so pulling pipelines survive any rebinding.
    """

    layout: InputLayout
    signature: ShaderSignature
    native: bool
    pulled_slots: tuple[tuple[int, int], ...]
    capture: bool
    constants: bool = True  # False: a native program that needs no per-draw block
    capture_group: int = -1  # >= 0: render-target capture route, group of vec4 outputs
    capture_targets: int = 0  # vec4 outputs (color targets) per group on that route
    aligned: frozenset = frozenset()  # pulled slots whose every fetch is word-aligned
    aligned16: frozenset = frozenset()  # pulled slots with 16-byte view offset and stride
    varyings: tuple = ()  # gpuia.wgsl.pixel.Varying rows: outputs the pixel shader reads


def _fetch_function(e: ResolvedElement, binding: int, aligned16: bool = False,
                    index: int | None = None) -> str:
    """The fetch function of element ``e``: its slot's constants are ``gpuia_draw.slots[index]``
    (default: ``binding``), its words come through ``gpuia_load_<index>`` from
    ``gpuia_vb_<binding>`` (several slots share binding 0 when pulled from one arena)."""
    index = binding if index is None else index
    fmt = e.format
    if e.per_instance:
        rate = e.step_rate
        idx = ("gpuia_draw.first_instance" if rate == 0 else
               f"gpuia_draw.first_instance + (ii - gpuia_draw.first_instance) / {rate}u")
    else:
        idx = "vi"
    if aligned16 and fmt.words == 4 and e.offset % 16 == 0:
        loads = [f"  let v = gpuia_vb_{binding}[b >> 4u];",
                 "  let w0 = v.x;", "  let w1 = v.y;", "  let w2 = v.z;", "  let w3 = v.w;"]
    else:
        loads = [f"  let w{k} = gpuia_load_{index}(b + {4 * k}u);" for k in range(fmt.words)]
    lines, result = _decode_lines(fmt)
    return "\n".join([
        # The semantic name is the user's text: escaped, so that no character of it ends the
        # comment (a line break) or the program (a NUL).
        f"// element {e.index}: {wgsl_comment_text(e.key)} {fmt.name} at offset {e.offset} "
        f"of slot {e.slot}",
        f"fn gpuia_fetch_{e.index}(vi: u32, ii: u32) -> vec4<u32> {{",
        f"  let s = gpuia_draw.slots[{index}];",
        "  if (s.bound == 0u) { return vec4<u32>(0u); }",
        f"  let rel = s.stride * ({idx}) + {e.offset}u;",
        f"  if (rel > s.size || s.size - rel < {fmt.size}u) {{ return {_oob_value(fmt)}; }}",
        "  let b = s.base + rel;",
        *loads, *lines,
        f"  return {result};",
        "}",
    ])


def load_function(name: str, array: str, aligned: bool = False, vec4: bool = False) -> str:
    """``fn name(b: u32) -> u32``: the little-endian word at any byte address of ``array``
    (two loads and a funnel shift when unaligned; reads clamp to the array, and callers bound
    their addresses first). ``aligned``: every address the draw uses is a multiple of 4 (view
    offset, stride and element offsets all are), so one load does. ``vec4``: the array is
    ``array<vec4<u32>>`` (gpuia's vertex buffers), words are its components."""
    def word(i):
        return f"{array}[{i} >> 2u][{i} & 3u]" if vec4 else f"{array}[{i}]"

    if aligned:
        return f"fn {name}(b: u32) -> u32 {{ let w = b >> 2u; return {word('w')}; }}"
    length = f"arrayLength(&{array}) * 4u" if vec4 else f"arrayLength(&{array})"
    return "\n".join([
        f"fn {name}(b: u32) -> u32 {{",
        "  let sh = (b & 3u) * 8u;",
        f"  let last = {length} - 1u;",
        "  let w = min(b >> 2u, last);",
        f"  let lo = {word('w')};",
        "  if (sh == 0u) { return lo; }",
        "  let w1 = min(w + 1u, last);",
        f"  let hi = {word('w1')};",
        "  return (lo >> sh) | (hi << (32u - sh));",
        "}",
    ])


def _member_value(member, bits: str) -> str:
    """Convert a vec4<u32> of bit patterns to the member's declared type."""
    t = _WGSL_TYPE[member.type]
    v = bits if member.type == "uint" else f"bitcast<vec4<{t}>>({bits})"
    return v if member.components == 4 else f"{v}.{'xyzw'[:member.components]}"


def draw_block_lines(n_slots: int) -> list[str]:
    """The per-draw uniform block (``gpuia_draw``, group 0 binding 0)."""
    return [
        "// ---- generated by gpuia: per-draw constants ----",
        "struct GpuiaSlot { base: u32, stride: u32, size: u32, bound: u32 }",
        "struct GpuiaDraw {",
        "  vertex_base: u32, first_instance: u32, capture_base: u32, key_offset: u32,",
        "  key_count: u32, key_contiguous: u32, key_first: u32, pad0: u32,",
        "  vertex_shift: u32, pad1: u32, pad2: u32, pad3: u32,",
        f"  slots: array<GpuiaSlot, {max(1, n_slots)}>,",
        "}",
        "@group(0) @binding(0) var<uniform> gpuia_draw: GpuiaDraw;",
    ]


def pulling_lines(layout: InputLayout, pulled_slots: tuple[tuple[int, int], ...],
                  aligned: frozenset = frozenset(), aligned16: frozenset = frozenset()) -> list[str]:
    """Storage bindings (group 1) and fetch functions ``gpuia_fetch_<element>(vi, ii)`` for
    every element of the layout, pulled from the given (slot, binding) pairs. Slots in
    ``aligned`` are read with single word loads (see :func:`load_function`); 16-byte elements
    of slots in ``aligned16`` (view offset, stride and element offset multiples of 16) with one
    128-bit load."""
    position = {slot: j for j, (slot, _) in enumerate(pulled_slots)}  # uniform slot entry
    bindings = dict(pulled_slots)
    out = [f"@group(1) @binding({b}) var<storage, read> gpuia_vb_{b}: array<vec4<u32>>;"
           for b in sorted(set(bindings.values()))]
    out.append(load_shader_source("ia_decode.wgsl"))
    for slot, binding in pulled_slots:
        out.append(load_function(f"gpuia_load_{position[slot]}", f"gpuia_vb_{binding}",
                                 slot in aligned, vec4=True))
    for e in layout.elements:
        out.append(_fetch_function(e, bindings[e.slot], e.slot in aligned16, position[e.slot]))
    return out


def shader_call_lines(layout: InputLayout, sig: ShaderSignature) -> list[str]:
    """Build the user's input struct from ``e<element>`` (vec4<u32> bits), ``sv_vertex_id`` and
    ``sv_instance_id``, and call the user's function into ``output``."""
    body = []
    call = f"{sig.entry_point}()"
    elements = {e.key: e for e in layout.elements}
    if sig.input_struct:
        body.append(f"  var input: {sig.input_struct};")
        for m in sig.inputs:
            if m.semantic == "SV_VERTEXID":
                val = "sv_vertex_id"
            elif m.semantic == "SV_INSTANCEID":
                val = "sv_instance_id"
            else:
                val = f"e{elements[m.key].index}"
                body.append(f"  input.{m.name} = {_member_value(m, val)};")
                continue
            body.append(f"  input.{m.name} = {val if m.type == 'uint' else f'bitcast<i32>({val})'};")
        call = f"{sig.entry_point}(input)"
    body.append(f"  let output = {call};")
    return body


def vertex_program(spec: ProgramSpec) -> str:
    """The complete WGSL module for a vertex pipeline (entry point ``gpuia_vs``) plus a trivial
    fragment entry point ``gpuia_fs`` used when nothing else is drawn."""
    layout, sig = spec.layout, spec.signature
    constants = spec.constants or spec.capture or not spec.native
    out = draw_block_lines(len(spec.pulled_slots)) if constants else []
    targets_route = spec.capture and spec.capture_group >= 0
    if spec.capture and not targets_route:
        out += [
            "@group(0) @binding(1) var<storage, read_write> gpuia_capture: array<u32>;",
            "@group(0) @binding(2) var<storage, read> gpuia_keys: array<u32>;",
            "@group(0) @binding(3) var<storage, read_write> gpuia_errors: array<atomic<u32>>;",
        ]
    elif targets_route:
        out.append("@group(0) @binding(2) var<storage, read> gpuia_keys: array<u32>;")
    if not spec.native:
        out += pulling_lines(layout, spec.pulled_slots, spec.aligned, spec.aligned16)
    out.append("// ---- the vertex shader ----")
    out.append(sig.source)
    out.append("// ---- generated by gpuia: entry points ----")

    params = ["@builtin(vertex_index) gpu_vi: u32", "@builtin(instance_index) ii: u32"]
    if spec.native:
        for e in layout.elements:
            params.append(f"@location({e.index}) a{e.index}: vec4<{_WGSL_TYPE[e.format.shader_type]}>")
    # vertex_shift: the part of a non-indexed draw's first vertex an adapter could not take
    # (quirks.SIGNED_FIRST_VERTEX); 0 elsewhere. Wrapping u32 addition, as D3D's (rulebook 4.8).
    body = [
        "  let vi = gpu_vi + gpuia_draw.vertex_shift;",
        "  let sv_vertex_id = vi - gpuia_draw.vertex_base;",
        "  let sv_instance_id = ii - gpuia_draw.first_instance;",
    ] if constants else ["  let vi = gpu_vi;"]
    for e in layout.elements:
        src = (f"bitcast<vec4<u32>>(a{e.index})" if spec.native else f"gpuia_fetch_{e.index}(vi, ii)")
        body.append(f"  let e{e.index} = {src};")
    if targets_route:
        body += _capture_target_lines(layout, spec.capture_group, spec.capture_targets)
    elif spec.capture:
        body += _capture_lines(layout)
    body += shader_call_lines(layout, sig)
    pos = sig.output("SV_POSITION0")
    if targets_route:
        body.append("  return gpuia_out;")
        group = _target_group(layout, spec.capture_group, spec.capture_targets)
        members = [f"@location({j}) @interpolate(flat) o{j}: vec4<u32>" for j in range(len(group))]
        out += [
            "struct GpuiaCapOut { @builtin(position) pos: vec4<f32>, " + ", ".join(members) + " }",
            "struct GpuiaCapTargets { "
            + ", ".join(f"@location({j}) t{j}: vec4<u32>" for j in range(len(group))) + " }",
            f"@vertex fn gpuia_vs({', '.join(params)}) -> GpuiaCapOut {{",
            *body,
            "}",
            "@fragment fn gpuia_fs(i: GpuiaCapOut) -> GpuiaCapTargets {",
            "  var t: GpuiaCapTargets;",
            *[f"  t.t{j} = i.o{j};" for j in range(len(group))],
            "  return t;",
            "}",
            "",
        ]
        return "\n".join(out)
    # Capture draws, and shaders without SV_Position, rasterize nothing: z > w is outside every
    # clip volume.
    position = ("vec4<f32>(0.0, 0.0, 2.0, 1.0)" if spec.capture or pos is None
                else f"output.{pos.name}")
    result = "@builtin(position) vec4<f32>"
    if spec.varyings and not spec.capture:
        out.append(varyings_struct(spec.varyings))
        result = "GpuiaVaryings"
        body += ["  var gpuia_o: GpuiaVaryings;", f"  gpuia_o.gpuia_position = {position};"]
        body += [f"  gpuia_o.v{v.location} = output.{v.vs_member};" for v in spec.varyings]
        body.append("  return gpuia_o;")
    else:
        body.append(f"  return {position};")
    out += [
        f"@vertex fn gpuia_vs({', '.join(params)}) -> {result} {{",
        *body,
        "}",
        "@fragment fn gpuia_fs() -> @location(0) vec4<f32> { return vec4<f32>(0.0); }",
        "",
    ]
    return "\n".join(out)


CAPTURE_TARGET_WIDTH = 256
"""Texels per row of the render-target capture route (a multiple of 16: 256-byte rows)."""


def _target_group(layout: InputLayout, group: int, per_group: int) -> list[str]:
    """The vec4 values a capture group renders: the header then each element's four words."""
    values = ["vec4<u32>(gpuia_flag, sv_vertex_id, sv_instance_id, vi)"]
    values += [f"e{e.index}" for e in layout.elements]
    return values[group * per_group:(group + 1) * per_group]


def _capture_target_lines(layout: InputLayout, group: int, per_group: int) -> list[str]:
    """Render-target route (no writable storage in the vertex stage): one point per record,
    placed on its texel; its vec4s go out as flat varyings to rgba32uint targets. Vertices
    D3D would not fetch land on the last texel with flag 2."""
    w = CAPTURE_TARGET_WIDTH
    lines = _search_lines() + [
        "  let texels = gpuia_draw.pad0 * " f"{w}u;",
        "  var rec = texels - 1u;",
        "  var gpuia_flag = 2u;",
        "  if (found) {",
        "    rec = gpuia_draw.capture_base + sv_instance_id * gpuia_draw.key_count + rank;",
        "    gpuia_flag = 1u;",
        "  }",
        "  var gpuia_out: GpuiaCapOut;",
        f"  let px = f32(rec % {w}u) + 0.5;",
        f"  let py = f32(rec / {w}u) + 0.5;",
        f"  gpuia_out.pos = vec4<f32>(px / {w}.0 * 2.0 - 1.0, "
        "1.0 - py / f32(gpuia_draw.pad0) * 2.0, 0.0, 1.0);",
    ]
    for j, value in enumerate(_target_group(layout, group, per_group)):
        lines.append(f"  gpuia_out.o{j} = {value};")
    return lines


def _search_lines() -> list[str]:
    """Find ``rank``, the position of ``vi`` among the draw's fetch indices, and ``found``."""
    return [
        "  var rank = 0u;",
        "  var found = false;",
        "  if (gpuia_draw.key_contiguous != 0u) {",
        "    rank = vi - gpuia_draw.key_first;",
        "    found = rank < gpuia_draw.key_count;",
        "  } else {",
        "    // binary search of vi among the draw's sorted fetch indices",
        "    var lo = 0u;",
        "    var hi = gpuia_draw.key_count;",
        "    loop {",
        "      if (lo >= hi) { break; }",
        "      let mid = lo + (hi - lo) / 2u;",
        "      let k = gpuia_keys[gpuia_draw.key_offset + mid];",
        "      if (k < vi) { lo = mid + 1u; } else { hi = mid; }",
        "    }",
        "    rank = lo;",
        "    found = lo < gpuia_draw.key_count && gpuia_keys[gpuia_draw.key_offset + lo] == vi;",
        "  }",
    ]


def _capture_lines(layout: InputLayout) -> list[str]:
    words = record_words(len(layout.elements))
    lines = _search_lines() + [
        "  if (!found) {",
        "    atomicAdd(&gpuia_errors[0], 1u);",
        "    atomicMax(&gpuia_errors[1], vi);",
        "  } else {",
        f"    let r = (gpuia_draw.capture_base + sv_instance_id * gpuia_draw.key_count + rank) * {words}u;",
        "    gpuia_capture[r] = 1u;",
        "    gpuia_capture[r + 1u] = sv_vertex_id;",
        "    gpuia_capture[r + 2u] = sv_instance_id;",
    ]
    for e in layout.elements:
        base = CAPTURE_HEADER_WORDS + 4 * e.index
        for c in range(4):
            lines.append(f"    gpuia_capture[r + {base + c}u] = e{e.index}[{c}];")
    lines.append("  }")
    return lines
