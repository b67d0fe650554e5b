"""A root signature written as JSON (a case file's ``root_signature``, docs/case-format.md).

Field names are D3D12's in snake_case; enumerations take D3D12's names in any spelling
:func:`~.model.enum_value` accepts. Guaranteed: a :class:`~.model.RootSignature` holding what
the document says, defaults filled as D3D12's helpers fill them (visibility ``all``, register
space 0, offset ``append``, no flags, version ``1.1``). Refused with a
:class:`~gpuia.errors.CaseError`: a document that is not the right shape (unknown keys, wrong
types, missing required keys); with an :class:`~gpuia.errors.InvalidDescError`: an unknown
enumeration name or a number outside 32 bits. Whether D3D12 accepts the values is
:func:`.validation.validate`'s concern.
"""

from __future__ import annotations

from ...errors import CaseError, InvalidDescError
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
    ROOT_FLAGS,
    UINT_MAX,
    UNBOUNDED,
    VERSIONS,
    VISIBILITIES,
    DescriptorRange,
    RootParameter,
    RootSignature,
    StaticSampler,
    enum_value,
    flags_value,
)

__all__ = ["root_signature_from_json"]

_TOP = {"version", "parameters", "static_samplers", "flags"}
_PARAMETER = {"descriptor_table": {"type", "visibility", "ranges"},
              "32bit_constants": {"type", "visibility", "shader_register", "register_space",
                                  "num_32bit_values"},
              "cbv": {"type", "visibility", "shader_register", "register_space", "flags"},
              "srv": {"type", "visibility", "shader_register", "register_space", "flags"},
              "uav": {"type", "visibility", "shader_register", "register_space", "flags"}}
_RANGE = {"type", "num_descriptors", "base_shader_register", "register_space",
          "offset_in_descriptors_from_table_start", "flags"}
_SAMPLER_ENUMS = {"filter": FILTERS, "address_u": ADDRESS_MODES, "address_v": ADDRESS_MODES,
                  "address_w": ADDRESS_MODES, "comparison_func": COMPARISON_FUNCS,
                  "border_color": BORDER_COLORS, "visibility": VISIBILITIES}
_SAMPLER_UINTS = {"shader_register", "register_space", "max_anisotropy"}
_SAMPLER_FLOATS = {"mip_lod_bias", "min_lod", "max_lod"}


def _object(value, where: str, keys: set[str]) -> dict:
    if not isinstance(value, dict):
        raise CaseError(where, "expected an object")
    unknown = set(value) - keys
    if unknown:
        raise CaseError(where, f"unknown keys {sorted(unknown)} (expected {sorted(keys)})")
    return value


def _uint(d: dict, key: str, where: str, default: int | None) -> int:
    if key not in d:
        if default is None:
            raise CaseError(where, f"missing required key '{key}'")
        return default
    v = d[key]
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= UINT_MAX:
        raise InvalidDescError(where, key, v, "expected a whole number 0..0xFFFFFFFF")
    return v


def _list(d: dict, key: str, where: str) -> list:
    v = d.get(key, [])
    if not isinstance(v, list):
        raise CaseError(f"{where}.{key}", "expected a list")
    return v


def _range(d, where: str) -> DescriptorRange:
    d = _object(d, where, _RANGE)
    if "type" not in d:
        raise CaseError(where, "missing required key 'type'")
    count = d.get("num_descriptors", 1)
    if count in (-1, "unbounded"):
        count = UNBOUNDED
    offset = d.get("offset_in_descriptors_from_table_start", "append")
    if isinstance(offset, str) and offset.lower() in ("append",
                                                      "d3d12_descriptor_range_offset_append"):
        offset = APPEND
    return DescriptorRange(
        enum_value(RANGE_TYPES, d["type"], where, "type"),
        _uint({"num_descriptors": count}, "num_descriptors", where, None),
        _uint(d, "base_shader_register", where, None), _uint(d, "register_space", where, 0),
        _uint({"offset_in_descriptors_from_table_start": offset},
              "offset_in_descriptors_from_table_start", where, None),
        flags_value(RANGE_FLAGS, d.get("flags"), where, "flags"))


def _parameter(d, where: str) -> RootParameter:
    if not isinstance(d, dict) or "type" not in d:
        raise CaseError(where, "expected an object with a 'type'")
    kind = enum_value(PARAMETER_TYPES, d["type"], where, "type")
    name = next(k for k, v in PARAMETER_TYPES.items() if v == kind)
    d = _object(d, where, _PARAMETER[name])
    visibility = enum_value(VISIBILITIES, d.get("visibility", "all"), where, "visibility")
    if name == "descriptor_table":
        ranges = tuple(_range(r, f"{where}.ranges[{i}]")
                       for i, r in enumerate(_list(d, "ranges", where)))
        return RootParameter(kind, visibility, ranges)
    flags = flags_value(DESCRIPTOR_FLAGS, d.get("flags"), where, "flags")
    return RootParameter(kind, visibility, (), _uint(d, "shader_register", where, None),
                         _uint(d, "register_space", where, 0),
                         _uint(d, "num_32bit_values", where,
                               None if name == "32bit_constants" else 0), flags)


def _sampler(d, where: str) -> StaticSampler:
    d = _object(d, where, set(_SAMPLER_ENUMS) | _SAMPLER_UINTS | _SAMPLER_FLOATS)
    kwargs: dict = {}
    for key, table in _SAMPLER_ENUMS.items():
        if key in d:
            kwargs[key] = enum_value(table, d[key], where, key)
    for key in _SAMPLER_UINTS - {"shader_register"}:
        if key in d:
            kwargs[key] = _uint(d, key, where, None)
    for key in _SAMPLER_FLOATS:
        if key in d:
            v = d[key]
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise InvalidDescError(where, key, v, "expected a number")
            kwargs[key] = float(v)
    return StaticSampler(_uint(d, "shader_register", where, None), **kwargs)


def root_signature_from_json(doc, where: str = "root_signature") -> RootSignature:
    """The root signature a JSON document describes (see the module docstring)."""
    doc = _object(doc, where, _TOP)
    version = str(doc.get("version", "1.1"))
    if version not in VERSIONS:
        raise InvalidDescError(where, "version", doc.get("version"),
                               f"expected one of {', '.join(VERSIONS)}")
    params = tuple(_parameter(p, f"{where}.parameters[{i}]")
                   for i, p in enumerate(_list(doc, "parameters", where)))
    samplers = tuple(_sampler(s, f"{where}.static_samplers[{i}]")
                     for i, s in enumerate(_list(doc, "static_samplers", where)))
    flags = flags_value(ROOT_FLAGS, doc.get("flags"), where, "flags")
    return RootSignature(version, params, samplers, flags, origin=where)
