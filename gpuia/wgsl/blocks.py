"""The blocks gpuia's host and its shaders share, one table each.

Every field of a uniform block or a record is one row: its WGSL name, its word offset (u32 words
from the block's start), its WGSL type and what it holds. From a table come the WGSL struct text
every program that uses the block declares (:meth:`Block.wgsl`), the block's size
(:meth:`Block.words`) and the word offsets the host writes and reads (:meth:`Block.word`): each
host module reads the offsets it needs once, into module-level constants, so that its hot path
indexes a block with a plain int.

Guaranteed when this module is imported (else it raises :class:`RuntimeError`): each row's word
is the offset WGSL gives the member in the block's address space, every word of the block is one
row's (padding is a row of its own: the host never leaves a word unnamed), rows are in word
order, and in the uniform address space every array and nested struct starts on a 16-byte
boundary with a 16-byte stride, as WGSL requires. A type the layout rules here do not know is
refused the same way, so no table can hand out an offset WGSL would not use.

The tables, in :data:`BLOCKS`: the per-draw block (:data:`DRAW_BLOCK`, with :data:`DRAW_SLOT`
per pulled slot), the Stream Output block (:data:`SO_BLOCK`, :data:`SO_SLOT`) and the SO state
the prepare step leaves (:data:`SO_STATE`), the index pass's parameters and the arguments it
leaves (:data:`INDEX_PARAMS`, :data:`INDEX_ARGS`), the capture record (:data:`CAPTURE_RECORD`),
DrawAuto's block (:data:`DRAW_AUTO`), the raster probe's parameters and fragment record
(:data:`RASTER_PARAMS`, :data:`RASTER_RECORD`), a geometry shader's compute program's
parameters and per-invocation region (:data:`GS_PARAMS`, :data:`GS_REGION`, with the program's
other bindings in GS_PARAMS's ``about``), and the geometry shader's expansion into Stream Output
(:data:`GS_SO_PARAMS` with :data:`GS_SO_SLOT` per slot, its state :data:`GS_SO_STATE`). A block
whose last field is an array of ``N`` entries (``array<GpuiaSlot, N>``) takes ``N`` per program:
:meth:`Block.wgsl` and :meth:`Block.words` take it as ``count``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple, NoReturn

__all__ = ["Field", "Block", "BLOCKS", "DRAW_SLOT", "DRAW_BLOCK", "SO_SLOT", "SO_BLOCK",
           "SO_STATE", "INDEX_PARAMS", "INDEX_ARGS", "CAPTURE_RECORD", "DRAW_AUTO",
           "RASTER_PARAMS", "RASTER_RECORD", "GS_PARAMS", "GS_REGION", "GS_SO_SLOT",
           "GS_SO_PARAMS", "GS_SO_STATE", "SO_STATS", "CAPTURE_ERRORS", "WORD_TABLES"]


class Field(NamedTuple):
    """One field of a block: its WGSL member ``name``, its ``word`` offset from the block's
    start, its ``wgsl_type`` (an array of ``N`` entries takes its count per program) and its
    ``meaning``: what gpuia writes there, or what the shader leaves there for the host."""

    name: str
    word: int
    wgsl_type: str
    meaning: str


_VEC = re.compile(r"vec([234])<(?:u32|i32|f32)>")
_ARRAY = re.compile(r"array<\s*(.+?)\s*,\s*(\d+|N)\s*>")


@dataclass(frozen=True)
class Block:
    """One block's table (see the module doc).

    Arguments:
        struct (str): the WGSL struct's name.
        space (str): the address space WGSL lays it out in: ``"uniform"`` or ``"storage"``.
        fields (tuple of Field): the rows, in word order.
        about (str): where the block is bound, and who writes and reads it.
        nested (tuple of Block): the structs its fields use, declared before it.
    """

    struct: str
    space: str
    fields: tuple[Field, ...]
    about: str
    nested: tuple[Block, ...] = ()

    def __post_init__(self):
        self._layout(1)  # raises on a table WGSL would lay out otherwise

    def word(self, name: str) -> int:
        """The word offset of field ``name``; :class:`KeyError` for a name the table lacks."""
        for f in self.fields:
            if f.name == name:
                return f.word
        raise KeyError(f"{self.struct} has no field {name!r}")

    def words(self, count: int = 0) -> int:
        """The block's size in u32 words, its ``N``-entry array (if any) holding ``count``."""
        return self._layout(count) // 4

    def wgsl(self, count: int = 0) -> str:
        """The WGSL declarations of the block: its nested structs', then its own, one member a
        line with its word; an ``N``-entry array holds ``count`` entries and is left out when
        ``count`` is 0 (WGSL has no empty fixed-size array)."""
        out = [n.wgsl() for n in self.nested]
        members = [f"  {f.name}: {self._type(f, count)},  // word {f.word}"
                   for f in self.fields if self._count(f, count) != 0]
        out.append("\n".join([f"struct {self.struct} {{", *members, "}"]))
        return "\n".join(out)

    # -- layout --------------------------------------------------------------------------------
    @staticmethod
    def _count(f: Field, count: int) -> int | None:
        """``count`` for the ``N``-entry array field, else None."""
        m = _ARRAY.fullmatch(f.wgsl_type)
        return count if m is not None and m.group(2) == "N" else None

    @staticmethod
    def _type(f: Field, count: int) -> str:
        m = _ARRAY.fullmatch(f.wgsl_type)
        if m is None or m.group(2) != "N":
            return f.wgsl_type
        return f"array<{m.group(1)}, {count}>"

    def _fail(self, what: str) -> NoReturn:
        raise RuntimeError(f"block {self.struct}: {what}")

    def _align_size(self, wgsl_type: str, count: int) -> tuple[int, int]:
        """(alignment, size) in bytes of ``wgsl_type`` by WGSL's layout rules."""
        if wgsl_type in ("u32", "i32", "f32"):
            return 4, 4
        m = _VEC.fullmatch(wgsl_type)
        if m is not None:
            n = int(m.group(1))
            return (8 if n == 2 else 16), 4 * n
        m = _ARRAY.fullmatch(wgsl_type)
        if m is not None:
            align, size = self._align_size(m.group(1), count)
            stride = -(-size // align) * align
            if self.space == "uniform" and stride % 16:
                self._fail(f"{wgsl_type}: a uniform array's stride must be a multiple of 16")
            return align, stride * (count if m.group(2) == "N" else int(m.group(2)))
        for inner in self.nested:
            if inner.struct == wgsl_type:
                return (max(inner._align_size(f.wgsl_type, count)[0] for f in inner.fields),
                        inner._layout(count))
        return self._fail(f"type {wgsl_type} is none the layout rules here know")

    def _layout(self, count: int) -> int:
        """The block's size in bytes; checks every row against WGSL's layout (module doc)."""
        end, align = 0, 4
        for i, f in enumerate(self.fields):
            n = self._count(f, count)
            if n is not None and i != len(self.fields) - 1:
                self._fail(f"{f.name}: only the last field may hold N entries")
            if n == 0:
                continue
            a, size = self._align_size(f.wgsl_type, count)
            nested = _ARRAY.fullmatch(f.wgsl_type) or any(s.struct == f.wgsl_type
                                                          for s in self.nested)
            if self.space == "uniform" and nested:
                a = max(a, 16)  # arrays and structs in a uniform block start on 16 bytes
            offset = -(-end // a) * a
            if offset != end:
                self._fail(f"{f.name}: words {end // 4}-{offset // 4 - 1} are padding no row "
                           f"names")
            if f.word * 4 != offset:
                self._fail(f"{f.name}: the table says word {f.word}, WGSL puts it at word "
                           f"{offset // 4}")
            end, align = offset + size, max(align, a)
        if -(-end // align) * align != end:
            self._fail(f"its last {(-(-end // align) * align - end) // 4} word(s) are padding "
                       f"no row names")
        return end


# -- the per-draw block ------------------------------------------------------------------------
DRAW_SLOT = Block("GpuiaSlot", "uniform", (
    Field("base", 0, "u32", "the byte address of the slot's view (BufferLocation) in the "
                            "storage buffer bound for the slot"),
    Field("stride", 1, "u32", "the view's StrideInBytes"),
    Field("size", 2, "u32", "the view's SizeInBytes: an element not wholly inside it reads 0 "
                            "(rules 6.1, 6.3)"),
    Field("bound", 3, "u32", "1 when a view is bound to the slot; 0 when none is, and every "
                             "element of the slot reads (0, 0, 0, 0) (rules 6.2)"),
), "one entry of the per-draw block per pulled slot, in ascending D3D slot order")

DRAW_BLOCK = Block("GpuiaDraw", "uniform", (
    Field("vertex_base", 0, "u32", "BaseVertexLocation of an indexed draw, StartVertexLocation "
                                   "of a non-indexed one: SV_VertexID is the vertex index minus "
                                   "it (rules 4.5)"),
    Field("first_instance", 1, "u32", "StartInstanceLocation: SV_InstanceID is the instance "
                                      "index minus it (rules 4.6); per-instance data at step "
                                      "rate 0 or above 1 is fetched from it (rules 4.3)"),
    Field("capture_base", 2, "u32", "captures only: the draw's first capture record, minus the "
                                    "first record of the window being captured (wrapping u32)"),
    Field("key_offset", 3, "u32", "captures only: where the draw's sorted fetch indices start "
                                  "in gpuia_keys (a draw whose indices are one run, "
                                  "key_contiguous, has none there)"),
    Field("key_count", 4, "u32", "captures only: how many fetch indices the draw has"),
    Field("key_contiguous", 5, "u32", "captures only: 1 when the fetch indices are one run from "
                                      "key_first"),
    Field("key_first", 6, "u32", "captures only: the first of the draw's fetch indices"),
    Field("pad0", 7, "u32", "the render-target capture route only: the capture texture's "
                            "height"),
    Field("vertex_shift", 8, "u32", "the part of a non-indexed draw's StartVertexLocation the "
                                    "adapter could not take, added to the vertex index in the "
                                    "vertex stage (0 elsewhere)"),
    Field("pad1", 9, "u32", "padding"),
    Field("pad2", 10, "u32", "padding"),
    Field("pad3", 11, "u32", "padding"),
    Field("slots", 12, "array<GpuiaSlot, N>", "one GpuiaSlot per pulled slot (at least one: "
                                              "WGSL has no empty array)"),
), "gpuia_draw, @group(0) @binding(0) of every vertex program that reads it and of the Stream "
   "Output pass; the recorder fills one per draw in a ring of uniform blocks (dynamic offsets)",
    (DRAW_SLOT,))

# -- Stream Output -----------------------------------------------------------------------------
SO_SLOT = Block("GpuiaSOSlot", "uniform", (
    Field("location", 0, "u32", "BufferLocation: the target's byte offset in its binding"),
    Field("size", 1, "u32", "SizeInBytes of the target"),
    Field("counter", 2, "u32", "the byte offset of its BufferFilledSize counter in the counter's "
                               "binding"),
    Field("filled", 3, "u32", "the fused pass only: BufferFilledSize before the draw"),
), "one entry of the Stream Output block per SO slot 0-3")

SO_BLOCK = Block("GpuiaSO", "uniform", (
    Field("instance_count", 0, "u32", "InstanceCount"),
    Field("prims_per_instance", 1, "u32", "complete primitives per instance (in the list order "
                                          "copied from the index pass's args on the GPU)"),
    Field("needed", 2, "u32", "primitives the draw needs: per instance times InstanceCount (in "
                              "the list order copied from the index pass's args)"),
    Field("start_index", 3, "u32", "StartIndexLocation of an indexed draw"),
    Field("ib_base", 4, "u32", "the index view's byte offset in its binding"),
    Field("ib_size", 5, "u32", "the index view's SizeInBytes"),
    Field("t_base", 6, "u32", "the first output vertex this dispatch covers (a chunk)"),
    Field("t_end", 7, "u32", "the output vertex the chunk ends before; 0: no bound"),
    Field("slots", 8, "array<GpuiaSOSlot, 4>", "one GpuiaSOSlot per SO slot 0-3"),
    Field("fused", 24, "vec4<u32>", "the fused pass only: primitives written, the overflow flag "
                                    "after the draw, two unused"),
    Field("stats", 28, "vec4<u32>", "the fused pass only: the statistics after the draw (lo, hi "
                                    "of NumPrimitivesWritten, then of PrimitivesStorageNeeded)"),
), "gpuia_so, @group(0) @binding(1) of the Stream Output pass; the SO engine fills one per draw "
   "(and one per chunk) in the recorder's ring", (SO_SLOT,))

SO_STATE = Block("GpuiaSOState", "uniform", (
    Field("written", 0, "u32", "primitives the last draw wrote"),
    Field("overflowed", 1, "u32", "1 once a primitive did not fit, until the targets are set "
                                  "again"),
    Field("pad0", 2, "u32", "padding"),
    Field("pad1", 3, "u32", "padding"),
    Field("base", 4, "array<vec4<u32>, 1>", "BufferFilledSize of SO slots 0-3 before the last "
                                            "draw"),
), "the SO state buffer: gpuia_so_state (storage, @group(0) @binding(2): the prepare step and "
   "the fused pass write it word by word) and gpuia_so_state_u (this struct, uniform, "
   "@binding(5): the main pass reads it); the host clears it and writes it for a chunked draw")

# -- the index pass ----------------------------------------------------------------------------
INDEX_PARAMS = Block("GpuiaIndexParams", "uniform", (
    Field("count", 0, "u32", "positions per instance (IndexCountPerInstance)"),
    Field("start", 1, "u32", "StartIndexLocation"),
    Field("ib_base", 2, "u32", "the byte of the view's index 0 in the bound window (wrapping)"),
    Field("held", 3, "u32", "indices the view holds: SizeInBytes / index size"),
    Field("instance_count", 4, "u32", "InstanceCount (0 for a draw that delivers nothing)"),
    Field("base_vertex", 5, "u32", "BaseVertexLocation's bits (StartVertexLocation "
                                   "non-indexed): the baseVertex of the draw args"),
    Field("first_instance", 6, "u32", "StartInstanceLocation"),
    Field("items_per_group", 7, "u32", "the dispatch args' consumer: items per workgroup (0: "
                                       "none)"),
    Field("max_groups", 8, "u32", "max-compute-workgroups-per-dimension"),
    Field("level", 9, "u32", "the scan level this dispatch works on"),
    Field("scan", 10, "u32", "0: the cut scan, 1: the primitive scan"),
    Field("pad", 11, "u32", "padding"),
    Field("level_offset", 12, "vec4<u32>", "first entry of totals levels 1-3 in the totals "
                                           "buffer (entry 0 unused)"),
    Field("level_length", 16, "vec4<u32>", "entries of levels 0-3 (level 0: the positions)"),
), "gpuia_ix, @group(0) @binding(0) of the index pass (dynamic offset): one record per level "
   "and scan of a pass, written by gpuia.gpu.ia.index_pass")

INDEX_ARGS = Block("GpuiaIndexArgs", "storage", (
    Field("list", 0, "array<u32, 5>", "drawIndexedIndirect arguments of the list stream "
                                      "(indexCount, instanceCount, firstIndex, baseVertex, "
                                      "firstInstance)"),
    Field("kept", 5, "array<u32, 5>", "drawIndexedIndirect arguments of the kept stream"),
    Field("primitives", 10, "u32", "complete primitives per instance"),
    Field("needed", 11, "array<u32, 2>", "primitives per instance times InstanceCount, a 64-bit "
                                         "count (lo, hi)"),
    Field("dispatch", 13, "array<u32, 3>", "dispatchWorkgroupsIndirect arguments (x, y, 1) "
                                           "covering every vertex of every primitive of every "
                                           "instance at items_per_group per workgroup (x "
                                           "first, at most max_groups; all 0 when "
                                           "items_per_group is 0)"),
    Field("sums", 16, "array<u32, 4>", "the grand totals of the pass's two scans, (x, y) each: "
                                       "cuts and the last run's start, then primitives and 0"),
), "gpuia_ix_args, @group(0) @binding(6) of the index pass (storage, and the indirect buffer "
   "of the draws and of Stream Output's main dispatch); read back only where the host sizes "
   "chunks")

# -- the capture record ------------------------------------------------------------------------
CAPTURE_RECORD = Block("GpuiaRecord", "storage", (
    Field("flag", 0, "u32", "1: the vertex shader invocation wrote the record (0: none did)"),
    Field("vertex_id", 1, "u32", "SV_VertexID"),
    Field("instance_id", 2, "u32", "SV_InstanceID"),
    Field("elements", 3, "array<u32, N>", "each input element's four 32-bit words as the shader "
                                          "received them, element k at words 4k-4k+3"),
), "gpuia_capture, array<GpuiaRecord> at @group(0) @binding(1) of a storage-route capture "
   "program, N = 4 words per element; the targets route renders the same words (flag, "
   "SV_VertexID, SV_InstanceID and the vertex index as its first vec4) and the host drops the "
   "fourth")

# -- DrawAuto ----------------------------------------------------------------------------------
DRAW_AUTO = Block("GpuiaAuto", "uniform", (
    Field("counter_word", 0, "u32", "the BufferFilledSize counter's word in its buffer"),
    Field("location", 1, "u32", "BufferLocation of the SO view the counter belongs to"),
    Field("ia_offset", 2, "u32", "IA slot 0's view offset"),
    Field("stride", 3, "u32", "IA slot 0's StrideInBytes"),
), "gpuia_auto, @group(0) @binding(2) of DrawAuto's compute step (shaders/draw_auto.wgsl)")

# -- the raster probe --------------------------------------------------------------------------
RASTER_PARAMS = Block("GpuiaRasterParams", "uniform", (
    Field("sub_vertex", 0, "u32", "subtracted from the vertex index for SV_VertexID: "
                                  "BaseVertexLocation (indexed), else StartVertexLocation less "
                                  "the part the adapter could not take"),
    Field("sub_instance", 1, "u32", "StartInstanceLocation, subtracted from the instance index "
                                    "for SV_InstanceID"),
    Field("capacity", 2, "u32", "the records the draw's record buffer holds: a fragment past "
                                "them is counted, not written"),
    Field("pad", 3, "u32", "padding"),
), "params, @group(0) @binding(0) of the raster probe (gpuia.gpu.raster.probe), one per draw")

RASTER_RECORD = Block("GpuiaRasterRecord", "storage", (
    Field("pixel", 0, "u32", "the fragment's pixel, y * size + x, with bit 31 set when its "
                             "primitive faces front"),
    Field("key", 1, "u32", "the flat key of the primitive's provoking vertex"),
), "records, array<GpuiaRasterRecord> at @group(0) @binding(1) of the raster probe: one per "
   "fragment, in the order the fragments ran; the count of fragments is the first word at "
   "@binding(2)")

# -- the geometry shader ------------------------------------------------------------------------
GS_PARAMS = Block("GpuiaGsParams", "uniform", (
    Field("first", 0, "u32", "the dispatch's first invocation: invocation i is GS instance i % "
                             "instances of primitive i / instances (rules 13.3)"),
    Field("count", 1, "u32", "the invocations the dispatch runs (threads past it return)"),
    Field("instances", 2, "u32", "the shader's [instance(n)] (1 without the attribute)"),
    Field("vertex_words", 3, "u32", "words per input vertex record in gpuia_gs_vertices"),
    Field("region_words", 4, "u32", "words per invocation region in gpuia_gs_out: 1 + N * (1 + "
                                    "R), N = maxvertexcount, R = the largest stream record's "
                                    "words"),
    Field("pad0", 5, "u32", "padding"),
    Field("pad1", 6, "u32", "padding"),
    Field("pad2", 7, "u32", "padding"),
), "gpuia_gs_params, @group(0) @binding(0) of a geometry shader's compute program "
   "(gpuia.hlsl.geometry); beside it gpuia_gs_vertices (@binding(1), storage read, "
   "array<u32>: one record of vertex_words words per vertex shader output vertex, members in "
   "the input struct's declaration order, one word per component), gpuia_gs_prims "
   "(@binding(2), storage read, array<u32>: per primitive its k input vertex indices, then its "
   "SV_PrimitiveID), gpuia_gs_out (@binding(3), storage read_write, array<u32>: a GpuiaGsRegion "
   "per invocation of the dispatch) and the shader's cbuffers at @group(1) @binding(register)")

GS_REGION = Block("GpuiaGsRegion", "storage", (
    Field("kept", 0, "u32", "the Appends that took effect: at most N = maxvertexcount, all "
                            "streams together; after the N-th the shader's further calls have "
                            "no effect (rules 13.4)"),
    Field("entries", 1, "array<u32, N>", "per kept Append, in order, 1 + R words: a header "
                                         "(bits 0-1: the stream; bit 2: this vertex starts a "
                                         "new strip of its stream, being its first Append of "
                                         "the invocation or the first after a RestartStrip of "
                                         "the stream) and the stream's record (members in "
                                         "declaration order, one word per component, "
                                         "zero-padded to R words); the words after the kept "
                                         "entries are 0"),
), "one invocation's region of gpuia_gs_out (N entries of 1 + R words: the program cleared it "
   "first), and of the array the CPU reference's run returns (gpuia.hlsl.geometry_cpu), the "
   "same format on both sides")

SO_STATS = Block("GpuiaSOStats", "storage", (
    Field("written_lo", 0, "u32", "NumPrimitivesWritten, low 32 bits (rules 10.1)"),
    Field("written_hi", 1, "u32", "NumPrimitivesWritten, high 32 bits"),
    Field("needed_lo", 2, "u32", "PrimitivesStorageNeeded, low 32 bits (rules 10.2)"),
    Field("needed_hi", 3, "u32", "PrimitivesStorageNeeded, high 32 bits"),
), "gpuia_so_stats, an array<u32> at @group(0) @binding(3) of the Stream Output pass: the "
   "prepare step and the fused pass write it, the host reads it back (and writes it for a "
   "chunked draw); the same four words as the SO block's stats field")

CAPTURE_ERRORS = Block("GpuiaCaptureErrors", "storage", (
    Field("unexpected", 0, "u32", "vertices a storage-route capture shaded that have no record "
                                  "(D3D would not fetch them): counted, not kept"),
    Field("max_vertex_index", 1, "u32", "the largest vertex index among them"),
), "gpuia_errors, an array<atomic<u32>> at @group(0) @binding(3) of a storage-route capture "
   "program, read back with its records")

BLOCKS: tuple[Block, ...] = (
    DRAW_BLOCK, SO_BLOCK, SO_STATE, INDEX_PARAMS, INDEX_ARGS, CAPTURE_RECORD, DRAW_AUTO,
    RASTER_PARAMS, RASTER_RECORD, GS_PARAMS,
)
"""Every top-level block a program declares as a WGSL struct (nested ones are reached through
:attr:`Block.nested`): the tests check each against the programs that declare it.
:data:`GS_REGION` is not one: it lays out words of a flat ``array<u32>``, which no program
declares as a struct."""

# -- the geometry shader's expansion and Stream Output -----------------------------------------
GS_SO_SLOT = Block("GpuiaGSSOSlot", "uniform", (
    Field("declared", 0, "u32", "1 when the declaration writes the slot"),
    Field("bound", 1, "u32", "1 when a target is bound to it (a declared slot without one is "
                             "full: rules 9.8)"),
    Field("stream", 2, "u32", "the stream whose primitives the slot takes"),
    Field("stride", 3, "u32", "the slot's stride in bytes"),
    Field("location", 4, "u32", "BufferLocation: the target's byte offset in its data binding"),
    Field("size", 5, "u32", "SizeInBytes of the target"),
    Field("data", 6, "u32", "the target's data binding, 0-3"),
    Field("counter", 7, "u32", "its BufferFilledSize counter's binding, 0-3"),
    Field("counter_word", 8, "u32", "the counter's word in that binding"),
    Field("entry_first", 9, "u32", "the slot's first row in the entries table"),
    Field("entry_count", 10, "u32", "its rows there (its entries that are no gap)"),
    Field("rotate", 11, "u32", "1: each primitive's vertices stored rotated left by one (D3D's "
                               "first vertex last), for an adapter that takes a primitive's "
                               "last vertex as the provoking one"),
), "one entry of the GS Stream Output block per SO slot 0-3")

GS_SO_PARAMS = Block("GpuiaGSSO", "uniform", (
    Field("first", 0, "u32", "the chunk's first invocation (its region in the regions buffer)"),
    Field("invocations", 1, "u32", "the chunk's invocations"),
    Field("region_words", 2, "u32", "words of one invocation's region: 1 + N * (1 + R)"),
    Field("max_appends", 3, "u32", "N, maxvertexcount: a region's count is clamped to it"),
    Field("record_words", 4, "u32", "R, words of the largest stream record"),
    Field("level", 5, "u32", "the scan level this dispatch works on"),
    Field("top", 6, "u32", "the scan's top level (one workgroup's block)"),
    Field("total_at", 7, "u32", "the entry of the scan buffer that receives the chunk's totals"),
    Field("vertices", 8, "vec4<u32>", "vertices of a primitive of each stream 0-3: 1, 2 or 3; "
                                      "0 for a stream absent or writing no slot (it counts "
                                      "nothing)"),
    Field("level_offset", 12, "vec4<u32>", "first entry of scan levels 0-3 in the scan buffer"),
    Field("level_length", 16, "vec4<u32>", "entries of scan levels 0-3 (level 0: the "
                                           "invocations)"),
    Field("data_base", 20, "vec4<u32>", "per data binding 0-3, the word of its buffer its bound "
                                        "window starts at (0: the whole buffer is bound)"),
    Field("slots", 24, "array<GpuiaGSSOSlot, 4>", "one GpuiaGSSOSlot per SO slot 0-3"),
), "gpuia_gs, @group(0) @binding(0) of every GS expansion program (dynamic offset): one record "
   "per chunk and scan level, written by gpuia.gpu.gs.expansion", (GS_SO_SLOT,))

GS_SO_STATE = Block("GpuiaGSSOState", "storage", (
    Field("written", 0, "vec4<u32>", "per stream, the primitives the last chunk wrote"),
    Field("overflowed", 4, "vec4<u32>", "per stream, 1 once a primitive did not fit, until the "
                                        "targets are set again (rules 9.7, 13.8)"),
    Field("filled", 8, "vec4<u32>", "per SO slot, BufferFilledSize before the last chunk"),
    Field("stats", 12, "array<vec4<u32>, 4>", "per stream, NumPrimitivesWritten (lo, hi) then "
                                              "PrimitivesStorageNeeded (lo, hi), rules 10.1"),
), "gpuia_gs_state, @group(0) @binding(3) of the GS expansion's fit step (read-write) and "
   "write pass (read-only); one per GSStreamOutput, cleared by the host, read back for the "
   "statistics")

BLOCKS += (GS_SO_PARAMS, GS_SO_STATE)

WORD_TABLES: tuple[Block, ...] = (GS_REGION, SO_STATS, CAPTURE_ERRORS)
"""The tables of words that programs index in a flat ``array<u32>`` (or of atomics) instead of
declaring a struct: their offsets still come from the table, on the host and as the programs'
placeholders."""
