"""Direct3D feature levels: the Input Assembler and Stream Output limits that differ between
D3D10.0, D3D10.1, D3D11 and D3D12 (rules 11.1), one row per level in :data:`FEATURE_LEVELS`.

Validation reads a :class:`FeatureLevel` row and never tests a level's name, so a level is
data only. gpuia draws D3D12's Input Assembler and Stream Output at every level (its strip cuts,
bounds and views, rules section 11); a level changes what ``CreateInputLayout`` and
``CreateGraphicsPipelineState`` accept: slot and element counts (rules 3.1), and Stream Output's
streams, components, bytes per buffer, entries per buffer and strides (rules 8.8-8.11). The
vertex formats (rules 1.1), step rates and alignment rules are the same at every level.

:func:`feature_level` takes a level by name (``"10_0"``, ``"D3D_FEATURE_LEVEL_10_0"``), by an
API profile's name (``"d3d10"``: 10_0, ``"d3d11"``: 11_0, ``"d3d12"``: 12) or as a row.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidDescError

__all__ = ["FeatureLevel", "FEATURE_LEVELS", "DEFAULT_FEATURE_LEVEL", "feature_level",
           "PROFILE_LEVELS"]


@dataclass(frozen=True)
class FeatureLevel:
    """The limits of one feature level (rules 11.1): a frozen value, a row of
    :data:`FEATURE_LEVELS`. Every field is a header constant of that level's API (d3d10.h,
    d3d10_1.h, d3d11.h, d3d12.h) or one of the rules docs/rules.md gives for it.

    Arguments:
        name (str): ``10_0``, ``10_1``, ``11_0`` or ``12``, as errors and case files name it.
        slot_count (int): IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT, the input slots (rules 3.1).
        element_count (int): IA_VERTEX_INPUT_STRUCTURE_ELEMENT_COUNT, the most elements a
            layout has (rules 3.1).
        so_streams (int): Stream Output streams: entries' ``Stream`` and the rasterized stream
            are below it (rules 8.1, 8.10).
        so_no_rasterized_stream (bool): whether ``SO_NO_RASTERIZED_STREAM`` is a valid
            RasterizedStream (rules 8.10).
        so_components (int): the most components a stream writes per vertex
            (SO_OUTPUT_COMPONENT_COUNT; D3D10's SO_SINGLE_BUFFER_COMPONENT_LIMIT; rules 8.9).
        so_buffer_bytes (int): SO_BUFFER_MAX_WRITE_WINDOW_IN_BYTES, the most bytes one vertex
            writes to one buffer, gaps included (rules 8.9).
        so_one_entry_per_buffer (bool): with several output slots, each takes exactly one
            entry, a gap counting as one (SO_MULTIPLE_BUFFER_ELEMENTS_PER_BUFFER; rules 8.11).
        so_strides_of_used_slots_only (bool): a nonzero stride for a slot the declaration does
            not write is refused (rules 8.8).
    """

    name: str
    slot_count: int
    element_count: int
    so_streams: int
    so_no_rasterized_stream: bool
    so_components: int
    so_buffer_bytes: int
    so_one_entry_per_buffer: bool
    so_strides_of_used_slots_only: bool

    @property
    def label(self) -> str:
        """``feature level 10_0``: how errors name the level (``feature level 12``: D3D12)."""
        return f"feature level {self.name}"


FEATURE_LEVELS = {fl.name: fl for fl in (
    # name  slots elements streams no-rast components bytes one-entry used-strides-only
    FeatureLevel("10_0", 16, 16, 1, False, 64, 256, True, True),  # d3d10.h
    FeatureLevel("10_1", 32, 32, 1, False, 64, 256, True, True),  # d3d10_1.h
    FeatureLevel("11_0", 32, 32, 4, True, 128, 512, False, False),  # d3d11.h
    FeatureLevel("12", 32, 32, 4, True, 128, 512, False, False),  # d3d12.h: all of D3D12's
)}
"""The feature levels gpuia validates at, by name (rules 11.1)."""

DEFAULT_FEATURE_LEVEL = FEATURE_LEVELS["12"]
"""D3D12's rules: what gpuia checks unless told otherwise."""

PROFILE_LEVELS = {"d3d10": "10_0", "d3d11": "11_0", "d3d12": "12"}
"""The level an API profile's structs are checked at: a ``D3D10_INPUT_ELEMENT_DESC`` array at
D3D10.0's limits (its header's constants), a ``D3D11_...`` one at 11_0, a ``D3D12_...`` one at
D3D12's."""

_PREFIX = "D3D_FEATURE_LEVEL_"
_ALIASES = {**PROFILE_LEVELS, "12_0": "12", "12_1": "12", "12_2": "12"}  # D3D12's levels: one row


def feature_level(value: FeatureLevel | str | None) -> FeatureLevel:
    """The :class:`FeatureLevel` ``value`` names.

    Arguments:
        value: a row; a name of :data:`FEATURE_LEVELS`, with or without ``D3D_FEATURE_LEVEL_``
            (``"12_0"`` .. ``"12_2"`` are D3D12's ``"12"``); a key of :data:`PROFILE_LEVELS`; or
            None, :data:`DEFAULT_FEATURE_LEVEL`.

    Returns:
        The row.

    Raises:
        InvalidDescError: ``value`` names no level gpuia knows (naming the ones it does).
    """
    if value is None:
        return DEFAULT_FEATURE_LEVEL
    if isinstance(value, FeatureLevel):
        return value
    if isinstance(value, str):
        name = value.strip().upper().removeprefix(_PREFIX)
        name = _ALIASES.get(name.lower(), name)
        if name in FEATURE_LEVELS:
            return FEATURE_LEVELS[name]
    raise InvalidDescError("feature level", "FeatureLevel", value,
                           f"expected one of {', '.join(FEATURE_LEVELS)} (rules 11.1)")
