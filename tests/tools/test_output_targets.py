"""What an output path is decides how it is written: a regular file is replaced atomically, a
symbolic link's file is replaced (the link stays), a character device or a FIFO with a reader is
written through, and nothing that is not a regular file is ever renamed over (a device node, a
FIFO or a link replaced by a plain file was the defect)."""

from __future__ import annotations

import os
import socket
import stat
import threading

import pytest

from gpuia.util.files import OutputError, check_output, scratch_writes, write_atomic
from helpers import TRIANGLE, assert_one_error_line, gpuia_cli


def _kind(path) -> str:
    mode = os.lstat(path).st_mode
    for test, name in ((stat.S_ISLNK, "link"), (stat.S_ISREG, "file"), (stat.S_ISFIFO, "fifo"),
                       (stat.S_ISCHR, "char"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "other"


def test_an_output_is_flushed_to_disk_except_a_scratch_file(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    write_atomic(tmp_path / "kept.json", "1")
    assert len(synced) == 1
    with scratch_writes():  # a worker's per-case report: read back at once, never kept
        write_atomic(tmp_path / "scratch.json", "2")
        seen = []
        t = threading.Thread(target=lambda: seen.append(write_atomic(tmp_path / "t.json", "3")))
        t.start()
        t.join()
    assert len(synced) == 2  # the other thread's write is not in the block: flushed
    write_atomic(tmp_path / "after.json", "4")
    assert len(synced) == 3
    assert [(tmp_path / n).read_text() for n in ("kept.json", "scratch.json", "t.json",
                                                  "after.json")] == ["1", "2", "3", "4"]


def test_a_symlink_stays_a_link_and_its_file_is_replaced_whole(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    inode = real.stat().st_ino
    link = tmp_path / "link.json"
    link.symlink_to("real.json")
    write_atomic(link, "new")
    assert _kind(link) == "link" and os.readlink(link) == "real.json"
    assert real.read_text() == "new"
    assert real.stat().st_ino != inode  # replaced by rename, not rewritten in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_a_chain_of_links_and_a_dangling_link_write_the_file_they_name(tmp_path):
    (tmp_path / "sub").mkdir()
    a, b = tmp_path / "a", tmp_path / "b"
    b.symlink_to("sub/out.txt")  # dangling: writing through it creates the file, as open() does
    a.symlink_to("b")
    write_atomic(a, "x")
    assert _kind(a) == _kind(b) == "link"
    assert (tmp_path / "sub" / "out.txt").read_text() == "x"


def test_a_link_loop_is_refused_by_name(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.symlink_to("b")
    b.symlink_to("a")
    with pytest.raises(OutputError, match="never ends"):
        write_atomic(a, "x")
    assert _kind(a) == _kind(b) == "link"


def test_a_replaced_file_keeps_its_permission_bits(tmp_path):
    target = tmp_path / "private.json"
    target.write_text("old")
    target.chmod(0o600)
    write_atomic(target, "new")
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o600


def test_a_fifo_with_a_reader_is_written_through_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    opened = threading.Event()

    def read():
        with open(fifo, "rb") as f:
            opened.set()
            got.append(f.read())

    reader = threading.Thread(target=read)
    reader.start()
    # the reader's open blocks until a writer comes; a writer that opens first without
    # waiting finds no reader, so give the reader its open first
    fd = os.open(fifo, os.O_WRONLY)  # meets the reader's open
    opened.wait(10)
    write_atomic(fifo, b"through the pipe")
    os.close(fd)
    reader.join(10)
    assert got == [b"through the pipe"]
    assert _kind(fifo) == "fifo"


def test_a_fifo_nobody_reads_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="no process reads"):
        write_atomic(fifo, "x")
    assert _kind(fifo) == "fifo"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_character_devices_are_written_through_never_replaced():
    write_atomic("/dev/null", "discarded")
    assert _kind("/dev/null") == "char"
    if os.path.exists("/dev/full"):  # Linux: every write fails with ENOSPC
        with pytest.raises(OutputError, match="/dev/full: cannot write: No space left"):
            write_atomic("/dev/full", "x")
        assert _kind("/dev/full") == "char"


def test_a_socket_is_refused_by_name(tmp_path):
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        with pytest.raises(OutputError, match="is a socket"):
            write_atomic(path, "x")
        assert _kind(path) == "socket"


def test_a_link_to_a_folder_is_refused_as_a_folder(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "l").symlink_to("dir")
    with pytest.raises(OutputError, match=r"l \(which is .*dir\): is a folder"):
        write_atomic(tmp_path / "l", "x")


def test_a_refusal_names_where_a_link_leads_and_only_then(tmp_path, monkeypatch):
    """A dangling link's missing folder is the one it leads to (it named the link's own
    folder, which exists); a relative path that is no link is named as given (it was shown
    with "(which is <its absolute path>)")."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dir").mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "gone" / "x")
    with pytest.raises(OutputError) as refused:
        check_output("dangling")
    assert str(refused.value) == f"dangling (which is {tmp_path / 'gone' / 'x'}): the folder " \
                                 f"{tmp_path / 'gone'} does not exist"
    with pytest.raises(OutputError) as refused:
        check_output("dir")
    assert str(refused.value) == "dir: is a folder, not a file name"
    with pytest.raises(OutputError) as refused:
        check_output("no/x")
    assert str(refused.value) == "no/x: the folder no does not exist"


def test_run_out_to_dev_null_and_to_a_fifo_without_reader(tmp_path):
    """The command line's outputs take the same path: ``--out /dev/null`` keeps the device
    node; ``--out FIFO`` with no reader is one error line, exit 2, the FIFO left as it is."""
    case = TRIANGLE
    done = gpuia_cli("run", str(case), "--out", "/dev/null")
    assert done.returncode == 0, done.stderr
    assert _kind("/dev/null") == "char"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = gpuia_cli("run", str(case), "--out", str(fifo))
    assert_one_error_line(done, "no process reads")
    assert _kind(fifo) == "fifo"


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="Linux's /proc/self/fd")
def test_a_pipe_named_through_proc_self_fd_is_written_through():
    """``/dev/stdout`` into a pipe, and a shell's ``>(jq .)`` (``/dev/fd/63``), are links of
    /proc/self/fd whose real path is no path (``pipe:[1234]``): the output was refused,
    "cannot write: No such file or directory", though the pipe opens."""
    r, w = os.pipe()
    try:
        write_atomic(f"/proc/self/fd/{w}", b"through the pipe")
        os.close(w)
        w = -1
        with os.fdopen(r, "rb") as f:
            r = -1
            assert f.read() == b"through the pipe"
    finally:
        for fd in (r, w):
            if fd >= 0:
                os.close(fd)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="Linux's /proc/self/fd")
def test_run_out_to_dev_stdout_into_a_pipe():
    done = gpuia_cli("run", str(TRIANGLE), "--out", "/dev/stdout")  # stdout: a pipe
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('{\n "gpuia_result": 1,'), done.stdout[:200]
