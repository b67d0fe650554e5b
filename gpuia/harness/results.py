"""Result documents: the fixed JSON contract of ``docs/case-format.md``'s "Result" (version 1).

:func:`result_json` writes an :class:`~gpuia.reference.IAResult` (CPU or GPU) as the result
document, every invocation in IA order with its IDs and each input's type, bits and value;
:func:`so_result_json` writes its ``stream_output`` part; :func:`json_value` writes one
component's value (floats as numbers or ``"nan"``, ``"inf"``, ``"-inf"``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..reference import IAResult
    from ..reference.stream_output import SOResult

RESULT_VERSION = 1
"""The ``gpuia_result`` version this module writes (docs/case-format.md, "Result")."""


def json_value(bits: int, shader_type: str) -> float | int | str:
    """One component as the result format writes its ``value``.

    Arguments:
        bits (int): the component's 32-bit pattern.
        shader_type (str): ``"float"``, ``"sint"``, or anything else for unsigned.

    Returns:
        For ``float``, the float32 value as a Python float, or the string ``"nan"``, ``"inf"``
        or ``"-inf"``; for ``sint``, the signed integer; else ``bits`` as an integer.
    """
    if shader_type == "float":
        v = float(np.uint32(bits).view(np.float32))
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if shader_type == "sint":
        return int(np.uint32(bits).view(np.int32))
    return int(bits)


def _values_list(bits: np.ndarray, shader_type: str) -> list:
    """Vectorized json_value over an (n, 4) array."""
    if shader_type == "uint":
        return bits.tolist()
    if shader_type == "sint":
        return bits.view(np.int32).tolist()
    vals = bits.view(np.float32).astype(np.float64)
    out = vals.tolist()
    bad = ~np.isfinite(vals)
    if bad.any():
        for r, c in zip(*np.nonzero(bad), strict=True):
            v = vals[r, c]
            out[r][c] = "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    return out


ADAPTER_KEYS = ("name", "backend", "type", "summary")
"""The keys of a result's ``adapter`` object (docs/case-format.md, "Result")."""
ADAPTER_INFO_KEYS = ("driver", "vendor", "vendor_id", "device_id", "wgpu_native")
"""The keys of a result's ``adapter_info`` object: what reproduces the run's driver."""


def result_json(case_name: str, ia: IAResult, *, backend: str = "cpu", path: str = "reference",
                adapter: dict | None = None, stream_output: dict | None = None) -> dict:
    """The result document for an :class:`~gpuia.reference.IAResult` (or any object with the
    same fields): version 1 of ``docs/case-format.md``'s "Result", every invocation in IA
    order with its IDs and each input's type, bits and value.

    Arguments:
        case_name (str): the ``case`` field.
        ia: the :class:`~gpuia.reference.IAResult` (on the GPU, ``GPUResult.ia``).
        backend (str): the ``backend`` field, ``"cpu"`` (the default) or ``"gpu"``.
        path (str): the ``path`` field: ``"reference"`` (the default), ``native``,
            ``pulling`` or both joined by ``/``.
        adapter (dict): the GPU's adapter (``Device.info``: ``name``, ``backend``, ``type``,
            ``summary``, and its driver facts ``driver``, ``vendor``, ``vendor_id``,
            ``device_id``, ``wgpu_native``); None (the default) for the CPU backend. The
            first four make the ``adapter`` field, the driver facts the ``adapter_info``
            field (null where ``adapter`` is).
        stream_output (dict): the ``stream_output`` field (:func:`so_result_json`), or None
            (the default) to leave it out.

    Returns:
        The document as a dict of JSON values.
    """
    n = len(ia)
    per_key = {k: (d.type, d.bits.tolist(), _values_list(d.bits, d.type))
               for k, d in ia.inputs.items()}
    draw, inst, vert, vid = (a.tolist() for a in (ia.draw, ia.instance, ia.vertex, ia.vertex_id))
    invocations = []
    for r in range(n):
        invocations.append({
            "draw": draw[r], "instance": inst[r], "vertex": vert[r],
            "SV_VertexID": vid[r], "SV_InstanceID": inst[r],
            "inputs": {k: {"type": t, "bits": b[r], "value": v[r]}
                       for k, (t, b, v) in per_key.items()},
        })
    doc = {
        "gpuia_result": RESULT_VERSION,
        "case": case_name,
        "backend": backend,
        "path": path,
        "adapter": None if adapter is None else {k: adapter.get(k) for k in ADAPTER_KEYS},
        "adapter_info": None if adapter is None else {k: adapter.get(k) for k in
                                                      ADAPTER_INFO_KEYS},
        "invocations": invocations,
        "statistics": dict(ia.statistics),
    }
    if stream_output is not None:
        doc["stream_output"] = stream_output
    return doc


def so_result_json(so: SOResult) -> dict:
    """The ``stream_output`` part of a result from a
    :class:`~gpuia.reference.stream_output.SOResult`.

    Arguments:
        so: the :class:`~gpuia.reference.stream_output.SOResult` (CPU or GPU).

    Returns:
        ``{"buffers": [{"slot", "hex", "filled_size"}, ...], "statistics": {...}}``, the
        buffers in slot order with their full contents.
    """
    return {
        "buffers": [{"slot": s, "hex": bytes(so.buffers[s]).hex(), "filled_size": so.filled_size[s]}
                    for s in sorted(so.buffers)],
        "statistics": dict(so.statistics),
    }
