"""The mesh viewer's tables as CSV, written as RenderDoc's buffer viewer exports them, so that a
RenderDoc capture of the same draw on D3D12 can be diffed against gpuia's line by line
(``docs/exports.md``).

RenderDoc (qrenderdoc/Windows/BufferViewer.cpp, ``BufferViewer::exportData``, its CSV branch)
writes the header of the model's columns and then every row of the model, cells joined by
``", "`` (a comma and a space), one line per row. What each cell holds follows
``BufferItemModel::data`` and ``interpretVariant`` there, with the number formatting of
``Formatter::Format`` (qrenderdoc/Code/QRDUtils.cpp) at its default settings (2 to 5 decimals,
exponent form below 1e-5 and above 1e7):

* the header: ``VTX, IDX``, then per column group ``NAME.x, NAME.y, ...`` (``NAME`` alone for
  one component), names as :mod:`gpuia.harness.report.mesh` gives them;
* one row per index position of one instance of one draw (RenderDoc shows one instance at a
  time), ``VTX`` from 0, ``IDX`` the index value (the position, for a non-indexed draw);
* floats: a leading space unless negative, fixed notation with 2 to 5 decimals (trailing zeros
  trimmed to 2), ``E`` notation with 5 decimals outside [1e-5, 1e7] (``1.00000E-06``), `` NaN``,
  `` 0.00`` for either zero; signed integers with a leading space unless negative; unsigned
  integers bare;
* a strip cut: ``VTX, --,  Restart, ...`` (every data cell `` Restart``);
* a draw whose vertex or instance count is 0: a ``---, ---, No Vertices`` or ``No Instances`` row
  (the other cells empty);
* ``---`` (RenderDoc's out-of-bounds text) where gpuia has no value: an invocation the GPU did not
  record, or an output component that Stream Output did not write.

RenderDoc quotes nothing; gpuia's files are RFC 4180 CSV (comma-separated, each cell after the
first starting with the separator's space), their column names quoted by the :mod:`csv` module,
so a column name holding a comma, a double quote or a line break is quoted (the space inside
the quotes, a quote doubled) and every row keeps its cells; a file with nothing to quote is
RenderDoc's, byte for byte. Column names come from the input: one starting with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return (after any spaces), which a spreadsheet would evaluate
as a formula, is written behind a ``'`` and quoted (OWASP's CSV-injection advice;
:func:`text_cell`). Every other cell is gpuia's own (numbers such as ``-1.50``, ``-INF``,
markers such as ``---``) and written as RenderDoc writes it.

Every file is written whole or not at all (:func:`gpuia.util.files.write_atomic`), and each case
gets a manifest, ``<stem>.csv.json``, that names its files and what each side ran on, the
adapter's driver included.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...util.files import OutputError, safe_stem, write_atomic
from ..report.mesh import InstanceRows, VSOutputs, input_columns, instance_rows, vs_outputs_note

if TYPE_CHECKING:  # annotations only: the case and the results whose tables are written
    from ...reference import IAResult
    from ..case import Case
    from ..report.gs_out import GSOut, GSStream

__all__ = ["RENDERDOC_CSV_SOURCE", "SEPARATOR", "CSV_VERSION", "FORMULA_PREFIXES", "CsvSide",
           "renderdoc_number", "renderdoc_numbers", "text_cell", "vs_in_csv", "vs_out_csv",
           "GS_CSV_COLUMNS", "gs_out_csv", "side_tag", "write_case_csv"]

RENDERDOC_CSV_SOURCE = ("https://github.com/baldurk/renderdoc/blob/"
                        "369520d3197c76907f4d5fafbee34a053d2e9664/qrenderdoc/Windows/"
                        "BufferViewer.cpp")
"""The RenderDoc source whose CSV export these files follow (the commit read)."""

SEPARATOR = ", "
"""Between two cells, in the header and in every row (RenderDoc writes ``", "``): the CSV
comma and a space that begins the next cell, inside its quotes when it is quoted."""

CSV_VERSION = 1
"""The version of the ``<stem>.csv.json`` manifest (its ``gpuia_csv`` field)."""

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection")."""

# RenderDoc's Formatter defaults (PersistantConfig.h: Formatter_MinFigures 2, MaxFigures 5,
# NegExp 5, PosExp 7).
_MIN_FIGURES, _MAX_FIGURES = 2, 5
_EXP_BELOW, _EXP_ABOVE = 10.0 ** -5, 10.0 ** 7
_OUT_OF_BOUNDS = "---"
_RESTART_IDX, _RESTART = "--", " Restart"


def _format_float(f: float) -> str:
    """Formatter::Format(double) at its defaults."""
    if f != 0.0 and (abs(f) < _EXP_BELOW or abs(f) > _EXP_ABOVE):
        return f"{f:.{_MAX_FIGURES}E}"  # Qt's 'E' with 5 digits: 1.00000E-06, INF
    text = f"{f:.{_MAX_FIGURES}f}"
    keep = text.rfind(".") + _MIN_FIGURES  # trailing zeros go, down to 2 decimals
    while len(text) - 1 > keep and text.endswith("0"):
        text = text[:-1]
    return text


def _float_cell(f: float) -> str:
    """interpretVariant of a float: a space in place of a missing sign, one spelling of 0."""
    if f != f:
        return " NaN"
    if f == 0.0:
        return " " + _format_float(0.0)
    return _format_float(f) if f < 0 else " " + _format_float(f)


def _sint_cell(i: int) -> str:
    """interpretVariant of a signed integer: a space in place of a missing sign."""
    return f" {i}" if i >= 0 else str(i)


def renderdoc_number(bits: int, shader_type: str) -> str:
    """One component as RenderDoc's mesh viewer writes it (see the module docstring).

    Arguments:
        bits (int): the component's 32-bit pattern.
        shader_type (str): ``"float"``, ``"sint"`` or ``"uint"``.

    Returns:
        The cell's text, leading space included.
    """
    return renderdoc_numbers(np.array([bits], np.uint32), shader_type)[0]


def renderdoc_numbers(bits: np.ndarray, shader_type: str) -> list:
    """:func:`renderdoc_number` over an array of 32-bit patterns.

    Arguments:
        bits (numpy.ndarray): the patterns, any shape.
        shader_type (str): ``"float"``, ``"sint"`` or ``"uint"``.

    Returns:
        Nested lists of cell texts in the array's shape (a flat list for a 1-D array).
    """
    b = np.ascontiguousarray(bits, dtype=np.uint32)
    fmt: Callable[[Any], str]
    if shader_type == "float":
        with np.errstate(invalid="ignore"):  # signalling NaN payloads widen quietly
            values = b.view(np.float32).astype(np.float64).tolist()
        fmt = _float_cell
    elif shader_type == "sint":
        values = b.view(np.int32).tolist()
        fmt = _sint_cell
    else:
        values = b.tolist()
        fmt = str

    def walk(v):
        return [walk(x) for x in v] if isinstance(v, list) else fmt(v)

    return walk(values)


def text_cell(text: str) -> tuple[str, bool]:
    """A cell of text from the input (a column name), made safe to open in a spreadsheet:
    text starting with one of :data:`FORMULA_PREFIXES` (after any spaces, which some
    spreadsheets trim on import) goes behind a ``'`` and is to be quoted, as OWASP asks, so
    that it is read as text. Numbers gpuia formats itself never pass here: ``-1.50`` stays a
    number.

    Arguments:
        text (str): the cell's text.

    Returns:
        ``(cell, always_quoted)``: ``(text, False)``, or ``("'" + text, True)``.
    """
    if text.lstrip(" ").startswith(FORMULA_PREFIXES):
        return "'" + text, True
    return text, False


def _fields(cells: list[str]) -> list[str]:
    """A line's RFC 4180 fields: RenderDoc's ``", "`` is the comma and a space that starts
    the next field, so a quoted field holds that space inside its quotes."""
    return cells[:1] + [" " + c for c in cells[1:]]


def _quoted(field: str, always: bool) -> str:
    """One field as the csv module writes it: quoted only when RFC 4180 asks (a comma, a
    quote or a line break inside), or ``always``."""
    # The writer quotes a line break only when it is in its own line end (Python 3.11), and
    # this one writes none: CR and LF are decided here; RFC 4180 readers break lines on both.
    breaks = "\r" in field or "\n" in field
    out = io.StringIO()
    writer = (csv.writer(out, lineterminator="", quoting=csv.QUOTE_ALL) if always or breaks
              else csv.writer(out, lineterminator=""))
    writer.writerow([field])
    return out.getvalue()


def _csv(header: list[str], rows: list[list[str]]) -> str:
    """The file: ``header`` cells are text (:func:`text_cell`), quoted as the csv module quotes
    them; ``rows`` hold gpuia's own cells (numbers, ``---``, `` Restart``, ...), which never
    need quoting, so they are joined by :data:`SEPARATOR` as RenderDoc joins them (what the
    csv module writes for them, five times as fast)."""
    cells = [text_cell(h) for h in header]
    fields = _fields([c for c, _ in cells])
    head = ",".join(_quoted(f, always) for f, (_, always) in zip(fields, cells, strict=True))
    return "".join([head + "\n", *(SEPARATOR.join(r) + "\n" for r in rows)])


def _table(groups, rows: InstanceRows, vertex_id, values: dict, known: dict | None,
           missing) -> str:
    """The CSV text of one instance's table: ``groups`` a list of (MeshColumn, bits), bits
    ``(invocations, components)``; ``known`` key -> mask; ``missing`` bool per invocation."""
    header = ["VTX", "IDX"] + [h for col, _ in groups for h in col.headers]
    width = len(header) - 2
    if rows.no_vertices or rows.no_instances:
        texts = (["No Vertices"] if rows.no_vertices else []) + \
                (["No Instances"] if rows.no_instances else [])
        # RenderDoc: '---' in VTX and IDX, the text in the first data column, nothing after.
        body = [([_OUT_OF_BOUNDS, _OUT_OF_BOUNDS] + [t] + [""] * (width - 1))[:2 + width]
                for t in texts]
        return _csv(header, body)
    inv = rows.invocation
    delivered = inv[inv >= 0]
    cells = [renderdoc_numbers(values[col.key][delivered], col.type) for col, _ in groups]
    marks = [None if known is None else known[col.key][delivered].tolist() for col, _ in groups]
    lost = (np.zeros(delivered.shape, bool) if missing is None
            else np.asarray(missing, bool)[delivered]).tolist()
    ids = vertex_id[delivered].astype(np.int64).tolist()
    body, k = [], 0
    for vtx, r in enumerate(inv.tolist()):
        if r < 0:
            body.append([str(vtx), _RESTART_IDX] + [_RESTART] * width)
            continue
        row = [str(vtx), _OUT_OF_BOUNDS if lost[k] else str(ids[k])]
        for g, (col, _) in enumerate(groups):
            mark = marks[g]
            for c in range(col.components):
                unknown = lost[k] or (mark is not None and not mark[k][c])
                row.append(_OUT_OF_BOUNDS if unknown else cells[g][k][c])
        body.append(row)
        k += 1
    return _csv(header, body)


def vs_in_csv(case: Case, ia: IAResult, rows: InstanceRows,
              missing: np.ndarray | None = None) -> str:
    """RenderDoc's "VS Input" export of one instance of one draw: the columns of
    :func:`~gpuia.harness.report.mesh.input_columns` (each element's format's components, as
    delivered, default fill left out as RenderDoc shows it), one row per index position.

    Arguments:
        case (Case): the parsed case.
        ia (IAResult): the invocations (the reference's or ``GPUResult.ia``).
        rows (InstanceRows): the instance's rows
            (:func:`~gpuia.harness.report.mesh.instance_rows`).
        missing (numpy.ndarray): bool per invocation: the GPU recorded nothing (its cells are
            ``---``); None (the default): all recorded.

    Returns:
        The CSV text, each line ended by ``\\n``.
    """
    groups = [(col, ia.inputs[col.key].bits) for col in input_columns(case)]
    values = {col.key: bits[:, :col.components] for col, bits in groups}
    return _table(groups, rows, ia.vertex_id, values, None, missing)


def vs_out_csv(outputs: VSOutputs, ia: IAResult, rows: InstanceRows) -> str:
    """RenderDoc's "VS Output" export of one instance of one draw: the columns of
    ``outputs``, one row per index position (``---`` for a component whose value is not
    known).

    Arguments:
        outputs (VSOutputs): one side's outputs.
        ia (IAResult): the invocations the outputs belong to (for IDX).
        rows (InstanceRows): the instance's rows.

    Returns:
        The CSV text, each line ended by ``\\n``.
    """
    groups = [(col, outputs.bits[col.key]) for col in outputs.columns]
    return _table(groups, rows, ia.vertex_id, outputs.bits, outputs.known, None)


GS_CSV_COLUMNS = ["INVOCATION", "DRAW", "INSTANCE", "SV_PrimitiveID", "SV_GSInstanceID",
                  "INPUT VTX"]
"""The columns a GS Out file adds after RenderDoc's (``VTX``, ``IDX``, the record's): the
invocation in D3D's order that made the row, its draw and IA instance, its system values and
its input vertices' index positions, space-separated."""


def gs_out_csv(out: GSOut, stream: GSStream) -> str:
    """One stream's GS Out table (:mod:`gpuia.harness.report.gs_out`) as RenderDoc's mesh viewer
    exports a geometry shader's output: ``VTX`` the row from 0, ``IDX`` the vertex's number in
    the stream, the record's components; a RestartStrip row as a strip cut's (``--`` and
    `` Restart`` cells). Then the :data:`GS_CSV_COLUMNS`, so that the first columns are
    RenderDoc's.

    Arguments:
        out (GSOut): the output.
        stream (GSStream): one of its streams.

    Returns:
        The CSV text, each line ended by ``\\n``.
    """
    header = ["VTX", "IDX"] + [h for c in stream.columns for h in c.headers] + GS_CSV_COLUMNS
    cells = [renderdoc_numbers(stream.bits[c.key], c.type) for c in stream.columns]
    width = sum(c.components for c in stream.columns)
    body = []
    for r, (inv, vtx) in enumerate(zip(stream.invocation.tolist(), stream.vertex.tolist(),
                                       strict=True)):
        ids = out.invocation_cells(inv)
        if vtx < 0:
            body.append([str(r), _RESTART_IDX] + [_RESTART] * width + ids)
            continue
        body.append([str(r), str(vtx)] + [x for g in cells for x in g[r]] + ids)
    return _csv(header, body)


@dataclass
class CsvSide:
    """One side whose tables :func:`write_case_csv` writes: the CPU reference, a GPU run's
    inputs, or a GPU's Stream Output.

    Arguments:
        tag (str): its part of the file names (:func:`side_tag`).
        backend (str): ``"cpu"`` or ``"gpu"``.
        path (str): ``reference``, ``native``, ``pulling`` (both joined by ``/``) or
            ``stream output``.
        ia (IAResult): the invocations: their rows, IDX and (with ``inputs``) the VS In
            values.
        inputs (bool): write VS In tables from ``ia``. Default True.
        missing (numpy.ndarray): bool per invocation the GPU did not record; None (the
            default) for none.
        outputs (VSOutputs): the VS Out values to write; None (the default) writes no VS Out.
        note (str): why there is no VS Out, recorded in the manifest. Default empty.
        adapter (dict): the adapter (``name``, ``backend``, ``type``, ``summary``); None (the
            default) for the CPU.
        adapter_info (dict): the adapter's driver facts (``driver``, ``vendor``,
            ``vendor_id``, ``device_id``, ``wgpu_native``); None (the default) for the CPU.
        gs_out (GSOut): the geometry shader's output, written as one GS Out table per stream;
            None (the default) for none.
    """

    tag: str
    backend: str
    path: str
    ia: IAResult
    inputs: bool = True
    missing: np.ndarray | None = None
    outputs: VSOutputs | None = None
    note: str = ""
    adapter: dict | None = None
    adapter_info: dict | None = None
    gs_out: GSOut | None = None


def side_tag(summary: str | None, path: str) -> str:
    """The file name part of a side: ``cpu`` for the reference, else the adapter's summary
    made one safe name, a dot, and the path (``/`` as ``+``, ``stream output`` as
    ``stream_output``).

    Arguments:
        summary (str): the adapter's summary; None for the CPU reference.
        path (str): the side's path.

    Returns:
        The tag, e.g. ``llvmpipe_LLVM_15.0.6_256_bits_CPU_via_Vulkan.native``.
    """
    if summary is None:
        return "cpu"
    return f"{safe_stem(summary, 'adapter')}.{path.replace('/', '+').replace(' ', '_')}"


def _row_count(rows: InstanceRows) -> int:
    """The data rows of a file (not its lines: a quoted name may hold a line break)."""
    if rows.no_vertices or rows.no_instances:
        return int(rows.no_vertices) + int(rows.no_instances)
    return len(rows.invocation)


def _write_gs_out(folder: Path, stem: str, tag: str, out: GSOut) -> list[dict]:
    """The GS Out files of one side, one per stream, and their manifest entries."""
    files = []
    for st in out.streams:
        name = f"{stem}.{tag}.gs_out.stream{st.stream}.csv"
        write_atomic(folder / name, gs_out_csv(out, st))
        files.append({"file": name, "table": "GS Out", "side": tag, "draw": None,
                      "instance": None, "stream": st.stream, "rows": len(st)})
    return files


def write_case_csv(folder: str | os.PathLike[str], stem: str, case: Case,
                   sides: list[CsvSide]) -> Path:
    """Write every table of every side of a case into ``folder``, and the case's manifest.

    Files: ``<stem>.<tag>.draw<D>.instance<I>.vs_in.csv`` and ``... .vs_out.csv`` per draw
    and instance (one, instance 0, for a draw that delivers nothing), and ``<stem>.csv.json``:
    ``{"gpuia_csv": 1, "case", "format", "source", "sides": [{"tag", "backend", "path",
    "adapter", "adapter_info", "vs_out"}], "files": [{"file", "table", "side", "draw",
    "instance", "rows"}]}``, where ``vs_out`` is where the side's VS outputs come from or why it
    has none. A side with a geometry shader's output also gets
    ``<stem>.<tag>.gs_out.stream<S>.csv`` per stream (:func:`gs_out_csv`), listed with ``draw``
    and ``instance`` null and its ``stream``. Each file is written atomically.

    Arguments:
        folder (str | os.PathLike): the output folder (it must exist).
        stem (str): the case's file name stem (already one safe component).
        case (Case): the parsed case.
        sides (list): the :class:`CsvSide` values, in the order to list them.

    Returns:
        The manifest's path.

    Raises:
        OutputError: ``stem`` is not one safe file name component, or a file could not be
            written (naming it and why).
    """
    if safe_stem(stem) != stem:  # names come from inputs: none may leave the folder
        raise OutputError(f"{stem!r}: not one safe file name component")
    folder = Path(folder)
    files, listed = [], []
    for side in sides:
        rows = instance_rows(case, side.ia)
        # (table, the VS outputs it shows): None for VS In, whose values are side.ia's
        tables: list[tuple[str, VSOutputs | None]] = [("VS In", None)] if side.inputs else []
        if side.outputs is not None:
            tables.append(("VS Out", side.outputs))
        for table, outputs in tables:
            suffix = "vs_in" if outputs is None else "vs_out"
            for r in rows:
                name = f"{stem}.{side.tag}.draw{r.draw}.instance{r.instance}.{suffix}.csv"
                text = (vs_in_csv(case, side.ia, r, side.missing) if outputs is None
                        else vs_out_csv(outputs, side.ia, r))
                write_atomic(folder / name, text)
                files.append({"file": name, "table": table, "side": side.tag, "draw": r.draw,
                              "instance": r.instance, "rows": _row_count(r)})
        if side.gs_out is not None:
            files += _write_gs_out(folder, stem, side.tag, side.gs_out)
        vs_out = side.outputs.source if side.outputs is not None else (
            side.note or vs_outputs_note(case) or "no VS Out from this side")
        listed.append({"tag": side.tag, "backend": side.backend, "path": side.path,
                       "adapter": side.adapter, "adapter_info": side.adapter_info,
                       "vs_out": vs_out})
    kinds = "VS In, VS Out, GS Out" if any(s.gs_out is not None for s in sides) else \
        "VS In, VS Out"
    manifest = {"gpuia_csv": CSV_VERSION, "case": case.name,
                "format": f"RenderDoc mesh viewer CSV ({kinds})",
                "source": RENDERDOC_CSV_SOURCE, "sides": listed, "files": files}
    return write_atomic(folder / f"{stem}.csv.json", json.dumps(manifest, indent=1) + "\n")
