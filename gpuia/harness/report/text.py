"""Plain-text tables for people: the per-invocation view RenderDoc's mesh viewer gives, and the
format and layout tables. Output is deterministic, fixed-width and free of colour codes, so it can
be diffed, pasted in an issue and asserted in tests."""

from __future__ import annotations

import numpy as np

from ...d3d.formats import VERTEX_FORMATS
from ..table import format_value, format_values, render_table

__all__ = ["format_value", "format_values", "invocation_table", "formats_table", "layout_table",
           "render_table", "vs_out_table", "primitive_table"]


def invocation_table(ia, max_rows: int | None = 32, show_bits: bool = False) -> str:
    """The vertices an IA result delivered: one row per invocation, one column per element
    (its four components), like RenderDoc's "VS Input" table.

    Arguments:
        ia (IAResult): the result.
        max_rows (int): the most rows shown, then a ``... N more`` line; None shows all.
            Default 32.
        show_bits (bool): components as 32-bit patterns in hex. Default False.

    Returns:
        The table as text.
    """
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
    """A resolved input layout: one row per element with its resolved offset and slot facts.

    Arguments:
        layout (InputLayout): the resolved layout.

    Returns:
        The table as text.
    """
    header = ["#", "semantic", "format", "slot", "offset", "class", "step", "slot extent"]
    rows = []
    for e in layout.elements:
        declared = "" if not e.desc.is_append_aligned else " (append)"
        rows.append([str(e.index), e.key, e.format.name, str(e.slot), f"{e.offset}{declared}",
                     "instance" if e.per_instance else "vertex", str(e.step_rate),
                     str(layout.slots[e.slot].extent)])
    return render_table(header, rows, right={0, 3})


def _components(bits, known, shader_type: str) -> str:
    """One cell's components, ``-`` for a component whose value is not known."""
    texts = format_values(bits, shader_type)
    return " ".join(t if k else "-" for t, k in zip(texts, known, strict=True))


def vs_out_table(ia, cpu=None, gpu=None, max_rows: int | None = 32,
                 tolerated: dict | None = None) -> str:
    """The vertex shader's outputs (RenderDoc's "VS Out"): one row per invocation in IA
    order (draw, instance, vertex, SV_VertexID as in :func:`invocation_table`), one column
    per output with the CPU's components, followed by ``!= GPU components`` where a component
    the GPU wrote differs (``~ GPU components`` where the shader tolerance accepts every
    difference of the cell), ``-`` for a component a side does not know; rows are flagged
    ``!`` (a difference) or ``~`` (accepted ones only). With one side only, its components.

    Arguments:
        ia (IAResult): the invocations the outputs belong to.
        cpu (VSOutputs): the CPU reference's outputs, or None (the default).
        gpu (VSOutputs): a GPU's outputs, or None (the default).
        max_rows (int): the most rows shown, then a ``... N more`` line; None shows all.
            Default 32.
        tolerated (dict): output key -> bool mask of the GPU components the shader tolerance
            accepts (:func:`gpuia.harness.report.mesh.tolerated_outputs`); None (the default):
            none.

    Returns:
        The table as text (a line saying there is nothing to show when both are None).
    """
    sides = [s for s in (cpu, gpu) if s is not None]
    if not sides:
        return "VS Out: no outputs"
    columns = sides[0].columns
    n = len(ia)
    shown = n if max_rows is None else min(n, max_rows)
    header = ["", "draw", "inst", "vtx", "SV_VertexID"] + [c.name for c in columns]
    rows = []
    for r in range(shown):
        flag, cells = "", []
        for c in columns:
            first = sides[0]
            text = _components(first.bits[c.key][r], first.known_mask(c.key)[r], c.type)
            if cpu is not None and gpu is not None:
                wrote = gpu.known_mask(c.key)[r]
                differs = wrote & (gpu.bits[c.key][r] != cpu.bits[c.key][r])
                accepted = differs & tolerated[c.key][r] if tolerated else np.zeros_like(differs)
                if (differs & ~accepted).any():
                    flag = "!"
                    text += " != " + _components(gpu.bits[c.key][r], wrote, c.type)
                elif accepted.any():
                    flag = flag or "~"
                    text += " ~ " + _components(gpu.bits[c.key][r], wrote, c.type)
            cells.append(text)
        rows.append([flag, str(int(ia.draw[r])), str(int(ia.instance[r])),
                     str(int(ia.vertex[r])), str(int(ia.vertex_id[r]))] + cells)
    text = render_table(header, rows, right={1, 2, 3})
    if shown < n:
        text += f"\n... {n - shown} more invocations (use --rows to show more)"
    return text


def primitive_table(prims, gpu: dict | None = None, max_rows: int | None = 32) -> str:
    """The primitives the draws assemble: one row per primitive in D3D's order, its draw and
    instance, its corners' index positions (VTX) and SV_VertexID (IDX), the adjacency
    vertices' positions for adjacency topologies, and per GPU label the corners the GPU side
    draws (``same`` when they match, ``-`` where WebGPU assembles the draw itself), then one
    line per GPU label and draw saying how the GPU side draws it.

    Arguments:
        prims (PrimitiveList): the reference's primitives
            (:func:`gpuia.harness.report.mesh.reference_primitives`).
        gpu (dict): column label -> list of :class:`~gpuia.harness.report.mesh.GPUPrimitives`
            (one per draw); None (the default) for none.
        max_rows (int): the most rows shown; None shows all. Default 32.

    Returns:
        The table as text.
    """
    gpu = gpu or {}
    n = len(prims)
    shown = n if max_rows is None else min(n, max_rows)
    header = ["prim", "draw", "inst", "VTX", "IDX"]
    if prims.adjacency_vtx is not None:
        header.append("adjacent VTX")
    header += list(gpu)
    within = prims.within_instance()  # the GPU side's list is per instance
    rows = []
    for p in range(shown):
        d = int(prims.draw[p])
        row = [str(p), str(d), str(int(prims.instance[p])),
               " ".join(map(str, prims.vtx[p].tolist())), " ".join(map(str, prims.idx[p].tolist()))]
        if prims.adjacency_vtx is not None:
            row.append(" ".join(map(str, prims.adjacency_vtx[p].tolist())))
        for lists in gpu.values():
            g = lists[d].idx if d < len(lists) else None
            if g is None:
                row.append("-")
            elif within[p] >= g.shape[0]:
                row.append("(none)")
            else:
                corners = g[within[p]]
                row.append("same" if np.array_equal(corners, prims.idx[p])
                           else "!= " + " ".join(map(str, corners.tolist())))
        rows.append(row)
    text = render_table(header, rows, right={0, 1, 2})
    if shown < n:
        text += f"\n... {n - shown} more primitives (use --rows to show more)"
    for label, lists in gpu.items():
        for g in lists:
            text += "\n" + g.describe(label, prims, within)
    return text

