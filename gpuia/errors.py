"""Exceptions raised by gpuia.

Every rejection of user input is a :class:`GpuiaError`. Input that Direct3D itself would reject
(``E_INVALIDARG`` from ``CreateInputLayout``, ``CreateGraphicsPipelineState`` or a draw) raises
:class:`InvalidDescError`, which is also a :class:`ValueError`; its message names the element,
the field, the value and the rule. Case files that are not well formed raise :class:`CaseError`.
"""

from __future__ import annotations


class GpuiaError(Exception):
    """Base class of every exception gpuia raises on purpose."""


class InvalidDescError(GpuiaError, ValueError):
    """A descriptor, binding or draw that D3D12 would reject (E_INVALIDARG).

    ``where`` locates the offending item (``"element 2 (TEXCOORD0)"``, ``"draw 0"``), ``field`` is
    the D3D field name, ``value`` the value given and ``rule`` the violated rule in words.
    """

    def __init__(self, where: str, field: str | None, value: object, rule: str):
        self.where = where
        self.field = field
        self.value = value
        self.rule = rule
        parts = [where]
        if field is not None:
            parts.append(f"{field}={value!r}")
        super().__init__(f"{': '.join(parts)}: {rule}")


class CaseError(GpuiaError, ValueError):
    """A case file that cannot be read: bad JSON, a missing key, a wrong type or bad data."""

    def __init__(self, where: str, rule: str):
        self.where = where
        self.rule = rule
        super().__init__(f"{where}: {rule}")


class UnsupportedError(GpuiaError, NotImplementedError):
    """Valid D3D input that no gpuia path can run on the chosen backend or adapter."""


class DeviceLostError(GpuiaError, RuntimeError):
    """The GPU device was lost (destroyed, reset or removed): nothing more runs on it; create a
    new :class:`gpuia.gpu.Device`."""


class GpuOutOfMemoryError(GpuiaError, MemoryError):
    """The adapter could not allocate what a call needed (buffer, texture, pipeline)."""
