"""HLSL constant buffers: D3D's packing, WGSL's layout of the same members, and the remap.

The bytes a D3D12 application puts in a constant buffer follow D3D's packing rules
(docs/hlsl.md, "Constant buffers"):

* 16-byte registers; a scalar or vector never straddles two (it moves to the next register);
* a matrix is one register per column (``column_major``, fxc/dxc's default) or per row
  (``row_major``), the last one unpadded;
* an array starts a register and every element does; the last element is unpadded;
* a struct starts a register; the member after it may pack into its last register;
* ``bool`` is a 32-bit word (non-zero is true);
* ``packoffset(cN.x)`` places a member explicitly.

gpuia takes each member's D3D offset from Slang's reflection of its HLSL target (Slang's
implementation of these rules; gpuia's tests hold it to hand-derived offsets), and the WGSL
layout of the same members from the WGSL Slang generates (WGSL's uniform rules: vec2 aligned to
8, vec3 and arrays padded to 16, no bool). :func:`constant_buffer` reads both side by side and
compares every scalar. When they agree, the shader reads the user's buffer as it is. When they
do not, gpuia rewrites the module: the buffer is bound as raw registers
(``array<vec4<u32>, N>``) and a generated function copies every member from its D3D offset into
a private copy of Slang's struct, which the rest of the module reads unchanged
(:func:`remap_wgsl`). The shader thus reads the D3D-packed bytes exactly; only the copy costs
time, and only for buffers that need it.

Refused (an :class:`~gpuia.errors.InvalidDescError` naming the cbuffer and member): 64-bit
types, integer and bool matrices (Slang's WGSL and C++ targets store them unlike their declared
packing), cbuffers past D3D's 4096 registers, resources in a cbuffer, and any WGSL shape this
module does not recognise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NoReturn

from ..errors import InvalidDescError
from ..wgsl.signature import split_top_level
from .reflect import SCALARS, emitted_name

__all__ = ["CType", "ConstantBuffer", "Member", "constant_buffer", "parse_wgsl_structs",
           "remap_wgsl", "natural_leaves", "check_32bit", "REGISTER", "MAX_BYTES"]

REGISTER = 16
_WGSL_SCALAR = {"f32": "float", "i32": "sint", "u32": "uint", "bool": "bool"}
_WGSL_OF = {"float": "f32", "sint": "i32", "uint": "u32", "bool": "bool"}
_STRUCT_RE = re.compile(r"\bstruct\s+(\w+)\s*\{(.*?)\}\s*;?", re.S)
_MEMBER_RE = re.compile(r"^\s*((?:@\w+\s*(?:\([^)]*\))?\s*)*)(\w+)\s*:\s*(.+?)\s*$", re.S)
_ARRAY_RE = re.compile(r"^array\s*<\s*(.+)\s*,\s*(?:i32|u32)?\(?\s*(\d+)\s*u?\)?\s*>$", re.S)
_VEC_RE = re.compile(r"^vec([234])\s*<\s*(\w+)\s*>$")


def _round(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def parse_wgsl_structs(code: str) -> dict[str, list[tuple[str, str, int]]]:
    """Every struct of a WGSL module: name -> [(member, type text, @align or 0)]."""
    out = {}
    for m in _STRUCT_RE.finditer(code):
        members = []
        for raw in split_top_level(m.group(2)):
            mm = _MEMBER_RE.match(raw)
            if not mm:
                continue
            align = re.search(r"@align\s*\(\s*(\d+)\s*\)", mm.group(1))
            members.append((mm.group(2), " ".join(mm.group(3).split()), int(align.group(1))
                            if align else 0))
        out[m.group(1)] = members
    return out


@dataclass
class CType:
    """A cbuffer member's type as both sides see it. ``wgsl`` is its WGSL type text; for
    matrices ``data`` is the WGSL storage member and ``vectors``/``width`` the stored vectors;
    for arrays ``data`` is the member of Slang's wrapper struct ('' when there is none) and
    ``padded`` says each element is stored in a vec4 of its own."""

    kind: str
    wgsl: str
    scalar: str = "float"
    n: int = 1
    rows: int = 0
    cols: int = 0
    col_major: bool = True
    count: int = 0
    element: CType | None = None
    fields: list[tuple[str, str, CType, int]] = field(default_factory=list)  # (name, WGSL
    # member, CType, D3D offset) per struct member
    data: str = ""
    padded: bool = False
    array_text: str = ""  # arrays: the WGSL array<E, N> type (inside the wrapper, if any)
    stride: int = 0  # arrays: D3D's element stride
    size: int = 0  # D3D's bytes (its last register unpadded)

    @property
    def vectors(self) -> int:
        return self.cols if self.col_major else self.rows

    @property
    def width(self) -> int:
        return self.rows if self.col_major else self.cols


class _Builder:
    def __init__(self, structs: dict, cbuffer: str, what: str):
        self.structs, self.cbuffer, self.what = structs, cbuffer, what

    def refuse(self, path: str, value: object, rule: str) -> NoReturn:
        raise InvalidDescError(self.what, f"cbuffer {self.cbuffer}", f"{path}: {value}", rule)

    def scalar(self, t: dict, path: str) -> str:
        st = t.get("scalarType")
        if st not in SCALARS:
            self.refuse(path, st, "constant buffer members are 32-bit float, int, uint or bool "
                                  "values (WGSL has no 64-bit types)")
        return SCALARS[st]

    def build(self, t: dict, wgsl: str, path: str, size: int) -> CType:
        """The CType of reflected type ``t`` (HLSL target: D3D offsets) stored as WGSL type
        ``wgsl``, ``size`` D3D bytes."""
        ct = self._build(t, " ".join(wgsl.split()), path)
        ct.size = size
        return ct

    def _build(self, t: dict, wgsl: str, path: str) -> CType:
        kind = t.get("kind")
        if kind == "scalar":
            s = self.scalar(t, path)
            if _WGSL_SCALAR.get(wgsl) != s:
                self.refuse(path, wgsl, f"Slang's WGSL stores a {s} as {wgsl}")
            return CType("scalar", wgsl, s)
        if kind == "vector":
            s = self.scalar(t["elementType"], path)
            m = _VEC_RE.match(wgsl)
            if not m or int(m.group(1)) != t["elementCount"] or _WGSL_SCALAR.get(m.group(2)) != s:
                self.refuse(path, wgsl, "unexpected WGSL type for a vector")
            return CType("vector", wgsl, s, t["elementCount"])
        if kind == "matrix":
            s = self.scalar(t["elementType"], path)
            if s != "float":
                self.refuse(path, f"{s} matrix", "integer and bool matrices in a cbuffer are "
                                                 "not supported (Slang stores them unlike their "
                                                 "declared packing): use vectors or a float "
                                                 "matrix")
            members = self.structs.get(wgsl)
            if not members or len(members) != 1:
                self.refuse(path, wgsl, "unexpected WGSL storage for a matrix")
            data, text, _ = members[0]
            arr = _ARRAY_RE.match(text)
            vec = _VEC_RE.match(arr.group(1)) if arr else None
            if not vec or _WGSL_SCALAR.get(vec.group(2)) != s:
                self.refuse(path, text, "unexpected WGSL storage for a matrix")
            ct = CType("matrix", wgsl, s, rows=t["rowCount"], cols=t["columnCount"],
                       col_major="ColMajor" in wgsl, data=data)
            assert arr is not None  # vec matched inside it
            if int(arr.group(2)) != ct.vectors or int(vec.group(1)) < ct.width:
                self.refuse(path, wgsl, "Slang's WGSL stores this matrix with another packing")
            return ct
        if kind == "array":
            count, el = t["elementCount"], t["elementType"]
            data, inner = "", wgsl
            if not _ARRAY_RE.match(wgsl):
                members = self.structs.get(wgsl)
                if not members or len(members) != 1:
                    self.refuse(path, wgsl, "unexpected WGSL storage for an array")
                data, inner, _ = members[0]
            arr = _ARRAY_RE.match(inner)
            if not arr or int(arr.group(2)) != count:
                self.refuse(path, inner, "unexpected WGSL storage for an array")
            el_wgsl = arr.group(1)
            stride = int(t.get("uniformStride") or 0)
            if el["kind"] in ("scalar", "vector"):
                vec = _VEC_RE.match(el_wgsl)
                n = el.get("elementCount", 1) if el["kind"] == "vector" else 1
                if vec and int(vec.group(1)) > n:  # std140: each element in a vec4
                    s = self.scalar(el if el["kind"] == "scalar" else el["elementType"], path)
                    elem = CType(el["kind"], el_wgsl, s, n, size=4 * n)
                    return CType("array", wgsl, s, count=count, element=elem, data=data,
                                 padded=True, array_text=inner, stride=stride)
            elem = self.build(el, el_wgsl, f"{path}[]", _element_size(el, stride))
            return CType("array", wgsl, elem.scalar, count=count, element=elem, data=data,
                         array_text=inner, stride=stride)
        if kind == "struct":
            members = self.structs.get(wgsl)
            fields = t.get("fields", [])
            if members is None or len(members) != len(fields):
                self.refuse(path, wgsl, "unexpected WGSL struct for a struct")
            out = []
            for f, (mname, mtype, _) in zip(fields, members, strict=True):
                if not re.fullmatch(rf"{re.escape(emitted_name(f['name']))}_\d+", mname):
                    self.refuse(path, mname, f"Slang's WGSL member for {f['name']}")
                b = f.get("binding", {})
                out.append((f["name"], mname, self.build(f["type"], mtype, f"{path}.{f['name']}",
                                                         int(b.get("size", 0))),
                            int(b.get("offset", 0))))
            return CType("struct", wgsl, fields=out)
        self.refuse(path, kind, "constant buffers hold numbers, vectors, matrices, arrays and "
                                "structs (resources are bound by gpuia only as cbuffers)")


def check_32bit(t: dict, where: str, path: str, what: str) -> None:
    """Refuse, naming the member, a 64-bit scalar anywhere in a reflected type."""
    kind = t.get("kind")
    if kind == "scalar" and t.get("scalarType") in ("float64", "int64", "uint64"):
        raise InvalidDescError(what, where, f"{path}: {t['scalarType']}",
                               "WGSL has no 64-bit types (double, int64_t, uint64_t)")
    for child in ("elementType",):
        if child in t:
            check_32bit(t[child], where, path if kind != "array" else f"{path}[]", what)
    for f in t.get("fields", []):
        check_32bit(f["type"], where, f"{path}.{f['name']}", what)


def _element_size(el: dict, stride: int) -> int:
    """D3D bytes of one array element: a vector's or scalar's own size, else the stride (a
    struct's or matrix's size is not in the reflection of an array's element type; the last
    element's unpadded size matters only for the total, which comes from the member)."""
    if el["kind"] == "scalar":
        return 4
    if el["kind"] == "vector":
        return 4 * el["elementCount"]
    return stride


# -- WGSL's layout (only to decide whether a remap is needed) ----------------------------------
def _wgsl_size_align(text: str, structs: dict) -> tuple[int, int]:
    text = " ".join(text.split())
    if text in _WGSL_SCALAR:
        return 4, 4
    m = _VEC_RE.match(text)
    if m:
        n = int(m.group(1))
        return 4 * n, 8 if n == 2 else 16
    m = _ARRAY_RE.match(text)
    if m:
        size, align = _wgsl_size_align(m.group(1), structs)
        return int(m.group(2)) * _round(size, align), align
    offsets, size, align = _wgsl_struct(text, structs)
    return size, align


def _wgsl_struct(name: str, structs: dict) -> tuple[list[int], int, int]:
    offsets, end, align = [], 0, 1
    for _, mtype, explicit in structs[name]:
        size, a = _wgsl_size_align(mtype, structs)
        a = max(a, explicit)
        end = _round(end, a)
        offsets.append(end)
        end += size
        align = max(align, a)
    return offsets, _round(end, align), align


@dataclass(frozen=True)
class Member:
    """A leaf of a cbuffer: its path, scalar kind, and its D3D and WGSL byte offsets."""

    path: str
    kind: str
    d3d: int
    wgsl: int


def _leaves(t: CType, path: str, d3d: int, wgsl: int, structs: dict, out: list) -> None:
    if t.kind in ("scalar", "vector"):
        for c in range(t.n):
            out.append(Member(path + (f".{'xyzw'[c]}" if t.n > 1 else ""), t.scalar,
                              d3d + 4 * c, wgsl + 4 * c))
    elif t.kind == "matrix":
        for v in range(t.vectors):
            for c in range(t.width):
                r, col = (c, v) if t.col_major else (v, c)
                out.append(Member(f"{path}[{r}][{col}]", t.scalar, d3d + REGISTER * v + 4 * c,
                                  wgsl + REGISTER * v + 4 * c))
    elif t.kind == "array":
        arr = _ARRAY_RE.match(t.array_text)
        assert arr is not None and t.element is not None  # the builder checked both
        el_size, el_align = _wgsl_size_align(arr.group(1), structs)
        wstride = _round(el_size, el_align)
        for k in range(t.count):
            _leaves(t.element, f"{path}[{k}]", d3d + k * t.stride, wgsl + k * wstride,
                    structs, out)
    else:
        offsets, _, _ = _wgsl_struct(t.wgsl, structs)
        for (name, _, ft, at), woff in zip(t.fields, offsets, strict=True):
            _leaves(ft, f"{path}.{name}", d3d + at, wgsl + woff, structs, out)


@dataclass
class ConstantBuffer:
    """One cbuffer the shader reads: its name, register (root constant buffer slot), D3D size,
    the WGSL variable and type Slang made of it, its members (D3D and WGSL offsets) and whether
    the module reads it through gpuia's remap."""

    name: str
    slot: int
    size: int
    wgsl_var: str
    wgsl_type: str
    ctype: CType
    members: list[Member]
    remapped: bool = False
    wgsl_size: int = 0

    @property
    def registers(self) -> int:
        return max(1, _round(self.size, REGISTER) // REGISTER)

    @property
    def binding_size(self) -> int:
        """Bytes a root constant buffer view of it must hold: the registers it reads (WGSL's
        own struct size when the module reads Slang's layout directly)."""
        if self.remapped:
            return self.registers * REGISTER
        return self.wgsl_size

    def declared(self) -> list[tuple[str, int, int]]:
        """(name, D3D offset, D3D bytes) of each member as declared (arrays and structs
        whole)."""
        return [(name, at, t.size) for name, _, t, at in self.ctype.fields]

    def first_difference(self) -> Member | None:
        return next((m for m in self.members if m.d3d != m.wgsl or m.kind == "bool"), None)


MAX_BYTES = 4096 * REGISTER
"""D3D's largest constant buffer: 4096 registers."""


def constant_buffer(name: str, slot: int, element_type: dict, size: int, wgsl_var: str,
                    wgsl_type: str, structs: dict, what: str) -> ConstantBuffer:
    """The :class:`ConstantBuffer` of a cbuffer from Slang's HLSL-target reflection of its
    element type (``size``: its D3D bytes) and the WGSL struct Slang declared it as."""
    if size > MAX_BYTES:
        raise InvalidDescError(what, f"cbuffer {name}", f"{size} bytes",
                               f"a D3D constant buffer holds at most 4096 registers "
                               f"({MAX_BYTES} bytes)")
    t = _Builder(structs, name, what).build(element_type, wgsl_type, name, size)
    members: list[Member] = []
    _leaves(t, name, 0, 0, structs, members)
    cb = ConstantBuffer(name, slot, size, wgsl_var, wgsl_type, t, members,
                        wgsl_size=_wgsl_size_align(wgsl_type, structs)[0])
    cb.remapped = cb.first_difference() is not None
    return cb


# -- the remap -------------------------------------------------------------------------------
def _conv(kind: str, word: str) -> str:
    return {"float": f"bitcast<f32>({word})", "sint": f"bitcast<i32>({word})", "uint": word,
            "bool": f"({word} != 0u)"}[kind]


class _Fill:
    def __init__(self, reader: str, structs: dict):
        self.reader = reader
        self.structs = structs
        self.lines: list[str] = []
        self.loops = 0

    def word(self, off: str, plus: int) -> str:
        return f"{self.reader}({off} + {plus}u)" if plus else f"{self.reader}({off})"

    def emit(self, t: CType, lv: str, off: str, indent: str) -> None:
        if t.kind == "scalar":
            self.lines.append(f"{indent}{lv} = {_conv(t.scalar, self.word(off, 0))};")
        elif t.kind == "vector":
            comps = ", ".join(_conv(t.scalar, self.word(off, 4 * c)) for c in range(t.n))
            self.lines.append(f"{indent}{lv} = vec{t.n}<{_WGSL_OF[t.scalar]}>({comps});")
        elif t.kind == "matrix":
            arr = _ARRAY_RE.match(self.structs[t.wgsl][0][1])
            vec = _VEC_RE.match(arr.group(1)) if arr else None
            assert vec is not None  # the builder checked the matrix's storage
            stored = int(vec.group(1))
            zero = "0.0" if t.scalar == "float" else ("0" if t.scalar == "sint" else "0u")
            for v in range(t.vectors):
                row = [_conv(t.scalar, self.word(off, REGISTER * v + 4 * c))
                       for c in range(t.width)] + [zero] * (stored - t.width)
                self.lines.append(f"{indent}{lv}.{t.data}[{v}] = "
                                  f"vec{stored}<{_WGSL_OF[t.scalar]}>({', '.join(row)});")
        elif t.kind == "array":
            i = f"gpuia_i{self.loops}"
            self.loops += 1
            base = f"{lv}.{t.data}" if t.data else lv
            self.lines.append(f"{indent}for (var {i} = 0u; {i} < {t.count}u; {i}++) {{")
            at = f"({off} + {i} * {t.stride}u)"
            el = t.element
            assert el is not None  # an array has its element type
            if t.padded:
                zero = {"float": "0.0", "sint": "0", "uint": "0u", "bool": "false"}[el.scalar]
                vec = _VEC_RE.match(el.wgsl)
                assert vec is not None  # a padded element is a vector
                stored = int(vec.group(1))
                parts = [_conv(el.scalar, self.word(at, 4 * c)) for c in range(el.n)]
                parts += [zero] * (stored - el.n)
                self.lines.append(f"{indent}  {base}[{i}] = {el.wgsl}({', '.join(parts)});")
            else:
                self.emit(el, f"{base}[{i}]", at, indent + "  ")
            self.lines.append(f"{indent}}}")
        else:
            for _, mname, ft, member_at in t.fields:
                self.emit(ft, f"{lv}.{mname}", f"({off} + {member_at}u)" if member_at else off,
                          indent)


_VAR_RE = (r"@binding\(\s*\d+\s*\)\s*@group\(\s*\d+\s*\)\s*var\s*<\s*uniform\s*>\s*"
           r"{var}\s*:\s*([\w]+)\s*;")


def remap_wgsl(code: str, cb: ConstantBuffer, group: int, structs: dict, entry: str) -> str:
    """``code`` with ``cb`` bound at ``@group(group) @binding(cb.slot)``: as Slang declared it
    when its layout is D3D's, else as raw registers copied into a private struct at the start of
    ``entry`` (see the module docstring)."""
    pattern = re.compile(_VAR_RE.format(var=re.escape(cb.wgsl_var)))
    if not pattern.search(code):
        raise InvalidDescError("shader", f"cbuffer {cb.name}", cb.wgsl_var,
                               "Slang's WGSL declares it in an unexpected form")
    if not cb.remapped:
        return pattern.sub(f"@group({group}) @binding({cb.slot}) var<uniform> {cb.wgsl_var} : "
                           f"{cb.wgsl_type};", code, count=1)
    raw = f"gpuia_cb{cb.slot}"
    fill = _Fill(f"{raw}_word", structs)
    fill.emit(cb.ctype, cb.wgsl_var, "0u", "  ")
    decl = "\n".join([
        f"// gpuia: cbuffer {cb.name} (register b{cb.slot}) as D3D packs it: {cb.registers} "
        f"registers, copied member by member into Slang's struct",
        f"@group({group}) @binding({cb.slot}) var<uniform> {raw} : array<vec4<u32>, "
        f"{cb.registers}>;",
        f"var<private> {cb.wgsl_var} : {cb.wgsl_type};",
        f"fn {raw}_word(b: u32) -> u32 {{ return {raw}[b >> 4u][(b >> 2u) & 3u]; }}",
        f"fn {raw}_fill() {{", *fill.lines, "}"])
    code = pattern.sub(lambda m: decl, code, count=1)
    m = re.search(rf"\bfn\s+{re.escape(entry)}\s*\([^)]*\)\s*(->\s*[\w<>]+\s*)?\{{", code)
    if not m:
        raise InvalidDescError("shader", f"cbuffer {cb.name}", entry,
                               "cannot find the entry point to copy the cbuffer in")
    return code[:m.end()] + f"\n    {raw}_fill();" + code[m.end():]


def natural_leaves(cb: ConstantBuffer, element_type: dict) -> list[tuple[int, int, str, int]]:
    """(D3D offset, natural offset, kind, natural size) of every scalar of ``cb`` in the layout
    of Slang's C++ target, read from that target's reflection of the same type (the CPU
    reference copies D3D bytes to it)."""
    out: list[tuple[int, int, str, int]] = []

    def walk(t: CType, r: dict, d3d: int, nat: int) -> None:
        if t.kind in ("scalar", "vector"):
            scalar = r if t.kind == "scalar" else r["elementType"]
            size = 1 if scalar.get("scalarType") == "bool" else 4  # C++ bool is one byte
            for c in range(t.n):
                out.append((d3d + 4 * c, nat + size * c, t.scalar, size))
        elif t.kind == "matrix":
            for v in range(t.vectors):
                for c in range(t.width):
                    out.append((d3d + REGISTER * v + 4 * c, nat + 4 * (v * t.width + c),
                                t.scalar, 4))
        elif t.kind == "array":
            stride = r.get("uniformStride") or 0
            assert t.element is not None  # an array has its element type
            for k in range(t.count):
                walk(t.element, r["elementType"], d3d + k * t.stride, nat + k * stride)
        else:
            for (_, _, ft, at), f in zip(t.fields, r["fields"], strict=False):
                walk(ft, f["type"], d3d + at, nat + f["binding"]["offset"])

    walk(cb.ctype, element_type, 0, 0)
    return out
