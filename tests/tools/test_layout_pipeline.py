"""``gpuia layout`` pairs the input layout and the Stream Output declaration that one pipeline
state desc sets (gpuia.source.pso, through libclang) and checks them as one pipeline
(docs/layout-command.md, "Pipeline state descs").

tests/data/layouts/pso_pairing.cpp holds the forms engines write: members assigned brace lists
(``psoDesc``), ``D3D12_INPUT_LAYOUT_DESC``/``D3D12_STREAM_OUTPUT_DESC`` variables assigned
whole (``desc``), a pipeline state stream's subobjects (``stream``), a designated initializer
(``designated``), and with ``-D BROKEN``
nested members (``broken.InputLayout.pInputElementDescs``) whose two arrays are each valid
alone but not together: the declaration names TEXCOORD0, which the layout does not give the
pass-through shader (rules 8.3)."""

from __future__ import annotations

from pathlib import Path

from gpuia.cli import main
from gpuia.source import read_source
from gpuia.source.model import SourcePipeline, source_file_doc, source_file_from_doc

DATA = Path(__file__).resolve().parents[1] / "data" / "layouts"
PAIRING = DATA / "pso_pairing.cpp"


def test_each_desc_pairs_its_two_arrays():
    source = read_source(PAIRING)
    assert source.diagnostics == []
    got = [(p.name, p.line, p.input_layout, p.stream_output) for p in source.pipelines]
    # The line of each desc's first member assignment in the file.
    assert got == [("psoDesc", 46, "particleLayout", "particleSO"),
                   ("desc", 60, "skinLayout", "skinSO"),
                   ("stream", 71, "streamLayout", "streamSO"),
                   ("designated", 105, "designatedLayout", "designatedSO")]
    so = {a.name: a for a in source.arrays if a.kind == "so_declaration"}
    # psoDesc.StreamOutput = { particleSO, 2, particleStrides, 1, D3D12_SO_NO_RASTERIZED_STREAM }:
    # pBufferStrides {24}, RasterizedStream 0xFFFFFFFF, from the brace list's positional fields.
    assert so["particleSO"].buffer_strides == (24,)
    assert so["particleSO"].rasterized_stream == 0xFFFFFFFF
    assert so["skinSO"].buffer_strides == (12, 12)  # soDesc.pBufferStrides = skinStrides
    assert so["streamSO"].buffer_strides is None  # nullptr: no strides in the source
    # The worker process sends the pairings back with the arrays.
    assert source_file_from_doc(source_file_doc(source)).pipelines == source.pipelines
    assert read_source(PAIRING, defines=["BROKEN"]).pipelines[3] == SourcePipeline(
        "broken", str(PAIRING), 88, 5, "brokenLayout", "brokenSO")


def test_a_desc_without_both_arrays_pairs_nothing(tmp_path):
    path = tmp_path / "one.cpp"
    path.write_text("""#include <d3d12.h>
static const D3D12_INPUT_ELEMENT_DESC layout[] = {
    {"POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0,
     D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0},
};
static const D3D12_SO_DECLARATION_ENTRY decl[] = { {0, "POSITION", 0, 0, 3, 0} };
void a(D3D12_GRAPHICS_PIPELINE_STATE_DESC &d) { d.InputLayout = { layout, 1 }; }
void b(D3D12_GRAPHICS_PIPELINE_STATE_DESC &e) { e.StreamOutput = { decl, 1, nullptr, 0, 0 }; }
""")
    assert read_source(path).pipelines == []  # two descs (d and e), one array each


def test_layout_checks_each_pipeline(capsys):
    assert main(["layout", "--no-gpu", str(PAIRING)]) == 0
    out = capsys.readouterr().out
    for name, layout, so in (("psoDesc", "particleLayout", "particleSO"),
                             ("desc", "skinLayout", "skinSO"),
                             ("stream", "streamLayout", "streamSO"),
                             ("designated", "designatedLayout", "designatedSO")):
        assert f"{name}: one pipeline state: InputLayout {layout} + StreamOutput {so}" in out
        assert f"pipeline: OK: {layout} feeds the pass-through shader, whose outputs {so} " \
               f"streams out" in out


def test_two_arrays_valid_alone_are_refused_together(capsys):
    assert main(["layout", "--no-gpu", "-D", "BROKEN", str(PAIRING)]) == 2
    captured = capsys.readouterr()
    # Each array's own report has no error: the SO declaration alone is checked against a
    # derived signature that has every semantic it names.
    assert "== " + str(PAIRING) + ":81:41: brokenSO" in captured.out
    assert captured.out.count("lint: 0 error(s)") == 10
    errors = captured.err.splitlines()
    assert len(errors) == 1
    assert errors[0].startswith(f"error: layout: {PAIRING}:88:5: pipeline state broken: "
                                f"pipeline_state.stream_output: SO entry 0 (TEXCOORD0)")
    assert "rules 8.3" in errors[0]


def test_the_pipeline_goes_through_the_shader_named(capsys):
    shader = DATA / "pso_particles.hlsl"
    assert main(["layout", "--no-gpu", str(DATA / "pso_particles.cpp"),
                 "--shader", str(shader)]) == 0
    assert f"pipeline: OK: particleLayout feeds {shader}, whose outputs particleSO streams " \
           f"out" in capsys.readouterr().out
