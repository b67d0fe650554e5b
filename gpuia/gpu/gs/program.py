"""The geometry shader's compute program on the GPU: its pipelines and one dispatch per chunk.

:class:`GSProgram` belongs to one device (a context's geometry stage holds one). It builds the
pipeline of a compiled shader's program (:attr:`gpuia.hlsl.HlslGeometryShader.wgsl`, whose
bindings :data:`gpuia.wgsl.blocks.GS_PARAMS` describes) on first use and keeps it, and
:meth:`GSProgram.encode` records one compute pass over a chunk of invocations: the parameter
record, windows of the vertex and primitive buffers, the regions the invocations fill and the
bound root constant buffers and buffer SRVs the shader reads (@group(1), at a vertex shader's
bindings: ``gpuia.gpu.vertex.pipelines.PipelineCache.cbv_layout``).

Refused before anything is recorded (:class:`~gpuia.errors.UnsupportedError`): a program wgpu
does not build (naming the shader), a binding larger than one storage binding, more
workgroups than one dispatch's first dimension holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import UnsupportedError
from ...wgsl.blocks import GS_PARAMS
from ...wgsl.typed_reads import specialise
from ..lifetime import wgpu_call
from .plan import check_binding

__all__ = ["GSProgram", "GSWindow", "GS_STORAGE_BUFFERS"]
# The storage bindings after the parameters, in binding order.
_BINDINGS = (("vertices", "read-only-storage"), ("prims", "read-only-storage"),
             ("regions", "storage"))
GS_STORAGE_BUFFERS = len(_BINDINGS)
"""The storage buffers of gpuia's own the program binds beside the shader's SRVs."""


@dataclass(frozen=True)
class GSWindow:
    """One binding: ``buffer`` (a wgpu buffer), ``offset`` and ``size`` in bytes."""

    buffer: object
    offset: int
    size: int


class GSProgram:
    """The geometry shaders' programs of one device (module docstring).

    Arguments:
        device: the gpuia Device. ``cache``: a PipelineCache: its ``cbv_layout`` gives the
            constant buffers' group layout and its ``stats`` count what is built.
    """

    def __init__(self, device, cache):
        self.device = device
        self.cache = cache
        self._pipelines: dict = {}
        self._group0 = None

    def _layout0(self):
        if self._group0 is None:
            cs = "COMPUTE"
            entries = [{"binding": 0, "visibility": cs, "buffer": {"type": "uniform"}}]
            entries += [{"binding": b, "visibility": cs, "buffer": {"type": kind}}
                        for b, (_, kind) in enumerate(_BINDINGS, 1)]
            self._group0 = self.device.device.create_bind_group_layout(entries=entries)
        return self._group0

    def pipeline(self, shader, typed: tuple = ()):
        """The compute pipeline of ``shader`` (an HlslGeometryShader) reading typed views of
        the formats ``typed`` ((index, DXGI value) per typed SRV: its program decodes those
        alone, :func:`gpuia.wgsl.typed_reads.specialise`), built on first use."""
        key = (shader.wgsl, shader.group_bindings, typed)
        pipe = self._pipelines.get(key)
        if pipe is None:
            dev = self.device.device
            layouts = [self._layout0()]
            if shader.group_bindings:  # its cbuffers and SRVs, a vertex shader's layout
                layouts.append(self.cache.cbv_layout(shader.group_bindings))

            def build():
                module = dev.create_shader_module(code=specialise(shader.wgsl, typed),
                                                  label="gpuia GS program")
                return dev.create_compute_pipeline(
                    layout=dev.create_pipeline_layout(bind_group_layouts=layouts),
                    compute={"module": module, "entry_point": shader.wgsl_entry_point})

            try:
                pipe = wgpu_call(build, "building the geometry shader's program")
            except UnsupportedError as e:
                raise UnsupportedError(f"geometry shader {shader.entry_point}: its compute "
                                       f"program does not build on this adapter: {e}") from None
            self.cache.stats.shader_modules += 1
            self.cache.stats.pipelines += 1
            if len(self._pipelines) >= 64:
                self._pipelines.clear()
            self._pipelines[key] = pipe
        return pipe

    def check_binding(self, what: str, nbytes: int) -> None:
        """UnsupportedError when ``nbytes`` exceed one storage binding of this adapter
        (:func:`gpuia.gpu.gs.plan.check_binding`)."""
        check_binding(self.device.caps, what, nbytes)

    def encode(self, encoder, shader, params: GSWindow, windows: dict[str, GSWindow],
               invocations: int, cbv_group=None, typed: tuple = ()) -> tuple:
        """Record one compute pass of ``shader``'s program over ``invocations`` invocations
        into ``encoder`` (no pass open): ``params``, the GS_PARAMS record's window;
        ``windows``, the ``vertices``, ``prims`` and ``regions`` windows; ``cbv_group``, the
        bind group of the constant buffers and SRVs it reads (None when it reads none);
        ``typed``, its typed views' formats (:meth:`pipeline`). Returns the objects to keep
        until the commands are submitted."""
        groups = -(-invocations // shader.workgroup)
        limit = self.device.caps.max_compute_workgroups_per_dimension
        if groups > limit:
            raise UnsupportedError(f"the geometry shader's {invocations} invocations need "
                                   f"{groups} workgroups, more than {limit} in one dispatch")
        for name, _ in _BINDINGS:
            self.check_binding(f"{name} window", windows[name].size)
        pipe = self.pipeline(shader, typed)
        entries = [{"binding": 0, "resource": {"buffer": params.buffer, "offset": params.offset,
                                               "size": 4 * GS_PARAMS.words()}}]
        entries += [{"binding": b, "resource": {"buffer": w.buffer, "offset": w.offset,
                                                "size": w.size}}
                    for b, w in enumerate((windows[n] for n, _ in _BINDINGS), 1)]
        dev = self.device.device
        group = wgpu_call(lambda: dev.create_bind_group(layout=self._layout0(),
                                                        entries=entries),
                          "binding the geometry shader's program")
        cp = encoder.begin_compute_pass()
        cp.set_pipeline(pipe)
        cp.set_bind_group(0, group)
        if cbv_group is not None:
            cp.set_bind_group(1, cbv_group)
        cp.dispatch_workgroups(groups, 1, 1)
        cp.end()
        return (group, pipe)
