"""Exports of hostile inputs (docs/exports.md): CSV cells quoted as RFC 4180 asks, and text
cells that a spreadsheet would evaluate as a formula neutralised as OWASP's CSV-injection
guidance asks.

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

import pytest

from gpuia.cli import main


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
