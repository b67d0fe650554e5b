"""Components and tables as plain text: one 32-bit component, an array of them, a fixed-width
table. The comparison's table (:func:`gpuia.harness.compare.comparison_table`) and the reports
(:mod:`gpuia.harness.report`) all write with these, so a component reads the same in each; the
reports re-export them from :mod:`gpuia.harness.report.text`."""

from __future__ import annotations

import math
from collections.abc import Callable, Set
from typing import Any

import numpy as np

__all__ = ["format_value", "format_values", "render_table"]


def format_value(bits: int, shader_type: str) -> str:
    """One component for display: floats with 9 significant digits (enough to round-trip a
    float32), integers in decimal.

    Arguments:
        bits (int): the component's 32-bit pattern.
        shader_type (str): ``"float"``, ``"sint"`` or anything else for unsigned.

    Returns:
        The text (``nan`` for any NaN).
    """
    if shader_type == "float":
        v = float(np.uint32(bits).view(np.float32))
        if math.isnan(v):
            return "nan"
        return f"{v:.9g}"
    if shader_type == "sint":
        return str(int(np.uint32(bits).view(np.int32)))
    return str(int(bits))


def format_values(bits: np.ndarray, shader_type: str) -> list[Any] | str:
    """:func:`format_value` over an array of 32-bit patterns (nested lists of the same strings,
    in the array's shape), converting the array once instead of once per component.

    Arguments:
        bits (numpy.ndarray): the patterns, any shape.
        shader_type (str): ``"float"``, ``"sint"`` or anything else for unsigned.

    Returns:
        The texts as nested lists (a single string for a 0-d array).
    """
    b = np.asarray(bits, dtype=np.uint32)
    fmt: Callable[[Any], str]
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


def render_table(header: list[str], rows: list[list[str]], right: Set[int] = frozenset()) -> str:
    """A fixed-width table: a header line, a line of dashes, then the rows; columns two spaces
    apart, trailing spaces removed.

    Arguments:
        header (list): the column names.
        rows (list): the rows, each a list of strings as long as ``header``.
        right (set): the indices of right-aligned columns. Default none.

    Returns:
        The table as text.
    """
    widths = [max(len(header[c]), *(len(r[c]) for r in rows)) if rows else len(header[c])
              for c in range(len(header))]

    def line(cells):
        return "  ".join(cell.rjust(w) if c in right else cell.ljust(w)
                         # a row's cells past the header's are not shown
                         for c, (cell, w) in enumerate(zip(cells, widths, strict=False))
                         ).rstrip()

    out = [line(header), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)
