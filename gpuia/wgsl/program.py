"""The WGSL vertex programs gpuia compiles: one per (layout, shader, path, capture route).

A program is composed of the pieces each module owns:

* the per-draw uniform block (:mod:`gpuia.wgsl.draw_block`), when the program reads it;
* on the pulling path, the storage bindings, decoders and fetch functions
  (:mod:`gpuia.wgsl.fetch`);
* the user's vertex shader and the generated entry point around it (:mod:`gpuia.wgsl.vertex`);
* in a capture, the capture bindings and statements and, on the render-target route, its own
  entry points (:mod:`gpuia.wgsl.capture`).

This module holds :class:`ProgramSpec` and :func:`vertex_program`, and keeps the names other
modules import from it (the per-draw block's fields as data, :func:`draw_block_fields`, live
with the block's declaration in :mod:`gpuia.wgsl.draw_block`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..d3d.layout import InputLayout
from ..d3d.signature import ShaderSignature
from ..errors import InvalidDescError
from .capture import (
    CAPTURE_HEADER_WORDS,
    CAPTURE_TARGET_WIDTH,
    CaptureRoute,
    capture_binding_lines,
    capture_lines,
    capture_target_entry_points,
    record_words,
)
from .draw_block import (
    DRAW_HEADER_WORDS,
    SLOT_WORDS,
    BlockField,
    draw_block_fields,
    draw_block_lines,
)
from .fetch import load_function, pulling_lines
from .library import load_shader_source
from .vertex import (
    entry_parameters,
    entry_prologue_lines,
    shader_call_lines,
    user_shader_lines,
    vertex_entry_points,
)

__all__ = ["ProgramSpec", "vertex_program", "load_shader_source", "record_words", "CaptureRoute",
           "DRAW_HEADER_WORDS", "SLOT_WORDS", "CAPTURE_HEADER_WORDS", "CAPTURE_TARGET_WIDTH",
           "draw_block_lines", "load_function", "pulling_lines", "shader_call_lines",
           "BlockField", "draw_block_fields"]


def _capture_route(capture, group: int, per_group: int, elements: int) -> CaptureRoute | None:
    """``ProgramSpec.capture`` as given, made a route and checked against the group fields."""
    if capture is None or capture is False:
        route = None
    elif capture is True:
        route = CaptureRoute.TARGETS if group >= 0 else CaptureRoute.STORAGE
    else:
        route = CaptureRoute.of(capture)
    if route is CaptureRoute.TARGETS:
        # The record's vec4s: the header, then one per element; a group past them is empty.
        if per_group < 1 or not 0 <= group * per_group < 1 + elements:
            raise InvalidDescError("ProgramSpec", "capture_group", (group, per_group),
                                   f"the targets route renders group g of n >= 1 vec4s with "
                                   f"g * n below the record's {1 + elements} vec4s")
    elif group != -1:
        raise InvalidDescError("ProgramSpec", "capture_group", group,
                               "only the targets capture route has capture groups (-1 otherwise)")
    return route


@dataclass(frozen=True)
class ProgramSpec:
    """What a generated vertex program depends on (and so, with the wgpu state, its cache key).

    ``pulled_slots`` maps D3D slot -> storage binding index (pulling path); ``native`` is True
    when elements come from ``@location`` inputs. Strides, offsets and sizes are not part of it:
    they are per-draw uniforms, so pulling pipelines survive any rebinding.

    ``capture``: False (or None) for no capture; a :class:`CaptureRoute` or its value
    (``"storage"``, ``"targets"``); or True, the route ``capture_group`` implies (targets when it
    is >= 0). It is stored as the route, or None. The targets route renders group
    ``capture_group`` of ``capture_targets`` vec4s; the other cases take ``capture_group`` -1.
    Any other combination raises :class:`~gpuia.errors.InvalidDescError`.

    ``attributes``: pulled slots whose raw words come through ``uint32`` vertex attributes (the
    attribute form, :func:`gpuia.wgsl.fetch.attribute_parameters`); the others' through storage
    loads.
    """

    layout: InputLayout
    signature: ShaderSignature
    native: bool
    pulled_slots: tuple[tuple[int, int], ...]
    capture: CaptureRoute | str | bool | None  # stored as a CaptureRoute or None
    constants: bool = True  # False: a native program that needs no per-draw block
    capture_group: int = -1  # >= 0: render-target capture route, group of vec4 outputs
    capture_targets: int = 0  # vec4 outputs (color targets) per group on that route
    aligned: frozenset = frozenset()  # pulled slots whose every fetch is word-aligned
    aligned16: frozenset = frozenset()  # pulled slots with 16-byte view offset and stride
    varyings: tuple = ()  # gpuia.wgsl.pixel.Varying rows: outputs the pixel shader reads
    attributes: frozenset = frozenset()  # pulled slots whose raw words are vertex attributes

    def __post_init__(self):
        object.__setattr__(self, "capture", _capture_route(
            self.capture, self.capture_group, self.capture_targets, len(self.layout.elements)))


def vertex_program(spec: ProgramSpec) -> str:
    """The complete WGSL module for a vertex pipeline (entry point ``gpuia_vs``) plus a fragment
    entry point ``gpuia_fs``: trivial when nothing else is drawn, the capture targets' writer on
    the targets route."""
    layout, sig, route = spec.layout, spec.signature, spec.capture
    constants = spec.constants or route is not None or not spec.native
    out = draw_block_lines(len(spec.pulled_slots)) if constants else []
    if route is not None:
        out += capture_binding_lines(route, len(layout.elements))
    if not spec.native:
        out += pulling_lines(layout, spec.pulled_slots, spec.aligned, spec.aligned16,
                             spec.attributes)
    out += user_shader_lines(sig)
    out.append("// ---- generated by gpuia: entry points ----")
    params = entry_parameters(layout, spec.native, spec.attributes)
    body = entry_prologue_lines(layout, spec.native, constants, spec.attributes)
    if route is not None:
        body += capture_lines(layout, route, spec.capture_group, spec.capture_targets)
    body += shader_call_lines(layout, sig)
    if route is CaptureRoute.TARGETS:
        out += capture_target_entry_points(params, body, layout, spec.capture_group,
                                           spec.capture_targets)
    else:
        # Capture draws rasterize nothing; neither do shaders without SV_Position.
        out += vertex_entry_points(params, body, sig, rasterize=route is None,
                                   varyings=spec.varyings)
    return "\n".join(out)


