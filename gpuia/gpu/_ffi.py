"""Direct calls into wgpu-native for the hottest render-pass commands.

wgpu-py wraps every native call in an error-capturing proxy (about 1 us each). Render-pass
encoder commands report their validation errors only at ``encoder.finish()``, which gpuia still
calls through wgpu-py, so the proxy buys nothing on them; gpuia has also validated every draw
before encoding it. When wgpu-py's internals are not what this module expects (another wgpu-py
version), the public methods are used instead: slower, same behaviour.

The raw calls do not keep Python references alive the way wgpu-py's methods do, so the caller
(``Context``) keeps every object it encodes alive until the pass is submitted.
"""

from __future__ import annotations

__all__ = ["set_pipeline", "DIRECT", "handle", "raw_draw", "raw_set_vertex_buffer",
           "vertex_buffer_args", "begin_statistics", "end_statistics"]

try:  # pragma: no branch - which branch runs depends on the installed wgpu-py
    from wgpu.backends.wgpu_native._ffi import lib as _lib

    _set_pipeline = _lib.wgpuRenderPassEncoderSetPipeline
    _set_vertex_buffer = _lib.wgpuRenderPassEncoderSetVertexBuffer
    _draw = _lib.wgpuRenderPassEncoderDraw
    _WHOLE = _lib.WGPU_WHOLE_SIZE
    DIRECT = True

    def set_pipeline(rp, pipeline) -> None:
        _set_pipeline(rp._internal, pipeline._internal)

    # The hottest loop works on raw handles: the pass's, and per vertex buffer the tuple
    # (buffer handle, offset, size) made once when the binding is resolved.
    raw_draw = _draw
    raw_set_vertex_buffer = _set_vertex_buffer

    def handle(obj):
        return obj._internal

    def vertex_buffer_args(buffer, offset: int, size: int) -> tuple:
        return (buffer._internal, offset, size or _WHOLE)

    # Pipeline statistics queries: wgpu-py 0.32's extras.begin_pipeline_statistics_query
    # prints its encoder to stdout on every call, which would land in gpuia's output.
    _begin_statistics = _lib.wgpuRenderPassEncoderBeginPipelineStatisticsQuery
    _end_statistics = _lib.wgpuRenderPassEncoderEndPipelineStatisticsQuery

    def begin_statistics(rp, query_set, index: int) -> None:
        _begin_statistics(rp._internal, query_set._internal, index)

    def end_statistics(rp) -> None:
        _end_statistics(rp._internal)

except (ImportError, AttributeError):  # pragma: no cover
    DIRECT = False

    def set_pipeline(rp, pipeline) -> None:
        rp.set_pipeline(pipeline)

    def handle(obj):
        return obj

    def vertex_buffer_args(buffer, offset: int, size: int) -> tuple:
        return (buffer, offset, size)

    def raw_draw(rp, vc: int, ic: int, sv: int, si: int) -> None:
        rp.draw(vc, ic, sv, si)

    def raw_set_vertex_buffer(rp, slot: int, buffer, offset: int, size: int) -> None:
        rp.set_vertex_buffer(slot, buffer, offset, size)

    def begin_statistics(rp, query_set, index: int) -> None:
        from wgpu.backends.wgpu_native import extras

        extras.begin_pipeline_statistics_query(rp, query_set, index)

    def end_statistics(rp) -> None:
        from wgpu.backends.wgpu_native import extras

        extras.end_pipeline_statistics_query(rp)
