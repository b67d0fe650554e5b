"""Texture1D, Texture2D, Texture2DArray, Texture3D, SamplerState and SamplerComparisonState in
the CPU reference's C++, read as D3D12 reads them (rules 17). A Texture1DArray is the
Texture2DArray of height 1 its source is rewritten to (``gpuia.hlsl.texture1d_arrays``), as for
the WGSL.

Slang's C++ prelude declares ``Texture2D<T>`` over an ``ITexture`` interface (virtual
``Load``, ``SampleLevel`` taking float pointers; the other shapes alike) and ``SamplerState``
over an ``ISamplerState``, both one pointer, which Slang leaves to its host to implement.
:func:`bounded_textures` replaces these structs by gpuia's, one pointer each still (Slang's
``GlobalParams`` keeps its offsets), pointing at a blob the runner maps like a constant
buffer: :func:`texture_blob` (the size, the levels' first texels, then every texel as the four
32-bit components the shader sees, decoded by the caller: ``gpuia.reference.textures``) and
:meth:`gpuia.d3d.textures.SamplerDesc.words`. Guaranteed, in gpuia's C++:

* ``Load(int3(x, y, mip))`` (an array's ``int4(x, y, slice, mip)``, a Texture1D's
  ``int2(x, mip)``, a Texture3D's ``int4(x, y, z, mip)``) returns the texel, or 0 in every
  component when ``mip`` is not a level of the texture, the slice not one of its slices or the
  texel is outside it (rules 17.1, 17.7, 17.8); ``operator[]`` (``tex[uint2(x, y)]``, an
  array's ``uint3(x, y, slice)``, a Texture1D's ``uint``, a Texture3D's ``uint3``) is the
  same read of level 0; a ``uint`` or ``int`` texture's texels are the decoded integers'
  bits (rules 17.12);
* ``GetDimensions`` gives level 0's size, or ``max(1, size >> mip)`` and the level count, the
  size (and an array's slice count) 0 for a ``mip`` past the last level (rules 17.2);
* ``SampleLevel(s, uv, lod)`` by the D3D11.3 functional spec's steps (rules 17.3, 17.4, 17.6):
  the LOD plus the sampler's MipLODBias clamped to its MinLOD..MaxLOD, the minification
  filter above LOD 0, the coordinate's range reduced, a point tap ``floor(u * width)`` or
  linear taps ``floor(u * width - 0.5)`` and the next weighted by the exact fraction on each
  axis (a Texture3D's w too; a Texture1D's one row, a Texture2D's one plane at 0.5, where every
  address mode takes index 0 and a linear weight is 0), each tap addressed (WRAP, MIRROR,
  CLAMP, MIRROR_ONCE; a tap outside the level on a BORDER axis the sampler's border colour,
  its components the format has clamped to the format's range, the others 0, 0, 0, 1: rules
  17.4), the nearest level or the two around the LOD
  weighted by its fraction, in double precision, rounded to float32 once; an array's slice
  rounded to nearest even and clamped to its slices (a NaN: 0);
* ``SampleLevel`` with a texel offset (an ``int``, ``int2`` or ``int3``, rules 17.11) adds it
  to each tap's integer texel index in the level's texels before the address mode, never to
  an array's slice;
* ``SampleCmpLevelZero(s, uv, reference[, offset])`` (compiled as ``SampleLevel``:
  :func:`lower_comparisons`) takes LOD 0 and the same steps with each tap replaced by 1.0 when
  ``reference {func} texel.r`` holds, else 0.0, a UNORM format's reference quantized to its
  bits first (rules 17.10).

Refused (UnsupportedError): C++ without Slang's declarations of these structs (another Slang
version).
"""

from __future__ import annotations

import re

import numpy as np

from ..d3d.textures import MAX_MIP_LEVELS, mip_offsets
from ..errors import UnsupportedError
from .cpu_cubes import TEXTURE_CUBE, TEXTURE_CUBE_ARRAY

__all__ = ["bounded_textures", "texture_blob", "HEADER_WORDS", "lower_comparisons"]

HEADER_WORDS = 4 + MAX_MIP_LEVELS + 6  # width, height, levels, array size, first texels, the
# texels of one slice, depth (a Texture3D's; 1 otherwise), a comparison's UNORM bits (0: float),
# the format's border range (components, lowest and highest as float32: rules 17.4)

_SAMPLER = r"""struct SamplerState
{
    // gpuia: the sampler's words (gpuia.d3d.textures.SamplerDesc.words): min, mag, mip
    // filter, the address modes u, v, w (D3D12 enum values), MinLOD, MaxLOD, MipLODBias, the
    // comparison function (D3D12 value; 0: none), BorderColor (4 floats)
    const uint32_t* desc;
    float lod(int k) const { float f; memcpy(&f, desc + k, 4); return f; }
};

struct GpuiaTexels
{
    // gpuia: a texture blob (gpuia.hlsl.cpu_textures.texture_blob): width, height, levels,
    // array size, each level's first texel in a slice, the texels of a slice, the depth, a
    // comparison's UNORM bits (0: a float format), the format's border range (its
    // components, lowest and highest value), then every texel's four 32-bit
    // components; D3D12's reads of it (rules 17). A Texture1D is
    // one row (height 1), a Texture2D one plane (depth 1).
    const uint32_t* data;

    static uint32_t mip(uint32_t size, uint32_t level)
    {
        const uint32_t s = level < 32 ? size >> level : 0u;
        return s ? s : 1u;
    }
    const uint32_t* at(uint32_t slice, uint32_t level, uint32_t x, uint32_t y,
                       uint32_t z) const
    {
        const size_t i = size_t(slice) * data[GPUIA_SLICE_WORD] + data[4 + level] +
                         (size_t(z) * mip(data[1], level) + y) * mip(data[0], level) + x;
        return data + GPUIA_TEXTURE_HEADER + 4 * i;
    }
    template<typename U>
    void dims(uint32_t level, U* w, U* h, U* d, U* layers, U* n) const
    {
        // rules 17.2 (resinfo): a level past the last: size (and layers) 0, the count kept
        const bool in = level < data[2];
        *w = U(in ? mip(data[0], level) : 0u);
        if (h) *h = U(in ? mip(data[1], level) : 0u);
        if (d) *d = U(in ? mip(data[GPUIA_DEPTH_WORD], level) : 0u);
        if (layers) *layers = U(in ? data[3] : 0u);
        if (n) *n = U(data[2]);
    }
    bool load(int64_t x, int64_t y, int64_t z, int64_t slice, int64_t level, void* out,
              size_t n) const
    {
        // rules 17.1 (ld): outside the level, the slices or the levels: 0 in every component
        if (level < 0 || level >= int64_t(data[2]) || slice < 0 || slice >= int64_t(data[3]) ||
            x < 0 || y < 0 || z < 0 || x >= int64_t(mip(data[0], uint32_t(level))) ||
            y >= int64_t(mip(data[1], uint32_t(level))) ||
            z >= int64_t(mip(data[GPUIA_DEPTH_WORD], uint32_t(level))))
        {
            memset(out, 0, n);
            return false;
        }
        memcpy(out, at(uint32_t(slice), uint32_t(level), uint32_t(x), uint32_t(y), uint32_t(z)),
               n);
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
    F4 bordered(const SamplerState& s) const
    {
        // rules 17.4 (D3D11.3 spec 7.18.9.1): the border colour's components the format has,
        // clamped to its range; the others the format's defaults 0, 0, 0, 1
        const uint32_t* range = data + GPUIA_BORDER_WORD;
        float lo, hi;
        memcpy(&lo, range + 1, 4);
        memcpy(&hi, range + 2, 4);
        F4 out;
        for (uint32_t k = 0; k < 4; k++)
        {
            const float c = s.lod(10 + int(k));
            out.v[k] = k < range[0] ? (c < lo ? lo : (c > hi ? hi : c)) : (k == 3 ? 1.0 : 0.0);
        }
        return out;
    }
    double compared(uint32_t func, float ref, float texel) const
    {
        // rules 17.10 (sample_c, D3D11.3 spec 22.4.19): "reference {func} texel.r"; a UNORM
        // format's reference quantized as depth is (17.11: NaN 0, clamped to [0, 1], times
        // 2^n - 1, + 0.5, truncated; 3.2.3.6), its texel back to its integer; a float
        // format's float32 values compared (a NaN fails all but NOT_EQUAL, 3.1)
        double r = ref, t = texel;
        if (const uint32_t bits = data[GPUIA_CMP_WORD])
        {
            const float scale = float((1u << bits) - 1u);
            const float c = ref != ref ? 0.0f : (ref < 0.0f ? 0.0f : (ref > 1.0f ? 1.0f : ref));
            r = std::floor(double(c * scale + 0.5f));
            t = std::nearbyint(double(texel) * double(scale));
        }
        bool pass = func == 8;
        switch (func)
        {
        case 2: pass = r < t; break;
        case 3: pass = r == t; break;
        case 4: pass = r <= t; break;
        case 5: pass = r > t; break;
        case 6: pass = !(r == t); break;
        case 7: pass = r >= t; break;
        default: break;
        }
        return pass ? 1.0 : 0.0;
    }
    F4 fetch(uint32_t slice, uint32_t level, uint32_t x, uint32_t y, uint32_t z,
             const SamplerState* cmp, float ref, const F4* border) const
    {
        // a tap outside on a BORDER axis: the border colour (rules 17.4); a comparison
        // sampler's tap: the comparison's 0 or 1 in every component
        const uint32_t* p = at(slice, level, x, y, z);
        F4 out;
        for (int k = 0; k < 4; k++)
        {
            float f;
            memcpy(&f, p + k, 4);
            out.v[k] = border ? border->v[k] : f;
        }
        if (cmp)
            for (int k = 3; k >= 0; k--)
                out.v[k] = compared(cmp->desc[9], ref, float(out.v[0]));
        return out;
    }
    F4 filter(const SamplerState& s, uint32_t linear, uint32_t slice, uint32_t level,
              const float* uvw, float ref, const int* off) const
    {
        const SamplerState* cmp = s.desc[9] ? &s : nullptr;
        // per axis (u, v, w; a 2D texture's one plane, a 1D texture's one row, sampled at 0.5
        // there: every address mode takes index 0 of 1, and a linear weight is 0)
        const uint32_t size[3] = {mip(data[0], level), mip(data[1], level),
                                  mip(data[GPUIA_DEPTH_WORD], level)};
        uint32_t tap[3][2];
        bool edge[3][2];  // a tap outside the level on a BORDER axis (rules 17.4)
        double wt[3];
        const F4 border = bordered(s);
        for (int a = 0; a < 3; a++)
        {
            const uint32_t mode = s.desc[3 + a];
            const float su = reduce(mode, uvw[a]) * float(size[a]);
            // rules 17.3: the texel floor(u * size); 17.6 (7.18.8): the taps floor(u * size -
            // 0.5) and the next, each addressed, weighted by the fraction (exactly here; a
            // GPU's has at least 8 bits)
            const double f = linear ? double(su) - 0.5 : double(su);
            // rules 17.11: the texel offset added to the integer texel, in this level's
            // texels, before the address mode (the weight unchanged)
            const int64_t i0 = whole(f) + off[a];
            wt[a] = linear && f == f ? f - double(whole(f)) : 0.0;
            tap[a][0] = address(mode, i0, size[a]);
            tap[a][1] = address(mode, i0 + 1, size[a]);
            for (int b = 0; b < 2; b++)
                edge[a][b] = mode == 4 && (i0 + b < 0 || i0 + b >= int64_t(size[a]));
        }
        auto outside = [&](int bu, int bv, int bw)
        {
            return edge[0][bu] || edge[1][bv] || edge[2][bw] ? &border : nullptr;
        };
        if (!linear)
            return fetch(slice, level, tap[0][0], tap[1][0], tap[2][0], cmp, ref,
                         outside(0, 0, 0));
        F4 out;
        for (int c = 0; c < 8; c++)
        {
            // a plane's second w tap is its first again, at weight 0: skipped
            const int bu = c & 1, bv = (c >> 1) & 1, bw = c >> 2;
            if (bw && wt[2] == 0) continue;
            const double fu = bu ? wt[0] : 1 - wt[0], fv = bv ? wt[1] : 1 - wt[1];
            const double fw = bw ? wt[2] : 1 - wt[2];
            const F4 t = fetch(slice, level, tap[0][bu], tap[1][bv], tap[2][bw], cmp, ref,
                               outside(bu, bv, bw));
            for (int k = 0; k < 4; k++)  // summed in the order u, then v, then w
                out.v[k] = c ? out.v[k] + t.v[k] * fu * fv * fw : t.v[k] * fu * fv * fw;
        }
        return out;
    }
    void sample(const SamplerState& s, float u, float v, float w, float slice, float level,
                void* out, size_t n, int ou = 0, int ov = 0, int ow = 0) const
    {
        // rules 17.3: the LOD plus MipLODBias clamped to MinLOD..MaxLOD (a NaN LOD: 0); the
        // minification filter above LOD 0, else the magnification one; a point mip filter
        // takes the level
        // floor(lod + 0.5), a linear one levels floor(lod) and the next weighted by the
        // fraction (7.18.10), each clamped to the texture's levels; an array slice rounded
        // to nearest even and clamped to the slices (5.3.6.1; a NaN: 0)
        // a comparison sampler (SampleCmpLevelZero, lowered to SampleLevel: lower_comparisons)
        // takes LOD 0 and the reference in place of the LOD (sample_c_lz, rules 17.10)
        const float ref = level;
        if (s.desc[9]) level = 0.0f;
        float lod = (level != level ? 0.0f : level) + s.lod(8);  // MipLODBias (sample_l)
        lod = lod < s.lod(6) ? s.lod(6) : lod;
        lod = lod > s.lod(7) ? s.lod(7) : lod;
        const uint32_t linear = s.desc[lod > 0 ? 0 : 1];
        const double last = double(data[2] - 1), layers = double(data[3] - 1);
        const double r = slice != slice ? 0.0 : std::nearbyint(double(slice));
        const uint32_t z = uint32_t(r < 0 ? 0 : (r > layers ? layers : r));
        auto clampLevel = [&](double m) { return uint32_t(m < 0 ? 0 : (m > last ? last : m)); };
        const float uvw[3] = {u, v, w};
        const int off[3] = {ou, ov, ow};
        F4 res;
        if (!s.desc[2])
            res = filter(s, linear, z, clampLevel(std::floor(double(lod) + 0.5)), uvw, ref, off);
        else
        {
            const double f = std::floor(double(lod)), wm = double(lod) - f;
            const F4 a = filter(s, linear, z, clampLevel(f), uvw, ref, off);
            const F4 b = filter(s, linear, z, clampLevel(f + 1), uvw, ref, off);
            for (int k = 0; k < 4; k++)
                res.v[k] = a.v[k] * (1 - wm) + b.v[k] * wm;
        }
        float words[4];
        for (int k = 0; k < 4; k++)
            words[k] = float(res.v[k]);
        memcpy(out, words, n);
    }
    void sample_cube(const SamplerState& s, float x, float y, float z, uint32_t cube,
                     float level, void* out, size_t n) const
    {
        // rules 17.9 (D3D11.3 spec 7.18.7): the face of the largest-magnitude component (ties:
        // Z, then Y, then X), the minor axes mirrored onto the face's (s, t), divided by it,
        // * 0.5 + 0.5; then a Texture2D's point sampling of slice 6 cube + face, clamped to
        // the face (a cube has no address modes; gpuia samples cubes with point filters)
        const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
        float sc, tc, ma;
        uint32_t face;
        if (az >= ax && az >= ay)
        {
            face = z < 0 ? 5u : 4u;
            ma = az;
            sc = z < 0 ? -x : x;
            tc = -y;
        }
        else if (ay >= ax)
        {
            face = y < 0 ? 3u : 2u;
            ma = ay;
            sc = x;
            tc = y < 0 ? -z : z;
        }
        else
        {
            face = x < 0 ? 1u : 0u;
            ma = ax;
            sc = x < 0 ? z : -z;
            tc = -y;
        }
        uint32_t words[10];
        memcpy(words, s.desc, sizeof(words));
        words[3] = words[4] = words[5] = 3u;  // CLAMP
        SamplerState clamped;
        clamped.desc = words;
        sample(clamped, sc / ma * 0.5f + 0.5f, tc / ma * 0.5f + 0.5f, 0.5f,
               float(6u * cube + face), level, out, n);
    }
};"""

_TEXTURE_2D = r"""struct Texture2D
{
    // gpuia: D3D12's Load, GetDimensions and SampleLevel (gpuia.hlsl.cpu_textures)
    GpuiaTexels texels;

    void GetDimensions(uint32_t* w, uint32_t* h) { texels.dims(0u, w, h, NO_U, NO_U, NO_U); }
    void GetDimensions(float* w, float* h) { texels.dims(0u, w, h, NO_F, NO_F, NO_F); }
    void GetDimensions(uint32_t level, uint32_t* w, uint32_t* h, uint32_t* n)
    {
        texels.dims(level, w, h, NO_U, NO_U, n);
    }
    void GetDimensions(uint32_t level, float* w, float* h, float* n)
    {
        texels.dims(level, w, h, NO_F, NO_F, n);
    }
    T Load(const int3& loc) const
    {
        T out;
        texels.load(loc.x, loc.y, 0, 0, loc.z, &out, sizeof(T));
        return out;
    }
    T operator[](const uint2& loc) const
    {
        // level 0, the location unsigned (a negative one is out of range, as ld's)
        T out;
        texels.load(loc.x, loc.y, 0, 0, 0, &out, sizeof(T));
        return out;
    }
    T SampleLevel(SamplerState s, const float2& uv, float level) const
    {
        T out;
        texels.sample(s, uv.x, uv.y, 0.5f, 0.0f, level, &out, sizeof(T));
        return out;
    }
    T SampleLevel(SamplerState s, const float2& uv, float level, const int2& off) const
    {
        T out;
        texels.sample(s, uv.x, uv.y, 0.5f, 0.0f, level, &out, sizeof(T), off.x, off.y);
        return out;
    }
};"""

_TEXTURE_2D_ARRAY = r"""struct Texture2DArray
{
    // gpuia: D3D12's Load, GetDimensions and SampleLevel (gpuia.hlsl.cpu_textures)
    GpuiaTexels texels;

    void GetDimensions(uint32_t* w, uint32_t* h, uint32_t* e)
    {
        texels.dims(0u, w, h, NO_U, e, NO_U);
    }
    void GetDimensions(uint32_t level, uint32_t* w, uint32_t* h, uint32_t* e, uint32_t* n)
    {
        texels.dims(level, w, h, NO_U, e, n);
    }
    void GetDimensions(uint32_t* w, float* h, float* e)
    {
        uint32_t hh, ee;
        texels.dims(0u, w, &hh, NO_U, &ee, NO_U);
        *h = float(hh);
        *e = float(ee);
    }
    void GetDimensions(uint32_t level, float* w, float* h, float* e, float* n)
    {
        texels.dims(level, w, h, NO_F, e, n);
    }
    T Load(const int4& loc) const
    {
        // the slice as an unsigned integer: a negative one is out of range (ld)
        T out;
        texels.load(loc.x, loc.y, 0, loc.z, loc.w, &out, sizeof(T));
        return out;
    }
    T operator[](const uint3& loc) const
    {
        T out;
        texels.load(loc.x, loc.y, 0, loc.z, 0, &out, sizeof(T));
        return out;
    }
    T SampleLevel(SamplerState s, const float3& loc, float level) const
    {
        T out;
        texels.sample(s, loc.x, loc.y, 0.5f, loc.z, level, &out, sizeof(T));
        return out;
    }
    T SampleLevel(SamplerState s, const float3& loc, float level, const int2& off) const
    {
        // no offset on the array axis (rules 17.11)
        T out;
        texels.sample(s, loc.x, loc.y, 0.5f, loc.z, level, &out, sizeof(T), off.x, off.y);
        return out;
    }
};"""


_TEXTURE_1D = r"""struct Texture1D
{
    // gpuia: D3D12's Load, GetDimensions and SampleLevel (gpuia.hlsl.cpu_textures): one row
    GpuiaTexels texels;

    void GetDimensions(uint32_t* w) { texels.dims(0u, w, NO_U, NO_U, NO_U, NO_U); }
    void GetDimensions(float* w) { texels.dims(0u, w, NO_F, NO_F, NO_F, NO_F); }
    void GetDimensions(uint32_t level, uint32_t* w, uint32_t* n)
    {
        texels.dims(level, w, NO_U, NO_U, NO_U, n);
    }
    void GetDimensions(uint32_t level, float* w, float* n)
    {
        texels.dims(level, w, NO_F, NO_F, NO_F, n);
    }
    T Load(const int2& loc) const
    {
        T out;
        texels.load(loc.x, 0, 0, 0, loc.y, &out, sizeof(T));
        return out;
    }
    T operator[](uint32_t x) const
    {
        T out;
        texels.load(x, 0, 0, 0, 0, &out, sizeof(T));
        return out;
    }
    T SampleLevel(SamplerState s, float u, float level) const
    {
        T out;
        texels.sample(s, u, 0.5f, 0.5f, 0.0f, level, &out, sizeof(T));
        return out;
    }
    T SampleLevel(SamplerState s, float u, float level, int off) const
    {
        T out;
        texels.sample(s, u, 0.5f, 0.5f, 0.0f, level, &out, sizeof(T), off);
        return out;
    }
};"""

_TEXTURE_3D = r"""struct Texture3D
{
    // gpuia: D3D12's Load, GetDimensions and SampleLevel (gpuia.hlsl.cpu_textures)
    GpuiaTexels texels;

    void GetDimensions(uint32_t* w, uint32_t* h, uint32_t* d)
    {
        texels.dims(0u, w, h, d, NO_U, NO_U);
    }
    void GetDimensions(float* w, float* h, float* d) { texels.dims(0u, w, h, d, NO_F, NO_F); }
    void GetDimensions(uint32_t level, uint32_t* w, uint32_t* h, uint32_t* d, uint32_t* n)
    {
        texels.dims(level, w, h, d, NO_U, n);
    }
    void GetDimensions(uint32_t level, float* w, float* h, float* d, float* n)
    {
        texels.dims(level, w, h, d, NO_F, n);
    }
    T Load(const int4& loc) const
    {
        T out;
        texels.load(loc.x, loc.y, loc.z, 0, loc.w, &out, sizeof(T));
        return out;
    }
    T operator[](const uint3& loc) const
    {
        T out;
        texels.load(loc.x, loc.y, loc.z, 0, 0, &out, sizeof(T));
        return out;
    }
    T SampleLevel(SamplerState s, const float3& uvw, float level) const
    {
        T out;
        texels.sample(s, uvw.x, uvw.y, uvw.z, 0.0f, level, &out, sizeof(T));
        return out;
    }
    T SampleLevel(SamplerState s, const float3& uvw, float level, const int3& off) const
    {
        T out;
        texels.sample(s, uvw.x, uvw.y, uvw.z, 0.0f, level, &out, sizeof(T), off.x, off.y,
                      off.z);
        return out;
    }
};"""

# A shape's C++ struct, replaced where Slang's C++ declares it (only the shapes a shader uses)
_SHAPES = {"Texture1D": _TEXTURE_1D, "Texture2D": _TEXTURE_2D,
           "Texture2DArray": _TEXTURE_2D_ARRAY, "Texture3D": _TEXTURE_3D,
           "TextureCube": TEXTURE_CUBE, "TextureCubeArray": TEXTURE_CUBE_ARRAY}


def _replace(code: str, name: str, text: str, template: bool) -> str:
    head = r"template\s*<typename T>\s*\n" if template else ""
    m = re.search(rf"^{head}struct {name}\n\{{\n.*?^\}};", code, re.S | re.M)
    if m is None:
        raise UnsupportedError(f"Slang's C++ has no declaration of {name} gpuia knows (another "
                               f"Slang version?): the CPU reference cannot bind it")
    lead = "template<typename T>\n" if template else ""
    return code[:m.start()] + lead + text + code[m.end():]


def lower_comparisons(text: str) -> str:
    """HLSL ``text`` with each ``SamplerComparisonState`` a ``SamplerState`` and each
    ``SampleCmpLevelZero(s, location, reference)`` a ``SampleLevel(s, location, reference)``:
    Slang's C++ target has no SampleCmpLevelZero (its compile refuses the capability), and
    gpuia's ``SampleLevel`` of a comparison sampler (its desc's word 9 not 0) is the
    comparison (the shader's own compile refuses a SampleLevel of a SamplerComparisonState,
    so each such call in ``text`` is a SampleCmpLevelZero)."""
    text = re.sub(r"(?<![\w.])SamplerComparisonState(?!\w)", "SamplerState", text)
    return re.sub(r"(\.\s*)SampleCmpLevelZero(?=\s*\()", r"\1SampleLevel", text)


def bounded_textures(code: str) -> str:
    """Slang's C++ ``code`` with gpuia's ``SamplerState``, ``Texture1D<T>``, ``Texture2D<T>``,
    ``Texture2DArray<T>`` and ``Texture3D<T>``."""
    sampler = _SAMPLER.replace("GPUIA_TEXTURE_HEADER", str(HEADER_WORDS)).replace(
        "GPUIA_SLICE_WORD", str(HEADER_WORDS - 6)).replace(
        "GPUIA_DEPTH_WORD", str(HEADER_WORDS - 5)).replace(
        "GPUIA_CMP_WORD", str(HEADER_WORDS - 4)).replace("GPUIA_BORDER_WORD",
                                                         str(HEADER_WORDS - 3))
    code = _replace(code, "SamplerState", sampler, False)
    for name, text in _SHAPES.items():
        code = _replace(code, name, text.replace("NO_U", "(uint32_t*)nullptr").replace(
            "NO_F", "(float*)nullptr"), True)
    return code


def texture_blob(width: int, height: int, levels: int, texels: np.ndarray,
                 array_size: int = 1, depth: int = 1, compare_bits: int = 0,
                 border_range: tuple[int, float, float] = (4, -3.4028234663852886e38,
                                                           3.4028234663852886e38)) -> bytes:
    """The bytes gpuia's C++ ``Texture1D``, ``Texture2D``, ``Texture2DArray`` and ``Texture3D``
    read: the header (width, height, levels, array size, each level's first texel in a slice,
    the texels of a slice, the depth, ``compare_bits``: the UNORM bits a comparison quantizes
    its reference to, 0 for a float format; ``border_range``: the format's
    :attr:`gpuia.d3d.textures.TextureFormat.border_range`) and ``texels`` ((n, 4) uint32:
    slice by slice, each slice's levels level 0 first, planes of rows of
    ``max(1, width >> level)``)."""
    offsets = mip_offsets(width, height, levels, array_size, depth)
    if texels.shape != (offsets[-1], 4):
        raise ValueError(f"{texels.shape} texels for a {width}x{height}x{depth} texture of "
                         f"{levels} levels and {array_size} slices ({offsets[-1]} texels)")
    header = np.zeros(HEADER_WORDS, np.uint32)
    header[:4] = (width, height, levels, array_size)
    header[4:4 + levels] = offsets[:levels]
    header[HEADER_WORDS - 6] = offsets[-1] // array_size
    header[HEADER_WORDS - 5] = depth
    header[HEADER_WORDS - 4] = compare_bits
    header[HEADER_WORDS - 3] = border_range[0]
    header[HEADER_WORDS - 2:] = np.array(border_range[1:], np.float32).view(np.uint32)
    return header.tobytes() + np.ascontiguousarray(texels, np.uint32).tobytes()
