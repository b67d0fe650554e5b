"""The ``stream_output`` section of a case file (``docs/case-format.md``), checked by
CreateGraphicsPipelineState's rules.

:func:`stream_output_section` guarantees a declaration resolved against the vertex shader's
outputs at the case's feature level, and targets on output slots 0-3, each at most
:data:`DEFAULT_MAX_SO_BYTES` bytes, its data no longer than its size, its BufferFilledSize a
32-bit multiple of 4. A malformed section raises :class:`~gpuia.errors.CaseError`, one D3D12
would reject :class:`~gpuia.errors.InvalidDescError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..d3d.so_desc import SODeclarationEntry, StreamOutputDesc
from ..errors import CaseError, InvalidDescError
from .case_data import decode_data, uint_field

if TYPE_CHECKING:  # annotations only: the SO modules load where a case uses them
    from ..d3d.feature_level import FeatureLevel
    from ..d3d.signature import Member, ShaderSignature
    from ..d3d.so_declaration import ResolvedStreamOutput
    from ..reference.stream_output import SOTarget

DEFAULT_MAX_SO_BYTES = 1 << 30
"""Largest SO target ``size`` a case file may ask for."""
_SO_KEYS = {"declaration", "buffer_strides", "rasterized_stream", "targets"}


def stream_output_section(so, signature: Callable[[], ShaderSignature], level: FeatureLevel,
                          streams: Sequence[Sequence[Member]] | None = None,
                          ) -> tuple[ResolvedStreamOutput, StreamOutputDesc, dict[int, SOTarget]]:
    """Parse and validate the ``stream_output`` section (CreateGraphicsPipelineState rules).

    Arguments:
        so: the section as written.
        signature: gives the vertex shader's signature (called once the descriptor is valid).
        level (FeatureLevel): the feature level the case is validated at.
        streams: the geometry shader's output record per stream, whose outputs the entries of
            each stream name (rules 13.7); None (the default): no geometry shader.

    Returns:
        The resolved declaration, the declaration as a descriptor, and output slot -> the
        :class:`~gpuia.reference.stream_output.SOTarget` (SizeInBytes bytes, zero-filled past the
        data; the initial BufferFilledSize).

    Raises:
        CaseError: a malformed section.
        InvalidDescError: a declaration, stride or target D3D12 rejects.
    """
    from ..d3d.so_declaration import resolve_stream_output

    if not isinstance(so, dict):
        raise CaseError("stream_output", "expected an object")
    unknown = set(so) - _SO_KEYS
    if unknown:
        raise CaseError("stream_output", f"unknown keys {sorted(unknown)}")
    decl = so.get("declaration", [])
    if not isinstance(decl, list):
        raise CaseError("stream_output.declaration", "expected a list of "
                                                     "D3D12_SO_DECLARATION_ENTRY objects")
    entries = []
    for i, e in enumerate(decl):
        if not isinstance(e, dict):
            raise CaseError(f"stream_output.declaration[{i}]", "expected an object")
        try:
            entries.append(SODeclarationEntry.of(e))
        except InvalidDescError as err:
            raise InvalidDescError(f"stream_output.declaration[{i}]", err.field, err.value,
                                   err.rule) from None
    strides = so.get("buffer_strides") or []
    if not isinstance(strides, list):
        raise CaseError("stream_output.buffer_strides", "expected a list of integers")
    try:
        desc = StreamOutputDesc(tuple(entries), tuple(strides),
                                so.get("rasterized_stream", 0))
    except InvalidDescError as err:
        raise InvalidDescError("stream_output", err.field, err.value, err.rule) from None
    try:
        resolved = resolve_stream_output(desc, signature(), level, streams=streams)
    except InvalidDescError as err:
        raise InvalidDescError(f"stream_output: {err.where}", err.field, err.value,
                               err.rule) from None
    return resolved, desc, _targets(so.get("targets", []))


def _targets(targets) -> dict[int, SOTarget]:
    """The ``targets`` list: output slot -> its target."""
    from ..reference.stream_output import SOTarget

    out: dict[int, SOTarget] = {}
    if not isinstance(targets, list):
        raise CaseError("stream_output.targets",
                        "expected a list of {slot, size, filled_size, data}")
    for i, t in enumerate(targets):
        w = f"stream_output.targets[{i}]"
        if not isinstance(t, dict):
            raise CaseError(w, "expected an object")
        unknown = set(t) - {"slot", "size", "filled_size", "data"}
        if unknown:
            raise CaseError(w, f"unknown keys {sorted(unknown)}")
        slot = uint_field(t, "slot", w, None)
        if slot is None:
            raise CaseError(w, "missing required key 'slot'")
        if slot >= 4:
            raise InvalidDescError(w, "slot", slot, "SO output slots are 0-3")
        if slot in out:
            raise CaseError(f"{w}.slot", f"slot {slot} has two targets")
        data = decode_data(t["data"], f"{w}.data") if t.get("data") is not None else b""
        size = uint_field(t, "size", w, None)
        size = len(data) if size is None else size
        if size > DEFAULT_MAX_SO_BYTES:
            raise CaseError(f"{w}.size", f"{size} bytes exceed gpuia's {DEFAULT_MAX_SO_BYTES}-byte "
                                         f"limit for case SO buffers")
        if len(data) > size:
            raise CaseError(f"{w}.data", f"{len(data)} bytes of data exceed SizeInBytes {size}")
        filled = uint_field(t, "filled_size", w, 0)
        if filled > 0xFFFFFFFF:
            raise InvalidDescError(w, "filled_size", filled,
                                   "BufferFilledSize is a 32-bit counter (rules 9.6)")
        if filled % 4:
            raise InvalidDescError(w, "filled_size", filled,
                                   "BufferFilledSize must be a multiple of 4 (SO writes 32-bit "
                                   "components)")
        out[slot] = SOTarget(data + bytes(size - len(data)), filled)
    return out
