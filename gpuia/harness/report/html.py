"""Self-contained HTML reports of ``gpuia check`` (``--html REPORT.html``).

One file, no external resource: inline CSS, a few lines of inline JavaScript (row filters), the
error plot embedded as a base64 PNG when there is one. Per case it shows what RenderDoc's mesh
viewer would: the case, the adapters it ran on (name, backend, type, driver, vendor, PCI ids,
wgpu-native version, key limits), the resolved input layout (semantic, format, slot, offset,
class, step rate, stride), where the vertex shader's outputs come from (or why there are none),
the primitive list (the reference's, with the corners the GPU side draws per adapter:
:mod:`.mesh`), and per GPU run the verdict, the statistics and a per-invocation table with the
CPU and GPU values of every element side by side. Differing components are highlighted with
their 32-bit patterns inline; every value shows its pattern on hover. Stream Output runs show
the VS Out table (CPU outputs beside what the GPU's targets hold), then, per slot, the filled
sizes of both sides and a hex dump with differing bytes highlighted.

Row limits: a table shows the first ``rows`` invocations (or SO dump rows), plus **every**
differing one wherever it is, plus the first ``rows`` whose differences the tolerance accepted;
the number left out is stated. Every string from a case (names, semantics, descriptions, errors)
is HTML-escaped, and a file name's undecodable bytes are written as codes (``\\udcff``).

The report is in two layers: :func:`case_view` turns a check result into plain dataclasses
(what to show, with a state per value: ``same``, ``diff``, ``tol``, ``nan``, ``missing``), and
renderers turn those into HTML through :class:`string.Template` s and two small helpers,
:func:`esc` and :func:`tag`. Results must come from ``cross_check(keep=True)``. This module
holds the page (its skeleton, CSS and script, the summary, the adapters, the plot) and is where
the report's names are imported from; the views are in :mod:`.html_views` (the dataclasses),
:mod:`.html_case` (a case) and :mod:`.html_runs` (a GPU run), the markup in
:mod:`.html_markup` (escaping, elements) and :mod:`.html_render` (a case's sections).
"""

from __future__ import annotations

import base64
import datetime
from collections.abc import Sequence
from string import Template

from ... import __version__
from .html_case import case_view, report_views
from .html_case import shader_view as shader_view
from .html_markup import Html, esc, fill, join, table_of, tag, verdict_class, void
from .html_render import adapter_table, render_case
from .html_runs import select_rows
from .html_views import SO_ROW_BYTES, CaseView

__all__ = ["Html", "esc", "tag", "void", "case_view", "select_rows", "report_views",
           "render_report", "SO_ROW_BYTES"]

CSS = """
:root { --bg: #fff; --fg: #1b1b1b; --muted: #666; --line: #d0d0d0; --head: #eef1f5;
  --diff: #ffd7d5; --diff-strong: #c0392b; --tol: #fff1c2; --ok: #1e8449; --na: #7f8c8d; }
@media (prefers-color-scheme: dark) { :root { --bg: #17191c; --fg: #e4e4e4; --muted: #9aa;
  --line: #3a3d42; --head: #23272d; --diff: #5a1f1c; --diff-strong: #ff7b6e; --tol: #4d4217;
  --ok: #58d68d; --na: #aab7b8; } }
body { font: 14px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--fg);
  margin: 1.5em; }
h1 { font-size: 1.5em; margin: 0 0 .2em; } h2 { font-size: 1.25em; margin: 0; display: inline; }
h3 { font-size: 1.05em; margin: 1.2em 0 .4em; } h4 { margin: .8em 0 .3em; }
.meta, .note { color: var(--muted); }
table { border-collapse: collapse; margin: .3em 0 .8em; }
th, td { border: 1px solid var(--line); padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: var(--head); position: sticky; top: 0; }
td.num { text-align: right; }
.values td, .vsout td, .primitives td, .hex td {
  font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: nowrap; }
.values th.gpu, .values td.gpu, .vsout th.gpu, .vsout td.gpu {
  border-right: 2px solid var(--line); }
td.diff, td.missing { background: var(--diff); }
td.tol, td.nan { background: var(--tol); }
span.comp { margin-right: .7em; }
span.comp.diff { color: var(--diff-strong); font-weight: bold; }
span.comp code { font-size: 11px; margin-left: .25em; opacity: .85; }
tr.diff td:first-child { box-shadow: inset 4px 0 var(--diff-strong); }
table.only-differing tr.same { display: none; }
.hex td { white-space: pre; } .hex span.diff { background: var(--diff-strong); color: #fff; }
.hex span.tol { background: var(--tol); }
.verdict { font-weight: bold; padding: 0 .4em; border-radius: 3px; }
.verdict.OK { color: var(--ok); }
.verdict.DIFFERENT { color: #fff; background: var(--diff-strong); }
.verdict.na { color: var(--na); }
details.case { border: 1px solid var(--line); border-radius: 4px; padding: .5em .8em;
  margin: .8em 0; }
details.case > summary { cursor: pointer; }
.run { margin: .6em 0 1em 1em; }
img.plot { max-width: 100%; border: 1px solid var(--line); }
pre.source { font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  border: 1px solid var(--line); padding: .5em; overflow-x: auto; }
body.only-different-cases details.case.OK, body.only-different-cases details.case.none
  { display: none; }
"""

# A few lines: the row and case filters. Nothing else needs script.
SCRIPT = """
document.querySelectorAll('input[data-table]').forEach(function (box) {
  box.addEventListener('change', function () {
    document.getElementById(box.dataset.table).classList.toggle('only-differing', box.checked);
  });
});
var cases = document.getElementById('only-different-cases');
if (cases) cases.addEventListener('change', function () {
  document.body.classList.toggle('only-different-cases', cases.checked);
});
"""

PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gpuia $version">
<title>$title</title>
<style>$css</style>
</head>
<body>
<header>
<h1>$title</h1>
<p class="meta">$meta</p>
</header>
<section id="summary">
<h3>Summary</h3>
$summary
<label><input type="checkbox" id="only-different-cases"> show only cases with differences</label>
</section>
$problems
<section id="adapters">
<h3>Adapters</h3>
$adapters
</section>
$plot
<section id="cases">
$cases
</section>
<script>$script</script>
</body>
</html>
""")


def _versions() -> str:
    parts = [f"gpuia {__version__}"]
    try:
        import wgpu
        from wgpu.backends.wgpu_native import version_info

        parts.append(f"wgpu-py {wgpu.__version__}, wgpu-native "
                     f"{'.'.join(map(str, version_info))}")
    except ImportError:  # the report still renders from results alone
        pass
    return ", ".join(parts)


def render_report(views: list[CaseView], *, title: str = "gpuia check report",
                  errors: Sequence[str] = (), unavailable: Sequence[str] = (),
                  plot_png: bytes | None = None, command: str | None = None) -> str:
    """The report as one HTML string.

    Arguments:
        views (list): the :class:`CaseView` of every case.
        title (str): the page's title. Default ``"gpuia check report"``.
        errors (list): lines of cases that could not be checked (invalid input). Default none.
        unavailable (list): ``"<adapter>: <reason>"`` of adapters that gave no device.
            Default none.
        plot_png (bytes): the error plot, embedded as a data: URL; None (the default) for
            none.
        command (str): the command line shown in the header; None (the default) for none.

    Returns:
        The document as text.
    """
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    meta = f"generated {now} by {_versions()}"
    if command:
        meta += f" · {command}"
    summary_rows = [[tag("a", v.name, href=f"#case-{i}"), v.count("OK"), v.count("DIFFERENT"),
                     v.count("not applicable"), v.count("not compared"),
                     tag("span", v.verdict, class_=f"verdict {verdict_class(v.verdict)}")]
                    for i, v in enumerate(views)]
    summary = table_of(["case", "OK", "DIFFERENT", "not applicable", "not compared", "verdict"],
                       summary_rows, numeric={1, 2, 3, 4})
    problems = ""
    if errors or unavailable:
        items = [tag("li", "invalid: ", e) for e in errors]
        items += [tag("li", "unavailable adapter: ", u) for u in unavailable]
        problems = tag("section", tag("h3", "Not checked"), tag("ul", *items), id="problems")
    adapters: dict[str, dict] = {}  # summary -> adapter_facts, each adapter once
    for v in views:
        for a in v.adapters:
            adapters.setdefault(a["summary"], a)
    plot = ""
    if plot_png is not None:
        data = base64.b64encode(plot_png).decode("ascii")
        plot = tag("section", tag("h3", "Error histograms"),
                   void("img", class_="plot", alt="GPU - CPU error histograms",
                        src=f"data:image/png;base64,{data}"), id="plot")
    few = len(views) <= 3
    cases = join(render_case(v, i, few or v.verdict == "DIFFERENT")
                 for i, v in enumerate(views))
    return fill(PAGE, version=__version__, title=title, css=Html(CSS), meta=meta,
                summary=summary, problems=problems,
                adapters=adapter_table(list(adapters.values()), full=True), plot=plot,
                cases=cases, script=Html(SCRIPT))
