"""WGSL generation, as text only: shader signatures with D3D semantics, the vertex programs of
each path (composed in :mod:`gpuia.wgsl.program` from :mod:`~gpuia.wgsl.fetch`,
:mod:`~gpuia.wgsl.vertex` and :mod:`~gpuia.wgsl.capture`), the pixel entry point, the Stream
Output compute program and the blocks the host and the shaders share (:mod:`~gpuia.wgsl.blocks`).
The text these are made of is the shader files of the top-level ``shaders/`` folder, read
through :func:`gpuia.util.resources.shader_text`."""

from .capture import CaptureRoute
from .program import ProgramSpec, load_shader_source, vertex_program
from .signature import (
                        ShaderSignature,
                        parse_vertex_shader,
                        pass_through_shader,
                        pass_through_signature,
)

__all__ = ["ProgramSpec", "vertex_program", "load_shader_source", "CaptureRoute",
           "ShaderSignature", "parse_vertex_shader", "pass_through_shader",
           "pass_through_signature"]
