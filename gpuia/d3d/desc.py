"""Descriptor values mirroring the D3D12 structures gpuia speaks: the enumerations and the checks
every descriptor shares. The descriptors themselves are in :mod:`gpuia.d3d.ia_desc` (input
elements, vertex and index buffer views), :mod:`gpuia.d3d.draws` (the draw calls) and
:mod:`gpuia.d3d.so_desc` (Stream Output).

All are frozen, hashable values. Each type has an ``of()`` constructor that also accepts what a
user naturally writes: a dict with the D3D field names (``"SemanticName"``) or the snake_case ones
(``"semantic_name"``), a tuple in the C struct's field order, or an instance. Enumerations accept
their D3D names as strings, with or without the C prefix and in any case
(``"D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA"``, ``"per_instance_data"``, ``"PER_INSTANCE"``).

Construction only normalizes types and ranges of single fields (a negative slot number is not a
slot), and a view checks that it lies inside its buffer. Rules that involve several fields or the
whole layout are checked where D3D checks them: ``gpuia.d3d.layout.InputLayout``
(CreateInputLayout), the draw, or the Stream Output validation
(``gpuia.d3d.so_declaration.resolve_stream_output``). Every refusal is an
:class:`~gpuia.errors.InvalidDescError` naming the D3D field, except that an enumeration's
``of()`` raises ``ValueError`` (:class:`~gpuia.d3d.ia_desc.InputElementDesc` and the case reader
turn it into an InvalidDescError naming the field) and a buffer that is not bytes-like raises
``TypeError``.
"""

from __future__ import annotations

import dataclasses
from enum import IntEnum
from typing import Any

from ..errors import InvalidDescError

__all__ = [
    "InputClassification",
    "PrimitiveTopology",
    "StripCutValue",
]

U32_MAX = 0xFFFFFFFF

CONSTANT_BUFFER_SLOTS = 14
"""The root constant buffers gpuia binds, registers b0..b13 of space 0: the 14 constant buffer
slots a D3D10 or D3D11 shader stage has (D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT;
D3D10's is 14 too). A D3D12 root signature may name any register; gpuia refuses b14 and above
when the shader is compiled, naming the register and this limit."""


def d3d_key(text: str, prefixes: tuple[str, ...]) -> str:
    """A D3D constant's name as gpuia's tables key it: trimmed, upper-case, and without the
    first of ``prefixes`` it starts with (``D3D12_CULL_MODE_BACK`` -> ``BACK``)."""
    key = text.strip().upper()
    for p in prefixes:
        if key.startswith(p):
            return key[len(p):]
    return key


def _enum_lookup(enum_cls, value, prefixes: tuple[str, ...], aliases: dict[str, str], what: str):
    if isinstance(value, enum_cls):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return enum_cls(value)
        except ValueError:
            raise ValueError(f"{value} is not a {what} value") from None
    if isinstance(value, str):
        key = d3d_key(value, prefixes)
        key = aliases.get(key, key)
        if key in enum_cls.__members__:
            return enum_cls[key]
    raise ValueError(
        f"{value!r} is not a {what}; expected one of {', '.join(enum_cls.__members__)}")


class InputClassification(IntEnum):
    """D3D12_INPUT_CLASSIFICATION: whether an element is fetched per vertex or per instance
    (rules 4.1-4.3)."""

    PER_VERTEX_DATA = 0
    PER_INSTANCE_DATA = 1

    @classmethod
    def of(cls, value: InputClassification | str | int) -> InputClassification:
        """The classification ``value`` names.

        Accepts a member, its integer value (0 or 1), or a name in any case, with or without
        the ``D3D12_INPUT_CLASSIFICATION_``, ``D3D11_INPUT_`` or ``D3D10_INPUT_`` prefix;
        ``PER_VERTEX``, ``PER_INSTANCE``, ``VERTEX`` and ``INSTANCE`` are short forms.

        Arguments:
            value: the classification, in one of the forms above.

        Returns:
            The :class:`InputClassification` member.

        Raises:
            ValueError: ``value`` names no classification (a bool included); the message
                lists the names.
        """
        return _enum_lookup(
            cls,
            value,
            ("D3D12_INPUT_CLASSIFICATION_", "D3D11_INPUT_", "D3D10_INPUT_"),
            {"PER_VERTEX": "PER_VERTEX_DATA", "PER_INSTANCE": "PER_INSTANCE_DATA",
             "VERTEX": "PER_VERTEX_DATA", "INSTANCE": "PER_INSTANCE_DATA"},
            "D3D12_INPUT_CLASSIFICATION",
        )


class PrimitiveTopology(IntEnum):
    """D3D_PRIMITIVE_TOPOLOGY: the values gpuia knows, with D3D's numbers. Patch lists are not
    members (they need tessellation); UNDEFINED is, but a draw refuses it
    (:func:`gpuia.d3d.topology.topology_info`)."""

    UNDEFINED = 0
    POINTLIST = 1
    LINELIST = 2
    LINESTRIP = 3
    TRIANGLELIST = 4
    TRIANGLESTRIP = 5
    LINELIST_ADJ = 10
    LINESTRIP_ADJ = 11
    TRIANGLELIST_ADJ = 12
    TRIANGLESTRIP_ADJ = 13

    @classmethod
    def of(cls, value: PrimitiveTopology | str | int) -> PrimitiveTopology:
        """The topology ``value`` names.

        Accepts a member, its D3D integer value (0-5, 10-13), or a name in any case, with or
        without the ``D3D_PRIMITIVE_TOPOLOGY_``, ``D3D11_PRIMITIVE_TOPOLOGY_`` or
        ``D3D10_PRIMITIVE_TOPOLOGY_`` prefix (``"TRIANGLESTRIP"``,
        ``"D3D_PRIMITIVE_TOPOLOGY_LINELIST_ADJ"``).

        Arguments:
            value: the topology, in one of the forms above.

        Returns:
            The :class:`PrimitiveTopology` member (UNDEFINED included).

        Raises:
            ValueError: ``value`` is no member's value or name (patch lists included); the
                message lists the names.
        """
        return _enum_lookup(
            cls, value, ("D3D_PRIMITIVE_TOPOLOGY_", "D3D11_PRIMITIVE_TOPOLOGY_",
                         "D3D10_PRIMITIVE_TOPOLOGY_"), {}, "D3D_PRIMITIVE_TOPOLOGY")


class StripCutValue(IntEnum):
    """D3D12_INDEX_BUFFER_STRIP_CUT_VALUE: pipeline state naming the index value that ends a
    strip. Only strip topologies cut (rules 5.2), and an index cuts when it equals the literal
    value, whatever the index format (rules 5.3). ``str()`` gives ``DISABLED``, ``0xFFFF`` or
    ``0xFFFFFFFF``."""

    DISABLED = 0
    CUT_0xFFFF = 1
    CUT_0xFFFFFFFF = 2

    @property
    def index(self) -> int | None:
        """The index value that cuts (0xFFFF or 0xFFFFFFFF), or None for DISABLED."""
        return (None, 0xFFFF, 0xFFFFFFFF)[self]

    @classmethod
    def of(cls, value: StripCutValue | str | int | None) -> StripCutValue:
        """The cut value ``value`` names.

        Accepts a member; None (DISABLED); the strings ``"DISABLED"``, ``"0xFFFF"`` and
        ``"0xFFFFFFFF"`` in any case, with or without the
        ``D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_`` prefix; the cut indices 0xFFFF and 0xFFFFFFFF
        themselves; and the enumeration's values 0, 1 and 2.

        Arguments:
            value: the cut value, in one of the forms above.

        Returns:
            The :class:`StripCutValue` member.

        Raises:
            ValueError: any other value (member names such as ``"CUT_0xFFFF"`` and bools
                included).
        """
        if isinstance(value, str):
            key = value.strip().upper()
            key = key.removeprefix("D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_")
            value = {"0XFFFF": cls.CUT_0xFFFF, "0XFFFFFFFF": cls.CUT_0xFFFFFFFF,
                     "DISABLED": cls.DISABLED}.get(key, value)
        elif isinstance(value, int) and not isinstance(value, cls) and value in (0xFFFF, U32_MAX):
            value = cls.CUT_0xFFFF if value == 0xFFFF else cls.CUT_0xFFFFFFFF
        if value is None:
            return cls.DISABLED
        return _enum_lookup(cls, value, (), {}, "D3D12_INDEX_BUFFER_STRIP_CUT_VALUE")

    def __str__(self) -> str:
        return ("DISABLED", "0xFFFF", "0xFFFFFFFF")[self]


def check_uint(where: str, name: str, value, bits: int = 32, signed: bool = False) -> int:
    """``value`` as an int (a numpy integer included) if it is an integer in the range of a
    ``bits``-bit UINT (or INT when ``signed``); else an InvalidDescError at ``where``, naming the
    field ``name`` (a bool is no integer)."""
    if isinstance(value, bool) or not isinstance(value, int):
        # numpy integers are fine; anything else is not.
        try:
            import numpy as np

            if isinstance(value, np.integer):
                value = int(value)
            else:
                raise TypeError
        except TypeError:
            raise InvalidDescError(where, name, value, "must be an integer") from None
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not lo <= value <= hi:
        kind = f"INT{bits}" if signed else f"UINT{bits}"
        raise InvalidDescError(where, name, value, f"out of range for {kind} ({lo}..{hi})")
    return value


def construct(cls, kwargs: dict, where: str, aliases: dict[str, str] | None = None):
    """``cls(**kwargs)``, turning a missing required field into an InvalidDescError that names
    the field by its D3D name in ``aliases`` (D3D name -> field name), else by its own."""
    required = [f.name for f in dataclasses.fields(cls)
                if f.init and f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]
    missing = [n for n in required if n not in kwargs]
    if missing:
        d3d_names = {py: d3d for d3d, py in (aliases or {}).items()}
        names = ", ".join(d3d_names.get(n, n) for n in missing)
        raise InvalidDescError(where, names, None, f"missing required field of {cls.__name__}")
    return cls(**kwargs)


def d3d_name(aliases: dict[str, str], py_name: str) -> str:
    """The D3D name of the field ``py_name`` in ``aliases`` (D3D name -> field name), or
    ``py_name`` itself when it has none."""
    for d3d, py in aliases.items():
        if py == py_name:
            return d3d
    return py_name


def fields_from(cls, obj: Any, where: str, aliases: dict[str, str]) -> dict:
    """Map a dict (D3D or snake_case keys) or a tuple in struct order to constructor kwargs."""
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            k = aliases.get(key, key)
            if k not in names:
                raise InvalidDescError(where, key, value, f"unknown field of {cls.__name__}; "
                                       f"expected {', '.join(aliases) or ', '.join(names)}")
            out[k] = value
        return out
    if isinstance(obj, (tuple, list)):
        if len(obj) > len(names):
            raise InvalidDescError(where, None, obj, f"{cls.__name__} has {len(names)} fields")
        return dict(zip(names, obj, strict=False))
    raise InvalidDescError(where, None, obj,
                           f"cannot make a {cls.__name__} from {type(obj).__name__}")


class IdentityBufferMixin:
    """Views compare and hash by the identity of their buffer object (numpy arrays are not
    hashable and two equal byte strings are still two buffers)."""

    buffer: Any  # each view's own field (the views are dataclasses; this base is not)

    def _key(self) -> tuple:
        key = self.__dict__.get("_key_cache")
        if key is None:
            view: Any = self  # a dataclass: every class using this base is one
            key = (id(self.buffer),) + tuple(
                getattr(self, f.name) for f in dataclasses.fields(view) if f.name != "buffer")
            object.__setattr__(self, "_key_cache", key)
        return key

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


def _buffer_len(buffer) -> int:
    if hasattr(buffer, "nbytes"):
        return int(buffer.nbytes)
    if hasattr(buffer, "size") and not callable(buffer.size):
        return int(buffer.size)
    return len(memoryview(buffer).cast("B"))


def check_view_range(where: str, buffer, offset: int, size: int | None) -> int:
    """A view's SizeInBytes, resolved (None: the rest of ``buffer`` after ``offset``) and
    checked with ``offset`` to lie inside ``buffer``; else an InvalidDescError at ``where``
    naming the field."""
    offset = check_uint(where, "offset", offset, 64)
    if buffer is None:
        return 0 if size is None else check_uint(where, "SizeInBytes", size)
    total = _buffer_len(buffer)
    if offset > total:
        raise InvalidDescError(where, "offset", offset,
                               f"the view starts past the end of its {total}-byte buffer")
    if size is None:
        size = total - offset
        return check_uint(where, "SizeInBytes", size)
    size = check_uint(where, "SizeInBytes", size)
    if offset + size > total:
        raise InvalidDescError(where, "SizeInBytes", size,
                               f"view [{offset}, {offset + size}) extends past the end of its "
                               f"{total}-byte buffer")
    return size
