"""The host's row-chunked work (the reference's decode, assembling the GPU's records, the
comparison: gpuia.util.parallel) gives what one pass gives: with chunks of 8 rows, several
indexed and non-indexed draws with instances, gaps in their fetch indices and repeated ones,
compare equal on both paths with the same statistics."""

from __future__ import annotations

import pytest

from helpers import check_gpu, valid_case

VALUES = [[float(i), float(-i)] for i in range(40)]


def _case():
    return valid_case(
        vertex_buffers=[{"slot": 0, "stride": 8, "data": {"dtype": "float32", "values": VALUES}}],
        index_buffer={"format": "R16_UINT", "data": {"dtype": "uint16", "values":
                      [3, 9, 9, 1, 30, 2, 7, 7, 38, 0, 5, 12]}},
        draw=[{"DrawIndexedInstanced": {"IndexCountPerInstance": 12, "InstanceCount": 3}},
              {"DrawInstanced": {"VertexCountPerInstance": 25, "InstanceCount": 2,
                                 "StartVertexLocation": 10}},
              {"DrawIndexedInstanced": {"IndexCountPerInstance": 5, "InstanceCount": 2,
                                        "StartIndexLocation": 4, "BaseVertexLocation": 1}}])


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_chunked_host_work_matches(gpu_device, path, monkeypatch):
    whole = check_gpu(_case(), gpu_device, path)
    monkeypatch.setattr("gpuia.util.parallel.CHUNK_ROWS", 8)
    chunked = check_gpu(_case(), gpu_device, path)
    # 12 x 3 + 25 x 2 + 5 x 2 invocations, by the draws' counts (rules 4.1, 5.1).
    assert len(chunked.ref) == len(whole.ref) == 96
    for key, data in whole.res.ia.inputs.items():
        assert (chunked.res.ia.inputs[key].bits == data.bits).all()
    assert (chunked.ref.inputs["POSITION0"].bits == whole.ref.inputs["POSITION0"].bits).all()
    assert chunked.res.ia.statistics == whole.res.ia.statistics


@pytest.mark.parametrize("path", ["native", "pulling"])
def test_capture_windows_match_one_capture(gpu_device, path, monkeypatch):
    """A capture of more records than one storage binding holds runs its draws once per window
    of records. With windows of 7 records (this case has 88 records: 10 distinct fetch indices
    x 3 instances, 25 x 2 and 4 x 2, so windows end inside draws and instances) every invocation
    is delivered as one capture delivers it, and the vertices D3D would not fetch are counted
    once, not once per window."""
    if not gpu_device.caps.vertex_writable_storage:
        pytest.skip("windows are the storage capture route's; this adapter captures to targets")
    from gpuia.gpu.context.capture import CaptureSession

    whole = check_gpu(_case(), gpu_device, path)
    windows = []
    encode_all = CaptureSession._encode_all

    def counting(self, records, bufs):
        windows.append(self.recorder.capture_window)
        return encode_all(self, records, bufs)

    monkeypatch.setattr(CaptureSession, "window_records", lambda self, elements: 7)
    monkeypatch.setattr(CaptureSession, "_encode_all", counting)
    windowed = check_gpu(_case(), gpu_device, path)
    assert windows == list(range(0, 88, 7))  # 13 windows: records 0-6, 7-13, ..., 84-87
    for key, data in whole.res.ia.inputs.items():
        assert (windowed.res.ia.inputs[key].bits == data.bits).all()
    assert windowed.res.unexpected == whole.res.unexpected
    assert windowed.res.ia.statistics == whole.res.ia.statistics
