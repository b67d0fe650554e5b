"""The checks ID3D12Device::CreateRootSignature makes of a root signature (docs/rules.md
section 16).

:func:`validate` returns nothing for a root signature D3D12 accepts and raises an
:class:`~gpuia.errors.InvalidDescError` for the first rule one breaks, naming the root
parameter (and descriptor range, or static sampler), the field, the register and the rule
(``rules 16.N``). The checks run in the order D3D12's public validator makes them (DXC's
``DxilRootSignatureValidator``): the flags, then each parameter in order (its visibility, its
table's ranges, its flags, then its registers against every range before it), then each static
sampler, then the size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import InvalidDescError
from .model import (
    ADDRESS_MODES,
    APPEND,
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
    RootSignature,
    StaticSampler,
    enum_name,
)

__all__ = ["validate", "RegisterRange", "register_ranges", "parameter_ranges", "MAX_ROOT_COST",
           "RESERVED_SPACES", "parameter_cost"]

MAX_ROOT_COST = 64  # D3D12_MAX_ROOT_COST: DWORDs of root arguments
RESERVED_SPACES = 0xFFFFFFF0  # register spaces from here to 0xFFFFFFFF are the system's
_DATA = RANGE_FLAGS["data_volatile"] | RANGE_FLAGS["data_static"] | \
    RANGE_FLAGS["data_static_while_set_at_execute"]
_COST = {PARAMETER_TYPES["descriptor_table"]: 1, PARAMETER_TYPES["cbv"]: 2,
         PARAMETER_TYPES["srv"]: 2, PARAMETER_TYPES["uav"]: 2}  # root constants: 1 per value
_DESCRIPTOR_RANGE = {PARAMETER_TYPES["cbv"]: RANGE_TYPES["cbv"],
                     PARAMETER_TYPES["srv"]: RANGE_TYPES["srv"],
                     PARAMETER_TYPES["uav"]: RANGE_TYPES["uav"],
                     PARAMETER_TYPES["32bit_constants"]: RANGE_TYPES["cbv"]}
_MIP_LOD_BIAS = (-16.0, 15.99)  # D3D12_MIP_LOD_BIAS_MIN, _MAX
_MAX_ANISOTROPY = 16  # D3D12_MAX_MAXANISOTROPY


@dataclass(frozen=True)
class RegisterRange:
    """The registers one root parameter, range or static sampler binds: ``kind`` ``"table"``,
    ``"root descriptor"``, ``"root constants"`` or ``"static sampler"``; ``type`` a range type
    name (``srv``, ``uav``, ``cbv``, ``sampler``); ``first``..``last`` inclusive (``last``
    0xFFFFFFFF for an unbounded range); ``parameter`` the root parameter's index (the static
    sampler's for one), ``range`` the table's range index (None for the others)."""

    kind: str
    type: str
    visibility: int
    space: int
    first: int
    last: int
    parameter: int
    range: int | None = None

    @property
    def where(self) -> str:
        if self.kind == "static sampler":
            return f"static sampler {self.parameter}"
        at = f"root parameter {self.parameter}"
        return at if self.range is None else f"{at}, range {self.range}"

    @property
    def registers(self) -> str:
        letter = REGISTER_CLASS[self.type]
        last = "unbounded" if self.last == UINT_MAX else f"{letter}{self.last}"
        span = f"{letter}{self.first}" if self.first == self.last else \
            f"{letter}{self.first}..{last}"
        return f"{span}, space{self.space}"

    def describe(self) -> str:
        return (f"{self.where} ({self.kind}, {self.registers}, visibility "
                f"{enum_name(VISIBILITIES, self.visibility)})")

    def overlaps(self, other: RegisterRange) -> bool:
        """Whether D3D12 sees the two as one register bound twice (rules 16.6)."""
        return self.type == other.type and self.space == other.space and \
            (self.visibility == other.visibility or 0 in (self.visibility, other.visibility)) \
            and self.first <= other.last and other.first <= self.last


def parameter_ranges(p, index: int) -> list[RegisterRange]:
    """The register ranges root parameter ``p`` (at ``index``) binds: a table's ranges in
    order, or the one register of root constants or a root descriptor."""
    if p.type == PARAMETER_TYPES["descriptor_table"]:
        return [RegisterRange("table", r.type_name, p.visibility, r.register_space,
                              r.base_shader_register, min(r.last_register, UINT_MAX), index, k)
                for k, r in enumerate(p.ranges)]
    if p.type not in _DESCRIPTOR_RANGE:
        return []
    kind = "root constants" if p.type == PARAMETER_TYPES["32bit_constants"] else \
        "root descriptor"
    return [RegisterRange(kind, enum_name(RANGE_TYPES, _DESCRIPTOR_RANGE[p.type]), p.visibility,
                          p.register_space, p.shader_register, p.shader_register, index)]


def register_ranges(rs: RootSignature) -> list[RegisterRange]:
    """Every register range the root signature binds, in D3D12's order: the parameters in
    order (a table's ranges in order), then the static samplers."""
    out = [r for i, p in enumerate(rs.parameters) for r in parameter_ranges(p, i)]
    out += [RegisterRange("static sampler", "sampler", s.visibility, s.register_space,
                          s.shader_register, s.shader_register, i)
            for i, s in enumerate(rs.static_samplers)]
    return out


def parameter_cost(p) -> int:
    """DWORDs a root parameter takes of the 64 (rules 16.8)."""
    if p.type == PARAMETER_TYPES["32bit_constants"]:
        return p.num_32bit_values
    return _COST.get(p.type, 0)


def _fail(where: str, field: str | None, value, rule: str):
    return InvalidDescError(where, field, value, rule)


def validate(rs: RootSignature) -> None:
    """Raise InvalidDescError for the first rule of docs/rules.md section 16 that ``rs``
    breaks (see the module docstring), its ``where`` starting with ``rs.origin``; return None
    when D3D12 accepts it."""
    try:
        _validate(rs)
    except InvalidDescError as e:
        raise InvalidDescError(f"{rs.origin}: {e.where}", e.field, e.value, e.rule) from None


def _validate(rs: RootSignature) -> None:
    unknown = rs.flags & ~sum(ROOT_FLAGS.values())
    if unknown:
        raise _fail("root signature", "Flags", hex(rs.flags),
                    f"bits {hex(unknown)} are no D3D12_ROOT_SIGNATURE_FLAGS (rules 16.2)")
    seen: list[RegisterRange] = []
    for i, p in enumerate(rs.parameters):
        where = f"root parameter {i}"
        held = parameter_ranges(p, i) if p.type != PARAMETER_TYPES["descriptor_table"] else []
        if held and held[0].type in REGISTER_CLASS:  # the register, for every refusal below
            where += f" ({held[0].type.upper()} {held[0].registers})"
        if p.visibility not in VISIBILITIES.values():
            raise _fail(where, "ShaderVisibility", p.visibility,
                        "not a D3D12_SHADER_VISIBILITY (rules 16.1)")
        if p.type not in PARAMETER_TYPES.values():
            raise _fail(where, "ParameterType", p.type,
                        "not a D3D12_ROOT_PARAMETER_TYPE (rules 16.1)")
        if p.type == PARAMETER_TYPES["descriptor_table"]:
            _check_table(p, where, rs.version)
        elif p.type != PARAMETER_TYPES["32bit_constants"]:
            _check_descriptor_flags(p.flags, where, rs.version)
        _add_ranges(parameter_ranges(p, i), seen)
    for i, s in enumerate(rs.static_samplers):
        if s.visibility not in VISIBILITIES.values():
            raise _fail(f"static sampler {i}", "ShaderVisibility", s.visibility,
                        "not a D3D12_SHADER_VISIBILITY (rules 16.1)")
        _check_sampler(s, f"static sampler {i} (s{s.shader_register}, space{s.register_space})")
        _add_ranges([RegisterRange("static sampler", "sampler", s.visibility, s.register_space,
                                   s.shader_register, s.shader_register, i)], seen)
    cost = sum(parameter_cost(p) for p in rs.parameters)
    if cost > MAX_ROOT_COST:
        parts = ", ".join(f"{i}: {parameter_cost(p)}" for i, p in enumerate(rs.parameters))
        raise _fail("root signature", "size", f"{cost} DWORDs",
                    f"more than the {MAX_ROOT_COST} DWORDs of root arguments D3D12 allows "
                    f"(root constants 1 per value, root descriptors 2, tables 1; by parameter "
                    f"{parts}; rules 16.8)")


def _add_ranges(ranges: list[RegisterRange], seen: list[RegisterRange]) -> None:
    """Check each range's space (rules 16.5) and against every range before it (16.6)."""
    for r in ranges:
        if r.space >= RESERVED_SPACES:
            raise _fail(r.where, "RegisterSpace", hex(r.space),
                        "register spaces 0xFFFFFFF0..0xFFFFFFFF are reserved for the system "
                        "(rules 16.5)")
        clash = next((s for s in seen if r.overlaps(s)), None)
        if clash is not None:
            raise _fail(r.where, "registers", r.registers,
                        f"{r.type.upper()} registers overlap {clash.describe()}: a register "
                        f"is bound once per visibility, and ALL overlaps every visibility "
                        f"(rules 16.6)")
        seen.append(r)


def _check_table(p, where: str, version: str) -> None:
    """A table's ranges (rules 16.3, 16.4)."""
    samplers = resources = False
    next_slot = 0  # where an APPEND range starts (past UINT_MAX after an unbounded range)
    for k, r in enumerate(p.ranges):
        at = f"{where}, range {k}"
        if r.type in RANGE_TYPES.values():
            letter = REGISTER_CLASS[r.type_name]
            at += f" ({r.type_name.upper()} {letter}{r.base_shader_register}, " \
                  f"space{r.register_space})"
        if r.type not in RANGE_TYPES.values():
            raise _fail(at, "RangeType", r.type, "not a D3D12_DESCRIPTOR_RANGE_TYPE (rules 16.1)")
        is_sampler = r.type == RANGE_TYPES["sampler"]
        samplers, resources = samplers or is_sampler, resources or not is_sampler
        if samplers and resources:
            raise _fail(at, "RangeType", r.type_name.upper(),
                        "a descriptor table holds either sampler ranges or CBV/SRV/UAV ranges, "
                        "never both (rules 16.4)")
        if r.num_descriptors == 0:
            raise _fail(at, "NumDescriptors", 0, "a range holds at least one descriptor "
                                                 "(rules 16.4)")
        start = next_slot if r.offset == APPEND else r.offset
        if start > UINT_MAX:
            raise _fail(at, "OffsetInDescriptorsFromTableStart", "APPEND",
                        "a range after an unbounded range needs an explicit offset: APPEND has "
                        "no place to start (rules 16.4)")
        if r.num_descriptors == UNBOUNDED:
            next_slot = UINT_MAX + 1
        else:
            if r.base_shader_register + r.num_descriptors - 1 > UINT_MAX:
                raise _fail(at, "BaseShaderRegister", r.base_shader_register,
                            f"with NumDescriptors {r.num_descriptors} its registers pass "
                            f"0xFFFFFFFF (rules 16.4)")
            if start + r.num_descriptors - 1 > UINT_MAX:
                raise _fail(at, "OffsetInDescriptorsFromTableStart", start,
                            f"with NumDescriptors {r.num_descriptors} its descriptors pass "
                            f"0xFFFFFFFF (rules 16.4)")
            next_slot = start + r.num_descriptors
        _check_range_flags(r, at, version)


def _check_range_flags(r, at: str, version: str) -> None:
    """A range's flags (rules 16.3)."""
    if not r.flags:
        return
    if version == "1.0":
        raise _fail(at, "Flags", hex(r.flags), "a version 1.0 descriptor range has no flags "
                                               "(D3D12_DESCRIPTOR_RANGE1 is version 1.1's; "
                                               "rules 16.3)")
    unknown = r.flags & ~sum(RANGE_FLAGS.values())
    if unknown:
        raise _fail(at, "Flags", hex(r.flags),
                    f"bits {hex(unknown)} are no D3D12_DESCRIPTOR_RANGE_FLAGS (rules 16.3)")
    if r.type == RANGE_TYPES["sampler"] and r.flags & _DATA:
        raise _fail(at, "Flags", hex(r.flags), "a sampler range takes no DATA_* flag: "
                                               "samplers point to no data (rules 16.3)")
    _check_data_flags(r.flags, at)


def _check_descriptor_flags(flags: int, where: str, version: str) -> None:
    """A root descriptor's flags (rules 16.3)."""
    if not flags:
        return
    if version == "1.0":
        raise _fail(where, "Flags", hex(flags), "a version 1.0 root descriptor has no flags "
                                                "(rules 16.3)")
    unknown = flags & ~sum(DESCRIPTOR_FLAGS.values())
    if unknown:
        raise _fail(where, "Flags", hex(flags),
                    f"bits {hex(unknown)} are no D3D12_ROOT_DESCRIPTOR_FLAGS (rules 16.3)")
    _check_data_flags(flags, where)


def _check_data_flags(flags: int, where: str) -> None:
    if bin(flags & _DATA).count("1") > 1:
        raise _fail(where, "Flags", hex(flags), "at most one DATA_* flag (DATA_VOLATILE, "
                                                "DATA_STATIC_WHILE_SET_AT_EXECUTE, DATA_STATIC; "
                                                "rules 16.3)")
    if flags & RANGE_FLAGS["data_static"] and flags & RANGE_FLAGS["descriptors_volatile"]:
        raise _fail(where, "Flags", hex(flags), "DATA_STATIC with DESCRIPTORS_VOLATILE: "
                                                "volatile descriptors cannot promise static "
                                                "data (rules 16.3)")


def _check_sampler(s: StaticSampler, where: str) -> None:
    """A static sampler's fields (rules 16.7)."""
    if s.filter not in FILTERS.values():
        raise _fail(where, "Filter", hex(s.filter), "not a D3D12_FILTER (rules 16.7)")
    for name, value in (("AddressU", s.address_u), ("AddressV", s.address_v),
                        ("AddressW", s.address_w)):
        if value not in ADDRESS_MODES.values():
            raise _fail(where, name, value, "not a D3D12_TEXTURE_ADDRESS_MODE (rules 16.7)")
    lo, hi = _MIP_LOD_BIAS
    if math.isnan(s.mip_lod_bias) or not lo <= s.mip_lod_bias <= hi:
        raise _fail(where, "MipLODBias", s.mip_lod_bias, f"outside [{lo}, {hi}] (rules 16.7)")
    if s.max_anisotropy > _MAX_ANISOTROPY:
        raise _fail(where, "MaxAnisotropy", s.max_anisotropy,
                    f"more than {_MAX_ANISOTROPY} (rules 16.7)")
    if s.filter & 0x180 == 0x80 and s.comparison_func not in COMPARISON_FUNCS.values():
        raise _fail(where, "ComparisonFunc", s.comparison_func,
                    "a comparison filter needs a D3D12_COMPARISON_FUNC (rules 16.7)")
    for name, lod in (("MinLOD", s.min_lod), ("MaxLOD", s.max_lod)):
        if math.isnan(lod):
            raise _fail(where, name, lod, "NaN (rules 16.7)")
