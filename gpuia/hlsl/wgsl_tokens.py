"""The tokens of a WGSL module, the first step of reading Slang's WGSL (``gpuia.hlsl.wgsl_types``).

Guaranteed: every character of the text is either a token or a gap (whitespace, a comment, a
``#line`` directive), and each token is placed at its characters, which the rewrites of
``gpuia.hlsl.wgsl_defined`` edit. Refused: a text with a character no WGSL token or gap holds
(:class:`~gpuia.hlsl.wgsl_types.Unreadable`, at that character), never skipped.
"""

from __future__ import annotations

import itertools
import re

from .wgsl_types import Unreadable

__all__ = ["Tokens", "tokenize"]

_GAP = r"\s*(?:(?://[^\n]*|/\*.*?\*/|#[^\n]*)\s*)*"  # whitespace, comments, #line directives
_TOKEN_RE = re.compile(
    rf"({_GAP})([A-Za-z_]\w*"
    r"|0[xX](?:[0-9a-fA-F]*\.[0-9a-fA-F]*|[0-9a-fA-F]+)(?:[pP][+-]?\d+[fh]?|[iu])?"
    r"|(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fh]?|\d+[eE][+-]?\d+[fh]?|\d+[fhiu]?"
    r"|>>=|<<=|&&|\|\||<<|>>|<=|>=|==|!=|\+=|-=|\*=|/=|%=|&=|\|=|\^=|\+\+|--|->"
    r"|[-+*/%&|^!~<>=()\[\]{}.,;:@])", re.S | re.A)
_TAIL_RE = re.compile(_GAP, re.S)
# Outside these characters the token pattern could step over one (findall skips what it does
# not match): such a text is checked character by character.
_FOREIGN_RE = re.compile(r"[^\w\s+\-*/%&|^!~<>=()\[\]{}.,;:@#]", re.A)
_KIND = {**dict.fromkeys("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", "id"),
         **dict.fromkeys("0123456789", "num")}


class Tokens:
    """A module's tokens: ``text[i]`` spelled at characters [start[i], end[i]); ``kind[i]`` is
    ``num``, ``id`` or ``op``. The list ends with an ``end`` token."""

    def __init__(self, code: str):
        self.code = code
        pairs = _TOKEN_RE.findall(code)
        self.text = [t for _, t in pairs]
        self.end = list(itertools.accumulate(len(g) + len(t) for g, t in pairs))
        self.start = [e - len(t) for e, t in zip(self.end, self.text, strict=True)]
        last = self.end[-1] if pairs else 0
        tail = _TAIL_RE.match(code, last)
        if tail is None or tail.end() != len(code) or (
                _FOREIGN_RE.search(code) and "".join(g + t for g, t in pairs) != code[:last]):
            pos = 0
            for g, t in pairs:
                if not code.startswith(g + t, pos):
                    break
                pos += len(g) + len(t)
            pos = _TAIL_RE.match(code, pos).end()  # type: ignore[union-attr]
            raise Unreadable(pos, f"an unexpected character {code[pos:pos + 1]!r}")
        self.kind = [_KIND.get(t[0]) or ("num" if len(t) > 1 and t[0] == "." else "op")
                     for t in self.text]  # .5 is a number
        self.text.append("")
        self.kind.append("end")
        self.start.append(len(code))
        self.end.append(len(code))
        self._closing: dict[int, int] | None = None

    def closing(self, i: int) -> int:
        """The index of the ``}`` that closes the ``{`` at ``i`` (-1: none)."""
        if self._closing is None:
            self._closing, stack = {}, []
            for k in [k for k, t in enumerate(self.text) if t == "{" or t == "}"]:
                if self.text[k] == "{":
                    stack.append(k)
                elif stack:
                    self._closing[stack.pop()] = k
        return self._closing.get(i, -1)


def tokenize(code: str) -> Tokens:
    """``code``'s tokens (comments, whitespace and ``#line`` directives left out)."""
    return Tokens(code)

