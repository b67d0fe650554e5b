"""The user's HLSL as Slang must see it: a prelude, renamed semantics, and two fixes of Slang.

Every rewrite keeps the user's line numbers (the prelude ends with ``#line 1 "<file>"``; the
others change text within a line), so Slang's diagnostics point at the user's own lines, and
:func:`restore` turns gpuia's names back into the user's in any text Slang prints.

* **min16/min10/min12 types** are typedefs of their 32-bit types and ``half`` is ``float``, as
  fxc and dxc compile them without ``-enable-16bit-types`` (Slang knows no ``min16float4``, and
  its ``half`` is 16-bit).
* **System-value semantics** (``SV_Position``, ``SV_ClipDistance0``, ...) are renamed
  ``GPUIA_SV_...``: D3D lets a vertex shader read ``SV_Position`` from the input layout
  (rulebook 3.8) and write any ``SV_ClipDistance`` vector, Slang refuses both, and gpuia's own
  wrapper decides what each system value is anyway.
* **row_major / column_major on a matrix array** (Slang ignores the modifier there) becomes a
  typedef'd matrix type, which Slang honours. A modifier gpuia cannot rewrite this way (a
  matrix type spelled through a macro) is refused rather than silently ignored.
* **#pragma pack_matrix** (Slang ignores it) sets the default matrix packing when every matrix
  declared in the file is under the same mode; mixed modes are refused.
"""

from __future__ import annotations

import re

from ..errors import InvalidDescError

__all__ = ["PreparedSource", "prepare", "restore", "SV_PREFIX", "MATRIX_LAYOUTS"]

SV_PREFIX = "GPUIA_SV_"
MATRIX_LAYOUTS = ("column_major", "row_major")

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
# D3D's system-value names only (any case): a user identifier that merely starts with sv_ stays.
_SV_RE = re.compile(rf"\bSV_({'|'.join(_SYSTEM_VALUES)})\b", re.I)
_SCALARS = r"(?:float|half|double|int|uint|bool|dword|min16float|min10float|min16int|min12int|min16uint)"
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


class PreparedSource:
    """The text Slang compiles and what the rewrites decided."""

    def __init__(self, text: str, prelude_lines: int, matrix_layout: str, typedefs: dict,
                 typedef_vars: dict, noperspective: frozenset):
        self.text = text
        self.prelude_lines = prelude_lines
        self.matrix_layout = matrix_layout  # the default packing after #pragma pack_matrix
        self.typedefs = typedefs  # generated type name -> the user's spelling
        self.typedef_vars = typedef_vars  # declared name -> generated type name (matrix arrays)
        self.noperspective = noperspective  # semantics (upper case) declared noperspective
        # together with centroid or sample: Slang keeps only the sampling modifier


def _typedef_name(major: str, type_text: str) -> str:
    return "gpuia_" + major + "_" + re.sub(r"\W+", "_", type_text).strip("_")


def _blank(match: re.Match) -> str:
    """A comment replaced by spaces, newlines kept (positions and line numbers stay)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _pack_matrix(text: str, default: str, file_name: str) -> str:
    """The packing ``#pragma pack_matrix`` gives every matrix of ``text`` (see the module
    docstring); refuses a file whose matrices fall under different modes."""
    code = _COMMENT_RE.sub(_blank, text)
    events = [(m.start(), "pragma", m) for m in _PRAGMA_RE.finditer(code)]
    if not events:
        return default
    events += [(m.start(), "matrix", m) for m in _MATRIX_TOKEN_RE.finditer(code)
               if not m.group(1)]
    mode, seen = default, {}
    for pos, kind, m in sorted(events, key=lambda e: e[0]):
        line = code.count("\n", 0, pos) + 1
        if kind == "pragma":
            arg = m.group(1).strip().lower()
            if arg not in MATRIX_LAYOUTS:
                raise InvalidDescError("hlsl", f"{file_name}:{line}", m.group(0).strip(),
                                       "#pragma pack_matrix takes row_major or column_major "
                                       "(push/pop forms are not supported)")
            mode = arg
        else:
            seen.setdefault(mode, line)
    if len(seen) > 1:
        (a, la), (b, lb) = sorted(seen.items(), key=lambda kv: kv[1])
        raise InvalidDescError("hlsl", f"{file_name}:{lb}", "#pragma pack_matrix",
                               f"matrices are declared under {a} (line {la}) and {b} (line "
                               f"{lb}); gpuia applies one packing per shader (Slang ignores "
                               f"the pragma): use row_major/column_major on the declarations")
    return next(iter(seen), mode)


def prepare(source: str, file_name: str, matrix_layout: str) -> PreparedSource:
    """Rewrite ``source`` for Slang (see the module docstring). ``matrix_layout`` is the
    default packing (``column_major``, fxc/dxc's default, or ``row_major``, their /Zpr)."""
    layout = _pack_matrix(source, matrix_layout, file_name)
    text = _PRAGMA_RE.sub("", source)  # Slang would only warn that it ignores them
    typedefs: dict[str, str] = {}

    def fix(m: re.Match) -> str:
        name = _typedef_name(m.group(1), m.group(3))
        typedefs[name] = f"{m.group(1)} {' '.join(m.group(3).split())}"
        return f"{m.group(2).lstrip()}{name}{m.group(4)}" if m.group(2).strip() \
            else f"{name}{m.group(4)}"

    typedef_vars: dict[str, str] = {}

    def fix_and_note(m: re.Match) -> str:
        out = fix(m)
        typedef_vars[m.group(4).strip().rstrip("[").strip()] = _typedef_name(m.group(1),
                                                                             m.group(3))
        return out

    text = _MAJOR_ARRAY_RE.sub(fix_and_note, text)
    noperspective: set[str] = set()

    def pair(m: re.Match) -> str:
        kind = m.group(1) or m.group(4)
        sampling = m.group(2) or m.group(3)
        if kind == "noperspective":
            if not m.group("sem"):
                line = text.count("\n", 0, m.start()) + 1
                raise InvalidDescError("hlsl", f"{file_name}:{line}", m.group(0).strip(),
                                       f"noperspective {sampling} needs its semantic written "
                                       f"out in the declaration (gpuia reads the pair itself: "
                                       f"Slang refuses it)")
            sem = m.group("sem").upper()
            noperspective.add(sem if sem[-1].isdigit() else sem + "0")
        return sampling + (m.group("decl") or "")

    text = _PAIR_RE.sub(pair, text)
    left = _LEFT_MAJOR_ARRAY_RE.search(_COMMENT_RE.sub(_blank, text))
    if left:
        line = text.count("\n", 0, left.start()) + 1
        raise InvalidDescError("hlsl", f"{file_name}:{line}", left.group(0).strip(),
                               f"{left.group(1)} on an array of '{left.group(2)}': Slang "
                               f"ignores the modifier on matrix arrays and gpuia can apply it "
                               f"only to a matrix type spelled out (float3x4, matrix<float, 3, "
                               f"4>)")
    text = _SV_RE.sub(lambda m: SV_PREFIX + m.group(1), text)
    if re.search(rf"\b{SV_PREFIX}", source):
        raise InvalidDescError("hlsl", file_name, SV_PREFIX, f"names starting {SV_PREFIX} are "
                                                             f"gpuia's own")
    prelude = list(_PRELUDE)
    prelude += [f"typedef {spelling} {name};" for name, spelling in typedefs.items()]
    prelude.append(f'#line 1 "{file_name}"')
    return PreparedSource("\n".join(prelude) + "\n" + text, len(prelude), layout, typedefs,
                          typedef_vars, frozenset(noperspective))


def restore(text: str, prepared: PreparedSource | None = None) -> str:
    """gpuia's renamings undone in text Slang printed (diagnostics, generated code)."""
    text = re.sub(rf"\b{SV_PREFIX}", "SV_", text)
    for name, spelling in (prepared.typedefs.items() if prepared else ()):
        text = text.replace(name, spelling)
    return text
