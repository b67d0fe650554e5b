"""Run a parsed case on a backend and produce its result document.

The CPU backend is the reference (``gpuia.reference``), its stages composed: IA, the vertex
shader (the pass-through shader, or HLSL run on the CPU, ``gpuia.hlsl.cpu``), the geometry
shader (HLSL run on the CPU, :mod:`gpuia.harness.reference_geometry`), Stream Output. A case
carrying a WGSL shader is refused with :class:`UnsupportedError`, as the case format allows. The
GPU backend draws the case through wgpu (``gpuia.gpu``) on a chosen adapter and path, with
capture on, and runs its Stream Output on the GPU too; it refuses a case with a geometry
shader, which the GPU side does not draw.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..d3d.srv_bindings import srv_binding
from ..errors import UnsupportedError
from ..reference import IAResult
from ..reference.stream_output import SOResult, stream_output, write_streams
from ..reference.vertex import pass_through_outputs, run_vertex_shader
from .case import DEFAULT_MAX_INVOCATIONS, Case, result_json, so_result_json
from .case_uavs import uav_json, uavs_of
from .reference_geometry import GeometryRun, reference_geometry
from .reference_run import check_size, reference_ia
from .results import captured_geometry_json, geometry_json, typed_outputs

if TYPE_CHECKING:  # the GPU backend's types: imported where it runs (the cpu one loads no wgpu)
    from ..gpu.device import Device
    from .run_gpu import GPUResult

__all__ = ["reference_ia", "run_reference", "reference_so", "reference_gs", "CPURun", "run_cpu",
           "run_case", "reference_uavs", "uav_reference"]


def run_reference(case: Case, max_invocations: int = DEFAULT_MAX_INVOCATIONS) -> IAResult:
    """The CPU backend: the reference Input Assembler over a case with the pass-through shader
    or an HLSL one (which the CPU runs, ``gpuia.hlsl.cpu``); WGSL shaders are refused.

    Arguments:
        case (Case): the parsed case.
        max_invocations (int): the most vertices the draws may deliver
            (:data:`~gpuia.harness.case.DEFAULT_MAX_INVOCATIONS` by default).

    Returns:
        The :class:`~gpuia.reference.IAResult`.

    Raises:
        CaseError: the draws may deliver more than ``max_invocations`` vertices (checked
            first).
        UnsupportedError: the case has a WGSL vertex shader.
    """
    check_size(case, max_invocations)
    if case.vertex_shader is not None and case.hlsl is None:
        raise UnsupportedError("vertex_shader: the cpu backend runs the pass-through shader and "
                               "HLSL shaders, not WGSL; run WGSL shaders with --backend gpu")
    return reference_ia(case, max_invocations)


def shader_outputs(case: Case, ia: IAResult, uav_views: dict | None = None,
                   reverse: bool = False) -> dict:
    """The case's HLSL vertex shader run on the CPU over what the IA delivered: {output key:
    (n, components) uint32 bit patterns}. ``uav_views`` (``gpuia.harness.case_uavs.cpu_views``)
    receive what the shader wrote to its UAVs; None: new ones, dropped after. ``reverse`` runs
    the invocations last first (its outputs in that order: for :func:`uav_reference`'s check).
    A case without an HLSL shader is refused (UnsupportedError): the CPU runs no other
    shader."""
    from ..hlsl.cpu import cpu_shader
    from .case_textures import cpu_blobs
    from .case_uavs import cpu_views

    if case.hlsl is None:
        raise UnsupportedError("the CPU runs a case's vertex shader only when it is HLSL")
    shader: Any = cpu_shader(case.hlsl)
    if case.shader_resources or case.textures or case.samplers:  # the views' bytes, as the
        # GPU's views see them; textures and samplers as gpuia.harness.case_textures reads them
        shader = shader.with_resources({**{srv_binding(r.register, r.space): r.view_bytes()
                                           for r in case.shader_resources.values()
                                           if not r.writable},
                                        **(cpu_views(case) if uav_views is None
                                           else uav_views),
                                        **cpu_blobs(case)})
    if reverse:
        return shader.run({k: d.bits[::-1] for k, d in ia.inputs.items()},
                          ia.vertex_id[::-1].astype(np.uint32),
                          ia.instance[::-1].astype(np.uint32), case.constant_buffers)
    return run_vertex_shader(ia, shader, case.constant_buffers)


def reference_uavs(case: Case, ia: IAResult) -> dict[str, bytes]:
    """{``u1``, ``u1 space2``: the UAV's whole buffer} after the case's HLSL vertex shader ran on
    the CPU once per invocation the IA delivered (``gpuia.harness.case_uavs``); empty for a
    case without UAVs.

    Arguments:
        case (Case): the parsed case.
        ia (IAResult): the case's reference Input Assembler result.
    """
    from .case_uavs import cpu_contents, cpu_views, uavs_of

    if not uavs_of(case):
        return {}
    views = cpu_views(case)
    shader_outputs(case, ia, views)
    return cpu_contents(case, views)


def uav_reference(case: Case, ia: IAResult) -> tuple[dict[str, bytes], str]:
    """(:func:`reference_uavs`, why they are not comparable or ""). D3D defines a UAV's
    contents after a draw only where they do not depend on how many times, or in which order,
    the vertices ran (docs/rules.md 18): the CPU runs every invocation once more, last first,
    from what the first run left; a UAV that then changes is not comparable, and the reason
    names it.

    Arguments:
        case (Case): the parsed case.
        ia (IAResult): the case's reference Input Assembler result.
    """
    from .case_uavs import cpu_contents, cpu_views

    first = reference_uavs(case, ia)
    if not first:
        return first, ""
    views = cpu_views(case)
    for binding, view in views.items():  # the first run's bytes of each view
        view[:] = _first_view(case, binding, first)
    shader_outputs(case, ia, views, reverse=True)
    again = cpu_contents(case, views)
    changed = [label for label in first if again[label] != first[label]]
    if not changed:
        return first, ""
    return first, (f"not compared: the contents of {', '.join(changed)} depend on how many "
                   f"times or in which order the vertices ran (running every vertex once more, "
                   f"last first, changed them), which D3D leaves undefined")


def _first_view(case: Case, binding: int, contents: dict[str, bytes]) -> bytes:
    """The view's bytes of the UAV at shader binding ``binding`` in ``contents``."""
    from .case_uavs import uav_label, uavs_of

    (r,) = [r for r in uavs_of(case) if r.binding == binding]
    at = r.first_element * r.stride
    return contents[uav_label(r)][at:at + r.num_elements * r.stride]


def vertex_outputs(case: Case, ia: IAResult) -> dict | None:
    """The vertex shader's outputs per IA invocation on the CPU reference: the pass-through
    shader's, or the HLSL shader run on the CPU; None for a WGSL shader (no CPU reference).

    Arguments:
        case (Case): the parsed case.
        ia (IAResult): the case's reference Input Assembler result.

    Returns:
        Output key -> uint32 ``(len(ia), components)``, or None.
    """
    if case.vertex_shader is None:
        return pass_through_outputs(ia, case.layout)
    if case.hlsl is None:
        return None
    if len(ia):
        return _shader_outputs_once(case, ia)
    return {leaf.key: np.zeros((0, leaf.components), np.uint32)
            for leaf in case.hlsl.entry.outputs()}


_RUNS: dict[int, tuple[Case, dict]] = {}  # id(IAResult) -> (case, its shader's outputs)
_RUNS_LOCK = threading.Lock()


def _shader_outputs_once(case: Case, ia: IAResult) -> dict:
    """:func:`shader_outputs` of ``case`` over ``ia``, run once while ``ia`` lives: a check's
    ``vs outputs`` line, its Stream Output and its geometry shader read the same run (the
    shader on the CPU is a process of its own, and deterministic), not one run each. The entry
    goes with ``ia`` (a finalizer), so nothing outlives the check that made it."""
    with _RUNS_LOCK:
        hit = _RUNS.get(id(ia))
    if hit is not None and hit[0] is case:
        return hit[1]
    outputs = shader_outputs(case, ia)
    with _RUNS_LOCK:
        if id(ia) not in _RUNS:
            _RUNS[id(ia)] = (case, outputs)
            weakref.finalize(ia, _RUNS.pop, id(ia), None)
    return outputs


def reference_gs(case: Case, ia: IAResult) -> GeometryRun | None:
    """The CPU reference of a case's geometry shader stage (IA -> VS -> GS), or None for a case
    without a geometry shader.

    Arguments:
        case (Case): the parsed case.
        ia (IAResult): the case's reference Input Assembler result.

    Returns:
        The :class:`~gpuia.harness.reference_geometry.GeometryRun`, or None.

    Raises:
        UnsupportedError: a WGSL vertex shader (no CPU reference), or no C++ compiler for the
            shaders' CPU builds.
    """
    if case.gs is None:
        return None
    outputs = vertex_outputs(case, ia)
    if outputs is None:
        raise UnsupportedError("geometry_shader: the CPU reference runs a geometry shader after "
                               "the pass-through or an HLSL vertex shader, not a WGSL one")
    # the views' bytes the geometry shader reads, as the GPU's views see them
    srvs = {srv_binding(r.register, r.space): r.view_bytes()
            for r in case.shader_resources.values() if not r.writable}
    if case.gs.textures or case.gs.samplers:  # its own bindings (gpuia.harness.case_textures)
        from .case_textures import cpu_blobs

        srvs.update(cpu_blobs(case, case.gs))
    return reference_geometry(case.gs, ia, outputs, case.constant_buffers, srvs)


def reference_so(case: Case, ia: IAResult, geometry: GeometryRun | None = None,
                 ) -> SOResult | None:
    """The CPU reference Stream Output of a case, or None without one: the stages IA -> VS ->
    SO. The pass-through shader's outputs are exact; an HLSL shader runs on the CPU and its
    computed float outputs are marked for a tolerant comparison (``SOResult.shader_words``); a
    WGSL shader has no CPU reference (None).

    With a geometry shader, the stages are IA -> VS -> GS -> SO, each stream of the geometry
    shader into the slots of its stream, its float outputs marked as computed.

    Arguments:
        case (Case): the parsed case.
        ia (IAResult): the case's reference Input Assembler result
            (:func:`~gpuia.harness.reference_run.reference_ia`).
        geometry (GeometryRun): the case's geometry shader stage (:func:`reference_gs`), when
            the caller already ran it; None (the default) runs it where the case has one.

    Returns:
        The :class:`~gpuia.reference.stream_output.SOResult`, or None for a case without
        ``stream_output`` or with a WGSL shader.

    Raises:
        UnsupportedError: the HLSL shader's CPU build needs a C++ compiler and there is none,
            or the build or its run failed.
    """
    if case.so is None:
        return None
    if case.gs is not None:
        geometry = geometry or reference_gs(case, ia)
        assert geometry is not None
        computed = frozenset(m.key for s in range(len(case.gs.declaration.streams))
                             for m in case.gs.stream_record(s) if m.kind == "float")
        return write_streams(case.so, geometry.streams, case.so_targets, computed)
    outputs = vertex_outputs(case, ia)
    if outputs is None:
        return None
    if case.vertex_shader is None:
        return stream_output(ia, case.so, outputs, case.so_targets)
    computed = frozenset(m.key for m in case.shader_signature().outputs if m.type == "float")
    return stream_output(ia, case.so, outputs, case.so_targets, computed)


@dataclass(frozen=True)
class CPURun:
    """A case on the CPU backend: each stage's reference result and the result document.

    Arguments:
        ia (IAResult): the Input Assembler's.
        geometry (GeometryRun): the geometry shader stage's, or None without one.
        so (SOResult): Stream Output's, or None (no ``stream_output``, or a WGSL shader).
        document (dict): the result document (docs/case-format.md, "Result").
    """

    ia: IAResult
    geometry: GeometryRun | None
    so: SOResult | None
    document: dict


def run_cpu(case: Case, max_invocations: int = DEFAULT_MAX_INVOCATIONS) -> CPURun:
    """The CPU backend of :func:`run_case`, keeping every stage's result for the views.

    Arguments:
        case (Case): the parsed case.
        max_invocations (int): the most vertices the draws may deliver.

    Returns:
        The :class:`CPURun`.

    Raises:
        CaseError: the draws may deliver more than ``max_invocations`` vertices.
        UnsupportedError: a WGSL vertex shader, or no C++ compiler for an HLSL shader's CPU
            build (as :func:`run_reference`, :func:`reference_gs` and :func:`reference_so`).
        InvalidDescError: a shader that faults or never ends on the CPU.
    """
    ia = run_reference(case, max_invocations)
    geometry = reference_gs(case, ia)
    so = reference_so(case, ia, geometry)
    outputs = None
    if case.vertex_shader is not None:  # a real shader's outputs (run_reference refused WGSL)
        bits = vertex_outputs(case, ia)
        assert bits is not None
        outputs = typed_outputs(case.shader_signature().outputs, bits)
    doc = result_json(case.name, ia, stream_output=None if so is None else so_result_json(
        so, streams=geometry is not None), outputs=outputs)
    if uavs_of(case):  # each UAV's bytes after the draws (each vertex run once)
        doc["unordered_access_views"] = uav_json(case, reference_uavs(case, ia))
    if geometry is not None:
        assert case.gs is not None
        statistics, invocations = geometry_json(geometry, case.gs)
        doc["statistics"].update(statistics)
        doc["geometry_invocations"] = invocations
    return CPURun(ia, geometry, so, doc)


def run_case(case: Case, backend: str = "cpu", *, path: str = "auto", device: Device | None = None,
             max_invocations: int = DEFAULT_MAX_INVOCATIONS, capture_route: str = "auto",
             ) -> tuple[IAResult | GPUResult, dict]:
    """Run a case on a backend and make its result document (``docs/case-format.md``).

    The CPU backend is :func:`run_reference` plus :func:`reference_so`. The GPU backend
    computes the reference Input Assembler first (for D3D's invocation order; the values come
    from the GPU), then draws with capture (:func:`~gpuia.harness.run_gpu.run_case_gpu`) and,
    for a case with ``stream_output`` or ``geometry_shader``, runs its Stream Output and geometry
    shader on the GPU (:func:`~gpuia.harness.run_gpu.run_case_so_gpu`, stored in the result's
    ``so``). For a case with a vertex shader of its own, both backends write each invocation's
    ``outputs``: the CPU run of the HLSL shader, or the GPU's outputs read back
    (:func:`~gpuia.harness.run_outputs.run_case_outputs_gpu`, stored in the result's
    ``outputs``; left out where the adapter cannot read them back exactly).

    Arguments:
        case (Case): the parsed case.
        backend (str): ``"cpu"`` (the default) or ``"gpu"``.
        path (str): the GPU path: ``"auto"`` (the default), ``"native"`` or ``"pulling"``;
            not read by the CPU backend.
        device: the :class:`~gpuia.gpu.Device` of the GPU backend; None (the default) is
            :func:`gpuia.gpu.get_device`'s.
        max_invocations (int): the most vertices the draws may deliver.
        capture_route (str): the GPU capture route: ``"auto"`` (the default), ``"storage"``
            or ``"targets"``.

    Returns:
        ``(result, document)``: the :class:`~gpuia.reference.IAResult` for the CPU backend, the
        :class:`~gpuia.harness.run_gpu.GPUResult` for the GPU backend; the document as a dict.

    Raises:
        UnsupportedError: another backend; as :func:`run_reference` and :func:`reference_so`
            raise it (CPU); no adapter, or a path, capture route or Stream Output the adapter
            cannot do exactly, with the reason (GPU).
        CaseError: the draws may deliver more than ``max_invocations`` vertices.
        InvalidDescError: an unknown path or capture route, or a draw the GPU side refuses as
            D3D would.
    """
    if backend == "cpu":
        run = run_cpu(case, max_invocations)
        return run.ia, run.document
    if backend != "gpu":
        raise UnsupportedError(f"backend {backend!r} is not available (cpu or gpu)")
    # Imported here, so the cpu backend never loads wgpu (nor needs it installed).
    from ..gpu import get_device
    from .run_gpu import run_case_gpu, run_case_gs_gpu, run_case_so_gpu, upload_case
    from .run_outputs import run_case_outputs_gpu

    device = device or get_device()
    ref = reference_ia(case, max_invocations)
    uploaded = upload_case(case, device)
    res = run_case_gpu(case, device, path, ref, capture_route=capture_route, uploaded=uploaded)
    so_doc = None
    if case.gs is not None:  # the stage's work read back, with its Stream Output if any
        res.so, res.geometry = run_case_gs_gpu(case, device)
    elif case.so_desc is not None:
        res.so = run_case_so_gpu(case, device)
    if res.so is not None:
        so_doc = so_result_json(res.so, streams=case.gs is not None)
    outputs = None
    if case.vertex_shader is not None:  # a real shader's outputs, read back per invocation
        try:
            res.outputs = run_case_outputs_gpu(case, device, ref, uploaded=uploaded)
        except UnsupportedError:  # the draws' vertices cannot be pulled exactly here
            res.outputs = None
        else:
            outputs = typed_outputs(case.shader_signature().outputs, res.outputs.bits)
    doc = result_json(case.name, res.ia, backend="gpu", path=res.path, adapter=res.adapter,
                      stream_output=so_doc, outputs=outputs)
    if uavs_of(case):  # each UAV's bytes after the path's draws
        doc["unordered_access_views"] = uav_json(case, res.uavs)
    if res.geometry is not None:
        assert case.gs is not None
        statistics, invocations = captured_geometry_json(res.geometry, case.gs)
        doc["statistics"].update(statistics)
        doc["geometry_invocations"] = invocations
    return res, doc
