"""The geometry shader's output in every view (gpuia/harness/report/gs_out.py): the text tables
of ``gpuia run --table`` and ``gpuia check --table``, the HTML report's view and the CSV export's
GS Out files, and the per-stream Stream Output statistics beside them.

Two small cases (tests/gs_view_cases.py), every expected value derived by hand in the comments
from docs/rules.md section 13 (13.1 one invocation per input primitive, 13.3 SV_PrimitiveID,
13.4 maxvertexcount, 13.5 strips and RestartStrip, 13.8 per-stream overflow and statistics) and
9.7 (a primitive is written only when it fits). The CSV follows RenderDoc's export as
docs/exports.md states it. The CPU reference only (Slang and g++ for the shader): needs no
adapter.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import CheckResult
from gpuia.harness.export.mesh_csv import CsvSide, gs_out_csv, write_case_csv
from gpuia.harness.reference_geometry import listed_calls
from gpuia.harness.report.gs_out import check_gs_out_text, gs_out, gs_out_text
from gpuia.harness.report.html_case import case_view
from gpuia.harness.report.html_render import render_case
from gpuia.harness.report.mesh import mesh_text
from gpuia.harness.run import run_cpu
from gs_view_cases import CUTS, TWO_STREAMS, TWO_STREAMS_SO, TWO_TEXT, gs_case


@pytest.fixture(scope="module")
def two():
    case = load_case(gs_case(TWO_STREAMS, [(1, 2, 3, 4), (5, 6, 7, 8)], TWO_STREAMS_SO))
    return case, run_cpu(case)


@pytest.fixture(scope="module")
def cuts():
    case = load_case(gs_case(CUTS, [(0, 0, 0, 1)], None))
    return case, run_cpu(case)


def test_the_result_statistics(two):
    _, run = two
    # 2 points, 1 GS instance: 2 invocations (13.1); 4 points out on stream 0 and 2 on stream 1,
    # each a complete primitive: GSPrimitives 6 (13.8). The VS ran for the 2 delivered vertices.
    assert run.document["statistics"] == {"IAVertices": 2, "IAPrimitives": 2,
                                          "VSInvocations": 2, "GSInvocations": 2,
                                          "GSPrimitives": 6}
    # Stream 0: 4 points of 4 bytes fit in 64 bytes. Stream 1: 2 points need 16 bytes, slot 1
    # holds 8: the first is written, the second is not (9.7), on its own (13.8).
    assert run.document["stream_output"]["streams"][:2] == [
        {"stream": 0, "NumPrimitivesWritten": 4, "PrimitivesStorageNeeded": 4},
        {"stream": 1, "NumPrimitivesWritten": 1, "PrimitivesStorageNeeded": 2}]


def test_text_tables_one_per_stream_within_the_row_limit(two):
    case, run = two
    # Invocation 0 is point 0 (VTX 0, SV_PrimitiveID 0), invocation 1 point 1. Stream 0's rows:
    # (1 2, 0) (1 2, 10) from invocation 0, (5 6, 1) (5 6, 11) from 1; three shown, one more.
    out = gs_out(case, run.ia, run.geometry, run.so)
    assert gs_out_text("gs", out, 3) == TWO_TEXT
    assert "... " not in gs_out_text("gs", out, None)
    assert "  1     0     0     1    0  1       3    5 6  11" in gs_out_text("gs", out, None)


def test_cuts_and_maxvertexcount(cuts):
    case, run = cuts
    # The leading RestartStrip opens nothing and is not listed (13.5); Appends 1 2, the cut and
    # Append 3 take effect; Append 4 is past maxvertexcount(3), and so is the cut after it
    # (13.4). Strip (1, 2) is one line; (3) alone is dropped: GSPrimitives 1.
    assert run.document["statistics"]["GSPrimitives"] == 1
    assert [e.get("cut", False) for e in run.document["geometry_invocations"][0]["emits"]] == [
        False, False, True, False]
    text = gs_out_text("gs", gs_out(case, run.ia, run.geometry, None), None)
    assert text.splitlines()[1:] == [
        "== gs: GS Out stream 0 (LineStream): 3 vertices, 1 cuts, from 1 invocations",
        "inv  draw  inst  prim  gsi  in VTX  vtx  ID",
        "---  ----  ----  ----  ---  ------  ---  --",
        "  0     0     0     0    0  0       0    1",
        "  0     0     0     0    0  0       1    2",
        "  0     0     0     0    0  0       cut",
        "  0     0     0     0    0  0       2    3"]


def test_csv_one_file_per_stream(two, cuts, tmp_path):
    case, run = two
    out = gs_out(case, run.ia, run.geometry, run.so)
    # RenderDoc's columns first (VTX the row, IDX the vertex in the stream, floats with two
    # decimals and a space for the sign), then the invocation's.
    assert gs_out_csv(out, out.streams[1]) == (
        "VTX, IDX, P.x, P.y, ID, INVOCATION, DRAW, INSTANCE, SV_PrimitiveID, SV_GSInstanceID, "
        "INPUT VTX\n"
        "0, 0,  3.00,  4.00, 20, 0, 0, 0, 0, 0, 0\n"
        "1, 1,  7.00,  8.00, 21, 1, 0, 0, 1, 0, 1\n")
    ccase, crun = cuts
    cout = gs_out(ccase, crun.ia, crun.geometry, None)
    # A RestartStrip row is written as RenderDoc writes a strip cut: IDX --, " Restart" cells.
    assert gs_out_csv(cout, cout.streams[0]).splitlines()[1:] == [
        "0, 0, 1, 0, 0, 0, 0, 0, 0", "1, 1, 2, 0, 0, 0, 0, 0, 0",
        "2, --,  Restart, 0, 0, 0, 0, 0, 0", "3, 2, 3, 0, 0, 0, 0, 0, 0"]
    manifest = json.loads(write_case_csv(tmp_path, "gs", case, [
        CsvSide("cpu", "cpu", "reference", run.ia, gs_out=out)]).read_text())
    assert manifest["format"] == "RenderDoc mesh viewer CSV (VS In, VS Out, GS Out)"
    gs_files = [f for f in manifest["files"] if f["table"] == "GS Out"]
    assert gs_files == [
        {"file": "gs.cpu.gs_out.stream0.csv", "table": "GS Out", "side": "cpu", "draw": None,
         "instance": None, "stream": 0, "rows": 4},
        {"file": "gs.cpu.gs_out.stream1.csv", "table": "GS Out", "side": "cpu", "draw": None,
         "instance": None, "stream": 1, "rows": 2}]
    assert (tmp_path / "gs.cpu.gs_out.stream1.csv").read_text() == gs_out_csv(out,
                                                                             out.streams[1])


def kept(case, run) -> CheckResult:
    """What cross_check(keep=True) keeps of the CPU side, with no GPU run."""
    result = CheckResult(case.name)
    result.case_data, result.reference, result.so_reference = case, run.ia, run.so
    result.geometry = run.geometry
    return result


def test_check_table_adds_the_gs_tables(two):
    case, run = two
    result = kept(case, run)
    text = mesh_text(result, 3) + check_gs_out_text(result, 3)
    assert text.endswith(TWO_TEXT)


def test_html_view_tables_and_per_stream_statistics(two):
    case, run = two
    view = case_view(kept(case, run), rows=1)
    gv = view.geometry
    assert gv is not None and gv.statistics == [("GSInvocations", "2"), ("GSPrimitives", "6")]
    assert [(s.title, s.total_rows, len(s.rows)) for s in gv.streams] == [
        ("Stream 0 (PointStream): 4 vertices, 0 cuts; NumPrimitivesWritten 4, "
         "PrimitivesStorageNeeded 4", 4, 1),
        ("Stream 1 (PointStream): 2 vertices, 0 cuts; NumPrimitivesWritten 1, "
         "PrimitivesStorageNeeded 2", 2, 1)]
    assert gv.streams[1].rows == [["0", "0", "0", "0", "0", "0", "0", "3 4", "20"]]
    stats = dict(view.reference_stats)
    assert (stats["stream 1 NumPrimitivesWritten"], stats["stream 1 PrimitivesStorageNeeded"],
            stats["stream 3 NumPrimitivesWritten"]) == ("1", "2", "0")
    html = str(render_case(view, 0, True))
    assert "Geometry shader output (GS Out)" in html and "1 of 4 rows shown" in html


def test_a_case_without_a_geometry_shader_shows_none():
    doc = gs_case(TWO_STREAMS, [(1, 2, 3, 4)], None)
    del doc["geometry_shader"]
    case = load_case(doc)
    run = run_cpu(case)
    assert run.geometry is None and "geometry_invocations" not in run.document
    result = kept(case, run)
    assert "GS Out" not in mesh_text(result) and check_gs_out_text(result) == ""
    view = case_view(result)
    assert view.geometry is None and "GS Out" not in str(render_case(view, 0, True))


def test_listed_calls_per_invocation_and_stream():
    # Calls (invocation, stream, RestartStrip?, took effect?) in call order. A cut is listed only
    # after an Append of its own invocation and stream that took effect (13.5); a call that did
    # not take effect (13.4) never is.
    calls = [(0, 1, True, True),    # 0: stream 1 has no Append yet in invocation 0: not listed
             (0, 0, False, True),   # 1: listed
             (0, 0, True, True),    # 2: after 1: listed
             (0, 1, True, True),    # 3: stream 1 still has none: not listed
             (0, 1, False, True),   # 4: listed
             (0, 1, True, True),    # 5: after 4: listed
             (1, 0, True, True),    # 6: invocation 1 has no Append yet (1 was invocation 0's)
             (1, 0, False, False),  # 7: did not take effect
             (1, 0, True, True)]    # 8: the only Append before it did not take effect
    inv, stream, cut, kept = (np.array(c) for c in zip(*calls, strict=True))
    run = SimpleNamespace(kept=kept, calls=SimpleNamespace(invocation=inv, stream=stream,
                                                           cut=cut))
    assert listed_calls(run).tolist() == [1, 2, 4, 5]
