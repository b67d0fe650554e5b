"""Texture shader resource views and samplers of an HLSL vertex shader, read as D3D12 reads
them (docs/resources.md, rules 17).

gpuia binds ``Texture1D<T>``, ``Texture1DArray<T>``, ``Texture2D<T>``, ``Texture2DArray<T>``,
``Texture3D<T>``, ``TextureCube<T>`` and ``TextureCubeArray<T>`` (T a float, uint or int scalar
or vector; an integer texture is WebGPU's ``texture_2d<u32>`` or ``<i32>``, bound with sample
type ``uint`` or ``sint``: its layout slot, :func:`gpuia.d3d.textures.texture_slot`, rules
17.12) at ``register(tN, spaceS)`` (the t
namespace of the buffer SRVs, ``gpuia.hlsl.srv``: one register holds one of them) and
``SamplerState`` at ``register(sN)`` (N 0..15, space 0). Guaranteed, in the WGSL
:func:`rewrite` makes of Slang's, whose binding numbers it never trusts (Slang gives a texture
and a sampler one number at times: each is rebound by its name from the reflection):

* the shader's k-th texture (by space, then register) is ``@group(3) @binding(912 + k)``,
  ``944 + k`` when the shader samples it (bound filterable), an array's ``960 + k`` and
  ``976 + k``, sampler sN ``@binding(928 + N)`` (``gpuia.d3d.textures``); a Texture3D is a
  ``texture_3d``; a Texture1D a ``texture_2d`` of height 1 read at row 0 and sampled at
  v = 0.5 (WebGPU's ``texture_1d`` has one level and no ``textureSampleLevel``; rules 17.8); a
  Texture1DArray a Texture2DArray of height 1, as the source declares it after
  ``gpuia.hlsl.texture1d_arrays`` (Slang's WGSL has no 1D array; rules 17.8);
* ``Load(int3(x, y, mip))`` (an array's ``int4(x, y, slice, mip)``, a Texture1D's
  ``int2(x, mip)``, a Texture3D's ``int4(x, y, z, mip)``) returns 0 in every component when
  ``mip`` is not a level of the texture, the slice not one of its slices or the texel is
  outside that level (rules 17.1, 17.7; WebGPU may return any texel instead);
* ``GetDimensions(mip, ...)`` gives ``max(1, size >> mip)`` on each axis, and 0 for the sizes
  (and an array's slice count) of a ``mip`` past the last level (rules 17.2), computed from
  level 0's size: no ``textureDimensions`` with a per-vertex level (lavapipe answers the first
  vertex's);
* ``SampleLevel(s, uv, lod)`` is WebGPU's ``textureSampleLevel`` with the sampler the draw
  binds (point and linear filters, WRAP, MIRROR or CLAMP: ``gpuia.d3d.textures.sampler_desc``)
  and what WebGPU's sampler lacks emulated from gpuia's uniform at ``@binding(14)`` (the
  sampler's MipLODBias added to the LOD; MIRROR_ONCE as mirror-repeat on a coordinate clamped
  to [-1, 1], on u, v and a Texture3D's w), an array's slice rounded to nearest even and
  clamped to its slices as D3D does (Slang's WGSL truncates it); through a sampler with a
  BORDER axis, gpuia's filter from texel loads instead (``gpuia.hlsl.border_wgsl``, rules
  17.4), chosen at run time from the same uniform; a TextureCube is a
  ``texture_cube`` sampled at its direction as given (a TextureCubeArray a
  ``texture_cube_array``, its cube rounded and clamped so), its layout slot the cube view's
  and ``ShaderSampler.cube`` marking its samplers (point only, rules 17.9);
* ``SampleCmpLevelZero(s, uv, reference)`` of a Texture1D, Texture2D or Texture2DArray with a
  ``SamplerComparisonState`` is gpuia's WGSL filter of comparison results from texel loads
  (``gpuia.hlsl.compare_wgsl``, rules 17.10): the comparison sampler's declaration is removed
  (no WebGPU binding) and its state read from the uniform at ``@binding(14)``;
* a texel offset of ``SampleLevel`` or ``SampleCmpLevelZero`` (rules 17.11) is read as the
  immediate integers Slang's WGSL spells (:func:`texel_offset`; a Texture1D's ``(u, 0)``) and
  given to ``textureSampleLevel`` or added to the comparison's taps; ``ShaderSampler.offset``
  tells which samplers a ``SampleLevel`` with an offset uses (MIRROR_ONCE is refused there
  when bound: ``gpuia.d3d.textures.check_sampler_kind``). A ``Load``'s offset is lowered in
  the source before (``gpuia.hlsl.load_offsets``).

Refused, naming the resource: a texture of another scalar than float, uint or int (Slang
refuses double and bool itself; half is float), a ``SampleLevel`` or ``SampleCmpLevelZero``
of an integer texture (D3D's Format List gives integer formats ``ld`` only, rules 17.12;
Slang's static assertion of it is said so by ``gpuia.hlsl.refusals``), a multisampled
texture, more than 16
textures, a texture in a register a buffer SRV takes, a sampler past s15 or outside space 0,
``SampleCmp`` (a pixel shader's only), a comparison of a Texture3D or a cube, a texel offset outside
[-8, 7] or not of integer literals (rules 17.11), any other use of a texture (``Sample``,
``Gather``, ``GatherCmp``, ``CalculateLevelOfDetail``) or a sampler.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..d3d.srv_bindings import SRV_SLOTS, SRV_SPACES
from ..d3d.textures import (
    MAX_TEXTURES,
    SAMPLER_SLOTS,
    SAMPLER_STATE_BINDING,
    STATE_ROWS,
    sampler_binding,
    texture_binding,
    texture_slot,
)
from ..errors import InvalidDescError
from .border_wgsl import BORDER_COMMON, border_call, border_helper
from .call_args import argument_spans
from .compare_wgsl import COMPARE_COMMON, TAP_COMMON, compare_helper
from .load_offsets import OFFSET_RANGE

__all__ = ["ShaderTexture", "ShaderSampler", "is_bound_texture", "texture_refusal",
           "texture_return_type", "shader_textures", "rewrite", "texel_offset"]

# Slang's reflection baseShape -> the D3D12 resource dimension it reads (gpuia.d3d.textures)
# (a cube's resource is a 2D texture array of 6 slices a cube: rules 17.9)
SHAPES = {"texture1D": "texture1d", "texture2D": "texture2d", "texture3D": "texture3d",
          "textureCube": "texture2d"}
# The shapes gpuia refuses, with the reason (none now; docs/resources.md)
_REFUSED: dict[tuple[str, bool], str] = {}


@dataclass(frozen=True)
class ShaderTexture:
    """One ``Texture1D``, ``Texture2D`` (or either's array) or ``Texture3D`` the shader reads:
    ``index`` its place among the shader's textures (its binding
    :func:`gpuia.d3d.textures.texture_binding`), ``components`` of its ``T``, ``var`` its name
    in Slang's WGSL, ``dimension`` the D3D12 resource dimension it reads (``texture1d``,
    ``texture2d``, ``texture3d``)."""

    name: str
    register: int
    space: int
    index: int
    components: int
    var: str = ""
    sampled: bool = False  # read by SampleLevel: bound filterable (gpuia.d3d.textures)
    array: bool = False  # a Texture2DArray or Texture1DArray
    dimension: str = "texture2d"
    compared: bool = False  # read by SampleCmpLevelZero (rules 17.10)
    return_type: str = "float"  # T's scalar: float, uint or int as "sint" (rules 17.12)
    cube: bool = False  # a TextureCube (array: a TextureCubeArray), rules 17.9

    @property
    def binding(self) -> int:
        return texture_binding(self.index, self.sampled, self.array)

    @property
    def slot(self) -> int:
        """Its @group(3) layout slot (:func:`gpuia.d3d.textures.texture_slot`)."""
        return texture_slot(self.binding, self.dimension, self.return_type, self.cube)

    @property
    def wgsl_scalar(self) -> str:
        """WGSL's scalar of what it reads: ``f32``, ``u32`` or ``i32``."""
        return _WGSL_SCALARS[self.return_type]

    @property
    def hlsl_type(self) -> str:
        return {"texture1d": "Texture1D", "texture3d": "Texture3D"}.get(
            self.dimension, "TextureCube" if self.cube else "Texture2D") + "Array" * self.array

    @property
    def wgsl_dimension(self) -> str:
        """The dimension of the texture Slang's WGSL reads: a Texture1DArray's is
        ``texture2d`` (the source declares it a Texture2DArray of height 1:
        ``gpuia.hlsl.texture1d_arrays``), any other's its own."""
        return "texture2d" if self.array else self.dimension


@dataclass(frozen=True)
class ShaderSampler:
    """One ``SamplerState`` (a ``SamplerComparisonState`` when ``comparison``) the shader
    samples with, at ``register(s<register>)``. A comparison sampler has no WebGPU binding:
    its filter is emulated from texel loads (``gpuia.hlsl.compare_wgsl``)."""

    name: str
    register: int
    var: str = ""
    comparison: bool = False
    offset: bool = False  # a SampleLevel with a texel offset uses it (rules 17.11)
    cube: bool = False  # a SampleLevel of a cube uses it (point only: rules 17.9)

    @property
    def binding(self) -> int:
        return sampler_binding(self.register)


def is_bound_texture(param: dict) -> bool:
    """Whether a reflection parameter is a texture or sampler gpuia binds (its checks are
    :func:`shader_textures`')."""
    t = param.get("type", {})
    return (t.get("kind") == "resource" and t.get("baseShape") in SHAPES
            and t.get("access", "read") == "read") or t.get("kind") == "samplerState"


def texture_refusal(param: dict) -> str | None:
    """Why gpuia refuses a read-only texture shape it does not bind (none now: every shape
    Slang reflects as texture1D, texture2D, texture3D or textureCube is bound), None for any
    other parameter."""
    t = param.get("type", {})
    if t.get("kind") != "resource" or t.get("access", "read") != "read":
        return None
    return _REFUSED.get((t.get("baseShape"), bool(t.get("array"))))


# Slang's reflection scalarType of a texture's T -> its return type (gpuia.d3d.textures)
_RETURN_TYPES = {"float32": "float", "uint32": "uint", "int32": "sint"}
_WGSL_SCALARS = {"float": "f32", "uint": "u32", "sint": "i32"}


def texture_return_type(t: dict) -> str | None:
    """The return type (``float``, ``uint``, ``sint``: rules 17.12) of a texture's reflected
    type ``t`` when gpuia binds its T (a float, uint or int scalar or vector, not
    multisampled), else None."""
    result = t.get("resultType", {})
    scalar = (result.get("elementType", {}) if result.get("kind") == "vector" else result).get(
        "scalarType")
    return None if t.get("multisample") else _RETURN_TYPES.get(scalar)


def _components(t: dict, where: str, what: str) -> tuple[int, str]:
    """(the components of a texture's T, its return type)."""
    result = t.get("resultType", {})
    kind = result.get("kind")
    return_type = texture_return_type(t)
    if return_type is None:
        shape = str(t.get("baseShape", "texture")).replace("texture", "Texture", 1)
        raise InvalidDescError(what, where, shape + ("Array" if t.get("array") else ""),
                               "gpuia binds Texture1D<T>, Texture1DArray<T>, Texture2D<T>, "
                               "Texture2DArray<T> and Texture3D<T> of float, uint and int "
                               "scalars and vectors (no multisampled textures; "
                               "docs/resources.md)")
    return int(result.get("elementCount", 1)) if kind == "vector" else 1, return_type


def shader_textures(params: dict[str, dict], code: str, what: str, srv_registers
                    ) -> tuple[tuple[ShaderTexture, ...], tuple[ShaderSampler, ...]]:
    """The textures and samplers Slang's WGSL ``code`` declares (``params``: the reflection's
    global parameters by emitted name; ``srv_registers``: the (register, space) of the buffer
    SRVs), checked as the module docstring says."""
    textures, samplers = [], []
    for m in re.finditer(r"@binding\(\s*\d+\s*\)\s*@group\(\s*\d+\s*\)\s*var\s+(\w+)\s*:"
                         r"\s*([\w<>\s,]+);", code):
        p = params.get(re.sub(r"_\d+$", "", m.group(1)))
        if p is None:
            continue
        name, b, t = p["name"], p.get("binding", {}), p.get("type", {})
        space, register = int(b.get("space", 0)), int(b.get("index", 0))
        where = f"resource {name}"
        if t.get("kind") in ("samplerState", "samplerComparisonState") or \
                m.group(2).strip().startswith("sampler"):
            if space or register >= SAMPLER_SLOTS:
                raise InvalidDescError(what, where, f"register(s{register}, space{space})",
                                       f"gpuia binds samplers s0..s{SAMPLER_SLOTS - 1} of "
                                       f"space0 (WebGPU's maxSamplersPerShaderStage)")
            # Slang's reflection calls both samplerState; its WGSL type tells them apart
            samplers.append(ShaderSampler(name, register, m.group(1),
                                          m.group(2).strip() == "sampler_comparison"))
            continue
        if not m.group(2).strip().startswith("texture"):
            continue
        refusal = texture_refusal(p)
        if t.get("baseShape") not in SHAPES or refusal:
            raise InvalidDescError(what, where, m.group(2).strip(), refusal or
                                   "gpuia binds Texture1D<T>, Texture1DArray<T>, Texture2D<T>, "
                                   "Texture2DArray<T> and Texture3D<T> only "
                                   "(docs/resources.md)")
        components, return_type = _components(t, where, what)
        if space >= SRV_SPACES or register >= SRV_SLOTS:
            raise InvalidDescError(what, where, f"register(t{register}, space{space})",
                                   f"gpuia binds t0..t{SRV_SLOTS - 1} of space0..space"
                                   f"{SRV_SPACES - 1}")
        if (register, space) in srv_registers:
            raise InvalidDescError(what, where, f"register(t{register}, space{space})",
                                   "a buffer SRV takes this register: a t register holds one "
                                   "shader resource view (rules 17.5)")
        textures.append((space, register, name, components, m.group(1), bool(t.get("array")),
                         SHAPES[t["baseShape"]], return_type, t["baseShape"] == "textureCube"))
    if len(textures) > MAX_TEXTURES:
        raise InvalidDescError(what, "textures", len(textures),
                               f"gpuia binds at most {MAX_TEXTURES} (WebGPU's "
                               f"maxSampledTexturesPerShaderStage)")
    textures.sort()
    offsets = _offset_samplers(code, {var: array for *_, var, array, _dim, _r, _c in textures})
    cubes = _offset_samplers(code, {var: array for *_, var, array, _d, _r, cube in textures
                                    if cube}, 0)
    samplers = [replace(s, offset=s.var in offsets, cube=s.var in cubes) for s in samplers]
    return (tuple(ShaderTexture(name, reg, space, k, c, var, _sampled(code, var), array, dim,
                                _sampled(code, var, "textureSampleCompareLevel"), ret, cube)
                  for k, (space, reg, name, c, var, array, dim, ret, cube)
                  in enumerate(textures)),
            tuple(sorted(samplers, key=lambda s: s.register)))


def _offset_samplers(code: str, arrays: dict[str, bool], offset: int = 1) -> set[str]:
    """The WGSL names of the samplers a ``textureSampleLevel`` of one of ``arrays`` (WGSL name
    -> whether an array) with a texel offset uses (``offset`` 0: with or without; Slang's
    arguments: texture, sampler, coordinate, an array's slice, LOD, offset)."""
    used = set()
    for m in re.finditer(r"(?<!\w)textureSampleLevel\s*\(", code):
        args = _call_args(code, m.end() - 1)[0]
        var = _strip(args[0])
        if var in arrays and len(args) >= 4 + offset + arrays[var]:
            used.add(_strip(args[1]))
    return used


def _sampled(code: str, var: str, fn: str = "textureSampleLevel") -> bool:
    return re.search(rf"(?<!\w){fn}\s*\(\s*\(*\s*{re.escape(var)}(?!\w)", code) is not None


def _call_args(code: str, start: int) -> tuple[list[str], int]:
    """The top-level arguments of the call whose ``(`` is at ``start``, and the index after
    its ``)``."""
    spans, end, closed = argument_spans(code, start, "([")
    if not closed:
        raise InvalidDescError("vertex shader", "WGSL", code[start:start + 40], "unbalanced call")
    return [code[a:b] for a, b in spans], end


def _strip(arg: str) -> str:
    arg = arg.strip()
    while arg.startswith("(") and _call_args(arg, 0)[1] == len(arg):
        arg = arg[1:-1].strip()
    return arg


def _rewrite_calls(code: str, fn: str, var: str, make) -> str:
    """Each ``fn(var, ...)`` replaced by ``make(rest of the arguments)``."""
    out, at = [], 0
    for m in re.finditer(rf"(?<!\w){fn}\s*\(", code):
        if m.start() < at:
            continue
        args, end = _call_args(code, m.end() - 1)
        if _strip(args[0]) != var:
            continue
        out.append(code[at:m.start()] + make([_rewrite_calls(a, fn, var, make)
                                              for a in args[1:]]))
        at = end
    return "".join(out) + code[at:]


_ALLOWED = ("textureSampleLevel", "textureNumLevels", "textureNumLayers", "textureDimensions")
# Slang's WGSL of SampleCmp (sample_c: a pixel shader's only, D3D11.3 spec 22.4.19)
_PIXEL_ONLY = "textureSampleCompare"


def _layers_by_level(code: str, var: str, layers: str) -> str:
    """In each of Slang's ``GetDimensions`` blocks (``{var dim = textureDimensions(t, L);
    ... textureNumLayers(t) ...};``) with a level, the layer count read through ``layers(L)``
    (0 past the last level, rules 17.2)."""
    out, at = [], 0
    for m in re.finditer(r"\{var dim = textureDimensions\s*\(", code):
        args, end = _call_args(code, m.end() - 1)
        close = code.find("}", end)
        if _strip(args[0]) != var or len(args) < 2 or close < 0:
            continue
        # the call's own parentheses (a float GetDimensions wraps it in f32(...))
        block = _rewrite_calls(code[end:close], "textureNumLayers", var,
                               lambda _a, level=args[1]: f"{layers}(u32({level}))")
        out.append(code[at:end] + block)
        at = close
    return "".join(out) + code[at:]


# A sampled coordinate through the sampler's emulated state: a Texture1D's u on row 0 of the
# 2D texture of height 1 it binds as (v = 0.5: every address mode takes row 0 of 1, and a
# linear v weight is 0, rules 17.8)
_SAMPLED_UV = {"texture1d": "gpuia_sampler_uv({r}u, vec2<f32>({uv}, 0.5))",
               "texture2d": "gpuia_sampler_uv({r}u, {uv})",
               "texture3d": "gpuia_sampler_uvw({r}u, {uv})"}
# Slang's textureLoad arguments (coordinate, level; an array's slice between) -> gpuia's
# checked load's (a vecN<i32> coordinate, the slice, the level)
_LOADS = {("texture1d", False): "{f}(vec2<i32>(i32({a[0]}), 0), 0, i32({a[1]}))",
          ("texture2d", False): "{f}(vec2<i32>({a[0]}), 0, i32({a[1]}))",
          ("texture2d", True): "{f}(vec2<i32>({a[0]}), i32({a[1]}), i32({a[2]}))",
          ("texture3d", False): "{f}(vec3<i32>({a[0]}), 0, i32({a[1]}))"}


def _float_slice(arg: str, t: ShaderTexture, call: str, what: str) -> str:
    """The float slice inside Slang's ``gpuia_d3d_ftoi(...)`` of an array read's slice
    argument (Slang truncates it; gpuia rounds it as D3D does); InvalidDescError naming the
    call when Slang emitted another form."""
    m = re.fullmatch(r"\s*gpuia_d3d_ftoi\s*\((.*)\)\s*", arg, re.S)
    if m is None:
        raise InvalidDescError(what, f"resource {t.name}", arg.strip(),
                               f"gpuia expected Slang's float slice of {call}")
    return m.group(1)


def _sample(args: list[str], t: ShaderTexture, layer: str, registers: dict[str, int],
            what: str, consts: dict[str, str]) -> str:
    """``textureSampleLevel`` with the sampler's emulated state (MIRROR_ONCE's clamped
    coordinate, MipLODBias: :func:`rewrite`) and an array's slice as D3D takes it: rounded to
    nearest even and clamped (Slang's WGSL truncates it with gpuia_d3d_ftoi)."""
    r = registers.get(_strip(args[0]))
    if r is None:
        raise InvalidDescError(what, f"resource {t.name}", args[0].strip(),
                               "sampled with a sampler gpuia does not bind")
    # a cube's direction as given: WebGPU's cube sampling has no address modes to emulate
    uv = args[1] if t.cube else _SAMPLED_UV[t.wgsl_dimension].format(r=r, uv=args[1])
    lod_at = 3 if t.array else 2  # (sampler, coordinate, [slice,] LOD, [offset])
    lod = f"({args[lod_at]}) + gpuia_sampler_bias({r}u)"
    off = ""
    values: tuple[int, ...] = ()
    if len(args) > lod_at + 1:  # an immediate texel offset, WGSL's own (rules 17.11)
        values = texel_offset(args[lod_at + 1], t, "SampleLevel", what, consts)
        off = f", vec{len(values)}<i32>({', '.join(map(str, values))})"
    slice_ = _float_slice(args[2], t, "SampleLevel", what) if t.array else "0.0"
    at = f", {layer}({slice_})" if t.array else ""
    hardware = f"textureSampleLevel({t.var}, {args[0]}, {uv}{at}, {lod}{off})"
    if t.cube:  # a cube's sampler has no BORDER axis (refused when bound: rules 17.9)
        return hardware
    # a sampler with a BORDER axis: gpuia's filter from texel loads (rules 17.4)
    # a Texture1D's u on row 0.5 of its 2D view; a Texture1DArray's source already reads
    # float2(u, 0.5) of a Texture2DArray (gpuia.hlsl.texture1d_arrays)
    raw = f"vec2<f32>({args[1]}, 0.5)" if t.dimension == "texture1d" and not t.array \
        else args[1]
    axes = 3 if t.dimension == "texture3d" else 2
    return (f"select({hardware}, {border_call(t.index, r, raw, slice_, args[lod_at], values, axes)}"
            f", gpuia_border_on({r}u))")


# The offset's components per shape: D3D's aoffimmi(u, v, w), v and w ignored for a Texture1D
# (bound as a 2D texture: v 0), w for a Texture2D (rules 17.11)
_OFFSET_AXES = {"texture1d": 1, "texture2d": 2, "texture3d": 3}


def texel_offset(arg: str, t: ShaderTexture, call: str, what: str,
                 consts: dict[str, str]) -> tuple[int, ...]:
    """The immediate texel offset Slang's WGSL ``arg`` spells (``i32(k)`` or ``vecN<i32>(...)``
    of integer literals, or the name of a ``const`` of ``consts`` that holds one), one value
    per axis of WGSL's texture (a Texture1D's ``(u, 0)``).
    Refused, naming rules 17.11: an offset that is no set of integer literals (a programmable
    offset, which D3D's sample and ld do not take) and a value outside [-8, 7]."""
    text = re.sub(r"vec[234]\s*<\s*i32\s*>|i32|\s", "", arg).replace("(", "").replace(")", "")
    for _ in range(4):  # Slang names a repeated constant offset: const _S5 : ... = ...;
        if text not in consts:
            break
        text = re.sub(r"vec[234]\s*<\s*i32\s*>|i32|\s|[()]", "", consts[text])
    n = _OFFSET_AXES[t.wgsl_dimension]
    if not re.fullmatch(r"-?\d+(,-?\d+)*", text):
        raise InvalidDescError(what, f"resource {t.name}", arg.strip(),
                               f"{call}'s texel offset must be a compile-time constant: D3D "
                               f"offsets a read by immediate integers only (no programmable "
                               f"offset, rules 17.11)")
    values = [int(v) for v in text.split(",")]
    values = values * n if len(values) == 1 else values
    if len(values) != n or not all(OFFSET_RANGE[0] <= v <= OFFSET_RANGE[1] for v in values):
        raise InvalidDescError(what, f"resource {t.name}", arg.strip(),
                               f"{call}'s texel offset takes {n} integers in "
                               f"{OFFSET_RANGE[0]}..{OFFSET_RANGE[1]} (rules 17.11)")
    return tuple(values) + (0,) * (t.wgsl_dimension == "texture1d")


def _compare(args: list[str], t: ShaderTexture, layer: str, registers: dict[str, int],
             what: str, consts: dict[str, str]) -> str:
    """``textureSampleCompareLevel`` (SampleCmpLevelZero) as gpuia's emulated filter
    (``gpuia.hlsl.compare_wgsl``), an array's slice as D3D takes it."""
    r = registers.get(_strip(args[0]))
    if r is None:
        raise InvalidDescError(what, f"resource {t.name}", args[0].strip(),
                               "sampled with a sampler gpuia does not bind")
    ref_at = 3 if t.array else 2  # (sampler, coordinate, [slice,] reference, [offset])
    off: tuple[int, ...] = (0, 0)
    if len(args) > ref_at + 1:  # an immediate texel offset (rules 17.11)
        off = texel_offset(args[ref_at + 1], t, "SampleCmpLevelZero", what, consts)
    offset = f"vec2<i32>({off[0]}, {off[1]})"
    uv = f"vec2<f32>({args[1]}, 0.5)" if t.wgsl_dimension == "texture1d" else args[1]  # rules 17.8
    if not t.array:
        return f"gpuia_tex_cmp{t.index}({r}u, {uv}, {args[2]}, {offset})"
    slice_ = _float_slice(args[2], t, "SampleCmpLevelZero", what)
    return f"gpuia_tex_cmp{t.index}({r}u, {args[1]}, {slice_}, {args[3]}, {offset})"


def _rewrite_texture(code: str, t: ShaderTexture, group: int, registers: dict[str, int],
                     what: str) -> tuple[str, str]:
    """(``code`` with texture ``t`` rebound and read through gpuia's checks, its helpers;
    ``registers``: the samplers' registers by their WGSL names)."""
    var, k = t.var, t.index
    code = re.sub(rf"@binding\(\s*\d+\s*\)\s*@group\(\s*\d+\s*\)(\s*var\s+"
                  rf"{re.escape(var)}\s*:)", rf"@binding({t.binding}) @group({group})\1", code)
    load, dims = f"gpuia_tex_load{k}", f"gpuia_tex_dims{k}"
    layers, layer = f"gpuia_tex_layers{k}", f"gpuia_tex_layer{k}"
    if t.wgsl_dimension == "texture1d":  # WebGPU's texture_1d: no mips, no textureSampleLevel:
        # a Texture1D binds as a 2D texture of height 1 (rules 17.8)
        code = re.sub(rf"(var\s+{re.escape(var)}\s*:\s*)texture_1d<", r"\1texture_2d<", code)
    if t.array:
        code = _layers_by_level(code, var, layers)
    load_of = _LOADS[(t.wgsl_dimension, t.array)]
    code = _rewrite_calls(code, "textureLoad", var, lambda a: load_of.format(f=load, a=a))
    consts = dict(re.findall(r"(?<!\w)const\s+(\w+)\s*(?::[^=;]*)?=\s*([^;]+);", code))
    code = _rewrite_calls(code, "textureSampleLevel", var, lambda a: _sample(
        a, t, layer, registers, what, consts))
    if re.search(rf"(?<!\w){_PIXEL_ONLY}\s*\(\s*\(*\s*{re.escape(var)}\s*\)*\s*,", code):
        raise InvalidDescError(what, f"resource {t.name}", "SampleCmp",
                               "SampleCmp is a pixel shader's only (sample_c, D3D11.3 spec "
                               "22.4.19): a vertex shader samples a comparison with "
                               "SampleCmpLevelZero (rules 17.10)")
    code = _rewrite_calls(code, "textureSampleCompareLevel", var, lambda a: _compare(
        a, t, layer, registers, what, consts))
    if t.return_type != "float" and (t.sampled or t.compared):  # Slang refuses it first
        raise InvalidDescError(what, f"resource {t.name}", t.hlsl_type,
                               "D3D samples FLOAT, UNORM and SNORM formats only: an integer "
                               "texture is read by Load (rules 17.12)")
    if t.compared and t.dimension == "texture3d":  # sample_c: no Texture3D (22.4.19)
        raise InvalidDescError(what, f"resource {t.name}", t.hlsl_type,
                               "D3D samples a comparison of a Texture1D, Texture2D or "
                               "Texture2DArray only (sample_c; rules 17.10)")
    if t.compared and t.cube:
        raise InvalidDescError(what, f"resource {t.name}", t.hlsl_type,
                               "gpuia samples a comparison of a Texture1D, Texture2D or their "
                               "arrays only: a cube's is not emulated (rules 17.9, 17.10)")
    x = ".x" if t.wgsl_dimension == "texture1d" else ""  # the 2D texture's width
    code = _rewrite_calls(code, "textureDimensions", var, lambda a: (
        f"{dims}(u32({a[0]})){x}" if a else f"textureDimensions({var}){x}"))
    uses = len(re.findall(rf"(?<!\w){re.escape(var)}(?!\w)", code))
    allowed = sum(len(re.findall(rf"(?<!\w){fn}\s*\(\s*\(*\s*{re.escape(var)}\s*\)*\s*[,)]",
                                 code)) for fn in _ALLOWED)
    if uses != allowed + 1:  # and its declaration (the helpers are added below)
        raise InvalidDescError(what, f"resource {t.name}", None,
                               "Slang's WGSL uses it other than by Load, GetDimensions and "
                               "SampleLevel: gpuia binds those only (docs/resources.md)")
    # D3D12 (ld, resinfo): a Load outside the level, the slices or the levels returns 0 in
    # every component (rules 17.1); level sizes from level 0's, never from a per-vertex
    # textureDimensions(t, level) (lavapipe answers the first vertex's level for all).
    slices = f"textureNumLayers({var})" if t.array else "1u"
    fetch = f"textureLoad({var}, c, z, level)" if t.array else f"textureLoad({var}, c, level)"
    n = 3 if t.dimension == "texture3d" else 2
    vec4 = f"vec4<{t.wgsl_scalar}>"  # vec4<T>(): 0 in every component, of T's scalar
    helper = (
        f"fn {dims}(level : u32) -> vec{n}<u32>\n{{\n"
        f"    if (level >= textureNumLevels({var})) {{ return vec{n}<u32>(0u); }}\n"
        f"    return max(vec{n}<u32>(1u), textureDimensions({var}) >> vec{n}<u32>(level));\n}}")
    helper += "" if t.cube else (  # a cube has no Load (ld: any resource but a TextureCube)
        f"\nfn {load}(c : vec{n}<i32>, z : i32, level : i32) -> {vec4}\n{{\n"
        f"    if (level < 0 || z < 0 || u32(z) >= {slices}) {{ return {vec4}(); }}\n"
        f"    let d = vec{n}<i32>({dims}(u32(level)));\n"
        f"    if (any(c < vec{n}<i32>(0)) || any(c >= d)) {{ return {vec4}(); }}\n"
        f"    return {fetch};\n}}")
    if t.array:  # D3D: the layer count 0 past the last level; a sampled slice rounded to
        # nearest even (WGSL's round) and clamped to the slices (a NaN: slice 0)
        helper += (
            f"\nfn {layers}(level : u32) -> u32\n{{\n"
            f"    return select(textureNumLayers({var}), 0u, level >= textureNumLevels({var}));"
            f"\n}}\n"
            f"fn {layer}(z : f32) -> i32\n{{\n"
            f"    let top = f32(textureNumLayers({var})) - 1.0;\n"
            f"    return select(i32(clamp(round(z), 0.0, top)), 0, z != z);\n}}")
    if t.compared:
        helper += "\n" + compare_helper(k, var, t.array, dims, layer)
    if t.sampled and t.return_type == "float" and not t.cube:
        helper += "\n" + border_helper(k, var, t.array, 3 if t.dimension == "texture3d" else 2,
                                       dims, layer)
    return code, helper


def rewrite(code: str, textures, samplers, group: int, what: str) -> str:
    """Slang's WGSL with the textures and samplers rebound by name and a texture's ``Load``,
    ``GetDimensions`` of a level and an array's sampled slice read as D3D12 defines them (the
    module docstring)."""
    if not textures and not samplers:
        return code
    helpers = []
    for s in samplers:
        code = re.sub(rf"@binding\(\s*\d+\s*\)\s*@group\(\s*\d+\s*\)(\s*var\s+"
                      rf"{re.escape(s.var)}\s*:)", rf"@binding({s.binding}) @group({group})\1",
                      code)
    if samplers:  # what WebGPU's samplers cannot say, per register (SamplerDesc.state_words)
        helpers.append(
            f"@binding({SAMPLER_STATE_BINDING}) @group({group}) var<uniform> gpuia_sampler_state"
            f" : array<vec4<u32>, {STATE_ROWS * SAMPLER_SLOTS}>;\n"
            f"// MIRROR_ONCE (rules 17.4): mirror-repeat on a coordinate clamped to [-1, 1]\n"
            f"fn gpuia_sampler_uv(r : u32, uv : vec2<f32>) -> vec2<f32>\n{{\n"
            f"    let m = gpuia_sampler_state[r].x;\n"
            f"    let once = (vec2<u32>(m, m >> 1u) & vec2<u32>(1u)) != vec2<u32>(0u);\n"
            f"    return select(uv, clamp(uv, vec2<f32>(-1.0), vec2<f32>(1.0)), once);\n}}\n"
            f"// MipLODBias, added to SampleLevel's LOD as D3D's sample_l does (rules 17.3)\n"
            f"fn gpuia_sampler_bias(r : u32) -> f32\n{{\n"
            f"    return bitcast<f32>(gpuia_sampler_state[r].y);\n}}")
    if samplers and any(t.dimension == "texture3d" for t in textures):  # w: bit 2
        helpers.append(
            "fn gpuia_sampler_uvw(r : u32, uvw : vec3<f32>) -> vec3<f32>\n{\n"
            "    let m = gpuia_sampler_state[r].x;\n"
            "    let once = (vec3<u32>(m, m >> 1u, m >> 2u) & vec3<u32>(1u)) != vec3<u32>(0u);\n"
            "    return select(uvw, clamp(uvw, vec3<f32>(-1.0), vec3<f32>(1.0)), once);\n}")
    registers = {s.var: s.register for s in samplers}
    for t in textures:
        code, helper = _rewrite_texture(code, t, group, registers, what)
        helpers.append(helper)
    for s in (s for s in samplers if s.comparison):  # no WebGPU sampler: emulated filter
        code = re.sub(rf"@binding\(\s*\d+\s*\)\s*@group\(\s*\d+\s*\)\s*var\s+"
                      rf"{re.escape(s.var)}\s*:[^;]*;", "", code)
        if re.search(rf"(?<!\w){re.escape(s.var)}(?!\w)", code):
            raise InvalidDescError(what, f"resource {s.name}", "SamplerComparisonState",
                                   "Slang's WGSL uses it other than by SampleCmpLevelZero: "
                                   "gpuia samples a comparison by that only (rules 17.10)")
    if any(s.comparison for s in samplers):
        helpers.append(COMPARE_COMMON)
    if samplers:  # the taps of a comparison's and a BORDER sampler's filters
        helpers += [TAP_COMMON, BORDER_COMMON]
    note = "// gpuia: textures, Load and GetDimensions checked as D3D12 (docs/resources.md)"
    return f"{code}\n{note}\n" + "\n".join(helpers) + "\n"
