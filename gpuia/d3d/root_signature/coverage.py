"""A shader's registers against a root signature, as CreateGraphicsPipelineState checks them
(docs/rules.md 16.9).

The shader's side is a plain list of :class:`ShaderBinding` (register class ``b``, ``t``, ``u``
or ``s``, first register, space, count, and the kind of resource), so that any reader of a
shader's resources can supply it. Guaranteed: :func:`cover` returns, per binding, the
:class:`~.validation.RegisterRange` that holds all its registers, of its class and visible to
the stage. Refused with an :class:`~gpuia.errors.InvalidDescError` naming the register and the
closest range of the root signature: a binding no range holds whole; a texture or typed buffer
SRV, a typed UAV or a UAV with a counter on a root descriptor (which holds raw and structured
buffers only); any binding of a stage the root signature denies root access
(``DENY_*_SHADER_ROOT_ACCESS``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InvalidDescError
from .model import REGISTER_CLASS, ROOT_FLAGS, UINT_MAX, VISIBILITIES, RootSignature
from .validation import RegisterRange, register_ranges

__all__ = ["ShaderBinding", "cover", "ROOT_DESCRIPTOR_KINDS"]

_TYPE_OF_CLASS = {letter: name for name, letter in REGISTER_CLASS.items()}
ROOT_DESCRIPTOR_KINDS = {"b": None, "t": {"structured", "raw"}, "u": {"structured", "raw"}}
"""The kinds of resource a root descriptor of each class can hold (None: any): D3D12's root
SRV and UAV descriptors are buffer addresses without a format or counter, so a ``texture``
or a ``typed`` buffer (``Buffer<T>``) must sit in a descriptor table. A sampler has no root
descriptor: a SAMPLER range of a table or a static sampler holds it."""


@dataclass(frozen=True)
class ShaderBinding:
    """Registers a shader uses: ``register_class`` ``b``/``t``/``u``/``s``, the first
    ``register``, its ``space``, ``count`` registers (an array's length), ``kind``
    (``cbuffer``, ``structured``, ``raw``, ``typed``, ``texture``, ``sampler``, ``counter``,
    ...), the shader's ``name`` for it, for a cbuffer its ``size`` in bytes and, where the
    shader's compile numbers it (a texture: ``gpuia.d3d.textures.texture_binding``), its
    WebGPU ``binding`` (None: the register's, :mod:`.webgpu`)."""

    register_class: str
    register: int
    space: int = 0
    count: int = 1
    kind: str = ""
    name: str = ""
    size: int = 0  # a cbuffer's bytes as D3D packs them (0: not known)
    binding: int | None = None

    @property
    def label(self) -> str:
        regs = f"{self.register_class}{self.register}"
        if self.count > 1:
            regs += f"..{self.register_class}{self.register + self.count - 1}"
        return f"{self.name + ' ' if self.name else ''}(register {regs}, space{self.space})"


def _closest(b: ShaderBinding, ranges: list[RegisterRange]) -> str:
    """The range nearest to the binding's registers, to name in a refusal."""
    same = [r for r in ranges if r.type == _TYPE_OF_CLASS[b.register_class]]
    if not same:
        return f"the root signature binds no {_TYPE_OF_CLASS[b.register_class].upper()} " \
               f"register"

    def distance(r: RegisterRange) -> tuple[int, int]:
        gap = 0 if r.first <= b.register <= r.last else \
            min(abs(r.first - b.register), abs(b.register - r.last))
        return (r.space != b.space, gap)

    return f"the closest is {min(same, key=distance).describe()}"


def cover(rs: RootSignature, bindings: list[ShaderBinding], stage: str = "vertex",
          what: str = "vertex shader") -> list[tuple[ShaderBinding, RegisterRange]]:
    """Each binding with the range that holds it (see the module docstring)."""
    visibility = VISIBILITIES[stage]
    deny = ROOT_FLAGS.get(f"deny_{stage}_shader_root_access", 0)
    if bindings and rs.flags & deny:
        raise InvalidDescError(f"{what}: {bindings[0].label}", "Flags",
                               f"DENY_{stage.upper()}_SHADER_ROOT_ACCESS",
                               f"the {what} binds resources but the root signature "
                               f"({rs.origin}) denies its stage root access (rules 16.9)")
    ranges = register_ranges(rs)
    out = []
    for b in bindings:
        kind = _TYPE_OF_CLASS[b.register_class]
        last = b.register + b.count - 1
        holder = next((r for r in ranges if r.type == kind and r.space == b.space
                       and r.visibility in (0, visibility)
                       and r.first <= b.register and last <= min(r.last, UINT_MAX)), None)
        if holder is None:
            raise InvalidDescError(f"{what}: {b.label}", None, None,
                                   f"no {kind.upper()} range of the root signature "
                                   f"({rs.origin}) visible to the {stage} stage holds it; "
                                   f"{_closest(b, ranges)} (rules 16.9)")
        allowed = ROOT_DESCRIPTOR_KINDS.get(b.register_class)
        if holder.kind == "root descriptor" and allowed is not None and b.kind not in allowed:
            raise InvalidDescError(f"{what}: {b.label}", "kind", b.kind or kind,
                                   f"{holder.describe()} is a root descriptor, which holds raw "
                                   f"and structured buffers only (rules 16.9)")
        out.append((b, holder))
    return out
