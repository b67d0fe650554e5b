"""A vertex shader's outputs, CPU reference against GPU: per invocation, per output, per component.

A real shader's float outputs are computed: a GPU may contract ``a * b + c`` into one fused
multiply-add, reassociate or use its own division and transcendentals, so each float component
may lie within the stated :class:`~gpuia.harness.compare.ShaderTolerance` of the reference's
(the tolerance Stream Output's comparison gives the same components); the components within it
that differ in their bits are counted, never hidden. Integer outputs (``uint``, ``sint``) are
compared bit for bit, and so is every output of a comparison made ``exact`` (the pass-through
shader's, which only copies). NaN matches NaN whatever the payload (rules 2.5). An invocation the
GPU wrote no record of is a difference.

:func:`outputs_table` prints the rows as :func:`gpuia.harness.compare.comparison_table` prints
the inputs: the CPU's components and, where one differs, ``!=`` and the GPU's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .compare import SHADER_TOLERANCE, ShaderTolerance, component_errors
from .table import format_value, render_table

if TYPE_CHECKING:
    from ..d3d.signature import Member
    from ..reference.ia import IAResult

__all__ = ["OutputComparison", "compare_outputs", "outputs_table"]


@dataclass
class OutputComparison:
    """The outcome of comparing a vertex shader's outputs on both sides: :func:`compare_outputs`
    makes it.

    Arguments:
        invocations (int): the invocations compared.
        types (dict): output key -> ``"float"``, ``"uint"`` or ``"sint"``, in signature order.
        mismatches (dict): output key -> bool ``(n, components)``: the components that differ
            beyond what is allowed.
        tolerated (dict): output key -> bool ``(n, components)``: the components whose bits
            differ within the tolerance.
        missing (numpy.ndarray): bool per invocation: the GPU wrote no record of it.
        tolerance (ShaderTolerance): the tolerance float components were judged with, or None
            for an exact comparison.
        largest_ulp (int): the largest ULP distance among the tolerated components (0 when
            none is).
    """

    invocations: int
    types: dict[str, str]
    mismatches: dict[str, np.ndarray]
    tolerated: dict[str, np.ndarray]
    missing: np.ndarray
    tolerance: ShaderTolerance | None = None
    largest_ulp: int = 0
    bad_rows: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        bad = self.missing.copy()
        for m in self.mismatches.values():
            bad |= m.any(axis=1)
        self.bad_rows = bad

    @property
    def ok(self) -> bool:
        """Whether the outputs agree: no component beyond the allowances and no missing
        record."""
        return not self.bad_rows.any()

    @property
    def tolerated_count(self) -> int:
        """Components whose bits differ within the tolerance."""
        return sum(int(np.count_nonzero(m)) for m in self.tolerated.values())

    def summary(self) -> str:
        """One line: ``M/N invocations' outputs match``, per differing output how many
        invocations differ, invocations without a GPU record, and the components accepted by
        the tolerance (with the largest ULP distance), each only when there are some."""
        bad = int(self.bad_rows.sum())
        parts = [f"{self.invocations - bad}/{self.invocations} invocations' outputs match"]
        for key, m in self.mismatches.items():
            if m.any():
                parts.append(f"{key}: {int(m.any(axis=1).sum())} differ")
        if self.missing.any():
            parts.append(f"{int(self.missing.sum())} not written by the GPU")
        if self.tolerated_count:
            assert self.tolerance is not None  # an exact comparison tolerates nothing
            parts.append(f"{self.tolerated_count} float components within the shader tolerance "
                         f"({self.tolerance.text()}; largest {self.largest_ulp} ULP)")
        return ", ".join(parts)


def compare_outputs(cpu: dict[str, np.ndarray], gpu: dict[str, np.ndarray],
                    missing: np.ndarray, members: tuple[Member, ...], *,
                    tolerance: ShaderTolerance | None = SHADER_TOLERANCE) -> OutputComparison:
    """Compare two sides' vertex shader outputs by the module docstring's rules.

    Arguments:
        cpu (dict): output key -> uint32 ``(n, components)``: the reference's.
        gpu (dict): the same for the GPU, every key of ``members``.
        missing (numpy.ndarray): bool per invocation: the GPU wrote no record of it.
        members (tuple): the shader's output signature members (their keys, types and
            component counts); an output ``cpu`` lacks compares against zeros.
        tolerance (ShaderTolerance): the tolerance of float components; None compares every
            component bit for bit (NaN by class). Default
            :data:`~gpuia.harness.compare.SHADER_TOLERANCE`.

    Returns:
        The :class:`OutputComparison`.
    """
    missing = np.asarray(missing, bool)
    n = missing.shape[0]
    mism, tol, types, largest = {}, {}, {}, 0
    for m in members:
        types[m.key] = m.type
        a = cpu.get(m.key)
        a = (np.zeros((n, m.components), np.uint32) if a is None
             else np.asarray(a, np.uint32)[:, :m.components])
        b = np.asarray(gpu[m.key], np.uint32)[:, :m.components]
        differs = (a != b) & ~missing[:, None]
        accepted = np.zeros_like(differs)
        if differs.any() and m.type == "float":
            # NaN against NaN matches whatever the payloads (rules 2.5).
            nan_pair = np.isnan(a[differs].view(np.float32)) & np.isnan(
                b[differs].view(np.float32))
            differs[differs] = ~nan_pair
        if differs.any() and m.type == "float" and tolerance is not None:
            ulp, absolute = component_errors(a[differs], b[differs], "float")
            with np.errstate(invalid="ignore"):
                ok = (ulp <= tolerance.ulps) | (absolute <= tolerance.absolute)
            if ok.any():
                largest = max(largest, int(ulp[ok].max()))
            accepted[differs] = ok
        mism[m.key] = differs & ~accepted
        tol[m.key] = accepted
    return OutputComparison(n, types, mism, tol, missing, tolerance, largest)


def outputs_table(ref: IAResult, cpu: dict[str, np.ndarray], gpu: dict[str, np.ndarray],
                  cmp: OutputComparison, max_rows: int | None = 32,
                  only_differences: bool = False) -> str:
    """The outputs of a comparison as a table: one row per invocation (draw, instance, vertex,
    SV_VertexID), one column per output with the CPU's components, ``!= GPU components``
    where a component differs beyond the allowances, ``~ GPU components`` where it differs
    within the tolerance only, ``!= (not written)`` for a missing record; rows flagged ``!``
    or ``~``.

    Arguments:
        ref (IAResult): the reference result (the rows' IDs).
        cpu (dict): the reference's outputs; gpu (dict): the GPU's (as compared).
        cmp (OutputComparison): their comparison.
        max_rows (int): the most rows shown, then a ``... N more`` line; None shows all.
            Default 32.
        only_differences (bool): only the rows that differ. Default False.

    Returns:
        The table as text.
    """
    n = cmp.invocations
    rows_idx = np.flatnonzero(cmp.bad_rows) if only_differences else np.arange(n)
    shown = rows_idx if max_rows is None else rows_idx[:max_rows]
    header = ["", "draw", "inst", "vtx", "SV_VertexID"] + list(cmp.types)
    rows = []
    for r in shown:
        flag, cells = "!" if cmp.bad_rows[r] else "", []
        for key, kind in cmp.types.items():
            width = cmp.mismatches[key].shape[1]
            a = cpu.get(key)
            text = " ".join(format_value(int(b), kind) for b in (
                a[r, :width] if a is not None else np.zeros(width, np.uint32)))
            if cmp.missing[r]:
                text += " != (not written)"
            elif cmp.mismatches[key][r].any() or cmp.tolerated[key][r].any():
                mark = "!=" if cmp.mismatches[key][r].any() else "~"
                flag = flag or "~"
                text += f" {mark} " + " ".join(format_value(int(b), kind)
                                              for b in gpu[key][r, :width])
            cells.append(text)
        rows.append([flag, str(int(ref.draw[r])), str(int(ref.instance[r])),
                     str(int(ref.vertex[r])), str(int(ref.vertex_id[r]))] + cells)
    text = render_table(header, rows, right={1, 2, 3})
    if len(shown) < len(rows_idx):
        what = "differing " if only_differences else ""
        text += f"\n... {len(rows_idx) - len(shown)} more {what}invocations"
    return text
