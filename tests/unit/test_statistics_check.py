"""The pipeline statistics cross-check's rules, with no adapter (docs/raster-check.md, "The
GPU's pipeline statistics"; rules 4.11): what the reference makes of each draw, and the
judgement of the GPU's counts. The GPU's counts on every adapter:
tests/gpu/test_gpu_pipeline_statistics.py.

Expected values are hand-derived (tests/statistics_cases.py says how).
"""

from __future__ import annotations

import pytest

from gpuia.harness.case import load_case
from gpuia.harness.reference_run import reference_ia
from gpuia.harness.statistics_check import (
    DrawStatistics,
    reference_statistics,
    statistics_problems,
    statistics_verdict,
)
from statistics_cases import STATISTICS_CASES


@pytest.mark.parametrize("doc, expected", STATISTICS_CASES,
                         ids=[d["name"] for d, _ in STATISTICS_CASES])
def test_reference_statistics_by_hand(doc, expected):
    ref = reference_ia(load_case(doc))
    got = [reference_statistics(ref, d) for d in range(len(expected))]
    assert [(s.primitives, s.shaded_at_least, s.vs_invocations) for s in got] == expected
    assert [s.draw for s in got] == list(range(len(expected)))


LIST_8 = DrawStatistics(draw=0, primitives=2, shaded_at_least=6, vs_invocations=8)


@pytest.mark.parametrize("gpu", [(6, 2), (8, 2), (14, 2)])
def test_counts_within_the_rules_pass(gpu):
    """6 (each vertex of the 2 triangles once), 8 (D3D's own count) and more (a list stream
    repeating vertices on a GPU without reuse) are all allowed."""
    assert statistics_problems(LIST_8, gpu) == []


def test_a_clipper_count_other_than_the_primitives_is_named():
    for clipper in (1, 3, 0):
        assert statistics_problems(LIST_8, (6, clipper)) == [
            f"draw 0: the GPU's clipper received {clipper} primitive(s); D3D sends its 2 "
            f"complete primitive(s) to the rasterizer (CInvocations)"]


def test_fewer_invocations_than_distinct_vertices_is_named():
    assert statistics_problems(LIST_8, (5, 2)) == [
        "draw 0: 5 vertex shader invocation(s) for the 6 distinct vertices of its 2 "
        "primitive(s), each shaded at least once"]
    assert len(statistics_problems(LIST_8, (0, 0))) == 2


def test_verdict_per_draw():
    second = DrawStatistics(draw=2, primitives=4, shaded_at_least=6, vs_invocations=6)
    status, detail, problems = statistics_verdict([(LIST_8, (6, 2)), (second, (6, 4))])
    assert (status, problems) == ("OK", [])
    assert detail == ("draw 0: vertex shader invocations 6 (at least 6; D3D's VSInvocations 8), "
                      "clipper invocations 2 (D3D's CInvocations 2); draw 2: vertex shader "
                      "invocations 6 (at least 6; D3D's VSInvocations 6), clipper invocations "
                      "4 (D3D's CInvocations 4)")
    status, _, problems = statistics_verdict([(LIST_8, (6, 2)), (second, (6, 3))])
    assert status == "DIFFERENT" and len(problems) == 1 and problems[0].startswith("draw 2: ")


def test_verdict_without_counts_is_not_applicable():
    status, detail, problems = statistics_verdict([(LIST_8, None)])
    assert status == "not applicable" and problems == [] and "no draw" in detail
    assert statistics_verdict([])[0] == "not applicable"
