"""A ``Texture1DArray`` in HLSL source, rewritten as the ``Texture2DArray`` of height 1 gpuia
binds it as (rules 17.8).

Slang's WGSL target has no 1D array texture (its compile of a Texture1DArray's ``Load`` and
``SampleLevel`` fails), so gpuia rewrites the source before both its compiles (the WGSL and the
CPU reference's C++): the texture is declared a ``Texture2DArray<T>`` and each read goes to row
0 of the slice D3D reads. That is D3D's 1D array read exactly: in a dimension of 1 texel every
address mode maps any index to 0, a point tap at v = 0.5 takes row ``floor(0.5 * 1) = 0`` and
linear taps rows 0 and 1 (addressed to 0) at weight 0, and a 2D array's slice is taken from its
float as a 1D array's (rounded to nearest even, clamped: D3D11.3 spec 5.3.6.1; rules 17.3).
Guaranteed, by :func:`lower_texture1d_arrays`, for each ``Name`` the shader declares a
``Texture1DArray``:

* ``Name.Load(int3(x, slice, mip))`` -> ``Name.Load(int4(x, 0, slice, mip))`` (a Load's texel
  offset is lowered before, ``gpuia.hlsl.load_offsets``: u only);
* ``Name.SampleLevel(s, float2(u, slice), lod[, offset])`` and ``SampleCmpLevelZero(s,
  float2(u, slice), reference[, offset])`` -> the same with ``float3(u, 0.5, slice)`` and the
  offset ``int2(offset, 0)`` (no offset on the array axis, rules 17.11);
* ``Name[uint2(x, slice)]`` -> ``Name[uint3(x, 0, slice)]``;
* ``Name.GetDimensions(w, elements)`` and ``(mip, w, elements, levels)``, of ``uint`` or
  ``float`` outputs, -> a helper that calls the 2D array's and drops its height of 1.

The coordinate helpers take the argument as written (any expression of the right type), so
lines and every other character are kept; the helpers are added after the declaration, on its
line. Refused (InvalidDescError naming the texture and rules 17.8): a Texture1DArray used
other than by these (passed to a function, another method), one declared with others in one
statement.
"""

from __future__ import annotations

import re

from ..errors import InvalidDescError
from . import includes
from .call_args import argument_spans

__all__ = ["lower_texture1d_arrays"]

# The coordinate helpers (one set for the shader): a 1D array's location -> the 2D array's
_HELPERS = (
    "int4 gpuia_1da_load(int3 l) { return int4(l.x, 0, l.y, l.z); } "
    "float3 gpuia_1da_uv(float2 l) { return float3(l.x, 0.5, l.y); } "
    "uint3 gpuia_1da_at(uint2 l) { return uint3(l.x, 0u, l.y); } ")
# GetDimensions of one texture NAME: the 1D array's overloads through the 2D array's
_DIMS = (
    "void gpuia_1da_dims_NAME(out uint w, out uint e) { uint h; NAME.GetDimensions(w, h, e); } "
    "void gpuia_1da_dims_NAME(uint m, out uint w, out uint e, out uint n) "
    "{ uint h; NAME.GetDimensions(m, w, h, e, n); } "
    "void gpuia_1da_dims_NAME(uint m, out float w, out float e, out float n) "
    "{ float h; NAME.GetDimensions(m, w, h, e, n); } ")
_RULE = ("gpuia binds a Texture1DArray as a Texture2DArray of height 1, reading it by Load, "
         "[], SampleLevel, SampleCmpLevelZero and GetDimensions only (rules 17.8)")


def _declaration(code: str, name: str, what: str) -> re.Match:
    m = re.search(rf"(?<!\w)Texture1DArray(\s*<[^<>;]*>)?\s+{re.escape(name)}(?!\w)([^;]*);",
                  code)
    # another name in the statement (a comma outside register(...)'s parentheses)
    if m is None or "," in re.sub(r"\([^()]*\)", "", m.group(2)):
        raise InvalidDescError(what, f"resource {name}", "Texture1DArray",
                               "declare each Texture1DArray in a statement of its own: " + _RULE)
    return m


def _read(text: str, code: str, name: str, at: int, what: str) -> tuple[int, int, str]:
    """The replacement (start, end, new text) of the use of ``name`` at ``at``."""
    m = re.compile(r"\s*(?:\.\s*(\w+)\s*\(|\[)").match(code, at + len(name))
    if m is None:
        raise InvalidDescError(what, f"resource {name}", None, _RULE)
    spans, end, _ = argument_spans(code, m.end() - 1)
    arg = [text[a:b] for a, b in spans]
    method = m.group(1)
    if method is None:  # Name[uint2(x, slice)]
        return m.end(), end - 1, f"gpuia_1da_at({arg[0]})"
    if method == "Load" and len(arg) == 1:
        return m.end(), end - 1, f"gpuia_1da_load({arg[0]})"
    if method in ("SampleLevel", "SampleCmpLevelZero") and len(arg) in (3, 4):
        off = f", int2({arg[3]}, 0)" if len(arg) == 4 else ""
        return m.end(), end - 1, f"{arg[0]}, gpuia_1da_uv({arg[1]}), {arg[2]}{off}"
    if method == "GetDimensions" and len(arg) in (2, 4):
        return at, end - 1, f"gpuia_1da_dims_{name}({', '.join(arg)}"
    raise InvalidDescError(what, f"resource {name}", f"{method}({len(arg)} arguments)", _RULE)


def lower_texture1d_arrays(text: str, names, what: str) -> str:
    """``text`` with each Texture1DArray of ``names`` a Texture2DArray of height 1 and its
    reads rewritten as the module docstring says; lines kept."""
    if not names:
        return text
    code = includes.mask(text)
    decls = {name: _declaration(code, name, what) for name in sorted(names)}
    first = min(d.end() for d in decls.values())  # the coordinate helpers after the first
    edits: list[tuple[int, int, str]] = [(first, first, " " + _HELPERS)]
    for name, decl in decls.items():
        edits.append((decl.start(), decl.start() + len("Texture1DArray"), "Texture2DArray"))
        edits.append((decl.end(), decl.end(), " " + _DIMS.replace("NAME", name)))
        for u in re.finditer(rf"(?<![\w.]){re.escape(name)}(?!\w)", code):
            if decl.start() <= u.start() < decl.end():
                continue
            edits.append(_read(text, code, name, u.start(), what))
    out, at = [], 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < at:  # a read inside another's arguments: rewritten from the inside out
            raise InvalidDescError(what, "Texture1DArray", text[start:end].strip(),
                                   "gpuia rewrites a Texture1DArray read whose arguments hold "
                                   "no other such read (rules 17.8)")
        out.append(text[at:start] + new)
        at = end
    return "".join(out) + text[at:]
