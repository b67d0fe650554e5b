"""The bytes a WGSL ``var<uniform>`` binding must hold: SizeOf its type by the WGSL spec's
"Alignment and Size" rules. WebGPU checks every uniform binding against it at a draw and fails the
submit (wgpu-py aborts on some such errors), so gpuia checks first. A type this reader cannot size
(an override-sized array, text it does not parse) gives 0: not checked.
"""

from __future__ import annotations

import re

from .signature import split_top_level

__all__ = ["uniform_sizes"]

_WGSL_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_UNIFORM_VAR_RE = re.compile(
    r"@\s*(group|binding)\s*\(\s*(\d+)\s*\)\s*@\s*(group|binding)\s*\(\s*(\d+)\s*\)\s*"
    r"var\s*<\s*uniform\s*>\s*\w+\s*:\s*([^;]+);")
_WGSL_STRUCT_RE = re.compile(r"\bstruct\s+(\w+)\s*\{(.*?)\}", re.S)
_WGSL_ALIAS_RE = re.compile(r"\balias\s+(\w+)\s*=\s*([^;]+);")
_WGSL_MEMBER_RE = re.compile(r"^\s*((?:@\s*\w+\s*(?:\([^)]*\))?\s*)*)\w+\s*:\s*(.+?)\s*$", re.S)
_WGSL_SCALARS = {"f32": 4, "i32": 4, "u32": 4, "f16": 2}
_WGSL_SHORT = {"f": "f32", "i": "i32", "u": "u32", "h": "f16"}
_WGSL_VEC_RE = re.compile(r"vec([234])\s*<\s*(\w+)\s*>|vec([234])([fiuh])")
_WGSL_MAT_RE = re.compile(r"mat([234])x([234])\s*<\s*(\w+)\s*>|mat([234])x([234])([fh])")
_WGSL_ARRAY_RE = re.compile(r"array\s*<\s*(.+)\s*,\s*(\d+)\s*[iu]?\s*>", re.S)


def _up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _wgsl_layout(t: str, structs: dict, aliases: dict, depth: int = 0):
    """(SizeOf, AlignOf) of WGSL type ``t`` (WGSL spec, "Alignment and Size"), or None for a
    type this reader does not know (an override-sized array, a type it cannot parse)."""
    t = " ".join(t.split())
    if depth > 32:
        return None
    if t in aliases:
        return _wgsl_layout(aliases[t], structs, aliases, depth + 1)
    if t in _WGSL_SCALARS:
        return _WGSL_SCALARS[t], _WGSL_SCALARS[t]
    m = _WGSL_VEC_RE.fullmatch(t)
    if m:
        n = int(m.group(1) or m.group(3))
        s = _WGSL_SCALARS.get(m.group(2) or _WGSL_SHORT[m.group(4)])
        return None if s is None else (n * s, (2 if n == 2 else 4) * s)
    m = _WGSL_MAT_RE.fullmatch(t)
    if m:
        c, r = int(m.group(1) or m.group(4)), int(m.group(2) or m.group(5))
        s = _WGSL_SCALARS.get(m.group(3) or _WGSL_SHORT[m.group(6)])
        if s is None:
            return None
        align = (2 if r == 2 else 4) * s  # a column is a vecR
        return c * _up(r * s, align), align
    m = _WGSL_ARRAY_RE.fullmatch(t)
    if m:
        inner = _wgsl_layout(m.group(1), structs, aliases, depth + 1)
        if inner is None:
            return None
        size, align = inner
        return int(m.group(2)) * _up(size, align), align
    members = structs.get(t)
    if members is None:
        return None
    end, align = 0, 1
    for attrs, mtype in members:
        inner = _wgsl_layout(mtype, structs, aliases, depth + 1)
        if inner is None:
            return None
        a = re.search(r"@\s*align\s*\(\s*(\d+)\s*\)", attrs)
        z = re.search(r"@\s*size\s*\(\s*(\d+)\s*\)", attrs)
        ma = int(a.group(1)) if a else inner[1]
        end = _up(end, ma) + (int(z.group(1)) if z else inner[0])
        align = max(align, ma)
    return _up(end, align), align


def uniform_sizes(source: str, group: int) -> dict:
    """Bytes each ``var<uniform>`` of ``@group(group)`` needs bound (SizeOf its type: what
    WebGPU checks a binding against at a draw), per ``@binding``; 0 where not known."""
    code = _WGSL_COMMENT_RE.sub(" ", source)
    structs = {}
    for m in _WGSL_STRUCT_RE.finditer(code):
        rows = []
        for raw in split_top_level(m.group(2)):
            mm = _WGSL_MEMBER_RE.match(raw)
            if mm:
                rows.append((mm.group(1), mm.group(2)))
            elif raw.strip():
                rows = None
                break
        if rows is not None:
            structs[m.group(1)] = rows
    aliases = {m.group(1): m.group(2) for m in _WGSL_ALIAS_RE.finditer(code)}
    out = {}
    for m in _UNIFORM_VAR_RE.finditer(code):
        attrs = {m.group(1): int(m.group(2)), m.group(3): int(m.group(4))}
        if attrs.get("group") != group or "binding" not in attrs:
            continue
        lay = _wgsl_layout(m.group(5), structs, aliases)
        out[attrs["binding"]] = max(out.get(attrs["binding"], 0), lay[0] if lay else 0)
    return out
