"""Progress on long runs: a bar on a terminal, plain periodic lines elsewhere, nothing by default
when stderr is not a terminal.

``gpuia check`` and ``gpuia run`` count their cases with a :class:`Progress`; ``check`` also
counts the GPU runs of a large case (:data:`LARGE_CASE_INVOCATIONS` or more vertices) and the
rows of a large HTML report. Whether anything is shown is decided once by :func:`wanted`:
``--progress`` forces it on, ``--no-progress`` off, and without either it is on only when stderr
is a terminal, so CI logs and test output stay clean.

On a terminal, with the optional ``progress`` extra installed (tqdm), it is a tqdm bar. Without
tqdm, or when progress was forced on a stream that is not a terminal, it is one plain line every
``interval`` seconds and a last line when done, e.g. ``gpuia check: 3/10 cases (30%), 4.1 s``.
A disabled :class:`Progress` does nothing, so callers never branch on it.
"""

from __future__ import annotations

import io
import os
import shutil
import sys
import time

__all__ = ["LARGE_CASE_INVOCATIONS", "Progress", "wanted"]

# A case delivering this many vertices takes seconds per GPU run on a software adapter: worth a
# bar of its own over its runs.
LARGE_CASE_INVOCATIONS = 1 << 20


def wanted(flag: bool | None, stream=None) -> bool:
    """Whether to show progress: ``flag`` when given (``--progress`` / ``--no-progress``), else
    whether ``stream`` (default stderr) is a terminal."""
    if flag is not None:
        return bool(flag)
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def _tqdm():
    try:
        from tqdm import tqdm  # noqa: PLC0415 - optional extra, imported when a bar is drawn
    except ImportError:
        return None
    return tqdm


def _width(stream) -> dict:
    """tqdm's size arguments: follow the terminal where it reports a size; a terminal that
    reports 0 x 0 (a pseudo-terminal nobody sized, as in some containers) would make tqdm draw
    nothing at all, so it gets $COLUMNS x $LINES or 80 x 24."""
    try:
        size = os.get_terminal_size(stream.fileno())
        if size.columns > 0 and size.lines > 0:
            return {"dynamic_ncols": True}
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        pass
    size = shutil.get_terminal_size((80, 24))
    return {"ncols": size.columns, "nrows": size.lines}


class Progress:
    """Progress over ``total`` units named ``unit`` (``case``, ``run``, ``row``).

    ``enabled`` False: every method is a no-op and :meth:`write` just prints. ``plain`` True:
    plain lines even where tqdm could draw a bar. ``nested`` True: a second bar below an outer
    one, removed when done (tqdm), or plain lines indented by two spaces. Use it as a context
    manager or call :meth:`close`."""

    def __init__(self, total: int, desc: str, unit: str = "case", *, enabled: bool,
                 stream=None, interval: float = 2.0, plain: bool = False, nested: bool = False):
        self.total, self.desc, self.unit = int(total), desc, unit
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.interval = interval
        self.nested = nested
        self.done = 0
        self._start = self._last = time.monotonic()
        self._printed = False
        self._bar = None
        if enabled and not plain and wanted(None, self.stream):
            tqdm = _tqdm()
            if tqdm is not None:
                self._bar = tqdm(total=self.total, desc=desc, unit=unit, file=self.stream,
                                 position=1 if nested else 0, leave=not nested,
                                 mininterval=0.2, **_width(self.stream))

    @property
    def mode(self) -> str:
        """``off``, ``bar`` (tqdm) or ``lines`` (plain periodic lines)."""
        if not self.enabled:
            return "off"
        return "bar" if self._bar is not None else "lines"

    def update(self, n: int = 1, note: str = "") -> None:
        """Count ``n`` more units done; ``note`` (e.g. the case just finished) is shown with
        the bar or the next plain line."""
        if not self.enabled:
            return
        self.done += n
        if self._bar is not None:
            if note:
                self._bar.set_postfix_str(note, refresh=False)
            self._bar.update(n)
            return
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._line(note)
            self._last = now

    def _line(self, note: str = "") -> None:
        elapsed = time.monotonic() - self._start
        pct = f" ({100 * self.done // self.total}%)" if self.total else ""
        left = ""
        if 0 < self.done < self.total:
            left = f", ~{elapsed * (self.total - self.done) / self.done:.1f} s left"
        units = self.unit if self.total == 1 else f"{self.unit}s"
        indent = "  " if self.nested else ""
        tail = f" [{note}]" if note else ""
        print(f"{indent}{self.desc}: {self.done}/{self.total} {units}{pct}, {elapsed:.1f} s"
              f"{left}{tail}", file=self.stream, flush=True)
        self._printed = True

    def write(self, text: str, file=None) -> None:
        """Print ``text`` (a line or several) without breaking the bar."""
        file = sys.stdout if file is None else file
        if self._bar is not None:
            self._bar.write(text, file=file)
        else:
            print(text, file=file)

    def close(self) -> None:
        """Finish: close the bar, or print the last plain line."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.done or self._printed:
            self._line()
        self.enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
