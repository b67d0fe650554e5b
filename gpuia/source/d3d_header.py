"""The D3D headers gpuia generates for the compiler when the include path has none.

``gpuia layout`` reads D3D types and constants from a header, as the application's own build
does. A real one on the include path (``--include``: the Windows SDK, microsoft/DirectX-Headers,
or Debian's ``libvkd3d-headers``, whose D3D12 header is ``vkd3d_d3d12.h``) is always preferred:
these stubs are searched last. When none is found they stand in, generated from gpuia's own
tables:

- ``dxgiformat.h``: the ``DXGI_FORMAT`` enum with every value of
  :data:`gpuia.d3d.formats.DXGI_FORMAT_VALUES`;
- ``d3d12.h``, ``d3d11.h``, ``d3d10.h``: the input-element and SO-declaration structs of
  :data:`gpuia.source.model.STRUCTS` with their fields in header order, the input
  classification enums, ``D3D1x_APPEND_ALIGNED_ELEMENT``, ``D3D1x_SO_NO_RASTERIZED_STREAM``,
  the descriptors that point at the arrays (``D3D12_INPUT_LAYOUT_DESC``,
  ``D3D12_STREAM_OUTPUT_DESC``, the layout and Stream Output members of
  ``D3D12_GRAPHICS_PIPELINE_STATE_DESC``), ``D3D12_VERTEX_BUFFER_VIEW`` and, in C++, the
  D3D11/D3D10 devices' ``CreateGeometryShaderWithStreamOutput``;
- ``windows.h``: the fixed-size Windows types (``UINT``, ``BYTE``, ``LPCSTR``...), ``TRUE``,
  ``FALSE``, ``_countof``, ``ARRAYSIZE`` and the SAL parameter annotations (``_In_``...),
  which expand to nothing;
- ``DirectXMath.h`` and ``DirectXPackedVector.h`` (C++): the storage types vertices are
  declared with (``XMFLOAT3``, ``XMHALF2``, ``XMCOLOR``...), with DirectXMath's members,
  alignments and constructors (:mod:`gpuia.source.directxmath`).

The stub's ``d3d12.h`` forwards to ``vkd3d_d3d12.h`` when that is on the include path, so a
file that includes ``<d3d12.h>`` is read with vkd3d's header (written for Linux builds: use it
with ``--target x86_64-linux-gnu``). :func:`header_used` tells which header a parse read.
"""

from __future__ import annotations

from functools import cache
from pathlib import PurePosixPath

from ..d3d.desc import InputClassification
from ..d3d.formats import DXGI_FORMAT_VALUES
from ..d3d.ia_desc import APPEND_ALIGNED_ELEMENT
from ..d3d.layout import PROFILES
from ..d3d.so_declaration import SO_BUFFER_SLOT_COUNT
from ..d3d.so_desc import SO_NO_RASTERIZED_STREAM
from .directxmath import directxmath_headers
from .model import STRUCTS

__all__ = ["STUB_NAMES", "REAL_D3D12_HEADERS", "FIELD_C_TYPES", "stub_headers", "header_used"]

REAL_D3D12_HEADERS = ("d3d12.h", "vkd3d_d3d12.h")
"""File names under which a D3D12 header on the include path is recognised as a real one (the
SDK's name, and Debian vkd3d's)."""

STUB_NAMES = {"d3d12": "d3d12.h", "d3d11": "d3d11.h", "d3d10": "d3d10.h"}
"""The header of each API profile."""

FIELD_C_TYPES = {
    "SemanticName": "const char *", "SemanticIndex": "unsigned int", "Format": "DXGI_FORMAT",
    "InputSlot": "unsigned int", "AlignedByteOffset": "unsigned int",
    "InputSlotClass": "{prefix}_INPUT_CLASSIFICATION", "InstanceDataStepRate": "unsigned int",
    "Stream": "unsigned int", "StartComponent": "unsigned char",
    "ComponentCount": "unsigned char", "OutputSlot": "unsigned char",
}
"""C type of every field of the structs in :data:`gpuia.source.model.STRUCTS` (d3d12.h,
d3d11.h and d3d10.h: LPCSTR, UINT, BYTE, the format and classification enums). Written with
C's own types so that a stub D3D11/D3D10 header can sit beside a real d3d12.h."""

# Classification enumerator names per profile: d3d12.h spells them
# D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, d3d11.h and d3d10.h D3D11_INPUT_PER_VERTEX_DATA.
_CLASS_PREFIX = {"d3d12": "D3D12_INPUT_CLASSIFICATION_", "d3d11": "D3D11_INPUT_",
                 "d3d10": "D3D10_INPUT_"}
# Profiles whose SO declarations have a rasterized-stream choice (D3D10 streams out stream 0).
_RASTERIZED_STREAM = ("d3d12", "d3d11")

_WINDOWS_TYPES = {
    "BYTE": "unsigned char", "UINT8": "unsigned char", "UCHAR": "unsigned char",
    "BOOLEAN": "unsigned char", "CHAR": "char", "INT8": "signed char",
    "WORD": "unsigned short", "USHORT": "unsigned short", "UINT16": "unsigned short",
    "SHORT": "short", "INT16": "short",
    "UINT": "unsigned int", "UINT32": "unsigned int", "DWORD": "unsigned int",
    "ULONG": "unsigned int", "INT": "int", "INT32": "int", "LONG": "int", "BOOL": "int",
    "HRESULT": "int", "FLOAT": "float", "DOUBLE": "double",
    "UINT64": "unsigned long long", "ULONGLONG": "unsigned long long",
    "INT64": "long long", "LONGLONG": "long long",
    "SIZE_T": "__SIZE_TYPE__", "UINT_PTR": "__UINTPTR_TYPE__", "INT_PTR": "__INTPTR_TYPE__",
    "LPCSTR": "const char *", "LPSTR": "char *", "LPVOID": "void *", "LPCVOID": "const void *",
}
# Windows' types have fixed sizes on every Windows target (LONG and DWORD are 32-bit where C's
# long is 64-bit), so they are written with C types of those sizes, not with long.

# The SAL annotations (sal.h, which windows.h includes) that D3D code puts on parameters; they
# expand to nothing outside MSVC's code analysis.
_SAL = ("_In_", "_In_opt_", "_Out_", "_Out_opt_", "_Inout_", "_Inout_opt_", "_In_z_", "_Outptr_",
        "_Outptr_opt_", "_COM_Outptr_", "_COM_Outptr_opt_", "_Use_decl_annotations_",
        "_Success_(expr)", "_In_reads_(size)", "_In_reads_opt_(size)", "_In_reads_bytes_(size)",
        "_In_reads_bytes_opt_(size)", "_Out_writes_(size)", "_Out_writes_opt_(size)",
        "_Out_writes_bytes_(size)", "_Out_writes_to_(size, count)", "_Inout_updates_(size)",
        "_Inout_updates_bytes_(size)", "_Field_size_(size)", "_Field_size_bytes_(size)",
        "_Ret_maybenull_", "_Check_return_")

def _dxgiformat() -> str:
    values = ",\n".join(f"    DXGI_FORMAT_{name} = {value}"
                        for name, value in sorted(DXGI_FORMAT_VALUES.items(),
                                                  key=lambda kv: kv[1]))
    return ("#pragma once\n"
            "#if !defined(__dxgiformat_h__) && !defined(__vkd3d_dxgiformat_h__)\n"
            "#define __dxgiformat_h__\n"
            f"typedef enum DXGI_FORMAT {{\n{values}\n}} DXGI_FORMAT;\n"
            "#endif\n")


def _windows() -> str:
    types = "".join(f"typedef {c} {name};\n" for name, c in _WINDOWS_TYPES.items())
    sal = "".join(f"#define {name}\n" for name in _SAL)
    return ("#pragma once\n#include <stddef.h>\n#include <stdint.h>\n#include <limits.h>\n"
            "#ifndef _WINDEF_\n#define _WINDEF_\n" + types + sal +
            "#define TRUE 1\n#define FALSE 0\n"
            "#define _countof(array) (sizeof(array) / sizeof((array)[0]))\n"
            "#define ARRAYSIZE(array) (sizeof(array) / sizeof((array)[0]))\n#endif\n")


def _profile(profile: str) -> str:
    """The input-element and SO structs and constants of one API profile."""
    prefix = profile.upper()
    class_prefix = _CLASS_PREFIX[profile]
    classes = ",\n".join(f"    {class_prefix}{c.name} = {int(c)}" for c in InputClassification)
    out = [f"typedef enum {prefix}_INPUT_CLASSIFICATION {{\n{classes}\n}} "
           f"{prefix}_INPUT_CLASSIFICATION;\n",
           f"#define {prefix}_APPEND_ALIGNED_ELEMENT (0x{APPEND_ALIGNED_ELEMENT:x})\n",
           f"#define {prefix}_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT "
           f"({PROFILES[profile].slot_count})\n"]
    if profile in _RASTERIZED_STREAM:
        out.append(f"#define {prefix}_SO_NO_RASTERIZED_STREAM (0x{SO_NO_RASTERIZED_STREAM:x})\n"
                   f"#define {prefix}_SO_BUFFER_SLOT_COUNT ({SO_BUFFER_SLOT_COUNT})\n")
    for struct, kind in STRUCTS.items():
        if kind.profile != profile:
            continue
        fields = "".join(f"    {FIELD_C_TYPES[f].format(prefix=prefix)} {f};\n"
                         for f in kind.fields)
        out.append(f"typedef struct {struct} {{\n{fields}}} {struct};\n")
    return "".join(out)


_D3D12_DESCS = """\
typedef struct D3D12_INPUT_LAYOUT_DESC {
    const D3D12_INPUT_ELEMENT_DESC *pInputElementDescs;
    UINT NumElements;
} D3D12_INPUT_LAYOUT_DESC;
typedef struct D3D12_STREAM_OUTPUT_DESC {
    const D3D12_SO_DECLARATION_ENTRY *pSODeclaration;
    UINT NumEntries;
    const UINT *pBufferStrides;
    UINT NumStrides;
    UINT RasterizedStream;
} D3D12_STREAM_OUTPUT_DESC;
typedef UINT64 D3D12_GPU_VIRTUAL_ADDRESS;
typedef struct D3D12_VERTEX_BUFFER_VIEW {
    D3D12_GPU_VIRTUAL_ADDRESS BufferLocation;
    UINT SizeInBytes;
    UINT StrideInBytes;
} D3D12_VERTEX_BUFFER_VIEW;
typedef struct D3D12_SHADER_BYTECODE {
    const void *pShaderBytecode;
    SIZE_T BytecodeLength;
} D3D12_SHADER_BYTECODE;
typedef struct ID3D12RootSignature ID3D12RootSignature;
typedef struct D3D12_GRAPHICS_PIPELINE_STATE_DESC {
    ID3D12RootSignature *pRootSignature;
    D3D12_SHADER_BYTECODE VS, PS, DS, HS, GS;
    D3D12_STREAM_OUTPUT_DESC StreamOutput;
    UINT SampleMask;
    D3D12_INPUT_LAYOUT_DESC InputLayout;
    UINT NumRenderTargets;
    DXGI_FORMAT RTVFormats[8];
    DXGI_FORMAT DSVFormat;
    UINT NodeMask;
} D3D12_GRAPHICS_PIPELINE_STATE_DESC;
"""

# The devices' Stream Output calls (d3d11.h, d3d10.h), whose arguments gpuia reads strides from.
_DEVICES = {
    "d3d11": """\
#ifdef __cplusplus
struct ID3D11ClassLinkage;
struct ID3D11GeometryShader;
struct ID3D11Device {
    virtual int CreateGeometryShaderWithStreamOutput(
        const void *pShaderBytecode, __SIZE_TYPE__ BytecodeLength,
        const D3D11_SO_DECLARATION_ENTRY *pSODeclaration, unsigned int NumEntries,
        const unsigned int *pBufferStrides, unsigned int NumStrides,
        unsigned int RasterizedStream, ID3D11ClassLinkage *pClassLinkage,
        ID3D11GeometryShader **ppGeometryShader) = 0;
};
#endif
""",
    "d3d10": """\
#ifdef __cplusplus
struct ID3D10GeometryShader;
struct ID3D10Device {
    virtual int CreateGeometryShaderWithStreamOutput(
        const void *pShaderBytecode, __SIZE_TYPE__ BytecodeLength,
        const D3D10_SO_DECLARATION_ENTRY *pSODeclaration, unsigned int NumEntries,
        unsigned int OutputStreamStride, ID3D10GeometryShader **ppGeometryShader) = 0;
};
#endif
""",
}


def _d3d12() -> str:
    return ("#pragma once\n"
            "#if __has_include(<vkd3d_d3d12.h>)\n"
            "/* Debian's libvkd3d-headers: a real d3d12.h under vkd3d's name. */\n"
            "#include <vkd3d_windows.h>\n#include <vkd3d_d3d12.h>\n"
            "#else\n#define __d3d12_h__\n#include <windows.h>\n#include <dxgiformat.h>\n"
            + _profile("d3d12") + _D3D12_DESCS + "#endif\n")


def _d3d1x(profile: str) -> str:
    guard = f"__{profile}_h__"
    return (f"#pragma once\n#ifndef {guard}\n#define {guard}\n#include <stddef.h>\n"
            f"#include <dxgiformat.h>\n" + _profile(profile) + _DEVICES[profile] + "#endif\n")


@cache
def stub_headers() -> dict[str, str]:
    """The generated headers, by file name.

    Returns:
        ``{file name: text}`` for ``d3d12.h``, ``d3d11.h``, ``d3d10.h``, ``dxgiformat.h``,
        ``windows.h``, ``DirectXMath.h`` and ``DirectXPackedVector.h``.
    """
    return {
        STUB_NAMES["d3d12"]: _d3d12(), STUB_NAMES["d3d11"]: _d3d1x("d3d11"),
        STUB_NAMES["d3d10"]: _d3d1x("d3d10"), "dxgiformat.h": _dxgiformat(),
        "windows.h": _windows(), **directxmath_headers(),
    }


def header_used(included: list[str], stub_dir: str) -> str | None:
    """The real D3D12 header a parse read, or None when it read gpuia's stub.

    Arguments:
        included: the paths of every file the translation unit included.
        stub_dir: the folder the stub headers were given from.

    Returns:
        The path of the first included file named as in :data:`REAL_D3D12_HEADERS` outside
        ``stub_dir``, or None.
    """
    for path in included:
        p = PurePosixPath(path.replace("\\", "/"))
        if p.name.lower() in REAL_D3D12_HEADERS and not str(p).startswith(stub_dir):
            return path
    return None
