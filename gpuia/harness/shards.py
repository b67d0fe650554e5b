"""Shards: the K-th of N disjoint parts of a case list, or of a fuzz campaign's chunks
(docs/scale-out.md).

Guaranteed:

* A case's shard depends on the case alone, never on the other cases given or the machine:
  :func:`case_identity` is its file path as given, normalized and made relative to the working
  folder when it is inside it (so ``examples/cases/a.json``, ``./examples/cases/a.json`` and
  its absolute path in a checkout are one identity), and :func:`shard_number` a SHA-256 of that
  identity modulo N. So N jobs given the same case list run every case exactly once between
  them, and adding a case never moves another to a different shard.
* Fuzz chunk ``k`` belongs to shard ``k mod N + 1`` (:meth:`Shard.chunks`): N machines with one
  seed never draw the same chunk, and each chunk's cases depend on (seed, mode, k) alone, so a
  finding is reproduced from its seed and chunk on any machine.

Refused: a shard text that is not ``K/N`` with 1 <= K <= N (:func:`parse_shard`, ValueError
naming the text and the rule).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = ["Shard", "parse_shard", "case_identity", "shard_number", "select"]


@dataclass(frozen=True)
class Shard:
    """Part ``index`` (1-based, K) of ``count`` (N) parts."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, identity: str) -> bool:
        """Whether the case of this identity (:func:`case_identity`) is in this part."""
        return shard_number(identity, self.count) == self.index

    def chunks(self) -> Iterator[int]:
        """The fuzz chunk numbers of this part, in order: K-1, K-1+N, K-1+2N, ..."""
        k = self.index - 1
        while True:
            yield k
            k += self.count


def parse_shard(text: str) -> Shard:
    """``"K/N"`` as a :class:`Shard`; raises ValueError unless both are whole numbers with
    1 <= K <= N."""
    k_text, sep, n_text = text.partition("/")
    try:
        k, n = int(k_text), int(n_text)
    except ValueError:
        k, n = 0, 0
    if not sep or not 1 <= k <= n:
        raise ValueError(f"{text!r}: a shard is K/N with whole numbers 1 <= K <= N (such as "
                         f"2/4)")
    return Shard(k, n)


def case_identity(path: str) -> str:
    """The identity a case argument is sharded by: ``-`` for standard input, else the path
    normalized, with ``/`` separators, relative to the working folder when it lies inside it
    (absolute otherwise)."""
    if path == "-":
        return "-"
    norm = os.path.normpath(path)
    if os.path.isabs(norm):
        here = os.getcwd()
        try:
            if os.path.commonpath([here, norm]) == here:
                norm = os.path.relpath(norm, here)
        except ValueError:  # another drive (Windows)
            pass
    return norm.replace(os.sep, "/")


def shard_number(identity: str, count: int) -> int:
    """The shard (1..count) that holds ``identity``: SHA-256 of its UTF-8 bytes (a file
    name's undecodable bytes kept as they are) modulo ``count``, plus 1."""
    digest = hashlib.sha256(identity.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def select(paths: Sequence[str], shard: Shard | None) -> list[tuple[int, str]]:
    """``(position in paths, path)`` of every case argument ``shard`` holds, in the order
    given; every one for None."""
    return [(i, p) for i, p in enumerate(paths)
            if shard is None or shard.holds(case_identity(p))]
