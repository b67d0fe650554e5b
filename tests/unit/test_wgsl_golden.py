"""Golden text of the WGSL gpuia generates, one file per named spec (tests/golden/wgsl/).

Each spec below is built from public constructors only (an InputLayout from element descs, a
signature parsed from WGSL, a Stream Output declaration resolved against it) and names what it
exercises. Its golden file holds a header comment naming the spec, then the exact program the
generator produces: any change to the generated text shows as a diff of a golden file, as in
Tint's transform tests. These tests need no adapter and no wgpu device;
tests/gpu/test_wgsl_golden_gpu.py compiles each golden file on the adapter through gpuia's own
error mapping, so a golden file naga rejects cannot sit in the tree.

``pytest tests/unit/test_wgsl_golden.py --regenerate-golden`` rewrites the files. In that mode every
test here fails, naming the file it wrote, so that a regenerating run can never pass: review the
diff, then rerun without the flag.
"""

from __future__ import annotations

import difflib
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

import gpuia.wgsl
from gpuia.d3d.desc import StreamOutputDesc
from gpuia.d3d.formats import VERTEX_FORMATS
from gpuia.d3d.layout import InputLayout
from gpuia.d3d.so_declaration import resolve_stream_output
from gpuia.d3d.topology import topology_info
from gpuia.errors import GpuiaError, InvalidDescError
from gpuia.wgsl.library import load_shader_source, shader_names
from gpuia.wgsl.pixel import link_stages, pixel_program
from gpuia.wgsl.program import CaptureRoute, ProgramSpec, vertex_program
from gpuia.wgsl.signature import parse_pixel_shader, parse_vertex_shader, pass_through_signature
from gpuia.wgsl.so_pass import SOProgramSpec, SOVertexOrder, so_program
from helpers import GOLDEN_DIR, REGENERATE_GOLDEN


@dataclass(frozen=True)
class Golden:
    name: str
    description: str
    build: Callable[[], object]  # -> the spec (ProgramSpec, SOProgramSpec, ...)
    render: Callable[[object], str]  # spec -> WGSL text

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / f"{self.name}.wgsl"

    def text(self) -> str:
        """The golden file's whole content: the header naming the spec, then the program."""
        header = [f"// golden: {self.name}"]
        header += [f"// {line}" for line in textwrap.wrap(self.description, 96)]
        header.append(f"// regenerate: {REGENERATE_GOLDEN}")
        return "\n".join(header) + "\n\n" + self.render(self.build())


GOLDENS: dict[str, Golden] = {}


def golden(name: str, description: str, render: Callable[[object], str] = vertex_program):
    def register(build):
        GOLDENS[name] = Golden(name, description, build, render)
        return build
    return register


def _layout(*elements) -> InputLayout:
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


def _pulling(layout: InputLayout, aligned=None, aligned16=(), capture=False, **kw) -> ProgramSpec:
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
    return _pulling(_layout(("A", "R8G8B8A8_UNORM", 0), ("B", "R16G16_UNORM", 4),
                            ("C", "R8_UNORM", 8), ("D", "B5G6R5_UNORM", 12),
                            ("E", "B4G4R4A4_UNORM", 16)))


@golden("fetch_snorm", "pulling fetch of SNORM channels (8 and 16 bits), slot 0 word-aligned")
def _fetch_snorm():
    return _pulling(_layout(("A", "R8G8B8A8_SNORM", 0), ("B", "R16G16B16A16_SNORM", 4),
                            ("C", "R8_SNORM", 12), ("D", "R16_SNORM", 16)))


@golden("fetch_uint", "pulling fetch of UINT channels (32, 16 and 8 bits), slot 0 word-aligned")
def _fetch_uint():
    return _pulling(_layout(("A", "R32G32B32A32_UINT", 0), ("B", "R16G16_UINT", 16),
                            ("C", "R8G8B8A8_UINT", 20), ("D", "R8_UINT", 24)))


@golden("fetch_sint", "pulling fetch of SINT channels (32 bits as is, 16 and 8 bits "
        "sign-extended), slot 0 word-aligned")
def _fetch_sint():
    return _pulling(_layout(("A", "R32G32_SINT", 0), ("B", "R16G16B16A16_SINT", 8),
                            ("C", "R8G8_SINT", 16), ("D", "R16_SINT", 20)))


@golden("fetch_float", "pulling fetch of 32-bit FLOAT channels (bits as is), slot 0 word-aligned")
def _fetch_float():
    return _pulling(_layout(("A", "R32G32B32_FLOAT", 0), ("B", "R32_FLOAT", 12)))


@golden("fetch_half", "pulling fetch of 16-bit FLOAT channels (exact widening), slot 0 "
        "word-aligned")
def _fetch_half():
    return _pulling(_layout(("A", "R16G16B16A16_FLOAT", 0), ("B", "R16G16_FLOAT", 8),
                            ("C", "R16_FLOAT", 12)))


@golden("fetch_packed", "pulling fetch of packed formats: 10-10-10-2 UNORM and UINT, 11-11-10 "
        "unsigned FLOAT, slot 0 word-aligned")
def _fetch_packed():
    return _pulling(_layout(("A", "R10G10B10A2_UNORM", 0), ("B", "R10G10B10A2_UINT", 4),
                            ("C", "R11G11B10_FLOAT", 8)))


@golden("fetch_swizzled", "pulling fetch of BGRA formats: swizzles, the X8 padding channel and "
        "the constant 1 in w, slot 0 word-aligned")
def _fetch_swizzled():
    return _pulling(_layout(("A", "B8G8R8A8_UNORM", 0), ("B", "B8G8R8X8_UNORM", 4),
                            ("C", "B5G5R5A1_UNORM", 8)))


# -- loads ---------------------------------------------------------------------------------
@golden("unaligned_loads", "two-word loads: slot 0 is not word-aligned (a stride or view offset "
        "that is not a multiple of 4, e.g. stride 19; 1- and 2-byte elements at offsets 13 and "
        "14); slot 1 is word-aligned (single loads)")
def _unaligned_loads():
    return _pulling(_layout(("POSITION", "R32G32B32_FLOAT", 0), ("COLOR", "R8_UNORM", 12),
                            ("TEXCOORD", "R8_UINT", 13), ("BLENDWEIGHT", "R16_FLOAT", 14),
                            ("NORMAL", "R32_FLOAT", 0, 1)),
                    aligned={1})


@golden("aligned16_loads", "128-bit loads: slot 0 has a 16-byte view offset and stride; 16-byte "
        "elements at offsets 0 and 16 take one vec4 load, the one at offset 40 and smaller "
        "elements take word loads")
def _aligned16_loads():
    return _pulling(_layout(("A", "R32G32B32A32_FLOAT", 0), ("B", "R32G32B32A32_UINT", 16),
                            ("C", "R32G32_FLOAT", 32), ("D", "R32G32B32A32_SINT", 40),
                            ("E", "R16G16B16A16_UNORM", 56)),
                    aligned16={0})


# -- step rates ----------------------------------------------------------------------------
@golden("step_rates", "per-vertex slot 0, per-instance slot 1 with step rate 0 (every instance "
        "reads the first instance's data), per-instance slot 2 with step rate 3")
def _step_rates():
    return _pulling(_layout(("POSITION", "R32G32_FLOAT", 0), ("COLOR", "R8G8B8A8_UNORM", 0, 1, 0),
                            ("OFFSET", "R32_UINT", 0, 2, 3)))


@golden("arena_slots", "slots 0 and 3 pulled from one arena buffer (both at storage binding 0), "
        "slot 3 per-instance with step rate 1")
def _arena_slots():
    layout = _layout(("POSITION", "R32G32B32_FLOAT", 0), ("TEXCOORD", "R16G16_UNORM", 0, 3, 1))
    return ProgramSpec(layout, pass_through_signature(layout), False, ((0, 0), (3, 0)), False,
                       aligned=frozenset({0, 3}))


# -- capture -------------------------------------------------------------------------------
_CAPTURE_LAYOUT = (("POSITION", "R32G32B32_FLOAT", 0), ("TEXCOORD", "R16G16_FLOAT", 12))


@golden("capture_storage", "capture entry point, storage route: pulling path, one record per "
        "fetched vertex written to gpuia_capture (key search over the draw's fetch indices)")
def _capture_storage():
    return _pulling(_layout(*_CAPTURE_LAYOUT), capture=True)


@golden("capture_targets_group0", "capture entry point, render-target route: pulling path, group "
        "0 of two vec4 targets per group (the record header and element 0)")
def _capture_targets_group0():
    return _pulling(_layout(*_CAPTURE_LAYOUT), capture=True, capture_group=0, capture_targets=2)


@golden("capture_targets_group1_native", "capture entry point, render-target route: native path, "
        "group 1 of two vec4 targets per group (element 1 only)")
def _capture_targets_group1_native():
    layout = _layout(*_CAPTURE_LAYOUT)
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


def _system_layout() -> InputLayout:
    return _layout(("POSITION", "R32G32B32A32_FLOAT", 0), ("BLENDINDICES", "R8G8B8A8_UINT", 16),
                   ("TEXCOORD", "R16G16_SINT", 20), ("COLOR", "R8G8B8A8_UNORM", 0, 1, 1))


def _linked():
    """The vertex and pixel shaders of the native_varyings and pixel_program specs, linked."""
    vs, ps = parse_vertex_shader(_SYSTEM_VS), parse_pixel_shader(_PIXEL_PS)
    return vs, ps, link_stages(vs, ps, 16)


@golden("native_no_constants", "native path: @location inputs typed by format class (one unused "
        "by the shader), no per-draw block (no system values, no capture), the shader's "
        "SV_Position out")
def _native_no_constants():
    layout = _layout(("POSITION", "R32G32B32_FLOAT", 0), ("COLOR", "R8G8B8A8_UNORM", 12),
                     ("BLENDINDICES", "R8G8B8A8_UINT", 16))
    return ProgramSpec(layout, parse_vertex_shader(_NATIVE_VS), True, (), False, constants=False)


@golden("native_varyings", "native path with the per-draw block: SV_VertexID (u32) and "
        "SV_InstanceID (i32) from the builtins, members narrower than four components and of "
        "another scalar type than the format's, a per-instance slot, and the varyings a linked "
        "pixel shader reads")
def _native_varyings():
    vs, _, varyings = _linked()
    return ProgramSpec(_system_layout(), vs, True, (), False, varyings=varyings)


@golden("pulling_varyings", "the native_varyings shader on the pulling path (two slots, each "
        "with its own binding, word-aligned)")
def _pulling_varyings():
    vs, _, varyings = _linked()
    return ProgramSpec(_system_layout(), vs, False, ((0, 0), (1, 1)), False,
                       aligned=frozenset({0, 1}), varyings=varyings)


@golden("pixel_program", "the fragment entry point of a pixel shader linked to the native_varyings "
        "vertex shader: SV_Position's w, an interpolation modifier, a flat integer varying, a "
        "float target and a 1-component UINT target",
        render=lambda spec: pixel_program(*spec))
def _pixel_program():
    _, ps, varyings = _linked()
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
    layout = _layout(("POSITION", "R32G32B32A32_FLOAT", 0), ("COLOR", "R8G8B8A8_UNORM", 16))
    sig = parse_vertex_shader(_SO_VS)
    so = resolve_stream_output(StreamOutputDesc(declaration, strides), sig)
    return SOProgramSpec(layout, sig, so, topology_info(topology), ((0, 0),), slots, buffers,
                         mode, index_size, aligned=frozenset({0}), aligned16=frozenset({0}))


@golden("so_strip_direct", "Stream Output pass, closed-form order of a non-indexed triangle strip: "
        "slot 0 (stride 40) takes SV_Position as one 128-bit store when aligned, a 1-component "
        "gap and TEXCOORD0; slot 1 (stride 16) takes COLOR.yzw and ID; the two slots' counters "
        "share a buffer", render=so_program)
def _so_strip_direct():
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
def _so_host_list():
    declaration = [{"SemanticName": "COLOR", "ComponentCount": 4, "OutputSlot": 0},
                   {"SemanticName": "ID", "ComponentCount": 1, "OutputSlot": 0}]
    return _so_spec("LINELIST", declaration, (20,), ((0, 1),), 2, "list", 0)


# -- the checks ----------------------------------------------------------------------------
def check_golden(path: Path, text: str, regenerate: bool) -> None:
    """Compare ``text`` with the golden file at ``path``; fail with a diff when they differ and
    with the command that creates it when the file is missing. ``regenerate``: write ``text``
    to ``path`` and fail, so that a regenerating run never passes."""
    if regenerate:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        pytest.fail(f"regenerated {path}: review the diff and rerun without --regenerate-golden",
                    pytrace=False)
    if not path.is_file():
        pytest.fail(f"missing golden file {path}: create it with `{REGENERATE_GOLDEN}`, review it, "
                    f"and rerun without --regenerate-golden", pytrace=False)
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = difflib.unified_diff(expected.splitlines(), text.splitlines(),
                                    f"{path.name} (golden)", f"{path.name} (generated)",
                                    lineterm="")
        shown = "\n".join(list(diff)[:200])
        pytest.fail(f"generated WGSL differs from {path}:\n{shown}\nIf the change is intended, "
                    f"run `{REGENERATE_GOLDEN}`, review the diff, and rerun without the flag",
                    pytrace=False)


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_generated_wgsl_matches_golden(name, regenerate):
    entry = GOLDENS[name]
    check_golden(entry.path, entry.text(), regenerate)


def test_every_golden_file_has_a_spec():
    """A golden file whose spec was removed or renamed would never be checked again."""
    stray = sorted(p.name for p in GOLDEN_DIR.glob("*.wgsl") if p.stem not in GOLDENS)
    assert not stray, f"golden files without a spec in {__file__}: {stray}"


def test_goldens_cover_every_channel_kind_of_the_format_table():
    """Every (channel kind, width) and every swizzle the format table uses appears in a fetch
    golden, so that each decode template's text is pinned."""
    kinds = {(c.kind, c.bits) for f in VERTEX_FORMATS.values() for c in f.channels}
    swizzles = {f.swizzle for f in VERTEX_FORMATS.values()}
    seen_kinds, seen_swizzles = set(), set()
    for entry in GOLDENS.values():
        spec = entry.build()
        if isinstance(spec, ProgramSpec) and not spec.native:
            for e in spec.layout.elements:
                seen_kinds |= {(c.kind, c.bits) for c in e.format.channels}
                seen_swizzles.add(e.format.swizzle)
    assert kinds - seen_kinds == set()
    assert swizzles - seen_swizzles == set()


def test_check_golden_fails_when_regenerating_missing_or_different(tmp_path):
    path = tmp_path / "g" / "x.wgsl"
    with pytest.raises(pytest.fail.Exception, match="missing golden file .*--regenerate-golden"):
        check_golden(path, "a\n", False)
    with pytest.raises(pytest.fail.Exception,
                       match="regenerated .*x.wgsl: review the diff and rerun without "
                             "--regenerate-golden"):
        check_golden(path, "a\n", True)
    assert path.read_text() == "a\n"
    check_golden(path, "a\n", False)  # the same text passes
    with pytest.raises(pytest.fail.Exception, match=r"(?s)differs from .*\n-a\n\+b\n"):
        check_golden(path, "b\n", False)
    with pytest.raises(pytest.fail.Exception, match="regenerated"):
        check_golden(path, "a\n", True)  # regenerating the same text fails too


# -- the spellings a spec accepts --------------------------------------------------------------
def test_capture_routes_and_so_orders_take_the_enum_or_its_value():
    """The specs above spell capture as True and the SO order as a string: the enum members
    and their values build the same spec, hence the same golden text."""
    layout = _layout(*_CAPTURE_LAYOUT)
    by_bool = _pulling(layout, capture=True)
    for route in ("storage", CaptureRoute.STORAGE):
        spec = _pulling(layout, capture=route)
        assert spec == by_bool and spec.capture is CaptureRoute.STORAGE
    targets = _pulling(layout, capture=True, capture_group=0, capture_targets=2)
    for route in ("targets", CaptureRoute.TARGETS):
        spec = _pulling(layout, capture=route, capture_group=0, capture_targets=2)
        assert spec == targets and spec.capture is CaptureRoute.TARGETS
    golden_text = GOLDENS["capture_targets_group0"].path.read_text(encoding="utf-8")
    assert vertex_program(_pulling(layout, capture="targets", capture_group=0,
                                   capture_targets=2)) == golden_text.split("\n\n", 1)[1]
    assert _pulling(layout).capture is None
    listed = _so_host_list()
    assert listed.mode is SOVertexOrder.LIST
    assert replace(listed, mode=SOVertexOrder.LIST) == listed
    assert _so_strip_direct().mode is SOVertexOrder.DIRECT


@pytest.mark.parametrize("capture, group, per_group, field", [
    ("texture", -1, 0, "route"),  # no such route
    ("targets", -1, 0, "capture_group"),  # the targets route needs a group
    ("targets", 0, 0, "capture_group"),  # ... of at least one vec4
    ("targets", 3, 1, "capture_group"),  # a record of 2 elements has 3 vec4s: group 3 is empty
    ("storage", 0, 2, "capture_group"),  # groups are the targets route's
    (False, 0, 2, "capture_group"),
])
def test_a_capture_spec_that_cannot_be_generated_is_refused(capture, group, per_group, field):
    layout = _layout(*_CAPTURE_LAYOUT)
    with pytest.raises(InvalidDescError) as err:
        _pulling(layout, capture=capture, capture_group=group, capture_targets=per_group)
    assert err.value.field == field


def test_an_so_order_that_is_not_one_is_refused():
    with pytest.raises(InvalidDescError, match="must be direct or list"):
        replace(_so_host_list(), mode="closed")


def test_the_wgsl_library_is_read_from_the_package():
    folder = Path(gpuia.wgsl.__file__).resolve().parent / "shaders"
    assert shader_names() == ("draw_auto.wgsl", "ia_decode.wgsl")
    for name in shader_names():
        assert load_shader_source(name) == (folder / name).read_text(encoding="utf-8")
    for name in ("../program.py", "shaders/ia_decode.wgsl", "missing.wgsl"):
        with pytest.raises(GpuiaError, match="no file .*it has draw_auto.wgsl, ia_decode.wgsl"):
            load_shader_source(name)

