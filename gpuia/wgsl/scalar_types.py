"""The WGSL scalar type of each shader type: the one table gpuia's WGSL code reads.

A shader type is what the format table and shader signatures call the scalar kind of a value a
shader sees (:attr:`gpuia.d3d.formats.FormatInfo.shader_type`,
:attr:`gpuia.d3d.signature.Member.type`): ``float``, ``uint`` or ``sint``. WGSL spells them
``f32``, ``u32`` and ``i32``; the signature parser reads that spelling back, and every generator
writes it, from this table.
"""

from __future__ import annotations

__all__ = ["WGSL_SCALAR", "SHADER_TYPE"]

WGSL_SCALAR: dict[str, str] = {"float": "f32", "uint": "u32", "sint": "i32"}
"""Shader type -> WGSL scalar type."""

SHADER_TYPE: dict[str, str] = {wgsl: shader for shader, wgsl in WGSL_SCALAR.items()}
"""WGSL scalar type -> shader type (the inverse of :data:`WGSL_SCALAR`)."""
