"""The GPU side of the ``gpuia`` command line: ``adapters``, ``run --backend gpu``, ``check``.

The GPU runs go through subprocesses, like a user's would (one process per command over every
example case, made once per pytest run: tests/tools/conftest.py). The comparison logic behind
``check`` is tested in-process on results altered in Python, since a real GPU cannot be made to
go wrong on purpose.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from helpers import EXAMPLE_CASES as CASES
from helpers import EXAMPLES, assert_one_error_line, describe, gpuia_cli

STEMS = [p.stem for p in EXAMPLES]

# Example cases whose draw WebGPU's vertex fetch cannot do exactly, with what the reason names.
NATIVE_IMPOSSIBLE = {
    "instance_step_rates": "step",
    "out_of_bounds": "slot 1 is unbound",
    "packed_formats": "R11G11B10_FLOAT",
    "unaligned_stride": "stride 7",
}


@pytest.fixture(scope="module")
def out_dirs(examples_run):
    """Every example case run once on each backend with --out-dir (one process per backend,
    made once per pytest run: tests/tools/conftest.py)."""
    for run in examples_run.values():
        assert run.proc.returncode == 0, describe(run.proc)
        assert "Traceback" not in run.proc.stderr, describe(run.proc)
    return {backend: run.dir for backend, run in examples_run.items()}


@functools.cache
def _adapters_json() -> subprocess.CompletedProcess:
    return gpuia_cli("adapters", "--json")


# --------------------------------------------------------------------------------------------
# gpuia adapters
# --------------------------------------------------------------------------------------------

def test_adapters_lists_lavapipe_with_backend_type_and_limits(gpu_device):
    proc = gpuia_cli("adapters")
    assert proc.returncode == 0, describe(proc)
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    lines = out.splitlines()
    # The adapter gpuia draws on by default is listed, with its backend, type and limits.
    info, caps = gpu_device.info, gpu_device.caps
    header = [i for i, ln in enumerate(lines)
              if ln.startswith("[") and ln.endswith(info["summary"])]
    assert header, out
    block = "\n".join(lines[header[0]:header[0] + 5])
    assert f"backend {info['backend']}, type {info['type']}" in block
    assert (f"vertex buffers {caps.max_vertex_buffers}, vertex attributes "
            f"{caps.max_vertex_attributes}, max stride {caps.max_vertex_buffer_array_stride}"
            in block)
    assert f"storage buffers per stage {caps.max_storage_buffers_per_shader_stage}" in block
    assert f"max buffer {caps.max_buffer_size}" in block
    assert "vertex-writable-storage yes" in block  # capture needs it; lavapipe has it
    # Mesa's lavapipe: the Vulkan CPU adapter (its device name is llvmpipe). CI installs it;
    # on a machine with a real GPU it may be absent.
    lavapipe = [i for i, ln in enumerate(lines) if ln.startswith("[") and "llvmpipe" in ln
                and "Vulkan" in ln]
    if os.environ.get("CI") or "llvmpipe" in info["summary"]:
        assert lavapipe, out
    for i in lavapipe:
        assert "backend Vulkan, type CPU" in lines[i + 1]
    # Every adapter is numbered from 0 in order.
    numbers = [int(ln[1:ln.index("]")]) for ln in lines if ln.startswith("[")]
    assert numbers == list(range(len(numbers)))


def test_adapters_json_parses_and_matches_the_device(gpu_device):
    proc = _adapters_json()
    assert proc.returncode == 0, describe(proc)
    doc = json.loads(proc.stdout)
    assert isinstance(doc, list) and doc
    for a in doc:
        assert {"name", "backend", "type", "summary", "limits", "features"} <= set(a), a
        assert isinstance(a["features"], list)
        numeric = {k: v for k, v in a["limits"].items() if k.startswith(("max_", "min_"))}
        assert numeric and all(type(v) is int and v > 0 for v in numeric.values()), a["limits"]
    lavapipe = [a for a in doc if a["backend"] == "Vulkan" and "llvmpipe" in a["name"]]
    if os.environ.get("CI") or "llvmpipe" in gpu_device.info["summary"]:
        assert lavapipe
    assert all(a["type"] == "CPU" for a in lavapipe)
    mine = [a for a in doc if a["summary"] == gpu_device.info["summary"]]
    assert len(mine) == 1
    a = mine[0]
    assert (a["name"], a["backend"], a["type"]) == (gpu_device.info["name"],
                                                    gpu_device.info["backend"],
                                                    gpu_device.info["type"])
    # gpuia's device asks for the adapter's limits, so they agree with what it reads; the
    # target formats a device probes need a device, which the listing does not make.
    device_caps = gpu_device.caps.as_dict()
    assert device_caps.pop("target_formats") and "target_formats" not in a["limits"]
    assert type(device_caps.pop("depth_copies")) is bool and "depth_copies" not in a["limits"]
    assert a["limits"] == device_caps
    assert a["limits"]["vertex_writable_storage"] is ("vertex-writable-storage" in a["features"])
    assert a["limits"]["max_vertex_buffers"] >= 8  # WebGPU's guaranteed minimum


def test_adapters_json_agrees_with_the_text_listing(gpu_device):
    doc = json.loads(_adapters_json().stdout)
    text = gpuia_cli("adapters").stdout
    for i, a in enumerate(doc):
        assert f"[{i}] {a['summary']}" in text
        assert f"backend {a['backend']}, type {a['type']}" in text


# --------------------------------------------------------------------------------------------
# gpuia run --backend gpu
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("stem", STEMS)
def test_run_gpu_result_document(gpu_device, out_dirs, stem):
    doc = json.loads((out_dirs["gpu"] / f"{stem}.json").read_text())
    assert doc["gpuia_result"] == 1
    assert doc["backend"] == "gpu"
    assert doc["path"] and set(doc["path"].split("/")) <= {"native", "pulling"}, doc["path"]
    adapter = doc["adapter"]
    assert isinstance(adapter, dict)
    for key in ("name", "backend", "type"):
        assert isinstance(adapter[key], str) and adapter[key], adapter
    assert adapter["name"] == gpu_device.info["name"]
    assert adapter["backend"] == gpu_device.info["backend"]
    assert adapter["type"] == gpu_device.info["type"]
    if stem in NATIVE_IMPOSSIBLE:
        assert doc["path"] == "pulling"


@pytest.mark.parametrize("stem", STEMS)
def test_run_gpu_matches_run_cpu(out_dirs, stem):
    """Same invocations (order, IDs, every component's bits) and statistics on both backends."""
    gpu = json.loads((out_dirs["gpu"] / f"{stem}.json").read_text())
    cpu = json.loads((out_dirs["cpu"] / f"{stem}.json").read_text())
    assert cpu["backend"] == "cpu"
    assert gpu["case"] == cpu["case"]
    assert len(gpu["invocations"]) == len(cpu["invocations"]) > 0
    for i, (g, c) in enumerate(zip(gpu["invocations"], cpu["invocations"], strict=True)):
        for key in ("draw", "instance", "vertex", "SV_VertexID", "SV_InstanceID"):
            assert g[key] == c[key], (i, key, g[key], c[key])
        assert g["inputs"].keys() == c["inputs"].keys()
        for sem in c["inputs"]:
            assert g["inputs"][sem]["type"] == c["inputs"][sem]["type"], (i, sem)
            assert g["inputs"][sem]["bits"] == c["inputs"][sem]["bits"], (i, sem)
    # Values included; a real shader's computed outputs agree within the stated tolerance (64
    # ULP or 2**-16 absolute, docs/case-format.md): the GPU rounds its arithmetic as it may.
    strip = [{k: v for k, v in inv.items() if k != "outputs"} for inv in gpu["invocations"]]
    assert strip == [{k: v for k, v in inv.items() if k != "outputs"}
                     for inv in cpu["invocations"]]
    for g, c in zip(gpu["invocations"], cpu["invocations"], strict=True):
        assert g.get("outputs", {}).keys() == c.get("outputs", {}).keys()
        for sem, out in c.get("outputs", {}).items():
            assert g["outputs"][sem]["type"] == out["type"], sem
            if out["type"] != "float":
                assert g["outputs"][sem]["bits"] == out["bits"], sem
                continue
            for a, b in zip(g["outputs"][sem]["bits"], out["bits"], strict=True):
                fa, fb = (struct.unpack("<f", struct.pack("<I", w))[0] for w in (a, b))
                ulps = abs(_ordered(a) - _ordered(b))
                assert ulps <= 64 or abs(fa - fb) <= 2 ** -16, (sem, a, b)
    assert gpu["statistics"] == cpu["statistics"]


def _ordered(bits: int) -> int:
    """A float32's bits as an integer that orders like the floats (ULP distances)."""
    return bits if bits < 0x80000000 else 0x80000000 - bits


@pytest.mark.parametrize("stem", sorted(NATIVE_IMPOSSIBLE))
def test_run_gpu_forced_native_where_impossible_exits_2(gpu_device, stem):
    proc = gpuia_cli("run", CASES / f"{stem}.json", "--backend", "gpu", "--path", "native")
    assert_one_error_line(proc, f"error: {stem}: ", "native path", NATIVE_IMPOSSIBLE[stem])
    assert proc.stdout == "", "no result document for a refused run"


def test_run_gpu_forced_pulling_and_native_where_possible(gpu_device):
    case = CASES / "triangle_two_slots.json"
    for path in ("native", "pulling"):
        proc = gpuia_cli("run", case, "--backend", "gpu", "--path", path, "--compact")
        assert proc.returncode == 0, describe(proc)
        doc = json.loads(proc.stdout)
        assert doc["path"] == path
        assert len(proc.stdout.strip().splitlines()) == 1  # --compact: one line


def test_run_gpu_explain_prints_path_and_reasons_on_stderr(gpu_device):
    proc = gpuia_cli("run", CASES / "unaligned_stride.json", "--backend", "gpu", "--explain")
    assert proc.returncode == 0, describe(proc)
    json.loads(proc.stdout)  # stdout is still only the result document
    assert "unaligned_stride: draw 0: path: pulling" in proc.stderr, proc.stderr
    assert "stride 7 is not a multiple of 4" in proc.stderr
    assert "Traceback" not in proc.stderr

    proc = gpuia_cli("run", CASES / "triangle_two_slots.json", "--backend", "gpu", "--explain")
    assert proc.returncode == 0, describe(proc)
    assert "triangle_two_slots: draw 0: path: native" in proc.stderr, proc.stderr
    assert "every slot is expressible natively" in proc.stderr

    proc = gpuia_cli("run", CASES / "triangle_two_slots.json", "--backend", "gpu", "--path",
                 "pulling", "--explain")
    assert proc.returncode == 0, describe(proc)
    assert "path: pulling" in proc.stderr and "forced by path=pulling" in proc.stderr

    proc = gpuia_cli("run", CASES / "indexed_strip_cut.json", "--backend", "gpu", "--explain")
    assert proc.returncode == 0, describe(proc)
    assert "indexed_strip_cut: draw 0: path:" in proc.stderr
    assert "indices:" in proc.stderr  # how the indices reach the GPU


def test_run_gpu_explain_one_block_per_draw(gpu_device, tmp_path):
    doc = json.loads((CASES / "triangle_two_slots.json").read_text())
    draw = doc["draw"]
    doc["draw"] = [draw, draw, draw]
    path = tmp_path / "three_draws.json"
    path.write_text(json.dumps(doc))
    proc = gpuia_cli("run", path, "--backend", "gpu", "--explain")
    assert proc.returncode == 0, describe(proc)
    for d in range(3):
        assert f": draw {d}: path: " in proc.stderr, proc.stderr
    assert ": draw 3: " not in proc.stderr


def test_run_gpu_adapter_nomatch_exits_2(gpu_device):
    proc = gpuia_cli("run", CASES / "triangle_two_slots.json", "--backend", "gpu", "--adapter",
                 "nomatch")
    assert_one_error_line(proc, "nomatch")
    assert proc.stdout == ""


# --------------------------------------------------------------------------------------------
# gpuia check
# --------------------------------------------------------------------------------------------

def _check_lines(proc, stem: str) -> dict[str, str]:
    """{path: rest of the line} for a case's result lines in ``gpuia check`` output."""
    out = {}
    for line in proc.stdout.splitlines():
        if not line.startswith(f"{stem}: "):
            continue
        parts = line.split(": ", 3)
        if len(parts) == 4 and parts[2] in ("native", "pulling"):
            assert parts[2] not in out, f"two lines for {parts[2]}:\n{proc.stdout}"
            out[parts[2]] = parts[3]
    return out


def test_check_every_example_exits_0(gpu_device, examples_check):
    proc = examples_check.proc  # gpuia check of every example case, one process
    assert proc.returncode == 0, describe(proc)
    assert "Traceback" not in proc.stderr and "error:" not in proc.stderr, describe(proc)
    assert "DIFFERENT" not in proc.stdout


@pytest.mark.parametrize("stem", STEMS)
def test_check_prints_ok_for_each_applicable_path(gpu_device, examples_check, stem):
    from gpuia.errors import UnsupportedError
    from gpuia.harness.case import load_case
    from gpuia.harness.run_gpu import run_case_gpu

    lines = _check_lines(examples_check.proc, stem)
    assert set(lines) == {"native", "pulling"}, lines
    summary = gpu_device.info["summary"]
    proc_lines = [ln for ln in examples_check.proc.stdout.splitlines()
                  if ln.startswith(f"{stem}: ")]
    assert all(f"{stem}: {summary}: " in ln for ln in proc_lines), proc_lines
    # Pulling does every case; native exactly those it can (as the planner says in-process).
    assert lines["pulling"].startswith("OK: "), lines["pulling"]
    try:
        run_case_gpu(load_case(CASES / f"{stem}.json"), gpu_device, "native")
        native_possible = True
    except UnsupportedError:
        native_possible = False
    if native_possible:
        assert lines["native"].startswith("OK: "), lines["native"]
    else:
        assert lines["native"].startswith("not applicable: "), lines["native"]
    if stem in NATIVE_IMPOSSIBLE:
        assert not native_possible
        assert NATIVE_IMPOSSIBLE[stem] in lines["native"]
    for rest in lines.values():
        if rest.startswith("OK: "):
            assert "invocations match" in rest
            done, total = rest.split(" ")[1].split("/")
            assert done == total and int(total) > 0, rest


def test_check_single_path_and_table(gpu_device):
    case = CASES / "triangle_two_slots.json"
    proc = gpuia_cli("check", case, "--path", "pulling", "--table")
    assert proc.returncode == 0, describe(proc)
    lines = _check_lines(proc, "triangle_two_slots")
    assert set(lines) == {"pulling"} and lines["pulling"].startswith("OK: ")
    # --table prints every invocation, none flagged.
    assert "SV_VertexID" in proc.stdout and "POSITION0" in proc.stdout
    assert "!=" not in proc.stdout
    proc = gpuia_cli("check", CASES / "unaligned_stride.json", "--path", "native")
    # Nothing compared is not a pass: exit 2 with one error line (the reasons are on stdout).
    assert proc.returncode == 2, describe(proc)
    assert _check_lines(proc, "unaligned_stride")["native"].startswith("not applicable: ")
    assert proc.stderr.count("error: ") == 1


def test_check_every_adapter(gpu_device):
    """Every adapter is checked; one that cannot give a device is reported, not fatal."""
    proc = gpuia_cli("check", CASES / "triangle_two_slots.json", "--adapter", "all")
    assert proc.returncode == 0, describe(proc)
    doc = json.loads(_adapters_json().stdout)
    checked = 0
    for a in doc:
        if f"{a['summary']}: unavailable: " in proc.stdout:
            continue
        checked += 1
        for path in ("native", "pulling"):
            assert f"triangle_two_slots: {a['summary']}: {path}: OK: " in proc.stdout, proc.stdout
    assert checked and f"triangle_two_slots: {gpu_device.info['summary']}: " in proc.stdout


@pytest.mark.parametrize("option", [
    pytest.param(("--adapter", "nomatch"), id="adapter"),
    pytest.param(("--gpu-backend", "nomatch"), id="gpu-backend"),
])
def test_check_adapter_nomatch_exits_2(gpu_device, option):
    proc = gpuia_cli("check", CASES / "triangle_two_slots.json", *option)
    assert_one_error_line(proc, "nomatch")


def test_run_gpu_backend_nomatch_exits_2(gpu_device):
    proc = gpuia_cli("run", CASES / "triangle_two_slots.json", "--backend", "gpu", "--gpu-backend",
                 "nomatch")
    assert_one_error_line(proc, "nomatch")


# --------------------------------------------------------------------------------------------
# compare() and comparison_table() on GPU results altered in Python
# --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def triangle(gpu_device):
    from gpuia.harness.case import load_case
    from gpuia.harness.run import reference_ia
    from gpuia.harness.run_gpu import run_case_gpu

    case = load_case(CASES / "triangle_two_slots.json")
    ref = reference_ia(case)
    res = run_case_gpu(case, gpu_device, "pulling", ref)
    return case, ref, res


def _table_rows(table: str) -> list[str]:
    lines = table.splitlines()
    assert set(lines[1].replace(" ", "")) == {"-"}, table  # header, rule, rows
    return lines[2:]


def test_compare_accepts_the_unaltered_gpu_result(triangle):
    from gpuia.harness.compare import compare, comparison_table

    case, ref, res = triangle
    cmp = compare(ref, res)
    assert cmp.ok and not cmp.bad_rows.any()
    assert cmp.summary() == "3/3 invocations match"
    rows = _table_rows(comparison_table(ref, res, cmp))
    assert len(rows) == 3
    assert not any(r.startswith("!") for r in rows)
    assert "!=" not in "\n".join(rows)
    assert _table_rows(comparison_table(ref, res, cmp, only_differences=True)) == []


@pytest.mark.parametrize("layout", [False, True], ids=["exact", "with-layout"])
def test_compare_flags_an_altered_component(triangle, layout):
    from gpuia.harness.compare import compare, comparison_table

    case, ref, res = triangle
    bad = copy.deepcopy(res)
    bits = bad.ia.inputs["POSITION0"].bits
    original = float(np.uint32(bits[1, 0]).view(np.float32))
    bits[1, 0] = np.float32(original + 0.25).view(np.uint32)
    cmp = compare(ref, bad, case.layout) if layout else compare(ref, bad)
    assert not cmp.ok
    assert cmp.bad_rows.tolist() == [False, True, False]
    assert cmp.element_mismatches["POSITION0"][1].tolist() == [True, False, False, False]
    assert not cmp.element_mismatches["COLOR0"].any()
    assert "2/3 invocations match" in cmp.summary()
    assert "POSITION0: 1 differ" in cmp.summary()
    rows = _table_rows(comparison_table(ref, bad, cmp))
    assert [r.startswith("!") for r in rows] == [False, True, False]
    assert "!=" in rows[1] and "!=" not in rows[0] + rows[2]
    assert f"!= {original + 0.25:.9g}" in rows[1], rows[1]
    only = _table_rows(comparison_table(ref, bad, cmp, only_differences=True))
    assert len(only) == 1 and only[0].startswith("!")


def test_compare_flags_a_normalized_element_beyond_any_tolerance(triangle):
    """COLOR0 is R8G8B8A8_UNORM: set a component 1.0 -> 0.0; no tolerance may hide that."""
    from gpuia.harness.compare import compare, comparison_table

    case, ref, res = triangle
    bad = copy.deepcopy(res)
    bad.ia.inputs["COLOR0"].bits[0, 0] = 0
    for cmp in (compare(ref, bad), compare(ref, bad, case.layout)):
        assert not cmp.ok
        assert cmp.bad_rows.tolist() == [True, False, False]
        assert "COLOR0: 1 differ" in cmp.summary()
        rows = _table_rows(comparison_table(ref, bad, cmp))
        assert rows[0].startswith("!") and "!=" in rows[0]


def test_compare_flags_system_values_missing_and_unexpected(triangle):
    from gpuia.harness.compare import compare, comparison_table

    case, ref, res = triangle
    bad = copy.deepcopy(res)
    bad.ia.vertex_id[2] += 7
    cmp = compare(ref, bad)
    assert not cmp.ok and cmp.bad_rows.tolist() == [False, False, True]
    assert "system values: 1 differ" in cmp.summary()
    rows = _table_rows(comparison_table(ref, bad, cmp))
    assert rows[2].startswith("!") and f"!= {int(ref.vertex_id[2]) + 7}" in rows[2]

    bad = copy.deepcopy(res)
    bad.missing = np.array([False, True, False])
    cmp = compare(ref, bad)
    assert not cmp.ok and cmp.bad_rows.tolist() == [False, True, False]
    assert "1 not delivered by the GPU" in cmp.summary()
    rows = _table_rows(comparison_table(ref, bad, cmp))
    assert rows[1].startswith("!") and "(not delivered)" in rows[1]

    bad = copy.deepcopy(res)
    bad.unexpected = 2
    cmp = compare(ref, bad)
    assert not cmp.ok and not cmp.bad_rows.any()
    assert "2 GPU invocations at vertex indices D3D does not fetch" in cmp.summary()


def test_compare_nan_payloads_match(triangle):
    """Rules 2.5: a float NaN on both sides matches whatever its payload."""
    from gpuia.harness.compare import compare

    case, ref, res = triangle
    ref2, bad = copy.deepcopy(ref), copy.deepcopy(res)
    ref2.inputs["POSITION0"].bits[0, 0] = 0x7FC00000
    bad.ia.inputs["POSITION0"].bits[0, 0] = 0x7FC00001
    assert compare(ref2, bad).ok
    bad.ia.inputs["POSITION0"].bits[0, 0] = 0x3F800000  # 1.0 is not NaN
    assert not compare(ref2, bad).ok


def test_check_prints_the_same_whatever_the_cases_at_once(gpu_device, examples_one_at_a_time):
    """``--jobs`` only changes how many cases are worked on at once: every line, the error lines
    of an unreadable case in the middle and of a case refused by rules 3.2 at the end, and the
    exit status are those of one case at a time (``--jobs 1``, made once per pytest run:
    tests/tools/conftest.py), in the order the cases were given."""
    one = examples_one_at_a_time.proc
    many = gpuia_cli("check", "--jobs", "3", *examples_one_at_a_time.cases)
    assert one.returncode == 2, describe(one)
    assert (many.returncode, many.stdout, many.stderr) == (one.returncode, one.stdout,
                                                           one.stderr)
    # one error line each for the unreadable case and the refused one, in the order given
    assert [ln.split(": ", 2)[:2] for ln in one.stderr.splitlines()] == [
        ["error", "broken"], ["error", "bad_offset"]], one.stderr
    # the broken case sits between the fourth and fifth example's lines
    cases = examples_one_at_a_time.cases
    assert Path(cases[4]).stem == "broken"
    names = [ln.split(":", 1)[0] for ln in one.stdout.splitlines() if ": OK: " in ln]
    assert names.index(json.loads(Path(cases[5]).read_text())["name"]) > \
        names.index(json.loads(Path(cases[3]).read_text())["name"])


def test_check_jobs_must_be_a_whole_number_of_one_or_more(tmp_path):
    for bad in ("0", "-2", "two"):
        proc = gpuia_cli("check", "--jobs", bad, EXAMPLES[0])
        assert proc.returncode == 2 and "--jobs" in proc.stderr, describe(proc)
