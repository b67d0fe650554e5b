"""Per-draw planning: can WebGPU's own vertex fetch do this draw exactly, or must gpuia pull?

:func:`plan_draw` looks at the resolved layout, the views bound at draw time, the draw's arguments
and the device's :class:`~gpuia.gpu.caps.Caps`, and returns a :class:`Plan`: the path
(:class:`DrawPath` ``native`` or ``pulling``), the human-readable reasons that ruled the native
path out (what ``gpuia run --explain`` prints), and how indices reach the GPU
(:class:`~gpuia.gpu.ia.plan.IndexPlan`, planned by the Input Assembler stage,
:func:`gpuia.gpu.ia.plan.plan_indices`). Nothing here touches wgpu, so every rule WebGPU
would enforce is checked before anything is submitted (a validation error at submit aborts the
process in wgpu-py 0.32).

The native path needs, for every slot the layout uses: a bound view; a format with a WebGPU
vertex format; per-vertex data or per-instance data at step rate 1; a stride that is a multiple
of 4, at most ``max-vertex-buffer-array-stride``, and 0 (the slot's extent then within that
limit) or at least the slot's extent; a view
offset that is a multiple of 4; every fetch of the draw inside the view (WebGPU rejects draws
that read past a buffer, and its robust access is not D3D's zero fill); no more slots and
elements than the adapter's vertex buffers and attributes. Everything else is pulled.

A pulled slot's words are storage loads, or, on adapters with the
:data:`~gpuia.gpu.quirks.ATTRIBUTE_FETCH` quirk, raw ``uint32`` words through vertex attributes
where the same slot rules (:func:`slot_obstacles`, for the elements' whole words) and the same
per-draw bounds rule (:func:`slot_bounds_obstacle`) hold for that slot (:func:`fetch_forms`):
the plan's ``attributes`` and ``forms``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...d3d.desc import StripCutValue
from ...d3d.draws import DrawIndexedInstanced, DrawInstanced, delivering, delivers_nothing, draw_of
from ...d3d.ia_desc import IndexBufferView, VertexBufferView
from ...d3d.layout import InputLayout
from ...d3d.topology import TopologyInfo
from ...errors import InvalidDescError, UnsupportedError
from ...util.named import NamedMode
from ..caps import Caps
from ..ia.plan import (
    EXACT_ASSEMBLY,
    U32,
    Assembly,
    IndexMode,
    IndexPlan,
    plan_indices,
    shift_first_vertex,
)
from ..quirks import ATTRIBUTE_FETCH, FETCH, has_effect

__all__ = ["Plan", "DrawPath", "plan_draw", "plan_resolved_draw", "last_whole_index",
           "native_last_indices", "CAPTURE_BINDINGS", "SizedBuffer", "fetch_forms",
           "slot_obstacles"]

CAPTURE_BINDINGS = 3
"""Storage buffers the capture adds to the vertex stage (records, keys, error counters)."""


class DrawPath(NamedMode):
    """How a draw fetches its vertices.

    ``auto`` picks ``native`` (WebGPU's vertex fetch) when it is exact for the draw, else
    ``pulling`` (gpuia's WGSL fetch from storage buffers); forcing ``native`` where it is not
    exact is refused with the reasons (:class:`~gpuia.errors.UnsupportedError`), and so is
    forcing ``pulling`` where the adapter's storage limits rule it out. A :class:`Plan`'s path
    is ``native`` or ``pulling``, never ``auto``. A str enum: members equal, hash and print as
    their strings, and every public entry taking a path takes a member or its string
    (:meth:`of`; anything else is an :class:`~gpuia.errors.InvalidDescError`)."""

    AUTO = "auto"
    NATIVE = "native"
    PULLING = "pulling"



@dataclass
class Plan:
    """One planned draw: which path fetches its vertices, why, and how its indices reach the
    GPU. What :func:`plan_draw` and the ``draw_*`` calls of :class:`~gpuia.gpu.Context` return,
    and what ``gpuia run --explain`` prints (:meth:`explain`).

    Arguments:
        path (DrawPath | str): ``native`` or ``pulling`` (a :class:`DrawPath` or its value,
            stored as the member).
        reasons (list of str): why the native path was ruled out, or ``"forced by
            path=pulling"`` first when it was forced; empty for a native draw.
        index (IndexPlan): how the draw's vertices are sequenced on the GPU
            (``index.mode``, an :class:`IndexMode`, and ``index.reasons``).
        slots (tuple of int): the D3D input slots the layout uses, ascending (the compacted
            WebGPU vertex buffer order).
        attributes (frozenset of int): on the pulling path, the slots whose raw words come
            through vertex attributes (the attribute form, :data:`~gpuia.gpu.quirks.ATTRIBUTE_FETCH`
            adapters only); the others' words are storage loads. Empty for a native draw.
        forms (tuple of str): on the pulling path, one line per slot saying which form reads
            its words and, for storage loads, why.

    Raises:
        InvalidDescError: ``path`` is no :class:`DrawPath` value.
    """

    path: DrawPath | str
    reasons: list[str]
    index: IndexPlan
    slots: tuple[int, ...]
    attributes: frozenset = frozenset()
    forms: tuple[str, ...] = ()

    def __post_init__(self):
        if type(self.path) is not DrawPath:
            self.path = DrawPath.of(self.path, "Plan", "path")

    def explain(self) -> str:
        """The plan as text: a ``path: ...`` line, then one indented line per reason (``every
        slot is expressible natively`` when there is none), one per index reason, prefixed
        ``indices:``, and on the pulling path one per slot's form, prefixed ``fetch:``.

        Returns:
            The lines joined with newlines (no trailing newline).
        """
        lines = [f"path: {self.path}"]
        lines += [f"  - {r}" for r in self.reasons] or ["  - every slot is expressible natively"]
        lines += [f"  - indices: {r}" for r in self.index.reasons]
        lines += [f"  - fetch: {f}" for f in self.forms]
        return "\n".join(lines)


@dataclass
class SlotBounds:
    """What the per-draw bounds check needs to know about one natively fetched slot."""

    slot: int
    stride: int
    extent: int
    size: int
    per_instance: bool
    rate: int


@dataclass
class StaticPlan:
    """The part of a plan that depends only on the pipeline state and the bound views."""

    slots: tuple[int, ...]
    native_obstacles: list[str]
    pulling_obstacles: list[str]
    bounds: tuple[SlotBounds, ...]
    arena: bool = False  # pulled slots are copied into one storage buffer (too many slots)
    # slot -> (offset, size) of the storage binding of a pulled view in a buffer over the
    # binding limit (see binding_window); slots not listed bind their whole buffer
    windows: dict = field(default_factory=dict)
    # slot -> SlotBounds (whole-word extent) of pulled slots the attribute form may read
    # (ATTRIBUTE_FETCH adapters), and slot -> why the others take storage loads
    attribute_bounds: dict = field(default_factory=dict)
    storage_reasons: dict = field(default_factory=dict)
    # slot -> why storage loads cannot read it (its view needs a storage binding over
    # max-storage-buffer-binding-size), for slots the attribute form may read: their storage
    # binding is a stand-in window, and a draw that would load them from storage is refused
    storage_limits: dict = field(default_factory=dict)

    def storage_obstacles(self) -> list[str]:
        """Why pulling cannot do a draw that reads every slot through storage loads (DrawAuto,
        Stream Output): the pulling obstacles and every slot's :attr:`storage_limits`."""
        return self.pulling_obstacles + list(self.storage_limits.values())


SO_BINDINGS = 3 + 8
"""Storage buffers a Stream Output compute pass adds beside the vertex data: its state,
statistics and index/list input, and up to 4 targets with 4 counter buffers."""


def static_plan(layout: InputLayout, views: dict, caps: Caps, capture: bool,
                stream_output: bool = False, compute: bool = False) -> StaticPlan:
    """The draw-independent part of a plan. ``compute``: the vertex stage also runs in a compute
    pass (Stream Output, a geometry shader), whose pulled slots are storage loads only.

    The attribute form (adapters with :data:`~gpuia.gpu.quirks.ATTRIBUTE_FETCH`) may read a
    pulled slot whose every element is at an offset multiple of 4 and whose view passes the
    native path's slot rules (:func:`slot_obstacles`) for the elements' whole words (``uint32``
    .. ``uint32x4`` attributes: no conversion), within the adapter's vertex buffers and
    attributes (slots taken in ascending order); whether a draw stays inside the views is
    decided per draw (:func:`fetch_forms`)."""
    slots = tuple(sorted(layout.slots))
    native, bounds = _native_obstacles(layout, views, caps, slots)
    if capture and CAPTURE_BINDINGS > caps.max_storage_buffers_per_shader_stage:
        # caps here are less the vertex shader's SRVs (gpuia.gpu.context.resolve)
        native.append(f"the capture's {CAPTURE_BINDINGS} storage buffers do not fit the "
                      f"{caps.max_storage_buffers_per_shader_stage} the vertex stage has left "
                      f"(max-storage-buffers-per-shader-stage, less the vertex shader's "
                      f"shader resource views)")
    pulling, arena, windows, over = _pulling_obstacles(layout, views, caps, slots,
                                                       CAPTURE_BINDINGS if capture else 0,
                                                       SO_BINDINGS if stream_output else 0)
    attribute_bounds, storage_reasons = _attribute_form(
        layout, views, caps, slots, compute or stream_output)
    limits = {}
    for s, why in over.items():
        if s in attribute_bounds:  # a vertex buffer then: the vertex-buffer rules held
            limits[s] = why
            start, _ = windows[s]  # a binding WebGPU accepts, read by no storage load
            windows[s] = (start, caps.max_storage_buffer_binding_size // 16 * 16)
        else:
            pulling.append(why)
    return StaticPlan(slots, native, pulling, tuple(bounds), arena, windows, attribute_bounds,
                      storage_reasons, limits)


def _attribute_form(layout, views, caps: Caps, slots, compute: bool) -> tuple[dict, dict]:
    """(slot -> SlotBounds of the slots the attribute form may read, slot -> why not)."""
    if not has_effect(caps.quirks, ATTRIBUTE_FETCH):
        return {}, dict.fromkeys(slots, "the adapter's storage loads are its fast form")
    if compute:
        return {}, dict.fromkeys(slots, "the vertex stage also runs in a compute pass")
    allowed: dict = {}
    reasons: dict = {}
    attributes = 0
    for s in slots:
        info = layout.slots[s]
        extent = max(e.offset + 4 * e.format.words for e in info.elements)
        why, b = slot_obstacles(s, info, views.get(s), caps, extent)
        why += [f"{e.label()}: offset {e.offset} is not a multiple of 4"
                for e in info.elements if e.offset % 4]
        if not why and len(allowed) == caps.max_vertex_buffers:
            why = [f"the adapter's {caps.max_vertex_buffers} vertex buffers are taken"]
        elif not why and attributes + len(info.elements) > caps.max_vertex_attributes:
            why = [f"the adapter's {caps.max_vertex_attributes} vertex attributes are taken"]
        if why:
            reasons[s] = "; ".join(why)
        else:
            allowed[s] = b
            attributes += len(info.elements)
    return allowed, reasons


def fetch_forms(static: StaticPlan, draw, index: IndexPlan) -> tuple[frozenset, tuple[str, ...]]:
    """(the pulled slots whose raw words come through vertex attributes for this draw, one line
    per slot naming its form): a slot the attribute form may read (:func:`static_plan`) takes it
    when every fetch of the draw lies inside its view (the native path's per-draw bounds rule,
    :func:`slot_bounds_obstacle`, for the elements' whole words) and, for per-vertex data, the
    vertex index is WebGPU's own (no shifted first vertex)."""
    attributes = set()
    forms = []
    for s in static.slots:
        b = static.attribute_bounds.get(s)
        why = static.storage_reasons.get(s)
        if b is not None:
            why = slot_bounds_obstacle(b, draw, index)
            if why is None and index.vertex_shift and not b.per_instance:
                why = "the vertex stage adds the draw's first vertex"
        if why is None:
            attributes.add(s)
            forms.append(f"slot {s}: raw words through vertex attributes")
        else:
            forms.append(f"slot {s}: storage loads: {why}")
    return frozenset(attributes), tuple(forms)


def bounds_obstacles(static: StaticPlan, draw, index: IndexPlan) -> list[str]:
    """Per-draw native obstacles: fetches outside a view, or fetch indices not known."""
    out = (slot_bounds_obstacle(b, draw, index) for b in static.bounds)
    return [o for o in out if o is not None]


def slot_bounds_obstacle(b: SlotBounds, draw, index: IndexPlan) -> str | None:
    """Why the draw's fetches of slot ``b`` are not all inside its view (or not known on the
    host), or None: the per-draw rule of the native path (rules 6.1 and 6.3)."""
    if delivers_nothing(draw):
        return None
    if b.per_instance:
        lo = draw.start_instance_location
        hi = lo + ((draw.instance_count - 1) // b.rate if b.rate else 0)
    elif index.span is None:
        if index.fetch is None and index.mode is not IndexMode.NONE:
            return (f"slot {b.slot}: fetch indices unknown on the host (out-of-bounds "
                    f"reads would not be D3D's zeros)")
        return None
    else:
        lo, hi = index.span
    if hi > U32:
        return f"slot {b.slot}: fetch index {hi} wraps past 2**32"
    if hi > last_whole_index(b):
        return (f"slot {b.slot}: the draw fetches element {hi}, past the view's "
                f"{b.size} bytes (D3D reads zeros, WebGPU rejects or clamps)")
    return None


def choose_path(static: StaticPlan, dynamic: list[str],
                path: DrawPath | str) -> tuple[DrawPath, list[str]]:
    """(chosen path, reasons) from the obstacles and the asked ``path`` (a :class:`DrawPath` or
    its value); raises :class:`UnsupportedError` when the forced or only path fails."""
    path = DrawPath.of(path, "draw", "path")
    reasons = static.native_obstacles + dynamic
    if path is DrawPath.NATIVE and reasons:
        raise UnsupportedError("the native path cannot do this draw exactly: " + "; ".join(reasons))
    chosen = (DrawPath.NATIVE if path is DrawPath.NATIVE or (path is DrawPath.AUTO and not reasons)
              else DrawPath.PULLING)
    if chosen is DrawPath.PULLING and static.pulling_obstacles:
        raise UnsupportedError("the pulling path cannot do this draw: "
                               + "; ".join(static.pulling_obstacles)
                               + (f" (native path: {'; '.join(reasons)})" if reasons else ""))
    if path is DrawPath.PULLING:
        reasons = ["forced by path=pulling"] + reasons
    return chosen, reasons


def last_whole_index(b: SlotBounds) -> int:
    """The highest element index of a natively fetched slot whose fetch lies wholly inside its
    view (-1: none does; every index with stride 0 when the elements fit): the native path's
    bounds rule (rules 6.1 and 6.3: D3D reads zeros past the view, WebGPU would not), used by the
    per-draw check and the fast path's precomputed limits."""
    if b.extent > b.size:
        return -1
    return U32 if b.stride == 0 else (b.size - b.extent) // b.stride


def native_last_indices(static: StaticPlan) -> tuple[int, tuple]:
    """(highest vertex index every per-vertex slot holds whole, ((step rate, highest instance
    index held), ...) per distinct rate of per-instance slots): :func:`last_whole_index` over
    the slots, so that a draw is inside every view when its last vertex and each rate's last
    instance are at most these."""
    last: dict[int | None, int] = {}
    for b in static.bounds:
        key = b.rate if b.per_instance else None
        last[key] = min(last.get(key, U32), last_whole_index(b))
    return last.pop(None, U32), tuple(last.items())


def plan_resolved_draw(static: StaticPlan, draw, topo: TopologyInfo, caps: Caps,
                       index_buffer: IndexBufferView | None, strip_cut_value: StripCutValue,
                       path: DrawPath | str, capture: bool,
                       assembly: Assembly = EXACT_ASSEMBLY) -> Plan:
    """Plan one draw over an already resolved :class:`StaticPlan`: how its indices reach the
    GPU (:func:`plan_indices`, the adapter's first-vertex limit), its per-draw native obstacles
    (:func:`bounds_obstacles`) and the path. The one composition every draw runs:
    :meth:`gpuia.gpu.Context.draw` calls it, and :func:`plan_draw` is it for a layout and views.
    A draw the GPU index pass lists (mode ``gpu``) is drawn indirectly, so a nonzero
    StartInstanceLocation is refused on an adapter without ``indirect-first-instance``."""
    index = shift_first_vertex(
        plan_indices(draw, index_buffer, topo, strip_cut_value, capture, assembly),
        draw, caps.quirks)
    if (index.mode is IndexMode.GPU and draw.start_instance_location
            and not caps.indirect_first_instance):
        raise UnsupportedError(
            f"{index.reasons[-1]} ({'; '.join(index.reasons[:-1])}) as an indirect draw, which "
            f"cannot start at instance {draw.start_instance_location}: the adapter lacks "
            f"indirect-first-instance")
    dynamic = bounds_obstacles(static, draw, index)
    if index.vertex_shift:
        dynamic.append(index.reasons[-1] + ", which the native path's fetch cannot follow")
    chosen, reasons = choose_path(static, dynamic, path)
    if chosen is DrawPath.NATIVE:
        return Plan(chosen, reasons, index, static.slots)
    attributes, forms = fetch_forms(static, draw, index)
    loads = [f"{why} ({forms[static.slots.index(s)]})"
             for s, why in static.storage_limits.items() if s not in attributes]
    if loads:
        native = static.native_obstacles + dynamic
        raise UnsupportedError("the pulling path cannot do this draw: " + "; ".join(loads)
                               + (f" (native path: {'; '.join(native)})" if native else ""))
    return Plan(chosen, reasons, index, static.slots, attributes, forms)


def plan_draw(layout: InputLayout, views: dict[int, VertexBufferView | None],
              draw: DrawInstanced | DrawIndexedInstanced | dict,
              topo: TopologyInfo, caps: Caps, *, index_buffer: IndexBufferView | None = None,
              strip_cut_value: StripCutValue = StripCutValue.DISABLED,
              path: DrawPath | str = DrawPath.AUTO,
              capture: bool = False, stream_output: bool = False) -> Plan:
    """Choose the path of one draw, exactly as :meth:`gpuia.gpu.Context.draw` does for the same
    layout, views and adapter (``caps``; a rendering draw's primitive assembly as for a
    pipeline without flat pixel inputs). Touches no GPU: the plan is what every WebGPU rule
    gpuia knows says, decided before anything could be submitted.

    With ``auto`` the native path is chosen only where it is exact, by the rules the module
    docstring lists (every fetch of the draw inside its view among them: D3D reads zeros past a
    view, rules 6.1 and 6.3, and WebGPU would not). Indices D3D reads past the index view read 0
    (rules 5.6), a NULL index view reads 0 everywhere (rules 5.5), and strip cuts follow
    ``strip_cut_value`` (rules 5.2-5.4): where WebGPU would draw the user's index buffer otherwise,
    gpuia builds its own stream (on the host when the buffer has a host copy, else with the GPU
    index pass).

    Arguments:
        layout (InputLayout): the pipeline state's input layout.
        views (dict): input slot -> :class:`~gpuia.d3d.ia_desc.VertexBufferView` (or None: a
            NULL binding) at draw time; slots not listed are unbound.
        draw: the :class:`~gpuia.d3d.draws.DrawInstanced` or
            :class:`~gpuia.d3d.draws.DrawIndexedInstanced`, or its case-file dict form (a draw
            that delivers nothing is planned as its empty form).
        topo (TopologyInfo): the primitive topology's row
            (:func:`gpuia.d3d.topology.topology_info`).
        caps (Caps): the adapter's limits, features and quirks (``Device.caps``).
        index_buffer (IndexBufferView | None): the bound index buffer view of an indexed
            draw (None: a NULL view).
        strip_cut_value (StripCutValue): the pipeline state's IBStripCutValue: a member or
            what :meth:`~gpuia.d3d.desc.StripCutValue.of` takes (``"0xFFFF"``).
        path: a :class:`DrawPath` or its value: ``auto``, or ``native`` / ``pulling`` to force
            one; forcing native where it cannot be exact raises :class:`UnsupportedError`
            with the reasons; anything else raises :class:`InvalidDescError`.
        capture: plan the draw as a capture draw (point list over the delivered vertices).
        stream_output: the pipeline state streams out (its pass takes storage bindings).

    Returns:
        The :class:`Plan`: the path, the reasons, and how the indices reach the GPU.

    Raises:
        InvalidDescError: ``path`` is no :class:`DrawPath` value, ``draw`` no draw, or
            ``strip_cut_value`` no strip cut value (each naming the field).
        UnsupportedError: the forced native path is not exact, the pulling path the draw
            needs exceeds the adapter's storage limits, the draw has more indices (or
            captured vertices) per instance than gpuia reads on the host
            (:data:`HOST_INDEX_LIMIT`), a capture needs rewritten indices that only the GPU
            holds, or a draw the GPU index pass lists starts at an instance other than 0 on
            an adapter without ``indirect-first-instance``; each message says which.
    """
    path = DrawPath.of(path, "draw", "path")
    if not isinstance(draw, (DrawInstanced, DrawIndexedInstanced)):
        draw = draw_of(draw)  # the case-file dict form; anything else is an InvalidDescError
    try:
        strip_cut_value = StripCutValue.of(strip_cut_value)
    except ValueError as e:
        raise InvalidDescError("draw", "IBStripCutValue", strip_cut_value, str(e)) from None
    static = static_plan(layout, views, caps, capture, stream_output)
    assembly = EXACT_ASSEMBLY if capture else Assembly.of(caps.quirks, False)
    return plan_resolved_draw(static, delivering(draw), topo, caps, index_buffer,
                              strip_cut_value, path, capture, assembly)


def _native_obstacles(layout, views, caps: Caps, slots) -> tuple[list[str], list[SlotBounds]]:
    out, bounds = [], []
    if len(slots) > caps.max_vertex_buffers:
        out.append(f"the layout uses {len(slots)} slots, the adapter has "
                   f"{caps.max_vertex_buffers} vertex buffers")
    if len(layout.elements) > caps.max_vertex_attributes:
        out.append(f"the layout has {len(layout.elements)} elements, the adapter has "
                   f"{caps.max_vertex_attributes} vertex attributes")
    for e in layout.elements:
        if e.format.webgpu is None:
            out.append(f"{e.label()}: {e.format.name} has no WebGPU vertex format")
        elif caps.vertex_formats and e.format.webgpu not in caps.vertex_formats:
            out.append(f"{e.label()}: this wgpu build cannot use vertex format "
                       f"{e.format.webgpu} ({e.format.name}) safely")
        for q in caps.quirks:
            if q.effect == FETCH and q.affects(e):
                out.append(f"{e.label()}: adapter quirk: {q.reason}")
    for s in slots:
        info = layout.slots[s]
        obstacles, b = slot_obstacles(s, info, views.get(s), caps, info.extent)
        out += obstacles
        if b is not None:
            bounds.append(b)
    return out, bounds


def slot_obstacles(s: int, info, view, caps: Caps,
                   extent: int) -> tuple[list[str], SlotBounds | None]:
    """(why WebGPU's vertex fetch cannot read slot ``s`` exactly, its :class:`SlotBounds` when
    it is bound at step rate 1): the slot rules of the module docstring for elements reaching
    byte ``extent`` of a vertex (the slot's extent natively; its elements' whole words for the
    attribute form of pulled slots)."""
    out: list[str] = []
    if view is None or view.buffer is None:
        return [f"slot {s} is unbound (D3D reads zeros, w included)"], None
    if info.per_instance and info.step_rate != 1:
        return [f"slot {s} steps every {info.step_rate} instances (WebGPU has no step rate)"
                if info.step_rate else
                f"slot {s} has step rate 0 (every instance reads StartInstanceLocation)"], None
    stride = view.stride_in_bytes
    limit = caps.max_vertex_buffer_array_stride
    if stride % 4:
        out.append(f"slot {s} stride {stride} is not a multiple of 4")
    elif stride > limit:
        out.append(f"slot {s} stride {stride} exceeds max-vertex-buffer-array-stride {limit}")
    elif stride and stride < extent:
        out.append(f"slot {s} stride {stride} is smaller than its elements' extent {extent}")
    elif not stride and extent > limit:
        out.append(f"slot {s} has stride 0 and elements reaching byte {extent}, past "
                   f"max-vertex-buffer-array-stride {limit}")
    if view.offset % 4:
        out.append(f"slot {s} view offset {view.offset} is not a multiple of 4")
    return out, SlotBounds(s, stride, extent, view.size_in_bytes, info.per_instance,
                           info.step_rate)


def _pulling_obstacles(layout, views, caps: Caps, slots, capture_extra: int,
                       so_extra: int) -> tuple[list[str], bool, dict, dict]:
    """(obstacles, arena, binding windows, slot -> why its view is over one storage binding).
    With more slots than the stage has storage buffers (plus what the capture takes, or at most
    what a Stream Output pass takes), the views are copied into one arena buffer per draw,
    u_vbuf style. The Stream Output pass checks its exact need itself. A view over one storage
    binding is an obstacle only to storage loads (:func:`static_plan` decides)."""
    out = []
    limit = caps.max_storage_buffers_per_shader_stage
    arena = len(slots) + max(capture_extra, so_extra) > limit
    if arena and 1 + capture_extra > limit:
        out.append(f"the vertex stage has {limit} storage buffers, fewer than the "
                   f"{1 + capture_extra} pulling needs")
    total = 0
    windows = {}
    over = {}
    for s in slots:
        view = views.get(s)
        if view is None or view.buffer is None:
            continue
        total += arena_extent(view)[1] + 16
        window = None if arena else binding_window(view, caps)
        if window is None:
            continue
        windows[s] = window
        if window[1] > caps.max_storage_buffer_binding_size:
            over[s] = (f"slot {s}'s view ({view.size_in_bytes} bytes at offset {view.offset}) "
                       f"needs a {window[1]}-byte storage binding, over "
                       f"max-storage-buffer-binding-size {caps.max_storage_buffer_binding_size}")
    if arena and total > caps.max_storage_buffer_binding_size:
        out.append(f"the {len(slots)} slots' views ({total} bytes) do not fit one storage binding "
                   f"of max-storage-buffer-binding-size {caps.max_storage_buffer_binding_size}")
    return out, arena, windows, over


class SizedBuffer:
    """A buffer the planner sees without GPU memory, for planning a layout before any buffer
    exists (``gpuia layout``'s lint, ``gpuia translate``): the static plan reads only its size
    (``nbytes``, and ``wgpu.size`` for a storage binding window). Binding one to a Context is
    refused as any non-gpuia buffer is.

    Arguments:
        size (int): the buffer's size in bytes.
    """

    def __init__(self, size: int):
        self.nbytes = self.size = size
        self.wgpu = self  # the binding window reads ``buffer.wgpu.size``


def binding_window(view, caps: Caps) -> tuple[int, int] | None:
    """(offset, size) of the storage binding of a pulled view whose buffer is larger than one
    binding may be, or None when the whole buffer is bound. The window starts at the view offset
    rounded down to the adapter's binding-offset alignment (a multiple of 16, so the 128-bit
    loads of the view's rows stay inside) and ends at the view's end rounded up to 16, within
    the buffer; the shader's base for the slot is then ``offset - window offset``. Fetches
    outside the view read 0 by the D3D12 rule before any load, so the window holds every byte a
    draw can read."""
    wb = view.buffer.wgpu
    if wb.size <= caps.max_storage_buffer_binding_size:
        return None
    align = max(16, caps.min_storage_buffer_offset_alignment)
    start = view.offset // align * align
    end = min(wb.size, (view.offset + view.size_in_bytes + 15) // 16 * 16)
    return start, max(16, end - start)


def arena_extent(view) -> tuple[int, int]:
    """(first byte, length) of a view's bytes as copied into an arena: from the view offset
    rounded down to 16 (keeping its 16-byte alignment class) to its end rounded up to 4."""
    start = view.offset // 16 * 16
    end = (view.offset + view.size_in_bytes + 3) // 4 * 4
    return start, max(4, end - start)
