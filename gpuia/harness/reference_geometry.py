"""The CPU reference of a case's geometry shader stage: the reference's stages composed (IA,
the vertex shader's outputs, the geometry shader's invocations and their inputs, the shader run
on the CPU, its calls expanded per stream), ready for Stream Output and for the result document.

The shader runs through :func:`gpuia.hlsl.geometry_cpu.cpu_geometry_shader` (Slang's C++ of the
case's HLSL, built and run contained); everything around it is :mod:`gpuia.reference.geometry`,
in numpy: the GPU side's geometry stage shares none of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..reference.geometry import (
    GSCalls,
    GSInvocations,
    calls_from_regions,
    effective_calls,
    gs_invocations,
    gs_statistics,
    input_vertices,
    primitive_ids,
    stream_primitives,
)
from ..reference.stream_output import StreamPrimitives

if TYPE_CHECKING:
    from ..hlsl import HlslGeometryShader
    from ..reference import IAResult

__all__ = ["GeometryRun", "reference_geometry", "listed_calls"]


@dataclass(frozen=True)
class GeometryRun:
    """The geometry shader stage of a case on the CPU reference.

    Arguments:
        invocations (GSInvocations): the invocations, in D3D's order.
        vertex_outputs (dict): the vertex shader's outputs the shader read, per IA invocation:
            output key -> uint32 ``(n, components)``.
        calls (GSCalls): the shader's calls, invocation by invocation.
        kept (numpy.ndarray): bool per call: whether it took effect (rules 13.4).
        streams (tuple): per stream of the shader, its
            :class:`~gpuia.reference.stream_output.StreamPrimitives` (rows into ``calls``).
        statistics (dict): ``GSInvocations`` and ``GSPrimitives`` (rules 13.8).
    """

    invocations: GSInvocations
    vertex_outputs: dict
    calls: GSCalls
    kept: np.ndarray
    streams: tuple[StreamPrimitives, ...]
    statistics: dict


def _vertex_records(gs: HlslGeometryShader, vs_outputs: dict, n: int) -> np.ndarray:
    """The vertex shader's outputs as the geometry shader's input records, one per IA
    invocation (members in the input record's order, one word per component)."""
    out = np.zeros((n, gs.vertex_words), np.uint32)
    for m in gs.input_record:
        out[:, m.word:m.word + m.components] = vs_outputs[m.key][:, :m.components]
    return out


def reference_geometry(gs: HlslGeometryShader, ia: IAResult, vs_outputs: dict,
                       constant_buffers: dict, shader_resources: dict | None = None
                       ) -> GeometryRun:
    """Run a case's geometry shader stage on the CPU reference.

    Arguments:
        gs (HlslGeometryShader): the case's compiled geometry shader.
        ia (IAResult): the case's reference Input Assembler result.
        vs_outputs (dict): the vertex shader's outputs per IA invocation (output key ->
            uint32 ``(len(ia), components)``), holding every input the geometry shader reads
            (the case reader checked it, rules 13.9).
        constant_buffers (dict): root constant buffer slot -> its bytes (the case's).
        shader_resources (dict): the SRVs' bytes by binding, as
            :meth:`gpuia.hlsl.geometry_cpu.CpuGeometryShader.run` takes them (the case's views).

    Returns:
        The :class:`GeometryRun`.

    Raises:
        UnsupportedError: the CPU build needs a C++ compiler and there is none.
        InvalidDescError: the shader faults, never ends or does what D3D leaves undefined on
            the CPU (as the CPU vertex shader's run refuses it).
    """
    from ..hlsl.geometry_cpu import cpu_geometry_shader

    decl = gs.declaration
    invocations = gs_invocations(ia, decl)
    prims = np.concatenate([input_vertices(ia, decl.input),
                            primitive_ids(ia)[:, None].astype(np.int64)], axis=1)
    regions = cpu_geometry_shader(gs).run(_vertex_records(gs, vs_outputs, len(ia)),
                                          prims.astype(np.uint32), None, constant_buffers,
                                          shader_resources=shader_resources)
    calls = calls_from_regions(regions, decl.max_vertex_count, gs.record_words)
    kept = effective_calls(calls.invocation, calls.cut, decl.max_vertex_count)
    streams = []
    for s in range(len(decl.streams)):
        rows = stream_primitives(calls.invocation, calls.stream, calls.cut, kept, s,
                                 decl.stream_type(s))
        outputs = {m.key: calls.records[:, m.word:m.word + m.components]
                   for m in gs.stream_record(s)}
        first = calls.invocation[rows[:, 0]] if rows.shape[0] else np.zeros(0, np.int64)
        streams.append(StreamPrimitives(rows, invocations.draw[first], outputs, ia.draw_count))
    used = {m.key: vs_outputs[m.key] for m in gs.input_record}
    return GeometryRun(invocations, used, calls, kept, tuple(streams),
                       gs_statistics(invocations, [p.primitives for p in streams]))


def listed_calls(run: GeometryRun) -> np.ndarray:
    """The calls a result lists in ``geometry_invocations`` (docs/case-format.md): those that
    took effect (rules 13.4), less a RestartStrip on a stream the invocation has not appended
    to yet (it changes nothing, 13.5). The result document and every view list these.

    Arguments:
        run (GeometryRun): the stage.

    Returns:
        int64 rows of ``run.calls``, in call order.
    """
    kept = np.flatnonzero(run.kept)
    cut = run.calls.cut[kept].astype(bool)
    key = run.calls.invocation[kept].astype(np.int64) * 4 + run.calls.stream[kept]
    order = np.argsort(key, kind="stable")  # each (invocation, stream)'s calls together
    appends = (~cut[order]).astype(np.int64)
    total = np.cumsum(appends) - appends  # Appends before each call, over all groups
    k = key[order]
    first = np.ones(k.shape[0], bool)
    first[1:] = k[1:] != k[:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(k.shape[0]), 0))
    listed = np.empty(kept.shape[0], bool)
    listed[order] = (appends > 0) | (total - total[start] > 0)
    return kept[listed]
