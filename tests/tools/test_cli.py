"""The ``gpuia`` command line end to end, through subprocesses (docs/case-format.md, "Command
line"). Expected values are derived by hand in the tests, never pasted from gpuia's output."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import EXAMPLE_CASES as CASES
from helpers import (
    EXAMPLES,
    TRIANGLE,
    assert_one_error_line,
    f32bits,
    gpuia_cli,
    valid_case,
    write_case,
)


# =============================================================================================
# validate / run on the examples
# =============================================================================================
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_validate_every_example(path):
    proc = gpuia_cli("validate", path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_examples_exist():
    assert TRIANGLE in EXAMPLES and len(EXAMPLES) >= 5


def test_validate_all_examples_at_once():
    proc = gpuia_cli("validate", *EXAMPLES)
    assert proc.returncode == 0, proc.stderr


def test_run_triangle_to_stdout():
    proc = gpuia_cli("run", "--backend", "cpu", TRIANGLE)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)  # exactly one JSON document
    assert doc["gpuia_result"] == 1
    assert doc["case"] == "triangle_two_slots"
    assert (doc["backend"], doc["path"], doc["adapter"]) == ("cpu", "reference", None)
    # 3 vertices, one triangle.
    assert doc["statistics"] == {"IAVertices": 3, "IAPrimitives": 1, "VSInvocations": 3}

    # Slot 0, R32G32B32_FLOAT, stride 12: (0, .5, 0), (.5, -.5, 0), (-.5, -.5, 0); the missing
    # 4th component is filled with 1.0.
    positions = [(0.0, 0.5, 0.0), (0.5, -0.5, 0.0), (-0.5, -0.5, 0.0)]
    # Slot 1, R8G8B8A8_UNORM, stride 4: bytes ff0000ff, 00ff00ff, 0000ffff -> 255/255 = 1.0
    # and 0 -> 0.0 per channel, in RGBA order.
    colors = [(1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0)]
    assert len(doc["invocations"]) == 3
    for v, inv in enumerate(doc["invocations"]):
        assert (inv["draw"], inv["instance"], inv["vertex"], inv["SV_VertexID"],
                inv["SV_InstanceID"]) == (0, 0, v, v, 0)
        assert set(inv["inputs"]) == {"POSITION0", "COLOR0"}
        pos = inv["inputs"]["POSITION0"]
        expected = list(positions[v]) + [1.0]
        assert pos["type"] == "float"
        assert pos["bits"] == [f32bits(x) for x in expected]
        assert pos["value"] == expected
        col = inv["inputs"]["COLOR0"]
        assert col["type"] == "float"
        assert col["bits"] == [f32bits(x) for x in colors[v]]
        assert col["value"] == list(colors[v])
    # Spot-check the hand-derived IEEE patterns themselves.
    assert doc["invocations"][1]["inputs"]["POSITION0"]["bits"] == \
        [0x3F000000, 0xBF000000, 0, 0x3F800000]
    assert doc["invocations"][0]["inputs"]["COLOR0"]["bits"] == [0x3F800000, 0, 0, 0x3F800000]


def test_run_default_backend_is_cpu():
    proc = gpuia_cli("run", TRIANGLE)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["backend"] == "cpu"


def test_the_cpu_backend_never_loads_wgpu():
    """`gpuia run --backend cpu` and the harness's cpu runs work where wgpu is not even
    importable: a machine without a GPU stack runs the reference."""
    script = (
        "import sys\n"
        "class _NoWgpu:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'wgpu':\n"
        "            raise ImportError('wgpu blocked by the test')\n"
        "sys.meta_path.insert(0, _NoWgpu())\n"
        "from gpuia.cli import main\n"
        f"code = main(['run', {str(TRIANGLE)!r}, '--backend', 'cpu'])\n"
        "assert code == 0, code\n"
        "assert not any(m.split('.')[0] == 'wgpu' for m in sys.modules)\n"
        "print('cpu ok')\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.rstrip().endswith("cpu ok")
    assert '"IAVertices"' in proc.stdout


def test_run_out_dir_writes_one_file_per_case(tmp_path):
    out = tmp_path / "results"
    proc = gpuia_cli("run", "--backend", "cpu", "--out-dir", out, *EXAMPLES)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{p.stem}.json" for p in EXAMPLES)
    for p in EXAMPLES:
        doc = json.loads((out / f"{p.stem}.json").read_text())
        assert doc["gpuia_result"] == 1
        assert doc["case"] == json.loads(p.read_text()).get("name", p.stem)
        assert doc["backend"] == "cpu"
        assert doc["statistics"]["IAVertices"] == len(doc["invocations"])
    # The triangle's file holds the same result as the stdout run.
    tri = json.loads((out / "triangle_two_slots.json").read_text())
    assert [i["inputs"]["COLOR0"]["value"] for i in tri["invocations"]] == \
        [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]]


def test_out_dir_file_is_named_by_file_stem_not_case_name(tmp_path):
    src = write_case(tmp_path, "file_stem", valid_case(name="a different name"))
    out = tmp_path / "out"
    proc = gpuia_cli("run", "--out-dir", out, src)
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in out.iterdir()] == ["file_stem.json"]
    doc = json.loads((out / "file_stem.json").read_text())
    assert doc["case"] == "a different name"  # "case": name or file stem


def test_case_name_defaults_to_file_stem(tmp_path):
    proc = gpuia_cli("run", write_case(tmp_path, "no_name_here", valid_case()))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["case"] == "no_name_here"


def test_several_cases_without_out_dir_or_table(tmp_path):
    proc = gpuia_cli("run", TRIANGLE, CASES / "out_of_bounds.json")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ")
    assert "Traceback" not in proc.stderr + proc.stdout
    assert not proc.stdout.lstrip().startswith("{")


def test_run_table():
    proc = gpuia_cli("run", "--backend", "cpu", "--table", TRIANGLE)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "POSITION" in out and "COLOR" in out
    assert "R32G32B32_FLOAT" in out and "R8G8B8A8_UNORM" in out
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)  # a table for people, not the JSON result


def test_run_table_several_cases():
    proc = gpuia_cli("run", "--table", TRIANGLE, CASES / "instance_step_rates.json")
    assert proc.returncode == 0, proc.stderr
    for name in ("POSITION", "COLOR", "OFFSET", "SCALE"):
        assert name in proc.stdout


def _expected_vertex_formats() -> set[str]:
    """D3D11.3 19.1.4: the 47 formats the Input Assembler fetches."""
    names = set()
    for comps in ("R32G32B32A32", "R32G32B32", "R32G32", "R32"):
        names |= {f"{comps}_{t}" for t in ("FLOAT", "UINT", "SINT")}
    for comps in ("R16G16B16A16", "R16G16", "R16"):
        names |= {f"{comps}_{t}" for t in ("FLOAT", "UNORM", "SNORM", "UINT", "SINT")}
    for comps in ("R8G8B8A8", "R8G8", "R8"):
        names |= {f"{comps}_{t}" for t in ("UNORM", "SNORM", "UINT", "SINT")}
    names |= {"R10G10B10A2_UNORM", "R10G10B10A2_UINT", "R11G11B10_FLOAT", "B8G8R8A8_UNORM",
              "B8G8R8X8_UNORM", "B5G6R5_UNORM", "B5G5R5A1_UNORM", "B4G4R4A4_UNORM"}
    return names


def test_formats_lists_47_formats():
    expected = _expected_vertex_formats()
    assert len(expected) == 47
    proc = gpuia_cli("formats")
    assert proc.returncode == 0, proc.stderr
    pattern = re.compile(r"^\s*(?:DXGI_FORMAT_)?([RGBAX0-9]+_(?:FLOAT|UNORM|SNORM|UINT|SINT))\b")
    found = [m.group(1) for line in proc.stdout.splitlines() if (m := pattern.match(line))]
    assert len(found) == 47
    assert set(found) == expected


# =============================================================================================
# invalid input: exit 2, one 'error: <case>: ...' line, no traceback
# =============================================================================================
def _layout_case(layout) -> dict:
    return valid_case(input_layout=layout,
                      vertex_buffers=[{"slot": 0, "stride": 16, "data": {"hex": "00" * 64}},
                                      {"slot": 1, "stride": 16, "data": {"hex": "00" * 64}}])


INVALID_DOCS = {
    # schema errors
    "schema_missing_draw": {k: v for k, v in valid_case().items() if k != "draw"},
    "schema_unknown_key": valid_case(primitive_topolgy="POINTLIST"),
    "schema_bad_hex": valid_case(vertex_buffers=[{"slot": 0, "stride": 8, "data": {"hex": "xyz"}}]),
    "schema_wrong_version": valid_case(gpuia_case=2),
    "schema_not_an_object": [1, 2, 3],
    # CreateInputLayout rejections
    "misaligned_offset": _layout_case([
        {"SemanticName": "POSITION", "Format": "R32G32_FLOAT", "AlignedByteOffset": 2}]),
    "srgb_format": _layout_case([
        {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM_SRGB"}]),
    "duplicate_semantic": _layout_case([
        {"SemanticName": "TEXCOORD", "SemanticIndex": 1, "Format": "R32_FLOAT"},
        {"SemanticName": "texcoord", "SemanticIndex": 1, "Format": "R32_FLOAT"}]),
    "per_vertex_step_rate": _layout_case([
        {"SemanticName": "POSITION", "Format": "R32G32_FLOAT", "InputSlotClass": "PER_VERTEX_DATA",
         "InstanceDataStepRate": 1}]),
    "mixed_classification": _layout_case([
        {"SemanticName": "POSITION", "Format": "R32G32_FLOAT", "InputSlot": 1},
        {"SemanticName": "OFFSET", "Format": "R32G32_FLOAT", "InputSlot": 1,
         "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}]),
    # other D3D rejections
    "patchlist_topology": valid_case(
        primitive_topology="D3D_PRIMITIVE_TOPOLOGY_3_CONTROL_POINT_PATCHLIST"),
    "index_format_r8": valid_case(index_buffer={"format": "R8_UINT", "data": {"hex": "00"}},
                                  draw={"DrawIndexedInstanced": {"IndexCountPerInstance": 1}}),
    "key_collision": _layout_case([
        {"SemanticName": "POSITION2", "SemanticIndex": 0, "Format": "R32_FLOAT"},
        {"SemanticName": "POSITION", "SemanticIndex": 20, "Format": "R32_FLOAT"}]),
}


@pytest.fixture(scope="module")
def invalid_files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("invalid")
    files = {stem: write_case(d, stem, doc) for stem, doc in INVALID_DOCS.items()}
    files["bad_json"] = write_case(d, "bad_json", "{\"gpuia_case\": 1, \"input_layout\": [}")
    files["empty_file"] = write_case(d, "empty_file", "")
    not_utf8 = d / "not_utf8.json"
    not_utf8.write_bytes(b"\xff\xfe\x00{")
    files["not_utf8"] = not_utf8
    files["missing_file"] = d / "missing_file.json"  # never written: unreadable
    files["a_directory"] = d / "a_directory.json"
    files["a_directory"].mkdir()
    return files


INVALID_STEMS = sorted(list(INVALID_DOCS) + ["bad_json", "empty_file", "not_utf8", "missing_file",
                                             "a_directory"])
# One subprocess per command for each class the contract names; the rest run batched below.
CORE_CLASSES = ["missing_file", "bad_json", "schema_missing_draw", "misaligned_offset",
                "srgb_format", "duplicate_semantic", "per_vertex_step_rate", "mixed_classification"]


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("stem", CORE_CLASSES)
def test_invalid_input(invalid_files, command, stem):
    proc = gpuia_cli(command, invalid_files[stem])
    assert_one_error_line(proc, case=stem)
    if command == "run":
        assert proc.stdout.strip() == ""


@pytest.mark.parametrize("command", [("validate",), ("run", "--out-dir")])
def test_every_invalid_class_batched(invalid_files, tmp_path, command):
    """All invalid files in one call: one error line each, in order, exit 2, no output files."""
    args = list(command) + ([tmp_path / "out"] if "--out-dir" in command else [])
    proc = gpuia_cli(*args, *(invalid_files[s] for s in INVALID_STEMS))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == len(INVALID_STEMS), proc.stderr
    for stem, line in zip(INVALID_STEMS, lines, strict=True):
        assert line.startswith(f"error: {stem}: ") and len(line) > len(f"error: {stem}: ")
    if "--out-dir" in command:
        out = tmp_path / "out"
        assert not out.exists() or list(out.iterdir()) == []


def test_invalid_error_lines_name_the_rule(invalid_files):
    """The line says where the problem is: the field or the value at fault."""
    expected = {"misaligned_offset": "AlignedByteOffset", "srgb_format": "R8G8B8A8_UNORM_SRGB",
                "per_vertex_step_rate": "InstanceDataStepRate",
                "mixed_classification": "InputSlotClass"}
    proc = gpuia_cli("validate", *(invalid_files[s] for s in expected))
    lines = proc.stderr.splitlines()
    assert len(lines) == len(expected)
    for (stem, word), line in zip(expected.items(), lines, strict=True):
        assert line.startswith(f"error: {stem}: ") and word in line, line


def test_error_line_uses_the_name_field(tmp_path):
    doc = _layout_case([{"SemanticName": "POSITION", "Format": "R32G32_FLOAT",
                         "AlignedByteOffset": 2}])
    doc["name"] = "named_case"
    assert_one_error_line(gpuia_cli("validate", write_case(tmp_path, "file_stem", doc)),
                          case="named_case")


def test_draw_missing_argument_is_invalid_input(tmp_path):
    doc = valid_case(draw={"DrawInstanced": {"InstanceCount": 1}})
    assert_one_error_line(gpuia_cli("validate", write_case(tmp_path, "draw_missing_count", doc)),
                          case="draw_missing_count")


def test_one_invalid_among_two_with_out_dir(tmp_path):
    good = write_case(tmp_path, "good_one", valid_case())
    bad = write_case(tmp_path, "bad_one", _layout_case([
        {"SemanticName": "COLOR", "Format": "B8G8R8A8_UNORM_SRGB"}]))
    out = tmp_path / "out"
    for order in ((good, bad), (bad, good)):
        proc = gpuia_cli("run", "--out-dir", out, *order)
        assert_one_error_line(proc, case="bad_one")
        assert (out / "good_one.json").is_file()
        assert not (out / "bad_one.json").exists()
        doc = json.loads((out / "good_one.json").read_text())
        assert doc["case"] == "good_one"
        assert [i["inputs"]["POSITION0"]["value"] for i in doc["invocations"]] == \
            [[0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 1.0]]
        (out / "good_one.json").unlink()


def test_validate_two_cases_one_invalid(tmp_path):
    good = write_case(tmp_path, "good_one", valid_case())
    bad = write_case(tmp_path, "bad_one", valid_case(primitive_topology="UNDEFINED"))
    assert_one_error_line(gpuia_cli("validate", good, bad), case="bad_one")


def test_max_invocations(tmp_path):
    # triangle_list_adjacency delivers 8 vertices x 2 instances = 16 > 10.
    src = CASES / "triangle_list_adjacency.json"
    assert_one_error_line(gpuia_cli("run", "--max-invocations", "10", src),
                          case="triangle_list_adjacency")
    # The same case under a limit it fits in runs.
    proc = gpuia_cli("run", "--max-invocations", "16", src)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["invocations"]) == 16


def test_huge_draw_is_refused_by_the_default_limit(tmp_path):
    doc = valid_case(draw={"DrawInstanced": {"VertexCountPerInstance": 4294967295,
                                             "InstanceCount": 4294967295,
                                             "StartVertexLocation": 0, "StartInstanceLocation": 0}})
    assert_one_error_line(gpuia_cli("run", write_case(tmp_path, "huge_draw", doc)),
                          case="huge_draw")


WGSL = """
struct VSIn { @location(0) POSITION: vec4<f32> };
struct VSOut { @builtin(position) SV_Position: vec4<f32> };
@vertex fn main(i: VSIn) -> VSOut { var o: VSOut; o.SV_Position = i.POSITION; return o; }
"""


def test_vertex_shader_refused_by_cpu_backend(tmp_path):
    src = write_case(tmp_path, "with_shader",
                     valid_case(vertex_shader={"wgsl": WGSL, "entry_point": "main"}))
    line = assert_one_error_line(gpuia_cli("run", "--backend", "cpu", src), case="with_shader")
    assert "shader" in line.lower()
    # It is a valid case: only the cpu backend cannot run it.
    assert gpuia_cli("validate", src).returncode == 0


# =============================================================================================
# stdin
# =============================================================================================
def test_run_from_stdin():
    proc = gpuia_cli("run", "--backend", "cpu", "-", stdin=TRIANGLE.read_text())
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [i["inputs"]["POSITION0"]["value"] for i in doc["invocations"]] == \
        [[0.0, 0.5, 0.0, 1.0], [0.5, -0.5, 0.0, 1.0], [-0.5, -0.5, 0.0, 1.0]]
    assert doc["statistics"] == {"IAVertices": 3, "IAPrimitives": 1, "VSInvocations": 3}


def test_validate_from_stdin():
    proc = gpuia_cli("validate", "-", stdin=json.dumps(valid_case()))
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("text", ["{not json", json.dumps(valid_case(primitive_topology="QUADS"))])
def test_invalid_from_stdin(text):
    assert_one_error_line(gpuia_cli("validate", "-", stdin=text), case=None)


def test_stdin_case_keeps_its_name():
    proc = gpuia_cli("run", "-", stdin=TRIANGLE.read_text())
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["case"] == "triangle_two_slots"


# -- the command line's structure --------------------------------------------------------------
def test_every_command_is_one_module_of_one_convention():
    """Each module of gpuia/cli/commands/ is a command, listed once in COMMANDS, with
    add_parser(subparsers) returning its parser and run(args); gpuia --help lists the commands
    in the table's order."""
    import argparse
    import pkgutil

    from gpuia.cli import build_parser, commands

    names = sorted(m.name for m in pkgutil.iter_modules(commands.__path__))
    assert sorted(m.__name__.rsplit(".", 1)[1] for m in commands.COMMANDS) == names
    assert len(set(commands.COMMANDS)) == len(commands.COMMANDS)
    for module in commands.COMMANDS:
        sub = argparse.ArgumentParser().add_subparsers()
        assert isinstance(module.add_parser(sub), argparse.ArgumentParser), module.__name__
        assert callable(module.run), module.__name__
    text = build_parser().format_help()
    # argparse puts a name as long as the help column on a line of its own: a space or a line
    # break follows the name.
    positions = [re.search(rf"\n    {m.__name__.rsplit('.', 1)[1]}\s", text).start()
                 for m in commands.COMMANDS]
    assert positions == sorted(positions), text


@pytest.mark.parametrize("argv", [["--help"], ["validate", "-q", str(TRIANGLE)], ["formats"]])
def test_commands_that_draw_nothing_start_without_wgpu(argv):
    """gpuia --help, validate and formats import neither wgpu nor the GPU side."""
    code = ("import sys\nfrom gpuia.cli import main\n"
            "try:\n    status = main(sys.argv[1:])\nexcept SystemExit as e:\n"
            "    status = e.code\n"
            "loaded = sorted(m for m in sys.modules if m == 'wgpu' or m.startswith('gpuia.gpu'))\n"
            "print('loaded:', loaded, file=sys.stderr)\nsys.exit(status)")
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == "loaded: []", proc.stderr


def test_check_takes_its_devices_from_a_given_pool(gpu_device, capsys):
    """main(argv, devices=pool): check makes a device per adapter once, in the pool, and
    later command lines take it from there; an adapter whose device cannot be made is one
    'unavailable' line, and with no device left check is one error line (exit 2)."""
    from gpuia.cli import main
    from gpuia.errors import UnsupportedError
    from gpuia.gpu.device import DevicePool

    made = []
    pool = DevicePool(make=lambda adapter: made.append(adapter) or gpu_device)
    argv = ["check", str(TRIANGLE), "--adapter", gpu_device.info["summary"]]
    assert [main(argv, devices=pool) for _ in range(3)] == [0, 0, 0]
    assert len(made) == 1 and len(pool) == 1
    capsys.readouterr()

    def refuse(adapter):
        raise UnsupportedError("no device today")

    assert main(argv, devices=DevicePool(make=refuse)) == 2
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"{gpu_device.info['summary']}: unavailable: no device today"]
    assert err.splitlines() == ["error: check: no selected adapter could create a device"]
