"""HLSL shaders through Slang's compiler library (the ``hlsl`` extra), and DXBC shaders
translated to HLSL (:func:`compile_dxbc`: Debian's vkd3d-compiler and spirv-cross).

The names below are imported on first use (PEP 562): a process that only checks WGSL cases,
or reads a typed buffer's format table, never loads the front end's modules (about 40 ms of
every start)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names are, for type checkers and readers
    from .cbuffer_pack import pack_constant_buffer
    from .dxbc import compile_dxbc
    from .frontend import HlslShader, compile_shader, reflect_entry
    from .geometry import HlslGeometryShader, compile_geometry_shader

__all__ = ["HlslShader", "compile_shader", "reflect_entry", "HlslGeometryShader",
           "compile_geometry_shader", "pack_constant_buffer", "compile_dxbc"]

# Each public name and the module that defines it.
_HOME = {"HlslShader": "frontend", "compile_shader": "frontend", "reflect_entry": "frontend",
         "HlslGeometryShader": "geometry", "compile_geometry_shader": "geometry",
         "pack_constant_buffer": "cbuffer_pack", "compile_dxbc": "dxbc"}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
