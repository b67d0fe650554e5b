"""The options that spread a command over CI jobs (docs/scale-out.md): ``--shard K/N``
(``run``, ``validate``, ``fuzz``).

Nothing here imports wgpu.
"""

from __future__ import annotations

import argparse

from ..harness.shards import Shard, parse_shard, select

__all__ = ["shard_option", "shard_cases"]


def _shard(text: str) -> Shard:
    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def shard_option(p, text: str | None = None) -> None:
    """``--shard K/N``: run only the K-th of N disjoint parts (of the case arguments, unless
    ``text`` says what else)."""
    p.add_argument("--shard", type=_shard, default=None, metavar="K/N",
                   help=(text or "run only part K of N disjoint parts of the case arguments, "
                                 "split by each one's path, so that N jobs given the same "
                                 "list run each case once") + ")")


def shard_cases(args) -> list[tuple[int, str]]:
    """``(position among all the case arguments, path)`` of the cases of ``args.shard``'s
    part (every case without one), and ``args.cases`` narrowed to them."""
    selection = select(args.cases, args.shard)
    args.cases = [p for _, p in selection]
    return selection
