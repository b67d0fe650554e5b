"""The CPU reference of an HLSL geometry shader: the user's code run on the host, per invocation.

Built as the CPU vertex shader is (``gpuia.hlsl.cpu``): the streams' prelude, the user's source
and a compute entry (``shaders/gs_entry_cpu.hlsl``) go through Slang's C++ target, checked for
Slang's ways out of a shader first, with D3D's values where C++ leaves them undefined
(``gpuia.hlsl.cpu_defined``), built with the host's C++ compiler and run contained
(``gpuia.hlsl.sandbox``, the runner's seccomp filter) on every core. The host gathers each
invocation's inputs (its primitive's vertex records, ``SV_PrimitiveID``, ``SV_GSInstanceID``);
the entry clears the invocation's region and the shader's Appends fill it, in the region format
of the GPU program (``gpuia.wgsl.blocks``, GS_REGION): the two sides share a format, not code.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidDescError
from ..util.resources import shader_text
from . import cache, cpu_defined, escapes, library
from .cpu import (
    CpuShader,
    build_folder,
    build_request,
    compile_cxx,
    compiler,
    entry_params,
    sound_build,
)
from .cpu_textures import bounded_textures, lower_comparisons
from .cpu_views import bounded_views
from .frontend import slang_args
from .geometry import WHAT, HlslGeometryShader
from .geometry_entry import gs_cpu_entry, gs_prelude
from .load_offsets import lower_load_offsets
from .reflect import Leaf
from .source import prepare, restore
from .texture1d_arrays import lower_texture1d_arrays
from .typed_buffers import lower_source
from .wrapper import CPU_ENTRY

__all__ = ["CpuGeometryShader", "cpu_geometry_shader"]

_ROLES = {"hlslw_in": "in", "gpuia_gs_out": "out", "hlslw_cpu_count": "count"}
_IN, _OUT = "GSIN", "GSREGION"  # the one input and output "leaf" of the runner's file


@dataclass(frozen=True)
class CpuGeometryShader:
    """A geometry shader built for the CPU: run it with :meth:`run`."""

    build: CpuShader
    vertices: int  # input vertices per primitive (k)
    vertex_words: int
    instances: int
    region_words: int

    def run(self, vertices: np.ndarray, prims: np.ndarray, instances: int | None = None,
            constant_buffers: dict | None = None, timeout: float | None = None,
            shader_resources: dict | None = None) -> np.ndarray:
        """Run the shader for every primitive of ``prims`` and each of its ``instances`` GS
        instances (the shader's ``[instance]`` count by default), primitive by primitive
        (rules 13.3).

        Arguments:
            vertices (numpy.ndarray): uint32 ``(V, vertex words)``: the vertex shader's output
                records (gpuia_gs_vertices' format).
            prims (numpy.ndarray): uint32 ``(P, k + 1)``: per primitive its k vertex indices
                into ``vertices``, then its ``SV_PrimitiveID`` (gpuia_gs_prims' format).
            constant_buffers (dict): {slot: D3D-packed bytes} of the cbuffers it reads.
            shader_resources (dict): {the SRV's binding: the bytes of its view} of the buffer
                SRVs it reads, as :meth:`gpuia.hlsl.cpu.CpuShader.run` takes them (a read past
                them returns 0, as D3D12's; a typed view's values decoded by
                :func:`gpuia.hlsl.typed_buffers.cpu_elements`), and each texture's and
                sampler's blob by its binding (``gpuia.hlsl.cpu_textures``).

        Returns:
            uint32 ``(P * instances, 1 + N * (1 + R))``: each invocation's region (GS_REGION).

        Raises:
            InvalidDescError: a vertex index out of range, a cbuffer the shader reads not
                bound, a shader that faults, never ends or does what D3D leaves undefined on
                the CPU, an SRV it reads not given (as the CPU vertex shader's run refuses them).
        """
        k, vw = self.vertices, self.vertex_words
        instances = self.instances if instances is None else int(instances)
        verts = np.asarray(vertices, np.uint32).reshape(-1, vw) if vw else \
            np.zeros((0, 0), np.uint32)
        prims = np.asarray(prims, np.uint32).reshape(-1, k + 1)
        if prims.shape[0] and vw and int(prims[:, :k].max()) >= verts.shape[0]:
            raise InvalidDescError(WHAT, "prims", int(prims[:, :k].max()),
                                   f"a vertex index past the {verts.shape[0]} vertices given")
        p = prims.shape[0]
        n = p * instances
        table = np.zeros((n, k * vw + 2), np.uint32)
        if n:
            gathered = verts[prims[:, :k].astype(np.int64)].reshape(p, k * vw) if vw else \
                np.zeros((p, 0), np.uint32)
            table[:, :k * vw] = np.repeat(gathered, instances, axis=0)
            table[:, k * vw] = np.repeat(prims[:, k], instances)
            table[:, k * vw + 1] = np.tile(np.arange(instances, dtype=np.uint32), p)
        ids = np.zeros(n, np.uint32)
        out = self.build.run({f"{_IN}0": table}, ids, ids, constant_buffers or {}, timeout,
                             shader_resources)
        return out[f"{_OUT}0"].reshape(n, self.region_words)


_MEMORY = cache.MemoryCache(64)
_LOCK = threading.Lock()


def cpu_geometry_shader(shader: HlslGeometryShader) -> CpuGeometryShader:
    """The CPU build of a compiled HLSL geometry shader (cached in memory and on disk as the
    CPU vertex shader is). Raises UnsupportedError without a C++ compiler."""
    cxx = compiler()
    request = build_request("cpu-gs", shader, cxx)
    key = cache.key_of(*request)
    hit = _MEMORY.get(key)
    if hit is None or not os.path.isfile(hit.build.executable):
        with _LOCK:
            folder = build_folder()
            entry = cache.load("cpu", key, CpuShader, request)
            built = entry[0] if entry is not None else None
            if not sound_build(built, folder / key[:32]):
                built = _build(shader, cxx, key, folder)
                cache.store("cpu", key, built, request)
        assert built is not None  # built or loaded
        hit = _MEMORY.put(key, CpuGeometryShader(
            built, shader.declaration.input.vertices, shader.vertex_words,
            shader.declaration.instance_count, shader.region_words))
    return hit


def _build(shader: HlslGeometryShader, cxx: str, key: str, folder) -> CpuShader:
    prepared = prepare(shader.source, shader.file_name, shader.matrix_layout, frozenset(),
                       line_name=shader.slang_name, source_path=shader.source_path,
                       include_dirs=shader.include_dirs, defines=shader.defines)
    k = shader.declaration.input.vertices
    # A typed Buffer<T> is a structured buffer of T here, bound to the view's decoded values
    # (gpuia.hlsl.typed_buffers), as in the CPU vertex shader.
    text = lower_source(prepared.text, {r.name for r in shader.shader_resources
                                        if r.kind == "typed"}, WHAT)
    if any(s.comparison for s in shader.samplers):  # SampleCmpLevelZero as gpuia's SampleLevel
        text = lower_comparisons(text)
    # Load(location, offset) and Texture1DArray as for the WGSL (rules 17.11, 17.8)
    text = lower_load_offsets(text, {t.name: t.hlsl_type for t in shader.textures}, WHAT)
    text = lower_texture1d_arrays(text, {t.name for t in shader.textures
                                         if t.hlsl_type == "Texture1DArray"}, WHAT)
    kernel, in_words = gs_cpu_entry(shader.parameters, shader.input_leaves, k,
                                    shader.stream_leaves, shader.entry_point, CPU_ENTRY,
                                    shader.region_words, text)
    prelude = gs_prelude(shader.declaration.max_vertex_count, shader.record_words)
    args = slang_args(prepared.matrix_layout)
    # What Slang turns into C++ is checked again, as it is now (its includes read again).
    escapes.refuse_escapes_in(text, shader.slang_name, args, shader.defines,
                              shader.include_dirs, WHAT, shader.source, shader.file_name,
                              shader.source_path)
    try:
        out = library.compile_source(prelude + text + kernel, shader.slang_name,
                                     CPU_ENTRY, "compute", "cpp", args, shader.defines,
                                     shader.include_dirs, WHAT)
    except library.SlangError as e:
        raise InvalidDescError(WHAT, "CPU reference", None,
                               library.first_error(restore(e.diagnostics, prepared))) from None
    # a read past an SRV's view returns 0 (gpuia.hlsl.cpu_views)
    code = bounded_views(out.code.decode("utf-8"))
    if shader.textures or shader.samplers:  # D3D12's texture reads (gpuia.hlsl.cpu_textures)
        code = bounded_textures(code)
    head, body = cpu_defined.prepare_parts(code)
    source = head + body + "\n" + shader_text("runner.cpp") + "\n"
    params, gp_size = entry_params(out.reflection, shader.constant_buffers, _ROLES,
                                   shader.shader_resources,
                                   {**{t.name: t.binding for t in shader.textures},
                                    **{s.name: s.binding for s in shader.samplers}})
    exe = folder / key[:32]
    digest = compile_cxx(cxx, source, folder, key[:32], exe, head)
    ins = (Leaf("in", _IN, 0, "uint", in_words, 0, "", "inputs"),)
    outs = (Leaf("out", _OUT, 0, "uint", shader.region_words, 0, "", "regions"),)
    return CpuShader(str(exe), in_words, shader.region_words, ins, outs, tuple(params), gp_size,
                     digest, WHAT)
