"""User text inside generated WGSL.

gpuia's generated programs name user data in comments (an element's semantic name, an HLSL file
name). A WGSL line comment ends at any line break (U+000A..U+000D, U+0085, U+2028, U+2029), and
wgpu hands the program to naga as a C string, so a NUL ends the whole program there: pasted as
is, such a character would turn the rest of a comment into code, or cut the program short.
:func:`wgsl_comment_text` is the one way generated WGSL embeds user text.
"""

from __future__ import annotations

__all__ = ["wgsl_comment_text"]


def _escape(ch: str) -> str:
    """``ch`` as a Python-style escape: ``\\n``, ``\\r``, ``\\t``, ``\\x00``, ``\\u2028``."""
    if "\ud800" <= ch <= "\udfff":  # a lone surrogate cannot be encoded (as UTF-8) at all
        return f"\\u{ord(ch):04x}"
    return ch.encode("unicode_escape").decode("ascii")


def wgsl_comment_text(value: object) -> str:
    """``str(value)`` made safe for a WGSL ``//`` comment.

    Guaranteed: the result is one line of printable characters (``str.isprintable``, plus the
    space), with no NUL, no line or paragraph separator, no other control or format character
    and no lone surrogate; each such character is written as its Python escape (``\\n``,
    ``\\x00``, ``\\u2028``), and a backslash as ``\\\\``, so the original text can be read back
    unambiguously. Printable text, non-ASCII letters included, is kept as it is.
    """
    text = str(value)
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == " " or ch.isprintable():
            out.append(ch)
        else:
            out.append(_escape(ch))
    return "".join(out)
