"""The element types of the storage buffers Slang's WGSL declares for buffer SRVs.

A buffer SRV of an HLSL shader is, in Slang's WGSL, a storage buffer of a runtime array
(``array<T>``). Guaranteed: :func:`element_type` gives ``T``'s text; :func:`shader_type_of` the
shader type (``float``, ``uint`` or ``sint``, :data:`gpuia.wgsl.scalar_types.SHADER_TYPE`) and
component count of a scalar or vector ``T``. Refused (InvalidDescError): any other text.
"""

from __future__ import annotations

import re

from ..errors import InvalidDescError
from .scalar_types import SHADER_TYPE

__all__ = ["element_type", "shader_type_of"]


def element_type(type_text: str) -> str:
    """``T`` of Slang's ``array<T>`` for a buffer SRV."""
    m = re.fullmatch(r"array\s*<\s*(.+?)\s*>", type_text)
    if m is None:
        raise InvalidDescError("vertex shader", "WGSL", type_text,
                               "gpuia expected Slang's runtime array for a buffer SRV")
    return m.group(1)


def shader_type_of(wgsl_element: str) -> tuple[str, int]:
    """(``float``, ``uint`` or ``sint``, component count) of a typed buffer's element as
    Slang's WGSL declares it (``vec4<f32>``, ``u32``)."""
    m = re.fullmatch(r"(?:vec([234])<(\w+)>|(\w+))", wgsl_element.replace(" ", ""))
    if m is None or (m.group(2) or m.group(3)) not in SHADER_TYPE:
        raise InvalidDescError("vertex shader", "WGSL", wgsl_element,
                               "gpuia expected a typed buffer of f32, i32 or u32 values")
    return SHADER_TYPE[m.group(2) or m.group(3)], int(m.group(1) or 1)
