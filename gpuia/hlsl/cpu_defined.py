"""D3D's values where C++ leaves the result undefined: the C++ the CPU reference builds.

Slang turns HLSL's integer division, remainder and shifts into C++'s ``/``, ``%``, ``<<`` and
``>>``, float-to-integer conversions into C++ casts, and subscripts into its prelude's
``operator[]``; C++ leaves their edge cases undefined (a division by zero traps on x86, a cast of
1e30 gives 0x80000000) where D3D defines a value. :func:`prepare` makes Slang's C++ output
compute D3D's values instead:

- every operation of :data:`OPERATORS` and every conversion of :data:`CONVERSIONS` in the code
  Slang generated (not its prelude) becomes a call of a function of ``cpu_defined.cpp``, whose
  overloads pick the operand types (float operations stay IEEE); the operands are found by C++'s
  precedence over the token stream, relying on what Slang's C-like emitter guarantees: binary
  operators are written with a space on each side, a template's ``<`` right after its name;
- Slang's prelude is patched where its own conversions and subscripts are undefined
  (:data:`PRELUDE_PATCHES`, each matched exactly as many times as Slang 2026.12's prelude has
  it);
- ``cpu_defined.cpp`` goes first, with what D3D leaves undefined recorded at run time
  (:data:`UNDEFINED`): the run is then an error naming the construct, not a value.

Guaranteed: the result compiles to D3D's value for every case D3D defines, or :func:`prepare`
raises :class:`~gpuia.errors.UnsupportedError` naming what it could not read (another Slang's
prelude, an expression form this reader does not know); never a silent C++ operation.
The compiler flags that complete it (``-fwrapv``, ``-fno-finite-loops``) are in
``gpuia.hlsl.cpu.CXX_FLAGS``. The rules and their sources: docs/rules.md section 12.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UnsupportedError
from ..util.resources import shader_text

__all__ = ["OPERATORS", "CONVERSIONS", "PRELUDE_PATCHES", "UNDEFINED", "prepare",
           "prepare_parts", "undefined_reasons"]

OPERATORS: dict[str, tuple[str, str]] = {
    "/": ("gpuia_div", "uint x/0 = 0xFFFFFFFF (udiv, D3D11.3 22.12.9); int x/0 and "
                       "INT_MIN/-1 undefined (rules 12.2)"),
    "%": ("gpuia_rem", "uint x%0 = 0xFFFFFFFF (udiv, 22.12.9); int x%0 and INT_MIN%-1 "
                       "undefined (rules 12.2)"),
    "<<": ("gpuia_shl", "the count's low 5 bits (ishl, 22.11.7; rules 12.3)"),
    ">>": ("gpuia_shr", "the count's low 5 bits, arithmetic for int (ishr/ushr, 22.11.8, "
                        "22.11.12; rules 12.3)"),
}
"""C++ binary operator -> (the function of ``cpu_defined.cpp`` it becomes, D3D's rule)."""

CONVERSIONS: dict[str, str] = {"int32_t": "gpuia_to_i32", "int": "gpuia_to_i32",
                               "uint32_t": "gpuia_to_u32", "uint": "gpuia_to_u32"}
"""A cast to these types, written ``T(x)`` or ``(T)x``, becomes the function: from a float,
D3D's ftoi/ftou (truncate, saturate, NaN -> 0; D3D11.3 22.13.3-4; rules 12.1)."""

_SUBSCRIPT_CHECK = ("if (__builtin_expect((index) >= sizeof(*this) / sizeof(T), 0)) "
                    "return gpuia_out_of_range<T>(); ")


@dataclass(frozen=True)
class _Patch:
    pattern: str
    replacement: str
    count: int  # how often Slang 2026.12's prelude has it
    why: str


PRELUDE_PATCHES: tuple[_Patch, ...] = (
    _Patch(r"\(T\)(\w+(?:\.\w+|\[\w+\])*)", r"gpuia_convert<T>(\1)", 12,
           "Vector's and Matrix's converting constructors and _slang_vector_reshape cast each "
           "component with (T): a float becomes an integer as ftoi/ftou do (rules 12.1)"),
    _Patch(r"(?m)^(\s*(?:const )?T& operator\[\]\(size_t )(?:/\*index\*/|index)(\)(?: const)? "
           r"\{ )", r"\1index\2" + _SUBSCRIPT_CHECK.replace("\\", "\\\\"), 8,
           "Vector<T, N>::operator[] reads past the vector (or returns y, or x) for an index "
           "out of range: recorded instead (rules 12.4)"),
    _Patch(r"Vector<T, COLS> rows\[ROWS\];", "FixedArray<Vector<T, COLS>, ROWS> rows;", 1,
           "Matrix's rows are a bare C array, which Slang's C++ also subscripts directly "
           "(m.rows[i]): a FixedArray, same layout, checks the row (rules 12.4)"),
    _Patch(r"return ::roundf\(f\);", "return __builtin_roundevenf(f);", 1,
           "round() rounds halves to even in HLSL (round_ne), roundf away from zero "
           "(rules 12.6)"),
)
"""Slang's prelude, patched: each pattern must match exactly ``count`` times."""

UNDEFINED: dict[int, str] = {
    1: "a signed integer division or remainder by zero, or INT_MIN / -1, whose result D3D "
       "leaves undefined (rules 12.2)",
    2: "an array, vector or matrix subscript out of its range, which D3D leaves undefined for "
       "a local array and which reads another register of a constant buffer (rules 12.4)",
}
"""The bits ``cpu_defined.cpp`` records (``gpuia_undefined``) -> what happened."""

_PRELUDE_END = "#ifdef SLANG_PRELUDE_NAMESPACE\nusing namespace SLANG_PRELUDE_NAMESPACE;\n#endif\n"


def undefined_reasons(bits: int) -> list[str]:
    """What the recorded ``bits`` say happened, one phrase per construct."""
    return [text for bit, text in UNDEFINED.items() if bits & bit]


def prepare(code: str) -> str:
    """The C++ to build from Slang's output ``code``: gpuia's functions, Slang's prelude
    patched, the generated code rewritten. UnsupportedError when either is not what gpuia
    knows how to make D3D's."""
    head, body = prepare_parts(code)
    return head + body


def prepare_parts(code: str) -> tuple[str, str]:
    """:func:`prepare`'s text in two parts: what does not depend on the shader (gpuia's
    functions and Slang's prelude, patched) and the generated code, rewritten."""
    at = code.rfind(_PRELUDE_END)
    if at < 0:
        raise UnsupportedError("Slang's C++ has no prelude gpuia knows: the CPU reference "
                               "cannot make its arithmetic D3D's (another Slang version?)")
    at += len(_PRELUDE_END)
    prelude = code[:at]
    for patch in PRELUDE_PATCHES:
        prelude, n = re.subn(patch.pattern, patch.replacement, prelude)
        if n != patch.count:
            raise UnsupportedError(f"Slang's C++ prelude is not the one gpuia knows ({n} "
                                   f"matches of {patch.pattern!r}, {patch.count} expected): "
                                   f"the CPU reference cannot make it D3D's (another Slang "
                                   f"version?)")
    return shader_text("cpu_defined.cpp") + "\n" + prelude, rewrite(code[at:])


# ---- reading Slang's generated C++ ----

_TOKEN = re.compile(r"""
    (?P<trivia>(?:\s+|//[^\n]*|/\*.*?\*/|(?<![^\n])[ \t]*\#[^\n]*)+)
  | (?P<number>(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)\w*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<op><<=|>>=|->|\+\+|--|<=|>=|==|!=|&&|\|\||::|<<|>>|[-+*/%&|^]=|[-+*/%&|^!~<>=?:.,;(){}\[\]])
""", re.X | re.S)

_BINARY = {"*": 13, "/": 13, "%": 13, "+": 12, "-": 12, "<<": 11, ">>": 11, "<": 10, "<=": 10,
           ">": 10, ">=": 10, "==": 9, "!=": 9, "&": 8, "^": 7, "|": 6, "&&": 5, "||": 4}
_PREFIX = {"-", "+", "!", "~", "*", "&", "++", "--"}
_KEYWORDS = {"return", "if", "else", "for", "while", "do", "switch", "case", "default", "break",
             "continue", "goto", "sizeof", "static", "const", "struct", "typedef", "template",
             "typename", "using", "namespace", "new", "delete", "throw", "inline"}
_COMPOUND = {"/=", "%=", "<<=", ">>="}
_CLOSE = {"(": ")", "[": "]", "{": "}", "<": ">"}


class _Unreadable(Exception):
    pass


@dataclass
class _Tok:
    kind: str  # number, ident, string, op, end
    text: str
    pre: str  # the whitespace, comments and directives before it

    def render(self) -> str:
        return self.pre + self.text


@dataclass
class _Group:
    kind: str  # ( [ { or < (a template's arguments)
    open: _Tok
    items: list
    close: _Tok

    @property
    def pre(self) -> str:
        return self.open.pre

    def render(self) -> str:
        return self.open.render() + "".join(u.render() for u in self.items) + \
            self.close.render()


@dataclass
class _Call:
    """A rewritten expression: a primary."""

    pre: str
    text: str

    def render(self) -> str:
        return self.pre + self.text


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    pre, pos = "", 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise _Unreadable(text[pos:pos + 40])
        kind, value = m.lastgroup or "", m.group()
        pos = m.end()
        if kind == "trivia":
            pre += value
            continue
        if kind == "op" and value == ">>" and not pre:
            # two templates closing (Slang writes a shift " >> ", with spaces)
            out += [_Tok("op", ">", pre), _Tok("op", ">", "")]
            pre = ""
            continue
        out.append(_Tok(kind, value, pre))
        pre = ""
    out.append(_Tok("end", "", pre))
    return out


def _tree(tokens: list[_Tok]) -> list:
    """Tokens to nested groups. A ``<`` right after a name opens a template's arguments when a
    ``>`` closes it before the statement or the enclosing bracket ends; else it is an
    operator."""
    match: dict[int, int] = {}
    stack: list[tuple[str, int]] = []
    for i, t in enumerate(tokens):
        if t.kind != "op":
            continue
        if t.text in "([{" and len(t.text) == 1:
            stack.append((t.text, i))
        elif t.text == "<" and not t.pre and i and tokens[i - 1].kind == "ident":
            stack.append(("<", i))
        elif t.text == ">" and stack and stack[-1][0] == "<":
            match[stack.pop()[1]] = i
        elif t.text in ")]}" and len(t.text) == 1:
            while stack and stack[-1][0] == "<":
                stack.pop()
            if not stack or _CLOSE[stack[-1][0]] != t.text:
                raise _Unreadable(f"unbalanced {t.text!r}")
            match[stack.pop()[1]] = i
        elif t.text == ";":
            while stack and stack[-1][0] == "<":
                stack.pop()

    def build(start: int, stop: int) -> list:
        items: list = []
        i = start
        while i < stop:
            if i in match:
                end = match[i]
                items.append(_Group(tokens[i].text, tokens[i], build(i + 1, end), tokens[end]))
                i = end + 1
            else:
                items.append(tokens[i])
                i += 1
        return items

    return build(0, len(tokens))


def _is(u, *texts: str) -> bool:
    return isinstance(u, _Tok) and u.kind == "op" and u.text in texts


def _is_name(u) -> bool:
    return isinstance(u, _Tok) and u.kind == "ident" and u.text not in _KEYWORDS


def _is_operand(u) -> bool:
    """A unit an operand can end with (a name, a literal, a rewritten call, a bracket)."""
    return _is_name(u) or isinstance(u, (_Call, _Group)) or \
        (isinstance(u, _Tok) and u.kind in ("number", "string"))


def _is_type(g) -> bool:
    """A parenthesized type (a C-style cast): names, template arguments, * & ::."""
    return isinstance(g, _Group) and g.kind == "(" and any(_is_name(u) for u in g.items) and \
        all(_is_name(u) or (isinstance(u, _Tok) and u.text == "const") or
            (isinstance(u, _Group) and u.kind == "<") or _is(u, "*", "&", "::")
            for u in g.items)


def _unary_position(items: list, i: int) -> bool:
    """Whether the unit at ``i`` starts an operand (nothing that ends one precedes it)."""
    if i == 0:
        return True
    before = items[i - 1]
    if _is_type(before):  # (A)(B)x: both casts
        return _unary_position(items, i - 1)
    return not _is_operand(before) or (isinstance(before, _Group) and before.kind == "{")


def _unary_end(items: list, i: int) -> int:
    """The last unit of the unary expression starting at ``i``."""
    n = len(items)
    while i < n and ((_is(items[i], *_PREFIX)) or
                     (_is_type(items[i]) and i + 1 < n and
                      (_is_operand(items[i + 1]) and not _is(items[i + 1], *_PREFIX)))):
        i += 1
    if i >= n or not _is_operand(items[i]):
        raise _Unreadable("an operand")
    i += 1
    while i < n:
        u = items[i]
        if isinstance(u, _Group) and u.kind in "([<":
            i += 1
        elif isinstance(u, _Group) and u.kind == "{" and isinstance(items[i - 1], _Group) and \
                items[i - 1].kind == "<":
            i += 1  # Vector<int32_t, 2> {...}
        elif _is(u, ".", "->", "::") and i + 1 < n and _is_name(items[i + 1]):
            i += 2
        else:
            break
    return i - 1


def _unary_start(items: list, j: int) -> int:
    """The first unit of the unary expression ending at ``j``."""
    while True:
        u = items[j]
        if isinstance(u, _Group) and u.kind in "([<" and j > 0 and _is_operand(items[j - 1]) \
                and not (isinstance(items[j - 1], _Group) and items[j - 1].kind == "{"):
            j -= 1  # a call, subscript or template arguments of what precedes
        elif isinstance(u, _Group) and u.kind == "{" and j > 0 and \
                isinstance(items[j - 1], _Group) and items[j - 1].kind == "<":
            j -= 1
        elif _is_operand(u) and not (isinstance(u, _Group) and u.kind == "{"):
            if j > 1 and _is(items[j - 1], ".", "->", "::"):
                j -= 2
            else:
                break
        else:
            raise _Unreadable("an operand")
    while j > 0 and (_is(items[j - 1], *_PREFIX) or _is_type(items[j - 1])) and \
            _unary_position(items, j - 1):
        j -= 1
    return j


def _rewrite_items(items: list) -> list:
    for u in items:
        if isinstance(u, _Group):
            u.items = _rewrite_items(u.items)
    for u in items:
        if _is(u, *_COMPOUND):
            raise _Unreadable(f"a compound assignment {u.text}")
    # conversions: T(x), then (T)x from the right (an inner cast first)
    for i, u in enumerate(items):
        nxt = items[i + 1] if i + 1 < len(items) else None
        if isinstance(u, _Tok) and u.kind == "ident" and u.text in CONVERSIONS and \
                isinstance(nxt, _Group) and nxt.kind == "(" and \
                not (len(nxt.items) == 1 and getattr(nxt.items[0], "kind", "") == "number"):
            items[i] = _Tok("ident", CONVERSIONS[u.text], u.pre)
    for i in range(len(items) - 2, -1, -1):
        u, nxt = items[i], items[i + 1]
        if isinstance(u, _Group) and u.kind == "(" and len(u.items) == 1 and \
                isinstance(u.items[0], _Tok) and u.items[0].text in CONVERSIONS and \
                _unary_position(items, i) and (_is_operand(nxt) or _is(nxt, *_PREFIX)):
            end = _unary_end(items, i + 1)
            text = "".join(v.render() for v in items[i + 1:end + 1])
            items[i:end + 1] = [_Call(u.pre, f"{CONVERSIONS[u.items[0].text]}({text})")]
    # binary operators, tighter ones first, each level left to right
    for level in (("/", "%"), ("<<", ">>")):
        while True:
            k = next((k for k, u in enumerate(items) if _is(u, *level)), None)
            if k is None:
                break
            prec = _BINARY[items[k].text]
            left = _unary_start(items, k - 1) if k else None
            if left is None:
                raise _Unreadable(f"no left operand of {items[k].text}")
            while left > 1 and isinstance(items[left - 1], _Tok) and \
                    items[left - 1].kind == "op" and _BINARY.get(items[left - 1].text, 0) >= prec:
                left = _unary_start(items, left - 2)
            right = _unary_end(items, k + 1)
            while right + 2 < len(items) and _is(items[right + 1], *_BINARY) and \
                    _BINARY[items[right + 1].text] > prec:
                right = _unary_end(items, right + 2)
            op = items[k]
            lhs = "".join(u.render() for u in items[left:k])
            rhs = "".join(u.render() for u in items[k + 1:right + 1])
            pre = items[left].pre
            call = _Call(pre, f"{OPERATORS[op.text][0]}({lhs[len(pre):]},{op.pre}{rhs})")
            items[left:right + 1] = [call]
    return items


def rewrite(code: str) -> str:
    """Slang's generated C++ (after its prelude) with every operation of :data:`OPERATORS` and
    :data:`CONVERSIONS` a call of gpuia's functions. UnsupportedError naming what it could not
    read."""
    try:
        return "".join(u.render() for u in _rewrite_items(_tree(_tokens(code))))
    except _Unreadable as e:
        raise UnsupportedError(f"the CPU reference cannot make this shader's C++ compute D3D's "
                               f"values: gpuia does not read {e} in the code Slang generated"
                               ) from None
    except RecursionError:  # the groups are read recursively, one level per bracket
        raise UnsupportedError("the CPU reference cannot make this shader's C++ compute D3D's "
                               "values: the code Slang generated nests brackets deeper than "
                               "gpuia reads") from None
