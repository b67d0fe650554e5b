"""Where the registers a root signature covers land in WebGPU (docs/resources.md, "Root
signatures").

gpuia binds what a root signature covers where it binds the implied root signature's: one
table row per kind of register (:data:`BINDINGS`, keyed by the register class, or by the class
and the resource's kind where one class holds several kinds of WebGPU binding), so that a kind
gpuia learns to bind is one more row. A root CBV, root constants or a CBV range's register
``bN`` of space 0 (N below 14) is gpuia's root constant buffer N, ``@group(3) @binding(N)``, a
uniform buffer; a buffer SRV's ``tN`` of space S (structured, raw or typed ``Buffer<T>``; S
below 7, N below 128) is ``@group(3) @binding(16 + 128 S + N)``
(:func:`gpuia.d3d.srv_bindings.srv_binding`), a read-only storage buffer; a texture's ``tN``
is a sampled-texture binding numbered by the shader's textures
(:func:`gpuia.d3d.textures.texture_binding`); a sampler's ``sN`` of space 0 (N below 16) is a
sampler binding at ``928 + N`` (:func:`gpuia.d3d.textures.sampler_binding`), but a comparison
sampler's (``SamplerComparisonState``), which has no WebGPU binding: gpuia emulates its filter
from texel loads and reads its state from gpuia's sampler state uniform at
``@binding(SAMPLER_STATE_BINDING)`` (rules 17.10), so it counts against no sampler limit; a
buffer UAV's
``uN`` of space S (a root UAV or a UAV range; N below 64, S below 7) is the shader's k-th UAV's
``992 + k`` (:func:`gpuia.d3d.uav_bindings.uav_binding`), a read-write storage buffer counted
with the SRVs against ``max-storage-buffers-per-shader-stage``, its view in the SRVs' views
uniform (counted once for both).

Guaranteed: :func:`webgpu_bindings` gives one row per covered register (its register, the root
parameter and range that hold it, the group, the binding, ``resource``: the member of WebGPU's
bind group layout entry, ``buffer``, ``texture`` or ``sampler``, and under that member's name
its type; a comparison sampler's ``binding`` None, ``resource`` ``none`` and under ``none``
where its state lies, ``limit`` None). Refused with an :class:`~gpuia.errors.UnsupportedError`
naming the register and the reason: a register or space outside gpuia's bindings, a cbuffer
larger than the root constants that hold it, and a set of bindings the adapter's limits
cannot hold (``max-uniform-buffers-per-shader-stage``, ``max-storage-buffers-per-shader-stage``,
``max-sampled-textures-per-shader-stage``, ``max-samplers-per-shader-stage``,
``max-bindings-per-bind-group``), naming the limit and both numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...errors import UnsupportedError
from ..desc import CONSTANT_BUFFER_SLOTS
from ..srv_bindings import SRV_SLOTS, SRV_SPACES, srv_binding
from ..textures import (
    MAX_TEXTURES,
    SAMPLER_SLOTS,
    SAMPLER_STATE_BINDING,
    sampler_binding,
    slot_binding,
    texture_layout,
)
from ..uav_bindings import UAV_SLOTS
from .coverage import ShaderBinding
from .model import PARAMETER_TYPES, RootSignature
from .validation import RegisterRange

__all__ = ["BINDINGS", "GROUP", "webgpu_bindings", "DEFAULT_LIMITS",
           "DEFAULT_MAX_BINDINGS_PER_BIND_GROUP"]

GROUP = 3  # gpuia's resource group (gpuia.hlsl.frontend.CBV_GROUP)
DEFAULT_MAX_BINDINGS_PER_BIND_GROUP = 1000  # WebGPU's guaranteed maxBindingsPerBindGroup
DEFAULT_LIMITS = {"max_bindings_per_bind_group": DEFAULT_MAX_BINDINGS_PER_BIND_GROUP,
                  "max_sampled_textures_per_shader_stage": MAX_TEXTURES,
                  "max_samplers_per_shader_stage": SAMPLER_SLOTS}
"""Limits checked when the caller leaves them out: WebGPU's guaranteed values, which every
adapter has."""


@dataclass(frozen=True)
class _KindBinding:
    resource: str  # the member of WebGPU's GPUBindGroupLayoutEntry: buffer, texture, sampler
    # (none: no WebGPU binding)
    type: Callable[[int | None], str]  # the member's type, of the binding number
    limit: str | None  # the per-stage limit the bindings count against (None: no binding)
    fits: Callable[[int, int], bool]  # (register, space) has a binding in gpuia
    # (the shader's binding, register) -> number (None: no WebGPU binding)
    binding: Callable[[ShaderBinding, int], int | None]
    bound: str  # what gpuia binds of the kind, for a refusal
    own_uniform: str = ""  # the uniform block of gpuia's the kind brings along when bound


def _texture_type(binding: int | None) -> str:
    """A texture binding's sample type and view (gpuia.gpu.vertex.pipelines binds one the
    shader samples filterable, one it only loads unfilterable, an integer one uint or sint)."""
    # a Texture3D's or an integer texture's slot (gpuia.d3d.textures.texture_slot)
    layout = texture_layout(int(binding or 0))
    assert layout is not None, binding
    return " ".join(layout)


BINDINGS = {
    "b": _KindBinding("buffer", lambda n: "uniform", "max_uniform_buffers_per_shader_stage",
                      lambda reg, space: space == 0 and reg < CONSTANT_BUFFER_SLOTS,
                      lambda b, reg: reg,
                      f"root constant buffers b0..b{CONSTANT_BUFFER_SLOTS - 1} of space0"),
    # structured, raw and typed buffers; gpuia's uniform of the views comes with them
    "t": _KindBinding("buffer", lambda n: "read-only-storage",
                      "max_storage_buffers_per_shader_stage",
                      lambda reg, space: space < SRV_SPACES and reg < SRV_SLOTS,
                      lambda b, reg: srv_binding(reg, b.space),
                      f"buffer SRVs t0..t{SRV_SLOTS - 1} of space0..space{SRV_SPACES - 1}",
                      "views"),
    # numbered by the shader's textures in order (gpuia.hlsl.textures), so the shader's own
    "t texture": _KindBinding("texture", _texture_type, "max_sampled_textures_per_shader_stage",
                              lambda reg, space: space < SRV_SPACES and reg < SRV_SLOTS,
                              lambda b, reg: _given(b, "texture"),
                              f"textures t0..t{SRV_SLOTS - 1} of space0..space"
                              f"{SRV_SPACES - 1}"),
    # gpuia's uniform of the samplers' emulated state comes with them
    "s": _KindBinding("sampler", lambda n: "filtering", "max_samplers_per_shader_stage",
                      lambda reg, space: space == 0 and reg < SAMPLER_SLOTS,
                      lambda b, reg: sampler_binding(reg),
                      f"samplers s0..s{SAMPLER_SLOTS - 1} of space0", "sampler state"),
    # SamplerComparisonState: no WebGPU sampler (gpuia.hlsl.compare_wgsl filters from texel
    # loads), its state in the sampler state uniform, which comes with it
    "s comparison sampler": _KindBinding(
        "none", lambda n: f"comparison sampler emulated, its state in gpuia's sampler state "
                          f"uniform @binding({SAMPLER_STATE_BINDING})", None,
        lambda reg, space: space == 0 and reg < SAMPLER_SLOTS, lambda b, reg: None,
        f"samplers s0..s{SAMPLER_SLOTS - 1} of space0", "sampler state"),
    # structured and raw UAVs, numbered by the shader's UAVs in order (gpuia.hlsl.srv); their
    # views share the SRVs' uniform
    "u": _KindBinding("buffer", lambda n: "storage", "max_storage_buffers_per_shader_stage",
                      lambda reg, space: space < SRV_SPACES and reg < UAV_SLOTS,
                      lambda b, reg: _given(b, "UAV"),
                      f"buffer UAVs u0..u{UAV_SLOTS - 1} of space0..space{SRV_SPACES - 1}",
                      "views"),
}
"""Register class (``"t texture"``: class and kind) -> how gpuia binds it in WebGPU."""
_UNIFORM_LIMIT = str(BINDINGS["b"].limit)


def _given(b: ShaderBinding, what: str) -> int:
    if b.binding is None:
        raise UnsupportedError(f"{b.label}: the shader's compile gave the {what} no binding")
    return b.binding


def _rule(b: ShaderBinding) -> _KindBinding | None:
    return BINDINGS.get(f"{b.register_class} {b.kind}") or BINDINGS.get(b.register_class)


def _root_constants(rs: RootSignature, holder: RegisterRange) -> int | None:
    if holder.kind == "static sampler":  # its ``parameter`` numbers the static samplers
        return None
    p = rs.parameters[holder.parameter]
    return p.num_32bit_values if p.type == PARAMETER_TYPES["32bit_constants"] else None


def _row(b: ShaderBinding, holder: RegisterRange, rule: _KindBinding, reg: int) -> dict:
    if not rule.fits(reg, b.space):
        raise UnsupportedError(f"{b.label}: register {b.register_class}{reg} of "
                               f"space{b.space} has no WebGPU binding in gpuia ({rule.bound})")
    binding = rule.binding(b, reg)
    return {"register": f"{b.register_class}{reg}", "space": b.space, "name": b.name,
            "root": holder.where, "held_by": holder.kind, "group": GROUP,
            "binding": None if binding is None else slot_binding(binding),
            "resource": rule.resource, rule.resource: rule.type(binding), "limit": rule.limit}


def webgpu_bindings(rs: RootSignature, covered: list[tuple[ShaderBinding, RegisterRange]],
                    limits: dict[str, int], own_uniform: int = 1, label: str = "the adapter",
                    ) -> list[dict]:
    """One row per covered register (``covered``: :func:`.coverage.cover`'s result), checked
    against ``limits`` (WebGPU limit name in snake_case -> value; a limit left out is not
    checked, but for :data:`DEFAULT_LIMITS`); ``own_uniform``: the uniform buffers gpuia's own
    program binds in the same stage (plus one for the SRV views when there are buffer SRVs,
    one for the SRV and UAV views when there are buffer SRVs or UAVs, one for the sampler
    state when there are samplers)."""
    rows: list[dict] = []
    count: dict[str, int] = {rule.limit: 0 for rule in BINDINGS.values() if rule.limit}
    count[_UNIFORM_LIMIT] = own_uniform
    blocks = set()
    for b, holder in covered:
        rule = _rule(b)
        if rule is None:
            bound = ", ".join(r.bound for r in BINDINGS.values())
            raise UnsupportedError(f"{b.label}: gpuia binds no {holder.type.upper()} "
                                   f"registers in WebGPU ({bound} only)")
        words = _root_constants(rs, holder)
        if words is not None and b.size > 4 * words:
            raise UnsupportedError(f"{b.label}: the cbuffer spans {b.size} bytes and "
                                   f"{holder.describe()} holds {words} 32-bit values "
                                   f"({4 * words} bytes): D3D12 leaves reads past root "
                                   f"constants undefined, gpuia refuses them")
        for reg in range(b.register, b.register + b.count):
            rows.append(_row(b, holder, rule, reg))
            if rule.limit:  # a comparison sampler's counts against none
                count[rule.limit] += 1
            blocks.add(rule.own_uniform)
    count[_UNIFORM_LIMIT] += len(blocks - {""})
    limits = {**DEFAULT_LIMITS, **limits}
    for name, used in count.items():
        if name in limits and used > limits[name]:
            raise UnsupportedError(
                f"root signature ({rs.origin}): the covered registers take {used} bindings "
                f"counted by {name.replace('_', '-')} (gpuia's own uniform blocks included), "
                f"more than {label}'s {limits[name]}")
    most = limits["max_bindings_per_bind_group"]
    highest = max((int(r["binding"]) for r in rows if r["binding"] is not None), default=-1)
    if highest >= most:
        raise UnsupportedError(f"root signature ({rs.origin}): binding {highest} of "
                               f"@group({GROUP}) passes {label}'s max-bindings-per-bind-group "
                               f"{most}")
    return rows
