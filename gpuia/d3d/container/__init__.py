"""Compiled shader containers: what a DXBC (FXC) or DXIL (DXC) blob declares, read in pure
Python: the header, checksum and chunk table (:mod:`.chunks`, :mod:`.checksum`), the signatures
as D3D12_SIGNATURE_PARAMETER_DESC rows (:mod:`.signatures`), and the program's stage, shader
model and geometry shader declarations (:mod:`.program`); :func:`read_container` composes them
into a :class:`ShaderContainer` (:mod:`.reader`). A container that cannot be read raises
:class:`~gpuia.errors.ContainerError` naming the chunk and the byte offset.

The program's code is not decoded; :mod:`.declarations` reads a DXBC program's constant buffer
and resource declarations, which drawing a DXBC shader needs (``gpuia.hlsl.dxbc``,
docs/compiled-shaders.md).
"""

from __future__ import annotations

from .program import GeometryDeclarations
from .reader import ShaderContainer, read_container
from .signatures import SignatureParameter

__all__ = ["GeometryDeclarations", "ShaderContainer", "SignatureParameter", "read_container"]
