"""What gpuia hands WebGPU for an input layout, as data a port can use without gpuia.

:func:`translate_layout` plans a layout for given strides the way every gpuia draw is planned
(:func:`gpuia.gpu.vertex.plan.static_plan` and :func:`~gpuia.gpu.vertex.plan.choose_path`, on an
adapter's :class:`~gpuia.gpu.caps.Caps` or WebGPU's default limits) and returns a
:class:`Translation`:

* on the **native** path, the ``GPUVertexBufferLayout`` list gpuia's pipeline is built with
  (:func:`gpuia.gpu.vertex.pipelines.vertex_buffer_layouts`): WebGPU vertex buffer ``i`` is the
  ``i``-th used D3D slot in ascending order, and element ``k`` is ``@location(k)``, typed by its
  format's class (``vec4<f32>``, ``vec4<u32>`` or ``vec4<i32>``: WebGPU requires the class to
  match);
* on the **pulling** path, no vertex buffers, and a :class:`PulledFetch`: the WGSL of gpuia's
  per-draw block and fetch functions (:mod:`gpuia.wgsl.fetch`), the bind group layouts of
  groups 0 and 1 (:mod:`gpuia.gpu.vertex.pipelines`) and the block's fields
  (:func:`gpuia.wgsl.draw_block.draw_block_fields`);
* the path and the planner's reasons for it.

The layout, the strides and the limits decide the path; what they cannot decide is said as
notes: the native path is exact only for draws whose every fetch lies inside the bound views
(D3D reads zeros past a view, rules 6.1 and 6.3; gpuia checks that per draw and pulls a draw
that does not) and for views at offsets that are multiples of 4; the printed fetch functions
are the general ones, correct for any view offset and stride (gpuia's own draws use
single-word loads where the bound view's offset, its stride and every element offset are
multiples of 4, which only the bound view tells).

Dicts come in wgpu-py 0.32's spelling, which its ``create_render_pipeline`` and
``create_bind_group_layout`` require (they read ``array_stride``, ``shader_location``; camelCase
keys are refused there); :func:`webgpu_spelling` gives the WebGPU JavaScript API's, and
:meth:`Translation.as_dict` carries both. Nothing here imports wgpu or needs an adapter.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from ...d3d.ia_desc import VertexBufferView
from ...d3d.layout import InputLayout
from ...errors import InvalidDescError
from ...wgsl.draw_block import draw_block_fields, draw_block_lines
from ...wgsl.fetch import pulling_lines
from ...wgsl.scalar_types import WGSL_SCALAR
from ..caps import Caps
from .pipelines import (
    draw_block_bytes,
    draw_group_entries,
    pulled_bindings,
    pulled_group_entries,
    vertex_buffer_layouts,
)
from .plan import DrawPath, SizedBuffer, choose_path, static_plan

__all__ = ["Translation", "PulledFetch", "translate_layout", "webgpu_spelling", "NATIVE_BOUNDS",
           "NATIVE_OFFSETS", "GENERAL_LOADS", "FETCH_ARGUMENTS"]

NATIVE_BOUNDS = ("the native path is exact only for draws whose every fetch lies inside the "
                 "bound views: D3D reads zeros past a view (rules 6.1, 6.3), WebGPU rejects or "
                 "clamps; gpuia checks this per draw and pulls a draw that reads past a view")
"""The note of a native translation: the condition no layout can decide."""

NATIVE_OFFSETS = ("planned with every view at offset 0: WebGPU takes vertex buffer offsets that "
                  "are multiples of 4, and gpuia pulls a draw whose view offset is not")
"""The note of a native translation about the views' offsets, which only the views tell."""

GENERAL_LOADS = ("the fetch functions are the general ones, exact for any view offset and "
                 "stride; gpuia's own draws use single-word loads where the bound view's "
                 "offset, its stride and every element offset are multiples of 4")
"""The note of a pulled translation about its loads."""

FETCH_ARGUMENTS = ("gpuia_fetch_<element>(vi, ii) takes WebGPU's @builtin(vertex_index) and "
                   "@builtin(instance_index) as they are (first vertex or base vertex, and "
                   "first instance, included) and returns the four 32-bit patterns D3D "
                   "delivers; bitcast them to the shader input's type")
"""The note of a pulled translation about calling its fetch functions."""

_CAMEL = re.compile(r"_([a-z])")


def webgpu_spelling(value: Any) -> Any:  # a JSON-like structure in, the same shape out
    """``value`` with every dict key in the WebGPU JavaScript API's spelling: wgpu-py's
    snake_case members become camelCase (``array_stride`` -> ``arrayStride``,
    ``min_binding_size`` -> ``minBindingSize``); values (enum strings, numbers) are the same in
    both APIs and stay.

    Arguments:
        value: a dict, a list or tuple of them, or a plain value.

    Returns:
        A new structure (lists for lists and tuples); plain values as given.
    """
    if isinstance(value, dict):
        return {_CAMEL.sub(lambda m: m.group(1).upper(), k): webgpu_spelling(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [webgpu_spelling(v) for v in value]
    return value


@dataclass(frozen=True)
class PulledFetch:
    """The vertex-pulling part of a translation.

    Arguments:
        wgsl (str): the WGSL to prepend to a vertex shader: the per-draw block (group 0
            binding 0), the storage bindings (group 1), the decoders and one fetch function
            per element.
        functions (tuple): (element index, fetch function name) per element.
        bindings (tuple): (D3D slot, group 1 binding) per pulled slot; the slot's entry in the
            block is its position here.
        arena (bool): every slot shares binding 0 (an arena buffer holding each view's bytes:
            more slots than the adapter's storage buffers); ``slots[j].base`` is then the
            view's position in the arena.
        block_size (int): the per-draw block's size in bytes.
        fields (tuple of BlockField): the per-draw block's fields, in order.
        read (frozenset): the names of the fields the fetch functions read (the others are
            gpuia's own: captures, its entry point).
        bind_group_layouts (tuple): ``{"entries": [...]}`` of groups 0 and 1 (wgpu-py's
            spelling).
    """

    wgsl: str
    functions: tuple
    bindings: tuple
    arena: bool
    block_size: int
    fields: tuple
    read: frozenset
    bind_group_layouts: tuple


@dataclass(frozen=True)
class Translation:
    """What gpuia hands WebGPU for one layout at one set of strides on one set of limits
    (:func:`translate_layout`).

    Arguments:
        layout (InputLayout): the resolved layout.
        strides (dict): D3D slot -> the stride planned with, for every slot the layout uses.
        path (DrawPath): ``native`` or ``pulling``.
        reasons (list of str): the planner's reasons: why the native path is ruled out (or
            ``forced by path=pulling`` first); empty for a native translation.
        slots (tuple of int): the used D3D slots, ascending: WebGPU vertex buffer ``i`` on
            the native path, the block's slot entry ``j`` on the pulling path.
        vertex_buffers (list): the ``vertex.buffers`` of the pipeline (wgpu-py's spelling);
            empty on the pulling path.
        pulled (PulledFetch | None): the pulling path's code and bindings; None on the native
            path.
        notes (tuple of str): what the translation holds only under conditions (module
            docstring).
    """

    layout: InputLayout
    strides: dict
    path: DrawPath
    reasons: list
    slots: tuple
    vertex_buffers: list
    pulled: PulledFetch | None = None
    notes: tuple = field(default=())

    def inputs(self) -> list[dict]:
        """One dict per element: what the vertex shader declares to receive it.

        Returns:
            A new list of dicts with ``element``, ``semantic``, ``format`` (DXGI),
            ``webgpu_format`` (None where WebGPU has none), ``slot``, ``offset``, and on the
            native path ``shader_location`` and ``wgsl_type`` (the ``@location`` input), on
            the pulling path ``fetch`` (the function) and ``wgsl_type`` ``vec4<u32>`` with
            ``bitcast_to`` (the format's class).
        """
        out = []
        functions = dict(self.pulled.functions) if self.pulled is not None else {}
        for e in self.layout.elements:
            row = {"element": e.index, "semantic": e.key, "format": e.format.name,
                   "webgpu_format": e.format.webgpu, "slot": e.slot, "offset": e.offset}
            typed = f"vec4<{WGSL_SCALAR[e.format.shader_type]}>"
            if self.pulled is None:
                row.update(shader_location=e.index, wgsl_type=typed)
            else:
                row.update(fetch=functions[e.index], wgsl_type="vec4<u32>", bitcast_to=typed)
            out.append(row)
        return out

    def as_dict(self) -> dict:
        """The translation as JSON-ready values.

        ``wgpu_py`` holds ``vertex`` (``{"buffers": [...]}``, to spread into
        ``create_render_pipeline(vertex=...)`` beside ``module`` and ``entry_point``) and
        ``bind_group_layouts`` (each ``{"entries": [...]}``, for
        ``create_bind_group_layout(**layout)``) in wgpu-py's spelling; ``webgpu`` the same
        in the JavaScript API's (``vertex``, ``bindGroupLayouts``). ``pulling`` is None on
        the native path.

        Returns:
            A new dict, sharing nothing with the translation.
        """
        groups = copy.deepcopy(list(self.pulled.bind_group_layouts)) if self.pulled else []
        buffers = copy.deepcopy(self.vertex_buffers)
        doc = {"path": str(self.path), "reasons": list(self.reasons),
               "buffer_slots": list(self.slots) if self.pulled is None else [],
               "inputs": self.inputs(),
               "wgpu_py": {"vertex": {"buffers": buffers}, "bind_group_layouts": groups},
               "webgpu": {"vertex": {"buffers": webgpu_spelling(buffers)},
                          "bindGroupLayouts": webgpu_spelling(groups)},
               "pulling": None, "notes": list(self.notes)}
        p = self.pulled
        if p is not None:
            doc["pulling"] = {
                "wgsl": p.wgsl,
                "fetch_functions": [{"element": i, "name": name} for i, name in p.functions],
                "storage_buffers": [{"slot": s, "group": 1, "binding": b}
                                    for s, b in p.bindings],
                "arena": p.arena,
                "draw_block": {"group": 0, "binding": 0, "size": p.block_size,
                               "fields": [{"name": f.name, "wgsl_type": f.wgsl_type,
                                           "offset": f.offset, "meaning": f.meaning,
                                           "read_by_fetch": f.name in p.read}
                                          for f in p.fields]},
            }
        return doc


def _views(layout: InputLayout, strides: dict) -> dict:
    """One view per used slot, of the slot's stride, holding one vertex."""
    unused = sorted(set(strides) - set(layout.slots))
    if unused:
        raise InvalidDescError(f"slot {unused[0]}", "StrideInBytes", strides[unused[0]],
                               f"the layout has no element in slot {unused[0]} (its slots: "
                               f"{', '.join(map(str, layout.slots)) or 'none'})")
    views = {}
    for s, info in layout.slots.items():
        if s not in strides:
            raise InvalidDescError(f"slot {s}", "StrideInBytes", None,
                                   "the layout uses the slot and no stride is given for it")
        stride = strides[s]
        if isinstance(stride, bool) or not isinstance(stride, int):
            raise InvalidDescError(f"slot {s}", "StrideInBytes", stride,
                                   "a stride is an integer number of bytes (rules 3.3)")
        size = max(stride, info.extent, 4)
        try:
            views[s] = VertexBufferView(SizedBuffer(size), stride, 0, size)
        except InvalidDescError as e:  # the view's own checks, named by the slot
            raise InvalidDescError(f"slot {s}", e.field, e.value, e.rule) from None
    return views


def _read_fields(fields, code: str) -> frozenset:
    """The block fields ``code`` reads: header members as ``gpuia_draw.<name>``, a slot
    entry's members through the entry (``.<member>`` after the entry's local name)."""
    read = set()
    for f in fields:
        if "." in f.name:  # slots[j].member
            if re.search(rf"\w\.{f.name.rsplit('.', 1)[1]}\b", code):
                read.add(f.name)
        elif re.search(rf"\bgpuia_draw\.{f.name}\b", code):
            read.add(f.name)
    return frozenset(read)


def _pulled(layout: InputLayout, slots: tuple, arena: bool) -> PulledFetch:
    bindings = pulled_bindings(slots, arena)
    fetch = pulling_lines(layout, bindings)
    code = "\n".join([*draw_block_lines(len(slots)), *fetch, ""])
    fields = tuple(draw_block_fields(len(slots)))
    n_bindings = 1 if arena else len(slots)
    groups = ({"entries": draw_group_entries(False, len(slots))},
              {"entries": pulled_group_entries(n_bindings)})
    return PulledFetch(code, tuple((e.index, f"gpuia_fetch_{e.index}") for e in layout.elements),
                       bindings, arena, draw_block_bytes(len(slots)), fields,
                       _read_fields(fields, "\n".join(fetch)), groups)


def translate_layout(layout: InputLayout, strides: dict, caps: Caps,
                     path: DrawPath | str = DrawPath.AUTO) -> Translation:
    """Translate ``layout`` bound at ``strides`` into what gpuia hands WebGPU on ``caps``: the
    path gpuia's planner chooses (as for a draw of that layout and those views, no capture, no
    Stream Output) with its reasons, the vertex buffer layouts of the native path, or the
    fetch code, bind group layouts and per-draw block of the pulling path.

    Arguments:
        layout (InputLayout): the resolved layout.
        strides (dict): D3D slot -> StrideInBytes, for exactly the slots the layout uses.
        caps (Caps): the limits, features and quirks to plan for: an adapter's
            (``Device.caps``), or WebGPU's default limits
            (:func:`gpuia.harness.lint.webgpu_default_caps`).
        path (DrawPath | str): ``auto`` (the planner's choice), or ``native`` / ``pulling``
            to force one.

    Returns:
        The :class:`Translation`.

    Raises:
        InvalidDescError: a used slot without a stride, a stride for a slot the layout does
            not use, or a stride that is no integer in 0..2048 (rules 3.3), each naming the
            slot; or ``path`` is no :class:`DrawPath` value.
        UnsupportedError: ``native`` is forced where the native path is not exact, or the
            pulling path the layout needs exceeds the limits (the planner's reasons).
    """
    path = DrawPath.of(path, "translate", "path")
    views = _views(layout, strides)
    static = static_plan(layout, views, caps, capture=False)
    chosen, reasons = choose_path(static, [], path)
    slots = static.slots
    planned = {s: views[s].stride_in_bytes for s in slots}
    if chosen is DrawPath.NATIVE:
        buffers = vertex_buffer_layouts(layout, slots, [planned[s] for s in slots])
        return Translation(layout, planned, chosen, list(reasons), slots, buffers, None,
                           (NATIVE_BOUNDS, NATIVE_OFFSETS))
    return Translation(layout, planned, chosen, list(reasons), slots, [],
                       _pulled(layout, slots, static.arena), (GENERAL_LOADS, FETCH_ARGUMENTS))
