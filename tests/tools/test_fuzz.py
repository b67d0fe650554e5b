"""gpuia fuzz: reproducible generation, the shrinker, bounded runs on the GPU (the CI bound),
crash and hang handling, and the minimal cases of the defects the fuzzer found.

Expected values come from docs/rules.md and from the injected faults themselves, never from the
code under test. tests/data/fuzz/ holds the minimal cases of the defects the fuzzer found; each
has a regression test below (a defect still open would be a strict xfail naming it).
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from gpuia.cli import main as cli_main
from gpuia.fuzz import FuzzConfig, Fuzzer, ReferenceRunner, case_digest, generate
from gpuia.fuzz.pool import Worker
from gpuia.harness.case import load_case
from helpers import DATA as TEST_DATA
from helpers import REPO, alive, descendants, gpuia_cli, kill_all, wait_for

DATA = TEST_DATA / "fuzz"
PY = sys.executable


# -- generation ------------------------------------------------------------------------------
def test_same_seed_same_cases_and_every_case_loads():
    first = generate(5, 30, so=True)
    again = generate(5, 30, so=True)
    other = generate(6, 30, so=True)
    assert [case_digest(v) for v in first] == [case_digest(v) for v in again]
    assert len({case_digest(v) for v in first} & {case_digest(v) for v in other}) <= 2  # the
    # simplest case opens every chunk
    for v in first:
        load_case(json.loads(json.dumps(v)), name="generated")  # raises if gpuia refuses it
    assert any("stream_output" in v for v in first)
    assert any("DrawIndexedInstanced" in json.dumps(v["draw"]) for v in first)


def test_seed_reproduces_in_another_process():
    """hypothesis harvests constants from imported local modules; the fuzzer neutralises that,
    so a process with other imports and another hash seed draws the same cases."""
    code = ("import json, gpuia.cli, gpuia.harness.crosscheck, gpuia.gpu\n"
            "from gpuia.fuzz import generate, case_digest\n"
            "print(json.dumps([case_digest(v) for v in generate(9, 40, so=True)]))")
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONHASHSEED="123"), cwd="/")
    assert json.loads(out.stdout) == [case_digest(v) for v in generate(9, 40, so=True)]


def test_a_run_executes_the_generated_cases_in_order():
    """30 cases: chunk 0 (16) drawn on a thread, chunk 1 by a spawned drawing process; both
    are the cases generate() draws in this process."""
    report = Fuzzer(FuzzConfig(seed=3, cases=30, paths=()), runner=ReferenceRunner(),
                    record_digests=True, out=io.StringIO(), err=io.StringIO()).run()
    assert report.cases == 30 and not report.findings
    assert report.outcomes == {"ok": 30}
    assert report.digests == [case_digest(v) for v in generate(3, 30)]


# -- shrinking -------------------------------------------------------------------------------
def _nan_in_second_instance(value, outcome):
    """An injected fake difference: a float input is NaN in an instance other than the first
    (judged on the reference's own result, so it holds for the case and nothing else)."""
    ref = outcome.reference
    if ref is None:
        return None
    for data in ref.inputs.values():
        if data.type == "float":
            nan = np.isnan(data.bits.view(np.float32)).any(axis=1) & (ref.instance >= 1)
            if nan.any():
                return "fake"
    return None


def test_shrinker_minimises_an_injected_difference(tmp_path):
    """Seed 3 draws a case showing the injected difference in its first chunk (the 9th case)
    and shrinks it in about 70 runs; seed 1 ran 114 cases first and shrank a larger case in
    about 90 runs, three times the time (the shrinking is mostly hypothesis's own work, which
    grows with the drawn case). The assertions are those of any seed."""
    out = io.StringIO()
    report = Fuzzer(FuzzConfig(seed=3, cases=500, paths=(), out=tmp_path, shrink_seconds=120),
                    runner=ReferenceRunner(), judge=_nan_in_second_instance, out=out,
                    err=io.StringIO()).run()
    (finding,) = report.findings
    assert finding.kind == "fake" and finding.shrunk
    saved = json.loads(Path(finding.path).read_text())
    original = json.loads((tmp_path / (Path(finding.path).stem + ".orig.json")).read_text())
    # The smallest case that shows it: one float element, one draw of one vertex and two
    # instances, one record of data holding the NaN.
    assert len(saved["input_layout"]) == 1
    assert isinstance(saved["draw"], dict)
    (args,) = saved["draw"].values()
    assert (args["VertexCountPerInstance"], args["InstanceCount"]) == (1, 2)
    assert "stream_output" not in saved and "index_buffer" not in saved
    (vb,) = saved["vertex_buffers"]
    assert len(bytes.fromhex(vb["data"]["hex"])) <= 16
    assert len(json.dumps(saved)) < len(json.dumps(original))
    # Still shows it, as a file gpuia loads.
    assert _nan_in_second_instance(saved, ReferenceRunner()(saved)) == "fake"
    assert "FINDING fake" in out.getvalue() and str(finding.path) in out.getvalue()


# -- bounded runs on the GPU (what CI runs) --------------------------------------------------
def test_bounded_valid_run_on_the_gpu(gpu_device, tmp_path):
    r = gpuia_cli("fuzz", "--seed", "1", "--cases", "40", "--seconds", "120", "--so",
               "--adapter", gpu_device.info["summary"], "--out", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "valid cases, seed 1: 40 cases" in r.stdout
    assert "pulling: 40 OK" in r.stdout
    assert "stream output:" in r.stdout
    assert "findings: 0" in r.stdout
    assert "reproduce: gpuia fuzz --seed 1 --cases 40 --so" in r.stdout
    assert not list(tmp_path.iterdir())


def test_bounded_invalid_run_finds_nothing(gpu_device, tmp_path):
    r = gpuia_cli("fuzz", "--invalid", "--seed", "3", "--cases", "60", "--seconds", "120", "--so",
               "--adapter", gpu_device.info["summary"], "--out", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "invalid cases, seed 3: 60 cases" in r.stdout
    assert "refused" in r.stdout and "findings: 0" in r.stdout


_ABORTING_WORKER = """
import base64, os, sys
import gpuia.cli.fuzz_child as w

def wrap(handler):
    def handle(req):
        if b'"draw"' in base64.b64decode(req["content"]):
            os.abort()  # the injected crash: any case file with a draw
        return handler(req)
    return handle

sys.exit(w.main(wrap))
"""


def test_invalid_mode_needs_children_that_run_the_command_line():
    """Invalid mode judges what the command line prints, so a Fuzzer without a runner is given
    the children's command (gpuia fuzz gives python -m gpuia.cli.fuzz_child)."""
    with pytest.raises(ValueError, match="gpuia.cli.fuzz_child"):
        Fuzzer(FuzzConfig(mode="invalid", cases=1))


def test_fuzzing_does_not_import_the_command_line():
    """The fuzzer sits beside the command line, not above it: importing the engine, the pool
    and the valid-mode child imports nothing of gpuia.cli (its invalid-mode child is the
    command line's own module)."""
    code = ("import sys, gpuia.fuzz, gpuia.fuzz.engine, gpuia.fuzz.pool, gpuia.fuzz.runs, "
            "gpuia.fuzz.worker\n"
            "print(sorted(m for m in sys.modules if m.startswith('gpuia.cli')))")
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_invalid_mode_reports_a_crashing_child_with_its_case(gpu_device, tmp_path):
    out = io.StringIO()
    config = FuzzConfig(mode="invalid", seed=2, cases=10, so=True, out=tmp_path, timeout=60,
                        shrink_seconds=1, adapter=gpu_device.info["summary"])
    report = Fuzzer(config, worker_command=[PY, "-c", _ABORTING_WORKER], out=out,
                    err=io.StringIO()).run()
    finding = report.findings[0]
    assert finding.kind == "crash"
    assert "SIGABRT" in finding.detail
    content = Path(finding.path).read_bytes()
    assert b'"draw"' in content  # the saved case still triggers the crash
    assert (tmp_path / (Path(finding.path).stem + ".orig.json")).read_bytes() == finding.original[1]
    text = Path(finding.path).with_suffix(".txt").read_text()
    assert "kind: crash" in text and "Fatal Python error: Aborted" in text
    assert "FINDING crash" in out.getvalue()


def test_worker_timeout_and_exit_become_outcomes():
    sleeper = Worker({}, [PY, "-c", ("import sys, time, json; sys.stdin.readline(); "
                                     "print(json.dumps({'ready': True}), flush=True); "
                                     "time.sleep(60)")])
    sleeper.start()
    out = sleeper.run({"id": 0}, timeout=0.5)
    assert out.status == "hang" and not sleeper.alive()
    quitter = Worker({}, [PY, "-c", ("import sys, json; sys.stdin.readline(); "
                                     "print(json.dumps({'ready': True}), flush=True); "
                                     "sys.stdin.readline(); sys.stderr.write('bye\\n'); "
                                     "sys.exit(7)")])
    quitter.start()
    out = quitter.run({"id": 0}, timeout=30)
    assert out.status == "crash" and "exited with status 7" in out.detail and "bye" in out.stderr


# -- ending the children ---------------------------------------------------------------------
_BUSY_WORKER = textwrap.dedent("""
    import json, os, sys, time
    sys.stdin.readline()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if len(sys.argv) > 1:  # a file per child that has its case
            open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
        time.sleep(600)  # a case that never ends
    """)


def test_an_interrupted_fuzz_run_kills_its_busy_children_at_once(tmp_path):
    """Children busy with cases that do not end: SIGTERM ends the run within a second or two
    (before: each child was given 5 s to finish its case, one after the other)."""
    script = textwrap.dedent(f"""
        import io, json, sys
        from gpuia.fuzz import FuzzConfig, Fuzzer
        from gpuia.util import interrupt
        config = FuzzConfig(seed=1, cases=16, paths=("native",), jobs=3, timeout=600)
        busy = [sys.executable, "-c", {_BUSY_WORKER!r}, {str(tmp_path / "busy")!r}]
        with interrupt.ending_on_signals():
            report = Fuzzer(config, worker_command=busy, out=io.StringIO(),
                            err=io.StringIO()).run()
        print(json.dumps({{"interrupted": report.interrupted}}), flush=True)
        """)
    (tmp_path / "busy").mkdir()
    # -c: the gpuia of the working folder, as `python -m gpuia` imports it
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen: set[int] = set()
    try:
        assert wait_for(lambda: len(os.listdir(tmp_path / "busy")) == 3, 120), proc.stderr
        seen = descendants(proc.pid)
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
        took = time.monotonic() - start
        assert json.loads(stdout) == {"interrupted": True}, stderr
        assert took < 3, took
        assert wait_for(lambda: not any(alive(q) for q in seen), 5)
    finally:
        kill_all(proc, seen)


def test_a_finished_fuzz_run_lets_its_children_end_their_cases_together():
    """Without a signal the children get their stdin closed and one shared deadline, not 5 s
    each: three that never end are all killed about 5 s after the close, not 15."""
    from gpuia.fuzz.pool import Pool

    pool = Pool({}, 3, [sys.executable, "-c", _BUSY_WORKER])
    pool.start()
    try:
        for w in pool.workers:
            w.send({"id": 0})
        start = time.monotonic()
        pool.close()
        took = time.monotonic() - start
    finally:
        for w in pool.workers:  # whatever is left
            if w.proc is not None:
                w.proc.kill()
                w.proc.wait()
    assert 4 < took < 8, took
    assert all(not w.alive() for w in pool.workers)


# -- the command line ------------------------------------------------------------------------
@pytest.mark.parametrize("args", [["--cases", "0"], ["--paths", "native,bogus"],
                                  ["--seed", "-1"], ["--invalid", "--paths", "none"]])
def test_bad_arguments_exit_2(args, capsys):
    with pytest.raises(SystemExit) as e:
        sys.exit(cli_main(["fuzz", *args]))
    assert e.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_a_run_in_which_no_case_ran_is_not_a_pass():
    """A time limit that passes before the first case (drawing chunk 0 alone takes longer than
    a millisecond): exit 2 and one error line saying so, not a pass; the reproduce line of the
    summary is one the parser takes (before: exit 0 and `--cases 0`, which it refuses)."""
    r = gpuia_cli("fuzz", "--seconds", "0.001", "--seed", "4", "--paths", "none")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert [line for line in r.stderr.splitlines() if line.startswith("error:")] == [
        "error: fuzz: no case ran within the time limit (0.001 s): a run that tested nothing is "
        "not a pass; give more --seconds"]
    assert "seed 4: 0 cases" in r.stdout
    (line,) = [ln for ln in r.stdout.splitlines() if ln.startswith("  reproduce: ")]
    assert line == "  reproduce: gpuia fuzz --seed 4 --seconds 0.001 --paths none"


@pytest.mark.parametrize("config, cases, expected", [
    (FuzzConfig(seed=7, cases=40), 0, {"seed": 7, "cases": 40}),
    (FuzzConfig(seed=7, seconds=60.0), 0, {"seed": 7, "cases": None, "seconds": 60.0}),
    (FuzzConfig(seed=7, seconds=60.0), 12, {"seed": 7, "cases": 12}),
    (FuzzConfig(seed=9, cases=5, so=True, mode="invalid", adapter="llvmpipe (LLVM 15.0.6, 256 "
                "bits) (CPU) via Vulkan", gpu_backend="Vulkan", capture="targets"), 5,
     {"seed": 9, "cases": 5, "so": True, "invalid": True,
      "adapter": "llvmpipe (LLVM 15.0.6, 256 bits) (CPU) via Vulkan", "gpu_backend": "Vulkan",
      "capture": "targets"}),
    (FuzzConfig(seed=0, cases=3, paths=()), 3, {"seed": 0, "cases": 3, "paths": ()}),
    (FuzzConfig(seed=2, cases=4, gs=True, mode="invalid"), 4,
     {"seed": 2, "cases": 4, "gs": True, "so": False, "invalid": True}),
    (FuzzConfig(seed=1, cases=3, paths=("auto",), adapter="it's \"quoted\""), 3,
     {"seed": 1, "cases": 3, "paths": ("auto",), "adapter": "it's \"quoted\""}),
])
def test_the_reproduce_line_is_one_the_parser_takes(config, cases, expected):
    """Parsed back as a shell would split it: the options that choose the cases and where they
    run come back as the run had them (an adapter name with spaces and quotes included)."""
    import shlex

    from gpuia.cli import build_parser
    from gpuia.fuzz import FuzzReport

    line = FuzzReport(config, cases=cases).command_line()
    argv = shlex.split(line)
    assert argv[:2] == ["gpuia", "fuzz"]
    args = build_parser().parse_args(argv[1:])
    for key, value in expected.items():
        assert getattr(args, key) == value, (key, line)


def test_jobs_default_to_the_cores_this_process_may_use(monkeypatch):
    """Two cores of a 64-core host (a container, taskset): one child, as for a 2-core machine
    (one per four cores, at least one), not the 4 the host's count gives."""
    from gpuia.fuzz import default_jobs

    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert default_jobs() == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(12)), raising=False)
    assert default_jobs() == 3


def test_jobs_past_the_cores_are_capped_with_a_note(gpu_device, tmp_path):
    cores = len(os.sched_getaffinity(0))
    r = gpuia_cli("fuzz", "--jobs", str(cores + 6), "--cases", "2", "--seed", "2",
                  "--adapter", gpu_device.info["summary"], "--out", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"fuzz: --jobs {cores + 6} is more than the {cores} cores this process may use: " \
           f"running {cores}" in r.stderr.splitlines()
    assert "seed 2: 2 cases" in r.stdout


def test_missing_hypothesis_is_one_error_line_naming_the_extra():
    code = ("import sys; sys.modules['hypothesis'] = None\n"
            "from gpuia.cli import main\n"
            "sys.exit(main(['fuzz', '--cases', '1', '--paths', 'none']))")
    r = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [("error: fuzz: gpuia fuzz needs hypothesis, the optional "
                                      "extra 'fuzz': pip install 'gpuia[fuzz]'")]


# -- minimal cases of the defects the fuzzer found ---------------------------------------------
def _check_ok(case_file, device):
    from gpuia.harness.crosscheck import cross_check

    result = cross_check(load_case(case_file), [device], ["native", "pulling"])
    lines = [line.text() for line in result.lines]
    assert result.ok and all(line.status in ("OK", "not applicable") for line in result.lines) \
        and not any("wgpu refused" in line.detail for line in result.lines), lines


def test_found_start_instance_wraps(gpu_device):
    """Found by the fuzzer (fixed in da12215): instances past 2^32 were never drawn."""
    _check_ok(DATA / "start_instance_wraps.json", gpu_device)


def test_found_stream_output_without_targets(gpu_device):
    """Found by the fuzzer: with no target bound, the SO pass bound one stand-in buffer both
    read-only and read-write in a dispatch, which wgpu refuses; it now has one of each."""
    _check_ok(DATA / "stream_output_without_targets.json", gpu_device)


def test_found_deeply_nested_case_is_refused(capsys):
    """Found by the fuzzer: a case nested thousands of levels deep made json.loads raise
    RecursionError, a traceback instead of exit 2 with one error line."""
    assert cli_main(["validate", str(DATA / "deeply_nested.json")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")


def test_found_stream_output_index_position_wraps(gpu_device):
    """Found by the fuzzer: the Stream Output pass computed the index position's byte address
    in 32 bits, which wrapped past 2^32 to the start of the index buffer; D3D and the reference
    read 0 past the view (rules 5.6)."""
    _check_ok(DATA / "so_index_position_wraps.json", gpu_device)


def test_found_so_filled_size_past_32_bits_is_refused(capsys, gpu_device):
    """Found by the invalid fuzzer: a filled_size of 2^32 reached the GPU path's 32-bit counters
    and raised OverflowError (a traceback); BufferFilledSize is a 32-bit counter (rules 9.6)."""
    assert cli_main(["check", str(DATA / "so_filled_size_past_32_bits.json")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "BufferFilledSize is a 32-bit counter" in err[0], err


def test_found_empty_draw_with_huge_count(gpu_device, capped_python):
    """Found by the invalid fuzzer (seed 601: a hang on the H200, out of memory under lavapipe's
    cap): DrawIndexedInstanced(2^31 - 1 indices, 0 instances) delivers nothing, but the
    reference built its 16 GiB index list and the GPU planner sized a capture by it. Four more
    draws that deliver nothing, with the other count 2^32 - 1, run beside one that delivers:
    3 vertices in each of 2 instances of a triangle strip, 2 triangles streamed out."""
    r = capped_python("-m", "gpuia", "check", DATA / "empty_draw_with_huge_count.json",
                      DATA / "empty_draws_with_huge_counts.json")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert sum(": OK: 0/0 invocations match" in line for line in lines) == 2, lines
    assert sum(": OK: 6/6 invocations match" in line for line in lines) == 2, lines
    assert any("stream output: OK: NumPrimitivesWritten 2, PrimitivesStorageNeeded 2" in line
               for line in lines), lines


def _empty_draws():
    """Draws with a count 0, the other 0xFFFFFFFF (or small), indexed and not."""
    from gpuia.d3d.draws import DrawIndexedInstanced, DrawInstanced

    return [DrawIndexedInstanced(0xFFFFFFFF, 0), DrawIndexedInstanced(3, 0),
            DrawIndexedInstanced(0, 0xFFFFFFFF), DrawInstanced(0, 0xFFFFFFFF),
            DrawInstanced(0xFFFFFFFF, 0)]


@pytest.mark.parametrize("topology", ["TRIANGLESTRIP", "TRIANGLELIST_ADJ"])
@pytest.mark.parametrize("indices", ["host", "gpu-only"])
def test_gpu_context_plans_a_draw_delivering_nothing_as_empty(gpu_device, indices, topology):
    """The context plans a draw with a count 0 as the empty draw it is: no index list, capture
    or Stream Output sized by the other count (each would need gigabytes), and no refusal for
    what only a delivered vertex would need (indices only on the GPU with a strip cut WebGPU
    cannot express, adjacency from GPU indices). The one draw that delivers is captured."""
    import gpuia
    from gpuia.d3d.draws import DrawInstanced
    from gpuia.d3d.ia_desc import IndexBufferView
    from gpuia.gpu import Context, PipelineState

    layout = [{"SemanticName": "POSITION", "Format": "R32_FLOAT"}]
    so = gpuia.StreamOutputDesc([{"SemanticName": "POSITION", "ComponentCount": 1}], [4])
    ctx = Context(gpu_device)
    vb = gpu_device.create_buffer(np.arange(8, dtype=np.float32))
    ctx.ia_set_vertex_buffers(0, [vb], [4])
    if indices == "host":
        ib = gpu_device.create_buffer(np.arange(4, dtype=np.uint16), bind="index_buffer")
    else:
        ib = gpu_device.create_buffer(size=8, bind="index_buffer")  # no host copy
    ctx.ia_set_index_buffer(IndexBufferView(ib, "R16_UINT"))
    ctx.ia_set_primitive_topology(topology)
    target = gpu_device.create_buffer(size=64, bind="stream_output")
    draws = _empty_draws()
    for mode in ("draw", "capture", "stream output"):
        pso = PipelineState(layout, strip_cut_value="0xFFFFFFFF",
                            stream_output=so if mode == "stream output" else None)
        ctx.set_pipeline_state(pso)
        if mode == "capture":
            ctx.begin_capture()
        if mode == "stream output":
            ctx.so_set_targets([gpuia.StreamOutputBufferView(target, 64)], [0])
        for draw in draws:
            plan = ctx.draw(draw)
            assert plan.index.fetch is None or plan.index.fetch.size == 0, (mode, draw)
        if mode == "capture":
            ctx.draw(DrawInstanced(2, 1, 5))
            cap = ctx.end_capture()
            assert [r.keys.tolist() for r in cap.records] == [[]] * len(draws) + [[5, 6]]
        if mode == "stream output":
            stats = ctx.so_statistics()
            assert (stats["NumPrimitivesWritten"], stats["PrimitivesStorageNeeded"]) == (0, 0)
    ctx.flush()


def test_plan_draw_of_a_draw_delivering_nothing(gpu_device):
    """gpuia.gpu.plan_draw, the planner's public entry, plans such draws without touching the
    other count: no index values, no capture fetch, no fetch-bounds obstacle for a count of
    instances that would wrap past 2^32."""
    from gpuia.d3d.ia_desc import IndexBufferView, VertexBufferView
    from gpuia.d3d.layout import InputLayout
    from gpuia.d3d.topology import topology_info
    from gpuia.gpu import plan_draw

    layout = InputLayout([{"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM",
                           "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": 1}])
    views = {0: VertexBufferView(gpu_device.create_buffer(bytes(16)), 4)}
    ib = IndexBufferView(gpu_device.create_buffer(bytes(8), bind="index_buffer"), "R16_UINT")
    for draw in _empty_draws():
        for topology in ("TRIANGLELIST_ADJ", "TRIANGLESTRIP"):
            for capture in (False, True):
                plan = plan_draw(layout, views, draw, topology_info(topology), gpu_device.caps,
                                 index_buffer=ib, capture=capture)
                assert plan.path == "native" and plan.index.values is None, (draw, topology)
                assert plan.index.fetch is None or plan.index.fetch.size == 0


def test_out_of_memory_on_a_small_case_is_a_finding():
    """The invalid judge takes a host out-of-memory refusal as clean only for a case that asks
    for much memory; on a small case it is the defect above (lavapipe's 4 GiB cap hid it)."""
    from gpuia.fuzz.engine import SMALL_DEMAND, invalid_judge, invalid_outcome
    from gpuia.fuzz.pool import Outcome

    def judged(demand):
        answer = {"rc": 2, "stdout": "", "command": "check", "host_out_of_memory": True,
                  "stderr": "error: c: out of host memory: Unable to allocate 16.0 GiB\n"}
        if demand is not None:
            answer["demand"] = demand
        return invalid_judge(None, invalid_outcome(Outcome("ok", "", answer)))

    assert judged({"invocations": 0, "buffer_bytes": 800}) == "out-of-memory"
    assert judged({"invocations": SMALL_DEMAND["invocations"] + 1, "buffer_bytes": 0}) is None
    assert judged({"invocations": 0, "buffer_bytes": SMALL_DEMAND["buffer_bytes"] + 1}) is None
    assert judged(None) is None  # the case did not even load under the cap


def test_invalid_children_keep_their_devices_between_checks(gpu_device):
    """A child creates one device per adapter for all its checks, not one per check, and starts
    on a new one after a check whose device was really lost (destroyed under it), so the cases
    after it are not turned into findings."""
    import base64

    from gpuia.cli.fuzz_child import make_handler
    from gpuia.gpu import Device
    from gpuia.gpu.device import DevicePool

    made = []

    def counting(adapter):
        # Private: the test destroys it, which must not take an adapter-shared device along.
        made.append(Device(adapter, private=True))
        return made[-1]

    handle, ready = make_handler({"mode": "cli", "adapter": gpu_device.info["summary"]},
                                 devices=DevicePool(make=counting))
    assert ready["adapters"] == [gpu_device.info["summary"]] and len(made) == 1
    content = (DATA / "empty_draws_with_huge_counts.json").read_bytes()
    req = {"content": base64.b64encode(content).decode()}
    answers = [handle(req) for _ in range(3)]
    assert [a["rc"] for a in answers] == [0, 0, 0], answers[0]["stderr"]
    assert [a["command"] for a in answers] == ["check"] * 3
    assert len(made) == 1
    made[0].device.destroy()
    lost = handle(req)
    assert lost["rc"] == 2 and "device was lost" in lost["stderr"], lost
    assert "traceback" not in lost and not lost["host_out_of_memory"]
    after = [handle(req) for _ in range(2)]
    assert [a["rc"] for a in after] == [0, 0] and len(made) == 2


def test_invalid_child_answers_a_case_that_does_not_load_with_validate(gpu_device, tmp_path):
    """A case file gpuia refuses to load is answered by ``gpuia validate`` (exit 2, one error
    line): no check runs, so no device is made for it."""
    import base64

    from gpuia.cli.fuzz_child import make_handler
    from gpuia.gpu.device import DevicePool

    handle, _ = make_handler({"mode": "cli", "adapter": gpu_device.info["summary"]},
                             devices=DevicePool(make=lambda adapter: gpu_device))
    answer = handle({"content": base64.b64encode(b'{"gpuia_case": 1}').decode()})
    assert answer["command"] == "validate" and answer["rc"] == 2, answer
    errors = [line for line in answer["stderr"].splitlines() if line.startswith("error:")]
    assert len(errors) == 1, answer["stderr"]


def test_found_gs_target_size_not_a_word_multiple(gpu_device):
    """Found by the valid fuzzer (seed 2026, --gs): a geometry shader's Stream Output target of
    SizeInBytes 97 was refused by the GPU expansion, which took only word multiples; D3D12's
    views take any size (a vertex fits when all its bytes do). The GPU now agrees with the
    reference."""
    _check_ok(DATA / "gs_target_size_not_a_word_multiple.json", gpu_device)
