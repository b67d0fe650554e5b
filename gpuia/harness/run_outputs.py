"""Read a case's vertex shader outputs back from a GPU, per invocation, without Stream Output.

The case's own draws run once more with a Stream Output declaration that gpuia makes: every
output of the vertex shader's signature, all its components, one after the other in one
record on output slot 0, drawn as a point list and rasterizing nothing. Stream Output's compute
machinery (:mod:`gpuia.gpu.so`) runs the same shader the draws run, so each point it writes is
one vertex shader invocation's outputs. In a point list every index is an ordinary one (rules
5.2: a strip's cut value is only an index there), so a draw writes one record per index position
of each instance, instance by instance (rules 9.2), draw after draw: the invocation at
``(draw, instance, vertex)`` of the reference's IA order is record ``first[draw] + instance *
count + vertex``, and the records of cut positions are never read.

Refused (UnsupportedError, with the reason): what Stream Output on the adapter refuses (a draw
whose vertices it cannot pull exactly, a target larger than the adapter holds).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..d3d.desc import StripCutValue
from ..d3d.so_desc import (
    SO_NO_RASTERIZED_STREAM,
    SODeclarationEntry,
    StreamOutputBufferView,
    StreamOutputDesc,
)
from ..gpu.context import Context, PipelineState
from ..gpu.device import Device
from ..reference.ia import IAResult
from .case import Case
from .case_uavs import read_contents
from .run_gpu import bind_constant_buffers, upload_case

__all__ = ["GPUOutputs", "output_declaration", "run_case_outputs_gpu"]


@dataclass
class GPUOutputs:
    """A GPU's vertex shader outputs of a case, per invocation in the reference's IA order:
    :func:`run_case_outputs_gpu` makes it.

    Arguments:
        bits (dict): output key -> uint32 ``(invocations, components)`` bit patterns, every
            output of the shader's signature with its own component count.
        missing (numpy.ndarray): bool per invocation: the GPU wrote no record of it (its
            components then read 0).
        uavs (dict): ``u1``, ``u1 space2`` -> the case's UAV's whole buffer after the run's
            draws, the run starting from the case's bytes (``gpuia.harness.case_uavs``);
            empty for a case without UAVs or a run that drew nothing.
    """

    bits: dict[str, np.ndarray]
    missing: np.ndarray
    uavs: dict[str, bytes] = field(default_factory=dict)


def output_declaration(case: Case) -> StreamOutputDesc:
    """The Stream Output declaration that records every output of a case's vertex shader: one
    entry per output of its signature, in signature order, all its components, on slot 0
    (stride the record's bytes), rasterizing no stream.

    Arguments:
        case (Case): the parsed case.

    Returns:
        The :class:`~gpuia.d3d.so_desc.StreamOutputDesc`.
    """
    outputs = case.shader_signature().outputs
    entries = tuple(SODeclarationEntry(0, m.semantic, m.index, 0, m.components, 0)
                    for m in outputs)
    stride = 4 * sum(m.components for m in outputs)
    return StreamOutputDesc(entries, (max(4, stride),), SO_NO_RASTERIZED_STREAM)


def run_case_outputs_gpu(case: Case, device: Device, reference: IAResult, *,
                         context: Context | None = None, uploaded: tuple | None = None,
                         ) -> GPUOutputs:
    """Run a case's draws on ``device`` and read back every vertex shader invocation's outputs
    (module docstring). The case's own Stream Output, if any, is not run here.

    Arguments:
        case (Case): the parsed case (a real vertex shader or the pass-through one).
        device (Device): the device to draw on.
        reference (IAResult): the case's reference Input Assembler result (its IA order).
        context (Context): a context of ``device``; None (the default) makes one.
        uploaded (tuple): what :func:`~gpuia.harness.run_gpu.upload_case` returned for this
            case and device; None (the default) uploads.

    Returns:
        The :class:`GPUOutputs`.

    Raises:
        UnsupportedError: the adapter cannot run the draws' Stream Output exactly (with the
            reason).
        InvalidDescError: a draw the GPU side refuses as D3D would.
        GpuOutOfMemoryError: the adapter ran out of memory.
        DeviceLostError: the device was lost.
    """
    desc = output_declaration(case)
    members = case.shader_signature().outputs
    n = len(reference)
    stride = desc.buffer_strides[0]
    counts = np.array([d.count * d.instance_count for d in case.draws], np.int64)
    first = np.concatenate([[0], np.cumsum(counts)])
    total = int(first[-1])
    words = np.zeros((0, stride // 4), np.uint32)
    written = 0
    uavs: dict[str, bytes] = {}
    if n and total:
        ctx = context or Context(device)
        # Cut values are ordinary indices of a point list (rules 5.2): no cut to set.
        ctx.set_pipeline_state(PipelineState(case.layout, case.shader,  # type: ignore[arg-type]
                                             case.entry_point, StripCutValue.DISABLED, desc))
        ctx.ia_set_primitive_topology("POINTLIST")
        uav_buffers = bind_constant_buffers(ctx, case, device)
        views, ib = uploaded if uploaded is not None else upload_case(case, device)
        ctx.ia_set_vertex_buffers(0, [views.get(s) for s in range(case.layout.profile.slot_count)])
        ctx.ia_set_index_buffer(ib)
        size = total * stride
        # BufferFilledSize in the word after the records (rules 9.6: the same buffer may hold
        # it): one read back brings both.
        target = device.create_buffer(size=size + 4, bind=("stream_output",),
                                      label=f"{case.name} VS outputs")
        ctx.so_set_targets([StreamOutputBufferView(target, size, 0, target, size)])
        for d in case.draws:
            ctx.draw(d)
        ctx.flush()
        data = np.frombuffer(target.read(), np.uint32)
        uavs = read_contents(case, uav_buffers)
        written = min(int(data[-1]) // stride, total)
        words = data[:-1].reshape(total, stride // 4)
    draws = reference.draw.astype(np.int64)
    per = np.array([d.count for d in case.draws] + [0], np.int64)
    record = (first[:-1][draws] if n else np.zeros(0, np.int64)) \
        + reference.instance.astype(np.int64) * per[draws] + reference.vertex.astype(np.int64)
    missing = record >= written
    rows = words[np.minimum(record, max(written - 1, 0))] if written else np.zeros(
        (n, stride // 4), np.uint32)
    if missing.any():
        rows = rows.copy()
        rows[missing] = 0
    bits, at = {}, 0
    for m in members:
        bits[m.key] = np.ascontiguousarray(rows[:, at:at + m.components])
        at += m.components
    return GPUOutputs(bits, missing, uavs)
