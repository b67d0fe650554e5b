"""The DirectXMath headers gpuia gives the compiler when the include path has none:
``DirectXMath.h`` and ``DirectXPackedVector.h`` (C++ only), generated from tables transcribed
from microsoft/DirectXMath (Inc/DirectXMath.h, Inc/DirectXPackedVector.h).

Guaranteed, as the real headers declare them: each storage type's members in order, the unions
of the packed types (so their size and alignment are the packed word's: ``XMHALF4`` is 8-byte
aligned, ``XMHALF2`` 4), the 16-byte alignment of the ``...A`` forms and of ``XMVECTOR`` and
``XMMATRIX``, and the constructors. The constructors decide how the compiler reads an
initializer: with them, ``XMFLOAT3 v(0, 0.25f, 0)`` is the constructor call that the real header
makes it, not a C++20 parenthesized aggregate initialization, and a brace list calls the same
constructor. Constructors the real header defines out of line (the packed types' conversions
from float, ``XMMATRIX`` from 16 floats) are declared only; gpuia never runs them.

Left out: the functions (``XMLoadFloat3``, ``XMVectorSet``...), the comparison operators and the
deprecated packed types. ``XMVECTOR`` stands for ``__m128`` with a struct of four floats (the
same size and alignment).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["directxmath_headers"]

# (name, component type, components): a constexpr constructor from the components and an
# explicit one from a pointer to them.
_VECTORS = [
    ("XMFLOAT2", "float", "x y"), ("XMFLOAT3", "float", "x y z"),
    ("XMFLOAT4", "float", "x y z w"),
    ("XMINT2", "int32_t", "x y"), ("XMINT3", "int32_t", "x y z"),
    ("XMINT4", "int32_t", "x y z w"),
    ("XMUINT2", "uint32_t", "x y"), ("XMUINT3", "uint32_t", "x y z"),
    ("XMUINT4", "uint32_t", "x y z w"),
]
# (name, rows, columns): floats _11 ... _RC overlaid with m[R][C]; a constexpr constructor from
# the R x C floats, an explicit one from a pointer, and operator()(row, column).
_MATRICES = [("XMFLOAT3X3", 3, 3), ("XMFLOAT4X3", 4, 3), ("XMFLOAT3X4", 3, 4),
             ("XMFLOAT4X4", 4, 4)]
# The 16-byte aligned forms, which inherit their base's constructors.
_ALIGNED = {"XMFLOAT2A": "XMFLOAT2", "XMFLOAT3A": "XMFLOAT3", "XMFLOAT4A": "XMFLOAT4",
            "XMFLOAT4X3A": "XMFLOAT4X3", "XMFLOAT3X4A": "XMFLOAT3X4",
            "XMFLOAT4X4A": "XMFLOAT4X4"}


class _Packed(NamedTuple):
    """A DirectXPackedVector.h type: ``members`` (``"type name[:bits]..."``, groups of one type
    separated by commas) in a union with ``word``; constructors from the word (explicit unless
    ``implicit``), from ``components`` of that type (when given), from ``floats`` floats and
    from pointers; ``converts``: an ``operator`` to the word's type."""

    name: str
    members: str
    word: str
    components: str | None
    floats: int
    converts: bool = False
    implicit: bool = False


_PACKED = [
    _Packed("XMCOLOR", "uint8_t b g r a", "uint32_t c", None, 4, converts=True, implicit=True),
    _Packed("XMHALF2", "HALF x y", "uint32_t v", "HALF", 2),
    _Packed("XMHALF4", "HALF x y z w", "uint64_t v", "HALF", 4),
    _Packed("XMSHORTN2", "int16_t x y", "uint32_t v", "int16_t", 2),
    _Packed("XMSHORT2", "int16_t x y", "uint32_t v", "int16_t", 2),
    _Packed("XMUSHORTN2", "uint16_t x y", "uint32_t v", "uint16_t", 2),
    _Packed("XMUSHORT2", "uint16_t x y", "uint32_t v", "uint16_t", 2),
    _Packed("XMSHORTN4", "int16_t x y z w", "uint64_t v", "int16_t", 4),
    _Packed("XMSHORT4", "int16_t x y z w", "uint64_t v", "int16_t", 4),
    _Packed("XMUSHORTN4", "uint16_t x y z w", "uint64_t v", "uint16_t", 4),
    _Packed("XMUSHORT4", "uint16_t x y z w", "uint64_t v", "uint16_t", 4),
    _Packed("XMBYTEN2", "int8_t x y", "uint16_t v", "int8_t", 2),
    _Packed("XMBYTE2", "int8_t x y", "uint16_t v", "int8_t", 2),
    _Packed("XMUBYTEN2", "uint8_t x y", "uint16_t v", "uint8_t", 2),
    _Packed("XMUBYTE2", "uint8_t x y", "uint16_t v", "uint8_t", 2),
    _Packed("XMBYTEN4", "int8_t x y z w", "uint32_t v", "int8_t", 4),
    _Packed("XMBYTE4", "int8_t x y z w", "uint32_t v", "int8_t", 4),
    _Packed("XMUBYTEN4", "uint8_t x y z w", "uint32_t v", "uint8_t", 4),
    _Packed("XMUBYTE4", "uint8_t x y z w", "uint32_t v", "uint8_t", 4),
    _Packed("XMU565", "uint16_t x:5 y:6 z:5", "uint16_t v", "uint8_t", 3, converts=True),
    _Packed("XMUNIBBLE4", "uint16_t x:4 y:4 z:4 w:4", "uint16_t v", "uint8_t", 4,
            converts=True),
    _Packed("XMFLOAT3PK", "uint32_t xm:6 xe:5 ym:6 ye:5 zm:5 ze:5", "uint32_t v", None, 3,
            converts=True),
    _Packed("XMFLOAT3SE", "uint32_t xm:9 ym:9 zm:9 e:5", "uint32_t v", None, 3, converts=True),
    _Packed("XMXDECN4", "int32_t x:10 y:10 z:10, uint32_t w:2", "uint32_t v", None, 4,
            converts=True),
    _Packed("XMUDECN4", "uint32_t x:10 y:10 z:10 w:2", "uint32_t v", None, 4, converts=True),
]


def _params(kind: str, names) -> str:
    return ", ".join(f"{kind} {n}" for n in names)


def _inits(members, values) -> str:
    return ", ".join(f"{m}({v})" for m, v in zip(members, values, strict=True))


def _vector(name: str, kind: str, components: str) -> str:
    names = components.split()
    fields = "".join(f"    {kind} {n};\n" for n in names)
    return (f"struct {name} {{\n{fields}    {name}() = default;\n"
            f"    constexpr {name}({_params(kind, ['_' + n for n in names])}) noexcept"
            f" : {_inits(names, ['_' + n for n in names])} {{}}\n"
            f"    explicit {name}(const {kind} *pArray) noexcept"
            f" : {_inits(names, [f'pArray[{i}]' for i in range(len(names))])} {{}}\n}};\n")


def _matrix(name: str, rows: int, columns: int) -> str:
    cells = [f"_{r}{c}" for r in range(1, rows + 1) for c in range(1, columns + 1)]
    lines = "".join(f"            float {', '.join(cells[r * columns:(r + 1) * columns])};\n"
                    for r in range(rows))
    args = [f"m{r}{c}" for r in range(rows) for c in range(columns)]
    return (f"struct {name} {{\n    union {{\n        struct {{\n{lines}        }};\n"
            f"        float m[{rows}][{columns}];\n    }};\n    {name}() = default;\n"
            f"    constexpr {name}({_params('float', args)}) noexcept"
            f" : {_inits(cells, args)} {{}}\n"
            f"    explicit {name}(const float *pArray) noexcept;\n"
            f"    float operator()(size_t Row, size_t Column) const noexcept "
            f"{{ return m[Row][Column]; }}\n"
            f"    float &operator()(size_t Row, size_t Column) noexcept "
            f"{{ return m[Row][Column]; }}\n}};\n")


def _packed(p: _Packed) -> str:
    groups = [g.split() for g in p.members.split(",")]
    fields = "".join(f"            {g[0]} {m.replace(':', ' : ')};\n" for g in groups
                     for m in g[1:])
    names = [m.split(":")[0] for g in groups for m in g[1:]]
    word_type, word = p.word.split()
    out = [f"struct {p.name} {{\n    union {{\n        struct {{\n{fields}        }};\n"
           f"        {word_type} {word};\n    }};\n    {p.name}() = default;\n",
           f"    {'' if p.implicit else 'explicit '}constexpr {p.name}({word_type} Packed) "
           f"noexcept : {word}(Packed) {{}}\n"]
    if p.components is not None:
        out.append(f"    constexpr {p.name}({_params(p.components, ['_' + n for n in names])})"
                   f" noexcept : {_inits(names, ['_' + n for n in names])} {{}}\n"
                   f"    explicit {p.name}(const {p.components} *pArray) noexcept;\n")
    floats = ["_x", "_y", "_z", "_w"][:p.floats] if p.name != "XMCOLOR" else \
        ["_r", "_g", "_b", "_a"]
    out.append(f"    {p.name}({_params('float', floats)}) noexcept;\n"
               f"    explicit {p.name}(const float *pArray) noexcept;\n")
    if p.converts:
        out.append(f"    operator {word_type}() const noexcept {{ return {word}; }}\n")
    out.append(f"    {p.name} &operator=({word_type} Packed) noexcept "
               f"{{ {word} = Packed; return *this; }}\n}};\n")
    return "".join(out)


_MATRIX = """\
struct alignas(16) XMVECTOR { float v[4]; };
typedef const XMVECTOR FXMVECTOR;
typedef const XMVECTOR GXMVECTOR;
typedef const XMVECTOR HXMVECTOR;
typedef const XMVECTOR &CXMVECTOR;
struct alignas(16) XMMATRIX {
    XMVECTOR r[4];
    XMMATRIX() = default;
    constexpr XMMATRIX(FXMVECTOR R0, FXMVECTOR R1, FXMVECTOR R2, CXMVECTOR R3) noexcept
        : r{ R0, R1, R2, R3 } {}
    XMMATRIX(float m00, float m01, float m02, float m03, float m10, float m11, float m12,
             float m13, float m20, float m21, float m22, float m23, float m30, float m31,
             float m32, float m33) noexcept;
    explicit XMMATRIX(const float *pArray) noexcept;
};
typedef const XMMATRIX FXMMATRIX;
typedef const XMMATRIX &CXMMATRIX;
"""


def directxmath_headers() -> dict[str, str]:
    """The two headers, by file name.

    Returns:
        ``{"DirectXMath.h": text, "DirectXPackedVector.h": text}``.
    """
    aligned = "".join(f"struct alignas(16) {name} : public {base} {{ using {base}::{base}; }};\n"
                      for name, base in _ALIGNED.items())
    math = ("#pragma once\n#include <stddef.h>\n#include <stdint.h>\n#ifdef __cplusplus\n"
            "#ifndef XM_CALLCONV\n#define XM_CALLCONV\n#endif\nnamespace DirectX {\n"
            + "".join(_vector(*row) for row in _VECTORS)
            + "".join(_matrix(*row) for row in _MATRICES) + aligned + _MATRIX
            + "}\n#endif\n")
    packed = ("#pragma once\n#include <DirectXMath.h>\n#ifdef __cplusplus\nnamespace DirectX {\n"
              "namespace PackedVector {\ntypedef uint16_t HALF;\n"
              + "".join(_packed(p) for p in _PACKED) + "}\n}\n#endif\n")
    return {"DirectXMath.h": math, "DirectXPackedVector.h": packed}
