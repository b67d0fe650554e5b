"""A texture's texels as the shader sees them: every level decoded by the reference's format
decoder (``gpuia.reference.decode``: UNORM correctly rounded, half floats widened exactly,
missing components (0, 0, 0, 1), rules 2.11 as for vertex elements).

Guaranteed by :func:`decode_texels`: (n, 4) uint32 bit patterns, one row per texel of every
level of every array slice, tightly packed as the data holds them (D3D12's subresource order);
refused (InvalidDescError) when the data is not exactly that many texels.
"""

from __future__ import annotations

import numpy as np

from ..d3d.formats import format_info
from ..d3d.textures import mip_offsets
from ..errors import InvalidDescError
from .decode import decode_elements

__all__ = ["decode_texels"]


def decode_texels(format_name: str, data: bytes, width: int, height: int, levels: int,
                  array_size: int, where: str = "texture", depth: int = 1) -> np.ndarray:
    """The texels of ``data`` (every level of every slice, level 0 first; a 3D texture's
    levels of ``max(1, depth >> level)`` planes) decoded."""
    fmt = format_info(format_name)
    count = mip_offsets(width, height, levels, array_size, depth)[-1]
    if len(data) != count * fmt.size:
        raise InvalidDescError(where, "data", f"{len(data)} bytes",
                               f"a {width}x{height}x{depth} {fmt.name} texture of {levels} "
                               f"levels and "
                               f"{array_size} slices holds {count} texels of {fmt.size} bytes: "
                               f"{count * fmt.size} bytes")
    elements = np.frombuffer(bytes(data), np.uint8).reshape(count, fmt.size)
    return decode_elements(fmt, elements, np.empty((count, 4), np.uint32))
