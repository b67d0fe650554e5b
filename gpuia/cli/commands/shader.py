"""``gpuia shader FILE [--entry NAME] [--stage STAGE] [--json]``: what a shader declares: its
stage, shader model and signatures as D3D12_SIGNATURE_PARAMETER_DESC rows, and a geometry
shader's declarations, for a compiled container (DXBC from FXC, DXIL from DXC) or an HLSL file
(through gpuia's Slang front end). Readable text by default, the ``gpuia_shader`` JSON document
(docs/case-format.md, "Command line additions") with ``--json``.

Exit status: 0, or 2 after one ``error:`` line (a file that cannot be read, is not a shader, is a
truncated or inconsistent container, naming the chunk and the byte offset, or HLSL that does
not compile).
"""

from __future__ import annotations

import json

from ...errors import GpuiaError
from ...harness.shader_info import HLSL_STAGES, describe_file, shader_text
from ..common import EXIT_INVALID, EXIT_OK, error_line

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    p = subparsers.add_parser(
        "shader", help="print a shader's stage, shader model and signatures: a DXBC or DXIL "
                       "container (.cso) or an HLSL file")
    p.add_argument("file", metavar="FILE", help="a compiled shader (DXBC, DXIL) or HLSL source")
    p.add_argument("--entry", metavar="NAME", default=None,
                   help="HLSL only: the entry point (default main)")
    p.add_argument("--stage", choices=HLSL_STAGES, default=None,
                   help="HLSL only: the stage to compile the entry point for (default: "
                        "geometry with [maxvertexcount], else vertex, pixel when it writes "
                        "SV_Target or SV_Depth)")
    p.add_argument("--json", action="store_true", help="the gpuia_shader JSON document")
    return p


def run(args) -> int:
    try:
        doc = describe_file(args.file, args.entry, args.stage)
    except (GpuiaError, OSError, MemoryError) as exc:
        # the file's name leads the line, once (a read error already starts with it)
        error_line("shader" if str(exc).startswith(args.file) else args.file, exc)
        return EXIT_INVALID
    print(json.dumps(doc, indent=1) if args.json else shader_text(doc))
    return EXIT_OK
