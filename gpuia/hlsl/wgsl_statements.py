"""WGSL function bodies and module scope read from tokens: the statements of Slang's WGSL.

:func:`read` takes a WGSL module apart (its structs, module-scope variables, constants, aliases
and function signatures; bodies are only delimited) and :func:`function_expressions` parses one
function body into the typed expression trees of ``gpuia.hlsl.wgsl_expressions``, the names
each statement declares in scope where the expressions after it are typed (the rules, what is
guaranteed and what is left without a type: ``gpuia.hlsl.wgsl_types``).

Refused, as :class:`~gpuia.hlsl.wgsl_types.Unreadable`, never a partial answer: a statement or a
module-scope declaration this reader does not know, a function without a body.
"""

from __future__ import annotations

from .wgsl_expressions import TEMPLATE_CLOSERS, ExpressionParser
from .wgsl_tokens import Tokens
from .wgsl_types import Function, Module, Node, WgslType, concrete

__all__ = ["StatementParser", "read", "function_expressions"]

_ASSIGN = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="))


class StatementParser(ExpressionParser):
    """Reads statements (collecting their top-level expressions in ``roots``) and module-scope
    declarations (into the :class:`~gpuia.hlsl.wgsl_types.Module` ``m``)."""

    def __init__(self, tokens: Tokens, module: Module, at: int = 0):
        super().__init__(tokens, module, at)
        self.roots: list[Node] = []

    def root(self, node: Node) -> None:
        self.roots.append(node)

    def block(self) -> None:
        self.take("{")
        self.scopes.append({})
        while self.tok != "}":
            self.statement()
        self.take("}")
        self.scopes.pop()

    def declaration(self) -> None:
        keyword = self.take()
        if keyword == "var" and self.tok == "<":
            while self.tok not in TEMPLATE_CLOSERS:
                self.take()
            self.close_template()
        name = self.name()
        declared = None
        if self.tok == ":":
            self.take()
            declared = self.type()
        if self.tok == "=":
            self.take()
            init = self.expression()
            self.root(init)
            if declared is None:
                declared = concrete(init.type) if keyword != "const" else init.type
        self.scopes[-1][name] = declared

    def simple(self) -> None:
        """An assignment, increment, call or declaration (a ``for`` header's parts)."""
        if self.tok in ("var", "let", "const"):
            self.declaration()
            return
        if self.tok == "_" and self.peek() == "=":
            self.i += 2
            self.root(self.expression())
            return
        lhs = self.expression()
        if self.tok in _ASSIGN and self.t.kind[self.i] == "op":
            op, op_start, op_end = self.tok, self.t.start[self.i], self.t.end[self.i]
            self.i += 1
            rhs = self.expression()
            self.root(Node("assign", lhs.start, rhs.end, None, [lhs, rhs], op, op_start,
                           op_end))
        elif self.tok in ("++", "--"):
            self.i += 1
            self.root(lhs)
        else:
            self.root(lhs)

    def statement(self) -> None:
        self.attributes()
        tok = self.tok
        if tok == "{":
            self.block()
        elif tok == ";":
            self.i += 1
        elif tok in ("var", "let", "const"):
            self.declaration()
            self.take(";")
        elif tok == "return":
            self.i += 1
            if self.tok != ";":
                self.root(self.expression())
            self.take(";")
        elif tok == "if":
            self.if_statement()
        elif tok == "switch":
            self.switch_statement()
        elif tok == "loop":
            self.loop_statement()
        elif tok == "for":
            self.for_statement()
        elif tok == "while":
            self.i += 1
            self.root(self.expression())
            self.block()
        elif tok == "break":
            self.i += 1
            if self.tok == "if":
                self.i += 1
                self.root(self.expression())
            self.take(";")
        elif tok in ("continue", "discard"):
            self.i += 1
            self.take(";")
        elif tok == "const_assert":
            self.i += 1
            self.expression()
            self.take(";")
        else:
            self.simple()
            self.take(";")

    def if_statement(self) -> None:
        self.i += 1
        self.root(self.expression())
        self.block()
        while self.tok == "else":
            self.i += 1
            if self.tok == "if":
                self.i += 1
                self.root(self.expression())
                self.block()
            else:
                self.block()
                break

    def switch_statement(self) -> None:
        self.i += 1
        self.root(self.expression())
        self.attributes()
        self.take("{")
        while self.tok != "}":
            if self.take() == "case":
                while self.tok not in (":", "{"):
                    if self.tok == "default":
                        self.i += 1
                    else:
                        self.root(self.expression())
                    if self.tok == ",":
                        self.i += 1
            elif self.t.text[self.i - 1] != "default":
                self.fail("expected 'case' or 'default'")
            if self.tok == ":":
                self.i += 1
            self.block()
        self.take("}")

    def loop_statement(self) -> None:
        self.i += 1
        self.attributes()
        self.take("{")
        self.scopes.append({})
        while self.tok != "}":
            if self.tok == "continuing":
                self.i += 1
                self.block()
            else:
                self.statement()
        self.take("}")
        self.scopes.pop()

    def for_statement(self) -> None:
        self.i += 1
        self.take("(")
        self.scopes.append({})
        if self.tok != ";":
            self.simple()
        self.take(";")
        if self.tok != ";":
            self.root(self.expression())
        self.take(";")
        if self.tok != ")":
            self.simple()
        self.take(")")
        self.block()
        self.scopes.pop()

    # -- module scope --------------------------------------------------------------------------
    def module(self) -> None:
        """Read the module-scope declarations (bodies are skipped, their extent recorded)."""
        while self.t.kind[self.i] != "end":
            self.attributes()
            tok = self.tok
            if tok in ("enable", "requires", "diagnostic", "const_assert"):
                self.skip_to(";")
            elif tok == ";":
                self.i += 1
            elif tok == "struct":
                self.i += 1
                name = self.name()
                self.m.structs[name] = members = {}
                self.take("{")
                while self.tok != "}":
                    self.attributes()
                    member = self.name()
                    self.take(":")
                    members[member] = self.type()
                    if self.tok != "}":
                        self.take(",")
                self.take("}")
            elif tok == "alias":
                self.i += 1
                name = self.name()
                self.take("=")
                self.m.aliases[name] = self.type()
                self.take(";")
            elif tok in ("var", "const", "override", "let"):
                self.scopes = [{}]
                self.declaration()
                self.take(";")
                self.m.values.update(self.scopes.pop())
                self.m.initializers.extend(self.roots)
                self.roots = []
            elif tok == "fn":
                self.function()
            else:
                self.fail("expected a module-scope declaration")

    def function(self) -> None:
        self.take("fn")
        name = self.name()
        self.take("(")
        params: list[tuple[str, WgslType]] = []
        while self.tok != ")":
            self.attributes()
            param = self.name()
            self.take(":")
            params.append((param, self.type()))
            if self.tok != ")":
                self.take(",")
        self.take(")")
        result = None
        if self.tok == "->":
            self.i += 1
            self.attributes()
            result = self.type()
        self.attributes()
        first, last = self.i, self.t.closing(self.i)
        if self.tok != "{" or last < 0:
            self.fail("expected a function body")
        self.i = last + 1
        self.m.functions[name] = Function(name, params, result, (first, last))


def read(tokens: Tokens) -> Module:
    """The module-scope declarations of the WGSL ``tokens`` hold (:class:`Unreadable` when
    its text is not read)."""
    module = Module()
    for i, text in enumerate(tokens.text[:-1]):  # a struct may be used before its declaration
        if text == "struct" and tokens.kind[i + 1] == "id":
            module.structs.setdefault(tokens.text[i + 1], {})
    StatementParser(tokens, module).module()
    return module


def function_expressions(tokens: Tokens, module: Module, function: Function) -> list[Node]:
    """Every top-level expression of ``function``'s body, typed, in text order: initializers,
    conditions, returned values, assignments (one ``assign`` node each) and calls; raises
    :class:`Unreadable` for a body not read."""
    p = StatementParser(tokens, module, function.body[0])
    p.scopes = [dict(function.params)]
    p.block()
    return p.roots
