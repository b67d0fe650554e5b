"""The geometry shader stage of the CPU reference: which invocations D3D runs and what each
receives, and which primitives the calls they make become (docs/rules.md section 13).

The shader's body runs elsewhere (the harness hands this module what it called). This module
holds the stage's rules, in numpy:

* :func:`gs_invocations`: one invocation per complete input primitive and GS instance, all
  instances of a primitive before the next primitive (13.3); incomplete primitives never reach
  the shader (13.1). Each receives its primitive's vertices in the input order of its primitive
  type, adjacency included (13.1), ``SV_PrimitiveID`` (the primitive's index within its draw's
  instance, continuing across strip cuts, 13.3) and ``SV_GSInstanceID``.
* :func:`effective_calls`: an invocation's first ``maxvertexcount`` Appends take effect,
  whatever their stream, and nothing it calls after the last of them does (13.4).
* :func:`stream_primitives`: a stream's Appends become strips, each invocation and each
  RestartStrip starting a new one; the strips are assembled as the IA assembles strips (13.5,
  9.3: :func:`gpuia.reference.assembly.assemble`), and what is left incomplete is dropped.
* :func:`gs_statistics`: ``GSInvocations`` (primitives times instances, counted whether or not
  an invocation emits) and ``GSPrimitives`` (the complete primitives of all streams), 13.8.

Calls are given as parallel arrays, one row per Append or RestartStrip in the order the
invocations made them (invocation by invocation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..d3d.geometry import GeometryDeclaration, GSInput, StreamType
from ..d3d.topology import topology_info
from .assembly import assemble
from .ia import IAResult

__all__ = ["GSInvocations", "input_vertices", "primitive_ids", "gs_invocations",
           "effective_calls", "stream_primitives", "gs_statistics", "GSCalls",
           "calls_from_regions"]


@dataclass(frozen=True)
class GSInvocations:
    """A draw sequence's geometry shader invocations, in D3D's order (rules 13.3).

    Arguments:
        primitive (numpy.ndarray): int64 per invocation: its input primitive, a row of
            ``IAResult.primitives``.
        gs_instance (numpy.ndarray): uint32 per invocation: ``SV_GSInstanceID``.
        primitive_id (numpy.ndarray): uint32 per invocation: ``SV_PrimitiveID``.
        inputs (numpy.ndarray): int64 ``(invocations, input vertices)``: the IA invocations
            (rows of the IA result) of the primitive's vertices, in the shader's input order.
        draw (numpy.ndarray): uint32 per invocation: the draw of its primitive.
        instance (numpy.ndarray): uint32 per invocation: the IA instance (``SV_InstanceID``)
            of its primitive.
    """

    primitive: np.ndarray
    gs_instance: np.ndarray
    primitive_id: np.ndarray
    inputs: np.ndarray
    draw: np.ndarray
    instance: np.ndarray

    def __len__(self) -> int:
        return int(self.primitive.shape[0])


def input_vertices(ia: IAResult, gs_input: GSInput) -> np.ndarray:
    """Each complete primitive's vertices in the order a geometry shader of input type
    ``gs_input`` receives them (rules 13.1): ``[adj, v0, v1, adj]`` for ``lineadj``, ``[v0,
    adj(v0,v1), v1, adj(v1,v2), v2, adj(v2,v0)]`` for ``triangleadj``, the primitive's own
    vertices otherwise. The topology must be of the input type's class (checked by
    :func:`gpuia.d3d.geometry.check_topology`; here an assertion).

    Returns:
        int64 ``(primitives, gs_input.vertices)`` rows of the IA result.
    """
    assert (ia.topology.kind, ia.topology.adjacency) == (gs_input.kind, gs_input.adjacency)
    prims = ia.primitives
    if not gs_input.adjacency:
        return prims
    adj = ia.adjacency
    assert adj is not None
    out = np.empty((prims.shape[0], gs_input.vertices), dtype=np.int64)
    if gs_input.kind == "line":
        out[:, 0], out[:, 1], out[:, 2], out[:, 3] = adj[:, 0], prims[:, 0], prims[:, 1], adj[:, 1]
    else:  # the adjacency vertex of each edge follows the edge's first vertex
        out[:, 0::2] = prims
        out[:, 1::2] = adj
    return out


def primitive_ids(ia: IAResult) -> np.ndarray:
    """``SV_PrimitiveID`` of each complete primitive: its position among the complete
    primitives of its draw and IA instance, from 0; a strip cut does not restart the count
    (rules 13.3).

    Returns:
        uint32 per primitive.
    """
    n = ia.primitives.shape[0]
    if n == 0:
        return np.zeros(0, np.uint32)
    draw = ia.primitive_draw.astype(np.int64)
    instance = ia.instance[ia.primitives[:, 0]].astype(np.int64)
    first = np.ones(n, dtype=bool)  # the first primitive of its (draw, instance)
    first[1:] = (draw[1:] != draw[:-1]) | (instance[1:] != instance[:-1])
    position = np.arange(n, dtype=np.int64)
    group_start = np.maximum.accumulate(np.where(first, position, 0))
    return (position - group_start).astype(np.uint32)


def gs_invocations(ia: IAResult, declaration: GeometryDeclaration) -> GSInvocations:
    """The invocations of ``declaration``'s shader over what the IA assembled: primitive by
    primitive in D3D's order, its ``instance_count`` GS instances innermost (rules 13.3).

    Returns:
        The :class:`GSInvocations`.
    """
    k = declaration.instance_count
    n = ia.primitives.shape[0]
    primitive = np.repeat(np.arange(n, dtype=np.int64), k)
    inputs = input_vertices(ia, declaration.input)[primitive]
    return GSInvocations(
        primitive=primitive,
        gs_instance=np.tile(np.arange(k, dtype=np.uint32), n),
        primitive_id=np.repeat(primitive_ids(ia), k),
        inputs=inputs,
        draw=ia.primitive_draw[primitive].astype(np.uint32),
        instance=ia.instance[inputs[:, 0]].astype(np.uint32) if n else np.zeros(0, np.uint32))


def effective_calls(invocation: np.ndarray, cut: np.ndarray, max_vertex_count: int) -> np.ndarray:
    """Which calls take effect (rules 13.4): an invocation's first ``max_vertex_count`` Appends,
    whatever their streams, and the RestartStrips before the last of them; nothing after the
    ``max_vertex_count``-th Append does.

    Arguments:
        invocation (numpy.ndarray): per call, its invocation (non-decreasing).
        cut (numpy.ndarray): bool per call: a RestartStrip (else an Append).
        max_vertex_count (int): the shader's ``[maxvertexcount]``.

    Returns:
        bool per call.
    """
    invocation = np.asarray(invocation, dtype=np.int64)
    appends = (~np.asarray(cut, dtype=bool)).astype(np.int64)
    n = invocation.shape[0]
    if n == 0:
        return np.zeros(0, dtype=bool)
    first = np.ones(n, dtype=bool)
    first[1:] = invocation[1:] != invocation[:-1]
    total = np.cumsum(appends)
    before = total - appends  # Appends of all earlier calls
    start = np.where(first, before, 0)
    before_in_invocation = before - np.maximum.accumulate(start)
    return before_in_invocation < max_vertex_count


def stream_primitives(invocation: np.ndarray, stream: np.ndarray, cut: np.ndarray,
                      kept: np.ndarray, s: int, stream_type: StreamType) -> np.ndarray:
    """The complete primitives stream ``s`` of type ``stream_type`` output, in D3D's order
    (rules 13.4, 13.5): its kept Appends form strips, a new one at each invocation and after
    each kept RestartStrip of the stream (points ignore cuts); each strip is assembled as the IA
    assembles a strip of the stream's topology (9.3: a triangle strip's odd triangles ``(t,
    t+2, t+1)``), and a primitive left incomplete is dropped and counted nowhere.

    Arguments:
        invocation, stream, cut, kept (numpy.ndarray): per call: its invocation
            (non-decreasing), its stream, whether it is a RestartStrip, whether it takes effect
            (:func:`effective_calls`).
        s (int): the stream.
        stream_type (StreamType): the stream's type.

    Returns:
        int64 ``(primitives, stream_type.vertices)``: the calls (rows) that are each primitive's
        vertices.
    """
    invocation = np.asarray(invocation, dtype=np.int64)
    mine = np.asarray(kept, dtype=bool) & (np.asarray(stream) == s)
    cut = np.asarray(cut, dtype=bool)
    rows = np.flatnonzero(mine & ~cut)  # this stream's Appends that took effect
    if rows.shape[0] == 0:
        return np.zeros((0, stream_type.vertices), dtype=np.int64)
    # Cuts of this stream seen up to each call; an Append starts a strip when it is its
    # invocation's first of the stream or a cut came since the stream's previous Append.
    cuts_so_far = np.cumsum(mine & cut)[rows]
    new = np.ones(rows.shape[0], dtype=bool)
    new[1:] = ((invocation[rows[1:]] != invocation[rows[:-1]])
               | (cuts_so_far[1:] != cuts_so_far[:-1]))
    starts = np.flatnonzero(new)
    lengths = np.diff(np.append(starts, rows.shape[0]))
    prims, _ = assemble(topology_info(stream_type.strip), starts, lengths)
    return rows[prims]


def gs_statistics(invocations: GSInvocations, primitives: list[np.ndarray]) -> dict[str, int]:
    """``GSInvocations`` (one per invocation: input primitives times GS instances, whether or
    not it emitted) and ``GSPrimitives`` (the complete primitives of every stream), rules 13.8.

    Arguments:
        invocations (GSInvocations): the stage's invocations.
        primitives (list): each stream's :func:`stream_primitives`.
    """
    return {"GSInvocations": len(invocations),
            "GSPrimitives": int(sum(p.shape[0] for p in primitives))}


@dataclass(frozen=True)
class GSCalls:
    """A geometry shader's calls, in the order its invocations made them: one row per Append
    or RestartStrip (the input of :func:`effective_calls` and :func:`stream_primitives`).

    Arguments:
        invocation (numpy.ndarray): int64 per call: its invocation (non-decreasing).
        stream (numpy.ndarray): uint8 per call: its stream.
        cut (numpy.ndarray): bool per call: a RestartStrip (else an Append).
        records (numpy.ndarray): uint32 ``(calls, record words)``: an Append's record (a
            RestartStrip's row is zero).
    """

    invocation: np.ndarray
    stream: np.ndarray
    cut: np.ndarray
    records: np.ndarray

    def __len__(self) -> int:
        return int(self.invocation.shape[0])


def calls_from_regions(regions: np.ndarray, max_vertex_count: int, record_words: int) -> GSCalls:
    """The calls a CPU run of a geometry shader reports, one region per invocation: word 0 the
    Appends that took effect, then per Append a header word (bits 0-1 its stream, bit 2 set when
    the vertex starts a new strip of its stream) and ``record_words`` record words. A strip
    start becomes a RestartStrip of the stream before the Append (for the stream's first Append
    of an invocation this changes nothing: every invocation starts new strips).

    Arguments:
        regions (numpy.ndarray): uint32 ``(invocations, 1 + N * (1 + R))``.
        max_vertex_count (int): N, the shader's ``[maxvertexcount]``.
        record_words (int): R.

    Returns:
        The :class:`GSCalls`.

    Raises:
        ValueError: a region's count exceeds N (a region the run cannot have written).
    """
    regions = np.asarray(regions, dtype=np.uint32)
    # A draw that assembles no primitive runs no invocation: its run may hold no words at all.
    regions = regions.reshape(regions.shape[0], -1) if regions.size else \
        np.zeros((0, 1 + max_vertex_count * (1 + record_words)), np.uint32)
    counts = regions[:, 0].astype(np.int64)
    if counts.shape[0] and int(counts.max()) > max_vertex_count:
        raise ValueError(f"a region counts {int(counts.max())} Appends, over maxvertexcount "
                         f"{max_vertex_count}")
    entries = regions[:, 1:1 + max_vertex_count * (1 + record_words)].reshape(
        regions.shape[0], max_vertex_count, 1 + record_words)
    used = np.arange(max_vertex_count)[None, :] < counts[:, None]
    invocation = np.nonzero(used)[0].astype(np.int64)
    kept = entries[used]  # (appends, 1 + R), invocation by invocation, in call order
    header = kept[:, 0]
    stream = (header & 3).astype(np.uint8)
    starts = (header & 4) != 0
    # Each strip start is preceded by a cut row of its stream: positions after insertion.
    at = np.arange(kept.shape[0]) + np.cumsum(starts)
    n = kept.shape[0] + int(starts.sum())
    out_inv = np.empty(n, np.int64)
    out_stream = np.empty(n, np.uint8)
    cut = np.zeros(n, bool)
    records = np.zeros((n, record_words), np.uint32)
    out_inv[at], out_stream[at], records[at] = invocation, stream, kept[:, 1:]
    cuts = at[starts] - 1
    out_inv[cuts], out_stream[cuts], cut[cuts] = invocation[starts], stream[starts], True
    return GSCalls(out_inv, out_stream, cut, records)
