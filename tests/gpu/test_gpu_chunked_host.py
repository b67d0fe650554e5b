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
