"""The ``gpuia check`` HTML report's sections, views to markup: a case (its facts, adapters,
resolved input layout, shader, Stream Output declaration, VS Out note, primitive table and a
geometry shader's output) and
its GPU runs (statistics, errors, the invocation table, the VS Out table, the SO hex dumps).

Every string from a view goes through :func:`~.html_markup.esc`. Differing components are
highlighted with their 32-bit patterns inline; every value shows its pattern on hover.
"""

from __future__ import annotations

from string import Template

from .html_markup import Html, fill, join, table_of, tag, verdict_class, void
from .html_views import SO_ROW_BYTES, CaseView, Cell, GSOutView, RunView, VSOutView

ELEMENT_HEADER = ["#", "semantic", "format", "slot", "offset", "class", "step rate", "stride",
                  "slot extent"]
SO_DECL_HEADER = ["#", "stream", "semantic", "start component", "component count", "output slot"]

SIGNATURE_HEADER = ["", "semantic", "declaration", "type", "interpolation"]
CBUFFER_HEADER = ["register", "cbuffer", "D3D bytes", "read as", "members (D3D offset, bytes)",
                  "bound values (D3D memory order)"]

CASE = Template("""<details class="case $state" id="$anchor"$open>
<summary><h2>$name</h2> <span class="verdict $verdict_class">$verdict</span>
<span class="note">$counts</span></summary>
$description
<h3>Case</h3>
$facts
<h3>Adapters</h3>
$adapters
<h3>Input layout (resolved)</h3>
$elements
$shader
$so_declaration
$mesh
<h3>GPU runs</h3>
$runs
</details>
""")

RUN = Template("""<div class="run">
<h4>$label <span class="verdict $verdict_class">$status</span></h4>
<p>$detail</p>
$problems
$stats
$errors
$body
</div>
""")


def _render_cell(cell: Cell, side: str) -> Html:
    if cell.state == "missing":
        return tag("td", cell.note, class_=f"{side} missing")
    patterns = " ".join(cell.hexes)
    if cell.state == "same":  # the common case, kept small: patterns on hover only
        return tag("td", " ".join(cell.texts), class_=side, title=patterns)
    comps = []
    for text, hex_, state in zip(cell.texts, cell.hexes, cell.states, strict=True):
        inline = tag("code", hex_) if state != "same" else ""
        comps.append(tag("span", text, inline, class_=f"comp {state}", title=hex_))
    return tag("td", *comps, class_=f"{side} {cell.state}", title=patterns)


def _render_invocations(run: RunView, table_id: str) -> Html:
    top = [tag("th", h, rowspan=2) for h in ("", "#", "draw", "inst", "vtx")]
    top += [tag("th", n, colspan=2) for n in ["SV_VertexID", "SV_InstanceID"] + run.columns]
    sub = []
    for _ in range(2 + len(run.columns)):
        sub += [tag("th", "CPU", class_="cpu"), tag("th", "GPU", class_="gpu")]
    body = []
    for r in run.rows:
        cells = _row_lead(r, "differs within the allowances")
        for cpu, gpu in [*r.ids, *r.cells]:
            assert cpu is not None  # an IA run's rows have both sides: only VS Out lacks one
            cells += [_render_cell(cpu, "cpu"), _render_cell(gpu, "gpu")]
        body.append(tag("tr", *cells, class_=r.state))
    table = tag("table", tag("thead", tag("tr", *top), tag("tr", *sub)), tag("tbody", *body),
                class_="values", id=table_id)
    shown = len(run.rows)
    note = f"{shown} of {run.total_rows} invocations shown"
    if run.omitted:
        note += (f"; {run.omitted} left out (every differing invocation is shown; raise --rows "
                 f"for more)")
    toggle = tag("label", void("input", type="checkbox", data_table=table_id),
                 " show only rows that differ")
    return join([tag("p", note, " ", toggle, class_="note"), table])


def _row_lead(r, tolerated: str) -> list:
    """The five cells every invocation row starts with: its mark (``!`` differs, ``~``
    ``tolerated``), then #, draw, instance and vertex."""
    return [tag("td", {"diff": "!", "tol": "~"}.get(r.state, ""),
                title={"diff": "differs", "tol": tolerated}.get(r.state)),
            tag("td", r.index, class_="num"), tag("td", r.draw, class_="num"),
            tag("td", r.instance, class_="num"), tag("td", r.vertex, class_="num")]


def _render_vs_out(view: VSOutView, table_id: str, title: str = "VS Out") -> Html:
    """The VS Out table: per output a CPU and a GPU column (GPU only without a CPU side)."""
    sides = ["CPU", "GPU"] if view.cpu else ["GPU"]
    top = [tag("th", h, rowspan=2) for h in ("", "#", "draw", "inst", "vtx")]
    top += [tag("th", n, colspan=len(sides)) for n in view.columns]
    sub = [tag("th", s, class_=s.lower()) for _ in view.columns for s in sides]
    body = []
    for r in view.rows:
        cells = _row_lead(r, "differs within the shader tolerance")
        for cpu, gpu in r.cells:
            if cpu is not None:  # every row has a CPU cell exactly when view.cpu
                cells.append(_render_cell(cpu, "cpu"))
            cells.append(_render_cell(gpu, "gpu"))
        body.append(tag("tr", *cells, class_=r.state))
    table = tag("table", tag("thead", tag("tr", *top), tag("tr", *sub)), tag("tbody", *body),
                class_="vsout", id=table_id)
    note = (f"{view.source}. {len(view.rows)} of {view.total_rows} invocations shown"
            + (f"; {view.omitted} left out (every differing invocation is shown)"
               if view.omitted else "")
            + "; - marks a component the GPU side did not write, ~ a row whose differences the "
              "shader tolerance accepts.")
    return join([tag("h4", title), tag("p", note, class_="note"), table])


def _render_mesh(view: CaseView, anchor: str) -> Html:
    """The case's VS Out note, the VS Out table of every run that read outputs back (vs
    outputs and Stream Output runs), and its primitive table."""
    parts: list[Html | str] = [tag("h3", "Vertex shader outputs (VS Out)"),
                               tag("p", view.vs_out_note, class_="note")]
    for i, run in enumerate(view.runs):
        if run.vs_out is not None:
            parts.append(_render_vs_out(run.vs_out, f"{anchor}-run-{i}-vs-out",
                                        f"VS Out: {run.adapter}: {run.path}"))
    pv = view.primitives
    if pv is not None:
        rows = [tag("tr", *(tag("td", text, class_=state or None) for text, state in r))
                for r in pv.rows]
        table = tag("table", tag("thead", tag("tr", *(tag("th", h) for h in pv.header))),
                    tag("tbody", *rows), class_="primitives")
        note = f"{len(pv.rows)} of {pv.total_rows} primitives shown"
        if len(pv.rows) < pv.total_rows:
            note += " (every primitive the GPU side draws otherwise is shown)"
        parts += [tag("h3", "Primitives"),
                  tag("p", "The CPU reference's assembly: each primitive's corners by index "
                           "position (VTX) and index value (IDX), in D3D's order. " + note + ".",
                      class_="note"),
                  table, tag("ul", *(tag("li", n) for n in pv.notes)) if pv.notes else ""]
    if view.geometry is not None:
        parts.append(_render_gs_out(view.geometry))
    return join(parts)


def _render_gs_out(gv: GSOutView) -> Html:
    """The geometry shader's output: a table per stream, a row per Append or RestartStrip."""
    stats = ", ".join(f"{k} {v}" for k, v in gv.statistics)
    parts: list[Html | str] = [
        tag("h3", "Geometry shader output (GS Out)"),
        tag("p", f"{gv.source}: {stats}. One row per Append (vtx: the vertex's number in the "
                 "stream) and RestartStrip (cut) that took effect, with its invocation (inv, "
                 "in D3D's order), draw, instance, SV_PrimitiveID (prim), SV_GSInstanceID (gsi) "
                 "and the index positions of its input vertices (in VTX).", class_="note")]
    for st in gv.streams:
        note = f"{len(st.rows)} of {st.total_rows} rows shown"
        parts += [tag("h4", st.title), tag("p", note, class_="note"),
                  table_of(st.header, st.rows, "gsout", numeric={0, 1, 2, 3, 4})]
    return join(parts)


def _render_hex_side(side) -> Html:
    """Bytes as hex, 4-byte words apart; only differing bytes get an element of their own."""
    out = []
    for i, (digits, state) in enumerate(side):
        if i and i % 4 == 0:
            out.append(" ")
        out.append(tag("span", digits, class_=state) if state else digits)
    return join(out)


def _render_so(run: RunView, compared: bool) -> Html:
    parts = []
    for s in run.so_slots:
        facts: list[tuple[str, object]] = [
            ("size (SizeInBytes)", s.size),
            ("stride", "not written by the declaration" if s.stride is None else s.stride),
            ("initial BufferFilledSize", s.initial_filled),
            ("BufferFilledSize CPU", "(not compared)" if s.filled_cpu is None else s.filled_cpu),
            ("BufferFilledSize GPU", s.filled_gpu),
            ("differing bytes", s.differing_bytes if compared else "(not compared)")]
        if s.tolerated_bytes:
            facts.append(("bytes within the shader tolerance", s.tolerated_bytes))
        rows = []
        for fact, value in facts:
            differs = (fact == "BufferFilledSize GPU" and s.filled_cpu is not None
                       and s.filled_cpu != s.filled_gpu) or (fact == "differing bytes"
                                                             and s.differing_bytes)
            rows.append(tag("tr", tag("th", fact), tag("td", value,
                                                       class_="diff" if differs else None)))
        dump = [tag("tr", tag("th", "offset"), tag("th", "CPU"), tag("th", "GPU"))]
        for h in s.rows:
            absent = "(no buffer)" if compared else "(not compared)"
            dump.append(tag("tr", tag("td", f"0x{h.offset:08x}"),
                            tag("td", absent if h.cpu is None else _render_hex_side(h.cpu),
                                class_="cpu"),
                            tag("td", "(no buffer)" if h.gpu is None else
                                _render_hex_side(h.gpu), class_="gpu"),
                            class_="diff" if h.differs else "tol" if h.tolerated else "same"))
        note = f"{len(s.rows)} row{'' if len(s.rows) == 1 else 's'} of {SO_ROW_BYTES} bytes shown"
        if s.omitted:
            note += f"; {s.omitted} left out (every row with a differing byte is shown)"
        parts += [tag("h4", f"SO slot {s.slot}"), tag("table", *rows),
                  tag("p", note, class_="note"), tag("table", *dump, class_="hex")]
    return join(parts)


def _render_run(run: RunView, anchor: str) -> Html:
    problems = tag("ul", *(tag("li", p) for p in run.problems)) if run.problems else ""
    stats = ""
    if run.stats:
        rows = [tag("tr", tag("th", n), tag("td", a, class_="num"),
                    tag("td", b, class_="num diff" if d else "num")) for n, a, b, d in run.stats]
        stats = tag("table", tag("tr", tag("th", "statistic"), tag("th", "CPU"), tag("th", "GPU")),
                    *rows, class_="stats")
    errors = ""
    if run.errors:
        header = ["element", "tolerance", "components", "bit-equal", "1 ULP", "beyond 1 ULP",
                  "max ULP", "max |GPU - CPU|"]
        errors = join([tag("p", "Per-component error where a tolerance applies or a component "
                                "differs:", class_="note"),
                       table_of(header, [[e.element, e.rule, e.compared, e.exact, e.within_one,
                                          e.beyond_one, e.max_ulp, f"{e.max_absolute:.9g}"]
                                         for e in run.errors], numeric={2, 3, 4, 5, 6, 7})])
    body = ""
    if run.rows:
        body = _render_invocations(run, f"{anchor}-values")
    elif run.so_slots:
        # Its VS Out table is in the case's VS Out section (_render_mesh).
        body = _render_so(run, run.status != "not compared")
    return fill(RUN, label=f"{run.adapter}: {run.path}", verdict_class=verdict_class(run.status),
                status=run.status, detail=run.detail, problems=problems, stats=stats,
                errors=errors, body=body)


def _pci_id(value) -> str:
    return "?" if value is None else f"0x{int(value):04x}"


def adapter_table(adapters: list[dict], full: bool) -> Html:
    """The adapters' facts as a table; ``full`` adds each one's limits and quirks."""
    if not adapters:
        return tag("p", "none", class_="note")
    header = ["name", "backend", "type", "driver", "vendor", "PCI vendor:device", "wgpu-native"]
    rows = [[a["name"], a["backend"], a["type"], a["driver"], a["vendor"],
             f"{_pci_id(a.get('vendor_id'))}:{_pci_id(a.get('device_id'))}",
             a.get("wgpu_native") or "?"] for a in adapters]
    if not full:
        return table_of(header, rows)
    parts = [table_of(header, rows)]
    for a in adapters:
        limits = [[k.replace("_", "-"), "yes" if v is True else "no" if v is False else v]
                  for k, v in a["limits"].items()]
        parts.append(tag("h4", a["summary"]))
        parts.append(table_of(["limit / feature", "value"], limits, numeric={1}))
        if a.get("quirks"):
            parts.append(tag("ul", *(tag("li", "quirk: ", q) for q in a["quirks"])))
    return join(parts)


def render_case(view: CaseView, index: int, open_: bool) -> Html:
    """One case's section (``<details>``, anchor ``case-<index>``, open when ``open_``)."""
    anchor = f"case-{index}"
    counts = ", ".join(f"{view.count(s)} {s}" for s in ("OK", "DIFFERENT", "not applicable",
                                                         "not compared") if view.count(s))
    facts = table_of(["topology", "draws", "reference statistics"],
                     [[view.topology, join(tag("div", d) for d in view.draws),
                       ", ".join(f"{k} {v}" for k, v in view.reference_stats)]])
    so_decl = ""
    if view.so_declaration:
        so_decl = join([tag("h3", "Stream Output declaration"),
                        table_of(SO_DECL_HEADER, view.so_declaration, numeric={0, 1, 3, 4, 5})])
    runs = join(_render_run(r, f"{anchor}-run-{i}") for i, r in enumerate(view.runs))
    shader = ""
    if view.shader is not None:
        sv = view.shader
        parts = [tag("h3", f"Vertex shader ({sv.title})"),
                 table_of(SIGNATURE_HEADER, sv.signature)]
        if sv.constant_buffers:
            parts += [tag("h4", "Constant buffers"), table_of(CBUFFER_HEADER, sv.constant_buffers)]
        parts.append(tag("details", tag("summary", f"{sv.language} source"),
                         tag("pre", sv.source, class_="source")))
        shader = join(parts)
    state = {"OK": "OK", "DIFFERENT": "DIFFERENT"}.get(view.verdict, "none")
    return fill(CASE, state=state, anchor=anchor, open=Html(" open") if open_ else "",
                name=view.name, verdict_class=verdict_class(view.verdict),
                verdict=view.verdict, counts=counts,
                description=tag("p", view.description) if view.description else "",
                facts=facts, adapters=adapter_table(view.adapters, full=False),
                elements=table_of(ELEMENT_HEADER, view.elements, numeric={0, 3}),
                shader=shader, so_declaration=so_decl, mesh=_render_mesh(view, anchor), runs=runs)
