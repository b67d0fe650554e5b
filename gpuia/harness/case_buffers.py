"""The buffer sections of a case file: ``vertex_buffers``, ``index_buffer`` and
``constant_buffers`` (``docs/case-format.md``).

Each parser returns gpuia's own views over the decoded bytes and guarantees them valid: slots
in range and bound once, views inside their data (D3D12's view rules, re-raised at the case's
``where``), and every root constant buffer the vertex shader reads bound, at most
:data:`MAX_CONSTANT_BUFFER_BYTES` bytes each. A malformed section raises
:class:`~gpuia.errors.CaseError`, one D3D12 would reject :class:`~gpuia.errors.InvalidDescError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..d3d.desc import CONSTANT_BUFFER_SLOTS
from ..d3d.feature_level import FeatureLevel
from ..d3d.ia_desc import IndexBufferView, VertexBufferView
from ..errors import CaseError, InvalidDescError
from .case_data import decode_data, uint_field

if TYPE_CHECKING:  # annotations only: the shader modules load where a case uses them
    from ..hlsl import HlslGeometryShader, HlslShader

MAX_CONSTANT_BUFFER_BYTES = 65536
"""A D3D constant buffer holds at most 4096 16-byte registers."""


def _view_args(entry: dict, where: str, data: bytes):
    offset = uint_field(entry, "offset", where, 0)
    size = uint_field(entry, "size", where, None)
    if offset > len(data):
        raise CaseError(f"{where}.offset", f"{offset} is past the end of the {len(data)}-byte data")
    if size is not None and offset + size > len(data):
        raise CaseError(f"{where}.size", f"offset {offset} + size {size} exceeds the "
                        f"{len(data)}-byte data")
    return offset, size


def vertex_buffers(value, where: str,
                   level: FeatureLevel) -> dict[int, VertexBufferView | None]:
    """The ``vertex_buffers`` list: input slot -> its view, or None for a slot bound to null
    data (unbound).

    Arguments:
        value: the list as written (``{slot, stride, offset, size, data}`` objects).
        where (str): where the list is in the case, for errors.
        level (FeatureLevel): the feature level, which sets the number of input slots.

    Returns:
        The views by slot.

    Raises:
        CaseError: a malformed list or entry, a slot bound twice, or a view past its data.
        InvalidDescError: a slot past the level's input slots, or a view D3D12 rejects.
    """
    if not isinstance(value, list):
        raise CaseError(where, "expected a list of {slot, stride, offset, size, data}")
    views: dict[int, VertexBufferView | None] = {}
    for i, entry in enumerate(value):
        w = f"{where}[{i}]"
        if not isinstance(entry, dict):
            raise CaseError(w, "expected an object")
        unknown = set(entry) - {"slot", "stride", "offset", "size", "data"}
        if unknown:
            raise CaseError(w, f"unknown keys {sorted(unknown)}")
        slot = uint_field(entry, "slot", w, None)
        if slot is None:
            raise CaseError(w, "missing required key 'slot'")
        if slot >= level.slot_count:
            raise InvalidDescError(w, "slot", slot, f"input slots are 0..{level.slot_count - 1} "
                                                    f"at {level.label} (rules 3.1)")
        if slot in views:
            raise CaseError(f"{w}.slot", f"slot {slot} is bound twice")
        if "data" not in entry:
            raise CaseError(w, "missing required key 'data' (null unbinds the slot)")
        if entry["data"] is None:
            views[slot] = None
            continue
        data = decode_data(entry["data"], f"{w}.data")
        stride = uint_field(entry, "stride", w, 0)
        offset, size = _view_args(entry, w, data)
        try:
            views[slot] = VertexBufferView(data, stride, offset, size)
        except InvalidDescError as e:
            raise InvalidDescError(w, e.field, e.value, e.rule) from None
    return views


def index_buffer(value, where: str) -> IndexBufferView | None:
    """The ``index_buffer`` object's view (null data: the NULL view, rules 5.5).

    Arguments:
        value: the object as written (``{format, offset, size, data}``), or None.
        where (str): where the object is in the case, for errors.

    Returns:
        The :class:`~gpuia.d3d.ia_desc.IndexBufferView`, or None for None.

    Raises:
        CaseError: a malformed object or a view past its data.
        InvalidDescError: a format or view D3D12 rejects.
    """
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CaseError(where, "expected an object {format, offset, size, data}")
    unknown = set(value) - {"format", "offset", "size", "data"}
    if unknown:
        raise CaseError(where, f"unknown keys {sorted(unknown)}")
    fmt = value.get("format", "R16_UINT")
    data_block = value.get("data")
    if data_block is None:
        try:
            return IndexBufferView(None, fmt)
        except InvalidDescError as e:
            raise InvalidDescError(where, "format", fmt, e.rule) from None
    data = decode_data(data_block, f"{where}.data")
    offset, size = _view_args(value, where, data)
    try:
        return IndexBufferView(data, fmt, offset, size)
    except InvalidDescError as e:
        raise InvalidDescError(where, e.field, e.value, e.rule) from None

def constant_buffers(value, hlsl: HlslShader | None, vertex_shader: dict | None,
                     geometry: HlslGeometryShader | None = None) -> dict[int, bytes]:
    """The ``constant_buffers`` list: D3D-packed bytes per root constant buffer. Every buffer
    the vertex shader or the geometry shader reads must be there.

    Arguments:
        value: the ``constant_buffers`` value as written (a list of ``{slot, data}`` or
            ``{slot, values}``, the members by name, packed from the reflection of the HLSL
            shader that reads the slot: :func:`gpuia.hlsl.pack_constant_buffer`).
        hlsl: the case's compiled HLSL vertex shader, or None.
        vertex_shader (dict): the case's ``vertex_shader`` object, or None (the pass-through
            shader, which reads none).
        geometry: the case's compiled geometry shader, or None (the default).

    Returns:
        Root constant buffer slot -> its bytes.

    Raises:
        CaseError: a malformed list or entry, or a slot given twice.
        InvalidDescError: ``values`` that do not fit the cbuffer (or for a slot no HLSL shader
            of the case reads, or that its two shaders declare unlike), a slot past the root
            constant buffers, data over
            :data:`MAX_CONSTANT_BUFFER_BYTES`, or a buffer the shader reads that is not bound.
    """
    from ..wgsl.signature import uniform_slots

    if not isinstance(value, list):
        raise CaseError("constant_buffers", "expected a list of {slot, data}")
    out: dict[int, bytes] = {}
    for i, entry in enumerate(value):
        w = f"constant_buffers[{i}]"
        if not isinstance(entry, dict):
            raise CaseError(w, "expected an object {slot, data}")
        unknown = set(entry) - {"slot", "data", "values"}
        if unknown:
            raise CaseError(w, f"unknown keys {sorted(unknown)}")
        slot = uint_field(entry, "slot", w, None)
        if slot is None:
            raise CaseError(w, "missing required key 'slot'")
        if slot >= CONSTANT_BUFFER_SLOTS:
            raise InvalidDescError(w, "slot", slot, f"gpuia binds root constant buffers 0.."
                                                    f"{CONSTANT_BUFFER_SLOTS - 1} (register "
                                                    f"b0..b{CONSTANT_BUFFER_SLOTS - 1}, the "
                                                    f"{CONSTANT_BUFFER_SLOTS} slots of a D3D11 "
                                                    f"stage)")
        if slot in out:
            raise CaseError(f"{w}.slot", f"constant buffer {slot} is given twice")
        data = _entry_bytes(entry, slot, w, hlsl, geometry)
        out[slot] = data
    vs_reads: dict[int, str] = {}
    if hlsl is not None:
        vs_reads = {cb.slot: f"cbuffer {cb.name} (register b{cb.slot})"
                    for cb in hlsl.constant_buffers}
    elif vertex_shader is not None:
        vs_reads = {s: f"@group(3) @binding({s})" for s in
                    uniform_slots(vertex_shader["wgsl"], 3)}
    # slot -> (the case's key, the shader, what it reads there)
    reads = {s: ("vertex_shader", "the vertex shader", what) for s, what in vs_reads.items()}
    for cb in geometry.constant_buffers if geometry is not None else ():
        reads.setdefault(cb.slot, ("geometry_shader", "the geometry shader",
                                   f"cbuffer {cb.name} (register b{cb.slot})"))
    for slot, (where, who, what) in sorted(reads.items()):
        if slot >= CONSTANT_BUFFER_SLOTS:
            raise InvalidDescError(where, "constant buffer", slot,
                                   f"{what}: gpuia binds root constant buffers 0.."
                                   f"{CONSTANT_BUFFER_SLOTS - 1} (register "
                                   f"b0..b{CONSTANT_BUFFER_SLOTS - 1}, the "
                                   f"{CONSTANT_BUFFER_SLOTS} slots of a D3D11 stage)")
        if slot not in out:
            raise InvalidDescError("constant_buffers", "slot", slot,
                                   f"{who} reads {what}; the case binds no "
                                   f"constant buffer {slot}")
    return out




def _entry_bytes(entry: dict, slot: int, where: str, hlsl: HlslShader | None,
                 geometry: HlslGeometryShader | None) -> bytes:
    """The bytes of one ``constant_buffers`` entry: its ``data``, or its ``values`` packed."""
    if ("data" in entry) == ("values" in entry):
        raise CaseError(where, "expected exactly one of 'data' (the bytes) and 'values' (the "
                               "members by name)")
    if "values" in entry:
        data = _packed(entry["values"], slot, where, hlsl, geometry)
    else:
        data = decode_data(entry["data"], f"{where}.data")
    if len(data) > MAX_CONSTANT_BUFFER_BYTES:
        raise InvalidDescError(where, "data", f"{len(data)} bytes",
                               f"a constant buffer holds at most 4096 registers "
                               f"({MAX_CONSTANT_BUFFER_BYTES} bytes)")
    return data


def _packed(values, slot: int, where: str, hlsl: HlslShader | None,
            geometry: HlslGeometryShader | None) -> bytes:
    """The bytes of a ``values`` entry: packed from the cbuffer the vertex shader (or the
    geometry shader) declares at ``register(b<slot>)``; the same bytes from both when both
    read it, or refused."""
    from ..hlsl.cbuffer_pack import pack_constant_buffer

    if not isinstance(values, dict):
        raise CaseError(f"{where}.values", "expected an object of the cbuffer's members by name")
    declared = [cb for shader in (hlsl, geometry) if shader is not None
                for cb in shader.constant_buffers if cb.slot == slot]
    if not declared:
        raise InvalidDescError(where, "values", f"slot {slot}",
                               f"members by name are packed from the reflection of an HLSL "
                               f"shader of the case that declares a cbuffer in register "
                               f"b{slot}; there is none (give 'data', the bytes)")
    packed = [pack_constant_buffer(cb, values, where) for cb in declared]
    if len(packed) == 2 and packed[0] != packed[1]:
        raise InvalidDescError(where, "values", f"slot {slot}",
                               f"the vertex shader's cbuffer {declared[0].name} and the geometry "
                               f"shader's cbuffer {declared[1].name} in register b{slot} pack "
                               f"these values into different bytes (give 'data', the bytes)")
    return packed[0]
