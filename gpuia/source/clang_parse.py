"""C and C++ files parsed by libclang (the ``source`` extra: the ``libclang`` wheel), as the
application's compiler would: its preprocessor (``-D``, ``-I``, ``#if``, ``#pragma pack``,
``##``, variadic macros), its types laid out for ``--target`` (MSVC x64 by default, the ABI
D3D12 code is built for), and its constant evaluation.

:func:`parse` sets up one translation unit:

- the D3D headers come from the include path when it has them, else from gpuia's stubs
  (:mod:`gpuia.source.d3d_header`), and the standard headers the wheel lacks from
  :mod:`gpuia.source.std_headers`; both are given to the compiler in memory and searched after
  every real folder, and a prelude includes the D3D headers and, in C++, ``<vector>`` and
  ``<array>`` first, so code that gets them from a precompiled header reads too; they are
  found whatever the case of their name (:mod:`gpuia.source.includes`), and an include of
  the file that names a FIFO, a device or an oversized file is refused before the compiler
  runs;
- the compiler keeps going after errors, and reports each as a :class:`Diagnostic`;
- when the file uses names that nothing declares, it is parsed a second time with a
  placeholder declaration for each (a value of a type that converts to anything, or an empty
  struct for a name used as ``Name::``), so the code around them is still read. A value that
  depends on a placeholder is never taken as a constant: :meth:`Parsed.placeholder_in` finds
  it, and the diagnostics are those of the first parse.

:class:`Parsed` also gives what the Python ``clang.cindex`` module lacks, through ctypes:
``clang_Cursor_Evaluate`` (the compiler's constant folding), binary operator kinds, variable
initializers and the ranges the preprocessor skipped.
"""

from __future__ import annotations

import bisect
import ctypes
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..errors import UnsupportedError
from .d3d_header import STUB_NAMES, header_used, stub_headers
from .includes import check_includes, missing_includes, stub_aliases, written_includes
from .kinds import kind_of
from .model import Diagnostic, SourceError
from .std_headers import STD_HEADERS

__all__ = ["DEFAULT_TARGET", "C_SUFFIXES", "SOURCE_EXTRA", "ParseOptions", "Parsed", "Token",
           "cindex", "parse"]

SOURCE_EXTRA = "reading C/C++ needs the 'source' extra (pip install 'gpuia[source]': libclang)"
"""The start of the refusal when libclang is missing."""

DEFAULT_TARGET = "x86_64-pc-windows-msvc"
"""The target triple D3D12 code is built for: MSVC on x64 (``long`` and ``wchar_t`` are 4 and
2 bytes, MSVC's struct layout and ``#pragma pack``)."""

C_SUFFIXES = (".c",)
"""Files read as C; every other C/C++ file is read as C++ (C++20)."""

STUB_DIR = "/gpuia-stub-include"
"""The folder the generated headers are given from (in memory, never on disk)."""

_PRELUDE = f"{STUB_DIR}/gpuia_prelude.h"
_PLACEHOLDERS = f"{STUB_DIR}/gpuia_placeholders.h"

# CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing: macro
# definitions and skipped ranges are recorded, and a fatal error (a missing include) does not
# end the parse.
_PARSE_FLAGS = 0x1 | 0x200
_SEVERITIES = {2: "warning", 3: "error", 4: "fatal"}
_ALIAS_ROUNDS = 4  # parses that can add generated headers in another case

# CXBinaryOperatorKind (clang-c/Index.h, LLVM 17+).
_BINARY_OPERATORS = {
    3: "*", 4: "/", 5: "%", 6: "+", 7: "-", 8: "<<", 9: ">>", 11: "<", 12: ">", 13: "<=",
    14: ">=", 15: "==", 16: "!=", 17: "&", 18: "^", 19: "|", 20: "&&", 21: "||", 22: "=",
    23: "*=", 24: "/=", 25: "%=", 26: "+=", 27: "-=", 28: "<<=", 29: ">>=", 30: "&=",
    31: "^=", 32: "|=", 33: ",",
}
# CXEvalResultKind: an integer, or a string literal's characters.
_EVAL_INT, _EVAL_STRINGS = 1, (4, 5, 6)

# Diagnostics naming something nothing declares, which a placeholder lets the parse get past.
_UNDECLARED = re.compile(r"^(?:use of undeclared identifier|call to undeclared function|"
                         r"call to undeclared library function) '(\w+)'")

_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
# Cursor kinds that name a declaration (what references are looked for in).
_REFERRING = {"DECL_REF_EXPR", "MEMBER_REF_EXPR", "MEMBER_REF", "TYPE_REF", "TEMPLATE_REF",
              "CALL_EXPR", "OVERLOADED_DECL_REF", "NAMESPACE_REF"}
_TRIPLE = re.compile(r"^[A-Za-z0-9_.]+(-[A-Za-z0-9_.]+){1,4}$")

_PLACEHOLDER_CXX = """\
struct gpuia_unresolved {
    template <class T> operator T() const;
    template <class... A> gpuia_unresolved operator()(A &&...) const;
    template <class T> gpuia_unresolved operator[](const T &) const;
    gpuia_unresolved operator-() const;
    gpuia_unresolved operator+() const;
    gpuia_unresolved operator~() const;
    gpuia_unresolved operator!() const;
    gpuia_unresolved operator&() const;
    gpuia_unresolved operator*() const;
};
"""
_PLACEHOLDER_OPERATORS = ("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||",
                          "==", "!=", "<", ">", "<=", ">=")


def cindex():
    """The ``clang.cindex`` module, its library loaded.

    Returns:
        The module.

    Raises:
        UnsupportedError: the ``libclang`` wheel (the ``source`` extra) is not installed or
            its library does not load.
    """
    try:
        import clang.cindex as ci

        _bind(ci)
    except (ImportError, OSError, AttributeError) as e:
        raise UnsupportedError(f"{SOURCE_EXTRA}: {e}") from None
    except Exception as e:  # cindex.LibclangError: the library is missing or too old
        if type(e).__name__ != "LibclangError":
            raise
        raise UnsupportedError(f"{SOURCE_EXTRA}: {e}") from None
    return ci


class _RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.c_void_p)]


@cache
def _bind(ci) -> None:
    """Declare the libclang functions ``clang.cindex`` does not wrap."""
    lib = ci.conf.lib
    void_p = ctypes.c_void_p
    for name, args, result in [
        ("clang_Cursor_Evaluate", [ci.Cursor], void_p),
        ("clang_EvalResult_getKind", [void_p], ctypes.c_int),
        ("clang_EvalResult_isUnsignedInt", [void_p], ctypes.c_uint),
        ("clang_EvalResult_getAsUnsigned", [void_p], ctypes.c_ulonglong),
        ("clang_EvalResult_getAsLongLong", [void_p], ctypes.c_longlong),
        ("clang_EvalResult_getAsStr", [void_p], ctypes.c_char_p),
        ("clang_EvalResult_dispose", [void_p], None),
        ("clang_getCursorBinaryOperatorKind", [ci.Cursor], ctypes.c_int),
        ("clang_Cursor_getVarDeclInitializer", [ci.Cursor], ci.Cursor),
        ("clang_isInvalidDeclaration", [ci.Cursor], ctypes.c_uint),
        ("clang_getSkippedRanges", [ci.TranslationUnit, ci.File], ctypes.POINTER(_RangeList)),
        ("clang_disposeSourceRangeList", [ctypes.POINTER(_RangeList)], None),
    ]:
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = result
    # A cursor result keeps its translation unit (cindex's own wrappers do this), and the null
    # cursor becomes None.
    lib.clang_Cursor_getVarDeclInitializer.errcheck = ci.Cursor.from_result


@dataclass(frozen=True)
class ParseOptions:
    """How the application's build compiles the file.

    Arguments:
        defines (tuple[str, ...]): ``NAME`` or ``NAME=VALUE`` preprocessor definitions (``-D``).
        include_dirs (tuple[str, ...]): folders searched for includes (``-I``), in order.
        target (str): the target triple (``--target``), which sets type sizes and layout.
    """

    defines: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    target: str = DEFAULT_TARGET

    def arguments(self) -> list[str]:
        """The compiler arguments these options make.

        Returns:
            ``--target``, ``-D`` and ``-I`` arguments.

        Raises:
            SourceError: a definition whose name is not an identifier, an include folder
                that does not exist, or a target that is not a triple.
        """
        if not _TRIPLE.match(self.target):
            raise SourceError(f"--target {self.target}",
                              "not a target triple (such as x86_64-pc-windows-msvc or "
                              "x86_64-linux-gnu)")
        out = [f"--target={self.target}"]
        for d in self.defines:
            name = d.split("=", 1)[0]
            if not _IDENTIFIER.match(name):
                raise SourceError(f"--define {d}", "the name before '=' must be a C identifier")
            out.append(f"-D{d}")
        for folder in self.include_dirs:
            if not Path(folder).is_dir():
                raise SourceError(f"--include {folder}", "no such folder")
            out += ["-I", str(folder)]
        return out


@dataclass(frozen=True)
class Token:
    """A token of the main file as the lexer saw it (before macro expansion).

    Arguments:
        spelling (str): its text.
        offset (int): its byte offset in the file.
        line, column (int): its position, 1-based.
    """

    spelling: str
    offset: int
    line: int
    column: int


class Parsed:
    """One file's translation unit, with the helpers extraction needs.

    Arguments:
        ci: the ``clang.cindex`` module.
        tu: the translation unit extraction reads (the placeholder parse when there was one).
        label (str): the file's path as given (its cursors' file name).
        data (bytes): the file's bytes.
        diagnostics (list[Diagnostic]): the compiler's warnings and errors (first parse).
        undeclared (dict[str, Diagnostic]): names nothing declares, with the diagnostic of
            their first use.
        language (str): ``"C"`` or ``"C++"``.
        d3d_header (str | None): the real D3D12 header read, or None for gpuia's stub.
    """

    def __init__(self, ci, tu, label: str, data: bytes, diagnostics: list[Diagnostic],
                 undeclared: dict[str, Diagnostic], language: str, d3d_header: str | None,
                 offsets: list[int | None] | None = None):
        self.ci = ci
        self.tu = tu
        self.label = label
        self.data = data
        self.diagnostics = diagnostics
        self.undeclared = undeclared
        self.language = language
        self.d3d_header = d3d_header
        # Byte offsets in the main file of each diagnostic (None for those elsewhere).
        self._offsets = offsets or [None] * len(diagnostics)
        self._any_error = any(d.severity != "warning" for d in diagnostics)
        self._tokens: list[Token] | None = None
        self._token_offsets: list[int] = []
        self._excluded: list[tuple[int, int]] | None = None
        self._lines: list[int] | None = None

    # -- cursors ---------------------------------------------------------------------------
    def in_main_file(self, cursor) -> bool:
        """Whether ``cursor`` is located in the parsed file (not in an include).

        Arguments:
            cursor: any cursor.
        """
        f = cursor.location.file
        return f is not None and f.name == self.label

    def text(self, cursor) -> str:
        """The source text of ``cursor``'s extent, whitespace collapsed.

        Arguments:
            cursor: a cursor of the main file (another gives its spelling).
        """
        start, end = cursor.extent.start, cursor.extent.end
        if start.file is None or start.file.name != self.label:
            return cursor.spelling
        return " ".join(self.data[start.offset:end.offset].decode("utf-8", "replace").split())

    def evaluate(self, cursor):
        """What the compiler folds ``cursor``'s expression to.

        Arguments:
            cursor: an expression (or a variable, for its initializer).

        Returns:
            An int, a str (a string literal's characters), or None when it is not a constant
            the compiler folds.
        """
        lib = self.ci.conf.lib
        result = lib.clang_Cursor_Evaluate(cursor)
        if not result:
            return None
        try:
            kind = lib.clang_EvalResult_getKind(result)
            if kind == _EVAL_INT:
                if lib.clang_EvalResult_isUnsignedInt(result):
                    return lib.clang_EvalResult_getAsUnsigned(result)
                return lib.clang_EvalResult_getAsLongLong(result)
            if kind in _EVAL_STRINGS:
                raw = lib.clang_EvalResult_getAsStr(result)
                return None if raw is None else raw.decode("utf-8", "replace")
            return None
        finally:
            lib.clang_EvalResult_dispose(result)

    def binary_operator(self, cursor) -> str | None:
        """The operator of a ``BINARY_OPERATOR``/``COMPOUND_ASSIGNMENT_OPERATOR`` cursor.

        Arguments:
            cursor: a binary or compound-assignment operator cursor.
        """
        return _BINARY_OPERATORS.get(self.ci.conf.lib.clang_getCursorBinaryOperatorKind(cursor))

    def initializer(self, cursor):
        """A variable's initializer expression, or None.

        Arguments:
            cursor: a variable declaration.
        """
        return self.ci.conf.lib.clang_Cursor_getVarDeclInitializer(cursor)

    def invalid(self, cursor) -> bool:
        """Whether the compiler marked a declaration invalid (it has errors).

        Arguments:
            cursor: a declaration.
        """
        return bool(self.ci.conf.lib.clang_isInvalidDeclaration(cursor))

    def references(self, cursor):
        """(node, declaration) for every node under ``cursor`` that names a declaration.

        Arguments:
            cursor: the subtree to look in.
        """
        for node in cursor.walk_preorder():
            if kind_of(node).name in _REFERRING:
                ref = node.referenced
                if ref is not None:
                    yield node, ref

    def placeholder_in(self, cursor) -> str | None:
        """The first name under ``cursor`` that only a placeholder declares, or None.

        Arguments:
            cursor: the subtree to look in.
        """
        found = None
        for _, ref in self.references(cursor):
            if ref.location.file is not None and \
                    ref.location.file.name == _PLACEHOLDERS:
                if ref.spelling in self.undeclared:
                    return ref.spelling
                found = found or ref.spelling  # an operator of the placeholder type
        return found

    # -- tokens and preprocessing ----------------------------------------------------------
    def tokens(self) -> list[Token]:
        """The main file's tokens the compiler read: those of ``#if`` branches it skipped
        and of macro definitions are left out. (Lexing a whole file costs about a second per
        100,000 tokens: readers ask for it only when the compiler reported an error there.)"""
        if self._tokens is None:
            self._tokens = self._lex(0, len(self.data))
            self._token_offsets = [t.offset for t in self._tokens]
        return self._tokens

    def token_index(self, offset: int) -> int:
        """The index in :meth:`tokens` of the first token at or after a byte offset.

        Arguments:
            offset: a byte offset of the main file.
        """
        self.tokens()
        return bisect.bisect_left(self._token_offsets, offset)

    def tokens_between(self, start: int, end: int) -> list[Token]:
        """The tokens from byte offset ``start`` up to ``end``, which must both lie between
        tokens (not inside a comment or a literal).

        Arguments:
            start, end: byte offsets of the main file.
        """
        if self._tokens is not None:
            return self._tokens[self.token_index(start):self.token_index(end)]
        return self._lex(start, end)

    def has_errors(self) -> bool:
        """Whether the compiler reported an error in the main file."""
        return any(at is not None and d.severity != "warning"
                   for d, at in zip(self.diagnostics, self._offsets, strict=True))

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of a byte offset of the main file.

        Arguments:
            offset: a byte offset of the main file.
        """
        if self._lines is None:
            self._lines = [i for i, b in enumerate(self.data) if b == 0x0A]
        line = bisect.bisect_left(self._lines, offset)
        start = self._lines[line - 1] + 1 if line else 0
        return line + 1, offset - start + 1

    def _lex(self, start: int, end: int) -> list[Token]:
        if self._excluded is None:
            self._excluded = self._skipped_ranges() + [
                (c.extent.start.offset, c.extent.end.offset)
                for c in self.tu.cursor.get_children()
                if kind_of(c) == self.ci.CursorKind.MACRO_DEFINITION and self.in_main_file(c)]
        extent = self.tu.get_extent(self.label, (start, end))
        out = []
        for t in self.tu.get_tokens(extent=extent):
            offset = t.location.offset
            if offset >= end or any(a <= offset < b for a, b in self._excluded):
                continue
            line, column = self.position(offset)
            out.append(Token(t.spelling, offset, line, column))
        return out

    def _skipped_ranges(self) -> list[tuple[int, int]]:
        lib = self.ci.conf.lib
        main = self.tu.get_file(self.label)
        ranges = lib.clang_getSkippedRanges(self.tu, main)
        if not ranges:
            return []
        try:
            count = ranges.contents.count
            array = ctypes.cast(ranges.contents.ranges,
                                ctypes.POINTER(self.ci.SourceRange * count)).contents
            return [(r.start.offset, r.end.offset) for r in array]
        finally:
            lib.clang_disposeSourceRangeList(ranges)

    def cursor_at(self, offset: int):
        """The most specific cursor at a byte offset of the main file.

        Arguments:
            offset: a byte offset of the main file.
        """
        return self.ci.Cursor.from_location(self.tu, self.tu.get_location(self.label, offset))

    def errors_between(self, start: int, end: int) -> list[tuple[Diagnostic, int]]:
        """The error diagnostics between two byte offsets of the main file, each with its
        offset, in order.

        Arguments:
            start, end: byte offsets of the main file.
        """
        return [(d, at) for d, at in zip(self.diagnostics, self._offsets, strict=True)
                if d.severity != "warning" and at is not None and start <= at < end]

    def errors_before(self, offset: int) -> list[tuple[Diagnostic, int]]:
        """The error diagnostics of the main file before a byte offset, nearest last.

        Arguments:
            offset: a byte offset of the main file.
        """
        return self.errors_between(0, offset)

    def offset_of(self, d: Diagnostic) -> int | None:
        """The byte offset of a diagnostic in the main file, or None for one elsewhere.

        Arguments:
            d: one of :attr:`diagnostics`.
        """
        for other, at in zip(self.diagnostics, self._offsets, strict=True):
            if other is d:
                return at
        return None

    def errors_in(self, cursor) -> list[Diagnostic]:
        """The error diagnostics inside ``cursor``'s extent, in whichever file it is.

        Arguments:
            cursor: any cursor.
        """
        if not self._any_error:
            return []
        start, end = cursor.extent.start, cursor.extent.end
        if start.file is None:
            return []
        lo, hi = (start.line, start.column), (end.line, end.column)
        return [d for d in self.diagnostics if d.severity != "warning"
                and d.file == start.file.name and lo <= (d.line, d.column) < hi]


def _language(path: Path) -> str:
    return "C" if path.suffix.lower() in C_SUFFIXES else "C++"


def _prelude(language: str) -> str:
    lines = ["#include <stddef.h>", "#include <stdint.h>"]
    lines += [f"#include <{name}>" for name in STUB_NAMES.values()]
    if language == "C++":
        lines += ["#include <vector>", "#include <array>"]
    return "\n".join(lines) + "\n"


def _placeholders(language: str, undeclared: dict[str, Diagnostic], qualifiers: set[str]) -> str:
    """Declarations of the names nothing declares (see the module docstring)."""
    if language == "C":
        out = []
        for name, d in undeclared.items():
            out.append(f"int {name}();\n" if "function" in d.message else f"extern int {name};\n")
        return "".join(out)
    out = [_PLACEHOLDER_CXX, "".join(
        f"gpuia_unresolved operator{op}(const gpuia_unresolved &, const gpuia_unresolved &);\n"
        f"template <class T> gpuia_unresolved operator{op}(const gpuia_unresolved &, const T &);\n"
        f"template <class T> gpuia_unresolved operator{op}(const T &, const gpuia_unresolved &);\n"
        for op in _PLACEHOLDER_OPERATORS)]
    for name in undeclared:
        out.append(f"struct {name} {{}};\n" if name in qualifiers
                   else f"extern const gpuia_unresolved {name};\n")
    return "".join(out)


def _diagnostics(tu, label: str) -> tuple[list[Diagnostic], list[int | None]]:
    """The warnings and errors (not notes), and the main-file byte offset of each."""
    out, offsets = [], []
    for d in tu.diagnostics:
        severity = _SEVERITIES.get(d.severity)
        if severity is None:
            continue
        loc = d.location
        file = loc.file.name if loc.file is not None else "<command line>"
        out.append(Diagnostic(file, loc.line, loc.column, severity, d.spelling))
        offsets.append(loc.offset if file == label else None)
    return out, offsets


def parse(path: str | Path, data: bytes, options: ParseOptions | None = None) -> Parsed:
    """Parse one C or C++ file as its build would (see the module docstring).

    Arguments:
        path: the file, named as its diagnostics and arrays will name it.
        data: its bytes (already read, so reading errors are the caller's).
        options: ``-D``, ``-I`` and the target; None for the defaults.

    Returns:
        The :class:`Parsed` translation unit.

    Raises:
        UnsupportedError: libclang (the ``source`` extra) is missing.
        SourceError: an option is malformed, or the compiler could not start on the file.
    """
    ci = cindex()
    options = options or ParseOptions()
    label = str(path)
    language = _language(Path(label))
    args = options.arguments()
    args += ["-x", "c" if language == "C" else "c++",
             "-std=c17" if language == "C" else "-std=c++20",
             # A misspelt name must stay an error: the compiler's spelling correction would
             # read the value of a different, similarly named declaration.
             "-fno-spell-checking", "-ferror-limit=0", "-fno-delayed-template-parsing",
             # A header given as the file is read as its includer would read it.
             "-Wno-pragma-once-outside-header",
             "-nostdinc++", "-idirafter", STUB_DIR, "-include", _PRELUDE]
    check_includes(label, data, options.include_dirs)
    headers = {**STD_HEADERS, **stub_headers()}
    unsaved = [(label, data), (_PRELUDE, _prelude(language))] + [
        (f"{STUB_DIR}/{name}", text) for name, text in headers.items()]
    unsaved += stub_aliases((name for _, _, name in written_includes(data)), headers, STUB_DIR)
    index = ci.Index.create()
    tu = _translation_unit(ci, index, label, args, unsaved)
    for _ in range(_ALIAS_ROUNDS):
        # A generated header spelled in another case where the file does not spell it (in
        # another header, or through a macro): parsed again with it under that name too.
        missing = missing_includes(d.spelling for d in tu.diagnostics)
        aliases = [a for a in stub_aliases(missing, headers, STUB_DIR) if a not in unsaved]
        if not aliases:
            break
        unsaved += aliases
        tu = _translation_unit(ci, index, label, args, unsaved)
    diagnostics, offsets = _diagnostics(tu, label)
    undeclared: dict[str, Diagnostic] = {}
    qualifiers: set[str] = set()
    for d, at in zip(diagnostics, offsets, strict=True):
        m = _UNDECLARED.match(d.message)
        if m is None or at is None:
            continue
        name = m.group(1)
        undeclared.setdefault(name, d)
        if data[at + len(name):].lstrip().startswith(b"::"):
            qualifiers.add(name)
    included = [i.include.name for i in tu.get_includes()]
    if undeclared:
        text = _placeholders(language, undeclared, qualifiers)
        tu = _translation_unit(ci, index, label, args + ["-include", _PLACEHOLDERS],
                               unsaved + [(_PLACEHOLDERS, text)])
    return Parsed(ci, tu, label, data, diagnostics, undeclared, language,
                  header_used(included, STUB_DIR), offsets)


def _translation_unit(ci, index, label, args, unsaved):
    try:
        return index.parse(label, args=args, unsaved_files=unsaved, options=_PARSE_FLAGS)
    except ci.TranslationUnitLoadError as e:
        raise SourceError(label, f"the compiler could not start on this file "
                                 f"(arguments {' '.join(args[:3])}...): {e}") from None
