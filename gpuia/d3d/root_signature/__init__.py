"""Root signatures (D3D12_VERSIONED_ROOT_SIGNATURE_DESC, versions 1.0 and 1.1): the model
(:mod:`.model`), read from JSON (:mod:`.json_form`), from HLSL's string form and an entry's
``[RootSignature]`` attribute (:mod:`.hlsl_form`) and from the serialized ``RTS0`` form
(:mod:`.blob_form`); validated as CreateRootSignature validates (:mod:`.validation`, docs/rules.md
section 16); a shader's registers checked against it (:mod:`.coverage`); and the registers it
covers placed in gpuia's WebGPU bindings (:mod:`.webgpu`). docs/resources.md, "Root signatures".
"""

from __future__ import annotations

from .blob_form import container_root_signature, read_root_signature_blob, read_rts0
from .coverage import ShaderBinding, cover
from .hlsl_form import entry_root_signature, parse_root_signature
from .json_form import root_signature_from_json
from .model import DescriptorRange, RootParameter, RootSignature, StaticSampler
from .validation import validate
from .webgpu import webgpu_bindings

__all__ = ["DescriptorRange", "RootParameter", "RootSignature", "StaticSampler",
           "ShaderBinding", "cover", "validate", "webgpu_bindings", "root_signature_from_json",
           "parse_root_signature", "entry_root_signature", "read_root_signature_blob",
           "read_rts0", "container_root_signature"]
