"""``SampleLevel`` through a sampler with a BORDER axis in gpuia's WGSL: the filter computed
from texel loads, as D3D12 defines it (rules 17.4, 17.3, 17.6).

WebGPU has no border address mode, so for such a sampler gpuia does not use WebGPU's
filtered result: :func:`border_helper` gives the WGSL function ``gpuia_tex_border{k}`` that
takes the taps itself, and the shader selects its result when the sampler bound has a BORDER
axis (the flag of :meth:`gpuia.d3d.textures.SamplerDesc.border_words`, read from gpuia's
sampler state uniform, so one pipeline serves every sampler). Guaranteed, as the CPU
reference computes it (``gpuia.hlsl.cpu_textures``): the LOD plus MipLODBias clamped to
MinLOD..MaxLOD (a NaN LOD: 0), the minification filter above LOD 0, the level
``floor(lod + 0.5)`` (a point mip filter) or ``floor(lod)`` and the next weighted by the
fraction, clamped to the texture's levels; on each axis the coordinate's range reduced, a point
tap ``floor(u * size)`` or linear taps ``floor(u * size - 0.5)`` and the next weighted by the
fraction (float32), the texel offset added, then the address mode (WRAP, MIRROR, CLAMP,
MIRROR_ONCE); a tap outside the level on a BORDER axis takes the border colour instead of a
texel: the sampler's BorderColor, its components the texture's format has clamped to the
format's range and the others the format's defaults 0, 0, 0, 1 (D3D11.3 spec 7.18.9.1; the
texture's row of the uniform, :attr:`gpuia.d3d.textures.TextureFormat.border_range`).
Point results are exact; linear ones differ from the reference's double-precision weights by
float32 roundings, within rules 17.6's bound.
"""

from __future__ import annotations

from ..d3d.textures import SAMPLER_SLOTS

__all__ = ["BORDER_COMMON", "border_helper", "border_call", "TEXTURE_ROW"]

TEXTURE_ROW = 3 * SAMPLER_SLOTS  # the k-th texture's border range: row TEXTURE_ROW + k

# Whether sampler r has a BORDER axis; the border colour of sampler r on texture k's format
BORDER_COMMON = f"""fn gpuia_border_on(r : u32) -> bool
{{
    return (gpuia_sampler_state[{2 * SAMPLER_SLOTS}u + r].z & 1u) == 1u;
}}
fn gpuia_border_colour(r : u32, k : u32) -> vec4<f32>
{{
    let b = bitcast<vec4<f32>>(gpuia_sampler_state[{SAMPLER_SLOTS}u + r]);
    let f = gpuia_sampler_state[{TEXTURE_ROW}u + k];
    let lo = vec4<f32>(bitcast<f32>(f.y));
    let hi = vec4<f32>(bitcast<f32>(f.z));
    return select(vec4<f32>(0.0, 0.0, 0.0, 1.0), clamp(b, lo, hi),
                  vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(f.x));
}}"""


def border_helper(k: int, var: str, array: bool, axes: int, dims: str, layer: str) -> str:
    """The WGSL function ``gpuia_tex_border{k}(register, coordinate, slice, lod, offset)`` of
    the shader's ``k``-th texture (WGSL variable ``var``, a 2d-array one when ``array``;
    ``axes`` 2, or 3 for a 3d one; ``dims`` and ``layer``: the names of its level-size and
    slice helpers, ``gpuia.hlsl.textures``); 0 when the sampler has no BORDER axis."""
    vec, ivec = f"vec{axes}<f32>", f"vec{axes}<i32>"
    # straight-line taps, one function per level: lavapipe's compiler crashes on a loop over
    # the taps (as gpuia_tex_cmp's) with a per-vertex LOD
    return f"""{_level_helper(k, var, array, axes, dims)}
fn gpuia_tex_border{k}(reg : u32, uv : {vec}, z : f32, lod_in : f32,
                     off : {ivec}) -> vec4<f32>
{{
    let x = gpuia_sampler_state[{2 * SAMPLER_SLOTS}u + reg];
    if ((x.z & 1u) == 0u) {{ return vec4<f32>(); }}
    var lod = select(lod_in, 0.0, lod_in != lod_in) +
              bitcast<f32>(gpuia_sampler_state[reg].y);
    lod = min(max(lod, bitcast<f32>(x.x)), bitcast<f32>(x.y));
    let linear = ((x.z >> select(2u, 1u, lod > 0.0)) & 1u) == 1u;
    let fl = floor(lod);
    let last = f32(textureNumLevels({var})) - 1.0;
    let s = {f"{layer}(z)" if array else "0"};
    let border = gpuia_border_colour(reg, {k}u);
    if (((x.z >> 3u) & 1u) == 0u) {{  // a point mip filter: the nearest level
        let first = fl + select(0.0, 1.0, lod - fl >= 0.5);
        return gpuia_tex_border_at{k}(x.z, linear, uv, s, i32(clamp(first, 0.0, last)), off,
                                     border);
    }}
    let a = gpuia_tex_border_at{k}(x.z, linear, uv, s, i32(clamp(fl, 0.0, last)), off, border);
    let b = gpuia_tex_border_at{k}(x.z, linear, uv, s, i32(clamp(fl + 1.0, 0.0, last)), off,
                                  border);
    return a * (1.0 - (lod - fl)) + b * (lod - fl);
}}"""


def _level_helper(k: int, var: str, array: bool, axes: int, dims: str) -> str:
    """``gpuia_tex_border_at{k}``: the filtered taps of one level (:func:`border_helper`)."""
    names = "xyz"[:axes]
    lines = []
    for a, x in enumerate(names):
        lines += [
            f"    let m{a} = (flags >> {4 + 4 * a}u) & 15u;",
            f"    let t{a} = gpuia_cmp_tap(m{a}, linear, uv.{x}, u32(n.{x}));",
            f"    let e{a} = i32(t{a}.x) + off.{x};",
            f"    let i{a} = vec2<i32>(gpuia_cmp_address(m{a}, e{a}, n.{x}), "
            f"gpuia_cmp_address(m{a}, e{a} + 1, n.{x}));",
            f"    let o{a} = vec2<bool>(m{a} == 4u && (e{a} < 0 || e{a} >= n.{x}),\n"
            f"                         m{a} == 4u && (e{a} + 1 < 0 || e{a} + 1 >= n.{x}));"]
    at = ", s, level" if array else ", level"
    taps, weights = [], []
    for c in range(1 << axes):
        bits = [(c >> a) & 1 for a in range(axes)]
        which = "xy"
        coord = ", ".join(f"i{a}.{which[b]}" for a, b in enumerate(bits))
        out = " || ".join(f"o{a}.{which[b]}" for a, b in enumerate(bits))
        taps.append(f"    let c{c} = select(textureLoad({var}, vec{axes}<i32>({coord}){at}), "
                    f"border, {out});")
        weights.append(" * ".join(f"{'' if b else '(1.0 - '}t{a}.y{'' if b else ')'}"
                                  for a, b in enumerate(bits)) + f" * c{c}")
    body = "\n".join(lines) + "\n    // the texel offset before the address mode (rules " \
        "17.11); BORDER: a tap\n    // outside takes the border colour (rules 17.4)\n" + \
        taps[0] + "\n    if (!linear) { return c0; }\n" + "\n".join(taps[1:]) + \
        "\n    return " + " +\n           ".join(weights) + ";"
    return (f"fn gpuia_tex_border_at{k}(flags : u32, linear : bool, uv : vec{axes}<f32>, "
            f"s : i32, level : i32,\n                        off : vec{axes}<i32>, "
            f"border : vec4<f32>) -> vec4<f32>\n{{\n"
            f"    let n = vec{axes}<i32>({dims}(u32(level)));\n{body}\n}}")


def border_call(k: int, register: int, uv: str, slice_: str, lod: str,
                offset: tuple[int, ...], axes: int) -> str:
    """The call of :func:`border_helper`'s function (``uv``, ``slice_``, ``lod`` WGSL
    expressions; ``offset`` the immediate texel offset, one value per axis)."""
    off = ", ".join(map(str, offset)) if offset else "0"
    return (f"gpuia_tex_border{k}({register}u, {uv}, {slice_}, {lod}, "
            f"vec{axes}<i32>({off}))")
