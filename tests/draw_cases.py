"""Case documents of one R32_FLOAT position slot and their draws, built from their D3D12
fields: shared by the raster tests (tests/gpu/test_gpu_raster.py) and the pipeline statistics
cases (tests/statistics_cases.py)."""

from __future__ import annotations


def layout_case(name, topology, draws, index_buffer=None, cut="DISABLED", vertices=32) -> dict:
    """A case of ``vertices`` zero positions drawn by ``draws`` (each a draw object)."""
    doc = {"gpuia_case": 1, "name": name,
           "input_layout": [{"SemanticName": "POSITION", "Format": "R32_FLOAT"}],
           "vertex_buffers": [{"slot": 0, "stride": 4, "data": {"dtype": "float32",
                                                               "values": [0.0] * vertices}}],
           "primitive_topology": topology, "strip_cut_value": cut, "draw": draws}
    if index_buffer is not None:
        doc["index_buffer"] = index_buffer
    return doc


def indexed(n, instances=1, start=0, base=0, start_instance=0) -> dict:
    """A DrawIndexedInstanced of ``n`` indices."""
    return {"DrawIndexedInstanced": {"IndexCountPerInstance": n, "InstanceCount": instances,
                                     "StartIndexLocation": start, "BaseVertexLocation": base,
                                     "StartInstanceLocation": start_instance}}


def plain(n, instances=1, start=0, start_instance=0) -> dict:
    """A DrawInstanced of ``n`` vertices."""
    return {"DrawInstanced": {"VertexCountPerInstance": n, "InstanceCount": instances,
                              "StartVertexLocation": start,
                              "StartInstanceLocation": start_instance}}
