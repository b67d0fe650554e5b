"""``gpuia run CASE...``: run cases on the CPU reference (default) or through a real draw on the
GPU (``--backend gpu``), and write their results (docs/case-format.md, "Result").

One case writes its JSON result on stdout; several need ``--out-dir DIR`` (``DIR/<case
stem>.json`` each, two inputs of one stem refused before anything runs) or ``--table`` (the
layout and a per-invocation table instead). ``--out FILE`` writes the one case's result to
FILE. ``--explain`` prints on stderr why each draw took its GPU path. ``--csv DIR`` also writes
the vertex shader's inputs (and, for Stream Output, outputs) per draw and instance in
RenderDoc's mesh viewer CSV format, with a manifest per case (docs/exports.md). ``--table`` adds
the VS outputs and the primitives to the input table, and for a case with a geometry shader its
output per stream (GS Out, CPU backend), which ``--csv`` writes too. Every file is written
whole or not at all (:func:`gpuia.util.files.write_atomic`).

Exit status: 0 every case ran; 2 invalid input or output (one ``error:`` line each).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ...errors import GpuiaError
from ...harness.case import DEFAULT_MAX_INVOCATIONS
from ...harness.report.text import invocation_table, layout_table
from ...reference import IAResult
from ...util.files import OutputError, make_folder, safe_stem, write_atomic
from ..common import (
    EXIT_INVALID,
    case_arguments,
    case_progress,
    claim_stems,
    each_case,
    error_line,
    feature_level_option,
    gpu_options,
    output_stem,
    progress_option,
    row_count,
    start_hlsl_worker,
    writable,
)
from ..scale import shard_cases, shard_option
from ..workers import run_on_workers, worker_options

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    r = subparsers.add_parser("run", help="run cases and write their results")
    case_arguments(r)
    r.add_argument("--backend", choices=["cpu", "gpu"], default="cpu",
                   help="cpu: the numpy reference (default); gpu: a real draw through wgpu")
    r.add_argument("--path", choices=["auto", "native", "pulling"], default="auto",
                   help="GPU path: WebGPU vertex fetch, vertex pulling, or chosen per draw")
    r.add_argument("--explain", action="store_true",
                   help="print on stderr why each draw took its path")
    gpu_options(r)
    feature_level_option(r)
    r.add_argument("--out-dir", metavar="DIR", help="write DIR/<case stem>.json per case")
    r.add_argument("--out", metavar="FILE", help="write the result of the one case to FILE")
    r.add_argument("--csv", metavar="DIR",
                   help="also write DIR/<case stem>.<side>.draw<D>.instance<I>.vs_in.csv (and "
                        ".vs_out.csv for Stream Output) in RenderDoc's mesh viewer CSV format, "
                        "and DIR/<case stem>.csv.json (docs/exports.md)")
    r.add_argument("--table", action="store_true",
                   help="print the layout and a per-invocation table instead of JSON on stdout")
    r.add_argument("--rows", type=row_count, default=32, metavar="N", help="rows of --table (32)")
    r.add_argument("--bits", action="store_true", help="--table shows bit patterns in hex")
    r.add_argument("--compact", action="store_true", help="write JSON on one line")
    r.add_argument("--max-invocations", type=int, default=DEFAULT_MAX_INVOCATIONS, metavar="N",
                   help=f"refuse cases delivering more vertices "
                        f"(default {DEFAULT_MAX_INVOCATIONS})")
    progress_option(r)
    shard_option(r)
    worker_options(r)
    return r


def run(args) -> int:
    to_stdout = args.out_dir is None and args.out is None and len(args.cases) == 1 \
        and not args.table
    if args.out is not None:
        try:
            if args.out_dir is not None or len(args.cases) != 1:
                raise OutputError("--out FILE takes the result of one case (several cases: "
                                  "--out-dir)")
            writable("--out", args.out)
        except GpuiaError as exc:
            error_line("run", exc)
            return EXIT_INVALID
    if args.out_dir is None and len(args.cases) > 1 and not args.table:
        print("error: run: several cases need --out-dir (or --table)", file=sys.stderr)
        return EXIT_INVALID
    out_dir, written, csv_dir, stems = None, {}, None, {}
    try:
        if args.out_dir:
            out_dir = make_folder(args.out_dir, "--out-dir")
            written = _result_names(args.cases, out_dir)
        if args.csv:
            csv_dir = make_folder(args.csv, "--csv")
            stems = claim_stems(args.cases, "--csv")
    except GpuiaError as exc:
        error_line("run", exc)
        return EXIT_INVALID
    shard_cases(args)  # --shard's part, once every output name of all cases was claimed
    if args.workers or args.timeout is not None:
        return run_on_workers(args, "run", _child_argv(args), args.backend == "gpu")
    start_hlsl_worker(args.cases)  # Slang's session starts while the device opens
    bar = case_progress(args, "gpuia run")
    from ...harness.run import run_case, run_cpu

    def action(path, case):
        device, cpu = None, None
        if args.backend == "gpu":  # wgpu is loaded only here: --backend cpu never needs it
            device = _device(args)
            res, doc = run_case(case, args.backend, path=args.path, device=device,
                                max_invocations=args.max_invocations,
                                capture_route=args.capture)
        else:  # every stage kept: the geometry shader's views read them
            cpu = run_cpu(case, args.max_invocations)
            res, doc = cpu.ia, cpu.document
        # the cpu backend's result is the IAResult itself; the gpu backend's holds one
        ia, plans = (res, []) if isinstance(res, IAResult) else (res.ia, res.plans)
        if args.explain:
            if args.backend != "gpu":
                bar.write(f"{case.name}: cpu backend: the numpy reference (no GPU path)",
                          file=sys.stderr)
            for d, plan in enumerate(plans):
                bar.write(f"{case.name}: draw {d}: {plan.explain()}", file=sys.stderr)
        if to_stdout:
            json.dump(doc, sys.stdout, indent=None if args.compact else 1)
            sys.stdout.write("\n")
        target = Path(args.out) if args.out else (
            _result_target(out_dir, path, case, written) if out_dir else None)
        if target is not None:
            write_atomic(target, json.dumps(doc, indent=None if args.compact else 1) + "\n")
        if csv_dir is not None:
            _write_csv(csv_dir, output_stem(path, case, stems, "--csv"), case, res,
                       args.backend, device, cpu)
        if args.table:
            stats = ", ".join(f"{k} {v}" for k, v in doc["statistics"].items())
            lines = [(f"== {case.name}: {case.topology.name}, {len(case.draws)} draw(s), {stats} "
                      f"[{doc['backend']}/{doc['path']}]"),
                     layout_table(case.layout), "",
                     invocation_table(ia, max_rows=args.rows, show_bits=args.bits), "",
                     _mesh_tables(case, res, args.backend, device, args.rows)]
            if cpu is not None and cpu.geometry is not None:
                from ...harness.report.gs_out import gs_out, gs_out_text

                lines += ["", gs_out_text(case.name, gs_out(case, cpu.ia, cpu.geometry, cpu.so),
                                          args.rows).rstrip("\n")]
            if target is not None:
                lines.append(f"result: {target}")
            bar.write("\n".join(lines) + "\n")

    with bar:
        return each_case(args.cases, action, bar, feature_level=args.feature_level)


def _device(args):
    """The device ``run --backend gpu`` draws on: a worker's, pinned to its one adapter
    (``--workers`` over several), else the one ``--adapter`` / ``--gpu-backend`` choose."""
    from ...gpu import get_device

    pool = getattr(args, "device_pool", None)
    if pool is not None and pool.pinned is not None:
        return pool.get(pool.pinned)
    return get_device(args.adapter, args.gpu_backend)


def _child_argv(args) -> list[str]:
    """The options each worker's ``gpuia run FILE`` takes: the parent's, its files' paths
    absolute (a worker's folder may differ)."""
    argv = ["--backend", args.backend, "--path", args.path, "--capture", args.capture,
            "--rows", str(args.rows), "--max-invocations", str(args.max_invocations),
            "--no-progress"]
    argv += [flag for flag, on in (("--explain", args.explain), ("--table", args.table),
                                   ("--bits", args.bits), ("--compact", args.compact)) if on]
    for option, value in (("--adapter", args.adapter), ("--gpu-backend", args.gpu_backend),
                          ("--feature-level", args.feature_level)):
        if value:
            argv += [option, value]
    for option, value in (("--out-dir", args.out_dir), ("--out", args.out), ("--csv", args.csv)):
        if value:
            argv += [option, str(Path(value).resolve())]
    return argv


def _result_names(paths, out_dir: Path) -> dict:
    """The result file of every case file given, refusing two that would write one file
    (``a/x.json`` and ``b/x.json``) before anything runs."""
    names: dict = {}
    for path in paths:
        if path == "-":
            continue  # named by the case inside: known once it is read
        target = out_dir / f"{safe_stem(Path(path).stem)}.json"
        if target in names and names[target] != path:
            raise OutputError(f"--out-dir: {names[target]} and {path} would both write "
                              f"{target}; run them into different folders")
        names[target] = path
    return names


def _result_target(out_dir: Path, path: str, case, written: dict) -> Path:
    """Where the result of ``case`` (read from ``path``) goes: ``<file stem>.json``, or for
    standard input the case's own name made into one safe file name (never a path)."""
    stem = Path(path).stem if path != "-" else case.name
    target = out_dir / f"{safe_stem(stem)}.json"
    owner = written.setdefault(target, path)
    if owner != path:
        raise OutputError(f"--out-dir: {owner} and {path} would both write {target}")
    return target


def _gpu_parts(case, res, device):
    """A GPU run's VS outputs (every invocation's, read back for a case with a vertex shader of
    its own; else from its Stream Output, for a case with one) and primitives."""
    from ...harness.report.mesh import captured_vs_outputs, gpu_primitives, gpu_vs_outputs

    outputs = (captured_vs_outputs(case, res.outputs) if res.outputs is not None
               else gpu_vs_outputs(case, res.ia, res.so))
    return outputs, gpu_primitives(case, device.caps.quirks)


def _mesh_tables(case, res, backend: str, device, rows: int) -> str:
    """The VS Out table (or why there is none) and the primitive list of one run."""
    from ...harness.report.mesh import (
        reference_primitives,
        reference_vs_outputs,
        vs_outputs_note,
    )
    from ...harness.report.text import primitive_table, vs_out_table

    gpu = None
    if backend == "gpu":
        ia = res.ia
        outputs, gpu = _gpu_parts(case, res, device)
        note = outputs.source if outputs is not None else vs_outputs_note(case)
    else:
        ia = res
        outputs, note = reference_vs_outputs(case, res)
    if outputs is None:
        vs_out = f"VS Out: {note}"
    else:
        vs_out = f"VS Out ({note}; - where no value is known)\n" + vs_out_table(ia, outputs,
                                                                                  None, rows)
    prims = primitive_table(reference_primitives(ia), None if gpu is None else {"GPU": gpu},
                            rows)
    return f"{vs_out}\n\nprimitives (the CPU reference's assembly)\n{prims}"


def _write_csv(folder, stem: str, case, res, backend: str, device, cpu=None) -> None:
    """The CSV tables of one run (docs/exports.md); ``cpu`` the CPU backend's
    :class:`~gpuia.harness.run.CPURun` (its geometry shader output has tables too)."""
    from ...harness.case import ADAPTER_INFO_KEYS, ADAPTER_KEYS
    from ...harness.export.mesh_csv import CsvSide, side_tag, write_case_csv
    from ...harness.report.mesh import captured_vs_outputs, gpu_vs_outputs, reference_vs_outputs

    if backend != "gpu":
        outputs, note = reference_vs_outputs(case, res)
        gs = None
        if cpu is not None and cpu.geometry is not None:
            from ...harness.report.gs_out import gs_out

            gs = gs_out(case, cpu.ia, cpu.geometry, cpu.so)
        write_case_csv(folder, stem, case, [CsvSide("cpu", "cpu", "reference", res,
                                                    outputs=outputs, note=note, gs_out=gs)])
        return
    adapter = {k: res.adapter.get(k) for k in ADAPTER_KEYS}
    info = {k: res.adapter.get(k) for k in ADAPTER_INFO_KEYS}
    summary = res.adapter.get("summary")
    runs = [name for name, got in (("vs outputs", res.outputs), ("stream output", res.so))
            if got is not None]
    sides = [CsvSide(side_tag(summary, res.path), "gpu", res.path, res.ia, missing=res.missing,
                     note=f"VS Out comes from the {' and '.join(runs)} run" if runs else "",
                     adapter=adapter, adapter_info=info)]
    if res.outputs is not None:
        sides.append(CsvSide(side_tag(summary, "vs outputs"), "gpu", "vs outputs", res.ia,
                             inputs=False, outputs=captured_vs_outputs(case, res.outputs),
                             adapter=adapter, adapter_info=info))
    if res.so is not None:
        outputs = gpu_vs_outputs(case, res.ia, res.so)
        sides.append(CsvSide(side_tag(summary, "stream output"), "gpu", "stream output",
                             res.ia, inputs=False, outputs=outputs, adapter=adapter,
                             adapter_info=info))
    write_case_csv(folder, stem, case, sides)
