"""Field values of D3D elements as the compiler folds them, converted to the field's type as C
does, and the refusal of any value the compiler did not compile cleanly."""

from __future__ import annotations

from ..d3d.formats import DXGI_FORMAT_VALUES
from ..d3d.ia_desc import APPEND_ALIGNED_ELEMENT
from .kinds import kind_of
from .tree import WRAPPERS, Unresolved, expressions

__all__ = ["Values", "FIELD_KINDS", "U32"]

U32 = 0xFFFFFFFF
"""UINT's mask."""

FIELD_KINDS = {"SemanticName": "name", "Format": "format", "InputSlotClass": "classification",
               "AlignedByteOffset": "offset"}
"""How each struct field's value is read; every other field is an unsigned integer of the
header's field size (C converts the initializer to it, wrapping)."""

_FORMAT_NAMES = {value: name for name, value in DXGI_FORMAT_VALUES.items()}
_CLASS_NAMES = {0: "PER_VERTEX_DATA", 1: "PER_INSTANCE_DATA"}


def _literal(spelling: str) -> str:
    """A string literal's characters from libclang's spelling of it (quoted, escaped)."""
    body = spelling[spelling.index('"') + 1: spelling.rindex('"')]
    if "\\" not in body:
        return body
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape")


def _declared(decl) -> str:
    """A declaration as a message names it: ``struct Vertex (v.cpp:6:8)`` (its kind for a
    struct, class or union, and where it is declared)."""
    kind = {"STRUCT_DECL": "struct ", "CLASS_DECL": "class ", "UNION_DECL": "union "}.get(
        kind_of(decl).name, "")
    loc = decl.location
    where = f" ({loc.file.name}:{loc.line}:{loc.column})" if loc.file is not None else ""
    return f"{kind}{decl.spelling}{where}"


class Values:
    """Reads values from one translation unit.

    Arguments:
        parsed (gpuia.source.clang_parse.Parsed): the translation unit.
    """

    def __init__(self, parsed):
        self.p = parsed
        self.kinds = parsed.ci.CursorKind

    def trusted(self, value) -> None:
        """Refuse a value the compiler did not compile cleanly: one that depends on a
        placeholder, holds an error, or refers to a declaration with errors. (The compiler's
        recovery can still fold such a value, to a number the source does not mean.)

        Arguments:
            value: the expression cursor.

        Raises:
            Unresolved: the value is not trusted; the rule says why.
        """
        name = self.p.placeholder_in(value)
        if name is not None:
            raise Unresolved(value, self.undeclared(value, name))
        # A declaration with errors first: its error is the cause, and the value's own (C++'s
        # narrowing of an offsetof into a struct that does not compile) a knock-on one.
        k = self.kinds
        for _, ref in self.p.references(value):
            decl = ref.semantic_parent if kind_of(ref) == k.FIELD_DECL else ref
            if decl is not None and kind_of(decl).is_declaration() and self.p.invalid(decl):
                errors = self.p.errors_in(decl)
                reason = f": {errors[0]}" if errors else ""
                raise Unresolved(value, f"`{self.p.text(value)}` is not a constant: "
                                         f"{_declared(decl)} does not compile{reason}")
        errors = self.p.errors_in(value)
        if errors:
            raise Unresolved(value, f"`{self.p.text(value)}` does not compile: {errors[0]}")

    def field(self, fname: str, value, size: int):
        """One field's value in the case-file form.

        Arguments:
            fname: the D3D field name.
            value: the expression cursor of its initializer.
            size: the field's size in bytes, from the header.

        Returns:
            A str or None (SemanticName), a format name or int (Format), a classification
            name or int (InputSlotClass), ``"APPEND_ALIGNED_ELEMENT"`` or an int
            (AlignedByteOffset), else an int converted to the field's size.

        Raises:
            Unresolved: the value is not trusted or not a constant.
        """
        self.trusted(value)
        if FIELD_KINDS.get(fname) == "name":
            return self._semantic_name(value)
        v = self.p.evaluate(value)
        if not isinstance(v, int):
            raise Unresolved(value, self.why(value))
        return self.convert(fname, v, size)

    def undeclared(self, value, name: str) -> str:
        """The rule for a value that depends on ``name``, which nothing declares.

        Arguments:
            value: the expression cursor.
            name: the undeclared name.

        Returns:
            The text, with the compiler's diagnostic of the name's first use.
        """
        d = self.p.undeclared.get(name)
        said = f" ({d})" if d else ""
        text = self.p.text(value)
        if text == name:
            return f"`{name}` is not declared{said}"
        return f"`{text}` depends on `{name}`, which is not declared{said}"

    @staticmethod
    def convert(fname: str, value: int, size: int):
        """``value`` converted to the field's type as C does, in the case-file form.

        Arguments:
            fname: the D3D field name.
            value: the integer.
            size: the field's size in bytes.

        Returns:
            As :meth:`field`.
        """
        kind = FIELD_KINDS.get(fname, "uint")
        if kind == "name":
            return None  # a zero pointer
        value &= (1 << (8 * size)) - 1
        if kind == "format":
            return _FORMAT_NAMES.get(value, value)
        if kind == "classification":
            return _CLASS_NAMES.get(value, value)
        if kind == "offset" and value == APPEND_ALIGNED_ELEMENT:
            return "APPEND_ALIGNED_ELEMENT"
        return value

    def _semantic_name(self, value):
        """A string literal's characters, or None for a null pointer."""
        node = value
        for _ in range(32):
            folded = self.p.evaluate(node)
            if isinstance(folded, str):
                return folded
            if kind_of(node) == self.kinds.STRING_LITERAL:
                return _literal(node.spelling)
            if folded == 0 or kind_of(node) in (self.kinds.CXX_NULL_PTR_LITERAL_EXPR,
                                            self.kinds.GNU_NULL_EXPR):
                return None
            ref = node.referenced if kind_of(node) == self.kinds.DECL_REF_EXPR else None
            if ref is not None and kind_of(ref) == self.kinds.VAR_DECL and \
                    ref.type.is_const_qualified() and self.p.initializer(ref) is not None:
                node = self.p.initializer(ref)
                continue
            inner = expressions(node)
            if len(inner) == 1 and kind_of(node).name in WRAPPERS:
                node = inner[0]
                continue
            break
        raise Unresolved(value, f"a semantic name must be a string literal or NULL, not "
                                 f"`{self.p.text(value)}`")

    def why(self, value) -> str:
        """Why the compiler does not fold ``value`` to an integer, as precisely as it says.

        Arguments:
            value: the expression cursor.

        Returns:
            The rule's text.
        """
        text = self.p.text(value)
        k = self.kinds
        for node, ref in self.p.references(value):
            if kind_of(node) == k.DECL_REF_EXPR and kind_of(ref) in (k.VAR_DECL, k.PARM_DECL) and \
                    not ref.type.is_const_qualified():
                return (f"`{text}` is not a constant: `{ref.spelling}` is a variable whose "
                        f"value is known only when the code runs")
            if kind_of(node) == k.CALL_EXPR and kind_of(ref) in (k.FUNCTION_DECL, k.CXX_METHOD):
                return (f"`{text}` calls `{ref.spelling}`, which the compiler does not "
                        f"evaluate at compile time")
        folded = self.p.evaluate(value)
        if folded is not None:
            return f"`{text}` is {folded!r}, not an integer"
        return f"`{text}` is not a constant expression the compiler can evaluate"

    def uint(self, expr) -> int:
        """An expression's value as a UINT.

        Arguments:
            expr: the expression cursor.

        Returns:
            The value, wrapped to 32 bits.

        Raises:
            Unresolved: the value is not trusted or not an integer constant.
        """
        self.trusted(expr)
        value = self.p.evaluate(expr)
        if isinstance(value, int):
            return value & U32
        raise Unresolved(expr, self.why(expr))
