"""``gpuia layout`` on hostile C/C++: an include of a FIFO or of ``/dev/zero``, named directly or
through a macro, and a macro that expands exponentially. Each gives exit status 2 and one
``error:`` line naming the file and the reason, within bounded time and memory; SIGTERM and
SIGINT end a run at once, and no worker process outlives it.

Defects: libclang ran in gpuia's own process, so a FIFO include blocked for ever, ``/dev/zero``
grew memory without limit (11 GB in 8 s) and a signal did nothing until the parse returned.

Every run is a child process with a timeout (a regression fails the test instead of hanging
the suite) and a capped address space (it cannot exhaust the machine either).
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import REPO, assert_one_error_line

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="FIFOs, /dev/zero and /proc")

BOUND = 120  # seconds: a bound on a hang, not a speed requirement
CAP = 8 << 30  # bytes of address space for the whole run (gpuia and its worker)
GOOD = 'const D3D12_INPUT_ELEMENT_DESC good[] = { { "POSITION", 0, DXGI_FORMAT_R32_FLOAT } };\n'


def _cap():
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = CAP if hard == resource.RLIM_INFINITY else min(CAP, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _env(**limits) -> dict:
    env = dict(os.environ)
    env.update({k: str(v) for k, v in limits.items()})
    return env


def _layout(*files, timeout: float = BOUND, **limits) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpuia", "layout", "--no-gpu",
                           *map(str, files)], capture_output=True, text=True, timeout=timeout,
                          cwd=REPO, env=_env(**limits), preexec_fn=_cap, check=False)


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)  # nobody writes: opening it for reading blocks
    return path


def test_an_include_of_a_fifo_is_refused_before_the_compiler_runs(tmp_path, fifo):
    src = tmp_path / "a.cpp"
    src.write_text(f'#include "{fifo}"\n' + GOOD)
    assert_one_error_line(_layout(src), f"{src}:1: #include \"{fifo}\" names {fifo}, which is "
                                        f"not a regular file")


def test_an_include_of_dev_zero_is_refused_before_the_compiler_runs(tmp_path):
    src = tmp_path / "a.cpp"
    src.write_text('#include </dev/zero>\n' + GOOD)
    assert_one_error_line(_layout(src), f"{src}:1: #include </dev/zero> names /dev/zero, which "
                                        f"is not a regular file")


def test_a_fifo_named_through_a_macro_times_out_and_the_next_file_is_read(tmp_path, fifo):
    src = tmp_path / "a.cpp"
    src.write_text(f'#define HEADER "{fifo}"\n#include HEADER\n' + GOOD)
    good = tmp_path / "b.cpp"
    good.write_text(GOOD)
    started = time.monotonic()
    proc = _layout(src, good, GPUIA_SOURCE_TIMEOUT=3)
    assert time.monotonic() - started < BOUND / 2
    assert_one_error_line(proc, f"{src}: the compiler did not finish reading it in 3 s "
                                f"(GPUIA_SOURCE_TIMEOUT)")
    assert f"== {good}:1:32: good (D3D12_INPUT_ELEMENT_DESC, 1 elements)" in proc.stdout


def test_read_source_refuses_a_file_past_a_limit_and_reads_the_next(tmp_path, fifo,
                                                                    capped_python):
    src = tmp_path / "a.cpp"
    src.write_text(f'#define HEADER "{fifo}"\n#include HEADER\n' + GOOD)
    (tmp_path / "b.cpp").write_text(GOOD)
    # In a child of its own: a regression would block this process for ever.
    proc = capped_python("-c", f"""
import os
os.environ["GPUIA_SOURCE_TIMEOUT"] = "2"
from gpuia.source import SourceError, read_source
try:
    read_source({str(src)!r})
except SourceError as e:
    print(e.where, e.rule.split(":")[0])
print([a.name for a in read_source({str(tmp_path / "b.cpp")!r}).arrays])
""", timeout=BOUND)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        f"{src} the compiler did not finish reading it in 2 s (GPUIA_SOURCE_TIMEOUT)",
        "['good']"]



def test_an_include_of_standard_input_through_a_macro_reads_nothing_at_once(tmp_path):
    """The worker's protocol is not its standard input: an include of /dev/stdin, which no
    check before the compiler sees, read the parent's requests (it waited for the next one
    until the time limit)."""
    src = tmp_path / "a.cpp"
    src.write_text('#define HEADER "/dev/stdin"\n#include HEADER\n' + GOOD)
    started = time.monotonic()
    proc = _layout(src, GPUIA_SOURCE_TIMEOUT=BOUND)
    assert time.monotonic() - started < BOUND / 2
    assert proc.returncode == 0, proc.stderr
    assert f"== {src}:3:32: good (D3D12_INPUT_ELEMENT_DESC, 1 elements)" in proc.stdout

@pytest.mark.parametrize("text", [
    '#define DEVICE "/dev/zero"\n#include DEVICE\n',
    # Each level passes its argument twice: 2^40 tokens, which the preprocessor expands
    # before the parser sees any.
    "#define TWICE(x) x x\nint y[] = { " + "TWICE(" * 40 + "1" + ")" * 40 + " };\n",
], ids=["dev-zero-through-a-macro", "macro-bomb"])
def test_memory_without_end_is_refused_at_the_limit(tmp_path, text):
    src = tmp_path / "a.cpp"
    src.write_text(text + GOOD)
    assert_one_error_line(_layout(src, GPUIA_SOURCE_MEMORY_MB=256),
                          f"{src}: the compiler needed more than 256 MiB of memory "
                          f"(GPUIA_SOURCE_MEMORY_MB)")




def test_many_includes_are_found_in_linear_time():
    """Each include's line was counted from the start of the file: 100000 includes (1.5 MB)
    took 28 s, twice per file, before the compiler ran."""
    from gpuia.source.includes import written_includes

    data = b"int x;\n" + b"#include <a.h>\n" * 100000
    started = time.monotonic()
    found = written_includes(data)
    assert time.monotonic() - started < 5  # a bound on quadratic time, not a speed test
    assert found[0] == (2, False, "a.h") and found[-1] == (100001, False, "a.h")
    assert len(found) == 100000

@pytest.mark.parametrize("variable,value,most", [
    ("GPUIA_SOURCE_TIMEOUT", "abc", "1e+06"), ("GPUIA_SOURCE_TIMEOUT", "0", "1e+06"),
    ("GPUIA_SOURCE_TIMEOUT", "1e10", "1e+06"),  # select() cannot wait so long: a traceback
    ("GPUIA_SOURCE_MEMORY_MB", "1e308", "1.09951e+12"),  # bytes past a float: a traceback
    ("GPUIA_SOURCE_MEMORY_MB", "inf", "1.09951e+12"),
])
def test_a_limit_setting_out_of_range_is_one_error_line(tmp_path, variable, value, most):
    src = tmp_path / "a.cpp"
    src.write_text(GOOD)
    assert_one_error_line(_layout(src, **{variable: value}),
                          f"{variable}={value}: must be a positive number, at most {most}")


def test_a_current_folder_removed_is_one_error_line_naming_it(tmp_path):
    """os.getcwd() failed in the parent: the FileNotFoundError reached the command line, which
    took it for standard output ("standard output: cannot write")."""
    src = tmp_path / "a.cpp"
    src.write_text(GOOD)
    gone = tmp_path / "gone"
    gone.mkdir()

    def in_removed_folder():
        _cap()
        os.chdir(gone)
        os.rmdir(gone)

    proc = subprocess.run([sys.executable, "-c", "import sys; from gpuia.cli import main; "
                           "sys.exit(main(sys.argv[1:]))", "layout", "--no-gpu", str(src)],
                          capture_output=True, text=True, timeout=BOUND,
                          env=_env(PYTHONPATH=REPO), preexec_fn=in_removed_folder, check=False)
    assert_one_error_line(proc, f"{src}: cannot read the current folder, which relative paths "
                                f"are found from: No such file or directory")

def _worker_of(pid: int, within: float = 60) -> int:
    """The pid of gpuia's worker (``python -m gpuia.source.worker``), a child of ``pid``, once it
    runs. By its command line: another child (the ``ldconfig`` that ``ctypes.util.find_library``
    ran while gpuia imported, before the command set its signal handlers) is not it."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            children = [int(c) for task in Path(f"/proc/{pid}/task").iterdir()
                        for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            children = []
        for child in children:
            try:
                argv = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"gpuia.source.worker" in argv:
                return child
        time.sleep(0.05)
    raise AssertionError("gpuia started no worker process")


def _opening_fifo(pid: int, within: float = 60) -> bool:
    """Whether a thread of ``pid`` waits in the kernel for a FIFO's writer (``open`` of a FIFO
    nobody writes) within ``within`` seconds."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            if any((task / "wchan").read_text() == "wait_for_partner"
                   for task in Path(f"/proc/{pid}/task").iterdir()):
                return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def _gone(pid: int, within: float = 10) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":  # ended; its parent has not reaped it yet
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("signum,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_ends_a_run_at_once_and_its_worker_with_it(tmp_path, fifo, signum, status):
    src = tmp_path / "a.cpp"
    src.write_text(f'#define HEADER "{fifo}"\n#include HEADER\n' + GOOD)
    proc = subprocess.Popen([sys.executable, "-m", "gpuia", "layout", "--no-gpu", str(src)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            env=_env(GPUIA_SOURCE_TIMEOUT=BOUND), preexec_fn=_cap)
    try:
        worker = _worker_of(proc.pid)
        assert _opening_fifo(worker)  # the worker is blocked opening the FIFO
        sent = time.monotonic()
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)
        assert time.monotonic() - sent < 10
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == status, err
    assert err.splitlines() == [f"gpuia: interrupted by {signal.Signals(signum).name}"]
    assert _gone(worker)


def test_a_worker_outlives_no_parent_killed_beyond_clean_up(tmp_path, fifo):
    src = tmp_path / "a.cpp"
    src.write_text(f'#define HEADER "{fifo}"\n#include HEADER\n' + GOOD)
    proc = subprocess.Popen([sys.executable, "-m", "gpuia", "layout", "--no-gpu", str(src)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO,
                            env=_env(GPUIA_SOURCE_TIMEOUT=BOUND), preexec_fn=_cap)
    try:
        worker = _worker_of(proc.pid)
    finally:
        proc.kill()  # SIGKILL: no clean-up runs
        proc.wait()
    assert _gone(worker)


# -- files that are not C/C++ text -----------------------------------------------------------
# Before: "gpuia failed reading it (UnicodeDecodeError: ...)", as if gpuia had failed, for a
# binary file given by mistake, a header saved as UTF-16, or a stray byte in another encoding.
ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4  # an executable's start: NUL at byte 7
UTF16 = "\ufeffstruct V { float p; };\n".encode("utf-16-le")  # BOM ff fe, 's', then NUL: byte 3
STRAY = ('#include <d3d12.h>\n' + GOOD.rstrip("\n")).encode() + b" \xe9;\n"  # é in Latin-1


@pytest.mark.parametrize("command", ["layout", "translate"])
@pytest.mark.parametrize("name, data, rule", [
    ("a.exe.cpp", ELF, "not C or C++ source: byte 7 is NUL (a binary file, or text saved as "
                       "UTF-16; gpuia reads C/C++ as UTF-8)"),
    ("v.h", UTF16, "not C or C++ source: byte 3 is NUL (a binary file, or text saved as UTF-16; "
                   "gpuia reads C/C++ as UTF-8)"),
    # the stray byte is 1 + the length of the text before it; it stands on line 2
    ("stray.cpp", STRAY, f"not UTF-8 text (byte {STRAY.index(0xE9)}, line 2: invalid "
                         f"continuation byte): what the compiler reports of it cannot be read; "
                         f"save it as UTF-8"),
    ("a.json", b"\xff\xd8\xff\xe0\x00\x10JFIF", "not UTF-8 text (byte 0: invalid start byte)"),
], ids=["executable", "utf16", "stray_byte", "binary_json"])
def test_a_file_that_is_not_source_text_is_one_error_naming_it(tmp_path, command, name, data,
                                                               rule):
    path = tmp_path / name
    path.write_bytes(data)
    args = [command, str(path)] + (["--no-gpu"] if command == "layout" else [])
    proc = subprocess.run([sys.executable, "-m", "gpuia", *args], capture_output=True,
                          text=True, timeout=BOUND, cwd=REPO, preexec_fn=_cap, check=False)
    assert proc.stdout == ""
    assert_one_error_line(proc)
    assert proc.stderr.splitlines() == [f"error: {command}: {path}: {rule}"]


def test_a_comment_in_another_encoding_is_read(tmp_path):
    """The compiler skips a comment's bytes: a Latin-1 comment costs nothing."""
    src = tmp_path / "latin.cpp"
    src.write_bytes(b"// caf\xe9 au lait\n" + GOOD.encode())
    proc = _layout(src)
    assert proc.returncode == 0, proc.stderr
    assert f"== {src}:2:32: good (D3D12_INPUT_ELEMENT_DESC, 1 elements)" in proc.stdout
