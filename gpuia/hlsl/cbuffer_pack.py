"""A cbuffer's bytes from named member values, packed by D3D's rules.

An application fills a constant buffer from its own C++ struct; gpuia takes the same values by
name (``{"ViewProj": [[...], ...], "Time": 1.5}``, JSON's types) and writes each at the D3D
offset Slang's reflection gives it (:class:`~gpuia.hlsl.cbuffer.ConstantBuffer`, whose packing
rules docs/hlsl.md lists), so the bytes are those the application's upload would hold:

* a scalar is a number: ``float`` any number within float32's range (``NaN`` and infinities
  too, rounded to nearest), ``int`` an integer in -2^31..2^31-1, ``uint`` one in 0..2^32-1,
  ``bool`` JSON's true or false (stored as the 32-bit word 1 or 0);
* a vector ``floatN`` is a list of N scalars;
* a matrix ``floatRxC`` is a list of R rows of C numbers, ``m[r][c]`` as HLSL indexes it,
  whatever its packing: gpuia stores it one register per column (``column_major``) or per
  row (``row_major``) as the shader declares;
* an array is a list of exactly its element count, each element starting a register;
* a struct is an object of its members, by name.

Members not given are zero, as a zero-filled upload would leave them. Refused, with an
:class:`~gpuia.errors.InvalidDescError` naming the cbuffer, the member, the value and the rule:
a name the cbuffer does not declare, a value of the wrong shape or type, and a number that
does not fit its member's type.
"""

from __future__ import annotations

import math
import struct
from typing import Any, NoReturn

from ..errors import InvalidDescError
from .cbuffer import REGISTER, ConstantBuffer, CType

__all__ = ["pack_constant_buffer"]

_FLOAT_MAX = 3.4028234663852886e38
# D3D scalar kind -> (struct code, the JSON types it takes, its range or None, what it takes)
_SCALARS: dict[str, tuple[str, tuple[type, ...], tuple[int, int] | None, str]] = {
    "float": ("<f", (int, float), None, "a number"),
    "sint": ("<i", (int,), (-(1 << 31), (1 << 31) - 1), "an integer in -2147483648..2147483647"),
    "uint": ("<I", (int,), (0, (1 << 32) - 1), "an integer in 0..4294967295"),
    "bool": ("<I", (bool,), None, "true or false"),
}
_HLSL_NAME = {"float": "float", "sint": "int", "uint": "uint", "bool": "bool"}
_A = {"float": "a float", "sint": "an int", "uint": "a uint", "bool": "a bool"}


def pack_constant_buffer(cb: ConstantBuffer, values: dict[str, Any],
                         what: str = "constant_buffers") -> bytes:
    """The D3D-packed bytes of ``cb`` holding ``values`` (see the module docstring): every
    register the cbuffer spans (its size rounded up to 16 bytes), members not given zero.

    Raises:
        InvalidDescError: ``values`` is not an object, names a member ``cb`` lacks, or holds a
            value of the wrong shape or type or out of its type's range; ``where`` is ``what``
            and the field ``cbuffer <name> (register bN): <member path>``.
    """
    out = bytearray(cb.registers * REGISTER)
    _Packer(cb, what, out).value(cb.ctype, values, cb.name, 0)
    return bytes(out)


def _type_name(t: CType) -> str:
    """The member's HLSL type, for messages."""
    if t.kind == "scalar":
        return _HLSL_NAME[t.scalar]
    if t.kind == "vector":
        return f"{_HLSL_NAME[t.scalar]}{t.n}"
    if t.kind == "matrix":
        return f"{'column' if t.col_major else 'row'}_major {_HLSL_NAME[t.scalar]}{t.rows}x{t.cols}"
    if t.kind == "array":
        assert t.element is not None  # an array has its element type
        return f"{_type_name(t.element)}[{t.count}]"
    return "struct {" + ", ".join(name for name, _, _, _ in t.fields) + "}"


def _show(value: object) -> object:
    """The value for a message: itself, or its text cut short."""
    text = repr(value)
    return value if len(text) <= 60 else text[:57] + "..."


class _Packer:
    def __init__(self, cb: ConstantBuffer, what: str, out: bytearray):
        self.cb, self.what, self.out = cb, what, out

    def refuse(self, path: str, value: object, rule: str) -> NoReturn:
        raise InvalidDescError(self.what, f"cbuffer {self.cb.name} (register b{self.cb.slot}): "
                                          f"{path}", _show(value), rule)

    def value(self, t: CType, v: object, path: str, at: int) -> None:
        if t.kind == "scalar":
            self.scalar(t.scalar, v, path, at)
        elif t.kind == "vector":
            for c, x in enumerate(self.items(t, v, path, t.n)):
                self.scalar(t.scalar, x, f"{path}.{'xyzw'[c]}", at + 4 * c)
        elif t.kind == "matrix":
            for r, row in enumerate(self.items(t, v, path, t.rows)):
                for c, x in enumerate(self.items(t, row, f"{path}[{r}]", t.cols, row=True)):
                    # one register per column (column_major) or per row (row_major)
                    reg, comp = (c, r) if t.col_major else (r, c)
                    self.scalar(t.scalar, x, f"{path}[{r}][{c}]", at + REGISTER * reg + 4 * comp)
        elif t.kind == "array":
            assert t.element is not None  # an array has its element type
            for k, x in enumerate(self.items(t, v, path, t.count)):
                self.value(t.element, x, f"{path}[{k}]", at + k * t.stride)
        else:
            self.fields(t, v, path, at)

    def items(self, t: CType, v: object, path: str, n: int, row: bool = False) -> list:
        """``v`` as a list of ``n`` items (a matrix's rows, or with ``row`` one row's
        numbers)."""
        if not isinstance(v, list) or len(v) != n:
            what = f"a row of a {_type_name(t)}" if row else f"a {_type_name(t)}"
            items = "numbers" if row or t.kind == "vector" else (
                "rows (m[r][c] as HLSL indexes it)" if t.kind == "matrix" else "elements")
            self.refuse(path, v, f"{what} takes a list of {n} {items}")
        return v

    def fields(self, t: CType, v: object, path: str, at: int) -> None:
        if not isinstance(v, dict):
            self.refuse(path, v, "a struct takes an object of its members by name")
        by_name = {name: (ft, off) for name, _, ft, off in t.fields}
        for name, x in v.items():
            if name not in by_name:
                self.refuse(f"{path}.{name}", x, f"{path} has no member {name!r} (it has "
                                                 f"{', '.join(by_name) or 'none'})")
            ft, off = by_name[name]
            self.value(ft, x, f"{path}.{name}", at + off)

    def scalar(self, kind: str, v: object, path: str, at: int) -> None:
        code, types, bounds, takes = _SCALARS[kind]
        if not isinstance(v, types) or (kind != "bool" and isinstance(v, bool)):
            self.refuse(path, v, f"{_A[kind]} takes {takes}")
        if bounds is not None and not bounds[0] <= v <= bounds[1]:  # type: ignore[operator]
            self.refuse(path, v, f"{_A[kind]} takes {takes}")
        if kind == "float":
            v = self.float32(v, path)
        struct.pack_into(code, self.out, at, v)  # bool: True packs as 1

    def float32(self, v: Any, path: str) -> float:
        """``v`` as a float within float32's range (NaN and infinities pass; struct rounds)."""
        if isinstance(v, float) and not math.isfinite(v):
            return v
        try:
            f = float(v)
        except OverflowError:  # an integer past any double
            f = math.inf
        if abs(f) > _FLOAT_MAX:
            self.refuse(path, v, "a float takes a number within float32's range "
                                 f"(magnitude at most {_FLOAT_MAX:.9g})")
        return f
