"""The options that spread a command over CI jobs and judge it against a baseline
(docs/scale-out.md): ``--shard K/N`` (``check``, ``run``, ``validate``, ``fuzz``) and, for
``check``, ``--json FILE``, ``--baseline FILE``, ``--flakes FILE`` and ``--write-baseline FILE``,
with :class:`CheckRecorder`, which saves ``check``'s results as they arrive.

Nothing here imports wgpu.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import GpuiaError
from ..harness.baseline import baseline_text, differences, outcomes, read_baseline, read_flakes
from ..harness.check_report import CaseRecord, Report, line_json
from ..harness.shards import Shard, parse_shard, select
from ..util.files import printable, write_atomic
from .common import EXIT_DIFF, EXIT_INVALID, EXIT_OK, error_line, output_stem, writable

__all__ = ["shard_option", "shard_cases", "check_report_options", "CheckRecorder"]

SAVE_SECONDS = 1.0
"""``--json`` is rewritten (atomically) at most this often while cases arrive, and at the end:
a run killed part way leaves a valid report of all but its last second's cases."""


def _shard(text: str) -> Shard:
    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def shard_option(p, text: str | None = None) -> None:
    """``--shard K/N``: run only the K-th of N disjoint parts (of the case arguments, unless
    ``text`` says what else)."""
    p.add_argument("--shard", type=_shard, default=None, metavar="K/N",
                   help=(text or "run only part K of N disjoint parts of the case arguments, "
                                 "split by each one's path, so that N jobs given the same "
                                 "list run each case once") + " (docs/scale-out.md)")


def shard_cases(args) -> list[tuple[int, str]]:
    """``(position among all the case arguments, path)`` of the cases of ``args.shard``'s
    part (every case without one), and ``args.cases`` narrowed to them."""
    selection = select(args.cases, args.shard)
    args.cases = [p for _, p in selection]
    return selection


def check_report_options(p) -> None:
    """``check``'s ``--json``, ``--baseline``, ``--flakes`` and ``--write-baseline``."""
    p.add_argument("--json", metavar="FILE", default=None,
                   help="also write every result as JSON, saved as cases arrive (a run stopped "
                        "part way leaves a valid partial report); 'gpuia report merge' joins "
                        "the reports of --shard jobs (docs/scale-out.md)")
    p.add_argument("--baseline", metavar="FILE", default=None,
                   help="a CSV file of expected results (case, path, adapter pattern, status: "
                        "pass, fail, error [lint code], crash, timeout): exit 0 when the run "
                        "matches it, 1 with one line per difference (a new failure or an "
                        "unexpected pass)")
    p.add_argument("--flakes", metavar="FILE", default=None,
                   help="patterns of cases whose result may vary: never a --baseline "
                        "difference")
    p.add_argument("--write-baseline", metavar="FILE", default=None,
                   help="write the run's results as a --baseline file")


class CheckRecorder:
    """``check``'s results as they arrive: a record per case, the ``--json`` report saved
    every :data:`SAVE_SECONDS` and at the end, and the baseline judged at the end.

    ``views``: the list check's ``--html`` appends a case's view to (its new last item is the
    case's); ``csv_dir``: the ``--csv`` folder, whose files of each case the report keeps.
    """

    def __init__(self, args, views: list):
        """Checks the output files and reads the baseline and flakes (before any case runs);
        raises GpuiaError naming the option."""
        self.args, self.views, self.csv_dir = args, views, None
        self.positions: Iterator[tuple[int, str]] = iter(())
        self.report = Report(len(args.cases), getattr(args, "command_line", None),
                             None if args.shard is None else str(args.shard),
                             views=bool(args.html), csv=args.csv is not None)
        self.expected: list = []
        self.flakes: list[str] = []
        self.open: CaseRecord | None = None  # the case being emitted, until it is done
        self.saved = time.monotonic()  # the first save a second in (and at the end)
        writable("--json", args.json)
        writable("--write-baseline", args.write_baseline)
        if args.baseline:
            self.expected = read_baseline(args.baseline)
        if args.flakes:
            self.flakes = read_flakes(args.flakes)

    def start(self, csv_dir, infos: dict, unavailable_pairs) -> None:
        """Narrow ``args.cases`` to ``--shard``'s part (after the CSV stems of all of them
        were claimed) and note the devices."""
        self.csv_dir = csv_dir
        self.positions = iter(shard_cases(self.args))
        self.report.adapters = dict(infos)
        self.report.unavailable = [(s, r) for s, r in unavailable_pairs]

    def _begin(self, path: str, label: str) -> CaseRecord:
        index, _ = next(self.positions)
        source = "stdin" if path == "-" else printable(path)
        self.open = CaseRecord(index, source, printable(label))
        self.report.cases.append(self.open)
        return self.open

    def emit(self, emit):
        """``emit`` of :func:`gpuia.cli.common.each_case_at_once`, recording each result."""
        def recorded(path, case, result):
            record = self._begin(path, result.case)
            record.lines = [line_json(ln) for ln in result.lines]
            before = len(self.views)
            try:
                status = emit(path, case, result)  # an error: on_error comes next, and ends it
            finally:
                self._extras(record, path, case, before)
            self._done()
            return status
        return recorded

    def on_error(self, on_error):
        """``on_error`` of :func:`gpuia.cli.common.each_case_at_once`, recording the error."""
        def recorded(label: str, message: str, path: str) -> None:
            record = self.open if self.open is not None else self._begin(path, label)
            record.error = message
            on_error(label, message, path)
            self._done()
        return recorded

    def add(self, record: CaseRecord) -> None:
        """Record a case whose outcome came whole (from a worker process), in case order: its
        ``index`` is set to the case's position among all the case arguments."""
        record.index, _ = next(self.positions)
        self.report.cases.append(record)
        self._done()

    def _extras(self, record, path, case, before: int) -> None:
        """The case's HTML view and CSV files, kept for the ``--json`` report only."""
        if not self.args.json:
            return
        if len(self.views) > before:
            from ..harness.report.view_codec import view_to_json

            record.view = view_to_json(self.views[-1])
        if self.csv_dir is not None:
            stem = output_stem(path, case, {}, "--csv")
            manifest = Path(self.csv_dir) / f"{stem}.csv.json"
            if manifest.is_file():
                import json

                listed = [f["file"] for f in json.loads(manifest.read_text())["files"]]
                record.csv_files = {name: (Path(self.csv_dir) / name).read_text()
                                    for name in [manifest.name, *listed]}

    def _done(self) -> None:
        self.open = None
        if self.args.json and time.monotonic() - self.saved >= SAVE_SECONDS:
            self.report.write(self.args.json)
            self.saved = time.monotonic()

    @contextlib.contextmanager
    def saving(self):
        """Saves the partial report when the run is stopped (Ctrl-C, SIGTERM)."""
        try:
            yield
        except BaseException:
            if self.args.json:
                with contextlib.suppress(OSError, GpuiaError):
                    self.report.write(self.args.json)
            raise

    def finish(self, status: int) -> int:
        """Save the complete report and the ``--write-baseline`` file, print one line per
        difference from ``--baseline``; returns the exit status: with a baseline, 0 when the
        run matches it and 1 otherwise."""
        self.report.complete = True
        results = outcomes(c.as_json() for c in self.report.cases)
        try:
            if self.args.json:
                self.report.write(self.args.json)
            if self.args.write_baseline:
                write_atomic(self.args.write_baseline, baseline_text(results))
        except (OSError, GpuiaError) as exc:
            error_line("check", exc)
            return EXIT_INVALID
        if not self.args.baseline:
            return status
        found = differences(results, self.expected, self.flakes)
        for line in found:
            print(line, file=sys.stdout)
        return EXIT_DIFF if found else EXIT_OK
