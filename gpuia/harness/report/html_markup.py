"""HTML markup for the ``gpuia check`` report: everything that is not already :class:`Html`
is escaped on the way in.

:func:`esc` escapes text (a lone surrogate, how Python holds an undecodable byte of a file
name, is written as its code), :func:`tag` and :func:`void` build elements, :func:`join` and
:func:`fill` put escaped parts together or into a :class:`string.Template`, :func:`table_of`
builds a plain table. Nothing here knows what a report shows.
"""

from __future__ import annotations

import html
import re
from string import Template


class Html(str):
    """Markup that is already escaped (built by :func:`tag` or a template)."""


_SURROGATE = re.compile("[\ud800-\udfff]")


def esc(value) -> Html:
    """``value`` as HTML text: escaped, unless it already is :class:`Html`. A lone surrogate
    (how Python holds an undecodable byte of a file name: 0xff is U+DCFF) is written as its
    code, ``\\udcff``, as gpuia's error lines write it, so the report is always UTF-8.

    Arguments:
        value: anything; it is made a string first.

    Returns:
        The :class:`Html` text.
    """
    if isinstance(value, Html):
        return value
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", str(value))
    return Html(html.escape(text, quote=True))


def _open(name: str, attrs: dict) -> str:
    parts = [name]
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        key = "class" if key == "class_" else key.replace("_", "-")
        parts.append(key if value is True else f'{key}="{esc(value)}"')
    return f"<{' '.join(parts)}>"


def tag(name: str, *children, **attrs) -> Html:
    """``<name attrs>children</name>``; children and attribute values are escaped. ``class_``
    is ``class``, other underscores become dashes (``data_table`` is ``data-table``); None and
    False attributes are left out, True ones written bare.

    Arguments:
        name (str): the element's name.
        *children: its content, in order (escaped unless :class:`Html`).
        **attrs: its attributes.

    Returns:
        The element as :class:`Html`.
    """
    return Html(_open(name, attrs) + "".join(esc(c) for c in children) + f"</{name}>")


def void(name: str, **attrs) -> Html:
    """An element without content or end tag (``input``, ``img``), attributes as :func:`tag`.

    Arguments:
        name (str): the element's name.
        **attrs: its attributes.

    Returns:
        The element as :class:`Html`.
    """
    return Html(_open(name, attrs))


def join(items) -> Html:
    """The items (escaped unless :class:`Html`) one after another."""
    return Html("".join(esc(i) for i in items))


def fill(template: Template, **values) -> Html:
    """``template`` with every value escaped (unless :class:`Html`)."""
    return Html(template.substitute({k: esc(v) for k, v in values.items()}))


def table_of(header, rows, cls=None, numeric=frozenset()) -> Html:
    """A table of a header row and ``rows`` (escaped); the columns numbered in ``numeric``
    are right-aligned (``num``), ``cls`` is the table's class."""
    head = tag("tr", *(tag("th", h) for h in header))
    body = [tag("tr", *(tag("td", c, class_="num" if i in numeric else None)
                        for i, c in enumerate(r))) for r in rows]
    return tag("table", tag("thead", head), tag("tbody", *body), class_=cls)


def verdict_class(status: str) -> str:
    """The CSS class of a verdict: ``OK``, ``DIFFERENT``, else ``na``."""
    return status if status in ("OK", "DIFFERENT") else "na"
