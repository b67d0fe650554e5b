"""Vertex shaders written once in WGSL with D3D semantics, and their signatures.

A gpuia vertex shader is a WGSL module whose vertex entry point takes a struct and returns a
struct whose member names are HLSL semantics: ``POSITION``, ``TEXCOORD1``, ``SV_Position``
(a trailing decimal number is the semantic index, none means 0; names match case-insensitively).
Members need no ``@location``/``@builtin`` attributes: gpuia generates the real entry point for
each path (native vertex fetch, vertex pulling, capture, Stream Output) around the user's
function, which it calls unchanged.

:func:`parse_vertex_shader` reads the module (it does not compile it: naga does that when the
pipeline is built) and returns a :class:`ShaderSignature`. :func:`pass_through_shader` generates the
shader the case format uses when a case brings none.
"""

from __future__ import annotations

import re

from ..d3d.layout import InputLayout, parse_semantic
from ..d3d.signature import SYSTEM_INPUTS, Member, ShaderSignature
from ..errors import InvalidDescError
from ..util.resources import shader_text
from .bounds import check_shader_bounds, split_top_level
from .scalar_types import SHADER_TYPE, WGSL_SCALAR
from .uniforms import check_uniform_loads

__all__ = ["Member", "ShaderSignature", "parse_vertex_shader", "parse_pixel_shader",
           "pass_through_shader", "uniform_slots", "split_top_level",
           "pass_through_signature", "SYSTEM_INPUTS"]

# vecN<T> and its short forms vecNf, vecNu, vecNi (the WGSL type's first letter)
_SHORT_SCALAR = {wgsl[0]: shader for wgsl, shader in SHADER_TYPE.items()}
_VEC_RE = re.compile(r"^vec([234])\s*<\s*(f32|u32|i32)\s*>$|^vec([234])([fui])$")
_STRUCT_RE = re.compile(r"struct\s+(\w+)\s*\{(.*?)\}\s*;?", re.S)
_ATTR_RE = re.compile(r"@\s*\w+\s*(\([^)]*\))?")
_ENTRY_RE = {stage: re.compile(
    rf"@\s*{stage}\s+fn\s+(\w+)\s*\(\s*(?:(\w+)\s*:\s*(\w+)\s*)?,?\s*\)\s*->\s*"
    r"(?:@\s*\w+\s*(?:\([^)]*\))?\s*)*(\w+)", re.S) for stage in ("vertex", "fragment")}
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _wgsl_type(text: str, where: str, what: str = "vertex shader") -> tuple[str, int]:
    t = " ".join(text.split())
    if t in SHADER_TYPE:
        return SHADER_TYPE[t], 1
    m = _VEC_RE.match(t)
    if m:
        if m.group(1):
            return SHADER_TYPE[m.group(2)], int(m.group(1))
        return _SHORT_SCALAR[m.group(4)], int(m.group(3))
    raise InvalidDescError(what, where, text,
                           "shader IO members must be f32, u32, i32 or vectors of them")


_INTERPOLATE_RE = re.compile(r"@\s*interpolate\s*\(([^)]*)\)")
_INTERPOLATIONS = {"perspective", "linear", "flat"}
_SAMPLINGS = {"center", "centroid", "sample", "first", "either"}


def _interpolation(raw: str, where: str, what: str) -> str | None:
    m = _INTERPOLATE_RE.search(raw)
    if m is None:
        return None
    parts = [p.strip() for p in m.group(1).split(",")]
    if not parts or parts[0] not in _INTERPOLATIONS or len(parts) > 2 or (
            len(parts) == 2 and parts[1] not in _SAMPLINGS):
        raise InvalidDescError(what, where, m.group(0),
                               "expected @interpolate(perspective|linear|flat[, "
                               "center|centroid|sample|first|either])")
    return ", ".join(parts)


def _members(struct_name: str, body: str, what: str = "vertex shader") -> tuple[Member, ...]:
    out = []
    for raw in split_top_level(body):
        text = _ATTR_RE.sub("", raw).strip()
        if not text:
            continue
        if ":" not in text:
            raise InvalidDescError(what, f"struct {struct_name}", text,
                                   "cannot read member (expected 'NAME: TYPE')")
        name, wtype = (s.strip() for s in text.split(":", 1))
        scalar, comps = _wgsl_type(wtype, f"{struct_name}.{name}", what)
        sem, idx = parse_semantic(name)
        out.append(Member(name, sem, idx, scalar, comps, " ".join(wtype.split()),
                          _interpolation(raw, f"{struct_name}.{name}", what)))
    seen: dict[str, str] = {}
    for m in out:
        if m.key in seen:
            raise InvalidDescError(what, f"{struct_name}.{m.name}", m.name,
                                   f"semantic {m.key} is already member {seen[m.key]}")
        seen[m.key] = m.name
    return tuple(out)


def _parse_entry(source: str, entry_point: str | None, stage: str, what: str):
    """Find the ``@stage`` entry point, its input and output structs and their members; returns
    (name, input struct, output struct, inputs, outputs, source with the stage attribute and the
    two structs' IO attributes removed)."""
    if not isinstance(source, str) or not source.strip():
        raise InvalidDescError(what, "wgsl", source, "expected WGSL source text")
    # What naga or the driver would crash or hang on is refused here, before anything else
    # reads the text (gpuia.wgsl.bounds, gpuia.wgsl.uniforms).
    check_shader_bounds(source, what)
    check_uniform_loads(source, what)
    code = _COMMENT_RE.sub(lambda m: " " * len(m.group(0)), source)
    entries = list(_ENTRY_RE[stage].finditer(code))
    if entry_point is not None:
        entries = [m for m in entries if m.group(1) == entry_point]
    if len(entries) != 1:
        found = f"entry point {entry_point!r}" if entry_point else f"exactly one @{stage} function"
        raise InvalidDescError(what, "entry_point", entry_point,
                               f"expected {found} of the form "
                               f"'@{stage} fn NAME(input: STRUCT) -> STRUCT' "
                               f"(found {len(entries)})")
    m = entries[0]
    name, in_struct, out_struct = m.group(1), m.group(3), m.group(4)
    structs = {s.group(1): s for s in _STRUCT_RE.finditer(code)}
    for st in (in_struct, out_struct):
        if st is not None and st not in structs:
            raise InvalidDescError(what, "struct", st,
                                   "the entry point's input and output must be structs declared "
                                   "in the module")
    inputs = _members(in_struct, structs[in_struct].group(2), what) if in_struct else ()
    outputs = _members(out_struct, structs[out_struct].group(2), what)
    # Rewrite: drop the stage attribute from the entry point, strip IO attributes from the
    # structs. Each removed character becomes a space (line breaks stay), so every line and
    # column of the result is the user's: naga's diagnostics are mapped back by line alone.
    # ``code`` has the comments blanked at the same length, so its offsets are the source's.
    text = source
    attr = re.match(rf"@\s*{stage}", code[m.start():])
    assert attr is not None  # the entry point was found by its stage attribute
    text = _blank_span(text, m.start(), m.start() + attr.end())
    for st in {in_struct, out_struct} - {None}:
        body = structs[st]
        start = body.start(2)
        for a in _ATTR_RE.finditer(code, start, body.end(2)):
            text = _blank_span(text, a.start(), a.end())
    return name, in_struct, out_struct, inputs, outputs, text


def _blank_span(text: str, start: int, end: int) -> str:
    """``text`` with ``[start, end)`` replaced by spaces, its line breaks kept."""
    return text[:start] + "".join(c if c in "\r\n" else " " for c in text[start:end]) + text[end:]


_UNIFORM_RE = re.compile(r"@\s*(group|binding)\s*\(\s*(\d+)\s*\)\s*@\s*(group|binding)\s*\(\s*(\d+)"
                         r"\s*\)\s*var\s*<\s*uniform\s*>")


def uniform_slots(source: str, group: int) -> tuple[int, ...]:
    """The ``@binding`` numbers of the ``var<uniform>`` declarations of ``@group(group)`` in a
    WGSL module (gpuia's root constant buffers are group 3)."""
    code = _COMMENT_RE.sub(" ", source)
    out = set()
    for m in _UNIFORM_RE.finditer(code):
        attrs = {m.group(1): int(m.group(2)), m.group(3): int(m.group(4))}
        if attrs.get("group") == group and "binding" in attrs:
            out.add(attrs["binding"])
    return tuple(sorted(out))


def _check_position(member, where: str, what: str) -> None:
    if member is not None and (member.type != "float" or member.components != 4):
        raise InvalidDescError(what, where, member.wgsl_type, "SV_Position is a vec4<f32>")


def parse_vertex_shader(source: str, entry_point: str | None = None) -> ShaderSignature:
    """Read a gpuia vertex shader: find its ``@vertex`` entry point (``entry_point`` or the only
    one), its input and output structs and their semantics. Raises :class:`InvalidDescError` when
    the module does not have that shape."""
    what = "vertex shader"
    name, in_struct, out_struct, inputs, outputs, text = _parse_entry(source, entry_point,
                                                                      "vertex", what)
    for mem in inputs:
        if mem.semantic in SYSTEM_INPUTS and (mem.components != 1 or mem.type == "float"):
            raise InvalidDescError(what, f"{in_struct}.{mem.name}", mem.wgsl_type,
                                   f"{mem.semantic} is a u32 (or i32) scalar")
    pos = next((o for o in outputs if o.key == "SV_POSITION0"), None)
    _check_position(pos, f"{out_struct}.{pos.name}" if pos else "", what)
    return ShaderSignature(name, in_struct, out_struct, inputs, outputs, text)


def parse_pixel_shader(source: str, entry_point: str | None = None) -> ShaderSignature:
    """Read a gpuia pixel shader: one ``@fragment fn NAME(input: STRUCT) -> STRUCT`` whose input
    members are named by the semantics of the vertex shader outputs they read (``SV_Position``:
    the pixel's position) and whose output members are ``SV_Target0`` .. ``SV_Target7``. Raises
    :class:`InvalidDescError` for any other shape."""
    what = "pixel shader"
    name, in_struct, out_struct, inputs, outputs, text = _parse_entry(source, entry_point,
                                                                      "fragment", what)
    for mem in inputs:
        if mem.semantic == "SV_POSITION":
            _check_position(mem, f"{in_struct}.{mem.name}", what)
        elif mem.semantic.startswith("SV_"):
            raise InvalidDescError(what, f"{in_struct}.{mem.name}", mem.semantic,
                                   "the only system value a gpuia pixel shader reads is "
                                   "SV_Position")
    for mem in outputs:
        if mem.semantic != "SV_TARGET" or mem.index > 7:
            raise InvalidDescError(what, f"{out_struct}.{mem.name}", mem.key,
                                   "pixel shader outputs are SV_Target0 .. SV_Target7")
    return ShaderSignature(name, in_struct, out_struct, inputs, outputs, text)


def _pass_member(e) -> str:
    return f"e{e.index}"


def pass_through_signature(layout: InputLayout) -> ShaderSignature:
    """The signature of :func:`pass_through_shader`, its element members carrying the layout's
    own (semantic name, index) pairs."""
    from dataclasses import replace

    sig = parse_vertex_shader(pass_through_shader(layout))
    by_member = {_pass_member(e): e for e in layout.elements}

    def fix(members):
        out = []
        for m in members:
            e = by_member.get(m.name)
            out.append(m if e is None else replace(m, semantic=e.desc.semantic_name.upper(),
                                                   index=e.desc.semantic_index))
        return tuple(out)

    return replace(sig, inputs=fix(sig.inputs), outputs=fix(sig.outputs))


def pass_through_shader(layout: InputLayout) -> str:
    """The case format's pass-through shader for a layout: every input element out under its
    own semantic as four components of its shader type, plus SV_VertexID and SV_InstanceID, plus
    SV_Position (the element named SV_Position if there is one, else (0, 0, 0, 1))."""
    ins, outs, body = [], [], []
    names = {}
    for e in layout.elements:
        t = WGSL_SCALAR[e.format.shader_type]
        # Members are named by position: a semantic name may end in digits ("COLOR1", index 0),
        # which a semantic-named member could not say. pass_through_signature() maps them back.
        member = _pass_member(e)
        names[e.key] = member
        ins.append(f"  {member}: vec4<{t}>,")
        if e.key != "SV_POSITION0":
            outs.append(f"  {member}: vec4<{t}>,")
            body.append(f"  o.{member} = input.{member};")
    ins += ["  SV_VertexID: u32,", "  SV_InstanceID: u32,"]
    outs += ["  SV_Position: vec4<f32>,", "  SV_VertexID: u32,", "  SV_InstanceID: u32,"]
    body += ["  o.SV_VertexID = input.SV_VertexID;", "  o.SV_InstanceID = input.SV_InstanceID;"]
    pos = names.get("SV_POSITION0")
    if pos is not None and layout.element("SV_POSITION0").format.shader_type == "float":
        body.append(f"  o.SV_Position = input.{pos};")
    elif pos is not None:
        body.append(f"  o.SV_Position = bitcast<vec4<f32>>(input.{pos});")
    else:
        body.append("  o.SV_Position = vec4<f32>(0.0, 0.0, 0.0, 1.0);")
    return shader_text("pass_through.wgsl", INPUTS="\n".join(ins), OUTPUTS="\n".join(outs),
                       BODY="\n".join(body)) + "\n"
