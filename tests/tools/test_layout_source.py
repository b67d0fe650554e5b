"""``gpuia layout``: arrays taken from C/C++ and JSON, linted, saved as cases and checked on the
GPU.

The C/C++ files in tests/data/layouts reconstruct the arrays of the real-world sources that
the project's reference files real-layouts.json and real-so-decls.json transcribe (DirectX-Graphics-
Samples, MiniEngine, DirectXTK12, Dear ImGui, vkd3d-proton, GlareEngine). Those JSON files are
the independent source the extracted elements are compared with; offsets are compared with the
values the JSON notes state or rules 3.4 derives by hand.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuia.cli import main
from gpuia.d3d.layout import InputLayout
from gpuia.harness.lint import LINT_CODES, lint_layout, webgpu_default_caps
from gpuia.source import SourceError, extract
from helpers import REAL_LAYOUTS, REAL_SO_DECLS

DATA = Path(__file__).resolve().parents[1] / "data" / "layouts"

# JSON entry -> (file, array name, which array of that name in the file, conditions taken false)
LAYOUT_SOURCES = {
    "hello_triangle": ("D3D12HelloTriangle.cpp", "inputElementDescs", 0, ()),
    "occcity_standard_vertex": ("occcity.h", "StandardVertexDescription", 0, ()),
    "hdr_gradient": ("D3D12HDR.cpp", "gradientElementDescs", 0, ()),
    "fullscreen_scale_quad": ("D3D12Fullscreen.cpp", "scaleInputElementDescs", 0, ()),
    "miniengine_text_glyph_instances": ("TextRenderer.cpp", "vertElem", 0, ()),
    "miniengine_depth_pos_uv": ("Renderer.cpp", "posAndUV", 0, ()),
    "miniengine_depth_skin_pos_uv": ("Renderer.cpp", "skinPosAndUV", 0, ()),
    "miniengine_color_pso_all_attributes": ("Renderer.cpp", "vertexLayout", 0, ()),
    "miniengine_color_pso_no_uv0": ("Renderer.cpp", "vertexLayout", 0,
                                    ("psoFlags & kHasUV0", "psoFlags & kHasUV1",
                                     "psoFlags & kHasSkin")),
    "miniengine_sponza": ("SponzaRenderer.cpp", "vertElem", 0, ()),
    "meshshader_model_attributes": ("MeshletModel.cpp", "c_elementDescs", 0, ()),
    "dxtk12_position_normal_tangent_color_texture": (
        "ModelLoadCMO.cpp", "VertexPositionNormalTangentColorTexture::InputElements", 0, ()),
    "dxtk12_position_normal_tangent_color_texture_skinning": (
        "ModelLoadCMO.cpp", "VertexPositionNormalTangentColorTextureSkinning::InputElements", 0,
        ()),
    "dxtk12_sdkmesh_template": ("ModelLoadSDKMESH.cpp", "s_elements", 0, ()),
    "dxtk12_position_dual_texture": ("VertexTypes.cpp", "VertexPositionDualTexture::InputElements",
                                     0, ()),
    "imgui_dx12_drawvert": ("imgui_impl_dx12.cpp", "local_layout", 0, ()),
    "vkd3d_append_aligned_multi_slot": ("d3d12_pso.c", "layout_desc", 0, ()),
    "vkd3d_instance_id": ("d3d12_shaders.c", "layout_desc", 0, ()),
    "vkd3d_unaligned_stride_instance_step0": ("d3d12_command.c", "instance_layout_desc", 0, ()),
    "vkd3d_execute_indirect_packed_color": ("d3d12_command.c", "layout_desc", 0, ()),
    "vkd3d_indirect_vbo_offsets_step0": ("d3d12_command.c", "layout_desc", 1, ()),
    "glare_skinned_two_slots": ("InputLayout.cpp", "InputLayout::SkinAnimeVertex", 0, ()),
    "glare_particle_odd_offsets": ("InputLayout.cpp", "InputLayout::Particle", 0, ()),
}
SO_SOURCES = {
    "vs_position_only": ("d3d12_streamout.c", "so_declaration", 0),
    "primitive_restart_list_topology": ("d3d12_streamout.c", "so_declaration", 1),
    "index_buffer_edge_case": ("d3d12_streamout.c", "so_declaration", 2),
    "vertex_id_capture": ("d3d12_shaders.c", "so_declaration", 0),
    "create_gpso_basic": ("d3d12_pso.c", "so_declaration", 0),
    "shader_io_mismatch_basic": ("d3d12_pso.c", "so_basic", 0),
    "shader_io_mismatch_multi_stream": ("d3d12_pso.c", "so_multi_stream", 0),
    "tess_read_tesslevel": ("d3d12_tessellation.c", "so_declaration", 0),
    "line_tessellation": ("d3d12_tessellation.c", "so_declaration", 1),
    "quad_tessellation": ("d3d12_tessellation.c", "so_declaration", 2),
}


def _json(path):
    return json.loads(path.read_text())


def _array(file, name, nth=0, assume_false=()):
    found = [a for a in extract(DATA / file, assume_false=assume_false) if a.name == name]
    assert len(found) > nth, f"{file} has {len(found)} arrays named {name}"
    return found[nth]


def _expected_element(e: dict) -> dict:
    """real-layouts.json's element in the case-file form, converted here (not by gpuia)."""
    offset = e["aligned_byte_offset"]
    return {
        "SemanticName": e["semantic"], "SemanticIndex": e["semantic_index"],
        "Format": e["format"].removeprefix("DXGI_FORMAT_"), "InputSlot": e["input_slot"],
        "AlignedByteOffset": "APPEND_ALIGNED_ELEMENT" if offset == "APPEND_ALIGNED" else offset,
        "InputSlotClass": {"PER_VERTEX": "PER_VERTEX_DATA",
                           "PER_INSTANCE": "PER_INSTANCE_DATA"}[e["input_slot_class"]],
        "InstanceDataStepRate": e["instance_data_step_rate"],
    }


def test_every_real_layout_has_a_reconstructed_source():
    names = {entry["name"] for entry in _json(REAL_LAYOUTS)["layouts"]}
    assert names == set(LAYOUT_SOURCES)
    assert {d["name"] for d in _json(REAL_SO_DECLS)["decls"]} == set(SO_SOURCES)


@pytest.mark.parametrize("entry", _json(REAL_LAYOUTS)["layouts"], ids=lambda e: e["name"])
def test_extracted_layout_equals_real_layouts_json(entry):
    file, name, nth, assume_false = LAYOUT_SOURCES[entry["name"]]
    arr = _array(file, name, nth, assume_false)
    assert arr.error is None
    assert arr.elements == [_expected_element(e) for e in entry["elements"]]


@pytest.mark.parametrize("entry", _json(REAL_SO_DECLS)["decls"], ids=lambda e: e["name"])
def test_extracted_so_declaration_equals_real_so_decls_json(entry):
    file, name, nth = SO_SOURCES[entry["name"]]
    arr = _array(file, name, nth)
    assert arr.error is None
    assert arr.elements == [
        {"Stream": e["stream"], "SemanticName": e["semantic"],
         "SemanticIndex": e["semantic_index"], "StartComponent": e["start_component"],
         "ComponentCount": e["component_count"], "OutputSlot": e["output_slot"]}
        for e in entry["entries"]]
    assert arr.buffer_strides == tuple(entry["buffer_strides"])


# Resolved offsets and strides the JSON notes (or rules 3.4 by hand) give.
@pytest.mark.parametrize("file,name,offsets,extent", [
    ("Renderer.cpp", "vertexLayout", [0, 12, 16, 20, 24, 28, 36], {0: 44}),
    ("ModelLoadCMO.cpp", "VertexPositionNormalTangentColorTexture::InputElements",
     [0, 12, 24, 40, 44], {0: 52}),
    ("ModelLoadCMO.cpp", "VertexPositionNormalTangentColorTextureSkinning::InputElements",
     [0, 12, 24, 40, 44, 52, 56], {0: 60}),
    ("imgui_impl_dx12.cpp", "local_layout", [0, 8, 16], {0: 20}),  # offsetof(ImDrawVert, ...)
    ("d3d12_pso.c", "layout_desc", [0, 0, 0, 8, 8], {0: 16, 1: 16, 5: 16}),
    ("D3D12HDR.cpp", "gradientElementDescs", [0, 12], {0: 24}),
])
def test_resolved_offsets(file, name, offsets, extent):
    layout = InputLayout(_array(file, name).elements)
    assert [e.offset for e in layout.elements] == offsets
    assert {s: info.extent for s, info in layout.slots.items()} == extent


def test_conditional_pushes_are_noted():
    arr = _array("Renderer.cpp", "vertexLayout", 0, ("psoFlags & kHasUV0",))
    assert "condition `psoFlags & kHasUV0` assumed false" in arr.notes
    assert "condition `psoFlags & kHasSkin` assumed true" in arr.notes
    # The else branch moves TEXCOORD0 to slot 1 (the JSON's no-uv0 note).
    assert [(e["SemanticName"], e["InputSlot"]) for e in arr.elements][3] == ("TEXCOORD", 1)
    assert any("InputSlotClass, InstanceDataStepRate not given" in n for n in arr.notes)


def test_expressions_macros_and_containers(tmp_path):
    (tmp_path / "vertex.h").write_text(
        "#include <DirectXPackedVector.h>\nusing namespace DirectX;\n"
        "using namespace DirectX::PackedVector;\n"
        "typedef unsigned int U32;\nstruct V { XMFLOAT3 pos; U32 col; XMHALF2 uv[2]; };\n")
    src = tmp_path / "exprs.cpp"
    src.write_text('''#include "vertex.h"
#define OFFSET_OF(T, m) offsetof(T, m)
#define SLOT_BASE (1 << 1)
constexpr UINT kNormalOffset = sizeof(float) * 3;
enum class Slot { Main, Extra = SLOT_BASE + 1 };
static const char* const kTex = "TEX" "COORD";
const D3D11_INPUT_ELEMENT_DESC kColor = { "COLOR", 0, DXGI_FORMAT_B8G8R8A8_UNORM, 0, 12 };
std::array<D3D11_INPUT_ELEMENT_DESC, 4> arr = {{
    { "POSITION", 0, DXGI_FORMAT::DXGI_FORMAT_R32G32B32_FLOAT, 0,
      static_cast<UINT>(OFFSET_OF(V, pos)), D3D11_INPUT_PER_VERTEX_DATA, 0 },
    { .SemanticName = "NORMAL", .Format = DXGI_FORMAT_R8G8B8A8_SNORM,
      .InputSlot = (UINT)Slot::Extra, .AlignedByteOffset = kNormalOffset },
    { "TEXCOORD", 1, DXGI_FORMAT_R16G16_FLOAT, 0, (UINT)((size_t)(&((V*)0)->uv) + 0x4u),
      D3D11_INPUT_PER_INSTANCE_DATA, 010 },
    kColor,
}};
void f(bool wide) {
    std::vector<D3D12_INPUT_ELEMENT_DESC> v;
    v.emplace_back(D3D12_INPUT_ELEMENT_DESC{ "A", 0, DXGI_FORMAT_R32_FLOAT, 0, (UINT)-1 });
    if (1) v.push_back({ "B", 0, DXGI_FORMAT_R32_FLOAT });
    else v.push_back({ "C", 0, DXGI_FORMAT_R32_FLOAT });
}
const D3D10_SO_DECLARATION_ENTRY so10[] = { { "SV_POSITION", 0, 0, 4, 0 }, { NULL, 0, 0, 2, 0 } };
void g(ID3D10Device* d) { d->CreateGeometryShaderWithStreamOutput(code, size, so10, 2, 24, &gs); }
const D3D11_SO_DECLARATION_ENTRY so11[] = { { 0, "POSITION", 0, 0, 3, 0 },
                                            { 0, "COLOR", 0, 0, 4, 1 } };
UINT strides11[2] = { 12, 16 };
void h(ID3D11Device* d) {
    d->CreateGeometryShaderWithStreamOutput(code, size, so11, 2, strides11, 2,
                                            D3D11_SO_NO_RASTERIZED_STREAM, nullptr, &gs);
}
''')
    arrays = {a.name: a for a in extract(src)}
    assert set(arrays) == {"arr", "v", "so10", "so11"}
    assert (arrays["so11"].buffer_strides, arrays["so11"].rasterized_stream) == ((12, 16),
                                                                                 0xFFFFFFFF)
    a = arrays["arr"]
    assert a.struct == "D3D11_INPUT_ELEMENT_DESC" and a.profile == "d3d11"
    assert [(e["SemanticName"], e["Format"], e["InputSlot"], e["AlignedByteOffset"],
             e["InputSlotClass"], e["InstanceDataStepRate"]) for e in a.elements] == [
        ("POSITION", "R32G32B32_FLOAT", 0, 0, "PER_VERTEX_DATA", 0),
        ("NORMAL", "R8G8B8A8_SNORM", 3, 12, "PER_VERTEX_DATA", 0),
        ("TEXCOORD", "R16G16_FLOAT", 0, 20, "PER_INSTANCE_DATA", 8),  # uv at 16, + 4; 010 octal
        ("COLOR", "B8G8R8A8_UNORM", 0, 12, "PER_VERTEX_DATA", 0),
    ]
    # (UINT)-1 wraps to 0xFFFFFFFF: D3D12_APPEND_ALIGNED_ELEMENT. if (1) is constant: no note.
    assert [(e["SemanticName"], e["AlignedByteOffset"]) for e in arrays["v"].elements] == [
        ("A", "APPEND_ALIGNED_ELEMENT"), ("B", 0)]
    assert not any(n.startswith("condition") for n in arrays["v"].notes)
    so = arrays["so10"]
    assert so.profile == "d3d10"
    assert [e["SemanticName"] for e in so.elements] == ["SV_POSITION", None]
    assert [e["Stream"] for e in so.elements] == [0, 0]
    assert so.buffer_strides == (24,)


@pytest.mark.parametrize("name,line,column,field,words", [
    ("from_call", 6, 54, "AlignedByteOffset", "GetOffset()"),
    ("unknown_struct", 10, 50, "AlignedByteOffset", "unknown type name 'Unknown'"),
    ("looped", 21, 9, None, "inside a loop"),
    ("runtime_format", 25, 22, "Format", "g_positionFormat"),
])
def test_unresolvable_names_file_line_column_array_and_field(name, line, column, field, words):
    arr = _array("unresolved.cpp", name)
    assert isinstance(arr.error, SourceError) and arr.elements == []
    text = str(arr.error)
    assert text.startswith(f"{DATA / 'unresolved.cpp'}:{line}:{column}: array {name}: ")
    if field:
        assert f"element 0: {field}: " in text
    assert words in text


def test_offsetof_of_a_struct_in_the_file():
    assert _array("unresolved.cpp", "known_struct").elements[0]["AlignedByteOffset"] == 12


def test_missing_source_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "clang.cindex", None)  # import fails as if not installed
    from gpuia.errors import UnsupportedError

    with pytest.raises(UnsupportedError, match=r"'source' extra .*libclang"):
        extract(DATA / "TextRenderer.cpp")


def test_unreadable_file():
    with pytest.raises(SourceError, match="cannot read"):
        extract(DATA / "no_such_file.cpp")


# -- lint ------------------------------------------------------------------------------------
def _codes(name, strides=None):
    arr = _array("lint_cases.cpp", name)
    report = lint_layout(arr.elements, [("defaults", webgpu_default_caps())], strides=strides)
    return sorted({f.code for f in report.findings}), report


@pytest.mark.parametrize("name,codes", [
    ("overlap", ["W001"]),
    ("hole", ["W002"]),
    ("packed_float", ["W003", "W006"]),
    ("high_slot", ["W004"]),
    ("step_two", ["W003", "W007"]),
    ("digit_name", ["W008"]),
    ("misaligned", ["E001"]),
    ("duplicate", ["E001"]),
])
def test_lint_codes_on_hand_made_layouts(name, codes):
    assert _codes(name)[0] == codes


def test_lint_messages_name_the_bytes_and_reasons():
    _, report = _codes("hole")
    assert [f.message for f in report.findings] == [
        "bytes 12..15 after element 0 (POSITION0) are read by no element (before element 1 "
        "(TEXCOORD0))"]
    _, report = _codes("step_two")
    assert report.plans == [("defaults", "pulling",
                             ["slot 1 steps every 2 instances (WebGPU has no step rate)"])]
    _, report = _codes("misaligned")
    assert report.layout is None
    assert "rules 3.2" in report.findings[0].message


def test_lint_stated_strides():
    # vkd3d's unaligned test binds slot 1 with a 9-byte stride (real-layouts.json strides_by_slot).
    arr = _array("d3d12_command.c", "instance_layout_desc")
    report = lint_layout(arr.elements, [("defaults", webgpu_default_caps())],
                         strides={0: 8, 1: 9})
    assert sorted({f.code for f in report.findings}) == ["W002", "W003", "W005", "W007"]
    assert report.strides == {0: (8, "source"), 1: (9, "source")}
    padding = [f.message for f in report.findings if f.code == "W002"]
    assert padding == ["bytes 8..8 at the end of the 9-byte stride are read by no element"]
    short = lint_layout(arr.elements, [], strides={0: 4})
    assert "W009" in {f.code for f in short.findings}


def test_lint_codes_table_is_stable():
    # New codes are appended; a code never changes its meaning or position.
    assert list(LINT_CODES) == ["E001", "E002"] + [f"W{i:03d}" for i in range(1, 11)] + \
        ["E003", "W011", "E004", "E005", "W012", "W013"]


# -- command line ----------------------------------------------------------------------------
def run_cli(capsys, *args):
    code = main(["layout", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_report_and_exit_0(capsys):
    code, out, err = run_cli(capsys, DATA / "imgui_impl_dx12.cpp", "--no-gpu")
    assert code == 0 and err == ""
    assert f"== {DATA / 'imgui_impl_dx12.cpp'}:11:41: local_layout (D3D12_INPUT_ELEMENT_DESC, " \
           f"3 elements)" in out
    assert "path on WebGPU default limits: native" in out
    assert "lint: 0 error(s), 0 warning(s)" in out


def test_cli_d3d_rejection_exit_2_one_error_line(capsys):
    code, _, err = run_cli(capsys, DATA / "MeshletModel.cpp", "--no-gpu")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: layout: ")
    assert "c_elementDescs: E001 invalid-layout: element 0 (POSITION0): InstanceDataStepRate=1" \
        in lines[0]


def test_cli_unresolvable_exit_2(capsys):
    code, out, err = run_cli(capsys, DATA / "unresolved.cpp", "--no-gpu")
    assert code == 2
    assert len(err.strip().splitlines()) == 4  # one per unresolvable array
    assert "known_struct (D3D12_INPUT_ELEMENT_DESC, 1 elements)" in out


def test_cli_werror_makes_warnings_exit_1(capsys):
    assert run_cli(capsys, DATA / "TextRenderer.cpp", "--no-gpu", "--werror")[0] == 0
    code, out, _ = run_cli(capsys, DATA / "ModelLoadSDKMESH.cpp", "--no-gpu", "--werror")
    assert code == 1 and "W006 no-webgpu-format" in out
    assert run_cli(capsys, DATA / "ModelLoadSDKMESH.cpp", "--no-gpu")[0] == 0


def test_cli_json_forms_and_json_output(capsys, tmp_path):
    case = tmp_path / "c.json"
    case.write_text(json.dumps({
        "gpuia_case": 1, "primitive_topology": "POINTLIST",
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 12, "data": {"hex": ""}}],
        "draw": {"DrawInstanced": {"VertexCountPerInstance": 0}},
        "stream_output": {"declaration": [{"SemanticName": "POSITION", "ComponentCount": 2}]}}))
    code, out, err = run_cli(capsys, case, REAL_SO_DECLS, "--no-gpu", "--json")
    assert code == 0, err
    doc = json.loads(out)
    first = doc["arrays"][0]
    assert (first["name"], first["kind"], first["slots"]) == (
        "input_layout", "input_layout", [{"slot": 0, "stride": 12, "stride_from": "source",
                                          "extent": 8}])
    assert [f["code"] for f in first["findings"]] == ["W002"]  # bytes 8..11 of the stride
    assert doc["arrays"][1]["kind"] == "so_declaration"
    multi = [a for a in doc["arrays"] if a["name"] == "shader_io_mismatch_multi_stream"][0]
    assert [f["code"] for f in multi["findings"]] == ["W010"]


@pytest.mark.parametrize("command", ["layout", "translate", "validate"])
def test_a_case_file_check_refuses_is_refused_alike(capsys, tmp_path, command):
    """A misspelt key: validate and check refuse the file, and layout and translate too, with
    the same words (before: layout read no `input_layout`, an empty layout, and passed)."""
    case = tmp_path / "typo.json"
    case.write_text(json.dumps({
        "gpuia_case": 1, "primitive_topology": "POINTLIST",
        "input_layuot": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 8, "data": {"hex": ""}}],
        "draw": {"DrawInstanced": {"VertexCountPerInstance": 0}}}))
    extra = ["--no-gpu"] if command == "layout" else []
    code = main([command, str(case), *extra])
    out, err = capsys.readouterr()
    assert code == 2
    label = "typo" if command == "validate" else f"{command}: {case}"
    assert err.splitlines() == [f"error: {label}: case: unknown keys ['input_layuot']"]
    assert "==" not in out  # no array reported


def test_a_case_file_with_an_invalid_layout_is_the_lints_to_report(capsys, tmp_path):
    """What D3D rejects in a well-formed case is left to the lint, which names its rule."""
    case = tmp_path / "odd.json"
    case.write_text(json.dumps({
        "gpuia_case": 1, "primitive_topology": "POINTLIST",
        "input_layout": [{"SemanticName": "A", "Format": "R32_FLOAT"},
                         {"SemanticName": "B", "Format": "R32_FLOAT", "AlignedByteOffset": 2}],
        "vertex_buffers": [{"slot": 0, "stride": 8, "data": {"hex": ""}}],
        "draw": {"DrawInstanced": {"VertexCountPerInstance": 0}}}))
    code, out, err = run_cli(capsys, case, "--no-gpu")
    assert code == 2
    assert "E001 invalid-layout" in out and "AlignedByteOffset=2" in err


def test_cli_check_refuses_no_gpu(capsys):
    code, _, err = run_cli(capsys, DATA / "TextRenderer.cpp", "--check", "--no-gpu")
    assert code == 2 and err.startswith("error: layout: --check runs on a GPU")


def test_cli_subprocess_missing_file_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "gpuia", "layout", str(tmp_path / "x.cpp"),
                           "--no-gpu"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: layout: {tmp_path / 'x.cpp'}: ") and "Traceback" not in \
        proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_save_case_round_trip_through_validate(capsys, tmp_path):
    out_dir = tmp_path / "cases"
    code, _, err = run_cli(capsys, DATA / "d3d12_pso.c", DATA / "InputLayout.cpp", "--no-gpu",
                             "--save-case", out_dir)
    assert code == 0, err
    saved = sorted(p.name for p in out_dir.iterdir())
    # so_multi_stream needs a geometry shader: no case for it.
    assert saved == ["InputLayout_InputLayout__Particle.json",
                     "InputLayout_InputLayout__SkinAnimeVertex.json", "d3d12_pso_layout_desc.json",
                     "d3d12_pso_so_basic.json", "d3d12_pso_so_declaration.json"]
    assert main(["validate", *map(str, sorted(out_dir.iterdir()))]) == 0
    doc = _json(out_dir / "d3d12_pso_layout_desc.json")
    assert doc["input_layout"] == _array("d3d12_pso.c", "layout_desc").elements
    so = _json(out_dir / "d3d12_pso_so_basic.json")["stream_output"]
    assert so["buffer_strides"] == [64, 64] and so["rasterized_stream"] == 0xFFFFFFFF


# -- on the GPU ------------------------------------------------------------------------------
def test_check_passes_on_the_gpu(gpu_device, capsys):
    code, out, err = run_cli(capsys, DATA / "imgui_impl_dx12.cpp", DATA / "d3d12_command.c",
                             DATA / "d3d12_tessellation.c", "--check", "--vertices", "8",
                             "--instances", "2")
    assert code == 0, out + err
    checks = [line for line in out.splitlines() if line.startswith("check: ")]
    statuses = [line.split(": ")[4] for line in checks]
    assert "DIFFERENT" not in statuses
    assert statuses.count("OK") >= 10
    # step rate 0 (vkd3d's unaligned test) is pulled; imgui's layout runs natively too.
    assert any("instance_layout_desc" in c and "native: not applicable" in c for c in checks)
    assert any("local_layout" in c and "native: OK" in c for c in checks)
    assert sum("stream output: OK" in c for c in checks) == 3
