"""``gpuia run/check --csv``, ``gpuia check --junit``, the VS Out and primitive tables of
``--table``, and ``adapter_info`` in results (docs/exports.md).

Every expected CSV text below is written out by hand from the case data and RenderDoc's export
rules as docs/exports.md states them (qrenderdoc/Windows/BufferViewer.cpp at commit 369520d: cells
joined by ", ", ``VTX, IDX`` first, ``NAME.x``..., `` Restart`` rows, ``No Vertices``; floats
with 2 to 5 decimals and a space for a missing sign, ``E`` notation outside [1e-5, 1e7]). The
JUnit file is parsed back with xml.etree and checked against the elements and attributes the
common JUnit schema (Jenkins' junit-10.xsd) allows.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from gpuia.cli import main
from gpuia.harness.export.mesh_csv import renderdoc_number
from helpers import EXAMPLE_CASES, TRIANGLE, assert_one_error_line, gpuia_cli

SO_STRIP = EXAMPLE_CASES / "stream_output_strip_overflow.json"
UNALIGNED = EXAMPLE_CASES / "unaligned_stride.json"


@pytest.mark.parametrize("bits, shader_type, text", [
    (0x3F000000, "float", " 0.50"),         # 0.5: fixed notation trimmed to 2 decimals
    (0xBF000000, "float", "-0.50"),         # the sign takes the space's place
    (0x00000000, "float", " 0.00"),
    (0x80000000, "float", " 0.00"),         # -0 is written as 0
    (0x3F2AAAAB, "float", " 0.66667"),      # 2/3 as float32 = 0.666666686..., 5 decimals
    (0x42F6E979, "float", " 123.456"),      # 123.456f = 123.456001...: trailing zeros go
    (0x4B189680, "float", " 10000000.00"),  # 1e7 is not above 1e7: fixed notation
    (0x4B800000, "float", " 1.67772E+07"),  # 2^24 = 16777216 > 1e7: E notation, 5 decimals
    (0x358637BD, "float", " 1.00000E-06"),  # float32 nearest 1e-6 (9.99999997e-07) < 1e-5
    (0x7F800000, "float", " INF"),
    (0xFF800000, "float", "-INF"),
    (0x7FC00000, "float", " NaN"),
    (5, "sint", " 5"),
    (0xFFFFFFFF, "sint", "-1"),
    (7, "uint", "7"),                       # unsigned: no space
    (0xFFFFFFFF, "uint", "4294967295"),
])
def test_numbers_are_written_as_renderdoc_writes_them(bits, shader_type, text):
    assert renderdoc_number(bits, shader_type) == text


def test_run_csv_of_a_triangle(tmp_path):
    out = tmp_path / "csv"
    proc = gpuia_cli("run", TRIANGLE, "--csv", out)
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)  # the result still goes to stdout
    assert sorted(p.name for p in out.iterdir()) == [
        "triangle_two_slots.cpu.draw0.instance0.vs_in.csv", "triangle_two_slots.csv.json"]
    # POSITION R32G32B32_FLOAT (0, 0.5, 0), (0.5, -0.5, 0), (-0.5, -0.5, 0); COLOR
    # R8G8B8A8_UNORM ff0000ff, 00ff00ff, 0000ffff: red, green, blue, alpha 255/255 = 1.
    assert (out / "triangle_two_slots.cpu.draw0.instance0.vs_in.csv").read_text() == (
        "VTX, IDX, POSITION.x, POSITION.y, POSITION.z, COLOR.x, COLOR.y, COLOR.z, COLOR.w\n"
        "0, 0,  0.00,  0.50,  0.00,  1.00,  0.00,  0.00,  1.00\n"
        "1, 1,  0.50, -0.50,  0.00,  0.00,  1.00,  0.00,  1.00\n"
        "2, 2, -0.50, -0.50,  0.00,  0.00,  0.00,  1.00,  1.00\n")
    manifest = json.loads((out / "triangle_two_slots.csv.json").read_text())
    assert manifest["gpuia_csv"] == 1 and manifest["case"] == "triangle_two_slots"
    assert "baldurk/renderdoc" in manifest["source"]
    (side,) = manifest["sides"]
    assert side["tag"] == "cpu" and side["adapter"] is None and side["adapter_info"] is None
    assert "no stream_output section" in side["vs_out"]  # no VS outputs, and it says so
    assert manifest["files"] == [{"file": "triangle_two_slots.cpu.draw0.instance0.vs_in.csv",
                                  "table": "VS In", "side": "cpu", "draw": 0, "instance": 0,
                                  "rows": 3}]


STRIP_CASE = {
    "gpuia_case": 1, "name": "strip_names",
    "input_layout": [
        {"SemanticName": "POSITION", "Format": "R32_FLOAT", "InputSlot": 0},
        {"SemanticName": "TEXCOORD", "SemanticIndex": 0, "Format": "R32_SINT", "InputSlot": 1},
        {"SemanticName": "TEXCOORD", "SemanticIndex": 1, "Format": "R32G32_UINT",
         "InputSlot": 2},
        {"SemanticName": "Normal", "SemanticIndex": 3, "Format": "R32_FLOAT", "InputSlot": 3}],
    "vertex_buffers": [
        {"slot": 0, "stride": 4,
         "data": {"dtype": "float32", "values": [0.0, 0.25, -1.5, 2e-6, 3e8]}},
        {"slot": 1, "stride": 4, "data": {"dtype": "int32", "values": [-1, 0, 7, -7, 100]}},
        {"slot": 2, "stride": 8,
         "data": {"dtype": "uint32", "values": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}},
        {"slot": 3, "stride": 4,
         "data": {"dtype": "float32", "values": [0.1, 0.2, 0.3, 0.4, 0.5]}}],
    "index_buffer": {"format": "R16_UINT",
                     "data": {"dtype": "uint16", "values": [0, 1, 2, 65535, 3]}},
    "strip_cut_value": "0xFFFF",
    "primitive_topology": "TRIANGLESTRIP",
    "draw": [{"DrawIndexedInstanced": {"IndexCountPerInstance": 5, "InstanceCount": 2,
                                       "BaseVertexLocation": 1}},
             {"DrawInstanced": {"VertexCountPerInstance": 0}}],
}

# Index values 0, 1, 2, cut, 3 with BaseVertexLocation 1 fetch vertices 1, 2, 3 and 4; IDX is
# the index value. Names: POSITION alone; TEXCOORD twice, so with its index; Normal once, so
# without index 3, spelled as the layout spells it. Position 3 is the cut: a restart row.
# float32(2e-6) = 1.99999995e-06 < 1e-5 and 3e8 > 1e7 take E notation; 0.2f, 0.3f, 0.4f are
# 0.200000003, 0.300000012, 0.400000006: 0.20, 0.30, 0.40.
STRIP_HEADER = "VTX, IDX, POSITION, TEXCOORD0, TEXCOORD1.x, TEXCOORD1.y, Normal\n"
STRIP_ROWS = ("0, 0,  0.25,  0, 3, 4,  0.20\n"
              "1, 1, -1.50,  7, 5, 6,  0.30\n"
              "2, 2,  2.00000E-06, -7, 7, 8,  0.40\n"
              "3, --,  Restart,  Restart,  Restart,  Restart,  Restart\n"
              "4, 3,  3.00000E+08,  100, 9, 10,  0.50\n")


def test_run_csv_restart_rows_instances_and_an_empty_draw(tmp_path):
    case = tmp_path / "strip.json"
    case.write_text(json.dumps(STRIP_CASE))
    out = tmp_path / "csv"
    proc = gpuia_cli("run", case, "--csv", out)
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == ["strip.cpu.draw0.instance0.vs_in.csv", "strip.cpu.draw0.instance1.vs_in.csv",
                     "strip.cpu.draw1.instance0.vs_in.csv", "strip.csv.json"]
    # RenderDoc shows one instance at a time: one file each, the same rows (nothing per
    # instance here).
    for i in (0, 1):
        text = (out / f"strip.cpu.draw0.instance{i}.vs_in.csv").read_text()
        assert text == STRIP_HEADER + STRIP_ROWS
    # A draw of 0 vertices: RenderDoc's 'No Vertices' row, '---' in VTX and IDX, the other
    # four data cells empty.
    assert (out / "strip.cpu.draw1.instance0.vs_in.csv").read_text() == (
        STRIP_HEADER + "---, ---, No Vertices, , , , \n")
    rows = {f["file"]: f["rows"] for f in json.loads((out / "strip.csv.json").read_text())["files"]}
    assert rows == {"strip.cpu.draw0.instance0.vs_in.csv": 5,
                    "strip.cpu.draw0.instance1.vs_in.csv": 5,
                    "strip.cpu.draw1.instance0.vs_in.csv": 1}


# The 5-vertex strip of stream_output_strip_overflow: (0,0) (1,0) (0,1) (1,1) (2,0). The pass-
# through shader's outputs: SV_POSITION (0, 0, 0, 1) (the layout has no SV_Position element),
# POSITION with its default fill (x, y, 0, 1), SV_VERTEXID, SV_INSTANCEID.
SO_HEADER = ("VTX, IDX, SV_POSITION.x, SV_POSITION.y, SV_POSITION.z, SV_POSITION.w, POSITION.x, "
             "POSITION.y, POSITION.z, POSITION.w, SV_VERTEXID, SV_INSTANCEID\n")
SO_CPU = SO_HEADER + "".join(
    f"{i}, {i},  0.00,  0.00,  0.00,  1.00,  {x},  {y},  0.00,  1.00, {i}, 0\n"
    for i, (x, y) in enumerate([("0.00", "0.00"), ("1.00", "0.00"), ("0.00", "1.00"),
                                ("1.00", "1.00"), ("2.00", "0.00")]))
# The GPU's targets: the declaration writes POSITION.xy and SV_VertexID; 96 bytes after the
# initial 4 hold six 16-byte vertices, triangles (0,1,2) and (1,3,2), so vertex 4 is in no
# written primitive: '---' for everything the GPU did not write.
SO_GPU = SO_HEADER + "".join(
    f"{i}, {i}, ---, ---, ---, ---,  {x},  {y}, ---, ---, {i}, ---\n"
    for i, (x, y) in enumerate([("0.00", "0.00"), ("1.00", "0.00"), ("0.00", "1.00"),
                                ("1.00", "1.00")])) + (
    "4, 4, ---, ---, ---, ---, ---, ---, ---, ---, ---, ---\n")


def test_run_csv_of_stream_output_on_both_backends(gpu_device, tmp_path):
    out = tmp_path / "csv"
    proc = gpuia_cli("run", SO_STRIP, "--csv", out)
    assert proc.returncode == 0, proc.stderr
    assert (out / "stream_output_strip_overflow.cpu.draw0.instance0.vs_out.csv").read_text() \
        == SO_CPU
    gpu_out = tmp_path / "gpu"
    proc = gpuia_cli("run", SO_STRIP, "--backend", "gpu", "--csv", gpu_out,
                     "--gpu-backend", gpu_device.info["backend"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    info = gpu_device.info
    assert result["adapter"] == {k: info[k] for k in ("name", "backend", "type", "summary")}
    assert result["adapter_info"] == {k: info[k] for k in
                                      ("driver", "vendor", "vendor_id", "device_id",
                                       "wgpu_native")}
    (vs_out,) = gpu_out.glob("*.stream_output.draw0.instance0.vs_out.csv")
    assert vs_out.name.startswith("stream_output_strip_overflow.")
    assert f"via_{info['backend']}" in vs_out.name
    assert vs_out.read_text() == SO_GPU
    (vs_in,) = list(gpu_out.glob("*.vs_in.csv"))
    assert vs_in.read_text() == (
        "VTX, IDX, POSITION.x, POSITION.y\n"
        "0, 0,  0.00,  0.00\n1, 1,  1.00,  0.00\n2, 2,  0.00,  1.00\n3, 3,  1.00,  1.00\n"
        "4, 4,  2.00,  0.00\n")
    manifest = json.loads((gpu_out / "stream_output_strip_overflow.csv.json").read_text())
    assert [s["path"] for s in manifest["sides"]][1] == "stream output"
    assert all(s["adapter_info"] == result["adapter_info"] for s in manifest["sides"])


def test_cpu_result_has_a_null_adapter_info():
    proc = gpuia_cli("run", TRIANGLE)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["adapter"] is None and doc["adapter_info"] is None


def test_csv_refusals_before_anything_runs(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert_one_error_line(gpuia_cli("run", TRIANGLE, "--csv", afile), "--csv",
                          "is a file, not a folder")
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.json").write_text(TRIANGLE.read_text())
    out = tmp_path / "out"
    proc = gpuia_cli("run", "a/x.json", "b/x.json", "--csv", out, "--table", cwd=tmp_path)
    assert_one_error_line(proc, "--csv", "a/x.json and b/x.json would both write")
    assert list(out.iterdir()) == []
    assert_one_error_line(gpuia_cli("check", TRIANGLE, "--junit", tmp_path), "--junit",
                          "is a folder")


# -- gpuia check --csv / --junit / --table ------------------------------------------------------

# What the common JUnit schema (Jenkins' junit-10.xsd) allows, element by element: attributes
# and children (the attributes every reader of it knows; gpuia writes no others).
JUNIT_SCHEMA = {
    "testsuites": ({"name", "time", "tests", "failures", "disabled", "errors"}, {"testsuite"}),
    "testsuite": ({"name", "tests", "failures", "errors", "time", "disabled", "skipped",
                   "timestamp", "hostname", "id", "package"},
                  {"properties", "testcase", "system-out", "system-err"}),
    "properties": (set(), {"property"}),
    "property": ({"name", "value"}, set()),
    "testcase": ({"name", "assertions", "time", "classname", "status"},
                 {"skipped", "error", "failure", "system-out", "system-err"}),
    "skipped": ({"message"}, set()),
    "error": ({"message", "type"}, set()),
    "failure": ({"message", "type"}, set()),
}
REQUIRED = {"testsuite": {"name", "tests"}, "testcase": {"name"}, "property": {"name", "value"}}


def assert_junit_schema(element) -> None:
    attrs, children = JUNIT_SCHEMA[element.tag]
    assert set(element.attrib) <= attrs, (element.tag, element.attrib)
    assert REQUIRED.get(element.tag, set()) <= set(element.attrib), element.tag
    for child in element:
        assert child.tag in children, (element.tag, child.tag)
        assert_junit_schema(child)
    if element.tag == "testsuite":
        kids = [c.tag for c in element]
        assert "properties" not in kids[1:], "properties come first"
    if element.tag == "testcase":
        assert len([c for c in element if c.tag == "skipped"]) <= 1


def test_check_junit_csv_and_table(gpu_device, tmp_path, capsys, monkeypatch):
    import gpuia.harness.crosscheck as g  # where cross_check takes its GPU run from

    real = g.run_case_gpu

    def one_bit_off(*args, **kwargs):  # the triangle's vertex 2 POSITION.x: one bit flipped
        res = real(*args, **kwargs)
        data = res.ia.inputs["POSITION0"]
        bits = data.bits.copy()
        bits[2, 0] ^= 1
        res.ia.inputs["POSITION0"] = type(data)(data.type, bits)
        return res

    monkeypatch.setattr(g, "run_case_gpu", one_bit_off)
    bad = tmp_path / "bad_case.json"
    bad.write_text('{"gpuia_case": 1}')
    junit, csv = tmp_path / "report.xml", tmp_path / "csv"
    rc = main(["check", str(TRIANGLE), str(SO_STRIP), str(UNALIGNED), str(bad), "--path",
               "native", "--table", "--junit", str(junit), "--csv", str(csv)])
    printed = capsys.readouterr().out
    assert rc == 2  # the invalid case; the difference alone would be 1

    root = ET.parse(junit).getroot()
    assert_junit_schema(root)
    suites = {s.get("name"): s for s in root}
    assert list(suites) == ["triangle_two_slots", "stream_output_strip_overflow",
                            "unaligned_stride", "bad_case"]
    summary = gpu_device.info["summary"]

    def cases(name):
        return {c.get("name"): c for c in suites[name].findall("testcase")}

    # The triangle: one native run (no raster line: not indexed, no strip), which differs.
    tri = cases("triangle_two_slots")
    assert list(tri) == [f"{summary}: native"]
    (failure,) = tri[f"{summary}: native"]
    assert failure.tag == "failure" and failure.get("type") == "DIFFERENT"
    assert failure.get("message") == "2/3 invocations match, POSITION0: 1 differ"
    assert "!=" in failure.text  # the table of the differing invocation
    assert tri[f"{summary}: native"].get("classname") == "gpuia.triangle_two_slots"
    assert float(tri[f"{summary}: native"].get("time")) >= 0
    # The SO strip: native (differs: vertex 2 flipped too), raster (a strip) and the GPU's
    # pipeline statistics of its draws (skipped: not applicable, on an adapter without the
    # query), stream output.
    so = cases("stream_output_strip_overflow")
    assert list(so) == [f"{summary}: native", f"{summary}: raster",
                        f"{summary}: pipeline statistics", f"{summary}: stream output"]
    skipped_stats = int(not gpu_device.caps.pipeline_statistics_query)
    assert [len(so[k]) for k in so] == [1, 0, skipped_stats, 0]
    # unaligned_stride on the native path only: not applicable, a skipped test case; and as
    # nothing was compared, the case itself is an error (exit 2).
    unaligned = cases("unaligned_stride")
    assert list(unaligned) == [f"{summary}: native", "case"]
    (skipped,) = unaligned[f"{summary}: native"]
    assert skipped.tag == "skipped" and skipped.get("message").startswith("not applicable: ")
    (nothing,) = unaligned["case"]
    assert nothing.tag == "error" and "no GPU run could be compared" in nothing.get("message")
    # The invalid case: a suite of its own with one error.
    (load,) = cases("bad_case").values()
    assert load.get("name") == "case" and load[0].tag == "error"
    assert load[0].get("message").startswith("error: bad_case: ")
    counts = {k: root.get(k) for k in ("tests", "failures", "errors")}
    assert counts == {"tests": "8", "failures": "2", "errors": "2"}
    assert suites["stream_output_strip_overflow"].get("skipped") == str(skipped_stats)
    assert [suites["unaligned_stride"].get(k) for k in ("tests", "skipped", "errors")] == \
        ["2", "1", "1"]
    # The adapter's driver in every checked case's properties.
    props = {p.get("name"): p.get("value") for p in suites["triangle_two_slots"].iter("property")}
    assert f"wgpu-native {gpu_device.info['wgpu_native']}" in props[f"adapter: {summary}"]
    if gpu_device.info["driver"]:
        assert f"driver {gpu_device.info['driver']}" in props[f"adapter: {summary}"]

    # --csv: the CPU reference and the GPU run of the triangle, the flipped bit in the GPU's.
    tri_csv = sorted(p.name for p in csv.glob("triangle_two_slots.*"))
    assert len(tri_csv) == 3 and "triangle_two_slots.csv.json" in tri_csv
    (gpu_file,) = csv.glob("triangle_two_slots.*.native.draw0.instance0.vs_in.csv")
    lines = gpu_file.read_text().splitlines()
    # -0.5 with its last mantissa bit set is -0.50000006: still -0.50 at 5 decimals.
    assert lines[3] == "2, 2, -0.50, -0.50,  0.00,  0.00,  0.00,  1.00,  1.00"
    assert (csv / "stream_output_strip_overflow.cpu.draw0.instance0.vs_out.csv").read_text() \
        == SO_CPU
    (so_gpu,) = csv.glob("stream_output_strip_overflow.*.stream_output.draw0.instance0."
                         "vs_out.csv")
    assert so_gpu.read_text() == SO_GPU

    # --table: the VS Out table of the SO run, and the strip's primitives in D3D's order (the
    # odd triangle 1 3 2, rules 9.3); the triangle case says it has no VS outputs.
    assert "== triangle_two_slots: VS Out: no VS outputs:" in printed
    assert "== stream_output_strip_overflow: VS Out: " in printed
    prims = printed.split("== stream_output_strip_overflow: primitives")[1].splitlines()
    rows = [line.split() for line in prims[3:6]]
    assert [r[:9] for r in rows] == [["0", "0", "0", "0", "1", "2", "0", "1", "2"],
                                     ["1", "0", "0", "1", "3", "2", "1", "3", "2"],
                                     ["2", "0", "0", "2", "3", "4", "2", "3", "4"]]
