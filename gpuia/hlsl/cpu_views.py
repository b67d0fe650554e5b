"""D3D12's out-of-bounds reads of buffer SRVs in the CPU reference's C++.

Slang's C++ prelude declares ``StructuredBuffer<T>`` (``{T* data; size_t count;}``) and
``ByteAddressBuffer`` (``{const uint32_t* data; size_t sizeInBytes;}``) with a bounds check that
gpuia's build (``-DSLANG_ENABLE_BOUND_ZERO_INDEX``) turns into a read of element 0. D3D12
returns 0 for a read past the view. Guaranteed by :func:`bounded_views`: both structs are
replaced by gpuia's, with the same members (the runner fills them as before), whose reads past
the view return a zero element (structured; a typed view's out-of-bounds element, which its
bytes end with) or zero words, word by word, a raw load's address
taken with its low two bits cleared (as D3D does); ``GetDimensions`` as Slang's. Refused
(UnsupportedError): C++ without those two declarations (another Slang version).
"""

from __future__ import annotations

import re

from ..errors import UnsupportedError

__all__ = ["bounded_views"]

_STRUCTURED = r"""struct StructuredBuffer
{
    // gpuia: a read past the view is a zero element, as D3D12 (gpuia.hlsl.cpu_views)
    SLANG_FORCE_INLINE T& operator[](size_t index) const { return at(index); }
    T& Load(size_t index) const { return at(index); }
    // gpuia: a typed view (a lowered Buffer<T>) sets count's top bit: data[its count] is
    // its format's out-of-bounds value (gpuia.hlsl.typed_buffers)
    static size_t elements(size_t n) { return n & ~(size_t(1) << 63); }
    T& at(size_t index) const
    {
        static T zero{};  // never written: a StructuredBuffer is read-only
        const size_t n = elements(count);
        return index < n ? data[index] : n != count ? data[n] : zero;
    }
    void GetDimensions(uint32_t* outNumStructs, uint32_t* outStride)
    {
        *outNumStructs = uint32_t(elements(count));
        *outStride = uint32_t(sizeof(T));
    }

    T* data;
    size_t count;
};"""

_RAW = r"""struct ByteAddressBuffer
{
    // gpuia: words past the view read 0, each word checked, as D3D12 (gpuia.hlsl.cpu_views)
    void GetDimensions(uint32_t* outDim) const { *outDim = uint32_t(sizeInBytes); }
    uint32_t word(size_t index, size_t k) const
    {
        const size_t w = (index >> 2) + k;
        return w < (sizeInBytes >> 2) ? data[w] : 0u;
    }
    uint32_t Load(size_t index) const { return word(index, 0); }
    uint2 Load2(size_t index) const { return uint2{word(index, 0), word(index, 1)}; }
    uint3 Load3(size_t index) const
    {
        return uint3{word(index, 0), word(index, 1), word(index, 2)};
    }
    uint4 Load4(size_t index) const
    {
        return uint4{word(index, 0), word(index, 1), word(index, 2), word(index, 3)};
    }
    template<typename T>
    T Load(size_t index) const
    {
        static_assert(sizeof(T) % 4 == 0, "gpuia: 32-bit words only");
        uint32_t words[sizeof(T) / 4];
        for (size_t k = 0; k < sizeof(T) / 4; k++)
            words[k] = word(index, k);
        T out;
        memcpy(&out, words, sizeof(T));
        return out;
    }

    const uint32_t* data;
    size_t sizeInBytes; //< Must be multiple of 4
};"""


def _replace(code: str, name: str, text: str) -> str:
    m = re.search(rf"^struct {name}\n\{{\n.*?^\}};", code, re.S | re.M)
    if m is None:
        raise UnsupportedError(f"Slang's C++ has no declaration of {name} gpuia knows (another "
                               f"Slang version?): the CPU reference cannot bind it")
    return code[:m.start()] + text + code[m.end():]


def bounded_views(code: str) -> str:
    """Slang's C++ ``code`` with gpuia's ``StructuredBuffer`` and ``ByteAddressBuffer``."""
    return _replace(_replace(code, "StructuredBuffer", _STRUCTURED), "ByteAddressBuffer", _RAW)
