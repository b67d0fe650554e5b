"""Hypothesis strategy for fuzz cases with a geometry shader (``gpuia fuzz --gs``).

:func:`gs_cases` draws a valid case whose pipeline is IA -> pass-through vertex shader -> an HLSL
geometry shader -> Stream Output (docs/rules.md section 13, docs/case-format.md "Additions").
The shader comes from one template (:func:`gs_source`) instantiated for a row of :data:`SHAPES`:
the compile-time part of a geometry shader (input primitive, streams, maxvertexcount, instances,
whether odd streams have their own record). Every shape is a different source, and a source's
first build (Slang to C++, then g++) takes seconds, so the shapes are a fixed, short list that
still covers every input primitive (adjacency included), 1 to 4 point streams, one line or
triangle stream, ``[instance(n)]`` up to 32, maxvertexcount from 1 to the 1024-scalar limit and
streams with different records. What each invocation does is drawn per case and read from the
shader's constant buffer (``b0``): how many Appends it attempts (past maxvertexcount too), how
that count varies with SV_PrimitiveID and SV_GSInstanceID, after which Appends it calls
RestartStrip, and which stream each Append goes to. So a run builds each shape once and the
builds are cached by source.

Around the shader: a layout of POSITION (four float formats) and BLENDINDICES (per vertex or per
instance), a topology of the input primitive's class (list, strip, with adjacency where the
shader takes it), one or two draws of both kinds with instances, index buffers with strip cuts,
and a Stream Output declaration over streams 0-3 (each slot fed by one stream, entries naming
outputs of their own stream's record, gaps), ``RasterizedStream`` (a stream, one the shader
lacks, or none), targets small enough to overflow, pre-filled ones.

The topology classes and the records are written here from the rules, not taken from gpuia's
tables, so that the generator does not inherit their mistakes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from hypothesis import strategies as st

__all__ = ["INPUTS", "RECORDS", "SHAPES", "Shape", "gs_cases", "gs_source", "so_declaration"]

U32 = 1 << 32
ROWS = 24
"""Vertex records in a case's buffers (draws read within them, index values point into them)."""

INPUTS: dict[str, tuple[int, tuple[str, ...]]] = {
    # modifier: (vertices the shader receives, the topologies of its class; rules 13.1, 13.2)
    "point": (1, ("POINTLIST",)),
    "line": (2, ("LINELIST", "LINESTRIP")),
    "triangle": (3, ("TRIANGLELIST", "TRIANGLESTRIP")),
    "lineadj": (4, ("LINELIST_ADJ", "LINESTRIP_ADJ")),
    "triangleadj": (6, ("TRIANGLELIST_ADJ", "TRIANGLESTRIP_ADJ")),
}

RECORDS: dict[str, tuple[tuple[str, int, int, str], ...]] = {
    # name: its outputs (semantic name, semantic index, components, HLSL type); "O" has
    # 4 + 4 + 1 = 9 scalars, so maxvertexcount may be up to 1024 // 9 = 113 (rules 13.4)
    "O": (("SV_Position", 0, 4, "float4"), ("SRC", 0, 4, "uint4"), ("TAG", 0, 1, "uint")),
    "P": (("TAG", 0, 1, "uint"), ("TEXCOORD", 3, 2, "float2")),
}
STREAM_TYPES = {"point": "PointStream", "line": "LineStream", "triangle": "TriangleStream"}


@dataclass(frozen=True)
class Shape:
    """The compile-time part of a generated geometry shader.

    Arguments:
        input (str): the input primitive (a key of :data:`INPUTS`).
        streams (tuple): each stream's type, ``"point"``, ``"line"`` or ``"triangle"``.
        max_vertex_count (int): ``[maxvertexcount(N)]``.
        instances (int): ``[instance(n)]``.
        mixed (bool): odd streams write record ``P``, even ones ``O`` (else all ``O``).
    """

    input: str
    streams: tuple[str, ...]
    max_vertex_count: int
    instances: int = 1
    mixed: bool = False

    def record(self, stream: int) -> str:
        """The name (a key of :data:`RECORDS`) of the record ``stream`` writes."""
        return "P" if self.mixed and stream % 2 else "O"


SHAPES: tuple[Shape, ...] = (
    Shape("point", ("point",), 1),
    Shape("point", ("triangle",), 4),
    Shape("line", ("line",), 4, 2),
    Shape("triangle", ("triangle",), 6),
    Shape("lineadj", ("point",), 4),
    Shape("triangleadj", ("triangle",), 8, 2),
    Shape("triangleadj", ("point", "point"), 6, 3, True),
    Shape("point", ("point",) * 4, 8, 2, True),
    Shape("lineadj", ("line",), 5, 3),
    Shape("triangle", ("point",) * 3, 7),
    Shape("line", ("point", "point"), 3, 32),
    Shape("point", ("line",), 113),  # the 1024-scalar limit: 113 * 9 scalars
    Shape("triangle", ("triangle",), 1),  # too few vertices for a triangle: nothing is output
    Shape("triangleadj", ("line",), 16),
    Shape("lineadj", ("point",) * 4, 4, 1, True),
    Shape("line", ("triangle",), 9, 4),
)
"""The shapes a run draws from, simplest first (what shrinking moves towards)."""


def _record_struct(name: str) -> str:
    fields = " ".join(f"{t} f{i} : {sem}{index or ''};"
                      for i, (sem, index, _, t) in enumerate(RECORDS[name]))
    return f"struct {name} {{ {fields} }};"


def _fill_record(name: str, var: str) -> str:
    """Statements filling record ``var``: from the chosen input vertex ``src``, the Append's
    number ``k``, SV_PrimitiveID ``pid`` and SV_GSInstanceID ``gsid``."""
    values = {"SV_Position": "src.pos + float4(k, gsid, 0, 0)", "SRC": "asuint(src.pos)",
              "TAG": "(pid << 16) | (gsid << 10) | (src.idx.x & 0xF) << 6 | k",
              "TEXCOORD": "float2(pid, k) * 0.5"}
    return " ".join(f"{var}.f{i} = {values[sem]};"
                    for i, (sem, _, _, _) in enumerate(RECORDS[name]))


def gs_source(shape: Shape) -> str:
    """The HLSL of ``shape``: the same text for the same shape, so builds are shared."""
    n = INPUTS[shape.input][0]
    records = sorted({shape.record(s) for s in range(len(shape.streams))})
    params = ", ".join(f"inout {STREAM_TYPES[t]}<{shape.record(s)}> s{s}"
                       for s, t in enumerate(shape.streams))
    appends = []
    for s in range(len(shape.streams)):
        r = shape.record(s)
        appends.append(f"if (which == {s}) {{ {r} o; {_fill_record(r, 'o')} s{s}.Append(o); }}")
    cuts = " ".join(f"s{s}.RestartStrip();" for s in range(len(shape.streams)))
    instance = f"[instance({shape.instances})]\n" if shape.instances != 1 else ""
    return "\n".join([
        "cbuffer Params : register(b0) {",
        "    uint emits;      // Appends each invocation attempts",
        "    uint spread;     // more Appends per step of SV_PrimitiveID + SV_GSInstanceID",
        "    uint cut_every;  // RestartStrip after every cut_every-th Append (0: never)",
        "    uint rotate;     // the k-th Append goes to stream (k + rotate * pid) % streams",
        "};",
        "struct V { float4 pos : POSITION; uint2 idx : BLENDINDICES; };",
        *(_record_struct(r) for r in records),
        f"[maxvertexcount({shape.max_vertex_count})]",
        instance + f"void main({shape.input} V v[{n}], uint pid : SV_PrimitiveID,",
        f"          uint gsid : SV_GSInstanceID, {params}) {{",
        "    uint count = min(emits + (pid + gsid) % 4 * spread, 40u);",
        "    for (uint k = 0; k < count; k++) {",
        f"        V src = v[(k + gsid) % {n}];",
        f"        uint which = (k + rotate * pid) % {len(shape.streams)};",
        *(f"        {a}" for a in appends),
        f"        if (cut_every != 0 && (k + 1) % cut_every == 0) {{ {cuts} }}",
        "    }",
        "}",
        "",
    ])


@functools.cache
def _ints(lo: int, hi: int):
    return st.integers(lo, hi)


def _rare(draw, one_in: int) -> bool:
    """True about once in ``one_in`` draws; shrinks to False."""
    return draw(_ints(0, one_in - 1)) == one_in - 1


_POSITION_FORMATS = ("R32G32B32A32_FLOAT", "R16G16B16A16_FLOAT", "R8G8B8A8_UNORM",
                     "R32G32_FLOAT")
_INDEX_FORMATS = (("R16_UINT", 2, 0xFFFF), ("R32_UINT", 4, U32 - 1))


@st.composite
def _draw_call(draw) -> dict:
    indexed = draw(st.booleans())
    count, instances = draw(_ints(0, 16)), draw(_ints(1, 3)) if not _rare(draw, 8) else 0
    start, start_instance = draw(_ints(0, 6)), draw(_ints(0, 2))
    if indexed:
        return {"DrawIndexedInstanced": {
            "IndexCountPerInstance": count, "InstanceCount": instances,
            "StartIndexLocation": start, "BaseVertexLocation": draw(_ints(-2, 2)),
            "StartInstanceLocation": start_instance}}
    return {"DrawInstanced": {"VertexCountPerInstance": count, "InstanceCount": instances,
                              "StartVertexLocation": start,
                              "StartInstanceLocation": start_instance}}


def _data(dtype: str, values: list) -> dict:
    return {"dtype": dtype, "values": values}


@st.composite
def _inputs(draw, topology: str, draws: list[dict]) -> dict:
    """The layout, vertex buffers and (when a draw is indexed or now and then anyway) the index
    buffer and strip cut value."""
    fmt = draw(st.sampled_from(_POSITION_FORMATS))
    per_instance = _rare(draw, 3)
    positions = draw(st.lists(_ints(-8, 8), min_size=4 * ROWS, max_size=4 * ROWS))
    codes = draw(st.lists(_ints(0, 255), min_size=4 * ROWS, max_size=4 * ROWS))
    size = {"R32G32B32A32_FLOAT": 16, "R16G16B16A16_FLOAT": 8, "R8G8B8A8_UNORM": 4,
            "R32G32_FLOAT": 8}[fmt]
    doc: dict = {
        "input_layout": [
            {"SemanticName": "POSITION", "Format": fmt},
            {"SemanticName": "BLENDINDICES", "Format": "R8G8B8A8_UINT", "InputSlot": 1,
             **({"InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}
                if per_instance else {})}],
        "vertex_buffers": [
            {"slot": 0, "stride": size, "data": _position_data(fmt, positions)},
            {"slot": 1, "stride": 4, "data": _data("uint8", codes)}],
        "primitive_topology": topology,
    }
    indexed = any("DrawIndexedInstanced" in d for d in draws)
    cut = draw(_ints(0, 2)) if "STRIP" in topology else 0
    fmt_i, isize, cut_value = _INDEX_FORMATS[draw(_ints(0, 1))]
    values = draw(st.lists(_ints(0, ROWS + 2), min_size=24, max_size=24))
    if cut:
        doc["strip_cut_value"] = "0xFFFF" if isize == 2 else "0xFFFFFFFF"
        values = [cut_value if v >= ROWS else v for v in values]  # a cut now and then
    if indexed:
        doc["index_buffer"] = {"format": fmt_i, "data": _data(
            "uint16" if isize == 2 else "uint32", [v % (1 << 8 * isize) for v in values])}
    return doc


def _position_data(fmt: str, values: list[int]) -> dict:
    """Small integers as the format stores them (exact in every one of them)."""
    if fmt == "R8G8B8A8_UNORM":
        return _data("uint8", [v & 0xFF for v in values])
    if fmt == "R32G32_FLOAT":
        return _data("float32", [float(v) for v in values[: 2 * ROWS]])
    return _data("float32" if fmt == "R32G32B32A32_FLOAT" else "<f2", [float(v) for v in values])


@st.composite
def so_declaration(draw, shape: Shape) -> dict:
    """A ``stream_output`` section for ``shape``'s streams: each of slots 0-3 fed by one stream
    or none (rules 8.9), entries naming outputs of their slot's stream (rules 8.3, 13.7) without
    overlapping components, gaps, strides with room to spare, ``rasterized_stream``, targets."""
    streams = len(shape.streams)
    owners = [draw(_ints(-1, streams - 1)) if s else draw(_ints(0, streams - 1))
              for s in range(4)]
    entries: list[dict] = []
    declared: dict[int, int] = {}
    used: set[tuple[int, str, int]] = set()
    for slot, owner in enumerate(owners):
        picks = [(draw(_ints(0, 7)), draw(_ints(0, 3)), draw(_ints(0, 3))) for _ in range(3)]
        if owner < 0:
            continue
        record = RECORDS[shape.record(owner)]
        comps = 0
        for n, (which, start_raw, count_raw) in enumerate(picks):
            if n and which >= 6:
                continue  # fewer entries
            if which == 5 and n:
                entries.append({"Stream": owner, "SemanticName": None, "ComponentCount":
                                1 + start_raw, "OutputSlot": slot})
                comps += 1 + start_raw
                continue
            sem, index, size, _ = record[which % len(record)]
            start = start_raw % size
            count = 1 + count_raw % (size - start)
            wanted = {(owner, sem, c) for c in range(start, start + count)}
            if wanted & used:
                continue  # overlapping components of one output are refused (rules 8.6)
            used |= wanted
            entries.append({"Stream": owner, "SemanticName": sem, "SemanticIndex": index,
                            "StartComponent": start, "ComponentCount": count,
                            "OutputSlot": slot})
            comps += count
        if any(e["OutputSlot"] == slot and e["SemanticName"] for e in entries):
            declared[slot] = 4 * comps
        else:  # a slot fed by gaps alone is refused (rules 8.7): drop them
            entries = [e for e in entries if e["OutputSlot"] != slot]
    strides = [declared.get(s, 0) + (4 * draw(_ints(0, 2)) if s in declared else 0)
               for s in range(4)]
    raster = draw(st.sampled_from((0, 1, 2, 3, "NO_RASTERIZED_STREAM")))
    targets = []
    for s in range(4):
        # Room for 24 records shrinks to none: small targets overflow (rules 9.7, 13.8).
        rows = 24 - draw(_ints(0, 24)) if _rare(draw, 2) else 24
        size = max(strides[s], 4) * rows + (draw(_ints(1, 3)) if _rare(draw, 8) else 0)
        filled = 4 * draw(_ints(0, size // 4)) if _rare(draw, 5) else None
        if s not in declared and not _rare(draw, 6):
            continue
        target: dict = {"slot": s, "size": size}
        if filled is not None:
            target["filled_size"] = filled
        targets.append(target)
    return {"declaration": entries, "buffer_strides": strides, "rasterized_stream": raster,
            "targets": targets}


@st.composite
def gs_cases(draw) -> dict:
    """A valid case dict with a geometry shader (without ``name``; see the module docstring)."""
    shape = SHAPES[draw(_ints(0, len(SHAPES) - 1))]
    topology = draw(st.sampled_from(INPUTS[shape.input][1]))
    draws = [draw(_draw_call())]
    if _rare(draw, 3):
        draws.append(draw(_draw_call()))  # Stream Output appends across draws
    doc: dict = {"gpuia_case": 1, **draw(_inputs(topology, draws))}
    doc["draw"] = draws if len(draws) > 1 else draws[0]
    doc["geometry_shader"] = {"hlsl": gs_source(shape)}
    params = [draw(_ints(0, 6)), draw(_ints(0, 3)), draw(_ints(0, 4)), draw(_ints(0, 3))]
    doc["constant_buffers"] = [{"slot": 0, "data": _data("uint32", params)}]
    doc["stream_output"] = draw(so_declaration(shape))
    return doc
