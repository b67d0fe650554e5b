"""Files in and out: bounded reading of user input, JSON without traps, atomic output files.

Guaranteed:

* :func:`read_input` reads a regular file or standard input, at most :data:`MAX_INPUT_BYTES`;
  a FIFO, a device (``/dev/zero``), a folder or a closed stdin is refused with :class:`InputError`
  instead of hanging or reading without end.
* :func:`loads_json` parses JSON whose integers have at most :data:`MAX_JSON_INT_DIGITS` digits
  and whose strings hold no lone UTF-16 surrogate (``"\\ud800"``, which no file system, terminal
  or WGSL source can carry); both are refused by position.
* :func:`write_atomic` writes an output file under a temporary name in the same folder and
  renames it over the target, so a reader, a crash or a kill at any moment sees the old file or
  the new one, never a part. A SIGKILL can leave only the hidden temporary (``.NAME.*.part``).
  It renames over regular files only: a symbolic link is followed to the file it names, which is
  replaced (the link stays a link); a character device (``/dev/null``, a terminal) or a FIFO
  with a reader is written through, as a shell redirection writes it (not atomic: such a target
  has no old contents to keep); a FIFO without a reader, a block device, a socket and a link
  that never ends are refused by name. A replaced file keeps its permission bits (and its owner
  where the process may set it). Failures (a folder that is a file, permission, a full disk, the
  file-size limit) raise :class:`OutputError` naming the file and the reason. Inside
  :func:`scratch_writes` (a ``--workers`` worker's per-case report, read back at once and never
  kept) the file is not flushed to the disk (no ``fsync``): still renamed into place whole.
* :func:`safe_stem` turns a name that comes from inside an input (a case's own ``name``) into
  one file name component: no folder separators, no ``..``, no control characters, bounded
  length, so an output never lands outside the folder it was asked for.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import json
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

from ..errors import CaseError, GpuiaError

__all__ = ["MAX_INPUT_BYTES", "MAX_JSON_INT_DIGITS", "MAX_STEM_CHARS", "InputError", "OutputError",
           "read_input", "read_text", "loads_json", "make_folder", "write_atomic",
           "check_output", "safe_stem", "scratch_writes",
           "printable"]

MAX_INPUT_BYTES = 1 << 30
"""The largest case, layout or shader file read (1 GiB; a case at the default invocation limit
with every byte spelled in hex is well below it)."""
MAX_JSON_INT_DIGITS = 40
"""No field takes an integer past 2^64 (20 digits); 40 leaves room for a zero-padded one."""
MAX_STEM_CHARS = 120
"""File name components made from names inside inputs are cut to this many characters."""


class InputError(CaseError):
    """An input that cannot be read as a whole: missing, not a regular file, too large."""


class OutputError(GpuiaError, OSError):
    """An output file that could not be written; the message names the file and why."""


def _describe_os_error(exc: OSError) -> str:
    return exc.strerror or " ".join(str(exc).split()) or type(exc).__name__


def read_input(path: str | Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of ``path`` (``"-"``: standard input). Refuses anything but a regular file (a
    FIFO would block, ``/dev/zero`` never ends) and more than ``limit`` bytes."""
    if str(path) == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None or stream.closed:
            raise InputError("stdin", "standard input is closed")
        try:
            data = _read_bounded(stream, 0, limit)
        except (OSError, ValueError) as e:
            raise InputError("stdin", f"cannot read: {e}") from None
        if len(data) > limit:
            raise InputError("stdin", f"more than {limit} bytes (the input limit)")
        return data
    label = str(path)
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer; a regular file ignores it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise InputError(label, f"cannot read: {_describe_os_error(e)}") from None
    except ValueError as e:  # a NUL in the path
        raise InputError(label, f"cannot read: {e}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise InputError(label, "not a regular file (a FIFO, a device or a folder is not read)")
    if info.st_size > limit:
        os.close(fd)
        raise InputError(label, f"{info.st_size} bytes: more than {limit} (the input limit)")
    with os.fdopen(fd, "rb") as f:
        try:
            data = _read_bounded(f, info.st_size, limit)
        except OSError as e:
            raise InputError(label, f"cannot read: {_describe_os_error(e)}") from None
    if len(data) > limit:
        raise InputError(label, f"more than {limit} bytes (the input limit)")
    return data


_CHUNK = 1 << 20


def _read_bounded(f, expected: int, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``f``: ``read(n)`` reserves n bytes at once, so ask for
    what the file is expected to hold, then for chunks while more comes (a file that grows, a
    pipe, ``/proc`` files that report size 0)."""
    data = f.read(min(limit, expected) + 1)
    if len(data) <= expected:
        return data
    parts = [data]
    got = len(data)
    while got <= limit:
        more = f.read(min(_CHUNK, limit + 1 - got))
        if not more:
            break
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def read_text(path: str | Path, limit: int = MAX_INPUT_BYTES) -> str:
    """:func:`read_input` decoded as UTF-8 (refused with the byte offset if it is not)."""
    data = read_input(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError("stdin" if str(path) == "-" else str(path),
                         f"not UTF-8 text (byte {e.start}: {e.reason})") from None


_LONG_INT = re.compile(rf"-?\d{{{MAX_JSON_INT_DIGITS + 1},}}")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _line_col(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line} column {pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"


def _lone_surrogate_path(value, where: str = "") -> str | None:
    """Where the first string holding a surrogate code point is (JSON joins valid pairs, so
    any left is lone), or None."""
    stack = [(value, where)]
    while stack:
        v, w = stack.pop()
        if isinstance(v, str):
            if any("\ud800" <= ch <= "\udfff" for ch in v):
                return w or "the document"
        elif isinstance(v, dict):
            stack.extend((x, f"{w}.{k}" if w else str(k)) for k, x in reversed(v.items()))
            stack.extend((k, f"{w} (a key)") for k in v if isinstance(k, str))
        elif isinstance(v, list):
            stack.extend((x, f"{w}[{i}]") for i, x in reversed(list(enumerate(v))))
    return None


def loads_json(text: str, where: str = "json"):
    """``json.loads`` for user input: integers of at most :data:`MAX_JSON_INT_DIGITS` digits
    (Python refuses past 4300 with a bare ValueError), no lone surrogates, no recursion error;
    every refusal is a :class:`CaseError` at ``where``."""
    def bounded_int(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_JSON_INT_DIGITS:
            m = _LONG_INT.search(text)
            at = f" at {_line_col(text, m.start())}" if m else ""
            raise CaseError(where, f"an integer of {len(digits.lstrip('-'))} digits{at}: no "
                                   f"field takes more than {MAX_JSON_INT_DIGITS}")
        return int(digits)

    try:
        doc = json.loads(text, parse_int=bounded_int)
    except json.JSONDecodeError as e:
        raise CaseError(where, f"not valid JSON: {e}") from None
    except RecursionError:
        raise CaseError(where, "nested too deeply to be read") from None
    if _SURROGATE_ESCAPE.search(text):
        bad = _lone_surrogate_path(doc)
        if bad is not None:
            raise CaseError(where, f"{bad}: a lone UTF-16 surrogate escape (\\ud800-\\udfff "
                                   f"without its pair) is not text")
    return doc


_UMASK = os.umask(0o022)
os.umask(_UMASK)


_DURABLE: contextvars.ContextVar[bool] = contextvars.ContextVar("gpuia_durable_writes",
                                                               default=True)


@contextlib.contextmanager
def scratch_writes():
    """Within this block (in this thread or task: a context variable), :func:`write_atomic`
    skips ``fsync``: for files the caller reads back at once and deletes, where a disk flush
    per file only costs time (milliseconds each on some disks)."""
    token = _DURABLE.set(False)
    try:
        yield
    finally:
        _DURABLE.reset(token)


def write_atomic(path: str | Path, data: bytes | str) -> Path:
    """Write ``data`` (text is written as UTF-8) to ``path`` atomically (see the module
    docstring); the folder must exist. Returns the path."""
    target = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    real, info = _output_target(target)
    if info is not None and (stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
        _write_through(target, data)
        return target
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name[:MAX_STEM_CHARS]}.", suffix=".part",
                                   dir=real.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if _DURABLE.get():
                os.fsync(f.fileno())
        # mkstemp's 0600 would make results private; a file replaced keeps its own mode
        os.chmod(tmp, stat.S_IMODE(info.st_mode) & 0o777 if info else 0o666 & ~_UMASK)
        if info is not None and (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(OSError):  # only a privileged process may give it away
                os.chown(tmp, info.st_uid, info.st_gid)
        os.replace(tmp, real)
        tmp = None
    except OSError as e:
        raise OutputError(f"{target}: cannot write: {_describe_os_error(e)}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return target


_NOT_WRITTEN = ((stat.S_ISDIR, "is a folder, not a file name"),
                (stat.S_ISBLK, "is a block device: gpuia writes no output onto a disk"),
                (stat.S_ISSOCK, "is a socket, not a file"))
"""What an output path may not be, each with the reason its refusal gives."""


def _output_target(target: Path) -> tuple[Path, os.stat_result | None]:
    """The real path an output to ``target`` replaces (symbolic links followed) and what is
    there now (None: nothing); refuses a link loop and what :data:`_NOT_WRITTEN` names. What
    is there is asked of ``target`` itself, links followed as ``open`` follows them: a link of
    ``/proc/self/fd`` to a pipe (``/dev/stdout`` into a pipe, a shell's ``>(jq .)``) resolves
    to no path (``pipe:[...]``), yet opens."""
    try:
        real = Path(os.path.realpath(target))
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        info = None
    except (OSError, ValueError) as e:  # ValueError: a NUL in the path
        if isinstance(e, OSError) and e.errno == errno.ELOOP:
            raise OutputError(f"{_shown(target, real)}: is a symbolic link that never ends "
                              f"(a loop)") from None
        why = _describe_os_error(e) if isinstance(e, OSError) else str(e)
        raise OutputError(f"{target}: cannot write: {why}") from None
    if info is not None:
        for test, why in _NOT_WRITTEN:
            if test(info.st_mode):
                raise OutputError(f"{_shown(target, real)}: {why}")
    return real, info


def _shown(target: Path, real: Path) -> str:
    """``target`` as a message names it, with the path it resolves to where a link leads
    elsewhere (not merely because ``target`` is relative)."""
    return str(target) if real == Path(os.path.abspath(target)) else f"{target} (which is {real})"


def check_output(path: str | Path) -> None:
    """Refuse (:class:`OutputError`), before any work, an output path that
    :func:`write_atomic` would refuse (a folder, a block device, a socket, a link loop) or whose
    folder does not exist. Whether a FIFO has a reader is left to the write: one may start
    later."""
    target = Path(path)
    real, info = _output_target(target)
    if info is None and not real.parent.is_dir():
        folder = target.parent if real == Path(os.path.abspath(target)) else real.parent
        raise OutputError(f"{_shown(target, real)}: the folder {folder} does not exist")


def _write_through(target: Path, data: bytes) -> None:
    """Write ``data`` into a character device or a FIFO in place. A FIFO is opened without
    waiting: one that no process reads is refused instead of blocking forever."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise OutputError(f"{target}: a FIFO that no process reads (start its reader "
                              f"first)") from None
        raise OutputError(f"{target}: cannot write: {_describe_os_error(e)}") from None
    try:
        os.set_blocking(fd, True)  # a reader is there: wait for it, as a redirection does
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as e:
        raise OutputError(f"{target}: cannot write: {_describe_os_error(e)}") from None
    finally:
        os.close(fd)


def make_folder(path: str | Path, option: str) -> Path:
    """Create the output folder ``path`` (and its parents); an :class:`OutputError` naming
    ``option`` when it is a file, lies under one, or cannot be made."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"{option} {folder}: is a file, not a folder") from None
    except OSError as e:
        raise OutputError(f"{option} {folder}: cannot create the folder: "
                          f"{_describe_os_error(e)}") from None
    return folder


_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def safe_stem(name: str, fallback: str = "case") -> str:
    """One file name component for ``name``: runs of characters other than letters, digits,
    ``. _ + -`` become ``_``, leading dots are dropped (no ``..``, no hidden files), at most
    :data:`MAX_STEM_CHARS` characters; ``fallback`` when nothing is left."""
    stem = _UNSAFE.sub("_", name).lstrip(".")[:MAX_STEM_CHARS]
    return stem if stem.strip("_") else fallback


def printable(text: str) -> str:
    """``text`` as one line: control characters, line and paragraph separators and surrogates
    escaped (``\\n``, ``\\x00``, ``\\u2028``), so an error line stays one line."""
    out = []
    for ch in text:
        if ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii")
                       if not "\ud800" <= ch <= "\udfff" else f"\\u{ord(ch):04x}")
    return "".join(out)
