"""``gpuia fuzz --shard K/N`` (docs/scale-out.md): the shards of one seed draw disjoint chunks
that together are the one-machine run's, and a shard's reproduce line names its shard."""

from __future__ import annotations

import io
import shlex

from gpuia.cli import build_parser
from gpuia.fuzz import FuzzConfig, Fuzzer, FuzzReport, ReferenceRunner, case_digest, generate
from gpuia.fuzz.generation import draw_chunk
from gpuia.harness.shards import Shard


def _digests(shard: Shard, cases: int) -> list[str]:
    config = FuzzConfig(seed=3, cases=cases, paths=(), shard=shard)
    report = Fuzzer(config, runner=ReferenceRunner(), record_digests=True, out=io.StringIO(),
                    err=io.StringIO()).run()
    assert report.cases == cases and not report.findings
    return report.digests


def test_two_shards_run_the_one_machine_cases_between_them():
    # chunk 0 holds 16 cases and chunk 1 32 (CHUNK_SIZES): shard 1/2 runs chunk 0, 2/2 chunk 1.
    # (hypothesis may draw one simple case in several chunks: the chunks, not the digests, are
    # what the shards split)
    first, second = _digests(Shard(1, 2), 16), _digests(Shard(2, 2), 32)
    assert first + second == [case_digest(v) for v in generate(3, 48)]


def test_a_shard_runs_its_chunks_in_order():
    # shard 2/3: chunks 1 (32 cases), 4, ...; its first 40 cases are chunk 1's, then chunk 4's.
    expected = draw_chunk("valid", False, 3, 1) + draw_chunk("valid", False, 3, 4)
    assert _digests(Shard(2, 3), 40) == [case_digest(v) for v in expected[:40]]


def test_the_reproduce_line_names_the_shard():
    line = FuzzReport(FuzzConfig(seed=7, cases=40, shard=Shard(2, 5)), cases=40).command_line()
    assert line == "gpuia fuzz --seed 7 --cases 40 --shard 2/5"
    args = build_parser().parse_args(shlex.split(line)[1:])
    assert args.shard == Shard(2, 5) and args.seed == 7
