"""``gpuia formats``: print the DXGI vertex format table gpuia decodes: per format its size,
alignment, components, shader type, channels, swizzle and WebGPU vertex format (or "vertex
pulling" where WebGPU has none). Exit status 0."""

from __future__ import annotations

from ...harness.report.text import formats_table
from ..common import EXIT_OK

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    return subparsers.add_parser("formats", help="print the DXGI vertex format table")


def run(args) -> int:
    print(formats_table())
    return EXIT_OK
