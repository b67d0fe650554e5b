"""wgpu's errors mapped to gpuia's, with no device: an allocation failure is a
GpuOutOfMemoryError, a lost device a DeviceLostError, and an error line tells the adapter's
memory from the host's. Devices really lost: tests/gpu/test_gpu_device_loss.py."""

import wgpu

from gpuia.errors import DeviceLostError, GpuOutOfMemoryError
from gpuia.gpu.lifetime import device_error


def test_allocation_failures_map_to_gpu_out_of_memory():
    err = device_error(wgpu.GPUOutOfMemoryError("Out of memory"), "create_buffer")
    assert isinstance(err, GpuOutOfMemoryError) and isinstance(err, MemoryError)
    assert "create_buffer" in str(err)
    lost = device_error(wgpu.GPUValidationError("Parent device is lost"), "flush")
    assert isinstance(lost, DeviceLostError)
    assert device_error(wgpu.GPUValidationError("Buffer size 3 is not aligned"), "x") is None


def test_error_lines_tell_the_adapters_memory_from_the_hosts(capsys):
    """wgpu's GPUOutOfMemoryError is a MemoryError too; only the host's is named as such (the
    invalid fuzzer judges 'out of host memory' lines)."""
    from gpuia.cli import HOST_OUT_OF_MEMORY, error_line

    error_line("c", wgpu.GPUOutOfMemoryError("Out of memory"))
    error_line("c", MemoryError("Unable to allocate 16.0 GiB"))
    error_line("c", GpuOutOfMemoryError("create_buffer: the adapter is out of memory"))
    lines = capsys.readouterr().err.splitlines()
    assert [HOST_OUT_OF_MEMORY in line for line in lines] == [False, True, False], lines

