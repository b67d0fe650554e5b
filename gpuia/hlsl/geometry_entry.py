"""The HLSL gpuia compiles around a geometry shader: the streams' prelude and the compute entry.

Slang compiles no geometry stage for WGSL or C++ (E36107), so gpuia runs the user's geometry
shader as a function called by a generated compute entry, one thread per invocation
(``shaders/gs_prelude.hlsl`` before the user's source, ``shaders/gs_entry.hlsl`` after it):

* the prelude shadows ``PointStream``, ``LineStream`` and ``TriangleStream`` with gpuia's own
  generic structs, whose ``Append`` writes the invocation's region of ``gpuia_gs_out``
  (:data:`gpuia.wgsl.blocks.GS_REGION`: the Appends kept, then per kept Append a header word
  and the record's words) and keeps no more than ``maxvertexcount`` of all streams together
  (rules 13.4);
* the entry reads the primitive's vertices from ``gpuia_gs_vertices`` (each record member's
  components one 32-bit word each, in the input struct's declaration order) through
  ``gpuia_gs_prims`` (per primitive its vertex indices, then its ``SV_PrimitiveID``), and calls
  the shader with the primitive, ``SV_PrimitiveID``, ``SV_GSInstanceID`` and its streams, in
  the order the shader declares its parameters;
* every stream's record type gets a ``gpuia_store`` (a Slang ``extension``) writing its
  members' words in declaration order.

The same text is compiled for WGSL (the GPU program) and for C++ (the CPU reference); only the
entry's name differs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..util.resources import shader_text
from .reflect import Leaf, hlsl_type

__all__ = ["GSParameter", "gs_prelude", "gs_entry", "gs_cpu_entry", "record_words", "GS_GROUP",
           "other_records"]

GS_GROUP = 64
"""Threads per workgroup of the compute entry (one invocation each)."""

_AS = {"float": "asfloat", "sint": "asint", "uint": "asuint", "bool": "asuint"}


@dataclass(frozen=True)
class GSParameter:
    """One parameter of the user's geometry shader, in declaration order.

    Arguments:
        role (str): ``"input"`` (the primitive's vertex array), ``"primitive_id"``
            (SV_PrimitiveID), ``"instance_id"`` (SV_GSInstanceID) or ``"stream"``.
        name (str): the user's name of it.
        type_text (str): its HLSL type: the input's element type, a stream's record struct
            (else the scalar type).
        stream (int): a stream's number (the order of the stream parameters), else -1.
    """

    role: str
    name: str
    type_text: str
    stream: int = -1


def record_words(leaves: tuple[Leaf, ...]) -> int:
    """The 32-bit words of a record: one per component of each member."""
    return sum(leaf.components for leaf in leaves)


def gs_prelude(max_vertex_count: int, record: int) -> str:
    """The streams' prelude (before the user's source): ``record`` is R, the words of the
    largest stream record."""
    return shader_text("gs_prelude.hlsl", MAX_VERTEX_COUNT=max_vertex_count,
                       ENTRY_WORDS=1 + record) + "\n"


def _read(leaf: Leaf, target: str, word: int, buffer: str) -> list[str]:
    """Statements setting ``target`` (a member of the input vertex) from its words at
    ``buffer[gpuia_b + word]``."""
    words = [f"{buffer}[gpuia_b + {word + c}u]" for c in range(leaf.components)]
    value = words[0] if leaf.components == 1 else f"uint{leaf.components}({', '.join(words)})"
    value = f"{_AS[leaf.kind]}({value})"
    if leaf.kind == "bool":
        value = f"({value} != 0u)"
    if leaf.matrix is None:
        return [f"{target} = {value};"]
    rows, _, column_major, v = leaf.matrix
    if not column_major:  # the leaf is row v
        return [f"{target}[{v}] = {value};"]
    vec = f"gpuia_c{word}"  # the leaf is column v: one component per row
    return [f"{hlsl_type(leaf.kind, leaf.components)} {vec} = {value};"] + \
        [f"{target}[{r}][{v}] = {vec}[{r}];" for r in range(rows)]


def _store(leaf: Leaf, word: int) -> list[str]:
    """Statements writing member ``leaf`` of ``this`` to its words at ``gpuia_at + word``."""
    source = f"this{leaf.path}"
    if leaf.matrix is not None:
        rows, _, column_major, v = leaf.matrix
        source = (f"{hlsl_type(leaf.kind, leaf.components)}("
                  + ", ".join(f"{source}[{r}][{v}]" for r in range(rows)) + ")"
                  if column_major else f"{source}[{v}]")
    wide = "" if leaf.components == 1 else leaf.components
    value = f"(uint{wide})({source})" if leaf.kind == "bool" else f"asuint({source})"
    if leaf.components == 1:
        return [f"gpuia_gs_out[gpuia_at + {word}u] = {value};"]
    vec = f"gpuia_w{word}"
    return [f"uint{leaf.components} {vec} = {value};"] + \
        [f"gpuia_gs_out[gpuia_at + {word + c}u] = {vec}.{'xyzw'[c]};"
         for c in range(leaf.components)]


_STREAM_RECORD = re.compile(r"\b(?:Point|Line|Triangle)Stream\s*<\s*([A-Za-z_]\w*)\s*>")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def other_records(source: str, own: set[str]) -> list[str]:
    """The record structs other geometry shaders of ``source`` append (its stream parameters'
    types declared as structs there), besides ``own``: gpuia's stream types take only records
    with a ``gpuia_store``, and Slang checks every function of the source, so a file holding
    several geometry shaders (as an effect file does) needs one for each."""
    text = _COMMENT.sub(" ", source)
    found = dict.fromkeys(m.group(1) for m in _STREAM_RECORD.finditer(text))
    return [name for name in found if name not in own
            and re.search(rf"\bstruct\s+{name}\b", text)]


def _records(streams: list[tuple[str, tuple[Leaf, ...]]], source: str = "") -> str:
    """One ``gpuia_store`` per record struct the streams append; an empty one for each record
    only other geometry shaders of ``source`` append (never called: the entry compiled calls
    the user's one shader)."""
    out, done = [], set()
    for struct, leaves in streams:
        if struct in done:
            continue
        done.add(struct)
        body, word = [], 0
        for leaf in leaves:
            body += _store(leaf, word)
            word += leaf.components
        out += [f"extension {struct} : gpuia_IRecord {{",
                "    void gpuia_store(uint gpuia_at) {",
                *[f"        {line}" for line in body], "    }", "};"]
    for struct in other_records(source, done):
        out.append(f"extension {struct} : gpuia_IRecord "
                   f"{{ void gpuia_store(uint gpuia_at) {{}} }};")
    return "\n".join(out)


def _pieces(params: tuple[GSParameter, ...], input_leaves: tuple[Leaf, ...],
            stream_leaves: tuple[tuple[Leaf, ...], ...], user_entry: str, buffer: str,
            source: str) -> dict:
    """The placeholders both entries share: the records' stores, the input's type and reads,
    the streams and the call."""
    read, word = [], 0
    for leaf in input_leaves:
        read += _read(leaf, f"gpuia_v[gpuia_j]{leaf.path}", word, buffer)
        word += leaf.components
    streams, args = [], []
    for p in params:
        if p.role == "input":
            args.append("gpuia_v")
        elif p.role == "primitive_id":
            args.append(f"({p.type_text})gpuia_primitive_id")
        elif p.role == "instance_id":
            args.append(f"({p.type_text})gpuia_instance")
        else:
            var = f"gpuia_s{p.stream}"  # p.type_text: "TriangleStream<GSOut>"
            streams += [f"{p.type_text} {var};", f"{var}.gpuia_stream = {p.stream}u;",
                        f"{var}.gpuia_region = gpuia_region;", f"{var}.gpuia_open = 0u;"]
            args.append(var)
    records = [(p.type_text.split("<", 1)[1].rstrip(">").strip(), stream_leaves[p.stream])
               for p in params if p.role == "stream"]
    return {"RECORDS": _records(records, source), "GROUP": GS_GROUP,
            "INPUT_TYPE": next(p.type_text for p in params if p.role == "input"),
            "READ": "\n".join(read), "STREAMS": "\n".join(streams),
            "CALL": f"{user_entry}({', '.join(args)});"}


def gs_entry(params: tuple[GSParameter, ...], input_leaves: tuple[Leaf, ...], vertices: int,
             stream_leaves: tuple[tuple[Leaf, ...], ...], user_entry: str, entry: str,
             source: str = "") -> str:
    """The GPU program's compute entry ``entry`` (after the user's ``source``) calling
    ``user_entry``: its inputs through ``gpuia_gs_prims`` and ``gpuia_gs_vertices``."""
    return shader_text("gs_entry.hlsl", ENTRY=entry, PRIM_WORDS=vertices + 1, VERTICES=vertices,
                       **_pieces(params, input_leaves, stream_leaves, user_entry,
                                 "gpuia_gs_vertices", source)) + "\n"


def gs_cpu_entry(params: tuple[GSParameter, ...], input_leaves: tuple[Leaf, ...], vertices: int,
                 stream_leaves: tuple[tuple[Leaf, ...], ...], user_entry: str, entry: str,
                 region_words: int, source: str = "") -> tuple[str, int]:
    """The CPU reference's compute entry ``entry``: invocation t's inputs are ``hlslw_in[t *
    in_words ...]`` (the primitive's vertex records, then SV_PrimitiveID and SV_GSInstanceID),
    its region the GPU program's. Returns (source, in_words)."""
    vertex_words = record_words(input_leaves)
    in_words = vertices * vertex_words + 2
    return shader_text("gs_entry_cpu.hlsl", ENTRY=entry, VERTICES=vertices,
                       REGION_WORDS=region_words, IN_WORDS=in_words, VERTEX_WORDS=vertex_words,
                       ID_WORD=vertices * vertex_words,
                       **_pieces(params, input_leaves, stream_leaves, user_entry,
                                 "hlslw_in", source)) + "\n", in_words
