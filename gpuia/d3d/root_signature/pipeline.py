"""A root signature given in any form, and the shaders of a pipeline state against it.

:func:`root_signature_of` takes a :class:`~.model.RootSignature`, an HLSL root signature string
(version 1.1), a JSON object (:mod:`.json_form`) or serialized bytes (:mod:`.blob_form`), and
returns it validated (rules 16.1-16.8). :func:`check_shaders` checks each shader's registers
against it (rules 16.9, :func:`.coverage.cover`) and what gpuia can bind of them
(:func:`.webgpu.webgpu_bindings` with no adapter limits), returning (stage, binding, range) per
register. A shader is read for its registers by :func:`shader_bindings`, from the attributes a
compiled HLSL shader has (``constant_buffers``, ``shader_resources``: structured, raw and typed
buffers and the UAVs among them, ``textures``, ``samplers``): one table row per kind of
resource, so that a kind gpuia learns to read is one more row. :func:`static_samplers` gives
the sampler desc a static sampler holding a shader's sampler register binds (D3D12: a static
sampler needs no descriptor).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import InvalidDescError
from ..textures import SamplerDesc, sampler_desc
from .blob_form import read_root_signature_blob
from .coverage import ShaderBinding, cover
from .hlsl_form import parse_root_signature
from .json_form import root_signature_from_json
from .model import VISIBILITIES, RootSignature
from .validation import RegisterRange, validate
from .webgpu import webgpu_bindings

__all__ = ["root_signature_of", "check_shaders", "shader_bindings", "SHADER_RESOURCES",
           "static_samplers"]

SHADER_RESOURCES: tuple[tuple[str, Callable[[Any], ShaderBinding]], ...] = (
    ("constant_buffers", lambda cb: ShaderBinding("b", cb.slot, 0, 1, "cbuffer", cb.name,
                                                  cb.size)),
    # a UAV (writable: gpuia.hlsl.uavs) is a u register, its binding the shader's own (992 + k)
    ("shader_resources", lambda r: ShaderBinding("u" if r.writable else "t", r.register,
                                                 r.space, 1, r.kind, r.name,
                                                 binding=r.binding if r.writable else None)),
    # a texture's layout slot: its binding, and a Texture3D's 3d view (texture_slot)
    ("textures", lambda t: ShaderBinding("t", t.register, t.space, 1, "texture", t.name,
                                         binding=t.slot)),
    # a comparison sampler has no WebGPU sampler: its state is in gpuia's sampler uniform
    ("samplers", lambda s: ShaderBinding("s", s.register, 0, 1, "comparison sampler"
                                         if s.comparison else "sampler", s.name)),
)
"""(attribute of a compiled shader, how one item of it is a :class:`ShaderBinding`)."""


def shader_bindings(shader) -> list[ShaderBinding]:
    """The registers a compiled HLSL shader (vertex or geometry) reads."""
    return [make(item) for attr, make in SHADER_RESOURCES
            for item in getattr(shader, attr, ())]


def root_signature_of(value, where: str = "root_signature") -> RootSignature:
    """``value`` in any form (see the module docstring) as a validated root signature."""
    if isinstance(value, RootSignature):
        rs = value
    elif isinstance(value, str):
        rs = parse_root_signature(value, "1.1", origin=where)
    elif isinstance(value, dict):
        rs = root_signature_from_json(value, where)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        rs = read_root_signature_blob(bytes(value), origin=where)
    else:
        raise InvalidDescError(where, None, type(value).__name__,
                               "expected a RootSignature, an HLSL root signature string, a "
                               "JSON object or serialized bytes")
    validate(rs)
    return rs


def check_shaders(rs: RootSignature, shaders: list[tuple[str, Any]]
                  ) -> list[tuple[str, ShaderBinding, RegisterRange]]:
    """(stage, binding, the range holding it) per register of each (stage, compiled shader);
    None shaders are skipped. Raises InvalidDescError (rules 16.9) or UnsupportedError (a
    register gpuia cannot bind, such as a cbuffer larger than its root constants)."""
    covered = []
    for stage, shader in shaders:
        if shader is not None:
            mine = cover(rs, shader_bindings(shader), stage, f"{stage} shader")
            webgpu_bindings(rs, mine, {})  # each stage's bindings count against its own limits
            covered += [(stage, b, r) for b, r in mine]
    return covered


def static_samplers(rs: RootSignature, registers, stage: str = "vertex"
                    ) -> dict[int, SamplerDesc]:
    """{register: the sampler desc gpuia binds} of each sampler register (of space 0, the
    ones gpuia binds) in ``registers`` that a static sampler visible to ``stage`` holds; the
    others are left out (a descriptor table's SAMPLER range holds them, rules 16.9). Raises
    UnsupportedError, naming the static sampler and its register, for a field gpuia does not
    sample (a minimum, maximum or anisotropic filter, a negative MinLOD, a BORDER address mode
    with a _UINT border colour), as the same field of a sampler desc is refused
    (``gpuia.d3d.textures.sampler_desc``)."""
    visible = (VISIBILITIES["all"], VISIBILITIES[stage])
    out = {}
    for register in registers:
        for i, s in enumerate(rs.static_samplers):
            if (s.shader_register, s.register_space) == (register, 0) and \
                    s.visibility in visible:
                out[register] = sampler_desc(
                    s.sampler_fields(), f"root signature ({rs.origin}) static sampler {i} "
                                        f"(s{register})")
    return out
