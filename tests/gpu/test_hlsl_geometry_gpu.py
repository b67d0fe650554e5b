"""HLSL geometry shaders run on the GPU: each case of tests/hlsl_geometry_cases.py through its
compute program (``shader.wgsl``) on a wgpu compute pipeline built here, its regions read back
and compared bit for bit with the hand-derived ones (which the CPU reference gives too,
tests/unit/test_hlsl_geometry.py). Fails, never skips, without an adapter."""

from __future__ import annotations

import numpy as np
import pytest
import wgpu

import hlsl_geometry_cases as cases
from gpuia.gpu.readback import read_ranges
from gpuia.hlsl import compile_geometry_shader
from gpuia.hlsl.geometry_entry import GS_GROUP
from gpuia.hlsl.geometry_wgsl import GS_CBV_GROUP
from gpuia.wgsl.blocks import GS_PARAMS

_STORAGE = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST


def _buffer(dev, data: bytes, usage=_STORAGE):
    return dev.create_buffer_with_data(data=data + bytes(max(0, 16 - len(data))), usage=usage)


def run_gpu(device, shader, case: cases.GSCase) -> np.ndarray:
    dev = device.device
    instances = shader.declaration.instance_count
    n = case.prims.shape[0] * instances
    params = np.zeros(GS_PARAMS.words(), np.uint32)
    for name, value in (("first", 0), ("count", n), ("instances", instances),
                        ("vertex_words", shader.vertex_words),
                        ("region_words", shader.region_words)):
        params[GS_PARAMS.word(name)] = value
    size = n * shader.region_words * 4
    out = dev.create_buffer(size=size, usage=_STORAGE)
    module = dev.create_shader_module(code=shader.wgsl)
    pipeline = dev.create_compute_pipeline(
        layout="auto", compute={"module": module, "entry_point": shader.wgsl_entry_point})
    buffers = [_buffer(dev, params.tobytes(), wgpu.BufferUsage.UNIFORM),
               _buffer(dev, case.vertices.tobytes()), _buffer(dev, case.prims.tobytes()), out]
    groups = [dev.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=[
        {"binding": k, "resource": {"buffer": b, "offset": 0, "size": b.size}}
        for k, b in enumerate(buffers)])]
    if case.constant_buffers:
        groups.append(dev.create_bind_group(
            layout=pipeline.get_bind_group_layout(GS_CBV_GROUP), entries=[
                {"binding": slot, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                for slot, data in case.constant_buffers.items()
                for b in [_buffer(dev, data, wgpu.BufferUsage.UNIFORM)]]))
    encoder = dev.create_command_encoder()
    compute = encoder.begin_compute_pass()
    compute.set_pipeline(pipeline)
    for k, group in enumerate(groups):
        compute.set_bind_group(k, group)
    compute.dispatch_workgroups(-(-n // GS_GROUP), 1, 1)
    compute.end()
    dev.queue.submit([encoder.finish()])
    (data,) = read_ranges(dev, [(out, 0, size)])
    return data.view(np.uint32).reshape(n, shader.region_words)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_the_gpu_gives_the_hand_derived_regions(name, gpu_device):
    case = cases.CASES[name]()
    shader = compile_geometry_shader(case.source, case.entry_point)
    got = run_gpu(gpu_device, shader, case)
    np.testing.assert_array_equal(got, case.expected)
