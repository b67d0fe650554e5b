"""Bounds on a WGSL shader, checked before any of it reaches wgpu.

naga and the driver behind it have no limits of their own that fail cleanly: a shader with a
large array in private or function memory makes llvmpipe's compiler take seconds to minutes
(measured: an ``array<f32, 16384>`` took 31 s to build a pipeline, ``array<f32, 65536>`` more
than two minutes; huge ones exhaust memory or crash the process), and wgpu-py cannot interrupt
it. So gpuia reads the shader text first and refuses, with an :class:`InvalidDescError`:

* a source of more than :data:`MAX_SOURCE_BYTES` bytes (UTF-8);
* a NUL character or a lone surrogate (wgpu passes the source as a NUL-terminated UTF-8 C
  string: a NUL would silently end the shader there);
* more than :data:`MAX_ARRAY_BYTES` bytes of arrays per invocation, summed over every
  declaration that holds its value in private, function or workgroup memory: ``var<private>``,
  ``var<workgroup>``, function-scope ``var``/``let``/``const``, module-scope ``const``, function
  parameters and return values, and array or struct constructors outside a declaration. A
  declaration counts the bytes of the arrays in its type (an array's WGSL ``SizeOf``, arrays
  nested in structs included); without a type, those of the value it copies or constructs.
  What the compiler keeps in registers (scalars, vectors, matrices, structs without arrays) is
  not counted, and neither is anything in ``var<uniform>`` or ``var<storage>`` buffers;
* an array whose element count it cannot evaluate: sizes may be integer literals, ``const``
  names, ``+ - * / % << >> & | ^ ~``, parentheses, ``u32(...)``, ``i32(...)``, ``min`` and
  ``max``; an ``override`` or any other expression could be arbitrarily large.

The accounting is conservative where it is not exact: every function's declarations are added
up, as if all were live at once.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InvalidDescError

__all__ = ["MAX_SOURCE_BYTES", "MAX_ARRAY_BYTES", "check_shader_bounds", "array_memory",
           "blank_comments", "type_args", "split_top_level", "matching_bracket", "ModuleTypes",
           "ArrayUse"]

MAX_SOURCE_BYTES = 1 << 20
"""Largest WGSL source gpuia hands to wgpu (1 MiB of UTF-8)."""

MAX_ARRAY_BYTES = 4096
"""Most bytes of arrays one shader invocation may hold in private, function or workgroup memory.
Measured on gpuia's 2-core CI machine (min of 3), an ``array<f32, 1024>`` indexed dynamically
(the costliest shape per byte: llvmpipe's cost grows with the element count) takes lavapipe's
``create_render_pipeline`` 0.41 s, against 0.21 s with no array; 4 times as much takes 2.6 s,
16 times 31 s (docs/gpu.md, "WGSL shaders: limits and diagnostics")."""

_LINE_BREAKS = "\n\v\f\r\x85\u2028\u2029"
_HUGE = 1 << 80  # stands for "larger than any limit" (shifts past 64 bits and the like)


def blank_comments(source: str) -> str:
    """``source`` with every comment replaced by spaces (line breaks kept), so offsets, lines
    and columns stay the source's. Block comments nest, as in WGSL; a line comment ends at any
    WGSL line break."""
    out, i, n = [], 0, len(source)
    while i < n:
        m = _COMMENT_START_RE.search(source, i)
        if m is None:
            break
        out.append(source[i:m.start()])
        if m.group() == "//":
            brk = _LINE_BREAK_RE.search(source, m.start())
            end = brk.start() if brk else n
        else:
            depth, end = 0, n
            for t in _BLOCK_RE.finditer(source, m.start()):
                depth += 1 if t.group() == "/*" else -1
                if depth == 0:
                    end = t.end()
                    break
        out.append(_blank(source[m.start():end]))
        i = end
    out.append(source[i:])
    return "".join(out)


def _blank(text: str) -> str:
    return re.sub(f"[^{_LINE_BREAKS}]", " ", text)


_COMMENT_START_RE = re.compile(r"//|/\*")
_BLOCK_RE = re.compile(r"/\*|\*/")
_LINE_BREAK_RE = re.compile(f"[{_LINE_BREAKS}]")


class _Unbounded(Exception):
    """An array size this reader cannot evaluate (the message says what it met)."""


# -- template lists and types ----------------------------------------------------------------
def _template_end(text: str, start: int) -> int:
    """Index just past the ``>`` closing the template list opened by ``text[start] == '<'``
    (WGSL's template list discovery, simplified: inside parentheses or brackets ``<`` and ``>``
    are operators; ``<<``, ``<=`` and ``>=`` are operators); -1 when it does not close."""
    angle, paren, i, n = 0, 0, start, len(text)
    while i < n:
        c = text[i]
        if c in "([":
            paren += 1
        elif c in ")]":
            paren -= 1
            if paren < 0:
                return -1
        elif paren == 0 and c == "<":
            if text.startswith("<<", i) or text.startswith("<=", i):
                i += 2
                continue
            angle += 1
        elif paren == 0 and c == ">":
            if text.startswith(">=", i):
                i += 2
                continue
            angle -= 1
            if angle == 0:
                return i + 1
        elif c in ";{}":
            return -1
        i += 1
    return -1


def _split_args(text: str) -> list[str]:
    """Comma-separated template arguments (``text`` between the brackets), nesting aware."""
    out, angle, paren, start = [], 0, 0, 0
    i = 0
    while i < len(text):
        c = text[i]
        if c in "([":
            paren += 1
        elif c in ")]":
            paren -= 1
        elif paren == 0 and c == "<" and not text.startswith(("<<", "<="), i):
            angle += 1
        elif paren == 0 and c == ">" and not text.startswith(">=", i):
            angle -= 1
        elif paren == 0 and text.startswith(("<<", ">>", "<=", ">="), i):
            i += 2
            continue
        elif c == "," and angle == 0 and paren == 0:
            out.append(text[start:i])
            start = i + 1
        i += 1
    out.append(text[start:])
    return [a.strip() for a in out if a.strip()]


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """``text`` split at the ``sep`` characters outside parentheses and angle brackets (struct
    members such as ``@interpolate(linear, centroid) A: f32`` or ``array<f32, 4>``, parameter
    lists)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


_IDENT_RE = re.compile(r"\s*([^\W\d]\w*)\s*", re.U)


def type_args(text: str) -> tuple[str, list[str]] | None:
    """``("array", ["f32", "4"])`` for ``array<f32, 4>``, ``("S", [])`` for ``S``; None when
    ``text`` is not one type."""
    m = _IDENT_RE.match(text)
    if m is None:
        return None
    rest = text[m.end():]
    if not rest:
        return m.group(1), []
    if not rest.startswith("<"):
        return None
    end = _template_end(rest, 0)
    if end < 0 or rest[end:].strip():
        return None
    return m.group(1), _split_args(rest[1:end - 1])


_MEMBER_RE = re.compile(r"\s*((?:@\s*\w+\s*(?:\([^)]*\))?\s*)*)(\w+)\s*:\s*(.+?)\s*$", re.S)
_SCALARS = {"f32": 4, "i32": 4, "u32": 4, "f16": 2, "bool": 4}
_SHORT = {"f": "f32", "i": "i32", "u": "u32", "h": "f16"}
_VEC_RE = re.compile(r"vec([234])([fiuh]?)")
_MAT_RE = re.compile(r"mat([234])x([234])([fh]?)")


@dataclass(frozen=True)
class _Layout:
    size: int
    align: int
    array_bytes: int  # bytes of arrays in the type (itself, or nested in struct members)


class ModuleTypes:
    """SizeOf / AlignOf of the WGSL types of one module (comments blanked): its structs
    (``structs``: name -> [(attributes, member, type)]), aliases (``aliases``: name -> type),
    consts and overrides. :meth:`evaluate` gives an integer const-expression's value and
    :meth:`layout` a type's size, alignment and array bytes; an expression this reader cannot
    bound raises there, which :func:`check_shader_bounds` turns into its refusal."""

    def __init__(self, code: str):
        self.structs: dict[str, list[tuple[str, str, str]]] = {}  # (attributes, name, type)
        for m in re.finditer(r"\bstruct\s+(\w+)\s*\{([^{}]*)\}", code):
            rows = []
            for raw in _split_args(m.group(2)):
                mm = _MEMBER_RE.match(raw)
                if mm:
                    rows.append((mm.group(1), mm.group(2), mm.group(3)))
            self.structs[m.group(1)] = rows
        self.aliases = {m.group(1): m.group(2).strip()
                        for m in re.finditer(r"\balias\s+(\w+)\s*=\s*([^;]+);", code)}
        self.consts: dict[str, list[str]] = {}
        for m in re.finditer(r"\bconst\s+(\w+)\s*(?::[^=;]*)?=\s*([^;]+);", code):
            self.consts.setdefault(m.group(1), []).append(m.group(2))
        self.overrides = set(re.findall(r"\boverride\s+(\w+)", code))
        self._cache: dict[str, _Layout] = {}

    # -- integer const-expressions --------------------------------------------------------
    def evaluate(self, expr: str, depth: int = 0) -> int:
        text = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[iu]\b", r"\1", expr.strip())
        text = re.sub(r"\b0+(\d)", r"\1", text)  # "010" is decimal in WGSL; Python refuses it
        try:
            tree = ast.parse(text, mode="eval")
        except (SyntaxError, ValueError):
            raise _Unbounded(
                f"'{expr.strip()}' is not an integer expression gpuia evaluates") from None
        return self._eval(tree.body, expr, depth)

    def _eval(self, node, expr: str, depth: int) -> int:
        if depth > 32:
            raise _Unbounded(f"'{expr.strip()}' nests consts too deeply")
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _clamp(_UNARY[type(node.op)](self._eval(node.operand, expr, depth)))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            a = self._eval(node.left, expr, depth)
            b = self._eval(node.right, expr, depth)
            return _clamp(_BINARY[type(node.op)](a, b))
        if isinstance(node, ast.Name):
            if node.id in self.overrides:
                raise _Unbounded(f"'{node.id}' is an override, whose value gpuia cannot bound")
            values = self.consts.get(node.id)
            if not values:
                raise _Unbounded(f"'{node.id}' is not a const gpuia can evaluate")
            return max(self.evaluate(v, depth + 1) for v in values)  # shadowed: the largest
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _CALLS and not node.keywords):
            args = [self._eval(a, expr, depth) for a in node.args]
            if len(args) in _CALLS[node.func.id][0]:
                return _clamp(_CALLS[node.func.id][1](*args))
        raise _Unbounded(f"'{expr.strip()}' is not an integer expression gpuia evaluates "
                         f"(literals, consts, + - * / % << >> & | ^ ~, u32(), i32(), min, max)")

    # -- layouts ---------------------------------------------------------------------------
    def layout(self, t: str, depth: int = 0) -> _Layout:
        t = " ".join(t.split())
        hit = self._cache.get(t)
        if hit is not None:
            return hit
        if depth > 32:
            raise _Unbounded(f"type '{t}' nests too deeply")
        lay = self._layout(t, depth)
        self._cache[t] = lay
        return lay

    def _layout(self, t: str, depth: int) -> _Layout:
        parsed = type_args(t)
        if parsed is None:
            return _Layout(0, 1, 0)  # not a type this reader knows: naga refuses it, cleanly
        name, args = parsed
        if name in self.aliases and not args:
            return self.layout(self.aliases[name], depth + 1)
        if name in _SCALARS and not args:
            return _Layout(_SCALARS[name], _SCALARS[name], 0)
        m = _VEC_RE.fullmatch(name)
        if m:
            scalar = _SHORT.get(m.group(2)) or (args[0] if args else "f32")
            s = _SCALARS.get(scalar, 4)
            n = int(m.group(1))
            return _Layout(n * s, (2 if n == 2 else 4) * s, 0)
        m = _MAT_RE.fullmatch(name)
        if m:
            c, r = int(m.group(1)), int(m.group(2))
            s = _SCALARS.get(_SHORT.get(m.group(3)) or (args[0] if args else "f32"), 4)
            align = (2 if r == 2 else 4) * s
            return _Layout(c * _up(r * s, align), align, 0)
        if name == "atomic":
            return _Layout(4, 4, 0)
        if name == "array" and args:
            inner = self.layout(args[0], depth + 1)
            if len(args) == 1:
                return _Layout(0, inner.align, 0)  # runtime-sized: storage buffers only
            count = self.evaluate(args[1])
            size = max(count, 0) * _up(inner.size, inner.align)
            return _Layout(size, inner.align, size)
        members = self.structs.get(name)
        if members is not None and not args:
            end, align, arrays = 0, 1, 0
            for attrs, _, mtype in members:
                inner = self.layout(mtype, depth + 1)
                a = re.search(r"@\s*align\s*\(\s*(\d+)\s*\)", attrs)
                z = re.search(r"@\s*size\s*\(\s*(\d+)\s*\)", attrs)
                ma = int(a.group(1)) if a else inner.align
                end = _up(end, ma) + (int(z.group(1)) if z else inner.size)
                align = max(align, ma)
                arrays += inner.array_bytes
            return _Layout(_up(end, align), align, arrays)
        return _Layout(0, 1, 0)  # ptr, textures, samplers: no memory of their own here


def _up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _clamp(x: int) -> int:
    return max(-_HUGE, min(_HUGE, x))


def _div(a: int, b: int) -> int:
    if b == 0:
        raise _Unbounded("an array size divides by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q  # WGSL truncates toward zero


def _mod(a: int, b: int) -> int:
    return a - b * _div(a, b)


def _shl(a: int, b: int) -> int:
    return _HUGE if b > 64 else a << max(b, 0)


_UNARY = {ast.USub: lambda a: -a, ast.UAdd: lambda a: a, ast.Invert: lambda a: ~a}
_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Div: _div, ast.FloorDiv: _div, ast.Mod: _mod,
           ast.LShift: _shl, ast.RShift: lambda a, b: a >> min(max(b, 0), 128),
           ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b,
           ast.BitXor: lambda a, b: a ^ b}
_CALLS: dict[str, tuple[tuple[int, ...], Callable[..., int]]] = {
    "u32": ((1,), lambda a: a), "i32": ((1,), lambda a: a),
          "min": ((2,), min), "max": ((2,), max)}


# -- what an invocation holds -----------------------------------------------------------------
@dataclass(frozen=True)
class ArrayUse:
    """One declaration (or temporary) holding arrays: how the shader says it, its line, and
    the bytes of arrays it holds."""

    what: str  # "var<private> big: array<f32, 1024>", "parameter a: T", ...
    line: int
    array_bytes: int


_DECL_RE = re.compile(r"\b(var|let|const)\b\s*(<[^<>;]*>)?\s*(\w+)\s*(?::\s*([^=;]+?))?\s*"
                      r"(?:=\s*([^;]*))?;")
_FN_RE = re.compile(r"\bfn\s+(\w+)\s*\(")
_CALL_RE = re.compile(r"\s*\(")
_ACCESS_RE = re.compile(r"\s*(\w+)\s*((?:\.\s*\w+\s*|\[[^\[\]]*\]\s*)*)$")


def _line(code: str, pos: int) -> int:
    return code.count("\n", 0, pos) + 1


def matching_bracket(code: str, start: int, open_: str, close: str) -> int:
    """Index of the ``close`` matching ``code[start] == open_`` (one of ``(``, ``{``, ``[``);
    -1 when unbalanced."""
    depth = 0
    for m in _BRACKETS_RE[open_].finditer(code, start):
        depth += 1 if m.group() == open_ else -1
        if depth == 0:
            return m.start()
    return -1


_BRACKETS_RE = {"(": re.compile(r"[()]"), "{": re.compile(r"[{}]"), "[": re.compile(r"[\[\]]")}


class _Module:
    def __init__(self, code: str):
        self.code = code
        self.types = ModuleTypes(code)
        self.functions: dict[str, str] = {}  # name -> return type ("" for none)
        self.positions: dict[str, int] = {}  # name -> offset of its ``fn``
        self.bodies: list[tuple[int, int]] = []  # function body spans
        self.params: list[tuple[str, str, int]] = []  # (name, type, position)
        self.values: dict[str, str] = {}  # declared name -> type text (for copies)
        self.sizes: dict[str, int] = {}  # declared name -> bytes of arrays counted for it
        for m in _FN_RE.finditer(code):
            close = matching_bracket(code, m.end() - 1, "(", ")")
            if close < 0:
                continue
            brace = code.find("{", close)
            if brace < 0:
                continue
            ret = re.match(r"\s*->\s*(?:@\s*\w+\s*(?:\([^)]*\))?\s*)*(.+?)\s*$",
                           code[close + 1:brace], re.S)
            self.functions[m.group(1)] = ret.group(1) if ret else ""
            self.positions[m.group(1)] = m.start()
            end = matching_bracket(code, brace, "{", "}")
            self.bodies.append((brace, end if end >= 0 else len(code)))
            for raw in _split_args(code[m.end():close]):
                pm = re.match(r"\s*(?:@\s*\w+\s*(?:\([^)]*\))?\s*)*(\w+)\s*:\s*(.+?)\s*$",
                              raw, re.S)
                if pm:
                    self.params.append((pm.group(1), pm.group(2), m.start()))
                    self.values[pm.group(1)] = pm.group(2)

    def constructors(self, text: str) -> list[tuple[str, int, int]]:
        """(type text, bytes of arrays, offset) of each composite constructor in ``text``."""
        out = []
        for m in re.finditer(r"\b(\w+)\s*(?=[<(])", text):
            name, at = m.group(1), m.end()
            if at < len(text) and text[at] == "<":
                end = _template_end(text, at)
                if end < 0:
                    continue
                t, paren = text[m.start():end], end
            else:
                t, paren = name, at
            call = _CALL_RE.match(text, paren)
            if call is None or name in self.functions:
                continue
            if name == "array" and t == "array":  # array(a, b, ...): count times element
                open_ = call.end() - 1
                close = matching_bracket(text, open_, "(", ")")
                args = _split_args(text[open_ + 1:close]) if close > 0 else []
                if args:
                    first = self.value_bytes(args[0])
                    out.append((t, len(args) * max(first, 16), m.start()))
                continue
            lay = self.types.layout(t)
            if lay.array_bytes:
                out.append((t, lay.array_bytes, m.start()))
        return out

    def value_bytes(self, expr: str) -> int:
        """Bytes of arrays in the value ``expr`` (a name, a member or element of one, a call of
        a user function, or a constructor): 0 for arithmetic, which makes no arrays."""
        expr = expr.strip()
        while expr.startswith("(") and matching_bracket(expr, 0, "(", ")") == len(expr) - 1:
            expr = expr[1:-1].strip()
        expr = expr.lstrip("*").strip()
        m = _ACCESS_RE.match(expr)
        if m and m.group(1) in self.values:
            t = self.values[m.group(1)]
            if not t:  # declared without a type: what its initializer was counted as
                return self.sizes.get(m.group(1), 0) if not m.group(2).strip() else 0
            return self._path_bytes(t, m.group(2))
        best = 0
        for _, size, _ in self.constructors(expr):
            best = max(best, size)
        for name in re.findall(r"\b(\w+)\s*\(", expr):
            if name in self.functions:
                best = max(best, self.types.layout(self.functions[name]).array_bytes)
        return best

    def _path_bytes(self, t: str, path: str) -> int:
        """Bytes of arrays of the part of a ``t`` value that ``path`` (``.m[i].n``) selects."""
        t = _pointee(t)
        for step in re.findall(r"\.\s*\w+|\[[^\[\]]*\]", path):
            parsed = type_args(" ".join(t.split()))
            while parsed and parsed[0] in self.types.aliases and not parsed[1]:
                parsed = type_args(self.types.aliases[parsed[0]])
            if parsed is None:
                return 0
            name, args = parsed
            if step.startswith("["):
                if name != "array":
                    return 0  # a vector component or matrix column: no array
                t = args[0]
            else:
                field = step[1:].strip()
                member = {n: mt for _, n, mt in self.types.structs.get(name, ())}.get(field)
                if member is None:
                    return 0  # a swizzle
                t = member
        return self.types.layout(t).array_bytes


def _pointee(t: str) -> str:
    parsed = type_args(" ".join(t.split()))
    if parsed and parsed[0] == "ptr" and len(parsed[1]) >= 2:
        return parsed[1][1]
    return t


def array_memory(source: str) -> list[ArrayUse]:
    """Every declaration or temporary of ``source`` that holds arrays in private, function or
    workgroup memory, with their bytes (see the module doc). Raises :class:`ValueError`, its
    message naming the declaration and why, for an array size it cannot evaluate."""
    code = blank_comments(source)
    mod = _Module(code)
    uses: list[ArrayUse] = []
    decls = list(_DECL_RE.finditer(code))
    for m in decls:  # first every declared type, so that copies of later names are sized too
        if m.group(4):
            mod.values[m.group(3)] = m.group(4)

    def add(what: str, pos: int, size_of) -> int:
        try:
            size = size_of()
        except _Unbounded as e:
            raise ValueError(f"line {_line(code, pos)}: {what}: {e}") from None
        if size:
            uses.append(ArrayUse(what, _line(code, pos), size))
        return size

    for name, t, pos in mod.params:
        add(f"parameter {name}: {_one_line(t)}", pos,
            lambda t=t: mod.types.layout(t).array_bytes)
    for fname, ret in mod.functions.items():
        if ret:
            add(f"the return value of {fname}: {_one_line(ret)}", mod.positions[fname],
                lambda ret=ret: mod.types.layout(ret).array_bytes)
    covered = []
    for m in decls:
        keyword, space, name, t, init = m.groups()
        space = (space or "").strip("<> ").split(",")[0].strip()
        covered.append(m.span())
        mod.values.setdefault(name, t or "")
        if space in ("uniform", "storage", "handle"):
            continue  # in a buffer, not in the invocation's memory

        def size_of(t=t, init=init):
            size = mod.types.layout(t).array_bytes if t else 0
            if init:
                size = max(size, sum(s for _, s, _ in mod.constructors(init)),
                           0 if t else mod.value_bytes(init))
            return size

        decl = f"{keyword}{'<' + space + '>' if space else ''} {name}"
        decl += f": {_one_line(t)}" if t else f" = {_one_line(init or '')[:60]}"
        mod.sizes[name] = add(decl, m.start(), size_of)
    for a, b in mod.bodies:
        try:
            found = mod.constructors(code[a:b])
        except _Unbounded as e:
            raise ValueError(f"line {_line(code, a)}: a constructor: {e}") from None
        for t, size, pos in found:
            where = a + pos
            k = bisect.bisect_right(covered, (where, len(code))) - 1
            if k < 0 or not covered[k][0] <= where < covered[k][1]:
                uses.append(ArrayUse(f"the constructor {_one_line(t)}(...)", _line(code, where),
                                     size))
    return uses


def _one_line(text: str) -> str:
    return " ".join(text.split())


_BAD_CHAR_RE = re.compile("[\0\ud800-\udfff]")


def check_shader_bounds(source: str, what: str = "vertex shader") -> None:
    """Refuse (:class:`InvalidDescError`, naming ``what``) a WGSL source gpuia will not hand to
    wgpu: over :data:`MAX_SOURCE_BYTES`, with a NUL or a lone surrogate, an array size it cannot
    evaluate, or more than :data:`MAX_ARRAY_BYTES` of arrays per invocation (module doc).
    Returns None when the source is within every bound."""
    bad = _BAD_CHAR_RE.search(source)
    if bad:
        line = source.count("\n", 0, bad.start()) + 1
        raise InvalidDescError(what, "wgsl", f"U+{ord(bad.group()):04X} at line {line}",
                               "a WGSL source cannot hold a NUL or a lone surrogate "
                               "(wgpu passes it as NUL-terminated UTF-8)")
    size = len(source.encode("utf-8"))
    if size > MAX_SOURCE_BYTES:
        raise InvalidDescError(what, "wgsl", f"{size} bytes",
                               f"a WGSL source is at most {MAX_SOURCE_BYTES} bytes "
                               f"(gpuia.wgsl.bounds.MAX_SOURCE_BYTES)")
    try:
        uses = array_memory(source)
    except ValueError as e:
        raise InvalidDescError(what, None, None,
                               f"{e}; gpuia bounds every array before compiling, as larger "
                               f"ones take llvmpipe minutes (gpuia.wgsl.bounds)") from None
    total = sum(u.array_bytes for u in uses)
    if total > MAX_ARRAY_BYTES:
        big = max(uses, key=lambda u: u.array_bytes)
        others = f" ({len(uses)} declarations)" if len(uses) > 1 else ""
        raise InvalidDescError(
            f"{what} (line {big.line})", None, None,
            f"{big.what} holds {big.array_bytes} bytes of arrays; the shader's arrays in private "
            f"and function memory add up to {total} bytes per invocation{others}, over gpuia's "
            f"limit of {MAX_ARRAY_BYTES} bytes (gpuia.wgsl.bounds.MAX_ARRAY_BYTES: larger arrays "
            f"take llvmpipe seconds to minutes to compile)")
