"""Where gpuia binds a vertex shader's buffer shader resource views (docs/resources.md).

Root SRV N of register space S (HLSL ``register(tN, spaceS)``) is ``@group(3)
@binding(SRV_BINDING_BASE + SRV_SLOTS * S + N)``, a read-only storage buffer, for S below
SRV_SPACES (WebGPU guarantees 1000 bindings in a group); gpuia's uniform array of the views'
(first element, count) is ``@group(3) @binding(VIEWS_BINDING)``; root constant buffers keep
bindings 0..13.
"""

SRV_BINDING_BASE = 16
VIEWS_BINDING = 15
SRV_SLOTS = 128  # D3D12_COMMONSHADER_INPUT_RESOURCE_SLOT_COUNT
SRV_SPACES = 7  # 16 + 7 * 128 bindings fit WebGPU's guaranteed max-bindings-per-bind-group 1000


def srv_binding(register: int, space: int) -> int:
    """The @group(3) binding of SRV ``register(t<register>, space<space>)``."""
    return SRV_BINDING_BASE + SRV_SLOTS * space + register


__all__ = ["SRV_BINDING_BASE", "VIEWS_BINDING", "SRV_SLOTS", "SRV_SPACES", "srv_binding"]
