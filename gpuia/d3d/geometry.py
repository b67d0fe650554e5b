"""Geometry shader declarations as data, and the checks D3D12's CreateGraphicsPipelineState makes
on them (docs/rules.md section 13).

A geometry shader declares its input primitive (``point``, ``line``, ``triangle``, ``lineadj``,
``triangleadj``), ``[maxvertexcount(N)]``, ``[instance(n)]`` and one to four output streams,
each a ``PointStream``, ``LineStream`` or ``TriangleStream`` of a record with some scalar
components. Two tables hold what each input primitive and each stream type is; a
:class:`GeometryDeclaration` is one shader's declaration, checked when it is made:

* 1 <= ``max_vertex_count`` <= 1024, and ``max_vertex_count`` times the scalars of the largest
  output record <= 1024 (rules 13.4; every Append writes one record of its stream);
* 1 <= ``instance_count`` <= 32 (rules 13.3);
* one to four streams; with more than one, every stream a ``PointStream`` (rules 13.7, 8.13).

:func:`check_topology` is the pipeline's check that the input primitive matches the draw's
topology class (rules 13.2: D3D12 refuses a mismatch, where D3D11 tolerated some);
:func:`check_feature_level` refuses more streams than a feature level has (rules 13.7, 11.1).
Every refusal is an :class:`~gpuia.errors.InvalidDescError` naming the field, its value and the
rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidDescError
from .feature_level import FeatureLevel
from .signature import Member
from .topology import TopologyInfo

__all__ = ["GS_INPUTS", "STREAM_TYPES", "GSInput", "StreamType", "GeometryDeclaration",
           "check_linkage", "check_topology", "check_feature_level", "MAX_VERTEX_COUNT",
           "MAX_OUTPUT_SCALARS", "MAX_INSTANCES", "MAX_STREAMS"]

MAX_VERTEX_COUNT = 1024  # [maxvertexcount(N)]: 1 <= N <= 1024 (rules 13.4)
MAX_OUTPUT_SCALARS = 1024  # N times the output record's scalars (rules 13.4)
MAX_INSTANCES = 32  # [instance(n)]: 1 <= n <= 32 (rules 13.3)
MAX_STREAMS = 4  # streams 0-3 (rules 13.7)


@dataclass(frozen=True)
class GSInput:
    """One input primitive type: a row of :data:`GS_INPUTS`.

    Arguments:
        name (str): its HLSL modifier (``triangleadj``).
        vertices (int): the vertices the shader receives, adjacency included (rules 13.1).
        kind (str): the topology class it takes: ``"point"``, ``"line"`` or ``"triangle"``.
        adjacency (bool): whether it takes the adjacency topologies of its class (and only
            those, rules 13.2).
    """

    name: str
    vertices: int
    kind: str
    adjacency: bool


@dataclass(frozen=True)
class StreamType:
    """One output stream type: a row of :data:`STREAM_TYPES`.

    Arguments:
        name (str): the HLSL type (``TriangleStream``).
        kind (str): the primitives it makes: ``"point"``, ``"line"`` or ``"triangle"``.
        vertices (int): the vertices of one of its primitives.
        strip (str): the D3D topology whose assembly its strips follow (rules 13.5):
            ``POINTLIST``, ``LINESTRIP`` or ``TRIANGLESTRIP``.
    """

    name: str
    kind: str
    vertices: int
    strip: str


# fmt: off
GS_INPUTS: dict[str, GSInput] = {row.name: row for row in [
    #       name           vertices kind        adjacency
    GSInput("point",       1,       "point",    False),
    GSInput("line",        2,       "line",     False),
    GSInput("triangle",    3,       "triangle", False),
    GSInput("lineadj",     4,       "line",     True),
    GSInput("triangleadj", 6,       "triangle", True),
]}
"""The input primitive types, by their HLSL modifier (rules 13.1)."""

STREAM_TYPES: dict[str, StreamType] = {row.name: row for row in [
    #          name              kind        vertices strip
    StreamType("PointStream",    "point",    1,       "POINTLIST"),
    StreamType("LineStream",     "line",     2,       "LINESTRIP"),
    StreamType("TriangleStream", "triangle", 3,       "TRIANGLESTRIP"),
]}
"""The output stream types, by their HLSL name (rules 13.4, 13.5)."""
# fmt: on


def _row(table: dict, value, where: str, field: str, rule: str):
    if value not in table:
        raise InvalidDescError(where, field, value,
                               f"expected one of {', '.join(table)} ({rule})")
    return table[value]


@dataclass(frozen=True)
class GeometryDeclaration:
    """What a geometry shader declares, checked as CreateGraphicsPipelineState checks it.

    Arguments:
        input_primitive (str): a key of :data:`GS_INPUTS`.
        max_vertex_count (int): ``[maxvertexcount(N)]``: the Appends of one invocation that
            take effect, all streams together (rules 13.4).
        streams (tuple): the type name of each stream, stream 0 first (a key of
            :data:`STREAM_TYPES`).
        output_scalars (tuple): the scalar components of each stream's record.
        instance_count (int): ``[instance(n)]``; 1 without the attribute.
        where (str): names the shader in errors (``"geometry_shader"``).

    Raises:
        InvalidDescError: an unknown input primitive or stream type; ``max_vertex_count``
            outside 1..1024 or over the 1024-scalar limit (rules 13.4); ``instance_count``
            outside 1..32 (13.3); no stream, more than four, or several that are not all
            PointStreams (13.7); ``output_scalars`` not one positive count per stream.
    """

    input_primitive: str
    max_vertex_count: int
    streams: tuple[str, ...]
    output_scalars: tuple[int, ...]
    instance_count: int = 1
    where: str = "geometry_shader"

    def __post_init__(self):
        where = self.where
        _row(GS_INPUTS, self.input_primitive, where, "input primitive", "rules 13.1")
        n = self.max_vertex_count
        if not isinstance(n, int) or not 1 <= n <= MAX_VERTEX_COUNT:
            raise InvalidDescError(where, "maxvertexcount", n,
                                   f"must be 1 to {MAX_VERTEX_COUNT} (rules 13.4)")
        k = self.instance_count
        if not isinstance(k, int) or not 1 <= k <= MAX_INSTANCES:
            raise InvalidDescError(where, "instance", k,
                                   f"must be 1 to {MAX_INSTANCES} (rules 13.3)")
        self._check_streams()

    def _check_streams(self) -> None:
        where, streams = self.where, self.streams
        if not 1 <= len(streams) <= MAX_STREAMS:
            raise InvalidDescError(where, "streams", len(streams),
                                   f"a geometry shader has 1 to {MAX_STREAMS} output streams "
                                   "(rules 13.7)")
        for s, name in enumerate(streams):
            _row(STREAM_TYPES, name, f"{where} stream {s}", "stream type", "rules 13.4")
        if len(streams) > 1 and any(name != "PointStream" for name in streams):
            raise InvalidDescError(where, "streams", streams,
                                   "with several streams every stream must be a PointStream "
                                   "(rules 13.7, 8.13)")
        scalars = self.output_scalars
        if len(scalars) != len(streams) or any(not isinstance(k, int) or k < 1 for k in scalars):
            raise InvalidDescError(where, "output_scalars", scalars,
                                   "one positive scalar count per stream")
        largest = max(scalars)
        if self.max_vertex_count * largest > MAX_OUTPUT_SCALARS:
            raise InvalidDescError(where, "maxvertexcount", self.max_vertex_count,
                                   f"times the {largest} scalars of the output record is "
                                   f"{self.max_vertex_count * largest}, over "
                                   f"{MAX_OUTPUT_SCALARS} (rules 13.4)")

    @property
    def input(self) -> GSInput:
        """The row of the input primitive."""
        return GS_INPUTS[self.input_primitive]

    def stream_type(self, stream: int) -> StreamType:
        """The row of stream ``stream``'s type (0-based; it must exist)."""
        return STREAM_TYPES[self.streams[stream]]


def check_topology(declaration: GeometryDeclaration, topology: TopologyInfo) -> None:
    """Refuse a draw topology whose class the geometry shader's input primitive does not take
    (rules 13.2): ``point`` takes POINTLIST; ``line`` LINELIST and LINESTRIP; ``lineadj`` their
    adjacency forms; ``triangle`` TRIANGLELIST and TRIANGLESTRIP; ``triangleadj`` theirs.

    Raises:
        InvalidDescError: the classes differ, naming both and the rule.
    """
    gs = declaration.input
    if (topology.kind, topology.adjacency) != (gs.kind, gs.adjacency):
        raise InvalidDescError(declaration.where, "input primitive", gs.name,
                               f"takes no {topology.name} topology: D3D12 refuses a geometry "
                               "shader whose input primitive does not match the topology's "
                               "class (rules 13.2)")


def check_linkage(inputs: Sequence[Member], vs_outputs: Sequence[Member],
                  where: str = "geometry_shader") -> None:
    """Rules 13.9: every geometry shader input (``inputs``, its input record's members) is an
    output of the vertex shader (``vs_outputs``), by semantic name and index, with at least
    its components.

    Raises:
        InvalidDescError: naming the first input the vertex shader does not output, or reads
            more components than it outputs, at ``where``.
    """
    outputs = {(m.semantic, m.index): m for m in vs_outputs}
    for m in inputs:
        out = outputs.get((m.semantic, m.index))
        if out is None:
            names = ", ".join(o.key for o in vs_outputs) or "none"
            raise InvalidDescError(where, "input", m.key,
                                   f"the vertex shader has no output {m.key} (outputs: "
                                   f"{names}): every geometry shader input must be one "
                                   f"(rules 13.9)")
        if m.components > out.components:
            raise InvalidDescError(where, "input", m.key,
                                   f"reads {m.components} components; the vertex shader "
                                   f"outputs {out.components} (rules 13.9)")


def check_feature_level(declaration: GeometryDeclaration, level: FeatureLevel) -> None:
    """Refuse a shader of more output streams than ``level`` has (rules 13.7: streams 1-3 are
    shader model 5's; rules 11.1: feature levels 10_0 and 10_1 have one Stream Output stream
    and run shader model 4), whatever its Stream Output declaration names.

    Raises:
        InvalidDescError: too many streams, naming the level and the rules.
    """
    count = len(declaration.streams)
    if count > level.so_streams:
        noun = "stream" if level.so_streams == 1 else "streams"
        raise InvalidDescError(declaration.where, "streams", count,
                               f"{level.label} has {level.so_streams} Stream Output {noun}: "
                               "a geometry shader of several streams is shader model 5's "
                               "(rules 13.7, 11.1)")
