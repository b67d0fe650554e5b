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



class _LoggingAdapter(_NoDeviceAdapter):
    """As NVIDIA's OpenGL adapter: wgpu-native logs the cause (through wgpu-py's ``wgpu``
    logger, in the calling thread), then the request fails."""

    def request_device_sync(self, required_features=()):
        import logging

        logging.getLogger("wgpu").error(
            'indirect-validation error: ComputePipeline(Internal("The selected version '
            'doesn\'t support Features(COMPUTE_SHADER)"))')
        return super().request_device_sync(required_features)


def test_what_wgpu_logs_before_a_failed_device_is_in_the_error_not_on_stderr(capfd):
    """The cause wgpu logs is part of gpuia's one error, and nothing else reaches stderr (with
    no logging configured, Python would print the record bare there)."""
    from gpuia.errors import UnsupportedError
    from gpuia.gpu import Device

    with pytest.raises(UnsupportedError) as e:
        Device(_LoggingAdapter("OpenGL"))
    assert ('(wgpu logged: indirect-validation error: ComputePipeline(Internal("The selected '
            'version doesn\'t support Features(COMPUTE_SHADER)")))') in str(e.value)
    assert capfd.readouterr().err == ""


def test_held_wgpu_records_are_logged_after_a_block_that_succeeds(caplog):
    """A block that ends normally logs its thread's held records after it, in order; another
    thread's records pass at once."""
    import logging
    import threading

    from gpuia.gpu.wgpu_log import held_wgpu_log

    logger = logging.getLogger("wgpu")
    seen_inside = []
    with caplog.at_level(logging.WARNING, logger="wgpu"):
        with held_wgpu_log() as held:
            logger.warning("first")
            logger.error("second")
            t = threading.Thread(target=logger.warning, args=("other thread",))
            t.start()
            t.join()
            seen_inside = [r.getMessage() for r in caplog.records]
        assert held == ["first", "second"]
    assert seen_inside == ["other thread"]
    assert [r.getMessage() for r in caplog.records] == ["other thread", "first", "second"]
