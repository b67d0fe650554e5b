"""Minimizing a fuzz finding: replay its chunk and let hypothesis shrink it.

:func:`shrink` draws the finding's chunk again (the same values: :func:`.generation.chunk_seed`)
without running them until it reaches the finding's case, then runs each smaller candidate
hypothesis tries and keeps those that show a finding of the same kind. Outcomes are memoised by
the case's digest, so hypothesis's final replay of the minimal case always agrees; past the
shrink time the smallest case so far is kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .generation import StopDrawing, case_digest, chunk_seed, chunk_size, drive, strategy
from .pool import Outcome
from .report import FuzzConfig


def shrink(config: FuzzConfig, k: int, target_value, kind: str, original: Outcome,
           run_one: Callable[[Any], Outcome], judge: Callable[[Any, Outcome], str | None]):
    """Replay chunk ``k`` to ``target_value`` and let hypothesis shrink it, running candidates
    with ``run_one`` and judging them with ``judge``. Returns (minimal value, its outcome,
    runs, shrunk?)."""
    c = config
    target = case_digest(target_value)
    deadline = time.monotonic() + c.shrink_seconds
    memo: dict[str, tuple[bool, Outcome]] = {}
    state: dict[str, Any] = {"reached": False, "best": (target_value, original), "runs": 0}

    def on_value(v):
        d = case_digest(v)
        if not state["reached"]:
            if d != target:
                return False
            state["reached"] = True
            memo[d] = (True, original)
            return True
        if d not in memo:
            if time.monotonic() > deadline:
                raise StopDrawing  # out of shrink time: keep the smallest case so far
            o = run_one(v)
            state["runs"] += 1
            memo[d] = (judge(v, o) == kind, o)
        hit, o = memo[d]
        if hit:
            state["best"] = (v, o)
        return hit

    drive(strategy(c.mode, c.so, c.gs), chunk_seed(c.seed, c.mode, k), chunk_size(k), on_value)
    value, outcome = state["best"]
    return value, outcome, state["runs"], state["reached"]
