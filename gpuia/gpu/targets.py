"""Render targets and depth-stencil targets: the output merger's side of a draw.

One table, :data:`TARGET_FORMATS`, says which DXGI formats gpuia renders into and what each one is
in WebGPU (texture format, bytes per texel, numpy element type, depth/stencil aspects). Raster and
depth state come from two more tables (:data:`CULL_MODES`, :data:`COMPARISON_FUNCS`), keyed by
D3D12's names without their prefixes.

A :class:`Texture` is a gpuia render target or depth-stencil buffer: a wgpu texture with its DXGI
format. :meth:`Texture.read` copies it back (rows un-padded from WebGPU's 256-byte copy pitch).
:meth:`Texture.from_wgpu` wraps a texture made elsewhere, a window surface's current texture
above all. :meth:`Texture.release` frees a texture gpuia made (draws already recorded into it
still run; any later use raises :class:`~gpuia.errors.InvalidDescError` naming it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..d3d.desc import d3d_key
from ..d3d.signature import ShaderSignature
from ..errors import InvalidDescError, UnsupportedError
from .lifetime import intercept_destroy, release_resource, released_error, wgpu_call

if TYPE_CHECKING:  # imported where a texture is made: the cpu backend never loads wgpu
    import wgpu

# The gpuia Device a texture belongs to. gpuia.gpu.device imports this module, so the class is
# not named here (the layer contract counts every import, type-checking ones too).
DeviceLike = Any

__all__ = ["OutputState", "INTERNAL_OUTPUT", "TargetFormat", "TARGET_FORMATS", "target_format",
           "texture_usage", "Texture", "CULL_MODES", "COMPARISON_FUNCS", "cull_mode",
           "comparison_func"]


@dataclass(frozen=True)
class TargetFormat:
    """A format gpuia can render into."""

    name: str  # DXGI name without the prefix
    webgpu: str  # wgpu texture format
    texel_bytes: int
    dtype: str  # numpy element type of one channel as read back
    channels: int  # channels as read back (depth: 1)
    depth: bool = False
    stencil: bool = False
    readable: bool = True  # WebGPU can copy it to a buffer
    shader_type: str = "float"  # what a pixel shader writes to it


# DXGI render-target and depth formats -> WebGPU. D24_UNORM_S8_UINT maps to depth24plus-stencil8,
# whose depth aspect WebGPU cannot copy out (its bits are the implementation's choice).
TARGET_FORMATS: dict[str, TargetFormat] = {f.name: f for f in (
    TargetFormat("R8G8B8A8_UNORM", "rgba8unorm", 4, "u1", 4),
    TargetFormat("R8G8B8A8_UNORM_SRGB", "rgba8unorm-srgb", 4, "u1", 4),
    TargetFormat("B8G8R8A8_UNORM", "bgra8unorm", 4, "u1", 4),
    TargetFormat("B8G8R8A8_UNORM_SRGB", "bgra8unorm-srgb", 4, "u1", 4),
    TargetFormat("R10G10B10A2_UNORM", "rgb10a2unorm", 4, "<u4", 1),
    TargetFormat("R16G16B16A16_FLOAT", "rgba16float", 8, "<f2", 4),
    TargetFormat("R32G32B32A32_FLOAT", "rgba32float", 16, "<f4", 4),
    TargetFormat("R32G32B32A32_UINT", "rgba32uint", 16, "<u4", 4, shader_type="uint"),
    TargetFormat("R32_FLOAT", "r32float", 4, "<f4", 1),
    TargetFormat("D32_FLOAT", "depth32float", 4, "<f4", 1, depth=True),
    TargetFormat("D16_UNORM", "depth16unorm", 2, "<u2", 1, depth=True),
    TargetFormat("D24_UNORM_S8_UINT", "depth24plus-stencil8", 4, "<u4", 1, depth=True,
                 stencil=True, readable=False),
)}
"""DXGI format name (without ``DXGI_FORMAT_``) -> :class:`TargetFormat`: every render-target and
depth-stencil format gpuia renders into, with its WebGPU texture format, texel size and the numpy
type :meth:`Texture.read` returns. Formats not listed are refused where a target format is
named (:class:`~gpuia.errors.InvalidDescError`); a device may render into fewer
(``Caps.target_formats``: OpenGL ES lacks some), which its target creation refuses
(:class:`~gpuia.errors.UnsupportedError`). D24_UNORM_S8_UINT cannot be read back."""
_BY_WEBGPU = {f.webgpu: f for f in TARGET_FORMATS.values()}

CULL_MODES = {"NONE": "none", "FRONT": "front", "BACK": "back"}
"""D3D12_CULL_MODE -> WebGPU cull mode."""

COMPARISON_FUNCS = {"NEVER": "never", "LESS": "less", "EQUAL": "equal",
                    "LESS_EQUAL": "less-equal", "GREATER": "greater", "NOT_EQUAL": "not-equal",
                    "GREATER_EQUAL": "greater-equal", "ALWAYS": "always"}
"""D3D12_COMPARISON_FUNC -> WebGPU compare function."""


def texture_usage(fmt: TargetFormat) -> int:
    """The wgpu usage of a texture gpuia makes in ``fmt``: rendered into, bound, and copied out
    where WebGPU allows (Device probes its formats with the same usage)."""
    import wgpu

    usage = wgpu.TextureUsage.RENDER_ATTACHMENT | wgpu.TextureUsage.TEXTURE_BINDING
    return usage | wgpu.TextureUsage.COPY_SRC if fmt.readable else usage


def target_format(value: TargetFormat | str, field: str = "Format", *,
                  depth: bool | None = None) -> TargetFormat:
    """The :class:`TargetFormat` named ``value`` (``DXGI_FORMAT_`` prefix optional). ``depth``
    True/False also requires a depth or a color format. Raises :class:`InvalidDescError`."""
    fmt: TargetFormat | None
    if isinstance(value, TargetFormat):
        fmt = value
    else:
        fmt = (TARGET_FORMATS.get(d3d_key(value, ("DXGI_FORMAT_",)))
               if isinstance(value, str) else None)
        if fmt is None:
            kinds = [n for n, f in TARGET_FORMATS.items() if depth is None or f.depth == depth]
            raise InvalidDescError("render target", field, value,
                                   f"gpuia renders into {', '.join(kinds)}")
    if depth is not None and fmt.depth != depth:
        raise InvalidDescError("render target", field, fmt.name,
                               "is a depth format; expected a color format" if fmt.depth else
                               "is a color format; expected a depth format")
    return fmt


def _enum(table: dict, value, field: str, prefixes: tuple[str, ...]) -> str:
    key = d3d_key(value, prefixes) if isinstance(value, str) else None
    if key is None or key not in table:
        raise InvalidDescError("PipelineState", field, value,
                               f"expected one of {', '.join(table)}")
    return key


def cull_mode(value) -> str:
    """D3D12_CULL_MODE name (prefix optional), validated."""
    return _enum(CULL_MODES, value, "CullMode", ("D3D12_CULL_MODE_", "D3D11_CULL_"))


def comparison_func(value) -> str:
    """D3D12_COMPARISON_FUNC name (prefix optional), validated."""
    return _enum(COMPARISON_FUNCS, value, "DepthFunc",
                 ("D3D12_COMPARISON_FUNC_", "D3D11_COMPARISON_"))


class Texture:
    """A 2-D render target or depth-stencil buffer on a gpuia device.

    Create with :meth:`Device.create_render_target` / :meth:`Device.create_depth_stencil`, or wrap
    a texture made elsewhere with :meth:`from_wgpu`; those validate, the constructor itself
    does not (it trusts its caller to pass a texture of ``fmt`` on ``device``). ``view`` is the
    wgpu view draws render into (a default view of the whole texture). Free it with
    :meth:`release` or a ``with`` block (``wgpu`` and ``view`` then name the destroyed wgpu
    objects: do not use them). On textures gpuia created, ``wgpu.destroy()`` is routed to
    :meth:`release`; destroying the wgpu texture any other way is unsupported (the next submit
    that uses it aborts the process).

    Arguments:
        device (Device): the gpuia device the texture belongs to.
        texture: the ``wgpu.GPUTexture``.
        fmt (TargetFormat): its format's row of :data:`TARGET_FORMATS`.
        owned (bool): whether gpuia made it and so destroys it on :meth:`release` (False for
            :meth:`from_wgpu`: its owner destroys it).

    Attributes:
        device (Device): the device.
        wgpu: the ``wgpu.GPUTexture``.
        view: the ``wgpu.GPUTextureView`` draws render into.
        format (TargetFormat): the format.
        width, height (int): the size in texels.
        owned (bool): see above.
        released (bool): True once :meth:`release` was called.
    """

    released = False  # set by release(): every later use raises InvalidDescError

    def __init__(self, device: DeviceLike, texture: wgpu.GPUTexture, fmt: TargetFormat, *,
                 owned: bool = True):
        self.device = device
        self.wgpu = texture
        self.format = fmt
        self.width, self.height = int(texture.size[0]), int(texture.size[1])
        self.view = texture.create_view()
        self.owned = owned
        if owned:
            intercept_destroy(self, texture)

    def __enter__(self) -> Texture:
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def release(self) -> None:
        """Let go of the texture; idempotent. Afterwards binding it, clearing it, reading it or
        a draw with it still bound (render target, depth-stencil, a context's ``target``)
        raises :class:`~gpuia.errors.InvalidDescError` naming it. A texture gpuia created is
        destroyed at once when no context of the device has unsubmitted work, else after each
        such context's next submit (as :meth:`gpuia.gpu.Buffer.release`), so draws recorded
        into it still run. A texture wrapped with :meth:`from_wgpu` is not destroyed (its owner
        decides; flush first). Raises nothing."""
        if self.device.mark_released(self):
            release_resource(self, (self.wgpu, self.view) if self.owned else ())

    def check_live(self, where: str, field_name: str = "texture") -> None:
        """Refuse a released texture: what every binding of it calls first.

        Arguments:
            where (str): the call to name in the error (``"OMSetRenderTargets"``).
            field_name (str): the field to name in the error.

        Raises:
            InvalidDescError: the texture was released (:meth:`release`, or its ``.wgpu``
                destroyed).
        """
        if self.released:
            raise released_error(where, field_name, self)

    @classmethod
    def create(cls, device: DeviceLike, width: int, height: int, fmt: TargetFormat | str, *,
               depth: bool) -> Texture:
        """A new texture gpuia owns, validated before wgpu is called: what
        :meth:`Device.create_render_target` and :meth:`Device.create_depth_stencil` run. Its
        usage lets it be rendered into, bound and, where WebGPU allows, copied out.

        Arguments:
            device (Device): the gpuia device to create it on.
            width, height (int): the size in texels, each in 1..``max-texture-dimension-2d``.
            fmt: a format of :data:`TARGET_FORMATS` (a :class:`TargetFormat` or its DXGI name,
                ``DXGI_FORMAT_`` prefix optional).
            depth (bool): True for a depth-stencil format, False for a color format.

        Returns:
            The :class:`Texture` (owned: :meth:`release` destroys it).

        Raises:
            InvalidDescError: ``fmt`` is no format of the table or of the wrong kind, or a
                size is no integer in range.
            UnsupportedError: the device cannot render into the format (the message lists
                those of the same kind it can), or wgpu refused the texture.
            DeviceLostError: the device was lost.
            GpuOutOfMemoryError: the adapter is out of memory.
        """
        target = target_format(fmt, "Format", depth=depth)
        limit = device.caps.max_texture_dimension_2d
        for name, v in (("Width", width), ("Height", height)):
            if type(v) is not int or not 1 <= v <= limit:
                raise InvalidDescError("render target", name, v,
                                       f"must be an integer in 1..{limit} "
                                       f"(max-texture-dimension-2d)")
        renderable = device.caps.target_formats
        if renderable is not None and target.webgpu not in renderable:
            takes = sorted(f.name for f in TARGET_FORMATS.values()
                           if f.webgpu in renderable and f.depth == target.depth)
            raise UnsupportedError(
                f"render target Format {target.name}: {device.info['summary']} cannot render "
                f"into {target.webgpu} (it renders into {', '.join(takes)})")
        usage = texture_usage(target)
        tex = wgpu_call(lambda: device.device.create_texture(
            size=(width, height, 1), format=target.webgpu, usage=usage), "create_render_target")
        return cls(device, tex, target)

    @classmethod
    def from_wgpu(cls, device: DeviceLike, texture: wgpu.GPUTexture) -> Texture:
        """Wrap a wgpu texture (e.g. a window surface's current texture) whose format is in
        :data:`TARGET_FORMATS`: single-sampled, one mip level, one layer, with
        RENDER_ATTACHMENT usage, of ``device``. Flush every context that drew into it before
        presenting or destroying it: WebGPU aborts the process when a submission uses a
        destroyed texture, and gpuia cannot see a texture it did not create go away.

        Arguments:
            device (Device): the gpuia device whose wgpu device made ``texture``.
            texture: the ``wgpu.GPUTexture``.

        Returns:
            A :class:`Texture` that does not own ``texture`` (:meth:`release` marks it
            released and leaves the wgpu texture to its owner).

        Raises:
            InvalidDescError: the format is not in the table, or the texture lacks
                RENDER_ATTACHMENT usage, has several samples, mip levels or layers, or
                belongs to another wgpu device (the message names which).
        """
        import wgpu

        fmt = _BY_WEBGPU.get(str(texture.format))
        if fmt is None:
            raise InvalidDescError("render target", "format", texture.format,
                                   f"gpuia renders into {', '.join(sorted(_BY_WEBGPU))}")
        # What a render pass attachment must be (WebGPU refuses anything else at submit).
        checks = (
            ("usage", texture.usage & wgpu.TextureUsage.RENDER_ATTACHMENT,
             "the texture was not created with RENDER_ATTACHMENT usage"),
            ("sample_count", texture.sample_count == 1, "gpuia renders single-sampled"),
            ("mip_level_count", texture.mip_level_count == 1,
             "a render target view needs a texture of one mip level"),
            ("size", texture.size[2] == 1, "a render target is one 2-D layer"),
            ("device", getattr(texture, "_device", device.device) is device.device,
             "the texture belongs to another wgpu device"))
        for field_name, ok, rule in checks:
            if not ok:
                raise InvalidDescError("render target", field_name,
                                       getattr(texture, field_name, None), rule)
        return cls(device, texture, fmt, owned=False)

    def __repr__(self):
        gone = " released" if self.released else ""
        return f"<gpuia.Texture {self.width}x{self.height} {self.format.name}{gone}>"

    def read(self) -> np.ndarray:
        """The texture's contents, ``(height, width, channels)`` of the format's numpy type
        (``(height, width)`` for one channel); waits for the GPU. Refused for formats WebGPU
        cannot copy out (D24_UNORM_S8_UINT) and after :meth:`release`. Reads what has been
        submitted: flush the contexts that draw into it first.

        Returns:
            A C-contiguous numpy array (the rows without WebGPU's 256-byte copy padding);
            a depth format's depth aspect only.

        Raises:
            InvalidDescError: the texture was released, or its format cannot be copied out.
            UnsupportedError: a depth texture on a device that cannot copy depth to a buffer
                (``Caps.depth_copies`` False: wgpu's OpenGL backend), or wgpu refused the copy.
            DeviceLostError: the device was lost.
            GpuOutOfMemoryError: the adapter is out of memory.
        """
        self.check_live("Texture.read")
        if not self.format.readable:
            raise InvalidDescError("Texture.read", "Format", self.format.name,
                                   "WebGPU cannot copy this format's depth aspect to a buffer")
        if self.format.depth and self.device.caps.depth_copies is False:
            raise UnsupportedError(
                f"Texture.read: {self.device.info['summary']} cannot copy a depth texture to a "
                f"buffer (wgpu's downlevel flag DEPTH_TEXTURE_AND_BUFFER_COPIES), so the "
                f"{self.format.name} target cannot be read back")
        dev = self.device.device
        row = self.width * self.format.texel_bytes
        pitch = (row + 255) // 256 * 256  # WebGPU's bytes_per_row alignment for copies

        def copy_out():
            buf = dev.create_buffer(size=pitch * self.height, usage="COPY_DST|COPY_SRC")
            enc = dev.create_command_encoder()
            source = {"texture": self.wgpu}
            if self.format.depth:
                source["aspect"] = "depth-only"
            enc.copy_texture_to_buffer(source, {"buffer": buf, "offset": 0, "bytes_per_row": pitch,
                                                "rows_per_image": self.height},
                                       (self.width, self.height, 1))
            dev.queue.submit([enc.finish()])
            return dev.queue.read_buffer(buf)

        data = wgpu_call(copy_out, "Texture.read")
        rows = np.frombuffer(data, np.uint8).reshape(self.height, pitch)[:, :row]
        out = np.ascontiguousarray(rows).view(np.dtype(self.format.dtype))
        channels = self.format.channels
        shape = (self.height, self.width) + ((channels,) if channels > 1 else ())
        return out.reshape(shape)


@dataclass(frozen=True)
class OutputState:
    """Everything after the vertex shader that a render pipeline bakes in: the pixel shader and
    its links to the vertex shader, the render target and depth formats, rasterizer and depth
    state (D3D12's PS, RTVFormats, DSVFormat, RasterizerState, DepthStencilState). Hashable: part
    of the pipeline cache key."""

    rtv_formats: tuple[TargetFormat, ...]
    dsv_format: TargetFormat | None = None
    pixel_shader: ShaderSignature | None = None  # of the pixel shader
    varyings: tuple = ()  # gpuia.wgsl.pixel.Varying rows
    cull_mode: str = "NONE"
    front_counter_clockwise: bool = False
    depth_enable: bool = False
    depth_write: bool = False
    depth_func: str = "LESS"
    internal: bool = False  # the context's own target (no render targets in the pipeline state)

    def primitive(self) -> dict:
        """WebGPU primitive state fields this output state decides."""
        return {"cull_mode": CULL_MODES[self.cull_mode],
                "front_face": "ccw" if self.front_counter_clockwise else "cw"}

    def depth_stencil(self) -> dict | None:
        if self.dsv_format is None:
            return None
        return {"format": self.dsv_format.webgpu, "depth_write_enabled": self.depth_write,
                "depth_compare": COMPARISON_FUNCS[self.depth_func] if self.depth_enable
                else "always"}

    def signature(self) -> tuple:
        """(color formats, depth format) a render pass must have for these pipelines."""
        return (tuple(f.name for f in self.rtv_formats),
                self.dsv_format.name if self.dsv_format else None)


INTERNAL_OUTPUT = OutputState((TARGET_FORMATS["R8G8B8A8_UNORM"],), internal=True)
"""Draws of pipeline states without render targets, and capture draws: the context's own target,
no culling (every primitive reaches the rasterizer, as the vertex shader sees them all anyway)."""
