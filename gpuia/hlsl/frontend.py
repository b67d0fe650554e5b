"""HLSL vertex and pixel shaders compiled to gpuia's shader model.

:func:`compile_shader` turns an HLSL entry point into an :class:`HlslShader`: gpuia-convention
WGSL (``gpuia.wgsl.signature``: a ``@vertex``/``@fragment`` function whose IO struct members are
named by D3D semantics) that every gpuia path uses unchanged (native and pulling draws,
capture, Stream Output, pixel linkage), plus the HLSL facts gpuia reports: the signature leaves
with their HLSL declarations and the constant buffers with their D3D layout.

The steps (docs/hlsl.md): the source is prepared (``gpuia.hlsl.source``, every included file
inlined and prepared the same way by ``gpuia.hlsl.includes``) and what Slang's preprocessor
makes of it is checked for Slang's ways out of a shader (``gpuia.hlsl.escapes``); Slang compiles
the user's entry for its HLSL target, which gives the reflection of the signature and the
cbuffers and the preprocessed declarations; gpuia generates a wrapper entry
(``gpuia.hlsl.wrapper``) and Slang compiles that to WGSL; gpuia renames the wrapper's members
to their semantics, moves every cbuffer (``gpuia.hlsl.bindings``) to ``@group(3)
@binding(register)`` (root constant buffer N is ``register(bN)``) remapping those WGSL lays out
unlike D3D (``gpuia.hlsl.cbuffer``), and checks the result with gpuia's own WGSL signature
reader and with naga (``gpuia.hlsl.naga``: WGSL naga refuses is refused now, at the user's line,
not when it is drawn: ``gpuia.hlsl.refusals``).

Refused before any GPU work, naming the item: source Slang does not compile (Slang's
diagnostic, at the user's line numbers), textures, samplers, UAVs and other resources the entry
uses (gpuia binds constant buffers, and a vertex shader's StructuredBuffer, ByteAddressBuffer and
typed Buffer SRVs: ``gpuia.hlsl.srv``, ``gpuia.hlsl.typed_buffers``; the rest refused at their
declaration), cbuffers outside
register space 0, system values a stage does not take, WGSL naga refuses, and everything
``gpuia.hlsl.reflect``, ``gpuia.hlsl.bindings`` and ``gpuia.hlsl.cbuffer`` refuse.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..d3d.signature import SYSTEM_INPUTS, ShaderSignature
from ..errors import InvalidDescError
from ..wgsl.signature import parse_pixel_shader, parse_vertex_shader
from ..wgsl.text import wgsl_comment_text
from . import cache, includes, library
from .bindings import (
    constant_buffers,
    refuse_used_resources,
    refuse_wide,
    resources,
    used_resources,
)
from .cbuffer import ConstantBuffer, parse_wgsl_structs, remap_wgsl
from .escapes import refuse_escapes
from .load_offsets import lower_load_offsets, reflected_textures
from .reflect import EntrySignature, Leaf, entry_signature
from .refusals import (
    at_users_line,
    naga_refusal,
    refuse_cube_load,
    refuse_integer_sample,
    refuse_missing_entry,
)
from .source import MATRIX_LAYOUTS, PRAGMA_MARKER, PreparedSource, prepare, restore
from .srv import ShaderResource, shader_resources
from .srv import rewrite as rewrite_srvs
from .texture1d_arrays import lower_texture1d_arrays
from .textures import ShaderSampler, ShaderTexture, shader_textures
from .textures import rewrite as rewrite_textures
from .typed_buffers import lower_source, used_names
from .uavs import refuse_atomics_in_source
from .wrapper import WRAPPER_ENTRY, graphics_wrapper

__all__ = ["HlslShader", "compile_shader", "STAGE_NAMES", "CBV_GROUP", "slang_args",
           "slang_name", "VIRTUAL_FOLDER", "check_request", "check_paths", "SlangRun",
           "preprocess_checked", "recorded_files", "included_files"]

STAGE_NAMES = {"vertex": "vertex shader", "pixel": "pixel shader"}
_SLANG_STAGE = {"vertex": "vertex", "pixel": "fragment"}
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
    register bN), ``shader_resources`` the buffer SRVs a vertex shader reads (register tN,
    ``gpuia.hlsl.srv``), ``warnings`` Slang's warnings at the user's line numbers."""

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
    # the buffer SRVs the entry reads (gpuia.hlsl.srv), by register
    shader_resources: tuple[ShaderResource, ...] = ()
    # the Texture2D SRVs and samplers the entry reads (gpuia.hlsl.textures)
    textures: tuple[ShaderTexture, ...] = ()
    samplers: tuple[ShaderSampler, ...] = ()

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
    return what, check_request(what, source, entry_point, defines, matrix_layout)


def check_request(what: str, source, entry_point, defines, matrix_layout
                  ) -> tuple[tuple[str, str], ...]:
    """Refuse a request Slang cannot take (source, entry point, defines, matrix layout: see
    :func:`compile_shader`); the defines as sorted (name, value) pairs."""
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
    return tuple(sorted(out))


def check_paths(what: str, file_name: str, include_dirs, source_path: str | None
                ) -> tuple[tuple[str, ...], str]:
    """Refuse a file name or path Slang cannot take; (the include folders, the source's path)
    made absolute ("" for a source given as text)."""
    _text(what, "file name", file_name)
    dirs = tuple(os.path.abspath(str(d)) for d in include_dirs)
    path = os.path.abspath(source_path) if source_path else ""
    for field_name, value in [("source_path", path)] + \
            [(f"include_dirs[{k}]", d) for k, d in enumerate(dirs)]:
        _path(what, field_name, value)
    return dirs, path


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
    include_dirs, source_path = check_paths(what, file_name, include_dirs, source_path)
    request = ("hlsl", cache.frontend_hash(), library.library_identity(), source, stage,
               entry_point, defs, matrix_layout, file_name, include_dirs, source_path)
    key = cache.key_of(*request)
    hit = _MEMORY.get(key)
    if hit is not None and cache.unchanged(hit[1]):
        return hit[0]
    entry = cache.load("hlsl", key, tuple[HlslShader, ShaderSignature], request)
    shader = _with_signature(*entry[0]) if entry is not None else None
    if shader is not None:
        recorded = entry[1]  # checked unchanged by the load: not hashed again
    else:
        shader, recorded = _compile(source, stage, entry_point, defs, matrix_layout, file_name,
                                    include_dirs, source_path, what)
        cache.store("hlsl", key, (shader, shader.signature), request, recorded)
    _MEMORY.put(key, (shader, recorded))
    return shader


def _reflected(source: str, stage: str, entry_point: str, defines, matrix_layout: str,
               file_name: str | None, include_dirs, source_path: str | None):
    """``(what, slang, first)``: the checked request's name, the Slang session and the first
    pass of one entry point, as :func:`reflect_entry` and :func:`reflect_resources` read it."""
    if stage == "geometry":  # its compile is gpuia.hlsl.geometry's; its reflection is this
        what = "geometry shader"
        defs = check_request(what, source, entry_point, defines or {}, matrix_layout)
    else:
        what, defs = _check_args(stage, source, entry_point, defines or {}, matrix_layout)
    file_name = file_name or f"{stage}_shader.hlsl"
    include_dirs, source_path = check_paths(what, file_name, include_dirs, source_path)
    slang, _, first = first_pass(source, {**_SLANG_STAGE, "geometry": "geometry"}[stage],
                                 entry_point, defs, matrix_layout, file_name, include_dirs,
                                 source_path, what)
    return what, slang, first


def reflect_entry(source: str, stage: str = "vertex", entry_point: str = "main",
                  defines=None, matrix_layout: str = "column_major",
                  file_name: str | None = None, include_dirs=(),
                  source_path: str | None = None) -> EntrySignature:
    """The signature of one HLSL entry point as Slang's reflection gives it, without
    translating it to WGSL: what :func:`compile_shader` reads before its own checks (so also a
    pixel shader's SV_Depth, which gpuia does not draw). The arguments are
    :func:`compile_shader`'s; not cached. Raises :class:`~gpuia.errors.InvalidDescError`
    (Slang's diagnostic, a host escape, no such entry point) or
    :class:`~gpuia.errors.UnsupportedError` without Slang's compiler."""
    what, slang, first = _reflected(source, stage, entry_point, defines, matrix_layout,
                                    file_name, include_dirs, source_path)
    return entry_signature(first.reflection, first.code.decode("utf-8", "replace"), entry_point,
                           what, slang.prepared.matrix_layout, slang.prepared)


def reflect_entry_resources(source: str, stage: str = "vertex", entry_point: str = "main",
                            defines=None, matrix_layout: str = "column_major",
                            file_name: str | None = None, include_dirs=(),
                            source_path: str | None = None) -> tuple[EntrySignature, list[dict]]:
    """:func:`reflect_entry` and :func:`reflect_resources` of one entry point from one Slang
    pass (``gpuia shader`` shows both). The arguments and refusals are theirs; not cached."""
    what, slang, first = _reflected(source, stage, entry_point, defines, matrix_layout,
                                    file_name, include_dirs, source_path)
    sig = entry_signature(first.reflection, first.code.decode("utf-8", "replace"), entry_point,
                          what, slang.prepared.matrix_layout, slang.prepared)
    return sig, used_resources(first.reflection, slang.prepared, stage,
                               slang.prepared.matrix_layout == "column_major")


def reflect_resources(source: str, stage: str = "vertex", entry_point: str = "main",
                      defines=None, matrix_layout: str = "column_major",
                      file_name: str | None = None, include_dirs=(),
                      source_path: str | None = None) -> list[dict]:
    """The resources one HLSL entry point uses, as Slang's reflection gives them, each with
    whether gpuia binds it (:func:`gpuia.hlsl.bindings.used_resources`: register, space, type,
    size). The arguments and refusals are :func:`reflect_entry`'s, ``stage`` also
    ``"geometry"``; not cached."""
    _, slang, first = _reflected(source, stage, entry_point, defines, matrix_layout,
                                 file_name, include_dirs, source_path)
    return used_resources(first.reflection, slang.prepared, stage,
                          slang.prepared.matrix_layout == "column_major")


def recorded_files(dependencies: tuple[str, ...], candidates: tuple[str, ...],
                   files: includes.Reader) -> list[tuple[str, str | None]]:
    """(path, hash) of the files a compile depends on, as the compile saw them: those gpuia
    read, by the bytes it read (a file changed while Slang compiled is compiled again next
    time, not recorded as it is after); every path an include searched before the file it read,
    absent (a new file there would shadow it); a file only Slang read (an ``#include`` of a
    macro), as it is now."""
    return [(p, files.digests.get(p) or cache.file_digest(p)) for p in dependencies] + \
        [(p, None) for p in candidates]


def _with_signature(shader: HlslShader, signature: ShaderSignature) -> HlslShader | None:
    """A cached shader with the signature its entry recorded, read from its WGSL (bounds
    checked: ``gpuia.wgsl.bounds``) when it was compiled: not read again, which was most of a
    disk cache hit's time. The load checked the entry's key, request and every field's type;
    a signature that is not of this WGSL's wrapper entry (another entry point, another length)
    is None: the shader is compiled again."""
    if signature.entry_point != WRAPPER_ENTRY or len(signature.source) != len(shader.wgsl):
        return None
    object.__setattr__(shader, "signature", signature)
    return shader


@dataclass
class SlangRun:
    """Slang's compiles of one entry, each failure refused at the user's line; ``prepared``
    and ``args`` are those of the source's latest preparation."""

    line_name: str
    stage: str  # Slang's name of the stage
    defs: tuple[tuple[str, str], ...]
    include_dirs: tuple[str, ...]
    what: str
    prepared: PreparedSource
    args: tuple[str, ...]

    def run(self, text, entry, target, explain=None, more=()):
        """Slang's output of ``text`` for ``target``; when Slang refuses it, ``explain`` may
        refuse it first, saying why, else Slang's first error is the refusal."""
        try:
            return library.compile_source(text, self.line_name, entry, self.stage, target,
                                          (*self.args, *more), self.defs, self.include_dirs,
                                          self.what)
        except library.SlangError as e:
            diagnostics = restore(e.diagnostics, self.prepared)
            if explain is not None:
                explain(diagnostics)
            err = InvalidDescError(self.what, None, None, at_users_line(diagnostics))
            err.diagnostics = diagnostics
            raise err from None


def first_pass(source, slang_stage: str, entry_point, defs, matrix_layout, file_name,
               include_dirs, source_path, what):
    """The start every compile of a user's HLSL shares: the source prepared and its escapes
    refused, then compiled by Slang to HLSL (the canonical form gpuia reads declarations from).

    Returns:
        ``(slang, files, first)``: the :class:`SlangRun` (its ``prepared`` source), the include
        reader every later pass shares, and Slang's output.

    Raises:
        InvalidDescError: a host escape, Slang's error (at the user's line) or no entry point.
    """
    line_name = slang_name(source_path, file_name)
    files = includes.Reader()  # every pass reads the same included files, each read once
    where = {"line_name": line_name, "source_path": source_path, "include_dirs": include_dirs,
             "defines": defs, "reader": files}
    slang = SlangRun(line_name, slang_stage, defs, include_dirs, what,
                     prepare(source, file_name, matrix_layout, markers=True, **where),
                     slang_args(matrix_layout))

    def no_entry(diagnostics):
        refuse_missing_entry(diagnostics, source, entry_point, defs, file_name, what)
        refuse_integer_sample(diagnostics, source, what)  # rules 17.12
        refuse_cube_load(diagnostics, source, what)  # rules 17.9

    preprocess_checked(slang, source, entry_point, file_name, matrix_layout, where, no_entry)
    first = slang.run(slang.prepared.text, entry_point, "hlsl", no_entry)
    return slang, files, first


def _compile(source, stage, entry_point, defs, matrix_layout, file_name, include_dirs,
             source_path, what) -> tuple[HlslShader, list[tuple[str, str | None]]]:
    slang, files, first = first_pass(source, _SLANG_STAGE[stage], entry_point, defs,
                                     matrix_layout, file_name, include_dirs, source_path, what)
    prepared, line_name = slang.prepared, slang.line_name
    sig = entry_signature(first.reflection, first.code.decode("utf-8", "replace"), entry_point,
                          what, prepared.matrix_layout, prepared)
    _check_stage(stage, what, sig)
    params = resources(first.reflection)
    refuse_used_resources(first.reflection, prepared, what, buffer_srvs=stage == "vertex")
    refuse_atomics_in_source(first.reflection, prepared.text, what)
    # Buffer<T> lowered to a structured buffer Slang's WGSL takes (gpuia.hlsl.typed_buffers)
    text = lower_source(prepared.text, used_names(first.reflection) if stage == "vertex"
                        else (), what)
    # Load(location, offset), which Slang's WGSL lacks, as the Load it is (rules 17.11)
    shapes = reflected_textures(params)
    text = lower_load_offsets(text, shapes, what)
    # a Texture1DArray, which Slang's WGSL lacks, as a Texture2DArray of height 1 (rules 17.8)
    text = lower_texture1d_arrays(text, {n for n, k in shapes.items() if k == "Texture1DArray"},
                                  what)
    wrapped = text + graphics_wrapper(sig, entry_point)
    second = slang.run(wrapped, WRAPPER_ENTRY, "wgsl",
                       lambda diagnostics: _refuse_second(params, diagnostics, source, what))
    code = _rename_io(second.code.decode("utf-8"), sig.inputs(), sig.outputs(),
                      interpolate=stage == "pixel")
    structs = parse_wgsl_structs(code)
    cbuffers = constant_buffers(code, params, structs, what)
    for cb in cbuffers:
        code = remap_wgsl(code, cb, CBV_GROUP, structs, WRAPPER_ENTRY)
    srvs = shader_resources(params, code, what, prepared.matrix_layout == "column_major")
    code = rewrite_srvs(code, srvs, CBV_GROUP, what)
    textures, samplers = shader_textures(params, code, what,
                                         {(r.register, r.space) for r in srvs
                                          if not r.writable})
    code = rewrite_textures(code, textures, samplers, CBV_GROUP, what)
    code = (f"// gpuia: HLSL {what} {wgsl_comment_text(entry_point)} "
            f"({wgsl_comment_text(file_name)}) through Slang's WGSL; IO "
            f"members named by their semantics, cbuffers at @group({CBV_GROUP})\n" + code)
    parsed = _checked(code, stage, what, lambda: slang.run(
        wrapped, WRAPPER_ENTRY, "wgsl", None, ("-line-directive-mode", "standard")),
        prepared, source)
    shader = HlslShader(stage, source, file_name, entry_point, defs, prepared.matrix_layout,
                        include_dirs, code, sig, tuple(cbuffers),
                        restore(first.diagnostics + second.diagnostics, prepared).strip(),
                        included_files([f.path for f in prepared.files],
                                  first.dependencies + second.dependencies, line_name),
                        source_path, parsed, prepared.candidates, srvs, textures, samplers)
    return shader, recorded_files(shader.dependencies, shader.include_candidates, files)


def _refuse_second(params: dict, diagnostics: str, source: str, what: str) -> None:
    """What a failed WGSL compile of the wrapped source is refused as: a cube's Load (rules
    17.9), a type WGSL cannot hold (``refuse_wide``); else Slang's own error."""
    refuse_cube_load(diagnostics, source, what)
    refuse_wide(params, diagnostics, what)


def preprocess_checked(slang: SlangRun, source: str, entry_point: str, file_name: str,
                matrix_layout: str, where: dict, no_entry) -> None:
    """Refuse Slang's ways out of a shader in what its preprocessor makes of the source, then
    prepare the source for the ``#pragma pack_matrix`` lines the preprocessor keeps
    (``slang.prepared``, ``slang.args``)."""
    # Before Slang compiles anything: none of Slang's ways out of a shader (gpuia.hlsl.escapes)
    # in what its preprocessor makes of the source, its includes and the defines.
    refuse_escapes(slang.run(slang.prepared.text, entry_point, library.PREPROCESS).code.decode(
        "utf-8", "replace"), slang.what, source, file_name, where["source_path"],
        slang.include_dirs, slang.defs)
    if slang.prepared.pragmas:  # which #pragma pack_matrix lines does the preprocessor keep?
        probe = slang.run(slang.prepared.text, entry_point, "hlsl", no_entry)
        active = frozenset(int(p["name"][len(PRAGMA_MARKER):])
                           for p in probe.reflection.get("parameters", [])
                           if re.fullmatch(rf"{PRAGMA_MARKER}\d+", p["name"]))
        slang.prepared = prepare(source, file_name, matrix_layout, active, **where)
    # else the text with markers is the text: no pragma was marked (one preparation, not two)
    slang.args = slang_args(slang.prepared.matrix_layout)


def _checked(code: str, stage: str, what: str, with_lines, prepared: PreparedSource,
             source: str) -> ShaderSignature:
    """``code`` read by gpuia's WGSL signature reader and accepted by naga; what either
    refuses is refused at the user's line where one is known (``with_lines``: Slang's WGSL
    with its ``#line`` directives, :func:`gpuia.hlsl.refusals.naga_refusal`)."""
    try:
        parsed = (parse_vertex_shader if stage == "vertex" else parse_pixel_shader)(
            code, WRAPPER_ENTRY)
    except InvalidDescError as e:
        raise InvalidDescError(what, e.where, e.value, f"{e.rule} (in gpuia's WGSL of the "
                                                       f"HLSL entry)") from None
    # What every draw embeds, checked by naga now rather than when it is drawn.
    _, naga_error = library.check_wgsl(parsed.source, what)
    if naga_error is not None:
        raise naga_refusal(naga_error, with_lines, prepared, source, what)
    return parsed


def included_files(read, slang_read, line_name: str) -> tuple[str, ...]:
    """The files the source included: every one gpuia read and inlined (``read``: watched even
    when it is gone by now, as the compile used it), and any Slang read itself (an ``#include``
    of a macro; Slang's list also has the source itself, by its name, which is no file when the
    source is text)."""
    return tuple(sorted({os.path.abspath(p) for p in read} |
                        {os.path.abspath(p) for p in slang_read
                         if os.path.abspath(p) != os.path.abspath(line_name)
                         and os.path.isfile(p)}))
