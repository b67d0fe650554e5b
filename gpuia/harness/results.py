"""Result documents: the fixed JSON contract of ``docs/case-format.md``'s "Result" (version 1).

:func:`result_json` writes an :class:`~gpuia.reference.IAResult` (CPU or GPU) as the result
document, every invocation in IA order with its IDs and each input's type, bits and value;
:func:`so_result_json` writes its ``stream_output`` part, :func:`geometry_json` (the CPU
reference's) and :func:`captured_geometry_json` (the GPU's) its geometry shader part;
:func:`json_value` writes one component's value (floats as numbers or ``"nan"``, ``"inf"``,
``"-inf"``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..gpu.gs.capture import GSCaptured
    from ..hlsl import HlslGeometryShader
    from ..reference import IAResult
    from ..reference.stream_output import SOResult
    from .reference_geometry import GeometryRun

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
                adapter: dict | None = None, stream_output: dict | None = None,
                outputs: dict[str, tuple[str, np.ndarray]] | None = None) -> dict:
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
        outputs (dict): the vertex shader's outputs, output key -> ``(type, uint32 (n,
            components) bits)``, written as each invocation's ``outputs`` beside its
            ``inputs`` with the output's own component count; None (the default) leaves
            ``outputs`` out.

    Returns:
        The document as a dict of JSON values.
    """
    n = len(ia)
    per_key = {k: (d.type, d.bits.tolist(), _values_list(d.bits, d.type))
               for k, d in ia.inputs.items()}
    draw, inst, vert, vid = (a.tolist() for a in (ia.draw, ia.instance, ia.vertex, ia.vertex_id))
    per_out = {k: (t, bits.tolist(), _values_list(bits, t))
               for k, (t, bits) in (outputs or {}).items()}
    invocations = []
    for r in range(n):
        invocation = {
            "draw": draw[r], "instance": inst[r], "vertex": vert[r],
            "SV_VertexID": vid[r], "SV_InstanceID": inst[r],
            "inputs": {k: {"type": t, "bits": b[r], "value": v[r]}
                       for k, (t, b, v) in per_key.items()},
        }
        if outputs is not None:
            invocation["outputs"] = {k: {"type": t, "bits": b[r], "value": v[r]}
                                     for k, (t, b, v) in per_out.items()}
        invocations.append(invocation)
    doc = {
        "gpuia_result": RESULT_VERSION,
        "case": case_name,
        "backend": backend,
        "path": path,
        "adapter": None if adapter is None else {k: adapter.get(k) for k in ADAPTER_KEYS},
        "adapter_info": None if adapter is None else {k: adapter.get(k) for k in
                                                      ADAPTER_INFO_KEYS},
        "invocations": invocations,
        "statistics": pipeline_statistics(ia.statistics),
    }
    if stream_output is not None:
        doc["stream_output"] = stream_output
    return doc


def typed_outputs(members, bits: dict[str, np.ndarray]) -> dict[str, tuple[str, np.ndarray]]:
    """The ``outputs`` argument of :func:`result_json` from a vertex shader's output signature
    and its outputs' bits.

    Arguments:
        members: the signature's output members (``key``, ``type``, ``components``), in order.
        bits (dict): output key -> uint32 ``(n, components)`` (or wider: the member's own
            components are kept); an output it lacks is left out.

    Returns:
        Output key -> ``(type, contiguous uint32 (n, components))``, in signature order.
    """
    return {m.key: (m.type, np.ascontiguousarray(bits[m.key][:, :m.components], np.uint32))
            for m in members if m.key in bits}


def pipeline_statistics(ia_statistics: dict) -> dict:
    """A result's ``statistics`` from an Input Assembler's: ``IAVertices`` and ``IAPrimitives``
    as given, then ``VSInvocations``, one vertex shader invocation per vertex the IA delivered
    (rules 13.8: the reference shades no vertex twice and none that was not delivered), so it
    equals ``IAVertices`` on either backend. Statistics without ``IAVertices`` are copied as
    they are.

    Arguments:
        ia_statistics (dict): the IA result's ``statistics``.

    Returns:
        A new dict, in D3D12_QUERY_DATA_PIPELINE_STATISTICS order.
    """
    out = dict(ia_statistics)
    if "IAVertices" in out:
        out["VSInvocations"] = out["IAVertices"]
    return out


def so_result_json(so: SOResult, *, streams: bool = False) -> dict:
    """The ``stream_output`` part of a result from a
    :class:`~gpuia.reference.stream_output.SOResult`.

    Arguments:
        so: the :class:`~gpuia.reference.stream_output.SOResult` (CPU or GPU).
        streams (bool): also write ``streams``, the statistics of streams 0-3 (a case with a
            geometry shader). Default False.

    Returns:
        ``{"buffers": [{"slot", "hex", "filled_size"}, ...], "statistics": {...}}``, the
        buffers in slot order with their full contents, and ``streams``:
        ``[{"stream", "NumPrimitivesWritten", "PrimitivesStorageNeeded"}, ...]`` when asked.
    """
    doc = {
        "buffers": [{"slot": s, "hex": bytes(so.buffers[s]).hex(), "filled_size": so.filled_size[s]}
                    for s in sorted(so.buffers)],
        "statistics": dict(so.statistics),
    }
    if streams:
        doc["streams"] = [{"stream": s, **counts} for s, counts in enumerate(so.streams)]
    return doc


def _components(values: dict, members, row: int) -> dict:
    """``{KEY: {"type", "bits", "value"}}`` of one row of per-member (bits, values) lists."""
    return {m.key: {"type": m.kind, "bits": values[m.key][0][row], "value": values[m.key][1][row]}
            for m in members}


def _per_member(arrays: dict, members) -> dict:
    """Each member's bits and values as lists of rows (member key -> (bits, values))."""
    out = {}
    for m in members:
        bits = np.ascontiguousarray(arrays[m.key][:, :m.components], dtype=np.uint32)
        out[m.key] = (bits.tolist(), _values_list(bits, m.kind))
    return out


def geometry_json(run: GeometryRun, gs: HlslGeometryShader) -> tuple[dict, list]:
    """A geometry shader stage's part of a result (docs/case-format.md, "Result additions").

    Arguments:
        run (GeometryRun): the stage on the CPU reference
            (:func:`gpuia.harness.reference_geometry.reference_geometry`).
        gs (HlslGeometryShader): the compiled shader.

    Returns:
        ``(statistics, geometry_invocations)``: ``GSInvocations`` and ``GSPrimitives``, and one
        entry per invocation in D3D's order: ``draw``, ``instance``, ``primitive``
        (SV_PrimitiveID), ``gs_instance``, ``inputs`` (each input vertex's components) and
        ``emits`` (the Appends and RestartStrips that took effect, in call order: an Append as
        ``{"stream", "outputs"}``, a RestartStrip as ``{"stream", "cut": true}``).
    """
    from .reference_geometry import listed_calls

    inv, calls = run.invocations, run.calls
    inputs = _per_member(run.vertex_outputs, gs.input_record)
    records = [gs.stream_record(s) for s in range(len(gs.declaration.streams))]
    outputs = [_per_member({m.key: calls.records[:, m.word:m.word + m.components]
                            for m in rec}, rec) for rec in records]
    emits: list[list] = [[] for _ in range(len(inv))]
    listed = listed_calls(run)
    for c, i, s, cut in zip(listed.tolist(), calls.invocation[listed].tolist(),
                            calls.stream[listed].tolist(), calls.cut[listed].tolist(),
                            strict=True):
        emits[i].append({"stream": s, "cut": True} if cut else
                        {"stream": s, "outputs": _components(outputs[s], records[s], c)})
    entries = []
    for i, (d, inst, p, g) in enumerate(zip(inv.draw.tolist(), inv.instance.tolist(),
                                            inv.primitive_id.tolist(), inv.gs_instance.tolist(),
                                            strict=True)):
        entries.append({"draw": d, "instance": inst, "primitive": p, "gs_instance": g,
                        "inputs": [_components(inputs, gs.input_record, v)
                                   for v in inv.inputs[i].tolist()],
                        "emits": emits[i]})
    return dict(run.statistics), entries


def captured_geometry_json(captured: GSCaptured, gs: HlslGeometryShader) -> tuple[dict, list]:
    """The geometry shader stage's part of a GPU result, from what the GPU's stage read back
    (:class:`~gpuia.gpu.gs.capture.GSCaptured`), in the same form as :func:`geometry_json`'s.

    Each invocation's region lists its Appends that took effect (at most maxvertexcount, rules
    13.4); an Append whose header marks a strip start (bit 2) after an earlier Append of its
    stream in the invocation follows a RestartStrip of that stream, listed before it as
    ``{"stream", "cut": true}`` (a RestartStrip before a stream's first Append changes
    nothing and is not listed, docs/case-format.md).

    Arguments:
        captured (GSCaptured): the stage's work read back.
        gs (HlslGeometryShader): the compiled shader.

    Returns:
        ``(statistics, geometry_invocations)`` (docs/case-format.md, "Result additions").
    """
    n_max, r = gs.declaration.max_vertex_count, gs.record_words
    n = captured.draw.shape[0]
    _, k, words = captured.inputs.shape
    flat = captured.inputs.reshape(n * k, words)
    inputs = _per_member({m.key: flat[:, m.word:m.word + m.components]
                          for m in gs.input_record}, gs.input_record)
    counts = np.minimum(captured.regions[:, 0].astype(np.int64), n_max)
    entries = captured.regions[:, 1:1 + n_max * (1 + r)].reshape(n, n_max, 1 + r)
    used = np.arange(n_max)[None, :] < counts[:, None]
    kept = entries[used]  # every Append that took effect, invocation by invocation
    records = [gs.stream_record(s) for s in range(len(gs.declaration.streams))]
    outputs = [_per_member({m.key: kept[:, 1 + m.word:1 + m.word + m.components]
                            for m in rec}, rec) for rec in records]
    headers = kept[:, 0].tolist()
    out, at = [], 0
    for i, (d, inst, p, g) in enumerate(zip(captured.draw.tolist(), captured.instance.tolist(),
                                            captured.primitive_id.tolist(),
                                            captured.gs_instance.tolist(), strict=True)):
        emits: list[dict] = []
        seen: set[int] = set()
        for c in range(at, at + int(counts[i])):
            s = headers[c] & 3
            if headers[c] & 4 and s in seen:
                emits.append({"stream": s, "cut": True})
            seen.add(s)
            emits.append({"stream": s, "outputs": _components(outputs[s], records[s], c)})
        at += int(counts[i])
        out.append({"draw": d, "instance": inst, "primitive": p, "gs_instance": g,
                    "inputs": [_components(inputs, gs.input_record, i * k + v)
                               for v in range(k)],
                    "emits": emits})
    return dict(captured.statistics), out
