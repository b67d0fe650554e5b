"""Encode shader-side values into vertex elements of any DXGI vertex format, driven by the format
table (``gpuia.d3d.formats``): the inverse of what the Input Assembler decodes.

What is guaranteed, per channel kind of the table's channel mini-language:

* ``un<N>``: ``rint(clip(x, 0, 1) * (2**N - 1))``, round half to even (the float-to-UNORM rule of
  D3D's data conversion rules rounds to nearest; halves do not occur for the demos' data).
* ``sn<N>``: ``rint(clip(x, -1, 1) * (2**(N-1) - 1))`` in two's complement.
* ``u<N>`` / ``s<N>``: the integer value, reduced modulo ``2**N`` (two's complement for SINT).
* ``f32``: the float32 bits; ``f16``: numpy's float16 rounding (to nearest even).
* ``uf<N>`` (R11G11B10_FLOAT): the float16 encoding of ``max(x, 0)`` with the sign dropped and the
  mantissa truncated to ``N - 5`` bits: both share the 5-bit exponent with bias 15.
* Swizzles are honoured (``B8G8R8A8_UNORM``: the shader's x is stored in the third byte);
  padding channels and components the swizzle fills with constants are written as 0.

Values are given as the shader would see them: ``(n, k)`` with ``k`` at most the format's
component count (missing components are written as 0). Refused: an unknown format name
(``gpuia.d3d.formats.UnknownFormatError``) and values of the wrong shape (``ValueError``).
"""

from __future__ import annotations

import numpy as np

from ..d3d.formats import FormatInfo, format_info

__all__ = ["encode_elements", "pack_records"]


def _channel_codes(kind: str, bits: int, x: np.ndarray) -> np.ndarray:
    """Codes of one channel as uint64 (fits every width), for values ``x``."""
    mask = (1 << bits) - 1
    if kind == "un":
        return np.rint(np.clip(x, 0.0, 1.0) * mask).astype(np.uint64)
    if kind == "sn":
        scale = (1 << (bits - 1)) - 1
        return np.rint(np.clip(x, -1.0, 1.0) * scale).astype(np.int64).astype(np.uint64) & mask
    if kind in ("u", "s"):
        return np.asarray(x).astype(np.int64).astype(np.uint64) & mask
    if kind == "f":
        if bits == 32:
            return np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
        return np.asarray(x, np.float16).view(np.uint16).astype(np.uint64)
    if kind == "uf":
        half = np.maximum(np.asarray(x, np.float32), 0).astype(np.float16).view(np.uint16)
        return (half.astype(np.uint64) >> np.uint64(10 - (bits - 5))) & mask
    raise ValueError(f"channel kind {kind!r} has no encoder")


def encode_elements(fmt: str | FormatInfo, values) -> np.ndarray:
    """Encode ``values`` (shape ``(n, k)`` or ``(n,)``) as ``n`` elements of ``fmt``; returns
    uint8 of shape ``(n, fmt.size)``, little-endian, ready to be copied into a vertex record."""
    info = fmt if isinstance(fmt, FormatInfo) else format_info(fmt)
    v = np.asarray(values, np.float64 if info.shader_type == "float" else np.int64)
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2 or v.shape[1] > info.component_count:
        raise ValueError(f"{info.name} takes values of shape (n, <= {info.component_count}), "
                         f"got {np.shape(values)}")
    n = v.shape[0]
    words = np.zeros((n, info.words), np.uint64)
    # The swizzle says which channel each shader component reads; invert it to know which value
    # each channel stores.
    for comp, sel in enumerate(info.swizzle):
        if sel not in "xyzw" or comp >= v.shape[1]:
            continue
        ch = info.channels["xyzw".index(sel)]
        codes = _channel_codes(ch.kind, ch.bits, v[:, comp])
        words[:, ch.word] |= codes << np.uint64(ch.shift)
    raw = words.astype(np.uint32).astype("<u4").view(np.uint8).reshape(n, 4 * info.words)
    return np.ascontiguousarray(raw[:, : info.size])


def pack_records(layout, slot: int, stride: int, count: int, values: dict) -> np.ndarray:
    """Build ``count`` vertex records of ``slot`` of ``layout`` (a ``gpuia.InputLayout``), each
    ``stride`` bytes, with every element of the slot encoded from ``values[key]`` (keys as
    ``layout.keys``, e.g. ``"NORMAL0"``) at its resolved offset. Bytes no element covers are 0.
    Returns the records as a uint8 array of ``count * stride`` bytes. A missing key raises
    ``KeyError`` naming it; a stride below the slot's extent raises ``ValueError``."""
    info = layout.slots[slot]
    if stride < info.extent:
        raise ValueError(f"stride {stride} is below slot {slot}'s extent {info.extent}")
    out = np.zeros((count, stride), np.uint8)
    for e in info.elements:
        if e.key not in values:
            raise KeyError(f"no values for {e.key} (slot {slot})")
        enc = encode_elements(e.format, values[e.key])
        if enc.shape[0] != count:
            raise ValueError(f"{e.key}: {enc.shape[0]} values for {count} records")
        out[:, e.offset:e.offset + e.format.size] = enc
    return out.reshape(-1)
