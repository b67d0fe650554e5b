"""Plain-text tables for people: the per-invocation view RenderDoc's mesh viewer gives, and the
format and layout tables. Output is deterministic, fixed-width and free of colour codes, so it can
be diffed, pasted in an issue and asserted in tests."""

from __future__ import annotations

import math

import numpy as np

from ...d3d.formats import VERTEX_FORMATS

__all__ = ["format_value", "format_values", "invocation_table", "formats_table", "layout_table",
           "render_table"]


def format_value(bits: int, shader_type: str) -> str:
    """One component for display: floats with 9 significant digits (enough to round-trip a
    float32), integers in decimal."""
    if shader_type == "float":
        v = float(np.uint32(bits).view(np.float32))
        if math.isnan(v):
            return "nan"
        return f"{v:.9g}"
    if shader_type == "sint":
        return str(int(np.uint32(bits).view(np.int32)))
    return str(int(bits))


def format_values(bits: np.ndarray, shader_type: str) -> list:
    """:func:`format_value` over an array of 32-bit patterns (nested lists of the same strings,
    in the array's shape), converting the array once instead of once per component."""
    b = np.asarray(bits, dtype=np.uint32)
    if shader_type == "float":
        with np.errstate(invalid="ignore"):  # signalling NaN payloads widen quietly
            values = b.view(np.float32).astype(np.float64).tolist()
        fmt = _format_float
    else:
        values = (b.view(np.int32) if shader_type == "sint" else b).tolist()
        fmt = str
    if b.ndim == 0:
        return fmt(values)

    def walk(v):
        return [walk(x) for x in v] if isinstance(v, list) else fmt(v)

    return walk(values)


def _format_float(v: float) -> str:
    return "nan" if v != v else f"{v:.9g}"


def render_table(header: list[str], rows: list[list[str]], right: set[int] = frozenset()) -> str:
    """A fixed-width table: ``header`` and ``rows`` of strings, columns in ``right`` right-aligned."""
    widths = [max(len(header[c]), *(len(r[c]) for r in rows)) if rows else len(header[c])
              for c in range(len(header))]

    def line(cells):
        return "  ".join(cell.rjust(w) if c in right else cell.ljust(w)
                         for c, (cell, w) in enumerate(zip(cells, widths))).rstrip()

    out = [line(header), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)


def invocation_table(ia, max_rows: int | None = 32, show_bits: bool = False) -> str:
    """The vertices an IA result delivered: one row per invocation, one column per element
    (its four components), like RenderDoc's "VS Input" table."""
    n = len(ia)
    shown = n if max_rows is None else min(n, max_rows)
    header = ["draw", "inst", "vtx", "SV_VertexID"] + list(ia.inputs)
    rows = []
    for r in range(shown):
        row = [str(int(ia.draw[r])), str(int(ia.instance[r])), str(int(ia.vertex[r])),
               str(int(ia.vertex_id[r]))]
        for data in ia.inputs.values():
            bits = data.bits[r]
            if show_bits:
                row.append(" ".join(f"{int(b):08x}" for b in bits))
            else:
                row.append(" ".join(format_value(int(b), data.type) for b in bits))
        rows.append(row)
    text = render_table(header, rows, right={0, 1, 2, 3})
    if shown < n:
        text += f"\n... {n - shown} more invocations (use --rows to show more)"
    return text


def formats_table() -> str:
    """The DXGI vertex format table as gpuia knows it."""
    header = ["DXGI_FORMAT", "bytes", "align", "comps", "type", "channels", "swizzle", "WebGPU"]
    rows = [[f.name, str(f.size), str(f.alignment), str(f.component_count), f.shader_type,
             f.channel_spec, f.swizzle, f.webgpu or "(vertex pulling)"]
            for f in VERTEX_FORMATS.values()]
    return render_table(header, rows, right={1, 2, 3})


def layout_table(layout) -> str:
    """A resolved input layout: one row per element with its resolved offset and slot facts."""
    header = ["#", "semantic", "format", "slot", "offset", "class", "step", "slot extent"]
    rows = []
    for e in layout.elements:
        declared = "" if not e.desc.is_append_aligned else " (append)"
        rows.append([str(e.index), e.key, e.format.name, str(e.slot), f"{e.offset}{declared}",
                     "instance" if e.per_instance else "vertex", str(e.step_rate),
                     str(layout.slots[e.slot].extent)])
    return render_table(header, rows, right={0, 3})
