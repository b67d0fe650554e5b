"""``--shard K/N`` (gpuia.harness.shards, docs/scale-out.md): the N parts of a case list cover it
exactly once, a case's part depends on the case alone, and fuzz chunks split the same way."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import pytest

from gpuia.harness.shards import Shard, case_identity, parse_shard, select, shard_number
from helpers import EXAMPLE_CASES, REPO

EXAMPLES = sorted(str(p.relative_to(REPO)) for p in EXAMPLE_CASES.glob("*.json"))
GENERATED = [f"corpus/{d}/case_{i:04d}.json" for d in ("ia", "so", "gs") for i in range(400)]


@pytest.mark.parametrize("corpus", [EXAMPLES, GENERATED], ids=["examples", "generated"])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 16])
def test_the_parts_cover_every_case_exactly_once(corpus, n):
    parts = [select(corpus, Shard(k, n)) for k in range(1, n + 1)]
    positions = sorted(i for part in parts for i, _ in part)
    assert positions == list(range(len(corpus)))  # each once: no case lost, none run twice
    for part in parts:
        assert [i for i, _ in part] == sorted(i for i, _ in part)  # in the order given
        assert all(corpus[i] == p for i, p in part)


def test_a_case_keeps_its_part_whatever_else_is_given():
    n = 5
    whole = {p: k for k in range(1, n + 1) for _, p in select(GENERATED, Shard(k, n))}
    some = GENERATED[::7] + ["corpus/new/case.json"]
    for k in range(1, n + 1):
        for _, p in select(some, Shard(k, n)):
            if p in whole:
                assert whole[p] == k


def test_the_parts_of_a_large_corpus_are_near_even():
    # 1200 cases over 4 parts: a hash split gives each about 300 (binomial sd ~15).
    sizes = [len(select(GENERATED, Shard(k, 4))) for k in range(1, 5)]
    assert sum(sizes) == 1200 and all(240 <= s <= 360 for s in sizes), sizes


def test_one_case_spelled_three_ways_is_one_identity(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    absolute = str(tmp_path / "cases" / "a.json")
    assert case_identity("cases/a.json") == "cases/a.json"
    assert case_identity("./cases/./a.json") == "cases/a.json"
    assert case_identity(absolute) == "cases/a.json"
    assert case_identity("-") == "-"
    assert case_identity("/elsewhere/b.json") == "/elsewhere/b.json"  # outside: kept absolute


def test_the_split_is_the_same_in_another_process():
    # Python's own hash() is salted per process; the split must not be.
    code = ("from gpuia.harness.shards import shard_number;"
            "print([shard_number(f'c{i}.json', 7) for i in range(50)])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO, env={**os.environ, "PYTHONHASHSEED": "123"})
    assert out.stdout.strip() == str([shard_number(f"c{i}.json", 7) for i in range(50)])


@pytest.mark.parametrize("n", [1, 3, 8])
def test_fuzz_chunks_of_the_parts_are_disjoint_and_cover_every_chunk(n):
    taken = [list(itertools.islice(Shard(k, n).chunks(), 40)) for k in range(1, n + 1)]
    flat = sorted(c for chunks in taken for c in chunks)
    assert flat == list(range(40 * n))
    assert taken[0][:3] == [0, n, 2 * n]  # shard 1/N: chunks 0, N, 2N


@pytest.mark.parametrize("text", ["0/2", "3/2", "2", "a/b", "1/0", "-1/2", "1/2/3", ""])
def test_a_bad_shard_is_refused_naming_it(text):
    with pytest.raises(ValueError, match="K/N"):
        parse_shard(text)


def test_parse_shard_reads_k_of_n():
    assert parse_shard("2/4") == Shard(2, 4)
    assert str(Shard(2, 4)) == "2/4"
