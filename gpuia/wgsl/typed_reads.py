"""The decode function of a typed buffer SRV's reads (``Buffer<T>``: ``gpuia.hlsl.typed_buffers``)
and its specialisation to the format of the view a draw binds.

:func:`decode_switch` writes ``gpuia_tb_decode<index>(f, b, inside)``: a ``switch`` over the
DXGI value ``f`` with a case per format of the element's kind, so a shader's WGSL reads any of
them (the value comes from gpuia's views uniform at the draw). Compiling every case costs a
software adapter seconds per program (lavapipe's LLVM builds each of them, four times in a
Stream Output pass: docs/benchmarks.md), so the GPU side builds its programs from
:func:`specialise`'s text instead: each typed view's switch holds only the case of the format
bound to it, and the programs are keyed by those formats (docs/resources.md).

Guaranteed: a specialised function returns, for the value it keeps, exactly what the full
switch returns (its case's text is the same; ``f`` is still read from the uniform and any other
value reads zero, as before); every other line of the module is unchanged. Refused
(ValueError, naming the index and value): a view whose function is not in the text, a value
that has no case there (the draw checks each view's format against the element's kind first).
"""

from __future__ import annotations

__all__ = ["decode_switch", "specialise"]

_CASE = "        case "  # each case starts a line at this indent; its last line is _END
_END = "        }\n"
_DEFAULT = "        default: { return vec4<u32>(); }\n"


def _header(index: int) -> str:
    return (f"fn gpuia_tb_decode{index}(f : u32, b : u32, inside : bool) -> vec4<u32>\n{{\n"
            f"    switch f {{\n")


def decode_switch(index: int, cases) -> str:
    """``gpuia_tb_decode<index>``: for each ``(DXGI value, format name, body lines)`` of
    ``cases`` a case running those lines (each ends in a return); any other value reads zero."""
    out = [_header(index)]
    for value, name, lines in cases:
        body = "".join(f"            {line}\n" for line in lines)
        out.append(f"{_CASE}{value}u: {{ // {name}\n{body}{_END}")
    return "".join(out) + _DEFAULT + "    }\n}"


def specialise(code: str, formats) -> str:
    """``code`` with each typed view's switch cut to the case of its format: ``formats`` is
    ``(index, DXGI value)`` per typed view read (see the module docstring)."""
    for index, value in formats:
        head = _header(index)
        start = code.find(head)
        end = code.find(_DEFAULT, start)
        if start < 0 or end < 0:
            raise ValueError(f"typed view {index}: no decode function in the program")
        body = code[start + len(head):end]
        want = f"{value}u: "
        kept = [c for c in body.split(_CASE)[1:] if c.startswith(want)]
        if len(kept) != 1:
            raise ValueError(f"typed view {index}: the shader's element has no case for "
                             f"format value {value}")
        code = code[:start] + head + _CASE + kept[0] + code[end:]
    return code
