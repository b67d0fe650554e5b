"""Peak host memory and time of one large cross-check as ``gpuia check`` runs it: above
``gpuia.harness.windowed.WINDOWED_ABOVE`` invocations in windows of invocations (the reference of
a window, the capture records it reads, assembly and comparison, summed over the windows), below
it the whole-array steps (the CPU reference, the GPU capture, assembly, comparison); each size in
a process of its own so that its peak RSS is its own.

Draws: ``points`` (an N-vertex POINTLIST, N distinct vertices) and ``mesh`` (an indexed
TRIANGLELIST of N indices over a vertex grid, a real mesh's reuse), both with the 3-element layout
of bench_gpu_paths.py. Reported per draw and size: seconds per step, total, peak RSS (the child's
``ru_maxrss``) and the RSS per delivered vertex, against the process's RSS before the case was made
(the baseline measured in the same child).

Run: python benchmarks/bench_memory.py [--sizes 10000000,100000000] [--adapter NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(n: int, mesh: bool, adapter: str | None) -> dict:
    sys.path.insert(0, str(HERE))
    from bench_gpu_paths import capture_breakdown

    from gpuia.gpu import get_device

    dev = get_device(adapter)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    steps, summary, path = capture_breakdown(dev, n, mesh)  # its total leaves out making data
    return {"vertices": n, "draw": "mesh" if mesh else "points", "path": path,
            "summary": summary, "seconds": steps["total"], "steps": steps,
            "adapter": dev.info["summary"], "baseline_rss_mib": base // 1024,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000000")
    ap.add_argument("--draws", default="mesh,points")
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--mesh", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(HERE / "results" / "memory.json"))
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.mesh, args.adapter)))
        return 0
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        for draw in args.draws.split(","):
            cmd = [sys.executable, __file__, "--child", str(n)] + (["--mesh"] if draw == "mesh"
                                                                    else [])
            cmd += ["--adapter", args.adapter] if args.adapter else []
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                rows.append({"vertices": n, "draw": draw, "error": f"over {args.timeout:g} s"})
                continue
            line = p.stdout.strip().splitlines()[-1:] if p.returncode == 0 else []
            rows.append(json.loads(line[0]) if line else
                        {"vertices": n, "draw": draw, "error": p.stderr.strip()[-600:]})
    print(f"{'draw':7s} {'vertices':>11s} {'seconds':>8s} {'peak RSS MiB':>13s} "
          f"{'bytes/vertex':>13s}  result")
    for r in rows:
        if "error" in r:
            print(f"{r['draw']:7s} {r['vertices']:11d}  error: {r['error'].splitlines()[-1]}")
            continue
        per = (r["peak_rss_mib"] - r["baseline_rss_mib"]) * (1 << 20) / r["vertices"]
        print(f"{r['draw']:7s} {r['vertices']:11d} {r['seconds']:8.2f} {r['peak_rss_mib']:13d} "
              f"{per:13.0f}  {r['summary'][:60]}")
        print("        " + ", ".join(f"{k.strip()} {v:.2f}" for k, v in r["steps"].items()))
    Path(args.out).write_text(json.dumps({"machine": platform.node(), "cpus": os.cpu_count(),
                                          "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
