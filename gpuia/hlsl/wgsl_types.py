"""The types of the expressions in the WGSL Slang emits, read by WGSL's own rules.

gpuia corrects a few operations of Slang's WGSL whose value WGSL defines otherwise than D3D
(``gpuia.hlsl.wgsl_defined``). Which operation a ``/`` or an ``i32(e)`` is depends on its
operands' types, which WGSL's text does not spell where they are used; this module reads them.
:func:`read` takes a WGSL module apart (its structs, module-scope variables, constants, aliases
and function signatures) and :func:`function_expressions` parses one function body into
expression trees (:class:`Node`), each node with its :class:`WgslType` or None.

Guaranteed: a node's type is given only where WGSL's typing rules (W3C WGSL, sections 6 and 8
and the built-in function overloads of section 17) determine it from what the module declares:
literals by their form and suffix; a name by its declaration in the innermost enclosing scope
(parameters, ``var``/``let``/``const`` in the block, module scope), an undeclared one has no
type; constructors and ``bitcast<T>`` by the type they name; calls of the module's functions by
their declared result; member access, swizzles and subscripts by the struct, vector, matrix and
array types; operators by WGSL's operand rules (vector-scalar broadcasting, abstract numbers
taking the other operand's type, comparisons giving ``bool``); the built-in functions of
:data:`BUILTIN_RESULTS`. A body this reader cannot parse raises :class:`Unreadable`, never
returns a partial answer.

Left without a type (None), never guessed: a built-in function not listed (texture, atomic and
subgroup functions among them), a name nothing declares, an operation one of whose operands has
no type, and what WGSL's rules refuse (mismatched widths or component types; naga refuses such
a module anyway). Statements and operators are read with C's precedences, which valid WGSL never
contradicts (WGSL requires parentheses wherever C and WGSL would differ).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

__all__ = ["WgslType", "Node", "Function", "Module", "Unreadable", "Tokens", "tokenize", "read",
           "function_expressions", "parse_type", "BUILTIN_RESULTS", "scalar", "vector"]


class Unreadable(ValueError):
    """Text this reader does not parse; ``offset`` is where, in characters."""

    def __init__(self, offset: int, why: str):
        super().__init__(f"{why} (at character {offset})")
        self.offset = offset


@dataclass(frozen=True)
class WgslType:
    """A WGSL type. ``kind``: ``scalar``, ``vector``, ``matrix``, ``array``, ``struct``,
    ``pointer``, ``atomic``, ``result`` (a built-in's result structure: modf, frexp) or ``other``
    (textures, samplers: opaque here). ``scalar`` is the component type of a scalar, vector or
    matrix (``f32``, ``f16``, ``i32``, ``u32``, ``bool``, ``abstract-int``, ``abstract-float``);
    ``size`` a vector's width or a matrix's columns, ``rows`` a matrix's rows; ``element`` what an
    array, pointer or atomic holds; ``name`` a struct's name, an array's size text; ``members`` a
    result structure's (name, type) pairs."""

    kind: str
    scalar: str = ""
    size: int = 0
    rows: int = 0
    element: WgslType | None = None
    name: str = ""
    members: tuple[tuple[str, WgslType], ...] = ()

    def __str__(self) -> str:
        spelling = _SPELLING.get(self.scalar, self.scalar)
        if self.kind == "scalar":
            return spelling
        if self.kind == "vector":
            return f"vec{self.size}<{spelling}>"
        if self.kind == "matrix":
            return f"mat{self.size}x{self.rows}<{spelling}>"
        if self.kind == "array":
            return f"array<{self.element}{', ' + self.name if self.name else ''}>"
        if self.kind in ("pointer", "atomic"):
            return f"{'ptr' if self.kind == 'pointer' else 'atomic'}<{self.element}>"
        if self.kind == "result":
            return "{" + ", ".join(f"{n}: {t}" for n, t in self.members) + "}"
        return self.name

    @property
    def is_float(self) -> bool:
        """A float scalar or vector (abstract included)."""
        return self.kind in ("scalar", "vector") and self.scalar in _FLOATS

    @property
    def width(self) -> int:
        """1 for a scalar, a vector's width, 0 for anything else."""
        return 1 if self.kind == "scalar" else self.size if self.kind == "vector" else 0


_SPELLING = {"abstract-int": "AbstractInt", "abstract-float": "AbstractFloat"}
_FLOATS = frozenset(("f32", "f16", "abstract-float"))
_CONCRETE = frozenset(("f32", "f16", "i32", "u32", "bool"))


def scalar(name: str) -> WgslType:
    return WgslType("scalar", name)


def vector(name: str, size: int) -> WgslType:
    return WgslType("vector", name, size) if size > 1 else WgslType("scalar", name)


BOOL, I32, U32, F32 = scalar("bool"), scalar("i32"), scalar("u32"), scalar("f32")


@dataclass
class Node:
    """One expression (or an assignment statement) of a function body: ``kind`` is
    ``literal``, ``name``, ``call``, ``bitcast``, ``member``, ``index``, ``unary``, ``binary``,
    ``paren``, ``assign``; [start, end) its characters in the module; ``op`` the operator, the
    callee's spelling, the member's name or an assignment's operator, at [op_start, op_end);
    ``callee`` the type a constructor call names; ``children`` its operands in text order."""

    kind: str
    start: int
    end: int
    type: WgslType | None
    children: list[Node] = field(default_factory=list)
    op: str = ""
    op_start: int = 0
    op_end: int = 0
    callee: WgslType | None = None


@dataclass
class Function:
    """A function's signature, and where its body is: the tokens of its braces, inclusive."""

    name: str
    params: list[tuple[str, WgslType]]
    result: WgslType | None
    body: tuple[int, int]


@dataclass
class Module:
    """What a WGSL module declares at module scope."""

    structs: dict[str, dict[str, WgslType]] = field(default_factory=dict)
    values: dict[str, WgslType | None] = field(default_factory=dict)
    aliases: dict[str, WgslType] = field(default_factory=dict)
    functions: dict[str, Function] = field(default_factory=dict)
    initializers: list[Node] = field(default_factory=list)  # module-scope initializers


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


_VECTOR_RE = re.compile(r"vec([234])$")
_MATRIX_RE = re.compile(r"mat([234])x([234])$")
_SHORT_RE = re.compile(r"(?:vec([234])|mat([234])x([234]))([fhiu])$")
_SHORT_SCALAR = {"f": "f32", "h": "f16", "i": "i32", "u": "u32"}
_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7,
           "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}
_ASSIGN = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="))
_CLOSERS = {">": "", ">>": ">", ">=": "=", ">>=": ">="}


def _literal_type(text: str) -> WgslType:
    low = text.lower()
    if low.startswith("0x"):
        if "p" in low or "." in low:
            return scalar("f16" if low.endswith("h") else "f32" if low.endswith("f")
                          else "abstract-float")
        return scalar({"i": "i32", "u": "u32"}.get(low[-1], "abstract-int"))
    suffix = {"f": "f32", "h": "f16", "i": "i32", "u": "u32"}.get(low[-1])
    if suffix is not None:
        return scalar(suffix)
    return scalar("abstract-float" if ("." in low or "e" in low) else "abstract-int")


def _common(a: str, b: str) -> str | None:
    """The component type two operands convert to (abstract numbers take the other's)."""
    if a == b:
        return a
    if {a, b} == {"abstract-int", "abstract-float"}:
        return "abstract-float"
    for x, y in ((a, b), (b, a)):
        if x == "abstract-int" and y in ("i32", "u32", "f32", "f16"):
            return y
        if x == "abstract-float" and y in ("f32", "f16"):
            return y
    return None


def _broadcast(a: WgslType | None, b: WgslType | None) -> WgslType | None:
    """The type of a component-wise operation on ``a`` and ``b`` (a scalar meets a vector)."""
    if a is None or b is None or not a.width or not b.width:
        return None
    s = _common(a.scalar, b.scalar)
    if s is None or (a.width > 1 and b.width > 1 and a.width != b.width):
        return None
    return vector(s, max(a.width, b.width))


def _concrete(t: WgslType | None) -> WgslType | None:
    """The type a ``var`` or ``let`` without one takes from its initializer."""
    if t is None or t.scalar not in ("abstract-int", "abstract-float"):
        return t
    s = "i32" if t.scalar == "abstract-int" else "f32"
    return WgslType(t.kind, s, t.size, t.rows, t.element, t.name, t.members)


def _product(a: WgslType | None, b: WgslType | None) -> WgslType | None:
    if a is None or b is None:
        return None
    if a.kind != "matrix" and b.kind != "matrix":
        return _broadcast(a, b)
    s = _common(a.scalar, b.scalar)
    if s is None:
        return None
    if a.kind == "matrix" and b.kind == "matrix":
        return WgslType("matrix", s, b.size, a.rows) if a.size == b.rows else None
    if a.kind == "matrix" and b.kind == "vector":
        return vector(s, a.rows) if b.size == a.size else None
    if a.kind == "vector" and b.kind == "matrix":
        return vector(s, b.size) if a.size == b.rows else None
    m = a if a.kind == "matrix" else b
    other = b if m is a else a
    return WgslType("matrix", s, m.size, m.rows) if other.kind == "scalar" else None


def _sum(a: WgslType | None, b: WgslType | None) -> WgslType | None:
    if a is not None and b is not None and a.kind == "matrix" and b.kind == "matrix":
        s = _common(a.scalar, b.scalar)
        return WgslType("matrix", s, a.size, a.rows) if s and (a.size, a.rows) == (
            b.size, b.rows) else None
    return _broadcast(a, b)


def _binary_type(op: str, a: WgslType | None, b: WgslType | None) -> WgslType | None:
    if op in ("&&", "||"):
        return BOOL
    if op == "*":
        return _product(a, b)
    if op in ("+", "-"):
        return _sum(a, b)
    if op in ("/", "%", "&", "|", "^"):
        return _broadcast(a, b)
    if op in ("<<", ">>"):
        return a if a is not None and a.width else None
    both = _broadcast(a, b)  # a comparison
    return None if both is None else vector("bool", both.width)


def _deref(t: WgslType | None) -> WgslType | None:
    return t.element if t is not None and t.kind == "pointer" else t


def _same(args):
    t = args[0] if args else None
    for a in args[1:]:
        t = _broadcast(t, a)
    return t


def _component(args):
    t = _same(args)
    return None if t is None else scalar(t.scalar)


def _result(*members):
    def make(args):
        t = args[0] if args else None
        if t is None or not t.width:
            return None
        return WgslType("result", members=tuple(
            (name, t if kind == "same" else vector(kind, t.width)) for name, kind in members))
    return make


def _fixed(t):
    return lambda args: t


def _first(args):
    return args[0] if args else None


def _transpose(args):
    t = args[0] if args else None
    return WgslType("matrix", t.scalar, t.rows, t.size) if t is not None and \
        t.kind == "matrix" else None


_SAME_NAMES = (
    "abs acos acosh asin asinh atan atanh atan2 ceil clamp cos cosh countLeadingZeros "
    "countOneBits countTrailingZeros cross degrees exp exp2 faceForward firstLeadingBit "
    "firstTrailingBit floor fma fract inverseSqrt log log2 max min mix normalize pow "
    "quantizeToF16 radians reflect reverseBits round saturate sign sin sinh smoothstep sqrt step "
    "tan tanh trunc dpdx dpdxCoarse dpdxFine dpdy dpdyCoarse dpdyFine fwidth fwidthCoarse "
    "fwidthFine").split()
BUILTIN_RESULTS = {
    **dict.fromkeys(_SAME_NAMES, _same),
    **dict.fromkeys(("ldexp", "extractBits", "insertBits", "refract"), _first),
    "select": lambda args: _same(args[:2]),
    **dict.fromkeys(("dot", "distance"), _component),
    "length": lambda args: _component(args[:1]),
    "determinant": lambda args: _component(args[:1]),
    "transpose": _transpose,
    "all": _fixed(BOOL), "any": _fixed(BOOL),
    "arrayLength": _fixed(U32),
    **{name: _fixed(U32) for name in ("pack4x8snorm", "pack4x8unorm", "pack2x16snorm",
                                      "pack2x16unorm", "pack2x16float", "pack4xI8", "pack4xU8",
                                      "pack4xI8Clamp", "pack4xU8Clamp", "dot4U8Packed")},
    "dot4I8Packed": _fixed(I32),
    **{name: _fixed(vector("f32", 4)) for name in ("unpack4x8snorm", "unpack4x8unorm")},
    **{name: _fixed(vector("f32", 2)) for name in ("unpack2x16snorm", "unpack2x16unorm",
                                                   "unpack2x16float")},
    "unpack4xI8": _fixed(vector("i32", 4)), "unpack4xU8": _fixed(vector("u32", 4)),
    "modf": _result(("fract", "same"), ("whole", "same")),
    "frexp": _result(("fract", "same"), ("exp", "i32")),
}
"""Each built-in function whose result type this reader gives: a function of the argument
types (any of which may be None) to the result type or None."""


class _Parser:
    """Reads types, expressions and statements from :class:`Tokens`, from token ``at``."""

    def __init__(self, tokens: Tokens, module: Module, at: int = 0):
        self.t = tokens
        self.m = module
        self.i = at
        self.scopes: list[dict[str, WgslType | None]] = []
        self.roots: list[Node] = []

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
        rest = _CLOSERS.get(self.tok)
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
        if name in _CONCRETE:
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
                elif self.tok in _CLOSERS:
                    self.close_template()
                    depth -= 1
                    if depth == 0:
                        break
                else:
                    self.take()
        return WgslType("other", name=name)

    def is_type_name(self, name: str) -> bool:
        return name in _CONCRETE or name in self.m.aliases or name in self.m.structs or \
            bool(_SHORT_RE.match(name) or _VECTOR_RE.match(name) or _MATRIX_RE.match(name)) or \
            name == "array"

    # -- expressions ---------------------------------------------------------------------------
    def expression(self, min_prec: int = 1, in_template: bool = False) -> Node:
        left = self.unary(in_template)
        while True:
            op = self.tok
            prec = _BINARY.get(op)
            if prec is None or prec < min_prec or self.t.kind[self.i] != "op" or \
                    (in_template and op in _CLOSERS):
                return left
            op_start, op_end = self.t.start[self.i], self.t.end[self.i]
            self.i += 1
            right = self.expression(prec + 1, in_template)
            left = Node("binary", left.start, right.end, _binary_type(op, left.type, right.type),
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
            return Node("literal", start, self.t.end[self.i - 1], _literal_type(tok))
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
        if self.is_type_name(tok) and (self.peek() in ("(", "<") or tok in _CONCRETE):
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
        component = _same(parts) if parts else None
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

    # -- statements ----------------------------------------------------------------------------
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
            while self.tok not in _CLOSERS:
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
                declared = _concrete(init.type) if keyword != "const" else init.type
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
        elif tok == "switch":
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
        elif tok == "loop":
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
        elif tok == "for":
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


def parse_type(text: str, module: Module | None = None) -> WgslType:
    """The type WGSL ``text`` spells (struct names and aliases from ``module``)."""
    p = _Parser(Tokens(text), module or Module())
    t = p.type()
    if p.t.kind[p.i] != "end":
        p.fail("expected the end of the type")
    return t


def read(tokens: Tokens) -> Module:
    """The module-scope declarations of the WGSL ``tokens`` hold (:class:`Unreadable` when
    its text is not read)."""
    module = Module()
    for i, text in enumerate(tokens.text[:-1]):  # a struct may be used before its declaration
        if text == "struct" and tokens.kind[i + 1] == "id":
            module.structs.setdefault(tokens.text[i + 1], {})
    _Parser(tokens, module).module()
    return module


def function_expressions(tokens: Tokens, module: Module, function: Function) -> list[Node]:
    """Every top-level expression of ``function``'s body, typed, in text order: initializers,
    conditions, returned values, assignments (one ``assign`` node each) and calls; raises
    :class:`Unreadable` for a body not read."""
    p = _Parser(tokens, module, function.body[0])
    p.scopes = [dict(function.params)]
    p.block()
    return p.roots
