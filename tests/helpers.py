"""What more than one test module uses: the repository's paths and shared test data.

Imported by name (``from helpers import ...``): pytest puts tests/ on ``sys.path``
(``pythonpath`` in pyproject.toml), so every folder under tests/ sees this module. Nothing here
touches a GPU adapter when imported; the helpers that draw take a gpuia Device as an argument.
Expected values stay in the tests: a helper builds inputs or runs a step, it never computes what
a test asserts.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import NamedTuple

from gpuia.harness.case import load_case
from gpuia.harness.compare import compare, comparison_table
from gpuia.harness.run import reference_ia
from gpuia.harness.run_gpu import run_case_gpu

# -- paths -------------------------------------------------------------------------------------
REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"
DATA = TESTS / "data"
GOLDEN_DIR = TESTS / "golden" / "wgsl"
EXAMPLE_CASES = REPO / "examples" / "cases"
EXAMPLES = sorted(EXAMPLE_CASES.glob("*.json"))
TRIANGLE = EXAMPLE_CASES / "triangle_two_slots.json"
# The layouts and SO declarations of real applications, whose notes quote their sources: the
# real-layouts demo's data is the one real-layouts.json (demos/data/); real-so-decls.json is the
# tests' own.
REAL_LAYOUTS = REPO / "demos" / "data" / "real-layouts.json"
REAL_SO_DECLS = DATA / "layouts" / "reference" / "real-so-decls.json"
# The command that rewrites the golden WGSL files (named in each file's header and in failures).
REGENERATE_GOLDEN = "pytest tests/unit/test_wgsl_golden.py --regenerate-golden"


# -- the command line, as a user runs it ----------------------------------------------------------
CLI_TIMEOUT = 300  # seconds: a bound on a hang, not a speed requirement


def gpuia_cli(*args, stdin: str | None = None, cwd=None, timeout: float = CLI_TIMEOUT,
              env=None) -> subprocess.CompletedProcess:
    """``python -m gpuia ARGS`` in a child process (from the repository root unless ``cwd``),
    its output captured as text."""
    return subprocess.run([sys.executable, "-m", "gpuia", *map(str, args)], input=stdin,
                          capture_output=True, text=True, timeout=timeout, cwd=cwd or REPO,
                          env=env, check=False)


def gpuia_in_process(*args) -> subprocess.CompletedProcess:
    """``gpuia ARGS`` through :func:`gpuia.cli.main` in this process, from the repository root,
    as :func:`gpuia_cli` returns it (exit status, standard output and error as text): for tests
    of what a command prints and exits with, not of the process itself (its start, signals,
    children or environment), without a Python start per command line."""
    import contextlib
    import io

    from gpuia.cli import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(REPO)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's refusals and --help: Python's exit status
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    finally:
        os.chdir(cwd)
    return subprocess.CompletedProcess(["gpuia", *argv], code, out.getvalue(), err.getvalue())


def assert_one_error_line(proc: subprocess.CompletedProcess, *says: str,
                          case: str | None = None) -> str:
    """Exit 2, exactly one stderr line ``error: ...`` (``error: <case>: ...`` when ``case`` is
    given) holding each of ``says`` and more than its prefix, no traceback anywhere. Returns the
    line."""
    stdout = proc.stdout or ""  # None where the test sent stdout elsewhere
    assert proc.returncode == 2, (proc.returncode, stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "Traceback" not in stdout, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    prefix = "error: " if case is None else f"error: {case}: "
    assert lines[0].startswith(prefix) and len(lines[0]) > len(prefix), lines[0]
    for s in says:
        assert s in lines[0], (s, lines[0])
    return lines[0]


def valid_case(**overrides) -> dict:
    """A valid 4-point case document (no name field: a file of it is named by its stem)."""
    doc = {
        "gpuia_case": 1,
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 8,
                            "data": {"dtype": "float32",
                                     "values": [[0, 0], [1, 0], [0, 1], [1, 1]]}}],
        "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": 4, "InstanceCount": 1,
                                   "StartVertexLocation": 0, "StartInstanceLocation": 0}},
    }
    doc.update(overrides)
    return doc


def write_case(folder: Path, stem: str, doc) -> Path:
    """``folder/stem.json`` holding ``doc`` (a dict as JSON, a str as it is)."""
    p = folder / f"{stem}.json"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return p


def f32bits(x: float) -> int:
    """The bits of ``x`` as a float32 (by struct, not by gpuia)."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


# -- WGSL vertex shaders (tests/unit/test_wgsl_bounds.py, tests/gpu/test_wgsl_bounds_gpu.py) -----
BOUNDS_HEAD = ("struct VSIn { A: f32, SV_VertexID: u32 }\n"
               "struct VSOut { SV_Position: vec4<f32>, B: f32 }\n")


def array_shader(module: str = "", local: str = "", n: str = "N") -> str:
    """A vertex shader filling array ``big`` (declared by ``module`` or ``local``) with
    0, 1, 2, ... and returning B = big[(7 * SV_VertexID) % n] + A."""
    return (BOUNDS_HEAD + module + "@vertex fn main(input: VSIn) -> VSOut {\n"
            f"  {local}\n"
            "  var o: VSOut;\n"
            f"  for (var i = 0u; i < {n}; i++) {{ big[i] = f32(i); }}\n"
            f"  o.B = big[(input.SV_VertexID * 7u) % {n}] + input.A;\n"
            "  o.SV_Position = vec4<f32>(0.0, 0.0, 0.0, 1.0);\n"
            "  return o;\n"
            "}\n")


UNIFORM_HEAD = "@group(3) @binding(0) var<uniform> cb: {t};\n"
# A struct holding a matrix of {c} columns and 2 rows, then a vec4.
TWO_ROW_STRUCT = "struct S { m: mat{c}x2<f32>, x: vec4<f32> }"


def uniform_shader(decls: str, t: str, use: str) -> str:
    """A vertex shader declaring ``decls``, root constant buffer 0 as ``var<uniform> cb: t``,
    and B = ``r`` (computed by ``use``) + A."""
    return (BOUNDS_HEAD + decls + "\n" + UNIFORM_HEAD.format(t=t)
            + "@vertex fn main(input: VSIn) -> VSOut {\n"
            "  var o: VSOut;\n"
            f"  {use}\n"
            "  o.B = r + input.A;\n"
            "  o.SV_Position = vec4<f32>(0.0, 0.0, 0.0, 1.0);\n"
            "  return o;\n"
            "}\n")


# A WGSL vertex shader with a type error on line 5, column 7 (the ``x`` of ``let x``)
# (tests/unit/test_wgsl_diagnostics.py, tests/gpu/test_wgsl_diagnostics_gpu.py).
TYPE_ERROR_VS = """struct VSIn { @location(0) A: f32 }
struct VSOut { @builtin(position) SV_Position: vec4<f32>, B: f32 }
@vertex fn main(input: VSIn) -> VSOut {
  var o: VSOut;
  let x: u32 = 1.5;
  o.SV_Position = vec4<f32>(input.A);
  return o;
}
"""


# -- semantic names that would end a WGSL comment or program -------------------------------------
# (tests/unit/test_wgsl_safe_text.py, tests/gpu/test_wgsl_safe_text_gpu.py)
ODD_NAMES = ["A\nB", "C\rD", "E\u2028F", "G\0H", "I\u2029J", "K\x85L"]


def odd_names_case(so: bool = False):
    """A point list of 3 vertices whose R32_FLOAT elements are named ``ODD_NAMES``; element k of
    vertex v holds 10 v + k. With ``so``, Stream Output records "A\\nB" and "G\\0H"."""
    layout = [{"SemanticName": n, "Format": "R32_FLOAT", "AlignedByteOffset": 4 * i}
              for i, n in enumerate(ODD_NAMES)]
    doc = {"gpuia_case": 1, "name": "odd_names", "input_layout": layout,
           "vertex_buffers": [{"slot": 0, "stride": 4 * len(ODD_NAMES),
                               "data": {"dtype": "float32",
                                        "values": [float(10 * v + k) for v in range(3)
                                                   for k in range(len(ODD_NAMES))]}}],
           "primitive_topology": "POINTLIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}}}
    if so:
        doc["stream_output"] = {"declaration": [{"SemanticName": "A\nB", "ComponentCount": 1},
                                                {"SemanticName": "G\0H", "ComponentCount": 1}],
                                "targets": [{"slot": 0, "size": 64}]}
    return load_case(doc)


# -- every adapter ------------------------------------------------------------------------------
def every_adapter_device() -> tuple[list, dict]:
    """A new gpuia Device on each adapter wgpu lists that makes one, and for the others why not
    (adapter summary -> the UnsupportedError's text; NVIDIA's OpenGL adapter makes none:
    docs/known-adapter-issues.md). Raises UnsupportedError when wgpu lists no adapter."""
    from gpuia.errors import UnsupportedError
    from gpuia.gpu import Device
    from gpuia.gpu.adapters import select_adapters

    made, unavailable = [], {}
    for adapter in select_adapters(None, None):
        try:
            made.append(Device(adapter))
        except UnsupportedError as e:
            unavailable[adapter.summary] = str(e)
    return made, unavailable


# -- a case on the GPU against the reference ------------------------------------------------------
class GpuCheck(NamedTuple):
    case: object  # the loaded Case
    ref: object  # the reference's IAResult
    res: object  # the GPU's run
    cmp: object  # the Comparison


def pulled_form_device(device, form: str):
    """A copy of the gpuia ``device`` whose pulling path reads its words in ``form`` whatever
    the adapter's own: ``"attributes"`` (the ``attribute-fetch`` quirk row added: raw words
    through vertex attributes where the plan allows them) or ``"storage"`` (the row dropped:
    storage loads everywhere). Buffers of the original do not bind on the copy (each Device
    owns its own); the copy shares the wgpu device and its pipeline cache."""
    import copy
    import dataclasses

    from gpuia.gpu.quirks import ATTRIBUTE_FETCH, QUIRKS

    assert form in ("attributes", "storage"), form
    kept = tuple(q for q in device.caps.quirks if q.effect != ATTRIBUTE_FETCH)
    if form == "attributes":
        kept += tuple(q for q in QUIRKS if q.effect == ATTRIBUTE_FETCH)
    other = copy.copy(device)
    other.caps = dataclasses.replace(device.caps, quirks=kept)
    return other


def check_gpu(case_dict, device, path, context=None, exact=False) -> GpuCheck:
    """Run a case dict through ``path`` and assert that every draw was planned on ``path``, the
    GPU delivered what the reference did, with the reference's IAVertices.

    The comparison is gpuia's own (``compare(ref, res, layout)``): bit-exact, NaN by class, plus
    the documented 1-ulp allowance for UNORM/SNORM elements on the native path only (the pulling
    path tolerates nothing). ``exact`` drops that allowance (``compare(ref, res)``, the reading
    of rules 2.2/2.3)."""
    case = load_case(case_dict)
    ref = reference_ia(case)
    res = run_case_gpu(case, device, path, ref, context=context)
    assert [p.path for p in res.plans] == [path] * len(case.draws), [p.path for p in res.plans]
    cmp = compare(ref, res) if exact else compare(ref, res, case.layout)
    assert cmp.ok, (f"{case.name} ({path}): {cmp.summary()}\n"
                    + comparison_table(ref, res, cmp, only_differences=True))
    if path == "pulling":
        assert cmp.tolerated == 0
    assert res.ia.statistics["IAVertices"] == ref.statistics["IAVertices"]
    return GpuCheck(case, ref, res, cmp)


def so_points_context(dev, fmt: str, components: int, views):
    """A POINTLIST Context on ``dev`` whose one element ``A`` (``fmt``) is streamed out, its first
    ``components`` components, with ``views`` bound from IA slot 0 and no SO target yet."""
    from gpuia import InputLayout, SODeclarationEntry, StreamOutputDesc
    from gpuia.gpu import Context, PipelineState

    ctx = Context(dev)
    ctx.set_pipeline_state(PipelineState(
        InputLayout([{"SemanticName": "A", "Format": fmt}]),
        stream_output=StreamOutputDesc((SODeclarationEntry(semantic_name="A",
                                                           component_count=components),))))
    ctx.ia_set_primitive_topology("POINTLIST")
    ctx.ia_set_vertex_buffers(0, views)
    return ctx


# -- scripts that draw in a child process ----------------------------------------------------------
# Whatever could reach wgpu with bad input runs in a child process: wgpu-py 0.32 aborts the whole
# process on a validation error at submit, which must fail one test, not end the session. A
# script is SCRIPT_PRELUDE, the test module's own definitions, then its body; it prints one line
# per call, "KIND label | part | part", and "OK" last.
SCRIPT_TIMEOUT = 300  # seconds per script
SCRIPT_MEMORY = 8 << 30  # bytes of address space per script; lavapipe runs fine under it

SCRIPT_PRELUDE = r'''
import os, resource, sys
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
resource.setrlimit(resource.RLIMIT_AS, (MEMORY_GUARD, MEMORY_GUARD))
import json
from pathlib import Path

import numpy as np

from gpuia import (IndexBufferView, InputElementDesc, InputLayout, SODeclarationEntry,
                   StreamOutputBufferView, StreamOutputDesc, VertexBufferView)
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare
from gpuia.errors import GpuiaError
from gpuia.gpu import Context, Device, PipelineState
from gpuia.harness.run_gpu import run_case_gpu
from gpuia.harness.run import reference_ia

CASES = Path(CASES_DIR)
dev = Device()


def one_line(text):
    return " ".join(str(text).split())[:600]


def bad(label, fn):
    """Run one call that must be refused; report what it raised (a gpuia error by its class
    name, anything else by its full name)."""
    try:
        fn()
    except GpuiaError as e:
        print(f"BAD {label} | {type(e).__name__} | {one_line(e)}", flush=True)
    except BaseException as e:
        print(f"BAD {label} | {type(e).__module__}.{type(e).__qualname__} | {one_line(e)}",
              flush=True)
    else:
        print(f"BAD {label} | - | no exception", flush=True)
'''


def script_text(definitions: str, body: str) -> str:
    """The text of one child script: SCRIPT_PRELUDE, then ``definitions`` (the module's own
    helpers for its scripts), then ``body`` (dedented)."""
    prelude = SCRIPT_PRELUDE + textwrap.dedent(definitions)
    prelude = (prelude.replace("MEMORY_GUARD", str(SCRIPT_MEMORY))
               .replace("CASES_DIR", repr(str(EXAMPLE_CASES))))
    return prelude + textwrap.dedent(body)


def run_script(text: str) -> tuple[subprocess.CompletedProcess, dict]:
    """Run a child script from the repository root: the process, and its report lines by kind
    and label (``{"BAD": {label: [part, part]}, ...}``; a kind with no line is absent)."""
    proc = subprocess.run([sys.executable, "-c", text], capture_output=True, text=True,
                          timeout=SCRIPT_TIMEOUT, cwd=REPO)
    lines: dict = {}
    for line in proc.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind.isupper() and " | " in rest:
            label, *parts = [p.strip() for p in rest.split(" | ", 2)]
            lines.setdefault(kind, {})[label] = parts
    return proc, lines


def describe(proc: subprocess.CompletedProcess) -> str:
    """A child's exit status (by signal name when killed) and the tails of its output."""
    rc = proc.returncode
    what = f"rc={rc}"
    if rc < 0:
        what += f" (killed by {signal.Signals(-rc).name})"
    elif rc == 134:
        what += " (abort: e.g. a wgpu validation error reached queue.submit)"
    return (f"{what}\n--- stdout (tail)\n{proc.stdout[-3000:]}\n"
            f"--- stderr (tail)\n{proc.stderr[-3000:]}")


# -- processes (Linux: read from /proc) --------------------------------------------------------
def descendants(pid: int) -> set[int]:
    """Every process under ``pid`` (children, their children...), as /proc lists them now."""
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            kids.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def process_name(pid: int) -> str:
    """The process's command name (``/proc/PID/comm``), or "" when it is gone."""
    try:
        return (Path("/proc") / str(pid) / "comm").read_text().strip()
    except OSError:
        return ""


def command_line(pid: int) -> list[str]:
    """The process's arguments (``/proc/PID/cmdline``), or [] when it is gone."""
    try:
        raw = (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode("utf-8", "replace").split("\0")[:-1]


def workers_of(pid: int, module: str) -> set[int]:
    """The processes under ``pid`` that run ``python -m MODULE``, not any other child."""
    return {q for q in descendants(pid) if module in command_line(q)}


def _state(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "X"


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:  # it ended (the run did)
        pass


def kill_busy_worker(workers: set[int], tmp: Path, seconds: float) -> int | None:
    """SIGKILL one of ``workers`` (``gpuia check --workers`` children whose ``TMPDIR`` is
    ``tmp``) while every one of them is inside a case, and return its pid; None when that was
    not seen within ``seconds``. A worker holds a folder ``gpuia-check-*`` of the pool's
    folder from the start of a case until before its answer (gpuia.cli.check_child), so with
    all of them stopped (SIGSTOP), as many such folders as workers means each one is in a
    case; the victim is killed while stopped, the others continue."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for pid in workers:
            _signal(pid, signal.SIGSTOP)
        stopped = wait_for(lambda: all(_state(pid) in "TtZX" for pid in workers), 10, 0.001)
        busy = len(list(tmp.glob("gpuia-workers-*/gpuia-check-*")))
        if stopped and busy == len(workers):
            victim = min(workers)
            os.kill(victim, signal.SIGKILL)
        else:
            victim = None
        for pid in workers:
            if pid != victim:
                _signal(pid, signal.SIGCONT)
        if victim is not None:
            return victim
        time.sleep(0.005)
    return None


def alive(pid: int) -> bool:
    """Whether the process runs: a zombie has ended (nobody reaps an orphan in a container)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_for(predicate, seconds: float, step: float = 0.05) -> bool:
    """Poll ``predicate`` until it is true or ``seconds`` have passed; its last value."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())


def kill_all(proc: subprocess.Popen, others=()) -> None:
    """A test's own clean-up: SIGKILL whatever is left of ``proc`` and of ``others`` (pids it
    saw under it), and reap ``proc``."""
    for pid in others:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=30)
