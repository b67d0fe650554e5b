"""The golden WGSL programs (tests/golden/wgsl/): one spec per program gpuia generates, and the
layout of the golden files. Shared by tests/unit/test_wgsl_golden.py, which checks each golden
file's text against the generator, and tests/gpu/test_wgsl_golden_gpu.py, which compiles each
program on the adapter.

Each spec is built from public constructors only (an InputLayout from element descs, a signature
parsed from WGSL, a Stream Output declaration resolved against it) and names what it exercises.

A golden file holds a header comment naming the spec, then the program, except that a library
piece (a shader file of ``shaders/`` with no placeholder and three lines or more, such as the
decoders of ``ia_decode.wgsl``) that the program holds verbatim is one reference line,
``//@piece NAME``: the piece's text is pinned once, in ``tests/golden/wgsl/pieces/NAME``, so that
a change to it touches one golden file. :func:`expand` puts the pieces back: the program's full
text is still pinned, by its golden file and the pieces' golden files together.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from gpuia.d3d.layout import InputLayout
from gpuia.d3d.so_declaration import resolve_stream_output
from gpuia.d3d.so_desc import StreamOutputDesc
from gpuia.d3d.topology import topology_info
from gpuia.reference.coverage import KEY_SALT, SUBPIXEL
from gpuia.util import resources
from gpuia.wgsl.gs_expansion import gs_program
from gpuia.wgsl.index_pass import IndexPassSpec, IndexSource, IndexStreams, index_pass_program
from gpuia.wgsl.pixel import link_stages, null_pixel_program, pixel_program
from gpuia.wgsl.program import ProgramSpec, vertex_program
from gpuia.wgsl.raster import raster_probe_program
from gpuia.wgsl.signature import parse_pixel_shader, parse_vertex_shader, pass_through_signature
from gpuia.wgsl.so_pass import SOProgramSpec, draw_auto_program, so_program
from helpers import GOLDEN_DIR, REGENERATE_GOLDEN

PIECES_DIR = GOLDEN_DIR / "pieces"
"""The golden files of the library pieces the program goldens refer to."""
_MARK = "//@piece "
_MIN_PIECE_LINES = 3  # a shorter piece stays inline: a reference line would say no less


def library_pieces() -> tuple[str, ...]:
    """The shader files a golden program refers to instead of holding them: WGSL, no
    placeholder, three lines or more; longest first (a piece never hides a longer one)."""
    names = [n for n in resources.shader_names() if n.endswith(".wgsl")
             and not resources.shader_placeholders(n)
             and resources.shader_text(n).count("\n") + 1 >= _MIN_PIECE_LINES]
    return tuple(sorted(names, key=lambda n: -len(resources.shader_text(n))))


def reduce(program: str) -> tuple[str, tuple[str, ...]]:
    """``program`` with each library piece it holds as whole lines replaced by its reference
    line, and the pieces referred to."""
    used = []
    for name in library_pieces():
        pattern = re.compile(r"(?m)^" + re.escape(resources.shader_text(name)) + r"$")
        program, n = pattern.subn(lambda _m, name=name: _MARK + name, program)
        if n:
            used.append(name)
    return program, tuple(sorted(used))


def expand(golden_program: str) -> str:
    """A golden program with each reference line replaced by its piece's golden text."""
    def piece(m: re.Match) -> str:
        text = (PIECES_DIR / m.group(1)).read_text(encoding="utf-8")
        return text[:-1] if text.endswith("\n") else text

    return re.sub(r"(?m)^" + re.escape(_MARK) + r"(\S+)$", piece, golden_program)


def files_read(entry: Golden) -> frozenset[str]:
    """The shader files generating ``entry``'s program reads (every read of a shader file goes
    through ``gpuia.util.resources._read``, watched here for the one call)."""
    seen: set[str] = set()
    real = resources._read

    def watch(name: str) -> str:
        seen.add(name)
        return real(name)

    resources._read = watch  # type: ignore[assignment]
    try:
        entry.program()
    finally:
        resources._read = real  # type: ignore[assignment]
    return frozenset(seen)


def split_header(text: str) -> str:
    """The program part of a golden file (after its header and the empty line)."""
    return text.split("\n\n", 1)[1]


@dataclass(frozen=True)
class Golden:
    name: str
    description: str
    build: Callable[[], object]  # -> the spec (ProgramSpec, SOProgramSpec, ...)
    render: Callable[[object], str]  # spec -> WGSL text

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / f"{self.name}.wgsl"

    def program(self) -> str:
        """The generated program, in full."""
        return self.render(self.build())

    def text(self) -> str:
        """The golden file's whole content: the header naming the spec, then the program with
        its library pieces as reference lines."""
        header = [f"// golden: {self.name}"]
        header += [f"// {line}" for line in textwrap.wrap(self.description, 96)]
        header.append(f"// regenerate: {REGENERATE_GOLDEN}")
        return "\n".join(header) + "\n\n" + reduce(self.program())[0]


GOLDENS: dict[str, Golden] = {}


def golden(name: str, description: str, render: Callable[[object], str] = vertex_program):
    def register(build):
        GOLDENS[name] = Golden(name, description, build, render)
        return build
    return register


def layout_of(*elements) -> InputLayout:
    """An InputLayout from (semantic, format, offset[, slot[, step rate]]) rows; a step rate
    makes the element per-instance."""
    descs = []
    for row in elements:
        semantic, fmt, offset, *rest = row
        slot = rest[0] if rest else 0
        desc = {"SemanticName": semantic, "SemanticIndex": 0, "Format": fmt, "InputSlot": slot,
                "AlignedByteOffset": offset}
        if len(rest) > 1:
            desc.update(InputSlotClass="PER_INSTANCE_DATA", InstanceDataStepRate=rest[1])
        descs.append(desc)
    return InputLayout(descs)


def pulling(layout: InputLayout, aligned=None, aligned16=(), capture=False, **kw) -> ProgramSpec:
    """The vertex-pulling program of ``layout`` with its pass-through shader, one storage
    binding per slot (in slot order); ``aligned`` defaults to every slot (single word loads)."""
    slots = tuple(sorted(layout.slots))
    pulled = tuple((s, j) for j, s in enumerate(slots))
    aligned = frozenset(slots) if aligned is None else frozenset(aligned)
    return ProgramSpec(layout, pass_through_signature(layout), False, pulled, capture,
                       aligned=aligned, aligned16=frozenset(aligned16), **kw)


# -- fetch: one spec per channel kind of the format table (offsets and strides word-aligned) --
@golden("fetch_unorm", "pulling fetch of UNORM channels (8, 16, 5/6 and 4 bits), slot 0 "
        "word-aligned")
def _fetch_unorm():
    return pulling(layout_of(("A", "R8G8B8A8_UNORM", 0), ("B", "R16G16_UNORM", 4),
                            ("C", "R8_UNORM", 8), ("D", "B5G6R5_UNORM", 12),
                            ("E", "B4G4R4A4_UNORM", 16)))


@golden("fetch_snorm", "pulling fetch of SNORM channels (8 and 16 bits), slot 0 word-aligned")
def _fetch_snorm():
    return pulling(layout_of(("A", "R8G8B8A8_SNORM", 0), ("B", "R16G16B16A16_SNORM", 4),
                            ("C", "R8_SNORM", 12), ("D", "R16_SNORM", 16)))


@golden("fetch_uint", "pulling fetch of UINT channels (32, 16 and 8 bits), slot 0 word-aligned")
def _fetch_uint():
    return pulling(layout_of(("A", "R32G32B32A32_UINT", 0), ("B", "R16G16_UINT", 16),
                            ("C", "R8G8B8A8_UINT", 20), ("D", "R8_UINT", 24)))


@golden("fetch_sint", "pulling fetch of SINT channels (32 bits as is, 16 and 8 bits "
        "sign-extended), slot 0 word-aligned")
def _fetch_sint():
    return pulling(layout_of(("A", "R32G32_SINT", 0), ("B", "R16G16B16A16_SINT", 8),
                            ("C", "R8G8_SINT", 16), ("D", "R16_SINT", 20)))


@golden("fetch_float", "pulling fetch of 32-bit FLOAT channels (bits as is), slot 0 word-aligned")
def _fetch_float():
    return pulling(layout_of(("A", "R32G32B32_FLOAT", 0), ("B", "R32_FLOAT", 12)))


@golden("fetch_half", "pulling fetch of 16-bit FLOAT channels (exact widening), slot 0 "
        "word-aligned")
def _fetch_half():
    return pulling(layout_of(("A", "R16G16B16A16_FLOAT", 0), ("B", "R16G16_FLOAT", 8),
                            ("C", "R16_FLOAT", 12)))


@golden("fetch_packed", "pulling fetch of packed formats: 10-10-10-2 UNORM and UINT, 11-11-10 "
        "unsigned FLOAT, slot 0 word-aligned")
def _fetch_packed():
    return pulling(layout_of(("A", "R10G10B10A2_UNORM", 0), ("B", "R10G10B10A2_UINT", 4),
                            ("C", "R11G11B10_FLOAT", 8)))


@golden("fetch_swizzled", "pulling fetch of BGRA formats: swizzles, the X8 padding channel and "
        "the constant 1 in w, slot 0 word-aligned")
def _fetch_swizzled():
    return pulling(layout_of(("A", "B8G8R8A8_UNORM", 0), ("B", "B8G8R8X8_UNORM", 4),
                            ("C", "B5G5R5A1_UNORM", 8)))


# -- loads ---------------------------------------------------------------------------------
@golden("unaligned_loads", "two-word loads: slot 0 is not word-aligned (a stride or view offset "
        "that is not a multiple of 4, e.g. stride 19; 1- and 2-byte elements at offsets 13 and "
        "14); slot 1 is word-aligned (single loads)")
def _unaligned_loads():
    return pulling(layout_of(("POSITION", "R32G32B32_FLOAT", 0), ("COLOR", "R8_UNORM", 12),
                            ("TEXCOORD", "R8_UINT", 13), ("BLENDWEIGHT", "R16_FLOAT", 14),
                            ("NORMAL", "R32_FLOAT", 0, 1)),
                    aligned={1})


@golden("aligned16_loads", "128-bit loads: slot 0 has a 16-byte view offset and stride; 16-byte "
        "elements at offsets 0 and 16 take one vec4 load, the one at offset 40 and smaller "
        "elements take word loads")
def _aligned16_loads():
    return pulling(layout_of(("A", "R32G32B32A32_FLOAT", 0), ("B", "R32G32B32A32_UINT", 16),
                            ("C", "R32G32_FLOAT", 32), ("D", "R32G32B32A32_SINT", 40),
                            ("E", "R16G16B16A16_UNORM", 56)),
                    aligned16={0})


@golden("attribute_words", "the attribute form: slot 0's elements (1, 2, 3 and 4 words) arrive "
        "as raw uint32 vertex attributes and are decoded without loads; slot 1 (per-instance, "
        "step rate 1) keeps storage loads")
def _attribute_words():
    return pulling(layout_of(("A", "R8G8B8A8_UNORM", 0), ("B", "R16G16B16A16_FLOAT", 4),
                            ("C", "R32G32B32_FLOAT", 12), ("D", "R32G32B32A32_SINT", 24),
                            ("E", "R32_FLOAT", 0, 1, 1)),
                   attributes=frozenset({0}))


# -- step rates ----------------------------------------------------------------------------
@golden("step_rates", "per-vertex slot 0, per-instance slot 1 with step rate 0 (every instance "
        "reads the first instance's data), per-instance slot 2 with step rate 3")
def _step_rates():
    return pulling(layout_of(("POSITION", "R32G32_FLOAT", 0), ("COLOR", "R8G8B8A8_UNORM", 0, 1, 0),
                            ("OFFSET", "R32_UINT", 0, 2, 3)))


@golden("arena_slots", "slots 0 and 3 pulled from one arena buffer (both at storage binding 0), "
        "slot 3 per-instance with step rate 1")
def _arena_slots():
    layout = layout_of(("POSITION", "R32G32B32_FLOAT", 0), ("TEXCOORD", "R16G16_UNORM", 0, 3, 1))
    return ProgramSpec(layout, pass_through_signature(layout), False, ((0, 0), (3, 0)), False,
                       aligned=frozenset({0, 3}))


# -- capture -------------------------------------------------------------------------------
CAPTURE_LAYOUT = (("POSITION", "R32G32B32_FLOAT", 0), ("TEXCOORD", "R16G16_FLOAT", 12))


@golden("capture_storage", "capture entry point, storage route: pulling path, one record per "
        "fetched vertex written to gpuia_capture (key search over the draw's fetch indices)")
def _capture_storage():
    return pulling(layout_of(*CAPTURE_LAYOUT), capture=True)


@golden("capture_targets_group0", "capture entry point, render-target route: pulling path, group "
        "0 of two vec4 targets per group (the record header and element 0)")
def _capture_targets_group0():
    return pulling(layout_of(*CAPTURE_LAYOUT), capture=True, capture_group=0, capture_targets=2)


@golden("capture_targets_group1_native", "capture entry point, render-target route: native path, "
        "group 1 of two vec4 targets per group (element 1 only)")
def _capture_targets_group1_native():
    layout = layout_of(*CAPTURE_LAYOUT)
    return ProgramSpec(layout, pass_through_signature(layout), True, (), True,
                       capture_group=1, capture_targets=2)


# -- native path ---------------------------------------------------------------------------
_NATIVE_VS = """
struct VSIn { POSITION: vec3<f32>, COLOR: vec4<f32> }
struct VSOut { SV_Position: vec4<f32>, COLOR: vec4<f32> }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = vec4<f32>(input.POSITION, 1.0);
  o.COLOR = input.COLOR;
  return o;
}
"""

_SYSTEM_VS = """
struct VSIn {
  POSITION: vec4<f32>,
  BLENDINDICES: u32,
  TEXCOORD: vec2<i32>,
  SV_VertexID: u32,
  SV_InstanceID: i32,
}
struct VSOut { SV_Position: vec4<f32>, COLOR: vec4<f32>, TEXCOORD0: vec2<u32> }
@vertex fn vs_main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = input.POSITION;
  o.COLOR = vec4<f32>(f32(input.BLENDINDICES), f32(input.SV_InstanceID), 0.0, 1.0);
  o.TEXCOORD0 = vec2<u32>(input.SV_VertexID, bitcast<u32>(input.TEXCOORD.x));
  return o;
}
"""

_PIXEL_PS = """
struct PSIn { SV_Position: vec4<f32>, @interpolate(linear, centroid) COLOR: vec4<f32>, TEXCOORD0: vec2<u32> }
struct PSOut { SV_Target0: vec4<f32>, SV_Target1: u32 }
@fragment fn ps_main(input: PSIn) -> PSOut {
  var o: PSOut;
  o.SV_Target0 = input.COLOR * input.SV_Position.w;
  o.SV_Target1 = input.TEXCOORD0.x;
  return o;
}
"""  # noqa: E501 - the shader as written


def system_layout() -> InputLayout:
    return layout_of(("POSITION", "R32G32B32A32_FLOAT", 0), ("BLENDINDICES", "R8G8B8A8_UINT", 16),
                   ("TEXCOORD", "R16G16_SINT", 20), ("COLOR", "R8G8B8A8_UNORM", 0, 1, 1))


def linked():
    """The vertex and pixel shaders of the native_varyings and pixel_program specs, linked."""
    vs, ps = parse_vertex_shader(_SYSTEM_VS), parse_pixel_shader(_PIXEL_PS)
    return vs, ps, link_stages(vs, ps, 16)


@golden("native_no_constants", "native path: @location inputs typed by format class (one unused "
        "by the shader), no per-draw block (no system values, no capture), the shader's "
        "SV_Position out")
def _native_no_constants():
    layout = layout_of(("POSITION", "R32G32B32_FLOAT", 0), ("COLOR", "R8G8B8A8_UNORM", 12),
                     ("BLENDINDICES", "R8G8B8A8_UINT", 16))
    return ProgramSpec(layout, parse_vertex_shader(_NATIVE_VS), True, (), False, constants=False)


@golden("native_varyings", "native path with the per-draw block: SV_VertexID (u32) and "
        "SV_InstanceID (i32) from the builtins, members narrower than four components and of "
        "another scalar type than the format's, a per-instance slot, and the varyings a linked "
        "pixel shader reads")
def _native_varyings():
    vs, _, varyings = linked()
    return ProgramSpec(system_layout(), vs, True, (), False, varyings=varyings)


@golden("pulling_varyings", "the native_varyings shader on the pulling path (two slots, each "
        "with its own binding, word-aligned)")
def _pulling_varyings():
    vs, _, varyings = linked()
    return ProgramSpec(system_layout(), vs, False, ((0, 0), (1, 1)), False,
                       aligned=frozenset({0, 1}), varyings=varyings)


@golden("pixel_program", "the fragment entry point of a pixel shader linked to the native_varyings "
        "vertex shader: SV_Position's w, an interpolation modifier, a flat integer varying, a "
        "float target and a 1-component UINT target",
        render=lambda spec: pixel_program(*spec))
def _pixel_program():
    _, ps, varyings = linked()
    return ps, varyings, ("float", "uint")


# -- Stream Output -------------------------------------------------------------------------
_SO_VS = """
struct VSIn { POSITION: vec4<f32>, COLOR: vec4<f32>, SV_VertexID: u32 }
struct VSOut {
  SV_Position: vec4<f32>,
  TEXCOORD0: vec2<f32>,
  COLOR: vec4<f32>,
  ID: u32,
  DELTA: vec3<i32>,
}
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = input.POSITION;
  o.TEXCOORD0 = input.POSITION.xy;
  o.COLOR = input.COLOR;
  o.ID = input.SV_VertexID;
  o.DELTA = vec3<i32>(1, -2, 3);
  return o;
}
"""


def _so_spec(topology: str, declaration, strides, slots, buffers: int, mode: str,
             index_size: int) -> SOProgramSpec:
    layout = layout_of(("POSITION", "R32G32B32A32_FLOAT", 0), ("COLOR", "R8G8B8A8_UNORM", 16))
    sig = parse_vertex_shader(_SO_VS)
    so = resolve_stream_output(StreamOutputDesc(declaration, strides), sig)
    return SOProgramSpec(layout, sig, so, topology_info(topology), ((0, 0),), slots, buffers,
                         mode, index_size, aligned=frozenset({0}), aligned16=frozenset({0}))


@golden("so_strip_direct", "Stream Output pass, closed-form order of a non-indexed triangle strip: "
        "slot 0 (stride 40) takes SV_Position as one 128-bit store when aligned, a 1-component "
        "gap and TEXCOORD0; slot 1 (stride 16) takes COLOR.yzw and ID; the two slots' counters "
        "share a buffer", render=so_program)
def so_strip_direct():
    declaration = [
        {"SemanticName": "SV_Position", "ComponentCount": 4, "OutputSlot": 0},
        {"SemanticName": None, "ComponentCount": 1, "OutputSlot": 0},
        {"SemanticName": "TEXCOORD", "ComponentCount": 2, "OutputSlot": 0},
        {"SemanticName": "COLOR", "StartComponent": 1, "ComponentCount": 3, "OutputSlot": 1},
        {"SemanticName": "ID", "ComponentCount": 1, "OutputSlot": 1},
    ]
    return _so_spec("TRIANGLESTRIP", declaration, (40, 16), ((0, 1), (2, 1)), 3, "direct", 0)


@golden("so_indexed_adjacency", "Stream Output pass, closed-form order of an indexed (16-bit) "
        "triangle strip with adjacency; slot 2 has no target bound (nothing fits)",
        render=so_program)
def _so_indexed_adjacency():
    declaration = [
        {"SemanticName": "DELTA", "ComponentCount": 3, "OutputSlot": 0},
        {"SemanticName": "SV_Position", "ComponentCount": 4, "OutputSlot": 2},
    ]
    return _so_spec("TRIANGLESTRIP_ADJ", declaration, (12, 0, 16), ((0, 1), None), 2, "direct", 2)


@golden("so_host_list", "Stream Output pass, vertex order from a host list of (SV_VertexID, "
        "instance) pairs (strips with cuts), line list, one slot", render=so_program)
def so_host_list():
    declaration = [{"SemanticName": "COLOR", "ComponentCount": 4, "OutputSlot": 0},
                   {"SemanticName": "ID", "ComponentCount": 1, "OutputSlot": 0}]
    return _so_spec("LINELIST", declaration, (20,), ((0, 1),), 2, "list", 0)


# -- pixel stages without targets ------------------------------------------------------------
_NO_TARGET_PS = """
struct PSIn { COLOR: vec4<f32> }
struct PSOut { SV_Target0: vec4<f32> }
@fragment fn ps_main(input: PSIn) -> PSOut {
  var o: PSOut;
  o.SV_Target0 = input.COLOR;
  return o;
}
"""


@golden("pixel_no_targets", "the fragment entry point of a pixel shader whose pipeline state has "
        "no render target format for its SV_Target0: the shader runs, nothing is written",
        render=lambda spec: pixel_program(*spec))
def _pixel_no_targets():
    vs = parse_vertex_shader(_NATIVE_VS)
    ps = parse_pixel_shader(_NO_TARGET_PS)
    # A signature without SV_Target outputs: the entry point that writes no target.
    return replace(ps, outputs=()), link_stages(vs, ps, 16), ()


@golden("pixel_null", "the fragment stage of a pipeline state with render targets and no pixel "
        "shader: it writes nothing", render=lambda _spec: null_pixel_program())
def _pixel_null():
    return None


# -- the index pass --------------------------------------------------------------------------
@golden("index_closed_list_uint32", "index pass, closed program: a 32-bit triangle list, both "
        "streams", render=index_pass_program)
def _index_closed():
    return IndexPassSpec(topology_info("TRIANGLELIST"), IndexSource.UINT32)


@golden("index_scan_strip_uint16", "index pass, scan program: a 16-bit triangle strip cut at "
        "0xFFFF, primitives rotated left by one (an adapter whose provoking vertex is the last), "
        "both streams", render=index_pass_program)
def _index_scan():
    return IndexPassSpec(topology_info("TRIANGLESTRIP"), IndexSource.UINT16, 0xFFFF, True)


@golden("index_sequential_adjacency", "index pass of a non-indexed line strip with adjacency: the "
        "list stream only", render=index_pass_program)
def _index_sequential():
    return IndexPassSpec(topology_info("LINESTRIP_ADJ"), IndexSource.SEQUENTIAL,
                         streams=IndexStreams.LIST)


@golden("index_null_view", "index pass of an indexed point list through a NULL index view "
        "(every index reads 0): the kept stream only", render=index_pass_program)
def _index_null():
    return IndexPassSpec(topology_info("POINTLIST"), IndexSource.NULL, streams=IndexStreams.KEPT)


# -- DrawAuto and the raster probe -----------------------------------------------------------
@golden("draw_auto", "DrawAuto's compute step: the vertex count of an SO target's "
        "BufferFilledSize as draw-indirect arguments", render=lambda _spec: draw_auto_program())
def _draw_auto():
    return None


@golden("raster_probe", "the raster probe of a 64 x 64 target with the reference's key salt and "
        "subpixel grid", render=lambda spec: raster_probe_program(*spec))
def _raster_probe():
    return 64, KEY_SALT, SUBPIXEL


# -- the geometry shader's expansion into Stream Output ----------------------------------------
def _gs_golden(name: str, does: str) -> None:
    golden(f"gs_{name}", f"the geometry shader's expansion: {does}",
           render=gs_program)(lambda: name)


_gs_golden("count", "each invocation's complete primitives per stream")
_gs_golden("scan", "the multi-level prefix sum of the counts")
_gs_golden("fit", "each stream's fit, counters, overflow flag and statistics")
_gs_golden("write", "each invocation's written primitives into the slots")
