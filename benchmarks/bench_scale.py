"""Cases per second of ``gpuia check`` against worker processes and adapters, as ratios to one
worker measured in the same run (docs/scale-out.md, docs/benchmarks.md).

The corpus is the valid fuzzer's first N cases of ``--seed`` (as bench_small_cases.py writes
them), or with ``--triangles`` N copies of examples/cases/triangle_two_slots.json. Each point is
one ``python -m gpuia check CASES --workers W`` process, start-up included (a CI job pays it
too), the best of ``--repeat`` runs:

- workers: W = 1, 2, 4, 8, 16 (those up to the machine's CPU count) on one adapter (the one
  gpuia prefers, or ``--adapter``, a substring that should match one), and one process
  without ``--workers`` for reference;
- adapters, where ``--adapters`` (default ``all``) selects several: ``--per-adapter K`` workers
  on one adapter against K x M workers spread over the M adapters (``--adapter all --workers
  K*M``), the ratio against M (target: >= 0.85 x M on a host of M GPUs);
- start-up: the wall time of ``gpuia check`` of one small case in one process, and the lines
  it prints on stderr that are not gpuia's.

The exit status is 0 whatever the ratios (they are printed, not judged). The JSON is written
after each point (whole, atomically) and each worker count's time printed on stderr as it
comes, so a run stopped by a time limit keeps what it measured. A run that ends with an
error (exit status 2: an adapter that makes no device, say) is printed as failed with its last
stderr line, never as a speed.

Run: python benchmarks/bench_scale.py [--cases 200] [--triangles] [--repeat 3]
     [--adapter S] [--adapters all] [--per-adapter 1] [--out FILE]
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_small_cases import DRIVER_CACHE_OFF, write_cases  # noqa: E402

TRIANGLE = ROOT / "examples" / "cases" / "triangle_two_slots.json"
WORKERS = (1, 2, 4, 8, 16)


def triangles(folder: Path, n: int) -> list[str]:
    """``n`` copies of the two-slot triangle, each named after its file."""
    base = json.loads(TRIANGLE.read_text())
    paths = []
    for i in range(n):
        path = folder / f"tri_{i:05d}.json"
        path.write_text(json.dumps({**base, "name": f"tri_{i:05d}"}))
        paths.append(str(path))
    return paths


def run_check(args: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """(wall seconds, the process) of ``python -m gpuia check ARGS --no-progress``, the
    drivers' shader disk caches off (every run compiles what it draws)."""
    env = dict(os.environ, **DRIVER_CACHE_OFF)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "gpuia", "check", *args, "--no-progress"],
                       env=env, capture_output=True, text=True, cwd=ROOT, check=False)
    return time.perf_counter() - t, p


def best(args: list[str], n: int, repeat: int) -> dict:
    """The fastest of ``repeat`` runs of ``check ARGS``: seconds, cases/s, its exit status."""
    runs = [run_check(args) for _ in range(repeat)]
    seconds, proc = min(runs, key=lambda r: r[0])
    return {"seconds": round(seconds, 3), "cases_per_s": round(n / seconds, 2),
            "all_seconds": [round(s, 3) for s, _ in runs], "exit_status": proc.returncode,
            "stderr_tail": proc.stderr[-300:] if proc.returncode not in (0, 1) else ""}


def matching(adapters: str) -> list[str]:
    """The summaries of the adapters ``--adapter adapters`` selects, in wgpu's order."""
    code = ("import json, sys; from gpuia.gpu.adapters import select_adapters; "
            "print(json.dumps([a.summary for a in select_adapters(sys.argv[1])]))")
    p = subprocess.run([sys.executable, "-c", code, adapters], capture_output=True, text=True,
                       cwd=ROOT, check=False)
    return json.loads(p.stdout) if p.returncode == 0 else []


def start_up(repeat: int, adapter: list[str]) -> dict:
    """The wall time of ``check`` of one small case in one process, and its foreign stderr."""
    r = best([str(TRIANGLE), *adapter], 1, repeat)
    _, proc = run_check([str(TRIANGLE), *adapter])
    foreign = [ln for ln in proc.stderr.splitlines()
               if ln.strip() and not re.match(r"(error|warning): ", ln)]
    return {"seconds": r["seconds"], "all_seconds": r["all_seconds"],
            "foreign_stderr_lines": foreign}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--triangles", action="store_true",
                    help="copies of triangle_two_slots.json instead of fuzz cases")
    ap.add_argument("--repeat", type=int, default=3, help="runs per point, the best kept (3)")
    ap.add_argument("--adapter", default=None, help="the workers' adapter (default: gpuia's)")
    ap.add_argument("--adapters", default="all",
                    help="the adapters of the adapter series (an --adapter value; all)")
    ap.add_argument("--per-adapter", type=int, default=1, metavar="K",
                    help="workers per adapter in the adapter series (1)")
    ap.add_argument("--max-workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "scale.json"))
    args = ap.parse_args()
    adapter = ["--adapter", args.adapter] if args.adapter else []
    n = args.cases
    result: dict = {"machine": platform.node(), "cpus": os.cpu_count(),
                    "load_average": os.getloadavg(), "adapter": args.adapter, "cases": n,
                    "corpus": "triangles" if args.triangles else f"fuzz seed {args.seed}",
                    "repeat": args.repeat, "per_adapter": args.per_adapter, "workers": {},
                    "adapters": {}}
    with tempfile.TemporaryDirectory() as tmp:
        cases = triangles(Path(tmp), n) if args.triangles else \
            write_cases(Path(tmp), n, args.seed)
        result["one_process"] = best([*cases, *adapter], n, args.repeat)
        _save(result, args.out)
        for w in (w for w in WORKERS if w <= args.max_workers):
            result["workers"][w] = best([*cases, *adapter, "--workers", str(w)], n, args.repeat)
            _save(result, args.out)  # a run cut short (a time limit) keeps its points so far
            r = result["workers"][w]
            print(f"  --workers {w}: {r['seconds']:.2f} s, {r['cases_per_s']:.1f} cases/s "
                  f"(exit status {r['exit_status']})", file=sys.stderr, flush=True)
        many = matching(args.adapters)
        result["adapter_summaries"] = many
        if len(many) > 1:
            k = args.per_adapter
            result["adapters"][1] = best([*cases, *adapter, "--workers", str(k)], n,
                                         args.repeat)
            result["adapters"][len(many)] = best(
                [*cases, "--adapter", args.adapters, "--workers", str(k * len(many))], n,
                args.repeat)
    result["start_up"] = start_up(args.repeat, adapter)
    _print(result)
    _save(result, args.out)
    return 0


def _save(result: dict, out: str) -> None:
    """Write ``result`` to ``out`` whole (a temporary name, then renamed)."""
    from gpuia.util.files import write_atomic

    write_atomic(Path(out), json.dumps(result, indent=1) + "\n")


def _failed(run: dict) -> bool:
    """Whether a run ended with an error (exit status 2 and up: not every case was judged);
    1 (a case differs) still ran them all."""
    return run["exit_status"] not in (0, 1)


def _print(result: dict) -> None:
    """The table: each point's seconds, cases/s and ratio to one worker."""
    one = result["workers"][1]["cases_per_s"]
    print(f"{result['cases']} cases ({result['corpus']}) on {result['cpus']} CPUs, "
          f"{result['adapter'] or 'the default adapter'}; best of {result['repeat']}")
    print(f"{'run':28s} {'seconds':>8s} {'cases/s':>8s} {'x one worker':>13s}")
    rows = [("one process (no --workers)", result["one_process"])]
    rows += [(f"--workers {w}", r) for w, r in result["workers"].items()]
    k = result["per_adapter"]
    rows += [(f"{m} adapter(s), --workers {k * m}", r) for m, r in result["adapters"].items()]
    for name, r in rows:
        if _failed(r):  # a run that stopped early is no speed
            reason = (r["stderr_tail"].strip().splitlines() or ["?"])[-1]
            print(f"{name:28s} failed (exit status {r['exit_status']}): {reason[-160:]}")
            continue
        result.setdefault("ratios", {})[name] = round(r["cases_per_s"] / one, 3)
        print(f"{name:28s} {r['seconds']:8.2f} {r['cases_per_s']:8.1f} "
              f"{r['cases_per_s'] / one:12.2f}x")
    if len(result["adapters"]) == 2 and not any(map(_failed, result["adapters"].values())):
        (_, a1), (m, am) = result["adapters"].items()
        result["ratio_adapters"] = round(am["cases_per_s"] / a1["cases_per_s"], 3)
        print(f"{m} adapters / 1 adapter: {result['ratio_adapters']:.2f}x "
              f"(target on a host of {m} GPUs: >= {0.85 * m:.2f}x)")
    s = result["start_up"]
    print(f"check of one small case: {s['seconds']:.2f} s wall (runs {s['all_seconds']}); "
          f"stderr lines not gpuia's: {len(s['foreign_stderr_lines'])}")
    for line in s["foreign_stderr_lines"]:
        print(f"  {line}")


if __name__ == "__main__":
    sys.exit(main())
