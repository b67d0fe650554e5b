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



def _so_draw(dev, desc):
    """A new Context on ``dev`` streams out three points (POSITION.xy = k, 100 + k) under
    ``desc`` into a fresh 64-byte target; returns the target's bytes."""
    from gpuia import InputLayout, StreamOutputBufferView

    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(
        InputLayout([{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}]),
        stream_output=desc))
    ctx.ia_set_primitive_topology("POINTLIST")
    data = np.array([[k, 100 + k] for k in range(3)], "<f4").tobytes()
    ctx.ia_set_vertex_buffers(0, [dev.create_buffer(data, bind=("vertex_buffer",))], [8], [0])
    out = dev.create_buffer(bytes(64), bind=("stream_output",))
    ctx.so_set_targets([StreamOutputBufferView(out)], [0])
    ctx.draw_instanced(3)
    ctx.flush()
    return out.read()


def test_contexts_of_one_device_share_stream_output_pipelines(gpu_device):
    """A Stream Output program is compiled once per device: a second Context drawing under an
    equal declaration reuses the first one's pipelines (the same objects, nothing built), and a
    different declaration gets pipelines of its own."""
    import struct

    from gpuia import SODeclarationEntry, StreamOutputDesc
    from gpuia.gpu.so.programs import SOPipelines
    from gpuia.gpu.vertex.pipelines import PipelineCache

    # Strides no other test declares, so the entries below are this test's own.
    def desc(components):
        return StreamOutputDesc((SODeclarationEntry(semantic_name="POSITION",
                                                    component_count=components),), (20,))

    built = SOPipelines.of(gpu_device)
    stats = PipelineCache.of(gpu_device).stats
    before = dict(built.pipelines)
    first = _so_draw(gpu_device, desc(2))
    made = {k: p for k, p in built.pipelines.items() if k not in before}
    assert made  # the first context built its program's pipelines

    n_pipelines, n_modules = stats.pipelines, stats.shader_modules
    again = _so_draw(gpu_device, desc(2))  # a new Context, an equal declaration
    assert again == first
    # x, y of point k at 20-byte records (hand derivation), then the untouched zeros
    expected = b"".join(struct.pack("<2f", k, 100 + k) + bytes(12) for k in range(3))
    assert first == expected + bytes(4)
    assert {k: p for k, p in built.pipelines.items() if k not in before} == made
    assert all(built.pipelines[k] is p for k, p in made.items())
    assert (stats.pipelines, stats.shader_modules) == (n_pipelines, n_modules)

    known = dict(built.pipelines)
    _so_draw(gpu_device, desc(1))  # a different declaration: new pipelines, new objects
    other = {k: p for k, p in built.pipelines.items() if k not in known}
    assert other
    assert not {id(p) for p in other.values()} & {id(p) for p in made.values()}
    assert stats.pipelines > n_pipelines


def test_threads_drawing_one_new_layout_at_once_build_its_pipeline_once(gpu_device,
                                                                        monkeypatch):
    """Four contexts on four threads draw one layout no other test declares, at once, on each
    path: each path's pipeline and shader module are built once (``gpuia check --jobs`` works
    on several cases at once; two of them used to compile the same pipeline side by side).
    Each build is slowed down so that the other threads ask while it is under way."""
    import threading
    import time

    from gpuia.gpu.vertex.pipelines import PipelineCache

    build = PipelineCache._build

    def slow_build(self, *args, **kwargs):
        time.sleep(0.2)
        return build(self, *args, **kwargs)

    monkeypatch.setattr(PipelineCache, "_build", slow_build)
    stats = PipelineCache.of(gpu_device).stats
    state = PipelineState([{"SemanticName": "BUILDONCE", "Format": "R32G32_UINT"}])
    vb = gpu_device.create_buffer(np.arange(8, dtype=np.uint32), bind=("vertex_buffer",))
    for path in ("native", "pulling"):
        before = (stats.pipelines, stats.shader_modules)
        start = threading.Barrier(4, timeout=10)
        errors: list = []

        def draw(path=path, start=start, errors=errors):
            try:
                ctx = Context(gpu_device)
                ctx.set_pipeline_state(state)
                ctx.ia_set_primitive_topology("POINTLIST")
                ctx.ia_set_vertex_buffers(0, [vb], [8])
                ctx.set_path(path)
                start.wait()
                assert ctx.draw_instanced(4, 1).path == path
                ctx.flush()
            except Exception as e:  # noqa: BLE001 - reported by the assertion below
                errors.append(repr(e))

        threads = [threading.Thread(target=draw) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert errors == []
        assert (stats.pipelines, stats.shader_modules) == (before[0] + 1, before[1] + 1)
