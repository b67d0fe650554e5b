"""Slang's ways out of a shader, refused before anything is compiled, built or run.

gpuia compiles a case's HLSL with Slang, and its CPU reference builds the C++ that Slang emits
with g++ and runs it on this machine, as the user who runs the case. Slang's language is larger
than HLSL: it can paste text into the code it emits (C++ for the CPU reference), pick code per
target, call native functions, load modules from disk and compute with raw pointers. In a case
file, any of these is code its author runs on the machine of whoever runs the case.

Guaranteed: :func:`refuse_escapes` reads what Slang's parser reads, the token stream of Slang's
own preprocessor (its ``-E``, :data:`gpuia.hlsl.library.PREPROCESS`: every ``#define``, every
``#include``d file and every ``##`` paste already applied), and raises one
:class:`~gpuia.errors.InvalidDescError` naming the first construct of :data:`REFUSED` it finds
and where it is spelled (``file:line``, or the define, or the ``##`` that built it), before
Slang compiles anything. gpuia runs it in :func:`gpuia.hlsl.compile_shader` (so ``gpuia
validate`` refuses too) and again on the exact text of a CPU build before Slang emits its C++.

How each construct is matched (the ``match`` column of :data:`REFUSED`):

* ``name``: an identifier token spelled so; also a name Slang builds from ``a::b`` attribute
  names (``[::_x]`` is ``__x``, ``[vk::spirv_instruction]`` is ``vk_spirv_instruction``), and,
  as a margin, an identifier inside a string or character literal;
* ``prefix``: an identifier starting so (``__``: every compiler-internal name of Slang's);
* ``declaration``: the keyword followed by a name or a string (``import m;``), so a variable
  named ``module`` stays;
* ``call``: the name followed by ``(`` (``[COM("...")]``), so a variable named ``COM`` stays;
* ``pointer type``: ``*`` after a built-in or declared type name (a type parameter of a
  template or of a generic struct or function, within it) or a closing ``>``, ``*`` before
  ``)``, ``>``, ``,``, ``]``, ``*``, ``;`` or ``const``, and ``Name * name`` followed by
  ``=``, ``;``, ``,``, ``[`` or ``:`` where a statement starts;
* ``address of`` / ``dereference``: ``&`` / ``*`` as a prefix operator (after an operator, an
  opening bracket, ``return``, or a cast to a type name).

Not refused (Slang's or HLSL's ordinary language): ``#include`` (its text is checked like the
source's), ``extern``/``export``, generics, interfaces, ``class`` and ``new``, ``String``.
``printf`` is not listed: Slang's WGSL target refuses it, and every shader is compiled for WGSL
before a CPU build. The sources the table cites are Slang's (shader-slang/slang v2026.12, the
build in slangpy 0.43.1): ``source/slang/slang-parser.cpp`` (the keyword table
``g_parseSyntaxEntries``, the statement keywords, ``parseAttributeName``),
``source/slang/core.meta.slang`` and ``source/slang/hlsl.meta.slang`` (the core module), and
Slang's user guide (its chapters "Interoperation", "Modules and Access Control" and "Convenience
Features") and its notes on the CPU target (Slang's Markdown files ``a1-04-interop``,
``04-modules-and-access-control``, ``03-convenience-features`` and ``cpu-target``). What still
runs on the host and how it is contained: docs/hlsl.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import GpuiaError, InvalidDescError
from . import includes, library

__all__ = ["Refused", "REFUSED", "refuse_escapes", "refuse_escapes_in", "first_escape",
           "preprocess", "tokens"]


@dataclass(frozen=True)
class Refused:
    """One construct gpuia refuses: how it is matched, why, and where Slang defines it."""

    spelling: str
    match: str  # name, prefix, declaration, call, pointer type, address of, dereference
    why: str
    source: str


_PARSER = "slang-parser.cpp"
_CORE = "core.meta.slang"
_HLSL = "hlsl.meta.slang"
# Slang's user guide chapters and CPU-target notes, by their file names in Slang's docs/
_INTEROP = "Slang user guide, a1-04-interop"
_MODULES = "Slang user guide, 04-modules-and-access-control"
_POINTERS = "Slang user guide, 03-convenience-features (Pointers)"
_CPU = "Slang docs, cpu-target"
_BINDINGS = "host-side bindings for PyTorch or CUDA: code for the host, not a shader"


def _names(spellings: str, why: str, source: str, match: str = "name") -> tuple[Refused, ...]:
    return tuple(Refused(s, match, why, source) for s in spellings.split())


REFUSED: tuple[Refused, ...] = (
    # Text pasted into the generated C++ (which g++ builds and the CPU reference runs).
    Refused("__intrinsic_asm", "name", "a function body in the target's own language: Slang "
            "pastes the text into the C++ gpuia builds and runs", f"{_INTEROP}; {_PARSER}"),
    Refused("__requirePrelude", "name", "pastes text at the top of the generated C++ (an "
            "#include, a static initialiser that runs before anything else)",
            f"{_INTEROP}; {_CORE}"),
    Refused("RequirePrelude", "name", "[RequirePrelude(cpp, \"...\")] on a type pastes text "
            "into the generated C++", _CORE),
    Refused("__target_intrinsic", "name", "spells a declaration as target text",
            f"{_INTEROP}; {_PARSER}"),
    Refused("__target_switch", "name", "code per target: a 'case cpp:' branch is compiled "
            "only into the CPU reference's C++", f"{_INTEROP}; {_PARSER}"),
    Refused("__stage_switch", "name", "code per stage, Slang's internal switch", _PARSER),
    Refused("spirv_asm", "name", "inline SPIR-V assembly, pasted into the target code",
            _INTEROP),
    Refused("vk_spirv_instruction", "name", "[[vk::spirv_instruction(op)]] makes a function "
            "a raw SPIR-V instruction", _CORE),
    Refused("require", "name", "[require(...)] picks code by target: the CPU build could "
            "compile code the WGSL compile never saw", f"{_CORE}; {_PARSER}"),
    Refused("syntax", "declaration", "declares a keyword for any of Slang's syntax classes "
            "(a plain name for __extern_cpp, say)", f"{_PARSER}; {_CORE}"),
    Refused("attribute_syntax", "name", "declares an attribute for any of Slang's attribute "
            "classes (RequirePrelude under another name, say)", f"{_PARSER}; {_CORE}"),
    # Native code of the host.
    Refused("__extern_cpp", "name", "names a C or C++ function or global of the host by its "
            "own name (any function of the C library)", f"{_CORE}; {_CPU}"),
    Refused("__global", "name", "a global of the host program", f"{_PARSER}; {_CPU}"),
    Refused("DllImport", "name", "loads a shared library when the shader runs (running its "
            "initialisers) and calls into it", _CORE),
    Refused("DllExport", "name", "exports a function of the built program to the host", _CORE),
    *_names("TorchEntryPoint CudaDeviceExport CudaHost CudaKernel CUDADeviceExport CUDAHost "
            "CUDAKernel AutoPyBindCUDA PyExport", _BINDINGS, _CORE),
    Refused("COM", "call", "[COM(guid)] interfaces call into the host application's objects",
            f"{_CORE}; {_CPU}"),
    Refused("createDynamicObject", "name", "an interface object of a type id the shader "
            "chooses: a call through a table Slang does not bound", _CORE),
    # Code from other files than the source and its #includes.
    Refused("import", "declaration", "loads a Slang module from disk: its code is not in what "
            "gpuia checks", f"{_MODULES}; {_PARSER}"),
    Refused("__include", "name", "pulls a file into the module (not the preprocessor's "
            "#include): its text is not in what gpuia checks", f"{_MODULES}; {_PARSER}"),
    Refused("implementing", "declaration", "makes the file part of another Slang module",
            f"{_MODULES}; {_PARSER}"),
    Refused("module", "declaration", "declares a Slang module, which __include assembles from "
            "other files", f"{_MODULES}; {_PARSER}"),
    # Raw memory: on the CPU, a pointer reads and writes any address of the process.
    *_names("Ptr ImmutablePtr LayoutPtr NodePayloadPtr", "a pointer type: on the CPU it reads "
            "and writes any address", f"{_CORE}; {_HLSL}; {_POINTERS}"),
    *_names("BufferPointer ConstBufferPointer", "a pointer made from a 64-bit integer "
            "(vk::BufferPointer)", _HLSL),
    Refused("GetBufferPointer", "name", "a buffer's address as a pointer", _HLSL),
    *_names("NativeRef NativeString", "a C pointer (NativeString is a const char*)",
            f"{_CORE}; {_CPU}"),
    *_names("nullptr NullPtr", "the null pointer: pointers are refused", _CORE),
    *_names("bit_cast reinterpret", "reinterprets the bits of any type: an integer becomes a "
            "pointer or an interface's dispatch table", f"{_CORE}; {_POINTERS}"),
    Refused("functype", "name", "a function type: a call through a function pointer",
            _PARSER),
    Refused("__getAddress", "name", "the address of a variable", _PARSER),
    Refused("*", "pointer type", "declares a pointer (T* is Slang's Ptr<T>): on the CPU it "
            "reads and writes any address", f"{_CORE}; {_POINTERS}"),
    Refused("&", "address of", "the address of a variable (Slang's prefix operator&): a "
            "pointer", f"{_CORE}; {_POINTERS}"),
    Refused("*", "dereference", "reads or writes memory through a pointer (Slang's prefix "
            "operator*)", f"{_CORE}; {_POINTERS}"),
    # Everything else Slang keeps for itself.
    Refused("__", "prefix", "an identifier starting with '__': Slang's compiler-internal names "
            "(intrinsic ops and types, target-specific modifiers, raw memory access, host "
            "code), which C and C++ reserve as well", f"{_PARSER}; {_CORE}"),
)
"""Every construct gpuia refuses, first match first (specific names before the ``__``
catch-all, so a refusal names the construct)."""


# -- tokens -------------------------------------------------------------------------------------
# Slang's lexer (source/compiler-core/slang-lexer.cpp): identifiers are ASCII letters, digits,
# '_' and any non-ASCII code point; R"delim(...)delim" is a raw string; '\' escapes one
# character in a string. A line continuation is removed before tokens are formed. (Written as
# "anything but the other ASCII characters": a class spanning U+0080..U+10FFFF costs 7 ms to
# compile, each time it is used.)
_IDENT = r"[^\x00-\x40\x5b-\x5e\x60\x7b-\x7f][^\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]*"
_TOKEN_RE = re.compile(rf"""
    (?P<space>(?:\s|\\\r?\n)+)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<string>R"(?P<delim>[^(\n]*?)\(.*?(?:\)(?P=delim)"|\Z)
      | "(?:[^"\\\n]|\\.)*"? | '(?:[^'\\\n]|\\.)*'?)
  | (?P<ident>{_IDENT})
  | (?P<number>\.?[0-9](?:[eEpP][-+]|[A-Za-z0-9_.])*)
  | (?P<punct>::|->|=>|\#\#|\.\.\.|<<=|>>=|<<|>>|&&|\|\||\+\+|--|[-+*/%&|^<>=!]=|.)
""", re.S | re.X)
_IDENT_RE = re.compile(_IDENT)


@dataclass(frozen=True)
class Token:
    kind: str  # ident, string, number, punct
    text: str
    at: int  # offset in the text it was read from


def tokens(text: str) -> list[Token]:
    """The tokens of ``text``, comments and whitespace left out (Slang's ``-E`` output has one
    space after every token; raw source is read the same way)."""
    out = []
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup or "punct"  # every alternative is a named group
        if kind not in ("space", "comment"):
            out.append(Token("string" if kind == "delim" else kind, m.group(0), m.start()))
    return out


# -- matching -----------------------------------------------------------------------------------
_BUILTIN_TYPE_RE = re.compile(
    r"(?:bool|int|uint|dword|half|float|double|min16float|min10float|min16int|min12int|"
    r"min16uint|u?int(?:8|16|32|64)_t|float(?:16|32|64)_t)(?:[1-4](?:x[1-4])?)?|void|vector|"
    r"matrix|string|String")
_TYPE_KEYWORDS = frozenset("struct class interface enum typealias associatedtype typename"
                           .split())
# Keywords an expression follows, so a '&' or '*' after them is a prefix operator.
_EXPRESSION_KEYWORDS = frozenset("return case throw try else do in yield".split())
_MODIFIERS = frozenset("const static uniform in out inout groupshared precise volatile "
                       "row_major column_major nointerpolation linear centroid noperspective "
                       "sample".split())
_CLOSERS = frozenset((">", ">>"))
_AFTER_POINTER = frozenset((")", ">", ">>", ",", "]", "*", ";", "const"))
_DECLARATOR_END = frozenset(("=", ";", ",", "[", ":"))
_STATEMENT_START = frozenset((";", "{", "}"))

_BY_NAME: dict[tuple[str, str], Refused] = {(r.match, r.spelling): r for r in REFUSED
                                            if r.match in ("name", "declaration", "call")}
_PREFIXES = tuple(r for r in REFUSED if r.match == "prefix")
_PATTERNS = tuple(r for r in REFUSED if r.match in ("pointer type", "address of",
                                                      "dereference"))


@dataclass(frozen=True)
class Escape:
    """A refused construct found: the table's entry, its spelling, and where in the token list
    it starts."""

    refused: Refused
    spelled: str
    index: int


def _declared_types(toks: list[Token]) -> tuple[frozenset[str], list[tuple[str, int, int]]]:
    """Names the text declares as types: after struct/class/interface/enum/typealias and the
    last name of a typedef (everywhere), and the type parameters of a template, a generic
    struct or a generic function, each as (name, first token, last token) of the declaration
    it belongs to (HLSL 2021's ``template <typename T> T f(T x)``, Slang's ``T f<T>(T x)``:
    elsewhere ``T`` may name a variable)."""
    names: set[str] = set()
    scoped: list[tuple[str, int, int]] = []
    for i, t in enumerate(toks):
        if t.kind != "ident":
            continue
        if _generic_function(toks, i):  # Type name<T, U : I>( ...
            end = _declaration_end(toks, i + 2)
            scoped += [(n, i, end) for n in _type_parameters(toks, i + 2)]
        elif t.text == "template" and i + 1 < len(toks) and toks[i + 1].text == "<":
            end = _declaration_end(toks, i + 2)
            scoped += [(n, i, end) for n in _type_parameters(toks, i + 2)
                       if n not in ("typename", "class")]
        elif t.text in _TYPE_KEYWORDS and t.text != "typename":
            k = i + 1
            if k < len(toks) and toks[k].text == "class":  # enum class X
                k += 1
            if k < len(toks) and toks[k].kind == "ident":
                names.add(toks[k].text)
                if k + 1 < len(toks) and toks[k + 1].text == "<":
                    end = _declaration_end(toks, k + 2)
                    scoped += [(n, i, end) for n in _type_parameters(toks, k + 2)]
        elif t.text == "typedef":
            last = None
            for j in range(i + 1, len(toks)):  # not a copy of the rest of the list per typedef
                if toks[j].text in (";", "["):
                    break
                if toks[j].kind == "ident":
                    last = toks[j].text
            if last:
                names.add(last)
    return frozenset(names), scoped


def _generic_function(toks: list[Token], i: int) -> bool:
    """Whether the name at ``i`` declares a generic function: a type (a name that is no
    keyword an expression follows, or a closing ``>``) before it, ``<`` after it and ``(``
    right after the matching ``>`` (``a < b > (c)`` after an operator is a comparison)."""
    if i == 0 or i + 1 >= len(toks) or toks[i + 1].text != "<":
        return False
    before = toks[i - 1]
    if not ((before.kind == "ident" and before.text not in _EXPRESSION_KEYWORDS)
            or before.text in _CLOSERS):
        return False
    depth = 0
    for j in range(i + 1, len(toks)):
        text = toks[j].text
        depth += {"<": 1, ">": -1, ">>": -2}.get(text, 0)
        if depth <= 0:
            return j + 1 < len(toks) and toks[j + 1].text == "("
        if text in (";", "{", "}", "(", ")"):
            return False
    return False


def _declaration_end(toks: list[Token], k: int) -> int:
    """The last token of the declaration whose parameter list ``<`` ends before ``k``: its
    body's closing brace, or its ``;`` (the whole text when it never ends). Braces and ``;``
    inside parentheses (a default argument ``= {}``) do not end it."""
    depth = parens = 0
    for j in range(k, len(toks)):
        text = toks[j].text
        if text == "(":
            parens += 1
        elif text == ")":
            parens = max(0, parens - 1)
        elif parens:
            continue
        elif text == "{":
            depth += 1
        elif text == "}":
            depth -= 1
            if depth <= 0:
                return j
        elif text == ";" and depth == 0:
            return j
    return len(toks)


def _type_parameters(toks: list[Token], k: int) -> set[str]:
    out, depth, previous = set(), 1, "<"
    while k < len(toks) and depth:
        t = toks[k]
        depth += {"<": 1, ">": -1, ">>": -2}.get(t.text, 0)
        if t.kind == "ident" and previous in ("<", ",", "typename", "class") and \
                t.text not in ("let", "typename", "class"):
            out.add(t.text)
        previous = t.text
        k += 1
    return out


def _operand_end(t: Token | None) -> bool:
    """Whether a binary operator may follow ``t`` (else a '&' or '*' there is a prefix)."""
    if t is None:
        return False
    if t.kind == "ident":
        return t.text not in _EXPRESSION_KEYWORDS
    return t.kind in ("number", "string") or t.text in (")", "]", "++", "--")


class _Context:
    def __init__(self, toks: list[Token]):
        self.toks = toks
        self.types, self.scoped = _declared_types(toks)

    def at(self, i: int) -> Token | None:
        return self.toks[i] if 0 <= i < len(self.toks) else None

    def text(self, i: int) -> str:
        t = self.at(i)
        return t.text if t is not None else ""

    def is_type(self, i: int) -> bool:
        t = self.at(i)
        return t is not None and t.kind == "ident" and (
            t.text in self.types or _BUILTIN_TYPE_RE.fullmatch(t.text) is not None or
            any(n == t.text and a <= i <= b for n, a, b in self.scoped))

    def cast_before(self, i: int) -> bool:
        """``( Type ) X`` with X at ``i``: a cast (not ``sizeof(Type)``, a call)."""
        before = self.at(i - 4)
        return self.text(i - 1) == ")" and self.is_type(i - 2) and self.text(i - 3) == "(" \
            and not (before is not None and before.kind == "ident"
                     and before.text not in _EXPRESSION_KEYWORDS)

    def prefix_operator(self, i: int) -> bool:
        return not _operand_end(self.at(i - 1)) or self.cast_before(i)

    def pointer_type(self, i: int) -> bool:
        if (self.is_type(i - 1) and self.text(i - 2) != ".") or self.text(i - 1) in _CLOSERS:
            return True  # (a member named as a type, s.Light * 2, is a value)
        if self.text(i + 1) in _AFTER_POINTER:
            return True
        # Name * name = ... where a statement starts: a declaration, never a product
        name, declared, start = self.at(i - 1), self.at(i + 1), self.at(i - 2)
        return name is not None and name.kind == "ident" and \
            name.text not in _EXPRESSION_KEYWORDS and \
            declared is not None and declared.kind == "ident" and \
            self.text(i + 2) in _DECLARATOR_END and \
            (start is None or start.text in _STATEMENT_START or start.text in _MODIFIERS)


_PATTERN_TESTS = {
    "pointer type": lambda c, i: c.text(i) == "*" and c.pointer_type(i),
    "address of": lambda c, i: c.text(i) == "&" and c.prefix_operator(i),
    "dereference": lambda c, i: c.text(i) == "*" and c.prefix_operator(i),
}


def _name_match(name: str, ctx: _Context | None = None, i: int = -1) -> Refused | None:
    """The entry refusing an identifier ``name`` (at token ``i`` when it is a token: the
    declaration and call forms look at the next token)."""
    hit = _BY_NAME.get(("name", name))
    if hit is not None:
        return hit
    if ctx is not None:
        following = ctx.at(i + 1)
        if following is not None and (following.kind == "string" or following.kind == "ident"):
            hit = _BY_NAME.get(("declaration", name))
            if hit is not None:
                return hit
        if ctx.text(i + 1) == "(":
            hit = _BY_NAME.get(("call", name))
            if hit is not None:
                return hit
    return next((r for r in _PREFIXES if name.startswith(r.spelling)), None)


def _scoped_name(ctx: _Context, i: int) -> tuple[str, str, int] | None:
    """The name Slang forms from ``::``-joined attribute names starting at token ``i`` (a
    leading ``::`` and every ``::`` become ``_``): (name, spelling, tokens) when there is a
    ``::``."""
    toks, k, parts = ctx.toks, i, []
    leading = toks[k].text == "::"
    if leading:
        k += 1
    while k < len(toks) and toks[k].kind == "ident":
        parts.append(toks[k].text)
        if k + 1 < len(toks) and toks[k + 1].text == "::":
            k += 2
            continue
        k += 1
        break
    if not parts or (len(parts) == 1 and not leading):
        return None
    spelled = "".join(t.text for t in toks[i:k])
    return ("_" if leading else "") + "_".join(parts), spelled, k - i


def _escapes(toks: list[Token]) -> Iterable[Escape]:
    """Every refused construct of the token list, in order (the first table entry of each)."""
    ctx = _Context(toks)
    for i, t in enumerate(toks):
        if t.kind == "ident":
            hit = _name_match(t.text, ctx, i)
            if hit is not None:
                yield Escape(hit, t.text, i)
                continue
        if t.kind == "ident" or t.text == "::":
            if i == 0 or toks[i - 1].text != "::":
                scoped = _scoped_name(ctx, i)
                if scoped is not None:
                    hit = _name_match(scoped[0])
                    if hit is not None:
                        yield Escape(hit, scoped[1], i)
                        continue
        elif t.kind == "string":  # a margin: names inside literals count too
            for m in _IDENT_RE.finditer(t.text):
                hit = _name_match(m.group(0))
                if hit is not None:
                    yield Escape(hit, m.group(0), i)
                    break
        elif t.text in ("*", "&"):
            hit = next((r for r in _PATTERNS if _PATTERN_TESTS[r.match](ctx, i)), None)
            if hit is not None:
                yield Escape(hit, t.text, i)


def first_escape(text: str) -> Escape | None:
    """The first refused construct in ``text`` (Slang's preprocessed tokens), or None."""
    return next(iter(_escapes(tokens(text))), None)


# -- where it is spelled --------------------------------------------------------------------------
def _sources(source: str, file_name: str, source_path: str, include_dirs, defines):
    """(label, text) of the source, the defines and the files it includes (found as gpuia
    inlines them, ``gpuia.hlsl.includes``: next to the including file, then in
    ``include_dirs``, whatever ``#if`` surrounds them): where a refusal points."""
    yield file_name, source
    for name, value in defines:
        yield f"defines.{name}", value
    folder = os.path.dirname(source_path) if source_path else None
    try:
        found = includes.included_files(source, folder, include_dirs)
    except GpuiaError:  # past the include limits: the source and defines still say where
        found = []
    for f in found:
        yield f.path, f.text


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _where(escape: Escape, sources) -> str:
    """``file:line`` of the first place the sources spell ``escape`` (the same entry and
    spelling), else of the first ``##`` (the construct was pasted together), else the file."""
    sources = list(sources)
    for label, text in sources:
        toks = tokens(text)
        for found in _escapes(toks):
            if found.refused == escape.refused and found.spelled == escape.spelled:
                at = toks[found.index].at
                return label if label.startswith("defines.") else f"{label}:{_line(text, at)}"
    for label, text in sources:
        for t in tokens(text):
            if t.text == "##":
                return f"{label}:{_line(text, t.at)} (built by this ## paste)"
    return sources[0][0]


def refuse_escapes(preprocessed: str, what: str, source: str, file_name: str,
                   source_path: str = "", include_dirs=(), defines=()) -> None:
    """Raise :class:`~gpuia.errors.InvalidDescError` for the first construct of
    :data:`REFUSED` in ``preprocessed`` (Slang's ``-E`` tokens of the shader, from
    :func:`preprocess`), pointing at where ``source`` (the user's text), the files it includes
    or ``defines`` spell it."""
    escape = first_escape(preprocessed)
    if escape is None:
        return
    where = _where(escape, _sources(source, file_name, source_path, include_dirs, defines))
    raise InvalidDescError(what, where, escape.spelled,
                           f"{escape.refused.why}; gpuia refuses Slang's ways out of a shader "
                           f"(the CPU reference builds Slang's code and runs it on this "
                           f"machine)")


def refuse_escapes_in(text: str, slang_name: str, args, defines, include_dirs, what: str,
                      source: str, file_name: str, source_path: str = "") -> None:
    """:func:`refuse_escapes` of what Slang's preprocessor makes of ``text`` (compiled as
    ``slang_name`` with ``args``, ``defines`` and ``include_dirs``, as the compile that follows
    will be); a preprocessor error is refused too (the compile would read less than was
    checked)."""
    try:
        preprocessed = preprocess(text, slang_name, args, defines, include_dirs, what)
    except library.SlangError as e:
        raise InvalidDescError(what, file_name, None, library.first_error(e.diagnostics)) \
            from None
    refuse_escapes(preprocessed, what, source, file_name, source_path, include_dirs, defines)


def preprocess(text: str, slang_name: str, args, defines, include_dirs, what: str) -> str:
    """Slang's preprocessed tokens of ``text`` (as :func:`gpuia.hlsl.library.compile_source`
    compiles it, same defines and include folders). Raises
    :class:`~gpuia.hlsl.library.SlangError` where Slang's preprocessor does."""
    out = library.compile_source(text, slang_name, "main", "vertex", library.PREPROCESS, args,
                                 defines, include_dirs, what)
    return out.code.decode("utf-8", "replace")
