"""D3D's values, in the WGSL Slang emits, for the conversions and divisions WGSL defines otherwise.

D3D defines a float's conversion to an integer (D3D11.3 spec 22.13.3 ftoi, 22.13.4 ftou: NaN is
0, anything else is clamped to the integer range, then truncated toward zero) and an unsigned
division or remainder by zero (22.12.9 udiv: 0xFFFFFFFF, quotient and remainder alike; rules
12.1, 12.2). WGSL's are others: its conversion clamps to the largest float inside the range
(2147483520, 4294967040) and leaves NaN's value indeterminate (lavapipe gave -2147483648), its
``x / 0`` is ``x`` and ``x % 0`` is 0; and wgpu's GLSL back end writes the operators as GLSL
has them, undefined there (llvmpipe: ``u32(-1.0)`` is 0xFFFFFFFF). :func:`rewrite` replaces
each such operation of a function body with a call of a gpuia function that computes D3D's
value with operations every back end defines (a NaN found from its bits, every operand of a
conversion finite and in range, no division by zero), appended to the module:

* ``i32(e)``, ``u32(e)``, ``vecN<i32>(e)``, ``vecN<u32>(e)`` whose one argument is a float
  (``f32``, ``f16``, abstract) scalar or vector of that width: ``gpuia_d3d_ftoi(e)``,
  ``gpuia_d3d_ftou3(e)``... (an ``f16`` argument widened to ``f32`` first, exactly);
* ``a / b`` and ``a % b`` of type ``u32`` or ``vecN<u32>``: ``gpuia_d3d_udiv(a, b)``,
  ``gpuia_d3d_umod4(a, b)``... (a scalar operand of a vector operation splatted, as WGSL
  does); ``x /= y`` and ``x %= y`` likewise, as ``x = gpuia_d3d_udiv(x, y)``, where ``x`` calls
  nothing (so reading it twice is reading it once).

Guaranteed: an operation is replaced only where its operands' types are read from the text by
WGSL's rules (``gpuia.hlsl.wgsl_types``); a conversion between integers (``u32(i)``, ``i32(u)``:
the same bits), a ``bitcast``, a float constructor and a signed division (D3D leaves ``x / 0``
and ``INT_MIN / -1`` undefined: the CPU reference refuses them as not comparable, rules 12.2)
stay as they are. Outside the replaced operations the text is kept as it is, and every line
break inside them too, so naga's line numbers stay the user's. Multi-argument constructors
need nothing: WGSL has no implicit float-to-integer conversion, so a float component of
``vec4<i32>(a, b, c, d)`` is a module naga refuses anyway.

Left as WGSL's, and named in :attr:`Rewritten.left` (never guessed): a conversion or division
whose operand's type the reader does not give (an undeclared name, a built-in it does not list);
one at module scope (a constant's initializer, where WGSL allows no function call; Slang folds
such conversions itself); a compound ``/=`` whose left side calls a function; a function body,
or a module, the reader cannot parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .wgsl_statements import function_expressions, read
from .wgsl_tokens import Tokens
from .wgsl_types import Node, Unreadable, WgslType

__all__ = ["rewrite", "Rewritten", "helper"]

# Cheap filters first: most modules have no float conversion and no division at all.
_CONVERSION_RE = re.compile(r"\b(?:[iu]32|vec[234]\s*<\s*[iu]32\s*>|vec[234][iu])\s*\("
                            r"(?!\s*-?\s*(?:0[xX][0-9a-fA-F]+|\d+)[iu]?\s*\))")
_DIVISION_RE = re.compile(r"(?<![/*])[/%](?![/*])")
_PREFIX = "gpuia_d3d_"


@dataclass(frozen=True)
class Rewritten:
    """The module with D3D's operations (``code``), the helper functions it calls
    (``helpers``: ``ftoi``, ``ftou``, ``udiv``, ``umod`` with a width), and what was left as
    WGSL's (``left``: one line each, with its line in the module)."""

    code: str
    helpers: tuple[str, ...] = ()
    left: tuple[str, ...] = ()


def _vec(n: int, s: str) -> str:
    return s if n == 1 else f"vec{n}<{s}>"


def _splat(n: int, s: str, v: str) -> str:
    return v if n == 1 else f"vec{n}<{s}>({v})"


def _name(kind: str, n: int) -> str:
    return f"{_PREFIX}{kind}{'' if n == 1 else n}"


def helper(kind: str, n: int) -> str:
    """The WGSL function ``kind`` (``ftoi``, ``ftou``, ``udiv``, ``umod``) of width ``n``.

    A conversion replaces NaN (found from its bits: a comparison with NaN is what a fast-math
    compiler may fold) by 0, clamps to the largest float inside the range and converts, which
    every back end defines for such a value, then picks the integer maximum for a value at or
    past 2^31 (2^32): ftoi/ftou. A division divides by max(y, 1) and picks 0xFFFFFFFF where y is
    0: udiv, with no division by zero on any back end."""
    f, i, u = _vec(n, "f32"), _vec(n, "i32"), _vec(n, "u32")
    if kind in ("udiv", "umod"):
        op = "/" if kind == "udiv" else "%"
        return (f"fn {_name(kind, n)}(x : {u}, y : {u}) -> {u}\n{{\n"
                f"    return select(x {op} max(y, {_splat(n, 'u32', '1u')}), "
                f"{_splat(n, 'u32', '4294967295u')}, y == {_splat(n, 'u32', '0u')});\n}}\n")
    low, high, top, most, result = (
        ("-2147483648.0f", "2147483520.0f", "2147483648.0f", "2147483647i", i) if kind == "ftoi"
        else ("0.0f", "4294967040.0f", "4294967296.0f", "4294967295u", u))
    return (f"fn {_name(kind, n)}(x : {f}) -> {result}\n{{\n"
            f"    let y = select(x, {_splat(n, 'f32', '0.0f')}, (bitcast<{u}>(x) & "
            f"{_splat(n, 'u32', '0x7fffffffu')}) > {_splat(n, 'u32', '0x7f800000u')});\n"
            f"    return select({result}(clamp(y, {_splat(n, 'f32', low)}, "
            f"{_splat(n, 'f32', high)})), {_splat(n, kind[-1] + '32', most)}, "
            f"y >= {_splat(n, 'f32', top)});\n}}\n")


def _is_conversion(node: Node) -> bool:
    c = node.callee
    return node.kind == "call" and c is not None and c.kind in ("scalar", "vector") and \
        c.scalar in ("i32", "u32") and len(node.children) == 1


def _unsigned(t: WgslType | None) -> bool:
    return t is not None and t.width > 0 and t.scalar == "u32"


def _not_unsigned(t: WgslType | None) -> bool:
    """Whether an operation with an operand of type ``t`` cannot be unsigned (WGSL's operands
    share their component type; an abstract integer could become u32)."""
    return t is not None and t.scalar in ("f32", "f16", "i32", "bool", "abstract-float")


def _calls(node: Node) -> bool:
    """Whether evaluating ``node`` calls a function (a constructor calls none)."""
    if node.kind == "call" and node.callee is None:
        return True
    return any(_calls(c) for c in node.children)


class _Rewriter:
    def __init__(self, code: str):
        self.code = code
        # by id(node), holding the node: an id is unique only while its object lives
        self.actions: dict[int, tuple[Node, tuple]] = {}
        self.dirty: dict[int, Node] = {}
        self.used: dict[tuple[str, int], None] = {}
        self.left: list[str] = []

    def line(self, node: Node) -> int:
        return self.code.count("\n", 0, node.start) + 1

    def leave(self, node: Node, why: str) -> None:
        text = self.code[node.start:node.end]
        text = text if len(text) <= 60 else text[:57] + "..."
        self.left.append(f"line {self.line(node)}: {text}: {why}")

    def action(self, node: Node) -> tuple | None:
        if _is_conversion(node):
            assert node.callee is not None
            arg = node.children[0].type
            if arg is None:
                self.leave(node, "the argument's type is not read")
            elif arg.is_float and arg.width == node.callee.width:
                kind = "ftoi" if node.callee.scalar == "i32" else "ftou"
                return ("convert", kind, arg.width, arg.scalar == "f16")
            return None
        if node.kind == "binary" and node.op in ("/", "%"):
            a, b = (c.type for c in node.children)
            if node.type is None and (a is None or b is None) and not _not_unsigned(a or b):
                self.leave(node, "an operand's type is not read")
            elif _unsigned(node.type):
                assert node.type is not None and a is not None and b is not None
                n = node.type.width
                return ("divide", "udiv" if node.op == "/" else "umod", n,
                        a.width < n, b.width < n)
            return None
        if node.kind == "assign" and node.op in ("/=", "%="):
            lhs, rhs = node.children
            t = lhs.type
            if (t is None or rhs.type is None) and not _not_unsigned(t or rhs.type):
                self.leave(node, "an operand's type is not read")
            elif _unsigned(t) and rhs.type is not None:
                assert t is not None
                if _calls(lhs):
                    self.leave(node, "its left side calls a function")
                    return None
                return ("compound", "udiv" if node.op == "/=" else "umod", t.width,
                        False, rhs.type.width < t.width)
        return None

    def visit(self, node: Node) -> bool:
        dirty = False
        for c in node.children:
            dirty = self.visit(c) or dirty
        act = self.action(node)
        if act is not None:
            self.actions[id(node)] = (node, act)
            self.used[(act[1], act[2])] = None
            dirty = True
        if dirty:
            self.dirty[id(node)] = node
        return dirty

    def render(self, node: Node) -> str:
        code = self.code
        if id(node) not in self.dirty:
            return code[node.start:node.end]
        act = self.actions.get(id(node), (node, None))[1]
        if act is None:
            out, pos = [], node.start
            for c in node.children:
                out += [code[pos:c.start], self.render(c)]
                pos = c.end
            out.append(code[pos:node.end])
            return "".join(out)
        what, kind, n = act[:3]
        name = _name(kind, n)
        if what == "convert":
            arg = node.children[0]
            inner = self.render(arg)
            if act[3]:  # f16: every value is an f32 exactly
                inner = f"{_vec(n, 'f32')}({inner})"
            return f"{name}{code[node.op_end:arg.start]}{inner}{code[arg.end:node.end]}"
        splat_a, splat_b = act[3:]
        a, b = node.children
        ra, rb = self.render(a), self.render(b)
        rb_ = _splat(n, "u32", rb) if splat_b else rb
        if what == "divide":
            ra_ = _splat(n, "u32", ra) if splat_a else ra
            before, after = _gap(code[a.end:node.op_start]), _gap(code[node.op_end:b.start])
            return f"{name}({ra_}{before},{after or ' '}{rb_})"
        return f"{ra} = {name}({ra}, {rb_})"


def _gap(text: str) -> str:
    """The text around an operator, kept where it holds a line break (naga's line numbers)."""
    return text if "\n" in text else ""


def _candidate(text: str, comments: bool) -> bool:
    return comments or bool(_CONVERSION_RE.search(text) or _DIVISION_RE.search(text))


def rewrite(code: str) -> Rewritten:
    """``code`` (WGSL Slang emitted) with every float-to-integer conversion and unsigned
    division or remainder of its function bodies computing D3D's value (see the module)."""
    comments = "/*" in code  # a comment could hide an operator from the filters: read all
    if not _candidate(code, comments):
        return Rewritten(code)
    r = _Rewriter(code)
    try:
        tokens = Tokens(code)
        module = read(tokens)
    except Unreadable as e:
        return Rewritten(code, (), (f"the module is not read: {e}",))
    for node in module.initializers:  # module scope: no call allowed, WGSL's value stays
        probe = _Rewriter(code)
        if probe.visit(node) or probe.left:
            r.left.append(f"line {r.line(node)}: a conversion or division at module scope")
    edits: list[tuple[int, int, str]] = []
    for function in module.functions.values():
        first, last = function.body
        start, end = tokens.start[first], tokens.end[last]
        if not _candidate(code[start:end], comments):
            continue
        try:
            roots = function_expressions(tokens, module, function)
        except Unreadable as e:
            r.left.append(f"function {function.name} is not read: {e}")
            continue
        for root in roots:
            if r.visit(root):
                edits.append((root.start, root.end, r.render(root)))
    if not edits:
        return Rewritten(code, (), tuple(r.left))
    names = [_name(kind, n) for kind, n in r.used]
    clash = next((n for n in names if _PREFIX in code and re.search(rf"\b{n}\b", code)), None)
    if clash is not None:  # Slang suffixes every name it emits: cannot happen, but never mix
        return Rewritten(code, (), (*r.left, f"the module already names {clash}"))
    out, pos = [], 0
    for start, end, text in sorted(edits):
        out += [code[pos:start], text]
        pos = end
    out.append(code[pos:])
    helpers = "".join(helper(kind, n) for kind, n in sorted(r.used))
    tail = "" if out[-1].endswith("\n") else "\n"
    out.append(f"{tail}\n// gpuia: D3D's float-to-integer conversion (ftoi, ftou) and unsigned "
               f"division (udiv), rules 12.1 and 12.2\n{helpers}")
    return Rewritten("".join(out), tuple(f"{kind}{n}" for kind, n in sorted(r.used)),
                     tuple(r.left))
