"""WGSL types and expressions read from tokens, each expression typed by WGSL's rules.

:class:`ExpressionParser` reads the types a module spells (scalars, vectors, matrices in both
spellings, arrays, pointers, atomics, structs and aliases the module declares; textures and
samplers as opaque ``other`` types) and its expressions, into
:class:`~gpuia.hlsl.wgsl_types.Node` trees typed by the rules of ``gpuia.hlsl.wgsl_types`` (what
is guaranteed and what is left without a type is said there); ``gpuia.hlsl.wgsl_statements``
reads statements and module scope on top of it. :func:`parse_type` reads one type's text.

Refused, as :class:`~gpuia.hlsl.wgsl_types.Unreadable` at the token where reading stopped: a
token where a type or an expression must be and none is, a bracket or template not closed.
"""

from __future__ import annotations

import re

from .wgsl_tokens import Tokens
from .wgsl_types import (
    BOOL,
    BUILTIN_RESULTS,
    CONCRETE_SCALARS,
    Module,
    Node,
    Unreadable,
    WgslType,
    binary_type,
    literal_type,
    same_type,
    scalar,
    vector,
)

__all__ = ["ExpressionParser", "parse_type", "TEMPLATE_CLOSERS"]

_VECTOR_RE = re.compile(r"vec([234])$")
_MATRIX_RE = re.compile(r"mat([234])x([234])$")
_SHORT_RE = re.compile(r"(?:vec([234])|mat([234])x([234]))([fhiu])$")
_SHORT_SCALAR = {"f": "f32", "h": "f16", "i": "i32", "u": "u32"}
_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7,
           "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}
TEMPLATE_CLOSERS = {">": "", ">>": ">", ">=": "=", ">>=": ">="}
"""The tokens that end a template list, each with what is left of it once its ``>`` is taken."""


def _deref(t: WgslType | None) -> WgslType | None:
    return t.element if t is not None and t.kind == "pointer" else t


class ExpressionParser:
    """Reads types and expressions from :class:`~gpuia.hlsl.wgsl_tokens.Tokens`, from token
    ``at``: ``i`` is the token it is at, ``scopes`` the names declared around it (innermost
    last; :meth:`lookup` falls back to the module's)."""

    def __init__(self, tokens: Tokens, module: Module, at: int = 0):
        self.t = tokens
        self.m = module
        self.i = at
        self.scopes: list[dict[str, WgslType | None]] = []

    # -- tokens --------------------------------------------------------------------------------
    @property
    def tok(self) -> str:
        return self.t.text[self.i]

    def peek(self, k: int = 1) -> str:
        return self.t.text[min(self.i + k, len(self.t.text) - 1)]

    def fail(self, why: str):
        raise Unreadable(self.t.start[self.i], f"{why}, found {self.tok or 'the end'!r}")

    def take(self, text: str | None = None) -> str:
        tok = self.tok
        if self.t.kind[self.i] == "end" or (text is not None and tok != text):
            self.fail(f"expected {text or 'a token'!r}")
        self.i += 1
        return tok

    def name(self) -> str:
        if self.t.kind[self.i] != "id":
            self.fail("expected a name")
        return self.take()

    def close_template(self) -> None:
        """Take a ``>`` (splitting ``>>``, ``>=``, ``>>=``: a nested template's end)."""
        rest = TEMPLATE_CLOSERS.get(self.tok)
        if rest is None:
            self.fail("expected '>'")
        if rest:
            self.t.text[self.i] = rest
            self.t.start[self.i] += 1
        else:
            self.i += 1

    def attributes(self) -> None:
        while self.tok == "@":
            self.i += 1
            self.name()
            if self.tok == "(":
                self.skip_group()

    def skip_group(self) -> None:
        """Skip a bracketed group starting at the current ``(``, ``[`` or ``{``."""
        depth = 0
        while True:
            tok = self.take()
            if tok in "([{":
                depth += 1
            elif tok in ")]}":
                depth -= 1
                if depth == 0:
                    return

    def skip_to(self, text: str) -> None:
        while self.tok != text:
            if self.tok in ("(", "[", "{"):
                self.skip_group()
            else:
                self.take()
        self.take()

    # -- types ---------------------------------------------------------------------------------
    def type(self) -> WgslType:
        name = self.name()
        if name in CONCRETE_SCALARS:
            return scalar(name)
        if name in self.m.aliases:
            return self.m.aliases[name]
        if name in self.m.structs:
            return WgslType("struct", name=name)
        short = _SHORT_RE.match(name)
        if short:
            s = _SHORT_SCALAR[short.group(4)]
            if short.group(1):
                return vector(s, int(short.group(1)))
            return WgslType("matrix", s, int(short.group(2)), int(short.group(3)))
        v, mat = _VECTOR_RE.match(name), _MATRIX_RE.match(name)
        if v or mat:
            self.take("<")
            inner = self.type()
            self.close_template()
            if v:
                return vector(inner.scalar, int(v.group(1)))
            assert mat is not None
            return WgslType("matrix", inner.scalar, int(mat.group(1)), int(mat.group(2)))
        if name == "array":
            self.take("<")
            element = self.type()
            size = ""
            if self.tok == ",":
                self.take()
                start = self.t.start[self.i]
                self.expression(in_template=True)
                size = self.t.code[start:self.t.end[self.i - 1]]
            self.close_template()
            return WgslType("array", element=element, name=size)
        if name in ("ptr", "atomic"):
            self.take("<")
            if name == "ptr":
                self.name()  # the address space
                self.take(",")
            element = self.type()
            if self.tok == ",":  # the access mode
                self.take()
                self.name()
            self.close_template()
            return WgslType("pointer" if name == "ptr" else "atomic", element=element)
        if self.tok == "<":  # textures, samplers: opaque here
            depth = 0
            while True:
                if self.tok == "<":
                    depth += 1
                    self.take()
                elif self.tok in TEMPLATE_CLOSERS:
                    self.close_template()
                    depth -= 1
                    if depth == 0:
                        break
                else:
                    self.take()
        return WgslType("other", name=name)

    def is_type_name(self, name: str) -> bool:
        return name in CONCRETE_SCALARS or name in self.m.aliases or name in self.m.structs or \
            bool(_SHORT_RE.match(name) or _VECTOR_RE.match(name) or _MATRIX_RE.match(name)) or \
            name == "array"

    # -- expressions ---------------------------------------------------------------------------
    def expression(self, min_prec: int = 1, in_template: bool = False) -> Node:
        left = self.unary(in_template)
        while True:
            op = self.tok
            prec = _BINARY.get(op)
            if prec is None or prec < min_prec or self.t.kind[self.i] != "op" or \
                    (in_template and op in TEMPLATE_CLOSERS):
                return left
            op_start, op_end = self.t.start[self.i], self.t.end[self.i]
            self.i += 1
            right = self.expression(prec + 1, in_template)
            left = Node("binary", left.start, right.end, binary_type(op, left.type, right.type),
                        [left, right], op, op_start, op_end)

    def unary(self, in_template: bool) -> Node:
        op = self.tok
        if self.t.kind[self.i] == "op" and op in ("-", "!", "~", "*", "&"):
            start = self.t.start[self.i]
            self.i += 1
            operand = self.unary(in_template)
            t = operand.type
            if op == "*":
                t = t.element if t is not None and t.kind == "pointer" else None
            elif op == "&":
                t = WgslType("pointer", element=t) if t is not None else None
            return Node("unary", start, operand.end, t, [operand], op, start, start + 1)
        return self.postfix(self.primary(in_template))

    def postfix(self, node: Node) -> Node:
        while True:
            if self.tok == ".":
                self.i += 1
                op_start = self.t.start[self.i]
                member = self.name()
                node = Node("member", node.start, self.t.end[self.i - 1],
                            self.member_type(_deref(node.type), member), [node], member,
                            op_start, self.t.end[self.i - 1])
            elif self.tok == "[":
                self.i += 1
                index = self.expression()
                self.take("]")
                node = Node("index", node.start, self.t.end[self.i - 1],
                            self.element_type(_deref(node.type)), [node, index])
            else:
                return node

    def member_type(self, t: WgslType | None, member: str) -> WgslType | None:
        if t is None:
            return None
        if t.kind == "struct":
            return self.m.structs.get(t.name, {}).get(member)
        if t.kind == "result":
            return dict(t.members).get(member)
        if t.kind == "vector" and 1 <= len(member) <= 4 and (
                re.fullmatch(r"[xyzw]+", member) or re.fullmatch(r"[rgba]+", member)):
            letters = "xyzw" if member[0] in "xyzw" else "rgba"
            if all(letters.index(c) < t.size for c in member):
                return vector(t.scalar, len(member))
        return None

    @staticmethod
    def element_type(t: WgslType | None) -> WgslType | None:
        if t is None:
            return None
        if t.kind == "vector":
            return scalar(t.scalar)
        if t.kind == "matrix":
            return vector(t.scalar, t.rows)
        if t.kind == "array":
            return t.element
        return None

    def arguments(self) -> list[Node]:
        self.take("(")
        args: list[Node] = []
        while self.tok != ")":
            args.append(self.expression())
            if self.tok != ")":
                self.take(",")
        self.take(")")
        return args

    def primary(self, in_template: bool) -> Node:
        start, kind, tok = self.t.start[self.i], self.t.kind[self.i], self.tok
        if kind == "num":
            self.i += 1
            return Node("literal", start, self.t.end[self.i - 1], literal_type(tok))
        if tok == "(":
            self.i += 1
            inner = self.expression()
            self.take(")")
            return Node("paren", start, self.t.end[self.i - 1], inner.type, [inner])
        if kind != "id":
            self.fail("expected an expression")
        if tok in ("true", "false"):
            self.i += 1
            return Node("literal", start, self.t.end[self.i - 1], BOOL)
        if tok == "bitcast":
            self.i += 1
            self.take("<")
            target = self.type()
            self.close_template()
            op_end = self.t.end[self.i - 1]
            args = self.arguments()
            return Node("bitcast", start, self.t.end[self.i - 1], target, args, "bitcast",
                        start, op_end)
        if self.is_type_name(tok) and (self.peek() in ("(", "<") or tok in CONCRETE_SCALARS):
            if self.peek() == "(" and (_VECTOR_RE.match(tok) or _MATRIX_RE.match(tok)
                                       or tok == "array"):
                self.i += 1  # a constructor whose type comes from its arguments
                op_end = self.t.end[self.i - 1]
                args = self.arguments()
                return Node("call", start, self.t.end[self.i - 1],
                            self.inferred(tok, [a.type for a in args]), args, tok, start, op_end)
            target = self.type()
            op_end = self.t.end[self.i - 1]
            args = self.arguments()
            return Node("call", start, self.t.end[self.i - 1], target, args,
                        self.t.code[start:op_end], start, op_end, target)
        self.i += 1
        if self.tok == "(":
            op_end = self.t.end[self.i - 1]
            args = self.arguments()
            return Node("call", start, self.t.end[self.i - 1],
                        self.call_type(tok, [a.type for a in args]), args, tok, start, op_end)
        return Node("name", start, self.t.end[self.i - 1], self.lookup(tok), op=tok)

    @staticmethod
    def inferred(name: str, args: list[WgslType | None]) -> WgslType | None:
        parts: list[WgslType | None] = [a if a is None else scalar(a.scalar) for a in args]
        component = same_type(parts) if parts else None
        v, mat = _VECTOR_RE.match(name), _MATRIX_RE.match(name)
        if component is None or not (v or mat):
            return None
        if v:
            return vector(component.scalar, int(v.group(1)))
        assert mat is not None
        return WgslType("matrix", component.scalar, int(mat.group(1)), int(mat.group(2)))

    def call_type(self, name: str, args: list[WgslType | None]) -> WgslType | None:
        function = self.m.functions.get(name)
        if function is not None:
            return function.result
        rule = BUILTIN_RESULTS.get(name)
        return rule(args) if rule is not None else None

    def lookup(self, name: str) -> WgslType | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return self.m.values.get(name)


def parse_type(text: str, module: Module | None = None) -> WgslType:
    """The type WGSL ``text`` spells (struct names and aliases from ``module``)."""
    p = ExpressionParser(Tokens(text), module or Module())
    t = p.type()
    if p.t.kind[p.i] != "end":
        p.fail("expected the end of the type")
    return t
