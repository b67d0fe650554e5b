"""The types of the expressions in the WGSL Slang emits, read by WGSL's own rules: the model.

gpuia corrects a few operations of Slang's WGSL whose value WGSL defines otherwise than D3D
(``gpuia.hlsl.wgsl_defined``). Which operation a ``/`` or an ``i32(e)`` is depends on its
operands' types, which WGSL's text does not spell where they are used; gpuia reads them. This
module is what the reading gives and the typing rules it applies: :class:`WgslType`, the
expression trees (:class:`Node`), what a module declares (:class:`Module`, :class:`Function`),
the types of literals, of operators (:func:`binary_type`) and of the built-in functions of
:data:`BUILTIN_RESULTS`. The reader is in three parts: ``gpuia.hlsl.wgsl_tokens`` (the tokens),
``gpuia.hlsl.wgsl_expressions`` (types and expressions) and ``gpuia.hlsl.wgsl_statements``
(function bodies and module scope: ``read`` takes a WGSL module apart, its structs,
module-scope variables, constants, aliases and function signatures, and
``function_expressions`` parses one function body into typed expression trees).

Guaranteed: a node's type is given only where WGSL's typing rules (W3C WGSL, sections 6 and 8
and the built-in function overloads of section 17) determine it from what the module declares:
literals by their form and suffix; a name by its declaration in the innermost enclosing scope
(parameters, ``var``/``let``/``const`` in the block, module scope), an undeclared one has no
type; constructors and ``bitcast<T>`` by the type they name; calls of the module's functions by
their declared result; member access, swizzles and subscripts by the struct, vector, matrix and
array types; operators by WGSL's operand rules (vector-scalar broadcasting, abstract numbers
taking the other operand's type, comparisons giving ``bool``); the built-in functions of
:data:`BUILTIN_RESULTS`. A body the reader cannot parse raises :class:`Unreadable`, never
returns a partial answer.

Left without a type (None), never guessed: a built-in function not listed (texture, atomic and
subgroup functions among them), a name nothing declares, an operation one of whose operands has
no type, and what WGSL's rules refuse (mismatched widths or component types; naga refuses such
a module anyway). Statements and operators are read with C's precedences, which valid WGSL never
contradicts (WGSL requires parentheses wherever C and WGSL would differ).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["WgslType", "Node", "Function", "Module", "Unreadable", "BUILTIN_RESULTS", "scalar",
           "vector", "BOOL", "I32", "U32", "F32", "CONCRETE_SCALARS", "literal_type",
           "binary_type", "concrete", "same_type"]


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
CONCRETE_SCALARS = frozenset(("f32", "f16", "i32", "u32", "bool"))
"""The concrete scalar types, each a type name of its own."""


def scalar(name: str) -> WgslType:
    """The scalar type ``name`` (``f32``, ``abstract-int``...)."""
    return WgslType("scalar", name)


def vector(name: str, size: int) -> WgslType:
    """A vector of ``size`` ``name`` components; the scalar itself for a size of 1."""
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




def literal_type(text: str) -> WgslType:
    """The type of a numeric literal, by its form and suffix."""
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


def concrete(t: WgslType | None) -> WgslType | None:
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


def binary_type(op: str, a: WgslType | None, b: WgslType | None) -> WgslType | None:
    """The type of ``a op b`` for a binary operator ``op`` (None where WGSL's rules give none)."""
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


def same_type(args):
    """The type of a component-wise built-in of ``args`` (None where they do not agree)."""
    t = args[0] if args else None
    for a in args[1:]:
        t = _broadcast(t, a)
    return t


def _component(args):
    t = same_type(args)
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
    **dict.fromkeys(_SAME_NAMES, same_type),
    **dict.fromkeys(("ldexp", "extractBits", "insertBits", "refract"), _first),
    "select": lambda args: same_type(args[:2]),
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


