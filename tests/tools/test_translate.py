"""``gpuia translate``: the JSON and text it prints for layouts read from JSON, cases and C++,
and its refusals. Needs no adapter: it plans on WebGPU's default limits.

Expected values are derived by hand from docs/rules.md and WebGPU's specification: a DXGI format
maps to the WebGPU vertex format of the same channels (R32G32B32_FLOAT -> float32x3,
R8G8B8A8_UNORM -> unorm8x4, R32G32_FLOAT -> float32x2); an APPEND_ALIGNED_ELEMENT element lands
at the end of the previous one (rules 3.4); per-instance data at step rate 1 is WebGPU's
``instance`` step mode; WebGPU's GPUVertexBufferLayout takes strides that are multiples of 4 and
has no step rate, and no 11-11-10 float format, so those are pulled. The per-draw block's offsets
follow WGSL's uniform layout: twelve u32 header words (48 bytes), then 16-byte slot entries of
four u32 (base, stride, size, bound). GPUShaderStage.VERTEX is 1 in WebGPU's specification.
"""

from __future__ import annotations

import json

import pytest

from gpuia.cli import main
from gpuia.d3d.layout import InputLayout
from gpuia.errors import InvalidDescError
from gpuia.gpu.vertex.translate import translate_layout, webgpu_spelling
from gpuia.harness.lint import webgpu_default_caps
from helpers import TRIANGLE, assert_one_error_line, gpuia_cli

PER_INSTANCE = "PER_INSTANCE_DATA"

# Slot 0: POSITION at 0, NORMAL appended at 12, COLOR appended at 24 (extent 28); slot 1:
# per-instance TEXCOORD at step rate 1 (extent 8).
MESH = [
    {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
    {"SemanticName": "NORMAL", "Format": "R32G32B32_FLOAT"},
    {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM"},
    {"SemanticName": "TEXCOORD", "Format": "R32G32_FLOAT", "InputSlot": 1,
     "InputSlotClass": PER_INSTANCE, "InstanceDataStepRate": 1},
]

MESH_BUFFERS = [  # wgpu-py's spelling: WebGPU buffer 0 is slot 0, buffer 1 slot 1
    {"array_stride": 28, "step_mode": "vertex", "attributes": [
        {"format": "float32x3", "offset": 0, "shader_location": 0},
        {"format": "float32x3", "offset": 12, "shader_location": 1},
        {"format": "unorm8x4", "offset": 24, "shader_location": 2}]},
    {"array_stride": 8, "step_mode": "instance", "attributes": [
        {"format": "float32x2", "offset": 0, "shader_location": 3}]},
]


def _write(tmp_path, doc, name="layout.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def _translate(capsys, *argv):
    """(exit status, stdout, stderr lines) of ``gpuia translate ARGV`` run in this process."""
    status = main(["translate", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err.splitlines()


def _only(doc):
    """The one translation of the one layout of a JSON output."""
    (layout,) = doc["layouts"]
    (translation,) = layout["translations"]
    return layout, translation


# -- the native path --------------------------------------------------------------------------
def test_native_layout_prints_the_vertex_buffer_layouts(tmp_path, capsys):
    status, out, err = _translate(capsys, _write(tmp_path, MESH))
    assert status == 0 and err == []
    doc = json.loads(out)
    assert doc["gpuia_translate"] == 1 and doc["limits"] == ["WebGPU default limits"]
    layout, t = _only(doc)
    assert [(s["slot"], s["stride"], s["stride_from"]) for s in layout["slots"]] == [
        (0, 28, "tightest"), (1, 8, "tightest")]
    assert t["path"] == "native" and t["reasons"] == []
    assert t["buffer_slots"] == [0, 1]
    assert t["wgpu_py"] == {"vertex": {"buffers": MESH_BUFFERS}, "bind_group_layouts": []}
    assert t["webgpu"]["vertex"]["buffers"] == [
        {"arrayStride": 28, "stepMode": "vertex", "attributes": [
            {"format": "float32x3", "offset": 0, "shaderLocation": 0},
            {"format": "float32x3", "offset": 12, "shaderLocation": 1},
            {"format": "unorm8x4", "offset": 24, "shaderLocation": 2}]},
        {"arrayStride": 8, "stepMode": "instance", "attributes": [
            {"format": "float32x2", "offset": 0, "shaderLocation": 3}]}]
    assert t["pulling"] is None
    # Each element is @location(its index), typed by its format's class: all float here.
    assert [(i["semantic"], i["shader_location"], i["wgsl_type"]) for i in t["inputs"]] == [
        ("POSITION0", 0, "vec4<f32>"), ("NORMAL0", 1, "vec4<f32>"), ("COLOR0", 2, "vec4<f32>"),
        ("TEXCOORD0", 3, "vec4<f32>")]
    assert any("rules 6.1" in n for n in t["notes"])  # the per-draw bounds condition


def test_strides_from_the_case_and_from_the_option(capsys):
    # The example case binds slot 0 at stride 12 and slot 1 at stride 4.
    status, out, _ = _translate(capsys, TRIANGLE)
    layout, t = _only(json.loads(out))
    assert status == 0
    assert [(s["stride"], s["stride_from"]) for s in layout["slots"]] == [(12, "source"),
                                                                          (4, "source")]
    assert [b["array_stride"] for b in t["wgpu_py"]["vertex"]["buffers"]] == [12, 4]
    assert [b["attributes"][0]["format"] for b in t["wgpu_py"]["vertex"]["buffers"]] == [
        "float32x3", "unorm8x4"]
    status, out, _ = _translate(capsys, TRIANGLE, "--strides", "0=32", "--strides", "1=0")
    layout, t = _only(json.loads(out))
    assert [(s["stride"], s["stride_from"]) for s in layout["slots"]] == [(32, "option"),
                                                                          (0, "option")]
    assert [b["array_stride"] for b in t["wgpu_py"]["vertex"]["buffers"]] == [32, 0]


def test_integer_formats_take_integer_locations(tmp_path, capsys):
    elements = [{"SemanticName": "BLENDINDICES", "Format": "R8G8B8A8_UINT"},
                {"SemanticName": "OFFSET", "Format": "R16G16_SINT"}]
    _, out, _ = _translate(capsys, _write(tmp_path, elements))
    _, t = _only(json.loads(out))
    assert t["wgpu_py"]["vertex"]["buffers"] == [{"array_stride": 8, "step_mode": "vertex",
                                                  "attributes": [
        {"format": "uint8x4", "offset": 0, "shader_location": 0},
        {"format": "sint16x2", "offset": 4, "shader_location": 1}]}]
    assert [i["wgsl_type"] for i in t["inputs"]] == ["vec4<u32>", "vec4<i32>"]


def test_cpp_source(tmp_path, capsys):
    src = tmp_path / "mesh.cpp"
    src.write_text(
        "D3D12_INPUT_ELEMENT_DESC layout[] = {\n"
        "  { \"POSITION\", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0,\n"
        "    D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },\n"
        "  { \"NORMAL\", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12,\n"
        "    D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },\n"
        "};\n")
    status, out, err = _translate(capsys, src)
    assert status == 0, err
    layout, t = _only(json.loads(out))
    assert layout["name"] == "layout"
    assert t["wgpu_py"]["vertex"]["buffers"] == [{"array_stride": 24, "step_mode": "vertex",
                                                  "attributes": [
        {"format": "float32x3", "offset": 0, "shader_location": 0},
        {"format": "float32x3", "offset": 12, "shader_location": 1}]}]


def test_cpp_defines_choose_the_branch_the_build_compiles(tmp_path, capsys):
    """-D reaches the compiler as in `gpuia layout`: with HALF_NORMALS the normal is
    R16G16B16A16_FLOAT (float16x4), without it R32G32B32_FLOAT (float32x3); the stride follows
    (12 + 8 = 20, rounded to 4: 20; 12 + 12 = 24)."""
    src = tmp_path / "mesh.cpp"
    src.write_text(
        "D3D12_INPUT_ELEMENT_DESC layout[] = {\n"
        "  { \"POSITION\", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0,\n"
        "    D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },\n"
        "#ifdef HALF_NORMALS\n"
        "  { \"NORMAL\", 0, DXGI_FORMAT_R16G16B16A16_FLOAT, 0, 12,\n"
        "#else\n"
        "  { \"NORMAL\", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12,\n"
        "#endif\n"
        "    D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },\n"
        "};\n")
    for argv, fmt, stride in (([], "float32x3", 24), (["-D", "HALF_NORMALS"], "float16x4", 20)):
        status, out, err = _translate(capsys, src, *argv)
        assert status == 0, err
        _, t = _only(json.loads(out))
        (buffer,) = t["wgpu_py"]["vertex"]["buffers"]
        assert (buffer["array_stride"], buffer["attributes"][1]["format"]) == (stride, fmt)


def test_a_malformed_target_is_one_error_line(tmp_path):
    src = tmp_path / "mesh.cpp"
    src.write_text("int x;\n")
    proc = gpuia_cli("translate", str(src), "--target", "not a triple")
    assert_one_error_line(proc, "--target")


def test_array_chooses_one_layout_of_a_collection(tmp_path, capsys):
    doc = {"layouts": [
        {"name": "first", "elements": [{"semantic": "A", "format": "R32_FLOAT"}]},
        {"name": "second", "elements": [{"semantic": "B", "format": "R16G16_UNORM"}]}]}
    path = _write(tmp_path, doc)
    _, out, _ = _translate(capsys, path)
    assert [d["name"] for d in json.loads(out)["layouts"]] == ["first", "second"]
    _, out, _ = _translate(capsys, path, "--array", "second")
    layout, t = _only(json.loads(out))
    assert layout["name"] == "second"
    assert t["wgpu_py"]["vertex"]["buffers"][0]["attributes"] == [
        {"format": "unorm16x2", "offset": 0, "shader_location": 0}]


# -- the pulling path -------------------------------------------------------------------------
def test_odd_stride_is_pulled_with_wgsl(tmp_path, capsys):
    elements = [{"SemanticName": "TEXCOORD", "Format": "R8G8_UNORM"}]
    status, out, _ = _translate(capsys, _write(tmp_path, elements), "--strides", "0=3")
    _, t = _only(json.loads(out))
    assert status == 0 and t["path"] == "pulling"
    assert t["reasons"] == ["slot 0 stride 3 is not a multiple of 4"]
    assert t["wgpu_py"]["vertex"] == {"buffers": []} and t["buffer_slots"] == []
    assert t["wgpu_py"]["bind_group_layouts"] == [
        {"entries": [{"binding": 0, "visibility": 1, "buffer": {
            "type": "uniform", "has_dynamic_offset": True, "min_binding_size": 64}}]},
        {"entries": [{"binding": 0, "visibility": 1, "buffer": {"type": "read-only-storage"}}]}]
    assert t["webgpu"]["bindGroupLayouts"][0]["entries"][0]["buffer"] == {
        "type": "uniform", "hasDynamicOffset": True, "minBindingSize": 64}
    p = t["pulling"]
    assert p["storage_buffers"] == [{"slot": 0, "group": 1, "binding": 0}]
    assert p["fetch_functions"] == [{"element": 0, "name": "gpuia_fetch_0"}]
    assert p["arena"] is False
    block = p["draw_block"]
    assert (block["group"], block["binding"], block["size"]) == (0, 0, 64)
    offsets = {f["name"]: (f["offset"], f["wgsl_type"]) for f in block["fields"]}
    assert offsets["vertex_base"] == (0, "u32") and offsets["first_instance"] == (4, "u32")
    assert [offsets[f"slots[0].{m}"][0] for m in ("base", "stride", "size", "bound")] == [
        48, 52, 56, 60]
    read = {f["name"] for f in block["fields"] if f["read_by_fetch"]}
    # A per-vertex slot: the fetch reads the slot entry only, not the instance start.
    assert read == {"slots[0].base", "slots[0].stride", "slots[0].size", "slots[0].bound"}
    assert all(f["meaning"] for f in block["fields"])
    wgsl = p["wgsl"]
    assert "fn gpuia_fetch_0(vi: u32, ii: u32) -> vec4<u32>" in wgsl
    assert "@group(0) @binding(0) var<uniform> gpuia_draw: GpuiaDraw;" in wgsl
    assert "@group(1) @binding(0) var<storage, read> gpuia_vb_0: array<vec4<u32>>;" in wgsl
    assert "@vertex" not in wgsl  # the port's own shader brings the entry point
    (row,) = t["inputs"]
    assert (row["fetch"], row["wgsl_type"], row["bitcast_to"]) == (
        "gpuia_fetch_0", "vec4<u32>", "vec4<f32>")


def test_formats_without_webgpu_format_and_step_rates_are_pulled(tmp_path, capsys):
    elements = [
        {"SemanticName": "NORMAL", "Format": "R11G11B10_FLOAT"},
        {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "InputSlot": 1,
         "InputSlotClass": PER_INSTANCE, "InstanceDataStepRate": 2},
    ]
    _, out, _ = _translate(capsys, _write(tmp_path, elements))
    _, t = _only(json.loads(out))
    assert t["path"] == "pulling"
    assert t["reasons"] == ["element 0 (NORMAL0): R11G11B10_FLOAT has no WebGPU vertex format",
                            "slot 1 steps every 2 instances (WebGPU has no step rate)"]
    p = t["pulling"]
    assert p["storage_buffers"] == [{"slot": 0, "group": 1, "binding": 0},
                                    {"slot": 1, "group": 1, "binding": 1}]
    assert [e["binding"] for e in t["wgpu_py"]["bind_group_layouts"][1]["entries"]] == [0, 1]
    block = p["draw_block"]
    assert block["size"] == 48 + 2 * 16
    assert {f["name"]: f["offset"] for f in block["fields"]}["slots[1].base"] == 64
    # Step rate 2 fetches from StartInstanceLocation (rules 4.3): the block's first_instance.
    assert {f["name"] for f in block["fields"] if f["read_by_fetch"]} >= {"first_instance"}


def test_forced_pulling_says_so(capsys):
    _, out, _ = _translate(capsys, TRIANGLE, "--path", "pulling")
    _, t = _only(json.loads(out))
    assert t["path"] == "pulling" and t["reasons"] == ["forced by path=pulling"]
    assert t["pulling"]["storage_buffers"] == [{"slot": 0, "group": 1, "binding": 0},
                                               {"slot": 1, "group": 1, "binding": 1}]


def test_more_slots_than_storage_buffers_share_an_arena(tmp_path, capsys):
    # Nine slots: past WebGPU's default 8 vertex buffers and 8 storage buffers per stage.
    elements = [{"SemanticName": "ATTR", "SemanticIndex": s, "Format": "R32_FLOAT",
                 "InputSlot": s} for s in range(9)]
    _, out, _ = _translate(capsys, _write(tmp_path, elements))
    _, t = _only(json.loads(out))
    assert t["path"] == "pulling"
    assert "the layout uses 9 slots, the adapter has 8 vertex buffers" in t["reasons"]
    p = t["pulling"]
    assert p["arena"] is True
    assert [b["binding"] for b in p["storage_buffers"]] == [0] * 9
    assert t["wgpu_py"]["bind_group_layouts"][1]["entries"] == [
        {"binding": 0, "visibility": 1, "buffer": {"type": "read-only-storage"}}]


# -- forms of output --------------------------------------------------------------------------
def test_text_form(tmp_path, capsys):
    status, out, _ = _translate(capsys, _write(tmp_path, MESH), "--text")
    assert status == 0
    assert "-- on WebGPU default limits: path native" in out
    assert "  buffer 1 <- slot 1: array_stride 8, step_mode instance" in out
    assert ("    @location(1) vec4<f32>: float32x3 at offset 12 (element 1 NORMAL0 "
            "R32G32B32_FLOAT)") in out
    status, out, _ = _translate(capsys, _write(tmp_path, MESH), "--text", "--strides", "0=30")
    assert "-- on WebGPU default limits: path pulling" in out
    assert "  - slot 0 stride 30 is not a multiple of 4" in out
    assert ("bind group 0: binding 0: uniform buffer (dynamic offset, at least 80 bytes), "
            "visibility VERTEX") in out
    assert "fn gpuia_fetch_3(vi: u32, ii: u32) -> vec4<u32>" in out


def test_out_writes_the_same_document(tmp_path, capsys):
    path = _write(tmp_path, MESH)
    _, printed, _ = _translate(capsys, path)
    target = tmp_path / "translation.json"
    status, out, err = _translate(capsys, path, "--out", target)
    assert (status, out, err) == (0, "", [])
    assert target.read_text() == printed


def test_module_translation_matches_the_command(tmp_path, capsys):
    """The command prints translate_layout's own document, and webgpu_spelling is the only
    difference between the two spellings."""
    t = translate_layout(InputLayout(MESH), {0: 28, 1: 8}, webgpu_default_caps())
    _, out, _ = _translate(capsys, _write(tmp_path, MESH))
    _, printed = _only(json.loads(out))
    assert {k: v for k, v in printed.items() if k != "limits"} == t.as_dict()
    assert t.as_dict()["webgpu"]["vertex"] == webgpu_spelling(t.as_dict()["wgpu_py"]["vertex"])
    with pytest.raises(InvalidDescError, match="slot 1: StrideInBytes=None"):
        translate_layout(InputLayout(MESH), {0: 28}, webgpu_default_caps())


# -- refusals ---------------------------------------------------------------------------------
@pytest.mark.parametrize("argv,says", [
    (["--strides", "0=4096"], ["slot 0", "StrideInBytes=4096", "rules 3.3"]),
    (["--strides", "5=8"], ["slot 5", "StrideInBytes=8", "no element in slot 5"]),
    (["--strides", "zero=8"], ["--strides", "'zero=8'", "SLOT=BYTES"]),
    (["--strides", "0=-4"], ["slot 0", "StrideInBytes=-4"]),
    (["--path", "native", "--strides", "0=30"], ["native path", "stride 30 is not a multiple"]),
    (["--array", "missing"], ["no input-element array named 'missing'"]),
    (["--out", "{tmp}/no/such/folder.json"], ["--out", "does not exist"]),
])
def test_refused_with_one_error_line(tmp_path, capsys, argv, says):
    path = _write(tmp_path, MESH)
    status, out, err = _translate(capsys, path, *[a.format(tmp=tmp_path) for a in argv])
    assert status == 2 and out == ""
    assert len(err) == 1 and err[0].startswith("error: translate: "), err
    for s in says:
        assert s in err[0], (s, err[0])


def test_invalid_element_names_element_field_value_and_rule(tmp_path, capsys):
    elements = [{"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT",
                 "AlignedByteOffset": 2}]
    status, out, err = _translate(capsys, _write(tmp_path, elements))
    assert status == 2 and out == ""
    assert len(err) == 1
    for s in ("element 0 (POSITION0)", "AlignedByteOffset=2", "rules 3.2"):
        assert s in err[0], (s, err[0])


def test_unreadable_input_is_one_error_line_from_the_program(tmp_path):
    assert_one_error_line(gpuia_cli("translate", tmp_path / "none.json"), "cannot read")
    assert_one_error_line(gpuia_cli("translate", _write(tmp_path, "{\"layouts\": 3}")),
                          "expected a list")
