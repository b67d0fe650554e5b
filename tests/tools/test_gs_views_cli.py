"""A geometry shader case through the command line's views: ``gpuia run --table`` and ``--csv``
(CPU reference), ``gpuia check --table``, ``--html`` and ``--csv`` (one adapter; the GPU side
draws the IA runs and reports the geometry shader's Stream Output as not applicable). The
expected rows are the two-stream case of tests/unit/test_gs_views.py, derived there by hand
from docs/rules.md section 13."""

from __future__ import annotations

import json

from gpuia.cli import main
from gs_view_cases import CUTS, TWO_STREAMS, TWO_STREAMS_SO, TWO_TEXT, gs_case


def write_case(tmp_path):
    path = tmp_path / "gs.json"
    path.write_text(json.dumps(gs_case(TWO_STREAMS, [(1, 2, 3, 4), (5, 6, 7, 8)],
                                       TWO_STREAMS_SO)))
    return path


def test_run_table_and_csv(tmp_path, capsys):
    path, csv = write_case(tmp_path), tmp_path / "csv"
    assert main(["run", str(path), "--table", "--rows", "3", "--csv", str(csv)]) == 0
    printed = capsys.readouterr().out
    # The heading carries the result's statistics, VSInvocations and the GS counts included.
    assert printed.startswith("== gs: POINTLIST, 1 draw(s), IAVertices 2, IAPrimitives 2, "
                              "VSInvocations 2, GSInvocations 2, GSPrimitives 6 "
                              "[cpu/reference]\n")
    assert TWO_TEXT in printed
    assert (csv / "gs.cpu.gs_out.stream0.csv").read_text().splitlines()[1:] == [
        "0, 0,  1.00,  2.00, 0, 0, 0, 0, 0, 0, 0", "1, 1,  1.00,  2.00, 10, 0, 0, 0, 0, 0, 0",
        "2, 2,  5.00,  6.00, 1, 1, 0, 0, 1, 0, 1", "3, 3,  5.00,  6.00, 11, 1, 0, 0, 1, 0, 1"]
    manifest = json.loads((csv / "gs.csv.json").read_text())
    assert [f["file"] for f in manifest["files"] if f["table"] == "GS Out"] == [
        "gs.cpu.gs_out.stream0.csv", "gs.cpu.gs_out.stream1.csv"]


def test_check_table_html_and_csv(gpu_device, tmp_path, capsys):
    path, csv, html = write_case(tmp_path), tmp_path / "csv", tmp_path / "r.html"
    rc = main(["check", str(path), "--path", "native", "--no-raster", "--table", "--rows", "3",
               "--html", str(html), "--csv", str(csv)])
    printed = capsys.readouterr().out
    assert rc == 0, printed
    assert TWO_TEXT in printed
    assert (csv / "gs.cpu.gs_out.stream1.csv").read_text().splitlines()[1:] == [
        "0, 0,  3.00,  4.00, 20, 0, 0, 0, 0, 0, 0", "1, 1,  7.00,  8.00, 21, 1, 0, 0, 1, 0, 1"]
    report = html.read_text()
    assert "Geometry shader output (GS Out)" in report
    assert "stream 1 NumPrimitivesWritten 1, stream 1 PrimitivesStorageNeeded 2" in report


def test_check_table_of_a_geometry_shader_without_stream_output(gpu_device, tmp_path, capsys):
    # No Stream Output: the stage runs for the view alone, and its headings carry no SO
    # statistics. The rows are tests/unit/test_gs_views.py's (13.4, 13.5).
    path = tmp_path / "cuts.json"
    path.write_text(json.dumps(gs_case(CUTS, [(0, 0, 0, 1)], None)))
    assert main(["check", str(path), "--path", "native", "--no-raster", "--table"]) == 0
    printed = capsys.readouterr().out
    assert ("== gs: GS Out stream 0 (LineStream): 3 vertices, 1 cuts, from 1 invocations\n"
            "inv  draw  inst  prim  gsi  in VTX  vtx  ID\n"
            "---  ----  ----  ----  ---  ------  ---  --\n"
            "  0     0     0     0    0  0       0    1\n"
            "  0     0     0     0    0  0       1    2\n"
            "  0     0     0     0    0  0       cut\n"
            "  0     0     0     0    0  0       2    3\n") in printed
