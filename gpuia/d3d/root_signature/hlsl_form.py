"""A root signature in HLSL's string form (Microsoft Learn, "Specifying Root Signatures in
HLSL"), and the ``[RootSignature(...)]`` attribute of an HLSL entry point.

:func:`parse_root_signature` reads the string: comma-separated ``RootFlags(A | B)``,
``RootConstants(num32BitConstants=N, bK, space=S, visibility=V)``, ``CBV(bK, ...)``,
``SRV(tK, ...)``, ``UAV(uK, ...)`` (root descriptors, with ``space``, ``visibility``,
``flags``), ``DescriptorTable(CBV(...), SRV(...), UAV(...), Sampler(...), visibility=V)``
(ranges with ``numDescriptors`` (a count or ``unbounded``), ``space``, ``offset`` (a number or
``DESCRIPTOR_RANGE_OFFSET_APPEND``), ``flags``) and ``StaticSampler(sK, filter=, addressU=,
addressV=, addressW=, mipLODBias=, maxAnisotropy=, comparisonFunc=, borderColor=, minLOD=,
maxLOD=, space=, visibility=)``; the optional arguments in any order, each at most once.
Keywords and enumeration names are read in any case; a register is a lower-case letter and a
number (``b0``; the compilers refuse ``B0``). A range or root descriptor written without
``flags`` has flags 0, as the compilers store it. Refused, with an
:class:`~gpuia.errors.InvalidDescError` naming the character offset and what was expected:
anything else. Whether D3D12 accepts the result is :func:`.validation.validate`'s concern.

:func:`entry_root_signature` finds the string an entry point's attribute names: a string
literal, or a macro defined by ``#define`` in the source or by the compile's defines, whose
value is string literals (concatenated, over continued lines).
"""

from __future__ import annotations

import re

from ...errors import InvalidDescError
from .model import (
    ADDRESS_MODES,
    APPEND,
    BORDER_COLORS,
    COMPARISON_FUNCS,
    DESCRIPTOR_FLAGS,
    FILTERS,
    PARAMETER_TYPES,
    RANGE_FLAGS,
    RANGE_TYPES,
    REGISTER_CLASS,
    ROOT_FLAGS,
    UINT_MAX,
    UNBOUNDED,
    VISIBILITIES,
    DescriptorRange,
    RootParameter,
    RootSignature,
    StaticSampler,
    enum_value,
)

__all__ = ["parse_root_signature", "entry_root_signature"]

_TOKEN = re.compile(r"\s*(?:(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fF]?)"
                    r"|(?P<word>[A-Za-z_]\w*)|(?P<punct>[(),=|]))")
_WHAT = "root signature string"

# Each clause's optional arguments: HLSL name -> (field, reader kind, enumeration table).
_SPACE_VIS = {"space": ("register_space", "uint", None),
              "visibility": ("visibility", "enum", VISIBILITIES)}
_DESCRIPTOR_ARGS = {**_SPACE_VIS, "flags": ("flags", "flags", DESCRIPTOR_FLAGS)}
_CONSTANT_ARGS = {**_SPACE_VIS, "num32bitconstants": ("num_32bit_values", "uint", None)}
_RANGE_ARGS = {"numdescriptors": ("num_descriptors", "count", None),
               "space": ("register_space", "uint", None),
               "offset": ("offset", "offset", None),
               "flags": ("flags", "flags", RANGE_FLAGS)}
_TABLE_ARGS = {"visibility": ("visibility", "enum", VISIBILITIES)}
_SAMPLER_ARGS = {**_SPACE_VIS, "filter": ("filter", "enum", FILTERS),
                 "addressu": ("address_u", "enum", ADDRESS_MODES),
                 "addressv": ("address_v", "enum", ADDRESS_MODES),
                 "addressw": ("address_w", "enum", ADDRESS_MODES),
                 "miplodbias": ("mip_lod_bias", "float", None),
                 "maxanisotropy": ("max_anisotropy", "uint", None),
                 "comparisonfunc": ("comparison_func", "enum", COMPARISON_FUNCS),
                 "bordercolor": ("border_color", "enum", BORDER_COLORS),
                 "minlod": ("min_lod", "float", None), "maxlod": ("max_lod", "float", None)}
_ROOT_DESCRIPTORS = {"cbv": "cbv", "srv": "srv", "uav": "uav"}
_RANGES = {"cbv": "cbv", "srv": "srv", "uav": "uav", "sampler": "sampler"}


class _Tokens:
    def __init__(self, text: str):
        self.items: list[tuple[str, str, int]] = []
        at = 0
        while at < len(text):
            if not text[at:].strip():
                break
            m = _TOKEN.match(text, at)
            if m is None or m.end() == at:
                raise InvalidDescError(_WHAT, f"character {at}", text[at:at + 12],
                                       "not a token of the root signature grammar")
            kind = m.lastgroup or "punct"
            self.items.append((kind, m.group(kind), m.start(kind)))
            at = m.end()
        self.k = 0

    def peek(self) -> tuple[str, str, int]:
        return self.items[self.k] if self.k < len(self.items) else ("end", "", -1)

    def take(self, expected: str | None = None) -> tuple[str, str, int]:
        tok = self.peek()
        if expected is not None and tok[1] != expected:
            self.fail(f"'{expected}'")
        self.k += 1
        return tok

    def fail(self, expected: str):
        kind, value, at = self.peek()
        if kind == "end":
            raise InvalidDescError(f"{_WHAT}: at the end", None, None, f"expected {expected}")
        raise InvalidDescError(f"{_WHAT}: character {at}", "token", value,
                               f"expected {expected}")


def _register(value: str, letter: str, toks: _Tokens) -> int | None:
    m = re.fullmatch(rf"{letter}(\d+)", value)
    if m is None:
        return None
    n = int(m.group(1))
    if n > UINT_MAX:
        toks.fail("a register number of 32 bits")
    return n


def _uint(toks: _Tokens) -> int:
    kind, value, _ = toks.peek()
    if kind != "num" or not value.isdigit() or int(value) > UINT_MAX:
        toks.fail("a whole number 0..4294967295")
    toks.take()
    return int(value)


def _value(toks: _Tokens, reader: str, table: dict | None, name: str):
    kind, value, at = toks.peek()
    if reader == "uint":
        return _uint(toks)
    if reader == "float":
        if kind != "num":
            toks.fail("a number")
        toks.take()
        return float(value.rstrip("fF"))
    if reader == "count" and value.lower() == "unbounded":
        toks.take()
        return UNBOUNDED
    if reader == "offset" and value.upper() in ("DESCRIPTOR_RANGE_OFFSET_APPEND",
                                                "D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND"):
        toks.take()
        return APPEND
    if reader in ("count", "offset"):
        return _uint(toks)
    if reader == "flags":
        out = 0
        while True:
            kind, value, at = toks.take()
            if value != "0":
                assert table is not None
                out |= enum_value(table, value, f"{_WHAT}: character {at}", name)
            if toks.peek()[1] != "|":
                return out
            toks.take("|")
    if kind != "word":
        toks.fail("a name")
    toks.take()
    assert table is not None
    return enum_value(table, value, f"{_WHAT}: character {at}", name)


def _arguments(toks: _Tokens, letter: str | None, args: dict, clause: str,
               nested: dict | None = None) -> tuple[int | None, dict, list]:
    """``( ... )`` of one clause: (its register, its named arguments by field, the nested
    range clauses of a table)."""
    toks.take("(")
    register: int | None = None
    fields: dict = {}
    ranges: list = []
    while toks.peek()[1] != ")":
        if fields or register is not None or ranges:
            if toks.peek()[1] != ",":
                toks.fail(f"',' or ')' in {clause}")
            toks.take(",")
        kind, value, at = toks.peek()
        lower = value.lower()
        if nested is not None and lower in nested and toks.items[toks.k + 1:toks.k + 2] and \
                toks.items[toks.k + 1][1] == "(":
            toks.take()
            ranges.append((nested[lower], at, _arguments(toks, REGISTER_CLASS[nested[lower]],
                                                         _RANGE_ARGS, value)))
            continue
        reg = _register(value, letter, toks) if letter and kind == "word" else None
        if reg is not None:
            if register is not None:
                toks.fail(f"one register in {clause}")
            toks.take()
            register = reg
            continue
        if lower not in args:
            expected = [f"{letter}N"] if letter else []
            toks.fail(f"one of {', '.join(expected + sorted(args))} in {clause}")
        field, reader, table = args[lower]
        if field in fields:
            toks.fail(f"{value} once in {clause}")
        toks.take()
        toks.take("=")
        fields[field] = _value(toks, reader, table, value)
    toks.take(")")
    if letter is not None and register is None:
        toks.fail(f"a register {letter}N in {clause}")
    return register, fields, ranges


def parse_root_signature(text: str, version: str = "1.1",
                         origin: str = "HLSL [RootSignature]") -> RootSignature:
    """The root signature of HLSL string ``text`` at ``version`` (``"1.0"``, ``"1.1"``: the
    compile target's, rootsig_1_0 or rootsig_1_1; see the module docstring)."""
    toks = _Tokens(text)
    params: list[RootParameter] = []
    samplers: list[StaticSampler] = []
    flags = 0
    while toks.peek()[0] != "end":
        if params or samplers or toks.k:
            toks.take(",")
        kind, value, at = toks.take()
        name = value.lower()
        if name == "rootflags":
            toks.take("(")
            flags |= _value(toks, "flags", ROOT_FLAGS, "RootFlags")
            toks.take(")")
        elif name == "rootconstants":
            reg, f, _ = _arguments(toks, "b", _CONSTANT_ARGS, value)
            if "num_32bit_values" not in f:
                toks.fail("num32BitConstants= in RootConstants")
            params.append(RootParameter(PARAMETER_TYPES["32bit_constants"],
                                        shader_register=reg or 0, **f))
        elif name in _ROOT_DESCRIPTORS:
            kind_name = _ROOT_DESCRIPTORS[name]
            reg, f, _ = _arguments(toks, REGISTER_CLASS[kind_name], _DESCRIPTOR_ARGS, value)
            params.append(RootParameter(PARAMETER_TYPES[kind_name], shader_register=reg or 0,
                                        **f))
        elif name == "descriptortable":
            _, f, nested = _arguments(toks, None, _TABLE_ARGS, value, _RANGES)
            ranges = tuple(DescriptorRange(RANGE_TYPES[t], rf.get("num_descriptors", 1),
                                           reg or 0, rf.get("register_space", 0),
                                           rf.get("offset", APPEND), rf.get("flags", 0))
                           for t, _, (reg, rf, _) in nested)
            params.append(RootParameter(PARAMETER_TYPES["descriptor_table"],
                                        f.get("visibility", 0), ranges))
        elif name == "staticsampler":
            reg, f, _ = _arguments(toks, "s", _SAMPLER_ARGS, value)
            samplers.append(StaticSampler(reg or 0, **f))
        else:
            toks.k -= 1
            toks.fail("RootFlags, RootConstants, CBV, SRV, UAV, DescriptorTable or "
                      "StaticSampler")
    return RootSignature(version, tuple(params), tuple(samplers), flags, origin=origin)


_STRINGS = re.compile(r'\s*"((?:[^"\\]|\\.)*)"')
_COMMENTS = re.compile(r'//[^\n]*|/\*.*?\*/|("(?:[^"\\\n]|\\.)*")', re.S)


def _uncomment(source: str) -> str:
    return _COMMENTS.sub(lambda m: m.group(1) or " ", source)


def _string_value(text: str, macros: dict[str, str], depth: int = 0) -> str | None:
    """The text of concatenated string literals (macro names expanded); None if not that."""
    out, at = [], 0
    text = text.strip()
    while at < len(text):
        m = _STRINGS.match(text, at)
        if m is not None:
            out.append(m.group(1).replace('\\"', '"'))
            at = m.end()
            continue
        w = re.match(r"\s*([A-Za-z_]\w*)", text[at:])
        if w is None or w.group(1) not in macros or depth > 8:
            return None if text[at:].strip() else "".join(out)
        inner = _string_value(macros[w.group(1)], macros, depth + 1)
        if inner is None:
            return None
        out.append(inner)
        at += w.end()
    return "".join(out)


def entry_root_signature(source: str, entry_point: str,
                         defines: tuple[tuple[str, str], ...] = ()) -> str | None:
    """The root signature string of ``entry_point``'s ``[RootSignature(...)]`` attribute in
    ``source`` (see the module docstring); None when the entry has none. Raises
    InvalidDescError when the attribute's argument is not a string gpuia can read."""
    code = _uncomment(source.replace("\\\r\n", " ").replace("\\\n", " "))
    macros = {m.group(1): m.group(2) for m in
              re.finditer(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]*)", code, re.M)}
    macros.update(dict(defines))
    for m in re.finditer(r"\[\s*RootSignature\s*\(", code):
        depth, k = 1, m.end()
        while depth and k < len(code):
            depth += {"(": 1, ")": -1}.get(code[k], 0)
            k += 1
        rest = code[k:]
        head = re.match(r"\s*\](?:\s*\[[^\]]*\])*\s*[\w\s<>,:]*?\b([A-Za-z_]\w*)\s*\(", rest)
        if head is None or head.group(1) != entry_point:
            continue
        value = _string_value(code[m.end():k - 1], macros)
        if value is None:
            raise InvalidDescError(f"{_WHAT} of {entry_point}", "RootSignature",
                                   code[m.end():k - 1].strip()[:60],
                                   "expected a string literal or a macro defined as string "
                                   "literals")
        return value
    return None
