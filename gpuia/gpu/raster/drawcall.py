"""How a planned draw reaches a WebGPU render pass: its primitive state and its draw calls.

One place for what decides the primitives the GPU assembles, shared by every rendering draw of a
:class:`gpuia.gpu.Context` and by the raster cross-check (:mod:`gpuia.harness.raster_check`), so
that the check exercises exactly what draws: the topology (a strip drawn from a list stream is
drawn as the list), the strip index format WebGPU restarts by, the index buffer bound, and the draw
calls.

A draw whose indices the GPU index pass lists (:class:`~gpuia.gpu.ia.plan.IndexMode` ``gpu``)
needs that pass encoded before the render pass that draws it (a compute pass cannot be inside
a render pass): :func:`encode_gpu_indices` records it, and :func:`issue_draw` then draws its
list stream with indirect arguments the GPU filled.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ...d3d.topology import TopologyInfo
from ...errors import UnsupportedError
from ...wgsl.index_pass import ARGS_LIST, IndexStreams
from ..ia.index_pass import encode_index_pass
from ..ia.plan import IndexMode, IndexPlan

if TYPE_CHECKING:  # imported where a device exists
    import wgpu

__all__ = ["webgpu_topology", "strip_index_format", "instance_runs", "GPUIndices",
           "encode_gpu_indices", "issue_draw"]

_U32 = 0xFFFFFFFF


def webgpu_topology(topo: TopologyInfo, listed: bool, capture: bool) -> str:
    """The WebGPU topology a draw is drawn with: points for a capture, the list for a list
    stream (``IndexPlan.listed``), else the topology's own."""
    if capture:
        return "point-list"
    return topo.webgpu_list if listed else topo.webgpu


def strip_index_format(topo: TopologyInfo, index: IndexPlan, draw, capture: bool) -> str | None:
    """WebGPU strips restart at 0xFFFF / 0xFFFFFFFF of the bound index format, which their
    pipeline names; lists, captures and non-indexed strips have none."""
    if capture or index.listed or topo.adjacency or not topo.strip:
        return None
    return index.index_format if (draw.indexed or index.mode == IndexMode.HOST) else None


def instance_runs(draw) -> list[tuple[int, int]]:
    """(first instance, instance count) of each WebGPU draw call of ``draw``: one, or two when
    the instances wrap past 2**32 - 1. D3D's instance counter wraps at 32 bits (rules 4.8);
    WebGPU's instance_index does not wrap within a draw, so instances past 2**32 - 1 are drawn
    again from instance 0. The per-draw block keeps StartInstanceLocation, so SV_InstanceID and
    pulled fetches (both ``ii - first_instance`` in wrapping u32) stay D3D's."""
    si, ic = draw.start_instance_location, draw.instance_count
    if si + ic <= 1 << 32:
        return [(si, ic)]
    return [(si, (1 << 32) - si), (0, si + ic - (1 << 32))]


@dataclass(frozen=True, eq=False)
class GPUIndices:
    """What a ``gpu`` plan draws with, once :func:`encode_gpu_indices` has recorded the index
    pass: ``index_buffer``, the uint32 list stream (a wgpu buffer), and ``runs``, one
    ``(args buffer, byte offset)`` of drawIndexedIndirect arguments per instance run
    (:func:`instance_runs`). ``keepalive``: the wgpu objects the recorded commands use; hold
    them until the encoder is submitted."""

    index_buffer: wgpu.GPUBuffer
    runs: tuple[tuple[object, int], ...]
    keepalive: tuple


def encode_gpu_indices(device, encoder, draw, topo: TopologyInfo, index: IndexPlan,
                       index_view) -> GPUIndices:
    """Record, into ``encoder`` (no pass open), the GPU index pass of a ``gpu`` plan's draw:
    its list stream, with the plan's cut value and rotation, over the bound ``index_view``
    (a view of a gpuia Buffer). Each instance run gets drawIndexedIndirect arguments: the
    pass writes the first's; a second run (instances wrapping past 2**32) gets its own
    20 bytes, its index count copied from the first's on the GPU.

    Raises what :func:`gpuia.gpu.ia.index_pass.encode_index_pass` refuses, before anything is
    recorded (streams over a storage binding, StartInstanceLocation without
    ``indirect-first-instance``), and :class:`UnsupportedError` for a plan of another mode."""
    if index.mode is not IndexMode.GPU:
        raise UnsupportedError(f"the index pass lists draws planned as gpu, not {index.mode}")
    runs = instance_runs(draw)
    first = draw if len(runs) == 1 else replace(draw, instance_count=runs[0][1])
    ip = encode_index_pass(device, encoder, first, topo, index_buffer=index_view,
                           strip_cut_value=index.cut, rotate=index.rotate,
                           streams=IndexStreams.LIST)
    args = [(ip.args, ARGS_LIST)]
    keep = [ip.keepalive]
    if len(runs) > 1:
        # Only indexCount is known on the GPU alone; the buffer is made holding the other
        # words (instanceCount, firstIndex 0, baseVertex, firstInstance 0), and the copy
        # recorded after the pass overwrites the first word with the pass's count.
        words = np.array([0, runs[1][1], 0, draw.base_vertex_location & _U32, 0], np.uint32)
        second = device.device.create_buffer_with_data(data=words, usage="INDIRECT|COPY_DST")
        encoder.copy_buffer_to_buffer(ip.args, ARGS_LIST, second, 0, 4)
        args.append((second, 0))
        keep.append(second)
    return GPUIndices(ip.list, tuple(args), tuple(keep))


def issue_draw(rp, draw, index: IndexPlan, index_view, upload,
               gpu_indices: GPUIndices | None = None) -> None:
    """Bind the indices and issue the draw calls of ``draw`` as ``index`` plans it.
    ``index_view``: the bound :class:`~gpuia.d3d.ia_desc.IndexBufferView` (its buffer a gpuia
    Buffer) for a ``direct`` plan; ``upload(uint32 array)`` returns a wgpu index buffer holding a
    host stream (the caller keeps it alive until the work is submitted); ``gpu_indices``: for a
    ``gpu`` plan, what :func:`encode_gpu_indices` recorded before this render pass (refused
    with :class:`UnsupportedError` without it)."""
    runs = instance_runs(draw)
    if index.mode is IndexMode.NONE and draw.indexed:
        return  # an indexed draw that delivers nothing: no index buffer to bind
    if index.mode is IndexMode.GPU:
        if gpu_indices is None:
            raise UnsupportedError("a draw listed by the GPU index pass needs the pass recorded "
                                   "before its render pass (encode_gpu_indices)")
        lst = gpu_indices.index_buffer
        rp.set_index_buffer(lst, "uint32", 0, lst.size)
        for args, offset in gpu_indices.runs:
            rp.draw_indexed_indirect(args, offset)
        return
    if not draw.indexed and index.mode is not IndexMode.HOST:
        for first, count in runs:
            rp.draw(draw.vertex_count_per_instance, count,
                    draw.start_vertex_location - index.vertex_shift, first)
        return
    if index.mode is IndexMode.DIRECT:
        v = index_view
        assert v is not None and v.buffer is not None  # bound as is: a view with a buffer
        rp.set_index_buffer(v.buffer.wgpu, index.index_format, v.offset, v.size_in_bytes)
        for first, count in runs:
            rp.draw_indexed(draw.index_count_per_instance, count, draw.start_index_location,
                            draw.base_vertex_location, first)
        return
    values = index.values
    assert values is not None  # the host stream
    data = np.zeros(max(1, values.shape[0]), dtype=np.uint32)
    data[: values.shape[0]] = values
    buf = upload(data)
    rp.set_index_buffer(buf, "uint32", 0, buf.size)
    # A non-indexed draw drawn from a gpuia index list: StartVertexLocation becomes the base
    # vertex, which WebGPU takes as a signed 32-bit value (wrapping is the same).
    base = (draw.base_vertex_location if draw.indexed
            else ((draw.start_vertex_location - index.vertex_shift) ^ 0x80000000) - 0x80000000)
    for first, count in runs:
        rp.draw_indexed(values.shape[0], count, 0, base, first)
