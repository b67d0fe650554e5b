"""HLSL shaders through Slang's compiler library (the ``hlsl`` extra)."""

from .frontend import HlslShader, compile_shader

__all__ = ["HlslShader", "compile_shader"]
