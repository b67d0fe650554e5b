"""gpuia: Direct3D 12's Input Assembler and Stream Output on real GPUs through WebGPU,
checked against an exact numpy reference.

The core (this package's top level) needs no GPU: descriptors mirroring D3D12, the DXGI vertex
format table, input layout resolution as CreateInputLayout does it, and the CPU reference.
"""

from .d3d.desc import InputClassification, PrimitiveTopology, StripCutValue
from .d3d.draws import DrawIndexedInstanced, DrawInstanced
from .d3d.formats import VERTEX_FORMATS, FormatInfo, format_info
from .d3d.ia_desc import APPEND_ALIGNED_ELEMENT, IndexBufferView, InputElementDesc, VertexBufferView
from .d3d.layout import InputLayout, elements_from_dtype
from .d3d.so_desc import (
    SO_NO_RASTERIZED_STREAM,
    SODeclarationEntry,
    StreamOutputBufferView,
    StreamOutputDesc,
)
from .d3d.topology import TOPOLOGIES, topology_info
from .errors import CaseError, GpuiaError, InvalidDescError, UnsupportedError
from .reference import IAResult, run_ia
from .util.wgpu_ffi import install as _install_wgpu_ffi

# Before any gpuia module imports wgpu-py's backend (the core above never does): its C
# declarations come from the disk cache, not from a parse of wgpu-native's header at every
# process start (gpuia.util.wgpu_ffi).
_install_wgpu_ffi()

__version__ = "0.1.0"
"""The package's version (PEP 440)."""

__all__ = [
    "APPEND_ALIGNED_ELEMENT", "SO_NO_RASTERIZED_STREAM", "DrawIndexedInstanced", "DrawInstanced",
    "IndexBufferView", "InputClassification", "InputElementDesc", "PrimitiveTopology",
    "SODeclarationEntry", "StreamOutputBufferView", "StreamOutputDesc", "StripCutValue",
    "VertexBufferView", "CaseError", "GpuiaError", "InvalidDescError", "UnsupportedError",
    "VERTEX_FORMATS", "FormatInfo", "format_info", "InputLayout", "elements_from_dtype",
    "IAResult", "run_ia", "TOPOLOGIES", "topology_info", "__version__",
]
