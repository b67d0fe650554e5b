"""HLSL geometry shaders compiled to gpuia's compute program (docs/rules.md section 13).

:func:`compile_geometry_shader` turns an HLSL geometry shader into an
:class:`HlslGeometryShader`: its declaration (:class:`~gpuia.d3d.geometry.GeometryDeclaration`,
which checks rules 13.1, 13.3, 13.4 and 13.7 itself), its input vertex record (linked with the
vertex shader's outputs by semantic, rules 13.9), each stream's output record, whether it reads
``SV_PrimitiveID`` and ``SV_GSInstanceID``, the cbuffers and buffer SRVs it reads
(``StructuredBuffer<T>``, ``ByteAddressBuffer``, ``Buffer<T>``: ``gpuia.hlsl.srv``, bound and
bounds-checked as a vertex shader's), and ``wgsl``: the compute
program that runs it on the GPU (``gpuia.hlsl.geometry_entry``, ``gpuia.hlsl.geometry_wgsl``).

The steps are the vertex shader's (``gpuia.hlsl.frontend``): the source is prepared and what
Slang's preprocessor makes of it is checked for Slang's ways out of a shader; Slang compiles
the user's entry for its HLSL target as a geometry stage, whose output keeps
``[maxvertexcount]``, ``[instance]``, the input primitive and the stream types in canonical
form (the declaration is read there, the records from the reflection); then the prelude, the
source and the generated compute entry go to WGSL through the same corrections and naga check.

Refused, one :class:`~gpuia.errors.InvalidDescError` naming the rule or Slang's error at the
user's line: everything the vertex shader's front end refuses (escapes, Slang's errors,
64-bit types, resources other than cbuffers and buffer SRVs: textures, samplers and UAVs),
no ``[maxvertexcount]``, not exactly one input
primitive array, a parameter that is none of the input, ``SV_PrimitiveID``,
``SV_GSInstanceID`` or a stream, and a stream record that is not a struct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..d3d.geometry import GS_INPUTS, STREAM_TYPES, GeometryDeclaration
from ..d3d.signature import Member
from ..d3d.srv_bindings import VIEWS_BINDING
from ..d3d.textures import SAMPLER_STATE_BINDING
from ..errors import InvalidDescError
from ..wgsl.signature import split_top_level
from . import cache, library
from .bindings import refuse_used_resources, refuse_wide, resources
from .cbuffer import ConstantBuffer
from .frontend import (
    check_paths,
    check_request,
    first_pass,
    included_files,
    recorded_files,
    slang_name,
)
from .geometry_entry import GS_GROUP, GSParameter, gs_entry, gs_prelude, record_words
from .geometry_wgsl import GS_ENTRY, gs_wgsl
from .load_offsets import lower_load_offsets, reflected_textures
from .reflect import Leaf, declaration_modifiers, emitted_name, type_text, value_leaves
from .source import SV_PREFIX, restore
from .srv import ShaderResource
from .texture1d_arrays import lower_texture1d_arrays
from .textures import ShaderSampler, ShaderTexture
from .typed_buffers import lower_source, used_names

__all__ = ["HlslGeometryShader", "RecordMember", "compile_geometry_shader", "signature_members",
           "WHAT"]

WHAT = "geometry shader"
_SYSTEM = {"SV_PRIMITIVEID": "primitive_id", "SV_GSINSTANCEID": "instance_id"}


@dataclass(frozen=True)
class RecordMember:
    """One member of a record: ``semantic`` (upper case, ``SV_POSITION``) and ``index``,
    ``kind`` (``float``, ``uint``, ``sint``; a bool travels as a uint 0 or 1), ``components``
    and ``word``: its first word in the record (each component one 32-bit word)."""

    semantic: str
    index: int
    kind: str
    components: int
    word: int

    @property
    def key(self) -> str:
        return f"{self.semantic}{self.index}"


_SCALAR = {"float": "f32", "uint": "u32", "sint": "i32"}


def signature_members(record: tuple[RecordMember, ...]) -> tuple[Member, ...]:
    """A record as :class:`~gpuia.d3d.signature.Member` values (each with its WGSL type), in
    declaration order: the form the linkage checks and Stream Output declarations take."""
    return tuple(Member(m.key, m.semantic, m.index, m.kind, m.components,
                        _SCALAR[m.kind] if m.components == 1
                        else f"vec{m.components}<{_SCALAR[m.kind]}>")
                 for m in record)


def _members(leaves: tuple[Leaf, ...]) -> tuple[RecordMember, ...]:
    out, word = [], 0
    for leaf in leaves:
        kind = "uint" if leaf.kind == "bool" else leaf.kind
        out.append(RecordMember(leaf.semantic, leaf.index, kind, leaf.components, word))
        word += leaf.components
    return tuple(out)


@dataclass(frozen=True)
class HlslGeometryShader:
    """A compiled HLSL geometry shader (see the module docstring).

    ``wgsl`` is the compute program (entry ``wgsl_entry_point``, bindings in
    ``gpuia.wgsl.blocks``: GS_PARAMS and GS_REGION); ``input_leaves`` and ``stream_leaves``
    are the records' signature leaves (paths from the record), whose public view is
    :attr:`input_record` and :meth:`stream_record`."""

    source: str
    file_name: str
    entry_point: str
    defines: tuple[tuple[str, str], ...]
    matrix_layout: str
    include_dirs: tuple[str, ...]
    declaration: GeometryDeclaration
    parameters: tuple[GSParameter, ...]
    input_type: str
    input_leaves: tuple[Leaf, ...]
    stream_leaves: tuple[tuple[Leaf, ...], ...]
    constant_buffers: tuple[ConstantBuffer, ...]
    wgsl: str
    warnings: str = ""
    dependencies: tuple[str, ...] = ()
    source_path: str = ""
    include_candidates: tuple[str, ...] = ()
    # the buffer SRVs the entry reads (gpuia.hlsl.srv), by space and register
    shader_resources: tuple[ShaderResource, ...] = ()
    # the textures and samplers it reads (gpuia.hlsl.textures)
    textures: tuple[ShaderTexture, ...] = ()
    samplers: tuple[ShaderSampler, ...] = ()

    @property
    def slang_name(self) -> str:
        return slang_name(self.source_path, self.file_name)

    @property
    def wgsl_entry_point(self) -> str:
        return GS_ENTRY

    @property
    def input_record(self) -> tuple[RecordMember, ...]:
        """The input vertex record: its members by semantic, in declaration order."""
        return _members(self.input_leaves)

    def stream_record(self, stream: int) -> tuple[RecordMember, ...]:
        """Stream ``stream``'s output record, members in declaration order."""
        return _members(self.stream_leaves[stream])

    @property
    def workgroup(self) -> int:
        """Threads per workgroup of :attr:`wgsl`'s entry, one invocation each."""
        return GS_GROUP

    @property
    def input_members(self) -> tuple[Member, ...]:
        """:attr:`input_record` as :class:`~gpuia.d3d.signature.Member` values."""
        return signature_members(self.input_record)

    @property
    def stream_members(self) -> tuple[tuple[Member, ...], ...]:
        """Each stream's record as :class:`~gpuia.d3d.signature.Member` values, stream 0
        first: what :func:`gpuia.d3d.so_declaration.resolve_stream_output` resolves a
        declaration's entries of that stream against (rules 8.3, 13.7)."""
        return tuple(signature_members(self.stream_record(s))
                     for s in range(len(self.stream_leaves)))

    @property
    def vertex_words(self) -> int:
        """Words of one input vertex record."""
        return record_words(self.input_leaves)

    @property
    def record_words(self) -> int:
        """R: the words of the largest stream record."""
        return max(record_words(leaves) for leaves in self.stream_leaves)

    @property
    def region_words(self) -> int:
        """Words of one invocation's region: 1 + N * (1 + R)."""
        return 1 + self.declaration.max_vertex_count * (1 + self.record_words)

    @property
    def uses_primitive_id(self) -> bool:
        return any(p.role == "primitive_id" for p in self.parameters)

    @property
    def uses_instance_id(self) -> bool:
        return any(p.role == "instance_id" for p in self.parameters)

    @property
    def constant_buffer_slots(self) -> tuple[int, ...]:
        return tuple(sorted(cb.slot for cb in self.constant_buffers))

    @property
    def group_bindings(self) -> tuple[int, ...]:
        """The bindings of the program's resource group (``GS_CBV_GROUP``): the root constant
        buffers it reads (binding = register bN), then, when it reads SRVs, gpuia's views
        uniform and the SRVs (``gpuia.d3d.srv_bindings``), then its textures, samplers and
        gpuia's sampler state uniform (``gpuia.d3d.textures``), as a vertex shader's group."""
        return self.constant_buffer_slots + (
            (VIEWS_BINDING, *(r.binding for r in self.shader_resources))
            if self.shader_resources else ()) + tuple(t.slot for t in self.textures) + tuple(
            s.binding for s in self.samplers if not s.comparison) + (
            (SAMPLER_STATE_BINDING,) if self.samplers else ())

    def __hash__(self):
        return hash(self.wgsl)


_MEMORY = cache.MemoryCache(64)


def compile_geometry_shader(text: str, entry_point: str = "main", defines=None,
                            matrix_layout: str = "column_major", *,
                            file_name: str | None = None, include_dirs=(),
                            source_path: str | None = None) -> HlslGeometryShader:
    """Compile an HLSL geometry shader (see the module docstring); the arguments are
    :func:`gpuia.hlsl.compile_shader`'s. Cached in memory and on disk as a vertex shader is.
    Raises :class:`~gpuia.errors.InvalidDescError` or, without Slang's compiler,
    :class:`~gpuia.errors.UnsupportedError`."""
    defs = check_request(WHAT, text, entry_point, defines or {}, matrix_layout)
    file_name = file_name or "geometry_shader.hlsl"
    include_dirs, path = check_paths(WHAT, file_name, include_dirs, source_path)
    request = ("hlsl-gs", cache.frontend_hash(), library.library_identity(), text, entry_point,
               defs, matrix_layout, file_name, include_dirs, path)
    key = cache.key_of(*request)
    hit = _MEMORY.get(key)
    if hit is not None and cache.unchanged(hit[1]):
        return hit[0]
    entry = cache.load("hlsl", key, HlslGeometryShader, request)
    if entry is not None:
        shader, recorded = entry
    else:
        shader, recorded = _compile(text, entry_point, defs, matrix_layout, file_name,
                                    include_dirs, path)
        cache.store("hlsl", key, shader, request, recorded)
    _MEMORY.put(key, (shader, recorded))
    return shader


def _compile(source, entry_point, defs, matrix_layout, file_name, include_dirs, source_path):
    slang, files, first = first_pass(source, "geometry", entry_point, defs, matrix_layout,
                                     file_name, include_dirs, source_path, WHAT)
    prepared, line_name = slang.prepared, slang.line_name
    hlsl = first.code.decode("utf-8", "replace")
    refuse_used_resources(first.reflection, prepared, WHAT, read_only=True)
    params = resources(first.reflection)
    # Buffer<T> lowered to a structured buffer Slang's WGSL takes (gpuia.hlsl.typed_buffers)
    text = lower_source(prepared.text, used_names(first.reflection), WHAT)
    # Load(location, offset) and Texture1DArray as a vertex shader's (rules 17.11, 17.8)
    shapes = reflected_textures(params)
    text = lower_load_offsets(text, shapes, WHAT)
    text = lower_texture1d_arrays(text, {n for n, k in shapes.items() if k == "Texture1DArray"},
                                  WHAT)
    attributes, modifiers, at = _entry_text(hlsl, entry_point, prepared.names)
    parsed = _Parameters(first.reflection, hlsl, entry_point, modifiers,
                         prepared.matrix_layout, at)
    try:
        declaration = GeometryDeclaration(
            parsed.primitive, _attribute(attributes, "maxvertexcount", None, at),
            tuple(parsed.stream_types), tuple(max(record_words(s), 1) for s in parsed.streams),
            _attribute(attributes, "instance", 1, at), WHAT)
    except InvalidDescError as e:  # the same refusal, at the entry's line
        raise InvalidDescError(e.where, f"{at}: {e.field}" if e.field else at, e.value,
                               e.rule) from None
    streams = tuple(parsed.streams)
    record = max(record_words(s) for s in streams)
    wrapped = (gs_prelude(declaration.max_vertex_count, record) + text
               + gs_entry(tuple(parsed.params), parsed.input_leaves, declaration.input.vertices,
                          streams, entry_point, GS_ENTRY, text))
    slang.stage = "compute"
    second = slang.run(wrapped, GS_ENTRY, "wgsl",
                       lambda diagnostics: refuse_wide(params, diagnostics, WHAT))
    code, cbuffers, srvs, (textures, samplers) = gs_wgsl(
        second.code.decode("utf-8"), params, slang, wrapped, prepared, source, entry_point,
        file_name)
    shader = HlslGeometryShader(
        source, file_name, entry_point, defs, prepared.matrix_layout, include_dirs, declaration,
        tuple(parsed.params), parsed.input_type, parsed.input_leaves, streams, tuple(cbuffers),
        code, restore(first.diagnostics + second.diagnostics, prepared).strip(),
        included_files([f.path for f in prepared.files],
                       first.dependencies + second.dependencies, line_name),
        source_path, prepared.candidates, srvs, textures, samplers)
    return shader, recorded_files(shader.dependencies, shader.include_candidates, files)


def _entry_text(hlsl: str, entry_point: str, names: tuple[str, str]
                ) -> tuple[str, list[str], str]:
    """(the attributes before the entry's declaration, each parameter's text, ``file:line``
    of the declaration) in Slang's HLSL output, where the declaration is in canonical form
    and the ``#line`` directives give the user's lines (``names``: the name Slang got for the
    file, the user's)."""
    name = re.escape(emitted_name(entry_point))
    m = re.search(rf"((?:\[[^\[\]]*\]\s*)*)void\s+{name}\s*\(([^{{]*)\)\s*\{{", hlsl)
    if m is None:
        raise InvalidDescError(WHAT, names[1], entry_point,
                               "a geometry shader's entry point returns void")
    file, line = names[1], 0
    for d in re.finditer(r'^\s*#line\s+(\d+)(?:\s+"([^"]*)")?', hlsl[:m.start()], re.M):
        line = int(d.group(1))
        if d.group(2) is not None:
            file = names[1] if d.group(2) == names[0] else d.group(2)
    at = f"{file}:{line}" if line else file
    return m.group(1), [" ".join(p.split()) for p in split_top_level(m.group(2)) if p.strip()], at


def _attribute(attributes: str, name: str, default, at: str) -> int:
    m = re.search(rf"\[\s*{name}\s*\(\s*(-?\d+)\s*\)\s*\]", attributes)
    if m is None:
        if default is None:
            raise InvalidDescError(WHAT, at, None,
                                   f"no [{name}(N)]: a geometry shader declares the vertices "
                                   f"one invocation may append (rules 13.4)")
        return default
    return int(m.group(1))


class _Parameters:
    """The entry's parameters, classified from the reflection and Slang's HLSL text."""

    def __init__(self, reflection: dict, hlsl: str, entry_point: str, modifiers: list[str],
                 layout: str, at: str):
        eps = [e for e in reflection.get("entryPoints", []) if e.get("name") == entry_point]
        if not eps:
            raise InvalidDescError(WHAT, "entry_point", entry_point,
                                   "Slang found no such entry point")
        self.structs, _ = declaration_modifiers(hlsl, emitted_name(entry_point))
        self.layout, self.at = layout, at  # at: the declaration's file:line
        self.params: list[GSParameter] = []
        self.streams: list[tuple[Leaf, ...]] = []
        self.stream_types: list[str] = []
        self.primitive = ""
        self.input_type = ""
        self.input_leaves: tuple[Leaf, ...] = ()
        reflected = eps[0].get("parameters", [])
        if len(reflected) != len(modifiers):
            raise InvalidDescError(WHAT, f"{at}: parameters", len(reflected),
                                   "Slang's HLSL of the entry does not list its parameters")
        for p, text in zip(reflected, modifiers, strict=True):
            self._add(p, text)
        if not self.primitive:
            raise InvalidDescError(WHAT, f"{at}: input primitive", None,
                                   "a geometry shader takes exactly one input primitive array "
                                   "(point, line, triangle, lineadj or triangleadj; rules 13.1)")

    def _add(self, p: dict, text: str) -> None:
        name, t = p["name"], p["type"]
        words = text.split()
        primitive = next((w for w in words if w in GS_INPUTS), None)
        stream = re.search(rf"\b({'|'.join(STREAM_TYPES)})\s*<", text)
        semantic = (p.get("semanticName") or "").upper().replace(SV_PREFIX, "SV_")
        if primitive is not None:
            self._input(p, primitive)
        elif stream is not None:
            self._stream(p, stream.group(1))
        elif semantic in _SYSTEM and t.get("kind") == "scalar" and \
                t.get("scalarType") in ("uint32", "int32"):
            self.params.append(GSParameter(_SYSTEM[semantic], name,
                                           "uint" if t["scalarType"] == "uint32" else "int"))
        else:
            raise InvalidDescError(WHAT, f"{self.at}: parameter {name}", semantic or text,
                                   "a geometry shader's parameters are its input primitive "
                                   "array, a uint SV_PrimitiveID, a uint SV_GSInstanceID and "
                                   "its output streams (rules 13.1, 13.3, 13.7)")

    def _input(self, p: dict, primitive: str) -> None:
        name, t = p["name"], p["type"]
        if self.primitive:
            raise InvalidDescError(WHAT, f"{self.at}: parameter {name}", primitive,
                                   "a geometry shader takes exactly one input primitive array "
                                   "(rules 13.1)")
        vertices = GS_INPUTS[primitive].vertices
        if t.get("kind") != "array" or t.get("elementCount") != vertices:
            raise InvalidDescError(WHAT, f"{self.at}: parameter {name}", primitive,
                                   f"a {primitive} input is an array of {vertices} vertices "
                                   f"(rules 13.1)")
        element = t["elementType"]
        self.primitive = primitive
        self.input_type = type_text(element, name, WHAT)
        self.input_leaves = value_leaves(element, p.get("semanticName"),
                                         p.get("semanticIndex", 0), "in", WHAT, self.layout,
                                         self.structs, name)
        self.params.append(GSParameter("input", name, self.input_type))

    def _stream(self, p: dict, kind: str) -> None:
        name, element = p["name"], p["type"].get("elementType", {})
        if element.get("kind") != "struct":
            raise InvalidDescError(WHAT, f"{self.at}: parameter {name}", kind,
                                   "a stream's record is a struct whose members have "
                                   "semantics")
        struct = type_text(element, name, WHAT)
        leaves = value_leaves(element, None, 0, "out", WHAT, self.layout, self.structs, name)
        self.params.append(GSParameter("stream", name, f"{kind}<{struct}>", len(self.streams)))
        self.streams.append(leaves)
        self.stream_types.append(kind)
