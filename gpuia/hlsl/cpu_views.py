"""D3D12's out-of-bounds reads of buffer SRVs in the CPU reference's C++.

Slang's C++ prelude declares ``StructuredBuffer<T>`` (``{T* data; size_t count;}``) and
``ByteAddressBuffer`` (``{const uint32_t* data; size_t sizeInBytes;}``) with a bounds check that
gpuia's build (``-DSLANG_ENABLE_BOUND_ZERO_INDEX``) turns into a read of element 0. D3D12
returns 0 for a read past the view. Guaranteed by :func:`bounded_views`: both structs are
replaced by gpuia's, with the same members (the runner fills them as before), whose reads past
the view return a zero element (structured; a typed view's out-of-bounds element, which its
bytes end with) or zero words, word by word, a raw load's address
taken with its low two bits cleared (as D3D does); ``GetDimensions`` as Slang's. Their RW forms
(a vertex shader's UAVs, ``gpuia.hlsl.uavs``) are replaced too: past the view a read is zero and
a write is dropped, word by word for a raw store. Refused
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

# The reads of both raw views (their words past the view read 0, each word checked).
_RAW_LOADS = r"""    void GetDimensions(uint32_t* outDim) const { *outDim = uint32_t(sizeInBytes); }
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
"""

_RAW = r"""struct ByteAddressBuffer
{
    // gpuia: words past the view read 0, each word checked, as D3D12 (gpuia.hlsl.cpu_views)
""" + _RAW_LOADS + r"""
    const uint32_t* data;
    size_t sizeInBytes; //< Must be multiple of 4
};"""


_RW_STRUCTURED = r"""struct RWStructuredBuffer
{
    // gpuia: past the view a read is a zero element and a write is dropped, as D3D12
    // (gpuia.hlsl.cpu_views): the reference returned is a scratch element zeroed first
    SLANG_FORCE_INLINE T& operator[](size_t index) const { return at(index); }
    const T& Load(size_t index) const { return at(index); }
    T& at(size_t index) const
    {
        if (index < count)
            return data[index];
        static thread_local T scratch;
        scratch = T{};
        return scratch;
    }
    void GetDimensions(uint32_t* outNumStructs, uint32_t* outStride)
    {
        *outNumStructs = uint32_t(count);
        *outStride = uint32_t(sizeof(T));
    }

    T* data;
    size_t count;
};"""

_RW_RAW = r"""struct RWByteAddressBuffer
{
    // gpuia: words past the view read 0 and are not written, each word checked, as D3D12
    // (gpuia.hlsl.cpu_views); an address's low two bits are dropped
""" + _RAW_LOADS + r"""    void put(size_t index, size_t k, uint32_t v) const
    {
        const size_t w = (index >> 2) + k;
        if (w < (sizeInBytes >> 2))
            data[w] = v;
    }
    void Store(size_t index, uint32_t v) const { put(index, 0, v); }
    void Store2(size_t index, uint2 v) const { put(index, 0, v.x); put(index, 1, v.y); }
    void Store3(size_t index, uint3 v) const
    {
        put(index, 0, v.x); put(index, 1, v.y); put(index, 2, v.z);
    }
    void Store4(size_t index, uint4 v) const
    {
        put(index, 0, v.x); put(index, 1, v.y); put(index, 2, v.z); put(index, 3, v.w);
    }
    template<typename T>
    void Store(size_t index, T const& value) const
    {
        static_assert(sizeof(T) % 4 == 0, "gpuia: 32-bit words only");
        uint32_t words[sizeof(T) / 4];
        memcpy(words, &value, sizeof(T));
        for (size_t k = 0; k < sizeof(T) / 4; k++)
            put(index, k, words[k]);
    }

    uint32_t* data;
    size_t sizeInBytes; //< Must be multiple of 4
};"""


def _replace(code: str, name: str, text: str) -> str:
    m = re.search(rf"^struct {name}\n\{{\n.*?^\}};", code, re.S | re.M)
    if m is None:
        raise UnsupportedError(f"Slang's C++ has no declaration of {name} gpuia knows (another "
                               f"Slang version?): the CPU reference cannot bind it")
    return code[:m.start()] + text + code[m.end():]


def bounded_views(code: str) -> str:
    """Slang's C++ ``code`` with gpuia's ``StructuredBuffer``, ``ByteAddressBuffer``,
    ``RWStructuredBuffer`` (the kernel's own output is one, always inside its count) and
    ``RWByteAddressBuffer``."""
    for name, text in (("StructuredBuffer", _STRUCTURED), ("ByteAddressBuffer", _RAW),
                       ("RWStructuredBuffer", _RW_STRUCTURED),
                       ("RWByteAddressBuffer", _RW_RAW)):
        code = _replace(code, name, text)
    return code
