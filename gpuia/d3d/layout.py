"""Input layout resolution and validation, as ``CreateInputLayout`` does it.

:class:`InputLayout` takes a list of ``D3D12_INPUT_ELEMENT_DESC`` values (or anything
:meth:`InputElementDesc.of` accepts), resolves ``APPEND_ALIGNED_ELEMENT`` offsets per slot and
checks every rule D3D checks when the layout is created (rules section 3), at a feature level
(:mod:`gpuia.d3d.feature_level`; D3D12's by default). What it guarantees: each resolved element
has a vertex format from the table, an aligned offset, a slot below the level's slot count, one
classification and step rate per slot, a unique semantic, and step rate 0 on per-vertex data.
What it refuses raises :class:`InvalidDescError` naming the element index, its semantic, the
field, the value and the rule (and the feature level, for a limit of rules 3.1).

What it does not check, because D3D does not at layout creation: strides and bind offsets (dynamic
state, rules 3.2/3.3), overlapping elements (legal, 3.3), elements past any stride.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import cast

import numpy as np

from ..errors import InvalidDescError
from .desc import InputClassification
from .feature_level import PROFILE_LEVELS, FeatureLevel
from .feature_level import feature_level as _feature_level
from .formats import VERTEX_FORMATS, FormatInfo, UnknownFormatError, format_info
from .ia_desc import InputElementDesc

__all__ = ["Profile", "PROFILES", "FeatureLevel", "ResolvedElement", "SlotInfo", "InputLayout",
           "elements_from_dtype", "parse_semantic"]


Profile = FeatureLevel
"""An API profile's limits are its feature level's (:class:`~gpuia.d3d.feature_level.FeatureLevel`,
rules 3.1 and 11.1); the old name stays."""

PROFILES = {name: _feature_level(level) for name, level in PROFILE_LEVELS.items()}
"""The feature level of each API profile :class:`InputLayout` takes by name: ``d3d12`` (D3D12),
``d3d11`` (11_0: 32 slots, 32 elements) and ``d3d10`` (10_0: 16 and 16; rules 3.1)."""


@dataclass(frozen=True)
class ResolvedElement:
    """An element after CreateInputLayout: a frozen value that :class:`InputLayout` makes and
    has checked (its format is a vertex format, its offset aligned, rules 3.2, 3.4).

    Arguments:
        index (int): its position in the desc array.
        desc (InputElementDesc): the element as given.
        format (FormatInfo): its row of the format table.
        offset (int): its resolved byte offset within the slot's vertex
            (APPEND_ALIGNED_ELEMENT resolved).
    """

    index: int
    desc: InputElementDesc
    format: FormatInfo
    offset: int

    @property
    def key(self) -> str:
        """The result key of the element: upper-case SemanticName + SemanticIndex
        (``TEXCOORD1``), unique in its layout."""
        return self.desc.key

    @property
    def slot(self) -> int:
        """The element's InputSlot."""
        return self.desc.input_slot

    @property
    def end(self) -> int:
        """The byte just past the element within the vertex: offset + format size."""
        return self.offset + self.format.size

    @property
    def per_instance(self) -> bool:
        """Whether the element is PER_INSTANCE_DATA (fetched by instance, rules 4.3)."""
        return self.desc.input_slot_class == InputClassification.PER_INSTANCE_DATA

    @property
    def step_rate(self) -> int:
        """The element's InstanceDataStepRate (0 for per-vertex elements)."""
        return self.desc.instance_data_step_rate

    def label(self) -> str:
        """``element 2 (TEXCOORD0)``: how errors and reports name the element (the semantic as
        written, with its index)."""
        return f"element {self.index} ({self.desc.semantic_name}{self.desc.semantic_index})"


@dataclass(frozen=True)
class SlotInfo:
    """What the layout says about one input slot: a frozen value that :class:`InputLayout`
    makes. The slot's elements share one classification and step rate (rules 3.5).

    Arguments:
        slot (int): the input slot.
        input_slot_class (InputClassification): the classification of its elements.
        step_rate (int): the InstanceDataStepRate of its elements.
        elements (tuple): its :class:`ResolvedElement` values, in declaration order (at least
            one).
    """

    slot: int
    input_slot_class: InputClassification
    step_rate: int
    elements: tuple[ResolvedElement, ...]

    @property
    def per_instance(self) -> bool:
        """Whether the slot holds PER_INSTANCE_DATA."""
        return self.input_slot_class == InputClassification.PER_INSTANCE_DATA

    @property
    def extent(self) -> int:
        """The end of the slot's furthest element: the smallest stride that holds a vertex
        without overlap (D3D does not require it, rules 3.3)."""
        return max(e.end for e in self.elements)

    @property
    def alignment(self) -> int:
        """The largest element alignment in the slot: the alignment D3D12 expects of the slot's
        stride and bind offset (rules 3.2, 7.4)."""
        return max(e.format.alignment for e in self.elements)


def _raw_label(i: int, raw) -> str:
    """Name an element that could not be built, with its semantic when one can be read."""
    name: object = None
    index: object = 0
    if isinstance(raw, dict):
        name = raw.get("SemanticName", raw.get("semantic_name"))
        index = raw.get("SemanticIndex", raw.get("semantic_index", 0))
    elif isinstance(raw, (tuple, list)) and raw:
        name = raw[0]
        index = raw[1] if len(raw) > 1 else 0
    return f"element {i} ({name}{index})" if isinstance(name, str) else f"element {i}"


def _label(i: int, d: InputElementDesc) -> str:
    return f"element {i} ({d.semantic_name}{d.semantic_index})"


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


class InputLayout:
    """A validated, resolved input layout (the ID3D11InputLayout / PSO InputLayout equivalent).

    Construction runs CreateInputLayout's checks (see the module docstring) and resolves every
    APPEND_ALIGNED_ELEMENT offset. The result holds ``feature_level`` (the
    :class:`~gpuia.d3d.feature_level.FeatureLevel` whose limits it was checked at; ``profile``
    is the same row), ``descs`` (the :class:`InputElementDesc` values as given), ``elements`` (one
    :class:`ResolvedElement` per desc, in order) and ``slots`` (slot -> :class:`SlotInfo`, in
    slot order, for the slots that have elements). ``len()`` and iteration give the elements.
    Instances are immutable and hashable (by their descs and feature level), so they serve as
    cache keys.

    Arguments:
        elements: an iterable of D3D12_INPUT_ELEMENT_DESC values (anything
            :meth:`InputElementDesc.of` takes: instances, dicts or tuples); empty is the empty
            layout (rules 3.10).
        profile: the feature level whose slot and element limits to enforce (rules 3.1, 11.1):
            anything :func:`~gpuia.d3d.feature_level.feature_level` takes: ``"12"`` (D3D12,
            the default), ``"11_0"``, ``"10_1"``, ``"10_0"``, an API profile's name
            (``"d3d12"``, ``"d3d11"``, ``"d3d10"``) or a row.
        feature_level: the same, by its own name; give one of the two.

    Raises:
        InvalidDescError: ``elements`` is None (a NULL array, rules 3.10), or an element breaks
            a rule: its fields (as :class:`InputElementDesc` refuses them), a format that is
            not a vertex format (rules 1.1), too many elements or a slot past the feature
            level's (rules 3.1, naming the level), a step rate on per-vertex data (rules 3.6),
            a misaligned offset (rules 3.2), an element ending past 2**32 - 1, a repeated
            semantic (rules 3.12) or one ambiguous with a semantic index (rules 3.7), a slot
            mixing classifications or step rates (rules 3.5). The error names the element
            index and semantic, the field, the value and the rule. Also: ``profile`` or
            ``feature_level`` names no level.
        TypeError: both ``profile`` and ``feature_level`` are given.

    .. code-block:: py

        layout = InputLayout([
            {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
            {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM"},         # offset 12
            {"SemanticName": "TEXCOORD", "Format": "R16G16_FLOAT", "InputSlot": 1},
        ])
        layout.slots[0].extent   # 16
    """

    def __init__(self, elements: Iterable = (), profile: str | FeatureLevel | None = None, *,
                 feature_level: str | FeatureLevel | None = None):
        if profile is not None and feature_level is not None:
            raise TypeError("InputLayout takes a profile or a feature_level, not both")
        if elements is None:
            # D3D: a NULL element array is E_INVALIDARG even with 0 elements (rules 3.10).
            raise InvalidDescError("input layout", "pInputElementDescs", None,
                                   "NULL element array (use an empty list for no elements)")
        self.feature_level: FeatureLevel = _feature_level(profile if feature_level is None
                                                          else feature_level)
        self.profile = self.feature_level  # the older name of the same row
        descs = []
        for i, e in enumerate(elements):
            try:
                descs.append(InputElementDesc.of(e))
            except InvalidDescError as err:
                raise InvalidDescError(_raw_label(i, e), err.field, err.value, err.rule) from None
        self.descs: tuple[InputElementDesc, ...] = tuple(descs)
        self.elements: tuple[ResolvedElement, ...] = self._resolve()
        self.slots: dict[int, SlotInfo] = self._group_slots()

    # -- CreateInputLayout -------------------------------------------------------------------
    def _resolve(self) -> tuple[ResolvedElement, ...]:
        p = self.feature_level
        if len(self.descs) > p.element_count:
            raise InvalidDescError(_label(p.element_count, self.descs[p.element_count]),
                                   "NumElements", len(self.descs),
                                   f"more than {p.element_count} elements at {p.label} "
                                   f"(IA_VERTEX_INPUT_STRUCTURE_ELEMENT_COUNT; rules 3.1)")
        slot_end: dict[int, int] = {}
        seen: dict[tuple[str, int], int] = {}
        out = []
        for i, d in enumerate(self.descs):
            where = _label(i, d)
            try:
                fmt = format_info(d.format)
            except UnknownFormatError as e:
                raise InvalidDescError(where, "Format", d.format, str(e)) from None
            if d.input_slot >= p.slot_count:
                raise InvalidDescError(where, "InputSlot", d.input_slot,
                                       f"slots are 0..{p.slot_count - 1} at {p.label} "
                                       f"(IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT; rules 3.1)")
            if (d.input_slot_class == InputClassification.PER_VERTEX_DATA
                    and d.instance_data_step_rate != 0):
                raise InvalidDescError(where, "InstanceDataStepRate", d.instance_data_step_rate,
                                       "must be 0 for PER_VERTEX_DATA elements (rules 3.6)")
            # APPEND_ALIGNED_ELEMENT: right after the previous element of the same slot, aligned
            # to this element's own alignment (rules 3.4; DXVK and vkd3d-proton agree).
            if d.is_append_aligned:
                offset = _align(slot_end.get(d.input_slot, 0), fmt.alignment)
            else:
                offset = d.aligned_byte_offset
                if offset % fmt.alignment:
                    raise InvalidDescError(
                        where, "AlignedByteOffset", offset,
                        f"not a multiple of {fmt.alignment}, the alignment of {fmt.name} "
                        f"(min(4, element size); rules 3.2)")
            if offset + fmt.size > 0xFFFFFFFF:
                raise InvalidDescError(where, "AlignedByteOffset", offset,
                                       "the element would end past 2**32 - 1")
            slot_end[d.input_slot] = offset + fmt.size
            sem = (d.semantic_name.upper(), d.semantic_index)
            if sem in seen:
                raise InvalidDescError(
                    where, "SemanticName", d.semantic_name,
                    f"semantic {sem[0]}{sem[1]} already used by element {seen[sem]}; a semantic "
                    f"name and index must be unique, compared case-insensitively (rules 3.12)")
            seen[sem] = i
            out.append(ResolvedElement(i, d, fmt, offset))
        keys: dict[str, int] = {}
        for el in out:
            # Results and shaders name an element NAME + INDEX ("TEXCOORD1"); D3D accepts a
            # SemanticName ending in digits ("TEXCOORD1", index 0) but it can never match a
            # shader input, and it would make that naming ambiguous.
            if el.key in keys:
                raise InvalidDescError(
                    el.label(), "SemanticName", el.desc.semantic_name,
                    f"names the same semantic as element {keys[el.key]} ({el.key}); a "
                    f"SemanticName ending in a digit is ambiguous with a semantic index "
                    f"(rules 3.7)")
            keys[el.key] = el.index
        return tuple(out)

    def _group_slots(self) -> dict[int, SlotInfo]:
        slots: dict[int, list[ResolvedElement]] = {}
        for e in self.elements:
            group = slots.setdefault(e.slot, [])
            if group:
                first = group[0]
                if e.desc.input_slot_class != first.desc.input_slot_class:
                    raise InvalidDescError(
                        e.label(), "InputSlotClass", e.desc.input_slot_class.name,
                        f"slot {e.slot} already holds {first.desc.input_slot_class.name} "
                        f"{first.label()}; all elements of a slot share one classification "
                        f"(rules 3.5)")
                if e.step_rate != first.step_rate:
                    raise InvalidDescError(
                        e.label(), "InstanceDataStepRate", e.step_rate,
                        f"slot {e.slot} already steps at rate {first.step_rate} "
                        f"({first.label()}); all elements of a slot share one step rate "
                        f"(rules 3.5)")
            group.append(e)
        return {
            s: SlotInfo(s, g[0].desc.input_slot_class, g[0].step_rate, tuple(g))
            for s, g in sorted(slots.items())
        }

    # -- values ------------------------------------------------------------------------------
    def __eq__(self, other):
        return (isinstance(other, InputLayout) and self.descs == other.descs
                and self.feature_level == other.feature_level)

    def __hash__(self):
        h = self.__dict__.get("_hash")
        if h is None:
            h = self._hash = hash((self.descs, self.feature_level))
        return h

    def __len__(self):
        return len(self.elements)

    def __iter__(self):
        return iter(self.elements)

    def __repr__(self):
        inner = ", ".join(f"{e.key}:{e.format.name}@{e.slot}+{e.offset}" for e in self.elements)
        return f"InputLayout([{inner}])"

    def element(self, semantic: str, index: int | None = None) -> ResolvedElement:
        """Find an element by semantic, names compared ignoring case.

        Arguments:
            semantic (str): the semantic with its index (``"TEXCOORD1"``, split as
                :func:`parse_semantic` splits it) when ``index`` is None, else the name alone.
            index (int): the SemanticIndex, or None (the default) to read it from
                ``semantic``.

        Returns:
            The :class:`ResolvedElement`.

        Raises:
            KeyError: no element has that semantic.
            ValueError: ``semantic`` is only digits (no name), with ``index`` None.
        """
        name, idx = parse_semantic(semantic) if index is None else (semantic.upper(), index)
        for e in self.elements:
            if e.desc.semantic_name.upper() == name and e.desc.semantic_index == idx:
                return e
        raise KeyError(f"no element with semantic {name}{idx}")

    @cached_property
    def keys(self) -> tuple[str, ...]:
        """Result keys of the elements (``POSITION0``), in declaration order."""
        return tuple(e.key for e in self.elements)

    def to_dicts(self) -> list[dict]:
        """The descs in the case-file form (:meth:`InputElementDesc.to_dict`), in order; the
        feature level is not part of it."""
        return [d.to_dict() for d in self.descs]

    # -- numpy structured dtypes -------------------------------------------------------------
    def slot_dtype(self, slot: int, stride: int | None = None) -> np.dtype:
        """A numpy structured dtype for one vertex of ``slot``: one field per element, named by
        its key, at its resolved offset. Packed formats are one unsigned word (see
        ``FormatInfo.numpy_field``).

        Arguments:
            slot (int): an input slot that has elements.
            stride (int): the dtype's ``itemsize``; None (the default) is the slot's extent.

        Returns:
            The ``numpy.dtype``.

        Raises:
            KeyError: the layout has no element in ``slot``.
            ValueError: ``stride`` is smaller than the slot's extent (a record cannot describe
                overlapping vertices).
        """
        info = self.slots[slot]
        stride = info.extent if stride is None else stride
        if stride < info.extent:
            raise ValueError(f"stride {stride} is smaller than slot {slot}'s extent {info.extent}; "
                             f"a numpy record cannot describe overlapping vertices")
        fields = [_field_dtype(e.format) for e in info.elements]
        return np.dtype({"names": [e.key for e in info.elements], "formats": fields,
                         "offsets": [e.offset for e in info.elements], "itemsize": stride})


def _field_dtype(fmt: FormatInfo):
    scalar, count = fmt.numpy_field
    return np.dtype(scalar) if count == 1 else np.dtype((scalar, (count,)))


def parse_semantic(text: str) -> tuple[str, int]:
    """Split an HLSL-style semantic into (upper-case name, index): a trailing decimal number is
    the index, none means 0 (``TEXCOORD1`` -> ("TEXCOORD", 1), ``SV_Position`` ->
    ("SV_POSITION", 0)).

    Arguments:
        text (str): the semantic.

    Returns:
        ``(name, index)``.

    Raises:
        ValueError: ``text`` has no name (it is empty or only digits).
    """
    stripped = text.rstrip("0123456789")
    digits = text[len(stripped):]
    if not stripped:
        raise ValueError(f"{text!r} has no semantic name")
    return stripped.upper(), int(digits) if digits else 0


# numpy scalar kind + size -> format component suffix used when a dtype field is converted.
_KIND_FROM_DTYPE = {("f", 4): "FLOAT", ("f", 2): "FLOAT", ("u", 4): "UINT", ("u", 2): "UINT",
                    ("u", 1): "UINT", ("i", 4): "SINT", ("i", 2): "SINT", ("i", 1): "SINT"}
_CHANNEL_NAMES = "RGBA"


def elements_from_dtype(dtype: np.dtype, slot: int = 0, *,
                        input_slot_class: InputClassification | str | int = "PER_VERTEX_DATA",
                        instance_data_step_rate: int = 0,
                        formats: Mapping[str, str] | None = None,
                        ) -> tuple[list[InputElementDesc], int]:
    """Convert a numpy structured dtype describing one vertex of a slot into input elements.

    Field names are semantics (``POSITION``, ``TEXCOORD1``, split by :func:`parse_semantic`);
    offsets stay explicit. Each field's format is taken from ``formats[name]`` when given
    (needed for normalized and packed formats: a ``u1 x4`` field is R8G8B8A8_UINT unless told
    it is R8G8B8A8_UNORM), else derived from the field's scalar type and count: 1-4 values of
    ``f4``/``f2`` (FLOAT), ``u4``/``u2``/``u1`` (UINT) or ``i4``/``i2``/``i1`` (SINT) that name a
    vertex format. The elements are not checked as a layout: pass them to :class:`InputLayout`.

    Arguments:
        dtype: a numpy structured dtype (or anything ``numpy.dtype()`` makes one from).
        slot (int): the InputSlot of every element. Default 0.
        input_slot_class: the InputSlotClass of every element. Default PER_VERTEX_DATA.
        instance_data_step_rate (int): the InstanceDataStepRate of every element. Default 0.
        formats: field name -> DXGI format, names matched ignoring case; fields not in it get
            the derived format.

    Returns:
        ``(elements, stride)``: a list of :class:`InputElementDesc` in field order, and the
        dtype's ``itemsize``.

    Raises:
        ValueError: the dtype has no named fields, a field name has no semantic name, or a
            field without an entry in ``formats`` matches no vertex format.
        InvalidDescError: an element the :class:`InputElementDesc` constructor refuses (a
            format in ``formats`` that is no DXGI format, a bad classification).
    """
    dtype = np.dtype(dtype)
    if dtype.names is None:
        raise ValueError("expected a structured dtype with named fields")
    formats = {k.upper(): v for k, v in (formats or {}).items()}
    fields = dtype.fields
    assert fields is not None  # a dtype with names has fields
    out = []
    for name in dtype.names:
        fdtype, offset = fields[name][:2]
        sem, idx = parse_semantic(name)
        fmt = formats.get(name.upper())
        if fmt is None:
            base = fdtype.base
            count = int(np.prod(fdtype.shape)) if fdtype.shape else 1
            kind = _KIND_FROM_DTYPE.get((base.kind, base.itemsize))
            bits = base.itemsize * 8
            if kind is None or not 1 <= count <= 4:
                raise ValueError(f"field {name!r} ({fdtype}) has no vertex format; pass formats=")
            fmt = "".join(f"{_CHANNEL_NAMES[c]}{bits}" for c in range(count)) + "_" + kind
            if fmt not in VERTEX_FORMATS:
                raise ValueError(f"field {name!r} ({fdtype}) would be {fmt}, which is not a "
                                 f"vertex format; pass formats=")
        # InputElementDesc resolves every form InputClassification.of takes.
        out.append(InputElementDesc(sem, idx, fmt, slot, offset,
                                    cast(InputClassification, input_slot_class),
                                    instance_data_step_rate))
    return out, dtype.itemsize
