"""Cursor kinds read so that a kind newer than the ``clang.cindex`` bindings never ends a read.

The ``libclang`` wheel's library can produce cursor kinds its Python bindings do not name: the
18.1 bindings lack ``CXXParenListInitExpr`` (155: C++20 parenthesized aggregate
initialization, ``Vertex v(1, 2)`` of a struct without constructors), ``PackIndexingExpr`` and
the newer OpenMP statements, and ``Cursor.kind`` raises ``ValueError`` for them. Every reader
in this package asks :func:`kind_of` instead.

Guaranteed: :func:`kind_of` never raises. A kind the bindings name is returned as the bindings'
``CursorKind``; any other is an :class:`OtherKind`, named ``"OTHER"``, equal to no named kind (so
every reader takes it as something it does not read), and classified by libclang itself
(``is_expression()``...), so that a walk looking for expressions still counts it and refuses
what it cannot read instead of overlooking it.
"""

from __future__ import annotations

__all__ = ["kind_of", "OtherKind"]


class OtherKind:
    """A cursor kind the bindings do not name.

    Arguments:
        lib: the loaded library (``clang.cindex.conf.lib``), which classifies the kind.
        value (int): libclang's ``CXCursorKind`` number.
    """

    name = "OTHER"

    def __init__(self, lib, value: int):
        self._lib = lib
        self.value = value  # what the bindings pass to libclang for a kind (from_param)

    def is_declaration(self) -> bool:
        return bool(self._lib.clang_isDeclaration(self))

    def is_reference(self) -> bool:
        return bool(self._lib.clang_isReference(self))

    def is_expression(self) -> bool:
        return bool(self._lib.clang_isExpression(self))

    def is_statement(self) -> bool:
        return bool(self._lib.clang_isStatement(self))

    def __repr__(self) -> str:
        return f"OtherKind({self.value})"


_OTHER: dict[int, OtherKind] = {}


def kind_of(cursor):
    """A cursor's kind.

    Arguments:
        cursor: a ``clang.cindex.Cursor``.

    Returns:
        Its ``clang.cindex.CursorKind``, or the :class:`OtherKind` of a kind the bindings do
        not name.
    """
    try:
        return cursor.kind
    except ValueError:  # CursorKind.from_id: a kind newer than the bindings
        value = cursor._kind_id  # the one field the bindings keep it in
        other = _OTHER.get(value)
        if other is None:
            from clang.cindex import conf

            other = _OTHER[value] = OtherKind(conf.lib, value)
        return other
