"""Sizes and alignments of the C/C++ types vertex structs are written with, for ``sizeof`` and
``offsetof`` in layouts taken from source code.

One row per type name, as the x64 MSVC / Itanium ABIs lay them out (the ABIs D3D12 code is built
for agree on every row). Names are matched after ``const``/``volatile``/``struct``/``class`` and a
namespace prefix are dropped, so ``DirectX::XMFLOAT3`` and ``std::uint32_t`` find their rows.
Structs defined in the scanned file (or its local includes) are laid out from their members, so
only the building blocks need to be here.
"""

from __future__ import annotations

__all__ = ["C_TYPES", "POINTER_SIZE"]

POINTER_SIZE = 8
"""Pointers on the 64-bit targets D3D12 runs on."""

_SCALARS = {
    1: ("char", "signed char", "unsigned char", "bool", "int8_t", "uint8_t", "BYTE", "INT8",
        "UINT8", "CHAR", "UCHAR", "BOOLEAN"),
    2: ("short", "short int", "signed short", "unsigned short", "unsigned short int", "int16_t",
        "uint16_t", "WORD", "INT16", "UINT16", "SHORT", "USHORT", "HALF", "wchar_t", "char16_t"),
    4: ("int", "signed", "signed int", "unsigned", "unsigned int", "long", "long int",
        "unsigned long", "unsigned long int", "int32_t", "uint32_t", "float", "DWORD", "INT",
        "UINT", "INT32", "UINT32", "LONG", "ULONG", "FLOAT", "BOOL", "char32_t", "ImU32",
        "ImS32", "ImWchar32"),
    8: ("long long", "long long int", "unsigned long long", "unsigned long long int", "int64_t",
        "uint64_t", "double", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "INT64", "UINT64",
        "DOUBLE", "SIZE_T", "ULONGLONG", "LONGLONG", "ImU64", "ImS64"),
}

C_TYPES: dict[str, tuple[int, int]] = {name: (size, size) for size, names in _SCALARS.items()
                                       for name in names}
"""type name -> (size in bytes, alignment in bytes)."""

C_TYPES.update({
    # DirectXMath storage types (DirectXMath.h): plain members, 4-byte aligned unless "A".
    "XMFLOAT2": (8, 4), "XMFLOAT3": (12, 4), "XMFLOAT4": (16, 4),
    "XMFLOAT2A": (16, 16), "XMFLOAT3A": (16, 16), "XMFLOAT4A": (16, 16),
    "XMINT2": (8, 4), "XMINT3": (12, 4), "XMINT4": (16, 4),
    "XMUINT2": (8, 4), "XMUINT3": (12, 4), "XMUINT4": (16, 4),
    "XMFLOAT3X3": (36, 4), "XMFLOAT4X3": (48, 4), "XMFLOAT3X4": (48, 4), "XMFLOAT4X4": (64, 4),
    "XMVECTOR": (16, 16), "XMMATRIX": (64, 16),
    # DirectXPackedVector.h: packed words and small vectors.
    "XMHALF2": (4, 2), "XMHALF4": (8, 2), "XMSHORTN2": (4, 2), "XMSHORTN4": (8, 2),
    "XMSHORT2": (4, 2), "XMSHORT4": (8, 2), "XMUSHORTN2": (4, 2), "XMUSHORTN4": (8, 2),
    "XMUSHORT2": (4, 2), "XMUSHORT4": (8, 2), "XMBYTEN4": (4, 4), "XMBYTE4": (4, 4),
    "XMUBYTEN4": (4, 4), "XMUBYTE4": (4, 4), "XMCOLOR": (4, 4), "XMXDECN4": (4, 4),
    "XMUDECN4": (4, 4), "XMFLOAT3PK": (4, 4), "HALF2": (4, 2),
    # glm and HLSL-style vector types of C++ math libraries (tightly packed floats/ints).
    "vec2": (8, 4), "vec3": (12, 4), "vec4": (16, 4), "ivec2": (8, 4), "ivec3": (12, 4),
    "ivec4": (16, 4), "uvec2": (8, 4), "uvec3": (12, 4), "uvec4": (16, 4),
    "float2": (8, 4), "float3": (12, 4), "float4": (16, 4), "uint2": (8, 4), "uint3": (12, 4),
    "uint4": (16, 4), "int2": (8, 4), "int3": (12, 4), "int4": (16, 4),
    "mat4": (64, 4), "float4x4": (64, 4),
})
