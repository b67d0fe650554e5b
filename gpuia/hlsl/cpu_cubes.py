"""TextureCube and TextureCubeArray in the CPU reference's C++, read as D3D12 reads them
(rules 17.9): the structs :func:`gpuia.hlsl.cpu_textures.bounded_textures` puts where Slang's
C++ declares them, over gpuia's texture blob of 6 slices a cube (faces +X, -X, +Y, -Y, +Z, -Z).

Guaranteed, in gpuia's C++:

* ``SampleLevel(s, direction, lod)`` (a TextureCubeArray's ``float4(direction, cube)``) takes
  the face of the direction's largest-magnitude component (ties: Z, then Y, then X), the other
  two mirrored onto the face's axes and divided by that magnitude, times 0.5 plus 0.5 (the
  D3D11.3 spec's 7.18.7), then the point sampling of that face as a Texture2D's, the
  coordinate clamped to the face (``GpuiaTexels::sample_cube``); a cube array's cube is the
  float rounded to nearest even and clamped to the cubes (5.3.8.1);
* ``GetDimensions`` as a Texture2D's, a TextureCubeArray's elements the number of cubes (0 past
  the last level).

What it does not take is refused before (rules 17.9): ``Load`` (D3D's ld takes no TextureCube),
a linear min or mag filter (``gpuia.d3d.textures.check_sampler_kind``), a comparison.
"""

from __future__ import annotations

__all__ = ["TEXTURE_CUBE", "TEXTURE_CUBE_ARRAY"]

TEXTURE_CUBE = r"""struct TextureCube
{
    // gpuia: D3D12's GetDimensions and SampleLevel of a cube (gpuia.hlsl.cpu_cubes)
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
    T SampleLevel(SamplerState s, const float3& loc, float level) const
    {
        T out;
        texels.sample_cube(s, loc.x, loc.y, loc.z, 0u, level, &out, sizeof(T));
        return out;
    }
};"""

TEXTURE_CUBE_ARRAY = r"""struct TextureCubeArray
{
    // gpuia: D3D12's GetDimensions and SampleLevel of a cube array (gpuia.hlsl.cpu_cubes):
    // its elements are cubes of 6 slices
    GpuiaTexels texels;

    void GetDimensions(uint32_t* w, uint32_t* h, uint32_t* e)
    {
        texels.dims(0u, w, h, NO_U, e, NO_U);
        *e /= 6u;
    }
    void GetDimensions(uint32_t level, uint32_t* w, uint32_t* h, uint32_t* e, uint32_t* n)
    {
        texels.dims(level, w, h, NO_U, e, n);
        *e /= 6u;
    }
    void GetDimensions(uint32_t* w, float* h, float* e)
    {
        uint32_t hh, ee;
        texels.dims(0u, w, &hh, NO_U, &ee, NO_U);
        *h = float(hh);
        *e = float(ee / 6u);
    }
    void GetDimensions(uint32_t level, float* w, float* h, float* e, float* n)
    {
        uint32_t ee;
        texels.dims(level, w, h, NO_F, NO_F, n);
        texels.dims(level, &ee, NO_U, NO_U, &ee, NO_U);
        *e = float(ee / 6u);
    }
    T SampleLevel(SamplerState s, const float4& loc, float level) const
    {
        // the cube rounded to nearest even and clamped to the cubes (a NaN: 0; 5.3.8.1)
        const double cubes = double(texels.data[3] / 6u) - 1;
        const double r = loc.w != loc.w ? 0.0 : std::nearbyint(double(loc.w));
        const uint32_t c = uint32_t(r < 0 ? 0 : (r > cubes ? cubes : r));
        T out;
        texels.sample_cube(s, loc.x, loc.y, loc.z, c, level, &out, sizeof(T));
        return out;
    }
};"""
