"""The GPU's own pipeline statistics beside the raster check (docs/raster-check.md, "The GPU's
pipeline statistics"; rules 4.11), on every adapter wgpu lists: where the adapter has wgpu's
``pipeline-statistics-query`` feature, its clipper receives exactly each draw's complete
primitives and its vertex shader runs at least once per distinct vertex of them; where it has
none, the check says so.

Expected values are hand-derived (tests/statistics_cases.py says how); the rules' judgement
itself is tested without an adapter in tests/unit/test_statistics_check.py.
"""

from __future__ import annotations

import pytest

from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.raster_check import raster_check
from gpuia.harness.reference_run import reference_ia
from gpuia.harness.statistics_check import NO_FEATURE
from statistics_cases import STATISTICS_CASES

FEATURE = "pipeline-statistics-query"
# An application's device lives for the session (tests/gpu/test_gpu_from_wgpu.py: on an adapter
# with the ONE_DEVICE quirk, dropping one breaks the session's other devices).
_APP_DEVICES: list = []


def test_a_device_asks_for_the_feature_where_its_adapter_has_it(devices):
    for dev in devices:
        has = FEATURE in dev.adapter.features
        assert dev.caps.pipeline_statistics_query is has, dev.info["summary"]
        assert (FEATURE in dev.device.features) is has, dev.info["summary"]


@pytest.mark.parametrize("doc, expected", STATISTICS_CASES,
                         ids=[d["name"] for d, _ in STATISTICS_CASES])
def test_the_gpus_counts_keep_to_the_rules(devices, doc, expected):
    case = load_case(doc)
    ref = reference_ia(case)
    for dev in devices:
        summary = dev.info["summary"]
        draws = raster_check(case, dev, ref)
        assert [r.status for r in draws] == ["OK"] * len(expected), summary
        if not dev.caps.pipeline_statistics_query:
            assert all(r.statistics is None for r in draws), summary
            continue
        for r, (primitives, at_least, _vs) in zip(draws, expected, strict=True):
            vs, clipper = r.statistics
            assert clipper == primitives, (summary, r.draw, r.statistics)
            assert vs >= at_least, (summary, r.draw, r.statistics)


def _statistics_line(result):
    lines = [ln for ln in result.lines if ln.path == "pipeline statistics"]
    assert len(lines) == 1, [ln.text() for ln in result.lines]
    return lines[0]


def test_the_check_line_per_adapter(devices):
    """``gpuia check``'s line: the 8-vertex triangle list's counts where the adapter has the
    feature (2 triangles; at least 6 invocations; D3D counts 8), else not applicable with the
    reason."""
    doc = next(d for d, _ in STATISTICS_CASES if d["name"] == "list-8")
    for dev in devices:
        line = _statistics_line(cross_check(load_case(doc), [dev], ["native"], raster=True))
        if dev.caps.pipeline_statistics_query:
            assert line.status == "OK", line.text()
            assert "(at least 6; D3D's VSInvocations 8), clipper invocations 2 (D3D's " \
                   "CInvocations 2)" in line.detail, line.detail
        else:
            assert (line.status, line.detail) == ("not applicable", NO_FEATURE)


def test_no_line_without_the_raster_check(gpu_device):
    doc = next(d for d, _ in STATISTICS_CASES if d["name"] == "list-6")
    result = cross_check(load_case(doc), [gpu_device], ["native"], raster=False)
    assert all(ln.path != "pipeline statistics" for ln in result.lines)


def test_a_device_made_without_the_feature_says_so(gpu_device):
    """An application's wgpu device made without the feature (Device.from_wgpu) reads no
    counts, even on an adapter that has it: the line and a Context's query say why."""
    from gpuia.gpu import Context, Device
    from gpuia.gpu.context.gpu_counts import NO_FEATURE as CONTEXT_NO_FEATURE

    wgpu_device = gpu_device.adapter.request_device_sync(required_features=[])
    _APP_DEVICES.append(wgpu_device)
    dev = Device.from_wgpu(wgpu_device, depth_copies=False)
    assert not dev.caps.pipeline_statistics_query
    doc = next(d for d, _ in STATISTICS_CASES if d["name"] == "strip-6")
    line = _statistics_line(cross_check(load_case(doc), [dev], ["native"], raster=True))
    assert (line.status, line.detail) == ("not applicable", NO_FEATURE)
    assert line.detail.startswith("the device has no pipeline-statistics-query")
    ctx = Context(dev)
    heap = ctx.create_query_heap("PIPELINE_STATISTICS", 1)
    ctx.begin_query(heap, "PIPELINE_STATISTICS", 0)
    ctx.end_query(heap, "PIPELINE_STATISTICS", 0)
    (got,) = ctx.resolve_query_data(heap, "PIPELINE_STATISTICS", 0, 1)
    assert got["adapter_counts"] is None and got["adapter_note"] == CONTEXT_NO_FEATURE
