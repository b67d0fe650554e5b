"""Where gpuia binds a vertex shader's buffer shader resource views (docs/resources.md).

Root SRV N (HLSL ``register(tN)``, ``space0``) is ``@group(3) @binding(SRV_BINDING_BASE + N)``,
a read-only storage buffer; gpuia's uniform array of the views' (first element, count) is
``@group(3) @binding(VIEWS_BINDING)``; root constant buffers keep bindings 0..13.
"""

SRV_BINDING_BASE = 16
VIEWS_BINDING = 15
SRV_SLOTS = 128  # D3D12_COMMONSHADER_INPUT_RESOURCE_SLOT_COUNT

__all__ = ["SRV_BINDING_BASE", "VIEWS_BINDING", "SRV_SLOTS"]
