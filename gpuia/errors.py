"""Exceptions raised by gpuia.

Every rejection of user input is a :class:`GpuiaError`. Input that Direct3D itself would reject
(``E_INVALIDARG`` from ``CreateInputLayout``, ``CreateGraphicsPipelineState`` or a draw) raises
:class:`InvalidDescError`, which is also a :class:`ValueError`; its message names the element,
the field, the value and the rule. Case files that are not well formed raise :class:`CaseError`.
"""

from __future__ import annotations


class GpuiaError(Exception):
    """Base class of gpuia's own exceptions. Refusals of user input and adapter failures are
    GpuiaErrors, except where a docstring names a plain ``ValueError``, ``TypeError`` or
    ``KeyError`` (an enumeration's ``of()``, the numpy helpers, lookups by key)."""

    case_name: str | None = None  # the case's name, on errors load_case raises


class InvalidDescError(GpuiaError, ValueError):
    """A descriptor, binding or draw that D3D12 would reject (E_INVALIDARG), or an argument
    gpuia refuses before it reaches wgpu. Also a ``ValueError``.

    The message is ``where: field=value: rule`` (``where: rule`` without a field), and the
    four parts stay readable as attributes of the same names. An HLSL shader that Slang
    refuses also carries Slang's diagnostics, mapped to the user's lines, as ``diagnostics``;
    an error raised by :func:`gpuia.harness.case.load_case` carries the case's name as
    ``case_name``.

    Arguments:
        where (str): locates the offending item (``"element 2 (TEXCOORD0)"``, ``"draw 0"``).
        field (str): the D3D field name (``"AlignedByteOffset"``), or None.
        value: the value given (shown with ``repr``).
        rule (str): the violated rule in words, citing ``rules N.M`` where one applies.
    """

    diagnostics: str | None = None  # set on an HLSL shader's refusal (see above)

    def __init__(self, where: str, field: str | None, value: object, rule: str):
        self.where = where
        self.field = field
        self.value = value
        self.rule = rule
        parts = [where]
        if field is not None:
            parts.append(f"{field}={value!r}")
        super().__init__(f"{': '.join(parts)}: {rule}")


class ContainerError(InvalidDescError):
    """A compiled shader container (DXBC or DXIL) that cannot be read: truncated, inconsistent
    (an offset, count or size past its chunk or the file, a name outside its chunk) or not a
    shader container at all. An :class:`InvalidDescError`, so also a ``ValueError``.

    The message is ``CHUNK at byte OFFSET: rule``; ``chunk`` (``"header"``, ``"chunk 2 (OSGN)"``)
    and ``offset`` (from the start of the file) stay readable as attributes.

    Arguments:
        chunk (str): the part of the container (``"header"``, ``"chunk 2 (OSGN)"``).
        offset (int): the byte offset of the problem, from the start of the file.
        rule (str): what is wrong, in words.
    """

    def __init__(self, chunk: str, offset: int, rule: str):
        self.chunk = chunk
        self.offset = offset
        super().__init__(f"{chunk} at byte {offset}", None, None, rule)


class CaseError(GpuiaError, ValueError):
    """A case file that cannot be read: bad JSON, a missing key, a wrong type or bad data.
    Also a ``ValueError``.

    The message is ``where: rule``; both parts stay readable as attributes. An error raised by
    :func:`gpuia.harness.case.load_case` carries the case's name as ``case_name``.

    Arguments:
        where (str): where in the case (``input_layout[2].Format``, ``vertex_buffers[0].data``).
        rule (str): what is wrong, in words.
    """

    def __init__(self, where: str, rule: str):
        self.where = where
        self.rule = rule
        super().__init__(f"{where}: {rule}")


class UnsupportedError(GpuiaError, NotImplementedError):
    """Valid D3D input that no gpuia path can run on the chosen backend or adapter, with the
    reason; also a missing tool or adapter that a run needs. Also a ``NotImplementedError``."""


class DeviceLostError(GpuiaError, RuntimeError):
    """The GPU device was lost (destroyed, reset or removed): nothing more runs on it; create a
    new :class:`gpuia.gpu.Device`. Also a ``RuntimeError``."""


class GpuOutOfMemoryError(GpuiaError, MemoryError):
    """The adapter could not allocate what a call needed (buffer, texture, pipeline). Also a
    ``MemoryError``."""
