"""Throughput of the numpy CPU reference Input Assembler on this machine.

Run from the repository root::

    .venv/bin/python benchmarks/bench_reference.py            # 1M vertices, 7 repeats
    .venv/bin/python benchmarks/bench_reference.py --quick    # 100k vertices, 3 repeats

Every timing is the minimum of N runs (``time.perf_counter``) after one warm-up run. Each gpuia
measurement is paired with a "plain numpy" baseline measured in the same run: the cheapest honest
numpy code that reads the same bytes into an ``(n, components)`` array. ``ratio`` is gpuia's time
divided by the baseline's (1.0 = as fast as plain numpy, 3.0 = three times slower).

Measurements:

* decode, per format (R8G8B8A8_UNORM, R32G32B32_FLOAT) and per vertex layout (stride 16 with the
  element at offset 0; stride 20 with it at offset 4): a non-indexed POINTLIST ``DrawInstanced``
  of n vertices with a one-element layout through ``gpuia.reference.run_ia``, and the same
  elements through ``gather_words`` + ``decode_words`` directly. Target: >= 20 M elements/s.
* full draw: n vertices, three elements (R32G32B32_FLOAT POSITION at 0, R8G8B8A8_UNORM COLOR at 12,
  R16G16_FLOAT TEXCOORD at 16) interleaved in one slot of stride 20, an indexed TRIANGLESTRIP
  ``DrawIndexedInstanced`` with R32_UINT indices and strip cut value 0xFFFFFFFF, a cut at every
  64th index position. The non-cut indices are a fixed random permutation of the n vertices, so
  the draw delivers exactly n vertices, each fetched once, in scattered order. Target: < 1 s.

The table is printed and written as JSON (``benchmarks/results/reference.json``; with ``--quick``
``reference-quick.json``), together with the machine it ran on.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gpuia import DrawIndexedInstanced, DrawInstanced, IndexBufferView, VertexBufferView  # noqa: E402
from gpuia.d3d.formats import format_info  # noqa: E402
from gpuia.d3d.layout import InputLayout  # noqa: E402
from gpuia.reference import decode_words, gather_words, run_ia  # noqa: E402

DECODE_TARGET_MEPS = 20.0  # million elements per second
DRAW_TARGET_S = 1.0
CUT = 0xFFFFFFFF
CUT_EVERY = 64
TARGET_VERTICES = 1_000_000


def _verdict(n: int, ok: bool) -> bool | None:
    """Targets are stated for 1M vertices; other sizes get no verdict (None)."""
    return ok if n == TARGET_VERTICES else None


def best_of(fn, repeats: int) -> float:
    """Minimum wall time of ``repeats`` calls after one warm-up call."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


# -- plain numpy baselines -----------------------------------------------------------------------
def _element_view(buf: np.ndarray, n: int, stride: int, offset: int, dtype: str, count: int):
    """A strided (n, count) view of one element of every vertex; no copy."""
    return np.ndarray((n, count), dtype=dtype, buffer=buf, offset=offset,
                      strides=(stride, np.dtype(dtype).itemsize))


def baseline_unorm8x4(buf, n, stride, offset):
    out = _element_view(buf, n, stride, offset, "u1", 4).astype(np.float32)
    out /= np.float32(255)
    return out


def baseline_float32x3(buf, n, stride, offset):
    return _element_view(buf, n, stride, offset, "<f4", 3).copy()


BASELINES = {"R8G8B8A8_UNORM": baseline_unorm8x4, "R32G32B32_FLOAT": baseline_float32x3}

VERTEX_DTYPE = np.dtype({"names": ["pos", "col", "tex"],
                         "formats": [("<f4", 3), ("u1", 4), ("<f2", 2)],
                         "offsets": [0, 12, 16], "itemsize": 20})
"""One vertex of the full draw (used to fill the buffer; indexing a structured array is slower
than the byte-row gather of the baseline)."""


def baseline_draw(vbuf, ibuf):
    """Gather the three elements of the vertices the index buffer names (cuts dropped): one
    ``np.take`` of whole 20-byte vertices, then one conversion per element."""
    idx = np.frombuffer(ibuf, dtype="<u4")
    idx = idx[idx != CUT]
    rows = np.take(vbuf.reshape(-1, 20), idx, axis=0)
    pos = rows[:, 0:12].copy().view("<f4")
    col = rows[:, 12:16].astype(np.float32)
    col /= np.float32(255)
    tex = rows[:, 16:20].copy().view("<f2").astype(np.float32)
    return pos, col, tex


# -- measurements --------------------------------------------------------------------------------
def bench_decode(fmt_name: str, stride: int, offset: int, n: int, repeats: int, rng):
    fmt = format_info(fmt_name)
    buf = rng.integers(0, 256, size=n * stride, dtype=np.uint8)
    if fmt_name == "R32G32B32_FLOAT":  # finite floats, so the check below compares numbers
        _element_view(buf, n, stride, offset, "<f4", 3)[...] = rng.standard_normal((n, 3))
    layout = InputLayout([{"SemanticName": "ATTR", "Format": fmt_name,
                           "AlignedByteOffset": offset}])
    views = {0: VertexBufferView(buf, stride)}
    draw = DrawInstanced(n)
    addresses = np.arange(n, dtype=np.int64) * stride + offset
    baseline = BASELINES[fmt_name]
    comps = fmt.component_count

    def via_run_ia():
        return run_ia(layout, views, draw, topology="POINTLIST")

    def via_decode():
        return decode_words(fmt, gather_words(buf, addresses, fmt.words))

    def via_numpy():
        return baseline(buf, n, stride, offset)

    # Same bytes, same answer (bit-exact), checked once outside the timing.
    ref = baseline(buf, n, stride, offset).view(np.uint32)
    assert np.array_equal(via_run_ia().inputs["ATTR0"].bits[:, :comps], ref)
    assert np.array_equal(via_decode()[:, :comps], ref)

    t_base = best_of(via_numpy, repeats)
    rows = []
    for kind, fn in (("run_ia", via_run_ia), ("gather+decode", via_decode)):
        t = best_of(fn, repeats)
        rows.append({
            "name": f"decode {fmt_name} stride {stride} offset {offset} [{kind}]",
            "group": "decode", "format": fmt_name, "stride": stride, "offset": offset,
            "path": kind, "elements": n, "seconds": t, "meps": n / t / 1e6,
            "baseline_seconds": t_base, "baseline_meps": n / t_base / 1e6,
            "ratio": t / t_base, "target": f">= {DECODE_TARGET_MEPS:g} M elements/s",
            "meets_target": _verdict(n, n / t / 1e6 >= DECODE_TARGET_MEPS),
        })
    return rows


def make_draw(n: int, rng):
    """Vertex bytes (stride 20) and R32_UINT indices: a permutation of range(n) with a cut at
    every 64th index position. Returns (vbuf, ibuf, index_count)."""
    vbuf = rng.integers(0, 256, size=n * 20, dtype=np.uint8)
    rec = vbuf.view(VERTEX_DTYPE)
    rec["pos"] = rng.standard_normal((n, 3))
    rec["tex"] = rng.random((n, 2))
    perm = rng.permutation(n).astype(np.uint32)
    per_run = CUT_EVERY - 1
    runs = -(-n // per_run)
    index_count = n + runs - 1  # a cut after every full run of 63, none trailing
    ibuf = np.full(index_count, CUT, dtype="<u4")
    positions = np.arange(n)
    ibuf[positions + positions // per_run] = perm
    return vbuf, ibuf, index_count


def bench_draw(n: int, repeats: int, rng):
    vbuf, ibuf, index_count = make_draw(n, rng)
    layout = InputLayout([
        {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT", "AlignedByteOffset": 0},
        {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "AlignedByteOffset": 12},
        {"SemanticName": "TEXCOORD", "Format": "R16G16_FLOAT", "AlignedByteOffset": 16},
    ])
    views = {0: VertexBufferView(vbuf, 20)}
    ib = IndexBufferView(ibuf, "R32_UINT")
    draw = DrawIndexedInstanced(index_count)

    def via_run_ia():
        return run_ia(layout, views, draw, topology="TRIANGLESTRIP", index_buffer=ib,
                      strip_cut_value="0xFFFFFFFF")

    def via_numpy():
        return baseline_draw(vbuf, ibuf)

    ia = via_run_ia()
    pos, col, tex = via_numpy()
    assert len(ia) == n
    assert np.array_equal(ia.inputs["POSITION0"].bits[:, :3], pos.view(np.uint32))
    assert np.array_equal(ia.inputs["COLOR0"].bits, col.view(np.uint32))
    assert np.array_equal(ia.inputs["TEXCOORD0"].bits[:, :2], tex.view(np.uint32))
    primitives = int(ia.statistics["IAPrimitives"])
    del ia

    t_base = best_of(via_numpy, repeats)
    t = best_of(via_run_ia, repeats)
    return [{
        "name": f"indexed TRIANGLESTRIP, 3 elements, cut every {CUT_EVERY} [run_ia]",
        "group": "draw", "path": "run_ia", "elements": 3 * n, "vertices": n,
        "index_count": index_count, "primitives": primitives, "seconds": t,
        "meps": 3 * n / t / 1e6, "baseline_seconds": t_base,
        "baseline_meps": 3 * n / t_base / 1e6, "ratio": t / t_base,
        "target": f"< {DRAW_TARGET_S:g} s", "meets_target": _verdict(n, t < DRAW_TARGET_S),
    }]


# -- machine and output --------------------------------------------------------------------------
def machine() -> dict:
    model = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "cpu_model": model or platform.processor() or None,
        "logical_cpus": os.cpu_count(),
        "usable_cpus": usable,
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
    }


def print_table(rows) -> None:
    header = ["benchmark", "time (ms)", "M elem/s", "numpy (ms)", "ratio", "target"]
    lines = [[r["name"], f"{r['seconds'] * 1e3:.1f}", f"{r['meps']:.1f}",
              f"{r['baseline_seconds'] * 1e3:.1f}", f"{r['ratio']:.2f}",
              {True: "ok ", False: "MISS ", None: "n/a "}[r["meets_target"]] + r["target"]]
             for r in rows]
    widths = [max(len(h), *(len(line[c]) for line in lines)) for c, h in enumerate(header)]

    def fmt(cells):
        return "  ".join(c.ljust(w) if i in (0, 5) else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    print(fmt(header))
    print(fmt(["-" * w for w in widths]))
    for line in lines:
        print(fmt(line))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="100k vertices and 3 repeats")
    p.add_argument("--vertices", type=int, help="vertex count (default 1,000,000; quick 100,000)")
    p.add_argument("--repeats", type=int, help="timed runs per measurement (default 7; quick 3)")
    p.add_argument("--out", type=Path, help="JSON output path")
    args = p.parse_args(argv)
    n = args.vertices or (100_000 if args.quick else TARGET_VERTICES)
    repeats = args.repeats or (3 if args.quick else 7)
    out = args.out or ROOT / "benchmarks" / "results" / (
        "reference-quick.json" if args.quick else "reference.json")

    rng = np.random.default_rng(12345)
    rows = []
    for fmt_name in ("R8G8B8A8_UNORM", "R32G32B32_FLOAT"):
        for stride, offset in ((16, 0), (20, 4)):
            rows += bench_decode(fmt_name, stride, offset, n, repeats, rng)
    rows += bench_draw(n, repeats, rng)

    info = machine()
    print(f"gpuia CPU reference, {n:,} vertices, min of {repeats} runs; "
          f"{info['cpu_model']}, {info['usable_cpus']} CPUs, numpy {info['numpy']}, "
          f"Python {info['python']}")
    print("ratio = gpuia time / plain numpy time for the same bytes"
          + ("" if n == TARGET_VERTICES else "; targets apply to 1,000,000 vertices only"))
    print()
    print_table(rows)

    doc = {
        "benchmark": "reference",
        "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "quick": bool(args.quick),
        "vertices": n,
        "repeats": repeats,
        "timing": "min of repeats after one warm-up, time.perf_counter",
        "ratio": "gpuia seconds / plain numpy seconds for the same bytes",
        "machine": info,
        "results": rows,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"\nwritten: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
