"""Texture2D, Texture2DArray and SamplerState in the CPU reference's C++, read as D3D12 reads
them (rules 17).

Slang's C++ prelude declares ``Texture2D<T>`` over an ``ITexture`` interface (virtual
``Load``, ``SampleLevel`` taking float pointers) and ``SamplerState`` over an
``ISamplerState``, both one pointer, which Slang leaves to its host to implement.
:func:`bounded_textures` replaces these structs by gpuia's, one pointer each still (Slang's
``GlobalParams`` keeps its offsets), pointing at a blob the runner maps like a constant
buffer: :func:`texture_blob` (the size, the levels' first texels, then every texel as the four
32-bit components the shader sees, decoded by the caller: ``gpuia.reference.textures``) and
:meth:`gpuia.d3d.textures.SamplerDesc.words`. Guaranteed, in gpuia's C++:

* ``Load(int3(x, y, mip))`` (an array's ``int4(x, y, slice, mip)``) returns the texel, or 0
  in every component when ``mip`` is not a level of the texture, the slice not one of its
  slices or (x, y) is outside it (rules 17.1);
* ``GetDimensions`` gives level 0's size, or ``max(1, size >> mip)`` and the level count, the
  size (and an array's slice count) 0 for a ``mip`` past the last level (rules 17.2);
* ``SampleLevel(s, uv, lod)`` by the D3D11.3 functional spec's steps (rules 17.3, 17.4, 17.6):
  the LOD plus the sampler's MipLODBias clamped to its MinLOD..MaxLOD, the minification
  filter above LOD 0, the coordinate's range reduced, a point tap ``floor(u * width)`` or
  linear taps ``floor(u * width - 0.5)`` and the next weighted by the exact fraction, each tap
  addressed (WRAP, MIRROR, CLAMP, MIRROR_ONCE), the nearest level or the two around the LOD
  weighted by its fraction, in double precision, rounded to float32 once; an array's slice
  rounded to nearest even and clamped to its slices (a NaN: 0).

Refused (UnsupportedError): C++ without Slang's declarations of these structs (another Slang
version).
"""

from __future__ import annotations

import re

import numpy as np

from ..d3d.textures import MAX_MIP_LEVELS, mip_offsets
from ..errors import UnsupportedError

__all__ = ["bounded_textures", "texture_blob", "HEADER_WORDS"]

HEADER_WORDS = 4 + MAX_MIP_LEVELS + 1  # width, height, levels, array size, first texels, the
# texels of one slice

_SAMPLER = r"""struct SamplerState
{
    // gpuia: the sampler's words (gpuia.d3d.textures.SamplerDesc.words): min, mag, mip
    // filter, the address modes u, v, w (D3D12 enum values), MinLOD, MaxLOD, MipLODBias
    const uint32_t* desc;
    float lod(int k) const { float f; memcpy(&f, desc + k, 4); return f; }
};

struct GpuiaTexels
{
    // gpuia: a texture blob (gpuia.hlsl.cpu_textures.texture_blob): width, height, levels,
    // array size, each level's first texel in a slice, the texels of a slice, then every
    // texel's four 32-bit components; D3D12's reads of it (rules 17)
    const uint32_t* data;

    static uint32_t mip(uint32_t size, uint32_t level)
    {
        const uint32_t s = level < 32 ? size >> level : 0u;
        return s ? s : 1u;
    }
    const uint32_t* at(uint32_t slice, uint32_t level, uint32_t x, uint32_t y) const
    {
        const size_t i = size_t(slice) * data[GPUIA_SLICE_WORD] + data[4 + level] +
                         size_t(y) * mip(data[0], level) + x;
        return data + GPUIA_TEXTURE_HEADER + 4 * i;
    }
    template<typename U>
    void dims(uint32_t level, U* w, U* h, U* layers, U* n) const
    {
        // rules 17.2 (resinfo): a level past the last: size (and layers) 0, the count kept
        const bool in = level < data[2];
        *w = U(in ? mip(data[0], level) : 0u);
        *h = U(in ? mip(data[1], level) : 0u);
        if (layers) *layers = U(in ? data[3] : 0u);
        *n = U(data[2]);
    }
    bool load(int64_t x, int64_t y, int64_t slice, int64_t level, void* out, size_t n) const
    {
        // rules 17.1 (ld): outside the level, the slices or the levels: 0 in every component
        if (level < 0 || level >= int64_t(data[2]) || slice < 0 || slice >= int64_t(data[3]) ||
            x < 0 || y < 0 || x >= int64_t(mip(data[0], uint32_t(level))) ||
            y >= int64_t(mip(data[1], uint32_t(level))))
        {
            memset(out, 0, n);
            return false;
        }
        memcpy(out, at(uint32_t(slice), uint32_t(level), uint32_t(x), uint32_t(y)), n);
        return true;
    }
    static float reduce(uint32_t mode, float u)
    {
        // rules 17.3 (D3D11.3 spec 7.18.6): WRAP keeps frac(u), MIRROR signedFrac(u / 2) * 2,
        // the others clamp u to [-10, 10]; each exact in float32
        if (mode == 1) return u - std::floor(u);
        if (mode == 2) return (u / 2 - std::trunc(u / 2)) * 2;
        return u < -10.0f ? -10.0f : (u > 10.0f ? 10.0f : u);
    }
    static uint32_t address(uint32_t mode, int64_t i, uint32_t size)
    {
        // rules 17.4: the address mode on an integer texel index (the spec's 7.18.9)
        const int64_t n = int64_t(size);
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
    static int64_t whole(double x)
    {
        // D3D's conversion to fixed point: a NaN is 0, the range bounded (3.2.4.1)
        return x != x ? 0 : int64_t(std::floor(x < -1e9 ? -1e9 : (x > 1e9 ? 1e9 : x)));
    }
    struct F4 { double v[4]; };
    F4 fetch(uint32_t slice, uint32_t level, uint32_t x, uint32_t y) const
    {
        const uint32_t* p = at(slice, level, x, y);
        F4 out;
        for (int k = 0; k < 4; k++)
        {
            float f;
            memcpy(&f, p + k, 4);
            out.v[k] = f;
        }
        return out;
    }
    F4 filter(const SamplerState& s, uint32_t linear, uint32_t slice, uint32_t level,
              float u, float v) const
    {
        const uint32_t w = mip(data[0], level), h = mip(data[1], level);
        const float su = reduce(s.desc[3], u) * float(w);
        const float sv = reduce(s.desc[4], v) * float(h);
        if (!linear)  // rules 17.3: the texel floor(u * size)
            return fetch(slice, level, address(s.desc[3], whole(su), w),
                         address(s.desc[4], whole(sv), h));
        // rules 17.6 (7.18.8): the taps floor(u * size - 0.5) and the next, each addressed,
        // weighted by the fraction (exactly here; a GPU's has at least 8 bits)
        const double fu = double(su) - 0.5, fv = double(sv) - 0.5;
        const int64_t u0 = whole(fu), v0 = whole(fv);
        const double wu = fu != fu ? 0 : fu - double(u0), wv = fv != fv ? 0 : fv - double(v0);
        const uint32_t x0 = address(s.desc[3], u0, w), x1 = address(s.desc[3], u0 + 1, w);
        const uint32_t y0 = address(s.desc[4], v0, h), y1 = address(s.desc[4], v0 + 1, h);
        const F4 a = fetch(slice, level, x0, y0), b = fetch(slice, level, x1, y0);
        const F4 c = fetch(slice, level, x0, y1), d = fetch(slice, level, x1, y1);
        F4 out;
        for (int k = 0; k < 4; k++)
            out.v[k] = a.v[k] * (1 - wu) * (1 - wv) + b.v[k] * wu * (1 - wv) +
                       c.v[k] * (1 - wu) * wv + d.v[k] * wu * wv;
        return out;
    }
    void sample(const SamplerState& s, float u, float v, float slice, float level, void* out,
                size_t n) const
    {
        // rules 17.3: the LOD plus MipLODBias clamped to MinLOD..MaxLOD (a NaN LOD: 0); the
        // minification filter above LOD 0, else the magnification one; a point mip filter
        // takes the level
        // floor(lod + 0.5), a linear one levels floor(lod) and the next weighted by the
        // fraction (7.18.10), each clamped to the texture's levels; an array slice rounded
        // to nearest even and clamped to the slices (5.3.6.1; a NaN: 0)
        float lod = (level != level ? 0.0f : level) + s.lod(8);  // MipLODBias (sample_l)
        lod = lod < s.lod(6) ? s.lod(6) : lod;
        lod = lod > s.lod(7) ? s.lod(7) : lod;
        const uint32_t linear = s.desc[lod > 0 ? 0 : 1];
        const double last = double(data[2] - 1), layers = double(data[3] - 1);
        const double r = slice != slice ? 0.0 : std::nearbyint(double(slice));
        const uint32_t z = uint32_t(r < 0 ? 0 : (r > layers ? layers : r));
        auto clampLevel = [&](double m) { return uint32_t(m < 0 ? 0 : (m > last ? last : m)); };
        F4 res;
        if (!s.desc[2])
            res = filter(s, linear, z, clampLevel(std::floor(double(lod) + 0.5)), u, v);
        else
        {
            const double f = std::floor(double(lod)), wm = double(lod) - f;
            const F4 a = filter(s, linear, z, clampLevel(f), u, v);
            const F4 b = filter(s, linear, z, clampLevel(f + 1), u, v);
            for (int k = 0; k < 4; k++)
                res.v[k] = a.v[k] * (1 - wm) + b.v[k] * wm;
        }
        float words[4];
        for (int k = 0; k < 4; k++)
            words[k] = float(res.v[k]);
        memcpy(out, words, n);
    }
};"""

_TEXTURE_2D = r"""struct Texture2D
{
    // gpuia: D3D12's Load, GetDimensions and SampleLevel (gpuia.hlsl.cpu_textures)
    GpuiaTexels texels;

    void GetDimensions(uint32_t* w, uint32_t* h) { uint32_t n; texels.dims(0u, w, h, &n, &n); }
    void GetDimensions(float* w, float* h) { float n; texels.dims(0u, w, h, &n, &n); }
    void GetDimensions(uint32_t level, uint32_t* w, uint32_t* h, uint32_t* n)
    {
        texels.dims(level, w, h, (uint32_t*)nullptr, n);
    }
    void GetDimensions(uint32_t level, float* w, float* h, float* n)
    {
        texels.dims(level, w, h, (float*)nullptr, n);
    }
    T Load(const int3& loc) const
    {
        T out;
        texels.load(loc.x, loc.y, 0, loc.z, &out, sizeof(T));
        return out;
    }
    T SampleLevel(SamplerState s, const float2& uv, float level) const
    {
        T out;
        texels.sample(s, uv.x, uv.y, 0.0f, level, &out, sizeof(T));
        return out;
    }
};"""

_TEXTURE_2D_ARRAY = r"""struct Texture2DArray
{
    // gpuia: D3D12's Load, GetDimensions and SampleLevel (gpuia.hlsl.cpu_textures)
    GpuiaTexels texels;

    void GetDimensions(uint32_t* w, uint32_t* h, uint32_t* e)
    {
        uint32_t n;
        texels.dims(0u, w, h, e, &n);
    }
    void GetDimensions(uint32_t level, uint32_t* w, uint32_t* h, uint32_t* e, uint32_t* n)
    {
        texels.dims(level, w, h, e, n);
    }
    void GetDimensions(uint32_t* w, float* h, float* e)
    {
        uint32_t hh, ee, n;
        texels.dims(0u, w, &hh, &ee, &n);
        *h = float(hh);
        *e = float(ee);
    }
    void GetDimensions(uint32_t level, float* w, float* h, float* e, float* n)
    {
        texels.dims(level, w, h, e, n);
    }
    T Load(const int4& loc) const
    {
        // the slice as an unsigned integer: a negative one is out of range (ld)
        T out;
        texels.load(loc.x, loc.y, loc.z, loc.w, &out, sizeof(T));
        return out;
    }
    T SampleLevel(SamplerState s, const float3& loc, float level) const
    {
        T out;
        texels.sample(s, loc.x, loc.y, loc.z, level, &out, sizeof(T));
        return out;
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
    """Slang's C++ ``code`` with gpuia's ``SamplerState``, ``Texture2D<T>`` and
    ``Texture2DArray<T>``."""
    sampler = _SAMPLER.replace("GPUIA_TEXTURE_HEADER", str(HEADER_WORDS)).replace(
        "GPUIA_SLICE_WORD", str(HEADER_WORDS - 1))
    code = _replace(code, "SamplerState", sampler, False)
    code = _replace(code, "Texture2D", _TEXTURE_2D, True)
    return _replace(code, "Texture2DArray", _TEXTURE_2D_ARRAY, True)


def texture_blob(width: int, height: int, levels: int, texels: np.ndarray,
                 array_size: int = 1) -> bytes:
    """The bytes gpuia's C++ ``Texture2D`` and ``Texture2DArray`` read: the header (width,
    height, levels, array size, each level's first texel in a slice, the texels of a slice)
    and ``texels`` ((n, 4) uint32: slice by slice, each slice's levels level 0 first, rows of
    ``max(1, width >> level)``)."""
    offsets = mip_offsets(width, height, levels, array_size)
    if texels.shape != (offsets[-1], 4):
        raise ValueError(f"{texels.shape} texels for a {width}x{height} texture of {levels} "
                         f"levels and {array_size} slices ({offsets[-1]} texels)")
    header = np.zeros(HEADER_WORDS, np.uint32)
    header[:4] = (width, height, levels, array_size)
    header[4:4 + levels] = offsets[:levels]
    header[HEADER_WORDS - 1] = offsets[-1] // array_size
    return header.tobytes() + np.ascontiguousarray(texels, np.uint32).tobytes()
