"""Where the registers a root signature covers land in WebGPU (docs/resources.md, "Root
signatures").

gpuia binds what a root signature covers where it binds the implied root signature's: one
table row per register class (:data:`BINDINGS`), so that a class gpuia learns to bind is one
more row. A root CBV, root constants or a CBV range's register ``bN`` of space 0 (N below 14)
is gpuia's root constant buffer N, ``@group(3) @binding(N)``, a uniform buffer; an SRV's
``tN`` of space S (S below 7, N below 128) is ``@group(3) @binding(16 + 128 S + N)``
(:func:`gpuia.d3d.srv_bindings.srv_binding`), a read-only storage buffer.

Guaranteed: :func:`webgpu_bindings` gives one row per covered register (its register, the root
parameter and range that hold it, the group, the binding and the kind of WebGPU buffer).
Refused with an :class:`~gpuia.errors.UnsupportedError` naming the register and the reason: a
class gpuia does not bind (UAVs, samplers), a register or space outside gpuia's bindings, a
cbuffer larger than the root constants that hold it, and a set of bindings the adapter's limits
cannot hold (``max-uniform-buffers-per-shader-stage``, ``max-storage-buffers-per-shader-stage``,
``max-bindings-per-bind-group``), naming the limit and both numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...errors import UnsupportedError
from ..desc import CONSTANT_BUFFER_SLOTS
from ..srv_bindings import SRV_SLOTS, SRV_SPACES, srv_binding
from .coverage import ShaderBinding
from .model import PARAMETER_TYPES, RootSignature
from .validation import RegisterRange

__all__ = ["BINDINGS", "GROUP", "webgpu_bindings", "DEFAULT_MAX_BINDINGS_PER_BIND_GROUP"]

GROUP = 3  # gpuia's resource group (gpuia.hlsl.frontend.CBV_GROUP)
DEFAULT_MAX_BINDINGS_PER_BIND_GROUP = 1000  # WebGPU's guaranteed maxBindingsPerBindGroup


@dataclass(frozen=True)
class _ClassBinding:
    buffer: str  # WebGPU's buffer binding type
    limit: str  # the per-stage limit the bindings count against
    fits: Callable[[int, int], bool]
    binding: Callable[[int, int], int]
    bound: str  # what gpuia binds of the class, for a refusal


BINDINGS = {
    "b": _ClassBinding("uniform", "max_uniform_buffers_per_shader_stage",
                       lambda reg, space: space == 0 and reg < CONSTANT_BUFFER_SLOTS,
                       lambda reg, space: reg,
                       f"root constant buffers b0..b{CONSTANT_BUFFER_SLOTS - 1} of space0"),
    "t": _ClassBinding("read-only-storage", "max_storage_buffers_per_shader_stage",
                       lambda reg, space: space < SRV_SPACES and reg < SRV_SLOTS,
                       srv_binding,
                       f"buffer SRVs t0..t{SRV_SLOTS - 1} of space0..space{SRV_SPACES - 1}"),
}
"""Register class -> how gpuia binds it in WebGPU."""


def _root_constants(rs: RootSignature, holder: RegisterRange) -> int | None:
    p = rs.parameters[holder.parameter]
    return p.num_32bit_values if p.type == PARAMETER_TYPES["32bit_constants"] else None


def webgpu_bindings(rs: RootSignature, covered: list[tuple[ShaderBinding, RegisterRange]],
                    limits: dict[str, int], own_uniform: int = 1, label: str = "the adapter",
                    ) -> list[dict]:
    """One row per covered register (``covered``: :func:`.coverage.cover`'s result), checked
    against ``limits`` (WebGPU limit name in snake_case -> value; a limit left out is not
    checked, ``max_bindings_per_bind_group`` defaults to WebGPU's 1000); ``own_uniform``: the
    uniform buffers gpuia's own program binds in the same stage (plus one for the SRV views
    when there are SRVs)."""
    rows: list[dict] = []
    count = {"uniform": own_uniform, "read-only-storage": 0}
    for b, holder in covered:
        rule = BINDINGS.get(b.register_class)
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
            if not rule.fits(reg, b.space):
                raise UnsupportedError(f"{b.label}: register {b.register_class}{reg} of "
                                       f"space{b.space} has no WebGPU binding in gpuia "
                                       f"({rule.bound})")
            count[rule.buffer] += 1
            rows.append({"register": f"{b.register_class}{reg}", "space": b.space,
                         "name": b.name, "root": holder.where, "held_by": holder.kind,
                         "group": GROUP, "binding": rule.binding(reg, b.space),
                         "buffer": rule.buffer, "limit": rule.limit})
    if count["read-only-storage"]:
        count["uniform"] += 1  # gpuia's uniform array of the SRVs' views
    checks = [(BINDINGS["b"].limit, count["uniform"]),
              (BINDINGS["t"].limit, count["read-only-storage"])]
    for name, used in checks:
        if name in limits and used > limits[name]:
            raise UnsupportedError(
                f"root signature ({rs.origin}): the covered registers take {used} bindings "
                f"counted by {name.replace('_', '-')} (gpuia's own uniform blocks included), "
                f"more than {label}'s {limits[name]}")
    most = limits.get("max_bindings_per_bind_group", DEFAULT_MAX_BINDINGS_PER_BIND_GROUP)
    highest = max((int(r["binding"]) for r in rows), default=-1)
    if highest >= most:
        raise UnsupportedError(f"root signature ({rs.origin}): binding {highest} of "
                               f"@group({GROUP}) passes {label}'s max-bindings-per-bind-group "
                               f"{most}")
    return rows
