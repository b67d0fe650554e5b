"""Textures and samplers of a case (``docs/case-format.md``): ``shader_resources`` entries of
``"kind": "texture1d"``, ``"texture2d"`` or ``"texture3d"`` and the top-level ``samplers``
list.

Guaranteed: one :class:`CaseTexture` per texture register the HLSL vertex shader reads, its
data exactly every level's texels (level 0 first, tightly packed), and one sampler
(:class:`gpuia.d3d.textures.SamplerDesc`) per sampler register it samples with; the CPU
reference reads them as blobs of texels decoded by the reference's own decoder
(:func:`cpu_blobs`), the GPU as real WebGPU textures and samplers (:func:`bind_gpu`). A
malformed entry is a :class:`~gpuia.errors.CaseError`; a texture or sampler register the
shader reads without an entry, an entry where it reads a buffer, an entry of another
dimension than the shader's texture (D3D12's SRV dimension is the resource's) or sizes
D3D12_RESOURCE_DESC refuses (``gpuia.d3d.textures.check_dimensions``), an
:class:`~gpuia.errors.InvalidDescError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..d3d.textures import (
    DIMENSIONS,
    TEXTURE_FORMATS,
    SamplerDesc,
    check_dimensions,
    check_sampler_kind,
    check_view_format,
    check_view_shape,
    sampler_binding,
    sampler_desc,
    texture_format,
)
from ..errors import CaseError, InvalidDescError
from .case_data import decode_data, uint_field

__all__ = ["TEXTURE_KINDS", "CaseTexture", "case_textures", "cpu_blobs", "bind_gpu",
           "filtering_tolerance", "WEIGHT_ERROR", "border_colours"]

WEIGHT_ERROR = 0.6 * 2.0 ** -8
"""The largest error of a GPU's filter weight (rules 17.6): at least 8 fractional bits
(D3D11.3 spec 7.18.16.1), the conversion to them within 0.6 ULP (3.2.4.1)."""

# shader_resources kinds this module reads (not buffer SRVs): gpuia.d3d.textures.DIMENSIONS
TEXTURE_KINDS = tuple(DIMENSIONS)
_KEYS = {"register", "space", "kind", "format", "width", "height", "depth", "mip_levels",
         "array_size", "data", "view_dimension"}
# The optional view_dimension: D3D12_SRV_DIMENSION names a resource of each kind takes (its SRV
# is the shader's declaration, TEXTURE2D ... TEXTURECUBEARRAY: the HLSL type's name)
_VIEW_DIMENSIONS = {"texture1d": ("TEXTURE1D", "TEXTURE1DARRAY"),
                    "texture2d": ("TEXTURE2D", "TEXTURE2DARRAY", "TEXTURECUBE",
                                  "TEXTURECUBEARRAY"),
                    "texture3d": ("TEXTURE3D",)}
# a texture1d's height is 1 when left out (D3D12's Height of a 1D texture)
_REQUIRED = {"texture1d": ("register", "format", "width", "data"),
             "texture2d": ("register", "format", "width", "height", "data"),
             "texture3d": ("register", "format", "width", "height", "depth", "data")}


@dataclass(frozen=True)
class CaseTexture:
    """One texture (``kind``: ``texture1d``, ``texture2d``, ``texture3d``): its DXGI
    ``format``, size, levels, slices and every subresource's bytes (slice by slice, each
    slice's levels level 0 first)."""

    register: int
    space: int
    format: str
    width: int
    height: int
    mip_levels: int
    data: bytes
    array_size: int = 1
    kind: str = "texture2d"
    depth: int = 1
    view_dimension: str | None = None  # D3D12_SRV_DIMENSION name, when the case gives one


def _texture(entry: dict, w: str) -> CaseTexture:
    unknown = set(entry) - _KEYS
    if unknown:
        raise CaseError(w, f"unknown keys {sorted(unknown)}")
    kind = entry["kind"]
    for key in _REQUIRED[kind]:
        if key not in entry:
            raise CaseError(w, f"missing required key '{key}'")
    fmt = texture_format(entry["format"], f"{w}.format")
    width, height = uint_field(entry, "width", w, None), uint_field(entry, "height", w, 1)
    levels, array_size = uint_field(entry, "mip_levels", w, 1), uint_field(entry, "array_size",
                                                                           w, 1)
    depth = uint_field(entry, "depth", w, 1)
    check_dimensions(width, height, levels, array_size, w, kind, depth)
    view = entry.get("view_dimension")
    if view is not None:
        view = view.upper().removeprefix("D3D12_SRV_DIMENSION_") if isinstance(view, str) \
            else view
        if view not in _VIEW_DIMENSIONS[kind]:
            raise CaseError(f"{w}.view_dimension", f"expected one of "
                                                   f"{', '.join(_VIEW_DIMENSIONS[kind])} for a "
                                                   f"{kind} (D3D12_SRV_DIMENSION), got {view!r}")
    return CaseTexture(uint_field(entry, "register", w, None), uint_field(entry, "space", w, 0),
                       fmt.name, width, height, levels, decode_data(entry["data"], f"{w}.data"),
                       array_size, kind, depth, view)


def case_textures(resources, samplers, hlsl, static: dict[int, SamplerDesc] | None = None,
                  gs=None) -> tuple[dict, dict]:
    """({(register, space): CaseTexture}, {register: SamplerDesc}) of the case's
    ``shader_resources`` list (``resources``; its texture entries) and ``samplers`` list for
    the compiled HLSL vertex shader ``hlsl`` and geometry shader ``gs`` (None: none read; a
    register both read is one view, refused where they read it as different types).
    ``static``: the sampler descs of the root signature's static samplers that hold the
    shaders' sampler registers (``gpuia.d3d.root_signature.pipeline.static_samplers``); each
    is the register's sampler, and a ``samplers`` entry for the same register is refused
    (D3D12 has no descriptor there)."""
    textures, used, stage = _read(hlsl, gs)
    out: dict[tuple[int, int], CaseTexture] = {}
    for i, entry in enumerate(resources if isinstance(resources, list) else []):
        if not isinstance(entry, dict) or entry.get("kind") not in TEXTURE_KINDS:
            continue  # a buffer SRV: gpuia.harness.case_resources
        tex = _texture(entry, f"shader_resources[{i}]")
        at = f"t{tex.register}" + (f", space{tex.space}" if tex.space else "")
        if (tex.register, tex.space) in out:
            raise CaseError(f"shader_resources[{i}].register", f"register {at} is given twice")
        buffer = next((s for s in (hlsl, gs) if s is not None and any(
            (r.register, r.space) == (tex.register, tex.space)
            for r in s.shader_resources if not r.writable)), None)
        if (tex.register, tex.space) in textures or buffer is None:
            out[(tex.register, tex.space)] = tex
        else:
            raise InvalidDescError(f"shader_resources[{i}]", "kind", entry["kind"],
                                   f"the {'vertex' if buffer is hlsl else 'geometry'} shader "
                                   f"reads a buffer at register {at}")
    if samplers is not None and not isinstance(samplers, list):
        raise CaseError("samplers", "expected a list of D3D12_SAMPLER_DESC objects")
    descs: dict[int, SamplerDesc] = {}
    for i, entry in enumerate(samplers or []):
        w = f"samplers[{i}]"
        if not isinstance(entry, dict) or "register" not in entry:
            raise CaseError(w, "expected an object with 'register' and D3D12_SAMPLER_DESC "
                               "fields")
        register = uint_field(entry, "register", w, None)
        if uint_field(entry, "space", w, 0) != 0 or register in descs:
            raise CaseError(f"{w}.register", f"s{register}: one sampler per register of "
                                             f"space0")
        if register in (static or {}):
            raise InvalidDescError(f"{w}.register", "register", register,
                                   f"s{register} is held by a static sampler of the root "
                                   f"signature, which is the sampler the shader's "
                                   f"s{register} uses; remove the entry (rules 16.9)")
        desc = sampler_desc({k: v for k, v in entry.items() if k not in ("register", "space")},
                            w)
        descs[register] = desc
    descs.update(static or {})
    for key, t in textures.items():
        if key not in out:
            raise InvalidDescError("shader_resources", "register", t.register,
                                   f"the {stage[key]} reads {t.name} ({t.hlsl_type} at "
                                   f"register t{t.register}); the case binds no texture there")
        if out[key].kind != t.dimension:
            raise InvalidDescError(f"texture t{t.register}", "kind", out[key].kind,
                                   f"the {stage[key]} reads {t.name} as a {t.hlsl_type}: bind "
                                   f"a {t.dimension} there (a D3D12 SRV's dimension is its "
                                   f"resource's)")
        check_view_shape(t, out[key].width, out[key].height, out[key].array_size,
                         f"texture t{t.register}")
        if out[key].view_dimension not in (None, t.hlsl_type.upper()):
            raise InvalidDescError(f"texture t{t.register}", "view_dimension",
                                   out[key].view_dimension,
                                   f"the {stage[key]} reads {t.name} as a {t.hlsl_type}: its "
                                   f"SRV is D3D12_SRV_DIMENSION_{t.hlsl_type.upper()}")
        check_view_format(t, out[key].format, f"texture t{t.register}")
        if len(out[key].data) != _texels(out[key]) * texture_format(out[key].format, "").size:
            raise InvalidDescError(f"texture t{t.register}", "data", len(out[key].data),
                                   f"expected every level's texels: {_texels(out[key])} of "
                                   f"{out[key].format}")
    for register, s in used.items():
        if register not in descs:
            raise InvalidDescError("samplers", "register", register,
                                   f"the {stage[register]} samples with {s.name} (register "
                                   f"s{register}); the case binds no sampler there")
        check_sampler_kind(s, descs[register], f"sampler s{register}")
    return ({k: v for k, v in out.items() if k in textures},
            {k: v for k, v in descs.items() if k in used})


def _read(hlsl, gs) -> tuple[dict, dict, dict]:
    """(the textures by (register, space), the samplers by register, which shader reads each
    key, ``vertex shader`` first) of the vertex shader ``hlsl`` and geometry shader ``gs``."""
    textures: dict = {}
    used: dict = {}
    stage: dict = {}
    for name, shader in (("vertex shader", hlsl), ("geometry shader", gs)):
        for t in shader.textures if shader is not None else ():
            other = textures.setdefault((t.register, t.space), t)
            stage.setdefault((t.register, t.space), name)
            if (other.hlsl_type, other.return_type, other.components) != \
                    (t.hlsl_type, t.return_type, t.components):
                raise InvalidDescError("geometry_shader", f"texture {t.name}",
                                       f"t{t.register}", f"the vertex shader reads "
                                       f"{other.name} there as another type: one view cannot "
                                       f"be both")
        for s in shader.samplers if shader is not None else ():
            other = used.setdefault(s.register, s)
            stage.setdefault(s.register, name)
            if other.comparison != s.comparison:
                raise InvalidDescError("geometry_shader", f"sampler {s.name}",
                                       f"s{s.register}", f"the vertex shader reads "
                                       f"{other.name} there as the other kind of sampler")
    return textures, used, stage


def _texels(t: CaseTexture) -> int:
    from ..d3d.textures import mip_offsets

    return mip_offsets(t.width, t.height, t.mip_levels, t.array_size, t.depth)[-1]


def cpu_blobs(case, shader=None) -> dict[int, bytes]:
    """{binding: blob} of the case's textures (texels decoded by the CPU reference's decoder)
    and samplers that ``shader`` reads (the vertex shader's by default; the geometry shader's
    bindings are its own), for the CPU build (``gpuia.hlsl.cpu_textures``)."""
    from ..hlsl.cpu_textures import texture_blob
    from ..reference.textures import decode_texels

    shader = case.hlsl if shader is None else shader
    out = {}
    for t in shader.textures:
        c = case.textures[(t.register, t.space)]
        texels = decode_texels(c.format, c.data, c.width, c.height, c.mip_levels, c.array_size,
                               f"texture t{t.register}", c.depth)
        fmt = TEXTURE_FORMATS[c.format]
        out[t.binding] = texture_blob(c.width, c.height, c.mip_levels, texels, c.array_size,
                                      c.depth, fmt.compare_bits or 0, fmt.border_range)
    for s in shader.samplers:
        out[sampler_binding(s.register)] = case.samplers[s.register].words()
    return out


def bind_gpu(ctx, device, case) -> None:
    """Create the case's textures (uploaded level by level) and samplers on ``device`` and
    bind them on ``ctx``."""
    from ..gpu.textures import create_texture

    for (register, space), c in case.textures.items():
        ctx.set_texture_shader_resource_view(register, create_texture(
            device, c.format, c.width, c.height, c.mip_levels, c.data, c.array_size,
            dimension=c.kind, depth=c.depth), space)
    for register, desc in case.samplers.items():
        ctx.set_sampler(register, desc)


def filtering_tolerance(case, base):
    """``base`` (a :class:`gpuia.harness.compare.ShaderTolerance`) widened, for a case with a
    linear filter, to the bound of rules 17.6: ``3 * WEIGHT_ERROR * R + q``, R the largest range
    (max - min) of any of its textures' decoded components, q half a unit of its finest
    fixed-point format (0 for float formats): two texel weights and the mip weight each off
    by at most WEIGHT_ERROR; ``4 * WEIGHT_ERROR * R + q`` when it binds a 3D texture (three
    texel weights, rules 17.7); with a linear comparison sampler R is at least 1 (the
    comparison results 0 and 1 are filtered) and ``2 * WEIGHT_ERROR ** 2`` is added (the
    product of the two texel weights' errors, rules 17.10). With a BORDER sampler R takes in
    the border colour on each texture's format (:func:`border_colours`), and the bound (for a
    point filter too) adds the largest snap of a border colour component the format does not
    hold exactly (D3D snaps it to the precision it filters the format at, rules 17.4: half a
    unit of a UNORM format, half a float16 ULP of a float16 one). It bounds a sampled value;
    gpuia applies it to every float output of the shader as the absolute tolerance (a shader
    that scales what it samples needs a tolerance of its own). ``base`` unchanged without a
    linear filter or a BORDER sampler."""
    import dataclasses

    import numpy as np

    from ..d3d.formats import format_info
    from ..reference.textures import decode_texels

    linear = any("linear" in d.filter for d in case.samplers.values())
    colours, snap = border_colours(case)
    if not linear and not colours:
        return base
    if not linear:
        return dataclasses.replace(base, absolute=max(base.absolute, snap))
    spread, unit = 0.0, 0.0
    for t in case.textures.values():
        values = decode_texels(t.format, t.data, t.width, t.height, t.mip_levels, t.array_size,
                               depth=t.depth)
        used = values[:, :sum(c.kind != "x" for c in format_info(t.format).channels)]
        floats = used.view(np.float32).astype(np.float64)
        finite = np.concatenate([floats[np.isfinite(floats)],
                                 np.asarray(colours.get(t.format, []), np.float64)])
        if finite.size:
            spread = max(spread, float(finite.max() - finite.min()))
        for c in format_info(t.format).channels:
            if c.kind == "un":
                unit = max(unit, 0.5 / (2 ** c.bits - 1))
    weights = 1 + max((3 if t.kind == "texture3d" else 2 for t in case.textures.values()),
                      default=2)  # the texel weights of each axis and the mip weight
    compares = any(d.comparison is not None and "linear" in d.filter
                   for d in case.samplers.values())
    if compares:
        spread = max(spread, 1.0)
    bound = weights * WEIGHT_ERROR * spread + max(unit, snap) + (
        2 * WEIGHT_ERROR ** 2 if compares else 0)
    return dataclasses.replace(base, absolute=max(base.absolute, bound))


def border_colours(case) -> tuple[dict[str, list[float]], float]:
    """({format: the components of each BORDER sampler's border colour on it}, the largest
    snap of one): each case texture's format takes a border colour's components it has,
    clamped to its range (rules 17.4); the snap of a component a format does not hold exactly
    is half a unit of a UNORM format, half a float16 ULP of a float16 one (D3D snaps the colour
    to the precision it filters the format at, D3D11.3 spec 7.18.9.1; float32 holds it).
    Empty and 0 without a BORDER sampler."""
    import numpy as np

    from ..d3d.formats import format_info

    out: dict[str, list[float]] = {}
    snap = 0.0
    borders = [d.border for d in case.samplers.values() if "BORDER" in d.address]
    for t in case.textures.values() if borders else ():
        count, lo, hi = TEXTURE_FORMATS[t.format].border_range
        channel = format_info(t.format).channels[0]
        for rgba in borders:
            for c in (min(max(v, lo), hi) for v in rgba[:count]):
                out.setdefault(t.format, []).append(c)
                if channel.kind == "un" and (c * (2 ** channel.bits - 1)) % 1:
                    snap = max(snap, 0.5 / (2 ** channel.bits - 1))
                elif (channel.kind, channel.bits) == ("f", 16) and float(np.float16(c)) != c:
                    snap = max(snap, abs(c) * 2.0 ** -11)
    return out, snap
