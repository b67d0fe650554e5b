"""The formats a typed buffer view (D3D12_BUFFER_SRV with a Format) may have.

Guaranteed: :func:`view_format` gives the format table's row of a view's format, checked as
D3D12 checks a typed buffer SRV's Format and, when the shader's value kind is known, against
it. Refused: a format D3D12 does not take for a buffer SRV (typeless, sRGB, depth,
block-compressed, sub-byte, shared-exponent, packed-pair, UNKNOWN; InvalidDescError with the
reason), one gpuia's format table does not decode (UnsupportedError), and a format whose values
are not the shader's kind (InvalidDescError).
"""

from __future__ import annotations

import re

from ..errors import InvalidDescError, UnsupportedError
from .formats import VERTEX_FORMATS, FormatInfo, UnknownFormatError, canonical_format_name

__all__ = ["view_format"]

# Formats D3D12 takes for no buffer SRV, by what their name shows, with the reason (checked in
# order; the D3D12 format support tables' Buffer column).
_NOT_BUFFER = (
    (r"^BC\d", "a block-compressed format has no buffer view"),
    (r"^(D\d|R24G8|R32G8X24|R24_UNORM_X8|X24_|X32_|R32_FLOAT_X8X24)",
     "a depth or depth-stencil format has no buffer view"),
    (r"_TYPELESS$", "a view needs a fully typed format"),
    (r"_SRGB$", "a buffer view has no sRGB formats"),
    (r"^R1_UNORM$", "an element of a buffer view is a whole number of bytes"),
    (r"^(R9G9B9E5|R8G8_B8G8|G8R8_G8B8)", "a shared-exponent or packed-pair format has no "
                                          "buffer view"),
    (r"^UNKNOWN$", "a typed view names its format"),
)


def view_format(value, shader_type: str | None, where: str, field: str = "Format"
                ) -> FormatInfo:
    """The table row of a typed view's format (any form ``canonical_format_name`` takes), checked
    for a buffer SRV whose shader reads values of ``shader_type`` (``float``, ``uint`` or
    ``sint``; None: not checked yet; see the module docstring for what is refused)."""
    try:
        name = canonical_format_name(value)
    except UnknownFormatError as e:
        raise InvalidDescError(where, field, value, str(e)) from None
    for pattern, reason in _NOT_BUFFER:
        if re.search(pattern, name):
            raise InvalidDescError(where, field, name, f"D3D12 refuses it for a typed buffer "
                                                       f"SRV: {reason}")
    fmt = VERTEX_FORMATS.get(name)
    if fmt is None:
        raise UnsupportedError(f"{where}: {field}={name!r}: gpuia's format table "
                               f"(gpuia.d3d.formats) does not decode it; a typed buffer view "
                               f"takes the Input Assembler's 47 formats")
    if shader_type is not None and fmt.shader_type != shader_type:
        raise InvalidDescError(where, field, name,
                               f"its values are {fmt.shader_type} and the shader reads "
                               f"{shader_type}: D3D12 leaves a typed load of another return "
                               f"type undefined (float for UNORM, SNORM and FLOAT formats, "
                               f"uint for UINT, int for SINT)")
    return fmt
