"""Row chunks of the host's large-draw work (gpuia.util.parallel): they cover every row once, in
order, no piece larger than CHUNK_ROWS; where rows allow, every core gets two pieces, and no
piece is smaller than a sixteenth of CHUNK_ROWS unless the rows run out."""

from __future__ import annotations

import pytest

from gpuia.util import parallel
from gpuia.util.parallel import row_chunks, run_tasks


@pytest.mark.parametrize("cpus", [1, 2, 16, 64])
@pytest.mark.parametrize("n", [0, 1, 1000, 65536, 1 << 20, 10_000_000, 100_000_001])
def test_chunks_cover_rows_in_order(monkeypatch, cpus, n):
    monkeypatch.setattr(parallel, "usable_cores", lambda: cpus)
    chunks = row_chunks(n)
    covered = [r for a, b in chunks for r in (a, b)]
    # (0, b0), (b0, b1), ... (bk, n): each piece starts where the last stopped.
    assert covered == ([0] + [b for _, b in chunks[:-1] for _ in (0, 1)] + [n] if n else [])
    sizes = [b - a for a, b in chunks]
    assert all(0 < s <= parallel.CHUNK_ROWS for s in sizes)
    assert all(s >= min(n, parallel.CHUNK_ROWS // 16) for s in sizes[:-1])


def test_ten_million_rows_keep_sixteen_cores_busy(monkeypatch):
    """10M rows on 16 cores: 32 pieces of 312,500 rows (not 10 of 2**20, which would leave six
    cores idle); on 2 cores the pieces stay at CHUNK_ROWS (2**20 rows)."""
    monkeypatch.setattr(parallel, "usable_cores", lambda: 16)
    assert len(row_chunks(10_000_000)) == 32
    assert row_chunks(10_000_000)[0] == (0, 312_500)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    assert row_chunks(10_000_000)[0] == (0, 1 << 20)
    assert len(row_chunks(10_000_000)) == 10


def test_run_tasks_runs_every_task_and_raises_the_first_error():
    done = []
    run_tasks([lambda i=i: done.append(i) for i in range(40)], 40 * parallel.CHUNK_ROWS)
    assert sorted(done) == list(range(40))

    def fail():
        raise ValueError("task 3")

    with pytest.raises(ValueError, match="task 3"):
        run_tasks([lambda: None, fail, lambda: None], 3 * parallel.CHUNK_ROWS)
