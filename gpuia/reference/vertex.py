"""The CPU reference vertex shader stage: the outputs of each invocation's vertex shader, as
bit patterns, which Stream Output (:func:`gpuia.reference.stream_output.stream_output`) writes.

Three kinds of shader run here: the case format's pass-through shader
(:func:`pass_through_outputs`), a Python function over numpy arrays (:func:`python_outputs`),
and any shader object with a ``run`` method, such as the HLSL shaders ``gpuia.hlsl.cpu`` builds
for the CPU (:func:`run_vertex_shader`). The reference does not import ``gpuia.hlsl`` (a layer
above it): its caller hands such a shader in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..d3d.layout import InputLayout
from .ia import IAResult

__all__ = ["pass_through_outputs", "python_outputs", "run_vertex_shader"]


def pass_through_outputs(ia: IAResult, layout: InputLayout) -> dict[str, np.ndarray]:
    """Outputs of the case format's pass-through vertex shader, as
    :func:`~gpuia.reference.stream_output.stream_output` takes them.

    Arguments:
        ia (IAResult): what the Input Assembler delivered.
        layout: the input layout the draws ran with; the outputs are read from ``ia`` alone,
            which keys every element.

    Returns:
        Output key -> uint32 bit patterns shaped ``(n, components)``: every input element
        under its key (4 words, as delivered), ``SV_VERTEXID0`` and ``SV_INSTANCEID0`` (1
        word), and ``SV_POSITION0``: the element of that key if the layout has one, else
        (0, 0, 0, 1.0).
    """
    out = {key: data.bits for key, data in ia.inputs.items()}
    n = len(ia)
    out["SV_VERTEXID0"] = ia.vertex_id.astype(np.uint32).reshape(n, 1)
    out["SV_INSTANCEID0"] = ia.instance.astype(np.uint32).reshape(n, 1)
    if "SV_POSITION0" not in out:
        pos = np.zeros((n, 4), np.uint32)
        pos[:, 3] = 0x3F800000
        out["SV_POSITION0"] = pos
    return out


def python_outputs(ia: IAResult, shader: Callable) -> dict[str, np.ndarray]:
    """Run a Python vertex shader over the IA's invocations.

    ``shader(inputs, sv_vertex_id, sv_instance_id)`` receives ``inputs`` as {key: (n, 4) array}
    of float32 / uint32 / int32 (the element's shader type) and copies of the two uint32 ID
    arrays, and must return {semantic key: (n, components) array of float32, uint32 or int32}.
    Keys are upper-case semantic + index (``"POSITION0"``; returned keys are upper-cased); the
    returned arrays are taken as their bit patterns.

    Arguments:
        ia (IAResult): what the Input Assembler delivered.
        shader: the Python vertex shader, a callable as above.

    Returns:
        Output key -> uint32 bit patterns shaped ``(n, components)``, as
        :func:`~gpuia.reference.stream_output.stream_output` takes them.

    Raises:
        TypeError: an output's dtype is not float32, uint32 or int32.
        ValueError: an output's size is not a multiple of the invocation count, or the IA
            delivered no invocation and the shader returned an output (numpy cannot infer
            the component count of an empty array).
    """
    inputs = {key: data.values for key, data in ia.inputs.items()}
    result = shader(inputs, ia.vertex_id.copy(), ia.instance.copy())
    out = {}
    for key, value in result.items():
        arr = np.asarray(value)
        if arr.dtype not in (np.float32, np.uint32, np.int32):
            raise TypeError(f"output {key}: expected float32, uint32 or int32, got {arr.dtype}")
        arr = arr.reshape(len(ia), -1)
        out[key.upper()] = np.ascontiguousarray(arr).view(np.uint32)
    return out


def run_vertex_shader(ia: IAResult, shader: Any,
                      constant_buffers: dict | None = None) -> dict[str, np.ndarray]:
    """Run a CPU vertex shader over the IA's invocations: ``shader.run(inputs, vertex_id,
    instance_id, constant_buffers)`` with ``inputs`` as {element key: ``(n, 4)`` uint32 bit
    patterns}, as delivered, and SV_VertexID and SV_InstanceID as uint32 arrays. What
    ``shader.run`` raises passes through.

    Arguments:
        ia (IAResult): what the Input Assembler delivered.
        shader: the shader, any object with such a ``run`` method (the shaders
            ``gpuia.hlsl.cpu.cpu_shader`` builds are ones).
        constant_buffers (dict): constant buffer slot -> its bytes, handed to the shader; None
            (the default) binds none.

    Returns:
        What ``shader.run`` returns: output key -> ``(n, components)`` uint32 bit patterns, as
        :func:`~gpuia.reference.stream_output.stream_output` takes them.
    """
    inputs = {key: data.bits for key, data in ia.inputs.items()}
    vertex_id, instance_id = ia.vertex_id.astype(np.uint32), ia.instance.astype(np.uint32)
    outputs: dict[str, np.ndarray] = shader.run(inputs, vertex_id, instance_id, constant_buffers)
    return outputs
