"""Generating fuzz cases: seeded, chunked draws of hypothesis strategies.

Chunk ``k`` of a run with seed ``S`` is the sequence of values hypothesis draws, under
``@seed`` (:func:`chunk_seed`: a number derived from ``S``, the mode and ``k``), with no example
database, when every value is reported uninteresting; chunk sizes are fixed
(:data:`CHUNK_SIZES`). So the same seed always gives the same cases in the same order, in any
process: hypothesis's harvest of constants from local modules is kept out of the draws.
:func:`drive` runs hypothesis over a strategy, shrinking where the caller's callback says a
value is interesting; :class:`Prefetch` and :class:`Drawers` draw chunks ahead of the run, in a
thread or in processes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import threading
from collections.abc import Callable

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

from .corrupt import corrupted_cases
from .strategies import cases

SHRINK_LIMIT = 20000
"""Successful shrinks hypothesis may make on one finding (its own default is 500)."""

CHUNK_SIZES = (16, 32, 64, 128, 256)
"""Sizes of the first chunks; every later chunk has the last size."""


def chunk_size(k: int) -> int:
    """The number of cases in chunk ``k``."""
    return CHUNK_SIZES[min(k, len(CHUNK_SIZES) - 1)]


def chunk_seed(run_seed: int, mode: str, k: int) -> int:
    """The hypothesis seed of chunk ``k`` (string seeding is hashed with SHA-512 by
    :class:`random.Random`, so it is the same in every process)."""
    return random.Random(f"gpuia-fuzz:{mode}:{run_seed}:{k}").getrandbits(64)


def case_digest(value) -> str:
    """A digest of a generated value (a case dict, or ``(what, bytes)`` in invalid mode)."""
    if isinstance(value, tuple):
        return hashlib.sha1(value[1]).hexdigest()
    return hashlib.sha1(json.dumps(value, sort_keys=True).encode()).hexdigest()


class _Interesting(Exception):
    """Raised inside the hypothesis test to make it shrink (never escapes :func:`drive`)."""


class StopDrawing(BaseException):
    """Raised inside the hypothesis test to end the run at once: hypothesis treats exceptions
    that are not ``Exception`` as interruptions, not as failures to shrink."""


@contextlib.contextmanager
def _without_local_constants():
    """hypothesis (6.1xx) mixes into its draws constants it harvests from the source of the
    "local" (not installed, not standard library) modules in ``sys.modules``, which includes an
    editable gpuia. Which modules are imported differs from one process to the next, and grows
    as cases run, so the same seed would draw different cases. During a fuzz run the harvest is
    replaced by an empty pool (and hypothesis's cache of it cleared on entry and exit), so the
    draws depend on the seed and the hypothesis version only."""
    try:
        from hypothesis.internal.conjecture import providers

        saved, empty = providers._get_local_constants, providers.Constants()
        cache = providers.CONSTANTS_CACHE.cache
    except (ImportError, AttributeError, TypeError):  # another hypothesis: nothing to do
        yield
        return
    providers._get_local_constants = lambda: empty
    cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = saved
        cache.clear()


def drive(strategy, hseed: int, max_examples: int, on_value: Callable[[object], bool]) -> None:
    """Run hypothesis over ``strategy`` with seed ``hseed``; ``on_value(v)`` True shrinks."""
    from hypothesis.internal.conjecture import engine as conjecture

    # hypothesis stops after 500 successful shrinks. The strategies draw the fields of absent
    # items too (see gpuia.fuzz.strategies), and simplifying those counts as shrinks, although
    # the case does not change (such candidates are answered from the memo, without running).
    # The time limit of the shrink bounds the run instead.
    if getattr(conjecture, "MAX_SHRINKS", SHRINK_LIMIT) < SHRINK_LIMIT:
        conjecture.MAX_SHRINKS = SHRINK_LIMIT

    @settings(database=None, max_examples=max_examples, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
              verbosity=Verbosity.quiet, report_multiple_bugs=False, print_blob=False)
    @seed(hseed)
    @given(strategy)
    def test(value):
        if on_value(value):
            raise _Interesting

    try:
        with _without_local_constants():
            test()
    except (_Interesting, StopDrawing):
        pass


def strategy(mode: str, so: bool, gs: bool = False):
    """The mode's hypothesis strategy: corrupted case-file bytes (``invalid``) or valid cases;
    ``so`` and ``gs`` as :func:`gpuia.fuzz.strategies.cases` takes them."""
    return corrupted_cases(so=so, gs=gs) if mode == "invalid" else cases(so=so, gs=gs)


def generate(run_seed: int, count: int, *, mode: str = "valid", so: bool = False,
             gs: bool = False) -> list:
    """The first ``count`` values a run with ``run_seed`` draws (no case is run)."""
    out: list = []
    k = 0
    while len(out) < count:
        out += draw_chunk(mode, so, run_seed, k, gs)
        k += 1
    return out[:count]


def draw_chunk(mode: str, so: bool, run_seed: int, k: int, gs: bool = False) -> list:
    """The values of chunk ``k`` of a run with ``run_seed`` (none is run)."""
    values: list = []

    def keep(v):
        values.append(v)
        return False

    drive(strategy(mode, so, gs), chunk_seed(run_seed, mode, k), chunk_size(k), keep)
    return values


class Prefetch:
    """Chunk ``k`` drawn in a background thread; :meth:`result` waits for it."""

    def __init__(self, mode: str, so: bool, run_seed: int, k: int, gs: bool = False):
        self._values: list = []
        self._error: BaseException | None = None

        def work():
            try:
                self._values = draw_chunk(mode, so, run_seed, k, gs)
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
                self._error = e

        self._thread = threading.Thread(target=work, name=f"gpuia-fuzz-chunk-{k}", daemon=True)
        self._thread.start()

    def result(self) -> list:
        """The chunk's values (an error drawing it is raised here)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._values


class Drawn:
    """Chunk ``k`` drawn by a process of a :class:`Drawers` pool."""

    def __init__(self, pending):
        self._pending = pending

    def result(self) -> list:
        """The chunk's values, once drawn."""
        values: list = self._pending.get()
        return values


class Drawers:
    """Processes drawing chunks ahead of the run, ``processes`` of them, each chunk whole in
    one process: drawing is pure Python (hypothesis), so on this process's threads it would hold
    the GIL against the parent's pipe I/O and cap a campaign at one core's drawing. A chunk's
    values depend on (mode, so, gs, seed, k) alone (:func:`chunk_seed`), so any process draws the
    same ones. Spawned, not forked: the parent may hold a wgpu device and threads.
    :meth:`close` ends the processes at once (a chunk being drawn is dropped)."""

    def __init__(self, mode: str, so: bool, run_seed: int, processes: int, gs: bool = False,
                 step: int = 1):
        import multiprocessing

        from gpuia.util.interrupt import signals_held

        self.args = (mode, so, run_seed)
        self.gs = gs
        self.ahead = processes
        self.step = step  # the run's chunks are k, k + step, ... (--shard)
        # A signal in the middle of starting a child would leave it half told what to run: it
        # dies printing multiprocessing's EOFError on the user's stderr.
        pool = None
        try:
            with signals_held():
                pool = multiprocessing.get_context("spawn").Pool(processes)
        except BaseException:
            if pool is not None:  # the signal came while they started: none is left behind
                pool.terminate()
                pool.join()
            raise
        self._pool = pool
        self._pending: dict[int, Drawn] = {}

    def chunk(self, k: int) -> Drawn:
        """Chunk ``k`` (drawing it and the run's next ones, one per process, if not yet
        asked)."""
        for j in range(k, k + self.ahead * self.step, self.step):
            if j not in self._pending:
                self._pending[j] = Drawn(self._pool.apply_async(draw_chunk,
                                                                (*self.args, j, self.gs)))
        return self._pending.pop(k)

    def close(self) -> None:
        """End the processes at once."""
        self._pool.terminate()
        self._pool.join()


MAX_DRAWING_PROCESSES = 8
"""The most processes drawing chunks ahead. A chunk is drawn whole by one process (its cases
depend on its seed alone), and the later chunks are 256 cases, several seconds of hypothesis
each: enough processes draw the next chunks while the current one runs, so the children rarely
wait for cases."""
