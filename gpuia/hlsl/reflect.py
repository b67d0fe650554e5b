"""An HLSL entry point's signature and constant buffers, read from Slang's reflection.

:func:`entry_signature` flattens the entry's parameters and result into :class:`Leaf` rows,
one per signature register D3D would give them: a scalar or vector is one semantic; an array
``float2 t[2] : TEXCOORD3`` is TEXCOORD3 and TEXCOORD4; a matrix is one semantic index per
column (``column_major``, fxc/dxc's default) or per row (``row_major``); struct members carry
their own semantics. Directions come from Slang (``in``, ``out``, ``inout``); modifiers that
Slang's reflection does not report (interpolation, matrix packing) are read from the HLSL that
Slang generates for the same entry, which is the user's code preprocessed.

Refused, naming the parameter: a leaf without a semantic, a semantic on a struct-typed value,
arrays of structs, entry-point ``uniform`` parameters, 64-bit and 16-bit-storage types (WGSL has
no ``f64``; min16/half types are 32-bit as in fxc), and anything that is not a number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NoReturn

from ..errors import InvalidDescError
from ..wgsl.signature import split_top_level
from .source import NOPERSPECTIVE_PREFIX, SV_PREFIX

__all__ = ["Leaf", "EntrySignature", "entry_signature", "SCALARS", "hlsl_type",
           "declaration_modifiers", "INTERPOLATIONS", "emitted_name", "value_leaves",
           "type_text"]

SCALARS = {"float32": "float", "int32": "sint", "uint32": "uint", "bool": "bool"}
"""Slang scalar types gpuia's shader model takes, and their gpuia kind (bool travels as uint)."""

_HLSL_SCALAR = {"float": "float", "sint": "int", "uint": "uint", "bool": "bool"}


def emitted_name(name: str) -> str:
    """How Slang spells a name in the code it emits (HLSL, WGSL), without its ``_N`` suffix:
    every byte of a non-ASCII character's UTF-8 as ``xHH`` (``décalage`` is ``dxC3xA9calage``);
    its reflection keeps the name itself."""
    if name.isascii():
        return name
    return "".join(c if c.isascii() else "".join(f"x{b:02X}" for b in c.encode("utf-8"))
                   for c in name)

INTERPOLATIONS = {
    frozenset(): None,
    frozenset({"linear"}): None,
    frozenset({"centroid"}): "perspective, centroid",
    frozenset({"linear", "centroid"}): "perspective, centroid",
    frozenset({"sample"}): "perspective, sample",
    frozenset({"linear", "sample"}): "perspective, sample",
    frozenset({"noperspective"}): "linear",
    frozenset({"noperspective", "centroid"}): "linear, centroid",
    frozenset({"noperspective", "sample"}): "linear, sample",
    frozenset({"nointerpolation"}): "flat",
}
"""D3D interpolation modifiers -> the WGSL ``@interpolate`` argument (None: perspective,
center, D3D's default ``linear``)."""

_MODIFIERS = ("nointerpolation", "noperspective", "centroid", "sample", "linear", "row_major",
              "column_major")


@dataclass(frozen=True)
class Leaf:
    """One signature element of an entry point.

    ``param`` is the entry parameter's position (-1: the result), ``path`` the access from it
    (``.inn.a``, ``[1]``), ``matrix`` (rows, columns, column_major, vector) when the leaf is
    one column or row of a matrix value."""

    direction: str  # "in" or "out"
    semantic: str  # upper case, system values spelled SV_...
    index: int
    kind: str  # "float", "sint", "uint" or "bool"
    components: int
    param: int
    path: str
    declaration: str  # the user's name for it: "vi.p", "world", "return"
    matrix: tuple[int, int, bool, int] | None = None
    interpolation: str | None = None

    @property
    def key(self) -> str:
        return f"{self.semantic}{self.index}"

    @property
    def hlsl_type(self) -> str:
        return hlsl_type(self.kind, self.components)


@dataclass(frozen=True)
class EntrySignature:
    """The entry's parameters (name, HLSL type text, direction) and leaves."""

    name: str
    params: tuple[tuple[str, str, str], ...]  # (name, hlsl type, "in"/"out"/"inout")
    result: str | None  # HLSL type of the result, None for void
    leaves: tuple[Leaf, ...]

    def inputs(self) -> tuple[Leaf, ...]:
        return tuple(leaf for leaf in self.leaves if leaf.direction == "in")

    def outputs(self) -> tuple[Leaf, ...]:
        return tuple(leaf for leaf in self.leaves if leaf.direction == "out")


def hlsl_type(kind: str, components: int, rows: int = 0) -> str:
    base = _HLSL_SCALAR[kind]
    if rows:
        return f"{base}{rows}x{components}"
    return base if components == 1 else f"{base}{components}"


def _semantic(name: str | None) -> str | None:
    """A reflected semantic name with gpuia's marks undone (``GPUIA_SV_`` is ``SV_``,
    ``GPUIA_NP_`` a noperspective mark :meth:`_Flattener.add` reads first)."""
    if name is None:
        return None
    name = name.upper()
    if name.startswith(NOPERSPECTIVE_PREFIX):
        name = name[len(NOPERSPECTIVE_PREFIX):]
    return "SV_" + name[len(SV_PREFIX):] if name.startswith(SV_PREFIX) else name


def _noperspective(name: str | None) -> bool:
    return name is not None and name.upper().startswith(NOPERSPECTIVE_PREFIX)


_DECL_RE = re.compile(r"^\s*((?:\w+\s+)*?)(\w+(?:\s*<[^<>]*>)?)\s+(\w+)\s*(\[[^\]]*\])*\s*"
                      r"(?::\s*(\w+))?\s*$")


def _declared(text: Iterable[str]) -> dict[str, frozenset]:
    """Modifiers per declared name in a struct body or a parameter list."""
    out = {}
    for decl in text:
        m = _DECL_RE.match(" ".join(decl.split()))
        if m:
            mods = frozenset(w for w in m.group(1).split() if w in _MODIFIERS)
            out[re.sub(r"_\d+$", "", m.group(3))] = mods
    return out


def declaration_modifiers(hlsl: str, entry: str) -> tuple[dict, dict]:
    """From Slang's HLSL output: {struct name: {field: modifiers}} and {parameter: modifiers}
    of the entry point (names without Slang's ``_N`` suffixes)."""
    structs = {}
    for m in re.finditer(r"\bstruct\s+(\w+?)(?:_\d+)?\s*\{(.*?)\}\s*;", hlsl, re.S):
        structs[m.group(1)] = _declared(m.group(2).split(";"))
    params = {}
    found = re.search(rf"\b{re.escape(entry)}\s*\((.*?)\)\s*(?::\s*\w+\s*)?\{{", hlsl, re.S)
    if found:
        params = _declared(split_top_level(found.group(1)))
    return structs, params


_INTERPOLATION_WORDS = frozenset(_MODIFIERS) - {"row_major", "column_major"}
SIGNATURE_REGISTERS = 32
"""Input and output registers of a D3D vertex or pixel shader signature (each leaf is one)."""


class _Flattener:
    def __init__(self, what: str, default_layout: str, structs: dict):
        self.what = what
        self.row_major_default = default_layout == "row_major"
        self.structs = structs
        self.leaves: list[Leaf] = []

    def refuse(self, where: str, value: object, rule: str) -> NoReturn:
        raise InvalidDescError(self.what, where, value, rule)

    def scalar(self, t: dict, where: str) -> str:
        st = t.get("scalarType")
        kind = SCALARS.get(st) if isinstance(st, str) else None
        if kind is None:
            why = ("WGSL has no 64-bit types" if st in ("float64", "int64", "uint64") else
                   "gpuia's shader model takes 32-bit float, int, uint and bool values")
            self.refuse(where, st, why)
        return kind

    def add(self, t: dict, sem: str | None, index: int, mods: frozenset, directions, param: int,
            path: str, decl: str) -> int:
        """Leaves of one declaration; returns how many semantic indices it takes."""
        kind = t["kind"]
        if kind == "struct":
            if sem is not None:
                self.refuse(decl, sem, "a semantic on a struct-typed value; give its members "
                                       "their own semantics")
            fields = self.structs.get(emitted_name(t.get("name", "")), {})
            outer = frozenset(mods) & _INTERPOLATION_WORDS
            for f in t["fields"]:
                inner = fields.get(emitted_name(f["name"]), frozenset())
                if _noperspective(f.get("semanticName")):
                    inner = inner | {"noperspective"}
                if outer:  # a modifier on the struct value applies to every member (D3D)
                    inner = (inner - _INTERPOLATION_WORDS) | outer
                self.add(f["type"], _semantic(f.get("semanticName")), f.get("semanticIndex", 0),
                         inner, directions, param, f"{path}.{f['name']}", f"{decl}.{f['name']}")
            return 0
        if kind == "array" and t["elementType"]["kind"] in ("struct", "array"):
            self.refuse(decl, t["elementType"]["kind"], "arrays of structs or arrays in a "
                                                        "signature are not supported")
        if sem is None:
            self.refuse(decl, None, "every input and output of an entry point needs a semantic")
        interp = INTERPOLATIONS.get(frozenset(mods) & _INTERPOLATION_WORDS, "?")
        if interp == "?":
            self.refuse(decl, " ".join(sorted(mods)), "conflicting interpolation modifiers")
        if kind == "array":
            el = t["elementType"]
            if t["elementCount"] > SIGNATURE_REGISTERS:
                self.refuse(decl, t["elementCount"], f"a D3D signature has at most "
                                                     f"{SIGNATURE_REGISTERS} registers")
            used = 0
            for k in range(t["elementCount"]):
                used += self.add(el, sem, index + used, mods, directions, param, f"{path}[{k}]",
                                 f"{decl}[{k}]")
            return used
        if kind == "matrix":
            rows, cols = t["rowCount"], t["columnCount"]
            row_major = "row_major" in mods or ("column_major" not in mods
                                                and self.row_major_default)
            scalar = self.scalar(t["elementType"], decl)
            n, width = (rows, cols) if row_major else (cols, rows)
            for v in range(n):
                for d in directions:
                    self.leaves.append(Leaf(d, sem, index + v, scalar, width, param, path, decl,
                                            (rows, cols, not row_major, v), interp))
            return n
        if kind == "vector":
            scalar, count = self.scalar(t["elementType"], decl), t["elementCount"]
        elif kind == "scalar":
            scalar, count = self.scalar(t, decl), 1
        else:
            self.refuse(decl, kind, "inputs and outputs are numbers, vectors, matrices, arrays "
                                    "of them or structs of them")
        for d in directions:
            self.leaves.append(Leaf(d, sem, index, scalar, count, param, path, decl, None,
                                    interp))
        return 1


def value_leaves(t: dict, semantic: str | None, index: int, direction: str, what: str,
                 default_layout: str, structs: dict, decl: str, param: int = 0
                 ) -> tuple[Leaf, ...]:
    """The leaves of one value of reflected type ``t`` (a struct's members, an array's
    elements, a matrix's vectors), as :func:`entry_signature` flattens a parameter: paths from
    the value itself (``.pos``), refused as it refuses. ``semantic`` is the value's own
    (reflected, gpuia's marks undone here), ``structs`` :func:`declaration_modifiers`'s."""
    flat = _Flattener(what, default_layout, structs)
    flat.add(t, _semantic(semantic), index, frozenset(), (direction,), param, "", decl)
    return tuple(flat.leaves)


def type_text(t: dict, where: str, what: str) -> str:
    """The HLSL spelling of reflected value type ``t`` (an array's element type)."""
    return _type_text(t, where, what)


def _type_text(t: dict, where: str, what: str) -> str:
    kind = t["kind"]
    if kind == "struct":
        return t.get("name") or "?"
    if kind == "scalar":
        st = t.get("scalarType")
        return _HLSL_SCALAR.get(SCALARS.get(st, "float") if isinstance(st, str) else "float",
                                "float")
    if kind == "vector":
        return f"{_type_text(t['elementType'], where, what)}{t['elementCount']}"
    if kind == "matrix":
        return f"{_type_text(t['elementType'], where, what)}{t['rowCount']}x{t['columnCount']}"
    if kind == "array":
        return _type_text(t["elementType"], where, what)
    raise InvalidDescError(what, where, kind, "not a value type")


def _directions(p: dict) -> tuple[str, ...]:
    kinds = [b.get("kind") for b in (p.get("bindings") or [p.get("binding") or {}])]
    out = tuple(d for k, d in (("varyingInput", "in"), ("varyingOutput", "out")) if k in kinds)
    return out


def entry_signature(reflection: dict, hlsl: str, entry: str, what: str,
                    default_layout: str, prepared=None) -> EntrySignature:
    """The :class:`EntrySignature` of ``entry`` from a ``-target hlsl`` compile's reflection
    and generated code (see the module docstring). ``prepared`` (the
    :class:`~gpuia.hlsl.source.PreparedSource`) says what the source rewrites hid from Slang:
    row_major/column_major on matrix-array parameters (noperspective in combined modes is
    marked on the semantic itself)."""
    eps = [e for e in reflection.get("entryPoints", []) if e.get("name") == entry]
    if not eps:
        raise InvalidDescError(what, "entry_point", entry, "Slang found no such entry point")
    ep = eps[0]
    structs, param_mods = declaration_modifiers(hlsl, emitted_name(entry))
    typedef_vars = prepared.typedef_vars if prepared is not None else {}
    for name, typedef in typedef_vars.items():  # gpuia_row_major_float4x4 M[2] : M
        major = "row_major" if "_row_major_" in typedef else "column_major"
        spelled = emitted_name(name)
        param_mods[spelled] = param_mods.get(spelled, frozenset()) | {major}
        for fields in structs.values():
            if spelled in fields:
                fields[spelled] = fields[spelled] | {major}
    flat = _Flattener(what, default_layout, structs)
    params = []
    for i, p in enumerate(ep.get("parameters", [])):
        name = p["name"]
        dirs = _directions(p)
        if not dirs:
            raise InvalidDescError(what, f"parameter {name}", "uniform",
                                   "entry-point uniform parameters are not supported; declare "
                                   "the value in a cbuffer")
        t = p["type"]
        arr = f"[{t['elementCount']}]" if t["kind"] == "array" else ""
        base = _type_text(t, name, what)
        if arr and t["elementType"]["kind"] == "matrix" and name in typedef_vars:
            base = typedef_vars[name]  # the argument's type must be the parameter's own
        params.append((name, base + arr,
                       "inout" if len(dirs) == 2 else ("in" if dirs == ("in",) else "out")))
        mods = param_mods.get(emitted_name(name), frozenset())
        if _noperspective(p.get("semanticName")):
            mods = mods | {"noperspective"}
        flat.add(t, _semantic(p.get("semanticName")), p.get("semanticIndex", 0), mods, dirs, i,
                 "", name)
    result = None
    res = ep.get("result")
    if res is not None and res.get("type", {}).get("kind") not in (None, "void"):
        result = _type_text(res["type"], "return", what)
        flat.add(res["type"], _semantic(res.get("semanticName")), res.get("semanticIndex", 0),
                 frozenset(), ("out",), -1, "", "return")
    for direction in ("in", "out"):
        count = sum(leaf.direction == direction for leaf in flat.leaves)
        if count > SIGNATURE_REGISTERS:
            raise InvalidDescError(what, f"{direction}puts", count,
                                   f"a D3D shader signature has at most {SIGNATURE_REGISTERS} "
                                   f"registers (D3D11_VS_INPUT_REGISTER_COUNT, "
                                   f"D3D11_VS_OUTPUT_REGISTER_COUNT)")
    seen: dict = {}
    for leaf in flat.leaves:
        key = (leaf.direction, leaf.key)
        if key in seen:
            raise InvalidDescError(what, leaf.declaration, leaf.key,
                                   f"semantic {leaf.key} is also {seen[key]} ({leaf.direction}put "
                                   f"semantics must be unique)")
        seen[key] = leaf.declaration
    return EntrySignature(entry, tuple(params), result, tuple(flat.leaves))
