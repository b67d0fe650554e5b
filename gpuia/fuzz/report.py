"""What a fuzz run was asked to do, what it found, and how it says so.

:class:`FuzzConfig` is the run's request, :class:`Finding` one finding, :class:`FuzzReport` the
run's counts, findings and summary (with the command line that runs its cases again).
:func:`save_finding` writes a finding as case files (the minimal case, the original one unless
it is a duplicate) and a text report, each atomically; :func:`print_finding` prints it.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..harness.shards import Shard
from ..util.files import write_atomic
from .pool import Outcome


@dataclass
class FuzzConfig:
    """What ``gpuia fuzz`` was asked to do. ``seconds``/``cases``: stop at whichever comes
    first (at least one must be set). ``paths``: GPU paths to compare (empty: CPU reference
    only, in this process). ``so``/``gs``: draw cases with Stream Output / geometry shaders
    (:func:`gpuia.fuzz.strategies.cases`). ``memory_limit_mb``: address-space headroom of
    each child (None: 4096 MiB on CPU adapters, unlimited on others; 0: unlimited)."""

    mode: str = "valid"
    seed: int = 0
    seconds: float | None = None
    cases: int | None = None
    paths: tuple = ("native", "pulling")
    so: bool = False
    gs: bool = False
    adapter: str | None = None
    gpu_backend: str | None = None
    capture: str = "auto"
    out: Path = Path("fuzz-out")
    jobs: int = 1
    timeout: float = 120.0
    max_findings: int = 1
    shrink_seconds: float = 300.0
    memory_limit_mb: int | None = None
    progress_interval: float = 10.0
    shard: Shard | None = None  # --shard K/N: the chunks k with k mod N == K - 1


@dataclass
class Finding:
    kind: str
    detail: str
    chunk: int
    index: int
    original: object
    minimal: object
    outcome: Outcome
    shrink_runs: int = 0
    shrunk: bool = True
    path: Path | None = None
    duplicate_of: str | None = None


@dataclass
class FuzzReport:
    config: FuzzConfig
    cases: int = 0
    seconds: float = 0.0
    outcomes: Counter = field(default_factory=Counter)
    paths: dict = field(default_factory=dict)  # path -> Counter of line statuses
    findings: list = field(default_factory=list)
    adapters: list = field(default_factory=list)
    restarts: int = 0
    shrink_seconds: float = 0.0
    memory: dict = field(default_factory=dict)  # parent/worker RSS samples in MiB
    digests: list = field(default_factory=list)  # only when Fuzzer(record_digests=True)
    interrupted: bool = False

    @property
    def rate(self) -> float:
        run = self.seconds - self.shrink_seconds
        return self.cases / run if run > 0 else 0.0

    def command_line(self) -> str:
        """The ``gpuia fuzz`` command line that runs this run's cases again, quoted for a POSIX
        shell: the seed, ``--cases`` the count that ran (when none ran, which ``--cases``
        refuses, the limit asked for), and the options that choose the cases and where they
        run. ``gpuia fuzz``'s own parser accepts it."""
        c = self.config
        parts = ["gpuia", "fuzz", "--seed", str(c.seed)]
        if self.cases:
            parts += ["--cases", str(self.cases)]
        elif c.cases:
            parts += ["--cases", str(c.cases)]
        elif c.seconds:
            parts += ["--seconds", str(c.seconds)]
        if c.shard is not None:
            parts += ["--shard", str(c.shard)]
        if c.mode == "invalid":
            parts.append("--invalid")
        if c.so:
            parts.append("--so")
        if c.gs:
            parts.append("--gs")
        if tuple(c.paths) != ("native", "pulling") and c.mode == "valid":
            parts += ["--paths", ",".join(c.paths) or "none"]
        if c.adapter:
            parts += ["--adapter", c.adapter]
        if c.gpu_backend:
            parts += ["--gpu-backend", c.gpu_backend]
        if c.capture != "auto":
            parts += ["--capture", c.capture]
        return shlex.join(parts)

    def summary(self) -> str:
        c = self.config
        shrinking = f", {self.shrink_seconds:.1f} s shrinking" if self.shrink_seconds else ""
        shard = f", shard {c.shard}" if c.shard is not None else ""
        lines = [(f"fuzz summary: {c.mode} cases, seed {c.seed}{shard}: {self.cases} cases in "
                  f"{self.seconds:.1f} s ({self.rate:.1f} cases/s{shrinking})")]
        if self.adapters:
            lines.append("  adapters: " + "; ".join(self.adapters))
        for path, counts in sorted(self.paths.items()):
            lines.append(f"  {path}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
        lines.append("  outcomes: " + (", ".join(f"{v} {k}" for k, v in
                                                 sorted(self.outcomes.items())) or "none"))
        if self.restarts:
            lines.append(f"  child restarts: {self.restarts}")
        if self.memory:
            m = self.memory
            lines.append(f"  memory (RSS MiB): parent {m['parent_first']} -> {m['parent_last']} "
                         f"(peak {m['parent_peak']}), children {m['child_first']} -> "
                         f"{m['child_last']} (peak {m['child_peak']})")
        new = [f for f in self.findings if f.duplicate_of is None]
        lines.append(f"  findings: {len(new)}" + (f" (+{len(self.findings) - len(new)} "
                                                  f"duplicates)" if len(new) < len(self.findings)
                                                  else ""))
        for f in new:
            lines.append(f"    {f.kind}: {f.detail[:200]}  -> {f.path}")
        if self.interrupted:
            lines.append("  interrupted before the limit")
        lines.append(f"  reproduce: {self.command_line()}")
        return "\n".join(lines)


def case_bytes(value, name: str, description: str) -> bytes:
    """A generated value as a case file: corrupted bytes as they are; a case dict as indented
    JSON with ``name`` and ``description`` first after the version."""
    if isinstance(value, tuple):
        return value[1]
    doc = dict(value)
    doc = {"gpuia_case": doc.pop("gpuia_case", 1), "name": name, "description": description,
           **{k: v for k, v in doc.items() if k not in ("name", "description")}}
    return (json.dumps(doc, indent=1) + "\n").encode()


def save_finding(config: FuzzConfig, f: Finding) -> Path:
    """Write a finding into ``config.out`` (made if missing): ``<stem>.json`` the minimal case,
    ``<stem>.orig.json`` the original (unless ``f`` is a duplicate), ``<stem>.txt`` the report;
    returns the minimal case's path."""
    c = config
    out = Path(c.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{c.mode}-{c.seed}-{f.chunk}-{f.index}-{f.kind}"
    desc = (f"gpuia fuzz finding ({f.kind}): {f.detail[:500]} Found by: gpuia fuzz --seed "
            f"{c.seed}{' --invalid' if c.mode == 'invalid' else ''}{' --so' if c.so else ''}"
            f"{' --gs' if c.gs else ''}{f' --shard {c.shard}' if c.shard else ''} "
            f"(chunk {f.chunk}, case {f.index}); minimal case after "
            f"{f.shrink_runs} shrink runs.")
    path = out / f"{stem}.json"
    write_atomic(path, case_bytes(f.minimal, stem, desc))
    if f.duplicate_of is None:
        write_atomic(out / f"{stem}.orig.json",
                     case_bytes(f.original, stem + "-orig", desc))
    write_atomic(out / f"{stem}.txt", finding_text(config, f, path))
    return path


def finding_text(config: FuzzConfig, f: Finding, path: Path) -> str:
    """A finding's text report: kind, detail, seed, shrinking, how to reproduce it, and what
    the run printed."""
    o = f.outcome
    lines = [f"kind: {f.kind}", f"detail: {f.detail}",
             f"seed: {config.seed} (mode {config.mode}, chunk {f.chunk}, "
             f"case {f.index})",
             f"shrink runs: {f.shrink_runs}" + (
                 f" (not shrunk: probably the same finding as {f.duplicate_of})"
                 if f.duplicate_of else "" if f.shrunk
                 else " (not shrunk: the replay did not reach the case)"),
             f"reproduce: gpuia {o.answer.get('command', 'check')} {path}"]
    if isinstance(f.minimal, tuple):
        lines.append("corruptions: " + "; ".join(f.minimal[0]))
    for line in o.lines:
        if line.get("text"):
            lines += ["", line["text"]]
    for key in ("traceback", "stdout", "stderr"):
        if o.answer.get(key):
            lines += ["", f"{key}:", o.answer[key].rstrip()]
    if o.stderr:
        lines += ["", "child stderr (last lines):", o.stderr.strip()]
    return "\n".join(lines) + "\n"


def print_finding(out, f: Finding) -> None:
    """Print a saved finding to ``out``: kind, detail, its files, how to reproduce it and, up
    to 4000 bytes, the minimal case."""
    assert f.path is not None  # saved before it is printed
    data = Path(f.path).read_bytes()
    lines = [f"FINDING {f.kind}: {f.detail[:500]}",
             f"  minimal case: {f.path} ({len(data)} bytes, {f.shrink_runs} shrink runs)",
             f"  report: {Path(f.path).with_suffix('.txt')}",
             f"  reproduce: gpuia check {f.path}"]
    if isinstance(f.minimal, tuple):
        lines.append("  corruptions: " + "; ".join(f.minimal[0]))
    if len(data) <= 4000:
        lines.append(data.decode("utf-8", "replace").rstrip())
    out.write("\n".join(lines) + "\n")
    out.flush()
