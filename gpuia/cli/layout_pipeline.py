"""``gpuia layout``'s report of one pipeline state desc that sets both an input layout and a
Stream Output declaration (:class:`gpuia.source.model.SourcePipeline`): the two arrays, with
the ``--shader`` named on the command line between them, validated as one pipeline state
(:func:`gpuia.source.cases.pipeline_case`: the layout against the shader's inputs, the
declaration against its outputs, rules 3.8 and section 8) and, with ``--check``, run on the GPU
against the CPU reference as one case. Each array is still reported on its own before."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import GpuiaError, UnsupportedError
from ..util.files import OutputError, safe_stem, write_atomic
from .common import EXIT_DIFF, EXIT_INVALID, EXIT_OK, error_line

__all__ = ["pipeline_report"]


def pipeline_report(pipe, source, args, devices, save_dir: Path | None) -> tuple[dict, int]:
    """Validate (and with ``--check`` run) one desc's pipeline; print its report (text output)
    and, for a refusal, one ``error:`` line after it (exit 2).

    Arguments:
        pipe (SourcePipeline): the desc.
        source (SourceFile): the file it is in (its arrays).
        args: the command's arguments (``shader_info``, ``gs_info``, ``cbuffers``,
            ``vertices``, ``instances``, ``check``, ``path``, ``capture``).
        devices: the devices ``--check`` runs on.
        save_dir: ``--save-case``'s folder, or None.

    Returns:
        (its JSON document, the exit status).
    """
    lines: list[str] = []
    doc, status, error = _report(pipe, source, args, devices, save_dir, lines)
    if not args.json:
        print("\n".join(lines) + "\n")
    if error is not None:
        error_line("layout", error)
    return doc, status


def _report(pipe, source, args, devices, save_dir, lines):
    """(document, status, the error to print or None), the text in ``lines``."""
    arrays = {(a.kind, a.name): a for a in source.arrays}
    layout = arrays.get(("input_layout", pipe.input_layout))
    so = arrays.get(("so_declaration", pipe.stream_output))
    doc = {"file": pipe.file, "line": pipe.line, "column": pipe.column, "name": pipe.name,
           "input_layout": pipe.input_layout, "stream_output": pipe.stream_output,
           "shader": None if args.shader_info is None else str(args.shader_info.path),
           "error": None, "check": [], "check_skipped": None, "case_file": None}
    lines.append(f"== {pipe.location}: {pipe.name}: one pipeline state: InputLayout "
                 f"{pipe.input_layout} + StreamOutput {pipe.stream_output}")
    shader = args.shader_info
    skipped = None
    if layout is None or so is None or layout.error is not None or so.error is not None:
        skipped = "an array of it is not resolved (its own report names why)"
    elif args.gs_info is not None:
        skipped = ("its Stream Output names the geometry shader's outputs: gpuia layout makes "
                   "no case with a geometry shader (a case file's pipeline_state runs one)")
    if skipped is not None or layout is None or so is None:  # (the second for the type checker)
        doc["check_skipped"] = skipped
        lines.append(f"pipeline: not checked: {skipped}")
        return doc, EXIT_OK, None
    from ..source.cases import case_name, pipeline_case

    try:
        case = pipeline_case(layout, so, vertices=args.vertices, instances=args.instances,
                             name=f"{case_name(layout)}_{pipe.stream_output}",
                             vertex_shader=None if shader is None else shader.doc,
                             constant_buffers={c.slot: c.value for c in args.cbuffers})
    except UnsupportedError as exc:  # a compiled shader: linked, then not drawn
        if shader is None or shader.not_drawn is None:
            raise
        doc["check_skipped"] = f"{shader.not_drawn} ({exc})"
        lines.append(f"pipeline: OK: linked ({shader.not_drawn})")
        return doc, EXIT_OK, None
    except GpuiaError as exc:
        doc["error"] = str(exc)
        lines.append(f"pipeline: {exc}")
        return doc, EXIT_INVALID, GpuiaError(f"{pipe.location}: pipeline state {pipe.name}: "
                                             f"{exc}")
    stage = "the pass-through shader" if shader is None else str(shader.path)
    lines.append(f"pipeline: OK: {pipe.input_layout} feeds {stage}, whose outputs "
                 f"{pipe.stream_output} streams out")
    status = EXIT_OK
    if save_dir is not None:
        saved = json.loads(json.dumps(case.source))
        if shader is not None:
            saved["pipeline_state"]["vertex_shader"] = shader.case_doc(save_dir)
        target = save_dir / f"{safe_stem(case.name)}.json"
        try:
            write_atomic(target, json.dumps(saved, indent=1) + "\n")
        except OutputError as exc:
            raise UnsupportedError(f"--save-case: {exc}") from None
        doc["case_file"] = str(target)
        lines.append(f"case: {target}")
    if args.check:
        from ..harness.crosscheck import cross_check

        paths = ["native", "pulling"] if args.path == "all" else [args.path]
        result = cross_check(case, devices, paths, capture_route=args.capture)
        for line in result.lines:
            doc["check"].append({"label": line.label, "status": line.status,
                                 "detail": line.detail, "problems": line.problems})
            lines.append("check: " + line.text())
        if not result.ok:
            status = EXIT_DIFF
    return doc, status, None
