"""gpuia on a wgpu device the application already has (Device.from_wgpu): the context draws,
captures and cross-checks on that very device, the application keeps it after gpuia is done,
and what is not a wgpu-native device is refused before gpuia uses it."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from gpuia.errors import UnsupportedError
from gpuia.gpu import Device
from helpers import check_gpu, valid_case

# The application's devices live for the session, as an application's do: on an adapter with
# the ONE_DEVICE quirk, dropping one would break the session's other devices.
_APP_DEVICES: list = []


def _app_device(adapter, features=("vertex-writable-storage", "indirect-first-instance")):
    wgpu_device = adapter.request_device_sync(
        required_features=[f for f in features if f in adapter.features])
    _APP_DEVICES.append(wgpu_device)
    return wgpu_device


def _works(wgpu_device) -> bool:
    import wgpu

    usage = wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
    buf = wgpu_device.create_buffer_with_data(data=b"appl", usage=usage)
    return bytes(wgpu_device.queue.read_buffer(buf)) == b"appl"


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_cross_check_runs_on_the_applications_device(gpu_device, path):
    app = _app_device(gpu_device.adapter)
    dev = Device.from_wgpu(app)
    assert dev.device is app and dev.adapter is gpu_device.adapter
    assert dev.info == gpu_device.info
    assert dev.caps.depth_copies == gpu_device.caps.depth_copies  # probed, as for any Device
    check_gpu(valid_case(), dev, path)
    del dev
    gc.collect()
    assert _works(app)  # the application still has its device


def test_caps_follow_the_devices_own_features(gpu_device):
    """A device made without gpuia's optional features gets caps without them, told depth
    copies are refused without a probe, and still cross-checks on the pulling path."""
    dev = Device.from_wgpu(_app_device(gpu_device.adapter, features=()), depth_copies=False)
    assert not dev.caps.vertex_writable_storage and not dev.caps.indirect_first_instance
    assert dev.caps.depth_copies is False
    doc = valid_case()
    check_gpu(doc, dev, "pulling")


def test_gpuia_buffers_are_the_applications_buffers(gpu_device):
    """A Buffer gpuia makes is a buffer of the application's device: the application's own
    encoder copies it, and its queue reads what gpuia wrote."""
    import wgpu

    app = _app_device(gpu_device.adapter)
    dev = Device.from_wgpu(app)
    values = np.arange(16, dtype=np.float32)
    buf = dev.create_buffer(values)
    out = app.create_buffer(size=64, usage=wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC)
    enc = app.create_command_encoder()
    enc.copy_buffer_to_buffer(buf.wgpu, 0, out, 0, 64)
    app.queue.submit([enc.finish()])
    assert np.frombuffer(app.queue.read_buffer(out), np.float32).tolist() == values.tolist()


def test_what_is_not_a_wgpu_native_device_is_refused():
    with pytest.raises(UnsupportedError, match="not a wgpu-py GPUDevice"):
        Device.from_wgpu(object())
