"""The formats gpuia takes for a typed UAV (``RWBuffer<T>``) of a vertex shader (docs/resources.md
"Unordered access views", docs/rules.md 18.5).

A typed UAV's write converts ``T`` to the view's DXGI format and its read converts back, as a
typed SRV's read does. gpuia binds the views whose conversion is the identity: ``T``'s
components, one 32-bit channel each, of ``T``'s kind (``R32_FLOAT`` for ``float``,
``R32G32_UINT`` for ``uint2``, ``R32G32B32A32_SINT`` for ``int4``), so a write stores ``T``'s
bits and a read returns them (rules 2.1), on the GPU and in the CPU reference alike.

Guaranteed: :func:`typed_uav_format` returns the format's table row for such a view. Refused,
naming the field: a format D3D12 refuses for a buffer view (typeless, sRGB, depth,
block-compressed, ...) or whose values are not ``T``'s kind (InvalidDescError, as a typed SRV's,
``gpuia.d3d.buffer_views.view_format``); one of other channels (UnsupportedError, with the
reason: a write to UNORM or SNORM rounds within D3D's tolerance of 0.6 ULP, so it has no
bit-exact value to compare, and 8- and 16-bit channels need byte writes WGSL's storage buffers
lack), or of another component count than ``T`` (UnsupportedError: D3D writes only the
format's components, which gpuia does not model).
"""

from __future__ import annotations

from ..errors import UnsupportedError
from .buffer_views import view_format
from .formats import FormatInfo

__all__ = ["typed_uav_format"]

_CHANNEL_KIND = {"float": "f", "uint": "u", "sint": "s"}  # T's kind -> its 32-bit channel


def typed_uav_format(value, shader_type: str, components: int, where: str,
                     field: str = "Format") -> FormatInfo:
    """The table row of a typed UAV's view format ``value`` for a shader's ``T`` of
    ``components`` values of ``shader_type`` (``float``, ``uint``, ``sint``); see the module
    docstring for what is refused."""
    fmt = view_format(value, shader_type, where, field)
    want = _CHANNEL_KIND[shader_type]
    if [(c.kind, c.bits) for c in fmt.channels] == [(want, 32)] * components:
        return fmt
    if len(fmt.components) != components or fmt.swizzle_spec is not None:
        reason = (f"it has {len(fmt.components)} components and the shader's T {components}: "
                  f"D3D writes and reads the format's own components, which gpuia does not "
                  f"model for a typed UAV")
    else:
        reason = ("its channels are not 32-bit: a write converts T to them (FLOAT to UNORM or "
                  "SNORM rounds within D3D's 0.6 ULP tolerance, rules 18.5, so no bit-exact "
                  "value exists to compare), and 8- and 16-bit channels need byte writes "
                  "WGSL's storage buffers lack")
    raise UnsupportedError(f"{where}: {field}={fmt.name}: gpuia binds a typed UAV whose format "
                           f"is T's components in 32-bit channels of T's kind ({reason})")
