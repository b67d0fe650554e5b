"""HLSL vertex and pixel shaders compiled to gpuia's shader model.

:func:`compile_shader` turns an HLSL entry point into an :class:`HlslShader`: gpuia-convention
WGSL (``gpuia.wgsl.signature``: a ``@vertex``/``@fragment`` function whose IO struct members are
named by D3D semantics) that every gpuia path uses unchanged (native and pulling draws,
capture, Stream Output, pixel linkage), plus the HLSL facts gpuia reports: the signature leaves
with their HLSL declarations and the constant buffers with their D3D layout.

The steps (docs/hlsl.md): the source is prepared (``gpuia.hlsl.source``, every included file
inlined and prepared the same way by ``gpuia.hlsl.includes``); Slang compiles the user's entry
for its HLSL target, which gives the reflection of the signature and the cbuffers and the
preprocessed declarations; gpuia generates a wrapper entry (``gpuia.hlsl.wrapper``) and Slang
compiles that to WGSL; gpuia renames the wrapper's members to their semantics, moves every
cbuffer to ``@group(3) @binding(register)`` (root constant buffer N is ``register(bN)``)
remapping those WGSL lays out unlike D3D (``gpuia.hlsl.cbuffer``), and checks the result with
gpuia's own WGSL signature reader and with naga (``gpuia.hlsl.naga``: WGSL naga refuses is
refused now, at the user's line, not when it is drawn).

Refused before any GPU work, naming the item: source Slang does not compile (Slang's
diagnostic, at the user's line numbers), textures, samplers, UAVs and other resources the entry
uses (gpuia binds only constant buffers; refused at their declaration), cbuffers outside
register space 0, system values a stage does not take, WGSL naga refuses, and everything
``gpuia.hlsl.reflect`` and ``gpuia.hlsl.cbuffer`` refuse.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..d3d.desc import CONSTANT_BUFFER_SLOTS
from ..d3d.signature import SYSTEM_INPUTS, ShaderSignature
from ..errors import InvalidDescError
from ..wgsl.signature import parse_pixel_shader, parse_vertex_shader
from ..wgsl.text import wgsl_comment_text
from . import cache, includes, library, naga
from .cbuffer import (
    ConstantBuffer,
    check_32bit,
    constant_buffer,
    parse_wgsl_structs,
    remap_wgsl,
)
from .escapes import refuse_escapes
from .reflect import EntrySignature, Leaf, emitted_name, entry_signature
from .source import MATRIX_LAYOUTS, PRAGMA_MARKER, prepare, restore
from .wrapper import WRAPPER_ENTRY, graphics_wrapper

__all__ = ["HlslShader", "compile_shader", "STAGE_NAMES", "CBV_GROUP", "slang_args",
           "slang_name", "VIRTUAL_FOLDER"]

STAGE_NAMES = {"vertex": "vertex shader", "pixel": "pixel shader"}
_SLANG_STAGE = {"vertex": "vertex", "pixel": "fragment"}
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
CBV_GROUP = 3  # gpuia's root constant buffers (gpuia.gpu.vertex.pipelines.CBV_GROUP)
_QUIET = "39029,39001,38052,15601"  # register/binding notes, SO-only VS, ignored pragma

_VS_ORDINARY_INPUTS = ("SV_POSITION", "SV_CLIPDISTANCE", "SV_CULLDISTANCE")  # rules 3.8


@dataclass(frozen=True)
class HlslShader:
    """A compiled HLSL entry point.

    ``wgsl`` and ``wgsl_entry_point`` are what :class:`gpuia.gpu.PipelineState` and case files
    compile; ``signature`` is gpuia's :class:`~gpuia.wgsl.signature.ShaderSignature` of it (the
    same object a WGSL shader gives). ``leaves`` are the HLSL signature elements (declaration,
    type, semantic, interpolation), ``constant_buffers`` the cbuffers the entry reads (slot =
    register bN), ``warnings`` Slang's warnings at the user's line numbers."""

    stage: str
    source: str
    file_name: str
    entry_point: str
    defines: tuple[tuple[str, str], ...]
    matrix_layout: str
    include_dirs: tuple[str, ...]
    wgsl: str
    entry: EntrySignature
    constant_buffers: tuple[ConstantBuffer, ...]
    warnings: str = ""
    dependencies: tuple[str, ...] = ()
    source_path: str = ""  # where the source file is, when it is one ("" for text)
    signature: ShaderSignature | None = field(default=None, compare=False, repr=False)
    # paths an #include searched, absent then, before the file it read: one appearing there
    # would be read instead (the cache watches them)
    include_candidates: tuple[str, ...] = ()

    @property
    def slang_name(self) -> str:
        """The file name Slang compiles the source as: the real path of a file, else a path in
        a folder that does not exist, so that ``#include`` finds only ``include_dirs``."""
        return slang_name(self.source_path, self.file_name)

    @property
    def wgsl_entry_point(self) -> str:
        return WRAPPER_ENTRY

    @property
    def leaves(self) -> tuple[Leaf, ...]:
        return self.entry.leaves

    @property
    def constant_buffer_slots(self) -> tuple[int, ...]:
        return tuple(sorted(cb.slot for cb in self.constant_buffers))

    def constant_buffer(self, slot: int) -> ConstantBuffer | None:
        return next((cb for cb in self.constant_buffers if cb.slot == slot), None)

    def __hash__(self):
        return hash((self.stage, self.wgsl))


def slang_args(matrix_layout: str) -> tuple[str, ...]:
    return (f"-matrix-layout-{matrix_layout.replace('_', '-')}", "-warnings-disable", _QUIET)


def _text(what: str, field_name: str, value: str) -> None:
    """Refuse text Slang cannot take: a NUL, or a lone surrogate (not Unicode)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidDescError(what, field_name, f"position {e.start}",
                               "not valid Unicode text (a lone surrogate)") from None
    if "\0" in value:
        raise InvalidDescError(what, field_name, f"position {value.index(chr(0))}",
                               "contains a NUL character")


def _path(what: str, field_name: str, path: str) -> None:
    """Refuse a path Slang cannot take: it gets paths as UTF-8 text (a ``#line`` marker, a
    search folder), which a name of bytes that are not UTF-8 (read as lone surrogates) or a NUL
    is not; the worker failed on one."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidDescError(what, field_name, path, "a path whose name is not UTF-8: Slang "
                                                       "takes paths as UTF-8 text") from None
    if "\0" in path:
        raise InvalidDescError(what, field_name, path, "a path with a NUL character")


def _check_args(stage, source, entry_point, defines, matrix_layout):
    what = STAGE_NAMES.get(stage)
    if what is None:
        raise InvalidDescError("hlsl", "stage", stage, "expected 'vertex' or 'pixel'")
    if not isinstance(source, str) or not source.strip():
        raise InvalidDescError(what, "hlsl", source, "expected HLSL source text")
    _text(what, "hlsl", source)
    if not isinstance(entry_point, str) or not re.fullmatch(r"[A-Za-z_]\w*", entry_point):
        raise InvalidDescError(what, "entry_point", entry_point, "expected an HLSL identifier")
    if entry_point.startswith(("hlslw_", "gpuia_")):
        raise InvalidDescError(what, "entry_point", entry_point,
                               "names starting hlslw_ or gpuia_ are gpuia's own")
    if matrix_layout not in MATRIX_LAYOUTS:
        raise InvalidDescError(what, "matrix_layout", matrix_layout,
                               "expected 'column_major' (fxc/dxc's default) or 'row_major' "
                               "(their /Zpr)")
    out = []
    for name, value in (defines.items() if isinstance(defines, dict) else defines):
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise InvalidDescError(what, "defines", name, "a define's name is an identifier")
        if not isinstance(value, str) or "\n" in value or "\0" in value:
            raise InvalidDescError(what, f"defines.{name}", value,
                                   "a define's value is a string on one line")
        _text(what, f"defines.{name}", value)
        out.append((name, value))
    return what, tuple(sorted(out))


def _rename_io(code: str, ins: tuple[Leaf, ...], outs: tuple[Leaf, ...],
               interpolate: bool) -> str:
    """The wrapper's members named by their semantics; IO attributes replaced by gpuia's
    (``@interpolate`` on pixel inputs, which gpuia's pixel linkage follows)."""
    keys = {("i", k): lf for k, lf in enumerate(ins)}
    keys.update({("o", k): lf for k, lf in enumerate(outs)})

    def member(m: re.Match) -> str:
        lf = keys[(m.group(2), int(m.group(3)))]
        attr = ""
        if interpolate and m.group(2) == "i" and lf.interpolation:
            attr = f"@interpolate({lf.interpolation}) "
        return f"{attr}{lf.key}{m.group(4)}"

    code = re.sub(r"((?:@\w+\s*(?:\([^)]*\))?\s*)*)\bhlslw_([io])(\d+)_\d+(\s*:)", member, code)
    return re.sub(r"\bhlslw_([io])(\d+)_\d+\b", lambda m: keys[(m.group(1), int(m.group(2)))].key,
                  code)


def _check_stage(stage: str, what: str, sig: EntrySignature) -> None:
    for lf in sig.inputs():
        if not lf.semantic.startswith("SV_"):
            continue
        if stage != "vertex" or lf.semantic in _VS_ORDINARY_INPUTS:
            continue
        if lf.semantic not in SYSTEM_INPUTS:
            raise InvalidDescError(what, lf.declaration, lf.semantic,
                                   "a vertex shader's system-value inputs are SV_VertexID and "
                                   "SV_InstanceID (SV_Position, SV_ClipDistance and "
                                   "SV_CullDistance are ordinary elements of the input layout, "
                                   "rules 3.8)")
        if lf.components != 1 or lf.kind not in ("uint", "sint"):
            raise InvalidDescError(what, lf.declaration, lf.hlsl_type,
                                   f"{lf.semantic} is a scalar uint")
    if not sig.outputs():
        raise InvalidDescError(what, "outputs", None,
                               f"the {what} writes no output (gpuia needs at least one)")


def _resources(reflection: dict) -> dict[str, dict]:
    """The reflection's global parameters by the name Slang's emitted code gives them."""
    return {emitted_name(p["name"]): p for p in reflection.get("parameters", [])}


_MEMORY = cache.MemoryCache(256)


VIRTUAL_FOLDER = "/gpuia-shader-source"
"""Where Slang is told a source given as text lives (a folder that does not exist)."""


def slang_name(source_path: str, file_name: str) -> str:
    return source_path or f"{VIRTUAL_FOLDER}/{os.path.basename(file_name) or 'shader.hlsl'}"


def compile_shader(source: str, stage: str = "vertex", entry_point: str = "main",
                   defines=None, matrix_layout: str = "column_major",
                   file_name: str | None = None, include_dirs=(),
                   source_path: str | None = None) -> HlslShader:
    """Compile one HLSL entry point (see the module docstring). ``stage``: ``vertex`` or
    ``pixel``; ``defines``: {NAME: value}; ``matrix_layout``: the default matrix packing
    (``column_major``, or ``row_major`` as fxc/dxc's /Zpr); ``file_name`` names the source in
    diagnostics; ``source_path`` is the file it was read from, if any (its folder is searched
    first by ``#include "..."``), then ``include_dirs`` (relative ones from the working
    directory); a source given as text has no folder of its own. Results are cached in memory
    and on disk (``gpuia.hlsl.cache``). Raises :class:`~gpuia.errors.InvalidDescError` (Slang's
    diagnostic for source it refuses) or :class:`~gpuia.errors.UnsupportedError` without
    Slang's compiler."""
    what, defs = _check_args(stage, source, entry_point, defines or {}, matrix_layout)
    file_name = file_name or ("vertex_shader.hlsl" if stage == "vertex" else "pixel_shader.hlsl")
    _text(what, "file name", file_name)
    include_dirs = tuple(os.path.abspath(str(d)) for d in include_dirs)
    source_path = os.path.abspath(source_path) if source_path else ""
    for field_name, path in [("source_path", source_path)] + \
            [(f"include_dirs[{k}]", d) for k, d in enumerate(include_dirs)]:
        _path(what, field_name, path)
    request = ("hlsl", cache.frontend_hash(), library.library_identity(), source, stage,
               entry_point, defs, matrix_layout, file_name, include_dirs, source_path)
    key = cache.key_of(*request)
    hit = _MEMORY.get(key)
    if hit is not None and cache.unchanged(hit[1]):
        return hit[0]
    entry = cache.load("hlsl", key, HlslShader, request)
    shader = _with_signature(entry[0]) if entry is not None else None
    if shader is not None:
        recorded = entry[1]  # checked unchanged by the load: not hashed again
    else:
        shader, recorded = _compile(source, stage, entry_point, defs, matrix_layout, file_name,
                                    include_dirs, source_path, what)
        cache.store("hlsl", key, shader, request, recorded)
    _MEMORY.put(key, (shader, recorded))
    return shader


def _recorded(shader: HlslShader, files: includes.Reader) -> list[tuple[str, str | None]]:
    """(path, hash) of the files a compile depends on, as the compile saw them: those gpuia
    read, by the bytes it read (a file changed while Slang compiled is compiled again next
    time, not recorded as it is after); every path an include searched before the file it read,
    absent (a new file there would shadow it); a file only Slang read (an ``#include`` of a
    macro), as it is now."""
    return [(p, files.digests.get(p) or cache.file_digest(p)) for p in shader.dependencies] + \
        [(p, None) for p in shader.include_candidates]


def _with_signature(shader: HlslShader | None) -> HlslShader | None:
    """A cached shader with its signature read again; None when the entry does not parse (a
    damaged entry is compiled again)."""
    if shader is None:
        return None
    parse = parse_vertex_shader if shader.stage == "vertex" else parse_pixel_shader
    try:
        object.__setattr__(shader, "signature", parse(shader.wgsl, WRAPPER_ENTRY))
    except (InvalidDescError, AttributeError, TypeError):
        return None
    return shader


def _compile(source, stage, entry_point, defs, matrix_layout, file_name, include_dirs,
             source_path, what) -> tuple[HlslShader, list[tuple[str, str | None]]]:
    line_name = slang_name(source_path, file_name)
    files = includes.Reader()  # every pass reads the same included files, each read once
    where = {"line_name": line_name, "source_path": source_path, "include_dirs": include_dirs,
             "defines": defs, "reader": files}
    prepared = prepare(source, file_name, matrix_layout, markers=True, **where)
    slang_stage = _SLANG_STAGE[stage]

    def run(text, entry, target, explain=None, more=()):
        try:
            return library.compile_source(text, line_name, entry, slang_stage, target,
                                          (*args, *more), defs, include_dirs, what)
        except library.SlangError as e:
            diagnostics = restore(e.diagnostics, prepared)
            if explain is not None:
                explain(diagnostics)
            err = InvalidDescError(what, None, None, _at_users_line(diagnostics))
            err.diagnostics = diagnostics
            raise err from None

    def no_entry(diagnostics):
        # Slang's E38000 says so (its first error may be another, "undefined identifier"
        # without a name or place); without defines the text says so too.
        code = _COMMENT_RE.sub(" ", source)
        if "E38000" in diagnostics or \
                (not re.search(rf"\b{re.escape(entry_point)}\s*\(", code) and not defs):
            hint = re.search(r"did you mean '(\w+)'", diagnostics)
            raise InvalidDescError(what, "entry_point", entry_point,
                                   f"{file_name} has no function {entry_point}"
                                   f"{' (with the defines given)' if defs else ''}"
                                   f"{f'; did you mean {hint.group(1)}?' if hint else ''}")

    args = slang_args(matrix_layout)
    # Before Slang compiles anything: none of Slang's ways out of a shader (gpuia.hlsl.escapes)
    # in what its preprocessor makes of the source, its includes and the defines.
    refuse_escapes(run(prepared.text, entry_point, library.PREPROCESS).code.decode(
        "utf-8", "replace"), what, source, file_name, source_path, include_dirs, defs)
    if prepared.pragmas:  # which #pragma pack_matrix lines does the preprocessor keep?
        probe = run(prepared.text, entry_point, "hlsl", no_entry)
        active = frozenset(int(p["name"][len(PRAGMA_MARKER):])
                           for p in probe.reflection.get("parameters", [])
                           if re.fullmatch(rf"{PRAGMA_MARKER}\d+", p["name"]))
        prepared = prepare(source, file_name, matrix_layout, active, **where)
    # else the text with markers is the text: no pragma was marked (one preparation, not two)
    args = slang_args(prepared.matrix_layout)
    first = run(prepared.text, entry_point, "hlsl", no_entry)
    sig = entry_signature(first.reflection, first.code.decode("utf-8", "replace"), entry_point,
                          what, prepared.matrix_layout, prepared)
    _check_stage(stage, what, sig)
    params = _resources(first.reflection)
    _refuse_used_resources(first.reflection, prepared, what)

    def wide(diagnostics):  # Slang's WGSL back end fails inside on 64-bit values
        for p in params.values():
            if p.get("type", {}).get("kind") == "constantBuffer":
                check_32bit(p["type"]["elementType"], f"cbuffer {p['name']}", p["name"], what)
        if "'double' type emitted" in diagnostics or "'int64" in diagnostics:
            raise InvalidDescError(what, None, None, "the shader computes with a 64-bit type "
                                                     "(double, int64_t); WGSL has none")

    second = run(prepared.text + graphics_wrapper(sig, entry_point), WRAPPER_ENTRY, "wgsl",
                 wide)
    code = _rename_io(second.code.decode("utf-8"), sig.inputs(), sig.outputs(),
                      interpolate=stage == "pixel")
    structs = parse_wgsl_structs(code)
    cbuffers = []
    for m in re.finditer(r"@binding\(\s*(\d+)\s*\)\s*@group\(\s*(\d+)\s*\)\s*var\s*(<[^>]*>)?\s*"
                         r"(\w+)\s*:\s*([^;]+);", code):
        var, type_text = m.group(4), m.group(5).strip()
        name = re.sub(r"_\d+$", "", var)
        p = params.get(name, {})
        name = p.get("name", name)  # the user's spelling (Slang's code escapes non-ASCII)
        kind = p.get("type", {}).get("kind", "resource")
        if not p and name == "globalParams":  # Slang's home for uniforms outside a cbuffer
            loose = [q["name"] for q in params.values()
                     if q.get("binding", {}).get("kind") == "uniform"]
            raise InvalidDescError(what, f"global {', '.join(loose) or 'uniforms'}", "$Globals",
                                   "a uniform outside any cbuffer (fxc's $Globals): declare it "
                                   "in a cbuffer with register(bN), which gpuia binds as root "
                                   "constant buffer N")
        if kind != "constantBuffer" or "uniform" not in (m.group(3) or ""):
            raise InvalidDescError(what, f"resource {name}", kind,
                                   "gpuia binds only constant buffers (cbuffer / "
                                   "ConstantBuffer<T>); textures, samplers, structured buffers "
                                   "and UAVs are refused until gpuia binds resources")
        binding = p.get("binding", {})
        if binding.get("space", 0) != 0:
            raise InvalidDescError(what, f"cbuffer {name}", f"space{binding['space']}",
                                   "gpuia binds root constant buffers of register space 0")
        register = int(binding.get("index", 0))
        if register >= CONSTANT_BUFFER_SLOTS:  # refused here, before any draw needs it
            raise InvalidDescError(what, f"cbuffer {name}", f"register(b{register})",
                                   f"gpuia binds root constant buffers b0.."
                                   f"b{CONSTANT_BUFFER_SLOTS - 1}: the {CONSTANT_BUFFER_SLOTS} "
                                   f"constant buffer slots of a D3D11 shader stage "
                                   f"(D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT)")
        size = int(p["type"].get("elementVarLayout", {}).get("binding", {}).get("size", 0))
        cbuffers.append(constant_buffer(name, register,
                                        p["type"]["elementType"], size, var, type_text, structs,
                                        what))
    slots = [cb.slot for cb in cbuffers]
    if len(set(slots)) < len(slots):
        raise InvalidDescError(what, "cbuffers", slots, "two cbuffers share a register")
    for cb in cbuffers:
        code = remap_wgsl(code, cb, CBV_GROUP, structs, WRAPPER_ENTRY)
    code = (f"// gpuia: HLSL {what} {wgsl_comment_text(entry_point)} "
            f"({wgsl_comment_text(file_name)}) through Slang's WGSL; IO "
            f"members named by their semantics, cbuffers at @group({CBV_GROUP})\n" + code)
    try:
        parsed = (parse_vertex_shader if stage == "vertex" else parse_pixel_shader)(
            code, WRAPPER_ENTRY)
    except InvalidDescError as e:
        raise InvalidDescError(what, e.where, e.value, f"{e.rule} (in gpuia's WGSL of the "
                                                       f"HLSL entry)") from None
    # What every draw embeds, checked by naga now rather than when it is drawn.
    _, naga_error = library.check_wgsl(parsed.source, what)
    if naga_error is not None:
        raise _naga_refusal(naga_error, lambda: run(
            prepared.text + graphics_wrapper(sig, entry_point), WRAPPER_ENTRY, "wgsl", None,
            ("-line-directive-mode", "standard")), prepared, source, what)
    shader = HlslShader(stage, source, file_name, entry_point, defs, prepared.matrix_layout,
                        include_dirs, code, sig, tuple(cbuffers),
                        restore(first.diagnostics + second.diagnostics, prepared).strip(),
                        _includes([f.path for f in prepared.files],
                                  first.dependencies + second.dependencies, line_name),
                        source_path, parsed, prepared.candidates)
    return shader, _recorded(shader, files)


_WRAPPER_FILE = "gpuia-wrapper.hlsl"  # the #line name of gpuia.hlsl.wrapper's text
_USE_NOTE_RE = re.compile(r"note: see using of '([^']+)'\s*\n\s*-->\s*(\S+:\d+:\d+)")


def _at_users_line(diagnostics: str) -> str:
    """Slang's first error, one line; when it is placed in gpuia's wrapper (E36107: the
    wrapper entry uses a feature WGSL lacks), at the user's line its note names instead."""
    first = library.first_error(diagnostics)
    if first.startswith(_WRAPPER_FILE):
        use = _USE_NOTE_RE.search(diagnostics)
        if use:
            head = re.sub(r"^\S+:\d+:\d+:\s*", "", first)
            return f"{use.group(2)}: {head} (the use of '{use.group(1)}' here)"
    return first


_RESOURCE_BINDINGS = ("shaderResource", "unorderedAccess", "samplerState")


def _refuse_used_resources(reflection: dict, prepared, what: str) -> None:
    """Refuse a texture, buffer, UAV or sampler the entry reads (Slang's reflection says
    which), at the user's declaration of it, before Slang compiles gpuia's wrapper (whose WGSL
    compile would otherwise fail inside the wrapper, E36107 for a typed buffer)."""
    for entry in reflection.get("entryPoints", [])[:1]:
        for b in entry.get("bindings", []):
            binding = b.get("binding", {})
            if binding.get("kind") not in _RESOURCE_BINDINGS or not binding.get("used"):
                continue
            name = b.get("name", "?")
            where, spelled = _declaration(prepared, name)
            raise InvalidDescError(where, f"resource {name}", spelled or binding["kind"],
                                   f"the {what} reads it, and gpuia binds only constant "
                                   f"buffers (cbuffer / ConstantBuffer<T>); textures, samplers, "
                                   f"structured buffers and UAVs are refused until gpuia binds "
                                   f"resources")


def _declaration(prepared, name: str) -> tuple[str, str | None]:
    """(``file:line``, the type as spelled) of the first declaration of global ``name`` in
    the prepared text, found through its ``#line`` markers; (the file, None) when not found."""
    text = prepared.text
    start = text.find(includes.line_marker(1, prepared.names[0]))
    code = includes.mask(text)
    for m in re.finditer(rf"(?:([A-Za-z_][\w:]*(?:\s*<[^;<>]*(?:<[^;<>]*>[^;<>]*)?>)?)\s+)?"
                         rf"\b{re.escape(name)}\s*(?:\[[^\]]*\]\s*)*[:;]", code):
        if m.start() < start or code.count("{", 0, m.start()) != code.count("}", 0, m.start()):
            continue
        file, line = includes.location(text, m.start(), prepared.names[0])
        file = prepared.names[1] if file == prepared.names[0] else file
        return f"{file}:{line}", " ".join((m.group(1) or "").split()) or None
    return prepared.names[1], None


def _naga_refusal(message: str, with_lines, prepared, source: str, what: str
                  ) -> InvalidDescError:
    """The refusal of WGSL naga refused (``message``), at the user's line: Slang's WGSL is
    compiled again with its ``#line`` directives (``with_lines()``), which are taken out and
    kept as a map of its lines, and naga's position in that text is the user's file and line.
    Where naga accepts that text (gpuia's own rewriting made the error) or points at Slang's
    core module, the refusal names no line."""
    reason = naga.summary(message)
    where, spelled = None, None
    try:
        raw = with_lines().code.decode("utf-8", "replace")
    except InvalidDescError:
        raw = ""
    lines, origin = [], []
    current = ("", 0)
    for line in raw.split("\n"):
        m = re.match(r'\s*#line\s+(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*$', line)
        if m:
            current = (m.group(2) if m.group(2) is not None else current[0], int(m.group(1)))
            continue
        lines.append(line)
        origin.append(current)
        current = (current[0], current[1] + 1)
    if lines:
        _, again = library.check_wgsl(re.sub(r"@(vertex|fragment)\b", "", "\n".join(lines)),
                                      what)
        n = naga.position(again) if again else None
        if again and n is not None and 0 < n <= len(origin) and \
                origin[n - 1][0] not in ("", "core"):
            name, line = origin[n - 1]
            name = name.replace('\\"', '"').replace("\\\\", "\\")
            where = f"{prepared.names[1] if name == prepared.names[0] else name}:{line}"
            reason = naga.summary(again)
            texts = {prepared.names[0]: source, **{f.path: f.text for f in prepared.files}}
            spelled = " ".join((texts.get(name, "").split("\n")[line - 1:line] or [""])[0]
                               .split())[:80] or None
    if where is None:
        err = InvalidDescError(what, "WGSL", None, f"naga refuses the WGSL gpuia made of the "
                                                   f"shader ({reason})")
    else:
        err = InvalidDescError(what, where, spelled, f"Slang emits WGSL for this line that "
                                                     f"naga refuses ({reason}); gpuia cannot "
                                                     f"run it (write the line otherwise)")
    err.diagnostics = message
    return err


def _includes(read, slang_read, line_name: str) -> tuple[str, ...]:
    """The files the source included: every one gpuia read and inlined (``read``: watched even
    when it is gone by now, as the compile used it), and any Slang read itself (an ``#include``
    of a macro; Slang's list also has the source itself, by its name, which is no file when the
    source is text)."""
    return tuple(sorted({os.path.abspath(p) for p in read} |
                        {os.path.abspath(p) for p in slang_read
                         if os.path.abspath(p) != os.path.abspath(line_name)
                         and os.path.isfile(p)}))
