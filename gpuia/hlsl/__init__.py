"""HLSL shaders through Slang's compiler library (the ``hlsl`` extra)."""

from .frontend import HlslShader, compile_shader
from .geometry import HlslGeometryShader, compile_geometry_shader

__all__ = ["HlslShader", "compile_shader", "HlslGeometryShader", "compile_geometry_shader"]
