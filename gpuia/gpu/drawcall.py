"""How a planned draw reaches a WebGPU render pass: its primitive state and its draw calls.

One place for what decides the primitives the GPU assembles, shared by every rendering draw of a
:class:`gpuia.gpu.Context` and by the raster cross-check (:mod:`gpuia.harness.raster_check`), so that the
check exercises exactly what draws: the topology (a strip drawn from a list stream is drawn as the
list), the strip index format WebGPU restarts by, the index buffer bound, and the draw calls.
"""

from __future__ import annotations

import numpy as np

from ..d3d.topology import TopologyInfo
from .plan import IndexPlan

__all__ = ["webgpu_topology", "strip_index_format", "issue_draw"]


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
    return index.index_format if (draw.indexed or index.mode == "host") else None


def issue_draw(rp, draw, index: IndexPlan, index_view, upload) -> None:
    """Bind the indices and issue the draw calls of ``draw`` as ``index`` plans it.
    ``index_view``: the bound :class:`~gpuia.d3d.desc.IndexBufferView` (its buffer a gpuia Buffer)
    for a ``direct`` plan; ``upload(uint32 array)`` returns a wgpu index buffer holding a host
    stream (the caller keeps it alive until the work is submitted)."""
    # D3D's instance counter wraps at 32 bits (rulebook 4.8); WebGPU's instance_index does not
    # wrap within a draw, so instances past 2**32 - 1 are drawn again from instance 0. The
    # per-draw block keeps StartInstanceLocation, so SV_InstanceID and pulled fetches (both
    # ``ii - first_instance`` in wrapping u32) stay D3D's.
    si, ic = draw.start_instance_location, draw.instance_count
    runs = ([(si, ic)] if si + ic <= 1 << 32
            else [(si, (1 << 32) - si), (0, si + ic - (1 << 32))])
    if index.mode == "none" and draw.indexed:
        return  # an indexed draw that delivers nothing: no index buffer to bind
    if not draw.indexed and index.mode != "host":
        for first, count in runs:
            rp.draw(draw.vertex_count_per_instance, count,
                    draw.start_vertex_location - index.vertex_shift, first)
        return
    if index.mode == "direct":
        v = index_view
        rp.set_index_buffer(v.buffer.wgpu, index.index_format, v.offset, v.size_in_bytes)
        for first, count in runs:
            rp.draw_indexed(draw.index_count_per_instance, count, draw.start_index_location,
                            draw.base_vertex_location, first)
        return
    values = index.values
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
