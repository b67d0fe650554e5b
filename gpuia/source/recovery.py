"""What the compiler did not keep of a C/C++ file that does not compile, found from the file's
tokens: an initializer it dropped (with the element and field its first error is in), a D3D
array in code it dropped, and the field of an element an error is in."""

from __future__ import annotations

import re

from .kinds import kind_of
from .model import STRUCTS, SourceArray, SourceError
from .tree import Unresolved

__all__ = ["initializer_follows", "dropped_initializer", "dropped_arrays", "locate", "field_at",
           "field_text", "declared_after"]

_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")


def initializer_follows(parsed, c) -> bool:
    """Whether the source gives a declaration an initializer the compiler did not keep.

    Arguments:
        parsed (gpuia.source.clang_parse.Parsed): the translation unit.
        c: the declaration's cursor (one without an initializer).

    Returns:
        True when ``=`` or ``{`` follows it.
    """
    if not parsed.has_errors():
        return False  # only an error makes the compiler drop an initializer
    tokens = parsed.tokens()
    at = parsed.token_index(c.extent.end.offset)
    return at < len(tokens) and tokens[at].spelling in ("=", "{")


def dropped_initializer(parsed, c, kind) -> Unresolved:
    """The error of an array whose initializer does not compile: the first compiler error in
    it, with the element and field it is in when the braces say so.

    Arguments:
        parsed (gpuia.source.clang_parse.Parsed): the translation unit.
        c: the array's declaration cursor.
        kind (gpuia.source.model.StructKind): its struct.

    Returns:
        The :class:`Unresolved` to raise.
    """
    tokens = parsed.tokens()
    start = parsed.token_index(c.extent.end.offset)
    depth, end = 0, len(tokens)
    for i in range(start, len(tokens)):
        s = tokens[i].spelling
        depth += s in ("(", "{", "[")
        depth -= s in (")", "}", "]")
        if depth == 0 and s in ("}", ";", ","):
            end = i
            break
    span = tokens[start:end + 1]
    # An initializer cut off by the end of the file has its error at the end.
    last = span[-1].offset + 1 if end < len(tokens) else len(parsed.data) + 1
    errors = parsed.errors_between(span[0].offset, last)
    if not errors:
        before = parsed.errors_before(span[0].offset)
        reason = f": the nearest compiler error before it is {before[-1][0]}" if before \
            else ""
        return Unresolved(c, f"the compiler did not keep its initializer{reason}")
    diag, at = errors[0]
    located = locate(span, at, kind)
    if located is None:
        return Unresolved((diag.line, diag.column),
                           f"its initializer does not compile: {diag}")
    element, fname, token = located
    field = f"{fname}: " if fname else ""
    return Unresolved((token.line, token.column),
                       f"element {element}: {field}does not compile: {diag}")


def locate(span, at: int, kind):
    """Where a byte offset is in an array initializer, counted from its braces and commas.

    Arguments:
        span (list[gpuia.source.clang_parse.Token]): the initializer's tokens.
        at: the byte offset.
        kind (gpuia.source.model.StructKind): the array's struct.

    Returns:
        (element index, field name or None, first token of the field or element), or None
        when a preprocessor directive inside makes the tokens differ from what the compiler
        read.
    """
    if any(t.spelling == "#" for t in span):
        return None
    opening = next((i for i, t in enumerate(span) if t.spelling == "{"), None)
    if opening is None:
        return None
    element, first = _item_at(span, opening, at)
    if first is None:
        return None
    fname, token = field_at(span[first:_item_last(span, first) + 1], at, kind)
    return element, fname, token or span[first]


_OPENERS = ("{", "(", "[")
_CLOSERS = ("}", ")", "]")


def _item_at(span, opening: int, at: int, start_item=None) -> tuple[int, int | None]:
    """Walk the brace list opened at ``span[opening]`` up to byte offset ``at``: (the position
    of the item ``at`` is in, the index of that item's first token or None). Positions count
    the top-level commas; ``start_item(i, position)``, called at each item's first token,
    may return another position (a designator naming a field)."""
    depth, position, first = 0, 0, None
    for i in range(opening, len(span)):
        t = span[i]
        if t.offset > at:
            break
        s = t.spelling
        if depth == 1 and first is None and s not in (",", *_CLOSERS):
            first = i
            if start_item is not None:
                position = start_item(i, position)
        if s in _OPENERS:
            depth += 1
        elif s in _CLOSERS:
            depth -= 1
        elif s == "," and depth == 1:
            position, first = position + 1, None
    return position, first


def _item_last(span, first: int) -> int:
    """The index of the last token of the item starting at ``span[first]``: before the comma
    or closing brace that ends it at its own level."""
    depth, last = 0, first
    for j in range(first, len(span)):
        s = span[j].spelling
        if depth == 0 and s in (",", "}"):
            break
        depth += s in _OPENERS
        depth -= s in _CLOSERS
        last = j
    return last


def dropped_arrays(parsed) -> list[SourceArray]:
    """D3D arrays in code the compiler did not keep (an error in an enclosing declaration),
    each as an unresolved array naming the nearest error before it.

    Arguments:
        parsed (gpuia.source.clang_parse.Parsed): the translation unit.

    Returns:
        The arrays, each with its ``error`` set (none when the file has no error).
    """
    out: list[SourceArray] = []
    if not parsed.has_errors():
        return out  # only an error makes the compiler drop code
    tokens = parsed.tokens()
    for i, t in enumerate(tokens):
        if t.spelling not in STRUCTS:
            continue
        cursor = parsed.cursor_at(t.offset)
        if kind_of(cursor).is_reference() or (kind_of(cursor).is_declaration()
                                          and cursor.spelling == t.spelling):
            continue
        name, at = declared_after(tokens, i)
        if name is None:
            continue
        kind = STRUCTS[t.spelling]
        arr = SourceArray(kind.kind, name, parsed.label, t.spelling, kind.profile,
                          at.line, at.column)
        before = parsed.errors_before(t.offset)
        reason = f": the nearest compiler error before it is {before[-1][0]}" if before \
            else ""
        arr.error = SourceError(f"{parsed.label}:{at.line}:{at.column}: array {name}",
                                f"the compiler did not keep this declaration (the code "
                                f"around it does not compile){reason}")
        out.append(arr)
    return out


def field_at(span, at: int, kind):
    """The field of one element a byte offset is in, from its commas and designators.

    Arguments:
        span (list[gpuia.source.clang_parse.Token]): the element's tokens, ``{`` to ``}``.
        at: the byte offset.
        kind (gpuia.source.model.StructKind): the struct.

    Returns:
        (field name, first token of the field), or (None, None) when the tokens are not a
        brace list or hold a preprocessor directive.
    """
    if not span or span[0].spelling != "{" or any(t.spelling == "#" for t in span):
        return None, None
    def designated(i: int, position: int) -> int:
        if span[i].spelling == "." and i + 2 < len(span) and span[i + 2].spelling == "=" and \
                span[i + 1].spelling in kind.fields:
            return kind.fields.index(span[i + 1].spelling)
        return position

    position, first = _item_at(span, 0, at, designated)
    if first is None or position >= len(kind.fields):
        return None, None
    return kind.fields[position], span[first]


def field_text(parsed, span, first) -> str:
    """The source text of one field, whitespace collapsed.

    Arguments:
        parsed (gpuia.source.clang_parse.Parsed): the translation unit.
        span (list[gpuia.source.clang_parse.Token]): the element's tokens.
        first (gpuia.source.clang_parse.Token): the field's first token.

    Returns:
        The text up to the comma or brace that ends the field.
    """
    last = span[_item_last(span, span.index(first))]
    raw = parsed.data[first.offset:last.offset + len(last.spelling.encode())]
    return " ".join(raw.decode("utf-8", "replace").split())


def declared_after(tokens, i: int):
    """The name an array or container declaration declares, from its tokens.

    Arguments:
        tokens (list[gpuia.source.clang_parse.Token]): the file's tokens.
        i: the index of the D3D struct's token.

    Returns:
        (the name, its token), or (None, None) when the tokens around it are not an array or
        container declaration.
    """
    j = i + 1
    container = i >= 1 and tokens[i - 1].spelling == "<"
    if container:
        depth = 1
        while j < len(tokens) and depth:
            depth += {"<": 1, ">": -1, ">>": -2}.get(tokens[j].spelling, 0)
            j += 1
    while j < len(tokens) and tokens[j].spelling in ("const", "constexpr", "volatile"):
        j += 1
    if j >= len(tokens) or not _IDENTIFIER.match(tokens[j].spelling):
        return None, None
    at, parts = tokens[j], [tokens[j].spelling]
    j += 1
    while j + 1 < len(tokens) and tokens[j].spelling == "::" and \
            _IDENTIFIER.match(tokens[j + 1].spelling):
        parts.append(tokens[j + 1].spelling)
        j += 2
    follow = tokens[j].spelling if j < len(tokens) else ""
    if (container and follow in ("=", "{", "(", ";")) or (not container and follow == "["):
        return "::".join(parts), at
    return None, None
