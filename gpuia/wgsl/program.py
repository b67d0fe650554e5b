"""The WGSL vertex programs gpuia compiles: one per (layout, shader, path, capture route).

A program is composed of the pieces each module owns:

* the per-draw uniform block (:mod:`gpuia.wgsl.draw_block`), when the program reads it;
* on the pulling path, the storage bindings, decoders and fetch functions
  (:mod:`gpuia.wgsl.fetch`);
* the user's vertex shader and the generated entry point around it (:mod:`gpuia.wgsl.vertex`);
* in a capture, the capture bindings and statements and, on the render-target route, its own
  entry points (:mod:`gpuia.wgsl.capture`).

This module holds :class:`ProgramSpec` and :func:`vertex_program`, the per-draw block's fields
as data (:func:`draw_block_fields`), and keeps the names other modules import from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

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
from .draw_block import DRAW_HEADER_WORDS, SLOT_WORDS, draw_block_lines
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
        out += capture_binding_lines(route)
    if not spec.native:
        out += pulling_lines(layout, spec.pulled_slots, spec.aligned, spec.aligned16)
    out += user_shader_lines(sig)
    out.append("// ---- generated by gpuia: entry points ----")
    params = entry_parameters(layout, spec.native)
    body = entry_prologue_lines(layout, spec.native, constants)
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


class BlockField(NamedTuple):
    """One field of the per-draw uniform block (``gpuia_draw``, group 0 binding 0).

    Arguments:
        name (str): the WGSL member, a slot entry's as ``slots[j].base``.
        wgsl_type (str): its WGSL type (``u32``).
        offset (int): its byte offset in the block.
        meaning (str): what gpuia writes there for a draw.
    """

    name: str
    wgsl_type: str
    offset: int
    meaning: str


# What gpuia writes into each member of the block for a draw (gpuia.gpu.context.recorder fills
# it); slot members are those of each slots[j] entry, pulled slot j in ascending D3D slot order.
_BLOCK_MEANINGS = {
    "vertex_base": "BaseVertexLocation of an indexed draw, StartVertexLocation of a non-indexed "
                   "one: SV_VertexID is the vertex index minus it (rules 4.5)",
    "first_instance": "StartInstanceLocation: SV_InstanceID is the instance index minus it "
                      "(rules 4.6); per-instance data at step rate 0 or above 1 is fetched from "
                      "it (rules 4.3)",
    "capture_base": "captures only: the draw's first capture record",
    "key_offset": "captures only: where the draw's sorted fetch indices start in gpuia_keys",
    "key_count": "captures only: how many fetch indices the draw has",
    "key_contiguous": "captures only: 1 when the fetch indices are one run from key_first",
    "key_first": "captures only: the first of the draw's fetch indices",
    "pad0": "the render-target capture route only: the capture texture's height",
    "vertex_shift": "the part of a non-indexed draw's StartVertexLocation the adapter could "
                    "not take, added to the vertex index in the vertex stage (0 elsewhere)",
    "pad1": "padding", "pad2": "padding", "pad3": "padding",
    "base": "the byte address of the slot's view (BufferLocation) in the storage buffer bound "
            "for the slot",
    "stride": "the view's StrideInBytes",
    "size": "the view's SizeInBytes: an element not wholly inside it reads 0 (rules 6.1, 6.3)",
    "bound": "1 when a view is bound to the slot; 0 when none is, and every element of the "
             "slot reads (0, 0, 0, 0) (rules 6.2)",
}
_SCALAR_BYTES = {"u32": 4, "i32": 4, "f32": 4}
_MEMBER = re.compile(r"(\w+)\s*:\s*(array<\s*(\w+)\s*,\s*(\d+)\s*>|\w+)")


def draw_block_fields(n_slots: int) -> list[BlockField]:
    """The per-draw uniform block's fields, in order, read from the block's own WGSL
    declaration (:func:`draw_block_lines`), so that names, types and offsets are the ones
    every generated program declares. Offsets follow WGSL's uniform layout: scalars of 4 bytes,
    the slot array at a multiple of 16 with 16-byte entries.

    Arguments:
        n_slots (int): the pulled slots the block describes (it has at least one entry).

    Returns:
        A new list of :class:`BlockField`, the header's members and then each slot entry's.

    Raises:
        RuntimeError: the declaration disagrees with :data:`DRAW_HEADER_WORDS` and
            :data:`SLOT_WORDS` (a member that is no 4-byte scalar, or a size that differs),
            so that no wrong offset is ever handed out.
    """
    text = "\n".join(draw_block_lines(n_slots))
    structs = {name: _MEMBER.findall(body)
               for name, body in re.findall(r"struct (\w+) \{(.*?)\}", text, re.S)}

    def layout(struct: str, prefix: str, start: int) -> tuple[list[BlockField], int]:
        out, offset = [], start
        for name, wgsl_type, element, count in structs[struct]:
            if element:
                offset = (offset + 15) // 16 * 16
                for j in range(int(count)):
                    fields, offset = layout(element, f"{prefix}{name}[{j}].", offset)
                    out += fields
                continue
            if wgsl_type not in _SCALAR_BYTES:
                raise RuntimeError(f"per-draw block member {name}: {wgsl_type} is no 4-byte "
                                   f"scalar")
            out.append(BlockField(prefix + name, wgsl_type, offset, _BLOCK_MEANINGS[name]))
            offset += _SCALAR_BYTES[wgsl_type]
        return out, offset

    fields, size = layout("GpuiaDraw", "", 0)
    words = DRAW_HEADER_WORDS + SLOT_WORDS * max(1, n_slots)
    if size != 4 * words:
        raise RuntimeError(f"the per-draw block declares {size} bytes, DRAW_HEADER_WORDS and "
                           f"SLOT_WORDS make {4 * words}")
    return fields
