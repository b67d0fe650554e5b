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
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Fix", "FIXES", "fix"]


@dataclass(frozen=True)
class Fix:
    """One correction of Slang's output for ``target``: ``pattern`` (a regular expression over
    the emitted text) becomes ``replacement`` (a template, or a function of the match)."""

    target: str
    pattern: re.Pattern
    replacement: str | Callable[[re.Match], str]
    why: str


_LITERAL = re.compile(r"\b([ui]32)\((\d+)\)")
_VECTOR_ARGS = re.compile(r"^(vec[2-4]<[ui]32>\()(.*)\)$")


def _masked_literal(m: re.Match) -> str:
    """``T(k)`` as ``T(k & 31)``: D3D takes a shift count's low five bits (rules 12.3)."""
    return f"{m.group(1)}({int(m.group(2)) & 31})"


def _shift_amount(m: re.Match) -> str:
    """A shift whose amount is a literal, or a vector built of literals and other components:
    each literal masked to its low five bits (the other components WGSL masks when it runs)."""
    amount = m.group(2)
    vector = _VECTOR_ARGS.match(amount)
    if vector is None:
        return f"{m.group(1)} ({_LITERAL.sub(_masked_literal, amount)})"
    parts = vector.group(2).split(", ")
    parts = [_LITERAL.sub(_masked_literal, p) if _LITERAL.fullmatch(p) else p for p in parts]
    return f"{m.group(1)} ({vector.group(1)}{', '.join(parts)}))"


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
    Fix("cpp", re.compile(r"uint32_t U32_asint\(int32_t x\)\s*\{\s*return uint32_t\(x\);"),
        "int32_t U32_asint(uint32_t x) { return int32_t(x);",
        "the C++ prelude's asint of a uint (U32_asint) returns uint32_t, so what uses it "
        "computes unsigned: asint(0x80000001u) >> 31 shifted in zeros (1, not -1) where "
        "HLSL's asint gives an int (ishr: -1); the same bits as int32_t are asint's"),
    Fix("wgsl", re.compile(r"(<<|>>) \(((?:[ui]32\(\d+\))|(?:vec[2-4]<[ui]32>\((?:[^()]|"
                           r"\([^()]*\))*\)))\)"),
        _shift_amount,
        "a shift by a constant count of 32 or more (x << 33u, v << uint2(n, 32u)): D3D shifts "
        "by the count's low five bits (ishl/ushr, rules 12.3) and Slang emits the count as "
        "written, which naga refuses ('Shift amount exceeds the bit width'); a count WGSL "
        "computes at run time it masks itself. Masking each literal count to its low five "
        "bits gives D3D's value"),
)
"""Every correction, by target."""


def fix(code: str, target: str) -> str:
    """``code`` that Slang emitted for ``target``, with every :data:`FIXES` row of that target
    applied."""
    for f in FIXES:
        if f.target == target:
            code = f.pattern.sub(f.replacement, code)
    return code
