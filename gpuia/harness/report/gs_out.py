"""What a mesh viewer shows of a geometry shader's output ("GS Out"), as data and as text: one
table per stream, a row per Append and RestartStrip that took effect, with the invocation that
made it (its draw and instance, SV_PrimitiveID, SV_GSInstanceID and the index positions of its
input vertices) and the record the Append emitted.

The rows are the calls a result lists in ``geometry_invocations``
(:func:`gpuia.harness.reference_geometry.listed_calls`), so the text tables (``gpuia run
--table``, ``gpuia check --table``), the HTML report (:mod:`.html_case`) and the CSV export
(:func:`gpuia.harness.export.mesh_csv.gs_out_csv`) show what the result document holds. Columns
are named as :func:`.mesh.output_columns` names a vertex shader's outputs, the position first.
The statistics shown beside them are the stage's (``GSInvocations``, ``GSPrimitives``) and
Stream Output's per stream (``NumPrimitivesWritten``, ``PrimitivesStorageNeeded``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from ..reference_geometry import listed_calls
from .mesh import MeshColumn, output_columns

if TYPE_CHECKING:
    from ...reference import IAResult
    from ...reference.stream_output import SOResult
    from ..case import Case
    from ..reference_geometry import GeometryRun

__all__ = ["GSStream", "GSOut", "gs_out", "gs_stream_rows", "gs_out_text", "GS_HEADER",
           "check_gs_out_text"]

GS_HEADER = ["inv", "draw", "inst", "prim", "gsi", "in VTX", "vtx"]
"""The columns every stream table starts with: the invocation in D3D's order, its draw and
instance, SV_PrimitiveID, SV_GSInstanceID, its input vertices' index positions (VTX of the
VS In table), and the emitted vertex's number in the stream (``cut`` for a RestartStrip)."""


@dataclass(frozen=True)
class GSStream:
    """One stream's rows, in call order.

    Arguments:
        stream (int): the stream, 0-3.
        kind (str): its type name (``PointStream``, ``LineStream``, ``TriangleStream``).
        columns (list): the :class:`~.mesh.MeshColumn` of every member of its record.
        invocation (numpy.ndarray): int64 per row: the invocation (D3D's order) that called.
        vertex (numpy.ndarray): int64 per row: the Append's vertex number in the stream, from
            0; -1 for a RestartStrip.
        bits (dict): member key -> uint32 ``(rows, components)`` (zeros on a RestartStrip row).
        statistics (dict): ``NumPrimitivesWritten`` and ``PrimitivesStorageNeeded`` of the
            stream, or empty without Stream Output.
    """

    stream: int
    kind: str
    columns: list[MeshColumn]
    invocation: np.ndarray
    vertex: np.ndarray
    bits: dict[str, np.ndarray]
    statistics: dict[str, int]

    def __len__(self) -> int:
        return int(self.invocation.shape[0])

    @property
    def cuts(self) -> int:
        """The RestartStrip rows."""
        return int((self.vertex < 0).sum())


@dataclass(frozen=True)
class GSOut:
    """A case's geometry shader output on one side.

    Arguments:
        source (str): what produced it, for people.
        draw, instance, primitive_id, gs_instance (numpy.ndarray): per invocation, in D3D's
            order: its draw, IA instance, SV_PrimitiveID and SV_GSInstanceID.
        input_vtx (numpy.ndarray): int64 ``(invocations, input vertices)``: the index positions
            (``VTX``) of each invocation's input vertices, in the shader's input order.
        streams (list): one :class:`GSStream` per stream of the shader.
        statistics (dict): ``GSInvocations`` and ``GSPrimitives``.
    """

    source: str
    draw: np.ndarray
    instance: np.ndarray
    primitive_id: np.ndarray
    gs_instance: np.ndarray
    input_vtx: np.ndarray
    streams: list[GSStream]
    statistics: dict[str, int]

    def invocation_cells(self, i: int) -> list[str]:
        """The first five cells of :data:`GS_HEADER` and ``in VTX`` for invocation ``i``."""
        return [str(i), str(int(self.draw[i])), str(int(self.instance[i])),
                str(int(self.primitive_id[i])), str(int(self.gs_instance[i])),
                " ".join(map(str, self.input_vtx[i].tolist()))]


def _columns(record) -> list[MeshColumn]:
    """A stream record's columns, named as a vertex shader's outputs are."""
    outputs = [SimpleNamespace(semantic=m.semantic, index=m.index, key=m.key, type=m.kind,
                               components=m.components) for m in record]
    return output_columns(SimpleNamespace(outputs=outputs))  # type: ignore[arg-type]


def gs_out(case: Case, ia: IAResult, run: GeometryRun, so: SOResult | None = None) -> GSOut:
    """The CPU reference's geometry shader output of a case.

    Arguments:
        case (Case): the parsed case (with a geometry shader).
        ia (IAResult): its reference Input Assembler result.
        run (GeometryRun): its geometry shader stage
            (:func:`gpuia.harness.run.reference_gs`).
        so (SOResult): its Stream Output (:func:`gpuia.harness.run.reference_so`), whose
            per-stream statistics go with each stream; None (the default) for none.

    Returns:
        The :class:`GSOut`.
    """
    gs = case.gs
    assert gs is not None, "gs_out needs a case with a geometry shader"
    inv, calls = run.invocations, run.calls
    listed = listed_calls(run)
    streams = []
    for s, kind in enumerate(gs.declaration.streams):
        rows = listed[calls.stream[listed] == s]
        cut = calls.cut[rows].astype(bool)
        vertex = np.where(cut, -1, np.cumsum(~cut) - 1).astype(np.int64)
        record = gs.stream_record(s)
        bits = {}
        for m in record:
            b = np.ascontiguousarray(calls.records[rows, m.word:m.word + m.components],
                                     dtype=np.uint32)
            b[cut] = 0
            bits[m.key] = b
        stats = dict(so.streams[s]) if so is not None and s < len(so.streams) else {}
        streams.append(GSStream(s, kind, _columns(record),
                                calls.invocation[rows].astype(np.int64), vertex, bits, stats))
    vtx = ia.vertex.astype(np.int64)[inv.inputs] if len(inv) else inv.inputs.astype(np.int64)
    return GSOut("CPU reference: the geometry shader run on the CPU", inv.draw, inv.instance,
                 inv.primitive_id, inv.gs_instance, vtx, streams, dict(run.statistics))


def gs_stream_rows(out: GSOut, stream: GSStream, max_rows: int | None = 32) -> list[list[str]]:
    """The first ``max_rows`` rows of a stream's table as text cells: :data:`GS_HEADER`'s, then
    per member its components (the record's, blank on a RestartStrip row).

    Arguments:
        out (GSOut): the output.
        stream (GSStream): one of its streams.
        max_rows (int): the most rows; None for all. Default 32.

    Returns:
        The rows, each a list of strings.
    """
    from ..table import format_values

    n = len(stream)
    shown = n if max_rows is None else min(n, max_rows)
    texts = {c.key: format_values(stream.bits[c.key][:shown], c.type) for c in stream.columns}
    rows = []
    for r in range(shown):
        v = int(stream.vertex[r])
        row = out.invocation_cells(int(stream.invocation[r])) + [str(v) if v >= 0 else "cut"]
        row += [" ".join(texts[c.key][r]) if v >= 0 else "" for c in stream.columns]
        rows.append(row)
    return rows


def statistics_text(stats: dict) -> str:
    """``Name value, ...`` of a statistics dict."""
    return ", ".join(f"{k} {v}" for k, v in stats.items())


def gs_out_text(name: str, out: GSOut, max_rows: int | None = 32) -> str:
    """The GS Out tables as text: a heading with the stage's statistics, then per stream a
    heading (its type, vertices, cuts, the invocations that called it and its Stream Output
    statistics) and its table, cut at ``max_rows`` rows with a ``... N more rows`` line.

    Arguments:
        name (str): the case's name, for the headings.
        out (GSOut): the output.
        max_rows (int): the most rows per stream; None for all. Default 32.

    Returns:
        The text, sections headed ``== <name>: GS Out ...``.
    """
    from ..table import render_table

    parts = [f"== {name}: GS Out ({out.source}): {len(out.draw)} invocations, "
             f"{statistics_text(out.statistics)}"]
    for st in out.streams:
        callers = np.unique(st.invocation).shape[0]
        so = f"; {statistics_text(st.statistics)}" if st.statistics else ""
        parts.append(f"== {name}: GS Out stream {st.stream} ({st.kind}): "
                     f"{len(st) - st.cuts} vertices, {st.cuts} cuts, from {callers} "
                     f"invocations{so}")
        header = GS_HEADER + [c.name for c in st.columns]
        text = render_table(header, gs_stream_rows(out, st, max_rows), right={0, 1, 2, 3, 4})
        shown = len(st) if max_rows is None else min(len(st), max_rows)
        if shown < len(st):
            text += f"\n... {len(st) - shown} more rows (use --rows to show more)"
        parts.append(text)
    return "\n".join(parts) + "\n"


def check_gs_out_text(result, max_rows: int | None = 32) -> str:
    """What ``gpuia check --table`` prints after :func:`.mesh.mesh_text` for a case with a
    geometry shader: the CPU reference's GS Out tables, one per stream; "" for a case
    without one (``result``: a ``cross_check(keep=True)`` result)."""
    if result.geometry is None or result.case_data is None or result.reference is None:
        return ""
    return gs_out_text(result.case, gs_out(result.case_data, result.reference, result.geometry,
                                           result.so_reference), max_rows).rstrip() + "\n"
