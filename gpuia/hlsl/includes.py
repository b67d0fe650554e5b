"""``#include`` resolved by gpuia: one translation unit, every file prepared, every line the user's.

gpuia rewrites the HLSL it gives Slang (``gpuia.hlsl.source``); those rewrites must reach every
file a shader includes, not only the main one. So gpuia reads the included files itself and
inlines each one in place of its ``#include`` line, between ``#line`` markers, after the same
rewrites; Slang's preprocessor then sees one text and decides everything else as it always does
(``#if``, ``#define``, macros), and its diagnostics name the user's files and lines.

Guaranteed:

* **Search order**, as Slang's: ``#include "x"`` looks in the including file's folder (none for a
  source given as text), then in ``include_dirs`` in order; ``#include <x>`` in ``include_dirs``
  only. Every file is read with :func:`gpuia.util.files.read_input`: a regular file of at most
  :data:`MAX_FILE_BYTES` (a FIFO, a device or a folder is not read); a leading byte-order mark
  is dropped; bytes that are not UTF-8 are replaced.
* **Conditionals are the preprocessor's**: every ``#include`` line is replaced whatever ``#if``
  surrounds it, so Slang skips an inlined file under an inactive ``#if`` as it would skip the
  ``#include``. An include that cannot be read (not found, not a regular file, too large, a NUL
  byte, nested too deeply) becomes an ``#error`` on its own line, saying why: an error only
  where the preprocessor reaches it. A ``#line`` marker follows every inlined file and every
  ``#else``/``#elif``/``#endif`` after one, so line numbers stay right whichever branch is taken.
* **#pragma once** is kept exactly: the file is wrapped in ``#ifndef GPUIA_ONCE_N`` and the pragma
  line becomes ``#define GPUIA_ONCE_N`` (a pragma under an inactive ``#if`` defines nothing). An
  include of a file already being included, when a guard (``#pragma once`` above it, or an
  ``#ifndef G``/``#define G`` pair around the whole file) makes it empty, is left out: the cycle
  Slang itself refuses (E15302) is empty in fxc and dxc. A cycle no guard ends is cut at
  :data:`MAX_DEPTH`, as a preprocessor's depth limit cuts it.
* **Bounded**: at most :data:`MAX_DEPTH` nested includes (deeper, the ``#error`` above),
  :data:`MAX_FILES` files and :data:`MAX_TEXT_CHARS` characters of inlined text (past those,
  an :class:`~gpuia.errors.InvalidDescError`). A guarded file whose guard is certainly defined
  (an unconditional first inclusion, a guard macro no other file or define names) is inlined
  once: repeats of it are empty to the preprocessor, and are left out.
* **What was read**: :attr:`Inlined.files` (every file read, for the cache and for refusals that
  point into them) and :attr:`Inlined.candidates` (the paths searched, absent, before each file
  was found: a file appearing there would be read instead).

Not resolved: an ``#include`` whose name is a macro (``#include HEADER``) is left to Slang's own
preprocessor, which reads that file as it is (without gpuia's rewrites).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..errors import GpuiaError, InvalidDescError
from ..util.files import read_input

__all__ = ["Included", "Inlined", "Reader", "inline", "included_files", "mask", "line_marker",
           "location",
           "MAX_DEPTH", "MAX_FILES", "MAX_FILE_BYTES", "MAX_TEXT_CHARS", "ONCE_PREFIX"]

MAX_DEPTH = 64
"""Nested includes: past this depth an include is an ``#error`` where the preprocessor reaches it
(clang stops at 200; real shaders nest a few levels)."""
MAX_FILES = 1024
MAX_FILE_BYTES = 16 << 20
MAX_TEXT_CHARS = 64 << 20
ONCE_PREFIX = "GPUIA_ONCE_"
"""The macro that emulates a file's ``#pragma once`` (``GPUIA_ONCE_<n>``)."""

_DIRECTIVE_RE = re.compile(r"^[ \t]*#[ \t]*(\w+)", re.M)
_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]*)"|<([^>\n]*)>)', re.M)
_ONCE_RE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+once\b[^\n]*", re.M)
_MASK_RE = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:[^\"\\\n]|\\.)*\"?|'(?:[^'\\\n]|\\.)*'?",
                      re.S)
_OPENERS = ("if", "ifdef", "ifndef")


class _Recent:
    """The results of a function of a text for the texts last asked for, at most
    ``max_chars`` characters of them (a compile reads each file several times)."""

    def __init__(self, compute, max_chars: int = 32 << 20):
        self.compute, self.max_chars = compute, max_chars
        self.kept: OrderedDict = OrderedDict()
        self.chars = 0
        self.lock = threading.Lock()

    def __call__(self, text: str):
        with self.lock:
            if text in self.kept:
                self.kept.move_to_end(text)
                return self.kept[text]
        value = self.compute(text)
        with self.lock:
            if text not in self.kept and len(text) <= self.max_chars:
                self.kept[text] = value
                self.chars += len(text)
                while self.chars > self.max_chars:
                    old, _ = self.kept.popitem(last=False)
                    self.chars -= len(old)
        return value


def _mask(text: str) -> str:
    def blank(m: re.Match) -> str:
        s = m.group(0)
        if s[0] in "\"'":
            return s[0] + re.sub(r"[^\n]", " ", s[1:-1]) + s[-1] if len(s) > 1 else s
        return re.sub(r"[^\n]", " ", s)
    return _MASK_RE.sub(blank, text)


_MASKED = _Recent(_mask)


def mask(text: str) -> str:
    """``text`` with comments blanked (newlines kept, so positions and lines stay) and string
    and character literals blanked inside their quotes."""
    return _MASKED(text)


def _unmask_includes(code: str, text: str) -> str:
    """The masked text with every ``#include "..."`` directive's name restored (masking blanks
    the quoted name)."""
    out = list(code)
    for m in re.finditer(r'^[ \t]*#[ \t]*include[ \t]*"', code, re.M):
        end = text.find('"', m.end())
        nl = text.find("\n", m.end())
        if end != -1 and (nl == -1 or end < nl):
            out[m.end():end] = text[m.end():end]
    return "".join(out)


def _code(text: str) -> str:
    """What the directives of ``text`` are read from: :func:`mask`, the names of its ``#include
    "..."`` lines kept."""
    return _unmask_includes(mask(text), text)


def line_marker(line: int, name: str) -> str:
    """A ``#line`` directive: the next line is ``line`` of file ``name``."""
    return f'#line {line} "' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


_MARKER_RE = re.compile(r'^#line (\d+) "((?:[^"\\]|\\.)*)"$', re.M)


def location(text: str, pos: int, name: str) -> tuple[str, int]:
    """(file, line) of position ``pos`` of an inlined ``text`` (:func:`inline`), read from the
    ``#line`` markers above it; ``name`` is the file's before any marker."""
    line, at = 1, 0
    for m in _MARKER_RE.finditer(text, 0, pos):
        line, name, at = int(m.group(1)), re.sub(r"\\(.)", r"\1", m.group(2)), m.end() + 1
    return name, line + text.count("\n", at, pos)


@dataclass(frozen=True)
class Included:
    """A file an include read: its path (absolute, as found) and its text."""

    path: str
    text: str


@dataclass(frozen=True)
class Inlined:
    """The source with its includes inlined (:func:`inline`)."""

    text: str
    files: tuple[Included, ...]  # every file read, in the order first read
    candidates: tuple[str, ...]  # paths searched before a file was found, absent then


class Reader:
    """The files of one compile, each read once (a compile prepares its source more than once;
    every pass must see the same text), with the SHA-256 of the bytes read (what the cache
    records: the file as the compile saw it, not as it is once the compile is done)."""

    def __init__(self):
        self.texts: dict[str, tuple[str | None, str]] = {}  # path -> (text, why not)
        self.digests: dict[str, str] = {}  # path -> SHA-256 of what was read

    def read(self, path: str) -> tuple[str | None, str]:
        if path not in self.texts:
            try:
                data = read_input(path, MAX_FILE_BYTES)
            except GpuiaError as e:
                self.texts[path] = (None, _why(str(e), path))
            else:
                self.digests[path] = hashlib.sha256(data).hexdigest()
                text = data.decode("utf-8", "replace").removeprefix("\ufeff")
                self.texts[path] = (None, "it holds a NUL byte") if "\0" in text else (text, "")
        return self.texts[path]


def _why(message: str, path: str) -> str:
    return message.removeprefix(f"{path}: ").strip() or "it cannot be read"


def _search(name: str, quoted: bool, folder: str | None, include_dirs) -> list[str]:
    bases = ([folder] if quoted and folder else []) + [str(d) for d in include_dirs]
    return [os.path.normpath(os.path.join(base, name)) for base in bases]


@dataclass
class _Guard:
    kind: str  # "once" or "macro"
    name: str  # the macro that guards the file (GPUIA_ONCE_n, or the user's)
    line: int  # the first line (1-based) after which the guard is defined
    unconditional: bool  # the guard is defined whenever the file is read (not under an #if)


def _conditional_depths(code: str) -> list[int]:
    """The ``#if`` nesting depth at the start of every line (1-based index; [0] unused)."""
    lines = code.split("\n")
    depths = [0] * (len(lines) + 2)
    depth = 0
    for i, line in enumerate(lines, 1):
        depths[i] = depth
        m = re.match(r"[ \t]*#[ \t]*(\w+)", line)
        if m:
            if m.group(1) in _OPENERS:
                depth += 1
            elif m.group(1) == "endif":
                depth = max(0, depth - 1)
    depths[len(lines) + 1] = depth
    return depths


def _macro_guard(code: str) -> tuple[str, int, int] | None:
    """(G, the ``#define G`` line, the ``#endif`` line) when the whole file is ``#ifndef G``
    / ``#define G`` ... ``#endif`` with nothing but blanks around it."""
    directives = [(m.start(), m.group(1)) for m in _DIRECTIVE_RE.finditer(code)]
    if len(directives) < 3 or code[:directives[0][0]].strip():
        return None
    first = re.match(r"[ \t]*#[ \t]*(?:ifndef[ \t]+(\w+)|if[ \t]+!\s*defined\s*\(?\s*(\w+)\s*\)?)"
                     r"[ \t]*$", code[directives[0][0]:].split("\n", 1)[0])
    second = re.match(r"[ \t]*#[ \t]*define[ \t]+(\w+)\b", code[directives[1][0]:])
    if not first or not second or second.group(1) != (first.group(1) or first.group(2)):
        return None
    depth, end = 0, None
    for pos, word in directives:
        if word in _OPENERS:
            depth += 1
        elif word == "endif":
            depth -= 1
            if depth == 0:
                end = pos
                break
    if end is None or code[end:].split("\n", 1)[-1].strip() and "\n" in code[end:]:
        return None
    return (second.group(1), code.count("\n", 0, directives[1][0]) + 1,
            code.count("\n", 0, end) + 1)


class _Inliner:
    def __init__(self, include_dirs, rewrite, reader: Reader, distrusted: frozenset[str]):
        self.include_dirs = tuple(include_dirs)
        self.rewrite = rewrite
        self.reader = reader
        self.distrusted = distrusted  # user guard macros another file or a define also names
        self.files: dict[str, Included] = {}
        self.candidates: list[str] = []
        self.once: dict[str, str] = {}  # real path -> its GPUIA_ONCE_ macro
        self.done: set[str] = set()  # guarded files whose guard is certainly defined now
        self.macro_guards: dict[str, str] = {}  # user guard macro -> the file it guards
        self.at: dict[str, int] = {}  # file being read -> the line of the include it is reading
        self.chars = 0

    def guard(self, path: str, code: str) -> _Guard | None:
        once = list(_ONCE_RE.finditer(code))
        if once:
            key = os.path.realpath(path)
            name = self.once.setdefault(key, f"{ONCE_PREFIX}{len(self.once)}")
            depths = _conditional_depths(code)
            lines = [code.count("\n", 0, m.start()) + 1 for m in once]
            plain = [n for n in lines if depths[n] == 0]
            return _Guard("once", name, (plain or lines)[0], bool(plain))
        found = _macro_guard(code)
        if found is None or found[0] in self.distrusted:
            return None
        self.macro_guards[found[0]] = path
        return _Guard("macro", found[0], found[1], True)

    def file(self, text: str, code: str, guard: _Guard | None, label: str, folder: str | None,
             stack: tuple[str, ...], certain: bool) -> str:
        """``text`` (the file ``label``, found in ``folder``; ``code``: :func:`_code` of it,
        ``guard``: its guard, None for the shader's own file) rewritten, its includes inlined.
        ``certain``: the preprocessor certainly reads this file (no ``#if`` around it)."""
        lines = text.split("\n")
        depths = _conditional_depths(code)
        guard_depth = 1 if guard is not None and guard.kind == "macro" else 0
        includes: dict[int, re.Match] = {}
        for m in _INCLUDE_RE.finditer(code):
            n = code.count("\n", 0, m.start()) + 1
            if n > 1 and lines[n - 2].endswith("\\"):
                continue  # the line continues a directive above it
            includes[n] = m
            start = m.start() - code.rfind("\n", 0, m.start()) - 1
            width = m.end() - m.start()
            lines[n - 1] = lines[n - 1][:start] + " " * width + lines[n - 1][start + width:]
        # The included files first, in order (the preprocessor's): the rewrite of this file
        # then knows every macro defined before any line of it.
        inlined = {n: self.include(directive, n, label, folder, stack,
                                   certain and depths[n] - guard_depth <= 0, guard)
                   for n, directive in sorted(includes.items())}
        body = self.rewrite("\n".join(lines), label).split("\n")
        if guard is not None and guard.kind == "once":
            for m in _ONCE_RE.finditer(code):  # after the rewrite: the macro is gpuia's
                body[code.count("\n", 0, m.start())] = f"#define {guard.name}"
        out: list[str] = []
        after_include = False
        for n, line in enumerate(body, 1):
            if n not in inlined:
                out.append(line)
                word = re.match(r"[ \t]*#[ \t]*(\w+)", line)
                if after_include and word and word.group(1) in ("else", "elif", "endif"):
                    out.append(line_marker(n + 1, label))
                continue
            after_include = True
            out += [inlined[n], line_marker(n, label), line]
        result = "\n".join(out)
        if guard is not None and guard.kind == "once":
            result = f"#ifndef {guard.name}\n{line_marker(1, label)}\n{result}\n#endif"
        return result

    def include(self, m: re.Match, n: int, label: str, folder: str | None,
                stack: tuple[str, ...], certain: bool, own_guard: _Guard | None) -> str:
        quoted = m.group(1) is not None
        name = m.group(1) if quoted else m.group(2)
        spelled = f'"{name}"' if quoted else f"<{name}>"
        if len(stack) >= MAX_DEPTH:
            return _error(f"#include {spelled}: includes nested more than {MAX_DEPTH} deep "
                          f"({' -> '.join(os.path.basename(p) for p in stack[-3:])} ...)")
        searched = _search(name, quoted, folder, self.include_dirs)
        path = next((p for p in searched if os.path.isfile(p) or
                     (os.path.exists(p) and not os.path.isdir(p))), None)
        if path is None:
            self.candidates += searched
            where = ", ".join(os.path.dirname(p) or "." for p in searched) or \
                "no folder (a source given as text has none: pass include_dirs)"
            return _error(f"cannot find include file {spelled} (searched: {where})")
        self.candidates += searched[:searched.index(path)]
        text, why = self.reader.read(path)
        if text is None:
            return _error(f"#include {spelled}: {path}: {why}")
        if path not in self.files:
            if len(self.files) >= MAX_FILES:
                raise InvalidDescError("hlsl", f"{label}:{n}", spelled,
                                       f"the shader includes more than {MAX_FILES} files")
            self.files[path] = Included(path, text)
        if path in self.done:
            return ""  # a guarded file included before: empty to the preprocessor
        code = _code(text)
        guard = self.guard(path, code)
        if path in stack and guard is not None and guard.unconditional and \
                guard.line < self.at[path]:
            return ""  # a cycle the guard, defined above the line that led here, makes empty
        self.at[label] = n
        inlined = self.file(text, code, guard, path, os.path.dirname(path), stack + (path,),
                            certain)
        if certain and guard is not None and guard.unconditional:
            self.done.add(path)
        self.chars += len(inlined)
        if self.chars > MAX_TEXT_CHARS:
            raise InvalidDescError("hlsl", f"{label}:{n}", spelled,
                                   f"the includes expand to more than {MAX_TEXT_CHARS} "
                                   f"characters")
        return f"{line_marker(1, path)}\n{inlined}"


_WORD_RE = re.compile(r"\w+")


_WORDS = _Recent(lambda text: Counter(_WORD_RE.findall(mask(text))))


def _words(text: str) -> Counter:
    """How often each identifier-like word occurs in ``text``'s code (comments and strings
    left out)."""
    return _WORDS(text)


def _named(names, texts: Iterable[str], defines: Iterable[tuple[str, str]]) -> Counter:
    """How often each of ``names`` occurs in the code of ``texts`` and in ``defines`` (only
    those names are counted: merging every word of every file cost time in the square of the
    files)."""
    if not names:
        return Counter()
    out = Counter(w for k, v in defines for w in _WORD_RE.findall(f"{k} {v}") if w in names)
    for text in texts:
        words = _words(text)
        out.update({n: words[n] for n in names if n in words})
    return out


def _error(message: str) -> str:
    """An ``#error`` line: an error only where the preprocessor reaches it."""
    return "#error " + message.replace("\n", " ")


def _unchanged(text: str, label: str) -> str:
    return text


def inline(source: str, name: str, folder: str | None, include_dirs=(),
           rewrite: Callable[[], Callable[[str, str], str]] = lambda: _unchanged,
           reader: Reader | None = None, defines: Iterable[tuple[str, str]] = ()) -> Inlined:
    """``source`` (named ``name`` in ``#line`` markers and by the rewrite; its includes found
    from ``folder``, None for a source given as text) with every ``#include`` replaced by its
    file, after ``f(text, name)`` of every file, where ``f = rewrite()`` (it must keep the
    number of lines); see the module docstring. A pass over the files is made again when a
    guard macro turns out to be named elsewhere, and asks ``rewrite()`` for a new ``f``: what a
    rewrite gathers across files counts the last pass only. ``defines`` are the shader's,
    which may name a guard macro. Raises :class:`~gpuia.errors.InvalidDescError` past
    :data:`MAX_FILES` or :data:`MAX_TEXT_CHARS`."""
    reader = reader or Reader()
    distrusted: frozenset[str] = frozenset()
    while True:
        inliner = _Inliner(include_dirs, rewrite(), reader, distrusted)
        text = inliner.file(source, _code(source), None, name, folder, (), True)
        # A guard macro that another file or a define names may be defined or undefined
        # elsewhere: then the file is not certainly empty after its first inclusion.
        named = _named(inliner.macro_guards, [source, *(f.text for f in inliner.files.values())],
                       defines)
        late = frozenset(g for g, path in inliner.macro_guards.items()
                         if named[g] > _words(reader.read(path)[0] or "")[g] or
                         re.search(rf"#[ \t]*undef[ \t]+{re.escape(g)}\b",
                                   mask(reader.read(path)[0] or "")))
        if late <= distrusted:
            return Inlined(text, tuple(inliner.files.values()), tuple(dict.fromkeys(
                inliner.candidates)))
        distrusted |= late


def included_files(source: str, folder: str | None, include_dirs=(),
                   reader: Reader | None = None) -> list[Included]:
    """Every file ``source`` includes, directly or not, whatever ``#if`` surrounds the
    ``#include`` (found as :func:`inline` finds them), each once, in the order first met."""
    return list(inline(source, "", folder, include_dirs, reader=reader).files)
