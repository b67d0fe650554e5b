"""``gpuia layout FILE...``: input layouts and Stream Output declarations taken from C/C++ or
JSON, resolved, linted, and (``--check``) run on the GPU against the CPU reference.

For every array found (:func:`gpuia.source.extract`) it prints the location, the resolved table,
the slot strides, the path each adapter's plan takes and why, the lint findings
(:mod:`gpuia.harness.lint`), and with ``--check`` one line per adapter and path from
:func:`gpuia.harness.crosscheck.cross_check` on generated data. ``--save-case DIR`` writes the
generated case of each valid array (``<file stem>_<array>.json``), loadable by ``gpuia validate``.
``--shader`` links every array with a vertex shader (``--cbuffer bN=FILE``: the bytes, or the
members by name, of its constant buffers under ``--check``, shown per register;
:mod:`gpuia.cli.cbuffer_files`); ``--gs`` adds the geometry shader after it
(its linkage linted as E004, every SO declaration resolved against its streams, each on its
own); ``--ps`` a compiled pixel shader, linked register by register (E005). ``--shader`` and
``--gs`` also take compiled DXBC/DXIL containers, linked by their signature rows
(:mod:`gpuia.cli.layout_shaders`, :mod:`gpuia.d3d.linkage`). A pipeline state desc in C++ that
sets both an input layout and a Stream Output declaration of the file is then checked as one
pipeline with the ``--shader`` (:mod:`gpuia.cli.layout_pipeline`).

C/C++ is compiled by libclang as the application's build would (``-D``/``--define``,
``-I``/``--include``, ``--target``; :mod:`gpuia.source.clang_parse`), in a worker process with
time and memory limits (:mod:`gpuia.source.isolated`); each file's report starts
with its language, target and the D3D header read (a real one on the include path, or gpuia's
generated stub), then the compiler's diagnostics as warnings.

Exit status: 2 when a file cannot be read or parsed, an array cannot be resolved, or D3D would
reject an array (each prints one ``error:`` line on stderr); else 1 when a check found a
CPU/GPU difference, or with ``--werror`` any warning (a compiler diagnostic included); else 0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ...errors import GpuiaError, UnsupportedError
from ...harness.report.text import layout_table, render_table
from ...util.files import OutputError, safe_stem, write_atomic
from ..cbuffer_files import cbuffer_inputs
from ..common import (
    EXIT_DIFF,
    EXIT_INVALID,
    EXIT_OK,
    compile_options,
    compile_settings,
    error_line,
    feature_level_option,
    gpu_options,
    open_devices,
)
from ..layout_pipeline import pipeline_report
from ..layout_shaders import LayoutGeometry, LayoutPixel, LayoutShader, members_json

__all__ = ["add_parser", "run"]

# Every gpuia command imports this module to build its parser, so what only running it needs
# is imported where it is used: linting, C/C++ extraction and WGSL parsing cost about 45 ms of
# start-up together (measured with -X importtime), and the harness's GPU runs import wgpu.

_MAX_GENERATED = 1 << 24  # vertices x instances of generated data


def add_parser(subparsers):
    p = subparsers.add_parser(
        "layout", help="extract D3D input layouts and SO declarations from C/C++ or JSON, "
                       "lint them, and cross-check them on the GPU")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="C/C++ source or header, or JSON (case file, layout collection, element "
                        "list)")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    p.add_argument("--check", action="store_true",
                   help="generate data for each array, run it on the adapters and compare with "
                        "the CPU reference (exit 1 on a difference)")
    p.add_argument("--path", choices=["all", "native", "pulling"], default="all",
                   help="GPU paths --check runs (default all that apply)")
    p.add_argument("--save-case", metavar="DIR",
                   help="write one case file per valid array to DIR (<file stem>_<array>.json)")
    p.add_argument("--no-gpu", action="store_true",
                   help="plan and lint against WebGPU's default limits instead of an adapter")
    p.add_argument("--werror", action="store_true", help="exit 1 when there is any warning")
    compile_options(p)
    p.add_argument("--assume-false", action="append", default=[], metavar="CONDITION",
                   help="the text of an if condition to take as false where a vector is filled "
                        "conditionally (repeatable; conditions are otherwise assumed true)")
    p.add_argument("--vertices", type=int, default=64, metavar="N",
                   help="vertices per instance of the generated data (64)")
    p.add_argument("--instances", type=int, default=3, metavar="N",
                   help="instances of the generated data (3)")
    p.add_argument("--shader", metavar="FILE[:ENTRY]", default=None,
                   help="link every layout with this vertex shader's input signature, as "
                        "CreateGraphicsPipelineState does (HLSL, WGSL for a .wgsl file, or a "
                        "compiled DXBC/DXIL container; entry point default main), resolve SO "
                        "declarations against its outputs, and draw with it under --check "
                        "(HLSL and WGSL)")
    p.add_argument("--cbuffer", action="append", default=[], metavar="bN=FILE",
                   help="constant buffer N for --shader under --check (repeatable): FILE's "
                        "bytes, or a .json object of the cbuffer's members by name, packed by "
                        "D3D's rules from the HLSL shader's reflection (default zeros)")
    p.add_argument("--shader-define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a preprocessor define for --shader (repeatable)")
    p.add_argument("--gs", metavar="FILE[:ENTRY]", default=None,
                   help="the geometry shader after the vertex shader (HLSL, entry point "
                        "default main, or a compiled DXBC/DXIL container): link its inputs with "
                        "--shader's outputs and resolve SO declarations against its streams' "
                        "records, each stream on its own")
    p.add_argument("--ps", metavar="FILE", default=None,
                   help="a compiled pixel shader (DXBC or DXIL container): link its inputs, "
                        "register by register, with the outputs of --gs (stream 0), else of "
                        "--shader, both compiled too")
    p.add_argument("--gs-define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a preprocessor define for --gs (repeatable)")
    p.add_argument("--gs-topology", metavar="TOPOLOGY", default=None,
                   help="the draw's primitive topology (TRIANGLELIST, ...) whose class --gs's "
                        "input primitive must take (default: not checked)")
    p.add_argument("--matrix-layout", choices=["column_major", "row_major"],
                   default="column_major",
                   help="--shader's and --gs's default matrix packing (row_major is fxc/dxc's "
                        "/Zpr)")
    gpu_options(p, allow_all=True)
    feature_level_option(p)
    return p


def _adapters(args):
    """(labels and caps to plan with, devices to check on); raises GpuiaError."""
    if args.no_gpu:
        from ...harness.lint import webgpu_default_caps

        return [("WebGPU default limits", webgpu_default_caps())], []
    devices, _ = open_devices(args, sys.stderr)
    if not devices:
        raise UnsupportedError("no selected adapter could create a device (use --no-gpu to "
                               "lint against WebGPU's default limits)")
    return [(d.info["summary"], d.caps) for d in devices], devices


def run(args) -> int:
    if args.check and args.no_gpu:
        error_line("layout", UnsupportedError("--check runs on a GPU; it cannot be combined "
                                              "with --no-gpu"))
        return EXIT_INVALID
    if (args.vertices < 1 or args.instances < 1
            or args.vertices * args.instances > _MAX_GENERATED):
        error_line("layout", UnsupportedError(
            f"--vertices and --instances must be at least 1, and their product at most "
            f"{_MAX_GENERATED} (generated data is held in memory twice: CPU and GPU results)"))
        return EXIT_INVALID
    from ...source import JSON_SUFFIXES

    if any(Path(f).suffix.lower() not in JSON_SUFFIXES for f in args.files):
        from ...source.isolated import start_worker

        start_worker()  # C/C++ is read in a worker: its start-up overlaps what follows
    try:
        args.shader_info = None if args.shader is None else LayoutShader(
            args.shader, args.shader_define, args.matrix_layout)
        if args.gs is None and (args.gs_define or args.gs_topology is not None):
            raise UnsupportedError("--gs-define and --gs-topology apply to a --gs shader")
        args.gs_info = None if args.gs is None else LayoutGeometry(args, args.shader_info)
        args.ps_info = None if args.ps is None else LayoutPixel(args.ps, args.shader_info,
                                                                 args.gs_info)
        args.cbuffers = cbuffer_inputs(args.cbuffer, args.shader_info)
        adapters, devices = _adapters(args)
    except GpuiaError as exc:
        error_line("layout", exc)
        return EXIT_INVALID
    for info in (args.shader_info, *args.cbuffers, args.gs_info, args.ps_info):
        if info is not None and not args.json:
            print("\n".join(info.describe()))
            print()
    from ...source import read_source

    try:  # malformed options are refused once, before any file is read
        compile_kw = compile_settings(args)
    except GpuiaError as exc:
        error_line("layout", exc)
        return EXIT_INVALID

    status = EXIT_OK
    docs: list[dict] = []
    pipelines: list[dict] = []
    save_dir = Path(args.save_case) if args.save_case else None
    if save_dir is not None:
        try:
            save_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            error_line("layout", UnsupportedError(f"--save-case {save_dir}: cannot create the "
                                                  f"folder: {exc.strerror or exc}"))
            return EXIT_INVALID
    args.case_names = set()  # case names given so far: arrays of one name get their line added
    files = []
    for path in args.files:
        try:
            source = read_source(path, assume_false=args.assume_false, **compile_kw)
        except GpuiaError as exc:  # the exception names the file (and line, column)
            error_line("layout", exc)
            status = max(status, EXIT_INVALID)
            continue
        files.append(_file_doc(source, compile_kw["target"], args))
        if source.diagnostics and args.werror:
            status = max(status, EXIT_DIFF)
        if not source.arrays and not args.json:
            print(f"{source.file}: no D3D input-element arrays or SO declarations found")
        for arr in source.arrays:
            doc, code = _one(arr, args, adapters, devices, save_dir)
            docs.append(doc)
            status = max(status, code)
        for pipe in source.pipelines:  # a PSO desc's layout and SO declaration, together
            pdoc, code = pipeline_report(pipe, source, args, devices, save_dir)
            pipelines.append(pdoc)
            status = max(status, code)
    if args.json:
        _write_json(args, adapters, files, docs, pipelines)
    if _assume_false_unmatched(args, docs):
        status = EXIT_INVALID
    return status


def _write_json(args, adapters, files: list, docs: list, pipelines: list) -> None:
    """The ``--json`` document on stdout: the adapters, the files, the shaders, the arrays and
    the pipeline state descs that pair two of them."""
    shader = args.shader_info
    json.dump({"gpuia_layout": 1, "adapters": [label for label, _ in adapters],
               "files": files,
               "shader": None if shader is None else {
                   "file": str(shader.path), "language": shader.language,
                   "entry_point": shader.entry,
                   "inputs": members_json(shader.signature.inputs),
                   "outputs": members_json(shader.signature.outputs)},
               "constant_buffers": [c.as_json() for c in args.cbuffers],
               "geometry_shader": None if args.gs_info is None else args.gs_info.as_json(),
               "pixel_shader": None if args.ps_info is None else args.ps_info.as_json(),
               "arrays": docs, "pipelines": pipelines}, sys.stdout, indent=1)
    sys.stdout.write("\n")


def _assume_false_unmatched(args, docs: list) -> bool:
    """Whether an ``--assume-false`` text matched no condition (its error line printed)."""
    # An --assume-false text that matched no condition is most likely misspelt: the arrays were
    # read with that condition assumed true, which is not what was asked.
    notes = {n for d in docs for n in d["notes"]}
    unmatched = [c for c in args.assume_false
                 if f"condition `{' '.join(c.split())}` assumed false" not in notes]
    if unmatched:
        error_line("layout", UnsupportedError(
            f"--assume-false {unmatched[0]!r} matched no condition of a conditionally filled "
            f"array (conditions are matched as written, whitespace aside)"))
    return bool(unmatched)


def _file_doc(source, target: str, args) -> dict:
    """Print (text) what the compiler made of a C/C++ file: its language and target, the D3D
    header read and each compiler diagnostic, as a warning; returns the file's JSON document."""
    c_family = source.language != "JSON"
    doc = {"file": source.file, "language": source.language,
           "target": target if c_family else None,
           "d3d_header": source.d3d_header if c_family else None,
           "d3d_header_stub": c_family and source.d3d_header is None,
           "diagnostics": [{"file": d.file, "line": d.line, "column": d.column,
                            "severity": d.severity, "message": d.message}
                           for d in source.diagnostics]}
    if c_family and not args.json:
        print(f"-- {source.file}: {source.language} for {target}, D3D header: "
              f"{source.header_text}")
        for d in source.diagnostics:
            print(f"  warning: {d}")
        print()
    return doc


def _one(arr, args, adapters, devices, save_dir) -> tuple[dict, int]:
    """Report one array; returns its JSON document and exit status."""
    doc = {"file": arr.file, "line": arr.line, "column": arr.column, "name": arr.name,
           "struct": arr.struct, "kind": arr.kind, "elements": arr.elements,
           "notes": list(arr.notes), "error": None, "findings": [], "check": [],
           "case_file": None, "resolved": None, "slots": None, "paths": None}
    out: list[str] | None = None if args.json else []

    def say(text=""):
        if out is not None:
            out.append(text)

    count = "not resolved" if arr.error is not None else f"{len(arr.elements)} " + (
        "elements" if arr.kind == "input_layout" else "entries")
    say(f"== {arr.location}: {arr.name} ({arr.struct}, {count})")
    for note in arr.notes:
        say(f"  note: {note}")
    if arr.error is not None:
        doc["error"] = str(arr.error)
        _flush(out, args)
        error_line("layout", arr.error)
        return doc, EXIT_INVALID
    if arr.kind == "input_layout":
        status, case = _layout(arr, args, adapters, doc, say)
    else:
        status, case = _so(arr, args, doc, say)
    for info in (args.gs_info, args.ps_info):  # the pipeline this array goes into links them
        if info is not None:
            doc["findings"] += [f.as_dict() for f in info.findings]
    findings = doc["findings"]
    errors = [f for f in findings if f["severity"] == "error"]
    warnings = [f for f in findings if f["severity"] == "warning"]
    say(f"lint: {len(errors)} error(s), {len(warnings)} warning(s)")
    for f in findings:
        say(f"  {f['code']} {f['name']}: {f['where']}: {f['message']}")
    if errors:
        _flush(out, args)
        first = errors[0]
        error_line("layout", GpuiaError(f"{arr.location}: array {arr.name}: {first['code']} "
                                        f"{first['name']}: {first['where']}: "
                                        f"{first['message']}"))
        return doc, EXIT_INVALID
    if warnings and args.werror:
        status = max(status, EXIT_DIFF)
    if case is not None and save_dir is not None:
        target = save_dir / f"{safe_stem(case.name)}.json"
        saved = dict(case.source)
        if args.shader_info is not None:  # the shader file, relative to the saved case
            saved["vertex_shader"] = args.shader_info.case_doc(save_dir)
        try:
            write_atomic(target, json.dumps(saved, indent=1) + "\n")
        except OutputError as exc:
            raise UnsupportedError(f"--save-case: {exc}") from None
        doc["case_file"] = str(target)
        say(f"case: {target}")
    if args.check:
        if case is None:
            say("check: not run: " + doc.get("check_skipped", "no case"))
        else:
            from ...harness.crosscheck import cross_check

            paths = ["native", "pulling"] if args.path == "all" else [args.path]
            result = cross_check(case, devices, paths, capture_route=args.capture)
            for line in result.lines:
                doc["check"].append({"label": line.label, "status": line.status,
                                     "detail": line.detail, "problems": line.problems})
                say("check: " + line.text())
            if not result.ok:
                status = max(status, EXIT_DIFF)
    _flush(out, args)
    return doc, status


def _flush(out, args) -> None:
    if out is not None and not args.json:
        print("\n".join(out))
        print()
        out.clear()


def _case_name(arr, args) -> str:
    """``<file stem>_<array>``, with ``_L<line>`` when that name was already given (C test
    files often name every function's array alike)."""
    from ...source.cases import case_name

    name = case_name(arr)
    if name in args.case_names:
        name = f"{name}_L{arr.line}"
    args.case_names.add(name)
    return name


def _layout(arr, args, adapters, doc, say):
    from ...harness.lint import lint_layout

    shader = args.shader_info
    report = lint_layout(arr.elements, adapters, profile=args.feature_level or arr.profile,
                         strides=arr.strides,
                         signature=None if shader is None else shader.signature)
    doc["findings"] = [f.as_dict() for f in report.findings]
    if report.layout is None:
        return EXIT_OK, None
    layout = report.layout
    say(layout_table(layout))
    rows = []
    for s, info in layout.slots.items():
        stride, origin = report.strides[s]
        where = "from the source" if origin == "source" else "tightest: no stride in the source"
        rows.append([str(s), "instance" if info.per_instance else "vertex", str(info.step_rate),
                     str(info.extent), f"{stride} ({where})"])
    say()
    say(render_table(["slot", "class", "step", "extent", "stride"], rows, right={0, 3}))
    doc["resolved"] = [{"semantic": e.key, "format": e.format.name, "slot": e.slot,
                        "offset": e.offset, "class": "instance" if e.per_instance else "vertex",
                        "step_rate": e.step_rate} for e in layout.elements]
    doc["slots"] = [{"slot": s, "stride": report.strides[s][0],
                     "stride_from": report.strides[s][1], "extent": info.extent}
                    for s, info in layout.slots.items()]
    doc["paths"] = []
    for label, path, reasons in report.plans:
        doc["paths"].append({"adapter": label, "path": path, "reasons": reasons})
        say(f"path on {label}: {path}")
        for r in reasons or ["every slot is expressible natively"]:
            say(f"  - {r}")
    case = None
    if shader is not None and shader.not_drawn is not None:
        doc["check_skipped"] = shader.not_drawn
    elif (args.check or args.save_case) and not report.errors:
        from ...harness.crosscheck import layout_case

        case = layout_case(layout, vertices=args.vertices, instances=args.instances,
                           name=_case_name(arr, args),
                           vertex_shader=None if shader is None else shader.doc,
                           constant_buffers={c.slot: c.value for c in args.cbuffers})
    return EXIT_OK, case


def _so(arr, args, doc, say):
    from ...harness.lint import lint_so
    from ...source.cases import so_case

    shader, gs = args.shader_info, args.gs_info
    report = lint_so(arr.elements, buffer_strides=arr.buffer_strides,
                     rasterized_stream=arr.rasterized_stream,
                     signature=None if shader is None else shader.signature,
                     feature_level=args.feature_level or arr.profile,
                     streams=None if gs is None else gs.streams)
    doc["findings"] = [f.as_dict() for f in report.findings]
    resolved: Any = report.resolved  # the lint types it as object
    if resolved is None:
        return EXIT_OK, None
    rows = []
    for slot in resolved.slots:
        for e in slot.entries:
            raw = arr.elements[e.index]
            semantic = "(gap)" if e.is_gap else f"{raw['SemanticName']}{raw['SemanticIndex']}"
            rows.append([str(e.index), str(raw["Stream"]), semantic, str(e.start_component),
                         str(e.component_count), str(e.slot), str(e.byte_offset)])
    rows.sort(key=lambda r: int(r[0]))
    say(render_table(["#", "stream", "semantic", "start", "count", "slot", "offset"], rows,
                right={0, 1, 3, 4, 5, 6}))
    say()
    say(render_table(["slot", "declared", "stride"],
                [[str(s.slot), str(s.declared_size), f"{s.stride} ({report.strides_from})"]
                 for s in resolved.slots], right={0, 1}))
    if gs is not None:
        say(f"signature: each stream's output record of {gs.path}"
            + ("" if gs.entry is None else f" ({gs.entry})"))
    elif shader is None:
        say("signature: derived (each declared semantic a 4-component float output; "
            "SV_VertexID and SV_InstanceID one uint)")
    else:
        say(f"signature: the outputs of {shader.path}" + (
            "" if shader.entry is None else f" ({shader.entry})"))
    doc["slots"] = [{"slot": s.slot, "declared_size": s.declared_size, "stride": s.stride,
                     "stride_from": report.strides_from} for s in resolved.slots]
    if any(f.code == "W010" for f in report.findings):
        doc["check_skipped"] = "entries on streams 1-3 need a geometry shader"
        return EXIT_OK, None
    if gs is not None:
        doc["check_skipped"] = ("gpuia layout makes no case with a geometry shader (a case "
                                "file's geometry_shader runs one)")
        return EXIT_OK, None
    case = None
    if shader is not None and shader.not_drawn is not None:
        doc["check_skipped"] = shader.not_drawn
    elif (args.check or args.save_case) and not report.errors:
        case = so_case(arr, report.desc, vertices=args.vertices, instances=args.instances,
                       name=_case_name(arr, args),
                       vertex_shader=None if shader is None else shader.doc,
                       signature=None if shader is None else shader.signature,
                       constant_buffers={c.slot: c.value for c in args.cbuffers})
    return EXIT_OK, case
