"""Case files for arrays taken from source code (``gpuia layout --check`` / ``--save-case``).

A pipeline state desc that sets both an input layout and a Stream Output declaration
(:class:`~gpuia.source.model.SourcePipeline`) becomes :func:`pipeline_case`: the layout's case,
its points streamed out through the declaration, in the case format's ``pipeline_state`` form.

An input layout becomes :func:`gpuia.harness.crosscheck.layout_case` (random bytes, a point
list, every slot bound with its tightest 4-byte-multiple stride). A Stream Output declaration
alone has no layout, so :func:`so_case` builds one: an ``R32G32B32A32_FLOAT`` input element per
declared (name, index) pair, finite values, and the pass-through shader, whose outputs are those
elements (``SV_VertexID``/``SV_InstanceID`` are system values and come from the draw).
"""

from __future__ import annotations

import re

import numpy as np

from ..d3d.signature import SYSTEM_OUTPUTS
from ..d3d.so_declaration import SO_BUFFER_SLOT_COUNT, declared_sizes
from ..harness.case import Case, encode_data, load_case
from .model import SourceArray

__all__ = ["case_name", "so_case", "pipeline_case"]


def case_name(arr: SourceArray) -> str:
    """``<file stem>_<array name>`` with everything but letters, digits and ``_`` made ``_``."""
    stem = re.sub(r"\W", "_", arr.file.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0])
    return f"{stem}_{re.sub(r'[^0-9A-Za-z_]', '_', arr.name)}"


_INPUT_FORMATS = {"float": "R32G32B32A32_FLOAT", "uint": "R32G32B32A32_UINT",
                  "sint": "R32G32B32A32_SINT"}


def so_case(arr: SourceArray, desc, *, vertices: int = 6, instances: int = 2, seed: int = 0,
            name: str | None = None, vertex_shader: dict | None = None,
            signature=None, constant_buffers=None) -> Case:
    """A case streaming ``vertices`` points per instance through ``desc`` (a validated
    :class:`gpuia.StreamOutputDesc` of stream 0) with targets large enough for every vertex.
    With ``vertex_shader`` (a case-format object) and its ``signature``, the layout holds one
    four-component element per shader input instead, of the input's type, and the case draws
    with that shader, its constant buffers from ``constant_buffers`` (slot -> bytes or members
    by name, as :func:`gpuia.harness.crosscheck.layout_case` takes them) or zero-filled."""
    from ..d3d.signature import SYSTEM_INPUTS

    rng = np.random.default_rng(seed)
    layout, seen = [], set()
    if signature is not None:
        wanted = [(m.semantic, m.index, m.type) for m in signature.inputs
                  if m.semantic not in SYSTEM_INPUTS]
    else:
        wanted = [(e.semantic_name, e.semantic_index, "float") for e in desc.so_declaration
                  if not e.is_gap and e.semantic_name.upper() not in SYSTEM_OUTPUTS]
    for sem, index, kind in wanted:
        key = (sem.upper(), index)
        if key in seen:
            continue
        seen.add(key)
        layout.append({"SemanticName": sem, "SemanticIndex": index,
                       "Format": _INPUT_FORMATS[kind], "InputSlot": 0})
    stride = 16 * len(layout)
    # Quarter-integers in [-64, 64): finite, exact and not denormal, so the pass-through shader
    # copies every bit unchanged (integer elements read them as small integers' bits instead).
    values = (rng.integers(-256, 256, size=(vertices, 4 * len(layout))) / 4).astype(np.float32)
    for i, element in enumerate(layout):
        if element["Format"] != _INPUT_FORMATS["float"]:
            values[:, 4 * i:4 * i + 4] = rng.integers(0, 64, size=(vertices, 4)).astype(
                np.uint32).view(np.float32)
    sizes = declared_sizes(desc.so_declaration)
    # Without pBufferStrides a single slot's stride is its declared size (rules 8.8).
    stride_of = {s: desc.buffer_strides[s] if desc.buffer_strides else sizes[s] for s in sizes}
    targets = [{"slot": s, "size": stride_of[s] * vertices * instances}
               for s in sorted(sizes) if s < SO_BUFFER_SLOT_COUNT]
    doc = {
        "gpuia_case": 1, "name": name or case_name(arr),
        "description": f"{arr.struct} {arr.name} from {arr.location}, streamed by gpuia layout",
        "input_layout": layout,
        "vertex_buffers": [{"slot": 0, "stride": stride, "data": encode_data(values.tobytes())}]
        if layout else [],
        "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": vertices,
                                   "InstanceCount": instances}},
        "stream_output": {
            "declaration": [{"Stream": e.stream, "SemanticName": e.semantic_name,
                             "SemanticIndex": e.semantic_index,
                             "StartComponent": e.start_component,
                             "ComponentCount": e.component_count, "OutputSlot": e.output_slot}
                            for e in desc.so_declaration],
            "buffer_strides": list(desc.buffer_strides),
            "rasterized_stream": desc.rasterized_stream,
            "targets": targets},
    }
    if vertex_shader is not None:
        from ..harness.case_shader import constant_buffer_entries

        doc["vertex_shader"] = vertex_shader
        doc["constant_buffers"] = constant_buffer_entries(vertex_shader, constant_buffers)
    return load_case(doc)


def pipeline_case(layout: SourceArray, so: SourceArray, *, vertices: int = 6,
                  instances: int = 2, name: str = "pipeline",
                  vertex_shader: dict | None = None, constant_buffers=None) -> Case:
    """One pipeline state's case: ``layout``'s generated data
    (:func:`gpuia.harness.crosscheck.layout_case`: every slot bound, a point list of
    ``vertices`` points per instance) drawn with ``vertex_shader`` (else the pass-through
    shader) and streamed out through ``so``'s declaration (its strides and rasterized stream
    as the source gives them), targets large enough for every point. Written as a
    ``pipeline_state`` and loaded by :func:`~gpuia.harness.case.load_case`, so the layout, the
    shader and the declaration are validated together as CreateGraphicsPipelineState does.

    Raises:
        InvalidDescError: what D3D12 refuses of the three together (naming
            ``pipeline_state.FIELD``). CaseError, UnsupportedError: as
            :func:`~gpuia.harness.crosscheck.layout_case` and
            :func:`~gpuia.harness.case.load_case` raise them (a compiled shader is linked,
            then refused as not drawable).
    """
    from ..d3d.layout import InputLayout
    from ..harness.crosscheck import layout_case

    base = layout_case(InputLayout(layout.elements), vertices=vertices, instances=instances,
                       name=name, vertex_shader=vertex_shader,
                       constant_buffers=constant_buffers)
    doc = dict(base.source)
    sizes: dict[int, int] = {}
    for e in so.elements:
        slot = e.get("OutputSlot", 0)
        sizes[slot] = sizes.get(slot, 0) + 4 * e.get("ComponentCount", 0)
    strides = list(so.buffer_strides or ())
    stride_of = {s: strides[s] if s < len(strides) and strides[s] else sizes[s] for s in sizes}
    pso = {"input_layout": doc.pop("input_layout"),
           "stream_output": {
               "declaration": so.elements, "buffer_strides": strides,
               "rasterized_stream": 0 if so.rasterized_stream is None else so.rasterized_stream,
               "targets": [{"slot": s, "size": stride_of[s] * vertices * instances}
                           for s in sorted(sizes) if s < SO_BUFFER_SLOT_COUNT]}}
    if "vertex_shader" in doc:
        pso["vertex_shader"] = doc.pop("vertex_shader")
    doc["pipeline_state"] = pso
    doc["description"] = (f"the pipeline state that sets {layout.name} ({layout.location}) and "
                          f"{so.name} ({so.location}), checked by gpuia layout")
    return load_case(doc)
