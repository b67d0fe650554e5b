"""The vs outputs run's values in every view of ``gpuia check`` and ``gpuia run``: the HTML
report's VS Out section, ``--table``, the CSV export and the result document, for a case with an
HLSL vertex shader and no Stream Output, against values derived by hand (tests/gpu/
test_gpu_vs_outputs.py's shader and strip)."""

from __future__ import annotations

import csv
import json

import numpy as np

from gpu.test_gpu_vs_outputs import EXPECTED_ID, EXPECTED_POS, HLSL, _doc
from gpuia.cli import main
from tools.test_html_report import check, parse, value_rows


def _case(tmp_path):
    path = tmp_path / "strip.json"
    path.write_text(json.dumps(_doc({"hlsl": HLSL})))
    return path


def test_html_vs_out_section_holds_the_vs_outputs_table(gpu_device, tmp_path, capsys):
    out = tmp_path / "r.html"
    rc, stdout, stderr = check(capsys, _case(tmp_path), "--path", "pulling", "--html", out)
    assert rc == 0, stdout + stderr
    root = parse(out.read_text(encoding="utf-8"))
    (table,) = root.find_all("table", "vsout")
    top = [th.text() for th in table.find_all("tr")[0].find_all("th")]
    assert top == ["", "#", "draw", "inst", "vtx", "SV_POSITION", "TEXCOORD0", "TEXCOORD1"]
    rows = [[td.text() for td in tr.find_all("td")][5:] for tr in value_rows(table)]
    # CPU and GPU columns per output: vertex 2 of instance 1 (row 4) is (6, 4.5, 0, 1), id 106.
    assert rows[4][:4] == ["6 4.5 0 1", "6 4.5 0 1", "106", "106"]
    assert len(rows) == 8 and not table.find_all("td", "diff")


def test_table_and_csv_show_outputs_next_to_inputs(gpu_device, tmp_path, capsys):
    folder = tmp_path / "csv"
    rc, stdout, _ = check(capsys, _case(tmp_path), "--path", "pulling", "--table", "--csv",
                          folder)
    assert rc == 0, stdout
    assert "== vs_outputs_strip: VS Out: " in stdout and "every invocation's outputs" in stdout
    (gpu_out,) = folder.glob("strip.*.vs_outputs.draw0.instance1.vs_out.csv")
    with gpu_out.open(newline="") as f:
        rows = list(csv.reader(f, skipinitialspace=True))
    assert rows[0] == ["VTX", "IDX", "SV_POSITION.x", "SV_POSITION.y", "SV_POSITION.z",
                       "SV_POSITION.w", "TEXCOORD0", "TEXCOORD1.x", "TEXCOORD1.y"]
    # Instance 1's positions 0, 1, 3, 4 (index values 2, 0, 1, 2), the cut at position 2 a
    # Restart row.
    assert [r[1] for r in rows[1:]] == ["2", "0", "--", "1", "2"]
    shaded = [r for r in rows[1:] if r[1] != "--"]
    assert [int(r[6]) for r in shaded] == EXPECTED_ID[4:, 0].tolist()
    assert [float(r[2]) for r in shaded] == EXPECTED_POS[4:, 0].tolist()


def test_run_writes_outputs_in_the_result(gpu_device, tmp_path, capsys):
    out = tmp_path / "result.json"
    rc = main(["run", str(_case(tmp_path)), "--backend", "gpu", "--path", "pulling", "--out",
               str(out)])
    capsys.readouterr()
    assert rc == 0
    doc = json.loads(out.read_text())
    got = [i["outputs"]["TEXCOORD0"]["bits"] for i in doc["invocations"]]
    assert got == EXPECTED_ID.tolist()
    assert np.array([i["outputs"]["SV_POSITION0"]["value"] for i in doc["invocations"]],
                    np.float32).tolist() == EXPECTED_POS.tolist()


def test_plot_series_of_the_outputs_under_the_shader_tolerance(gpu_device, monkeypatch):
    from gpu.test_gpu_vs_outputs import _nudged
    from gpuia.harness import outputs_check
    from gpuia.harness.case import load_case
    from gpuia.harness.crosscheck import cross_check
    from gpuia.harness.report.plot import error_series

    monkeypatch.setattr(outputs_check, "run_case_outputs_gpu", _nudged({("TEXCOORD1", 0, 0): 1}))
    result = cross_check(load_case(_doc({"hlsl": HLSL})), [gpu_device], ("pulling",), keep=True)
    series = {s.label.split(": ", 2)[2]: s for s in error_series([result])}
    # The float outputs, each under the tolerance; the uint output (equal) has none.
    assert set(series) == {"vs outputs: SV_POSITION0", "vs outputs: TEXCOORD1"}
    uv = series["vs outputs: TEXCOORD1"]
    assert uv.rule == "64 ULP or 1.52588e-05 absolute"
    assert uv.compared == 16 and uv.exact == 15 and uv.max_ulp == 1 and uv.mismatches == 0
    assert not series["vs outputs: SV_POSITION0"].differs
