"""The GPU side of gpuia: devices and buffers, per-draw planning, pipelines for the native and
vertex-pulling paths, a D3D-style context, render targets, and capture of what vertex shaders
receive."""

from .capture import GPUResult, run_case_gpu, upload_case
from .context import Capture, Context, PipelineState
from .device import AdapterInfo, Buffer, Caps, Device, get_device, list_adapters, select_adapter
from .plan import Plan, plan_draw
from .targets import TARGET_FORMATS, Texture

__all__ = ["GPUResult", "run_case_gpu", "upload_case", "Capture", "Context", "PipelineState",
           "AdapterInfo", "Buffer", "Caps", "Device", "get_device", "list_adapters",
           "select_adapter", "Plan", "plan_draw", "Texture", "TARGET_FORMATS"]
