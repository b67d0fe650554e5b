"""The vertex entry point gpuia generates around the user's vertex function.

The user's function (rewritten by :func:`gpuia.wgsl.signature.parse_vertex_shader`) is called
unchanged. The generated ``gpuia_vs`` gets each input element as the four 32-bit patterns D3D
delivers, ``e<element>``: on the **native** path from one ``@location`` input per element, typed
by the element's format class (WebGPU requires the class to match) and bit cast back; on the
pulling path from the element's fetch function (:mod:`gpuia.wgsl.fetch`). Struct members take
them by bit cast (a float input fed by a UINT format sees raw bits, rules 2.12), truncated to
the member's width. SV_VertexID and SV_InstanceID are the builtins minus the draw's start values,
which WebGPU includes and D3D does not (rules 4.5, 4.6).

The result is the shader's SV_Position (or a position outside every clip volume when nothing is
to be rasterized), or the varyings a linked pixel shader reads (:mod:`gpuia.wgsl.pixel`). A
trivial ``gpuia_fs`` comes with it for pipelines that draw to gpuia's own target (the shader
file ``vertex_entry.wgsl``).
"""

from __future__ import annotations

from ..d3d.layout import InputLayout
from ..d3d.signature import Member, ShaderSignature
from ..util.resources import shader_text
from .fetch import attribute_parameters, fetch_call
from .pixel import varyings_struct
from .scalar_types import WGSL_SCALAR

__all__ = ["NOT_RASTERIZED", "user_shader_lines", "entry_parameters", "entry_prologue_lines",
           "shader_call_lines", "vertex_entry_points"]

NOT_RASTERIZED = "vec4<f32>(0.0, 0.0, 2.0, 1.0)"
"""A clip-space position outside every clip volume (z > w): the vertex rasterizes nothing."""


def user_shader_lines(sig: ShaderSignature) -> list[str]:
    """The user's module text under its section comment."""
    return ["// ---- the vertex shader ----", sig.source]


def entry_parameters(layout: InputLayout, native: bool,
                     attributes: frozenset = frozenset()) -> list[str]:
    """``gpuia_vs``'s parameters: the vertex and instance builtins, and on the native path one
    ``@location(<element>) a<element>`` per element, typed by its format's shader type; on the
    pulling path the raw words of the elements of slots in ``attributes``
    (:func:`gpuia.wgsl.fetch.attribute_parameters`)."""
    params = ["@builtin(vertex_index) gpu_vi: u32", "@builtin(instance_index) ii: u32"]
    if not native:
        params += attribute_parameters(layout, attributes)
    else:
        for e in layout.elements:
            t = WGSL_SCALAR[e.format.shader_type]
            params.append(f"@location({e.index}) a{e.index}: vec4<{t}>")
    return params


def entry_prologue_lines(layout: InputLayout, native: bool, constants: bool,
                         attributes: frozenset = frozenset()) -> list[str]:
    """``vi`` (the fetched vertex index), ``sv_vertex_id`` and ``sv_instance_id`` (with the
    per-draw block: ``constants``), and ``e<element>`` for every element (pulled slots in
    ``attributes`` decode their words from the entry point's parameters)."""
    # vertex_shift: the part of a non-indexed draw's first vertex an adapter could not take
    # (quirks.SIGNED_FIRST_VERTEX); 0 elsewhere. Wrapping u32 addition, as D3D's (rules 4.8).
    body = [
        "  let vi = gpu_vi + gpuia_draw.vertex_shift;",
        "  let sv_vertex_id = vi - gpuia_draw.vertex_base;",
        "  let sv_instance_id = ii - gpuia_draw.first_instance;",
    ] if constants else ["  let vi = gpu_vi;"]
    for e in layout.elements:
        src = (f"bitcast<vec4<u32>>(a{e.index})" if native else
               fetch_call(e, attributes=attributes))
        body.append(f"  let e{e.index} = {src};")
    return body


def _member_value(member: Member, bits: str) -> str:
    """A vec4<u32> of bit patterns as the member's declared type."""
    t = WGSL_SCALAR[member.type]
    v = bits if member.type == "uint" else f"bitcast<vec4<{t}>>({bits})"
    return v if member.components == 4 else f"{v}.{'xyzw'[:member.components]}"


def shader_call_lines(layout: InputLayout, sig: ShaderSignature) -> list[str]:
    """Build the user's input struct from ``e<element>`` (vec4<u32> bits), ``sv_vertex_id`` and
    ``sv_instance_id``, and call the user's function into ``output``."""
    body = []
    call = f"{sig.entry_point}()"
    elements = {e.key: e for e in layout.elements}
    if sig.input_struct:
        body.append(f"  var input: {sig.input_struct};")
        for m in sig.inputs:
            if m.semantic == "SV_VERTEXID":
                val = "sv_vertex_id"
            elif m.semantic == "SV_INSTANCEID":
                val = "sv_instance_id"
            else:
                val = f"e{elements[m.key].index}"
                body.append(f"  input.{m.name} = {_member_value(m, val)};")
                continue
            value = val if m.type == "uint" else f"bitcast<i32>({val})"
            body.append(f"  input.{m.name} = {value};")
        call = f"{sig.entry_point}(input)"
    body.append(f"  let output = {call};")
    return body


def vertex_entry_points(params: list[str], body: list[str], sig: ShaderSignature,
                        rasterize: bool = True, varyings: tuple = ()) -> list[str]:
    """``gpuia_vs`` (``params``, ``body`` ending in :func:`shader_call_lines`) returning the
    shader's SV_Position, or :data:`NOT_RASTERIZED` when ``rasterize`` is False or the shader
    has none; with ``varyings`` (``gpuia.wgsl.pixel.Varying`` rows; only when rasterizing) it
    returns them with the position in ``GpuiaVaryings``. Then the trivial ``gpuia_fs`` and an
    empty line."""
    out = []
    pos = sig.output("SV_POSITION0")
    position = NOT_RASTERIZED if not rasterize or pos is None else f"output.{pos.name}"
    result = "@builtin(position) vec4<f32>"
    body = list(body)
    if varyings and rasterize:
        out.append(varyings_struct(varyings))
        result = "GpuiaVaryings"
        body += ["  var gpuia_o: GpuiaVaryings;", f"  gpuia_o.gpuia_position = {position};"]
        body += [f"  gpuia_o.v{v.location} = output.{v.vs_member};" for v in varyings]
        body.append("  return gpuia_o;")
    else:
        body.append(f"  return {position};")
    return out + [shader_text("vertex_entry.wgsl", PARAMS=", ".join(params), RESULT=result,
                              BODY="\n".join(body)), ""]
