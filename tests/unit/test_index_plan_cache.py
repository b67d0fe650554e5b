"""Index plans of large draws are remembered per read-only host copy of the indices, and a
rewritten copy (a new array, as Buffer.write makes) or a writable one is planned again: what
the plan says always follows the indices the draw reads (rules 5.1-5.6)."""

from __future__ import annotations

import numpy as np

from gpuia.d3d.desc import StripCutValue
from gpuia.d3d.draws import DrawIndexedInstanced
from gpuia.d3d.ia_desc import IndexBufferView
from gpuia.d3d.topology import topology_info
from gpuia.gpu.ia.plan import IndexMode, plan_indices

N = 8192  # above the size from which plans are remembered
LIST = topology_info("TRIANGLELIST")
STRIP = topology_info("TRIANGLESTRIP")


def _frozen(values) -> np.ndarray:
    a = np.array(values, dtype=np.uint32).view(np.uint8)  # a copy: the caller may change values
    a.flags.writeable = False
    return a


def test_a_repeated_draw_reuses_its_plan():
    ib = IndexBufferView(_frozen(np.arange(N)), "R32_UINT")
    draw = DrawIndexedInstanced(N)
    first = plan_indices(draw, ib, LIST, StripCutValue.DISABLED, False)
    assert plan_indices(draw, ib, LIST, StripCutValue.DISABLED, False) is first
    assert first.mode is IndexMode.DIRECT and first.span == (0, N - 1)
    # Another draw of the same indices is its own plan: base vertex 5 shifts the fetch range.
    shifted = plan_indices(DrawIndexedInstanced(N, 1, 0, 5), ib, LIST, StripCutValue.DISABLED,
                           False)
    assert shifted is not first and shifted.span == (5, N + 4)


def test_rewritten_indices_are_planned_again():
    """A new host copy (what Buffer.write makes) with a 0xFFFFFFFF cut in a strip: bound as is
    before; after, D3D cuts there with strip cut value 0xFFFFFFFF, which WebGPU also restarts
    at, so the stream is still bound as is but its fetch range excludes the cut (rules 5.3)."""
    values = np.arange(N, dtype=np.uint32)
    draw = DrawIndexedInstanced(N)
    before = plan_indices(draw, IndexBufferView(_frozen(values), "R32_UINT"), STRIP,
                          StripCutValue.CUT_0xFFFFFFFF, False)
    assert before.span == (0, N - 1)
    values[-1] = 0xFFFFFFFF
    after = plan_indices(draw, IndexBufferView(_frozen(values), "R32_UINT"), STRIP,
                         StripCutValue.CUT_0xFFFFFFFF, False)
    assert after is not before and after.span == (0, N - 2)


def test_writable_indices_are_never_remembered():
    values = np.arange(N, dtype=np.uint32)
    raw = values.view(np.uint8)  # writable: its bytes may change under the same object
    ib = IndexBufferView(raw, "R32_UINT")
    draw = DrawIndexedInstanced(N)
    first = plan_indices(draw, ib, LIST, StripCutValue.DISABLED, False)
    values[0] = 100_000
    second = plan_indices(draw, ib, LIST, StripCutValue.DISABLED, False)
    assert first.span == (0, N - 1) and second.span == (1, 100_000)
