"""Where gpuia binds a vertex shader's buffer unordered access views (docs/resources.md).

The k-th UAV the vertex shader writes (``RWStructuredBuffer<T>`` or ``RWByteAddressBuffer`` at
``register(uN, spaceS)``, ordered by space, then register) is ``@group(3)
@binding(UAV_BINDING_BASE + k)``, a read-write storage buffer, after the textures' and samplers'
bindings (``gpuia.d3d.textures``), for k below MAX_UAVS: the bindings left below WebGPU's
guaranteed 1000 of a bind group. Its view (first element, count) is an entry of the same views
uniform as the SRVs' (``gpuia.d3d.srv_bindings.VIEWS_BINDING``). N is below UAV_SLOTS (D3D12's
D3D12_UAV_SLOT_COUNT) and S below the SRVs' SRV_SPACES.
"""

UAV_BINDING_BASE = 992  # after the texture arrays' 976 + 16 (gpuia.d3d.textures)
MAX_UAVS = 8  # bindings 992..999: WebGPU guarantees 1000 bindings in a group
UAV_SLOTS = 64  # D3D12_UAV_SLOT_COUNT


def uav_binding(slot: int) -> int:
    """The @group(3) binding of the shader's ``slot``-th UAV."""
    return UAV_BINDING_BASE + slot


__all__ = ["UAV_BINDING_BASE", "MAX_UAVS", "UAV_SLOTS", "uav_binding"]
