"""HLSL shaders through Slang's compiler library (the ``hlsl`` extra), and DXBC shaders
translated to HLSL (:func:`compile_dxbc`: Debian's vkd3d-compiler and spirv-cross)."""

from .cbuffer_pack import pack_constant_buffer
from .dxbc import compile_dxbc
from .frontend import HlslShader, compile_shader, reflect_entry
from .geometry import HlslGeometryShader, compile_geometry_shader

__all__ = ["HlslShader", "compile_shader", "reflect_entry", "HlslGeometryShader",
           "compile_geometry_shader", "pack_constant_buffer", "compile_dxbc"]
