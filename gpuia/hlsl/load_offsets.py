"""A texture ``Load(location, offset)`` in HLSL source, lowered to the ``Load(location)`` it is
(rules 17.11).

Slang's WGSL target has no ``Load`` with a texel offset (its compile refuses the feature), so
gpuia adds the offset to the location in the source before both its compiles (the WGSL and the
CPU reference's C++): D3D's ``ld`` with ``aoffimmi`` adds the immediate offsets to the integer
texel coordinates of the level read, never to the level or an array's slice (D3D11.3 spec
22.4.6), and a texel moved outside the level reads 0 as any other (rules 17.1). Guaranteed, by
:func:`lower_load_offsets`, for each ``Name.Load(location, offset)`` of a ``Texture1D``
(``int`` offset; a ``Texture1DArray``'s, on u only), ``Texture2D``, ``Texture2DArray``
(``int2``) or ``Texture3D`` (``int3``) the shader declares:
``Name.Load(intN(location) + intN(offset, 0...))``.

Refused (InvalidDescError naming the texture and rules 17.11): an offset that is not integer
literals (``3``, ``int2(1, -2)``: gpuia reads it from the source text, so a named constant is
refused too; a programmable offset D3D's ``ld`` does not take), a value outside [-8, 7], the
wrong number of components.
"""

from __future__ import annotations

import re

from ..errors import InvalidDescError
from . import includes
from .call_args import argument_spans

__all__ = ["lower_load_offsets", "reflected_textures", "OFFSET_RANGE"]

OFFSET_RANGE = (-8, 7)  # D3D's 4-bit two's complement immediates (aoffimmi)
# HLSL type -> (the location's vector, the offset's components)
_SHAPES = {"Texture1D": ("int2", 1), "Texture1DArray": ("int3", 1), "Texture2D": ("int3", 2),
           "Texture2DArray": ("int4", 2), "Texture3D": ("int4", 3)}
_LITERALS = re.compile(r"\s*(?:int[23]?\s*\(\s*)?(-?\s*\d+(?:\s*,\s*-?\s*\d+)*)\s*\)?\s*")


def _offset(text: str, name: str, n: int, what: str) -> list[int]:
    m = _LITERALS.fullmatch(text)
    values = [int(v.replace(" ", "")) for v in m.group(1).split(",")] if m else []
    if not m or text.count("(") != text.count(")") or len(values) not in (1, n):
        raise InvalidDescError(what, f"resource {name}", text.strip(),
                               f"Load's texel offset is {n} integer literal(s) here (an "
                               f"immediate: D3D's ld takes no programmable offset, and gpuia "
                               f"reads it from the source text; rules 17.11)")
    values = values * n if len(values) == 1 else values
    if not all(OFFSET_RANGE[0] <= v <= OFFSET_RANGE[1] for v in values):
        raise InvalidDescError(what, f"resource {name}", text.strip(),
                               f"Load's texel offset takes integers in {OFFSET_RANGE[0]}.."
                               f"{OFFSET_RANGE[1]} (rules 17.11)")
    return values


def lower_load_offsets(text: str, textures: dict[str, str], what: str) -> str:
    """``text`` with each ``Load`` with a texel offset of the ``textures`` (name -> HLSL type:
    ``Texture1D``, ``Texture2D``, ``Texture2DArray``, ``Texture3D``) lowered as the module
    docstring says; lines and every other character kept."""
    code = includes.mask(text)
    out, at = [], 0
    for name, kind in textures.items():
        if kind not in _SHAPES:
            continue
        vector, n = _SHAPES[kind]
        size = int(vector[-1])
        for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\s*\.\s*Load\s*\(", code):
            spans, _, _ = argument_spans(code, m.end() - 1)
            if len(spans) != 2:
                continue
            (a0, a1), (b0, b1) = spans
            values = _offset(code[b0:b1], name, n, what)
            added = ", ".join(map(str, values + [0] * (size - n)))
            lines = "\n" * text.count("\n", a1, b1)  # the offset's lines kept
            out.append((a0, b1, f"{vector}({text[a0:a1]}) + {vector}({added}){lines}"))
    pieces = []
    for start, end, new in sorted(out):
        if start < at:  # inside a Load lowered already: its location is kept as written
            raise InvalidDescError(what, "Load", text[start:end].strip(),
                                   "gpuia lowers a Load with a texel offset whose location "
                                   "holds no other such Load (rules 17.11)")
        pieces.append(text[at:start] + new)
        at = end
    return "".join(pieces) + text[at:]


_BASE = {"texture1D": "Texture1D", "texture2D": "Texture2D", "texture3D": "Texture3D"}


def reflected_textures(params: dict[str, dict]) -> dict[str, str]:
    """The read-only, single-sampled textures of Slang's reflection ``params`` (its global
    parameters), name -> HLSL type, for :func:`lower_load_offsets`."""
    out = {}
    for p in params.values():
        t = p.get("type", {})
        base = _BASE.get(t.get("baseShape"))
        # a multisampled texture's second Load argument is a sample index (refused later)
        if t.get("kind") == "resource" and base and t.get("access", "read") == "read" and \
                not t.get("multisample"):
            out[p["name"]] = base + ("Array" if t.get("array") else "")
    return out
