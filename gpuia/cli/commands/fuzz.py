"""``gpuia fuzz``: differential fuzzing of the GPU paths against the CPU reference, and
invalid-input fuzzing of the command line (``--invalid``). ``docs/fuzzing.md`` describes both.

Exit status: 0 nothing found, 1 at least one finding (saved under ``--out`` and printed), 2
invalid arguments, no usable adapter, or a run in which no case ran (the time limit passed
first): a run that tested nothing is not a pass.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from ...errors import GpuiaError, UnsupportedError
from ...util.cores import usable_cores
from ..common import EXIT_DIFF, EXIT_INVALID, EXIT_OK, error_line, gpu_options
from ..scale import shard_option

__all__ = ["add_parser", "run", "INVALID_WORKER"]

INVALID_WORKER = "gpuia.cli.fuzz_child"
"""The module the invalid fuzzer's children run (``python -m``): it serves the fuzzer's worker
protocol with command lines run through :func:`gpuia.cli.main`."""

_PATHS = ("native", "pulling", "auto")


def _paths(text: str) -> tuple:
    if text.strip().lower() == "none":
        return ()
    paths = tuple(p.strip() for p in text.split(",") if p.strip())
    bad = [p for p in paths if p not in _PATHS]
    if bad or not paths or len(set(paths)) != len(paths):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a comma-separated list of {', '.join(_PATHS)} without repeats, or 'none'")
    return paths


_WEEK = 7 * 24 * 3600.0  # longest duration an option takes (timers overflow far past it)


def _positive(kind):
    """A number > 0; durations (floats) also at most a week, NaN and inf refused."""
    most = _WEEK if kind is float else float("inf")

    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not 0 < value <= most:
            raise argparse.ArgumentTypeError(
                f"{text!r} must be greater than 0" + (f" and at most {most:.0f} seconds (a week)"
                                                      if kind is float else ""))
        return value
    return parse


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError(f"{text!r} must be in 0 .. 2**64-1")
    return value


def _memory(text: str) -> int | None:
    if text == "auto":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: MiB as an integer, 0 or 'auto'") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def add_parser(subparsers):
    p = subparsers.add_parser(
        "fuzz", help="random valid cases, CPU reference vs GPU paths (or --invalid: corrupted "
                     "cases must be refused cleanly); exit 1 on a finding",
        description="Generate random cases from a seed, run them on the CPU reference and the "
                    "GPU paths, and shrink any difference to a minimal case file. With --invalid, "
                    "corrupt valid cases and require 'gpuia check' to refuse them with one "
                    "error line (exit 2) or to run them correctly.")
    p.add_argument("--seconds", type=_positive(float), metavar="N",
                   help="stop after N seconds of fuzzing, shrinking not counted (default 60 "
                        "unless --cases is given)")
    p.add_argument("--cases", type=_positive(int), metavar="N", help="stop after N cases")
    p.add_argument("--seed", type=_seed, metavar="S",
                   help="the run's seed (default: a random one, printed); the same seed gives "
                        "the same cases")
    p.add_argument("--paths", type=_paths, default=("native", "pulling"), metavar="LIST",
                   help="GPU paths to compare: native,pulling (default), auto, or none (the CPU "
                        "reference alone, in this process)")
    p.add_argument("--so", action="store_true",
                   help="give about half of the cases a Stream Output declaration and targets")
    p.add_argument("--gs", action="store_true",
                   help="make about one case in three a geometry shader case (a generated HLSL "
                        "geometry shader into Stream Output streams 0-3); with --invalid, "
                        "geometry shader cases broken as D3D12 refuses them, which must be "
                        "refused naming the rule")
    p.add_argument("--invalid", action="store_true",
                   help="invalid-input fuzzing: corrupted cases through 'gpuia check' in a child")
    p.add_argument("--out", default="fuzz-out", metavar="DIR",
                   help="where findings are saved (default ./fuzz-out)")
    p.add_argument("--jobs", type=_positive(int), default=None, metavar="N",
                   help="child processes running cases at once, each with its own device "
                        "(default: one per four cores, 1 to 4; at most the cores this process "
                        "may use)")
    p.add_argument("--timeout", type=_positive(float), default=120.0, metavar="S",
                   help="seconds one case may take before it counts as a hang (default 120)")
    p.add_argument("--max-findings", type=_positive(int), default=1, metavar="N",
                   help="stop after N findings (default 1)")
    p.add_argument("--shrink-seconds", type=_positive(float), default=300.0, metavar="S",
                   help="time allowed for shrinking one finding (default 300)")
    p.add_argument("--memory-limit", type=_memory, default=None, metavar="MIB",
                   help="address space each child may add after start-up, in MiB; 'auto' "
                        "(default): 4096 on CPU adapters, unlimited on GPUs; 0: unlimited")
    p.add_argument("--progress-interval", type=_positive(float), default=10.0, metavar="S",
                   help="seconds between progress lines when stderr is not a terminal (10)")
    gpu_options(p, allow_all=True)
    shard_option(p, "draw only part K of N disjoint parts of the seed's cases (chunk k is part "
                    "k mod N + 1): N machines with one seed never run the same case, and a "
                    "finding is drawn again from its seed and chunk anywhere")
    return p


def run(args) -> int:
    # gpuia.fuzz needs hypothesis, the optional 'fuzz' extra: imported only here, so that the
    # other commands run without it and this one says which extra is missing.
    try:
        from ...fuzz import FuzzConfig, Fuzzer, ReferenceRunner, default_jobs
        from ...fuzz.pool import WorkerStartError
    except GpuiaError as e:
        error_line("fuzz", e)
        return EXIT_INVALID

    seconds = args.seconds if args.seconds is not None or args.cases else 60.0
    run_seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    mode = "invalid" if args.invalid else "valid"
    if mode == "invalid" and not args.paths:
        error_line("fuzz", ValueError("--invalid runs 'gpuia check' on a GPU: --paths none does "
                                      "not apply"))
        return EXIT_INVALID
    config = FuzzConfig(mode=mode, seed=run_seed, seconds=seconds, cases=args.cases,
                        paths=args.paths, so=args.so, gs=args.gs, adapter=args.adapter,
                        gpu_backend=args.gpu_backend, capture=args.capture, out=Path(args.out),
                        jobs=_jobs(args.jobs, default_jobs(), note=bool(args.paths)),
                        timeout=args.timeout, max_findings=args.max_findings,
                        shrink_seconds=args.shrink_seconds, memory_limit_mb=args.memory_limit,
                        progress_interval=args.progress_interval, shard=args.shard)
    runner = ReferenceRunner() if mode == "valid" and not args.paths else None
    # Invalid mode judges the command line itself, so its children run gpuia's command line.
    worker = [sys.executable, "-m", INVALID_WORKER] if mode == "invalid" else None
    print(f"fuzz: {mode} cases, seed {run_seed}"
          f"{f', shard {args.shard}' if args.shard else ''}"
          f"{f', {seconds:g} s' if seconds else ''}{f', {args.cases} cases' if args.cases else ''}",
          file=sys.stderr)
    try:
        report = Fuzzer(config, runner=runner, worker_command=worker).run()
    except WorkerStartError as e:
        error_line("fuzz", e)
        return EXIT_INVALID
    print(report.summary())
    if report.findings:
        return EXIT_DIFF
    if not report.cases and not report.interrupted:  # (a signal ends with its own status)
        error_line("fuzz", UnsupportedError(
            f"no case ran within the time limit ({seconds:g} s): a run that tested nothing "
            f"is not a pass; give more --seconds"))
        return EXIT_INVALID
    return EXIT_OK


def _jobs(asked: int | None, default: int, note: bool) -> int:
    """The children to run: ``default`` unless ``asked``, never more than the cores this
    process may use (more only queue for them: on a loaded machine they took a short run's
    whole time starting up), with a note on stderr when fewer than asked and ``note`` (there
    are children: not with ``--paths none``)."""
    if asked is None:
        return default
    cores = usable_cores()
    if asked > cores:
        if note:
            print(f"fuzz: --jobs {asked} is more than the {cores} cores this process may "
                  f"use: running {cores}", file=sys.stderr)
        return cores
    return asked
