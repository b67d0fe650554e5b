"""Adapter quirks: native vertex fetch that measurably differs from Direct3D on an adapter.

Each row names the adapters it applies to (a substring of the adapter summary), which input
elements it affects, and why, with the measurement in ``docs/known-adapter-issues.md``. The
planner sends the affected draws to the vertex-pulling path (exact everywhere); ``gpuia check``
can still force the native path to show the difference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["Quirk", "QUIRKS", "quirks_for"]


@dataclass(frozen=True)
class Quirk:
    adapter: str  # case-insensitive substring of the adapter summary
    affects: Callable  # ResolvedElement -> bool
    reason: str


def _per_instance_snorm(e) -> bool:
    return e.per_instance and e.format.components[0].kind == "sn"


QUIRKS: tuple[Quirk, ...] = (
    Quirk("llvmpipe", _per_instance_snorm,
          "llvmpipe's per-instance fetch does not clamp the most negative SNORM code to -1.0 "
          "(rulebook 2.3)"),
)


def quirks_for(summary: str) -> tuple[Quirk, ...]:
    """The quirks of the adapter with this summary."""
    s = summary.lower()
    return tuple(q for q in QUIRKS if q.adapter in s)
