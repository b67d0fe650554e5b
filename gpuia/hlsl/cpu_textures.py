"""Texture2D and SamplerState in the CPU reference's C++, read as D3D12 reads them (rules 16).

Slang's C++ prelude declares ``Texture2D<T>`` over an ``ITexture`` interface (virtual
``Load``, ``SampleLevel`` taking float pointers) and ``SamplerState`` over an
``ISamplerState``, both one pointer, which Slang leaves to its host to implement.
:func:`bounded_textures` replaces both structs by gpuia's, one pointer each still (Slang's
``GlobalParams`` keeps its offsets), pointing at a blob the runner maps like a constant
buffer: :func:`texture_blob` (the size, the levels' first texels, then every texel as the four
32-bit components the shader sees, decoded by the caller: ``gpuia.reference.textures``) and
:meth:`gpuia.d3d.textures.SamplerDesc.words`. Guaranteed, in gpuia's C++:

* ``Load(int3(x, y, mip))`` returns the texel, or 0 in every component when ``mip`` is not a
  level of the texture or (x, y) is outside it (rules 16.1);
* ``GetDimensions`` gives level 0's size, or ``max(1, size >> mip)`` and the level count, the
  size 0 for a ``mip`` past the last level (rules 16.2);
* ``SampleLevel(s, uv, lod)`` with a point sampler: the level nearest the LOD clamped to the
  sampler's MinLOD..MaxLOD and to the texture's levels, the texel ``floor(u * width)``,
  ``floor(v * height)`` in float32 with the address mode applied to the integer (WRAP, MIRROR,
  CLAMP; rules 16.3, 16.4).

Refused (UnsupportedError): C++ without Slang's declarations of these structs (another Slang
version).
"""

from __future__ import annotations

import re

import numpy as np

from ..d3d.textures import MAX_MIP_LEVELS, mip_offsets
from ..errors import UnsupportedError

__all__ = ["bounded_textures", "texture_blob", "HEADER_WORDS"]

HEADER_WORDS = 4 + MAX_MIP_LEVELS + 1  # width, height, levels, array size, first texels, pad

_SAMPLER = r"""struct SamplerState
{
    // gpuia: the sampler's words (gpuia.d3d.textures.SamplerDesc.words): min, mag, mip
    // filter, the address modes u, v, w (D3D12 enum values), MinLOD, MaxLOD
    const uint32_t* desc;
    float lod(int k) const { float f; memcpy(&f, desc + k, 4); return f; }
};"""

_TEXTURE_2D = r"""struct Texture2D
{
    // gpuia: D3D12's Load, GetDimensions and point SampleLevel (gpuia.hlsl.cpu_textures)
    const uint32_t* data;  // width, height, levels, array size, levels' first texels, texels

    static uint32_t mip(uint32_t size, uint32_t level)
    {
        const uint32_t s = level < 32 ? size >> level : 0u;
        return s ? s : 1u;
    }
    T texel(uint32_t level, uint32_t x, uint32_t y) const
    {
        const size_t at = size_t(data[4 + level]) + size_t(y) * mip(data[0], level) + x;
        T out;
        memcpy(&out, data + GPUIA_TEXTURE_HEADER + 4 * at, sizeof(T));
        return out;
    }
    template<typename U>
    void dims(uint32_t level, U* w, U* h, U* n) const
    {
        const bool in = level < data[2];  // a level past the last: size 0 (rules 16.2)
        *w = U(in ? mip(data[0], level) : 0u);
        *h = U(in ? mip(data[1], level) : 0u);
        *n = U(data[2]);
    }
    void GetDimensions(uint32_t* w, uint32_t* h) { *w = data[0]; *h = data[1]; }
    void GetDimensions(float* w, float* h) { *w = float(data[0]); *h = float(data[1]); }
    void GetDimensions(uint32_t level, uint32_t* w, uint32_t* h, uint32_t* n)
    {
        dims(level, w, h, n);
    }
    void GetDimensions(uint32_t level, float* w, float* h, float* n) { dims(level, w, h, n); }

    T Load(const int3& loc) const
    {
        // rules 16.1: outside the level, or no such level: 0 in every component
        if (loc.z < 0 || uint32_t(loc.z) >= data[2] || loc.x < 0 || loc.y < 0 ||
            uint32_t(loc.x) >= mip(data[0], loc.z) || uint32_t(loc.y) >= mip(data[1], loc.z))
            return T{};
        return texel(uint32_t(loc.z), uint32_t(loc.x), uint32_t(loc.y));
    }

    static float reduce(uint32_t mode, float u)
    {
        // rules 16.3 (D3D11.3 spec 7.18.6): WRAP keeps frac(u), MIRROR signedFrac(u / 2) * 2,
        // the others clamp u to [-10, 10]; each exact in float32
        if (mode == 1) return u - std::floor(u);
        if (mode == 2) return (u / 2 - std::trunc(u / 2)) * 2;
        return u < -10.0f ? -10.0f : (u > 10.0f ? 10.0f : u);
    }
    static uint32_t address(uint32_t mode, float coordinate, uint32_t size)
    {
        // rules 16.3: the texel floor(u * size) of the reduced u (a NaN: 0, as D3D's
        // conversion to fixed point), then the address mode on the integer (rules 16.4, the
        // spec's 7.18.9 pseudo-code)
        const float scaled = reduce(mode, coordinate) * float(size);
        const int64_t n = int64_t(size);
        int64_t i = scaled != scaled ? 0 : int64_t(std::floor(scaled));
        if (i >= 0 && i < n) return uint32_t(i);
        switch (mode)
        {
        case 1: return uint32_t(((i % n) + n) % n);  // WRAP
        case 2:                                       // MIRROR: odd tiles reversed
            {
                if (i < 0) i = -i - 1;
                const bool flip = (i / n) & 1;
                i %= n;
                return uint32_t(flip ? n - i - 1 : i);
            }
        case 5: if (i < 0) i = -i - 1;  // MIRROR_ONCE, then clamped
            [[fallthrough]];
        default: return uint32_t(i < 0 ? 0 : (i >= n ? n - 1 : i));  // CLAMP
        }
    }
    T SampleLevel(SamplerState s, const float2& uv, float level) const
    {
        // rules 16.3: the LOD clamped to MinLOD..MaxLOD, the nearest level of the texture
        // (D3D11.3 spec 7.18.10: floor(lod + 0.5), clamped to the levels; a NaN LOD: 0)
        float lod = level != level ? 0.0f : level;
        lod = lod < s.lod(6) ? s.lod(6) : lod;
        lod = lod > s.lod(7) ? s.lod(7) : lod;
        double nearest = std::floor(double(lod) + 0.5);
        const double last = double(data[2] - 1);
        nearest = nearest < 0 ? 0 : (nearest > last ? last : nearest);
        const uint32_t m = uint32_t(nearest);
        return texel(m, address(s.desc[3], uv.x, mip(data[0], m)),
                     address(s.desc[4], uv.y, mip(data[1], m)));
    }
};"""


def _replace(code: str, name: str, text: str, template: bool) -> str:
    head = r"template\s*<typename T>\s*\n" if template else ""
    m = re.search(rf"^{head}struct {name}\n\{{\n.*?^\}};", code, re.S | re.M)
    if m is None:
        raise UnsupportedError(f"Slang's C++ has no declaration of {name} gpuia knows (another "
                               f"Slang version?): the CPU reference cannot bind it")
    lead = "template<typename T>\n" if template else ""
    return code[:m.start()] + lead + text + code[m.end():]


def bounded_textures(code: str) -> str:
    """Slang's C++ ``code`` with gpuia's ``SamplerState`` and ``Texture2D<T>``."""
    code = _replace(code, "SamplerState", _SAMPLER, False)
    texture = _TEXTURE_2D.replace("GPUIA_TEXTURE_HEADER", str(HEADER_WORDS))
    return _replace(code, "Texture2D", texture, True)


def texture_blob(width: int, height: int, levels: int, texels: np.ndarray) -> bytes:
    """The bytes gpuia's C++ ``Texture2D`` reads: the header (width, height, levels, array
    size 1, each level's first texel) and ``texels`` ((n, 4) uint32: every level's texels,
    level 0 first, rows of ``max(1, width >> level)``)."""
    offsets = mip_offsets(width, height, levels, 1)
    if texels.shape != (offsets[-1], 4):
        raise ValueError(f"{texels.shape} texels for a {width}x{height} texture of {levels} "
                         f"levels ({offsets[-1]} texels)")
    header = np.zeros(HEADER_WORDS, np.uint32)
    header[:4] = (width, height, levels, 1)
    header[4:4 + levels] = offsets[:levels]
    return header.tobytes() + np.ascontiguousarray(texels, np.uint32).tobytes()
