"""The top-level arguments of a call in shader source text, by bracket depth.

One scanner for the source rewrites that read a call's arguments: HLSL before Slang compiles it
(``Load`` offsets, Texture1DArray reads) and the WGSL Slang emits (texture reads). Guaranteed:
commas inside nested brackets of ``brackets`` do not split an argument; a string or comment
holding a bracket is not understood (the rewrites run on code where calls take expressions).
"""

from __future__ import annotations

__all__ = ["argument_spans"]


def argument_spans(code: str, start: int, brackets: str = "([{"
                   ) -> tuple[list[tuple[int, int]], int, bool]:
    """The ``(begin, end)`` spans of the top-level arguments of the bracket at ``start``.

    Arguments:
        code (str): the source text.
        start (int): the index of the call's opening bracket.
        brackets (str): the opening brackets that nest (their closers are the matching
            ``)]}``); HLSL's rewrites take all three, WGSL's ``(`` and ``[``.

    Returns:
        ``(spans, after, closed)``: each argument's span, the index after the closing bracket
        (``len(code)`` when none closes it), and whether one did (when not, the spans are the
        arguments up to the last comma).
    """
    closers = "".join({"(": ")", "[": "]", "{": "}"}[b] for b in brackets)
    depth, spans, at = 0, [], start + 1
    for k in range(start, len(code)):
        c = code[k]
        if c in brackets:
            depth += 1
        elif c in closers:
            depth -= 1
            if depth == 0:
                spans.append((at, k))
                return spans, k + 1, True
        elif c == "," and depth == 1:
            spans.append((at, k))
            at = k + 1
    return spans, len(code), False
