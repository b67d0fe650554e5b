"""The cross-check in windows of invocations (gpuia.harness.windowed) says what the whole-array
cross-check says, character for character: the summary line and the table of differing rows.
Windows of 8 invocations split instances and draws, the GPU's records come in blocks of 5 (read
in runs of 3) or at once, and differences are planted across the windows' edges: the GPU draws
from a copy of the case's vertex bytes with some bytes changed, so every row that fetches a
changed vertex differs, and how many rows those are follows from the planted data alone. A NaN
changed to another NaN payload is planted too (it matches, rules 2.5); on adapters whose native
fetch is 1 ULP off for UNORM (lavapipe) the native path's tolerated components are summed over
the windows as well. ``gpuia check`` (cross_check) takes this path for draws above its
threshold, and its lines are those of the whole-array path."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.harness import windowed
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare, comparison_table
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.reference_run import reference_ia
from gpuia.harness.run_gpu import run_case_gpu, upload_case

WINDOW = 8
ROWS = 5  # table rows: fewer than the differing rows, so "... N more" is compared too
RNG = np.random.default_rng(11)
VERTICES = 40
QNAN, QNAN_OTHER = 0x7FC00000, 0x7FC00001


@pytest.fixture(autouse=True, params=["one read", "blocks of 5 records in runs of 3"])
def gpu_reads(request, monkeypatch):
    """The GPU's records read all at once, or in blocks of 5 records (a window's records then
    come from one block, or the next) each written by runs of the draws of 3 records."""
    if request.param != "one read":
        from gpuia.gpu.context.capture import CaptureSession

        monkeypatch.setattr(windowed, "GPU_BLOCK", 5)
        monkeypatch.setattr(CaptureSession, "window_records", lambda self, elements: 3)


def _vertex_bytes() -> np.ndarray:
    """40 vertices of 16 bytes: POSITION (3 floats), then COLOR (4 UNORM bytes)."""
    rows = np.zeros((VERTICES, 4), np.uint32)
    rows[:, :3] = RNG.standard_normal((VERTICES, 3)).astype(np.float32).view(np.uint32)
    rows[:, 3] = RNG.integers(0, 2**32, VERTICES, dtype=np.uint64).astype(np.uint32)
    rows[20, 0] = QNAN
    return rows


VERTEX_ROWS = _vertex_bytes()
INSTANCE_ROWS = RNG.integers(0, 256, (4, 4), dtype=np.uint8)
INDICES = RNG.integers(0, VERTICES, 150).astype(np.uint16)


def _doc(vertex_rows, instance_rows, draw, topology, indexed, step_rate=1):
    doc = {"gpuia_case": 1, "name": "windows",
           "input_layout": [
               {"SemanticName": "POSITION", "Format": "R32G32B32_FLOAT"},
               {"SemanticName": "COLOR", "Format": "R8G8B8A8_UNORM", "AlignedByteOffset": 12},
               {"SemanticName": "TEXCOORD", "Format": "R8G8B8A8_UINT", "InputSlot": 1,
                "InputSlotClass": "PER_INSTANCE_DATA", "InstanceDataStepRate": step_rate}],
           "vertex_buffers": [
               {"slot": 0, "stride": 16, "data": {"hex": vertex_rows.tobytes().hex()}},
               {"slot": 1, "stride": 4, "data": {"hex": instance_rows.tobytes().hex()}}],
           "primitive_topology": topology, "draw": draw}
    if indexed:
        doc["index_buffer"] = {"format": "R16_UINT", "data": {"hex": INDICES.tobytes().hex()}}
    return doc


def _planted(vertex_changes=(), instance_changes=()):
    """The GPU's copy of the bytes: word 1 (POSITION.y) of each vertex in ``vertex_changes``,
    byte 2 of each instance row in ``instance_changes`` flipped; vertex 20's NaN given another
    payload."""
    v, i = VERTEX_ROWS.copy(), INSTANCE_ROWS.copy()
    for k in vertex_changes:
        v[k, 1] ^= 0x10
    for k in instance_changes:
        i[k, 2] ^= 0x01
    v[20, 0] = QNAN_OTHER
    return v, i


def _both(doc, gpu_doc, device, path, route="auto"):
    """(whole summary, whole table, windowed comparison) of one path, the GPU drawing from
    ``gpu_doc``'s bytes."""
    case = load_case(doc)
    uploaded = upload_case(load_case(gpu_doc), device)
    ref = reference_ia(case)
    res = run_case_gpu(case, device, path, ref, uploaded=uploaded, capture_route=route)
    cmp = compare(ref, res, case.layout)
    table = comparison_table(ref, res, cmp, max_rows=ROWS, only_differences=True)
    [win] = windowed.check_windowed(case, device, [path], route, rows=ROWS, window=WINDOW,
                                    uploaded=uploaded)
    return cmp.summary(), table, win


def _check(doc, gpu_doc, device, path, expected_rows, element="POSITION0"):
    summary, table, win = _both(doc, gpu_doc, device, path)
    assert win.summary() == summary
    assert win.table() == table
    assert win.bad == expected_rows
    assert f"{element}: {expected_rows} differ" in summary
    assert not win.ok


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_point_list(gpu_device, path):
    """40 points, one instance: row k is vertex k; changes planted at 7 and 8 (the first
    window's last row, the second's first), 23 (a window's last) and 39 (the last row)."""
    draw = {"DrawInstanced": {"VertexCountPerInstance": VERTICES}}
    changed = (7, 8, 23, 39)
    doc = _doc(VERTEX_ROWS, INSTANCE_ROWS, draw, "POINTLIST", False)
    _check(doc, _doc(*_planted(changed), draw, "POINTLIST", False), gpu_device, path,
           len(changed))


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_indexed_mesh(gpu_device, path):
    """150 indices of a TRIANGLELIST over the 40 vertices, 2 instances: a vertex is read by
    rows of many windows; every index position naming a changed vertex differs, per instance."""
    draw = {"DrawIndexedInstanced": {"IndexCountPerInstance": 150, "InstanceCount": 2}}
    changed = (3, 17, 38)
    expected = 2 * int(np.isin(INDICES, changed).sum())
    doc = _doc(VERTEX_ROWS, INSTANCE_ROWS, draw, "TRIANGLELIST", True)
    _check(doc, _doc(*_planted(changed), draw, "TRIANGLELIST", True), gpu_device, path,
           expected)


def test_instancing_with_step_rates(gpu_device):
    """30 vertices (from vertex 5) x 7 instances, the instance element stepping every 2
    instances (pulling: WebGPU has no step rate): instance row 1 feeds instances 2 and 3 (rules
    4.6), so their 2 x 30 rows differ in TEXCOORD0; vertex 10 is row 5 of every instance."""
    draw = {"DrawInstanced": {"VertexCountPerInstance": 30, "InstanceCount": 7,
                              "StartVertexLocation": 5}}
    doc = _doc(VERTEX_ROWS, INSTANCE_ROWS, draw, "POINTLIST", False, step_rate=2)
    gpu_doc = _doc(*_planted((10,), (1,)), draw, "POINTLIST", False, step_rate=2)
    summary, table, win = _both(doc, gpu_doc, gpu_device, "pulling")
    assert win.summary() == summary and win.table() == table
    # 60 rows of instances 2 and 3, and 7 rows of vertex 10, 2 of them among the 60.
    assert win.bad == 60 + 7 - 2
    assert "TEXCOORD0: 60 differ" in summary and "POSITION0: 7 differ" in summary


def test_targets_route(gpu_device):
    """On the render-target capture route the records come whole (no reads by range there),
    and the windows compare them all the same."""
    draw = {"DrawIndexedInstanced": {"IndexCountPerInstance": 150, "InstanceCount": 2}}
    changed = (3, 38)
    doc = _doc(VERTEX_ROWS, INSTANCE_ROWS, draw, "TRIANGLELIST", True)
    gpu_doc = _doc(*_planted(changed), draw, "TRIANGLELIST", True)
    summary, table, win = _both(doc, gpu_doc, gpu_device, "pulling", "targets")
    assert win.summary() == summary and win.table() == table
    assert win.bad == 2 * int(np.isin(INDICES, changed).sum())


def test_agreeing_run_has_no_table_rows(gpu_device):
    """Without a planted change (the NaN payload only) every row agrees but the normalized
    allowance, and the windowed summary is the whole one's."""
    draw = {"DrawIndexedInstanced": {"IndexCountPerInstance": 150}}
    doc = _doc(VERTEX_ROWS, INSTANCE_ROWS, draw, "TRIANGLELIST", True)
    summary, _, win = _both(doc, _doc(*_planted(), draw, "TRIANGLELIST", True), gpu_device,
                            "native")
    assert win.ok and win.summary() == summary
    assert summary.startswith("150/150 invocations match")


@pytest.mark.parametrize("most_primitives", [None, 50])
def test_cross_check_takes_the_windowed_path_for_large_draws(gpu_device, monkeypatch,
                                                             most_primitives):
    """Above the threshold cross_check compares in windows, and its lines are the whole-array
    path's (the draws count as large once the threshold is lowered to 100 invocations): the
    path lines, and the raster and pipeline statistics lines (indexed draws have them by
    default) from the reference of each draw alone. With the raster check taking at most 50
    primitives, draw 0 (100 triangles) is not run, by its count alone; draw 1 (20) is."""
    if most_primitives is not None:
        monkeypatch.setattr("gpuia.harness.raster_check.MAX_RASTER_PRIMITIVES", most_primitives)
    draw = [{"DrawIndexedInstanced": {"IndexCountPerInstance": 150, "InstanceCount": 2}},
            {"DrawIndexedInstanced": {"IndexCountPerInstance": 60, "StartIndexLocation": 30,
                                      "BaseVertexLocation": -1, "StartInstanceLocation": 1}}]
    case = load_case(_doc(VERTEX_ROWS, INSTANCE_ROWS, draw, "TRIANGLELIST", True))
    whole = cross_check(case, [gpu_device])
    calls = []
    run = windowed.check_windowed

    def spy(*args, **kwargs):
        calls.append(kwargs.get("window"))
        return run(*args, **kwargs)

    monkeypatch.setattr(windowed, "WINDOWED_ABOVE", 100)
    monkeypatch.setattr(windowed, "WINDOW_ROWS", WINDOW)
    monkeypatch.setattr("gpuia.harness.crosscheck.check_windowed", spy)
    small = cross_check(case, [gpu_device])
    assert calls == [None]  # one windowed run of both paths, windows of WINDOW_ROWS
    assert [line.path for line in small.lines] == ["native", "pulling", "raster",
                                                   "pipeline statistics"]
    assert [line.text() for line in small.lines] == [line.text() for line in whole.lines]
    if most_primitives is not None:
        assert "draw 0: 100 primitives: the raster check takes at most 50" in small.lines[2].detail


def test_capture_read_by_range_is_the_whole_capture(gpu_device):
    """Context.end_capture(windows=True): any range of records read is that range of the
    capture read whole (the same draws, end_capture()), and a range outside is refused."""
    from gpuia.errors import InvalidDescError
    from gpuia.harness.run_gpu import record_capture

    if not gpu_device.caps.vertex_writable_storage:
        pytest.skip("reads by range are the storage route's; this adapter captures to targets")

    draw = {"DrawIndexedInstanced": {"IndexCountPerInstance": 150, "InstanceCount": 2}}
    case = load_case(_doc(VERTEX_ROWS, INSTANCE_ROWS, draw, "TRIANGLELIST", True))
    whole = record_capture(case, gpu_device, "pulling")[0].end_capture()
    windows = record_capture(case, gpu_device, "pulling")[0].end_capture(windows=True).windows
    assert whole.words is not None and windows is not None
    records = whole.words.reshape(windows.total, -1)
    for first, count in ((0, windows.total), (7, 1), (13, 20), (windows.total - 4, 4), (5, 0)):
        assert np.array_equal(windows.read(first, count), records[first:first + count])
    with pytest.raises(InvalidDescError, match="within the capture's"):
        windows.read(windows.total - 1, 2)


# -- sub-draws: a run for one block of records draws only the part of each draw it needs ------
@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 4 index positions, so a block's sub-draw of an indexed draw is a part of its
    indices (with the default 1024 it would be all 150)."""
    from gpuia.gpu.context import capture_spans

    monkeypatch.setattr(capture_spans, "CHUNK", 4)


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_sub_draws_keep_start_vertex_and_instance(gpu_device, path):
    """25 vertices from StartVertexLocation 9, instances from StartInstanceLocation 1, the
    instance element stepping every instance (native: 3 instances, rows 1, 2, 3) or every 2
    (pulling: 4 instances, rows 1, 1, 2, 2; rules 4.3, 4.6): row ``i * 25 + k`` is vertex
    9 + k of instance i. Changed: vertices 9 (every instance's first row), 20 and 33 (its
    last), and instance row 2 (instance 1, or instances 2 and 3)."""
    rate, instances = (1, 3) if path == "native" else (2, 4)
    draw = {"DrawInstanced": {"VertexCountPerInstance": 25, "InstanceCount": instances,
                              "StartVertexLocation": 9, "StartInstanceLocation": 1}}
    doc = _doc(VERTEX_ROWS, INSTANCE_ROWS, draw, "POINTLIST", False, step_rate=rate)
    gpu_doc = _doc(*_planted((9, 20, 33), (2,)), draw, "POINTLIST", False, step_rate=rate)
    summary, table, win = _both(doc, gpu_doc, gpu_device, path)
    assert win.summary() == summary and win.table() == table
    reading = 1 if rate == 1 else 2  # instances reading instance row 2
    assert f"POSITION0: {3 * instances} differ" in summary
    assert f"TEXCOORD0: {25 * reading} differ" in summary
    assert win.bad == 3 * instances + 25 * reading - 3 * reading


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_sub_draws_of_indices_keep_start_index_and_base_vertex(gpu_device, path, small_chunks):
    """100 of the 150 indices from StartIndexLocation 30, BaseVertexLocation 3 over a buffer of
    43 vertices (every fetch inside it: the native path draws it too), 3 instances from
    StartInstanceLocation 1, in chunks of 4 indices: index position j fetches vertex
    INDICES[j] + 3 (rules 4.2), so every position whose index plus 3 is a changed vertex
    differs, per instance."""
    draw = {"DrawIndexedInstanced": {"IndexCountPerInstance": 100, "InstanceCount": 3,
                                     "StartIndexLocation": 30, "BaseVertexLocation": 3,
                                     "StartInstanceLocation": 1}}
    rows = np.concatenate([VERTEX_ROWS[-3:], VERTEX_ROWS])
    changed = (3, 16, 40)
    planted = rows.copy()
    planted[list(changed), 1] ^= 0x10
    expected = 3 * int(np.isin(INDICES[30:130].astype(int) + 3, changed).sum())
    doc = _doc(rows, INSTANCE_ROWS, draw, "TRIANGLELIST", True)
    _check(doc, _doc(planted, INSTANCE_ROWS, draw, "TRIANGLELIST", True), gpu_device, path,
           expected)


def test_sub_draws_of_a_strip_with_cuts(gpu_device, small_chunks):
    """An indexed TRIANGLESTRIP with 0xFFFF cuts at every 7th index (the capture draws the
    indices without them, from the host), 2 instances: every delivered index naming a changed
    vertex differs, per instance; a cut fetches no vertex (rules 5.4)."""
    draw = {"DrawIndexedInstanced": {"IndexCountPerInstance": 150, "InstanceCount": 2}}
    indices = INDICES.copy()
    indices[::7] = 0xFFFF
    changed = (5, 22, 31)
    expected = 2 * int(np.isin(indices[indices != 0xFFFF], changed).sum())

    def strip(rows, inst):
        doc = _doc(rows, inst, draw, "TRIANGLESTRIP", True)
        doc["index_buffer"]["data"] = {"hex": indices.tobytes().hex()}
        doc["strip_cut_value"] = "0xFFFF"
        return doc

    _check(strip(VERTEX_ROWS, INSTANCE_ROWS), strip(*_planted(changed)), gpu_device, "pulling",
           expected)
