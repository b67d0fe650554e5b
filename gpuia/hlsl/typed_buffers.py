"""Typed buffer SRVs (``Buffer<T>``) of an HLSL vertex shader, read as D3D12 reads them.

A typed view (D3D12_BUFFER_SRV with a Format) is an array of elements of a DXGI format, each
decoded to the shader's ``T`` (a scalar or vector of float, int or uint) on every read. Slang
has no WGSL for ``Buffer<T>`` (docs/resources.md), so gpuia lowers it:

* the source: :func:`lower_source` turns each ``Buffer<T> name`` declaration into a
  ``StructuredBuffer<T> name`` (same line, so Slang's diagnostics keep the user's lines), a
  typed UAV's ``RWBuffer<T> name`` into a ``RWStructuredBuffer<T> name`` (its view's format
  stores T's bits: ``gpuia.d3d.uav_formats``; T of 1, 2 or 4 components), and
  adds a one-argument ``GetDimensions(count)`` to structured buffers; both targets (WGSL and the
  CPU reference's C++) compile that text;
* the GPU: :func:`wgsl_helpers` makes the WGSL storage buffer an ``array<u32>`` of the view's
  raw words and reads element ``i`` through the vertex-pulling path's exact channel decoders
  (``gpuia.wgsl.fetch``, a ``switch`` case per format over the DXGI value in gpuia's views
  uniform, beside the byte size, first element and count), bounds-checked against the view;
  the GPU side builds its programs for the bound formats (:mod:`gpuia.wgsl.typed_reads`);
* the CPU reference: :func:`cpu_elements` decodes the view's bytes with the reference's numpy
  decoder (``gpuia.reference.decode``) into an array of ``T`` the C++ reads as a structured
  buffer (a read past it is a zero element, ``gpuia.hlsl.cpu_views``).

Guaranteed, as D3D12: the format's channels converted as the Input Assembler converts them
(UNORM, SNORM, FLOAT, 16-bit float, UINT, SINT, packed; rules 2.2-2.10), components the format
lacks read as 0 for g and b and 1 (of the format's type) for a (rules 2.11, D3D11.3 spec
19.1.3.3, which typed loads share), ``T`` taking the first components; a read past NumElements
returns 0 in the format's components and those defaults in the others, as the Input
Assembler's out-of-bounds fetch does (rules 6.1): Microsoft's ``ld`` (sm4 - asm), the typed
load, "returns 0 in all non-missing components of the format of the srcResource, and the
default for missing components"; ``GetDimensions(count)`` gives NumElements.

Refused, naming the resource or field: ``T`` other than a 1- to 4-component float, int or uint
(:func:`element_of`); an array of typed buffers or a declaration gpuia cannot find in the
source text (one a macro makes; :func:`lower_source`); a view format D3D12 does not take for a
buffer SRV (typeless, sRGB, depth, block-compressed, sub-byte, video, shared-exponent) or gpuia's
format table lacks, and a format whose values are not ``T``'s kind (a UINT format read as
float: D3D12's debug layer reports the return type mismatch, the values are undefined;
:func:`view_format`).
"""

from __future__ import annotations

import re

import numpy as np

from ..d3d.formats import VERTEX_FORMATS, FormatInfo
from ..errors import InvalidDescError
from ..wgsl.storage_types import shader_type_of
from . import includes

__all__ = ["TYPED_SHAPE", "used_names", "lower_source", "element_of", "cpu_elements",
           "wgsl_helpers", "wgsl_decoders"]

TYPED_SHAPE = "textureBuffer"  # Slang's reflection of a Buffer<T>

# HLSL scalar of T -> (the format's shader type, WGSL scalar); one row per kind a view decodes.
_SCALARS = {"float": ("float", "f32"), "int": ("sint", "i32"), "uint": ("uint", "u32"),
            "dword": ("uint", "u32")}

def element_of(hlsl_type: str, where: str, what: str) -> tuple[str, int]:
    """(the scalar, 1-4 components) of ``T`` as the declaration spells it (``float4``,
    ``uint``; ``Buffer`` without ``<T>``, which Slang refuses before, would be ``float4``)."""
    m = re.fullmatch(r"(float|int|uint|dword)([1-4]?)", hlsl_type.strip())
    if m is None:
        raise InvalidDescError(what, where, hlsl_type,
                               "gpuia binds Buffer<T> for T a float, int or uint scalar or "
                               "vector of 1 to 4 components")
    return m.group(1), int(m.group(2) or 1)


def used_names(reflection: dict) -> set[str]:
    """The typed buffers the entry reads, by Slang's reflection of the user's source."""
    typed = {p.get("name") for p in reflection.get("parameters", [])
             if p.get("type", {}).get("baseShape") == TYPED_SHAPE}
    return {b.get("name") for entry in reflection.get("entryPoints", [])[:1]
            for b in entry.get("bindings", [])
            if b.get("name") in typed and b.get("binding", {}).get("used")}


_DECLARATION = re.compile(r"(?<![\w.:])(RW)?Buffer\b(\s*<\s*([^<>;]*?)\s*>)?\s*(\w+)\s*(\[)?")


def lower_source(text: str, names, what: str) -> str:
    """``text`` with every ``Buffer<T>`` declaration a ``StructuredBuffer<T>`` (see the module
    docstring); ``names``: the typed buffers the entry reads (Slang's reflection), each of which
    must be declared in the text on its own, not as an array."""
    names = set(names)
    if not names:
        return text
    code = includes.mask(text)
    out, at, found = [], 0, set()
    for m in _DECLARATION.finditer(code):
        rw, element, name = m.group(1) or "", m.group(3) or "float4", m.group(4)
        if name in names:
            if m.group(5):
                raise InvalidDescError(what, f"resource {name}", "array",
                                       "gpuia binds typed buffers one by one, not arrays of them")
            _, n = element_of(element, f"resource {name}", what)
            if rw and n == 3:  # R32G32B32 elements are 12 bytes, WGSL's array of vec3 16
                raise InvalidDescError(what, f"resource {name}", f"RWBuffer<{element}>",
                                       "gpuia binds a typed UAV of 1, 2 or 4 components (a "
                                       "3-component element is 12 bytes in the view, 16 in "
                                       "WGSL's storage array)")
            found.add(name)
        out.append(text[at:m.start()] + rw + "StructuredBuffer<" + element + "> ")
        at = m.start(4)
    missing = sorted(names - found)
    if missing:
        raise InvalidDescError(what, f"resource {missing[0]}", None,
                               "gpuia lowers a typed buffer from its declaration "
                               "'Buffer<T> name' in the source text (one made by a macro, or "
                               "several names in one declaration, are not found)")
    # A typed buffer's one-argument GetDimensions, on the structured buffer it becomes (at the
    # end: Slang's declarations need no order, and the user's lines stay where they were).
    return "".join(out) + text[at:] + "".join(
        f"\nextension<T> {rw}StructuredBuffer<T> {{ void GetDimensions(out uint gpuia_count) "
        f"{{ uint gpuia_stride; this.GetDimensions(gpuia_count, gpuia_stride); }} }}\n"
        for rw in ("", "RW"))


def cpu_elements(fmt: FormatInfo, data: bytes, components: int) -> bytes:
    """The view's bytes (whole elements of ``fmt``) decoded with the CPU reference's decoder
    into ``components`` 32-bit values per element (the first of the four D3D delivers), then
    the element a read past the view returns: a zero element's, 0 in the format's components
    and the missing ones' defaults (the CPU reference's view reads it past its count,
    ``gpuia.hlsl.cpu_views``)."""
    from ..reference.decode import decode_elements

    n = len(data) // fmt.size
    data = bytes(data[:n * fmt.size]) + bytes(fmt.size)
    elements = np.frombuffer(data, np.uint8).reshape(n + 1, fmt.size)
    out = decode_elements(fmt, elements, np.empty((n + 1, 4), np.uint32))
    return np.ascontiguousarray(out[:, :components]).astype("<u4").tobytes()


# The vertex-pulling decoders under names of their own (a pulled draw's program includes them
# under gpuia's names too).
_DECODER_NAMES = re.compile(r"\bgpuia_(unorm|sext|snorm|small_float|half|ufloat)\b")


def _own(text: str) -> str:
    return _DECODER_NAMES.sub(r"gpuia_tb_\1", text)


def wgsl_decoders() -> str:
    """The channel decoders every typed buffer's helper calls (once per program)."""
    from ..util.resources import shader_text

    return _own(shader_text("ia_decode.wgsl"))


def wgsl_helpers(index: int, var: str, element: str) -> str:
    """``gpuia_srv_load<index>(i) -> element``: element ``i`` of the typed view at
    ``gpuia_srv_views[index]`` (x: first element, y: count, z: the format's DXGI value, w: its
    byte size) read from the words of ``var`` (an ``array<u32>``) and decoded; past the view,
    the format's out-of-bounds value. Every format of the element's kind has a case of
    ``gpuia_tb_decode<index>`` (:func:`gpuia.wgsl.typed_reads.decode_switch`); another reads
    zero (never bound: the draw checks the format). The GPU side compiles the text
    :func:`gpuia.wgsl.typed_reads.specialise` makes of it: the bound format's case alone."""
    from ..wgsl.fetch import format_decode, format_out_of_bounds, load_function
    from ..wgsl.typed_reads import decode_switch

    kind, n = shader_type_of(element)
    scalar = _SCALARS[{"sint": "int"}.get(kind, kind)][1]
    bits = "bits" if scalar == "u32" else f"bitcast<vec4<{scalar}>>(bits)"
    value = bits if n == 4 else f"{bits}.{'xyz'[:n]}"
    cases = []
    for fmt in VERTEX_FORMATS.values():
        if fmt.shader_type != kind:
            continue
        # An element of 4, 8, 12 or 16 bytes starts at a multiple of 4 ((first + i) * size):
        # one load per word, as the unaligned form's own aligned branch reads. (It also keeps
        # lavapipe 22.3 from crashing, "stack smashing detected", on a program specialised to
        # a multi-word format read through the unaligned form: docs/resources.md.)
        word = f"gpuia_tb_{'a' if fmt.size % 4 == 0 else ''}word{index}"
        loads = [f"let w{k} = {word}(b + {4 * k}u);" for k in range(fmt.words)]
        lines, result = format_decode(fmt)
        outside = f"if (!inside) {{ return {format_out_of_bounds(fmt)}; }}"
        cases.append((fmt.dxgi_value, fmt.name,
                      [outside, *loads, *map(_own, lines), f"return {result};"]))
    return "\n".join([
        load_function(f"gpuia_tb_word{index}", var),
        load_function(f"gpuia_tb_aword{index}", var, aligned=True),
        decode_switch(index, cases),
        f"fn gpuia_srv_load{index}(i : u32) -> {element}\n{{\n"
        f"    let v = gpuia_srv_views[{index}];\n"
        f"    // D3D: a read past the view is 0 in the format's components, the missing ones'\n"
        f"    // defaults in the others (ld); no address is formed for it\n"
        f"    let inside = i < v.y;\n"
        f"    let bits = gpuia_tb_decode{index}(v.z, select(0u, (v.x + i) * v.w, inside), "
        f"inside);\n"
        f"    return {value};\n}}"])
