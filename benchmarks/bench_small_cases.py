"""Many small cases per process: ``gpuia check`` of N fuzz-generated cases and ``gpuia fuzz`` of N
cases, in cases per second, for this tree and (``--before DIR``) an earlier checkout side by side.

The cases are the valid fuzzer's first N for ``--seed`` (gpuia.fuzz.engine.generate, generated
once by this tree and written as case files), so both trees check the same files. Each command
runs as its own process (``python -m gpuia``), once with N cases and once with
``--warm`` cases: the marginal rate (N - warm) / (t_N - t_warm) leaves out start-up (imports,
adapter and device set-up), which a campaign pays once. ``gpuia fuzz`` prints its own rate (its
child's start-up included); it is reported as printed. A tree's ratio is its marginal rate
over the baseline's (``--before``), measured in the same run on the same adapter. Each run's
CPU time (user + system, with the processes it waited for) is reported too: the marginal CPU
milliseconds per case of ``check`` and the CPU seconds of ``fuzz``, steadier than wall times on a
machine shared with other work.

Run: python benchmarks/bench_small_cases.py [--cases 1000] [--adapter NAME] [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_cases(folder: Path, n: int, seed: int) -> list[str]:
    """The first ``n`` valid fuzz cases of ``seed`` as case files in ``folder``."""
    sys.path.insert(0, str(ROOT))
    from gpuia.fuzz.engine import generate

    paths = []
    for i, value in enumerate(generate(seed, n)):
        doc = {"gpuia_case": 1, **{k: v for k, v in dict(value).items() if k != "gpuia_case"},
               "name": f"fuzz-{seed}-{i}"}
        path = folder / f"case-{i:05d}.json"
        path.write_text(json.dumps(doc) + "\n")
        paths.append(str(path))
    return paths


# Drivers keep compiled shaders on disk between processes (NVIDIA's shader cache, Mesa's): a
# later run would find the pipelines an earlier one compiled and look faster for it. Off by
# default, so every run, of either tree, compiles what it draws, as a first run does.
DRIVER_CACHE_OFF = {"__GL_SHADER_DISK_CACHE": "0", "MESA_SHADER_CACHE_DISABLE": "true",
                    "MESA_DISK_CACHE_SINGLE_FILE": "0"}


CPU_SECONDS: list[float] = []
"""CPU seconds (user + system, the process and its children) of each :func:`run_gpuia` run, in
order: on a machine shared with other work the wall time moves with their load, the CPU time
much less."""


def run_gpuia(tree: Path, args: list[str], driver_cache: bool = False,
              ) -> tuple[float, str, int]:
    """(seconds, output, exit status) of ``python -m gpuia ARGS`` importing gpuia from ``tree``,
    with the drivers' shader disk caches off unless ``driver_cache``; its CPU seconds go to
    :data:`CPU_SECONDS`."""
    import resource

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tree)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    if not driver_cache:
        env.update(DRIVER_CACHE_OFF)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "gpuia", *args], env=env, capture_output=True,
                       text=True, cwd=tree)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU_SECONDS.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return wall, p.stdout + p.stderr, p.returncode


def measure(tree: Path, cases: list[str], warm: int, adapter: list[str], seed: int,
            extra: list[str], driver_cache: bool) -> dict:
    full, out, rc = run_gpuia(tree, ["check", *cases, "--no-progress", *adapter, *extra],
                              driver_cache)
    full_cpu = CPU_SECONDS[-1]
    statuses = {k: len(re.findall(rf": {k}\b", out)) for k in ("OK", "DIFFERENT")}
    if rc not in (0, 1):  # 2: a case refused; its line is in the output
        statuses["exit_status"] = rc
    few, _, _ = run_gpuia(tree, ["check", *cases[:warm], "--no-progress", *adapter, *extra],
                          driver_cache)
    few_cpu = CPU_SECONDS[-1]
    n = len(cases)
    fuzz_s, fuzz_out, _ = run_gpuia(tree, ["fuzz", "--cases", str(n), "--seed", str(seed),
                                           "--out", tempfile.mkdtemp(), *adapter],
                                    driver_cache)
    rate = re.search(r"\(([\d.]+) cases/s", fuzz_out)
    return {"check_seconds": full, "check_warm_seconds": few,
            "check_cpu_seconds": full_cpu, "check_warm_cpu_seconds": few_cpu,
            "check_marginal_cpu_ms_per_case": 1e3 * (full_cpu - few_cpu) / max(n - warm, 1),
            "fuzz_cpu_seconds": CPU_SECONDS[-1],
            "check_cases_per_s": n / full,
            "check_marginal_cases_per_s": (n - warm) / max(full - few, 1e-9),
            "check_lines": statuses, "fuzz_seconds": fuzz_s,
            "fuzz_cases_per_s": float(rate.group(1)) if rate else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--warm", type=int, default=20, help="cases of the start-up run (20)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--before", default=None, metavar="DIR",
                    help="an earlier checkout of gpuia (its root) to measure side by side")
    ap.add_argument("--check-jobs", type=int, default=None, metavar="N",
                    help="this tree's check with --jobs N (default: its default)")
    ap.add_argument("--driver-cache", action="store_true",
                    help="leave the drivers' shader disk caches on (default off: every run "
                         "compiles its pipelines)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "small_cases.json"))
    args = ap.parse_args()
    adapter = ["--adapter", args.adapter] if args.adapter else []
    with tempfile.TemporaryDirectory() as tmp:
        cases = write_cases(Path(tmp), args.cases, args.seed)
        trees = {"this tree": ROOT}
        if args.before:
            trees = {"before": Path(args.before).resolve(), **trees}
        result: dict = {"machine": platform.node(), "cpus": os.cpu_count(),
                        "adapter": args.adapter, "cases": args.cases, "seed": args.seed,
                        "check_jobs": args.check_jobs, "driver_cache": args.driver_cache,
                        "trees": {}}
        for name, tree in trees.items():
            extra = (["--jobs", str(args.check_jobs)]
                     if args.check_jobs is not None and name == "this tree" else [])
            result["trees"][name] = measure(tree, cases, args.warm, adapter, args.seed, extra,
                                            args.driver_cache)
    print(f"{args.cases} fuzz cases (seed {args.seed}) on {args.adapter or 'the default adapter'}")
    print(f"{'tree':10s} {'check cases/s':>14s} {'marginal':>9s} {'CPU ms/case':>12s} "
          f"{'fuzz cases/s':>13s} {'fuzz CPU s':>11s}")
    for name, r in result["trees"].items():
        fuzz = f"{r['fuzz_cases_per_s']:.1f}" if r["fuzz_cases_per_s"] else "-"
        print(f"{name:10s} {r['check_cases_per_s']:14.1f} "
              f"{r['check_marginal_cases_per_s']:9.1f} "
              f"{r['check_marginal_cpu_ms_per_case']:12.1f} {fuzz:>13s} "
              f"{r['fuzz_cpu_seconds']:11.1f}   {r['check_lines']}")
    if "before" in result["trees"]:
        b, a = result["trees"]["before"], result["trees"]["this tree"]
        result["ratio_check_marginal"] = (a["check_marginal_cases_per_s"]
                                          / b["check_marginal_cases_per_s"])
        if a["fuzz_cases_per_s"] and b["fuzz_cases_per_s"]:
            result["ratio_fuzz"] = a["fuzz_cases_per_s"] / b["fuzz_cases_per_s"]
        print(f"ratio this tree / before: check {result['ratio_check_marginal']:.2f}x, fuzz "
              f"{result.get('ratio_fuzz', float('nan')):.2f}x (target >= 5)")
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
