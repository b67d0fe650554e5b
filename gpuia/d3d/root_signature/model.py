"""D3D12_VERSIONED_ROOT_SIGNATURE_DESC as frozen values, and the enumerations it uses.

Every enumeration is one table of D3D12's value per name (d3d12.h; the serialized form stores
the same numbers). :func:`enum_value` reads a name in any of the spellings gpuia accepts:
``"vertex"``, ``"SHADER_VISIBILITY_VERTEX"``, ``"D3D12_SHADER_VISIBILITY_VERTEX"`` (any case).
The values hold what a desc holds, unchecked: :mod:`.validation` says whether D3D12 accepts
them (docs/rules.md section 16).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InvalidDescError

__all__ = ["UINT_MAX", "UNBOUNDED", "APPEND", "VERSIONS", "PARAMETER_TYPES", "RANGE_TYPES",
           "VISIBILITIES", "ROOT_FLAGS", "RANGE_FLAGS", "DESCRIPTOR_FLAGS", "FILTERS",
           "ADDRESS_MODES", "COMPARISON_FUNCS", "BORDER_COLORS", "REGISTER_CLASS",
           "DescriptorRange", "RootParameter", "StaticSampler", "RootSignature", "enum_value",
           "enum_name", "flag_names", "flags_value"]

UINT_MAX = 0xFFFFFFFF
UNBOUNDED = UINT_MAX  # NumDescriptors of an unbounded range (HLSL: numDescriptors=unbounded)
APPEND = UINT_MAX  # D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND

VERSIONS = {"1.0": 1, "1.1": 2}  # D3D_ROOT_SIGNATURE_VERSION_1_0, _1_1
PARAMETER_TYPES = {"descriptor_table": 0, "32bit_constants": 1, "cbv": 2, "srv": 3, "uav": 4}
RANGE_TYPES = {"srv": 0, "uav": 1, "cbv": 2, "sampler": 3}
VISIBILITIES = {"all": 0, "vertex": 1, "hull": 2, "domain": 3, "geometry": 4, "pixel": 5,
                "amplification": 6, "mesh": 7}
ROOT_FLAGS = {"allow_input_assembler_input_layout": 0x1, "deny_vertex_shader_root_access": 0x2,
              "deny_hull_shader_root_access": 0x4, "deny_domain_shader_root_access": 0x8,
              "deny_geometry_shader_root_access": 0x10, "deny_pixel_shader_root_access": 0x20,
              "allow_stream_output": 0x40, "local_root_signature": 0x80,
              "deny_amplification_shader_root_access": 0x100,
              "deny_mesh_shader_root_access": 0x200,
              "cbv_srv_uav_heap_directly_indexed": 0x400,
              "sampler_heap_directly_indexed": 0x800}
RANGE_FLAGS = {"descriptors_volatile": 0x1, "data_volatile": 0x2,
               "data_static_while_set_at_execute": 0x4, "data_static": 0x8,
               "descriptors_static_keeping_buffer_bounds_checks": 0x10000}
DESCRIPTOR_FLAGS = {"data_volatile": 0x2, "data_static_while_set_at_execute": 0x4,
                    "data_static": 0x8}
_FILTER_BASE = {"min_mag_mip_point": 0x0, "min_mag_point_mip_linear": 0x1,
                "min_point_mag_linear_mip_point": 0x4, "min_point_mag_mip_linear": 0x5,
                "min_linear_mag_mip_point": 0x10, "min_linear_mag_point_mip_linear": 0x11,
                "min_mag_linear_mip_point": 0x14, "min_mag_mip_linear": 0x15,
                "anisotropic": 0x55}
# D3D12_FILTER: the reduction (standard, comparison, minimum, maximum) in bits 7-8
FILTERS = {f"{prefix}{name}": value | reduction
           for prefix, reduction in (("", 0), ("comparison_", 0x80), ("minimum_", 0x100),
                                     ("maximum_", 0x180))
           for name, value in _FILTER_BASE.items()}
ADDRESS_MODES = {"wrap": 1, "mirror": 2, "clamp": 3, "border": 4, "mirror_once": 5}
COMPARISON_FUNCS = {"never": 1, "less": 2, "equal": 3, "less_equal": 4, "greater": 5,
                    "not_equal": 6, "greater_equal": 7, "always": 8}
BORDER_COLORS = {"transparent_black": 0, "opaque_black": 1, "opaque_white": 2,
                 "opaque_black_uint": 3, "opaque_white_uint": 4}

REGISTER_CLASS = {"cbv": "b", "srv": "t", "uav": "u", "sampler": "s"}
"""The HLSL register letter of each range type (a root constants parameter is ``b``)."""

# Prefixes D3D12's names carry before the part the tables hold.
_PREFIXES = ("d3d12_root_parameter_type_", "d3d12_descriptor_range_type_",
             "d3d12_shader_visibility_", "shader_visibility_", "d3d12_root_signature_flag_",
             "d3d12_descriptor_range_flag_", "d3d12_root_descriptor_flag_", "d3d12_filter_",
             "filter_", "d3d12_texture_address_mode_", "texture_address_mode_",
             "texture_address_", "d3d12_comparison_func_", "comparison_func_", "comparison_",
             "d3d12_static_border_color_", "static_border_color_", "d3d_root_signature_version_",
             "descriptor_range_type_", "root_parameter_type_", "descriptor_range_flag_",
             "root_descriptor_flag_", "root_signature_flag_")


def enum_value(table: dict[str, int], value: object, where: str, field: str) -> int:
    """D3D12's number for ``value`` (a name of ``table`` in any accepted spelling, or the
    number itself when it is one of the table's). Raises InvalidDescError naming the field
    and the names accepted."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value in table.values():
            return value
    elif isinstance(value, str):
        name = value.strip().lower()
        if name in table:
            return table[name]
        for prefix in _PREFIXES:
            if name.startswith(prefix) and name[len(prefix):] in table:
                return table[name[len(prefix):]]
    raise InvalidDescError(where, field, value, f"expected one of {', '.join(table)}")


def enum_name(table: dict[str, int], value: int) -> str:
    """The table's name of ``value``, or the number as text when it has none."""
    return next((k for k, v in table.items() if v == value), str(value))


def flags_value(table: dict[str, int], value: object, where: str, field: str) -> int:
    """Flags given as a list of names, one name, ``"A | B"``, a number, or None (0)."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= UINT_MAX:
            raise InvalidDescError(where, field, value, "expected a 32-bit flag mask")
        return value
    names = value.split("|") if isinstance(value, str) else value
    if not isinstance(names, list):
        raise InvalidDescError(where, field, value, "expected a list of flag names")
    out = 0
    for name in names:
        if isinstance(name, str) and name.strip().lower() in ("0", "none"):
            continue
        out |= enum_value(table, name, where, field)
    return out


def flag_names(table: dict[str, int], value: int) -> list[str]:
    """The names of the bits set in ``value`` (unknown bits as a hex number)."""
    names = [k for k, v in table.items() if value & v]
    rest = value & ~sum(table.values())
    return names + ([hex(rest)] if rest else [])


@dataclass(frozen=True)
class DescriptorRange:
    """D3D12_DESCRIPTOR_RANGE(1): ``type`` a :data:`RANGE_TYPES` number; ``num_descriptors``
    :data:`UNBOUNDED` for an unbounded range; ``offset`` :data:`APPEND` to follow the range
    before; ``flags`` (1.1 only) :data:`RANGE_FLAGS` bits, 0 when none is given."""

    type: int
    num_descriptors: int
    base_shader_register: int
    register_space: int = 0
    offset: int = APPEND
    flags: int = 0

    @property
    def type_name(self) -> str:
        return enum_name(RANGE_TYPES, self.type)

    @property
    def last_register(self) -> int:
        """The range's last register (UINT_MAX for an unbounded range; past it on overflow)."""
        if self.num_descriptors == UNBOUNDED:
            return UINT_MAX
        return self.base_shader_register + self.num_descriptors - 1


@dataclass(frozen=True)
class RootParameter:
    """D3D12_ROOT_PARAMETER(1): ``type`` a :data:`PARAMETER_TYPES` number; a table's
    ``ranges``; a root constant's or root descriptor's ``shader_register`` and
    ``register_space``; ``num_32bit_values`` of root constants; a root descriptor's ``flags``
    (1.1 only, :data:`DESCRIPTOR_FLAGS` bits); ``visibility`` a :data:`VISIBILITIES` number."""

    type: int
    visibility: int = 0
    ranges: tuple[DescriptorRange, ...] = ()
    shader_register: int = 0
    register_space: int = 0
    num_32bit_values: int = 0
    flags: int = 0

    @property
    def type_name(self) -> str:
        return enum_name(PARAMETER_TYPES, self.type)

    @property
    def visibility_name(self) -> str:
        return enum_name(VISIBILITIES, self.visibility)


@dataclass(frozen=True)
class StaticSampler:
    """D3D12_STATIC_SAMPLER_DESC, every field as D3D12 stores it (defaults: the HLSL string
    form's, "Specifying Root Signatures in HLSL")."""

    shader_register: int
    register_space: int = 0
    visibility: int = 0
    filter: int = FILTERS["anisotropic"]
    address_u: int = ADDRESS_MODES["wrap"]
    address_v: int = ADDRESS_MODES["wrap"]
    address_w: int = ADDRESS_MODES["wrap"]
    mip_lod_bias: float = 0.0
    max_anisotropy: int = 16
    comparison_func: int = COMPARISON_FUNCS["less_equal"]
    border_color: int = BORDER_COLORS["opaque_white"]
    min_lod: float = 0.0
    max_lod: float = 3.4028234663852886e38  # D3D12_FLOAT32_MAX, as the float32 it is

    def sampler_fields(self) -> dict:
        """The D3D12_SAMPLER_DESC part (every field but the register, space and visibility)
        in snake_case, by name: what ``gpuia.d3d.textures.sampler_desc`` reads."""
        return {"filter": enum_name(FILTERS, self.filter),
                "address_u": enum_name(ADDRESS_MODES, self.address_u),
                "address_v": enum_name(ADDRESS_MODES, self.address_v),
                "address_w": enum_name(ADDRESS_MODES, self.address_w),
                "mip_lod_bias": self.mip_lod_bias, "max_anisotropy": self.max_anisotropy,
                "comparison_func": enum_name(COMPARISON_FUNCS, self.comparison_func),
                "border_color": enum_name(BORDER_COLORS, self.border_color),
                "min_lod": self.min_lod, "max_lod": self.max_lod}


@dataclass(frozen=True)
class RootSignature:
    """D3D12_VERSIONED_ROOT_SIGNATURE_DESC: ``version`` ``"1.0"`` or ``"1.1"``, the root
    parameters in order, the static samplers, the :data:`ROOT_FLAGS` bits, and ``origin``:
    where it was read (``"case"``, ``"HLSL [RootSignature]"``, ``"RTS0"``), for messages."""

    version: str
    parameters: tuple[RootParameter, ...] = ()
    static_samplers: tuple[StaticSampler, ...] = ()
    flags: int = 0
    origin: str = "root_signature"

    def as_dict(self) -> dict:
        """The JSON form (docs/case-format.md, ``root_signature``): names, not numbers."""
        params = []
        for p in self.parameters:
            d: dict = {"type": p.type_name, "visibility": p.visibility_name}
            if p.type == PARAMETER_TYPES["descriptor_table"]:
                d["ranges"] = [_range_dict(r, self.version) for r in p.ranges]
            else:
                d["shader_register"] = p.shader_register
                d["register_space"] = p.register_space
                if p.type == PARAMETER_TYPES["32bit_constants"]:
                    d["num_32bit_values"] = p.num_32bit_values
                elif self.version != "1.0":
                    d["flags"] = flag_names(DESCRIPTOR_FLAGS, p.flags)
            params.append(d)
        samplers = [{"shader_register": s.shader_register, "register_space": s.register_space,
                     "visibility": enum_name(VISIBILITIES, s.visibility), **s.sampler_fields()}
                    for s in self.static_samplers]
        return {"version": self.version, "parameters": params, "static_samplers": samplers,
                "flags": flag_names(ROOT_FLAGS, self.flags)}


def _range_dict(r: DescriptorRange, version: str) -> dict:
    d: dict = {"type": r.type_name,
               "num_descriptors": -1 if r.num_descriptors == UNBOUNDED else r.num_descriptors,
               "base_shader_register": r.base_shader_register,
               "register_space": r.register_space,
               "offset_in_descriptors_from_table_start":
                   "append" if r.offset == APPEND else r.offset}
    if version != "1.0":
        d["flags"] = flag_names(RANGE_FLAGS, r.flags)
    return d
