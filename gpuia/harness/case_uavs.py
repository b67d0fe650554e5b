"""The unordered access views of a case: a vertex shader's ``RWStructuredBuffer`` and
``RWByteAddressBuffer`` (``shader_resources`` entries of kind ``rw_structured``, ``rw_raw``;
docs/case-format.md, docs/resources.md "Unordered access views").

Guaranteed: every run of a case (the CPU reference, each GPU path, the Stream Output and outputs
runs) starts from the case's own bytes of each UAV (a new buffer per run); :func:`cpu_contents`
gives each UAV's whole buffer after the CPU reference ran the shader once per invocation the
Input Assembler delivered, :func:`read_contents` a GPU run's, :func:`differences` says where
they differ (None: bit for bit equal), :func:`uav_json` writes them in a result document. A
UAV's contents are defined only for writes that do not depend on how many times a vertex ran
(rules 18): atomics are refused when the shader compiles (``gpuia.hlsl.uavs``); a shader whose
plain writes depend on it (two vertices writing one element different values) differs, and the
difference is reported, not hidden. :func:`run_verdict` compares the Stream Output and outputs
runs' UAVs the same way where those runs shade the vertices the Input Assembler delivered: the
outputs run draws every index position as a point, cut positions too; the Stream Output run
shades the vertices of complete primitives (and their adjacent vertices with a geometry
shader), while a vertex of no complete primitive may go unshaded (D3D leaves it open, rules
4.11): a run shading another set of vertices than the reference's is ``not compared``, with the
reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["uav_label", "uavs_of", "cpu_views", "cpu_contents", "read_contents", "differences",
           "verdict", "run_verdict", "uav_json"]


def uav_label(r) -> str:
    """``u1``, ``u1 space2``: a case UAV's register as HLSL writes it."""
    return f"u{r.register}" + (f" space{r.space}" if r.space else "")


def uavs_of(case) -> list:
    """The case's UAVs (:class:`~gpuia.harness.case_resources.CaseResource` with
    ``writable``), by space and register."""
    return sorted((r for r in case.shader_resources.values() if r.writable),
                  key=lambda r: (r.space, r.register))


def cpu_views(case) -> dict[int, bytearray]:
    """{the UAV's shader binding: a new ``bytearray`` of its view's bytes}, for
    :meth:`gpuia.hlsl.cpu.CpuShader.run`, which leaves them holding what the shader wrote."""
    return {r.binding: bytearray(r.view_bytes()) for r in uavs_of(case)}


def cpu_contents(case, views: dict[int, bytearray]) -> dict[str, bytes]:
    """{label: the UAV's whole buffer}: the case's bytes with the view's replaced by ``views``
    (:func:`cpu_views` after the run)."""
    out = {}
    for r in uavs_of(case):
        at = r.first_element * r.stride
        view = bytes(views[r.binding])
        out[uav_label(r)] = r.data[:at] + view + r.data[at + len(view):]
    return out


def read_contents(case, buffers: dict[str, Any]) -> dict[str, bytes]:
    """{label: the UAV's buffer read back} of a GPU run (``buffers``: label -> gpuia Buffer,
    as :func:`gpuia.harness.run_gpu.bind_constant_buffers` bound them), cut to the case's
    bytes (the buffer is padded to whole words)."""
    return {uav_label(r): bytes(buffers[uav_label(r)].read())[:len(r.data)]
            for r in uavs_of(case)}


def differences(cpu: dict[str, bytes], gpu: dict[str, bytes]) -> list[str]:
    """One line per UAV whose GPU bytes differ from the CPU reference's, naming the first
    differing 32-bit word and the count of differing words; empty when all are equal."""
    lines = []
    for label, want in cpu.items():
        got = gpu.get(label)
        if got is None:
            lines.append(f"UAV {label}: not read back")
            continue
        if got == want:
            continue
        n = -(-max(len(want), len(got)) // 4) * 4
        a = np.frombuffer(want.ljust(n, b"\0"), np.uint32)
        b = np.frombuffer(got.ljust(n, b"\0"), np.uint32)
        bad = np.flatnonzero(a != b)
        k = int(bad[0])
        lines.append(f"UAV {label}: {bad.size} of {a.size} words differ; first at byte {4 * k}: "
                     f"CPU {int(a[k]):#010x}, GPU {int(b[k]):#010x}")
    return lines


def verdict(cpu: dict[str, bytes], why: str, gpu: dict[str, bytes]) -> tuple[list[str], str]:
    """(the differences, what a check line adds to its detail) of a GPU run's UAVs against the
    CPU reference's ``cpu`` (``why``: the reason they are not comparable, else "")."""
    if not cpu:
        return [], ""
    problems = [] if why else differences(cpu, gpu)
    said = why or ("DIFFERENT" if problems else "bit for bit")
    return problems, f"; UAVs {', '.join(cpu)}: {said}"


def _outputs_run(case, ref) -> str:
    """Why the outputs run's UAVs are not the reference's invocations', or "": it draws each
    index position of each instance as a point (``gpuia.harness.run_outputs``)."""
    points = sum(d.count * d.instance_count for d in case.draws)
    if points == len(ref):
        return ""
    return (f"not compared: the outputs run shades each of the draws' {points} index positions "
            f"as a point, cut positions included, and the Input Assembler delivered "
            f"{len(ref)} vertices")


def _so_run(case, ref) -> str:
    """Why the Stream Output run's UAVs are not the reference's invocations', or "": it shades
    the vertices of complete primitives (with a geometry shader, their adjacent ones too)."""
    parts = [ref.primitives.reshape(-1)]
    if case.gs is not None and ref.adjacency is not None:
        parts.append(ref.adjacency.reshape(-1))
    shaded = np.unique(np.concatenate(parts)).size
    if shaded == len(ref):
        return ""
    adjacent = " (without a geometry shader, an adjacent vertex is none)" \
        if ref.adjacency is not None and case.gs is None else ""
    return (f"not compared: {len(ref) - shaded} of the {len(ref)} vertices the Input Assembler "
            f"delivered are no vertex of a complete primitive{adjacent}: the Stream Output run "
            f"shades the vertices of the primitives it writes, and a GPU may leave the others "
            f"unshaded (rules 4.11)")


_RUNS = {"outputs": _outputs_run, "stream output": _so_run}


def run_verdict(case, ref, reference: tuple[dict[str, bytes], str], gpu: dict[str, bytes],
                run: str) -> tuple[list[str], str]:
    """:func:`verdict` of the UAVs of a GPU ``run`` other than a path's (``"outputs"``,
    ``"stream output"``; see the module docstring) against ``reference``
    (``gpuia.harness.run.uav_reference``'s contents and reason), ``ref`` the reference's
    Input Assembler result."""
    cpu, why = reference
    if not cpu:
        return [], ""
    return verdict(cpu, why or _RUNS[run](case, ref), gpu)


def uav_json(case, contents: dict[str, bytes]) -> list[dict]:
    """The result document's ``unordered_access_views`` (docs/case-format.md): one
    ``{"register", "space", "hex"}`` per UAV, its whole buffer after the case's draws."""
    return [{"register": r.register, "space": r.space, "hex": contents[uav_label(r)].hex()}
            for r in uavs_of(case)]
