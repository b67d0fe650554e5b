"""Slang's emitted code, corrected where its back ends emit invalid code for valid HLSL.

Slang 2026.12 (the build gpuia is verified with) lowers a few valid constructs to text its own
targets refuse. Where the intent is plain and one exact correction exists, gpuia applies it to
the emitted code (:data:`FIXES`, one row per defect: the target, the pattern Slang emits, its
replacement, and why they mean the same); :func:`gpuia.hlsl.library.compile_source` applies them
to every compile of that target. Anything else Slang emits wrongly is left as it is, and naga
refuses the WGSL when the shader is compiled (``gpuia.hlsl.frontend``), at the user's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Fix", "FIXES", "fix"]


@dataclass(frozen=True)
class Fix:
    """One correction of Slang's output for ``target``: ``pattern`` (a regular expression over
    the emitted text) becomes ``replacement``."""

    target: str
    pattern: re.Pattern
    replacement: str
    why: str


FIXES: tuple[Fix, ...] = (
    Fix("wgsl", re.compile(r"\(mat([2-4])x([2-4])<f32>\(0\) - "), "(-1.0f * ",
        "unary minus on a matrix (-M) is emitted as (matCxR<f32>(0) - M), a constructor WGSL "
        "does not have (a matrix from one scalar; naga: 'cannot cast a {AbstractInt} to a "
        "mat'). -1.0 * M negates every element exactly, as D3D's negation does (-0 for +0; "
        "0 - M would give +0)"),
    Fix("cpp", re.compile(r"result\[i\]\.rows\[i\]\[j\] = op thisVal\.rows\[i\]\[j\];"),
        "result.rows[i][j] = op thisVal.rows[i][j];",
        "the C++ prelude's unary operators on a matrix (-M, !M, ~M: SLANG_MATRIX_UNARY_OP) index "
        "a Vector's rows and do not compile; the binary operators' macro of the same prelude "
        "writes result.rows[i][j]"),
)
"""Every correction, by target."""


def fix(code: str, target: str) -> str:
    """``code`` that Slang emitted for ``target``, with every :data:`FIXES` row of that target
    applied."""
    for f in FIXES:
        if f.target == target:
            code = f.pattern.sub(f.replacement, code)
    return code
