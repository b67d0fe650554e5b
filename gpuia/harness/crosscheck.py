"""Cross-check one case: the CPU reference against every applicable GPU path and adapter.

This is what ``gpuia check`` prints and what the pytest plugin's ``gpuia_check`` fixture fails
with. Each GPU run is one :class:`CheckLine`: ``OK``, ``DIFFERENT`` (with a RenderDoc-style
table of the differing invocations, or SO problems), ``not applicable`` (the path cannot do this
draw on this adapter, with the reason) or ``not compared`` (a vertex shader the CPU reference
does not run: a WGSL one; HLSL shaders run on the CPU). Comparison rules are those of
:mod:`gpuia.harness.compare`: bit-exact, except the documented 1-ULP tolerance on normalized
components of the native path and the stated tolerance of an HLSL shader's computed float
outputs, in Stream Output and in the ``vs outputs`` line that compares a real vertex shader's
outputs per invocation on every check (:mod:`gpuia.harness.outputs_check`).

With ``keep=True`` the result also keeps what the HTML report and the error plots need: the
case, the CPU reference, every GPU result with its :class:`~gpuia.harness.compare.Comparison`,
the SO buffers of both sides and the facts of each adapter. It is off by default because a
large capture's results would otherwise stay in memory after their comparison.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InvalidDescError, UnsupportedError
from ..gpu.device import Device
from ..gpu.gs.capture import GSCaptured
from ..reference import IAResult
from ..reference.stream_output import SOResult
from .case import Case
from .case_textures import filtering_tolerance
from .case_uavs import run_verdict, verdict
from .check_arguments import check_arguments
from .compare import (
    GS_STATISTICS,
    SHADER_TOLERANCE,
    Comparison,
    ShaderTolerance,
    compare,
    compare_geometry,
    compare_so,
    comparison_table,
)
from .compare_outputs import OutputComparison
from .generated_case import layout_case
from .gs_outputs_check import check_gs_outputs, reference_stage
from .outputs_check import check_outputs, has_real_shader, reference_outputs
from .primitives import GPUPrimitives, gpu_primitives
from .raster_check import raster_check
from .reference_geometry import GeometryRun
from .reference_run import check_size, reference_ia
from .results import captured_geometry_json, geometry_json
from .run import DEFAULT_MAX_INVOCATIONS, reference_gs, reference_so, uav_reference
from .run_gpu import GPUResult, run_case_gpu, run_case_gs_gpu, run_case_so_gpu, upload_case
from .run_outputs import GPUOutputs
from .statistics_check import NO_FEATURE, statistics_verdict
from .windowed import case_windows, check_windowed, draw_reference, windowed_applies

__all__ = ["CheckLine", "CheckResult", "adapter_facts", "cross_check", "layout_case",
           "raster_by_default"]

# The limits an adapter section of a report shows: those the GPU paths decide with most often.
KEY_LIMITS = ("max_vertex_buffers", "max_vertex_attributes", "max_vertex_buffer_array_stride",
              "max_storage_buffers_per_shader_stage", "max_storage_buffer_binding_size",
              "max_buffer_size", "max_texture_dimension_2d", "vertex_writable_storage",
              "indirect_first_instance")


@dataclass
class CheckLine:
    """One GPU run of a case, as ``gpuia check`` prints it: :func:`cross_check` makes it.

    Arguments:
        label (str): ``case: adapter summary: path``.
        status (str): ``OK``, ``DIFFERENT``, ``not applicable`` or ``not compared``.
        detail (str): the comparison's summary, the SO statistics, the raster check's result
            per draw, the vertex shader outputs' comparison, or the reason the run was not
            applicable or not compared.
        table (str): the comparison table (differences only, unless all rows were asked for);
            empty when none was made. Default empty.
        problems (list): the Stream Output or raster differences, one line each. Default
            empty.
        path (str): ``native``, ``pulling``, ``auto``, ``vs outputs``, ``raster``,
            ``pipeline statistics`` or ``stream output``. Default empty.
        adapter (str): the adapter's summary. Default empty.
        gpu (GPUResult): the GPU run of an IA line, kept only by ``cross_check(keep=True)``;
            else None (the default).
        comparison (Comparison): that run's comparison, kept the same way.
        so_gpu (SOResult): the GPU's Stream Output result of the stream output line, kept the
            same way.
        vs_outputs (GPUOutputs): the GPU's vertex shader outputs of the vs outputs line, kept
            the same way.
        output_comparison (OutputComparison): their comparison with the CPU's, kept the same
            way (None where they were not compared).
        seconds (float): how long the run took, wall clock (the GPU run and its comparison).
            Default 0.
    """

    label: str
    status: str  # OK, DIFFERENT, not applicable, not compared
    detail: str
    table: str = ""  # the comparison table (differences only, unless all rows were asked for)
    problems: list[str] = field(default_factory=list)  # Stream Output differences
    path: str = ""  # native, pulling, auto or "stream output"
    adapter: str = ""  # the adapter's summary
    # Kept only by cross_check(keep=True): the GPU run and its comparison (IA runs), or the
    # GPU's Stream Output result (the stream output line).
    gpu: GPUResult | None = field(default=None, repr=False)
    comparison: Comparison | None = field(default=None, repr=False)
    so_gpu: SOResult | None = field(default=None, repr=False)
    vs_outputs: GPUOutputs | None = field(default=None, repr=False)
    output_comparison: OutputComparison | None = field(default=None, repr=False)
    seconds: float = 0.0  # wall clock of the run and its comparison (JUnit's time)

    def text(self) -> str:
        """The line as ``gpuia check`` prints it: ``label: status: detail``, each problem
        indented below it, then the table."""
        lines = [f"{self.label}: {self.status}: {self.detail}"]
        lines += [f"  {p}" for p in self.problems]
        if self.table:
            lines += [self.table, ""]
        return "\n".join(lines)


@dataclass
class CheckResult:
    """Every GPU run of one case: :func:`cross_check` makes it.

    Arguments:
        case (str): the case's name.
        lines (list): one :class:`CheckLine` per run, in the order they ran. Default empty.
        case_data (Case): the parsed case, kept only by ``cross_check(keep=True)``; else None
            (the default).
        reference (IAResult): the CPU reference's IA result, kept the same way.
        so_reference (SOResult): the CPU reference's Stream Output result (None without one),
            kept the same way.
        adapters (dict): adapter summary -> :func:`adapter_facts`, kept the same way.
            Default empty.
        tolerance (ShaderTolerance): the tolerance the Stream Output lines were compared
            with. Default None.
        primitives (dict): adapter summary -> what the GPU side draws as each draw's
            primitives there (:func:`gpuia.harness.primitives.gpu_primitives`), kept the same
            way. Default empty.
        geometry (GeometryRun): the CPU reference's geometry shader stage (None without
            one), kept the same way.
        vs_reference (dict): the CPU run of the case's vertex shader, output key -> uint32
            ``(invocations, components)`` (None for the pass-through shader or without a CPU
            run), kept the same way.
    """

    case: str
    lines: list[CheckLine] = field(default_factory=list)
    # Kept only by cross_check(keep=True): the parsed case, the CPU reference (IA and Stream
    # Output) and adapter summary -> adapter_facts().
    case_data: Case | None = field(default=None, repr=False)
    reference: IAResult | None = field(default=None, repr=False)
    so_reference: SOResult | None = field(default=None, repr=False)
    adapters: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    tolerance: ShaderTolerance | None = None  # the tolerance the SO lines were compared with
    primitives: dict[str, list[GPUPrimitives]] = field(default_factory=dict, repr=False)
    geometry: GeometryRun | None = field(default=None, repr=False)
    vs_reference: dict[str, np.ndarray] | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        """Whether nothing differed: no line is ``DIFFERENT`` (runs that were not applicable
        or not compared do not count as differences; :attr:`compared` says how many runs
        were). True for no line at all."""
        return all(line.status != "DIFFERENT" for line in self.lines)

    @property
    def compared(self) -> int:
        """The lines that compared something: those ``OK`` or ``DIFFERENT``."""
        return sum(line.status in ("OK", "DIFFERENT") for line in self.lines)

    def text(self) -> str:
        """Every line's :meth:`CheckLine.text`, one after another."""
        return "\n".join(line.text() for line in self.lines)


def adapter_facts(device: Device) -> dict[str, Any]:
    """What a report says about the adapter behind a :class:`~gpuia.gpu.Device`.

    Arguments:
        device (Device): the device.

    Returns:
        A dict: the device's ``info`` (name, backend, type, summary, ``wgpu_native``: the
        wgpu-native version), ``driver`` (the adapter's description, e.g. the Mesa version;
        ``?`` when empty), ``vendor``, ``vendor_id`` and ``device_id`` (the PCI ids),
        ``limits`` (the key limits, :data:`KEY_LIMITS`) and ``quirks`` (gpuia's known quirks
        of it).
    """
    info = dict(getattr(device.adapter, "info", {}) or {})
    caps = device.caps.as_dict()
    return dict(device.info, driver=str(info.get("description", "") or "?"),
                vendor=str(info.get("vendor", "") or "?"),
                vendor_id=info.get("vendor_id"), device_id=info.get("device_id"),
                limits={k: caps[k] for k in KEY_LIMITS}, quirks=list(caps["quirks"]))


def cross_check(case: Case, devices: Device | Iterable[Device],
                paths: Sequence[str] = ("native", "pulling"), *, capture_route: str = "auto",
                table: bool = False, rows: int | None = 32,
                max_invocations: int = DEFAULT_MAX_INVOCATIONS, keep: bool = False,
                on_run: Callable[[CheckLine], object] | None = None,
                tolerance: ShaderTolerance | None = None,
                raster: bool | None = None) -> CheckResult:
    """Run ``case`` on the CPU reference and on every device and path; compare.

    For each device, in order: one line per path (``not applicable``, with the reason, where
    the path cannot do a draw exactly on the adapter); for a case with a vertex shader of its
    own the ``vs outputs`` line (:mod:`gpuia.harness.outputs_check`), for a geometry shader
    the ``gs outputs`` line; the raster line and the ``pipeline statistics`` line of its draws
    (:mod:`gpuia.harness.statistics_check`); the ``stream output`` line (a case with Stream
    Output; ``not compared`` without a CPU run: WGSL, no CPU build); the ``geometry shader``
    line: the GPU stage's statistics and invocations against the CPU reference's. Invalid
    arguments, and a case the reference refuses, raise first; nothing aborts the process.
    A case of more than :data:`.windowed.WINDOWED_ABOVE` invocations that has only path lines
    (:func:`.windowed.windowed_applies`) is compared in windows of invocations, in bounded
    memory, with the same lines (their tables of differing rows included).

    Arguments:
        case (Case): the parsed case (:func:`~gpuia.harness.case.load_case`).
        devices: an iterable of :class:`~gpuia.gpu.Device`, or one Device.
        paths: a sequence of path names, each ``native``, ``pulling`` or ``auto``. Default
            ``("native", "pulling")``.
        capture_route (str): ``auto`` (the default), ``storage`` or ``targets``
            (``Context.begin_capture``).
        table (bool): include the full table for matching runs too (differing runs always
            carry theirs). Default False.
        rows (int): the most table rows per run; None shows all. Default 32.
        max_invocations (int): the most vertices the case's draws may deliver.
        keep (bool): keep the case, the reference and every GPU result in the
            :class:`CheckResult` (for reports). Default False.
        on_run: called with each :class:`CheckLine` as soon as its run is done (progress), or
            None (the default).
        tolerance (ShaderTolerance): the tolerance of an HLSL shader's float outputs (vs
            outputs, Stream Output); None (the default) is :data:`.compare.SHADER_TOLERANCE`.
        raster (bool): also check the primitives each device rasterizes
            (:mod:`gpuia.harness.raster_check`), a ``raster`` and a ``pipeline statistics``
            line per device; None (the default): for cases :func:`raster_by_default` selects.

    Returns:
        The :class:`CheckResult`.

    Raises:
        InvalidDescError: an invalid argument, naming it: ``case`` no Case, ``devices`` a str,
            not iterable or holding something other than a Device, ``paths`` a str or naming
            an unknown path, an unknown ``capture_route``, ``rows`` or ``max_invocations`` not
            a non-negative integer (``rows`` may be None), ``on_run`` not callable, ``raster``
            not a bool or None. Also a draw the GPU side refuses as D3D would.
        CaseError: the draws may deliver more than ``max_invocations`` vertices.
        UnsupportedError: the CPU build of an HLSL shader for Stream Output was made and
            cannot run, or a device cannot run the case's Stream Output exactly (those runs are
            not turned into ``not applicable`` lines). A build that cannot be made is a
            ``not compared`` stream output line saying why, after the IA lines.
    """
    # size: every line of a check in the order the docstring lists them, read top to bottom
    devices, paths = check_arguments(case, devices, paths, capture_route, rows,
                                      max_invocations, on_run, raster)
    raster = raster if raster is not None else raster_by_default(case)
    if rows is not None and windowed_applies(case, table, rows, keep):  # a large case
        check_size(case, max_invocations)
        return _windowed(case, devices, paths, capture_route, rows, on_run, raster)
    ref = reference_ia(case, max_invocations)
    geometry, ref_so, not_compared = _references(case, ref)
    tolerance = tolerance or filtering_tolerance(case, SHADER_TOLERANCE)  # linear filters widen
    result = CheckResult(case.name, tolerance=tolerance)
    outputs, uavs = _output_references(case, ref, geometry), uav_reference(case, ref)
    if keep:
        result.case_data, result.reference, result.so_reference = case, ref, ref_so
        result.geometry, result.vs_reference = geometry, outputs[0][0]
    add = _Recorder(result, on_run)
    for dev in devices:
        summary = dev.info["summary"]
        if keep:
            result.adapters[summary] = adapter_facts(dev)
            result.primitives[summary] = gpu_primitives(case, dev.caps.quirks)
        add.started = time.perf_counter()  # the runs of this device start here
        uploads = _Uploads(case, dev)  # every run of this device draws from one upload
        for p in paths:
            add(_path_line(case, dev, p, ref, uploads, capture_route, table, rows, keep, uavs))
        shared: dict = {"uavs": (ref, uavs)}  # and the gs outputs run's capture (_gs_line)
        add.each(_output_lines(case, dev, ref, outputs, uploads, tolerance, rows, keep, shared))
        if raster:
            add.each(_raster_lines(case, dev, ref, summary, uploads))
        add.each(_stage_lines(case, dev, geometry, ref_so, not_compared, tolerance, keep, shared))
    return result


def _windowed(case: Case, devices: list[Device], paths: tuple[str, ...], capture_route: str,
              rows: int, on_run: Callable[[CheckLine], object] | None,
              raster: bool) -> CheckResult:
    """:func:`cross_check`'s lines of a case :func:`.windowed.windowed_applies` selects: each
    path's comparison made in windows of invocations (:mod:`gpuia.harness.windowed`), the
    raster check from the reference of each draw it runs: the same lines, in bounded memory."""
    result, windows = CheckResult(case.name), case_windows(case)
    add = _Recorder(result, on_run)
    for dev in devices:
        summary = dev.info["summary"]
        add.started = time.perf_counter()
        uploads = _Uploads(case, dev)
        try:
            runs: list = check_windowed(case, dev, list(paths), capture_route, rows,
                                        uploaded=uploads(), windows=windows)
        except UnsupportedError as e:  # the upload
            runs = [e] * len(paths)
        for p, run in zip(paths, runs, strict=True):
            label = f"{case.name}: {summary}: {p}"
            if isinstance(run, UnsupportedError):
                add(CheckLine(label, "not applicable", str(run), path=p, adapter=summary))
                continue
            add(CheckLine(label, "OK" if run.ok else "DIFFERENT", run.summary(),
                          "" if run.ok else run.table(), path=p, adapter=summary))
        if raster:
            add.each(_raster_lines(case, dev, draw_reference(case, windows), summary, uploads))
    return result


def _stage_lines(case: Case, dev: Device, geometry: GeometryRun | None, ref_so: SOResult | None,
                 not_compared: str, tolerance: ShaderTolerance, keep: bool,
                 shared: dict) -> list[CheckLine]:
    """The ``stream output`` line (a case with Stream Output) and the ``geometry shader`` line
    (a case with a geometry shader) of one device, from one GPU run where there are both;
    ``shared["gs"]``: the stage's capture the ``gs outputs`` run made (absent: run it here)."""
    gs_line, got_so = (_gs_line(case, dev, geometry, not_compared, tolerance, shared.get("gs"))
                       if case.gs is not None else (None, None))
    lines = []
    if case.so_desc is not None:
        lines.append(_so_line(case, dev, ref_so, not_compared, tolerance, keep, got_so,
                              shared.get("uavs")))
    if gs_line is not None:
        lines.append(gs_line)
    return lines


class _Recorder:
    """Adds each line to a result as its run ends: its ``seconds`` are those since the previous
    line (or since ``started``, which a device's first run resets), then ``on_run`` is told."""

    def __init__(self, result: CheckResult, on_run: Callable[[CheckLine], object] | None):
        self.result, self.on_run = result, on_run
        self.started = time.perf_counter()

    def __call__(self, line: CheckLine) -> None:
        now = time.perf_counter()
        line.seconds, self.started = now - self.started, now
        self.result.lines.append(line)
        if self.on_run is not None:
            self.on_run(line)

    def each(self, lines: Iterable[CheckLine]) -> None:
        """Add every line of ``lines`` as it comes (a generator's lines as their runs end)."""
        for line in lines:
            self(line)


def _path_line(case: Case, dev: Device, p: str, ref: IAResult, uploads: _Uploads,
               capture_route: str, table: bool, rows: int | None, keep: bool,
               uavs: tuple[dict[str, bytes], str] = ({}, "")) -> CheckLine:
    """The line of one GPU path on one device: ``not applicable`` with the reason, else the
    comparison with the reference (its table when it differs or ``table`` asks), and the UAVs
    against ``uavs`` (:func:`uav_reference`) bit for bit (a difference is a problem)."""
    summary = dev.info["summary"]
    label = f"{case.name}: {summary}: {p}"
    try:
        res = run_case_gpu(case, dev, p, ref, capture_route=capture_route,
                           uploaded=uploads())
    except UnsupportedError as e:
        return CheckLine(label, "not applicable", str(e), path=p, adapter=summary)
    cmp = compare(ref, res, case.layout)
    text = ""
    if not cmp.ok or table:
        text = comparison_table(ref, res, cmp, max_rows=rows, only_differences=not table)
    problems, detail = verdict(*uavs, res.uavs)  # the UAVs: gpuia.harness.case_uavs
    return CheckLine(label, "OK" if cmp.ok and not problems else "DIFFERENT",
                     cmp.summary() + detail, text,
                     problems, path=p, adapter=summary, gpu=res if keep else None,
                     comparison=cmp if keep else None)


def _output_references(case: Case, ref: IAResult, geometry: GeometryRun | None) -> tuple:
    """What the output lines compare with: ``((vertex shader outputs, note), (geometry shader
    stage, note))``, each None with the reason where there is no CPU run (or no such
    shader)."""
    vs = reference_outputs(case, ref) if has_real_shader(case) else (None, "")
    gs = reference_stage(case, ref, geometry) if case.gs is not None else (None, "")
    return vs, gs


def _output_lines(case: Case, dev: Device, ref: IAResult, outputs: tuple, uploads: _Uploads,
                  tolerance: ShaderTolerance, rows: int | None, keep: bool, shared: dict,
                  ) -> Iterator[CheckLine]:
    """The ``vs outputs`` line (a vertex shader of the case's own), then the ``gs outputs``
    line (a geometry shader, :mod:`gpuia.harness.gs_outputs_check`), each as its run ends.
    For a case without Stream Output the gs outputs run also captures the stage, put in
    ``shared["gs"]`` for the geometry shader line (one GPU run for both lines; a case with
    Stream Output runs its own declaration for that line and the stream output line)."""
    if has_real_shader(case):
        yield _outputs_line(case, dev, ref, outputs[0], uploads, tolerance, rows, keep,
                            shared["uavs"][1])
    if case.gs is not None:
        summary = dev.info["summary"]
        run = check_gs_outputs(case, dev, outputs[1][0], outputs[1][1], tolerance,
                               capture=case.so_desc is None, uavs=shared["uavs"])
        shared["gs"] = run.captured
        yield CheckLine(f"{case.name}: {summary}: gs outputs", run.status, run.detail,
                        problems=run.problems, path="gs outputs", adapter=summary)


def _outputs_line(case: Case, dev: Device, ref: IAResult, cpu: tuple, uploads: _Uploads,
                  tolerance: ShaderTolerance, rows: int | None, keep: bool, uavs: tuple,
                  ) -> CheckLine:
    """The ``vs outputs`` line of one device (:func:`~.outputs_check.check_outputs`); without
    a CPU run the GPU's outputs are captured only when results are kept (for the views)."""
    summary = dev.info["summary"]
    label = f"{case.name}: {summary}: vs outputs"
    try:
        uploaded = uploads()
    except UnsupportedError as e:
        return CheckLine(label, "not applicable", str(e), path="vs outputs", adapter=summary)
    # Only the differing rows: every row is the VS Out table's (report.mesh.mesh_text, --table).
    run = check_outputs(case, dev, ref, cpu[0], cpu[1], tolerance, uploaded=uploaded,
                        rows=rows, capture=keep, uavs=uavs)
    return CheckLine(label, run.status, run.detail, run.table, run.problems, path="vs outputs",
                     adapter=summary, vs_outputs=run.gpu if keep else None,
                     output_comparison=run.comparison if keep else None)


def _so_line(case: Case, dev: Device, ref_so: SOResult | None, not_compared: str,
             tolerance: ShaderTolerance, keep: bool, got: SOResult | None = None,
             uavs: tuple | None = None) -> CheckLine:
    """The ``stream output`` line of one device: ``not compared`` (and why) without a CPU
    reference, else the comparison of both sides' buffers and counters, and of the UAVs with
    ``uavs`` (the IA reference and :func:`uav_reference`'s). ``got``: the GPU's Stream Output
    where the geometry shader's run made it already (None: run it here)."""
    summary = dev.info["summary"]
    label = f"{case.name}: {summary}: stream output"
    got = got or run_case_so_gpu(case, dev)
    kept = got if keep else None
    if ref_so is None:
        return CheckLine(label, "not compared", not_compared or
                         "the CPU reference runs the pass-through shader and HLSL "
                         "shaders, not WGSL ones",
                         path="stream output", adapter=summary, so_gpu=kept)
    notes: list[str] = []
    problems = compare_so(ref_so, got, tolerance, notes)
    wrong, said = run_verdict(case, uavs[0], uavs[1], got.uavs, "stream output") if uavs \
        else ([], "")
    parts = [f"{k} {v}" for k, v in got.statistics.items()]
    if case.gs is not None:  # each stream the geometry shader writes (rules 13.8)
        parts += [f"stream {n}: {st['NumPrimitivesWritten']} written, "
                  f"{st['PrimitivesStorageNeeded']} needed"
                  for n, st in enumerate(got.streams) if n and any(st.values())]
    stats = ", ".join(parts + notes) + said
    return CheckLine(label, "DIFFERENT" if problems or wrong else "OK", stats,
                     problems=problems + wrong, path="stream output", adapter=summary, so_gpu=kept)


def _gs_line(case: Case, dev: Device, geometry: GeometryRun | None, not_compared: str,
             tolerance: ShaderTolerance, captured: GSCaptured | None = None,
             ) -> tuple[CheckLine, SOResult | None]:
    """(the ``geometry shader`` line of one device, the GPU's Stream Output of the same run):
    the GPU stage's statistics and invocations (:func:`run_case_gs_gpu`, or ``captured``
    where the gs outputs run made it) against the CPU reference's (``not compared``, and why,
    without one). A case without Stream Output that the device cannot run is ``not
    applicable``; with Stream Output the refusal is raised, as the stream output line's is."""
    assert case.gs is not None
    summary = dev.info["summary"]
    label = f"{case.name}: {summary}: geometry shader"
    try:
        got_so, captured = (None, captured) if captured is not None else \
            run_case_gs_gpu(case, dev)
    except UnsupportedError as e:
        if case.so_desc is not None:
            raise
        return CheckLine(label, "not applicable", str(e), path="geometry shader",
                         adapter=summary), None
    got = captured_geometry_json(captured, case.gs)
    detail = ", ".join(f"{k} {got[0][k]}" for k in GS_STATISTICS)
    if geometry is None:
        return CheckLine(label, "not compared", not_compared or "no CPU reference of the "
                         "geometry shader stage", path="geometry shader",
                         adapter=summary), got_so
    problems = compare_geometry(geometry_json(geometry, case.gs), got, tolerance,
                                computed_inputs=case.vertex_shader is not None)
    return CheckLine(label, "DIFFERENT" if problems else "OK", detail, problems=problems,
                     path="geometry shader", adapter=summary), got_so


def _references(case: Case, ref: IAResult) -> tuple[GeometryRun | None, SOResult | None, str]:
    """The CPU reference's geometry shader stage (None without one) and
    :func:`_reference_so`'s Stream Output, and a note: why a stage could not be built here
    (its line is then ``not compared``)."""
    if case.so_desc is None:
        if case.gs is None:
            return None, None, ""
        try:
            return reference_gs(case, ref), None, ""
        except UnsupportedError as e:  # no C++ compiler: the geometry line says so
            return None, None, f"the CPU reference of the geometry shader could not be built: {e}"
    return _reference_so(case, ref)


def _reference_so(case: Case, ref: IAResult,
                  ) -> tuple[GeometryRun | None, SOResult | None, str]:
    """The CPU reference's geometry shader stage (None without one) and Stream Output
    (:func:`~gpuia.harness.run.reference_so`), or None for both and why when the CPU build of
    the case's HLSL vertex shader cannot be made (no C++ compiler, or one that refuses what
    Slang emitted): its Stream Output is then not compared, and every IA line still is. A build
    that is made but fails when it runs is still raised."""
    if case.hlsl is not None:
        from ..hlsl.cpu import cpu_shader

        try:
            cpu_shader(case.hlsl)  # the build alone (kept for the run below)
        except UnsupportedError as e:
            return None, None, f"the CPU reference of the HLSL shader could not be built: {e}"
        except InvalidDescError as e:
            if e.field != "CPU reference":
                raise
            return None, None, (f"the CPU reference of the HLSL shader could not be built: "
                                f"{e.rule}")
    geometry = reference_gs(case, ref)  # None without a geometry shader
    return geometry, reference_so(case, ref, geometry), ""


def raster_by_default(case: Case) -> bool:
    """Whether ``gpuia check`` runs the raster check of ``case`` unless told: an indexed draw, a
    strip or an adjacency topology (the draws whose assembly WebGPU or an adapter can get
    wrong).

    Arguments:
        case (Case): the parsed case.

    Returns:
        True when the case's topology is a strip or has adjacency, or a draw is indexed.
    """
    topo = case.topology
    return topo.strip or topo.adjacency or any(d.indexed for d in case.draws)


class _Uploads:
    """A case's buffers on one device, uploaded on the first call and shared by the runs that
    follow; an upload that failed raises the same error again on every call (each run reports
    it as its own line)."""

    def __init__(self, case: Case, device: Device):
        self.case, self.device = case, device
        self.result: tuple | None = None
        self.error: UnsupportedError | None = None

    def __call__(self) -> tuple:
        if self.error is not None:
            raise self.error
        if self.result is None:
            try:
                self.result = upload_case(self.case, self.device)
            except UnsupportedError as e:
                self.error = e
                raise
        return self.result


def _raster_lines(case: Case, dev, ref, summary: str, uploads: _Uploads) -> list[CheckLine]:
    """The ``raster`` line of one device and the ``pipeline statistics`` line of the same
    draws (:mod:`gpuia.harness.statistics_check`)."""
    label = f"{case.name}: {summary}: raster"
    stats_label = f"{case.name}: {summary}: pipeline statistics"
    try:
        draws = raster_check(case, dev, ref, uploaded=uploads())
    except UnsupportedError as e:  # the case's buffers on this adapter, or wgpu's refusal
        return [CheckLine(label, "not applicable", str(e), path="raster", adapter=summary),
                CheckLine(stats_label, "not applicable", f"the raster check did not run: {e}",
                          path="pipeline statistics", adapter=summary)]
    if dev.caps.pipeline_statistics_query:
        status, detail, problems = statistics_verdict(
            [(r.expected, r.statistics) for r in draws if r.expected is not None])
    else:
        status, detail, problems = "not applicable", NO_FEATURE, []
    stats = CheckLine(stats_label, status, detail, problems=problems,
                      path="pipeline statistics", adapter=summary)
    run = [r for r in draws if r.status != "not run"]
    detail = "; ".join(f"draw {r.draw}: {r.detail}" for r in draws) or "no draw"
    problems = [f"draw {r.draw}: {p}" for r in draws for p in r.problems]
    if not run:
        return [CheckLine(label, "not applicable", detail, path="raster", adapter=summary),
                stats]
    status = "DIFFERENT" if any(r.status == "DIFFERENT" for r in run) else "OK"
    return [CheckLine(label, status, detail, problems=problems, path="raster", adapter=summary),
            stats]
