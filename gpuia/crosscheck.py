"""Cross-check one case: the CPU reference against every applicable GPU path and adapter.

This is what ``gpuia check`` prints and what the pytest plugin's ``gpuia_check`` fixture fails
with. Each GPU run is one :class:`CheckLine`: ``OK``, ``DIFFERENT`` (with a RenderDoc-style
table of the differing invocations, or SO problems), ``not applicable`` (the path cannot do this
draw on this adapter, with the reason) or ``not compared`` (a Stream Output case whose vertex
shader the CPU reference does not run). Comparison rules are those of :mod:`gpuia.compare`:
bit-exact, except the documented 1-ULP tolerance on normalized components of the native path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .case import Case, encode_data, load_case
from .errors import UnsupportedError
from .runner import DEFAULT_MAX_INVOCATIONS

__all__ = ["CheckLine", "CheckResult", "cross_check", "layout_case"]


@dataclass
class CheckLine:
    """One GPU run of a case: ``label`` is ``case: adapter: path``."""

    label: str
    status: str  # OK, DIFFERENT, not applicable, not compared
    detail: str
    table: str = ""  # the comparison table (differences only, unless all rows were asked for)
    problems: list[str] = field(default_factory=list)  # Stream Output differences

    def text(self) -> str:
        lines = [f"{self.label}: {self.status}: {self.detail}"]
        lines += [f"  {p}" for p in self.problems]
        if self.table:
            lines += [self.table, ""]
        return "\n".join(lines)


@dataclass
class CheckResult:
    """Every GPU run of one case. ``ok``: nothing differed (runs that were not applicable or
    not compared do not count as differences; ``compared`` says how many runs were)."""

    case: str
    lines: list[CheckLine] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(line.status != "DIFFERENT" for line in self.lines)

    @property
    def compared(self) -> int:
        return sum(line.status in ("OK", "DIFFERENT") for line in self.lines)

    def text(self) -> str:
        return "\n".join(line.text() for line in self.lines)


def cross_check(case: Case, devices, paths=("native", "pulling"), *, capture_route: str = "auto",
                table: bool = False, rows: int | None = 32,
                max_invocations: int = DEFAULT_MAX_INVOCATIONS) -> CheckResult:
    """Run ``case`` on the CPU reference and on every device and path; compare.

    ``paths``: any of ``native``, ``pulling``, ``auto``. ``table``: include the full table for
    matching runs too (differing runs always carry theirs, up to ``rows`` rows). Invalid cases
    raise before anything runs (from the reference); nothing here aborts the process."""
    from .compare import compare, compare_so, comparison_table
    from .gpu import run_case_gpu
    from .gpu.capture import run_case_so_gpu
    from .runner import reference_ia, reference_so

    ref = reference_ia(case, max_invocations)
    ref_so = reference_so(case, ref) if case.so is not None and case.vertex_shader is None \
        else None
    result = CheckResult(case.name)
    for dev in devices:
        for p in paths:
            label = f"{case.name}: {dev.info['summary']}: {p}"
            try:
                res = run_case_gpu(case, dev, p, ref, capture_route=capture_route)
            except UnsupportedError as e:
                result.lines.append(CheckLine(label, "not applicable", str(e)))
                continue
            cmp = compare(ref, res, case.layout)
            text = ""
            if not cmp.ok or table:
                text = comparison_table(ref, res, cmp, max_rows=rows, only_differences=not table)
            result.lines.append(CheckLine(label, "OK" if cmp.ok else "DIFFERENT", cmp.summary(),
                                          text))
        if case.so_desc is not None:
            label = f"{case.name}: {dev.info['summary']}: stream output"
            got = run_case_so_gpu(case, dev)
            if ref_so is None:
                result.lines.append(CheckLine(
                    label, "not compared", "the CPU reference runs only the pass-through shader"))
                continue
            problems = compare_so(ref_so, got)
            stats = ", ".join(f"{k} {v}" for k, v in got.statistics.items())
            result.lines.append(CheckLine(label, "DIFFERENT" if problems else "OK", stats,
                                          problems=problems))
    return result


def layout_case(layout, *, vertices: int = 64, instances: int = 3, seed: int = 0,
                name: str = "layout") -> Case:
    """A case that draws ``layout`` (an InputLayout or D3D12 element descriptions) as
    ``vertices`` points per instance, ``instances`` instances, every slot bound with the
    smallest stride its elements allow (their extent, rounded up to 4 bytes) and seeded random
    bytes (NaN and denormal codes included: the comparison classes NaNs as the rulebook says).
    Per-instance slots hold one row per instance, whatever their step rate. Invalid layouts
    raise as :class:`gpuia.layout.InputLayout` does."""
    from .layout import InputLayout

    if vertices < 1 or instances < 1:
        raise ValueError(f"vertices ({vertices}) and instances ({instances}) must be >= 1")
    layout = layout if isinstance(layout, InputLayout) else InputLayout(layout)
    rng = np.random.default_rng(seed)
    buffers = []
    for slot, info in sorted(layout.slots.items()):
        stride = (info.extent + 3) // 4 * 4
        rows = instances if info.per_instance else vertices
        data = rng.integers(0, 256, size=stride * rows, dtype=np.uint8).tobytes()
        buffers.append({"slot": slot, "stride": stride, "data": encode_data(data)})
    return load_case({
        "gpuia_case": 1, "name": name, "input_layout": layout.to_dicts(),
        "vertex_buffers": buffers, "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": vertices,
                                   "InstanceCount": instances, "StartVertexLocation": 0,
                                   "StartInstanceLocation": 0}}})
