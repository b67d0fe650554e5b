"""The GPU side of gpuia: devices and buffers, per-draw planning, pipelines for the native and
vertex-pulling paths, a D3D-style context, render targets and Stream Output on the GPU. Running
whole case files is the harness's job (:mod:`gpuia.harness.run_gpu`)."""

from .._moved import moved_name
from .context import Capture, Context, PipelineState
from .device import AdapterInfo, Buffer, Caps, Device, get_device, list_adapters, select_adapter
from .plan import DrawPath, IndexMode, Plan, plan_draw
from .targets import TARGET_FORMATS, Texture

__all__ = ["Capture", "Context", "PipelineState", "AdapterInfo", "Buffer", "Caps", "Device",
           "get_device", "list_adapters", "select_adapter", "Plan", "plan_draw", "DrawPath",
           "IndexMode", "Texture",
           "TARGET_FORMATS"]


def __getattr__(name):
    # Names this package exported before the harness split (gpuia._moved).
    return moved_name(__name__, name)
