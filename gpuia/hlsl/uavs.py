"""Buffer unordered access views an HLSL vertex shader writes and reads, bounded as D3D12.

gpuia binds ``RWStructuredBuffer<T>`` (``[i]`` read and written, ``Load``, ``GetDimensions``),
``RWByteAddressBuffer`` (``Load``, ``Load2/3/4``, ``Store``, ``Store2/3/4``, ``GetDimensions``) and
the typed ``RWBuffer<T>`` (``[i]`` read and written, ``Load``, ``GetDimensions(count)``; its view's
format T's components in 32-bit channels, ``gpuia.d3d.uav_formats``) at ``register(uN, spaceS)`` of
a vertex shader (N below 64, S below 7, at most 8 of them: ``gpuia.d3d.uav_bindings``);
``gpuia.hlsl.srv`` reflects them with the SRVs (a :class:`~gpuia.hlsl.srv.ShaderResource` with
``writable``) and reads them through the same bounds-checked functions. Guaranteed, in the WGSL
:func:`guard_writes` makes of Slang's: every write ``U[i]... = v;`` (a whole element, a member, a
raw word) happens only for ``i`` inside the view, at the view's first element plus ``i``: a write
past the view is dropped, as D3D12 drops it (docs/rules.md 18); a raw ``Store4`` is four word
writes, each checked on its own.

Refused, naming the resource: an atomic operation on it (``InterlockedAdd`` and the rest): its
result depends on how many times the GPU runs each vertex, which D3D leaves open, so no CPU
reference value exists to compare it with (docs/resources.md); a write Slang emits other than as a
statement ``U[i]... = v;``; a UAV in a pixel or geometry shader; more than 8 UAVs; a register past
u63 or a space past 6.
"""

from __future__ import annotations

import re

from ..errors import InvalidDescError

__all__ = ["is_bound_uav", "guard_writes", "refuse_atomics", "refuse_atomics_in_source",
           "UAV_KINDS", "PLACEHOLDER"]

# a typed RWBuffer<T> is lowered to a RWStructuredBuffer<T> (gpuia.hlsl.typed_buffers) and bound
# with a format whose conversion is the identity (gpuia.d3d.uav_formats)
UAV_KINDS = {"structuredBuffer": "structured", "byteAddressBuffer": "raw",
             "textureBuffer": "typed"}
PLACEHOLDER = "gpuia_uav_target"  # a guarded write's name for the UAV until every read is moved


def is_bound_uav(param: dict) -> bool:
    """Whether a reflection parameter is a kind of UAV gpuia binds (in a vertex shader)."""
    t = param.get("type", {})
    return t.get("kind") == "resource" and t.get("baseShape") in UAV_KINDS and \
        t.get("access") == "readWrite" and \
        param.get("binding", {}).get("kind") == "unorderedAccess"


_ATOMICS_REASON = ("an Interlocked* operation on a UAV in a vertex shader: its result depends on "
                   "how many times the GPU runs each vertex (a post-transform cache, gpuia's own "
                   "passes), which D3D leaves open, so no reference value exists to compare; "
                   "gpuia binds UAVs whose writes are plain stores (docs/resources.md)")


def refuse_atomics_in_source(reflection: dict, text: str, what: str) -> None:
    """Refuse an ``Interlocked*`` call on a UAV of the entry in the user's (prepared) source
    ``text``, before Slang's WGSL compile refuses it with no reason (an atomic in a vertex
    stage): ``U.InterlockedAdd(...)`` or ``InterlockedAdd(U[i]..., ...)``."""
    from .includes import mask

    code = mask(text)
    for p in reflection.get("parameters", []):
        if not is_bound_uav(p):
            continue
        name = re.escape(p["name"])
        if re.search(rf"\b{name}\s*\.\s*Interlocked\w*\s*\(|\bInterlocked\w*\s*\(\s*{name}\b",
                     code):
            raise InvalidDescError(what, f"resource {p['name']}", "atomic operation",
                                   _ATOMICS_REASON)


def refuse_atomics(code: str, var: str, name: str, what: str) -> None:
    """Refuse an atomic operation on the UAV ``var`` of Slang's WGSL (an ``atomic`` element,
    or a pointer to one of its elements handed to a function)."""
    decl = re.search(rf"var\s*<\s*storage\s*,\s*read_write\s*>\s*{re.escape(var)}\s*:\s*([^;]+);",
                     code)
    if (decl and "atomic" in decl.group(1)) or re.search(rf"&\s*\(?\s*{re.escape(var)}\s*\[",
                                                         code):
        raise InvalidDescError(what, f"resource {name}", "atomic operation", _ATOMICS_REASON)


def _bracket_end(code: str, at: int) -> int:
    """The index after the ``]`` closing the ``[`` just before ``at``."""
    depth, k = 1, at
    while depth and k < len(code):
        depth += {"[": 1, "]": -1}.get(code[k], 0)
        k += 1
    return k


def guard_writes(code: str, var: str, views: str, index: int, name: str, what: str) -> str:
    """Slang's WGSL with every write to the UAV ``var`` (a statement ``var[i]<path> op= v;``)
    made only when ``i`` is inside the view ``views[index]`` (x: first element, y: count), at
    element x + i; the written name is :data:`PLACEHOLDER` + ``index`` (restored by the caller
    once the reads are rewritten)."""
    out, at = [], 0
    start = re.compile(rf"^([ \t]*){re.escape(var)}\s*\[", re.M)
    while True:
        m = start.search(code, at)
        if m is None:
            break
        close = _bracket_end(code, m.end())
        line_end = code.find("\n", close)
        line_end = len(code) if line_end < 0 else line_end
        rest = code[close:line_end]
        w = re.match(r"((?:\s*\.\s*\w+|\s*\[[^\]=]*\])*)\s*((?:[-+*/%&|^]|<<|>>)?=)(?!=)(.*);\s*$",
                     rest)
        if w is None:
            raise InvalidDescError(what, f"resource {name}", None,
                                   "Slang's WGSL writes it other than by a statement "
                                   "U[i] = v; gpuia cannot bound that write")
        i = f"gpuia_uav_i{index}"
        out.append(code[at:m.start()] +
                   f"{m.group(1)}{{ let {i} = u32({code[m.end():close - 1]}); "
                   f"if ({i} < {views}[{index}].y) {{ "
                   f"{PLACEHOLDER}{index}[{views}[{index}].x + {i}]{w.group(1)} {w.group(2)}"
                   f"{w.group(3)}; }} }}")
        at = line_end
    return "".join(out) + code[at:]
