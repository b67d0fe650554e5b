"""Bounded caches (gpuia/gpu/cache.py): a long-lived process meeting ever new layouts and buffers
keeps a bounded amount of cached state (the eviction rule alone: tests/unit/test_cache.py)."""

import numpy as np

from gpuia.gpu import Context, PipelineState
from gpuia.gpu.context import ia_state
from gpuia.gpu.context.pso import shared_cache_sizes
from gpuia.gpu.context.resolve import SWEEP_EVERY


def test_views_and_pipeline_states_stay_bounded(gpu_device, monkeypatch):
    monkeypatch.setattr(ia_state, "VIEW_CACHE_SIZE", 16)
    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState([{"SemanticName": "A", "Format": "R32_UINT"}]))
    ctx.ia_set_primitive_topology("POINTLIST")
    for i in range(40):
        vb = gpu_device.create_buffer(np.array([i], np.uint32))
        ctx.ia_set_vertex_buffers(0, [vb], [4])
    assert ctx.stats()["views"] == 16
    for i in range(1100):  # distinct layouts: the module-level signature cache stays bounded
        _ = PipelineState([{"SemanticName": f"S{i}X", "Format": "R32_UINT"}]).signature
    assert shared_cache_sizes()["signatures"] <= 1024


def test_buffers_dropped_by_the_user_are_not_kept_alive(gpu_device):
    """An engine streaming buffers in and out: each frame binds a new buffer, draws, flushes
    and drops it. The context forgets states and views unused for a few flushes, so dropped
    buffers die (found by review: all 300 stayed alive)."""
    import gc
    import weakref

    ctx = Context(gpu_device)
    ctx.set_pipeline_state(PipelineState([{"SemanticName": "A", "Format": "R32_UINT"}]))
    ctx.ia_set_primitive_topology("POINTLIST")
    refs = []
    for i in range(100):
        vb = gpu_device.create_buffer(np.full(64, i, np.uint32))
        refs.append(weakref.ref(vb))
        ctx.ia_set_vertex_buffers(0, [vb], [4])
        ctx.draw_instanced(1)
        ctx.flush()
        del vb
    gc.collect()
    alive = sum(r() is not None for r in refs)
    # At most the last two sweep periods' worth (SWEEP_EVERY flushes each).
    assert alive <= 2 * SWEEP_EVERY, alive
    assert refs[-1]() is not None  # the one still bound stays

