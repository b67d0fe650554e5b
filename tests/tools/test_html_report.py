"""``gpuia check --html / --plot / --progress`` (gpuia/htmlreport.py, gpuia/plot.py,
gpuia/progress.py) and the comparison details they rest on.

The reports are parsed with the standard library's html.parser into a small tree, so the tests
assert structure (tables, highlighted cells, escaped text), not formatting. Differences are
injected into real GPU results the way tests/tools/test_pytest_plugin.py does; every expected bit
pattern below is derived by hand from the case data (IEEE 754 single precision, little-endian).
"""

from __future__ import annotations

import base64
import io
import json
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np

from gpuia.cli import main

CASES = Path(__file__).resolve().parents[2] / "examples" / "cases"
EXAMPLES = sorted(CASES.glob("*.json"))
TRIANGLE = CASES / "triangle_two_slots.json"
SO_STRIP = CASES / "stream_output_strip_overflow.json"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
VOID = {"input", "img", "meta", "br", "hr", "link"}


class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.iter()

    def find_all(self, tag, cls=None):
        return [n for n in self.iter() if n.tag == tag and (cls is None or cls in n.classes)]


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.cur = self.root
        self.doctype = None

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_endtag(self, tag):
        assert tag not in VOID, f"end tag for void element {tag}"
        assert self.cur.tag == tag, f"</{tag}> closes <{self.cur.tag}>"
        self.cur = self.cur.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(text: str) -> Node:
    b = TreeBuilder()
    b.feed(text)
    b.close()
    assert b.cur is b.root, f"unclosed <{b.cur.tag}>"
    assert b.doctype and b.doctype.lower() == "doctype html"
    return b.root


def check(capsys, *args) -> tuple[int, str, str]:
    rc = main(["check", *map(str, args)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def value_rows(table: Node) -> list[Node]:
    return [tr for tr in table.find_all("tr") if tr.parent.tag == "tbody"]


def assert_self_contained(text: str, root: Node) -> None:
    assert "http://" not in text and "https://" not in text
    for n in root.iter():
        assert n.tag != "link", "no linked stylesheet"
        if n.tag == "script":
            assert "src" not in n.attrs, "no external script"
        if "src" in n.attrs:
            assert n.attrs["src"].startswith("data:"), n.attrs
        if "href" in n.attrs:
            assert n.attrs["href"].startswith("#"), n.attrs


def one_bit_off(monkeypatch, row: int, element: str = "POSITION0", component: int = 0):
    """GPU results with one bit of ``element`` flipped at invocation ``row``."""
    import gpuia.harness.crosscheck as g  # where cross_check takes its GPU run from

    real = g.run_case_gpu

    def patched(*args, **kwargs):
        res = real(*args, **kwargs)
        data = res.ia.inputs[element]
        bits = data.bits.copy()
        bits[row, component] ^= 1
        res.ia.inputs[element] = type(data)(data.type, bits)
        return res

    monkeypatch.setattr(g, "run_case_gpu", patched)


# --------------------------------------------------------------------------------------------
# The report of the example cases
# --------------------------------------------------------------------------------------------

def test_html_report_of_every_example_case(gpu_device, examples_check):
    """The report of ``gpuia check --html`` of every example case (one process, made once per
    pytest run: tests/tools/conftest.py)."""
    proc, out = examples_check.proc, examples_check.html
    rc, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    assert rc == 0, stdout + stderr
    assert stderr == ""  # stderr is not a terminal here: no progress either
    text = out.read_text(encoding="utf-8")
    root = parse(text)
    assert_self_contained(text, root)
    assert len(root.find_all("script")) == 1 and len(root.find_all("style")) == 1

    # One collapsible section per case, named, each with a verdict; the summary links to them.
    sections = root.find_all("details", "case")
    names = [s.find_all("h2")[0].text() for s in sections]
    assert names == [p.stem for p in EXAMPLES]
    links = [a.attrs["href"] for a in root.find_all("a")]
    assert links == [f"#{s.attrs['id']}" for s in sections]
    assert all(s.find_all("span", "verdict")[0].text() == "OK" for s in sections)

    # Adapter facts: name, backend, type, driver, and the limits gpuia decides with.
    adapters = root.find_all("section")[1]
    assert adapters.attrs["id"] == "adapters"
    facts = adapters.text()
    info = gpu_device.info
    for value in (info["name"], info["backend"], info["type"],
                  gpu_device.adapter.info["description"]):
        assert value in facts
    assert f"max-vertex-buffers{gpu_device.caps.max_vertex_buffers}" in facts.replace("\n", "")

    # The resolved element table of triangle_two_slots (offsets, slots and strides from the
    # case file: POSITION at slot 0 offset 0 stride 12, COLOR at slot 1 offset 0 stride 4).
    tri = sections[names.index("triangle_two_slots")]
    tables = tri.find_all("table")
    layout = next(t for t in tables if [th.text() for th in t.find_all("th")][:3] ==
                  ["#", "semantic", "format"])
    assert [th.text() for th in layout.find_all("th")] == [
        "#", "semantic", "format", "slot", "offset", "class", "step rate", "stride",
        "slot extent"]
    rows = [[td.text() for td in tr.find_all("td")] for tr in value_rows(layout)]
    assert rows == [["0", "POSITION0", "R32G32B32_FLOAT", "0", "0", "PER_VERTEX_DATA", "0", "12",
                     "12"],
                    ["1", "COLOR0", "R8G8B8A8_UNORM", "1", "0", "PER_VERTEX_DATA", "0", "4",
                     "4"]]

    # Per GPU run a per-invocation table: CPU and GPU side by side for every element, one row
    # per invocation (3 here), nothing highlighted in a clean run.
    values = tri.find_all("table", "values")
    assert len(values) == 2  # native and pulling
    for table in values:
        header = table.find_all("tr")[0]
        assert [th.text() for th in header.find_all("th")][5:] == [
            "SV_VertexID", "SV_InstanceID", "POSITION0", "COLOR0"]
        body = value_rows(table)
        assert len(body) == 3
        first = [td.text() for td in body[0].find_all("td")]
        # vertex 0: POSITION (0, 0.5, 0) -> (0, 0.5, 0, 1); COLOR ff 00 00 ff -> (1, 0, 0, 1)
        assert first[5:] == ["0", "0", "0", "0", "0 0.5 0 1", "0 0.5 0 1", "1 0 0 1", "1 0 0 1"]
        assert body[0].find_all("td")[9].attrs["title"] == \
            "0x00000000 0x3f000000 0x00000000 0x3f800000"
    assert not root.find_all("td", "diff") and not root.find_all("tr", "diff")

    # Stream Output cases: one dump per slot with the filled sizes of both sides.
    so = sections[names.index("stream_output_strip_overflow")]
    assert "SO slot 0" in [h.text() for h in so.find_all("h4")]
    filled = {tr.find_all("th")[0].text(): tr.find_all("td")[0].text()
              for t in so.find_all("table") for tr in t.find_all("tr")
              if tr.find_all("th") and tr.find_all("td")}
    # 4 bytes in, plus two whole triangles of 16-byte vertices: 4 + 2 * 3 * 16 = 100.
    assert filled["BufferFilledSize CPU"] == filled["BufferFilledSize GPU"] == "100"
    assert so.find_all("table", "hex")


def test_a_one_bit_difference_is_highlighted_with_its_patterns(gpu_device, tmp_path, capsys,
                                                               monkeypatch):
    one_bit_off(monkeypatch, row=2)
    out = tmp_path / "diff.html"
    rc, stdout, _ = check(capsys, TRIANGLE, "--path", "pulling", "--rows", "1", "--html", out)
    assert rc == 1 and "pulling: DIFFERENT" in stdout
    root = parse(out.read_text(encoding="utf-8"))
    (section,) = root.find_all("details", "case")
    assert "open" in section.attrs  # differing cases are open
    assert section.find_all("span", "verdict")[0].text() == "DIFFERENT"
    (table,) = section.find_all("table", "values")
    rows = value_rows(table)
    # --rows 1 shows invocation 0, and the differing invocation 2 although it is past the limit.
    assert [tr.find_all("td")[1].text() for tr in rows] == ["0", "2"]
    assert [tr.attrs["class"] for tr in rows] == ["same", "diff"]
    assert "2 of 3 invocations shown; 1 left out" in section.text()
    # Vertex 2's POSITION.x is -0.5 = sign 1, exponent 126, mantissa 0 = 0xbf000000; the GPU
    # side had bit 0 flipped: 0xbf000001 = -(0.5 + 2^-24) = -0.50000006 to 9 digits.
    cells = rows[1].find_all("td", "diff")
    assert [c.classes for c in cells] == [{"cpu", "diff"}, {"gpu", "diff"}]
    cpu, gpu = cells
    assert "0xbf000000" in cpu.text() and "-0.5" in cpu.text()
    assert "0xbf000001" in gpu.text() and "-0.50000006" in gpu.text()
    (bad_cpu,) = cpu.find_all("span", "diff")
    (bad_gpu,) = gpu.find_all("span", "diff")
    assert bad_cpu.find_all("code")[0].text() == "0xbf000000"
    assert bad_gpu.find_all("code")[0].text() == "0xbf000001"
    # The other components of the cell are equal: shown, not highlighted, patterns on hover.
    same = [s for s in gpu.find_all("span", "comp") if "same" in s.classes]
    assert [s.attrs["title"] for s in same] == ["0xbf000000", "0x00000000", "0x3f800000"]
    # The statistics say which invocations match.
    stats = {tr.find_all("th")[0].text(): [td.text() for td in tr.find_all("td")]
             for tr in section.find_all("table", "stats")[0].find_all("tr")[1:]}
    assert stats["invocations matching"] == ["", "2/3"]


def test_a_differing_stream_output_byte_is_highlighted(gpu_device, tmp_path, capsys,
                                                       monkeypatch):
    import gpuia.harness.crosscheck as capture  # where cross_check takes its SO run from

    real = capture.run_case_so_gpu

    def patched(*args, **kwargs):
        so = real(*args, **kwargs)
        data = bytearray(so.buffers[0])
        data[23] ^= 0x80
        so.buffers[0] = bytes(data)
        return so

    monkeypatch.setattr(capture, "run_case_so_gpu", patched)
    out = tmp_path / "so.html"
    rc, stdout, _ = check(capsys, SO_STRIP, "--path", "pulling", "--html", out)
    assert rc == 1 and "stream output: DIFFERENT" in stdout
    root = parse(out.read_text(encoding="utf-8"))
    (dump,) = root.find_all("table", "hex")
    bad = dump.find_all("tr", "diff")
    assert len(bad) == 1
    # Writing starts at the initial BufferFilledSize, 4. The second vertex (VertexID 1) starts
    # at 4 + 16 = 20 with POSITION.x = 1.0f = 0x3f800000, stored 00 00 80 3f: byte 23 is 0x3f,
    # in the row at 0x10, and flipping its top bit gives 0xbf (-1.0f).
    offset, cpu, gpu = bad[0].find_all("td")
    assert offset.text() == "0x00000010"
    assert [s.text() for s in cpu.find_all("span", "diff")] == ["3f"]
    assert [s.text() for s in gpu.find_all("span", "diff")] == ["bf"]
    # Row 0x10: vertex 0's SV_VertexID (0), vertex 1's POSITION.x and .y (1.0, 0.0), its gap.
    assert cpu.text().split() == ["00000000", "0000803f", "00000000", "00000000"]
    facts = {tr.find_all("th")[0].text(): tr.find_all("td")[0]
             for t in root.find_all("table") for tr in t.find_all("tr")
             if tr.find_all("th") and tr.find_all("td")}
    assert facts["differing bytes"].text() == "1" and "diff" in facts["differing bytes"].classes


WGSL_DOUBLE = """
struct VSIn { POSITION: vec4<f32>, }
struct VSOut { SV_Position: vec4<f32>, POSITION: vec4<f32>, }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  o.SV_Position = input.POSITION;
  o.POSITION = input.POSITION * 2.0;
  return o;
}
"""


def test_stream_output_of_a_wgsl_shader_shows_the_gpu_side_only(gpu_device, tmp_path, capsys):
    case = {"gpuia_case": 1, "name": "wgsl_so",
            "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
            "vertex_buffers": [{"slot": 0, "stride": 8,
                                "data": {"dtype": "float32", "values": [[1, 2], [3, 4]]}}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 2}},
            "vertex_shader": {"wgsl": WGSL_DOUBLE},
            "stream_output": {"declaration": [{"SemanticName": "POSITION", "ComponentCount": 2}],
                              "targets": [{"slot": 0, "size": 16}]}}
    path = tmp_path / "wgsl_so.json"
    path.write_text(json.dumps(case))
    out = tmp_path / "wgsl_so.html"
    rc, stdout, stderr = check(capsys, path, "--path", "pulling", "--html", out)
    assert rc == 0, stdout + stderr
    root = parse(out.read_text(encoding="utf-8"))
    verdicts = [v.text() for h in root.find_all("h4") for v in h.find_all("span", "verdict")]
    assert verdicts == ["OK", "not compared", "not compared"]  # IA, vs outputs, SO
    (dump,) = root.find_all("table", "hex")
    (row,) = [tr for tr in dump.find_all("tr") if tr.find_all("td")]  # one 16-byte row
    offset, cpu, gpu = row.find_all("td")
    assert offset.text() == "0x00000000"
    # POSITION * 2 of (1, 2) and (3, 4): 2.0 = 0x40000000, 4.0 = 0x40800000, 6.0 = 0x40c00000,
    # 8.0 = 0x41000000, each stored little-endian; two 8-byte vertices fill all 16 bytes.
    assert cpu.text() == "(not compared)"
    assert gpu.text().split() == ["00000040", "00008040", "0000c040", "00000041"]
    assert not root.find_all("td", "diff")


def test_hostile_names_are_escaped(gpu_device, tmp_path, capsys):
    name = "<script>alert('x')</script>&amp;"
    semantic = "<img src=x onerror=alert(1)>"
    case = {"gpuia_case": 1, "name": name, "description": "</table></details>\"'<b>",
            "input_layout": [{"SemanticName": semantic, "Format": "R32_FLOAT"}],
            "vertex_buffers": [{"slot": 0, "stride": 4,
                                "data": {"dtype": "float32", "values": [1, 2, 3]}}],
            "primitive_topology": "POINTLIST",
            "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}}}
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(case))
    out = tmp_path / "hostile.html"
    rc, stdout, stderr = check(capsys, path, "--html", out)
    assert rc == 0, stdout + stderr
    text = out.read_text(encoding="utf-8")
    assert "<script>alert" not in text and "<img src=x" not in text and "<b>" not in text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;amp;" in text
    root = parse(text)  # the structure survived: every tag closes where it should
    assert len(root.find_all("script")) == 1 and not root.find_all("img")
    (section,) = root.find_all("details", "case")
    assert section.find_all("h2")[0].text() == name
    key = semantic.upper() + "0"
    assert key in [td.text() for td in section.find_all("td")]
    assert key in [th.text() for th in section.find_all("table", "values")[0].find_all("th")]


def test_invalid_cases_and_report_errors_are_listed(gpu_device, tmp_path, capsys):
    bad = tmp_path / "bad_case.json"
    bad.write_text('{"gpuia_case": 1}')
    out = tmp_path / "report.html"
    rc, stdout, stderr = check(capsys, TRIANGLE, bad, "--html", out)
    assert rc == 2
    assert stderr.count("error: ") == 1 and stderr.startswith("error: bad_case: ")
    root = parse(out.read_text(encoding="utf-8"))
    (problems,) = [s for s in root.find_all("section") if s.attrs.get("id") == "problems"]
    assert "invalid: bad_case: " in problems.text()
    assert [h.text() for h in root.find_all("h2")] == ["triangle_two_slots"]
    # An output folder that does not exist is refused before anything runs.
    rc, stdout, stderr = check(capsys, TRIANGLE, "--html", tmp_path / "nope" / "r.html")
    assert rc == 2 and stdout == "" and stderr.startswith("error: check: --html ")
    assert len(stderr.splitlines()) == 1 and "does not exist" in stderr


# --------------------------------------------------------------------------------------------
# --plot
# --------------------------------------------------------------------------------------------

def test_plot_is_a_png_and_is_embedded_in_the_html(gpu_device, tmp_path, capsys, monkeypatch):
    import matplotlib  # noqa: F401 - the plot extra is part of the test setup: never skipped

    png, html_path = tmp_path / "errors.png", tmp_path / "r.html"
    rc, stdout, stderr = check(capsys, TRIANGLE, "--plot", png, "--html", html_path)
    assert rc == 0, stdout + stderr
    data = png.read_bytes()
    assert data.startswith(PNG_MAGIC)
    root = parse(html_path.read_text(encoding="utf-8"))
    (img,) = root.find_all("img", "plot")
    prefix = "data:image/png;base64,"
    assert img.attrs["src"].startswith(prefix)
    assert base64.b64decode(img.attrs["src"][len(prefix):]) == data

    one_bit_off(monkeypatch, row=1)
    rc, _, _ = check(capsys, TRIANGLE, "--path", "pulling", "--plot", png)
    assert rc == 1
    assert png.read_bytes().startswith(PNG_MAGIC)


def test_plot_without_matplotlib_is_one_error_line(gpu_device, tmp_path, capsys, monkeypatch):
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # "import matplotlib" raises
    png = tmp_path / "errors.png"
    rc, stdout, stderr = check(capsys, TRIANGLE, "--plot", png)
    assert rc == 2
    assert stdout == ""  # refused before anything ran
    assert len(stderr.splitlines()) == 1 and "Traceback" not in stderr
    assert stderr.startswith("error: check: --plot needs matplotlib")
    assert "gpuia[plot]" in stderr
    assert not png.exists()


def test_error_series_of_a_one_bit_difference(gpu_device, monkeypatch):
    from gpuia.harness.case import load_case
    from gpuia.harness.crosscheck import cross_check
    from gpuia.harness.report.plot import error_series

    one_bit_off(monkeypatch, row=1)
    result = cross_check(load_case(TRIANGLE), [gpu_device], ["pulling", "native"], keep=True)
    series = {s.label.split(": ", 2)[2]: s for s in error_series([result])}
    # pulling: exact rule; POSITION0 differs in 1 of 12 components by 1 ULP: vertex 1's x is
    # 0.5 (0x3f000000) against 0x3f000001, |error| = 2^-24.
    s = series["pulling: POSITION0"]
    assert (s.rule, s.compared, s.exact, s.within_one, s.beyond_one, s.mismatches) == \
        ("exact", 12, 11, 1, 0, 1)
    assert s.max_absolute == 2.0 ** -24
    # native: the same flip, and COLOR0 (R8G8B8A8_UNORM) is under the 1-ULP tolerance, so it
    # has a series even though nothing refused it.
    assert series["native: COLOR0"].rule == "1 ULP"
    assert series["native: COLOR0"].compared == 12 and series["native: COLOR0"].mismatches == 0
    assert "pulling: COLOR0" not in series  # exact and equal: nothing to plot


# --------------------------------------------------------------------------------------------
# Comparison details the report rests on
# --------------------------------------------------------------------------------------------

def test_component_errors_by_hand():
    from gpuia.harness.compare import component_errors

    cpu = np.array([[0x3F800000, 0x00000000, 0x7FC00000, 0x3F800000]], np.uint32)
    gpu = np.array([[0x3F800001, 0x80000000, 0x7FC00001, 0x7F800000]], np.uint32)
    ulp, absolute = component_errors(cpu, gpu, "float")
    # 1.0 vs next float: 1 ULP, 2^-23; +0 vs -0: 0 apart on the ordered line; NaN vs NaN: 0;
    # 1.0 vs +inf: 0x7f800000 - 0x3f800000 ULP, no finite absolute error.
    assert ulp.tolist() == [[1, 0, 0, 0x7F800000 - 0x3F800000]]
    assert absolute[0, 0] == 2.0 ** -23 and absolute[0, 1] == 0.0
    assert np.isnan(absolute[0, 2]) and np.isnan(absolute[0, 3])
    ulp, absolute = component_errors(np.array([5, 0xFFFFFFFF], np.uint32),
                                     np.array([7, 1], np.uint32), "sint")
    assert ulp.tolist() == [2, 2] and absolute.tolist() == [2.0, 2.0]  # 5 vs 7, -1 vs 1
    ulp, _ = component_errors(np.array([0xFFFFFFFF], np.uint32), np.array([1], np.uint32), "uint")
    assert ulp.tolist() == [0xFFFFFFFE]


def test_select_rows_keeps_every_differing_row():
    from gpuia.harness.compare import Comparison
    from gpuia.harness.report.html import select_rows

    bad = np.zeros(100, bool)
    bad[[50, 99]] = True
    tol = np.zeros((100, 4), bool)
    tol[[10, 60, 70], 0] = True
    cmp = Comparison(100, bad, tolerated_mask={"A0": tol})
    assert select_rows(cmp, 3).tolist() == [0, 1, 2, 10, 50, 60, 70, 99]
    assert select_rows(cmp, 0).tolist() == [50, 99]
    assert select_rows(cmp, None).tolist() == list(range(100))


# --------------------------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------------------------

class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_off_by_default_without_a_terminal(gpu_device, tmp_path, capsys):
    two = [TRIANGLE, CASES / "unaligned_stride.json"]
    rc, stdout, stderr = check(capsys, *two)
    assert rc == 0 and stderr == ""
    rc, stdout, stderr = check(capsys, *two, "--progress")
    assert rc == 0 and "unaligned_stride: " in stdout  # the results are still on stdout
    # Forced on a stream that is not a terminal: plain lines, the last one at the end.
    assert stderr.splitlines()[-1].startswith("gpuia check: 2/2 cases (100%), ")
    assert "\r" not in stderr
    assert main(["run", *map(str, two), "--table"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["run", *map(str, two), "--table", "--progress"]) == 0
    assert capsys.readouterr().err.splitlines()[-1].startswith("gpuia run: 2/2 cases (100%)")


def test_progress_modes(monkeypatch):
    from gpuia.util.progress import Progress, wanted

    assert wanted(None, io.StringIO()) is False and wanted(None, FakeTerminal()) is True
    assert wanted(True, io.StringIO()) is True and wanted(False, FakeTerminal()) is False

    off = Progress(3, "x", enabled=False, stream=FakeTerminal())
    off.update()
    off.close()
    assert off.mode == "off" and off.stream.getvalue() == ""

    import tqdm  # noqa: F401 - the progress extra is part of the test setup: never skipped

    term = FakeTerminal()
    with Progress(3, "gpuia check", enabled=True, stream=term) as bar:
        assert bar.mode == "bar"
        for _ in range(3):
            bar.update(1, "case")
    assert "3/3" in term.getvalue()

    monkeypatch.setitem(sys.modules, "tqdm", None)  # without the extra: plain lines
    term = FakeTerminal()
    with Progress(4, "gpuia check", enabled=True, stream=term, interval=0) as bar:
        assert bar.mode == "lines"
        bar.update(1, "first")
    lines = term.getvalue().splitlines()
    assert lines[0].startswith("gpuia check: 1/4 cases (25%), ") and lines[0].endswith("[first]")
    assert lines[-1].startswith("gpuia check: 1/4 cases (25%), ")


def _cell_texts(tr: Node) -> list[str]:
    return [td.text() for td in tr.find_all("td")]


def test_vs_out_primitives_and_driver_facts_in_the_report(gpu_device, tmp_path, capsys):
    adjacency = CASES / "triangle_list_adjacency.json"
    out = tmp_path / "mesh.html"
    rc, stdout, stderr = check(capsys, TRIANGLE, SO_STRIP, adjacency, "--path", "pulling",
                               "--html", out)
    assert rc == 0, stdout + stderr
    root = parse(out.read_text(encoding="utf-8"))
    sections = {s.find_all("h2")[0].text(): s for s in root.find_all("details", "case")}

    # The adapter table names the driver: description, PCI ids, wgpu-native version.
    adapters = root.find_all("section")[1]
    header = [th.text() for th in adapters.find_all("table")[0].find_all("th")]
    assert header == ["name", "backend", "type", "driver", "vendor", "PCI vendor:device",
                      "wgpu-native"]
    row = _cell_texts(value_rows(adapters.find_all("table")[0])[0])
    info = gpu_device.adapter.info
    assert row[5] == f"0x{int(info['vendor_id']):04x}:0x{int(info['device_id']):04x}"
    assert row[6] == gpu_device.info["wgpu_native"]

    # A case without Stream Output says it has no VS outputs.
    assert "no VS outputs" in sections["triangle_two_slots"].text()
    assert not sections["triangle_two_slots"].find_all("table", "vsout")

    # The SO strip's VS Out: per output a CPU and a GPU column. The pass-through shader writes
    # SV_POSITION (0, 0, 0, 1) and POSITION (x, y, 0, 1); the declaration streams POSITION.xy
    # and SV_VertexID of the two triangles that fit, so the GPU side knows those of vertices
    # 0-3 and nothing of vertex 4 ('-').
    so = sections["stream_output_strip_overflow"]
    (table,) = so.find_all("table", "vsout")
    top = [th.text() for th in table.find_all("tr")[0].find_all("th")]
    assert top == ["", "#", "draw", "inst", "vtx", "SV_POSITION", "POSITION", "SV_VERTEXID",
                   "SV_INSTANCEID"]
    rows = [_cell_texts(tr)[5:] for tr in value_rows(table)]
    assert rows[0] == ["0 0 0 1", "- - - -", "0 0 0 1", "0 0 - -", "0", "0", "0", "-"]
    assert rows[3] == ["0 0 0 1", "- - - -", "1 1 0 1", "1 1 - -", "3", "3", "0", "-"]
    assert rows[4] == ["0 0 0 1", "- - - -", "2 0 0 1", "- - - -", "4", "-", "0", "-"]
    assert not table.find_all("td", "diff")

    # Primitives: the strip's in D3D's order (the odd one 1 3 2, rules 9.3); WebGPU assembles
    # a non-indexed strip itself ('-'). The adjacency list: gpuia draws its own triangle list
    # there, the same corners as the reference's, adjacency vertices 1 3 5 dropped.
    (prims,) = so.find_all("table", "primitives")
    assert [th.text() for th in prims.find_all("th")] == [
        "#", "draw", "instance", "VTX", "IDX", f"GPU IDX: {gpu_device.info['summary']}"]
    assert [_cell_texts(tr) for tr in value_rows(prims)] == [
        ["0", "0", "0", "0 1 2", "0 1 2", "-"], ["1", "0", "0", "1 3 2", "1 3 2", "-"],
        ["2", "0", "0", "2 3 4", "2 3 4", "-"]]
    assert "WebGPU assembles the triangle-strip itself" in so.text()
    (adj,) = sections["triangle_list_adjacency"].find_all("table", "primitives")
    assert [_cell_texts(tr) for tr in value_rows(adj)] == [
        ["0", "0", "0", "0 2 4", "0 2 4", "1 3 5", "same"],
        ["1", "0", "1", "0 2 4", "0 2 4", "1 3 5", "same"]]


def test_a_differing_stream_output_word_is_highlighted_in_vs_out(gpu_device, tmp_path, capsys,
                                                                 monkeypatch):
    import gpuia.harness.crosscheck as capture  # where cross_check takes its SO run from

    real = capture.run_case_so_gpu

    def patched(*args, **kwargs):
        so = real(*args, **kwargs)
        data = bytearray(so.buffers[0])
        data[23] ^= 0x80  # vertex 1's POSITION.x, 1.0f = 0x3f800000, becomes -1.0f
        so.buffers[0] = bytes(data)
        return so

    monkeypatch.setattr(capture, "run_case_so_gpu", patched)
    out = tmp_path / "so.html"
    rc, stdout, _ = check(capsys, SO_STRIP, "--path", "pulling", "--html", out)
    assert rc == 1
    root = parse(out.read_text(encoding="utf-8"))
    (table,) = root.find_all("table", "vsout")
    rows = value_rows(table)
    assert [tr.attrs["class"] for tr in rows] == ["same", "diff", "same", "same", "same"]
    cpu, gpu = rows[1].find_all("td", "diff")
    assert "0x3f800000" in cpu.text() and "0xbf800000" in gpu.text()
    (bad,) = gpu.find_all("span", "diff")  # only POSITION.x differs: -1, its pattern inline
    assert bad.children[0] == "-1" and bad.find_all("code")[0].text() == "0xbf800000"
    # .y is the same on both sides; .z and .w are not streamed: '-' on the GPU side.
    assert [s.children[0] for s in gpu.find_all("span", "comp")][1:] == ["0", "-", "-"]
