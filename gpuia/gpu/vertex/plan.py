"""Per-draw planning: can WebGPU's own vertex fetch do this draw exactly, or must gpuia pull?

:func:`plan_draw` looks at the resolved layout, the views bound at draw time, the draw's arguments
and the device's :class:`~gpuia.gpu.device.Caps`, and returns a :class:`Plan`: the path
(:class:`DrawPath` ``native`` or ``pulling``), the human-readable reasons that ruled the native
path out (what ``gpuia run --explain`` prints), and how indices reach the GPU
(:class:`IndexPlan`, its :class:`IndexMode`). Nothing here touches wgpu, so every rule WebGPU
would enforce is checked before anything is submitted (a validation error at submit aborts the
process in wgpu-py 0.32).

The native path needs, for every slot the layout uses: a bound view; a format with a WebGPU
vertex format; per-vertex data or per-instance data at step rate 1; a stride that is a multiple
of 4, at most ``max-vertex-buffer-array-stride``, and 0 (the slot's extent then within that
limit) or at least the slot's extent; a view
offset that is a multiple of 4; every fetch of the draw inside the view (WebGPU rejects draws
that read past a buffer, and its robust access is not D3D's zero fill); no more slots and
elements than the adapter's vertex buffers and attributes. Everything else is pulled.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np

from ...d3d.desc import StripCutValue
from ...d3d.draws import DrawIndexedInstanced, DrawInstanced, delivering, delivers_nothing, draw_of
from ...d3d.ia_desc import IndexBufferView, VertexBufferView
from ...d3d.layout import InputLayout
from ...d3d.topology import TopologyInfo
from ...errors import InvalidDescError, UnsupportedError
from ...util.named import NamedMode
from ..caps import Caps
from ..ia.host_lists import list_stream
from ..quirks import (
    FETCH,
    LAST_PROVOKING_VERTEX,
    NO_PRIMITIVE_RESTART,
    SIGNED_FIRST_VERTEX,
    has_effect,
)

__all__ = ["Plan", "IndexPlan", "IndexMode", "DrawPath", "Assembly", "plan_draw",
           "plan_resolved_draw", "plan_indices", "host_index_values", "shift_first_vertex",
           "last_whole_index", "native_last_indices", "CAPTURE_BINDINGS", "SizedBuffer"]

CAPTURE_BINDINGS = 3
"""Storage buffers the capture adds to the vertex stage (records, keys, error counters)."""

_U32 = 0xFFFFFFFF
_SIGNED_LIMIT = 1 << 31
HOST_INDEX_LIMIT = 1 << 27
"""Indices per instance gpuia reads on the host (to apply D3D's index rules) at the most."""


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


class IndexMode(NamedMode):
    """How a draw's vertices are sequenced on the GPU (:class:`IndexPlan`).

    A str enum like :class:`DrawPath` (members equal their strings). ``none``: a non-indexed
    draw (or one that delivers nothing), drawn as is; ``direct``: the user's index buffer bound
    as is; ``host``: gpuia uploads a uint32 stream it built from the indices on the host;
    ``gpu``: the indices are only on the GPU and WebGPU cannot draw them as they are, so the
    GPU index pass (:mod:`gpuia.gpu.ia.index_pass`) lists the draw's complete primitives there
    and the matching list topology draws them indirectly (D3D's cuts, rules 5.2-5.4, applied
    there)."""

    NONE = "none"
    DIRECT = "direct"
    HOST = "host"
    GPU = "gpu"


@dataclass(eq=False)
class IndexPlan:
    """How a draw's vertices are sequenced on the GPU.

    ``mode``: an :class:`IndexMode` (or its value, stored as the member). ``values``: the
    uint32 stream a ``host`` plan uploads (the index values D3D delivers, cuts removed,
    rewritten or listed). ``fetch`` holds the per-vertex fetch indices of one instance
    (uint32, wrapped) when known on the host (capture keys and native bounds checks need them;
    never for ``gpu``).
    ``listed``: drawn with the topology's list (a stream of complete primitives), not as is.
    ``cut`` and ``rotate``: what the index pass applies for a ``gpu`` plan (the pipeline's
    strip cut value; each primitive rotated for an adapter whose provoking vertex is the last).
    """

    mode: IndexMode | str
    values: np.ndarray | None = None
    index_format: str = "uint32"
    fetch: np.ndarray | None = None
    reasons: list[str] = field(default_factory=list)
    span: tuple[int, int] | None = None  # (min, max) per-vertex fetch index; None: nothing/unknown
    listed: bool = False  # drawn with topology.webgpu_list from a stream of whole primitives
    vertex_shift: int = 0  # part of StartVertexLocation added in the vertex stage, not the draw
    cut: StripCutValue = StripCutValue.DISABLED  # applied by the index pass (gpu mode)
    rotate: bool = False  # applied by the index pass (gpu mode)

    def __post_init__(self):
        if type(self.mode) is not IndexMode:
            self.mode = IndexMode.of(self.mode, "IndexPlan", "mode")
        if self.span is None and self.fetch is not None and self.fetch.shape[0]:
            self.span = (int(self.fetch.min()), int(self.fetch.max()))


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

    Raises:
        InvalidDescError: ``path`` is no :class:`DrawPath` value.
    """

    path: DrawPath | str
    reasons: list[str]
    index: IndexPlan
    slots: tuple[int, ...]

    def __post_init__(self):
        if type(self.path) is not DrawPath:
            self.path = DrawPath.of(self.path, "Plan", "path")

    def explain(self) -> str:
        """The plan as text: a ``path: ...`` line, then one indented line per reason (``every
        slot is expressible natively`` when there is none) and one per index reason, prefixed
        ``indices:``.

        Returns:
            The lines joined with newlines (no trailing newline).
        """
        lines = [f"path: {self.path}"]
        lines += [f"  - {r}" for r in self.reasons] or ["  - every slot is expressible natively"]
        lines += [f"  - indices: {r}" for r in self.index.reasons]
        return "\n".join(lines)


def _host(buffer):
    """Host bytes of a view's buffer, or None when only the GPU has them."""
    if buffer is None:
        return None
    host = getattr(buffer, "host", None)
    if host is not None:
        return host
    if hasattr(buffer, "wgpu"):  # a gpuia Buffer written by the GPU
        return None
    return buffer  # plain bytes-like data


@dataclass(frozen=True)
class Assembly:
    """What a rendering draw's primitive assembly must work around on this adapter and
    pipeline (:mod:`gpuia.gpu.quirks`): strips drawn as if no index restarted them, and flat
    pixel inputs taken from a primitive's last vertex while the pixel shader reads some."""

    no_restart: bool = False
    rotate: bool = False  # LAST_PROVOKING_VERTEX and a flat pixel input

    @classmethod
    def of(cls, quirks, flat_inputs: bool) -> Assembly:
        return cls(has_effect(quirks, NO_PRIMITIVE_RESTART),
                   flat_inputs and has_effect(quirks, LAST_PROVOKING_VERTEX))


EXACT_ASSEMBLY = Assembly()


def wrapped_fetch(values: np.ndarray, base: int) -> np.ndarray:
    """``(base + values) mod 2**32`` as uint32 (rules 4.8: fetch indices wrap at 32 bits):
    uint32 arithmetic wraps by itself, so no wider copy is made; ``values`` itself when ``base``
    is 0 (plans never modify their arrays)."""
    values = values.astype(np.uint32, copy=False)
    return values + np.uint32(base & _U32) if base & _U32 else values


def host_index_values(draw, host, ib: IndexBufferView | None) -> np.ndarray:
    """The index values D3D delivers for one instance of ``draw``, as uint32: from ``host``
    (the index buffer's bytes; None: a NULL view, every index 0, rules 5.5), 0 for reads past
    the view's SizeInBytes (rules 5.6). A read-only view of ``host`` where it is immutable
    (``bytes`` or a read-only array) and holds every index as uint32, else a new array;
    callers never modify it."""
    n = draw.index_count_per_instance
    if host is None or ib is None:
        return np.zeros(n, np.uint32)
    size = ib.index_size
    assert ib.size_in_bytes is not None  # resolved: the view has a buffer (host bytes)
    held = ib.size_in_bytes // size
    first, last = draw.start_index_location, min(draw.start_index_location + n, held)
    dtype = {2: "<u2", 4: "<u4"}[size]
    if (size == 4 and last - first == n and np.dtype(dtype) == np.uint32
            and (isinstance(host, bytes)
                 or (isinstance(host, np.ndarray) and not host.flags.writeable))):
        # Every index inside the view, 32-bit and this host's byte order, in immutable bytes or
        # a gpuia host copy (read-only, replaced on a write, never changed): those bytes.
        return np.frombuffer(host, np.uint32, count=n, offset=ib.offset + first * size)
    out = np.zeros(n, np.uint32)
    if last > first:
        out[: last - first] = np.frombuffer(host, dtype, count=last - first,
                                            offset=ib.offset + first * size)
    return out


# Host index plans of large draws, remembered: planning reads every index (D3D's values, cuts,
# the fetch range the native bounds rule needs), which a mesh drawn every frame would pay at
# every draw. A host copy gpuia made is a read-only array replaced on every Buffer.write, so
# the array itself (weakly held, checked by identity) and the draw's fields determine the plan.
_PLAN_CACHE_MIN_INDICES = 4096  # below this, planning costs less than remembering
_PLAN_CACHE_INDICES = 1 << 26  # indices the remembered plans may cover (their arrays' memory)
_plan_cache: OrderedDict = OrderedDict()
_plan_cache_lock = threading.Lock()


def plan_indices(draw, ib: IndexBufferView | None, topo: TopologyInfo, cut: StripCutValue,
                 capture: bool, assembly: Assembly = EXACT_ASSEMBLY) -> IndexPlan:
    """How a draw's indices reach the GPU: bound as they are, a stream gpuia builds on the host,
    or the GPU index pass (the rules are :func:`_plan_indices`'). Large indexed draws whose
    indices are a read-only host copy (what gpuia's Buffers hold; rewritten, the copy is a new
    array) are planned once and remembered; the plan is then shared by the draws that repeat
    it, so it must not be modified (gpuia never does).

    Arguments:
        draw: the DrawInstanced or DrawIndexedInstanced.
        ib (IndexBufferView | None): the bound index buffer view.
        topo (TopologyInfo): the primitive topology.
        cut (StripCutValue): the pipeline's strip cut value.
        capture (bool): planned for a capture (a point list over the delivered vertices).
        assembly (Assembly): the adapter's primitive-assembly workarounds.

    Returns:
        IndexPlan: the plan.

    Raises:
        UnsupportedError: as :func:`_plan_indices` refuses a draw.
    """
    if (not draw.indexed or ib is None or ib.buffer is None
            or draw.index_count_per_instance < _PLAN_CACHE_MIN_INDICES):
        return _plan_indices(draw, ib, topo, cut, capture, assembly)
    host = _host(ib.buffer)
    if not isinstance(host, np.ndarray) or host.flags.writeable:
        return _plan_indices(draw, ib, topo, cut, capture, assembly)
    key = (id(host), ib.offset, ib.size_in_bytes, ib.format, draw.start_index_location,
           draw.index_count_per_instance, draw.base_vertex_location, topo, cut, capture,
           assembly)
    with _plan_cache_lock:
        hit = _plan_cache.get(key)
        if hit is not None and hit[0]() is host:
            _plan_cache.move_to_end(key)
            return hit[1]
    plan = _plan_indices(draw, ib, topo, cut, capture, assembly)
    with _plan_cache_lock:
        for k in [k for k, (ref, _) in _plan_cache.items() if ref() is None]:
            del _plan_cache[k]  # plans of index buffers gone or rewritten
        _plan_cache[key] = (weakref.ref(host), plan)
        while sum(k[5] for k in _plan_cache) > _PLAN_CACHE_INDICES and len(_plan_cache) > 1:
            _plan_cache.popitem(last=False)
    return plan


def _plan_indices(draw, ib: IndexBufferView | None, topo: TopologyInfo,
                          cut: StripCutValue, capture: bool,
                          assembly: Assembly = EXACT_ASSEMBLY) -> IndexPlan:
    """Decide how indices reach the GPU. Capture draws are point lists over the delivered
    vertices (every delivered vertex shaded exactly, cuts applied on the host when present).
    A rendering draw WebGPU (or this adapter, ``assembly``) would assemble unlike D3D is drawn
    as the matching list: from a host stream (:func:`gpuia.gpu.ia.host_lists.list_stream`) when the
    indices are on the host, else from the GPU index pass (mode ``gpu``).

    Refused (:class:`UnsupportedError`): a capture of indices only on the GPU that would need
    them rewritten (reads past the view, a strip cut value WebGPU does not restart at), more
    indices per instance than :data:`HOST_INDEX_LIMIT` where the host reads them."""
    if delivers_nothing(draw):  # whatever the other count, or where the indices live
        return IndexPlan(IndexMode.NONE, fetch=np.zeros(0, np.uint32) if capture else None,
                         reasons=["the draw delivers nothing (a count is 0)"])
    rotate = assembly.rotate and topo.kind != "point" and not capture
    if not draw.indexed:
        if capture or not (topo.adjacency or rotate):
            return non_indexed_plan(draw.start_vertex_location, draw.vertex_count_per_instance,
                                    with_fetch=capture)
        return _as_list(np.arange(draw.vertex_count_per_instance, dtype=np.uint32), None, topo,
                        rotate, draw.start_vertex_location, [])
    host = None if ib is None or ib.buffer is None else _host(ib.buffer)
    listed = not capture and (topo.adjacency or rotate)
    if ib is not None and ib.buffer is not None and host is None:
        return _gpu_only(draw, ib, topo, cut, capture, assembly, rotate)
    if draw.index_count_per_instance > HOST_INDEX_LIMIT:
        raise UnsupportedError(f"{draw.index_count_per_instance} indices per instance: more than "
                               f"gpuia resolves on the host ({HOST_INDEX_LIMIT})")
    all_values = host_index_values(draw, host, ib)  # D3D's values, 0 outside the view
    is_cut = (all_values == cut.index) if (topo.strip and cut.index is not None) else None
    kept = all_values if is_cut is None else all_values[~is_cut]
    fetch = wrapped_fetch(kept, draw.base_vertex_location)
    reasons = []
    bound = ib is not None and ib.buffer is not None
    # The view, read only where one with a buffer is bound (its SizeInBytes then resolved).
    view = cast(IndexBufferView, ib)
    size = view.index_size if bound else 0
    in_range = bound and ((draw.start_index_location + draw.index_count_per_instance) * size
                          <= cast(int, view.size_in_bytes))
    if not bound:
        reasons.append("NULL index buffer view: every index reads 0 (uploaded by gpuia)")
    elif not in_range:
        reasons.append("the draw reads indices past the view's SizeInBytes: they read 0 "
                       "(uploaded by gpuia)")
    has_cuts = is_cut is not None and bool(is_cut.any())
    if capture:
        # Capture draws are point lists: every delivered vertex once, cut positions removed.
        if bound and in_range and not has_cuts:
            return IndexPlan(IndexMode.DIRECT, index_format=_wgpu_index_format(view.format),
                             fetch=fetch, reasons=reasons or ["bound as is"])
        if has_cuts:
            assert is_cut is not None  # has_cuts
            reasons.append(f"{int(is_cut.sum())} strip-cut indices removed on the host for the "
                           f"capture")
        return IndexPlan(IndexMode.HOST, values=kept, index_format="uint32", fetch=fetch,
                         reasons=reasons)
    if listed or (has_cuts and assembly.no_restart):
        if not listed:
            reasons.append("this adapter draws strips as if no index restarted them: "
                           "drawn as a list")
        return _as_list(all_values, is_cut, topo, rotate, draw.base_vertex_location, reasons)
    # What WebGPU would do with the user's buffer as is: restart strips at its fixed value.
    # Binding it as is is right only if it restarts exactly where D3D cuts.
    if bound and topo.strip:
        webgpu_restarts = all_values == {"R16_UINT": 0xFFFF, "R32_UINT": _U32}[view.format]
        d3d_cuts = np.zeros_like(webgpu_restarts) if is_cut is None else is_cut
        restarts_agree = bool(np.array_equal(webgpu_restarts, d3d_cuts))
    else:
        restarts_agree = bound
    if bound and in_range and restarts_agree:
        return IndexPlan(IndexMode.DIRECT, index_format=_wgpu_index_format(view.format),
                         fetch=fetch, reasons=reasons or ["bound as is"])
    if not topo.strip:
        return IndexPlan(IndexMode.HOST, values=all_values, index_format="uint32", fetch=fetch,
                         reasons=reasons)
    # A strip drawn from gpuia's own uint32 stream: D3D's cuts become WebGPU's restart value,
    # which must not also be an ordinary index there; if it is, the strip is drawn as a list.
    if bool(np.any(kept == _U32)):
        reasons.append("index 0xFFFFFFFF is an ordinary index under this strip cut value, but "
                       "WebGPU restarts uint32 strips there: drawn as a list")
        return _as_list(all_values, is_cut, topo, False, draw.base_vertex_location, reasons)
    stream = all_values if is_cut is None else np.where(is_cut, np.uint32(_U32), all_values)
    reasons.append("strip cuts rewritten to WebGPU's uint32 restart value")
    return IndexPlan(IndexMode.HOST, values=stream, index_format="uint32", fetch=fetch,
                     reasons=reasons)


def _gpu_only(draw, ib: IndexBufferView, topo: TopologyInfo, cut: StripCutValue, capture: bool,
              assembly: Assembly, rotate: bool) -> IndexPlan:
    """The plan of an indexed draw whose indices only the GPU holds: bound as they are where
    D3D and WebGPU agree on them, else (rendering) listed by the GPU index pass. Nothing on
    the host knows the values, so there are no fetch indices (the native path's bounds check
    then routes the draw to pulling)."""
    end = (draw.start_index_location + draw.index_count_per_instance) * ib.index_size
    why = []  # what WebGPU would do unlike D3D with the buffer bound as is
    if end > ib.size_in_bytes:
        why.append(f"the draw reads indices up to byte {end} of a {ib.size_in_bytes}-byte index "
                   f"view, and D3D reads 0 past the view")
    if topo.strip and not _cut_matches(ib.format, cut):
        why.append(f"strip cut {cut} with {ib.format} indices differs from WebGPU's restart")
    if capture:
        # A capture is a point list, so only the values matter: the host must rewrite them
        # here, and read them as fetch indices in any case (the capture refuses a draw whose
        # fetch indices it does not have).
        if why:
            raise UnsupportedError("a capture of this draw needs its indices on the host ("
                                   + "; ".join(why) + "), and they are only on the GPU")
        return IndexPlan(IndexMode.DIRECT, index_format=_wgpu_index_format(ib.format),
                         reasons=["bound as is (indices only on the GPU)"])
    if topo.adjacency:
        why.append("WebGPU has no adjacency topologies")
    if rotate:
        why.append("this adapter takes flat pixel inputs from a primitive's last vertex")
    if topo.strip and cut.index is not None and assembly.no_restart:
        why.append("this adapter draws strips as if no index restarted them")
    if not why:
        return IndexPlan(IndexMode.DIRECT, index_format=_wgpu_index_format(ib.format),
                         reasons=["bound as is (indices only on the GPU)"])
    return IndexPlan(IndexMode.GPU, reasons=why + [
        f"{topo.name} drawn as a {topo.webgpu_list} the GPU index pass builds from the indices "
        f"on the GPU" + (" (each primitive rotated)" if rotate else "")],
        listed=True, cut=cut, rotate=rotate)


def _as_list(values: np.ndarray, cuts, topo: TopologyInfo, rotate: bool, base: int,
             reasons: list) -> IndexPlan:
    """A rendering draw drawn as the list of its complete primitives (host stream)."""
    n = values.shape[0]
    if n > HOST_INDEX_LIMIT:
        raise UnsupportedError(f"{n} vertices per instance: more than gpuia expands on the host "
                               f"({HOST_INDEX_LIMIT})")
    listed = list_stream(values, cuts, topo, rotate)
    fetch = wrapped_fetch(listed, base)
    why = []
    if topo.adjacency:
        why.append(f"{topo.name} drawn as its {topo.webgpu} (adjacency vertices dropped, as D3D "
                   f"rasterizes it)")
    elif topo.strip or rotate:
        why.append(f"{topo.name} drawn as a {topo.webgpu.replace('strip', 'list')}")
    if rotate:
        why.append("each primitive's vertices rotated: this adapter takes flat pixel inputs from "
                   "the last vertex, D3D from the first")
    return IndexPlan(IndexMode.HOST, values=listed, index_format="uint32", fetch=fetch,
                     reasons=reasons + why, listed=True)


def non_indexed_plan(start: int, count: int, with_fetch: bool = False) -> IndexPlan:
    if with_fetch and count > HOST_INDEX_LIMIT:
        raise UnsupportedError(f"{count} vertices per instance: more than gpuia captures per "
                               f"draw ({HOST_INDEX_LIMIT})")
    return _non_indexed(start, count, with_fetch)


def _non_indexed(start: int, count: int, with_fetch: bool) -> IndexPlan:
    """Vertices ``start .. start + count - 1`` (32-bit wrapping); the fetch array is built only
    when asked (capture keys), the span always."""
    if count == 0:
        return IndexPlan(IndexMode.NONE, fetch=np.zeros(0, np.uint32) if with_fetch else None)
    last = start + count - 1
    span = (start, last) if last <= _U32 else (0, _U32)
    fetch = wrapped_fetch(np.arange(count, dtype=np.uint32), start) if with_fetch else None
    return IndexPlan(IndexMode.NONE, fetch=fetch, span=span)


def _wgpu_index_format(fmt: str) -> str:
    return {"R16_UINT": "uint16", "R32_UINT": "uint32"}[fmt]


def _cut_matches(fmt: str, cut: StripCutValue) -> bool:
    """WebGPU always restarts strips at 0xFFFF (uint16) or 0xFFFFFFFF (uint32)."""
    return cut.index == {"R16_UINT": 0xFFFF, "R32_UINT": _U32}[fmt]


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


SO_BINDINGS = 3 + 8
"""Storage buffers a Stream Output compute pass adds beside the vertex data: its state,
statistics and index/list input, and up to 4 targets with 4 counter buffers."""


def static_plan(layout: InputLayout, views: dict, caps: Caps, capture: bool,
                stream_output: bool = False) -> StaticPlan:
    slots = tuple(sorted(layout.slots))
    native, bounds = _native_obstacles(layout, views, caps, slots)
    pulling, arena, windows = _pulling_obstacles(layout, views, caps, slots,
                                                 CAPTURE_BINDINGS if capture else 0,
                                                 SO_BINDINGS if stream_output else 0)
    return StaticPlan(slots, native, pulling, tuple(bounds), arena, windows)


def bounds_obstacles(static: StaticPlan, draw, index: IndexPlan) -> list[str]:
    """Per-draw native obstacles: fetches outside a view, or fetch indices not known."""
    out: list[str] = []
    if delivers_nothing(draw):
        return out
    for b in static.bounds:
        if b.per_instance:
            lo = draw.start_instance_location
            hi = lo + ((draw.instance_count - 1) // b.rate if b.rate else 0)
        elif index.span is None:
            if index.fetch is None and index.mode is not IndexMode.NONE:
                out.append(f"slot {b.slot}: fetch indices unknown on the host (out-of-bounds "
                           f"reads would not be D3D's zeros)")
            continue
        else:
            lo, hi = index.span
        if hi > _U32:
            out.append(f"slot {b.slot}: fetch index {hi} wraps past 2**32")
        elif hi > last_whole_index(b):
            out.append(f"slot {b.slot}: the draw fetches element {hi}, past the view's "
                       f"{b.size} bytes (D3D reads zeros, WebGPU rejects or clamps)")
    return out


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
    return _U32 if b.stride == 0 else (b.size - b.extent) // b.stride


def native_last_indices(static: StaticPlan) -> tuple[int, tuple]:
    """(highest vertex index every per-vertex slot holds whole, ((step rate, highest instance
    index held), ...) per distinct rate of per-instance slots): :func:`last_whole_index` over
    the slots, so that a draw is inside every view when its last vertex and each rate's last
    instance are at most these."""
    last: dict[int | None, int] = {}
    for b in static.bounds:
        key = b.rate if b.per_instance else None
        last[key] = min(last.get(key, _U32), last_whole_index(b))
    return last.pop(None, _U32), tuple(last.items())


def shift_first_vertex(index: IndexPlan, draw, quirks) -> IndexPlan:
    """``index`` with ``vertex_shift`` set where the adapter (``quirks``) cannot take the
    draw's first vertex (:data:`~gpuia.gpu.quirks.SIGNED_FIRST_VERTEX`): a non-indexed draw
    with StartVertexLocation >= 2**31 is drawn from vertex 0 (or, drawn from a host list, with
    base vertex 0 rather than a negative one, which OpenGL leaves undefined when base vertex
    plus index is negative) and its vertex stage adds the shift. Unchanged elsewhere."""
    if (draw.indexed or index.mode not in (IndexMode.NONE, IndexMode.HOST)
            or draw.start_vertex_location < _SIGNED_LIMIT
            or not has_effect(quirks, SIGNED_FIRST_VERTEX)):
        return index
    return replace(index, vertex_shift=draw.start_vertex_location,
                   reasons=index.reasons + [
                       f"StartVertexLocation {draw.start_vertex_location} is past this "
                       f"adapter's signed first vertex: drawn from 0, added in the vertex stage"])


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
    return Plan(chosen, reasons, index, static.slots)


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
        views (dict): input slot -> :class:`~gpuia.d3d.desc.VertexBufferView` (or None: a
            NULL binding) at draw time; slots not listed are unbound.
        draw: the :class:`~gpuia.d3d.desc.DrawInstanced` or
            :class:`~gpuia.d3d.desc.DrawIndexedInstanced`, or its case-file dict form (a draw
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
        view = views.get(s)
        if view is None or view.buffer is None:
            out.append(f"slot {s} is unbound (D3D reads zeros, w included)")
            continue
        if info.per_instance and info.step_rate != 1:
            out.append(f"slot {s} steps every {info.step_rate} instances (WebGPU has no step rate)"
                       if info.step_rate else
                       f"slot {s} has step rate 0 (every instance reads StartInstanceLocation)")
            continue
        stride = view.stride_in_bytes
        if stride % 4:
            out.append(f"slot {s} stride {stride} is not a multiple of 4")
        elif stride > caps.max_vertex_buffer_array_stride:
            out.append(f"slot {s} stride {stride} exceeds max-vertex-buffer-array-stride "
                       f"{caps.max_vertex_buffer_array_stride}")
        elif stride and stride < info.extent:
            out.append(f"slot {s} stride {stride} is smaller than its elements' extent "
                       f"{info.extent}")
        elif not stride and info.extent > caps.max_vertex_buffer_array_stride:
            out.append(f"slot {s} has stride 0 and elements reaching byte {info.extent}, past "
                       f"max-vertex-buffer-array-stride {caps.max_vertex_buffer_array_stride}")
        if view.offset % 4:
            out.append(f"slot {s} view offset {view.offset} is not a multiple of 4")
        bounds.append(SlotBounds(s, stride, info.extent, view.size_in_bytes, info.per_instance,
                                 info.step_rate))
    return out, bounds


def _pulling_obstacles(layout, views, caps: Caps, slots, capture_extra: int,
                       so_extra: int) -> tuple[list[str], bool, dict]:
    """(obstacles, arena, binding windows). With more slots than the stage has storage buffers (plus
    what the capture takes, or at most what a Stream Output pass takes), the views are copied into
    one arena buffer per draw, u_vbuf style. The Stream Output pass checks its exact need itself."""
    out = []
    limit = caps.max_storage_buffers_per_shader_stage
    arena = len(slots) + max(capture_extra, so_extra) > limit
    if arena and 1 + capture_extra > limit:
        out.append(f"the vertex stage has {limit} storage buffers, fewer than the "
                   f"{1 + capture_extra} pulling needs")
    total = 0
    windows = {}
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
            out.append(f"slot {s}'s view ({view.size_in_bytes} bytes at offset {view.offset}) "
                       f"needs a {window[1]}-byte storage binding, over "
                       f"max-storage-buffer-binding-size {caps.max_storage_buffer_binding_size}")
    if arena and total > caps.max_storage_buffer_binding_size:
        out.append(f"the {len(slots)} slots' views ({total} bytes) do not fit one storage binding "
                   f"of max-storage-buffer-binding-size {caps.max_storage_buffer_binding_size}")
    return out, arena, windows


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
