"""``SampleCmpLevelZero`` in gpuia's WGSL: a comparison sampler's filter computed from texel
loads, as D3D12 defines it (rules 17.10).

WebGPU's ``textureSampleCompareLevel`` takes a depth texture and filters with
implementation-defined precision, so gpuia does not call it: :func:`compare_helper` gives the
WGSL function that takes the texels the sampler's filter covers by ``textureLoad`` and
compares each one's red component with the reference. Guaranteed: the LOD is the sampler's
(0 + MipLODBias clamped to MinLOD..MaxLOD, :meth:`gpuia.d3d.textures.SamplerDesc.
comparison_lod`), the level ``floor(lod + 0.5)`` or, for a linear mip filter, the two around
it weighted by its fraction, each clamped to the texture's levels; on each axis the
coordinate's range reduced and the taps addressed (WRAP, MIRROR, CLAMP, MIRROR_ONCE) as rules
17.3 and 17.4 state (a tap outside on a BORDER axis takes the border colour's red on the
texture's format: ``gpuia.hlsl.border_wgsl``), a point tap ``floor(u * size)``, linear taps
``floor(u * size - 0.5)`` and the next weighted by the fraction; each tap 1.0 when
``reference {func} texel.r`` holds, else 0.0, then filtered. The state words are
:meth:`gpuia.d3d.textures.SamplerDesc.state_words`'. For float formats only: a UNORM texture
is refused at the draw (R16_UNORM, the only one, is no format of gpuia's WebGPU devices).
"""

from __future__ import annotations

__all__ = ["COMPARE_COMMON", "TAP_COMMON", "compare_helper"]

# D3D12_COMPARISON_FUNC (1 NEVER .. 8 ALWAYS) as "reference {func} texel" (D3D11.3 spec
# 22.4.19); a NaN fails all but NOT_EQUAL (3.1).
COMPARE_COMMON = """fn gpuia_cmp_pass(func : u32, r : f32, t : f32) -> f32
{
    var p = func == 8u;
    switch func {
        case 2u: { p = r < t; }
        case 3u: { p = r == t; }
        case 4u: { p = r <= t; }
        case 5u: { p = r > t; }
        case 6u: { p = !(r == t); }
        case 7u: { p = r >= t; }
        default: {}
    }
    return select(0.0, 1.0, p);
}"""
# The range reduction of rules 17.3 (7.18.6), the address modes of 17.4 (BORDER clamped: its
# caller takes the border colour for a tap outside) and a tap on one axis, shared with the
# BORDER filter (gpuia.hlsl.border_wgsl).
TAP_COMMON = """fn gpuia_cmp_reduce(mode : u32, u : f32) -> f32
{
    if (mode == 1u) { return u - floor(u); }
    if (mode == 2u) { return (u / 2.0 - trunc(u / 2.0)) * 2.0; }
    return clamp(u, -10.0, 10.0);
}
fn gpuia_cmp_address(mode : u32, k : i32, n : i32) -> i32
{
    if (k >= 0 && k < n) { return k; }
    var i = k;
    if (mode == 1u) { return ((i % n) + n) % n; }
    if (mode == 2u || mode == 5u) { if (i < 0) { i = -i - 1; } }
    if (mode == 2u) {
        let flip = ((i / n) & 1) == 1;
        i = i % n;
        return select(i, n - 1 - i, flip);
    }
    return clamp(i, 0, n - 1);
}
// (the tap, the next one's weight) of a coordinate on an axis of n texels
fn gpuia_cmp_tap(mode : u32, linear : bool, u : f32, n : u32) -> vec2<f32>
{
    var f = gpuia_cmp_reduce(mode, u) * f32(n);
    if (linear) { f = f - 0.5; }
    f = select(clamp(f, -1e9, 1e9), 0.0, f != f);
    let i = floor(f);
    return vec2<f32>(i, select(0.0, f - i, linear));
}"""


def compare_helper(k: int, var: str, array: bool, dims: str, layer: str) -> str:
    """The WGSL function ``gpuia_tex_cmp{k}(register, uv, [slice,] reference)`` of the
    shader's ``k``-th texture (WGSL variable ``var``, a 2d-array one when ``array``; ``dims``
    and ``layer``: the names of its level-size and slice helpers, ``gpuia.hlsl.textures``)."""
    slice_param = "z : f32, " if array else ""
    fetch = f"textureLoad({var}, c, s, level)" if array else f"textureLoad({var}, c, level)"
    # one loop over the levels' taps, one textureLoad: a shader's every SampleCmpLevelZero
    # inlines this, and a GPU compiler that unrolls it all takes long (lavapipe: minutes)
    return f"""fn gpuia_tex_cmp{k}(reg : u32, uv : vec2<f32>, {slice_param}r : f32,
                  off : vec2<i32>) -> f32
{{
    let st = gpuia_sampler_state[reg];
    let mu = st.w & 15u;
    let mv = (st.w >> 4u) & 15u;
    let lod = bitcast<f32>(st.y);
    let linear = ((st.z >> select(5u, 4u, lod > 0.0)) & 1u) == 1u;
    let mip = ((st.z >> 6u) & 1u) == 1u;
    let first = select(floor(lod + 0.5), floor(lod), mip);
    let wm = select(0.0, lod - floor(lod), mip);
    let last = f32(textureNumLevels({var})) - 1.0;
    let s = {f"{layer}(z)" if array else "0"};
    let taps = select(1u, 4u, linear);
    let border = gpuia_border_colour(reg, {k}u).r;
    var sum = 0.0;
    for (var i = 0u; i < taps * select(1u, 2u, mip); i++) {{
        let level = i32(clamp(first + f32(i / taps), 0.0, last));
        let n = {dims}(u32(level));
        let tu = gpuia_cmp_tap(mu, linear, uv.x, n.x);
        let tv = gpuia_cmp_tap(mv, linear, uv.y, n.y);
        let du = (i % taps) & 1u;
        let dv = (i % taps) >> 1u;
        // the texel offset in this level's texels, before the address mode (rules 17.11)
        let e = vec2<i32>(i32(tu.x) + off.x + i32(du), i32(tv.x) + off.y + i32(dv));
        let c = vec2<i32>(gpuia_cmp_address(mu, e.x, i32(n.x)),
                          gpuia_cmp_address(mv, e.y, i32(n.y)));
        // BORDER (4): a tap outside compares the border colour's red (rules 17.10, 17.4)
        let out = (mu == 4u && (e.x < 0 || e.x >= i32(n.x))) ||
                  (mv == 4u && (e.y < 0 || e.y >= i32(n.y)));
        let w = select(1.0 - tu.y, tu.y, du == 1u) * select(1.0 - tv.y, tv.y, dv == 1u) *
                select(1.0 - wm, wm, i >= taps);
        sum += w * gpuia_cmp_pass(st.z & 15u, r, select({fetch}.r, border, out));
    }}
    return sum;
}}"""
