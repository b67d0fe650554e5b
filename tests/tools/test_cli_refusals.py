"""Bad arguments to the demo, layout and fuzz commands: exit 2 with one error line, no traceback,
whatever the filesystem says (found by review: unwritable outputs and unbounded numbers)."""


import pytest

from helpers import DATA, gpuia_cli
from helpers import REPO as ROOT

CPP = str(DATA / "layouts/imgui_impl_dx12.cpp")


@pytest.mark.parametrize("args,says", [
    (["demo", "--headless", "--size", "32x24", "--out", "{dir}"], "name a .png file"),
    pytest.param(["demo", "--headless", "--size", "32x24", "--out", "{file}/x.png"],
                 "cannot write the picture", marks=pytest.mark.gpu),  # renders, then writes
    (["layout", "--no-gpu", "--save-case", "{file}", CPP], "cannot create the folder"),
    (["layout", "--check", "--vertices", "2000000000", CPP], "product at most"),
    (["fuzz", "--timeout", "inf", "--cases", "1"], "at most 604800 seconds"),
    (["fuzz", "--seconds", "nan"], "at most 604800 seconds"),
])
def test_refused_with_one_error_line(tmp_path, args, says):
    afile = tmp_path / "afile"
    afile.write_text("x")
    args = [a.format(dir=tmp_path, file=afile) for a in args]
    proc = gpuia_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and says in errors[0], proc.stderr


def test_a_cut_off_array_is_a_parse_error_not_nothing_found(tmp_path):
    src = tmp_path / "cut.cpp"
    src.write_text('D3D12_INPUT_ELEMENT_DESC l[] = { {"POSITION", 0, '
                   'DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, '
                   '0 }, {"N", 0, DXGI_FORMAT_R32G32_FLOAT, 0,\n')
    proc = gpuia_cli("layout", "--no-gpu", str(src), cwd=tmp_path)
    assert proc.returncode == 2
    # One line, at the cut-off element (column 134: where its "{" stands), with the
    # compiler's own diagnostic of the cut (column 171: the end of the text).
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error: layout: {src}:1:134: array l: element 1: does not "
                               f"compile: {src}:1:171: error: "), lines[0]
    assert "expected expression" in lines[0]


def test_check_with_nothing_compared_is_not_a_pass(gpu_device, tmp_path):
    """`check --path native` on a case only the pulling path can run: exit 2, one error line
    (a native-only CI gate must not pass silently)."""
    proc = gpuia_cli("check", str(ROOT / "examples/cases/packed_formats.json"), "--path", "native",
                     cwd=tmp_path)
    assert proc.returncode == 2
    assert "native: not applicable" in proc.stdout
    assert proc.stderr.splitlines() == [
        "error: packed_formats: no GPU run could be compared on the chosen adapters and paths "
        "(see the lines above)"]


def test_layout_assume_false_that_matches_nothing_is_refused(tmp_path):
    src = str(ROOT / "tests/data/layouts/Renderer.cpp")
    proc = gpuia_cli("layout", "--no-gpu", "--assume-false", "nonsense cond", src, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "error: layout: --assume-false 'nonsense cond' matched no condition of a conditionally "
        "filled array (conditions are matched as written, whitespace aside)"]


def test_host_out_of_memory_is_one_error_line_that_says_so(monkeypatch, capsys):
    """A MemoryError while running a case (here injected into the reference) is exit 2 with one
    error line naming it as the host's, which the invalid fuzzer's judge looks for."""
    import gpuia.harness.run
    from gpuia.cli import main

    def exhausted(*args, **kwargs):
        raise MemoryError("Unable to allocate 16.0 GiB for an array")

    monkeypatch.setattr(gpuia.harness.run, "run_cpu", exhausted)  # the cpu backend's run
    case = ROOT / "tests/data/fuzz/empty_draw_with_huge_count.json"
    assert main(["run", str(case)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["error: empty_draw_with_huge_count: out of host memory: Unable to allocate "
                   "16.0 GiB for an array"], err


_LIMIT_CASE = {
    "gpuia_case": 1, "name": "limits",
    "input_layout": [{"SemanticName": "POSITION", "Format": "R32_FLOAT"}],
    "vertex_buffers": [{"slot": 0, "stride": 4, "data": {"dtype": "float32", "values": [1, 2]}}],
    "primitive_topology": "POINTLIST",
    "draw": {"DrawInstanced": {"VertexCountPerInstance": 2}},
}


@pytest.mark.parametrize("change, line", [
    (lambda d: d["vertex_buffers"][0].update(slot=32),
     "error: limits: vertex_buffers[0]: slot=32: input slots are 0..31 at feature level 12 "
     "(rules 3.1)"),
    (lambda d: d["vertex_buffers"][0].update(stride=2049),
     "error: limits: vertex_buffers[0]: StrideInBytes=2049: vertex buffer strides are 0..2048 "
     "bytes (rules 3.3)"),
    (lambda d: d.update(index_buffer={"format": "R16_UINT", "offset": 3,
                                      "data": {"hex": "0000 0000"}},
                        draw={"DrawIndexedInstanced": {"IndexCountPerInstance": 1}}),
     "error: limits: index_buffer: offset=3: an index buffer view starts at a multiple of its "
     "index size (2 bytes for R16_UINT; rules 7.4)"),
])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_d3d_binding_limits_are_one_error_line(tmp_path, command, change, line):
    """D3D's binding limits in a case file: exit 2 and one line naming the slot or field, the
    value and the rule, before anything reaches a device (rules 3.1, 3.3, 7.4)."""
    import copy
    import json
    doc = copy.deepcopy(_LIMIT_CASE)
    change(doc)
    path = tmp_path / "limits.json"
    path.write_text(json.dumps(doc))
    args = [command, str(path)] + (["--backend", "cpu"] if command == "run" else [])
    proc = gpuia_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [line]
