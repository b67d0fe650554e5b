"""The host<->shader blocks (gpuia.wgsl.blocks): each table is laid out as WGSL lays out its
struct, its struct text is what every program that uses the block declares, and the host's
sizes are the table's. Needs no adapter (tests/gpu/test_wgsl_golden_gpu.py compiles the
programs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuia.d3d.layout import InputLayout
from gpuia.d3d.so_declaration import resolve_stream_output
from gpuia.d3d.so_desc import StreamOutputDesc
from gpuia.d3d.topology import topology_info
from gpuia.gpu.vertex.pipelines import draw_block_bytes
from gpuia.wgsl.blocks import (
    BLOCKS,
    CAPTURE_RECORD,
    DRAW_AUTO,
    DRAW_BLOCK,
    DRAW_SLOT,
    INDEX_ARGS,
    INDEX_PARAMS,
    RASTER_PARAMS,
    RASTER_RECORD,
    SO_BLOCK,
    SO_STATE,
    WORD_TABLES,
    Block,
    Field,
)
from gpuia.wgsl.capture import CAPTURE_HEADER_WORDS, record_words
from gpuia.wgsl.draw_block import DRAW_HEADER_WORDS, SLOT_WORDS
from gpuia.wgsl.gs_expansion import PROGRAMS as GS_PROGRAMS
from gpuia.wgsl.gs_expansion import gs_program
from gpuia.wgsl.index_pass import (
    ARGS_DISPATCH,
    ARGS_KEPT,
    ARGS_LIST,
    ARGS_NEEDED,
    ARGS_PRIMITIVES,
    ARGS_SUMS,
    ARGS_WORDS,
    PARAMS_WORDS,
    IndexPassSpec,
    IndexSource,
    index_pass_program,
)
from gpuia.wgsl.program import ProgramSpec, vertex_program
from gpuia.wgsl.raster import raster_probe_program
from gpuia.wgsl.signature import parse_vertex_shader, pass_through_signature
from gpuia.wgsl.so_pass import (
    SO_BLOCK_WORDS,
    SO_HEADER_WORDS,
    SO_SLOT_WORDS,
    SO_STATE_WORDS,
    SOProgramSpec,
    draw_auto_program,
    so_program,
)

_LAYOUT = InputLayout([
    {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT", "InputSlot": 0},
    {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "InputSlot": 1},
])
_SO_VS = """
struct VSIn { POSITION: vec3<f32> }
struct VSOut { SV_Position: vec4<f32> }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = vec4<f32>(input.POSITION, 1.0);
  return o;
}
"""


def _pulling(capture=False) -> str:
    return vertex_program(ProgramSpec(_LAYOUT, pass_through_signature(_LAYOUT), False,
                                      ((0, 0), (1, 1)), capture))


def _so() -> str:
    layout = InputLayout([{"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"}])
    sig = parse_vertex_shader(_SO_VS)
    so = resolve_stream_output(StreamOutputDesc(
        [{"SemanticName": "SV_Position", "ComponentCount": 4}], (16,)), sig)
    return so_program(SOProgramSpec(layout, sig, so, topology_info("TRIANGLELIST"), ((0, 0),),
                                    ((0, 1),), 2, "direct", 0))


def _index_pass() -> str:
    return index_pass_program(IndexPassSpec(topology_info("TRIANGLESTRIP"), IndexSource.UINT16,
                                            0xFFFF))


def _geometry() -> str:  # an HLSL geometry shader's compute program (needs Slang's compiler)
    from gpuia.hlsl import compile_geometry_shader

    return compile_geometry_shader("""
struct V { float4 p : SV_Position; };
[maxvertexcount(1)]
void main(point V v[1], inout PointStream<V> s) { s.Append(v[0]); }
""").wgsl


# Each block: the programs that declare it, each with the count of its array of N entries
# there. A new block adds a row; test_every_block_is_checked_in_a_program fails until it does.
DECLARED = {
    "GpuiaDraw": lambda: [(_pulling(), 2), (_pulling(capture=True), 2), (_so(), 1)],
    "GpuiaSO": lambda: [(_so(), 0)],
    "GpuiaSOState": lambda: [(_so(), 0)],
    "GpuiaIndexParams": lambda: [(_index_pass(), 0)],
    "GpuiaIndexArgs": lambda: [(_index_pass(), 0)],
    "GpuiaRecord": lambda: [(_pulling(capture=True), 4 * len(_LAYOUT.elements))],
    "GpuiaAuto": lambda: [(draw_auto_program(), 0)],
    "GpuiaRasterParams": lambda: [(raster_probe_program(64, 1, 256), 0)],
    "GpuiaRasterRecord": lambda: [(raster_probe_program(64, 1, 256), 0)],
    "GpuiaGsParams": lambda: [(_geometry(), 0)],
    "GpuiaGSSO": lambda: [(gs_program(name), 0) for name in GS_PROGRAMS],
    "GpuiaGSSOState": lambda: [(gs_program("fit"), 0), (gs_program("write"), 0)],
}


def test_every_block_is_checked_in_a_program():
    assert sorted(b.struct for b in BLOCKS) == sorted(DECLARED)


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.struct)
def test_each_struct_text_appears_verbatim_in_the_programs_that_use_it(block):
    for program, count in DECLARED[block.struct]():
        assert block.wgsl(count) in program, (block.struct, count)


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.struct)
def test_every_word_of_a_block_is_one_rows_and_rows_are_in_order(block):
    for b in (block, *block.nested):
        words = [f.word for f in b.fields]
        assert words == sorted(words) and words[0] == 0
        assert all(f.meaning for f in b.fields)


def test_the_hosts_sizes_and_words_are_the_tables():
    assert (DRAW_HEADER_WORDS, SLOT_WORDS) == (12, 4) == (DRAW_BLOCK.word("slots"),
                                                         DRAW_SLOT.words())
    assert [draw_block_bytes(n) for n in (0, 1, 3)] == [64, 64, 96]
    assert DRAW_BLOCK.words(3) == 24
    assert (SO_HEADER_WORDS, SO_SLOT_WORDS, SO_BLOCK_WORDS, SO_STATE_WORDS) == (8, 4, 32, 8)
    assert SO_BLOCK.words() == SO_BLOCK_WORDS and SO_STATE.words() == SO_STATE_WORDS
    assert PARAMS_WORDS == INDEX_PARAMS.words() == 20
    assert CAPTURE_HEADER_WORDS == CAPTURE_RECORD.word("elements") == 3
    assert [record_words(e) for e in (0, 1, 2)] == [3, 7, 11]
    assert DRAW_AUTO.words() == 4
    # The index pass's args: byte offsets where wgpu takes them (indirect draws and dispatch).
    assert (ARGS_LIST, ARGS_KEPT, ARGS_PRIMITIVES, ARGS_NEEDED, ARGS_DISPATCH, ARGS_SUMS,
            ARGS_WORDS) == (0, 20, 10, 11, 52, 16, 20) == (
        4 * INDEX_ARGS.word("list"), 4 * INDEX_ARGS.word("kept"), INDEX_ARGS.word("primitives"),
        INDEX_ARGS.word("needed"), 4 * INDEX_ARGS.word("dispatch"), INDEX_ARGS.word("sums"),
        INDEX_ARGS.words())
    assert (RASTER_PARAMS.words(), RASTER_RECORD.words()) == (4, 2)


def test_a_record_without_elements_declares_no_empty_array():
    text = CAPTURE_RECORD.wgsl(0)
    assert "elements" not in text and "array" not in text


def _block(*fields: Field, space: str = "uniform", nested=()) -> Block:
    return Block("GpuiaTest", space, tuple(fields), "a test block", nested)


@pytest.mark.parametrize("fields, space, says", [
    ((Field("a", 0, "u32", "a"), Field("b", 2, "u32", "b")), "uniform",
     "b: the table says word 2, WGSL puts it at word 1"),
    ((Field("a", 0, "u32", "a"), Field("v", 1, "vec4<u32>", "v")), "storage",
     "words 1-3 are padding no row names"),
    ((Field("a", 1, "u32", "a"),), "storage", "the table says word 1, WGSL puts it at word 0"),
    ((Field("x", 0, "array<u32, 4>", "x"),), "uniform", "a uniform array's stride"),
    ((Field("x", 0, "mat2x2<f32>", "x"),), "storage", "type mat2x2<f32> is none"),
    ((Field("x", 0, "array<u32, N>", "x"), Field("y", 1, "u32", "y")), "storage",
     "only the last field may hold N entries"),
    ((Field("a", 0, "u32", "a"), Field("v", 1, "vec2<u32>", "v")), "storage",
     "words 1-1 are padding"),
    ((Field("v", 0, "vec4<u32>", "v"), Field("a", 4, "u32", "a")), "storage",
     r"its last 3 word\(s\) are padding"),
])
def test_a_table_wgsl_would_lay_out_otherwise_is_refused_at_construction(fields, space, says):
    with pytest.raises(RuntimeError, match=says):
        _block(*fields, space=space)


def test_a_nested_struct_in_a_uniform_block_starts_on_16_bytes():
    inner = Block("GpuiaIn", "uniform", (Field("a", 0, "u32", "a"),), "inner")
    with pytest.raises(RuntimeError, match="words 1-3 are padding"):
        _block(Field("a", 0, "u32", "a"), Field("s", 1, "GpuiaIn", "s"), nested=(inner,))
    with pytest.raises(RuntimeError, match="a uniform array's stride"):
        _block(Field("s", 0, "array<GpuiaIn, 2>", "s"), nested=(inner,))


def test_word_of_a_name_the_table_lacks_raises():
    with pytest.raises(KeyError, match="GpuiaDraw has no field 'nope'"):
        DRAW_BLOCK.word("nope")


def _markdown(block: Block) -> str:
    rows = [f"`{block.struct}`: {block.about}.", "",
            "| field | word | WGSL type | meaning |", "| --- | --- | --- | --- |"]
    rows += [f"| `{f.name}` | {f.word} | `{f.wgsl_type}` | {f.meaning} |" for f in block.fields]
    return "\n".join(rows)


@pytest.mark.parametrize("block", [n for b in BLOCKS for n in (*b.nested, b)] + list(WORD_TABLES),
                         ids=lambda b: b.struct)
def test_docs_architecture_shows_each_table_as_it_is(block):
    docs = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text()
    assert _markdown(block) in docs, f"docs/architecture.md's Blocks section: {block.struct}"
