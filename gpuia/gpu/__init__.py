"""The GPU side of gpuia: devices and buffers, per-draw planning, pipelines for the native and
vertex-pulling paths, a D3D-style context, render targets and Stream Output on the GPU. Running
whole case files is the harness's job (:mod:`gpuia.harness.run_gpu`).

The public API is what ``__all__`` exports: :class:`Context` (with :class:`PipelineState` and
:class:`Capture`), :class:`Device`, :class:`Buffer`, :class:`Texture` and
:data:`TARGET_FORMATS`, the adapters (:func:`get_device`, :func:`list_adapters`,
:func:`select_adapter`, :class:`AdapterInfo`, :class:`Caps`) and planning (:func:`plan_draw`,
:class:`Plan`, :class:`DrawPath`, :class:`IndexMode`); besides them
:class:`gpuia.gpu.device.DevicePool` and the quirk table, :mod:`gpuia.gpu.quirks`. Input gpuia
refuses raises a :mod:`gpuia.errors` exception before anything reaches wgpu
(:class:`~gpuia.errors.InvalidDescError` for what D3D would reject,
:class:`~gpuia.errors.UnsupportedError` for what gpuia cannot do exactly on the adapter); a
call that reaches wgpu raises :class:`~gpuia.errors.DeviceLostError` or
:class:`~gpuia.errors.GpuOutOfMemoryError` for what the device does (lost, out of memory), not
wgpu's exceptions."""

from .adapters import AdapterInfo, list_adapters, select_adapter
from .buffers import Buffer
from .caps import Caps
from .context import Capture, Context, PipelineState
from .device import Device, get_device
from .ia.plan import IndexMode
from .targets import TARGET_FORMATS, Texture
from .vertex.plan import DrawPath, Plan, plan_draw

__all__ = ["Capture", "Context", "PipelineState", "AdapterInfo", "Buffer", "Caps", "Device",
           "get_device", "list_adapters", "select_adapter", "Plan", "plan_draw", "DrawPath",
           "IndexMode", "Texture",
           "TARGET_FORMATS"]

