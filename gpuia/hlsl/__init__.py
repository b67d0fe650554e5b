"""HLSL shaders through Slang's compiler library (the ``hlsl`` extra)."""

from .cbuffer_pack import pack_constant_buffer
from .frontend import HlslShader, compile_shader, reflect_entry
from .geometry import HlslGeometryShader, compile_geometry_shader

__all__ = ["HlslShader", "compile_shader", "reflect_entry", "HlslGeometryShader",
           "compile_geometry_shader", "pack_constant_buffer"]
