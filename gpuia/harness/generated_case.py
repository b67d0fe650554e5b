"""A generated case for a bare input layout: what ``gpuia layout --check`` and the pytest
plugin's ``gpuia_check(layout=...)`` draw when no case file gives the data
(:func:`layout_case`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..d3d.feature_level import DEFAULT_FEATURE_LEVEL
from ..d3d.layout import InputLayout
from ..errors import InvalidDescError
from .case import Case, encode_data, load_case
from .case_shader import constant_buffer_entries

__all__ = ["layout_case"]


def layout_case(layout: InputLayout | Iterable[Any], *, vertices: int = 64, instances: int = 3,
                seed: int = 0, name: str = "layout",
                vertex_shader: dict[str, Any] | None = None,
                constant_buffers: Mapping[int, bytes | dict] | None = None) -> Case:
    """A case that draws a layout with every slot bound: one ``DrawInstanced`` of
    ``vertices`` points per instance and ``instances`` instances, every slot bound with the
    smallest stride its elements allow (their extent, rounded up to 4 bytes) and seeded random
    bytes (NaN and denormal codes included: the comparison classes NaNs, rules 2.5).
    Per-instance slots hold one row per instance, whatever their step rate. The case goes
    through :func:`~gpuia.harness.case.load_case`, so it is checked as a case file is, at the
    layout's feature level (its ``feature_level`` key where that is not D3D12's).

    Arguments:
        layout: an :class:`~gpuia.d3d.layout.InputLayout`, or D3D12 element descriptions
            (anything it takes).
        vertices (int): the vertices per instance, at least 1. Default 64.
        instances (int): the instances, at least 1. Default 3.
        seed (int): the seed of the random bytes. Default 0.
        name (str): the case's name. Default ``"layout"``.
        vertex_shader (dict): a case-format ``vertex_shader`` object (WGSL or HLSL) to draw
            with instead of the pass-through shader; the layout must then provide its inputs,
            and every constant buffer it reads is bound: from ``constant_buffers``, else
            zero-filled. Default None.
        constant_buffers (dict): root constant buffer slot -> its bytes (D3D-packed, as the
            application uploads them), or a dict of the cbuffer's members by name, which an
            HLSL ``vertex_shader``'s reflection packs by D3D's rules
            (:func:`gpuia.hlsl.pack_constant_buffer`; docs/case-format.md,
            ``constant_buffers``). Only slots the shader reads. Default None (all zeros).

    Returns:
        The :class:`~gpuia.harness.case.Case`.

    Raises:
        ValueError: ``vertices`` or ``instances`` is below 1.
        InvalidDescError: the layout is invalid (as :class:`~gpuia.d3d.layout.InputLayout`
            refuses it), or the shader is refused: WGSL that does not parse, HLSL that does not
            compile, or an input the layout lacks.
        CaseError: ``name`` is not one printable line, or ``vertex_shader`` is not well
            formed.
        UnsupportedError: an HLSL shader on a machine without Slang's compiler.
    """
    if vertices < 1 or instances < 1:
        raise ValueError(f"vertices ({vertices}) and instances ({instances}) must be >= 1")
    layout = layout if isinstance(layout, InputLayout) else InputLayout(layout)
    rng = np.random.default_rng(seed)
    buffers = []
    for slot, info in sorted(layout.slots.items()):
        stride = (info.extent + 3) // 4 * 4
        rows = instances if info.per_instance else vertices
        data = rng.integers(0, 256, size=stride * rows, dtype=np.uint8).tobytes()
        buffers.append({"slot": slot, "stride": stride, "data": encode_data(data)})
    doc = {
        "gpuia_case": 1, "name": name, "input_layout": layout.to_dicts(),
        "vertex_buffers": buffers, "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": vertices,
                                   "InstanceCount": instances, "StartVertexLocation": 0,
                                   "StartInstanceLocation": 0}}}
    if layout.feature_level != DEFAULT_FEATURE_LEVEL:
        doc["feature_level"] = layout.feature_level.name
    if vertex_shader is not None:
        doc["vertex_shader"] = vertex_shader
        doc["constant_buffers"] = constant_buffer_entries(vertex_shader, constant_buffers)
    elif constant_buffers:
        raise InvalidDescError("constant_buffers", "slot", min(constant_buffers),
                               "the pass-through shader reads no constant buffer (give a "
                               "vertex_shader)")
    return load_case(doc)
