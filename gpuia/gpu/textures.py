"""Textures and samplers on the GPU: a real WebGPU texture holding a D3D12 texture's texels,
and a WebGPU sampler for a D3D12_SAMPLER_DESC (docs/resources.md).

Guaranteed: :func:`create_texture` makes a texture of the WebGPU format of
``gpuia.d3d.textures.TEXTURE_FORMATS`` with the given mip levels and uploads the data level by
level (the bytes unchanged: WebGPU's format holds the same texels): a ``texture2d`` as a 2D
texture, a ``texture3d`` as a 3D one, a ``texture1d`` as a 2D texture of height 1 (WebGPU's 1D
textures have one level and no ``textureSampleLevel``; rules 17.8); :func:`create_sampler` maps
the point and linear filters, the WRAP / MIRROR / CLAMP address modes to WebGPU's repeat,
mirror-repeat and clamp-to-edge (MIRROR_ONCE to mirror-repeat: gpuia's WGSL clamps its
coordinate and adds the MipLODBias, ``gpuia.hlsl.textures``; BORDER to clamp-to-edge: a
sampler with a BORDER axis is filtered by gpuia's WGSL from texel loads,
``gpuia.hlsl.border_wgsl``, the WebGPU sampler's result unused) and MinLOD / MaxLOD to
lodMinClamp / lodMaxClamp (MaxLOD above 32 taken as 32: WebGPU's largest, beyond any texture's
levels). Refused (UnsupportedError): a
format whose WebGPU feature the device lacks (R16_UNORM needs wgpu's
``texture-format16bit-norm``, which gpuia's devices do not request). Data is slice by slice,
each slice's levels level 0 first (D3D12's subresource order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..d3d.textures import (
    DIMENSIONS,
    SamplerDesc,
    check_dimensions,
    mip_offsets,
    mip_size,
    texture_format,
)
from ..errors import InvalidDescError, UnsupportedError

__all__ = ["Texture2D", "create_texture", "create_sampler"]

# MIRROR_ONCE: mirror-repeat, its coordinate clamped to [-1, 1] in gpuia's WGSL (rules 17.4);
# BORDER: any mode (gpuia's WGSL filters such a sampler's taps itself)
_ADDRESS = {"WRAP": "repeat", "MIRROR": "mirror-repeat", "CLAMP": "clamp-to-edge",
            "MIRROR_ONCE": "mirror-repeat", "BORDER": "clamp-to-edge"}
_FILTER = {"point": "nearest", "linear": "linear"}


@dataclass(eq=False)
class Texture2D:
    """A texture of a device (its ``device``, the gpuia Device), ``format`` a DXGI name,
    ``dimension`` ``texture1d``, ``texture2d`` or ``texture3d`` (the class keeps its first
    name)."""

    device: Any
    wgpu: Any = field(repr=False)
    format: str
    width: int
    height: int
    mip_levels: int
    view: Any = field(default=None, repr=False)  # a 2d (a 3D texture's 3d) view of every level
    array_size: int = 1
    array_view: Any = field(default=None, repr=False)  # a 2d-array view of every slice
    released: bool = False
    dimension: str = "texture2d"  # D3D12's resource dimension (gpuia.d3d.textures.DIMENSIONS)
    depth: int = 1
    cube_views: dict = field(default_factory=dict, repr=False)  # cube_view's, by kind

    def cube_view(self, array: bool) -> Any:
        """A ``cube`` view of the 6 slices (``array``: a ``cube-array`` view of every slice),
        made when a TextureCube first reads it; UnsupportedError where the adapter lacks cube
        arrays (wgpu's downlevel ``CUBE_ARRAY_TEXTURES``: rules 17.9)."""
        import wgpu

        kind = "cube-array" if array else "cube"
        if kind not in self.cube_views:
            try:
                self.cube_views[kind] = self.wgpu.create_view(dimension=kind)
            except wgpu.GPUValidationError as e:  # no cube-array views on this adapter
                raise UnsupportedError(
                    f"draw: a TextureCube{'Array' * array} view of {self.format}: this "
                    f"adapter makes no {kind} view (wgpu's downlevel CUBE_ARRAY_TEXTURES; "
                    f"rules 17.9): {str(e).splitlines()[0] if str(e) else type(e).__name__}"
                ) from None
        return self.cube_views[kind]

    def release(self) -> None:
        """Destroy the WebGPU texture; a draw that reads it afterwards is refused."""
        if not self.released:
            self.released = True
            self.wgpu.destroy()


def create_texture(device, format: str, width: int, height: int = 1, mip_levels: int = 1,
                   data: bytes = b"", array_size: int = 1, dimension: str = "texture2d",
                   depth: int = 1) -> Texture2D:
    """A texture of ``device`` (``dimension``: ``texture1d``, ``texture2d`` or ``texture3d``,
    a 3D one ``depth`` planes deep) holding ``data``: every level's texels tightly packed,
    level 0 first, a 3D level plane by plane (D3D12's subresource order), or zeros when
    ``data`` is empty."""
    import wgpu

    where = "CreateCommittedResource"
    fmt = texture_format(format, where)
    if dimension not in DIMENSIONS:
        raise InvalidDescError(where, "Dimension", dimension,
                               f"expected one of {', '.join(DIMENSIONS)}")
    check_dimensions(width, height, mip_levels, array_size, where, dimension, depth)
    if fmt.feature and fmt.feature not in device.device.features:
        raise UnsupportedError(f"{where}: Format={fmt.name}: WebGPU's {fmt.webgpu} needs the "
                               f"{fmt.feature} feature, which this device lacks")
    offsets = mip_offsets(width, height, mip_levels, array_size, depth)
    if data and len(data) != offsets[-1] * fmt.size:
        raise InvalidDescError(where, "data", f"{len(data)} bytes",
                               f"{offsets[-1]} texels of {fmt.size} bytes expected")
    three = dimension == "texture3d"
    tex = device.device.create_texture(
        size=(width, height, depth if three else array_size), format=fmt.webgpu,
        mip_level_count=mip_levels, dimension="3d" if three else "2d",
        usage=wgpu.TextureUsage.TEXTURE_BINDING | wgpu.TextureUsage.COPY_DST,
        label=f"gpuia {dimension} {fmt.name} {width}x{height}x{depth}")
    for k in range(array_size * mip_levels if data else 0):  # slice by slice, level by level
        level, z = k % mip_levels, k // mip_levels
        w, h, d = (mip_size(n, level) for n in (width, height, depth))
        at = offsets[k] * fmt.size
        device.device.queue.write_texture(
            {"texture": tex, "mip_level": level, "origin": (0, 0, z)},
            memoryview(bytes(data[at:at + w * h * d * fmt.size])),
            {"offset": 0, "bytes_per_row": w * fmt.size, "rows_per_image": h}, (w, h, d))
    if three:
        return Texture2D(device, tex, fmt.name, width, height, mip_levels,
                         tex.create_view(dimension="3d"), dimension=dimension, depth=depth)
    return Texture2D(device, tex, fmt.name, width, height, mip_levels,
                     tex.create_view(dimension="2d") if array_size == 1 else None, array_size,
                     tex.create_view(dimension="2d-array"), dimension=dimension)


def create_sampler(device, desc: SamplerDesc):
    """The WebGPU sampler of ``desc`` (see the module docstring)."""
    mn, mag, mip = (_FILTER[f] for f in desc.filter)
    u, v, w = (_ADDRESS[a] for a in desc.address)
    return device.device.create_sampler(
        address_mode_u=u, address_mode_v=v, address_mode_w=w, mag_filter=mag, min_filter=mn,
        mipmap_filter=mip, lod_min_clamp=desc.min_lod, lod_max_clamp=min(desc.max_lod, 32.0))
