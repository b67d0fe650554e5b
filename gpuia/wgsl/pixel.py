"""Pixel shaders: linking them to the vertex shader and generating their entry point.

A gpuia pixel shader is WGSL with one ``@fragment fn NAME(input: STRUCT) -> STRUCT`` whose members
are named by D3D semantics (see :func:`gpuia.wgsl.signature.parse_pixel_shader`). As D3D links a
pixel shader's input signature to the vertex shader's output signature by semantic, gpuia matches
each pixel input to the vertex output with the same semantic name and index (case-insensitive) and
gives the pair an inter-stage ``@location``, interpolated as the pixel input says (its
``@interpolate``, which is D3D's interpolation modifier of an HLSL pixel shader; integers
always flat): :func:`link_stages` returns these
:class:`Varying` rows, which both the generated vertex entry point (``gpuia.wgsl.vertex``) and
the fragment entry point generated here (:func:`pixel_program`) follow. The pixel shader is its
own module, so its names never collide with the vertex shader's.

Refused (an :class:`~gpuia.errors.InvalidDescError` naming the member): a pixel input no vertex
output provides, a type or component count that differs from the vertex output's, more varyings
than the adapter's inter-stage limit, an ``SV_Target`` index with no render target format, or a
scalar type the target's format cannot take (float formats need f32 outputs, UINT formats u32).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..d3d.signature import ShaderSignature
from ..errors import InvalidDescError
from ..util.resources import shader_text
from .scalar_types import WGSL_SCALAR

__all__ = ["Varying", "link_stages", "varyings_struct", "pixel_program", "null_pixel_program"]


@dataclass(frozen=True)
class Varying:
    """One inter-stage value: its location, the vertex output member, the pixel input member."""

    location: int
    vs_member: str
    ps_member: str
    wgsl_type: str
    interpolation: str | None  # the @interpolate argument; None: perspective, center

    @property
    def flat(self) -> bool:
        return self.interpolation is not None and self.interpolation.startswith("flat")


def link_stages(vs: ShaderSignature, ps: ShaderSignature, max_varyings: int) -> tuple[Varying, ...]:
    """Match the pixel shader's inputs to the vertex shader's outputs (see the module doc)."""
    out, location = [], 0
    for m in ps.inputs:
        if m.semantic == "SV_POSITION":
            continue
        src = vs.output(m.key)
        if src is None:
            raise InvalidDescError("pixel shader", f"{ps.input_struct}.{m.name}", m.key,
                                   f"no vertex shader output has semantic {m.key} (a pixel "
                                   f"shader input must be written by the vertex shader)")
        if (src.type, src.components) != (m.type, m.components):
            raise InvalidDescError("pixel shader", f"{ps.input_struct}.{m.name}", m.wgsl_type,
                                   f"the vertex shader writes {m.key} as {src.wgsl_type}; the "
                                   f"stages must agree on its type")
        interpolation = m.interpolation
        if m.type != "float":
            if interpolation is not None and not interpolation.startswith("flat"):
                raise InvalidDescError("pixel shader", f"{ps.input_struct}.{m.name}",
                                       interpolation,
                                       "integer inputs are not interpolated (nointerpolation / "
                                       "@interpolate(flat))")
            interpolation = interpolation or "flat"
        out.append(Varying(location, src.name, m.name, m.wgsl_type, interpolation))
        location += 1
    if location > max_varyings:
        raise InvalidDescError("pixel shader", "inputs", location,
                               f"more inter-stage values than the adapter's "
                               f"max-inter-stage-shader-variables ({max_varyings})")
    return tuple(out)


def varyings_struct(varyings: tuple[Varying, ...]) -> str:
    """``GpuiaVaryings``, the inter-stage struct both generated entry points use: the position
    builtin, then each varying at its location with its interpolation."""
    members = ["@builtin(position) gpuia_position: vec4<f32>"]
    members += [f"@location({v.location})"
                f"{f' @interpolate({v.interpolation})' if v.interpolation else ''} "
                f"v{v.location}: {v.wgsl_type}" for v in varyings]
    return "struct GpuiaVaryings { " + ", ".join(members) + " }"


def pixel_program(ps: ShaderSignature, varyings: tuple[Varying, ...],
                  target_types: tuple[str, ...]) -> str:
    """The fragment module: the user's pixel shader plus ``gpuia_ps``, which fills the user's
    input struct from the varyings, calls the user's function and writes each ``SV_TargetN`` to
    color target N as a 4-component value (missing components (0, 0, 0, 1), as D3D's default
    fill). ``target_types`` gives each target's scalar kind ("float"/"uint"/"sint")."""
    by_target = {m.index: m for m in ps.outputs}
    for i, m in by_target.items():
        if i >= len(target_types):
            raise InvalidDescError("pixel shader", f"{ps.output_struct}.{m.name}", m.key,
                                   f"the pipeline state has {len(target_types)} render target "
                                   f"format(s) (RTVFormats); SV_Target{i} has none")
        if m.type != target_types[i]:
            raise InvalidDescError("pixel shader", f"{ps.output_struct}.{m.name}", m.wgsl_type,
                                   f"render target {i}'s format takes "
                                   f"{WGSL_SCALAR[target_types[i]]} values")
    inputs = []
    if ps.input_struct:
        inputs.append(f"var input: {ps.input_struct};")
        for m in ps.inputs:
            if m.semantic == "SV_POSITION":
                # D3D's SV_Position.w in a pixel shader is the clip-space w; WebGPU's position
                # builtin has 1/w there (DXC's -fvk-use-dx-position-w does the same).
                inputs.append(f"input.{m.name} = vec4<f32>(v.gpuia_position.xyz, "
                              f"1.0 / v.gpuia_position.w);")
        for varying in varyings:
            inputs.append(f"input.{varying.ps_member} = v.v{varying.location};")
        call = f"{ps.entry_point}(input)"
    else:
        call = f"{ps.entry_point}()"
    common = dict(VARYINGS=varyings_struct(varyings), INPUTS="\n".join(inputs), CALL=call)
    if not by_target:
        return "\n".join([ps.source, shader_text("pixel_entry.wgsl", **common), ""])
    targets = []
    for i, m in sorted(by_target.items()):
        t = WGSL_SCALAR[target_types[i]]
        one = "1.0" if t == "f32" else "1"
        zero = "0.0" if t == "f32" else "0"
        if m.components == 4:
            targets.append(f"t.t{i} = o.{m.name};")
        else:
            pad = ", ".join([zero] * (3 - m.components) + [one])
            targets.append(f"t.t{i} = vec4<{t}>(o.{m.name}, {pad});")
    members = ", ".join(f"@location({i}) t{i}: vec4<{WGSL_SCALAR[target_types[i]]}>"
                        for i in sorted(by_target))
    return "\n".join([ps.source, shader_text("pixel_entry_targets.wgsl", **common,
                                              TARGET_MEMBERS=members,
                                              TARGETS="\n".join(targets)), ""])


def null_pixel_program() -> str:
    """A fragment stage that writes nothing (a pipeline state without a pixel shader that still
    has render targets: D3D writes none of them; WebGPU needs a stage and zero write masks)."""
    return shader_text("pixel_null.wgsl") + "\n"
