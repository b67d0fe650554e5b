"""Index planning: how a draw's vertices are sequenced on the GPU, in the order D3D's Input
Assembler delivers them.

:func:`plan_indices` looks at the draw, the bound index buffer view, the topology, the pipeline
state's strip cut value and what this adapter's primitive assembly needs (:class:`Assembly`), and
returns an :class:`IndexPlan`: the user's index buffer bound as is, a uint32 stream gpuia builds
on the host (D3D's values: 0 past the view and for a NULL view, cuts applied or rewritten, strips
and adjacency listed by :func:`gpuia.gpu.ia.host_lists.list_stream`), or the GPU index pass
(:mod:`gpuia.gpu.ia.index_pass`) for indices only the GPU holds. :func:`shift_first_vertex`
moves a first vertex the adapter cannot take into the vertex stage. Nothing here touches wgpu;
the vertex path of the draw is :mod:`gpuia.gpu.vertex.plan`'s.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np

from ...d3d.desc import StripCutValue
from ...d3d.draws import delivers_nothing
from ...d3d.ia_desc import IndexBufferView
from ...d3d.topology import TopologyInfo
from ...errors import UnsupportedError
from ...util.named import NamedMode
from ..quirks import LAST_PROVOKING_VERTEX, NO_PRIMITIVE_RESTART, SIGNED_FIRST_VERTEX, has_effect
from .host_lists import list_stream

__all__ = ["IndexPlan", "IndexMode", "Assembly", "EXACT_ASSEMBLY", "plan_indices",
           "host_index_values", "shift_first_vertex", "non_indexed_plan", "wrapped_fetch",
           "HOST_INDEX_LIMIT", "U32"]

U32 = 0xFFFFFFFF
"""The largest 32-bit unsigned value: where fetch indices wrap (rules 4.8)."""
_SIGNED_LIMIT = 1 << 31
HOST_INDEX_LIMIT = 1 << 27
"""Indices per instance gpuia reads on the host (to apply D3D's index rules) at the most."""


class IndexMode(NamedMode):
    """How a draw's vertices are sequenced on the GPU (:class:`IndexPlan`).

    A str enum like :class:`~gpuia.gpu.vertex.plan.DrawPath` (members equal their strings).
    ``none``: a non-indexed draw (or one that delivers nothing), drawn as is; ``direct``: the
    user's index buffer bound as is; ``host``: gpuia uploads a uint32 stream it built from the
    indices on the host; ``gpu``: the indices are only on the GPU and WebGPU cannot draw them
    as they are, so the GPU index pass (:mod:`gpuia.gpu.ia.index_pass`) lists the draw's
    complete primitives there and the matching list topology draws them indirectly (D3D's
    cuts, rules 5.2-5.4, applied there)."""

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
    return values + np.uint32(base & U32) if base & U32 else values


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


def _plan_indices(draw, ib: IndexBufferView | None, topo: TopologyInfo, cut: StripCutValue,
                  capture: bool, assembly: Assembly = EXACT_ASSEMBLY) -> IndexPlan:
    """Decide how indices reach the GPU. Capture draws are point lists over the delivered
    vertices (every delivered vertex shaded exactly, cuts applied on the host when present).
    A rendering draw WebGPU (or this adapter, ``assembly``) would assemble unlike D3D is drawn
    as the matching list: from a host stream (:func:`gpuia.gpu.ia.host_lists.list_stream`) when
    the indices are on the host, else from the GPU index pass (mode ``gpu``).

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
    if ib is not None and ib.buffer is not None and host is None:
        return _gpu_only(draw, ib, topo, cut, capture, assembly, rotate)
    if draw.index_count_per_instance > HOST_INDEX_LIMIT:
        raise UnsupportedError(f"{draw.index_count_per_instance} indices per instance: more than "
                               f"gpuia resolves on the host ({HOST_INDEX_LIMIT})")
    read = _read_host_indices(draw, ib, host, topo, cut)
    if capture:
        return _capture_plan(read)
    return _rendering_plan(read, draw, topo, assembly, rotate)


@dataclass
class _HostIndices:
    """One instance's indices as D3D delivers them, read on the host, and what binding the
    user's buffer as is would get wrong."""

    values: np.ndarray  # D3D's values, 0 outside the view
    is_cut: np.ndarray | None  # True at strip cuts (None: the topology or cut value has none)
    kept: np.ndarray  # the values, cut positions removed
    fetch: np.ndarray  # kept plus BaseVertexLocation, wrapped
    reasons: list[str]
    bound: bool  # a view with a buffer is bound
    view: IndexBufferView  # the view, read only where bound (its SizeInBytes then resolved)
    in_range: bool  # bound, and every index the draw reads inside the view
    has_cuts: bool


def _read_host_indices(draw, ib: IndexBufferView | None, host, topo: TopologyInfo,
                       cut: StripCutValue) -> _HostIndices:
    all_values = host_index_values(draw, host, ib)  # D3D's values, 0 outside the view
    is_cut = (all_values == cut.index) if (topo.strip and cut.index is not None) else None
    kept = all_values if is_cut is None else all_values[~is_cut]
    fetch = wrapped_fetch(kept, draw.base_vertex_location)
    reasons = []
    bound = ib is not None and ib.buffer is not None
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
    return _HostIndices(all_values, is_cut, kept, fetch, reasons, bound, view, in_range, has_cuts)


def _capture_plan(h: _HostIndices) -> IndexPlan:
    """Capture draws are point lists: every delivered vertex once, cut positions removed."""
    if h.bound and h.in_range and not h.has_cuts:
        return IndexPlan(IndexMode.DIRECT, index_format=_wgpu_index_format(h.view.format),
                         fetch=h.fetch, reasons=h.reasons or ["bound as is"])
    if h.has_cuts:
        assert h.is_cut is not None  # has_cuts
        h.reasons.append(f"{int(h.is_cut.sum())} strip-cut indices removed on the host for the "
                         f"capture")
    return IndexPlan(IndexMode.HOST, values=h.kept, index_format="uint32", fetch=h.fetch,
                     reasons=h.reasons)


def _rendering_plan(h: _HostIndices, draw, topo: TopologyInfo, assembly: Assembly,
                    rotate: bool) -> IndexPlan:
    """A rendering draw of host indices: the user's buffer bound as is where WebGPU draws it
    as D3D does, else a uint32 stream (cuts rewritten to WebGPU's restart value) or a list."""
    reasons, is_cut, all_values = h.reasons, h.is_cut, h.values
    listed = topo.adjacency or rotate
    if listed or (h.has_cuts and assembly.no_restart):
        if not listed:
            reasons.append("this adapter draws strips as if no index restarted them: "
                           "drawn as a list")
        return _as_list(all_values, is_cut, topo, rotate, draw.base_vertex_location, reasons)
    # What WebGPU would do with the user's buffer as is: restart strips at its fixed value.
    # Binding it as is is right only if it restarts exactly where D3D cuts.
    if h.bound and topo.strip:
        webgpu_restarts = all_values == {"R16_UINT": 0xFFFF, "R32_UINT": U32}[h.view.format]
        d3d_cuts = np.zeros_like(webgpu_restarts) if is_cut is None else is_cut
        restarts_agree = bool(np.array_equal(webgpu_restarts, d3d_cuts))
    else:
        restarts_agree = h.bound
    if h.bound and h.in_range and restarts_agree:
        return IndexPlan(IndexMode.DIRECT, index_format=_wgpu_index_format(h.view.format),
                         fetch=h.fetch, reasons=reasons or ["bound as is"])
    if not topo.strip:
        return IndexPlan(IndexMode.HOST, values=all_values, index_format="uint32", fetch=h.fetch,
                         reasons=reasons)
    # A strip drawn from gpuia's own uint32 stream: D3D's cuts become WebGPU's restart value,
    # which must not also be an ordinary index there; if it is, the strip is drawn as a list.
    if bool(np.any(h.kept == U32)):
        reasons.append("index 0xFFFFFFFF is an ordinary index under this strip cut value, but "
                       "WebGPU restarts uint32 strips there: drawn as a list")
        return _as_list(all_values, is_cut, topo, False, draw.base_vertex_location, reasons)
    stream = all_values if is_cut is None else np.where(is_cut, np.uint32(U32), all_values)
    reasons.append("strip cuts rewritten to WebGPU's uint32 restart value")
    return IndexPlan(IndexMode.HOST, values=stream, index_format="uint32", fetch=h.fetch,
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
    span = (start, last) if last <= U32 else (0, U32)
    fetch = wrapped_fetch(np.arange(count, dtype=np.uint32), start) if with_fetch else None
    return IndexPlan(IndexMode.NONE, fetch=fetch, span=span)


def _wgpu_index_format(fmt: str) -> str:
    return {"R16_UINT": "uint16", "R32_UINT": "uint32"}[fmt]


def _cut_matches(fmt: str, cut: StripCutValue) -> bool:
    """WebGPU always restarts strips at 0xFFFF (uint16) or 0xFFFFFFFF (uint32)."""
    return cut.index == {"R16_UINT": 0xFFFF, "R32_UINT": U32}[fmt]


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
