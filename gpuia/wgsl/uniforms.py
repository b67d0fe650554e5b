"""The bytes a WGSL ``var<uniform>`` binding must hold: SizeOf its type by the WGSL spec's
"Alignment and Size" rules. WebGPU checks every uniform binding against it at a draw and fails the
submit (wgpu-py aborts on some such errors), so gpuia checks first. A type this reader cannot size
(an override-sized array, text it does not parse) gives 0: not checked.
"""

from __future__ import annotations

import re

from ..errors import InvalidDescError
from .bounds import ModuleTypes, blank_comments, matching_bracket, split_top_level, type_args

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
        rows: list[tuple[str, str]] | None = []
        for raw in split_top_level(m.group(2)):
            mm = _WGSL_MEMBER_RE.match(raw)
            if mm:
                assert rows is not None  # set to None only when the loop stops
                rows.append((mm.group(1), mm.group(2)))
            elif raw.strip():
                rows = None
                break
        if rows is not None:
            structs[m.group(1)] = rows
    aliases = {m.group(1): m.group(2) for m in _WGSL_ALIAS_RE.finditer(code)}
    out: dict[int, int] = {}
    for m in _UNIFORM_VAR_RE.finditer(code):
        attrs = {m.group(1): int(m.group(2)), m.group(3): int(m.group(4))}
        if attrs.get("group") != group or "binding" not in attrs:
            continue
        lay = _wgsl_layout(m.group(5), structs, aliases)
        out[attrs["binding"]] = max(out.get(attrs["binding"], 0), lay[0] if lay else 0)
    return out


# -- loads naga cannot compile ---------------------------------------------------------------
# naga 29 (wgpu-py 0.32's wgpu-native 29) aborts the process (a Rust panic in its SPIR-V
# backend, back/spv/writer.rs:837, so on every Vulkan adapter) when a shader loads a whole
# uniform value of a struct with two or more members of which one is a matrix with 2 rows
# (mat2x2, mat3x2, mat4x2: its std140 layout needs a converted copy), or an array of such
# structs or an element of one. Measured in subprocesses on lavapipe and llvmpipe (GL runs all
# of them): a member access (`cb.m`, `cb[i].m`, `(*p).m`), a nested struct's load (`cb.inner`),
# a single-member struct, and matrices with 3 or 4 rows are fine and stay allowed.
_UNIFORM_DECL_RE = re.compile(r"\bvar\s*<\s*uniform\s*>\s*(\w+)\s*:\s*([^;=]+)")
_TWO_ROW_MAT_RE = re.compile(r"mat[234]x2(?:[fh]|\s*<\s*(?:f32|f16)\s*>)?")


def _element_type(t: str, types):
    """(array depth k, element type) of ``t`` with aliases resolved and k arrays taken off;
    None when ``t`` does not parse or nests past any real shader."""
    depth = 0
    for _ in range(64):
        parsed = type_args(" ".join(t.split()))
        if parsed is None:
            return None
        name, args = parsed
        if name in types.aliases and not args:
            t = types.aliases[name]
        elif name == "array" and args:
            t, depth = args[0], depth + 1
        else:
            return depth, t
    return None


def _two_row_matrix(t: str, types) -> bool:
    """``t`` (aliases resolved) is a matCx2 or an array (of arrays) of them."""
    found = _element_type(t, types)
    return found is not None and _TWO_ROW_MAT_RE.fullmatch(" ".join(found[1].split())) is not None


def _element_chain(t: str, types):
    """(array depth k, struct name, offending member) when ``t`` is array^k of a struct that
    naga cannot load whole (see above); None otherwise."""
    found = _element_type(t, types)
    if found is None:
        return None
    depth, element = found
    parsed = type_args(" ".join(element.split()))
    assert parsed is not None  # _element_type parsed it
    name, args = parsed
    members = types.structs.get(name)
    if not members or len(members) < 2 or args:
        return None
    for _, member, mtype in members:
        if _two_row_matrix(mtype, types):
            return depth, name, f"{member}: {' '.join(mtype.split())}"
    return None


def _steps(code: str, at: int) -> tuple[int, int]:
    """(number of ``[...]`` index steps, offset after them) from ``at``."""
    n = 0
    while True:
        m = re.compile(r"\s*\[").match(code, at)
        if m is None:
            return n, at
        close = matching_bracket(code, m.end() - 1, "[", "]")
        if close < 0:
            return n, at
        n, at = n + 1, close + 1


def check_uniform_loads(source: str, what: str = "vertex shader") -> None:
    """Refuse (:class:`InvalidDescError`, naming the line, the expression, the uniform, the
    struct and its 2-row matrix member) the loads naga aborts the process on (see above):
    a whole ``var<uniform>`` value of such a struct, or of an array of them, or an element of
    one, read directly or through a pointer. Returns None when there is none."""
    code = blank_comments(source)
    types = ModuleTypes(code)
    # name -> (array depth already indexed, uniform var, (k, struct, member), declaration offset)
    roots: dict[str, tuple[int, str, tuple, int]] = {}
    for m in _UNIFORM_DECL_RE.finditer(code):
        chain = _element_chain(m.group(2), types)
        if chain is not None:
            roots[m.group(1)] = (0, m.group(1), chain, m.start(1))
    # pointers to them: `let p = &cb[...]` and `p: ptr<uniform, T>` parameters
    for m in re.finditer(r"\blet\s+(\w+)\s*=\s*&\s*(\w+)", code):
        if m.group(2) in roots:
            n, end = _steps(code, m.end())
            if re.compile(r"\s*\.").match(code, end):
                continue  # a pointer to a member
            root = roots[m.group(2)]
            roots.setdefault("*" + m.group(1), (root[0] + n, root[1], root[2], m.start()))
    for m in re.finditer(r"(\w+)\s*:\s*ptr\s*<\s*uniform\s*,\s*([^>]+(?:>[^,>]*)*)>", code):
        chain = _element_chain(m.group(2), types)
        if chain is not None:
            roots.setdefault("*" + m.group(1), (0, f"the parameter {m.group(1)}", chain,
                                                m.start()))
    for key, (base, var, (k, struct, member), decl) in roots.items():
        name = key.lstrip("*")
        deref = r"(?:\(\s*\*\s*{0}\s*\)|\*\s*{0}\b)" if key.startswith("*") else r"{0}\b"
        for m in re.finditer(r"(?<![\w.])(&\s*)?" + deref.format(re.escape(name)), code):
            if m.start() == decl or m.group(1):
                continue  # the declaration itself; taking a pointer loads nothing
            n, end = _steps(code, m.end())
            after = re.compile(r"\s*(\.|\w|:)").match(code, end)
            if after is not None and after.group(1) in ".:":
                continue  # a member access (or `name: type` in a declaration)
            if after is not None:
                continue
            if base + n > k:
                continue  # indexed below the struct: a member or a matrix column
            line = code.count("\n", 0, m.start()) + 1
            expr = " ".join(code[m.start():end].split())
            raise InvalidDescError(
                f"{what} (line {line})", None, None,
                f"`{expr}` loads a whole value of struct {struct} from var<uniform> {var}, and "
                f"{struct}'s member {member} is a matrix with 2 rows: naga (wgpu-py 0.32) "
                f"aborts the process on such a load on Vulkan. Read the members you need "
                f"instead (`{var}.{member.split(':')[0]}`), or declare the matrix with more rows")


# -- uniforms an adapter lays out unlike WGSL --------------------------------------------------
_IDENT_RE = re.compile(r"[A-Za-z_]\w*")


def two_row_matrix_uniforms(source: str) -> list[str]:
    """The ``var<uniform>`` declarations of ``source`` whose type holds a matCx2 (mat2x2,
    mat3x2, mat4x2) anywhere: as itself, in an array, or in a member of a (nested) struct or
    alias. Conservative: a name that could be such a struct counts."""
    code = _WGSL_COMMENT_RE.sub(" ", source)
    bodies = {m.group(1): m.group(2) for m in _WGSL_STRUCT_RE.finditer(code)}
    bodies.update({m.group(1): m.group(2) for m in _WGSL_ALIAS_RE.finditer(code)})
    memo: dict = {}

    def holds(text: str, depth: int = 0) -> bool:
        if _TWO_ROW_MAT_RE.search(text):
            return True
        if depth > 64:
            return True  # nesting past any real shader: counted, not followed
        for name in _IDENT_RE.findall(text):
            if name in bodies:
                if name not in memo:
                    memo[name] = False  # a cycle is not a matrix
                    memo[name] = holds(bodies[name], depth + 1)
                if memo[name]:
                    return True
        return False

    return [f"var<uniform> {m.group(1)}: {' '.join(m.group(2).split())}"
            for m in _UNIFORM_DECL_RE.finditer(code) if holds(m.group(2))]
