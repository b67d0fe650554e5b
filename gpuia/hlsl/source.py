"""The user's HLSL as Slang must see it: a prelude, renamed semantics, and fixes of Slang.

The main file and every file it includes (``gpuia.hlsl.includes`` inlines them, each between
``#line`` markers) get the same rewrites. Every rewrite keeps the user's line numbers (the
prelude ends with ``#line 1 "<file>"``; the others change text within a line), so Slang's
diagnostics point at the user's own files and lines, and :func:`restore` turns gpuia's names back
into the user's in any text Slang prints.

* **min16/min10/min12 types** are typedefs of their 32-bit types and ``half`` is ``float``, as
  fxc and dxc compile them without ``-enable-16bit-types`` (Slang knows no ``min16float4``, and
  its ``half`` is 16-bit); **sampler**, fxc's legacy name of ``SamplerState``, is a typedef of it.
* **System-value semantics** (``SV_Position``, ``SV_ClipDistance0``, ...) are renamed
  ``GPUIA_SV_...``: D3D lets a vertex shader read ``SV_Position`` from the input layout
  (rules 3.8) and write any ``SV_ClipDistance`` vector, Slang refuses both, and gpuia's own
  wrapper decides what each system value is anyway.
* **noperspective with centroid or sample** (Slang refuses the pair) becomes the sampling
  modifier alone, and the declaration's semantic carries a mark gpuia reads back.
* **row_major / column_major on a matrix array** (Slang ignores the modifier there) becomes a
  typedef'd matrix type, which Slang honours. A modifier gpuia cannot rewrite this way (a
  matrix type spelled through a macro) is refused rather than silently ignored.
* **Truncating vector casts** ``(float3)v`` of a wider vector (fxc and dxc keep the first
  components; Slang refuses the cast) become ``(float3)gpuia_truncate3(v)``, whose overloads
  keep the first components of a wider vector and pass anything else through, so the cast
  does what it did. The operand is found as C parses a cast's operand; one that starts with a
  macro (whose expansion could bind otherwise once wrapped) is left to Slang.
* **#pragma pack_matrix** (Slang ignores it) sets the default matrix packing when every matrix
  the shader declares falls under the same mode, the files read in the preprocessor's order
  (an included file's pragma counts from its place on); mixed modes are refused. Which pragmas
  count is the preprocessor's answer: each is first compiled as a marker declaration, and only
  those Slang's reflection then lists (not in an inactive ``#if``) count.

Refused, at the user's file and line: a name gpuia generates (:data:`RESERVED_PREFIXES`, any
case), which would clash with gpuia's own in a text the user never wrote.
"""

from __future__ import annotations

import os
import re

from ..errors import InvalidDescError
from . import includes

__all__ = ["PreparedSource", "prepare", "restore", "SV_PREFIX", "NOPERSPECTIVE_PREFIX",
           "MATRIX_LAYOUTS", "PRAGMA_MARKER", "pragma_marker", "RESERVED_PREFIXES",
           "RESERVED_RE", "CAST_HELPER"]

SV_PREFIX = "GPUIA_SV_"
NOPERSPECTIVE_PREFIX = "GPUIA_NP_"
"""On a semantic: the declaration was ``noperspective`` with ``centroid`` or ``sample``, a pair
Slang refuses; gpuia gives Slang the sampling modifier alone and this mark."""
MATRIX_LAYOUTS = ("column_major", "row_major")
RESERVED_PREFIXES = ("hlslw_", "gpuia_")
"""Names gpuia generates start so (any case: ``GPUIA_SV_``, ``GPUIA_NP_``, ``GPUIA_IN``,
``GPUIA_ONCE_`` too); a user's name spelled so is refused."""
RESERVED_RE = re.compile(r"(?<![\w$])(?:" + "|".join(RESERVED_PREFIXES) + r")\w*", re.I)
CAST_HELPER = "gpuia_truncate"
"""``(float3)v`` becomes ``(float3)gpuia_truncate3(v)``: the first 3 components of a wider
vector, anything else unchanged (fxc and dxc truncate; Slang refuses the cast)."""

_MIN_TYPES = (("min16float", "float"), ("min10float", "float"), ("min16int", "int"),
              ("min12int", "int"), ("min16uint", "uint"))
_DIMS = (1, 2, 3, 4)


def _base_prelude() -> list[str]:
    lines = ["// gpuia: HLSL types as fxc/dxc compile them (no 16-bit types)"]
    for name, base in _MIN_TYPES:
        lines.append(f"typedef {base} {name};")
        for n in _DIMS:
            lines.append(f"typedef {base}{n} {name}{n};")
            lines += [f"typedef {base}{n}x{m} {name}{n}x{m};" for m in _DIMS]
    lines.append("typedef SamplerState sampler;  // fxc's legacy name of the sampler type")
    lines.append("#define half float")
    for n in _DIMS:
        lines.append(f"#define half{n} float{n}")
        lines += [f"#define half{n}x{m} float{n}x{m}" for m in _DIMS]
    return lines


_PRELUDE = _base_prelude()
_SYSTEM_VALUES = ("Position", r"ClipDistance\d*", r"CullDistance\d*", "VertexID", "InstanceID",
                  r"Target\d*", "Depth", "DepthGreaterEqual", "DepthLessEqual", "IsFrontFace",
                  "PrimitiveID", "SampleIndex", "Coverage", "InnerCoverage", "StencilRef",
                  "RenderTargetArrayIndex", "ViewportArrayIndex", "GSInstanceID", "ViewID",
                  "Barycentrics", "ShadingRate", "CullPrimitive", "DispatchThreadID", "GroupID",
                  "GroupIndex", "GroupThreadID")
# D3D's system-value names only (any case), with a semantic index if spelled (SV_POSITION0, as
# SPIRV-Cross writes it): a user identifier that merely starts with sv_ stays.
_SV_RE = re.compile(rf"\bSV_((?:{'|'.join(_SYSTEM_VALUES)})\d*)\b", re.I)
_SCALARS = (r"(?:float|half|double|int|uint|bool|dword|min16float|min10float|min16int|min12int|"
            r"min16uint)")
_MATRIX_TYPE = (rf"(?:{_SCALARS}[1-4]x[1-4]\b|matrix\s*<\s*\w+\s*,\s*[1-4]\s*,\s*[1-4]\s*>|"
                rf"matrix\b)")
# D3D's combined interpolation modes Slang refuses as "duplicate modifier" (E31202).
_PAIR_RE = re.compile(r"\b(?:(linear|noperspective)\s+(centroid|sample)|(centroid|sample)\s+"
                      r"(linear|noperspective))\b(?P<decl>[^;:,(){}]*?:\s*(?P<sem>\w+))?")
_MAJOR_ARRAY_RE = re.compile(
    rf"\b(row_major|column_major)(\s+(?:const\s+|uniform\s+|static\s+)*)({_MATRIX_TYPE})"
    r"(\s+\w+\s*\[)")
_LEFT_MAJOR_ARRAY_RE = re.compile(r"\b(row_major|column_major)\s+(?:\w+\s+)*?(\w+)\s+(\w+)\s*\[")
_PRAGMA_RE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+pack_matrix[ \t]*\(([^)]*)\)[^\n]*$", re.M)
_MATRIX_TOKEN_RE = re.compile(rf"(\b(?:row_major|column_major)\s+)?\b{_MATRIX_TYPE}")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_DEFINE_RE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_PRAGMA_MARK = "gpuia:pack_matrix "
_VECTOR_SCALARS = ("float", "int", "uint", "bool", "double")
_CAST_RE = re.compile(rf"\(\s*(?:{_SCALARS}([1-3])|vector\s*<\s*\w+\s*,\s*([1-3])\s*>)\s*\)")
_CAST_KEYWORDS = frozenset("return else case do in out".split())
_NUMBER_RE = re.compile(r"\.?\d(?:[eEpP][-+]|[\w.])*")
_IDENT_RE = re.compile(r"[A-Za-z_]\w*")


class PreparedSource:
    """The text Slang compiles and what the rewrites decided."""

    def __init__(self, text: str, prelude_lines: int, matrix_layout: str, typedefs: dict,
                 typedef_vars: dict):
        self.text = text
        self.prelude_lines = prelude_lines
        self.matrix_layout = matrix_layout  # the default packing after #pragma pack_matrix
        self.typedefs = typedefs  # generated type name -> the user's spelling
        self.typedef_vars = typedef_vars  # declared name -> generated type name (matrix arrays)
        self.pragmas = 0  # #pragma pack_matrix lines (marked when asked for, see prepare)
        self.names = ("", "")  # (the name Slang gets, the user's name) of the file
        self.files: tuple[includes.Included, ...] = ()  # the files the source included
        self.candidates: tuple[str, ...] = ()  # paths searched before each was found


def _typedef_name(major: str, type_text: str) -> str:
    return "gpuia_" + major + "_" + re.sub(r"\W+", "_", type_text).strip("_")


def _blank(match: re.Match) -> str:
    """A comment replaced by spaces, newlines kept (positions and line numbers stay)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _pragmas(text: str, file_name: str) -> list[tuple[int, str, re.Match]]:
    """(line, mode, match) of every ``#pragma pack_matrix`` of the file (comments aside);
    refuses an unknown argument and a pragma inside braces (gpuia marks each one with a
    declaration at its place)."""
    code = _COMMENT_RE.sub(_blank, text)
    out = []
    for m in _PRAGMA_RE.finditer(code):
        line = code.count("\n", 0, m.start()) + 1
        arg = m.group(1).strip().lower()
        if arg not in MATRIX_LAYOUTS:
            raise InvalidDescError("hlsl", f"{file_name}:{line}", m.group(0).strip(),
                                   "#pragma pack_matrix takes row_major or column_major "
                                   "(push/pop forms are not supported)")
        if code.count("{", 0, m.start()) != code.count("}", 0, m.start()):
            raise InvalidDescError("hlsl", f"{file_name}:{line}", m.group(0).strip(),
                                   "gpuia takes #pragma pack_matrix at file scope only")
        out.append((line, arg, m))
    return out


def _pack_matrix(text: str, default: str, sites, active, line_name: str,
                 file_name: str) -> str:
    """The packing ``#pragma pack_matrix`` gives every matrix of ``text`` (the inlined source:
    the pragmas are the comments :class:`_Rewriter` left in their place, ``sites`` says where
    each was written): only the pragmas numbered in ``active`` count (those the preprocessor
    keeps); refuses a shader whose matrices fall under different modes."""
    code = _COMMENT_RE.sub(_blank, text)
    events: list[tuple[int, str, int | None]] = [
        (m.start(), "pragma", int(m.group(1)))
        for m in re.finditer(rf"/\*{_PRAGMA_MARK}(\d+)\*/", text) if int(m.group(1)) in active]
    if not events:
        return default
    events += [(m.start(), "matrix", None) for m in _MATRIX_TOKEN_RE.finditer(code)
               if not m.group(1)]
    mode = default
    seen: dict[str, int] = {}  # mode -> where the first matrix under it is
    for pos, _, k in sorted(events, key=lambda e: e[0]):
        if k is not None:
            mode = sites[k][2]
        else:
            seen.setdefault(mode, pos)
    if len(seen) > 1:
        (a, pa), (b, pb) = sorted(seen.items(), key=lambda kv: kv[1])

        def where(pos: int) -> tuple[str, int]:
            name, line = includes.location(text, pos, line_name)
            return file_name if name == line_name else name, line

        (fa, la), (fb, lb) = where(pa), where(pb)
        of = "" if fa == fb else f" of {fa}"
        raise InvalidDescError("hlsl", f"{fb}:{lb}", "#pragma pack_matrix",
                               f"matrices are declared under {a} (line {la}{of}) and {b} (line "
                               f"{lb}); gpuia applies one packing per shader (Slang ignores "
                               f"the pragma): use row_major/column_major on the declarations")
    return next(iter(seen), mode)


PRAGMA_MARKER = "gpuia_pack_matrix_"


def pragma_marker(k: int) -> str:
    """Pragma k as a declaration Slang's reflection lists when, and only when, the
    preprocessor keeps it (an unread cbuffer in a space of its own)."""
    return (f"cbuffer {PRAGMA_MARKER}{k} : register(b0, space{900 + k}) "
            f"{{ float {PRAGMA_MARKER}{k}_v; }};")


def _skip(code: str, i: int) -> int:
    while i < len(code) and code[i].isspace():
        i += 1
    return i


def _closing(code: str, i: int) -> int | None:
    """The index of the bracket closing the one at ``i`` (None when it does not close)."""
    pairs = {"(": ")", "[": "]"}
    stack = []
    for j in range(i, len(code)):
        c = code[j]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]":
            if not stack or stack.pop() != c:
                return None
            if not stack:
                return j
        elif c in ";{}":
            return None
    return None


def _operand_end(code: str, i: int, macros: set[str]) -> int | None:
    """Where the operand of a cast that ends at ``i`` ends (C's unary expression: prefix
    operators, casts, a name, number or parenthesized expression, then member accesses,
    indexing, calls); None where gpuia cannot tell (a macro, whose expansion may bind
    differently once wrapped in a call)."""
    i = _skip(code, i)
    while True:
        if code.startswith(("++", "--"), i):
            i = _skip(code, i + 2)
        elif i < len(code) and code[i] in "-+!~":
            i = _skip(code, i + 1)
        elif cast := _CAST_RE.match(code, i):
            i = _skip(code, cast.end())
        else:
            break
    if i >= len(code):
        return None
    if code[i] == "(":
        close = _closing(code, i)
        if close is None:
            return None
        end = close + 1
    elif number := _NUMBER_RE.match(code, i):
        end = number.end()
    else:
        m = _IDENT_RE.match(code, i)
        if m is None or m.group(0) in macros:
            return None
        end = m.end()
    while True:
        j = _skip(code, end)
        member = _IDENT_RE.match(code, j + 1) if j < len(code) and code[j] == "." else None
        if member:
            end = member.end()
        elif j < len(code) and code[j] in "([":
            close = _closing(code, j)
            if close is None:
                return None
            end = close + 1
        elif code.startswith(("++", "--"), j):
            end = j + 2
        else:
            return end


def _truncating_casts(text: str, macros: set[str], widths: set[int]) -> str:
    """Every cast to a vector of 1-3 components, ``(float3)x``, becomes
    ``(float3)gpuia_truncate3(x)`` (:data:`CAST_HELPER`), its operand found as C parses it;
    ``widths`` collects the widths used. Within lines: line numbers stay."""
    code = includes.mask(text)
    edits: list[tuple[int, str]] = []
    for m in _CAST_RE.finditer(code):
        before = code[max(0, m.start() - 256):m.start()].rstrip()  # what precedes the "("
        word = re.search(r"\w+$", before)
        if before.endswith((")", "]")) or (word and word.group(0) not in _CAST_KEYWORDS):
            continue  # a call's parentheses (sizeof(float3)), not a cast
        end = _operand_end(code, m.end(), macros)
        if end is None:
            continue
        width = int(m.group(1) or m.group(2))
        widths.add(width)
        edits += [(m.end(), f"{CAST_HELPER}{width}("), (end, ")")]
    for at, insert in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:at] + insert + text[at:]
    return text


def _cast_helpers(width: int) -> list[str]:
    """The overloads of ``gpuia_truncate<width>``: a wider vector's first components, any
    other value (a narrower vector, a scalar, a matrix, a struct) unchanged."""
    name, swizzle = f"{CAST_HELPER}{width}", "xyzw"[:width]
    out = []
    for s in _VECTOR_SCALARS:
        out.append(f"{s} {name}({s} v) {{ return v; }}")
        for n in range(1, 5):
            vec = f"vector<{s}, {n}>"
            out.append(f"vector<{s}, {width}> {name}({vec} v) {{ return v.{swizzle}; }}"
                       if n > width else f"{vec} {name}({vec} v) {{ return v; }}")
    out.append(f"T {name}<T>(T v) {{ return v; }}")
    return out


class _Rewriter:
    """The per-file rewrites (``includes.inline`` calls :meth:`file` on the main file and on
    every included one), with what they decided across files."""

    def __init__(self, main: tuple[str, str], markers: bool, macros: set[str]):
        self.main = main  # (the name Slang gets for the main file, the user's name for it)
        self.markers = markers
        # every macro the defines and the files read so far define (includes.inline reads a
        # file's includes before the file itself: a macro is defined before it is used)
        self.macros = macros
        self.typedefs: dict[str, str] = {}
        self.typedef_vars: dict[str, str] = {}
        self.sites: list[tuple[str, int, str]] = []  # per pragma k: (file, line, mode)
        self.casts: set[int] = set()  # widths the truncating-cast helpers are needed for

    def shown(self, label: str) -> str:
        return self.main[1] if label == self.main[0] else label

    def file(self, text: str, label: str) -> str:
        shown = self.shown(label)
        code = includes.mask(text)
        _refuse_reserved(code, shown)
        self.macros.update(m.group(1) for m in _DEFINE_RE.finditer(code))  # not in comments
        pragmas = _pragmas(text, shown)
        first = len(self.sites)
        self.sites += [(shown, line, arg) for line, arg, _ in pragmas]
        # each pragma _pragmas found (not one inside a comment) at its place: a marker, or a
        # comment gpuia finds again in the whole text (_pack_matrix)
        mark = pragma_marker if self.markers else (lambda k: f"/*{_PRAGMA_MARK}{k}*/")
        for k, (_, _, m) in reversed(list(enumerate(pragmas, first))):
            text = text[:m.start()] + mark(k) + text[m.end():]
        text = _MAJOR_ARRAY_RE.sub(self._major_array, text)
        text = _PAIR_RE.sub(_pair, text)
        left = _LEFT_MAJOR_ARRAY_RE.search(_COMMENT_RE.sub(_blank, text))
        if left:
            line = text.count("\n", 0, left.start()) + 1
            raise InvalidDescError("hlsl", f"{shown}:{line}", left.group(0).strip(),
                                   f"{left.group(1)} on an array of '{left.group(2)}': Slang "
                                   f"ignores the modifier on matrix arrays and gpuia can apply "
                                   f"it only to a matrix type spelled out (float3x4, matrix<float, "
                                   f"3, 4>)")
        text = _truncating_casts(text, self.macros, self.casts)
        return _SV_RE.sub(lambda m: SV_PREFIX + m.group(1), text)

    def _major_array(self, m: re.Match) -> str:
        name = _typedef_name(m.group(1), m.group(3))
        self.typedefs[name] = f"{m.group(1)} {' '.join(m.group(3).split())}"
        self.typedef_vars[m.group(4).strip().rstrip("[").strip()] = name
        return f"{m.group(2).lstrip()}{name}{m.group(4)}" if m.group(2).strip() \
            else f"{name}{m.group(4)}"


def _pair(m: re.Match) -> str:
    """``noperspective centroid T x : SEM`` -> ``centroid T x : GPUIA_NP_SEM`` (the
    declaration itself says it is screen-linear; gpuia's reflection reads it back)."""
    kind = m.group(1) or m.group(4)
    sampling = m.group(2) or m.group(3)
    decl, sem = m.group("decl"), m.group("sem")
    if sem is None:  # no semantic in sight (a comment, a macro): Slang will judge it
        return m.group(0)
    if kind == "noperspective":
        decl = decl[:len(decl) - len(sem)] + NOPERSPECTIVE_PREFIX + sem
    return sampling + decl


def _refuse_reserved(code: str, shown: str) -> None:
    """Refuse a name gpuia generates (any case), at its line: it would collide with gpuia's."""
    m = RESERVED_RE.search(code)
    if m:
        line = code.count("\n", 0, m.start()) + 1
        raise InvalidDescError("hlsl", f"{shown}:{line}", m.group(0),
                               f"names starting {' or '.join(RESERVED_PREFIXES)} (in any case) "
                               f"are gpuia's own (its wrapper, typedefs and renamed semantics)")


def prepare(source: str, file_name: str, matrix_layout: str, active=None,
            markers: bool = False, line_name: str | None = None, source_path: str = "",
            include_dirs=(), defines=(), reader: includes.Reader | None = None
            ) -> PreparedSource:
    """Rewrite ``source`` and every file it includes for Slang (see the module docstring),
    the includes inlined (``gpuia.hlsl.includes``: ``source_path``'s folder, then
    ``include_dirs``; ``defines`` are the shader's). ``matrix_layout`` is the default packing
    (``column_major``, fxc/dxc's default, or ``row_major``, their /Zpr). ``active``: the numbers
    of the ``#pragma pack_matrix`` lines the preprocessor keeps (None: all of them). ``markers``
    asks which instead: each pragma becomes a :func:`pragma_marker` (``PreparedSource.pragmas``
    counts them) for a first compile to report. ``line_name`` is the name Slang gets for the
    file (its ``#line``), ``file_name`` the one refusals and :func:`restore` use. ``reader``
    keeps the files of one compile (each read once)."""
    line_name = line_name or file_name
    reader = reader or includes.Reader()
    folder = os.path.dirname(source_path) if source_path else None
    for name, value in defines:
        _refuse_reserved(f"{name} {value}", f"defines.{name}")
    passes: list[_Rewriter] = []

    def new_pass():  # includes.inline may read the files again: each pass starts afresh
        passes[:] = [_Rewriter((line_name, file_name), markers, {name for name, _ in defines})]
        return passes[0].file

    inlined = includes.inline(source, line_name, folder, include_dirs, new_pass, reader, defines)
    rewriter = passes[0]
    text = inlined.text
    layout = matrix_layout
    if not markers:
        if active is None:
            active = frozenset(range(len(rewriter.sites)))
        layout = _pack_matrix(text, matrix_layout, rewriter.sites, active, line_name, file_name)
        text = re.sub(rf"/\*{_PRAGMA_MARK}\d+\*/", "", text)
    prelude = list(_PRELUDE)
    prelude += [f"typedef {spelling} {name};" for name, spelling in rewriter.typedefs.items()]
    prelude += [line for n in sorted(rewriter.casts) for line in _cast_helpers(n)]
    prelude.append(includes.line_marker(1, line_name))
    out = PreparedSource("\n".join(prelude) + "\n" + text, len(prelude), layout,
                         rewriter.typedefs, rewriter.typedef_vars)
    out.pragmas = len(rewriter.sites)
    out.names = (line_name, file_name)
    out.files = inlined.files
    out.candidates = inlined.candidates
    return out


def restore(text: str, prepared: PreparedSource | None = None) -> str:
    """gpuia's renamings undone in text Slang printed (diagnostics, generated code)."""
    text = re.sub(rf"\b{SV_PREFIX}", "SV_", text)
    text = re.sub(rf"\b{NOPERSPECTIVE_PREFIX}", "", text)
    for name, spelling in (prepared.typedefs.items() if prepared else ()):
        text = text.replace(name, spelling)
    if prepared is not None and prepared.names[0] != prepared.names[1]:
        text = text.replace(prepared.names[0], prepared.names[1])
    return text
