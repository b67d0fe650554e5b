"""Vertex pulling: the WGSL that reads each input element from storage buffers as D3D would.

Every pulled slot is a ``var<storage, read> array<vec4<u32>>`` (group 1); several slots may share
one binding (an arena buffer). Each element gets a fetch function ``gpuia_fetch_<element>(vi,
ii) -> vec4<u32>`` that

* picks the vertex or instance index by the element's classification and step rate (rules
  4.3; rate 0: every instance reads the draw's first instance's data, rate N: instance
  ``first + (ii - first) / N``);
* bounds the element as D3D12 does, the whole element against the view's SizeInBytes (rules
  6.3): an unbound slot reads (0, 0, 0, 0) (6.2), an element not wholly inside the view reads 0
  for the format's components and the (0, 0, 0, 1) fill for the others (6.1);
* loads its little-endian words: one load per word when every address the draw uses is a
  multiple of 4, two loads and a funnel shift otherwise (any stride, view offset and element
  offset D3D accepts), one 128-bit load for a 16-byte element at a 16-byte address;
* decodes every channel exactly with one template per channel kind of the format table
  (``shaders/ia_decode.wgsl`` holds the decoders), and swizzles.

On adapters whose storage gathers are slow, a slot whose every fetch of the draw WebGPU's vertex
fetch does exactly takes its raw words through ``uint32`` vertex attributes instead (the
attribute form, decided by :func:`gpuia.gpu.vertex.plan.fetch_forms`): its elements get
``gpuia_words_<element>(r)``, the same decode of the words, without bounds (the draw is inside
the view) or index arithmetic (the vertex fetch's own).

The functions' text is in the shader files ``fetch_element.wgsl``, ``fetch_words.wgsl``,
``fetch_load.wgsl`` and ``fetch_load_aligned.wgsl`` (:func:`gpuia.util.resources.shader_text`);
this module fills in each element's numbers and expressions.

The result is the four 32-bit patterns D3D delivers to the shader. The slot's base, stride,
SizeInBytes and bound flag are per-draw uniforms (:mod:`gpuia.wgsl.draw_block`), so a program
never depends on them.
"""

from __future__ import annotations

from typing import cast

from ..d3d.formats import ONE_BITS, Channel, FormatInfo
from ..d3d.layout import InputLayout, ResolvedElement
from ..util.resources import shader_text
from .text import wgsl_comment_text

__all__ = ["load_function", "fetch_function", "fetch_call", "pulling_lines", "format_decode",
           "format_out_of_bounds", "ATTRIBUTE_FORMATS", "attribute_locations",
           "attribute_parameters", "words_function"]

ATTRIBUTE_FORMATS = {1: ("uint32", "u32"), 2: ("uint32x2", "vec2<u32>"),
                     3: ("uint32x3", "vec3<u32>"), 4: ("uint32x4", "vec4<u32>")}
"""Words of an element -> (WebGPU vertex format, WGSL type) of the attribute that delivers them
raw: the ``uint32`` formats convert nothing, so the shader sees the buffer's little-endian
words as storage loads would."""

# One decode template per channel kind: (32 bits wide, narrower). ``{c}`` is the channel's raw
# bits, ``{n}`` its width. Padding channels (kind ``x``) are never decoded.
_CHANNEL_DECODE = {
    "un": ("gpuia_unorm({c}, {n}u)", "gpuia_unorm({c}, {n}u)"),
    "sn": ("gpuia_snorm({c}, {n}u)", "gpuia_snorm({c}, {n}u)"),
    "u": ("{c}", "{c}"),
    "s": ("{c}", "gpuia_sext({c}, {n}u)"),
    "f": ("{c}", "gpuia_half({c})"),
    "uf": ("gpuia_ufloat({c}, {n}u)", "gpuia_ufloat({c}, {n}u)"),
}


def _channel_bits(ch: Channel) -> str:
    """The channel's raw bits out of its word ``w<word>``: shifted down, masked when other
    channels (or other elements' bytes) sit above it."""
    w = f"w{ch.word}"
    if ch.shift:
        w = f"({w} >> {ch.shift}u)"
    if ch.shift + ch.bits < 32:
        w = f"({w} & 0x{ch.mask:x}u)"
    return w


def _decode_lines(fmt: FormatInfo) -> tuple[list[str], str]:
    """(``let c<i> = ...`` per decoded channel, the swizzled ``vec4<u32>`` result)."""
    lines: list[str] = []
    values: list[str | None] = []
    for i, ch in enumerate(fmt.channels):
        if ch.kind == "x":
            values.append(None)
            continue
        template = _CHANNEL_DECODE[ch.kind][0 if ch.bits == 32 else 1]
        lines.append(f"let c{i} = {template.format(c=_channel_bits(ch), n=ch.bits)};")
        values.append(f"c{i}")
    one = f"{ONE_BITS[fmt.shader_type]}u"
    # The swizzle reads only channels the format has (never a padding one's None).
    comps = [("0u" if s == "0" else one if s == "1" else cast(str, values["xyzw".index(s)]))
             for s in fmt.swizzle]
    return lines, f"vec4<u32>({', '.join(comps)})"


def format_decode(fmt: FormatInfo) -> tuple[list[str], str]:
    """(``let c<i> = ...`` per channel, the swizzled ``vec4<u32>``) decoding the format's words
    ``w0``.. exactly, the (0, 0, 0, 1) fill included (rules 2.11): what a fetch function and a
    typed buffer SRV's read (``gpuia.hlsl.typed_buffers``) both decode with."""
    return _decode_lines(fmt)


def format_out_of_bounds(fmt: FormatInfo) -> str:
    """The ``vec4<u32>`` a read outside the data gives: 0 for the format's components, the
    (0, 0, 0, 1) fill for the others (rules 6.1; a typed buffer load's, ``ld``, too)."""
    return _out_of_bounds_value(fmt)


def _out_of_bounds_value(fmt: FormatInfo) -> str:
    """Out of bounds: 0 for the format's components, the (0, 0, 0, 1) fill for the others."""
    one = f"{ONE_BITS[fmt.shader_type]}u"
    return f"vec4<u32>({', '.join(one if s == '1' else '0u' for s in fmt.swizzle)})"


def attribute_locations(layout: InputLayout, attributes: frozenset) -> dict[int, int]:
    """Element index -> ``@location`` of the elements of the slots in ``attributes`` (the
    attribute form): numbered from 0 in element order, so they stay under the adapter's
    vertex attribute count whatever the elements' indices."""
    return {e.index: j for j, e in enumerate(
        e for e in layout.elements if e.slot in attributes)}


def attribute_parameters(layout: InputLayout, attributes: frozenset) -> list[str]:
    """``gpuia_vs``'s parameters for the attribute form: ``@location(<l>) r<element>`` of the
    element's words' WGSL type (:data:`ATTRIBUTE_FORMATS`) per element of those slots."""
    locations = attribute_locations(layout, attributes)
    return [f"@location({loc}) r{e.index}: {ATTRIBUTE_FORMATS[e.format.words][1]}"
            for e in layout.elements if (loc := locations.get(e.index)) is not None]


def words_function(e: ResolvedElement) -> str:
    """``gpuia_words_<element>(r) -> vec4<u32>``: element ``e``'s decode of the raw words ``r``
    a vertex attribute delivered (the attribute form: the draw's fetches are inside the view,
    so no bound is checked here), the same decoders as :func:`fetch_function`'s."""
    fmt = e.format
    lines, result = _decode_lines(fmt)
    loads = (["let w0 = r;"] if fmt.words == 1 else
             [f"let w{k} = r.{'xyzw'[k]};" for k in range(fmt.words)])
    return shader_text("fetch_words.wgsl", ELEMENT=e.index, SEMANTIC=wgsl_comment_text(e.key),
                       FORMAT=fmt.name, OFFSET=e.offset, SLOT=e.slot,
                       WORDS=ATTRIBUTE_FORMATS[fmt.words][1], LOADS="\n".join(loads),
                       DECODE="\n".join(lines), RESULT=result)


def fetch_call(e: ResolvedElement, vertex: str = "vi", instance: str = "ii",
               attributes: frozenset = frozenset()) -> str:
    """The expression calling element ``e``'s fetch function with WGSL expressions for the vertex
    index (SV_VertexID plus the draw's base) and the instance index (plus its start); for an
    element of a slot in ``attributes``, its :func:`words_function` on the entry point's
    ``r<element>`` parameter."""
    if e.slot in attributes:
        return f"gpuia_words_{e.index}(r{e.index})"
    return f"gpuia_fetch_{e.index}({vertex}, {instance})"


def fetch_function(e: ResolvedElement, binding: int, aligned16: bool = False,
                   slot_entry: int | None = None) -> str:
    """The fetch function of element ``e``: its slot's constants are
    ``gpuia_draw.slots[slot_entry]`` (default: ``binding``), its words come through
    ``gpuia_load_<slot_entry>`` from ``gpuia_vb_<binding>`` (several slots share binding 0 when
    pulled from one arena). ``aligned16``: the slot's view offset and stride are multiples of 16,
    so a 16-byte element at an offset multiple of 16 is one 128-bit load."""
    slot_entry = binding if slot_entry is None else slot_entry
    fmt = e.format
    if e.per_instance:
        rate = e.step_rate
        index = ("gpuia_draw.first_instance" if rate == 0 else
                 f"gpuia_draw.first_instance + (ii - gpuia_draw.first_instance) / {rate}u")
    else:
        index = "vi"
    if aligned16 and fmt.words == 4 and e.offset % 16 == 0:
        loads = [f"let v = gpuia_vb_{binding}[b >> 4u];",
                 "let w0 = v.x;", "let w1 = v.y;", "let w2 = v.z;", "let w3 = v.w;"]
    else:
        loads = [f"let w{k} = gpuia_load_{slot_entry}(b + {4 * k}u);" for k in range(fmt.words)]
    lines, result = _decode_lines(fmt)
    # The semantic name is the user's text: escaped, so that no character of it ends the
    # comment (a line break) or the program (a NUL).
    return shader_text("fetch_element.wgsl", ELEMENT=e.index, SEMANTIC=wgsl_comment_text(e.key),
                       FORMAT=fmt.name, OFFSET=e.offset, SLOT=e.slot, ENTRY=slot_entry,
                       INDEX=index, SIZE=fmt.size, OUT_OF_BOUNDS=_out_of_bounds_value(fmt),
                       LOADS="\n".join(loads), DECODE="\n".join(lines), RESULT=result)


def load_function(name: str, array: str, aligned: bool = False, vec4: bool = False) -> str:
    """``fn name(b: u32) -> u32``: the little-endian word at any byte address of ``array``
    (two loads and a funnel shift when unaligned; reads clamp to the array, and callers bound
    their addresses first). ``aligned``: every address the draw uses is a multiple of 4 (view
    offset, stride and element offsets all are), so one load does. ``vec4``: the array is
    ``array<vec4<u32>>`` (gpuia's vertex buffers), words are its components."""
    def word(i):
        return f"{array}[{i} >> 2u][{i} & 3u]" if vec4 else f"{array}[{i}]"

    if aligned:
        return shader_text("fetch_load_aligned.wgsl", NAME=name, WORD_W=word("w"))
    length = f"arrayLength(&{array}) * 4u" if vec4 else f"arrayLength(&{array})"
    return shader_text("fetch_load.wgsl", NAME=name, LENGTH=length, WORD_W=word("w"),
                       WORD_W1=word("w1"))


def pulling_lines(layout: InputLayout, pulled_slots: tuple[tuple[int, int], ...],
                  aligned: frozenset = frozenset(),
                  aligned16: frozenset = frozenset(),
                  attributes: frozenset = frozenset()) -> list[str]:
    """Storage bindings (group 1), the channel decoders and fetch functions
    ``gpuia_fetch_<element>(vi, ii)`` for every element of the layout, pulled from the given
    (slot, binding) pairs; the j-th pair's constants are ``gpuia_draw.slots[j]``. Slots in
    ``aligned`` are read with single word loads (see :func:`load_function`); 16-byte elements
    of slots in ``aligned16`` (view offset, stride and element offset multiples of 16) with one
    128-bit load. Elements of slots in ``attributes`` get a :func:`words_function` instead of a
    fetch function. Every slot of the layout must be among ``pulled_slots``."""
    slot_entry = {slot: j for j, (slot, _) in enumerate(pulled_slots)}
    bindings = dict(pulled_slots)
    out = [f"@group(1) @binding({b}) var<storage, read> gpuia_vb_{b}: array<vec4<u32>>;"
           for b in sorted(set(bindings.values()))]
    out.append(shader_text("ia_decode.wgsl"))
    for slot, binding in pulled_slots:
        out.append(load_function(f"gpuia_load_{slot_entry[slot]}", f"gpuia_vb_{binding}",
                                 slot in aligned, vec4=True))
    for e in layout.elements:
        out.append(words_function(e) if e.slot in attributes else
                   fetch_function(e, bindings[e.slot], e.slot in aligned16, slot_entry[e.slot]))
    return out
