"""The draw calls: the arguments of DrawInstanced and DrawIndexedInstanced as values (as
:mod:`gpuia.d3d.desc` describes them), their case-file form, and whether a draw delivers any
vertex.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidDescError
from .desc import U32_MAX, check_uint, construct, d3d_name, fields_from

__all__ = [
    "DrawInstanced",
    "DrawIndexedInstanced",
    "delivering",
    "delivers_nothing",
    "draw_of",
]

@dataclass(frozen=True)
class DrawInstanced:
    """The arguments of a DrawInstanced call, in D3D12's order: a frozen, hashable value.

    Instance ``k`` delivers vertices ``i = 0 .. VertexCountPerInstance - 1``, fetching
    per-vertex data at ``StartVertexLocation + i`` and per-instance data by
    ``StartInstanceLocation`` (rules 4.1, 4.3); SV_VertexID is ``i`` and SV_InstanceID ``k``
    (rules 4.5, 4.6). All four are UINTs.

    Arguments:
        vertex_count_per_instance (int): VertexCountPerInstance.
        instance_count (int): InstanceCount. Default 1.
        start_vertex_location (int): StartVertexLocation. Default 0.
        start_instance_location (int): StartInstanceLocation. Default 0.

    Raises:
        InvalidDescError: an argument that is no integer (bools are not) or lies outside
            0..2**32 - 1, naming its D3D name.
    """

    vertex_count_per_instance: int
    instance_count: int = 1
    start_vertex_location: int = 0
    start_instance_location: int = 0

    _ALIASES = {"VertexCountPerInstance": "vertex_count_per_instance",
                "InstanceCount": "instance_count", "StartVertexLocation": "start_vertex_location",
                "StartInstanceLocation": "start_instance_location"}

    def __post_init__(self):
        for name in _DRAW_FIELDS:
            v = getattr(self, name)
            if type(v) is not int or not 0 <= v <= U32_MAX:  # fast path for plain ints
                object.__setattr__(self, name, check_uint(
                    "DrawInstanced", d3d_name(self._ALIASES, name), v))

    @property
    def indexed(self) -> bool:
        """False: a DrawInstanced reads no index buffer."""
        return False

    @property
    def count(self) -> int:
        """VertexCountPerInstance: the positions one instance walks."""
        return self.vertex_count_per_instance

    def to_dict(self) -> dict:
        """The case-file form, ``{"DrawInstanced": {D3D argument name: value}}``, which
        :func:`draw_of` reads back."""
        return {"DrawInstanced": {d3d: getattr(self, py) for d3d, py in self._ALIASES.items()}}


@dataclass(frozen=True)
class DrawIndexedInstanced:
    """The arguments of a DrawIndexedInstanced call, in D3D12's order: a frozen, hashable
    value.

    Instance ``k`` reads indices ``StartIndexLocation + j`` for ``j = 0 ..
    IndexCountPerInstance - 1`` and fetches per-vertex data at ``BaseVertexLocation + index``
    in wrapping 32-bit arithmetic (rules 4.2, 4.8); SV_VertexID is the index value (rules 4.5).
    BaseVertexLocation is a signed INT, the others are UINTs.

    Arguments:
        index_count_per_instance (int): IndexCountPerInstance.
        instance_count (int): InstanceCount. Default 1.
        start_index_location (int): StartIndexLocation. Default 0.
        base_vertex_location (int): BaseVertexLocation, -2**31..2**31 - 1. Default 0.
        start_instance_location (int): StartInstanceLocation. Default 0.

    Raises:
        InvalidDescError: an argument that is no integer (bools are not) or lies outside its
            range, naming its D3D name.
    """

    index_count_per_instance: int
    instance_count: int = 1
    start_index_location: int = 0
    base_vertex_location: int = 0
    start_instance_location: int = 0

    _ALIASES = {"IndexCountPerInstance": "index_count_per_instance",
                "InstanceCount": "instance_count", "StartIndexLocation": "start_index_location",
                "BaseVertexLocation": "base_vertex_location",
                "StartInstanceLocation": "start_instance_location"}

    def __post_init__(self):
        for name in _INDEXED_FIELDS:
            v = getattr(self, name)
            signed = name == "base_vertex_location"
            lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, U32_MAX)
            if type(v) is not int or not lo <= v <= hi:
                object.__setattr__(self, name, check_uint(
                    "DrawIndexedInstanced", d3d_name(self._ALIASES, name), v, signed=signed))

    @property
    def indexed(self) -> bool:
        """True: a DrawIndexedInstanced reads the bound index buffer."""
        return True

    @property
    def count(self) -> int:
        """IndexCountPerInstance: the index positions one instance walks."""
        return self.index_count_per_instance

    def to_dict(self) -> dict:
        """The case-file form, ``{"DrawIndexedInstanced": {D3D argument name: value}}``, which
        :func:`draw_of` reads back."""
        return {"DrawIndexedInstanced": {d3d: getattr(self, py)
                                         for d3d, py in self._ALIASES.items()}}


_DRAW_FIELDS = ("vertex_count_per_instance", "instance_count", "start_vertex_location",
                "start_instance_location")
_INDEXED_FIELDS = ("index_count_per_instance", "instance_count", "start_index_location",
                   "base_vertex_location", "start_instance_location")


Draw = DrawInstanced | DrawIndexedInstanced


def delivers_nothing(draw: Draw) -> bool:
    """Whether a count of ``draw`` is 0: vertices 0..count-1 of instances 0..InstanceCount-1
    (rules 4.1, 4.6) is then an empty set, and the other count plays no part. Work sized by
    that other count (up to 2^32 - 1) would be index lists or captures of gigabytes for no
    vertex.

    Arguments:
        draw: a :class:`DrawInstanced` or :class:`DrawIndexedInstanced`.

    Returns:
        True when its vertex or index count or its InstanceCount is 0.
    """
    return not (draw.count and draw.instance_count)


def delivering(draw: Draw) -> Draw:
    """``draw``, or its empty form when it :func:`delivers_nothing`, so that nothing downstream
    sizes work by the count that plays no part.

    Arguments:
        draw: a :class:`DrawInstanced` or :class:`DrawIndexedInstanced`.

    Returns:
        ``draw`` itself when it delivers vertices; else a draw of the same type with both
        counts 0 and the start locations (and BaseVertexLocation) kept.
    """
    if not delivers_nothing(draw):
        return draw
    if isinstance(draw, DrawIndexedInstanced):
        return dataclasses.replace(draw, instance_count=0, index_count_per_instance=0)
    return dataclasses.replace(draw, instance_count=0, vertex_count_per_instance=0)


def draw_of(obj: Any) -> Draw:
    """A draw from an instance (returned as it is) or from the case-file form
    ``{"DrawInstanced": {...}}`` / ``{"DrawIndexedInstanced": {...}}``, whose inner dict uses
    the D3D argument names or the snake_case ones.

    Arguments:
        obj: the draw, in one of the forms above.

    Returns:
        The :class:`DrawInstanced` or :class:`DrawIndexedInstanced`.

    Raises:
        InvalidDescError: ``obj`` has neither form (a one-key dict whose value is a dict), an
            argument name is unknown or a required one is missing, or the constructor refuses
            a value.
    """
    if isinstance(obj, (DrawInstanced, DrawIndexedInstanced)):
        return obj
    if isinstance(obj, dict) and len(obj) == 1:
        ((kind, args),) = obj.items()
        cls: type[DrawInstanced] | type[DrawIndexedInstanced] | None = {
            "DrawInstanced": DrawInstanced, "DrawIndexedInstanced": DrawIndexedInstanced}.get(kind)
        if cls is not None and isinstance(args, dict):
            return construct(cls, fields_from(cls, args, kind, cls._ALIASES), kind,
                             cls._ALIASES)
    raise InvalidDescError("draw", None, obj, "expected {\"DrawInstanced\": {...}} or "
                                              "{\"DrawIndexedInstanced\": {...}}")
