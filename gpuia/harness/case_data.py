"""DATA blocks and integer fields of case files (``docs/case-format.md``, "DATA: bytes in a
case").

:func:`decode_data` reads a DATA block (``{"hex": ...}``, ``{"base64": ...}`` or
``{"dtype": "<f4", "values": [...]}``) into bytes, :func:`encode_data` writes one, and
:func:`uint_field` reads an optional non-negative integer key, and
:func:`case_container_bytes` the bytes of a compiled shader object (``{"dxbc": DATA}`` or
``{"dxbc_file": "path"}``). Every problem raises
:class:`~gpuia.errors.CaseError` at the ``where`` the caller names.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CaseError, GpuiaError


def _float_value(v):
    if isinstance(v, str):
        key = v.strip().lower()
        if key in ("nan", "inf", "+inf", "-inf", "infinity", "-infinity"):
            return float(key.replace("infinity", "inf"))
        raise ValueError(f"{v!r} is not a number")
    return v


def decode_data(block: Any, where: str) -> bytes:
    """The bytes of a DATA block (``docs/case-format.md``, "DATA: bytes in a case").

    Arguments:
        block: the parsed JSON value: an object with exactly ``hex`` (whitespace ignored),
            ``base64`` (standard, validated) or ``dtype`` and ``values`` (a numeric numpy scalar
            dtype; values nested lists flattened in C order, stored little-endian; float dtypes
            also take ``"nan"``, ``"inf"``, ``"-inf"``, integer dtypes integer values only).
        where (str): where the block is in the case (``vertex_buffers[0].data``), for errors.

    Returns:
        The bytes.

    Raises:
        CaseError: at ``where`` (or a key under it): not an object, another set of keys, bad
            hex or base64, a dtype that is not a numeric scalar dtype, values that are not
            numbers (ragged lists included), a non-integer value for an integer dtype, or an
            integer out of the dtype's range.
    """
    if not isinstance(block, dict):
        raise CaseError(where, "data must be an object with 'hex', 'base64' or 'dtype'+'values'")
    keys = set(block)
    try:
        if keys == {"hex"}:
            text = block["hex"]
            if not isinstance(text, str):
                raise CaseError(f"{where}.hex", "expected a string of hex digits")
            return bytes.fromhex("".join(text.split()))
        if keys == {"base64"}:
            if not isinstance(block["base64"], str):
                raise CaseError(f"{where}.base64", "expected a base64 string")
            return base64.b64decode(block["base64"], validate=True)
        if keys == {"dtype", "values"}:
            if not isinstance(block["dtype"], str):
                raise CaseError(f"{where}.dtype", f"{block['dtype']!r} is not a numpy dtype string")
            try:
                dtype = np.dtype(block["dtype"])
            except (TypeError, ValueError):
                raise CaseError(f"{where}.dtype",
                                f"{block['dtype']!r} is not a numpy dtype") from None
            if dtype.kind not in "fiub" or dtype.fields is not None or dtype.subdtype is not None:
                raise CaseError(f"{where}.dtype", f"{block['dtype']!r}: use a numeric scalar dtype")
            values = block["values"]
            if not isinstance(values, (list, int, float)):
                raise CaseError(f"{where}.values", "expected a (nested) list of numbers")
            flat = np.asarray(values, dtype=object).reshape(-1).tolist()
            if dtype.kind == "f":
                flat = [_float_value(v) for v in flat]
            elif any(isinstance(v, (str, float)) and not float(v).is_integer() for v in flat
                     if not isinstance(v, bool)):
                raise ValueError("integer dtype needs integer values")
            if any(isinstance(v, (list, dict)) or v is None for v in flat):
                raise ValueError("ragged or non-numeric values")
            with np.errstate(over="ignore"):
                arr = np.array(flat, dtype=dtype)
            return arr.astype(dtype.newbyteorder("<"), copy=False).tobytes()
    except CaseError:
        raise
    except (ValueError, TypeError, OverflowError, binascii.Error) as e:
        raise CaseError(where, f"bad data: {e}") from None
    raise CaseError(where, f"data must have exactly 'hex', 'base64' or 'dtype'+'values', "
                           f"got {sorted(keys)}")


def encode_data(data: bytes) -> dict:
    """A DATA block holding ``data``, which :func:`decode_data` reads back.

    Arguments:
        data: a bytes-like object.

    Returns:
        ``{"hex": ...}``, lower-case hex digits without spaces.
    """
    return {"hex": bytes(data).hex()}


def uint_field(obj, key, where, default):
    """The non-negative integer ``obj[key]``, or ``default`` where the key is absent or null.

    Arguments:
        obj (dict): the object holding the key.
        key (str): the key.
        where (str): where ``obj`` is in the case, for errors.
        default: what an absent or null key gives.

    Returns:
        The integer, or ``default``.

    Raises:
        CaseError: at ``where.key``: not an integer (booleans included), or negative.
    """
    v = obj.get(key)
    if v is None:  # absent or JSON null: the default
        return default
    if isinstance(v, bool) or not isinstance(v, int):
        raise CaseError(f"{where}.{key}", f"expected an integer, got {v!r}")
    if v < 0:
        raise CaseError(f"{where}.{key}", f"must not be negative, got {v}")
    return v


COMPILED_FORMS = ("dxbc", "dxbc_file")
"""The keys of a compiled shader object: the container's bytes (DATA) or its file."""


def case_container_bytes(obj: dict, where: str, base: Path) -> tuple[bytes, str]:
    """The bytes of a compiled shader object (exactly one of :data:`COMPILED_FORMS` and no
    other key) and a name for them (the file as the case names it, or "the inline container").

    Raises:
        CaseError: another key, both forms, a ``dxbc_file`` that is not a path or cannot be
            read (or is larger than a container may be), malformed DATA.
    """
    from ..d3d.container.chunks import MAX_CONTAINER_BYTES
    from ..util.files import read_input  # the files layer: read only where a case names one

    unknown = sorted(set(obj) - set(COMPILED_FORMS))
    if unknown or len([k for k in COMPILED_FORMS if k in obj]) != 1:
        raise CaseError(where, f"a compiled shader is {{\"dxbc\": DATA}} or {{\"dxbc_file\": "
                               f"\"path\"}} alone, got the keys {sorted(obj)}")
    if "dxbc" in obj:
        return decode_data(obj["dxbc"], f"{where}.dxbc"), "the inline container"
    name = obj["dxbc_file"]
    if not isinstance(name, str) or not name:
        raise CaseError(f"{where}.dxbc_file", "expected a path (relative to the case)")
    try:
        return read_input(base / name, MAX_CONTAINER_BYTES), name
    except GpuiaError as e:  # names the file and why
        raise CaseError(f"{where}.dxbc_file", str(e)) from None
