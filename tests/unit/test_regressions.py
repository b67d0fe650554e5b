"""Regression tests for defects found in review that need no adapter: each test failed before
its fix (the ones that draw: tests/gpu/test_gpu_regressions.py)."""

import pytest

from gpuia.errors import InvalidDescError
from gpuia.gpu import PipelineState
from gpuia.harness.case import load_case


@pytest.mark.parametrize("where", ["vertex_buffers", "index_buffer", "targets"])
def test_json_null_numbers_take_their_defaults(where):
    doc = {"gpuia_case": 1, "input_layout": [{"SemanticName": "A", "Format": "R32_UINT"}],
           "vertex_buffers": [{"slot": 0, "stride": 4, "offset": None,
                               "data": {"hex": "01000000"}}],
           "index_buffer": {"format": "R16_UINT", "offset": None, "data": {"hex": "0000"}},
           "primitive_topology": "POINTLIST",
           "draw": {"DrawIndexedInstanced": {"IndexCountPerInstance": 1}},
           "stream_output": {"declaration": [{"SemanticName": "A", "ComponentCount": 1}],
                             "targets": [{"slot": 0, "size": 16, "filled_size": None}]}}
    case = load_case(doc)
    assert case.vertex_buffers[0].offset == 0 and case.index_buffer.offset == 0
    assert case.so_targets[0].filled_size == 0


def test_stream_output_must_be_a_desc():
    with pytest.raises(InvalidDescError, match="StreamOutputDesc"):
        PipelineState([{"SemanticName": "A", "Format": "R32_UINT"}],
                      stream_output={"so_declaration": []})

