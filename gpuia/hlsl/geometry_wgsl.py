"""Slang's WGSL of a geometry shader's compute entry, bound as gpuia binds it.

Slang numbers every binding in one space of its own; gpuia rebinds by name
(``gpuia.wgsl.blocks``, GS_PARAMS): ``gpuia_gs_params`` becomes gpuia's own uniform block at
``@group(0) @binding(0)`` (its struct text is the table's), ``gpuia_gs_vertices``,
``gpuia_gs_prims`` and ``gpuia_gs_out`` take bindings 1 to 3 of group 0 under those names,
and every cbuffer of the shader goes to ``@group(1) @binding(register)``, remapped where WGSL
lays it out unlike D3D (``gpuia.hlsl.cbuffer``), as a vertex shader's cbuffers are; its buffer
SRVs go to the same group at a vertex shader's bindings, read through the same bounds-checked
functions (``gpuia.hlsl.srv``: views uniform at ``VIEWS_BINDING``, tN of space S at
``srv_binding(N, S)``), and so do its textures and samplers (``gpuia.hlsl.textures``). The result
is checked by naga; what naga refuses is refused at the user's line where one is known.
"""

from __future__ import annotations

import re

from ..errors import InvalidDescError
from ..wgsl.blocks import GS_PARAMS
from ..wgsl.text import wgsl_comment_text
from . import library
from .bindings import constant_buffers
from .cbuffer import ConstantBuffer, parse_wgsl_structs, remap_wgsl
from .refusals import naga_refusal
from .srv import ShaderResource, rewrite, shader_resources
from .textures import rewrite as rewrite_textures
from .textures import shader_textures

__all__ = ["GS_ENTRY", "GS_CBV_GROUP", "GS_BINDINGS", "gs_wgsl"]

GS_ENTRY = "hlslw_gs"
"""The compute entry point of a geometry shader's WGSL."""
GS_CBV_GROUP = 1
"""The bind group of the shader's cbuffers (binding = register bN)."""
GS_BINDINGS = {"gpuia_gs_params": 0, "gpuia_gs_vertices": 1, "gpuia_gs_prims": 2,
               "gpuia_gs_out": 3}
"""The bindings of group 0, by variable name."""

_WHAT = "geometry shader"


def _own_bindings(code: str) -> str:
    """gpuia's buffers at their bindings and names; the params as GS_PARAMS's struct."""
    m = re.search(r"@binding\(\s*\d+\s*\)\s*@group\(\s*\d+\s*\)\s*var\s*<\s*uniform\s*>\s*"
                  r"gpuia_gs_params_\d+\s*:\s*(\w+)\s*;", code)
    if m is None:
        raise InvalidDescError(_WHAT, "WGSL", "gpuia_gs_params",
                               "Slang's WGSL declares gpuia's parameters in an unexpected form")
    struct = m.group(1)
    declared = (f"{GS_PARAMS.wgsl()}\n@group(0) @binding(0) var<uniform> gpuia_gs_params: "
                f"{GS_PARAMS.struct};")
    code = code[:m.start()] + declared + code[m.end():]
    code = re.sub(rf"\bstruct\s+{re.escape(struct)}\s*\{{[^}}]*\}};?", "", code, count=1)
    code = re.sub(r"\bgpuia_gs_params_\d+\.gpuia_(\w+?)_\d+\b", r"gpuia_gs_params.\1", code)
    for name in ("gpuia_gs_vertices", "gpuia_gs_prims", "gpuia_gs_out"):
        pattern = (rf"@binding\(\s*\d+\s*\)\s*@group\(\s*\d+\s*\)\s*(var\s*<[^>]*>)\s*"
                   rf"{name}_\d+\s*:")
        bound = f"@group(0) @binding({GS_BINDINGS[name]}) \\1 {name} :"
        code, n = re.subn(pattern, bound, code, count=1)
        if n != 1:
            raise InvalidDescError(_WHAT, "WGSL", name, "Slang's WGSL declares gpuia's buffer "
                                                        "in an unexpected form")
        code = re.sub(rf"\b{name}_\d+\b", name, code)
    return code


def gs_wgsl(code: str, params: dict, slang, wrapped: str, prepared, source: str,
            entry_point: str, file_name: str
            ) -> tuple[str, list[ConstantBuffer], tuple[ShaderResource, ...], tuple]:
    """(the WGSL gpuia runs, the shader's cbuffers, its buffer SRVs, (its textures, its
    samplers)) of Slang's WGSL ``code``
    of ``wrapped`` (see the module docstring); ``params`` are the user entry's global parameters
    (:func:`gpuia.hlsl.bindings.resources`), ``slang`` the compile's
    :class:`~gpuia.hlsl.frontend.SlangRun`."""
    code = _own_bindings(code)
    structs = parse_wgsl_structs(code)
    cbuffers = constant_buffers(code, params, structs, _WHAT)
    for cb in cbuffers:
        code = remap_wgsl(code, cb, GS_CBV_GROUP, structs, GS_ENTRY)
    srvs = shader_resources(params, code, _WHAT, prepared.matrix_layout == "column_major")
    code = rewrite(code, srvs, GS_CBV_GROUP, _WHAT)
    textures = shader_textures(params, code, _WHAT, {(r.register, r.space) for r in srvs})
    code = rewrite_textures(code, *textures, GS_CBV_GROUP, _WHAT)
    code = (f"// gpuia: HLSL geometry shader {wgsl_comment_text(entry_point)} "
            f"({wgsl_comment_text(file_name)}) through Slang's WGSL, run by a compute entry "
            f"(one thread per invocation); cbuffers and SRVs at @group({GS_CBV_GROUP})\n" + code)
    _, naga_error = library.check_wgsl(code, _WHAT)
    if naga_error is not None:
        raise naga_refusal(naga_error, lambda: slang.run(
            wrapped, GS_ENTRY, "wgsl", None, ("-line-directive-mode", "standard")),
            prepared, source, _WHAT)
    return code, cbuffers, srvs, textures
