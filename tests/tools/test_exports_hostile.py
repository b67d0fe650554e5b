"""Exports of hostile inputs (docs/exports.md): CSV cells quoted as RFC 4180 asks, text cells
that a spreadsheet would evaluate as a formula neutralised as OWASP's CSV-injection guidance
asks, JUnit suites that stay apart when two case files share a name, and every output of
``gpuia check`` written when a case file's name is not UTF-8.

Expected texts are written by hand: RFC 4180 section 2 (a field holding a comma, a double quote
or a line break is enclosed in double quotes, a double quote inside doubled), OWASP's "CSV
Injection" page (a cell starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return gets a
``'`` in front and is enclosed in double quotes), and RenderDoc's layout as docs/exports.md
states it (cells joined by ", ", so every cell after the first starts with the separator's
space: the space is inside the quotes of a quoted cell, which keeps the file RFC 4180).
"""

from __future__ import annotations

import csv
import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpuia.cli import main
from helpers import gpuia_cli


def _case(semantics, values, name="hostile") -> dict:
    """A point list of 3 vertices, one R32_FLOAT element per semantic, all in slot 0."""
    return {"gpuia_case": 1, "name": name,
            "input_layout": [{"SemanticName": s, "Format": "R32_FLOAT"} for s in semantics],
            "vertex_buffers": [{"slot": 0, "stride": 4 * len(semantics),
                                "data": {"dtype": "float32", "values": values}}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}}}


def _run_csv(tmp_path, doc) -> tuple[str, dict]:
    """``gpuia run case.json --csv out`` (the CPU reference): the one VS In file, the manifest."""
    case, out = tmp_path / "h.json", tmp_path / "csv"
    case.write_text(json.dumps(doc))
    assert main(["run", str(case), "--csv", str(out), "--out", str(tmp_path / "r.json")]) == 0
    text = (out / "h.cpu.draw0.instance0.vs_in.csv").read_bytes().decode("utf-8")
    return text, json.loads((out / "h.csv.json").read_text())


# -- RFC 4180 quoting ----------------------------------------------------------------------------

def test_csv_cells_with_comma_quote_and_line_breaks_are_quoted(tmp_path):
    names = ["A,B", 'Q"T', "N\nL", "C\rR", "PLAIN"]
    text, manifest = _run_csv(tmp_path, _case(names, [1, 2, 3, 4, 5] * 3))
    # Each of the first four holds what RFC 4180 encloses in quotes (the quote doubled); the
    # separator's space goes inside the quotes; PLAIN needs nothing and keeps RenderDoc's form.
    assert text == ('VTX, IDX," A,B"," Q""T"," N\nL"," C\rR", PLAIN\n'
                    "0, 0,  1.00,  2.00,  3.00,  4.00,  5.00\n"
                    "1, 1,  1.00,  2.00,  3.00,  4.00,  5.00\n"
                    "2, 2,  1.00,  2.00,  3.00,  4.00,  5.00\n")
    # An RFC 4180 reader (Python's csv module as it reads by default) gets rectangular rows
    # and every name back, with the separator's space in front.
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert [len(r) for r in rows] == [7, 7, 7, 7]
    assert rows[0] == ["VTX", " IDX", " A,B", ' Q"T', " N\nL", " C\rR", " PLAIN"]
    # The manifest counts data rows, not line ends.
    assert manifest["files"][0]["rows"] == 3


def test_csv_without_anything_to_quote_is_unchanged(tmp_path):
    """RenderDoc's bytes where nothing needs quoting: spaces (in a name and the empty cells of
    a 'No Vertices' row) are no reason to quote."""
    doc = _case(["A B", "POS"], [1, -2] * 3)
    doc["draw"] = [{"DrawInstanced": {"VertexCountPerInstance": 3}},
                   {"DrawInstanced": {"VertexCountPerInstance": 0}}]
    text, _ = _run_csv(tmp_path, doc)
    assert text == ("VTX, IDX, A B, POS\n"
                    "0, 0,  1.00, -2.00\n1, 1,  1.00, -2.00\n2, 2,  1.00, -2.00\n")
    empty = (tmp_path / "csv" / "h.cpu.draw1.instance0.vs_in.csv").read_text()
    assert empty == "VTX, IDX, A B, POS\n---, ---, No Vertices, \n"


# -- formula injection ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, cell", [
    ("=1+2", "\" '=1+2\""),
    ("+X", "\" '+X\""),
    ("-X", "\" '-X\""),
    ("-1", "\" '-1\""),              # a name that looks like a number is still a name
    ("@SUM", "\" '@SUM\""),
    ("\tTAB", "\" '\tTAB\""),
    ("\rCR", "\" '\rCR\""),
    ('=HYPERLINK("x","y")', "\" '=HYPERLINK(\"\"x\"\",\"\"y\"\")\""),
    (" =X", "\" ' =X\""),            # a spreadsheet that trims spaces would see '=' first
])
def test_formula_prefixes_in_names_are_neutralised(tmp_path, name, cell):
    # Data: 1.5, -1.5, -0 and -inf are numbers gpuia writes: no quote, no apostrophe.
    text, _ = _run_csv(tmp_path, _case([name], [-1.5, -0.0, "-inf"]))
    assert text == (f"VTX, IDX,{cell}\n"
                    "0, 0, -1.50\n"
                    "1, 1,  0.00\n"
                    "2, 2, -INF\n")


def test_formula_check_reads_the_name_not_its_components(tmp_path):
    """Two-component names: the cell is ``NAME.x``; the prefix is the name's."""
    doc = _case(["-P"], [1, 2] * 3)
    doc["input_layout"][0]["Format"] = "R32G32_FLOAT"
    text, _ = _run_csv(tmp_path, doc)
    assert text.splitlines()[0] == "VTX, IDX,\" '-P.x\",\" '-P.y\""


# -- JUnit: two case files of one name -----------------------------------------------------------

def _junit(path: Path) -> dict:
    root = ET.parse(path).getroot()
    return {s.get("name"): [(c.get("classname"), c.get("name"), [e.tag for e in c])
                            for c in s.findall("testcase")] for s in root.findall("testsuite")}


def test_junit_suites_of_one_name_stay_apart_without_sources():
    """From Python, without the files: two results of one name are two suites, numbered; a lone
    surrogate (a file name's byte 0xff) is written as \\udcff and the document is UTF-8."""
    from gpuia.harness.crosscheck import CheckLine, CheckResult
    from gpuia.harness.export.junit import junit_xml

    def result(case):
        return CheckResult(case, [CheckLine("l", "OK", "3/3 match", path="native", adapter="A")])

    text = junit_xml([result("x"), result("x"), result("y")],
                     errors=[("\udcffcase", "error: \udcffcase: bad")])
    root = ET.fromstring(text.encode("utf-8"))
    assert [(s.get("name"), [c.get("name") for c in s]) for s in root] == [
        ("x #1", ["A: native"]), ("x #2", ["A: native"]), ("y", ["A: native"]),
        ("\\udcffcase", ["case"])]
    assert root[3][0][0].get("message") == "error: \\udcffcase: bad"
    # A second error for a case whose suite has one already, its source unknown: a suite of
    # its own, named without a trailing space (it was "x ").
    text = junit_xml([result("x")], errors=[("x", "error: x: one"), ("x", "error: x: two")],
                     sources=["a.json"])
    assert [s.get("name") for s in ET.fromstring(text.encode("utf-8"))] == ["x (a.json)", "x"]


def test_two_case_files_of_one_name_are_two_suites(gpu_device, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.json").write_text(json.dumps(_case(["P"], [1, 2, 3], "dup")))
        (tmp_path / folder / "bad.json").write_text('{"gpuia_case": 1}')
    (tmp_path / "u.json").write_text(json.dumps(_case(["P"], [1, 2, 3], "unique")))
    rc = main(["check", "a/x.json", "b/x.json", "u.json", "a/bad.json", "b/bad.json",
               "--path", "native", "--junit", "j.xml"])
    capsys.readouterr()
    assert rc == 2  # the two unreadable files
    native = f"{gpu_device.info['summary']}: native"
    # A name shared by two inputs is told apart by the file each came from; a unique name is
    # written as before. Error-only suites come after the checked ones, as before.
    assert _junit(tmp_path / "j.xml") == {
        "dup (a/x.json)": [("gpuia.dup (a/x.json)", native, [])],
        "dup (b/x.json)": [("gpuia.dup (b/x.json)", native, [])],
        "unique": [("gpuia.unique", native, [])],
        "bad (a/bad.json)": [("gpuia.bad (a/bad.json)", "case", ["error"])],
        "bad (b/bad.json)": [("gpuia.bad (b/bad.json)", "case", ["error"])],
    }


def test_one_case_file_given_twice_is_two_numbered_suites(gpu_device, tmp_path, monkeypatch,
                                                          capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.json").write_text(json.dumps(_case(["P"], [1, 2, 3], "dup")))
    assert main(["check", "x.json", "x.json", "--path", "native", "--junit", "j.xml"]) == 0
    capsys.readouterr()
    native = f"{gpu_device.info['summary']}: native"
    assert _junit(tmp_path / "j.xml") == {
        "dup (x.json #1)": [("gpuia.dup (x.json #1)", native, [])],
        "dup (x.json #2)": [("gpuia.dup (x.json #2)", native, [])],
    }


# -- a case file name that is not UTF-8 ----------------------------------------------------------

def _undecodable(folder: Path, name: bytes) -> Path:
    """``folder/name`` for a name holding byte 0xff, which Python spells with a surrogate
    escape (``\\udcff``); skipped where the file system refuses such names."""
    path = Path(os.fsdecode(os.fsencode(folder) + b"/" + name))
    try:
        path.write_text("")
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    return path


def test_check_writes_every_output_for_a_file_name_that_is_not_utf8(gpu_device, tmp_path):
    named = _undecodable(tmp_path, b"\xffnamed.json")        # a case with its own name
    named.write_text(json.dumps(_case(["P"], [1, -2, 3], "named")))
    unnamed = _undecodable(tmp_path, b"\xffcase.json")       # named by its file; invalid
    unnamed.write_text(json.dumps({**{k: v for k, v in _case(["P"], [1, 2, 3]).items()
                                      if k != "name"}, "bogus": 1}))
    out = tmp_path / "out"
    out.mkdir()
    proc = gpuia_cli("check", named, unnamed, "--path", "native", "--html", out / "r.html",
                     "--junit", out / "j.xml", "--csv", out / "csv", "--plot", out / "p.png",
                     cwd=tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, proc.stderr  # the unnamed case only
    (line,) = proc.stderr.splitlines()
    assert line.startswith("error: \\udcffcase: ")
    # Every output is there; the undecodable byte is written \udcff, as the error line has it.
    html = (out / "r.html").read_bytes().decode("utf-8")
    assert "invalid: \\udcffcase: " in html
    assert "\\udcffnamed.json" in html  # the command line in the header
    assert _junit(out / "j.xml")["\\udcffcase"] == [("gpuia.\\udcffcase", "case", ["error"])]
    assert (out / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The CSV files take a safe stem: the byte is one '_'.
    assert sorted(p.name for p in (out / "csv").iterdir() if ".cpu." in p.name) == [
        "_named.cpu.draw0.instance0.vs_in.csv"]
    assert (out / "csv" / "_named.csv.json").exists()


def test_a_case_named_by_a_file_name_that_is_not_utf8_runs(gpu_device, tmp_path):
    """No `name`: the case takes its file's stem, the undecodable byte written \\udcff as an
    error line would write it, and runs (before: refused, "a case name is one line of printable
    text", a name the user never wrote)."""
    path = _undecodable(tmp_path, b"tri\xffangle.json")
    path.write_text(json.dumps({k: v for k, v in _case(["P"], [1, 2, 3]).items() if k != "name"}))
    proc = gpuia_cli("validate", path, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok: tri\\udcffangle: 1 elements, 1 draw(s), POINTLIST\n"
    proc = gpuia_cli("run", path, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["case"] == "tri\\udcffangle"
    proc = gpuia_cli("check", path, "--path", "native", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines and all(line.startswith("tri\\udcffangle: ") for line in lines), lines
