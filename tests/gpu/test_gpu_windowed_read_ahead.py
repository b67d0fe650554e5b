"""The windowed cross-check's blocks of records, read one block ahead on a thread of their own
(gpuia.harness.windowed, gpuia.harness.read_ahead): two paths share the thread, each reads
its blocks in the windows' order, a path whose block read wgpu refuses part way reports that
refusal while the other path's comparison is still the whole-array one, and an error that is
not a refusal comes out of check_windowed with the thread stopped."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from gpuia.errors import UnsupportedError
from gpuia.gpu.context.capture import CaptureSession, CaptureWindows
from gpuia.harness import windowed
from gpuia.harness.case import load_case
from gpuia.harness.compare import compare
from gpuia.harness.reference_run import reference_ia
from gpuia.harness.run_gpu import run_case_gpu

RNG = np.random.default_rng(3)
VERTICES = 60
WINDOW = 7


def _case():
    rows = RNG.standard_normal((VERTICES, 4)).astype(np.float32)
    indices = RNG.integers(0, VERTICES, 120).astype(np.uint16)
    return load_case({
        "gpuia_case": 1, "name": "read ahead",
        "input_layout": [{"SemanticName": "POSITION", "Format": "R32G32B32A32_FLOAT"}],
        "vertex_buffers": [{"slot": 0, "stride": 16, "data": {"hex": rows.tobytes().hex()}}],
        "primitive_topology": "TRIANGLELIST",
        "index_buffer": {"format": "R16_UINT", "data": {"hex": indices.tobytes().hex()}},
        "draw": {"DrawIndexedInstanced": {"IndexCountPerInstance": 120, "InstanceCount": 2}}})


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """Blocks of 6 records, each written by runs of the draws of 4: many blocks per path."""
    monkeypatch.setattr(windowed, "GPU_BLOCK", 6)
    monkeypatch.setattr(CaptureSession, "window_records", lambda self, elements: 4)


def _reads(monkeypatch, fail_at=None, error=UnsupportedError):
    """Record every block read (its capture and range, its thread's name); the read numbered
    ``fail_at`` of the second capture read raises ``error``."""
    reads: list = []
    captures: list = []
    read = CaptureWindows.read

    def spy(self, first, count):
        if self not in captures:
            captures.append(self)
        k = sum(1 for r in reads if r[0] is self)
        reads.append((self, first, count, threading.current_thread().name))
        if fail_at is not None and captures.index(self) == 1 and k == fail_at:
            raise error("refused for the test")
        return read(self, first, count)

    monkeypatch.setattr(CaptureWindows, "read", spy)
    return reads


def test_two_paths_read_their_blocks_ahead_in_order(gpu_device, monkeypatch):
    case = _case()
    reads = _reads(monkeypatch)
    runs = windowed.check_windowed(case, gpu_device, ["native", "pulling"], rows=4,
                                   window=WINDOW)
    ref = reference_ia(case)
    for path, run in zip(["native", "pulling"], runs, strict=True):
        whole = compare(ref, run_case_gpu(case, gpu_device, path, ref), case.layout)
        assert not isinstance(run, UnsupportedError)
        assert run.summary() == whole.summary()
    # Every block was read on the thread: none was read here because the thread had read
    # another than the one a window needed (a window then reads its block itself).
    assert {r[3] for r in reads} == {"gpuia-read-ahead"}
    assert all(sum(1 for r in reads if r[0] is cap) > 2 for cap in {r[0] for r in reads})
    assert not any(t.name == "gpuia-read-ahead" for t in threading.enumerate())


def test_a_refused_block_refuses_its_path_only(gpu_device, monkeypatch):
    case = _case()
    reads = _reads(monkeypatch, fail_at=2)
    native, pulling = windowed.check_windowed(case, gpu_device, ["native", "pulling"], rows=4,
                                              window=WINDOW)
    assert isinstance(pulling, UnsupportedError) and "refused for the test" in str(pulling)
    ref = reference_ia(case)
    whole = compare(ref, run_case_gpu(case, gpu_device, "native", ref), case.layout)
    assert not isinstance(native, UnsupportedError) and native.summary() == whole.summary()
    second = [r for r in reads if r[0] is not reads[0][0]]
    assert len(second) == 3  # no block of the refused path is read after its refusal


def test_another_error_stops_the_check_and_the_thread(gpu_device, monkeypatch):
    _reads(monkeypatch, fail_at=1, error=RuntimeError)
    with pytest.raises(RuntimeError, match="refused for the test"):
        windowed.check_windowed(_case(), gpu_device, ["native", "pulling"], rows=4,
                                window=WINDOW)
    assert not any(t.name == "gpuia-read-ahead" for t in threading.enumerate())
