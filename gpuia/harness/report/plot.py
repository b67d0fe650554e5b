"""Error histograms for ``gpuia check --plot``: how far GPU components are from the reference.

:func:`error_series` (numpy only) collects, per GPU run and input element, the per-component
error in ULP and in absolute value, for the elements where a tolerance applies (UNORM/SNORM
elements of draws on the native path, 1 ULP: :mod:`gpuia.harness.compare`) and for every element
that differs; and per ``vs outputs`` run and vertex shader output, the same for the float
outputs (the stated shader tolerance applies to them, :mod:`gpuia.harness.compare_outputs`) and
for every output that differs. :func:`plot_png` draws them with matplotlib, the optional
``plot`` extra, imported only when a plot is asked for (:func:`require_matplotlib` says clearly
when it is missing). When no component differs, the figure says so instead of drawing empty
axes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from ...errors import UnsupportedError
from ..compare import component_errors

__all__ = ["ErrorSeries", "error_series", "output_series", "plot_png", "require_matplotlib",
           "MAX_PANELS"]

MAX_PANELS = 12  # series drawn; the rest are named in the figure's footnote


@dataclass
class ErrorSeries:
    """The errors of one element in one GPU run.

    ``label``: ``case: adapter: path: ELEMENT`` (``path`` is ``vs outputs`` and ``ELEMENT`` an
    output key for a vertex shader output). ``rule``: ``1 ULP`` when the native-path tolerance
    applies to the element, the shader tolerance's text (``64 ULP or 1.52588e-05 absolute``)
    for a float output, else ``exact``. ``ulp``: per compared component (int64),
    see :func:`gpuia.harness.compare.component_errors`. ``absolute``: the finite absolute errors of
    the same components (NaN and infinities dropped). ``mismatches``: components the comparison
    refused."""

    label: str
    rule: str
    shader_type: str
    ulp: np.ndarray
    absolute: np.ndarray
    mismatches: int

    @property
    def compared(self) -> int:
        return int(self.ulp.shape[0])

    @property
    def exact(self) -> int:
        return int((self.ulp == 0).sum())

    @property
    def within_one(self) -> int:
        return int((self.ulp == 1).sum())

    @property
    def beyond_one(self) -> int:
        return int((self.ulp > 1).sum())

    @property
    def max_ulp(self) -> int:
        return int(self.ulp.max()) if self.ulp.size else 0

    @property
    def max_absolute(self) -> float:
        return float(self.absolute.max()) if self.absolute.size else 0.0

    @property
    def differs(self) -> bool:
        return bool(self.max_ulp)


def error_series(results) -> list[ErrorSeries]:
    """Every (GPU run, element) of the kept :class:`~gpuia.harness.crosscheck.CheckResult` s where a
    tolerance applies or a component differs. Components of invocations the GPU did not deliver
    are left out (they have no GPU value). Needs ``cross_check(keep=True)`` results; runs
    without a kept comparison contribute nothing."""
    out = []
    for result in results:
        ref = result.reference
        if ref is None:
            continue
        out += output_series(result)
        for line in result.lines:
            cmp, gpu = line.comparison, line.gpu
            if cmp is None or gpu is None:
                continue
            delivered = ~np.asarray(cmp.missing, dtype=bool)
            for key, data in ref.inputs.items():
                tol_rows = cmp.tolerance_rows.get(key)
                differing_rows = cmp.element_mismatches[key].any(axis=1)
                if tol_rows is None and not differing_rows.any():
                    continue
                rows = (tol_rows | differing_rows) if tol_rows is not None else \
                    np.ones_like(delivered)
                rows &= delivered
                ulp, absolute = component_errors(data.bits[rows], gpu.ia.inputs[key].bits[rows],
                                                 data.type)
                absolute = absolute.reshape(-1)
                out.append(ErrorSeries(f"{line.label}: {key}",
                                       "1 ULP" if tol_rows is not None else "exact", data.type,
                                       ulp.reshape(-1), absolute[np.isfinite(absolute)],
                                       int(cmp.element_mismatches[key][rows].sum())))
    return out


def output_series(result) -> list[ErrorSeries]:
    """The :class:`ErrorSeries` of a kept result's ``vs outputs`` runs: per run, one per float
    output (the shader tolerance applies) and one per other output that differs; invocations
    the GPU wrote no record of are left out."""
    cpu = result.vs_reference
    out: list[ErrorSeries] = []
    for line in result.lines:
        cmp, got = line.output_comparison, line.vs_outputs
        if cmp is None or got is None or cpu is None:
            continue
        written = ~cmp.missing
        for key, kind in cmp.types.items():
            tolerant = kind == "float" and cmp.tolerance is not None
            if not tolerant and not cmp.mismatches[key].any():
                continue
            width = cmp.mismatches[key].shape[1]
            ulp, absolute = component_errors(cpu[key][written, :width],
                                             got.bits[key][written, :width], kind)
            absolute = absolute.reshape(-1)
            out.append(ErrorSeries(f"{line.label}: {key}",
                                   cmp.tolerance.text() if tolerant and cmp.tolerance else
                                   "exact", kind, ulp.reshape(-1),
                                   absolute[np.isfinite(absolute)],
                                   int(cmp.mismatches[key][written].sum())))
    return out


def require_matplotlib():
    """matplotlib's Figure class; :class:`UnsupportedError` naming the ``plot`` extra when
    matplotlib is not installed."""
    try:
        from matplotlib.figure import Figure  # noqa: PLC0415 - optional extra
    except ImportError:
        raise UnsupportedError("--plot needs matplotlib, which is not installed: install "
                               "gpuia's plot extra (pip install 'gpuia[plot]')") from None
    return Figure


def _ulp_bins(ulp: np.ndarray):
    top = int(ulp.max())
    if top <= 64:
        return np.arange(top + 2) - 0.5, False
    return np.geomspace(0.5, top + 1, 50), True


def plot_png(series: list[ErrorSeries], title: str = "gpuia check: GPU - CPU error") -> bytes:
    """A PNG: per differing series (at most :data:`MAX_PANELS`), a histogram of its ULP errors
    and one of its non-zero absolute errors; series where every component is exact are counted
    in the title. Without any differing series the figure is one sentence saying so (and how
    many components were compared under which rule). Raises :class:`UnsupportedError` without
    matplotlib."""
    Figure = require_matplotlib()
    from matplotlib.ticker import MaxNLocator  # noqa: PLC0415 - optional extra, present now

    differing = [s for s in series if s.differs]
    exact = [s for s in series if not s.differs]
    if not differing:
        fig = Figure(figsize=(8, 2.5))
        if series:
            compared = sum(s.compared for s in series)
            text = (f"No component differs: {compared} components compared in {len(series)} "
                    f"element or output run(s) where a tolerance applies, all bit-equal.")
        else:
            text = ("No component differs, and no element run has a tolerance to plot "
                    "(no UNORM/SNORM element was drawn on the native path, no vertex shader "
                    "float output was compared).")
        fig.text(0.5, 0.5, text, ha="center", va="center", wrap=True, fontsize=11)
        fig.suptitle(title)
        return _png(fig)
    shown = differing[:MAX_PANELS]
    fig = Figure(figsize=(11, 2.8 * len(shown) + 0.8), layout="constrained")
    axes = fig.subplots(len(shown), 2, squeeze=False)
    for (ax_ulp, ax_abs), s in zip(axes, shown, strict=True):  # one row of axes per series
        bins, log = _ulp_bins(s.ulp)
        data = s.ulp[s.ulp > 0] if log else s.ulp
        ax_ulp.hist(data, bins=bins, color="#c0392b", edgecolor="black", linewidth=0.4, rwidth=0.8)
        if log:
            ax_ulp.set_xscale("log")
        else:
            ax_ulp.xaxis.set_major_locator(MaxNLocator(integer=True))
        # Log counts from below one: a bar of 1 stays visible and tall bars keep their ratio.
        ax_ulp.set_yscale("log")
        ax_ulp.set_ylim(bottom=0.5)
        ax_ulp.set_xlabel("error (ULP)" if s.shader_type == "float" else "error (integer units)")
        ax_ulp.set_ylabel("components")
        ax_ulp.set_title(f"{s.label}\n{s.compared} compared, {s.exact} exact, {s.within_one} at "
                         f"1, {s.beyond_one} beyond; tolerance: {s.rule}", fontsize=8)
        nonzero = s.absolute[s.absolute > 0]
        if nonzero.size:
            lo, hi = float(nonzero.min()), float(nonzero.max())
            edges = np.geomspace(lo, hi, 40) if hi > lo else np.array([lo / 2, lo * 2])
            ax_abs.hist(nonzero, bins=edges, color="#2e86c1", edgecolor="black", linewidth=0.4)
            ax_abs.set_xscale("log")
            ax_abs.set_yscale("log")
            ax_abs.set_ylim(bottom=0.5)
            ax_abs.set_title(f"absolute error of the {nonzero.size} non-zero components, "
                             f"max {hi:.3g}", fontsize=8)
        else:
            ax_abs.text(0.5, 0.5, "no finite non-zero absolute error\n(NaN/inf or -0 vs +0)",
                        ha="center", va="center", transform=ax_abs.transAxes)
            ax_abs.set_axis_off()
        ax_abs.set_xlabel("|GPU - CPU|")
    notes = []
    if exact:
        notes.append(f"{len(exact)} further element or output run(s) under a tolerance: "
                     f"every component bit-equal")
    if len(differing) > len(shown):
        notes.append(f"{len(differing) - len(shown)} more differing element run(s) not drawn")
    fig.suptitle(title + ("\n" + "; ".join(notes) if notes else ""), fontsize=10)
    return _png(fig)


def _png(fig) -> bytes:
    buf = io.BytesIO()
    # No timestamp or software version in the file: the same errors give the same bytes.
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    return buf.getvalue()
