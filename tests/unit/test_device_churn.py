"""A Device on an adapter that makes no device is refused with wgpu's reason, and on OpenGL with
the cause (checked with a stand-in adapter, no GPU needed). Many real devices in one process:
tests/gpu/test_gpu_device_churn.py.
"""

from __future__ import annotations

import pytest


class _NoDeviceAdapter:
    """An adapter on which wgpu makes no device, as NVIDIA's OpenGL adapter on the H200 host
    answers every request (docs/known-adapter-issues.md)."""

    features: frozenset = frozenset()

    def __init__(self, backend):
        self.summary = f"Some GPU (Unknown) via {backend}"
        self.info = {"backend_type": backend, "device": "Some GPU", "adapter_type": "Unknown"}

    def request_device_sync(self, required_features=()):
        raise RuntimeError("Request device failed (3): Validation Error\n\nCaused by:\n"
                           "  Parent device is lost\n")


@pytest.mark.parametrize("backend", ["OpenGL", "Vulkan"])
def test_an_adapter_that_makes_no_device_is_refused_with_the_reason(backend):
    from gpuia.errors import UnsupportedError
    from gpuia.gpu import Device

    with pytest.raises(UnsupportedError) as e:
        Device(_NoDeviceAdapter(backend))
    text = str(e.value)
    assert text.startswith(f"cannot create a device on Some GPU (Unknown) via {backend}: "
                           "Request device failed (3): Validation Error Caused by: Parent device "
                           "is lost"), text
    # The cause is known only for wgpu's OpenGL backend (its compute-less GL context).
    assert ("the GL context it made has no compute shaders" in text) == (backend == "OpenGL")

