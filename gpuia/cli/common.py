"""What every ``gpuia`` command shares: exit statuses, the one ``error:`` line, the option groups,
reading case arguments, output-file checks and the devices of the GPU commands.

Exit status: :data:`EXIT_OK` (0) success, :data:`EXIT_DIFF` (1) a difference was found,
:data:`EXIT_INVALID` (2) invalid input. Invalid input prints exactly one line per failing case,
``error: <case>: <where>: <rule>``, on stderr (:func:`error_line`), and no traceback.

Nothing here imports wgpu: ``gpuia --help`` and ``gpuia validate`` run without it.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

from ..d3d.feature_level import FEATURE_LEVELS
from ..errors import GpuiaError
from ..harness.case import load_case, load_case_text
from ..util.files import OutputError, check_output, printable, read_text, safe_stem
from ..util.lanes import MAX_LANES
from ..util.progress import Progress, wanted

__all__ = ["EXIT_OK", "EXIT_DIFF", "EXIT_INVALID", "HOST_OUT_OF_MEMORY", "error_line",
           "case_arguments", "gpu_options", "progress_option", "row_count", "whole_number",
           "load_case_arg",
           "each_case", "each_case_at_once", "lanes_option", "case_progress", "writable",
           "open_devices", "claim_stems", "output_stem", "feature_level_option"]

EXIT_OK, EXIT_DIFF, EXIT_INVALID = 0, 1, 2

HOST_OUT_OF_MEMORY = "out of host memory"
"""How an ``error:`` line names a :class:`MemoryError` of the host (numpy's, or an address-space
cap's), apart from gpuia's own refusals and the adapter's out-of-memory."""


def error_line(label: str, exc: BaseException) -> None:
    """Print the one ``error:`` line of an invalid input (exit status 2). An error that carries
    a compiler's multi-line ``diagnostic`` (gpuia.wgsl.diagnostics.ShaderCompileError) prints
    its one-line ``summary`` there, then the diagnostic's lines indented by four spaces."""
    detail = getattr(exc, "diagnostic", ())
    message = getattr(exc, "summary", None) if detail else None
    text = printable(" ".join((message or str(exc)).split())) or type(exc).__name__
    # wgpu's GPUOutOfMemoryError is a MemoryError too, but of the adapter, not the host.
    if isinstance(exc, MemoryError) and not isinstance(exc, GpuiaError) \
            and not type(exc).__module__.startswith("wgpu"):
        text = f"{HOST_OUT_OF_MEMORY}: {text}"
    print(f"error: {printable(label)}: {text}", file=sys.stderr)
    for line in detail:
        print(f"    {printable(line)}", file=sys.stderr)


# -- option groups ---------------------------------------------------------------------------
def case_arguments(p) -> None:
    """The case files a command reads (one or more; ``-`` is standard input)."""
    p.add_argument("cases", nargs="+", metavar="CASE", help="case file ('-' for stdin)")


def feature_level_option(p) -> None:
    """``--feature-level 10_0|10_1|11_0|12``: the Direct3D feature level whose limits the
    command validates at (rules 11.1), over a case's own ``feature_level``; absent: the case's,
    else D3D12's."""
    p.add_argument("--feature-level", choices=list(FEATURE_LEVELS), default=None,
                   metavar="LEVEL",
                   help=f"validate at this Direct3D feature level's limits: "
                        f"{', '.join(FEATURE_LEVELS)} (12 is D3D12); it overrides a case's "
                        f"feature_level (default: the case's, else 12)")


def gpu_options(p, allow_all: bool = False) -> None:
    """How a GPU command chooses its adapters and capture route."""
    extra = " ('all' for every adapter)" if allow_all else ""
    p.add_argument("--capture", choices=["auto", "storage", "targets"], default="auto",
                   help="how the GPU reports what vertex shaders received: storage writes from "
                        "the vertex stage (needs vertex-writable-storage), points rendered into "
                        "rgba32uint targets, or auto")
    p.add_argument("--adapter", metavar="SUBSTRING", default=None,
                   help=f"GPU adapter whose name contains SUBSTRING, or several separated by "
                        f"commas (env GPUIA_ADAPTER){extra}")
    p.add_argument("--gpu-backend", metavar="NAME", default=None,
                   help="only adapters of this wgpu backend: Vulkan, OpenGL, Metal, D3D12 "
                        "(env GPUIA_BACKEND)")


def compile_options(p) -> None:
    """The options C/C++ sources are compiled with (libclang), as the application's build
    passes them: ``-D``/``--define``, ``-I``/``--include``, ``--target``."""
    p.add_argument("-D", "--define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a preprocessor definition for C/C++ files, as the build passes it "
                        "(repeatable)")
    p.add_argument("-I", "--include", action="append", default=[], metavar="DIR",
                   help="a folder searched for #include in C/C++ files, such as the folder of "
                        "a real d3d12.h (repeatable, searched in order)")
    p.add_argument("--target", default=None, metavar="TRIPLE",
                   help="the target C/C++ is compiled for, which sets type sizes and struct "
                        "layout (default x86_64-pc-windows-msvc, as D3D12 code is built)")


def compile_settings(args) -> dict:
    """The :func:`gpuia.source.read_source` keywords of :func:`compile_options`' options,
    checked once before any file is read.

    Raises:
        GpuiaError: a malformed definition, include folder or target (the message names it).
    """
    from ..source import DEFAULT_TARGET
    from ..source.clang_parse import ParseOptions

    target = args.target or DEFAULT_TARGET
    ParseOptions(tuple(args.define), tuple(args.include), target).arguments()
    return {"defines": args.define, "include_dirs": args.include, "target": target}


def progress_option(p) -> None:
    """``--progress`` / ``--no-progress`` (see :mod:`gpuia.util.progress`)."""
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress on stderr over cases (and the runs of large cases); default: "
                        "only when stderr is a terminal")


def row_count(text: str) -> int:
    """An argparse type: a count of table rows, 0 or more."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: a row count is 0 or more")
    return value


# -- cases -----------------------------------------------------------------------------------
def _case_label(path: str) -> str:
    return Path(path).stem if path != "-" else "stdin"


def load_case_arg(path: str, feature_level: str | None = None):
    """The case a ``CASE`` argument names: a case file, or ``-``, standard input, which is
    always JSON text (never a path, whatever it starts with); validated at ``feature_level``
    (``--feature-level``) when given."""
    if path == "-":
        return load_case_text(read_text("-"), default_name="stdin", feature_level=feature_level)
    return load_case(Path(path), feature_level=feature_level)


def each_case(paths, action, progress=None, on_error=None, feature_level=None) -> int:
    """Run ``action(path, case)`` for every case, returning the worst exit status; an invalid
    case prints its error line (and is passed to ``on_error(label, message, path)``: the case's
    name, or its file stem when it could not be read, the error on one line, and the argument
    it came from) and the others still run. ``progress`` (a
    :class:`gpuia.util.progress.Progress`) counts the cases; ``feature_level`` is
    ``--feature-level``'s value. One case at a time: :func:`each_case_at_once` with one lane and
    nothing done off this thread."""
    return each_case_at_once(paths, lambda case: None,
                             lambda path, case, _nothing: action(path, case), 1, progress,
                             on_error, feature_level)


_HLSL_MARK = b'"hlsl'  # the "hlsl" and "hlsl_file" keys of a shader (docs/case-format.md)
_HLSL_LOOK_FILES = 16
_HLSL_LOOK_BYTES = 4 << 20


def start_hlsl_worker(paths) -> bool:
    """Start gpuia's Slang worker in the background (:func:`gpuia.hlsl.library.start_worker`)
    when one of the first case files names an HLSL shader, so that its start and Slang's session
    overlap the device's creation and the cases' loading instead of delaying the first compile.
    Reads at most the first 4 MiB of each of the first 16 regular files (standard input and
    anything else are not read: their compile starts the worker as before). Returns whether the
    worker runs."""
    for path in list(paths)[:_HLSL_LOOK_FILES]:
        if path == "-":
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except (OSError, ValueError):
            continue
        try:  # a directory opens on Linux, but only a regular file is read
            head = os.read(fd, _HLSL_LOOK_BYTES) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        except OSError:
            head = b""
        finally:
            os.close(fd)
        if _HLSL_MARK in head:
            from ..hlsl.library import start_worker

            return start_worker()
    return False


LANE_INVOCATIONS = 1 << 16
"""A case delivering this many vertices or more runs by itself in :func:`each_case_at_once`
(its own work is large enough to use the cores through row chunks)."""


def lanes_option(p) -> None:
    """``--jobs N``: cases worked on at once, on threads of this process."""
    p.add_argument("--jobs", type=whole_number("--jobs takes a whole number of 1 or more"),
                   default=None, metavar="N",
                   help="cases worked on at once, on threads of this process (default: one per "
                        f"core, at most {MAX_LANES}); their output stays in case order")


def whole_number(refusal: str):
    """An argparse type: a whole number of 1 or more; anything else is refused as
    ``"<text>: <refusal>"``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise argparse.ArgumentTypeError(f"{text}: {refusal}")
        return value
    return parse


def each_case_at_once(paths, work, emit, lanes: int | None, progress=None,
                      on_error=None, feature_level=None) -> int:
    """:func:`each_case` with the work of several cases at once: ``work(case)`` runs for up to
    ``lanes`` cases at a time on threads (:func:`gpuia.util.lanes.in_order`; None: one lane
    per core, at most :data:`~gpuia.util.lanes.MAX_LANES`), and ``emit(path, case, value)``
    on this thread, case after case in the order given, so the output is what one-by-one
    runs print. Cases are read on this thread; one that cannot be read, and one of
    :data:`LANE_INVOCATIONS` vertices or more, runs with nothing else in flight. Returns the
    worst exit status; invalid cases are reported as :func:`each_case` reports them. Cases
    are validated at ``feature_level`` when given (:func:`load_case_arg`)."""
    from ..util.interrupt import Interrupted, received
    from ..util.lanes import default_lanes, in_order

    def loaded():
        for path in paths:
            label = _case_label(path)
            try:
                case = load_case_arg(path, feature_level)
            except (GpuiaError, MemoryError) as exc:
                yield path, label, None, exc
                continue
            yield path, case.name, case, None

    def run(item):
        _path, _label, case, exc = item
        if exc is not None:
            raise exc
        return work(case)

    def alone(item) -> bool:
        return item[2] is None or item[2].invocation_count >= LANE_INVOCATIONS

    status = EXIT_OK
    count = default_lanes() if lanes is None else lanes
    if isinstance(paths, (list, tuple)):
        # No more lanes than cases: one case (each request of a --workers worker) runs on
        # this thread, without a thread pool started and joined around it.
        count = min(count, len(paths))
    for out in in_order(loaded(), run, count, alone):
        path, label, case, _ = out.item
        try:
            status = max(status, emit(path, case, out.get()) or EXIT_OK)
        except (GpuiaError, MemoryError) as exc:
            error_line(getattr(exc, "case_name", None) or label, exc)
            if on_error is not None:
                on_error(getattr(exc, "case_name", None) or label, " ".join(str(exc).split()),
                         path)
            status = EXIT_INVALID
        if progress is not None:
            progress.update(1, label)
        stopped = received()
        if stopped is not None:
            # A signal whose exception was dropped where Python drops exceptions (a finalizer
            # or weakref callback prints "Exception ignored" instead): stop between cases.
            raise Interrupted(stopped)
    return status


def case_progress(args, desc: str) -> Progress:
    """The progress over a command's cases: shown for several cases only, and only where
    :func:`gpuia.util.progress.wanted` says so (``--progress``, or stderr a terminal)."""
    return Progress(len(args.cases), desc, "case",
                    enabled=wanted(args.progress) and len(args.cases) > 1)


# -- outputs and devices ---------------------------------------------------------------------
def writable(option: str, target: str | None) -> None:
    """Refuse (:class:`~gpuia.util.files.OutputError`), before any GPU work, an output file
    that :func:`gpuia.util.files.check_output` refuses, naming ``option``."""
    if target is None:
        return
    try:
        check_output(target)
    except OutputError as e:
        raise OutputError(f"{option} {e}") from None


def open_devices(args, unavailable_to, pairs: list | None = None) -> tuple[list, list[str]]:
    """The devices of the adapters ``--adapter`` / ``--gpu-backend`` select, taken from the
    :class:`~gpuia.gpu.device.DevicePool` given to :func:`gpuia.cli.main` (else a pool of this
    command's own), and ``"<summary>: <reason>"`` for each adapter where no device could be
    made; each of those also prints ``<summary>: unavailable: <reason>`` on ``unavailable_to``
    and, when ``pairs`` is a list, is appended to it as ``(summary, reason)``.
    Raises :class:`~gpuia.errors.UnsupportedError` when no adapter matches."""
    # The GPU side imports wgpu, which only the commands that draw may cost.
    from ..gpu.device import DevicePool

    pool = args.device_pool if args.device_pool is not None else DevicePool()
    devices, unavailable = pool.select(args.adapter, args.gpu_backend)
    for summary, reason in unavailable:
        print(f"{summary}: unavailable: {reason}", file=unavailable_to)
    if pairs is not None:
        pairs.extend(unavailable)
    return devices, [f"{summary}: {reason}" for summary, reason in unavailable]


def _stem(path: str, case=None) -> str:
    return safe_stem(Path(path).stem if path != "-" else getattr(case, "name", "stdin"))


def claim_stems(paths, option: str) -> dict:
    """The output file stems of the case files given, refusing two inputs that would write
    the same files (``a/x.json`` and ``b/x.json``) before anything runs; standard input is
    named by its case, once read (:func:`output_stem`).

    Raises :class:`~gpuia.util.files.OutputError` naming ``option`` and both inputs."""
    taken: dict = {}
    for path in paths:
        if path == "-":
            continue
        stem = _stem(path)
        if taken.setdefault(stem, path) != path:
            raise OutputError(f"{option}: {taken[stem]} and {path} would both write the files "
                              f"of {stem}; run them into different folders")
    return taken


def output_stem(path: str, case, taken: dict, option: str) -> str:
    """The stem the outputs of ``case`` (read from ``path``) are named with: its file's stem,
    or for standard input the case's own name, one safe file name component
    (:func:`~gpuia.util.files.safe_stem`). ``taken`` (from :func:`claim_stems`) records it.

    Raises :class:`~gpuia.util.files.OutputError` when another input already has it."""
    stem = _stem(path, case)
    if taken.setdefault(stem, path) != path:
        raise OutputError(f"{option}: {taken[stem]} and {path} would both write the files of "
                          f"{stem}")
    return stem
