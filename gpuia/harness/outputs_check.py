"""The ``vs outputs`` run of ``gpuia check``: a real vertex shader's outputs on a GPU against the
CPU reference's, per invocation, with or without Stream Output in the case.

:func:`reference_outputs` runs the case's shader on the CPU once per case (an HLSL shader, built
for the host; a WGSL shader has no CPU run, and an HLSL shader whose CPU build cannot be made
here has none either: the reason is returned). :func:`check_outputs` captures the outputs on one
device (:func:`gpuia.harness.run_outputs.run_case_outputs_gpu`) and compares them
(:func:`gpuia.harness.compare_outputs.compare_outputs`): ``OK``, ``DIFFERENT`` (with the table
of the differing invocations), ``not applicable`` (the adapter cannot run the capture exactly,
with the reason) or ``not compared`` (no CPU run, with the reason). A case's UAVs after the run
are compared bit for bit with the CPU reference's as a path line compares them
(:func:`gpuia.harness.case_uavs.run_verdict`): a difference makes the run ``DIFFERENT``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidDescError, UnsupportedError
from ..gpu.device import Device
from ..gpu.gs.capture import GSCaptured
from ..reference.ia import IAResult
from .case import Case
from .case_uavs import run_verdict
from .compare import ShaderTolerance
from .compare_outputs import OutputComparison, compare_outputs, outputs_table
from .run_outputs import GPUOutputs, run_case_outputs_gpu

__all__ = ["OutputsRun", "has_real_shader", "reference_outputs", "check_outputs"]

WGSL_NOTE = "the CPU reference runs the pass-through shader and HLSL shaders, not WGSL ones"
"""Why a WGSL shader's outputs are not compared."""


@dataclass
class OutputsRun:
    """One device's ``vs outputs`` run: :func:`check_outputs` makes it.

    Arguments:
        status (str): ``OK``, ``DIFFERENT``, ``not applicable`` or ``not compared``.
        detail (str): the comparison's summary, or the reason.
        table (str): the table of the differing invocations (all of them when asked), or
            empty.
        gpu (GPUOutputs): the outputs read back, or None (not run).
        comparison (OutputComparison): their comparison, or None (not compared).
        captured (GSCaptured): a ``gs outputs`` run's capture of the geometry shader stage,
            when it was asked for (the ``geometry shader`` line reads it instead of running
            the draws again); else None.
        problems (list): the UAVs that differ from the CPU reference's, one line each.
    """

    status: str
    detail: str
    table: str = ""
    gpu: GPUOutputs | None = None
    comparison: OutputComparison | None = None
    captured: GSCaptured | None = None
    problems: list[str] = field(default_factory=list)


def has_real_shader(case: Case) -> bool:
    """Whether a case draws with a vertex shader of its own (HLSL or WGSL), whose outputs the
    ``vs outputs`` run compares; the pass-through shader only copies what the IA lines
    compare already."""
    return case.vertex_shader is not None


def reference_outputs(case: Case, ref: IAResult) -> tuple[dict[str, np.ndarray] | None, str]:
    """The CPU run of a case's vertex shader over the reference's invocations.

    Arguments:
        case (Case): the parsed case.
        ref (IAResult): its reference Input Assembler result.

    Returns:
        ``(outputs, note)``: output key -> uint32 ``(n, components)`` and an empty note; or
        None and why there is no CPU run (a WGSL shader; an HLSL shader whose CPU build cannot
        be made: no C++ compiler, or one that refuses what Slang emitted).

    Raises:
        InvalidDescError: a shader that faults or never ends on the CPU.
    """
    from .run import vertex_outputs

    if case.vertex_shader is not None and case.hlsl is None:
        return None, WGSL_NOTE
    try:
        outputs = vertex_outputs(case, ref)
    except UnsupportedError as e:
        return None, f"the CPU reference of the HLSL shader could not be built: {e}"
    except InvalidDescError as e:
        if e.field != "CPU reference":
            raise
        return None, f"the CPU reference of the HLSL shader could not be built: {e.rule}"
    assert outputs is not None  # None only for a WGSL shader, returned above
    return outputs, ""


def check_outputs(case: Case, device: Device, ref: IAResult,
                  cpu: dict[str, np.ndarray] | None, note: str, tolerance: ShaderTolerance, *,
                  uploaded: tuple | None = None, table: bool = False, rows: int | None = 32,
                  capture: bool = True, uavs: tuple[dict[str, bytes], str] = ({}, ""),
                  ) -> OutputsRun:
    """Capture a case's vertex shader outputs on ``device`` and compare them with the CPU's.

    Arguments:
        case (Case): the parsed case.
        device (Device): the device.
        ref (IAResult): the case's reference Input Assembler result.
        cpu (dict): :func:`reference_outputs`'s outputs, or None (``note`` says why).
        note (str): why there is no CPU run (read when ``cpu`` is None).
        tolerance (ShaderTolerance): the tolerance of the shader's float outputs.
        uploaded (tuple): the case's buffers on ``device``
            (:func:`~gpuia.harness.run_gpu.upload_case`); None uploads.
        table (bool): the table holds every row, not only the differing ones. Default False.
        rows (int): the most table rows; None shows all. Default 32.
        capture (bool): capture even when nothing is compared (to show the GPU's outputs).
            Default True.
        uavs (tuple): the CPU reference's UAVs and why they are not comparable
            (:func:`gpuia.harness.run.uav_reference`); none by default.

    Returns:
        The :class:`OutputsRun`.

    Raises:
        InvalidDescError: a draw the GPU side refuses as D3D would.
    """
    if cpu is None and not capture:
        return OutputsRun("not compared", note)
    try:
        got = run_case_outputs_gpu(case, device, ref, uploaded=uploaded)
    except UnsupportedError as e:
        return OutputsRun("not applicable", str(e))
    if cpu is None:
        return OutputsRun("not compared", note, gpu=got)
    cmp = compare_outputs(cpu, got.bits, got.missing, case.shader_signature().outputs,
                          tolerance=tolerance)
    text = ""
    if not cmp.ok or table:
        text = outputs_table(ref, cpu, got.bits, cmp, rows, only_differences=not table)
    problems, said = run_verdict(case, ref, uavs, got.uavs, "outputs")
    return OutputsRun("OK" if cmp.ok and not problems else "DIFFERENT", cmp.summary() + said,
                      text, got, cmp, problems=problems)
