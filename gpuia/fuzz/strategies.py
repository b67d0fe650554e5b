"""Hypothesis strategies that draw random **valid** case files (``docs/case-format.md``).

:func:`cases` draws a case dict that ``gpuia.harness.case.load_case`` must accept: an input layout
over all 47 vertex formats and up to 32 slots (explicit offsets and APPEND_ALIGNED_ELEMENT,
per-vertex and per-instance slots with step rates 0, 1 and N, now and then up to 32 elements),
vertex buffer views with strides 0, natural, exact, unaligned and 2048, unaligned view offsets,
views shorter than the draws need (out of bounds) and unbound slots; buffer bytes built from special
32-bit words (NaN payloads, the infinities, denormals, the SNORM minimum, all-ones, half-float
specials) or random bytes; one to three draws of both kinds with base vertex, start vertex/instance
(values near 2^32 included), every topology, index buffers of both formats with strip cuts, NULL
index views, index views offset by whole indices and index reads past the view; optionally
(``so=True``) a Stream Output declaration with gaps, several output slots, unbound declared slots,
pre-filled targets and small targets that overflow; optionally (``gs=True``) about one case in
three with a geometry shader instead (:mod:`gpuia.fuzz.geometry`).

**Shrinking.** Hypothesis shrinks the sequence of choices behind a case, so the strategy is laid
out to make small choices mean a simple case and to keep every choice where it is when another
one changes:

* optional items (layout elements, draws, SO entries and targets, byte overlays) are a fixed
  number of slots, each with a *present* flag that shrinks to absent and with its fields drawn
  whether present or not (hypothesis 6.170 often fails to delete an item from a list of
  composite items, but always manages to flip a flag);
* each layout element also draws the class of its slot and the recipe of its slot's vertex
  buffer (the first present element of a slot decides), so removing an element does not move
  the buffers of other slots;
* every "now and then" flag is drawn unconditionally, and numbers shrink to 0 or to the natural
  value (stride = the slot's extent rounded up to 4, data that covers every fetch, zero bytes).

Cases stay small (a few dozen vertices, a few instances) so many run per second. Offsets are
resolved here with rules 3.4, independently of gpuia's layout code, so that the
generator does not inherit its mistakes.
"""

from __future__ import annotations

import base64
import functools

from hypothesis import strategies as st

from ..d3d.formats import DXGI_FORMAT_VALUES, INDEX_FORMATS, VERTEX_FORMATS
from .geometry import gs_cases

__all__ = [
    "ALL_FORMATS",
    "MAX_ROWS",
    "SEMANTIC_NAMES",
    "SPECIAL_WORDS",
    "TOPOLOGY_NAMES",
    "WEBGPU_FORMATS",
    "cases",
]

U32 = 1 << 32
MAX_ROWS = 64
"""Most records a generated vertex buffer holds (fetches past it are out of bounds)."""
ELEMENT_SLOTS, DENSE_SLOTS = 8, 32
"""Layout element slots drawn normally, and when the (rare) dense flag is set."""
MAX_INDICES = 48
"""Most index values in a case's index buffer (draws read at most 46)."""

SEMANTIC_NAMES = ("POSITION", "COLOR", "TEXCOORD", "NORMAL", "tangent", "BlendWeight",
                  "SV_Position")
"""Semantic names the layouts use: no trailing digits (they would be part of the name), mixed
case (matching is case-insensitive), and SV_Position, which the pass-through shader forwards."""

ALL_FORMATS = tuple(VERTEX_FORMATS)
WEBGPU_FORMATS = tuple(name for name, row in VERTEX_FORMATS.items() if row.webgpu is not None)
"""The formats a plain case uses: those with a WebGPU vertex format in the table (an adapter or
binding may still lack one; the native path then says so and the case is pulled)."""

TOPOLOGY_NAMES = ("POINTLIST", "LINELIST", "LINESTRIP", "TRIANGLELIST", "TRIANGLESTRIP",
                  "LINELIST_ADJ", "LINESTRIP_ADJ", "TRIANGLELIST_ADJ", "TRIANGLESTRIP_ADJ")

SPECIAL_WORDS = (
    0x00000000,  # zero first: what shrinking moves towards
    0xFFFFFFFF,  # all ones: NaN as float32, max as UINT, -1 as SINT, 0xFFFF cut pieces
    0x7FC00000,  # quiet NaN
    0x7F800001,  # signalling NaN
    0xFFC00123,  # negative NaN with a payload
    0x7F800000,  # +Inf
    0xFF800000,  # -Inf
    0x00000001,  # smallest denormal
    0x807FFFFF,  # largest negative denormal
    0x80000000,  # -0.0, INT_MIN
    0x3F800000,  # 1.0
    0x80808080,  # SNORM8 minimum in every byte
    0x80008000,  # SNORM16 minimum in both halves
    0x81818181,  # SNORM8 -127
    0x7F7F7F7F,  # SNORM8 maximum
    0x7FFF7FFF,  # SNORM16 maximum
    0x7C00FC00,  # half +Inf, -Inf
    0x7E017C01,  # half NaNs
    0x00018001,  # half denormals (positive, negative)
    0x7BFF0400,  # half max, smallest normal
    0x3FF003FF,  # 10-bit fields all ones
    0x7FF00000,  # R11G11B10 exponent patterns
    0xFFFF0000,  # the R16 cut value in the high half
    0x0000FFFF,  # the R16 cut value in the low half
)

_BIG_U32 = (1 << 31) - 1, 1 << 31, U32 - 1, U32 - 40
_BIG_I32 = -(1 << 31), (1 << 31) - 1, -1 << 20, 1 << 20


@functools.cache
def _ints(lo: int, hi: int):
    """``st.integers(lo, hi)``, built once: building strategies costs more than drawing."""
    return st.integers(lo, hi)


@functools.cache
def _one_of(values: tuple):
    """``st.sampled_from(values)``, built once."""
    return st.sampled_from(values)


@functools.cache
def _index_values(count: int):
    """``count`` index codes: 0..20 are indices, 21..23 pick a special value."""
    return st.lists(st.integers(0, 23), min_size=count, max_size=count)


_BOOL = st.booleans()
_ZERO, _NONE = st.just(0), st.just(None)
_WORD_LIST = st.lists(st.sampled_from(SPECIAL_WORDS), min_size=1, max_size=8)
_BYTES = st.binary(min_size=1, max_size=64)


def _rare(draw, one_in: int = 12) -> bool:
    """A flag that is True about once in ``one_in`` draws and shrinks to False."""
    return draw(_ints(0, one_in - 1)) == one_in - 1


_present = _rare  # an optional item's presence flag: shrinks to absent


def _pick(draw, usual, rare_values, one_in: int):
    """A value from ``usual`` (a strategy), now and then one of ``rare_values``."""
    return draw(_one_of(rare_values)) if _rare(draw, one_in) else draw(usual)


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


@st.composite
def _fill_recipe(draw):
    """How to fill a byte buffer of any length (realised by :func:`_fill`): zeros (the shrink
    target), a tiled pattern of special words or of random bytes, then up to three special
    words at chosen positions. The choices do not depend on the length."""
    kind = draw(_ints(0, 2))
    if kind == 0:
        pattern = None
    elif kind == 1:
        words = draw(_WORD_LIST)
        pattern = b"".join(w.to_bytes(4, "little") for w in words)
    else:
        pattern = draw(_BYTES)
    overlays = []
    for _ in range(2):
        present = _present(draw, 4)
        where, word = draw(_ints(0, 1 << 16)), draw(_one_of(SPECIAL_WORDS))
        if present:
            overlays.append((where, word))
    encoding = draw(_ints(0, 2)) if _rare(draw, 6) else 0
    return pattern, overlays, encoding


def _fill(recipe, n: int) -> bytes:
    pattern, overlays, _ = recipe
    if n <= 0:
        return b""
    out = bytearray(n) if pattern is None else bytearray((pattern * (n // len(pattern) + 1))[:n])
    for where, word in overlays:
        pos = where % n
        chunk = word.to_bytes(4, "little")[: n - pos]
        out[pos:pos + len(chunk)] = chunk
    return bytes(out)


def _data_block(recipe, data: bytes) -> dict:
    """A DATA object in one of the case format's encodings (hex unless the recipe says)."""
    if recipe[2] == 1:
        return {"base64": base64.b64encode(data).decode()}
    if recipe[2] == 2:
        return {"dtype": "uint8", "values": list(data)}
    return {"hex": data.hex()}


@st.composite
def _buffer_recipe(draw, plain: bool = False):
    """A vertex buffer view for a slot whose extent and needed rows are not known yet. ``plain``:
    bound, natural stride, no offset, every fetch in bounds."""
    if plain:
        return {"binding": 0, "stride": 0, "rows": None, "offset": 0, "tail": 0, "size": None,
                "fill": draw(_FILL_RECIPE)}
    return {
        "binding": draw(_ints(0, 2)) if _rare(draw, 16) else 0,  # bound, null, absent
        # natural, exact extent, 0, extent + 1..9, a multiple of 4 up to 96, 2048
        "stride": draw(_ints(0, 5 + 9 + 24)) if _rare(draw, 3) else 0,
        "rows": draw(_ints(0, MAX_ROWS + 2)) if _rare(draw, 5) else None,
        "offset": _pick(draw, _ZERO, (1, 2, 3, 5, 7, 4, 8, 12, 32), 5),
        "tail": _pick(draw, _ZERO, (1, 2, 3), 5),
        # None: no explicit size; else SizeInBytes = view size, or the remainder of a cut
        "size": _pick(draw, _NONE, (0, 0, 0, 1, 7, 100, 1 << 16), 8),
        "fill": draw(_FILL_RECIPE),
    }


@st.composite
def _element(draw, plain: bool = False) -> dict:
    """A layout element, with the class and buffer recipe of its slot. ``plain``: a format with
    a WebGPU vertex format, step rate 1 if per-instance, a plain buffer."""
    name = draw(_one_of(SEMANTIC_NAMES))
    index = _pick(draw, _ints(0, 3), (7, 1 << 16, U32 - 1), 16)
    fmt = draw(_one_of(WEBGPU_FORMATS if plain else ALL_FORMATS))
    slot = _pick(draw, _ints(0, 3), tuple(range(4, 32)), 6)
    offset = draw(_ints(0, 12)) * VERTEX_FORMATS[fmt].alignment if _rare(draw, 3) else None
    # Spelling of the element in the file (the parsers' alternatives), one bit each.
    spelling = draw(_ints(0, 63)) if _rare(draw, 4) else 0
    return {
        "name": name, "index": 0 if name == "SV_Position" else index, "format": fmt,
        "slot": slot, "offset": offset,
        "spell_index": spelling & 1, "spell_slot": spelling & 2,
        "format_spelling": (spelling >> 2) & 3,
        "append_spelling": 0 if not spelling & 16 else 1 + (spelling & 1),
        "class_spelling": spelling & 32,
        # The class of its slot and its slot's buffer, used if it is the slot's first element.
        "per_instance": _rare(draw, 3),
        "rate": 1 if plain else _pick(draw, _one_of((1, 1, 1, 0, 2, 3)), (U32 - 1, 1 << 20), 20),
        "buffer": draw(_PLAIN_BUFFER_RECIPE if plain else _BUFFER_RECIPE),
    }


def _resolve_offsets(elements: list[dict]) -> dict[int, int]:
    """Resolve offsets per rules 3.4 (APPEND_ALIGNED_ELEMENT: after the previous element of
    the same slot, explicit or not, aligned to min(4, this element's size)); returns each slot's
    extent (the end of its furthest element)."""
    prev_end: dict[int, int] = {}
    extent: dict[int, int] = {}
    for e in elements:
        size = VERTEX_FORMATS[e["format"]].size
        off = e["offset"]
        if off is None:
            off = _align(prev_end.get(e["slot"], 0), min(4, size))
        e["resolved"] = off
        prev_end[e["slot"]] = off + size
        extent[e["slot"]] = max(extent.get(e["slot"], 0), off + size)
    return extent


@st.composite
def _draw_call(draw) -> dict:
    indexed = draw(_BOOL)  # first: a draw's kind decides how its numbers are used
    count = draw(_ints(0, 40))
    instances = draw(_ints(0, 4))
    if (count == 0 or instances == 0) and _rare(draw, 4):
        # Such a draw delivers nothing, whatever its other count: now and then a huge one.
        huge = draw(_one_of(_BIG_U32))
        count, instances = (count, huge) if count == 0 else (huge, instances)
    start_instance = _pick(draw, _ints(0, 4), _BIG_U32, 20)
    start = _pick(draw, _ints(0, 8), _BIG_U32, 16)
    base = _pick(draw, _ints(-6, 6), _BIG_I32, 16)
    if indexed:
        return {"DrawIndexedInstanced": {
            "IndexCountPerInstance": count, "InstanceCount": instances,
            "StartIndexLocation": start if start >= U32 // 2 else min(start, 6),
            "BaseVertexLocation": base, "StartInstanceLocation": start_instance}}
    return {"DrawInstanced": {
        "VertexCountPerInstance": count, "InstanceCount": instances,
        "StartVertexLocation": start, "StartInstanceLocation": start_instance}}


@st.composite
def _index_recipe(draw):
    return {
        "bound_anyway": _rare(draw, 8), "format": draw(_one_of(tuple(INDEX_FORMATS))),
        "null": _rare(draw, 10), "count": draw(_ints(0, 50)) if _rare(draw, 6) else None,
        "offset": _pick(draw, _ZERO, (2, 1, 3), 8),  # in whole indices (rules 7.4)
        "tail": _pick(draw, _ZERO, (1, 2, 5), 8),
        "fill": draw(_FILL_RECIPE),
    }


def _index_buffer(draw, recipe: dict, draws: list[dict], cut: int | None):
    """The index buffer view (or None when no draw is indexed and none is bound anyway), and
    the index values the draws can read (to size the vertex buffers)."""
    indexed = [d["DrawIndexedInstanced"] for d in draws if "DrawIndexedInstanced" in d]
    if not indexed and not recipe["bound_anyway"]:
        return None, []
    fmt = recipe["format"]
    isize = INDEX_FORMATS[fmt]
    view: dict = {"format": fmt}
    if recipe["null"]:
        view["data"] = None  # the NULL view: every index reads 0 (rules 5.5)
        return view, [0]
    needed = max([d["StartIndexLocation"] + d["IndexCountPerInstance"] for d in indexed
                  if d["StartIndexLocation"] < MAX_INDICES] or [0])
    count = min(needed if recipe["count"] is None else recipe["count"], MAX_INDICES)
    # Mostly small indices; now and then a value that matters to cuts and bounds.
    specials = [0xFFFF, 0xFFFE] + ([U32 - 1, 0x10000] if isize == 4 else [])
    if cut is not None and cut < (1 << (8 * isize)):
        specials.insert(0, cut)
    raw = draw(_index_values(count))
    values = [v if v <= 20 else specials[(v - 21) % len(specials)] for v in raw]
    offset = isize * recipe["offset"]
    data = bytes(offset) + b"".join(v.to_bytes(isize, "little") for v in values)
    if recipe["tail"]:
        data += _fill(recipe["fill"], recipe["tail"])  # bytes past the view
        view["size"] = len(values) * isize
    if offset:
        view["offset"] = offset
    view["data"] = _data_block(recipe["fill"], data)
    return view, values


def _fetch_rows(draws, index_values, per_instance: bool, rate: int) -> int:
    """How many records a slot needs so that every fetch of the draws is in bounds (capped at
    MAX_ROWS: fetches beyond it are out of bounds on purpose)."""
    top = -1
    for d in draws:
        (kind, args), = d.items()
        if not args["InstanceCount"] or not args.get("VertexCountPerInstance",
                                                     args.get("IndexCountPerInstance")):
            continue  # delivers nothing, fetches nothing
        if per_instance:
            n, start = args["InstanceCount"], args["StartInstanceLocation"]
            last = start if rate == 0 or n == 0 else start + (n - 1) // rate
            if n and last < MAX_ROWS:
                top = max(top, last)
        elif kind == "DrawInstanced":
            start, n = args["StartVertexLocation"], args["VertexCountPerInstance"]
            if n and start + n - 1 < MAX_ROWS:
                top = max(top, start + n - 1)
        else:
            base = args["BaseVertexLocation"]
            for v in index_values or [0]:
                f = (v + base) % U32
                if f < MAX_ROWS:
                    top = max(top, f)
    return top + 1


def _vertex_buffer(r: dict, slot: int, extent: int, rows_needed: int) -> dict | None:
    """The view of ``slot`` from its recipe, or None for a slot left without an entry."""
    if r["binding"] == 2:
        return None  # no entry: unbound
    if r["binding"] == 1:
        return {"slot": slot, "data": None}  # explicitly unbound: all zeros (rules 6.2)
    k = r["stride"]
    stride = (_align(extent, 4), extent, 0)[k] if k < 3 else (
        extent + k - 2 if k < 12 else (4 * (k - 12) if k < 38 else 2048))
    rows = rows_needed if r["rows"] is None else min(r["rows"], rows_needed + 2)
    view_size = 0 if rows == 0 else (rows - 1) * stride + extent
    data = _fill(r["fill"], r["offset"] + view_size + r["tail"])
    vb: dict = {"slot": slot, "stride": stride}
    if r["offset"]:
        vb["offset"] = r["offset"]
    if r["tail"] or r["size"] is not None:
        vb["size"] = view_size if not r["size"] else r["size"] % (view_size + 1)
    vb["data"] = _data_block(r["fill"], data)
    return vb


def _layout_entry(e: dict, per_instance: bool, rate: int) -> dict:
    d: dict = {"SemanticName": e["name"]}
    if e["index"] or e["spell_index"]:
        d["SemanticIndex"] = e["index"]
    name = e["format"]
    d["Format"] = (name, f"DXGI_FORMAT_{name}", name.lower(),
                   DXGI_FORMAT_VALUES[name])[e["format_spelling"]]
    if e["slot"] or e["spell_slot"]:
        d["InputSlot"] = e["slot"]
    if e["offset"] is not None:
        d["AlignedByteOffset"] = e["offset"]
    elif e["append_spelling"]:
        d["AlignedByteOffset"] = ("APPEND_ALIGNED_ELEMENT", U32 - 1)[e["append_spelling"] - 1]
    if per_instance:
        d["InputSlotClass"] = "PER_INSTANCE_DATA" if not e["class_spelling"] \
            else "D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA"
        d["InstanceDataStepRate"] = rate
    return d


def _pass_through_outputs(elements: list[dict]) -> list[tuple[str, int, int]]:
    """(SemanticName, SemanticIndex, components) of the pass-through shader's outputs."""
    outs = [(e["name"], e["index"], 4) for e in elements if e["name"].upper() != "SV_POSITION"]
    return outs + [("SV_Position", 0, 4), ("SV_VertexID", 0, 1), ("SV_InstanceID", 0, 1)]


@st.composite
def _stream_output(draw, elements: list[dict]) -> dict:
    outputs = _pass_through_outputs(elements)
    used: dict[str, set] = {}
    entries = []
    for i in range(6):
        present = i == 0 or _present(draw, 2)
        slot = draw(_ints(0, 3)) if _rare(draw, 3) else 0
        gap = _rare(draw, 4) and i > 0
        gap_count = draw(_ints(1, 8))
        # The output by position from the end: SV_VertexID, SV_InstanceID and SV_Position stay
        # where they are when layout elements go away while shrinking.
        name, index, comps = outputs[-1 - draw(_ints(0, 3 + 31)) % len(outputs)]
        start_raw, count_raw = draw(_ints(0, 3)), draw(_ints(0, 3))
        lower, stream = _rare(draw, 8), _rare(draw, 8)
        if not present:
            continue
        if gap:  # a gap: skips bytes, writes nothing (rules 8.4)
            entries.append({"SemanticName": None, "ComponentCount": gap_count, "OutputSlot": slot})
            continue
        start = start_raw % comps
        count = 1 + count_raw % (comps - start)
        comps_used = used.setdefault(f"{name.upper()}{index}", set())
        wanted = set(range(start, start + count))
        if comps_used & wanted:  # overlapping ranges are invalid (rules 8.6): skip it
            continue
        comps_used |= wanted
        entry = {"SemanticName": name.lower() if lower else name, "SemanticIndex": index,
                 "StartComponent": start, "ComponentCount": count, "OutputSlot": slot}
        if stream:
            entry["Stream"] = 0
        entries.append(entry)
    named_slots = sorted({e["OutputSlot"] for e in entries if e["SemanticName"] is not None})
    # A slot fed only by gaps is refused (rules 8.7): such gaps move to the first named slot.
    for e in entries:
        if e["OutputSlot"] not in named_slots:
            e["OutputSlot"] = named_slots[0]
    declared = {s: 4 * sum(e["ComponentCount"] for e in entries if e["OutputSlot"] == s)
                for s in named_slots}
    so: dict = {"declaration": entries}
    explicit_strides = _rare(draw, 3)
    extra = [4 * draw(_ints(0, 3)) if _rare(draw, 3) else 0 for _ in range(4)]
    unused = [draw(_one_of((0, 64, 63))) for _ in range(4)]
    # Strides of unused slots are not checked (rules 8.8).
    strides = [declared[s] + extra[s] if s in declared else unused[s]
               for s in range(max(named_slots) + 1)]
    if len(named_slots) > 1 or explicit_strides:
        so["buffer_strides"] = strides
    raster = draw(_one_of((1, 2, 3, "NO_RASTERIZED_STREAM", "D3D12_SO_NO_RASTERIZED_STREAM",
                                   U32 - 1)))
    if _rare(draw, 5):
        so["rasterized_stream"] = raster
    targets = []
    for s in range(4):
        # A declared slot without a target counts as full (rules 9.8); a target on an
        # undeclared slot is left as it was.
        present = not _rare(draw, 8) if s in declared else _present(draw, 8)
        stride = strides[s] if s < len(strides) and strides[s] else 16
        size = stride * draw(_ints(0, 12)) + (draw(_ints(1, 3)) if _rare(draw, 8) else 0)
        filled = 4 * draw(_ints(0, size // 4 + 2)) if _rare(draw, 4) else None
        initial, length = _rare(draw, 3), draw(_ints(0, 1 << 16))
        fill = draw(_FILL_RECIPE)
        if not present:
            continue
        target = {"slot": s, "size": size}
        if filled is not None:
            target["filled_size"] = filled
        if initial:
            target["data"] = _data_block(fill, _fill(fill, length % (size + 1)))
        targets.append(target)
    so["targets"] = targets
    return so


# The sub-strategies, built once.
_FILL_RECIPE, _BUFFER_RECIPE, _PLAIN_BUFFER_RECIPE = _fill_recipe(), _buffer_recipe(), \
    _buffer_recipe(plain=True)
_ELEMENT, _PLAIN_ELEMENT = _element(), _element(plain=True)
_DRAW_CALL, _INDEX_RECIPE = _draw_call(), _index_recipe()
_GS_CASES = gs_cases()


@st.composite
def cases(draw, so: bool = False, gs: bool = False) -> dict:
    """A valid case dict (without ``name``; the fuzzer names it). ``so``: about half of the
    cases carry a ``stream_output`` section. ``gs``: about one case in three is a geometry
    shader case (:func:`gpuia.fuzz.geometry.gs_cases`; shrinks to a case without one)."""
    if gs and _rare(draw, 3):
        return draw(_GS_CASES)
    # About one case in three is "plain": what WebGPU's own vertex fetch can express, so that
    # the native path is compared often (any one obstacle sends a whole draw to pulling).
    plain = _rare(draw, 3)
    dense = _rare(draw, 10)  # now and then a layout of up to 32 elements
    raw, keys = [], set()
    for i in range(DENSE_SLOTS if dense else ELEMENT_SLOTS):
        present = _present(draw, 2 if dense or i < 4 else 6)
        e = draw(_PLAIN_ELEMENT if plain else _ELEMENT)
        key = (e["name"].upper(), e["index"])
        if present and key not in keys:  # semantics are unique in a layout (rules 3.12)
            keys.add(key)
            raw.append(e)
    extent = _resolve_offsets(raw)
    first: dict[int, dict] = {}
    for e in raw:
        first.setdefault(e["slot"], e)  # the slot's first element decides its class and buffer
    slot_class = {s: (e["per_instance"], e["rate"] if e["per_instance"] else 0)
                  for s, e in first.items()}
    layout = [_layout_entry(e, *slot_class[e["slot"]]) for e in raw]

    topology = draw(_one_of(TOPOLOGY_NAMES))
    cut = (None, 0xFFFF, U32 - 1)[draw(_ints(0, 2))] if _rare(draw, 2) else None
    cut_spelling = draw(_ints(0, 2))
    slots_drawn = [(_present(draw, 2), draw(_DRAW_CALL)) for _ in range(3)]
    draws = [d for present, d in slots_drawn if present] or [slots_drawn[0][1]]
    ib, index_values = _index_buffer(draw, draw(_INDEX_RECIPE), draws, cut)
    buffers = []
    for s in sorted(extent):
        per_instance, rate = slot_class[s]
        rows = _fetch_rows(draws, index_values, per_instance, rate)
        vb = _vertex_buffer(first[s]["buffer"], s, extent[s], rows)
        if vb is not None:
            buffers.append(vb)

    case: dict = {"gpuia_case": 1, "input_layout": layout, "vertex_buffers": buffers}
    if ib is not None:
        case["index_buffer"] = ib
    spell_disabled, spell_topology, as_list = _rare(draw, 10), _rare(draw, 8), _rare(draw, 4)
    if cut is not None:
        spellings = (("0xFFFF", 0xFFFF, "D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_0xFFFF")
                     if cut == 0xFFFF else ("0xFFFFFFFF", U32 - 1, "0xffffffff"))
        case["strip_cut_value"] = spellings[cut_spelling]
    elif spell_disabled:
        case["strip_cut_value"] = "DISABLED"
    case["primitive_topology"] = (f"D3D_PRIMITIVE_TOPOLOGY_{topology}" if spell_topology
                                  else topology)
    case["draw"] = draws if len(draws) > 1 or as_list else draws[0]
    if so and draw(_BOOL):
        case["stream_output"] = draw(_stream_output(raw))
    return case
