"""The ``shader_resources`` section of a case file: the buffer SRVs a vertex shader reads and
the UAVs it writes (``docs/case-format.md``, ``docs/resources.md``).

Guaranteed: one :class:`CaseResource` per register and space the HLSL vertex shader reads, its
kind and stride the shader's, its view (``first_element``, ``num_elements``) inside its ``data`` as
D3D12_BUFFER_SRV requires; a malformed entry is a :class:`~gpuia.errors.CaseError`, a view D3D12
would reject or a register the shader reads without an entry an
:class:`~gpuia.errors.InvalidDescError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..d3d.buffer_views import view_format
from ..d3d.uav_formats import typed_uav_format
from ..errors import CaseError, InvalidDescError
from ..hlsl.typed_buffers import cpu_elements
from ..wgsl.storage_types import element_type, shader_type_of
from .case_data import decode_data, uint_field
from .case_textures import TEXTURE_KINDS

__all__ = ["CaseResource", "shader_resources"]

_KEYS = {"register", "space", "kind", "structure_byte_stride", "first_element", "num_elements",
         "data", "format"}
_KINDS = ("structured", "raw", "typed")  # a typed view's format: gpuia.hlsl.typed_buffers
_UAV_KINDS = {"rw_structured": "structured", "rw_raw": "raw",  # register(uN): gpuia.hlsl.uavs
              "rw_typed": "typed"}  # its format stores T's bits: gpuia.d3d.uav_formats


@dataclass(frozen=True)
class CaseResource:
    """One buffer SRV: the buffer's bytes and the view's first element and element count (in
    elements of ``stride`` bytes: 4-byte words for a raw view, the format's size for a typed
    one, whose ``format`` is its DXGI name and ``components`` the shader's T's); ``writable``
    a UAV (``register(uN)``), ``binding`` the shader's binding of it (its key in the CPU
    reference's resources)."""

    register: int
    space: int
    kind: str
    stride: int
    data: bytes
    first_element: int
    num_elements: int
    format: str | None = None
    components: int = 0
    writable: bool = False
    binding: int = -1

    def view_bytes(self) -> bytes:
        """What the CPU reference reads: the bytes the view covers, a typed view's decoded to
        its shader's T (``gpuia.hlsl.typed_buffers.cpu_elements``)."""
        at = self.first_element * self.stride
        raw = self.data[at:at + self.num_elements * self.stride]
        if self.format is None or self.writable:  # a typed UAV's bytes are T's
            return raw
        return cpu_elements(view_format(self.format, None, "shader_resources"), raw,
                            self.components)


def shader_resources(value, hlsl, gs=None) -> dict[tuple[int, int], CaseResource]:
    """The ``shader_resources`` list (``value``; None: absent) of a case whose compiled HLSL
    vertex shader is ``hlsl`` (None: a WGSL or pass-through shader, which reads none) and whose
    geometry shader is ``gs`` (None: none); a case with neither takes no list.
    (register, space) -> :class:`CaseResource` of each t register the shaders read,
    (register, space, "u") of each u register (a UAV). A register both shaders read is one
    view (one root descriptor, visible to both): refused where they read it as different
    kinds or strides. An entry for a register no shader reads is checked (keys, kind, data)
    and left out, as a constant buffer it does not read is."""
    declared = _declared(hlsl, gs)
    value = [] if value is None else value
    if not isinstance(value, list):
        raise CaseError("shader_resources", "expected a list of {register, kind, data, ...}")
    if value and hlsl is None and gs is None:
        raise InvalidDescError("shader_resources", None, f"{len(value)} entries",
                               "only an HLSL vertex or geometry shader reads shader resources "
                               "(a WGSL shader's storage buffers are not bound from a case)")
    out: dict[tuple, CaseResource] = {}
    seen: set[tuple] = set()
    for i, entry in enumerate(value):
        w = f"shader_resources[{i}]"
        if not isinstance(entry, dict):
            raise CaseError(w, "expected an object {register, kind, data, ...}")
        if entry.get("kind") in TEXTURE_KINDS:
            continue  # a texture: gpuia.harness.case_textures
        unknown = set(entry) - _KEYS
        if unknown:
            raise CaseError(w, f"unknown keys {sorted(unknown)}")
        for key in ("register", "kind", "data"):
            if key not in entry:
                raise CaseError(w, f"missing required key '{key}'")
        register = uint_field(entry, "register", w, None)
        space = uint_field(entry, "space", w, 0)
        writable = entry["kind"] in _UAV_KINDS
        at = ("u" if writable else "t") + f"{register}" + (f", space{space}" if space else "")
        reg_key = _key(register, space, writable)
        if reg_key in seen:
            raise CaseError(f"{w}.register", f"register {at} is given twice")
        seen.add(reg_key)
        r = declared.get(reg_key)
        if r is None:  # not read by the shader: checked, then left out
            if entry["kind"] not in _KINDS and not writable:
                kinds = [*_KINDS, *_UAV_KINDS, *TEXTURE_KINDS]
                raise CaseError(f"{w}.kind", "expected " + ", ".join(map(repr, kinds[:-1]))
                                + f" or {kinds[-1]!r}")
            decode_data(entry["data"], f"{w}.data")
            continue
        if entry["kind"] != _kind_name(r):
            raise InvalidDescError(w, "kind", entry["kind"],
                                   f"{r.name} (register {at}) is a {_kind_name(r)} buffer")
        stride = uint_field(entry, "structure_byte_stride", w, r.stride)
        if r.kind == "structured" and stride != r.stride:
            raise InvalidDescError(w, "structure_byte_stride", stride,
                                   f"{r.name}'s element is {r.stride} bytes")
        fmt, size, components = _format(entry, r, w)
        data = decode_data(entry["data"], f"{w}.data")
        first = uint_field(entry, "first_element", w, 0)
        fits = len(data) // size
        count = uint_field(entry, "num_elements", w, max(0, fits - first))
        if first + count > fits:
            raise InvalidDescError(w, "num_elements", count,
                                   f"the view (first_element {first}) reaches past the data: "
                                   f"{fits} elements of {size} bytes")
        out[reg_key] = CaseResource(register, space, r.kind, size, data, first, count, fmt,
                                components, writable, r.binding)
    for reg_key, r in declared.items():
        if reg_key not in out:
            at = ("u" if r.writable else "t") + f"{r.register}" + \
                (f", space{r.space}" if r.space else "")
            stage = "vertex" if hlsl is not None and r in hlsl.shader_resources else "geometry"
            raise InvalidDescError("shader_resources", "register", r.register,
                                   f"the {stage} shader reads {r.name} (register {at}); "
                                   f"the case binds no "
                                   f"{'UAV' if r.writable else 'shader resource'} there")
    return out


def _declared(hlsl, gs) -> dict[tuple, Any]:
    """The registers the vertex shader ``hlsl`` and geometry shader ``gs`` read, by key: the
    vertex shader's first; a register the geometry shader reads as another kind or stride is
    refused (both see one view)."""
    declared = {_key(r.register, r.space, r.writable): r
                for r in (hlsl.shader_resources if hlsl is not None else ())}
    for r in gs.shader_resources if gs is not None else ():
        key = _key(r.register, r.space, r.writable)
        other = declared.setdefault(key, r)
        if (other.kind, other.stride, other.type) != (r.kind, r.stride, r.type):
            raise InvalidDescError("geometry_shader", f"resource {r.name}", r.register_name,
                                   f"the vertex shader's {other.name} is the same register, a "
                                   f"{other.kind} buffer of {other.stride}-byte elements "
                                   f"({other.type}): one view cannot be both")
    return declared


def _key(register: int, space: int, writable: bool) -> tuple:
    """A case resource's key: a u register is not the t register of the same number."""
    return (register, space, "u") if writable else (register, space)


def _kind_name(r) -> str:
    """The case's ``kind`` of the shader's resource ``r`` (``rw_structured`` for a UAV's)."""
    return f"rw_{r.kind}" if r.writable else r.kind


def _format(entry: dict, r, w: str) -> tuple[str | None, int, int]:
    """(the view's format name or None, its element's bytes, the shader's T's components): a
    typed view takes the ``format`` D3D12 allows for what its shader reads; the others none."""
    if r.kind != "typed":
        if "format" in entry:
            raise InvalidDescError(w, "format", entry["format"],
                                   f"{r.name} is a {r.kind} buffer: only a typed view has a "
                                   f"format")
        return None, r.stride, 0
    if "format" not in entry:
        raise CaseError(w, f"missing required key 'format' (the typed view of {r.name})")
    kind, components = shader_type_of(element_type(r.type))
    fmt = typed_uav_format(entry["format"], kind, components, w, "format") if r.writable \
        else view_format(entry["format"], kind, w, "format")
    return fmt.name, fmt.size, components
