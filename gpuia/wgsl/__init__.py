"""WGSL generation: shader signatures with D3D semantics and the vertex programs of each path."""

from .program import ProgramSpec, load_shader_source, vertex_program
from .signature import (ShaderSignature, parse_vertex_shader, pass_through_shader,
                        pass_through_signature)

__all__ = ["ProgramSpec", "vertex_program", "load_shader_source", "ShaderSignature",
           "parse_vertex_shader", "pass_through_shader", "pass_through_signature"]
