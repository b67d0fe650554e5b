"""The compiler's syntax tree of one C/C++ file as gpuia's D3D readers walk it: the main file's
cursors in preorder with their parents (:class:`Tree`), the exception an array that cannot be
read raises while it is read (:class:`Unresolved`), and small cursor helpers."""

from __future__ import annotations

from .kinds import kind_of
from .model import STRUCTS

__all__ = ["Tree", "Unresolved", "WRAPPERS", "position", "children", "expressions", "same",
           "designator", "struct_name"]

WRAPPERS = {"UNEXPOSED_EXPR", "PAREN_EXPR", "CXX_FUNCTIONAL_CAST_EXPR", "COMPOUND_LITERAL_EXPR",
            "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_CONST_CAST_EXPR"}
"""Expression kinds that only wrap the one expression inside them (implicit conversions,
parentheses, casts, temporaries)."""


class Unresolved(Exception):
    """Raised while reading an array; the reader turns it into the array's SourceError with the
    full location.

    Arguments:
        where: a cursor, or ``(line, column)``.
        rule (str): why the array cannot be read.
    """

    def __init__(self, where, rule: str):
        super().__init__(rule)
        self.where = where
        self.rule = rule


def position(where) -> tuple[int, int]:
    """Where an :class:`Unresolved` points.

    Arguments:
        where: a cursor, or ``(line, column)``.

    Returns:
        The 1-based ``(line, column)``: a cursor's start.
    """
    if isinstance(where, tuple):
        return where
    return where.extent.start.line, where.extent.start.column


class Tree:
    """The main file's cursors in preorder, with parent links and subtree ends.

    Arguments:
        parsed (gpuia.source.clang_parse.Parsed): the translation unit.
    """

    def __init__(self, parsed):
        self.nodes: list = []
        self.parent: list[int] = []
        self.end: list[int] = []
        top = [c for c in parsed.tu.cursor.get_children() if parsed.in_main_file(c)]
        stack: list = [(c, -1) for c in reversed(top)]
        while stack:
            item, parent = stack.pop()
            if item is None:  # the end marker of node ``parent``
                self.end[parent] = len(self.nodes)
                continue
            index = len(self.nodes)
            self.nodes.append(item)
            self.parent.append(parent)
            self.end.append(index + 1)
            stack.append((None, index))
            stack.extend((c, index) for c in reversed(list(item.get_children())))

    def ancestors(self, index: int):
        """The ancestors of a node.

        Arguments:
            index: the node's index.

        Returns:
            An iterator of indices, from its parent up to the top.
        """
        index = self.parent[index]
        while index >= 0:
            yield index
            index = self.parent[index]

    def index_of(self, cursor) -> int:
        """Where a cursor is among the nodes.

        Arguments:
            cursor: a cursor of the main file.

        Returns:
            Its index.
        """
        return next(i for i, n in enumerate(self.nodes) if n == cursor)


def children(cursor) -> list:
    """A cursor's children.

    Arguments:
        cursor: the cursor.

    Returns:
        Its children, as a list.
    """
    return list(cursor.get_children())


def expressions(cursor) -> list:
    """A cursor's children that are expressions (type and member references left out).

    Arguments:
        cursor: the cursor.

    Returns:
        Those children, as a list.
    """
    return [c for c in cursor.get_children() if kind_of(c).is_expression()]


def same(a, b) -> bool:
    """Whether two declarations are of the same entity.

    Arguments:
        a, b: declaration cursors, or None.

    Returns:
        True when both are given and their canonical declarations are one.
    """
    return a is not None and b is not None and a.canonical == b.canonical


def designator(kinds, cursor):
    """The parts of a designated initializer.

    Arguments:
        kinds: ``clang.cindex.CursorKind``.
        cursor: one initializer of a brace list.

    Returns:
        Its children (``.Field = value``: the member reference, then the value; also
        ``[i] = value``), or None for a positional initializer.
    """
    kids = children(cursor)
    unexposed = kind_of(cursor) == kinds.UNEXPOSED_EXPR
    if unexposed and len(kids) >= 2 and kind_of(kids[0]) == kinds.MEMBER_REF:
        return kids
    if unexposed and cursor.type.spelling == "void" and len(kids) >= 2:
        return kids  # [i] = ...
    return None


def struct_name(element) -> str | None:
    """The D3D struct a type is, through typedefs.

    Arguments:
        element: a ``clang.cindex.Type``.

    Returns:
        Its name in :data:`gpuia.source.model.STRUCTS`, or None.
    """
    decl = element.get_canonical().get_declaration()
    for name in (decl.spelling, element.spelling.replace("const ", "").strip()):
        if name in STRUCTS:
            return name
    return None
