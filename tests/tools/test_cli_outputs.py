"""A command line that loses nothing (issue 12): every output file atomic, SIGINT/SIGTERM end with
one line and 130/143, outputs never land outside their folder, and inputs that used to print
tracebacks or hang (FIFOs, /dev/zero, closed stdin, huge integers, lone surrogates, control
characters) are one ``error:`` line, exit 2."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpuia.errors import CaseError
from gpuia.util import files
from gpuia.util.files import OutputError, loads_json, read_input, safe_stem, write_atomic
from helpers import REPO as ROOT
from helpers import TRIANGLE, assert_one_error_line, gpuia_cli


def _case(name="c", **extra) -> dict:
    doc = {"gpuia_case": 1, "name": name,
           "input_layout": [{"SemanticName": "POSITION", "Format": "R32_FLOAT"}],
           "vertex_buffers": [{"slot": 0, "stride": 4,
                               "data": {"dtype": "float32", "values": [1, 2, 3]}}],
           "primitive_topology": "POINTLIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": 3}}}
    doc.update(extra)
    return doc


def _big_case(vertices: int) -> dict:
    """A case whose result JSON takes a while to write (the SIGTERM window)."""
    return _case("big", vertex_buffers=[{"slot": 0, "stride": 0,
                                         "data": {"dtype": "float32", "values": [1.5]}}],
                 draw={"DrawInstanced": {"VertexCountPerInstance": vertices}})


# -- write_atomic ---------------------------------------------------------------------------

def test_write_atomic_replaces_whole_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old")
    write_atomic(target, "new contents")
    assert target.read_text() == "new contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]
    umask = os.umask(0o022)  # POSIX reads the umask only by setting it: put it back at once
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("fail_in", ["write", "fsync", "replace"])
def test_write_atomic_interrupted_keeps_the_old_file(tmp_path, monkeypatch, fail_in):
    """An interruption (the SIGTERM handler's exception) at any step leaves the old file whole
    and removes the temporary."""
    from gpuia.util.interrupt import Interrupted

    target = tmp_path / "r.json"
    target.write_text("old")

    def boom(*a, **k):
        raise Interrupted(signal.SIGTERM)

    if fail_in == "write":
        monkeypatch.setattr(files.os, "fsync", lambda fd: None)
        monkeypatch.setattr(files.os, "fdopen", lambda fd, mode: _ExplodingFile(fd, boom))
    else:
        monkeypatch.setattr(files.os, fail_in, boom)
    with pytest.raises(Interrupted):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


class _ExplodingFile:
    def __init__(self, fd, boom):
        self.fd, self.boom = fd, boom

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        os.close(self.fd)

    def write(self, data):
        os.write(self.fd, data[: len(data) // 2])  # half written, then the signal
        self.boom()


def test_write_atomic_refuses_a_folder_and_a_missing_folder(tmp_path):
    with pytest.raises(OutputError, match="is a folder"):
        write_atomic(tmp_path, "x")
    with pytest.raises(OutputError, match="cannot write: No such file or directory"):
        write_atomic(tmp_path / "nope" / "r.json", "x")


# -- signals -------------------------------------------------------------------------------

def _wait_for(predicate, seconds=60.0, step=0.05):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return False


def test_a_signal_landing_inside_an_import_ends_the_command_just_after_it():
    """A signal whose handler runs inside importlib (where CPython can drop the exception,
    printing "Exception ignored in ... cb") does not raise there: the main thread gets it
    again a moment later and ends with Interrupted, the same signal, as usual."""
    from gpuia.util import interrupt

    class Code:
        co_filename = "<frozen importlib._bootstrap>"

    class Frame:
        f_code = Code()

    with interrupt.ending_on_signals():
        handler = signal.getsignal(signal.SIGTERM)
        try:
            handler(signal.SIGTERM, Frame())  # returns: nothing raised inside the import
        except interrupt.Interrupted:
            pytest.fail("the handler raised inside the import machinery")
        assert interrupt.received() == signal.SIGTERM
        with pytest.raises(interrupt.Interrupted) as raised:
            for _ in range(500):
                time.sleep(0.01)
    assert raised.value.signum == signal.SIGTERM


def test_a_signal_inside_a_held_block_ends_the_command_when_the_block_ends():
    """A real SIGTERM sent to this process inside `signals_held` lets the block's every step
    run, then raises Interrupted for that signal as the block ends (a pool never half started);
    a nested block defers to the outermost one."""
    from gpuia.util import interrupt

    steps = []
    with interrupt.ending_on_signals():
        with pytest.raises(interrupt.Interrupted) as raised:
            with interrupt.signals_held():
                with interrupt.signals_held():
                    os.kill(os.getpid(), signal.SIGTERM)
                    for _ in range(20):  # the handler runs during these
                        time.sleep(0.01)
                    steps.append("inner")
                steps.append("outer")
        assert interrupt.received() == signal.SIGTERM
    assert steps == ["inner", "outer"]
    assert raised.value.signum == signal.SIGTERM


@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_while_writing_a_result_leaves_old_or_whole_file(tmp_path, sig, status):
    """Killed while the CPU backend runs and writes a large result: exit 128 + signal, one
    line, no traceback, and the output file is either the old one or a complete result."""
    case = tmp_path / "big.json"
    case.write_text(json.dumps(_big_case(200_000)))
    out = tmp_path / "result.json"
    out.write_text('{"old": true}\n')
    seen = set()
    for delay in (0.0, 1.0, 2.5):
        proc = subprocess.Popen([sys.executable, "-m", "gpuia", "run", str(case), "--out",
                                 str(out)], cwd=tmp_path, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        installed = _wait_for(lambda pid=proc.pid: _handles_sigterm(pid))
        assert installed, "the handler was never installed"
        time.sleep(delay)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=120)
        doc = json.loads(out.read_text())  # parses whatever the moment was
        assert doc == {"old": True} or doc["statistics"]["IAVertices"] == 200_000
        assert sorted(p.name for p in tmp_path.iterdir()) == ["big.json", "result.json"]
        if proc.returncode == 0:  # finished before the signal
            seen.add("finished")
            continue
        assert proc.returncode == status, stderr
        assert stderr.splitlines() == [f"gpuia: interrupted by {signal.Signals(sig).name}"]
        seen.add("old" if doc == {"old": True} else "new")
    assert "old" in seen, seen  # at least one signal arrived before the write completed


def _handles_sigterm(pid: int) -> bool:
    """Whether the process has its own SIGTERM handler yet (before, a signal kills it by the
    default action, as it would any program still starting)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # already gone: the assertions that follow tell what happened
    caught = next(int(line.split()[1], 16) for line in status.splitlines()
                  if line.startswith("SigCgt:"))
    return bool(caught & (1 << (signal.SIGTERM - 1)))


def _children(pid: int) -> set[int]:
    out = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_fuzz_ends_on_a_signal_with_its_summary_and_no_orphans(gpu_device, tmp_path, sig,
                                                                 status):
    """`gpuia fuzz` with two workers: the signal ends it with the summary, one interrupted
    line, the conventional status, and every worker it started gone."""
    pytest.importorskip("hypothesis")
    proc = subprocess.Popen([sys.executable, "-m", "gpuia", "fuzz", "--jobs", "2", "--seconds",
                             "300", "--seed", "5", "--out", str(tmp_path / "findings")],
                            cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert _wait_for(lambda: len(_children(proc.pid)) >= 2, 120), "no workers started"
        workers = _children(proc.pid)
        time.sleep(2.0)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status, stderr
    assert "Traceback" not in stderr, stderr
    assert stderr.splitlines()[-1] == f"gpuia: interrupted by {signal.Signals(sig).name}"
    assert "interrupted" in stdout, stdout  # the summary says it was cut short
    assert _wait_for(lambda: not any(_alive(w) for w in workers), 10), workers


def test_worker_exits_when_its_parent_is_killed(tmp_path):
    """A worker whose parent dies by SIGKILL (no clean-up) ends by itself within seconds."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import subprocess, sys, time\n"
        "from gpuia.util.interrupt import worker_env\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; "
        "from gpuia.util.interrupt import exit_with_parent; exit_with_parent(0.1); "
        "time.sleep(600)'],"
        " env=worker_env())\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                              cwd=ROOT)
    child = int(parent.stdout.readline())
    assert _alive(child)
    parent.kill()
    parent.wait()
    assert _wait_for(lambda: not _alive(child), 10)


# -- where outputs go -------------------------------------------------------------------------

@pytest.mark.parametrize("name, stem", [
    ("../x", "_x"), ("/tmp/abs", "_tmp_abs"), ("a/b", "a_b"), ("x" * 300, "x" * 120),
    ("..", "case"), ("ok-name_1.2", "ok-name_1.2"),
])
def test_stdin_case_is_written_inside_out_dir(tmp_path, name, stem):
    out = tmp_path / "out"
    proc = gpuia_cli("run", "-", "--out-dir", str(out), cwd=tmp_path, stdin=json.dumps(_case(name)))
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in out.iterdir()] == [f"{stem}.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # nothing outside it


def test_safe_stem_is_one_component():
    for name in ["../../etc/passwd", "a\\b", "\n", "-", "a\x00b", "é"]:
        stem = safe_stem(name)
        assert "/" not in stem and "\\" not in stem and not stem.startswith(".")
        assert stem.isprintable() and stem


def test_two_inputs_with_one_stem_are_refused_before_running(tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.json").write_text(json.dumps(_case(d)))
    out = tmp_path / "out"
    proc = gpuia_cli("run", "a/x.json", "b/x.json", "--out-dir", str(out), cwd=tmp_path)
    assert_one_error_line(proc, "a/x.json and b/x.json would both write", "x.json")
    assert list(out.iterdir()) == []


def test_two_inputs_with_one_stem_are_refused_for_csv(tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.json").write_text(json.dumps(_case(d)))
    out = tmp_path / "csv"
    proc = gpuia_cli("check", "a/x.json", "b/x.json", "--csv", str(out), cwd=tmp_path)
    assert_one_error_line(proc, "--csv: a/x.json and b/x.json would both write", "x")
    assert list(out.iterdir()) == []


def test_csv_files_are_whole_and_leave_no_temporary(tmp_path):
    """Every CSV table and the manifest are written through write_atomic: the folder holds
    exactly the named files, none partial; a second run replaces them whole."""
    out = tmp_path / "csv"
    for _ in range(2):
        proc = gpuia_cli("run", "-", "--csv", str(out), cwd=tmp_path, stdin=json.dumps(_case("p")))
        assert proc.returncode == 0, proc.stderr
        assert sorted(p.name for p in out.iterdir()) == ["p.cpu.draw0.instance0.vs_in.csv",
                                                         "p.csv.json"]
    # R32_FLOAT values 1, 2, 3: one component, so the bare name; a point list of 3.
    assert (out / "p.cpu.draw0.instance0.vs_in.csv").read_text() == (
        "VTX, IDX, POSITION\n0, 0,  1.00\n1, 1,  2.00\n2, 2,  3.00\n")


@pytest.mark.parametrize("args, says", [
    (["run", str(TRIANGLE), "--out-dir", "{file}"], "is a file, not a folder"),
    (["run", str(TRIANGLE), "--out-dir", "{file}/sub"], "cannot create the folder"),
    (["run", str(TRIANGLE), "--out", "{dir}"], "is a folder, not a file name"),
    (["run", str(TRIANGLE), "--out", "{dir}/no/r.json"], "does not exist"),
    (["run", str(TRIANGLE), str(TRIANGLE), "--out", "{dir}/r.json"], "one case"),
    (["check", str(TRIANGLE), "--html", "{dir}"], "is a folder, not a file name"),
    (["run", str(TRIANGLE), "--csv", "{file}"], "is a file, not a folder"),
    (["check", str(TRIANGLE), "--csv", "{file}/sub"], "cannot create the folder"),
    (["check", str(TRIANGLE), "--junit", "{dir}"], "is a folder, not a file name"),
    (["check", str(TRIANGLE), "--junit", "{dir}/no/r.xml"], "does not exist"),
])
def test_unwritable_outputs_are_one_error_line(tmp_path, args, says):
    afile = tmp_path / "afile"
    afile.write_text("x")
    args = [a.format(dir=tmp_path, file=afile) for a in args]
    assert_one_error_line(gpuia_cli(*args, cwd=tmp_path), says)


def test_result_target_that_is_a_folder_is_one_error_line(tmp_path):
    out = tmp_path / "out"
    (out / "triangle_two_slots.json").mkdir(parents=True)
    assert_one_error_line(gpuia_cli("run", str(TRIANGLE), "--out-dir", str(out), cwd=tmp_path),
               "triangle_two_slots.json: is a folder")


def test_file_size_limit_is_one_error_line(tmp_path):
    """RLIMIT_FSIZE: Python ignores SIGXFSZ, so the write fails with EFBIG."""
    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))

    case = tmp_path / "c.json"
    case.write_text(json.dumps(_big_case(2000)))
    proc = subprocess.run([sys.executable, "-m", "gpuia", "run", str(case), "--out",
                           str(tmp_path / "r.json")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, preexec_fn=small_files)
    assert_one_error_line(proc, "r.json: cannot write: File too large")
    assert not (tmp_path / "r.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json"]


def test_stdout_on_a_full_device_is_one_error_line(tmp_path):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "gpuia", "run", str(TRIANGLE)],
                              cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=120)
    assert_one_error_line(proc, "standard output: cannot write: No space left on device")


def test_closed_pipe_on_stdout_ends_quietly(tmp_path):
    proc = subprocess.run(f"{sys.executable} -m gpuia formats | head -c 10 >/dev/null",
                          shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


# -- inputs ----------------------------------------------------------------------------------

def test_fifo_and_devices_are_refused_not_waited_on(tmp_path, gpu_device):
    """``check`` lists the adapters before it reads its input: it runs with one."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        for command in ("validate", "run", "check"):
            assert_one_error_line(gpuia_cli(command, path, cwd=tmp_path, timeout=60),
                                  "not a regular file")
        assert_one_error_line(gpuia_cli("layout", "--no-gpu", path, cwd=tmp_path, timeout=60),
                   "not a regular file")


def test_read_input_is_bounded(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2000)
    with pytest.raises(CaseError, match="2000 bytes: more than 1000"):
        read_input(big, limit=1000)


_SMALL_ADDRESS_SPACE = """
import resource, sys
from gpuia.util.files import read_input
resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))
print(len(read_input(sys.argv[1])), len(read_input("-")), len(read_input("/proc/self/stat")) > 0)
"""


def test_read_input_takes_memory_for_what_it_reads_not_for_its_limit(tmp_path):
    """A small file, standard input and a /proc file (size 0 on disk, text when read) read in
    full under a 512 MiB address-space cap, though the input limit is 1 GiB: a read never
    reserves the whole limit up front (a worker under RLIMIT_AS failed on every file)."""
    small = tmp_path / "small.json"
    small.write_bytes(b"x" * 3000)
    proc = subprocess.run([sys.executable, "-c", _SMALL_ADDRESS_SPACE, str(small)],
                          input=b"y" * 5000, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert proc.stdout.split() == [b"3000", b"5000", b"True"]


@pytest.mark.parametrize("stdin, says", [
    ("examples/cases/triangle_two_slots.json", "not valid JSON"),  # text, never a path
    ("\x00", "not valid JSON"),
    ("", "not valid JSON"),
])
def test_stdin_is_json_text_never_a_path(tmp_path, stdin, says):
    assert_one_error_line(gpuia_cli("validate", "-", cwd=ROOT, stdin=stdin), "error: stdin:", says)


def test_closed_stdin_is_one_error_line(tmp_path):
    proc = subprocess.run(f"{sys.executable} -m gpuia validate - <&-", shell=True, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert_one_error_line(proc, "standard input is closed")


def test_huge_integers_are_refused_by_position():
    with pytest.raises(CaseError, match=r"an integer of 5000 digits at line 2 column 7: no field "
                                        r"takes more than 40"):
        loads_json('{"a": 1,\n "b": ' + "9" * 5000 + "}")
    assert loads_json('{"a": ' + "9" * 40 + "}") == {"a": int("9" * 40)}


@pytest.mark.parametrize("field", ["name", "SemanticName", "stride", "VertexCountPerInstance"])
def test_huge_integer_in_any_field_is_one_error_line(tmp_path, field):
    text = json.dumps(_case()).replace('"POINTLIST"', '"POINTLIST", "x": 0')
    text = {"name": text.replace('"name": "c"', '"name": 1' + "0" * 5000),
            "SemanticName": text.replace('"POSITION"', "7" * 5000),
            "stride": text.replace('"stride": 4', '"stride": ' + "4" * 5000),
            "VertexCountPerInstance": text.replace('"VertexCountPerInstance": 3',
                                                   '"VertexCountPerInstance": ' + "3" * 5000),
            }[field]
    case = tmp_path / "c.json"
    case.write_text(text)
    assert_one_error_line(gpuia_cli("validate", str(case), cwd=tmp_path),
                          "5001 digits" if field == "name" else "5000 digits")


def test_huge_integer_in_layout_json_is_one_error_line(tmp_path):
    src = tmp_path / "l.json"
    src.write_text('[{"SemanticName": "P", "Format": "R32_FLOAT", "InputSlot": ' + "1" * 5000
                   + "}]")
    assert_one_error_line(gpuia_cli("layout", "--no-gpu", str(src), cwd=tmp_path), "5000 digits")


@pytest.mark.parametrize("where", ["name", "SemanticName"])
def test_lone_surrogate_is_one_error_line(tmp_path, where):
    text = json.dumps(_case())
    text = text.replace('"c"', '"a\\ud800"') if where == "name" else \
        text.replace('"POSITION"', '"POS\\udc00"')
    case = tmp_path / "c.json"
    case.write_text(text)
    line = assert_one_error_line(gpuia_cli("validate", str(case), cwd=tmp_path),
                                 "lone UTF-16 surrogate")
    assert ("input_layout[0].SemanticName" if where == "SemanticName" else "name") in line


@pytest.mark.parametrize("name", ["two\nlines", "cr\rname", "sep\u2028name", "nul\x00name"])
def test_case_name_with_control_characters_is_one_error_line(tmp_path, name):
    case = tmp_path / "c.json"
    case.write_text(json.dumps(_case(name)))
    assert_one_error_line(gpuia_cli("validate", str(case), cwd=tmp_path), "a case name is one line")
