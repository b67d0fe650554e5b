"""The ``gs outputs`` run of ``gpuia check``: a geometry shader's outputs on a GPU against the CPU
reference's, with or without Stream Output in the case.

The geometry shader writes primitives, not one record per invocation, and the GPU side reads a
geometry shader's output back only through Stream Output; so the case's draws run once more with
a Stream Output declaration gpuia makes: every member of each stream's record, all its
components, into output slot ``s`` for stream ``s`` (rules 8.9: a slot takes one stream),
rasterizing no stream, each slot large enough for every primitive the CPU reference's stream
needs. The CPU reference writes the same declaration from its own run of the stage
(:func:`gpuia.reference.stream_output.write_streams`), and the two are compared as a case's
Stream Output is (:func:`gpuia.harness.compare.compare_so`): every byte, BufferFilledSize and
statistic, the float members within the stated shader tolerance (counted), the rest bit for bit.

``not compared``: no CPU run of the stage (a WGSL vertex shader before it, or no C++ compiler for
the shaders' CPU builds). ``not applicable``: the adapter cannot run the declaration exactly,
with the reason.
"""

from __future__ import annotations

from dataclasses import replace

from ..d3d.so_declaration import resolve_stream_output
from ..d3d.so_desc import SO_NO_RASTERIZED_STREAM, SODeclarationEntry, StreamOutputDesc
from ..errors import InvalidDescError, UnsupportedError
from ..gpu.device import Device
from ..reference.stream_output import SOTarget, write_streams
from .case import Case
from .case_uavs import run_verdict
from .compare import ShaderTolerance, compare_so
from .outputs_check import OutputsRun
from .reference_geometry import GeometryRun
from .run_gpu import run_case_gs_gpu, run_case_so_gpu

__all__ = ["gs_output_case", "check_gs_outputs", "reference_stage"]

_MOST_VERTICES = 3  # a triangle's: the most vertices of a primitive Stream Output writes


def gs_output_case(case: Case, geometry: GeometryRun) -> tuple[Case, frozenset]:
    """The case with its Stream Output replaced by the declaration of every geometry shader
    output (module docstring), each slot sized for what the CPU reference's stream needs, and
    the output keys whose float components the shader computed.

    Arguments:
        case (Case): the parsed case; it has a geometry shader.
        geometry (GeometryRun): the CPU reference's run of its geometry shader stage.

    Returns:
        ``(case, computed keys)``.

    Raises:
        InvalidDescError: the declaration D3D12 refuses (never for a shader gpuia compiled).
    """
    gs = case.gs
    assert gs is not None
    streams = gs.stream_members
    entries = tuple(SODeclarationEntry(s, m.semantic, m.index, 0, m.components, s)
                    for s, members in enumerate(streams) for m in members)
    strides = tuple(4 * sum(m.components for m in members) for members in streams)
    desc = StreamOutputDesc(entries, strides, SO_NO_RASTERIZED_STREAM)
    resolved = resolve_stream_output(desc, case.shader_signature(), streams=streams)
    computed = frozenset(m.key for members in streams for m in members if m.type == "float")
    # The needed sizes: what each stream's primitives take (statistics of an empty run).
    empty = {s: SOTarget(b"") for s in range(len(streams))}
    needed = write_streams(resolved, geometry.streams, empty).streams
    targets = {s: SOTarget(bytes(needed[s]["PrimitivesStorageNeeded"] * _MOST_VERTICES
                                 * strides[s]))
               for s in range(len(streams))}
    return replace(case, so=resolved, so_desc=desc, so_targets=targets), computed


def check_gs_outputs(case: Case, device: Device, geometry: GeometryRun | None, note: str,
                     tolerance: ShaderTolerance, capture: bool = False,
                     uavs: tuple | None = None) -> OutputsRun:
    """Run a case's geometry shader outputs on ``device`` and compare them with the CPU
    reference's (module docstring).

    Arguments:
        case (Case): the parsed case; it has a geometry shader.
        device (Device): the device.
        geometry (GeometryRun): the CPU reference's run of the stage, or None (``note`` says
            why there is none).
        note (str): why there is no CPU run (read when ``geometry`` is None).
        tolerance (ShaderTolerance): the tolerance of the shader's float outputs.
        capture (bool): also capture the stage's invocations in the same run
            (:func:`~gpuia.harness.run_gpu.run_case_gs_gpu`): the run's ``captured``, which
            the ``geometry shader`` line of a case without Stream Output compares (the
            declaration gpuia adds changes nothing the stage computes). Default False.
        uavs (tuple): (the reference's IAResult, :func:`gpuia.harness.run.uav_reference`'s
            UAVs and reason): the run's UAVs are compared with them as the Stream Output run's
            are (:func:`gpuia.harness.case_uavs.run_verdict`); None (the default): not.

    Returns:
        The :class:`~gpuia.harness.outputs_check.OutputsRun` (``detail`` holds the problems,
        one per ``; ``, when the outputs differ; ``captured`` when asked for and run).

    Raises:
        InvalidDescError: a draw the GPU side refuses as D3D would.
    """
    if geometry is None:
        return OutputsRun("not compared", note)
    recorded, computed = gs_output_case(case, geometry)
    assert recorded.so is not None
    captured = None
    try:
        if capture:
            got_so, captured = run_case_gs_gpu(recorded, device)
            assert got_so is not None
            got = got_so
        else:
            got = run_case_so_gpu(recorded, device)
    except UnsupportedError as e:
        return OutputsRun("not applicable", str(e))
    ref = write_streams(recorded.so, geometry.streams, recorded.so_targets, computed)
    notes: list[str] = []
    problems = compare_so(ref, got, tolerance, notes)
    wrong, said = run_verdict(case, uavs[0], uavs[1], got.uavs, "stream output") if uavs \
        else ([], "")
    written = sum(s["NumPrimitivesWritten"] for s in ref.streams)
    detail = (f"{written} primitives of {len(recorded.so_targets)} stream(s), stream s in slot "
              f"s, every output")
    if problems or wrong:
        return OutputsRun("DIFFERENT", "; ".join([detail, *problems]) + said, captured=captured,
                          problems=wrong)
    return OutputsRun("OK", ", ".join([detail, *notes]) + said, captured=captured)


def reference_stage(case: Case, ref, geometry: GeometryRun | None,
                    ) -> tuple[GeometryRun | None, str]:
    """The CPU reference's geometry shader stage of a case with one: ``geometry`` when the
    caller ran it, else run here; None and why when it cannot run (a WGSL vertex shader, no
    C++ compiler, a build the compiler refuses)."""
    if geometry is not None:
        return geometry, ""
    from .run import reference_gs

    try:
        return reference_gs(case, ref), ""
    except UnsupportedError as e:
        return None, f"no CPU run of the geometry shader stage: {e}"
    except InvalidDescError as e:
        if e.field != "CPU reference":
            raise
        return None, f"no CPU run of the geometry shader stage: {e.rule}"
