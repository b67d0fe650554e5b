"""CPU reference against GPU: per invocation, per element, per component.

The comparison is bit-exact: every component's 32-bit pattern must be equal, with one allowance
taken from the rulebook (2.5): a float component that is NaN on both sides matches whatever its
payload, since D3D only requires NaN to stay NaN. SV_VertexID and SV_InstanceID must be equal,
and every invocation the reference delivers must have been captured on the GPU.

:func:`comparison_table` prints the view RenderDoc's mesh viewer gives (one row per invocation,
one column per element), with the CPU value and, where they differ, the GPU value beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .report import _render, format_value

__all__ = ["Comparison", "compare", "comparison_table"]


@dataclass
class Comparison:
    """The outcome of comparing a reference result with a GPU result of the same case."""

    invocations: int
    bad_rows: np.ndarray  # bool per invocation
    element_mismatches: dict[str, np.ndarray] = field(default_factory=dict)  # key -> bool (n, 4)
    id_mismatch: np.ndarray | None = None
    missing: np.ndarray | None = None
    unexpected: int = 0

    @property
    def ok(self) -> bool:
        return not self.bad_rows.any() and self.unexpected == 0

    def summary(self) -> str:
        bad = int(self.bad_rows.sum())
        parts = [f"{self.invocations - bad}/{self.invocations} invocations match"]
        for key, m in self.element_mismatches.items():
            if m.any():
                parts.append(f"{key}: {int(m.any(axis=1).sum())} differ")
        if self.id_mismatch is not None and self.id_mismatch.any():
            parts.append(f"system values: {int(self.id_mismatch.sum())} differ")
        if self.missing is not None and self.missing.any():
            parts.append(f"{int(self.missing.sum())} not delivered by the GPU")
        if self.unexpected:
            parts.append(f"{self.unexpected} GPU invocations at vertex indices D3D does not fetch")
        return ", ".join(parts)


def _component_mismatch(a: np.ndarray, b: np.ndarray, shader_type: str) -> np.ndarray:
    diff = a != b
    if shader_type == "float":
        both_nan = np.isnan(a.view(np.float32)) & np.isnan(b.view(np.float32))
        diff &= ~both_nan
    return diff


def compare(ref, gpu) -> Comparison:
    """Compare an :class:`~gpuia.reference.IAResult` with a
    :class:`~gpuia.gpu.capture.GPUResult` of the same case."""
    g = gpu.ia
    n = len(ref)
    bad = np.zeros(n, dtype=bool)
    mism = {}
    for key, data in ref.inputs.items():
        m = _component_mismatch(data.bits, g.inputs[key].bits, data.type)
        mism[key] = m
        bad |= m.any(axis=1)
    ids = (ref.vertex_id != g.vertex_id) | (ref.instance != g.instance)
    bad |= ids
    missing = np.asarray(gpu.missing, dtype=bool)
    bad |= missing
    return Comparison(n, bad, mism, ids, missing, int(gpu.unexpected))


def comparison_table(ref, gpu, cmp: Comparison, max_rows: int | None = 32,
                     only_differences: bool = False) -> str:
    """Per-invocation table: CPU values, and ``!= GPU values`` where a component differs."""
    g = gpu.ia
    rows_idx = np.flatnonzero(cmp.bad_rows) if only_differences else np.arange(cmp.invocations)
    shown = rows_idx if max_rows is None else rows_idx[:max_rows]
    header = ["", "draw", "inst", "vtx", "SV_VertexID"] + list(ref.inputs)
    rows = []
    for r in shown:
        flag = "!" if cmp.bad_rows[r] else ""
        vid = str(int(ref.vertex_id[r]))
        if cmp.id_mismatch[r]:
            vid += f" != {int(g.vertex_id[r])} (inst {int(g.instance[r])})"
        row = [flag, str(int(ref.draw[r])), str(int(ref.instance[r])), str(int(ref.vertex[r])), vid]
        for key, data in ref.inputs.items():
            cpu = " ".join(format_value(int(b), data.type) for b in data.bits[r])
            if cmp.missing[r]:
                cpu += " != (not delivered)"
            elif cmp.element_mismatches[key][r].any():
                gpu_vals = " ".join(format_value(int(b), data.type) for b in g.inputs[key].bits[r])
                cpu += f" != {gpu_vals}"
            row.append(cpu)
        rows.append(row)
    text = _render(header, rows, right={1, 2, 3})
    if len(shown) < len(rows_idx):
        what = "differing " if only_differences else ""
        text += f"\n... {len(rows_idx) - len(shown)} more {what}invocations"
    return text
